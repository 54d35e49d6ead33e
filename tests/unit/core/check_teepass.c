/* Unit tests for common/core/teepass.c, through the filter that uses it: with
 * standard input and output pipes (fed and drained by child processes),
 * lines passed go on from the shadow pipe and the output is byte for byte
 * what plain writes give: lines dropped, lines put between passed ones, a
 * line passed twice, a line longer than half the shadow pipe, a long line
 * arriving in small pieces (many partly filled pipe buffers), and a reader
 * that went away.  On files the shadow pipe stays off. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "stream/filter.h"

#define HEAD "{\"@tr\":\"head\",\"format\":\"object\",\"members\":{}}\n"
#define TAIL "{\"@tr\":\"tail\",\"members\":{},\"events\":0}\n"

static char out_path[] = "/tmp/check_teepass.XXXXXX";
static pid_t feeder, drainer;

/* Descriptor 0: a pipe a child fills with text, piece bytes per write
 * (pause_us between writes).  Descriptor 1: a pipe a child copies into
 * out_path. */
static void plumb(const char *text, size_t len, size_t piece, unsigned pause_us)
{
	int in[2], out[2], fd;

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	feeder = fork();
	ck_assert_int_ge(feeder, 0);
	if (feeder == 0) {
		size_t at = 0;
		close(in[0]);
		close(out[0]);
		close(out[1]);
		while (at < len) {
			size_t n = len - at < piece ? len - at : piece;
			if (write(in[1], text + at, n) != (ssize_t)n)
				_exit(1);
			at += n;
			if (pause_us > 0) {
				struct timespec pause = { 0, (long)pause_us * 1000 };
				nanosleep(&pause, NULL);
			}
		}
		_exit(0);
	}
	fd = mkstemp(out_path);
	ck_assert_int_ge(fd, 0);
	drainer = fork();
	ck_assert_int_ge(drainer, 0);
	if (drainer == 0) {
		char block[65536];
		ssize_t n;
		close(in[0]);
		close(in[1]);
		close(out[1]);
		while ((n = read(out[0], block, sizeof block)) > 0)
			if (write(fd, block, (size_t)n) != n)
				_exit(1);
		_exit(n == 0 ? 0 : 1);
	}
	close(fd);
	ck_assert_int_eq(dup2(in[0], 0), 0);
	ck_assert_int_eq(dup2(out[1], 1), 1);
	close(in[0]);
	close(in[1]);
	close(out[0]);
	close(out[1]);
}

static void child_ok(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* After filter_close: the drainer's file holds exactly want. */
static void output_is(const struct buf *want)
{
	struct buf got = BUF_INIT;
	char block[65536];
	ssize_t n;
	int fd;

	child_ok(feeder);
	child_ok(drainer);
	fd = open(out_path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	while ((n = read(fd, block, sizeof block)) > 0)
		ck_assert_int_eq(buf_add(&got, block, (size_t)n), 0);
	close(fd);
	unlink(out_path);
	ck_assert_uint_eq(got.len, want->len);
	ck_assert(memcmp(got.p, want->p, want->len) == 0);
	buf_release(&got);
	buf_release((struct buf *)want);
}

/* A stream of n events; event i is "{"i":I,"pad":"..."}" with i % 7 + 1
 * times 37 bytes of padding, and every sixth one says "drop". */
static void make_stream(struct buf *s, int n)
{
	int i, k, bad = buf_addstr(s, HEAD);

	/* one assertion at the end: Check logs every assertion it passes */
	for (i = 0; i < n; i++) {
		bad |= buf_printf(s, "{\"i\":%d,%s\"pad\":\"", i, i % 6 == 5 ? "\"drop\":1," : "");
		for (k = 0; k < (i % 7 + 1) * 37; k++)
			bad |= buf_addch(s, (char)('a' + k % 26));
		bad |= buf_addstr(s, "\"}\n");
	}
	bad |= buf_addstr(s, TAIL);
	ck_assert_int_eq(bad, 0);
}

static int says_drop(const char *line, size_t n)
{
	size_t i;

	for (i = 0; i + 6 <= n; i++)
		if (memcmp(line + i, "\"drop\"", 6) == 0)
			return 1;
	return 0;
}

/* The stage under test: drops lines with "drop", passes the others (every
 * 1000th twice), puts "{"note":I}" after every 250th event and a line
 * before the tail; want gets what plain writes would give. */
static void run_stage(struct buf *want, int *was_on)
{
	struct filter f;
	const char *line;
	size_t n;
	int kind, i = 0, bad = 0;

	ck_assert_int_eq(filter_open(&f), 0);
	*was_on = f.tee.on;
	/* failures gathered, asserted once: Check logs every assertion */
	while ((kind = filter_next(&f, &line, &n)) > LINE_END) {
		char note[40];
		int k;
		if (kind == LINE_TAIL) {
			bad |= filter_put(&f, "{\"last\":1}", 10);
			bad |= buf_addstr(want, "{\"last\":1}\n");
		}
		if (says_drop(line, n)) {
			i++;
			continue;
		}
		bad |= filter_pass(&f, line, n);
		bad |= buf_add(want, line, n + 1);
		if (kind == LINE_EVENT && i % 1000 == 999) {
			bad |= filter_pass(&f, line, n);
			bad |= buf_add(want, line, n + 1);
		}
		if (kind == LINE_EVENT && i % 250 == 0) {
			k = snprintf(note, sizeof note, "{\"note\":%d}", i);
			bad |= filter_put(&f, note, (size_t)k);
			bad |= buf_printf(want, "%s\n", note);
		}
		if (kind == LINE_EVENT)
			i++;
	}
	ck_assert_int_eq(bad, 0);
	ck_assert_int_eq(kind, LINE_END);
	ck_assert_int_eq(filter_close(&f), 0);
}

START_TEST(pipes_pass_drop_put)
{
	struct buf text = BUF_INIT, want = BUF_INIT;
	int on;

	make_stream(&text, 30000);
	plumb(text.p, text.len, 100000, 0);
	run_stage(&want, &on);
	ck_assert_int_eq(on, 1);
	output_is(&want);
	buf_release(&text);
}
END_TEST

/* Lines of 700 KiB: more than half the shadow pipe, copied instead. */
START_TEST(pipes_long_lines)
{
	struct buf text = BUF_INIT, want = BUF_INIT;
	int i, on;

	ck_assert_int_eq(buf_addstr(&text, HEAD), 0);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(buf_printf(&text, "{\"i\":%d,\"pad\":\"", i), 0);
		ck_assert_int_eq(buf_grow(&text, 700u << 10), 0);
		memset(text.p + text.len, 'x', 700u << 10);
		text.len += 700u << 10;
		ck_assert_int_eq(buf_addstr(&text, "\"}\n{\"short\":1}\n"), 0);
	}
	ck_assert_int_eq(buf_addstr(&text, TAIL), 0);
	plumb(text.p, text.len, 65536, 0);
	run_stage(&want, &on);
	ck_assert_int_eq(on, 1);
	output_is(&want);
	buf_release(&text);
}
END_TEST

/* Small writes with pauses: the stage reads each piece as it comes, so the
 * shadow pipe gets one partly filled buffer per piece and a long line can
 * fill all its slots before it ends. */
START_TEST(pipes_small_pieces)
{
	struct buf text = BUF_INIT, want = BUF_INIT;
	int i, on;

	ck_assert_int_eq(buf_addstr(&text, HEAD "{\"a\":1}\n{\"pad\":\""), 0);
	ck_assert_int_eq(buf_grow(&text, 40000), 0);
	for (i = 0; i < 40000; i++)
		text.p[text.len++] = (char)('a' + i % 26);
	ck_assert_int_eq(buf_addstr(&text, "\"}\n{\"b\":2}\n" TAIL), 0);
	plumb(text.p, text.len, 64, 20);
	run_stage(&want, &on);
	ck_assert_int_eq(on, 1);
	output_is(&want);
	buf_release(&text);
}
END_TEST

/* The reader of the output went away: the splice fails with EPIPE, kept
 * as the filter's write error. */
START_TEST(pipes_reader_gone)
{
	struct buf text = BUF_INIT;
	struct filter f;
	const char *line;
	size_t n;
	int in[2], out[2], kind;

	signal(SIGPIPE, SIG_IGN);
	make_stream(&text, 20000);
	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	feeder = fork();
	ck_assert_int_ge(feeder, 0);
	if (feeder == 0) {
		close(in[0]);
		close(out[0]);
		close(out[1]);
		_exit(write(in[1], text.p, text.len) == (ssize_t)text.len ? 0 : 1);
	}
	ck_assert_int_eq(dup2(in[0], 0), 0);
	ck_assert_int_eq(dup2(out[1], 1), 1);
	close(in[0]);
	close(in[1]);
	close(out[0]);
	close(out[1]);
	ck_assert_int_eq(filter_open(&f), 0);
	ck_assert_int_eq(f.tee.on, 1);
	while ((kind = filter_next(&f, &line, &n)) > LINE_END)
		filter_pass(&f, line, n);
	ck_assert_int_eq(kind, LINE_ERROR);
	ck_assert_int_eq(f.write_errno, EPIPE);
	ck_assert_int_eq(filter_close(&f), -1);
	kill(feeder, SIGKILL);
	waitpid(feeder, NULL, 0);
	buf_release(&text);
}
END_TEST

START_TEST(files_stay_off)
{
	struct teepass t;
	struct writer w;
	char path[] = "/tmp/check_teepass.XXXXXX";
	int fd = mkstemp(path), p[2];

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(pipe(p), 0);
	teepass_open(&t, fd, p[1]);
	ck_assert_int_eq(t.on, 0);
	teepass_open(&t, p[0], fd);
	ck_assert_int_eq(t.on, 0);
	/* off: a pass is the caller's to copy, a flush does nothing */
	ck_assert_int_eq(writer_init(&w, fd), 0);
	ck_assert_int_eq(teepass_pass(&t, &w, 0, 10), 0);
	ck_assert_int_eq(teepass_flush(&t, &w), 0);
	ck_assert_uint_eq(w.len, 0);
	writer_free(&w);
	teepass_open(&t, p[0], p[1]);
	ck_assert_int_eq(t.on, 1);
	ck_assert_uint_gt(t.cap, 0);
	teepass_close(&t);
	ck_assert_int_eq(t.on, 0);
	close(fd);
	close(p[0]);
	close(p[1]);
}
END_TEST

static Suite *teepass_suite(void)
{
	Suite *s = suite_create("teepass");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pipes_pass_drop_put);
	tcase_add_test(tc, pipes_long_lines);
	tcase_add_test(tc, pipes_small_pieces);
	tcase_add_test(tc, pipes_reader_gone);
	tcase_add_test(tc, files_stay_off);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(teepass_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
