/* Unit tests for common/guides/guides_spill.c: anchors kept in a spill file and
 * walked as guides with a one-anchor lookahead, against guides_build over
 * the same anchors held in memory (every span, across read blocks, three
 * walks in a row), ts texts in the record and too long for it, the empty
 * spill, a backwards guide's status, a torn record; tr-guides' refusals
 * worded exactly and the rows it writes. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guides/guides_spill.h"
#include "../../oracle.h"
#include "core/io.h"

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

/* A spill of hand-written anchors: ts texts (us) and layers, one pass of
 * `layers`; anchor i has anchor_index 10 + i, and the last layer a
 * terminal kernel ending at term_end_ns when that is not 0. */
static void spill_of(struct guides_spill *s, const char *const *ts, const int64_t *ns, size_t n,
		     size_t layers, int64_t term_end_ns)
{
	struct guides_kept k;
	size_t i;

	ck_assert_int_eq(guides_spill_init(s, spill_fd()), 0);
	for (i = 0; i < n; i++) {
		memset(&k, 0, sizeof k);
		k.pass = i / layers;
		k.layer = i % layers;
		k.anchor_index = 10 + i;
		k.ts_ns = ns[i];
		k.has_terminal = k.layer + 1 == layers && term_end_ns != 0;
		k.term_end_ns = term_end_ns;
		k.name = (uint32_t)(i % 2);
		k.tid = 0;
		ck_assert_int_eq(guides_spill_put(s, &k, ts[i]), 0);
	}
	ck_assert_int_eq(guides_spill_finish(s), 0);
}

/* tr-guides' refusals, worded exactly: none; two starts in one
 * microsecond (the first pair named, with its ts texts); a backwards guide
 * (told before a same-microsecond pair found earlier), labelled from
 * first_layer. */
START_TEST(test_check_refusals)
{
	static const char *const ok_ts[] = { "10.000", "12.500", "15.000" };
	static const int64_t ok_ns[] = { 10000, 12500, 15000 };
	static const char *const same_ts[] = { "10.0001", "10.0004", "11", "11.2" };
	static const int64_t same_ns[] = { 10000, 10000, 11000, 11200 };
	static const char *const back_ts[] = { "20.1", "20.1004", "30" };
	static const int64_t back_ns[] = { 20100, 20100, 30000 };
	struct guides_spill s;
	struct buf msg = BUF_INIT;

	spill_of(&s, ok_ts, ok_ns, 3, 3, 16000);
	ck_assert_int_eq(guides_spill_check(&s, 3, 0, &msg), 0);
	ck_assert_uint_eq(msg.len, 0);
	guides_spill_free(&s);

	/* 10.0001 and 10.0004 round to 10 us; 11 and 11.2 to 11 us too, but
	 * only the first pair is named */
	spill_of(&s, same_ts, same_ns, 4, 4, 0);
	ck_assert_int_eq(guides_spill_check(&s, 4, 0, &msg), GUIDES_SAME_US);
	ck_assert_str_eq(msg.p, "anchors 10 and 11 start within the same microsecond "
			 "(10.0001 and 10.0004); their guides would overlap in Perfetto");
	guides_spill_free(&s);

	/* the last layer (anchor 12) ends at its terminal kernel, 29 us: before
	 * its start; anchors 10 and 11 share a microsecond as well */
	spill_of(&s, back_ts, back_ns, 3, 3, 29000);
	ck_assert_int_eq(guides_spill_check(&s, 3, 5, &msg), GUIDES_BACKWARDS);
	ck_assert_str_eq(msg.p, "guide L7 would end before it starts");
	guides_spill_free(&s);
	buf_release(&msg);
}
END_TEST

/* The rows tr-guides writes, field by field: each kind of end text. */
START_TEST(test_walk_rows)
{
	static const char *const ts[] = { "1.5", "2.25", "3", "4" };
	static const int64_t ns[] = { 1500, 2250, 3000, 4000 };
	static const char *const names[] = { "\"a\"", "\"b\"" }, *const tids[] = { "7" };
	struct guides_spill s;
	struct guides_walk w = { 0 };
	struct guides_row x;
	struct buf end = BUF_INIT;

	/* two passes of 2: the first ends at its terminal kernel (5.5 us) */
	spill_of(&s, ts, ns, 4, 2, 5500);
	ck_assert_int_eq(guides_walk_start(&w, &s), 0);
	ck_assert_int_eq(guides_walk_next(&w, 2), 1);
	ck_assert_int_eq(guides_walk_row(&w, names, tids, 3, &x, &end), 0);
	ck_assert_uint_eq(x.pass, 0);
	ck_assert_uint_eq(x.layer, 3);
	ck_assert_uint_eq(x.anchor_index, 10);
	ck_assert_str_eq(x.anchor_name, "\"a\"");
	ck_assert_str_eq(x.anchor_tid, "7");
	ck_assert_str_eq(x.start_text, "1.5");
	ck_assert_str_eq(x.end_text, "2.25");
	ck_assert_str_eq(x.kind, "next_layer_anchor");
	ck_assert_int_eq(x.start_ns, 1500);
	ck_assert_int_eq(x.end_ns, 2250);
	ck_assert_int_eq(x.start_us, 2);
	ck_assert_int_eq(x.end_us, 2);
	ck_assert_int_eq(guides_walk_next(&w, 2), 1);
	ck_assert_int_eq(guides_walk_row(&w, names, tids, 3, &x, &end), 0);
	ck_assert_uint_eq(x.layer, 4);
	ck_assert_str_eq(x.anchor_name, "\"b\"");
	ck_assert_str_eq(x.start_text, "2.25");
	ck_assert_str_eq(x.end_text, "5.500");
	ck_assert_str_eq(x.kind, "terminal_kernel_end");
	ck_assert_int_eq(guides_walk_next(&w, 2), 1);
	ck_assert_int_eq(guides_walk_next(&w, 2), 1);
	ck_assert_int_eq(guides_walk_row(&w, names, tids, 0, &x, &end), 0);
	ck_assert_uint_eq(x.pass, 1);
	ck_assert_uint_eq(x.layer, 1);
	ck_assert_str_eq(x.start_text, "4");
	ck_assert_str_eq(x.end_text, "5.500");
	ck_assert_int_eq(guides_walk_next(&w, 2), 0);
	guides_walk_free(&w);
	guides_spill_free(&s);
	buf_release(&end);
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
	tcase_add_test(tc, test_check_refusals);
	tcase_add_test(tc, test_walk_rows);
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
