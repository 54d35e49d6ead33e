/* filter: the skeleton every stream stage shares: read the stream on
 * standard input, write it on standard output.  A stage calls filter_next
 * in a loop and decides per line what to pass on.
 * The common/ rule: library code returns a status and never prints or
 * exits.  A failed write is kept (later writes are skipped) and comes back
 * from filter_next and filter_close, so that a stage reports every failure
 * of its stream in one place: die_stream (diag.h). */
#ifndef TR_FILTER_H
#define TR_FILTER_H

#include <stddef.h>

#include "core/io.h"
#include "stream/stream.h"
#include "core/teepass.h"
#include "core/writer.h"

/* Between pipes, lines passed go on without a copy (teepass.h); the
 * output bytes are the same either way. */
struct filter {
	struct stream_in in;
	struct writer out;
	struct teepass tee;
	const char *last;       /* the line filter_next returned last, or NULL */
	size_t last_len;
	uint64_t last_offset;   /* its stream offset */
	int write_errno;   /* errno of the first failed write, or 0 */
	int table_out;     /* 1: standard output is not a stream (a table), so
			    * no failed record goes there (stream.h) */
};

/* 0, or -1 when memory runs out.  The filter must stay where it is until
 * filter_close (its reader calls back into it). */
int filter_open(struct filter *f);
/* The next line and its kind (LINE_HEAD ... LINE_TAIL), LINE_END after the
 * tail, or LINE_ERROR: the stream is truncated or malformed (in.err says
 * how), or a write failed (write_errno).  Input that ended early, or the
 * failed record, first writes the failed record on standard output (not
 * with table_out). */
int filter_next(struct filter *f, const char **line, size_t *len);
/* Pass on a line just read by filter_next, with its newline, in one copy.
 * 0, or -1 once a write failed. */
int filter_pass(struct filter *f, const char *line, size_t len);
/* Write a line (a newline is added); 0, or -1 once a write failed. */
int filter_put(struct filter *f, const char *line, size_t len);
/* Flush and close standard output and free the filter; 0, or -1 when a
 * write failed (write_errno). */
int filter_close(struct filter *f);

#endif
