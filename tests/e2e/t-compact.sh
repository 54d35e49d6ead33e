# t-compact: tr-compact and tr-compact-track end to end.  Every output is
# checked by compact_check.py (reversal, lanes, flows) and by an oracle here
# that recomputes the report (counts, groups, peak concurrency, lane ids and
# names, retired metadata), the flow bindings and the summary from the
# source on its own.  Hand-made fixtures (touching and zero-length slices,
# flow binding), refusals, generated traces (300 streams, several devices,
# --pid, integer timestamps, the lane cap, ROCm stream 0 beside process
# metadata, the scaling shapes), nothing to compact (MTIA-like, CPU-only,
# --pid), GPU events without pid or tid, scopes of two devices in one pid,
# tr-compact-track (output safety, summary, layer guides), tr-layer-track's
# guides-only advice, and every real trace (two at a time), each report
# checked against the documented schema.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).
# Python starts slowly, so the oracles run in batches: oracle() queues a
# check, oracles() runs the queue, fact() then reads what they found.

cd "$T" || exit 2
LANE1=2113929216  # 0x7E000000: the first synthetic lane tid
LANE2=2113929217
LANE3=2113929218
LANE4=2113929219
SCOPE1=2130706432 # 0x7F000000: the first synthetic scope pid

# ------------------------------------------------------------------ oracles

# rcheck.py JOBS: for each line "NAME<TAB>SRC<TAB>OUT[<TAB>--max<TAB>N]
# [<TAB>--pid<TAB>P]" of JOBS, compact_check.py, then the report, flow
# bindings, lanes and summary recomputed from the source.  NAME.facts (beside
# JOBS) gets the failure, or the facts, one a line, and "ok": "group PID
# DEVICE KIND streams=N string_streams=N kernel_streams=N lanes=N kernels=N
# events=N tids=T,.. [process=P]", "scope_process PID NAME", "flows=N
# fanout=N" (most flow ends of one id on one track), "same_stream_overlaps=N
# partial_kernel_pairs=N kernels=N", "guides=N" (layer guide slices, kept
# unchanged), tr-compact's summary lines "moved: ..." and "notice: ...".
cat >rcheck.py <<'EOF'
import collections, gc, json, os, sys
from decimal import Decimal
sys.path.insert(0, os.path.join(os.environ['ROOT'], 'tests', 'e2e'))
import compact_check as cc

KEY = cc.KEY
Obj, Num = cc.Obj, cc.Num
ACT = {'kernel', 'Kernel', 'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset'}
LANE_BASE, SCOPE_BASE = 0x7E000000, 0x7F000000
A = collections.namedtuple('A', 'i kind kernel corr s e lo hi zero')

# compact_check.py runs first, as it is; the files it parsed are kept for the
# checks here, so that each file is parsed once.
cache = {}
load_once = cc.load
cc.load = lambda p: cache[p] if p in cache else cache.setdefault(p, load_once(p))


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def get(o, k):
    return o.get(k) if isinstance(o, (Obj, dict)) else None


def tx(v):
    """A pid, tid, device or id as JSON text."""
    if type(v) is Num:
        return str(v)
    if v is None:
        return 'null'
    if isinstance(v, (Obj, list)):
        return json.dumps(cc.plain_value(v))
    return json.dumps(v)


def cats(e):
    c = e.get('cat')
    return set(c.split(',')) if type(c) is str else set()


def kind(e):
    if e.get('ph') != 'X':
        return None
    c = cats(e)
    if c & ACT:
        return 'activity'
    return 'scope' if 'gpu_user_annotation' in c else None


def is_kernel(e):
    return e.get('ph') == 'X' and bool(cats(e) & {'kernel', 'Kernel'})


def track(e):
    return (tx(e.get('pid')), tx(e.get('tid')))


def counts(evs):
    c = collections.Counter()
    for e in evs:
        ph = e.get('ph')
        if ph != 'M':
            c[(tx(e.get('cat')), ph)] += 1
    return c


def guide_track(evs):
    """The layer guide slices and the metadata of their threads, in order."""
    g = [e for e in evs if e.get('cat') == 'layer_guide']
    tracks = {track(e) for e in g}
    return [e for e in evs if e.get('cat') == 'layer_guide' or
            (e.get('ph') == 'M' and track(e) in tracks)]


def run(src_path, out_path, rep_path, max_lanes, only_pid):
    facts = []
    sys.argv = ['compact_check.py', src_path, out_path, rep_path, str(max_lanes)]
    cc.main()
    src_raw = cc.events_of(cc.load(src_path))[0]
    out_raw = cc.events_of(cc.load(out_path))[0]
    # events as dicts (the first of duplicate members), for speed
    src = [dict(reversed(e)) if isinstance(e, Obj) else {} for e in src_raw]
    out = [dict(reversed(e)) if isinstance(e, Obj) else {} for e in out_raw]
    rep = json.load(open(rep_path))
    rep = rep.get('compaction', rep)

    # the source: GPU events by group and by track
    groups = collections.OrderedDict()
    acts_of_track = collections.defaultdict(list)
    src_pids, src_tracks = set(), set()
    for i, e in enumerate(src):
        if 'pid' in e:
            src_pids.add(tx(e['pid']))
            if 'tid' in e:
                src_tracks.add(track(e))
        k = kind(e)
        if k is None or (only_pid is not None and tx(e.get('pid')) != only_pid):
            continue
        args = e.get('args')
        groups.setdefault((tx(e.get('pid')), tx(get(args, 'device')), k), []).append(i)
        s, d = cc.exact_ns(e.get('ts')), cc.exact_ns(e.get('dur'))
        ps, pd = cc.perfetto_ns(e.get('ts')), cc.perfetto_ns(e.get('dur'))
        acts_of_track[track(e)].append(A(i, k, is_kernel(e), tx(get(args, 'correlation')),
                                         s, s + d, min(s, Decimal(ps)),
                                         max(s + d, Decimal(ps + pd)), d == 0 or pd == 0))
    moved_tracks = set(acts_of_track)

    # the output: moved events by source index; name, ts, dur, args.stream kept
    moved, moved_flows = {}, []
    for e in out:
        a = e.get('args')
        if type(a) is not Obj or not any(k == KEY for k, _ in a):
            continue
        note = a.get(KEY)
        idx = int(note.get('source_event_index'))
        check(idx not in moved, f'source event {idx} placed twice')
        moved[idx] = e
        check(tx(note.get('pid')) == tx(src[idx].get('pid')) and
              tx(note.get('tid')) == tx(src[idx].get('tid')), f'event {idx}: note pid/tid')
        if e.get('ph') in ('s', 't', 'f'):
            moved_flows.append((idx, e))
            continue
        for f in ('name', 'ts', 'dur', 'cat', 'ph'):
            check(e.get(f) == src[idx].get(f) and type(e.get(f)) is type(src[idx].get(f)),
                  f'event {idx}: {f} changed')
        check(get(a, 'stream') == get(src[idx].get('args'), 'stream'),
              f'event {idx}: args.stream changed')

    # counts
    retired = rep['retired_track_metadata']
    check(rep['max_lanes'] == max_lanes, f'max_lanes {rep["max_lanes"]} != {max_lanes}')
    check(rep['original_event_count'] == len(src), 'original_event_count')
    check(rep['output_event_count'] == len(out), 'output_event_count')
    # the reference's meaning: every moved event, flows included
    check(rep['relocated_events'] == len(moved), 'relocated_events')
    check(rep['relocated_flows'] == len(moved_flows), 'relocated_flows')
    check(sorted(i for i in moved if moved[i].get('ph') not in ('s', 't', 'f')) ==
          sorted(i for ix in groups.values() for i in ix),
          'the moved events are not exactly the GPU activity and scopes')
    check(sorted(i for i, _ in moved_flows) ==
          [i for i, e in enumerate(src)
           if e.get('ph') in ('s', 't', 'f') and track(e) in moved_tracks],
          'the moved flows are not exactly the flows on moved tracks')
    check([r['source_event_index'] for r in retired] ==
          [i for i, e in enumerate(src) if e.get('ph') == 'M' and
           e.get('name') in ('thread_name', 'thread_sort_index') and track(e) in moved_tracks],
          'retired_track_metadata indexes')
    for r in retired:
        check(r['event'] == cc.plain_value(src_raw[r['source_event_index']]),
              'retired event text')
    nlanes = sum(g['lanes'] for g in rep['groups'])
    nscope = sum(g['kind'] == 'scope' for g in rep['groups'])
    check(rep['new_metadata_count'] == 2 * nlanes + nscope, 'new_metadata_count')
    check(len(out) == len(src) - len(retired) + rep['new_metadata_count'], 'event count balance')
    cs, co = counts(src), counts(out)
    check(cs == co, f'per-category counts differ: {cs - co} / {co - cs}')
    kernels = sum(1 for e in src if is_kernel(e))
    check(kernels == sum(1 for e in out if is_kernel(e)), 'kernel counts differ')
    gs, go = guide_track(src), guide_track(out)
    check([list(e.items()) for e in gs] == [list(e.items()) for e in go] and
          [[(k, tx(v)) for k, v in e.items()] for e in gs] ==
          [[(k, tx(v)) for k, v in e.items()] for e in go],
          'the layer guides changed')

    # groups
    meta = collections.Counter()
    for e in out:
        a = e.get('args')
        if e.get('ph') == 'M' and get(a, KEY) is None:
            v = get(a, 'name') if get(a, 'name') is not None else get(a, 'sort_index')
            meta[(tx(e.get('pid')), tx(e.get('tid')), e.get('name'), tx(v))] += 1
    seen, display, used_lanes = set(), set(), set()
    # a pid with scopes on several devices names each scope process by device
    scope_devices = collections.Counter(k[0] for k in groups if k[2] == 'scope')
    for g in rep['groups']:
        key = (tx(g['pid']), tx(g['device']), g['kind'])
        check(key in groups and key not in seen, f'unexpected group {key}')
        seen.add(key)
        ix = groups[key]
        evs = [src[i] for i in ix]
        streams = []
        for e in evs:
            if tx(e.get('tid')) not in streams:
                streams.append(tx(e.get('tid')))
        kstreams = {tx(e.get('tid')) for e in evs if is_kernel(e)}
        check(g['original_streams'] == len(streams), f'{key}: original_streams')
        check(g['original_kernel_streams'] == len(kstreams), f'{key}: original_kernel_streams')
        check(sorted(tx(t) for t in g['original_stream_tids']) == sorted(streams),
              f'{key}: original_stream_tids')
        check(sorted(tx(t) for t in g['original_kernel_stream_tids']) == sorted(kstreams),
              f'{key}: original_kernel_stream_tids')
        nk = sum(1 for e in evs if is_kernel(e))
        check(g['kernel_count'] == nk and g['activity_count'] == len(evs), f'{key}: counts')
        # peak concurrency, independently: a sweep over [lo, hi), where a
        # zero-length slice reaches half a ns further (nothing may start at it)
        ixs, pts = set(ix), []
        for t in {track(e) for e in evs}:
            for a in acts_of_track[t]:
                if a.i in ixs:
                    pts.append((a.lo, 1))
                    pts.append((a.hi + (Decimal('0.5') if a.zero else 0), -1))
        pts.sort(key=lambda p: (p[0], p[1]))
        level = peak = 0
        for _, d in pts:
            level += d
            peak = max(peak, level)
        check(g['lanes'] == peak == g['peak_concurrency'],
              f'{key}: lanes {g["lanes"]}, peak_concurrency {g["peak_concurrency"]}, '
              f'oracle {peak}')
        check(1 <= g['lanes'] <= max_lanes, f'{key}: {g["lanes"]} lanes')
        tids = g['lane_tids']
        check(len(tids) == g['lanes'] == len(set(tids)) and all(type(t) is int for t in tids),
              f'{key}: lane_tids')
        dpid = str(g['display_pid'])
        if g['kind'] == 'activity':
            check(dpid == key[0], f'{key}: display_pid')
        else:
            check(SCOPE_BASE <= g['display_pid'] < 2 ** 31, f'{key}: display_pid')
            check(dpid not in src_pids and dpid not in display, f'{key}: display pid used')
            display.add(dpid)
            where = key[0] + (f', device {key[1]}' if scope_devices[key[0]] > 1 else '')
            pname = f'GPU scopes (original PID {where})'
            check(meta[(dpid, '0', 'process_name', json.dumps(pname))] == 1,
                  f'{key}: scope process_name')
            facts.append(f'scope_process {dpid} {pname}')
        for k, t in enumerate(tids, 1):
            check(LANE_BASE <= t < 2 ** 31, f'{key}: lane tid {t}')
            check((dpid, str(t)) not in src_tracks and (dpid, str(t)) not in used_lanes,
                  f'{key}: lane tid {t} used')
            used_lanes.add((dpid, str(t)))
            name = (f'GPU lane {k} (synthetic; device {key[1]})' if g['kind'] == 'activity'
                    else f'GPU scope lane {k} (synthetic; original PID {where})')
            check(meta[(dpid, str(t), 'thread_name', json.dumps(name))] == 1,
                  f'{key}: no thread_name {name!r} on lane tid {t}')
            check(meta[(dpid, str(t), 'thread_sort_index', str(-1000 + k))] == 1,
                  f'{key}: no thread_sort_index {-1000 + k} on lane tid {t}')
        # every event of the group on one of its lanes; lane_stream_counts
        per_lane = collections.defaultdict(collections.Counter)
        lane_text = {str(t) for t in tids}
        for i in ix:
            e = moved[i]
            check(tx(e.get('pid')) == dpid and tx(e.get('tid')) in lane_text,
                  f'event {i} is not on a lane of {key}')
            t = src[i].get('tid')
            per_lane[int(e.get('tid'))][t if type(t) is str else str(t)] += 1
        for lc in g['lane_stream_counts']:
            check(tids[lc['lane'] - 1] == lc['tid'] and lc['streams'] == dict(per_lane[lc['tid']]),
                  f'{key}: lane_stream_counts of lane {lc["lane"]}')
        check(len(g['lane_stream_counts']) == g['lanes'], f'{key}: lane_stream_counts')
        nstr = sum(1 for s in streams if s.startswith('"'))
        facts.append(f'group {key[0]} {key[1]} {key[2]} streams={len(streams)} '
                     f'string_streams={nstr} kernel_streams={len(kstreams)} lanes={g["lanes"]} '
                     f'kernels={nk} events={len(evs)} tids={",".join(map(str, tids))}'
                     + (f' process={dpid}' if g['kind'] == 'scope' else ''))
    check(seen == set(groups), f'groups missing from the report: {set(groups) - seen}')

    # flows: bound as the contract says, independently of the C code
    by_corr, has_corr = collections.defaultdict(list), set()
    for t, acts in acts_of_track.items():
        for a in acts:
            if a.kind == 'activity':
                by_corr[(t, a.corr)].append(a)
                if a.corr != 'null':
                    has_corr.add(t)
    fanout = collections.Counter()
    for idx, e in moved_flows:
        note = e['args'].get(KEY)
        t = (tx(note.get('pid')), tx(note.get('tid')))
        fid = tx(e.get('id'))
        if t in has_corr and e.get('id') is not None:
            acts = by_corr[(t, fid)]
        else:
            acts = [a for a in acts_of_track[t] if a.kind == 'activity']
        ts = cc.exact_ns(e.get('ts'))
        exact = [a for a in acts if a.s == ts]
        inside = [a for a in acts if a.s < ts < a.e]
        check(len(exact) == 1 or (not exact and len(inside) == 1),
              f'flow {idx}: no single binding')
        a = (exact or inside)[0]
        check(track(moved[a.i]) == track(e), f'flow {idx} is not on the lane of event {a.i}')
        fanout[(t, fid, e.get('ph'))] += 1
    facts.append(f'flows={len(moved_flows)} fanout={max(fanout.values(), default=0)}')

    # same-stream overlaps: on different lanes
    pairs = split = partial = 0
    for t, acts in acts_of_track.items():
        acts = sorted(acts, key=lambda a: a.s)
        for n, a in enumerate(acts):
            for m in range(n + 1, len(acts)):
                b = acts[m]
                if b.s >= a.e:
                    break
                pairs += 1
                split += track(moved[a.i]) != track(moved[b.i])
                partial += a.kernel and b.kernel and a.s < b.s and a.e < b.e
    check(pairs == split, f'{pairs - split} same-stream overlapping pairs share a lane')
    facts.append(f'same_stream_overlaps={pairs} partial_kernel_pairs={partial} kernels={kernels}')
    facts.append(f'guides={sum(1 for e in gs if e.get("cat") == "layer_guide")}')
    facts.append(f'moved: {len(moved) - len(moved_flows)} events, {len(moved_flows)} flows; '
                 f'retired {len(retired)} thread metadata events (kept in the report)')
    facts.append(f'notice: {rep["notice"]}')
    return facts


# the jobs: NAME, SRC, OUT and options, tab-separated, one a line; the facts
# (or the failure) of each go to NAME.facts beside the job file, "ok" last
jobs = sys.argv[1]
for line in open(jobs):
    name, src_path, out_path, *opts = line.rstrip('\n').split('\t')
    opts = dict(zip(opts[0::2], opts[1::2]))
    stdout = sys.stdout
    with open(os.path.join(os.path.dirname(jobs), name + '.facts'), 'w') as sys.stdout:
        try:
            print('\n'.join(run(src_path, out_path, out_path + '.compact.json',
                                int(opts.get('--max', '10')), opts.get('--pid'))))
            print('ok')
        except Fail as e:
            print('rcheck: ' + str(e))
        except SystemExit:
            pass  # compact_check.py said why
        except Exception as e:
            print('rcheck: %s: %r' % (type(e).__name__, e))
        finally:
            sys.stdout = stdout
    cache.clear()
    gc.collect()
EOF

# exceed.py SRC MAX...: the refusal for more than MAX lanes, computed here.
cat >exceed.py <<'EOF'
# exceed.py SRC MAX [SRC MAX]...: for each pair, the refusal tr-compact must
# print for the first group that needs more than MAX lanes, computed here:
# the peak by a sweep, the range where MAX+1 slices first overlap.
import os, sys
from decimal import Decimal
sys.path.insert(0, os.path.join(os.environ['ROOT'], 'tests', 'e2e'))
import compact_check as cc
ACT = {'kernel', 'Kernel', 'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset'}
for path, cap in zip(sys.argv[1::2], map(int, sys.argv[2::2])):
    src = cc.events_of(cc.load(path))[0]
    origin = min(cc.exact_ns(e.get('ts')) for e in src if isinstance(e.get('ts'), cc.Num))
    groups = {}
    for i, e in enumerate(src):
        c = e.get('cat')
        if e.get('ph') != 'X' or type(c) is not str or not set(c.split(',')) & ACT:
            continue
        args = e.get('args')
        dev = args.get('device') if isinstance(args, cc.Obj) else None
        s, d = cc.exact_ns(e.get('ts')), cc.exact_ns(e.get('dur'))
        ps, pd = cc.perfetto_ns(e.get('ts')), cc.perfetto_ns(e.get('dur'))
        lo, hi = min(s, Decimal(ps)), max(s + d, Decimal(ps + pd))
        # a zero-length slice reaches half a ns further: nothing may start at it
        groups.setdefault((str(e.get('pid')), str(dev)), []).append(
            (lo, i, hi + (Decimal('0.5') if d == 0 or pd == 0 else 0), hi))
    msg = 'no group needs more than %d lanes' % cap
    for (pid, dev), spans in groups.items():
        spans.sort()
        active, first, peak = [], None, 0
        for lo, i, reach, hi in spans:
            active = [a for a in active if a[0] > lo]
            if len(active) == cap and first is None:
                first = (lo, min([hi] + [a[1] for a in active]))
            active.append((reach, hi))
            peak = max(peak, len(active))
        if first:
            us = lambda ns: f'{ns / 1000:.3f}'
            ms = lambda ns: f'{(ns - origin) / 1000000:.6f}'
            msg = (f'pid {pid}, device {dev}: GPU activity needs {peak} lanes (peak '
                   f'concurrency) but --max-gpu-lanes is {cap}; it first exceeds {cap} from '
                   f'{us(first[0])} to {us(first[1])} us ({ms(first[0])} to {ms(first[1])} '
                   f'ms from the trace start)')
            break
    print(msg)
EOF

# lanes.py OUT...: where the moved events of each OUT went, into OUT.lanes,
# one a line: "NAME Lk" for a slice, "PH id=ID ts=TS Lk" for a flow.
cat >lanes.py <<'EOF'
import json, sys
for path in sys.argv[1:]:
    with open(path + '.lanes', 'w') as f:
        for e in json.load(open(path))['traceEvents']:
            if '_compact_gpu_track' not in (e.get('args') or {}):
                continue
            lane = 'L%d' % (e['tid'] - 0x7E000000 + 1)
            if e['ph'] == 'X':
                print(e['name'], lane, file=f)
            else:
                print('%s id=%s ts=%s %s' % (e['ph'], e['id'], e['ts'], lane), file=f)
EOF

: >queue
# oracle NAME SRC OUT [--max N] [--pid P]: queue the oracles for OUT.
oracle() {
	(IFS='	'; printf '%s\n' "$*") >>"$T/queue"
}

# oracles: run the queue; a case per job.
oracles() {
	python3 "$T/rcheck.py" "$T/queue" >"$T/rcheck.log" 2>&1
	while IFS='	' read -r oname _; do
		if [ "$(tail -n 1 "$T/$oname.facts" 2>/dev/null)" = ok ]; then
			pass "$oname: oracles"
		else
			fail "$oname: oracles" "$(tail -n 3 "$T/$oname.facts" 2>/dev/null)" \
				"$(tail -n 3 "$T/rcheck.log")"
		fi
	done <"$T/queue"
	: >"$T/queue"
}

# fact NAME LINE: the oracles printed exactly LINE for NAME.
fact() {
	if grep -qxF -- "$2" "$T/$1.facts" 2>/dev/null; then
		pass "$1: $(printf %.100s "$2")"
	else
		fail "$1: $(printf %.100s "$2")" \
			"facts: $(grep -v '^compact_check\|^notice' "$T/$1.facts" 2>/dev/null | head -c 700)"
	fi
}

# compact NAME SRC [TR-COMPACT OPTIONS]: SRC through tr-compact into
# NAME.c.json (and NAME.c.json.compact.json); exit 0 expected.
compact() {
	cname=$1 csrc=$2
	shift 2
	expect 0 "$cname: tr-compact $*" \
		"tr-decode '$csrc' | tr-compact $* | tr-encode -o '$T/$cname.c.json'"
}

# refused NAME STATUS SRC OPTIONS TEXT: tr-compact OPTIONS exits STATUS with
# TEXT on stderr, and the whole pipeline then writes nothing.
refused() {
	rname=$1 rstatus=$2 rsrc=$3 ropts=$4 rtext=$5
	expect "$rstatus" "$rname" "tr-decode '$rsrc' | tr-compact $ropts >/dev/null" "$rtext"
	mkdir -p "$T/refused"
	run "tr-decode '$rsrc' | tr-compact $ropts | tr-encode -o '$T/refused/out.json'"
	absent "$rname: nothing written" "$T/refused/out.json" "$T/refused/out.json.compact.json"
	no_temp "$rname: no temporary file" "$T/refused"
}

# ------------------------------------------- hand-made: touching, zero length

# A [0,10) and B [10,20) touch: one lane.  Z is zero-length at 30 and C
# starts at 30: Perfetto would nest C under Z, so two lanes.  D ends at 50
# where the zero-length Z2 starts: one lane; Z3, zero-length at 50 too, may
# not follow Z2.
cat >touch.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"A","pid":0,"tid":7,"ts":0,"dur":10,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"B","pid":0,"tid":8,"ts":10,"dur":10,"args":{"device":0,"stream":8}},
{"ph":"X","cat":"kernel","name":"Z","pid":0,"tid":7,"ts":30,"dur":0,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"C","pid":0,"tid":8,"ts":30,"dur":5,"args":{"device":0,"stream":8}},
{"ph":"X","cat":"gpu_memcpy","name":"D","pid":0,"tid":7,"ts":40,"dur":10,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"gpu_memset","name":"Z2","pid":0,"tid":8,"ts":50,"dur":0,"args":{"device":0,"stream":8}},
{"ph":"X","cat":"kernel","name":"Z3","pid":0,"tid":7,"ts":50,"dur":0,"args":{"device":0,"stream":7}},
{"name":"thread_name","ph":"M","pid":0,"tid":7,"args":{"name":"stream 7 "}}
]}
EOF
compact touch "$T/touch.json"
oracle touch "$T/touch.json" "$T/touch.c.json"

# ----------------------------------------------------- hand-made: flow binding

# CUDA-graph style: K1, K2, K3 share correlation 5 on stream 7, each with its
# own flow end at its start; X8 on stream 8 pushes K1 to lane 2.  Q and P
# start together on stream 7 with correlations 11 and 10.
cat >flows.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":50,"dur":5,"args":{"correlation":5}},
{"ph":"s","cat":"ac2g","name":"ac2g","id":5,"pid":1,"tid":1,"ts":50},
{"ph":"X","cat":"kernel","name":"X8","pid":0,"tid":8,"ts":95,"dur":20,"args":{"device":0,"stream":8,"correlation":4}},
{"ph":"X","cat":"kernel","name":"K1","pid":0,"tid":7,"ts":100,"dur":10,"args":{"device":0,"stream":7,"correlation":5}},
{"ph":"X","cat":"kernel","name":"K2","pid":0,"tid":7,"ts":120,"dur":10,"args":{"device":0,"stream":7,"correlation":5}},
{"ph":"X","cat":"kernel","name":"K3","pid":0,"tid":7,"ts":140,"dur":10,"args":{"device":0,"stream":7,"correlation":5}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":5,"pid":0,"tid":7,"ts":140,"bp":"e"},
{"ph":"f","cat":"ac2g","name":"ac2g","id":5,"pid":0,"tid":7,"ts":100,"bp":"e"},
{"ph":"f","cat":"ac2g","name":"ac2g","id":5,"pid":0,"tid":7,"ts":120,"bp":"e"},
{"ph":"X","cat":"kernel","name":"Q","pid":0,"tid":7,"ts":200,"dur":5,"args":{"device":0,"stream":7,"correlation":11}},
{"ph":"X","cat":"kernel","name":"P","pid":0,"tid":7,"ts":200,"dur":10,"args":{"device":0,"stream":7,"correlation":10}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":10,"pid":0,"tid":7,"ts":200,"bp":"e"},
{"ph":"f","cat":"ac2g","name":"ac2g","id":11,"pid":0,"tid":7,"ts":200,"bp":"e"}
]}
EOF
compact flows "$T/flows.json"
oracle flows "$T/flows.json" "$T/flows.c.json"

python3 lanes.py touch.c.json flows.c.json
printf '%s\n' "A L1" "B L1" "Z L1" "C L2" "D L1" "Z2 L1" "Z3 L2" >touch.want
same "touch: touching slices share a lane, not after a zero-length one" touch.want touch.c.json.lanes
printf '%s\n' "X8 L1" "K1 L2" "K2 L1" "K3 L1" \
	"f id=5 ts=140 L1" "f id=5 ts=100 L2" "f id=5 ts=120 L1" "Q L1" "P L2" \
	"f id=10 ts=200 L2" "f id=11 ts=200 L1" >flows.want
same "flows: graph flows bind to the kernel at their ts, equal starts by correlation" \
	flows.want flows.c.json.lanes

# a flow whose correlation has no GPU event there
cat >nomatch.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"K1","pid":0,"tid":7,"ts":100,"dur":10,"args":{"device":0,"stream":7,"correlation":5}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":5,"pid":0,"tid":7,"ts":100,"bp":"e"},
{"ph":"f","cat":"ac2g","name":"ac2g","id":6,"pid":0,"tid":7,"ts":100,"bp":"e"}
]}
EOF
refused "flow matching no kernel" 1 "$T/nomatch.json" "" \
	"tr-compact: event 2: flow (id 6, ts 100) on pid 0 tid 7 matches no GPU event"

# a flow starting exactly at two kernels of its correlation
cat >twice.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"K1","pid":0,"tid":7,"ts":300,"dur":10,"args":{"device":0,"stream":7,"correlation":20}},
{"ph":"X","cat":"kernel","name":"K2","pid":0,"tid":7,"ts":300,"dur":5,"args":{"device":0,"stream":7,"correlation":20}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":20,"pid":0,"tid":7,"ts":300,"bp":"e"}
]}
EOF
refused "flow at two kernels of its correlation" 1 "$T/twice.json" "" \
	"tr-compact: event 2: flow (id 20, ts 300) on pid 0 tid 7 starts exactly at several GPU events"

# ------------------------------------------------------------------ refusals

refused "already compacted input" 1 "$T/flows.c.json" "" \
	"already compacted (_compact_gpu_track); start from the original trace"

cat >instant.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"K1","pid":0,"tid":7,"ts":300,"dur":10,"args":{"device":0,"stream":7}},
{"ph":"i","cat":"gpu_instant","name":"mark","pid":0,"tid":7,"ts":305,"s":"t"},
{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":290,"dur":30}
]}
EOF
refused "instant on a moved GPU track" 1 "$T/instant.json" "" \
	"tr-compact: event 1: on GPU track pid 0 tid 7, which is moved to synthetic lanes, but it is neither GPU activity, a GPU scope, a flow nor thread metadata, so it cannot be placed (1 such events); use --pid to leave this pid alone"
# refused_exactly NAME SRC OPTIONS LINE: tr-compact OPTIONS exits 1 with
# exactly LINE on stderr; through tr-encode, nothing is written.
refused_exactly() {
	expect 1 "$1" "tr-decode '$2' | tr-compact $3 >/dev/null" && stderr_is "$1: the message" "$4"
	mkdir -p "$T/refused"
	run "tr-decode '$2' | tr-compact $3 | tr-encode -o '$T/refused/out.json'"
	absent "$1: nothing written" "$T/refused/out.json" "$T/refused/out.json.compact.json"
}

# ------------------------------------------------------- nothing to compact

NOTHING="(X events whose cat includes kernel, gpu_memcpy, gpu_memset, Kernel, Memcpy or Memset) and no GPU scopes (gpu_user_annotation)"
# --pid of a process without GPU work: refused, naming where the GPU work is
refused_exactly "--pid 1 without GPU work in pid 1" "$T/instant.json" "--pid 1" \
	"tr-compact: nothing to compact: pid 1 has no GPU activity or GPU scopes; GPU activity is in pid 0"
cat >cpuonly.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":290,"dur":30},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":295,"dur":3}
]}
EOF
refused_exactly "a CPU-only stream" "$T/cpuonly.json" "" \
	"tr-compact: nothing to compact: the stream has no GPU activity $NOTHING; no unrecognised device-like categories seen either"
refused_exactly "--pid 1 of a CPU-only stream" "$T/cpuonly.json" "--pid 1" \
	"tr-compact: nothing to compact: pid 1 has no GPU activity and neither has any other pid $NOTHING; no unrecognised device-like categories seen either"
printf '{"traceEvents":[]}' >noevents.json
refused_exactly "a stream without events" "$T/noevents.json" "" \
	"tr-compact: nothing to compact: the stream has no GPU activity $NOTHING; no unrecognised device-like categories seen either"
# MTIA-like: the device's work under mtia_* categories, no kernel
tr-gen --layers 2 --passes 1 --concurrency 2 -o mtia-src.json
python3 - <<'EOF'
import json
doc = json.load(open('mtia-src.json'))
ren = {'kernel': 'mtia_ccp_events', 'gpu_memcpy': 'mtia_ccp_events',
       'gpu_memset': 'mtia_ccp_events', 'cuda_runtime': 'mtia_runtime'}
evs = []
for e in doc['traceEvents']:
    if e.get('cat') == 'gpu_user_annotation':
        continue
    if e.get('cat') in ren:
        e['cat'] = ren[e['cat']]
    evs.append(e)
doc['traceEvents'] = evs
json.dump(doc, open('mtia.json', 'w'))
EOF
MTIA_MSG="tr-compact: nothing to compact: the stream has no GPU activity $NOTHING; unrecognised device-like categories seen: mtia_runtime, mtia_ccp_events (tr-compact does not move them)"
refused_exactly "an MTIA-like stream" "$T/mtia.json" "" "$MTIA_MSG"
mkdir -p track-mtia
expect 1 "track: an MTIA-like trace is refused" \
	"tr-compact-track --trace '$T/mtia.json' --output '$T/track-mtia/m.json'" "$MTIA_MSG" &&
	grep -qxF "tr-compact-track: failed (exit status 1); nothing was written" "$T/err" &&
	pass "track: an MTIA-like trace: nothing was written, it says" ||
	fail "track: an MTIA-like trace: nothing was written, it says" "$(cat "$T/err")"
absent "track: an MTIA-like trace writes nothing" "$T/track-mtia/m.json" \
	"$T/track-mtia/m.json.compact.json"
if [ ! -d "$TRACES" ]; then
	skip "nothing to compact: MTIA traces of $TRACES" "$TRACES is absent"
else
	nmtia=0
	for f in "$TRACES"/*[Mm][Tt][Ii][Aa]*.json*; do
		[ -f "$f" ] || continue
		nmtia=$((nmtia + 1))
		expect 1 "nothing to compact: $(basename "$f")" "tr-decode '$f' | tr-compact >/dev/null" \
			"tr-compact: nothing to compact: the stream has no GPU activity" &&
			grep -qF "unrecognised device-like categories seen: " "$T/err" &&
			grep -qF "mtia_" "$T/err" && pass "$(basename "$f"): names its mtia_ categories" ||
			fail "$(basename "$f"): names its mtia_ categories" "$(cat "$T/err")"
	done
	[ "$nmtia" -gt 0 ] || skip "nothing to compact: MTIA traces of $TRACES" \
		"none there (see PROFILE.md); the generated MTIA-like trace above stands in"
fi

# ------------------------------------------- GPU events without pid or tid

cat >notid.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"K1","pid":0,"tid":7,"ts":300,"dur":10,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"cpu_op","name":"op","pid":1,"ts":290,"dur":30},
{"ph":"X","cat":"kernel","name":"K2","pid":0,"ts":320,"dur":10,"args":{"device":0,"stream":7}}
]}
EOF
refused_exactly "a kernel without tid" "$T/notid.json" "" \
	"tr-compact: event 2: GPU activity without tid (pid 0): its stream is unknown, so it cannot be placed on a lane"
printf '{"traceEvents":[{"ph":"X","cat":"gpu_memcpy","name":"M","tid":7,"ts":1,"dur":1}]}' >nopid.json
refused_exactly "a copy without pid" "$T/nopid.json" "" \
	"tr-compact: event 0: GPU activity without pid (tid 7): its process is unknown, so it cannot be placed on a lane"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"K","ts":1,"dur":1}]}' >noids.json
refused_exactly "a kernel without pid and tid" "$T/noids.json" "" \
	"tr-compact: event 0: GPU activity without pid and tid: its device and stream are unknown, so it cannot be placed on a lane"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"K","pid":0,"tid":7,"ts":1,"dur":1},{"ph":"X","cat":"gpu_user_annotation","name":"layer_0","pid":0,"ts":0,"dur":3}]}' >scope-notid.json
refused_exactly "a GPU scope without tid" "$T/scope-notid.json" "" \
	"tr-compact: event 1: GPU scope (gpu_user_annotation) without tid (pid 0): its stream is unknown, so it cannot be placed on a lane"
# --pid 1: a tid-less kernel of pid 0 is not in the selection
cat >notid-pid.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"K1","pid":1,"tid":7,"ts":300,"dur":10,"args":{"device":1,"stream":7}},
{"ph":"X","cat":"kernel","name":"K2","pid":0,"ts":320,"dur":10,"args":{"device":0,"stream":7}}
]}
EOF
compact notid-pid1 "$T/notid-pid.json" --pid 1
oracle notid-pid1 "$T/notid-pid.json" "$T/notid-pid1.c.json" --pid 1

# ------------------------------------- scopes of two devices in one pid

# one pid, two devices: two scope processes, named by device
cat >scope2.json <<'EOF'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"A","pid":0,"tid":7,"ts":100,"dur":10,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"B","pid":0,"tid":8,"ts":100,"dur":10,"args":{"device":1,"stream":8}},
{"ph":"X","cat":"gpu_user_annotation","name":"layer_0","pid":0,"tid":7,"ts":99,"dur":12,"args":{"device":0}},
{"ph":"X","cat":"gpu_user_annotation","name":"layer_0","pid":0,"tid":8,"ts":99,"dur":12,"args":{"device":1}},
{"ph":"X","cat":"gpu_user_annotation","name":"solo","pid":5,"tid":7,"ts":99,"dur":12,"args":{"device":5}},
{"ph":"X","cat":"kernel","name":"C","pid":5,"tid":7,"ts":100,"dur":10,"args":{"device":5,"stream":7}}
]}
EOF
expect 0 "scopes of two devices: compact" \
	"tr-decode '$T/scope2.json' | tr-compact --summary '$T/scope2.sum' | tr-encode -o '$T/scope2.c.json'"
oracle scope2 "$T/scope2.json" "$T/scope2.c.json"
printf '%s\n' "pid 0 device 0: 1 original streams -> 1 synthetic lanes (1 kernels, 1 GPU events)" \
	"pid 0 device 1: 1 original streams -> 1 synthetic lanes (1 kernels, 1 GPU events)" \
	"pid 0 device 0 GPU scopes: 1 original streams -> 1 scope lanes in pid $SCOPE1" \
	"pid 0 device 1 GPU scopes: 1 original streams -> 1 scope lanes in pid $((SCOPE1 + 1))" \
	"pid 5 GPU scopes: 1 original streams -> 1 scope lanes in pid $((SCOPE1 + 2))" \
	"pid 5 device 5: 1 original streams -> 1 synthetic lanes (1 kernels, 1 GPU events)" >scope2.want
head -n 6 scope2.sum >scope2.got
same "scopes of two devices: the summary names them by device" scope2.want scope2.got
# --summary FILE appears whole or not at all and never replaces a file.
cp scope2.sum scope2.sum.before
expect 2 "--summary: an existing file is refused before anything is read" \
	"tr-compact --summary '$T/scope2.sum' </dev/null" "scope2.sum: exists; refusing to overwrite it"
same "--summary: the existing file is unchanged" scope2.sum.before scope2.sum
mkdir -p "$T/sumdir"
expect 1 "--summary: a refused stream" \
	"printf '{\"@tr\":\"head\"\\n' | tr-compact --summary '$T/sumdir/s.txt'" "malformed head record"
absent "--summary: no summary for a refused stream" "$T/sumdir/s.txt"
no_temp "--summary: no temporary file left" "$T/sumdir"
expect 0 "--summary /dev/stderr is written directly" \
	"tr-decode '$T/scope2.json' | tr-compact --summary /dev/stderr >/dev/null" \
	"pid 5 GPU scopes: 1 original streams -> 1 scope lanes in pid"

# ---------------------------------------------- ROCm: GPU work on stream 0

# HIP's default stream is tid 0, where Kineto also writes the GPU process's
# process_name, process_labels and process_sort_index: those stay, the
# stream's activity moves
tr-gen --rocm --devices 2 --concurrency 2 --streams 3 -o rocm.json
compact rocm "$T/rocm.json"
oracle rocm "$T/rocm.json" "$T/rocm.c.json"
cat >tid0.py <<'EOF'
# tid0.py FILE...: per file, the process-scoped metadata on tid 0 of the GPU
# pids (as text), and how many other events are on those tracks
import json, sys
for path in sys.argv[1:]:
    evs = json.load(open(path))['traceEvents']
    gpu = sorted({e['pid'] for e in evs if e.get('cat') == 'kernel'})
    meta = [json.dumps(e, sort_keys=True) for e in evs if e.get('pid') in gpu and
            e.get('tid') == 0 and e.get('ph') == 'M' and e['name'].startswith('process_')]
    other = sum(1 for e in evs if e.get('pid') in gpu and e.get('tid') == 0 and
                not (e.get('ph') == 'M' and e['name'].startswith('process_')))
    with open(path + '.tid0', 'w') as f:
        print('\n'.join(meta), file=f)
    with open(path + '.other', 'w') as f:
        print(len(gpu), len(meta), other, file=f)
EOF
python3 tid0.py rocm.json rocm.c.json
same "rocm: process metadata on tid 0 stays as it is" rocm.json.tid0 rocm.c.json.tid0
read -r ngpu nmeta nsrc <rocm.json.other
read -r _ _ nout <rocm.c.json.other
if [ "$ngpu" = 2 ] && [ "$nmeta" = 6 ] && [ "$nsrc" -gt 50 ] && [ "$nout" = 0 ]; then
	pass "rocm: the stream-0 activity moves ($nsrc events), its metadata stays ($nmeta)"
else
	fail "rocm: the stream-0 activity moves, its metadata stays" "$ngpu $nmeta $nsrc $nout"
fi
if grep -q '"tid": 0,' rocm.json && grep -q '"name": "hipLaunchKernel"' rocm.json &&
	grep -q 'rotary_embedding_kernel<__hip_bfloat16, true>' rocm.json; then
	pass "tr-gen --rocm: stream 0, hip* calls, HIP kernel names"
else
	fail "tr-gen --rocm: stream 0, hip* calls, HIP kernel names"
fi
mkdir -p track-rocm
expect 0 "rocm: tr-compact-track, verified" \
	"tr-compact-track --trace '$T/rocm.json' --output '$T/track-rocm/r.json'" &&
	grep -qxF "verification: verified (tr-verify: source identity, exact reversal, render, counts)" "$T/out" &&
	pass "rocm: tr-compact-track says verified" || fail "rocm: tr-compact-track says verified" "$(cat "$T/out")"
expect 0 "rocm: tr-layer-track --max-gpu-lanes 10, verified" \
	"tr-layer-track --trace '$T/rocm.json' --output '$T/track-rocm/g.json' \
	--anchor-regex 'rotary_embedding_kernel<__hip_bfloat16, true>' --num-layers 4 \
	--anchor-offset 0 --passes 2 --pid 0 --phase target --evidence test --max-gpu-lanes 10" &&
	grep -qxF "verification: verified (tr-verify: source identity, exact reversal, render, counts, placement)" "$T/out" &&
	pass "rocm: tr-layer-track says verified" || fail "rocm: tr-layer-track says verified" "$(cat "$T/out")"
if python3 "$ROOT/tests/e2e/compact_check.py" "$T/rocm.json" "$T/track-rocm/g.json" \
	"$T/track-rocm/g.json.layers.json" >"$T/cc.out" 2>&1; then
	pass "rocm: guides and lanes: the compaction oracle"
else
	fail "rocm: guides and lanes: the compaction oracle" "$(tail -n 3 "$T/cc.out")"
fi

# ------------------------------------------------- the scaling shapes

# tr-gen's scaling shapes (make bench): many one-kernel groups
tr-gen --scale-devices 40 -o sd40.json
compact sd40 "$T/sd40.json"
oracle sd40 "$T/sd40.json" "$T/sd40.c.json"
tr-gen --scale-pids 40 --ts-format int --compact -o sp40.json
compact sp40 "$T/sp40.json"
oracle sp40 "$T/sp40.json" "$T/sp40.c.json"
expect 2 "tr-gen: --scale-devices with --scale-pids" "tr-gen --scale-devices 2 --scale-pids 2" \
	"tr-gen: --scale-devices and --scale-pids exclude each other"
expect 2 "tr-gen: --scale-pids 0" "tr-gen --scale-pids 0" \
	"tr-gen: --scale-pids: invalid value '0' (allowed 1 to 10000000)"

expect 2 "TMPDIR that does not exist" \
	"tr-decode '$T/touch.json' | TMPDIR='$T/nope' tr-compact >/dev/null" \
	"tr-compact: temporary file in $T/nope: No such file or directory"
mkdir -p nope-out
run "tr-decode '$T/touch.json' | TMPDIR='$T/nope' tr-compact | tr-encode -o '$T/nope-out/o.json'"
absent "TMPDIR that does not exist: nothing written" "$T/nope" "$T/nope-out/o.json" \
	"$T/nope-out/o.json.compact.json"

for n in 0 11 x; do
	expect 2 "--max-gpu-lanes $n is a usage error" "tr-compact --max-gpu-lanes $n </dev/null" \
		"tr-compact: --max-gpu-lanes: invalid value '$n' (allowed 1 to 10)"
done
expect 2 "an unknown option is a usage error" "tr-compact --lanes 3 </dev/null" "usage: tr-compact"

# --------------------------------------------------------------- generated

# 300 streams, 4 at a time: 4 lanes, also under --max-gpu-lanes 4, not 3
tr-gen --streams 300 --concurrency 4 --layers 20 -o g300.json
compact g300 "$T/g300.json"
oracle g300 "$T/g300.json" "$T/g300.c.json"
compact g300-4 "$T/g300.json" --max-gpu-lanes 4
oracle g300-4 "$T/g300.json" "$T/g300-4.c.json" --max 4

# three devices: one group per device, each with its own lanes, and scopes
# in three new processes
tr-gen --devices 3 --concurrency 2 --streams 3 -o g3.json
compact g3 "$T/g3.json"
oracle g3 "$T/g3.json" "$T/g3.c.json"

# concurrency 6: 6 lanes, refused under --max-gpu-lanes 5 (below)
tr-gen --concurrency 6 -o c6.json
compact c6 "$T/c6.json" --max-gpu-lanes 6
oracle c6 "$T/c6.json" "$T/c6.c.json" --max 6

# --pid 1 of two devices: only pid 1 moves
tr-gen --devices 2 --concurrency 2 --streams 2 -o d2.json
compact d2-pid1 "$T/d2.json" --pid 1
oracle d2-pid1 "$T/d2.json" "$T/d2-pid1.c.json" --pid 1

# integer timestamps
tr-gen --ts-format int --concurrency 3 --streams 5 --passes 3 -o gint.json
compact gint "$T/gint.json"
oracle gint "$T/gint.json" "$T/gint.c.json"

# the CPU threads' names first, the streams' last: the names before the
# first event that moves go out while the lanes are planned, as they are;
# the streams' names still retire
python3 - gint.json mfirst.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d['traceEvents']
gpu = {(e['pid'], e['tid']) for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')}
cpu_names = [e for e in ev if e.get('ph') == 'M' and 'tid' in e and (e['pid'], e['tid']) not in gpu]
assert cpu_names
d['traceEvents'] = cpu_names + [e for e in ev if not any(e is c for c in cpu_names)]
json.dump(d, open(sys.argv[2], 'w'))
EOF
compact mfirst "$T/mfirst.json"
oracle mfirst "$T/mfirst.json" "$T/mfirst.c.json"

# the lane cap: the refusals, with the peak and time range computed here
python3 exceed.py g300.json 3 c6.json 5 >exceed.out
want=$(sed -n 2p exceed.out)
case $want in
"pid 0, device 0: GPU activity needs 6 lanes (peak concurrency) but --max-gpu-lanes is 5; it first exceeds 5 from "*" to "*" us ("*" to "*" ms from the trace start)")
	pass "c6: the refusal oracle" ;;
*) fail "c6: the refusal oracle" "$want" ;;
esac
refused "concurrency 6 over --max-gpu-lanes 5" 1 "$T/c6.json" "--max-gpu-lanes 5" \
	"tr-compact: $want; cut a time window around the part you need"
refused "300 streams into 3 lanes" 1 "$T/g300.json" "--max-gpu-lanes 3" \
	"tr-compact: $(sed -n 1p exceed.out); cut"
# the events before the first one the plan may change go out while the
# plan is made: before a refusal, a prefix of the head and those events
# (whole writer blocks of them; never a later event, never the tail)
tr-gen --shape dense --target-bytes 20M -o d20.json
first=$(python3 - d20.json <<'EOF'
import json, sys
gpu = {'kernel', 'Kernel', 'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset',
       'gpu_user_annotation'}
ev = json.load(open(sys.argv[1]))['traceEvents']
def is_gpu(e):
    return e.get('ph') == 'X' and bool(gpu & set(str(e.get('cat', '')).split(',')))
moved = {(e.get('pid'), e.get('tid')) for e in ev if is_gpu(e)}
print(min(i for i, e in enumerate(ev) if is_gpu(e) or
          ((e.get('pid'), e.get('tid')) in moved and
           (e.get('ph') in ('s', 't', 'f') or
            (e.get('ph') == 'M' and e.get('name') in ('thread_name', 'thread_sort_index'))))))
EOF
)
tr-decode d20.json | tr-compact --max-gpu-lanes 2 >d20.partial 2>d20.err
RC=$?
tr-decode d20.json | head -n $((first + 1)) >d20.before
n=$(wc -c <d20.partial)
if [ "$RC" = 1 ] && grep -q '^tr-compact: pid 0, device 0: GPU activity needs 3 lanes' d20.err &&
   [ "$n" -gt 4000000 ] && head -c "$n" d20.before | cmp -s - d20.partial; then
	pass "refusal after the plan: $n bytes of the $first events before the first one moved went out"
else
	fail "refusal after the plan: a prefix of the events before the first one moved" \
		"exit $RC, first $first, $n bytes out: $(head -c 300 d20.err)"
fi
rm -f d20.json d20.partial d20.before d20.err

# ---------------------------------------------------------- tr-compact-track

cp d2.json d2.copy.json
: >exists.json
expect 2 "track: an existing output is refused" \
	"tr-compact-track --trace '$T/d2.json' --output '$T/exists.json'" \
	"exists.json: exists; refusing to overwrite it"
if [ -f exists.json ] && [ ! -s exists.json ]; then
	pass "track: the existing output is untouched"
else
	fail "track: the existing output is untouched"
fi
absent "track: no report beside an existing output" "$T/exists.json.compact.json"
: >r.json.compact.json
expect 2 "track: an existing report is refused" \
	"tr-compact-track --trace '$T/d2.json' --output '$T/r.json'" \
	"r.json.compact.json: exists; refusing to overwrite it"
absent "track: no output beside an existing report" "$T/r.json"
expect 2 "track: the source as output is refused" \
	"tr-compact-track --trace '$T/d2.json' --output '$T/d2.json'" "the output is the source trace"
expect 2 "track: the source under another name is refused" \
	"tr-compact-track --trace '$T/d2.json' --output '$T/./d2.json'" "the output is the source trace"
same "track: the source is unchanged" "$T/d2.copy.json" "$T/d2.json"
absent "track: no report for the source" "$T/d2.json.compact.json"
expect 2 "track: --max-gpu-lanes 11" \
	"tr-compact-track --trace '$T/d2.json' --output '$T/m11.json' --max-gpu-lanes 11" \
	"invalid value '11'"
absent "track: --max-gpu-lanes 11 writes nothing" "$T/m11.json" "$T/m11.json.compact.json"
expect 2 "track: --output is required" "tr-compact-track --trace '$T/d2.json'" \
	"--trace and --output are required"
mkdir -p track-c6
expect 1 "track: over the lane cap" \
	"tr-compact-track --trace '$T/c6.json' --output '$T/track-c6/c6.json' --max-gpu-lanes 5" \
	"nothing was written"
absent "track: over the lane cap writes nothing" "$T/track-c6/c6.json" \
	"$T/track-c6/c6.json.compact.json"
no_temp "track: over the lane cap leaves no temporary file" "$T/track-c6"

expect 0 "track: two devices" "tr-compact-track --trace '$T/d2.json' --output '$T/d2.c.json'"
cp "$T/out" track.out
oracle track-d2 "$T/d2.json" "$T/d2.c.json"

# layer guides made by tr-layer-track are kept as they are (the oracles
# compare the guide tracks)
ANCHOR='flash_fwd_kernel<Flash_fwd_kernel_traits<128'
tr-gen --concurrency 2 --streams 4 -o g2.json
expect 0 "guides: tr-layer-track" "tr-layer-track --trace '$T/g2.json' --output '$T/g2.g.json' \
	--anchor-regex '$ANCHOR' --num-layers 4 --anchor-offset 0 --passes 2 --phase target --evidence test"
expect 0 "guides: tr-compact-track beside them" \
	"tr-compact-track --trace '$T/g2.g.json' --output '$T/g2.c.json'"
oracle guides-g2 "$T/g2.g.json" "$T/g2.c.json"
# --pid 1 leaves pid 0, with its guides, alone
expect 0 "guides: tr-layer-track --pid 0" "tr-layer-track --trace '$T/d2.json' --output '$T/d2.g.json' \
	--pid 0 --anchor-regex '$ANCHOR' --num-layers 4 --anchor-offset 0 --passes 2 --phase target --evidence test"
expect 0 "guides: --pid 1 beside guides in pid 0" \
	"tr-compact-track --trace '$T/d2.g.json' --output '$T/d2.g1.json' --pid 1"
oracle guides-d2-pid1 "$T/d2.g.json" "$T/d2.g1.json" --pid 1

# a refused compaction: tr-layer-track says that the guides alone would
# succeed and prints that command, which then works
mkdir -p lt-c6
expect 1 "tr-layer-track: compaction refused" "tr-layer-track --trace '$T/c6.json' \
	--output '$T/lt-c6/c6.json' --anchor-regex '$ANCHOR' --num-layers 4 --anchor-offset 0 \
	--passes 2 --phase target --evidence \"it's a test\" --max-gpu-lanes 5" \
	"tr-layer-track: failed (exit status 1); nothing was written"
tail -n 2 "$T/err" >lt-c6.got
printf '%s\n' "tr-layer-track: the compaction was refused, but the guides alone would succeed:" \
	"  tr-layer-track --trace $T/c6.json --output $T/lt-c6/c6.json --anchor-regex 'flash_fwd_kernel<Flash_fwd_kernel_traits<128' --num-layers 4 --anchor-offset 0 --passes 2 --phase target --evidence 'it'\\''s a test'" >lt-c6.want
same "tr-layer-track: the command without --max-gpu-lanes" lt-c6.want lt-c6.got
absent "tr-layer-track: compaction refused: nothing written" "$T/lt-c6/c6.json" \
	"$T/lt-c6/c6.json.layers.json"
expect 0 "tr-layer-track: the printed command succeeds" "$(tail -n 1 lt-c6.got)" &&
	grep -qxF "verification: verified (tr-verify: source identity, preservation, render, counts, placement)" "$T/out" &&
	pass "tr-layer-track: the printed command is verified" ||
	fail "tr-layer-track: the printed command is verified" "$(tail -n 3 "$T/out")"
# when the guides fail too, no such advice
expect 1 "tr-layer-track: no anchor and over the lane cap" "tr-layer-track --trace '$T/c6.json' \
	--output '$T/lt-c6/x.json' --anchor-regex no_such_kernel --num-layers 4 --anchor-offset 0 \
	--phase target --evidence test --max-gpu-lanes 5" "nothing was written"
if grep -qF "would succeed" "$T/err"; then
	fail "tr-layer-track: no guides-only advice when the guides fail too" "$(cat "$T/err")"
else
	pass "tr-layer-track: no guides-only advice when the guides fail too"
fi

# guides that are not tr-guides' own: in another pid, overlapping, no args
python3 - <<'EOF'
import json
for how in ('pid', 'overlap', 'args'):
    doc = json.load(open('g2.g.json'))
    g = [e for e in doc['traceEvents'] if e.get('cat') == 'layer_guide']
    if how == 'pid':
        g[1]['pid'] = 424242
    elif how == 'overlap':
        g[1]['ts'] = g[0]['ts'] + 1
    else:
        del g[2]['args']
    json.dump(doc, open('bad-%s.json' % how, 'w'))
EOF
for how in pid overlap args; do
	case $how in
	pid) why="sits in another process than the GPU activity" ;;
	overlap) why="overlaps another guide slice" ;;
	args) why="lacks the layer_guide args (layer_id, pass_index, boundary_kind)" ;;
	esac
	mkdir -p "bad-$how"
	expect 1 "guides: $how refused" \
		"tr-compact-track --trace '$T/bad-$how.json' --output '$T/bad-$how/out.json'" "$why"
	if grep -qF "; regenerate the guides from the original trace with tr-layer-track" "$T/err"; then
		pass "guides: $how: regenerate them"
	else
		fail "guides: $how: regenerate them" "$(head -c 400 "$T/err")"
	fi
	absent "guides: $how writes nothing" "$T/bad-$how/out.json" "$T/bad-$how/out.json.compact.json"
done

# ------------------------------------------------- the oracles and their facts

oracles
fact touch "group 0 0 activity streams=2 string_streams=0 kernel_streams=2 lanes=2 kernels=5 events=7 tids=$LANE1,$LANE2"
fact flows "flows=5 fanout=3"
fact g300 "group 0 0 activity streams=300 string_streams=0 kernel_streams=298 lanes=4 kernels=486 events=490 tids=$LANE1,$LANE2,$LANE3,$LANE4"
fact g300-4 "group 0 0 activity streams=300 string_streams=0 kernel_streams=298 lanes=4 kernels=486 events=490 tids=$LANE1,$LANE2,$LANE3,$LANE4"
for d in 0 1 2; do
	fact g3 "group $d $d activity streams=3 string_streams=0 kernel_streams=3 lanes=2 kernels=86 events=90 tids=$LANE1,$LANE2"
	fact g3 "group $d null scope streams=3 string_streams=0 kernel_streams=0 lanes=1 kernels=0 events=8 tids=$LANE1 process=$((SCOPE1 + d))"
	fact g3 "scope_process $((SCOPE1 + d)) GPU scopes (original PID $d)"
done
fact c6 "group 0 0 activity streams=6 string_streams=0 kernel_streams=6 lanes=6 kernels=118 events=122 tids=$LANE1,$LANE2,$LANE3,$LANE4,2113929220,2113929221"
fact d2-pid1 "group 1 1 activity streams=2 string_streams=0 kernel_streams=2 lanes=2 kernels=86 events=90 tids=$LANE1,$LANE2"
if grep -q '^group 0 ' d2-pid1.facts; then
	fail "--pid 1: pid 0 is not compacted" "$(grep '^group 0 ' d2-pid1.facts)"
else
	pass "--pid 1: pid 0 is not compacted"
fi
fact gint "group 0 0 activity streams=5 string_streams=0 kernel_streams=5 lanes=3 kernels=141 events=147 tids=$LANE1,$LANE2,$LANE3"
fact guides-g2 "guides=8"
fact guides-d2-pid1 "guides=8"
fact notid-pid1 "group 1 1 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=1 events=1 tids=$LANE1"
fact scope2 "scope_process $SCOPE1 GPU scopes (original PID 0, device 0)"
fact scope2 "scope_process $((SCOPE1 + 1)) GPU scopes (original PID 0, device 1)"
fact scope2 "scope_process $((SCOPE1 + 2)) GPU scopes (original PID 5)"
for d in 0 1; do
	fact rocm "group $d $d activity streams=3 string_streams=0 kernel_streams=3 lanes=2 kernels=86 events=90 tids=$LANE1,$LANE2"
	fact rocm "group $d null scope streams=3 string_streams=0 kernel_streams=0 lanes=1 kernels=0 events=8 tids=$LANE1 process=$((SCOPE1 + d))"
done
# one pid, 40 devices: 40 groups whose lanes take successive tids; 40 pids:
# each its own first lane tid
i=0
while [ $i -lt 40 ]; do
	fact sd40 "group 0 $i activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=1 events=1 tids=$((LANE1 + i))"
	fact sp40 "group $i $i activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=1 events=1 tids=$LANE1"
	i=$((i + 1))
done

# what tr-compact-track printed
for line in "output: $T/d2.c.json" "report: $T/d2.c.json.compact.json" \
	"pid 0 device 0: 2 original streams -> 2 synthetic lanes (86 kernels, 90 GPU events)" \
	"pid 1 device 1: 2 original streams -> 2 synthetic lanes (86 kernels, 90 GPU events)" \
	"pid 0 GPU scopes: 2 original streams -> 1 scope lanes in pid $SCOPE1" \
	"pid 1 GPU scopes: 2 original streams -> 1 scope lanes in pid $((SCOPE1 + 1))" \
	"$(grep '^moved: ' track-d2.facts)" "$(grep '^notice: ' track-d2.facts)"; do
	if [ -n "$line" ] && grep -qxF -- "$line" track.out; then
		pass "track prints: $(printf %.70s "$line")"
	else
		fail "track prints: $(printf %.70s "$line")" "output: $(head -c 600 track.out)"
	fi
done
case $(grep '^notice: ' track.out) in
"notice: Compact view: "*"Lanes are not CUDA streams"*"Use the original trace"*)
	pass "track: the notice" ;;
*) fail "track: the notice" "$(grep '^notice' track.out)" ;;
esac

# --------------------------------------------------------------- real traces

if [ ! -d "$TRACES" ]; then
	skip "compact: real traces" "$TRACES is absent: no compaction of real traces"
else
	# the expected facts of the known traces: FILE<TAB>LINE
	cat >known.tsv <<'EOF'
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz	group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=1465 events=1707 tids=2113929216
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz	group 0 null scope streams=1 string_streams=0 kernel_streams=0 lanes=1 kernels=0 events=1 tids=2113929216 process=2130706432
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz	flows=1707 fanout=1
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz	same_stream_overlaps=1198 partial_kernel_pairs=0 kernels=1465
control.json.gz	group 3 3 activity streams=4 string_streams=0 kernel_streams=3 lanes=3 kernels=8568 events=9450 tids=2113929216,2113929217,2113929218
control.json.gz	flows=9450 fanout=1
control.json.gz	same_stream_overlaps=0 partial_kernel_pairs=0 kernels=8568
eager_trace.json.gz	group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=2 kernels=768 events=929 tids=2113929216,2113929217
eager_trace.json.gz	group 0 null scope streams=1 string_streams=0 kernel_streams=0 lanes=2 kernels=0 events=3 tids=2113929216,2113929217 process=2130706432
eager_trace.json.gz	flows=929 fanout=1
eager_trace.json.gz	same_stream_overlaps=1005 partial_kernel_pairs=74 kernels=768
gaunernst_bert-small-uncased__1016001.json.gz	group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=60 events=61 tids=2113929216
gaunernst_bert-small-uncased__1016001.json.gz	group 0 null scope streams=1 string_streams=0 kernel_streams=0 lanes=1 kernels=0 events=1 tids=2113929216 process=2130706432
gaunernst_bert-small-uncased__1016001.json.gz	flows=61 fanout=1
gaunernst_bert-small-uncased__1016001.json.gz	same_stream_overlaps=61 partial_kernel_pairs=0 kernels=60
google_owlv2-large-patch14-ensemble__1016001.json.gz	group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=4330 events=5165 tids=2113929216
google_owlv2-large-patch14-ensemble__1016001.json.gz	group 0 null scope streams=1 string_streams=0 kernel_streams=0 lanes=1 kernels=0 events=1 tids=2113929216 process=2130706432
google_owlv2-large-patch14-ensemble__1016001.json.gz	flows=5165 fanout=1
google_owlv2-large-patch14-ensemble__1016001.json.gz	same_stream_overlaps=5165 partial_kernel_pairs=0 kernels=4330
graph_execution.json.gz	group 2 2 activity streams=1 string_streams=0 kernel_streams=1 lanes=2 kernels=413 events=423 tids=2113929216,2113929217
graph_execution.json.gz	flows=423 fanout=15
graph_execution.json.gz	same_stream_overlaps=1 partial_kernel_pairs=1 kernels=413
nccl_data.json.gz	group 0 0 activity streams=2 string_streams=0 kernel_streams=2 lanes=2 kernels=2700 events=3774 tids=2113929216,2113929217
nccl_data.json.gz	group 0 null scope streams=2 string_streams=0 kernel_streams=0 lanes=2 kernels=0 events=30 tids=2113929216,2113929217 process=2130706432
nccl_data.json.gz	flows=3774 fanout=1
nccl_data.json.gz	same_stream_overlaps=1416 partial_kernel_pairs=0 kernels=2700
rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz	group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=4350 events=6095 tids=2113929216
rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz	group 0 null scope streams=1 string_streams=0 kernel_streams=0 lanes=1 kernels=0 events=15 tids=2113929216 process=2130706432
rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz	flows=6095 fanout=1
rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz	same_stream_overlaps=2375 partial_kernel_pairs=0 kernels=4350
rank0.json.gz	group 0 0 activity streams=6 string_streams=0 kernel_streams=5 lanes=3 kernels=6080 events=7747 tids=2113929216,2113929217,2113929218
rank0.json.gz	flows=7747 fanout=20
rank0.json.gz	same_stream_overlaps=1 partial_kernel_pairs=0 kernels=6080
sampled_rank-0.json.gz	group 0 0 activity streams=5 string_streams=0 kernel_streams=4 lanes=3 kernels=1154 events=1204 tids=2113929216,2113929217,2113929218
sampled_rank-0.json.gz	flows=0 fanout=0
sampled_rank-0.json.gz	same_stream_overlaps=0 partial_kernel_pairs=0 kernels=1154
sampled_rank-1.json.gz	group 1 1 activity streams=5 string_streams=0 kernel_streams=4 lanes=3 kernels=1104 events=1154 tids=2113929216,2113929217,2113929218
sampled_rank-1.json.gz	flows=0 fanout=0
sampled_rank-1.json.gz	same_stream_overlaps=0 partial_kernel_pairs=0 kernels=1104
sglang_Qwen3-8B_prefilldecode.json.gz	group 9 9 activity streams=2 string_streams=0 kernel_streams=2 lanes=2 kernels=527 events=534 tids=2113929216,2113929217
sglang_Qwen3-8B_prefilldecode.json.gz	flows=534 fanout=1
sglang_Qwen3-8B_prefilldecode.json.gz	same_stream_overlaps=0 partial_kernel_pairs=0 kernels=527
step_based_trace_2543932.json.gz	group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=130 events=140 tids=2113929216
step_based_trace_2543932.json.gz	group 0 null scope streams=1 string_streams=0 kernel_streams=0 lanes=1 kernels=0 events=10 tids=2113929216 process=2130706432
step_based_trace_2543932.json.gz	flows=140 fanout=1
step_based_trace_2543932.json.gz	same_stream_overlaps=40 partial_kernel_pairs=0 kernels=130
trace_100Kpar_4exp_8batch_128seq_1024.json	group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=484 events=524 tids=2113929216
trace_100Kpar_4exp_8batch_128seq_1024.json	flows=524 fanout=1
trace_100Kpar_4exp_8batch_128seq_1024.json	same_stream_overlaps=0 partial_kernel_pairs=0 kernels=484
worker0.pt.trace.json.gz	group 0 0 activity streams=13 string_streams=13 kernel_streams=5 lanes=3 kernels=9299 events=10103 tids=2113929216,2113929217,2113929218
worker0.pt.trace.json.gz	flows=10103 fanout=1
worker0.pt.trace.json.gz	same_stream_overlaps=0 partial_kernel_pairs=0 kernels=9299
nccl_data.json.gz	scope_process 2130706432 GPU scopes (original PID 0)
EOF
	# two workers, largest traces first, each with its own scratch directory:
	# compact every trace, then check all with one run of the oracles
	(cd "$TRACES" && ls -S -- *.json *.json.gz 2>/dev/null) >traces.list
	for w in 1 2; do
		(
			T=$T/w$w
			mkdir -p "$T"
			cp rcheck.py known.tsv "$T/"
			: >"$T/queue"
			awk -v w=$w 'NR % 2 == w % 2' traces.list >"$T/list"
			while IFS= read -r base; do
				n=${base%%.json*}
				compact "$n" "$TRACES/$base"
				oracle "$n" "$TRACES/$base" "$T/$n.c.json"
			done <"$T/list"
			oracles
			while IFS= read -r base; do
				n=${base%%.json*}
				awk -F '\t' -v f="$base" '$1 == f { print $2 }' "$T/known.tsv" >"$T/$n.known"
				while IFS= read -r line; do
					fact "$n" "$line"
				done <"$T/$n.known"
			done <"$T/list"
		) &
	done
	wait
	# the four traces named in the brief must have been there
	for base in worker0.pt.trace.json.gz rank0.json.gz eager_trace.json.gz nccl_data.json.gz \
		gaunernst_bert-small-uncased__1016001.json.gz; do
		[ -f "$TRACES/$base" ] || skip "compact: $base" "not in $TRACES"
	done

	# BERT with guides from tr-layer-track: tr-compact-track keeps them
	BERT=$TRACES/gaunernst_bert-small-uncased__1016001.json.gz
	if [ -f "$BERT" ]; then
		expect 0 "bert guides: tr-layer-track" "tr-layer-track --trace '$BERT' --output '$T/bert.g.json' \
			--anchor-regex flash_fwd --num-layers 4 --anchor-offset 0 --phase prefill --evidence x"
		expect 0 "bert guides: tr-compact-track" \
			"tr-compact-track --trace '$T/bert.g.json' --output '$T/bert.c.json'"
		cp "$T/out" bert.out
		oracle bert-guides "$T/bert.g.json" "$T/bert.c.json"
		oracles
		fact bert-guides "guides=4"
		fact bert-guides "group 0 0 activity streams=1 string_streams=0 kernel_streams=1 lanes=1 kernels=60 events=61 tids=$LANE1"
		for line in "pid 0 device 0: 1 original streams -> 1 synthetic lanes (60 kernels, 61 GPU events)" \
			"$(grep '^moved: ' bert-guides.facts)"; do
			if [ -n "$line" ] && grep -qxF -- "$line" bert.out; then
				pass "bert guides prints: $line"
			else
				fail "bert guides prints: $line" "output: $(head -c 600 bert.out)"
			fi
		done
	fi
fi
