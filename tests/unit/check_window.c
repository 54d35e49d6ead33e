/* Unit tests for common/window.c: exact durations, ranges, event intervals
 * in half nanoseconds and the keep rules of tr-window(1). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct dur_case {
	const char *text;
	int rc;
	int64_t ns;
};

static const struct dur_case dur_cases[] = {
	{ "0", 0, 0 },
	{ "2", 0, 2000000 },              /* default unit: ms */
	{ "1520.5", 0, 1520500000 },
	{ "0.000001", 0, 1 },
	{ "0.0000001", -1, 0 },           /* below the ns */
	{ "0.0000010", 0, 1 },            /* trailing zero: still whole ns */
	{ "2ms", 0, 2000000 },
	{ "500us", 0, 500000 },
	{ "1.5us", 0, 1500 },
	{ "1.0005us", -1, 0 },
	{ "7ns", 0, 7 },
	{ "1s", 0, 1000000000 },
	{ "0.5ns", -1, 0 },
	{ "", -1, 0 },
	{ "-1", -1, 0 },
	{ "+1", -1, 0 },
	{ "1.", -1, 0 },
	{ ".5", -1, 0 },
	{ "1e3", -1, 0 },
	{ "2 ms", -1, 0 },
	{ "2min", -1, 0 },
	{ "9999999999999999999", -1, 0 },
	{ "4611686018427387904ns", 0, (int64_t)1 << 62 },
	{ "4611686018427387905ns", -1, 0 },
};

START_TEST(test_dur)
{
	const struct dur_case *c = &dur_cases[_i];
	int64_t ns = -42;
	int rc = window_parse_dur(c->text, 1000000, &ns);

	ck_assert_msg(rc == c->rc, "'%s': rc %d", c->text, rc);
	if (rc == 0)
		ck_assert_msg(ns == c->ns, "'%s': %lld", c->text, (long long)ns);
}
END_TEST

START_TEST(test_range)
{
	int64_t a, b;

	ck_assert_int_eq(window_parse_range("3-4", &a, &b), 0);
	ck_assert(a == 3 && b == 4);
	ck_assert_int_eq(window_parse_range("5", &a, &b), 0);
	ck_assert(a == 5 && b == 5);
	ck_assert_int_eq(window_parse_range("4-3", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("-3", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("3-", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("a-b", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("", &a, &b), -1);
}
END_TEST

static int iv(const char *ts, const char *dur, int64_t *lo, int64_t *hi)
{
	return window_interval(ts, ts ? strlen(ts) : 0, dur, dur ? strlen(dur) : 0, lo, hi);
}

START_TEST(test_interval)
{
	int64_t lo, hi;

	ck_assert_int_eq(iv("1712195495519689.047", "2.5", &lo, &hi), 0);
	ck_assert(lo == 2 * 1712195495519689047LL && hi == 2 * 1712195495519691547LL);
	ck_assert_int_eq(iv("\"12.5\"", NULL, &lo, &hi), 0);  /* a ts in a string */
	ck_assert(lo == 25000 && hi == 25000);
	/* digits below the ns: strictly between two whole ns */
	ck_assert_int_eq(iv("1.0005", NULL, &lo, &hi), 0);
	ck_assert(lo == 2001 && hi == 2001);
	ck_assert_int_eq(iv("1.0005", "1", &lo, &hi), 0);
	ck_assert(lo == 2001 && hi == 4001);
	/* both below the ns: the end's upper bound */
	ck_assert_int_eq(iv("1.0005", "0.0005", &lo, &hi), 0);
	ck_assert(lo == 2001 && hi == 2002);
	ck_assert_int_eq(iv(NULL, NULL, &lo, &hi), -1);
	ck_assert_int_eq(iv("x", NULL, &lo, &hi), -1);
	ck_assert_int_eq(iv("1", "-1", &lo, &hi), -1);
	ck_assert_int_eq(iv("1", "\"a\"", &lo, &hi), -1);
}
END_TEST

START_TEST(test_rules)
{
	/* closed intervals: touching counts */
	ck_assert(window_overlaps(0, 10, 10, 20));
	ck_assert(window_overlaps(20, 20, 10, 20));
	ck_assert(!window_overlaps(0, 9, 10, 20));
	ck_assert(!window_overlaps(21, 30, 10, 20));
	ck_assert(window_overlaps(0, 30, 10, 20));
	/* an instant 1 ns after a window end at a sub-ns text */
	ck_assert(!window_overlaps(2001, 2001, 0, 2000));
	ck_assert(window_contains(10, 20, 10, 20));
	ck_assert(!window_contains(9, 20, 10, 20));
	ck_assert(!window_contains(10, 21, 10, 20));
	ck_assert(window_half(3) == 6);
	ck_assert(window_half(INT64_MAX) == INT64_MAX);
}
END_TEST

START_TEST(test_category)
{
	ck_assert_int_eq(window_category("\"X\"", 3), WCAT_COMPLETE);
	ck_assert_int_eq(window_category("\"B\"", 3), WCAT_DURATION);
	ck_assert_int_eq(window_category("\"i\"", 3), WCAT_INSTANT);
	ck_assert_int_eq(window_category("\"C\"", 3), WCAT_COUNTER);
	ck_assert_int_eq(window_category("\"M\"", 3), WCAT_METADATA);
	ck_assert_int_eq(window_category("\"t\"", 3), WCAT_FLOW);
	ck_assert_int_eq(window_category("\"n\"", 3), WCAT_ASYNC);
	ck_assert_int_eq(window_category("\"XX\"", 4), WCAT_OTHER);
	ck_assert_int_eq(window_category(NULL, 0), WCAT_OTHER);
	ck_assert_str_eq(window_category_name(WCAT_FLOW), "flow");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("window");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_dur, 0, (int)COUNT(dur_cases));
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_interval);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_category);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
