/* Unit tests for common/compact/compact_spill.c: lines come back exactly as put,
 * in order, plain for a short spill and compressed (with ISA-L) for a long
 * one, a line longer than the read buffer included, twice after two
 * rewinds; COMPACT_SPILL_PLAIN never compresses. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "compact/compact_spill.h"

static int temp_fd(void)
{
	char name[] = "/tmp/check_compact_spill.XXXXXX";
	int fd = mkstemp(name);

	ck_assert_int_ge(fd, 0);
	unlink(name);
	return fd;
}

/* Line k of a test spill: varied lengths, one far longer than IO_BLOCK. */
static void make_line(struct buf *b, size_t k)
{
	size_t i, n = k == 777 ? (size_t)IO_BLOCK * 2 + 3 : k % 301;

	buf_reset(b);
	buf_printf(b, "{\"k\":%zu,\"s\":\"", k);
	for (i = 0; i < n; i++)
		buf_addch(b, (char)('a' + (k + i) % 26));
	buf_addstr(b, "\"}\n");
}

static void round_trip(int mode, uint64_t plain_max, size_t nlines, int want_gzip)
{
	struct compact_spill s;
	struct buf want = BUF_INIT;
	const char *line;
	size_t len, k;
	int fd = temp_fd(), pass;

	ck_assert_int_eq(compact_spill_init(&s, fd, mode), 0);
	if (plain_max != 0)
		s.plain_max = plain_max;
	for (k = 0; k < nlines; k++) {
		make_line(&want, k);
		/* in two pieces: put takes bytes, not lines */
		ck_assert_int_eq(compact_spill_put(&s, want.p, 3), 0);
		ck_assert_int_eq(compact_spill_put(&s, want.p + 3, want.len - 3), 0);
	}
	ck_assert_int_eq(compact_spill_finish(&s), 0);
	ck_assert_int_eq(s.gzip, want_gzip);
	for (pass = 0; pass < 2; pass++) {
		ck_assert_int_eq(compact_spill_rewind(&s), 0);
		for (k = 0; k < nlines; k++) {
			make_line(&want, k);
			ck_assert_int_eq(compact_spill_line(&s, &line, &len), 1);
			ck_assert_uint_eq(len, want.len - 1);
			ck_assert(memcmp(line, want.p, len) == 0);
			ck_assert_int_eq(line[len], '\n'); /* filter_pass relies on it */
		}
		ck_assert_int_eq(compact_spill_line(&s, &line, &len), 0);
	}
	compact_spill_free(&s);
	close(fd);
	buf_release(&want);
}

START_TEST(test_short_plain)
{
	round_trip(COMPACT_SPILL_AUTO, 0, 100, 0);
}
END_TEST

START_TEST(test_long_auto)
{
	int fast = strncmp(gz_backend(), "ISA-L", 5) == 0;

	/* about 8 MiB with the long line: below the default plain part */
	round_trip(COMPACT_SPILL_AUTO, 0, 20000, 0);
	/* past a plain part that ends inside a line, inside the long line, or
	 * at once: the rest is compressed when the backend is ISA-L */
	round_trip(COMPACT_SPILL_AUTO, 1000003, 20000, fast);
	round_trip(COMPACT_SPILL_AUTO, 50001, 20000, fast);
	round_trip(COMPACT_SPILL_AUTO, 1, 20000, fast);
}
END_TEST

START_TEST(test_long_plain)
{
	round_trip(COMPACT_SPILL_PLAIN, 1000003, 20000, 0);
}
END_TEST

START_TEST(test_empty)
{
	struct compact_spill s;
	const char *line;
	size_t len;
	int fd = temp_fd();

	ck_assert_int_eq(compact_spill_init(&s, fd, COMPACT_SPILL_AUTO), 0);
	ck_assert_int_eq(compact_spill_finish(&s), 0);
	ck_assert_int_eq(compact_spill_rewind(&s), 0);
	ck_assert_int_eq(compact_spill_line(&s, &line, &len), 0);
	compact_spill_free(&s);
	close(fd);
}
END_TEST

START_TEST(test_write_error)
{
	struct compact_spill s;
	int fd = temp_fd();

	close(fd); /* writes fail with EBADF */
	ck_assert_int_eq(compact_spill_init(&s, fd, COMPACT_SPILL_PLAIN), 0);
	ck_assert_int_eq(compact_spill_put(&s, "{}\n", 3), 0);
	ck_assert_int_eq(compact_spill_finish(&s), -1);
	compact_spill_free(&s);
}
END_TEST

/* Pages read are given back in steps of 16 MiB, unless held: a spill of
 * about 45 MiB read past its first steps with hold set reads again whole
 * after a rewind (tr-compact's refusal reads it again while pass two's
 * first events have gone out). */
START_TEST(test_hold)
{
	struct compact_spill s;
	struct buf want = BUF_INIT;
	const char *line;
	size_t len, k, nlines = 300000;
	uint64_t bytes = 0;
	int fd = temp_fd();

	ck_assert_int_eq(compact_spill_init(&s, fd, COMPACT_SPILL_PLAIN), 0);
	for (k = 0; k < nlines; k++) {
		make_line(&want, k);
		ck_assert_int_eq(compact_spill_put(&s, want.p, want.len), 0);
		bytes += want.len;
	}
	ck_assert_int_eq(compact_spill_finish(&s), 0);
	ck_assert_uint_gt(bytes, (uint64_t)40 << 20);
	ck_assert_int_eq(compact_spill_rewind(&s), 0);
	compact_spill_hold(&s, 1);
	for (k = 0; k < nlines * 3 / 4; k++)
		ck_assert_int_eq(compact_spill_line(&s, &line, &len), 1);
	ck_assert_int_eq(compact_spill_rewind(&s), 0);
	compact_spill_hold(&s, 0);
	for (k = 0; k < nlines; k++) {
		make_line(&want, k);
		ck_assert_int_eq(compact_spill_line(&s, &line, &len), 1);
		ck_assert_uint_eq(len, want.len - 1);
		ck_assert(memcmp(line, want.p, len) == 0);
	}
	ck_assert_int_eq(compact_spill_line(&s, &line, &len), 0);
	compact_spill_free(&s);
	close(fd);
	buf_release(&want);
}
END_TEST

static Suite *spill_suite(void)
{
	Suite *s = suite_create("compact_spill");
	TCase *tc = tcase_create("spill");

	tcase_add_test(tc, test_short_plain);
	tcase_add_test(tc, test_long_auto);
	tcase_add_test(tc, test_long_plain);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_write_error);
	tcase_add_test(tc, test_hold);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(spill_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
