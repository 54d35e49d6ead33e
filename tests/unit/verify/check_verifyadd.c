/* Unit tests for common/verify/verifyadd.c: the events the tools add, rebuilt
 * from the reports: the guide track's metadata and slices, the lanes' and
 * scope processes' metadata, compared byte for byte (trace-layers'
 * reports) or as JSON values (others'), each once, none more; the counts;
 * and the value comparison itself.  Exact messages. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "verify/verifyadd.h"

#define LAYERS(tool) "{\"phase\":\"prefill\",\"evidence\":\"ev\",\"pid\":0,\"guide_tid\":1," \
	"\"track_name\":\"Layer guide (prefill) \\u2014 anchor intervals\",\"added_event_count\":3" \
	tool "}"
#define OURS ",\"tool_version\":\"trace-layers 0.1.0\""
#define COMPACT "{\"new_metadata_count\":3,\"groups\":[{\"pid\":0,\"display_pid\":0,\"device\":0," \
	"\"kind\":\"activity\",\"lane_tids\":[2113929216]},{\"pid\":0,\"display_pid\":2130706432," \
	"\"device\":null,\"kind\":\"scope\",\"lane_tids\":[]}]" OURS "}"

#define GNAME "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":1000,\"pid\":0,\"tid\":1,\"args\":" \
	"{\"name\":\"Layer guide (prefill) \xe2\x80\x94 anchor intervals\"}}"
#define GSORT "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":1000,\"pid\":0,\"tid\":1," \
	"\"args\":{\"sort_index\":-1000}}"
#define LNAME "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":2113929216,\"args\":" \
	"{\"name\":\"GPU lane 1 (synthetic; device 0)\"}}"
#define LSORT "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":2113929216," \
	"\"args\":{\"sort_index\":-999}}"
#define SNAME "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2130706432,\"tid\":0,\"args\":" \
	"{\"name\":\"GPU scopes (original PID 0)\"}}"

struct run {
	struct verifycheck vc;
	struct verifyadd va;
	struct jdoc d;
};

static void start(struct run *r, const char *layers, const char *compact)
{
	verifycheck_init(&r->vc);
	verifyadd_init(&r->va, &r->vc);
	r->d = (struct jdoc)JDOC_INIT;
	if (layers != NULL) {
		ck_assert_int_eq(json_parse(&r->d, layers, strlen(layers), NULL), 0);
		ck_assert_int_eq(verifyadd_load_layers(&r->va, &r->d, "o.json.layers.json"), 0);
	}
	if (compact != NULL) {
		ck_assert_int_eq(json_parse(&r->d, compact, strlen(compact), NULL), 0);
		ck_assert_int_eq(verifyadd_load_compaction(&r->va, &r->d, 0, "o.json.compact.json"), 0);
	}
	verifyadd_begin(&r->va, VERIFYCHECK_REVERSAL, 1, 1000);
}

/* An added metadata event, its name, pid and tid found as verify.c does. */
static void meta(struct run *r, const char *line, uint64_t o)
{
	struct jdoc d = JDOC_INIT;
	size_t nn, pn, tn;
	const char *n, *p, *t;

	ck_assert_int_eq(json_parse(&d, line, strlen(line), NULL), 0);
	n = json_raw(&d, json_find(&d, 0, "name"), &nn);
	p = json_raw(&d, json_find(&d, 0, "pid"), &pn);
	t = json_raw(&d, json_find(&d, 0, "tid"), &tn);
	ck_assert_int_eq(verifyadd_meta_event(&r->va, line, strlen(line), o, n, nn, p, pn, t, tn), 0);
	json_free(&d);
}

static const char *shown(const struct run *r)
{
	return r->vc.item[VERIFYCHECK_REVERSAL].shown.p;
}

static void done(struct run *r)
{
	verifyadd_free(&r->va);
	verifycheck_free(&r->vc);
	json_free(&r->d);
}

static struct guides_row row(void)
{
	struct guides_row g;

	memset(&g, 0, sizeof g);
	g.layer = 0;
	g.start_ns = 1000000;
	g.end_ns = 1500000;
	g.start_us = 1000;
	g.end_us = 1500;
	g.start_text = "1000.000";
	g.end_text = "1500.000";
	g.kind = "next_layer_anchor";
	g.anchor_name = "\"k\"";
	g.anchor_tid = "7";
	return g;
}

#define GUIDE "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,\"ts\":1000," \
	"\"dur\":500,\"args\":{\"pass_index\":0,\"layer_id\":0,\"anchor_index\":0,\"anchor_name\":" \
	"\"k\",\"anchor_tid\":7,\"start_us\":1000.000,\"end_us\":1500.000,\"guide_start_us\":1000," \
	"\"guide_end_us\":1500,\"start_relative_ms\":0.000000,\"end_relative_ms\":0.500000," \
	"\"boundary_kind\":\"next_layer_anchor\",\"phase\":\"prefill\",\"evidence\":\"ev\"," \
	"\"notice\":\"Layer guides are anchor-to-anchor navigation aids: each slice runs from " \
	"one layer's anchor kernel to the next layer's anchor (or to the terminal kernel's end, " \
	"or is a zero-length marker). They are not layer boundaries and do not assign kernels to " \
	"layers. ts, dur and *_us values are microseconds; *_relative_ms values are milliseconds " \
	"from the earliest event.\"}}"

START_TEST(test_all_as_written)
{
	struct run r;
	struct guides_row g = row();

	start(&r, LAYERS(OURS), COMPACT);
	meta(&r, GNAME, 10);
	meta(&r, GSORT, 11);
	ck_assert_int_eq(verifyadd_guide(&r.va, GUIDE, strlen(GUIDE), 12, 0, &g, 1000000), 0);
	meta(&r, LNAME, 13);
	meta(&r, LSORT, 14);
	meta(&r, SNAME, 15);
	verifyadd_finish(&r.va);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	done(&r);
}
END_TEST

START_TEST(test_renamed_and_missing)
{
	struct run r;
	struct guides_row g = row();
	char *guide = strdup(GUIDE);

	start(&r, LAYERS(OURS), COMPACT);
	/* the guide track's name missing, the lane renamed, the phase edited */
	meta(&r, GSORT, 11);
	memcpy(strstr(guide, "\"phase\":\"prefill\"") + 9, "decode\" ", 8);
	ck_assert_int_eq(verifyadd_guide(&r.va, guide, strlen(guide), 12, 0, &g, 1000000), 0);
	meta(&r, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":2113929216,\"args\":"
	     "{\"name\":\"GPU lane 1 (CUDA stream; device 0)\"}}", 13);
	meta(&r, LSORT, 14);
	meta(&r, SNAME, 15);
	verifyadd_finish(&r.va);
	ck_assert_str_eq(shown(&r),
		"output event 12: guide 0 is not as tr-guides writes it: byte 345: output "
		"...:\"next_layer_anchor\",\"phase\":\"decode\" ,\"evidence\":\"ev\",\"notice\":\"Layer"
		"... expected ...:\"next_layer_anchor\",\"phase\":\"prefill\",\"evidence\":\"ev\","
		"\"notice\":\"Layer...\n"
		"output event 13: a synthetic lane's thread_name (pid 0, tid 2113929216) is not as "
		"tr-compact writes it: byte 84: output ...6,\"args\":{\"name\":\"GPU lane 1 (CUDA stream; "
		"device 0)\"}}... expected ...6,\"args\":{\"name\":\"GPU lane 1 (synthetic; device 0)\"}}...\n"
		"output: the guide track's thread_name (pid 0, tid 1) is missing (tr-guides adds it)\n"
		"output: 1 guides and 1 metadata events on the guide track, but the layers report's "
		"added_event_count is 3");
	done(&r);
	free(guide);
}
END_TEST

START_TEST(test_twice_and_unknown)
{
	struct run r;

	start(&r, NULL, COMPACT);
	meta(&r, LNAME, 3);
	meta(&r, LNAME, 4);
	meta(&r, LSORT, 5);
	meta(&r, SNAME, 6);
	meta(&r, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":2113929217,\"args\":"
	     "{\"name\":\"GPU lane 2 (synthetic; device 0)\"}}", 7);
	verifyadd_finish(&r.va);
	ck_assert_str_eq(shown(&r),
		"output event 4: a synthetic lane's thread_name (pid 0, tid 2113929216) once more "
		"(the tools add it once)\n"
		"output event 7: not in the source and not added by the tools (the reports imply no "
		"thread_name (pid 0, tid 2113929217))\n"
		"output: 4 metadata events of the lanes and scope processes, the report's groups "
		"imply 3 and its new_metadata_count is 3");
	done(&r);
}
END_TEST

/* The guide track's ts is the first guide's; not known, the event's own
 * is taken (the placement check fails such an output). */
START_TEST(test_guide_meta_ts)
{
	struct run r;
	const char *later = "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":1001,\"pid\":0,"
		"\"tid\":1,\"args\":{\"sort_index\":-1000}}";

	start(&r, LAYERS(OURS), NULL);
	meta(&r, GNAME, 0);
	meta(&r, later, 1);
	ck_assert_str_eq(shown(&r), "output event 1: the guide track's thread_sort_index (pid 0, "
			 "tid 1) is not as tr-guides writes it: byte 45: output ..._sort_index\",\"ph\":"
			 "\"M\",\"ts\":1001,\"pid\":0,\"tid\":1,\"args\":{\"sort_index\":-... expected "
			 "..._sort_index\",\"ph\":\"M\",\"ts\":1000,\"pid\":0,\"tid\":1,\"args\":"
			 "{\"sort_index\":-...");
	done(&r);
	verifycheck_init(&r.vc);
	verifyadd_init(&r.va, &r.vc);
	r.d = (struct jdoc)JDOC_INIT;
	ck_assert_int_eq(json_parse(&r.d, LAYERS(OURS), strlen(LAYERS(OURS)), NULL), 0);
	ck_assert_int_eq(verifyadd_load_layers(&r.va, &r.d, "o.json.layers.json"), 0);
	verifyadd_begin(&r.va, VERIFYCHECK_REVERSAL, 0, 0);
	meta(&r, later, 1);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	done(&r);
}
END_TEST

/* Another tool's report: values, not bytes; a guide without its
 * placement: how the track's slices open and end. */
START_TEST(test_values_and_template)
{
	struct run r;
	struct guides_row g = row();
	const char *spaced = "{\"name\":\"thread_name\",\"pid\":0,\"ph\":\"M\",\"ts\":1000.000,"
		"\"tid\":1,\"args\":{\"name\":\"Layer guide (prefill) \\u2014 anchor intervals\"}}";
	char *guide = strdup(GUIDE);

	start(&r, LAYERS(""), NULL);
	meta(&r, spaced, 0);
	/* numbers by value: accepted */
	memcpy(strstr(guide, "0.500000"), "0.5     ", 8);
	ck_assert_int_eq(verifyadd_guide(&r.va, guide, strlen(guide), 2, 0, &g, 1000000), 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	memcpy(strstr(guide, "\"evidence\":\"ev\"") + 12, "eV", 2);
	ck_assert_int_eq(verifyadd_guide(&r.va, guide, strlen(guide), 2, 0, &g, 1000000), 0);
	ck_assert_str_eq(shown(&r), "output event 2: guide 0 is not what the report implies: "
			 "args.evidence: output \"eV\", expected \"ev\"");
	done(&r);
	free(guide);

	start(&r, LAYERS(OURS), NULL);
	meta(&r, spaced, 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 1);
	ck_assert_int_eq(verifyadd_guide(&r.va, GUIDE, strlen(GUIDE), 2, 0, NULL, 0), 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 1);
	guide = strdup(GUIDE);
	memcpy(strstr(guide, "\"evidence\":\"ev\"") + 12, "eV", 2);
	ck_assert_int_eq(verifyadd_guide(&r.va, guide, strlen(guide), 3, 1, NULL, 0), 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 2);
	ck_assert_str_eq(strchr(shown(&r), '\n') + 1, "output event 3: guide 1 is not as "
			 "tr-guides writes it: byte 367: output ...phase\":\"prefill\",\"evidence\":\"eV\","
			 "\"notice\":\"Layer guides are anchor-to-... expected ...phase\":\"prefill\","
			 "\"evidence\":\"ev\",\"notice\":\"Layer guides are anchor-to-...");
	done(&r);
	free(guide);
}
END_TEST

/* Another tool's metadata: its ts is its own; its groups without what the
 * names are made of: their lanes' metadata taken as it is, the guide
 * track's still rebuilt. */
START_TEST(test_another_tool)
{
	struct run r;
	const char *groups = "{\"groups\":[{\"display_pid\":0,\"lane_tids\":[5]}]}";

	start(&r, LAYERS(""), groups);
	meta(&r, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":0,\"tid\":1,\"args\":"
	     "{\"name\":\"Layer guide (prefill) \\u2014 anchor intervals\"}}", 0);
	meta(&r, GSORT, 1);
	meta(&r, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":5,\"args\":"
	     "{\"name\":\"lane five\"}}", 2);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	meta(&r, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":0,\"tid\":1,\"args\":"
	     "{\"name\":\"Layer guide\"}}", 3);
	ck_assert_str_eq(shown(&r), "output event 3: the guide track's thread_name (pid 0, tid 1) "
			 "once more (the tools add it once)");
	done(&r);
}
END_TEST

/* A report that cannot rebuild the track: said in the check. */
START_TEST(test_no_phase)
{
	struct run r;

	start(&r, "{\"evidence\":\"ev\",\"pid\":0,\"guide_tid\":1}", NULL);
	ck_assert_str_eq(shown(&r), "o.json.layers.json: no string phase: the guide track cannot "
			 "be rebuilt");
	done(&r);
}
END_TEST

static int eq(const char *a, const char *b)
{
	struct jdoc x = JDOC_INIT, y = JDOC_INIT;
	struct buf p = BUF_INIT, q = BUF_INIT;
	int r;

	buf_printf(&p, "[%s]", a);
	buf_printf(&q, "[%s]", b);
	ck_assert_int_eq(json_parse(&x, p.p, p.len, NULL), 0);
	ck_assert_int_eq(json_parse(&y, q.p, q.len, NULL), 0);
	r = verifyadd_value_eq(&x, 1, &y, 1, &p, &q, NULL, NULL);
	json_free(&x);
	json_free(&y);
	buf_release(&p);
	buf_release(&q);
	return r;
}

START_TEST(test_value_eq)
{
	ck_assert_int_eq(eq("3.024", "3.024000"), 1);
	ck_assert_int_eq(eq("1e3", "1000"), 1);
	ck_assert_int_eq(eq("1000.5", "10005E-1"), 1);
	ck_assert_int_eq(eq("0.0", "-0"), 1);
	ck_assert_int_eq(eq("7", "7.0"), 1);
	ck_assert_int_eq(eq("1", "2"), 0);
	ck_assert_int_eq(eq("-1", "1"), 0);
	ck_assert_int_eq(eq("0.1", "0.01"), 0);
	ck_assert_int_eq(eq("1", "\"1\""), 0);
	ck_assert_int_eq(eq("true", "true"), 1);
	ck_assert_int_eq(eq("true", "false"), 0);
	ck_assert_int_eq(eq("\"\\u0041\"", "\"A\""), 1);
	ck_assert_int_eq(eq("\"a\"", "\"b\""), 0);
	ck_assert_int_eq(eq("{\"a\":1,\"b\":[1,2.0]}", "{\"b\":[1.0,2],\"a\":1.0}"), 1);
	ck_assert_int_eq(eq("{\"a\":1,\"b\":2}", "{\"a\":1,\"c\":2}"), 0);
	ck_assert_int_eq(eq("{\"a\":1}", "{\"a\":1,\"c\":2}"), 0);
	ck_assert_int_eq(eq("[1,2]", "[2,1]"), 0);
}
END_TEST

static Suite *verifyadd_suite(void)
{
	Suite *s = suite_create("verifyadd");
	TCase *tc = tcase_create("added");

	tcase_add_test(tc, test_all_as_written);
	tcase_add_test(tc, test_renamed_and_missing);
	tcase_add_test(tc, test_twice_and_unknown);
	tcase_add_test(tc, test_guide_meta_ts);
	tcase_add_test(tc, test_values_and_template);
	tcase_add_test(tc, test_another_tool);
	tcase_add_test(tc, test_no_phase);
	tcase_add_test(tc, test_value_eq);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verifyadd_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
