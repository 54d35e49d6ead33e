# t-decode: tr-decode end to end: round trips through tr-encode on every real
# trace and on fixtures, the tail's size, digest and event count, rejected
# input (exit 1, one message, nothing written downstream) and faults.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
VERSION=$(cat "$ROOT/VERSION")

# stderr_like NAME ERE: stderr of the last run is one line matching ERE.
stderr_like() {
	if [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Eqx -- "$2" "$T/err"; then
		pass "$1"
	else
		fail "$1" "stderr: $(head -c 400 "$T/err")" "wanted (ERE): $2"
	fi
}

# tail_field STREAM NAME: a member of the tail record (number or hex string;
# the tail's own members come after its "members" object).
tail_field() {
	tail -n 1 "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([0-9a-f]*\)\"\{0,1\}[,}].*/\1/p"
}

# check_tail NAME STREAM FILE: source_bytes and source_sha256 describe FILE as
# stored, and "events" counts the event lines.
check_tail() {
	size=$(wc -c <"$3" | tr -d ' ')
	sha=$(sha256sum <"$3" | cut -d' ' -f1)
	lines=$(($(wc -l <"$2") - 2))
	got_size=$(tail_field "$2" source_bytes)
	got_sha=$(tail_field "$2" source_sha256)
	got_events=$(tail_field "$2" events)
	if [ "$got_size" = "$size" ] && [ "$got_sha" = "$sha" ] && [ "$got_events" = "$lines" ]; then
		pass "$1"
	else
		fail "$1" "tail: $(tail -n 1 "$2" | tail -c 200)" \
			"wanted source_bytes $size, source_sha256 $sha, events $lines"
	fi
}

# strip_source STREAM: the stream with what depends on the source file (its
# name in the head, its size and digest in the tail) blanked.
strip_source() {
	sed -e '1s/"source":"[^"]*"/"source":""/' \
		-e '$s/,"source_bytes":[0-9]*,"source_sha256":"[0-9a-f]*"}$/}/' "$1"
}

# bad NAME FILE MESSAGE [OPTIONS]: tr-decode refuses FILE with exit 1 and the
# one line "tr-decode: FILE: MESSAGE" (MESSAGE an ERE when it starts with ^),
# and tr-encode downstream writes nothing and leaves no temporary file.
bad() {
	name=$1 file=$2 msg=$3 opts=${4:-}
	if expect 1 "$name: exit 1" "tr-decode $opts '$file' >/dev/null"; then
		case $msg in
		^*) stderr_like "$name: message" "tr-decode: $file: ${msg#^}" ;;
		*) stderr_is "$name: message" "tr-decode: $file: $msg" ;;
		esac
	fi
	rm -f out.json
	expect 1 "$name: tr-encode downstream exit 1" \
		"tr-decode $opts '$file' 2>/dev/null | tr-encode -o out.json" "no output written"
	absent "$name: no output downstream" out.json
	no_temp "$name: no temporary file" "$T"
}

# ---------------------------------------------------------------- fixtures

# Whitespace everywhere, number text, escapes and spaces inside strings,
# members before and after traceEvents.
cat >pretty.json <<'EOF'
{
  "schemaVersion": 1,
  "deviceProperties": [ {"id": 0, "name": "GPU \"0\""} ],
  "traceEvents": [
    { "ph": "X", "cat": "cpu_op", "name": "aten::mm  x\ty\\n", "pid": 1, "tid": 1,
      "ts": 1712195495519689.047, "dur": 2.50, "args": {"v": [1, -0e0, 1E+2, true, null, {}]} },
    {"ph":"M","name":"process_name","pid":1,"args":{"name":"\u00e9 caf\u00e9"}}	,
    {}
  ] ,
  "displayTimeUnit" : "ms",
  "baseTimeNanoseconds": 1751410836000000000
}
EOF
expect 0 "fixture: decode" "tr-decode pretty.json >pretty.stream"
cat >want.stream <<EOF
{"@tr":"head","format":"object","source":"pretty.json","tool":"tr-decode","version":"$VERSION","members":{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"GPU \"0\""}]}}
{"ph":"X","cat":"cpu_op","name":"aten::mm  x\ty\\\\n","pid":1,"tid":1,"ts":1712195495519689.047,"dur":2.50,"args":{"v":[1,-0e0,1E+2,true,null,{}]}}
{"ph":"M","name":"process_name","pid":1,"args":{"name":"\\u00e9 caf\\u00e9"}}
{}
{"@tr":"tail","members":{"displayTimeUnit":"ms","baseTimeNanoseconds":1751410836000000000},"events":3}
EOF
strip_source pretty.stream | sed '1s/"source":""/"source":"pretty.json"/' >got.stream
same "fixture: stream is whitespace-free, all else byte for byte" want.stream got.stream
check_tail "fixture: tail size, digest, events" pretty.stream pretty.json
expect 0 "fixture: encode" "tr-encode -o pretty.out.json <pretty.stream"
json_equal "fixture: round trip" pretty.json pretty.out.json
expect 0 "fixture: decode stdin" "tr-decode - <pretty.json >stdin.stream"
if grep -q '^{"@tr":"head",.*"source":"-"' stdin.stream; then
	pass "fixture: stdin source is -"
else
	fail "fixture: stdin source is -" "$(head -n 1 stdin.stream)"
fi
check_tail "fixture: stdin tail" stdin.stream pretty.json

gzip -c pretty.json >pretty.json.gz
expect 0 "fixture gz: decode" "tr-decode pretty.json.gz >gz.stream"
check_tail "fixture gz: tail describes the stored (compressed) file" gz.stream pretty.json.gz
strip_source pretty.stream >a.stream
strip_source gz.stream >b.stream
same "fixture gz: same stream as plain" a.stream b.stream
expect 0 "fixture gz stdin: decode" "tr-decode - <pretty.json.gz >gz.stream"
strip_source gz.stream >b.stream
same "fixture gz stdin: same stream as plain" a.stream b.stream

# two gzip members, split inside an event; then a member of an empty file
head -c 150 pretty.json | gzip -c >two.json.gz
tail -c +151 pretty.json | gzip -c >>two.json.gz
: | gzip -c >>two.json.gz
expect 0 "two gzip members: decode" "tr-decode two.json.gz >two.stream"
strip_source two.stream >b.stream
same "two gzip members: same stream as plain" a.stream b.stream
check_tail "two gzip members: tail" two.stream two.json.gz

# traceEvents first, in the middle, last: member order kept
printf '{"traceEvents":[{"a":1}],"x":[1],"y":"z"}' >first.json
printf '{"x":[1],"traceEvents":[{"a":1}],"y":"z"}' >middle.json
printf '{"x":[1],"y":"z","traceEvents":[{"a":1}]}' >last.json
for f in first middle last; do
	expect 0 "traceEvents $f: decode" "tr-decode $f.json >$f.stream" &&
		expect 0 "traceEvents $f: encode" "tr-encode -o $f.out.json <$f.stream" &&
		json_equal "traceEvents $f: round trip keeps member order" $f.json $f.out.json
done
grep -q '"members":{}}$' first.stream && tail -n 1 first.stream | grep -q '^{"@tr":"tail","members":{"x":\[1\],"y":"z"},' &&
	head -n 1 middle.stream | grep -q '"members":{"x":\[1\]}}$' &&
	tail -n 1 middle.stream | grep -q '^{"@tr":"tail","members":{"y":"z"},' &&
	head -n 1 last.stream | grep -q '"members":{"x":\[1\],"y":"z"}}$' &&
	tail -n 1 last.stream | grep -q '^{"@tr":"tail","members":{},' &&
	pass "traceEvents first/middle/last: head and tail members" ||
	fail "traceEvents first/middle/last: head and tail members" "$(cat first.stream middle.stream last.stream)"

# invalid UTF-8 inside strings passes byte for byte
printf '{"traceEvents":[{"name":"a\377\376b\300\257","args":{"\355\240\200":"\303"}}]}' >utf.json
expect 0 "invalid UTF-8: decode" "tr-decode utf.json >utf.stream"
printf '{"name":"a\377\376b\300\257","args":{"\355\240\200":"\303"}}\n' >want.line
sed -n 2p utf.stream >got.line
same "invalid UTF-8: event bytes kept" want.line got.line
expect 0 "invalid UTF-8: encode" "tr-encode -o utf.out.json <utf.stream"
json_equal "invalid UTF-8: round trip (bytes compared)" utf.json utf.out.json

# array format, with and without the closing ]
printf '[{"ph":"X","ts":1},\n{"ph":"X","ts":2},\n' >open.json
printf '[{"ph":"X","ts":1},{"ph":"X","ts":2}]' >closed.json
expect 0 "array without ]: decode" "tr-decode open.json >open.stream"
if head -n 1 open.stream | grep -q '^{"@tr":"head","format":"array",' &&
	[ "$(tail_field open.stream events)" = 2 ]; then
	pass "array without ]: array format, 2 events"
else
	fail "array without ]: array format, 2 events" "$(cat open.stream)"
fi
expect 0 "array without ]: encode" "tr-encode -o open.out.json <open.stream"
json_equal "array without ]: encodes the closed array" closed.json open.out.json
expect 0 "array: decode" "tr-decode closed.json | tr-encode -o closed.out.json"
json_equal "array: round trip" closed.json closed.out.json
printf '{"traceEvents":[]}' >none.json
expect 0 "no events: round trip" "tr-decode none.json | tr-encode -o none.out.json"
json_equal "no events: equal" none.json none.out.json

# --------------------------------------------------------------- bad input

: >empty.json
printf 'hello' >notjson.json
printf '123' >number.json
printf '"x"' >string.json
printf '{"a":1}' >noevents.json
printf '{"traceEvents":{}}' >evobject.json
printf '{"traceEvents":[{"a":1},2]}' >notobject.json
printf '{"traceEvents":[{"a":1}]} x' >garbage.json
printf '{"traceEvents":[{"a":1},{"b":[1,' >inside.json
printf '{"traceEvents":[{"a":1},\n' >between.json
printf '{"traceEvents":[{"a":1},{"@tr":"head"}]}' >attr.json
printf '{"traceEvents":[{"a":1},{"b":"%s"}]}' "$(printf '%02000d' 0)" >bigevent.json
printf '\357\273\277{"traceEvents":[]}' >bom.json
printf '{"traceEvents":[],"traceEvents":[]}' >twice.json
printf '{"traceEvents":[{"a":1},{"b":x}]}' >syntax.json
printf '{"traceEvents":[{"a":1} {"b":2}]}' >nocomma.json

N="not a trace: the JSON document must be an object with traceEvents or an array of events"
bad "empty file" empty.json "byte 0: empty input (no JSON document)"
bad "not JSON" notjson.json "byte 0: $N"
bad "top-level number" number.json "byte 0: $N"
bad "top-level string" string.json "byte 0: $N"
bad "no traceEvents" noevents.json "byte 7: the top-level object has no traceEvents member"
bad "traceEvents not an array" evobject.json "byte 15: traceEvents is not an array"
bad "event not an object" notobject.json "byte 24 (event 1): event is not a JSON object"
bad "trailing garbage" garbage.json "byte 26: trailing garbage after the JSON document"
bad "truncated inside an event" inside.json \
	"byte 32 (event 1): unexpected end of input (truncated JSON)"
bad "truncated between events" between.json \
	"byte 25 (event 1): unexpected end of input inside traceEvents (truncated JSON)"
bad "syntax error inside an event" syntax.json "byte 29 (event 1): expected a value"
bad "no comma between events" nocomma.json "byte 24 (after event 0): expected ',' or ']' after an event"
bad "event starting with @tr" attr.json \
	'^byte 24 \(event 1\): its first member is "@tr", which the stream reserves for control records'
bad "event over --max-event-bytes" bigevent.json \
	'^byte [0-9]+ \(event 1\): larger than --max-event-bytes' "--max-event-bytes 1K"
expect 0 "event just under --max-event-bytes" "tr-decode --max-event-bytes 2020 bigevent.json >/dev/null"
# --max-member-bytes: the members on each side of traceEvents together, as
# the stream holds them ("name":value,... without whitespace)
printf '{"a":"xxxxxxxx", "b":1,"traceEvents":[{"ph":"i"}],"c":"yyyyyyyyyyyyyyyyyyyy"}' >members.json
bad "members before traceEvents over --max-member-bytes" members.json \
	"byte 21 (top-level member): the top-level members before traceEvents are larger than --max-member-bytes (19 bytes in all)" \
	"--max-member-bytes 19"
bad "members after traceEvents over --max-member-bytes" members.json \
	"byte 75 (top-level member): the top-level members after traceEvents are larger than --max-member-bytes (25 bytes in all)" \
	"--max-member-bytes 25"
expect 0 "members exactly at --max-member-bytes" \
	"tr-decode --max-member-bytes 26 members.json >members.stream" &&
	expect 0 "members at the limit: encode" "tr-encode -o members.out.json <members.stream" &&
	json_equal "members at the limit: round trip" members.json members.out.json
rm -f members.out.json
# each member alone is still under --max-event-bytes
bad "one member over --max-event-bytes, under --max-member-bytes" members.json \
	"byte 68 (top-level member): larger than --max-event-bytes" "--max-event-bytes 14"
bad "byte order mark" bom.json '^byte 0: UTF-8 byte order mark before the JSON document.*'
bad "two traceEvents" twice.json "byte 32: a second traceEvents member"

expect 1 "bad input on stdin: exit 1" "tr-decode - <empty.json" &&
	stderr_is "bad input on stdin: message" "tr-decode: stdin: byte 0: empty input (no JSON document)"

# gzip damage
awk 'BEGIN { printf "{\"traceEvents\":["
	for (i = 0; i < 2000; i++) printf "%s{\"ph\":\"X\",\"name\":\"op%d\",\"ts\":%d}", i ? ",\n" : "", i, i * 7
	print "]}" }' >medium.json
gzip -c medium.json >medium.json.gz
gz_size=$(wc -c <medium.json.gz | tr -d ' ')
head -c $((gz_size / 2)) medium.json.gz >cut.json.gz
bad "truncated gzip" cut.json.gz \
	"byte $((gz_size / 2)) of the gzip file: truncated gzip data (unexpected end of file)"
head -c $((gz_size - 3)) medium.json.gz >cut3.json.gz
bad "gzip without its trailer" cut3.json.gz \
	"byte $((gz_size - 3)) of the gzip file: truncated gzip data (unexpected end of file)"
python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[-6] ^= 0x55  # inside the CRC-32 of the trailer
open(sys.argv[2], "wb").write(b)' medium.json.gz crc.json.gz
bad "gzip CRC mismatch" crc.json.gz '^byte [0-9]+ of the gzip file: incorrect data check'
{ cat medium.json.gz; printf 'junk'; } >junk.json.gz
bad "garbage after gzip data" junk.json.gz \
	"byte $gz_size of the gzip file: trailing garbage after the gzip data"
{ cat medium.json.gz; printf 'j'; } >junk1.json.gz
bad "one byte after gzip data" junk1.json.gz \
	"byte $gz_size of the gzip file: trailing garbage after the gzip data"
{ cat medium.json.gz; printf '\0\0\0\0\0\0\0\0'; } >zeros.json.gz
bad "zero padding after gzip data" zeros.json.gz \
	"byte $gz_size of the gzip file: trailing garbage after the gzip data"
expect 1 "truncated gzip on stdin" "tr-decode - <cut.json.gz >/dev/null" &&
	stderr_is "truncated gzip on stdin: message" \
		"tr-decode: stdin: byte $((gz_size / 2)) of the gzip file: truncated gzip data (unexpected end of file)"
head -c 999 medium.json | gzip -c >short.json.gz
bad "gzip of truncated JSON" short.json.gz '^byte 999 \(event [0-9]+\): unexpected end of input.*'

expect 0 "gzip: decode" "tr-decode medium.json.gz >medium.stream"
check_tail "gzip: tail" medium.stream medium.json.gz
expect 0 "gzip: encode .gz" "tr-encode -o medium.out.json.gz <medium.stream"
json_equal "gzip: round trip through .json.gz" medium.json medium.out.json.gz

expect 2 "nonexistent file" "tr-decode nosuch.json" \
	"tr-decode: nosuch.json: No such file or directory" &&
	stderr_is "nonexistent file: one line" "tr-decode: nosuch.json: No such file or directory"
mkdir -p adir
expect 2 "directory" "tr-decode adir" "tr-decode: adir: Is a directory"

# ------------------------------------------------------------------ faults

awk 'BEGIN { printf "{\"traceEvents\":["
	for (i = 0; i < 150000; i++) printf "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"ts\":%d,\"dur\":3}", i ? "," : "", i, i * 7
	print "]}" }' >big.json
run "{ tr-decode big.json 2>dec.err; echo \$? >dec.rc; } | head -c 100 >/dev/null"
if [ ! -s dec.err ] && [ "$(cat dec.rc)" = 141 ]; then
	pass "closed pipe: quiet, killed by SIGPIPE"
else
	fail "closed pipe: quiet, killed by SIGPIPE" "status $(cat dec.rc)" "stderr: $(head -c 300 dec.err)"
fi
expect 2 "/dev/full" "tr-decode pretty.json >/dev/full" \
	"tr-decode: standard output: No space left on device" &&
	stderr_is "/dev/full: one line" "tr-decode: standard output: No space left on device"
expect 0 "--help" "tr-decode --help" && grep -q '^usage: tr-decode' "$T/out" && [ ! -s "$T/err" ] &&
	pass "--help: usage on stdout" || fail "--help: usage on stdout" "$(head -c 200 "$T/out")"
expect 2 "bad option" "tr-decode --bogus pretty.json" "usage: tr-decode" &&
	[ ! -s "$T/out" ] && pass "bad option: nothing on stdout" || fail "bad option: nothing on stdout"
expect 2 "two files" "tr-decode pretty.json pretty.json" "usage: tr-decode"
expect 2 "bad --max-event-bytes" "tr-decode --max-event-bytes 0 pretty.json" \
	"tr-decode: --max-event-bytes: invalid value '0'"
expect 2 "bad --max-member-bytes" "tr-decode --max-member-bytes 2G pretty.json" \
	"tr-decode: --max-member-bytes: invalid value '2G' (allowed 1 to 1G)"
expect 2 "--max-event-bytes without a value" "tr-decode --max-event-bytes" "usage: tr-decode"
expect 0 "--version" "tr-decode --version" &&
	printf 'tr-decode %s\n%s\n' "$VERSION" "$(grep -E '^gzip: (ISA-L|zlib) [0-9.]+$' "$T/out")" \
		>want.version &&
	same "--version: text (the program, then the gzip backend)" want.version "$T/out"
[ "$VERSION" = 0.1.0 ] && pass "version is 0.1.0" || fail "version is 0.1.0" "VERSION: $VERSION"

# ------------------------------------------------------------ real traces

# --shape dense (make bench's trace, issue 15): its shape read back by an
# independent oracle (python json) on a small size; later options override.
shape_is() {
	if python3 "$ROOT/tests/e2e/shape_check.py" "$2" >shape.out 2>&1 &&
		printf '%s\n' "$3" | cmp -s - shape.out; then
		pass "$1"
	else
		fail "$1" "got: $(tr '\n' ';' <shape.out)" "wanted: $(printf '%s' "$3" | tr '\n' ';')"
	fi
}
expect 0 "tr-gen --shape dense --target-bytes 2M" "tr-gen --shape dense --target-bytes 2M -o dense.json" &&
	shape_is "tr-gen --shape dense: 300 streams, 40 layers, 2 flow events per activity, 2 kernels beside each attention, one event a line" \
		dense.json "streams 300
layers 40
passes 4
flows/kernel 2
unpaired 0
beside/attention 2
one event/line 1"
size=$(wc -c <dense.json 2>/dev/null || echo 0)
if [ "$size" -ge 2097152 ] && [ "$size" -lt 3145728 ]; then
	pass "tr-gen --shape dense --target-bytes 2M: at least 2 MiB, less than one pass more"
else
	fail "tr-gen --shape dense --target-bytes 2M: at least 2 MiB, less than one pass more" "$size bytes"
fi
expect 0 "tr-gen --shape dense, then options that override it" \
	"tr-gen --shape dense --layers 6 --streams 5 --passes 2 --target-bytes 1K -o dense6.json" &&
	shape_is "tr-gen --shape dense --layers 6 --streams 5: the later options win" dense6.json "streams 5
layers 6
passes 2
flows/kernel 2
unpaired 0
beside/attention 2
one event/line 1"
expect 2 "tr-gen: an unknown --shape" "tr-gen --shape sparse -o never.json" \
	"tr-gen: --shape: invalid value 'sparse' (allowed dense, moe, kineto)"
absent "tr-gen: an unknown --shape writes nothing" never.json
rm -f dense.json dense6.json shape.out

if [ ! -d "$TRACES" ]; then
	skip "real traces" "$TRACES is absent: no round trips on real traces"
else
	# The programs are fast; the python oracle is the slow part.  Keep each
	# round trip and run the oracles at the end, two at a time, largest first.
	: >oracles
	i=0
	for src in "$TRACES"/*.json "$TRACES"/*.json.gz; do
		[ -f "$src" ] || continue
		i=$((i + 1))
		n=$(basename "$src")
		expect 0 "$n: decode" "tr-decode '$src' >s1" || continue
		check_tail "$n: tail: size, sha256, events" s1 "$src"
		expect 0 "$n: encode" "tr-encode -o rt.$i.json <s1" || continue
		printf '%s\n' "$n" >oracle.$i.name
		printf '%s\n' "$src" >oracle.$i.src
		tail_field s1 events >oracle.$i.want
		echo "$(wc -c <rt.$i.json) $i" >>oracles
		expect 0 "$n: encode .json.gz" "tr-encode -o rt.json.gz --level 1 <s1" &&
			gzip -dc rt.json.gz >rt.gz.json && same "$n: .json.gz holds the same trace" rt.$i.json rt.gz.json
		expect 0 "$n: decode stdin" "tr-decode - <'$src' | tr-encode -o stdin.json" &&
			same "$n: stdin gives the same trace" rt.$i.json stdin.json
		# decode, encode, decode on every third trace (the first included)
		[ $((i % 3)) = 1 ] &&
			expect 0 "$n: decode the round trip" "tr-decode rt.$i.json >s2" &&
				strip_source s1 >a.stream && strip_source s2 >b.stream &&
				same "$n: decode, encode, decode gives the same stream" a.stream b.stream &&
				expect 0 "$n: encode again" "tr-encode -o rt2.json <s2" &&
				same "$n: encode is a fixed point" rt.$i.json rt2.json
		rm -f s1 s2 a.stream b.stream rt.json.gz rt.gz.json rt2.json stdin.json
	done
	# two concatenated gzip members, split in the middle of the JSON, for
	# the two smallest traces
	for n in $(cd "$TRACES" && ls -Sr -- *.json *.json.gz 2>/dev/null | head -n 2); do
		gzip -dcf "$TRACES/$n" >whole.json
		half=$(($(wc -c <whole.json) / 2))
		head -c $half whole.json | gzip -c >two.json.gz
		tail -c +$((half + 1)) whole.json | gzip -c >>two.json.gz
		expect 0 "$n: two gzip members: decode" "tr-decode two.json.gz >s1" &&
			check_tail "$n: two gzip members: tail" s1 two.json.gz &&
			expect 0 "$n: two gzip members: encode" "tr-encode -o two.out.json <s1" &&
			expect 0 "$n: plain: round trip" "tr-decode whole.json | tr-encode -o whole.out.json" &&
			same "$n: two gzip members: same trace as plain" whole.out.json two.out.json
		rm -f whole.json two.json.gz s1 two.out.json whole.out.json
	done
	sort -rn oracles | cut -d' ' -f2 | xargs -P 2 -n 1 sh -c '
		"$0" "$1" equal "$(cat oracle.$2.src)" rt.$2.json >oracle.$2.out 2>&1
		echo $? >oracle.$2.rc; rm -f rt.$2.json' \
		"${PYTHON:-python3}" "$ROOT/tests/e2e/trace_check.py"
	for id in $(cut -d' ' -f2 oracles); do
		n=$(cat oracle.$id.name)
		if [ "$(cat oracle.$id.rc 2>/dev/null)" = 0 ] &&
			[ "$(cat oracle.$id.out)" = "events $(cat oracle.$id.want)" ]; then
			pass "$n: round trip equal as JSON, events = len(traceEvents)"
		else
			fail "$n: round trip equal as JSON, events = len(traceEvents)" \
				"$(head -c 400 oracle.$id.out 2>/dev/null)" "tail events: $(cat oracle.$id.want)"
		fi
	done
fi
