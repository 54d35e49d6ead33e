#!/usr/bin/env python3
"""Independent oracle for tr-survey: computes from the trace itself (python's
json, exact decimal timestamps) what tr-survey(1) says it reports, and
compares it with a `tr-survey --json` output.

usage: survey_oracle.py TRACE N SURVEY.json [--pid P] [--device D] [--top K]

It checks every group (order, pid, device), every listed candidate (order,
name, count, passes, offset, partial passes, split, gaps, streams, spacing,
score, confirms, pass spans, per-step counts, the reasons it ranks lower),
the number of further candidates, every warning text, the command line,
the ProfilerStep count, the trace origin and the kernels left out by the
filters.  Prints the first differences and exits 1 when there are any."""
import argparse
import bisect
import gzip
import json
import math
import sys
from decimal import Decimal, ROUND_FLOOR

IRREGULAR_CV = 0.25
MAX_TIMES = 8
REGEX_META = '\\^$.|?*+()[]{}'


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    doc = json.loads(data, parse_float=Decimal)
    return doc['traceEvents'] if isinstance(doc, dict) else doc


def is_num(v):
    return isinstance(v, (int, Decimal)) and not isinstance(v, bool)


def ns_of(v):
    """Microseconds (exact decimal) -> integer ns, floored."""
    return int((Decimal(v) * 1000).to_integral_value(rounding=ROUND_FLOOR))


def raw(v):
    return json.dumps(v, separators=(',', ':'))


def matches(v, arg):
    return raw(v) == arg or (isinstance(v, str) and v == arg)


def jv(text):
    """A raw JSON value as the comparison sees it: strings unquoted, numbers
    as their text, null as None."""
    v = json.loads(text, parse_float=Decimal)
    return v if isinstance(v, str) or v is None else text


def ms6(ns):
    sign = '-' if ns < 0 else ''
    a = abs(ns)
    return '%s%d.%06d' % (sign, a // 1000000, a % 1000000)


def family(name):
    out, depth = [], 0
    for c in name:
        if c == '<':
            if depth == 0:
                out.append('<...>')
            depth += 1
            continue
        if c == '>' and depth > 0:
            depth -= 1
            continue
        if depth == 0:
            out.append(c)
    return ''.join(out)


class Name:
    def __init__(self, group, name):
        self.group, self.name, self.family = group, name, family(name)
        self.occ, self.tids = [], []
        self.confirms, self.confirmed_by, self.partner = 0, None, 0
        self.times_between = 0


def split(ts, N):
    """Passes of N: the offset whose boundary gaps have the largest minimum
    (ties: more passes, then smaller offset)."""
    n = len(ts)
    if n < N or n == 0:
        return None
    g = [ts[i + 1] - ts[i] for i in range(n - 1)]
    best = None
    for off in range(0, min(n - N, N - 1) + 1):
        k = (n - off) // N
        bounds = ([off - 1] if off > 0 else []) + [off + j * N - 1 for j in range(1, k)]
        if off + k * N < n:
            bounds.append(off + k * N - 1)
        m = min((g[b] for b in bounds), default=math.inf)
        if best is None or m > best[0]:
            best = (m, off, k, set(bounds))
    m, off, k, bounds = best
    inside = [i for i in range(n - 1) if i not in bounds] if N > 1 else []
    max_in = max((g[i] for i in inside), default=-1)
    if m == math.inf:
        kind = 'single'
    elif max_in < 0 or m > max_in:
        kind = 'clean'
    else:
        kind = 'ambiguous'
    return dict(offset=off, passes=k, partial_last=n - off - k * N, kind=kind,
                min_between=-1 if m == math.inf else m, max_inside=max_in,
                compared=set(range(n - 1)) if N == 1 else set(inside))


def times_by_count(ts, N, sp):
    """2 when the count is 2N x p and passes of 2N from the first occurrence
    split cleanly while passes of N are ambiguous, else 0."""
    n = len(ts)
    if sp['kind'] != 'ambiguous':
        return 0
    g = [ts[i + 1] - ts[i] for i in range(n - 1)]
    for k in (2,):
        if n % (k * N):
            continue
        b = [g[i] for i in range(n - 1) if (i + 1) % (k * N) == 0]
        o = [g[i] for i in range(n - 1) if (i + 1) % (k * N) != 0]
        if not b or min(b) > max(o, default=-1):
            return k
    return 0


def cv_of(gaps):
    if len(gaps) < 2:
        return 0.0
    tot = 0.0
    for x in gaps:
        tot += float(x)
    mean = tot / len(gaps)
    var = 0.0
    for x in gaps:
        d = float(x) - mean
        var += d * d
    var /= len(gaps)
    return math.sqrt(var) / mean if mean > 0 and var > 0 else 0.0


def analyse(s, N):
    s.occ.sort()
    ts = [t for t, _ in s.occ]
    s.n = n = len(ts)
    s.sp = sp = split(ts, N)
    s.twice_count = times_by_count(ts, N, sp) if sp is not None else 0
    # spacing: every gap for N = 1; else the median (lower middle) of the
    # cv of each whole pass's own gaps
    s.cv = 0.0
    if N == 1:
        s.cv = cv_of([ts[i + 1] - ts[i] for i in range(n - 1)])
    elif sp is not None and sp['passes']:
        cvs = sorted(cv_of([ts[i + 1] - ts[i] for i in range(sp['offset'] + j * N,
                                                             sp['offset'] + j * N + N - 1)])
                     for j in range(sp['passes']))
        s.cv = cvs[(len(cvs) - 1) // 2]
    s.nstreams = min(len(set(s.tids)), 255)
    if sp is None or s.twice_count:
        s.score = 0.0
    else:
        s.score = float(sp['passes']) * float(N)
        if sp['kind'] == 'ambiguous':
            s.score *= 0.25
        s.score /= 1.0 + 4.0 * s.cv
        if s.nstreams > 1:
            s.score *= 0.8
    # runs at gaps over 1.5 x the median gap, for the family warning
    s.nruns, s.len_a = n, 0
    if n >= 2:
        gaps = sorted(ts[i + 1] - ts[i] for i in range(n - 1))
        med = gaps[(n - 1) // 2]
        limit = med + med // 2 if med > 0 else 1
        lens, start = [], 0
        for i in range(1, n + 1):
            if i < n and ts[i] - ts[i - 1] <= limit:
                continue
            lens.append(i - start)
            start = i
        s.nruns = len(lens)
        order = []
        for ln in lens:
            if ln not in order and len(order) < 64:
                order.append(ln)
        counts = [sum(1 for x in lens if x == ln) for ln in order]
        a = 0
        for k in range(1, len(order)):
            if counts[k] > counts[a]:
                a = k
        s.len_a = order[a] if order else 0


def interleave(a, b, N):
    """1 or 2 when always exactly that many of b lie in [a_i, a_i+1) at a's
    compared gaps (at least two of them), else 0."""
    at = [t for t, _ in a.occ]
    bt = [t for t, _ in b.occ]
    pattern, pairs = None, 0
    for i in sorted(a.sp['compared']):
        c = bisect.bisect_left(bt, at[i + 1]) - bisect.bisect_left(bt, at[i])
        if not 1 <= c <= MAX_TIMES or (pattern is not None and c != pattern):
            return 0
        pattern, pairs = c, pairs + 1
    return pattern if pairs >= 2 and pattern else 0


def key(s):
    return (-s.score, -s.n, s.name.encode('utf-8', 'surrogatepass'))


def arith(n, N, k):
    p, r = divmod(n, k * N)
    if p == 0:
        return '%d < %d x %d' % (n, k, N)
    return '%d = %d x %d' % (n, k, N) + (' x %d' % p if p > 1 else '') + (' + %d' % r if r else '')


def times(k):
    return {1: 'once', 2: 'twice', 3: 'three times'}.get(k, '%d times' % k)


def pass_ns(s, N):
    """Each pass's span in ns: its first occurrence to its latest end."""
    out = []
    for j in range(s.sp['passes']):
        first = s.sp['offset'] + j * N
        part = s.occ[first:first + N]
        out.append((part[0][0], max(e for _, e in part)))
    return out


def plain_us(v):
    """A ts or dur as tr-window(1) reads it (a number, or a number in a
    string): exact decimal us, or None."""
    if is_num(v):
        return Decimal(v)
    if isinstance(v, str):
        try:
            d = Decimal(v)
        except Exception:
            return None
        return d if d.is_finite() and v.strip() == v and 'e' not in v.lower() else None
    return None


def extents(stream):
    """Every timed event of the decoded stream but metadata: its interval
    in exact ns and its line's bytes with the newline."""
    out = []
    with open(stream, 'rb') as f:
        for line in f:
            if line.startswith(b'{"@tr"'):
                continue
            e = json.loads(line, parse_float=Decimal)
            if not isinstance(e, dict) or e.get('ph') == 'M':
                continue
            ts = plain_us(e.get('ts'))
            dur = plain_us(e.get('dur')) if e.get('ph') == 'X' and 'dur' in e else Decimal(0)
            if ts is None or dur is None or dur < 0:
                continue
            out.append((ts * 1000, (ts + dur) * 1000, len(line)))
    return out


def pass_bytes(s, N, ext):
    return [sum(n for lo, hi, n in ext if lo <= b and hi >= a) for a, b in pass_ns(s, N)]


def spans(s, N, origin):
    out = []
    for j in range(s.sp['passes']):
        first = s.sp['offset'] + j * N
        part = s.occ[first:first + N]
        out.append([ms6(part[0][0] - origin), ms6(max(e for _, e in part) - origin)])
    return out


def per_step(s, steps):
    counts, before = [0] * len(steps), 0
    for t, _ in s.occ:
        if t < steps[0][0]:
            before += 1
            continue
        j = max(i for i, st in enumerate(steps) if st[0] <= t)
        counts[j] += 1
    return {'before_first': before, 'counts': counts}


def passes_inside(s, t, N):
    sp_t = [(t.occ[t.sp['offset'] + j * N][0], t.occ[t.sp['offset'] + j * N + N - 1][0])
            for j in range(t.sp['passes'])]
    best = 0
    for a, b in sp_t:
        c = sum(1 for j in range(s.sp['passes'])
                if a <= s.occ[s.sp['offset'] + j * N][0] and
                s.occ[s.sp['offset'] + j * N + N - 1][0] <= b)
        best = max(best, c)
    return best


def steps_vs_passes(s, N, steps):
    """(ProfilerStep starts at pass boundaries, starts inside whole passes)."""
    if len(steps) < 2:
        return 0, 0
    ts = [t for t, _ in s.occ]
    first, last = s.sp['offset'], s.sp['offset'] + s.sp['passes'] * N
    on = inside = 0
    for start, _ in steps:
        i = bisect.bisect_left(ts, start)
        if first <= i <= last:
            if (i - first) % N == 0:
                on += 1
            else:
                inside += 1
    return on, inside


def rhythm(ts):
    """The rhythm of consecutive times ts (tr-select-anchors(1)): the
    longest gap once the longest tenth (at least one, of two or more) is set
    aside; None without a gap."""
    gaps = sorted(b - a for a, b in zip(ts, ts[1:]))
    if not gaps:
        return None
    drop = 0 if len(gaps) < 2 else max(1, len(gaps) // 10)
    return gaps[len(gaps) - 1 - drop]


def shape_whole(s, N):
    """The split's passes, selected as tr-select-anchors selects them, have
    the shape it accepts: every boundary (between passes, and to the
    matches before and after) longer than 5/4 of the shorter rhythm on its
    two sides."""
    ts = [t for t, _ in s.occ]
    off, end = s.sp['offset'], s.sp['offset'] + s.sp['passes'] * N
    if N < 2:
        return True
    bounds = []
    if off > 0:
        bounds.append((off - 1, ts[max(0, off - N):off], ts[off:off + N]))
    for p in range(s.sp['passes'] - 1):
        last = off + (p + 1) * N - 1
        bounds.append((last, ts[last + 1 - N:last + 1], ts[last + 1:last + 1 + N]))
    if end < len(ts):
        bounds.append((end - 1, ts[end - N:end], ts[end:end + N]))
    for left, before, after in bounds:
        sides = [r for r in (rhythm(before), rhythm(after)) if r is not None]
        if sides and 4 * (ts[left + 1] - ts[left]) <= 5 * min(sides):
            return False
    return True


def whole(s, N, steps):
    """Whether s's passes are whole: a clean or single split (an ambiguous
    one confirmed by a clean partner or by a ProfilerStep start between two
    of its passes), no ProfilerStep start inside a whole pass, and the
    shape tr-select-anchors accepts."""
    if not s.sp['passes'] or not shape_whole(s, N):
        return False
    inside = steps_vs_passes(s, N, steps)[1]
    if inside:
        return False
    if s.sp['kind'] in ('clean', 'single'):
        return True
    # a step start at a pass boundary with occurrences on both sides
    ts = [t for t, _ in s.occ]
    first, last = s.sp['offset'], s.sp['offset'] + s.sp['passes'] * N
    on = 0
    if len(steps) >= 2:
        for start, _ in steps:
            i = bisect.bisect_left(ts, start)
            if 0 < i < len(ts) and first <= i <= last and (i - first) % N == 0:
                on += 1
    return bool(s.partner) or on > 0


def reasons(s, top, ncand, N, steps):
    r = []
    if s.sp['kind'] == 'ambiguous':
        r.append('its passes are not separated by gaps larger than those inside them')
    if s.cv > IRREGULAR_CV:
        r.append('irregular spacing %s (cv %.2f)' % (
            'between passes' if N == 1 else 'inside passes', s.cv))
    if s.confirms == 0 and ncand > 1:
        r.append('no other candidate interleaves one-to-one with it')
    if top is not None and s is not top and s.sp['passes'] < top.sp['passes']:
        r.append('fewer complete passes (%d) than candidate 1 (%d)' % (s.sp['passes'],
                                                                     top.sp['passes']))
    if top is not None and s is not top and s.sp['passes'] > top.sp['passes']:
        k = passes_inside(s, top, N)
        if k > 1:
            r.append('%d of its passes lie inside one pass of candidate 1 (several per layer?)' % k)
    k = steps_vs_passes(s, N, steps)[1]
    if k:
        r.append('%d ProfilerStep start%s inside its passes' % (k, ' falls' if k == 1 else 's fall'))
    if s.n % N:
        r.append('partial passes (%d is not a multiple of %d)' % (s.n, N))
    if s.nstreams > 1:
        r.append('runs on %d streams' % s.nstreams)
    return r


def regex_of(name):
    out = ['^']
    for c in name:
        if c == '\0':
            out.append('\\x00')
            continue
        if c in REGEX_META:
            out.append('\\')
        out.append(c)
    return ''.join(out) + '$'


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def group_report(names, N, top_k, origin, steps, pid_raw, dev_raw, ext, training):
    order = sorted(names, key=key)
    cand = [s for s in order if s.score > 0][:64]
    for x in cand:
        x.confirms = sum(1 for y in cand if y is not x and interleave(x, y, N) == 1)
    for x in cand:
        x.score *= 1.0 + x.confirms
    order = sorted(order, key=key)
    top = order[0] if order and order[0].score > 0 else None
    if top is not None:
        for s in order:
            if s is top:
                continue
            p = interleave(top, s, N)
            if p == 1 and s.n == top.n:
                s.confirmed_by = top.name
            if p > 1:
                s.times_between = p
                s.score = 0.0
        order = sorted(order, key=key)
    cands = [s for s in order if s.score > 0]
    listed = cands[:top_k]
    for i, x in enumerate(listed):
        if x.sp['kind'] != 'ambiguous':
            continue
        for k, y in enumerate(cands):
            if k != i and y.sp['kind'] == 'clean' and y.n == x.n and interleave(x, y, N) == 1:
                x.partner = k + 1
                break
    warn = []
    for s in order:
        if s.times_between:
            k = s.times_between
            warn.append('%s per layer (%d between consecutive occurrences of candidate 1; %s): %s'
                        % (times(k), k, arith(s.n, N, k), s.name))
        elif s.twice_count:
            k = s.twice_count
            warn.append('%s per layer (%s; its gaps fit passes of %d, not passes of %d): %s'
                        % (times(k), arith(s.n, N, k), k * N, N, s.name))
    for s in listed:
        if s.n % N:
            parts = []
            if s.sp['offset']:
                parts.append('a partial first pass of %d' % s.sp['offset'])
            if s.sp['partial_last']:
                parts.append('a partial last pass of %d' % s.sp['partial_last'])
            warn.append('%d is not a multiple of %d (%d = %d x %d + %d: %s): %s' % (
                s.n, N, s.n, s.n // N, N, s.n % N, ', '.join(parts), s.name))
        if s.sp['kind'] == 'ambiguous':
            w = ('passes ambiguous: a gap inside a pass (%s ms) is not smaller than the smallest '
                 'gap between passes (%s ms); %d passes of exactly %d assumed' % (
                     ms6(s.sp['max_inside']), ms6(s.sp['min_between']), s.sp['passes'], N))
            if s.partner:
                w += ', as candidate %d (one-to-one, split cleanly) shows' % s.partner
            elif len(steps) < 2:
                w += '; check them against the time spans'
            else:
                on, inside = steps_vs_passes(s, N, steps)
                if inside == 0 and on > 0:
                    w += '; %d ProfilerStep start%s at pass boundaries, none inside a pass' % (
                        on, ' falls' if on == 1 else 's fall')
                else:
                    w += '; %d ProfilerStep start%s inside passes, compare them with the counts' % (
                        inside, ' falls' if inside == 1 else 's fall')
            warn.append(w + ': ' + s.name)
        if s.nstreams > 1:
            warn.append('runs on %d streams: %s' % (s.nstreams, s.name))
    for i, s in enumerate(order):
        for o in order[i + 1:]:
            if o.family != s.family:
                continue
            if (s.len_a >= 2 and o.len_a >= 2 and s.len_a != o.len_a and s.nruns > 1 and
                    o.nruns > 1 and (s.score > 0 or o.score > 0)):
                warn.append('one family, runs of %d and %d%s: anchor the regex on the '
                            'template arguments: %s' % (
                                s.len_a, o.len_a,
                                '' if training else ' (draft and target passes?)', s.family))
                break
    # the starting command: the first listed candidate with whole passes
    start = next(((i + 1, s) for i, s in enumerate(listed) if whole(s, N, steps)), None)
    command, note = None, None
    if start is not None:
        st = start[1]
        command = ('tr-layer-track --trace TRACE --output OUT --anchor-regex %s --num-layers %d '
                   '--anchor-offset %d --passes %d --pid %s --phase PHASE --evidence '
                   "'WHY L0 IS L0'" % (shell_quote(regex_of(st.name)), N, st.sp['offset'],
                                       st.sp['passes'], pid_raw))
    elif top is not None:
        note = ('no starting command: no listed candidate has whole passes of %d (split at gaps '
                'larger than those inside them, no ProfilerStep starting inside one); the '
                'trace may not run %d layers per pass' % (N, N))
    out = []
    for s in listed:
        sp = s.sp
        out.append({
            'name': s.name, 'count': s.n, 'per_layer': '%.3f' % (s.n / N),
            'passes': sp['passes'], 'anchor_offset': sp['offset'],
            'partial_first': sp['offset'], 'partial_last': sp['partial_last'],
            'split': sp['kind'],
            'min_gap_between_ms': None if sp['min_between'] < 0 else ms6(sp['min_between']),
            'max_gap_inside_ms': None if sp['max_inside'] < 0 else ms6(sp['max_inside']),
            'streams': s.nstreams, 'spacing_cv': '%.3f' % s.cv, 'score': '%.3f' % s.score,
            'confirms': s.confirms, 'whole_passes': whole(s, N, steps),
            'confirmed_by': s.confirmed_by,
            'pass_spans_ms': spans(s, N, origin),
            'pass_bytes': pass_bytes(s, N, ext),
            'per_step': per_step(s, steps) if len(steps) >= 2 else None,
            'weaker': reasons(s, top, len(cands), N, steps)})
    # second landmarks: once between consecutive occurrences of candidate 1
    landmarks = []
    if start is not None:
        landmarks = [{'name': s.name, 'regex': regex_of(s.name)} for s in order
                     if s is not start[1] and interleave(start[1], s, N) == 1][:top_k]
    return {'pid': jv(pid_raw), 'device': jv(dev_raw), 'candidates': out,
            'more_candidates': len(cands) - len(listed), 'warnings': warn, 'command': command,
            'command_candidate': start[0] if start else None, 'command_note': note,
            'landmarks': landmarks}


def expected(trace, N, stream, pid=None, device=None, top_k=10):
    events = load(trace)
    ext = extents(stream)
    origin = None
    steps = []
    groups, names, elsewhere = {}, {}, {}
    training = False
    for e in events:
        ts = e.get('ts')
        # a training trace: autograd's backward ops and kernels, the optimizer
        n = e.get('name')
        if isinstance(n, str) and ('ackward' in n or n.startswith('Optimizer.')):
            training = True
        if is_num(ts):
            if origin is None or ns_of(ts) < origin:
                origin = ns_of(ts)
        name = e.get('name')
        if (e.get('ph') == 'X' and isinstance(name, str) and name.startswith('ProfilerStep#')
                and is_num(ts)):
            dur = e.get('dur')
            steps.append((ns_of(ts), ns_of(ts) + (ns_of(dur) if is_num(dur) and dur >= 0 else 0)))
        cat = e.get('cat')
        if (e.get('ph') != 'X' or not isinstance(cat, str) or
                not ({'kernel', 'Kernel'} & set(cat.split(','))) or 'pid' not in e or
                not isinstance(name, str) or not is_num(ts)):
            continue
        args = e.get('args')
        dev = args.get('device') if isinstance(args, dict) and 'device' in args else None
        g = (raw(e['pid']), raw(dev))
        if (pid is not None and not matches(e['pid'], pid)) or \
                (device is not None and not matches(dev, device)):
            elsewhere[g] = elsewhere.get(g, 0) + 1
            continue
        groups.setdefault(g, len(groups))
        s = names.setdefault((g, name), Name(g, name))
        dur = e.get('dur')
        d = ns_of(dur) if is_num(dur) and dur >= 0 else 0
        s.occ.append((ns_of(ts), ns_of(ts) + d))
        if 'tid' in e:
            s.tids.append(raw(e['tid']))
    steps.sort()
    for s in names.values():
        analyse(s, N)
    out = {'num_layers': N, 'profiler_steps': len(steps), 'groups': [],
           'kernels_elsewhere': [{'pid': jv(p), 'device': jv(d), 'kernels': c}
                                 for (p, d), c in elsewhere.items()]}
    out['trace_origin_us'] = None if origin is None else '%d.%03d' % divmod(origin, 1000)
    for g in sorted(groups, key=groups.get):
        out['groups'].append(group_report([s for s in names.values() if s.group == g], N,
                                          top_k, origin, steps, g[0], g[1], ext, training))
    return out


def normalise(got):
    """The survey's JSON with numbers as their texts, for exact comparison."""
    def fix(v):
        if isinstance(v, dict):
            return {k: fix(x) for k, x in v.items()}
        if isinstance(v, list):
            return [fix(x) for x in v]
        if isinstance(v, Decimal):
            return str(v)
        return v
    return fix(got)


def compare(want, got, path, diffs):
    if len(diffs) >= 8:
        return
    if isinstance(want, dict) and isinstance(got, dict):
        for k in want:
            if k not in got:
                diffs.append('%s.%s: missing' % (path, k))
            else:
                compare(want[k], got[k], '%s.%s' % (path, k), diffs)
        for k in got:
            if k not in want:
                diffs.append('%s.%s: not expected' % (path, k))
        return
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            diffs.append('%s: %d items, wanted %d' % (path, len(got), len(want)))
        for i, (w, g) in enumerate(zip(want, got)):
            compare(w, g, '%s[%d]' % (path, i), diffs)
        return
    if want != got:
        diffs.append('%s: got %r, wanted %r' % (path, str(got)[:160], str(want)[:160]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('trace')
    ap.add_argument('num_layers', type=int)
    ap.add_argument('survey')
    ap.add_argument('stream', help='the decoded stream the survey read, for the pass bytes')
    ap.add_argument('--pid')
    ap.add_argument('--device')
    ap.add_argument('--top', type=int, default=10)
    a = ap.parse_args()
    want = expected(a.trace, a.num_layers, a.stream, a.pid, a.device, a.top)
    with open(a.survey, 'rb') as f:
        got = normalise(json.loads(f.read(), parse_float=Decimal,
                                   parse_int=lambda t: t))
    diffs = []
    compare(normalise(json.loads(json.dumps(want), parse_int=lambda t: t)), got, '', diffs)
    if diffs:
        print('\n'.join(diffs))
        sys.exit(1)


if __name__ == '__main__':
    main()
