/* windowspan: see windowspan.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "window/windowspan.h"

int windowspan_init(struct windowspan *s, int fd)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
	if ((s->buf = malloc(WINDOWSPAN_BLOCK)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static inline size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static int flush(struct windowspan *s)
{
	if (io_write_all(s->fd, s->buf, s->have) != 0)
		return -1;
	s->have = 0;
	return 0;
}

int windowspan_put(struct windowspan *s, int64_t lo, int64_t hi, uint32_t bytes)
{
	uint64_t d = (uint64_t)lo - s->last;   /* wraps: any two lo */
	/* zigzag: a small step back is a small number too */
	uint64_t z = (d << 1) ^ (0 - (d >> 63));
	unsigned char *rec;

	if (WINDOWSPAN_BLOCK - s->have < WINDOWSPAN_MAX && flush(s) != 0)
		return -1;
	rec = s->buf + s->have;
	s->have += put_varint(rec, z);
	s->have += put_varint(s->buf + s->have, (uint64_t)hi - (uint64_t)lo);
	s->have += put_varint(s->buf + s->have, bytes);
	s->last = (uint64_t)lo;
	s->n++;
	return 0;
}

int windowspan_finish(struct windowspan *s)
{
	return flush(s);
}

int windowspan_rewind(struct windowspan *s)
{
	s->have = s->at = 0;
	s->eof = 0;
	s->last = 0;
	return lseek(s->fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

/* At least WINDOWSPAN_MAX unread bytes in the block, or all that is left. */
static int fill(struct windowspan *s)
{
	while (!s->eof && s->have - s->at < WINDOWSPAN_MAX) {
		long got;
		memmove(s->buf, s->buf + s->at, s->have - s->at);
		s->have -= s->at;
		s->at = 0;
		got = io_read_some(s->fd, s->buf + s->have, WINDOWSPAN_BLOCK - s->have);
		if (got < 0)
			return -1;
		if (got == 0)
			s->eof = 1;
		s->have += (size_t)got;
	}
	return 0;
}

/* A varint at s->at (fill has run); 0, or -1 when the bytes end inside it
 * or it runs past 64 bits. */
static inline int get_varint(struct windowspan *s, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;

	if (s->at < s->have && s->buf[s->at] < 0x80) {
		*v = s->buf[s->at++];
		return 0;
	}
	while (s->at < s->have && shift < 64) {
		unsigned char b = s->buf[s->at++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

int windowspan_next(struct windowspan *s, int64_t *lo, int64_t *hi, uint32_t *bytes)
{
	uint64_t z, w, b;

	if (s->have - s->at < WINDOWSPAN_MAX && fill(s) != 0)
		return -1;
	if (s->at == s->have)
		return 0;
	if (get_varint(s, &z) != 0 || get_varint(s, &w) != 0 || get_varint(s, &b) != 0 ||
	    b > UINT32_MAX) {
		errno = EIO;
		return -1;
	}
	s->last += (z >> 1) ^ (0 - (z & 1));
	*lo = (int64_t)s->last;
	*hi = (int64_t)(s->last + w);
	*bytes = (uint32_t)b;
	return 1;
}

void windowspan_free(struct windowspan *s)
{
	free(s->buf);
	s->buf = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
