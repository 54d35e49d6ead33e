#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "core/blockq.h"
#include "core/reader.h"

int reader_init(struct reader *r, int fd, size_t max_line)
{
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->max_line = max_line;
	r->cap = IO_BLOCK;
	r->buf = malloc(r->cap);
	if (r->buf == NULL)
		return -1;
	io_grow_pipe(fd);
	return 0;
}

void reader_free(struct reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

void reader_trim(struct reader *r)
{
	size_t unread = r->end - r->start;
	char *p;

	if (r->cap <= IO_BLOCK || unread > IO_BLOCK)
		return;
	memmove(r->buf, r->buf + r->start, unread);
	r->start = 0;
	r->end = unread;
	p = realloc(r->buf, IO_BLOCK);
	if (p != NULL) {
		r->buf = p;
		r->cap = IO_BLOCK;
	}
}

/* Move the unread bytes to the front and read more after them, growing the
 * buffer when a single line fills it. */
static int reader_fill(struct reader *r)
{
	long got;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap) {
		size_t cap = r->cap * 2;
		char *p;
		/* Only reached while the pending line is at most max_line long. */
		p = realloc(r->buf, cap);
		if (p == NULL)
			return READ_NOMEM;
		r->buf = p;
		r->cap = cap;
	}
	if (r->fill != NULL)
		got = r->fill(r->fill_ctx, r->buf + r->end, r->cap - r->end);
	else
		got = io_read_some(r->fd, r->buf + r->end, r->cap - r->end);
	if (got < 0)
		return READ_ERROR;
	if (got == 0)
		r->eof = 1;
	r->end += (size_t)got;
	return 0;
}

void reader_use_blocks(struct reader *r, size_t (*peek)(void *ctx, const char **data),
		       void (*advance)(void *ctx, size_t n), void *blocks)
{
	r->peek = peek;
	r->advance = advance;
	r->blocks = blocks;
}

/* Append n bytes to the line being put together in buf[0, end). */
static int carry(struct reader *r, const char *p, size_t n)
{
	if (n > r->cap - r->end) {
		size_t cap = r->cap;
		char *grown;
		while (n > cap - r->end)
			cap *= 2;
		if ((grown = realloc(r->buf, cap)) == NULL)
			return READ_NOMEM;
		r->buf = grown;
		r->cap = cap;
	}
	memcpy(r->buf + r->end, p, n);
	r->end += n;
	return 0;
}

static int line_from_blocks(struct reader *r, const char **line, size_t *len)
{
	/* a line put together last time is done with (at the end, an
	 * unfinished one stays: READ_PARTIAL again) */
	if (!r->eof)
		r->start = r->end = 0;
	for (;;) {
		const char *from, *nl;
		size_t avail, n;
		int rc;

		if (r->block_at == r->block_len) {
			if (r->block_len > 0)
				r->advance(r->blocks, r->block_len);
			r->block_len = r->block_at = 0;
			if (!r->eof && (r->block_len = r->peek(r->blocks, &r->block)) == 0)
				r->eof = 1;
			if (r->eof)
				return r->end == 0 ? READ_EOF : READ_PARTIAL;
		}
		from = r->block + r->block_at;
		avail = r->block_len - r->block_at;
		nl = memchr(from, '\n', avail);
		n = nl != NULL ? (size_t)(nl - from) : avail;
		if (r->end + n > r->max_line)
			return READ_TOO_LONG;
		if (nl == NULL || r->end > 0) {
			if ((rc = carry(r, from, n)) != 0)
				return rc;
			r->block_at += n;
			if (nl == NULL)
				continue;
			*line = r->buf;
			*len = r->end;
		} else {
			*line = from;
			*len = n;
			r->block_at += n;
		}
		r->block_at++;  /* the newline */
		r->offset += *len + 1;
		r->lineno++;
		return READ_LINE;
	}
}

int reader_line(struct reader *r, const char **line, size_t *len)
{
	size_t scanned = 0;

	if (r->peek != NULL)
		return line_from_blocks(r, line, len);

	for (;;) {
		char *from = r->buf + r->start + scanned;
		char *nl = memchr(from, '\n', r->end - r->start - scanned);
		if (nl != NULL) {
			size_t n = (size_t)(nl - (r->buf + r->start));
			if (n > r->max_line)
				return READ_TOO_LONG;
			*line = r->buf + r->start;
			*len = n;
			r->start += n + 1;
			r->offset += n + 1;
			r->lineno++;
			return READ_LINE;
		}
		scanned = r->end - r->start;
		if (scanned > r->max_line)
			return READ_TOO_LONG;
		if (r->eof)
			return scanned == 0 ? READ_EOF : READ_PARTIAL;
		{
			int rc = reader_fill(r);
			if (rc != 0)
				return rc;
		}
	}
}

static size_t blockq_peek_any(void *q, const char **data)
{
	return blockq_peek(q, data);
}

static void blockq_advance_any(void *q, size_t n)
{
	blockq_advance(q, n);
}

void reader_use_blockq(struct reader *r, struct blockq *q)
{
	reader_use_blocks(r, blockq_peek_any, blockq_advance_any, q);
}
