/* Unit tests for common/stream/decode_file.c: one stored trace (plain, gzip or
 * standard input) into the event stream on a descriptor, compared byte for
 * byte: head record, event lines, and the tail with the event count, the
 * stored size and the SHA-256 of the stored bytes.  And each way it fails:
 * a document that is not a trace (DECODE_INPUT and decode.c's message),
 * damaged gzip (DECODE_READ, input_fault 1, source.c's message and offset),
 * a path that cannot be opened (DECODE_OPEN, errno), a failed write
 * (DECODE_WRITE, errno), and the two size bounds passed on to decode.c.
 *
 * The expected digests were computed once with sha256sum(1) on the same
 * bytes (see each constant); the gzip input was made with `gzip -n`. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/blockq.h"
#include "../../oracle.h"
#include "stream/decode_file.h"

#define S(lit) lit, sizeof(lit) - 1

/* The plain trace, 59 bytes. */
#define TRACE "[{\"ph\":\"X\",\"name\":\"k\",\"ts\":1.5,\"dur\":2},{\"ph\":\"i\",\"ts\":3}]\n"
/* printf '%s' "$TRACE" | sha256sum */
#define SHA_TRACE "926da92b813d651cd71a3acae1952e62d4589f9e1564ee287249a06e358d7edb"
/* gzip -n <t.json | sha256sum: the 66 bytes of trace_gz */
#define SHA_TRACE_GZ "c8cc46c71333ebf52dd6e83527d9b79b7577b6721707be8d7fabe74fed1c9006"

/* gzip -n of TRACE */
static const unsigned char trace_gz[66] = {
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x8b, 0xae,
	0x56, 0x2a, 0xc8, 0x50, 0xb2, 0x52, 0x8a, 0x50, 0xd2, 0x51, 0xca, 0x4b,
	0xcc, 0x4d, 0x05, 0x32, 0xb3, 0x81, 0xcc, 0x92, 0x62, 0x25, 0x2b, 0x43,
	0x3d, 0x53, 0x1d, 0xa5, 0x94, 0xd2, 0x22, 0x25, 0x2b, 0xa3, 0x5a, 0x1d,
	0xa8, 0xb2, 0x4c, 0xa8, 0x9c, 0x71, 0x6d, 0x2c, 0x17, 0x00, 0x77, 0x2d,
	0x99, 0x30, 0x3b, 0x00, 0x00, 0x00
};

#define HEAD(format, source, members) \
	"{\"@tr\":\"head\",\"format\":\"" format "\",\"source\":\"" source "\"," \
	"\"tool\":\"tr-test\",\"version\":\"" TR_VERSION "\",\"members\":{" members "}}\n"
#define TAIL(members, events, bytes, sha) \
	"{\"@tr\":\"tail\",\"members\":{" members "},\"events\":" #events \
	",\"source_bytes\":" #bytes ",\"source_sha256\":\"" sha "\"}\n"
#define EVENTS "{\"ph\":\"X\",\"name\":\"k\",\"ts\":1.5,\"dur\":2}\n{\"ph\":\"i\",\"ts\":3}\n"

static char dir[64];
static char in_path[128];
static char out_path[128];

static void setup(void)
{
	strcpy(dir, "/tmp/check_decode_file.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(in_path, sizeof in_path, "%s/in", dir);
	snprintf(out_path, sizeof out_path, "%s/out", dir);
}

static void teardown(void)
{
	unlink(in_path);
	unlink(out_path);
	rmdir(dir);
}

static void write_input(const void *data, size_t n)
{
	int fd = open(in_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	ck_assert_int_eq(close(fd), 0);
}

static int open_output(void)
{
	int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* The whole output file, NUL-terminated. */
static char *output(void)
{
	static char text[4096];
	int fd = open(out_path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, text, sizeof text - 1);
	ck_assert_int_ge(n, 0);
	ck_assert_int_lt(n, (ssize_t)sizeof text - 1);
	text[n] = '\0';
	close(fd);
	return text;
}

/* Decodes in_path (recorded as "t.json") into out_path. */
static void run(size_t max_event, size_t max_members, struct decode_file_result *r)
{
	int fd = open_output();

	decode_file_as(in_path, "t.json", fd, max_event, max_members, "tr-test", r, NULL);
	ck_assert_int_eq(close(fd), 0);
}

/* ---- accepted ---- */

START_TEST(test_plain)
{
	struct decode_file_result r;

	write_input(S(TRACE));
	run(1 << 20, DECODE_DEFAULT_MAX_MEMBERS, &r);
	ck_assert_int_eq(r.status, DECODE_OK);
	ck_assert_str_eq(r.msg, "");
	ck_assert_str_eq(output(), HEAD("array", "t.json", "") EVENTS
			 TAIL("", 2, 59, SHA_TRACE));
}
END_TEST

/* The same events; the tail has the stored (compressed) size and digest. */
START_TEST(test_gzip)
{
	struct decode_file_result r;

	write_input(trace_gz, sizeof trace_gz);
	run(1 << 20, DECODE_DEFAULT_MAX_MEMBERS, &r);
	ck_assert_int_eq(r.status, DECODE_OK);
	ck_assert_str_eq(output(), HEAD("array", "t.json", "") EVENTS
			 TAIL("", 2, 66, SHA_TRACE_GZ));
}
END_TEST

/* The members before and after traceEvents go to the head and the tail. */
START_TEST(test_object_members)
{
	struct decode_file_result r;

	/* printf '%s' '{"a":1,"traceEvents":[{"x":1}],"b":"z"}' | sha256sum */
	write_input(S("{\"a\":1,\"traceEvents\":[{\"x\":1}],\"b\":\"z\"}"));
	run(1 << 20, DECODE_DEFAULT_MAX_MEMBERS, &r);
	ck_assert_int_eq(r.status, DECODE_OK);
	ck_assert_str_eq(output(), HEAD("object", "t.json", "\"a\":1") "{\"x\":1}\n"
			 TAIL("\"b\":\"z\"", 1, 39,
			      "1d98fb9f397857b6e5df65bfd7c5b5492a5fdc62bb42e41e6d51837c8ee17367"));
}
END_TEST

/* decode_file records the path it was given. */
START_TEST(test_records_path)
{
	struct decode_file_result r;
	char want[512];
	int fd;

	write_input(S(TRACE));
	fd = open_output();
	decode_file(in_path, fd, 1 << 20, "tr-test", &r);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(r.status, DECODE_OK);
	snprintf(want, sizeof want, HEAD("array", "%s", "") EVENTS TAIL("", 2, 59, SHA_TRACE),
		 in_path);
	ck_assert_str_eq(output(), want);
}
END_TEST

/* "-" is standard input, recorded as "-". */
START_TEST(test_stdin)
{
	struct decode_file_result r;
	int saved = dup(STDIN_FILENO), in, fd;

	ck_assert_int_ge(saved, 0);
	write_input(trace_gz, sizeof trace_gz);
	in = open(in_path, O_RDONLY);
	ck_assert_int_ge(in, 0);
	ck_assert_int_eq(dup2(in, STDIN_FILENO), STDIN_FILENO);
	close(in);
	fd = open_output();
	decode_file("-", fd, 1 << 20, "tr-test", &r);
	ck_assert_int_eq(close(fd), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	ck_assert_int_eq(r.status, DECODE_OK);
	ck_assert_str_eq(output(), HEAD("array", "-", "") EVENTS TAIL("", 2, 66, SHA_TRACE_GZ));
}
END_TEST

/* ---- refused ---- */

START_TEST(test_not_a_trace)
{
	struct decode_file_result r;

	write_input(S("hello"));
	run(1 << 20, DECODE_DEFAULT_MAX_MEMBERS, &r);
	ck_assert_int_eq(r.status, DECODE_INPUT);
	ck_assert_int_eq(r.input_fault, 0);
	ck_assert_str_eq(r.msg, "byte 0: not a trace: the JSON document must be an object "
			 "with traceEvents or an array of events");
}
END_TEST

/* The bounds reach decode.c: an event over max_event, members over
 * max_members (the default would take both). */
START_TEST(test_bounds)
{
	struct decode_file_result r;

	write_input(S(TRACE));
	run(20, DECODE_DEFAULT_MAX_MEMBERS, &r);
	ck_assert_int_eq(r.status, DECODE_INPUT);
	ck_assert_str_eq(r.msg, "byte 21 (event 0): larger than --max-event-bytes");

	write_input(S("{\"a\":1,\"traceEvents\":[{\"x\":1}],\"b\":\"z\"}"));
	run(1 << 20, 4, &r);
	ck_assert_int_eq(r.status, DECODE_INPUT);
	ck_assert_str_eq(r.msg, "byte 5 (top-level member): the top-level members before "
			 "traceEvents are larger than --max-member-bytes (4 bytes in all)");
}
END_TEST

/* Truncated gzip: the reader's failure, the input's fault. */
START_TEST(test_gzip_truncated)
{
	struct decode_file_result r;

	write_input(trace_gz, 40);
	run(1 << 20, DECODE_DEFAULT_MAX_MEMBERS, &r);
	ck_assert_int_eq(r.status, DECODE_READ);
	ck_assert_int_eq(r.input_fault, 1);
	ck_assert_str_eq(r.msg, "byte 40 of the gzip file: truncated gzip data "
			 "(unexpected end of file)");
}
END_TEST

/* Bytes after the gzip data are found when the rest is drained. */
START_TEST(test_gzip_trailing_garbage)
{
	unsigned char in[sizeof trace_gz + 1];
	struct decode_file_result r;

	memcpy(in, trace_gz, sizeof trace_gz);
	in[sizeof trace_gz] = 0;
	write_input(in, sizeof in);
	run(1 << 20, DECODE_DEFAULT_MAX_MEMBERS, &r);
	ck_assert_int_eq(r.status, DECODE_READ);
	ck_assert_int_eq(r.input_fault, 1);
	ck_assert_str_eq(r.msg, "byte 66 of the gzip file: trailing garbage after the gzip data");
}
END_TEST

START_TEST(test_missing)
{
	struct decode_file_result r;
	int fd = open_output();

	errno = 0;
	decode_file("/nonexistent/check_decode_file/t.json", fd, 1 << 20, "tr-test", &r);
	ck_assert_int_eq(r.status, DECODE_OPEN);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_str_eq(r.msg, "");
	close(fd);
	/* nothing was written */
	ck_assert_str_eq(output(), "");
}
END_TEST

/* A pipe whose reader is gone (SIGPIPE ignored, as a program would see
 * it): DECODE_WRITE with errno EPIPE. */
START_TEST(test_write_fails)
{
	struct decode_file_result r;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	write_input(S(TRACE));
	errno = 0;
	decode_file_as(in_path, "t.json", p[1], 1 << 20, DECODE_DEFAULT_MAX_MEMBERS, "tr-test", &r, NULL);
	ck_assert_int_eq(r.status, DECODE_WRITE);
	ck_assert_int_eq(errno, EPIPE);
	close(p[1]);
}
END_TEST

/* Into a queue (tr-verify's decoder threads): the same stream, the path
 * recorded as given; a consumer that cancels gets DECODE_WRITE (EPIPE). */
START_TEST(test_queue)
{
	struct decode_file_result r;
	struct blockq q;
	char got[4096], want[4096];
	size_t at = 0;
	long n;

	write_input(trace_gz, sizeof trace_gz);
	/* one thread: the whole stream must fit the queue's four blocks */
	ck_assert_int_eq(blockq_init(&q, 1024), 0);
	decode_file_to_queue(in_path, &q, 1 << 20, DECODE_DEFAULT_MAX_MEMBERS, "tr-test", &r, NULL);
	blockq_close(&q);
	ck_assert_int_eq(r.status, DECODE_OK);
	while ((n = blockq_take(&q, got + at, sizeof got - 1 - at)) > 0)
		at += (size_t)n;
	got[at] = '\0';
	snprintf(want, sizeof want, "%s%s%s", "{\"@tr\":\"head\",\"format\":\"array\",\"source\":\"",
		 in_path, "\",\"tool\":\"tr-test\",\"version\":\"" TR_VERSION "\",\"members\":{}}\n"
		 EVENTS TAIL("", 2, 66, SHA_TRACE_GZ));
	ck_assert_str_eq(got, want);
	blockq_free(&q);

	ck_assert_int_eq(blockq_init(&q, 16), 0);
	blockq_cancel(&q);
	decode_file_to_queue(in_path, &q, 1 << 20, DECODE_DEFAULT_MAX_MEMBERS, "tr-test", &r, NULL);
	ck_assert_int_eq(r.status, DECODE_WRITE);
	ck_assert_int_eq(errno, EPIPE);
	blockq_free(&q);
}
END_TEST

static Suite *decode_file_suite(void)
{
	Suite *s = suite_create("decode_file");
	TCase *ok = tcase_create("accepted");
	TCase *bad = tcase_create("refused");

	tcase_add_checked_fixture(ok, setup, teardown);
	tcase_add_checked_fixture(bad, setup, teardown);
	tcase_add_test(ok, test_plain);
	tcase_add_test(ok, test_gzip);
	tcase_add_test(ok, test_object_members);
	tcase_add_test(ok, test_records_path);
	tcase_add_test(ok, test_stdin);
	tcase_add_test(ok, test_queue);
	suite_add_tcase(s, ok);
	tcase_add_test(bad, test_not_a_trace);
	tcase_add_test(bad, test_bounds);
	tcase_add_test(bad, test_gzip_truncated);
	tcase_add_test(bad, test_gzip_trailing_garbage);
	tcase_add_test(bad, test_missing);
	tcase_add_test(bad, test_write_fails);
	suite_add_tcase(s, bad);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(decode_file_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
