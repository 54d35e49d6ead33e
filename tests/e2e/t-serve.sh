# t-serve: tr-serve end to end, on loopback only: the command line, the page
# and the trace bytes (.json, .json.gz and a large file) over real HTTP, the
# refusals (token, path, method, Host, oversized head), 127.0.0.1-only
# binding, concurrency with a silent client, a client dropping out mid
# transfer, --open with a stand-in opener, clean exit on SIGTERM and SIGINT;
# then, when chromium is installed, the viewer page's postMessage protocol
# against a stand-in for the Perfetto UI served from 127.0.0.1.
# Sourced by run.sh (BIN, ROOT, T, TRACES set; helpers from lib.sh).  Every
# wait is bounded, and the servers started here are killed on any exit.

cd "$T" || exit 2
VERSION=$(cat "$ROOT/VERSION")
# The interpreter itself: a version manager's shim costs much per start.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=python3
CURL=$(command -v curl 2>/dev/null) || CURL=
[ -z "${TR_SERVE_NO_CURL:-}" ] || CURL=

# ---------------------------------------------------------------- helpers

# Server N runs as "sh -c 'echo $$ >N.pid; exec tr-serve ...'" inside a
# subshell that writes the exit status to N.rc: the pid is the server's own,
# and its status is known without waiting on it unboundedly.
cleanup() {
	for f in "$T"/*.pid; do
		[ -f "$f" ] || continue
		kill -KILL "$(cat "$f")" 2>/dev/null
	done
	return 0
}
trap cleanup EXIT
trap 'cleanup; exit 2' INT TERM HUP

# wait_file FILE SECONDS: FILE exists and is not empty, within SECONDS.
# The limits are guards against a hang, not timing assumptions: each is
# many times what the wait takes on a loaded machine.
wait_file() {
	i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		[ "$i" -le $(($2 * 20)) ] || return 1
		sleep 0.05
	done
}

# start N [OPTIONS] TRACE: start server N (with PATH=$SERVE_PATH if set); sets
# URL, PORT and TOKEN (empty when it did not print its URL within 5 s).
start() {
	n=$1
	shift
	rm -f "$n.pid" "$n.rc" "$n.out" "$n.err"
	if [ -n "${SERVE_PATH:-}" ]; then
		set -- env PATH="$SERVE_PATH" "$BIN/tr-serve" "$@"
	else
		set -- "$BIN/tr-serve" "$@"
	fi
	(sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/$n.pid" "$@" \
		>"$T/$n.out" 2>"$T/$n.err"; echo $? >"$T/$n.rc") &
	URL= PORT= TOKEN= UIURL=
	wait_file "$n.out" 60 || return 1
	URL=$(sed -n 's/^open //p' "$n.out")
	UIURL=$(sed -n 's/^ui //p' "$n.out")
	PORT=$(echo "$URL" | sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/[0-9a-f]*/$|\1|p')
	TOKEN=$(echo "$URL" | sed -n 's|^http://127\.0\.0\.1:[0-9]*/\([0-9a-f]*\)/$|\1|p')
}

# stop N SIGNAL NAME: send SIGNAL to server N; it must exit 0 (a minute is
# the guard against a hang).
stop() {
	kill -"$2" "$(cat "$1.pid")" 2>/dev/null
	if ! wait_file "$1.rc" 60; then
		fail "$3" "still running 60 s after SIG$2"
		kill -KILL "$(cat "$1.pid")" 2>/dev/null
		wait_file "$1.rc" 60
	elif [ "$(cat "$1.rc")" = 0 ] && [ ! -s "$1.err" ]; then
		pass "$3"
	else
		fail "$3" "exit status $(cat "$1.rc")" "stderr: $(head -c 400 "$1.err")"
	fi
	rm -f "$1.pid"
}

# req METHOD PATH [HOST|-] [EXTRA-HEADER]: one request to the server on
# $PORT; the status in $CODE (000: no answer), the response head in h, the
# body in b.  HOST "-" sends no Host header.  The path is sent as is (curl
# would otherwise resolve "..").
req() {
	m=$1 p=$2 host=${3:-127.0.0.1:$PORT} extra=${4:-}
	rm -f h b
	if [ "$m" = HEAD ]; then
		# a raw socket, to see every byte sent up to the close (curl -I
		# would not read a body even if one came)
		CODE=$("$PY" - "$PORT" "$p" "$host" <<'EOF'
import socket, sys
port, path, host = sys.argv[1:4]
s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
s.sendall(("HEAD %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())
data = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    data += d
head, _, body = data.partition(b"\r\n\r\n")
open("h", "wb").write(head + b"\r\n")
open("b", "wb").write(body)
print(head.split(b" ")[1].decode())
EOF
) 2>curl.err || CODE=000
	elif [ -n "$CURL" ]; then
		if [ "$host" = - ]; then set -- -H 'Host:'; else set -- -H "Host: $host"; fi
		[ -z "$extra" ] || set -- "$@" -H "$extra"
		[ "$m" = GET ] || set -- "$@" -X "$m"
		CODE=$("$CURL" -sS --max-time 10 --noproxy '*' --path-as-is -D h -o b \
			-w '%{http_code}' "$@" "http://127.0.0.1:$PORT$p" 2>curl.err) || CODE=000
	else
		CODE=$("$PY" - "$m" "$PORT" "$p" "$host" "$extra" <<'EOF'
import http.client, sys
m, port, path, host, extra = sys.argv[1:6]
c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
c.putrequest(m, path, skip_host=True, skip_accept_encoding=True)
if host != "-":
    c.putheader("Host", host)
if extra:
    k, v = extra.split(":", 1)
    c.putheader(k, v.strip())
c.endheaders()
r = c.getresponse()
body = r.read()
with open("h", "w") as f:
    f.write("HTTP/1.1 %d %s\r\n" % (r.status, r.reason))
    for k, v in r.getheaders():
        f.write("%s: %s\r\n" % (k, v))
open("b", "wb").write(body)
print(r.status)
EOF
) 2>curl.err || CODE=000
	fi
	[ -f h ] || : >h
	[ -f b ] || : >b
}

# hdr NAME: the value of header NAME in the last response (empty if none).
hdr() {
	tr -d '\r' <h | grep -i "^$1:" | head -n 1 | sed 's/^[^:]*: *//'
}

# status NAME CODE: the last response had status CODE.
status() {
	if [ "$CODE" = "$2" ]; then
		pass "$1"
	else
		fail "$1" "status $CODE, wanted $2" "$(head -n 1 h)" "$(cat curl.err 2>/dev/null)"
	fi
}

# ok NAME TEST...: the test command succeeds.
ok() {
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "failed: $*"; fi
}

size_of() { wc -c <"$1" | tr -d ' '; }

# --------------------------------------------------------------- fixtures

tr-gen --layers 2 --passes 1 -o t.json || fail "fixture: tr-gen"
gzip -k t.json
: >empty.json
mkdir dir.json

# ----------------------------------------------------------- command line

expect 0 "--help: exit 0" "tr-serve --help"
ok "--help: usage on stdout" grep -q '^usage: tr-serve \[--port N\] \[--ui URL\] \[--open\] \[--pass K\]' "$T/out"
expect 0 "--version: exit 0" "tr-serve --version"
ok "--version: tr-serve $VERSION, then the gzip backend" test "$(cat "$T/out")" = \
	"$(printf 'tr-serve %s\n%s' "$VERSION" "$(grep -E '^gzip: (ISA-L|zlib) [0-9.]+$' "$T/out")")"
expect 2 "bad option: exit 2" "tr-serve --bogus t.json" "unknown option '--bogus'"
ok "bad option: usage on stderr" grep -q '^usage: tr-serve' "$T/err"
expect 2 "--port without a value: exit 2" "tr-serve t.json --port" "requires an argument"
expect 2 "--port 65536: exit 2" "tr-serve --port 65536 t.json" "--port: invalid value '65536'"
expect 2 "--port -1: exit 2" "tr-serve --port -1 t.json" "--port: invalid value"
expect 2 "--port x: exit 2" "tr-serve --port x t.json" "--port: invalid value"
expect 2 "--ui ftp: exit 2" "tr-serve --ui ftp://127.0.0.1/ t.json" "--ui: invalid URL"
expect 2 "--ui without a scheme: exit 2" "tr-serve --ui 127.0.0.1:9 t.json" "--ui: invalid URL"
expect 2 "--ui http:// alone: exit 2" "tr-serve --ui http:// t.json" "--ui: invalid URL"
expect 2 "no trace: exit 2" "tr-serve" "no trace given"
expect 2 "two traces: exit 2" "tr-serve t.json t.json" "one trace only"
expect 2 "--trace and an operand: exit 2" "tr-serve --trace t.json t.json" "one trace only"
expect 2 "--trace twice: exit 2" "tr-serve --trace t.json --trace=t.json" "one trace only"
expect 2 "--trace without a value: exit 2" "tr-serve --trace" "requires an argument"
expect 2 "--trace of a missing file: exit 2" "tr-serve --trace nosuch.json" \
	"tr-serve: nosuch.json: No such file or directory"
expect 2 "missing trace: exit 2" "tr-serve nosuch.json" "tr-serve: nosuch.json: No such file or directory"
expect 2 "directory: exit 2" "tr-serve dir.json" "tr-serve: dir.json: not a regular file"
expect 1 "empty trace: exit 1" "tr-serve empty.json" "tr-serve: empty.json: empty file"
if [ "$(id -u)" -ne 0 ]; then
	cp t.json unreadable.json
	chmod 000 unreadable.json
	expect 2 "unreadable trace: exit 2" "tr-serve unreadable.json" "Permission denied"
fi

# The trace as an option (as the Python viewer script serve_local_trace.py
# takes it: serve ... --trace FILE),
# in both forms, abbreviated too.
for form in "--trace t.json.gz" "--trace=t.json.gz" "--tr t.json.gz"; do
	# shellcheck disable=SC2086 # the form is two words or one on purpose
	if ! start st $form || [ -z "$TOKEN" ]; then
		fail "$form: prints its URL" "stderr: $(head -c 400 st.err)"
		continue
	fi
	req GET "/$TOKEN/trace"
	status "$form: trace 200" 200
	same "$form: the file's bytes" t.json.gz b
	req GET "/$TOKEN/"
	ok "$form: the page names the file" grep -q 'NAME = dec("t.json.gz")' b
	stop st TERM "$form: exits 0 on SIGTERM"
done

# ------------------------------------------------------ UI startup setup

# A guided, compacted trace and its report: 2 passes of 3 layers, 2 lanes.
ANCHOR='^void flash_fwd_kernel<Flash_fwd_kernel_traits<128,'
tr-gen --layers 3 --passes 2 --streams 4 --concurrency 2 -o gsrc.json ||
	fail "fixture: tr-gen (guided)"
tr-layer-track --trace gsrc.json --output g.json --anchor-regex "$ANCHOR" \
	--num-layers 3 --anchor-offset 0 --passes 2 --phase decode --evidence e \
	--max-gpu-lanes 2 >/dev/null 2>&1 || fail "fixture: tr-layer-track"
# guides only, then compacted by tr-compact-track: its report names the
# source, whose layers report tells the guides
tr-layer-track --trace gsrc.json --output g2.json --anchor-regex "$ANCHOR" \
	--num-layers 3 --anchor-offset 0 --passes 2 --phase decode --evidence e \
	>/dev/null 2>&1 || fail "fixture: tr-layer-track (no lanes)"
tr-compact-track --trace g2.json --output c.json --max-gpu-lanes 2 >/dev/null 2>&1 ||
	fail "fixture: tr-compact-track"

# check_ui NAME TRACE URL [PASS [LAYER]]: the UI URL's parameters against
# the served trace (serve_check.py, an independent oracle).
check_ui() {
	if "$PY" "$ROOT/tests/e2e/serve_check.py" "$2" "$3" ${4:+"$4"} ${5:+"$5"} >oracle.out 2>&1; then
		pass "$1"
	else
		fail "$1" "$(head -c 600 oracle.out)"
	fi
}

# serve_ui NAME [OPTIONS] TRACE: start server su with --print-ui-url, check
# it printed its URLs, stop it; UIURL holds the UI URL.
serve_ui() {
	sname=$1
	shift
	if ! start su --print-ui-url "$@" || [ -z "$TOKEN" ] || [ -z "$UIURL" ]; then
		fail "$sname: prints both URLs" "stdout: $(head -c 300 su.out)" \
			"stderr: $(head -c 400 su.err)"
		[ ! -f su.pid ] || stop su TERM "$sname: exit 0 on SIGTERM"
		return 1
	fi
	stop su TERM "$sname: exit 0 on SIGTERM"
}

if serve_ui "setup" g.json; then
	check_ui "setup: pins exactly the guide and lanes, expands the GPU, pass 0 in view, guide query" \
		g.json "$UIURL"
	ok "setup: the UI URL is the default UI's hash route" \
		test "${UIURL%%#*}" = "https://ui.perfetto.dev/"
fi
# The viewer page of the guided trace, read as a user reads it: the title
# and the button first, then what will open in plain words (its size and
# events counted here from the file itself, the tracks pinned, the pass in
# view), the guides' note, the download link, and the UI address inside the
# details toggle, the same as --print-ui-url prints.
# page_check PAGE TRACE UIURL NAME: the page's order and words (Python's
# HTML parser); prints the differences.
page_check() {
	"$PY" - "$@" <<'EOF2'
import html, json, re, sys
page, trace, uiurl, name = sys.argv[1:5]
p = open(page, encoding="utf-8").read()
n = len(open(trace, "rb").read())
events = len(json.load(open(trace))["traceEvents"])
bad = []
def want(what, ok):
    if not ok:
        bad.append(what)
items = [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", p)]
expect = [
    "%s: %d bytes (%d.%d KiB), %d events, as its report counts them." % (
        name, n, n // 1024, n % 1024 * 10 // 1024, events),
    "Pinned at the top: \u201cLayer guide (decode) \u2014 anchor intervals\u201d, "
    "\u201cGPU lane 1 (synthetic; device 0)\u201d and \u201cGPU lane 2 (synthetic; device 0)\u201d.",
    "Expanded: the process of the guides and lanes (pid 0).",
    "In view: pass 0, its layers L0 to L2.",
    "A query tab lists the layer guides with their pass and start in ms, to click through the layers.",
]
want("summary %r, wanted %r" % (items, expect), items == expect)
button = p.find('<button id="go" type="button">Open in Perfetto</button>')
h1 = p.find("<h1>%s</h1>" % html.escape(name))
summary = p.find('<ul id="summary">')
details = p.find("<details>")
code = re.search(r'<code id="ui">([^<]*)</code>', p)
want("title, then the button", 0 <= h1 < button and p[h1:button].count("<p>") == 1)
want("the button before the summary and the details", 0 <= button < summary < details)
want("the UI address inside the details", code is not None and
     details < code.start() < p.find("</details>") and html.unescape(code.group(1)) == uiurl)
want("the address appears nowhere else", p.count(html.escape(uiurl, quote=True)) == 1)
want("the guides' note", "L0 is the layer that starts at the first anchor." in p)
want("the download link", ('<a href="trace" download="%s">Download the trace</a> (%d bytes)'
                           % (html.escape(name), n)) in p)
want("the hint when the UI is slow",
     '<p id="slow" hidden>The Perfetto UI has not answered within 10 seconds.' in p and
     "slowTimer = setTimeout(function () { slowEl.hidden = false; }, SLOW_MS);" in p and
     "const SLOW_MS = 10000, RPC = false;" in p)
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
EOF2
}
if start pg --print-ui-url g.json && [ -n "$TOKEN" ]; then
	ok "terminal: the address, then Ctrl-C to stop, then (--print-ui-url) the UI address" \
		test "$(sed -n 1,2p pg.out)" = "$(printf 'open http://127.0.0.1:%s/%s/\nCtrl-C to stop' "$PORT" "$TOKEN")" \
		-a "$(sed -n '3s/ .*//p' pg.out)" = ui -a "$(wc -l <pg.out)" -eq 3
	req GET "/$TOKEN/"
	cp b page.html
	if page_check page.html g.json "$UIURL" g.json >oracle.out 2>&1; then
		pass "page: says what opens (size, events, pins, pass in view), button first, the UI address in the details"
	else
		fail "page: says what opens (size, events, pins, pass in view), button first, the UI address in the details" \
			"$(head -c 1200 oracle.out)"
	fi
	href=$(sed -n 's|.*<a href="\([^"]*\)" download=.*|\1|p' page.html)
	req GET "/$TOKEN/$href"
	status "page: the download link: 200" 200
	same "page: the download link serves the file's bytes" g.json b
	stop pg TERM "page: exit 0 on SIGTERM"
fi
start pg t.json
ok "terminal: without --print-ui-url, two lines: the address and Ctrl-C to stop" \
	test "$(cat pg.out)" = "$(printf 'open http://127.0.0.1:%s/%s/\nCtrl-C to stop' "$PORT" "$TOKEN")"
req GET "/$TOKEN/"
ok "page without a report: says so, and nothing about events" test \
	"$(grep '<li>' b)" = "$(printf '<li>t.json: %s bytes (%s KiB).</li>\n<li>No report beside it (t.json.layers.json, .compact.json or .window.json): the UI opens it plainly, nothing pinned, the whole trace in view.</li>' \
		"$(size_of t.json)" "$(size_of t.json | awk '{ printf "%d.%d", $1 / 1024, ($1 % 1024) * 10 / 1024 }')")"
ok "page without a report: no guides' note" test -z "$(grep 'id="guides"' b)"
stop pg TERM "page without a report: exit 0 on SIGTERM"
if serve_ui "setup --pass 1 --layer L1" --pass 1 --layer L1 g.json; then
	check_ui "setup --pass 1 --layer L1: pass 1 in view, its L1 selected (ts/dur)" \
		g.json "$UIURL" 1 1
fi
if serve_ui "setup --layer 2" --layer 2 g.json; then
	check_ui "setup --layer 2: pass 0 in view, its L2 selected" g.json "$UIURL" 0 2
fi
if serve_ui "setup of a compacted guided trace" c.json; then
	check_ui "setup of a compacted guided trace: guide (from its source's report) and lanes" \
		c.json "$UIURL"
fi
if serve_ui "setup --no-setup" --no-setup g.json; then
	ok "setup --no-setup: the plain UI" test "$UIURL" = https://ui.perfetto.dev
fi
if serve_ui "setup without a report" t.json; then
	ok "setup without a report: the plain UI" test "$UIURL" = https://ui.perfetto.dev
fi
if serve_ui "setup --query" --query "SELECT 'a&b' AS x -- é" --ui http://127.0.0.1:9/ui/ t.json; then
	"$PY" -c 'import json, sys, urllib.parse as u
f = u.urlsplit(sys.argv[1]).fragment
assert sys.argv[1].startswith("http://127.0.0.1:9/ui/#!/?"), sys.argv[1]
q = u.parse_qs(f[3:], strict_parsing=True)
assert list(q) == ["startupCommands"], list(q)
c = json.loads(q["startupCommands"][0])
assert c == [{"id": "dev.perfetto.RunQueryAndShowTab", "args": ["SELECT '"'"'a&b'"'"' AS x -- \u00e9"]}], c' \
		"$UIURL" >oracle.out 2>&1
	ok "setup --query without a report: only the query tab, the SQL intact" test $? -eq 0
fi
# a window report (tr-window's WINDOW.window.json, hand-made here) around pass 1
cp g.json w.json
cp g.json.layers.json w.json.layers.json
"$PY" -c 'import json, sys
from decimal import Decimal
r = json.load(open("g.json.layers.json"), parse_float=Decimal)
p1 = [l for l in r["layers"] if l["pass_index"] == 1]
s = int(Decimal(p1[0]["guide_start_us"]) * 1000) - 5000
e = int(Decimal(p1[-1]["guide_end_us"]) * 1000) + 5000
json.dump({"window_start_ns": s, "window_end_ns": e}, open("w.json.window.json", "w"), indent=2)'
if serve_ui "setup with a window report" w.json; then
	check_ui "setup with a window report: the window's pass (1) in view" w.json "$UIURL" 1
fi
# a real tr-window cut of pass 1: its report names its source, whose layers
# report (beside it) gives the guides; set up as with the reports beside it
if command -v tr-window >/dev/null 2>&1; then
	tr-decode g.json | tr-window --passes 1-1 | tr-encode -o rw.json
	cp rw.json w2.json
	cp g.json.layers.json w2.json.layers.json
	cp rw.json.window.json w2.json.window.json
	if serve_ui "setup with tr-window's report" rw.json; then
		rwurl=$UIURL
		if serve_ui "setup with tr-window's report, the reports copied beside" w2.json; then
			check_ui "tr-window cut: pass 1 in view" w2.json "$UIURL" 1
			ok "tr-window cut: the source's reports found through source_file" \
				test "${rwurl#*#}" = "${UIURL#*#}"
		fi
	fi
fi

expect 2 "--pass x: exit 2" "tr-serve --pass x g.json" "--pass: invalid value 'x'"
expect 2 "--layer Lx: exit 2" "tr-serve --layer Lx g.json" "--layer: invalid value 'Lx'"
expect 2 "--stream-above -1: exit 2" "tr-serve --stream-above -1 g.json" \
	"--stream-above: invalid value '-1'"
expect 2 "--query '': exit 2" "tr-serve --query '' g.json" "--query: empty"
expect 2 "--no-setup with --pass: exit 2" "tr-serve --no-setup --pass 1 g.json" \
	"--no-setup: not with --pass, --layer or --query"
expect 2 "--ui with a fragment: exit 2" "tr-serve --ui 'http://127.0.0.1:9/#x' g.json" \
	"--ui: invalid URL"
expect 1 "--pass 5: exit 1, the passes named" "tr-serve --pass 5 g.json" \
	"tr-serve: g.json: --pass 5: no such pass (the guides have passes 0-1)"
expect 1 "--layer L9: exit 1" "tr-serve --layer L9 g.json" \
	"tr-serve: g.json: --layer 9: pass 0 has no guide L9"
expect 1 "--pass 0 without guides: exit 1" "tr-serve --pass 0 t.json" \
	"tr-serve: t.json: --pass 0: the served trace has no layer guides"
cp t.json bad.json
printf '{"layers": {}}\n' >bad.json.layers.json
expect 1 "a broken report: exit 1" "tr-serve bad.json" \
	"tr-serve: bad.json.layers.json: \"layers\" is not an array (--no-setup skips the reports)"
if serve_ui "a broken report with --no-setup" --no-setup bad.json; then
	ok "a broken report with --no-setup: the plain UI" test "$UIURL" = https://ui.perfetto.dev
fi

# Over about 1 GB of JSON: a warning with the tr-window command, and
# Perfetto's way for large traces, its trace processor beside the UI,
# explained, or run when it is in PATH (sparse files: tr-serve reads nothing
# of them before a request).  The PATH holds no trace_processor_shell, or
# the stand-in below, which records its arguments and stays until killed.
TP_EXPLAINED="tr-serve: for traces this large, Perfetto runs its trace processor natively beside the UI (https://perfetto.dev/docs/visualization/large-traces):"
if truncate -s 1100000000 "huge trace.json" 2>/dev/null; then
	SERVE_PATH=$T/nosuchdir
	if start sh "huge trace.json" && [ -n "$TOKEN" ]; then
		want="tr-decode 'huge trace.json' | tr-window --passes 0 | tr-encode -o 'huge trace.pass0.json.gz'"
		if grep -qF "warning: huge trace.json holds about 1100000000 bytes of JSON; browsers fail" sh.err &&
			grep -qxF "  $want" sh.err; then
			pass "over 1 GB: warns and prints the tr-window command"
		else
			fail "over 1 GB: warns and prints the tr-window command" "stderr: $(cat sh.err)"
		fi
		ok "over 1 GB: explains the trace processor, not in PATH" test \
			"$(grep -A 2 -F "$TP_EXPLAINED" sh.err)" = "$(printf '%s\n%s\n%s' "$TP_EXPLAINED" \
			"  trace_processor_shell --httpd huge trace.json" \
			"then open https://ui.perfetto.dev, which finds it on 127.0.0.1:9001 and offers to use it; trace_processor_shell is not in PATH (get it with: curl -LO https://get.perfetto.dev/trace_processor)")"
		req GET "/$TOKEN/"
		ok "over 1 GB: the page says so and how" grep -qxF '<p id="large">This trace holds about 1100000000 bytes of JSON: the Perfetto UI in a browser fails to load JSON traces of about 1 GB and more.  Perfetto&#39;s way for large traces: run trace_processor_shell --httpd with this file on this machine, then open https://ui.perfetto.dev, which finds it on 127.0.0.1:9001 and offers to use it (https://perfetto.dev/docs/visualization/large-traces).  tr-serve runs it itself when it is in PATH.</p>' b
		ok "over 1 GB: the page still posts the trace" grep -qF 'const SLOW_MS = 10000, RPC = false;' b
		: >sh.err
		stop sh TERM "over 1 GB: still serves, exit 0 on SIGTERM"
	else
		fail "over 1 GB: serves" "stderr: $(head -c 400 sh.err)"
	fi
	mkdir tpbin
	printf '#!/bin/sh\necho $$ >"%s/tpfake.pid"\nprintf "%%s\\n" "$@" >"%s/tpfake.args"\nexec sleep 300\n' \
		"$T" "$T" >tpbin/trace_processor_shell
	chmod +x tpbin/trace_processor_shell
	SERVE_PATH=$T/tpbin:$PATH
	if start tp "huge trace.json" && [ -n "$TOKEN" ] && wait_file tpfake.args 60; then
		ok "over 1 GB, trace_processor_shell in PATH: runs it with --httpd and the trace" \
			test "$(cat tpfake.args)" = "$(printf -- '--httpd\nhuge trace.json')"
		ok "over 1 GB, trace_processor_shell in PATH: says so" grep -qxF \
			"tr-serve: running trace_processor_shell --httpd huge trace.json: it loads the trace natively and serves it on 127.0.0.1:9001, where the Perfetto UI finds it: open the UI (the page's button) and answer its dialog with YES, use loaded trace" tp.err
		req GET "/$TOKEN/"
		ok "over 1 GB, trace_processor_shell in PATH: the page opens the UI and posts nothing" \
			grep -qF 'const SLOW_MS = 10000, RPC = true;' b
		ok "over 1 GB, trace_processor_shell in PATH: the page says so" grep -qF \
			'trace_processor_shell --httpd runs beside this server with the trace loaded: the button opens the Perfetto UI, which finds it on 127.0.0.1:9001; answer its dialog with YES, use loaded trace.</p>' b
		: >tp.err
		stop tp TERM "over 1 GB, trace_processor_shell in PATH: exit 0 on SIGTERM"
		if kill -0 "$(cat tpfake.pid)" 2>/dev/null; then
			fail "over 1 GB: trace_processor_shell stopped with tr-serve" "pid $(cat tpfake.pid) still runs"
			kill "$(cat tpfake.pid)"
		else
			pass "over 1 GB: trace_processor_shell stopped with tr-serve"
		fi
	else
		fail "over 1 GB, trace_processor_shell in PATH: runs it" "stderr: $(head -c 600 tp.err)"
		[ ! -f tpfake.pid ] || kill "$(cat tpfake.pid)" 2>/dev/null
	fi
	SERVE_PATH=
	rm -f "huge trace.json"
else
	skip "over 1 GB: warns" "no sparse file here (truncate failed)"
fi
# Perfetto protobuf: the limit is about 2 GB, and there is no window command.
if truncate -s 2200000000 big.pftrace 2>/dev/null && truncate -s 1100000000 mid.pftrace; then
	SERVE_PATH=$T/nosuchdir
	start pb big.pftrace
	ok "protobuf over 2 GB: warns, explains the trace processor" test \
		"$(head -n 2 pb.err)" = "$(printf '%s\n%s' \
		"tr-serve: warning: big.pftrace holds about 2200000000 bytes of Perfetto protobuf; the Perfetto UI in a browser fails to load traces of about 2 GB and more" \
		"$TP_EXPLAINED")"
	: >pb.err
	stop pb TERM "protobuf over 2 GB: exit 0 on SIGTERM"
	start pb mid.pftrace
	ok "protobuf of 1.1 GB: no warning" test ! -s pb.err
	stop pb TERM "protobuf of 1.1 GB: exit 0 on SIGTERM"
	SERVE_PATH=
	rm -f big.pftrace mid.pftrace
fi
start sh t.json
ok "under 1 GB: no warning" test ! -s sh.err
stop sh TERM "under 1 GB: exit 0 on SIGTERM"

# ----------------------------------------------------------- server: .json

if ! start s1 t.json || [ -z "$TOKEN" ]; then
	fail "server: prints its URL" "stdout: $(head -c 200 s1.out)" "stderr: $(head -c 400 s1.err)"
	return 0
fi
pass "server: prints its URL"
ok "server: a 32-hex-digit token" test "${#TOKEN}" -eq 32

# The listening socket: 127.0.0.1:PORT, never 0.0.0.0 or [::].
if command -v ss >/dev/null 2>&1; then
	ss -ltnH "sport = :$PORT" >listen.txt 2>&1 || ss -ltn >listen.txt 2>&1
	awk -v p=":$PORT" '$4 ~ p"$" { print $4 }' listen.txt >addrs.txt
else
	# /proc/net/tcp: local address as hex, state 0A is LISTEN
	hexport=$(printf '%04X' "$PORT")
	awk -v p=":$hexport" '$2 ~ p"$" && $4 == "0A" { print $2 }' /proc/net/tcp /proc/net/tcp6 \
		2>/dev/null | sed 's/^0100007F:/127.0.0.1:/' >addrs.txt
fi
if [ "$(cat addrs.txt)" = "127.0.0.1:$PORT" ]; then
	pass "server: listens on 127.0.0.1 only"
else
	fail "server: listens on 127.0.0.1 only" "listening: $(tr '\n' ' ' <addrs.txt)"
fi

req GET "/$TOKEN/"
status "page: 200" 200
ok "page: text/html" test "$(hdr Content-Type)" = "text/html; charset=utf-8"
ok "page: Content-Length is the body's" test "$(hdr Content-Length)" = "$(size_of b)"
ok "page: Cache-Control no-store" test "$(hdr Cache-Control)" = no-store
ok "page: nosniff" test "$(hdr X-Content-Type-Options)" = nosniff
ok "page: no Cross-Origin-Opener-Policy" test -z "$(hdr Cross-Origin-Opener-Policy)"
ok "page: pings with PING" grep -q 'postMessage("PING", uiOrigin)' b
ok "page: waits for PONG from the window it opened" \
	grep -q 'ev.source !== win || ev.origin !== uiOrigin || ev.data !== "PONG"' b
ok "page: posts {perfetto: {buffer, title, fileName}}" \
	grep -q 'postMessage({ perfetto: { buffer: buffer, title: NAME, fileName: NAME } }' b
ok "page: fetches the trace as an ArrayBuffer" grep -q '(await fetchTrace()).arrayBuffer()' b
ok "page: posts {perfetto: {stream, title, bytesTotal}} with the stream transferred" \
	grep -q 'postMessage({ perfetto: { stream: stream, title: NAME, bytesTotal: SIZE } },' b
ok "page: the size and the default stream threshold (256 MiB)" \
	grep -qF "const SIZE = $(size_of t.json), STREAM_ABOVE = 268435456;" b
ok "page: reports the bytes sent" grep -q '"Local trace sent: " + n + " bytes"' b
ok "page: warns that only the transfer is confirmed" grep -q 'confirms the transfer only' b
ok "page: says a click is needed" grep -q 'only from a click' b
ok "page: says when window.open returned null" grep -q 'window.open returned null' b
ok "page: the default UI is ui.perfetto.dev" grep -q 'dec("https.3A.2F.2Fui.perfetto.dev")' b
ok "page: the file name" grep -q 'NAME = dec("t.json")' b

req GET "/$TOKEN/?auto=1"
status "page with a query: 200" 200
req HEAD "/$TOKEN/"
status "page HEAD: 200" 200
ok "page HEAD: no body" test ! -s b
req GET "/$TOKEN/trace"
status "trace: 200" 200
same "trace: the file's bytes" t.json b
ok "trace: application/octet-stream" test "$(hdr Content-Type)" = application/octet-stream
ok "trace: Content-Length" test "$(hdr Content-Length)" = "$(size_of t.json)"
ok "trace: Cache-Control no-store" test "$(hdr Cache-Control)" = no-store
ok "trace: nosniff" test "$(hdr X-Content-Type-Options)" = nosniff
ok "trace: no Cross-Origin-Opener-Policy" test -z "$(hdr Cross-Origin-Opener-Policy)"
req GET "/$TOKEN/trace" "" "Range: bytes=10-19"
status "trace, Range bytes=10-19: 206" 206
ok "trace, Range bytes=10-19: those bytes" test "$(od -An -c b)" = "$(head -c 20 t.json | tail -c 10 | od -An -c)"
ok "trace, Range bytes=10-19: Content-Range" test "$(hdr Content-Range)" = "bytes 10-19/$(size_of t.json)"
req GET "/$TOKEN/trace" "" "Range: bytes=$(size_of t.json)-"
status "trace, Range past the end: 416" 416
ok "trace, Range past the end: Content-Range bytes */SIZE" test "$(hdr Content-Range)" = "bytes */$(size_of t.json)"
req HEAD "/$TOKEN/trace"
status "trace HEAD: 200" 200
ok "trace HEAD: Content-Length" test "$(hdr Content-Length)" = "$(size_of t.json)"
ok "trace HEAD: no body" test ! -s b

# Refusals.
other=$(echo "$TOKEN" | tr '0-9a-f' '1-9a-f0')
req GET "/$other/"
status "wrong token: 404" 404
req GET "/$other/trace"
status "wrong token, trace: 404" 404
req GET "/$(echo "$TOKEN" | tr a-f A-F)/trace"
status "token in capitals: 404" 404
req GET /
status "/: 404" 404
req GET "/$TOKEN"
status "token without a slash: 404" 404
req GET "/$TOKEN/trace/"
status "trace/: 404" 404
req GET "/$TOKEN/../etc/passwd"
status "/TOKEN/../etc/passwd: 404" 404
ok "/TOKEN/../etc/passwd: no file content" grep -qx '404 Not Found' b
req GET "/$TOKEN/t.json"
status "the file name: 404" 404
req GET "/$TOKEN/%2e%2e/trace"
status "encoded dots: 404" 404
req POST "/$TOKEN/trace"
status "POST: 405" 405
ok "POST: Allow: GET, HEAD" test "$(hdr Allow)" = "GET, HEAD"
req PUT "/$TOKEN/trace"
status "PUT: 405" 405
req DELETE "/$TOKEN/"
status "DELETE: 405" 405
req GET "/$TOKEN/" "evil.example:$PORT"
status "Host evil.example:PORT refused (421)" 421
req GET "/$TOKEN/trace" "evil.example"
status "Host evil.example refused (421)" 421
req GET "/$TOKEN/" "127.0.0.1:$((PORT == 65535 ? 1 : PORT + 1))"
status "Host with another port refused (421)" 421
req GET "/$TOKEN/" "127.0.0.1"
status "Host without the port refused (421)" 421
req GET "/$TOKEN/" "localhost:$PORT"
status "Host localhost:PORT: 200" 200
req GET "/$TOKEN/" -
status "no Host header: 400" 400
req GET "/$TOKEN/" "" "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)"
status "a 9000-byte header: 431" 431

# A client that connects and sends nothing must not hold up the others
# (each connection has its own child and a 10 s limit for its head).
# The silent client says when it is connected, and stays until killed.
"$PY" -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").write("connected")
time.sleep(120)' "$PORT" "$T/idle.connected" &
idle=$!
wait_file idle.connected 60
req GET "/$TOKEN/trace"
status "served while another client sits silent" 200
kill "$idle" 2>/dev/null

# --open: the opener gets the URL as one argument (a stand-in opener; no
# browser is started).
mkdir fakebin
printf '#!/bin/sh\nprintf "%%s\\n" "$#:$1" >"%s/opened.txt"\n' "$T" >fakebin/xdg-open
cp fakebin/xdg-open fakebin/open
chmod +x fakebin/xdg-open fakebin/open
SERVE_PATH=$T/fakebin:$PATH
start s2 --open t.json
if wait_file opened.txt 60 && [ "$(cat opened.txt)" = "1:$URL" ]; then
	pass "--open: runs xdg-open URL"
else
	fail "--open: runs xdg-open URL" "opener got: $(cat opened.txt 2>/dev/null)" \
		"stderr: $(head -c 400 s2.err)"
fi
stop s2 TERM "--open: exit 0 on SIGTERM"
SERVE_PATH=$T/nosuchdir
start s3 --open t.json
SERVE_PATH=
if [ -n "$TOKEN" ] && grep -q 'xdg-open not found in PATH' s3.err; then
	pass "--open without xdg-open: serves and says so"
else
	fail "--open without xdg-open: serves and says so" "stderr: $(head -c 400 s3.err)"
fi
: >s3.err
stop s3 TERM "--open without xdg-open: exit 0 on SIGTERM"

stop s1 TERM "SIGTERM: exit 0 promptly"
# --port: the port asked for; a second server on it fails with exit 2.
fixed=$("$PY" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start s4 --port "$fixed" t.json.gz
ok "--port N: the URL has port N" test "$PORT" = "$fixed"
expect 2 "--port N in use: exit 2" "tr-serve --port $fixed t.json" "127.0.0.1:$fixed"

# ------------------------------------------------------- server: .json.gz

req GET "/$TOKEN/trace"
status "gz trace: 200" 200
same "gz trace: the stored (compressed) bytes" t.json.gz b
ok "gz trace: Content-Length" test "$(hdr Content-Length)" = "$(size_of t.json.gz)"
ok "gz trace: no Content-Encoding" test -z "$(hdr Content-Encoding)"
req HEAD "/$TOKEN/trace"
ok "gz trace HEAD: Content-Length, no body" \
	test "$(hdr Content-Length)" = "$(size_of t.json.gz)" -a ! -s b
req GET "/$TOKEN/"
ok "gz page: the file name" grep -q 'NAME = dec("t.json.gz")' b
stop s4 INT "SIGINT: exit 0 promptly"
req GET "/$TOKEN/"
status "stopped: nothing listens" 000

# --stream-above takes a byte count as every option does: K, M or G.
start s6 --stream-above 1M t.json
req GET "/$TOKEN/"
ok "--stream-above 1M: the page streams above 1048576 bytes" \
	grep -qF "STREAM_ABOVE = 1048576;" b
stop s6 TERM "--stream-above 1M: exit 0 on SIGTERM"
start s7 --stream-above 3G t.json
req GET "/$TOKEN/"
ok "--stream-above 3G: 3221225472 bytes" grep -qF "STREAM_ABOVE = 3221225472;" b
stop s7 TERM "--stream-above 3G: exit 0 on SIGTERM"
expect 2 "--stream-above 1.5G: refused (whole numbers only)" "tr-serve --stream-above 1.5G t.json" \
	"tr-serve: --stream-above: invalid value '1.5G' (allowed 0 to 1024G)"
expect 2 "--stream-above 1m: refused (upper case only)" "tr-serve --stream-above 1m t.json" \
	"tr-serve: --stream-above: invalid value '1m' (allowed 0 to 1024G)"

# ---------------------------------------------- server: a large file

# 48 MiB: larger than the socket buffers, so a client can leave mid-transfer.
dd if=/dev/urandom of=big.bin bs=1048576 count=48 2>/dev/null
start s5 big.bin
"$PY" -c 'import socket, struct, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(("GET /%s/trace HTTP/1.1\r\nHost: 127.0.0.1:%s\r\n\r\n" % (sys.argv[2], sys.argv[1])).encode())
s.recv(4096)
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()' "$PORT" "$TOKEN" || fail "large: a client leaves mid-transfer" "the client failed"
req GET "/$TOKEN/trace"
status "large: still serving after a client left mid-transfer" 200
same "large: the file's bytes" big.bin b
ok "large: Content-Length" test "$(hdr Content-Length)" = "$(size_of big.bin)"
stop s5 TERM "large: exit 0 on SIGTERM"
rm -f big.bin b

# ------------------------------------------------------ browser protocol

CHROMIUM=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null) ||
	CHROMIUM=
if [ -z "$CHROMIUM" ]; then
	skip "browser: postMessage to a stand-in UI" \
		"chromium is not installed (scripts/install-deps.sh installs it when run as root)"
	return 0
fi

# Perfetto's side of the protocol: PONG to PING until it takes a trace (as
# the UI's handler, which removes itself then), a buffer or a transferred
# stream, read whole; then report the bytes' size and SHA-256, the names
# and the location it was opened at to this page's own origin.  With ?old=1
# it is an older UI that does not know streams: it ignores them and keeps
# answering PING; with ?mute=1 a UI that never answers.
mkdir ui
cat >ui/standin.html <<'EOF'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>stand-in UI</title></head><body>
<p id="s">waiting</p>
<script>
"use strict";
const OLD = new URLSearchParams(location.search).get("old") === "1";
const MUTE = new URLSearchParams(location.search).get("mute") === "1";
let taken = false;
window.addEventListener("message", async function (ev) {
  if (ev.data === "PING") { if (!taken && !MUTE) ev.source.postMessage("PONG", "*"); return; }
  if (!ev.data || !ev.data.perfetto || taken) return;
  const p = ev.data.perfetto;
  let bytes, mode;
  if (p.stream !== undefined) {
    if (OLD) return;
    taken = true;
    mode = "stream";
    const rd = p.stream.getReader(), parts = [];
    let n = 0;
    for (;;) {
      const x = await rd.read();
      if (x.done) break;
      parts.push(x.value);
      n += x.value.byteLength;
    }
    bytes = new Uint8Array(n);
    let o = 0;
    for (const q of parts) { bytes.set(q, o); o += q.byteLength; }
  } else {
    taken = true;
    mode = "buffer";
    bytes = new Uint8Array(p.buffer);
  }
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(d, function (x) { return x.toString(16).padStart(2, "0"); }).join("");
  document.getElementById("s").textContent = "got " + bytes.byteLength;
  fetch("/report?mode=" + mode + "&bytes=" + bytes.byteLength + "&sha256=" + hex +
        "&title=" + encodeURIComponent(p.title) +
        "&fileName=" + encodeURIComponent(p.fileName === undefined ? "-" : p.fileName) +
        "&bytesTotal=" + (p.bytesTotal === undefined ? "-" : p.bytesTotal) +
        "&location=" + encodeURIComponent(location.href));
});
</script></body></html>
EOF
(sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$T/py.pid" \
	"$PY" -u -m http.server --bind 127.0.0.1 0 --directory "$T/ui" >py.out 2>py.log) &
wait_file py.out 60
P2=$(sed -n 's/^Serving HTTP on 127\.0\.0\.1 port \([0-9]*\) .*/\1/p' py.out)
if [ -z "$P2" ]; then
	fail "browser: stand-in UI server" "$(head -c 400 py.out) $(head -c 400 py.log)"
	return 0
fi

# browse NAME FILE [OPTIONS]: serve FILE with the stand-in UI (the OPTIONS
# may give another --ui), open the page in headless Chromium, and wait for
# the stand-in's report; REPORT holds its query (empty when none came).
nrun=0
browse() {
	bname=$1 file=$2
	shift 2
	nrun=$((nrun + 1))
	: >py.log
	if ! start "b$nrun" --ui "http://127.0.0.1:$P2/standin.html" "$@" "$file" ||
		[ -z "$TOKEN" ]; then
		fail "$bname: tr-serve starts" "stderr: $(head -c 400 "b$nrun.err")"
		REPORT=
		return 1
	fi
	rm -rf profile
	mkdir profile
	# --disable-popup-blocking lets ?auto=1 open the window without a click;
	# --virtual-time-budget lets both pages run before the DOM is dumped.
	timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--no-default-browser-check --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions \
		--disable-default-apps --disable-domain-reliability --no-proxy-server \
		--disable-breakpad --disable-crash-reporter \
		--disable-popup-blocking --user-data-dir="$T/profile" \
		--virtual-time-budget=20000 --dump-dom "${URL}?auto=1" >dom.html 2>chromium.err
	crc=$?
	# The report is a separate request: wait for it to reach the log (a
	# minute is the guard against a hang).
	i=0
	while ! grep -q 'GET /report?' py.log && [ "$i" -lt 600 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	REPORT=$(sed -n 's|.*"GET /report?\([^ ]*\) HTTP.*|\1|p' py.log | head -n 1)
	[ -n "$REPORT" ] || fail "$bname: the stand-in UI reports" "chromium exit $crc" \
		"log: $(tail -n 5 py.log)" "chromium: $(grep -v dbus chromium.err | tail -n 3)"
	stop "b$nrun" TERM "$bname: tr-serve exit 0 on SIGTERM"
	[ -n "$REPORT" ]
}

# field NAME: a decoded field of the stand-in's report.
field() {
	"$PY" -c 'import sys, urllib.parse as u
print(u.parse_qs(sys.argv[1], keep_blank_values=True)[sys.argv[2]][0])' "$REPORT" "$1"
}

# got NAME FILE MODE: the stand-in got FILE's bytes (size, SHA-256) by MODE.
got() {
	want="$3 $(size_of "$2") $(sha256sum "$2" | cut -d' ' -f1) $(basename "$2")"
	have="$(field mode) $(field bytes) $(field sha256) $(field title)"
	if [ "$have" = "$want" ]; then
		pass "$1"
	else
		fail "$1" "got: $have" "wanted: $want"
	fi
}

# status_is NAME TEXT: the page's status line, as the DOM was dumped.
status_is() {
	have=$(sed -n 's|.*<p id="status" role="status">\([^<]*\)</p>.*|\1|p' dom.html)
	if [ "$have" = "$2" ]; then pass "$1"; else fail "$1" "status: $have" "wanted: $2"; fi
}

size=$(size_of t.json.gz)
if browse "browser: buffer" t.json.gz; then
	got "browser: the stand-in UI got the file's bytes as a buffer (size, SHA-256)" t.json.gz buffer
	ok "browser: fileName" test "$(field fileName)" = t.json.gz
	ok "browser: no report, so the UI opened plainly" \
		test "$(field location)" = "http://127.0.0.1:$P2/standin.html"
	status_is "browser: the page shows Local trace sent: $size bytes" "Local trace sent: $size bytes"
	ok "browser: the page shows the warning" grep -q '<p id="warn">This confirms the transfer only' dom.html
	ok "browser: the UI answered, so no hint that it is slow" grep -q '<p id="slow" hidden' dom.html
fi

# A UI that never answers: after 10 s (of the browser's virtual time) the
# page says so and what to try.
if start bm --ui "http://127.0.0.1:$P2/standin.html?mute=1" t.json && [ -n "$TOKEN" ]; then
	rm -rf profile
	mkdir profile
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--no-default-browser-check --disable-background-networking \
		--disable-component-update --disable-sync --disable-extensions \
		--disable-default-apps --disable-domain-reliability --no-proxy-server \
		--disable-breakpad --disable-crash-reporter \
		--disable-popup-blocking --user-data-dir="$T/profile" \
		--virtual-time-budget=15000 --dump-dom "${URL}?auto=1" >dom.html 2>chromium.err
	ok "browser: a UI silent for 10 s: the page shows the hint" \
		grep -q '<p id="slow">The Perfetto UI has not answered within 10 seconds.' dom.html
	status_is "browser: a UI silent for 10 s: still waiting" \
		"Waiting for the Perfetto UI to answer PING with PONG..."
	stop bm TERM "browser: a UI silent: tr-serve exit 0 on SIGTERM"
fi

# The guided trace: the stand-in is opened at the UI URL with its setup.
gsize=$(size_of g.json)
if browse "browser: setup" g.json; then
	got "browser: setup: the guided trace's bytes" g.json buffer
	check_ui "browser: setup: the stand-in was opened with the guide and lanes pinned, pass 0 in view" \
		g.json "$(field location)"
fi

# Streamed (every trace is above --stream-above 0): the bytes, the total and
# the progress line.
if browse "browser: stream" g.json --stream-above 0; then
	got "browser: stream: the stand-in read the file's bytes from the stream" g.json stream
	ok "browser: stream: bytesTotal is the file's size" test "$(field bytesTotal)" = "$gsize"
	status_is "browser: stream: the page shows Local trace streamed: $gsize bytes" \
		"Local trace streamed: $gsize bytes"
	ok "browser: stream: the progress line counts to the total" \
		grep -qF "<p id=\"progress\">Sent $gsize of $gsize bytes</p>" dom.html
	check_ui "browser: stream: the setup as well" g.json "$(field location)"
fi

# An older UI that ignores streams: the page falls back to a buffer and says so.
if browse "browser: fallback" g.json --stream-above 0 \
	--ui "http://127.0.0.1:$P2/standin.html?old=1"; then
	got "browser: fallback: an older UI got the file's bytes as a buffer" g.json buffer
	status_is "browser: fallback: the page says the UI did not take a stream" \
		"The Perfetto UI did not take a stream (an older UI): sent as one buffer instead. Local trace sent: $gsize bytes"
	check_ui "browser: fallback: the setup after the UI's own query" g.json "$(field location)"
fi
kill "$(cat py.pid)" 2>/dev/null
rm -f py.pid
