/* Unit tests for common/opt.c: decimal integers and byte counts with full
 * range checks, suffixes, and refusal of anything else. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "opt.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct i64_case {
	const char *text;
	int64_t min, max;
	int rc;
	int64_t value;
};

static const struct i64_case i64_cases[] = {
	{ "0", 0, 10, 0, 0 },
	{ "7", 1, 9, 0, 7 },
	{ "1", 1, 9, 0, 1 },      /* the bounds are inclusive */
	{ "9", 1, 9, 0, 9 },
	{ "0", 1, 9, -1, 0 },
	{ "10", 1, 9, -1, 0 },
	{ "-5", -10, 10, 0, -5 },
	{ "-11", -10, 10, -1, 0 },
	{ "-0", 0, 0, 0, 0 },
	{ "007", 0, 10, 0, 7 },
	{ "9223372036854775807", INT64_MIN, INT64_MAX, 0, INT64_MAX },
	{ "-9223372036854775808", INT64_MIN, INT64_MAX, 0, INT64_MIN },
	{ "9223372036854775808", INT64_MIN, INT64_MAX, -1, 0 },
	{ "-9223372036854775809", INT64_MIN, INT64_MAX, -1, 0 },
	{ "99999999999999999999999", INT64_MIN, INT64_MAX, -1, 0 },
	/* junk */
	{ "", INT64_MIN, INT64_MAX, -1, 0 },
	{ "-", INT64_MIN, INT64_MAX, -1, 0 },
	{ "+1", INT64_MIN, INT64_MAX, -1, 0 },
	{ " 1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "\t1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "\n1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1 ", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1x", INT64_MIN, INT64_MAX, -1, 0 },
	{ "x1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1.0", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1e3", INT64_MIN, INT64_MAX, -1, 0 },
	{ "0x10", INT64_MIN, INT64_MAX, -1, 0 },
	{ "--1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "- 1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1K", INT64_MIN, INT64_MAX, -1, 0 },
};

START_TEST(test_i64)
{
	const struct i64_case *c = &i64_cases[_i];
	int64_t v = 4242;

	ck_assert_msg(opt_parse_i64(c->text, c->min, c->max, &v) == c->rc, "\"%s\"", c->text);
	ck_assert_int_eq(v, c->rc == 0 ? c->value : 4242);  /* untouched on failure */
}
END_TEST

struct size_case {
	const char *text;
	uint64_t min, max;
	int rc;
	uint64_t value;
};

static const struct size_case size_cases[] = {
	{ "0", 0, UINT64_MAX, 0, 0 },
	{ "1", 1, 100, 0, 1 },
	{ "100", 1, 100, 0, 100 },
	{ "101", 1, 100, -1, 0 },
	{ "0", 1, 100, -1, 0 },
	{ "1K", 0, UINT64_MAX, 0, 1024 },
	{ "3M", 0, UINT64_MAX, 0, 3u << 20 },
	{ "2G", 0, UINT64_MAX, 0, (uint64_t)2 << 30 },
	{ "0K", 0, UINT64_MAX, 0, 0 },
	{ "64M", 1, (uint64_t)64 << 20, 0, (uint64_t)64 << 20 },
	{ "65M", 1, (uint64_t)64 << 20, -1, 0 },
	{ "1025K", 1, 1 << 20, -1, 0 },
	{ "1024K", 1, 1 << 20, 0, 1 << 20 },
	{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
	{ "18446744073709551616", 0, UINT64_MAX, -1, 0 },
	{ "17179869183G", 0, UINT64_MAX, 0, (uint64_t)17179869183 << 30 },
	{ "17179869184G", 0, UINT64_MAX, -1, 0 },  /* 2^64 */
	{ "17592186044415M", 0, UINT64_MAX, 0, (uint64_t)17592186044415 << 20 },
	{ "17592186044416M", 0, UINT64_MAX, -1, 0 },
	{ "18014398509481983K", 0, UINT64_MAX, 0, (uint64_t)18014398509481983 << 10 },
	{ "18014398509481984K", 0, UINT64_MAX, -1, 0 },
	/* junk */
	{ "", 0, UINT64_MAX, -1, 0 },
	{ "K", 0, UINT64_MAX, -1, 0 },
	{ "-1", 0, UINT64_MAX, -1, 0 },
	{ "+1", 0, UINT64_MAX, -1, 0 },
	{ " 1", 0, UINT64_MAX, -1, 0 },
	{ "1 ", 0, UINT64_MAX, -1, 0 },
	{ "1k", 0, UINT64_MAX, -1, 0 },
	{ "1m", 0, UINT64_MAX, -1, 0 },
	{ "1T", 0, UINT64_MAX, -1, 0 },
	{ "1KB", 0, UINT64_MAX, -1, 0 },
	{ "1KK", 0, UINT64_MAX, -1, 0 },
	{ "1 K", 0, UINT64_MAX, -1, 0 },
	{ "1.5M", 0, UINT64_MAX, -1, 0 },
	{ "0x10", 0, UINT64_MAX, -1, 0 },
	{ "1e6", 0, UINT64_MAX, -1, 0 },
};

START_TEST(test_size)
{
	const struct size_case *c = &size_cases[_i];
	uint64_t v = 4242;

	ck_assert_msg(opt_parse_size(c->text, c->min, c->max, &v) == c->rc, "\"%s\"", c->text);
	ck_assert_uint_eq(v, c->rc == 0 ? c->value : 4242);
}
END_TEST

static Suite *opt_suite(void)
{
	Suite *s = suite_create("opt");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_i64, 0, (int)COUNT(i64_cases));
	tcase_add_loop_test(tc, test_size, 0, (int)COUNT(size_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(opt_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
