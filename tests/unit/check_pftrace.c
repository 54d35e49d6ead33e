/* Unit tests for common/pftrace.c: the exact bytes of a one-event trace
 * (root descriptor with explicit ordering, process and thread descriptors,
 * SLICE_BEGIN with interned name and category and the clearing flags, the
 * held SLICE_END at ts + dur without flags); flows riding on the held end
 * or on the next slice, and left out at the end with no slice; metadata
 * names written again in their descriptors; the interning bound clearing
 * the state; the flow id of (cat, name, id); pftrace_kind. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pftrace.h"

static int put_buf(void *ctx, const void *data, size_t n)
{
	return buf_add(ctx, data, n);
}

static void ev(struct pftrace *p, const char *line)
{
	ck_assert_int_eq(pftrace_event(p, line, strlen(line)), PFTRACE_OK);
}

#define B(lit) lit, sizeof(lit) - 1

START_TEST(test_exact_bytes)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	static const char want[] =
		/* root: seq 1, descriptor { uuid 0, process and thread ordering explicit } */
		"\x0a\x0d\x50\x01\xe2\x03\x08\x08\x00\x98\x01\x01\xa0\x01\x01"
		/* process: uuid 1, pid 1 */
		"\x0a\x0b\x50\x01\xe2\x03\x06\x08\x01\x1a\x02\x08\x01"
		/* thread: uuid 2, parent 1, pid 1, tid 2 */
		"\x0a\x0f\x50\x01\xe2\x03\x0a\x08\x02\x28\x01\x22\x04\x08\x01\x10\x02"
		/* begin: ts 1000, seq 1, flags 3, { type 1, track 2, cat 1, name 1 },
		 * interned { categories { 1 "c" } names { 1 "a" } } */
		"\x0a\x21\x40\xe8\x07\x50\x01\x68\x03\x5a\x08\x48\x01\x58\x02\x18\x01\x50\x01"
		"\x62\x0e\x0a\x05\x08\x01\x12\x01" "c" "\x12\x05\x08\x01\x12\x01" "a"
		/* end: ts 3000, seq 1, { type 2, track 2 } */
		"\x0a\x0b\x40\xb8\x17\x50\x01\x5a\x04\x48\x02\x58\x02";

	ck_assert_int_eq(pftrace_init(&p, put_buf, &out), PFTRACE_OK);
	ev(&p, "{\"ph\":\"X\",\"name\":\"a\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":2}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(out.len, sizeof want - 1);
	ck_assert(memcmp(out.p, want, out.len) == 0);
	ck_assert_uint_eq(p.packets, 5);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

/* The number of times field `key` (its key bytes) stands in out. */
static size_t count(const struct buf *out, const char *key, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i + n <= out->len; i++)
		c += memcmp(out->p + i, key, n) == 0;
	return c;
}

START_TEST(test_flows)
{
	struct buf out = BUF_INIT;
	struct pftrace p;

	pftrace_init(&p, put_buf, &out);
	/* s after an X: on its held end */
	ev(&p, "{\"ph\":\"X\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}");
	ev(&p, "{\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":1,\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
	/* f without bp on a thread with no slice yet: the next slice */
	ev(&p, "{\"ph\":\"f\",\"id\":7,\"pid\":0,\"tid\":3,\"ts\":5,\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
	ev(&p, "{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":0,\"tid\":3,\"ts\":5,\"dur\":1}");
	/* a flow on a thread that never has a slice: left out */
	ev(&p, "{\"ph\":\"s\",\"id\":8,\"pid\":0,\"tid\":9,\"ts\":5,\"cat\":\"x\",\"name\":\"x\"}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.flows, 2);
	ck_assert_uint_eq(p.flows_dropped, 1);
	/* flow_ids (47, fixed64: key f9 02) and terminating_flow_ids (48: 81 03) */
	ck_assert_uint_eq(count(&out, B("\xf9\x02")), 1);
	ck_assert_uint_eq(count(&out, B("\x81\x03")), 1);
	ck_assert_uint_eq(pftrace_flow_id(B("ac2g"), B("ac2g"), B("7")),
			  pftrace_flow_id(B("ac2g"), B("ac2g"), B("7")));
	ck_assert_uint_ne(pftrace_flow_id(B("ac2g"), B("ac2g"), B("7")),
			  pftrace_flow_id(B("ac2"), B("gac2g"), B("7")));
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

START_TEST(test_metadata)
{
	struct buf out = BUF_INIT;
	struct pftrace p;

	pftrace_init(&p, put_buf, &out);
	ev(&p, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4,\"args\":{\"name\":\"GPU 4\"}}");
	ev(&p, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":4,\"args\":{\"sort_index\":2.7}}");
	ev(&p, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4,\"tid\":\"s\",\"args\":{\"name\":\"lane\"}}");
	ev(&p, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":4,\"args\":{\"labels\":\"x\"}}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.ids.nprocs, 1);
	ck_assert_str_eq(p.ids.procs[0].name, "GPU 4");
	ck_assert_int_eq(p.ids.procs[0].rank, 2);
	ck_assert_str_eq(p.ids.threads[0].name, "lane");
	ck_assert_int_eq(p.ids.threads[0].tid, PFTRACE_SYNTH_TID);
	/* root, process (name), process (rank), thread: no event packet */
	ck_assert_uint_eq(p.packets, 4);
	ck_assert_uint_eq(count(&out, B("GPU 4")), 2);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

START_TEST(test_intern_bound)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	char line[200];
	int i;

	pftrace_init(&p, put_buf, &out);
	for (i = 0; i < PFTRACE_INTERN_MAX_ENTRIES + 10; i++) {
		snprintf(line, sizeof line,
			 "{\"ph\":\"i\",\"name\":\"n%d\",\"pid\":1,\"tid\":1,\"ts\":%d}", i, i);
		ev(&p, line);
	}
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.resets, 1);
	/* sequence_flags 3: on the first event packet and after the reset */
	ck_assert_uint_eq(count(&out, B("\x50\x01\x68\x03")), 2);
	ck_assert_uint_le(p.names.n, 16);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

START_TEST(test_kinds)
{
	ck_assert_int_eq(pftrace_kind(B("\"X\"")), PF_K_SLICE);
	ck_assert_int_eq(pftrace_kind(B("\"I\"")), PF_K_INSTANT);
	ck_assert_int_eq(pftrace_kind(B("\"t\"")), PF_K_FLOW);
	ck_assert_int_eq(pftrace_kind(B("\"b\"")), PF_K_SKIP);
	ck_assert_int_eq(pftrace_kind(B("\"XX\"")), PF_K_SKIP);
	ck_assert_int_eq(pftrace_kind("", 0), PF_K_SKIP);
}
END_TEST

START_TEST(test_refusal)
{
	struct buf out = BUF_INIT;
	struct pftrace p;

	pftrace_init(&p, put_buf, &out);
	ck_assert_int_eq(pftrace_event(&p, B("[1]")), PFTRACE_INPUT);
	ck_assert_str_eq(p.err, "an event line that is not an object");
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

static Suite *pftrace_suite(void)
{
	Suite *s = suite_create("pftrace");
	TCase *tc = tcase_create("writer");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exact_bytes);
	tcase_add_test(tc, test_flows);
	tcase_add_test(tc, test_metadata);
	tcase_add_test(tc, test_intern_bound);
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_refusal);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pftrace_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
