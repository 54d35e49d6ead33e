/* Unit tests for common/survey/survey.c: passes cut at the largest gaps, the
 * score, interleaving, ProfilerStep agreement, pass spans, families, the
 * exact regex of a name, gathering occurrences and streams, and the
 * ranking (order and ties, rescoring by allies, names twice per layer),
 * the spacing within passes, three times per layer, whole passes, counts
 * per step and the names the text report shows. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey/survey.h"

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

/* A name with a given score and count, for ranking alone: its
 * occurrences 100 ns apart, no split (so it interleaves with nothing). */
static void scored(struct survey_name *s, const char *name, size_t n, double score)
{
	size_t i;

	memset(s, 0, sizeof *s);
	ck_assert_int_eq(survey_name_init(s, 0, name, strlen(name)), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(survey_name_add(s, (int64_t)i * 100, 0, NULL, 0), 0);
	s->score = score;
}

START_TEST(test_rank_order_and_ties)
{
	/* best score first; on equal scores more occurrences first, then by
	 * name (bytes); score 0 is no candidate */
	struct survey_name v[6];
	struct survey_name *p[6];
	struct survey_ranking rk;
	size_t i;

	scored(&v[0], "b", 10, 2);
	scored(&v[1], "z", 12, 2);
	scored(&v[2], "a", 10, 2);
	scored(&v[3], "d", 50, 0);
	scored(&v[4], "e", 1, 3);
	scored(&v[5], "B", 10, 2);
	for (i = 0; i < 6; i++)
		p[i] = &v[i];
	ck_assert_int_eq(survey_rank(&rk, p, 6, 3, 2), 0);
	ck_assert_uint_eq(rk.n, 6);
	ck_assert_ptr_eq(rk.order[0], &v[4]);
	ck_assert_ptr_eq(rk.order[1], &v[1]);
	ck_assert_ptr_eq(rk.order[2], &v[5]);
	ck_assert_ptr_eq(rk.order[3], &v[2]);
	ck_assert_ptr_eq(rk.order[4], &v[0]);
	ck_assert_ptr_eq(rk.order[5], &v[3]);
	ck_assert_uint_eq(rk.ncand, 5);
	ck_assert_uint_eq(rk.listed, 2);
	ck_assert_ptr_eq(rk.top, &v[4]);
	ck_assert_int_eq(rk.any_n, 1);
	/* the input order does not matter */
	survey_ranking_free(&rk);
	for (i = 0; i < 6; i++)
		p[i] = &v[5 - i];
	ck_assert_int_eq(survey_rank(&rk, p, 6, 3, 10), 0);
	ck_assert_ptr_eq(rk.order[2], &v[5]);
	ck_assert_ptr_eq(rk.order[3], &v[2]);
	ck_assert_uint_eq(rk.listed, 5);
	survey_ranking_free(&rk);
	for (i = 0; i < 6; i++)
		survey_name_free(&v[i]);
}
END_TEST

START_TEST(test_rank_none)
{
	/* no name at all; names with score 0 only, none of N occurrences */
	struct survey_name v[2];
	struct survey_name *p[2] = { &v[0], &v[1] };
	struct survey_ranking rk;

	ck_assert_int_eq(survey_rank(&rk, NULL, 0, 3, 10), 0);
	ck_assert_uint_eq(rk.n + rk.ncand + rk.listed, 0);
	ck_assert_ptr_null(rk.top);
	survey_ranking_free(&rk);
	scored(&v[0], "x", 2, 0);
	scored(&v[1], "y", 1, 0);
	ck_assert_int_eq(survey_rank(&rk, p, 2, 3, 10), 0);
	ck_assert_ptr_null(rk.top);
	ck_assert_uint_eq(rk.ncand, 0);
	ck_assert_int_eq(rk.any_n, 0);
	ck_assert_ptr_eq(rk.order[0], &v[0]);
	survey_ranking_free(&rk);
	survey_name_free(&v[0]);
	survey_name_free(&v[1]);
}
END_TEST

START_TEST(test_rank_rescore)
{
	/* x and y confirm each other (each doubled, 6 -> 12); u scores more
	 * (8) but has no ally and falls behind them; z, twice between x's
	 * occurrences, is no candidate whatever its score */
	static const int64_t a[] = { 1000, 1100, 1200, 5000, 5100, 5200 };
	static const int64_t b[] = { 1050, 1150, 1250, 5050, 5150, 5250 };
	static const int64_t c[] = { 1020, 1040, 1120, 1140, 1220, 1240,
				     5020, 5040, 5120, 5140, 5220 };
	static const int64_t d[] = { 9000, 9100, 9200, 9300, 9400, 9500, 9600, 9700 };
	struct survey_name x, y, z, u;
	struct survey_name *p[4] = { &z, &u, &y, &x };
	struct survey_ranking rk;
	size_t i;

	make(&x, a, COUNT(a));
	make(&y, b, COUNT(b));
	make(&z, c, COUNT(c));
	make(&u, d, COUNT(d));
	x.name = "x";
	y.name = "y";
	z.name = "z";
	u.name = "u";
	ck_assert_int_eq(survey_analyse(&x, 3), 0);
	ck_assert_int_eq(survey_analyse(&y, 3), 0);
	ck_assert_int_eq(survey_analyse(&z, 3), 0);
	ck_assert_int_eq(survey_analyse(&u, 3), 0);
	u.score = 8;
	ck_assert(x.score == 6 && y.score == 6);
	ck_assert(z.score > 0);
	ck_assert_int_eq(survey_rank(&rk, p, 4, 3, 10), 0);
	ck_assert_uint_eq(x.confirms, 1);
	ck_assert_uint_eq(y.confirms, 1);
	ck_assert_uint_eq(u.confirms, 0);
	ck_assert(x.score == 12 && y.score == 12 && u.score == 8);
	/* x before y by name; y has x's count and confirms it */
	ck_assert_ptr_eq(rk.top, &x);
	ck_assert_ptr_eq(rk.order[1], &y);
	ck_assert_ptr_eq(rk.order[2], &u);
	ck_assert_ptr_eq(rk.order[3], &z);
	ck_assert_str_eq(y.confirmed_by, "x");
	ck_assert_ptr_null(x.confirmed_by);
	ck_assert_int_eq(z.times_between, 2);
	ck_assert(z.score == 0);
	ck_assert_uint_eq(rk.ncand, 3);
	/* the pass spans of the listed candidates, in half ns, in rank order */
	{
		struct survey_spans sp = { 0 };
		static const int64_t lo[] = { 2000, 10000, 2100, 10100, 18000 };
		static const int64_t hi[] = { 2420, 10420, 2520, 10520, 18420 };
		survey_ranking_free(&rk);
		for (i = 0; i < 4; i++)
			p[i]->confirms = 0;
		x.score = y.score = 6;
		u.score = 8;
		ck_assert_int_eq(survey_rank(&rk, p, 4, 3, 3), 0);
		ck_assert_int_eq(survey_spans_add(&sp, &rk, 3), 0);
		/* u has two passes of 3 and two left over: 9000..9210 */
		ck_assert_uint_eq(sp.n, 6);
		for (i = 0; i < COUNT(lo); i++) {
			ck_assert_int_eq(sp.lo[i], lo[i]);
			ck_assert_int_eq(sp.hi[i], hi[i]);
		}
		ck_assert_uint_eq(x.span0, 0);
		ck_assert_uint_eq(y.span0, 2);
		ck_assert_uint_eq(u.span0, 4);
		survey_spans_free(&sp);
	}
	survey_ranking_free(&rk);
	free(x.occ);
	free(y.occ);
	free(z.occ);
	free(u.occ);
}
END_TEST

START_TEST(test_name_add)
{
	struct survey_name s;
	char tid[8];
	unsigned i;

	memset(&s, 0, sizeof s);
	ck_assert_int_eq(survey_name_init(&s, 4, "k<a>\0x", 6), 0);
	ck_assert_uint_eq(s.group, 4);
	ck_assert_uint_eq(s.name_len, 6);
	ck_assert(memcmp(s.name, "k<a>\0x", 7) == 0);
	ck_assert_str_eq(s.family, "k<...>");
	/* the end saturates; streams by their raw tid text */
	ck_assert_int_eq(survey_name_add(&s, INT64_MAX - 5, 10, "1", 1), 0);
	ck_assert_int_eq(survey_name_add(&s, 100, 7, "\"1\"", 3), 0);
	ck_assert_int_eq(survey_name_add(&s, 200, 0, "1", 1), 0);
	ck_assert_int_eq(survey_name_add(&s, 300, 0, NULL, 0), 0);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_int_eq(s.occ[0].end, INT64_MAX);
	ck_assert_int_eq(s.occ[1].end, 107);
	ck_assert_int_eq(s.occ[2].end, 200);
	ck_assert_uint_eq(s.nstreams, 2);
	/* counted up to 255 streams */
	for (i = 0; i < 300; i++) {
		snprintf(tid, sizeof tid, "%u", i + 10);
		ck_assert_int_eq(survey_name_add(&s, 400 + i, 0, tid, strlen(tid)), 0);
	}
	ck_assert_uint_eq(s.nstreams, 255);
	ck_assert_uint_eq(s.n, 304);
	survey_name_free(&s);
}
END_TEST

/* The spacing is measured within each whole pass, and of those the median
 * is taken: a slow pass beside fast ones is regular. */
START_TEST(test_spacing_within_passes)
{
	/* passes of 3: slow and even, fast and even, fast and uneven (gaps
	 * 100 and 200: cv 1/3); pooled over the passes the gaps vary a lot */
	static const int64_t a[] = { 0, 1000, 2000, 10000, 10100, 10200, 20000, 20100, 20300 };
	/* two uneven passes of three: the median (lower middle) is 1/3 */
	static const int64_t b[] = { 0, 1000, 2000, 10000, 10100, 10300, 20000, 20100, 20300 };
	/* N = 1: every gap (100 and 200) */
	static const int64_t c[] = { 0, 100, 300 };
	struct survey_name x;

	make(&x, a, COUNT(a));
	ck_assert_int_eq(survey_analyse(&x, 3), 0);
	ck_assert_uint_eq(x.sp.passes, 3);
	ck_assert(x.cv == 0);
	free(x.occ);
	make(&x, b, COUNT(b));
	ck_assert_int_eq(survey_analyse(&x, 3), 0);
	ck_assert(x.cv > 0.3333333 && x.cv < 0.3333334);
	/* N = 2: one gap per pass, nothing to vary */
	ck_assert_int_eq(survey_analyse(&x, 2), 0);
	ck_assert(x.cv == 0);
	free(x.occ);
	make(&x, c, COUNT(c));
	ck_assert_int_eq(survey_analyse(&x, 1), 0);
	ck_assert(x.cv > 0.3333333 && x.cv < 0.3333334);
	/* N = 0: sorted only */
	ck_assert_int_eq(survey_analyse(&x, 0), 0);
	free(x.occ);
}
END_TEST

/* Three between each two consecutive anchors inside a pass: 3, not 0. */
START_TEST(test_three_times)
{
	static const int64_t a[] = { 1000, 1100, 1200, 5000, 5100, 5200 };
	static const int64_t c[] = { 1010, 1020, 1030, 1110, 1120, 1130,
				     5010, 5020, 5030, 5110, 5120, 5130 };
	static const int64_t d[] = { 1010, 1020, 1030, 1110, 1120, 5010, 5020, 5030, 5110, 5120,
				     5130 };
	struct survey_name x, z, u;

	make(&x, a, COUNT(a));
	make(&z, c, COUNT(c));
	make(&u, d, COUNT(d));
	ck_assert_int_eq(survey_analyse(&x, 3), 0);
	ck_assert_int_eq(survey_analyse(&z, 3), 0);
	ck_assert_int_eq(survey_analyse(&u, 3), 0);
	ck_assert_int_eq(survey_interleave(&x, &z, 3), 3);
	/* not always the same number: 0 */
	ck_assert_int_eq(survey_interleave(&x, &u, 3), 0);
	free(x.occ);
	free(z.occ);
	free(u.occ);
}
END_TEST

/* Whole passes: a clean split, no step start inside a pass, a multiple of
 * N in every step; an ambiguous split only when confirmed. */
START_TEST(test_passes_whole)
{
	static const int64_t a[] = { 1000, 1100, 1200, 5000, 5100, 5200 };
	static const int64_t w[] = { 0, 100, 200, 300, 400, 500, 600, 700, 800 };
	static const struct survey_step agree[] = { { 0, 3000 }, { 3000, 9000 } };
	static const struct survey_step cut[] = { { 0, 1150 }, { 1150, 9000 } };
	static const struct survey_step at3[] = { { 0, 290 }, { 290, 590 }, { 590, 900 } };
	static const int64_t s[] = { 0, 100, 200, 500, 600, 1100, 1400, 1500, 1600 };
	static const struct survey_step at_s[] = { { 0, 350 }, { 350, 1250 }, { 1250, 1700 } };
	static const struct survey_step late[] = { { 1050, 3000 }, { 3000, 9000 } };
	/* a partial first pass of 2 in the first step with a whole one (the
	 * profile starts mid-forward): 5 and 3 per step, whole all the same */
	static const int64_t h[] = { 500, 600, 1000, 1100, 1200, 5000, 5100, 5200 };
	static const struct survey_step head[] = { { 400, 3000 }, { 3000, 9000 } };
	struct survey_name x, y, z, v;

	make(&x, a, COUNT(a));
	ck_assert_int_eq(survey_analyse(&x, 3), 0);
	ck_assert_int_eq(x.sp.kind, SURVEY_SPLIT_CLEAN);
	ck_assert_int_eq(survey_passes_whole(&x, 3, NULL, 0), 1);
	ck_assert_int_eq(survey_passes_whole(&x, 3, agree, 2), 1);
	ck_assert_uint_eq(survey_per_step(&x, agree, 2), 3);
	/* a step that starts inside the first pass: 2 and 4 per step */
	ck_assert_int_eq(survey_passes_whole(&x, 3, cut, 2), 0);
	ck_assert_uint_eq(survey_per_step(&x, cut, 2), 0);
	/* one step only: nothing to compare */
	ck_assert_uint_eq(survey_per_step(&x, agree, 1), 0);
	/* a step that starts after the first occurrence of a pass */
	ck_assert_int_eq(survey_passes_whole(&x, 3, late, 2), 0);
	ck_assert_uint_eq(survey_per_step(&x, late, 2), 0);
	/* evenly spaced: ambiguous, and never whole, confirmed or not: its
	 * pass boundaries are at the rhythm inside its passes, which
	 * tr-select-anchors refuses as a cut pass */
	make(&y, w, COUNT(w));
	ck_assert_int_eq(survey_analyse(&y, 3), 0);
	ck_assert_int_eq(y.sp.kind, SURVEY_SPLIT_AMBIGUOUS);
	ck_assert_int_eq(survey_passes_whole(&y, 3, NULL, 0), 0);
	ck_assert_int_eq(survey_passes_whole(&y, 3, at3, 3), 0);
	ck_assert_uint_eq(survey_per_step(&y, at3, 3), 3);
	y.clean_partner = 2;
	ck_assert_int_eq(survey_passes_whole(&y, 3, NULL, 0), 0);
	/* ambiguous by one slow layer (a gap inside pass 1 longer than those
	 * between passes): whole once confirmed, by steps at its boundaries
	 * or by a partner, since the rhythm sets the slow gap aside */
	make(&v, s, COUNT(s));
	ck_assert_int_eq(survey_analyse(&v, 3), 0);
	ck_assert_int_eq(v.sp.kind, SURVEY_SPLIT_AMBIGUOUS);
	ck_assert_int_eq(survey_passes_whole(&v, 3, NULL, 0), 0);
	ck_assert_int_eq(survey_passes_whole(&v, 3, at_s, 3), 1);
	v.clean_partner = 2;
	ck_assert_int_eq(survey_passes_whole(&v, 3, NULL, 0), 1);
	free(v.occ);
	make(&z, h, COUNT(h));
	ck_assert_int_eq(survey_analyse(&z, 3), 0);
	ck_assert_int_eq(z.sp.kind, SURVEY_SPLIT_CLEAN);
	ck_assert_uint_eq(z.sp.offset, 2);
	ck_assert_int_eq(survey_passes_whole(&z, 3, head, 2), 1);
	ck_assert_uint_eq(survey_per_step(&z, head, 2), 0);
	free(x.occ);
	free(y.occ);
	free(z.occ);
}
END_TEST

static void short_is(const char *name, const char *want)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(survey_short_name(&b, name, strlen(name)), 0);
	ck_assert_str_eq(b.p, want);
	buf_release(&b);
}

START_TEST(test_short_name)
{
	char plain[101], utf8[80];

	/* up to 72 bytes: whole */
	short_is("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)",
		 "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)");
	short_is("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
		 "at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, "
		 "at::detail::Array<char*, 3>)", "vectorized_elementwise_kernel<...>(...)");
	short_is("void (anonymous namespace)::store_kvcache<2048l, 4, false, long>((anonymous "
		 "namespace)::StoreKVCacheParams)", "store_kvcache<...>(...)");
	short_is("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
		 "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}>"
		 "(at::TensorIteratorBase&)>(int, at::native::foo)", "elementwise_kernel<...>(...)");
	/* mangled: the last identifier of the nested name */
	short_is("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb1ELb0ELb1ELi1EEEvPT0_"
		 "PT_PfS4_S4_S4_diiiiiiib", "add_rmsnorm_quant_kernel<...>(...)");
	short_is("_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4"
		 "siluIS2_ES3_S5_EEEEvPS3_PS4_i", "act_and_mul_kernel<...>(...)");
	short_is("_Z23very_long_kernel_name_xPfS_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S_S",
		 "very_long_kernel_name_x(...)");
	/* a length past the end: not read as mangled, cut */
	short_is("_ZN999aiterxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		 "_ZN999aiterxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...");
	/* anything else: cut at 69 bytes, never inside a UTF-8 sequence */
	memset(plain, 'C', 100);
	plain[100] = '\0';
	short_is(plain, "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC...");
	memset(utf8, 'a', 68);
	strcpy(utf8 + 68, "\xc3\xa9zzzzzzzzz");
	short_is(utf8, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...");
}
END_TEST

static struct member mem(const char *text)
{
	struct member m = { text, text ? strlen(text) : 0 };
	return m;
}

/* ProfilerStep spans from an event's members: only complete events whose
 * name starts "ProfilerStep#"; dur absent or negative as 0, an end past the
 * int64 range saturated; sorted by start, then end. */
START_TEST(test_steps_see)
{
	struct survey_steps st = { 0 };
	struct member m[4];

	m[0] = mem("20"), m[1] = mem("\"X\""), m[2] = mem("\"ProfilerStep#2\""), m[3] = mem("5.5");
	ck_assert_int_eq(survey_steps_see(&st, m), 0);
	m[0] = mem("10"), m[3] = mem("-1");
	ck_assert_int_eq(survey_steps_see(&st, m), 0);
	m[0] = mem("10"), m[3] = mem(NULL);
	ck_assert_int_eq(survey_steps_see(&st, m), 0);
	m[0] = mem("9223372036854775"), m[3] = mem("9223372036854775");
	ck_assert_int_eq(survey_steps_see(&st, m), 0);
	/* not steps: another ph, another name, no ts */
	m[0] = mem("1"), m[1] = mem("\"B\""), m[3] = mem("1");
	ck_assert_int_eq(survey_steps_see(&st, m), 0);
	m[1] = mem("\"X\""), m[2] = mem("\"ProfilerStep\"");
	ck_assert_int_eq(survey_steps_see(&st, m), 0);
	m[0] = mem(NULL), m[2] = mem("\"ProfilerStep#3\"");
	ck_assert_int_eq(survey_steps_see(&st, m), 0);
	ck_assert_uint_eq(st.n, 4);
	survey_steps_sort(&st);
	ck_assert_int_eq(st.v[0].start, 10000);
	ck_assert_int_eq(st.v[0].end, 10000);
	ck_assert_int_eq(st.v[1].start, 10000);
	ck_assert_int_eq(st.v[1].end, 10000);
	ck_assert_int_eq(st.v[2].start, 20000);
	ck_assert_int_eq(st.v[2].end, 25500);
	ck_assert_int_eq(st.v[3].start, INT64_C(9223372036854775000));
	ck_assert_int_eq(st.v[3].end, INT64_MAX);
	survey_steps_free(&st);
	ck_assert_ptr_null(st.v);
	ck_assert_uint_eq(st.n, 0);
}
END_TEST

START_TEST(test_training_name)
{
	struct member m = mem("\"autograd::engine::evaluate_function: MmBackward0\"");

	ck_assert_int_eq(survey_training_name(&m), 1);
	m = mem("\"Optimizer.step#SGD.step\"");
	ck_assert_int_eq(survey_training_name(&m), 1);
	m = mem("\"aten::mm\"");
	ck_assert_int_eq(survey_training_name(&m), 0);
	m = mem("\"x Optimizer.step\"");  /* only at the start of the name */
	ck_assert_int_eq(survey_training_name(&m), 0);
	m = mem(NULL);
	ck_assert_int_eq(survey_training_name(&m), 0);
}
END_TEST

START_TEST(test_group_members)
{
	struct survey_name names[5];
	/* group A: 0 -> 3 -> 4; group B: 1 -> 2 */
	static const size_t next[5] = { 3, 2, SIZE_MAX, 4, SIZE_MAX };
	struct survey_name **members = NULL;
	size_t cap = 0, n;

	memset(names, 0, sizeof names);
	n = survey_group_members(names, 0, next, &members, &cap);
	ck_assert_uint_eq(n, 3);
	ck_assert_ptr_eq(members[0], &names[0]);
	ck_assert_ptr_eq(members[1], &names[3]);
	ck_assert_ptr_eq(members[2], &names[4]);
	n = survey_group_members(names, 1, next, &members, &cap);
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_eq(members[1], &names[2]);
	ck_assert_uint_eq(survey_group_members(names, SIZE_MAX, next, &members, &cap), 0);
	ck_assert_uint_ge(cap, 3);
	free(members);
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
	tcase_add_test(tc, test_steps_see);
	tcase_add_test(tc, test_training_name);
	tcase_add_test(tc, test_group_members);
	tcase_add_test(tc, test_family_and_regex);
	tcase_add_test(tc, test_rank_order_and_ties);
	tcase_add_test(tc, test_rank_none);
	tcase_add_test(tc, test_rank_rescore);
	tcase_add_test(tc, test_name_add);
	tcase_add_test(tc, test_spacing_within_passes);
	tcase_add_test(tc, test_three_times);
	tcase_add_test(tc, test_passes_whole);
	tcase_add_test(tc, test_short_name);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
