/* tr-survey: evidence for choosing a once-per-layer anchor.  At the end of a
 * pipeline it reads the stream and reports, per GPU pid and device, how each
 * kernel name occurs in time, splits the occurrences of every name that
 * occurs at least N times into passes of N, ranks the candidates, and warns
 * about the traps; without N, the names by their count per ProfilerStep.
 * It never chooses for the user.  See tr-survey(1). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gz/gz.h"
#include "core/buf.h"
#include "core/diag.h"
#include "json/event.h"
#include "core/intern.h"
#include "json/json.h"
#include "core/opt.h"
#include "stream/stream.h"
#include "core/io.h"
#include "json/tsnum.h"
#include "survey/survey.h"
#include "survey/survey_report.h"
#include "window/window.h"
#include "core/writer.h"

static const char usage_text[] =
	"usage: tr-survey [--num-layers N] [--pid PID] [--device D] [--top K] [--json]\n"
	"Read a trace-layers stream (tr-stream(5)) and report, per GPU pid and\n"
	"device, which kernels occur once per layer: counts, passes of N with their\n"
	"time spans, ranked anchor candidates with suggested --anchor-offset and\n"
	"--passes, and warnings.  Without --num-layers, the kernel names by their\n"
	"count per ProfilerStep (or in the whole trace).\n"
	"\n"
	"  --num-layers N  layers per pass in the phase of interest (>= 1)\n"
	"  --pid PID       only this pid\n"
	"  --device D      only kernels whose args.device is D\n"
	"  --top K         candidates (without --num-layers: counts) listed per\n"
	"                  device (default 10)\n"
	"  --json          print a JSON object instead of text\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected, 2 usage or system trouble.\n";

/* An event's interval (half ns) and its bytes, spilled for the pass bytes. */
struct extent {
	int64_t lo, hi;
	uint64_t bytes;
};

struct state {
	int64_t num_layers, top;
	const char *pid, *device;
	int json;
	struct intern keys;    /* group \001 name */
	struct survey_name *names;
	size_t names_cap;
	struct intern groups;  /* pid \001 device */
	struct intern elsewhere; /* pid \001 device of kernels the filters left out */
	uint64_t *elsewhere_n;
	size_t elsewhere_cap;
	struct survey_steps steps;    /* ProfilerStep#N spans */
	int64_t origin_ns;
	int have_origin;
	int training;          /* a backward or optimizer event was seen */
	struct buf origin_text;
	uint64_t events;
	struct jdoc doc;
	struct buf tmp;
	struct survey_ranking *ranks; /* by group */
	struct writer spill;       /* each event's extent */
	struct survey_spans spans; /* the listed candidates' passes */
	struct window_tally tally; /* the bytes of each */
};

static void count_elsewhere(struct state *st, const char *key, size_t len)
{
	int64_t id = intern_id(&st->elsewhere, key, len);

	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->elsewhere_cap) {
		size_t cap = grow_cap(st->elsewhere_cap, 16, sizeof *st->elsewhere_n);
		st->elsewhere_n = xrealloc(st->elsewhere_n, cap * sizeof *st->elsewhere_n);
		memset(st->elsewhere_n + st->elsewhere_cap, 0,
		       (cap - st->elsewhere_cap) * sizeof *st->elsewhere_n);
		st->elsewhere_cap = cap;
	}
	st->elsewhere_n[id]++;
}

static void see_kernel(struct state *st, const char *line, size_t len)
{
	struct jdoc *d = &st->doc;
	int cat, name, args, dev, ts, tid, dur;
	size_t n, pn, dn = 4, tn = 0;
	const char *p, *pid, *dtext = "null", *ttext = NULL;
	int64_t ts_ns, dur_ns = 0, gid, id;
	int sub;
	struct survey_name *s;

	if (json_parse(d, line, len, NULL) != 0 || !json_str_eq(d, json_find(d, 0, "ph"), "X"))
		return;
	cat = json_find(d, 0, "cat");
	if (json_type(d, cat) != JT_STRING)
		return;
	p = json_text(d, cat, &n);
	if (!event_category_has(p, n, "kernel") && !event_category_has(p, n, "Kernel"))
		return;
	name = json_find(d, 0, "name");
	ts = json_find(d, 0, "ts");
	tid = json_find(d, 0, "tid");
	if (json_find(d, 0, "pid") < 0 || json_type(d, name) != JT_STRING ||
	    json_type(d, ts) != JT_PRIMITIVE)
		return;
	p = json_text(d, ts, &n);
	if (tsnum_us_to_ns(p, n, &ts_ns, &sub) != NUM_OK)
		return;
	dur = json_find(d, 0, "dur");
	if (json_type(d, dur) == JT_PRIMITIVE) {
		p = json_text(d, dur, &n);
		if (tsnum_us_to_ns(p, n, &dur_ns, &sub) != NUM_OK || dur_ns < 0)
			dur_ns = 0;
	}
	pid = json_raw(d, json_find(d, 0, "pid"), &pn);
	args = json_find(d, 0, "args");
	dev = json_type(d, args) == JT_OBJECT ? json_find(d, args, "device") : -1;
	if (dev >= 0)
		dtext = json_raw(d, dev, &dn);

	buf_reset(&st->tmp);
	if (buf_add(&st->tmp, pid, pn) != 0 || buf_addch(&st->tmp, '\001') != 0 ||
	    buf_add(&st->tmp, dtext, dn) != 0)
		die_nomem();
	if ((st->pid && !event_raw_matches_arg(pid, pn, st->pid)) ||
	    (st->device && !event_raw_matches_arg(dtext, dn, st->device))) {
		count_elsewhere(st, st->tmp.p, st->tmp.len);
		return;
	}
	gid = intern_id(&st->groups, st->tmp.p, st->tmp.len);
	if (gid < 0 || buf_addch(&st->tmp, '\001') != 0 || json_token_unescape(d, name, &st->tmp) != 0)
		die_nomem();
	id = intern_id(&st->keys, st->tmp.p, st->tmp.len);
	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->names_cap) {
		size_t cap = grow_cap(st->names_cap, 256, sizeof *st->names);
		st->names = xrealloc(st->names, cap * sizeof *st->names);
		memset(st->names + st->names_cap, 0, (cap - st->names_cap) * sizeof *st->names);
		st->names_cap = cap;
	}
	s = &st->names[id];
	if (s->name == NULL) {
		const char *nm = memchr(st->tmp.p, '\001', st->tmp.len);
		nm = memchr(nm + 1, '\001', st->tmp.len - (size_t)(nm + 1 - st->tmp.p));
		if (survey_name_init(s, (uint32_t)gid, nm + 1,
				     st->tmp.len - (size_t)(nm + 1 - st->tmp.p)) != 0)
			die_nomem();
	}
	if (tid >= 0)
		ttext = json_raw(d, tid, &tn);
	if (survey_name_add(s, ts_ns, dur_ns, ttext, tn) != 0)
		die_nomem();
}

/* Every timed event but metadata: its interval as tr-window(1) counts it
 * (dur for a complete event only) and its bytes, for the pass bytes. */
static void spill_extent(struct state *st, struct member ph, struct member ts,
			 struct member dur, size_t len)
{
	enum window_cat c = window_category(ph.p, ph.len);
	int complete = c == WCAT_COMPLETE;
	struct extent e;
	int rc = window_interval(ts.p, ts.len, complete ? dur.p : NULL, dur.len, &e.lo, &e.hi);

	/* the spans and gaps are differences of times: each within the range */
	if (rc == WINDOW_RANGE)
		die(EXIT_INPUT, "stdin: event %" PRIu64 ": ts %.*s%s%.*s lies beyond +/-"
		    TSNUM_MAX_US_TEXT " us (2^62 ns), the time range of trace-layers", st->events,
		    ts.len > 40 ? 40 : (int)ts.len, ts.p, complete && dur.len ? ", dur " : "",
		    complete && dur.len ? (dur.len > 40 ? 40 : (int)dur.len) : 0,
		    complete && dur.len ? dur.p : "");
	if (c == WCAT_METADATA || rc != 0)
		return;
	e.bytes = len + 1;
	if (writer_put(&st->spill, &e, sizeof e) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
}

/* Every event: the trace origin (the earliest ts, as tr-guides counts its
 * relative times) and the ProfilerStep#N spans; kernels go to see_kernel. */
static void see_event(struct state *st, const char *line, size_t len)
{
	static const char *const keys[] = { "ts", "ph", "name", "dur" };
	struct member m[4];
	int64_t ns;
	int sub;

	event_members(line, len, keys, 4, m);
	spill_extent(st, m[1], m[0], m[3], len);
	/* training: autograd's backward ops and kernels, the optimizer's step */
	if (!st->training && survey_training_name(&m[2]))
		st->training = 1;
	st->events++;
	if (m[0].len > 0 && m[0].p[0] != '"' &&
	    !(st->have_origin && tsnum_text_not_below(m[0].p, m[0].len, st->origin_text.p,
						    st->origin_text.len)) &&
	    tsnum_us_to_ns(m[0].p, m[0].len, &ns, &sub) == NUM_OK &&
	    (!st->have_origin || ns < st->origin_ns)) {
		st->origin_ns = ns;
		st->have_origin = 1;
		buf_reset(&st->origin_text);
		if (buf_add(&st->origin_text, m[0].p, m[0].len) != 0)
			die_nomem();
	}
	if (survey_steps_see(&st->steps, m) != 0)
		die_nomem();
	if (event_find_bytes(line, len, "ernel", 5) != NULL)
		see_kernel(st, line, len);
}

/* The bytes of the events that overlap each pass of the listed
 * candidates, from the spilled extents. */
static void tally_passes(struct state *st, int fd)
{
	static struct extent v[4096];
	size_t i;
	long got;

	for (i = 0; i < st->groups.n; i++)
		if (survey_spans_add(&st->spans, &st->ranks[i], (size_t)st->num_layers) != 0)
			die_nomem();
	if (window_tally_init(&st->tally, st->spans.lo, st->spans.hi, st->spans.n) != 0)
		die_nomem();
	if (writer_flush(&st->spill) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	while ((got = io_read_some(fd, v, sizeof v)) > 0) {
		if (got % (long)sizeof v[0] != 0)
			die(EXIT_TROUBLE, "temporary file: short read");
		for (i = 0; i < (size_t)got / sizeof v[0]; i++)
			window_tally_add(&st->tally, v[i].lo, v[i].hi, v[i].bytes);
	}
	if (got < 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	window_tally_sum(&st->tally);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "num-layers", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "top", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct state st;
	struct stream_in in;
	struct buf out = BUF_INIT;
	const char *line;
	size_t len, i, *first, *next, m, cap = 0;
	struct survey_name **members;
	struct survey_report report;
	struct survey_elsewhere elsewhere;
	int ch, kind, spill_fd;
	uint32_t g;
	struct opt_program prog = { NULL, ":h", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	memset(&st, 0, sizeof st);
	st.top = 10;
	st.tmp = (struct buf)BUF_INIT;
	st.origin_text = (struct buf)BUF_INIT;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'n':
			if (opt_i64(&prog, stderr, "--num-layers", optarg, 1, 1000000, &st.num_layers) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'p': st.pid = optarg; break;
		case 'd': st.device = optarg; break;
		case 't':
			if (opt_i64(&prog, stderr, "--top", optarg, 1, 1000, &st.top) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'j': st.json = 1; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit(gz_backend());
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));

	spill_fd = xopen_spill("tr-survey");
	if (stream_in_init(&in, 0, STREAM_DEFAULT_MAX_LINE) != 0 ||
	    writer_init(&st.spill, spill_fd) != 0)
		die_nomem();
	while ((kind = stream_next(&in, &line, &len)) != LINE_END) {
		if (kind == LINE_ERROR)
			die_stream(0, in.err, in.read_errno);
		if (kind == LINE_EVENT)
			see_event(&st, line, len);
	}
	survey_steps_sort(&st.steps);
	for (i = 0; i < st.keys.n; i++)
		if (survey_analyse(&st.names[i], (size_t)st.num_layers) != 0)
			die_nomem();
	/* the names of each group, in id order, in one pass (a list per group) */
	first = xmalloc((st.groups.n + 1) * sizeof *first);
	next = xmalloc((st.keys.n + 1) * sizeof *next);
	for (g = 0; g < st.groups.n; g++)
		first[g] = SIZE_MAX;
	for (i = st.keys.n; i-- > 0;) {
		next[i] = first[st.names[i].group];
		first[st.names[i].group] = i;
	}
	report = (struct survey_report){ .N = (size_t)st.num_layers, .top_k = (size_t)st.top,
					 .json = st.json, .steps = st.steps.v, .nsteps = st.steps.n,
					 .have_origin = st.have_origin, .origin_ns = st.origin_ns,
					 .tally = &st.tally, .training = st.training };
	if (survey_report_head(&report, &out) != 0)
		die_nomem();
	members = NULL;
	if (st.num_layers == 0) {
		/* without --num-layers: the counts per step, no ranking */
		for (g = 0; g < st.groups.n; g++) {
			if ((m = survey_group_members(st.names, first[g], next, &members, &cap)) == SIZE_MAX)
				die_nomem();
			if (survey_report_counts(&report, st.groups.keys[g], members, m, g == 0,
						 &out) != 0)
				die_nomem();
			if (fwrite(out.p, 1, out.len, stdout) != out.len)
				die_write("standard output");
			buf_reset(&out);
		}
		goto tail;
	}
	st.ranks = xmalloc((st.groups.n + 1) * sizeof *st.ranks);
	for (g = 0; g < st.groups.n; g++) {
		if ((m = survey_group_members(st.names, first[g], next, &members, &cap)) == SIZE_MAX)
			die_nomem();
		if (survey_rank(&st.ranks[g], members, m, (size_t)st.num_layers, (size_t)st.top) != 0)
			die_nomem();
		if (survey_rank_start(&st.ranks[g], (size_t)st.num_layers, st.steps.v, st.steps.n) != 0)
			die_nomem();
	}
	tally_passes(&st, spill_fd);
	for (g = 0; g < st.groups.n; g++) {
		if (survey_report_group(&report, st.groups.keys[g], &st.ranks[g], g == 0, &out) != 0)
			die_nomem();
		/* one group at a time: the report is not kept whole */
		if (fwrite(out.p, 1, out.len, stdout) != out.len)
			die_write("standard output");
		buf_reset(&out);
	}
tail:
	elsewhere = (struct survey_elsewhere){ st.elsewhere.keys, st.elsewhere_n, st.elsewhere.n,
					       st.pid, st.device };
	if (survey_report_tail(&report, st.groups.n, &elsewhere, &out) != 0)
		die_nomem();
	if (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
		die_write("standard output");

	for (i = 0; i < st.keys.n; i++)
		survey_name_free(&st.names[i]);
	for (g = 0; g < st.groups.n && st.ranks; g++)
		survey_ranking_free(&st.ranks[g]);
	free(st.ranks);
	survey_spans_free(&st.spans);
	window_tally_free(&st.tally);
	writer_free(&st.spill);
	close(spill_fd);
	free(members);
	free(first);
	free(next);
	free(st.names);
	survey_steps_free(&st.steps);
	free(st.elsewhere_n);
	intern_free(&st.keys);
	intern_free(&st.groups);
	intern_free(&st.elsewhere);
	json_free(&st.doc);
	buf_release(&st.tmp);
	buf_release(&st.origin_text);
	buf_release(&out);
	stream_in_free(&in);
	return EXIT_OK;
}
