/* Unit tests for common/window/windowgroup.c: the verdicts on flows, async ids and
 * B/E pairs (kept or dropped whole), and the bound on memory: no table while
 * the stream is read, and while matching, one of the largest partition's
 * distinct keys, exactly. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "window/windowgroup.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define W0 100
#define W1 200

struct ev {
	enum windowgroup_kind kind;
	int64_t key;
	const char *text;   /* NULL: the integer key */
	int64_t t;          /* the event's instant (lo = hi), half ns */
	int want;           /* its verdict for the window [W0, W1] */
};

/* Every shape: an f before its s, t steps, ids that never close, async
 * begins nested with one id, the same number as a flow and as an async id,
 * a text id that reads like an integer, pairs with and without their E. */
static const struct ev shapes[] = {
	{ WGROUP_FLOW, 1, NULL, 150, WGROUP_KEEP },    /* f before s, inside */
	{ WGROUP_FLOW, 2, NULL, 110, WGROUP_CUT },     /* s; steps; one outside */
	{ WGROUP_ASYNC, 1, NULL, 105, WGROUP_KEEP },   /* b */
	{ WGROUP_FLOW, 1, NULL, 120, WGROUP_KEEP },    /* its s */
	{ WGROUP_FLOW, 2, NULL, 130, WGROUP_CUT },     /* t */
	{ WGROUP_ASYNC, 1, NULL, 110, WGROUP_KEEP },   /* b nested, same id */
	{ WGROUP_FLOW, 3, NULL, 190, WGROUP_KEEP },    /* one end only, inside */
	{ WGROUP_FLOW, 4, NULL, 50, WGROUP_DROP },     /* one end only, outside */
	{ WGROUP_FLOW, 2, NULL, 250, WGROUP_DROP },    /* t outside */
	{ WGROUP_ASYNC, 1, NULL, 120, WGROUP_KEEP },   /* e */
	{ WGROUP_FLOW, 5, NULL, 90, WGROUP_DROP },     /* s before the window */
	{ WGROUP_BEGIN, 0, NULL, 90, WGROUP_KEEP },    /* a pair across W0 */
	{ WGROUP_FLOW, 2, NULL, 160, WGROUP_CUT },     /* f */
	{ WGROUP_ASYNC, 2, NULL, 180, WGROUP_CUT },    /* b inside, e after */
	{ WGROUP_END, 0, NULL, 110, WGROUP_KEEP },
	{ WGROUP_FLOW, 5, NULL, 150, WGROUP_CUT },     /* its f, inside */
	{ WGROUP_ASYNC, 0, "\"x\"", 150, WGROUP_KEEP },  /* a text id */
	{ WGROUP_FLOW, 0, "\"1\"", 300, WGROUP_DROP }, /* not flow 1 */
	{ WGROUP_BEGIN, 1, NULL, 300, WGROUP_DROP },   /* no E, after W1 */
	{ WGROUP_ASYNC, 1, NULL, 195, WGROUP_KEEP },   /* the outer e */
	{ WGROUP_BEGIN, 2, NULL, 50, WGROUP_DROP },
	{ WGROUP_END, 2, NULL, 60, WGROUP_DROP },
	{ WGROUP_BEGIN, 3, NULL, 10, WGROUP_KEEP },    /* no E: lasts to the end */
	{ WGROUP_ASYNC, 2, NULL, 230, WGROUP_DROP },
};
/* flows 1-5 and "1", async 1, 2 and "x", pairs 0-3 */
#define SHAPE_KEYS 13

static size_t text_len(const char *t)
{
	return t ? strlen(t) : 0;
}

/* The most distinct keys of one partition, counted here from the events
 * (each key's first event counts it). */
static uint64_t largest_part(const struct windowgroup *g, const struct ev *v, size_t n)
{
	uint64_t per[WINDOWGROUP_PARTS] = { 0 }, most = 0;
	size_t i, j, p;

	for (i = 0; i < n; i++) {
		int seen = 0;
		for (j = 0; j < i && !seen; j++)
			seen = (v[j].kind == v[i].kind ||
				(v[j].kind >= WGROUP_BEGIN && v[i].kind >= WGROUP_BEGIN)) &&
			       v[j].key == v[i].key && (v[j].text == NULL) == (v[i].text == NULL) &&
			       (v[i].text == NULL || strcmp(v[j].text, v[i].text) == 0);
		if (seen)
			continue;
		p = windowgroup_part_of(g, v[i].kind, v[i].key, v[i].text, text_len(v[i].text));
		if (++per[p] > most)
			most = per[p];
	}
	return most;
}

/* round_events 0: the default; else each partition is matched in rounds
 * of that many events (1: a round per event). */
static void run_shapes(size_t nparts, uint64_t round_events)
{
	struct windowgroup g;
	struct windowgroup_ref ref[COUNT(shapes)];
	size_t i;

	ck_assert_int_eq(windowgroup_init(&g, nparts, "check_windowgroup"), 0);
	if (round_events != 0)
		g.round_events = round_events;
	for (i = 0; i < COUNT(shapes); i++) {
		const struct ev *e = &shapes[i];
		ck_assert_int_eq(windowgroup_add(&g, e->kind, e->key, e->text, text_len(e->text),
						 e->t, e->t, &ref[i]), 0);
	}
	ck_assert_int_eq(windowgroup_decide(&g, W0, W1), 0);
	for (i = 0; i < COUNT(shapes); i++)
		ck_assert_msg(windowgroup_verdict(&g, ref[i]) == shapes[i].want,
			      "event %zu: verdict %d, want %d", i, windowgroup_verdict(&g, ref[i]),
			      shapes[i].want);
	ck_assert_uint_eq(g.flows_cut, 2);   /* flows 2 and 5 */
	ck_assert_uint_eq(g.async_cut, 1);   /* async 2 */
	if (round_events == 0) {
		ck_assert_uint_eq(g.peak_keys, largest_part(&g, shapes, COUNT(shapes)));
		if (nparts == 1)
			ck_assert_uint_eq(g.peak_keys, SHAPE_KEYS);
	} else {
		ck_assert_uint_lt(g.peak_keys, SHAPE_KEYS);
	}
	windowgroup_free(&g);
}

START_TEST(test_shapes_one_part)
{
	run_shapes(1, 0);
}
END_TEST

/* A round per event, and rounds of 3: the same verdicts, fewer keys held. */
START_TEST(test_shapes_in_rounds)
{
	run_shapes(1, 1);
	run_shapes(1, 3);
	run_shapes(4, 2);
}
END_TEST

START_TEST(test_shapes_all_parts)
{
	run_shapes(WINDOWGROUP_PARTS, 0);
}
END_TEST

/* Many ids: each flow closes at once (s, f), each async id never does.
 * The verdicts read back in any order, across blocks; the matching table
 * holds the largest partition only. */
static void run_many(size_t nparts, uint64_t round_events)
{
	enum { N = 20000 };
	struct windowgroup g;
	struct windowgroup_ref *ref = malloc(3 * N * sizeof *ref);
	struct ev *v = malloc(3 * N * sizeof *v);
	int64_t w0 = 2 * 5000, w1 = 2 * 15000;
	size_t i, n = 0;

	ck_assert_ptr_nonnull(ref);
	ck_assert_ptr_nonnull(v);
	for (i = 0; i < N; i++) {
		int64_t t = 2 * (int64_t)i;
		int in = t >= w0 && t <= w1, in2 = t + 1 >= w0 && t + 1 <= w1;
		v[n++] = (struct ev){ WGROUP_FLOW, (int64_t)i, NULL, t,
			in && in2 ? WGROUP_KEEP : in ? WGROUP_CUT : WGROUP_DROP };
		v[n++] = (struct ev){ WGROUP_ASYNC, (int64_t)i, NULL, t,
			in ? WGROUP_KEEP : WGROUP_DROP };
		v[n++] = (struct ev){ WGROUP_FLOW, (int64_t)i, NULL, t + 1,
			in && in2 ? WGROUP_KEEP : in2 ? WGROUP_CUT : WGROUP_DROP };
	}
	ck_assert_int_eq(windowgroup_init(&g, nparts, "check_windowgroup"), 0);
	if (round_events != 0)
		g.round_events = round_events;
	for (i = 0; i < n; i++)
		ck_assert_int_eq(windowgroup_add(&g, v[i].kind, v[i].key, NULL, 0, v[i].t, v[i].t,
						 &ref[i]), 0);
	ck_assert_int_eq(windowgroup_decide(&g, w0, w1), 0);
	for (i = n; i-- > 0; )
		ck_assert_int_eq(windowgroup_verdict(&g, ref[i]), v[i].want);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(windowgroup_verdict(&g, ref[i]), v[i].want);
	/* flow i spans [2i, 2i + 1]: only flow 15000 has one end in the
	 * window [10000, 30000] and one out */
	ck_assert_uint_eq(g.flows_cut, 1);
	ck_assert_uint_eq(g.async_cut, 0);
	if (round_events != 0) {
		/* 3N events in rounds of round_events: the keys spread over the
		 * rounds, no round holds twice its share */
		uint64_t rounds = (3 * N + round_events - 1) / round_events;
		ck_assert_uint_eq(nparts, 1);
		ck_assert_uint_eq(g.rounds, rounds);
		ck_assert_uint_le(g.peak_keys, 2 * (2 * N / rounds));
		ck_assert_uint_ge(g.peak_keys, 2 * N / rounds);
	} else {
		uint64_t per[WINDOWGROUP_PARTS] = { 0 }, most = 0;
		for (i = 0; i < N; i++) {
			size_t f = windowgroup_part_of(&g, WGROUP_FLOW, (int64_t)i, NULL, 0);
			size_t a = windowgroup_part_of(&g, WGROUP_ASYNC, (int64_t)i, NULL, 0);
			most = ++per[f] > most ? per[f] : most;
			most = ++per[a] > most ? per[a] : most;
		}
		ck_assert_uint_eq(g.peak_keys, most);
		if (nparts == 1)
			ck_assert_uint_eq(g.peak_keys, 2 * N);
		else  /* spread: no partition holds twice its share */
			ck_assert_uint_le(g.peak_keys, 2 * (2 * N / nparts));
	}
	windowgroup_free(&g);
	free(ref);
	free(v);
}

START_TEST(test_many_one_part)
{
	run_many(1, 0);
}
END_TEST

/* The matching table bounded by rounds: 60000 events in rounds of 4096
 * (15 rounds), the verdicts unchanged. */
START_TEST(test_many_in_rounds)
{
	run_many(1, 4096);
}
END_TEST

START_TEST(test_many_all_parts)
{
	run_many(WINDOWGROUP_PARTS, 0);
}
END_TEST

/* A text id longer than a chunk has a chunk of its own. */
START_TEST(test_long_text)
{
	struct windowgroup g;
	struct windowgroup_ref r[4];
	char *a = malloc(2 * WINDOWGROUP_CHUNK), *b = malloc(2 * WINDOWGROUP_CHUNK);

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	memset(a, 'a', 2 * WINDOWGROUP_CHUNK);
	memcpy(b, a, 2 * WINDOWGROUP_CHUNK);
	b[0] = 'b';
	ck_assert_int_eq(windowgroup_init(&g, WINDOWGROUP_PARTS, "check_windowgroup"), 0);
	ck_assert_int_eq(windowgroup_add(&g, WGROUP_FLOW, 0, a, 2 * WINDOWGROUP_CHUNK, 150, 150,
					 &r[0]), 0);
	ck_assert_int_eq(windowgroup_add(&g, WGROUP_FLOW, 0, b, 2 * WINDOWGROUP_CHUNK, 150, 150,
					 &r[1]), 0);
	ck_assert_int_eq(windowgroup_add(&g, WGROUP_FLOW, 0, "\"s\"", 3, 150, 150, &r[2]), 0);
	ck_assert_int_eq(windowgroup_add(&g, WGROUP_FLOW, 0, a, 2 * WINDOWGROUP_CHUNK, 300, 300,
					 &r[3]), 0);
	ck_assert_int_eq(windowgroup_decide(&g, W0, W1), 0);
	ck_assert_int_eq(windowgroup_verdict(&g, r[0]), WGROUP_CUT);
	ck_assert_int_eq(windowgroup_verdict(&g, r[1]), WGROUP_KEEP);
	ck_assert_int_eq(windowgroup_verdict(&g, r[2]), WGROUP_KEEP);
	ck_assert_int_eq(windowgroup_verdict(&g, r[3]), WGROUP_DROP);
	ck_assert_uint_eq(g.flows_cut, 1);
	windowgroup_free(&g);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_refusals)
{
	struct windowgroup g;
	struct windowgroup_ref r = { 0, 0 }, got;

	ck_assert_int_eq(windowgroup_init(&g, WINDOWGROUP_PARTS, "check_windowgroup"), 0);
	/* nothing grouped: no file, nothing to match */
	ck_assert_int_eq(windowgroup_decide(&g, W0, W1), 0);
	ck_assert_int_eq(g.fd, -1);
	ck_assert_uint_eq(g.peak_keys, 0);
	ck_assert_int_eq(windowgroup_verdict(&g, r), -1);
	windowgroup_free(&g);

	ck_assert_int_eq(windowgroup_init(&g, 1, "check_windowgroup"), 0);
	ck_assert_int_eq(windowgroup_add(&g, WGROUP_FLOW, 0, "", 0, 1, 1, &got), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(windowgroup_add(&g, WGROUP_FLOW, 7, NULL, 0, 1, 1, &got), 0);
	ck_assert_uint_eq(got.part, 1);
	ck_assert_uint_eq(got.rank, 0);
	ck_assert_int_eq(windowgroup_decide(&g, W0, W1), 0);
	ck_assert_int_eq(windowgroup_verdict(&g, got), WGROUP_DROP);
	got.rank = 1;   /* beyond the partition's events */
	ck_assert_int_eq(windowgroup_verdict(&g, got), -1);
	ck_assert_int_eq(errno, EINVAL);
	got.part = 2;   /* beyond the partitions */
	got.rank = 0;
	ck_assert_int_eq(windowgroup_verdict(&g, got), -1);
	windowgroup_free(&g);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("windowgroup");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_shapes_one_part);
	tcase_add_test(tc, test_shapes_in_rounds);
	tcase_add_test(tc, test_many_in_rounds);
	tcase_add_test(tc, test_shapes_all_parts);
	tcase_add_test(tc, test_many_one_part);
	tcase_add_test(tc, test_many_all_parts);
	tcase_add_test(tc, test_long_text);
	tcase_add_test(tc, test_refusals);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
