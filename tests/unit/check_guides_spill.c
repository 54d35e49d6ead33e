/* Unit tests for common/guides_spill.c: anchors kept in a spill file and
 * walked as guides with a one-anchor lookahead, against guides_build over
 * the same anchors held in memory (every span, across read blocks, three
 * walks in a row), ts texts in the record and too long for it, the empty
 * spill, a backwards guide's status, a torn record. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guides_spill.h"
#include "../oracle.h"
#include "io.h"

static int spill_fd(void)
{
	const char *dir;
	int fd = io_open_spill("check_guides_spill", &dir);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Anchor i of passes of `layers` layers: 1000.5 us apart, a long ts text
 * every 777th; the last layer of a pass has a terminal kernel when i is
 * even. */
static void anchor(size_t i, size_t layers, struct guides_kept *k, struct guides_anchor *a,
		   char *ts, size_t tsz)
{
	memset(k, 0, sizeof *k);
	k->pass = i / layers;
	k->layer = i % layers;
	k->anchor_index = 3 * i + 1;
	k->ts_ns = 1000500 * (int64_t)i + 7;
	k->has_terminal = (int32_t)(i % 2 == 0);
	k->term_end_ns = k->ts_ns + 400300;
	k->name = (uint32_t)(i % 3);
	k->tid = (uint32_t)(i % 5);
	if (i % 777 == 0)
		snprintf(ts, tsz, "%lld.%03d%060d", (long long)(k->ts_ns / 1000),
			 (int)(k->ts_ns % 1000), 0);
	else
		snprintf(ts, tsz, "%lld.%03d", (long long)(k->ts_ns / 1000), (int)(k->ts_ns % 1000));
	a->layer = (size_t)k->layer;
	a->ts_ns = k->ts_ns;
	a->has_terminal = k->has_terminal;
	a->term_end_ns = k->term_end_ns;
}

START_TEST(test_walks_equal_build)
{
	enum { N = 3 * GUIDES_SPILL_BLOCK + 17, LAYERS = 7 };
	struct guides_spill s;
	struct guides_walk w = { 0 };
	struct guides_anchor *a = malloc(N * sizeof *a);
	struct guides_span *sp = malloc(N * sizeof *sp);
	struct guides_kept k;
	char ts[128];
	size_t i, where = 0;
	int round;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(sp);
	ck_assert_int_eq(guides_spill_init(&s, spill_fd()), 0);
	for (i = 0; i < N; i++) {
		anchor(i, LAYERS, &k, &a[i], ts, sizeof ts);
		ck_assert_int_eq(guides_spill_put(&s, &k, ts), 0);
	}
	ck_assert_int_eq(guides_spill_finish(&s), 0);
	ck_assert_uint_eq(s.n, N);
	ck_assert_uint_gt(s.long_ts.len, 0);
	ck_assert_int_eq(guides_build(a, N, LAYERS, sp, &where), GUIDES_OK);
	for (round = 0; round < 3; round++) {
		ck_assert_int_eq(guides_walk_start(&w, &s), 0);
		for (i = 0; i < N; i++) {
			struct guides_kept want;
			struct guides_anchor unused;
			ck_assert_int_eq(guides_walk_next(&w, LAYERS), 1);
			anchor(i, LAYERS, &want, &unused, ts, sizeof ts);
			ck_assert_uint_eq(w.i, i);
			ck_assert_uint_eq(w.cur.anchor_index, want.anchor_index);
			ck_assert_uint_eq(w.cur.pass, want.pass);
			ck_assert_uint_eq(w.cur.name, want.name);
			ck_assert_uint_eq(w.cur.tid, want.tid);
			ck_assert_str_eq(guides_spill_ts(&s, &w.cur), ts);
			ck_assert_int_eq(w.has_next, i + 1 < N);
			ck_assert_int_eq(w.status, GUIDES_OK);
			ck_assert_int_eq(w.sp.kind, sp[i].kind);
			ck_assert_int_eq(w.sp.start_ns, sp[i].start_ns);
			ck_assert_int_eq(w.sp.end_ns, sp[i].end_ns);
			ck_assert_int_eq(w.sp.start_us, sp[i].start_us);
			ck_assert_int_eq(w.sp.end_us, sp[i].end_us);
		}
		ck_assert_int_eq(guides_walk_next(&w, LAYERS), 0);
		ck_assert_int_eq(guides_walk_next(&w, LAYERS), 0);
	}
	guides_walk_free(&w);
	guides_spill_free(&s);
	free(a);
	free(sp);
}
END_TEST

START_TEST(test_empty)
{
	struct guides_spill s;
	struct guides_walk w = { 0 };

	ck_assert_int_eq(guides_spill_init(&s, spill_fd()), 0);
	ck_assert_int_eq(guides_spill_finish(&s), 0);
	ck_assert_int_eq(guides_walk_start(&w, &s), 0);
	ck_assert_int_eq(guides_walk_next(&w, 3), 0);
	guides_walk_free(&w);
	guides_spill_free(&s);
}
END_TEST

/* Anchor 1 after anchor 2 in time: guide 1 ends before it starts. */
START_TEST(test_backwards)
{
	struct guides_spill s;
	struct guides_walk w = { 0 };
	struct guides_kept k;
	const int64_t ts[3] = { 1000, 5000, 3000 };
	int i;

	ck_assert_int_eq(guides_spill_init(&s, spill_fd()), 0);
	for (i = 0; i < 3; i++) {
		memset(&k, 0, sizeof k);
		k.layer = (uint64_t)i;
		k.ts_ns = ts[i];
		ck_assert_int_eq(guides_spill_put(&s, &k, "1.000"), 0);
	}
	ck_assert_int_eq(guides_spill_finish(&s), 0);
	ck_assert_int_eq(guides_walk_start(&w, &s), 0);
	ck_assert_int_eq(guides_walk_next(&w, 3), 1);
	ck_assert_int_eq(w.status, GUIDES_OK);
	ck_assert_int_eq(guides_walk_next(&w, 3), 1);
	ck_assert_int_eq(w.status, GUIDES_BACKWARDS);
	ck_assert_int_eq(w.sp.end_ns, 3000);
	ck_assert_int_eq(guides_walk_next(&w, 3), 1);  /* the last layer: a point */
	ck_assert_int_eq(w.status, GUIDES_OK);
	ck_assert_int_eq(w.sp.kind, GUIDES_ANCHOR_POINT_ONLY);
	ck_assert_int_eq(guides_walk_next(&w, 3), 0);
	guides_walk_free(&w);
	guides_spill_free(&s);
}
END_TEST

/* A record cut short on disk is an error, not a guide. */
START_TEST(test_torn_record)
{
	struct guides_spill s;
	struct guides_walk w = { 0 };
	struct guides_kept k;

	memset(&k, 0, sizeof k);
	ck_assert_int_eq(guides_spill_init(&s, spill_fd()), 0);
	ck_assert_int_eq(guides_spill_put(&s, &k, "1.000"), 0);
	ck_assert_int_eq(guides_spill_finish(&s), 0);
	ck_assert_int_eq(io_write_all(s.fd, "xyz", 3), 0);
	/* the walk reads a block ahead: the start finds it */
	errno = 0;
	ck_assert_int_eq(guides_walk_start(&w, &s), -1);
	ck_assert_int_eq(errno, EIO);
	guides_walk_free(&w);
	guides_spill_free(&s);
}
END_TEST

static Suite *guides_spill_suite(void)
{
	Suite *s = suite_create("guides_spill");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_walks_equal_build);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_backwards);
	tcase_add_test(tc, test_torn_record);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(guides_spill_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
