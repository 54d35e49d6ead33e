/* Unit tests for common/guides/guides.c: guide ends (next anchor, the last layer
 * with and without an end anchor, passes), rounding to the microsecond
 * (half away from zero), and both refusals. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guides/guides.h"
#include "../../oracle.h"
#include "json/tsnum.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static struct guides_anchor A(size_t layer, int64_t ts)
{
	struct guides_anchor a = { layer, ts, 0, 0 };
	return a;
}

static struct guides_anchor T(size_t layer, int64_t ts, int64_t term_end)
{
	struct guides_anchor a = { layer, ts, 1, term_end };
	return a;
}

/* The X slice of guide g alone: its track's tail made for it. */
static int guides_put_slice(struct buf *b, const struct guides_track *t,
			    const struct guides_row *g, int64_t origin_ns)
{
	struct buf tail = BUF_INIT;
	int rc = guides_slice_tail(&tail, t);

	if (rc == 0)
		rc = guides_put_slice_tail(b, t, g, origin_ns, &tail);
	buf_release(&tail);
	return rc;
}

START_TEST(test_kind_names)
{
	ck_assert_str_eq(guides_kind_name(GUIDES_NEXT_LAYER_ANCHOR), "next_layer_anchor");
	ck_assert_str_eq(guides_kind_name(GUIDES_TERMINAL_KERNEL_END), "terminal_kernel_end");
	ck_assert_str_eq(guides_kind_name(GUIDES_ANCHOR_POINT_ONLY), "anchor_point_only");
}
END_TEST

START_TEST(test_last_layer_without_end_anchor)
{
	struct guides_anchor a[3] = { A(0, 1000), A(1, 5000), A(2, 9000) };
	struct guides_span s[3];
	size_t where = 77;

	ck_assert_int_eq(guides_build(a, 3, 3, s, &where), GUIDES_OK);
	ck_assert_uint_eq(where, 77);
	ck_assert_int_eq(s[0].kind, GUIDES_NEXT_LAYER_ANCHOR);
	ck_assert_int_eq(s[0].start_ns, 1000);
	ck_assert_int_eq(s[0].end_ns, 5000);
	ck_assert_int_eq(s[1].end_ns, 9000);
	/* the last layer is a point at its anchor */
	ck_assert_int_eq(s[2].kind, GUIDES_ANCHOR_POINT_ONLY);
	ck_assert_int_eq(s[2].start_ns, 9000);
	ck_assert_int_eq(s[2].end_ns, 9000);
	ck_assert_int_eq(s[2].start_us, 9);
	ck_assert_int_eq(s[2].end_us, 9);
}
END_TEST

START_TEST(test_last_layer_with_end_anchor)
{
	/* two passes of two layers: each pass's last layer ends at its
	 * terminal kernel, not at the next pass's first anchor */
	struct guides_anchor a[4] = { A(0, 1000), T(1, 2000, 3499), A(0, 10000), T(1, 11000, 12500) };
	struct guides_span s[4];
	size_t where;

	ck_assert_int_eq(guides_build(a, 4, 2, s, &where), GUIDES_OK);
	ck_assert_int_eq(s[0].kind, GUIDES_NEXT_LAYER_ANCHOR);
	ck_assert_int_eq(s[1].kind, GUIDES_TERMINAL_KERNEL_END);
	ck_assert_int_eq(s[1].end_ns, 3499);
	ck_assert_int_eq(s[1].end_us, 3);
	ck_assert_int_eq(s[2].kind, GUIDES_NEXT_LAYER_ANCHOR);
	ck_assert_int_eq(s[2].end_ns, 11000);
	ck_assert_int_eq(s[3].kind, GUIDES_TERMINAL_KERNEL_END);
	ck_assert_int_eq(s[3].end_ns, 12500);
	ck_assert_int_eq(s[3].end_us, 13);   /* half away from zero */
}
END_TEST

START_TEST(test_single_layer_passes)
{
	/* --num-layers 1: every guide is a last layer */
	struct guides_anchor a[2] = { A(0, 1000), A(0, 2000) };
	struct guides_span s[2];
	size_t where;

	ck_assert_int_eq(guides_build(a, 2, 1, s, &where), GUIDES_OK);
	ck_assert_int_eq(s[0].kind, GUIDES_ANCHOR_POINT_ONLY);
	ck_assert_int_eq(s[0].end_ns, 1000);
	ck_assert_int_eq(s[1].kind, GUIDES_ANCHOR_POINT_ONLY);
}
END_TEST

struct round_case {
	int64_t ns, us;
};

/* ties away from zero on both sides of zero */
static const struct round_case round_cases[] = {
	{ 0, 0 }, { 499, 0 }, { 500, 1 }, { 1499, 1 }, { 1500, 2 }, { 2500, 3 },
	{ -499, 0 }, { -500, -1 }, { -1500, -2 }, { -2500, -3 }, { -2501, -3 },
	{ 1757000000000123500, 1757000000000124 },
	{ INT64_MAX, INT64_MAX / 1000 + 1 },
};

START_TEST(test_rounding)
{
	const struct round_case *c = &round_cases[_i];
	struct guides_anchor a[1];
	struct guides_span s[1];
	size_t where;

	a[0] = T(0, c->ns, c->ns);
	ck_assert_int_eq(guides_build(a, 1, 1, s, &where), GUIDES_OK);
	ck_assert_msg(s[0].start_us == c->us, "%lld ns -> %lld us", (long long)c->ns,
		      (long long)s[0].start_us);
	ck_assert_int_eq(s[0].end_us, c->us);
}
END_TEST

START_TEST(test_backwards)
{
	/* the terminal kernel ends before the anchor, in whole us */
	struct guides_anchor a[2] = { A(0, 1000), T(1, 10000, 9400) };
	struct guides_span s[2];
	size_t where = 77;

	ck_assert_int_eq(guides_build(a, 2, 2, s, &where), GUIDES_BACKWARDS);
	ck_assert_uint_eq(where, 1);
}
END_TEST

START_TEST(test_backwards_only_when_rounded)
{
	/* exactly backwards by 2 ns, equal once rounded: a zero-length guide */
	struct guides_anchor a[1] = { T(0, 10001, 9999) };
	struct guides_span s[1];
	size_t where;

	ck_assert_int_eq(guides_build(a, 1, 1, s, &where), GUIDES_OK);
	ck_assert_int_eq(s[0].start_us, 10);
	ck_assert_int_eq(s[0].end_us, 10);
}
END_TEST

START_TEST(test_same_microsecond)
{
	struct guides_anchor a[3] = { A(0, 1000), A(1, 5000), A(2, 5499) };
	struct guides_span s[3];
	size_t where = 77;

	ck_assert_int_eq(guides_build(a, 3, 3, s, &where), GUIDES_SAME_US);
	ck_assert_uint_eq(where, 1);
}
END_TEST

START_TEST(test_backwards_reported_first)
{
	/* both problems: the backwards guide is named */
	struct guides_anchor a[3] = { A(0, 1000), A(0, 1200), T(0, 9000, 7000) };
	struct guides_span s[3];
	size_t where = 77;

	ck_assert_int_eq(guides_build(a, 3, 1, s, &where), GUIDES_BACKWARDS);
	ck_assert_uint_eq(where, 2);
}
END_TEST

START_TEST(test_anchors_stop_inside_a_pass)
{
	/* a stream that ends mid-pass: the guide does not read past it */
	struct guides_anchor a[2] = { A(0, 1000), A(1, 2000) };
	struct guides_span s[2];
	size_t where;

	ck_assert_int_eq(guides_build(a, 2, 3, s, &where), GUIDES_OK);
	ck_assert_int_eq(s[1].kind, GUIDES_ANCHOR_POINT_ONLY);
	ck_assert_int_eq(s[1].end_ns, 2000);
}
END_TEST

START_TEST(test_choose_tid)
{
	int64_t used[] = { 1, 3, 2 };
	int64_t tid = 0;

	ck_assert_int_eq(guides_choose_tid(used, 3, 4, &tid), 0);
	ck_assert_int_eq(tid, 5);
	ck_assert_int_eq(guides_choose_tid(used, 3, -1, &tid), 0);
	ck_assert_int_eq(tid, 4);
	ck_assert_int_eq(guides_choose_tid(NULL, 0, 1, &tid), 0);
	ck_assert_int_eq(tid, 2);
}
END_TEST

/* Many used tids, shuffled, repeated, and some out of any candidate's
 * reach (0, negative, beyond 2^31): the smallest free positive tid against
 * a look at every candidate in turn. */
struct many_tid_case {
	size_t n;        /* tids 1 .. n used, but for gap (0: none) */
	int64_t gap, pid, want;
};

static const struct many_tid_case many_tid_cases[] = {
	{ 50000, 0, 50001, 50002 },    /* all taken up to n + 1 */
	{ 50000, 0, 0, 50001 },
	{ 50000, 0, -7, 50001 },
	{ 50000, 1, 2, 1 },
	{ 50000, 49999, 3, 49999 },
	{ 50000, 17, 17, 50001 },      /* the gap is the pid */
	{ 50000, 50000, 50001, 50000 },
	{ 1, 0, 1, 2 },
	{ 1, 1, 1, 2 },
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The other way: the used tids and the pid sorted, then the first
 * positive integer the sorted run skips. */
static int64_t tid_sorted(const int64_t *used, size_t n, int64_t pid)
{
	int64_t *v = malloc((n + 1) * sizeof *v), c = 1;
	size_t k;

	ck_assert_ptr_nonnull(v);
	memcpy(v, used, n * sizeof *v);
	v[n] = pid;
	qsort(v, n + 1, sizeof *v, cmp_i64);
	for (k = 0; k <= n && v[k] <= c; k++)
		if (v[k] == c)
			c++;
	free(v);
	return c;
}

START_TEST(test_choose_tid_many)
{
	const struct many_tid_case *tc = &many_tid_cases[_i];
	size_t n = tc->n + 6, m = 0, k;
	int64_t *used = malloc(n * sizeof *used), tid = 0;
	uint64_t x = 5;

	ck_assert_ptr_nonnull(used);
	for (k = 1; k <= tc->n; k++)
		if ((int64_t)k != tc->gap)
			used[m++] = (int64_t)k;
	used[m++] = 0;
	used[m++] = -3;
	used[m++] = INT64_MIN;
	used[m++] = (int64_t)INT32_MAX + 2;
	used[m++] = INT64_MAX;
	if (m > 5)
		used[m++] = used[0];      /* a repeat */
	for (k = m; k > 1; k--) {         /* shuffled */
		size_t j;
		int64_t t;
		x = x * 6364136223846793005u + 1442695040888963407u;
		j = (size_t)(x >> 33) % k;
		t = used[k - 1];
		used[k - 1] = used[j];
		used[j] = t;
	}
	ck_assert_int_eq(guides_choose_tid(used, m, tc->pid, &tid), 0);
	ck_assert_int_eq(tid, tc->want);
	ck_assert_int_eq(tid, tid_sorted(used, m, tc->pid));
	free(used);
}
END_TEST

START_TEST(test_written)
{
	struct guides_track t = { "0", 5, NULL, "decode", "e\"v" };
	struct guides_row g = { 1, 7, 9, 1500, 2500, 2, 3, "1.5", "2.5", "next_layer_anchor",
				"\"k\"", "7" };
	struct buf name = BUF_INIT, a = BUF_INIT, b = BUF_INIT;

	ck_assert_int_eq(guides_track_name(&name, "decode"), 0);
	ck_assert_str_eq(name.p, "Layer guide (decode) \xe2\x80\x94 anchor intervals");
	t.name = name.p;
	ck_assert_int_eq(guides_put_row(&a, &g, 500), 0);
	ck_assert_str_eq(a.p, "\"pass_index\":1,\"layer_id\":7,\"anchor_index\":9,\"anchor_name\":"
			 "\"k\",\"anchor_tid\":7,\"start_us\":1.5,\"end_us\":2.5,\"guide_start_us\":2,"
			 "\"guide_end_us\":3,\"start_relative_ms\":0.001000,\"end_relative_ms\":"
			 "0.002000,\"boundary_kind\":\"next_layer_anchor\"");
	buf_reset(&a);
	ck_assert_int_eq(guides_put_meta(&a, &b, &t, 2), 0);
	ck_assert_str_eq(a.p, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":2,\"pid\":0,\"tid\":5,"
			 "\"args\":{\"name\":\"Layer guide (decode) \xe2\x80\x94 anchor intervals\"}}");
	ck_assert_str_eq(b.p, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":2,\"pid\":0,"
			 "\"tid\":5,\"args\":{\"sort_index\":-1000}}");
	buf_reset(&a);
	ck_assert_int_eq(guides_put_slice(&a, &t, &g, 500), 0);
	{
		static const char head[] = "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L7\","
			"\"pid\":0,\"tid\":5,\"ts\":2,\"dur\":1,\"args\":{\"pass_index\":1,";
		ck_assert_int_eq(strncmp(a.p, head, sizeof head - 1), 0);
	}
	ck_assert_ptr_nonnull(strstr(a.p, ",\"phase\":\"decode\",\"evidence\":\"e\\\"v\","
				     "\"notice\":\"Layer guides are "));
	ck_assert_str_eq(a.p + a.len - 4, ".\"}}");
	buf_release(&name);
	buf_release(&a);
	buf_release(&b);
}
END_TEST

/* guides_put_ms6 writes what tsnum_format_ms6 (snprintf) writes. */
static const int64_t ms6_cases[] = { 0, 1, -1, 999999, -999999, 1000000, -1000000, 1000001,
	123456789, -123456789, 1428659823816728, INT64_MAX, INT64_MIN, INT64_MIN + 1 };

START_TEST(test_ms6)
{
	int64_t ns = ms6_cases[_i];
	char want[64];
	struct buf b = BUF_INIT;
	size_t n = tsnum_format_ms6(ns, want);

	want[n] = '\0';
	buf_addstr(&b, "x");
	ck_assert_int_eq(guides_put_ms6(&b, ns), 0);
	ck_assert_str_eq(b.p + 1, want);
	buf_release(&b);
}
END_TEST

START_TEST(test_ms6_exact)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(guides_put_ms6(&b, -1), 0);
	ck_assert_int_eq(guides_put_ms6(&b, 1234500000), 0);
	ck_assert_int_eq(guides_put_ms6(&b, INT64_MIN), 0);
	ck_assert_str_eq(b.p, "-0.0000011234.500000-9223372036854.775808");
	buf_release(&b);
}
END_TEST

/* The slice whole, and the same from the tail made once, for two guides
 * (the tail does not carry one guide's texts into the next). */
START_TEST(test_slice_tail)
{
	struct guides_track t = { "\"p\"", 3, NULL, "pre\nfill", "e\\v" };
	struct guides_row g = { 0, 12, 34, -1500, 2500, -2, 3, "-1.5", "2.5", "terminal_kernel_end",
				"\"k\\u00e9\"", "\"t 1\"" };
	struct guides_row h = g;
	struct buf tail = BUF_INIT, a = BUF_INIT, b = BUF_INIT;

	t.name = "n";
	ck_assert_int_eq(guides_put_slice(&a, &t, &g, -2500), 0);
	ck_assert_str_eq(a.p, "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L12\",\"pid\":\"p\","
			 "\"tid\":3,\"ts\":-2,\"dur\":5,\"args\":{\"pass_index\":0,\"layer_id\":12,"
			 "\"anchor_index\":34,\"anchor_name\":\"k\\u00e9\",\"anchor_tid\":\"t 1\","
			 "\"start_us\":-1.5,\"end_us\":2.5,\"guide_start_us\":-2,\"guide_end_us\":3,"
			 "\"start_relative_ms\":0.001000,\"end_relative_ms\":0.005000,"
			 "\"boundary_kind\":\"terminal_kernel_end\",\"phase\":\"pre\\nfill\","
			 "\"evidence\":\"e\\\\v\",\"notice\":\"Layer guides are anchor-to-anchor "
			 "navigation aids: each slice runs from one layer's anchor kernel to the next "
			 "layer's anchor (or to the terminal kernel's end, or is a zero-length marker). "
			 "They are not layer boundaries and do not assign kernels to layers. ts, dur and "
			 "*_us values are microseconds; *_relative_ms values are milliseconds from the "
			 "earliest event.\"}}");
	ck_assert_int_eq(guides_slice_tail(&tail, &t), 0);
	ck_assert_int_eq(guides_put_slice_tail(&b, &t, &g, -2500, &tail), 0);
	ck_assert_str_eq(b.p, a.p);
	h.layer = 1;
	h.pass = 18446744073709551615u;
	h.kind = "next_layer_anchor";
	buf_reset(&a);
	buf_reset(&b);
	ck_assert_int_eq(guides_put_slice(&a, &t, &h, 0), 0);
	ck_assert_int_eq(guides_put_slice_tail(&b, &t, &h, 0, &tail), 0);
	ck_assert_str_eq(b.p, a.p);
	ck_assert_ptr_nonnull(strstr(a.p, "\"name\":\"L1\",\"pid\":\"p\",\"tid\":3,"));
	ck_assert_ptr_nonnull(strstr(a.p, "\"pass_index\":18446744073709551615,\"layer_id\":1,"));
	ck_assert_ptr_nonnull(strstr(a.p, "\"start_relative_ms\":-0.001500,\"end_relative_ms\":"
				     "0.002500,\"boundary_kind\":\"next_layer_anchor\",\"phase\""));
	buf_release(&tail);
	buf_release(&a);
	buf_release(&b);
}
END_TEST


static Suite *guides_suite(void)
{
	Suite *s = suite_create("guides");
	TCase *tc = tcase_create("build");

	tcase_add_test(tc, test_kind_names);
	tcase_add_test(tc, test_choose_tid);
	tcase_add_loop_test(tc, test_choose_tid_many, 0, (int)COUNT(many_tid_cases));
	tcase_add_test(tc, test_written);
	tcase_add_loop_test(tc, test_ms6, 0, (int)COUNT(ms6_cases));
	tcase_add_test(tc, test_ms6_exact);
	tcase_add_test(tc, test_slice_tail);
	tcase_add_test(tc, test_last_layer_without_end_anchor);
	tcase_add_test(tc, test_last_layer_with_end_anchor);
	tcase_add_test(tc, test_single_layer_passes);
	tcase_add_loop_test(tc, test_rounding, 0, (int)COUNT(round_cases));
	tcase_add_test(tc, test_backwards);
	tcase_add_test(tc, test_backwards_only_when_rounded);
	tcase_add_test(tc, test_same_microsecond);
	tcase_add_test(tc, test_backwards_reported_first);
	tcase_add_test(tc, test_anchors_stop_inside_a_pass);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(guides_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
