/* tr-guides: turn the anchor records of tr-select-anchors into a layer guide
 * track (L0, L1, ... slices from one layer's anchor to the next) appended
 * after the source events, and a report for tr-encode.  See tr-guides(1). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gz/gz.h"
#include "core/buf.h"
#include "core/diag.h"
#include "stream/filter.h"
#include "guides/guides.h"
#include "guides/guides_spill.h"
#include "core/intern.h"
#include "json/json.h"
#include "core/opt.h"
#include "json/tsnum.h"
#include "stream/trstream.h"

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

struct state {
	const char *phase, *evidence;
	struct buf summary;          /* the anchors record */
	struct trstream_anchors_in sm;   /* ... as read, once it came */
	struct guides_spill kept;    /* the anchor records, until the tail */
	struct intern names, tids;   /* their names and tids */
	char *source_name;
	int64_t rank;                /* distributedInfo.rank of the head, -1 */
	uint64_t events;
	struct jdoc doc;
};

/* The rank a trace records (Kineto's distributedInfo.rank) among the
 * members of its head or tail record d, or -1: tr-ranks orders the ranks
 * by it. */
static int64_t recorded_rank(const struct jdoc *d)
{
	int m = json_find(d, 0, "members"), di, r;
	int64_t v;

	if (m < 0 || json_type(d, m) != JT_OBJECT ||
	    (di = json_find(d, m, "distributedInfo")) < 0 || json_type(d, di) != JT_OBJECT ||
	    (r = json_find(d, di, "rank")) < 0 || json_type(d, r) != JT_PRIMITIVE ||
	    json_int64(d, r, &v) != 0 || v < 0 || v > 1000000000)
		return -1;
	return v;
}

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
	struct guides_kept k;

	if (st->summary.len == 0)
		die(EXIT_INPUT, "an anchor record before the anchors record");
	if (trstream_anchor_read(&st->doc, line, len, &a, err, sizeof err) != 0 ||
	    trstream_anchor_check(&a, (size_t)st->kept.n, &st->sm, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
	memset(&k, 0, sizeof k);
	k.pass = a.pass;
	k.layer = a.layer;
	k.anchor_index = a.anchor_index;
	k.ts_ns = a.anchor.ts_ns;
	k.has_terminal = a.has_terminal;
	k.term_end_ns = a.terminal.ts_ns + a.terminal.dur_ns;
	k.name = intern_text(&st->names, a.anchor.name);
	k.tid = intern_text(&st->tids, a.anchor.tid);
	if (guides_spill_put(&st->kept, &k, a.anchor.ts) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	trstream_anchor_free(&a);
}

static void walk_start(const struct state *st, struct guides_walk *w)
{
	if (guides_walk_start(w, &st->kept) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
}

/* The next guide (w->cur, w->sp), or 0 at the end. */
static int walk_next(struct guides_walk *w, size_t num_layers)
{
	int rc = guides_walk_next(w, num_layers);

	if (rc < 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	return rc;
}

/* Check every guide before one is written; dies on a refusal. */
static void check_guides(const struct state *st, const struct trstream_anchors_in *sm)
{
	struct buf msg = BUF_INIT;
	int rc = guides_spill_check(&st->kept, (size_t)sm->num_layers, (size_t)sm->first_layer,
				    &msg);

	if (rc == -2)
		die_nomem();
	if (rc < 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (rc != 0)
		die(EXIT_INPUT, "%s", msg.p);
	buf_release(&msg);
}

/* The guide of the walk with the report's texts, made when it is written
 * (end: its end text, the row points into it). */
static void guide_row(const struct state *st, const struct trstream_anchors_in *sm,
		      const struct guides_walk *w, struct guides_row *x, struct buf *end)
{
	if (guides_walk_row(w, (const char *const *)st->names.keys,
			    (const char *const *)st->tids.keys, (size_t)sm->first_layer, x,
			    end) != 0)
		die_nomem();
}

static void read_head(struct state *st, const char *line, size_t len)
{
	struct trstream_head_in h;
	char err[TRSTREAM_ERR_SIZE];

	if (trstream_head_read(&st->doc, line, len, &h, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
	st->source_name = h.source;
	st->rank = recorded_rank(&st->doc);
}

static void put(struct filter *f, const struct buf *b, int rc)
{
	if (rc != 0)
		die_nomem();
	filter_put(f, b->p, b->len);
}

static void read_anchors(struct state *st, const char *line, size_t len)
{
	char err[TRSTREAM_ERR_SIZE];

	if (st->summary.len != 0)
		die(EXIT_INPUT, "two anchors records in the stream");
	if (buf_add(&st->summary, line, len) != 0)
		die_nomem();
	if (trstream_anchors_read(st->summary.p, st->summary.len, &st->sm, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
}

static void emit(struct state *st, struct filter *f, const char *tail, size_t tail_len)
{
	const struct trstream_anchors_in *sm = &st->sm;
	struct trstream_tail_in tail_in;
	struct guides_track t;
	struct guides_walk w = { 0 };
	struct guides_row g;
	struct buf ev = BUF_INIT, ev2 = BUF_INIT, rep = BUF_INIT, track = BUF_INIT,
		   end = BUF_INIT, slice_tail = BUF_INIT;
	struct jdoc td = JDOC_INIT;
	char err[TRSTREAM_ERR_SIZE], *pid;
	size_t i, layers;

	if (st->summary.len == 0)
		die(EXIT_INPUT, "no anchor records in the stream: run tr-select-anchors "
		    "before tr-guides");
	if ((int64_t)st->kept.n != sm->num_layers * sm->passes)
		die(EXIT_INPUT, "%zu anchor records for %" PRId64 " layers x %" PRId64
		    " passes (a stage dropped some?)", (size_t)st->kept.n, sm->num_layers, sm->passes);
	pid = xmemdup(sm->pid.p, sm->pid.n);
	t.pid = pid;
	t.phase = st->phase;
	t.evidence = st->evidence;
	switch (guides_choose_tid(sm->used_tids, sm->nused, sm->pid_value, &t.tid)) {
	case 0:
		break;
	case -1:
		die(EXIT_INPUT, "no free tid below 2^31 in pid %s", pid);
	default:
		die_nomem();
	}

	if (guides_spill_finish(&st->kept) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	layers = (size_t)sm->num_layers;
	check_guides(st, sm);

	if (guides_track_name(&track, st->phase) != 0)
		die_nomem();
	t.name = track.p;
	walk_start(st, &w);
	if (guides_put_meta(&ev, &ev2, &t, walk_next(&w, layers) ? w.sp.start_us : 0) != 0)
		die_nomem();
	filter_put(f, ev.p, ev.len);
	filter_put(f, ev2.p, ev2.len);
	if (guides_slice_tail(&slice_tail, &t) != 0)
		die_nomem();
	walk_start(st, &w);
	while (walk_next(&w, layers)) {
		buf_reset(&ev);
		guide_row(st, sm, &w, &g, &end);
		put(f, &ev, guides_put_slice_tail(&ev, &t, &g, sm->trace_origin_ns, &slice_tail));
	}

	/* The report, with the source's identity from the tail. */
	if (trstream_tail_read(&td, tail, tail_len, &tail_in, err, sizeof err) != 0)
		die(EXIT_INPUT, "%s", err);
	put(f, &rep, guides_put_report_body(&rep, &t, sm, st->events, (size_t)st->kept.n));
	/* The rows follow in records of LAYER_ROWS each, appended to the body's
	 * "layers" member by tr-encode: the report grows with the layers (tens
	 * of MB for tens of thousands), and no stage should hold it as a line.
	 * The members after "layers" come as records of their own. */
	walk_start(st, &w);
	for (i = 0; walk_next(&w, layers); i++) {
		int rc = 0;
		if (i % LAYER_ROWS == 0) {
			buf_reset(&rep);
			rc |= trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX, "layers", 1);
		}
		rc |= buf_addstr(&rep, i % LAYER_ROWS ? ",{" : "{");
		guide_row(st, sm, &w, &g, &end);
		rc |= guides_put_row(&rep, &g, sm->trace_origin_ns);
		rc |= buf_addstr(&rep, "}");
		if (rc != 0)
			die_nomem();
		if (i % LAYER_ROWS == LAYER_ROWS - 1 || i + 1 == st->kept.n)
			put(f, &rep, trstream_report_items_end(&rep));
	}
	buf_reset(&rep);
	put(f, &rep, trstream_report_string(&rep, TRSTREAM_LAYERS_SUFFIX, "source_file",
					    st->source_name ? st->source_name : ""));
	if (st->rank < 0)
		st->rank = recorded_rank(&td);
	if (st->rank >= 0) {
		buf_reset(&rep);
		put(f, &rep, trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX, "rank", 0) |
			     buf_printf(&rep, "%lld}", (long long)st->rank));
	}
	buf_reset(&rep);
	put(f, &rep, trstream_report_member(&rep, TRSTREAM_LAYERS_SUFFIX,
					    TRSTREAM_KEY_SOURCE_SHA256, 0) |
		     trstream_put_source_sha256(&rep, &td) | buf_addch(&rep, '}'));
	buf_reset(&rep);
	put(f, &rep, trstream_report_string(&rep, TRSTREAM_LAYERS_SUFFIX, "tool_version",
					    "trace-layers " TR_VERSION));

	guides_walk_free(&w);
	free(pid);
	json_free(&td);
	buf_release(&ev);
	buf_release(&ev2);
	buf_release(&rep);
	buf_release(&track);
	buf_release(&end);
	buf_release(&slice_tail);
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
	st.rank = -1;
	st.summary = (struct buf)BUF_INIT;
	st.sm.d = (struct jdoc)JDOC_INIT;
	st.sm.pid_value = -1;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'p': st.phase = optarg; break;
		case 'e': st.evidence = optarg; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit(gz_backend());
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (st.phase == NULL || blank(st.phase) || st.evidence == NULL || blank(st.evidence))
		exit(opt_usage_error(&prog, stderr, "--phase and --evidence are required and "
			"must not be blank (evidence: why L0 is L0, e.g. the model config, "
			"source revision, counts)"));

	if (guides_spill_init(&st.kept, xopen_spill("tr-guides")) != 0 || filter_open(&f) != 0)
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
				read_anchors(&st, line, len);
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
		die_stream(f.write_errno, f.in.err, f.in.read_errno);
	guides_spill_free(&st.kept);
	intern_free(&st.names);
	intern_free(&st.tids);
	free(st.source_name);
	buf_release(&st.summary);
	trstream_anchors_in_free(&st.sm);
	json_free(&st.doc);
	return EXIT_OK;
}
