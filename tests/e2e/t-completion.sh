# The bash completion (scripts/gen-completion.sh, built into
# B/completion/trace-layers): up to date with the option tables, options
# completed, file names where a value or operand is a file, and every
# program's options as its --help lists them.

COMP=$BIN/../completion/trace-layers
ALL="tr-decode tr-encode tr-gen tr-select-anchors tr-guides tr-compact tr-verify tr-survey tr-serve tr-window tr-ranks tr-layer-track tr-compact-track tr-layer-track-ranks"

if ! command -v bash >/dev/null 2>&1; then
	skip "completion" "bash is not installed"
elif [ ! -f "$COMP" ]; then
	fail "completion: $COMP exists" "not built: run make"
else

# complete_words WORD...: the candidates (sorted, one a line) that the completion
# gives for the last word, the words split as bash splits them (--name=VALUE
# is "--name" "=" "VALUE"), run in $T/files.
cat >"$T/complete.bash" <<'EOF'
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMPREPLY=()
_trace_layers
[ "${#COMPREPLY[@]}" -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
EOF
mkdir -p "$T/files/run dir"
: >"$T/files/a b.json.gz"
: >"$T/files/trace.json"
complete_words() {
	(cd "$T/files" && bash "$T/complete.bash" "$COMP" "$@")
}
# completes NAME EXPECTED WORD...: the candidates are exactly EXPECTED
# (separated by '|'; "" for none).
completes() {
	name=$1 want=$2
	shift 2
	complete_words "$@" >"$T/got" 2>"$T/got.err" || :
	printf '%s\n' "$want" | tr '|' '\n' >"$T/want"
	[ -n "$want" ] || : >"$T/want"
	if cmp -s "$T/want" "$T/got" && [ ! -s "$T/got.err" ]; then
		pass "$name"
	else
		fail "$name" "got: $(tr '\n' '|' <"$T/got") $(head -c 200 "$T/got.err")" "wanted: $want"
	fi
}

# Up to date: the built file is what the generator makes from the sources now.
sh "$ROOT/scripts/gen-completion.sh" "$ROOT" >"$T/regen" 2>"$T/err" || :
if cmp -s "$T/regen" "$COMP"; then
	pass "completion: $COMP is generated from the current option tables"
else
	fail "completion: $COMP is generated from the current option tables" \
		"it differs from scripts/gen-completion.sh's output (run make)" \
		"$(diff "$COMP" "$T/regen" | head -5)"
fi
bash -n "$COMP" 2>"$T/err" && pass "completion: bash parses it" ||
	fail "completion: bash parses it" "$(head -c 300 "$T/err")"
# Every command is registered.
bash -c ". '$COMP'; complete -p" >"$T/out" 2>&1 || :
missing=
for c in $ALL; do
	grep -q "^complete -F _trace_layers .*[ ]$c\$\|^complete -F _trace_layers $c\$" "$T/out" || missing="$missing $c"
done
[ -z "$missing" ] && pass "completion: every program and command is registered" ||
	fail "completion: every program and command is registered" "missing:$missing"

completes "completion: tr-layer-track --max-g" "--max-gpu-lanes" tr-layer-track --max-g
completes "completion: tr-layer-track --max" \
	"--max-event-bytes|--max-gpu-lanes|--max-member-bytes" tr-layer-track --max
completes "completion: tr-layer-track-ranks --re" "--record-path|--resume-failed" \
	tr-layer-track-ranks --re
completes "completion: tr-encode - (short and long)" \
	"--compact-report|--force|--format|--help|--level|--lifeline|--output|--pass-table|--report-base|--version|-f|-h|-o" \
	tr-encode -
completes "completion: an option after a value" "--passes|--phase|--pid|--progress" \
	tr-layer-track --trace x.json --p
completes "completion: tr-layer-track --trace gives files" "a b.json.gz|run dir|trace.json" \
	tr-layer-track --trace ''
completes "completion: tr-layer-track --trace= gives files" "trace.json" \
	tr-layer-track --trace = t
completes "completion: tr-compact-track --output gives files" "a b.json.gz" \
	tr-compact-track --output a
completes "completion: tr-encode -o gives files" "a b.json.gz|run dir|trace.json" tr-encode -o ''
completes "completion: tr-gen --output= gives files" "a b.json.gz|run dir|trace.json" \
	tr-gen --output = ''
completes "completion: tr-verify --source gives files" "trace.json" tr-verify --source tr
completes "completion: tr-layer-track-ranks --outdir gives directories" "run dir" \
	tr-layer-track-ranks --outdir ''
completes "completion: a value that is not a file gives nothing" "" tr-layer-track --phase ''
completes "completion: tr-select-anchors --num-layers gives nothing" "" \
	tr-select-anchors --num-layers ''
completes "completion: tr-decode's operand is a file" "a b.json.gz|run dir|trace.json" \
	tr-decode ''
completes "completion: after --progress (its value attached), tr-decode's operand" \
	"a b.json.gz|run dir|trace.json" tr-decode --progress ''
completes "completion: tr-serve's operand is a file" "trace.json" tr-serve --port 0 t
completes "completion: tr-guides takes no operand" "" tr-guides ''
completes "completion: another command is left alone" "" gzip --
completes "completion: a path to the program" "--record-path" /usr/bin/tr-decode --rec

# Every program's options as its --help lists them: every long option of
# the completion appears in --help (--help and --version may go unsaid), and
# every --word of --help that the completion lacks is not an option of the
# program (it says "unknown option") or an abbreviation the help shows.
for c in $ALL; do
	complete_words "$c" -- >"$T/comp.$c" 2>&1 || :
	"$c" --help 2>&1 | grep -o -- '--[a-z][a-z0-9-]*' | LC_ALL=C sort -u >"$T/help.$c" || :
	if [ ! -s "$T/comp.$c" ] || [ ! -s "$T/help.$c" ]; then
		fail "completion: $c's options are those of its --help" "no options completed or in --help"
		continue
	fi
	bad=
	for o in $(cat "$T/comp.$c"); do
		case $o in --help | --version) continue ;; esac
		grep -qx -- "$o" "$T/help.$c" || bad="$bad $o (completed, not in --help)"
	done
	for o in $(cat "$T/help.$c"); do
		grep -qx -- "$o" "$T/comp.$c" && continue
		grep -q -- "^$o" "$T/comp.$c" && continue # an abbreviation (--anchor-r)
		RC=0
		timeout 10 "$c" "$o" </dev/null >/dev/null 2>"$T/err" || RC=$?
		grep -qF -- "unknown option '$o'" "$T/err" ||
			bad="$bad $o (in --help, accepted, not completed: rc $RC)"
	done
	[ -z "$bad" ] && pass "completion: $c's options are those of its --help" ||
		fail "completion: $c's options are those of its --help" "$bad"
done

fi
