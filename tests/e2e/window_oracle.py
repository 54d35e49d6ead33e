"""An independent oracle for tr-window(1): from the decoded stream of the
source (SRC.stream) and of the window (WIN.stream), and the window spec,
recompute with exact decimal arithmetic the events the window must keep
(whole, in source order), the dropped flow and async ends, and the report's
counts, and compare.  Usage: window_oracle.py SRC.stream WIN.stream REPORT SPEC...
Prints "ok" or what differs, and exits 0 or 1."""
import json, math, sys
from decimal import Decimal


def num(v):
    if isinstance(v, str):
        return Decimal(v)
    return Decimal(v)


def load(path):
    lines = [l.rstrip('\n') for l in open(path, encoding='utf-8', errors='surrogateescape')]
    return [l for l in lines if not l.startswith('{"@tr":')]


def parse(line):
    return json.loads(line, parse_float=Decimal, parse_int=Decimal)


def dur(t):
    """A duration option in ns (default unit ms)."""
    for unit, f in (('ns', 1), ('us', 1000), ('ms', 1000000), ('s', 10 ** 9)):
        if t.endswith(unit):
            return Decimal(t[:-len(unit)]) * f
    return Decimal(t) * 1000000


def window(events, spec):
    args = dict(zip(spec[0::2], spec[1::2]))
    origin = None
    for e in events:
        ts = e.get('ts')
        if isinstance(ts, Decimal) and (origin is None or ts < origin):
            origin = ts
    if '--from' in args or '--to' in args:
        o = math.floor(origin * 1000)
        w0 = o + dur(args.get('--from', '0'))
        w1 = o + dur(args['--to']) if '--to' in args else Decimal((2 ** 63 - 1) // 2)
        return w0, w1
    guides = []
    for e in events:
        if e.get('ph') == 'X' and e.get('cat') == 'layer_guide':
            a = e['args']
            lo = min(num(e['ts']) * 1000, num(a['start_us']) * 1000)
            hi = max((num(e['ts']) + num(e['dur'])) * 1000, num(a['end_us']) * 1000)
            guides.append((int(a['pass_index']), int(a['layer_id']), lo, hi))
    if '--passes' in args:
        a, _, b = args['--passes'].partition('-')
        b = b or a
        sel = [g for g in guides if int(a) <= g[0] <= int(b)]
    else:
        p = int(args.get('--pass', guides[0][0]))
        if '--layers' in args:
            a, _, b = args['--layers'].partition('-')
            b = b or a
            sel = [g for g in guides if g[0] == p and int(a) <= g[1] <= int(b)]
        elif '--around' in args:
            l = int(args['--around'].lstrip('L'))
            sel = [g for g in guides if g[0] == p and g[1] == l]
        else:
            sel = [g for g in guides if g[0] == p]
    lo = min(g[2] for g in sel)
    hi = max(g[3] for g in sel)
    pad = dur(args.get('--pad', '0'))
    return math.floor(lo - pad), math.ceil(hi + pad)


FLOW, ASYNC = set('stf'), set('benSTpF')


def interval(e):
    ts = e.get('ts')
    if ts is None:
        return None
    try:
        t = num(ts) * 1000
        d = num(e.get('dur', 0)) * 1000 if e.get('ph') == 'X' else 0
    except Exception:
        return None
    return t, t + d


def key(v):
    return json.dumps(v, default=str)


def main():
    src_lines = load(sys.argv[1])
    win_lines = load(sys.argv[2])
    report = json.load(open(sys.argv[3]), parse_float=Decimal)
    spec = sys.argv[4:]
    events = [parse(l) for l in src_lines]
    w0, w1 = window(events, spec)
    problems = []
    if Decimal(report['window_start_ns']) != w0 or Decimal(report['window_end_ns']) != w1:
        problems.append('window [%s, %s] ns, the report has [%s, %s]' %
                        (w0, w1, report['window_start_ns'], report['window_end_ns']))
    # groups: flows and async ids by id alone; B/E pairs by stack per thread
    groups, pair_of, pairs, stacks = {}, {}, [], {}
    for i, e in enumerate(events):
        iv = interval(e)
        ph = e.get('ph')
        if iv is None:
            continue
        if ph in FLOW or ph in ASYNC:
            ident = e.get('id', e.get('id2'))
            if ident is None:
                continue
            k = ('f' if ph in FLOW else 'a', key(ident))
            lo, hi = groups.get(k, (iv[0], iv[1]))
            groups[k] = (min(lo, iv[0]), max(hi, iv[1]))
        elif ph in 'BE' and 'pid' in e and 'tid' in e:
            s = stacks.setdefault((key(e['pid']), key(e['tid'])), [])
            if ph == 'B':
                pairs.append([iv[0], Decimal(2) ** 70])
                s.append(len(pairs) - 1)
                pair_of[i] = len(pairs) - 1
            elif s:
                n = s.pop()
                pairs[n][1] = iv[0]
                pair_of[i] = n
    overl = lambda lo, hi: lo <= w1 and hi >= w0
    keep, dropped_rows, cut = [False] * len(events), [], {'f': set(), 'a': set()}
    for i, e in enumerate(events):
        ph = e.get('ph')
        iv = interval(e)
        if ph == 'M' or iv is None:
            continue
        if i in pair_of:
            keep[i] = overl(*pairs[pair_of[i]])
            continue
        if (ph in FLOW or ph in ASYNC) and e.get('id', e.get('id2')) is not None:
            k = ('f' if ph in FLOW else 'a', key(e.get('id', e.get('id2'))))
            lo, hi = groups[k]
            if lo >= w0 and hi <= w1:
                keep[i] = True
            elif overl(*iv):
                dropped_rows.append(i)
                cut[k[0]].add(k)
            continue
        keep[i] = overl(*iv)
    pids = {key(e.get('pid')) for i, e in enumerate(events) if keep[i] and 'pid' in e}
    threads = {(key(e.get('pid')), key(e.get('tid'))) for i, e in enumerate(events)
               if keep[i] and 'pid' in e and 'tid' in e}
    for i, e in enumerate(events):
        if e.get('ph') == 'M' and 'pid' in e and key(e['pid']) in pids:
            keep[i] = ('tid' not in e or str(e.get('name', '')).startswith('process_') or
                       (key(e['pid']), key(e['tid'])) in threads)
    want = [l for i, l in enumerate(src_lines) if keep[i]]
    if want != win_lines:
        extra = [l for l in win_lines if l not in set(want)]
        missing = [l for l in want if l not in set(win_lines)]
        problems.append('kept set differs: %d wanted, %d in the window; missing %s; extra %s'
                        % (len(want), len(win_lines), missing[:2], extra[:2]))
    got_rows = [r['source_index'] for r in report['dropped_events']]
    if got_rows != dropped_rows:
        problems.append('dropped_events %s, wanted %s' % (got_rows[:5], dropped_rows[:5]))
    if report['flows_dropped_end_outside'] != len(cut['f']):
        problems.append('flows_dropped_end_outside %s, wanted %d' %
                        (report['flows_dropped_end_outside'], len(cut['f'])))
    if report['async_dropped_end_outside'] != len(cut['a']):
        problems.append('async_dropped_end_outside %s, wanted %d' %
                        (report['async_dropped_end_outside'], len(cut['a'])))
    if sum(report['kept'].values()) != len(want):
        problems.append('kept counts sum to %s, wanted %d' % (sum(report['kept'].values()), len(want)))
    if report['bytes_written'] != sum(len(l.encode('utf-8', 'surrogateescape')) + 1 for l in want):
        problems.append('bytes_written %s' % report['bytes_written'])
    print('\n'.join(problems) if problems else 'ok')
    sys.exit(1 if problems else 0)


main()
