#!/bin/sh
# Lint every man page: what mandoc warns about, and what both formatters
# render wrongly without a warning.
#   1. mandoc -Tlint -Wwarning: warnings are errors.
#   2. Section titles render as written.  mdoc parses the words of .Sh and
#      .Ss lines as macros: `.Ss In Perfetto` renders as "<Perfetto>" (In is
#      the include macro), `.Ss No more` loses its "No".  Write \&In.
#   3. No quote inside a quote of the same kind.  .Ql, .Dq and .Sq enclose
#      everything up to the end of their line, so `.Ql a , Ql b` renders as
#      'a, 'b'' rather than 'a', 'b': put each quoted word on its own line.
#   4. A literal line (.Dl, .D1: a command or a message as printed) has
#      no word that mdoc calls as a macro: "No space left on device" loses
#      its "No".  Write \&No.
#   5. groff (what man(1) uses on most Linux systems) and mandoc render the
#      same words: a construct that only mandoc understands (a .Pq around
#      words before a .Ta, for one) reads differently in `man`.  Skipped,
#      with a message, where groff is not installed.
# Usage: sh scripts/lint-man.sh [PAGE...]   (default: every page in man/)
set -eu
cd "$(dirname "$0")/.."
LC_ALL=C
export LC_ALL
if [ "$#" -eq 0 ]; then
	set -- man/*.[157]
fi

mandoc -Tlint -Wwarning "$@"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

# The text of a title as written (2) or as rendered by -Tman (which writes
# each title as a quoted .SH/.SS line), with the escapes both may use undone.
norm='s/\\&//g; s/\\f[BIRP]//g; s/\\-/-/g; s/\\(em/--/g; s/\\e/\\/g; s/"//g; s/[ 	]*$//'

q1=$(printf '\001')
q2=$(printf '\002')
q3=$(printf '\003')
q4=$(printf '\004')

have_groff=1
command -v groff >/dev/null 2>&1 || have_groff=0

# col(1) strips the overstrike of bold and underlined text; it needs a UTF-8
# locale to keep the rest of the UTF-8 text (in C it writes \xe2 escapes).
utf8=
for l in C.UTF-8 C.utf8 en_US.UTF-8 en_US.utf8; do
	if [ "$(printf '\342\200\230\n' | LC_ALL=$l col -bx 2>/dev/null)" = "$(printf '\342\200\230')" ]; then
		utf8=$l
		break
	fi
done
[ -n "$utf8" ] || { echo "man pages: no UTF-8 locale for col(1): cannot check the rendering" >&2; exit 2; }
plain() { LC_ALL=$utf8 col -bx; }
# Hyphen, en dash, em dash: groff and mandoc choose differently among them.
hy=$(printf '\342\200\220')
en=$(printf '\342\200\223')
em=$(printf '\342\200\224')
nodash() { sed "s/$hy//g; s/$en//g; s/$em//g"; }

for page in "$@"; do
	# 2. titles
	grep -E '^\.S[hs][ 	]' "$page" | sed 's/^\.S[hs][ 	]*//' | sed "$norm" >"$tmp/src"
	mandoc -Tman "$page" | grep -E '^\.S[HS] ' | sed 's/^\.S[HS] //' | sed "$norm" >"$tmp/out"
	if ! cmp -s "$tmp/src" "$tmp/out"; then
		echo "$page: section titles render differently from their source (a word parsed as an mdoc macro? escape it with \\&):"
		diff "$tmp/src" "$tmp/out" | sed -n 's/^< /  written:  /p; s/^> /  rendered: /p'
		bad=1
	fi

	# 3. nested quotes, in a rendering wide enough to keep paragraphs on one line
	mandoc -Tutf8 -Owidth=998 "$page" | plain >"$tmp/text"
	sed "s/‘/$q1/g; s/’/$q2/g; s/“/$q3/g; s/”/$q4/g" "$tmp/text" |
		grep -n -o -e "[^$q1$q2]\{0,30\}$q1[^$q2]*$q1[^$q1$q2]*$q2*" \
			-e "[^$q3$q4]\{0,30\}$q3[^$q4]*$q3[^$q3$q4]*$q4*" |
		sed "s/$q1/‘/g; s/$q2/’/g; s/$q3/“/g; s/$q4/”/g" >"$tmp/nested" || :
	if [ -s "$tmp/nested" ]; then
		echo "$page: a quote opens inside a quote (.Ql, .Dq and .Sq run to the end of their line):"
		sed 's/^\([0-9]*\):[ 	]*/  rendered line \1: /' "$tmp/nested"
		bad=1
	fi

	# 4. macro words in literal lines (the ones that read as English or as
	#    text; markup such as Ar or Ns in such a line is meant)
	grep -n -E '^\.D[l1][ 	]' "$page" |
		grep -E "[ 	](No|In|At|An|Ad|Ap|Ms|St|Tn|Ta|Sm|Ot|Db|Ux|Bx|Ox|Nx|Fx|Dx|Bsx|Lb|Ud|Es|En|Ec|Eo)([ 	]|\$)" \
		>"$tmp/dl" || :
	if [ -s "$tmp/dl" ]; then
		echo "$page: a word of a literal line is parsed as an mdoc macro (escape it with \\&):"
		sed 's/^/  line /' "$tmp/dl"
		bad=1
	fi

	# 5. groff and mandoc agree word for word (groff hyphenates: join first)
	if [ "$have_groff" -eq 1 ]; then
		sed '1d;$d' "$tmp/text" | tr -s ' \n' '\n' | nodash >"$tmp/m"
		LC_ALL=$utf8 groff -mandoc -Tutf8 -P-c -rLL=998n "$page" 2>/dev/null | plain | sed '1d;$d' |
			sed -e ':a' -e "/$hy\$/{N;s/$hy\\n *//;ba" -e '}' | tr -s ' \n' '\n' | nodash >"$tmp/g"
		if ! cmp -s "$tmp/m" "$tmp/g"; then
			echo "$page: groff (man) and mandoc render different words (< mandoc, > groff):"
			diff "$tmp/m" "$tmp/g" | grep '^[<>]' | head -20 | sed 's/^/  /'
			bad=1
		fi
	fi
done

[ "$have_groff" -eq 1 ] || echo "man pages: groff not installed: its rendering not compared with mandoc's"
[ "$bad" -eq 0 ] || { echo "man pages: rendering problems above"; exit 1; }
echo "man pages: $# clean"
