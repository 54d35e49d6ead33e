/* gz: see gz.h.  The backend is GZ_ISAL (defined by the Makefile when it
 * found ISA-L) or zlib.  Everything above the raw deflate data -- the
 * gzip header, the trailer, member boundaries, what follows the last
 * member -- is read by the code below for both backends, so that both say
 * the same thing about the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gz/gz.h"

#ifdef GZ_ISAL
#include <isa-l.h>  /* igzip_lib.h, crc.h and the version */
#else
#include <zlib.h>
#endif

/* The messages for a damaged wrapper are zlib's own, as tr-decode gave
 * them when it read gzip through zlib alone. */
#define MSG_TRUNCATED  "truncated gzip data (unexpected end of file)"
#define MSG_GARBAGE    "trailing garbage after the gzip data"
#define MSG_NOT_GZIP   "not in gzip format"
#define MSG_METHOD     "unknown compression method"
#define MSG_FLAGS      "unknown header flags set"
#define MSG_HCRC       "header crc mismatch"
#define MSG_DATA_CRC   "incorrect data check"
#define MSG_LENGTH     "incorrect length check"
#define MSG_DEFLATE    "invalid compressed data in the gzip member that starts here"

/* header flags (RFC 1952) */
#define F_HCRC    0x02
#define F_EXTRA   0x04
#define F_NAME    0x08
#define F_COMMENT 0x10
#define F_RESERVED 0xe0

enum part {
	P_MAGIC1,   /* a member's first byte, or the end of the input */
	P_MAGIC2,
	P_METHOD,
	P_FLAGS,
	P_FIXED,    /* MTIME, XFL, OS: 6 bytes */
	P_XLEN,     /* 2 bytes */
	P_EXTRA,
	P_NAME,     /* up to a NUL */
	P_COMMENT,  /* up to a NUL */
	P_HCRC,     /* 2 bytes */
	P_BODY,     /* raw deflate data, for the backend */
	P_TRAILER,  /* CRC-32 and ISIZE: 8 bytes */
	P_FAILED
};

struct gz_in {
	enum part part;
	uint64_t pos;           /* offset of the next input byte */
	uint64_t member_start;
	uint64_t members;       /* members read whole */
	unsigned method, flags;
	uint32_t left;          /* bytes still to read of a fixed-size part */
	uint32_t field;         /* a little-endian field being assembled */
	uint32_t hcrc;          /* CRC-32 of the header bytes so far */
	uint32_t crc;           /* CRC-32 of the member's data */
	uint32_t isize;         /* the member's data length, mod 2^32 */
	/* Input the backend took but did not use: ISA-L reads up to 8 bytes
	 * past the end of the deflate data.  Read before the next input. */
	unsigned char back[16];
	size_t back_pos, back_len;
	char err[96];
	uint64_t err_offset;
	int fail_status;        /* returned again by every later call */
#ifdef GZ_ISAL
	struct inflate_state *st;
#else
	z_stream zs;
	int zs_ready;
#endif
};

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n)
{
#ifdef GZ_ISAL
	return crc32_gzip_refl(crc, p, n);
#else
	while (n > 0) {
		uInt chunk = n > (1u << 30) ? 1u << 30 : (uInt)n;
		crc = (uint32_t)crc32(crc, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return crc;
#endif
}

const char *gz_backend(void)
{
#ifdef GZ_ISAL
	static char name[32];
	if (name[0] == '\0')
		snprintf(name, sizeof name, "ISA-L %d.%d.%d", ISAL_MAJOR_VERSION,
			 ISAL_MINOR_VERSION, ISAL_PATCH_VERSION);
	return name;
#else
	static char name[32];
	if (name[0] == '\0')
		snprintf(name, sizeof name, "zlib %s", zlibVersion());
	return name;
#endif
}

static int bad(struct gz_in *z, uint64_t offset, const char *msg)
{
	snprintf(z->err, sizeof z->err, "%s", msg);
	z->err_offset = offset;
	z->part = P_FAILED;
	z->fail_status = GZ_BAD;
	return GZ_BAD;
}

static int failed(struct gz_in *z, int status, const char *msg)
{
	snprintf(z->err, sizeof z->err, "%s", msg);
	z->err_offset = z->pos;
	z->part = P_FAILED;
	z->fail_status = status;
	return status;
}

/* ---- the backends: raw deflate data of one member ---- */

#ifdef GZ_ISAL

static int body_init(struct gz_in *z)
{
	if (z->st == NULL) {
		z->st = malloc(sizeof *z->st);
		if (z->st == NULL)
			return GZ_NOMEM;
		isal_inflate_init(z->st);
	} else {
		isal_inflate_reset(z->st);
	}
	/* raw deflate; ISA-L keeps the CRC-32 of what it writes */
	z->st->crc_flag = ISAL_GZIP_NO_HDR;
	return GZ_OK;
}

/* *done: the deflate data ended; z->crc is its CRC-32 and the input ISA-L
 * read past its end is in z->back. */
static int body_inflate(struct gz_in *z, const unsigned char *in, size_t in_len,
			unsigned char *out, size_t out_cap, size_t *used, size_t *made, int *done)
{
	struct inflate_state *st = z->st;
	uint32_t in_n = in_len > UINT32_MAX ? UINT32_MAX : (uint32_t)in_len;
	uint32_t out_n = out_cap > UINT32_MAX ? UINT32_MAX : (uint32_t)out_cap;
	int rc;

	st->next_in = (uint8_t *)(uintptr_t)in;
	st->avail_in = in_n;
	st->next_out = out;
	st->avail_out = out_n;
	rc = isal_inflate(st);
	*used = in_n - st->avail_in;
	*made = out_n - st->avail_out;
	*done = 0;
	if (rc == ISAL_INVALID_BLOCK || rc == ISAL_INVALID_SYMBOL || rc == ISAL_INVALID_LOOKBACK)
		return GZ_BAD;
	if (rc != ISAL_DECOMP_OK)
		return GZ_FAIL;
	if (st->block_state == ISAL_BLOCK_FINISH) {
		int k = st->read_in_length / 8;
		int i;
		uint64_t bits = st->read_in >> (st->read_in_length % 8);
		/* the whole bytes it holds follow the deflate data */
		if (st->tmp_in_size != 0 || k < 0 || (size_t)k > sizeof z->back - z->back_len)
			return GZ_FAIL;
		for (i = 0; i < k; i++)
			z->back[z->back_len++] = (unsigned char)(bits >> (8 * i));
		z->crc = st->crc;
		*done = 1;
	}
	return GZ_OK;
}

static void body_free(struct gz_in *z)
{
	free(z->st);
}

#else

static int body_init(struct gz_in *z)
{
	if (!z->zs_ready) {
		int rc = inflateInit2(&z->zs, -MAX_WBITS);
		if (rc != Z_OK)
			return rc == Z_MEM_ERROR ? GZ_NOMEM : GZ_FAIL;
		z->zs_ready = 1;
	} else if (inflateReset(&z->zs) != Z_OK) {
		return GZ_FAIL;
	}
	z->crc = 0;
	return GZ_OK;
}

/* *done: the deflate data ended (zlib takes no byte past it). */
static int body_inflate(struct gz_in *z, const unsigned char *in, size_t in_len,
			unsigned char *out, size_t out_cap, size_t *used, size_t *made, int *done)
{
	uInt in_n = in_len > UINT32_MAX ? UINT32_MAX : (uInt)in_len;
	uInt out_n = out_cap > UINT32_MAX ? UINT32_MAX : (uInt)out_cap;
	int rc;

	z->zs.next_in = (Bytef *)(uintptr_t)in;
	z->zs.avail_in = in_n;
	z->zs.next_out = out;
	z->zs.avail_out = out_n;
	rc = inflate(&z->zs, Z_NO_FLUSH);
	*used = in_n - z->zs.avail_in;
	*made = out_n - z->zs.avail_out;
	*done = rc == Z_STREAM_END;
	if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT)
		return GZ_BAD;
	if (rc == Z_MEM_ERROR)
		return GZ_NOMEM;
	if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
		return GZ_FAIL;
	z->crc = crc_update(z->crc, out, *made);
	return GZ_OK;
}

static void body_free(struct gz_in *z)
{
	if (z->zs_ready)
		inflateEnd(&z->zs);
}

#endif

/* ---- the gzip wrapper, the same for both ---- */

struct gz_in *gz_in_new(void)
{
	return calloc(1, sizeof(struct gz_in));
}

void gz_in_free(struct gz_in *z)
{
	if (z == NULL)
		return;
	body_free(z);
	free(z);
}

const char *gz_in_error(const struct gz_in *z)
{
	return z->err;
}

uint64_t gz_in_error_offset(const struct gz_in *z)
{
	return z->err_offset;
}

/* The header part after the flags: the first optional field present
 * after `after`, else the body. */
static enum part next_header_part(const struct gz_in *z, enum part after)
{
	if (after < P_XLEN && (z->flags & F_EXTRA))
		return P_XLEN;
	if (after < P_NAME && (z->flags & F_NAME))
		return P_NAME;
	if (after < P_COMMENT && (z->flags & F_COMMENT))
		return P_COMMENT;
	if (after < P_HCRC && (z->flags & F_HCRC))
		return P_HCRC;
	return P_BODY;
}

static int start_part(struct gz_in *z, enum part p)
{
	z->part = p;
	z->field = 0;
	switch (p) {
	case P_FIXED: z->left = 6; break;
	case P_XLEN: case P_HCRC: z->left = 2; break;
	case P_TRAILER: z->left = 8; break;
	case P_BODY: {
		int rc = body_init(z);
		if (rc != GZ_OK)
			return failed(z, rc, rc == GZ_NOMEM ? "out of memory" :
				      "the gzip backend could not start");
		z->isize = 0;
		break;
	}
	default: break;
	}
	return GZ_OK;
}

/* Wrapper bytes: consume from p[0..n) what the current part takes.  Returns
 * the count taken (0 only at P_BODY) or -1 with the status in *status. */
static long wrapper_bytes(struct gz_in *z, const unsigned char *p, size_t n, int *status)
{
	size_t i = 0;

	while (i < n && z->part != P_BODY) {
		unsigned char c = p[i];
		size_t run;
		switch (z->part) {
		case P_MAGIC1:
			z->member_start = z->pos;
			if (c != 0x1f) {
				*status = bad(z, z->pos, z->members ? MSG_GARBAGE : MSG_NOT_GZIP);
				return -1;
			}
			z->hcrc = crc_update(0, &c, 1);
			z->part = P_MAGIC2;
			break;
		case P_MAGIC2:
			/* the offset names the member's first byte, as for any
			 * other bytes that are not a member */
			if (c != 0x8b) {
				*status = bad(z, z->member_start, z->members ? MSG_GARBAGE : MSG_NOT_GZIP);
				return -1;
			}
			z->hcrc = crc_update(z->hcrc, &c, 1);
			z->part = P_METHOD;
			break;
		case P_METHOD:
			z->method = c;
			z->hcrc = crc_update(z->hcrc, &c, 1);
			z->part = P_FLAGS;
			break;
		case P_FLAGS:
			z->flags = c;
			z->hcrc = crc_update(z->hcrc, &c, 1);
			/* zlib takes method and flags together, then checks */
			if (z->method != 8) {
				*status = bad(z, z->pos + 1, MSG_METHOD);
				return -1;
			}
			if (z->flags & F_RESERVED) {
				*status = bad(z, z->pos + 1, MSG_FLAGS);
				return -1;
			}
			(void)start_part(z, P_FIXED);
			break;
		case P_FIXED:
			z->hcrc = crc_update(z->hcrc, &c, 1);
			if (--z->left == 0 && (*status = start_part(z, next_header_part(z, P_FIXED))) != GZ_OK)
				return -1;
			break;
		case P_XLEN:
			z->hcrc = crc_update(z->hcrc, &c, 1);
			z->field |= (uint32_t)c << (8 * (2 - z->left));
			if (--z->left == 0) {
				z->left = z->field;
				z->part = P_EXTRA;
				if (z->left == 0 &&
				    (*status = start_part(z, next_header_part(z, P_EXTRA))) != GZ_OK)
					return -1;
			}
			break;
		case P_EXTRA:
			run = n - i < z->left ? n - i : z->left;
			z->hcrc = crc_update(z->hcrc, p + i, run);
			z->left -= (uint32_t)run;
			z->pos += run;
			i += run;
			if (z->left == 0 && (*status = start_part(z, next_header_part(z, P_EXTRA))) != GZ_OK)
				return -1;
			continue;
		case P_NAME:
		case P_COMMENT: {
			const unsigned char *nul = memchr(p + i, 0, n - i);
			run = nul ? (size_t)(nul - (p + i)) + 1 : n - i;
			z->hcrc = crc_update(z->hcrc, p + i, run);
			z->pos += run;
			i += run;
			if (nul && (*status = start_part(z, next_header_part(z, z->part))) != GZ_OK)
				return -1;
			continue;
		}
		case P_HCRC:
			z->field |= (uint32_t)c << (8 * (2 - z->left));
			if (--z->left == 0) {
				if (z->field != (z->hcrc & 0xffff)) {
					*status = bad(z, z->pos + 1, MSG_HCRC);
					return -1;
				}
				if ((*status = start_part(z, P_BODY)) != GZ_OK)
					return -1;
			}
			break;
		case P_TRAILER:
			z->field |= (uint32_t)c << (8 * ((8 - z->left) % 4));
			z->left--;
			if (z->left == 4) {
				if (z->field != z->crc) {
					*status = bad(z, z->pos + 1, MSG_DATA_CRC);
					return -1;
				}
				z->field = 0;
			} else if (z->left == 0) {
				if (z->field != z->isize) {
					*status = bad(z, z->pos + 1, MSG_LENGTH);
					return -1;
				}
				z->members++;
				z->part = P_MAGIC1;
			}
			break;
		case P_BODY:
		case P_FAILED:
			*status = GZ_FAIL;
			return -1;
		}
		z->pos++;
		i++;
	}
	return (long)i;
}

/* The body from p[0..n): returns GZ_OK with *used and *made set. */
static int body_bytes(struct gz_in *z, const unsigned char *p, size_t n,
		      unsigned char *out, size_t out_cap, size_t *used, size_t *made)
{
	int done, rc = body_inflate(z, p, n, out, out_cap, used, made, &done);

	if (rc == GZ_BAD)
		return bad(z, z->member_start, MSG_DEFLATE);
	if (rc != GZ_OK)
		return failed(z, rc, rc == GZ_NOMEM ? "out of memory" : "the gzip backend failed");
	z->pos += *used;
	z->isize += (uint32_t)*made;
	if (done) {
		/* what the backend read past the deflate data is read again */
		z->pos -= z->back_len - z->back_pos;
		(void)start_part(z, P_TRAILER);
	}
	return GZ_OK;
}

int gz_inflate(struct gz_in *z, const unsigned char *in, size_t in_len,
	       unsigned char *out, size_t out_cap, size_t *in_used, size_t *out_made)
{
	size_t ip = 0, op = 0;

	*in_used = *out_made = 0;
	if (z->part == P_FAILED)
		return z->fail_status;
	for (;;) {
		int from_back = z->back_pos < z->back_len;
		const unsigned char *p = from_back ? z->back + z->back_pos : in == NULL ? in : in + ip;
		size_t n = from_back ? z->back_len - z->back_pos : in_len - ip;
		size_t used, made = 0;
		int status = GZ_OK;

		if (z->part == P_BODY) {
			/* with no input left the backend may still hold output */
			if (op == out_cap)
				break;
			status = body_bytes(z, p, n, out + op, out_cap - op, &used, &made);
			if (status != GZ_OK)
				return status;
			op += made;
			if (used == 0 && made == 0 && z->part == P_BODY)
				break;
		} else {
			long took;
			if (n == 0)
				break;
			took = wrapper_bytes(z, p, n, &status);
			if (took < 0)
				return status;
			used = (size_t)took;
		}
		if (from_back) {
			z->back_pos += used;
			if (z->back_pos == z->back_len)
				z->back_pos = z->back_len = 0;
		} else {
			ip += used;
		}
	}
	*in_used = ip;
	*out_made = op;
	return GZ_OK;
}

int gz_inflate_end(struct gz_in *z)
{
	if (z->part == P_FAILED)
		return z->fail_status;
	if (z->back_pos < z->back_len)
		return failed(z, GZ_FAIL, "gz_inflate_end with input not yet read");
	if (z->part == P_MAGIC1 && z->members > 0)
		return GZ_END;
	/* a lone first byte of a would-be member is trailing garbage */
	if (z->part == P_MAGIC2 && z->members > 0)
		return bad(z, z->member_start, MSG_GARBAGE);
	return bad(z, z->pos, MSG_TRUNCATED);
}

/* ---- compression ---- */

#define OUT_BLOCK (1u << 20)  /* compressed bytes per put */
/* Callers write a line at a time; both backends, ISA-L most, cost much per
 * call on small input, so input is gathered into blocks of this size. */
#define IN_BLOCK (1u << 20)

struct gz_out {
	gz_put_fn put;
	void *ctx;
	unsigned char *buf;
	size_t fill;              /* compressed bytes in buf not yet put */
	unsigned char *in;
	size_t in_fill;           /* input bytes gathered in `in` */
	int failed;
	char err[96];
#ifdef GZ_ISAL
	struct isal_zstream zs;
	unsigned char *level_buf;
#else
	z_stream zs;
	int zs_ready;
#endif
};

static int put_block(struct gz_out *z)
{
	if (z->fill > 0 && z->put(z->ctx, z->buf, z->fill) != 0) {
		z->failed = GZ_WRITE;
		snprintf(z->err, sizeof z->err, "write failed");
		return GZ_WRITE;
	}
	z->fill = 0;
	return GZ_OK;
}

static int out_failed(struct gz_out *z, int status, const char *msg)
{
	z->failed = status;
	snprintf(z->err, sizeof z->err, "%s", msg);
	return status;
}

#ifdef GZ_ISAL

/* gzip's levels 1-9 onto ISA-L's 1-3 (0 is a static-table mode that
 * compresses JSON poorly): 1 stays the fastest, 2-5 the middle, 6-9 the
 * smallest.  See tr-encode(1) for measured sizes and times. */
static int out_init(struct gz_out *z, int level)
{
	static const uint32_t sizes[4] = { 0, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT,
					   ISAL_DEF_LVL3_DEFAULT };
	uint32_t isal_level = level <= 1 ? 1 : level <= 5 ? 2 : 3;

	isal_deflate_init(&z->zs);
	z->level_buf = malloc(sizes[isal_level]);
	if (z->level_buf == NULL)
		return GZ_NOMEM;
	z->zs.level = isal_level;
	z->zs.level_buf = z->level_buf;
	z->zs.level_buf_size = sizes[isal_level];
	z->zs.gzip_flag = IGZIP_GZIP;
	z->zs.flush = NO_FLUSH;
	return GZ_OK;
}

/* Compress in[0..n) (finish: and end the member). */
static int out_run(struct gz_out *z, const unsigned char *in, size_t n, int finish)
{
	for (;;) {
		uint32_t chunk = n > (1u << 30) ? 1u << 30 : (uint32_t)n;
		int rc;
		z->zs.next_in = (uint8_t *)(uintptr_t)in;
		z->zs.avail_in = chunk;
		z->zs.end_of_stream = finish && chunk == n;
		z->zs.next_out = z->buf + z->fill;
		z->zs.avail_out = (uint32_t)(OUT_BLOCK - z->fill);
		rc = isal_deflate(&z->zs);
		z->fill = OUT_BLOCK - z->zs.avail_out;
		if (rc != COMP_OK)
			return out_failed(z, GZ_FAIL, "ISA-L deflate failed");
		in += chunk - z->zs.avail_in;
		n -= chunk - z->zs.avail_in;
		if (z->fill == OUT_BLOCK && put_block(z) != GZ_OK)
			return GZ_WRITE;
		if (finish ? z->zs.internal_state.state == ZSTATE_END && n == 0 : n == 0)
			return GZ_OK;
	}
}

static void out_free(struct gz_out *z)
{
	free(z->level_buf);
}

#else

static int out_init(struct gz_out *z, int level)
{
	/* windowBits 15 + 16: a gzip wrapper, as gzip(1) writes it */
	int rc = deflateInit2(&z->zs, level, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY);
	if (rc != Z_OK)
		return rc == Z_MEM_ERROR ? GZ_NOMEM : GZ_FAIL;
	z->zs_ready = 1;
	return GZ_OK;
}

static int out_run(struct gz_out *z, const unsigned char *in, size_t n, int finish)
{
	for (;;) {
		uInt chunk = n > (1u << 30) ? 1u << 30 : (uInt)n;
		int last = finish && chunk == n;
		int rc;
		z->zs.next_in = (Bytef *)(uintptr_t)in;
		z->zs.avail_in = chunk;
		z->zs.next_out = z->buf + z->fill;
		z->zs.avail_out = (uInt)(OUT_BLOCK - z->fill);
		rc = deflate(&z->zs, last ? Z_FINISH : Z_NO_FLUSH);
		z->fill = OUT_BLOCK - z->zs.avail_out;
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
			return out_failed(z, GZ_FAIL, "zlib deflate failed");
		in += chunk - z->zs.avail_in;
		n -= chunk - z->zs.avail_in;
		if (z->fill == OUT_BLOCK && put_block(z) != GZ_OK)
			return GZ_WRITE;
		if (finish ? rc == Z_STREAM_END : n == 0 && z->fill < OUT_BLOCK)
			return GZ_OK;
	}
}

static void out_free(struct gz_out *z)
{
	if (z->zs_ready)
		deflateEnd(&z->zs);
}

#endif

struct gz_out *gz_out_new(int level, gz_put_fn put, void *ctx)
{
	struct gz_out *z = calloc(1, sizeof *z);

	if (z == NULL)
		return NULL;
	z->put = put;
	z->ctx = ctx;
	z->buf = malloc(OUT_BLOCK);
	z->in = malloc(IN_BLOCK);
	if (level < 1)
		level = 1;
	if (level > 9)
		level = 9;
	if (z->buf == NULL || z->in == NULL || out_init(z, level) != GZ_OK) {
		gz_out_free(z);
		return NULL;
	}
	return z;
}

int gz_write(struct gz_out *z, const void *data, size_t n)
{
	int rc;

	if (z->failed)
		return z->failed;
	if (z->in_fill + n <= IN_BLOCK) {
		if (n > 0)
			memcpy(z->in + z->in_fill, data, n);
		z->in_fill += n;
		return GZ_OK;
	}
	if (z->in_fill > 0) {
		rc = out_run(z, z->in, z->in_fill, 0);
		z->in_fill = 0;
		if (rc != GZ_OK)
			return rc;
	}
	if (n >= IN_BLOCK)
		return out_run(z, data, n, 0);
	memcpy(z->in, data, n);
	z->in_fill = n;
	return GZ_OK;
}

int gz_finish(struct gz_out *z)
{
	int rc;

	if (z->failed)
		return z->failed;
	rc = out_run(z, z->in, z->in_fill, 1);
	z->in_fill = 0;
	if (rc != GZ_OK)
		return rc;
	return put_block(z);
}

const char *gz_out_error(const struct gz_out *z)
{
	return z->err;
}

void gz_out_free(struct gz_out *z)
{
	if (z == NULL)
		return;
	out_free(z);
	free(z->buf);
	free(z->in);
	free(z);
}
