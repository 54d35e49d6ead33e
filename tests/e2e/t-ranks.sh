# t-ranks: every rank at once.  tr-layer-track-ranks over a generated
# multi-rank set (tr-gen --rank, one straggler made by --slow-layer and
# --slowdown, a truncated rank, a rank with fewer layers, a corrupt gzip)
# through GNU parallel and through xargs -P; --joblog and --resume-failed,
# --halt, --rank-index and the Slurm script's body; tr-ranks' tables
# (text, TSV, JSON) against an independent python oracle (from the reports
# and from the traces), its refusals, and the SVG heat map parsed as XML and
# rendered in headless Chromium.  Sourced by run.sh (BIN, ROOT, T, TRACES set).

cd "$T" || exit 2
ORACLE=$ROOT/tests/e2e/ranks_oracle.py
RX='rotary_embedding_kernel<c10::BFloat16, true>'
EV='generated: 4 layers per pass'
# the anchor options of every rank
set -- --anchor-regex "$RX" --num-layers 4 --passes 3 --anchor-offset 0 --phase decode \
	--evidence "$EV"
q() { for a; do printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"; done; }
ANCHOR=$(q "$@")

mkdir -p traces
for r in 0 1 2 3; do
	slow=
	[ "$r" != 2 ] || slow="--slow-layer 1 --slowdown 400"
	tr-gen --layers 4 --passes 3 --rank "$r" $slow -o "traces/rank-$r.json" || exit 2
done
tr-gen --layers 4 --passes 1 --rank 4 -o traces/rank-4.json          # truncated window
tr-gen --layers 3 --passes 3 --rank 5 -o traces/rank-5.json          # another layer count
tr-gen --layers 4 --passes 3 --rank 6 | gzip -c >full6.gz
head -c $(($(wc -c <full6.gz) / 2)) full6.gz >traces/rank-6.json.gz

expect 0 "tr-gen --rank: rank 0 is the trace without --rank" \
	"tr-gen --layers 4 --passes 3 | cmp - traces/rank-0.json"
expect 0 "tr-gen --rank: another rank has other timing" \
	"! tr-gen --layers 4 --passes 3 --rank 1 | cmp -s - traces/rank-0.json"
expect 2 "tr-gen: --slow-layer without --slowdown" "tr-gen --slow-layer 1" \
	"tr-gen: --slow-layer and --slowdown go together"
expect 0 "tr-gen --slowdown: the slowed layer's attention kernels are 400% longer" \
	"python3 - traces/rank-2.json <<'PY'
import json, sys
from decimal import Decimal
def attn(path):
    ev = json.load(open(path), parse_float=Decimal)['traceEvents']
    return [e for e in ev if e.get('cat') == 'kernel' and
            e['name'].startswith('void flash_fwd_kernel<Flash_fwd_kernel_traits<128')]
a = attn(sys.argv[1])
import subprocess
plain = json.loads(subprocess.run(['tr-gen', '--layers', '4', '--passes', '3', '--rank', '2'],
                   capture_output=True, check=True).stdout, parse_float=Decimal)['traceEvents']
b = [e for e in plain if e.get('cat') == 'kernel' and
     e['name'].startswith('void flash_fwd_kernel<Flash_fwd_kernel_traits<128')]
b.sort(key=lambda e: e['ts'])
a.sort(key=lambda e: e['ts'])
assert len(a) == len(b) == 12
for i, (x, y) in enumerate(zip(a, b)):
    if i % 4 == 1:
        assert abs(x['dur'] - 5 * y['dur']) <= Decimal('0.002'), (x['dur'], y['dur'])
    else:
        assert x['dur'] == y['dur'], (i, x['dur'], y['dur'])
PY"

ALL="traces/rank-0.json traces/rank-1.json traces/rank-2.json traces/rank-3.json traces/rank-4.json traces/rank-5.json traces/rank-6.json.gz"
ok_line() {
	echo "  ok       traces/$1: 4 layers x 3 passes = 12 guides ($2 matching anchors); verified"
}
cat >want.summary <<EOF
rank status and evidence (outputs and logs in OUT):
$(ok_line rank-0.json 12)
$(ok_line rank-1.json 12)
$(ok_line rank-2.json 12)
$(ok_line rank-3.json 12)
  FAILED   traces/rank-4.json (exit status 1): tr-select-anchors: truncated selection: 4 kernels match in pid 0, device 0; from --anchor-offset 0 there are 4, but --num-layers 4 x --passes 3 needs 12
  FAILED   traces/rank-5.json (exit status 1): tr-select-anchors: truncated selection: 9 kernels match in pid 0, device 0; from --anchor-offset 0 there are 9, but --num-layers 4 x --passes 3 needs 12
  FAILED   traces/rank-6.json.gz (exit status 1): REASON6
4 of 7 ranks succeeded; 3 failed (their logs: OUT/NAME.log)
EOF

# batch DIR EXTRA...: the batch over every rank into DIR
batch() {
	d=$1
	shift
	run "tr-layer-track-ranks --outdir $d $ANCHOR $* $ALL"
	r6=$(sed -n 1p "$d/rank-6.status" 2>/dev/null | cut -f2)
	sed -e "s|OUT|$d|g" -e "s|REASON6|$r6|" want.summary >want.out
}

# ------------------------------------------------------ GNU parallel
if command -v parallel >/dev/null 2>&1; then
	batch par --jobs 2 --joblog par.joblog
	if [ "$RC" = 1 ] && cmp -s want.out "$T/out"; then
		pass "batch (parallel): every rank runs; the summary lists each with its evidence; exit 1"
	else
		fail "batch (parallel): summary and exit 1" "exit $RC" "$(diff want.out "$T/out" | head -8)"
	fi
	expect 0 "batch (parallel): the corrupt gzip's reason is tr-decode's" \
		"cut -f2 par/rank-6.status | grep -q '^tr-decode: .*rank-6.json.gz'"
	expect 0 "batch (parallel): the joblog has one line per rank" \
		"test \$(tail -n +2 par.joblog | wc -l) = 7"
	absent "batch (parallel): no output for a failed rank" par/rank-4.layers.json.gz \
		par/rank-5.layers.json.gz par/rank-6.layers.json.gz par/rank-4.layers.json.gz.layers.json
	expect 0 "batch (parallel): each rank's output verifies against its trace" \
		"for r in 0 1 2 3; do tr-verify --source traces/rank-\$r.json --output par/rank-\$r.layers.json.gz >/dev/null || exit 1; done"

	# --resume-failed: the failed ranks run again (rank 4 now has its
	# passes), the others are not run (they would refuse their outputs)
	mv traces/rank-4.json traces/rank-4.short.json
	tr-gen --layers 4 --passes 3 --rank 4 -o traces/rank-4.json
	run "tr-layer-track-ranks --outdir par $ANCHOR --joblog par.joblog --resume-failed $ALL"
	if [ "$RC" = 1 ] && grep -qF "$(ok_line rank-4.json 12)" "$T/out" &&
	   grep -qF "$(ok_line rank-0.json 12)" "$T/out" &&
	   grep -qF "5 of 7 ranks succeeded; 2 failed" "$T/out"; then
		pass "batch --resume-failed: the failed ranks run again, the others keep their result"
	else
		fail "batch --resume-failed" "exit $RC" "$(cat "$T/out")"
	fi
	run "tr-layer-track-ranks --outdir par $ANCHOR $ALL"
	cp "$T/out" again.out
	expect 0 "batch again without --resume-failed: every rank refuses its existing output (exit 2)" \
		"test $RC = 2 && test \$(grep -c 'exists; refusing to overwrite it' again.out) = 5"
	mv traces/rank-4.short.json traces/rank-4.json

	# --halt now,fail=1 with one job: the first failure stops the rest
	run "tr-layer-track-ranks --outdir halt $ANCHOR --jobs 1 --halt now,fail=1 traces/rank-5.json traces/rank-0.json traces/rank-1.json"
	if [ "$RC" = 1 ] && grep -q '^  FAILED   traces/rank-5.json' "$T/out" &&
	   grep -q '^  NOT RUN  traces/rank-1.json: stopped by --halt or interrupted' "$T/out"; then
		pass "batch --halt now,fail=1: the ranks after the failure are listed as not run"
	else
		fail "batch --halt now,fail=1" "exit $RC" "$(cat "$T/out")"
	fi
else
	skip "batch (parallel)" "GNU parallel is not installed (scripts/install-deps.sh installs it)"
fi

# ------------------------------------------------------ xargs -P
batch xa --xargs --jobs 2
if [ "$RC" = 1 ] && cmp -s want.out "$T/out"; then
	pass "batch (xargs): the same summary and exit 1"
else
	fail "batch (xargs): summary and exit 1" "exit $RC" "$(diff want.out "$T/out" | head -8)"
fi
stderr_is "batch (xargs): says it runs without parallel" \
	"tr-layer-track-ranks: --xargs or TR_RANKS_XARGS given: running the ranks with xargs -P 2"
if [ -d par ]; then
	expect 0 "batch: parallel and xargs write the same reports" \
		"for r in 0 1 2 3; do cmp par/rank-\$r.layers.json.gz.layers.json xa/rank-\$r.layers.json.gz.layers.json || exit 1; done"
fi
run "TR_RANKS_XARGS=1 tr-layer-track-ranks --outdir xe $ANCHOR traces/rank-0.json"
cp "$T/err" xe.err
expect 0 "batch: TR_RANKS_XARGS=1 also chooses xargs" \
	"test $RC = 0 && grep -q 'TR_RANKS_XARGS given: running the ranks with xargs' xe.err"
# --force: a second batch into the same directory replaces each output
cp xe/rank-0.layers.json.gz xe0.first
printf 'old\n' >xe/rank-0.layers.json.gz
run "TR_RANKS_XARGS=1 tr-layer-track-ranks --outdir xe $ANCHOR traces/rank-0.json"
expect 0 "batch again without --force: the rank refuses its existing output" \
	"test $RC = 2 && grep -q 'exists; refusing to overwrite it' xe/rank-0.log"
run "TR_RANKS_XARGS=1 tr-layer-track-ranks --outdir xe $ANCHOR --force traces/rank-0.json"
expect 0 "batch again with --force: exit 0" "test $RC = 0"
same "batch again with --force: the output replaced" xe0.first xe/rank-0.layers.json.gz
# tr-ranks --force: an existing --svg replaced; a report it reads never
R0=xe/rank-0.layers.json.gz.layers.json
tr-ranks --svg fresh.svg "$R0" >/dev/null
printf 'old\n' >old.svg
expect 2 "tr-ranks --svg over an existing file: refused" "tr-ranks --svg old.svg $R0" \
	"tr-ranks: old.svg: File exists"
expect 0 "tr-ranks --force --svg over an existing file: exit 0" "tr-ranks --force --svg old.svg $R0"
same "tr-ranks --force: the heat map replaced" fresh.svg old.svg
cp "$R0" r0.copy
expect 2 "tr-ranks --force: the heat map over a report it reads is refused" \
	"tr-ranks --force --svg $R0 $R0" \
	"tr-ranks: --svg $R0: the heat map would be written over the report $R0"
same "tr-ranks --force: the report untouched" r0.copy "$R0"
expect 2 "batch (xargs): --joblog needs parallel" \
	"tr-layer-track-ranks --outdir xj $ANCHOR --xargs --joblog j traces/rank-0.json" \
	"tr-layer-track-ranks: --joblog needs GNU parallel (--xargs or TR_RANKS_XARGS given)"
expect 2 "batch: --resume-failed needs --joblog" \
	"tr-layer-track-ranks --outdir xj $ANCHOR --resume-failed traces/rank-0.json" \
	"--resume-failed needs --joblog"
expect 2 "batch: the anchor options are required" \
	"tr-layer-track-ranks --outdir xj --num-layers 4 traces/rank-0.json" \
	"tr-layer-track-ranks: --anchor-regex is required"
mkdir -p other
cp traces/rank-0.json other/rank-0.json
expect 2 "batch: two traces with one output name are refused before anything runs" \
	"tr-layer-track-ranks --outdir dup $ANCHOR traces/rank-0.json other/rank-0.json" \
	"tr-layer-track-ranks: other/rank-0.json and traces/rank-0.json both give the output name rank-0"
absent "batch: nothing written for a refused command line" dup xj
printf 'traces/rank-0.json\n# a comment\n\ntraces/rank-3.json\n' >ranks.list
expect 0 "batch: --list and a quoted glob" \
	"tr-layer-track-ranks --outdir gl $ANCHOR --xargs --list ranks.list 'traces/rank-[12].json' &&
	 test \$(ls gl/*.layers.json | wc -l) = 4"
expect 2 "batch: --rank-index beyond the list" \
	"tr-layer-track-ranks --outdir ri $ANCHOR --list ranks.list --rank-index 2" \
	"--rank-index: invalid value '2' (allowed 0 to 1, one per trace)"
# the summary reads a report's members from its first MiB: here they lie
# past it (a phase and an evidence of control characters, each escaped to
# six bytes), and come from the whole file
LONG_PHASE=$(python3 -c "print(chr(2) * 120000, end='')")
LONG_EV=$(python3 -c "print(chr(1) * 120000, end='')")
export LONG_PHASE LONG_EV
run "tr-layer-track-ranks --outdir far --rank-index 0 --anchor-regex '$RX' --num-layers 4 \
	--passes 3 --anchor-offset 0 --phase \"\$LONG_PHASE\" --evidence \"\$LONG_EV\" traces/rank-0.json"
at=$(grep -b -o '"num_layers": 4' far/rank-0.layers.json.gz.layers.json 2>/dev/null | cut -d: -f1)
if [ "$RC" = 0 ] && [ "${at:-0}" -gt 1048576 ] &&
   grep -qxF '  ok       traces/rank-0.json: 4 layers x 3 passes = 12 guides (12 matching anchors); verified' "$T/out"; then
	pass "batch: a report's members past its first MiB are read from the whole file"
else
	fail "batch: a report's members past its first MiB" "exit $RC, num_layers at byte ${at:-none}" \
		"$(grep 'rank-0' "$T/out" | cut -c1-200)"
fi
rm -rf far

# ------------------------------------------------------ Slurm job array
run "SLURM_ARRAY_TASK_ID=1 TR_RANKS_BIN=$ROOT/scripts bash $ROOT/scripts/tr-ranks.sbatch ranks.list sl $ANCHOR"
if [ "$RC" = 0 ] && [ "$(ls sl)" = "$(printf 'rank-3.layers.json.gz\nrank-3.layers.json.gz.layers.json\nrank-3.log\nrank-3.status')" ] &&
   cmp -s sl/rank-3.layers.json.gz.layers.json xa/rank-3.layers.json.gz.layers.json; then
	pass "tr-ranks.sbatch: task 1 runs the second trace of the list, as the batch does"
else
	fail "tr-ranks.sbatch: task 1" "exit $RC" "$(ls sl 2>&1)" "$(head -c 300 "$T/err")"
fi
expect 2 "tr-ranks.sbatch: without SLURM_ARRAY_TASK_ID" \
	"bash $ROOT/scripts/tr-ranks.sbatch ranks.list sl2 $ANCHOR" \
	"SLURM_ARRAY_TASK_ID is not set"

# ------------------------------------------------------ tr-ranks
R=""
for r in 0 1 2 3; do R="$R xa/rank-$r.layers.json.gz.layers.json"; done
L=""
for r in 0 1 2 3; do L="$L $r=xa/rank-$r.layers.json.gz.layers.json"; done
for opts in "" "--pass 1" "--threshold 50" "--pass 2 --threshold 0"; do
	run "tr-ranks --tsv $opts $R"
	python3 "$ORACLE" table $opts $L >want.tsv
	if [ "$RC" = 0 ] && cmp -s want.tsv "$T/out"; then
		pass "tr-ranks --tsv $opts: the table the oracle computes from the reports"
	else
		fail "tr-ranks --tsv $opts" "exit $RC" "$(diff want.tsv "$T/out" | head -6)"
	fi
done
python3 "$ORACLE" traces --threshold 50 --regex "$RX" --layers 4 --passes 3 \
	0=traces/rank-0.json 1=traces/rank-1.json 2=traces/rank-2.json 3=traces/rank-3.json >want.tsv
run "tr-ranks --tsv --threshold 50 $R"
cp "$T/out" t50.tsv
same "tr-ranks: the table the oracle computes from the traces themselves" want.tsv t50.tsv
expect 0 "tr-ranks: the known straggler (rank 2, L1, 400% slower attention) is the only one at 50%" \
	"awk -F'\t' '\$1 != \"layer\" { print \$1 \":\" \$NF }' t50.tsv | tr '\n' ' ' | grep -qx 'L0: L1:2 L2: L3: total: '"

for opts in "" "--pass 0 --threshold 25"; do
	run "tr-ranks --json $opts $R"
	cp "$T/out" got.json
	python3 "$ORACLE" table --json $opts $L >want.json
	expect 0 "tr-ranks --json $opts: the oracle's document, with the notice" \
		"python3 -c '
import json, sys
d = json.load(open(\"got.json\"), parse_float=str)
assert \"not layer latencies\" in d.pop(\"notice\")
assert json.dumps(d, indent=2, sort_keys=True) + \"\n\" == open(\"want.json\").read()
'"
done
run "tr-ranks $R"
cp "$T/out" text.out
expect 0 "tr-ranks: the text table says what the cells are" \
	"head -n 2 text.out | grep -qx \"each cell runs from a layer's anchor kernel to the next layer's anchor\" &&
	 head -n 1 text.out | grep -qF 'anchor-to-anchor intervals in µs (median over 3 passes), not layer latencies:'"
tr-ranks --tsv $R >text.tsv
expect 0 "tr-ranks: the text table's rows are the TSV's ('-' for an empty cell)" \
	"python3 -c '
import sys
text = open(\"text.out\").read().split(\"\\n\\n\", 1)[1].splitlines()
tsv = open(\"text.tsv\").read().splitlines()
assert len(text) == len(tsv)
for a, b in zip(text, tsv):
    assert [\"\" if w == \"-\" else w for w in a.split()] == b.split(\"\\t\"), (a, b)
'"

# refusals: a report of another layer count, phase or anchor
tr-layer-track --trace traces/rank-5.json --output l3.json --anchor-regex "$RX" --num-layers 3 \
	--passes 3 --anchor-offset 0 --phase decode --evidence "$EV" >/dev/null
tr-layer-track --trace traces/rank-1.json --output pf.json --anchor-regex "$RX" --num-layers 4 \
	--passes 3 --anchor-offset 0 --phase prefill --evidence "$EV" >/dev/null
tr-layer-track --trace traces/rank-1.json --output an.json --anchor-regex 'rotary_embedding' \
	--num-layers 4 --passes 3 --anchor-offset 0 --phase decode --evidence "$EV" >/dev/null
expect 1 "tr-ranks: a rank with another layer count is refused, named" \
	"tr-ranks $R l3.json.layers.json" \
	"tr-ranks: l3.json.layers.json: num_layers 3 differs from the other reports' 4 (4 of 5)"
expect 1 "tr-ranks: a rank of another phase is refused, named" \
	"tr-ranks pf.json.layers.json $R" \
	"tr-ranks: pf.json.layers.json: phase 'prefill' differs from the other reports' 'decode' (4 of 5)"
run "tr-ranks xa/rank-0.layers.json.gz.layers.json an.json.layers.json"
printf '%s\n' \
	"tr-ranks: xa/rank-0.layers.json.gz.layers.json: anchor_regex '$RX'" \
	"tr-ranks: an.json.layers.json: anchor_regex 'rotary_embedding'" \
	"tr-ranks: the reports disagree on anchor_regex" \
	"tr-ranks: refusing to compare reports of different anchors, layer counts or phases (run every rank with the same anchor options)" >want.err
if [ "$RC" = 1 ] && cmp -s want.err "$T/err" && [ ! -s "$T/out" ]; then
	pass "tr-ranks: two reports of different anchors: both named, nothing printed"
else
	fail "tr-ranks: two anchors" "exit $RC" "$(cat "$T/err")"
fi
expect 1 "tr-ranks --pass beyond the passes" "tr-ranks --pass 3 $R" \
	"tr-ranks: --pass 3: the reports have 3 passes (0 to 2)"
printf '{"phase": "decode"}\n' >bad.json
expect 1 "tr-ranks: not a layers report" "tr-ranks bad.json" \
	"tr-ranks: bad.json: no string member \"anchor_regex\"; not a layers report"
python3 -c '
import json
d = json.load(open("xa/rank-0.layers.json.gz.layers.json"), parse_float=str)
d["layers"].pop()
json.dump(d, open("short.json", "w"), indent=2)'
expect 1 "tr-ranks: a report missing a guide row" "tr-ranks short.json" \
	"tr-ranks: short.json: 11 guide rows, but num_layers 4 x passes 3 = 12"
expect 2 "tr-ranks: --tsv and --json together" "tr-ranks --tsv --json $R" \
	"tr-ranks: --tsv and --json exclude each other"
expect 2 "tr-ranks: no report" "tr-ranks" "tr-ranks: no report given"

# ------------------------------------------------------ the heat map
run "tr-ranks --tsv --threshold 50 --svg map.svg $R"
cp "$T/out" map.tsv
expect 0 "tr-ranks --svg: the cells' values and colours are the table's (XML parse)" \
	"python3 '$ORACLE' svg map.svg map.tsv --threshold 50 --phase decode --anchor '$RX'"
expect 0 "tr-ranks --svg: the straggler is the darkest cell, every other white" \
	"python3 '$ORACLE' heat map.svg --darkest L1:2"
expect 2 "tr-ranks --svg: an existing file is not overwritten" \
	"tr-ranks --svg map.svg $R" "tr-ranks: map.svg: File exists"
expect 1 "tr-ranks --svg: a refused set writes no map" \
	"tr-ranks --svg none.svg $R l3.json.layers.json" "differs from the other reports'"
absent "tr-ranks --svg: no map and no temporary file after a refusal" none.svg
no_temp "tr-ranks --svg: no temporary file" .

CHROMIUM=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null) ||
	CHROMIUM=
if [ -z "$CHROMIUM" ]; then
	skip "tr-ranks --svg in a browser" \
		"chromium is not installed (scripts/install-deps.sh installs it when run as root)"
else
	size=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' map.svg)
	mkdir -p profile
	timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--no-default-browser-check --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions \
		--hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$T/profile" \
		--window-size="$size" --screenshot="$T/map.png" "file://$T/map.svg" \
		>chromium.out 2>&1
	expect 0 "tr-ranks --svg: Chromium renders it; each cell's pixels have the cell's colour" \
		"python3 '$ORACLE' png map.png map.svg"
fi

# ------------------------------------------------------ many ranks
# draw HOW SVG PNG DARKEST REPORTS...: the heat map of the reports, checked
# against their TSV (values, white noise, darker the more robust sigmas),
# the planted straggler the darkest cell with every other white, and
# rendered by rsvg-convert: the darkest pixel is the straggler's
draw() {
	how=$1 svg=$2 png=$3 dk=$4
	shift 4
	tr-ranks --tsv "$@" >"$svg.tsv"
	run "tr-ranks --svg $svg $* >/dev/null"
	expect 0 "$how: the heat map's cells are the table's; only stragglers coloured" \
		"python3 '$ORACLE' svg $svg $svg.tsv"
	expect 0 "$how: the planted straggler $dk is the darkest cell, the noise white; axes, legend" \
		"python3 '$ORACLE' heat $svg --darkest $dk"
	if [ -n "$RSVG" ]; then
		expect 0 "$how: rendered (rsvg-convert), each cell its colour, $dk the darkest pixel" \
			"rsvg-convert -o $png $svg && python3 '$ORACLE' png $png $svg --darkest $dk"
	else
		skip "$how: rendered" "rsvg-convert is not installed (Debian librsvg2-bin; scripts/install-deps.sh)"
	fi
}
RSVG=$(command -v rsvg-convert 2>/dev/null) || RSVG=

# 64 generated traces; rank 37's L2 attention kernels 72 % longer
mkdir -p many
for r in $(seq 0 63); do
	slow=
	[ "$r" != 37 ] || slow="--slow-layer 2 --slowdown 72"
	tr-gen --layers 4 --passes 3 --rank "$r" $slow -o "many/rank-$r.json" || exit 2
done
run "tr-layer-track-ranks --xargs --outdir many.out $ANCHOR 'many/rank-*.json'"
cp "$T/out" many.summary
expect 0 "64 ranks: every rank tracked; the quoted glob's ranks in numeric order (2 before 10)" \
	"test $RC = 0 && test \"\$(sed -n 's|^  ok       many/rank-\\([0-9]*\\)\\.json: .*|\\1|p' many.summary | tr '\\n' ' ')\" = \"\$(seq 0 63 | tr '\\n' ' ')\""
M64=$(echo many.out/*.layers.json)    # the shell's order: 0 1 10 11 ... 2 20
L64=""
for r in $(seq 0 63); do L64="$L64 $r=many.out/rank-$r.layers.json.gz.layers.json"; done
run "tr-ranks --tsv $M64"
python3 "$ORACLE" table $L64 >want64.tsv
same "64 ranks: columns in numeric order (0 1 2 ... 63), not the glob's; the oracle's table" \
	want64.tsv "$T/out"
expect 0 "64 ranks: tr-gen --rank 37 records rank 37; its report carries it" \
	"grep -q '\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 37, \"world_size\": 38}' many/rank-37.json &&
	 grep -q '\"rank\": 37,\$' many.out/rank-37.layers.json.gz.layers.json"
# without recorded ranks: the numbers in the names
mkdir -p norank
for f in $M64; do
	sed '/^  "rank": [0-9]*,$/d' "$f" >"norank/${f##*/}"
done
expect 0 "64 ranks, none recorded: the reports lack the member" "! grep -q '\"rank\"' norank/*"
run "tr-ranks --tsv norank/*.layers.json"
same "64 ranks, none recorded: columns in the numeric order of the names" want64.tsv "$T/out"
run "tr-ranks $M64"
cp "$T/out" t64.out
expect 0 "64 ranks: the text table fits 100 columns, the straggler 37 first, and says so" \
	"sed '1,/^\$/d' t64.out | awk 'length > 100 { exit 1 }' &&
	 sed '1,/^\$/d' t64.out | head -n 1 | grep -q '^layer  *37  ' &&
	 grep -qx 'showing [0-9]* of 64 ranks, the stragglers first, the worst first (--wide: every rank)' t64.out"
run "tr-ranks --wide $M64"
cp "$T/out" w64.out
expect 0 "64 ranks --wide: every rank, in order, the TSV's rows" \
	"! grep -q '^showing' w64.out && python3 -c '
text = open(\"w64.out\").read().split(\"\\n\\n\", 1)[1].splitlines()
tsv = open(\"want64.tsv\").read().splitlines()
assert len(text) == len(tsv)
for a, b in zip(text, tsv):
    assert [\"\" if w == \"-\" else w for w in a.split()][:65] == b.split(\"\\t\")[:65], (a[:80], b[:80])
'"
draw "64 ranks" m64.svg m64.png L2:37 $M64

# 8 and 512 ranks: small reports written directly; the 512 record their
# ranks, which differ from the numbers in their names
python3 "$ORACLE" reports r8 --ranks 8 --layers 4 --slow 5:1:72
draw "8 ranks" m8.svg m8.png L1:5 r8/*.json
expect 0 "8 ranks: the cells are wide enough for their numbers" \
	"grep -q 'data-layer=\"L1\" data-rank=\"5\".*</title><text [^>]*>[0-9]*\\.[0-9]*</text></g>' m8.svg"
python3 "$ORACLE" reports r512 --ranks 512 --layers 6 --slow 300:2:72 --recorded
run "tr-ranks --tsv r512/*.json"
cp "$T/out" r512.tsv
expect 0 "512 ranks: columns in the order of the ranks the reports record, named by them" \
	"test \"\$(head -n 1 r512.tsv)\" = \"\$(printf 'layer'; for r in \$(seq 0 511); do printf '\\t%s' \$r; done; printf '\\tmedian\\tstragglers')\""
run "tr-ranks r512/*.json"
cp "$T/out" t512.out
f300=$(sed -n 's/^rank 300: \(rank-[0-9]*\.json\) .*/\1/p' t512.out)
expect 0 "512 ranks: rank 300's line names the report that records rank 300 ($f300)" \
	"test -n '$f300' && test '$f300' != rank-300.json && grep -q '\"rank\": 300,' r512/$f300"
draw "512 ranks" m512.svg m512.png L2:300 r512/*.json
expect 0 "512 ranks: no numbers in cells 2 px wide" \
	"! grep -q 'class=\"cell\".*<text' m512.svg"

# ------------------------------------------------------ real rank traces
if [ -r "$TRACES/sampled_rank-0.json.gz" ] && [ -r "$TRACES/sampled_rank-1.json.gz" ]; then
	# two ranks of one recommendation-model job: 8 layer norms in 2 steps each
	run "tr-layer-track-ranks --outdir real --anchor-regex vectorized_layer_norm_kernel \
		--num-layers 4 --passes 2 --anchor-offset 0 --phase training \
		--evidence 'PROFILE.md: 8 layer norms in 2 steps' \
		'$TRACES/sampled_rank-0.json.gz' '$TRACES/sampled_rank-1.json.gz'"
	cp "$T/out" real.out
	expect 0 "real ranks (sampled_rank-0/1): both verified, 4 layers x 2 passes each" \
		"test $RC = 0 && test \$(grep -c ': 4 layers x 2 passes = 8 guides (8 matching anchors); verified' real.out) = 2"
	run "tr-ranks --tsv real/sampled_rank-0.layers.json.gz.layers.json real/sampled_rank-1.layers.json.gz.layers.json"
	python3 "$ORACLE" table 0=real/sampled_rank-0.layers.json.gz.layers.json \
		1=real/sampled_rank-1.layers.json.gz.layers.json >want.tsv
	same "real ranks: tr-ranks' table is the oracle's" want.tsv "$T/out"
else
	skip "real rank traces" "$TRACES/sampled_rank-0.json.gz and -1 are absent"
fi
