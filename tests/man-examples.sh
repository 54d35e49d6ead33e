#!/bin/sh
# man-examples.sh BIN: run the EXAMPLES of every man page in man/*.1 (as jq
# tests its manual), so that an example cannot rot.  Each example (a .Dl
# line or a .Bd -literal block) runs in a directory of its own on small
# generated traces under the names the examples use, and must exit 0.
# Examples that cannot run here (a remote host, a server that does not
# exit, a gigabyte output, an elided pipeline) are skipped with the reason.
set -u
BIN=$(cd "${1:-build/bin}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PATH=$BIN:$ROOT/scripts:$PATH
export PATH
T=$(mktemp -d "${TMPDIR:-/tmp}/tr-man.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT INT TERM
pool=$T/pool
mkdir -p "$pool"
cd "$pool" || exit 2

# The traces the examples name: anchors (flash_fwd_kernel, rotary_embedding)
# at least once per layer for the layer counts they give; pids 0 and 1.
gen() { # NAME LAYERS [tr-gen options]
	name=$1 layers=$2
	shift 2
	case $name in
	*.gz) tr-gen --layers "$layers" --passes 1 "$@" | gzip -c >"$name" ;;  # a later --passes wins
	*) tr-gen --layers "$layers" --passes 1 "$@" -o "$name" ;;
	esac || { echo "man-examples: tr-gen $name failed" >&2; exit 2; }
}
gen trace.json.gz 4
gen trace.json 4
gen big.json 4
gen bert.json.gz 4
gen rank0.json.gz 4 --devices 2
gen rank1.json.gz 4 --devices 2
gen qwen3.json.gz 36
gen t.json.gz 36
gen decode.json.gz 80
# outputs of earlier runs that tr-verify's examples check
tr-layer-track --trace trace.json.gz --output trace.guides.json.gz --anchor-regex flash_fwd_kernel \
	--num-layers 4 --anchor-offset 0 --phase p --evidence e --no-verify >/dev/null &&
tr-layer-track --trace big.json --output big.guides.json --anchor-regex flash_fwd_kernel \
	--num-layers 4 --anchor-offset 0 --phase p --evidence e --no-verify >/dev/null &&
tr-compact-track --trace rank0.json.gz --output rank0.lanes.json --max-gpu-lanes 4 \
	--no-verify >/dev/null &&
# an annotated trace of 4 passes of 20 layers, and a window of it (tr-window)
gen out-src.json.gz 20 --passes 4 &&
tr-layer-track --trace out-src.json.gz --output out.json.gz --anchor-regex flash_fwd_kernel \
	--num-layers 20 --passes 4 --anchor-offset 0 --phase p --evidence e --no-verify >/dev/null &&
tr-decode out.json.gz | tr-window --pass 3 | tr-encode -o p3.json.gz &&
# the ranks of a job, and the batch's reports of them (tr-ranks)
mkdir traces &&
tr-gen --layers 36 --passes 8 --rank 0 | gzip -c >traces/rank-0.pt.trace.json.gz &&
tr-gen --layers 36 --passes 8 --rank 1 | gzip -c >traces/rank-1.pt.trace.json.gz &&
tr-layer-track-ranks --outdir out --anchor-regex rotary_embedding --num-layers 36 --passes 8 \
	--anchor-offset 0 --phase decode --evidence e traces/rank-*.pt.trace.json.gz >/dev/null 2>&1 ||
	{ echo "man-examples: preparing outputs failed" >&2; exit 2; }

# examples FILE: one example per line: a line ending in a backslash (mdoc's
# \e) or a pipe continues on the next; \e made a backslash.
examples() {
	awk '
	/^\.Sh / { on = ($2 == "EXAMPLES"); next }
	!on { next }
	/^\.Dl / { sub(/^\.Dl /, ""); print; next }
	/^\.Bd -literal/ { block = 1; cmd = ""; next }
	/^\.Ed/ { if (block && cmd != "") print cmd; block = 0; next }
	block {
		line = $0
		sub(/^ +/, "", line)
		more = 0
		if (line ~ /\\e$/) { sub(/ *\\e$/, "", line); more = 1 }
		else if (line ~ /\|$/) more = 1
		cmd = cmd (cmd != "" ? " " : "") line
		if (!more) { print cmd; cmd = "" }
	}' "$1" | sed 's/\\e/\\/g'
}

# Names an example writes: they and their reports (NAME.layers.json,
# NAME.compact.json) must not exist in its directory.  tr-verify only reads.
outputs() {
	case $1 in tr-verify*) return 0 ;; esac
	printf '%s\n' "$1" | tr ' ' '\n' | awk '
	prev == "-o" || prev == "--output" || prev == "--outdir" || prev == ">" { print }
	/^--out(put)?=/ { sub(/^[^=]*=/, ""); print }
	{ prev = $0 }'
}

# written NAME: NAME is an output of the example or a report of one.
written() {
	while IFS= read -r o; do
		case $1 in "$o" | "$o".*) return 0 ;; esac
	done <"$T/outs"
	return 1
}

pass=0 fail=0 skip=0 n=0
for page in "$ROOT"/man/*.1; do
	examples "$page" >"$T/list"
	while IFS= read -r cmd; do
		n=$((n + 1))
		why=
		case $cmd in
		*ssh\ *) why="needs a remote host" ;;
		*tr-serve*) why="a server: runs until stopped (t-serve tests it)" ;;
		*...*) why="an elided pipeline" ;;
		*--target-bytes\ 1G*) why="writes 1 GB" ;;
		*--scale-pids\ 80000*) why="a scaling run (make bench)" ;;
		*\|\ jq\ *) command -v jq >/dev/null 2>&1 || why="jq is not installed" ;;
		*\|\ column\ *) command -v column >/dev/null 2>&1 || why="column is not installed" ;;
		*rsvg-convert\ *) command -v rsvg-convert >/dev/null 2>&1 ||
			why="rsvg-convert is not installed (librsvg2-bin)" ;;
		esac
		if [ -n "$why" ]; then
			echo "SKIP - $(basename "$page"): $cmd: $why"
			skip=$((skip + 1))
			continue
		fi
		dir=$T/ex$n
		mkdir "$dir"
		outputs "$cmd" >"$T/outs"
		for f in "$pool"/*; do
			b=$(basename "$f")
			written "$b" || cp -al "$f" "$dir/$b"
		done
		if (cd "$dir" && bash -o pipefail -c "$cmd") >"$T/out" 2>&1; then
			echo "PASS - $(basename "$page"): $cmd"
			pass=$((pass + 1))
		else
			echo "FAIL - $(basename "$page"): $cmd"
			sed 's/^/    /' "$T/out" | head -n 20
			fail=$((fail + 1))
		fi
		rm -rf "$dir"
	done <"$T/list"
done
echo "man examples: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
