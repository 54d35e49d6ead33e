# t-pftrace: tr-encode --format perfetto (a Perfetto protobuf trace) end to
# end: protoc decodes every output against tests/proto/perfetto_subset.proto
# (Perfetto's field numbers), an independent Python wire-format reader
# (pftrace_check.py) compares it event by event with the source read by
# Python's json, and tr-verify proves it or names the first difference.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
PROTO_DIR=$ROOT/tests/proto
PROTO=$PROTO_DIR/perfetto_subset.proto

# decoded NAME FILE: protoc reads FILE as a perfetto.protos.Trace (text in FILE.txt)
decoded() {
	if ! command -v protoc >/dev/null 2>&1; then
		skip "$1" "protoc is not installed (Debian protobuf-compiler)"
		return 1
	fi
	case $2 in
	*.gz) gzip -dc "$2" ;;
	*) cat "$2" ;;
	esac | protoc --decode=perfetto.protos.Trace -I "$PROTO_DIR" "$PROTO" >"$2.txt" 2>"$T/protoc.err"
	if [ $? -eq 0 ] && [ -s "$2.txt" ]; then
		pass "$1"
	else
		fail "$1" "protoc: $(head -c 300 "$T/protoc.err")"
		return 1
	fi
}

# oracle NAME SRC OUT: the Python reader finds OUT equal to SRC
oracle() {
	if python3 "$ROOT/tests/e2e/pftrace_check.py" "$2" "$3" >"$T/oracle.out" 2>"$T/oracle"; then
		pass "$1"
	else
		fail "$1" "$(head -c 600 "$T/oracle")"
	fi
}

cat >fx.json <<'EOF2'
{"traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "python3"}},
  {"ph": "M", "name": "process_sort_index", "pid": 7, "tid": 0, "args": {"sort_index": 3}},
  {"ph": "M", "name": "thread_name", "pid": 7, "tid": 7, "args": {"name": "main"}},
  {"ph": "M", "name": "thread_sort_index", "pid": 7, "tid": 7, "args": {"sort_index": -2}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 10.500, "dur": 2,
   "args": {"External id": 1, "flag": true, "none": null, "ratio": 0.25, "big": 18446744073709551615,
            "dims": [[8, 16], []], "meta": {"k": "v", "e": {}}, "text": "caf\u00e9 \"q\""}},
  {"ph": "s", "id": 5, "pid": 7, "tid": 7, "ts": 10.500, "cat": "ac2g", "name": "ac2g"},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 3, "ts": "11.250", "dur": "1.000",
   "args": {"correlation": 5}},
  {"ph": "f", "id": 5, "pid": 0, "tid": 3, "ts": 11.250, "cat": "ac2g", "name": "ac2g", "bp": "e"},
  {"ph": "B", "cat": "user", "name": "step", "pid": 7, "tid": 8, "ts": 12},
  {"ph": "E", "pid": 7, "tid": 8, "ts": 14.001},
  {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 20},
  {"ph": "i", "s": "p", "name": "mark", "pid": 7, "tid": 7, "ts": 13},
  {"ph": "X", "cat": "Trace", "name": "span", "pid": "Spans", "tid": "Traces", "ts": 9, "dur": 12},
  {"ph": "C", "name": "mem", "pid": 7, "ts": 15, "args": {"bytes": 1024, "frac": 0.5, "label": "x"}},
  {"ph": "b", "cat": "async", "name": "skipped", "pid": 7, "id": 1, "ts": 16}
]}
EOF2
tr-decode fx.json >fx.stream || fail "fixture stream" "tr-decode fx.json failed"

expect 0 "encode: by name" "tr-encode -o fx.pftrace <fx.stream" &&
	decoded "encode: protoc decodes it" fx.pftrace
# a few packets exactly as protoc prints them
cat >want.root <<'EOF2'
packet {
  trusted_packet_sequence_id: 1
  track_descriptor {
    uuid: 0
    process_ordering: PROCESS_ORDERING_EXPLICIT
    thread_ordering: THREAD_ORDERING_EXPLICIT
  }
}
EOF2
head -8 fx.pftrace.txt >got.root
same "protoc: the root track orders processes and threads explicitly" want.root got.root
for want in 'process_name: "python3"' 'thread_name: "main"' 'sibling_order_rank: 3' \
	'sibling_order_rank: -2' 'name: "aten::mm"' 'name: "gemm"' 'type: TYPE_SLICE_BEGIN' \
	'type: TYPE_SLICE_END' 'type: TYPE_INSTANT' 'type: TYPE_COUNTER' 'counter_value: 1024' \
	'double_counter_value: 0.5' 'name: "mem bytes"' 'name: "mem frac"' 'uint_value: 18446744073709551615' \
	'legacy_json_value: "null"' 'legacy_json_value: "{}"' 'legacy_json_value: "[]"' \
	'bool_value: true' 'double_value: 0.25' 'timestamp_clock_id: 64' 'is_incremental: true' \
	'sequence_flags: 3' 'name: "Global instants"' 'process_name: "Spans"' \
	'thread_name: "Traces"' 'pid: 1879048192' 'str: "caf\303\251 \"q\""'; do
	if grep -qxF "$want" fx.pftrace.txt ||
		grep -q "^ *$(printf '%s' "$want" | sed 's/[][\\.*^$]/\\&/g')\$" fx.pftrace.txt; then
		pass "protoc: $want"
	else
		fail "protoc: $want" "not in the decoded text"
	fi
done
# the clock: BOOTTIME and the incremental clock at the earliest ts (the
# span's 9 us), then aten::mm at 10.5 us, 1500 ns later, its end 2000 ns on
cat >want.clock <<'EOF2'
  clock_snapshot {
    clocks {
      clock_id: 6
      timestamp: 9000
    }
    clocks {
      clock_id: 64
      timestamp: 9000
      is_incremental: true
    }
  }
  trusted_packet_sequence_id: 1
}
packet {
  timestamp: 1500
EOF2
grep -A14 '^  clock_snapshot {' fx.pftrace.txt >got.clock
same "protoc: the clock snapshot, then deltas" want.clock got.clock
if [ "$(grep -c '^  clock_snapshot {' fx.pftrace.txt)" = 1 ] &&
	awk '/^  timestamp: / { n++ } END { exit (n == 12 ? 0 : 1) }' fx.pftrace.txt &&
	[ "$(grep '^  timestamp: ' fx.pftrace.txt | sed -n 1,2p | tr '\n' ' ')" = '  timestamp: 1500   timestamp: 2000 ' ]; then
	pass "protoc: one snapshot, every event packet a delta"
else
	fail "protoc: one snapshot, every event packet a delta" "$(grep -c '^  timestamp: ' fx.pftrace.txt) timestamps"
fi
# the flow: started on the packet that begins the kernel launch, ended on
# the one that begins the kernel (each packet interns its slice's name)
packet_with() {
	awk -v want="$1" '/^packet \{/ { if (p ~ want) print p; p = "" } { p = p $0 "\n" }
		END { if (p ~ want) print p }' fx.pftrace.txt
}
if [ "$(grep -c '^    flow_ids: ' fx.pftrace.txt)" = 1 ] &&
	[ "$(grep -c '^    terminating_flow_ids: ' fx.pftrace.txt)" = 1 ] &&
	[ "$(sed -n 's/^    flow_ids: //p' fx.pftrace.txt)" = \
	  "$(sed -n 's/^    terminating_flow_ids: //p' fx.pftrace.txt)" ] &&
	packet_with '    flow_ids: ' | grep -q 'name: "aten::mm"' &&
	packet_with '    flow_ids: ' | grep -q 'type: TYPE_SLICE_BEGIN' &&
	packet_with 'terminating_flow_ids: ' | grep -q 'name: "gemm"'; then
	pass "protoc: one flow, its two ends with the same id, on the slices' begins"
else
	fail "protoc: one flow, its two ends with the same id, on the slices' begins" \
		"$(grep flow_ids fx.pftrace.txt)"
fi
oracle "oracle: the fixture" fx.json fx.pftrace
expect 0 "verify: the fixture" "tr-verify --source fx.json --output fx.pftrace"
printf '%s\n' "verified: fx.pftrace holds the source's 15 events: 4 slices, 2 instants, 2 counter values, 2 flows, each on the slice Perfetto's JSON import binds it to (0 left out: no slice of their thread binds them), 4 processes and 5 threads with their names and sort indices; 1 events of other phases or without ts left out" >want.out
same "verify: its summary" want.out "$T/out"
expect 0 "verify: against the stream" "tr-verify --source fx.stream --output fx.pftrace"
expect 0 "verify: against the stream on stdin" "tr-verify --source - --output fx.pftrace <fx.stream"

# ---------------------------------------------------- refusals, mutations

# one ts changed: the same trace with 10.501 for 10.500
sed 's/"ts": 10.500, "dur": 2/"ts": 10.501, "dur": 2/' fx.json >ts.json
tr-decode ts.json | tr-encode -o ts.pftrace
expect 1 "mutated ts: refused" "tr-verify --source fx.json --output ts.pftrace"
stderr_is "mutated ts: the first difference" \
	"tr-verify: ts.pftrace: event 4: event: ts 10501 ns in the output, 10500 ns in the source"
# one byte changed: an interned name
python3 -c 'import sys; b = open("fx.pftrace", "rb").read(); open("byte.pftrace", "wb").write(b.replace(b"aten::mm", b"aten::mn", 1))'
expect 1 "mutated byte: refused" "tr-verify --source fx.json --output byte.pftrace"
stderr_is "mutated byte: the first difference" \
	"tr-verify: byte.pftrace: event 4: name differs from the source's \"aten::mm\""
# a flow bound elsewhere: the s moved before its slice, where the JSON
# import binds it to nothing; the source's s binds to aten::mm
sed 's/"ph": "s", "id": 5, "pid": 7, "tid": 7, "ts": 10.500/"ph": "s", "id": 5, "pid": 7, "tid": 7, "ts": 10.499/' fx.json >flow.json
tr-decode flow.json | tr-encode -o flow.pftrace
expect 0 "moved flow: its own source verifies" "tr-verify --source flow.json --output flow.pftrace"
expect 1 "moved flow: refused against the source" "tr-verify --source fx.json --output flow.pftrace"
stderr_is "moved flow: the first difference" \
	"tr-verify: flow.pftrace: event 5: Perfetto's JSON import binds this flow event to event 4; the output does not carry it there"
if python3 "$ROOT/tests/e2e/pftrace_check.py" fx.json flow.pftrace >/dev/null 2>"$T/oracle"; then
	fail "moved flow: the oracle refuses it" "pftrace_check.py found it equal"
else
	printf '%s\n' "pftrace_check: event 4: 0 flows on its slice in the output, 1 bound there by the JSON import" >want.oracle
	same "moved flow: the oracle refuses it" want.oracle "$T/oracle"
fi
# a file cut short
head -c 300 fx.pftrace >cut.pftrace
expect 1 "cut: refused" "tr-verify --source fx.json --output cut.pftrace" \
	"the file ends inside it"
# a JSON file given as the Perfetto trace
cp fx.json json.pftrace
expect 1 "not a Perfetto trace: refused" "tr-verify --source fx.json --output json.pftrace"
stderr_is "not a Perfetto trace: message" \
	"tr-verify: json.pftrace: packet 0: not a Trace.packet field (a Perfetto trace is a sequence of them)"
expect 2 "verify: --window refused" "tr-verify --window --source fx.json --output fx.pftrace"
stderr_is "verify: --window message" \
	"tr-verify: a Perfetto trace is verified against its source alone (no --window, no --report)"

# ------------------------------------------------- formats and gzip

expect 0 "encode: --format perfetto to stdout" "tr-encode --format perfetto <fx.stream >stdout.pf" &&
	same "encode: stdout and by name alike" fx.pftrace stdout.pf
expect 0 "encode: .pftrace.gz" "tr-encode -o fx.pftrace.gz <fx.stream" &&
	decoded "encode: .pftrace.gz decodes" fx.pftrace.gz &&
	same "encode: .pftrace.gz holds the same packets" fx.pftrace.txt fx.pftrace.gz.txt
expect 0 "verify: .pftrace.gz" "tr-verify --source fx.json --output fx.pftrace.gz"
expect 0 "encode: --format json wins over the name" "tr-encode --format json -o j.pftrace <fx.stream" &&
	json_equal "encode: --format json round trip" fx.json j.pftrace
expect 2 "encode: --format bad" "tr-encode --format xml -o x.pftrace <fx.stream"
stderr_is "encode: --format bad: message" "tr-encode: --format: invalid value 'xml' (allowed json or perfetto)"
absent "encode: --format bad: nothing written" x.pftrace

# -------------------------------------------- the interning bound

python3 -c '
import json
ev = [{"ph": "X", "name": "n%d" % i, "cat": "c", "pid": 1, "tid": 1, "ts": i, "dur": 1,
       "args": {"k%d" % (i % 7): "v%d" % i}} for i in range(70000)]
json.dump({"traceEvents": ev}, open("many.json", "w"))'
tr-decode many.json | tr-encode -o many.pftrace
decoded "intern bound: protoc decodes it" many.pftrace &&
	if [ "$(grep -c '^  sequence_flags: 3$' many.pftrace.txt)" = 3 ]; then
		pass "intern bound: the state cleared twice after the first"
	else
		fail "intern bound: the state cleared twice after the first" \
			"$(grep -c 'sequence_flags: 3' many.pftrace.txt) clearings"
	fi
oracle "intern bound: oracle" many.json many.pftrace
expect 0 "intern bound: verify" "tr-verify --source many.json --output many.pftrace"

# ---------------------------------- a generated trace, the real traces

tr-gen --layers 4 --passes 2 --streams 3 --concurrency 2 -o gen.json
tr-decode gen.json | tr-encode -o gen.pftrace
decoded "tr-gen: protoc" gen.pftrace
oracle "tr-gen: oracle" gen.json gen.pftrace
expect 0 "tr-gen: verify" "tr-verify --source gen.json --output gen.pftrace"
tr-decode gen.json | tr-encode -o gen.json.out
if [ "$(stat -c %s gen.pftrace)" -lt "$(stat -c %s gen.json.out)" ]; then
	pass "tr-gen: the .pftrace is smaller than the JSON"
else
	fail "tr-gen: the .pftrace is smaller than the JSON" "$(stat -c %s gen.pftrace gen.json.out)"
fi

if [ -d "$TRACES" ]; then
	for f in "$TRACES"/*.json "$TRACES"/*.json.gz; do
		[ -f "$f" ] || continue
		n=$(basename "$f")
		rm -f real.pftrace real.pftrace.txt
		if ! tr-decode "$f" | tr-encode -o real.pftrace 2>"$T/err"; then
			fail "$n: encode" "$(head -c 300 "$T/err")"
			continue
		fi
		decoded "$n: protoc" real.pftrace
		oracle "$n: oracle" "$f" real.pftrace
		expect 0 "$n: verify" "tr-verify --source '$f' --output real.pftrace"
	done
else
	skip "real traces" "$TRACES is absent"
fi

# ------------------------------------------ Perfetto's own import

# What the import should hold, counted by the independent reader: the
# fixture's 3 X, 1 B/E, 2 instants; its one flow (s then f); its counter
# event's two numbers (bytes and frac, a counter track each; the string is
# not a counter).
rm -f counts.pftrace gen.counts.pftrace
tr-encode -o counts.pftrace <fx.stream
tr-decode gen.json | tr-encode -o gen.counts.pftrace
python3 "$ROOT/tests/e2e/pftrace_check.py" --counts counts.pftrace >counts.want 2>"$T/err"
printf 'slices 6 flows 1 counters 2\n' >counts.exp
if cmp -s counts.want counts.exp; then
	pass "import counts: the fixture's slices, flow and counter values, by the independent reader"
else
	fail "import counts: the fixture's slices, flow and counter values, by the independent reader" \
		"got: $(cat counts.want)" "wanted: $(cat counts.exp)" "$(head -c 300 "$T/err")"
fi
# trace_processor_shell (from Perfetto's releases; not a Debian package),
# where it is installed: its tables hold every slice, flow and counter
tp=$(command -v trace_processor_shell || command -v trace_processor)
if [ -n "$tp" ]; then
	printf "select 'slices ' || (select count(*) from slice) || ' flows ' ||
	  (select count(*) from flow) || ' counters ' || (select count(*) from counter) as c;\n" >tp.sql
	for f in counts gen.counts; do
		python3 "$ROOT/tests/e2e/pftrace_check.py" --counts $f.pftrace >$f.want
		"$tp" -q tp.sql $f.pftrace >$f.tp 2>"$T/err"
		if [ "$(tail -n 1 $f.tp | tr -d '"')" = "$(cat $f.want)" ]; then
			pass "trace_processor imports $f.pftrace whole ($(cat $f.want))"
		else
			fail "trace_processor imports $f.pftrace whole" "it holds: $(tail -n 1 $f.tp)" \
				"the file holds: $(cat $f.want)" "$(head -c 300 "$T/err")"
		fi
	done
else
	skip "trace_processor" "not on PATH (not a Debian package): the import itself is not tested here"
fi
