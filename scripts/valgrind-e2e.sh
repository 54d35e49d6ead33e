#!/bin/sh
# The main pipelines once under valgrind memcheck on a small generated trace:
# no invalid access, no uninitialised use, no leak.  Used by make check.
# Usage: valgrind-e2e.sh BIN-DIR
set -eu
BIN=$(cd "${1:-build/bin}" && pwd)
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed; skipped"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tr-valgrind.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
vg="valgrind --quiet --error-exitcode=100 --leak-check=full --errors-for-leak-kinds=definite,indirect"
vg="$vg --show-leak-kinds=definite,indirect --trace-children=no"
failed=0
run() {
	name=$1
	shift
	if sh -c "$*" 2>"$work/err"; then
		echo "valgrind ok: $name"
	else
		echo "valgrind FAILED: $name"
		head -40 "$work/err"
		failed=1
	fi
}
"$BIN/tr-gen" --layers 3 --passes 2 --streams 6 --concurrency 3 --draft-passes 1 -o "$work/t.json"
gzip -c "$work/t.json" >"$work/t.json.gz"
anchor='^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,'
run tr-decode "$vg $BIN/tr-decode $work/t.json.gz >$work/s"
run tr-select-anchors "$vg $BIN/tr-select-anchors --anchor-regex '$anchor' --num-layers 3 \
	--anchor-offset 0 --passes 2 <$work/s >$work/a"
run tr-guides "$vg $BIN/tr-guides --phase p --evidence e <$work/a >$work/g"
run tr-compact "$vg $BIN/tr-compact --max-gpu-lanes 4 <$work/g >$work/c"
run tr-encode "$vg $BIN/tr-encode -o $work/out.json.gz <$work/c"
run tr-verify "$vg $BIN/tr-verify --source $work/t.json.gz --output $work/out.json.gz >/dev/null"
run tr-window "$BIN/tr-decode $work/out.json.gz >$work/o && \
	$vg $BIN/tr-window --passes 1 <$work/o >$work/w && $BIN/tr-encode -o $work/w.json <$work/w"
run "tr-verify (window)" "$vg $BIN/tr-verify --source $work/out.json.gz --output $work/w.json >/dev/null"
run tr-survey "$vg $BIN/tr-survey --num-layers 3 <$work/s >/dev/null"
run tr-ranks "$vg $BIN/tr-ranks --json --svg $work/map.svg $work/out.json.gz.layers.json \
	$work/out.json.gz.layers.json >/dev/null"
run "tr-decode (refusal)" "printf '{\"traceEvents\":[{]}' >$work/bad.json; \
	$vg $BIN/tr-decode $work/bad.json >/dev/null 2>&1; test \$? -eq 1"
exit $failed
