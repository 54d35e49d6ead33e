/* Unit tests for common/trstream.c: the exact bytes of each control
 * record prefix (tr-encode and tr-decode recognise records by their first
 * bytes, tr-stream(5)), that completed records parse as JSON, and the
 * source_sha256 copied from a tail record. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "trstream.h"

static void assert_json(const struct buf *b)
{
	struct jdoc d = JDOC_INIT;

	ck_assert_msg(jdoc_parse(&d, b->p, b->len, NULL) == 0, "not JSON: %s", b->p);
	ck_assert_int_eq(jdoc_type(&d, 0), JT_OBJECT);
	jdoc_free(&d);
}

START_TEST(test_names)
{
	ck_assert_str_eq(TRSTREAM_KEY_COMPACT_TRACK, "_compact_gpu_track");
	ck_assert_str_eq(TRSTREAM_KEY_SOURCE_SHA256, "source_sha256");
	ck_assert_str_eq(TRSTREAM_LAYERS_SUFFIX, ".layers.json");
	ck_assert_str_eq(TRSTREAM_COMPACT_SUFFIX, ".compact.json");
}
END_TEST

START_TEST(test_record_begin)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(trstream_record_begin(&b, TRSTREAM_ANCHORS), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchors\"");
	buf_addstr(&b, ",\"n\":1}");
	assert_json(&b);
	buf_reset(&b);
	trstream_record_begin(&b, TRSTREAM_ANCHOR);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchor\"");
	buf_release(&b);
}
END_TEST

START_TEST(test_report_body)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(trstream_report_body(&b, TRSTREAM_COMPACT_SUFFIX), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".compact.json\",\"body\":");
	buf_addstr(&b, "{\"schema_version\":1}}");
	assert_json(&b);
	buf_release(&b);
}
END_TEST

START_TEST(test_report_member)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(trstream_report_member(&b, TRSTREAM_LAYERS_SUFFIX, "tool_version", 0), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".layers.json\",\"member\":"
			 "\"tool_version\",\"body\":");
	buf_addstr(&b, "\"x\"}");
	assert_json(&b);
	buf_reset(&b);
	trstream_report_member(&b, TRSTREAM_LAYERS_SUFFIX, "layers", 1);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".layers.json\",\"member\":"
			 "\"layers\",\"items\":[");
	buf_addstr(&b, "{\"a\":1},{\"a\":2}]}");
	assert_json(&b);
	buf_release(&b);
}
END_TEST

static void sha_of(const char *tail, const char *want)
{
	struct jdoc d = JDOC_INIT;
	struct buf b = BUF_INIT;

	ck_assert_int_eq(jdoc_parse(&d, tail, strlen(tail), NULL), 0);
	ck_assert_int_eq(trstream_put_source_sha256(&b, &d), 0);
	ck_assert_str_eq(b.p, want);
	jdoc_free(&d);
	buf_release(&b);
}

START_TEST(test_source_sha256)
{
	sha_of("{\"@tr\":\"tail\",\"events\":3,\"source_sha256\":\"ab\\u0063\"}", "\"ab\\u0063\"");
	sha_of("{\"@tr\":\"tail\",\"source_sha256\":5}", "null");
	sha_of("{\"@tr\":\"tail\"}", "null");
	/* only the top level counts */
	sha_of("{\"@tr\":\"tail\",\"x\":{\"source_sha256\":\"ab\"}}", "null");
}
END_TEST

static Suite *trstream_suite(void)
{
	Suite *s = suite_create("trstream");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_record_begin);
	tcase_add_test(tc, test_report_body);
	tcase_add_test(tc, test_report_member);
	tcase_add_test(tc, test_source_sha256);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trstream_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
