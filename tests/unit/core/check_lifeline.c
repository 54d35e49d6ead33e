/* Unit tests for common/core/lifeline.c: a pipe's read end is held while a
 * writer is open and lost once every writer has closed, unread bytes or
 * not; more lifelines than one poll(2) batch are all looked at; what is not
 * the read end of a pipe (a closed descriptor, a file, a write end) is
 * refused with the errno the message depends on; a FIFO qualifies. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lifeline.h"

START_TEST(test_held_then_lost)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(lifeline_check(p[0]), 0);
	ck_assert_int_eq(lifeline_lost(&p[0], 1), 0);
	close(p[1]);
	ck_assert_int_eq(lifeline_lost(&p[0], 1), 1);
	close(p[0]);
}
END_TEST

/* Bytes in the pipe are not a sign of life; only a writer is. */
START_TEST(test_bytes_are_not_life)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	ck_assert_int_eq(lifeline_lost(&p[0], 1), 0);
	close(p[1]);
	ck_assert_int_eq(lifeline_lost(&p[0], 1), 1);
	close(p[0]);
}
END_TEST

/* Every writer counts: a second holder keeps the line. */
START_TEST(test_every_writer_counts)
{
	int p[2], dup_w;

	ck_assert_int_eq(pipe(p), 0);
	dup_w = dup(p[1]);
	ck_assert_int_ge(dup_w, 0);
	close(p[1]);
	ck_assert_int_eq(lifeline_lost(&p[0], 1), 0);
	close(dup_w);
	ck_assert_int_eq(lifeline_lost(&p[0], 1), 1);
	close(p[0]);
}
END_TEST

/* 20 lifelines (more than one batch of 16): the one lost is found wherever
 * it is; none lost, none found; no lifeline at all is never lost. */
START_TEST(test_many)
{
	enum { N = 20 };
	int r[N], w[N], i, k;

	for (i = 0; i < N; i++) {
		int p[2];
		ck_assert_int_eq(pipe(p), 0);
		r[i] = p[0];
		w[i] = p[1];
	}
	ck_assert_int_eq(lifeline_lost(r, N), 0);
	ck_assert_int_eq(lifeline_lost(r, 0), 0);
	for (k = 0; k < N; k += 19) {
		int p[2];
		close(w[k]);
		ck_assert_int_eq(lifeline_lost(r, N), 1);
		ck_assert_int_eq(pipe(p), 0);
		close(r[k]);
		r[k] = p[0];
		w[k] = p[1];
		ck_assert_int_eq(lifeline_lost(r, N), 0);
	}
	for (i = 0; i < N; i++) {
		close(r[i]);
		close(w[i]);
	}
}
END_TEST

START_TEST(test_refused)
{
	char path[] = "/tmp/check_lifeline.XXXXXX";
	int p[2], fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	errno = 0;
	ck_assert_int_eq(lifeline_check(fd), -1);
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
	errno = 0;
	ck_assert_int_eq(lifeline_check(fd), -1);  /* closed now */
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_int_eq(lifeline_check(-1), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(pipe(p), 0);
	errno = 0;
	ck_assert_int_eq(lifeline_check(p[1]), -1);  /* a write end */
	ck_assert_int_eq(errno, EINVAL);
	close(p[0]);
	close(p[1]);
	/* a closed descriptor cannot be said to be held */
	ck_assert_int_eq(lifeline_lost(&fd, 1), 1);
}
END_TEST

START_TEST(test_fifo)
{
	char dir[] = "/tmp/check_lifeline.XXXXXX", path[64];
	int r, w;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	r = open(path, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(r, 0);
	w = open(path, O_WRONLY);
	ck_assert_int_ge(w, 0);
	unlink(path);
	rmdir(dir);
	ck_assert_int_eq(lifeline_check(r), 0);
	ck_assert_int_eq(lifeline_lost(&r, 1), 0);
	close(w);
	ck_assert_int_eq(lifeline_lost(&r, 1), 1);
	close(r);
}
END_TEST

static Suite *lifeline_suite(void)
{
	Suite *s = suite_create("lifeline");
	TCase *tc = tcase_create("lifeline");

	tcase_add_test(tc, test_held_then_lost);
	tcase_add_test(tc, test_bytes_are_not_life);
	tcase_add_test(tc, test_every_writer_counts);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_fifo);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lifeline_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
