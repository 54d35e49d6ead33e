/* textspill: see textspill.h.  Each text is its length (4 bytes, host
 * order) and its bytes; a spill writes every text held in memory, so a text
 * is wholly in the file or wholly in memory. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "core/textspill.h"

#define HEAD sizeof(uint32_t)

void textspill_init(struct textspill *t, size_t bound, const char *prefix)
{
	memset(t, 0, sizeof *t);
	t->prefix = prefix;
	t->bound = bound ? bound : 1;
	t->tail = (struct buf)BUF_INIT;
	t->block = (struct buf)BUF_INIT;
}

static int spill(struct textspill *t)
{
	if (!t->has_file) {
		if ((t->fd = io_open_spill(t->prefix, &t->dir)) < 0)
			return -1;
		t->has_file = 1;
	}
	if (io_write_all(t->fd, t->tail.p, t->tail.len) != 0)
		return -1;
	t->written += t->tail.len;
	buf_reset(&t->tail);
	return 0;
}

int textspill_put(struct textspill *t, const void *p, size_t n, uint64_t *at)
{
	uint32_t len = (uint32_t)n;

	if (n >= UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	*at = t->written + t->tail.len;
	if (buf_add(&t->tail, &len, HEAD) != 0 || buf_add(&t->tail, p, n) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return t->tail.len >= t->bound ? spill(t) : 0;
}

/* Bytes [at, at + n) of the file into the block, from at. */
static int load(struct textspill *t, uint64_t at, size_t n)
{
	size_t got = 0;

	buf_reset(&t->block);
	if (buf_grow(&t->block, n) != 0) {
		errno = ENOMEM;
		return -1;
	}
	while (got < n) {
		ssize_t r = pread(t->fd, t->block.p + got, n - got, (off_t)(at + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = EIO;
			return -1;
		}
		got += (size_t)r;
	}
	t->block.len = n;
	t->block_at = at;
	return 0;
}

/* Make the block hold [at, at + n) of the file. */
static int cover(struct textspill *t, uint64_t at, size_t n)
{
	uint64_t left = t->written - at;

	if (at >= t->block_at && at - t->block_at <= t->block.len &&
	    n <= t->block.len - (at - t->block_at))
		return 0;
	if (n > left) {
		errno = EINVAL;
		return -1;
	}
	return load(t, at, n > TEXTSPILL_BLOCK ? n : left < TEXTSPILL_BLOCK ? (size_t)left
									   : TEXTSPILL_BLOCK);
}

int textspill_get(struct textspill *t, uint64_t at, struct buf *out, uint64_t *next)
{
	const char *from;
	uint32_t len;

	if (at >= t->written) {
		size_t off = (size_t)(at - t->written);
		if (at - t->written > t->tail.len || t->tail.len - off < HEAD) {
			errno = EINVAL;
			return -1;
		}
		memcpy(&len, t->tail.p + off, HEAD);
		if (len > t->tail.len - off - HEAD) {
			errno = EINVAL;
			return -1;
		}
		from = t->tail.p + off + HEAD;
	} else {
		if (cover(t, at, HEAD) != 0)
			return -1;
		memcpy(&len, t->block.p + (at - t->block_at), HEAD);
		if (cover(t, at, HEAD + (size_t)len) != 0)
			return -1;
		from = t->block.p + (at - t->block_at) + HEAD;
	}
	buf_reset(out);
	if (buf_add(out, from, len) != 0) {
		errno = ENOMEM;
		return -1;
	}
	if (next != NULL)
		*next = at + HEAD + len;
	return 0;
}

int textspill_created(const struct textspill *t)
{
	return t->has_file;
}

void textspill_free(struct textspill *t)
{
	if (t->has_file)
		close(t->fd);
	t->has_file = 0;
	buf_release(&t->tail);
	buf_release(&t->block);
}
