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
#include "intern.h"
#include "json.h"
#include "opt.h"
#include "tsnum.h"
#include "trstream.h"

#define LAYER_ROWS 500  /* guide rows per report record: about 200 KB */

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

/* What tr-guides keeps of an anchor record until the tail, where the
 * guides are built: the numbers, the name and tid as ids of two intern
 * tables (the anchors share a few names and tids) and the ts text in one
 * arena: about 90 bytes a guide (the parsed record held some 700, 48 MiB
 * for the 68920 guides of the bench trace). */
struct kept {
	size_t pass, layer, anchor_index;
	int64_t ts_ns, term_end_ns;
	int has_terminal;
	uint32_t name, tid;
	size_t ts_at;  /* the NUL-terminated ts text at texts.p + ts_at */
};

struct state {
	const char *phase, *evidence;
	struct buf summary;          /* the anchors record */
	struct kept *a;
	size_t n, cap;
	struct intern names, tids;
	struct buf texts;
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

static uint32_t intern_text(struct intern *t, const char *text)
{
	int64_t id = intern_id(t, text, strlen(text));

	if (id < 0)
		die_nomem();
	return (uint32_t)id;
}

static void read_anchor(struct state *st, const char *line, size_t len)
{
	char err[TRSTREAM_ERR_SIZE];
	struct trstream_anchor a;
	struct kept *k;

	if (st->n == st->cap) {
		st->cap = grow_cap(st->cap, 64, sizeof *st->a);
		st->a = xrealloc(st->a, st->cap * sizeof *st->a);
	}
	if (trstream_anchor_read(&st->doc, line, len, &a, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
	if (a.i != st->n)
		die(EXIT_INPUT, "anchor records out of order (record %zu is number %zu)",
		    st->n, a.i);
	k = &st->a[st->n++];
	k->pass = a.pass;
	k->layer = a.layer;
	k->anchor_index = a.anchor_index;
	k->ts_ns = a.anchor.ts_ns;
	k->has_terminal = a.has_terminal;
	k->term_end_ns = a.terminal.ts_ns + a.terminal.dur_ns;
	k->name = intern_text(&st->names, a.anchor.name);
	k->tid = intern_text(&st->tids, a.anchor.tid);
	k->ts_at = st->texts.len;
	if (buf_add(&st->texts, a.anchor.ts, strlen(a.anchor.ts) + 1) != 0)
		die_nomem();
	trstream_anchor_free(&a);
}

static const char *ts_text(const struct state *st, size_t i)
{
	return st->texts.p + st->a[i].ts_at;
}

/* The spans of the guides (guides.h); dies on a refusal. */
static struct guides_span *build_spans(struct state *st, const struct trstream_anchors_in *sm)
{
	struct guides_anchor *an = xmalloc((st->n + 1) * sizeof *an);
	struct guides_span *sp = xmalloc((st->n + 1) * sizeof *sp);
	size_t i, where = 0;
	int rc;

	memset(sp, 0, (st->n + 1) * sizeof *sp);
	for (i = 0; i < st->n; i++) {
		an[i].layer = st->a[i].layer;
		an[i].ts_ns = st->a[i].ts_ns;
		an[i].has_terminal = st->a[i].has_terminal;
		an[i].term_end_ns = st->a[i].term_end_ns;
	}
	rc = guides_build(an, st->n, (size_t)sm->num_layers, sp, &where);
	free(an);
	if (rc == GUIDES_BACKWARDS)
		die(EXIT_INPUT, "guide L%zu would end before it starts",
		    (size_t)sm->first_layer + st->a[where].layer);
	if (rc == GUIDES_SAME_US)
		die(EXIT_INPUT, "anchors %zu and %zu start within the same microsecond "
		    "(%s and %s); their guides would overlap in Perfetto",
		    st->a[where].anchor_index, st->a[where + 1].anchor_index, ts_text(st, where),
		    ts_text(st, where + 1));
	return sp;
}

/* Guide i with the report's texts, made when it is written (end: its end
 * text, the row points into it). */
static void guide_row(const struct state *st, const struct trstream_anchors_in *sm,
		      const struct guides_span *sp, size_t i, struct guides_row *x,
		      struct buf *end)
{
	const struct kept *a = &st->a[i];
	int rc;

	memset(x, 0, sizeof *x);
	x->pass = a->pass;
	x->layer = (size_t)sm->first_layer + a->layer;
	x->anchor_index = a->anchor_index;
	x->anchor_name = st->names.keys[a->name];
	x->anchor_tid = st->tids.keys[a->tid];
	x->start_text = ts_text(st, i);
	x->start_ns = sp[i].start_ns;
	x->end_ns = sp[i].end_ns;
	x->start_us = sp[i].start_us;
	x->end_us = sp[i].end_us;
	x->kind = guides_kind_name(sp[i].kind);
	buf_reset(end);
	if (sp[i].kind == GUIDES_NEXT_LAYER_ANCHOR)
		rc = buf_addstr(end, ts_text(st, i + 1));
	else if (sp[i].kind == GUIDES_TERMINAL_KERNEL_END)
		rc = tsnum_append_us3(end, sp[i].end_ns);
	else
		rc = buf_addstr(end, x->start_text);
	if (rc != 0)
		die_nomem();
	x->end_text = end->p;
}

static void read_head(struct state *st, const char *line, size_t len)
{
	struct trstream_head_in h;
	char err[TRSTREAM_ERR_SIZE];

	if (trstream_head_read(&st->doc, line, len, &h, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
	st->source_name = h.source;
}

static void put(struct filter *f, const struct buf *b, int rc)
{
	if (rc != 0)
		die_nomem();
	filter_put(f, b->p, b->len);
}

static void emit(struct state *st, struct filter *f, const char *tail, size_t tail_len)
{
	struct trstream_anchors_in sm = { JDOC_INIT, 0, 0, 0, 0, -1, { NULL, 0 }, { NULL, 0 },
		NULL, 0 };
	struct trstream_tail_in tail_in;
	struct guides_track t;
	struct guides_span *sp;
	struct guides_row g;
	struct buf ev = BUF_INIT, ev2 = BUF_INIT, rep = BUF_INIT, track = BUF_INIT,
		   end = BUF_INIT;
	struct jdoc td = JDOC_INIT;
	char err[TRSTREAM_ERR_SIZE], *pid;
	size_t i;

	if (st->summary.len == 0)
		die(EXIT_INPUT, "no anchor records in the stream: run tr-select-anchors "
		    "before tr-guides");
	if (trstream_anchors_read(st->summary.p, st->summary.len, &sm, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
	if ((int64_t)st->n != sm.num_layers * sm.passes)
		die(EXIT_INPUT, "%zu anchor records for %" PRId64 " layers x %" PRId64
		    " passes (a stage dropped some?)", st->n, sm.num_layers, sm.passes);
	pid = xmemdup(sm.pid.p, sm.pid.n);
	t.pid = pid;
	t.phase = st->phase;
	t.evidence = st->evidence;
	if (guides_choose_tid(sm.used_tids, sm.nused, sm.pid_value, &t.tid) != 0)
		die(EXIT_INPUT, "no free tid below 2^31 in pid %s", pid);

	sp = build_spans(st, &sm);

	if (guides_track_name(&track, st->phase) != 0)
		die_nomem();
	t.name = track.p;
	if (guides_put_meta(&ev, &ev2, &t, sp[0].start_us) != 0)
		die_nomem();
	filter_put(f, ev.p, ev.len);
	filter_put(f, ev2.p, ev2.len);
	for (i = 0; i < st->n; i++) {
		buf_reset(&ev);
		guide_row(st, &sm, sp, i, &g, &end);
		put(f, &ev, guides_put_slice(&ev, &t, &g, sm.trace_origin_ns));
	}

	/* The report, with the source's identity from the tail. */
	if (trstream_tail_read(&td, tail, tail_len, &tail_in, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
	put(f, &rep, guides_put_report_body(&rep, &t, &sm, st->events, st->n));
	/* The rows follow in records of LAYER_ROWS each, appended to the body's
	 * "layers" member by tr-encode: the report grows with the layers (tens
	 * of MB for tens of thousands), and no stage should hold it as a line.
	 * The members after "layers" come as records of their own. */
	for (i = 0; i < st->n; i++) {
		int rc = 0;
		if (i % LAYER_ROWS == 0) {
			buf_reset(&rep);
			rc |= trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX, "layers", 1);
		}
		rc |= buf_addstr(&rep, i % LAYER_ROWS ? ",{" : "{");
		guide_row(st, &sm, sp, i, &g, &end);
		rc |= guides_put_row(&rep, &g, sm.trace_origin_ns);
		rc |= buf_addstr(&rep, "}");
		if (rc != 0)
			die_nomem();
		if (i % LAYER_ROWS == LAYER_ROWS - 1 || i + 1 == st->n)
			put(f, &rep, trstream_report_items_end(&rep));
	}
	buf_reset(&rep);
	put(f, &rep, trstream_report_string(&rep, TRSTREAM_LAYERS_SUFFIX, "source_file",
					    st->source_name ? st->source_name : ""));
	buf_reset(&rep);
	put(f, &rep, trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX,
					    TRSTREAM_KEY_SOURCE_SHA256, 0) |
		     trstream_put_source_sha256(&rep, &td) | buf_addch(&rep, '}'));
	buf_reset(&rep);
	put(f, &rep, trstream_report_string(&rep, TRSTREAM_LAYERS_SUFFIX, "tool_version",
					    "trace-layers " TR_VERSION));

	free(sp);
	free(pid);
	trstream_anchors_in_free(&sm);
	json_free(&td);
	buf_release(&ev);
	buf_release(&ev2);
	buf_release(&rep);
	buf_release(&track);
	buf_release(&end);
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
	size_t len;
	int ch, kind;
	struct opt_program prog = { NULL, ":h", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	memset(&st, 0, sizeof st);
	st.summary = (struct buf)BUF_INIT;
	st.texts = (struct buf)BUF_INIT;
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

	if (filter_open(&f) != 0)
		die_nomem();
	while ((kind = filter_next(&f, &line, &len)) > LINE_END) {
		switch (kind) {
		case LINE_HEAD:
			read_head(&st, line, len);
			break;
		case LINE_EVENT:
			st.events++;
			break;
		case LINE_CONTROL:
			if (stream_is_kind(line, len, TRSTREAM_ANCHORS)) {
				if (st.summary.len != 0)
					die(EXIT_INPUT, "two anchors records in the stream");
				if (buf_add(&st.summary, line, len) != 0)
					die_nomem();
				continue;
			}
			if (stream_is_kind(line, len, TRSTREAM_ANCHOR)) {
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
	if (kind == LINE_ERROR || filter_close(&f) != 0)
		die_stream(f.write_errno, f.in.err);
	free(st.a);
	intern_free(&st.names);
	intern_free(&st.tids);
	buf_release(&st.texts);
	free(st.source_name);
	buf_release(&st.summary);
	json_free(&st.doc);
	return EXIT_OK;
}
