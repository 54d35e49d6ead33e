# t-confirm: the second landmark of tr-select-anchors (--confirm-regex,
# --confirm-cpu) on generated traps (draft passes, a norm that runs twice per
# layer) and fixtures for every rule, checked against an independent python
# oracle; its record in the layers report and tr-verify's recount (with a
# mutated report); a kernel with a negative dur anywhere; Python's \u
# escapes in patterns.  Sourced by run.sh (BIN, ROOT, T, TRACES set).

cd "$T" || exit 2
EV='test evidence: model config'

# lcheck.py TRACE OPTIONS: with tr-select-anchors' own options (one pid and
# device among the anchors), prints "ok" or the refusal that the rule of
# tr-select-anchors(1) asks for, computed here from the JSON.
cat >lcheck.py <<'PY'
import argparse, gzip, json, re
from decimal import Decimal, ROUND_FLOOR
ap = argparse.ArgumentParser()
ap.add_argument('trace')
ap.add_argument('--anchor-regex', dest='regex', required=True)
ap.add_argument('--end-anchor-regex', dest='end')
ap.add_argument('--num-layers', dest='layers', type=int, required=True)
ap.add_argument('--anchor-offset', dest='offset', type=int, required=True)
ap.add_argument('--passes', type=int, default=1)
ap.add_argument('--first-layer', dest='first', type=int, default=0)
ap.add_argument('--confirm-regex', dest='confirm', required=True)
ap.add_argument('--confirm-cpu', dest='cpu', action='store_true')
a = ap.parse_args()
data = open(a.trace, 'rb').read()
if data[:2] == b'\x1f\x8b':
    data = gzip.decompress(data)
doc = json.loads(data, parse_float=str, parse_int=str)
ev = doc['traceEvents'] if isinstance(doc, dict) else doc
def cats(e): return set(e['cat'].split(',')) if isinstance(e.get('cat'), str) else set()
def ns(t): return int((Decimal(t) * 1000).to_integral_value(rounding=ROUND_FLOOR))
def key(e): return (ns(e['ts']), Decimal(e['ts']) * 1000 != ns(e['ts']))
def us3(n): return '%s%d.%03d' % ('-' if n < 0 else '', abs(n) // 1000, abs(n) % 1000)
def dev(e): return (e.get('args') or {}).get('device')
kern = [(i, e) for i, e in enumerate(ev) if e.get('ph') == 'X' and cats(e) & {'kernel', 'Kernel'}]
anchors = sorted([(key(e), i, e) for i, e in kern if re.search(a.regex, e['name'])], key=lambda x: x[:2])
pid, device = anchors[0][2]['pid'], dev(anchors[0][2])
anchors = [e for _, _, e in anchors]
N = a.layers
sel = anchors[a.offset:a.offset + N * a.passes]
head = "tr-select-anchors: --confirm-regex '%s'%s: " % (a.confirm, ' --confirm-cpu' if a.cpu else '')
tail = ('tr-select-anchors: a wrong anchor with the right count (a draft pass, a kernel that runs '
        'twice per layer) or a landmark that is not once per layer: compare both with tr-survey')
if not a.cpu:
    marks = sorted(key(e) for _, e in kern if re.search(a.confirm, e['name']) and
                   e['pid'] == pid and dev(e) == device)
    terms = [e for _, e in kern if a.end and re.search(a.end, e['name'])]
    for i, an in enumerate(sel):
        layer = i % N
        if layer + 1 < N:
            hi = key(sel[i + 1])
            where = 'pass %d, layers %d and %d (anchors at ts %s and %s)' % (
                i // N, a.first + layer, a.first + layer + 1, an['ts'], sel[i + 1]['ts'])
        elif a.end:
            at = a.offset + i
            nxt = key(anchors[at + 1]) if at + 1 < len(anchors) else None
            t = [e for e in terms if key(e) >= key(an) and (nxt is None or key(e) < nxt)]
            if len(t) != 1:
                continue
            t = t[0]
            end = Decimal(t['ts']) + Decimal(t['dur'])
            hi = (ns(str(end)), Decimal(end) * 1000 != ns(str(end)))
            where = 'pass %d, layer %d (anchor at ts %s, up to the end of its terminal at ts %s, dur %s)' % (
                i // N, a.first + layer, an['ts'], t['ts'], t['dur'])
        else:
            continue
        n = sum(1 for m in marks if key(an) <= m < hi)
        if n != 1:
            print(head + where + ': %d kernels match there; exactly one is needed' % n)
            print(tail)
            raise SystemExit
else:
    launch = {}
    for e in ev:
        if e.get('ph') == 'X' and cats(e) & {'cuda_runtime', 'cuda_driver', 'Runtime'}:
            c = (e.get('args') or {}).get('correlation')
            if c is not None and c not in launch:
                launch[c] = e
    la = [launch[an['args']['correlation']] for an in sel]
    threads = {(l['pid'], l['tid']) for l in la}
    scopes = sorted(key(e) for e in ev if e.get('ph') == 'X' and
                    cats(e) & {'cpu_op', 'user_annotation', 'python_function', 'Operator'} and
                    re.search(a.confirm, e['name']) and (e['pid'], e['tid']) in threads)
    for i in range(len(sel) - 1):
        layer = i % N
        if layer + 1 == N:
            continue
        lo, hi = key(la[i]), key(la[i + 1])
        n = sum(1 for s in scopes if lo <= s < hi)
        if n != 1:
            print(head + 'pass %d, layers %d and %d (anchors at ts %s and %s, launched at ts %s and %s): '
                  '%d CPU scopes start there; exactly one is needed' % (
                      i // N, a.first + layer, a.first + layer + 1, sel[i]['ts'], sel[i + 1]['ts'],
                      us3(lo[0]), us3(hi[0]), n))
            print(tail)
            raise SystemExit
print('ok')
PY

# landmark NAME ok|refused TRACE OPTIONS...: the oracle finds the case as
# the test says, and tr-select-anchors with OPTIONS does what the oracle
# says: passes (exit 0, nothing on stderr) or refuses (exit 1) with exactly
# the oracle's two lines.
landmark() {
	name=$1 verdict=$2 trace=$3
	shift 3
	if ! python3 "$T/lcheck.py" "$trace" "$@" >"$T/want.err" 2>"$T/oracle"; then
		fail "$name: oracle" "$(tail -2 "$T/oracle")"
		return 1
	fi
	case $verdict:$(head -c 2 "$T/want.err") in
	ok:ok|refused:tr) ;;
	*) fail "$name: the oracle disagrees with the test ($verdict)" "$(head -c 300 "$T/want.err")"
	   return 1 ;;
	esac
	RC=0
	tr-decode "$trace" | tr-select-anchors "$@" >"$T/out" 2>"$T/err" || RC=$?
	if [ "$(cat "$T/want.err")" = ok ]; then
		if [ "$RC" = 0 ] && [ ! -s "$T/err" ]; then
			pass "$name"
		else
			fail "$name" "exit status $RC, wanted 0" "stderr: $(head -c 400 "$T/err")"
		fi
	elif [ "$RC" != 1 ]; then
		fail "$name" "exit status $RC, wanted 1" "stderr: $(head -c 400 "$T/err")" \
			"oracle: $(head -c 300 "$T/want.err")"
	elif cmp -s "$T/want.err" "$T/err"; then
		pass "$name"
	else
		fail "$name" "stderr: $(head -c 500 "$T/err")" "wanted: $(head -c 500 "$T/want.err")"
	fi
}

# ------------------------------------------------------- generated traps

# 4 layers, 2 target passes, each after 2 draft passes of 4 layers whose
# kernels differ from the target's in template arguments only
tr-gen --layers 4 --passes 2 --draft-passes 2 --draft-layers 4 -o spec.json
ROT="rotary_embedding_kernel<c10::BFloat16, true>"

expect 0 "the draft trap: draft attention has the right count and is accepted alone" \
	"tr-decode spec.json | tr-select-anchors --anchor-regex flash_fwd_kernel --num-layers 4 --passes 2 --anchor-offset 0 >/dev/null"
landmark "the draft trap: refused once the target rotary confirms" refused spec.json \
	--anchor-regex flash_fwd_kernel --num-layers 4 --passes 2 --anchor-offset 0 --confirm-regex "$ROT"
landmark "the target attention: confirmed by the target rotary" ok spec.json \
	--anchor-regex 'Flash_fwd_kernel_traits<128' --num-layers 4 --passes 2 --anchor-offset 0 \
	--confirm-regex "$ROT"
# a norm twice per layer, 4 x 2 of its 16 matches: half passes, refused
# from their timing alone
expect 1 "the norm trap: a norm twice per layer, taken as once, is not whole passes" \
	"tr-decode spec.json | tr-select-anchors --anchor-regex 'rms_norm_kernel<c10::BFloat16>' --num-layers 4 --passes 2 --anchor-offset 0 >/dev/null" \
	"tr-select-anchors: the selection is not whole passes: between passes 0 and 1 "
landmark "the norm trap: refused once the rotary confirms" refused spec.json \
	--anchor-regex 'rms_norm_kernel<c10::BFloat16>' --num-layers 4 --passes 2 --anchor-offset 0 \
	--confirm-regex "$ROT" --first-layer 3
landmark "--confirm-cpu: the target attention, confirmed by the rotary cpu_op" ok spec.json \
	--anchor-regex 'Flash_fwd_kernel_traits<128' --num-layers 4 --passes 2 --anchor-offset 0 \
	--confirm-regex '^_C::rotary_embedding$' --confirm-cpu
landmark "--confirm-cpu: the norm trap refused by the attention cpu_op" refused spec.json \
	--anchor-regex 'rms_norm_kernel<c10::BFloat16>' --num-layers 4 --passes 2 --anchor-offset 0 \
	--confirm-regex '^vllm::unified_attention$' --confirm-cpu

# -------------------------------------------------------------- fixtures

# mk <<EOF: traces from lines "cat|name|pid|tid|ts|dur|args" (raw JSON
# texts; args "-" leaves it out), each file started by "@FILE".
mk() {
	python3 -c '
import sys
files = {}
for line in sys.stdin.read().split("\n"):
    if line.startswith("@"):
        cur = files.setdefault(line[1:], [])
        continue
    if not line.strip():
        continue
    cat, name, pid, tid, ts, dur, args = line.split("|")
    m = [("ph", "\"X\""), ("cat", "\"%s\"" % cat), ("name", "\"%s\"" % name),
         ("pid", pid), ("tid", tid), ("ts", ts), ("dur", dur), ("args", args)]
    cur.append("{" + ",".join("\"%s\":%s" % (k, v) for k, v in m if v != "-") + "}")
for name, evs in files.items():
    with open(name, "w") as f:
        f.write("{\"traceEvents\":[\n" + ",\n".join(evs) + "\n]}\n")
'
}

# ends.json: one pass of 3 layers, anchors A at 100, 200, 300, terminals T
#   ending each layer, the landmark L once per layer, the last one at 310
#   (before the last terminal's end, 330); lastout.json: the same with the
#   last L at 335, after it.  passes.json: 2 passes of 2 layers, L once in
#   each pass, none between the passes, two after the last anchor; L on
#   device 1 and in pid 1 between the first anchors (not counted).
#   edge.json: L at exactly the anchors' ts (half-open intervals).
#   twice.json: two L in the first interval.  negdur.json: an anchor-free
#   kernel with a negative dur.
mk <<'EOF2'
@ends.json
kernel|A|0|7|100|10|{"device":0}
kernel|L|0|8|120|5|{"device":0}
kernel|T|0|7|150|10|{"device":0}
kernel|A|0|7|200|10|{"device":0}
kernel|L|0|7|220|5|{"device":0}
kernel|T|0|7|250|10|{"device":0}
kernel|A|0|7|300|10|{"device":0}
kernel|L|0|7|310|5|{"device":0}
kernel|T|0|7|320|10|{"device":0}
@lastout.json
kernel|A|0|7|100|10|{"device":0}
kernel|L|0|8|120|5|{"device":0}
kernel|T|0|7|150|10|{"device":0}
kernel|A|0|7|200|10|{"device":0}
kernel|L|0|7|220|5|{"device":0}
kernel|T|0|7|250|10|{"device":0}
kernel|A|0|7|300|10|{"device":0}
kernel|T|0|7|320|10|{"device":0}
kernel|L|0|7|335|5|{"device":0}
@passes.json
kernel|A|0|7|100|10|{"device":0}
kernel|L|0|7|150|5|{"device":0}
kernel|L|0|9|160|5|{"device":1}
kernel|L|1|7|170|5|{"device":0}
kernel|A|0|7|200|10|{"device":0}
kernel|A|0|7|1000|10|{"device":0}
kernel|L|0|7|1050|5|{"device":0}
kernel|A|0|7|1100|10|{"device":0}
kernel|L|0|7|1150|5|{"device":0}
kernel|L|0|7|1160|5|{"device":0}
@edge.json
kernel|A|0|7|100.5|10|{"device":0}
kernel|L|0|8|100.5|5|{"device":0}
kernel|A|0|7|200|10|{"device":0}
kernel|L|0|8|200.000|5|{"device":0}
@twice.json
kernel|A|0|7|100|10|{"device":0}
kernel|L|0|7|120|5|{"device":0}
kernel|L|0|7|140|5|{"device":0}
kernel|A|0|7|200|10|{"device":0}
@negdur.json
kernel|A|0|7|100|10|{"device":0}
kernel|B|0|7|150|-1.5|{"device":0}
kernel|A|0|7|200|10|{"device":0}
EOF2

landmark "fixture: the last layer of a pass, up to its terminal's end" ok ends.json \
	--anchor-regex '^A$' --end-anchor-regex '^T$' --num-layers 3 --anchor-offset 0 --confirm-regex '^L$'
landmark "fixture: a landmark after the last terminal's end is refused" refused lastout.json \
	--anchor-regex '^A$' --end-anchor-regex '^T$' --num-layers 3 --anchor-offset 0 --confirm-regex '^L$'
landmark "fixture: without a terminal the last layer is not checked" ok lastout.json \
	--anchor-regex '^A$' --num-layers 3 --anchor-offset 0 --confirm-regex '^L$'
landmark "fixture: no check across passes; other pids and devices not counted" ok passes.json \
	--anchor-regex '^A$' --num-layers 2 --passes 2 --anchor-offset 0 --confirm-regex '^L$'
landmark "fixture: one pass of 4 layers over the same anchors is refused" refused passes.json \
	--anchor-regex '^A$' --num-layers 4 --anchor-offset 0 --confirm-regex '^L$'
landmark "fixture: half-open intervals at equal timestamps" ok edge.json \
	--anchor-regex '^A$' --num-layers 2 --anchor-offset 0 --confirm-regex '^L$'
landmark "fixture: two landmarks in one interval are refused" refused twice.json \
	--anchor-regex '^A$' --num-layers 2 --anchor-offset 0 --confirm-regex '^L$'
tr-decode ends.json >ends.stream
expect 1 "fixture: a kernel matching the anchor and the landmark is refused" \
	"tr-select-anchors --anchor-regex '^A$' --num-layers 3 --anchor-offset 0 --confirm-regex 'A|L' <ends.stream" &&
	stderr_is "fixture: overlapping patterns: message" \
		"tr-select-anchors: event 0: kernel 'A' matches both --anchor-regex and --confirm-regex; make the patterns exclusive"
expect 1 "fixture: a kernel matching the terminal and the landmark is refused" \
	"tr-select-anchors --anchor-regex '^A$' --end-anchor-regex T --num-layers 3 --anchor-offset 0 --confirm-regex 'T|L' <ends.stream" &&
	stderr_is "fixture: overlapping terminal and landmark: message" \
		"tr-select-anchors: event 2: kernel 'T' matches both --end-anchor-regex and --confirm-regex; make the patterns exclusive"
expect 2 "usage: --confirm-cpu needs --confirm-regex" \
	"tr-select-anchors --anchor-regex A --num-layers 3 --anchor-offset 0 --confirm-cpu <ends.stream" \
	"tr-select-anchors: --confirm-cpu needs --confirm-regex"
expect 2 "usage: a bad --confirm-regex" \
	"tr-select-anchors --anchor-regex A --num-layers 3 --anchor-offset 0 --confirm-regex 'L(' <ends.stream" &&
	stderr_is "usage: a bad --confirm-regex: message" \
		"tr-select-anchors: --confirm-regex: at offset 2: missing closing parenthesis"

# the anchors record, and the layers report through tr-layer-track
tr-select-anchors --anchor-regex '^A$' --num-layers 3 --anchor-offset 0 --confirm-regex '^L$' \
	<ends.stream | grep '"@tr":"anchors"' | grep -o '"end_anchor_regex":null,"confirm_regex":"^L$","confirm_cpu":false,' >rec.txt
echo '"end_anchor_regex":null,"confirm_regex":"^L$","confirm_cpu":false,' >rec.want
same "the anchors record carries confirm_regex and confirm_cpu" rec.want rec.txt

# ------------------------------------------------ negative dur (issue 13)

tr-decode negdur.json >negdur.stream
expect 1 "a kernel outside the selection with a negative dur is refused" \
	"tr-select-anchors --anchor-regex '^A$' --num-layers 2 --anchor-offset 0 <negdur.stream" &&
	stderr_is "negative dur outside the selection: message" \
		'tr-select-anchors: event 1 (ts 150): kernel "B" has a negative dur (-1.5); Perfetto would misplace it and the trace bounds, so no guides are added to this trace'

# ----------------------------------------- Python escapes in the patterns

expect 0 "regex: \\u0041 is Python's A" \
	"tr-select-anchors --anchor-regex '^\\u0041\$' --num-layers 3 --anchor-offset 0 <ends.stream >/dev/null"
expect 2 "regex: \\N{NAME} is refused naming \\x{...}" \
	"tr-select-anchors --anchor-regex '\\N{LATIN CAPITAL LETTER A}' --num-layers 3 --anchor-offset 0 <ends.stream" &&
	stderr_is "regex: \\N{NAME}: message" \
		'tr-select-anchors: --anchor-regex: at offset 0: \N{...} (a character by its Unicode name) is not supported, PCRE2 has no name table: write the code point as \x{...}, e.g. \x{e9} for \N{LATIN SMALL LETTER E WITH ACUTE}'

# ------------------------------------------------------ --confirm-cpu rules

# cpu.json: anchors A (correlations 1-3) launched by cuda_runtime events on
#   pid 50, tid 51; the scope S starts once between consecutive launches on
#   that thread, and also on tid 52 (another thread: not counted).
# graph.json: the second and third anchors share one launch (as in a CUDA
#   graph).  nocorr.json: an anchor without args.correlation.  old.json: the
#   PyTorch 1.8-era categories Kernel, Runtime and Operator; the second
#   interval holds two scopes.
mk <<'EOF2'
@old.json
Operator|S|50|"51"|9|5|-
Runtime|cudaLaunchKernel|50|"51"|10|2|{"correlation":1}
Operator|S|50|"51"|19|5|-
Runtime|cudaLaunchKernel|50|"51"|20|2|{"correlation":2}
Operator|S|50|"51"|25|1|-
Operator|S|50|"51"|27|1|-
Runtime|cudaLaunchKernel|50|"51"|30|2|{"correlation":3}
Kernel|A|0|"stream 7"|100|10|{"device":0,"correlation":1}
Kernel|A|0|"stream 7"|200|10|{"device":0,"correlation":2}
Kernel|A|0|"stream 7"|300|10|{"device":0,"correlation":3}
@cpu.json
python_function|S|50|51|9|5|-
cuda_runtime|cudaLaunchKernel|50|51|10|2|{"correlation":1}
python_function|S|50|51|19|5|-
python_function|S|50|52|21|5|-
cuda_runtime|cudaLaunchKernel|50|51|20|2|{"correlation":2}
user_annotation|S|50|51|29|5|-
cuda_runtime|cudaLaunchKernel|50|51|30|2|{"correlation":3}
kernel|A|0|7|100|10|{"device":0,"correlation":1}
kernel|A|0|7|200|10|{"device":0,"correlation":2}
kernel|A|0|7|300|10|{"device":0,"correlation":3}
@graph.json
cuda_runtime|cudaGraphLaunch|50|51|10|2|{"correlation":1}
cpu_op|S|50|51|15|1|-
cuda_runtime|cudaGraphLaunch|50|51|20|2|{"correlation":2}
kernel|A|0|7|100|10|{"device":0,"correlation":1}
kernel|A|0|7|200|10|{"device":0,"correlation":2}
kernel|A|0|7|300|10|{"device":0,"correlation":2}
@nocorr.json
cuda_runtime|cudaLaunchKernel|50|51|10|2|{"correlation":1}
cpu_op|S|50|51|15|1|-
kernel|A|0|7|100|10|{"device":0,"correlation":1}
kernel|A|0|7|200|10|{"device":0}
EOF2

landmark "--confirm-cpu: scopes placed by the launches, on the launching thread only" ok cpu.json \
	--anchor-regex '^A$' --num-layers 3 --anchor-offset 0 --confirm-regex '^S$' --confirm-cpu
landmark "--confirm-cpu: 1.8-era Runtime launches and Operator scopes" refused old.json \
	--anchor-regex '^A$' --num-layers 3 --anchor-offset 0 --confirm-regex '^S$' --confirm-cpu
landmark "--confirm-cpu: one layer per pass leaves no interval to check" ok cpu.json \
	--anchor-regex '^A$' --num-layers 1 --passes 3 --anchor-offset 0 --confirm-regex '^S$' --confirm-cpu
landmark "--confirm-cpu: a GPU landmark of that name does not exist" refused cpu.json \
	--anchor-regex '^A$' --num-layers 3 --anchor-offset 0 --confirm-regex '^S$'
tr-decode graph.json >graph.stream
expect 1 "--confirm-cpu: anchors sharing one launch are refused" \
	"tr-select-anchors --anchor-regex '^A$' --num-layers 3 --anchor-offset 0 --confirm-regex '^S$' --confirm-cpu <graph.stream" &&
	stderr_is "--confirm-cpu: one launch for two anchors: message" \
		"tr-select-anchors: --confirm-cpu: pass 0, layers 1 and 2 (anchors at ts 200 and 300, launched at ts 20.000 and 20.000): the second anchor was not launched after the first (one launch for both, as in a CUDA graph?); no CPU scope can lie between them: use a GPU landmark"
tr-decode nocorr.json >nocorr.stream
expect 1 "--confirm-cpu: an anchor without a launch is refused" \
	"tr-select-anchors --anchor-regex '^A$' --num-layers 2 --anchor-offset 0 --confirm-regex '^S$' --confirm-cpu <nocorr.stream" &&
	stderr_is "--confirm-cpu: an anchor without a launch: message" \
		"tr-select-anchors: --confirm-cpu: the anchor at ts 200 (event 3) has no launch (no cuda_runtime or cuda_driver event with its args.correlation, which it lacks); CPU scopes are placed by the anchors' launches: use a GPU landmark"

# ------------------------------------- tr-layer-track, the report, tr-verify

# ltrack NAME OUT OPTIONS...: tr-layer-track succeeds (verification included)
ltrack() {
	name=$1 out=$2
	shift 2
	rm -f "$out" "$out.layers.json"
	RC=0
	tr-layer-track --trace spec.json --output "$out" --phase decode --evidence "$EV" \
		--num-layers 4 --passes 2 --anchor-offset 0 "$@" >"$T/out" 2>"$T/err" || RC=$?
	if [ "$RC" = 0 ] && grep -q '^verification: verified' "$T/out"; then
		pass "$name"
	else
		fail "$name" "exit status $RC" "stderr: $(head -c 400 "$T/err")"
	fi
}
# report_keys NAME REPORT EXPECTED: the landmark keys of a layers report
report_keys() {
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
keys = list(r)
i = keys.index("passes")
print(keys[i + 1:i + 3], json.dumps(r["confirm_regex"]), json.dumps(r["confirm_cpu"]))
' "$2" >keys.txt
	echo "$3" >keys.want
	same "$1" keys.want keys.txt
}

ltrack "tr-layer-track --confirm-regex: target attention" g.json \
	--anchor-regex 'Flash_fwd_kernel_traits<128' --confirm-regex "$ROT"
report_keys "report: confirm_regex and confirm_cpu after passes" g.json.layers.json \
	"['confirm_regex', 'confirm_cpu'] \"$ROT\" false"
tr-verify --source spec.json --output g.json >verify.out 2>&1
grep '^landmark' verify.out >verify.txt
echo "landmark         ok: confirm_regex \"$ROT\": 6 anchor intervals recounted from the source" >verify.want
same "tr-verify: the landmark recounted (6 intervals: 3 per pass)" verify.want verify.txt
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["confirm_regex"] = "rms_norm_kernel<c10::BFloat16>"
json.dump(r, open(sys.argv[2], "w"))
' g.json.layers.json mutated.json
expect 1 "tr-verify: a report claiming a landmark that does not hold fails" \
	"tr-verify --source spec.json --output g.json --report mutated.json" &&
	grep -A1 '^landmark' "$T/out" >verify.txt &&
	printf '%s\n' 'landmark         FAILED: confirm_regex "rms_norm_kernel<c10::BFloat16>": 6 anchor intervals recounted from the source' \
		"  mutated.json claims confirm_regex \"rms_norm_kernel<c10::BFloat16>\", but pass 0, layer 0 (anchor at ts $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]), parse_float=str)["layers"][0]["start_us"])' g.json.layers.json)) has 2 matching kernels in the source, not exactly one" >verify.want &&
	same "tr-verify: the mutated landmark: the first failure" verify.want verify.txt

ltrack "tr-layer-track --confirm-cpu: target attention, rotary cpu_op" c.json \
	--anchor-regex 'Flash_fwd_kernel_traits<128' --confirm-regex '^_C::rotary_embedding$' --confirm-cpu
report_keys "report: confirm_cpu true" c.json.layers.json \
	"['confirm_regex', 'confirm_cpu'] \"^_C::rotary_embedding\$\" true"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["confirm_regex"] = "^aten::mm$"
json.dump(r, open(sys.argv[2], "w"))
' c.json.layers.json mutated2.json
expect 1 "tr-verify: a mutated CPU landmark fails" \
	"tr-verify --source spec.json --output c.json --report mutated2.json" &&
	grep -c '^  mutated2.json claims confirm_regex "^aten::mm\$" (confirm_cpu), but pass [01], layer [012] (anchor at ts [0-9.]*) has 4 CPU scopes between the anchors. launches in the source, not exactly one$' "$T/out" >n.txt &&
	echo 6 >n.want && same "tr-verify: the mutated CPU landmark fails in all 6 intervals" n.want n.txt

ltrack "tr-layer-track without a landmark" n.json --anchor-regex 'Flash_fwd_kernel_traits<128'
report_keys "report: no landmark is null and false" n.json.layers.json "['confirm_regex', 'confirm_cpu'] null false"
tr-verify --source spec.json --output n.json >verify.out 2>&1
absent_line() {
	if grep -q "$2" "$3"; then fail "$1" "$(grep "$2" "$3")"; else pass "$1"; fi
}
absent_line "tr-verify: no landmark check without a claimed landmark" '^landmark' verify.out

refused_track() {
	name=$1
	shift
	rm -rf r && mkdir r
	RC=0
	tr-layer-track --trace spec.json --output r/o.json --phase decode --evidence "$EV" \
		--num-layers 4 --passes 2 --anchor-offset 0 "$@" >"$T/out" 2>"$T/err" || RC=$?
	if [ "$RC" = 1 ] && grep -q "^tr-select-anchors: --confirm-regex" "$T/err" && [ -z "$(ls -A r)" ]; then
		pass "$name"
	else
		fail "$name" "exit status $RC, files: $(ls -A r)" "stderr: $(head -c 400 "$T/err")"
	fi
}
refused_track "tr-layer-track: the draft trap refused, nothing written" \
	--anchor-regex flash_fwd_kernel --confirm-regex "$ROT"
refused_track "tr-layer-track --confirm-cpu: the norm trap refused, nothing written" \
	--anchor-regex 'rms_norm_kernel<c10::BFloat16>' --confirm-regex '^vllm::unified_attention$' --confirm-cpu

# ------------------------------------------------------------ real traces

SG=$TRACES/sglang_Qwen3-8B_prefilldecode.json.gz
EG=$TRACES/eager_trace.json.gz
if [ -r "$SG" ] && [ -r "$EG" ]; then
	# Qwen3-8B, 36 layers: rotary once per layer, the module scopes
	# "nn.Module: Qwen3DecoderLayer_<i>" once per layer on the CPU side, and
	# an add_rmsnorm_quant kernel twice per layer (72 = the right count for
	# 36 layers from offset 0, and a wrong anchor)
	landmark "real (sglang Qwen3-8B): rotary confirmed by the decoder-layer module scopes" ok "$SG" \
		--anchor-regex rotary_embedding_kernel --num-layers 36 --anchor-offset 0 \
		--confirm-regex '^nn\.Module: Qwen3DecoderLayer_\d+$' --confirm-cpu
	NORM='add_rmsnorm_quant_kernelIDF16bDF16bLi256'
	expect 1 "real (sglang Qwen3-8B): the twice-per-layer norm is not whole passes" \
		"tr-decode '$SG' | tr-select-anchors --anchor-regex $NORM --num-layers 36 --anchor-offset 0 >/dev/null" \
		"tr-select-anchors: the selection is not whole passes: from its last anchor "
	landmark "real (sglang Qwen3-8B): the twice-per-layer norm refused by the module scopes" refused "$SG" \
		--anchor-regex "$NORM" --num-layers 36 --anchor-offset 0 \
		--confirm-regex '^nn\.Module: Qwen3DecoderLayer_\d+$' --confirm-cpu
	landmark "real (sglang Qwen3-8B): rotary confirmed by the KV-cache store kernel" ok "$SG" \
		--anchor-regex rotary_embedding_kernel --num-layers 36 --anchor-offset 0 \
		--confirm-regex store_kvcache
	# vLLM MoE, 36 layers: "nn.Module: TransformerBlock_<i>"
	landmark "real (vLLM eager MoE): rotary confirmed by the transformer-block scopes" ok "$EG" \
		--anchor-regex rotary_embedding_kernel --num-layers 36 --anchor-offset 0 \
		--confirm-regex '^nn\.Module: TransformerBlock_\d+$' --confirm-cpu
	rm -f q.json q.json.layers.json
	if tr-layer-track --trace "$SG" --output q.json --phase prefill --evidence "$EV" \
		--anchor-regex rotary_embedding_kernel --num-layers 36 --anchor-offset 0 \
		--confirm-regex '^nn\.Module: Qwen3DecoderLayer_\d+$' --confirm-cpu >"$T/out" 2>"$T/err" &&
		tr-verify --source "$SG" --output q.json | grep -qx 'landmark         ok: confirm_regex "^nn\\\\.Module: Qwen3DecoderLayer_\\\\d+\$" (CPU scopes): 35 anchor intervals recounted from the source'; then
		pass "real (sglang Qwen3-8B): tr-layer-track --confirm-cpu, verified with 35 intervals"
	else
		fail "real (sglang Qwen3-8B): tr-layer-track --confirm-cpu" "$(head -c 400 "$T/err")" \
			"$(tr-verify --source "$SG" --output q.json 2>&1 | grep landmark)"
	fi
else
	skip "real traces for --confirm-regex" "$TRACES lacks the sglang and eager traces"
fi

# ------------------------------------------- tr-survey lists the landmarks

# survey_landmarks NAME TRACE N WANT: tr-survey --json lists, for the top
# candidate of the first group, landmarks whose names contain each of the
# "|"-separated WANT texts, and tr-select-anchors accepts the top candidate
# with every listed landmark (its --anchor-regex, --anchor-offset, --passes
# and --pid from the suggested command).
survey_landmarks() {
	name=$1 trace=$2 n=$3 want=$4
	tr-decode "$trace" | tr-survey --num-layers "$n" --json >survey.json
	python3 - survey.json "$want" >cmds.txt <<'PY' || { fail "$name" "$(cat cmds.txt)"; return; }
import json, shlex, sys
g = json.load(open(sys.argv[1]))['groups'][0]
lm = g['landmarks']
for w in sys.argv[2].split('|'):
    assert any(w in l['name'] for l in lm), (w, [l['name'][:80] for l in lm])
cmd = shlex.split(g['command'])
opts = [x for i, x in enumerate(cmd) if i > 0 and cmd[i - 1] in
        ('--anchor-regex', '--num-layers', '--anchor-offset', '--passes', '--pid') or
        x in ('--anchor-regex', '--num-layers', '--anchor-offset', '--passes', '--pid')]
for l in lm:
    print(shlex.join(opts + ['--confirm-regex', l['regex']]))
PY
	ok=0 bad=
	while IFS= read -r line; do
		eval "set -- $line"
		if tr-decode "$trace" | tr-select-anchors "$@" >/dev/null 2>"$T/err"; then
			ok=$((ok + 1))
		else
			bad="$bad $(head -c 200 "$T/err")"
		fi
	done <cmds.txt
	if [ -z "$bad" ] && [ "$ok" -gt 0 ]; then
		pass "$name ($ok landmarks, each accepted)"
	else
		fail "$name" "refused:$bad"
	fi
}
rm -f s6.json
tr-gen --layers 6 --passes 3 -o s6.json
survey_landmarks "tr-survey: landmarks for the top candidate (generated)" s6.json 6 \
	'rotary_embedding_kernel<c10::BFloat16, true>|Flash_fwd_kernel_traits<128'
if [ -r "$SG" ]; then
	survey_landmarks "tr-survey: landmarks for the top candidate (sglang Qwen3-8B)" "$SG" 36 \
		'rotary_embedding_kernel|store_kvcache'
else
	skip "tr-survey landmarks on a real trace" "$SG is absent"
fi
