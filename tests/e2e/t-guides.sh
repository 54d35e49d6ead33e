# t-guides: tr-select-anchors, tr-guides and tr-layer-track end to end: guides
# checked against an independent python oracle on real and generated traces,
# the speculative-decoding trap, --end-anchor-regex, every refusal (exit 1)
# and usage error (exit 2), and tr-layer-track's output safety rules.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
VERSION=$(cat "$ROOT/VERSION")
# The interpreter itself: a version manager's shim costs much per start.
PY=$(python3 -c 'import sys; print(sys.executable)')
EV='test evidence: model config'

# ------------------------------------------------------------------ oracle

# gcheck.py SRC OUT --regex RE --layers N --offset K [options] [:: OUT2 ...]:
# OUT (and its report OUT.layers.json) hold exactly the guides the contract
# asks for, the anchors being chosen here independently of the C code.  More
# outputs of the same source may follow "::" (the source is parsed once).
cat >gcheck.py <<'EOF'
import argparse, gzip, hashlib, json, os, re, sys
from decimal import Decimal, ROUND_FLOOR, ROUND_HALF_UP

def check(cond, what):
    if not cond:
        raise SystemExit('gcheck: %s: %s' % (cur, what))

# Numbers keep their text (parse_float/parse_int=str).  The source is loaded
# once for all the outputs given, separated by "::".
def load(path):
    data = open(path, 'rb').read()
    if data[:2] == b'\x1f\x8b':
        data = gzip.decompress(data)
    return json.loads(data, parse_float=str, parse_int=str)
def events(doc): return doc['traceEvents'] if isinstance(doc, dict) else doc
def dec(v): return Decimal(v)
def rnd(d): return int(d.quantize(Decimal(1), rounding=ROUND_HALF_UP))
def ns(d): return (d * 1000).quantize(Decimal(1), rounding=ROUND_FLOOR)
def text(v): return v if isinstance(v, str) else json.dumps(v)
def is_kernel(e):
    return (e.get('ph') == 'X' and isinstance(e.get('cat'), str) and
            bool({'kernel', 'Kernel'} & set(e['cat'].split(','))) and
            isinstance(e.get('name'), str))
def device(e):
    args = e.get('args')
    return args.get('device') if isinstance(args, dict) else None

ap = argparse.ArgumentParser()
ap.add_argument('out')
ap.add_argument('--regex', required=True); ap.add_argument('--end')
ap.add_argument('--layers', type=int, required=True)
ap.add_argument('--offset', type=int, required=True)
ap.add_argument('--passes', type=int, default=1)
ap.add_argument('--first', type=int, default=0)
ap.add_argument('--pid'); ap.add_argument('--device')
ap.add_argument('--phase'); ap.add_argument('--evidence'); ap.add_argument('--version')
ap.add_argument('--record-path', action='store_true')
argv, groups = sys.argv[1:], [[]]
srcpath = argv.pop(0)
for x in argv:
    if x == '::':
        groups.append([])
    else:
        groups[-1].append(x)
cur = srcpath
src = load(srcpath)
sev = events(src)
src_sha = hashlib.sha256(open(srcpath, 'rb').read()).hexdigest()
origin = min(dec(e['ts']) for e in sev if isinstance(e, dict) and isinstance(e.get('ts'), str))
common = None
for group in groups:
    a = ap.parse_args(group)
    if common is None:
        common = a
    for k in ('phase', 'evidence', 'version'):
        if getattr(a, k) is None:
            setattr(a, k, getattr(common, k))
    cur = a.out
    out, rep = load(a.out), load(a.out + '.layers.json')
    oev = events(out)

    # the source events are an unchanged prefix (values, number text and
    # member order); the other top-level members are unchanged
    pre = oev[:len(sev)]
    check(pre == sev, 'the source events are not an unchanged prefix')
    check([list(e) for e in pre] == [list(e) for e in sev] and
          [list(e.get('args') or ()) for e in pre] == [list(e.get('args') or ()) for e in sev],
          'member order changed in the source events')
    if isinstance(src, dict):
        check(list(src) == list(out) and
              {k: v for k, v in src.items() if k != 'traceEvents'} ==
              {k: v for k, v in out.items() if k != 'traceEvents'}, 'top-level members changed')
    added = oev[len(sev):]
    need = a.layers * a.passes
    check(len(added) == need + 2, 'added %d events, wanted %d' % (len(added), need + 2))

    def pid_ok(e): return a.pid is None or text(e.get('pid')) in (a.pid, json.dumps(a.pid))
    def dev_ok(e): return a.device is None or text(device(e)) in (a.device, json.dumps(a.device))
    def matches(rx):
        ms = [(dec(e['ts']), i, e) for i, e in enumerate(sev)
              if is_kernel(e) and re.search(rx, e['name']) and pid_ok(e) and dev_ok(e)]
        return [e for _, _, e in sorted(ms, key=lambda m: (m[0], m[1]))]
    anchors = matches(a.regex)
    groups_seen = {(text(e.get('pid')), text(device(e))) for e in anchors}
    check(len(groups_seen) == 1, 'matches in %d (pid, device) groups' % len(groups_seen))
    pid, dev = anchors[0].get('pid'), device(anchors[0])
    sel = anchors[a.offset:a.offset + need]
    check(len(sel) == need, 'only %d anchors from the offset' % len(sel))
    terms = [e for e in matches(a.end) if e.get('pid') == pid and device(e) == dev] if a.end else []

    meta, guides = added[:2], added[2:]
    used = {text(e.get('tid')) for e in sev if isinstance(e, dict) and e.get('pid') == pid}
    tid = meta[0].get('tid')
    check(isinstance(tid, str) and tid.isdigit() and 0 < int(tid) < 2**31, 'guide tid %r' % (tid,))
    check(tid not in used, 'guide tid %s is used in pid %s' % (tid, pid))
    track = 'Layer guide (%s) \u2014 anchor intervals' % a.phase
    check(meta[0] == {'name': 'thread_name', 'ph': 'M', 'ts': guides[0]['ts'], 'pid': pid,
                      'tid': tid, 'args': {'name': track}}, 'thread_name %s' % meta[0])
    check(meta[1] == {'name': 'thread_sort_index', 'ph': 'M', 'ts': guides[0]['ts'], 'pid': pid,
                      'tid': tid, 'args': {'sort_index': '-1000'}}, 'thread_sort_index %s' % meta[1])
    keys = ['pass_index', 'layer_id', 'anchor_index', 'anchor_name', 'anchor_tid', 'start_us',
            'end_us', 'guide_start_us', 'guide_end_us', 'start_relative_ms', 'end_relative_ms',
            'boundary_kind', 'phase', 'evidence', 'notice']
    for i, (g, an) in enumerate(zip(guides, sel)):
        p, layer = divmod(i, a.layers)
        at = a.offset + i
        x = g['args']
        where = 'guide %d: ' % i
        check(list(g) == ['ph', 'cat', 'name', 'pid', 'tid', 'ts', 'dur', 'args'], where + 'members %s' % list(g))
        check(g['ph'] == 'X' and g['cat'] == 'layer_guide', where + 'ph/cat')
        check(g['name'] == 'L%d' % (a.first + layer), where + 'name %s' % g['name'])
        check(g['pid'] == pid and g['tid'] == tid, where + 'pid/tid')
        check(list(x) == keys, where + 'args members %s' % list(x))
        check(x['start_us'] == an['ts'], where + 'start_us %s, anchor ts %s' % (x['start_us'], an['ts']))
        check(int(g['ts']) == rnd(dec(an['ts'])), where + 'ts %s, anchor ts %s' % (g['ts'], an['ts']))
        check(x['anchor_name'] == an['name'] and x['anchor_tid'] == an.get('tid'), where + 'anchor name/tid')
        check(x['anchor_index'] == str(at) and x['pass_index'] == str(p) and
              x['layer_id'] == str(a.first + layer), where + 'indices')
        check(x['phase'] == a.phase and x['evidence'] == a.evidence and x['notice'] == rep['notice'],
              where + 'phase/evidence/notice')
        if layer + 1 < a.layers:
            nxt = sel[i + 1]
            kind, end = 'next_layer_anchor', dec(nxt['ts'])
            check(x['end_us'] == nxt['ts'], where + 'end_us %s, next anchor ts %s' % (x['end_us'], nxt['ts']))
        elif a.end:
            nxt = anchors[at + 1]['ts'] if at + 1 < len(anchors) else None
            between = [t for t in terms if dec(t['ts']) >= dec(an['ts']) and
                       (nxt is None or dec(t['ts']) < dec(nxt))]
            check(len(between) == 1, where + '%d terminals' % len(between))
            kind, end = 'terminal_kernel_end', dec(between[0]['ts']) + dec(between[0]['dur'])
            check(dec(x['end_us']) == end, where + 'end_us %s, terminal end %s' % (x['end_us'], end))
        else:
            kind, end = 'anchor_point_only', dec(an['ts'])
            check(x['end_us'] == an['ts'], where + 'end_us')
        check(x['boundary_kind'] == kind, where + 'boundary_kind %s, wanted %s' % (x['boundary_kind'], kind))
        check(int(g['dur']) == rnd(end) - rnd(dec(an['ts'])), where + 'dur %s' % g['dur'])
        check(x['guide_start_us'] == g['ts'] and int(x['guide_end_us']) == rnd(end), where + 'guide_*_us')
        check(dec(x['start_relative_ms']) == (ns(dec(an['ts'])) - ns(origin)) / 1000000 and
              dec(x['end_relative_ms']) == (ns(end) - ns(origin)) / 1000000,
              where + 'relative ms %s %s' % (x['start_relative_ms'], x['end_relative_ms']))
    # touching within a pass, never overlapping, never spanning into the next pass
    for i in range(1, len(guides)):
        prev_end = int(guides[i - 1]['ts']) + int(guides[i - 1]['dur'])
        start = int(guides[i]['ts'])
        if i % a.layers:
            check(prev_end == start, 'guides %d and %d do not touch' % (i - 1, i))
        else:
            check(prev_end <= start, 'guide %d spans into the next pass' % (i - 1))

    want = ['schema_version', 'notice', 'phase', 'evidence', 'pid', 'device', 'guide_tid',
            'track_name', 'anchor_regex', 'end_anchor_regex', 'anchor_offset',
            'matching_anchor_count', 'num_layers', 'first_layer', 'passes',
            'confirm_regex', 'confirm_cpu', 'original_event_count', 'added_event_count', 'trace_origin_us', 'layers',
            'source_file', 'source_sha256', 'tool_version']
    # the rank the trace records (Kineto's distributedInfo), for tr-ranks
    info = src.get('distributedInfo') if isinstance(src, dict) else None
    rank = info.get('rank') if isinstance(info, dict) else None
    if isinstance(rank, str) and rank.isdigit():
        want.insert(want.index('source_sha256'), 'rank')
        check(rep['rank'] == rank, 'report rank %r, the trace\'s %r' % (rep['rank'], rank))
    check(list(rep) == want, 'report members %s' % list(rep))
    expect = {'schema_version': '1', 'phase': a.phase, 'evidence': a.evidence, 'pid': pid,
              'device': dev, 'guide_tid': tid, 'track_name': track, 'anchor_regex': a.regex,
              'end_anchor_regex': a.end, 'anchor_offset': str(a.offset),
              'matching_anchor_count': str(len(anchors)), 'num_layers': str(a.layers),
              'first_layer': str(a.first), 'passes': str(a.passes),
              'confirm_regex': None, 'confirm_cpu': False,
              'original_event_count': str(len(sev)), 'added_event_count': str(need + 2),
              'source_file': srcpath if a.record_path else os.path.basename(srcpath),
              'source_sha256': src_sha,
              'tool_version': 'trace-layers ' + a.version}
    for k, v in expect.items():
        check(rep[k] == v, 'report %s: %r, wanted %r' % (k, rep[k], v))
    check(dec(rep['trace_origin_us']) == origin, 'report trace_origin_us')
    check(isinstance(rep['notice'], str) and 'not layer boundaries' in rep['notice'], 'report notice')
    rows = [{k: v for k, v in g['args'].items() if k not in ('phase', 'evidence', 'notice')} for g in guides]
    check(rep['layers'] == rows and [list(r) for r in rep['layers']] == [list(r) for r in rows],
          'report layers differ from the guides\' args')
    print('%s: ok, %d guides' % (a.out, len(guides)))
EOF

# guides NAME SRC OUT ORACLE-ARGS...: check OUT and its report with the oracle.
guides() {
	name=$1 src=$2 out=$3
	shift 3
	if "$PY" "$T/gcheck.py" "$src" "$out" --phase "${PHASE:-prefill}" --evidence "$EV" \
		--version "$VERSION" "$@" >"$T/oracle.out" 2>"$T/oracle"; then
		pass "$name"
	else
		fail "$name" "$(tail -n 3 "$T/oracle")"
	fi
}

# track NAME SRC OUT PHASE OPTIONS...: tr-layer-track succeeds, prints the
# paths and the number of labels; then the oracle checks the result (unless
# NOCHECK is set).  OPTIONS are tr-select-anchors options; the oracle gets
# their equivalents.
track() {
	name=$1 src=$2 out=$3 PHASE=$4
	shift 4
	rm -f "$out" "$out.layers.json"
	RC=0
	tr-layer-track --trace "$src" --output "$out" --phase "$PHASE" --evidence "$EV" "$@" \
		>"$T/out" 2>"$T/err" || RC=$?
	if [ "$RC" != 0 ]; then
		fail "$name: tr-layer-track" "exit status $RC" "stderr: $(head -c 600 "$T/err")"
		return 1
	fi
	# the oracle's options, in place of the tr-select-anchors ones
	n=1 p=1 pairs=$(($# / 2))
	while [ "$pairs" -gt 0 ]; do
		case $1 in
		--anchor-regex) o=--regex ;;
		--end-anchor-regex) o=--end ;;
		--num-layers) o=--layers; n=$2 ;;
		--anchor-offset) o=--offset ;;
		--passes) o=--passes; p=$2 ;;
		--first-layer) o=--first ;;
		*) o=$1 ;;
		esac
		set -- "$@" "$o" "$2"
		shift 2
		pairs=$((pairs - 1))
	done
	# the matches: the report's count (the oracle checks it, unless NOCHECK)
	m=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["matching_anchor_count"])' \
		"$out.layers.json" 2>/dev/null)
	printf 'output: %s\nreport: %s.layers.json\nlabels added: %d from %d of %s matches\n' \
		"$out" "$out" $((n * p)) $((n * p)) "$m" >"$T/want.out"
	# then the pass table (t-window.sh checks its values): a line per pass,
	# at most 8 and one more line beyond
	tbl=$p
	[ "$p" -le 8 ] || tbl=9
	if head -n 3 "$T/out" | cmp -s - "$T/want.out" &&
	   [ "$(sed -n "4,$((3 + tbl))p" "$T/out" | grep -c '^passes: ')" = "$tbl" ] &&
	   sed -n "$((4 + tbl))p" "$T/out" | grep -q '^notice: '; then
		pass "$name: tr-layer-track prints paths and labels"
	else
		fail "$name: tr-layer-track prints paths and labels" "stdout: $(head -c 300 "$T/out")"
	fi
	[ -n "${NOCHECK:-}" ] || guides "$name: guides" "$src" "$out" "$@"
}

# refused NAME STATUS STDERR-TEXT SRC OPTIONS...: tr-layer-track refuses with
# STATUS and STDERR-TEXT (fixed string) and writes nothing.
refused() {
	name=$1 want=$2 text=$3 src=$4
	shift 4
	rm -rf "$T/r" && mkdir "$T/r"
	RC=0
	tr-layer-track --trace "$src" --output "$T/r/o.json" --phase prefill --evidence "$EV" "$@" \
		>"$T/out" 2>"$T/err" || RC=$?
	if [ "$RC" != "$want" ]; then
		fail "$name" "exit status $RC, wanted $want" "stderr: $(head -c 600 "$T/err")"
	elif ! grep -qF -- "$text" "$T/err"; then
		fail "$name" "stderr lacks: $text" "stderr: $(head -c 600 "$T/err")"
	elif [ -n "$(ls -A "$T/r")" ]; then
		fail "$name" "written: $(ls -A "$T/r")"
	else
		pass "$name"
	fi
}

# stderr_has NAME TEXT: stderr of the last run contains TEXT (fixed string).
stderr_has() {
	if grep -qF -- "$2" "$T/err"; then
		pass "$1"
	else
		fail "$1" "stderr lacks: $2" "stderr: $(head -c 600 "$T/err")"
	fi
}

# ---------------------------------------------------------------- fixtures

# Fixtures (tiny; pid 0 unless said):
#   base.json     three anchors attn.a/b/c with cat kernel, "gpu,kernel" and
#                 Kernel, one "term" after each; non-candidates named attn
#                 (a cpu_op, a gpu_memcpy, cat "kernels")
#   pids.json     anchors in pids 0 and 1
#   strpid.json   anchors in pid 0 and in the string pid "GPU" (tid 1 taken)
#   devs.json     anchors on devices 0 and 1 of pid 0 (tids 1 and 2)
#   samets.json   two anchors at the same timestamp (200.0 and 200)
#   sameus.json   two anchors within one microsecond
#   terms.json    anchors at 100, 200, 300, 400: no terminal after the first,
#                 two after the second, one after the third that ends past
#                 the fourth
#   strts.json, nodur.json, negdur.json, badterm.json: a string ts, a missing
#                 dur, a negative dur, a terminal with a negative dur

# mk <<EOF: traces from lines "cat|name|pid|tid|ts|dur|device" (raw JSON
# texts; "-" leaves the member, or args, out), each file started by a line
# "@FILE".
mk() {
	"$PY" -c '
import sys
files = {}
for line in sys.stdin.read().split("\n"):
    if line.startswith("@"):
        cur = files.setdefault(line[1:], [])
        continue
    if not line.strip():
        continue
    cat, name, pid, tid, ts, dur, dev = line.split("|")
    m = [("ph", "\"X\""), ("cat", "\"%s\"" % cat), ("name", "\"%s\"" % name),
         ("pid", pid), ("tid", tid), ("ts", ts), ("dur", dur)]
    s = ",".join("\"%s\":%s" % (k, v) for k, v in m if v != "-")
    if dev != "-":
        s += ",\"args\":{\"device\":%s}" % dev
    cur.append("{" + s + "}")
for name, evs in files.items():
    with open(name, "w") as f:
        f.write("{\"traceEvents\":[\n" + ",\n".join(evs) + "\n],\"displayTimeUnit\":\"ms\"}\n")
'
}

mk <<'EOF'
@base.json
cpu_op|attn|100|100|50|1|-
kernel|attn.a|0|7|100.25|10|0
kernel|term|0|7|150|20|0
gpu,kernel|attn.b|0|7|200.5|10|0
kernel|term|0|7|260|20.5|0
Kernel|attn.c|0|7|300.4996|10|0
kernels|attn.x|0|7|350|1|0
kernel|term|0|7|380|19.75|0
gpu_memcpy|attn.y|0|7|410|1|0
@pids.json
kernel|attn|0|7|100|10|0
kernel|attn|0|7|200|10|0
kernel|attn|1|7|110|10|1
kernel|attn|1|7|210|10|1
kernel|attn|1|8|310|10|1
@strpid.json
kernel|attn|0|7|100|10|0
kernel|attn|"GPU"|1|150|10|0
kernel|attn|"GPU"|7|250|10|0
@devs.json
kernel|attn|0|1|100|10|0
kernel|attn|0|2|110|10|1
kernel|attn|0|1|200|10|0
kernel|attn|0|2|210|10|1
@samets.json
kernel|attn|0|7|100|10|0
kernel|attn|0|8|200.0|10|0
kernel|attn|0|7|200|5|0
kernel|attn|0|7|300|10|0
@sameus.json
kernel|attn|0|7|100.1|0.1|0
kernel|attn|0|7|100.3|0.1|0
@terms.json
kernel|attn|0|7|100|10|0
kernel|attn|0|7|200|10|0
kernel|term|0|7|250|10|0
kernel|term|0|7|270|10|0
kernel|attn|0|7|300|10|0
kernel|term|0|7|320|100|0
kernel|attn|0|7|400|10|0
kernel|term|0|7|420|10|0
@strts.json
kernel|attn|0|7|100|10|0
kernel|attn|0|7|"200"|10|0
@nodur.json
kernel|attn|0|7|100|10|0
kernel|attn|0|7|200|-|0
@negdur.json
kernel|attn|0|7|100|10|0
kernel|attn|0|7|200|-1|0
@badterm.json
kernel|attn|0|7|100|10|0
kernel|term|0|7|150|-2|0
kernel|attn|0|7|200|10|0
kernel|term|0|7|250|2|0
EOF

# ------------------------------------------------- fixtures: correct guides

track "fixture: kernel, gpu,kernel and Kernel categories" base.json o1.json prefill \
	--anchor-regex '^attn' --num-layers 3 --anchor-offset 0
"$PY" - o1.json <<'EOF' >o1.txt
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
g = [e for e in ev if e.get('cat') == 'layer_guide']
print(' '.join('%s:%s+%s:%s' % (e['name'], e['ts'], e['dur'], e['args']['boundary_kind']) for e in g))
print(json.load(open(sys.argv[1] + '.layers.json'), parse_float=str)['trace_origin_us'])
EOF
printf '%s\n' 'L0:100+101:next_layer_anchor L1:201+99:next_layer_anchor L2:300+0:anchor_point_only' \
	'50.000' >o1.want
same "fixture: exact guide times (half-up rounding, sub-ns digits)" o1.want o1.txt

track "fixture: --end-anchor-regex, --first-layer 2" base.json o2.json decode \
	--anchor-regex attn --end-anchor-regex '^term$' --num-layers 3 --anchor-offset 0 --first-layer 2
"$PY" -c '
import json, sys
g = [e for e in json.load(open(sys.argv[1]), parse_float=str)["traceEvents"] if e.get("cat") == "layer_guide"]
print(" ".join("%s:%s+%s:%s:%s" % (e["name"], e["ts"], e["dur"], e["args"]["boundary_kind"], e["args"]["end_us"]) for e in g))
' o2.json >o2.txt
echo 'L2:100+101:next_layer_anchor:200.5 L3:201+99:next_layer_anchor:300.4996 L4:300+100:terminal_kernel_end:399.750' >o2.want
same "fixture: terminal end of the last layer" o2.want o2.txt

track "fixture: --pid 1 of two pids" pids.json o3.json prefill \
	--anchor-regex attn --num-layers 3 --anchor-offset 0 --pid 1
track "fixture: --pid GPU, a string pid" strpid.json o6.json prefill \
	--anchor-regex attn --num-layers 2 --anchor-offset 0 --pid GPU
refused "refuse: a string pid among others" 1 'pid "GPU", device 0: 2 matches' \
	strpid.json --anchor-regex attn --num-layers 2 --anchor-offset 0
track "fixture: --device 1 of one pid, tids 1 and 2 taken" devs.json o4.json prefill \
	--anchor-regex attn --num-layers 2 --anchor-offset 0 --device 1
if "$PY" -c 'import json,sys; sys.exit(json.load(open("o4.json.layers.json"))["guide_tid"] != 3)'; then
	pass "fixture: guide tid is the smallest unused one"
else
	fail "fixture: guide tid is the smallest unused one" "$(grep -o '"guide_tid":[0-9]*' o4.json.layers.json)"
fi
track "fixture: anchor offset 1, three passes of one layer" terms.json o5.json prefill \
	--anchor-regex attn --num-layers 1 --anchor-offset 1 --passes 3

# ---------------------------------------------------------------- refusals

refused "refuse: anchors in several pids" 1 "anchor matches fall in several pids" \
	pids.json --anchor-regex attn --num-layers 2 --anchor-offset 0
stderr_has "refuse: several pids: evidence per pid" "pid 1, device 1: 3 matches; first in source order at ts 110 210 310"
stderr_has "refuse: several pids: the fix" "choose one with --pid"
refused "refuse: several devices of one pid" 1 "anchor matches fall on several args.device values of one pid" \
	devs.json --anchor-regex attn --num-layers 2 --anchor-offset 0
stderr_has "refuse: several devices: evidence" "pid 0, device 1: 2 matches; first in source order at ts 110 210"
stderr_has "refuse: several devices: the fix" "choose one with --device"
refused "refuse: no match" 1 "no X kernel event matches --anchor-regex 'nomatch'" \
	base.json --anchor-regex nomatch --num-layers 1 --anchor-offset 0
refused "refuse: only a cpu_op, a gpu_memcpy and cat kernels match" 1 "no X kernel event matches" \
	base.json --anchor-regex 'attn\.?[xy]?$' --num-layers 1 --anchor-offset 0
refused "refuse: no match in the --pid given" 1 "in pid 3; matches elsewhere:" \
	pids.json --anchor-regex attn --num-layers 1 --anchor-offset 0 --pid 3
refused "refuse: truncated selection" 1 \
	"truncated selection: 3 kernels match in pid 0, device 0; from --anchor-offset 1 there are 2, but --num-layers 2 x --passes 2 needs 4" \
	base.json --anchor-regex attn --num-layers 2 --anchor-offset 1 --passes 2
stderr_has "refuse: truncated selection: sorted timestamps" "sorted matches at ts: [0] 100.25 [1] 200.5 [2] 300.4996"
refused "refuse: offset past the matches" 1 "from --anchor-offset 7 there are 0" \
	base.json --anchor-regex attn --num-layers 1 --anchor-offset 7
refused "refuse: anchors at the same timestamp" 1 "do not have strictly increasing timestamps (200.0, 200)" \
	samets.json --anchor-regex attn --num-layers 4 --anchor-offset 0
refused "refuse: no terminal between anchors" 1 "anchor 0 (event 0, ts 100): 0 kernels match --end-anchor-regex" \
	terms.json --anchor-regex attn --end-anchor-regex term --num-layers 2 --anchor-offset 0
refused "refuse: two terminals between anchors" 1 "anchor 1 (event 1, ts 200): 2 kernels match --end-anchor-regex" \
	terms.json --anchor-regex attn --end-anchor-regex term --num-layers 2 --anchor-offset 1
refused "refuse: terminal ends after the next anchor starts" 1 "terminal kernel (event 5, ts 320, dur 100) ends after the next anchor starts (event 6, ts 400)" \
	terms.json --anchor-regex attn --end-anchor-regex term --num-layers 1 --anchor-offset 2
refused "refuse: a kernel matches both regexes" 1 "matches both --anchor-regex and --end-anchor-regex" \
	base.json --anchor-regex attn --end-anchor-regex 'a' --num-layers 1 --anchor-offset 0
refused "refuse: string ts" 1 "anchor kernel has no numeric ts (\"200\")" \
	strts.json --anchor-regex attn --num-layers 1 --anchor-offset 0
refused "refuse: no dur" 1 "selected anchor kernel has no numeric dur (missing)" \
	nodur.json --anchor-regex attn --num-layers 2 --anchor-offset 0
refused "refuse: negative dur" 1 "selected anchor kernel has a negative dur (-1)" \
	negdur.json --anchor-regex attn --num-layers 2 --anchor-offset 0
refused "refuse: terminal with a negative dur" 1 "selected terminal kernel has a negative dur (-2)" \
	badterm.json --anchor-regex attn --end-anchor-regex term --num-layers 2 --anchor-offset 0
refused "refuse: a trace that already has guides" 1 "the trace already has layer guides (cat layer_guide)" \
	o1.json --anchor-regex attn --num-layers 3 --anchor-offset 0

# The stage alone: exit 1 and nothing on stdout past what it passed through.
expect 1 "refuse: tr-select-anchors alone exits 1" \
	"tr-decode pids.json | tr-select-anchors --anchor-regex attn --num-layers 1 --anchor-offset 0 >/dev/null" \
	"anchor matches fall in several pids"
expect 1 "refuse: tr-guides without anchor records" \
	"tr-decode base.json | tr-guides --phase p --evidence e >/dev/null" "no anchor records in the stream"
expect 1 "refuse: tr-select-anchors twice" \
	"tr-decode base.json | tr-select-anchors --anchor-regex attn --num-layers 1 --anchor-offset 0 | tr-select-anchors --anchor-regex attn --num-layers 1 --anchor-offset 0 >/dev/null" \
	"already carries anchor records"

# ------------------------------------------------------------ usage errors

SA="tr-decode base.json | tr-select-anchors"
expect 2 "usage: missing --anchor-regex" "$SA --num-layers 1 --anchor-offset 0 >/dev/null" \
	"--anchor-regex, --num-layers and --anchor-offset are required"
expect 2 "usage: missing --anchor-offset" "$SA --anchor-regex attn --num-layers 1 >/dev/null" \
	"--anchor-regex, --num-layers and --anchor-offset are required"
expect 2 "usage: --num-layers 0" "$SA --anchor-regex attn --num-layers 0 --anchor-offset 0 >/dev/null" \
	"--num-layers: invalid value '0'"
expect 2 "usage: --anchor-offset -1" "$SA --anchor-regex attn --num-layers 1 --anchor-offset -1 >/dev/null" \
	"--anchor-offset: invalid value '-1'"
expect 2 "usage: --passes 0" "$SA --anchor-regex attn --num-layers 1 --anchor-offset 0 --passes 0 >/dev/null" \
	"--passes: invalid value '0'"
expect 2 "usage: bad regex" "$SA --anchor-regex 'attn(' --num-layers 1 --anchor-offset 0 >/dev/null" \
	"--anchor-regex: "
expect 2 "usage: bad end regex" "$SA --anchor-regex attn --end-anchor-regex '[' --num-layers 1 --anchor-offset 0 >/dev/null" \
	"--end-anchor-regex: "
GA="tr-decode base.json | tr-select-anchors --anchor-regex attn --num-layers 3 --anchor-offset 0 | tr-guides"
expect 2 "usage: blank --evidence" "$GA --phase prefill --evidence ' 	' >/dev/null" \
	"--phase and --evidence are required and must not be blank"
expect 2 "usage: missing --phase" "$GA --evidence e >/dev/null" \
	"--phase and --evidence are required"
# the anchor records wait in a temporary file: one that cannot be made is
# system trouble, said with its directory
expect 2 "trouble: no temporary directory" \
	"tr-decode base.json | tr-select-anchors --anchor-regex attn --num-layers 3 \
	--anchor-offset 0 | TMPDIR=/nonexistent/tr-guides tr-guides --phase p --evidence e >/dev/null" \
	"tr-guides: temporary file in /nonexistent/tr-guides: No such file or directory"
refused "usage: tr-layer-track bad regex" 2 "--anchor-regex: " base.json \
	--anchor-regex 'attn(' --num-layers 1 --anchor-offset 0
refused "usage: tr-layer-track --num-layers 0" 2 "--num-layers: invalid value '0'" base.json \
	--anchor-regex attn --num-layers 0 --anchor-offset 0
refused "usage: tr-layer-track blank --evidence" 2 "must not be blank" base.json \
	--anchor-regex attn --num-layers 1 --anchor-offset 0 --evidence ' '
refused "usage: tr-layer-track unknown option" 2 "tr-layer-track: unknown option '--layers'" base.json \
	--anchor-regex attn --layers 1 --anchor-offset 0
expect 2 "usage: tr-layer-track without --output" \
	"tr-layer-track --trace base.json --anchor-regex attn --num-layers 1 --anchor-offset 0 --phase p --evidence e" \
	"--trace and --output are required"

# ------------------------------------------ tr-layer-track's output rules

mkdir -p safe && cp base.json safe/src.json && ln safe/src.json safe/link.json
sha=$(sha256sum <safe/src.json)
LT="tr-layer-track --anchor-regex attn --num-layers 3 --anchor-offset 0 --phase p --evidence e"
expect 2 "safety: output is the source" "$LT --trace safe/src.json --output safe/src.json" \
	"the output is the source trace"
expect 2 "safety: output is the source through ./" "$LT --trace safe/src.json --output ./safe/../safe/src.json" \
	"the output is the source trace"
expect 2 "safety: output is a hard link to the source" "$LT --trace safe/src.json --output safe/link.json" \
	"the output is the source trace"
ln -s src.json safe/sym.json
expect 2 "safety: output is a symbolic link to the source" "$LT --trace safe/src.json --output safe/sym.json" \
	"the output is the source trace"
echo keep >safe/exists.json
expect 2 "safety: existing output" "$LT --trace safe/src.json --output safe/exists.json" \
	"safe/exists.json: exists; refusing to overwrite it"
echo keep >safe/new.json.layers.json
expect 2 "safety: existing report" "$LT --trace safe/src.json --output safe/new.json" \
	"safe/new.json.layers.json: exists; refusing to overwrite it"
absent "safety: no output beside an existing report" safe/new.json
if [ "$(sha256sum <safe/src.json)" = "$sha" ] && [ "$(cat safe/exists.json safe/new.json.layers.json)" = "keep
keep" ]; then
	pass "safety: the source and the existing files are unchanged"
else
	fail "safety: the source and the existing files are unchanged"
fi
expect 1 "safety: a refusal writes nothing" "$LT --trace safe/src.json --output safe/r.json --passes 2" \
	"truncated selection"
absent "safety: a refusal writes nothing: no output, no report" safe/r.json safe/r.json.layers.json
no_temp "safety: a refusal leaves no temporary file" safe
expect 1 "safety: a refusal in tr-guides writes nothing" \
	"$LT --trace sameus.json --output safe/r.json --num-layers 2" \
	"anchors 0 and 1 start within the same microsecond (100.1 and 100.3)"
absent "safety: nothing written after a late refusal" safe/r.json safe/r.json.layers.json
no_temp "safety: no temporary file after a late refusal" safe
track "gzip output" safe/src.json safe/out.json.gz prefill --anchor-regex attn --num-layers 3 --anchor-offset 0
if [ "$(head -c 2 safe/out.json.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
	pass "gzip output: compressed"
else
	fail "gzip output: compressed" "$(head -c 20 safe/out.json.gz | od -c | head -2)"
fi

# ------------------------------------------------------- generated traces

# Speculative decoding: 2 draft passes of 2 layers before each 4-layer target
# pass, 3 iterations.
tr-gen --layers 4 --passes 3 --draft-passes 2 --draft-layers 2 --seed 7 -o spec.json
TARGET='flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128,'
track "spec: anchored target attention" spec.json s1.json decode \
	--anchor-regex "$TARGET" --num-layers 4 --anchor-offset 0 --passes 3
# The trap: an unanchored pattern also matches the draft attention, and the
# selection happily takes the first 12 matches: 4 draft, 4 target, 4 draft.
# Two draft passes of 2, back to back, have the shape of one pass of 4 (the
# gap between them is like a slow layer's): the rule of whole passes cannot
# see it; a landmark can (t-confirm.sh).
track "spec: unanchored regex (the trap)" spec.json s2.json decode \
	--anchor-regex 'flash_fwd_kernel' --num-layers 4 --anchor-offset 0 --passes 3
"$PY" -c '
import json
rows = json.load(open("s2.json.layers.json"))["layers"]
print(" ".join("T" if "traits<128, 128," in r["anchor_name"] else "D" if "traits<64, 64," in r["anchor_name"] else "?" for r in rows))
print(json.load(open("s2.json.layers.json"))["matching_anchor_count"])
' >s2.txt
printf 'D D D D T T T T D D D D\n24\n' >s2.want
same "spec: the trap picks draft kernels" s2.want s2.txt
# the draft passes alone, 2 layers each, back to back: whole passes
track "spec: draft attention, 6 back-to-back passes of 2" spec.json s2d.json decode \
	--anchor-regex 'flash_fwd_kernel<Flash_fwd_kernel_traits<64, 64,' --num-layers 2 \
	--anchor-offset 0 --passes 6
# Terminal: the target attention after each target rotary (the draft rotary
# and attention differ); the last guide of a pass ends at its attention.
track "spec: rotary anchor, attention terminal" spec.json s3.json decode \
	--anchor-regex 'rotary_embedding_kernel<c10::BFloat16, true>' --end-anchor-regex "$TARGET" \
	--num-layers 4 --anchor-offset 0 --passes 3 --first-layer 2
"$PY" -c '
import json, re
ev = json.load(open("spec.json"))["traceEvents"]
ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
firsts = [e["ts"] for e in ks if "indexSelectLargeIndex" in e["name"]]
g = [e for e in json.load(open("s3.json"))["traceEvents"] if e.get("cat") == "layer_guide"]
kinds = [e["args"]["boundary_kind"] for e in g]
names = [e["name"] for e in g]
# each pass starts with the embedding: no guide may contain one
inside = [f for f in firsts for e in g if e["ts"] < f < e["ts"] + e["dur"]]
print(" ".join(names)); print(" ".join(kinds)); print(len(firsts), len(inside))
' >s3.txt
{
	echo 'L2 L3 L4 L5 L2 L3 L4 L5 L2 L3 L4 L5'
	for i in 1 2 3; do printf 'next_layer_anchor next_layer_anchor next_layer_anchor terminal_kernel_end%s' "$([ $i = 3 ] && echo || printf ' ')"; done
	echo
	echo '9 0'
} >s3.want
same "spec: terminal ends, no guide spans into another pass" s3.want s3.txt
refused "spec: silu terminal is refused (draft silu kernels too)" 1 \
	"): 5 kernels match --end-anchor-regex between it and the next matching anchor" spec.json \
	--anchor-regex "$TARGET" --end-anchor-regex 'silu_kernel' --num-layers 4 --anchor-offset 0 --passes 3
stderr_has "spec: silu terminal: the last layer of the first pass" "anchor 3 (event "
# The norm kernel runs twice per layer: 8 "layers" are accepted without a
# terminal (the trap); --end-anchor-regex exposes it.
NORM='rms_norm_kernel<c10::BFloat16>'
track "spec: norm anchor, twice per layer, is accepted as 8 layers (the trap)" spec.json s4.json decode \
	--anchor-regex "$NORM" --num-layers 8 --anchor-offset 0
refused "spec: norm anchor with a silu terminal is refused" 1 \
	"0 kernels match --end-anchor-regex between it and the next matching anchor" spec.json \
	--anchor-regex "$NORM" --end-anchor-regex 'silu_kernel' --num-layers 8 --anchor-offset 0
refused "spec: norm anchor with an attention terminal is refused" 1 \
	"0 kernels match --end-anchor-regex" spec.json \
	--anchor-regex "$NORM" --end-anchor-regex "$TARGET" --num-layers 8 --anchor-offset 0

# No drafts: target attention anchors, silu terminal, three passes.
tr-gen --layers 3 --passes 3 --concurrency 2 --seed 3 --ts-format int -o plain.json
track "plain: silu terminal, --passes 3" plain.json p1.json prefill \
	--anchor-regex "$TARGET" --end-anchor-regex 'silu_kernel' --num-layers 3 --anchor-offset 0 --passes 3
track "plain: no terminal, --passes 3, --first-layer 2" plain.json p2.json prefill \
	--anchor-regex "$TARGET" --num-layers 3 --anchor-offset 0 --passes 3 --first-layer 2
track "plain: one pass from offset 3" plain.json p3.json prefill \
	--anchor-regex "$TARGET" --num-layers 3 --anchor-offset 3

# Two devices (pid = device index).
tr-gen --layers 2 --passes 2 --devices 2 --seed 5 -o dev2.json
refused "devices: refused without --device" 1 "anchor matches fall in several pids" dev2.json \
	--anchor-regex "$TARGET" --num-layers 2 --anchor-offset 0 --passes 2
stderr_has "devices: evidence per device" "pid 1, device 1: 4 matches"
track "devices: --device 1" dev2.json d1.json prefill \
	--anchor-regex "$TARGET" --num-layers 2 --anchor-offset 0 --passes 2 --device 1
track "devices: --pid 0 --device 0" dev2.json d0.json prefill \
	--anchor-regex "$TARGET" --num-layers 2 --anchor-offset 0 --passes 2 --pid 0 --device 0

# ------------------------------------- the one-line commands' command line

# Every option of tr-layer-track and tr-compact-track as --name VALUE,
# --name=VALUE and abbreviated: the same files, byte for byte.  The source
# is named ./plain.json so that --record-path shows (the base name is
# plain.json).
SRC=./plain.json
# lt_all DIR FORM: tr-layer-track with every value option in FORM (sep, eq
# or abbr) and every flag but --help/--version.
lt_all() {
	rm -rf "$1" && mkdir "$1"
	case $2 in
	sep) set -- --trace "$SRC" --output "$1/o.json" --anchor-regex "$TARGET" --num-layers 3 \
		--anchor-offset 0 --passes 3 --first-layer 2 --pid 0 --device 0 \
		--end-anchor-regex silu_kernel --phase prefill --evidence '--not an option' \
		--max-gpu-lanes 4 --max-event-bytes 1M --record-path --compact-report --no-verify ;;
	eq) set -- --trace="$SRC" --output="$1/o.json" --anchor-regex="$TARGET" --num-layers=3 \
		--anchor-offset=0 --passes=3 --first-layer=2 --pid=0 --device=0 \
		--end-anchor-regex=silu_kernel --phase=prefill --evidence='--not an option' \
		--max-gpu-lanes=4 --max-event-bytes=1M --record-path --compact-report --no-verify ;;
	abbr) set -- --tr "$SRC" --ou="$1/o.json" --anchor-r "$TARGET" --nu 3 \
		--anchor-o=0 --pa 3 --fi 2 --pi 0 --d=0 \
		--en silu_kernel --ph prefill --ev '--not an option' \
		--max-g 4 --max-e=1M --rec --com --no ;;
	esac
	RC=0
	tr-layer-track "$@" >"$T/out" 2>"$T/err" || RC=$?
}
lt_all lt-sep sep
if [ "$RC" = 0 ] && [ ! -s "$T/err" ]; then
	pass "options: tr-layer-track, every option as --name VALUE"
else
	fail "options: tr-layer-track, every option as --name VALUE" "exit $RC" "$(head -c 400 "$T/err")"
fi
sed 's|lt-sep/||' "$T/out" >lt-sep.out
for form in eq abbr; do
	lt_all "lt-$form" "$form"
	if [ "$RC" = 0 ] && [ ! -s "$T/err" ]; then
		pass "options: tr-layer-track, every option ($form)"
	else
		fail "options: tr-layer-track, every option ($form)" "exit $RC" "$(head -c 400 "$T/err")"
	fi
	same "options: tr-layer-track ($form): the same output" lt-sep/o.json "lt-$form/o.json"
	same "options: tr-layer-track ($form): the same report" lt-sep/o.json.layers.json \
		"lt-$form/o.json.layers.json"
	sed "s|lt-$form/||" "$T/out" >"lt-$form.out"
	same "options: tr-layer-track ($form): the same summary" lt-sep.out "lt-$form.out"
done
# --record-path and --compact-report: the path as typed, one line; --no-verify:
# no verdict; --max-gpu-lanes 4 --pid 0: compacted into 4 lanes of pid 0
"$PY" - lt-sep/o.json.layers.json lt-sep.out >lt-facts.txt <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
rep = json.loads(text)
out = open(sys.argv[2]).read()
c = rep['compaction']
print(text.count('\n'), rep['source_file'], c['source_file'], rep['evidence'],
      sorted(set(g['pid'] for g in c['groups'])), c['max_lanes'], rep['first_layer'],
      rep['end_anchor_regex'], 'verification:' in out)
EOF
echo "1 ./plain.json ./plain.json --not an option [0] 4 2 silu_kernel False" >lt-facts.want
same "options: --record-path, --compact-report, --no-verify, --max-gpu-lanes, --pid" \
	lt-facts.want lt-facts.txt

# ct_all DIR FORM: the same for tr-compact-track
ct_all() {
	rm -rf "$1" && mkdir "$1"
	case $2 in
	sep) set -- --trace "$SRC" --output "$1/o.json" --max-gpu-lanes 2 --pid 0 \
		--max-event-bytes 1M --record-path --compact-report --no-verify ;;
	eq) set -- --trace="$SRC" --output="$1/o.json" --max-gpu-lanes=2 --pid=0 \
		--max-event-bytes=1M --record-path --compact-report --no-verify ;;
	abbr) set -- --t "$SRC" --o="$1/o.json" --max-g 2 --pi=0 --max-e 1M --r --c --n ;;
	esac
	RC=0
	tr-compact-track "$@" >"$T/out" 2>"$T/err" || RC=$?
}
for form in sep eq abbr; do
	ct_all "ct-$form" "$form"
	if [ "$RC" = 0 ] && [ ! -s "$T/err" ]; then
		pass "options: tr-compact-track, every option ($form)"
	else
		fail "options: tr-compact-track, every option ($form)" "exit $RC" "$(head -c 400 "$T/err")"
	fi
	sed "s|ct-$form/||" "$T/out" >"ct-$form.out"
	[ "$form" = sep ] && continue
	same "options: tr-compact-track ($form): the same output" ct-sep/o.json "ct-$form/o.json"
	same "options: tr-compact-track ($form): the same report" ct-sep/o.json.compact.json \
		"ct-$form/o.json.compact.json"
	same "options: tr-compact-track ($form): the same summary" ct-sep.out "ct-$form.out"
done
"$PY" - ct-sep/o.json.compact.json ct-sep.out >ct-facts.txt <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
rep = json.loads(text)
out = open(sys.argv[2]).read()
print(text.count('\n'), rep['source_file'], sorted(set(g['pid'] for g in rep['groups'])),
      rep['max_lanes'], max(g['lanes'] for g in rep['groups']), 'verification:' in out)
EOF
echo "1 ./plain.json [0] 2 2 False" >ct-facts.want
same "options: tr-compact-track --record-path, --compact-report, --no-verify, --max-gpu-lanes" \
	ct-facts.want ct-facts.txt

# The defaults: the base name, an indented report (json.dump(indent=2)'s
# layout: the same document as the one-line report, the same key order),
# and verification.
rm -rf lt-def && mkdir lt-def
expect 0 "defaults: tr-layer-track" "tr-layer-track --trace $SRC --output lt-def/o.json \
	--anchor-regex '$TARGET' --num-layers 3 --anchor-offset 0 --passes 3 --first-layer 2 \
	--end-anchor-regex silu_kernel --phase prefill --evidence '--not an option' --max-gpu-lanes 4"
grep -qx 'verification: verified (tr-verify: source identity, exact reversal, render, counts, placement)' "$T/out" &&
	pass "defaults: tr-layer-track verifies" || fail "defaults: tr-layer-track verifies" "$(cat "$T/out")"
"$PY" - lt-def/o.json.layers.json lt-sep/o.json.layers.json >lt-def.txt <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
a, b = json.loads(text), json.loads(open(sys.argv[2]).read())
lines = text.splitlines()
print(lines[0]); print(lines[1]); print(lines[2].startswith('  "notice": "Layer guides'), text.endswith('}\n'))
print(a['source_file'], a['compaction']['source_file'])
b['source_file'] = b['compaction']['source_file'] = 'plain.json'
print(a == b, json.dumps(a, indent=2) == json.dumps(b, indent=2))
EOF
cat >lt-def.want <<'EOF'
{
  "schema_version": 1,
True True
plain.json plain.json
True True
EOF
same "defaults: base name, indented report, the same document and key order" lt-def.want lt-def.txt
same "defaults: the same trace as with every option" lt-sep/o.json lt-def/o.json
rm -rf ct-def && mkdir ct-def
expect 0 "defaults: tr-compact-track" "tr-compact-track --trace $SRC --output ct-def/o.json --max-gpu-lanes 2"
"$PY" - ct-def/o.json.compact.json ct-sep/o.json.compact.json >ct-def.txt <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
a, b = json.loads(text), json.loads(open(sys.argv[2]).read())
b['source_file'] = 'plain.json'
print(text.splitlines()[1], a['source_file'], a == b, list(a) == list(b))
EOF
echo '  "schema_version": 1, plain.json True True' >ct-def.want
same "defaults: tr-compact-track: base name, indented report" ct-def.want ct-def.txt
# one "boundary_kind" per guide, however the report is laid out
rm -rf lt-lab && mkdir lt-lab
tr-layer-track --trace "$SRC" --output lt-lab/o.json --anchor-regex "$TARGET" --num-layers 3 \
	--anchor-offset 0 --passes 3 --phase p --evidence e --no-verify >lt-lab.out 2>&1
grep -qx 'labels added: 9 from 9 of 9 matches' lt-lab.out &&
	grep -qx 'labels added: 9 from 9 of 9 matches' lt-sep.out &&
	pass "labels counted in indented and one-line reports" ||
	fail "labels counted in indented and one-line reports" "$(cat lt-lab.out lt-sep.out)"

# The head record names the source: the base name, the path with
# --record-path, "-" for standard input.
{
	tr-decode "$SRC" | head -n 1
	tr-decode --record-path "$SRC" | head -n 1
	tr-decode "$T/plain.json" | head -n 1
	tr-decode - <plain.json | head -n 1
} | sed 's/.*"source":\("[^"]*"\).*/\1/' >src-names.txt
printf '"plain.json"\n"./plain.json"\n"plain.json"\n"-"\n' >src-names.want
same "tr-decode: the head records the base name, or the path with --record-path" src-names.want src-names.txt

# Refusals of the command line, as getopt_long words them, then the usage.
LTB="tr-layer-track --trace base.json --output u.json --anchor-regex attn --num-layers 3 --anchor-offset 0"
cmdline() { # NAME WANTED-FIRST-LINE CMD
	run "$3"
	if [ "$RC" = 2 ] && [ "$(head -n 1 "$T/err")" = "$2" ] &&
	   sed -n 2p "$T/err" | grep -q '^usage: tr-' && [ ! -e u.json ] && [ ! -s "$T/out" ]; then
		pass "$1"
	else
		fail "$1" "exit $RC" "stderr: $(head -c 300 "$T/err")" "wanted: $2"
	fi
}
cmdline "usage: ambiguous --p" \
	"tr-layer-track: option '--p' is ambiguous; possibilities: '--passes' '--pid' '--phase' '--progress'" \
	"$LTB --p 1 --phase p --evidence e"
cmdline "usage: ambiguous --e=x" \
	"tr-layer-track: option '--e' is ambiguous; possibilities: '--end-anchor-regex' '--evidence'" \
	"$LTB --phase p --e=x"
cmdline "usage: ambiguous --max" \
	"tr-layer-track: option '--max' is ambiguous; possibilities: '--max-gpu-lanes' '--max-event-bytes' '--max-member-bytes'" \
	"$LTB --phase p --evidence e --max 4"
cmdline "usage: tr-compact-track ambiguous --max" \
	"tr-compact-track: option '--max' is ambiguous; possibilities: '--max-gpu-lanes' '--max-event-bytes' '--max-member-bytes'" \
	"tr-compact-track --trace base.json --output u.json --max=4"
cmdline "usage: a flag with a value" \
	"tr-layer-track: option '--no-verify' takes no argument" \
	"$LTB --phase p --evidence e --no-v=yes"
cmdline "usage: tr-compact-track, a flag with a value" \
	"tr-compact-track: option '--record-path' takes no argument" \
	"tr-compact-track --trace base.json --output u.json --record-path=1"
cmdline "usage: a value missing at the end" \
	"tr-layer-track: option '--evidence' requires an argument" "$LTB --phase p --evid"
cmdline "usage: tr-compact-track, a value missing" \
	"tr-compact-track: option '--pid' requires an argument" "tr-compact-track --trace base.json --output u.json --pid"
cmdline "usage: an operand" "tr-layer-track: unexpected argument 'base.json'" \
	"$LTB --phase p --evidence e base.json"
cmdline "usage: an operand after --" "tr-compact-track: unexpected argument 'x'" \
	"tr-compact-track --trace base.json --output u.json -- x"
cmdline "usage: a short option" "tr-compact-track: unknown option '-x'" \
	"tr-compact-track --trace base.json --output u.json -x"
cmdline "usage: --=x" "tr-layer-track: unknown option '--=x'" "$LTB --=x"
cmdline "usage: tr-compact-track unknown option" "tr-compact-track: unknown option '--lanes'" \
	"tr-compact-track --trace base.json --output u.json --lanes 3"
cmdline "usage: --trace= is no trace" "tr-compact-track: --trace and --output are required" \
	"tr-compact-track --trace= --output u.json"
expect 0 "usage: --h is --help" "tr-layer-track --h" && grep -q '^usage: tr-layer-track' "$T/out" &&
	pass "usage: --h prints the usage on stdout" || fail "usage: --h prints the usage on stdout"
expect 0 "usage: --vers is --version" "tr-compact-track --vers" &&
	[ "$(cat "$T/out")" = "$(printf 'tr-compact-track %s\n' "$VERSION"; tr-decode --version | sed 1d)" ] &&
	pass "usage: --vers prints the version" || fail "usage: --vers prints the version" "$(cat "$T/out")"
expect 0 "usage: -h" "tr-compact-track -h"

# --trace - and --output -: the commands need files; no stage runs.
expect 2 "--trace - is refused" "$LTB --phase p --evidence e --trace -" \
	"tr-layer-track: --trace -: the trace must be a file, not standard input (it is read twice: to write the output and to verify it); save it to a file first (./- names a file called -)"
expect 2 "tr-compact-track --trace - is refused" "tr-compact-track --trace - --output u.json <base.json" \
	"tr-compact-track: --trace -: the trace must be a file"
expect 2 "--output - is refused" "$LTB --phase p --evidence e --output -" \
	"tr-layer-track: --output -: the output must be a file, not standard output (its report is written beside it); give a file name (./- names a file called -)"
expect 2 "tr-compact-track --output - is refused" "tr-compact-track --trace base.json --output -" \
	"tr-compact-track: --output -: the output must be a file"
absent "--output -: no report named -.layers.json" ./-.layers.json ./-.compact.json
mkdir -p dash && cp plain.json dash/-
expect 0 "a trace file named - as ./-" "cd dash && tr-compact-track --trace ./- --output ./o.json"

# --max-event-bytes reaches tr-decode (and tr-verify: see below).
refused "--max-event-bytes 100: tr-decode refuses a larger event" 1 \
	"larger than --max-event-bytes" "$SRC" --anchor-regex "$TARGET" --num-layers 3 --anchor-offset 0 \
	--max-event-bytes 100
expect 1 "tr-compact-track --max-event-bytes=100: refused" \
	"tr-compact-track --trace $SRC --output u.json --max-event-bytes=100" "larger than --max-event-bytes"
absent "tr-compact-track --max-event-bytes=100: nothing written" u.json u.json.compact.json

# --pid scopes the compaction: pid 0 needs 11 lanes, pid 1 fits.
{
	echo @lanes11.json
	for t in 1 2 3 4 5 6 7 8 9 10 11; do echo "kernel|gemm$t|0|$t|100|50|0"; done
	echo 'kernel|attn|1|1|100|10|1'
	echo 'kernel|gemm|1|2|105|30|1'
	echo 'kernel|attn|1|1|200|10|1'
	echo 'kernel|gemm|1|2|205|30|1'
	echo 'kernel|attn|1|1|300|10|1'
} | mk
refused "--max-gpu-lanes without --pid compacts every pid: refused" 1 \
	"pid 0, device 0: GPU activity needs 11 lanes (peak concurrency) but --max-gpu-lanes is 10" \
	lanes11.json --anchor-regex attn --num-layers 3 --anchor-offset 0 --max-gpu-lanes 10
rm -f p1.json p1.json.layers.json
expect 0 "--pid 1 --max-gpu-lanes 10: pid 1 only" "tr-layer-track --trace lanes11.json --output p1.json \
	--anchor-regex attn --num-layers 3 --anchor-offset 0 --phase p --evidence e --pid 1 --max-gpu-lanes 10"
tr-decode lanes11.json | grep '"pid":0,' >p1-src0.txt
tr-decode p1.json | grep '"pid":0,' >p1-out0.txt
same "--pid 1: pid 0's events are untouched" p1-src0.txt p1-out0.txt
"$PY" -c '
import json
c = json.load(open("p1.json.layers.json"))["compaction"]
print([(g["pid"], g["device"], g["lanes"]) for g in c["groups"]])' >p1.txt
echo '[(1, 1, 2)]' >p1.want
same "--pid 1: only pid 1 is compacted (2 lanes)" p1.want p1.txt

# --device scopes it too: in the layout above (device d is pid d) --device 1
# gives what --pid 1 gives; in one pid with two devices, only that device's
# tracks move.
rm -f d1.json d1.json.layers.json
expect 0 "--device 1 --max-gpu-lanes 10: device 1 only" "tr-layer-track --trace lanes11.json \
	--output d1.json --anchor-regex attn --num-layers 3 --anchor-offset 0 --phase p --evidence e \
	--device 1 --max-gpu-lanes 10"
tr-decode d1.json | grep -v '^{"@tr"' >d1.events
tr-decode p1.json | grep -v '^{"@tr"' >p1.events
same "--device 1: the same events as --pid 1 where device 1 is pid 1" p1.events d1.events
{
	echo @twodev.json
	for t in 1 2 3 4 5 6 7 8 9 10 11; do echo "kernel|gemm$t|0|$t|100|50|0"; done
	echo 'kernel|attn|0|21|100|10|1'
	echo 'kernel|gemm|0|22|105|30|1'
	echo 'kernel|attn|0|21|200|10|1'
	echo 'kernel|gemm|0|22|205|30|1'
	echo 'kernel|attn|0|21|300|10|1'
} | mk
rm -f d2.json d2.json.layers.json
expect 0 "--device 1 of a pid with two devices: that device only" "tr-layer-track --trace twodev.json \
	--output d2.json --anchor-regex attn --num-layers 3 --anchor-offset 0 --phase p --evidence e \
	--device 1 --max-gpu-lanes 10"
tr-decode twodev.json | grep '"device":0' >d2-src0.txt
tr-decode d2.json | grep '"device":0' >d2-out0.txt
same "--device 1: device 0's events are untouched" d2-src0.txt d2-out0.txt
"$PY" -c '
import json
c = json.load(open("d2.json.layers.json"))["compaction"]
print([(g["pid"], g["device"], g["lanes"]) for g in c["groups"]])' >d2.txt
echo '[(0, 1, 2)]' >d2.want
same "--device 1: only device 1 is compacted (2 lanes)" d2.want d2.txt
expect 1 "tr-compact --device with no activity there: refused, naming the devices" \
	"tr-decode twodev.json | tr-compact --device 5" \
	"tr-compact: nothing to compact: no GPU activity on device 5; GPU activity is on pid 0, device 0; pid 0, device 1"

# Verification does not depend on stdout: with stdout a pipe whose reader is
# gone, the command still verifies (a stand-in tr-verify records its
# arguments), says nothing of the lost summary, and a failed verification
# still ends it with exit 1 and the verdict on stderr.  The stand-in also
# shows that --max-event-bytes reaches tr-verify.
mkdir -p stand && cp "$ROOT/scripts/tr-layer-track" "$ROOT/scripts/tr-compact-track" \
	"$ROOT/scripts/tr-common.sh" stand/
for b in "$BIN"/tr-*; do ln -sf "$b" stand/; done
rm -f stand/tr-verify
cat >stand/tr-verify <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$T/verify.log"
[ -z "\${VERIFY_FAILS:-}" ] || { echo "NOT VERIFIED: stand-in" >&2; exit 1; }
exit 0
EOF
chmod +x stand/tr-verify
# closed_stdout CMD...: run CMD with stdout a pipe whose reading end is
# closed (every write fails with SIGPIPE/EPIPE); RC and T/err as run does.
closed_stdout() {
	RC=0
	"$PY" -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w, stderr=open(os.environ["ERR"], "wb")).returncode)
' "$@" || RC=$?
}
rm -f verify.log sp.json*
ERR=$T/err closed_stdout stand/tr-layer-track --trace "$SRC" --output sp.json --anchor-regex "$TARGET" \
	--num-layers 3 --anchor-offset 0 --phase p --evidence e --max-event-bytes 2M
if [ "$RC" = 0 ] && [ ! -s "$T/err" ] && [ "$(cat verify.log)" = "--max-event-bytes 2M --source $SRC --output sp.json" ]; then
	pass "stdout gone: tr-layer-track still verifies, exit 0, nothing on stderr"
else
	fail "stdout gone: tr-layer-track still verifies, exit 0, nothing on stderr" "exit $RC" \
		"stderr: $(head -c 300 "$T/err")" "tr-verify ran with: $(cat verify.log 2>/dev/null)"
fi
rm -f verify.log sp.json*
ERR=$T/err VERIFY_FAILS=1 closed_stdout stand/tr-compact-track --trace "$SRC" --output sp.json --max-e=2M
if [ "$RC" = 1 ] && grep -qxF "NOT VERIFIED: stand-in" "$T/err" &&
   grep -qF "tr-compact-track: verification FAILED (tr-verify exit status 1): do not use this output" "$T/err" &&
   [ "$(cat verify.log)" = "--max-event-bytes 2M --source $SRC --output sp.json" ]; then
	pass "stdout gone: a failed verification still exits 1 and says so"
else
	fail "stdout gone: a failed verification still exits 1 and says so" "exit $RC" \
		"stderr: $(head -c 300 "$T/err")" "tr-verify ran with: $(cat verify.log 2>/dev/null)"
fi
# stdout closed (>&-): refused at start, before anything is written (the
# closed-descriptor cases of every program are in t-hostile.sh)
rm -f cs.json*
expect 2 "stdout closed: tr-compact-track refuses to run" \
	"tr-compact-track --trace $SRC --output cs.json >&-" \
	"tr-compact-track: standard output (descriptor 1) is closed; refusing to run" &&
	absent "stdout closed: nothing written" cs.json cs.json.compact.json
# the real tr-verify with --max-event-bytes, where it has the option
if tr-verify --help 2>&1 | grep -q -- --max-event-bytes; then
	rm -f mv.json*
	expect 0 "--max-event-bytes: verified with the real tr-verify" \
		"tr-compact-track --trace $SRC --output mv.json --max-event-bytes 1M"
else
	skip "--max-event-bytes with the real tr-verify" "this tr-verify has no --max-event-bytes"
fi

# The summary goes through an unlinked scratch file: nothing of the command
# is left in TMPDIR, even by SIGKILL (which no trap sees).
mkdir -p tmpd
rm -f sk.json*
TMPDIR=$T/tmpd tr-layer-track --trace "$SRC" --output sk.json --anchor-regex "$TARGET" --num-layers 3 \
	--anchor-offset 0 --phase p --evidence e --max-gpu-lanes 4 --no-verify >/dev/null 2>&1
TMPDIR=$T/tmpd tr-compact-track --trace "$SRC" --output sk2.json --no-verify >/dev/null 2>&1
if [ -e sk.json ] && [ -e sk2.json ] && [ -z "$(ls -A tmpd)" ]; then
	pass "scratch: the summary file is gone from TMPDIR while the command runs"
else
	fail "scratch: the summary file is gone from TMPDIR while the command runs" "$(ls -A tmpd)"
fi
# a stage ended by a signal: named once, no bash job messages
rm -f stand/tr-encode
cat >stand/tr-encode <<'EOF'
#!/bin/sh
kill -KILL $$
EOF
chmod +x stand/tr-encode
rm -f sg.json*
run "stand/tr-compact-track --trace $SRC --output sg.json"
printf '%s\n' "tr-compact-track: a stage of the pipeline was ended by SIGKILL" \
	"tr-compact-track: failed (exit status 2); nothing was written" >sg.want
if [ "$RC" = 2 ] && cmp -s sg.want "$T/err"; then
	pass "a stage killed: named, no job-control noise"
else
	fail "a stage killed: named, no job-control noise" "exit $RC" "stderr: $(head -c 400 "$T/err")"
fi

# ------------------------------------------------------------ real traces

if [ ! -d "$TRACES" ]; then
	skip "real traces" "$TRACES is absent: no guides on real traces"
	return 0
fi
# real FILE: the trace is there, or the cases on it are skipped.
real() {
	[ -f "$TRACES/$1" ] && return 0
	skip "$1" "not in $TRACES"
	return 1
}
# Each trace is decoded by the oracle once for all its outputs (NOCHECK).
BERT=$TRACES/gaunernst_bert-small-uncased__1016001.json.gz
if real "$(basename "$BERT")"; then
	track "BERT-small flash_fwd x 4" "$BERT" bert.json prefill \
		--anchor-regex flash_fwd_kernel --num-layers 4 --anchor-offset 0
fi
QW3=$TRACES/sglang_Qwen3-8B_prefilldecode.json.gz
if real "$(basename "$QW3")"; then
	NOCHECK=1 track "Qwen3-8B sglang rotary x 36" "$QW3" qwen3.json.gz prefill \
		--anchor-regex 'rotary_embedding_kernel' --num-layers 36 --anchor-offset 0
	NOCHECK=1 track "Qwen3-8B sglang FmhaBatchPrefill x 36, --pid 9" "$QW3" qwen3b.json prefill \
		--anchor-regex 'FmhaBatchPrefillWithPagedKVCache' --num-layers 36 --anchor-offset 0 --pid 9
	guides "Qwen3-8B sglang rotary and FmhaBatchPrefill x 36: guides" "$QW3" \
		qwen3.json.gz --regex 'rotary_embedding_kernel' --layers 36 --offset 0 :: \
		qwen3b.json --regex 'FmhaBatchPrefillWithPagedKVCache' --layers 36 --offset 0 --pid 9
fi
EAGER=$TRACES/eager_trace.json.gz
if real "$(basename "$EAGER")"; then
	track "B200 eager rotary x 36" "$EAGER" eager.json prefill \
		--anchor-regex 'vllm::rotary_embedding_kernel' --num-layers 36 --anchor-offset 0
fi
OWL=$TRACES/google_owlv2-large-patch14-ensemble__1016001.json.gz
if real "$(basename "$OWL")"; then
	NOCHECK=1 track "OWLv2 vision cunn_SoftMaxForward 24 x 5" "$OWL" owlv.json vision \
		--anchor-regex 'cunn_SoftMaxForward' --num-layers 24 --anchor-offset 0 --passes 5
	NOCHECK=1 track "OWLv2 text softmax_warp_forward 12 x 5" "$OWL" owlt.json text \
		--anchor-regex 'softmax_warp_forward' --num-layers 12 --anchor-offset 0 --passes 5
	guides "OWLv2 vision 24 x 5 and text 12 x 5: guides" "$OWL" owlv.json --phase vision \
		--regex 'cunn_SoftMaxForward' --layers 24 --offset 0 --passes 5 :: \
		owlt.json --phase text --regex 'softmax_warp_forward' --layers 12 --offset 0 --passes 5
fi
# Qwen1.5 starts mid-forward: 11 silu and 10 flash kernels of the previous
# step's tail come before the embedding (indexSelectLargeIndex), so L0 is the
# 12th silu (offset 11) or the 11th flash kernel (offset 10).
QW=$TRACES/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz
if real "$(basename "$QW")"; then
	NOCHECK=1 track "Qwen1.5 silu x 24 from offset 11" "$QW" qwen15.json prefill \
		--anchor-regex 'silu_kernel' --num-layers 24 --anchor-offset 11
	NOCHECK=1 track "Qwen1.5 flash_fwd x 24 from offset 10" "$QW" qwen15f.json prefill \
		--anchor-regex 'flash_fwd_kernel' --num-layers 24 --anchor-offset 10
	guides "Qwen1.5 silu and flash_fwd x 24: guides" "$QW" \
		qwen15.json --regex 'silu_kernel' --layers 24 --offset 11 :: \
		qwen15f.json --regex 'flash_fwd_kernel' --layers 24 --offset 10
	"$PY" -c '
import gzip, json, sys
from decimal import Decimal
ev = json.load(gzip.open(sys.argv[1], "rt"), parse_float=Decimal)["traceEvents"]
ks = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
emb = min(e["ts"] for e in ks if "indexSelectLargeIndex" in e["name"])
for p, out in (("silu_kernel", "qwen15.json"), ("flash_fwd_kernel", "qwen15f.json")):
    t = sorted(e["ts"] for e in ks if p in e["name"])
    rows = json.load(open(out + ".layers.json"), parse_float=Decimal)["layers"]
    print(p, len(t), sum(x < emb for x in t), rows[0]["start_us"] == min(x for x in t if x > emb))
' "$QW" >qw.txt
	printf 'silu_kernel 35 11 True\nflash_fwd_kernel 34 10 True\n' >qw.want
	same "Qwen1.5: L0 is the first layer after the embedding" qw.want qw.txt
	refused "Qwen1.5: the silu offset with the flash kernel is truncated" 1 \
		"truncated selection: 34 kernels match in pid 0, device 0; from --anchor-offset 11 there are 23" "$QW" \
		--anchor-regex 'flash_fwd_kernel' --num-layers 24 --anchor-offset 11
	refused "Qwen1.5: the guided output is refused as input" 1 "already has layer guides" qwen15.json \
		--anchor-regex 'silu_kernel' --num-layers 24 --anchor-offset 11
fi
rm -f d3.json d3.json.compact.json
expect 0 "tr-compact-track --device 1 of a pid with two devices" \
	"tr-compact-track --trace twodev.json --output d3.json --device 1 --max-gpu-lanes 10"
tr-decode d3.json | grep '"device":0' >d3-out0.txt
same "tr-compact-track --device 1: device 0's events are untouched" d2-src0.txt d3-out0.txt
