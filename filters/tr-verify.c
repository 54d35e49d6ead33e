/* tr-verify: prove that an output of the trace-layers tools rebuilds its
 * source exactly and that Perfetto will import every guide and lane flat.
 * Both traces are decoded by threads of their own and compared in lock-step by
 * common/verify/verify.c (the placement check: verifysel.c; the landmark check:
 * verifylm.c; the results: verifycheck.c).  See tr-verify(1). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gz/gz.h"
#include "core/blockq.h"
#include "core/buf.h"
#include "stream/decode_file.h"
#include "core/diag.h"
#include "core/io.h"
#include "gz/encsink.h"
#include "json/json.h"
#include "core/opt.h"
#include "core/progress.h"
#include "core/reader.h"
#include "perfetto/pfread.h"
#include "stream/stream.h"
#include "stream/trstream.h"
#include "verify/verify.h"
#include "verify/verifycheck.h"
#include "verify/verifylm.h"
#include "core/writer.h"

#define DEFAULT_MAX_EVENT ((uint64_t)64 << 20)
/* as tr-decode: json.c's token offsets are ints */
#define LIMIT_MAX_EVENT ((uint64_t)1 << 30)
enum { EXIT_NOT_VERIFIED = 1, EXIT_CANNOT_RUN = 2 };

static const char usage_text[] =
	"usage: tr-verify --source SRC --output OUT [--report R]... [--json]\n"
	"                 [--max-event-bytes N] [--max-member-bytes N] [--window]\n"
	"                 [--progress[=PHASE] | -q | --quiet] [--progress-fd FD]\n"
	"                 [--format FMT]\n"
	"Verify that OUT (written by tr-layer-track, tr-compact-track or a tr-*\n"
	"pipeline) rebuilds SRC exactly, has every guide at the anchor its report\n"
	"names, and imports flat in Perfetto.  An OUT ending in .pftrace or\n"
	".pftrace.gz (tr-encode --format perfetto) is compared event by event with\n"
	"SRC, the trace or stream (tr-stream(5); - for standard input) it was\n"
	"encoded from.\n"
	"\n"
	"  --source SRC   the original trace\n"
	"  --output OUT   the trace to verify\n"
	"  --report R     a report to use (default: OUT.layers.json and\n"
	"                 OUT.compact.json where they exist)\n"
	"  --json         print the result as a JSON object\n"
	"  --window       OUT is a window of SRC cut by tr-window(1), with its report\n"
	"                 OUT.window.json (automatic when that file exists)\n"
	"  --format FMT   OUT's format: json or perfetto (default: by its name)\n"
	"  --max-event-bytes N\n"
	"                 refuse (exit 2) an event or top-level member of either\n"
	"                 trace larger than N bytes (suffix K, M or G; default\n"
	"                 64M, at most 1G), as tr-decode(1)\n"
	"  --max-member-bytes N\n"
	"                 the bound on the top-level members before, and after,\n"
	"                 traceEvents of either trace (default 64M), as tr-decode(1)\n"
	"  --progress[=PHASE]\n"
	"                 the progress line (bytes of SRC read, its size, rate, time\n"
	"                 left) even when standard error is not a terminal; PHASE\n"
	"                 names it (default verifying)\n"
	"  -q, --quiet    no progress line, even on a terminal\n"
	"  --progress-fd FD  the progress line on descriptor FD, not standard error\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 verified, 1 not verified, 2 could not run.\n";

/* ---- the decoders ------------------------------------------------------ */

/* Each trace is decoded in a thread of its own into a queue of blocks
 * (blockq.h) that this thread reads like any stage's input: no pipe, so
 * neither write(2) nor read(2) copies the stream in the kernel, and no
 * copy in memory either: the decoder scans the events into the blocks
 * (writer_init_blocks) and this thread reads the lines where they lie
 * (reader_use_blockq).  A decoder that fails says why, as tr-decode
 * would, and ends its stream early. */
static size_t max_members = DECODE_DEFAULT_MAX_MEMBERS;  /* --max-member-bytes */

struct input {
	struct stream_in in;
	struct blockq q;
	pthread_t thread;
	const char *path;
	size_t max_event;
	struct progress *meter;  /* told the bytes read (the source's), or NULL */
	int failed;          /* set by the decoder thread before it closes q */
};

/* The progress line follows the source's decoder: the source is the trace
 * whose size the user knows and which is read to its end. */
static struct progress meter;

/* The decoders running now.  A failure elsewhere ends the process by
 * die(), whose exit(3) tears down what a decoder still uses (libcrypto's
 * state, stdio): die's cleanup hook stops and joins them first. */
static struct input *running[2];

static void stop_decoders(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (running[i] != NULL) {
			blockq_cancel(&running[i]->q);
			pthread_join(running[i]->thread, NULL);
			running[i] = NULL;
		}
}

static void *decoder_main(void *arg)
{
	struct input *x = arg;
	struct decode_file_result result;

	decode_file_to_queue(x->path, &x->q, x->max_event, max_members, "tr-verify", &result,
			     x->meter);
	if (result.status != DECODE_OK && x->meter != NULL)
		(void)progress_end(x->meter);  /* the message on a clean line */
	if (result.status == DECODE_OPEN)
		warn_errno("%s", x->path);
	if (result.status == DECODE_INPUT || result.status == DECODE_READ)
		warnx_tr("%s: %s", x->path, result.msg);
	x->failed = result.status != DECODE_OK;
	blockq_close(&x->q);
	return NULL;
}

static void start_decoder(struct input *x, const char *path, size_t max_event,
			  struct progress *pm)
{
	int rc;

	x->path = path;
	x->max_event = max_event;
	x->meter = pm;
	x->failed = 0;
	if (blockq_init(&x->q, IO_WRITE_BLOCK) != 0 ||
	    stream_in_init(&x->in, -1, STREAM_DEFAULT_MAX_LINE) != 0)
		die_nomem();
	reader_use_blockq(&x->in.r, &x->q);
	if ((rc = pthread_create(&x->thread, NULL, decoder_main, x)) != 0) {
		errno = rc;
		die_errno(EXIT_CANNOT_RUN, "a decoder thread");
	}
	running[running[0] != NULL] = x;
}

static void spawn_inputs(struct input *src, const char *src_path, struct input *out,
			 const char *out_path, size_t max_event)
{
	start_decoder(src, src_path, max_event, &meter);
	if (out != NULL)
		start_decoder(out, out_path, max_event, NULL);
}

/* 0 when the decoder read its whole trace.  A decoder still running (the
 * stream was not read to its end) is stopped: its next put fails. */
static int finish(struct input *x)
{
	int i;

	blockq_cancel(&x->q);
	pthread_join(x->thread, NULL);
	for (i = 0; i < 2; i++)
		if (running[i] == x)
			running[i] = NULL;
	stream_in_free(&x->in);
	blockq_free(&x->q);
	return x->failed ? -1 : 0;
}

static void finish_both(struct input *src, struct input *out)
{
	if (finish(src) != 0 || (out != NULL && finish(out) != 0))
		die(EXIT_CANNOT_RUN, "a decoder failed");
}

/* A check that could not run: its message, exit 2. */
static void check_ran(const struct verifycheck *vc, int rc)
{
	if (rc >= 0 && vc->error == VERIFYCHECK_RUNNING)
		return;
	if (vc->error == VERIFYCHECK_NOMEM)
		die_nomem();
	die(EXIT_CANNOT_RUN, "%s", vc->err);
}

/* The second landmark (tr-select-anchors --confirm-regex), recounted from
 * a fresh decode of the source. */
static void check_landmark(struct verifycheck *vc, const char *src_path, size_t max_event,
			   const char *const *reports, int nreports)
{
	struct verifylm lm;
	struct input src;
	int rc;

	verifylm_init(&lm, vc);
	check_ran(vc, rc = verifylm_load(&lm, reports, nreports));
	if (rc == 1) {
		spawn_inputs(&src, src_path, NULL, NULL, max_event);
		check_ran(vc, verifylm_source(&lm, &src.in, src_path));
		finish_both(&src, NULL);
		check_ran(vc, verifylm_finish(&lm));
	}
	verifylm_free(&lm);
}

/* OUT is a window of SRC cut by tr-window(1), described by WINDOW_PATH. */
static void check_window(struct verify *v, const char *window_path, size_t max_event)
{
	struct input src, out;

	check_ran(v->vc, verify_window_load(v, window_path));
	spawn_inputs(&src, v->src_path, &out, v->out_path, max_event);
	check_ran(v->vc, verify_window_events(v, &src.in, &out.in));
	finish_both(&src, &out);
	verify_window_finish(v);
	check_ran(v->vc, 0);  /* a temporary file of the depth check failed */
}

/* OUT is a Perfetto trace (pfread.h): compared event by event with SRC, a
 * trace or the stream it was encoded from. */
static void verify_pftrace(const char *src_path, const char *out_path, size_t max_event)
{
	struct pfread r;
	struct input src;
	struct stream_in sin;
	struct buf b = BUF_INIT;
	int rc, stream;

	if (pfread_open(&r, out_path) != PFREAD_OK)
		die_errno(EXIT_CANNOT_RUN, "%s", out_path);
	if ((stream = pfread_stream_source(src_path, &sin)) < 0)
		die_nomem();
	if (!stream)
		spawn_inputs(&src, src_path, NULL, NULL, max_event);
	rc = pfread_run(&r, stream ? &sin : &src.in, src_path, &b);
	/* the decoder's own failure first, when it has one */
	if (!stream && (rc == PFREAD_OK || rc == PFREAD_INPUT))
		finish_both(&src, NULL);
	if (rc == PFREAD_NOMEM)
		die_nomem();
	if (rc != PFREAD_OK)
		die(rc == PFREAD_DIFF ? EXIT_NOT_VERIFIED : EXIT_CANNOT_RUN, "%s", r.msg);
	if (fputs(b.p, stdout) == EOF || fflush(stdout) != 0)
		die_write("standard output");
	buf_release(&b);
	pfread_free(&r);
	if (stream)
		stream_in_free(&sin);
}

static void print_results(const struct verifycheck *vc, int json)
{
	struct buf b = BUF_INIT;

	if ((json ? verifycheck_json(vc, &b) : verifycheck_text(vc, &b)) != 0)
		die_nomem();
	fputs(b.p, stdout);
	buf_release(&b);
	if (fflush(stdout) != 0 || ferror(stdout))
		die_write("standard output");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "report", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "max-event-bytes", required_argument, NULL, 'm' },
		{ "max-member-bytes", required_argument, NULL, 'M' },
		{ "window", no_argument, NULL, 'w' },
		{ "progress", optional_argument, NULL, 'P' },
		{ "progress-fd", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct verify st;
	struct verifycheck vc;
	struct input src, out;
	const char *reports[8];
	int nreports = 0, json = 0, ch, c, failed, window = 0, format = -1;
	struct buf window_path = BUF_INIT, found[2] = { BUF_INIT, BUF_INIT };
	struct stat wsb;
	uint64_t max_event = DEFAULT_MAX_EVENT, progress_fd = STDERR_FILENO;
	const char *phase = "verifying";
	int mode = PROGRESS_AUTO;
	struct opt_program prog = { NULL, ":hq", longopts, usage_text };

	diag_init(argv[0]);
	diag_on_exit(stop_decoders);
	prog.name = diag_progname();
	memset(&st, 0, sizeof st);
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 's': st.src_path = optarg; break;
		case 'o': st.out_path = optarg; break;
		case 'r':
			if (nreports == 8)
				die(EXIT_CANNOT_RUN, "at most 8 --report options");
			reports[nreports++] = optarg;
			break;
		case 'j': json = 1; break;
		case 'w': window = 1; break;
		case 'P':
			mode = PROGRESS_FORCE;
			if (optarg != NULL && *optarg != '\0')
				phase = optarg;
			break;
		case 'q': mode = PROGRESS_QUIET; break;
		case 'F':
			if (opt_u64(&prog, stderr, "--progress-fd", optarg, 0, 1023, &progress_fd) != 0)
				exit(EXIT_CANNOT_RUN);
			break;
		case 'T':
			if (strcmp(optarg, "json") != 0 && strcmp(optarg, "perfetto") != 0)
				exit(opt_bad_value(&prog, stderr, "--format", optarg,
						   "allowed json or perfetto"));
			format = strcmp(optarg, "perfetto") == 0;
			break;
		case 'm':
			if (opt_size(&prog, stderr, "--max-event-bytes", optarg, 1, LIMIT_MAX_EVENT,
				     &max_event) != 0)
				exit(EXIT_CANNOT_RUN);
			break;
		case 'M': {
			uint64_t v;
			if (opt_size(&prog, stderr, "--max-member-bytes", optarg, 1, LIMIT_MAX_EVENT,
				     &v) != 0)
				exit(EXIT_CANNOT_RUN);
			max_members = (size_t)v;
			break;
		}
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit(gz_backend());
		default: exit(opt_fail(&prog, stderr, ch, argv));  /* 2, EXIT_CANNOT_RUN */
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (st.src_path == NULL || st.out_path == NULL)
		exit(opt_usage_error(&prog, stderr, "--source and --output are required"));
	progress_start(&meter, mode, (int)progress_fd, phase);
	if (format == 1 || (format < 0 && encsink_format_of(st.out_path) == ENCSINK_PERFETTO)) {
		if (window || nreports > 0)
			die(EXIT_CANNOT_RUN, "a Perfetto trace is verified against its source "
			    "alone (no --window, no --report)");
		verify_pftrace(st.src_path, st.out_path, (size_t)max_event);
		return EXIT_OK;
	}
	verifycheck_init(&vc);
	verify_init(&st, &vc, st.src_path, st.out_path);
	/* a window: OUT.window.json, given with --window or found beside OUT */
	if (window && nreports > 0)
		die(EXIT_CANNOT_RUN, "--window takes no --report: the window's report is "
		    "OUT.window.json, and the reports beside SRC are read for its guides and lanes");
	buf_printf(&window_path, "%s" TRSTREAM_WINDOW_SUFFIX, st.out_path);
	if (nreports == 0 && (window || stat(window_path.p, &wsb) == 0)) {
		check_window(&st, window_path.p, (size_t)max_event);
	} else {
		if (nreports == 0) {
			static const char *const suffixes[] = { TRSTREAM_LAYERS_SUFFIX,
								TRSTREAM_COMPACT_SUFFIX };
			for (c = 0; c < 2; c++) {
				buf_printf(&found[c], "%s%s", st.out_path, suffixes[c]);
				if (stat(found[c].p, &wsb) == 0)
					reports[nreports++] = found[c].p;
			}
		}
		for (c = 0; c < nreports; c++)
			check_ran(&vc, verify_load_report(&st, reports[c]));
		spawn_inputs(&src, st.src_path, &out, st.out_path, (size_t)max_event);
		check_ran(&vc, verify_events(&st, &src.in, &out.in));
		finish_both(&src, &out);
		check_ran(&vc, verify_finish(&st));
		check_landmark(&vc, st.src_path, (size_t)max_event, reports, nreports);
	}
	(void)progress_end(&meter);
	print_results(&vc, json);
	failed = verifycheck_failures(&vc) != 0;
	verify_free(&st);
	verifycheck_free(&vc);
	buf_release(&window_path);
	buf_release(&found[0]);
	buf_release(&found[1]);
	return failed ? EXIT_NOT_VERIFIED : EXIT_OK;
}
