# Shared helpers for the end-to-end tests (POSIX sh).  Each test file is
# sourced by run.sh with BIN (the programs), ROOT (the repository), T (a
# scratch directory) and TRACES (../shared/traces, possibly absent) set.
# Results are counted in $T/../results: one line per case, "pass" or "fail".

LC_ALL=C
export LC_ALL

# The oracles are python; call the interpreter itself, not a version
# manager's shim in PATH (pyenv's costs 0.4 s a call).
PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PYTHON=
python3() { command "${PYTHON:-python3}" "$@"; }

# stderr_is NAME LINE: stderr of the last run is exactly that one line.
stderr_is() {
	printf '%s\n' "$2" >"$T/want.err"
	if cmp -s "$T/want.err" "$T/err"; then
		pass "$1"
	else
		fail "$1" "stderr: $(head -c 400 "$T/err")" "wanted: $2"
	fi
}

pass() {
	echo pass >>"$RESULTS"
	[ -z "${VERBOSE:-}" ] || echo "ok   - $1"
}

fail() {
	echo fail >>"$RESULTS"
	echo "FAIL - $1"
	shift
	for line in "$@"; do echo "       $line"; done
}

skip() {
	echo skip >>"$RESULTS"
	echo "SKIP - $1: $2"
}

# run CMD...: run a command line with sh, keep stdout in $T/out, stderr in
# $T/err and the exit status in $RC.
run() {
	RC=0
	sh -c "$1" >"$T/out" 2>"$T/err" || RC=$?
}

# expect STATUS NAME CMD [STDERR-TEXT]: the exit status must be STATUS and, if
# given, stderr must contain STDERR-TEXT (fixed string).
expect() {
	want=$1 name=$2 cmd=$3 text=${4:-}
	run "$cmd"
	if [ "$RC" != "$want" ]; then
		fail "$name" "exit status $RC, wanted $want" "stderr: $(head -c 400 "$T/err")"
		return 1
	fi
	if [ -n "$text" ] && ! grep -qF -- "$text" "$T/err"; then
		fail "$name" "stderr lacks: $text" "stderr: $(head -c 400 "$T/err")"
		return 1
	fi
	pass "$name"
}

# same NAME FILE-A FILE-B: byte-identical files.
same() {
	if cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$2 and $3 differ" "$(diff "$2" "$3" 2>/dev/null | head -5)"
	fi
}

# json_equal NAME A B: equal as JSON with number text kept (python oracle).
json_equal() {
	if python3 "$ROOT/tests/e2e/json_equal.py" "$2" "$3" 2>"$T/oracle"; then
		pass "$1"
	else
		fail "$1" "$(cat "$T/oracle")"
	fi
}

# absent NAME PATH...: none of the paths exist.
absent() {
	name=$1
	shift
	for p in "$@"; do
		if [ -e "$p" ] || [ -L "$p" ]; then
			fail "$name" "$p exists"
			return 1
		fi
	done
	pass "$name"
}

# no_temp NAME DIR: no temporary output file left in DIR.
no_temp() {
	if ls -a "$2" | grep -q '\.tmp\.'; then
		fail "$1" "temporary file left in $2: $(ls -a "$2" | grep '\.tmp\.')"
	else
		pass "$1"
	fi
}

# temp_open DIR: a program has a temporary output open in DIR: a hidden
# ".NAME.tmp.XXXXXX", or an unnamed file (O_TMPFILE), which only the
# kernel's list of open files shows ("DIR/#INODE (deleted)").
temp_open() {
	ls -a "$1" | grep -q '\.tmp\.' && return 0
	ls -l /proc/[0-9]*/fd 2>/dev/null | grep -qF -- " $1/#"
}
