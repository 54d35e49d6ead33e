/* Unit tests for common/anchors/anchors.c: every refusal of a selection, of a
 * terminal and of a GPU landmark, and of a selection that is not whole
 * passes, with the evidence each names, and the exact time order (digits
 * beyond the nanosecond). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "anchors/anchors.h"

#define NONE ((size_t)-1)

/* kernel at ts ns (no sub-ns digits), dur ns, source index */
static struct anchors_kernel K(uint64_t index, int64_t ts, int64_t dur)
{
	struct anchors_kernel k = { index, ts, dur, 0, 0, 1, 0 };
	return k;
}

static struct anchors_time TM(int64_t ns, int sub)
{
	struct anchors_time t = { ns, sub };
	return t;
}

START_TEST(test_time_order)
{
	struct anchors_time a = TM(5, 0), b = TM(5, 1), c = TM(6, 0);
	struct anchors_kernel x = K(9, 100, 1), y = K(3, 100, 1);

	ck_assert_int_lt(anchors_time_cmp(&a, &b), 0);
	ck_assert_int_lt(anchors_time_cmp(&b, &c), 0);
	ck_assert_int_eq(anchors_time_cmp(&b, &b), 0);
	/* equal times: source order */
	ck_assert_int_gt(anchors_kernel_cmp(&x, &y), 0);
	y.ts_sub = 1;
	ck_assert_int_lt(anchors_kernel_cmp(&x, &y), 0);
}
END_TEST

START_TEST(test_count_between)
{
	struct anchors_time v[5] = { TM(10, 0), TM(10, 1), TM(20, 0), TM(20, 0), TM(30, 0) };

	ck_assert_uint_eq(anchors_count_between(v, 5, TM(10, 0), TM(20, 0)), 2);
	ck_assert_uint_eq(anchors_count_between(v, 5, TM(10, 1), TM(20, 1)), 3);
	ck_assert_uint_eq(anchors_count_between(v, 5, TM(11, 0), TM(20, 0)), 0);
	ck_assert_uint_eq(anchors_count_between(v, 5, TM(30, 0), TM(30, 0)), 0);
	ck_assert_uint_eq(anchors_count_between(v, 5, TM(40, 0), TM(30, 0)), 0);
	ck_assert_uint_eq(anchors_count_between(v, 0, TM(0, 0), TM(99, 0)), 0);
}
END_TEST

START_TEST(test_select_ok)
{
	struct anchors_kernel a[4] = { K(0, 10, 1), K(1, 20, 0), K(2, 30, 5), K(3, 40, 1) };
	struct anchors_result r;

	ck_assert_int_eq(anchors_select(a, 4, 1, 3, &r), ANCHORS_OK);
	ck_assert_int_eq(r.status, ANCHORS_OK);
	ck_assert_int_eq(anchors_select(a, 4, 0, 4, &r), ANCHORS_OK);
}
END_TEST

START_TEST(test_select_truncated)
{
	struct anchors_kernel a[4] = { K(0, 10, 1), K(1, 20, 1), K(2, 30, 1), K(3, 40, 1) };
	struct anchors_result r;

	ck_assert_int_eq(anchors_select(a, 4, 2, 3, &r), ANCHORS_TRUNCATED);
	ck_assert_uint_eq(r.count, 2);   /* from the offset there are 2 */
	ck_assert_int_eq(anchors_select(a, 4, 4, 1, &r), ANCHORS_TRUNCATED);
	ck_assert_uint_eq(r.count, 0);
	ck_assert_int_eq(anchors_select(a, 4, 9, 1, &r), ANCHORS_TRUNCATED);
	ck_assert_uint_eq(r.count, 0);
	ck_assert_int_eq(anchors_select(a, 0, 0, 1, &r), ANCHORS_TRUNCATED);
}
END_TEST

START_TEST(test_select_durations)
{
	struct anchors_kernel a[4] = { K(0, 10, -1), K(1, 20, 1), K(2, 30, 1), K(3, 40, -5) };
	struct anchors_result r;

	/* a bad dur outside the selection does not matter */
	ck_assert_int_eq(anchors_select(a, 4, 1, 2, &r), ANCHORS_OK);
	ck_assert_int_eq(anchors_select(a, 4, 1, 3, &r), ANCHORS_NEGATIVE_DUR);
	ck_assert_uint_eq(r.at, 3);
	a[2].dur_ok = 0;
	ck_assert_int_eq(anchors_select(a, 4, 1, 3, &r), ANCHORS_NO_DUR);
	ck_assert_uint_eq(r.at, 2);
}
END_TEST

START_TEST(test_select_not_increasing)
{
	struct anchors_kernel a[3] = { K(0, 10, 1), K(1, 20, 1), K(2, 20, 1) };
	struct anchors_result r;

	ck_assert_int_eq(anchors_select(a, 3, 0, 3, &r), ANCHORS_NOT_INCREASING);
	ck_assert_uint_eq(r.at, 2);
	/* 20.0001 after 20: strictly later */
	a[2].ts_sub = 1;
	ck_assert_int_eq(anchors_select(a, 3, 0, 3, &r), ANCHORS_OK);
	/* both beyond the ns on the same floor: cannot be ordered */
	a[1].ts_sub = 1;
	ck_assert_int_eq(anchors_select(a, 3, 0, 3, &r), ANCHORS_NOT_INCREASING);
	ck_assert_uint_eq(r.at, 2);
	/* a duration problem of the same kernel is named first */
	a[2].dur_ns = -1;
	ck_assert_int_eq(anchors_select(a, 3, 0, 3, &r), ANCHORS_NEGATIVE_DUR);
}
END_TEST

START_TEST(test_terminal)
{
	struct anchors_kernel an[2] = { K(0, 100, 1), K(5, 200, 1) };
	struct anchors_kernel e[3] = { K(1, 90, 1), K(2, 150, 30), K(6, 250, 10) };
	struct anchors_result r;

	ck_assert_int_eq(anchors_terminal(e, 3, &an[0], &an[1], &r), ANCHORS_OK);
	ck_assert_uint_eq(r.at, 1);
	/* the last anchor: up to the end of the trace */
	ck_assert_int_eq(anchors_terminal(e, 3, &an[1], NULL, &r), ANCHORS_OK);
	ck_assert_uint_eq(r.at, 2);
	/* ends past the next anchor */
	e[1].dur_ns = 51;
	ck_assert_int_eq(anchors_terminal(e, 3, &an[0], &an[1], &r), ANCHORS_TERMINAL_PAST_NEXT);
	ck_assert_uint_eq(r.at, 1);
	e[1].dur_ns = 50;  /* ending as the next starts is fine */
	ck_assert_int_eq(anchors_terminal(e, 3, &an[0], &an[1], &r), ANCHORS_OK);
	e[1].dur_ns = -1;
	ck_assert_int_eq(anchors_terminal(e, 3, &an[0], &an[1], &r), ANCHORS_TERMINAL_NEGATIVE_DUR);
	e[1].dur_ok = 0;
	ck_assert_int_eq(anchors_terminal(e, 3, &an[0], &an[1], &r), ANCHORS_TERMINAL_NO_DUR);
	ck_assert_uint_eq(r.at, 1);
}
END_TEST

START_TEST(test_terminal_count)
{
	struct anchors_kernel an[2] = { K(0, 100, 1), K(5, 200, 1) };
	/* one at the anchor's own ts counts; one at the next anchor's does
	 * only when it comes first in source order */
	struct anchors_kernel e[3] = { K(1, 100, 1), K(2, 150, 1), K(6, 200, 1) };
	struct anchors_result r;

	ck_assert_int_eq(anchors_terminal(e, 3, &an[0], &an[1], &r), ANCHORS_TERMINAL_COUNT);
	ck_assert_uint_eq(r.count, 2);
	ck_assert_int_eq(anchors_terminal(e, 1, &an[1], NULL, &r), ANCHORS_TERMINAL_COUNT);
	ck_assert_uint_eq(r.count, 0);
	e[2].index = 4;  /* before the next anchor in source order */
	e[2].dur_ns = 0;  /* and ending as it starts */
	ck_assert_int_eq(anchors_terminal(&e[2], 1, &an[0], &an[1], &r), ANCHORS_OK);
	ck_assert_int_eq(anchors_terminal(e, 0, &an[0], &an[1], &r), ANCHORS_TERMINAL_COUNT);
	ck_assert_uint_eq(r.count, 0);
}
END_TEST

START_TEST(test_gpu_landmark)
{
	/* one skipped anchor, then 2 passes of 2 layers */
	struct anchors_kernel a[5] = { K(0, 0, 1), K(1, 100, 1), K(2, 200, 1), K(3, 300, 1),
				       K(4, 400, 1) };
	struct anchors_time m[3] = { TM(100, 0), TM(250, 0), TM(300, 0) };
	struct anchors_result r;

	/* without terminals the last layer of a pass is not checked */
	ck_assert_int_eq(anchors_gpu_landmark(a, 5, 1, 4, 2, NULL, 0, m, 3, &r), ANCHORS_OK);
	/* [300, 400) of the second pass loses its landmark: 299.x is before */
	m[2] = TM(299, 1);
	ck_assert_int_eq(anchors_gpu_landmark(a, 5, 1, 4, 2, NULL, 0, m, 3, &r),
			 ANCHORS_LANDMARK_COUNT);
	ck_assert_uint_eq(r.at, 2);
	ck_assert_uint_eq(r.count, 0);
	ck_assert_uint_eq(r.term, NONE);
}
END_TEST

START_TEST(test_gpu_landmark_two)
{
	struct anchors_kernel a[3] = { K(0, 100, 1), K(1, 200, 1), K(2, 300, 1) };
	struct anchors_time m[3] = { TM(100, 0), TM(199, 1), TM(250, 0) };
	struct anchors_result r;

	ck_assert_int_eq(anchors_gpu_landmark(a, 3, 0, 3, 3, NULL, 0, m, 3, &r),
			 ANCHORS_LANDMARK_COUNT);
	ck_assert_uint_eq(r.at, 0);
	ck_assert_uint_eq(r.count, 2);
}
END_TEST

START_TEST(test_gpu_landmark_last_layer)
{
	/* 1 pass of 2 layers; the last layer runs to its terminal's end */
	struct anchors_kernel a[2] = { K(0, 100, 1), K(1, 200, 1) };
	struct anchors_kernel e[1] = { K(2, 250, 50) };
	struct anchors_time m[3] = { TM(150, 0), TM(210, 0), TM(300, 0) };
	struct anchors_result r;

	/* [200, 300): the landmark at 300 is outside */
	ck_assert_int_eq(anchors_gpu_landmark(a, 2, 0, 2, 2, e, 1, m, 3, &r), ANCHORS_OK);
	m[1] = TM(299, 1);
	m[2] = TM(299, 1);
	ck_assert_int_eq(anchors_gpu_landmark(a, 2, 0, 2, 2, e, 1, m, 3, &r),
			 ANCHORS_LANDMARK_COUNT);
	ck_assert_uint_eq(r.at, 1);
	ck_assert_uint_eq(r.count, 2);
	ck_assert_uint_eq(r.term, 0);
	/* sub-ns digits of the terminal's dur make its end a ceiling: [200, 300.x) */
	m[1] = TM(300, 0);
	m[2] = TM(400, 0);
	ck_assert_int_eq(anchors_gpu_landmark(a, 2, 0, 2, 2, e, 1, m, 3, &r),
			 ANCHORS_LANDMARK_COUNT);
	ck_assert_uint_eq(r.count, 0);
	e[0].dur_sub = 1;
	ck_assert_int_eq(anchors_gpu_landmark(a, 2, 0, 2, 2, e, 1, m, 3, &r), ANCHORS_OK);
	/* a terminal without a dur: the last layer is not checked */
	e[0].dur_ok = 0;
	m[1] = TM(400, 0);
	ck_assert_int_eq(anchors_gpu_landmark(a, 2, 0, 2, 2, e, 1, m, 3, &r), ANCHORS_OK);
}
END_TEST

START_TEST(test_choose_group)
{
	struct anchors_where w[4] = { { "1", "0" }, { "0", "0" }, { "0", "1" }, { "2", "(none)" } };
	int want[4] = { 0, 1, 0, 0 };
	struct anchors_result r;

	ck_assert_int_eq(anchors_choose_group(w, want, 4, &r), ANCHORS_OK);
	ck_assert_uint_eq(r.at, 1);
	/* another device of the same pid */
	want[2] = 1;
	ck_assert_int_eq(anchors_choose_group(w, want, 4, &r), ANCHORS_SEVERAL_DEVICES);
	ck_assert_uint_eq(r.at, 1);
	/* another pid is named first, even after a device problem */
	want[3] = 1;
	ck_assert_int_eq(anchors_choose_group(w, want, 4, &r), ANCHORS_SEVERAL_PIDS);
	/* a match that is not wanted (another --pid, or not an anchor) counts not */
	want[1] = want[2] = want[3] = 0;
	ck_assert_int_eq(anchors_choose_group(w, want, 4, &r), ANCHORS_NO_MATCH);
	ck_assert_int_eq(anchors_choose_group(w, want, 0, &r), ANCHORS_NO_MATCH);
	want[3] = 1;
	ck_assert_int_eq(anchors_choose_group(w, want, 4, &r), ANCHORS_OK);
	ck_assert_uint_eq(r.at, 3);
}
END_TEST

/* anchors at the given ns (dur 1), source index = position */
static void at_times(struct anchors_kernel *a, const int64_t *ts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		a[i] = K(i, ts[i], 1);
}

START_TEST(test_shape_whole_passes)
{
	/* passes of 3, 10 ns apart inside, 100 ns between */
	static const int64_t ts[] = { 0, 10, 20, 120, 130, 140, 240, 250, 260 };
	struct anchors_kernel a[9];
	int64_t scr[16];
	struct anchors_shape sh;
	struct anchors_result r;

	at_times(a, ts, 9);
	ck_assert_int_eq(anchors_pass_shape(a, 9, 0, 3, 3, scr, &sh, &r), ANCHORS_OK);
	/* one pass, whole passes before and after it */
	ck_assert_int_eq(anchors_pass_shape(a, 9, 3, 3, 1, scr, &sh, &r), ANCHORS_OK);
	ck_assert_int_eq(anchors_pass_shape(a, 9, 6, 3, 1, scr, &sh, &r), ANCHORS_OK);
	/* a single pass with nothing beside it: nothing to compare */
	ck_assert_int_eq(anchors_pass_shape(a, 3, 0, 3, 1, scr, &sh, &r), ANCHORS_OK);
	/* one layer per pass: no rhythm inside a pass, nothing checked */
	ck_assert_int_eq(anchors_pass_shape(a, 9, 0, 1, 9, scr, &sh, &r), ANCHORS_OK);
}
END_TEST

START_TEST(test_shape_between)
{
	/* twice per layer: passes of 6 read as passes of 3 */
	static const int64_t ts[] = { 0, 10, 20, 30, 40, 50, 150, 160, 170, 180, 190, 200 };
	struct anchors_kernel a[12];
	int64_t scr[16];
	struct anchors_shape sh;
	struct anchors_result r;

	at_times(a, ts, 12);
	ck_assert_int_eq(anchors_pass_shape(a, 12, 0, 3, 4, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(r.status, ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.where, ANCHORS_BETWEEN);
	ck_assert_uint_eq(sh.pass, 0);
	ck_assert_uint_eq(sh.left, 2);
	ck_assert_uint_eq(sh.right, 3);
	ck_assert_int_eq(sh.gap, 10);
	ck_assert_int_eq(sh.rhythm[0], 10);
	ck_assert_int_eq(sh.rhythm[1], 10);
	ck_assert_uint_eq(r.at, 3);
	ck_assert_uint_eq(r.count, 0);
	/* the right count per pass */
	ck_assert_int_eq(anchors_pass_shape(a, 12, 0, 6, 2, scr, &sh, &r), ANCHORS_OK);
}
END_TEST

START_TEST(test_shape_ratio)
{
	/* the boundary against 5/4 of the shorter rhythm: passes of 3 with
	 * gaps 8 and 8 (left) and 4 and 4 (right): 5 is refused, 6 not */
	int64_t ts[] = { 0, 8, 16, 21, 25, 29 };
	struct anchors_kernel a[6];
	int64_t scr[16];
	struct anchors_shape sh;
	struct anchors_result r;

	at_times(a, ts, 6);
	ck_assert_int_eq(anchors_pass_shape(a, 6, 0, 3, 2, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.gap, 5);
	ck_assert_int_eq(sh.rhythm[0], 8);
	ck_assert_int_eq(sh.rhythm[1], 4);
	ts[3] = 22, ts[4] = 26, ts[5] = 30;
	at_times(a, ts, 6);
	ck_assert_int_eq(anchors_pass_shape(a, 6, 0, 3, 2, scr, &sh, &r), ANCHORS_OK);
	/* near INT64_MAX: 5/4 of the rhythm without overflow */
	ts[0] = INT64_MAX - 100, ts[1] = INT64_MAX - 92, ts[2] = INT64_MAX - 84;
	ts[3] = INT64_MAX - 74, ts[4] = INT64_MAX - 66, ts[5] = INT64_MAX - 58;
	at_times(a, ts, 6);
	ck_assert_int_eq(anchors_pass_shape(a, 6, 0, 3, 2, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.gap, 10);
	ts[3] = INT64_MAX - 73, ts[4] = INT64_MAX - 65, ts[5] = INT64_MAX - 57;
	at_times(a, ts, 6);
	ck_assert_int_eq(anchors_pass_shape(a, 6, 0, 3, 2, scr, &sh, &r), ANCHORS_OK);
	/* a rhythm of 2^61 (passes of 2: one gap each, none set aside): 5 times
	 * it is past INT64_MAX, 5/4 of it is counted exactly */
	ts[0] = 0, ts[1] = (int64_t)1 << 61;
	ts[2] = ts[1] + ((int64_t)1 << 61) + ((int64_t)1 << 59), ts[3] = ts[2] + ((int64_t)1 << 61);
	at_times(a, ts, 4);
	ck_assert_int_eq(anchors_pass_shape(a, 4, 0, 2, 2, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.rhythm[0], (int64_t)1 << 61);
	ts[2]++, ts[3]++;
	at_times(a, ts, 4);
	ck_assert_int_eq(anchors_pass_shape(a, 4, 0, 2, 2, scr, &sh, &r), ANCHORS_OK);
}
END_TEST

START_TEST(test_shape_slow_layer)
{
	/* passes of 4 with one slow layer (a gap of 50 among gaps of 10) and
	 * 65 between passes: the slow gap is set aside, the boundary stands */
	static const int64_t ts[] = { 0, 10, 60, 70, 135, 145, 195, 205 };
	/* twelve gaps, two slow ones: only the longest is set aside */
	static const int64_t t2[] = { 0, 10, 60, 70, 80, 130, 140, 150, 160, 170, 180, 190, 200,
				      255 };
	struct anchors_kernel a[14];
	int64_t scr[16];
	struct anchors_shape sh;
	struct anchors_result r;

	at_times(a, ts, 8);
	ck_assert_int_eq(anchors_pass_shape(a, 8, 0, 4, 2, scr, &sh, &r), ANCHORS_OK);
	at_times(a, t2, 14);
	ck_assert_int_eq(anchors_pass_shape(a, 14, 0, 13, 1, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.where, ANCHORS_AFTER);
	ck_assert_int_eq(sh.gap, 55);
	ck_assert_int_eq(sh.rhythm[0], 50);
	ck_assert_int_eq(sh.rhythm[1], -1);
}
END_TEST

START_TEST(test_shape_before_after)
{
	/* a pass of 4 at a 10 ns rhythm, then 4 more matches at it */
	static const int64_t ts[] = { 0, 10, 20, 30, 40, 50, 60, 70 };
	struct anchors_kernel a[8];
	int64_t scr[16];
	struct anchors_shape sh;
	struct anchors_result r;

	at_times(a, ts, 8);
	ck_assert_int_eq(anchors_pass_shape(a, 8, 0, 4, 1, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.where, ANCHORS_AFTER);
	ck_assert_uint_eq(sh.left, 3);
	ck_assert_uint_eq(sh.right, 4);
	ck_assert_int_eq(sh.rhythm[0], 10);
	ck_assert_int_eq(sh.rhythm[1], 10);
	/* from offset 4: the match before it */
	ck_assert_int_eq(anchors_pass_shape(a, 8, 4, 4, 1, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.where, ANCHORS_BEFORE);
	ck_assert_uint_eq(sh.left, 3);
	ck_assert_uint_eq(sh.right, 4);
	/* a single match after: its side has no rhythm, the pass's is used */
	ck_assert_int_eq(anchors_pass_shape(a, 5, 0, 4, 1, scr, &sh, &r), ANCHORS_PASS_CUT);
	ck_assert_int_eq(sh.where, ANCHORS_AFTER);
	ck_assert_int_eq(sh.rhythm[1], -1);
	/* the shorter rhythm counts: a slow pass, then faster matches whose
	 * first lies far enough */
	{
		static const int64_t t2[] = { 0, 100, 200, 300, 310, 312, 314 };
		struct anchors_kernel b[7];
		at_times(b, t2, 7);
		ck_assert_int_eq(anchors_pass_shape(b, 7, 0, 4, 1, scr, &sh, &r), ANCHORS_OK);
		/* ... but not when they follow at the pass's own rhythm */
		b[4] = K(4, 400, 1), b[5] = K(5, 500, 1), b[6] = K(6, 600, 1);
		ck_assert_int_eq(anchors_pass_shape(b, 7, 0, 4, 1, scr, &sh, &r), ANCHORS_PASS_CUT);
	}
}
END_TEST

START_TEST(test_steps)
{
	static const int64_t ts[] = { 100, 200, 300, 1100, 1200, 1300 };
	struct anchors_kernel a[6];
	struct anchors_time steps[3] = { TM(50, 0), TM(950, 0), TM(2000, 0) };
	struct anchors_result r;

	at_times(a, ts, 6);
	ck_assert_int_eq(anchors_steps(a, 0, 3, 2, steps, 3, &r), ANCHORS_OK);
	ck_assert_int_eq(anchors_steps(a, 0, 3, 2, steps, 0, &r), ANCHORS_OK);
	/* a step at a pass's first anchor agrees; one at its last does not */
	steps[1] = TM(1100, 0);
	ck_assert_int_eq(anchors_steps(a, 0, 3, 2, steps, 3, &r), ANCHORS_OK);
	steps[1] = TM(1300, 0);
	ck_assert_int_eq(anchors_steps(a, 0, 3, 2, steps, 3, &r), ANCHORS_STEP_INSIDE);
	ck_assert_uint_eq(r.at, 1);
	ck_assert_uint_eq(r.count, 1);
	/* beyond the nanosecond: just after the first anchor is inside */
	steps[1] = TM(100, 1);
	ck_assert_int_eq(anchors_steps(a, 0, 3, 2, steps, 3, &r), ANCHORS_STEP_INSIDE);
	ck_assert_uint_eq(r.count, 0);
	/* the second pass alone, from offset 3 */
	ck_assert_int_eq(anchors_steps(a, 3, 3, 1, steps, 3, &r), ANCHORS_OK);
}
END_TEST

static Suite *anchors_suite(void)
{
	Suite *s = suite_create("anchors");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_time_order);
	tcase_add_test(tc, test_count_between);
	tcase_add_test(tc, test_choose_group);
	tcase_add_test(tc, test_select_ok);
	tcase_add_test(tc, test_select_truncated);
	tcase_add_test(tc, test_select_durations);
	tcase_add_test(tc, test_select_not_increasing);
	tcase_add_test(tc, test_terminal);
	tcase_add_test(tc, test_terminal_count);
	tcase_add_test(tc, test_gpu_landmark);
	tcase_add_test(tc, test_gpu_landmark_two);
	tcase_add_test(tc, test_gpu_landmark_last_layer);
	tcase_add_test(tc, test_shape_whole_passes);
	tcase_add_test(tc, test_shape_between);
	tcase_add_test(tc, test_shape_ratio);
	tcase_add_test(tc, test_shape_slow_layer);
	tcase_add_test(tc, test_shape_before_after);
	tcase_add_test(tc, test_steps);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(anchors_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
