/* Unit tests for common/stream/filter.c: a stage's skeleton on descriptors 0 and 1
 * (each test runs in its own process, as Check forks): lines pass through
 * byte-exact with added lines between them, a truncated or malformed
 * stream comes back as LINE_ERROR with the reader's message, and a failed
 * write is kept: later writes are skipped, filter_next stops the loop and
 * filter_close reports the write's errno. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/filter.h"

static char tmpl[] = "/tmp/check_filter.XXXXXX";

/* Descriptor 0 reads text from a file; descriptor 1 writes to a fresh file
 * whose path is returned (or to target, when not NULL). */
static void redirect(const char *text, const char *target, char *out_path)
{
	char in_path[sizeof tmpl];
	int fd;

	strcpy(in_path, tmpl);
	fd = mkstemp(in_path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(dup2(fd, 0), 0);
	close(fd);
	unlink(in_path);
	if (target != NULL) {
		fd = open(target, O_WRONLY);
	} else {
		strcpy(out_path, tmpl);
		fd = mkstemp(out_path);
	}
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, 1), 1);
	close(fd);
}

static void file_is(const char *path, const char *want)
{
	char got[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(got, 1, sizeof got - 1, f);
	got[n] = '\0';
	fclose(f);
	unlink(path);
	ck_assert_str_eq(got, want);
}

#define HEAD "{\"@tr\":\"head\",\"format\":\"object\",\"members\":{}}\n"
#define TAIL "{\"@tr\":\"tail\",\"members\":{},\"events\":2}\n"

/* Every kind in order; a line put before the tail, the rest passed. */
START_TEST(pass_and_put)
{
	static const char text[] = HEAD "{\"ph\":\"X\",\"ts\":1.50}\n"
		"{\"@tr\":\"report\",\"suffix\":\".x.json\",\"body\":{}}\n"
		"{\"name\":\"\\u00e9\"}\n" TAIL;
	static const int kinds[] = { LINE_HEAD, LINE_EVENT, LINE_CONTROL, LINE_EVENT, LINE_TAIL };
	char out[sizeof tmpl];
	struct filter f;
	const char *line;
	size_t len;
	int kind, i = 0;

	redirect(text, NULL, out);
	ck_assert_int_eq(filter_open(&f), 0);
	while ((kind = filter_next(&f, &line, &len)) > LINE_END) {
		ck_assert_int_lt(i, 5);
		ck_assert_int_eq(kind, kinds[i++]);
		if (kind == LINE_TAIL)
			ck_assert_int_eq(filter_put(&f, "{\"added\":1}", 11), 0);
		ck_assert_int_eq(filter_pass(&f, line, len), 0);
	}
	ck_assert_int_eq(kind, LINE_END);
	ck_assert_int_eq(i, 5);
	ck_assert_int_eq(filter_close(&f), 0);
	ck_assert_int_eq(f.write_errno, 0);
	file_is(out, HEAD "{\"ph\":\"X\",\"ts\":1.50}\n"
		"{\"@tr\":\"report\",\"suffix\":\".x.json\",\"body\":{}}\n"
		"{\"name\":\"\\u00e9\"}\n{\"added\":1}\n" TAIL);
}
END_TEST

static int count_until_error(struct filter *f)
{
	const char *line;
	size_t len;
	int kind;

	while ((kind = filter_next(f, &line, &len)) > LINE_END)
		filter_pass(f, line, len);
	return kind;
}

START_TEST(truncated)
{
	char out[sizeof tmpl];
	struct filter f;

	redirect(HEAD "{\"ph\":\"X\"}\n", NULL, out);
	ck_assert_int_eq(filter_open(&f), 0);
	ck_assert_int_eq(count_until_error(&f), LINE_ERROR);
	ck_assert_int_eq(f.write_errno, 0);
	ck_assert_str_eq(f.in.err, "truncated stream: input ended before the tail record "
			 "(an earlier stage failed or the stream was cut)");
	ck_assert_int_eq(filter_close(&f), 0);
	/* the lines passed, then the record that tells the next stage */
	file_is(out, HEAD "{\"ph\":\"X\"}\n{\"@tr\":\"failed\"}\n");
}
END_TEST

/* No input at all, or the failed record: the record is written, once. */
START_TEST(failed_record)
{
	static const char *const in[] = { "", "{\"@tr\":\"failed\"}\n",
		HEAD "{\"ph\":\"X\"}\n{\"@tr\":\"failed\"}\n" TAIL };
	static const char *const out_want[] = { "{\"@tr\":\"failed\"}\n",
		"{\"@tr\":\"failed\"}\n", HEAD "{\"ph\":\"X\"}\n{\"@tr\":\"failed\"}\n" };
	size_t i;

	for (i = 0; i < sizeof in / sizeof in[0]; i++) {
		char out[sizeof tmpl];
		struct filter f;
		/* filter_close closed descriptor 1: mkstemp would take it */
		ck_assert_int_eq(dup2(2, 1), 1);
		redirect(in[i], NULL, out);
		ck_assert_int_eq(filter_open(&f), 0);
		ck_assert_int_eq(count_until_error(&f), LINE_ERROR);
		ck_assert_int_eq(f.in.upstream_failed, i > 0);
		ck_assert_msg(filter_close(&f) == 0, "case %zu: %s", i, strerror(f.write_errno));
		file_is(out, out_want[i]);
	}
}
END_TEST

/* Standard output a table, not a stream: no record goes there. */
START_TEST(failed_record_not_on_a_table)
{
	char out[sizeof tmpl];
	struct filter f;

	redirect(HEAD "{\"ph\":\"X\"}\n", NULL, out);
	ck_assert_int_eq(filter_open(&f), 0);
	f.table_out = 1;
	ck_assert_int_eq(count_until_error(&f), LINE_ERROR);
	ck_assert_int_eq(f.in.cut, 1);
	ck_assert_int_eq(filter_close(&f), 0);
	file_is(out, HEAD "{\"ph\":\"X\"}\n");
}
END_TEST

START_TEST(line_after_tail)
{
	char out[sizeof tmpl];
	struct filter f;

	redirect(HEAD TAIL "{\"ph\":\"X\"}\n", NULL, out);
	ck_assert_int_eq(filter_open(&f), 0);
	ck_assert_int_eq(count_until_error(&f), LINE_ERROR);
	ck_assert_str_eq(f.in.err, "line 3: data after the tail record");
	ck_assert_int_eq(filter_close(&f), 0);
	unlink(out);
}
END_TEST

/* /dev/full: the first write that reaches the descriptor fails; the
 * failure is kept and reported by filter_close. */
START_TEST(write_fails_at_close)
{
	struct filter f;

	redirect(HEAD TAIL, "/dev/full", NULL);
	ck_assert_int_eq(filter_open(&f), 0);
	ck_assert_int_eq(count_until_error(&f), LINE_END);
	ck_assert_int_eq(filter_close(&f), -1);
	ck_assert_int_eq(f.write_errno, ENOSPC);
}
END_TEST

/* A reader that went away (SIGPIPE ignored, as under some shells): once a
 * write failed, puts return -1 and the next filter_next ends the loop. */
START_TEST(write_fails_midway)
{
	struct filter f;
	int fds[2], i, kind;
	const char *line;
	size_t len;
	char *big;

	signal(SIGPIPE, SIG_IGN);
	big = malloc(1 << 16);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 1 << 16);
	redirect(HEAD TAIL, "/dev/null", NULL);
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(dup2(fds[1], 1), 1);
	close(fds[1]);
	close(fds[0]);
	ck_assert_int_eq(filter_open(&f), 0);
	ck_assert_int_eq(filter_next(&f, &line, &len), LINE_HEAD);
	/* more than the writer holds: it must reach the closed pipe */
	for (i = 0; i < 1024 && filter_put(&f, big, 1 << 16) == 0; i++)
		;
	ck_assert_int_lt(i, 1024);
	ck_assert_int_eq(f.write_errno, EPIPE);
	ck_assert_int_eq(filter_put(&f, "{}", 2), -1);
	ck_assert_int_eq(filter_pass(&f, line, len), -1);
	kind = filter_next(&f, &line, &len);
	ck_assert_int_eq(kind, LINE_ERROR);
	ck_assert_int_eq(filter_close(&f), -1);
	ck_assert_int_eq(f.write_errno, EPIPE);
	free(big);
}
END_TEST

static Suite *filter_suite(void)
{
	Suite *s = suite_create("filter");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, pass_and_put);
	tcase_add_test(tc, truncated);
	tcase_add_test(tc, failed_record);
	tcase_add_test(tc, failed_record_not_on_a_table);
	tcase_add_test(tc, line_after_tail);
	tcase_add_test(tc, write_fails_at_close);
	tcase_add_test(tc, write_fails_midway);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(filter_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
