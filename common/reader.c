#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

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

int reader_line(struct reader *r, const char **line, size_t *len)
{
	size_t scanned = 0;

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
