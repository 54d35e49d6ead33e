/* pb: see pb.h. */
#include <stdint.h>
#include <string.h>

#include "perfetto/pb.h"

size_t pb_put_varint(unsigned char *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (unsigned char)v;
	return n;
}

/* Room for n more bytes at the end of w's buffer (a NUL byte past them
 * as buf keeps one), or NULL: memory ran out, w is failed. */
static unsigned char *room(struct pb *w, size_t n)
{
	if (w->failed)
		return NULL;
	if (w->b.len + n >= w->b.cap && buf_grow(&w->b, n) != 0) {
		w->failed = 1;
		return NULL;
	}
	return (unsigned char *)w->b.p + w->b.len;
}

/* The n bytes written at room()'s pointer are now w's. */
static int taken(struct pb *w, size_t n)
{
	w->b.len += n;
	w->b.p[w->b.len] = '\0';
	return 0;
}

/* Every field is written in place: a key and a varint take at most 15
 * bytes, room() checks for them once, no copy goes through a scratch
 * array (the writer puts several fields for every args member). */
int pb_varint(struct pb *w, uint32_t field, uint64_t v)
{
	unsigned char *o = room(w, 15);
	size_t k;

	if (o == NULL)
		return -1;
	k = pb_put_varint(o, ((uint64_t)field << 3) | PB_VARINT);
	return taken(w, k + pb_put_varint(o + k, v));
}

int pb_int64(struct pb *w, uint32_t field, int64_t v)
{
	return pb_varint(w, field, (uint64_t)v);
}

int pb_fixed64(struct pb *w, uint32_t field, uint64_t v)
{
	unsigned char *o = room(w, 13);
	size_t k, i;

	if (o == NULL)
		return -1;
	k = pb_put_varint(o, ((uint64_t)field << 3) | PB_I64);
	for (i = 0; i < 8; i++)
		o[k + i] = (unsigned char)(v >> (8 * i));
	return taken(w, k + 8);
}

int pb_double(struct pb *w, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	return pb_fixed64(w, field, bits);
}

int pb_bytes(struct pb *w, uint32_t field, const void *p, size_t n)
{
	unsigned char *o;
	size_t k;

	if (n > SIZE_MAX - 16 || (o = room(w, 15 + n)) == NULL)
		return -1;
	k = pb_put_varint(o, ((uint64_t)field << 3) | PB_LEN);
	k += pb_put_varint(o + k, n);
	memcpy(o + k, p, n);
	return taken(w, k + n);
}

/* One byte is kept for the length, which most messages here (an args
 * member, a track event) fit; pb_end moves a longer message up by the
 * bytes its length takes beyond that one. */
static int begin(struct pb *w, uint32_t field, size_t kept)
{
	unsigned char *o;
	size_t k;

	if (w->depth == PB_MAX_DEPTH) {
		w->failed = 1;
		return -1;
	}
	if ((o = room(w, 7)) == NULL)
		return -1;
	k = pb_put_varint(o, ((uint64_t)field << 3) | PB_LEN);
	memset(o + k, 0, kept);
	taken(w, k + kept);
	w->kept[w->depth] = (unsigned char)kept;
	w->open[w->depth++] = w->b.len;
	return 0;
}

int pb_begin(struct pb *w, uint32_t field)
{
	return begin(w, field, 1);
}

int pb_begin_large(struct pb *w, uint32_t field)
{
	return begin(w, field, 2);
}

int pb_end(struct pb *w)
{
	unsigned char tmp[10];
	size_t start, len, k, kept;

	if (w->failed || w->depth == 0) {
		w->failed = 1;
		return -1;
	}
	start = w->open[--w->depth];
	kept = w->kept[w->depth];
	len = w->b.len - start;
	k = pb_put_varint(tmp, len);
	if (k > kept && buf_grow(&w->b, k - kept) != 0) {
		w->failed = 1;
		return -1;
	}
	if (k != kept)
		memmove(w->b.p + start - kept + k, w->b.p + start, len);
	memcpy(w->b.p + start - kept, tmp, k);
	buf_setlen(&w->b, w->b.len - kept + k);
	return 0;
}

int pb_failed(const struct pb *w)
{
	return w->failed;
}

void pb_reset(struct pb *w)
{
	buf_reset(&w->b);
	w->depth = 0;
	w->failed = 0;
}

void pb_release(struct pb *w)
{
	buf_release(&w->b);
	w->depth = 0;
	w->failed = 0;
}

int pb_read_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	const unsigned char *q = *p;
	uint64_t r = 0;
	unsigned shift = 0;

	while (q < end && shift < 64) {
		unsigned char c = *q++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			*p = q;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

int pb_next(const unsigned char **p, const unsigned char *end, struct pb_field *f)
{
	const unsigned char *q = *p;
	uint64_t key, len;
	int i;

	if (q >= end)
		return 0;
	if (pb_read_varint(&q, end, &key) != 0 || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -1;
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	switch (f->wire) {
	case PB_VARINT:
		if (pb_read_varint(&q, end, &f->v) != 0)
			return -1;
		break;
	case PB_I64:
	case PB_I32: {
		int n = f->wire == PB_I64 ? 8 : 4;
		if (end - q < n)
			return -1;
		for (i = 0; i < n; i++)
			f->v |= (uint64_t)q[i] << (8 * i);
		q += n;
		break;
	}
	case PB_LEN:
		if (pb_read_varint(&q, end, &len) != 0 || len > (uint64_t)(end - q))
			return -1;
		f->data = q;
		f->len = (size_t)len;
		q += len;
		break;
	default:
		return -1;
	}
	*p = q;
	return 1;
}

double pb_as_double(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof d);
	return d;
}
