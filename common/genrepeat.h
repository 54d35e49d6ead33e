/* genrepeat: a real trace grown into a large one: every event of its
 * traceEvents N times, each copy's timestamps moved past the copy before
 * and its flow, correlation and External ids offset, the metadata events
 * (ph "M") once.  Everything else is written byte for byte.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_GENREPEAT_H
#define TR_GENREPEAT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "writer.h"

enum genrepeat_status {
	GENREPEAT_OK = 0,
	GENREPEAT_INPUT = -1,  /* the trace is refused: err says why and where */
	GENREPEAT_WRITE = -2,  /* writing failed: errno set (EPIPE included) */
	GENREPEAT_RANGE = -3   /* a shifted timestamp or id would not fit 64 bits */
};

struct genrepeat_error {
	uint64_t offset;   /* byte offset in the text */
	char msg[128];
};

/* The whole of the trace at path (plain or gzip) into text.  GENREPEAT_OK,
 * or GENREPEAT_INPUT (damaged gzip data) or GENREPEAT_WRITE (could not
 * open or read it: errno's text) with *why saying what. */
int genrepeat_load(const char *path, struct buf *text, const char **why);

/* The shift between copies, as genrepeat_write computes it. */
struct genrepeat_plan {
	uint64_t events, metadata;  /* events of the array; of them ph "M" */
	uint64_t shift_us;          /* whole microseconds added per copy */
	uint64_t id_offset;         /* added per copy to each numeric id */
};

/* Plan the copies of text[0, len) (Kineto's object or the JSON Array
 * Format): copy k adds k * shift_us to the integer part of every ts (the
 * fraction's digits stay as written) and k * id_offset to every integer
 * "id" of an event and "correlation" and "External id" of its args.
 * shift_us is the span of the events that are not metadata (first ts to
 * last end, in whole microseconds rounded up) plus one; id_offset the
 * largest such id plus one.  A ts that is not a plain non-negative decimal
 * (a string, a sign, an exponent) is refused. */
int genrepeat_plan(const char *text, size_t len, struct genrepeat_plan *plan,
		   struct genrepeat_error *err);
/* Write the n copies (n >= 1; n = 1 gives text unchanged) to w (not
 * flushed). */
int genrepeat_write(const char *text, size_t len, uint64_t n, struct writer *w,
		    struct genrepeat_error *err);

#endif
