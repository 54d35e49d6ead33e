# t-gen: tr-gen's shapes and layouts (the pipeline verifies each; a layout
# changes separators, never events; --disorder moves events, never changes
# them) and --repeat (a real trace N times over, against a python oracle).
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2

# verified NAME CMD: CMD succeeds and reports its output verified
verified() {
	run "$2"
	if [ "$RC" = 0 ] && grep -q '^verification: verified' "$T/out"; then
		pass "$1"
	else
		fail "$1" "exit status $RC" "$(tail -n 3 "$T/out" "$T/err")"
	fi
}
ANCHOR='^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,'

# the three bench shapes, small: tr-layer-track verifies its output
for s in dense moe kineto; do
	tr-gen --shape "$s" --target-bytes 2M -o "$s.json"
	p=$(grep -c '"name": "Memcpy HtoD' "$s.json")
	verified "tr-gen --shape $s: tr-layer-track --max-gpu-lanes 10 verifies" \
		"tr-layer-track --trace $s.json --output $s.out.json.gz --anchor-regex '$ANCHOR' \
		--num-layers 40 --anchor-offset 0 --passes $p --phase bench --evidence x \
		--max-gpu-lanes 10"
done
size=$(wc -c <moe.json)
if [ "$size" -ge 2097152 ]; then
	pass "tr-gen --shape moe --target-bytes 2M: at least 2 MiB"
else
	fail "tr-gen --shape moe --target-bytes 2M: at least 2 MiB" "$size bytes"
fi
# moe: every line of an event begins "  {"; runtime calls with args first;
# six experts at once in each of the 40 layers of every pass
pm=$(grep -c '"name": "Memcpy HtoD' moe.json)
n_ev=$(grep -c '^  {"' moe.json)
n_rt=$(grep -c '"cat": "cuda_runtime", "name": "cuda[A-Za-z]*", "pid": 12345, "tid": 12345, "args": {"External id": [0-9]*, "cbid": [0-9]*, "correlation": [0-9]*}, "ts": [0-9.]*, "dur": [0-9.]*}' moe.json)
n_x=$(grep -c '"cat": "cuda_runtime"' moe.json)
n_moe=$(grep -c '"cat": "kernel", "name": "fused_moe_kernel"' moe.json)
if [ "$n_ev" -gt 1000 ] && [ "$n_rt" = "$n_x" ] && [ "$n_moe" = $((pm * 40 * 6)) ]; then
	pass "tr-gen --shape moe: indented one-line events, args first, 6 experts a layer"
else
	fail "tr-gen --shape moe: indented one-line events, args first, 6 experts a layer" \
		"events $n_ev, runtime args first $n_rt of $n_x, experts $n_moe of $((pm * 240))"
fi

# a layout changes the separators only
tr-gen --concurrency 2 --layout kineto -o k.json
tr-gen --concurrency 2 --layout kineto-lines -o kl.json
python3 -c 'import sys; h, s, t = open(sys.argv[1]).read().partition("\"traceEvents\": [")
sys.stdout.write(h + s + t.replace(",\n      \"", ",      \""))' kl.json >kl.back
# the args of a kineto-lines kernel: a few members a line, as torch 2.0
if cmp -s k.json kl.back && grep -qx '      "grid": \[4, 32, 8\],' kl.json &&
   grep -qx '      "queued": 0, "device": 0, "context": 1,' kl.json; then
	pass "tr-gen --layout kineto-lines: kineto's events with args over several lines"
else
	fail "tr-gen --layout kineto-lines: kineto's events with args over several lines" \
		"$(diff k.json kl.back | head -4)"
fi
tr-gen --concurrency 2 --compact -o c.json
tr-gen --concurrency 2 --layout indent2 -o i2.json
sed 's/^  {/{/' i2.json >i2.back
same "tr-gen --layout indent2: compact's lines, each indented by two spaces" c.json i2.back

# --disorder: the same events, not in the same order
tr-gen --concurrency 3 --streams 5 --compact --disorder -o dis.json
tr-gen --concurrency 3 --streams 5 --compact -o ord.json
sed 's/,$//' dis.json | sort >dis.sorted
sed 's/,$//' ord.json | sort >ord.sorted
if cmp -s dis.sorted ord.sorted && ! cmp -s dis.json ord.json; then
	pass "tr-gen --disorder: the same events in another order"
else
	fail "tr-gen --disorder: the same events in another order" "$(diff dis.sorted ord.sorted | head -4)"
fi

expect 2 "tr-gen: --experts above --concurrency" "tr-gen --concurrency 2 --experts 3" &&
	stderr_is "tr-gen: --experts above --concurrency: one line" \
		"tr-gen: --experts 3 exceeds --concurrency 2"
expect 2 "tr-gen: --layout unknown" "tr-gen --layout wide" \
	"tr-gen: --layout: invalid value 'wide' (allowed kineto, kineto-lines, compact, indent2)"
expect 2 "tr-gen: --repeat without FILE" "tr-gen --repeat 2" &&
	stderr_is "tr-gen: --repeat without FILE: one line" "tr-gen: --repeat needs a FILE"

# --repeat on hand-made traces: exact outputs
printf '{"traceEvents": [\n {"ph": "M", "name": "process_name", "pid": 1, "ts": 5},\n {"ph": "X", "ts": 10.250, "dur": 2, "args": {"correlation": 4}},\n {"ph": "s", "id": 4, "ts": 11}\n], "x": 1}\n' >small.json
printf '{"traceEvents": [\n {"ph": "M", "name": "process_name", "pid": 1, "ts": 5},\n {"ph": "X", "ts": 10.250, "dur": 2, "args": {"correlation": 4}},\n {"ph": "s", "id": 4, "ts": 11},\n {"ph": "X", "ts": 13.250, "dur": 2, "args": {"correlation": 9}},\n {"ph": "s", "id": 9, "ts": 14}\n], "x": 1}\n' >small.want
expect 0 "tr-gen --repeat 2: a small trace" "tr-gen --repeat 2 -o small.2.json small.json" &&
	same "tr-gen --repeat 2: ts + 3 us (span 2.75 us, rounded up, + 1), ids + 5, metadata once" \
		small.want small.2.json
printf '[{"ph": "X", "ts": 1e3, "dur": 1}]' >exp.json
expect 1 "tr-gen --repeat: a ts with an exponent" "tr-gen --repeat 2 -o never.json exp.json" &&
	stderr_is "tr-gen --repeat: a ts with an exponent: one line" \
		"tr-gen: exp.json: byte 19: a ts that is not a plain decimal number of microseconds"
if [ -e never.json ]; then
	fail "tr-gen --repeat refused: no output file" "never.json exists"
else
	pass "tr-gen --repeat refused: no output file"
fi

if [ ! -d "$TRACES" ]; then
	skip "tr-gen --repeat on real traces" "$TRACES is absent"
else
	# --repeat 1 gives the trace back, byte for byte
	for src in "$TRACES"/*.json "$TRACES"/*.json.gz; do
		[ -f "$src" ] || continue
		b=$(basename "$src")
		tr-gen --repeat 1 "$src" >one.json
		gzip -dcf "$src" >orig.json
		same "tr-gen --repeat 1 $b: the trace unchanged" orig.json one.json
	done
	BERT=$TRACES/gaunernst_bert-small-uncased__1016001.json.gz
	if [ -f "$BERT" ]; then
		expect 0 "tr-gen --repeat 3 of bert" "tr-gen --repeat 3 -o bert3.json '$BERT'"
		if python3 "$ROOT/tests/e2e/repeat_oracle.py" "$BERT" bert3.json 3 >oracle.out 2>&1 &&
		   grep -qx 'events 7533 of 2551; metadata 60; shift 8393 us; id offset 9838' oracle.out; then
			pass "tr-gen --repeat 3 of bert: 3 copies, ts shifted, ids offset (python oracle)"
		else
			fail "tr-gen --repeat 3 of bert: 3 copies, ts shifted, ids offset (python oracle)" \
				"$(cat oracle.out)"
		fi
		events=$(tr-decode bert3.json | tail -n 1 | sed 's/.*"events":\([0-9]*\).*/\1/')
		if [ "$events" = 7533 ]; then
			pass "tr-gen --repeat 3 of bert: tr-decode reads 7533 events"
		else
			fail "tr-gen --repeat 3 of bert: tr-decode reads 7533 events" "$events"
		fi
		verified "tr-gen --repeat 3 of bert: tr-layer-track with lanes verifies" \
			"tr-layer-track --trace bert3.json --output bert3.out.json --anchor-regex flash_fwd \
			--num-layers 4 --anchor-offset 0 --phase prefill --evidence x --max-gpu-lanes 10"
	else
		skip "tr-gen --repeat 3 of bert" "not in $TRACES"
	fi
fi
