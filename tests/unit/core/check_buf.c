/* Unit tests for common/core/buf.c: the strbuf invariants (p never NULL,
 * p[len] == '\0'), growth, formatting, and the overflow check. */
#include <check.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

/* p never NULL and NUL-terminated, len within the allocation. */
static void check_invariants(const struct buf *b)
{
	ck_assert_ptr_nonnull(b->p);
	ck_assert_int_eq(b->p[b->len], '\0');
	if (b->cap == 0) {
		ck_assert_ptr_eq(b->p, buf_empty);
		ck_assert_uint_eq(b->len, 0);
	} else {
		ck_assert_uint_lt(b->len, b->cap);
	}
}

START_TEST(test_init_is_empty)
{
	struct buf b = BUF_INIT;

	check_invariants(&b);
	ck_assert_str_eq(b.p, "");
	/* reset, setlen and release on the shared empty buffer change nothing */
	buf_reset(&b);
	buf_setlen(&b, 0);
	check_invariants(&b);
	buf_release(&b);
	check_invariants(&b);
	ck_assert_int_eq(buf_empty[0], '\0');
}
END_TEST

START_TEST(test_add_and_terminate)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(buf_add(&b, "abc", 3), 0);
	check_invariants(&b);
	ck_assert_uint_eq(b.len, 3);
	ck_assert_str_eq(b.p, "abc");
	ck_assert_int_eq(buf_addstr(&b, "de"), 0);
	ck_assert_int_eq(buf_addch(&b, 'f'), 0);
	ck_assert_int_eq(buf_add(&b, "", 0), 0);
	check_invariants(&b);
	ck_assert_uint_eq(b.len, 6);
	ck_assert_str_eq(b.p, "abcdef");
	buf_release(&b);
	check_invariants(&b);
	ck_assert_uint_eq(b.cap, 0);
}
END_TEST

START_TEST(test_embedded_nul)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(buf_add(&b, "a\0b", 3), 0);
	ck_assert_int_eq(buf_addch(&b, '\0'), 0);
	ck_assert_uint_eq(b.len, 4);
	ck_assert_mem_eq(b.p, "a\0b\0", 5);
	check_invariants(&b);
	buf_release(&b);
}
END_TEST

START_TEST(test_growth_keeps_contents)
{
	struct buf b = BUF_INIT;
	size_t i, prev_cap = 0;

	/* one byte at a time across many doublings (plain tests in the loop:
	 * every ck_assert costs a write in no-fork mode) */
	for (i = 0; i < 100000; i++) {
		if (buf_addch(&b, (char)('a' + i % 26)) != 0 || b.cap < b.len + 1 ||
		    b.cap < prev_cap || b.p[b.len] != '\0')
			ck_abort_msg("after %zu bytes: len %zu cap %zu", i, b.len, b.cap);
		prev_cap = b.cap;
	}
	check_invariants(&b);
	ck_assert_uint_eq(b.len, 100000);
	for (i = 0; i < 100000; i++)
		if (b.p[i] != 'a' + (int)(i % 26))
			ck_abort_msg("byte %zu changed", i);
	buf_release(&b);
}
END_TEST

START_TEST(test_grow_reserves)
{
	struct buf b = BUF_INIT;
	char *p;

	ck_assert_int_eq(buf_grow(&b, 1000), 0);
	ck_assert_uint_ge(b.cap, 1001);
	ck_assert_uint_eq(b.len, 0);
	check_invariants(&b);
	p = b.p;
	/* the room is really there: filling it does not move the data */
	memset(b.p, 'x', 1000);
	buf_setlen(&b, 1000);
	ck_assert_ptr_eq(b.p, p);
	check_invariants(&b);
	ck_assert_int_eq(buf_grow(&b, 0), 0);
	ck_assert_uint_ge(b.cap, 1001);
	buf_release(&b);
}
END_TEST

START_TEST(test_grow_overflow)
{
	struct buf b = BUF_INIT;
	char *p;
	size_t cap;

	/* refused before any allocation; the buffer is unchanged */
	ck_assert_int_eq(buf_grow(&b, SIZE_MAX), -1);
	check_invariants(&b);
	ck_assert_uint_eq(b.cap, 0);
	ck_assert_int_eq(buf_addstr(&b, "0123456789"), 0);
	p = b.p;
	cap = b.cap;
	ck_assert_int_eq(buf_grow(&b, SIZE_MAX - 10), -1);
	ck_assert_int_eq(buf_grow(&b, SIZE_MAX - 5), -1);
	ck_assert_int_eq(buf_add(&b, "x", SIZE_MAX - 10), -1);
	ck_assert_ptr_eq(b.p, p);
	ck_assert_uint_eq(b.cap, cap);
	ck_assert_uint_eq(b.len, 10);
	ck_assert_str_eq(b.p, "0123456789");
	buf_release(&b);
}
END_TEST

START_TEST(test_setlen_and_reset)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(buf_addstr(&b, "hello world"), 0);
	buf_setlen(&b, 5);
	check_invariants(&b);
	ck_assert_str_eq(b.p, "hello");
	buf_reset(&b);
	check_invariants(&b);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_gt(b.cap, 0);
	ck_assert_str_eq(b.p, "");
	ck_assert_int_eq(buf_addstr(&b, "again"), 0);
	ck_assert_str_eq(b.p, "again");
	buf_release(&b);
}
END_TEST

START_TEST(test_printf)
{
	struct buf b = BUF_INIT;
	char big[5000];

	ck_assert_int_eq(buf_printf(&b, "%d-%s", 42, "x"), 0);
	ck_assert_str_eq(b.p, "42-x");
	ck_assert_uint_eq(b.len, 4);
	ck_assert_int_eq(buf_printf(&b, "%s", ""), 0);
	ck_assert_uint_eq(b.len, 4);
	ck_assert_int_eq(buf_printf(&b, "[%05u]", 7u), 0);
	ck_assert_str_eq(b.p, "42-x[00007]");
	check_invariants(&b);
	/* longer than the first allocation: vsnprintf is called twice */
	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(buf_printf(&b, "<%s>", big), 0);
	ck_assert_uint_eq(b.len, 11 + 2 + 4999);
	ck_assert_int_eq(b.p[11], '<');
	ck_assert_int_eq(b.p[11 + 1 + 4998], 'z');
	ck_assert_int_eq(b.p[11 + 1 + 4999], '>');
	check_invariants(&b);
	buf_release(&b);
}
END_TEST

START_TEST(test_printf_on_empty)
{
	struct buf b = BUF_INIT;

	/* an empty result still leaves a valid, terminated buffer */
	ck_assert_int_eq(buf_printf(&b, "%s", ""), 0);
	check_invariants(&b);
	ck_assert_uint_eq(b.len, 0);
	buf_release(&b);
}
END_TEST

/* buf_add_i64 against snprintf, the oracle, at the edges of long long */
START_TEST(test_add_i64)
{
	static const long long values[] = { 0, 1, -1, 9, 10, -10, 99, 100, 2147483647LL,
		-2147483648LL, 2113929216LL, 1234567890123LL, LLONG_MAX, LLONG_MIN,
		LLONG_MIN + 1 };
	struct buf b = BUF_INIT, want = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof values / sizeof values[0]; i++) {
		ck_assert_int_eq(buf_add_i64(&b, values[i]), 0);
		ck_assert_int_eq(buf_addch(&b, ','), 0);
		ck_assert_int_eq(buf_printf(&want, "%lld,", values[i]), 0);
	}
	ck_assert_str_eq(b.p, want.p);
	ck_assert_uint_eq(b.len, want.len);
	check_invariants(&b);
	buf_release(&b);
	buf_release(&want);
}
END_TEST

/* buf_add_u64 against snprintf, at the edges of uint64_t */
START_TEST(test_add_u64)
{
	static const uint64_t values[] = { 0, 1, 9, 10, 99, 100, 4294967295u, 4294967296u,
		1234567890123u, UINT64_MAX - 1, UINT64_MAX };
	struct buf b = BUF_INIT, want = BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof values / sizeof values[0]; i++) {
		ck_assert_int_eq(buf_add_u64(&b, values[i]), 0);
		ck_assert_int_eq(buf_addch(&b, ','), 0);
		ck_assert_int_eq(buf_printf(&want, "%" PRIu64 ",", values[i]), 0);
	}
	ck_assert_str_eq(b.p, want.p);
	check_invariants(&b);
	buf_release(&b);
	buf_release(&want);
}
END_TEST

/* buf_printf longer than the room already there: formatted again whole */
START_TEST(test_printf_past_room)
{
	struct buf b = BUF_INIT;
	char big[300];

	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(buf_addstr(&b, "ab"), 0);
	ck_assert_int_eq(buf_printf(&b, "<%s|%d>", big, 42), 0);
	ck_assert_uint_eq(b.len, 2 + 1 + 299 + 4);
	ck_assert(memcmp(b.p, "ab<", 3) == 0);
	ck_assert(memcmp(b.p + 3 + 299, "|42>", 5) == 0);
	check_invariants(&b);
	buf_release(&b);
}
END_TEST

START_TEST(test_release_then_reuse)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(buf_addstr(&b, "first"), 0);
	buf_release(&b);
	check_invariants(&b);
	ck_assert_int_eq(buf_addstr(&b, "second"), 0);
	ck_assert_str_eq(b.p, "second");
	buf_release(&b);
	buf_release(&b);
	check_invariants(&b);
}
END_TEST

/* The growing arrays and copies every module uses (they were copied in
 * anchorscan, compact, survey, ranktab and the verify modules). */
START_TEST(test_array_room_and_memdup)
{
	int *v = NULL;
	size_t cap = 0;
	char *s;

	ck_assert_int_eq(buf_array_room((void **)&v, 0, &cap, 4, sizeof *v), 0);
	ck_assert_uint_eq(cap, 4);
	v[3] = 7;
	ck_assert_int_eq(buf_array_room((void **)&v, 3, &cap, 4, sizeof *v), 0);
	ck_assert_uint_eq(cap, 4);  /* item 3 fits: unchanged */
	ck_assert_int_eq(buf_array_room((void **)&v, 4, &cap, 4, sizeof *v), 0);
	ck_assert_uint_eq(cap, 8);
	ck_assert_int_eq(v[3], 7);
	cap = SIZE_MAX / 2 + 1;
	ck_assert_int_eq(buf_array_room((void **)&v, cap, &cap, 4, sizeof *v), -1);
	ck_assert_uint_eq(cap, SIZE_MAX / 2 + 1);
	cap = SIZE_MAX / sizeof *v / 2 + 1;  /* the count fits, its bytes do not */
	ck_assert_int_eq(buf_array_room((void **)&v, cap, &cap, 4, sizeof *v), -1);
	ck_assert_int_eq(v[3], 7);
	free(v);
	s = buf_memdup("abc", 2);
	ck_assert_str_eq(s, "ab");
	free(s);
	s = buf_memdup("a\0b", 3);
	ck_assert_mem_eq(s, "a\0b\0", 4);
	free(s);
	ck_assert_ptr_null(buf_memdup("", SIZE_MAX));
}
END_TEST

static Suite *buf_suite(void)
{
	Suite *s = suite_create("buf");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_init_is_empty);
	tcase_add_test(tc, test_add_and_terminate);
	tcase_add_test(tc, test_embedded_nul);
	tcase_add_test(tc, test_growth_keeps_contents);
	tcase_add_test(tc, test_grow_reserves);
	tcase_add_test(tc, test_grow_overflow);
	tcase_add_test(tc, test_setlen_and_reset);
	tcase_add_test(tc, test_printf);
	tcase_add_test(tc, test_printf_on_empty);
	tcase_add_test(tc, test_add_i64);
	tcase_add_test(tc, test_add_u64);
	tcase_add_test(tc, test_printf_past_room);
	tcase_add_test(tc, test_release_then_reuse);
	tcase_add_test(tc, test_array_room_and_memdup);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(buf_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
