/* Unit tests for common/core/io.c: io_write_all into a pipe whose reader went
 * away, io_read_some, the spill file; io_grow_pipe through writer_init's
 * tests (check_writer). */
#define _GNU_SOURCE  /* F_GETPIPE_SZ */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io.h"
#include "core/writer.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The reader of a pipe goes away: EPIPE reaches the caller (SIGPIPE is
 * ignored here, as the caller decides what to do). */
START_TEST(test_write_all_epipe)
{
	int p[2];
	void (*old)(int);

	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	old = signal(SIGPIPE, SIG_IGN);
	errno = 0;
	ck_assert_int_eq(io_write_all(p[1], "x", 1), -1);
	ck_assert_int_eq(errno, EPIPE);
	signal(SIGPIPE, old);
	close(p[1]);
}
END_TEST

START_TEST(test_read_some)
{
	int p[2];
	char b[8];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(io_write_all(p[1], "abc", 3), 0);
	close(p[1]);
	ck_assert_int_eq(io_read_some(p[0], b, sizeof b), 3);
	ck_assert_mem_eq(b, "abc", 3);
	ck_assert_int_eq(io_read_some(p[0], b, sizeof b), 0);
	close(p[0]);
	ck_assert_int_eq(io_read_some(p[0], b, sizeof b), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

/* The spill file: in TMPDIR, already unlinked, readable and writable; a
 * TMPDIR that does not exist is -1 with errno and the directory named. */
START_TEST(test_open_spill)
{
	char dir[] = "/tmp/check_io_spill.XXXXXX", buf[4];
	const char *used = NULL;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("TMPDIR", dir, 1);
	fd = io_open_spill("tr-test", &used);
	ck_assert_int_ge(fd, 0);
	ck_assert_str_eq(used, dir);
	ck_assert_int_eq(rmdir(dir), 0);  /* empty: the file has no name */
	ck_assert_int_eq(write(fd, "abc", 3), 3);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(read(fd, buf, 3), 3);
	ck_assert_int_eq(memcmp(buf, "abc", 3), 0);
	close(fd);
	setenv("TMPDIR", "/nonexistent/tr-test", 1);
	errno = 0;
	ck_assert_int_eq(io_open_spill("tr-test", &used), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_str_eq(used, "/nonexistent/tr-test");
	setenv("TMPDIR", "", 1);
	fd = io_open_spill("tr-test", &used);
	ck_assert_str_eq(used, "/tmp");
	ck_assert_int_ge(fd, 0);
	close(fd);
	unsetenv("TMPDIR");
}
END_TEST

static Suite *io_suite(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("io");

	tcase_add_test(tc, test_write_all_epipe);
	tcase_add_test(tc, test_read_some);
	tcase_add_test(tc, test_open_spill);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(io_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
