#!/bin/bash
# make bench: throughput and peak memory of the trace-layers programs on a
# generated trace of about 950 MB, side by side with gzip -dc, jq and
# python3 json.load.  Figures only: nothing here passes or fails a build.
# Usage: bench.sh BIN-DIR    (BENCH_DIR for the scratch files, default
# /tmp/tr-bench; BENCH_MB for the size; BENCH_PEERS=0 skips jq and python)
set -eu -o pipefail
BIN=$(cd "${1:-build/bin}" && pwd)
PATH=$BIN:$(cd "$(dirname "$0")" && pwd):$PATH
dir=${BENCH_DIR:-/tmp/tr-bench}
mb=${BENCH_MB:-950}
peers=${BENCH_PEERS:-1}
TIME=/usr/bin/time
mkdir -p "$dir"
cd "$dir"
rm -f out.json lt.json.gz lt.json.gz.layers.json ./*.rss

big=gen-${mb}M.json
small=gen-100M.json
gen_opts="--layers 32 --passes 2 --streams 300 --concurrency 4"
[ -s "$big" ] || tr-gen $gen_opts --target-bytes "${mb}M" -o "$big"
[ -s "$big.gz" ] || gzip -c -6 "$big" >"$big.gz"
[ -s "$small" ] || tr-gen $gen_opts --target-bytes 100M -o "$small"
bytes=$(stat -c %s "$big")
anchors=$(tr-decode "$big.gz" | grep -c '"name":"void flash_fwd_kernel<Flash_fwd_kernel_traits<128,' || true)
passes=$((anchors / 32))

# "sync; t0=$(now)": each measurement starts with the previous one's dirty
# pages written out, so that no command pays for another's writeback.
now() { date +%s.%N; }
secs() { echo "$2 - $1" | bc -l; }
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
rm -f lt.json lt.json.layers.json

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

if [ "$peers" = 1 ]; then
	echo
	sync; t0=$(now); $TIME -f %M -o jq.rss jq -c '.traceEvents[]' "$big" >/dev/null; t1=$(now)
	row "jq -c '.traceEvents[]' big.json" "$(secs "$t0" "$t1")" "$(rss jq.rss)"
	sync; t0=$(now)
	$TIME -f %M -o py.rss python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$big"
	t1=$(now)
	row "python3 json.load(big.json)" "$(secs "$t0" "$t1")" "$(rss py.rss)"
fi
