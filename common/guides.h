/* guides: the layer guide intervals of tr-guides, from the anchors that
 * tr-select-anchors chose, and their rounding to whole microseconds.
 * Library code: it returns a status and never prints or exits; the caller
 * words the refusal. */
#ifndef TR_GUIDES_H
#define TR_GUIDES_H

#include <stddef.h>
#include <stdint.h>

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

/* The n guides of anchors a[0..n) into out[0..n).  A guide ends at the
 * next anchor, except the last layer of a pass (layer + 1 == num_layers).
 * Refused (the first problem found, *where naming the guide): a guide
 * whose rounded end is before its rounded start, then two guides starting
 * within the same microsecond (Perfetto would nest them). */
int guides_build(const struct guides_anchor *a, size_t n, size_t num_layers,
		 struct guides_span *out, size_t *where);

#endif
