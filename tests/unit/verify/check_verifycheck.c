/* Unit tests for common/verify/verifycheck.c: failures counted and the first
 * VERIFYCHECK_MAX_SHOWN kept, the exact text and JSON reports (only the
 * checks that ran; "verified" only when none of them failed), the first
 * error of a run kept, a report reader's error named after its file, and
 * the allocation helpers. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verify/verifycheck.h"

START_TEST(test_text_ok)
{
	struct verifycheck vc;
	struct buf b = BUF_INIT;

	verifycheck_init(&vc);
	verifycheck_ran(&vc, VERIFYCHECK_PRESERVE);
	verifycheck_figures(&vc, VERIFYCHECK_PRESERVE, "%d events compared", 3);
	verifycheck_figures(&vc, VERIFYCHECK_PRESERVE, ", %d added", 0);
	ck_assert_int_eq(verifycheck_text(&vc, &b), 0);
	ck_assert_str_eq(b.p, "preservation     ok: 3 events compared, 0 added\nverified\n");
	ck_assert_int_eq(verifycheck_verified(&vc), 1);
	ck_assert_uint_eq(verifycheck_failures(&vc), 0);
	buf_release(&b);
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_text_failed)
{
	struct verifycheck vc;
	struct buf b = BUF_INIT;
	int i;

	verifycheck_init(&vc);
	verifycheck_ran(&vc, VERIFYCHECK_IDENTITY);
	verifycheck_figures(&vc, VERIFYCHECK_IDENTITY, "sha256 x");
	verifycheck_ran(&vc, VERIFYCHECK_RENDER);
	verifycheck_figures(&vc, VERIFYCHECK_RENDER, "1 guides");
	for (i = 0; i < 22; i++)
		verifycheck_fail(&vc, VERIFYCHECK_RENDER, "event %d", i);
	ck_assert_uint_eq(vc.item[VERIFYCHECK_RENDER].failures, 22);
	ck_assert_uint_eq(vc.item[VERIFYCHECK_RENDER].nshown, VERIFYCHECK_MAX_SHOWN);
	ck_assert_int_eq(verifycheck_text(&vc, &b), 0);
	ck_assert_str_eq(b.p, "source identity  ok: sha256 x\n"
			 "render           FAILED: 1 guides\n"
			 "  event 0\n  event 1\n  event 2\n  event 3\n  event 4\n  event 5\n"
			 "  event 6\n  event 7\n  event 8\n  event 9\n  event 10\n  event 11\n"
			 "  event 12\n  event 13\n  event 14\n  event 15\n  event 16\n  event 17\n"
			 "  event 18\n  event 19\n"
			 "  ... 22 failures in all\n"
			 "NOT VERIFIED: do not use this output\n");
	ck_assert_int_eq(verifycheck_verified(&vc), 0);
	buf_release(&b);
	verifycheck_free(&vc);
}
END_TEST

/* After verifycheck_stop_after: the later checks are not shown, text or
 * JSON, but their failures still count against the verdict. */
START_TEST(test_stop_after)
{
	struct verifycheck vc;
	struct buf b = BUF_INIT;

	verifycheck_init(&vc);
	verifycheck_ran(&vc, VERIFYCHECK_IDENTITY);
	verifycheck_figures(&vc, VERIFYCHECK_IDENTITY, "sha256 x");
	verifycheck_fail(&vc, VERIFYCHECK_IDENTITY, "r.json: another trace");
	verifycheck_ran(&vc, VERIFYCHECK_WINDOW);
	verifycheck_figures(&vc, VERIFYCHECK_WINDOW, "0 events kept");
	verifycheck_fail(&vc, VERIFYCHECK_WINDOW, "source event 57 missing");
	verifycheck_stop_after(&vc, VERIFYCHECK_IDENTITY);
	ck_assert_int_eq(verifycheck_text(&vc, &b), 0);
	ck_assert_str_eq(b.p, "source identity  FAILED: sha256 x\n"
			 "  r.json: another trace\n"
			 "NOT VERIFIED: do not use this output\n");
	buf_setlen(&b, 0);
	ck_assert_int_eq(verifycheck_json(&vc, &b), 0);
	ck_assert_str_eq(b.p, "{\"checks\":[{\"name\":\"source identity\",\"ok\":false,"
			 "\"figures\":\"sha256 x\",\"failures\":1,\"first_failures\":"
			 "[\"r.json: another trace\"]}],\"verified\":false}\n");
	ck_assert_uint_eq(verifycheck_failures(&vc), 2);
	buf_release(&b);
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_json)
{
	struct verifycheck vc;
	struct buf b = BUF_INIT;

	verifycheck_init(&vc);
	verifycheck_ran(&vc, VERIFYCHECK_COUNTS);
	verifycheck_figures(&vc, VERIFYCHECK_COUNTS, "2 categories");
	verifycheck_ran(&vc, VERIFYCHECK_PLACEMENT);
	verifycheck_figures(&vc, VERIFYCHECK_PLACEMENT, "guides \"L0\"");
	verifycheck_fail(&vc, VERIFYCHECK_PLACEMENT, "guide %d: name \"L1\"", 0);
	verifycheck_fail(&vc, VERIFYCHECK_PLACEMENT, "guide %d", 1);
	ck_assert_int_eq(verifycheck_json(&vc, &b), 0);
	ck_assert_str_eq(b.p, "{\"checks\":[{\"name\":\"counts\",\"ok\":true,\"figures\":"
			 "\"2 categories\",\"failures\":0,\"first_failures\":[]},{\"name\":"
			 "\"placement\",\"ok\":false,\"figures\":\"guides \\\"L0\\\"\",\"failures\":2,"
			 "\"first_failures\":[\"guide 0: name \\\"L1\\\"\",\"guide 1\"]}],"
			 "\"verified\":false}\n");
	buf_release(&b);
	verifycheck_free(&vc);
}
END_TEST

/* A failure of a check that did not run still counts for the exit status,
 * not for the report. */
START_TEST(test_failure_of_a_check_not_run)
{
	struct verifycheck vc;
	struct buf b = BUF_INIT;

	verifycheck_init(&vc);
	verifycheck_fail(&vc, VERIFYCHECK_PLACEMENT, "report: anchor_regex does not compile");
	ck_assert_int_eq(verifycheck_text(&vc, &b), 0);
	ck_assert_str_eq(b.p, "verified\n");
	ck_assert_uint_eq(verifycheck_failures(&vc), 1);
	buf_release(&b);
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_first_error_wins)
{
	struct verifycheck vc;

	verifycheck_init(&vc);
	ck_assert_int_eq(vc.error, VERIFYCHECK_RUNNING);
	ck_assert_int_eq(verifycheck_trouble(&vc, "%s: no integer %s", "r.json", "passes"), -1);
	ck_assert_int_eq(verifycheck_nomem(&vc), -1);
	ck_assert_int_eq(verifycheck_trouble(&vc, "later"), -1);
	ck_assert_int_eq(vc.error, VERIFYCHECK_TROUBLE);
	ck_assert_str_eq(vc.err, "r.json: no integer passes");
	verifycheck_free(&vc);

	verifycheck_init(&vc);
	verifycheck_trouble_errno(&vc, ENOENT, "%s", "missing.json");
	ck_assert_str_eq(vc.err, "missing.json: No such file or directory");
	verifycheck_free(&vc);

	verifycheck_init(&vc);
	verifycheck_nomem(&vc);
	ck_assert_int_eq(vc.error, VERIFYCHECK_NOMEM);
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_report_error)
{
	struct verifycheck vc;
	struct trstream_error e;

	verifycheck_init(&vc);
	memset(&e, 0, sizeof e);
	e.kind = TRSTREAM_ERR_SYSTEM;
	e.errnum = EIO;
	strcpy(e.msg, "read");
	verifycheck_report_error(&vc, "r.json", &e);
	ck_assert_str_eq(vc.err, "r.json: read: Input/output error");
	verifycheck_free(&vc);

	verifycheck_init(&vc);
	e.kind = TRSTREAM_ERR_SYSTEM;
	e.errnum = EACCES;
	e.msg[0] = '\0';
	verifycheck_report_error(&vc, "r.json", &e);
	ck_assert_str_eq(vc.err, "r.json: Permission denied");
	verifycheck_free(&vc);

	verifycheck_init(&vc);
	e.kind = TRSTREAM_ERR_INPUT;
	strcpy(e.msg, "byte 3: expected ':'");
	verifycheck_report_error(&vc, "r.json", &e);
	ck_assert_str_eq(vc.err, "r.json: byte 3: expected ':'");
	verifycheck_free(&vc);

	verifycheck_init(&vc);
	e.kind = TRSTREAM_ERR_NOMEM;
	verifycheck_report_error(&vc, "r.json", &e);
	ck_assert_int_eq(vc.error, VERIFYCHECK_NOMEM);
	verifycheck_free(&vc);
}
END_TEST

static Suite *verifycheck_suite(void)
{
	Suite *s = suite_create("verifycheck");
	TCase *tc = tcase_create("results");

	tcase_add_test(tc, test_text_ok);
	tcase_add_test(tc, test_text_failed);
	tcase_add_test(tc, test_json);
	tcase_add_test(tc, test_failure_of_a_check_not_run);
	tcase_add_test(tc, test_first_error_wins);
	tcase_add_test(tc, test_report_error);
	tcase_add_test(tc, test_stop_after);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verifycheck_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
