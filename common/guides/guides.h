/* guides: the layer guide intervals of tr-guides, from the anchors that
 * tr-select-anchors chose, and their rounding to whole microseconds.
 * Library code: it returns a status and never prints or exits; the caller
 * words the refusal. */
#ifndef TR_GUIDES_H
#define TR_GUIDES_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "stream/trstream.h"

/* What a guide needs of its anchor (in anchor order, passes one after the
 * other): the layer within its pass (0 .. num_layers - 1), the exact ts,
 * and for the last layer of a pass the end of the terminal kernel that
 * --end-anchor-regex found, if any. */
struct guides_anchor {
	size_t layer;
	int64_t ts_ns;
	int has_terminal;
	int64_t term_end_ns;
};

/* How a guide ends (the report's boundary_kind). */
enum guides_kind {
	GUIDES_NEXT_LAYER_ANCHOR,    /* at the next layer's anchor */
	GUIDES_TERMINAL_KERNEL_END,  /* last layer: at the end of the terminal kernel */
	GUIDES_ANCHOR_POINT_ONLY,    /* last layer without one: zero length at its anchor */
};

struct guides_span {
	int64_t start_ns, end_ns;   /* exact */
	int64_t start_us, end_us;   /* rounded to the nearest us, ties away from zero */
	enum guides_kind kind;
};

enum guides_status {
	GUIDES_OK = 0,
	GUIDES_BACKWARDS = 1,   /* guide *where would end before it starts */
	GUIDES_SAME_US = 2,     /* guides *where and *where + 1 start in the same us */
};

/* "next_layer_anchor", "terminal_kernel_end" or "anchor_point_only". */
const char *guides_kind_name(enum guides_kind kind);

/* The guide of anchor a, whose next anchor is next (NULL for the last),
 * into x: it ends at next, except the last layer of a pass (layer + 1 ==
 * num_layers).  GUIDES_BACKWARDS when its rounded end is before its
 * rounded start, else GUIDES_OK.  A stage that reads its anchors once at a
 * time builds its guides with this and a one-anchor lookahead. */
int guides_span_of(const struct guides_anchor *a, const struct guides_anchor *next,
		   size_t num_layers, struct guides_span *x);

/* The guide track sorts first (thread_sort_index) and takes the smallest
 * free positive tid below 2^31 in its pid. */
#define GUIDES_SORT_INDEX (-1000)
#define GUIDES_MAX_TID ((int64_t)INT32_MAX)

/* The smallest positive tid that is neither pid nor one of used[0..n)
 * (UIs older than Perfetto v53 ignore thread_sort_index, and sort by tid),
 * in time and memory linear in n.  0, -1 when none is free below 2^31,
 * -2 when memory runs out. */
int guides_choose_tid(const int64_t *used, size_t n, int64_t pid, int64_t *tid);

/* The milliseconds text of ns with six decimals ("-0.000001", "1234.500000"),
 * as tsnum_format_ms6 writes it, without printf's cost. */
int guides_put_ms6(struct buf *b, int64_t ns);

/* One guide as tr-guides writes it: the span and its anchor's texts. */
struct guides_row {
	size_t pass, layer, anchor_index;        /* layer: the labelled number */
	int64_t start_ns, end_ns, start_us, end_us;
	const char *start_text, *end_text;       /* exact us text */
	const char *kind;                        /* guides_kind_name */
	const char *anchor_name, *anchor_tid;    /* raw JSON */
};

/* The members a guide's args and the report's layers row share:
 * "pass_index":..,"layer_id":..,... "boundary_kind":"KIND" (no braces);
 * the relative times from origin_ns.  0, or -1 when memory runs out. */
int guides_put_row(struct buf *b, const struct guides_row *g, int64_t origin_ns);

/* The guide track's texts: phase, evidence and the notice every guide and
 * the report carry. */
struct guides_track {
	const char *pid;          /* raw JSON */
	int64_t tid;
	const char *name;         /* "Layer guide (PHASE) -- anchor intervals" */
	const char *phase, *evidence;
};
extern const char guides_notice[];
/* The thread_name and thread_sort_index metadata events of the track, at
 * ts (us), as two lines without newlines: meta[0], meta[1]. */
int guides_put_meta(struct buf *name_event, struct buf *sort_event,
		    const struct guides_track *t, int64_t ts_us);
/* The end every slice of track t shares, its texts escaped:
 * ,"phase":..,"evidence":..,"notice":..}}  made once, then the X slice of
 * guide g, {"ph":"X","cat":"layer_guide","name":"L7",...}, with that end. */
int guides_slice_tail(struct buf *b, const struct guides_track *t);
int guides_put_slice_tail(struct buf *b, const struct guides_track *t,
			  const struct guides_row *g, int64_t origin_ns, const struct buf *tail);

/* The track's name: "Layer guide (PHASE) \u2014 anchor intervals". */
int guides_track_name(struct buf *b, const char *phase);

/* The first record of the .layers.json report: its body, with the track,
 * the selection's options copied raw from the anchors record, the event
 * counts (events read, nguides + 2 added) and the trace origin; the rows
 * follow as items of "layers". */
int guides_put_report_body(struct buf *rep, const struct guides_track *t,
			   const struct trstream_anchors_in *sm, uint64_t events, size_t nguides);

#endif
