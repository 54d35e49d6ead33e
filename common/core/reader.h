/* reader: block-wise line reading on a file descriptor: IO_BLOCK bytes per
 * read(2), memchr for line ends, a line handed out in place (no copy).
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_READER_H
#define TR_READER_H

#include <stddef.h>
#include <stdint.h>

struct reader {
	int fd;
	char *buf;
	size_t cap;        /* allocated bytes at buf */
	size_t start, end; /* unread bytes are buf[start..end) */
	size_t max_line;   /* longest accepted line, excluding '\n' */
	uint64_t offset;   /* stream offset of buf[start] */
	uint64_t lineno;   /* lines returned so far */
	int eof;
	/* reads in place of read(2) when set (the filter's shadow pipe,
	 * teepass.h): bytes read, 0 at the end, -1 with errno */
	long (*fill)(void *ctx, void *dst, size_t n);
	void *fill_ctx;
	/* lines read in place from another thread's blocks when set
	 * (reader_use_blocks) */
	size_t (*peek)(void *ctx, const char **data);
	void (*advance)(void *ctx, size_t n);
	void *blocks;
	const char *block;       /* the block lines are handed out from */
	size_t block_len, block_at;
};

enum reader_status {
	READ_LINE = 1,      /* line and len hold a line without its '\n' */
	READ_EOF = 0,       /* clean end of input */
	READ_ERROR = -1,    /* read(2) failed; errno is set */
	READ_TOO_LONG = -2, /* a line longer than max_line */
	READ_PARTIAL = -3,  /* input ended inside a line (no final '\n') */
	READ_NOMEM = -4
};

int reader_init(struct reader *r, int fd, size_t max_line);
/* The line stays valid until the next call. */
int reader_line(struct reader *r, const char **line, size_t *len);
void reader_free(struct reader *r);
/* Read from the blocks of a queue (blockq.h) instead of fd: peek gives
 * the unread bytes of the first block, waiting for one (0 at the end);
 * advance gives back n of them.  A line inside a block is handed out
 * where it lies (the block is given back once the next line is asked
 * for past it); a line across blocks is put together in the reader's own
 * buffer.  The same statuses as from fd, READ_ERROR apart. */
void reader_use_blocks(struct reader *r, size_t (*peek)(void *ctx, const char **data),
		       void (*advance)(void *ctx, size_t n), void *blocks);
/* reader_use_blocks on q's own blockq_peek and blockq_advance. */
struct blockq;
void reader_use_blockq(struct reader *r, struct blockq *q);
/* Give back what one long line made the buffer grow to, keeping the unread
 * bytes (for a stage that holds a reader across a long computation). */
void reader_trim(struct reader *r);

#endif
