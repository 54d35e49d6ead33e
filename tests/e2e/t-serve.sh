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
	URL= PORT= TOKEN=
	wait_file "$n.out" 60 || return 1
	URL=$(sed -n 's/^open //p' "$n.out")
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
ok "--help: usage on stdout" grep -q '^usage: tr-serve \[--port N\] \[--ui URL\] \[--open\] TRACE' "$T/out"
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

# The trace as an option (the seed's viewer command: serve ... --trace FILE),
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
ok "page: fetches the trace as an ArrayBuffer" grep -q 'r.arrayBuffer()' b
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

# Perfetto's side of the protocol: PONG to PING, then take the buffer and
# report its size and SHA-256 to this page's own origin.
mkdir ui
cat >ui/standin.html <<'EOF'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>stand-in UI</title></head><body>
<p id="s">waiting</p>
<script>
"use strict";
window.addEventListener("message", async function (ev) {
  if (ev.data === "PING") { ev.source.postMessage("PONG", "*"); return; }
  if (!ev.data || !ev.data.perfetto) return;
  const p = ev.data.perfetto;
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", p.buffer));
  const hex = Array.from(d, function (x) { return x.toString(16).padStart(2, "0"); }).join("");
  document.getElementById("s").textContent = "got " + p.buffer.byteLength;
  fetch("/report?bytes=" + p.buffer.byteLength + "&sha256=" + hex +
        "&title=" + encodeURIComponent(p.title) + "&fileName=" + encodeURIComponent(p.fileName));
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

size=$(size_of t.json.gz)
sha=$(sha256sum t.json.gz | cut -d' ' -f1)
start s6 --ui "http://127.0.0.1:$P2/standin.html" t.json.gz
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
# The report is a separate request: wait for it to reach the log (a minute
# is the guard against a hang).
want="GET /report?bytes=$size&sha256=$sha&title=t.json.gz&fileName=t.json.gz "
i=0
while ! grep -qF "$want" py.log && [ "$i" -lt 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
if grep -qF "$want" py.log; then
	pass "browser: the stand-in UI got the file's bytes (size, SHA-256, names)"
else
	fail "browser: the stand-in UI got the file's bytes (size, SHA-256, names)" \
		"chromium exit $crc; wanted in the log: $want" "log: $(tail -n 5 py.log)" \
		"chromium: $(grep -v dbus chromium.err | tail -n 3)"
fi
if grep -qF "Local trace sent: $size bytes" dom.html; then
	pass "browser: the page shows Local trace sent: $size bytes"
else
	fail "browser: the page shows Local trace sent: $size bytes" \
		"status: $(grep -o '<p id="status"[^<]*' dom.html)"
fi
ok "browser: the page shows the warning" grep -q '<p id="warn">This confirms the transfer only' dom.html
stop s6 TERM "browser: tr-serve exit 0 on SIGTERM"
kill "$(cat py.pid)" 2>/dev/null
rm -f py.pid
