# The progress line, in a real pseudo-terminal (script(1)): drawn on a
# terminal after the first second, in place ("\r", the line, erase to its
# end), at most four times a second, and cleared before what comes next,
# so that the terminal's last state is the summary; nothing when stderr is
# not a terminal, unless --progress; nothing with --quiet.  The traces'
# reading is slowed (tests/e2e/slow_read.c) so that a small trace takes the
# seconds the line needs.

SLOW=$BIN/../tests/slow_read.so
ANCHOR='^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,'
# one redraw: ESC is \033; the numbers as progress.h writes them
NUM='[0-9]+(\.[0-9][KMG]|B)'
ETA='ETA ([0-9]+:[0-9][0-9]|-:--)'
line_re() { printf '\r%s %s/%s [0-9]+%% %s/s %s\033\\[K' "$1" "$NUM" "$2" "$NUM" "$ETA"; }

# screen FILE: the terminal's final lines after FILE's bytes (\r, \n and
# erase-to-end-of-line applied), empty lines dropped.
screen() {
	python3 -c '
import sys
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
lines, cur, col, i = [], [], 0, 0
while i < len(data):
    c = data[i]
    if data.startswith("\x1b[K", i):
        del cur[col:]; i += 3; continue
    if c == "\r": col = 0
    elif c == "\n": lines.append("".join(cur)); cur, col = [], 0
    else:
        if col < len(cur): cur[col] = c
        else: cur.append(c)
        col += 1
    i += 1
lines.append("".join(cur))
print("\n".join(l for l in lines if l))' "$1"
}

# has_line NAME FILE PHASE SIZE: FILE holds at least one redraw of PHASE
# over SIZE, and ends with the line cleared.
has_line() {
	if ! grep -qaE "$(line_re "$3" "$4")" "$2"; then
		fail "$1: a '$3' line" "got: $(head -c 300 "$2" | od -c | head -n 8)"
	elif ! grep -qaE "$(line_re "$3" "$4")[^$(printf '\r')]*" "$2" ||
	     ! python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(0 if b"\r\x1b[K" in d else 1)' "$2"; then
		fail "$1: the line cleared" "got: $(tail -c 200 "$2" | od -c | tail -n 5)"
	else
		pass "$1"
	fi
}

if ! command -v script >/dev/null 2>&1; then
	skip "progress" "script(1) is not installed (Debian bsdutils)"
elif [ ! -f "$SLOW" ]; then
	fail "progress: $SLOW exists" "not built: run make e2e"
else
cd "$T" || exit 1
tr-gen --layers 4 --passes 240 --streams 8 --concurrency 3 -o t.json
# 16 MB: 16 reads of 1 MiB and the one that finds the end, each after
# 70 ms: a reading of the trace lasts 1.19 s at least, however fast the
# machine, so its last redraws come after the first second
export SLOW_READ_MS=70
size=$(stat -c %s t.json)
SIZE=$(printf '%s' "$size" | awk '{ printf "%.1fM", $1 / 1048576 }')
SIZE_RE=$(printf '%s' "$SIZE" | sed 's/\./\\./')
# tty CMD: CMD run by sh in a pseudo-terminal; what it wrote to the
# terminal in $T/tty (script's own stdout, so stdout and stderr both)
tty() { script -qfec "LD_PRELOAD='$SLOW' $1" /dev/null >"$T/tty" 2>&1 </dev/null; }

# tr-decode: "reading", on a terminal only
tty "tr-decode t.json >/dev/null"
has_line "progress: tr-decode on a terminal" "$T/tty" reading "$SIZE_RE"
if [ -z "$(screen "$T/tty")" ]; then
	pass "progress: tr-decode leaves the terminal's line clear"
else
	fail "progress: tr-decode leaves the terminal's line clear" "screen: $(screen "$T/tty")"
fi
# empty: NAME, the last run's stderr is empty
empty() { if [ ! -s "$T/err" ] && [ "$RC" = 0 ]; then pass "$1"; else
	fail "$1" "exit status $RC" "stderr: $(od -c "$T/err" | head -n 3)"; fi; }
run "LD_PRELOAD='$SLOW' tr-decode t.json >/dev/null"
empty "progress: tr-decode, stderr a file: nothing"
run "LD_PRELOAD='$SLOW' tr-decode --progress t.json >/dev/null"
has_line "progress: tr-decode --progress into a file" "$T/err" reading "$SIZE_RE"
run "LD_PRELOAD='$SLOW' tr-decode --progress=scanning t.json >/dev/null"
has_line "progress: tr-decode --progress=PHASE" "$T/err" scanning "$SIZE_RE"
tty "tr-decode --quiet t.json >/dev/null"
if [ ! -s "$T/tty" ]; then pass "progress: tr-decode --quiet on a terminal"; else
	fail "progress: tr-decode --quiet on a terminal" "got: $(od -c "$T/tty" | head -n 3)"; fi
# standard input: no size, no share, no time left
run "cat t.json | LD_PRELOAD='$SLOW' tr-decode --progress >/dev/null"
if [ ! -s "$T/err" ] ||
   grep -qaE "$(printf '\rreading %s %s/s\033\\[K' "$NUM" "$NUM")" "$T/err"; then
	# a pipe's reads are not slowed: the run may end within its second
	pass "progress: tr-decode of standard input"
else
	fail "progress: tr-decode of standard input" "got: $(od -c "$T/err" | head -n 4)"
fi

# tr-layer-track: annotating, writing (tr-compact's second pass, over its
# spill), verifying; the terminal ends showing the summary as a run
# without the line prints it
lt="tr-layer-track --trace t.json --output o.json.gz --anchor-regex '$ANCHOR' --num-layers 4 --anchor-offset 0 --passes 240 --phase decode --evidence e --max-gpu-lanes 4"
tty "$lt"
has_line "progress: tr-layer-track annotating" "$T/tty" annotating "$SIZE_RE"
has_line "progress: tr-layer-track verifying" "$T/tty" verifying "$SIZE_RE"
# tr-compact's spill is not the trace: its size is its own; its first
# redraw comes at once, the run being more than a second old
has_line "progress: tr-layer-track writing" "$T/tty" writing "$NUM"
screen "$T/tty" >"$T/screen"
rm -f o.json.gz o.json.gz.layers.json o.json.gz.compact.json
sh -c "LD_PRELOAD='$SLOW' $lt" >"$T/plain" 2>&1
if cmp -s "$T/screen" "$T/plain"; then
	pass "progress: tr-layer-track's terminal ends with the summary alone"
else
	fail "progress: tr-layer-track's terminal ends with the summary alone" \
		"$(diff "$T/plain" "$T/screen" | head -n 8)"
fi
if grep -qa "$(printf '\r')" "$T/plain"; then
	fail "progress: tr-layer-track, stderr a file: no line" "got: $(grep -ac "$(printf '\r')" "$T/plain") lines with \\r"
else
	pass "progress: tr-layer-track, stderr a file: no line"
fi
rm -f o.json.gz o.json.gz.layers.json o.json.gz.compact.json
# with a window of a plain output: the output read again to cut it
run "LD_PRELOAD='$SLOW' $(printf '%s' "$lt" | sed 's/o\.json\.gz/o.json/') --window '--passes 0-1' --progress"
OSIZE_RE=$(stat -c %s o.json | awk '{ printf "%.1fM", $1 / 1048576 }' | sed 's/\./\\./')
has_line "progress: tr-layer-track --progress into a file: annotating" "$T/err" annotating "$SIZE_RE"
has_line "progress: tr-layer-track --progress into a file: writing" "$T/err" writing "$NUM"
has_line "progress: tr-layer-track --progress into a file: verifying" "$T/err" verifying "$SIZE_RE"
has_line "progress: tr-layer-track --progress into a file: windowing" "$T/err" windowing "$OSIZE_RE"
# the window verified against the output: tr-verify reads the output
has_line "progress: tr-layer-track --progress into a file: verifying the window" "$T/err" verifying "$OSIZE_RE"
# what is left once every redraw and clearing is taken out: nothing
left=$(python3 -c '
import re, sys
d = open(sys.argv[1], "rb").read()
d = re.sub(rb"\r[a-z]+ [^\r\x1b]*\x1b\[K", b"", d).replace(b"\r\x1b[K", b"")
sys.stdout.write(repr(d) if d else "")' "$T/err")
if [ "$RC" = 0 ] && [ -z "$left" ]; then
	pass "progress: tr-layer-track --progress: stderr holds the line alone"
else
	fail "progress: tr-layer-track --progress: stderr holds the line alone" "exit status $RC" \
		"left: $(printf '%s' "$left" | head -c 300)"
fi
rm -f o.json o.json.layers.json o.json.compact.json o.window.json o.window.json.window.json
tty "$lt --quiet"
if grep -qaE 'annotating|writing|verifying [0-9]' "$T/tty"; then
	fail "progress: tr-layer-track --quiet on a terminal" "got: $(grep -ac "$(printf '\r')" "$T/tty")"
else
	pass "progress: tr-layer-track --quiet on a terminal"
fi
rm -f o.json.gz o.json.gz.layers.json o.json.gz.compact.json

# tr-compact-track: reading, then verifying
tr-decode t.json | tr-encode -o c.json
CSIZE_RE=$(stat -c %s c.json | awk '{ printf "%.1fM", $1 / 1048576 }' | sed 's/\./\\./')
tty "tr-compact-track --trace c.json --output v.json --max-gpu-lanes 4"
has_line "progress: tr-compact-track reading" "$T/tty" reading "$CSIZE_RE"
has_line "progress: tr-compact-track verifying" "$T/tty" verifying "$CSIZE_RE"
rm -f v.json v.json.compact.json

# tr-verify alone, and its --progress-fd
tty "tr-verify --source t.json --output c.json >/dev/null"
has_line "progress: tr-verify on a terminal" "$T/tty" verifying "$SIZE_RE"
run "LD_PRELOAD='$SLOW' tr-verify --progress --progress-fd 3 --source t.json --output c.json 3>'$T/fd3' >/dev/null"
has_line "progress: tr-verify --progress-fd 3" "$T/fd3" verifying "$SIZE_RE"
empty "progress: tr-verify --progress-fd leaves stderr alone"

# the batch: ranks done, their traces' bytes of all
cp t.json rank-0.json
cp t.json rank-1.json
run "LD_PRELOAD='$SLOW' tr-layer-track-ranks --progress --jobs 2 --outdir ranks --anchor-regex '$ANCHOR' --num-layers 4 --anchor-offset 0 --passes 240 --phase decode --evidence e rank-0.json rank-1.json"
BOTH=$(printf '%s' "$size" | awk '{ printf "%.1fM", 2 * $1 / 1048576 }' | sed 's/\./\\./')
if grep -qaE "$(printf '\rranks [0-2]/2 %s/%s [0-9]+%% %s/s %s\033\\[K' "$NUM" "$BOTH" "$NUM" "$ETA")" "$T/err" &&
   [ "$RC" = 0 ]; then
	pass "progress: tr-layer-track-ranks --progress"
else
	fail "progress: tr-layer-track-ranks --progress" "exit status $RC" "got: $(od -c "$T/err" | head -n 6)"
fi
run "LD_PRELOAD='$SLOW' tr-layer-track-ranks --jobs 2 --outdir ranks2 --anchor-regex '$ANCHOR' --num-layers 4 --anchor-offset 0 --passes 240 --phase decode --evidence e rank-0.json rank-1.json"
empty "progress: tr-layer-track-ranks, stderr a file: nothing"

# tr-gen: its writing held back by a slow reader
tr-gen --progress --layers 4 --passes 240 --streams 8 --concurrency 3 --target-bytes 8M 2>"$T/err" |
	{ sleep 1.5; cat >/dev/null; }
has_line "progress: tr-gen --progress" "$T/err" generating '8\.0M'
fi
