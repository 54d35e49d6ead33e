#!/usr/bin/env python3
"""An oracle for tr-encode --format perfetto, independent of the C code:
a wire-format reader of Perfetto traces in plain Python, and a comparison,
event by event, with the source trace read by Python's json module.

usage: pftrace_check.py SOURCE.json[.gz] OUT.pftrace[.gz]
       pftrace_check.py --counts OUT.pftrace[.gz]

--counts prints what Perfetto's trace processor should import from OUT, as
"slices N flows M counters K": slices are the slice begins and instants,
flows the links between consecutive packets of one flow id (a terminating
id ends its chain), counters the counter values.

Checked for every event the writer keeps (X, B, E, i, I, C; M for names
and sort indices; s, t, f as flows): type, ts in exact nanoseconds
(from the decimal text, json's Decimal), the SLICE_END of an X at ts + dur
as the next packet on its track, track (process and thread by pid and
tid; a string pid or tid by its synthetic number, the same for the same
string), name, category, every args member with its JSON type and value.
Flows: each on the packet that begins the slice Perfetto's JSON import
binds it to, computed here from the source: a thread's slices and flows
sorted by ts (slices with a length first, the longer first; the rest in
file order), s, t and f with bp "e" on the slice on top of the stack
there, f without bp on the next slice pushed; a slice sticking out of the
open one is left off the stack (an overflow track).  Flow ids are opaque:
one (cat, name, id) must have one id throughout, and no two share one.
Timestamps: deltas on the sequence's incremental clock (a ClockSnapshot
gives its start, TracePacketDefaults make it every packet's clock, each
timestamp is added to the last as a signed 64-bit number).
Prints one summary line; exit 1 with the first difference."""
import decimal
import gzip
import json
import struct
import sys

SYNTH = 0x70000000


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return r, i


def fields(b):
    """(field number, wire type, value) of a message's bytes, in order."""
    i, out = 0, []
    while i < len(b):
        k, i = varint(b, i)
        num, wt = k >> 3, k & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v = b[i:i + 8]
            i += 8
        elif wt == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif wt == 5:
            v = b[i:i + 4]
            i += 4
        else:
            raise ValueError('wire type %d' % wt)
        out.append((num, wt, v))
    return out


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


class Out:
    def __init__(self):
        self.tables = {}
        self.tracks = {}
        self.clock = None       # the incremental clock's last time, ns
        self.defaults = False

    def annotation(self, b):
        name, value, kids, dict_kids = None, None, [], None
        for num, wt, v in fields(b):
            if num == 1:
                name = self.tables[3][v].decode('utf-8', 'surrogateescape')
            elif num == 10:
                name = v.decode('utf-8', 'surrogateescape')
            elif num == 2:
                value = ('v', bool(v))
            elif num == 3:
                value = ('v', v)
            elif num == 4:
                value = ('v', signed(v))
            elif num == 5:
                value = ('v', struct.unpack('<d', v)[0])
            elif num == 6:
                value = ('v', v.decode('utf-8', 'surrogateescape'))
            elif num == 17:
                value = ('v', self.tables[29][v].decode('utf-8', 'surrogateescape'))
            elif num == 9:
                value = ('v', json.loads(v))
            elif num in (11, 12):
                dict_kids = num == 11
                kids.append(self.annotation(v))
            else:
                raise ValueError('annotation field %d' % num)
        if kids:
            value = ('v', {k: x for k, x in kids} if dict_kids else [x for _, x in kids])
        return name, value[1]

    def events(self, data):
        """The TrackEvent packets, decoded, in order."""
        for num, wt, pkt in fields(data):
            assert num == 1 and wt == 2, 'not a Trace.packet'
            f = fields(pkt)
            flags = sum(v for n, _, v in f if n == 13)
            if flags & 1:
                self.tables = {1: {}, 2: {}, 3: {}, 29: {}}
                self.defaults = False
            ts, te = None, None
            for n, wt, v in f:
                if n == 8:
                    ts = v
                elif n == 6:
                    clocks = [dict((a, b) for a, _, b in fields(c)) for _, _, c in fields(v)]
                    boot = [c[2] for c in clocks if c[1] == 6 and not c.get(3)]
                    inc = [c[2] for c in clocks if c[1] == 64 and c.get(3) == 1]
                    assert len(clocks) == 2 and boot == inc and len(inc) == 1, 'clock snapshot %r' % clocks
                    self.clock = inc[0]
                elif n == 59:
                    assert fields(v) == [(58, 0, 64)], 'packet defaults'
                    self.defaults = True
                elif n == 10:
                    assert v == 1, 'sequence id'
                elif n == 12:
                    for k, _, e in fields(v):
                        d = dict((a, b) for a, _, b in fields(e))
                        self.tables[k][d[1]] = d[2]
                elif n == 60:
                    d = {'kind': 'named', 'parent': 0}
                    for a, _, b in fields(v):
                        if a == 1:
                            d['uuid'] = b
                        elif a == 5:
                            d['parent'] = b
                        elif a == 2:
                            d['name'] = b.decode()
                        elif a == 12:
                            d['rank'] = signed(b)
                            d['rank'] = d['rank'] - (1 << 32) if d['rank'] >= 1 << 31 else d['rank']
                        elif a == 8:
                            d['kind'] = 'counter'
                        elif a in (3, 4):
                            d['kind'] = 'process' if a == 3 else 'thread'
                            for x, _, y in fields(b):
                                if x == 1:
                                    d['pid'] = signed(y)
                                    d['pid'] = d['pid'] - (1 << 32) if d['pid'] >= 1 << 31 else d['pid']
                                elif x == 2:
                                    d['tid'] = signed(y)
                                elif x in (5, 6):
                                    d['name'] = y.decode('utf-8', 'surrogateescape')
                    self.tracks[d['uuid']] = d
                elif n == 11:
                    te = v
            if ts is not None:
                # a delta on the sequence's incremental clock, signed
                assert self.clock is not None and self.defaults, 'a timestamp before its clock'
                self.clock = (self.clock + ts) & ((1 << 64) - 1)
                self.clock -= (1 << 64) if self.clock >= 1 << 63 else 0
                ts = self.clock
            if te is None:
                continue
            e = {'ts': ts, 'args': {}, 'flows': 0}
            args = []
            for n, wt, v in fields(te):
                if n == 9:
                    e['type'] = v
                elif n == 11:
                    e['track'] = v
                elif n == 10:
                    e['name'] = self.tables[2][v].decode('utf-8', 'surrogateescape')
                elif n == 3:
                    e['cat'] = self.tables[1][v].decode('utf-8', 'surrogateescape')
                elif n == 4:
                    args.append(self.annotation(v))
                elif n == 30:
                    e['value'] = signed(v)
                elif n == 44:
                    e['value'] = struct.unpack('<d', v)[0]
                elif n in (47, 48):
                    e['flows'] += 1
                    e.setdefault('flowlist', []).append((v, n == 48))
                else:
                    raise ValueError('track event field %d' % n)
            e['args'] = args
            yield e


def ns(v):
    """Microseconds (a Decimal, an int, or a string holding one) to ns."""
    d = decimal.Decimal(v) if isinstance(v, str) else decimal.Decimal(v)
    return int((d * 1000).to_integral_value(rounding=decimal.ROUND_FLOOR))


def same(a, b):
    if isinstance(a, decimal.Decimal):
        return isinstance(b, float) and float(a) == b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int):
        return (isinstance(b, int) and a == b) or (isinstance(b, float) and float(a) == b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def bind(items):
    """The JSON import's binding: source index of slice -> [(key, term)]
    in the order bound; and the count bound to no slice."""
    want, dropped = {}, 0

    def order(it):
        if it[3] == 'slice':
            # at one ts, slices with a length first, the longer first
            return (it[0], 0, -it[1], it[2]) if it[1] > it[0] else (it[0], 1, 0, it[2])
        return (it[0], 1, 0, it[2])

    for thread, lst in items.items():
        lst.sort(key=order)
        stack, waiting = [], []
        for it in lst:
            if it[3] == 'flow':
                _, _, idx, _, key, term, wait = it
                if wait:
                    waiting.append((key, term))
                elif stack:
                    want.setdefault(stack[-1][2], []).append((key, term))
                else:
                    dropped += 1
                continue
            start, end, idx, _ = it
            while stack and (stack[-1][1] < start or (stack[-1][1] == start and
                                                      not (stack[-1][0] == stack[-1][1] and start == end))):
                stack.pop()
            if stack and end > stack[-1][1]:
                continue
            stack.append((start, end, idx))
            if waiting:
                want.setdefault(idx, []).extend(waiting)
                waiting = []
        dropped += len(waiting)
    return want, dropped


def import_counts(out):
    """What the trace processor's slice, flow and counter tables hold."""
    raw = open(out, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    slices, flows, counters, open_ids = 0, 0, 0, set()
    for e in Out().events(raw):
        if e.get('type') in (1, 3):
            slices += 1
        elif e.get('type') == 4:
            counters += 1
        for fid, term in e.get('flowlist', []):
            if fid in open_ids:
                flows += 1
            if term:
                open_ids.discard(fid)
            else:
                open_ids.add(fid)
    print('slices %d flows %d counters %d' % (slices, flows, counters))


def main():
    if sys.argv[1] == '--counts':
        import_counts(sys.argv[2])
        return
    src, out = sys.argv[1], sys.argv[2]
    op = gzip.open if open(src, 'rb').read(2) == b'\x1f\x8b' else open
    with op(src, 'rb') as f:
        doc = json.loads(f.read().decode('utf-8', 'surrogateescape'), parse_float=decimal.Decimal)
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    raw = open(out, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    o = Out()
    packets = o.events(raw)
    synth_p, synth_t, names, ranks = {}, {}, {}, {}
    pending = {}     # track uuid -> the ts its X's end must have
    items = {}       # thread -> [(ts, order, end, index, kind, key, term, wait)]
    bstack = {}      # thread -> [(ts, index)] of the B events open
    carried = {}     # source event index -> [(flow id, term)] of its packet
    counts = {'events': 0, 'ends': 0, 'src_flows': 0, 'out_flows': 0}

    def pid_of(p):
        if isinstance(p, int) and -(1 << 31) <= p < 1 << 31:
            return p
        return synth_p.setdefault(json.dumps(p), SYNTH + len(synth_p))

    def tid_of(p, t):
        pid_of(p)  # a thread's process comes first, as the writer numbers them
        if isinstance(t, int) and -(1 << 63) <= t < 1 << 63:
            return t
        return synth_t.setdefault((json.dumps(p), json.dumps(t)), SYNTH + len(synth_t))

    def fail(i, what):
        print('pftrace_check: event %d: %s' % (i, what), file=sys.stderr)
        sys.exit(1)

    def take(i):
        for e in packets:
            counts['out_flows'] += e['flows']
            if e['track'] in pending:
                want = pending.pop(e['track'])
                if e['type'] != 2 or e['ts'] != want or 'name' in e or e['args']:
                    fail(i, 'the next packet on an X\'s track is not its end at %d: %r' % (want, e))
                counts['ends'] += 1
                continue
            return e
        fail(i, 'the output ends early')

    for i, ev in enumerate(events):
        ph = ev.get('ph')
        if ph == 'M':
            meta = ev.get('name')
            if meta not in ('process_name', 'thread_name', 'process_sort_index', 'thread_sort_index') \
                    or not isinstance(ev.get('args'), dict) or 'pid' not in ev or (meta[0] == 't' and 'tid' not in ev):
                continue
            # numbered in the writer's order of first appearance
            if meta[0] == 't':
                tid_of(ev['pid'], ev['tid'])
            else:
                pid_of(ev['pid'])
            if meta in ('process_name', 'thread_name') and isinstance(ev['args'].get('name'), str):
                names[(ev['name'][0], pid_of(ev.get('pid')), tid_of(ev.get('pid'), ev.get('tid')) if ev['name'][0] == 't' else None)] = ev['args']['name']
            continue
        if ph not in ('X', 'B', 'E', 'i', 'I', 'C', 's', 't', 'f') or 'ts' not in ev:
            continue
        if ph == 'C':
            pid_of(ev.get('pid'))
        else:
            tid_of(ev.get('pid'), ev.get('tid'))
        thread = (pid_of(ev.get('pid')), tid_of(ev.get('pid'), ev.get('tid'))) if ph != 'C' else None
        if ph in ('s', 't', 'f'):
            counts['src_flows'] += 1
            key = (json.dumps(ev.get('cat')), json.dumps(ev.get('name')), json.dumps(ev.get('id')))
            wait = ph == 'f' and ev.get('bp') != 'e'
            items.setdefault(thread, []).append((ns(ev['ts']), None, i, 'flow', key, ph == 'f', wait))
            continue
        ts = ns(ev['ts'])
        counts['events'] += 1
        if ph == 'C':
            for k, v in ev.get('args', {}).items():
                if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
                    continue
                e = take(i)
                t = o.tracks[e['track']]
                if e['type'] != 4 or e['ts'] != ts or t['name'] != '%s %s' % (ev.get('name', ''), k) \
                        or o.tracks[t['parent']]['pid'] != pid_of(ev.get('pid')) or not same(v, e['value']):
                    fail(i, 'counter %s: %r' % (k, e))
            continue
        e = take(i)
        want = {'X': 1, 'B': 1, 'E': 2, 'i': 3, 'I': 3}[ph]
        if e['type'] != want or e['ts'] != ts:
            fail(i, 'type %d ts %d, the source %s at %d' % (e['type'], e['ts'], ph, ts))
        t = o.tracks[e['track']]
        scope = ev.get('s')
        if ph in 'iI' and scope == 'g':
            ok = t['kind'] == 'named' and t['name'] == 'Global instants'
        elif ph in 'iI' and scope == 'p':
            ok = t['kind'] == 'process' and t['pid'] == pid_of(ev.get('pid'))
        else:
            ok = t['kind'] == 'thread' and t['pid'] == pid_of(ev.get('pid')) and \
                t['tid'] == tid_of(ev.get('pid'), ev.get('tid'))
        if not ok:
            fail(i, 'on track %r' % t)
        if e.get('name') != ev.get('name') or e.get('cat') != ev.get('cat'):
            fail(i, 'name/cat %r %r, the source %r %r' % (e.get('name'), e.get('cat'), ev.get('name'), ev.get('cat')))
        args = ev.get('args', {})
        if not isinstance(args, dict):
            args = {}
        got = e['args']
        if [k for k, _ in got] != list(args) or not all(same(args[k], v) for k, v in got):
            fail(i, 'args %r, the source %r' % (got, args))
        on_thread = ph in 'XB' or (ph in 'iI' and scope not in ('g', 'p'))
        if e.get('flowlist') and not on_thread:
            fail(i, 'flows on a packet that begins no slice of a thread')
        carried[i] = e.get('flowlist', [])
        if ph == 'X':
            end = ts + (ns(ev['dur']) if 'dur' in ev else 0)
            pending[e['track']] = end
            items.setdefault(thread, []).append((ts, end, i, 'slice'))
        elif ph in 'iI' and on_thread:
            items.setdefault(thread, []).append((ts, ts, i, 'slice'))
        elif ph == 'B':
            bstack.setdefault(thread, []).append((ts, i))
        elif ph == 'E' and bstack.get(thread):
            b, bi = bstack[thread].pop()
            items.setdefault(thread, []).append((b, ts, bi, 'slice'))
    for e in packets:
        counts['out_flows'] += e['flows']
        if e['track'] not in pending or e['type'] != 2 or pending.pop(e['track']) != e['ts']:
            fail(len(events), 'an event packet after the last: %r' % e)
        counts['ends'] += 1
    if pending:
        fail(len(events), '%d X ends missing' % len(pending))
    for thread, st in bstack.items():
        for b, bi in st:
            items.setdefault(thread, []).append((b, (1 << 63) - 1, bi, 'slice'))
    want, dropped = bind(items)
    key_of, id_of = {}, {}
    for i in sorted(set(want) | set(k for k, v in carried.items() if v)):
        w, g = want.get(i, []), carried.get(i, [])
        if len(w) != len(g):
            fail(i, '%d flows on its slice in the output, %d bound there by the JSON import' % (len(g), len(w)))
        for (key, term), (fid, gterm) in zip(w, g):
            if term != gterm or id_of.setdefault(key, fid) != fid or key_of.setdefault(fid, key) != key:
                fail(i, 'flow %r (end %s) is not the one the JSON import binds there' % (key, term))
    if counts['out_flows'] + dropped != counts['src_flows']:
        fail(len(events), '%d flows in the output, %d in the source, %d bound to no slice' %
             (counts['out_flows'], counts['src_flows'], dropped))
    for (kind, pid, tid), name in names.items():
        for t in o.tracks.values():
            if t['kind'] == ('process' if kind == 'p' else 'thread') and t.get('pid') == pid and \
                    (kind == 'p' or t.get('tid') == tid):
                if t.get('name') != name:
                    fail(len(events), 'the %s name of %d/%r is %r, the source %r' % (kind, pid, tid, t.get('name'), name))
                break
        else:
            fail(len(events), 'no descriptor for %s %d/%r' % (kind, pid, tid))
    print('pftrace_check: %d events, %d slice ends, %d of %d flows where the JSON import binds them, %d names: equal' %
          (counts['events'], counts['ends'], counts['out_flows'], counts['src_flows'], len(names)))


main()
