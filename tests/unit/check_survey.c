/* Unit tests for common/survey.c: passes cut at the largest gaps, the
 * score, interleaving, ProfilerStep agreement, pass spans, families and
 * the exact regex of a name. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "survey.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A name whose occurrences start at ts[] (ns), each lasting 10 ns. */
static void make(struct survey_name *s, const int64_t *ts, size_t n)
{
	size_t i;

	memset(s, 0, sizeof *s);
	s->occ = malloc(n * sizeof *s->occ);
	for (i = 0; i < n; i++) {
		s->occ[i].ts = ts[i];
		s->occ[i].end = ts[i] + 10;
	}
	s->n = s->cap = n;
	s->nstreams = 1;
}

START_TEST(test_split_clean)
{
	/* a partial first occurrence, then two passes of 3 at gaps of 100
	 * inside and 1000 between */
	static const int64_t ts[] = { 0, 1000, 1100, 1200, 2200, 2300, 2400 };
	struct survey_split sp;
	struct survey_occ o[COUNT(ts)];
	size_t i;

	for (i = 0; i < COUNT(ts); i++)
		o[i] = (struct survey_occ){ ts[i], ts[i] };
	survey_split_passes(o, COUNT(ts), 3, &sp);
	ck_assert_int_eq(sp.kind, SURVEY_SPLIT_CLEAN);
	ck_assert_uint_eq(sp.offset, 1);
	ck_assert_uint_eq(sp.passes, 2);
	ck_assert_uint_eq(sp.partial_last, 0);
	ck_assert_int_eq(sp.min_between, 1000);
	ck_assert_int_eq(sp.max_inside, 100);
}
END_TEST

START_TEST(test_split_ambiguous_and_none)
{
	/* even spacing: no gap tells passes apart */
	static const int64_t even[] = { 0, 100, 200, 300, 400, 500 };
	struct survey_occ o[COUNT(even)];
	struct survey_split sp;
	size_t i;

	for (i = 0; i < COUNT(even); i++)
		o[i] = (struct survey_occ){ even[i], even[i] };
	survey_split_passes(o, COUNT(even), 3, &sp);
	ck_assert_int_eq(sp.kind, SURVEY_SPLIT_AMBIGUOUS);
	ck_assert_uint_eq(sp.offset, 0);
	ck_assert_uint_eq(sp.passes, 2);
	survey_split_passes(o, COUNT(even), 6, &sp);
	ck_assert_int_eq(sp.kind, SURVEY_SPLIT_SINGLE);
	ck_assert_uint_eq(sp.passes, 1);
	ck_assert_int_eq(sp.min_between, -1);
	survey_split_passes(o, COUNT(even), 7, &sp);
	ck_assert_int_eq(sp.kind, SURVEY_SPLIT_NONE);
	ck_assert_uint_eq(sp.passes, 0);
}
END_TEST

START_TEST(test_analyse_and_interleave)
{
	/* anchors once per layer (3 layers, 2 passes, regular); a partner
	 * once between each two of them; a name twice between */
	static const int64_t a[] = { 1000, 1100, 1200, 5000, 5100, 5200 };
	static const int64_t b[] = { 1050, 1150, 1250, 5050, 5150, 5250 };
	static const int64_t c[] = { 1020, 1040, 1120, 1140, 1220, 1240,
				     5020, 5040, 5120, 5140, 5220, 5240 };
	struct survey_name x, y, z;
	int64_t lo, hi;

	make(&x, a, COUNT(a));
	make(&y, b, COUNT(b));
	make(&z, c, COUNT(c));
	ck_assert_int_eq(survey_analyse(&x, 3), 0);
	ck_assert_int_eq(survey_analyse(&y, 3), 0);
	ck_assert_int_eq(survey_analyse(&z, 3), 0);
	ck_assert_int_eq(x.sp.kind, SURVEY_SPLIT_CLEAN);
	ck_assert_uint_eq(x.sp.passes, 2);
	/* regular spacing: cv 0, score = passes x N */
	ck_assert(x.cv == 0);
	ck_assert(x.score == 6.0);
	ck_assert_int_eq(survey_interleave(&x, &y, 3), 1);
	ck_assert_int_eq(survey_interleave(&x, &z, 3), 2);
	ck_assert_int_eq(survey_interleave(&y, &z, 3), 2);
	/* one occurrence in the first layer only: no pattern */
	{
		static const int64_t once[] = { 1010 };
		struct survey_name w;
		make(&w, once, 1);
		ck_assert_int_eq(survey_interleave(&x, &w, 3), 0);
		free(w.occ);
	}
	survey_pass_span(&x, 3, 1, &lo, &hi);
	ck_assert_int_eq(lo, 5000);
	ck_assert_int_eq(hi, 5210);
	/* y's passes each lie inside one of x's? no: they end later */
	ck_assert_uint_eq(survey_passes_inside(&y, &x, 3), 0);
	ck_assert_uint_eq(survey_passes_inside(&x, &x, 3), 1);
	free(x.occ);
	free(y.occ);
	free(z.occ);
}
END_TEST

START_TEST(test_steps)
{
	static const int64_t a[] = { 1000, 1100, 1200, 5000, 5100, 5200 };
	/* one step at the start of each pass, one inside pass 1 */
	static const struct survey_step steps[] = { { 900, 4900 }, { 4950, 9000 },
						    { 5150, 9000 } };
	struct survey_name x;
	size_t on, inside;

	make(&x, a, COUNT(a));
	ck_assert_int_eq(survey_analyse(&x, 3), 0);
	survey_steps_vs_passes(steps, 3, &x, 3, &on, &inside);
	ck_assert_uint_eq(on, 2);
	ck_assert_uint_eq(inside, 1);
	survey_steps_vs_passes(steps, 1, &x, 3, &on, &inside);
	ck_assert_uint_eq(on + inside, 0);
	free(x.occ);
}
END_TEST

START_TEST(test_family_and_regex)
{
	struct buf b = BUF_INIT;
	char *f = survey_family("void f<int, g<x>>(a)");

	ck_assert_str_eq(f, "void f<...>(a)");
	free(f);
	f = survey_family("<x>");
	ck_assert_str_eq(f, "<...>");
	free(f);
	ck_assert_int_eq(survey_exact_regex(&b, "a.b(c)", 6), 1);
	ck_assert_str_eq(b.p, "^a\\.b\\(c\\)$");
	buf_reset(&b);
	ck_assert_int_eq(survey_exact_regex(&b, "a\0b", 3), 1);
	ck_assert_str_eq(b.p, "^a\\x00b$");
	buf_reset(&b);
	/* a byte that is not UTF-8: the longest valid run, anchored at the
	 * end it touches */
	ck_assert_int_eq(survey_exact_regex(&b, "ab\xff" "cde", 6), 0);
	ck_assert_str_eq(b.p, "cde$");
	buf_release(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("survey");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_split_clean);
	tcase_add_test(tc, test_split_ambiguous_and_none);
	tcase_add_test(tc, test_analyse_and_interleave);
	tcase_add_test(tc, test_steps);
	tcase_add_test(tc, test_family_and_regex);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
