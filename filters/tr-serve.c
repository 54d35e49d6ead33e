/* tr-serve: serve one trace file and a viewer page on 127.0.0.1, so that a
 * browser can hand the trace to the Perfetto UI through postMessage (the UI
 * cannot fetch from a local HTTP server without CORS and HTTPS, but it accepts
 * a buffer posted by the window that opened it).  See tr-serve(1).
 *
 * Options and glue: the page is common/serve_page's, the HTTP server (on
 * GNU libmicrohttpd: loopback only, a random token in every path, the Host
 * header checked, the library's limits) common/serve's. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "opt.h"
#include "serve.h"
#include "serve_page.h"
#include "ui.h"

#define DEFAULT_UI "https://ui.perfetto.dev"
#define UI_MAX 2048              /* longer --ui URLs are refused */
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

static int trace_fd = -1;
static struct buf page = BUF_INIT;
static pid_t opener_pid = -1;
static const char *opener_name;

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
/* Browsers fail to import JSON traces of about 1 GB and more: say so, and
 * give the command that cuts pass 0 out of the trace (tr-window(1)). */
static void warn_if_too_big(const char *path, off_t size)
{
	long long text = (long long)serve_text_size(trace_fd, (uint64_t)size);
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


/* A child has exited: the opener, or one we do not know. */
static void reap(void)
{
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == opener_pid) {
			opener_pid = -1;
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
				warnx_tr("%s failed: open the URL yourself", opener_name);
		}
	}
}

/* A child runs with the signals as they were before main blocked them. */
static void child_signals(void)
{
	sigset_t none;

	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* fork and exec, never a shell: the URL is one argument. */
static void spawn_opener(const char *url)
{
#ifdef __APPLE__
	opener_name = "open";
#else
	opener_name = "xdg-open";
#endif
	if (!serve_in_path(opener_name)) {
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

		child_signals();
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
	char url[128], *ui_full, token[SERVE_TOKEN_HEX + 1];
	struct serve_conf conf = { -1, 0, NULL, NULL, 0, -1, 0 };
	struct serve *srv;
	const char *what;
	sigset_t sigs;
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
	if (serve_token(token) != 0)
		die_errno(EXIT_TROUBLE, "/dev/urandom");
	facts = (struct serve_facts){ name, (uint64_t)size, events, nreports, &view, &choice,
				      ui_full, (uint64_t)stream_above, NULL, 0 };
	if (serve_page_build(&page, &facts) != 0)
		die_nomem();
	if (serve_listen((unsigned)want_port, &conf.listen_fd, &conf.port, &what) != 0) {
		if (strcmp(what, "bind") == 0)
			die_errno(EXIT_TROUBLE, "127.0.0.1:%u", (unsigned)want_port);
		die_errno(EXIT_TROUBLE, "%s", what);
	}
	/* Blocked here, and so in the server's thread: this one takes them
	 * with sigwait.  A browser tab closed in the middle of a response must
	 * not kill the server: writes then fail with EPIPE instead. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGCHLD);
	signal(SIGPIPE, SIG_IGN);
	if (pthread_sigmask(SIG_BLOCK, &sigs, NULL) != 0)
		die(EXIT_TROUBLE, "pthread_sigmask failed");
	conf.token = token;
	conf.page = page.p;
	conf.page_len = page.len;
	conf.trace_fd = trace_fd;
	conf.trace_size = (uint64_t)size;
	srv = serve_start(&conf);
	if (srv == NULL)
		die(EXIT_TROUBLE, "the HTTP server (libmicrohttpd) did not start");

	snprintf(url, sizeof url, "http://127.0.0.1:%u/%s/", conf.port, token);
	/* the address to open, short; the UI's (a thousand characters with
	 * a setup) only when asked for: the page shows it too */
	if (printf("open %s\nCtrl-C to stop\n", url) < 0 ||
	    (print_ui && printf("ui %s\n", ui_full) < 0) || fflush(stdout) != 0)
		die_write("standard output");
	if (do_open)
		spawn_opener(url);

	for (;;) {
		int sig;

		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig != SIGCHLD)
			break;
		reap();
	}

	serve_stop(srv);
	close(trace_fd);
	buf_release(&page);
	ui_view_free(&view);
	free(ui_full);
	return EXIT_OK;
}
