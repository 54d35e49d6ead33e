#!/bin/sh
# End-to-end test runner: sources every tests/e2e/t-*.sh with the helpers of
# lib.sh, then prints "N passed, N failed" (and skipped).  Exit 1 on a failure.
set -u
BIN=$(cd "${1:-build/bin}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TRACES=${TRACES:-$ROOT/../shared/traces}
PATH=$BIN:$ROOT/scripts:$PATH
export BIN ROOT TRACES PATH
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tr-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
RESULTS=$WORK/results
: >"$RESULTS"
. "$ROOT/tests/e2e/lib.sh"

if [ ! -d "$TRACES" ]; then
	echo "NOTE: $TRACES is absent: the tests on real traces are skipped"
fi
for t in "$ROOT"/tests/e2e/t-*.sh; do
	[ -n "${ONLY:-}" ] && case ${t##*/} in *"$ONLY"*) ;; *) continue ;; esac
	echo "== $(basename "$t")"
	T=$WORK/$(basename "$t" .sh)
	mkdir -p "$T"
	( . "$t" )
	rm -rf "$T"
done
passed=$(grep -c '^pass' "$RESULTS")
failed=$(grep -c '^fail' "$RESULTS")
skipped=$(grep -c '^skip' "$RESULTS")
echo "e2e: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
