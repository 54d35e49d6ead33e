/* Unit tests for common/gz/gz.c.  Every expected status, message and offset
 * here is fixed by the bytes of the input, not by the backend: `make check`
 * runs this runner built with ISA-L (when installed) and again built with
 * zlib (build-zlib/), so passing both is the proof that the two backends
 * agree.  Covered: round trips at every level, fed in pieces of every
 * size; concatenated members; headers with every optional field, checked
 * against a CRC-32 computed here; truncation at every offset of a small
 * two-member stream, fed whole and byte by byte; damage to each part. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gz/gz.h"

#define MSG_TRUNCATED "truncated gzip data (unexpected end of file)"
#define MSG_GARBAGE   "trailing garbage after the gzip data"
#define MSG_DEFLATE   "invalid compressed data in the gzip member that starts here"

/* ---- helpers ---- */

struct bytes {
	unsigned char *p;
	size_t len, cap;
};

static void add(struct bytes *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		ck_assert_ptr_nonnull(b->p);
	}
	if (n > 0)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

static int collect(void *ctx, const void *data, size_t n)
{
	add(ctx, data, n);
	return 0;
}

/* CRC-32 of RFC 1952, bit by bit: an oracle independent of both backends. */
static uint32_t crc32_ref(uint32_t crc, const unsigned char *p, size_t n)
{
	size_t i;
	int k;

	crc = ~crc;
	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static struct bytes compress(const unsigned char *data, size_t n, int level, size_t piece)
{
	struct bytes out = { NULL, 0, 0 };
	struct gz_out *z = gz_out_new(level, collect, &out);
	size_t i;

	ck_assert_ptr_nonnull(z);
	for (i = 0; i < n; i += piece)
		ck_assert_int_eq(gz_write(z, data + i, n - i < piece ? n - i : piece), GZ_OK);
	ck_assert_int_eq(gz_finish(z), GZ_OK);
	gz_out_free(z);
	return out;
}

struct result {
	int status;           /* GZ_END or the failing status */
	struct bytes data;
	const char *msg;      /* static copy of the message */
	uint64_t offset;
};

/* Decompress, giving the input in pieces of in_piece bytes and room for
 * out_piece bytes per call, then the end of the input. */
static struct result inflate_all(const unsigned char *in, size_t n, size_t in_piece,
				 size_t out_piece)
{
	static char msg[128];
	struct result r;
	struct gz_in *z = gz_in_new();
	unsigned char *out = malloc(out_piece);
	size_t pos = 0;
	int rc = GZ_OK;

	memset(&r, 0, sizeof r);
	ck_assert_ptr_nonnull(z);
	ck_assert_ptr_nonnull(out);
	for (;;) {
		size_t avail = n - pos < in_piece ? n - pos : in_piece;
		size_t used = 0, made = 0;
		rc = gz_inflate(z, in + pos, avail, out, out_piece, &used, &made);
		ck_assert_uint_le(used, avail);
		ck_assert_uint_le(made, out_piece);
		pos += used;
		if (rc != GZ_OK)
			break;
		add(&r.data, out, made);
		if (pos == n && made == 0) {
			rc = gz_inflate_end(z);
			break;
		}
		/* progress: input taken, or output made */
		ck_assert(used > 0 || made > 0);
	}
	r.status = rc;
	snprintf(msg, sizeof msg, "%s", rc == GZ_END ? "" : gz_in_error(z));
	r.msg = msg;
	r.offset = rc == GZ_END ? 0 : gz_in_error_offset(z);
	gz_in_free(z);
	free(out);
	return r;
}

/* Text that compresses like a trace (JSON with repeats), then a block of
 * pseudo-random bytes that does not compress (stored blocks). */
static struct bytes sample(size_t n_json, size_t n_random)
{
	struct bytes b = { NULL, 0, 0 };
	uint32_t x = 12345;
	size_t i;

	for (i = 0; b.len < n_json; i++) {
		char line[160];
		int len = snprintf(line, sizeof line,
				   "{\"ph\":\"X\",\"name\":\"kernel_%zu\",\"ts\":%zu.%03zu,\"dur\":%zu,"
				   "\"pid\":0,\"tid\":%zu},\n", i % 37, 1000 + i * 7, i % 1000,
				   i % 91, i % 5);
		add(&b, line, (size_t)len);
	}
	b.len = n_json;
	for (i = 0; i < n_random; i++) {
		unsigned char c;
		x = x * 1103515245u + 12345u;
		c = (unsigned char)(x >> 24);
		add(&b, &c, 1);
	}
	return b;
}

static void check_same(const struct result *r, const struct bytes *want)
{
	ck_assert_msg(r->status == GZ_END, "status %d: %s at %llu", r->status, r->msg,
		      (unsigned long long)r->offset);
	ck_assert_uint_eq(r->data.len, want->len);
	ck_assert(want->len == 0 || memcmp(r->data.p, want->p, want->len) == 0);
}

static void check_bad(const struct result *r, const char *msg, uint64_t offset)
{
	ck_assert_int_eq(r->status, GZ_BAD);
	ck_assert_str_eq(r->msg, msg);
	ck_assert_uint_eq(r->offset, offset);
}

/* A member made by hand around a compressed body: flags, extra, name,
 * comment, header CRC (crc_ok 0: a wrong one). */
static struct bytes member_with_header(const struct bytes *gz, unsigned flags, int crc_ok)
{
	static const unsigned char extra[] = { 'A', 'p', 4, 0, 1, 2, 3, 4 };
	struct bytes m = { NULL, 0, 0 };
	unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0x44, 0x33, 0x22, 0x11, 0, 3 };

	/* the backends write a plain 10-byte header */
	ck_assert_uint_eq(gz->p[3], 0);
	head[3] = (unsigned char)flags;
	add(&m, head, sizeof head);
	if (flags & 0x04) {
		unsigned char xlen[2] = { sizeof extra, 0 };
		add(&m, xlen, 2);
		add(&m, extra, sizeof extra);
	}
	if (flags & 0x08)
		add(&m, "trace.json", 11);
	if (flags & 0x10)
		add(&m, "a comment", 10);
	if (flags & 0x02) {
		uint32_t c = crc32_ref(0, m.p, m.len) ^ (crc_ok ? 0 : 1);
		unsigned char hc[2] = { (unsigned char)c, (unsigned char)(c >> 8) };
		add(&m, hc, 2);
	}
	add(&m, gz->p + 10, gz->len - 10);
	return m;
}

/* A member made by hand, no compressor involved: a stored block of `a`
 * (final when b is NULL), then the final block: b stored, or (b_fixed) an
 * empty block with the fixed code. */
static struct bytes stored_member(const char *a, const char *b, int b_fixed)
{
	static const unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	struct bytes m = { NULL, 0, 0 }, data = { NULL, 0, 0 };
	const char *blocks[2] = { a, b };
	int i, last = b == NULL && !b_fixed ? 0 : 1;
	uint32_t crc;

	add(&m, head, sizeof head);
	for (i = 0; i <= last; i++) {
		size_t len;
		unsigned char hdr[5];
		if (i == 1 && b_fixed) {
			/* BFINAL 1, BTYPE 01, then end-of-block (7 zero bits) */
			add(&m, "\x03\x00", 2);
			break;
		}
		len = strlen(blocks[i]);
		hdr[0] = i == last ? 1 : 0;
		hdr[1] = (unsigned char)len;
		hdr[2] = (unsigned char)(len >> 8);
		hdr[3] = (unsigned char)~len;
		hdr[4] = (unsigned char)(~len >> 8);
		add(&m, hdr, 5);
		add(&m, blocks[i], len);
		add(&data, blocks[i], len);
	}
	crc = crc32_ref(0, data.p, data.len);
	{
		unsigned char t[8] = { (unsigned char)crc, (unsigned char)(crc >> 8),
				       (unsigned char)(crc >> 16), (unsigned char)(crc >> 24),
				       (unsigned char)data.len, (unsigned char)(data.len >> 8),
				       (unsigned char)(data.len >> 16), (unsigned char)(data.len >> 24) };
		add(&m, t, 8);
	}
	free(data.p);
	return m;
}

/* ---- tests ---- */

START_TEST(test_backend_named)
{
	const char *b = gz_backend();
	ck_assert(strncmp(b, "ISA-L ", 6) == 0 || strncmp(b, "zlib ", 5) == 0);
}
END_TEST

/* _i is the level, 1-9 */
START_TEST(test_round_trip_level)
{
	struct bytes plain = sample(300000, 70000);
	struct bytes gz = compress(plain.p, plain.len, _i, 65536);
	struct result r;
	uint32_t crc = crc32_ref(0, plain.p, plain.len);

	/* the trailer, checked against the oracle */
	ck_assert_uint_eq(gz.p[0], 0x1f);
	ck_assert_uint_eq(gz.p[1], 0x8b);
	ck_assert_uint_eq(gz.p[2], 8);
	ck_assert_uint_eq(gz.p[gz.len - 8] | gz.p[gz.len - 7] << 8 |
			  gz.p[gz.len - 6] << 16 | (uint32_t)gz.p[gz.len - 5] << 24, crc);
	ck_assert_uint_eq(gz.p[gz.len - 4] | gz.p[gz.len - 3] << 8 |
			  gz.p[gz.len - 2] << 16 | (uint32_t)gz.p[gz.len - 1] << 24, plain.len);
	ck_assert_uint_lt(gz.len, plain.len);
	r = inflate_all(gz.p, gz.len, gz.len, 1 << 20);
	check_same(&r, &plain);
	free(r.data.p);
	r = inflate_all(gz.p, gz.len, 4093, 7);
	check_same(&r, &plain);
	free(r.data.p);
	free(gz.p);
	free(plain.p);
}
END_TEST

/* Written in pieces of every size from 1 byte: the same data comes back. */
START_TEST(test_round_trip_write_pieces)
{
	struct bytes plain = sample(20000, 3000);
	size_t piece;

	for (piece = 1; piece < plain.len; piece = piece * 3 + 1) {
		struct bytes gz = compress(plain.p, plain.len, 1, piece);
		struct result r = inflate_all(gz.p, gz.len, gz.len, 1 << 16);
		check_same(&r, &plain);
		free(r.data.p);
		free(gz.p);
	}
	free(plain.p);
}
END_TEST

START_TEST(test_empty_member)
{
	struct bytes empty = { NULL, 0, 0 };
	struct bytes gz = compress((const unsigned char *)"", 0, 1, 1);
	struct result r = inflate_all(gz.p, gz.len, 1, 1);

	check_same(&r, &empty);
	free(gz.p);
}
END_TEST

/* Three members (one empty, one with every optional header field), fed
 * whole, in odd pieces and byte by byte, with small and large room. */
START_TEST(test_multi_member)
{
	struct bytes a = sample(5000, 500), b = sample(70000, 40000);
	struct bytes ga = compress(a.p, a.len, 9, 4096), gb = compress(b.p, b.len, 2, 4096);
	struct bytes ge = compress((const unsigned char *)"", 0, 6, 1);
	struct bytes full = member_with_header(&gb, 0x1e, 1);
	struct bytes all = { NULL, 0, 0 }, want = { NULL, 0, 0 };
	static const size_t in_pieces[] = { 1, 2, 3, 9, 4093, 1 << 20 };
	static const size_t out_pieces[] = { 1, 5, 32768, 1 << 20 };
	size_t i, j;

	add(&all, ga.p, ga.len);
	add(&all, ge.p, ge.len);
	add(&all, full.p, full.len);
	add(&want, a.p, a.len);
	add(&want, b.p, b.len);
	for (i = 0; i < sizeof in_pieces / sizeof *in_pieces; i++)
		for (j = 0; j < sizeof out_pieces / sizeof *out_pieces; j++) {
			struct result r;
			if (in_pieces[i] < 4 && out_pieces[j] < 4)
				continue;  /* slow, and covered by the others */
			r = inflate_all(all.p, all.len, in_pieces[i], out_pieces[j]);
			check_same(&r, &want);
			free(r.data.p);
		}
	free(a.p); free(b.p); free(ga.p); free(gb.p); free(ge.p); free(full.p);
	free(all.p); free(want.p);
}
END_TEST

/* Every header field alone and together, and a wrong header CRC. */
START_TEST(test_header_fields)
{
	struct bytes plain = sample(3000, 100);
	struct bytes gz = compress(plain.p, plain.len, 1, 1000);
	static const unsigned flag_sets[] = { 0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f };
	size_t i;

	for (i = 0; i < sizeof flag_sets / sizeof *flag_sets; i++) {
		struct bytes m = member_with_header(&gz, flag_sets[i], 1);
		struct result r = inflate_all(m.p, m.len, 1, 4096);
		check_same(&r, &plain);
		free(r.data.p);
		free(m.p);
	}
	{
		struct bytes m = member_with_header(&gz, 0x1e, 0);
		/* 10 + 2 + 8 + 11 + 10 header bytes, then the 2-byte CRC */
		struct result r = inflate_all(m.p, m.len, m.len, 4096);
		check_bad(&r, "header crc mismatch", 43);
		free(r.data.p);
		r = inflate_all(m.p, m.len, 1, 4096);
		check_bad(&r, "header crc mismatch", 43);
		free(r.data.p);
		free(m.p);
	}
	free(gz.p);
	free(plain.p);
}
END_TEST

/* _i: 0 the input whole, 1 byte by byte.  Every prefix of two members is
 * truncated at its own length, but the one that ends after the first
 * member (a whole stream) and the one with a lone byte after it. */
START_TEST(test_truncated_everywhere)
{
	struct bytes a = sample(400, 0), b = sample(900, 60);
	struct bytes ga = compress(a.p, a.len, 1, 100), gb = compress(b.p, b.len, 1, 100);
	struct bytes full = member_with_header(&gb, 0x1e, 1);
	struct bytes all = { NULL, 0, 0 };
	size_t k;

	add(&all, ga.p, ga.len);
	add(&all, full.p, full.len);
	for (k = 0; k < all.len; k++) {
		struct result r = inflate_all(all.p, k, _i ? 1 : k + 1, 512);
		if (k == ga.len) {
			check_same(&r, &a);
		} else if (k == ga.len + 1) {
			check_bad(&r, MSG_GARBAGE, ga.len);
		} else {
			ck_assert_msg(r.status == GZ_BAD && strcmp(r.msg, MSG_TRUNCATED) == 0 &&
				      r.offset == k, "cut at %zu: status %d, %s at %llu", k,
				      r.status, r.msg, (unsigned long long)r.offset);
		}
		free(r.data.p);
	}
	free(a.p); free(b.p); free(ga.p); free(gb.p); free(full.p); free(all.p);
}
END_TEST

/* Stored blocks and an empty fixed-code block, made here byte by byte
 * (the deflate data ends at a byte boundary right before the trailer), in
 * three members: read whole and byte by byte, and cut at every offset. */
START_TEST(test_stored_blocks)
{
	struct bytes m1 = stored_member("{\"traceEvents\":[", NULL, 0);
	struct bytes m2 = stored_member("{\"ph\":\"X\"}", "]}", 0);
	struct bytes m3 = stored_member("\n", NULL, 1);
	struct bytes all = { NULL, 0, 0 }, want = { NULL, 0, 0 };
	size_t k, piece;

	add(&all, m1.p, m1.len);
	add(&all, m2.p, m2.len);
	add(&all, m3.p, m3.len);
	add(&want, "{\"traceEvents\":[{\"ph\":\"X\"}]}\n", 29);
	for (piece = 1; piece <= 9; piece++) {
		size_t size = piece < 9 ? piece : all.len;
		struct result r = inflate_all(all.p, all.len, size, size);
		check_same(&r, &want);
		free(r.data.p);
	}
	for (k = 0; k < all.len; k++) {
		struct result r = inflate_all(all.p, k, 1, 64);
		if (k == m1.len || k == m1.len + m2.len) {
			ck_assert_int_eq(r.status, GZ_END);
		} else if (k == m1.len + 1 || k == m1.len + m2.len + 1) {
			check_bad(&r, MSG_GARBAGE, k - 1);
		} else {
			ck_assert_msg(r.status == GZ_BAD && strcmp(r.msg, MSG_TRUNCATED) == 0 &&
				      r.offset == k, "cut at %zu: status %d, %s at %llu", k,
				      r.status, r.msg, (unsigned long long)r.offset);
		}
		free(r.data.p);
	}
	/* LEN and NLEN that disagree: damaged deflate data in the second member */
	all.p[m1.len + 11] ^= 1;
	{
		struct result r = inflate_all(all.p, all.len, 1, 64);
		check_bad(&r, MSG_DEFLATE, m1.len);
		free(r.data.p);
	}
	free(m1.p); free(m2.p); free(m3.p); free(all.p); free(want.p);
}
END_TEST

/* After a whole member: a stray byte, "1f" alone, zero padding, 1f 8b
 * then a bad method, plain JSON: each named at its first byte. */
START_TEST(test_after_the_data)
{
	struct bytes plain = sample(2000, 0);
	struct bytes gz = compress(plain.p, plain.len, 1, 500);
	static const struct {
		const char *tail;
		size_t len;
		const char *msg;
		size_t at;  /* after the member */
	} cases[] = {
		{ "x", 1, MSG_GARBAGE, 0 },
		{ "\x1f", 1, MSG_GARBAGE, 0 },
		{ "\x1f" "x", 2, MSG_GARBAGE, 0 },
		{ "\0\0\0\0\0\0\0\0\0\0\0\0", 12, MSG_GARBAGE, 0 },
		{ "\x1f\x8b\x07\0\0\0\0\0\0\x03", 10, "unknown compression method", 4 },
		{ "\x1f\x8b\x08\x20\0\0\0\0\0\x03", 10, "unknown header flags set", 4 },
		{ "\x1f\x8b\x08", 3, MSG_TRUNCATED, 3 },
		{ "{\"traceEvents\":[]}", 18, MSG_GARBAGE, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct bytes all = { NULL, 0, 0 };
		int piece;
		add(&all, gz.p, gz.len);
		add(&all, cases[i].tail, cases[i].len);
		for (piece = 0; piece < 2; piece++) {
			struct result r = inflate_all(all.p, all.len, piece ? 1 : all.len, 4096);
			check_bad(&r, cases[i].msg, gz.len + cases[i].at);
			free(r.data.p);
		}
		free(all.p);
	}
	free(gz.p);
	free(plain.p);
}
END_TEST

/* Damage to each part of a member that follows a good one. */
START_TEST(test_damage)
{
	struct bytes a = sample(1000, 0), b = sample(50000, 2000);
	struct bytes ga = compress(a.p, a.len, 1, 500), gb = compress(b.p, b.len, 6, 500);
	size_t at = ga.len, end = ga.len + gb.len;
	static const struct {
		int where;           /* 0 from the member start, 1 from its end */
		size_t byte;
		unsigned char xor;
		const char *msg;
		int offset_where;
		size_t offset;
	} cases[] = {
		{ 0, 0, 0x01, MSG_GARBAGE, 0, 0 },             /* magic */
		{ 0, 1, 0x01, MSG_GARBAGE, 0, 0 },
		{ 0, 2, 0x01, "unknown compression method", 0, 4 },
		{ 0, 3, 0x80, "unknown header flags set", 0, 4 },
		{ 0, 10, 0x00, MSG_DEFLATE, 0, 0 },            /* block type 3 */
		{ 1, 8, 0x01, "incorrect data check", 1, 4 },  /* CRC */
		{ 1, 5, 0x80, "incorrect data check", 1, 4 },
		{ 1, 4, 0x01, "incorrect length check", 1, 0 },
		{ 1, 1, 0x01, "incorrect length check", 1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct bytes all = { NULL, 0, 0 };
		size_t pos = cases[i].where ? end - cases[i].byte : at + cases[i].byte;
		uint64_t want = cases[i].offset_where ? end - cases[i].offset : at + cases[i].offset;
		int piece;
		add(&all, ga.p, ga.len);
		add(&all, gb.p, gb.len);
		if (cases[i].xor == 0)
			all.p[pos] |= 0x06;  /* BTYPE 11, reserved */
		else
			all.p[pos] ^= cases[i].xor;
		for (piece = 0; piece < 2; piece++) {
			struct result r = inflate_all(all.p, all.len, piece ? 3 : all.len, 65536);
			check_bad(&r, cases[i].msg, want);
			free(r.data.p);
		}
		free(all.p);
	}
	free(a.p); free(b.p); free(ga.p); free(gb.p);
}
END_TEST

/* Plain JSON is not gzip; an empty input is a truncated one. */
START_TEST(test_not_gzip)
{
	static const unsigned char json[] = "{\"traceEvents\":[]}";
	struct result r = inflate_all(json, sizeof json - 1, 100, 100);

	check_bad(&r, "not in gzip format", 0);
	free(r.data.p);
	r = inflate_all(json, 0, 100, 100);
	check_bad(&r, MSG_TRUNCATED, 0);
	free(r.data.p);
}
END_TEST

/* A failed put is GZ_WRITE, and stays so. */
static int refuse(void *ctx, const void *data, size_t n)
{
	(void)ctx; (void)data; (void)n;
	return -1;
}

START_TEST(test_write_error)
{
	struct bytes plain = sample(3u << 20, 1u << 20);
	struct gz_out *z = gz_out_new(1, refuse, NULL);
	int rc;

	ck_assert_ptr_nonnull(z);
	rc = gz_write(z, plain.p, plain.len);
	if (rc == GZ_OK)
		rc = gz_finish(z);
	ck_assert_int_eq(rc, GZ_WRITE);
	ck_assert_int_eq(gz_finish(z), GZ_WRITE);
	gz_out_free(z);
	free(plain.p);
}
END_TEST

static Suite *gz_suite(void)
{
	Suite *s = suite_create("gz");
	TCase *rt = tcase_create("round trips");
	TCase *bad = tcase_create("damaged input");

	tcase_set_timeout(rt, 60);
	tcase_set_timeout(bad, 60);
	tcase_add_test(rt, test_backend_named);
	tcase_add_loop_test(rt, test_round_trip_level, 1, 10);
	tcase_add_test(rt, test_round_trip_write_pieces);
	tcase_add_test(rt, test_empty_member);
	tcase_add_test(rt, test_multi_member);
	tcase_add_test(rt, test_header_fields);
	tcase_add_test(rt, test_stored_blocks);
	tcase_add_test(rt, test_write_error);
	suite_add_tcase(s, rt);
	tcase_add_loop_test(bad, test_truncated_everywhere, 0, 2);
	tcase_add_test(bad, test_after_the_data);
	tcase_add_test(bad, test_damage);
	tcase_add_test(bad, test_not_gzip);
	suite_add_tcase(s, bad);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gz_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
