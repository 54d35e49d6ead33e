#!/bin/sh
# Install the Debian packages trace-layers needs, if any is missing.  As root
# it runs apt-get; otherwise it prints the exact command and fails.
# Usage: install-deps.sh [extra-package...]
set -u
need="libjsmn-dev zlib1g-dev libisal-dev check libpcre2-dev libssl-dev pkg-config mandoc time bc jq gzip valgrind cppcheck python3 parallel isal librsvg2-bin $*"
missing=
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
# python3 may come from elsewhere (pyenv, /usr/local): any python3 will do.
case " $missing " in *" python3 "*)
	command -v python3 >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ python3//') ;;
esac
command -v chromium >/dev/null 2>&1 || { [ "$(id -u)" -eq 0 ] && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }; } </dev/null >/dev/null 2>&1; } || echo "install-deps: note: chromium is not installed (optional: the browser test of t-serve.sh is skipped)" >&2
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
