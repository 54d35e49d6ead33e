# t-window: tr-window end to end.  Every window is checked by an independent
# python oracle (window_oracle.py: the kept set recomputed with exact
# decimals, the dropped flow and async ends, the report's counts) and by
# tr-verify, which finds OUT.window.json beside it.  Generated traces
# (windows by passes, a layer range, around a layer, time), a hand-made
# trace (flows across the boundary, async pairs inside and across, B/E
# pairs, counters, instants, metadata of kept and of empty threads), a
# window of a compacted trace, the --window option of the commands,
# refusals with their exact messages, tr-verify's mutations, and real
# traces (two, by time) when ../shared/traces is there.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
ORACLE=$ROOT/tests/e2e/window_oracle.py

# window NAME SRC SPEC...: cut the window, check it with the oracle and
# tr-verify (which must find the report beside it).
window() {
	name=$1 src=$2
	shift 2
	rm -f w.json w.json.window.json
	RC=0
	tr-decode "$src" | tr-window -q "$@" | tr-encode -o w.json 2>"$T/err" || RC=$?
	if [ "$RC" != 0 ] || ! [ -f w.json.window.json ]; then
		fail "$name: tr-window" "exit status $RC" "stderr: $(head -c 400 "$T/err")"
		return 1
	fi
	tr-decode "$src" >src.stream && tr-decode w.json >w.stream
	if python3 "$ORACLE" src.stream w.stream w.json.window.json "$@" >"$T/oracle" 2>&1; then
		pass "$name: the oracle's kept set and report"
	else
		fail "$name: the oracle's kept set and report" "$(tail -n 4 "$T/oracle")"
	fi
	expect 0 "$name: tr-verify finds the window report and verifies" \
		"tr-verify --source '$src' --output w.json"
	grep -q '^window  *ok: ' "$T/out" && grep -q '^render  *ok: ' "$T/out" ||
		fail "$name: tr-verify ran the window and render checks" "$(cat "$T/out")"
}

# ------------------------------------------------------- generated traces

tr-gen --layers 6 --passes 3 --seed 7 -o g.json
EV='generated: 6 layers, rotary once per layer'
tr-layer-track --trace g.json --output o.json --anchor-regex rotary_embedding \
	--num-layers 6 --anchor-offset 0 --passes 3 --phase decode --evidence "$EV" >/dev/null 2>&1 ||
	fail "tr-layer-track on the generated trace" "exit status $?"
window "passes 1-2" o.json --passes 1-2
window "pass 0" o.json --pass 0
window "layers 2-4 of pass 1" o.json --pass 1 --layers 2-4
window "around L3 of pass 2, 50 us pad" o.json --around L3 --pass 2 --pad 50us
window "time 1.5-3 ms" o.json --from 1.5 --to 3
window "time from 4 ms to the end" o.json --from 4ms
window "time on the raw trace" g.json --from 0.25 --to 0.75
window "time from 0: every event" g.json --from 0
# times at the edge of the range the stages compute with (+/-2^62 ns,
# tr-stream(5)): the trace moved to just above -2^62 ns and to just below
# +2^62 ns, exactly (integer microseconds)
tr-gen --layers 2 --passes 2 --seed 3 --ts-format int --origin-us 0 -o g0.json
shift_trace() { # OFFSET_US OUT
	python3 -c 'import json, sys
d = json.load(open("g0.json"))
for e in d["traceEvents"]:
    if isinstance(e.get("ts"), int):
        e["ts"] += int(sys.argv[1])
json.dump(d, open(sys.argv[2], "w"))' "$1" "$2"
}
shift_trace -4611686018427000 gneg.json
shift_trace 4611686018000000 gtop.json
window "ts just above -2^62 ns: --from 0" gneg.json --from 0
window "ts just above -2^62 ns: 0.5-1.5 ms" gneg.json --from 0.5 --to 1.5
window "ts just below +2^62 ns: --from 0" gtop.json --from 0
window "ts just below +2^62 ns: 0.5-1.5 ms" gtop.json --from 0.5 --to 1.5
# a window of a window: its guides are there, so it can be cut again
tr-decode o.json | tr-window -q --passes 1 | tr-encode -o p1.json
window "a layer of a window" p1.json --layers 0-1
# every guide of the pass is in the window, flat
n=$(grep -o '"cat":"layer_guide"' w.json | wc -l)
[ "$(grep -o '"cat":"layer_guide"' w.json | wc -l)" -ge 2 ] && pass "a window keeps its guides" ||
	fail "a window keeps its guides" "$n guides"

# a compacted trace: lanes and guides still render flat in the window
tr-compact-track --trace o.json --output c.json --max-gpu-lanes 2 >/dev/null 2>&1 ||
	fail "tr-compact-track on the annotated trace" "exit status $?"
window "compacted, pass 1" c.json --passes 1
grep -q 'lanes' "$T/out" && ! grep -q '0 lanes' "$T/out" && pass "compacted: the lanes are checked" ||
	fail "compacted: the lanes are checked" "$(grep '^render' "$T/out")"

# ------------------------------------------------------ a hand-made trace

# pid 1 tid 1: X slices; flows 7 (both ends inside), 8 (s before the window),
# 9 (f after it); async 20 inside, 21 across the end; B/E inside, B/E across
# the start (kept whole), an unmatched B (lasts to the end: kept); counters
# and instants in and out; pid 2 keeps nothing: its metadata goes.
cat >h.json <<'EOF2'
{"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"P1"}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"T1"}},
{"ph":"M","name":"thread_name","pid":1,"tid":9,"args":{"name":"T9 (empty)"}},
{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"P2"}},
{"ph":"M","name":"thread_name","pid":2,"tid":2,"args":{"name":"T2"}},
{"ph":"X","name":"a","pid":1,"tid":1,"ts":1000,"dur":10},
{"ph":"s","name":"f8","cat":"c","id":8,"pid":1,"tid":1,"ts":1005},
{"ph":"X","name":"b","pid":1,"tid":1,"ts":1990,"dur":20.5},
{"ph":"B","name":"be0","pid":1,"tid":1,"ts":1995},
{"ph":"s","name":"f7","cat":"c","id":7,"pid":1,"tid":1,"ts":2001},
{"ph":"E","pid":1,"tid":1,"ts":2002},
{"ph":"f","name":"f7","cat":"c","id":7,"pid":1,"tid":1,"ts":2003,"bp":"e"},
{"ph":"f","name":"f8","cat":"c","id":8,"pid":1,"tid":1,"ts":2004,"bp":"e"},
{"ph":"b","name":"a20","cat":"c","id":"0x20","pid":1,"tid":1,"ts":2005},
{"ph":"e","name":"a20","cat":"c","id":"0x20","pid":1,"tid":1,"ts":2006},
{"ph":"b","name":"a21","cat":"c","id":"0x21","pid":1,"tid":1,"ts":2007},
{"ph":"C","name":"mem","pid":1,"ts":2008,"args":{"v":1}},
{"ph":"i","name":"mark","pid":1,"tid":1,"ts":2009.999,"s":"t"},
{"ph":"s","name":"f9","cat":"c","id":9,"pid":1,"tid":1,"ts":2010},
{"ph":"B","name":"open","pid":1,"tid":1,"ts":2010},
{"ph":"X","name":"c","pid":1,"tid":1,"ts":2010.001,"dur":1},
{"ph":"C","name":"mem","pid":1,"ts":3000,"args":{"v":2}},
{"ph":"e","name":"a21","cat":"c","id":"0x21","pid":1,"tid":1,"ts":3001},
{"ph":"f","name":"f9","cat":"c","id":9,"pid":1,"tid":1,"ts":3002,"bp":"e"},
{"ph":"X","name":"d","pid":2,"tid":2,"ts":5000,"dur":1},
{"ph":"i","name":"late","pid":2,"tid":2,"ts":6000,"s":"t"}
],"displayTimeUnit":"ns"}
EOF2
# origin 1000 us: the window is [2000, 2010] us
window "hand-made: flows, async, B/E, counters, metadata" h.json --from 1 --to 1.01
tr-decode w.json | grep -v '^{"@tr":' >kept.txt
python3 - w.json.window.json kept.txt >"$T/facts" 2>&1 <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
names = [json.loads(l).get('name', json.loads(l)['ph']) for l in open(sys.argv[2])]
print(' '.join(names))
print(r['flows_dropped_end_outside'], r['async_dropped_end_outside'],
      [d['source_index'] for d in r['dropped_events']], r['kept']['metadata'],
      r['dropped']['metadata'], r['window_start_us'], r['window_end_us'])
EOF2
cat >want.facts <<'EOF2'
process_name thread_name b be0 f7 E f7 a20 a20 mem mark open
2 1 [12, 15, 18] 2 3 2000.0 2010.0
EOF2
same "hand-made: exactly the events inside, flows and async pairs whole" want.facts "$T/facts"
# the report records the source's identity
sha=$(sha256sum h.json | cut -d' ' -f1)
grep -q "\"source_sha256\": \"$sha\"" w.json.window.json && pass "hand-made: source_sha256" ||
	fail "hand-made: source_sha256" "$(grep sha256 w.json.window.json)"

# ------------------------------------------------ the commands' --window

rm -rf cmd && mkdir cmd
expect 0 "tr-layer-track --window" "tr-layer-track --trace g.json --output cmd/o.json.gz \
	--anchor-regex rotary_embedding --num-layers 6 --anchor-offset 0 --passes 3 \
	--phase decode --evidence x --max-gpu-lanes 2 --window '--pass 1 --layers 1-2'"
[ -f cmd/o.window.json.gz ] && [ -f cmd/o.window.json.gz.window.json ] &&
	grep -q '^window: cmd/o.window.json.gz' "$T/out" &&
	[ "$(grep -c '^passes: pass [0-2]: [0-9.]*-[0-9.]* ms from the trace start, [0-9]* bytes of events$' "$T/out")" = 3 ] &&
	[ "$(grep -c '^verification: verified' "$T/out")" = 2 ] &&
	pass "tr-layer-track --window: the window beside the output, the pass table, both verified" ||
	fail "tr-layer-track --window: the window beside the output, both verified" "$(cat "$T/out")"
expect 0 "tr-compact-track --window --window-output" "tr-compact-track --trace o.json \
	--output cmd/c.json --window '--from 2 --to 3' --window-output cmd/cw.json"
[ -f cmd/cw.json.window.json ] && grep -q 'verification: verified (tr-verify: source identity, render, window)' "$T/out" &&
	pass "tr-compact-track --window-output names the window" ||
	fail "tr-compact-track --window-output names the window" "$(cat "$T/out")"
expect 1 "a refused window keeps the full output" "tr-compact-track --trace o.json \
	--output cmd/c2.json --window '--pass 9'" \
	"tr-window: pass 9 does not exist (the guides cover passes 0-2)"
[ -f cmd/c2.json ] && ! [ -e cmd/c2.window.json ] && pass "a refused window: the output stays, no window" ||
	fail "a refused window: the output stays, no window" "$(ls cmd)"
expect 2 "an existing window output is refused first" "tr-compact-track --trace o.json \
	--output cmd/c3.json --window '--pass 1' --window-output cmd/cw.json" "cmd/cw.json: exists"

# ------------------------------------------------------------- refusals

refuse() {
	want=$1 name=$2 src=$3 msg=$4
	shift 4
	RC=0
	tr-decode "$src" | tr-window "$@" >"$T/out" 2>"$T/err" || RC=$?
	if [ "$RC" != "$want" ]; then
		fail "$name" "exit status $RC, wanted $want" "stderr: $(head -c 400 "$T/err")"
	else
		stderr_is "$name" "$msg"
	fi
}
refuse 1 "refused: a guide window on a trace without guides" g.json \
	'tr-window: the stream has no layer guides (cat "layer_guide"): --passes, --pass, --layers and --around need a trace annotated by tr-guides or tr-layer-track; a window by time (--from, --to) works on any trace' \
	--passes 1
refuse 1 "refused: a pass that does not exist" o.json \
	"tr-window: pass 3 does not exist (the guides cover passes 0-2)" --passes 1-3
refuse 1 "refused: a layer that does not exist" o.json \
	"tr-window: layer L6 does not exist in pass 1 (its guides are L0-L5)" --pass 1 --layers 4-6
refuse 2 "refused: --layers without --pass on three passes" o.json \
	"tr-window: --layers needs --pass K: the guides cover passes 0-2" --layers 1-2
refuse 2 "usage: --from after --to" o.json \
	"tr-window: empty window: --from 5 is after --to 4" --from 5 --to 4
refuse 1 "refused: a window after the trace" o.json \
	"tr-window: empty window: no event overlaps [1428626731456.000, 1428626732456.000] us (--from 1000 --to 1001)" \
	--from 1000 --to 1001
refuse 1 "refused: larger than --max-bytes" o.json \
	"tr-window: the window would be $(tr-decode o.json | tr-window -q --passes 1 | grep -v '^{"@tr":' | wc -c) bytes of events, more than --max-bytes 1024; choose a smaller window" \
	--passes 1 --max-bytes 1K
refuse 2 "usage: two windows" o.json \
	"tr-window: give one window: --passes A-B, --pass K, --layers A-B [--pass K], --around LN [--pass K] [--pad DUR], or --from MS [--to MS]" \
	--passes 1 --from 0
refuse 2 "usage: a time below the ns" o.json \
	"tr-window: --from: invalid value '0.0000001' (milliseconds: digits with at most six decimals, or a unit ns, us, ms, s)" \
	--from 0.0000001
refuse 1 "refused: a pad that carries the window past the time range" o.json \
	"tr-window: --pad 4611686018427387904ns: the window would reach beyond +/-4611686018427387.902 us (2^62 ns), the time range of trace-layers" \
	--around L3 --pass 2 --pad 4611686018427387904ns
# a guide's pass number far above the others: the range is one look at
# the guides, not a loop over every number in it (timeout: a hang fails)
tr-decode o.json | sed 's/"pass_index":2,/"pass_index":1000000000000000000,/' >farpass.stream
expect 0 "a pass number of 10^18: --passes 0-10^18 in one look" \
	"timeout 60 tr-window --passes 0-1000000000000000000 <farpass.stream >far.out" &&
	{ [ "$(grep -c '"cat":"layer_guide"' far.out)" = "$(grep -c '"cat":"layer_guide"' farpass.stream)" ] &&
		pass "a pass number of 10^18: every guide kept" ||
		fail "a pass number of 10^18: every guide kept" "$(grep -c '"cat":"layer_guide"' far.out)"; }
expect 1 "a refused window writes nothing" "tr-decode o.json | tr-window --pass 7 | tr-encode -o none.json"
absent "a refused window writes nothing: no file" none.json none.json.window.json

# --------------------------------------------------- tr-verify mutations

tr-decode o.json | tr-window -q --passes 1 | tr-encode -o v.json
# verified against another trace than the one it was cut from: the one
# line that matters, naming the trace the report records, and nothing after
expect 1 "the wrong source: exit 1" "tr-verify --source g.json --output v.json"
shao=$(sha256sum <o.json | cut -d' ' -f1) shag=$(sha256sum <g.json | cut -d' ' -f1)
printf '%s\n' "source identity  FAILED: sha256 $shag, $(wc -c <g.json | tr -d " ") bytes; 1 report" \
	"  v.json.window.json: source_sha256 $shao, but g.json has $shag ($(wc -c <g.json | tr -d " ") bytes): it was made from o.json; verify against that file (or the source changed since)" \
	"NOT VERIFIED: do not use this output" >wrong.want
same "the wrong source: one failure, naming the recorded source, then the verdict" \
	wrong.want "$T/out"
# mutate the window's stream and re-encode it beside a copy of the report
mutant() {
	name=$1 script=$2
	rm -f m.json m.json.window.json
	tr-decode v.json | python3 -c "$script" | tr-encode -o m.json 2>/dev/null
	cp v.json.window.json m.json.window.json
	expect 1 "tr-verify refuses a window with $name" "tr-verify --source o.json --output m.json" &&
		{ grep -q '^window  *FAILED' "$T/out" && pass "$name: the window check fails" ||
			fail "$name: the window check fails" "$(head -n 5 "$T/out")"; }
}
mutant "an event missing" 'import sys
ls = sys.stdin.readlines(); i = [k for k, l in enumerate(ls) if "\"ph\":\"X\"" in l][5]
sys.stdout.writelines(ls[:i] + ls[i + 1:])'
mutant "a changed number text" 'import sys
ls = sys.stdin.readlines(); i = [k for k, l in enumerate(ls) if "\"dur\":" in l][5]
ls[i] = ls[i].replace("\"dur\":", "\"dur\":1", 1); sys.stdout.writelines(ls)'
mutant "two events swapped" 'import sys
ls = sys.stdin.readlines(); i = [k for k, l in enumerate(ls) if "\"ph\":\"X\"" in l][5]
ls[i], ls[i + 1] = ls[i + 1], ls[i]; sys.stdout.writelines(ls)'
mutant "a dropped flow end put back as kept" 'import sys
ls = sys.stdin.readlines(); ls.insert(5, "{\"ph\":\"f\",\"id\":1}\n"); sys.stdout.writelines(ls)'
# the report lies: a dropped end no longer listed
rm -f m.json m.json.window.json
cp v.json m.json
python3 -c "import json,sys; r=json.load(open('v.json.window.json')); r['dropped_events']=[]; json.dump(r, open('m.json.window.json','w'))"
if [ "$(python3 -c "import json; print(len(json.load(open('v.json.window.json'))['dropped_events']))")" -gt 0 ]; then
	expect 1 "tr-verify refuses a report that hides a dropped event" \
		"tr-verify --source o.json --output m.json" "" &&
		{ grep -q 'overlaps the window but is not in it' "$T/out" &&
			pass "a hidden dropped event is named" || fail "a hidden dropped event is named" "$(head -n 4 "$T/out")"; }
else
	fail "the pass-1 window drops a flow end (the report-lie mutation needs one)"
fi
# the report's own claims, each against the window itself
lie() { # NAME PYTHON WANT: the report's text t changed by PYTHON, tr-verify says WANT
	rm -f m.json m.json.window.json
	cp v.json m.json
	python3 -c "import re
t = open('v.json.window.json').read()
$2
open('m.json.window.json', 'w').write(t)"
	expect 1 "tr-verify refuses a report that lies: $1" "tr-verify --source o.json --output m.json" &&
		{ [ "$(grep -A1 '^window  *FAILED' "$T/out" | tail -n 1)" = "  $3" ] &&
			pass "$1: named" || fail "$1: named" "$(grep -A1 '^window' "$T/out")" "wanted:   $3"; }
}
claim() { # KEY: the report's value
	python3 -c "import json, sys; print(json.load(open('v.json.window.json'))$1)"
}
W0=$(claim "['window_start_ns']") W1=$(claim "['window_end_ns']")
U0=$(sed -n 's/^  "window_start_us": \(.*\),$/\1/p' v.json.window.json)
U1=$(sed -n 's/^  "window_end_us": \(.*\),$/\1/p' v.json.window.json)
lie "start and end swapped" "t = t.replace('$W0', 'X').replace('$W1', '$W0').replace('X', '$W1').replace('$U0', 'Y').replace('$U1', '$U0').replace('Y', '$U1')" \
	"the report's window starts after it ends (window_start_ns $W1, window_end_ns $W0)"
lie "window_start_us not window_start_ns" "t = t.replace('\"window_start_us\": $U0', '\"window_start_us\": 1')" \
	"the report's window_start_us 1 is not its window_start_ns $W0 ($U0 us)"
lie "kept counts 0" "t = re.sub(r'(\"kept\": \\{[^}]*\\})', lambda m: re.sub(r': \\d+', ': 0', m.group(1)), t)" \
	"the report's kept.complete 0 is not the $(claim "['kept']['complete']") events of that category in the window"
lie "bytes_written 1" "t = re.sub(r'\"bytes_written\": \\d+', '\"bytes_written\": 1', t)" \
	"the report's bytes_written 1 is not the $(claim "['bytes_written']") bytes of the window's event lines"
lie "source_events" "t = re.sub(r'\"source_events\": \\d+', '\"source_events\": 5', t)" \
	"the report's source_events 5 is not the $(claim "['source_events']") events of the source"
lie "a dropped count" "t = re.sub(r'(\"dropped\": \\{[^}]*\"metadata\": )\\d+', r'\\g<1>7777', t)" \
	"the report's dropped.metadata 7777 is not the $(claim "['dropped']['metadata']") source events of that category not in it"
ND=$(claim "['dropped_events'].__len__()")
lie "more flows than the events it lists" "t = re.sub(r'\"flows_dropped_end_outside\": \\d+', '\"flows_dropped_end_outside\": $((ND + 1))', t)" \
	"the report's flows_dropped_end_outside $((ND + 1)) and async_dropped_end_outside 0 do not fit the $ND dropped events it lists"
# a guide moved onto its neighbour no longer renders flat
rm -f m.json m.json.window.json
tr-decode v.json | python3 -c 'import sys, re
ls = sys.stdin.readlines(); g = [k for k, l in enumerate(ls) if "\"cat\":\"layer_guide\"" in l]
ts = re.search(r"\"ts\":(\d+)", ls[g[1]]).group(1)
ls[g[2]] = re.sub(r"\"ts\":\d+", "\"ts\":" + ts, ls[g[2]], count=1); sys.stdout.writelines(ls)' |
	tr-encode -o m.json 2>/dev/null
cp v.json.window.json m.json.window.json
expect 1 "tr-verify: a window guide that overlaps another" "tr-verify --source o.json --output m.json" &&
	{ grep -q '^render  *FAILED' "$T/out" && pass "overlapping guides: the render check fails" ||
		fail "overlapping guides: the render check fails" "$(head -n 5 "$T/out")"; }

# ------------------------------------------------------------ real traces

if [ -d "$TRACES" ]; then
	for f in gaunernst_bert-small-uncased__1016001.json.gz nccl_data.json.gz; do
		if [ -f "$TRACES/$f" ]; then
			window "real $f, 2-4 ms" "$TRACES/$f" --from 2 --to 4
		else
			skip "real $f" "absent from $TRACES"
		fi
	done
else
	skip "real traces" "$TRACES is absent"
fi

# ------------------------------------------------- the pass table

# each pass's span and bytes, recomputed from the guides and the events
tr-decode o.json >src.stream
python3 - src.stream >want.passes <<'EOF2'
import json, math, sys
from decimal import Decimal
ev = [json.loads(l, parse_float=Decimal, parse_int=Decimal) for l in open(sys.argv[1])
      if not l.startswith('{"@tr":')]
lines = [l for l in open(sys.argv[1]) if not l.startswith('{"@tr":')]
origin = min(e['ts'] for e in ev if isinstance(e.get('ts'), Decimal)) * 1000
ext = {}
for e in ev:
    if e.get('cat') == 'layer_guide' and e.get('ph') == 'X':
        a = e['args']
        lo = min(e['ts'] * 1000, Decimal(a['start_us']) * 1000)
        hi = max((e['ts'] + e['dur']) * 1000, Decimal(a['end_us']) * 1000)
        p = int(a['pass_index'])
        if p in ext:
            lo, hi = min(lo, ext[p][0]), max(hi, ext[p][1])
        ext[p] = (lo, hi)
for p, (lo, hi) in sorted(ext.items()):
    n = 0
    for e, l in zip(ev, lines):
        if e.get('ph') == 'M' or not isinstance(e.get('ts'), Decimal):
            continue
        t = e['ts'] * 1000
        d = e['dur'] * 1000 if e.get('ph') == 'X' and 'dur' in e else 0
        if t <= hi and t + d >= lo:
            n += len(l.encode())
    print('pass %d: %.6f-%.6f ms from the trace start, %d bytes of events' %
          (p, (math.floor(lo) - origin) / Decimal(10 ** 6), (math.ceil(hi) - origin) / Decimal(10 ** 6), n))
EOF2
tr-window --list-passes <src.stream >got.passes 2>"$T/err"
same "--list-passes: each pass's span and bytes" want.passes got.passes
tr-window --pass-table got.table <src.stream >through.stream 2>"$T/err"
same "--pass-table alone: the stream passes through unchanged" src.stream through.stream
same "--pass-table alone: the table" want.passes got.table
# an existing table is never replaced (refused before the stream is read:
# nothing reaches standard output);
# a /dev/ path is written in place, as the one-line commands hand over a
# descriptor
printf 'keep\n' >old.table && cp old.table old.want
expect 2 "--pass-table: an existing file is refused" \
	"tr-window --pass-table old.table <src.stream >refused.out"
stderr_is "--pass-table: the refusal's words" \
	"tr-window: old.table: exists; refusing to overwrite it"
same "--pass-table: the existing file is untouched" old.want old.table
[ ! -s refused.out ] && pass "--pass-table refused: nothing on standard output" ||
	fail "--pass-table refused: nothing on standard output" "$(wc -c <refused.out) bytes"
tr-window --pass-table /dev/stderr <src.stream 2>got.devtable >/dev/null
same "--pass-table /dev/stderr: the table written in place" want.passes got.devtable
# beside a window, every event read whole: the same table as alone
tr-window --passes 0 --pass-table got.wtable <src.stream >/dev/null 2>"$T/err"
same "--pass-table beside a window: the same table" want.passes got.wtable
# the summary line once the window is written: the report's counts (checked
# by the oracle above) in one line; --quiet and -q leave stderr empty
tr-window --passes 0 <src.stream >sum.stream 2>"$T/err"
tr-encode -o sum.json <sum.stream 2>/dev/null
want=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
k, d = sum(r["kept"].values()), sum(r["dropped"].values())
print("tr-window: kept %d event%s (%d bytes), dropped %d event%s" % (k, "" if k == 1 else "s",
      r["bytes_written"], d, "" if d == 1 else "s"))' sum.json.window.json)
stderr_is "summary: kept, bytes and dropped, as the report counts them" "$want"
for q in --quiet -q; do
	tr-window "$q" --passes 0 <src.stream >quiet.stream 2>"$T/err"
	[ ! -s "$T/err" ] && pass "$q: no summary" || fail "$q: no summary" "$(cat "$T/err")"
	same "$q: the same window" sum.stream quiet.stream
done
# its temporary files cannot be made: system trouble, with the directory
expect 2 "trouble: no temporary directory" \
	"TMPDIR=/nonexistent/tr-window tr-window --passes 1-1 <src.stream >/dev/null" \
	"tr-window: temporary file in /nonexistent/tr-window: No such file or directory"
expect 2 "trouble: no temporary directory (--list-passes)" \
	"TMPDIR=/nonexistent/tr-window tr-window --list-passes <src.stream >/dev/null" \
	"tr-window: temporary file in /nonexistent/tr-window: No such file or directory"
expect 2 "trouble: no temporary directory (--pass-table alone)" \
	"TMPDIR=/nonexistent/tr-window tr-window --pass-table t.none <src.stream >/dev/null" \
	"tr-window: temporary file in /nonexistent/tr-window: No such file or directory"

# tr-encode --pass-table: the same table, its members read by the check of
# each line; with whitespace between tokens (where a member walk stops, so
# fewer events count) the walk reads them, as tr-window's does
tr-encode --pass-table got.etable -o enc.json <src.stream 2>"$T/err"
same "tr-encode --pass-table: the table" want.passes got.etable
tr-encode <src.stream >enc.want
same "tr-encode --pass-table: the trace as without it" enc.want enc.json
sed 's/,"/, "/' src.stream >spaced.stream
tr-window --pass-table spaced.want <spaced.stream >/dev/null
tr-encode --pass-table spaced.got -o spaced.json <spaced.stream 2>"$T/err"
same "tr-encode --pass-table, whitespace in the lines: tr-window's table" spaced.want spaced.got
cmp -s spaced.want want.passes && fail "whitespace in the lines: a different table" "the same" ||
	pass "whitespace in the lines: a different table"
expect 2 "tr-encode --pass-table: an existing file is refused" \
	"tr-encode --pass-table old.table -o refused.json <src.stream"
stderr_is "tr-encode --pass-table: the refusal's words" \
	"tr-encode: old.table: exists; refusing to overwrite it"
same "tr-encode --pass-table: the existing file is untouched" old.want old.table
absent "tr-encode --pass-table refused: no output" refused.json
tr-encode --pass-table /dev/stderr -o dev.json <src.stream 2>got.edevtable
same "tr-encode --pass-table /dev/stderr: the table written in place" want.passes got.edevtable
expect 2 "trouble: no temporary directory (tr-encode --pass-table)" \
	"TMPDIR=/nonexistent/tr-encode tr-encode --pass-table t.enone -o t.enone.json <src.stream" \
	"tr-encode: temporary file in /nonexistent/tr-encode: No such file or directory"
absent "no temporary directory: no table" t.enone
absent "no temporary directory: no output" t.enone.json

# tr-layer-track prints the table in its summary (from tr-encode
# --pass-table in its pipeline, not from a second read of the output)
rm -rf lt && mkdir lt
expect 0 "tr-layer-track: the pass table" "tr-layer-track --trace g.json --output lt/o.json \
	--anchor-regex rotary_embedding --num-layers 6 --anchor-offset 0 --passes 3 \
	--phase decode --evidence '$EV'"
sed 's/^/passes: /' want.passes >want.lt
grep '^passes: ' "$T/out" >got.lt
same "tr-layer-track: each pass's span and bytes in its summary" want.lt got.lt
# more than 8 passes: the first 8, then the count and the largest
tr-gen --layers 4 --passes 11 --seed 3 -o g11.json
expect 0 "tr-layer-track: 11 passes" "tr-layer-track --trace g11.json --output lt/o11.json \
	--anchor-regex rotary_embedding --num-layers 4 --anchor-offset 0 --passes 11 \
	--phase decode --evidence x --max-gpu-lanes 2"
grep '^passes: ' "$T/out" >got.lt11
tr-decode lt/o11.json | tr-window --list-passes >all11.passes
python3 - all11.passes >want.lt11 <<'EOF2'
import sys
rows = [l.rstrip('\n') for l in open(sys.argv[1])]
assert len(rows) == 11, rows
big = max(range(11), key=lambda i: (int(rows[i].split(', ')[1].split()[0]), -i))
for r in rows[:8]:
    print('passes: ' + r)
print('passes: and 3 more (the largest: pass %d, %s bytes of events; all: tr-decode '
      'lt/o11.json | tr-window --list-passes)' % (big, rows[big].split(', ')[1].split()[0]))
EOF2
same "tr-layer-track: 11 passes, the first 8, the count and the largest" want.lt11 got.lt11
refuse 1 "refused: --list-passes without guides" g.json \
	'tr-window: the stream has no layer guides (cat "layer_guide"): --list-passes needs a trace annotated by tr-guides or tr-layer-track' \
	--list-passes
