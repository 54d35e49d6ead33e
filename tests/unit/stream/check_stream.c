/* Unit tests for common/stream/stream.c: control-record recognition and the
 * stream_next state machine (head first, tail last, nothing after the tail,
 * no empty lines, truncation), read over pipes and a temporary file. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/io.h"
#include "stream/stream.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1

/* ---- stream_is_control, stream_is_kind ---- */

struct control_case {
	const char *line;
	size_t len;
	int control;
	const char *kind;  /* NULL: no kind test */
	int is_kind;
};

static const struct control_case control_cases[] = {
	{ S("{\"@tr\":\"head\",\"format\":\"object\"}"), 1, "head", 1 },
	{ S("{\"@tr\":\"head\",\"format\":\"object\"}"), 1, "tail", 0 },
	{ S("{\"@tr\":\"head\",\"format\":\"object\"}"), 1, "hea", 0 },
	{ S("{\"@tr\":\"tail\"}"), 1, "tail", 1 },
	{ S("{\"@tr\":\"headx\"}"), 1, "head", 0 },
	{ S("{\"@tr\":\"hea\"}"), 1, "head", 0 },
	{ S("{\"@tr\":\"head\""), 1, "head", 1 },   /* the shortest match */
	{ S("{\"@tr\":\"head"), 1, "head", 0 },     /* one byte short */
	{ S("{\"@tr\":head}"), 1, "head", 0 },
	{ S("{\"@tr\":\"\"}"), 1, "", 1 },
	{ S("{\"@tr\":"), 1, "x", 0 },              /* the bare prefix */
	{ S("{\"@tr\""), 0, "head", 0 },
	{ S("{ \"@tr\":\"head\"}"), 0, "head", 0 },
	{ S("{\"@tr\" :\"head\"}"), 0, "head", 0 },
	{ S("{\"@TR\":\"head\"}"), 0, "head", 0 },
	{ S("{\"name\":\"x\",\"@tr\":\"head\"}"), 0, "head", 0 },
	{ S("[\"@tr\",\"head\"]"), 0, "head", 0 },
	{ S(""), 0, "head", 0 },
	/* the length decides, not a NUL */
	{ "{\"@tr\":\"head\"}", 6, 0, "head", 0 },
	{ "{\"@tr\":\"head\"}", 12, 1, "head", 0 },
	{ "{\"@tr\":\"head\"}", 13, 1, "head", 1 },
};

START_TEST(test_control)
{
	const struct control_case *c = &control_cases[_i];

	ck_assert_int_eq(stream_is_control(c->line, c->len), c->control);
	if (c->kind)
		ck_assert_int_eq(stream_is_kind(c->line, c->len, c->kind), c->is_kind);
}
END_TEST

/* ---- stream_next ---- */

#define HEAD "{\"@tr\":\"head\",\"format\":\"object\",\"members\":{}}"
#define TAIL "{\"@tr\":\"tail\",\"members\":{},\"events\":2}"

enum { MAXSTEPS = 8 };

struct next_case {
	const char *in;
	size_t in_len;
	int steps[MAXSTEPS];  /* results in order, up to LINE_END or LINE_ERROR */
	const char *err;      /* for LINE_ERROR */
	uint64_t events;      /* at the end */
};

#define TRUNC_TAIL "truncated stream: input ended before the tail record " \
	"(an earlier stage failed or the stream was cut)"
#define TRUNC_LINE "truncated stream: input ended inside a line (an earlier stage failed " \
	"or the stream was cut)"
#define NOT_HEAD "not a trace-layers stream: the first line is not a head record " \
	"(is this tr-decode output?)"
#define NOT_OBJECT "not a JSON object on one line"

static const struct next_case next_cases[] = {
	{ S(HEAD "\n{\"a\":1}\n{\"@tr\":\"mark\",\"x\":1}\n{\"b\":2}\n" TAIL "\n"),
	  { LINE_HEAD, LINE_EVENT, LINE_CONTROL, LINE_EVENT, LINE_TAIL, LINE_END },
	  NULL, 2 },
	{ S(HEAD "\n" TAIL "\n"), { LINE_HEAD, LINE_TAIL, LINE_END }, NULL, 0 },
	{ S(HEAD "\n{}\n" TAIL "\n"), { LINE_HEAD, LINE_EVENT, LINE_TAIL, LINE_END }, NULL, 1 },
	/* truncations */
	{ S(HEAD "\n{\"a\":1}\n"), { LINE_HEAD, LINE_EVENT, LINE_ERROR }, TRUNC_TAIL, 1 },
	{ S(HEAD "\n"), { LINE_HEAD, LINE_ERROR }, TRUNC_TAIL, 0 },
	{ S(HEAD "\n{\"a\":1}"), { LINE_HEAD, LINE_ERROR },
	  TRUNC_LINE, 0 },
	{ S(HEAD "\n" TAIL), { LINE_HEAD, LINE_ERROR },
	  TRUNC_LINE, 0 },
	{ S(HEAD), { LINE_ERROR }, TRUNC_LINE, 0 },
	{ S(""), { LINE_ERROR }, "empty input: no stream (an earlier stage failed, or this is "
	  "not tr-decode output)", 0 },
	/* the failed record: an earlier stage said why, wherever it comes */
	{ S("{\"@tr\":\"failed\"}\n"), { LINE_ERROR }, "", 0 },
	{ S(HEAD "\n{\"a\":1}\n{\"@tr\":\"failed\"}\n"), { LINE_HEAD, LINE_EVENT, LINE_ERROR },
	  "", 1 },
	{ S(HEAD "\n{\"@tr\":\"failed\"}\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR }, "", 0 },
	{ S(HEAD "\n{\"@tr\":\"failedx\"}\n" TAIL "\n"),
	  { LINE_HEAD, LINE_CONTROL, LINE_TAIL, LINE_END }, NULL, 0 },
	/* after the tail */
	{ S(HEAD "\n" TAIL "\n{\"a\":1}\n"), { LINE_HEAD, LINE_TAIL, LINE_ERROR },
	  "line 3: data after the tail record", 0 },
	{ S(HEAD "\n" TAIL "\n\n"), { LINE_HEAD, LINE_TAIL, LINE_ERROR },
	  "line 3: data after the tail record", 0 },
	{ S(HEAD "\n" TAIL "\n" TAIL "\n"), { LINE_HEAD, LINE_TAIL, LINE_ERROR },
	  "line 3: data after the tail record", 0 },
	{ S(HEAD "\n" TAIL "\n" HEAD "\n" TAIL "\n"), { LINE_HEAD, LINE_TAIL, LINE_ERROR },
	  "line 3: data after the tail record", 0 },
	/* empty lines, second heads, lines that are not objects */
	{ S(HEAD "\n\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR }, "line 2: empty line", 0 },
	{ S(HEAD "\n{\"a\":1}\n\n" TAIL "\n"), { LINE_HEAD, LINE_EVENT, LINE_ERROR },
	  "line 3: empty line", 1 },
	{ S(HEAD "\n" HEAD "\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR },
	  "line 2: a second head record (two streams concatenated?)", 0 },
	{ S(HEAD "\n[1]\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR }, "line 2: " NOT_OBJECT, 0 },
	{ S(HEAD "\n{\"a\":1\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR }, "line 2: " NOT_OBJECT, 0 },
	{ S(HEAD "\nx\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR }, "line 2: " NOT_OBJECT, 0 },
	{ S(HEAD "\n{\"a\":1}\r\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR },
	  "line 2: " NOT_OBJECT, 0 },
	{ S(HEAD "\n {\"a\":1}\n" TAIL "\n"), { LINE_HEAD, LINE_ERROR },
	  "line 2: " NOT_OBJECT, 0 },
	/* the first line */
	{ S("{\"a\":1}\n" HEAD "\n" TAIL "\n"), { LINE_ERROR }, "line 1: " NOT_HEAD, 0 },
	{ S(TAIL "\n"), { LINE_ERROR }, "line 1: " NOT_HEAD, 0 },
	{ S("\n" HEAD "\n" TAIL "\n"), { LINE_ERROR }, "line 1: " NOT_HEAD, 0 },
	{ S("{\"@tr\":\"header\"}\n"), { LINE_ERROR }, "line 1: " NOT_HEAD, 0 },
	{ S("{\"traceEvents\":[]}\n"), { LINE_ERROR }, "line 1: " NOT_HEAD, 0 },
};

enum source { SRC_PIPE, SRC_FILE, NSRC };

/* The bytes on a pipe (they fit in its buffer) or in a temporary file. */
static int open_bytes(const char *data, size_t n, enum source how)
{
	int fd, p[2];

	if (how == SRC_FILE) {
		char path[] = "/tmp/check_stream.XXXXXX";
		fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(unlink(path), 0);
		ck_assert_int_eq(io_write_all(fd, data, n), 0);
		ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
		return fd;
	}
	ck_assert_uint_lt(n, 65536);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(io_write_all(p[1], data, n), 0);
	close(p[1]);
	return p[0];
}

START_TEST(test_next)
{
	const struct next_case *c = &next_cases[_i];
	int how;

	for (how = 0; how < NSRC; how++) {
		int fd = open_bytes(c->in, c->in_len, (enum source)how);
		struct stream_in in;
		size_t k;

		ck_assert_int_eq(stream_in_init(&in, fd, STREAM_DEFAULT_MAX_LINE), 0);
		for (k = 0; k < MAXSTEPS; k++) {
			const char *line = NULL;
			size_t len = 0;
			int want = c->steps[k], got = stream_next(&in, &line, &len);

			ck_assert_msg(got == want, "source %d step %zu: got %d, want %d (%s)",
				      how, k, got, want, in.err);
			if (want == LINE_ERROR) {
				ck_assert_str_eq(in.err, c->err);
				ck_assert_int_eq(in.read_errno, 0);  /* the stream is at fault */
				/* the input ended early, or the failed record came */
				ck_assert_int_eq(in.cut, strncmp(c->err, "truncated", 9) == 0 ||
						 strncmp(c->err, "empty input", 11) == 0);
				ck_assert_int_eq(in.upstream_failed, c->err[0] == '\0');
				break;
			}
			if (want == LINE_END) {
				/* and it stays at the end */
				ck_assert_int_eq(stream_next(&in, &line, &len), LINE_END);
				break;
			}
			/* the line is returned as it is, without its '\n' */
			ck_assert_ptr_nonnull(line);
			ck_assert(memchr(line, '\n', len) == NULL);
			ck_assert_int_eq(line[0], '{');
			ck_assert_int_eq(line[len - 1], '}');
		}
		ck_assert_uint_eq(in.events, c->events);
		stream_in_free(&in);
		close(fd);
	}
}
END_TEST

/* The exact lines, and the stream ends after the tail. */
START_TEST(test_next_lines)
{
	static const char data[] = HEAD "\n{\"ph\":\"X\"}\n" TAIL "\n";
	int fd = open_bytes(data, sizeof data - 1, SRC_PIPE);
	struct stream_in in;
	const char *line;
	size_t len;

	ck_assert_int_eq(stream_in_init(&in, fd, STREAM_DEFAULT_MAX_LINE), 0);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_HEAD);
	ck_assert_uint_eq(len, strlen(HEAD));
	ck_assert_mem_eq(line, HEAD, len);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_EVENT);
	ck_assert_uint_eq(len, 10);
	ck_assert_mem_eq(line, "{\"ph\":\"X\"}", 10);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_TAIL);
	ck_assert_uint_eq(len, strlen(TAIL));
	ck_assert_mem_eq(line, TAIL, len);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_END);
	ck_assert_uint_eq(in.events, 1);
	ck_assert_int_eq(in.seen_head, 1);
	ck_assert_int_eq(in.seen_tail, 1);
	stream_in_free(&in);
	close(fd);
}
END_TEST

START_TEST(test_next_too_long)
{
	static const char data[] = HEAD "\n{\"a\":1}\n{\"name\":\"0123456789012345678901234567890"
		"1234567890123456789\"}\n" TAIL "\n";
	int fd = open_bytes(data, sizeof data - 1, SRC_PIPE);
	struct stream_in in;
	const char *line;
	size_t len;

	/* the head and tail fit, the third line does not */
	ck_assert_int_eq(stream_in_init(&in, fd, 60), 0);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_HEAD);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_EVENT);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_ERROR);
	ck_assert_str_eq(in.err, "line 3: line longer than the maximum line length (60 bytes)");
	stream_in_free(&in);
	close(fd);
}
END_TEST

START_TEST(test_next_first_line_too_long)
{
	int fd = open_bytes(S(HEAD "\n" TAIL "\n"), SRC_PIPE);
	struct stream_in in;
	const char *line;
	size_t len;

	ck_assert_int_eq(stream_in_init(&in, fd, 10), 0);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_ERROR);
	ck_assert_str_eq(in.err, "line 1: line longer than the maximum line length (10 bytes)");
	stream_in_free(&in);
	close(fd);
}
END_TEST

START_TEST(test_next_read_error)
{
	int fd = open("/dev/null", O_WRONLY);
	struct stream_in in;
	const char *line;
	size_t len;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(stream_in_init(&in, fd, 100), 0);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_ERROR);
	ck_assert_str_eq(in.err, "read error: Bad file descriptor");
	ck_assert_int_eq(in.read_errno, EBADF);
	stream_in_free(&in);
	close(fd);

	/* a directory on standard input (tr-guides < /) */
	fd = open("/", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(stream_in_init(&in, fd, 100), 0);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_ERROR);
	ck_assert_str_eq(in.err, "read error: Is a directory");
	ck_assert_int_eq(in.read_errno, EISDIR);
	stream_in_free(&in);
	close(fd);
}
END_TEST

/* Many events across the reader's 4 MiB blocks, from a file. */
START_TEST(test_next_many_events)
{
	struct buf data = BUF_INIT;
	struct stream_in in;
	const char *line;
	size_t len;
	uint64_t i, n = 200000;
	int fd;
	char want[64];

	ck_assert_int_eq(buf_addstr(&data, HEAD "\n"), 0);
	for (i = 0; i < n; i++)
		if (buf_printf(&data, "{\"i\":%llu,\"pad\":\"................\"}\n",
			       (unsigned long long)i) != 0)
			ck_abort_msg("out of memory");
	ck_assert_int_eq(buf_addstr(&data, TAIL "\n"), 0);
	ck_assert_uint_gt(data.len, IO_BLOCK + IO_BLOCK / 2);
	fd = open_bytes(data.p, data.len, SRC_FILE);
	ck_assert_int_eq(stream_in_init(&in, fd, STREAM_DEFAULT_MAX_LINE), 0);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_HEAD);
	for (i = 0; i < n; i++) {
		int k = snprintf(want, sizeof want, "{\"i\":%llu,\"pad\":\"................\"}",
				 (unsigned long long)i);
		/* plain tests in the loop: every ck_assert costs a write in
		 * no-fork mode */
		if (stream_next(&in, &line, &len) != LINE_EVENT || len != (size_t)k ||
		    memcmp(line, want, len) != 0)
			ck_abort_msg("event %llu: %s", (unsigned long long)i, in.err);
	}
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_TAIL);
	ck_assert_int_eq(stream_next(&in, &line, &len), LINE_END);
	ck_assert_uint_eq(in.events, n);
	stream_in_free(&in);
	close(fd);
	buf_release(&data);
}
END_TEST

static Suite *stream_suite(void)
{
	Suite *s = suite_create("stream");
	TCase *control = tcase_create("control");
	TCase *next = tcase_create("next");

	tcase_add_loop_test(control, test_control, 0, (int)COUNT(control_cases));
	suite_add_tcase(s, control);

	tcase_set_timeout(next, 60);
	tcase_add_loop_test(next, test_next, 0, (int)COUNT(next_cases));
	tcase_add_test(next, test_next_lines);
	tcase_add_test(next, test_next_too_long);
	tcase_add_test(next, test_next_first_line_too_long);
	tcase_add_test(next, test_next_read_error);
	tcase_add_test(next, test_next_many_events);
	suite_add_tcase(s, next);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(stream_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
