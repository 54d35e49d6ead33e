/* Unit tests for common/passfile.c: an existing table file is refused
 * (1, EEXIST) and left alone; a stream without guides gives an empty table,
 * placed by outfile_commit. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "passfile.h"

START_TEST(test_exists)
{
	char path[] = "/tmp/check_passfile.XXXXXX";
	int fd = mkstemp(path);
	struct passfile t;
	struct stat st;

	ck_assert_int_eq(write(fd, "keep", 4), 4);
	close(fd);
	errno = 0;
	ck_assert_int_eq(passfile_open(&t, path, -1), 1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 4);
	unlink(path);
}
END_TEST

START_TEST(test_empty_table)
{
	char dir[] = "/tmp/check_passfile.XXXXXX", path[100];
	struct passfile t;
	struct encoder enc;
	struct stat st;
	const char *ev = "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/t", dir);
	memset(&enc, 0, sizeof enc);
	ck_assert_int_eq(passfile_open(&t, path, fileno(tmpfile())), 0);
	ck_assert_int_eq(passfile_event(&t, &enc, ev, strlen(ev)), PASSTABLE_OK);
	ck_assert_int_eq(passfile_write(&t), PASSTABLE_OK);
	ck_assert_int_eq(outfile_commit(&t.file), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	passfile_free(&t);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *passfile_suite(void)
{
	Suite *s = suite_create("passfile");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_exists);
	tcase_add_test(tc, test_empty_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(passfile_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
