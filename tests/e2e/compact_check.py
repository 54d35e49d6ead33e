#!/usr/bin/env python3
"""Independent checks of a compact view, with python's json module as the
oracle.  usage: compact_check.py SOURCE OUTPUT REPORT [MAX_LANES]

1. Reversal: undo every args._compact_gpu_track placement (restore pid/tid,
   drop the key, drop args when had_args is false), re-insert the retired
   metadata at their source indexes, drop the added metadata; the result
   must equal the source's event array exactly (number text included), and
   the top-level members must be equal.
2. Lanes: on every synthetic lane, X slices do not overlap under Perfetto's
   timestamp conversion (double arithmetic, llround), touching allowed
   except after a zero-length slice; no other phases on lanes; at most
   MAX_LANES lanes per group.
3. Flows: every moved flow sits on the pid/tid of a kernel on that lane
   whose exact interval contains the flow's ts.
4. Kernel name, ts, dur and args.stream of every event are unchanged.
Prints a summary line; exit 0 when all hold, 1 with the first failure."""
import bisect
import gc
import gzip
import json
import sys
from decimal import Decimal

KEY = '_compact_gpu_track'


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    # the classes themselves as hooks, and no cyclic GC while millions of
    # objects are built: several times faster on the large traces
    gc.disable()
    return json.loads(data.decode('utf-8', 'surrogateescape'),
                      parse_float=Num, parse_int=Num, object_pairs_hook=Obj)


class Num(str):
    """A JSON number kept as its text."""


class Obj(list):
    """A JSON object kept as ordered pairs."""
    def get(self, key, default=None):
        for k, v in self:
            if k == key:
                return v
        return default

    def set(self, key, value):
        for i, (k, _) in enumerate(self):
            if k == key:
                self[i] = (k, value)
                return
        raise KeyError(key)

    def without(self, key):
        return Obj([(k, v) for k, v in self if k != key])


def perfetto_ns(text):
    """Perfetto v52+: integer-like -> exact *1000; else double -> llround."""
    t = str(text)
    if not any(c in t for c in '.eE'):
        return int(t) * 1000
    neg = t.startswith('-')
    if neg:
        t = t[1:]
    exp = 0
    if 'e' in t or 'E' in t:
        t, e = t.replace('E', 'e').split('e')
        exp = int(e)
    ip, _, fp = t.partition('.')
    v = float(int(ip)) + (float(int(fp)) / float(10 ** len(fp)) if fp else 0.0)
    if exp < 0:
        v = v / (10.0 ** -exp)
    elif exp > 0:
        v = v * (10.0 ** exp)
    if neg:
        v = -v
    if v == int(v):
        return int(v) * 1000
    x = v * 1000.0
    return int(Decimal(x).to_integral_value(rounding='ROUND_HALF_UP')) if x >= 0 else \
        -int(Decimal(-x).to_integral_value(rounding='ROUND_HALF_UP'))


def exact_ns(text):
    return Decimal(str(text)) * 1000


def events_of(doc):
    if not isinstance(doc, Obj):
        return doc, Obj()
    return doc.get('traceEvents'), doc.without('traceEvents')


def plain_value(x):
    """The value as json.load would give it, for comparing with the report."""
    if isinstance(x, Obj):
        return {k: plain_value(v) for k, v in x}
    if isinstance(x, list):
        return [plain_value(v) for v in x]
    if isinstance(x, Num):
        return json.loads(x)
    return x


def fail(msg):
    print(f'compact_check: {msg}')
    sys.exit(1)


def main():
    src_path, out_path, rep_path = sys.argv[1:4]
    max_lanes = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    src_events, src_top = events_of(load(src_path))
    out_events, out_top = events_of(load(out_path))
    report = json.load(open(rep_path))
    if 'compaction' in report:
        report = report['compaction']
    if src_top != out_top:
        fail('top-level members differ')

    lane_names = {}
    rebuilt = []
    moved = 0
    for i, ev in enumerate(out_events):
        args = ev.get('args')
        note = args.get(KEY) if isinstance(args, Obj) else None
        if note is None:
            name = ev.get('name')
            if ev.get('ph') == 'M' and name in ('thread_name', 'process_name') and \
                    isinstance(ev.get('args'), Obj) and \
                    ('(synthetic;' in str(ev.get('args').get('name')) or
                     str(ev.get('args').get('name')).startswith('GPU scopes (original PID')):
                lane_names[(str(ev.get('pid')), str(ev.get('tid')))] = ev.get('args').get('name')
                continue
            if ev.get('ph') == 'M' and name == 'thread_sort_index' and \
                    (str(ev.get('pid')), str(ev.get('tid'))) in lane_names:
                continue
            rebuilt.append(ev)
            continue
        moved += 1
        back = Obj(ev)
        back.set('pid', note.get('pid'))
        back.set('tid', note.get('tid'))
        if note.get('had_args') is True:
            back.set('args', args.without(KEY))
        else:
            back = back.without('args')
        rebuilt.append((int(note.get('source_event_index')), back))
    # put moved events back at their source index, retired ones too
    placed = {}
    plain = []
    for item in rebuilt:
        if isinstance(item, tuple):
            placed[item[0]] = item[1]
        else:
            plain.append(item)
    for r in report['retired_track_metadata']:
        placed[r['source_event_index']] = None  # compared below by text
    retired_text = {r['source_event_index']: r['event'] for r in report['retired_track_metadata']}
    result = []
    it = iter(plain)
    for i in range(len(src_events)):
        if i in placed:
            result.append(placed[i])
        else:
            try:
                result.append(next(it))
            except StopIteration:
                fail(f'output has too few events to rebuild source event {i}')
    leftover = list(it)
    # the added events (guides) may follow; only layer_guide ones are allowed
    for ev in leftover:
        if ev.get('cat') != 'layer_guide' and not (ev.get('ph') == 'M'):
            fail(f'unexpected added event {ev!r:.200}')
    for i, (a, b) in enumerate(zip(src_events, result)):
        if b is None:
            if plain_value(a) != retired_text[i]:
                fail(f'retired event {i} differs from the source')
            continue
        if a != b:
            fail(f'event {i} differs after reversal: {a!r:.300} != {b!r:.300}')

    # lanes: non-overlap under Perfetto conversion and exact bounds
    lanes = {}
    for ev in out_events:
        key = (str(ev.get('pid')), str(ev.get('tid')))
        if key in lane_names:
            lanes.setdefault(key, []).append(ev)
    for key, evs in lanes.items():
        spans = []
        for ev in evs:
            if ev.get('ph') in ('s', 't', 'f', 'M'):
                continue
            if ev.get('ph') != 'X':
                fail(f'lane {key} holds a {ev.get("ph")} event')
            ps, pd = perfetto_ns(ev.get('ts')), perfetto_ns(ev.get('dur'))
            es, ee = exact_ns(ev.get('ts')), exact_ns(ev.get('ts')) + exact_ns(ev.get('dur'))
            lo = min(Decimal(ps), es)
            hi = max(Decimal(ps + pd), ee)
            spans.append((lo, hi, pd == 0 or ee == es))
        spans.sort()
        for (a0, a1, az), (b0, b1, bz) in zip(spans, spans[1:]):
            if b0 < a1 or (b0 == a1 and az):
                fail(f'lane {key}: slices overlap at {a0} .. {a1} / {b0}')
    per_group = {}
    for g in report['groups']:
        if g['lanes'] > max_lanes:
            fail(f'group {g["pid"]}/{g["device"]} has {g["lanes"]} lanes > {max_lanes}')
        per_group[(g['pid'], g['device'], g['kind'])] = g['lanes']

    # flows: on the lane of a kernel that contains their ts
    kernels = {}
    for ev in out_events:
        key = (str(ev.get('pid')), str(ev.get('tid')))
        if key in lane_names and ev.get('ph') == 'X':
            kernels.setdefault(key, []).append((exact_ns(ev.get('ts')),
                                                exact_ns(ev.get('ts')) + exact_ns(ev.get('dur'))))
    # sorted by start: lanes hold no overlaps (checked above), so the last
    # slice starting at or before a flow's ts is the one that can contain it
    for spans in kernels.values():
        spans.sort()
    starts = {key: [s for s, _ in spans] for key, spans in kernels.items()}
    flows = 0
    for ev in out_events:
        if ev.get('ph') in ('s', 't', 'f') and isinstance(ev.get('args'), Obj) and \
                ev.get('args').get(KEY) is not None:
            flows += 1
            key = (str(ev.get('pid')), str(ev.get('tid')))
            t = exact_ns(ev.get('ts'))
            spans = kernels.get(key, [])
            k = bisect.bisect_right(starts.get(key, []), t)
            if not any(s <= t <= e for s, e in spans[max(k - 2, 0):k]):
                fail(f'flow {ev!r:.200} is not inside a slice of its lane')
    print(f'compact_check: ok: {len(src_events)} events rebuilt, {moved} placements undone, '
          f'{len(retired_text)} metadata restored, {len(lanes)} lanes, {flows} flows on lanes')


if __name__ == '__main__':
    main()
