# t-outputs: where the programs and commands write, under hostile names and
# faults.  Side files (--pass-table, --summary, --svg) are judged by what
# their path is: an existing file under any name (/dev/../x, /dev/shm/x) is
# refused and left byte for byte as it was, a FIFO, a character device and
# a descriptor the caller gave are written in place, anything else is a new
# file placed whole.  The commands' --window options are checked before the
# trace is read; a full disk under the window is exit 2 and leaves nothing
# of it.  Output names with a tab, a newline, quotes and a backslash verify.
# A write error on a command's summary is exit 2 with one line; a read error
# on a stage's standard input is exit 2; a low limit on open files is one
# line and exit 2; a regular-file stdin that shrinks under tr-window is
# named.  Every refusal: the exact message, the exit status, no output, and
# existing files unchanged (cksum).
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).

cd "$T" || exit 2

tr-gen --layers 4 --passes 3 --seed 3 -o t.json || exit 2
EV='generated: 4 layers, rotary once per layer'
ANCHOR="--anchor-regex rotary_embedding --num-layers 4 --anchor-offset 0 --passes 3 \
--phase decode --evidence '$EV'"
LT="tr-layer-track --trace t.json $ANCHOR"
CT="tr-compact-track --trace t.json"
tr-layer-track --trace t.json --output g.json --anchor-regex rotary_embedding --num-layers 4 \
	--anchor-offset 0 --passes 3 --phase decode --evidence "$EV" >/dev/null 2>&1 ||
	fail "tr-layer-track on the generated trace" "exit status $?"
tr-decode g.json >g.stream
tr-decode t.json >t.stream

# unchanged NAME FILE: FILE has the checksum it had when keep() saw it.
keep() { cksum <"$1" >"$1.cksum"; }
unchanged() {
	if [ -f "$2" ] && cksum <"$2" | cmp -s - "$2.cksum"; then
		pass "$1"
	else
		fail "$1" "$2 changed or is gone"
	fi
}

# ------------------------------------------------ side files: by what they are

printf 'keep me\n' >x
keep x
HERE=$(pwd)
# reached through /dev/: an existing file, under a name that begins with /dev/
expect 2 "tr-window --pass-table /dev/../FILE: an existing file is refused" \
	"tr-window --passes 0 --pass-table '/dev/..$HERE/x' <g.stream >w.stream" &&
	stderr_is "tr-window --pass-table /dev/../FILE: the message" \
		"tr-window: /dev/..$HERE/x: exists; refusing to overwrite it"
unchanged "tr-window --pass-table /dev/../FILE: the file is unchanged" x
expect 2 "tr-window --pass-table alone (pass-through): an existing file is refused" \
	"tr-window --pass-table '/dev/..$HERE/x' <g.stream >w.stream"
unchanged "tr-window --pass-table alone: the file is unchanged" x
expect 2 "tr-encode --pass-table /dev/../FILE: an existing file is refused" \
	"tr-encode --pass-table '/dev/..$HERE/x' -o e.json <g.stream" &&
	stderr_is "tr-encode --pass-table /dev/../FILE: the message" \
		"tr-encode: /dev/..$HERE/x: exists; refusing to overwrite it"
unchanged "tr-encode --pass-table /dev/../FILE: the file is unchanged" x
absent "tr-encode --pass-table /dev/../FILE: no output" e.json e.json.layers.json
no_temp "tr-encode --pass-table /dev/../FILE: no temporary file" .
expect 2 "tr-compact --summary /dev/../FILE: an existing file is refused" \
	"tr-compact --summary '/dev/..$HERE/x' <t.stream >c.stream" &&
	stderr_is "tr-compact --summary /dev/../FILE: the message" \
		"tr-compact: /dev/..$HERE/x: exists; refusing to overwrite it"
unchanged "tr-compact --summary /dev/../FILE: the file is unchanged" x
expect 2 "tr-ranks --svg /dev/../FILE: an existing file is refused" \
	"tr-ranks --svg '/dev/..$HERE/x' g.json.layers.json" &&
	stderr_is "tr-ranks --svg /dev/../FILE: the message" "tr-ranks: /dev/..$HERE/x: File exists"
unchanged "tr-ranks --svg /dev/../FILE: the file is unchanged" x
# an existing file we may not write is still "exists", and still unchanged
chmod 0444 x
expect 2 "tr-compact --summary FILE, read-only: refused as existing" \
	"tr-compact --summary '/dev/..$HERE/x' <t.stream >c.stream" \
	"tr-compact: /dev/..$HERE/x: exists; refusing to overwrite it"
chmod 0644 x
unchanged "tr-compact --summary FILE, read-only: unchanged" x

# /dev/shm is a file system like any other
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	shm=/dev/shm/tr-e2e-outputs.$$
	printf 'shared\n' >"$shm"
	keep "$shm"
	expect 2 "tr-encode --pass-table /dev/shm/FILE: an existing file is refused" \
		"tr-encode --pass-table '$shm' -o e.json <g.stream" \
		"tr-encode: $shm: exists; refusing to overwrite it"
	unchanged "tr-encode --pass-table /dev/shm/FILE: the file is unchanged" "$shm"
	rm -f "$shm" "$shm.cksum"
	# a new name there is a new file, placed whole
	expect 0 "tr-compact --summary /dev/shm/NEW: a new file" \
		"tr-compact --summary '$shm' <t.stream >c.stream"
	if [ -s "$shm" ] && grep -q '^moved: ' "$shm"; then
		pass "tr-compact --summary /dev/shm/NEW: the summary is there"
	else
		fail "tr-compact --summary /dev/shm/NEW: the summary is there" "$(ls -l "$shm" 2>&1)"
	fi
	rm -f "$shm"
else
	skip "side files in /dev/shm" "/dev/shm is not a writable directory here"
fi

# a new file, a FIFO, a character device, a descriptor given: the same bytes
expect 0 "tr-compact --summary NEW: a new file" "tr-compact --summary sum.txt <t.stream >c.stream"
grep -q '^moved: ' sum.txt || fail "tr-compact --summary NEW: a summary" "$(cat sum.txt)"
mkfifo fifo
timeout 30 cat fifo >fifo.txt &  # a program that never opens it: 30 s, not a hang
reader=$!
expect 0 "tr-compact --summary FIFO: written in place" \
	"tr-compact --summary fifo <t.stream >c.stream"
wait "$reader"
same "tr-compact --summary FIFO: the summary" sum.txt fifo.txt
[ -p fifo ] && pass "tr-compact --summary FIFO: still a FIFO" ||
	fail "tr-compact --summary FIFO: still a FIFO" "$(ls -l fifo)"
timeout 30 cat fifo >fifo.txt &  # a program that never opens it: 30 s, not a hang
reader=$!
expect 0 "tr-window --pass-table FIFO: written in place" \
	"tr-window --passes 0 --pass-table fifo <g.stream >w.stream"
wait "$reader"
tr-window -q --passes 0 --pass-table table.txt <g.stream >/dev/null
same "tr-window --pass-table FIFO: the table" table.txt fifo.txt
expect 0 "tr-encode --pass-table /dev/null: a character device" \
	"tr-encode --pass-table /dev/null -o e.json <g.stream"
rm -f e.json e.json.layers.json
printf 'log line\n' >log.txt
expect 0 "tr-compact --summary /dev/fd/3, 3>>LOG: written at the descriptor's end" \
	"tr-compact --summary /dev/fd/3 <t.stream >c.stream 3>>log.txt"
{ printf 'log line\n'; cat sum.txt; } >want.txt
same "tr-compact --summary /dev/fd/3, 3>>LOG: the log keeps its line, the summary follows" \
	want.txt log.txt
keep log.txt
expect 2 "tr-compact --summary /dev/fd/3, 3<LOG: a descriptor not open for writing" \
	"tr-compact --summary /dev/fd/3 <t.stream >c.stream 3<log.txt" &&
	stderr_is "tr-compact --summary /dev/fd/3, 3<LOG: the message" \
		"tr-compact: /dev/fd/3: Bad file descriptor"
unchanged "tr-compact --summary /dev/fd/3, 3<LOG: the file is unchanged" log.txt
expect 0 "tr-encode --pass-table /dev/stdout: the descriptor itself" \
	"tr-encode --pass-table /dev/stdout -o e.json <g.stream"
same "tr-encode --pass-table /dev/stdout: the table" table.txt "$T/out"
rm -f e.json e.json.layers.json
# a refused run leaves no new side file
head -n 5 g.stream >cut.stream
expect 1 "tr-encode --pass-table NEW on a truncated stream: refused" \
	"tr-encode --pass-table new.txt -o e.json <cut.stream"
absent "tr-encode --pass-table NEW on a truncated stream: no table, no output" \
	new.txt e.json e.json.layers.json
no_temp "tr-encode --pass-table NEW on a truncated stream: no temporary file" .

# ------------------------------------------- the commands' --window options

mkdir -p o
for c in lt ct; do
	if [ $c = lt ]; then TC=$LT TP=tr-layer-track; else TC=$CT TP=tr-compact-track; fi
	# bad_window NAME OPTIONS MESSAGE: exit 2, exactly MESSAGE, nothing written
	bad_window() {
		expect 2 "$TP: $1: exit 2" "$TC --output o/out.json $2" &&
			stderr_is "$TP: $1: the message" "$3"
		if [ -z "$(ls -A o)" ] && [ ! -s "$T/out" ]; then
			pass "$TP: $1: nothing written"
		else
			fail "$TP: $1: nothing written" "$(ls -A o)" "$(head -c 200 "$T/out")"
		fi
		rm -rf o/* o/.[!.]*
	}
	bad_window "a window value tr-window refuses" "--window '--passes x'" \
		"$TP: --window '--passes x': tr-window: --passes: invalid value 'x' (A-B or A)"
	bad_window "an unknown window option" "--window '--bogus 1'" \
		"$TP: --window '--bogus 1': tr-window: unknown option '--bogus'"
	bad_window "--from after --to" "--window '--from 5 --to 4'" \
		"$TP: --window '--from 5 --to 4': tr-window: empty window: --from 5 is after --to 4"
	bad_window "two windows" "--window '--passes 1 --from 0'" \
		"$TP: --window '--passes 1 --from 0': tr-window: give one window: --passes A-B, --pass K, --layers A-B [--pass K], --around LN [--pass K] [--pad DUR], or --from MS [--to MS]"
	bad_window "no window in the spec" "--window ' '" \
		"$TP: --window ' ': no window given (e.g. --window '--passes 3-4')"
	bad_window "--help as the spec" "--window --help" \
		"$TP: --window '--help': not a window (e.g. --window '--passes 3-4')"
	bad_window "--window-output the output" "--window '--passes 0' --window-output o/out.json" \
		"$TP: --window-output o/out.json: the window would be written as o/out.json; choose another name"
	bad_window "--window-output a report of the run" \
		"--window '--passes 0' --window-output o/out.json.compact.json" \
		"$TP: --window-output o/out.json.compact.json: the window would be written as o/out.json.compact.json; choose another name"
	bad_window "--window-output the trace" "--window '--passes 0' --window-output t.json" \
		"$TP: t.json: exists; refusing to overwrite it"
	bad_window "--window-output -" "--window '--passes 0' --window-output -" \
		"$TP: --window-output -: the window must be a file, not standard output (its report is written beside it); give a file name"
	bad_window "--window-output in a missing directory" \
		"--window '--passes 0' --window-output o/none/w.json" \
		"$TP: o/none/w.json: the directory o/none does not exist"
	bad_window "the output in a missing directory" "--window '--passes 0' --output o/none/x.json" \
		"$TP: o/none/x.json: the directory o/none does not exist"
	expect 2 "$TP: --window-output without --window" "$TC --output o/out.json --window-output w.json" &&
		if [ "$(head -n 1 "$T/err")" = "$TP: --window-output needs --window" ] &&
		   [ "$(sed -n 2p "$T/err" | cut -c 1-7)" = "usage: " ]; then
			pass "$TP: --window-output without --window: the message, then the usage"
		else
			fail "$TP: --window-output without --window: the message, then the usage" \
				"$(head -c 300 "$T/err")"
		fi
	absent "$TP: --window-output without --window: nothing written" o/out.json
	rm -rf o/*
done

# The window on a full disk: exit 2, the full output complete and verified,
# nothing of the window.
mnt=$T/mnt
if mkdir -p "$mnt" && mount -t tmpfs -o size=16k tmpfs "$mnt" 2>/dev/null; then
	for c in lt ct; do
		# the compacted trace has no guides: a window by time
		if [ $c = lt ]; then
			TC=$LT TP=tr-layer-track spec='--passes 0-1'
		else
			TC=$CT TP=tr-compact-track spec='--from 0'
		fi
		rm -rf o/*
		expect 2 "$TP: the window on a full disk: exit 2" \
			"$TC --output o/full.json --window '$spec' --window-output '$mnt/w.json'" &&
			printf '%s\n' "tr-encode: $mnt/w.json: No space left on device" \
				"$TP: the window '$spec' was not written (exit status 2); the full output o/full.json is complete" \
				>want.err &&
			same "$TP: the window on a full disk: the messages" want.err "$T/err"
		grep -q '^verification: verified' "$T/out" &&
			pass "$TP: the window on a full disk: the full output was verified" ||
			fail "$TP: the window on a full disk: the full output was verified" "$(cat "$T/out")"
		expect 0 "$TP: the window on a full disk: the full output verifies" \
			"tr-verify --source t.json --output o/full.json"
		if [ -z "$(ls -A "$mnt")" ]; then
			pass "$TP: the window on a full disk: nothing of it left"
		else
			fail "$TP: the window on a full disk: nothing of it left" "$(ls -A "$mnt")"
		fi
	done
	umount "$mnt"
else
	skip "the window on a full disk" "mounting a tmpfs is not allowed here"
fi
rm -rf o/*

# ------------------------------------- any byte a file name may hold verifies

OUTNAME=$(printf 'o/a\tb\nc "q" \\ $x')

export OUTNAME
expect 0 "tr-layer-track: an output name with a tab, a newline, quotes and a backslash" \
	"$LT --max-gpu-lanes 3 --record-path --window '--passes 1' --output \"\$OUTNAME.json\""
if [ "$(grep -c '^verification: verified' "$T/out")" = 2 ] && [ -f "$OUTNAME.json.layers.json" ] &&
   [ -f "$OUTNAME.window.json.window.json" ]; then
	pass "tr-layer-track: that name: the output and its window verified"
else
	fail "tr-layer-track: that name: the output and its window verified" "$(cat "$T/out" "$T/err")"
fi
python3 -c 'import json, sys; [json.load(open(p)) for p in sys.argv[1:]]' \
	"$OUTNAME.json.layers.json" "$OUTNAME.window.json.window.json" 2>"$T/oracle" &&
	pass "tr-layer-track: that name: the reports are JSON" ||
	fail "tr-layer-track: that name: the reports are JSON" "$(cat "$T/oracle")"
# the trace under such a name too, its path recorded in the report
cp t.json "$OUTNAME.src.json"
expect 0 "tr-compact-track: the same name, for the trace and the output" \
	"tr-compact-track --trace \"\$OUTNAME.src.json\" --record-path --window '--from 0' \
	 --output \"\$OUTNAME.c.json\""
if [ "$(grep -c '^verification: verified' "$T/out")" = 2 ]; then
	pass "tr-compact-track: that name: the output and its window verified"
else
	fail "tr-compact-track: that name: the output and its window verified" "$(cat "$T/out" "$T/err")"
fi
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["source_file"] != sys.argv[2])' \
	"$OUTNAME.c.json.compact.json" "$OUTNAME.src.json" 2>"$T/oracle" &&
	pass "tr-compact-track: that name: the report records the trace's path, escaped" ||
	fail "tr-compact-track: that name: the report records the trace's path, escaped" \
		"$(cat "$T/oracle")"
rm -rf o/*

# ------------------------------------------- the commands' summary, unwritable

for TP in tr-layer-track tr-compact-track; do
	if [ $TP = tr-layer-track ]; then TC=$LT; else TC=$CT; fi
	rm -rf o/*
	expect 2 "$TP >/dev/full: exit 2" "$TC --output o/f.json >/dev/full" &&
		stderr_is "$TP >/dev/full: one line" "$TP: standard output: No space left on device"
	expect 0 "$TP >/dev/full: the output was still written, and verifies" \
		"tr-verify --source t.json --output o/f.json"
	rm -rf o/*
	expect 0 "$TP | head -n 1: a reader gone is not an error" "$TC --output o/f.json | head -n 1"
	[ ! -s "$T/err" ] && pass "$TP | head -n 1: nothing on stderr" ||
		fail "$TP | head -n 1: nothing on stderr" "$(cat "$T/err")"
done
rm -rf o/*
# (after the line that says the ranks run through xargs)
expect 2 "tr-layer-track-ranks >/dev/full: exit 2" \
	"tr-layer-track-ranks --xargs --outdir o $ANCHOR t.json >/dev/full" &&
	if [ "$(grep -v ' running the ranks with xargs' "$T/err")" = \
	     "tr-layer-track-ranks: standard output: No space left on device" ]; then
		pass "tr-layer-track-ranks >/dev/full: one line"
	else
		fail "tr-layer-track-ranks >/dev/full: one line" "$(cat "$T/err")"
	fi
[ -f o/t.layers.json.gz ] && pass "tr-layer-track-ranks >/dev/full: the rank ran" ||
	fail "tr-layer-track-ranks >/dev/full: the rank ran" "$(ls o)"
rm -rf o/*

# ------------------------------------------------- standard input unreadable

for s in "tr-select-anchors --anchor-regex x --num-layers 1 --anchor-offset 0" \
	"tr-guides --phase p --evidence e" "tr-compact" "tr-window --passes 0" \
	"tr-survey --num-layers 1"; do
	TP=${s%% *}
	expect 2 "$TP </ (a directory): exit 2" "$s </ >/dev/null" &&
		stderr_is "$TP </: the message" "$TP: stdin: read error: Is a directory"
done
expect 2 "tr-encode </ (a directory): exit 2" "tr-encode -o o/e.json </" &&
	stderr_is "tr-encode </: the message" \
		"tr-encode: stdin: read error: Is a directory; no output written"
absent "tr-encode </: no output" o/e.json

# ------------------------------------------------- too few descriptors

for TP in tr-layer-track tr-compact-track tr-layer-track-ranks; do
	case $TP in
	tr-layer-track) TC="$LT --output o/u.json" ;;
	tr-compact-track) TC="$CT --output o/u.json" ;;
	*) TC="tr-layer-track-ranks --xargs --outdir o $ANCHOR t.json" ;;
	esac
	expect 2 "$TP with ulimit -n 12: exit 2" "ulimit -n 12 && $TC" &&
		stderr_is "$TP with ulimit -n 12: one line" \
			"$TP: the limit on open files is 12 (ulimit -n); the command needs at least 32"
	absent "$TP with ulimit -n 12: nothing written" o/u.json o/t.layers.json.gz
done
expect 0 "tr-layer-track with ulimit -n 32: runs" \
	"ulimit -n 32 && $LT --max-gpu-lanes 3 --window '--passes 1' --output o/u.json"
rm -rf o/*

# ------------------------------------- tr-window's stdin, changed under it

# Standard input is a regular file, read a second time in place.  The
# reader of tr-window's output empties it after the first byte; tr-window,
# whose 1 MiB writes then wait for that reader, finds it shorter.
tr-gen --target-bytes 6M --seed 5 -o big.json && tr-decode big.json >big.stream && rm -f big.json
run "{ tr-window --from 0 <big.stream 2>win.err; echo \$? >win.rc; } |
	{ head -c 1 >/dev/null; : >big.stream; cat >/dev/null; }"
if [ "$(cat win.rc)" = 2 ]; then
	pass "tr-window, stdin shrunk between the passes: exit 2"
else
	fail "tr-window, stdin shrunk between the passes: exit 2" "exit status $(cat win.rc)" \
		"$(cat win.err)"
fi
cp win.err "$T/err"
stderr_is "tr-window, stdin shrunk between the passes: the message" \
	"tr-window: stdin: the input changed between the two passes (it is shorter now); cut the window from a file that does not change"
rm -f big.stream

# ------------------------------------------------------------------ --force

# --force replaces an existing output by a rename once the run succeeded;
# a run that fails leaves the old file byte for byte (cksum); the input is
# never the output it replaces (by device and inode, not by name).
holds() {
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "failed: $*"; fi
}
tr-gen --layers 6 --passes 3 --seed 7 -o fg.json
tr-decode fg.json >fg.stream
tr-encode -o fresh.json <fg.stream
printf 'old\n' >f.json && cksum <f.json >f.sum
expect 2 "tr-encode without --force: an existing output is refused" "tr-encode -o f.json <fg.stream" \
	"tr-encode: f.json: output exists; refusing to overwrite it"
expect 0 "tr-encode --force: exit 0" "tr-encode --force -o f.json <fg.stream"
same "tr-encode --force: the output replaced by the new trace" fresh.json f.json
printf 'old\n' >f.json
head -c 5000 fg.stream >cut.stream
expect 1 "tr-encode --force, a run that fails: exit 1" "tr-encode --force -o f.json <cut.stream"
holds "tr-encode --force, a run that fails: the old file untouched" \
	test "$(cksum <f.json)" = "$(cat f.sum)"
holds "tr-encode --force, a run that fails: no temporary file left" \
	test -z "$(find . -maxdepth 1 -name '.f.json.tmp.*')"
cp fg.json same.json && cksum <same.json >same.sum
expect 2 "tr-encode --force: the source trace as the output is refused" \
	"tr-decode same.json | tr-encode --force -o same.json"
stderr_is "tr-encode --force: the source trace as the output: the message" \
	"tr-encode: same.json: the output is the source trace same.json; --force never replaces the file it reads"
holds "tr-encode --force: the source trace untouched" test "$(cksum <same.json)" = "$(cat same.sum)"
ln same.json same-link.json
expect 2 "tr-encode --force: the source under another name (a hard link) is refused" \
	"tr-decode same.json | tr-encode --force -o same-link.json" \
	"tr-encode: same-link.json: the output is the source trace same.json; --force never replaces the file it reads"
cp fg.stream in.stream && cksum <in.stream >in.sum
expect 2 "tr-encode --force: standard input as the output is refused" \
	"tr-encode --force -o in.stream <in.stream"
stderr_is "tr-encode --force: standard input as the output: the message" \
	"tr-encode: in.stream: the output is the input; --force never replaces the file it reads"
holds "tr-encode --force: standard input untouched" test "$(cksum <in.stream)" = "$(cat in.sum)"
printf 'old\n' >gen.json
expect 2 "tr-gen without --force: an existing output is refused" "tr-gen -o gen.json" \
	"tr-gen: gen.json: File exists"
expect 0 "tr-gen --force: exit 0" "tr-gen --force --layers 6 --passes 3 --seed 7 -o gen.json"
same "tr-gen --force: the output replaced" fg.json gen.json
# the commands: the output, its report and the window, all replaced
LT="tr-layer-track --trace fg.json --output lt.json --anchor-regex rotary_embedding --num-layers 6 --anchor-offset 0 --passes 3 --phase decode --evidence e --window '--passes 1'"
expect 0 "tr-layer-track: a first run" "$LT"
for f in lt.json lt.json.layers.json lt.window.json lt.window.json.window.json; do
	cp "$f" "first.$f"
	printf 'old\n' >"$f"
done
cksum lt.json lt.json.layers.json lt.window.json lt.window.json.window.json >lt.sum
expect 2 "tr-layer-track without --force: an existing output is refused" "$LT" \
	"tr-layer-track: lt.json: exists; refusing to overwrite it"
expect 1 "tr-layer-track --force, a run that fails: exit 1" "$LT --force --num-layers 7"
holds "tr-layer-track --force, a run that fails: the old files untouched" \
	test "$(cksum lt.json lt.json.layers.json lt.window.json lt.window.json.window.json)" = "$(cat lt.sum)"
expect 0 "tr-layer-track --force: exit 0" "$LT --force"
for f in lt.json lt.json.layers.json lt.window.json lt.window.json.window.json; do
	same "tr-layer-track --force: $f replaced" "first.$f" "$f"
done
expect 2 "tr-layer-track --force: the trace as the output is refused" \
	"tr-layer-track --trace fg.json --output fg.json --anchor-regex rotary_embedding --num-layers 6 --anchor-offset 0 --passes 3 --phase decode --evidence e --force" \
	"tr-layer-track: fg.json: the output is the source trace; choose another name"
same "tr-layer-track --force: the trace untouched" gen.json fg.json
