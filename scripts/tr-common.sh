# Shared by the tr-layer-track and tr-compact-track commands (sourced, bash).
# Finds the programs, applies the output safety rules and runs a pipeline in
# its own process group so that an interrupt reaches every stage.

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
# of the output or a report.
tr_check_paths() {
	local trace=$1 output=$2 f
	shift 2
	[ -r "$trace" ] && [ -f "$trace" ] || tr_die "$trace: not a readable file"
	if [ "$(realpath -m -- "$output")" = "$(realpath -m -- "$trace")" ] ||
	   { [ -e "$output" ] && [ "$output" -ef "$trace" ]; }; then
		tr_die "$output: the output is the source trace; choose another name"
	fi
	for f in "$output" "$@"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			tr_die "$f: exists; refusing to overwrite it"
		fi
	done
}

# tr_open_scratch: a scratch file for a stage's summary, open on the
# descriptor tr_scratch_fd (read it with <&"$tr_scratch_fd"; a stage writes
# it as /dev/fd/$tr_scratch_fd) and already removed, so that a run killed
# even by SIGKILL leaves nothing in $TMPDIR.
tr_open_scratch() {
	local path
	path=$(mktemp "${TMPDIR:-/tmp}/$prog.XXXXXX") || tr_die "cannot create a temporary file"
	exec {tr_scratch_fd}<>"$path"
	rm -f -- "$path"
}

# tr_print TEXT: print the command's summary.  A reader that has gone away
# (| head -n 1) must not end the command before it verified the output:
# SIGPIPE is ignored for the printing, and once stdout is found closed the
# rest of the output (the verdict too) goes nowhere.  The exit status and
# stderr still say how the run ended.
tr_print() {
	trap '' PIPE
	printf '%s\n' "$1" 2>/dev/null || exec >/dev/null
	trap - PIPE
}

# tr_worst_status STATUS...: the worst of a pipeline's statuses (call it with
# "${PIPESTATUS[@]}" as the last command of the pipeline's function): a usage
# error (2) in one stage outranks the refusal (1) that the empty stream then
# causes downstream, and a stage ended by SIGPIPE (141) only follows another's
# failure.  A stage ended by another signal is named on stderr (the
# pipeline functions send bash's own job messages nowhere).
tr_worst_status() {
	local s worst=0
	for s; do
		case $s in
		0|141) ;;
		1) [ $worst -ne 0 ] || worst=1 ;;
		*)
			worst=2
			[ "$s" -le 128 ] ||
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
tr_quiet_open() {
	exec {tr_quiet_fd}> >(trap '' INT TERM HUP
		exec grep --line-buffered -v -E \
			'^tr-[a-z-]+: stdin: (empty input: no stream|truncated stream: )' >&2)
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
tr_trace= tr_output=
tr_catch_interrupts() {
	tr_trace=$1 tr_output=$2
	trap 'tr_interrupted INT' INT
	trap 'tr_interrupted TERM' TERM
	trap 'tr_interrupted HUP' HUP
}

tr_interrupted() {
	local job
	trap '' INT TERM HUP
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
	if [ -e "$tr_output" ]; then
		echo "$prog: interrupted (SIG$1) after writing $tr_output and its report;" \
			"it is not verified: verification did not run to the end. To verify it:" >&2
		echo "  tr-verify --source $(tr_quote "$tr_trace") --output $(tr_quote "$tr_output")" >&2
	else
		echo "$prog: interrupted (SIG$1); nothing was written" >&2
	fi
	trap - "$1"
	kill -"$1" $$
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
# stage (tr-encode then removes its temporary files).  Returns the
# function's status.
tr_run_pipeline() {
	local status group
	set -m
	# The job's shell outlives its stages: it runs the trap only once the
	# pipeline has ended, so that waiting for the job waits for every stage
	# (tr-encode may be taking back a half-placed output).
	( trap 'exit 130' INT TERM HUP; "$1" ) &
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
	log=$(mktemp "${TMPDIR:-/tmp}/$prog.verify.XXXXXX") || tr_die "cannot create a temporary file"
	exec 3>"$log" 4<"$log"
	rm -f "$log"
	tr-verify "${verify_args[@]}" --source "$trace" --output "$output" >&3 2>&1 3>&- 4<&- &
	wait $!
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
	exit 1
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
# A refused window leaves the full output in place and exits 1.
tr_window() {
	local output=$1 spec=$2 wout=$3 words status statuses
	set -f
	# shellcheck disable=SC2206 # the spec is split into words on purpose
	words=($spec)
	set +f
	tr_open_scratch
	tr_quiet_open
	tr-decode -- "$output" |
		tr-window "${words[@]}" --pass-table "/dev/fd/$tr_scratch_fd" 2>&"$tr_quiet_fd" |
		tr-encode -o "$wout" 2>&"$tr_quiet_fd"
	statuses=("${PIPESTATUS[@]}")
	tr_quiet_close
	tr_worst_status "${statuses[@]}"
	status=$?
	if [ $status -ne 0 ]; then
		echo "$prog: the window '$spec' was not written (exit status $status);" \
			"the full output $output is complete" >&2
		exit 1
	fi
	# each pass's span and bytes (from tr-window), to choose the next window
	tr_print "$(sed 's/^/passes: /' <&"$tr_scratch_fd")
window: $wout ($(wc -c <"$wout") bytes, $spec)
window report: $wout.window.json"
	[ -n "$no_verify" ] || tr_verify "$output" "$wout"
}

# Descriptors 0, 1 and 2 must be open, as every tr-* program checks at start
# (common/diag.c): a closed one would be taken by the next file opened.
# Checked when this file is sourced; $prog is set by then.  bash itself
# reads the script through the lowest free descriptor: one that is the
# script was closed at start.
tr_check_descriptors() {
	local fd names=("standard input" "standard output" "standard error")
	for fd in 0 1 2; do
		if ! [ -e "/dev/fd/$fd" ] || [ "/dev/fd/$fd" -ef "$0" ]; then
			echo "$prog: ${names[fd]} (descriptor $fd) is closed; refusing to run" >&2
			exit 2
		fi
	done
}
tr_check_descriptors
