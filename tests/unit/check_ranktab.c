/* Unit tests for common/ranktab.c: the lower median, the bands and the
 * straggler rule at their exact boundaries, totals and row medians with
 * cells that have no interval, and the range checks. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "ranktab.h"

START_TEST(test_median_low)
{
	int64_t one[] = { 7 };
	int64_t two[] = { 9, 3 };
	int64_t odd[] = { 5, 1, 4, 2, 3 };
	int64_t even[] = { 40, 10, 30, 20 };
	int64_t dup[] = { 2, 2, 1, 2 };

	ck_assert_int_eq(ranktab_median_low(one, 1), 7);
	ck_assert_int_eq(ranktab_median_low(two, 2), 3);
	ck_assert_int_eq(ranktab_median_low(odd, 5), 3);
	ck_assert_int_eq(ranktab_median_low(even, 4), 20);
	ck_assert_int_eq(ranktab_median_low(dup, 4), 2);
}
END_TEST

START_TEST(test_bands)
{
	/* median 1000 ns, threshold 10%: 900 and 1100 are the edges, 1300 the
	 * edge of the slowest band */
	ck_assert_int_eq(ranktab_band(899, 1000, 10), RANKTAB_BAND_FAST);
	ck_assert_int_eq(ranktab_band(900, 1000, 10), RANKTAB_BAND_BELOW);
	ck_assert_int_eq(ranktab_band(999, 1000, 10), RANKTAB_BAND_BELOW);
	ck_assert_int_eq(ranktab_band(1000, 1000, 10), RANKTAB_BAND_NEAR);
	ck_assert_int_eq(ranktab_band(1100, 1000, 10), RANKTAB_BAND_NEAR);
	ck_assert_int_eq(ranktab_band(1101, 1000, 10), RANKTAB_BAND_SLOW);
	ck_assert_int_eq(ranktab_band(1300, 1000, 10), RANKTAB_BAND_SLOW);
	ck_assert_int_eq(ranktab_band(1301, 1000, 10), RANKTAB_BAND_SLOWEST);
	ck_assert_int_eq(ranktab_band(RANKTAB_NONE, 1000, 10), RANKTAB_BAND_NONE);
	ck_assert_int_eq(ranktab_band(5, RANKTAB_NONE, 10), RANKTAB_BAND_NONE);
	/* threshold 0: anything above the median is a straggler */
	ck_assert_int_eq(ranktab_straggler(1001, 1000, 0), 1);
	ck_assert_int_eq(ranktab_straggler(1000, 1000, 0), 0);
	/* exact: 1.1 x 333 = 366.3, so 366 is not over and 367 is */
	ck_assert_int_eq(ranktab_straggler(366, 333, 10), 0);
	ck_assert_int_eq(ranktab_straggler(367, 333, 10), 1);
	/* the largest values allowed do not overflow */
	ck_assert_int_eq(ranktab_band(RANKTAB_MAX_NS, RANKTAB_MAX_NS - 1, RANKTAB_MAX_PERCENT),
			 RANKTAB_BAND_NEAR);
	ck_assert_int_eq(ranktab_band(RANKTAB_MAX_NS, 1, RANKTAB_MAX_PERCENT),
			 RANKTAB_BAND_SLOWEST);
}
END_TEST

START_TEST(test_compute)
{
	struct ranktab t;
	/* 3 layers x 4 ranks; the last layer has no interval except on rank 3 */
	static const int64_t cells[3][4] = {
		{ 100, 120, 100, 300 },
		{ 50, 40, 60, 55 },
		{ RANKTAB_NONE, RANKTAB_NONE, RANKTAB_NONE, 7 },
	};
	size_t l, r;

	ck_assert_int_eq(ranktab_init(&t, 3, 4), 0);
	for (l = 0; l < 3; l++)
		for (r = 0; r < 4; r++)
			t.cell[l * 4 + r] = cells[l][r];
	ck_assert_int_eq(ranktab_compute(&t), 0);
	ck_assert_int_eq(t.median[0], 100);
	ck_assert_int_eq(t.median[1], 50);
	ck_assert_int_eq(t.median[2], 7);
	ck_assert_int_eq(t.total[0], 150);
	ck_assert_int_eq(t.total[1], 160);
	ck_assert_int_eq(t.total[2], 160);
	ck_assert_int_eq(t.total[3], 362);
	ck_assert_int_eq(t.median[3], 160);
	ck_assert_int_eq(ranktab_value(&t, 3, 3), 362);
	ck_assert_int_eq(ranktab_value(&t, 1, 2), 60);
	ck_assert_int_eq(ranktab_straggler(ranktab_value(&t, 0, 1), t.median[0], 10), 1);
	ck_assert_int_eq(ranktab_straggler(ranktab_value(&t, 1, 3), t.median[1], 10), 0);
	ranktab_free(&t);

	/* a layer without any interval: no median, no total */
	ck_assert_int_eq(ranktab_init(&t, 1, 2), 0);
	ck_assert_int_eq(ranktab_compute(&t), 0);
	ck_assert_int_eq(t.median[0], RANKTAB_NONE);
	ck_assert_int_eq(t.total[0], RANKTAB_NONE);
	ck_assert_int_eq(t.median[1], RANKTAB_NONE);
	ranktab_free(&t);
}
END_TEST

START_TEST(test_ranges)
{
	struct ranktab t;

	ck_assert_int_eq(ranktab_init(&t, 0, 2), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ranktab_init(&t, 2, 1), 0);
	t.cell[0] = RANKTAB_MAX_NS;
	t.cell[1] = 1;
	errno = 0;
	ck_assert_int_eq(ranktab_compute(&t), -1);
	ck_assert_int_eq(errno, ERANGE);
	t.cell[1] = -1;
	t.cell[0] = 1;
	ck_assert_int_eq(ranktab_compute(&t), -1);
	ck_assert_int_eq(errno, ERANGE);
	t.cell[1] = 0;
	ck_assert_int_eq(ranktab_compute(&t), 0);
	ck_assert_int_eq(t.total[0], 1);
	ranktab_free(&t);
}
END_TEST

static Suite *ranktab_suite(void)
{
	Suite *s = suite_create("ranktab");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_median_low);
	tcase_add_test(tc, test_bands);
	tcase_add_test(tc, test_compute);
	tcase_add_test(tc, test_ranges);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ranktab_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
