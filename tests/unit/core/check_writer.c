/* Unit tests for common/core/writer.c: small and large pieces, a buffer filled
 * exactly, half a pipe per write(2), write errors. */
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

static int temp_fd(void)
{
	char path[] = "/tmp/check_io.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(unlink(path), 0);
	return fd;
}

/* ---- writer ---- */

static char *slurp(int fd, size_t *n)
{
	struct stat st;
	char *p;

	ck_assert_int_eq(fstat(fd, &st), 0);
	*n = (size_t)st.st_size;
	p = malloc(*n + 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(io_read_some(fd, p, *n + 1), (long)*n);
	return p;
}

START_TEST(test_writer_small_and_large)
{
	int fd = temp_fd();
	size_t big = IO_WRITE_BLOCK + IO_WRITE_BLOCK / 2, n, i;
	char *data = malloc(big), *got;
	struct writer w;

	ck_assert_ptr_nonnull(data);
	for (i = 0; i < big; i++)
		data[i] = (char)(i % 251);
	ck_assert_int_eq(writer_init(&w, fd), 0);
	ck_assert_int_eq(writer_put(&w, "head:", 5), 0);
	ck_assert_uint_eq(w.written, 0);  /* still buffered */
	ck_assert_int_eq(writer_put(&w, data, big), 0);  /* larger than the buffer */
	ck_assert_uint_eq(w.written, 5 + big);
	ck_assert_uint_eq(w.len, 0);
	ck_assert_int_eq(writer_put(&w, ":tail", 5), 0);
	ck_assert_int_eq(writer_flush(&w), 0);
	ck_assert_int_eq(writer_flush(&w), 0);
	ck_assert_uint_eq(w.written, 5 + big + 5);
	writer_free(&w);

	got = slurp(fd, &n);
	ck_assert_uint_eq(n, 5 + big + 5);
	ck_assert_mem_eq(got, "head:", 5);
	ck_assert_mem_eq(got + 5, data, big);
	ck_assert_mem_eq(got + 5 + big, ":tail", 5);
	free(got);
	free(data);
	close(fd);
}
END_TEST

/* Pieces that exactly fill the buffer, then overflow it by one. */
START_TEST(test_writer_fill_exactly)
{
	int fd = temp_fd();
	size_t half = IO_WRITE_BLOCK / 2, n;
	char *a = malloc(IO_WRITE_BLOCK), *got;
	struct writer w;

	ck_assert_ptr_nonnull(a);
	memset(a, 'A', IO_WRITE_BLOCK);
	ck_assert_int_eq(writer_init(&w, fd), 0);
	ck_assert_int_eq(writer_put(&w, a, half), 0);
	ck_assert_int_eq(writer_put(&w, a, half), 0);
	ck_assert_uint_eq(w.len, IO_WRITE_BLOCK);
	ck_assert_uint_eq(w.written, 0);
	ck_assert_int_eq(writer_put(&w, "B", 1), 0);
	ck_assert_uint_eq(w.written, IO_WRITE_BLOCK);
	ck_assert_uint_eq(w.len, 1);
	ck_assert_int_eq(writer_put(&w, a, IO_WRITE_BLOCK - 1), 0);  /* fits exactly */
	ck_assert_uint_eq(w.len, IO_WRITE_BLOCK);
	ck_assert_int_eq(writer_flush(&w), 0);
	ck_assert_uint_eq(w.written, 2 * IO_WRITE_BLOCK);
	writer_free(&w);

	got = slurp(fd, &n);
	ck_assert_uint_eq(n, 2 * IO_WRITE_BLOCK);
	ck_assert_mem_eq(got, a, half);
	ck_assert_mem_eq(got + half, a, half);
	ck_assert_int_eq(got[IO_WRITE_BLOCK], 'B');
	ck_assert_mem_eq(got + IO_WRITE_BLOCK + 1, a, IO_WRITE_BLOCK - 1);
	free(got);
	free(a);
	close(fd);
}
END_TEST

/* Into a pipe the writer hands over half the pipe's capacity at a time, so
 * that the next stage can read while this one fills the other half. */
START_TEST(test_writer_pipe_half)
{
	int fds[2], queued = -1;
	size_t half;
	struct writer w;
	char *data;

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(writer_init(&w, fds[1]), 0);
	half = (size_t)fcntl(fds[1], F_GETPIPE_SZ) / 2;
	ck_assert_uint_ge(half, 4096);
	ck_assert_uint_eq(w.cap, half);
	data = malloc(half + 1);
	ck_assert_ptr_nonnull(data);
	memset(data, 'p', half + 1);
	ck_assert_int_eq(writer_put(&w, data, half), 0);
	ck_assert_uint_eq(w.written, 0);             /* half the pipe: still held */
	ck_assert_int_eq(writer_put(&w, "q", 1), 0);
	ck_assert_uint_eq(w.written, half);          /* one half handed over */
	ck_assert_int_eq(ioctl(fds[0], FIONREAD, &queued), 0);
	ck_assert_int_eq(queued, (int)half);
	writer_free(&w);
	free(data);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

START_TEST(test_writer_error)
{
	int fd = open("/dev/null", O_RDONLY);
	struct writer w;
	char *big = calloc(1, IO_WRITE_BLOCK + 1);

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(writer_init(&w, fd), 0);
	ck_assert_int_eq(writer_put(&w, "x", 1), 0);  /* buffered: no error yet */
	errno = 0;
	ck_assert_int_eq(writer_flush(&w), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_uint_eq(w.written, 0);
	w.len = 0;
	errno = 0;
	ck_assert_int_eq(writer_put(&w, big, IO_WRITE_BLOCK + 1), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_uint_eq(w.written, 0);
	writer_free(&w);
	free(big);
	close(fd);
}
END_TEST

static Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *writer = tcase_create("writer");

	tcase_add_test(writer, test_writer_small_and_large);
	tcase_add_test(writer, test_writer_fill_exactly);
	tcase_add_test(writer, test_writer_pipe_half);
	tcase_add_test(writer, test_writer_error);
	suite_add_tcase(s, writer);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(writer_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
