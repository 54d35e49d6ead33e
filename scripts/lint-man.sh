#!/bin/sh
# Lint every man page with mandoc (warnings are errors).
set -eu
cd "$(dirname "$0")/.."
mandoc -Tlint -Wwarning man/*.[157]
echo "man pages: $(ls man/*.[157] | wc -l) clean"
