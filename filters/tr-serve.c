/* tr-serve: serve one trace file and a viewer page on 127.0.0.1, so that a
 * browser can hand the trace to the Perfetto UI through postMessage (the UI
 * cannot fetch from a local HTTP server without CORS and HTTPS, but it accepts
 * a buffer posted by the window that opened it).  See tr-serve(1).
 *
 * Security model: loopback only, a random token in every path, the Host
 * header checked against DNS rebinding, no path from a request ever reaches
 * the file system, and each connection in its own child with time limits. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "opt.h"
#include "serve_page.h"
#include "ui.h"

#define DEFAULT_UI "https://ui.perfetto.dev"
#define UI_MAX 2048              /* longer --ui URLs are refused */
#define HEAD_MAX 8192            /* request line plus headers */
#define HEAD_TIMEOUT_MS 10000    /* the whole head must arrive in this time */
#define SEND_TIMEOUT_S 30        /* one write blocked longer: the reader is gone */
#define LINGER_MS 1000           /* reading what the client still sends */
#define MAX_CHILDREN 16          /* connections served at once */
#define CHUNK (256 * 1024)       /* trace bytes per read */
#define TOKEN_BYTES 16           /* 128 random bits, 32 hex digits */
#define STREAM_ABOVE_DEFAULT (256LL * 1024 * 1024)
/* beyond any file: the page's JavaScript compares it exactly (2^53 > 1024G) */
#define STREAM_ABOVE_MAX ((uint64_t)1024 * 1024 * 1024 * 1024)
#define BROWSER_JSON_LIMIT 1000000000LL   /* browsers fail to import about this much */
#define REPORT_MAX (256 * 1024 * 1024)   /* a larger report beside a trace is refused */

static const char usage_text[] =
	"usage: tr-serve [--port N] [--ui URL] [--open] [--pass K] [--layer LN]\n"
	"                [--query SQL] [--no-setup] [--stream-above BYTES]\n"
	"                [--print-ui-url]\n"
	"                TRACE | --trace TRACE\n"
	"Serve TRACE (.json or .json.gz, sent as stored) and a viewer page on\n"
	"127.0.0.1 until interrupted; the page opens the Perfetto UI in a new\n"
	"window and posts the trace to it.  The URL to open goes to standard output,\n"
	"then \"Ctrl-C to stop\".  With a report beside TRACE (.layers.json,\n"
	".compact.json, .window.json), the UI pins the layer guides and synthetic\n"
	"GPU lanes, expands the GPU process, shows pass 0 and lists the guides.\n"
	"\n"
	"  --trace TRACE  TRACE given as an option (as serve_local_trace.py takes it)\n"
	"  --port N   listen on port N (1-65535; default 0, any free port)\n"
	"  --ui URL   the Perfetto UI to open (http:// or https://, no '#';\n"
	"             default " DEFAULT_UI ")\n"
	"  --open     start xdg-open (open on macOS) on the URL\n"
	"  --pass K   show pass K (default 0) instead\n"
	"  --layer LN also select the guide of layer N (L3 or 3) of that pass\n"
	"  --query SQL  open a query tab with SQL instead of the guide listing\n"
	"  --no-setup open the UI plainly: no pins, range, selection or query\n"
	"  --stream-above BYTES  stream traces larger than BYTES (K, M or G allowed;\n"
	"             default 256M)\n"
	"  --print-ui-url  also print the UI URL the page opens, as \"ui URL\"\n"
	"  --help     this text\n"
	"  --version  the version\n"
	"\n"
	"Exit status: 0 stopped by SIGINT or SIGTERM, 1 input rejected,\n"
	"2 usage or system trouble.\n";

/* Sent with every response.  The Referrer-Policy keeps the token out of the
 * Referer that the UI would otherwise see; no Cross-Origin-Opener-Policy,
 * which would cut the page off from the window it opens. */
#define COMMON_HEADERS \
	"Cache-Control: no-store\r\n" \
	"X-Content-Type-Options: nosniff\r\n" \
	"Referrer-Policy: no-referrer\r\n" \
	"X-Frame-Options: DENY\r\n" \
	"Connection: close\r\n"

#define PAGE_CSP \
	"Content-Security-Policy: default-src 'none'; script-src 'unsafe-inline'; " \
	"style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; " \
	"form-action 'none'; frame-ancestors 'none'\r\n"

static int trace_fd = -1;
static int listen_fd = -1;
static int wake_rd = -1, wake_wr = -1;   /* self-pipe: signals wake poll() */
static unsigned port;
static char page_path[TOKEN_BYTES * 2 + 3];
static char trace_path[TOKEN_BYTES * 2 + 8];
static struct buf page = BUF_INIT;
static pid_t children[MAX_CHILDREN];
static int nchildren;
static pid_t opener_pid = -1;
static const char *opener_name;
static volatile sig_atomic_t got_stop;

/* ---- signals ------------------------------------------------------- */

static void on_signal(int sig)
{
	int saved = errno;
	ssize_t w;

	if (sig != SIGCHLD)
		got_stop = 1;
	/* a full pipe already holds a wake-up */
	w = write(wake_wr, "", 1);
	(void)w;
	errno = saved;
}

static void set_flags(int fd, int fl_add, int fd_add)
{
	int fl = fcntl(fd, F_GETFL), fdf = fcntl(fd, F_GETFD);

	if (fl < 0 || fdf < 0 || fcntl(fd, F_SETFL, fl | fl_add) < 0 ||
	    fcntl(fd, F_SETFD, fdf | fd_add) < 0)
		die_errno(EXIT_TROUBLE, "fcntl");
}

static void install_signals(void)
{
	struct sigaction sa;
	int p[2];

	if (pipe(p) != 0)
		die_errno(EXIT_TROUBLE, "pipe");
	wake_rd = p[0];
	wake_wr = p[1];
	set_flags(wake_rd, O_NONBLOCK, FD_CLOEXEC);
	set_flags(wake_wr, O_NONBLOCK, FD_CLOEXEC);

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() returns EINTR, and the pipe covers the race */
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_NOCLDSTOP;
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGCHLD, &sa, NULL) != 0)
		die_errno(EXIT_TROUBLE, "sigaction");
	/* A browser tab closed in the middle of a response must not kill the
	 * server: writes to the socket then fail with EPIPE instead. */
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	if (sigaction(SIGPIPE, &sa, NULL) != 0)
		die_errno(EXIT_TROUBLE, "sigaction");
}

/* The defaults again, for a connection child or before exec. */
static void default_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
}

/* ---- setup --------------------------------------------------------- */

/* ---- the UI's startup parameters ------------------------------------ */

/* The whole of a report into b: 1, or 0 when there is no such file. */
static int read_report(const char *path, struct buf *b)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	buf_reset(b);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st) != 0)
		die_errno(EXIT_TROUBLE, "%s", path);
	if (!S_ISREG(st.st_mode))
		die(EXIT_TROUBLE, "%s: not a regular file", path);
	if (st.st_size > REPORT_MAX)
		die(EXIT_INPUT, "%s: a report of %jd bytes (at most %d read; --no-setup "
		    "skips the reports)", path, (intmax_t)st.st_size, REPORT_MAX);
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof chunk);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die_errno(EXIT_TROUBLE, "%s", path);
		if (r == 0)
			break;
		if (buf_add(b, chunk, (size_t)r) != 0)
			die_nomem();
	}
	close(fd);
	return 1;
}

static void take_report(struct ui_view *v, const char *path, struct buf *text)
{
	struct buf why = BUF_INIT;
	int rc = ui_view_add_report(v, text->p, text->len, &why);

	if (rc == UI_NOMEM)
		die_nomem();
	if (rc != UI_OK)
		die(EXIT_INPUT, "%s: %s (--no-setup skips the reports)", path, why.p);
	buf_release(&why);
}

/* The reports beside TRACE: TRACE.layers.json, TRACE.compact.json and
 * TRACE.window.json; a compact or window report whose source has reports
 * beside it (a guided trace compacted by tr-compact-track, a window cut by
 * tr-window from an annotated output) brings those too, since compaction
 * and windows keep the guides, their times and the lanes. */
static void read_reports(const char *path, struct ui_view *v, int64_t *events, int *nread)
{
	static const char *const kinds[] = { ".layers.json", ".compact.json", ".window.json" };
	struct buf name = BUF_INIT, text = BUF_INIT, src = BUF_INIT;
	const char *slash = strrchr(path, '/');
	int have_layers = 0;
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		buf_reset(&name);
		if (buf_printf(&name, "%s%s", path, kinds[i]) != 0)
			die_nomem();
		if (!read_report(name.p, &text))
			continue;
		take_report(v, name.p, &text);
		(*nread)++;
		/* the later kinds describe the served file more closely: a
		 * window of a trace, a compacted trace */
		if (ui_report_events(text.p, text.len, events) == UI_NOMEM)
			die_nomem();
		if (i == 0)
			have_layers = 1;
		if (i >= 1 && !have_layers && ui_report_source_file(text.p, text.len, &src) == 1 &&
		    strchr(src.p, '/') == NULL) {
			/* the source's own reports, beside it: its guides (and,
			 * for a window, its lanes) */
			size_t k;
			for (k = 0; k < i; k++) {
				buf_reset(&name);
				if (buf_printf(&name, "%.*s%s%s", slash ? (int)(slash - path + 1) : 0,
					       path, src.p, kinds[k]) != 0)
					die_nomem();
				if (strcmp(name.p, path) != 0 && read_report(name.p, &text)) {
					take_report(v, name.p, &text);
					(*nread)++;
					have_layers |= k == 0;
				}
			}
		}
	}
	buf_release(&name);
	buf_release(&text);
	buf_release(&src);
}

/* The URL the page opens: the UI with its hash route and parameters. */
static char *ui_url(const char *ui, const char *path, const struct ui_choice *choice,
	struct ui_view *vp, int64_t *events, int *nread)
{
	struct ui_view v = UI_VIEW_INIT;
	struct buf params = BUF_INIT, why = BUF_INIT, url = BUF_INIT;
	const char *host = strstr(ui, "://") + 3;
	int rc;

	if (!choice->no_setup)
		read_reports(path, &v, events, nread);
	rc = ui_build_params(&v, choice, &params, &why);
	if (rc == UI_NOMEM)
		die_nomem();
	if (rc != UI_OK)
		die(EXIT_INPUT, "%s: %s", path, why.p);
	if (buf_addstr(&url, ui) != 0)
		die_nomem();
	if (params.len > 0 &&
	    ((strpbrk(host, "/?") == NULL && buf_addch(&url, '/') != 0) ||
	     buf_addstr(&url, "#!/?") != 0 || buf_add(&url, params.p, params.len) != 0))
		die_nomem();
	*vp = v;
	buf_release(&params);
	buf_release(&why);
	return url.p;
}

/* s quoted for a POSIX shell when it needs it. */
static void put_shell_word(struct buf *b, const char *s)
{
	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				 "0123456789-._/+,:=@%") == strlen(s)) {
		buf_addstr(b, s);
		return;
	}
	buf_addch(b, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			buf_addstr(b, "'\\''");
		else
			buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}

/* The size of the JSON text: the file's, or for gzip the larger of the
 * compressed size and the trailer's ISIZE (the size modulo 4 GiB). */
static long long json_text_size(off_t size)
{
	unsigned char tail[4], magic[2];
	long long isize;

	if (size < 18 || pread(trace_fd, magic, 2, 0) != 2 || magic[0] != 0x1f ||
	    magic[1] != 0x8b)
		return (long long)size;
	if (pread(trace_fd, tail, 4, size - 4) != 4)
		return (long long)size;
	isize = (long long)tail[0] | (long long)tail[1] << 8 | (long long)tail[2] << 16 |
		(long long)tail[3] << 24;
	return isize > (long long)size ? isize : (long long)size;
}

/* Browsers fail to import JSON traces of about 1 GB and more: say so, and
 * give the command that cuts pass 0 out of the trace (tr-window(1)). */
static void warn_if_too_big(const char *path, off_t size)
{
	long long text = json_text_size(size);
	struct buf cmd = BUF_INIT, out = BUF_INIT;
	size_t n = strlen(path);

	if (text <= BROWSER_JSON_LIMIT)
		return;
	if (n > 8 && strcmp(path + n - 8, ".json.gz") == 0)
		n -= 8;
	else if (n > 5 && strcmp(path + n - 5, ".json") == 0)
		n -= 5;
	buf_printf(&out, "%.*s.pass0.json.gz", (int)n, path);
	buf_addstr(&cmd, "tr-decode ");
	put_shell_word(&cmd, path);
	buf_addstr(&cmd, " | tr-window --passes 0 | tr-encode -o ");
	put_shell_word(&cmd, out.p);
	if (cmd.len == 0 || out.len == 0)
		die_nomem();
	warnx_tr("warning: %s holds about %lld bytes of JSON; browsers fail to import "
		 "JSON traces of about 1 GB and more. Cut a window (pass 0) with:\n  %s",
		 path, text, cmd.p);
	buf_release(&cmd);
	buf_release(&out);
}

static void make_token(void)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[TOKEN_BYTES];
	char tok[TOKEN_BYTES * 2 + 1];
	size_t got = 0, i;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die_errno(EXIT_TROUBLE, "/dev/urandom");
	while (got < sizeof raw) {
		ssize_t r = read(fd, raw + got, sizeof raw - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die_errno(EXIT_TROUBLE, "/dev/urandom");
		got += (size_t)r;
	}
	close(fd);
	for (i = 0; i < sizeof raw; i++) {
		tok[2 * i] = hex[raw[i] >> 4];
		tok[2 * i + 1] = hex[raw[i] & 15];
	}
	tok[sizeof tok - 1] = '\0';
	snprintf(page_path, sizeof page_path, "/%s/", tok);
	snprintf(trace_path, sizeof trace_path, "/%s/trace", tok);
}

/* The trace is opened once, here; requests never name a file. */
static off_t open_trace(const char *path)
{
	struct stat st;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	trace_fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (trace_fd < 0)
		die_errno(EXIT_TROUBLE, "%s", path);
	if (fstat(trace_fd, &st) != 0)
		die_errno(EXIT_TROUBLE, "%s", path);
	if (!S_ISREG(st.st_mode))
		die(EXIT_TROUBLE, "%s: not a regular file", path);
	if (fcntl(trace_fd, F_SETFL, fcntl(trace_fd, F_GETFL) & ~O_NONBLOCK) < 0)
		die_errno(EXIT_TROUBLE, "%s", path);
	if (st.st_size == 0)
		die(EXIT_INPUT, "%s: empty file (Perfetto refuses an empty trace)", path);
	return st.st_size;
}

static void open_listener(unsigned want_port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	int one = 1;

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (listen_fd < 0)
		die_errno(EXIT_TROUBLE, "socket");
	set_flags(listen_fd, O_NONBLOCK, FD_CLOEXEC);
	/* a restart on the same --port must not wait out TIME_WAIT */
	if (setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0)
		die_errno(EXIT_TROUBLE, "setsockopt");
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)want_port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);   /* never 0.0.0.0 */
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0)
		die_errno(EXIT_TROUBLE, "127.0.0.1:%u", want_port);
	if (listen(listen_fd, 16) != 0)
		die_errno(EXIT_TROUBLE, "listen");
	if (getsockname(listen_fd, (struct sockaddr *)&sa, &len) != 0)
		die_errno(EXIT_TROUBLE, "getsockname");
	port = ntohs(sa.sin_port);
}

/* ---- one connection (in a child) ----------------------------------- */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 0, or -1 when the client is gone or too slow (SO_SNDTIMEO). */
static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Equal strings, in a time that does not depend on where they differ. */
static int same_secret(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b), i;
	unsigned char d = 0;

	if (alen != blen)
		return 0;
	for (i = 0; i < alen; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* Read the request head into buf: its length (through the empty line), 0
 * when the client closed or was too slow, -1 when it is over HEAD_MAX. */
static long read_head(int fd, char *buf)
{
	long deadline = now_ms() + HEAD_TIMEOUT_MS;
	size_t len = 0, i;

	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		long left = deadline - now_ms();
		ssize_t r;
		int pr;

		if (left <= 0)
			return 0;
		pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return 0;
		r = read(fd, buf + len, HEAD_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		/* look for the end of the head in what is new (and 3 bytes back) */
		i = len > 3 ? len - 3 : 0;
		len += (size_t)r;
		for (; i < len; i++) {
			if (buf[i] != '\n')
				continue;
			if (i + 1 < len && buf[i + 1] == '\n')
				return (long)(i + 2);
			if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
				return (long)(i + 3);
		}
		if (len == HEAD_MAX)
			return -1;
	}
}

static void send_error(int fd, int code, const char *reason, int head_only,
	const char *extra)
{
	char msg[1024];
	char body[128];
	int bn = snprintf(body, sizeof body, "%d %s\n", code, reason);
	int n = snprintf(msg, sizeof msg,
		"HTTP/1.1 %d %s\r\n"
		"Content-Type: text/plain; charset=utf-8\r\n"
		"Content-Length: %d\r\n"
		COMMON_HEADERS
		"%s"
		"\r\n"
		"%s",
		code, reason, bn, extra ? extra : "", head_only ? "" : body);

	if (n > 0 && (size_t)n < sizeof msg)
		send_all(fd, msg, (size_t)n);
}

static void send_page(int fd, int head_only)
{
	char hdr[1024];
	int n = snprintf(hdr, sizeof hdr,
		"HTTP/1.1 200 OK\r\n"
		"Content-Type: text/html; charset=utf-8\r\n"
		"Content-Length: %zu\r\n"
		COMMON_HEADERS
		PAGE_CSP
		"\r\n", page.len);

	if (send_all(fd, hdr, (size_t)n) == 0 && !head_only)
		send_all(fd, page.p, page.len);
}

/* The bytes as stored, in chunks: a trace can be larger than memory. */
static void send_trace(int fd, int head_only)
{
	static char chunk[CHUNK];
	char hdr[1024];
	struct stat st;
	off_t off = 0;
	int n;

	if (fstat(trace_fd, &st) != 0) {
		send_error(fd, 500, "Internal Server Error", head_only, NULL);
		return;
	}
	n = snprintf(hdr, sizeof hdr,
		"HTTP/1.1 200 OK\r\n"
		"Content-Type: application/octet-stream\r\n"
		"Content-Length: %jd\r\n"
		COMMON_HEADERS
		"\r\n", (intmax_t)st.st_size);
	if (send_all(fd, hdr, (size_t)n) != 0 || head_only)
		return;
	while (off < st.st_size) {
		size_t want = st.st_size - off < CHUNK ? (size_t)(st.st_size - off) : CHUNK;
		/* pread: the children share one file offset */
		ssize_t r = pread(trace_fd, chunk, want, off);

		if (r < 0 && errno == EINTR)
			continue;
		/* A read error or a file that shrank: the client sees fewer bytes
		 * than Content-Length, which is what it should see. */
		if (r <= 0 || send_all(fd, chunk, (size_t)r) != 0)
			return;
		off += r;
	}
}

static int host_ok(const char *host)
{
	char a[32], b[32];

	snprintf(a, sizeof a, "127.0.0.1:%u", port);
	snprintf(b, sizeof b, "localhost:%u", port);
	return strcmp(host, a) == 0 || strcasecmp(host, b) == 0;
}

static int is_tchar(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

/* One request, one response, then close (Connection: close keeps one
 * connection from holding a child while the browser idles). */
static void handle(int fd)
{
	char buf[HEAD_MAX + 1];
	char *line, *next, *method, *target, *version, *q, *host = NULL;
	int nhost = 0, head_only;
	long len = read_head(fd, buf);

	if (len == 0)
		return;
	if (len < 0) {
		send_error(fd, 431, "Request Header Fields Too Large", 0, NULL);
		return;
	}
	buf[len] = '\0';

	/* request line: METHOD SP TARGET SP HTTP/1.x */
	line = buf;
	next = strchr(line, '\n');
	*next++ = '\0';
	if (next - line >= 2 && next[-2] == '\r')
		next[-2] = '\0';
	method = line;
	target = strchr(method, ' ');
	version = target ? strchr(target + 1, ' ') : NULL;
	if (version == NULL || strchr(version + 1, ' ') != NULL) {
		send_error(fd, 400, "Bad Request", 0, NULL);
		return;
	}
	*target++ = '\0';
	*version++ = '\0';
	head_only = strcmp(method, "HEAD") == 0;
	if (strcmp(version, "HTTP/1.1") != 0 && strcmp(version, "HTTP/1.0") != 0) {
		send_error(fd, strncmp(version, "HTTP/", 5) == 0 ? 505 : 400,
			strncmp(version, "HTTP/", 5) == 0 ? "HTTP Version Not Supported"
			: "Bad Request", head_only, NULL);
		return;
	}

	/* headers: only Host matters, but all must be well formed */
	for (line = next; *line != '\0' && *line != '\r' && *line != '\n'; line = next) {
		char *colon, *v, *e;

		next = strchr(line, '\n');
		*next++ = '\0';
		e = next - 1;
		if (e > line && e[-1] == '\r')
			*--e = '\0';
		for (colon = line; is_tchar((unsigned char)*colon); colon++)
			;
		if (colon == line || *colon != ':') {   /* also obs-fold lines */
			send_error(fd, 400, "Bad Request", head_only, NULL);
			return;
		}
		*colon = '\0';
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (strcasecmp(line, "Host") == 0) {
			host = v;
			nhost++;
		}
	}
	if (nhost != 1) {
		send_error(fd, 400, "Bad Request", head_only, NULL);
		return;
	}
	/* DNS rebinding: a page of evil.example resolved to 127.0.0.1 still
	 * sends its own name. */
	if (!host_ok(host)) {
		send_error(fd, 421, "Misdirected Request", head_only, NULL);
		return;
	}
	if (strcmp(method, "GET") != 0 && !head_only) {
		send_error(fd, 405, "Method Not Allowed", 0, "Allow: GET, HEAD\r\n");
		return;
	}
	/* The path is compared, never decoded or looked up. */
	q = strchr(target, '?');
	len = q ? (long)(q - target) : (long)strlen(target);
	if (same_secret(target, (size_t)len, page_path))
		send_page(fd, head_only);
	else if (same_secret(target, (size_t)len, trace_path))
		send_trace(fd, head_only);
	else
		send_error(fd, 404, "Not Found", head_only, NULL);
}

/* Close gracefully: after our FIN, read what the client still sends (a
 * request body we ignored) for a while, so that closing with unread data
 * does not reset the connection before the client reads the response. */
static void finish(int fd)
{
	char sink[4096];
	long deadline = now_ms() + LINGER_MS;
	size_t total = 0;

	shutdown(fd, SHUT_WR);
	while (total < 65536) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		long left = deadline - now_ms();
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		r = read(fd, sink, sizeof sink);
		if (r <= 0)
			break;
		total += (size_t)r;
	}
	close(fd);
}

static void serve_child(int fd)
{
	struct timeval tv = { SEND_TIMEOUT_S, 0 };
	int fl;

	default_signals();
	close(listen_fd);
	close(wake_rd);
	close(wake_wr);
	/* BSD accept() passes on the listener's O_NONBLOCK; Linux does not */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	handle(fd);
	finish(fd);
	_exit(EXIT_OK);
}

/* ---- the parent ---------------------------------------------------- */

static void accept_one(void)
{
	int fd = accept(listen_fd, NULL, NULL);
	pid_t pid;

	if (fd < 0) {
		/* the client gave up, or a passing shortage: keep serving */
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != ECONNABORTED)
			warn_errno("accept");
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			poll(NULL, 0, 100);
		return;
	}
	pid = fork();
	if (pid < 0) {
		warn_errno("fork");
		close(fd);
		return;
	}
	if (pid == 0)
		serve_child(fd);
	close(fd);
	children[nchildren++] = pid;
}

/* A child has exited: the opener, or one connection less. */
static void forget(pid_t pid, int st)
{
	int i;

	if (pid == opener_pid) {
		opener_pid = -1;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			warnx_tr("%s failed: open the URL yourself", opener_name);
		return;
	}
	for (i = 0; i < nchildren; i++) {
		if (children[i] == pid) {
			children[i] = children[--nchildren];
			return;
		}
	}
}

static void reap(void)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		forget(pid, st);
}

/* Is NAME an executable in PATH?  Checked first so that a missing opener
 * is a clear message, not a failed exec in a child. */
static int in_path(const char *name)
{
	const char *p = getenv("PATH"), *colon;
	char full[4096];

	if (p == NULL)
		p = "/usr/bin:/bin";
	for (;; p = colon + 1) {
		int dl;

		colon = strchr(p, ':');
		dl = colon ? (int)(colon - p) : (int)strlen(p);
		if (dl == 0)
			snprintf(full, sizeof full, "./%s", name);
		else
			snprintf(full, sizeof full, "%.*s/%s", dl, p, name);
		if (access(full, X_OK) == 0)
			return 1;
		if (colon == NULL)
			return 0;
	}
}

/* fork and exec, never a shell: the URL is one argument. */
static void spawn_opener(const char *url)
{
#ifdef __APPLE__
	opener_name = "open";
#else
	opener_name = "xdg-open";
#endif
	if (!in_path(opener_name)) {
		warnx_tr("%s not found in PATH: open the URL yourself", opener_name);
		return;
	}
	opener_pid = fork();
	if (opener_pid < 0) {
		warn_errno("fork");
		return;
	}
	if (opener_pid == 0) {
		int null = open("/dev/null", O_RDWR);

		default_signals();
		signal(SIGPIPE, SIG_DFL);
		/* Our stdout may be a pipe a script reads to the end; a browser
		 * started by the opener must not hold it open. */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		execlp(opener_name, opener_name, url, (char *)NULL);
		warn_errno("%s", opener_name);
		_exit(127);
	}
}

static void stop_children(void)
{
	int i;

	for (i = 0; i < nchildren; i++)
		kill(children[i], SIGTERM);
	/* they die at once: a connection child keeps no signal handler */
	while (nchildren > 0) {
		int st;
		pid_t pid = waitpid(-1, &st, 0);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		forget(pid, st);
	}
}

int main(int argc, char **argv)
{
	enum { OPT_PORT = 256, OPT_UI, OPT_OPEN, OPT_TRACE, OPT_HELP, OPT_VERSION,
	       OPT_PASS, OPT_LAYER, OPT_QUERY, OPT_NO_SETUP, OPT_STREAM_ABOVE,
	       OPT_PRINT_UI_URL };
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "ui", required_argument, NULL, OPT_UI },
		{ "open", no_argument, NULL, OPT_OPEN },
		{ "pass", required_argument, NULL, OPT_PASS },
		{ "layer", required_argument, NULL, OPT_LAYER },
		{ "query", required_argument, NULL, OPT_QUERY },
		{ "no-setup", no_argument, NULL, OPT_NO_SETUP },
		{ "stream-above", required_argument, NULL, OPT_STREAM_ABOVE },
		{ "print-ui-url", no_argument, NULL, OPT_PRINT_UI_URL },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *ui = DEFAULT_UI, *path = NULL, *name, *s;
	int64_t want_port = 0, stream_above = STREAM_ABOVE_DEFAULT;
	uint64_t stream_bytes;
	struct ui_choice choice = { 0, 0, 0, 0, 0, NULL };
	int do_open = 0, print_ui = 0, nreports = 0, ch;
	char url[128], *ui_full;
	struct ui_view view = UI_VIEW_INIT;
	struct serve_facts facts;
	int64_t events = -1;
	off_t size;
	struct opt_program prog = { NULL, ":h", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case OPT_PORT:
			if (opt_i64(&prog, stderr, "--port", optarg, 0, 65535, &want_port) != 0)
				exit(EXIT_TROUBLE);
			break;
		case OPT_UI:
			ui = optarg;
			break;
		case OPT_OPEN:
			do_open = 1;
			break;
		case OPT_PASS:
			if (opt_parse_i64(optarg, 0, INT64_MAX, &choice.pass) != 0)
				exit(opt_bad_value(&prog, stderr, "--pass", optarg,
						   "a pass index, 0 or more"));
			choice.pass_given = 1;
			break;
		case OPT_LAYER:
			if (opt_parse_i64(optarg + (optarg[0] == 'L'), 0, INT64_MAX,
					  &choice.layer) != 0)
				exit(opt_bad_value(&prog, stderr, "--layer", optarg,
						   "a layer, as L3 or 3"));
			choice.layer_given = 1;
			break;
		case OPT_QUERY:
			if (optarg[strspn(optarg, " \t\r\n")] == '\0')
				die(EXIT_TROUBLE, "--query: empty");
			choice.query = optarg;
			break;
		case OPT_NO_SETUP:
			choice.no_setup = 1;
			break;
		case OPT_PRINT_UI_URL:
			print_ui = 1;
			break;
		case OPT_STREAM_ABOVE:
			/* a byte count like every other: K, M or G allowed */
			if (opt_size(&prog, stderr, "--stream-above", optarg, 0, STREAM_ABOVE_MAX,
				     &stream_bytes) != 0)
				exit(EXIT_TROUBLE);
			stream_above = (int64_t)stream_bytes;
			break;
		case OPT_TRACE:
			if (path != NULL)
				exit(opt_usage_error(&prog, stderr, "one trace only"));
			path = optarg;
			break;
		case 'h':
		case OPT_HELP:
			exit(opt_help(&prog, stdout, stderr));
		case OPT_VERSION:
			print_version_and_exit();
		default:
			exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (argc - optind + (path != NULL) != 1)
		exit(opt_usage_error(&prog, stderr, "%s",
			argc - optind + (path != NULL) == 0 ? "no trace given" : "one trace only"));
	if (path == NULL)
		path = argv[optind];
	s = strncasecmp(ui, "https://", 8) == 0 ? ui + 8
	  : strncasecmp(ui, "http://", 7) == 0 ? ui + 7 : NULL;
	if (s == NULL || *s == '\0' || *s == '/' || strlen(ui) > UI_MAX ||
	    strpbrk(ui, " \t\r\n\"'<>\\#") != NULL)
		die(EXIT_TROUBLE, "--ui: invalid URL '%s' (wanted http://HOST... or "
		    "https://HOST...)", ui);
	name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (choice.no_setup && (choice.pass_given || choice.layer_given || choice.query))
		die(EXIT_TROUBLE, "--no-setup: not with --pass, --layer or --query");

	size = open_trace(path);
	ui_full = ui_url(ui, path, &choice, &view, &events, &nreports);
	warn_if_too_big(path, size);
	make_token();
	facts = (struct serve_facts){ name, (uint64_t)size, events, nreports, &view, &choice,
				      ui_full, (uint64_t)stream_above, NULL, 0 };
	if (serve_page_build(&page, &facts) != 0)
		die_nomem();
	install_signals();
	open_listener((unsigned)want_port);

	snprintf(url, sizeof url, "http://127.0.0.1:%u%s", port, page_path);
	/* the address to open, short; the UI's (a thousand characters with
	 * a setup) only when asked for: the page shows it too */
	if (printf("open %s\nCtrl-C to stop\n", url) < 0 ||
	    (print_ui && printf("ui %s\n", ui_full) < 0) || fflush(stdout) != 0)
		die_write("standard output");
	if (do_open)
		spawn_opener(url);

	while (!got_stop) {
		struct pollfd pfd[2] = { { wake_rd, POLLIN, 0 }, { listen_fd, POLLIN, 0 } };
		/* at the limit, leave new connections in the backlog */
		nfds_t nfds = nchildren < MAX_CHILDREN ? 2 : 1;
		char drain[64];

		if (poll(pfd, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			die_errno(EXIT_TROUBLE, "poll");
		}
		if (pfd[0].revents & POLLIN)
			while (read(wake_rd, drain, sizeof drain) > 0)
				;
		reap();
		if (!got_stop && nfds == 2 && (pfd[1].revents & POLLIN))
			accept_one();
	}

	close(listen_fd);
	stop_children();
	close(trace_fd);
	buf_release(&page);
	ui_view_free(&view);
	free(ui_full);
	return EXIT_OK;
}
