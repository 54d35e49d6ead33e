/* filter: the skeleton every stream stage shares: read the stream on
 * standard input, write it on standard output, die with the stage's name on
 * a truncated or malformed stream.  A stage calls filter_next in a loop and
 * decides per line what to pass on.
 * Program-side, like diag.c: the one other module of common/ that prints
 * and exits (the common/ rule binds every other module). */
#ifndef TR_FILTER_H
#define TR_FILTER_H

#include <stddef.h>

#include "io.h"
#include "json.h"
#include "stream.h"

struct filter {
	struct stream_in in;
	struct writer out;
};

void filter_open(struct filter *f);
/* The next line and its kind (LINE_HEAD ... LINE_TAIL), or LINE_END after
 * the tail; dies with EXIT_INPUT on a truncated or malformed stream. */
int filter_next(struct filter *f, const char **line, size_t *len);
/* Pass on a line just read by filter_next, with its newline, in one copy. */
void filter_pass(struct filter *f, const char *line, size_t len);
/* Write a line (a newline is added). */
void filter_put(struct filter *f, const char *line, size_t len);
/* A NUL-terminated copy of token tok's raw text, or NULL when tok < 0
 * (a member that is absent); dies when memory runs out. */
char *raw_copy(const struct jdoc *d, int tok);
/* The source name a head record carries (unescaped, malloc'd), or NULL
 * when it has none; dies on a malformed head.  d is scratch space. */
char *head_source_name(struct jdoc *d, const char *line, size_t len);
/* A stage's spill file (io_open_spill, named after the stage); dies with
 * EXIT_TROUBLE when it cannot be made. */
int filter_open_spill(const char *stage);
/* Flush and close standard output; dies on a write error. */
void filter_close(struct filter *f);

#endif
