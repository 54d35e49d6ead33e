#!/usr/bin/env python3
"""repeat_oracle.py ORIGINAL REPEATED N: check tr-gen --repeat N against the
json module.  Numbers are read as decimal.Decimal, so ts are compared
exactly; the repeated trace must hold the original's events, then N-1 more
copies of those that are not metadata (ph "M"), copy k with every ts
moved by k * SHIFT microseconds (SHIFT: the span of the non-metadata events
from first ts to last end, rounded up to whole microseconds, plus one) and
every integer id, args.correlation and args["External id"] by k * (the
largest of them + 1); every other member as it was, top-level members too.
Prints the event counts and the shift."""
import decimal
import gzip
import json
import math
import sys

D = decimal.Decimal


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=D, parse_int=D)


def is_int(v):
    return isinstance(v, D) and v == v.to_integral_value() and v >= 0 and "." not in str(v)


def main():
    orig, rep, n = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
    ev = orig["traceEvents"] if isinstance(orig, dict) else orig
    out = rep["traceEvents"] if isinstance(rep, dict) else rep
    plain = [e for e in ev if not (isinstance(e, dict) and e.get("ph") == "M")]
    lo = min(e["ts"] for e in plain if isinstance(e, dict) and "ts" in e)
    hi = max(e["ts"] + max(e.get("dur", D(0)), D(0)) for e in plain
             if isinstance(e, dict) and "ts" in e)
    shift = int(((hi - lo) * 1000 + 999) // 1000) + 1
    ids = [v for e in ev if isinstance(e, dict)
           for v in (e.get("id"), (e.get("args") or {}).get("correlation")
                     if isinstance(e.get("args"), dict) else None,
                     (e.get("args") or {}).get("External id")
                     if isinstance(e.get("args"), dict) else None)
           if is_int(v)]
    off = (max(ids) + 1) if ids else 0
    want = list(ev)
    for k in range(1, n):
        for e in plain:
            if not isinstance(e, dict):
                want.append(e)
                continue
            c = dict(e)
            if "ts" in c:
                c["ts"] = c["ts"] + k * shift
            if is_int(c.get("id")):
                c["id"] = c["id"] + k * off
            if isinstance(c.get("args"), dict):
                a = dict(c["args"])
                for key in ("correlation", "External id"):
                    if is_int(a.get(key)):
                        a[key] = a[key] + k * off
                c["args"] = a
            want.append(c)
    if len(out) != len(want):
        sys.exit("repeat_oracle: %d events, wanted %d" % (len(out), len(want)))
    for i, (a, b) in enumerate(zip(out, want)):
        if a != b:
            sys.exit("repeat_oracle: event %d: %s, wanted %s" % (i, str(a)[:300], str(b)[:300]))
    if isinstance(orig, dict):
        for key in orig:
            if key != "traceEvents" and rep.get(key) != orig[key]:
                sys.exit("repeat_oracle: top-level member %s changed" % key)
    print("events %d of %d; metadata %d; shift %d us; id offset %d"
          % (len(out), len(ev), len(ev) - len(plain), shift, off))


main()
