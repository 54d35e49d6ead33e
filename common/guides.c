/* guides: see guides.h. */
#include "guides.h"
#include "tsnum.h"

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

int guides_build(const struct guides_anchor *a, size_t n, size_t num_layers,
		 struct guides_span *out, size_t *where)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct guides_span *x = &out[i];

		x->start_ns = a[i].ts_ns;
		if (a[i].layer + 1 != num_layers && i + 1 < n) {
			x->end_ns = a[i + 1].ts_ns;
			x->kind = GUIDES_NEXT_LAYER_ANCHOR;
		} else if (a[i].layer + 1 != num_layers) {
			/* the anchors stop inside a pass: tr-select-anchors never
			 * writes that, but a guide must not read past them */
			x->end_ns = a[i].ts_ns;
			x->kind = GUIDES_ANCHOR_POINT_ONLY;
		} else if (a[i].has_terminal) {
			x->end_ns = a[i].term_end_ns;
			x->kind = GUIDES_TERMINAL_KERNEL_END;
		} else {
			x->end_ns = a[i].ts_ns;
			x->kind = GUIDES_ANCHOR_POINT_ONLY;
		}
		x->start_us = num_round_ns_to_us(x->start_ns);
		x->end_us = num_round_ns_to_us(x->end_ns);
		if (x->end_us < x->start_us) {
			*where = i;
			return GUIDES_BACKWARDS;
		}
	}
	/* A zero-length guide sharing its start with another guide would nest
	 * under it in Perfetto (depth 1); so would any two sharing a start. */
	for (i = 0; i + 1 < n; i++)
		if (out[i + 1].start_us == out[i].start_us) {
			*where = i;
			return GUIDES_SAME_US;
		}
	return GUIDES_OK;
}
