/* Unit tests for common/verify/verifylm.c: a layers report's second landmark
 * recounted from a source stream (exactly one matching kernel of the pid
 * and device in [start_us, end_us) of every guide that ends at the next
 * anchor), with the exact failure line when a guide has two; a report that
 * claims none; a pattern that cannot be used. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verify/verifylm.h"

#define HEAD "{\"@tr\":\"head\",\"format\":\"object\",\"members\":{}}\n"
#define TAIL "{\"@tr\":\"tail\",\"members\":{},\"events\":3,\"source_bytes\":1," \
	"\"source_sha256\":\"ab\"}\n"
#define KERNEL(name, ts, device) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\"," \
	"\"pid\":0,\"tid\":7,\"ts\":" ts ",\"dur\":0.1,\"args\":{\"device\":" device "}}\n"
#define ROWS "[{\"pass_index\":0,\"layer_id\":0,\"anchor_name\":\"k0\",\"start_us\":1.000," \
	"\"end_us\":3.500,\"boundary_kind\":\"next_layer_anchor\"},{\"pass_index\":0," \
	"\"layer_id\":1,\"anchor_name\":\"k1\",\"start_us\":3.500,\"end_us\":3.500," \
	"\"boundary_kind\":\"anchor_point_only\"}]"
#define REPORT(rx) "{\"guide_tid\":1,\"pid\":0,\"device\":0,\"confirm_regex\":\"" rx "\"," \
	"\"layers\":" ROWS "}\n"

static char dir[] = "/tmp/check_verifylm.XXXXXX";
static char report[300], stream[300];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Run the check of a report text over a source stream text: the load's
 * result; vc holds the rest. */
static int run(struct verifycheck *vc, const char *report_text, const char *source)
{
	struct verifylm lm;
	struct stream_in in;
	const char *reports[1] = { report };
	FILE *f;
	int rc;

	write_file(report, report_text);
	write_file(stream, source);
	verifycheck_init(vc);
	verifylm_init(&lm, vc);
	rc = verifylm_load(&lm, reports, 1);
	if (rc == 1) {
		f = fopen(stream, "r");
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(stream_in_init(&in, dup(fileno(f)), 1 << 20), 0);
		fclose(f);
		ck_assert_int_eq(verifylm_source(&lm, &in, "src.json"), 0);
		stream_in_free(&in);
		ck_assert_int_eq(verifylm_finish(&lm), 0);
	}
	verifylm_free(&lm);
	return rc;
}

START_TEST(test_exactly_one)
{
	struct verifycheck vc;

	ck_assert_int_eq(run(&vc, REPORT("^m"), HEAD KERNEL("k0", "1.000", "0")
			     KERNEL("m", "2.000", "0") KERNEL("m", "2.500", "1")
			     KERNEL("k1", "3.500", "0") TAIL), 1);
	ck_assert_int_eq(vc.item[VERIFYCHECK_LANDMARK].ran, 1);
	ck_assert_uint_eq(verifycheck_failures(&vc), 0);
	ck_assert_str_eq(vc.item[VERIFYCHECK_LANDMARK].figures.p, "confirm_regex \"^m\": 1 anchor "
			 "intervals recounted from the source");
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_two)
{
	struct verifycheck vc;
	char want[600];

	ck_assert_int_eq(run(&vc, REPORT("^m"), HEAD KERNEL("k0", "1.000", "0")
			     KERNEL("m", "2.000", "0") KERNEL("m", "3.499", "0")
			     KERNEL("k1", "3.500", "0") TAIL), 1);
	snprintf(want, sizeof want, "%s claims confirm_regex \"^m\", but pass 0, layer 0 (anchor "
		 "at ts 1.000) has 2 matching kernels in the source, not exactly one", report);
	ck_assert_str_eq(vc.item[VERIFYCHECK_LANDMARK].shown.p, want);
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_no_claim)
{
	struct verifycheck vc;

	ck_assert_int_eq(run(&vc, "{\"guide_tid\":1,\"pid\":0,\"device\":0,\"layers\":" ROWS "}",
			     HEAD TAIL), 0);
	ck_assert_int_eq(vc.item[VERIFYCHECK_LANDMARK].ran, 0);
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_unusable_pattern)
{
	struct verifycheck vc;
	char want[400];

	ck_assert_int_eq(run(&vc, REPORT("("), HEAD TAIL), -1);
	snprintf(want, sizeof want, "%s: confirm_regex: not a usable pattern", report);
	ck_assert_str_eq(vc.err, want);
	verifycheck_free(&vc);
}
END_TEST

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(report, sizeof report, "%s/r.layers.json", dir);
	snprintf(stream, sizeof stream, "%s/src.stream", dir);
}

static void teardown(void)
{
	unlink(report);
	unlink(stream);
	rmdir(dir);
	strcpy(dir, "/tmp/check_verifylm.XXXXXX");
}

static Suite *verifylm_suite(void)
{
	Suite *s = suite_create("verifylm");
	TCase *tc = tcase_create("landmark");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_exactly_one);
	tcase_add_test(tc, test_two);
	tcase_add_test(tc, test_no_claim);
	tcase_add_test(tc, test_unusable_pattern);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verifylm_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
