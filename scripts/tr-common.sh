# Shared by the tr-layer-track and tr-compact-track commands (sourced, bash).
# Finds the programs, applies the output safety rules and runs a pipeline in
# its own process group so that an interrupt reaches every stage.

# The progress line: tr-decode draws the reading of the trace, tr-compact
# its second pass, tr-verify its reading of the source (their --progress),
# each in the phase the command names, on the command's standard error.
# On when --progress is given, or when standard error is a terminal and
# --quiet is not given (the last of the two wins).  tr_progress_setup
# decides (tr_progress: 1 or empty); tr_progress_opts ARRAY PHASE [FD] sets
# ARRAY to a stage's options: the phase and the descriptor to draw on
# (when it is not the stage's standard error), or --quiet for a stage on
# the command's stderr when --quiet was given (else nothing: the stage
# decides as the command did).
tr_progress_mode= tr_progress=
tr_set_progress() { tr_progress_mode=force; }
tr_set_quiet() { tr_progress_mode=quiet; }
tr_progress_setup() {
	case $tr_progress_mode in
	force) tr_progress=1 ;;
	quiet) tr_progress= ;;
	*) if [ -t 2 ]; then tr_progress=1; else tr_progress=; fi ;;
	esac
}
tr_progress_opts() {
	local -n tr_popts=$1
	tr_popts=()
	if [ -n "$tr_progress" ]; then
		tr_popts=("--progress=$2")
		[ -z "${3:-}" ] || tr_popts+=(--progress-fd "$3")
	elif [ "$tr_progress_mode" = quiet ] && [ -z "${3:-}" ]; then
		tr_popts=(--quiet)  # a stage on the command's stderr, a terminal
	fi
}
# A line a stage left drawn (it was stopped) cleared before a message.
tr_progress_clear() {
	[ -z "$tr_progress" ] || printf '\r\033[K' >&2
}

# tr_bytes VAR N: VAR set to the byte count N as the progress line writes
# it (progress.h): "512B", "1.0K", "612.3M", "1.6G".
tr_bytes() {
	local tr_n=$2 tr_unit=1024 tr_k=0 tr_t tr_units=KMG
	if [ "$tr_n" -lt 1024 ]; then
		printf -v "$1" '%sB' "$tr_n"
		return
	fi
	while [ $tr_k -lt 2 ] && [ "$tr_n" -ge $((tr_unit * 1024)) ]; do
		tr_unit=$((tr_unit * 1024)) tr_k=$((tr_k + 1))
	done
	tr_t=$((tr_n / tr_unit * 10 + (tr_n % tr_unit * 10 + tr_unit / 2) / tr_unit))
	if [ $tr_t -ge 10240 ] && [ $tr_k -lt 2 ]; then
		tr_unit=$((tr_unit * 1024)) tr_k=$((tr_k + 1))
		tr_t=$((tr_n / tr_unit * 10 + (tr_n % tr_unit * 10 + tr_unit / 2) / tr_unit))
	fi
	printf -v "$1" '%d.%d%s' $((tr_t / 10)) $((tr_t % 10)) "${tr_units:tr_k:1}"
}

# tr_progress_line DONE-COUNT COUNT DONE-BYTES TOTAL-BYTES ELAPSED-US: the
# progress line of a batch (tr-layer-track-ranks) on stderr, as tr-decode
# draws its own: "ranks 3/8 612.3M/1.6G 37% 45.2M/s ETA 0:23".
tr_progress_line() {
	local d t r rate=0 pct=100 eta=0:00 left
	[ "$5" -le 0 ] || rate=$(($3 * 1000000 / $5))
	tr_bytes d "$3"
	tr_bytes t "$4"
	tr_bytes r "$rate"
	if [ "$3" -lt "$4" ]; then
		pct=$(($3 * 100 / $4))
		if [ $rate -eq 0 ]; then
			eta=-:--
		else
			left=$((($4 - $3 + rate - 1) / rate))
			if [ $left -lt 3600 ]; then
				printf -v eta '%d:%02d' $((left / 60)) $((left % 60))
			else
				printf -v eta '%d:%02d:%02d' $((left / 3600)) $((left / 60 % 60)) $((left % 60))
			fi
		fi
	fi
	printf '\rranks %d/%d %s/%s %d%% %s/s ETA %s\033[K' "$1" "$2" "$d" "$t" "$pct" "$r" "$eta" >&2
}

# tr_progress_ranks COUNT TOTAL-BYTES: reads one line per finished rank
# (the bytes of its trace) and draws the batch's line: nothing in the first
# second, then at each rank's end (at most four times a second) and once a
# second; cleared at the end.
tr_progress_ranks() {
	local count=$1 total=$2 done=0 bytes=0 line start now last=0 drawn= us
	start=${EPOCHREALTIME/./}
	while :; do
		if IFS= read -r -t 1 line; then
			[[ $line =~ ^[0-9]+$ ]] || continue
			done=$((done + 1)) bytes=$((bytes + line))
		elif [ $? -le 128 ]; then
			break
		fi
		now=${EPOCHREALTIME/./}
		us=$((now - start))
		[ $us -ge 1000000 ] || continue
		[ -z "$drawn" ] || [ $((now - last)) -ge 250000 ] || continue
		tr_progress_line "$done" "$count" "$bytes" "$total" "$us"
		drawn=1 last=$now
	done
	[ -z "$drawn" ] || printf '\r\033[K' >&2
}

# Prefer the programs beside the command (installed, or in a build tree).
tr_find_programs() {
	local here=$1 d
	for d in "$here" "$here/../build/bin"; do
		if [ -x "$d/tr-decode" ]; then PATH="$d:$PATH"; return; fi
	done
}

tr_die() { echo "$prog: $*" >&2; exit 2; }

# tr_usage_error MESSAGE: the message, then the usage, on stderr; exit 2.
tr_usage_error() {
	echo "$prog: $*" >&2
	usage >&2
	exit 2
}

# The command line is parsed as getopt_long parses the C filters': --name
# VALUE or --name=VALUE, and any unambiguous abbreviation of a name (an exact
# name wins over the longer names it begins).  The command describes its
# options in the array tr_options, one "NAME KIND TARGET..." entry each:
#   value VAR          the value goes to the variable VAR
#   flag VAR           VAR=1
#   pass ARRAY...      --NAME VALUE is appended to each ARRAY (the options of
#                      a stage: a new pass-through option is one entry)
#   passflag ARRAY...  --NAME is appended to each ARRAY
#   call FUNCTION      FUNCTION runs at once (--help, --version)
# -h is --help.  The commands take no operands, except one that declares the
# array tr_operands: its operands (and every word after --) go there.

# tr_append ARRAY WORD...: append the words to the array named ARRAY.
tr_append() {
	local -n tr_dest=$1
	shift
	tr_dest+=("$@")
}

tr_parse_options() {
	local arg name value has_value entry i match skip kind targets t
	local names=() entries=() possible=()
	for entry in "${tr_options[@]}"; do
		names+=("${entry%% *}")
		entries+=("$entry")
	done
	while [ $# -gt 0 ]; do
		arg=$1
		shift
		case $arg in
		--)
			if declare -p tr_operands >/dev/null 2>&1; then
				tr_operands+=("$@")
				return
			fi
			[ $# -eq 0 ] || tr_usage_error "unexpected argument '$1'"; return ;;
		-h) arg=--help ;;
		--[!=]*) ;;
		-?*) tr_usage_error "unknown option '$arg'" ;;
		*)
			if declare -p tr_operands >/dev/null 2>&1; then
				tr_operands+=("$arg")
				continue
			fi
			tr_usage_error "unexpected argument '$arg'" ;;
		esac
		name=${arg#--} has_value=
		if [[ $name == *=* ]]; then
			value=${name#*=} name=${name%%=*} has_value=1
		fi
		match= possible=()
		for i in "${!names[@]}"; do
			if [ "${names[i]}" = "$name" ]; then
				match=$i possible=()
				break
			fi
			case ${names[i]} in "$name"*) possible+=("$i") ;; esac
		done
		if [ -z "$match" ]; then
			case ${#possible[@]} in
			0) tr_usage_error "unknown option '--$name'" ;;
			1) match=${possible[0]} ;;
			*)
				t=
				for i in "${possible[@]}"; do t="$t '--${names[i]}'"; done
				tr_usage_error "option '--$name' is ambiguous; possibilities:$t" ;;
			esac
		fi
		name=${names[match]}
		read -r skip kind targets <<<"${entries[match]}"
		case $kind in
		value|pass)
			if [ -z "$has_value" ]; then
				[ $# -gt 0 ] || tr_usage_error "option '--$name' requires an argument"
				value=$1
				shift
			fi ;;
		*)
			[ -z "$has_value" ] ||
				tr_usage_error "option '--$name' takes no argument" ;;
		esac
		case $kind in
		value) printf -v "$targets" '%s' "$value" ;;
		flag) printf -v "$targets" '%s' 1 ;;
		pass) for t in $targets; do tr_append "$t" "--$name" "$value"; done ;;
		passflag) for t in $targets; do tr_append "$t" "--$name"; done ;;
		call) "$targets" ;;
		esac
	done
}

# tr_check_io_names TRACE OUTPUT: the commands read the trace twice (to
# write the output and to verify it) and write a file with its report
# beside it: standard input and output cannot stand in for them.
tr_check_io_names() {
	[ -n "$1" ] && [ -n "$2" ] || tr_usage_error "--trace and --output are required"
	[ "$1" != - ] || tr_die "--trace -: the trace must be a file, not standard input" \
		"(it is read twice: to write the output and to verify it); save it to a file" \
		"first (./- names a file called -)"
	[ "$2" != - ] || tr_die "--output -: the output must be a file, not standard output" \
		"(its report is written beside it); give a file name (./- names a file called -)"
}

# tr_check_paths SOURCE OUTPUT REPORT...: the source is readable and is never
# written (not by path, not under another name); nothing exists in the place
# of the output or a report, unless $force (--force): then a file there is
# replaced by tr-encode once the run has succeeded, but never a directory.
tr_check_paths() {
	local trace=$1 output=$2 f
	shift 2
	[ -r "$trace" ] && [ -f "$trace" ] || tr_die "$trace: not a readable file"
	if [ "$(realpath -m -- "$output")" = "$(realpath -m -- "$trace")" ] ||
	   { [ -e "$output" ] && [ "$output" -ef "$trace" ]; }; then
		tr_die "$output: the output is the source trace; choose another name"
	fi
	for f in "$output" "$@"; do
		if [ -n "${force:-}" ] && [ -d "$f" ]; then
			tr_die "$f: is a directory"
		elif [ -z "${force:-}" ] && { [ -e "$f" ] || [ -L "$f" ]; }; then
			tr_die "$f: exists; refusing to overwrite it"
		fi
	done
	tr_check_dir "$output"
}

# tr_check_dir PATH: the directory that PATH would be written in exists.
tr_check_dir() {
	local dir
	case $1 in
	*/*) dir=${1%/*} dir=${dir:-/} ;;
	*) dir=. ;;
	esac
	[ -d "$dir" ] || tr_die "$1: the directory $dir does not exist"
}

# tr_check_window SPEC WINDOW TRACE FILE...: the --window options, checked
# before anything is read.  tr-window itself judges SPEC, on an empty
# stream: it checks its options first and refuses the stream (exit 1) only
# once they are accepted.  The window and its report are new files in a
# directory that exists, and neither is the trace or a FILE of the run.
tr_check_window() {
	local spec=$1 wout=$2 trace=$3 words err status w f
	shift 3
	[ "$wout" != - ] || tr_die "--window-output -: the window must be a file, not standard" \
		"output (its report is written beside it); give a file name"
	set -f
	# shellcheck disable=SC2206 # the spec is split into words on purpose
	words=($spec)
	set +f
	[ ${#words[@]} -gt 0 ] || tr_die "--window '$spec': no window given (e.g. --window '--passes 3-4')"
	err=$(tr-window "${words[@]}" --pass-table /dev/null </dev/null 2>&1 >/dev/null)
	status=$?
	case $status in
	1) ;;
	0) tr_die "--window '$spec': not a window (e.g. --window '--passes 3-4')" ;;
	*) tr_die "--window '$spec': ${err%%$'\n'*}" ;;
	esac
	for w in "$wout" "$wout.window.json"; do
		for f in "$trace" "$@"; do
			if [ "$(realpath -m -- "$w")" = "$(realpath -m -- "$f")" ]; then
				tr_die "--window-output $wout: the window would be written as $f;" \
					"choose another name"
			fi
		done
	done
	tr_check_dir "$wout"
}

# tr_open_scratch: a scratch file for a stage's summary, open on the
# descriptor tr_scratch_fd and already removed, so that a run killed even by
# SIGKILL leaves nothing in $TMPDIR.  A stage writes it as
# /dev/fd/$tr_scratch_fd, through that descriptor (at its offset, which the
# writing moves to the end); read it from the start with
# <"/dev/fd/$tr_scratch_fd", which opens the file anew.
tr_open_scratch() {
	local path
	path=$(mktemp "${TMPDIR:-/tmp}/$prog.XXXXXX") || tr_die "cannot create a temporary file"
	if ! { exec {tr_scratch_fd}<>"$path"; } 2>/dev/null; then
		rm -f -- "$path"
		tr_die "cannot open a temporary file in ${TMPDIR:-/tmp}"
	fi
	rm -f -- "$path"
}

# tr_print TEXT: print the command's summary.  A reader that has gone away
# (| head -n 1) must not end the command before it verified the output:
# SIGPIPE is ignored for the printing, and once stdout is found closed the
# rest of the output (the verdict too) goes nowhere.  The exit status and
# stderr still say how the run ended.  Any other write error (a full disk,
# /dev/full) is one line on stderr at once, and the command, which still
# verifies what it wrote, ends with exit status 2 (tr_exit), as every
# program of the suite does.
tr_print_error=
tr_print() {
	local err
	trap '' PIPE
	if ! { err=$(printf '%s\n' "$1" 2>&1 >&3 3>&-); } 3>&1; then
		case $err in
		*"Broken pipe"*) ;;
		*)
			[ -n "$tr_print_error" ] || echo "$prog: standard output: ${err##*write error: }" >&2
			tr_print_error=1 ;;
		esac
		exec >/dev/null
	fi
	trap - PIPE
}

# tr_exit STATUS: exit with STATUS, or 2 when the summary could not be
# written (tr_print).
tr_exit() {
	[ -z "$tr_print_error" ] || exit 2
	exit "$1"
}

# tr_worst_status STATUS...: the worst of a pipeline's statuses (call it with
# "${PIPESTATUS[@]}" as the last command of the pipeline's function): a usage
# error (2) in one stage outranks the refusal (1) that the empty stream then
# causes downstream, and a stage ended by SIGPIPE (141) only follows another's
# failure.  A stage ended by another signal is named on stderr (the
# pipeline functions send bash's own job messages nowhere).
tr_worst_status() {
	local s worst=0 quiet=
	# the command is gone (its lifeline hung up, below): its stages were
	# stopped for that, and there is no one to tell
	! tr_lifeline_lost || quiet=1
	for s; do
		case $s in
		0|141) ;;
		1) [ $worst -ne 0 ] || worst=1 ;;
		*)
			worst=2
			[ "$s" -le 128 ] || [ -n "$quiet" ] ||
				echo "$prog: a stage of the pipeline was ended by SIG$(kill -l "$s")" >&2 ;;
		esac
	done
	return $worst
}

# One error, not several: when a stage fails, the stage after it finds its
# input stream ending early and says so in one line ("stdin: empty input:
# no stream (an earlier stage failed, ...)" or "stdin: truncated stream:
# ..."), and the stages after that stay quiet (tr-stream(5)).  In the
# commands' pipelines every stage but the first reads an earlier stage, so
# that line only repeats a failure already told: tr_quiet_open starts a
# filter that drops it, on the descriptor tr_quiet_fd, writing to the
# current stderr; the stages after the first write their stderr there.  The
# filter ignores interrupts, so that a stage's last words still get out;
# tr_quiet_close waits until it has written everything.
# With the progress line on, each message line begins by clearing the
# terminal's line ("\r", erase to its end), where a stage may have left the
# line half-drawn.
tr_quiet_open() {
	if [ -n "$tr_progress" ]; then
		exec {tr_quiet_fd}> >(trap '' INT TERM HUP
			grep --line-buffered -v -E \
				'^tr-[a-z-]+: stdin: (empty input: no stream|truncated stream: )' |
				sed -u 's/^/\r\x1b[K/' >&2)
	else
		exec {tr_quiet_fd}> >(trap '' INT TERM HUP
			exec grep --line-buffered -v -E \
				'^tr-[a-z-]+: stdin: (empty input: no stream|truncated stream: )' >&2)
	fi
	tr_quiet_pid=$!
}
tr_quiet_fd= tr_quiet_pid=
tr_quiet_close() {
	[ -n "$tr_quiet_fd" ] || return 0
	exec {tr_quiet_fd}>&-
	tr_quiet_fd=
	wait "$tr_quiet_pid" 2>/dev/null
	return 0
}

# An interrupt (SIGINT, SIGTERM, SIGHUP) stops whatever the command runs and
# says what it leaves: nothing while the pipeline runs (tr-encode places the
# trace and its reports as one set or not at all), the written but
# unverified output once it is placed.  The command then dies of the same
# signal, as an interrupted program should.  tr_catch_interrupts TRACE OUTPUT
# sets this up for the whole run.
tr_trace= tr_output= tr_output_was=
tr_catch_interrupts() {
	tr_trace=$1 tr_output=$2
	# with --force an earlier output may be there: only a new one counts
	tr_output_was=$(stat -L -c %d:%i -- "$2" 2>/dev/null)
	trap 'tr_interrupted INT' INT
	trap 'tr_interrupted TERM' TERM
	trap 'tr_interrupted HUP' HUP
}

tr_interrupted() {
	local job
	trap '' INT TERM HUP
	tr_progress_clear
	# the filter of the stages' messages ends once nobody holds it open:
	# the wait below waits for it too
	tr_quiet_close
	# Every job of the command: the pipeline's process group gets SIGINT,
	# not SIGTERM (a shell reports a pipeline that died of any other signal,
	# "Terminated", and that is not news to the user), tr-verify SIGTERM.
	# From the job table, not from a variable: on a loaded machine the
	# signal can come before the command has stored the job's pid.
	for job in $(jobs -p); do
		kill -INT -- -"$job" 2>/dev/null || kill -TERM "$job" 2>/dev/null
	done
	wait
	if [ -e "$tr_output" ] &&
	   [ "$(stat -L -c %d:%i -- "$tr_output" 2>/dev/null)" != "$tr_output_was" ]; then
		echo "$prog: interrupted (SIG$1) after writing $tr_output and its report;" \
			"it is not verified: verification did not run to the end. To verify it:" >&2
		echo "  tr-verify --source $(tr_quote "$tr_trace") --output $(tr_quote "$tr_output")" >&2
	else
		echo "$prog: interrupted (SIG$1); nothing was written" >&2
	fi
	trap - "$1"
	kill -"$1" $$
}

# A command that is killed by SIGKILL runs no trap: its jobs live on, and
# without a guard the pipeline would place the output seconds later,
# unverified, with no one left to say so.  The guard is a lifeline: a pipe
# whose write end only the command's own shell holds (every job closes it
# first thing), so that the kernel closes it when the command ends, however
# it ends.  Each job watches the read end and stops its stages as an
# interrupt would when it hangs up, and tr-encode (--lifeline) places
# nothing once it has.  A command run by another (each rank of
# tr-layer-track-ranks) also holds the lifelines named in TR_LIFELINE, the
# read ends its caller passed down: its jobs stop when either ends.
# tr_open_lifeline sets tr_lifelines (the read ends: the caller's) and
# tr_lifeline_w (the write end); a job adds a read end of its own to
# tr_lifelines (tr_lifeline_job), and sets tr_lifeline_args, tr-encode's
# options.  The command itself holds one descriptor more than without it.
tr_lifelines=() tr_lifeline_w= tr_lifeline_args=() tr_watchers=()
tr_open_lifeline() {
	local fd r outer=()
	read -r -a outer <<<"${TR_LIFELINE-}"
	for fd in "${outer[@]}"; do
		[[ $fd =~ ^[0-9]+$ ]] && [ -p "/dev/fd/$fd" ] ||
			tr_die "TR_LIFELINE: '$fd' is not an open pipe (it names descriptors" \
				"inherited from the command that runs this one)"
		tr_lifelines+=("$fd")
	done
	# the read end of a pipe, from a process substitution that writes
	# nothing; once it has ended (the pipe at its end: no writer anywhere
	# else), its write end, opened through /dev/fd
	{ exec {r}< <(:) && ! read -r -u "$r" _ && exec {tr_lifeline_w}>"/dev/fd/$r" {r}<&-; } \
		2>/dev/null || tr_die "cannot open a pipe (ulimit -n: $(ulimit -n) descriptors)"
}

# tr_lifeline_job: in a job's shell, before anything else: a read end of
# the command's lifeline (opened through /dev/fd from the write end), then
# the write end closed, so that the command alone holds it.
tr_lifeline_job() {
	local fd r
	[ -n "$tr_lifeline_w" ] || return 0
	{ exec {r}<"/dev/fd/$tr_lifeline_w"; } 2>/dev/null ||
		tr_die "cannot open a pipe (ulimit -n: $(ulimit -n) descriptors)"
	exec {tr_lifeline_w}>&-
	tr_lifelines+=("$r")
	for fd in "${tr_lifelines[@]}"; do tr_lifeline_args+=(--lifeline "$fd"); done
}

# tr_lifeline_down: tr_lifeline_down set to the TR_LIFELINE of a command
# that this one runs: its callers' lifelines and a read end of its own
# (opened now, kept open).
tr_lifeline_down=
tr_lifeline_down() {
	local r
	{ exec {r}<"/dev/fd/$tr_lifeline_w"; } 2>/dev/null ||
		tr_die "cannot open a pipe (ulimit -n: $(ulimit -n) descriptors)"
	tr_lifeline_down="${tr_lifelines[*]} $r"
}

# tr_watch_lifelines: in a job's shell, one watcher per lifeline; when one
# hangs up, the job's process group gets SIGINT, as from tr_interrupted.
# The watchers hold none of the command's outputs (a reader of them would
# wait for their end).
tr_watch_lifelines() {
	local fd job=$BASHPID
	for fd in "${tr_lifelines[@]}"; do
		{ read -r -u "$fd" _; kill -INT -- -"$job"; } </dev/null >/dev/null 2>&1 &
		tr_watchers+=("$!")
	done
}

# tr_lifeline_lost: true once a lifeline has hung up (no one writes to it:
# readable means at its end).
tr_lifeline_lost() {
	local fd
	for fd in "${tr_lifelines[@]}"; do
		! read -r -t 0 -u "$fd" || return 0
	done
	return 1
}

tr_end_watch() {
	[ ${#tr_watchers[@]} -eq 0 ] || kill "${tr_watchers[@]}" 2>/dev/null
}

# tr_quote WORD: WORD as the shell would read it back (for printed commands).
tr_quote() {
	case $1 in
	*[!A-Za-z0-9_./:=@%+,-]*|'') printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}

# tr_run_pipeline FUNCTION: runs the function (a pipeline ending with
# tr_worst_status) in its own process group, so that an interrupt stops every
# stage (tr-encode then removes its temporary files), and so does the end
# of the command (its lifeline, above).  Returns the function's status.
tr_run_pipeline() {
	local status group
	set -m
	# The job's shell outlives its stages: it runs the trap only once the
	# pipeline has ended, so that waiting for the job waits for every stage
	# (tr-encode may be taking back a half-placed output).
	(
		trap 'tr_end_watch; exit 130' INT TERM HUP
		tr_lifeline_job
		tr_watch_lifelines
		"$1"
		status=$?
		tr_end_watch
		exit $status
	) &
	group=$!
	set +m
	wait "$group"
	status=$?
	return $status
}

# tr_verify TRACE OUTPUT: run tr-verify and report its verdict.  On failure
# the files stay for inspection, and the command says so and exits 1.  It
# runs as a job of its own so that an interrupt is seen at once; its report
# goes to a file that is unlinked as soon as it is open, so that nothing is
# left behind even by a killed run.
tr_verify() {
	local trace=$1 output=$2 log status checks line re
	if tr_is_pftrace "$output"; then
		tr_verify_pftrace
		return
	fi
	log=$(mktemp "${TMPDIR:-/tmp}/$prog.verify.XXXXXX") || tr_die "cannot create a temporary file"
	if ! { exec 3>"$log" 4<"$log"; } 2>/dev/null; then
		rm -f "$log"
		tr_die "cannot open a temporary file in ${TMPDIR:-/tmp}"
	fi
	rm -f "$log"
	tr_run_pipeline tr_verify_job
	status=$?
	exec 3>&-
	if [ $status -eq 0 ]; then
		# the names of the checks that ran, from lines "NAME   ok: ...",
		# read by the shell (no sed or paste: each rank of a batch runs this)
		checks= re='^([a-z][a-z ]*[a-z]) +ok: '
		while IFS= read -r line || [ -n "$line" ]; do
			[[ $line =~ $re ]] || continue
			checks+=${checks:+, }${BASH_REMATCH[1]}
		done <&4
		exec 4<&-
		tr_print "verification: verified (tr-verify: $checks)"
		return 0
	fi
	cat <&4 >&2
	exec 4<&-
	echo "$prog: verification FAILED (tr-verify exit status $status): do not use this" \
		"output; it is left for inspection at $output and its report(s)" >&2
	tr_exit 1
}

# tr_verify's job: tr-verify, its report into the log (3); the job shell's
# own stderr, where bash would report the program ended by a signal, goes
# nowhere (the verdict says it).
tr_verify_job() {
	local pfd popts
	exec {pfd}>&2 2>/dev/null
	tr_progress_opts popts verifying "$pfd"
	tr-verify "${verify_args[@]}" "${popts[@]}" --source "$trace" --output "$output" \
		>&3 2>&1 3>&- 4<&-
}

# tr_is_pftrace OUTPUT: the output is a Perfetto trace (--format perfetto,
# or by its name, as tr-encode(1) chooses).
tr_is_pftrace() {
	case ${format:-} in
	perfetto) return 0 ;;
	json) return 1 ;;
	esac
	case $1 in *.pftrace | *.pftrace.gz) return 0 ;; esac
	return 1
}

# tr_check_format: --format's value, and what a Perfetto output cannot do.
tr_check_format() {
	case ${format:-} in
	'' | json | perfetto) ;;
	*) tr_usage_error "--format: invalid value '$format' (allowed json or perfetto)" ;;
	esac
	[ -z "${format:-}" ] || encode_args+=(--format "$format")
	if tr_is_pftrace "$output" && [ -n "${window:-}" ]; then
		tr_die "--window cuts a window of a JSON output; with a Perfetto output, cut one" \
			"from a JSON output or the source (tr-decode IN | tr-window ... | tr-encode -o W)"
	fi
}

# tr_verify_pftrace: a Perfetto output is compared event by event with the
# stream it was written from (tr-verify(1)): the command's stream_job, the
# pipeline up to tr-encode, runs again into tr-verify.
tr_verify_pftrace() {
	local log status
	log=$(mktemp "${TMPDIR:-/tmp}/$prog.verify.XXXXXX") || tr_die "cannot create a temporary file"
	tr_run_pipeline tr_verify_pftrace_job 3>"$log"
	status=$?
	if [ $status -eq 0 ]; then
		rm -f "$log"
		tr_print "verification: verified (tr-verify: every event of the Perfetto trace against the stream it was written from)"
		return 0
	fi
	cat "$log" >&2
	rm -f "$log"
	echo "$prog: verification FAILED (tr-verify exit status $status): do not use this" \
		"output; it is left for inspection at $output and its report(s)" >&2
	tr_exit 1
}

tr_verify_pftrace_job() {
	exec 2>/dev/null
	stream_job | tr-verify --format perfetto --source - --output "$output" >&3 2>&1
}

# tr_window_name OUTPUT: the default name of the window beside OUTPUT
# (x.json.gz -> x.window.json.gz, x.json -> x.window.json).
tr_window_name() {
	case $1 in
	*.json.gz) echo "${1%.json.gz}.window.json.gz" ;;
	*.json) echo "${1%.json}.window.json" ;;
	*) echo "$1.window.json.gz" ;;
	esac
}

# tr_window OUTPUT SPEC WINDOW: cut the window SPEC (tr-window's options as
# words, e.g. '--passes 3-4') out of the finished OUTPUT into WINDOW (and
# WINDOW.window.json), print each pass's time span and bytes, then verify
# the window against OUTPUT unless --no-verify.
# A refused window leaves the full output in place and exits 1 (2 for
# system trouble: a full disk); tr-encode leaves nothing of the window.
tr_window() {
	local output=$1 spec=$2 wout=$3 words status
	set -f
	# shellcheck disable=SC2206 # the spec is split into words on purpose
	words=($spec)
	set +f
	tr_open_scratch
	tr_run_pipeline tr_window_job
	status=$?
	if [ $status -ne 0 ]; then
		echo "$prog: the window '$spec' was not written (exit status $status);" \
			"the full output $output is complete" >&2
		tr_exit $status
	fi
	# each pass's span and bytes (from tr-window), to choose the next window
	tr_print "$(sed 's/^/passes: /' <"/dev/fd/$tr_scratch_fd")
window: $wout ($(wc -c <"$wout") bytes, $spec)
window report: $wout.window.json"
	[ -n "$no_verify" ] || tr_verify "$output" "$wout"
}

# tr_window's job: the window's pipeline (the stages write to the command's
# stderr, 3; the job shell's own goes nowhere, as in the commands' pipeline).
tr_window_job() {
	local statuses popts
	exec 3>&2 2>/dev/null
	tr_quiet_open 2>&3
	tr_progress_opts popts windowing
	tr-decode "${popts[@]}" -- "$output" 2>&3 |
		tr-window --quiet "${words[@]}" --pass-table "/dev/fd/$tr_scratch_fd" 2>&"$tr_quiet_fd" |
		tr-encode ${force:+--force} "${tr_lifeline_args[@]}" -o "$wout" 2>&"$tr_quiet_fd"
	statuses=("${PIPESTATUS[@]}")
	tr_quiet_close
	tr_worst_status "${statuses[@]}" 2>&3
}

# Descriptors 0, 1 and 2 must be open, as every tr-* program checks at start
# (common/diag.c): a closed one would be taken by the next file opened.
# Checked when this file is sourced; $prog is set by then.  bash itself
# reads the script through the lowest free descriptor: one that is the
# script was closed at start.
# The limit on open descriptors is checked too: the command holds a few
# (bash takes those of {var} redirections from 10 up) and each stage some,
# and a run that found the limit half-way would end in shell noise.
tr_min_open_files=32
tr_check_descriptors() {
	local fd names=("standard input" "standard output" "standard error") limit
	for fd in 0 1 2; do
		if ! [ -e "/dev/fd/$fd" ] || [ "/dev/fd/$fd" -ef "$0" ]; then
			echo "$prog: ${names[fd]} (descriptor $fd) is closed; refusing to run" >&2
			exit 2
		fi
	done
	limit=$(ulimit -n)
	if [ "$limit" != unlimited ] && [ "$limit" -lt $tr_min_open_files ]; then
		echo "$prog: the limit on open files is $limit (ulimit -n); the command needs" \
			"at least $tr_min_open_files" >&2
		exit 2
	fi
}
tr_check_descriptors
