/* textspill: short texts kept until the end of a stream (tr-select-anchors
 * keeps the ts and dur texts of every matching kernel), appended one after
 * another and read back by the offset that textspill_put returned.  They
 * are held in memory up to a bound; past it they go to an unlinked
 * temporary file (io_open_spill, created at the first spill) and are read
 * back through a small cache of one block, which serves texts read in about
 * the order they were put with one read per block.
 *
 * Memory: the bound, plus one block (or one text, when longer), whatever
 * the number of texts.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  Functions return 0, or -1 with errno set (ENOMEM; the temporary
 * file's errno on creation (then textspill_created is 0), write or read;
 * EIO for a short read; EINVAL for a text of 4 GiB or more or an offset that
 * put never returned). */
#ifndef TR_TEXTSPILL_H
#define TR_TEXTSPILL_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#define TEXTSPILL_BOUND ((size_t)1 << 20)  /* bytes held in memory by default */
#define TEXTSPILL_BLOCK ((size_t)4 << 10)  /* bytes read back at a time */

struct textspill {
	const char *prefix;     /* the temporary file's name */
	const char *dir;        /* where it was created or tried */
	size_t bound;
	int fd, has_file;       /* the file, from the first spill */
	uint64_t written;       /* bytes in the file */
	struct buf tail;        /* the texts put since, from offset written */
	struct buf block;       /* bytes read back from the file ... */
	uint64_t block_at;      /* ... from this offset */
};

/* bound: bytes held in memory before the file is used (at least 1);
 * prefix: the temporary file's name (io_open_spill). */
void textspill_init(struct textspill *t, size_t bound, const char *prefix);
/* Keep n bytes; *at: where they are, for textspill_get. */
int textspill_put(struct textspill *t, const void *p, size_t n, uint64_t *at);
/* The text kept at at, in place of out's contents; *next (unless NULL):
 * where the text put after it lies. */
int textspill_get(struct textspill *t, uint64_t at, struct buf *out, uint64_t *next);
/* 1 once the temporary file exists (a failure to create it leaves 0). */
int textspill_created(const struct textspill *t);
void textspill_free(struct textspill *t);

#endif
