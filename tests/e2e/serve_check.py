#!/usr/bin/env python3
"""Oracle for tr-serve's UI URL: serve_check.py TRACE URL [PASS [LAYER]].

URL is the UI URL tr-serve printed (or what the stand-in UI saw as its
location); its hash route "#!/?..." is decoded here with Python's own URL and
JSON parsers, and checked against the served TRACE (read independently):
- the PinTracksByRegex pattern (Python re, JS search semantics) matches
  exactly the names of the layer guide threads (those holding cat
  "layer_guide" events) and of the synthetic GPU lanes ("GPU lane K
  (synthetic; device D)"), also with Perfetto's " TID" suffix, and no other
  thread or process name of the trace;
- the ExpandTracksByRegex pattern matches the "NAME PID" title of the guides'
  and lanes' processes and no other process's;
- visStart/visEnd are the first guide start and last guide end of pass PASS
  (default 0) in ns; with LAYER, ts/dur are that guide's;
- a RunQueryAndShowTab command lists the guides.
Prints "ok" or the first difference, exit 0 or 1."""
import gzip
import json
import re
import sys
import urllib.parse
from decimal import Decimal


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal)


def ns(v):
    d = Decimal(str(v)) * 1000
    if d != d.to_integral_value():
        raise SystemExit("oracle: a guide time with sub-ns digits: %s" % v)
    return int(d)


def main():
    trace, url = sys.argv[1], sys.argv[2]
    want_pass = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    want_layer = int(sys.argv[4]) if len(sys.argv) > 4 else None
    doc = load(trace)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    thread_names, process_names = {}, {}
    guide_tracks, guides = set(), []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            thread_names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "process_name":
            process_names[e["pid"]] = e["args"]["name"]
        elif e.get("cat") == "layer_guide":
            guide_tracks.add((e["pid"], e["tid"]))
            guides.append(e)
    lane_re = re.compile(r"GPU lane [0-9]+ \(synthetic; device [^)]*\)")
    want_pins = {thread_names[k] for k in guide_tracks}
    lane_pids = set()
    for k, n in thread_names.items():
        if lane_re.fullmatch(n):
            want_pins.add(n)
            lane_pids.add(k[0])
    want_pids = {k[0] for k in guide_tracks} | lane_pids

    frag = urllib.parse.urlsplit(url).fragment
    if not frag.startswith("!/?"):
        return "no hash route #!/? in %r" % url[:200]
    q = urllib.parse.parse_qs(frag[3:], keep_blank_values=True, strict_parsing=True)
    cmds = json.loads(q["startupCommands"][0])
    by_id = {}
    for c in cmds:
        by_id.setdefault(c["id"], []).append(c["args"])

    pin = re.compile(by_id["dev.perfetto.PinTracksByRegex"][0][0])
    everything = set(thread_names.values()) | set(process_names.values())
    got = {n for n in everything if pin.search(n)}
    if got != want_pins:
        return "pinned %s, wanted %s" % (sorted(got), sorted(want_pins))
    for (pid, tid), n in thread_names.items():
        if n in want_pins and not pin.search("%s %s" % (n, tid)):
            return "the pin pattern misses the title %r" % ("%s %s" % (n, tid))
    expand = re.compile(by_id["dev.perfetto.ExpandTracksByRegex"][0][0])
    got = {p for p, n in process_names.items() if expand.search("%s %s" % (n, p))}
    if got != want_pids:
        return "expanded pids %s, wanted %s" % (sorted(got), sorted(want_pids))

    mine = [g for g in guides if g["args"]["pass_index"] == want_pass]
    start = min(ns(g["ts"]) for g in mine)
    end = max(ns(g["ts"]) + ns(g["dur"]) for g in mine)
    if end == start:
        end = start + 1000
    got = (int(q["visStart"][0]), int(q["visEnd"][0]))
    if got != (start, end):
        return "visStart/visEnd %s, wanted %s" % (got, (start, end))
    if want_layer is not None:
        g = [g for g in mine if g["args"]["layer_id"] == want_layer][0]
        got = (int(q["ts"][0]), int(q["dur"][0]))
        if got != (ns(g["ts"]), ns(g["dur"])):
            return "ts/dur %s, wanted %s" % (got, (ns(g["ts"]), ns(g["dur"])))
    elif "ts" in q or "dur" in q:
        return "ts/dur without --layer"
    query = by_id.get("dev.perfetto.RunQueryAndShowTab", [[""]])[0][0]
    if "layer_guide" not in query or "start_relative_ms" not in query:
        return "no guide query tab: %r" % query
    return None


if __name__ == "__main__":
    why = main()
    print(why or "ok")
    sys.exit(1 if why else 0)
