/* Unit tests for common/window/window.c: exact durations, ranges, event intervals
 * in half nanoseconds and the keep rules of tr-window(1). */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "stream/stream.h"
#include "stream/trstream.h"
#include "json/tsnum.h"
#include "window/window.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct dur_case {
	const char *text;
	int rc;
	int64_t ns;
};

static const struct dur_case dur_cases[] = {
	{ "0", 0, 0 },
	{ "2", 0, 2000000 },              /* default unit: ms */
	{ "1520.5", 0, 1520500000 },
	{ "0.000001", 0, 1 },
	{ "0.0000001", -1, 0 },           /* below the ns */
	{ "0.0000010", 0, 1 },            /* trailing zero: still whole ns */
	{ "2ms", 0, 2000000 },
	{ "500us", 0, 500000 },
	{ "1.5us", 0, 1500 },
	{ "1.0005us", -1, 0 },
	{ "7ns", 0, 7 },
	{ "1s", 0, 1000000000 },
	{ "0.5ns", -1, 0 },
	{ "", -1, 0 },
	{ "-1", -1, 0 },
	{ "+1", -1, 0 },
	{ "1.", -1, 0 },
	{ ".5", -1, 0 },
	{ "1e3", -1, 0 },
	{ "2 ms", -1, 0 },
	{ "2min", -1, 0 },
	{ "9999999999999999999", -1, 0 },
	{ "4611686018427387904ns", 0, (int64_t)1 << 62 },
	{ "4611686018427387905ns", -1, 0 },
};

START_TEST(test_dur)
{
	const struct dur_case *c = &dur_cases[_i];
	int64_t ns = -42;
	int rc = window_parse_dur(c->text, 1000000, &ns);

	ck_assert_msg(rc == c->rc, "'%s': rc %d", c->text, rc);
	if (rc == 0)
		ck_assert_msg(ns == c->ns, "'%s': %lld", c->text, (long long)ns);
}
END_TEST

START_TEST(test_range)
{
	int64_t a, b;

	ck_assert_int_eq(window_parse_range("3-4", &a, &b), 0);
	ck_assert(a == 3 && b == 4);
	ck_assert_int_eq(window_parse_range("5", &a, &b), 0);
	ck_assert(a == 5 && b == 5);
	ck_assert_int_eq(window_parse_range("4-3", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("-3", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("3-", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("a-b", &a, &b), -1);
	ck_assert_int_eq(window_parse_range("", &a, &b), -1);
}
END_TEST

static int iv(const char *ts, const char *dur, int64_t *lo, int64_t *hi)
{
	return window_interval(ts, ts ? strlen(ts) : 0, dur, dur ? strlen(dur) : 0, lo, hi);
}

START_TEST(test_interval)
{
	int64_t lo, hi;

	ck_assert_int_eq(iv("1712195495519689.047", "2.5", &lo, &hi), 0);
	ck_assert(lo == 2 * 1712195495519689047LL && hi == 2 * 1712195495519691547LL);
	ck_assert_int_eq(iv("\"12.5\"", NULL, &lo, &hi), 0);  /* a ts in a string */
	ck_assert(lo == 25000 && hi == 25000);
	/* digits below the ns: strictly between two whole ns */
	ck_assert_int_eq(iv("1.0005", NULL, &lo, &hi), 0);
	ck_assert(lo == 2001 && hi == 2001);
	ck_assert_int_eq(iv("1.0005", "1", &lo, &hi), 0);
	ck_assert(lo == 2001 && hi == 4001);
	/* both below the ns: the end's upper bound */
	ck_assert_int_eq(iv("1.0005", "0.0005", &lo, &hi), 0);
	ck_assert(lo == 2001 && hi == 2002);
	ck_assert_int_eq(iv(NULL, NULL, &lo, &hi), -1);
	ck_assert_int_eq(iv("x", NULL, &lo, &hi), -1);
	ck_assert_int_eq(iv("1", "-1", &lo, &hi), -1);
	ck_assert_int_eq(iv("1", "\"a\"", &lo, &hi), -1);
	/* the range the stages compute with: +/-(2^62 - 2) ns, ends included */
	ck_assert_int_eq(iv("4611686018427387", "0.902", &lo, &hi), 0);
	ck_assert(lo == 2 * 4611686018427387000LL && hi == 2 * TSNUM_MAX_NS);
	ck_assert_int_eq(iv("4611686018427387.902", NULL, &lo, &hi), 0);
	ck_assert(lo == 2 * TSNUM_MAX_NS && hi == lo);
	ck_assert_int_eq(iv("4611686018427387.903", NULL, &lo, &hi), WINDOW_RANGE);
	ck_assert_int_eq(iv("4611686018427387", "0.903", &lo, &hi), WINDOW_RANGE);
	/* an end at the ns above a text with digits below the ns */
	ck_assert_int_eq(iv("4611686018427387", "0.9015", &lo, &hi), 0);
	ck_assert_int_eq(iv("4611686018427387", "0.9025", &lo, &hi), WINDOW_RANGE);
	ck_assert_int_eq(iv("-4611686018427387.902", NULL, &lo, &hi), 0);
	ck_assert(lo == -2 * TSNUM_MAX_NS);
	ck_assert_int_eq(iv("-4611686018427387.903", NULL, &lo, &hi), WINDOW_RANGE);
	ck_assert_int_eq(iv("9223372036854775", "1", &lo, &hi), WINDOW_RANGE);
	ck_assert_int_eq(iv("1e400", NULL, &lo, &hi), WINDOW_RANGE);
	ck_assert_int_eq(iv("1", "1e400", &lo, &hi), WINDOW_RANGE);
	ck_assert_int_eq(iv("\"9223372036854775\"", NULL, &lo, &hi), WINDOW_RANGE);
}
END_TEST

START_TEST(test_rules)
{
	ck_assert(window_half(3) == 6);
	ck_assert(window_half(INT64_MAX) == INT64_MAX);
}
END_TEST

START_TEST(test_category)
{
	ck_assert_int_eq(window_category("\"X\"", 3), WCAT_COMPLETE);
	ck_assert_int_eq(window_category("\"B\"", 3), WCAT_DURATION);
	ck_assert_int_eq(window_category("\"i\"", 3), WCAT_INSTANT);
	ck_assert_int_eq(window_category("\"C\"", 3), WCAT_COUNTER);
	ck_assert_int_eq(window_category("\"M\"", 3), WCAT_METADATA);
	ck_assert_int_eq(window_category("\"t\"", 3), WCAT_FLOW);
	ck_assert_int_eq(window_category("\"n\"", 3), WCAT_ASYNC);
	ck_assert_int_eq(window_category("\"XX\"", 4), WCAT_OTHER);
	ck_assert_int_eq(window_category(NULL, 0), WCAT_OTHER);
	ck_assert_str_eq(window_category_name(WCAT_FLOW), "flow");
}
END_TEST


START_TEST(test_tally)
{
	/* spans touching at 20 and 30, one span twice */
	static const int64_t lo[] = { 10, 30, 20, 10 }, hi[] = { 20, 40, 30, 20 };
	static const struct { int64_t lo, hi; uint64_t bytes; } ev[] = {
		{ 0, 5, 1 }, { 10, 10, 2 }, { 20, 20, 4 }, { 15, 35, 8 }, { 41, 50, 16 },
		{ 40, 40, 32 }, { 0, 100, 64 }, { 21, 29, 128 },
	};
	struct window_tally t;
	size_t i, k;

	ck_assert_int_eq(window_tally_init(&t, lo, hi, 4), 0);
	for (i = 0; i < COUNT(ev); i++)
		window_tally_add(&t, ev[i].lo, ev[i].hi, ev[i].bytes);
	/* against the plain rule, span by span */
	for (k = 0; k < 4; k++) {
		uint64_t want = 0;
		for (i = 0; i < COUNT(ev); i++)
			if (windowspan_overlaps(ev[i].lo, ev[i].hi, lo[k], hi[k]))
				want += ev[i].bytes;
		ck_assert_uint_eq(window_tally_bytes(&t, k), want);
	}
	ck_assert_uint_eq(window_tally_bytes(&t, 0), 2 + 4 + 8 + 64);
	ck_assert_uint_eq(window_tally_bytes(&t, 1), 8 + 32 + 64);
	ck_assert_uint_eq(window_tally_bytes(&t, 2), 4 + 8 + 64 + 128);
	ck_assert_uint_eq(window_tally_bytes(&t, 3), 2 + 4 + 8 + 64);
	ck_assert_uint_eq(window_tally_bytes(&t, 4), 0);
	window_tally_free(&t);
	ck_assert_int_eq(window_tally_init(&t, lo, hi, 0), 0);
	window_tally_add(&t, 0, 1, 5);
	ck_assert_uint_eq(window_tally_bytes(&t, 0), 0);
	window_tally_free(&t);
}
END_TEST

/* A small stream: the origin at 100 us, two threads, a flow with an end on
 * each side of 0.5 ms, a B/E pair, a guide per pass. */
static const char *const cut_lines[] = {
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"p\"}}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"a\"}}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"b\"}}",
	"{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":100.000,\"dur\":10}",
	"{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"y\",\"pid\":1,\"tid\":2,\"ts\":900,\"dur\":10}",
	"{\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":105,\"cat\":\"f\",\"name\":\"f\"}",
	"{\"ph\":\"f\",\"id\":7,\"pid\":1,\"tid\":2,\"ts\":900,\"cat\":\"f\",\"name\":\"f\",\"bp\":\"e\"}",
	"{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":150}",
	"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":800}",
	"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,\"tid\":9,\"ts\":100,"
	"\"dur\":50,\"args\":{\"pass_index\":0,\"layer_id\":0}}",
	"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,\"tid\":9,\"ts\":890,"
	"\"dur\":20,\"args\":{\"pass_index\":1,\"layer_id\":0}}",
};

static void cut_read(struct window_cut *c, struct window_rec *recs)
{
	size_t i;

	window_cut_init(c);
	for (i = 0; i < COUNT(cut_lines); i++)
		ck_assert_int_eq(window_cut_see(c, cut_lines[i], strlen(cut_lines[i]), &recs[i]), 0);
	ck_assert_uint_eq(c->events, COUNT(cut_lines));
	ck_assert(c->have_origin);
	ck_assert_int_eq(c->origin_ns, 100000);
	ck_assert_uint_eq(c->ng, 2);
}

START_TEST(test_cut_time)
{
	struct window_cut c;
	struct window_rec recs[COUNT(cut_lines)];
	struct window_spec spec = { 0 };
	static const int want[COUNT(cut_lines)] = { 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0 };
	size_t i;

	cut_read(&c, recs);
	spec.to = "0.5";   /* [100, 600] us */
	ck_assert_int_eq(window_cut_choose(&c, &spec), WINDOW_OK);
	ck_assert_int_eq(c.w0_ns, 100000);
	ck_assert_int_eq(c.w1_ns, 600000);
	for (i = 0; i < COUNT(cut_lines); i++)
		ck_assert_int_eq(window_cut_measure(&c, &recs[i]), 0);
	ck_assert_int_eq(window_cut_check(&c, "--to 0.5", 0, 0), WINDOW_OK);
	for (i = 0; i < COUNT(cut_lines); i++)
		ck_assert_int_eq(window_cut_keeps(&c, &recs[i]), want[i]);
	/* the flow is cut: its start inside, its end outside */
	ck_assert_uint_eq(c.flows_cut, 1);
	ck_assert_uint_eq(c.dropped[WCAT_FLOW], 2);  /* s cut, f outside */
	ck_assert_uint_eq(c.kept[WCAT_METADATA], 2);
	ck_assert_uint_eq(c.dropped[WCAT_METADATA], 1);
	ck_assert_uint_eq(c.kept[WCAT_DURATION], 2);
	ck_assert_str_eq(c.rows.p, "{\"source_index\":5,\"ph\":\"s\",\"reason\":\"flow with an "
			 "end outside the window\"}");
	/* over the limit: refused with the size */
	ck_assert_int_eq(window_cut_check(&c, "--to 0.5", 1, 10), WINDOW_REFUSED);
	ck_assert_str_eq(c.err.p, "the window would be 404 bytes of events, more than "
			 "--max-bytes 10; choose a smaller window");
	window_cut_free(&c);
}
END_TEST

START_TEST(test_cut_passes)
{
	struct window_cut c;
	struct window_rec recs[COUNT(cut_lines)];
	struct window_spec spec = { 0 };
	struct buf table = BUF_INIT;
	size_t i;

	cut_read(&c, recs);
	spec.pass = "1";
	ck_assert_int_eq(window_cut_choose(&c, &spec), WINDOW_OK);
	ck_assert_int_eq(c.w0_ns, 890000);
	ck_assert_int_eq(c.w1_ns, 910000);
	for (i = 0; i < COUNT(cut_lines); i++)
		ck_assert_int_eq(window_cut_measure(&c, &recs[i]), 0);
	ck_assert_int_eq(window_cut_check(&c, "--pass 1", 0, 0), WINDOW_OK);
	/* y, the flow's end (its start is outside: dropped), guide 1 */
	ck_assert(window_cut_keeps(&c, &recs[4]));
	ck_assert(!window_cut_keeps(&c, &recs[6]));
	ck_assert(window_cut_keeps(&c, &recs[10]));
	ck_assert(!window_cut_keeps(&c, &recs[1]));  /* thread 1 keeps nothing */
	ck_assert(window_cut_keeps(&c, &recs[2]));
	ck_assert_int_eq(window_cut_pass_table(&c, &table), 0);
	/* pass 0: x, s, B (its own interval) and guide 0 overlap [100, 150] us;
	 * pass 1: y, f and guide 1 (lengths plus a newline each) */
	ck_assert_str_eq(table.p,
			 "pass 0: 0.000000-0.050000 ms from the trace start, 295 bytes of events\n"
			 "pass 1: 0.790000-0.810000 ms from the trace start, 253 bytes of events\n");
	buf_release(&table);
	window_cut_free(&c);
}
END_TEST

START_TEST(test_cut_refusals)
{
	struct window_cut c;
	struct window_rec recs[COUNT(cut_lines)];
	struct window_spec spec = { 0 };

	cut_read(&c, recs);
	spec.pass = "9";
	ck_assert_int_eq(window_cut_choose(&c, &spec), WINDOW_REFUSED);
	ck_assert_str_eq(c.err.p, "pass 9 does not exist (the guides cover passes 0-1)");
	window_cut_free(&c);

	cut_read(&c, recs);
	memset(&spec, 0, sizeof spec);
	spec.layers = "0-3";
	ck_assert_int_eq(window_cut_choose(&c, &spec), WINDOW_BAD_OPTION);
	ck_assert_str_eq(c.err.p, "--layers needs --pass K: the guides cover passes 0-1");
	window_cut_free(&c);

	cut_read(&c, recs);
	spec.pass = "0";
	ck_assert_int_eq(window_cut_choose(&c, &spec), WINDOW_REFUSED);
	ck_assert_str_eq(c.err.p, "layer L3 does not exist in pass 0 (its guides are L0-L0)");
	window_cut_free(&c);

	cut_read(&c, recs);
	memset(&spec, 0, sizeof spec);
	spec.from = "1ns5";
	ck_assert_int_eq(window_cut_choose(&c, &spec), WINDOW_BAD_OPTION);
	ck_assert_str_eq(c.err.p, "--from: invalid value '1ns5' (milliseconds: digits with "
			 "at most six decimals, or a unit ns, us, ms, s)");
	window_cut_free(&c);

	/* a window where nothing is: after the last event */
	cut_read(&c, recs);
	spec.from = "5";
	ck_assert_int_eq(window_cut_choose(&c, &spec), WINDOW_OK);
	for (size_t i = 0; i < COUNT(cut_lines); i++)
		ck_assert_int_eq(window_cut_measure(&c, &recs[i]), 0);
	ck_assert_int_eq(window_cut_check(&c, "--from 5", 0, 0), WINDOW_REFUSED);
	ck_assert_str_eq(c.err.p, "empty window: no event overlaps [5100.000, "
			 "4611686018427387.903] us (--from 5)");
	window_cut_free(&c);

	/* a guide without its indexes */
	window_cut_init(&c);
	{
		static const char g[] = "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"ts\":1,\"dur\":1}";
		struct window_rec r;
		ck_assert_int_eq(window_cut_see(&c, g, strlen(g), &r), WINDOW_REFUSED);
		ck_assert_str_eq(c.err.p, "layer guide event 0 without args.pass_index and "
				 "args.layer_id (not written by tr-guides?)");
	}
	window_cut_free(&c);
}
END_TEST

/* Guides read by the member walk and by jsmn (a line with an escape, with
 * whitespace between tokens, or not valid JSON takes jsmn) keep the same
 * pass, layer and widened interval, and refuse alike. */
static struct window_guide guide_read(const char *args, int *rc)
{
	struct window_cut c;
	struct window_rec r;
	struct window_guide g = { -1, -1, -1, -1 };
	struct buf line = BUF_INIT;

	window_cut_init(&c);
	ck_assert_int_eq(buf_printf(&line, "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L2\","
				    "\"pid\":0,\"tid\":1,\"ts\":100,\"dur\":50,\"args\":%s}", args), 0);
	*rc = window_cut_see(&c, line.p, line.len, &r);
	if (*rc == 0) {
		ck_assert_uint_eq(c.ng, 1);
		g = c.g[0];
	} else {
		ck_assert_str_eq(c.err.p, *rc == WINDOW_REFUSED && strchr(args, ']') != NULL ?
				 "malformed layer guide event" :
				 "layer guide event 0 without args.pass_index and args.layer_id "
				 "(not written by tr-guides?)");
	}
	buf_release(&line);
	window_cut_free(&c);
	return g;
}

START_TEST(test_guide_walk_and_jsmn)
{
	static const char *const same[] = {
		/* the walk */
		"{\"pass_index\":3,\"layer_id\":2,\"start_us\":99.5,\"end_us\":150.25,\"n\":\"x\"}",
		/* jsmn: an escape, whitespace at a value, between members, an
		 * escaped key */
		"{\"pass_index\":3,\"layer_id\":2,\"start_us\":99.5,\"end_us\":150.25,\"n\":\"\\\"\"}",
		"{\"pass_index\":3,\"layer_id\":2,\"start_us\": 99.5,\"end_us\":150.25}",
		"{\"pass_index\":3,\"layer_id\":2,\"n\":\"x\" ,\"start_us\":99.5,\"end_us\":150.25}",
		"{\"pass_index\":3,\"layer_id\":2,\"start\\u005fus\":99.5,\"end_us\":150.25}",
	};
	struct window_guide want, g;
	size_t i;
	int rc;

	want = guide_read(same[0], &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(want.pass, 3);
	ck_assert_int_eq(want.layer, 2);
	/* widened by the exact anchor times: 99.5 us before ts 100, 150.25 after 150 */
	ck_assert_int_eq(want.lo, 199000);  /* half ns */
	ck_assert_int_eq(want.hi, 300500);
	for (i = 1; i < COUNT(same); i++) {
		g = guide_read(same[i], &rc);
		ck_assert_int_eq(rc, 0);
		ck_assert_mem_eq(&g, &want, sizeof g);
	}
	/* without start_us and end_us: the guide's own interval */
	g = guide_read("{\"pass_index\":3,\"layer_id\":2}", &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(g.lo, 200000);
	ck_assert_int_eq(g.hi, 300000);
	/* refusals: not JSON (the walk finds all four members in it), a
	 * string index, no args */
	guide_read("{\"pass_index\":3,\"layer_id\":2,\"start_us\":1,\"end_us\":2]", &rc);
	ck_assert_int_eq(rc, WINDOW_REFUSED);
	guide_read("{\"pass_index\":\"3\",\"layer_id\":2,\"start_us\":1,\"end_us\":2}", &rc);
	ck_assert_int_eq(rc, WINDOW_REFUSED);
	guide_read("null", &rc);
	ck_assert_int_eq(rc, WINDOW_REFUSED);
}
END_TEST

/* One window per run: each kind alone, --pass and --pad only where they
 * belong; the spec text in the options' order. */
START_TEST(test_spec_kind_and_text)
{
	struct window_spec none = { 0 }, passes = { .passes = "3-4" }, pass = { .pass = "2" },
		layers = { .layers = "1-5", .pass = "2" }, around = { .around = "L7", .pass = "2",
		.pad = "2ms" }, time = { .from = "1.5", .to = "9" }, from = { .from = "1" };
	struct window_spec two = { .passes = "1-2", .from = "3" }, passes_pass = { .passes = "1-2",
		.pass = "3" }, layers_around = { .layers = "1-2", .around = "L1" },
		pad_alone = { .pass = "1", .pad = "1ms" };
	struct buf text = BUF_INIT;

	ck_assert_int_eq(window_spec_kind(&none), 0);
	ck_assert_int_eq(window_spec_kind(&passes), 1);
	ck_assert_int_eq(window_spec_kind(&pass), 1);
	ck_assert_int_eq(window_spec_kind(&layers), 1);
	ck_assert_int_eq(window_spec_kind(&around), 1);
	ck_assert_int_eq(window_spec_kind(&time), 1);
	ck_assert_int_eq(window_spec_kind(&from), 1);
	ck_assert_int_eq(window_spec_kind(&two), -1);
	ck_assert_int_eq(window_spec_kind(&passes_pass), -1);
	ck_assert_int_eq(window_spec_kind(&layers_around), -1);
	ck_assert_int_eq(window_spec_kind(&pad_alone), -1);
	ck_assert_int_eq(window_spec_text(&around, &text), 0);
	ck_assert_str_eq(text.p, "--pass 2 --around L7 --pad 2ms");
	buf_reset(&text);
	ck_assert_int_eq(window_spec_text(&time, &text), 0);
	ck_assert_str_eq(text.p, "--from 1.5 --to 9");
	buf_reset(&text);
	ck_assert_int_eq(window_spec_text(&none, &text), 0);
	ck_assert_uint_eq(text.len, 0);
	buf_release(&text);
}
END_TEST

/* The tally's buckets from the last event's (the hints) against the plain
 * rule: events in time order, backwards and jumping, on spans that touch,
 * nest and repeat. */
START_TEST(test_tally_hints)
{
	enum { SPANS = 9, EVENTS = 3000 };
	static const int64_t lo[SPANS] = { 0, 100, 100, 250, 300, 300, 420, 500, 900 };
	static const int64_t hi[SPANS] = { 100, 200, 260, 300, 300, 400, 430, 1000, 950 };
	struct window_tally t;
	int64_t elo[EVENTS], ehi[EVENTS];
	uint64_t eb[EVENTS];
	size_t i, k;
	uint64_t x = 12345;

	for (i = 0; i < EVENTS; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		if (i < 1000)           /* forwards */
			elo[i] = (int64_t)i - 10;
		else if (i < 2000)      /* backwards */
			elo[i] = 2010 - (int64_t)i;
		else                    /* anywhere */
			elo[i] = (int64_t)(x >> 33) % 1200 - 50;
		ehi[i] = elo[i] + (int64_t)((x >> 20) % 4 == 0 ? (x >> 40) % 300 : (x >> 40) % 3);
		eb[i] = (x >> 50) + 1;
	}
	ck_assert_int_eq(window_tally_init(&t, lo, hi, SPANS), 0);
	for (i = 0; i < EVENTS; i++)
		window_tally_add(&t, elo[i], ehi[i], eb[i]);
	for (k = 0; k < SPANS; k++) {
		uint64_t want = 0;
		for (i = 0; i < EVENTS; i++)
			if (windowspan_overlaps(elo[i], ehi[i], lo[k], hi[k]))
				want += eb[i];
		ck_assert_uint_eq(window_tally_bytes(&t, k), want);
	}
	window_tally_free(&t);
}
END_TEST

/* Lines that window_cut_span must read as window_cut_see does: members in
 * any order, repeated (the first counts), escaped, long strings with and
 * without backslashes, members after args, ts in quotes or beyond the ns,
 * a negative dur, no ph, no ts, metadata with and without ts, a broken
 * line, and guides of passes out of order. */
static const char *const span_lines[] = {
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"ts\":50,\"args\":{\"name\":\"p\"}}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"a\"}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128>>"
	"(Flash_fwd_params)\",\"pid\":0,\"tid\":7,\"ts\":1428628685053.641,\"dur\":4.405,\"args\":{}}",
	"{\"ph\":\"X\",\"cat\":\"a\\\\\\\"b\",\"name\":\"a \\\"quoted\\\" name, longer than twenty-four\","
	"\"ts\":100.5,\"dur\":\"2.25\"}",
	"{\"ts\":200,\"dur\":3,\"cat\":\"k\",\"ph\":\"X\"}",
	"{\"ph\":\"X\",\"ts\":300,\"ts\":1,\"dur\":1,\"dur\":100}",
	"{\"ph\":\"X\",\"args\":{\"ts\":5,\"dur\":5},\"ts\":400.0000001,\"dur\":0.0000009}",
	"{\"ph\":\"X\",\"ts\":\"450\",\"dur\":1}",
	"{\"ph\":\"X\",\"ts\":460,\"dur\":-1}",
	"{\"ph\":\"i\",\"ts\":470,\"s\":\"t\"}",
	"{\"name\":\"no ph\",\"ts\":10}",
	"{\"ph\":\"X\",\"dur\":5}",
	"{\"ph\":\"s\",\"id\":\"0x7\",\"ts\":480,\"cat\":\"f\"}",
	"{\"p\\u0068\":\"X\",\"ts\":490,\"dur\":1}",
	"{\"ph\":\"X\",\"ts\":495 \"dur\":1}",
	"{\"ph\":\"X\",\"ts\":1e3,\"dur\":1}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"ts\":-20,\"pid\":1,\"tid\":2}",
	"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,\"tid\":9,\"ts\":600,"
	"\"dur\":50,\"args\":{\"pass_index\":1,\"layer_id\":0,\"start_us\":599.9995,\"end_us\":650}}",
	"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,\"tid\":9,\"ts\":100,"
	"\"dur\":50,\"args\":{\"pass_index\":0,\"layer_id\":0}}",
	"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L1\",\"pid\":1,\"tid\":9,\"ts\":700,"
	"\"dur\":5,\"args\":{\"pass_index\":1,\"layer_id\":1}}",
	"{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":650}",
	"{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":660}",
};

/* 16 of them count toward the pass bytes; the trace starts at the
 * metadata's -20 us; pass 1 comes first, as its guide does. */
#define COUNTED 16
#define ORIGIN (-20000)
#define TABLE "pass 1: 0.619999-0.725000 ms from the trace start, 332 bytes of events\n" \
	"pass 0: 0.120000-0.170000 ms from the trace start, 216 bytes of events\n"

START_TEST(test_span_as_see)
{
	enum { N = COUNT(span_lines) };
	struct window_cut a, b;
	struct window_spec spec = { .list_passes = 1 };
	struct window_rec recs[N];
	struct buf ta = BUF_INIT, tb = BUF_INIT;
	int64_t lo[N] = { 0 }, hi[N] = { 0 };
	int counted[N] = { 0 }, ncounted = 0;
	size_t i;

	window_cut_init(&a);
	window_cut_init(&b);
	for (i = 0; i < N; i++) {
		size_t n = strlen(span_lines[i]);
		ck_assert_int_eq(window_cut_see(&a, span_lines[i], n, &recs[i]), 0);
		ck_assert_int_eq(window_cut_span(&b, span_lines[i], n, &lo[i], &hi[i], &counted[i]),
				 0);
		ck_assert_int_eq(counted[i], recs[i].cat != WCAT_METADATA && recs[i].timed);
		if (counted[i]) {
			ck_assert_int_eq(lo[i], recs[i].lo);
			ck_assert_int_eq(hi[i], recs[i].hi);
			ncounted++;
		}
	}
	ck_assert_int_eq(ncounted, COUNTED);
	ck_assert_uint_eq(b.events, a.events);
	ck_assert_uint_eq(b.events, N);
	ck_assert_int_eq(b.have_origin, 1);
	ck_assert_int_eq(b.origin_ns, a.origin_ns);
	ck_assert_int_eq(b.origin_ns, ORIGIN);
	ck_assert_uint_eq(a.ng, 3);
	ck_assert_uint_eq(b.ng, 3);
	ck_assert_mem_eq(b.g, a.g, 3 * sizeof *a.g);

	/* the table from the records, and from the spans (backwards: any
	 * order gives the same bytes) */
	ck_assert_int_eq(window_cut_choose(&a, &spec), WINDOW_OK);
	ck_assert_int_eq(window_cut_choose(&b, &spec), WINDOW_OK);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(window_cut_measure(&a, &recs[i]), 0);
	for (i = N; i-- > 0;)
		if (counted[i])
			window_cut_add_span(&b, lo[i], hi[i], (uint32_t)strlen(span_lines[i]) + 1);
	ck_assert_int_eq(window_cut_pass_table(&a, &ta), 0);
	ck_assert_int_eq(window_cut_pass_table(&b, &tb), 0);
	ck_assert_str_eq(tb.p, ta.p);
	ck_assert_str_eq(tb.p, TABLE);
	buf_release(&ta);
	buf_release(&tb);
	window_cut_free(&a);
	window_cut_free(&b);
}
END_TEST

/* The running sums give every span the same bytes as the walk over the
 * buckets and as the plain rule, on many spans that touch, nest and
 * repeat; a second window_tally_sum changes nothing. */
START_TEST(test_tally_sum)
{
	enum { SPANS = 700, EVENTS = 4000 };
	static int64_t lo[SPANS], hi[SPANS], elo[EVENTS], ehi[EVENTS];
	static uint64_t eb[EVENTS], want[SPANS];
	struct window_tally t;
	size_t i, k;
	uint64_t x = 99;

	for (k = 0; k < SPANS; k++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		lo[k] = (int64_t)(x >> 33) % 5000;
		hi[k] = lo[k] + ((x >> 20) % 5 == 0 ? 0 : (int64_t)((x >> 40) % 60));
		if (k % 50 == 49) {     /* a repeated span */
			lo[k] = lo[k - 1];
			hi[k] = hi[k - 1];
		}
	}
	for (i = 0; i < EVENTS; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		elo[i] = (int64_t)(x >> 33) % 5200 - 100;
		ehi[i] = elo[i] + (int64_t)((x >> 20) % 7 == 0 ? (x >> 40) % 900 : (x >> 40) % 4);
		eb[i] = (x >> 48) + 1;
	}
	for (k = 0; k < SPANS; k++)
		for (i = 0; i < EVENTS; i++)
			if (windowspan_overlaps(elo[i], ehi[i], lo[k], hi[k]))
				want[k] += eb[i];
	ck_assert_int_eq(window_tally_init(&t, lo, hi, SPANS), 0);
	for (i = 0; i < EVENTS; i++)
		window_tally_add(&t, elo[i], ehi[i], eb[i]);
	for (k = 0; k < SPANS; k++)
		ck_assert_uint_eq(window_tally_bytes(&t, k), want[k]);
	window_tally_sum(&t);
	ck_assert_int_eq(t.summed, 1);
	for (k = 0; k < SPANS; k++)
		ck_assert_uint_eq(window_tally_bytes(&t, k), want[k]);
	ck_assert_uint_eq(window_tally_bytes(&t, SPANS), 0);
	window_tally_sum(&t);
	for (k = 0; k < SPANS; k++)
		ck_assert_uint_eq(window_tally_bytes(&t, k), want[k]);
	window_tally_free(&t);
	/* no spans: nothing to sum */
	ck_assert_int_eq(window_tally_init(&t, lo, hi, 0), 0);
	window_tally_add(&t, 0, 1, 5);
	window_tally_sum(&t);
	ck_assert_uint_eq(window_tally_bytes(&t, 0), 0);
	window_tally_free(&t);
}
END_TEST

/* Many passes, numbered sparsely and met out of order (each pass's L0 in
 * one order, its L1 in the reverse one, passes repeated by their second
 * guide far from the first): the passes in the order of their first
 * guide, with the extent of both guides; the pass table against the plain
 * rule; --passes A-B spans every guide of a pass in the range. */
START_TEST(test_cut_many_passes)
{
	enum { P = 1500 };
	static const struct window_spec list = { .list_passes = 1 };
	static int64_t order[P], glo[P], ghi[P];
	static char line[P][160];
	struct window_cut c, w;
	struct window_spec spec = { 0 };
	struct buf table = BUF_INIT, want = BUF_INIT;
	char a[NUM_US_BUFSZ], b[NUM_US_BUFSZ];
	int64_t lo, hi, elo[P], ehi[P], wlo = INT64_MAX, whi = INT64_MIN;
	uint64_t bytes;
	size_t i, k;
	int counted;

	/* pass number 3q, q = 0 .. P-1, in a scrambled order: 7 is prime to P */
	for (i = 0; i < P; i++)
		order[i] = 3 * (int64_t)((i * 7 + 11) % P);
	window_cut_init(&c);
	window_cut_init(&w);
	for (k = 0; k < 2; k++)
		for (i = 0; i < P; i++) {
			int64_t pass = order[k == 0 ? i : P - 1 - i], base = 1000 + pass / 3 * 100;
			char g[200];
			int n = snprintf(g, sizeof g, "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":"
					 "\"L%zu\",\"pid\":1,\"tid\":9,\"ts\":%" PRId64 ",\"dur\":%d,"
					 "\"args\":{\"pass_index\":%" PRId64 ",\"layer_id\":%zu}}", k,
					 base + (int64_t)k * 40, k == 0 ? 40 : 20, pass, k);
			ck_assert_int_eq(window_cut_span(&c, g, (size_t)n, &lo, &hi, &counted), 0);
			ck_assert_int_eq(counted, 1);
			ck_assert_int_eq(window_cut_see(&w, g, (size_t)n, &(struct window_rec){ 0 }), 0);
		}
	/* an event per pass, from its L0's middle into the next pass */
	for (i = 0; i < P; i++) {
		int n = snprintf(line[i], sizeof line[i], "{\"ph\":\"X\",\"cat\":\"k\",\"name\":\"e\","
				 "\"pid\":1,\"tid\":2,\"ts\":%zu.5,\"dur\":80}", 1000 + i * 100 + 20);
		ck_assert_int_eq(window_cut_span(&c, line[i], (size_t)n, &elo[i], &ehi[i], &counted),
				 0);
		ck_assert_int_eq(counted, 1);
	}
	ck_assert_uint_eq(c.ng, 2 * P);
	ck_assert_int_eq(window_cut_choose(&c, &list), WINDOW_OK);
	ck_assert_uint_eq(c.npasses, P);
	for (i = 0; i < P; i++) {
		int64_t base = 1000 + order[i] / 3 * 100;
		ck_assert_int_eq(c.passes[i].pass, order[i]);
		ck_assert_int_eq(c.passes[i].lo, base * 2000);
		ck_assert_int_eq(c.passes[i].hi, (base + 60) * 2000);
		glo[i] = base * 2000;
		ghi[i] = (base + 60) * 2000;
	}
	/* the events' spans only (the guides' are not added): each event
	 * overlaps its own pass and, from 100.5 us on, the next one */
	for (i = 0; i < P; i++)
		window_cut_add_span(&c, elo[i], ehi[i], (uint32_t)strlen(line[i]) + 1);
	ck_assert_int_eq(window_cut_pass_table(&c, &table), 0);
	for (i = 0; i < P; i++) {
		bytes = 0;
		for (k = 0; k < P; k++)
			if (windowspan_overlaps(elo[k], ehi[k], glo[i], ghi[i]))
				bytes += strlen(line[k]) + 1;
		tsnum_format_ms6(glo[i] / 2 - c.origin_ns, a);
		tsnum_format_ms6((ghi[i] + 1) / 2 - c.origin_ns, b);
		ck_assert_int_eq(buf_printf(&want, "pass %" PRId64 ": %s-%s ms from the trace start, "
					    "%" PRIu64 " bytes of events\n", order[i], a, b, bytes), 0);
	}
	/* the first difference, not two tables of 80 KB in the message */
	for (i = 0; i < want.len && table.p[i] == want.p[i]; i++)
		;
	ck_assert_msg(i == want.len && table.len == want.len,
		      "the tables differ from byte %zu: got '%.80s', want '%.80s'", i,
		      table.p + (i < table.len ? i : table.len), want.p + i);

	/* --passes 300-900: every guide of passes 300, 303, ... 900 */
	for (i = 0; i < P; i++)
		if (order[i] >= 300 && order[i] <= 900) {
			wlo = glo[i] < wlo ? glo[i] : wlo;
			whi = ghi[i] > whi ? ghi[i] : whi;
		}
	spec.passes = "300-900";
	ck_assert_int_eq(window_cut_choose(&w, &spec), WINDOW_OK);
	ck_assert_int_eq(w.w0_ns, wlo / 2);
	ck_assert_int_eq(w.w1_ns, whi / 2);
	ck_assert_int_eq(w.w0_ns, (1000 + 100 * 100) * 1000);
	ck_assert_int_eq(w.w1_ns, (1000 + 300 * 100 + 60) * 1000);
	window_cut_free(&w);
	/* a range whose end is no pass: refused with the passes there are */
	window_cut_init(&w);
	{
		static const char g[] = "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"ts\":1,\"dur\":1,"
					"\"args\":{\"pass_index\":3,\"layer_id\":0}}";
		ck_assert_int_eq(window_cut_see(&w, g, strlen(g), &(struct window_rec){ 0 }), 0);
	}
	spec.passes = "3-4";
	ck_assert_int_eq(window_cut_choose(&w, &spec), WINDOW_REFUSED);
	ck_assert_str_eq(w.err.p, "pass 4 does not exist (the guides cover passes 3-3)");
	window_cut_free(&w);
	buf_release(&table);
	buf_release(&want);
	window_cut_free(&c);
}
END_TEST

/* Every option value judged before a stream is read, with the messages
 * window_cut_choose gives. */
static const struct spec_check_case {
	struct window_spec spec;
	int rc;
	const char *err;
} spec_check_cases[] = {
	{ { .passes = "3-4" }, WINDOW_OK, "" },
	{ { .from = "0.5", .to = "1.5" }, WINDOW_OK, "" },
	{ { .from = "2", .to = "2" }, WINDOW_OK, "" },
	{ { .around = "L17", .pass = "3", .pad = "2ms" }, WINDOW_OK, "" },
	{ { .passes = "x" }, WINDOW_BAD_OPTION, "--passes: invalid value 'x' (A-B or A)" },
	{ { .passes = "4-3" }, WINDOW_BAD_OPTION, "--passes: invalid value '4-3' (A-B or A)" },
	{ { .pass = "L-1" }, WINDOW_BAD_OPTION, "--pass: invalid value '-1'" },
	{ { .pass = "1", .layers = "2-" }, WINDOW_BAD_OPTION,
	  "--layers: invalid value '2-' (A-B or A)" },
	{ { .around = "L1x" }, WINDOW_BAD_OPTION, "--around: invalid value '1x'" },
	{ { .around = "1", .pad = "2 ms" }, WINDOW_BAD_OPTION,
	  "--pad: invalid value '2 ms' (e.g. 2ms, 500us, 0.5)" },
	{ { .from = "1ns5" }, WINDOW_BAD_OPTION, "--from: invalid value '1ns5' (milliseconds: "
	  "digits with at most six decimals, or a unit ns, us, ms, s)" },
	{ { .to = "" }, WINDOW_BAD_OPTION, "--to: invalid value '' (milliseconds: "
	  "digits with at most six decimals, or a unit ns, us, ms, s)" },
	{ { .from = "5", .to = "4" }, WINDOW_BAD_OPTION, "empty window: --from 5 is after --to 4" },
	{ { .from = "1s", .to = "999ms" }, WINDOW_BAD_OPTION,
	  "empty window: --from 1s is after --to 999ms" },
};

START_TEST(test_spec_check)
{
	const struct spec_check_case *k = &spec_check_cases[_i];
	struct window_cut c;

	window_cut_init(&c);
	ck_assert_int_eq(window_spec_check(&c, &k->spec), k->rc);
	if (k->rc != WINDOW_OK)
		ck_assert_str_eq(c.err.p, k->err);
	window_cut_free(&c);
}
END_TEST

/* The first look's records of control lines: the head's source, an
 * earlier report (not written), the tail (its sha appended, or null), a
 * head that is not one refused as trstream_head_read words it. */
START_TEST(test_cut_lines)
{
	static const char head[] = "{\"@tr\":\"head\",\"format\":\"object\",\"source\":\"in.json\","
		"\"tool\":\"t\",\"version\":\"1\",\"members\":{}}";
	static const char report[] = "{\"@tr\":\"report\",\"suffix\":\".layers.json\",\"body\":{}}";
	static const char tail[] = "{\"@tr\":\"tail\",\"source_sha256\":\"ab\"}";
	static const char tail_none[] = "{\"@tr\":\"tail\"}";
	static const char bad[] = "{\"@tr\":\"head\",\"format\":\"object\"";
	struct window_cut c;
	struct window_rec r;
	struct buf sha = BUF_INIT;
	struct jdoc d = JDOC_INIT;
	struct trstream_head_in h;
	char *source = NULL, want[100];

	window_cut_init(&c);
	ck_assert_int_eq(window_cut_line(&c, LINE_HEAD, head, sizeof head - 1, &r, &source, &sha), 0);
	ck_assert_str_eq(source, "in.json");
	ck_assert_int_eq(r.line, WLINE_COPY);
	ck_assert_uint_eq(r.len, sizeof head);
	ck_assert_int_eq(window_cut_line(&c, LINE_CONTROL, report, sizeof report - 1, &r, &source,
					 &sha), 0);
	ck_assert_int_eq(r.line, WLINE_REPORT);
	ck_assert_int_eq(window_cut_line(&c, LINE_TAIL, tail, sizeof tail - 1, &r, &source, &sha), 0);
	ck_assert_int_eq(r.line, WLINE_TAIL);
	ck_assert_str_eq(sha.p, "\"ab\"");
	buf_reset(&sha);
	ck_assert_int_eq(window_cut_line(&c, LINE_TAIL, tail_none, sizeof tail_none - 1, &r, &source,
					 &sha), 0);
	ck_assert_str_eq(sha.p, "null");
	ck_assert_int_ne(trstream_head_read(&d, bad, sizeof bad - 1, &h, want, sizeof want), 0);
	ck_assert_int_eq(window_cut_line(&c, LINE_HEAD, bad, sizeof bad - 1, &r, &source, &sha),
			 WINDOW_REFUSED);
	ck_assert_str_eq(c.err.p, want);
	free(source);
	json_free(&d);
	buf_release(&sha);
	window_cut_free(&c);
}
END_TEST

struct calls { char log[200]; int fail_at, n; };

static int log_copy(void *ctx, uint64_t from, uint64_t to)
{
	struct calls *k = ctx;
	size_t n = strlen(k->log);

	snprintf(k->log + n, sizeof k->log - n, "copy %" PRIu64 "-%" PRIu64 ";", from, to);
	return ++k->n == k->fail_at ? 7 : 0;
}

static int log_report(void *ctx)
{
	struct calls *k = ctx;
	size_t n = strlen(k->log);

	snprintf(k->log + n, sizeof k->log - n, "report;");
	return ++k->n == k->fail_at ? 8 : 0;
}

/* The third look's runs over control records: a report record is left out,
 * the window's report goes before the tail, no empty run is copied, and a
 * callback's failure stops it with its status. */
START_TEST(test_cut_write_runs)
{
	static const struct { int line; uint32_t len; } lines[] = {
		{ WLINE_COPY, 10 }, { WLINE_REPORT, 5 }, { WLINE_REPORT, 2 }, { WLINE_COPY, 3 },
		{ WLINE_TAIL, 7 },
	};
	struct window_cut c;
	struct window_recs *recs = calloc(1, sizeof *recs);
	struct calls k;
	const char *dir;
	size_t i;

	ck_assert_ptr_nonnull(recs);
	recs->fd = io_open_spill("check_window", &dir);
	ck_assert_int_ge(recs->fd, 0);
	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		struct window_rec r;
		memset(&r, 0, sizeof r);
		r.line = (uint8_t)lines[i].line;
		r.len = lines[i].len;
		ck_assert_int_eq(write(recs->fd, &r, sizeof r), (long)sizeof r);
	}
	window_cut_init(&c);
	memset(&k, 0, sizeof k);
	ck_assert_int_eq(window_cut_write(&c, recs, log_copy, log_report, &k), 0);
	ck_assert_str_eq(k.log, "copy 0-10;copy 17-20;report;copy 20-27;");
	/* again from the start, the report failing */
	memset(&k, 0, sizeof k);
	k.fail_at = 3;
	ck_assert_int_eq(window_cut_write(&c, recs, log_copy, log_report, &k), 8);
	ck_assert_str_eq(k.log, "copy 0-10;copy 17-20;report;");
	window_cut_free(&c);
	close(recs->fd);
	free(recs);
}
END_TEST

START_TEST(test_cut_summary)
{
	struct window_cut c;
	struct buf b = BUF_INIT;

	window_cut_init(&c);
	c.kept[WCAT_COMPLETE] = 2;
	c.kept[WCAT_METADATA] = 1;
	c.dropped[WCAT_FLOW] = 1;
	c.bytes = 120;
	ck_assert_int_eq(window_cut_summary(&c, &b), 0);
	ck_assert_str_eq(b.p, "kept 3 events (120 bytes), dropped 1 event");
	buf_reset(&b);
	c.kept[WCAT_COMPLETE] = 0;
	c.kept[WCAT_METADATA] = 1;
	c.dropped[WCAT_FLOW] = 0;
	c.bytes = 1;
	ck_assert_int_eq(window_cut_summary(&c, &b), 0);
	ck_assert_str_eq(b.p, "kept 1 event (1 bytes), dropped 0 events");
	buf_release(&b);
	window_cut_free(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("window");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_dur, 0, (int)COUNT(dur_cases));
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_guide_walk_and_jsmn);
	tcase_add_test(tc, test_interval);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_category);
	tcase_add_test(tc, test_tally);
	tcase_add_test(tc, test_cut_time);
	tcase_add_test(tc, test_cut_passes);
	tcase_add_test(tc, test_cut_refusals);
	tcase_add_test(tc, test_spec_kind_and_text);
	tcase_add_loop_test(tc, test_spec_check, 0, (int)COUNT(spec_check_cases));
	tcase_add_test(tc, test_tally_hints);
	tcase_add_test(tc, test_span_as_see);
	tcase_add_test(tc, test_cut_lines);
	tcase_add_test(tc, test_cut_write_runs);
	tcase_add_test(tc, test_cut_summary);
	tcase_add_test(tc, test_tally_sum);
	tcase_add_test(tc, test_cut_many_passes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
