/* Unit tests for common/survey/survey_report.c: the exact text and --json bytes of
 * small hand-built surveys (a group with an ambiguous anchor and its clean
 * partner, one with more passes than the text lists, one without
 * candidates), every warning, the reasons a candidate is weaker evidence,
 * where the filtered-out kernels are, the shell quoting of odd names, the
 * counts per step without --num-layers, the family warning of a training
 * trace, three times per layer and a group without a starting command. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "survey/survey_report.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Up to eight names of one group, ranked, with their pass bytes. */
struct fixture {
	struct survey_name names[8];
	struct survey_name *ptrs[8];
	size_t n;
	struct survey_ranking rk;
	struct survey_spans spans;
	struct window_tally tally;
	struct survey_report r;
};

/* A name of len bytes whose occurrences start at ts[] (ns), each lasting
 * dur, occurrence i on the stream whose tid is tids[i] (NULL: all on "7");
 * analysed for passes of N. */
static struct survey_name *add_on(struct fixture *f, const char *name, size_t len,
				  const int64_t *ts, size_t n, int64_t dur, size_t N,
				  const char *tids)
{
	struct survey_name *s = &f->names[f->n];
	size_t i;

	memset(s, 0, sizeof *s);
	ck_assert_int_eq(survey_name_init(s, 0, name, len), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(survey_name_add(s, ts[i], dur, tids ? tids + i : "7", 1), 0);
	ck_assert_int_eq(survey_analyse(s, N), 0);
	f->ptrs[f->n++] = s;
	return s;
}

static struct survey_name *add(struct fixture *f, const char *name, size_t len,
			       const int64_t *ts, size_t n, int64_t dur, size_t N)
{
	return add_on(f, name, len, ts, n, dur, N, NULL);
}

/* Rank the names, then tally the bytes of events [lo[i], hi[i]] (ns) of
 * bytes[i] bytes against the listed candidates' passes. */
static void rank(struct fixture *f, size_t N, size_t top_k, const int64_t (*ev)[3], size_t nev)
{
	size_t i;

	ck_assert_int_eq(survey_rank(&f->rk, f->ptrs, f->n, N, top_k), 0);
	survey_rank_start(&f->rk, N, NULL, 0);
	memset(&f->spans, 0, sizeof f->spans);
	ck_assert_int_eq(survey_spans_add(&f->spans, &f->rk, N), 0);
	ck_assert_int_eq(window_tally_init(&f->tally, f->spans.lo, f->spans.hi, f->spans.n), 0);
	for (i = 0; i < nev; i++)
		window_tally_add(&f->tally, window_half(ev[i][0]), window_half(ev[i][1]),
				 (uint64_t)ev[i][2]);
	memset(&f->r, 0, sizeof f->r);
	f->r.N = N;
	f->r.top_k = top_k;
	f->r.have_origin = 1;
	f->r.tally = &f->tally;
}

static void done(struct fixture *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		survey_name_free(&f->names[i]);
	survey_ranking_free(&f->rk);
	window_tally_free(&f->tally);
	survey_spans_free(&f->spans);
}

static const char pair_name[] = "it's a.b<int>";

/* Passes of 3: an anchor evenly spaced (its passes rest on the count: an
 * ambiguous split) and y, once inside each of its gaps within a pass, in
 * passes split cleanly; three ProfilerSteps, each starting at a pass
 * boundary; the trace starts 1 us before the first kernel.  The anchor's
 * passes are confirmed by y and by the steps, yet not whole: its pass
 * boundaries are at its own rhythm, which tr-select-anchors refuses, so
 * the starting command is y's. */
static void pair(struct fixture *f, size_t top_k)
{
	static const int64_t w[] = { 0, 100, 200, 300, 400, 500, 600, 700, 800 };
	static const int64_t y[] = { 95, 105, 200, 395, 405, 500, 695, 705, 800 };
	static const struct survey_step steps[] = { { 0, 290 }, { 290, 590 }, { 590, 900 } };
	/* [lo, hi] ns, bytes: one over everything, one in the first passes,
	 * one between passes, one at the end of the second passes */
	static const int64_t ev[][3] = { { 0, 1000, 10 }, { 205, 206, 5 }, { 250, 260, 7 },
					 { 505, 505, 3 } };

	memset(f, 0, sizeof *f);
	add(f, pair_name, strlen(pair_name), w, COUNT(w), 10, 3);
	add(f, "y", 1, y, COUNT(y), 10, 3);
	rank(f, 3, top_k, ev, COUNT(ev));
	f->r.steps = steps;
	f->r.nsteps = COUNT(steps);
	f->r.origin_ns = -1000;
	survey_rank_start(&f->rk, 3, steps, COUNT(steps));
}

START_TEST(test_pair_text)
{
	static const char want[] =
		"== pid 7, device 0: 2 kernel names\n"
		"anchor candidates (3 or more occurrences, cut into passes of 3):\n"
		"  1. 9 x (9 / 3 layers = 3.00), 3 passes of 3, split ambiguous, spacing cv 0.00, "
		"1 stream; --anchor-offset 0 --passes 3\n"
		"     it's a.b<int>\n"
		"     (1 other candidate interleave one-to-one with it)\n"
		"     passes (ms from the trace start, bytes of the events in each): "
		"0.001000-0.001210 (15 bytes), 0.001300-0.001510 (13 bytes), "
		"0.001600-0.001810 (10 bytes)\n"
		"     per ProfilerStep (3 steps): 3 x 3\n"
		"     weaker evidence: its passes are not separated by gaps larger than those "
		"inside them\n"
		"  2. 9 x (9 / 3 layers = 3.00), 3 passes of 3, split at larger gaps, spacing cv 0.81, "
		"1 stream; --anchor-offset 0 --passes 3\n"
		"     y\n"
		"     passes (ms from the trace start, bytes of the events in each): "
		"0.001095-0.001210 (15 bytes), 0.001395-0.001510 (13 bytes), "
		"0.001695-0.001810 (10 bytes)\n"
		"     per ProfilerStep (3 steps): 3 x 3\n"
		"     weaker evidence: irregular spacing inside passes (cv 0.81); no other candidate "
		"interleaves one-to-one with it\n"
		"warnings:\n"
		"passes ambiguous: a gap inside a pass (0.000100 ms) is not smaller than the smallest "
		"gap between passes (0.000100 ms); 3 passes of exactly 3 assumed, as candidate 2 "
		"(one-to-one, split cleanly) shows: it's a.b<int>\n"
		"starting point, candidate 2 (verify L0 yourself before publishing):\n"
		"  tr-layer-track --trace TRACE --output OUT --anchor-regex '^y$' "
		"--num-layers 3 --anchor-offset 0 --passes 3 --pid 7 --phase PHASE "
		"--evidence 'WHY L0 IS L0'\n";
	struct fixture f;
	struct buf out = BUF_INIT;

	pair(&f, 10);
	/* the ranking behind it: y confirms the anchor (doubling its score),
	 * the anchor confirms y by name, y is the anchor's clean partner */
	ck_assert_ptr_eq(f.rk.top, &f.names[0]);
	ck_assert_uint_eq(f.rk.ncand, 2);
	ck_assert_uint_eq(f.rk.listed, 2);
	ck_assert_uint_eq(f.names[0].confirms, 1);
	ck_assert_uint_eq(f.names[1].confirms, 0);
	ck_assert(f.names[0].score == 2 * 9 * 0.25);
	ck_assert_str_eq(f.names[1].confirmed_by, pair_name);
	ck_assert_uint_eq(f.names[0].clean_partner, 2);
	ck_assert_uint_eq(f.names[1].span0, 3);
	ck_assert_int_eq(survey_report_head(&f.r, &out), 0);
	ck_assert_uint_eq(out.len, 0);
	ck_assert_int_eq(survey_report_group(&f.r, "7\0010", &f.rk, 1, &out), 0);
	ck_assert_str_eq(out.p, want);
	buf_release(&out);
	done(&f);
}
END_TEST

START_TEST(test_pair_json)
{
	static const char want[] =
		"{\"num_layers\":3,\"trace_origin_us\":-1.000,\"profiler_steps\":3,\"groups\":["
		"{\"pid\":7,\"device\":0,\"candidates\":["
		"{\"name\":\"it's a.b<int>\",\"count\":9,\"per_layer\":3.000,\"passes\":3,"
		"\"anchor_offset\":0,\"partial_first\":0,\"partial_last\":0,\"split\":\"ambiguous\","
		"\"min_gap_between_ms\":0.000100,\"max_gap_inside_ms\":0.000100,\"streams\":1,"
		"\"spacing_cv\":0.000,\"score\":4.500,\"confirms\":1,\"whole_passes\":false,"
		"\"confirmed_by\":null,"
		"\"pass_spans_ms\":[[0.001000,0.001210],[0.001300,0.001510],[0.001600,0.001810]],"
		"\"pass_bytes\":[15,13,10],\"per_step\":{\"before_first\":0,\"counts\":[3,3,3]},"
		"\"weaker\":[\"its passes are not separated by gaps larger than those inside them\"]}"
		"],\"more_candidates\":1,\"warnings\":[\"passes ambiguous: a gap inside a pass "
		"(0.000100 ms) is not smaller than the smallest gap between passes (0.000100 ms); "
		"3 passes of exactly 3 assumed, as candidate 2 (one-to-one, split cleanly) shows: "
		"it's a.b<int>\"],\"command\":null,\"command_candidate\":null,"
		"\"command_note\":\"no starting command: no listed candidate has whole passes of 3 "
		"(split at gaps larger than those inside them, no ProfilerStep starting inside one); "
		"the trace may not run 3 layers per pass\",\"landmarks\":[]}"
		"],\"kernels_elsewhere\":[{\"pid\":8,\"device\":null,\"kernels\":12}]}\n";
	static char *const keys[] = { "8\001null" };
	static const uint64_t kernels[] = { 12 };
	struct survey_elsewhere e = { keys, kernels, 1, "7", NULL };
	struct fixture f;
	struct buf out = BUF_INIT;

	/* --top 1: y is not listed, but it is a landmark */
	pair(&f, 1);
	f.r.json = 1;
	ck_assert_int_eq(survey_report_head(&f.r, &out), 0);
	ck_assert_int_eq(survey_report_group(&f.r, "7\0010", &f.rk, 1, &out), 0);
	ck_assert_int_eq(survey_report_tail(&f.r, 1, &e, &out), 0);
	ck_assert_str_eq(out.p, want);
	/* a later group: a comma before it */
	buf_reset(&out);
	ck_assert_int_eq(survey_report_group(&f.r, "7\0010", &f.rk, 0, &out), 0);
	ck_assert(strncmp(out.p, ",{\"pid\":7,", 9) == 0);
	buf_release(&out);
	done(&f);
}
END_TEST

/* --num-layers 1, ten occurrences: ten passes, eight in the text; no
 * ProfilerSteps, no ally needed when there is one candidate. */
START_TEST(test_many_passes)
{
	static const int64_t ts[] = { 0, 100, 200, 300, 400, 500, 600, 700, 800, 900 };
	static const char want_text[] =
		"== pid 7, device \"cuda:0\": 1 kernel names\n"
		"anchor candidates (--num-layers 1: each occurrence is a pass of its own):\n"
		"  1. 10 x (10 / 1 layer = 10.00), 10 passes of 1, split at larger gaps, spacing cv 0.00, "
		"1 stream; --anchor-offset 0 --passes 10\n"
		"     k\n"
		"     passes (ms from the trace start, bytes of the events in each): "
		"0.000000-0.000000 (2 bytes), 0.000100-0.000100 (0 bytes), "
		"0.000200-0.000200 (0 bytes), 0.000300-0.000300 (0 bytes), "
		"0.000400-0.000400 (0 bytes), 0.000500-0.000500 (0 bytes), "
		"0.000600-0.000600 (0 bytes), 0.000700-0.000700 (0 bytes) "
		"and 2 more (--json lists all)\n"
		"starting point, candidate 1 (verify L0 yourself before publishing):\n"
		"  tr-layer-track --trace TRACE --output OUT --anchor-regex '^k$' --num-layers 1 "
		"--anchor-offset 0 --passes 10 --pid 7 --phase PHASE --evidence 'WHY L0 IS L0'\n";
	static const char want_json[] =
		"{\"pid\":7,\"device\":\"cuda:0\",\"candidates\":[{\"name\":\"k\",\"count\":10,"
		"\"per_layer\":10.000,\"passes\":10,\"anchor_offset\":0,\"partial_first\":0,"
		"\"partial_last\":0,\"split\":\"clean\",\"min_gap_between_ms\":0.000100,"
		"\"max_gap_inside_ms\":null,\"streams\":1,\"spacing_cv\":0.000,\"score\":10.000,"
		"\"confirms\":0,\"whole_passes\":true,\"confirmed_by\":null,"
		"\"pass_spans_ms\":[[0.000000,0.000000],"
		"[0.000100,0.000100],[0.000200,0.000200],[0.000300,0.000300],[0.000400,0.000400],"
		"[0.000500,0.000500],[0.000600,0.000600],[0.000700,0.000700],[0.000800,0.000800],"
		"[0.000900,0.000900]],\"pass_bytes\":[2,0,0,0,0,0,0,0,0,0],\"per_step\":null,"
		"\"weaker\":[]}],\"more_candidates\":0,\"warnings\":[],\"command\":"
		"\"tr-layer-track --trace TRACE --output OUT --anchor-regex '^k$' --num-layers 1 "
		"--anchor-offset 0 --passes 10 --pid 7 --phase PHASE --evidence 'WHY L0 IS L0'\","
		"\"command_candidate\":1,\"command_note\":null,\"landmarks\":[]}";
	static const int64_t ev[][3] = { { 0, 0, 2 } };
	struct fixture f;
	struct buf out = BUF_INIT;

	memset(&f, 0, sizeof f);
	add(&f, "k", 1, ts, COUNT(ts), 0, 1);
	rank(&f, 1, 10, ev, COUNT(ev));
	ck_assert_int_eq(survey_report_group(&f.r, "7\001\"cuda:0\"", &f.rk, 1, &out), 0);
	ck_assert_str_eq(out.p, want_text);
	buf_reset(&out);
	f.r.json = 1;
	ck_assert_int_eq(survey_report_group(&f.r, "7\001\"cuda:0\"", &f.rk, 1, &out), 0);
	ck_assert_str_eq(out.p, want_json);
	buf_release(&out);
	done(&f);
}
END_TEST

/* No candidate: too few occurrences, or every name with enough runs twice
 * per layer (its count 2N x p, its passes of 2N split cleanly). */
START_TEST(test_no_candidate)
{
	static const int64_t few[] = { 0, 100 };
	static const int64_t twice[] = { 0, 10, 20, 30, 1000, 1010, 1020, 1030 };
	struct fixture f;
	struct buf out = BUF_INIT;

	memset(&f, 0, sizeof f);
	add(&f, "few", 3, few, COUNT(few), 0, 3);
	rank(&f, 3, 10, NULL, 0);
	ck_assert_ptr_null(f.rk.top);
	ck_assert_int_eq(f.rk.any_n, 0);
	ck_assert_int_eq(survey_report_group(&f.r, "1\001null", &f.rk, 1, &out), 0);
	ck_assert_str_eq(out.p, "== pid 1, device null: 1 kernel names\n"
		"anchor candidates (3 or more occurrences, cut into passes of 3):\n"
		"  none: no kernel occurs 3 times or more\n");
	buf_reset(&out);
	f.r.json = 1;
	ck_assert_int_eq(survey_report_group(&f.r, "1\001null", &f.rk, 1, &out), 0);
	ck_assert_str_eq(out.p, "{\"pid\":1,\"device\":null,\"candidates\":[],\"more_candidates\":0,"
			 "\"warnings\":[],\"command\":null,\"command_candidate\":null,\"command_note\":null,\"landmarks\":[]}");
	done(&f);

	buf_reset(&out);
	memset(&f, 0, sizeof f);
	add(&f, "twice", 5, twice, COUNT(twice), 0, 2);
	rank(&f, 2, 10, NULL, 0);
	ck_assert_int_eq(f.names[0].times_by_count, 2);
	ck_assert_ptr_null(f.rk.top);
	ck_assert_int_eq(survey_report_group(&f.r, "1\001null", &f.rk, 1, &out), 0);
	ck_assert_str_eq(out.p, "== pid 1, device null: 1 kernel names\n"
		"anchor candidates (2 or more occurrences, cut into passes of 2):\n"
		"  none: every kernel that occurs 2 times or more runs more than once per layer (see "
		"the warnings)\n"
		"warnings:\n"
		"twice per layer (8 = 2 x 2 x 2; its gaps fit passes of 4, not passes of 2): twice\n");
	buf_release(&out);
	done(&f);
}
END_TEST

/* Every warning: partial passes, several streams, twice per layer (between
 * the anchor's occurrences, and by count), one family in runs of two
 * lengths, a name that is not UTF-8; and more candidates than --top. */
START_TEST(test_warnings)
{
	/* a partial first and last pass around three clean ones, the last
	 * occurrence on a second stream */
	static const int64_t top[] = { 0, 1000, 1100, 1200, 2000, 2100, 2200, 3000, 3100, 3200,
				       4000 };
	/* twice between the top's occurrences inside its passes */
	static const int64_t twice[] = { 1010, 1020, 1110, 1120, 2010, 2020, 2110, 2120, 3010, 3020,
					 3110, 3120, 5000 };
	/* far away from the rest: runs of 3 and runs of 4 */
	static const int64_t f3[] = { 10000, 10010, 10020, 20000, 20010, 20020 };
	static const int64_t f4[] = { 30000, 30010, 30020, 30030, 40000, 40010, 40020, 40030 };
	static const char want[] =
		"warnings:\n"
		"twice per layer (2 between consecutive occurrences of candidate 1; "
		"13 = 2 x 3 x 2 + 1): twice\n"
		"11 is not a multiple of 3 (11 = 3 x 3 + 2: a partial first pass of 1, a partial "
		"last pass of 1): a\xff\n"
		"runs on 2 streams: a\xff\n"
		"one family, runs of 3 and 4 (draft and target passes?): anchor the regex on the "
		"template arguments: f<...>\n"
		"the name holds bytes that are not UTF-8, which no regex matches; the command's regex "
		"covers its longest valid part, so check that it matches this kernel only: a\xff\n"
		"starting point, candidate 1 (verify L0 yourself before publishing):\n"
		"  tr-layer-track --trace TRACE --output OUT --anchor-regex '^a' --num-layers 3 "
		"--anchor-offset 1 --passes 3 --pid 3 --phase PHASE --evidence 'WHY L0 IS L0'\n";
	struct fixture f;
	struct survey_name *a, *b, *c, *d;
	struct buf out = BUF_INIT;
	const char *w;

	memset(&f, 0, sizeof f);
	a = add_on(&f, "a\xff", 2, top, COUNT(top), 0, 3, "77777777778");
	ck_assert_uint_eq(a->nstreams, 2);
	b = add(&f, "twice", 5, twice, COUNT(twice), 0, 3);
	c = add(&f, "f<int>", 6, f3, COUNT(f3), 0, 3);
	d = add(&f, "f<float>", 8, f4, COUNT(f4), 0, 3);
	ck_assert_uint_eq(c->len_a, 3);
	ck_assert_uint_eq(d->len_a, 4);
	rank(&f, 3, 1, NULL, 0);
	ck_assert_ptr_eq(f.rk.top, a);
	ck_assert_int_eq(b->times_between, 2);
	ck_assert(b->score == 0);
	ck_assert(d->score > 0);
	ck_assert_uint_eq(f.rk.ncand, 3);
	ck_assert_uint_eq(f.rk.listed, 1);
	ck_assert_int_eq(survey_report_group(&f.r, "3\0010", &f.rk, 1, &out), 0);
	w = strstr(out.p, "  2 more candidates: --top 3 lists them\nwarnings:\n");
	ck_assert_ptr_nonnull(w);
	ck_assert_str_eq(strchr(w, '\n') + 1, want);
	buf_release(&out);
	done(&f);
}
END_TEST

/* Each reason a candidate is weaker evidence, against a top candidate. */
START_TEST(test_reasons)
{
	/* top: two clean passes of 2, regular */
	static const int64_t top[] = { 0, 100, 1000, 1100 };
	/* three clean passes of 2 (more than the top), two inside its first
	 * pass; irregular inside its passes; a partial last pass; a
	 * ProfilerStep starts inside its third pass */
	static const int64_t many[] = { 10, 20, 60, 80, 2000, 2005, 5000 };
	/* one pass of 2 (fewer), on two streams */
	static const int64_t fewer[] = { 3000, 3100 };
	static const struct survey_step steps[] = { { 0, 2003 }, { 2003, 6000 } };
	struct fixture f;
	struct survey_name *t, *m, *w;
	struct buf out = BUF_INIT;

	memset(&f, 0, sizeof f);
	t = add(&f, "top", 3, top, COUNT(top), 0, 2);
	m = add(&f, "many", 4, many, COUNT(many), 0, 2);
	w = add_on(&f, "fewer", 5, fewer, COUNT(fewer), 0, 2, "79");
	rank(&f, 2, 10, NULL, 0);
	f.r.steps = steps;
	f.r.nsteps = COUNT(steps);
	/* the reasons weigh a name against candidate 1, here t (many, cut
	 * into passes of 2 with one gap each, has no spacing to call
	 * irregular and ranks first on its own) */
	f.rk.top = t;
	ck_assert_int_eq(survey_report_reasons(&f.r, t, &f.rk, &out), 0);
	ck_assert_str_eq(out.p, "no other candidate interleaves one-to-one with it\n");
	buf_reset(&out);
	ck_assert_int_eq(survey_report_reasons(&f.r, m, &f.rk, &out), 0);
	ck_assert_str_eq(out.p, "no other candidate interleaves one-to-one with it\n"
			 "2 of its passes lie inside one pass of candidate 1 (several per layer?)\n"
			 "1 ProfilerStep start falls inside its passes\n"
			 "partial passes (7 is not a multiple of 2)\n");
	buf_reset(&out);
	ck_assert_int_eq(survey_report_reasons(&f.r, w, &f.rk, &out), 0);
	ck_assert_str_eq(out.p, "no other candidate interleaves one-to-one with it\n"
			 "fewer complete passes (1) than candidate 1 (2)\n"
			 "runs on 2 streams\n");
	buf_release(&out);
	done(&f);
}
END_TEST

START_TEST(test_elsewhere)
{
	static char *const one[] = { "0\001null" };
	static const uint64_t one_n[] = { 1 };
	char *many[22];
	uint64_t many_n[22];
	char text[22][16];
	struct survey_report r = { 0 };
	struct survey_elsewhere e = { one, one_n, 1, "5", "1" };
	struct buf out = BUF_INIT;
	size_t i;

	r.N = 2;
	ck_assert_int_eq(survey_report_tail(&r, 0, &e, &out), 0);
	ck_assert_str_eq(out.p, "no GPU kernels in pid 5 on device 1; kernels are in:\n"
			 "  pid 0, device null: 1 kernel\n");
	/* a group matched: nothing */
	buf_reset(&out);
	ck_assert_int_eq(survey_report_tail(&r, 1, &e, &out), 0);
	ck_assert_uint_eq(out.len, 0);
	buf_reset(&out);
	e.n = 0;
	ck_assert_int_eq(survey_report_tail(&r, 0, &e, &out), 0);
	ck_assert_str_eq(out.p, "no GPU kernels in the stream\n");
	buf_reset(&out);
	r.json = 1;
	ck_assert_int_eq(survey_report_tail(&r, 0, &e, &out), 0);
	ck_assert_str_eq(out.p, "],\"kernels_elsewhere\":[]}\n");
	/* twenty pairs at most in the text */
	for (i = 0; i < 22; i++) {
		snprintf(text[i], sizeof text[i], "%zu\001%zu", i, i % 2);
		many[i] = text[i];
		many_n[i] = i + 2;
	}
	e = (struct survey_elsewhere){ many, many_n, 22, NULL, "\"x\"" };
	r.json = 0;
	buf_reset(&out);
	ck_assert_int_eq(survey_report_tail(&r, 0, &e, &out), 0);
	ck_assert(strncmp(out.p, "no GPU kernels on device \"x\"; kernels are in:\n"
			  "  pid 0, device 0: 2 kernels\n  pid 1, device 1: 3 kernels\n", 101) == 0);
	ck_assert_str_eq(strstr(out.p, "  pid 19,"), "  pid 19, device 1: 21 kernels\n"
			 "  and 2 more pid and device pairs\n");
	buf_release(&out);
}
END_TEST

START_TEST(test_head)
{
	struct survey_report r = { 0 };
	struct buf out = BUF_INIT;

	r.N = 36;
	r.json = 1;
	ck_assert_int_eq(survey_report_head(&r, &out), 0);
	ck_assert_str_eq(out.p, "{\"num_layers\":36,\"trace_origin_us\":null,\"profiler_steps\":0,"
			 "\"groups\":[");
	buf_reset(&out);
	r.have_origin = 1;
	r.origin_ns = 1234567;
	r.nsteps = 4;
	ck_assert_int_eq(survey_report_head(&r, &out), 0);
	ck_assert_str_eq(out.p, "{\"num_layers\":36,\"trace_origin_us\":1234.567,"
			 "\"profiler_steps\":4,\"groups\":[");
	buf_release(&out);
}
END_TEST

START_TEST(test_shell_quote)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "''" },
		{ "plain", "'plain'" },
		{ "it's", "'it'\\''s'" },
		{ "''", "''\\'''\\'''" },
		{ "$(rm -rf /) `x` \\ \"q\" *", "'$(rm -rf /) `x` \\ \"q\" *'" },
		{ "tab\there\nnl", "'tab\there\nnl'" },
		{ "\xff\xfe", "'\xff\xfe'" },
	};
	struct buf out = BUF_INIT;
	size_t i;

	for (i = 0; i < COUNT(cases); i++) {
		buf_reset(&out);
		ck_assert_int_eq(survey_report_shell_quote(&out, cases[i].in), 0);
		ck_assert_str_eq(out.p, cases[i].out);
	}
	buf_release(&out);
}
END_TEST

/* Without --num-layers: the names by their count per ProfilerStep, or in
 * the whole trace without steps. */
START_TEST(test_counts)
{
	static const int64_t a[] = { 10, 20, 30, 1010, 1020, 1030 };
	static const int64_t b[] = { 15, 25, 35, 1015, 1025, 1035 };
	static const int64_t c[] = { 40, 1040, 1050 };
	static const int64_t d[] = { 50, 1050 };
	static const int64_t e[] = { 5 };
	static const struct survey_step steps[] = { { 8, 1000 }, { 1000, 2000 } };
	static const char tail[] = "a once-per-layer kernel occurs the number of layers times per "
		"pass: give that number as --num-layers N for anchor candidates, their passes and a "
		"starting command\n";
	struct fixture f;
	struct buf out = BUF_INIT, want = BUF_INIT;

	memset(&f, 0, sizeof f);
	add(&f, "e", 1, e, COUNT(e), 0, 0);
	add(&f, "d", 1, d, COUNT(d), 0, 0);
	add(&f, "c", 1, c, COUNT(c), 0, 0);
	add(&f, "b", 1, b, COUNT(b), 0, 0);
	add(&f, "a", 1, a, COUNT(a), 0, 0);
	f.r.top_k = 10;
	f.r.steps = steps;
	f.r.nsteps = COUNT(steps);
	ck_assert_int_eq(survey_report_counts(&f.r, "7\0010", f.ptrs, f.n, 1, &out), 0);
	buf_printf(&want, "== pid 7, device 0: 5 kernel names\n"
		   "counts per ProfilerStep (2 steps; the names with the same count in every "
		   "step, most shared count first, 1 last):\n"
		   "  3 per step: 2 names: a, b\n"
		   "  1 per step: 1 name: d\n%s", tail);
	ck_assert_str_eq(out.p, want.p);
	buf_reset(&out);
	buf_reset(&want);
	f.r.top_k = 1;
	ck_assert_int_eq(survey_report_counts(&f.r, "7\0010", f.ptrs, f.n, 1, &out), 0);
	buf_printf(&want, "== pid 7, device 0: 5 kernel names\n"
		   "counts per ProfilerStep (2 steps; the names with the same count in every "
		   "step, most shared count first, 1 last):\n"
		   "  3 per step: 2 names: a, b\n"
		   "  1 more count: --top 2 lists it\n%s", tail);
	ck_assert_str_eq(out.p, want.p);
	buf_reset(&out);
	f.r.json = 1;
	ck_assert_int_eq(survey_report_counts(&f.r, "7\0010", f.ptrs, f.n, 0, &out), 0);
	ck_assert_str_eq(out.p, ",{\"pid\":7,\"device\":0,\"per\":\"step\",\"counts\":["
			 "{\"count\":3,\"names\":[\"a\",\"b\"]}],\"more_counts\":1}");
	/* no steps: the whole trace is one pass; 1 comes last */
	buf_reset(&out);
	f.r.top_k = 10;
	f.r.nsteps = 0;
	ck_assert_int_eq(survey_report_counts(&f.r, "7\0010", f.ptrs, f.n, 1, &out), 0);
	ck_assert_str_eq(out.p, "{\"pid\":7,\"device\":0,\"per\":\"trace\",\"counts\":["
			 "{\"count\":6,\"names\":[\"a\",\"b\"]},{\"count\":2,\"names\":[\"d\"]},"
			 "{\"count\":3,\"names\":[\"c\"]},{\"count\":1,\"names\":[\"e\"]}],"
			 "\"more_counts\":0}");
	buf_reset(&out);
	buf_reset(&want);
	f.r.json = 0;
	ck_assert_int_eq(survey_report_counts(&f.r, "7\0010", f.ptrs, f.n, 1, &out), 0);
	buf_printf(&want, "== pid 7, device 0: 5 kernel names\n"
		   "counts in the whole trace (no ProfilerStep markers: the trace is one pass; "
		   "most shared count first, 1 last):\n"
		   "  6 in the trace: 2 names: a, b\n"
		   "  2 in the trace: 1 name: d\n"
		   "  3 in the trace: 1 name: c\n"
		   "  1 in the trace: 1 name: e\n%s", tail);
	ck_assert_str_eq(out.p, want.p);
	buf_release(&out);
	buf_release(&want);
	for (size_t i = 0; i < f.n; i++)
		survey_name_free(&f.names[i]);
}
END_TEST

/* A family in runs of two lengths: draft and target passes are guessed
 * only for an inference trace; a name three times between the anchors is
 * named so; without whole passes, no command and the reason. */
START_TEST(test_training_and_three)
{
	static const int64_t top[] = { 1000, 1100, 1200, 2000, 2100, 2200 };
	/* three between the top's consecutive occurrences, unevenly: its own
	 * passes of 3 are ambiguous, so it ranks below the top */
	static const int64_t three[] = { 1010, 1040, 1090, 1110, 1140, 1190, 2010, 2040, 2090,
					 2110, 2140, 2190 };
	static const int64_t f3[] = { 10000, 10010, 10020, 20000, 20010, 20020 };
	static const int64_t f4[] = { 30000, 30010, 30020, 30030, 40000, 40010, 40020, 40030 };
	/* once between the top's occurrences: it confirms the top */
	static const int64_t partner[] = { 1050, 1150, 2050, 2150 };
	/* steps that cut a pass of each candidate, or leave a count that is no
	 * multiple of 3 */
	static const struct survey_step cut[] = { { 0, 1150 }, { 1150, 10015 }, { 10015, 50000 } };
	static const char fam[] = "one family, runs of 3 and 4: anchor the regex on the template "
		"arguments: f<...>\n";
	static const char fam_inf[] = "one family, runs of 3 and 4 (draft and target passes?): "
		"anchor the regex on the template arguments: f<...>\n";
	static const char thr[] = "three times per layer (3 between consecutive occurrences of "
		"candidate 1; 12 = 3 x 3 + 3): three\n";
	struct fixture f;
	struct buf out = BUF_INIT;

	memset(&f, 0, sizeof f);
	add(&f, "top", 3, top, COUNT(top), 0, 3);
	add(&f, "three", 5, three, COUNT(three), 0, 3);
	add(&f, "f<int>", 6, f3, COUNT(f3), 0, 3);
	add(&f, "f<float>", 8, f4, COUNT(f4), 0, 3);
	add(&f, "p", 1, partner, COUNT(partner), 0, 3);
	rank(&f, 3, 10, NULL, 0);
	ck_assert_ptr_eq(f.rk.top, &f.names[0]);
	ck_assert_int_eq(f.names[1].times_between, 3);
	ck_assert_ptr_eq(f.rk.start, &f.names[0]);
	ck_assert_int_eq(survey_report_group(&f.r, "3\0010", &f.rk, 1, &out), 0);
	ck_assert_ptr_nonnull(strstr(out.p, fam_inf));
	ck_assert_ptr_nonnull(strstr(out.p, thr));
	ck_assert_ptr_nonnull(strstr(out.p, "starting point, candidate 1 (verify"));
	buf_reset(&out);
	f.r.training = 1;
	ck_assert_int_eq(survey_report_group(&f.r, "3\0010", &f.rk, 1, &out), 0);
	ck_assert_ptr_nonnull(strstr(out.p, fam));
	ck_assert_ptr_null(strstr(out.p, "draft"));
	/* no candidate with whole passes: no command */
	buf_reset(&out);
	f.r.steps = cut;
	f.r.nsteps = COUNT(cut);
	survey_rank_start(&f.rk, 3, cut, COUNT(cut));
	ck_assert_ptr_null(f.rk.start);
	ck_assert_int_eq(survey_report_group(&f.r, "3\0010", &f.rk, 1, &out), 0);
	ck_assert_ptr_null(strstr(out.p, "starting point"));
	ck_assert_ptr_null(strstr(out.p, "tr-layer-track"));
	/* the last line of the group */
	ck_assert_ptr_nonnull(strstr(out.p, "no starting command"));
	ck_assert_str_eq(strstr(out.p, "no starting command"),
			 "no starting command: no listed candidate has whole passes of 3 (split at "
			 "gaps larger than those inside them, no ProfilerStep starting inside one); "
			 "the trace may not run 3 layers per pass\n");
	buf_release(&out);
	done(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("survey_report");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_pair_text);
	tcase_add_test(tc, test_pair_json);
	tcase_add_test(tc, test_many_passes);
	tcase_add_test(tc, test_no_candidate);
	tcase_add_test(tc, test_warnings);
	tcase_add_test(tc, test_reasons);
	tcase_add_test(tc, test_elsewhere);
	tcase_add_test(tc, test_head);
	tcase_add_test(tc, test_shell_quote);
	tcase_add_test(tc, test_counts);
	tcase_add_test(tc, test_training_and_three);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
