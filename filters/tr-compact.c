/* tr-compact: pack each device's GPU activity into at most N synthetic,
 * non-overlapping display lanes (a compact view), moving flows and GPU
 * scopes with it, and record every placement so that the source can be
 * rebuilt exactly.  Kernel names, ts, dur and args.stream never change.
 * See tr-compact(1).
 *
 * Options and glue: the model and its two passes are common/compact/compact.h,
 * flow binding compact_flow.h, the byte edit compact_rewrite.h, the report
 * and summary compact_report.h, the spill compact_spill.h.  Pass one spills
 * the stream and shows every event to the model; lanes are planned between
 * the passes, while a second thread writes the events before the first one
 * the plan may change; pass two replays the rest of the spill, writing each
 * event as the model says. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "compact/compact.h"
#include "compact/compact_report.h"
#include "compact/compact_spill.h"
#include "core/diag.h"
#include "json/event.h"
#include "stream/filter.h"
#include "core/io.h"
#include "json/json.h"
#include "core/opt.h"
#include "core/outfile.h"
#include "core/progress.h"
#include "gz/gz.h"
#include "json/tsnum.h"
#include "stream/trstream.h"

#define MAX_LANES COMPACT_MAX_LANES

static const char usage_text[] =
	"usage: tr-compact [--max-gpu-lanes N] [--pid PID] [--device D]\n"
	"                  [--progress[=PHASE] | -q | --quiet] [--progress-fd FD]\n"
	"Pack each device's GPU activity of a trace-layers stream (tr-stream(5))\n"
	"into at most N synthetic display lanes, reversibly.\n"
	"\n"
	"  --max-gpu-lanes N  lanes per device, 1-10 (default 10)\n"
	"  --pid PID          compact only this GPU pid\n"
	"  --device D         compact only the GPU activity whose args.device is D\n"
	"  --summary FILE     write a short summary for people to FILE (never replaced)\n"
	"  --progress[=PHASE] the progress line of the second pass, which writes the\n"
	"                     stream out (bytes of the spill read back, its size,\n"
	"                     rate, time left), even when standard error is not a\n"
	"                     terminal; PHASE names it (default writing)\n"
	"  -q, --quiet        no progress line, even on a terminal\n"
	"  --progress-fd FD   the progress line on descriptor FD, not standard error\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected or refused, 2 usage or system trouble.\n";

struct state {
	int64_t max_lanes;
	const char *summary_path;
	struct outfile summary;    /* outfile_open_side: path NULL for a /dev/ path */
	const char *only_pid;
	const char *only_device;
	struct compact *c;
	struct compact_spill spill;
	struct buf text;
	struct progress meter;
	int progress_mode;
	const char *phase;
	uint64_t progress_fd;
};

/* A refusal or failure of the model: its message, its exit status. */
static void check(struct compact *c, int rc)
{
	if (rc == COMPACT_NOMEM)
		die_nomem();
	if (rc == COMPACT_SYSTEM)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (rc != COMPACT_OK)
		die(EXIT_INPUT, "%s", compact_message(c));
}

static _Noreturn void spill_failed(const struct compact_spill *s)
{
	if (errno == ENOMEM)
		die_nomem();
	if (errno == EIO)
		die(EXIT_TROUBLE, "temporary file: %s", s->err);
	die_errno(EXIT_TROUBLE, "temporary file");
}

/* The smallest exact ts of any event (floor), for the relative times of a
 * refusal: read back from the spill, since only a refusal needs it. */
static int64_t trace_origin(struct compact_spill *spill)
{
	const char *line, *ts;
	size_t len, tslen;
	int have = 0;
	int64_t origin = 0, ns;
	int sub;

	if (compact_spill_rewind(spill) != 0)
		return 0;
	while (compact_spill_line(spill, &line, &len) == 1)
		if (!stream_is_control(line, len) && event_member(line, len, "ts", &ts, &tslen) &&
		    ts[0] != '"' && tsnum_us_to_ns(ts, tslen, &ns, &sub) == NUM_OK &&
		    (!have || ns < origin)) {
			origin = ns;
			have = 1;
		}
	return origin;
}

/* Pass one: spill the stream, show the model every event. */
static void see_all(struct state *st, struct filter *f)
{
	const char *line;
	size_t len;
	int kind;

	while ((kind = filter_next(f, &line, &len)) > LINE_END) {
		if (kind == LINE_HEAD) {
			struct trstream_head_in head;
			struct jdoc doc = JDOC_INIT;
			char err[100];
			int rc = trstream_head_read(&doc, line, len, &head, err, sizeof err);
			json_free(&doc);
			if (rc != 0)
				die(EXIT_INPUT, "%s", err);
			compact_set_source(st->c, head.source);
			filter_pass(f, line, len);
			continue;
		}
		if (kind == LINE_EVENT)
			check(st->c, compact_see_event(st->c, line, len));
		else if (kind == LINE_CONTROL && stream_is_kind(line, len, "report") &&
			 trstream_report_is(line, len, TRSTREAM_LAYERS_SUFFIX))
			compact_set_layers_report(st->c, 1); /* the compaction report folds into it */
		if (compact_spill_put(&st->spill, line, len + 1) != 0)
			spill_failed(&st->spill);
	}
	if (kind == LINE_ERROR)
		die_stream(f->write_errno, f->in.err, f->in.read_errno);
	if (compact_spill_finish(&st->spill) != 0)
		spill_failed(&st->spill);
	/* the input is read: its buffer goes back before the plan and pass two,
	 * which run side by side */
	stream_in_free(&f->in);
}

/* Pass two's first events, those before the first one the plan may
 * change, written by a thread of their own while the plan is made: how
 * many went out, and the spill's status (-1 with err: a read failed). */
struct ahead_job {
	struct state *st;
	struct filter *f;
	uint64_t first, ahead;
	int rc, err;
};

static void *pass_ahead(void *arg)
{
	struct ahead_job *job = arg;
	const char *line;
	size_t len;

	/* a failed write ends it; filter_close reports it */
	while (job->f->write_errno == 0 && job->ahead < job->first &&
	       (job->rc = compact_spill_line(&job->st->spill, &line, &len)) == 1) {
		if (!stream_is_control(line, len))
			job->ahead++;
		filter_pass(job->f, line, len);
	}
	if (job->rc < 0)
		job->err = errno;
	return NULL;
}

/* Between the passes: the plan.  The events before the first one the plan
 * may change (most of a Kineto trace's CPU events come first) go out
 * meanwhile, so that the stages downstream are not idle; a refusal then
 * comes after them, which the stream's reader sees as a stream cut short,
 * as it sees one cut after the head.  The plan stays in this thread: its
 * memory is the one pass one gave back. */
static void plan(struct state *st, struct filter *f)
{
	struct ahead_job job = { st, f, compact_first_change(st->c), 0, 0, 0 };
	pthread_t thread;
	int rc, threaded;

	if (compact_spill_rewind(&st->spill) != 0)
		spill_failed(&st->spill);
	/* a refusal's message reads the spill again from its start */
	compact_spill_hold(&st->spill, 1);
	threaded = job.first > 0 && job.first != UINT64_MAX &&
		   pthread_create(&thread, NULL, pass_ahead, &job) == 0;
	rc = compact_plan(st->c);
	if (threaded)
		pthread_join(thread, NULL);
	if (rc == COMPACT_LANES)
		rc = compact_lanes_message(st->c, trace_origin(&st->spill));
	check(st->c, rc);
	if (job.rc < 0) {
		errno = job.err;
		spill_failed(&st->spill);
	}
	check(st->c, compact_place_skip(st->c, job.ahead));
	compact_spill_hold(&st->spill, 0);
}

/* Pass two: replay the rest of the spill (what followed the head, checked
 * by pass one's reader), moving and retiring events; the new metadata and
 * the report go before the tail. */
static void replay(struct state *st, struct filter *f)
{
	const char *line, *out;
	size_t len, out_len;
	int rc = 0;

	uint64_t n = 0;

	/* a failed write ends the replay; filter_close reports it */
	while (f->write_errno == 0 && (rc = compact_spill_line(&st->spill, &line, &len)) == 1) {
		if ((++n & 1023) == 0)
			(void)progress_update(&st->meter, st->spill.file_offset);
		if (!stream_is_control(line, len)) {
			check(st->c, compact_place(st->c, line, len, &out, &out_len));
			if (out == line)
				filter_pass(f, line, len);
			else if (out != NULL)
				filter_put(f, out, out_len);
			continue;
		}
		if (stream_is_kind(line, len, "tail")) {
			buf_reset(&st->text);
			check(st->c, compact_report_metadata(st->c, &st->text));
			if (st->text.len > 0)
				filter_put(f, st->text.p, st->text.len - 1);
			check(st->c, compact_report_record(st->c, line, len, &st->text));
			if (st->text.len > TRSTREAM_COMPACT_REPORT_MAX)
				die(EXIT_INPUT, "the compaction report would take %zu bytes, more "
				    "than the " TRSTREAM_COMPACT_REPORT_MAX_TEXT " tr-verify reads of "
				    "it", st->text.len);
			filter_put(f, st->text.p, st->text.len);
		}
		filter_pass(f, line, len);
	}
	if (rc < 0)
		spill_failed(&st->spill);
}

static void write_summary(struct state *st)
{
	check(st->c, compact_report_summary(st->c, &st->text));
	if (io_write_all(st->summary.fd, st->text.p, st->text.len) != 0)
		die_errno(EXIT_TROUBLE, "%s", st->summary_path);
	if (outfile_commit(&st->summary) != 0) {
		if (errno == EEXIST)
			die(EXIT_TROUBLE, "%s: exists; refusing to overwrite it", st->summary_path);
		die_errno(EXIT_TROUBLE, "%s", st->summary_path);
	}
}

/* --summary FILE: a file appears whole, after the stream, or not at all, and
 * never replaces one; a /dev/ path (/dev/stderr, the /dev/fd/N of a
 * script's scratch file) is a descriptor the caller gave, written directly. */
static void open_summary(struct state *st)
{
	const char *path = st->summary_path;

	if (outfile_open_side(&st->summary, path) != 0) {
		if (errno == EEXIST)
			die(EXIT_TROUBLE, "%s: exists; refusing to overwrite it", path);
		die_errno(EXIT_TROUBLE, "%s", path);
	}
}

static void parse_options(int argc, char **argv, struct state *st)
{
	static const struct option longopts[] = {
		{ "max-gpu-lanes", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "summary", required_argument, NULL, 's' },
		{ "progress", optional_argument, NULL, 'P' },
		{ "progress-fd", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct opt_program prog = { NULL, ":hq", longopts, usage_text };
	int ch;

	prog.name = diag_progname();
	st->max_lanes = MAX_LANES;
	st->phase = "writing";
	st->progress_fd = STDERR_FILENO;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'n':
			if (opt_i64(&prog, stderr, "--max-gpu-lanes", optarg, 1, MAX_LANES,
				    &st->max_lanes) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'p': st->only_pid = optarg; break;
		case 'd': st->only_device = optarg; break;
		case 's': st->summary_path = optarg; break;
		case 'P':
			st->progress_mode = PROGRESS_FORCE;
			if (optarg != NULL && *optarg != '\0')
				st->phase = optarg;
			break;
		case 'q': st->progress_mode = PROGRESS_QUIET; break;
		case 'F':
			if (opt_u64(&prog, stderr, "--progress-fd", optarg, 0, 1023,
				    &st->progress_fd) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit(gz_backend());
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
}

int main(int argc, char **argv)
{
	struct state st;
	struct filter f;
	int spill_fd;

	diag_init(argv[0]);
	memset(&st, 0, sizeof st);
	st.text = (struct buf)BUF_INIT;
	parse_options(argc, argv, &st);
	progress_start(&st.meter, st.progress_mode, (int)st.progress_fd, st.phase);
	if ((st.c = compact_new()) == NULL)
		die_nomem();
	compact_set_max_lanes(st.c, st.max_lanes);
	compact_set_pid(st.c, st.only_pid);
	compact_set_device(st.c, st.only_device);
	if (st.summary_path != NULL) {
		diag_on_exit(outfile_abort_all);
		outfile_catch_signals();
		open_summary(&st);
	}
	spill_fd = xopen_spill("tr-compact");
	if (compact_spill_init(&st.spill, spill_fd, COMPACT_SPILL_AUTO) != 0)
		die_nomem();

	if (filter_open(&f) != 0)
		die_nomem();
	see_all(&st, &f);
	{
		struct stat sb;
		progress_phase(&st.meter, st.phase,
			       fstat(spill_fd, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size : 0);
	}
	plan(&st, &f);
	replay(&st, &f);
	(void)progress_end(&st.meter);
	if (filter_close(&f) != 0)
		die_stream(f.write_errno, f.in.err, f.in.read_errno);
	compact_spill_free(&st.spill);
	close(spill_fd);
	if (st.summary_path != NULL)
		write_summary(&st);
	compact_free(st.c);
	buf_release(&st.text);
	return EXIT_OK;
}
