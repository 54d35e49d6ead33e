/* tr-guides: turn the anchor records of tr-select-anchors into a layer guide
 * track (L0, L1, ... slices from one layer's anchor to the next) appended
 * after the source events, and a report for tr-encode.  See tr-guides(1). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "filter.h"
#include "guides.h"
#include "json.h"
#include "opt.h"
#include "tsnum.h"
#include "trstream.h"

#define GUIDE_SORT_INDEX (-1000)
#define MAX_TID ((int64_t)INT32_MAX)
#define LAYER_ROWS 500  /* guide rows per report record: about 200 KB */

static const char notice[] =
	"Layer guides are anchor-to-anchor navigation aids: each slice runs from one "
	"layer's anchor kernel to the next layer's anchor (or to the terminal kernel's "
	"end, or is a zero-length marker). They are not layer boundaries and do not "
	"assign kernels to layers. ts, dur and *_us values are microseconds; "
	"*_relative_ms values are milliseconds from the earliest event.";

static const char usage_text[] =
	"usage: tr-guides --phase PHASE --evidence TEXT\n"
	"Add a layer guide track, built from the anchor records of\n"
	"tr-select-anchors(1), to a trace-layers stream (tr-stream(5)).\n"
	"\n"
	"  --phase PHASE    the phase the guides label (e.g. prefill, decode)\n"
	"  --evidence TEXT  why L0 is L0 (config, source revision, counts)\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected, 2 usage or system trouble.\n";

/* One guide, computed from its anchor record. */
struct guide {
	size_t pass, layer, anchor_index;
	int64_t start_ns, end_ns;
	int64_t start_us, end_us;        /* rounded guide endpoints */
	char *start_text, *end_text;     /* exact µs text for the report */
	const char *kind;                /* boundary_kind */
	char *anchor_name, *anchor_tid;  /* raw JSON */
	uint64_t source_index;
};

struct anchor_rec {
	size_t i, pass, layer, anchor_index;
	uint64_t source_index;
	int64_t ts_ns, dur_ns;
	char *ts, *name, *tid;
	int has_terminal;
	int64_t term_end_ns;
};

struct state {
	const char *phase, *evidence;
	struct buf summary;          /* the anchors record */
	struct anchor_rec *a;
	size_t n, cap;
	char *source_name;
	uint64_t events;
	struct jdoc doc;
};

static int blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	return 1;
}

static int64_t int_member(const struct jdoc *d, int obj, const char *key, const char *what)
{
	int64_t v;

	if (jdoc_int64(d, jdoc_find(d, obj, key), &v) != 0)
		die(EXIT_INPUT, "malformed %s record: no integer %s", what, key);
	return v;
}

static void read_anchor(struct state *st, const char *line, size_t len)
{
	struct jdoc *d = &st->doc;
	struct anchor_rec *r;
	int anchor, term;

	if (jdoc_parse(d, line, len, NULL) != 0)
		die(EXIT_INPUT, "malformed anchor record");
	if (st->n == st->cap) {
		st->cap = grow_cap(st->cap, 64, sizeof *st->a);
		st->a = xrealloc(st->a, st->cap * sizeof *st->a);
	}
	r = &st->a[st->n++];
	memset(r, 0, sizeof *r);
	r->i = (size_t)int_member(d, 0, "i", "anchor");
	r->pass = (size_t)int_member(d, 0, "pass", "anchor");
	r->layer = (size_t)int_member(d, 0, "layer", "anchor");
	r->anchor_index = (size_t)int_member(d, 0, "anchor_index", "anchor");
	anchor = jdoc_find(d, 0, "anchor");
	if (jdoc_type(d, anchor) != JT_OBJECT)
		die(EXIT_INPUT, "malformed anchor record: no anchor object");
	r->source_index = (uint64_t)int_member(d, anchor, "source_index", "anchor");
	r->ts_ns = int_member(d, anchor, "ts_ns", "anchor");
	r->dur_ns = int_member(d, anchor, "dur_ns", "anchor");
	r->ts = raw_copy(d, jdoc_find(d, anchor, "ts"));
	r->name = raw_copy(d, jdoc_find(d, anchor, "name"));
	r->tid = raw_copy(d, jdoc_find(d, anchor, "tid"));
	if (r->ts == NULL || r->name == NULL || r->tid == NULL)
		die(EXIT_INPUT, "malformed anchor record: ts, name and tid are needed");
	term = jdoc_find(d, 0, "terminal");
	if (jdoc_type(d, term) == JT_OBJECT) {
		r->has_terminal = 1;
		r->term_end_ns = int_member(d, term, "ts_ns", "anchor") +
				 int_member(d, term, "dur_ns", "anchor");
	}
	if (r->i != st->n - 1)
		die(EXIT_INPUT, "anchor records out of order (record %zu is number %zu)",
		    st->n - 1, r->i);
}

/* The guide's args and the report's layer row share these members. */
static void put_row(struct buf *b, const struct guide *g, int64_t origin_ns)
{
	buf_printf(b, "\"pass_index\":%zu,\"layer_id\":%zu,\"anchor_index\":%zu,"
		   "\"anchor_name\":%s,\"anchor_tid\":%s,\"start_us\":%s,\"end_us\":%s,"
		   "\"guide_start_us\":%" PRId64 ",\"guide_end_us\":%" PRId64
		   ",\"start_relative_ms\":", g->pass, g->layer, g->anchor_index,
		   g->anchor_name, g->anchor_tid, g->start_text, g->end_text,
		   g->start_us, g->end_us);
	num_append_ms6(b, g->start_ns - origin_ns);
	buf_addstr(b, ",\"end_relative_ms\":");
	num_append_ms6(b, g->end_ns - origin_ns);
	buf_printf(b, ",\"boundary_kind\":\"%s\"", g->kind);
}

static void put_quoted(struct buf *b, const char *s)
{
	json_escape(b, s, strlen(s));
}

/* The summary's members needed here. */
struct summary {
	struct jdoc d;
	int64_t num_layers, first_layer, passes, origin_ns;
	char *pid;
	int64_t guide_tid;
};

static int64_t choose_tid(const struct jdoc *d, int used, const char *pid)
{
	int64_t pid_value = -1, candidate;
	int n = jdoc_size(d, used), k, tok;

	(void)jdoc_int64(d, jdoc_find(d, 0, "pid"), &pid_value);
	(void)pid;
	/* the smallest free positive tid sorts first in UIs older than
	 * Perfetto v53, which ignore thread_sort_index */
	for (candidate = 1; candidate <= MAX_TID; candidate++) {
		int taken = candidate == pid_value;
		for (k = 0, tok = used + 1; k < n && !taken; k++, tok = jdoc_next(d, tok)) {
			int64_t v;
			if (jdoc_int64(d, tok, &v) == 0 && v == candidate)
				taken = 1;
		}
		if (!taken)
			return candidate;
	}
	die(EXIT_INPUT, "no free tid below 2^31 in pid %s", pid);
}

/* The guides of the anchors (guides.h), with the report's texts; dies on a
 * refusal. */
static void build_guides(struct state *st, struct summary *sm, struct guide *g)
{
	struct guides_anchor *an = xmalloc((st->n + 1) * sizeof *an);
	struct guides_span *sp = xmalloc((st->n + 1) * sizeof *sp);
	size_t i, where = 0;
	int rc;

	for (i = 0; i < st->n; i++) {
		an[i].layer = st->a[i].layer;
		an[i].ts_ns = st->a[i].ts_ns;
		an[i].has_terminal = st->a[i].has_terminal;
		an[i].term_end_ns = st->a[i].term_end_ns;
	}
	rc = guides_build(an, st->n, (size_t)sm->num_layers, sp, &where);
	for (i = 0; i < st->n; i++) {
		const struct anchor_rec *a = &st->a[i];
		struct guide *x = &g[i];
		struct buf end = BUF_INIT;

		memset(x, 0, sizeof *x);
		x->pass = a->pass;
		x->layer = (size_t)sm->first_layer + a->layer;
		x->anchor_index = a->anchor_index;
		x->anchor_name = a->name;
		x->anchor_tid = a->tid;
		x->source_index = a->source_index;
		x->start_text = a->ts;
		if (rc == GUIDES_BACKWARDS && i == where)
			die(EXIT_INPUT, "guide L%zu would end before it starts", x->layer);
		if (rc == GUIDES_BACKWARDS && i > where)
			break;
		x->start_ns = sp[i].start_ns;
		x->end_ns = sp[i].end_ns;
		x->start_us = sp[i].start_us;
		x->end_us = sp[i].end_us;
		x->kind = guides_kind_name(sp[i].kind);
		if (sp[i].kind == GUIDES_NEXT_LAYER_ANCHOR)
			buf_addstr(&end, st->a[i + 1].ts);
		else if (sp[i].kind == GUIDES_TERMINAL_KERNEL_END)
			num_append_us3(&end, sp[i].end_ns);
		else
			buf_addstr(&end, a->ts);
		x->end_text = end.p;  /* owned by the guide now */
	}
	if (rc == GUIDES_SAME_US)
		die(EXIT_INPUT, "anchors %zu and %zu start within the same microsecond "
		    "(%s and %s); their guides would overlap in Perfetto",
		    g[where].anchor_index, g[where + 1].anchor_index, g[where].start_text,
		    g[where + 1].start_text);
	free(an);
	free(sp);
}

static void emit(struct state *st, struct filter *f, const char *tail, size_t tail_len)
{
	struct summary sm;
	struct guide *g;
	struct buf ev = BUF_INIT, rep = BUF_INIT, track = BUF_INIT;
	struct jdoc td = JDOC_INIT;
	int used;
	size_t i;
	const char *device;
	size_t dlen;

	memset(&sm, 0, sizeof sm);
	if (st->summary.len == 0)
		die(EXIT_INPUT, "no anchor records in the stream: run tr-select-anchors "
		    "before tr-guides");
	if (jdoc_parse(&sm.d, st->summary.p, st->summary.len, NULL) != 0)
		die(EXIT_INPUT, "malformed anchors record");
	sm.num_layers = int_member(&sm.d, 0, "num_layers", "anchors");
	sm.first_layer = int_member(&sm.d, 0, "first_layer", "anchors");
	sm.passes = int_member(&sm.d, 0, "passes", "anchors");
	sm.origin_ns = int_member(&sm.d, 0, "trace_origin_ns", "anchors");
	sm.pid = raw_copy(&sm.d, jdoc_find(&sm.d, 0, "pid"));
	used = jdoc_find(&sm.d, 0, "used_tids");
	if (sm.pid == NULL || jdoc_type(&sm.d, used) != JT_ARRAY)
		die(EXIT_INPUT, "malformed anchors record: no pid or used_tids");
	if ((int64_t)st->n != sm.num_layers * sm.passes)
		die(EXIT_INPUT, "%zu anchor records for %" PRId64 " layers x %" PRId64
		    " passes (a stage dropped some?)", st->n, sm.num_layers, sm.passes);
	sm.guide_tid = choose_tid(&sm.d, used, sm.pid);
	device = jdoc_raw(&sm.d, jdoc_find(&sm.d, 0, "device"), &dlen);

	g = xmalloc((st->n + 1) * sizeof *g);
	build_guides(st, &sm, g);

	buf_printf(&track, "Layer guide (%s) \xe2\x80\x94 anchor intervals", st->phase);
	buf_printf(&ev, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":%" PRId64
		   ",\"pid\":%s,\"tid\":%" PRId64 ",\"args\":{\"name\":",
		   g[0].start_us, sm.pid, sm.guide_tid);
	put_quoted(&ev, track.p);
	buf_addstr(&ev, "}}");
	filter_put(f, ev.p, ev.len);
	buf_reset(&ev);
	buf_printf(&ev, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":%" PRId64
		   ",\"pid\":%s,\"tid\":%" PRId64 ",\"args\":{\"sort_index\":%d}}",
		   g[0].start_us, sm.pid, sm.guide_tid, GUIDE_SORT_INDEX);
	filter_put(f, ev.p, ev.len);
	for (i = 0; i < st->n; i++) {
		buf_reset(&ev);
		buf_printf(&ev, "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L%zu\","
			   "\"pid\":%s,\"tid\":%" PRId64 ",\"ts\":%" PRId64 ",\"dur\":%" PRId64
			   ",\"args\":{", g[i].layer, sm.pid, sm.guide_tid, g[i].start_us,
			   g[i].end_us - g[i].start_us);
		put_row(&ev, &g[i], sm.origin_ns);
		buf_addstr(&ev, ",\"phase\":");
		put_quoted(&ev, st->phase);
		buf_addstr(&ev, ",\"evidence\":");
		put_quoted(&ev, st->evidence);
		buf_addstr(&ev, ",\"notice\":");
		put_quoted(&ev, notice);
		buf_addstr(&ev, "}}");
		filter_put(f, ev.p, ev.len);
	}

	/* The report, with the source's identity from the tail. */
	if (jdoc_parse(&td, tail, tail_len, NULL) != 0)
		die(EXIT_INPUT, "malformed tail record");
	trstream_report_body(&rep, TRSTREAM_LAYERS_SUFFIX);
	buf_addstr(&rep, "{\"schema_version\":1,\"notice\":");
	put_quoted(&rep, notice);
	buf_addstr(&rep, ",\"phase\":");
	put_quoted(&rep, st->phase);
	buf_addstr(&rep, ",\"evidence\":");
	put_quoted(&rep, st->evidence);
	buf_printf(&rep, ",\"pid\":%s,\"device\":%.*s,\"guide_tid\":%" PRId64 ",\"track_name\":",
		   sm.pid, (int)dlen, device, sm.guide_tid);
	put_quoted(&rep, track.p);
	{
		static const char *const copied[] = { "anchor_regex", "end_anchor_regex",
			"anchor_offset", "matching_anchor_count", "num_layers", "first_layer",
			"passes", "confirm_regex", "confirm_cpu" };
		size_t k;
		for (k = 0; k < sizeof copied / sizeof copied[0]; k++) {
			size_t n;
			const char *raw = jdoc_raw(&sm.d, jdoc_find(&sm.d, 0, copied[k]), &n);
			buf_printf(&rep, ",\"%s\":%.*s", copied[k], (int)n, raw);
		}
	}
	buf_printf(&rep, ",\"original_event_count\":%" PRIu64 ",\"added_event_count\":%zu"
		   ",\"trace_origin_us\":", st->events, st->n + 2);
	num_append_us3(&rep, sm.origin_ns);
	buf_addstr(&rep, "}}");
	filter_put(f, rep.p, rep.len);
	/* The rows follow in records of LAYER_ROWS each, appended to the body's
	 * "layers" member by tr-encode: the report grows with the layers (tens
	 * of MB for tens of thousands), and no stage should hold it as a line.
	 * The members after "layers" come as records of their own. */
	for (i = 0; i < st->n; i++) {
		if (i % LAYER_ROWS == 0) {
			buf_reset(&rep);
			trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX, "layers", 1);
		}
		buf_addstr(&rep, i % LAYER_ROWS ? ",{" : "{");
		put_row(&rep, &g[i], sm.origin_ns);
		buf_addstr(&rep, "}");
		if (i % LAYER_ROWS == LAYER_ROWS - 1 || i + 1 == st->n) {
			buf_addstr(&rep, "]}");
			filter_put(f, rep.p, rep.len);
		}
	}
	buf_reset(&rep);
	trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX, "source_file", 0);
	put_quoted(&rep, st->source_name ? st->source_name : "");
	buf_addstr(&rep, "}");
	filter_put(f, rep.p, rep.len);
	buf_reset(&rep);
	trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX, TRSTREAM_KEY_SOURCE_SHA256, 0);
	trstream_put_source_sha256(&rep, &td);
	buf_addstr(&rep, "}");
	filter_put(f, rep.p, rep.len);
	buf_reset(&rep);
	trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX, "tool_version", 0);
	buf_printf(&rep, "\"trace-layers %s\"}", TR_VERSION);
	filter_put(f, rep.p, rep.len);

	for (i = 0; i < st->n; i++)
		free(g[i].end_text);
	free(g);
	free(sm.pid);
	jdoc_free(&sm.d);
	jdoc_free(&td);
	buf_release(&ev);
	buf_release(&rep);
	buf_release(&track);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "phase", required_argument, NULL, 'p' },
		{ "evidence", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct state st;
	struct filter f;
	const char *line;
	size_t len, i;
	int ch, kind;
	struct opt_program prog = { NULL, ":h", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	memset(&st, 0, sizeof st);
	st.summary = (struct buf)BUF_INIT;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'p': st.phase = optarg; break;
		case 'e': st.evidence = optarg; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (st.phase == NULL || blank(st.phase) || st.evidence == NULL || blank(st.evidence))
		exit(opt_usage_error(&prog, stderr, "--phase and --evidence are required and "
			"must not be blank (evidence: why L0 is L0, e.g. the model config, "
			"source revision, counts)"));

	filter_open(&f);
	while ((kind = filter_next(&f, &line, &len)) != LINE_END) {
		switch (kind) {
		case LINE_HEAD:
			st.source_name = head_source_name(&st.doc, line, len);
			break;
		case LINE_EVENT:
			st.events++;
			break;
		case LINE_CONTROL:
			if (stream_is_kind(line, len, "anchors")) {
				if (st.summary.len != 0)
					die(EXIT_INPUT, "two anchors records in the stream");
				if (buf_add(&st.summary, line, len) != 0)
					die_nomem();
				continue;
			}
			if (stream_is_kind(line, len, "anchor")) {
				read_anchor(&st, line, len);
				continue;
			}
			break;
		case LINE_TAIL:
			emit(&st, &f, line, len);
			break;
		}
		filter_pass(&f, line, len);
	}
	filter_close(&f);
	for (i = 0; i < st.n; i++) {
		free(st.a[i].ts);
		free(st.a[i].name);
		free(st.a[i].tid);
	}
	free(st.a);
	free(st.source_name);
	buf_release(&st.summary);
	jdoc_free(&st.doc);
	return EXIT_OK;
}
