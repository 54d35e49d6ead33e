/* Unit tests for common/verify/verifybind.c: which slice a flow event binds to
 * under Perfetto's rules (perfetto-json notes, "Flows" and "Slice
 * placement"): the open slice, an ended one still on the stack until the
 * next slice begins, nesting, touching slices, zero-length slices, a slice
 * sticking out (overflow track), f without bp waiting for the next slice,
 * the end of a track; and Perfetto's order of a slice and a flow. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "verify/verifybind.h"

struct rec {
	uint64_t flow, slice;
};

struct got {
	struct rec r[16];
	int n;
};

static int record(void *ctx, void *rec, uint64_t slice)
{
	struct got *g = ctx;
	struct rec *r = rec;

	ck_assert_int_lt(g->n, 16);
	g->r[g->n].flow = r->flow;
	g->r[g->n].slice = slice;
	g->n++;
	return 0;
}

/* The slice an enclosing flow (s, t, f with bp "e") binds to now. */
static uint64_t now(struct verifybind *b)
{
	uint64_t slice = 12345;

	ck_assert_int_eq(verifybind_flow(b, 0, NULL, &slice), 1);
	return slice;
}

START_TEST(test_open_and_ended)
{
	struct verifybind b;
	struct got g = { .n = 0 };

	verifybind_init(&b, 0, sizeof(struct rec), record, &g);
	ck_assert_uint_eq(now(&b), VERIFYBIND_NONE);
	ck_assert_int_eq(verifybind_slice(&b, 10, 20, 1), 0);
	ck_assert_uint_eq(now(&b), 1);
	/* after its end, still on the stack: the stale kernel */
	ck_assert_uint_eq(now(&b), 1);
	/* touching: the first is popped when the second begins */
	ck_assert_int_eq(verifybind_slice(&b, 20, 30, 2), 0);
	ck_assert_uint_eq(now(&b), 2);
	ck_assert_uint_eq(b.n, 1);
	/* a slice inside nests: the deepest binds */
	ck_assert_int_eq(verifybind_slice(&b, 22, 25, 3), 0);
	ck_assert_uint_eq(now(&b), 3);
	ck_assert_uint_eq(b.n, 2);
	/* one beginning after both ended pops both */
	ck_assert_int_eq(verifybind_slice(&b, 40, 50, 4), 0);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_uint_eq(now(&b), 4);
	/* a slice sticking out of the open one goes to an overflow track */
	ck_assert_int_eq(verifybind_slice(&b, 45, 60, 5), 0);
	ck_assert_uint_eq(now(&b), 4);
	ck_assert_uint_eq(b.n, 1);
	/* a new track forgets the stack */
	ck_assert_int_eq(verifybind_track_end(&b), 0);
	ck_assert_uint_eq(now(&b), VERIFYBIND_NONE);
	ck_assert_int_eq(g.n, 0);
	verifybind_free(&b);
}
END_TEST

START_TEST(test_nest)
{
	struct verifybind b;
	struct got g = { .n = 0 };

	/* with nest, a kernel that overlaps the one before by a few ns nests:
	 * the flow at its start binds to it */
	verifybind_init(&b, 1, sizeof(struct rec), record, &g);
	ck_assert_int_eq(verifybind_slice(&b, 10, 20, 1), 0);
	ck_assert_int_eq(verifybind_slice(&b, 19, 40, 2), 0);
	ck_assert_uint_eq(b.n, 2);
	ck_assert_uint_eq(now(&b), 2);
	/* the next pops both */
	ck_assert_int_eq(verifybind_slice(&b, 40, 50, 3), 0);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_uint_eq(now(&b), 3);
	verifybind_free(&b);
	/* without, it is left off: the flow binds to the one before */
	verifybind_init(&b, 0, sizeof(struct rec), record, &g);
	ck_assert_int_eq(verifybind_slice(&b, 10, 20, 1), 0);
	ck_assert_int_eq(verifybind_slice(&b, 19, 40, 2), 0);
	ck_assert_uint_eq(now(&b), 1);
	verifybind_free(&b);
}
END_TEST

START_TEST(test_zero_length)
{
	struct verifybind b;
	struct got g = { .n = 0 };

	verifybind_init(&b, 0, sizeof(struct rec), record, &g);
	/* a zero-length slice at the start of a longer one nests under it */
	ck_assert_int_eq(verifybind_slice(&b, 10, 20, 1), 0);
	ck_assert_int_eq(verifybind_slice(&b, 10, 10, 2), 0);
	ck_assert_uint_eq(b.n, 2);
	ck_assert_uint_eq(now(&b), 2);
	/* two zero-length slices at one ts stack */
	ck_assert_int_eq(verifybind_slice(&b, 10, 10, 3), 0);
	ck_assert_uint_eq(b.n, 3);
	ck_assert_uint_eq(now(&b), 3);
	/* a zero-length slice at the end of one pops it */
	ck_assert_int_eq(verifybind_slice(&b, 20, 20, 4), 0);
	ck_assert_uint_eq(b.n, 1);
	ck_assert_uint_eq(now(&b), 4);
	verifybind_free(&b);
}
END_TEST

START_TEST(test_waiting)
{
	struct verifybind b;
	struct got g = { .n = 0 };
	struct rec r = { 7, 0 }, q = { 8, 0 };
	uint64_t slice = 99;

	verifybind_init(&b, 0, sizeof(struct rec), record, &g);
	ck_assert_int_eq(verifybind_slice(&b, 10, 20, 1), 0);
	/* f without bp binds to the next slice that begins, not the open one */
	ck_assert_int_eq(verifybind_flow(&b, 1, &r, &slice), 0);
	ck_assert_uint_eq(slice, 99);
	ck_assert_int_eq(verifybind_flow(&b, 1, &q, &slice), 0);
	ck_assert_int_eq(g.n, 0);
	ck_assert_int_eq(verifybind_slice(&b, 30, 40, 2), 0);
	ck_assert_int_eq(g.n, 2);
	ck_assert_uint_eq(g.r[0].flow, 7);
	ck_assert_uint_eq(g.r[0].slice, 2);
	ck_assert_uint_eq(g.r[1].flow, 8);
	ck_assert_uint_eq(g.r[1].slice, 2);
	/* none begins before the track ends: bound to nothing */
	ck_assert_int_eq(verifybind_flow(&b, 1, &r, &slice), 0);
	ck_assert_int_eq(verifybind_track_end(&b), 0);
	ck_assert_int_eq(g.n, 3);
	ck_assert_uint_eq(g.r[2].slice, VERIFYBIND_NONE);
	verifybind_free(&b);
}
END_TEST

START_TEST(test_order)
{
	/* an earlier slice first; at one ts a slice with a length first,
	 * a zero-length one by file position */
	ck_assert_int_eq(verifybind_slice_first(9, 9, 50, 10, 1), 1);
	ck_assert_int_eq(verifybind_slice_first(11, 20, 0, 10, 1), 0);
	ck_assert_int_eq(verifybind_slice_first(10, 20, 50, 10, 1), 1);
	ck_assert_int_eq(verifybind_slice_first(10, 10, 0, 10, 1), 1);
	ck_assert_int_eq(verifybind_slice_first(10, 10, 2, 10, 1), 0);
}
END_TEST

static Suite *verifybind_suite(void)
{
	Suite *s = suite_create("verifybind");
	TCase *tc = tcase_create("binding");

	tcase_add_test(tc, test_open_and_ended);
	tcase_add_test(tc, test_nest);
	tcase_add_test(tc, test_zero_length);
	tcase_add_test(tc, test_waiting);
	tcase_add_test(tc, test_order);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verifybind_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
