# The module graph (scripts/deps.py, from the #include "x.h" lines of
# common/ and filters/) has no cycle: every module sits above everything it
# includes; and no folder of common/ uses one after it in the order.  The script itself finds a cycle, names its modules and fails,
# and passes a graph without one.

if ! command -v python3 >/dev/null 2>&1; then
	skip "deps" "python3 is not installed (scripts/install-deps.sh check)"
else

RC=0
python3 "$ROOT/scripts/deps.py" "$ROOT" >"$T/out" 2>&1 || RC=$?
if [ "$RC" = 0 ] && grep -qE '^deps: [0-9]+ modules, [0-9]+ dependencies, 0 cycles, 0 upward$' "$T/out"; then
	pass "deps: the tree's modules form no cycle"
else
	fail "deps: the tree's modules form no cycle" "exit status $RC" "$(head -c 1500 "$T/out")"
fi

# a made-up tree: a -> b -> c -> a is a cycle, d -> a is not part of it
mkdir -p "$T/tree/common" "$T/tree/filters"
printf '#include "b.h"\n' >"$T/tree/common/a.h"
printf '#include "b.h"\n#include "c.h"\n#include <stdio.h>\n' >"$T/tree/common/b.c"
printf '#include "c.h"\n#include "a.h"\n' >"$T/tree/common/c.c"
printf '#include "a.h"\n#include "missing.h"\n' >"$T/tree/filters/d.c"
RC=0
python3 "$ROOT/scripts/deps.py" "$T/tree" >"$T/out" 2>&1 || RC=$?
if [ "$RC" = 1 ] && grep -qxF 'cycle: a b c (a -> b, b -> c, c -> a)' "$T/out" &&
   grep -qxF 'deps: 4 modules, 4 dependencies, 1 cycles, 0 upward' "$T/out"; then
	pass "deps: a cycle is named and fails"
else
	fail "deps: a cycle is named and fails" "exit status $RC, wanted 1" "$(cat "$T/out")"
fi
# the cycle broken: c no longer includes a
printf '#include "c.h"\n' >"$T/tree/common/c.c"
RC=0
python3 "$ROOT/scripts/deps.py" --layers "$T/tree" >"$T/out" 2>&1 || RC=$?
if [ "$RC" = 0 ] && grep -qxF 'layer 0: c' "$T/out" && grep -qxF 'layer 3: d' "$T/out" &&
   grep -qxF 'deps: 4 modules, 3 dependencies, 0 cycles, 0 upward' "$T/out"; then
	pass "deps: without a cycle, the layers and status 0"
else
	fail "deps: without a cycle, the layers and status 0" "exit status $RC, wanted 0" "$(cat "$T/out")"
fi
# folders: core may not use json, json may use core
mkdir -p "$T/up/common/core" "$T/up/common/json" "$T/up/filters"
printf '#include "json/scan.h"\n' >"$T/up/common/core/buf.c"
printf '#include "core/io.h"\n' >"$T/up/common/json/scan.c"
printf '\n' >"$T/up/common/core/io.c"
RC=0
python3 "$ROOT/scripts/deps.py" "$T/up" >"$T/out" 2>&1 || RC=$?
if [ "$RC" = 1 ] && grep -qxF 'upward: core/buf -> json/scan' "$T/out" &&
   grep -qxF 'deps: 3 modules, 2 dependencies, 0 cycles, 1 upward' "$T/out"; then
	pass "deps: a dependency up the folders' order is named and fails"
else
	fail "deps: a dependency up the folders' order is named and fails" "exit status $RC, wanted 1" "$(cat "$T/out")"
fi
printf '\n' >"$T/up/common/core/buf.c"
RC=0
python3 "$ROOT/scripts/deps.py" "$T/up" >"$T/out" 2>&1 || RC=$?
if [ "$RC" = 0 ] && grep -qxF 'deps: 3 modules, 1 dependencies, 0 cycles, 0 upward' "$T/out"; then
	pass "deps: a folder that uses only those before it passes"
else
	fail "deps: a folder that uses only those before it passes" "exit status $RC, wanted 0" "$(cat "$T/out")"
fi
RC=0
python3 "$ROOT/scripts/deps.py" --bogus >"$T/out" 2>&1 || RC=$?
if [ "$RC" = 2 ] && grep -qF 'usage: scripts/deps.py' "$T/out"; then
	pass "deps: usage trouble exits 2"
else
	fail "deps: usage trouble exits 2" "exit status $RC" "$(cat "$T/out")"
fi

fi
