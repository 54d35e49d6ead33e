/* Unit tests for common/encsink.c: the format and the gzip choice by name
 * (.pftrace and .pftrace.gz are Perfetto's, .json.gz is gzip JSON, a bare
 * ".pftrace" or "x.pftrace.json" is not); plain bytes reach the file as
 * put; a gzip sink writes one gzip member that gunzips to the bytes put. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encsink.h"

START_TEST(test_names)
{
	ck_assert_int_eq(encsink_format_of("out.pftrace"), ENCSINK_PERFETTO);
	ck_assert_int_eq(encsink_format_of("out.pftrace.gz"), ENCSINK_PERFETTO);
	ck_assert_int_eq(encsink_format_of("out.json.gz"), ENCSINK_JSON);
	ck_assert_int_eq(encsink_format_of("x.pftrace.json"), ENCSINK_JSON);
	ck_assert_int_eq(encsink_format_of(".pftrace"), ENCSINK_JSON);
	ck_assert_int_eq(encsink_format_of("-"), ENCSINK_JSON);
	ck_assert_int_eq(encsink_is_gz("a.pftrace.gz"), 1);
	ck_assert_int_eq(encsink_is_gz("a.gz.json"), 0);
	ck_assert_int_eq(encsink_is_gz(".gz"), 0);
}
END_TEST

static void through(int gzip, const char *cmd)
{
	char path[] = "/tmp/check_encsink.XXXXXX", line[300];
	int fd = mkstemp(path);
	struct encsink s;
	FILE *f;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(encsink_open(&s, fd, gzip, 1), ENCSINK_OK);
	ck_assert_int_eq(encsink_put(&s, "hello ", 6), ENCSINK_OK);
	ck_assert_int_eq(encsink_put(&s, "world\n", 6), ENCSINK_OK);
	ck_assert_int_eq(encsink_finish(&s), ENCSINK_OK);
	encsink_free(&s);
	close(fd);
	snprintf(line, sizeof line, "%s %s", cmd, path);
	f = popen(line, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	ck_assert_str_eq(line, "hello world\n");
	pclose(f);
	unlink(path);
}

START_TEST(test_plain)
{
	through(0, "cat");
}
END_TEST

START_TEST(test_gzip)
{
	through(1, "gzip -dc");
}
END_TEST

static Suite *encsink_suite(void)
{
	Suite *s = suite_create("encsink");
	TCase *tc = tcase_create("sink");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_plain);
	tcase_add_test(tc, test_gzip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(encsink_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
