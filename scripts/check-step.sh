#!/bin/sh
# The steps of `make check`, one line each.  Each step's whole output goes
# to DIR/STEP.log; its line counts what it checked, and a failed step shows
# its log before its line.  The last line sums every step:
# "N passed, N failed, N skipped".
# Usage: check-step.sh DIR run STEP CMD...   run a step (prints nothing)
#        check-step.sh DIR show STEP         its line (its log too if it failed)
#        check-step.sh DIR total             the closing line; exit 1 on a failure
set -u
dir=$1 what=$2
shift 2

# counts STEP STATUS: "passed failed skipped" and the step's summary text
# from its log.  A step that failed without a failure counted (a crash, a
# build error) counts one failure; the set-up steps (deps, build) count
# only that.
counts() {
	awk -v step="$1" -v status="$2" -v logf="$dir/$1.log" '
	function add(text) { line = line (line != "" ? "; " : "") text }
	/^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ {
		gsub(/,/, "")
		runners++; checks += $3; bad += $5 + $7; next
	}
	/^(e2e|man examples): [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {
		n = split($0, w, " ")
		ep += w[n - 5]; ef += w[n - 3]; es += w[n - 1]; suites++; next
	}
	/^valgrind ok: / { vok++; next }
	/^valgrind FAILED: / { vbad++; next }
	/^valgrind: not installed; skipped$/ { vskip++; next }
	/^man pages: [0-9]+ clean$/ { man += $3; next }
	/^cppcheck: clean$/ { cpp = "clean"; next }
	/^cppcheck: not installed; skipped$/ { cpp = "skipped"; next }
	/: [0-9]+ inputs replayed$/ { fuzz += $(NF - 2); next }
	/^gzip backend: / { if (step == "build") gz = $0; next }
	END {
		p = f = s = 0
		if (runners) {
			add(runners " runner" (runners > 1 ? "s" : "") ", " checks " checks, " bad " failures")
			p += checks - bad; f += bad
		}
		if (suites) { add(ep " passed, " ef " failed, " es " skipped"); p += ep; f += ef; s += es }
		if (vok + vbad) { add(vok + vbad " programs under valgrind, " vbad + 0 " failed"); p += vok; f += vbad }
		if (vskip) { add("valgrind not installed: skipped"); s++ }
		if (man) { add(man " man pages clean"); p += man }
		if (cpp == "clean") { add("cppcheck clean"); p++ }
		if (cpp == "skipped") { add("cppcheck not installed: skipped"); s++ }
		if (fuzz) { add(fuzz " inputs replayed"); p += fuzz }
		if (gz != "") add(gz)
		setup = step == "deps" || step == "build"
		if (setup) p = s = 0
		if (status != 0 && f == 0) f = 1
		if (status == 0 && line == "") { add("ok"); if (!setup) p++ }
		if (status != 0) line = line (line != "" ? ": " : "") "FAILED, its log above (" logf ")"
		else if (s) line = line " (the skips: " logf ")"
		print p, f, s, line
	}' "$dir/$1.log"
}

case $what in
run)
	step=$1
	shift
	st=0
	"$@" >"$dir/$step.log" 2>&1 || st=$?
	counts "$step" "$st" >"$dir/$step.counts"
	exit "$st"
	;;
show)
	read -r p f s line <"$dir/$1.counts"
	if [ "$f" -ne 0 ]; then
		# all of it but the one-line compile notes (in the file still)
		echo "== $1 failed; its output ($dir/$1.log):"
		grep -Ev '^  (CC|AR|LD) +[^ ]+$' "$dir/$1.log"
	fi
	echo "$1: $line"
	[ "$f" -eq 0 ]
	;;
total)
	tp=0 tf=0 ts=0 failed=
	for c in "$dir"/*.counts; do
		[ -f "$c" ] || continue
		read -r p f s line <"$c"
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
		[ "$f" -eq 0 ] || failed="$failed${failed:+, }$(basename "$c" .counts)"
	done
	[ -z "$failed" ] || echo "failed: $failed (each one's output is above)"
	echo "$tp passed, $tf failed, $ts skipped"
	[ "$tf" -eq 0 ]
	;;
*)
	echo "usage: check-step.sh DIR run STEP CMD... | show STEP | total" >&2
	exit 2
	;;
esac
