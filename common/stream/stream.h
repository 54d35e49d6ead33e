/* stream: the line-delimited event stream between tr-* programs (see
 * tr-stream(5)).  Event lines are JSON objects; control records are lines
 * that begin with the exact bytes {"@tr": and carry a kind; the first line
 * is the head record and the last the tail record.  A stream without its
 * tail is truncated and every stage refuses it.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_STREAM_H
#define TR_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/io.h"
#include "core/reader.h"

#define STREAM_CONTROL_PREFIX "{\"@tr\":"
#define STREAM_PREFIX_LEN 7
/* Every stage reads what tr-decode can write: events up to its largest
 * --max-event-bytes (1 GiB), and a little more for the records around
 * them.  The reader's buffer grows only as long lines need it. */
#define STREAM_DEFAULT_MAX_LINE (((size_t)1 << 30) + ((size_t)1 << 20))

/* 1 when the line is a control record. */
int stream_is_control(const char *line, size_t len);
/* 1 when the line is a control record of this kind ({"@tr":"KIND"...). */
int stream_is_kind(const char *line, size_t len, const char *kind);

enum stream_line {
	LINE_EVENT = 1,
	LINE_CONTROL,   /* any control record but head and tail */
	LINE_HEAD,
	LINE_TAIL,
	LINE_END = 0,   /* clean end after the tail */
	LINE_ERROR = -1 /* see stream_in.err */
};

/* The record a stage writes, as its last line, when its input stream ended
 * early or carried this record: an earlier stage failed and said why.  A
 * stage that reads it fails without a message of its own and passes it on,
 * so that a pipeline prints the first failure and at most one line about
 * its consequences. */
#define STREAM_FAILED_KIND "failed"
#define STREAM_FAILED_RECORD "{\"@tr\":\"failed\"}"

struct stream_in {
	struct reader r;
	int seen_head;
	int seen_tail;
	int cut;             /* LINE_ERROR: the input ended early (err says how) */
	int upstream_failed; /* LINE_ERROR: the failed record came (err is "") */
	uint64_t events;   /* event lines read */
	int read_errno;    /* with LINE_ERROR: the errno of a failed read (or
			    * ENOMEM), 0 when the stream itself is at fault */
	char err[200];
};

/* Reads standard input or fd; 0 or -1 (out of memory). */
int stream_in_init(struct stream_in *in, int fd, size_t max_line);
/* The next line, classified.  Enforces: head first, tail last, nothing
 * after the tail, no empty lines, the end only after the tail.  The failed
 * record, wherever it comes, is LINE_ERROR with upstream_failed set and an
 * empty err. */
int stream_next(struct stream_in *in, const char **line, size_t *len);
void stream_in_free(struct stream_in *in);

#endif
