/* decode_file: decode one stored trace (a path, or "-" for standard input)
 * into the event stream on a file descriptor, with the tail's size and
 * SHA-256 of the stored bytes.  tr-decode is this plus option parsing;
 * tr-verify runs it in threads, into queues (blockq.h).
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_DECODE_FILE_H
#define TR_DECODE_FILE_H

#include <stddef.h>

#include "stream/decode.h"

enum { DECODE_OPEN = 5 };  /* the path could not be opened; errno is set */

struct decode_file_result {
	int status;        /* DECODE_OK, DECODE_INPUT, DECODE_READ, ... */
	int input_fault;   /* with DECODE_READ: damaged gzip (1) or an I/O error (0) */
	char msg[300];     /* what went wrong, for DECODE_INPUT and DECODE_READ */
};

void decode_file(const char *path, int out_fd, size_t max_event, const char *tool,
		 struct decode_file_result *result);
/* The same, recording the source in the head record as RECORDED (tr-decode
 * records the base name unless asked for the path), with a bound on the
 * top-level members on each side of traceEvents (struct decode's
 * max_members; decode_file uses DECODE_DEFAULT_MAX_MEMBERS), telling the
 * meter (progress.h; NULL: none) the stored bytes read, in its phase. */
struct progress;
void decode_file_as(const char *path, const char *recorded, int out_fd, size_t max_event,
		    size_t max_members, const char *tool, struct decode_file_result *result,
		    struct progress *meter);

/* The same (the path recorded as given) into a queue read by another
 * thread; the queue is not closed here. */
struct blockq;
void decode_file_to_queue(const char *path, struct blockq *q, size_t max_event,
			  size_t max_members, const char *tool, struct decode_file_result *result,
			  struct progress *meter);

#endif
