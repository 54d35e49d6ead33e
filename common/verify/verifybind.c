/* verifybind: see verifybind.h. */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "verify/verifybind.h"

void verifybind_init(struct verifybind *b, int nest, size_t rec_size, verifybind_fn fn,
		     void *ctx)
{
	memset(b, 0, sizeof *b);
	b->nest = nest;
	b->rec_size = rec_size;
	b->fn = fn;
	b->ctx = ctx;
}

int verifybind_slice_first(int64_t start, int64_t end, uint64_t index, int64_t ts, uint64_t fi)
{
	/* Perfetto's sort: by ts, then slices with a length (longest first),
	 * then everything else in file order */
	if (start != ts)
		return start < ts;
	return end > start || index < fi;
}

/* The waiting flows bind to slice. */
static int release(struct verifybind *b, uint64_t slice)
{
	size_t k;

	for (k = 0; k < b->nwait; k++)
		if (b->fn(b->ctx, b->wait + k * b->rec_size, slice) != 0) {
			b->nwait = 0;
			return -1;
		}
	b->nwait = 0;
	return 0;
}

int verifybind_slice(struct verifybind *b, int64_t start, int64_t end, uint64_t index)
{
	struct verifybind_open *top;

	while (b->n > 0) {
		top = &b->stack[b->n - 1];
		if (top->end < start ||
		    (top->end == start && !(top->start == top->end && start == end)))
			b->n--;
		else
			break;
	}
	/* sticking out of the open slice: onto an overflow track, not this one */
	if (!b->nest && b->n > 0 && end > b->stack[b->n - 1].end)
		return 0;
	if (buf_array_room((void **)&b->stack, b->n, &b->cap, 16, sizeof *b->stack) != 0)
		return -1;
	top = &b->stack[b->n++];
	top->start = start;
	top->end = end;
	top->index = index;
	return b->nwait > 0 ? release(b, index) : 0;
}

int verifybind_flow(struct verifybind *b, int wait, const void *rec, uint64_t *slice)
{
	if (!wait) {
		*slice = b->n > 0 ? b->stack[b->n - 1].index : VERIFYBIND_NONE;
		return 1;
	}
	if (buf_array_room((void **)&b->wait, b->nwait, &b->wait_cap, 4, b->rec_size) != 0)
		return -1;
	memcpy(b->wait + b->nwait * b->rec_size, rec, b->rec_size);
	b->nwait++;
	return 0;
}

int verifybind_track_end(struct verifybind *b)
{
	b->n = 0;
	return b->nwait > 0 ? release(b, VERIFYBIND_NONE) : 0;
}

void verifybind_free(struct verifybind *b)
{
	free(b->stack);
	free(b->wait);
	b->stack = NULL;
	b->wait = NULL;
	b->n = b->nwait = b->cap = b->wait_cap = 0;
}
