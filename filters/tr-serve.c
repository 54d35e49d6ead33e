/* tr-serve: serve one trace file and a viewer page on 127.0.0.1, so that a
 * browser can hand the trace to the Perfetto UI through postMessage (the UI
 * cannot fetch from a local HTTP server without CORS and HTTPS, but it accepts
 * a buffer posted by the window that opened it).  See tr-serve(1).
 *
 * Options and glue: the page is common/serve/serve_page's, the HTTP server (on
 * GNU libmicrohttpd: loopback only, a random token in every path, the Host
 * header checked, the library's limits) common/serve/serve's. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gz/gz.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/opt.h"
#include "serve/serve.h"
#include "serve/serve_page.h"
#include "serve/ui.h"

#define DEFAULT_UI "https://ui.perfetto.dev"
#define UI_MAX 2048              /* longer --ui URLs are refused */
#define STREAM_ABOVE_DEFAULT (256LL * 1024 * 1024)
/* beyond any file: the page's JavaScript compares it exactly (2^53 > 1024G) */
#define STREAM_ABOVE_MAX ((uint64_t)1024 * 1024 * 1024 * 1024)
#define BROWSER_JSON_LIMIT 1000000000LL   /* browsers fail to import about this much */
#define PROTO_LIMIT 2147483648LL          /* and this much of Perfetto protobuf */

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
static pid_t opener_pid = -1, tp_pid = -1;
static const char *opener_name, *tp_name;

/* The URL the page opens: the UI with its hash route and parameters. */
static char *ui_url(const char *ui, const char *path, const struct ui_choice *choice,
	struct ui_view *vp, int64_t *events, int *nread)
{
	struct ui_view v = UI_VIEW_INIT;
	struct buf params = BUF_INIT, why = BUF_INIT, url = BUF_INIT;
	const char *host = strstr(ui, "://") + 3;
	int rc;

	if (!choice->no_setup) {
		rc = serve_read_reports(path, &v, events, nread, &why);
		if (rc == SERVE_NOMEM)
			die_nomem();
		if (rc != SERVE_OK)
			die(rc == SERVE_INPUT ? EXIT_INPUT : EXIT_TROUBLE, "%s", why.p);
	}
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

/* Too large for the UI in a browser (it parses the trace in WebAssembly
 * memory): JSON text of about 1 GB and more, a Perfetto protobuf trace of
 * about 2 GB.  Say so, give the command that cuts pass 0 out of a JSON
 * trace (tr-window(1)), and explain the way Perfetto documents for large
 * traces, its trace processor as a native accelerator of the UI: run it
 * when it is in PATH.  The page's explanation goes to *large. */
static void check_size(const char *path, off_t size, struct buf *large)
{
	long long text = (long long)serve_text_size(trace_fd, (uint64_t)size);
	size_t n = strlen(path);
	int proto = (n > 8 && strcmp(path + n - 8, ".pftrace") == 0) ||
		    (n > 11 && strcmp(path + n - 11, ".pftrace.gz") == 0);
	struct buf cmd = BUF_INIT;
	int fail = 0;

	if (text <= (proto ? PROTO_LIMIT : BROWSER_JSON_LIMIT))
		return;
	tp_name = serve_in_path("trace_processor_shell") ? "trace_processor_shell"
		: serve_in_path("trace_processor") ? "trace_processor" : NULL;
	if (!proto) {
		if (serve_window_command(&cmd, path) != 0)
			die_nomem();
		warnx_tr("warning: %s holds about %lld bytes of JSON; browsers fail to import "
			 "JSON traces of about 1 GB and more. Cut a window (pass 0) with:\n  %s",
			 path, text, cmd.p);
	} else {
		warnx_tr("warning: %s holds about %lld bytes of Perfetto protobuf; the Perfetto "
			 "UI in a browser fails to load traces of about 2 GB and more", path, text);
	}
	fail |= buf_printf(large, "This trace holds about %lld bytes of %s: the Perfetto UI "
			   "in a browser fails to load %s of about %s and more.  ", text,
			   proto ? "Perfetto protobuf" : "JSON", proto ? "traces" : "JSON traces",
			   proto ? "2 GB" : "1 GB");
	if (tp_name != NULL) {
		char *argv[] = { (char *)tp_name, (char *)"--httpd", (char *)path, NULL };

		tp_pid = serve_spawn(argv);
		if (tp_pid < 0)
			die_errno(EXIT_TROUBLE, "fork");
		warnx_tr("running %s --httpd %s: it loads the trace natively and serves it on "
			 "127.0.0.1:9001, where the Perfetto UI finds it: open the UI (the page's "
			 "button) and answer its dialog with YES, use loaded trace", tp_name, path);
		fail |= buf_printf(large, "%s --httpd runs beside this server with the trace "
				   "loaded: the button opens the Perfetto UI, which finds it on "
				   "127.0.0.1:9001; answer its dialog with YES, use loaded trace.",
				   tp_name);
	} else {
		warnx_tr("for traces this large, Perfetto runs its trace processor natively "
			 "beside the UI (https://perfetto.dev/docs/visualization/large-traces):\n"
			 "  trace_processor_shell --httpd %s\nthen open https://ui.perfetto.dev, "
			 "which finds it on 127.0.0.1:9001 and offers to use it; trace_processor_shell "
			 "is not in PATH (get it with: curl -LO https://get.perfetto.dev/trace_processor)",
			 path);
		fail |= buf_addstr(large, "Perfetto's way for large traces: run "
				   "trace_processor_shell --httpd with this file on this machine, then "
				   "open https://ui.perfetto.dev, which finds it on 127.0.0.1:9001 and "
				   "offers to use it (https://perfetto.dev/docs/visualization/"
				   "large-traces).  tr-serve runs it itself when it is in PATH.");
	}
	if (fail)
		die_nomem();
	buf_release(&cmd);
}

/* The trace is opened once, here; requests never name a file. */
static off_t open_trace(const char *path)
{
	uint64_t size;
	int rc = serve_open_trace(path, &trace_fd, &size);

	if (rc == -2)
		die(EXIT_TROUBLE, "%s: not a regular file", path);
	if (rc != 0)
		die_errno(EXIT_TROUBLE, "%s", path);
	if (size == 0)
		die(EXIT_INPUT, "%s: empty file (Perfetto refuses an empty trace)", path);
	return (off_t)size;
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
		} else if (pid == tp_pid) {
			tp_pid = -1;
			warnx_tr("%s --httpd has ended (%s %d): the UI cannot use it", tp_name,
				 WIFEXITED(st) ? "exit status" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
	}
}

/* never a shell: the URL is one argument. */
static void spawn_opener(const char *url)
{
#ifdef __APPLE__
	opener_name = "open";
#else
	opener_name = "xdg-open";
#endif
	char *argv[] = { (char *)opener_name, (char *)url, NULL };

	if (!serve_in_path(opener_name)) {
		warnx_tr("%s not found in PATH: open the URL yourself", opener_name);
		return;
	}
	opener_pid = serve_spawn(argv);
	if (opener_pid < 0)
		warn_errno("fork");
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
	struct buf large = BUF_INIT;
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
			print_version_and_exit(gz_backend());
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
	if (serve_token(token) != 0)
		die_errno(EXIT_TROUBLE, "/dev/urandom");
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
	check_size(path, size, &large);
	facts = (struct serve_facts){ name, (uint64_t)size, events, nreports, &view, &choice,
				      ui_full, (uint64_t)stream_above,
				      large.len ? large.p : NULL, tp_pid > 0 };
	if (serve_page_build(&page, &facts) != 0)
		die_nomem();
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
	if (tp_pid > 0) {
		kill(tp_pid, SIGTERM);
		waitpid(tp_pid, NULL, 0);
	}
	close(trace_fd);
	buf_release(&large);
	buf_release(&page);
	ui_view_free(&view);
	free(ui_full);
	return EXIT_OK;
}
