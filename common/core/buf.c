#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

char buf_empty[1];

int buf_grow(struct buf *b, size_t n)
{
	size_t need, cap;
	char *p;

	if (n > SIZE_MAX - b->len - 1)
		return -1;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->cap ? b->p : NULL, cap);
	if (p == NULL)
		return -1;
	if (b->cap == 0)
		p[0] = '\0';
	b->p = p;
	b->cap = cap;
	return 0;
}

int buf_add(struct buf *b, const void *data, size_t n)
{
	if (buf_grow(b, n) != 0)
		return -1;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addch(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	/* Format into the room already there first: a sizing pass with a NULL
	 * buffer costs glibc a byte-by-byte copy of every %s. */
	if (b->cap < b->len + 64 && buf_grow(b, 64) != 0)
		return -1;
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->p[b->len] = '\0';
		return -1;
	}
	if ((size_t)n >= room) {
		if (buf_grow(b, (size_t)n) != 0) {
			b->p[b->len] = '\0';
			return -1;
		}
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
	return 0;
}

int buf_add_u64(struct buf *b, uint64_t v)
{
	char digits[24];
	size_t n = sizeof digits;

	do {
		digits[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return buf_add(b, digits + n, sizeof digits - n);
}

int buf_add_i64(struct buf *b, long long v)
{
	/* the magnitude as unsigned: -LLONG_MIN does not fit long long */
	if (v < 0)
		return buf_addch(b, '-') != 0 ? -1 : buf_add_u64(b, 0ull - (unsigned long long)v);
	return buf_add_u64(b, (uint64_t)v);
}

void buf_setlen(struct buf *b, size_t len)
{
	if (b->cap == 0)
		return;
	b->len = len;
	b->p[len] = '\0';
}

void buf_reset(struct buf *b)
{
	buf_setlen(b, 0);
}

void buf_release(struct buf *b)
{
	if (b->cap != 0)
		free(b->p);
	b->p = buf_empty;
	b->len = 0;
	b->cap = 0;
}

int buf_array_room(void **v, size_t n, size_t *cap, size_t first, size_t elem)
{
	size_t want;
	void *p;

	if (n < *cap)
		return 0;
	want = *cap ? *cap * 2 : first;
	if (*cap > SIZE_MAX / 2 || want == 0 || want > SIZE_MAX / elem)
		return -1;
	p = realloc(*v, want * elem);
	if (p == NULL)
		return -1;
	*v = p;
	*cap = want;
	return 0;
}

char *buf_memdup(const void *p, size_t n)
{
	char *copy;

	if (n == SIZE_MAX || (copy = malloc(n + 1)) == NULL)
		return NULL;
	memcpy(copy, p, n);
	copy[n] = '\0';
	return copy;
}
