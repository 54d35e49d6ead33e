/* Oracles: simple whole-input versions of what the library does in a
 * stream, and conveniences over its interfaces, linked into the unit
 * runners only (tests/unit/oracle_*.c), so that the programs carry no
 * function that only the tests call. */
#ifndef TR_TESTS_ORACLE_H
#define TR_TESTS_ORACLE_H

#include <stddef.h>

#include "core/blockq.h"
#include "guides/guides.h"

/* blockq through its copy-free calls: queue n bytes (waiting for room); 0,
 * or -1 with errno EPIPE once the consumer has cancelled. */
int blockq_put(struct blockq *q, const void *data, size_t n);
/* Up to n bytes into dst, waiting for some: the count, or 0 when the
 * producer has closed and everything was taken, or once the queue is
 * cancelled. */
long blockq_take(struct blockq *q, void *dst, size_t n);

/* The n guides of anchors a[0..n) into out[0..n), all at once, as
 * tr-guides refuses them while it walks: a guide ends at the next anchor,
 * except the last layer of a pass (layer + 1 == num_layers).  Refused (the
 * first problem found, *where naming the guide): a guide whose rounded end
 * is before its rounded start, then two guides starting within the same
 * microsecond (Perfetto would nest them). */
int guides_build(const struct guides_anchor *a, size_t n, size_t num_layers,
		 struct guides_span *out, size_t *where);

#endif
