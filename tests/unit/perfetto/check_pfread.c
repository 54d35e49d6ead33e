/* Unit tests for common/perfetto/pfread.c: a trace pftrace.c wrote is read back
 * equal to its events (slices, flows, a counter, nested args, names and
 * sort indices) with the summary's counts; compared with other events it
 * names the first difference exactly (a ts, a name, an args value, a
 * flow on another slice than the JSON import binds it to, an
 * event too many or too few); a file that is not a trace is refused. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto/pfread.h"
#include "perfetto/pftrace.h"

static int put_buf(void *ctx, const void *data, size_t n)
{
	return buf_add(ctx, data, n);
}

static const char *const events[] = {
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"main\"}}",
	"{\"ph\":\"X\",\"name\":\"op\",\"cat\":\"cpu\",\"pid\":1,\"tid\":1,\"ts\":\"1.500\",\"dur\":2,"
	"\"args\":{\"a\":[1,2.5,{\"b\":null}],\"s\":\"x\",\"t\":true}}",
	"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":1.5,\"cat\":\"f\",\"name\":\"f\"}",
	"{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":3,\"dur\":1}",
	"{\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":3,\"cat\":\"f\",\"name\":\"f\",\"bp\":\"e\"}",
	"{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":4,\"args\":{\"v\":3}}",
};
#define NEV (sizeof events / sizeof *events)

/* The trace of events into a temporary file; its path. */
static char *write_trace(void)
{
	static char path[] = "/tmp/check_pfread.XXXXXX";
	struct buf out = BUF_INIT;
	struct pftrace p;
	size_t i;
	int fd;

	strcpy(path, "/tmp/check_pfread.XXXXXX");
	ck_assert_int_eq(pftrace_init(&p, put_buf, &out), PFTRACE_OK);
	for (i = 0; i < NEV; i++)
		ck_assert_int_eq(pftrace_event(&p, events[i], strlen(events[i])), PFTRACE_OK);
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, out.p, out.len), (ssize_t)out.len);
	close(fd);
	pftrace_free(&p);
	buf_release(&out);
	return path;
}

/* Compare the trace with these lines: the status of the first refusal. */
static int compare(const char *path, const char *const *lines, size_t n, struct pfread *r)
{
	size_t i;
	int rc;

	ck_assert_int_eq(pfread_open(r, path), PFREAD_OK);
	for (i = 0; i < n; i++)
		if ((rc = pfread_event(r, lines[i], strlen(lines[i]))) != PFREAD_OK)
			return rc;
	return pfread_finish(r);
}

START_TEST(test_equal)
{
	char *path = write_trace();
	struct pfread r;
	struct buf s = BUF_INIT;

	ck_assert_int_eq(compare(path, events, NEV, &r), PFREAD_OK);
	ck_assert_uint_eq(r.slices, 2);
	ck_assert_uint_eq(r.flows_out, 2);
	ck_assert_uint_eq(r.counters, 1);
	pfread_summary(&r, &s);
	ck_assert(strstr(s.p, "holds the source's 6 events: 2 slices, 0 instants, 1 counter values, "
			 "2 flows, each on the slice Perfetto's JSON import binds it to (0 left "
			 "out") != NULL);
	pfread_free(&r);
	buf_release(&s);
	unlink(path);
}
END_TEST

/* events with line k replaced: the message of the first difference */
static void refused(size_t k, const char *line, const char *msg)
{
	const char *lines[NEV];
	char *path = write_trace();
	struct pfread r;
	char want[400];

	memcpy(lines, events, sizeof lines);
	lines[k] = line;
	ck_assert_int_eq(compare(path, lines, NEV, &r), PFREAD_DIFF);
	snprintf(want, sizeof want, "%s: %s", path, msg);
	ck_assert_str_eq(r.msg, want);
	pfread_free(&r);
	unlink(path);
}

START_TEST(test_differences)
{
	refused(3, "{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":3.001,\"dur\":1}",
		"event 3: event: ts 3000 ns in the output, 3001 ns in the source");
	refused(3, "{\"ph\":\"X\",\"name\":\"j\",\"pid\":0,\"tid\":7,\"ts\":3,\"dur\":1}",
		"event 3: name differs from the source's \"j\"");
	refused(3, "{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":8,\"ts\":3,\"dur\":1}",
		"event 3: event: on another track than thread 8 of process 0");
	refused(1, "{\"ph\":\"X\",\"name\":\"op\",\"cat\":\"cpu\",\"pid\":1,\"tid\":1,\"ts\":\"1.500\","
		"\"dur\":2,\"args\":{\"a\":[1,2.5,{\"b\":0}],\"s\":\"x\",\"t\":true}}",
		"event 1: args member \"a\": the output holds another type 0, the source 0");
	refused(1, "{\"ph\":\"X\",\"name\":\"op\",\"cat\":\"cpu\",\"pid\":1,\"tid\":1,\"ts\":\"1.500\","
		"\"dur\":3,\"args\":{\"a\":[1,2.5,{\"b\":null}],\"s\":\"x\",\"t\":true}}",
		"event 1: slice end (ts + dur): ts 3500 ns in the output, 4500 ns in the source");
	/* the flows where the JSON import binds them, or nowhere */
	refused(2, "{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":1.5,\"cat\":\"f\",\"name\":\"f\"}",
		"event 1: the output carries a flow (id 8c58b2fb32c12399) there that Perfetto's JSON "
		"import binds elsewhere or not at all");
	refused(4, "{\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":3,\"cat\":\"f\",\"name\":\"f\"}",
		"event 3: the output carries a flow (id 8c58b2fb32c12399) there that Perfetto's JSON "
		"import binds elsewhere or not at all");
	refused(5, "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":4,\"args\":{\"v\":3.0}}",
		"event 5: counter \"mem v\": the source's value 3.0 differs");
}
END_TEST

START_TEST(test_count)
{
	char *path = write_trace();
	struct pfread r;

	/* one event short: the output goes on */
	ck_assert_int_eq(compare(path, events, NEV - 1, &r), PFREAD_DIFF);
	ck_assert(strstr(r.msg, ": event 5: the output has events after the source's last one") !=
		  NULL);
	pfread_free(&r);
	unlink(path);
}
END_TEST

START_TEST(test_not_a_trace)
{
	char path[] = "/tmp/check_pfread.XXXXXX";
	int fd = mkstemp(path);
	struct pfread r;
	char want[200];

	ck_assert_int_eq(write(fd, "{\"traceEvents\":[]}", 18), 18);
	close(fd);
	ck_assert_int_eq(compare(path, events, 2, &r), PFREAD_DIFF);
	snprintf(want, sizeof want, "%s: packet 0: not a Trace.packet field (a Perfetto trace is "
		 "a sequence of them)", path);
	ck_assert_str_eq(r.msg, want);
	pfread_free(&r);
	unlink(path);
	ck_assert_int_eq(pfread_open(&r, "/nonexistent/x.pftrace"), PFREAD_TROUBLE);
	pfread_free(&r);
}
END_TEST

static Suite *pfread_suite(void)
{
	Suite *s = suite_create("pfread");
	TCase *tc = tcase_create("compare");

	tcase_add_test(tc, test_equal);
	tcase_add_test(tc, test_differences);
	tcase_add_test(tc, test_count);
	tcase_add_test(tc, test_not_a_trace);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pfread_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
