/* encsink: where tr-encode's trace bytes go: a buffered writer, through a
 * gzip stream for a .gz output, deflated by a thread of its own
 * (gzasync.h): checking and laying out the events, and deflating them, take
 * about the same time, and the stages before tr-encode are done while most
 * of it is still to come.  Plain output is written by the thread that reads
 * the stream: on the bench's VM a write(2) into the page cache from another
 * CPU cost five times the system time (the pages the pipe's reads free are
 * reused on their CPU).  Also the choice of format by the output's name.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_ENCSINK_H
#define TR_ENCSINK_H

#include <stddef.h>

#include "gzasync.h"
#include "writer.h"

enum encsink_status { ENCSINK_OK = 0, ENCSINK_WRITE = -1, ENCSINK_NOMEM = -2,
		      ENCSINK_GZIP = -3, ENCSINK_THREAD = -4 };

struct encsink {
	struct writer w;
	struct gzasync gz;
	int gzip;
};

/* 0 or a status; with gzip, a compressor thread runs until finish or stop. */
int encsink_open(struct encsink *s, int fd, int gzip, int level);
int encsink_put(struct encsink *s, const void *data, size_t n);
/* The gzip member ended, everything flushed. */
int encsink_finish(struct encsink *s);
/* A compressor still running stops (before the process exits). */
void encsink_stop(struct encsink *s);
/* What an ENCSINK_GZIP was. */
const char *encsink_error(const struct encsink *s);
void encsink_free(struct encsink *s);

enum encsink_format { ENCSINK_JSON = 0, ENCSINK_PERFETTO = 1 };
/* The format a name asks for: .pftrace and .pftrace.gz are Perfetto's
 * protobuf, anything else Chrome JSON. */
int encsink_format_of(const char *name);
/* 1 when name ends in .gz. */
int encsink_is_gz(const char *name);

#endif
