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
        if e.get('ph') == 'X' and cats(e) & {'cuda_runtime', 'cuda_driver'}:
            c = (e.get('args') or {}).get('correlation')
            if c is not None and c not in launch:
                launch[c] = e
    la = [launch[an['args']['correlation']] for an in sel]
    threads = {(l['pid'], l['tid']) for l in la}
    scopes = sorted(key(e) for e in ev if e.get('ph') == 'X' and
                    cats(e) & {'cpu_op', 'user_annotation', 'python_function'} and
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
expect 0 "the norm trap: a norm twice per layer has the right count and is accepted alone" \
	"tr-decode spec.json | tr-select-anchors --anchor-regex 'rms_norm_kernel<c10::BFloat16>' --num-layers 4 --passes 2 --anchor-offset 0 >/dev/null"
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
