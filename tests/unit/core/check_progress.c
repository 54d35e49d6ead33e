/* Unit tests for common/core/progress.c: the byte counts, durations and whole
 * lines of the meter, the terminal-or-forced decision, and the throttle
 * (nothing in the first second, then at most one redraw a quarter of a
 * second, the line cleared at the end) on an injected clock: no test here
 * depends on real time. */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/progress.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MS 1000000ull
#define SEC 1000000000ull

struct bytes_case {
	uint64_t n;
	const char *text;
};

static const struct bytes_case bytes_cases[] = {
	{ 0, "0B" },
	{ 1, "1B" },
	{ 1023, "1023B" },
	{ 1024, "1.0K" },
	{ 1075, "1.0K" },            /* 1.0498K */
	{ 1076, "1.1K" },            /* 1.0508K: a tenth rounds half up */
	{ 1536, "1.5K" },
	{ 1048524, "1023.9K" },
	{ 1048525, "1.0M" },         /* 1023.95K rounds to the next unit */
	{ 1048576, "1.0M" },
	{ 642043084, "612.3M" },
	{ 1073741824, "1.0G" },
	{ 1717986918, "1.6G" },
	{ 1099511627776ull, "1024.0G" },  /* G is the largest unit, as in options */
	{ UINT64_MAX, "17179869184.0G" },
};

START_TEST(test_bytes)
{
	const struct bytes_case *c = &bytes_cases[_i];
	char buf[32];
	size_t n = progress_bytes(buf, sizeof buf, c->n);

	ck_assert_str_eq(buf, c->text);
	ck_assert_uint_eq(n, strlen(c->text));
}
END_TEST

struct duration_case {
	uint64_t s;
	const char *text;
};

static const struct duration_case duration_cases[] = {
	{ 0, "0:00" },
	{ 7, "0:07" },
	{ 60, "1:00" },
	{ 754, "12:34" },
	{ 3599, "59:59" },
	{ 3600, "1:00:00" },
	{ 3723, "1:02:03" },
	{ 360000, "100:00:00" },
};

START_TEST(test_duration)
{
	const struct duration_case *c = &duration_cases[_i];
	char buf[32];

	progress_duration(buf, sizeof buf, c->s);
	ck_assert_str_eq(buf, c->text);
}
END_TEST

struct format_case {
	const char *phase;
	uint64_t done, total, elapsed_ns;
	const char *text;
};

static const struct format_case format_cases[] = {
	/* 612.3M of 1.6G in 13.55 s: 45.2M/s, the rest in 22.7 s (rounded up) */
	{ "annotating", 642043084, 1717986918, 13550 * MS,
	  "annotating 612.3M/1.6G 37% 45.2M/s ETA 0:23" },
	{ "reading", 0, 1000, 2 * SEC, "reading 0B/1000B 0% 0B/s ETA -:--" },
	{ "reading", 500, 1000, 1 * SEC, "reading 500B/1000B 50% 500B/s ETA 0:01" },
	{ "reading", 1000, 1000, 1 * SEC, "reading 1000B/1000B 100% 1000B/s ETA 0:00" },
	/* a source that grew while read: never over 100% */
	{ "reading", 1500, 1000, 1 * SEC, "reading 1.5K/1000B 100% 1.5K/s ETA 0:00" },
	{ "verifying", 10 << 20, 7200ull << 20, 1 * SEC,
	  "verifying 10.0M/7.0G 0% 10.0M/s ETA 11:59" },
	{ "verifying", 1 << 20, 7200ull << 20, 1 * SEC,
	  "verifying 1.0M/7.0G 0% 1.0M/s ETA 1:59:59" },
	/* no size (standard input): no share, no time left */
	{ "reading", 642043084, 0, 2 * SEC, "reading 612.3M 306.1M/s" },
	{ "reading", 5, 0, 0, "reading 5B 0B/s" },
};

START_TEST(test_format)
{
	const struct format_case *c = &format_cases[_i];
	char buf[PROGRESS_LINE_MAX];
	size_t n = progress_format(buf, sizeof buf, c->phase, c->done, c->total, c->elapsed_ns);

	ck_assert_str_eq(buf, c->text);
	ck_assert_uint_eq(n, strlen(c->text));
}
END_TEST

START_TEST(test_format_truncates)
{
	char buf[8];
	size_t n = progress_format(buf, sizeof buf, "annotating", 1, 2, SEC);

	ck_assert_str_eq(buf, "annotat");
	ck_assert_uint_gt(n, sizeof buf);
}
END_TEST

START_TEST(test_wanted)
{
	ck_assert_int_eq(progress_wanted(PROGRESS_AUTO, 1), 1);
	ck_assert_int_eq(progress_wanted(PROGRESS_AUTO, 0), 0);
	ck_assert_int_eq(progress_wanted(PROGRESS_FORCE, 0), 1);
	ck_assert_int_eq(progress_wanted(PROGRESS_FORCE, 1), 1);
	ck_assert_int_eq(progress_wanted(PROGRESS_QUIET, 1), 0);
	ck_assert_int_eq(progress_wanted(PROGRESS_QUIET, 0), 0);
}
END_TEST

/* ---- the throttle, on a clock the test moves ---------------------------- */

static uint64_t fake_now;

static uint64_t fake_clock(void)
{
	return fake_now;
}

static int fds[2];

static void open_pipe(void)
{
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
}

/* Everything written to the pipe since the last call. */
static const char *drain(void)
{
	static char got[4096];
	ssize_t n = read(fds[0], got, sizeof got - 1);

	got[n > 0 ? n : 0] = '\0';
	return got;
}

START_TEST(test_throttle)
{
	struct progress p;

	open_pipe();
	fake_now = 5 * SEC;
	progress_init(&p, fds[1], fake_clock);
	progress_phase(&p, "reading", 4096);
	/* the first second: nothing, however often it is called */
	fake_now += 999 * MS;
	ck_assert_int_eq(progress_update(&p, 1024), 0);
	ck_assert_str_eq(drain(), "");
	/* then at once */
	fake_now += 1 * MS;
	ck_assert_int_eq(progress_update(&p, 1024), 0);
	ck_assert_str_eq(drain(), "\rreading 1.0K/4.0K 25% 1.0K/s ETA 0:03\033[K");
	/* not again before a quarter of a second */
	fake_now += 249 * MS;
	progress_update(&p, 2048);
	ck_assert_str_eq(drain(), "");
	fake_now += 1 * MS;
	progress_update(&p, 2048);
	ck_assert_str_eq(drain(), "\rreading 2.0K/4.0K 50% 1.6K/s ETA 0:02\033[K");
	/* the end clears the line, once */
	ck_assert_int_eq(progress_end(&p), 0);
	ck_assert_str_eq(drain(), "\r\033[K");
	ck_assert_int_eq(progress_end(&p), 0);
	fake_now += 10 * SEC;
	progress_update(&p, 4096);
	ck_assert_str_eq(drain(), "");
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* A run that ends within its first second leaves nothing on the screen. */
START_TEST(test_short_run_silent)
{
	struct progress p;

	open_pipe();
	fake_now = 0;
	progress_init(&p, fds[1], fake_clock);
	progress_phase(&p, "reading", 100);
	fake_now = 900 * MS;
	progress_update(&p, 100);
	ck_assert_int_eq(progress_end(&p), 0);
	ck_assert_str_eq(drain(), "");
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* A later phase draws at its first update once the run is a second old;
 * its rate counts from its own start. */
START_TEST(test_phases)
{
	struct progress p;

	open_pipe();
	fake_now = 0;
	progress_init(&p, fds[1], fake_clock);
	fake_now = 3 * SEC;
	progress_phase(&p, "writing", 2 << 20);
	fake_now += 500 * MS;
	progress_update(&p, 1 << 20);
	ck_assert_str_eq(drain(), "\rwriting 1.0M/2.0M 50% 2.0M/s ETA 0:01\033[K");
	progress_end(&p);
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* Off (-1) does nothing; a descriptor that fails turns the meter off. */
START_TEST(test_off_and_failure)
{
	struct progress p;

	fake_now = 0;
	progress_init(&p, -1, fake_clock);
	progress_phase(&p, "reading", 10);
	fake_now = 5 * SEC;
	ck_assert_int_eq(progress_update(&p, 5), 0);
	ck_assert_int_eq(progress_end(&p), 0);

	open_pipe();
	fake_now = 0;
	progress_init(&p, fds[1], fake_clock);
	close(fds[1]);
	close(fds[0]);
	fake_now = 5 * SEC;
	ck_assert_int_eq(progress_update(&p, 5), -1);  /* EBADF */
	ck_assert_int_eq(p.fd, -1);
	ck_assert_int_eq(progress_update(&p, 6), 0);
	ck_assert_int_eq(progress_end(&p), 0);
}
END_TEST

static Suite *progress_suite(void)
{
	Suite *s = suite_create("progress");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_bytes, 0, (int)COUNT(bytes_cases));
	tcase_add_loop_test(tc, test_duration, 0, (int)COUNT(duration_cases));
	tcase_add_loop_test(tc, test_format, 0, (int)COUNT(format_cases));
	tcase_add_test(tc, test_format_truncates);
	tcase_add_test(tc, test_wanted);
	tcase_add_test(tc, test_throttle);
	tcase_add_test(tc, test_short_run_silent);
	tcase_add_test(tc, test_phases);
	tcase_add_test(tc, test_off_and_failure);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(progress_suite());
	int nf;

	srunner_run_all(sr, CK_ENV);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
