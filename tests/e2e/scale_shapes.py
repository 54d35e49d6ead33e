#!/usr/bin/env python3
"""Traces with many passes or many threads, for the tests that the pass
table, tr-window and tr-guides stay exact there, and an independent oracle
of the pass table.

usage: scale_shapes.py passes N OUT   N passes of 2 layers: an anchor
                                      kernel per layer on pid 0 tid 7, a
                                      kernel beside it, a CPU op per pass on
                                      pid 100, and every 97th pass a CPU op
                                      that spans three passes
       scale_shapes.py tids N OUT     pid 0 with tids 1 .. N, one CPU op
                                      each, tid N + 1 the pid's own GPU
                                      stream with 2 passes of 2 anchors
       scale_shapes.py table STREAM   the pass table of an annotated stream
                                      (tr-window --list-passes' lines)
       scale_shapes.py survey STREAM N NAME...
                                      the pass bytes tr-survey gives the
                                      kernel NAME, N per pass from the
                                      first: "NAME: B0 B1 ..."

The bytes are found another way than tr-window's and tr-survey's: the
passes' extents (sorted and disjoint here, which it checks) are stabbed by
each event with a binary search, exact decimal ns throughout."""
import bisect
import json
import math
import sys
from decimal import Decimal

BASE_US = 1_712_195_495_519


def passes(n, out):
    with open(out, 'w') as f:
        f.write('{"traceEvents":[\n')
        f.write('{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"GPU 0"}}')
        t = 0  # ns from BASE_US
        for p in range(n):
            start = t
            for layer in range(2):
                f.write(',\n{"ph":"X","cat":"kernel","name":"anchor_k","pid":0,"tid":7,'
                        '"ts":%d.%03d,"dur":2.250,"args":{"device":0,"stream":7}}'
                        % (BASE_US + t // 1000, t % 1000))
                f.write(',\n{"ph":"X","cat":"kernel","name":"other_k","pid":0,"tid":7,'
                        '"ts":%d.%03d,"dur":1.125,"args":{"device":0,"stream":7}}'
                        % (BASE_US + (t + 4000) // 1000, (t + 4000) % 1000))
                t += 10_000 + (p * 7 + layer * 3) % 11
            f.write(',\n{"ph":"X","cat":"cpu_op","name":"step","pid":100,"tid":100,'
                    '"ts":%d.%03d,"dur":%d.500}' % (BASE_US + start // 1000, start % 1000,
                                                   (t - start) // 1000))
            if p % 97 == 0:
                f.write(',\n{"ph":"X","cat":"cpu_op","name":"long","pid":100,"tid":101,'
                        '"ts":%d.%03d,"dur":60}' % (BASE_US + start // 1000, start % 1000))
            t += 7_000
        f.write('\n]}\n')


def tids(n, out):
    with open(out, 'w') as f:
        f.write('{"traceEvents":[\n')
        f.write('{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"GPU 0"}}')
        for k in range(1, n + 1):
            f.write(',\n{"ph":"X","cat":"cpu_op","name":"op","pid":0,"tid":%d,'
                    '"ts":%d.%03d,"dur":1}' % (k, BASE_US + k % 1000, k % 997))
        t = 2_000_000
        for p in range(2):
            for layer in range(2):
                f.write(',\n{"ph":"X","cat":"kernel","name":"anchor_k","pid":0,"tid":%d,'
                        '"ts":%d.%03d,"dur":2.250,"args":{"device":0,"stream":7}}'
                        % (n + 1, BASE_US + t // 1000, t % 1000))
                t += 10_000
            t += 7_000
        f.write('\n]}\n')


def num(v):
    return v if isinstance(v, (int, Decimal)) and not isinstance(v, bool) else None


def events(stream):
    ev = []
    for line in open(stream, 'rb'):
        if line.startswith(b'{"@tr":'):
            continue
        ev.append((json.loads(line, parse_float=Decimal), len(line)))
    return ev


def stab(ev, spans):
    """The bytes of the timed events (not metadata) overlapping each span."""
    for (a0, b0), (a1, b1) in zip(spans, spans[1:]):
        assert b0 < a1, 'passes not sorted and disjoint: the oracle needs them so'
    los = [a for a, _ in spans]
    got = [0] * len(spans)
    for e, n in ev:
        if e.get('ph') == 'M' or num(e.get('ts')) is None:
            continue
        lo = e['ts'] * 1000
        hi = lo + (e['dur'] * 1000 if e.get('ph') == 'X' and 'dur' in e else 0)
        k = bisect.bisect_right(los, hi) - 1  # the last span starting at or before hi
        while k >= 0 and spans[k][1] >= lo:
            got[k] += n
            k -= 1
    return got


def table(stream):
    ev = events(stream)
    origin = min(e['ts'] for e, _ in ev if num(e.get('ts')) is not None) * 1000
    ext, order = {}, []
    for e, _ in ev:
        if e.get('cat') == 'layer_guide' and e.get('ph') == 'X':
            a = e['args']
            lo = min(e['ts'] * 1000, Decimal(a['start_us']) * 1000)
            hi = max((e['ts'] + e['dur']) * 1000, Decimal(a['end_us']) * 1000)
            p = int(a['pass_index'])
            if p in ext:
                lo, hi = min(lo, ext[p][0]), max(hi, ext[p][1])
            else:
                order.append(p)
            ext[p] = (lo, hi)
    spans = [ext[p] for p in order]
    for p, (lo, hi), n in zip(order, spans, stab(ev, spans)):
        print('pass %d: %.6f-%.6f ms from the trace start, %d bytes of events' %
              (p, (math.floor(lo) - origin) / Decimal(10 ** 6),
               (math.ceil(hi) - origin) / Decimal(10 ** 6), n))


def survey(stream, n, names):
    ev = events(stream)
    for name in names:
        occ = [(e['ts'] * 1000, (e['ts'] + e['dur']) * 1000) for e, _ in ev
               if e.get('cat') == 'kernel' and e.get('name') == name]
        spans = [(occ[j][0], max(b for _, b in occ[j:j + n]))
                 for j in range(0, len(occ) - len(occ) % n, n)]
        print('%s: %s' % (name, ' '.join(str(b) for b in stab(ev, spans))))


if __name__ == '__main__':
    if sys.argv[1] == 'passes':
        passes(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == 'tids':
        tids(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == 'table':
        table(sys.argv[2])
    elif sys.argv[1] == 'survey':
        survey(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit('usage: scale_shapes.py passes|tids N OUT | table STREAM | survey STREAM N NAME...')
