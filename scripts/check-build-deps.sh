#!/bin/sh
# The headers a build needs, looked up with the compiler that will use them,
# before anything is compiled: a missing package is named in one message
# instead of a compiler error about a header.  Used by the Makefile.
# Usage: CC=... CPPFLAGS=... check-build-deps.sh JOB HEADER=PACKAGE...
#   JOB is the install-deps.sh job that installs the packages (build, check)
set -u
job=$1
shift
missing= headers=
for pair in "$@"; do
	h=${pair%%=*} p=${pair#*=}
	# pcre2.h refuses to be included without a code unit width
	printf '#define PCRE2_CODE_UNIT_WIDTH 8\n#include <%s>\n' "$h" |
		${CC:-cc} ${CPPFLAGS:-} -E -x c - >/dev/null 2>&1 && continue
	missing="$missing $p" headers="$headers${headers:+, }$h"
done
[ -z "$missing" ] && exit 0
echo "trace-layers: missing packages:$missing (no $headers)" >&2
echo "install them: sudo sh scripts/install-deps.sh $job (or: sudo apt-get install$missing)" >&2
exit 2
