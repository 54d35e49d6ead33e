# t-hostile: hostile input, one case per trap, in every program that reads
# it: tr-decode always (with tr-encode for round trips), tr-select-anchors,
# tr-compact, tr-survey and tr-verify where the case concerns them.  Each
# case asserts the documented behaviour exactly: exit status and the one
# line of stderr, or the exact output.  Bad input already covered by
# t-decode (a leading byte order mark, truncation, garbage, gzip damage) is
# not repeated.  Decisions are named in the case names and documented in the
# man pages (tr-decode(1), tr-stream(5), tr-select-anchors(1), tr-survey(1),
# tr-compact(1)).
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2

# refused STATUS NAME CMD LINE: CMD exits with STATUS and stderr is LINE.
refused() {
	expect "$1" "$2: exit $1" "$3" && stderr_is "$2: message" "$4"
}

# refused_first STATUS NAME CMD LINE: as refused, for a refusal whose
# evidence and hint follow on more lines: the first line is LINE.
refused_first() {
	if expect "$1" "$2: exit $1" "$3"; then
		head -n 1 "$T/err" >"$T/err1"
		printf '%s\n' "$4" >"$T/want.err"
		if cmp -s "$T/want.err" "$T/err1"; then
			pass "$2: message"
		else
			fail "$2: message" "stderr: $(head -c 400 "$T/err")" "wanted first: $4"
		fi
	fi
}

# out_line NAME FILE N TEXT: line N of FILE is exactly TEXT.
out_line() {
	printf '%s\n' "$4" >"$T/want.line"
	sed -n "$3p" "$2" >"$T/got.line"
	if cmp -s "$T/want.line" "$T/got.line"; then
		pass "$1"
	else
		fail "$1" "line $3: $(head -c 300 "$T/got.line")" "wanted: $(head -c 300 "$T/want.line")"
	fi
}

# has NAME FILE TEXT: FILE holds the fixed string TEXT.
has() {
	if grep -qF -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "$2 lacks: $3" "$(head -c 300 "$2")"
	fi
}

# events FILE: the event lines of a stream (no control records).
events() {
	grep -v '^{"@tr":' "$1"
}

# kern NAME TS REST [PID]: a kernel event (NAME is JSON string text, REST
# follows ts: ',"dur":2' or nothing).
kern() {
	printf '{"ph":"X","cat":"kernel","name":"%s","pid":%s,"tid":7,"ts":%s%s,"args":{"device":0,"stream":7}}' \
		"$1" "${4:-1}" "$2" "$3"
}

# doc FILE EVENT...: a trace in the object format.
doc() {
	f=$1
	shift
	{
		printf '{"traceEvents":['
		sep=
		for e in "$@"; do
			printf '%s%s' "$sep" "$e"
			sep=,
		done
		printf ']}'
	} >"$f"
}

SA="tr-select-anchors --num-layers 1 --anchor-offset 0 --anchor-regex"
COMPACT1="tr-compact --max-gpu-lanes 1"
ANCHOR='^{"@tr":"anchor",'

# ------------------------------------------------------------ byte order mark

# inside a string it is text, kept byte for byte; anywhere between tokens it
# is an error (t-decode covers the start of the file)
doc bomstr.json "$(kern "$(printf '\357\273\277')k" 1 ',"dur":1')"
expect 0 "BOM inside a name: decode" "tr-decode bomstr.json >bomstr.stream" &&
	out_line "BOM inside a name: kept byte for byte" bomstr.stream 2 \
		"$(kern "$(printf '\357\273\277')k" 1 ',"dur":1')"
expect 0 "BOM inside a name: anchor regex after it matches" \
	"tr-decode bomstr.json | $SA '^.k\$' >sa.out" && [ "$(grep -c "$ANCHOR" sa.out)" = 1 ] &&
	pass "BOM inside a name: one anchor (U+FEFF is one character)" ||
	fail "BOM inside a name: one anchor (U+FEFF is one character)" "$(cat sa.out)"
printf '{"traceEvents":[{"a":1},\357\273\277{"b":2}]}' >bommid.json
refused 1 "BOM between events: refused" "tr-decode bommid.json" \
	"tr-decode: bommid.json: byte 24 (event 1): event is not a JSON object"
printf '\357\273\277{"traceEvents":[]}' | gzip -c >bom.json.gz
refused 1 "BOM inside a gzip member: refused as in plain text" "tr-decode bom.json.gz" \
	"tr-decode: bom.json.gz: byte 0: UTF-8 byte order mark before the JSON document (not allowed in JSON text; remove the first 3 bytes)"
printf '\357\273\277' >bomstream
tr-decode bomstr.json >>bomstream
refused 1 "BOM before a stream: stages refuse it" "tr-select-anchors --num-layers 1 --anchor-offset 0 --anchor-regex k <bomstream" \
	"tr-select-anchors: stdin: line 1: not a trace-layers stream: the first line is not a head record (is this tr-decode output?)"

# ----------------------------------------------------------------- NUL bytes

printf '{"traceEvents":[{"name":"a\0b"}]}' >nulstr.json
refused 1 "NUL inside a string: refused (control character)" "tr-decode nulstr.json" \
	"tr-decode: nulstr.json: byte 26 (event 0): control character in string (must be escaped)"
printf '{"traceEvents":[{"a":1,\0"b":2}]}' >nulmember.json
refused 1 "NUL between members: refused" "tr-decode nulmember.json" \
	"tr-decode: nulmember.json: byte 23 (event 0): expected a member name after ','"
printf '{"traceEvents":[{"a":1},\0{"b":2}]}' >nulevent.json
refused 1 "NUL between events: refused" "tr-decode nulevent.json" \
	"tr-decode: nulevent.json: byte 24 (event 1): event is not a JSON object"
printf '{"traceEvents":[{"a":1}]}\0' >nulend.json
refused 1 "NUL after the document: refused" "tr-decode nulend.json" \
	"tr-decode: nulend.json: byte 25: trailing garbage after the JSON document"
# \u0000 is a NUL the regex sees; the event keeps the escape text
doc nulesc.json "$(kern 'nul\u0000mid' 1 ',"dur":1')"
expect 0 "escaped NUL in a name: decode" "tr-decode nulesc.json >nulesc.stream" &&
	out_line "escaped NUL in a name: escape kept" nulesc.stream 2 "$(kern 'nul\u0000mid' 1 ',"dur":1')"
expect 0 "escaped NUL in a name: regex nul\\x00mid matches" \
	"$SA '^nul\\x00mid\$' <nulesc.stream >sa.out" &&
	has "escaped NUL in a name: anchor record keeps the escape" sa.out '"name":"nul\u0000mid"}}'

# ------------------------------------------------------------ invalid UTF-8

BAD=$(printf 'bad\377\376byte_kernel')
doc badutf.json "$(kern "$BAD" 10 ',"dur":2')"
expect 0 "invalid UTF-8 name: decode" "tr-decode badutf.json >badutf.stream"
expect 0 "invalid UTF-8 name: select-anchors with a regex before it" "$SA '^bad' <badutf.stream >sa.out" &&
	[ "$(grep -c "$ANCHOR" sa.out)" = 1 ] && events sa.out >got.events && events badutf.stream >want.events &&
	same "invalid UTF-8 name: select-anchors passes the event byte for byte" want.events got.events
expect 0 "invalid UTF-8 name: regex after it matches" "$SA 'byte_kernel\$' <badutf.stream >sa.out" &&
	has "invalid UTF-8 name: anchor record holds the raw bytes" sa.out "\"name\":\"$BAD\"}}"
refused_first 1 "invalid UTF-8 name: '.' does not match an invalid byte (decision)" \
	"$SA 'bad..byte' <badutf.stream >/dev/null" \
	"tr-select-anchors: no X kernel event matches --anchor-regex 'bad..byte'"
expect 0 "invalid UTF-8 name: compact" "$COMPACT1 <badutf.stream >compact.out" &&
	has "invalid UTF-8 name: compact moves the event, name bytes kept" compact.out \
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"$BAD\",\"pid\":1,\"tid\":2113929216,"

# ---------------------------------------- escapes: the regex sees the name

doc esc.json "$(kern 'gemm<\"x\">' 10 ',"dur":2')" "$(kern 'flash\ud83d\ude00_fwd' 20 ',"dur":2')" \
	"$(kern 'tab\there' 30 ',"dur":2')" "$(kern 'lone\ud800x' 40 ',"dur":2')"
tr-decode esc.json >esc.stream
expect 0 "escaped quotes: regex with plain quotes matches" "$SA '^gemm<\"x\">\$' <esc.stream >sa.out" &&
	has "escaped quotes: anchor record keeps the escapes" sa.out '"ts":10,"dur":2,"ts_ns":10000,"dur_ns":2000,"name":"gemm<\"x\">"}}'
expect 0 "surrogate pair: regex with the character matches" "$SA '^flash😀_fwd\$' <esc.stream >sa.out" &&
	has "surrogate pair: anchor record keeps the escape text" sa.out '"name":"flash\ud83d\ude00_fwd"}}'
expect 0 "surrogate pair: '.' matches the one character" "$SA '^flash._fwd\$' <esc.stream >/dev/null"
expect 0 "escaped tab: regex \\t matches" "$SA '^tab\\there\$' <esc.stream >/dev/null"
expect 0 "lone surrogate: text before it matches" "$SA '^lone' <esc.stream >/dev/null"
refused_first 1 "lone surrogate: '.' does not match it (not UTF-8)" "$SA '^lone.x\$' <esc.stream >/dev/null" \
	"tr-select-anchors: no X kernel event matches --anchor-regex '^lone.x\$'"

# tr-survey's ready command: an exact regex (quotes, NUL) or, for bytes that
# are not UTF-8, the longest valid part with a warning (decision)
for case in "quoted:it's \\\"q\\\" (x)*" 'escaped NUL:nul\u0000mid' "invalid UTF-8:$BAD" 'lone surrogate:lone\ud800x'; do
	tag=${case%%:*} nm=${case#*:}
	doc sv.json "$(kern "$nm" 10 ',"dur":1')" "$(kern "$nm" 20 ',"dur":1')" "$(kern "$nm" 30 ',"dur":1')"
	tr-decode sv.json >sv.stream
	expect 0 "survey, $tag name: survey" "tr-survey --num-layers 1 <sv.stream" || continue
	cmd=$(tail -n 1 "$T/out" | sed 's/^ *tr-layer-track --trace TRACE --output OUT/tr-select-anchors/; s/ --phase .*//')
	run "$cmd <sv.stream"
	if [ "$RC" = 0 ] && [ "$(grep -c "$ANCHOR" "$T/out")" = 3 ]; then
		pass "survey, $tag name: its command selects the 3 kernels"
	else
		fail "survey, $tag name: its command selects the 3 kernels" "$cmd" "$(head -c 300 "$T/err")"
	fi
done
run "tr-survey --num-layers 1 --json <sv.stream"
has "survey, lone surrogate: the warning says why the regex is not exact" "$T/out" \
	'the name holds bytes that are not UTF-8, which no regex matches; the command'"'"'s regex covers its longest valid part'

# ------------------------------------------------------------ deep nesting

# Nesting: 1000 levels (the limit) in an event's args and in a top-level
# member are accepted and every stage handles them quickly (each command
# gets 20 s); 100000 levels are refused by tr-decode at the bracket that goes
# too deep, because jsmn's cost grows with the square of the depth.
deep_trace() { # PAIRS META: PAIRS [{ pairs inside args, META arrays in "meta"
	awk -v d="$1" -v m="$2" 'BEGIN {
	printf "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"deep_kernel\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"a\":"
	for (i = 0; i < d; i++) printf "[{\"k\":"
	printf "1"
	for (i = 0; i < d; i++) printf "}]"
	printf "}}],\"meta\":"
	for (i = 0; i < m; i++) printf "["
	for (i = 0; i < m; i++) printf "]"
	printf "}" }'
}
deep_trace 100000 1 >deep.json
# the 1001st level is the '[' of the 500th [{ pair: byte 105 + 499 * 6
refused 1 "depth 100000: refused at the 1001st level" "tr-decode deep.json >/dev/null" \
	"tr-decode: deep.json: byte 3099 (event 0): nested deeper than 1000 levels (refused: later stages tokenize with jsmn, whose cost grows with the square of the depth)"
deep_trace 1 100000 >deep.json
refused 1 "depth 100000 in a top-level member: refused" "tr-decode deep.json >/dev/null" \
	"tr-decode: deep.json: byte 1125 (top-level member): nested deeper than 1000 levels (refused: later stages tokenize with jsmn, whose cost grows with the square of the depth)"
# event object + args object + 499 x [{ = 1000 levels; "meta": 1000 arrays
deep_trace 499 1000 >deep.json
expect 0 "depth 1000: decode" "timeout 120 tr-decode deep.json >deep.stream"
expect 0 "depth 1000: encode" "timeout 120 tr-encode -o deep.out.json <deep.stream" &&
	expect 0 "depth 1000: decode the round trip" "timeout 120 tr-decode deep.out.json >deep2.stream" &&
	sed '1s/"source":"[^"]*"//; $s/,"source_bytes".*//' deep.stream >a.stream &&
	sed '1s/"source":"[^"]*"//; $s/,"source_bytes".*//' deep2.stream >b.stream &&
	same "depth 1000: decode, encode, decode gives the same stream" a.stream b.stream
expect 0 "depth 1000: select-anchors" "timeout 120 $SA deep_kernel <deep.stream >sa.out" &&
	[ "$(grep -c "$ANCHOR" sa.out)" = 1 ] && pass "depth 1000: the deep kernel is the anchor" ||
	fail "depth 1000: the deep kernel is the anchor"
expect 0 "depth 1000: compact" "timeout 120 tr-compact <deep.stream >deep.c.stream" &&
	expect 0 "depth 1000: compact, encode" "tr-encode -o deep.c.json <deep.c.stream" &&
	expect 0 "depth 1000: tr-verify" "timeout 120 tr-verify --source deep.json --output deep.c.json" &&
	[ "$(tail -n 1 "$T/out")" = verified ] && pass "depth 1000: verified" ||
	fail "depth 1000: verified" "$(tail -n 3 "$T/out")"
expect 0 "depth 1000: survey" "timeout 120 tr-survey --num-layers 1 <deep.stream"
rm -f deep*.json deep*.stream

# -------------------------------------------------- a 100 MB string

{
	printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"'
	head -c 100000000 /dev/zero | tr '\0' a
	printf '","pid":1,"tid":1,"ts":1,"dur":1}]}'
} >huge.json
refused 1 "100 MB string: refused by the default --max-event-bytes 64M" "tr-decode huge.json >/dev/null" \
	"tr-decode: huge.json: byte 67108880 (event 0): larger than --max-event-bytes"
expect 0 "100 MB string: accepted with --max-event-bytes 200M" \
	"tr-decode --max-event-bytes 200M huge.json >huge.stream"
# a kernel selected must fit its guide's report row: refused at the selection
refused 1 "100 MB string: select-anchors refuses it as an anchor" "$SA '^a' --passes 1 <huge.stream" \
	"tr-select-anchors: event 0: selected anchor kernel's name, pid, tid, device, ts and dur take 100000006 bytes of JSON text, more than the 256 KiB a guide and its report row can carry"
expect 0 "100 MB string: stages read the 100 MB line" "tr-window --from 0 <huge.stream | tr-encode -o huge.out.json" &&
	head -c 16 huge.json >want.ends && printf '\n' >>want.ends && tail -c +17 huge.json | head -c 50 >>want.ends &&
	tail -c 34 huge.json | head -c 32 >>want.ends && printf '\n]}\n' >>want.ends &&
	{ head -c 67 huge.out.json; tail -c 36 huge.out.json; } >got.ends &&
	[ "$(wc -c <huge.out.json)" -eq $(($(wc -c <huge.json) + 3)) ] &&
	same "100 MB string: encoded whole (the source plus 3 line feeds)" want.ends got.ends
rm -f huge.json huge.stream huge.out.json*

# ------------------------------------------------------------- ts as a string

doc tsstr.json "$(kern anc '"123.5"' ',"dur":2')"
expect 0 "ts as a string: decode" "tr-decode tsstr.json >tsstr.stream" &&
	out_line "ts as a string: passed through unchanged" tsstr.stream 2 "$(kern anc '"123.5"' ',"dur":2')"
refused 1 "ts as a string: select-anchors refuses the selected kernel" "$SA '^anc' <tsstr.stream" \
	'tr-select-anchors: event 0: anchor kernel has no numeric ts ("123.5"); the matches cannot be ordered'
refused 1 "ts as a string: compact refuses the GPU event" "$COMPACT1 <tsstr.stream" \
	"tr-compact: event 0: GPU event without a numeric ts and dur"
doc tsstr3.json "$(kern k 10 ',"dur":1')" "$(kern k 20 ',"dur":1')" "$(kern k '"25"' ',"dur":1')" \
	"$(kern k 30 ',"dur":1')"
expect 0 "ts as a string: survey" "tr-decode tsstr3.json | tr-survey --num-layers 1 --json" &&
	has "ts as a string: survey does not count it (decision)" "$T/out" '{"name":"k","count":3,'

# ------------------------------------------------------------------ exponents

doc tsexp.json "$(kern anc '1.5e3' ',"dur":2E-3')" "$(kern other '-0.0e+0' ',"dur":0')"
expect 0 "ts 1.5e3: select-anchors converts exactly" "tr-decode tsexp.json | $SA '^anc' >sa.out" &&
	has "ts 1.5e3: 1500000 ns, dur 2E-3: 2 ns, texts kept" sa.out \
		'"ts":1.5e3,"dur":2E-3,"ts_ns":1500000,"dur_ns":2,"name":"anc"'
has "ts -0.0e+0: the trace origin is 0" sa.out '"trace_origin_ns":0,"trace_origin_us":0.000,'
expect 0 "ts 1.5e3: compact" "tr-decode tsexp.json | $COMPACT1 >compact.out" &&
	has "ts 1.5e3: compact keeps the number text" compact.out '"ts":1.5e3,"dur":2E-3,'
doc tshuge.json "$(kern anc "1$(printf '%0400d' 0)" ',"dur":1')"
refused 1 "ts with 401 digits: select-anchors: not a usable number" "tr-decode tshuge.json | $SA '^anc'" \
	"tr-select-anchors: event 0: anchor kernel has no numeric ts (1$(printf '%0400d' 0)); the matches cannot be ordered"
refused 1 "ts with 401 digits: compact: out of range" "tr-decode tshuge.json | tr-compact" \
	"tr-compact: event 0: ts 1$(printf '%0400d' 0) or dur 1 is out of range (beyond +/-4611686018427387.902 us, 2^62 ns, the time range of trace-layers)"

# ------------------------------------------------------------- NaN, Infinity

for v in NaN Infinity; do
	printf '{"traceEvents":[{"ts":%s}]}' $v >$v.json
	refused 1 "$v: refused, not JSON" "tr-decode $v.json" \
		"tr-decode: $v.json: byte 22 (event 0): expected a value"
done
printf '{"traceEvents":[{"ts":-Infinity}]}' >ninf.json
refused 1 "-Infinity: refused, not JSON" "tr-decode ninf.json" \
	"tr-decode: ninf.json: byte 23 (event 0): invalid number"

# ------------------------------------------------------ negative, missing dur

doc negdur.json "$(kern anc 10 ',"dur":-2')" "$(kern anc 20 ',"dur":2')"
tr-decode negdur.json >negdur.stream
refused 1 "negative dur: select-anchors refuses the selected kernel" "$SA '^anc' <negdur.stream" \
	"tr-select-anchors: event 0: selected anchor kernel has a negative dur (-2)"
refused 1 "negative dur: select-anchors refuses a kernel not selected too (issue 13)" \
	"tr-select-anchors --num-layers 1 --anchor-offset 1 --anchor-regex '^anc' <negdur.stream" \
	'tr-select-anchors: event 0 (ts 10): kernel "anc" has a negative dur (-2); Perfetto would misplace it and the trace bounds, so no guides are added to this trace'
refused 1 "negative dur: compact refuses" "tr-compact <negdur.stream" \
	"tr-compact: event 0: negative dur -2"
doc nodur.json "$(kern anc 10 '')"
tr-decode nodur.json >nodur.stream
refused 1 "missing dur: select-anchors refuses the selected kernel" "$SA '^anc' <nodur.stream" \
	"tr-select-anchors: event 0: selected anchor kernel has no numeric dur (missing)"
refused 1 "missing dur: compact refuses the GPU event" "tr-compact <nodur.stream" \
	"tr-compact: event 0: GPU event without a numeric ts and dur"

# ------------------------------------------------------------ duplicate keys

DUP='{"ph":"X","cat":"kernel","name":"anc","pid":1,"tid":7,"ts":10,"dur":1,"ts":99,"args":{"device":0,"device":5}}'
printf '{"traceEvents":[%s]}' "$DUP" >dup.json
expect 0 "duplicate keys: decode, encode" "tr-decode dup.json | tr-encode -o dup.out.json" &&
	printf '{"traceEvents":[\n%s\n]}\n' "$DUP" >want.json && same "duplicate keys: kept byte for byte" want.json dup.out.json
expect 0 "duplicate keys: select-anchors" "tr-decode dup.json | $SA '^anc' >sa.out" &&
	has "duplicate keys: select-anchors reads the first (decision)" sa.out \
		'"device":0,"ts":10,"dur":1,"ts_ns":10000,"dur_ns":1000,'
expect 0 "duplicate keys: compact" "tr-decode dup.json | tr-compact >compact.out" &&
	has "duplicate keys: compact reads the first device, event otherwise unchanged" compact.out \
		'"ts":10,"dur":1,"ts":99,"args":{"device":0,"device":5,"_compact_gpu_track":'
has "duplicate keys: compact groups by the first device" compact.out '(synthetic; device 0)'

# ----------------------------------------------------------- trailing commas

printf '{"traceEvents":[{"a":1},]}' >tc-ok.json
expect 0 "trailing comma after the last event: accepted (as Perfetto)" "tr-decode tc-ok.json >tc.stream" &&
	[ "$(events tc.stream)" = '{"a":1}' ] && pass "trailing comma after the last event: one event" ||
	fail "trailing comma after the last event: one event" "$(cat tc.stream)"
printf '[{"a":1},]' >tc-array.json
expect 0 "trailing comma, array format: accepted" "tr-decode tc-array.json | tr-encode -o tc.out.json" &&
	printf '[\n{"a":1}\n]\n' >want.json && same "trailing comma, array format: dropped on encoding" want.json tc.out.json
printf '{"traceEvents":[{"a":1,}]}' >tc1.json
refused 1 "trailing comma inside an event: refused" "tr-decode tc1.json" \
	"tr-decode: tc1.json: byte 23 (event 0): expected a member name after ','"
printf '{"traceEvents":[{"a":[1,]}]}' >tc2.json
refused 1 "trailing comma inside an array of an event: refused" "tr-decode tc2.json" \
	"tr-decode: tc2.json: byte 24 (event 0): expected a value"
printf '{"traceEvents":[{"a":1}],}' >tc3.json
refused 1 "trailing comma after the last top-level member: refused" "tr-decode tc3.json" \
	"tr-decode: tc3.json: byte 25: expected a member name after ','"
printf '{"traceEvents":[{"a":1},,]}' >tc4.json
refused 1 "two commas after the last event: refused" "tr-decode tc4.json" \
	"tr-decode: tc4.json: byte 24 (event 1): event is not a JSON object"
printf '{"traceEvents":[,]}' >tc5.json
refused 1 "a comma alone in traceEvents: refused" "tr-decode tc5.json" \
	"tr-decode: tc5.json: byte 16 (event 0): event is not a JSON object"

# ------------------------------------------------------------ line ends

printf '{\r\n"traceEvents":[\r\n{"ph":"X",\r\n"name":"a b"}\r\n]\r\n}\r\n' >crlf.json
printf '{"traceEvents":[{"ph":"X","name":"a b"}]}' >lf.json
expect 0 "CRLF: accepted as whitespace" "tr-decode crlf.json >crlf.stream" &&
	tr-decode lf.json >lf.stream &&
	sed '1s/"source":"[^"]*"//; $s/,"source_bytes".*//' crlf.stream >a.stream &&
	sed '1s/"source":"[^"]*"//; $s/,"source_bytes".*//' lf.stream >b.stream &&
	same "CRLF: the stream has no carriage return" b.stream a.stream
printf '{"traceEvents":[{"a":1},\f{"b":2}]}' >ff.json
refused 1 "form feed between events: not JSON whitespace" "tr-decode ff.json" \
	"tr-decode: ff.json: byte 24 (event 1): event is not a JSON object"
printf '{"traceEvents":[{"a":1},\302\240{"b":2}]}' >nbsp.json
refused 1 "no-break space between events: not JSON whitespace" "tr-decode nbsp.json" \
	"tr-decode: nbsp.json: byte 24 (event 1): event is not a JSON object"
sed 's/$/\r/' lf.stream >crlf-stream
refused 1 "a stream with CRLF line ends: refused by the stages (decision)" \
	"tr-select-anchors --num-layers 1 --anchor-offset 0 --anchor-regex x <crlf-stream" \
	"tr-select-anchors: stdin: line 2: not a JSON object on one line"
refused 1 "a stream with CRLF line ends: tr-encode refuses its head" "tr-encode <crlf-stream" \
	"tr-encode: stdin: line 2: not a JSON object on one line; output incomplete"

# ------------------------------------------------------- a trailing {} event

doc empty-ev.json "$(kern anc 10 ',"dur":1')" '{}'
tr-decode empty-ev.json >empty-ev.stream
out_line "trailing {} event: kept by decode" empty-ev.stream 3 '{}'
expect 0 "trailing {} event: select-anchors" "$SA '^anc' <empty-ev.stream >sa.out" &&
	out_line "trailing {} event: kept by select-anchors" sa.out 3 '{}'
expect 0 "trailing {} event: compact" "tr-compact <empty-ev.stream >compact.out" &&
	out_line "trailing {} event: kept by compact, in place" compact.out 3 '{}'
expect 0 "trailing {} event: encode" "tr-encode -o empty-ev.out.json <compact.out" &&
	has "trailing {} event: encoded" empty-ev.out.json '
{}
'

# ---------------------------------------------- string pids, pid -1, --pid

doc pids.json "$(kern anc 10 ',"dur":1' '"Spans"')" "$(kern anc 20 ',"dur":1' -1)" \
	'{"ph":"M","name":"process_name","pid":"Spans","args":{"name":"a string pid"}}'
tr-decode pids.json >pids.stream
out_line "string pid: kept by decode" pids.stream 2 "$(kern anc 10 ',"dur":1' '"Spans"')"
refused_first 1 "string pid and pid -1: select-anchors refuses to mix pids" "$SA '^anc' <pids.stream" \
	"tr-select-anchors: anchor matches fall in several pids:"
expect 0 "--pid Spans: select-anchors picks the string pid" "$SA '^anc' --pid Spans <pids.stream >sa.out" &&
	has "--pid Spans: the anchors record names pid \"Spans\"" sa.out '"pid":"Spans","device":0,'
expect 0 "--pid -1: select-anchors picks pid -1" "$SA '^anc' --pid -1 <pids.stream >sa.out" &&
	has "--pid -1: the anchor has pid -1" sa.out '"source_index":1,"pid":-1,'
expect 0 "--pid Spans: compact" "tr-compact --pid Spans <pids.stream >compact.out" &&
	out_line "--pid Spans: compact moves the string pid's kernel" compact.out 2 \
		'{"ph":"X","cat":"kernel","name":"anc","pid":"Spans","tid":2113929216,"ts":10,"dur":1,"args":{"device":0,"stream":7,"_compact_gpu_track":{"pid":"Spans","tid":7,"source_event_index":0,"had_args":true}}}' &&
	out_line "--pid Spans: compact leaves pid -1 alone" compact.out 3 "$(kern anc 20 ',"dur":1' -1)"
expect 0 "pid -1: compact moves it without --pid" "tr-compact <pids.stream >compact.out" &&
	has "pid -1: lane in pid -1" compact.out '"pid":-1,"tid":2113929216,"ts":20,'

# --------------------------------------------- 19-digit integers, 6 decimals

BIG='{"ph":"X","cat":"kernel","name":"anc","pid":1,"tid":7,"ts":1712195495519689.047123,"dur":1.000001,"args":{"device":0,"stream":7,"correlation":1234567890123456789,"min":-9223372036854775808,"n":12345678901234567890123}}'
printf '{"traceEvents":[%s],"baseTimeNanoseconds":1751410836000000000}' "$BIG" >big.json
tr-decode big.json >big.stream
out_line "19-digit integers, 6 decimals: kept by decode" big.stream 2 "$BIG"
expect 0 "6 decimals: select-anchors" "$SA '^anc' <big.stream >sa.out" &&
	has "6 decimals: exact floor to the ns, texts kept" sa.out \
		'"ts":1712195495519689.047123,"dur":1.000001,"ts_ns":1712195495519689047,"dur_ns":1000,'
expect 0 "19-digit integers, 6 decimals: compact" "tr-compact <big.stream >compact.out" &&
	has "19-digit integers, 6 decimals: compact changes only pid/tid" compact.out \
		'"pid":1,"tid":2113929216,"ts":1712195495519689.047123,"dur":1.000001,"args":{"device":0,"stream":7,"correlation":1234567890123456789,"min":-9223372036854775808,"n":12345678901234567890123,"_compact_gpu_track":'
expect 0 "19-digit integers: encode" "tr-encode -o big.out.json <big.stream" &&
	has "19-digit integers: baseTimeNanoseconds kept" big.out.json '"baseTimeNanoseconds":1751410836000000000}'
# the sub-nanosecond part is conservative: [1000.4, 1001.4] ns overlaps a
# kernel at 1001 ns (Perfetto rounds to [1000, 1001] and sees them touch)
doc subns.json "$(kern a 1.000400 ',"dur":0.001')" "$(kern b 1.001000 ',"dur":0.001')"
refused 1 "sub-ns digits: compact keeps overlapping kernels apart" "tr-decode subns.json | $COMPACT1" \
	"tr-compact: pid 1, device 0: GPU activity needs 2 lanes (peak concurrency) but --max-gpu-lanes is 1; it first exceeds 1 from 1.001 to 1.002 us (0.000001 to 0.000002 ms from the trace start); cut a time window around the part you need, or keep the original streams (no compaction)"
doc touch.json "$(kern a 1.000000 ',"dur":0.001')" "$(kern b 1.001000 ',"dur":0.001')"
expect 0 "sub-ns digits: kernels that only touch share a lane" "tr-decode touch.json | $COMPACT1 >/dev/null"

# --------------------------------------------------- escapes in member names

printf '{"trace\\u0045vents":[{"\\u0040tr":"head","a":1}]}' >escname.json
expect 0 "escaped traceEvents name: recognised" "tr-decode escname.json >escname.stream" &&
	out_line "escaped @tr name: an event, not a control record" escname.stream 2 '{"\u0040tr":"head","a":1}'
expect 0 "escaped @tr name: tr-encode" "tr-encode <escname.stream" &&
	has "escaped @tr name: encoded as an event" "$T/out" '{"\u0040tr":"head","a":1}'

# ------------------------------------------- tr-verify on a hostile source

printf '{\r\n"traceEvents":[%s,\r\n%s,\r\n%s,{}],"x":"\377"}' "$BIG" "$(kern "$BAD" 20 ',"dur":1' '"Spans"')" "$DUP" >mix.json
expect 0 "hostile mix: decode, compact, encode" "tr-decode mix.json | tr-compact | tr-encode -o mix.out.json" &&
	expect 0 "hostile mix: tr-verify" "tr-verify --source mix.json --output mix.out.json" &&
	[ "$(tail -n 1 "$T/out")" = verified ] && pass "hostile mix: verified" ||
	fail "hostile mix: verified" "$(tail -n 5 "$T/out")"

# ------------------------- tr-encode: lines that are not one JSON value
# Every line is checked before it is written (tr-encode(1)): a custom stage
# or a sed may have broken it.  Refused with the line, exit 1, nothing left.

H='{"@tr":"head","format":"object","source":"x","members":{%s}}'
TL='{"@tr":"tail","members":{%s},"events":1}'
# stream FILE HEAD-MEMBERS TAIL-MEMBERS LINE...: a stream around the lines.
stream() {
	f=$1 hm=$2 tm=$3
	shift 3
	{
		printf "$H\n" "$hm"
		for l in "$@"; do printf '%s\n' "$l"; done
		printf "$TL\n" "$tm"
	} >"$f"
}
# enc_refused NAME FILE MESSAGE: refused to a .gz output and to a plain one,
# with the message (and "; no output written") and nothing left behind.
enc_refused() {
	mkdir -p encout
	for o in x.json.gz x.json; do
		refused 1 "$1 ($o)" "tr-encode -o encout/$o <$2" "tr-encode: stdin: $3; no output written"
		absent "$1 ($o): no output" "encout/$o" "encout/$o.r.json"
		no_temp "$1 ($o): no temporary file" encout
	done
}
stream e1.stream '"a":' '' '{"ph":"i"}'
enc_refused 'head members {"a":}' e1.stream 'line 1: invalid JSON at byte 60: expected a value'
stream e2.stream '"a"' '' '{"ph":"i"}'
enc_refused 'head members {"a"}' e2.stream "line 1: invalid JSON at byte 59: expected ':' after a member name"
stream e3.stream '"a":1,"b"' '' '{"ph":"i"}'
enc_refused 'head members {"a":1,"b"}' e3.stream "line 1: invalid JSON at byte 65: expected ':' after a member name"
stream e4.stream '' '"z":' '{"ph":"i"}'
enc_refused 'tail members {"z":}' e4.stream 'line 3: invalid JSON at byte 29: expected a value'
stream e5.stream '' '' '{"a":}'
enc_refused 'event {"a":}' e5.stream 'line 2: invalid JSON at byte 5: expected a value'
stream e6.stream '' '' '{"a":1}{"b":2}'
enc_refused 'event {"a":1}{"b":2}' e6.stream 'line 2: invalid JSON at byte 7: more than one JSON value on the line'
stream e7.stream '' '' '{"a":1,"b":[1,2}'
enc_refused 'event {"a":1,"b":[1,2}' e7.stream 'line 2: invalid JSON at byte 15: mismatched closing bracket'
stream e8.stream '' '' '{"a":01}'
enc_refused 'event {"a":01}' e8.stream 'line 2: invalid JSON at byte 6: invalid number (leading zero)'
stream e9.stream '' '' '{"a":"\x"}'
enc_refused 'event {"a":"\x"}' e9.stream 'line 2: invalid JSON at byte 7: invalid escape in string'
stream e10.stream '' '' '{"a":NaN}'
enc_refused 'event {"a":NaN}' e10.stream 'line 2: invalid JSON at byte 5: expected a value'
stream e11.stream '' '' "$(printf '{"a":"\001"}')"
enc_refused 'event with a raw control byte' e11.stream \
	'line 2: invalid JSON at byte 6: control character in string (must be escaped)'
printf "$H\n"'{"a":"\000"}\n'"$TL\n" '' '' >e12.stream
enc_refused 'event with a NUL' e12.stream \
	'line 2: invalid JSON at byte 6: control character in string (must be escaped)'
printf "$H\n"'{"a":1}\000\n'"$TL\n" '' '' >e13.stream
enc_refused 'event with a NUL after it' e13.stream \
	'line 2: not a JSON object on one line'
stream e14.stream '' '' '{"@tr":"report","suffix":".r.json","body":{"a":}}'
enc_refused 'report body {"a":}' e14.stream 'line 2: invalid JSON at byte 47: expected a value'
stream e15.stream '' '' '{"@tr":"report","suffix":".r.json","body":{}}' \
	'{"@tr":"report","suffix":".r.json","member":"m","items":[1,}'
enc_refused 'report items [1,}' e15.stream 'line 3: invalid JSON at byte 59: expected a value'
stream e16.stream '"traceEvents":[]' '' '{"ph":"i"}'
enc_refused 'head members holding traceEvents' e16.stream \
	'line 1: head record: its members hold a traceEvents member (events come only as event lines)'
stream e17.stream '"trace\u0045vents":[]' '' '{"ph":"i"}'
enc_refused 'head members holding an escaped traceEvents' e17.stream \
	'line 1: head record: its members hold a traceEvents member (events come only as event lines)'
stream e18.stream '' '"traceEvents":{}' '{"ph":"i"}'
enc_refused 'tail members holding traceEvents' e18.stream \
	'line 3: tail record: its members hold a traceEvents member (events come only as event lines)'
stream e19.stream '' '' '{"@tr":"anchors","x":[}'
enc_refused 'a control record of another kind, broken' e19.stream \
	'line 2: invalid JSON at byte 22: expected a value'
printf '{"@tr":"head","format":"array","source":"x","members":{"a":1}}\n{"ph":"i"}\n{"@tr":"tail","members":{},"events":1}\n' >e20.stream
enc_refused 'array format with head members' e20.stream \
	'line 1: head record: an array-format trace has no top-level members'
# whitespace is JSON: accepted, and the members are written without it
stream ws.stream '"a": 1, "b" : [1, {"c":"}"}]' '"z" :{"y":"\\"} , "w":null' '{ "ph" : "i" }'
expect 0 "whitespace in records: accepted" "tr-encode -o encout/ws.json <ws.stream" &&
	printf '%s\n' '{"a":1,' '"b":[1,{"c":"}"}],' '"traceEvents":[' '{ "ph" : "i" }' '],' \
		'"z":{"y":"\\"},' '"w":null}' >ws.want &&
	same "whitespace in records: members without it, the event as it was" ws.want encout/ws.json

# ------------------------------------------ closed standard descriptors
# Every program checks at start that descriptors 0-2 are open (common/core/diag.c,
# the scripts in tr-common.sh): a closed one is exit 2, with a message when
# standard error is open.  Unchecked, the next file opened takes its place:
# tr-compact >&- wrote its stream into its own spill file and exited 0.
names_0="standard input" names_1="standard output" names_2="standard error"
for p in tr-decode tr-encode tr-gen tr-select-anchors tr-guides tr-compact tr-verify \
	tr-survey tr-serve tr-layer-track tr-compact-track; do
	for fd in 0 1 2; do
		case $fd in 0) r='<&-' ;; 1) r='>&-' ;; 2) r='2>&-' ;; esac
		eval "name=\$names_$fd"
		if [ $fd = 2 ]; then
			# --version would print; it must not get that far
			if expect 2 "$p $r: exit 2" "$p --version $r"; then
				if [ -s "$T/out" ]; then
					fail "$p $r: nothing on standard output" "$(head -c 200 "$T/out")"
				else
					pass "$p $r: nothing on standard output"
				fi
			fi
		else
			refused 2 "$p $r" "$p --version $r" \
				"$p: $name (descriptor $fd) is closed; refusing to run"
		fi
	done
done
# the cases of the issue, with real work to do
tr-decode lf.json >fd.stream 2>/dev/null || fail "closed descriptors: the stream"
mkdir -p spill
refused 2 "tr-compact >&-: refused, not written into its spill" \
	"TMPDIR=$T/spill tr-compact <fd.stream >&-" \
	"tr-compact: standard output (descriptor 1) is closed; refusing to run"
[ -z "$(ls -A spill)" ] && pass "tr-compact >&-: no spill left" ||
	fail "tr-compact >&-: no spill left" "$(ls -A spill)"
refused 2 "tr-compact <&-: a system error, not empty input" "tr-compact <&-" \
	"tr-compact: standard input (descriptor 0) is closed; refusing to run"
refused 2 "tr-decode <&-: the same status" "tr-decode <&-" \
	"tr-decode: standard input (descriptor 0) is closed; refusing to run"
refused 2 "tr-encode -o <&-: nothing written" "tr-encode -o encout/fd.json <&-" \
	"tr-encode: standard input (descriptor 0) is closed; refusing to run"
absent "tr-encode -o <&-: no output" encout/fd.json
no_temp "tr-encode -o <&-: no temporary file" encout
expect 2 "tr-encode -o 2>&-: exit 2" "tr-encode -o encout/fd.json <fd.stream 2>&-"
absent "tr-encode -o 2>&-: no output" encout/fd.json
# found by fuzz_encode: with a space it is not a control record, and without
# it tr-decode would refuse the event it reads back
stream e21.stream '' '' '{ "@tr":"report","suffix":".r.json","body":{}}'
enc_refused 'an event beginning { "@tr":' e21.stream \
	'line 2: an event whose first member is "@tr", which the stream reserves for control records (a control record must begin with the exact bytes {"@tr":)'

# ------------------------------------------ a kernel too long for its guide

# A selected kernel's name, pid, tid, device, ts and dur (JSON text) may
# take 256 KiB together: its guide's report row must fit in the 1 MiB
# tr-verify reads of a row.  tr-select-anchors refuses a longer one, so no
# stage writes what the run's own tr-verify would refuse; at the limit every
# stage accepts it and the run verifies.  Here 6 bytes are the pid 1, tid
# 7, device 0, ts 10 and dur 2, and 2 the name's quotes.
long_name() { # N: a name of N bytes
	awk -v n="$1" 'BEGIN { s = "k"; while (length(s) < n) s = s s; printf "%s", substr(s, 1, n) }'
}
doc longname.json "$(kern "$(long_name 262137)" 10 ',"dur":2')"
refused 1 "a name one byte over 256 KiB: select-anchors refuses it" \
	"tr-decode longname.json | $SA '^k' >/dev/null" \
	"tr-select-anchors: event 0: selected anchor kernel's name, pid, tid, device, ts and dur take 262145 bytes of JSON text, more than the 256 KiB a guide and its report row can carry"
mkdir -p longout
refused_first 1 "a name one byte over: tr-layer-track refuses at the selection" \
	"tr-layer-track --trace longname.json --output longout/o.json --anchor-regex '^k' --num-layers 1 --anchor-offset 0 --phase p --evidence e" \
	"tr-select-anchors: event 0: selected anchor kernel's name, pid, tid, device, ts and dur take 262145 bytes of JSON text, more than the 256 KiB a guide and its report row can carry"
[ -z "$(ls -A longout)" ] && pass "a name one byte over: nothing written" ||
	fail "a name one byte over: nothing written" "$(ls -A longout)"
doc longok.json "$(kern "$(long_name 262136)" 10 ',"dur":2')"
expect 0 "a name at 256 KiB: tr-layer-track writes and verifies it" \
	"tr-layer-track --trace longok.json --output longout/ok.json --anchor-regex '^k' --num-layers 1 --anchor-offset 0 --phase p --evidence e" &&
	has "a name at 256 KiB: verified" "$T/out" "verification: verified"
# a kernel of another name, not selected, may be as long as an event may
doc longother.json "$(kern "x$(long_name 300000)" 5 ',"dur":1')" "$(kern k 10 ',"dur":2')"
expect 0 "a long name not selected: accepted" "tr-decode longother.json | $SA '^k\$' >/dev/null"

# -------------------------------------------------- forged anchor records

# Every number of the anchors and anchor records is checked before a stage
# computes with it (tr-stream(5)): a forged record is refused, exit 1.
# Two passes of two, 15 us apart (gaps of 10 and 5 us inside them).
doc forge.json "$(kern rot 10 ',"dur":2')" "$(kern rot 20 ',"dur":2')" \
	"$(kern rot 35 ',"dur":2')" "$(kern rot 40 ',"dur":2')"
tr-decode forge.json | tr-select-anchors --num-layers 2 --passes 2 --anchor-offset 0 \
	--anchor-regex rot >forge.stream && grep -q '"@tr":"anchor",' forge.stream ||
	fail "forged: the stream to forge" "tr-select-anchors refused it"
forged() { # NAME SED MESSAGE
	sed "$2" forge.stream >forged.stream
	refused 1 "forged: $1" "tr-guides --phase p --evidence e <forged.stream >/dev/null" "tr-guides: $3"
}
forged "layer -1" 's/"i":1,"pass":0,"layer":1,/"i":1,"pass":0,"layer":-1,/' \
	"malformed anchor record: layer -1 out of range (at least 0)"
forged "pass -5" 's/"i":2,"pass":1,/"i":2,"pass":-5,/' \
	"malformed anchor record: pass -5 out of range (at least 0)"
forged "first_layer -3" 's/"first_layer":0/"first_layer":-3/' \
	"malformed anchors record: first_layer -3 out of range (0 to 1000000)"
forged "num_layers 2^62" 's/"num_layers":2/"num_layers":4611686018427387904/' \
	"malformed anchors record: num_layers 4611686018427387904 out of range (1 to 1000000)"
forged "passes 0" 's/"passes":2/"passes":0/' \
	"malformed anchors record: passes 0 out of range (1 to 1000000)"
forged "num_layers x passes" 's/"num_layers":2,"first_layer":0,"passes":2/"num_layers":1000000,"first_layer":0,"passes":11/' \
	"malformed anchors record: num_layers x passes is 11000000, more than 10000000"
forged "anchor_offset -1" 's/"anchor_offset":0/"anchor_offset":-1/' \
	"malformed anchors record: anchor_offset -1 out of range (0 to 2147483647)"
forged "layer past num_layers" 's/"i":3,"pass":1,"layer":1,/"i":3,"pass":1,"layer":5,/' \
	"anchor record 3: layer 5 out of range (num_layers 2)"
forged "pass past passes" 's/"i":3,"pass":1,/"i":3,"pass":2,/' \
	"anchor record 3: pass 2 out of range (passes 2)"
forged "i not pass x N + layer" 's/"i":3,"pass":1,"layer":1,/"i":3,"pass":0,"layer":1,/' \
	"anchor record 3: i 3 is not pass 0 x num_layers 2 + layer 1"
forged "anchor_index not offset + i" 's/"anchor_index":3,/"anchor_index":7,/' \
	"anchor record 3: anchor_index 7 is not anchor_offset 0 + i 3"
forged "records out of order" 's/"i":3,/"i":4,/' \
	"anchor records out of order (record 3 is number 4)"
forged "source_index -1" 's/"source_index":3,/"source_index":-1,/' \
	"malformed anchor record: source_index -1 out of range (at least 0)"
forged "negative dur_ns" 's/"ts":40,"dur":2,"ts_ns":40000,"dur_ns":2000/"ts":40,"dur":2,"ts_ns":40000,"dur_ns":-2000/' \
	"malformed anchor record: anchor dur_ns -2000 out of range (at least 0)"
forged "ts_ns not its ts" 's/"ts_ns":40000/"ts_ns":9223372036854775000/' \
	"malformed anchor record: anchor ts 40 is not ts_ns 9223372036854775000"
forged "ts before the trace origin" 's/"trace_origin_ns":10000/"trace_origin_ns":-9223372036854775807/' \
	"anchor record 0: ts_ns 10000 is not within 2^63 ns after trace_origin_ns -9223372036854775807"
forged "an anchor record first" '/^{"@tr":"anchors",/{h;d};/"i":0,/G' \
	"an anchor record before the anchors record"
# the forged cases of the probe: not one guide L18446744073709551615
sed 's/"first_layer":0/"first_layer":-3/; s/"i":1,"pass":0,"layer":1,/"i":1,"pass":0,"layer":-1,/' \
	forge.stream >forged.stream
run "tr-guides --phase p --evidence e <forged.stream"
[ "$RC" = 1 ] && ! grep -q '"name":"L1844' "$T/out" && pass "forged: no guide with a wrapped layer" ||
	fail "forged: no guide with a wrapped layer" "exit $RC"

# ------------------------------------------- times at the edge of int64 ns

# The stages compute with times within +/-2^62 ns (4611686018427387.902 us,
# tsnum.h): differences of two and doubled halves fit an int64.  An event
# beyond is refused where a time is computed with, never dropped in silence.
EDGE_MSG='lies beyond +/-4611686018427387.902 us (2^62 ns), the time range of trace-layers'
doc edge.json "$(kern a 9223372036854770 ',"dur":1')" "$(kern a 9223372036854774 ',"dur":0.5')"
tr-decode edge.json >edge.stream
refused 1 "ts near INT64_MAX ns: tr-window --from 0 refuses, drops nothing silently" \
	"tr-window --from 0 <edge.stream" "tr-window: event 0: ts 9223372036854770, dur 1 $EDGE_MSG"
refused 1 "ts near INT64_MAX ns: tr-survey refuses" "tr-survey --num-layers 1 <edge.stream" \
	"tr-survey: stdin: event 0: ts 9223372036854770, dur 1 $EDGE_MSG"
refused 1 "ts near INT64_MAX ns: tr-compact refuses" "$COMPACT1 <edge.stream" \
	"tr-compact: event 0: ts 9223372036854770 or dur 1 is out of range (beyond +/-4611686018427387.902 us, 2^62 ns, the time range of trace-layers)"
refused 1 "ts near INT64_MAX ns: tr-window --list-passes refuses too" \
	"tr-window --list-passes <edge.stream" "tr-window: event 0: ts 9223372036854770, dur 1 $EDGE_MSG"
doc edgeend.json "$(kern a 4611686018427387 ',"dur":0.903')"
refused 1 "an end one ns past the range: tr-window refuses" "tr-decode edgeend.json | tr-window --from 0" \
	"tr-window: event 0: ts 4611686018427387, dur 0.903 $EDGE_MSG"
printf '{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"ts":-9223372036854775,"args":{"name":"p"}},%s]}' \
	"$(kern a 10 ',"dur":1')" >edgemeta.json
refused 1 "metadata with a ts past the range: tr-window refuses" "tr-decode edgemeta.json | tr-window --from 0" \
	"tr-window: event 0: ts -9223372036854775 $EDGE_MSG"
# the widest trace the range allows: from -4611686018427387 us to
# 4611686018427387.902 us, every stage computes exactly
doc wide.json "$(kern a -4611686018427387 ',"dur":1')" "$(kern a 4611686018427380 ',"dur":0.5')" \
	"$(kern b 4611686018427387 ',"dur":0.902')"
tr-decode wide.json >wide.stream
expect 0 "the widest trace: tr-window --from 0 keeps every event" "tr-window --from 0 <wide.stream >wide.out" &&
	{ events wide.out >got.events; events wide.stream >want.events
	  same "the widest trace: --from 0, the events byte for byte" want.events got.events; }
expect 0 "the widest trace: tr-survey" "tr-survey --num-layers 1 <wide.stream" &&
	has "the widest trace: tr-survey's spans are positive" "$T/out" \
		'passes (ms from the trace start, bytes of the events in each): 0.000000-0.001000 (115 bytes), 9223372036854.767000-9223372036854.767500 (116 bytes)'
expect 0 "the widest trace: tr-compact" "$COMPACT1 <wide.stream >/dev/null"
expect 0 "the widest trace: tr-select-anchors and tr-guides" \
	"$SA '^a\$' --passes 2 <wide.stream | tr-guides --phase p --evidence e >wide.guides" &&
	has "the widest trace: the guide of pass 1 from the trace start" wide.guides \
		'"start_relative_ms":9223372036854.767000'
