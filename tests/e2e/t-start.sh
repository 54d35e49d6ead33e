# t-start: a newcomer's first steps.  `make` with a package missing names
# it before compiling anything; the demo's closing lines are commands that
# run as printed, installed or not; `make check`'s step lines and closing
# "N passed, N failed, N skipped" add up (scripts/check-step.sh on made-up
# step logs).

# ok NAME TEST...: the test command succeeds.
ok() {
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "failed: $*"; fi
}

# make without the environment of a make that runs this suite (its jobserver
# and V=1 would change what this make prints)
tmake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$ROOT" "$@"; }

# --- the build's packages ---------------------------------------------------
if ! command -v make >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
	skip "missing packages" "make or cc is not installed"
elif [ ! -e /usr/include/jsmn.h ] || [ ! -e /usr/include/check.h ]; then
	skip "missing packages" "jsmn.h or check.h is not in /usr/include (the test hides them from there)"
else
	# a compiler that sees /usr/include without jsmn.h and check.h, as if
	# libjsmn-dev and check were not installed
	mkdir "$T/inc"
	for f in /usr/include/*; do ln -s "$f" "$T/inc/"; done
	rm "$T/inc/jsmn.h" "$T/inc/check.h"
	ma=$(cc -print-multiarch 2>/dev/null)
	cc_hidden="cc -nostdinc -isystem $(cc -print-file-name=include) ${ma:+-isystem $T/inc/$ma} -isystem $T/inc"

	RC=0
	tmake B="$T/b" CC="$cc_hidden" all >"$T/out" 2>"$T/err" || RC=$?
	ok "missing libjsmn-dev: make stops, exit 2" test "$RC" = 2
	ok "missing libjsmn-dev: the package, the header and the way to install it" test \
		"$(head -n 2 "$T/err")" = "trace-layers: missing packages: libjsmn-dev (no jsmn.h)
install them: sudo sh scripts/install-deps.sh build (or: sudo apt-get install libjsmn-dev)"
	ok "missing libjsmn-dev: then make's own line, nothing else" test \
		"$(sed -n '3,$p' "$T/err" | grep -cv '^make: \*\*\* ')" = 0
	ok "missing libjsmn-dev: before anything is compiled" test \
		"$(find "$T/b" -name '*.o' | wc -l)" = 0
	ok "missing libjsmn-dev: no compile line" test "$(grep -c 'CC\|jsmn.h:' "$T/out")" = 0

	RC=0
	tmake B="$T/b" CC="$cc_hidden" "$T/b/test-deps.ok" >"$T/out" 2>"$T/err" || RC=$?
	ok "missing check (the unit tests' library): exit 2, named with the check job" test \
		"$RC:$(head -n 2 "$T/err")" = "2:trace-layers: missing packages: check (no check.h)
install them: sudo sh scripts/install-deps.sh check (or: sudo apt-get install check)"

	RC=0
	tmake B="$T/b" "$T/b/build-deps.ok" >"$T/out" 2>"$T/err" || RC=$?
	ok "every package there: the look-up passes silently" test \
		"$RC:$(cat "$T/out" "$T/err")" = "0:"
	ok "every package there: it is not repeated" test -f "$T/b/build-deps.ok"
fi

# --- the demo's closing lines -----------------------------------------------
# demo_cmds: the commands the demo printed last (its lines that start with two
# spaces, after "== done")
demo_cmds() { sed -n '/^== done/,$p' "$1" | sed -n 's/^  //p'; }

# run_printed DIR FILE NAME: run every command in FILE from DIR as printed;
# tr-serve ones until they print their local address
run_printed() {
	d=$1 list=$2 name=$3 n=0
	while IFS= read -r cmd; do
		n=$((n + 1))
		case $cmd in
		*tr-serve\ *)
			# emptied first: the child's own redirection may come after
			# the first look, which would find the previous address
			: >"$T/serve.out"
			(cd "$d" && exec sh -c "exec $cmd") >"$T/serve.out" 2>&1 &
			spid=$!
			# a guard against a hang, not a timing: it ends at the address
			i=0
			while [ $i -lt 600 ] && ! grep -q 'http://127\.0\.0\.1:[0-9]*/' "$T/serve.out" &&
				kill -0 $spid 2>/dev/null; do
				sleep 0.1
				i=$((i + 1))
			done
			if grep -q 'http://127\.0\.0\.1:[0-9]*/' "$T/serve.out"; then
				pass "$name: $cmd serves"
			else
				fail "$name: $cmd serves" "$(head -c 400 "$T/serve.out")"
			fi
			kill $spid 2>/dev/null
			wait $spid 2>/dev/null
			;;
		*)
			if (cd "$d" && sh -c "$cmd") >"$T/cmd.out" 2>&1; then
				pass "$name: $cmd"
			else
				fail "$name: $cmd" "$(tail -c 400 "$T/cmd.out")"
			fi
			;;
		esac
	done <"$list"
	ok "$name: four commands printed" test "$n" = 4
}

# not installed: a new shell's PATH has neither the programs nor the scripts;
# the demo runs from a checkout (scripts/, build/bin) as `make demo` does
bare_path=$(printf '%s\n' "$PATH" | tr ':' '\n' | grep -vxF "$BIN" | grep -vxF "$ROOT/scripts" |
	paste -sd: -)
mkdir -p "$T/co/build"
ln -s "$BIN" "$T/co/build/bin"
ln -s "$ROOT/scripts" "$T/co/scripts"
if (cd "$T/co" && PATH=$bare_path sh scripts/demo.sh build/bin) >"$T/demo.out" 2>"$T/demo.err"; then
	pass "demo from a checkout: exit 0"
	demo_cmds "$T/demo.out" >"$T/cmds"
	ok "demo from a checkout: viewing its output is the first command, by path" \
		test "$(head -n 1 "$T/cmds")" = "build/bin/tr-serve demo/trace.view.json.gz"
	ok "demo from a checkout: the one-line command by its path beside the demo" \
		grep -q '^scripts/tr-layer-track --trace demo/trace.json.gz ' "$T/cmds"
	ok "demo from a checkout: the way to type the names alone is its last line" test \
		"$(tail -n 1 "$T/demo.out")" = "to type the names alone: make install PREFIX=~/.local, and ~/.local/bin in PATH (README: Quick start)"
	PATH=$bare_path run_printed "$T/co" "$T/cmds" "demo from a checkout"
else
	fail "demo from a checkout: exit 0" "$(tail -c 400 "$T/demo.err")"
fi

# installed: the programs in PATH, by name
mkdir "$T/inst"
if (cd "$T/inst" && sh "$ROOT/scripts/demo.sh" "$BIN") >"$T/demo.out" 2>"$T/demo.err"; then
	demo_cmds "$T/demo.out" >"$T/cmds"
	ok "demo, installed: the commands by name" test \
		"$(head -n 1 "$T/cmds")" = "tr-serve demo/trace.view.json.gz"
	ok "demo, installed: no install hint" test \
		"$(grep -c 'make install' "$T/demo.out")" = 0
	run_printed "$T/inst" "$T/cmds" "demo, installed"
else
	fail "demo, installed: exit 0" "$(tail -c 400 "$T/demo.err")"
fi

# --- make check's lines -----------------------------------------------------
cs() { sh "$ROOT/scripts/check-step.sh" "$T/cs" "$@"; }
mkdir "$T/cs"
cs run deps sh -c 'echo "install-deps: note: chromium is not installed"'
cs run build sh -c 'echo "  CC      build/common/x.o"; echo "gzip backend: ISA-L (GZIP=isal)"'
cs run unit sh -c 'echo "  CC      build/tests/check_a"; echo "== build/tests/check_a"; echo "100%: Checks: 12, Failures: 0, Errors: 0"
	echo "== build/tests/check_b"; echo "90%: Checks: 10, Failures: 1, Errors: 0"; exit 1'
cs run e2e sh -c 'echo "SKIP - x: no traces"; echo "e2e: 30 passed, 0 failed, 2 skipped"'
cs run man-examples sh -c 'echo "man examples: 5 passed, 0 failed, 1 skipped"'
cs run lint sh -c 'echo "man pages: 16 clean"; echo "cppcheck: clean"'
cs run fuzz-replay sh -c 'echo "build-fuzz/replay/fuzz_decode: 7 inputs replayed"
	echo "build-fuzz/replay/fuzz_tsnum: 3 inputs replayed"'
cs run valgrind sh -c 'echo "gzip backend: ISA-L (GZIP=isal)"; echo "valgrind ok: tr-decode"; echo "valgrind ok: tr-encode"'
cs run ubsan sh -c 'echo "runtime error: boom"; exit 2'
cs show deps >"$T/out"
ok "check: the set-up's line, not counted" test "$(cat "$T/out")" = "deps: ok"
cs show build >"$T/out"
ok "check: the build's line names the gzip backend, not counted" test "$(cat "$T/out")" = \
	"build: gzip backend: ISA-L (GZIP=isal)"
cs show e2e >"$T/out"
ok "check: e2e's line, with where its skips are listed" test "$(cat "$T/out")" = \
	"e2e: 30 passed, 0 failed, 2 skipped (the skips: $T/cs/e2e.log)"
cs show lint >"$T/out"
ok "check: lint's line" test "$(cat "$T/out")" = "lint: 16 man pages clean; cppcheck clean"
cs show fuzz-replay >"$T/out"
ok "check: fuzz-replay's line" test "$(cat "$T/out")" = "fuzz-replay: 10 inputs replayed"
cs show valgrind >"$T/out"
ok "check: valgrind's line (its make's gzip line left out)" test "$(cat "$T/out")" = "valgrind: 2 programs under valgrind, 0 failed"
RC=0
cs show unit >"$T/out" || RC=$?
ok "check: a failed unit step shows its output but the compile lines, then its line, and fails" test "$RC:$(cat "$T/out")" = \
	"1:== unit failed; its output ($T/cs/unit.log):
== build/tests/check_a
100%: Checks: 12, Failures: 0, Errors: 0
== build/tests/check_b
90%: Checks: 10, Failures: 1, Errors: 0
unit: 2 runners, 22 checks, 1 failures: FAILED, its log above ($T/cs/unit.log)"
RC=0
cs show ubsan >"$T/out" || RC=$?
ok "check: a step that failed without counts counts one failure" test "$RC:$(tail -n 1 "$T/out")" = \
	"1:ubsan: FAILED, its log above ($T/cs/ubsan.log)"
RC=0
cs total >"$T/out" || RC=$?
# 21 unit + 30 e2e + 5 man examples + 17 lint + 10 inputs + 2 valgrind
ok "check: the closing line sums every step, and the status says it failed" test \
	"$RC:$(cat "$T/out")" = "1:failed: ubsan, unit (each one's output is above)
85 passed, 2 failed, 3 skipped"
rm "$T/cs/unit.counts" "$T/cs/ubsan.counts"
RC=0
cs total >"$T/out" || RC=$?
ok "check: all passed: the closing line alone, exit 0" test "$RC:$(cat "$T/out")" = "0:64 passed, 0 failed, 3 skipped"
