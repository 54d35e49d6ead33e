/* Unit tests for common/compact/compact_flow.c, through pass one, the plan and
 * pass two: which GPU event a flow binds to -- the same correlation when
 * the track has them and the flow a numeric id, an exact start before a
 * containing interval -- and the refusals when none or several match. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "compact/compact.h"
#include "../../compact_test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Track (1, 7) carries correlations; track (1, 9) does not. */
static const char *const trace[] = {
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,\"dur\":10,"
	"\"args\":{\"correlation\":1}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":7,\"ts\":20,\"dur\":10,"
	"\"args\":{\"correlation\":2}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"pid\":1,\"tid\":7,\"ts\":12,\"dur\":2,"
	"\"args\":{\"correlation\":2}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"d\",\"pid\":1,\"tid\":9,\"ts\":20,\"dur\":10}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"e\",\"pid\":1,\"tid\":9,\"ts\":25,\"dur\":10}",
};

struct bind_case {
	const char *tid, *ts, *id;
	int rc;
	const char *name;   /* the refusal */
	unsigned index;     /* the bound event (its source index above) */
};

static const struct bind_case cases[] = {
	/* correlation 2 holds b (starts at 20) and c (12-14): exact start wins */
	{ "7", "20", "2", 0, NULL, 1 },
	/* inside c only (b starts later), although a contains 13 too: other corr */
	{ "7", "13", "2", 0, NULL, 2 },
	{ "7", "10", "1", 0, NULL, 0 },
	{ "7", "11", "3", COMPACT_REFUSED,
	  "event 5: flow (id 3, ts 11) on pid 1 tid 7 matches no GPU event (same correlation, "
	  "starting at or containing its ts); it cannot follow its kernel to a lane", 0 },
	/* no numeric id on a track with correlations: any event of the track */
	{ "7", "21", "\"x\"", 0, NULL, 1 },
	{ "7", "13", "\"x\"", COMPACT_REFUSED,
	  "event 5: flow (id \"x\", ts 13) on pid 1 tid 7 lies inside several GPU events of "
	  "its correlation; it cannot follow its kernel to a lane", 0 },
	/* no correlations on the track: any event */
	{ "9", "21", "5", 0, NULL, 3 },
	{ "9", "26", "5", COMPACT_REFUSED,
	  "event 5: flow (id 5, ts 26) on pid 1 tid 9 lies inside several GPU events of its "
	  "correlation; it cannot follow its kernel to a lane", 0 },
	{ "9", "\"x\"", "5", COMPACT_REFUSED,
	  "event 5: flow on a GPU track without a numeric ts", 0 },
	{ "9", "1e400", "5", COMPACT_REFUSED, "event 5: flow ts 1e400 out of range", 0 },
	{ "9", "40", "5", COMPACT_REFUSED,
	  "event 5: flow (id 5, ts 40) on pid 1 tid 9 matches no GPU event (same correlation, "
	  "starting at or containing its ts); it cannot follow its kernel to a lane", 0 },
};

/* The lane tid event k of trace[] went to in pass two. */
static long long lane_of(const char *out)
{
	const char *tid = strstr(out, "\"tid\":");

	ck_assert_ptr_nonnull(tid);
	return strtoll(tid + 6, NULL, 10);
}

START_TEST(test_bind)
{
	const struct bind_case *bc = &cases[_i];
	struct compact *c;
	struct buf flow = BUF_INIT;
	const char *out;
	size_t k, len;
	long long lanes[COUNT(trace)];
	int rc;

	buf_printf(&flow, "{\"ph\":\"f\",\"id\":%s,\"pid\":1,\"tid\":%s,\"ts\":%s,"
		   "\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}", bc->id, bc->tid, bc->ts);
	c = new_compact();
	for (k = 0; k < COUNT(trace); k++)
		ck_assert_int_eq(compact_see_event(c, trace[k], strlen(trace[k])), 0);
	ck_assert_int_eq(compact_see_event(c, flow.p, flow.len), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	for (k = 0; k < COUNT(trace); k++) {
		ck_assert_int_eq(compact_place(c, trace[k], strlen(trace[k]), &out, &len), 0);
		lanes[k] = lane_of(out);
	}
	rc = compact_place(c, flow.p, flow.len, &out, &len);
	ck_assert_int_eq(rc, bc->rc);
	if (bc->rc == 0) {
		ck_assert_int_eq(lane_of(out), lanes[bc->index]);
		ck_assert_uint_eq(stats_of(c).relocated_flows, 1);
	} else {
		ck_assert_str_eq(compact_message(c), bc->name);
	}
	buf_release(&flow);
	compact_free(c);
}
END_TEST

/* A flow on a thread that stays is not moved; one on a moved track is,
 * even when it comes before its kernel. */
START_TEST(test_move)
{
	static const char *const cpu_flow =
		"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":9,\"cat\":\"ac2g\",\"name\":\"ac2g\"}";
	static const char *const gpu_flow =
		"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":7,\"ts\":10,\"cat\":\"ac2g\",\"name\":\"ac2g\","
		"\"bp\":\"e\"}";
	const char *lines[COUNT(trace) + 2];
	struct compact *c;
	const char *out;
	size_t k, len;

	lines[0] = gpu_flow;
	for (k = 0; k < COUNT(trace); k++)
		lines[k + 1] = trace[k];
	lines[COUNT(trace) + 1] = cpu_flow;
	c = new_compact();
	for (k = 0; k < COUNT(lines); k++)
		ck_assert_int_eq(compact_see_event(c, lines[k], strlen(lines[k])), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_int_eq(compact_place(c, gpu_flow, strlen(gpu_flow), &out, &len), 0);
	ck_assert_str_eq(out, "{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2113929216,\"ts\":10,"
			 "\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\",\"args\":{"
			 "\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":0,"
			 "\"had_args\":false}}}");
	for (k = 1; k < COUNT(lines); k++)
		ck_assert_int_eq(compact_place(c, lines[k], strlen(lines[k]), &out, &len), 0);
	ck_assert_ptr_eq(out, cpu_flow);
	ck_assert_uint_eq(stats_of(c).relocated_flows, 1);
	ck_assert_uint_eq(stats_of(c).relocated, COUNT(trace));
	compact_free(c);
}
END_TEST

/* Many flows on one track, each bound to its own kernel by the sweep:
 * kernels k start at 10k and last 15 (so each overlaps the next), flows
 * come in reverse source order and name their kernel by correlation, or,
 * without one, start exactly where their kernel does. */
START_TEST(test_sweep)
{
	enum { N = 3000 };
	struct compact *c;
	struct buf line = BUF_INIT;
	const char *out;
	size_t len;
	long long lane[N];
	int k, pass;

	for (pass = 0; pass < 2; pass++) {
		c = new_compact();
		for (k = 0; k < 2 * N; k++) {
			int j = k < N ? k : 2 * N - 1 - k;
			buf_reset(&line);
			if (k < N)
				buf_printf(&line, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,"
					   "\"tid\":7,\"ts\":%d,\"dur\":15,\"args\":{\"correlation\":%d}}",
					   10 * j, j);
			else if (pass == 0)
				buf_printf(&line, "{\"ph\":\"f\",\"id\":%d,\"pid\":1,\"tid\":7,\"ts\":%d,"
					   "\"bp\":\"e\"}", j, 10 * j + 3);
			else
				buf_printf(&line, "{\"ph\":\"f\",\"pid\":1,\"tid\":7,\"ts\":%d,"
					   "\"bp\":\"e\"}", 10 * j);
			ck_assert_int_eq(compact_see_event(c, line.p, line.len), 0);
		}
		ck_assert_int_eq(compact_plan(c), 0);
		ck_assert_uint_eq(group_of(c, 0).nlanes, 2);
		for (k = 0; k < 2 * N; k++) {
			int j = k < N ? k : 2 * N - 1 - k;
			buf_reset(&line);
			if (k < N)
				buf_printf(&line, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,"
					   "\"tid\":7,\"ts\":%d,\"dur\":15,\"args\":{\"correlation\":%d}}",
					   10 * j, j);
			else if (pass == 0)
				buf_printf(&line, "{\"ph\":\"f\",\"id\":%d,\"pid\":1,\"tid\":7,\"ts\":%d,"
					   "\"bp\":\"e\"}", j, 10 * j + 3);
			else
				buf_printf(&line, "{\"ph\":\"f\",\"pid\":1,\"tid\":7,\"ts\":%d,"
					   "\"bp\":\"e\"}", 10 * j);
			ck_assert_int_eq(compact_place(c, line.p, line.len, &out, &len), 0);
			if (k < N)
				lane[j] = lane_of(out);
			else
				ck_assert_int_eq(lane_of(out), lane[j]);
		}
		ck_assert_int_eq(lane[0], 0x7E000000);
		ck_assert_int_eq(lane[1], 0x7E000001);
		ck_assert_uint_eq(stats_of(c).relocated_flows, N);
		compact_free(c);
	}
	buf_release(&line);
}
END_TEST

static Suite *flow_suite(void)
{
	Suite *s = suite_create("compact_flow");
	TCase *tc = tcase_create("flow");

	tcase_add_loop_test(tc, test_bind, 0, (int)COUNT(cases));
	tcase_add_test(tc, test_move);
	tcase_add_test(tc, test_sweep);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(flow_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
