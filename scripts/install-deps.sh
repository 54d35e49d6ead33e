#!/bin/sh
# Install the Debian packages trace-layers needs for one job, if any is
# missing.  As root it runs apt-get; otherwise it prints the exact command
# and fails.
# Usage: install-deps.sh [build|demo|bench|check] [extra-package...]
#   build  what `make` needs to compile the programs
#   demo   build, and the tools `make demo` runs
#   bench  build, and the peers and timers of `make bench`
#   check  everything `make check` uses, chromium for its browser tests
#          included (the default)
set -u
job=check
case ${1:-} in
build | demo | bench | check) job=$1; shift ;;
-*) echo "usage: install-deps.sh [build|demo|bench|check] [extra-package...]" >&2; exit 2 ;;
esac
build="libjsmn-dev zlib1g-dev libisal-dev libpcre2-dev libssl-dev libmicrohttpd-dev pkg-config"
case $job in
build) need="$build" ;;
demo) need="$build gzip" ;;
bench) need="$build gzip time bc python3 isal" ;;
check) need="$build check mandoc time bc jq gzip valgrind cppcheck python3 parallel isal librsvg2-bin protobuf-compiler" ;;
esac
need="$need $*"
missing=
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
# python3 may come from elsewhere (pyenv, /usr/local): any python3 will do.
case " $missing " in *" python3 "*)
	command -v python3 >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ python3//') ;;
esac
# chromium is optional: the browser tests are skipped without it.
if [ "$job" = check ] && ! command -v chromium >/dev/null 2>&1; then
	{ [ "$(id -u)" -eq 0 ] && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }; } \
		</dev/null >/dev/null 2>&1; } ||
		echo "install-deps: note: chromium is not installed (optional: the browser tests of tr-serve and tr-ranks --svg are skipped)" >&2
fi
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "trace-layers needs:$missing" >&2
	echo "run as root: apt-get update && $cmd" >&2
	exit 2
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && $cmd >/dev/null || {
	echo "install-deps: apt-get failed: $cmd" >&2
	exit 2
}
