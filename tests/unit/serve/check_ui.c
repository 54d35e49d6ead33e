/* Unit tests for common/serve/ui.c: regex escaping and percent-encoding of
 * track names, the parameters built from hand-made reports (pins, expanded
 * processes, visStart/visEnd in Perfetto's nanoseconds, ts/dur of a chosen
 * guide, the query tab), windows, and the refusals. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "json/tsnum.h"
#include "serve/ui.h"

static const char layers_report[] =
	"{\n  \"schema_version\": 1,\n  \"pid\": 3,\n"
	"  \"track_name\": \"Layer guide (decode) \xe2\x80\x94 anchor intervals\",\n"
	"  \"layers\": [\n"
	"    {\"pass_index\": 0, \"layer_id\": 0, \"guide_start_us\": 100, \"guide_end_us\": 250},\n"
	"    {\"pass_index\": 0, \"layer_id\": 1, \"guide_start_us\": 250, \"guide_end_us\": 400},\n"
	"    {\"pass_index\": 1, \"layer_id\": 0, \"guide_start_us\": 1000, \"guide_end_us\": 1100},\n"
	"    {\"pass_index\": 1, \"layer_id\": 1, \"guide_start_us\": 1100, \"guide_end_us\": 1100}\n"
	"  ],\n"
	"  \"compaction\": {\"groups\": [\n"
	"    {\"pid\": 3, \"display_pid\": 3, \"device\": 0, \"kind\": \"activity\", \"lanes\": 2},\n"
	"    {\"pid\": 3, \"display_pid\": 7, \"device\": null, \"kind\": \"scope\", \"lanes\": 1}\n"
	"  ]},\n  \"source_file\": \"t.json\"\n}\n";

static void add(struct ui_view *v, const char *text)
{
	struct buf why = BUF_INIT;

	ck_assert_int_eq(ui_view_add_report(v, text, strlen(text), &why), UI_OK);
	buf_release(&why);
}

/* Percent-decoding, to compare the parameters with readable text. */
static char *url_decode(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	ck_assert_ptr_nonnull(out);
	for (; *s != '\0'; s++) {
		if (*s == '%' && s[1] != '\0' && s[2] != '\0') {
			char hex[3] = { s[1], s[2], '\0' };

			*o++ = (char)strtol(hex, NULL, 16);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return out;
}

static char *params(const struct ui_view *v, const struct ui_choice *c)
{
	struct buf out = BUF_INIT, why = BUF_INIT;
	char *dec;

	ck_assert_int_eq(ui_build_params(v, c, &out, &why), UI_OK);
	dec = url_decode(out.p);
	buf_release(&out);
	buf_release(&why);
	return dec;
}

#define PIN "{\"id\":\"dev.perfetto.PinTracksByRegex\",\"args\":[\"^(?:Layer guide \\\\(decode\\\\) " \
	"\xe2\x80\x94 anchor intervals|GPU lane 1 \\\\(synthetic; device 0\\\\)|" \
	"GPU lane 2 \\\\(synthetic; device 0\\\\))(?: -?[0-9]+)?$\"]}"
#define EXPAND "{\"id\":\"dev.perfetto.ExpandTracksByRegex\",\"args\":[\"(^| )(3)$\"]}"

START_TEST(test_regex_escape)
{
	struct buf b = BUF_INIT;
	const char *s = "a^b$c\\d.e*f+g?h(i)j[k]l{m}n|o-p/q \xe2\x80\x94";

	ck_assert_int_eq(ui_regex_escape(&b, s, strlen(s)), UI_OK);
	ck_assert_str_eq(b.p, "a\\^b\\$c\\\\d\\.e\\*f\\+g\\?h\\(i\\)j\\[k\\]l\\{m\\}n\\|o-p/q \xe2\x80\x94");
	buf_release(&b);
}
END_TEST

START_TEST(test_url_encode)
{
	struct buf b = BUF_INIT;
	const char *s = "AZaz09-._~ %/#&=+\"\xe2\x80\x94";

	ck_assert_int_eq(ui_url_encode(&b, s, strlen(s)), UI_OK);
	ck_assert_str_eq(b.p, "AZaz09-._~%20%25%2F%23%26%3D%2B%22%E2%80%94");
	buf_release(&b);
}
END_TEST

START_TEST(test_default_pass_0)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 0, 0, 0, 0, NULL };
	char *p;

	add(&v, layers_report);
	p = params(&v, &c);
	ck_assert_str_eq(p, "visStart=100000&visEnd=400000&startupCommands=["
		EXPAND "," PIN ",{\"id\":\"dev.perfetto.RunQueryAndShowTab\",\"args\":[\"SELECT s.id, "
		"s.ts, s.dur, s.track_id, s.name AS layer, EXTRACT_ARG(s.arg_set_id, 'args.pass_index') "
		"AS pass, EXTRACT_ARG(s.arg_set_id, 'args.start_relative_ms') AS start_relative_ms, "
		"EXTRACT_ARG(s.arg_set_id, 'args.end_relative_ms') AS end_relative_ms FROM slice s "
		"WHERE s.category = 'layer_guide' ORDER BY s.ts\"]}]");
	free(p);
	ui_view_free(&v);
}
END_TEST

START_TEST(test_pass_layer_query)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 1, 1, 1, 0, "SELECT \"x\\y\"\n" };
	char *p;

	add(&v, layers_report);
	p = params(&v, &c);
	ck_assert_str_eq(p, "visStart=1000000&visEnd=1100000&ts=1000000&dur=100000&startupCommands=["
		EXPAND "," PIN ",{\"id\":\"dev.perfetto.RunQueryAndShowTab\","
		"\"args\":[\"SELECT \\\"x\\\\y\\\"\\n\"]}]");
	free(p);
	ui_view_free(&v);
}
END_TEST

START_TEST(test_no_setup)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 1, 0, 0, 0, 0, NULL };
	char *p;

	add(&v, layers_report);
	p = params(&v, &c);
	ck_assert_str_eq(p, "");
	free(p);
	ui_view_free(&v);
}
END_TEST

START_TEST(test_nothing_to_ask)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 0, 0, 0, 0, NULL };
	char *p;

	add(&v, "{\"schema_version\": 1}");
	p = params(&v, &c);
	ck_assert_str_eq(p, "");
	free(p);
	ui_view_free(&v);
}
END_TEST

/* Fractional guide times go through Perfetto's own double conversion. */
START_TEST(test_perfetto_ns)
{
	static const char r[] = "{\"layers\": [{\"pass_index\": 0, \"layer_id\": 0, "
		"\"guide_start_us\": 4398046511104.003, \"guide_end_us\": 4398046511105.5}]}";
	struct ui_view v = UI_VIEW_INIT;
	int64_t a, b;

	add(&v, r);
	ck_assert_int_eq(tsnum_perfetto_us_to_ns("4398046511104.003", 17, &a), NUM_OK);
	ck_assert_int_eq(tsnum_perfetto_us_to_ns("4398046511105.5", 15, &b), NUM_OK);
	ck_assert_uint_eq(v.nguides, 1);
	ck_assert_int_eq(v.guides[0].start_ns, a);
	ck_assert_int_eq(v.guides[0].end_ns, b);
	ck_assert_int_eq(b, 4398046511105500);
	ui_view_free(&v);
}
END_TEST

START_TEST(test_window)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 0, 0, 0, 0, NULL };
	char *p;

	add(&v, layers_report);
	add(&v, "{\"window_start_ns\": 900000, \"window_end_ns\": 2000000}");
	p = params(&v, &c);
	ck_assert(strncmp(p, "visStart=1000000&visEnd=1100000&startupCommands=[", 49) == 0);
	free(p);
	ui_view_free(&v);

	/* no guides in the window: the window itself */
	add(&v, "{\"window_start_ns\": 5, \"window_end_ns\": 7}");
	p = params(&v, &c);
	ck_assert_str_eq(p, "visStart=5&visEnd=7");
	free(p);
	ui_view_free(&v);
}
END_TEST

START_TEST(test_compact_report)
{
	static const char r[] = "{\"groups\": [{\"pid\": 0, \"display_pid\": 0, "
		"\"device\": \"2\", \"kind\": \"activity\", \"lanes\": 1}], \"source_file\": \"g.json\"}";
	struct ui_view v = UI_VIEW_INIT;
	struct buf src = BUF_INIT;

	add(&v, r);
	ck_assert_uint_eq(v.npins, 1);
	ck_assert_str_eq(v.pins[0], "GPU lane 1 (synthetic; device 2)");
	ck_assert_uint_eq(v.npids, 1);
	ck_assert_int_eq(ui_report_source_file(r, strlen(r), &src), 1);
	ck_assert_str_eq(src.p, "g.json");
	buf_release(&src);
	ck_assert_int_eq(ui_report_source_file("{}", 2, &src), 0);
	ck_assert_int_eq(ui_report_source_file("{", 1, &src), UI_BAD);
	buf_release(&src);
	ui_view_free(&v);
}
END_TEST

static void refused(const char *report, const struct ui_choice *c, const char *want)
{
	struct ui_view v = UI_VIEW_INIT;
	struct buf out = BUF_INIT, why = BUF_INIT;

	add(&v, report);
	ck_assert_int_eq(ui_build_params(&v, c, &out, &why), UI_REFUSED);
	ck_assert_str_eq(why.p, want);
	buf_release(&out);
	buf_release(&why);
	ui_view_free(&v);
}

START_TEST(test_refusals)
{
	struct ui_choice pass5 = { 0, 1, 5, 0, 0, NULL };
	struct ui_choice layer9 = { 0, 0, 0, 1, 9, NULL };

	refused(layers_report, &pass5, "--pass 5: no such pass (the guides have passes 0-1)");
	refused(layers_report, &layer9, "--layer 9: pass 0 has no guide L9");
	refused("{}", &pass5, "--pass 5: the served trace has no layer guides");
}
END_TEST

static void bad_report(const char *text, const char *want)
{
	struct ui_view v = UI_VIEW_INIT;
	struct buf why = BUF_INIT;

	ck_assert_int_eq(ui_view_add_report(&v, text, strlen(text), &why), UI_BAD);
	ck_assert_str_eq(why.p, want);
	buf_release(&why);
	ui_view_free(&v);
}

START_TEST(test_bad_reports)
{
	bad_report("{", "not valid JSON");
	bad_report("[]", "not a JSON object");
	bad_report("{\"layers\": {}}", "\"layers\" is not an array");
	bad_report("{\"layers\": [{\"pass_index\": 0}]}",
		   "a row of \"layers\" lacks pass_index, layer_id, guide_start_us or guide_end_us");
	bad_report("{\"layers\": [{\"pass_index\": 0, \"layer_id\": 0, \"guide_start_us\": \"x\", "
		   "\"guide_end_us\": 1}]}",
		   "a row of \"layers\" lacks pass_index, layer_id, guide_start_us or guide_end_us");
	bad_report("{\"track_name\": [1]}", "\"track_name\" is not a string");
	bad_report("{\"groups\": [{\"kind\": \"activity\"}]}",
		   "a compaction group lacks kind, device, lanes or display_pid");
	bad_report("{\"window_start_ns\": 9, \"window_end_ns\": 1}",
		   "window_start_ns and window_end_ns are not integers, start first");
}
END_TEST

/* The events of the file a report lies beside. */
START_TEST(test_report_events)
{
	int64_t n = -7;

	ck_assert_int_eq(ui_report_events(layers_report, strlen(layers_report), &n), 0);
	ck_assert_int_eq(n, -7);
	ck_assert_int_eq(ui_report_events("{\"original_event_count\": 376, "
					  "\"added_event_count\": 8}", 53, &n), 1);
	ck_assert_int_eq(n, 384);
	/* compacted: the output's count, not the source's */
	ck_assert_int_eq(ui_report_events("{\"original_event_count\": 376, \"added_event_count\": 8, "
					  "\"compaction\": {\"original_event_count\": 384, "
					  "\"output_event_count\": 383}}", 125, &n), 1);
	ck_assert_int_eq(n, 383);
	ck_assert_int_eq(ui_report_events(" {\"output_event_count\": 5}\n", 27, &n), 1);
	ck_assert_int_eq(n, 5);
	/* a window: what it kept */
	ck_assert_int_eq(ui_report_events("{\"source_events\": 383, \"kept\": {\"complete\": 80, "
					  "\"metadata\": 17, \"flow\": 34, \"async\": 0}}", 88, &n), 1);
	ck_assert_int_eq(n, 131);
	ck_assert_int_eq(ui_report_events("{\"kept\": {\"complete\": -1}}", 26, &n), 0);
	ck_assert_int_eq(ui_report_events("{\"added_event_count\": 8}", 24, &n), 0);
	ck_assert_int_eq(ui_report_events("[1]", 3, &n), 0);
	ck_assert_int_eq(ui_report_events("{", 1, &n), UI_BAD);
}
END_TEST

/* What is in view: the pass, its layers, the selection, or the window. */
START_TEST(test_shown)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 0, 0, 0, 0, NULL };
	struct ui_shown s;
	struct buf why = BUF_INIT;

	add(&v, layers_report);
	ck_assert_int_eq(ui_shown(&v, &c, &s, &why), UI_OK);
	ck_assert(s.guides && s.by_pass && !s.by_window && s.sel == NULL);
	ck_assert_int_eq(s.pass, 0);
	ck_assert_int_eq(s.first_layer, 0);
	ck_assert_int_eq(s.last_layer, 1);
	ck_assert_int_eq(s.start_ns, 100000);
	ck_assert_int_eq(s.end_ns, 400000);
	c.pass_given = 1;
	c.pass = 1;
	c.layer_given = 1;
	c.layer = 1;
	ck_assert_int_eq(ui_shown(&v, &c, &s, &why), UI_OK);
	ck_assert_ptr_nonnull(s.sel);
	ck_assert_int_eq(s.sel->layer, 1);
	ck_assert_int_eq(s.end_ns, 1100000);
	c.pass = 4;
	ck_assert_int_eq(ui_shown(&v, &c, &s, &why), UI_REFUSED);
	ck_assert_str_eq(why.p, "--pass 4: no such pass (the guides have passes 0-1)");
	ui_view_free(&v);
	/* a window without guides: the window is in view */
	memset(&v, 0, sizeof v);
	add(&v, "{\"window_start_ns\": 5, \"window_end_ns\": 9}");
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(ui_shown(&v, &c, &s, &why), UI_OK);
	ck_assert(!s.guides && !s.by_pass && s.by_window);
	ck_assert_int_eq(s.start_ns, 5);
	ck_assert_int_eq(s.end_ns, 9);
	ui_view_free(&v);
	buf_release(&why);
}
END_TEST

static Suite *ui_suite(void)
{
	Suite *s = suite_create("ui");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_regex_escape);
	tcase_add_test(tc, test_url_encode);
	tcase_add_test(tc, test_default_pass_0);
	tcase_add_test(tc, test_pass_layer_query);
	tcase_add_test(tc, test_no_setup);
	tcase_add_test(tc, test_nothing_to_ask);
	tcase_add_test(tc, test_perfetto_ns);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_compact_report);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_bad_reports);
	tcase_add_test(tc, test_report_events);
	tcase_add_test(tc, test_shown);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ui_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
