# t-options: every program and command words a command-line error alike
# (common/core/opt for the programs, tr-common.sh for the commands): the short
# program name, the message, then the usage on standard error, nothing on
# standard output, exit 2; --help and --version on standard output, exit 0.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2
VERSION=$(cat "$ROOT/VERSION")

PROGRAMS="tr-decode tr-encode tr-select-anchors tr-guides tr-compact tr-verify tr-survey
	tr-window tr-serve tr-gen tr-ranks"
COMMANDS="tr-layer-track tr-compact-track tr-layer-track-ranks"

# usage_error NAME WANTED-FIRST-LINE CMD: exit 2, stderr exactly that line and
# then the program's --help text (in usage.PROG), stdout empty.
usage_error() { # NAME FIRST-LINE CMD PROG
	run "$3"
	{ printf '%s\n' "$2"; cat "usage.$4"; } >want.err
	if [ "$RC" = 2 ] && cmp -s want.err "$T/err" && [ ! -s "$T/out" ]; then
		pass "$1"
	else
		fail "$1" "exit $RC" "stderr: $(head -c 300 "$T/err")" "wanted: $2, then the usage"
	fi
}

# --help and --version, and the shape of every --help: "usage: PROG" first,
# the exit statuses last.
for p in $PROGRAMS $COMMANDS; do
	expect 0 "$p --help" "$p --help" &&
	cp "$T/out" "usage.$p" &&
	if [ ! -s "$T/err" ] && [ "$(head -c $((${#p} + 7)) "usage.$p")" = "usage: $p" ] &&
	   awk '/^Exit status: 0 /{ found = 1 } END { exit !found }' "usage.$p"; then
		pass "$p --help: usage first, exit statuses at the end"
	else
		fail "$p --help: usage first, exit statuses at the end" "$(head -c 300 "usage.$p")"
	fi
	expect 0 "$p --version" "$p --version" &&
	if [ "$(head -n 1 "$T/out")" = "$p $VERSION" ] && [ ! -s "$T/err" ]; then
		pass "$p --version: the name and version first"
	else
		fail "$p --version: the name and version first" "$(head -c 200 "$T/out")"
	fi
	expect 0 "$p -h is --help" "$p -h" && same "$p -h: the same text" "usage.$p" "$T/out"
done

# Wrong options, worded the same everywhere.
for p in $PROGRAMS $COMMANDS; do
	usage_error "$p: an unknown option" "$p: unknown option '--bogus'" "$p --bogus </dev/null" $p
	usage_error "$p: an unknown short option" "$p: unknown option '-x'" "$p -x </dev/null" $p
	usage_error "$p: a value for a flag" "$p: option '--help' takes no argument" \
		"$p --help=1 </dev/null" $p
done

# A missing argument: one option that takes a value, per program.
while read -r p opt; do
	usage_error "$p: $opt without its value" "$p: option '$opt' requires an argument" \
		"$p $opt </dev/null" $p
done <<'EOF'
tr-decode --max-event-bytes
tr-encode --level
tr-encode -o
tr-select-anchors --num-layers
tr-guides --phase
tr-compact --max-gpu-lanes
tr-verify --source
tr-survey --num-layers
tr-window --pass
tr-serve --port
tr-gen --layers
tr-gen -o
tr-ranks --pass
tr-layer-track --num-layers
tr-compact-track --max-gpu-lanes
tr-layer-track-ranks --jobs
EOF
usage_error "tr-compact: an abbreviation without its value" \
	"tr-compact: option '--max-gpu-lanes' requires an argument" "tr-compact --max </dev/null" tr-compact

# An abbreviation of several options names them, as the commands do.
usage_error "tr-decode: an ambiguous abbreviation" \
	"tr-decode: option '--max' is ambiguous; possibilities: '--max-event-bytes' '--max-member-bytes'" \
	"tr-decode --max 1 </dev/null" tr-decode
usage_error "tr-verify: an ambiguous abbreviation with =" \
	"tr-verify: option '--max' is ambiguous; possibilities: '--max-event-bytes' '--max-member-bytes'" \
	"tr-verify --max=1K --source a --output b" tr-verify
usage_error "tr-gen: an ambiguous abbreviation" \
	"tr-gen: option '--s' is ambiguous; possibilities: '--scale-devices' '--scale-pids' '--seed' '--shape' '--slow-layer' '--slowdown' '--streams'" \
	"tr-gen --s 1" tr-gen
usage_error "tr-compact-track: an ambiguous abbreviation" \
	"tr-compact-track: option '--max' is ambiguous; possibilities: '--max-gpu-lanes' '--max-event-bytes' '--max-member-bytes'" \
	"tr-compact-track --max=4" tr-compact-track
expect 0 "tr-decode: an unambiguous abbreviation" "tr-decode --max-e=1K --rec --help"
usage_error "tr-decode: a value for a flag" "tr-decode: option '--record-path' takes no argument" \
	"tr-decode --record-path=1 </dev/null" tr-decode
usage_error "tr-decode: --=x is no option" "tr-decode: unknown option '--=x'" \
	"tr-decode --=x </dev/null" tr-decode

# An operand where none is taken, or one too many.
for p in tr-encode tr-select-anchors tr-guides tr-compact tr-survey tr-window tr-gen; do
	usage_error "$p: an operand" "$p: unexpected argument 'x.json'" "$p x.json </dev/null" $p
done
usage_error "tr-decode: a second operand" "tr-decode: unexpected argument 'b.json'" \
	"tr-decode a.json b.json" tr-decode
usage_error "tr-verify: an operand" "tr-verify: unexpected argument 'x.json'" \
	"tr-verify --source a --output b x.json" tr-verify
usage_error "tr-layer-track: an operand" "tr-layer-track: unexpected argument 'x.json'" \
	"tr-layer-track x.json" tr-layer-track

# A required option missing: the message, then the usage.
# tr-survey's --num-layers is optional: without it, the counts per pass
run "printf '[]' | tr-decode | tr-survey"
if [ "$RC" = 0 ] && [ "$(cat "$T/out")" = "no GPU kernels in the stream" ] && [ ! -s "$T/err" ]; then
	pass "tr-survey: --num-layers is optional"
else
	fail "tr-survey: --num-layers is optional" "exit $RC" "$(head -c 300 "$T/err")"
fi
usage_error "tr-verify: no --output" "tr-verify: --source and --output are required" \
	"tr-verify --source a" tr-verify
usage_error "tr-select-anchors: no --anchor-offset" \
	"tr-select-anchors: --anchor-regex, --num-layers and --anchor-offset are required" \
	"tr-select-anchors --anchor-regex a --num-layers 1 </dev/null" tr-select-anchors
usage_error "tr-guides: no --evidence" \
	"tr-guides: --phase and --evidence are required and must not be blank (evidence: why L0 is L0, e.g. the model config, source revision, counts)" \
	"tr-guides --phase p </dev/null" tr-guides
usage_error "tr-ranks: no report" "tr-ranks: no report given" "tr-ranks" tr-ranks
usage_error "tr-serve: no trace" "tr-serve: no trace given" "tr-serve" tr-serve
usage_error "tr-compact-track: no --output" "tr-compact-track: --trace and --output are required" \
	"tr-compact-track --trace a.json" tr-compact-track

# A bad value: one line, "--name: invalid value 'TEXT' (allowed MIN to MAX)",
# exit 2.  One number rule: decimal; byte counts may end in K, M or G (upper
# case, powers of 1024), and the bounds are written that way.
while read -r p opt value allowed; do
	expect 2 "$p $opt $value" "$p $opt $value </dev/null" &&
		stderr_is "$p $opt $value: one line" "$p: $opt: invalid value '$value' ($allowed)"
done <<'EOF'
tr-decode --max-event-bytes 0 allowed 1 to 1G
tr-decode --max-event-bytes 1m allowed 1 to 1G
tr-decode --max-member-bytes 1025M allowed 1 to 1G
tr-verify --max-event-bytes 2G allowed 1 to 1G
tr-encode --level 10 allowed 1 to 9
tr-encode --level 1K allowed 1 to 9
tr-select-anchors --num-layers 0 allowed 1 to 1000000
tr-select-anchors --anchor-offset -1 allowed 0 to 2147483647
tr-select-anchors --passes x allowed 1 to 1000000
tr-select-anchors --first-layer 1000001 allowed 0 to 1000000
tr-compact --max-gpu-lanes 11 allowed 1 to 10
tr-survey --num-layers +1 allowed 1 to 1000000
tr-survey --top 1001 allowed 1 to 1000
tr-serve --port 65536 allowed 0 to 65535
tr-ranks --threshold 1001 allowed 0 to 1000
tr-ranks --pass -1 allowed 0 to 100000000
tr-gen --layers 2K allowed 1 to 100000
tr-gen --target-bytes 1m allowed 1 to 1024G
tr-gen --target-bytes 1025G allowed 1 to 1024G
tr-gen --seed 18446744073709551616 allowed 0 to 18446744073709551615
tr-gen --devices 0x2 allowed 1 to 64
EOF
expect 2 "tr-window: --max-bytes 1k" "tr-window --pass 0 --max-bytes 1k </dev/null" &&
	stderr_is "tr-window: --max-bytes 1k: one line" \
		"tr-window: --max-bytes: invalid value '1k' (bytes, suffix K, M or G)"
expect 2 "tr-serve: --layer Lx" "tr-serve --layer Lx t.json" &&
	stderr_is "tr-serve: --layer Lx: one line" \
		"tr-serve: --layer: invalid value 'Lx' (a layer, as L3 or 3)"
expect 2 "tr-gen: --ts-format" "tr-gen --ts-format ms" &&
	stderr_is "tr-gen: --ts-format: one line" \
		"tr-gen: --ts-format: invalid value 'ms' (allowed kineto, int)"
expect 2 "tr-layer-track-ranks: --jobs 0" "tr-layer-track-ranks --jobs 0 --outdir o \
	--anchor-regex a --num-layers 1 --anchor-offset 0 --phase p --evidence e x.json" &&
	stderr_is "tr-layer-track-ranks: --jobs 0: one line, as the programs' values" \
		"tr-layer-track-ranks: --jobs: invalid value '0' (allowed 1 to 9999)"
expect 2 "tr-gen -o with a refused value" "tr-gen --target-bytes 1m -o never.json"
absent "tr-gen: a refused value writes no file" never.json
expect 0 "tr-gen: an upper-case suffix" "tr-gen --target-bytes 64K --compact | tr-decode >/dev/null"
expect 0 "tr-gen: the largest seed" "tr-gen --seed 18446744073709551615 --compact >/dev/null"

# --help to a full disk: the write error, exit 2.
for p in $PROGRAMS; do
	expect 2 "$p --help >/dev/full" "$p --help >/dev/full" &&
		stderr_is "$p --help >/dev/full: one line" \
			"$p: standard output: No space left on device"
done
