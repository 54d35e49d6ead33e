/* Unit tests for common/compact_flow.c: which GPU event a flow binds to --
 * the same correlation when the track has them, an exact start before a
 * containing interval -- and the refusals when none or several match. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "compact_flow.h"

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
	const char *name;   /* the bound event (its source index below), or the refusal */
	unsigned index;
};

static const struct bind_case cases[] = {
	/* correlation 2 holds b (starts at 20) and c (12-14): exact start wins */
	{ "7", "20", "2", 0, NULL, 1 },
	/* inside c only (b starts later), although a contains 13 too: other corr */
	{ "7", "13", "2", 0, NULL, 2 },
	{ "7", "10", "1", 0, NULL, 0 },
	{ "7", "11", "3", COMPACT_REFUSED,
	  "event 99: flow (id 3, ts 11) on pid 1 tid 7 matches no GPU event (same correlation, "
	  "starting at or containing its ts); it cannot follow its kernel to a lane", 0 },
	/* no correlations on the track: any event */
	{ "9", "21", "5", 0, NULL, 3 },
	{ "9", "26", "5", COMPACT_REFUSED,
	  "event 99: flow (id 5, ts 26) on pid 1 tid 9 lies inside several GPU events of its "
	  "correlation; it cannot follow its kernel to a lane", 0 },
	{ "9", "\"x\"", "5", COMPACT_REFUSED,
	  "event 99: flow on a GPU track without a numeric ts", 0 },
};

START_TEST(test_bind)
{
	const struct bind_case *bc = &cases[_i];
	struct compact c;
	struct member pid = { "1", 1 }, tid = { bc->tid, strlen(bc->tid) };
	struct member ts = { bc->ts, strlen(bc->ts) }, id = { bc->id, strlen(bc->id) };
	const struct compact_act *hit = NULL;
	int64_t track;
	size_t k;

	compact_init(&c);
	for (k = 0; k < COUNT(trace); k++)
		ck_assert_int_eq(compact_see_event(&c, trace[k], strlen(trace[k])), 0);
	ck_assert_int_eq(compact_plan(&c), 0);
	track = compact_find_track(&c, pid, tid);
	ck_assert_int_ge(track, 0);
	ck_assert_int_eq(compact_flow_bind(&c, (uint32_t)track, 99, ts, id, &hit), bc->rc);
	if (bc->rc == 0) {
		ck_assert_ptr_nonnull(hit);
		ck_assert_uint_eq(hit->index, bc->index);
	} else {
		ck_assert_str_eq(c.msg.p, bc->name);
	}
	compact_free(&c);
}
END_TEST

/* A flow on a thread that stays is not moved; one on a moved track is. */
START_TEST(test_move)
{
	static const char *const cpu_flow =
		"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":9,\"cat\":\"ac2g\",\"name\":\"ac2g\"}";
	static const char *const gpu_flow =
		"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":7,\"ts\":10,\"cat\":\"ac2g\",\"name\":\"ac2g\","
		"\"bp\":\"e\"}";
	struct compact c;
	size_t k;

	compact_init(&c);
	for (k = 0; k < COUNT(trace); k++)
		ck_assert_int_eq(compact_see_event(&c, trace[k], strlen(trace[k])), 0);
	ck_assert_int_eq(compact_plan(&c), 0);
	ck_assert_int_eq(compact_flow_move(&c, cpu_flow, strlen(cpu_flow), 5), 0);
	ck_assert_int_eq(compact_flow_move(&c, trace[0], strlen(trace[0]), 0), 0);
	ck_assert_int_eq(compact_flow_move(&c, gpu_flow, strlen(gpu_flow), 6), 1);
	ck_assert_str_eq(c.out.p, "{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2113929216,\"ts\":10,"
			 "\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\",\"args\":{"
			 "\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":6,"
			 "\"had_args\":false}}}");
	compact_free(&c);
}
END_TEST

static Suite *flow_suite(void)
{
	Suite *s = suite_create("compact_flow");
	TCase *tc = tcase_create("flow");

	tcase_add_loop_test(tc, test_bind, 0, (int)COUNT(cases));
	tcase_add_test(tc, test_move);
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
