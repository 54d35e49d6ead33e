#!/bin/bash
# make bench: throughput and peak memory of the trace-layers programs on a
# generated trace of about 950 MB, side by side with gzip -dc, jq and
# python3 json.load.  Figures only: nothing here passes or fails a build.
# Then the scaling cases: time per doubling of the number of (pid, device)
# groups for tr-compact and tr-survey, on tr-gen's --scale-pids and
# --scale-devices shapes (linear: each row twice the one before).
# Usage: bench.sh BIN-DIR    (BENCH_DIR for the scratch files, default
# /tmp/tr-bench; BENCH_MB for the size; BENCH_PEERS=0 skips jq and python;
# BENCH_PART=scaling runs only the scaling cases, BENCH_PART=ranks only the
# batch over ranks, BENCH_PART=throughput only the rest; BENCH_SCALE="10000
# 20000 40000 80000" the sizes; BENCH_RANKS=8 and BENCH_RANK_MB=200 the
# batch's traces)
set -eu -o pipefail
BIN=$(cd "${1:-build/bin}" && pwd)
PATH=$BIN:$(cd "$(dirname "$0")" && pwd):$PATH
dir=${BENCH_DIR:-/tmp/tr-bench}
mb=${BENCH_MB:-950}
peers=${BENCH_PEERS:-1}
part=${BENCH_PART:-all}
scale_sizes=${BENCH_SCALE:-10000 20000 40000 80000}
TIME=/usr/bin/time
mkdir -p "$dir"
cd "$dir"
rm -f out.json lt.json.gz lt.json.gz.layers.json ./*.rss

# "sync; t0=$(now)": each measurement starts with the previous one's dirty
# pages written out, so that no command pays for another's writeback.
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }

# Scaling: N one-kernel groups, as one pid with N devices and as N pids.
# Each stage reads a stream decoded beforehand, so only it is timed, in CPU
# seconds (user + system), which a loaded machine disturbs less than wall
# time.
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }
scaling() {
	local shape n prev_c prev_s c s
	echo
	echo "scaling: N (pid, device) groups of one 1 us kernel each (tr-gen --scale-*), CPU s;"
	echo "         x: time over the row before (2.0 when linear, 4.0 when quadratic)"
	printf '%-15s %8s %12s %6s %12s %6s\n' "shape" "N" "tr-compact" "x" "tr-survey" "x"
	for shape in pids devices; do
		prev_c= prev_s=
		for n in $scale_sizes; do
			tr-gen "--scale-$shape" "$n" --compact | tr-decode >scale.stream
			$TIME -f '%U %S' -o scale.cpu tr-compact <scale.stream >/dev/null
			c=$(cpu scale.cpu)
			$TIME -f '%U %S' -o scale.cpu tr-survey --num-layers 1 <scale.stream >/dev/null
			s=$(cpu scale.cpu)
			printf '%-15s %8s %10.2f s %6s %10.2f s %6s\n' \
				"$([ "$shape" = pids ] && echo "N pids" || echo "1 pid, N devs")" "$n" \
				"$c" "${prev_c:+$(ratio "$c" "$prev_c")}" \
				"$s" "${prev_s:+$(ratio "$s" "$prev_s")}"
			prev_c=$c prev_s=$s
		done
	done
	rm -f scale.stream scale.cpu
}
# a / b with one decimal; "-" when b is 0 (too fast to measure)
ratio() { if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then printf '%.1f' "$(echo "$1 / $2" | bc -l)"; else echo -; fi; }
if [ "$part" = scaling ]; then
	scaling
	exit 0
fi

# The batch over ranks: BENCH_RANKS traces of BENCH_RANK_MB each (gzipped,
# as a job writes them, to spare the disk), each run alone one after the
# other, then all through tr-layer-track-ranks --jobs CORES.  The target:
# the batch's wall time is the sum of the single runs over the cores (over
# the ranks when there are fewer ranks than cores), within 15%.  Load from
# other work on the machine makes the single runs and the batch wait alike
# only when it is steady: compare figures of a quiet machine.  A single run's pipeline already uses more than one core, so
# the CPU time over the cores is printed too, the bound no schedule beats.
ranks() {
	local n=${BENCH_RANKS:-8} rmb=${BENCH_RANK_MB:-200} cores p r t0 t1 one sum=0 cpu=0 wall
	local opts=(--anchor-regex 'rotary_embedding_kernel<c10::BFloat16, true>' --num-layers 32
		--anchor-offset 0 --passes 2 --phase decode --evidence 'tr-gen: 32 layers')
	cores=$(nproc)
	p=$((cores < n ? cores : n))
	echo
	echo "batch over ranks: $n traces of ${rmb} MB (tr-gen --rank K --target-bytes ${rmb}M, gzipped)"
	mkdir -p ranks
	for r in $(seq 0 $((n - 1))); do
		[ -s "ranks/rank-$r.json.gz" ] || tr-gen $gen_opts --rank "$r" --target-bytes "${rmb}M" |
			gzip -1 >"ranks/rank-$r.json.gz"
	done
	rm -rf ranks-one ranks-all
	mkdir ranks-one
	for r in $(seq 0 $((n - 1))); do
		sync; t0=$(now)
		$TIME -f '%U %S' -o one.cpu tr-layer-track --trace "ranks/rank-$r.json.gz" \
			--output "ranks-one/rank-$r.layers.json.gz" "${opts[@]}" >/dev/null
		t1=$(now)
		one=$(secs "$t0" "$t1")
		sum=$(echo "$sum + $one" | bc -l)
		cpu=$(echo "$cpu + $(cpu one.cpu)" | bc -l)
		printf '  rank %-3s alone %8.2f s wall, %6.2f s CPU\n' "$r" "$one" "$(cpu one.cpu)"
	done
	rm -rf ranks-one one.cpu
	sync; t0=$(now)
	tr-layer-track-ranks --outdir ranks-all --jobs "$cores" "${opts[@]}" ranks/rank-*.json.gz >/dev/null
	t1=$(now)
	wall=$(secs "$t0" "$t1")
	printf '  sum of the single runs %8.2f s; over %d (cores, or ranks if fewer) %8.2f s\n' \
		"$sum" "$p" "$(echo "$sum / $p" | bc -l)"
	printf '  sum of their CPU time  %8.2f s; over %d cores %8.2f s\n' "$cpu" "$cores" \
		"$(echo "$cpu / $cores" | bc -l)"
	printf '  tr-layer-track-ranks --jobs %d: %.2f s wall = %.2fx the sum over %d (target: within 15%%: %s)\n' \
		"$cores" "$wall" "$(echo "$wall * $p / $sum" | bc -l)" "$p" \
		"$(if [ "$(echo "$wall * $p <= $sum * 1.15" | bc -l)" = 1 ]; then echo met; else echo NOT met; fi)"
	rm -rf ranks-all
}
if [ "$part" = ranks ]; then
	gen_opts="--layers 32 --passes 2 --streams 300 --concurrency 4"
	ranks
	exit 0
fi

big=gen-${mb}M.json
small=gen-100M.json
gen_opts="--layers 32 --passes 2 --streams 300 --concurrency 4"
[ -s "$big" ] || tr-gen $gen_opts --target-bytes "${mb}M" -o "$big"
[ -s "$big.gz" ] || gzip -c -6 "$big" >"$big.gz"
[ -s "$small" ] || tr-gen $gen_opts --target-bytes 100M -o "$small"
bytes=$(stat -c %s "$big")
anchors=$(tr-decode "$big.gz" | grep -c '"name":"void flash_fwd_kernel<Flash_fwd_kernel_traits<128,' || true)
passes=$((anchors / 32))

rate() { echo "scale=0; $bytes / $1 / 1000000" | bc -l; }
rss() { awk '{print int($1/1024)}' "$1"; }  # KiB -> MiB
row() { printf '%-44s %8.2f s %7s MB/s %9s MiB  %s\n' "$1" "$2" "$(rate "$2")" "$3" "${4:-}"; }

echo "trace: $big, $bytes bytes plain, $(stat -c %s "$big.gz") bytes gzipped"
echo "       ($gen_opts; $passes passes)"
echo
printf '%-44s %10s %12s %13s\n' "command" "wall" "plain rate" "peak RSS"

sync; t0=$(now); $TIME -f %M -o gz.rss gzip -dc "$big.gz" >/dev/null; t1=$(now)
gz=$(secs "$t0" "$t1"); row "gzip -dc big.json.gz" "$gz" "$(rss gz.rss)"

sync; t0=$(now); $TIME -f %M -o dec.rss tr-decode "$big.gz" >/dev/null; t1=$(now)
dec=$(secs "$t0" "$t1")
row "tr-decode big.json.gz" "$dec" "$(rss dec.rss)" "$(printf '%.2fx gzip -dc' "$(echo "$dec / $gz" | bc -l)")"

sync; t0=$(now); $TIME -f %M -o decp.rss tr-decode "$big" >/dev/null; t1=$(now)
row "tr-decode big.json" "$(secs "$t0" "$t1")" "$(rss decp.rss)"

sync; t0=$(now)
$TIME -f %M -o d.rss tr-decode "$big" | $TIME -f %M -o e.rss tr-encode -o out.json
t1=$(now)
row "tr-decode big.json | tr-encode -o out.json" "$(secs "$t0" "$t1")" \
	"$(rss d.rss) / $(rss e.rss)" "(RSS per stage)"
rm -f out.json

anchor='^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,'
sync; t0=$(now)
$TIME -f %M -o s1.rss tr-decode "$big.gz" |
	$TIME -f %M -o s2.rss tr-select-anchors --anchor-regex "$anchor" --num-layers 32 \
		--anchor-offset 0 --passes "$passes" |
	$TIME -f %M -o s3.rss tr-guides --phase bench --evidence 'tr-gen --layers 32' |
	$TIME -f %M -o s4.rss tr-encode -o lt.json
t1=$(now)
lt=$(secs "$t0" "$t1")
row "layer guides, gz in, plain out (4 stages)" "$lt" \
	"$(rss s1.rss)/$(rss s2.rss)/$(rss s3.rss)/$(rss s4.rss)" \
	"$(printf '%.2fx gzip -dc' "$(echo "$lt / $gz" | bc -l)")"
rm -f lt.json lt.json.layers.json
sync; t0=$(now)
tr-layer-track --trace "$big.gz" --output lt.json --anchor-regex "$anchor" \
	--num-layers 32 --anchor-offset 0 --passes "$passes" --phase bench \
	--evidence 'tr-gen --layers 32' --no-verify >/dev/null
t1=$(now)
lt=$(secs "$t0" "$t1")
row "tr-layer-track --no-verify, gz in, plain out" "$lt" "" \
	"$(printf '%.2fx gzip -dc (target 1.5x)' "$(echo "$lt / $gz" | bc -l)")"

sync; t0=$(now)
$TIME -f %M -o v.rss tr-verify --source "$big.gz" --output lt.json >/dev/null
t1=$(now)
v=$(secs "$t0" "$t1")
sync; t0=$(now); gzip -dc "$big.gz" >/dev/null; cat lt.json >/dev/null; t1=$(now)
both=$(secs "$t0" "$t1")
row "tr-verify (gz source, plain output)" "$v" "$(rss v.rss)" \
	"$(printf '%.2fx gzip -dc + cat of both' "$(echo "$v / $both" | bc -l)")"
# a one-pass window of the annotated trace (tr-window(1)): wall and RSS
sync; t0=$(now)
tr-decode lt.json | $TIME -f %M -o w.rss tr-window --pass 1 | tr-encode -o w.json
t1=$(now)
row "tr-decode | tr-window --pass 1 | tr-encode" "$(secs "$t0" "$t1")" "$(rss w.rss)" \
	"(tr-window's RSS; a window of $(($(wc -c <w.json) / 1048576)) MiB)"
rm -f lt.json lt.json.layers.json w.json w.json.window.json

sync; t0=$(now)
$TIME -f %M -o c1.rss tr-decode "$big.gz" |
	$TIME -f %M -o c2.rss tr-select-anchors --anchor-regex "$anchor" --num-layers 32 \
		--anchor-offset 0 --passes "$passes" |
	$TIME -f %M -o c3.rss tr-guides --phase bench --evidence 'tr-gen --layers 32' |
	$TIME -f %M -o c4.rss tr-compact --max-gpu-lanes 10 |
	$TIME -f %M -o c5.rss tr-encode -o lc.json
t1=$(now)
lc=$(secs "$t0" "$t1")
kernels=$(grep -o '"activity_count": *[0-9]*' lc.json.layers.json | sed 's/.*: *//' | paste -sd+ | bc)
row "guides + tr-compact --max-gpu-lanes 10" "$lc" \
	"$(rss c1.rss)/$(rss c2.rss)/$(rss c3.rss)/$(rss c4.rss)/$(rss c5.rss)" \
	"$(printf '%.2fx gzip -dc' "$(echo "$lc / $gz" | bc -l)")"
echo "  (tr-compact: $kernels GPU events; target 32 MiB + 48 B each =" \
	"$(echo "32 + $kernels * 48 / 1048576" | bc) MiB)"
rm -f lc.json lc.json.layers.json
sync; t0=$(now)
tr-layer-track --trace "$big.gz" --output lc.json --anchor-regex "$anchor" \
	--num-layers 32 --anchor-offset 0 --passes "$passes" --phase bench \
	--evidence 'tr-gen --layers 32' --max-gpu-lanes 10 --no-verify >/dev/null
t1=$(now)
lc=$(secs "$t0" "$t1")
row "tr-layer-track --max-gpu-lanes 10 --no-verify" "$lc" "" \
	"$(printf '%.2fx gzip -dc (target 2x)' "$(echo "$lc / $gz" | bc -l)")"
rm -f lc.json lc.json.layers.json

$TIME -f %M -o small.rss tr-decode "$small" >/dev/null
echo
echo "tr-decode peak RSS: $(rss small.rss) MiB on 100 MB, $(rss decp.rss) MiB on $mb MB (flat when equal)"

# Top-level members are held whole, one side of traceEvents at a time, up
# to --max-member-bytes (64 MiB by default; tr-decode(1)): 60 members of
# 1 MB before and 60 after go through, 300 and 300 are refused at the
# limit.  The bound: tr-decode the members plus 16 MiB; tr-encode checks
# each line into a copy, so twice the longest line plus 16 MiB.
members_doc() {
	python3 - "$1" "$2" <<'PY'
import sys
n, out = int(sys.argv[1]), sys.argv[2]
value = '"' + 'm' * (1 << 20) + '"'
with open(out, "w") as f:
    f.write("{" + "".join('"b%d":%s,' % (i, value) for i in range(n)))
    f.write('"traceEvents":[{"ph":"i","ts":1,"pid":1,"tid":1,"name":"x"}]')
    f.write("".join(',"a%d":%s' % (i, value) for i in range(n)) + "}")
PY
}
bound() { if [ "$(rss "$1")" -le "$2" ]; then echo "within $2 MiB"; else echo "OVER $2 MiB"; fi; }
[ -s members-60.json ] || members_doc 60 members-60.json
[ -s members-300.json ] || members_doc 300 members-300.json
$TIME -f %M -o md.rss tr-decode members-60.json | $TIME -f %M -o me.rss tr-encode -o members.out.json
rm -f members.out.json
$TIME -f %M -o mr.rss tr-decode members-300.json >/dev/null 2>&1 || true
tail -n 1 mr.rss >mr1.rss && mv mr1.rss mr.rss  # after "Command exited with non-zero status 1"
echo "top-level members, 2 x 60 x 1 MB: tr-decode $(rss md.rss) MiB ($(bound md.rss 80))," \
	"tr-encode $(rss me.rss) MiB ($(bound me.rss 144))"
echo "top-level members, 2 x 300 x 1 MB (refused at 64 MiB): tr-decode $(rss mr.rss) MiB" \
	"($(bound mr.rss 80))"

if [ "$peers" = 1 ]; then
	echo
	sync; t0=$(now); $TIME -f %M -o jq.rss jq -c '.traceEvents[]' "$big" >/dev/null; t1=$(now)
	row "jq -c '.traceEvents[]' big.json" "$(secs "$t0" "$t1")" "$(rss jq.rss)"
	sync; t0=$(now)
	$TIME -f %M -o py.rss python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$big"
	t1=$(now)
	row "python3 json.load(big.json)" "$(secs "$t0" "$t1")" "$(rss py.rss)"
fi

[ "$part" = throughput ] || ranks
[ "$part" = throughput ] || scaling
