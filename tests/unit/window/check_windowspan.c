/* Unit tests for common/window/windowspan.c: spans kept in a temporary file come
 * back exactly (the int64 extremes, steps back, hi below lo, the largest
 * byte count), across read blocks, twice in a row; the empty file; a file
 * that ends inside a span. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "window/windowspan.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int spill_fd(void)
{
	const char *dir;
	int fd = io_open_spill("check_windowspan", &dir);

	ck_assert_int_ge(fd, 0);
	return fd;
}

static const struct { int64_t lo, hi; uint32_t bytes; } edge[] = {
	{ 0, 0, 0 },
	{ INT64_MAX, INT64_MAX, UINT32_MAX },
	{ INT64_MIN, INT64_MAX, 1 },
	{ INT64_MAX, INT64_MIN, 2 },            /* hi below lo: kept as given */
	{ -1, 0, 127 },
	{ 2857257370107282, 2857257370116092, 128 },
	{ 2857257370107280, 2857257370107283, 250 },   /* a step back */
	{ INT64_MIN, INT64_MIN, 16384 },
};

START_TEST(test_edges)
{
	struct windowspan s;
	int64_t lo, hi;
	uint32_t bytes;
	size_t i;
	int round;

	ck_assert_int_eq(windowspan_init(&s, spill_fd()), 0);
	for (i = 0; i < COUNT(edge); i++)
		ck_assert_int_eq(windowspan_put(&s, edge[i].lo, edge[i].hi, edge[i].bytes), 0);
	ck_assert_int_eq(windowspan_finish(&s), 0);
	ck_assert_uint_eq(s.n, COUNT(edge));
	for (round = 0; round < 2; round++) {
		ck_assert_int_eq(windowspan_rewind(&s), 0);
		for (i = 0; i < COUNT(edge); i++) {
			ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), 1);
			ck_assert_int_eq(lo, edge[i].lo);
			ck_assert_int_eq(hi, edge[i].hi);
			ck_assert_uint_eq(bytes, edge[i].bytes);
		}
		ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), 0);
		ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), 0);
	}
	windowspan_free(&s);
}
END_TEST

/* Kineto-like spans: a few bytes each.  Many more than a read block holds,
 * so that spans straddle the blocks' edges. */
START_TEST(test_many)
{
	enum { N = 100000 };
	struct windowspan s;
	int64_t lo, hi, t = 2857257370000000;
	uint32_t bytes;
	uint64_t x = 7;
	size_t i;
	off_t size;

	ck_assert_int_eq(windowspan_init(&s, spill_fd()), 0);
	for (i = 0; i < N; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		t += (int64_t)(x >> 52) - 1000;
		ck_assert_int_eq(windowspan_put(&s, t, t + (int64_t)(x >> 44), (uint32_t)(x >> 56) + 100),
				 0);
	}
	ck_assert_int_eq(windowspan_finish(&s), 0);
	size = lseek(s.fd, 0, SEEK_END);
	ck_assert_int_gt(size, WINDOWSPAN_BLOCK);
	ck_assert_int_le(size, 9 * N);   /* not a 40-byte record each */
	ck_assert_int_eq(windowspan_rewind(&s), 0);
	x = 7;
	t = 2857257370000000;
	for (i = 0; i < N; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		t += (int64_t)(x >> 52) - 1000;
		ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), 1);
		ck_assert_int_eq(lo, t);
		ck_assert_int_eq(hi, t + (int64_t)(x >> 44));
		ck_assert_uint_eq(bytes, (uint32_t)(x >> 56) + 100);
	}
	ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), 0);
	windowspan_free(&s);
}
END_TEST

START_TEST(test_empty)
{
	struct windowspan s;
	int64_t lo, hi;
	uint32_t bytes;

	ck_assert_int_eq(windowspan_init(&s, spill_fd()), 0);
	ck_assert_int_eq(windowspan_finish(&s), 0);
	ck_assert_int_eq(windowspan_rewind(&s), 0);
	ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), 0);
	windowspan_free(&s);
}
END_TEST

/* A file cut inside a span's last varint, and one with a varint that
 * never ends: EIO, after the spans before. */
START_TEST(test_torn)
{
	struct windowspan s;
	int64_t lo, hi;
	uint32_t bytes;
	off_t size;
	static const unsigned char endless[12] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
						   0x80, 0x80, 0x80, 0x80, 0x80, 0x80 };

	ck_assert_int_eq(windowspan_init(&s, spill_fd()), 0);
	ck_assert_int_eq(windowspan_put(&s, 5, 9, 3), 0);
	ck_assert_int_eq(windowspan_put(&s, 1000, 2000, 300), 0);
	ck_assert_int_eq(windowspan_finish(&s), 0);
	size = lseek(s.fd, 0, SEEK_END);
	ck_assert_int_eq(size, 3 + 6);
	ck_assert_int_eq(ftruncate(s.fd, size - 1), 0);
	ck_assert_int_eq(windowspan_rewind(&s), 0);
	ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), 1);
	ck_assert_int_eq(lo, 5);
	errno = 0;
	ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), -1);
	ck_assert_int_eq(errno, EIO);

	ck_assert_int_eq(ftruncate(s.fd, 0), 0);
	ck_assert_int_eq(pwrite(s.fd, endless, sizeof endless, 0), (ssize_t)sizeof endless);
	ck_assert_int_eq(windowspan_rewind(&s), 0);
	errno = 0;
	ck_assert_int_eq(windowspan_next(&s, &lo, &hi, &bytes), -1);
	ck_assert_int_eq(errno, EIO);
	windowspan_free(&s);
}
END_TEST

START_TEST(test_rules)
{
	/* closed intervals: touching counts */
	ck_assert(windowspan_overlaps(0, 10, 10, 20));
	ck_assert(windowspan_overlaps(20, 20, 10, 20));
	ck_assert(!windowspan_overlaps(0, 9, 10, 20));
	ck_assert(!windowspan_overlaps(21, 30, 10, 20));
	ck_assert(windowspan_overlaps(0, 30, 10, 20));
	/* an instant 1 ns after a window end at a sub-ns text */
	ck_assert(!windowspan_overlaps(2001, 2001, 0, 2000));
	ck_assert(windowspan_contains(10, 20, 10, 20));
	ck_assert(!windowspan_contains(9, 20, 10, 20));
	ck_assert(!windowspan_contains(10, 21, 10, 20));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("windowspan");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_edges);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_torn);
	tcase_add_test(tc, test_rules);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
