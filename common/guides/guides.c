/* guides: see guides.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "guides/guides.h"
#include "json/json.h"
#include "stream/trstream.h"
#include "json/tsnum.h"

const char *guides_kind_name(enum guides_kind kind)
{
	switch (kind) {
	case GUIDES_NEXT_LAYER_ANCHOR:
		return "next_layer_anchor";
	case GUIDES_TERMINAL_KERNEL_END:
		return "terminal_kernel_end";
	case GUIDES_ANCHOR_POINT_ONLY:
		break;
	}
	return "anchor_point_only";
}

int guides_span_of(const struct guides_anchor *a, const struct guides_anchor *next,
		   size_t num_layers, struct guides_span *x)
{
	x->start_ns = a->ts_ns;
	if (a->layer + 1 != num_layers && next != NULL) {
		x->end_ns = next->ts_ns;
		x->kind = GUIDES_NEXT_LAYER_ANCHOR;
	} else if (a->layer + 1 != num_layers) {
		/* the anchors stop inside a pass: tr-select-anchors never
		 * writes that, but a guide must not read past them */
		x->end_ns = a->ts_ns;
		x->kind = GUIDES_ANCHOR_POINT_ONLY;
	} else if (a->has_terminal) {
		x->end_ns = a->term_end_ns;
		x->kind = GUIDES_TERMINAL_KERNEL_END;
	} else {
		x->end_ns = a->ts_ns;
		x->kind = GUIDES_ANCHOR_POINT_ONLY;
	}
	x->start_us = tsnum_round_ns_to_us(x->start_ns);
	x->end_us = tsnum_round_ns_to_us(x->end_ns);
	return x->end_us < x->start_us ? GUIDES_BACKWARDS : GUIDES_OK;
}

const char guides_notice[] =
	"Layer guides are anchor-to-anchor navigation aids: each slice runs from one "
	"layer's anchor kernel to the next layer's anchor (or to the terminal kernel's "
	"end, or is a zero-length marker). They are not layer boundaries and do not "
	"assign kernels to layers. ts, dur and *_us values are microseconds; "
	"*_relative_ms values are milliseconds from the earliest event.";

int guides_choose_tid(const int64_t *used, size_t n, int64_t pid, int64_t *tid)
{
	/* n used tids and the pid take at most n + 1 of 1 .. n + 2: the
	 * answer lies there, found with a mark per candidate in one look at
	 * the used tids (a pid may have hundreds of thousands) */
	int64_t lim = (uint64_t)n >= (uint64_t)GUIDES_MAX_TID - 2 ? GUIDES_MAX_TID : (int64_t)n + 2;
	unsigned char *taken = calloc((size_t)lim + 1, 1);
	int64_t candidate;
	size_t k;

	if (taken == NULL)
		return -2;
	for (k = 0; k < n; k++)
		if (used[k] >= 1 && used[k] <= lim)
			taken[used[k]] = 1;
	if (pid >= 1 && pid <= lim)
		taken[pid] = 1;
	for (candidate = 1; candidate <= lim; candidate++)
		if (!taken[candidate]) {
			free(taken);
			*tid = candidate;
			return 0;
		}
	free(taken);
	return -1;
}

int guides_put_ms6(struct buf *b, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	uint64_t whole = mag / 1000000, frac = mag % 1000000;
	char text[32];
	size_t n = sizeof text;
	int k;

	for (k = 0; k < 6; k++) {
		text[--n] = (char)('0' + frac % 10);
		frac /= 10;
	}
	text[--n] = '.';
	do {
		text[--n] = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole != 0);
	if (ns < 0)
		text[--n] = '-';
	return buf_add(b, text + n, sizeof text - n);
}

/* Each guide is written twice (slice and report row), hundreds of
 * thousands of them: appended piece by piece, with no format string to
 * interpret per guide (printf was a third of tr-guides' CPU). */
int guides_put_row(struct buf *b, const struct guides_row *g, int64_t origin_ns)
{
	int rc = buf_addstr(b, "\"pass_index\":");

	rc |= buf_add_u64(b, g->pass);
	rc |= buf_addstr(b, ",\"layer_id\":");
	rc |= buf_add_u64(b, g->layer);
	rc |= buf_addstr(b, ",\"anchor_index\":");
	rc |= buf_add_u64(b, g->anchor_index);
	rc |= buf_addstr(b, ",\"anchor_name\":");
	rc |= buf_addstr(b, g->anchor_name);
	rc |= buf_addstr(b, ",\"anchor_tid\":");
	rc |= buf_addstr(b, g->anchor_tid);
	rc |= buf_addstr(b, ",\"start_us\":");
	rc |= buf_addstr(b, g->start_text);
	rc |= buf_addstr(b, ",\"end_us\":");
	rc |= buf_addstr(b, g->end_text);
	rc |= buf_addstr(b, ",\"guide_start_us\":");
	rc |= buf_add_i64(b, g->start_us);
	rc |= buf_addstr(b, ",\"guide_end_us\":");
	rc |= buf_add_i64(b, g->end_us);
	rc |= buf_addstr(b, ",\"start_relative_ms\":");
	rc |= guides_put_ms6(b, g->start_ns - origin_ns);
	rc |= buf_addstr(b, ",\"end_relative_ms\":");
	rc |= guides_put_ms6(b, g->end_ns - origin_ns);
	rc |= buf_addstr(b, ",\"boundary_kind\":\"");
	rc |= buf_addstr(b, g->kind);
	rc |= buf_addch(b, '"');
	return rc != 0 ? -1 : 0;
}

static int put_str(struct buf *b, const char *s)
{
	return json_escape(b, s, strlen(s));
}

int guides_put_meta(struct buf *name_event, struct buf *sort_event,
		    const struct guides_track *t, int64_t ts_us)
{
	if (buf_printf(name_event, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":%" PRId64
		       ",\"pid\":%s,\"tid\":%" PRId64 ",\"args\":{\"name\":", ts_us, t->pid,
		       t->tid) != 0 ||
	    put_str(name_event, t->name) != 0 || buf_addstr(name_event, "}}") != 0)
		return -1;
	return buf_printf(sort_event, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":%"
			  PRId64 ",\"pid\":%s,\"tid\":%" PRId64 ",\"args\":{\"sort_index\":%d}}",
			  ts_us, t->pid, t->tid, GUIDES_SORT_INDEX);
}

int guides_slice_tail(struct buf *b, const struct guides_track *t)
{
	if (buf_addstr(b, ",\"phase\":") != 0 || put_str(b, t->phase) != 0 ||
	    buf_addstr(b, ",\"evidence\":") != 0 || put_str(b, t->evidence) != 0 ||
	    buf_addstr(b, ",\"notice\":") != 0 || put_str(b, guides_notice) != 0)
		return -1;
	return buf_addstr(b, "}}");
}

int guides_put_slice_tail(struct buf *b, const struct guides_track *t,
			  const struct guides_row *g, int64_t origin_ns, const struct buf *tail)
{
	int rc = buf_addstr(b, "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L");

	rc |= buf_add_u64(b, g->layer);
	rc |= buf_addstr(b, "\",\"pid\":");
	rc |= buf_addstr(b, t->pid);
	rc |= buf_addstr(b, ",\"tid\":");
	rc |= buf_add_i64(b, t->tid);
	rc |= buf_addstr(b, ",\"ts\":");
	rc |= buf_add_i64(b, g->start_us);
	rc |= buf_addstr(b, ",\"dur\":");
	rc |= buf_add_i64(b, g->end_us - g->start_us);
	rc |= buf_addstr(b, ",\"args\":{");
	if (rc != 0 || guides_put_row(b, g, origin_ns) != 0)
		return -1;
	return buf_add(b, tail->p, tail->len);
}

int guides_track_name(struct buf *b, const char *phase)
{
	return buf_printf(b, "Layer guide (%s) \xe2\x80\x94 anchor intervals", phase);
}

int guides_put_report_body(struct buf *rep, const struct guides_track *t,
			   const struct trstream_anchors_in *sm, uint64_t events, size_t nguides)
{
	static const char *const copied[] = { "anchor_regex", "end_anchor_regex",
		"anchor_offset", "matching_anchor_count", "num_layers", "first_layer",
		"passes", "confirm_regex", "confirm_cpu" };
	size_t k;
	int rc = trstream_report_body(rep, TRSTREAM_LAYERS_SUFFIX);

	rc |= buf_addstr(rep, "{\"schema_version\":1,\"notice\":");
	rc |= put_str(rep, guides_notice);
	rc |= buf_addstr(rep, ",\"phase\":");
	rc |= put_str(rep, t->phase);
	rc |= buf_addstr(rep, ",\"evidence\":");
	rc |= put_str(rep, t->evidence);
	rc |= buf_printf(rep, ",\"pid\":%s,\"device\":%.*s,\"guide_tid\":%" PRId64
			 ",\"track_name\":", t->pid, (int)sm->device.n, sm->device.p, t->tid);
	rc |= put_str(rep, t->name);
	for (k = 0; k < sizeof copied / sizeof copied[0]; k++) {
		struct trstream_raw raw = trstream_anchors_raw(sm, copied[k]);
		rc |= buf_printf(rep, ",\"%s\":%.*s", copied[k], (int)raw.n, raw.p);
	}
	rc |= buf_printf(rep, ",\"original_event_count\":%" PRIu64 ",\"added_event_count\":%zu"
			 ",\"trace_origin_us\":", events, nguides + 2);
	rc |= tsnum_append_us3(rep, sm->trace_origin_ns);
	return rc | buf_addstr(rep, "}}");
}
