# t-encode: tr-encode end to end: output safety (no overwrite, no symlink, all
# or nothing), stream checks, gzip output, report files, custom stages from
# the man page (grep, jq) and faults (full disk, closed pipe, signals).
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
VERSION=$(cat "$ROOT/VERSION")

# refused NAME STATUS CMD MESSAGE PATH...: CMD exits STATUS with the one
# stderr line MESSAGE, the PATHs do not exist and no temporary file is left.
refused() {
	name=$1 status=$2 cmd=$3 msg=$4
	shift 4
	expect "$status" "$name: exit $status" "$cmd" && stderr_is "$name: message" "$msg"
	absent "$name: nothing written" "$@"
	no_temp "$name: no temporary file" "$T"
}

# report STAGE-OUTPUT...: an awk stage that inserts these lines before the
# tail record.
report() {
	REPORT_LINES=$(printf '%s\n' "$@") awk '/^\{"@tr":"tail"/ { print ENVIRON["REPORT_LINES"] } { print }'
}

cat >fx.json <<'EOF'
{"schemaVersion": 1, "distributedInfo": {"rank": 0},
 "traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10.500, "dur": 2},
  {"ph": "X", "cat": "kernel", "name": "gemm \"x\"", "pid": 0, "tid": 7, "ts": 11.250, "dur": 1.0},
  {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 13, "dur": 0.125}
 ],
 "displayTimeUnit": "ms", "traceName": "fx"}
EOF
tr-decode fx.json >fx.stream || fail "fixture stream" "tr-decode fx.json failed"

# ---------------------------------------------------------- plain encoding

expect 0 "encode" "tr-encode -o out.json <fx.stream" && json_equal "encode: round trip" fx.json out.json
expect 0 "encode to stdout" "tr-encode <fx.stream" && same "encode to stdout: same bytes" out.json "$T/out"
expect 0 "encode -o -" "tr-encode -o - <fx.stream" && same "encode -o -: same bytes" out.json "$T/out"
expect 0 "encode .gz" "tr-encode -o out.json.gz <fx.stream" &&
	expect 0 "encode .gz: valid gzip" "gzip -t out.json.gz" &&
	json_equal "encode .gz: round trip" fx.json out.json.gz &&
	gzip -dc out.json.gz >gz.json && same "encode .gz: same bytes as plain" out.json gz.json
expect 0 "encode .gz --level 1" "tr-encode --level 1 -o l1.json.gz <fx.stream" &&
	gzip -dc l1.json.gz >l1.json && same "encode .gz --level 1: same bytes" out.json l1.json
expect 0 "encode .gz --level 9" "tr-encode --level=9 -o l9.json.gz <fx.stream" &&
	gzip -dc l9.json.gz >l9.json && same "encode .gz --level 9: same bytes" out.json l9.json
expect 0 ".gz output decodes again" "tr-decode out.json.gz >again.stream" &&
	sed '1d;$d' fx.stream >a.events && sed '1d;$d' again.stream >b.events &&
	same ".gz output decodes to the same events" a.events b.events
expect 2 "--level 0" "tr-encode --level 0 -o bad.json.gz <fx.stream" \
	"tr-encode: --level: invalid value '0' (allowed 1 to 9)"
expect 2 "--level 10" "tr-encode --level 10 -o bad.json.gz <fx.stream" "--level: invalid value '10'"
absent "--level refused: no output" bad.json.gz

# --lifeline FD: the read end of a pipe whose write end the command that
# runs tr-encode holds.  Held: written as without it (the same bytes); hung
# up before the start (every writer closed), or before the tail record
# arrives (the writer closes its end, then sends the tail): nothing written.
# lifeline.bash CMD: CMD run by bash with descriptor 5 the read end of a
# pipe and 6 its only write end (a process substitution that writes
# nothing, read to its end, then a write end opened through /dev/fd).
cat >lifeline.bash <<'EOF'
exec 5< <(:) && ! read -r -u 5 _ && exec 6>/dev/fd/5 || exit 99
eval "$1"
EOF
expect 0 "--lifeline held: written" \
	"bash lifeline.bash 'tr-encode --lifeline 5 -o life.json <fx.stream 6>&-'" &&
	same "--lifeline held: the same bytes" out.json life.json
refused "--lifeline hung up before the start" 2 \
	"bash lifeline.bash 'exec 6>&-; tr-encode --lifeline 5 -o gone.json <fx.stream'" \
	"tr-encode: gone.json: the command that runs this pipeline has ended (its --lifeline hung up); nothing was written" \
	gone.json
# The last writer (the stage before tr-encode, once the shell let go of its
# copy) closes it after all but the tail record: tr-encode has started by
# then (4 MB of events, more than a pipe holds, went through it), and the
# tail comes after.  The trace is written, the check before placing it
# fails.
tr-gen --target-bytes 4M | tr-decode |
	report '{"@tr":"report","suffix":".x.json","body":{}}' >life-rep.stream
refused "--lifeline hung up while the stream comes" 2 \
	"bash lifeline.bash '{ head -n -1 life-rep.stream; exec 6>&-; tail -n 1 life-rep.stream; } |
		tr-encode --lifeline 5 --lifeline 5 -o late.json 6>&- & exec 6>&-; wait \$!'" \
	"tr-encode: late.json: the command that runs this pipeline has ended (its --lifeline hung up); nothing was written" \
	late.json late.json.x.json
refused "--lifeline to standard output, hung up: the reports not written" 2 \
	"bash lifeline.bash '{ head -n -1 life-rep.stream; exec 6>&-; tail -n 1 life-rep.stream; } |
		tr-encode --lifeline 5 --report-base life-out >/dev/null 6>&- & exec 6>&-; wait \$!'" \
	"tr-encode: the command that runs this pipeline has ended (its --lifeline hung up); the reports were not written" \
	life-out.x.json
expect 2 "--lifeline not open" "tr-encode --lifeline 9 -o bad.json <fx.stream" \
	"tr-encode: --lifeline: invalid value '9' (not an open descriptor)"
expect 2 "--lifeline a file" "tr-encode --lifeline 9 -o bad.json <fx.stream 9<fx.json" \
	"tr-encode: --lifeline: invalid value '9' (not the read end of a pipe)"
expect 2 "--lifeline a write end" "bash lifeline.bash 'tr-encode --lifeline 6 -o bad.json <fx.stream'" \
	"tr-encode: --lifeline: invalid value '6' (not the read end of a pipe)"
expect 2 "--lifeline 2" "tr-encode --lifeline 2 -o bad.json <fx.stream" \
	"tr-encode: --lifeline: invalid value '2' (allowed 3 to 2147483647)"
absent "--lifeline refused: no output" bad.json

# ---------------------------------------------------------- output safety

echo old >exists.json
cp exists.json exists.orig
refused "existing output" 2 "tr-encode -o exists.json <fx.stream" \
	"tr-encode: exists.json: output exists; refusing to overwrite it"
same "existing output: unchanged" exists.orig exists.json
echo target >target.json
cp target.json target.orig
ln -s target.json link.json
refused "symlink in the output's place" 2 "tr-encode -o link.json <fx.stream" \
	"tr-encode: link.json: output exists; refusing to overwrite it"
same "symlink: target unchanged" target.orig target.json
ln -s nowhere.json dangling.json
refused "dangling symlink in the output's place" 2 "tr-encode -o dangling.json <fx.stream" \
	"tr-encode: dangling.json: output exists; refusing to overwrite it" nowhere.json
[ -L dangling.json ] && pass "dangling symlink: still there" || fail "dangling symlink: still there"
refused "output in a missing directory" 2 "tr-encode -o nodir/out.json <fx.stream" \
	"tr-encode: nodir/out.json: No such file or directory" nodir
mkdir -p adir
refused "output names a directory" 2 "tr-encode -o adir/ <fx.stream" "tr-encode: adir/: Is a directory"
refused "output is a directory" 2 "tr-encode -o adir <fx.stream" \
	"tr-encode: adir: output exists; refusing to overwrite it"

# ---------------------------------------------------------- stream checks

sed '$d' fx.stream >notail.stream
refused "stream without its tail" 1 "tr-encode -o t.json <notail.stream" \
	"tr-encode: stdin: truncated stream: input ended before the tail record (an earlier stage failed or the stream was cut); no output written" t.json
refused "stream without its tail, .gz" 1 "tr-encode -o t.json.gz <notail.stream" \
	"tr-encode: stdin: truncated stream: input ended before the tail record (an earlier stage failed or the stream was cut); no output written" t.json.gz
head -c -3 fx.stream >cut.stream
refused "stream cut inside the tail" 1 "tr-encode -o t.json <cut.stream" \
	"tr-encode: stdin: truncated stream: input ended inside a line (an earlier stage failed or the stream was cut); no output written" t.json
{ cat fx.stream; echo '{"ph":"X"}'; } >after.stream
refused "a line after the tail" 1 "tr-encode -o t.json <after.stream" \
	"tr-encode: stdin: line 8: data after the tail record; no output written" t.json
{ cat fx.stream; head -n 1 fx.stream; } >twice.stream
refused "two streams concatenated" 1 "tr-encode -o t.json <twice.stream" \
	"tr-encode: stdin: line 8: data after the tail record; no output written" t.json
sed 1d fx.stream >nohead.stream
refused "stream without a head" 1 "tr-encode -o t.json <nohead.stream" \
	"tr-encode: stdin: line 1: not a trace-layers stream: the first line is not a head record (is this tr-decode output?); no output written" t.json
refused "a JSON trace instead of a stream" 1 "tr-encode -o t.json <fx.json" \
	"tr-encode: stdin: line 1: not a trace-layers stream: the first line is not a head record (is this tr-decode output?); no output written" t.json
refused "empty input" 1 "tr-encode -o t.json </dev/null" \
	"tr-encode: stdin: empty input: no stream (an earlier stage failed, or this is not tr-decode output); no output written" t.json
awk 'NR == 3 { print $0; print "" } NR != 3' fx.stream >blank.stream
refused "an empty line" 1 "tr-encode -o t.json <blank.stream" \
	"tr-encode: stdin: line 4: empty line; no output written" t.json
awk 'NR == 3 { print "not json" } { print }' fx.stream >notobj.stream
refused "a line that is not an object" 1 "tr-encode -o t.json <notobj.stream" \
	"tr-encode: stdin: line 3: not a JSON object on one line; no output written" t.json
awk 'NR == 3 { print l1 } NR == 1 { l1 = $0 } { print }' fx.stream >head2.stream
refused "a second head record" 1 "tr-encode -o t.json <head2.stream" \
	"tr-encode: stdin: line 3: a second head record (two streams concatenated?); no output written" t.json
sed '1s/"format":"object"/"format":"xml"/' fx.stream >fmt.stream
refused "bad format in the head" 1 "tr-encode -o t.json <fmt.stream" \
	'tr-encode: stdin: line 1: head record: format must be "object" or "array"; no output written' t.json
expect 1 "truncated stream to stdout" "tr-encode <notail.stream" \
	"truncated stream: input ended before the tail record" &&
	grep -qF "output incomplete" "$T/err" && pass "truncated stream to stdout: says output incomplete" ||
	fail "truncated stream to stdout: says output incomplete" "$(cat "$T/err")"
# unknown control records are for stages that were not in the pipeline
awk 'NR == 3 { print "{\"@tr\":\"other\",\"x\":1}" } { print }' fx.stream >ctl.stream
expect 0 "unknown control record passes" "tr-encode -o ctl.json <ctl.stream" &&
	same "unknown control record: not in the output" out.json ctl.json

# ---------------------------------------------------------- report records

R1='{"@tr":"report","suffix":".test.json","body":{"a":1}}'
R2='{"@tr":"report","suffix":".test.json","member":"m","body":{"b":[2,"x"]}}'
report "$R1" <fx.stream >r1.stream
expect 0 "report" "tr-encode --compact-report -o rep.json <r1.stream" &&
	printf '{"a":1}\n' >want.json && same "report: OUT.test.json holds the body" want.json rep.json.test.json &&
	same "report: the trace is unchanged" out.json rep.json
report "$R1" "$R2" <fx.stream >r2.stream
expect 0 "report with a member" "tr-encode --compact-report -o mem.json <r2.stream" &&
	printf '{"a":1,"m":{"b":[2,"x"]}}\n' >want.json && same "report with a member: folded in" want.json mem.json.test.json
report "$R2" "$R1" <fx.stream >r3.stream
expect 0 "member before the body" "tr-encode --compact-report -o mem2.json <r3.stream" &&
	same "member before the body: folded in" want.json mem2.json.test.json
report "$R2" <fx.stream >r4.stream
expect 0 "member without a body" "tr-encode --compact-report -o mem3.json <r4.stream" &&
	printf '{"m":{"b":[2,"x"]}}\n' >want.json && same "member without a body: its own object" want.json mem3.json.test.json
report '{"@tr":"report","suffix":".e.json","body":{}}' "$R2" \
	'{"@tr":"report","suffix":".e.json","member":"n","body":{"c":3}}' <fx.stream >r5.stream
expect 0 "two report files" "tr-encode --compact-report -o two.json <r5.stream" &&
	printf '{"n":{"c":3}}\n' >want.json && same "two report files: empty body and a member" want.json two.json.e.json &&
	printf '{"m":{"b":[2,"x"]}}\n' >want.json && same "two report files: the other" want.json two.json.test.json
expect 0 "reports with a .gz trace" "tr-encode --compact-report -o gzr.json.gz <r1.stream" &&
	printf '{"a":1}\n' >want.json && same "reports with a .gz trace: plain report beside it" want.json gzr.json.gz.test.json

echo old >busy.json.test.json
cp busy.json.test.json busy.orig
refused "existing report file" 2 "tr-encode -o busy.json <r1.stream" \
	"tr-encode: busy.json.test.json: report exists; refusing to overwrite it" busy.json
same "existing report file: unchanged" busy.orig busy.json.test.json
echo old >busy2.json.e.json
refused "second report file exists" 2 "tr-encode -o busy2.json <r5.stream" \
	"tr-encode: busy2.json.e.json: report exists; refusing to overwrite it" busy2.json busy2.json.test.json

report "$R1" "$R1" <fx.stream >dup.stream
refused "two bodies for one report" 1 "tr-encode -o dup.json <dup.stream" \
	"tr-encode: line 8: a second report body for .test.json" dup.json dup.json.test.json
report '{"@tr":"report","suffix":"/../x.json","body":{}}' <fx.stream >sfx.stream
refused "bad report suffix" 1 "tr-encode -o sfx.json <sfx.stream" \
	"tr-encode: line 7: report suffix must look like .name.json (lowercase letters, digits, '.', '-', '_')" \
	sfx.json ../x.json
report '{"@tr":"report","suffix":".x.json","body":[1]}' <fx.stream >nobody.stream
refused "report body not an object" 1 "tr-encode -o nobody.json <nobody.stream" \
	'tr-encode: line 7: a report record needs a string "suffix" and an object "body", or a "member" and its value ("body") or an array "items"' nobody.json nobody.json.x.json

# items records append to an array member, in pieces: no stage holds a long report line
I1='{"@tr":"report","suffix":".test.json","member":"rows","items":[{"i":0},{"i":1}]}'
I2='{"@tr":"report","suffix":".test.json","member":"rows","items":[]}'
I3='{"@tr":"report","suffix":".test.json","member":"rows","items":[{"i":2}]}'
V1='{"@tr":"report","suffix":".test.json","member":"s","body":"x\u00e9"}'
report "$R1" "$I1" "$I2" "$I3" "$V1" "$R2" <fx.stream >it.stream
expect 0 "report items" "tr-encode --compact-report -o it.json <it.stream" &&
	printf '{"a":1,"rows":[{"i":0},{"i":1},{"i":2}],"s":"x\\u00e9","m":{"b":[2,"x"]}}\n' >want.json &&
	same "report items: appended in order, then the next members" want.json it.json.test.json &&
	json_equal "report items: valid JSON" want.json it.json.test.json
report "$R1" "$I2" <fx.stream >it2.stream
expect 0 "report items: only empty pieces" "tr-encode --compact-report -o it2.json <it2.stream" &&
	printf '{"a":1,"rows":[]}\n' >want.json && same "report items: an empty array" want.json it2.json.test.json
report "$R1" "$I1" "$V1" "$I3" <fx.stream >it3.stream
refused "report items after another member" 1 "tr-encode -o it3.json <it3.stream" \
	'tr-encode: line 10: report items for member "rows" of .test.json after another member came between' \
	it3.json it3.json.test.json
report "$I1" "$R1" <fx.stream >it4.stream
refused "report items before the body" 1 "tr-encode -o it4.json <it4.stream" \
	'tr-encode: line 7: report items for .test.json before its body' it4.json it4.json.test.json
report "$R1" '{"@tr":"report","suffix":".test.json","member":"rows","items":{"i":0}}' <fx.stream >it5.stream
refused "report items not an array" 1 "tr-encode -o it5.json <it5.stream" \
	'tr-encode: line 8: a report record needs a string "suffix" and an object "body", or a "member" and its value ("body") or an array "items"' \
	it5.json it5.json.test.json

expect 2 "reports to stdout need --report-base" "tr-encode -o - <r1.stream" \
	"tr-encode: the stream carries reports: give --report-base when writing to standard output"
absent "reports to stdout: no report file" -.test.json .test.json
[ ! -s "$T/out" ] && pass "reports to stdout: refused before the trace is out" ||
	fail "reports to stdout: refused before the trace is out" "$(head -c 200 "$T/out")"
expect 0 "reports to stdout with --report-base" "tr-encode --compact-report --report-base base <r1.stream" &&
	same "reports to stdout: the trace" out.json "$T/out" &&
	printf '{"a":1}\n' >want.json && same "reports to stdout: base.test.json" want.json base.test.json
expect 0 "--report-base with -o" "tr-encode --compact-report -o rb.json --report-base rbase <r1.stream" &&
	same "--report-base with -o: report at the base" want.json rbase.test.json
absent "--report-base with -o: none at the output" rb.json.test.json

# Reports are indented by default as Python's json.dump(indent=2) writes them
# (the oracle: python's own layout of the same document, which keeps these
# numbers' text), number text and string bytes exact; --compact-report
# gives the one-line form; members named "event" (tr-compact's retired
# source events) keep their exact text on one line.
P1='{"@tr":"report","suffix":".p.json","body":{"n":1.50e+03,"s":"a, b: {c} \"q\"","u":"x\u00e9","e":[],"o":{}}}'
P2='{"@tr":"report","suffix":".p.json","member":"rows","items":[{"i":0,"k":[1,2]},{"i":1,"k":[]}]}'
P3='{"@tr":"report","suffix":".p.json","member":"retired","body":[{"source_event_index":7,"event":{"name":"n","args":{"x":[1,{}]}}}]}'
report "$P1" "$P2" "$P3" <fx.stream >pr.stream
cat >want.json <<'WANT'
{
  "n": 1.50e+03,
  "s": "a, b: {c} \"q\"",
  "u": "x\u00e9",
  "e": [],
  "o": {},
  "rows": [
    {
      "i": 0,
      "k": [
        1,
        2
      ]
    },
    {
      "i": 1,
      "k": []
    }
  ],
  "retired": [
    {
      "source_event_index": 7,
      "event": {"name":"n","args":{"x":[1,{}]}}
    }
  ]
}
WANT
expect 0 "indented report" "tr-encode -o pr.json <pr.stream" &&
	same "indented report: json.dump(indent=2)'s layout, exact text" want.json pr.json.p.json
printf '{"n":1.50e+03,"s":"a, b: {c} \\"q\\"","u":"x\\u00e9","e":[],"o":{},"rows":[{"i":0,"k":[1,2]},{"i":1,"k":[]}],"retired":[{"source_event_index":7,"event":{"name":"n","args":{"x":[1,{}]}}}]}\n' >want1.json
expect 0 "--compact-report" "tr-encode --compact-report -o prc.json <pr.stream" &&
	same "--compact-report: one line" want1.json prc.json.p.json &&
	same "--compact-report: the trace is the same" pr.json prc.json
"$PYTHON" -c '
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(a != b or list(a) != list(b))' pr.json.p.json prc.json.p.json &&
	pass "indented and one-line reports: the same document, the same key order" ||
	fail "indented and one-line reports: the same document, the same key order"

# ---------------------------------------------------------- custom stages

# grep: drop every cpu_op event (the man page's example)
stage_grep() { # NAME TRACE
	expect 0 "$1: grep stage" "tr-decode '$2' | grep -v '\"cat\":\"cpu_op\"' | tr-encode -o small.$1.json" &&
		expect 0 "$1: grep stage: exactly the cpu_op events are gone" \
			"python3 '$ROOT/tests/e2e/trace_check.py' dropped '$2' small.$1.json cat cpu_op" "" &&
		rm -f small.$1.json
}
# jq: drop the metadata events; jq 1.6 rewrites integers beyond 2^53, so only
# on traces without them (the result must match a grep stage byte for byte)
stage_jq() { # NAME TRACE
	expect 0 "$1: jq stage" "tr-decode '$2' | jq -c 'if has(\"@tr\") then . else select(.ph != \"M\") end' | tr-encode -o nom.$1.json" &&
		expect 0 "$1: jq stage: exactly the M events are gone" \
			"python3 '$ROOT/tests/e2e/trace_check.py' dropped '$2' nom.$1.json ph M" &&
		expect 0 "$1: grep stage for M" "tr-decode '$2' | grep -v '\"ph\":\"M\"' | tr-encode -o nomg.$1.json" &&
		same "$1: jq and grep stages agree byte for byte" nom.$1.json nomg.$1.json
	rm -f nom.$1.json nomg.$1.json
}
stage_grep fixture fx.json
# numbers as jq prints them (no trailing zeros, at most 17 digits)
cat >fxjq.json <<'EOF2'
{"schemaVersion":1,"traceEvents":[
 {"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1712195495519689,"dur":2.5},
 {"ph":"X","cat":"kernel","name":"gemm \"x\" \\ y","pid":0,"tid":7,"ts":11.25,"dur":-1,"args":{"a":[true,null,{}]}},
 {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}}
],"displayTimeUnit":"ms"}
EOF2
if command -v jq >/dev/null 2>&1; then
	stage_jq fixture fxjq.json
else
	skip "jq stage" "jq is not installed"
fi
if [ -x "$BIN/tr-gen" ]; then
	tr-gen --target-bytes 400K -o gen.json &&
		stage_grep tr-gen gen.json
	rm -f gen.json
else
	skip "grep stage on a tr-gen trace" "tr-gen is not built"
fi
# grep on the smallest real trace; jq on one known to have no number that
# jq 1.6 would rewrite (integer ts, no trailing zeros, nothing beyond 2^53)
small=$(cd "$TRACES" 2>/dev/null && ls -Sr -- *.json *.json.gz 2>/dev/null | head -n 1)
if [ -n "$small" ]; then
	stage_grep real "$TRACES/$small"
else
	skip "grep stage on a real trace" "no trace in $TRACES"
fi
jqsafe=$TRACES/step_based_trace_2543932.json.gz
if [ -f "$jqsafe" ] && command -v jq >/dev/null 2>&1; then
	stage_jq real "$jqsafe"
else
	skip "jq stage on a real trace" "$jqsafe is absent (or jq)"
fi

# ------------------------------------------------------------------ faults

expect 2 "/dev/full" "tr-encode <fx.stream >/dev/full" &&
	stderr_is "/dev/full: message" "tr-encode: standard output: No space left on device"
awk 'BEGIN { printf "{\"traceEvents\":["
	for (i = 0; i < 150000; i++) printf "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"ts\":%d,\"dur\":3}", i ? "," : "", i, i * 7
	print "]}" }' >big.json
tr-decode big.json >big.stream
run "{ tr-encode <big.stream 2>enc.err; echo \$? >enc.rc; } | head -c 100 >/dev/null"
if [ ! -s enc.err ] && [ "$(cat enc.rc)" = 141 ]; then
	pass "closed pipe: quiet, killed by SIGPIPE"
else
	fail "closed pipe: quiet, killed by SIGPIPE" "status $(cat enc.rc)" "stderr: $(head -c 300 enc.err)"
fi

# a signal while the stream is still coming: no output, no temporary file
signal_test() { # SIGNAL OUTPUT
	rm -f fifo
	mkfifo fifo
	tr-encode -o "$2" <fifo 2>sig.err &
	pid=$!
	exec 3>fifo
	head -n 4 big.stream >&3
	k=0
	# a guard against a hang (60 s), not a timing assumption
	while ! temp_open "$(pwd -P)" && [ $k -lt 1200 ]; do
		sleep 0.05
		k=$((k + 1))
	done
	if temp_open "$(pwd -P)"; then
		pass "SIG$1 ($2): temporary file while the stream comes"
	else
		fail "SIG$1 ($2): temporary file while the stream comes" "$(ls -a)"
	fi
	kill -"$1" $pid
	rc=0
	wait $pid 2>/dev/null || rc=$?
	exec 3>&-
	case $1 in TERM) want=143 ;; INT) want=130 ;; *) want=129 ;; esac
	if [ $rc = $want ] && [ ! -s sig.err ]; then
		pass "SIG$1 ($2): dies of the signal, quietly"
	else
		fail "SIG$1 ($2): dies of the signal, quietly" "status $rc, wanted $want" "$(cat sig.err)"
	fi
	absent "SIG$1 ($2): no output" "$2"
	no_temp "SIG$1 ($2): no temporary file" "$T"
}
signal_test TERM sig.json
signal_test INT sig.json.gz
signal_test HUP sig2.json

expect 0 "--help" "tr-encode --help" && grep -q '^usage: tr-encode' "$T/out" && [ ! -s "$T/err" ] &&
	pass "--help: usage on stdout" || fail "--help: usage on stdout" "$(head -c 200 "$T/out")"
expect 2 "bad option" "tr-encode --bogus <fx.stream" "usage: tr-encode" &&
	[ ! -s "$T/out" ] && pass "bad option: nothing on stdout" || fail "bad option: nothing on stdout"
expect 2 "an operand" "tr-encode fx.stream <fx.stream" "usage: tr-encode"
expect 2 "-o without a value" "tr-encode -o" "usage: tr-encode"
expect 0 "--version" "tr-encode --version" &&
	printf 'tr-encode %s\n%s\n' "$VERSION" "$(grep -E '^gzip: (ISA-L|zlib) [0-9.]+$' "$T/out")" \
		>want.version && same "--version: text (the program, then the gzip backend)" want.version "$T/out"
