/* Unit tests for common/verify/verifysel.c: a layers report's selection recomputed
 * from source events (anchors by ts, rounding half away from zero, the
 * last layer as a point), guides and report rows checked against it with
 * their exact failure lines, the refusals of a report out of range, a
 * pattern that does not compile, and too few anchors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify/verifysel.h"

#define K0 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k0\",\"pid\":0,\"tid\":7,\"ts\":1.000," \
	"\"dur\":1,\"args\":{\"device\":0}}"
#define K1 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":3.500," \
	"\"dur\":1,\"args\":{\"device\":0}}"
#define OTHER "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k9\",\"pid\":0,\"tid\":7,\"ts\":0.500," \
	"\"dur\":1}"
#define ARGS0 "\"pass_index\":0,\"layer_id\":0,\"anchor_index\":0,\"anchor_name\":\"k0\"," \
	"\"anchor_tid\":7,\"start_us\":1.000,\"end_us\":3.500,\"guide_start_us\":1," \
	"\"guide_end_us\":4,\"start_relative_ms\":0.000500,\"end_relative_ms\":0.003000," \
	"\"boundary_kind\":\"next_layer_anchor\""
#define ARGS1 "\"pass_index\":0,\"layer_id\":1,\"anchor_index\":1,\"anchor_name\":\"k1\"," \
	"\"anchor_tid\":7,\"start_us\":3.500,\"end_us\":3.500,\"guide_start_us\":4," \
	"\"guide_end_us\":4,\"start_relative_ms\":0.003000,\"end_relative_ms\":0.003000," \
	"\"boundary_kind\":\"anchor_point_only\""
#define G0 "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,\"ts\":1," \
	"\"dur\":3,\"args\":{" ARGS0 "}}"
#define G1 "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L1\",\"pid\":0,\"tid\":1,\"ts\":4," \
	"\"dur\":0,\"args\":{" ARGS1 "}}"
#define REPORT(regex, layers, rows) "{\"anchor_regex\":\"" regex "\",\"end_anchor_regex\":null," \
	"\"pid\":0,\"device\":0,\"trace_origin_us\":0.500,\"anchor_offset\":0," \
	"\"matching_anchor_count\":2,\"num_layers\":" #layers ",\"layers\":[" rows "]}"

static char path[] = "/tmp/check_verifysel.XXXXXX";

struct sel_run {
	struct verifycheck vc;
	struct verifysel sel;
	struct jdoc d;
	struct trstream_report rep;
	struct buf head;   /* the text d points into */
	int rc;
};

/* Load the report text as a layers report of num_layers x 1 pass. */
static void load(struct sel_run *r, const char *report, int64_t num_layers)
{
	struct trstream_error e;
	uint64_t at, n;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, report, strlen(report)), (ssize_t)strlen(report));
	close(fd);
	ck_assert_int_eq(trstream_report_open(&r->rep, path, &e), 0);
	unlink(path);
	strcpy(path, "/tmp/check_verifysel.XXXXXX");
	r->head = (struct buf)BUF_INIT;
	ck_assert_int_eq(trstream_report_head(&r->rep, "\"layers\"", &r->head, &at, &n, &e), 0);
	r->d = (struct jdoc)JDOC_INIT;
	ck_assert_int_eq(json_parse(&r->d, r->head.p, r->head.len, NULL), 0);
	verifycheck_init(&r->vc);
	verifysel_init(&r->sel, &r->vc, "src.json");
	r->rc = verifysel_load(&r->sel, &r->d, "r.layers.json", num_layers, 1, 0, r->rep.fd, at, n);
}

static void source(struct sel_run *r, const char *line, uint64_t index)
{
	static const char *const keys[] = { "ph", "cat", "name", "ts" };
	struct member m[4];

	event_members(line, strlen(line), keys, 4, m);
	ck_assert_int_eq(verifysel_see_source(&r->sel, line, strlen(line), m, index), 0);
}

static void done(struct sel_run *r)
{
	verifysel_free(&r->sel);
	verifycheck_free(&r->vc);
	json_free(&r->d);
	buf_release(&r->head);
	close(r->rep.fd);
}

static const char *shown(const struct sel_run *r)
{
	return r->vc.item[VERIFYCHECK_PLACEMENT].shown.p;
}

START_TEST(test_guides_at_their_anchors)
{
	struct sel_run r;

	load(&r, REPORT("^k[01]", 2, "{" ARGS0 "},{" ARGS1 "}"), 2);
	ck_assert_int_eq(r.rc, 0);
	source(&r, OTHER, 0);
	source(&r, K0, 1);
	source(&r, K1, 2);
	ck_assert_int_eq(verifysel_finish_source(&r.sel), 0);
	ck_assert_int_eq(verifysel_guide(&r.sel, G0, strlen(G0), 3), 0);
	ck_assert_int_eq(verifysel_guide(&r.sel, G1, strlen(G1), 4), 0);
	verifysel_finish(&r.sel);
	ck_assert_str_eq(shown(&r), "");
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	ck_assert_str_eq(r.vc.item[VERIFYCHECK_PLACEMENT].figures.p, "2 guides at the anchors "
			 "the report names (anchor_regex '^k[01]': 2 matches in pid 0, device 0; "
			 "anchors 0 to 1), 2 report rows");
	done(&r);
}
END_TEST

/* The trace origin, the smallest ts, over ts texts of every shape: a
 * shorter integer part, a longer one, equal integer parts told by the
 * fraction, an exponent, a negative number (not plain: then every ts is
 * converted). */
START_TEST(test_origin_over_ts_texts)
{
	static const struct {
		const char *ts, *origin;
	} steps[] = {
		{ "10.5", "10.5" }, { "9.75", "9.75" }, { "100", "9.75" }, { "9.750", "9.75" },
		{ "10.25", "9.75" }, { "9.7", "9.7" }, { "1e1", "9.7" }, { "0.9e1", "0.9e1" },
		{ "9", "0.9e1" }, { "-1", "-1" }, { "5", "-1" }, { "-2.5", "-2.5" },
	};
	struct sel_run r;
	char line[200];
	size_t i;

	load(&r, REPORT("^k[01]", 2, "{" ARGS0 "},{" ARGS1 "}"), 2);
	ck_assert_int_eq(r.rc, 0);
	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		snprintf(line, sizeof line, "{\"ph\":\"i\",\"name\":\"x\",\"pid\":0,\"tid\":7,"
			 "\"ts\":%s}", steps[i].ts);
		source(&r, line, i);
		ck_assert_str_eq(r.sel.origin_raw.p, steps[i].origin);
	}
	ck_assert_int_eq(r.sel.origin_ns, -2500);
	done(&r);
}
END_TEST

START_TEST(test_guide_ts_and_row)
{
	struct sel_run r;
	const char *g0 = "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,"
		"\"ts\":2,\"dur\":3,\"args\":{" ARGS0 "}}";
	const char *row0 = "{\"pass_index\":0,\"layer_id\":0,\"anchor_index\":5}";

	load(&r, REPORT("^k[01]", 2, "{\"pass_index\":0,\"layer_id\":0,\"anchor_index\":5},"
			"{" ARGS1 "}"), 2);
	(void)row0;
	source(&r, OTHER, 0);
	source(&r, K0, 1);
	source(&r, K1, 2);
	ck_assert_int_eq(verifysel_finish_source(&r.sel), 0);
	ck_assert_int_eq(verifysel_guide(&r.sel, g0, strlen(g0), 2), 0);
	ck_assert_int_eq(verifysel_guide(&r.sel, G1, strlen(G1), 3), 0);
	verifysel_finish(&r.sel);
	ck_assert_uint_eq(r.vc.item[VERIFYCHECK_PLACEMENT].failures, 2);
	ck_assert_str_eq(shown(&r), "report layers row 0: anchor_index 5, but guide 0 (output "
			 "event 2) has 0 (and 9 more members differ)\n"
			 "guide 0 (output event 2): ts 2, expected 1: anchor 0 (source event 1) at "
			 "ts 1.000, rounded to the microsecond");
	done(&r);
}
END_TEST

/* A row that is the start of the guide's args byte for byte but lacks a
 * member still differs (the fast path takes whole rows only); a row with
 * the members in another order is still equal. */
#define ARGS0_SHORT "\"pass_index\":0,\"layer_id\":0,\"anchor_index\":0,\"anchor_name\":\"k0\"," \
	"\"anchor_tid\":7,\"start_us\":1.000,\"end_us\":3.500,\"guide_start_us\":1," \
	"\"guide_end_us\":4,\"start_relative_ms\":0.000500,\"end_relative_ms\":0.003000"
#define ARGS1_TURNED "\"boundary_kind\":\"anchor_point_only\",\"pass_index\":0,\"layer_id\":1," \
	"\"anchor_index\":1,\"anchor_name\":\"k1\",\"anchor_tid\":7,\"start_us\":3.500," \
	"\"end_us\":3.500,\"guide_start_us\":4,\"guide_end_us\":4,\"start_relative_ms\":0.003000," \
	"\"end_relative_ms\":0.003000"
/* A guide's args read whole when they do not open with the members in
 * tr-guides' order: in another order, or with members after them, they
 * pass; a value that differs is told. */
START_TEST(test_guide_args_shapes)
{
	static const char *const g0s[] = {
		"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,\"ts\":1,"
		"\"dur\":3,\"args\":{\"layer_id\":0,\"anchor_index\":0,\"anchor_name\":\"k0\","
		"\"anchor_tid\":7,\"start_us\":1.000,\"end_us\":3.500,\"guide_start_us\":1,"
		"\"guide_end_us\":4,\"start_relative_ms\":0.000500,\"end_relative_ms\":0.003000,"
		"\"boundary_kind\":\"next_layer_anchor\",\"pass_index\":0}}",
		"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,\"ts\":1,"
		"\"dur\":3,\"args\":{" ARGS0 ",\"phase\":\"decode\"}}",
		"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,\"ts\":1,"
		"\"dur\":3,\"args\":{\"pass_index\":0,\"layer_id\":0,\"anchor_index\":0,\"anchor_name\":"
		"\"k0\",\"anchor_tid\":7,\"start_us\":1.000,\"end_us\":3.500,\"guide_start_us\":1,"
		"\"guide_end_us\":4,\"start_relative_ms\":0.000500,\"end_relative_ms\":0.003001,"
		"\"boundary_kind\":\"next_layer_anchor\"}}",
	};
	static const char *const want[] = {
		"", "",
		"report layers row 0: end_relative_ms 0.003000, but guide 0 (output event 3) has "
		"0.003001\nguide 0 (output event 3): args.end_relative_ms 0.003001, expected "
		"0.003000 (anchor 0, source event 1)",
	};
	size_t i;

	for (i = 0; i < sizeof g0s / sizeof g0s[0]; i++) {
		struct sel_run r;
		load(&r, REPORT("^k[01]", 2, "{" ARGS0 "},{" ARGS1 "}"), 2);
		source(&r, OTHER, 0);
		source(&r, K0, 1);
		source(&r, K1, 2);
		ck_assert_int_eq(verifysel_finish_source(&r.sel), 0);
		ck_assert_int_eq(verifysel_guide(&r.sel, g0s[i], strlen(g0s[i]), 3), 0);
		ck_assert_int_eq(verifysel_guide(&r.sel, G1, strlen(G1), 4), 0);
		verifysel_finish(&r.sel);
		ck_assert_str_eq(shown(&r), want[i]);
		done(&r);
	}
}
END_TEST

START_TEST(test_row_prefix)
{
	struct sel_run r;

	load(&r, REPORT("^k[01]", 2, "{" ARGS0_SHORT "},{" ARGS1_TURNED "}"), 2);
	ck_assert_int_eq(r.rc, 0);
	source(&r, OTHER, 0);
	source(&r, K0, 1);
	source(&r, K1, 2);
	ck_assert_int_eq(verifysel_finish_source(&r.sel), 0);
	ck_assert_int_eq(verifysel_guide(&r.sel, G0, strlen(G0), 3), 0);
	ck_assert_int_eq(verifysel_guide(&r.sel, G1, strlen(G1), 4), 0);
	verifysel_finish(&r.sel);
	ck_assert_uint_eq(r.vc.item[VERIFYCHECK_PLACEMENT].failures, 1);
	ck_assert_str_eq(shown(&r), "report layers row 0: boundary_kind (absent), but guide 0 "
			 "(output event 3) has \"next_layer_anchor\"");
	done(&r);
}
END_TEST

START_TEST(test_too_few_anchors)
{
	struct sel_run r;

	load(&r, REPORT("^k0", 2, "{" ARGS0 "},{" ARGS1 "}"), 2);
	source(&r, OTHER, 0);
	source(&r, K0, 1);
	source(&r, K1, 2);
	ck_assert_int_eq(verifysel_finish_source(&r.sel), 0);
	ck_assert_str_eq(shown(&r), "report: anchor_regex '^k0' matches 1 kernels in pid 0, "
			 "device 0 of the source, but matching_anchor_count is 2\n"
			 "report: anchor_regex '^k0' matches 1 kernels in pid 0, device 0 of the "
			 "source; from anchor_offset 0 there are 1, but num_layers 2 x passes 1 "
			 "needs 2");
	done(&r);
}
END_TEST

START_TEST(test_regex_does_not_compile)
{
	struct sel_run r;
	const char *want = "report: anchor_regex '(' does not compile (";

	load(&r, REPORT("(", 2, "{" ARGS0 "},{" ARGS1 "}"), 2);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_int_eq(r.sel.broken, 1);
	ck_assert_int_eq(strncmp(shown(&r), want, strlen(want)), 0);
	source(&r, K0, 0);
	ck_assert_int_eq(r.sel.nmatch, 0);
	done(&r);
}
END_TEST

START_TEST(test_rows_counted)
{
	struct sel_run r;

	load(&r, REPORT("^k[01]", 2, "{" ARGS0 "}"), 2);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_str_eq(shown(&r), "report: 1 layers rows for num_layers 2 x passes 1 = 2 "
			 "guides");
	done(&r);
}
END_TEST

START_TEST(test_out_of_range)
{
	struct sel_run r;

	load(&r, REPORT("^k", 0, ""), 0);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_str_eq(r.vc.err, "r.layers.json: num_layers, passes, first_layer or "
			 "anchor_offset out of the range tr-select-anchors accepts");
	done(&r);
}
END_TEST

START_TEST(test_no_origin)
{
	struct sel_run r;

	load(&r, "{\"anchor_regex\":\"^k\",\"end_anchor_regex\":null,\"pid\":0,\"device\":0,"
	     "\"layers\":[]}", 1);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_str_eq(r.vc.err, "r.layers.json: no trace_origin_us");
	done(&r);
}
END_TEST

/* Another tool's number texts, the values those tr-guides writes: the
 * guide's args, the report's rows and its origin are compared by value. */
#define ARGS0_PY "\"pass_index\":0,\"layer_id\":0,\"anchor_index\":0,\"anchor_name\":\"k0\"," \
	"\"anchor_tid\":7,\"start_us\":1.0,\"end_us\":3.5,\"guide_start_us\":1.0," \
	"\"guide_end_us\":4,\"start_relative_ms\":0.0005,\"end_relative_ms\":3e-3," \
	"\"boundary_kind\":\"next_layer_anchor\""
#define REPORT_AT(origin, rows) "{\"anchor_regex\":\"^k[01]\",\"end_anchor_regex\":null," \
	"\"pid\":0,\"device\":0,\"trace_origin_us\":" origin ",\"anchor_offset\":0," \
	"\"matching_anchor_count\":2,\"num_layers\":2,\"layers\":[" rows "]}"
START_TEST(test_other_number_texts)
{
	static const char *const origins[] = { "0.5", "0.500", "5e-1", "0.5001" };
	static const char *const want[] = { "", "", "",
		"report: trace_origin_us 0.5001, but the earliest ts in the source is 0.500" };
	const char *g0 = "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,"
		"\"ts\":1.0,\"dur\":3,\"args\":{" ARGS0_PY "}}";
	char report[1024];
	size_t i;

	for (i = 0; i < sizeof origins / sizeof origins[0]; i++) {
		struct sel_run r;
		snprintf(report, sizeof report, REPORT_AT("%s", "{" ARGS0 "},{" ARGS1 "}"),
			 origins[i]);
		load(&r, report, 2);
		ck_assert_int_eq(r.rc, 0);
		source(&r, OTHER, 0);
		source(&r, K0, 1);
		source(&r, K1, 2);
		ck_assert_int_eq(verifysel_finish_source(&r.sel), 0);
		ck_assert_int_eq(verifysel_guide(&r.sel, g0, strlen(g0), 3), 0);
		ck_assert_int_eq(verifysel_guide(&r.sel, G1, strlen(G1), 4), 0);
		verifysel_finish(&r.sel);
		ck_assert_str_eq(shown(&r), want[i]);
		done(&r);
	}
}
END_TEST

/* An earliest ts below the nanosecond: the report may give the origin to
 * the nanosecond below, or exactly; of two ts in one nanosecond the
 * earlier is the origin the message names, wherever it comes. */
START_TEST(test_origin_below_the_ns)
{
	static const struct {
		const char *first, *second, *origin, *want;
	} cases[] = {
		{ "0.5004", "0.6", "0.500", "" },
		{ "0.5004", "0.6", "0.5004", "" },
		{ "0.5004", "0.6", "0.5003",
		  "report: trace_origin_us 0.5003, but the earliest ts in the source is 0.5004" },
		{ "0.5004", "0.5001", "0.5004",
		  "report: trace_origin_us 0.5004, but the earliest ts in the source is 0.5001" },
		{ "0.5004", "0.5001", "0.5001", "" },
		{ "0.5001", "0.5004", "0.5004",
		  "report: trace_origin_us 0.5004, but the earliest ts in the source is 0.5001" },
		{ "0.5004", "5.001e-1", "0.5001", "" },
	};
	char report[1024], line[200];
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct sel_run r;
		snprintf(report, sizeof report, REPORT_AT("%s", "{" ARGS0 "},{" ARGS1 "}"),
			 cases[i].origin);
		load(&r, report, 2);
		ck_assert_int_eq(r.rc, 0);
		snprintf(line, sizeof line, "{\"ph\":\"i\",\"name\":\"x\",\"pid\":0,\"tid\":7,"
			 "\"ts\":%s}", cases[i].first);
		source(&r, line, 0);
		snprintf(line, sizeof line, "{\"ph\":\"i\",\"name\":\"x\",\"pid\":0,\"tid\":7,"
			 "\"ts\":%s}", cases[i].second);
		source(&r, line, 1);
		source(&r, K0, 2);
		source(&r, K1, 3);
		ck_assert_int_eq(verifysel_finish_source(&r.sel), 0);
		ck_assert_msg(strcmp(shown(&r), cases[i].want) == 0, "case %zu: %s", i, shown(&r));
		done(&r);
	}
}
END_TEST

static Suite *verifysel_suite(void)
{
	Suite *s = suite_create("verifysel");
	TCase *tc = tcase_create("placement");

	tcase_add_test(tc, test_guides_at_their_anchors);
	tcase_add_test(tc, test_guide_ts_and_row);
	tcase_add_test(tc, test_too_few_anchors);
	tcase_add_test(tc, test_regex_does_not_compile);
	tcase_add_test(tc, test_rows_counted);
	tcase_add_test(tc, test_row_prefix);
	tcase_add_test(tc, test_out_of_range);
	tcase_add_test(tc, test_no_origin);
	tcase_add_test(tc, test_origin_over_ts_texts);
	tcase_add_test(tc, test_guide_args_shapes);
	tcase_add_test(tc, test_other_number_texts);
	tcase_add_test(tc, test_origin_below_the_ns);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verifysel_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
