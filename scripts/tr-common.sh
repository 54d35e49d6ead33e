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

# tr_worst_status STATUS...: the worst of a pipeline's statuses (call it with
# "${PIPESTATUS[@]}" as the last command of the pipeline's function): a usage
# error (2) in one stage outranks the refusal (1) that the empty stream then
# causes downstream, and a stage ended by SIGPIPE (141) only follows another's
# failure.
tr_worst_status() {
	local s worst=0
	for s; do
		case $s in
		0|141) ;;
		1) [ $worst -ne 0 ] || worst=1 ;;
		*) worst=2 ;;
		esac
	done
	return $worst
}

# tr_run_pipeline FUNCTION: runs the function (a pipeline ending with
# tr_worst_status) in its own process group, so that SIGINT/SIGTERM/SIGHUP
# stop every stage (tr-encode then removes its temporary files).  Returns
# the function's status.
tr_run_pipeline() {
	local group status
	set -m
	"$1" &
	group=$(jobs -p %%)
	trap 'kill -TERM -- -"$group" 2>/dev/null; wait; exit 130' INT TERM HUP
	wait %%
	status=$?
	trap - INT TERM HUP
	set +m
	return $status
}

# tr_verify TRACE OUTPUT: run tr-verify and report its verdict.  On failure
# the files stay for inspection, and the command says so and exits 1.
tr_verify() {
	local trace=$1 output=$2 result status
	result=$(tr-verify --source "$trace" --output "$output" 2>&1)
	status=$?
	if [ $status -eq 0 ]; then
		echo "verification: verified (tr-verify: source identity, reversal, render, counts)"
		return 0
	fi
	echo "$result" >&2
	echo "$prog: verification FAILED (tr-verify exit status $status): do not use this" \
		"output; it is left for inspection at $output and its report(s)" >&2
	exit 1
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
