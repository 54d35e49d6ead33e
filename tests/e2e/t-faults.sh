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

mkdir -p "$T/adir"
expect 2 "tr-encode -o a directory: refused" "tr-encode -o '$T/adir' <'$T/t.stream'" \
	"output exists; refusing to overwrite it"
expect 2 "tr-layer-track --output a directory: refused" \
	"tr-layer-track --trace '$T/t.json' --output '$T/adir' --anchor-regex flash \
	 --num-layers 4 --anchor-offset 0 --phase p --evidence e" "exists; refusing to overwrite it"
expect 2 "tr-compact-track: output equal to the source through a .. path" \
	"cd '$T/adir' && tr-compact-track --trace ../t.json --output ../adir/../t.json" \
	"the output is the source trace"

# signal_command NAME SIG CMD OUTPUT...: start CMD on a trace big enough to
# take a while, send SIG after 0.3 s; nothing of OUTPUT may remain.
tr-gen --layers 8 --passes 4 --streams 8 --concurrency 2 --target-bytes 120M -o "$T/big.json"
signal_command() {
	name=$1 sig=$2 cmd=$3
	shift 3
	# a background job of a shell starts with SIGINT ignored: restore it
	sh -c "exec env --default-signal=INT $cmd" >/dev/null 2>"$T/err" &
	pid=$!
	sleep 0.3
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	status=$?
	if [ "$status" -eq 0 ]; then
		fail "$name" "finished before the signal (exit 0): make the trace bigger"
		return
	fi
	absent "$name: no output" "$@" && no_temp "$name: no temporary file" "$T"
}
signal_command "tr-gen -o, SIGTERM" TERM "tr-gen --target-bytes 2G -o '$T/sig.json'" "$T/sig.json"
signal_command "tr-gen -o, SIGINT" INT "tr-gen --target-bytes 2G -o '$T/sig.json'" "$T/sig.json"
signal_command "tr-layer-track, SIGTERM" TERM \
	"tr-layer-track --trace '$T/big.json' --output '$T/lt.json' --anchor-regex \
	 '^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,' --num-layers 8 \
	 --anchor-offset 0 --phase p --evidence e" "$T/lt.json" "$T/lt.json.layers.json"
signal_command "tr-layer-track, SIGINT" INT \
	"tr-layer-track --trace '$T/big.json' --output '$T/lt.json' --anchor-regex \
	 '^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,' --num-layers 8 \
	 --anchor-offset 0 --phase p --evidence e --max-gpu-lanes 4" \
	"$T/lt.json" "$T/lt.json.layers.json"
signal_command "tr-compact-track, SIGTERM" TERM \
	"tr-compact-track --trace '$T/big.json' --output '$T/ct.json'" \
	"$T/ct.json" "$T/ct.json.compact.json"
sleep 0.5
if ps -eo args | grep -v grep | grep -q "tr-decode $T/big.json"; then
	fail "signals: every stage of the commands' pipelines stopped" "$(ps -eo pid,args | grep tr-)"
else
	pass "signals: every stage of the commands' pipelines stopped"
fi
rm -f "$T/big.json"
