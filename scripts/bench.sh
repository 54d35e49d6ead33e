#!/bin/bash
# make bench: whole-process wall time and peak memory of tr-layer-track and
# tr-verify on four gzipped traces of about 900 MB plain each (three tr-gen
# shapes and a real trace grown with tr-gen --repeat), side by side with
# gzip -dc in the same rounds, then the CPU and peak RSS of every stage of
# tr-layer-track on each; igzip -dc, python3 json.load and tr-decode on the
# dense one; last, tr-encode's Perfetto protobuf output on each trace
# against its plain JSON output.  It prints its tables in the README's
# format.
# Figures only: nothing here passes or fails a build.
# Then the scaling cases: time per doubling of the number of (pid, device)
# groups for tr-compact and tr-survey, on tr-gen's --scale-pids and
# --scale-devices shapes; of the number of passes for the pass table
# (tr-window --list-passes, tr-encode --pass-table) and tr-survey --json; of the
# number of threads in the anchors' pid for tr-select-anchors and
# tr-guides (tests/e2e/scale_shapes.py's shapes) (linear: each row twice
# the one before).
# Usage: bench.sh BIN-DIR    (BENCH_DIR for the scratch files, default
# /tmp/tr-bench; BENCH_MB for the size of each trace in MiB, default 900
# (smaller for a quick run: BENCH_MB=100), BENCH_MB=10000 for 10 GB (about
# 1 GB of disk a trace: only the gzipped traces are kept); BENCH_SHAPES=
# "dense moe kineto real" which traces; BENCH_ROUNDS=3; BENCH_REAL the real
# trace (default ../shared/traces/nccl_data.json.gz), BENCH_REAL_REGEX and
# BENCH_REAL_LAYERS its anchors (default bn_fw_tr_1C11_singleread, 28);
# BENCH_PEERS=0 skips python;
# BENCH_PART=scaling runs only the scaling cases, BENCH_PART=ranks only the
# batch over ranks, BENCH_PART=perfetto only the Perfetto output,
# BENCH_PART=throughput the throughput traces and the Perfetto output; BENCH_SCALING=
# "groups passes tids" which scaling tables (default all three);
# BENCH_SCALE="10000 20000 40000 80000" the sizes of groups and passes,
# BENCH_SCALE_TIDS="40000 80000 160000 320000" those of threads;
# BENCH_RANKS=8 and BENCH_RANK_MB=200 the batch's traces)
set -eu -o pipefail
BIN=$(cd "${1:-build/bin}" && pwd)
PATH=$BIN:$(cd "$(dirname "$0")" && pwd):$PATH
dir=${BENCH_DIR:-/tmp/tr-bench}
mb=${BENCH_MB:-900}
peers=${BENCH_PEERS:-1}
part=${BENCH_PART:-all}
scale_sizes=${BENCH_SCALE:-10000 20000 40000 80000}
scale_tids=${BENCH_SCALE_TIDS:-40000 80000 160000 320000}
scale_tables=${BENCH_SCALING:-groups passes tids}
root=$(cd "$(dirname "$0")/.." && pwd)
scale_py=$root/tests/e2e/scale_shapes.py
TIME=/usr/bin/time
mkdir -p "$dir"
cd "$dir"
rm -f lt.json lt.json.gz lt.json.gz.layers.json ./*.rss ./*.part

# "sync; t0=$(now)": each measurement starts with the previous one's dirty
# pages written out, so that no command pays for another's writeback.
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }

# Scaling: N one-kernel groups, as one pid with N devices and as N pids.
# Each stage reads a stream decoded beforehand, so only it is timed, in CPU
# seconds (user + system), which a loaded machine disturbs less than wall
# time.
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }
# cpu_of FILE CMD...: run CMD, its CPU seconds into FILE's time
cpu_of() { local f=$1; shift; $TIME -f '%U %S' -o "$f" "$@"; }
scaling() {
	local t
	for t in $scale_tables; do
		case $t in
		groups) scaling_groups ;;
		passes) scaling_passes ;;
		tids) scaling_tids ;;
		*) echo "bench.sh: BENCH_SCALING: unknown table '$t' (groups, passes, tids)" >&2; exit 2 ;;
		esac
	done
}
# N passes of 2 layers, annotated (tr-select-anchors, tr-guides): the pass
# table, as tr-window --list-passes and tr-encode --pass-table (so every
# tr-layer-track run) write it, and tr-survey's bytes of each pass.
scaling_passes() {
	local n prev_w prev_e prev_s w e s
	local ev=(--phase bench --evidence 'scale_shapes.py: 2 layers')
	echo
	echo "scaling: N passes of 2 layers (tests/e2e/scale_shapes.py passes N, then"
	echo "         tr-select-anchors and tr-guides), CPU s; x: time over the row before"
	printf '%-8s %9s %16s %5s %22s %5s %12s %5s\n' "N" "stream" "tr-window" "x" \
		"tr-encode" "x" "tr-survey" "x"
	printf '%-8s %9s %16s %5s %22s %5s %12s %5s\n' "" "" "--list-passes" "" \
		"--pass-table" "" "--json" ""
	prev_w= prev_e= prev_s=
	for n in $scale_sizes; do
		python3 "$scale_py" passes "$n" scale.json
		tr-decode scale.json | tr-select-anchors --anchor-regex anchor_k --num-layers 2 \
			--anchor-offset 0 --passes "$n" | tr-guides "${ev[@]}" >scale.stream
		cpu_of scale.cpu tr-window --list-passes <scale.stream >/dev/null
		w=$(cpu scale.cpu)
		rm -f scale.out.json scale.out.json.layers.json
		cpu_of scale.cpu tr-encode --pass-table /dev/null -o scale.out.json <scale.stream
		e=$(cpu scale.cpu)
		cpu_of scale.cpu tr-survey --json --num-layers 2 <scale.stream >/dev/null
		s=$(cpu scale.cpu)
		printf '%-8s %6s MB %14.2f s %5s %20.2f s %5s %10.2f s %5s\n' "$n" \
			"$(( $(stat -c %s scale.stream) / 1000000 ))" \
			"$w" "${prev_w:+$(ratio "$w" "$prev_w")}" \
			"$e" "${prev_e:+$(ratio "$e" "$prev_e")}" \
			"$s" "${prev_s:+$(ratio "$s" "$prev_s")}"
		prev_w=$w prev_e=$e prev_s=$s
	done
	rm -f scale.json scale.stream scale.cpu scale.out.json scale.out.json.layers.json
}
# N threads in the anchors' pid, one event each: tr-select-anchors lists
# them, tr-guides takes the first free tid for its track.
scaling_tids() {
	local n prev_a prev_g a g
	echo
	echo "scaling: N tids in the anchors' pid (tests/e2e/scale_shapes.py tids N), CPU s;"
	echo "         x: time over the row before"
	printf '%-8s %19s %5s %12s %5s\n' "N" "tr-select-anchors" "x" "tr-guides" "x"
	prev_a= prev_g=
	for n in $scale_tids; do
		python3 "$scale_py" tids "$n" scale.json
		tr-decode scale.json >scale.stream
		cpu_of scale.cpu tr-select-anchors --anchor-regex anchor_k --num-layers 2 \
			--anchor-offset 0 --passes 2 <scale.stream >scale.sel
		a=$(cpu scale.cpu)
		cpu_of scale.cpu tr-guides --phase bench --evidence tids <scale.sel >/dev/null
		g=$(cpu scale.cpu)
		printf '%-8s %17.2f s %5s %10.2f s %5s\n' "$n" \
			"$a" "${prev_a:+$(ratio "$a" "$prev_a")}" "$g" "${prev_g:+$(ratio "$g" "$prev_g")}"
		prev_a=$a prev_g=$g
	done
	rm -f scale.json scale.stream scale.sel scale.cpu
}
scaling_groups() {
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
	# A single run's five stages already use more than one core (CPU over
	# wall), so the sum of the single walls over the cores is below what any
	# schedule can reach; the bound is the CPU time over the cores.  The
	# target is judged against the larger of the two.
	local bound
	bound=$(echo "if ($cpu / $cores > $sum / $p) $cpu / $cores else $sum / $p" | bc -l)
	printf '  tr-layer-track-ranks --jobs %d: %.2f s wall = %.2fx the sum of the walls over %d, %.2fx the CPU over %d cores
' \
		"$cores" "$wall" "$(echo "$wall * $p / $sum" | bc -l)" "$p" \
		"$(echo "$wall * $cores / $cpu" | bc -l)" "$cores"
	printf '  (a single run uses %.2f cores); batch over the reachable bound %.2f s: %.2fx (target: within 15%%: %s)\n' \
		"$(echo "$cpu / $sum" | bc -l)" "$bound" "$(echo "$wall / $bound" | bc -l)" \
		"$(if [ "$(echo "$wall <= $bound * 1.15" | bc -l)" = 1 ]; then echo met; else echo NOT met; fi)"
	rm -rf ranks-all
}
gen_opts="--layers 32 --passes 2 --streams 300 --concurrency 4"
if [ "$part" = ranks ]; then
	ranks
	exit 0
fi

# The throughput traces, about BENCH_MB MiB of JSON each, gzipped (no plain
# copy kept: BENCH_MB=10000 stores about 1 GB a trace, not 10 GB), made
# once (later runs reuse them): BENCH_SHAPES of
#   dense   tr-gen --shape dense: one event per line, 3 kernels overlapping
#   moe     tr-gen --shape moe: 6 overlapping, MoE experts, out of time
#           order, runtime args before ts, two-space indent
#   kineto  tr-gen --shape kineto: Kineto's own multi-line formatting
#   real    BENCH_REAL (a real trace, ../shared/traces/nccl_data.json.gz by
#           default) grown with tr-gen --repeat to the same size
# Each round runs, on each trace in turn, gzip -dc, tr-layer-track
# --max-gpu-lanes 10 with .gz out, with plain out, and tr-verify of the .gz
# output (BENCH_ROUNDS rounds, default 3, interleaved so that a change of
# load hits every command alike); each ratio is over that round's gzip -dc
# of the same trace; the table gives the min and the median.
zip=$(command -v igzip >/dev/null && echo "igzip -1" || echo "gzip -1")
unzip=$(command -v igzip >/dev/null && echo "igzip -dc" || echo "gzip -dc")
shapes_list=${BENCH_SHAPES:-dense moe kineto real}
rounds=${BENCH_ROUNDS:-3}
real_src=${BENCH_REAL:-$root/../shared/traces/nccl_data.json.gz}
real_regex=${BENCH_REAL_REGEX:-bn_fw_tr_1C11_singleread}
real_layers=${BENCH_REAL_LAYERS:-28}
anchor='^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,'
ev=(--phase bench --evidence 'make bench')
# gen SHAPE MB: SHAPE-MBM.json.gz and its .info (plain bytes, events, passes,
# and how it was made); 1 when the shape cannot be made here
gen() {
	local f=$1-$2M.json.gz n size
	[ -s "$f" ] && [ -s "$f.info" ] && return 0
	rm -f "$f" "$f.info"
	if [ "$1" = real ]; then
		[ -f "$real_src" ] || return 1
		size=$(gzip -dcf "$real_src" | wc -c)
		n=$(( ($2 * 1048576 + size - 1) / size ))
		tr-gen --repeat "$n" "$real_src" | $zip >"$f.part" && mv "$f.part" "$f"
		how="tr-gen --repeat $n $(basename "$real_src")"
	else
		# seed 2 for dense: with seed 1 at 900M, one pass boundary (1682)
		# is 734.6 us, within 5/4 of the anchors' rhythm of 590.6 us, and
		# tr-select-anchors refuses the selection as not whole passes
		local seed=
		[ "$1" = dense ] && seed="--seed ${BENCH_DENSE_SEED:-2}"
		tr-gen --shape "$1" $seed --target-bytes "$2M" | $zip >"$f.part" && mv "$f.part" "$f"
		how="tr-gen --shape $1${seed:+ $seed} --target-bytes $2M"
	fi
	# a dense shape begins every pass with one "Memcpy HtoD" GPU activity
	echo "$($unzip "$f" | wc -c) $(tr-decode "$f" | tail -n 1 | sed 's/.*"events":\([0-9]*\).*/\1/')" \
		"$($unzip "$f" | grep -c '"name": "Memcpy HtoD')" "$how" >"$f.info"
}
# sel_of SHAPE: the anchors' options for tr-layer-track and tr-select-anchors
sel_of() {
	local p
	if [ "$1" = real ]; then
		sel=(--anchor-regex "$real_regex" --num-layers "$real_layers" --anchor-offset 0)
	else
		read -r _ _ p _ <"$1-${mb}M.json.gz.info"
		sel=(--anchor-regex "$anchor" --num-layers 40 --anchor-offset 0 --passes "$p")
	fi
}
rss() { tail -n 1 "$1" | awk '{print int($NF/1024)}'; }  # KiB -> MiB
# timed NAME CMD...: wall seconds of CMD into $NAME.t, its peak RSS into
# $NAME.rss (the largest process of a pipeline script)
timed() {
	local n=$1 t0 t1
	shift
	sync; t0=$(now)
	$TIME -f %M -o "$n.rss" "$@" >/dev/null
	t1=$(now)
	secs "$t0" "$t1" >"$n.t"
}
# min and median of the numbers on standard input
minmed() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s\n", v[1], m }'; }
# each stage of the lanes pipeline timed where it runs: CPU (user + system)
# and peak RSS of that process alone
stages() {
	local in=$1 out=$2 tag=$3
	$TIME -f '%U %S %M' -o "$tag.decode" tr-decode "$in" |
		$TIME -f '%U %S %M' -o "$tag.select" tr-select-anchors "${sel[@]}" |
		$TIME -f '%U %S %M' -o "$tag.guides" tr-guides "${ev[@]}" |
		$TIME -f '%U %S %M' -o "$tag.compact" tr-compact --max-gpu-lanes 10 --summary /dev/null |
		$TIME -f '%U %S %M' -o "$tag.encode" tr-encode --pass-table /dev/null -o "$out"
	rm -f "$out" "$out.layers.json"
}
stage_cpu() { tail -n 1 "$1" | awk '{ printf "%.2f", $1 + $2 }'; }
stage_rss() { tail -n 1 "$1" | awk '{ print int($3 / 1024) }'; }

# ---- Perfetto protobuf output (tr-encode --format perfetto) -------------
# On each throughput trace: its JSON bytes against the .pftrace's (target:
# at most one fifth), tr-decode | tr-encode's wall time with a .pftrace
# output against a plain JSON output of the same stream (target: no
# slower; BENCH_ROUNDS rounds, the two taken in turns, min and median),
# the CPU and peak RSS of each stage in the last round (target: 64 MiB),
# the .pftrace.gz bytes, and tr-verify of the .pftrace against its source.
perfetto_bench() {
	local s f b e t0 t1 r tj tp pb gb vt
	echo
	echo "Perfetto output: $(date -u '+%Y-%m-%d %H:%M') UTC, load average before:" \
		"$(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, interleaved"
	echo "| trace | JSON bytes | \`.pftrace\` bytes (target: a fifth) | \`.pftrace.gz\` bytes |" \
		"\`tr-decode \| tr-encode\`: plain JSON out, min / median | \`.pftrace\` out (target: no slower) |" \
		"tr-encode CPU, peak RSS: JSON / \`.pftrace\` | tr-verify of the \`.pftrace\`: wall, peak RSS |"
	echo "|---|---|---|---|---|---|---|---|"
	for s in $shapes; do
		f=$s-${mb}M.json.gz
		read -r b e _ <"$f.info"
		rm -f pf.json pf.pftrace pf.pftrace.gz pfj.all pfp.all
		for r in $(seq 1 "$rounds"); do
			rm -f pf.json pf.pftrace
			sync; t0=$(now)
			$TIME -f '%U %S %M' -o pfjd.rss tr-decode "$f" |
				$TIME -f '%U %S %M' -o pfj.rss tr-encode -o pf.json
			t1=$(now); secs "$t0" "$t1" >>pfj.all
			sync; t0=$(now)
			$TIME -f '%U %S %M' -o pfd.rss tr-decode "$f" |
				$TIME -f '%U %S %M' -o pfe.rss tr-encode -o pf.pftrace
			t1=$(now); secs "$t0" "$t1" >>pfp.all
		done
		rm -f pf.json
		read -r tj tjm < <(minmed <pfj.all)
		read -r tp tpm < <(minmed <pfp.all)
		pb=$(stat -c %s pf.pftrace)
		tr-decode "$f" | tr-encode -o pf.pftrace.gz
		gb=$(stat -c %s pf.pftrace.gz)
		sync; t0=$(now)
		$TIME -f %M -o pfv.rss tr-verify --source "$f" --output pf.pftrace >/dev/null
		t1=$(now); vt=$(secs "$t0" "$t1")
		printf '| %s | %s (%s events) | %s (%.2fx smaller%s) | %s (%.1fx) | %.2f / %.2f s | %.2f / %.2f s (%.2fx / %.2fx%s) | %s s, %s MiB / %s s, %s MiB | %.2f s, %s MiB |\n' \
			"$s" "$b" "$e" "$pb" "$(echo "$b / $pb" | bc -l)" \
			"$([ "$pb" -le $((b / 5)) ] || echo ', **not a fifth**')" \
			"$gb" "$(echo "$b / $gb" | bc -l)" "$tj" "$tjm" "$tp" "$tpm" \
			"$(echo "$tp / $tj" | bc -l)" "$(echo "$tpm / $tjm" | bc -l)" \
			"$([ "$(echo "$tp <= $tj" | bc -l)" = 1 ] || echo ', **slower**')" \
			"$(stage_cpu pfj.rss)" "$(stage_rss pfj.rss)" "$(stage_cpu pfe.rss)" "$(stage_rss pfe.rss)" \
			"$vt" "$(rss pfv.rss)"
		rm -f pf.pftrace pf.pftrace.gz pf*.rss pfj.all pfp.all
	done
}
shapes=
for s in $shapes_list; do
	if gen "$s" "$mb"; then
		shapes="$shapes $s"
	else
		echo "bench: $s: $real_src is absent: no real trace in this run" >&2
	fi
done
if [ "$part" = perfetto ]; then
	perfetto_bench
	exit 0
fi
echo "throughput: $(nproc) cores, $(date -u '+%Y-%m-%d %H:%M') UTC, load average before:" \
	"$(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, interleaved"
for s in $shapes; do
	read -r bytes events passes how <"$s-${mb}M.json.gz.info"
	echo "  $s: $how | $zip: $bytes bytes plain, $(stat -c %s "$s-${mb}M.json.gz") gzipped, $events events"
done
rm -f ./*.t ./*.rss ./*.ratio
for r in $(seq 1 "$rounds"); do
	for s in $shapes; do
		big=$s-${mb}M.json.gz
		sel_of "$s"
		timed "$s.gz" gzip -dc "$big"
		g=$(cat "$s.gz.t")
		echo "$g" >>"$s.gz.all"
		rm -f lt.json.gz lt.json.gz.layers.json lt.json lt.json.layers.json
		timed "$s.ltz" tr-layer-track --trace "$big" --output lt.json.gz "${sel[@]}" "${ev[@]}" \
			--max-gpu-lanes 10 --no-verify
		timed "$s.v" tr-verify --source "$big" --output lt.json.gz
		timed "$s.ltp" tr-layer-track --trace "$big" --output lt.json "${sel[@]}" "${ev[@]}" \
			--max-gpu-lanes 10 --no-verify
		rm -f lt.json.gz lt.json.gz.layers.json lt.json lt.json.layers.json
		for k in ltz ltp v; do
			t=$(cat "$s.$k.t")
			echo "$t" >>"$s.$k.all"
			echo "$t / $g" | bc -l >>"$s.$k.ratio"
			rss "$s.$k.rss" >>"$s.$k.rssall"
		done
		printf '  round %s %-7s gzip -dc %6.2f s; .gz out %6.2f s (%.2fx); tr-verify %6.2f s (%.2fx); plain out %6.2f s (%.2fx)\n' \
			"$r" "$s" "$g" "$(cat "$s.ltz.t")" "$(tail -n 1 "$s.ltz.ratio")" \
			"$(cat "$s.v.t")" "$(tail -n 1 "$s.v.ratio")" \
			"$(cat "$s.ltp.t")" "$(tail -n 1 "$s.ltp.ratio")"
	done
done
for s in $shapes; do
	sel_of "$s"
	stages "$s-${mb}M.json.gz" st.json.gz "$s.st"
done
# cell FILE-STEM TARGET: "min / median (min seconds)", and how many rounds
# went over the target
cell() {
	local rmin rmed smin over
	read -r rmin rmed < <(minmed <"$1.ratio")
	read -r smin _ < <(minmed <"$1.all")
	over=$(awk -v t="$2" '$1 > t { n++ } END { print n + 0 }' "$1.ratio")
	printf '%.2fx / %.2fx (%.2f s)' "$rmin" "$rmed" "$smin"
	[ "$over" = 0 ] || printf ', **over %sx in %s of %s**' "$2" "$over" "$rounds"
}
echo
echo "Copy into the README (min / median of $rounds rounds; ratio over gzip -dc of the same round;"
echo "$(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)):"
echo
echo "| trace ($rounds rounds, min / median) | size | \`gzip -dc\` | tr-layer-track, \`.gz\` out (target 1.5x) | plain out (target 1.5x) | tr-verify (target 1.0x) | peak RSS: tr-layer-track / tr-verify |"
echo "|---|---|---|---|---|---|---|"
for s in $shapes; do
	read -r bytes events passes how <"$s-${mb}M.json.gz.info"
	read -r gmin gmed < <(minmed <"$s.gz.all")
	target=1.5 vt=1.0
	[ "$s" = kineto ] && target=1.0
	printf '| %s (`%s`) | %s MB, %s M events | %.2f / %.2f s | %s | %s | %s | %s / %s MiB |\n' \
		"$s" "$how" "$((bytes / 1000000))" "$(awk -v e="$events" 'BEGIN { printf "%.2f", e / 1e6 }')" \
		"$gmin" "$gmed" "$(cell "$s.ltz" "$target")" "$(cell "$s.ltp" "$target")" \
		"$(cell "$s.v" "$vt")" "$(sort -n "$s.ltz.rssall" | tail -n 1)" "$(sort -n "$s.v.rssall" | tail -n 1)"
done
echo
echo "| stage: CPU s (user + system), peak RSS (target 64 MiB) |$(for s in $shapes; do printf ' %s |' "$s"; done)"
echo "|---|$(for s in $shapes; do printf -- '---|'; done)"
for st in decode select guides compact encode; do
	name=tr-$st
	[ "$st" = select ] && name=tr-select-anchors
	[ "$st" = compact ] && name="tr-compact --max-gpu-lanes 10"
	[ "$st" = encode ] && name="tr-encode --pass-table FILE -o OUT.json.gz"
	printf '| `%s` |' "$name"
	for s in $shapes; do
		printf ' %s s, %s MiB |' "$(stage_cpu "$s.st.$st")" "$(stage_rss "$s.st.$st")"
	done
	echo
done
printf '| all five |'
for s in $shapes; do
	t=0
	for st in decode select guides compact encode; do t=$(echo "$t + $(stage_cpu "$s.st.$st")" | bc -l); done
	printf ' %.2f s |' "$t"
done
echo
rm -f ./*.t ./*.rss ./*.ratio ./*.all ./*.rssall ./*.st.*
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# The dense trace alone: igzip, python's json.load, tr-decode and a window.
big=dense-${mb}M.json.gz
if [ -s "$big" ]; then
	read -r bytes events passes _ <"$big.info"
	sel_of dense
	sync; t0=$(now); $TIME -f %M -o gz.rss gzip -dc "$big" >/dev/null; t1=$(now)
	gz=$(secs "$t0" "$t1")
	ratio_gz() { printf '%.2fx' "$(echo "$1 / $gz" | bc -l)"; }
	rate() { echo "scale=0; $bytes / $1 / 1000000" | bc -l; }
	row() { printf '%-58s %8.2f s %6s %5s MB/s %8s MiB  %s\n' "$1" "$2" \
		"${gz:+$(ratio_gz "$2")}" "$(rate "$2")" "$3" "${4:-}"; }
	printf '%-58s %10s %6s %10s %12s\n' "dense: command (whole process, one run)" "wall" "x gzip" "plain rate" "peak RSS"
	row "gzip -dc big.json.gz" "$gz" "$(rss gz.rss)"
	if command -v igzip >/dev/null; then
		sync; t0=$(now); $TIME -f %M -o igz.rss igzip -dc "$big" >/dev/null; t1=$(now)
		row "igzip -dc big.json.gz" "$(secs "$t0" "$t1")" "$(rss igz.rss)"
	fi
	if [ "$peers" = 1 ] && [ "$mb" -le 3000 ]; then
		sync; t0=$(now)
		$TIME -f %M -o py.rss python3 -c 'import gzip,json,sys; json.load(gzip.open(sys.argv[1]))' "$big"
		t1=$(now)
		row "python3 json.load(gzip.open(big.json.gz))" "$(secs "$t0" "$t1")" "$(rss py.rss)"
	fi
	sync; t0=$(now); $TIME -f %M -o dec.rss tr-decode "$big" >/dev/null; t1=$(now)
	row "tr-decode big.json.gz" "$(secs "$t0" "$t1")" "$(rss dec.rss)"
	rm -f lt.json.gz lt.json.gz.layers.json w.json.gz w.json.gz.window.json
	tr-layer-track --trace "$big" --output lt.json.gz "${sel[@]}" "${ev[@]}" --max-gpu-lanes 10 \
		--no-verify >/dev/null
	sync; t0=$(now)
	tr-decode lt.json.gz | $TIME -f %M -o w.rss tr-window --pass 3 2>/dev/null | tr-encode -o w.json.gz
	t1=$(now)
	row "tr-decode OUT.json.gz | tr-window --pass 3 | tr-encode" "$(secs "$t0" "$t1")" "$(rss w.rss)" \
		"(tr-window's RSS)"
	rm -f lt.json.gz lt.json.gz.layers.json w.json.gz w.json.gz.window.json ./*.rss
	echo
fi

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

[ "$part" = throughput ] || ranks
[ "$part" = throughput ] || scaling

[ "$part" = scaling ] || [ "$part" = ranks ] || perfetto_bench
