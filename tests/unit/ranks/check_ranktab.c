/* Unit tests for common/ranks/ranktab.c: the lower median, the bands and the
 * straggler rule at their exact boundaries, totals and row medians with
 * cells that have no interval, and the range checks. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks/ranktab.h"

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

/* A report of 2 layers x 2 passes from source src, with layer 0's
 * intervals a (pass 0) and b (pass 1) in us; layer 1 is a marker. */
static void report(struct ranktab_report *r, const char *path, const char *src,
		   const char *phase, const char *a, const char *b)
{
	struct buf msg = BUF_INIT;
	char text[1024];

	snprintf(text, sizeof text, "{\"phase\":\"%s\",\"anchor_regex\":\"attn\",\"num_layers\":2,"
		 "\"first_layer\":3,\"passes\":2,\"source_file\":\"%s\",\"layers\":["
		 "{\"pass_index\":0,\"layer_id\":3,\"boundary_kind\":\"next_layer_anchor\","
		 "\"start_us\":10,\"end_us\":%s},"
		 "{\"pass_index\":0,\"layer_id\":4,\"boundary_kind\":\"anchor_point_only\","
		 "\"start_us\":20,\"end_us\":20},"
		 "{\"pass_index\":1,\"layer_id\":3,\"boundary_kind\":\"next_layer_anchor\","
		 "\"start_us\":30,\"end_us\":%s},"
		 "{\"pass_index\":1,\"layer_id\":4,\"boundary_kind\":\"anchor_point_only\","
		 "\"start_us\":40,\"end_us\":40}]}\n", phase, src, a, b);
	ranktab_report_init(r, path);
	r->text = strdup(text);
	r->len = strlen(text);
	ck_assert_msg(ranktab_report_parse(r, r->text, r->len, &msg) == 0, "%s", msg.p);
	buf_release(&msg);
}

START_TEST(test_reports_to_tsv)
{
	struct ranktab_report rep[3];
	struct ranktab t;
	struct ranktab_view view = { -1, 10, 0 };
	struct buf out = BUF_INIT;
	size_t i;

	report(&rep[0], "a", "rank-0.json.gz", "p", "12", "33");      /* 2, 3 us: median 2 */
	report(&rep[1], "b", "rank-1.json.gz", "p", "12.5", "32.5");  /* 2.5 */
	report(&rep[2], "c", "rank-12.json.gz", "p", "14", "34");     /* 4: a straggler */
	ck_assert_int_eq(ranktab_agree(rep, 3, "tr-ranks", &out), 0);
	ck_assert_int_eq(ranktab_labels(rep, 3), 0);
	ck_assert_str_eq(rep[0].label, "0");
	ck_assert_str_eq(rep[2].label, "12");
	ck_assert_int_eq(ranktab_init(&t, 2, 3), 0);
	ck_assert_int_eq(ranktab_fill(&t, rep, -1), 0);
	ck_assert_int_eq(ranktab_render(&out, RANKTAB_TSV, &t, rep, &view), 0);
	ck_assert_str_eq(out.p, "layer\t0\t1\t12\tmedian\tstragglers\n"
			 "L3\t2.000\t2.500\t4.000\t2.500\t12\n"
			 "L4\t\t\t\t\t\n"
			 "total\t2.000\t2.500\t4.000\t2.500\t12\n");
	buf_reset(&out);
	view.pass = 1;
	ck_assert_int_eq(ranktab_fill(&t, rep, 1), 0);
	ck_assert_int_eq(ranktab_render(&out, RANKTAB_TSV, &t, rep, &view), 0);
	ck_assert_str_eq(out.p, "layer\t0\t1\t12\tmedian\tstragglers\n"
			 "L3\t3.000\t2.500\t4.000\t3.000\t12\n"
			 "L4\t\t\t\t\t\n"
			 "total\t3.000\t2.500\t4.000\t3.000\t12\n");
	ranktab_free(&t);
	for (i = 0; i < 3; i++)
		ranktab_report_free(&rep[i]);
	buf_release(&out);
}
END_TEST

START_TEST(test_reports_disagree)
{
	struct ranktab_report rep[3];
	struct buf msg = BUF_INIT;
	size_t i;

	report(&rep[0], "a", "x", "p", "12", "33");
	report(&rep[1], "b", "y", "q", "12", "33");
	report(&rep[2], "c", "z", "p", "12", "33");
	ck_assert_int_eq(ranktab_agree(rep, 3, "tr-ranks", &msg), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(msg.p, "b: phase 'q' differs from the other reports' 'p' (2 of 3)\n"
			 "tr-ranks: refusing to compare reports of different anchors, layer counts "
			 "or phases (run every rank with the same anchor options)");
	buf_reset(&msg);
	ck_assert_int_eq(ranktab_agree(rep, 2, "tr-ranks", &msg), -1);
	ck_assert_str_eq(msg.p, "a: phase 'p'\ntr-ranks: b: phase 'q'\ntr-ranks: the reports "
			 "disagree on phase\ntr-ranks: refusing to compare reports of different "
			 "anchors, layer counts or phases (run every rank with the same anchor options)");
	/* the same source names: the whole names, then positions */
	ck_assert_int_eq(ranktab_labels(rep, 3), 0);
	ck_assert_str_eq(rep[1].label, "y");
	for (i = 0; i < 3; i++)
		ranktab_report_free(&rep[i]);
	report(&rep[0], "a", "same", "p", "12", "33");
	report(&rep[1], "b", "same", "p", "12", "33");
	ck_assert_int_eq(ranktab_labels(rep, 2), 0);
	ck_assert_str_eq(rep[0].label, "#1");
	ck_assert_str_eq(rep[1].label, "#2");
	for (i = 0; i < 2; i++)
		ranktab_report_free(&rep[i]);
	buf_release(&msg);
}
END_TEST

static void parse_refused(const char *text, const char *want)
{
	struct ranktab_report r;
	struct buf msg = BUF_INIT;

	ranktab_report_init(&r, "r.json");
	ck_assert_int_eq(ranktab_report_parse(&r, text, strlen(text), &msg), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(msg.p, want);
	ranktab_report_free(&r);
	buf_release(&msg);
}

START_TEST(test_report_refused)
{
	static const char head[] = "{\"phase\":\"p\",\"anchor_regex\":\"a\",\"source_file\":\"s\","
		"\"num_layers\":1,\"first_layer\":0,\"passes\":1,\"layers\":";
	char text[512];

	parse_refused("[1", "r.json: not JSON; not a layers report of tr-layer-track or tr-encode");
	parse_refused("[1]", "r.json: not a JSON object; not a layers report of tr-layer-track "
		      "or tr-encode");
	parse_refused("{\"phase\":1}", "r.json: no string member \"phase\"; not a layers report "
		      "of tr-layer-track or tr-encode");
	parse_refused("{\"phase\":\"p\",\"anchor_regex\":\"a\",\"source_file\":\"s\","
		      "\"num_layers\":0}", "r.json: \"num_layers\" is not an integer from 1 to "
		      "100000000");
	snprintf(text, sizeof text, "%s[]}", head);
	parse_refused(text, "r.json: 0 guide rows, but num_layers 1 x passes 1 = 1");
	snprintf(text, sizeof text, "%s[{\"pass_index\":0,\"layer_id\":0,\"boundary_kind\":\"x\","
		 "\"start_us\":2,\"end_us\":1}]}", head);
	parse_refused(text, "r.json: layers[0]: end_us is before start_us or over 10^15 ns "
		      "after it");
	snprintf(text, sizeof text, "%s[{\"pass_index\":0,\"layer_id\":0,\"boundary_kind\":\"x\","
		 "\"start_us\":2.0001,\"end_us\":3}]}", head);
	parse_refused(text, "r.json: layers[0]: \"start_us\" 2.0001 is finer than a nanosecond");
}
END_TEST


START_TEST(test_natural_order)
{
	ck_assert_int_lt(ranktab_natural_cmp("2", "10"), 0);
	ck_assert_int_gt(ranktab_natural_cmp("rank-10", "rank-9"), 0);
	ck_assert_int_lt(ranktab_natural_cmp("a9b", "a10a"), 0);
	ck_assert_int_eq(ranktab_natural_cmp("007", "7"), 0);
	ck_assert_int_lt(ranktab_natural_cmp("x1", "x1y"), 0);
	ck_assert_int_lt(ranktab_natural_cmp("n1", "o0"), 0);
	ck_assert_int_eq(ranktab_natural_cmp("r12s", "r12s"), 0);
}
END_TEST

/* A report of rank (-1: none) from src, one layer of interval us. */
static void ranked(struct ranktab_report *r, const char *src, int rank, const char *us)
{
	struct buf msg = BUF_INIT;
	char text[512], member[32] = "";

	if (rank >= 0)
		snprintf(member, sizeof member, "\"rank\":%d,", rank);
	snprintf(text, sizeof text, "{\"phase\":\"p\",\"anchor_regex\":\"a\",%s\"num_layers\":1,"
		 "\"first_layer\":0,\"passes\":1,\"source_file\":\"%s\",\"layers\":["
		 "{\"pass_index\":0,\"layer_id\":0,\"boundary_kind\":\"next_layer_anchor\","
		 "\"start_us\":0,\"end_us\":%s}]}", member, src, us);
	ranktab_report_init(r, src);
	r->text = strdup(text);
	r->len = strlen(text);
	ck_assert_msg(ranktab_report_parse(r, r->text, r->len, &msg) == 0, "%s", msg.p);
	ck_assert_int_eq(r->rank, rank);
	buf_release(&msg);
}

static void free_all(struct ranktab_report *rep, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ranktab_report_free(&rep[i]);
}

START_TEST(test_order)
{
	struct ranktab_report rep[4];
	struct buf msg = BUF_INIT;

	/* the recorded ranks win over the names */
	ranked(&rep[0], "n-0.json", 3, "1");
	ranked(&rep[1], "n-1.json", 10, "1");
	ranked(&rep[2], "n-10.json", 0, "1");
	ranked(&rep[3], "n-2.json", 2, "1");
	ck_assert_int_eq(ranktab_labels(rep, 4), 0);
	ck_assert_int_eq(ranktab_order(rep, 4), 1);
	ck_assert_str_eq(rep[0].path, "n-10.json");
	ck_assert_str_eq(rep[1].path, "n-2.json");
	ck_assert_str_eq(rep[2].path, "n-0.json");
	ck_assert_str_eq(rep[3].path, "n-1.json");
	ck_assert_str_eq(rep[0].label, "0");
	ck_assert_str_eq(rep[3].label, "10");
	free_all(rep, 4);
	/* one without a rank, or two of one rank: the names, as numbers */
	ranked(&rep[0], "n-0.json", 3, "1");
	ranked(&rep[1], "n-1.json", -1, "1");
	ranked(&rep[2], "n-10.json", 0, "1");
	ranked(&rep[3], "n-2.json", 2, "1");
	ck_assert_int_eq(ranktab_labels(rep, 4), 0);
	ck_assert_int_eq(ranktab_order(rep, 4), 0);
	ck_assert_str_eq(rep[0].label, "0");
	ck_assert_str_eq(rep[1].label, "1");
	ck_assert_str_eq(rep[2].label, "2");
	ck_assert_str_eq(rep[3].label, "10");
	free_all(rep, 4);
	ranked(&rep[0], "n-10.json", 1, "1");
	ranked(&rep[1], "n-9.json", 1, "1");
	ck_assert_int_eq(ranktab_labels(rep, 2), 0);
	ck_assert_int_eq(ranktab_order(rep, 2), 0);
	ck_assert_str_eq(rep[0].label, "9");
	free_all(rep, 2);
	ranktab_report_init(&rep[0], "r.json");
	rep[0].text = strdup("{\"phase\":\"p\",\"anchor_regex\":\"a\",\"source_file\":\"s\","
			     "\"rank\":-1,\"num_layers\":1,\"first_layer\":0,\"passes\":1,"
			     "\"layers\":[]}");
	ck_assert_int_eq(ranktab_report_parse(&rep[0], rep[0].text, strlen(rep[0].text), &msg),
			 -1);
	ck_assert_str_eq(msg.p, "r.json: \"rank\" is not an integer from 0 to 1000000000");
	ranktab_report_free(&rep[0]);
	buf_release(&msg);
}
END_TEST

START_TEST(test_robust)
{
	struct ranktab t;
	static const int64_t v[7] = { 1000, 1010, 990, 1020, 980, 1005, 2000 };
	size_t r;

	ck_assert_int_eq(ranktab_init(&t, 1, 7), 0);
	for (r = 0; r < 7; r++)
		t.cell[r] = v[r];
	ck_assert_int_eq(ranktab_compute(&t), 0);
	/* median 1005; deviations 5 5 15 15 25 995 0: MAD 15 */
	ck_assert_int_eq(t.median[0], 1005);
	ck_assert_int_eq(t.mad[0], 15);
	/* 995 / (1.4826 x 15 = 22.24) */
	ck_assert(ranktab_robust_z(&t, 0, 6) > 44.7 && ranktab_robust_z(&t, 0, 6) < 44.8);
	ck_assert(ranktab_robust_z(&t, 0, 3) < RANKTAB_Z_NEUTRAL);
	/* no spread: the sigma is 1% of the median */
	for (r = 0; r < 7; r++)
		t.cell[r] = r == 6 ? 1500 : 1000;
	ck_assert_int_eq(ranktab_compute(&t), 0);
	ck_assert_int_eq(t.mad[0], 0);
	ck_assert(ranktab_robust_z(&t, 0, 6) > 49.99 && ranktab_robust_z(&t, 0, 6) < 50.01);
	ck_assert(ranktab_robust_z(&t, 0, 0) == 0);
	ranktab_free(&t);
}
END_TEST

/* 30 ranks of one layer: the text table within 60 columns shows the
 * three that fit, the stragglers first, the worst first; without a limit, all in order. */
START_TEST(test_narrow_text)
{
	struct ranktab_report rep[30];
	struct ranktab t;
	struct ranktab_view view = { -1, 10, 60 };
	struct buf out = BUF_INIT;
	const char *table, *line;
	char src[32];
	size_t i;

	for (i = 0; i < 30; i++) {
		snprintf(src, sizeof src, "rank-%zu.json", i);
		ranked(&rep[i], strdup(src), -1, i == 17 ? "150" : i == 4 ? "120" : "100");
	}
	ck_assert_int_eq(ranktab_labels(rep, 30), 0);
	ck_assert_int_eq(ranktab_order(rep, 30), 0);
	ck_assert_int_eq(ranktab_init(&t, 1, 30), 0);
	ck_assert_int_eq(ranktab_fill(&t, rep, -1), 0);
	ck_assert_int_eq(ranktab_render(&out, RANKTAB_TEXT, &t, rep, &view), 0);
	ck_assert_ptr_nonnull(strstr(out.p, "\nshowing 3 of 30 ranks, the stragglers first, "
				     "the worst first (--wide: every rank)\n"));
	table = strstr(out.p, "\n\n") + 2;
	ck_assert_str_eq(table,
		"layer       17        4        0   median  stragglers\n"
		"L0     150.000  120.000  100.000  100.000  4,17\n"
		"total  150.000  120.000  100.000  100.000  4,17\n");
	for (line = table; *line != '\0'; line = strchr(line, '\n') + 1)
		ck_assert_int_le(strcspn(line, "\n"), 60);
	buf_reset(&out);
	view.width = 0;
	ck_assert_int_eq(ranktab_render(&out, RANKTAB_TEXT, &t, rep, &view), 0);
	ck_assert_ptr_null(strstr(out.p, "showing"));
	table = strstr(out.p, "\n\n") + 2;
	ck_assert_int_eq(strncmp(table, "layer        0        1        2        3", 41), 0);
	ranktab_free(&t);
	for (i = 0; i < 30; i++) {
		free((char *)rep[i].path);
		ranktab_report_free(&rep[i]);
	}
	buf_release(&out);
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
	tcase_add_test(tc, test_reports_to_tsv);
	tcase_add_test(tc, test_reports_disagree);
	tcase_add_test(tc, test_report_refused);
	tcase_add_test(tc, test_natural_order);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_robust);
	tcase_add_test(tc, test_narrow_text);
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
