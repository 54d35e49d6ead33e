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
5. The report's schema (tr-compact(1)): every key, in order, with its type;
   counts that agree with each other.
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


def is_int(x):
    return type(x) is int


def is_id(x):
    """A pid or tid as JSON gives it: an integer or a string."""
    return type(x) in (int, str)


def is_scalar(x):
    return x is None or type(x) in (int, float, str, bool)


# tr-compact(1), "Report": the keys in order, each with its type check
REPORT_KEYS = [
    ('schema_version', lambda x: x == 1),
    ('notice', lambda x: type(x) is str),
    ('max_lanes', lambda x: is_int(x) and 1 <= x <= 10),
    ('original_event_count', is_int),
    ('output_event_count', is_int),
    ('relocated_events', is_int),
    ('relocated_flows', is_int),
    ('new_metadata_count', is_int),
    ('groups', lambda x: type(x) is list),
    ('retired_track_metadata', lambda x: type(x) is list),
    ('source_file', lambda x: type(x) is str),
    ('source_sha256', lambda x: x is None or (type(x) is str and len(x) == 64)),
    ('tool_version', lambda x: type(x) is str and x.startswith('trace-layers ')),
]
GROUP_KEYS = [
    ('pid', is_id),
    ('display_pid', is_id),
    ('device', is_scalar),
    ('kind', lambda x: x in ('activity', 'scope')),
    ('original_streams', is_int),
    ('original_kernel_streams', is_int),
    ('original_stream_tids', lambda x: type(x) is list and all(is_id(t) for t in x)),
    ('original_kernel_stream_tids', lambda x: type(x) is list and all(is_id(t) for t in x)),
    ('kernel_count', is_int),
    ('activity_count', is_int),
    ('lanes', is_int),
    ('lane_tids', lambda x: type(x) is list and all(is_int(t) for t in x)),
    ('peak_concurrency', is_int),
    ('lane_stream_counts', lambda x: type(x) is list),
]
LANE_KEYS = [
    ('lane', is_int),
    ('tid', is_int),
    ('streams', lambda x: type(x) is list and all(type(k) is str and is_int(v) for k, v in x)),
]
RETIRED_KEYS = [
    ('source_event_index', is_int),
    ('event', lambda x: type(x) is list),
]


def keys_are(pairs, want, where):
    if type(pairs) is not list or [k for k, _ in pairs] != [k for k, _ in want]:
        got = [k for k, _ in pairs] if type(pairs) is list else pairs
        fail(f'report schema: {where}: keys {got} != {[k for k, _ in want]}')
    for (k, v), (_, ok) in zip(pairs, want):
        if not ok(v):
            fail(f'report schema: {where}.{k}: unexpected value {v!r:.200}')
    return dict(pairs)


def check_schema(path):
    """The report as ordered pairs: keys, order and types as documented."""
    doc = json.load(open(path), object_pairs_hook=list)
    top = dict(doc)
    if 'compaction' in top:
        doc = top['compaction']
    r = keys_are(doc, REPORT_KEYS, 'report')
    for n, gp in enumerate(r['groups']):
        g = keys_are(gp, GROUP_KEYS, f'groups[{n}]')
        if g['original_streams'] != len(g['original_stream_tids']) or \
                g['original_kernel_streams'] != len(g['original_kernel_stream_tids']) or \
                g['original_kernel_streams'] > g['original_streams']:
            fail(f'report schema: groups[{n}]: stream counts disagree with the tid lists')
        if g['lanes'] != len(g['lane_tids']) or g['lanes'] != len(g['lane_stream_counts']) \
                or g['kernel_count'] > g['activity_count']:
            fail(f'report schema: groups[{n}]: lane or event counts disagree')
        for m, lp in enumerate(g['lane_stream_counts']):
            keys_are(lp, LANE_KEYS, f'groups[{n}].lane_stream_counts[{m}]')
    for n, rp in enumerate(r['retired_track_metadata']):
        keys_are(rp, RETIRED_KEYS, f'retired_track_metadata[{n}]')
    if r['relocated_flows'] > r['relocated_events']:
        fail('report schema: relocated_flows exceeds relocated_events (which includes them)')
    return len(r['groups'])


def main():
    src_path, out_path, rep_path = sys.argv[1:4]
    max_lanes = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    src_events, src_top = events_of(load(src_path))
    out_events, out_top = events_of(load(out_path))
    check_schema(rep_path)
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
