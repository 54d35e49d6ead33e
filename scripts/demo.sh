#!/bin/sh
# make demo: generate a Kineto-shaped trace and run the main job on it.
# Usage: demo.sh BIN-DIR   (writes into ./demo/, which it replaces)
set -eu
# the commands printed at the end name the programs as the caller can run
# them: by name when they are installed in the caller's PATH, else by their
# paths here (the C programs in BIN-DIR, the one-line commands beside this
# script, which find BIN-DIR's programs as ../build/bin)
given=${1:-build/bin}
if command -v tr-serve >/dev/null 2>&1 && command -v tr-layer-track >/dev/null 2>&1; then
	run= srun=
else
	run=${given%/}/
	case $0 in */*) srun=${0%/*}/ ;; *) srun=./ ;; esac
fi
BIN=$(cd "$given" && pwd)
PATH=$BIN:$(cd "$(dirname "$0")" && pwd):$PATH
out=demo
rm -rf "$out"
mkdir -p "$out"

echo "== generate: 2 passes of a 4-layer model on 1 GPU, 8 streams"
tr-gen --layers 4 --passes 2 --streams 8 --concurrency 3 -o "$out/trace.json"
gzip -c "$out/trace.json" >"$out/trace.json.gz"
ls -l "$out/trace.json" "$out/trace.json.gz"

echo "== decode | encode (gzip in, plain out)"
tr-decode "$out/trace.json.gz" | tr-encode -o "$out/roundtrip.json"
tail_line=$(tr-decode "$out/trace.json.gz" | tail -n 1)
echo "tail record: $tail_line"

echo "== compare: the events and top-level members of both are identical"
# the source name, size and digest differ by nature; everything else must not
normalise() { sed -e 's/"source":"[^"]*",//' -e 's/,"source_bytes":.*$/}/'; }
tr-decode "$out/trace.json" | normalise >"$out/a.stream"
tr-decode "$out/roundtrip.json" | normalise >"$out/b.stream"
if cmp -s "$out/a.stream" "$out/b.stream"; then
	echo "identical: $(($(wc -l <"$out/a.stream") - 2)) events and the top-level members"
else
	echo "demo: round trip differs" >&2
	exit 1
fi
rm -f "$out/a.stream" "$out/b.stream"

echo "== layer guides: L0..L3 on each of the 2 passes, anchored on the attention kernel"
tr-layer-track --trace "$out/trace.json.gz" --output "$out/trace.guides.json.gz" \
	--anchor-regex '^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,' \
	--num-layers 4 --anchor-offset 0 --passes 2 \
	--phase decode --evidence 'tr-gen --layers 4: one flash_fwd_kernel<128,...> per layer'
echo "guides:"
tr-decode "$out/trace.guides.json.gz" | grep '"cat":"layer_guide"' |
	sed 's/.*"name":"\(L[0-9]*\)".*"ts":\([0-9]*\),"dur":\([0-9]*\).*"pass_index":\([0-9]*\).*/  pass \4 \1 ts=\2us dur=\3us/'
echo "== compact view: the 8 stream rows packed into at most 4 synthetic lanes, verified"
tr-compact-track --trace "$out/trace.guides.json.gz" --output "$out/trace.view.json.gz" \
	--max-gpu-lanes 4
echo "== a survey of the anchors, the step before choosing one (top 2)"
tr-decode "$out/trace.json.gz" | tr-survey --num-layers 4 --top 2
anchor='^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,'
echo "== done: outputs in $out/ (trace.view.json.gz: the guides and the compact lanes)"
echo "view it (prints a local address to open in a browser; Ctrl-C stops it):"
echo "  ${run}tr-serve $out/trace.view.json.gz"
echo "the three steps on your own trace (put its path for $out/trace.json.gz; tr-survey finds the anchor and the counts):"
echo "  ${run}tr-decode $out/trace.json.gz | ${run}tr-survey --num-layers 4"
echo "  ${srun}tr-layer-track --trace $out/trace.json.gz --output $out/mine.layers.json.gz --anchor-regex '$anchor' --num-layers 4 --passes 2 --anchor-offset 0 --phase decode --evidence 'one per layer'"
echo "  ${run}tr-serve $out/mine.layers.json.gz"
[ -z "$run" ] || echo "to type the names alone: make install PREFIX=~/.local, and ~/.local/bin in PATH (README: Quick start)"
