/* Unit tests for common/gz/gzasync.c: bytes written in pieces of any size
 * come back whole from the gzip member the compressor thread makes, which
 * is byte for byte gz.h's own when it is given the same blocks; a put that
 * fails stops the writer with GZ_WRITE and its errno, at a write or at the
 * finish; gzasync_stop ends the thread without the member's trailer; an
 * empty member is a valid one. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "gz/gz.h"
#include "gz/gzasync.h"
#include "core/io.h"

#define TOTAL ((size_t)3 << 20)

/* JSON-like text: compressible, not uniform */
static char *text(void)
{
	char *p = malloc(TOTAL);
	unsigned x = 7;
	size_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < TOTAL; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = "{\"ts\":1234.5,\"name\":\"kernel\"}\n"[i % 30] ^ (char)((x >> 28) == 0);
	}
	return p;
}

struct sink {
	struct buf out;
	size_t fail_after;   /* a put that would pass this many bytes fails */
	int fail_errno;
};

static int put(void *ctx, const void *data, size_t n)
{
	struct sink *s = ctx;

	if (s->fail_after != 0 && s->out.len + n > s->fail_after) {
		errno = s->fail_errno;
		return -1;
	}
	return buf_add(&s->out, data, n);
}

/* The member inflated: GZ_END with *plain the bytes, or GZ_BAD. */
static int inflate_all(const struct buf *gz, struct buf *plain)
{
	struct gz_in *z = gz_in_new();
	size_t at = 0, used, made;
	unsigned char chunk[65536];
	int rc = GZ_OK;

	ck_assert_ptr_nonnull(z);
	while (at < gz->len && rc == GZ_OK) {
		rc = gz_inflate(z, (const unsigned char *)gz->p + at, gz->len - at, chunk,
				sizeof chunk, &used, &made);
		at += used;
		ck_assert_int_eq(buf_add(plain, chunk, made), 0);
	}
	while (rc == GZ_OK) {  /* what inflates without more input */
		rc = gz_inflate(z, NULL, 0, chunk, sizeof chunk, &used, &made);
		ck_assert_int_eq(buf_add(plain, chunk, made), 0);
		if (made == 0)
			break;
	}
	if (rc == GZ_OK)
		rc = gz_inflate_end(z);
	gz_in_free(z);
	return rc;
}

START_TEST(round_trip_and_same_member)
{
	static const size_t sizes[] = { 1, 7, 100, 4096, IO_WRITE_BLOCK + 1, 1000, 3, 200000 };
	struct gzasync a;
	struct sink s = { BUF_INIT, 0, 0 }, one = { BUF_INIT, 0, 0 };
	struct buf plain = BUF_INIT;
	struct gz_out *z;
	char *data = text();
	size_t at = 0, k = 0;

	ck_assert_int_eq(gzasync_start(&a, 1, put, &s), 0);
	while (at < TOTAL) {
		size_t n = sizes[k++ % 8];
		if (n > TOTAL - at)
			n = TOTAL - at;
		ck_assert_int_eq(gzasync_write(&a, data + at, n), GZ_OK);
		at += n;
	}
	ck_assert_int_eq(gzasync_finish(&a), GZ_OK);
	gzasync_free(&a);
	ck_assert_int_eq(inflate_all(&s.out, &plain), GZ_END);
	ck_assert_uint_eq(plain.len, TOTAL);
	ck_assert(memcmp(plain.p, data, TOTAL) == 0);
	/* the same blocks through gz.h in one thread: the same bytes */
	z = gz_out_new(1, put, &one);
	ck_assert_ptr_nonnull(z);
	for (at = 0; at < TOTAL; at += IO_WRITE_BLOCK)
		ck_assert_int_eq(gz_write(z, data + at, TOTAL - at < IO_WRITE_BLOCK ?
					  TOTAL - at : IO_WRITE_BLOCK), GZ_OK);
	ck_assert_int_eq(gz_finish(z), GZ_OK);
	gz_out_free(z);
	ck_assert_uint_eq(one.out.len, s.out.len);
	ck_assert(memcmp(one.out.p, s.out.p, s.out.len) == 0);
	buf_release(&s.out);
	buf_release(&one.out);
	buf_release(&plain);
	free(data);
}
END_TEST

/* The put fails early (a full disk): a later write, or the finish, says
 * GZ_WRITE with the put's errno. */
START_TEST(put_fails)
{
	struct gzasync a;
	struct sink s = { BUF_INIT, 1000, ENOSPC };
	char *data = text();
	size_t at = 0;
	int rc = GZ_OK;

	ck_assert_int_eq(gzasync_start(&a, 1, put, &s), 0);
	while (at < TOTAL && (rc = gzasync_write(&a, data + at, 4096)) == GZ_OK)
		at += 4096;
	if (rc == GZ_OK)
		rc = gzasync_finish(&a);
	ck_assert_int_eq(rc, GZ_WRITE);
	ck_assert_int_eq(errno, ENOSPC);
	/* and stays so */
	ck_assert_int_eq(gzasync_write(&a, "x", 1), GZ_WRITE);
	ck_assert_int_eq(errno, ENOSPC);
	gzasync_free(&a);
	buf_release(&s.out);

	/* a failure that only the finish meets: the trailer's put */
	s = (struct sink){ BUF_INIT, 5, EIO };
	ck_assert_int_eq(gzasync_start(&a, 1, put, &s), 0);
	ck_assert_int_eq(gzasync_write(&a, "abc", 3), GZ_OK);
	ck_assert_int_eq(gzasync_finish(&a), GZ_WRITE);
	ck_assert_int_eq(errno, EIO);
	gzasync_free(&a);
	buf_release(&s.out);
	free(data);
}
END_TEST

/* Stopped (the process is dying): the thread ends, the member has no
 * trailer; stopping again, or freeing, is harmless. */
START_TEST(stop_abandons)
{
	struct gzasync a;
	struct sink s = { BUF_INIT, 0, 0 };
	struct buf plain = BUF_INIT;
	char *data = text();

	ck_assert_int_eq(gzasync_start(&a, 1, put, &s), 0);
	ck_assert_int_eq(gzasync_write(&a, data, 3 * IO_WRITE_BLOCK), GZ_OK);
	gzasync_stop(&a);
	gzasync_stop(&a);
	ck_assert_int_eq(inflate_all(&s.out, &plain), GZ_BAD);
	gzasync_free(&a);
	buf_release(&s.out);
	buf_release(&plain);
	free(data);
}
END_TEST

START_TEST(empty_member)
{
	struct gzasync a;
	struct sink s = { BUF_INIT, 0, 0 };
	struct buf plain = BUF_INIT;

	ck_assert_int_eq(gzasync_start(&a, 6, put, &s), 0);
	ck_assert_int_eq(gzasync_finish(&a), GZ_OK);
	gzasync_free(&a);
	ck_assert_uint_gt(s.out.len, 0);
	ck_assert_int_eq(inflate_all(&s.out, &plain), GZ_END);
	ck_assert_uint_eq(plain.len, 0);
	buf_release(&s.out);
	buf_release(&plain);
}
END_TEST

static Suite *gzasync_suite(void)
{
	Suite *s = suite_create("gzasync");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, round_trip_and_same_member);
	tcase_add_test(tc, put_fails);
	tcase_add_test(tc, stop_abandons);
	tcase_add_test(tc, empty_member);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gzasync_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
