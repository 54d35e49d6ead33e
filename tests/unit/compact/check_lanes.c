/* Unit tests for common/compact/lanes.c: the bounds Perfetto will not disturb, and
 * lane packing: equal starts, touching intervals, zero-length intervals,
 * collisions made by Perfetto's microsecond doubles (2^53 ns and beyond),
 * groups, and the "where" of a refusal; plain numbers read in one pass
 * exactly as the tsnum conversions read them. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/lanes.h"
#include "json/tsnum.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ bounds */

struct bounds_case {
	const char *ts, *dur;
	int rc;
	int64_t start, end, lo_pad, hi_pad;
	int zero;
};

/* The Perfetto values were checked independently with python3:
 * int(float(text) * 1000) for a fractional text. */
static const struct bounds_case bounds_cases[] = {
	{ "1.5", "2.25", 0, 1500, 3750, 0, 0, 0 },
	{ "0", "0", 0, 0, 0, 0, 0, 1 },
	{ "10", "1", 0, 10000, 11000, 0, 0, 0 },
	/* sub-ns digits: start floored, end ceiled */
	{ "1757000000000.1234", "1", 0, 1757000000000123, 1757000000001124, 0, 0, 0 },
	/* past 2^53 ns: Perfetto's double puts the start 1 ns earlier */
	{ "9007199254740.993", "0.001", 0, 9007199254740993, 9007199254740994, 1, 0, 0 },
	{ "9007199254740.993", "0", 0, 9007199254740993, 9007199254740993, 1, 0, 1 },
	/* Perfetto truncates 0.4 ns to nothing: zero length there */
	{ "1234567890123.4567", "0.0004", 0, 1234567890123456, 1234567890123457, 0, 0, 1 },
	{ "1", "-1", LANES_BOUNDS_NEGATIVE, 0, 0, 0, 0, 0 },
	{ "x", "1", LANES_BOUNDS_RANGE, 0, 0, 0, 0, 0 },
	{ "1", "1e400", LANES_BOUNDS_RANGE, 0, 0, 0, 0, 0 },
	{ "9223372036854775807", "1", LANES_BOUNDS_RANGE, 0, 0, 0, 0, 0 },
	/* the edge of the times the stages compute with (tsnum.h), 2^62 - 2 ns */
	{ "4611686018427387", "0.902", LANES_BOUNDS_OK, 4611686018427387000,
	  4611686018427387902, 0, 0, 0 },
	{ "4611686018427387", "0.903", LANES_BOUNDS_RANGE, 0, 0, 0, 0, 0 },
	{ "4611686018427387", "0.9015", LANES_BOUNDS_OK, 4611686018427387000,
	  4611686018427387902, 0, 0, 0 },
	{ "4611686018427387", "0.9025", LANES_BOUNDS_RANGE, 0, 0, 0, 0, 0 },
	{ "-4611686018427387", "0", LANES_BOUNDS_OK, -4611686018427387000,
	  -4611686018427387000, 0, 0, 1 },
	{ "-4611686018427388", "0", LANES_BOUNDS_RANGE, 0, 0, 0, 0, 0 },
	{ "1", "4611686018427387", LANES_BOUNDS_RANGE, 0, 0, 0, 0, 0 },
};

/* lanes_bounds as it was before plain numbers were read in one pass: the
 * two exact and the two Perfetto conversions of tsnum.h, the oracle. */
static int oracle_bounds(const char *ts, const char *dur, struct lane_bounds *out)
{
	int64_t ts_ns, dur_ns, pf_ts, pf_dur;
	int ts_sub, dur_sub;

	if (tsnum_us_to_ns(ts, strlen(ts), &ts_ns, &ts_sub) != NUM_OK ||
	    tsnum_us_to_ns(dur, strlen(dur), &dur_ns, &dur_sub) != NUM_OK ||
	    tsnum_perfetto_us_to_ns(ts, strlen(ts), &pf_ts) != NUM_OK ||
	    tsnum_perfetto_us_to_ns(dur, strlen(dur), &pf_dur) != NUM_OK)
		return LANES_BOUNDS_RANGE;
	if (dur_ns < 0 || pf_dur < 0)
		return LANES_BOUNDS_NEGATIVE;
	/* tsnum.h: the times the stages compute with */
	if (ts_ns > TSNUM_MAX_NS || ts_ns < -TSNUM_MAX_NS || pf_ts > TSNUM_MAX_NS ||
	    pf_ts < -TSNUM_MAX_NS || dur_ns > TSNUM_MAX_NS || pf_dur > TSNUM_MAX_NS ||
	    ts_ns + dur_ns + (ts_sub || dur_sub) > TSNUM_MAX_NS ||
	    ts_ns + dur_ns < -TSNUM_MAX_NS || pf_ts + pf_dur > TSNUM_MAX_NS)
		return LANES_BOUNDS_RANGE;
	out->start_ns = ts_ns;
	out->end_ns = ts_ns + dur_ns + (ts_sub || dur_sub);
	out->lo_pad = pf_ts < out->start_ns ? out->start_ns - pf_ts : 0;
	out->hi_pad = pf_ts + pf_dur > out->end_ns ? pf_ts + pf_dur - out->end_ns : 0;
	out->zero = dur_ns == 0 || pf_dur == 0;
	return LANES_BOUNDS_OK;
}

static void same_as_oracle(const char *ts, const char *dur)
{
	struct lane_bounds got, want;
	int rc = lanes_bounds(ts, strlen(ts), dur, strlen(dur), &got);

	int64_t ns = -7, want_ns = -7;
	int sub = -7, want_sub = -7;
	int ok = lanes_us_to_ns(ts, strlen(ts), &ns, &sub) == 0;

	ck_assert_int_eq(ok, tsnum_us_to_ns(ts, strlen(ts), &want_ns, &want_sub) == NUM_OK &&
			 want_ns <= TSNUM_MAX_NS && want_ns >= -TSNUM_MAX_NS);
	if (ok) {
		ck_assert_int_eq(ns, want_ns);
		ck_assert_int_eq(sub, want_sub);
	}
	ck_assert_msg(rc == oracle_bounds(ts, dur, &want), "%s %s: rc %d", ts, dur, rc);
	if (rc != LANES_BOUNDS_OK)
		return;
	ck_assert_msg(got.start_ns == want.start_ns && got.end_ns == want.end_ns &&
		      got.lo_pad == want.lo_pad && got.hi_pad == want.hi_pad &&
		      got.zero == want.zero, "%s %s", ts, dur);
}

/* Texts of every length around the plain form's bounds (up to 15 digits
 * before the point, 9 after; 80000 generated), with and without sub-ns
 * digits, at the doubles' limits, and not plain at all: each as the
 * oracle reads it, and each ts as tsnum_us_to_ns reads it
 * (lanes_us_to_ns). */
START_TEST(test_bounds_plain_numbers)
{
	static const char *const edge[] = {
		"0", "0.0", "0.000", "0.0001", "0.0009", "1.", ".5", "01", "00.5", "-1.5", "1e3",
		"1.5e3", "1.2.3", "1a", "", "999999999999999", "999999999999999.999999999",
		"9999999999999999", "1000000000000000", "123456789012345.6789", "1.0000000001",
		"1.9999999995", "9007199254740.993", "9007199254740.9925", "4503599627370.4965",
		"1428625731492.906", "1428625731484.298", "56.342", "0.001", "0.0015", "7.5",
		"2.675", "1.0005", "+1", " 1", "1 ",
	};
	char ts[64], dur[64];
	unsigned long long x = 88172645463325252ull;
	size_t i, j;
	int k;

	for (i = 0; i < COUNT(edge); i++)
		for (j = 0; j < COUNT(edge); j++)
			same_as_oracle(edge[i], edge[j]);
	for (k = 0; k < 40000; k++) {
		int id, fd, n = 0, d;
		/* xorshift: digits of every count, leading digit never 0 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		id = (int)(x % 17);
		fd = (int)((x >> 8) % 12);
		ts[n++] = (char)('1' + (x >> 16) % 9);
		for (d = 1; d < id; d++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			ts[n++] = (char)('0' + x % 10);
		}
		if (fd > 0) {
			ts[n++] = '.';
			for (d = 0; d < fd; d++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				ts[n++] = (char)('0' + (x % 4 == 0 ? 0 : x % 10));
			}
		}
		ts[n] = '\0';
		snprintf(dur, sizeof dur, "%d.%03d", (int)(x >> 20) % 100, (int)(x >> 40) % 1000);
		same_as_oracle(ts, dur);
		same_as_oracle(dur, ts);
	}
}
END_TEST

START_TEST(test_bounds)
{
	const struct bounds_case *c = &bounds_cases[_i];
	struct lane_bounds b = { -7, -7, -7, -7, -7 };
	int rc = lanes_bounds(c->ts, strlen(c->ts), c->dur, strlen(c->dur), &b);

	ck_assert_msg(rc == c->rc, "%s %s: rc %d", c->ts, c->dur, rc);
	if (rc != 0) {
		ck_assert_int_eq(b.start_ns, -7);  /* untouched on failure */
		return;
	}
	ck_assert_int_eq(b.start_ns, c->start);
	ck_assert_int_eq(b.end_ns, c->end);
	ck_assert_int_eq(b.lo_pad, c->lo_pad);
	ck_assert_int_eq(b.hi_pad, c->hi_pad);
	ck_assert_int_eq(b.zero, c->zero);
}
END_TEST

/* ------------------------------------------------------------ packing */

/* The intervals of a test, in source order, with the lane each gets. */
struct iv {
	int64_t lo, hi;
	uint32_t group;
	int zero;
};

struct ivs {
	struct iv iv[5000];
	unsigned lane[5000];
	size_t n;
};

static struct ivs *ivs;

static void add(int64_t lo, int64_t hi, uint32_t group, int zero)
{
	struct iv *iv = &ivs->iv[ivs->n];

	iv->lo = lo;
	iv->hi = hi;
	iv->group = group;
	iv->zero = zero;
	ivs->lane[ivs->n++] = 99;
}

/* From bounds texts, as tr-compact builds its intervals. */
static void add_text(const char *ts, const char *dur, uint32_t group)
{
	struct lane_bounds b;

	ck_assert_int_eq(lanes_bounds(ts, strlen(ts), dur, strlen(dur), &b), 0);
	add(b.start_ns - b.lo_pad, b.end_ns + b.hi_pad, group, b.zero);
}

/* tr-compact's order: by group, then start, then source order. */
static int cmp_start(const void *a, const void *b)
{
	const struct iv *x = &ivs->iv[*(const uint32_t *)a], *y = &ivs->iv[*(const uint32_t *)b];
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The intervals through the packer as tr-compact feeds it, one group after
 * another, stopping at the first refused group; group_lanes[g] receives
 * each packed group's lane count. */
static int pack(unsigned max_lanes, unsigned *group_lanes, struct lanes_refusal *why)
{
	static uint32_t order[5000];
	struct lanes_pack *k = lanes_pack_new(max_lanes);
	size_t i = 0;
	int rc = LANES_OK;

	ck_assert_ptr_nonnull(k);
	for (i = 0; i < ivs->n; i++)
		order[i] = (uint32_t)i;
	qsort(order, ivs->n, sizeof *order, cmp_start);
	i = 0;
	while (rc == LANES_OK && i < ivs->n) {
		uint32_t g = ivs->iv[order[i]].group;
		unsigned nlanes = 0;

		lanes_begin(k, g);
		for (; i < ivs->n && ivs->iv[order[i]].group == g; i++) {
			const struct iv *iv = &ivs->iv[order[i]];
			unsigned lane = 99;
			int got = lanes_next(k, iv->lo, iv->hi, iv->zero, &lane);

			if (got == LANES_OVERLAP) {
				ck_assert_uint_eq(lane, 99);
				break;
			}
			ck_assert_uint_lt(lane, LANES_MAX_OVERLAP);
			ivs->lane[order[i]] = lane;
		}
		rc = lanes_end(k, &nlanes, why);
		if (rc == LANES_OK)
			group_lanes[g] = nlanes;
	}
	lanes_pack_free(k);
	return rc;
}

static void setup(void)
{
	ivs = calloc(1, sizeof *ivs);
}

static void teardown(void)
{
	free(ivs);
}

START_TEST(test_equal_starts)
{
	unsigned g[1] = { 0 };
	struct lanes_refusal why;

	/* the same start: source order decides, whatever the lengths */
	add(100, 200, 0, 0);
	add(100, 150, 0, 0);
	add(100, 300, 0, 0);
	ck_assert_int_eq(pack(10, g, &why), LANES_OK);
	ck_assert_uint_eq(ivs->lane[0], 0);
	ck_assert_uint_eq(ivs->lane[1], 1);
	ck_assert_uint_eq(ivs->lane[2], 2);
	ck_assert_uint_eq(g[0], 3);
}
END_TEST

START_TEST(test_touching)
{
	unsigned g[1] = { 0 };
	struct lanes_refusal why;

	add(0, 10, 0, 0);
	add(10, 20, 0, 0);   /* touches the first: the same lane */
	add(20, 20, 0, 1);   /* zero length, touching: still fine */
	add(20, 30, 0, 0);   /* touches a zero-length one: Perfetto would nest it */
	add(30, 40, 0, 0);   /* lane 0 ended at 20, the lowest free lane */
	ck_assert_int_eq(pack(10, g, &why), LANES_OK);
	ck_assert_uint_eq(ivs->lane[0], 0);
	ck_assert_uint_eq(ivs->lane[1], 0);
	ck_assert_uint_eq(ivs->lane[2], 0);
	ck_assert_uint_eq(ivs->lane[3], 1);
	ck_assert_uint_eq(ivs->lane[4], 0);
	ck_assert_uint_eq(g[0], 2);
}
END_TEST

START_TEST(test_rounding_collision)
{
	unsigned g[1] = { 0 };
	struct lanes_refusal why;

	/* exactly, these touch (993 ns); Perfetto starts the second 1 ns early */
	add_text("9007199254740.992", "0.001", 0);
	add_text("9007199254740.993", "0.001", 0);
	ck_assert_int_eq(pack(10, g, &why), LANES_OK);
	ck_assert_uint_eq(ivs->lane[0], 0);
	ck_assert_uint_eq(ivs->lane[1], 1);
	ck_assert_uint_eq(g[0], 2);
}
END_TEST

START_TEST(test_big_timestamps)
{
	unsigned g[1] = { 0 };
	struct lanes_refusal why;

	/* far beyond 2^53 ns, exact integer us: no double anywhere */
	add_text("4611686018427380", "1", 0);
	add_text("4611686018427381", "1", 0);
	add_text("4611686018427380.5", "1", 0);
	ck_assert_int_eq(pack(10, g, &why), LANES_OK);
	ck_assert_uint_eq(ivs->lane[0], 0);
	ck_assert_uint_eq(ivs->lane[1], 0);
	ck_assert_uint_eq(ivs->lane[2], 1);
	ck_assert_uint_eq(g[0], 2);
}
END_TEST

START_TEST(test_groups)
{
	unsigned g[3] = { 77, 77, 77 };
	struct lanes_refusal why;

	/* overlapping intervals of different groups never share the count */
	add(0, 100, 2, 0);
	add(0, 100, 0, 0);
	add(50, 150, 0, 0);
	add(10, 20, 2, 0);
	ck_assert_int_eq(pack(2, g, &why), LANES_OK);
	ck_assert_uint_eq(g[0], 2);
	ck_assert_uint_eq(g[1], 77);  /* no intervals: untouched */
	ck_assert_uint_eq(g[2], 2);
	ck_assert_uint_eq(ivs->lane[0], 0);
	ck_assert_uint_eq(ivs->lane[3], 1);
}
END_TEST

START_TEST(test_refusal_where)
{
	unsigned g[2] = { 77, 77 };
	struct lanes_refusal why;

	add(0, 10, 0, 0);      /* group 0 packs */
	add(1000, 2000, 1, 0);
	add(1100, 1500, 1, 0);
	add(1200, 1300, 1, 0); /* needs lane 3: first exceeds 2 from 1200 to 1300 */
	add(1250, 1260, 1, 0); /* peak 4 */
	add(1400, 1450, 1, 0);
	ck_assert_int_eq(pack(2, g, &why), LANES_TOO_MANY);
	ck_assert_uint_eq(why.group, 1);
	ck_assert_uint_eq(why.peak, 4);
	ck_assert_int_eq(why.from, 1200);
	ck_assert_int_eq(why.to, 1300);
	ck_assert_uint_eq(g[0], 1);
	ck_assert_uint_eq(g[1], 77);
}
END_TEST

START_TEST(test_refusal_where_other_lane_ends_first)
{
	unsigned g[1] = { 77 };
	struct lanes_refusal why;

	add(0, 500, 0, 0);
	add(100, 200, 0, 0);
	add(150, 900, 0, 0);   /* the overlap with lane 1 ends at 200 */
	ck_assert_int_eq(pack(2, g, &why), LANES_TOO_MANY);
	ck_assert_uint_eq(why.peak, 3);
	ck_assert_int_eq(why.from, 150);
	ck_assert_int_eq(why.to, 200);
}
END_TEST

START_TEST(test_overlap_limit)
{
	unsigned g[2] = { 0, 0 };
	struct lanes_refusal why;
	int i;

	for (i = 0; i < LANES_MAX_OVERLAP; i++)
		add(i, 100000, 1, 0);
	ck_assert_int_eq(pack(10, g, &why), LANES_TOO_MANY);
	add(LANES_MAX_OVERLAP, 100000, 1, 0);
	ck_assert_int_eq(pack(10, g, &why), LANES_OVERLAP);
	ck_assert_uint_eq(why.group, 1);
	ck_assert_uint_eq(why.peak, LANES_MAX_OVERLAP + 1);
	ck_assert_int_eq(why.from, 0);
	ck_assert_int_eq(why.to, 0);
}
END_TEST

/* The statuses record by record: LANES_TOO_MANY from the interval that
 * needs one lane too many on, the lanes still given for the peak; a new
 * group starts with no lanes in use and no refusal. */
START_TEST(test_stream_statuses)
{
	struct lanes_pack *k = lanes_pack_new(1);
	struct lanes_refusal why;
	unsigned lane = 99, n = 99;

	ck_assert_ptr_nonnull(k);
	lanes_begin(k, 4);
	ck_assert_int_eq(lanes_next(k, 0, 10, 0, &lane), LANES_OK);
	ck_assert_uint_eq(lane, 0);
	ck_assert_int_eq(lanes_next(k, 5, 20, 0, &lane), LANES_TOO_MANY);
	ck_assert_uint_eq(lane, 1);
	ck_assert_int_eq(lanes_next(k, 30, 40, 0, &lane), LANES_TOO_MANY);
	ck_assert_uint_eq(lane, 0);
	ck_assert_int_eq(lanes_end(k, &n, &why), LANES_TOO_MANY);
	ck_assert_uint_eq(n, 99);
	ck_assert_uint_eq(why.group, 4);
	ck_assert_uint_eq(why.peak, 2);
	ck_assert_int_eq(why.from, 5);
	ck_assert_int_eq(why.to, 10);
	lanes_begin(k, 5);
	ck_assert_int_eq(lanes_next(k, 0, 10, 0, &lane), LANES_OK);
	ck_assert_uint_eq(lane, 0);
	ck_assert_int_eq(lanes_next(k, 10, 20, 0, &lane), LANES_OK);
	ck_assert_uint_eq(lane, 0);
	ck_assert_int_eq(lanes_end(k, &n, &why), LANES_OK);
	ck_assert_uint_eq(n, 1);
	lanes_pack_free(k);
}
END_TEST

START_TEST(test_empty)
{
	unsigned g[1] = { 5 };
	struct lanes_refusal why;

	ck_assert_int_eq(pack(1, g, &why), LANES_OK);
	ck_assert_uint_eq(g[0], 5);
}
END_TEST

static Suite *lanes_suite(void)
{
	Suite *s = suite_create("lanes");
	TCase *tb = tcase_create("bounds");
	TCase *tp = tcase_create("pack");

	tcase_add_loop_test(tb, test_bounds, 0, (int)COUNT(bounds_cases));
	tcase_add_test(tb, test_bounds_plain_numbers);
	tcase_set_timeout(tb, 60); /* many texts: slow under ASan and valgrind */
	suite_add_tcase(s, tb);
	tcase_add_checked_fixture(tp, setup, teardown);
	tcase_add_test(tp, test_equal_starts);
	tcase_add_test(tp, test_touching);
	tcase_add_test(tp, test_rounding_collision);
	tcase_add_test(tp, test_big_timestamps);
	tcase_add_test(tp, test_groups);
	tcase_add_test(tp, test_refusal_where);
	tcase_add_test(tp, test_refusal_where_other_lane_ends_first);
	tcase_add_test(tp, test_overlap_limit);
	tcase_add_test(tp, test_empty);
	tcase_add_test(tp, test_stream_statuses);
	suite_add_tcase(s, tp);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lanes_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
