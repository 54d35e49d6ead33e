# scripts/lint-man.sh finds what renders wrongly without a mandoc warning:
# a section title parsed as macros, a quote inside a quote, a macro word in
# a literal line, groff and mandoc disagreeing; and passes a clean page.

if ! command -v mandoc >/dev/null 2>&1; then
	skip "lint-man" "mandoc is not installed (scripts/install-deps.sh)"
else

# page NAME BODY: a minimal mdoc page $T/NAME.1 with BODY after its NAME.
page() {
	cat >"$T/$1.1" <<EOF
.Dd December 7, 2026
.Dt $(echo "$1" | tr 'a-z' 'A-Z') 1
.Os
.Sh NAME
.Nm $1
.Nd a page for the lint's tests
.Sh DESCRIPTION
$2
EOF
}

# lints NAME STATUS TEXT: lint-man.sh on $T/NAME.1 exits STATUS and its
# output has the line TEXT (fixed string).
lints() {
	RC=0
	sh "$ROOT/scripts/lint-man.sh" "$T/$1.1" >"$T/out" 2>&1 || RC=$?
	if [ "$RC" = "$2" ] && grep -qxF -- "$3" "$T/out"; then
		pass "lint-man: $1"
	else
		fail "lint-man: $1" "exit status $RC, wanted $2; wanted the line: $3" \
			"output: $(head -c 400 "$T/out")"
	fi
}

page clean "Plain text.
.Ss \\&In Perfetto
Columns
.Po
.Ql a ,
.Ql b
.Pc
and
.Dl prog: standard output: \\&No space left on device"
lints clean 0 "man pages: 1 clean"

page title "Text.
.Ss In Perfetto
More text."
lints title 1 "  rendered: <Perfetto>"

page notitle "Text.
.Ss No more
More text."
lints notitle 1 "  written:  No more"

page nested "Columns
.Pq Ql a , Ql b
and more."
lints nested 1 "  rendered line 7: Columns (‘a, ‘b’’"

page literal "A full disk:
.Dl prog: standard output: No space left on device"
lints literal 1 "  line 9:.Dl prog: standard output: No space left on device"

if command -v groff >/dev/null 2>&1; then
	page groff ".Bl -column \"xxxxxxxxxxxx\" \"yy\"
.It level 2 Pq Fl -level No 2 to 5 Ta 0.24 s Ta 9.2%
.El"
	lints groff 1 "$T/groff.1: groff (man) and mandoc render different words (< mandoc, > groff):"
else
	skip "lint-man: groff" "groff is not installed"
fi

fi
