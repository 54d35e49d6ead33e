/* guides_spill: the anchors tr-guides keeps until the tail, where the
 * guides are built, as fixed records in an unlinked spill file, read back
 * (to check the guides, to write them, to write the report's rows) as
 * guides with a one-anchor lookahead: memory does not grow with layers x
 * passes.  The anchor's name and tid are ids the caller interns (a few of
 * each); a ts text too long for the record (never seen in a profiler
 * trace) goes to an arena in memory.
 * The common/ rule: library code returns a status (0, or -1 with errno set:
 * ENOMEM, EIO for a short read, or the spill file's error) and never prints
 * or exits. */
#ifndef TR_GUIDES_SPILL_H
#define TR_GUIDES_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "guides/guides.h"
#include "core/writer.h"

#define GUIDES_SPILL_TS 48      /* ts texts up to 47 bytes sit in the record */
#define GUIDES_SPILL_BLOCK 1024 /* records read at a time */

/* One anchor as kept. */
struct guides_kept {
	uint64_t pass, layer, anchor_index;
	int64_t ts_ns, term_end_ns;
	int32_t has_terminal;
	uint32_t name, tid;          /* the caller's ids */
	uint32_t ts_long;            /* 0: ts below; else 1 + its offset in the arena */
	char ts[GUIDES_SPILL_TS];    /* the NUL-terminated ts text */
};

struct guides_spill {
	int fd;
	struct writer out;
	uint64_t n;                  /* records put */
	struct buf long_ts;          /* ts texts too long for a record */
};

/* A walk over the kept anchors as guides: each guide's anchor (cur), the
 * next anchor (has_next) and its span (guides_span_of's status). */
struct guides_walk {
	const struct guides_spill *s;
	struct guides_kept *v;       /* a block of records */
	size_t nv, at;
	struct guides_kept cur, next;
	int has_cur, has_next;
	uint64_t i;                  /* cur's number */
	struct guides_span sp;
	int status;
};

/* fd: an empty spill file (io_open_spill), owned from now on. */
int guides_spill_init(struct guides_spill *s, int fd);
/* Keep anchor k (its ts field ignored) with its ts text. */
int guides_spill_put(struct guides_spill *s, const struct guides_kept *k, const char *ts);
/* After the last put. */
int guides_spill_finish(struct guides_spill *s);
/* The ts text of a kept anchor. */
const char *guides_spill_ts(const struct guides_spill *s, const struct guides_kept *k);
void guides_spill_free(struct guides_spill *s);

/* Start a walk from the first anchor (any number of walks, one at a time). */
int guides_walk_start(struct guides_walk *w, const struct guides_spill *s);
/* The next guide into w->cur, w->sp and w->status: 1, 0 at the end, -1. */
int guides_walk_next(struct guides_walk *w, size_t num_layers);
void guides_walk_free(struct guides_walk *w);

/* Every guide of the kept anchors checked before one is written, by the
 * rules of guides.h (the first refusal of each kind; a backwards guide is
 * told first).  first_layer labels layer 0.  0; GUIDES_BACKWARDS or
 * GUIDES_SAME_US with the refusal in msg ("guide L7 would end before it
 * starts"; "anchors 3 and 4 start within the same microsecond (10.0001
 * and 10.0004); their guides would overlap in Perfetto"); -1 with errno
 * set when the spill cannot be read; -2 when memory runs out. */
int guides_spill_check(const struct guides_spill *s, size_t num_layers, size_t first_layer,
		       struct buf *msg);

/* The walk's guide (w->cur, w->sp) as a row of tr-guides' slices and
 * report: names and tids give the texts of the caller's ids, first_layer
 * labels layer 0; end receives the end text, which x->end_text points
 * into.  0, or -1 when memory runs out. */
int guides_walk_row(const struct guides_walk *w, const char *const *names,
		    const char *const *tids, size_t first_layer, struct guides_row *x,
		    struct buf *end);

#endif
