/* pb: see pb.h. */
#include <string.h>

#include "pb.h"

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

static int put_raw(struct pb *w, const void *p, size_t n)
{
	if (w->failed || buf_add(&w->b, p, n) != 0) {
		w->failed = 1;
		return -1;
	}
	return 0;
}

static int put_key(struct pb *w, uint32_t field, int wire, const void *tail, size_t tn)
{
	unsigned char tmp[24];
	size_t n = pb_put_varint(tmp, ((uint64_t)field << 3) | (unsigned)wire);

	memcpy(tmp + n, tail, tn);
	return put_raw(w, tmp, n + tn);
}

int pb_varint(struct pb *w, uint32_t field, uint64_t v)
{
	unsigned char tmp[10];
	size_t k = pb_put_varint(tmp, v);

	return put_key(w, field, PB_VARINT, tmp, k);
}

int pb_int64(struct pb *w, uint32_t field, int64_t v)
{
	return pb_varint(w, field, (uint64_t)v);
}

int pb_fixed64(struct pb *w, uint32_t field, uint64_t v)
{
	unsigned char tmp[8];
	int i;

	for (i = 0; i < 8; i++)
		tmp[i] = (unsigned char)(v >> (8 * i));
	return put_key(w, field, PB_I64, tmp, 8);
}

int pb_double(struct pb *w, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	return pb_fixed64(w, field, bits);
}

int pb_bytes(struct pb *w, uint32_t field, const void *p, size_t n)
{
	unsigned char tmp[10];
	size_t k = pb_put_varint(tmp, n);

	if (put_key(w, field, PB_LEN, tmp, k) != 0)
		return -1;
	return put_raw(w, p, n);
}

/* One byte is kept for the length, which most messages here (an args
 * member, a track event) fit; pb_end moves a longer message up by the
 * bytes its length takes beyond that one. */
static int begin(struct pb *w, uint32_t field, size_t kept)
{
	unsigned char tmp[2] = { 0, 0 };

	if (w->depth == PB_MAX_DEPTH) {
		w->failed = 1;
		return -1;
	}
	if (put_key(w, field, PB_LEN, tmp, kept) != 0)
		return -1;
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
