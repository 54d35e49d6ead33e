#!/usr/bin/env python3
"""Regenerate the seed corpus of the fuzz targets (tests/fuzz/corpus/).

usage: python3 tests/fuzz/make-corpus.py BIN TRACES

Slices of real traces (the first few KB of the JSON, one event of each
kind, the members around traceEvents), slices of tr-gen output, the
stream tr-decode makes of small documents, timestamp texts, and hand-made
edge cases.  Never whole traces: every file is at most 4 KB."""
import glob
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys

BIN, TRACES = sys.argv[1], sys.argv[2]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
LIMIT = 4096
MAX_FILES = 40


def save(target, data, seen):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    data = data[:LIMIT]
    if data in seen[target] or len(seen[target]) >= MAX_FILES:
        return
    seen[target].add(data)
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def decode(doc):
    return subprocess.run([os.path.join(BIN, "tr-decode")], input=doc,
                          capture_output=True).stdout


seen = {t: set() for t in ("fuzz_decode", "fuzz_stream", "fuzz_encode", "fuzz_tsnum")}


def save_stream(data, seen):
    """A stream seeds both stream targets: fuzz_stream and fuzz_encode."""
    save("fuzz_stream", data, seen)
    save("fuzz_encode", data, seen)

# ---- hand-made edge cases first, so that the caps never drop them
edge_docs = [
    b'{"traceEvents":[]}',
    b'[]',
    b'[{"ph":"X","ts":1},\n{"ph":"X","ts":2},\n',
    b'{"traceEvents":[{"a":1},]}',
    b'{"traceEvents":[{"a":1},],"x":1}',
    b'{"traceEvents":[{"a":1,}]}',
    b'\xef\xbb\xbf{"traceEvents":[]}',
    b'{"traceEvents":[{"name":"a\xff\xfeb\xc0\xaf"}]}',
    b'{"traceEvents":[{"name":"\\ud83d\\ude00 \\"q\\" \\ud800"}]}',
    b'{"trace\\u0045vents":[{}],"b":[1,{"c":null}]}',
    b'{"traceEvents":[{"ts":"123.5","dur":-1,"pid":"p","tid":-1}]}',
    b'{"traceEvents":[{"ts":1.5e3,"dur":1E-4,"x":-0.0e+0}]}',
    b'{"traceEvents":[{"ts":NaN}]}',
    b'{"traceEvents":[{"a":1,"a":2}]}',
    b'{\r\n"traceEvents":[\r\n{"a":1}\r\n]\r\n}\r\n',
    b'{"traceEvents":[{"id":1234567890123456789,"ts":1712195495519689.047123}]}',
    b'{"traceEvents":[{"@tr":"head"}]}',
    b'{"traceEvents":[{"a":"x\x00y"}]}',
    b'{"traceEvents":[{}]}\x00',
    b'{"traceEvents":[{"a":' + b'[' * 200 + b']' * 200 + b'}]}',
    b'{"traceEvents":[],"traceEvents":[]}',
    b'{"x":"' + b'y' * 400 + b'","traceEvents":[]}',
    b'{"traceEvents":[{"a":' + b'[{"k":' * 400 + b'1' + b'}]' * 400 + b'}],"m":' +
    b'[' * 300 + b']' * 300 + b'}',
]
for d in edge_docs:
    save("fuzz_decode", d, seen)
edge_streams = [
    b'{"@tr":"head","format":"object","members":{}}\n{"@tr":"tail","members":{},"events":0}\n',
    b'{"@tr":"head","format":"array","members":{}}\n{}\n{"@tr":"x"}\n{"@tr":"tail"}\n',
    b'{"@tr":"head"}\n\n{"@tr":"tail"}\n',
    b'{"@tr":"head"}\n{"a":1}',
    b'{"@tr":"head"}\n{"@tr":"tail"}\n{"a":1}\n',
    b'{"@tr":"head"}\n{"@tr":"head"}\n',
    b'{"ts":1}\n',
    b'{"@tr":"head"}\nnot json\n{"@tr":"tail"}\n',
    b'{"@tr":"head"}\n{"ts":"1\\"","name":"a\\\\","ts":2,"args":{"ts":3}}\n{"@tr":"tail"}\n',
    b'{"@tr":"head"}\n{"name":"\\ud83d\\ude00\\u0000\\ud800","pid":-9223372036854775808}\n{"@tr":"tail"}\n',
    b'{"@tr":"head"}\n{"pid":' + b'9' * 30 + b',"x":[' + b'[' * 60 + b']' * 60 + b']}\n{"@tr":"tail"}\n',
    b'{"@tr":"head"}\r\n{"a":1}\r\n{"@tr":"tail"}\r\n',
    b'{"@tr":"head"}\n{"a":' + b'[' * 1500 + b']' * 1500 + b'}\n{"@tr":"tail"}\n',
    b'{"@tr":"head"}\n{"a":[1,],"b":01,"c":tru,"d":"\x01"}\n{"@tr":"tail"}\n',
]
for s in edge_streams:
    save_stream(s, seen)
# what tr-encode must refuse or write exactly (issue 19): malformed members
# in the head and tail, events that are not one JSON value, report records
H = b'{"@tr":"head","format":"object","source":"x","members":{%s}}\n'
T = b'{"@tr":"tail","members":{%s},"events":1}\n'
edge_encode = [
    H % b'"a":' + b'{"ph":"i"}\n' + T % b'',
    H % b'"a"' + b'{"ph":"i"}\n' + T % b'',
    H % b'"a":1,"b"' + b'{"ph":"i"}\n' + T % b'',
    H % b'' + b'{"ph":"i"}\n' + T % b'"z":',
    H % b'"traceEvents":[]' + T % b'',
    H % b'"a":1, "b" : [1, {"c":"}"}]' + b'{"ph":"i"}\n{ "ph" : "X" }\n' + T % b'"z":{"y":"\\"},"w":null',
    H % b'' + b'{"a":1}{"b":2}\n' + T % b'',
    H % b'' + b'{"a":1,"b":[1,2}\n' + T % b'',
    H % b'' + b'{"a":"\\x","b":NaN,"c":01}\n' + T % b'',
    H % b'' + b'{"a":"\x00\x1f"}\n' + T % b'',
    H % b'' + b'{"@tr":"report","suffix":".r.json","body":{"a":}}\n' + T % b'',
    H % b'' + b'{"@tr":"report","suffix":".r.json","body":{"a":1}}\n'
    b'{"@tr":"report","suffix":".r.json","member":"l","items":[1,2]}\n' + T % b'',
    b'{"@tr":"head","format":"array","source":"x","members":{}}\n{"ph":"i"}\n'
    b'{"@tr":"tail","members":{},"events":1}\n',
    b'{"@tr":"head","format":"array","source":"x","members":{"a":1}}\n'
    b'{"@tr":"tail","members":{},"events":0}\n',
    H % (b'"m":' + b'[' * 1000 + b']' * 1000) + T % (b'"m":' + b'[' * 1000 + b']' * 1000),
]
for s in edge_encode:
    save("fuzz_encode", s, seen)
edge_numbers = ["0", "-0", "1", "-1", "0.001", "0.0001", "-0.0001", "1.5e3", "1E-4",
                "-1e-4", "1e309", "0e400", "1e-999999999999", "1e99999999999999999999",
                "9223372036854775.807", "9223372036854775.808", "-9223372036854775.808",
                "-9223372036854775.809", "9223372036854775807", "-9223372036854775808",
                "92233720368547758080", "01", "+1", ".5", "1.", "NaN", "Infinity", "",
                "1712195495519689.047", "1712195495519689.047123", "123.500",
                "0." + "0" * 70 + "1", "1" + "0" * 30 + "e-30", "1 ", "1e", "1e+", "--1",
                # pairs for tsnum_not_below_plain (split at the ',')
                "1428625731459.100,1428625731456.000", "1428625731456.0001,1428625731456",
                "1e3,999.5"]
for n in edge_numbers:
    save("fuzz_tsnum", n, seen)

# ---- slices of the real traces
tsre = re.compile(rb'"(?:ts|dur)": ?"?(-?[0-9][0-9.eE+-]*)')
traces = sorted(glob.glob(os.path.join(TRACES, "*.json")) +
                glob.glob(os.path.join(TRACES, "*.json.gz")), key=os.path.getsize)
for path in traces[:8]:
    doc = load(path)
    save("fuzz_decode", doc[:2048], seen)
    try:
        j = json.loads(doc)
    except ValueError:
        continue
    if not isinstance(j, dict):
        continue
    evs = j.get("traceEvents", [])
    # one event of each phase, wrapped, with the members around the array
    kinds = {}
    for e in evs:
        if isinstance(e, dict):
            kinds.setdefault((e.get("ph"), e.get("cat")), e)
    members = {k: v for k, v in j.items() if k != "traceEvents"}
    head = json.dumps(members, separators=(",", ":"))
    small = (b'{"traceEvents":[' + b",".join(
        json.dumps(e, separators=(",", ":")).encode() for e in list(kinds.values())[:6])
        + b"]," + head[1:].encode())
    if len(small) <= LIMIT:
        save("fuzz_decode", small, seen)
    st = decode(small)
    if st:
        save_stream(st, seen)
    for m in tsre.finditer(doc[:200000]):
        if len(seen["fuzz_tsnum"]) < MAX_FILES:
            save("fuzz_tsnum", m.group(1), seen)

# ---- tr-gen output, object and array format
for args in (["--layers", "2", "--passes", "1"], ["--array", "--layers", "1", "--passes", "1"],
             ["--ts-format", "int", "--layers", "1", "--passes", "1"]):
    gen = subprocess.run([os.path.join(BIN, "tr-gen"), "--target-bytes", "64K"] + args,
                         capture_output=True).stdout
    if not gen:
        continue
    save("fuzz_decode", gen[:3000], seen)
    save("fuzz_decode", gen[-1500:], seen)
    st = decode(gen)
    lines = st.split(b"\n")
    save_stream(b"\n".join(lines[:6] + [lines[-2], b""]), seen)

for t, s in seen.items():
    print(t, len(s), "files", sum(len(x) for x in s), "bytes")
