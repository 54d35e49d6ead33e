# Faults: full and read-only file systems, signals to every writing program
# and to the commands.  Each must fail with a clear message, exit non-zero
# and leave no output and no temporary file.  (sourced by run.sh)

tr-gen --layers 4 --passes 2 --streams 4 --concurrency 2 -o "$T/t.json"
tr-decode "$T/t.json" >"$T/t.stream"
mnt=$T/mnt

# small_fs SIZE [OPTIONS]: a tmpfs at $mnt; 1 when mounting is not allowed
small_fs() {
	mkdir -p "$mnt"
	mount -t tmpfs -o "size=$1${2:+,$2}" tmpfs "$mnt" 2>/dev/null
}

if small_fs 16k; then
	expect 2 "tr-encode -o on a full file system: refused" \
		"tr-encode -o '$mnt/out.json' <'$T/t.stream'" "No space left on device" &&
		absent "full file system: no output" "$mnt/out.json" &&
		no_temp "full file system: no temporary file" "$mnt"
	umount "$mnt"
	small_fs 4k
	expect 2 "tr-encode -o .gz on a full file system: refused" \
		"tr-encode -o '$mnt/out.json.gz' <'$T/t.stream'" "No space left on device" &&
		no_temp "full file system (gzip): no temporary file" "$mnt"
	umount "$mnt"
	small_fs 16k
	expect 2 "tr-gen -o on a full file system: refused" \
		"tr-gen --layers 8 -o '$mnt/g.json'" "No space left on device" &&
		absent "tr-gen on a full file system: no output" "$mnt/g.json" &&
		no_temp "tr-gen on a full file system: no temporary file" "$mnt"
	expect 2 "tr-compact with a full TMPDIR: a clear error" \
		"TMPDIR='$mnt' tr-compact <'$T/t.stream' >/dev/null" \
		"tr-compact: temporary file: No space left on device"
	umount "$mnt"
	small_fs 1m ro
	expect 2 "tr-encode -o in a read-only directory: refused" \
		"tr-encode -o '$mnt/out.json' <'$T/t.stream'" "Read-only file system"
	umount "$mnt"
else
	skip "full and read-only file systems" "mounting a tmpfs is not allowed here"
fi

# a TMPDIR that does not exist: the stages that spill say where they tried
expect 2 "tr-compact with a missing TMPDIR: a clear error" \
	"TMPDIR='$T/none' tr-compact <'$T/t.stream' >/dev/null" \
	"tr-compact: temporary file in $T/none: No such file or directory"
expect 2 "tr-window with a missing TMPDIR: a clear error" \
	"TMPDIR='$T/none' tr-window --from 0 <'$T/t.stream' >/dev/null" \
	"tr-window: temporary file in $T/none: No such file or directory"
# tr-select-anchors keeps its matches' ts and dur texts in memory up to
# 1 MiB: a small trace needs no temporary file, 40000 matches (1.1 MiB) do
# (1000 passes of 40, 10 us apart, 1 ms more between passes: whole passes)
expect 0 "tr-select-anchors with a missing TMPDIR: a small trace needs none" \
	"TMPDIR='$T/none' tr-select-anchors --anchor-regex flash --num-layers 4 \
	 --anchor-offset 0 <'$T/t.stream' >/dev/null"
python3 - "$T/many.json" <<'PY'
import sys
ev = []
for i in range(40000):
    us = 1428625731000 + 10 * i + 1000 * (i // 40)
    ts = "%d.%s" % (us, "125"[: i % 4]) if i % 4 else str(us)
    ev.append('{"ph":"X","cat":"kernel","name":"flash","pid":1,"tid":%d,"ts":%s,'
              '"dur":%d.5,"args":{"device":0}}' % (7 + i % 3, ts, 1 + i % 5))
open(sys.argv[1], "w").write('{"traceEvents":[' + ",".join(ev) + "]}")
PY
tr-decode "$T/many.json" >"$T/many.stream"
expect 2 "tr-select-anchors past its memory bound with a missing TMPDIR: a clear error" \
	"TMPDIR='$T/none' tr-select-anchors --anchor-regex flash --num-layers 40 \
	 --anchor-offset 0 --passes 1000 <'$T/many.stream' >/dev/null" \
	"tr-select-anchors: temporary file in $T/none: No such file or directory"
if expect 0 "tr-select-anchors past its memory bound: the texts from the temporary file" \
	"tr-select-anchors --anchor-regex flash --num-layers 40 --anchor-offset 0 \
	 --passes 1000 <'$T/many.stream'"; then
	if python3 - "$T/out" <<'PY'
import re, sys
want = re.compile(r'"anchor":\{"source_index":(\d+),"pid":1,"tid":(\d+),"device":0,'
                  r'"ts":([^,]+),"dur":([^,]+),')
recs = [l for l in open(sys.argv[1]) if l.startswith('{"@tr":"anchor",')]
assert len(recs) == 40000, len(recs)
for i, line in enumerate(recs):
    us = 1428625731000 + 10 * i + 1000 * (i // 40)
    ts = "%d.%s" % (us, "125"[: i % 4]) if i % 4 else str(us)
    m = want.search(line)
    assert m and m.groups() == (str(i), str(7 + i % 3), ts, "%d.5" % (1 + i % 5)), line
PY
	then pass "tr-select-anchors past its memory bound: every record's texts"
	else fail "tr-select-anchors past its memory bound: every record's texts"
	fi
fi

mkdir -p "$T/adir"
expect 2 "tr-encode -o a directory: refused" "tr-encode -o '$T/adir' <'$T/t.stream'" \
	"output exists; refusing to overwrite it"
expect 2 "tr-layer-track --output a directory: refused" \
	"tr-layer-track --trace '$T/t.json' --output '$T/adir' --anchor-regex flash \
	 --num-layers 4 --anchor-offset 0 --phase p --evidence e" "exists; refusing to overwrite it"
# The output is checked before the counting run of --target-bytes (which
# would take hours for 1000G: the timeout is the guard).
expect 2 "tr-gen --target-bytes 1000G -o an existing file: refused first" \
	"timeout 120 tr-gen --target-bytes 1000G -o '$T/t.json'" "t.json: File exists"
expect 2 "tr-compact-track: output equal to the source through a .. path" \
	"cd '$T/adir' && tr-compact-track --trace ../t.json --output ../adir/../t.json" \
	"the output is the source trace"

# Signals.  Each is delivered at a known point of the run, never after a
# delay: a test that depends on the machine's speed says nothing about the
# code.  The one-line commands find their programs beside themselves, so a
# copy of them in $S runs the real programs except for one stand-in that
# holds the run at the point under test until the signal comes.
S=$T/shim O=$(cd "$T" && pwd -P)/sig GATE=$T/gate
PRELOAD=$BIN/../tests/interrupt_placement.so
mkfifo "$GATE"
# fresh: no output, no gate marker of an earlier run
fresh() {
	rm -rf "$O" "$GATE".*
	mkdir -p "$O"
}
# shims STAGE BODY: $S holds the commands and the programs, STAGE replaced
# by a shell script with BODY
shims() {
	rm -rf "$S"
	mkdir -p "$S"
	for f in "$BIN"/tr-*; do ln -s "$f" "$S/"; done
	for f in tr-layer-track tr-compact-track tr-layer-track-ranks tr-common.sh; do
		ln -s "$ROOT/scripts/$f" "$S/"
	done
	rm "$S/$1"
	printf '#!/bin/sh\n%s\n' "$2" >"$S/$1"
	chmod +x "$S/$1"
}
# A reader of the gate blocks until the test opens it, which it never does:
# the run stays where it is until the signal.  tr-encode gets the first ten
# lines of the stream and waits for the rest.
HOLD_ENCODE="{ head -n 10; : >'$GATE.held'; exec cat '$GATE'; } | '$BIN/tr-encode' \"\$@\""
HOLD_VERIFY=": >'$GATE.verifying'; read x <'$GATE'; exec '$BIN/tr-verify' \"\$@\""
INTERRUPT_PLACEMENT="TR_TEST_SIGNAL_PID_FILE='$T/cmd.pid' LD_PRELOAD='$PRELOAD' exec '$BIN/tr-encode' \"\$@\""

# interrupt NAME SIG CONDITION CMD: start CMD with every signal at its
# default (a background job of a shell starts with SIGINT ignored, and a
# test run under nohup with SIGHUP ignored, which a shell script cannot
# trap then), wait until the shell
# test CONDITION holds, send SIG (none if SIG is -), wait for the end; the
# exit status is in $status, stderr in $T/err.  1 if the point never came.
interrupt() {
	name=$1 sig=$2 cond=$3 cmd=$4
	sh -c "echo \$\$ >'$T/cmd.pid'; exec env --default-signal $cmd" >"$T/out" 2>"$T/err" &
	pid=$!
	polls=0
	until sh -c "$cond"; do
		polls=$((polls + 1))
		# a guard against a hang, not a timing assumption: the point
		# comes in well under a second on any machine
		if ! kill -0 "$pid" 2>/dev/null || [ $polls -gt 2400 ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			fail "$name" "the run never reached the point ($cond)" "stderr: $(head -c 400 "$T/err")"
			return 1
		fi
		sleep 0.05
	done
	[ "$sig" = - ] || kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	status=$?
}

# died_of NAME SIG: the last run died of SIG (the shell's 128 + N)
died_of() {
	case $2 in HUP) want=129 ;; INT) want=130 ;; TERM) want=143 ;; esac
	if [ "$status" -eq "$want" ]; then
		pass "$1"
	else
		fail "$1" "exit status $status, wanted $want (SIG$2)" "stderr: $(head -c 400 "$T/err")"
	fi
}

# stages_gone NAME: no program of the run is left
stages_gone() {
	if ps -eo args | grep -v grep | grep -qF "$T/"; then
		fail "$1" "$(ps -eo pid,args | grep -F "$T/" | grep -v grep)"
	else
		pass "$1"
	fi
}

TEMP_OPEN="{ . '$ROOT/tests/e2e/lib.sh'; temp_open '$O'; }"
LT="tr-layer-track --trace '$T/t.json' --anchor-regex flash --num-layers 4 --anchor-offset 0 \
	--phase p --evidence e"

# tr-gen -o: stopped once its temporary file exists (provably in the
# middle of writing), signalled, resumed
for sig in TERM INT; do
	fresh
	sh -c "exec env --default-signal tr-gen --target-bytes 2G -o '$O/g.json'" 2>"$T/err" &
	pid=$!
	# looked for while stopped: the look (a walk of every process's open
	# files) takes long on a busy machine, and the program runs on
	polls=0
	while kill -STOP "$pid" 2>/dev/null && ! sh -c "$TEMP_OPEN" && [ $polls -lt 2400 ]; do
		kill -CONT "$pid"
		sleep 0.01
		polls=$((polls + 1))
	done
	if sh -c "$TEMP_OPEN" && [ ! -e "$O/g.json" ]; then
		kill -"$sig" "$pid"
		kill -CONT "$pid"
		wait "$pid" 2>/dev/null
		status=$?
		died_of "tr-gen -o, SIG$sig while writing: dies of the signal" "$sig"
		absent "tr-gen -o, SIG$sig: no output" "$O/g.json" &&
			no_temp "tr-gen -o, SIG$sig: no temporary file" "$O"
	else
		kill -CONT "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		fail "tr-gen -o, SIG$sig" "it was not writing when stopped" "stderr: $(cat "$T/err")"
	fi
done

# 1. During the pipeline: tr-encode has its temporary file and part of the
# stream; nothing may remain.
shims tr-encode "$HOLD_ENCODE"
for sig in TERM INT HUP; do
	fresh
	lanes=
	[ $sig != INT ] || lanes="--max-gpu-lanes 4"
	if interrupt "tr-layer-track, SIG$sig in the pipeline" $sig "[ -e '$GATE.held' ] && $TEMP_OPEN" \
		"$S/$LT $lanes --output '$O/lt.json'"; then
		died_of "tr-layer-track, SIG$sig in the pipeline: dies of the signal" $sig
		absent "tr-layer-track, SIG$sig in the pipeline: no output" \
			"$O/lt.json" "$O/lt.json.layers.json" &&
			no_temp "tr-layer-track, SIG$sig in the pipeline: no temporary file" "$O"
		stderr_is "tr-layer-track, SIG$sig in the pipeline: says so" \
			"tr-layer-track: interrupted (SIG$sig); nothing was written"
		stages_gone "tr-layer-track, SIG$sig in the pipeline: every stage stopped"
	fi
done
fresh
if interrupt "tr-compact-track, SIGTERM in the pipeline" TERM "[ -e '$GATE.held' ] && $TEMP_OPEN" \
	"$S/tr-compact-track --trace '$T/t.json' --output '$O/ct.json'"; then
	died_of "tr-compact-track, SIGTERM in the pipeline: dies of the signal" TERM
	absent "tr-compact-track, SIGTERM in the pipeline: no output" "$O/ct.json" "$O/ct.json.compact.json" &&
		no_temp "tr-compact-track, SIGTERM in the pipeline: no temporary file" "$O"
	stderr_is "tr-compact-track, SIGTERM in the pipeline: says so" \
		"tr-compact-track: interrupted (SIGTERM); nothing was written"
	stages_gone "tr-compact-track, SIGTERM in the pipeline: every stage stopped"
fi

# SIGKILL of everything while tr-encode writes: no handler runs, and with
# unnamed temporary files (O_TMPFILE) nothing is left either.
fresh
sh -c "exec $S/$LT --max-gpu-lanes 4 --output '$O/lt.json'" >/dev/null 2>&1 &
pid=$!
polls=0
until { [ -e "$GATE.held" ] && sh -c "$TEMP_OPEN"; } || [ $polls -gt 2400 ]; do
	sleep 0.05
	polls=$((polls + 1))
done
if ls -a "$O" | grep -q '\.tmp\.'; then
	named=1  # no O_TMPFILE here: the hidden file stays, as documented
else
	named=
fi
pkill -KILL -f -- "$T/" 2>/dev/null
wait "$pid" 2>/dev/null
if [ -n "$named" ]; then
	skip "tr-layer-track, SIGKILL: nothing left" "no unnamed temporary files on this file system"
elif [ -z "$(ls -A "$O")" ]; then
	pass "tr-layer-track, SIGKILL: nothing left beside the output"
else
	fail "tr-layer-track, SIGKILL: nothing left beside the output" "$(ls -a "$O")"
fi

# SIGKILL of the command alone (kill -9 of it, timeout -s KILL, the OOM
# killer): it runs no trap, and its pipeline, in a process group of its
# own, is not killed with it.  The stages hold the command's lifeline
# instead: they stop, and tr-encode places nothing.  The run is held with
# tr-encode's temporary file open and part of the stream through; the
# command is killed, then the run is let go (a pipeline that lived on would
# now finish and place the output), and the test waits until every process
# of the run has ended, so that a late file would be seen.
HOLD_ENCODE_GO="{ i=0; while [ \$i -lt 10 ] && IFS= read -r l; do printf '%s\\n' \"\$l\"; i=\$((i + 1)); done; : >'$GATE.held'; until [ -e '$GATE.go' ]; do sleep 0.05; done; exec cat; } | '$BIN/tr-encode' \"\$@\""
# run_ended NAME: wait until no process of the run is left (a guard
# against a hang, not a timing assumption); 1, with a failure, if some stay
run_ended() {
	polls=0
	while ps -eo args | grep -v grep | grep -qF "$T/"; do
		polls=$((polls + 1))
		if [ $polls -gt 2400 ]; then
			left=$(ps -eo pid,args | grep -F "$T/" | grep -v grep)
			fail "$1" "the run's processes did not end:" "$left"
			# so that they do not hold up the cases after this one
			kill -KILL $(printf '%s\n' "$left" | awk '{ print $1 }') 2>/dev/null
			return 1
		fi
		sleep 0.05
	done
}
# killed_alone NAME COND CMD [N]: start CMD, wait until COND, SIGKILL the
# command's own process, let the run go ($GATE.go), wait for its end; then
# nothing is in $O (no output, report, log or temporary file), or only the
# N files placed before the kill, and nothing was said after the kill.
killed_alone() {
	name=$1 placed=${4:-0}
	if interrupt "$name" KILL "$2" "$3"; then
		cp "$T/err" "$T/err.at-kill"
		# the watchers stop the held tr-encode; release the run only
		# then, or its own lifeline check at placement could win the
		# race on a loaded machine and say (truly) that nothing was
		# written, after the kill (a guard, not a timing assumption: a
		# pipeline that lived on is still caught below)
		polls=0
		while ps -eo args | grep -v grep | grep -F "$T/" | grep -qF "$BIN/tr-encode" &&
			[ $polls -lt 1200 ]; do
			polls=$((polls + 1))
			sleep 0.05
		done
		: >"$GATE.go"
		run_ended "$name: every stage ended" || return
		pass "$name: every stage ended"
		if [ "$(ls -A "$O" | wc -l)" -eq "$placed" ]; then
			pass "$name: nothing placed, nothing left"
		else
			fail "$name: nothing placed, nothing left" "$(ls -a "$O")"
		fi
		if cmp -s "$T/err" "$T/err.at-kill"; then
			pass "$name: nothing said after the kill"
		else
			fail "$name: nothing said after the kill" "stderr: $(head -c 400 "$T/err")"
		fi
	fi
}
shims tr-encode "$HOLD_ENCODE_GO"
for lanes in "" "--max-gpu-lanes 4"; do
	fresh
	killed_alone "tr-layer-track${lanes:+ $lanes}, SIGKILL of the command in the pipeline" \
		"[ -e '$GATE.held' ] && $TEMP_OPEN" "$S/$LT $lanes --output '$O/lt.json'"
done
fresh
killed_alone "tr-compact-track, SIGKILL of the command in the pipeline" \
	"[ -e '$GATE.held' ] && $TEMP_OPEN" "$S/tr-compact-track --trace '$T/t.json' --output '$O/ct.json'"
# a rank of tr-layer-track-ranks (what GNU parallel or xargs runs for each
# trace): its tr-layer-track holds the rank's lifeline too
fresh
killed_alone "tr-layer-track-ranks, SIGKILL of a rank in its pipeline" \
	"[ -e '$GATE.held' ] && $TEMP_OPEN" \
	"$S/tr-layer-track-ranks --run-rank '$O' '$T/t.json' --anchor-regex flash --num-layers 4 \
		--anchor-offset 0 --phase p --evidence e"
# the batch itself, while parallel or xargs runs on: the rank running stops
# and writes nothing (no log, no status), the next one runs nothing
cp "$T/t.json" "$T/t2.json"
for engine in parallel xargs; do
	if [ $engine = parallel ] && ! command -v parallel >/dev/null 2>&1; then
		skip "tr-layer-track-ranks, SIGKILL of the batch (parallel)" "GNU parallel is not installed"
		continue
	fi
	fresh
	killed_alone "tr-layer-track-ranks ($engine), SIGKILL of the batch in a rank's pipeline" \
		"[ -e '$GATE.held' ] && $TEMP_OPEN" \
		"$S/tr-layer-track-ranks --outdir '$O' --jobs 1 $([ $engine = xargs ] && echo --xargs) \
			--anchor-regex flash --num-layers 4 --anchor-offset 0 --phase p --evidence e \
			'$T/t.json' '$T/t2.json'"
done
rm -f "$T/t2.json"
# the window (--window): the full output and its report, placed and
# verified before, stay; the window is not placed
shims tr-encode "case \"\$*\" in *.window.json*) $HOLD_ENCODE_GO ;; *) exec '$BIN/tr-encode' \"\$@\" ;; esac"
fresh
killed_alone "tr-layer-track --window, SIGKILL of the command in the window's pipeline" \
	"[ -e '$GATE.held' ] && $TEMP_OPEN" "$S/$LT --output '$O/lt.json' --window '--passes 1'" 2 &&
	absent "tr-layer-track --window, SIGKILL of the command in the window's pipeline: no window" \
		"$O/lt.window.json" "$O/lt.window.json.window.json"
# a lifeline named in TR_LIFELINE that is not one
expect 2 "tr-layer-track, TR_LIFELINE not an open pipe: refused" \
	"TR_LIFELINE=9 $LT --output '$O/never.json'" \
	"tr-layer-track: TR_LIFELINE: '9' is not an open pipe (it names descriptors inherited from the command that runs this one)" &&
	absent "tr-layer-track, TR_LIFELINE not an open pipe: nothing written" "$O/never.json"
# once placed, the output stays (it was there before the kill); a run
# killed in verification leaves it, as SIGINT there does, and stops
# tr-verify
shims tr-verify "$HOLD_VERIFY"
fresh
if interrupt "tr-layer-track, SIGKILL of the command in verification" KILL "[ -e '$GATE.verifying' ]" \
	"$S/$LT --output '$O/lt.json'" &&
   run_ended "tr-layer-track, SIGKILL of the command in verification: tr-verify stopped"; then
	pass "tr-layer-track, SIGKILL of the command in verification: tr-verify stopped"
	if [ -f "$O/lt.json" ] && [ -f "$O/lt.json.layers.json" ] && [ "$(ls -A "$O" | wc -l)" -eq 2 ]; then
		pass "tr-layer-track, SIGKILL of the command in verification: the output and report stay"
	else
		fail "tr-layer-track, SIGKILL of the command in verification: the output and report stay" \
			"$(ls -a "$O")"
	fi
fi

# The same without a stand-in, as `timeout -s KILL` leaves it, on a trace
# that takes seconds: tr-encode is stopped (SIGSTOP) while it writes, the
# command killed, tr-encode let go.  tr-encode is stopped the moment it is
# seen, not once its temporary file is seen: it starts with the pipeline and
# can end only after every stage before it, so stopped at once it is always
# caught in the middle, however fast or loaded the machine (a run that
# finished while the watcher looked for the file was a failure at random).
# Stopped before it opened the file, it is let on in steps until it has.
tr-gen --target-bytes 48M -o "$T/big.json"
fresh
sh -c "echo \$\$ >'$T/cmd.pid'; exec env --default-signal $ROOT/scripts/tr-layer-track \
	--trace '$T/big.json' --anchor-regex flash --num-layers 4 --anchor-offset 0 --phase p \
	--evidence e --max-gpu-lanes 4 --output '$O/big.json'" >"$T/out" 2>"$T/err" &
pid=$!
polls=0 enc=
until [ -n "$enc" ] || [ $polls -gt 2400 ]; do
	enc=$(ps -eo pid,args | awk -v o="-o $O/big.json" '$2 ~ /(^|\/)tr-encode$/ && index($0, o) { print $1 }')
	if [ -n "$enc" ]; then
		kill -STOP $enc 2>/dev/null
	else
		sleep 0.01
	fi
	polls=$((polls + 1))
done
polls=0
while [ -n "$enc" ] && ! sh -c "$TEMP_OPEN" && [ ! -e "$O/big.json" ] && [ $polls -lt 200 ]; do
	kill -CONT $enc 2>/dev/null
	sleep 0.01
	kill -STOP $enc 2>/dev/null
	polls=$((polls + 1))
done
if [ -n "$enc" ] && sh -c "$TEMP_OPEN" && [ ! -e "$O/big.json" ]; then
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	kill -CONT $enc 2>/dev/null
	if run_ended "tr-layer-track, SIGKILL of the command while tr-encode writes: every stage ended"; then
		pass "tr-layer-track, SIGKILL of the command while tr-encode writes: every stage ended"
		if [ -z "$(ls -A "$O")" ] && [ ! -s "$T/err" ]; then
			pass "tr-layer-track, SIGKILL of the command while tr-encode writes: nothing placed or said"
		else
			fail "tr-layer-track, SIGKILL of the command while tr-encode writes: nothing placed or said" \
				"$(ls -a "$O")" "stderr: $(head -c 400 "$T/err")"
		fi
	fi
else
	[ -z "$enc" ] || kill -CONT $enc 2>/dev/null
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	fail "tr-layer-track, SIGKILL of the command while tr-encode writes" \
		"tr-encode was not writing when stopped" "$(ls -a "$O")" "stderr: $(head -c 400 "$T/err")"
fi
rm -f "$T/big.json"

# 2. Between placing the trace and placing its report: tr-encode takes the
# trace back (the report is not there yet); nothing may remain.  First
# tr-encode alone, signalled there by itself, then the command, signalled
# there by tr-encode.
tr-decode "$T/t.json" | tr-select-anchors --anchor-regex flash --num-layers 4 --anchor-offset 0 |
	tr-guides --phase p --evidence e >"$T/guides.stream"
fresh
LD_PRELOAD=$PRELOAD tr-encode -o "$O/e.json" <"$T/guides.stream" 2>"$T/err"
status=$?
died_of "tr-encode, SIGTERM between placing the trace and its report: dies of it" TERM
absent "tr-encode, SIGTERM between placing the trace and its report: neither remains" \
	"$O/e.json" "$O/e.json.layers.json" &&
	no_temp "tr-encode, SIGTERM between placing the trace and its report: no temporary file" "$O"
# The command gone just then (its lifeline hung up: the preload closes its
# only write end, held by tr-encode alone here): the trace is taken back.
fresh
TR_TEST_CLOSE_FD=6 LD_PRELOAD=$PRELOAD bash -c 'exec 5< <(:) && ! read -r -u 5 _ && exec 6>/dev/fd/5 &&
	exec tr-encode --lifeline 5 -o "$1"' - "$O/e.json" <"$T/guides.stream" 2>"$T/err"
status=$?
if [ $status -eq 2 ]; then
	pass "tr-encode, lifeline lost between placing the trace and its report: exit 2"
else
	fail "tr-encode, lifeline lost between placing the trace and its report: exit 2" \
		"exit status $status" "stderr: $(head -c 400 "$T/err")"
fi
absent "tr-encode, lifeline lost between placing the trace and its report: neither remains" \
	"$O/e.json" "$O/e.json.layers.json" &&
	no_temp "tr-encode, lifeline lost between placing the trace and its report: no temporary file" "$O"
stderr_is "tr-encode, lifeline lost between placing the trace and its report: says so" \
	"tr-encode: $O/e.json: the command that runs this pipeline has ended (its --lifeline hung up); nothing was written"
shims tr-encode "$INTERRUPT_PLACEMENT"
if interrupt "tr-layer-track, SIGTERM while placing the output" - true \
	"$S/$LT --output '$O/lt.json'"; then
	died_of "tr-layer-track, SIGTERM while placing the output: dies of the signal" TERM
	absent "tr-layer-track, SIGTERM while placing the output: nothing remains" \
		"$O/lt.json" "$O/lt.json.layers.json" &&
		no_temp "tr-layer-track, SIGTERM while placing the output: no temporary file" "$O"
	stderr_is "tr-layer-track, SIGTERM while placing the output: says so" \
		"tr-layer-track: interrupted (SIGTERM); nothing was written"
fi

# 3. During verification: the output is placed and stays; the command says
# that it is not verified and how to verify it, and the command it prints
# works.
shims tr-verify "$HOLD_VERIFY"
for sig in TERM INT; do
	fresh
	if interrupt "tr-layer-track, SIG$sig in verification" $sig "[ -e '$GATE.verifying' ]" \
		"$S/$LT --output '$O/lt.json'"; then
		died_of "tr-layer-track, SIG$sig in verification: dies of the signal" $sig
		if [ -f "$O/lt.json" ] && [ -f "$O/lt.json.layers.json" ]; then
			pass "tr-layer-track, SIG$sig in verification: the output and report stay"
		else
			fail "tr-layer-track, SIG$sig in verification: the output and report stay" "$(ls "$O")"
		fi
		printf '%s\n' "tr-layer-track: interrupted (SIG$sig) after writing $O/lt.json and its report; it is not verified: verification did not run to the end. To verify it:" \
			"  tr-verify --source $T/t.json --output $O/lt.json" >"$T/want.err"
		same "tr-layer-track, SIG$sig in verification: says so and how to verify" "$T/want.err" "$T/err"
		stages_gone "tr-layer-track, SIG$sig in verification: tr-verify stopped"
		expect 0 "tr-layer-track, SIG$sig in verification: the printed command verifies it" \
			"$(tail -n 1 "$T/want.err")"
	fi
done
fresh
if interrupt "tr-compact-track, SIGHUP in verification" HUP "[ -e '$GATE.verifying' ]" \
	"$S/tr-compact-track --trace '$T/t.json' --output '$O/c t.json'"; then
	died_of "tr-compact-track, SIGHUP in verification: dies of the signal" HUP
	printf '%s\n' "tr-compact-track: interrupted (SIGHUP) after writing $O/c t.json and its report; it is not verified: verification did not run to the end. To verify it:" \
		"  tr-verify --source $T/t.json --output '$O/c t.json'" >"$T/want.err"
	same "tr-compact-track, SIGHUP in verification: says so, the name quoted" "$T/want.err" "$T/err"
	expect 0 "tr-compact-track, SIGHUP in verification: the printed command verifies it" \
		"$(tail -n 1 "$T/want.err")"
fi
# An interrupt while the window is cut (the stage takes a second to start):
# the command waits for that pipeline, then for the filter of its stages'
# messages, which must end too (timeout passes the signal on; its KILL is
# the guard against a hang).  The command first runs tr-window on nothing,
# with its table to /dev/null, to judge the window's options before the
# trace is read: the gate is for the cut itself.
shims tr-window "case \"\$*\" in *' --pass-table /dev/null') ;; *) : >'$GATE.window'; sleep 1 ;; esac; exec '$BIN/tr-window' \"\$@\""
fresh
if interrupt "tr-layer-track, SIGTERM while cutting the window" TERM "[ -e '$GATE.window' ]" \
	"timeout --foreground -s KILL 60 $S/$LT --output '$O/lt.json' --no-verify --window '--passes 0'"; then
	died_of "tr-layer-track, SIGTERM while cutting the window: dies of the signal" TERM
	printf '%s\n' "tr-layer-track: interrupted (SIGTERM) after writing $O/lt.json and its report; it is not verified: verification did not run to the end. To verify it:" \
		"  tr-verify --source $T/t.json --output $O/lt.json" >"$T/want.err"
	same "tr-layer-track, SIGTERM while cutting the window: says so" "$T/want.err" "$T/err"
fi
rm -rf "$S" "$O" "$GATE" "$GATE".*

# ------------------------------------------------- one error, not several
# A stage that fails is told once.  The stage after it finds its input
# ending early and says so in one line, then writes the failed record; the
# stages after that pass the record on and say nothing.  The commands print
# the failing stage's message alone.
ROT='rotary_embedding_kernel'
SEL="--anchor-regex $ROT --num-layers 4 --passes 3 --anchor-offset 0"
printf '{"traceEvents":[\n{"ph":"X","name":"k","pid":1,"tid":1,"ts":1,"dur":1},\n' >"$T/cut.json"
# err_is NAME WANT-FILE: stderr of the last run is exactly that file.
err_is() {
	if cmp -s "$2" "$T/err"; then
		pass "$1"
	else
		fail "$1" "stderr: $(head -c 900 "$T/err")" "wanted: $(head -c 900 "$2")"
	fi
}
# the refusal, as tr-select-anchors prints it alone (4 anchors x 3 passes
# are more than the trace has)
tr-select-anchors $SEL <"$T/t.stream" >/dev/null 2>"$T/refusal" || :
if [ "$(wc -l <"$T/refusal")" -ge 2 ] && grep -q '^tr-select-anchors: truncated selection' "$T/refusal"; then
	pass "one error: tr-select-anchors alone refuses the selection"
else
	fail "one error: tr-select-anchors alone refuses the selection" "$(cat "$T/refusal")"
fi
for lanes in "" "--max-gpu-lanes 10"; do
	expect 1 "one error: tr-layer-track ${lanes:+(compacted) }refused by tr-select-anchors" \
		"tr-layer-track --trace '$T/t.json' --output '$T/one.json' $SEL --phase decode --evidence e $lanes" &&
		{ cat "$T/refusal"; echo "tr-layer-track: failed (exit status 1); nothing was written"; } >"$T/want.err" &&
		err_is "one error: tr-layer-track ${lanes:+(compacted) }prints the refusal alone" "$T/want.err"
	absent "one error: tr-layer-track ${lanes:+(compacted) }wrote nothing" "$T/one.json"
done
tr-decode "$T/cut.json" >/dev/null 2>"$T/decode.err" || :
expect 1 "one error: tr-compact-track on a cut trace" \
	"tr-compact-track --trace '$T/cut.json' --output '$T/one.json'" &&
	{ cat "$T/decode.err"; echo "tr-compact-track: failed (exit status 1); nothing was written"; } >"$T/want.err" &&
	err_is "one error: tr-compact-track prints tr-decode's message alone" "$T/want.err"
expect 1 "one error: tr-layer-track on a cut trace" \
	"tr-layer-track --trace '$T/cut.json' --output '$T/one.json' $SEL --phase decode --evidence e --max-gpu-lanes 10" &&
	{ cat "$T/decode.err"; echo "tr-layer-track: failed (exit status 1); nothing was written"; } >"$T/want.err" &&
	err_is "one error: tr-layer-track prints tr-decode's message alone" "$T/want.err"
# By hand: the first message, then one line from the next stage.
expect 1 "one error: a hand pipeline from a cut trace" \
	"tr-decode '$T/cut.json' | tr-select-anchors $SEL | tr-guides --phase decode --evidence e | tr-compact | tr-encode -o '$T/one.json'" &&
	{ cat "$T/decode.err"
	  echo "tr-select-anchors: stdin: empty input: no stream (an earlier stage failed, or this is not tr-decode output)"; } >"$T/want.err" &&
	err_is "one error: a hand pipeline from a cut trace: the message and one line" "$T/want.err"
absent "one error: a hand pipeline from a cut trace: nothing written" "$T/one.json"
expect 1 "one error: a hand pipeline refused by tr-select-anchors" \
	"tr-decode '$T/t.json' | tr-select-anchors $SEL | tr-guides --phase decode --evidence e | tr-compact | tr-encode -o '$T/one.json'" &&
	{ cat "$T/refusal"
	  echo "tr-guides: stdin: empty input: no stream (an earlier stage failed, or this is not tr-decode output)"; } >"$T/want.err" &&
	err_is "one error: a hand pipeline refused by tr-select-anchors: the refusal and one line" "$T/want.err"
# A stream cut after its head: the next stage says so, once.
head -c 20000 "$T/t.stream" >"$T/cut.stream"
expect 1 "one error: a cut stream through three stages" \
	"tr-guides --phase decode --evidence e <'$T/cut.stream' | tr-compact | tr-encode -o '$T/one.json'" &&
	stderr_is "one error: a cut stream through three stages: one line" \
		"tr-guides: stdin: truncated stream: input ended inside a line (an earlier stage failed or the stream was cut)"
# The failed record: passed on as the last line, nothing said.
{ head -n 3 "$T/t.stream"; echo '{"@tr":"failed"}'; } >"$T/failed.stream"
for st in "tr-compact" "tr-window --passes 0" "tr-guides --phase decode --evidence e" \
	"tr-select-anchors $SEL"; do
	expect 1 "failed record: ${st%% *} exits 1" "$st <'$T/failed.stream'"
	if [ ! -s "$T/err" ] && [ "$(tail -n 1 "$T/out")" = '{"@tr":"failed"}' ]; then
		pass "failed record: ${st%% *} says nothing and passes the record on"
	else
		fail "failed record: ${st%% *} says nothing and passes the record on" \
			"stderr: $(cat "$T/err")" "stdout ends: $(tail -c 200 "$T/out")"
	fi
done
expect 1 "failed record: tr-encode exits 1" "tr-encode -o '$T/one.json' <'$T/failed.stream'"
if [ ! -s "$T/err" ] && [ ! -e "$T/one.json" ]; then
	pass "failed record: tr-encode says nothing and writes nothing"
else
	fail "failed record: tr-encode says nothing and writes nothing" "stderr: $(cat "$T/err")"
fi
expect 1 "failed record: tr-survey exits 1" "tr-survey --num-layers 4 <'$T/failed.stream'"
[ ! -s "$T/err" ] && pass "failed record: tr-survey says nothing" ||
	fail "failed record: tr-survey says nothing" "stderr: $(cat "$T/err")"
# tr-window --list-passes writes a table, not a stream: no record there.
expect 1 "failed record: tr-window --list-passes exits 1" "tr-window --list-passes <'$T/failed.stream'"
if [ ! -s "$T/err" ] && [ ! -s "$T/out" ]; then
	pass "failed record: tr-window --list-passes says and writes nothing"
else
	fail "failed record: tr-window --list-passes says and writes nothing" \
		"stderr: $(cat "$T/err")" "stdout: $(head -c 200 "$T/out")"
fi
expect 1 "a cut stream: tr-window --list-passes exits 1" "tr-window --list-passes <'$T/cut.stream'" &&
	stderr_is "a cut stream: tr-window --list-passes: one line" \
		"tr-window: stdin: truncated stream: input ended inside a line (an earlier stage failed or the stream was cut)"
[ ! -s "$T/out" ] && pass "a cut stream: tr-window --list-passes writes no record" ||
	fail "a cut stream: tr-window --list-passes writes no record" "stdout: $(head -c 200 "$T/out")"
