/* Unit tests for common/verify/verify.c and the reader section of
 * common/stream/trstream.c: streams compared in lock-step (equal, one byte
 * changed, events dropped or added, a stream without its tail), placements
 * undone (with and without escapes in the line, a malformed note),
 * flatness on a synthetic lane under Perfetto's conversion (also with
 * more slices than one sorted run holds), the identity check, a window;
 * and the report reader's exact messages. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/trstream.h"
#include "verify/verify.h"

#define SHA "\"source_sha256\":\"ab12\""
#define HEAD "{\"@tr\":\"head\",\"format\":\"object\",\"members\":{}}\n"
#define TAIL "{\"@tr\":\"tail\",\"members\":{},\"events\":2,\"source_bytes\":93," SHA "}\n"
#define E0 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":1.000,\"dur\":2}"
#define E1 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":8,\"ts\":2.000,\"dur\":2}"

static char dir[] = "/tmp/check_verify.XXXXXX";

static char *path_of(const char *name)
{
	static char p[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
	return p[k];
}

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(path_of(name), "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A decoded stream read from a file holding text. */
static void stream_of(struct stream_in *in, const char *name, const char *text)
{
	FILE *f;

	write_file(name, text);
	f = fopen(path_of(name), "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(stream_in_init(in, dup(fileno(f)), 1 << 20), 0);
	fclose(f);
}

struct run {
	struct verifycheck vc;
	struct verify v;
	struct stream_in src, out;
	int rc;
};

#define REPORT "{" SHA ",\"max_lanes\":2,\"new_metadata_count\":4,\"groups\":[{\"pid\":0," \
	"\"display_pid\":0,\"device\":0,\"kind\":\"activity\",\"lane_tids\":[100,101]}]," \
	"\"retired_track_metadata\":[]}\n"
/* The metadata tr-compact adds for REPORT's lanes: run() puts it before
 * the output's tail. */
#define LANE_META "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":100,\"args\":" \
	"{\"name\":\"GPU lane 1 (synthetic; device 0)\"}}\n{\"name\":\"thread_sort_index\",\"ph\":" \
	"\"M\",\"pid\":0,\"tid\":100,\"args\":{\"sort_index\":-999}}\n{\"name\":\"thread_name\"," \
	"\"ph\":\"M\",\"pid\":0,\"tid\":101,\"args\":{\"name\":\"GPU lane 2 (synthetic; device 0)\"}}" \
	"\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":101,\"args\":" \
	"{\"sort_index\":-998}}\n"
static const char report_lanes[] = REPORT;

static void run(struct run *r, const char *src, const char *out, const char *report)
{
	struct buf with = BUF_INIT;
	const char *tail = strstr(out, "{\"@tr\":\"tail\"");

	/* the lanes' metadata, as tr-compact adds it */
	if (report == report_lanes && tail != NULL) {
		buf_add(&with, out, (size_t)(tail - out));
		buf_addstr(&with, LANE_META);
		buf_addstr(&with, tail);
		out = with.p;
	}
	verifycheck_init(&r->vc);
	verify_init(&r->v, &r->vc, "src.json", "out.json");
	if (report != NULL) {
		write_file("r.compact.json", report);
		ck_assert_int_eq(verify_load_report(&r->v, path_of("r.compact.json")), 0);
	}
	stream_of(&r->src, "src.stream", src);
	stream_of(&r->out, "out.stream", out);
	buf_release(&with);
	r->rc = verify_events(&r->v, &r->src, &r->out);
	if (r->rc == 0)
		r->rc = verify_finish(&r->v);
}

static void done(struct run *r)
{
	stream_in_free(&r->src);
	stream_in_free(&r->out);
	verify_free(&r->v);
	verifycheck_free(&r->vc);
}

static const char *shown(const struct run *r, int id)
{
	return r->vc.item[id].shown.p;
}

static const char *figures(const struct run *r, int id)
{
	return r->vc.item[id].figures.p;
}

START_TEST(test_equal)
{
	struct run r;

	run(&r, HEAD E0 "\n" E1 "\n" TAIL, HEAD E0 "\n" E1 "\n" TAIL, NULL);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	ck_assert_str_eq(figures(&r, VERIFYCHECK_PRESERVE), "2 events compared, 0 events added "
			 "by the tools");
	ck_assert_str_eq(figures(&r, VERIFYCHECK_IDENTITY), "sha256 ab12, 93 bytes; 0 reports "
			 "(no report beside the output: it must then equal the source)");
	ck_assert_str_eq(figures(&r, VERIFYCHECK_COUNTS), "1 categories with equal counts");
	ck_assert_str_eq(figures(&r, VERIFYCHECK_RENDER), "0 guides, 0 lanes (at most 0 per "
			 "device), 0 flows on their kernels; depth 0 everywhere");
	done(&r);
}
END_TEST

START_TEST(test_one_byte)
{
	struct run r;

	run(&r, HEAD E0 "\n" E1 "\n" TAIL,
	    HEAD E0 "\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"pid\":0,\"tid\":8,"
	    "\"ts\":2.000,\"dur\":2}\n" TAIL, NULL);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(r.vc.item[VERIFYCHECK_PRESERVE].failures, 1);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_PRESERVE), "source event 1 (output event 1): "
			 "byte 33: source ...h\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,"
			 "\"tid\":8,\"ts\":2.000,\"dur\":2}... output ...h\":\"X\",\"cat\":"
			 "\"kernel\",\"name\":\"c\",\"pid\":0,\"tid\":8,\"ts\":2.000,\"dur\":2}...");
	done(&r);
}
END_TEST

START_TEST(test_dropped_and_added)
{
	struct run r;

	run(&r, HEAD E0 "\n" E1 "\n" TAIL, HEAD E0 "\n" TAIL, NULL);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_PRESERVE), "source event 1: the output ends "
			 "before it (events were dropped)");
	ck_assert_str_eq(shown(&r, VERIFYCHECK_COUNTS), "category \"kernel\": 1 more events in "
			 "the source than in the output");
	done(&r);
	run(&r, HEAD E0 "\n" TAIL, HEAD E0 "\n" E1 "\n" TAIL, NULL);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_PRESERVE), "output event 1: not in the source and "
			 "not added by the tools (an event moved, duplicated or inserted?)");
	done(&r);
}
END_TEST

START_TEST(test_no_tail)
{
	struct run r;

	run(&r, HEAD E0 "\n" E1 "\n" TAIL, HEAD E0 "\n", NULL);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.vc.error, VERIFYCHECK_TROUBLE);
	ck_assert_str_eq(r.vc.err, "out.json: could not be decoded (truncated stream: input "
			 "ended before the tail record (an earlier stage failed or the stream was "
			 "cut))");
	done(&r);
}
END_TEST

#define NOTE(tid, i, had) ",\"args\":{\"_compact_gpu_track\":{\"pid\":0,\"tid\":" #tid \
	",\"source_event_index\":" #i ",\"had_args\":" had "}}}"
#define M0 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100,\"ts\":1.000," \
	"\"dur\":2" NOTE(7, 0, "false")
#define M1 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":101,\"ts\":2.000," \
	"\"dur\":2" NOTE(8, 1, "false")

START_TEST(test_placements_undone)
{
	struct run r;

	run(&r, HEAD E0 "\n" E1 "\n" TAIL, HEAD M0 "\n" M1 "\n" TAIL, report_lanes);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	ck_assert_str_eq(figures(&r, VERIFYCHECK_REVERSAL), "2 events compared, 2 placements "
			 "undone, 0 metadata restored, 4 events added by the tools");
	ck_assert_str_eq(figures(&r, VERIFYCHECK_IDENTITY), "sha256 ab12, 93 bytes; 1 report");
	ck_assert_str_eq(figures(&r, VERIFYCHECK_RENDER), "0 guides, 2 lanes (at most 2 per "
			 "device), 0 flows on their kernels; depth 0 everywhere; 0 moved flows bind to "
			 "the slices they bind to in the source");
	done(&r);
}
END_TEST

/* A flow moved onto the lane of a concurrent kernel: inside a slice there,
 * exactly reversible, but bound to another kernel than in the source. */
START_TEST(test_flow_bound_elsewhere)
{
	struct run r;
	const char *src = HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,"
		"\"ts\":1.000,\"dur\":2}\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,"
		"\"tid\":8,\"ts\":1.500,\"dur\":2}\n{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,"
		"\"tid\":7,\"ts\":2.000,\"bp\":\"e\"}\n" TAIL;
	const char *a = "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100,"
		"\"ts\":1.000,\"dur\":2" NOTE(7, 0, "false") "\n{\"ph\":\"X\",\"cat\":\"kernel\","
		"\"name\":\"b\",\"pid\":0,\"tid\":101,\"ts\":1.500,\"dur\":2" NOTE(8, 1, "false") "\n";
	struct buf right = BUF_INIT, wrong = BUF_INIT;

	buf_addstr(&right, HEAD);
	buf_addstr(&right, a);
	buf_addstr(&wrong, right.p);
	buf_addstr(&right, "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":100,"
		   "\"ts\":2.000,\"bp\":\"e\"" NOTE(7, 2, "false") "\n" TAIL);
	buf_addstr(&wrong, "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":101,"
		   "\"ts\":2.000,\"bp\":\"e\"" NOTE(7, 2, "false") "\n" TAIL);
	run(&r, src, right.p, report_lanes);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	ck_assert_str_eq(figures(&r, VERIFYCHECK_RENDER), "0 guides, 2 lanes (at most 2 per "
			 "device), 1 flows on their kernels; depth 0 everywhere; 1 moved flows bind to "
			 "the slices they bind to in the source");
	done(&r);
	run(&r, src, wrong.p, report_lanes);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 1);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_RENDER), "output event 2: moved flow (source event "
			 "2) binds to output event 1 (source event 1) in the output, but to output "
			 "event 0 (source event 0) in the source: Perfetto would draw its arrow to "
			 "another slice");
	done(&r);
	buf_release(&right);
	buf_release(&wrong);
}
END_TEST

/* A name with an escape: the line is parsed whole (the member names could
 * be escaped too); the result is the same. */
START_TEST(test_placement_with_escape)
{
	struct run r;
	const char *src = HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\u0041\",\"pid\":0,"
		"\"tid\":7,\"ts\":1.000,\"dur\":2}\n" TAIL;
	const char *out = HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\u0041\",\"pid\":0,"
		"\"tid\":100,\"ts\":1.000,\"dur\":2" NOTE(7, 0, "false") "\n" TAIL;

	run(&r, src, out, report_lanes);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	ck_assert_str_eq(figures(&r, VERIFYCHECK_REVERSAL), "1 events compared, 1 placements "
			 "undone, 0 metadata restored, 4 events added by the tools");
	done(&r);
}
END_TEST

/* The note is found where its first mention is the note itself, and by a
 * walk over args where the first mention is elsewhere: inside a name, inside
 * a string of args; a note deeper in args is no note. */
START_TEST(test_note_found_by_its_place)
{
	static const char *const srcs[] = {
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"x_compact_gpu_track\",\"pid\":0,"
		"\"tid\":7,\"ts\":1.000,\"dur\":2}\n" TAIL,
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,"
		"\"ts\":1.000,\"dur\":2,\"args\":{\"s\":\"_compact_gpu_track\"}}\n" TAIL,
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,"
		"\"ts\":1.000,\"dur\":2,\"args\":{\"s\":\"_compact_gpu_track\\\":{\"}}\n" TAIL,
	};
	static const char *const outs[] = {
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"x_compact_gpu_track\",\"pid\":0,"
		"\"tid\":100,\"ts\":1.000,\"dur\":2" NOTE(7, 0, "false") "\n" TAIL,
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100,"
		"\"ts\":1.000,\"dur\":2,\"args\":{\"s\":\"_compact_gpu_track\",\"_compact_gpu_track\":"
		"{\"pid\":0,\"tid\":7,\"source_event_index\":0,\"had_args\":true}}}\n" TAIL,
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100,"
		"\"ts\":1.000,\"dur\":2,\"args\":{\"s\":\"_compact_gpu_track\\\":{\",\"_compact_gpu_track\":"
		"{\"pid\":0,\"tid\":7,\"source_event_index\":0,\"had_args\":true}}}\n" TAIL,
	};
	const char *deeper = HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,"
		"\"tid\":100,\"ts\":1.000,\"dur\":2,\"args\":{\"y\":{\"_compact_gpu_track\":{\"pid\":0,"
		"\"tid\":7,\"source_event_index\":0,\"had_args\":true}}}}\n" TAIL;
	size_t i;
	struct run r;

	for (i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		run(&r, srcs[i], outs[i], report_lanes);
		ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
		ck_assert_str_eq(figures(&r, VERIFYCHECK_REVERSAL), "1 events compared, 1 placements "
				 "undone, 0 metadata restored, 4 events added by the tools");
		done(&r);
	}
	run(&r, HEAD E0 "\n" TAIL, deeper, report_lanes);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_REVERSAL), "output event 0: malformed "
			 "_compact_gpu_track note");
	done(&r);
}
END_TEST

START_TEST(test_malformed_note)
{
	static const char *const outs[] = {
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100,"
		"\"ts\":1.000,\"dur\":2" NOTE(7, 0, "\"yes\"") "\n" TAIL,
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\u0041\",\"pid\":0,\"tid\":100,"
		"\"ts\":1.000,\"dur\":2" NOTE(7, 0, "\"yes\"") "\n" TAIL,
		/* had_args false, but args holds more than the note */
		HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100,"
		"\"ts\":1.000,\"dur\":2,\"args\":{\"x\":1,\"_compact_gpu_track\":{\"pid\":0,"
		"\"tid\":7,\"source_event_index\":0,\"had_args\":false}}}\n" TAIL,
	};
	size_t i;

	for (i = 0; i < sizeof outs / sizeof outs[0]; i++) {
		struct run r;
		run(&r, HEAD E0 "\n" TAIL, outs[i], report_lanes);
		ck_assert_str_eq(shown(&r, VERIFYCHECK_REVERSAL), "output event 0: malformed "
				 "_compact_gpu_track note");
		done(&r);
	}
}
END_TEST

/* A placement is checked forward from the source where the output is
 * exactly the source placed (pid and tid replaced, the note the last
 * member of args, or args itself); anything else is undone as before, with
 * the same verdicts: pid after tid, an empty args, args before another
 * member, objects and arrays in args pass; a note in the member after
 * args or deeper in args, a wrong index, a note whose tid is not the
 * source's, a moved event off the report's lanes, each fail as the
 * undoing says. */
#define PS(args) HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"tid\":7,\"pid\":0," \
	"\"ts\":1.000,\"dur\":2" args "}\n" TAIL
#define PO(tid, args) HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"tid\":" tid \
	",\"pid\":0,\"ts\":1.000,\"dur\":2" args "}\n" TAIL
#define PN(tid, i, had) "\"_compact_gpu_track\":{\"pid\":0,\"tid\":" tid \
	",\"source_event_index\":" i ",\"had_args\":" had "}"
START_TEST(test_placed_forward)
{
	static const struct {
		const char *src, *out, *reversal, *render;
	} cases[] = {
		{ PS(",\"args\":{\"a\":1}"), PO("100", ",\"args\":{\"a\":1," PN("7", "0", "true") "}"),
		  "", "" },
		{ PS(",\"args\":{}"), PO("101", ",\"args\":{" PN("7", "0", "true") "}"), "", "" },
		/* args with objects, arrays and brackets inside strings in them */
		{ PS(",\"args\":{\"a\":[1,{\"b\":\"}]{[\"}],\"c\":{\"d\":{}}}"),
		  PO("100", ",\"args\":{\"a\":[1,{\"b\":\"}]{[\"}],\"c\":{\"d\":{}}," PN("7", "0", "true")
		     "}"), "", "" },
		{ PS(",\"args\":{\"a\":[1,{\"b\":\"}]{[\"}],\"c\":{\"d\":{}}}"),
		  PO("100", ",\"args\":{\"a\":[1,{\"b\":\"}]{[\"}],\"c\":{\"d\":{}," PN("7", "0", "true")
		     "}}"), "output event 0: malformed _compact_gpu_track note", "" },
		{ PS(",\"args\":{\"a\":1},\"x\":{\"b\":2}"),
		  PO("100", ",\"args\":{\"a\":1," PN("7", "0", "true") "},\"x\":{\"b\":2}"), "", "" },
		{ PS(""), PO("100", ",\"args\":{" PN("7", "0", "false") "}"), "", "" },
		{ PS(",\"args\":{\"a\":1},\"x\":{\"b\":2}"),
		  PO("100", ",\"args\":{\"a\":1},\"x\":{\"b\":2," PN("7", "0", "true") "}"),
		  "output event 0: malformed _compact_gpu_track note", "" },
		{ PS(",\"args\":{\"a\":1}"), PO("100", ",\"args\":{\"a\":1," PN("7", "5", "true") "}"),
		  "output event 0: records source index 5 but stands at source position 0", "" },
		{ PS(",\"args\":{\"a\":1}"), PO("100", ",\"args\":{\"a\":1," PN("8", "0", "true") "}"),
		  "source event 0 (output event 0), after undoing its placement: byte 42: source "
		  "...at\":\"kernel\",\"name\":\"a\",\"tid\":7,\"pid\":0,\"ts\":1.000,\"dur\":2,"
		  "\"args\":{\"a\"... output ...at\":\"kernel\",\"name\":\"a\",\"tid\":8,\"pid\":0,"
		  "\"ts\":1.000,\"dur\":2,\"args\":{\"a\"...", "" },
		{ PS(",\"args\":{\"a\":1}"), PO("7", ",\"args\":{\"a\":1," PN("7", "0", "true") "}"),
		  "", "output event 0: moved (it has _compact_gpu_track) but not on a synthetic "
		  "lane of the report" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct run r;
		run(&r, cases[i].src, cases[i].out, report_lanes);
		ck_assert_int_eq(r.rc, 0);
		ck_assert_str_eq(shown(&r, VERIFYCHECK_REVERSAL), cases[i].reversal);
		ck_assert_str_eq(shown(&r, VERIFYCHECK_RENDER), cases[i].render);
		ck_assert_str_eq(figures(&r, VERIFYCHECK_REVERSAL), "1 events compared, 1 placements "
				 "undone, 0 metadata restored, 4 events added by the tools");
		done(&r);
	}
}
END_TEST

/* A flow at its kernel's ts is inside it; one at another ts of as many
 * bytes is converted afresh, and told outside. */
START_TEST(test_flow_ts_after_slice)
{
	struct run r;
	const char *src = HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,"
		"\"ts\":1.000,\"dur\":1}\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":7,"
		"\"ts\":1.000}\n{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":7,"
		"\"ts\":3.000}\n" TAIL;
	const char *out = HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100,"
		"\"ts\":1.000,\"dur\":1" NOTE(7, 0, "false") "\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":1,"
		"\"pid\":0,\"tid\":100,\"ts\":1.000" NOTE(7, 1, "false") "\n{\"ph\":\"f\",\"cat\":"
		"\"ac2g\",\"id\":1,\"pid\":0,\"tid\":100,\"ts\":3.000" NOTE(7, 2, "false") "\n" TAIL;

	run(&r, src, out, report_lanes);
	ck_assert_int_eq(r.rc, 0);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_RENDER), "output event 2: flow at 3000 ns is "
			 "inside no slice of its lane, so Perfetto would not attach it to its kernel");
	ck_assert_str_eq(figures(&r, VERIFYCHECK_REVERSAL), "3 events compared, 3 placements "
			 "undone, 0 metadata restored, 4 events added by the tools");
	done(&r);
}
END_TEST

/* Two slices on one lane that overlap once Perfetto converts their
 * microseconds to nanoseconds. */
START_TEST(test_overlap_on_a_lane)
{
	struct run r;
	const char *out = HEAD M0 "\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,"
		"\"tid\":100,\"ts\":2.000,\"dur\":2" NOTE(8, 1, "false") "\n" TAIL;

	run(&r, HEAD E0 "\n" E1 "\n" TAIL, out, report_lanes);
	ck_assert_uint_eq(r.vc.item[VERIFYCHECK_RENDER].failures, 1);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_RENDER), "output events 0 and 1 overlap on lane "
			 "(pid, tid 0,100) as Perfetto imports them ([1000, 3000) and [2000, 4000) "
			 "ns): the second would not be at depth 0");
	ck_assert_uint_eq(r.vc.item[VERIFYCHECK_REVERSAL].failures, 0);
	done(&r);
}
END_TEST

/* Slices that come out of time order on a lane are sorted first: three
 * that do not overlap pass, and an overlap is told between neighbours in
 * time, not in the file. */
#define SRC3(a, b, c) HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7," \
	"\"ts\":" a ",\"dur\":1}\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0," \
	"\"tid\":7,\"ts\":" b ",\"dur\":1}\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\"," \
	"\"pid\":0,\"tid\":7,\"ts\":" c ",\"dur\":1}\n" TAIL
#define OUT3(a, b, c) HEAD "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":100," \
	"\"ts\":" a ",\"dur\":1" NOTE(7, 0, "false") "\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":" \
	"\"b\",\"pid\":0,\"tid\":100,\"ts\":" b ",\"dur\":1" NOTE(7, 1, "false") "\n{\"ph\":\"X\"," \
	"\"cat\":\"kernel\",\"name\":\"c\",\"pid\":0,\"tid\":100,\"ts\":" c ",\"dur\":1" \
	NOTE(7, 2, "false") "\n" TAIL
START_TEST(test_lane_out_of_order)
{
	struct run r;

	run(&r, SRC3("5", "1", "3"), OUT3("5", "1", "3"), report_lanes);
	ck_assert_uint_eq(verifycheck_failures(&r.vc), 0);
	done(&r);
	run(&r, SRC3("5", "1", "4.5"), OUT3("5", "1", "4.5"), report_lanes);
	ck_assert_uint_eq(r.vc.item[VERIFYCHECK_RENDER].failures, 1);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_RENDER), "output events 2 and 0 overlap on lane "
			 "(pid, tid 0,100) as Perfetto imports them ([4500, 5500) and [5000, 6000) "
			 "ns): the second would not be at depth 0");
	done(&r);
}
END_TEST

enum { SPILLED_N = 150000 };

/* SPILLED_N slices on one lane, the last two overlapping, and two flows,
 * the second outside every slice. */
static void spilled_streams(struct buf *src, struct buf *out)
{
	enum { N = SPILLED_N };
	char line[512];
	size_t i;

	ck_assert_int_eq(buf_addstr(src, HEAD), 0);
	ck_assert_int_eq(buf_addstr(out, HEAD), 0);
	for (i = 0; i < N; i++) {
		/* slice i at 4i us, 2 us long; the last one starts inside the one before */
		unsigned long ts = i + 1 == N ? 4 * (unsigned long)i - 3 : 4 * (unsigned long)i;
		snprintf(line, sizeof line, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
			 "\"tid\":7,\"ts\":%lu,\"dur\":2}\n", ts);
		ck_assert_int_eq(buf_addstr(src, line), 0);
		snprintf(line, sizeof line, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
			 "\"tid\":100,\"ts\":%lu,\"dur\":2,\"args\":{\"_compact_gpu_track\":{\"pid\":0,"
			 "\"tid\":7,\"source_event_index\":%zu,\"had_args\":false}}}\n", ts, i);
		ck_assert_int_eq(buf_addstr(out, line), 0);
	}
	/* two flows on the lane: inside slice 10, and at 4 * 20 + 3 us, between slices */
	ck_assert_int_eq(buf_addstr(src, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":7,"
				    "\"ts\":41}\n{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":2,\"pid\":0,"
				    "\"tid\":7,\"ts\":83,\"bp\":\"e\"}\n"), 0);
	ck_assert_int_eq(buf_addstr(out, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":100,"
				    "\"ts\":41}\n{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":2,\"pid\":0,"
				    "\"tid\":100,\"ts\":83,\"bp\":\"e\"}\n"), 0);
	ck_assert_int_eq(buf_addstr(src, TAIL), 0);
	ck_assert_int_eq(buf_addstr(out, TAIL), 0);
}

/* More slices and flows than one sorted run holds (4 MiB of 32-byte
 * records): they go through the temporary file and come back merged, and
 * the checks are those of a small output: the one overlap, at the very
 * end, and the one flow outside every slice, told by its output index. */
START_TEST(test_many_slices_spilled)
{
	enum { N = SPILLED_N };
	struct run r;
	struct buf src = BUF_INIT, out = BUF_INIT;
	char want[512];

	spilled_streams(&src, &out);
	run(&r, src.p, out.p, report_lanes);
	ck_assert_uint_gt(r.v.slices.nspilled, 0);
	ck_assert_uint_eq(r.vc.item[VERIFYCHECK_RENDER].failures, 2);
	snprintf(want, sizeof want, "output events %d and %d overlap on lane (pid, tid 0,100) as "
		 "Perfetto imports them ([%ld000, %ld000) and [%ld000, %ld000) ns): the second "
		 "would not be at depth 0\noutput event %d: flow at 83000 ns is inside no slice of "
		 "its lane, so Perfetto would not attach it to its kernel", N - 2, N - 1,
		 4L * (N - 2), 4L * (N - 2) + 2, 4L * (N - 1) - 3, 4L * (N - 1) - 1, N + 1);
	ck_assert_str_eq(shown(&r, VERIFYCHECK_RENDER), want);
	done(&r);
	buf_release(&src);
	buf_release(&out);
}
END_TEST

/* The sorts' temporary file cannot be made: the run cannot go on (exit 2
 * in tr-verify), said with the reason. */
START_TEST(test_sort_without_tmpdir)
{
	struct run r;
	struct buf src = BUF_INIT, out = BUF_INIT;

	spilled_streams(&src, &out);
	setenv("TMPDIR", "/nonexistent/check_verify", 1);
	run(&r, src.p, out.p, report_lanes);
	unsetenv("TMPDIR");
	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.vc.error, VERIFYCHECK_TROUBLE);
	ck_assert_str_eq(r.vc.err, "temporary file: No such file or directory");
	done(&r);
	buf_release(&src);
	buf_release(&out);
}
END_TEST

START_TEST(test_identity_claim)
{
	struct run r;
	char want[512];
	const char *report = "{\"source_sha256\":\"ffff\",\"max_lanes\":2,\"groups\":[],"
		"\"retired_track_metadata\":[]}";

	run(&r, HEAD E0 "\n" TAIL, HEAD E0 "\n" TAIL, report);
	snprintf(want, sizeof want, "%s: source_sha256 ffff, but src.json has ab12 (93 bytes): "
		 "the source changed or is another file", path_of("r.compact.json"));
	ck_assert_str_eq(shown(&r, VERIFYCHECK_IDENTITY), want);
	done(&r);
}
END_TEST

/* A report that names its source: the message names it; the other checks
 * stay (a source changed in place is named down to the event), as only a
 * window report stops the report at that line (t-window). */
START_TEST(test_identity_claim_names_source)
{
	struct run r;
	char want[512];
	const char *report = "{\"source_sha256\":\"ffff\",\"source_file\":\"t\\u00e9.json\","
		"\"max_lanes\":2,\"groups\":[],\"retired_track_metadata\":[]}";

	run(&r, HEAD E0 "\n" TAIL, HEAD E0 "\n" TAIL, report);
	snprintf(want, sizeof want, "%s: source_sha256 ffff, but src.json has ab12 (93 bytes): "
		 "the source changed or is another file (the report was made from t\xc3\xa9.json)",
		 path_of("r.compact.json"));
	ck_assert_str_eq(shown(&r, VERIFYCHECK_IDENTITY), want);
	ck_assert_int_eq(r.vc.stop, 0);
	done(&r);
}
END_TEST

START_TEST(test_report_errors)
{
	struct verifycheck vc;
	struct verify v;
	char want[512];

	verifycheck_init(&vc);
	verify_init(&v, &vc, "src.json", "out.json");
	ck_assert_int_eq(verify_load_report(&v, "/dev/null"), -1);
	ck_assert_str_eq(vc.err, "/dev/null: not a regular file (a report is the file tr-encode "
			 "writes beside its output)");
	verify_free(&v);
	verifycheck_free(&vc);

	verifycheck_init(&vc);
	verify_init(&v, &vc, "src.json", "out.json");
	write_file("bad.json", "{\"a\" 1}");
	ck_assert_int_eq(verify_load_report(&v, path_of("bad.json")), -1);
	snprintf(want, sizeof want, "%s: not a JSON object: byte 5: expected ':'",
		 path_of("bad.json"));
	ck_assert_str_eq(vc.err, want);
	verify_free(&v);
	verifycheck_free(&vc);

	verifycheck_init(&vc);
	verify_init(&v, &vc, "src.json", "out.json");
	write_file("neither.json", "{\"source_sha256\":\"ab12\"}");
	ck_assert_int_eq(verify_load_report(&v, path_of("neither.json")), -1);
	snprintf(want, sizeof want, "%s: neither a layers nor a compaction report",
		 path_of("neither.json"));
	ck_assert_str_eq(vc.err, want);
	verify_free(&v);
	verifycheck_free(&vc);
}
END_TEST

START_TEST(test_reader)
{
	struct trstream_report rep;
	struct trstream_error e;
	struct trstream_rows rows;
	struct buf head = BUF_INIT, whole = BUF_INIT;
	uint64_t at, n;

	write_file("l.json", "{\"a\":1,\"layers\":[{\"r\":0}, {\"r\":1}],\"b\":[2]}\n\n");
	ck_assert_int_eq(trstream_report_open(&rep, path_of("l.json"), &e), 0);
	ck_assert_int_eq(trstream_report_head(&rep, "\"layers\"", &head, &at, &n, &e), 0);
	ck_assert_str_eq(head.p, "{\"a\":1,\"b\":[2]}");
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(at, 17);
	ck_assert_int_eq(trstream_rows_open(&rows, rep.fd, at, n), 0);
	ck_assert_int_eq(trstream_rows_next(&rows, &e), 1);
	ck_assert_str_eq(rows.row.p, "{\"r\":0}");
	ck_assert_int_eq(trstream_rows_next(&rows, &e), 1);
	ck_assert_str_eq(rows.row.p, "{\"r\":1}");
	ck_assert_int_eq(trstream_rows_next(&rows, &e), 0);
	trstream_rows_free(&rows);
	ck_assert_int_eq(trstream_report_whole(&rep, 100, 1, &whole, &e), 0);
	ck_assert_str_eq(whole.p, "{\"a\":1,\"layers\":[{\"r\":0}, {\"r\":1}],\"b\":[2]}\n\n");
	ck_assert_uint_eq(whole.len, 43);
	close(rep.fd);
	buf_reset(&whole);
	ck_assert_int_eq(trstream_report_open(&rep, path_of("l.json"), &e), 0);
	ck_assert_int_eq(trstream_report_whole(&rep, 10, 1, &whole, &e), -1);
	ck_assert_int_eq(e.kind, TRSTREAM_ERR_TOO_BIG);
	ck_assert_uint_eq(e.size, 45);
	ck_assert_int_eq(trstream_report_whole(&rep, 10, 0, &whole, &e), -1);
	ck_assert_int_eq(e.kind, TRSTREAM_ERR_TOO_BIG);
	ck_assert_uint_eq(e.size, 0);
	close(rep.fd);
	buf_reset(&head);
	write_file("t.json", "{\"a\":1} x");
	ck_assert_int_eq(trstream_report_open(&rep, path_of("t.json"), &e), 0);
	ck_assert_int_eq(trstream_report_head(&rep, "\"layers\"", &head, &at, &n, &e), -1);
	ck_assert_int_eq(e.kind, TRSTREAM_ERR_INPUT);
	ck_assert_str_eq(e.msg, "not a JSON object: byte 8: text after the object");
	close(rep.fd);
	ck_assert_int_eq(trstream_report_open(&rep, path_of("absent.json"), &e), -1);
	ck_assert_int_eq(e.kind, TRSTREAM_ERR_SYSTEM);
	ck_assert_str_eq(e.msg, "");
	buf_release(&head);
	buf_release(&whole);
}
END_TEST

START_TEST(test_record_members)
{
	struct jdoc d = JDOC_INIT;
	const char *raw;
	size_t n;

	ck_assert_int_eq(trstream_record_members(&d, TAIL, strlen(TAIL) - 1, &raw, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(memcmp(raw, "{}", 2), 0);
	ck_assert_int_eq(trstream_record_members(&d, E0, strlen(E0), &raw, &n), -1);
	json_free(&d);
}
END_TEST

/* The report of a window of E0 and E1 that keeps E0, its claims
 * formatted in: start_ns, end_ns, start_us, kept complete, bytes_written. */
#define WREPORT(w0, w1, u0, kept, bytes) \
	"{" SHA ",\"spec\":\"--from 0\",\"window_start_ns\":" w0 ",\"window_end_ns\":" w1 \
	",\"window_start_us\":" u0 ",\"window_end_us\":5.000,\"source_events\":2," \
	"\"kept\":{\"complete\":" kept ",\"duration\":0,\"instant\":0,\"counter\":0," \
	"\"metadata\":0,\"flow\":0,\"async\":0,\"other\":0},\"dropped\":{\"complete\":1," \
	"\"duration\":0,\"instant\":0,\"counter\":0,\"metadata\":0,\"flow\":0,\"async\":0," \
	"\"other\":0},\"flows_dropped_end_outside\":1,\"async_dropped_end_outside\":0," \
	"\"bytes_written\":" bytes ",\"dropped_events\":[{\"source_index\":1}]}\n"

/* The window check of that report: its first failure, or "" when none. */
static void window_claims_are(const char *report, const char *want)
{
	struct verifycheck vc;
	struct verify v;
	struct stream_in src, out;

	verifycheck_init(&vc);
	verify_init(&v, &vc, path_of("none.json"), "w.json");
	write_file("w.window.json", report);
	ck_assert_int_eq(verify_window_load(&v, path_of("w.window.json")), 0);
	stream_of(&src, "src.stream", HEAD E0 "\n" E1 "\n" TAIL);
	stream_of(&out, "out.stream", HEAD E0 "\n" TAIL);
	ck_assert_int_eq(verify_window_events(&v, &src, &out), 0);
	ck_assert_str_eq(vc.item[VERIFYCHECK_WINDOW].shown.p, want);
	stream_in_free(&src);
	stream_in_free(&out);
	verify_free(&v);
	verifycheck_free(&vc);
}

/* Each claim of the report is checked against the window and the source. */
START_TEST(test_window_claims)
{
	window_claims_are(WREPORT("0", "5000", "0.000", "1", "72"), "");
	window_claims_are(WREPORT("5000", "0", "0.000", "1", "72"), "the report's window starts "
			  "after it ends (window_start_ns 5000, window_end_ns 0)\n"
			  "the report's window_start_us 0.000 is not its window_start_ns 5000 (5.000 us)\n"
			  "the report's window_end_us 5.000 is not its window_end_ns 0 (0.000 us)");
	window_claims_are(WREPORT("0", "5000", "0.001", "1", "72"), "the report's window_start_us "
			  "0.001 is not its window_start_ns 0 (0.000 us)");
	window_claims_are(WREPORT("0", "5000", "0.000", "0", "72"), "the report's kept.complete "
			  "0 is not the 1 events of that category in the window");
	window_claims_are(WREPORT("0", "5000", "0.000", "1", "1"), "the report's bytes_written 1 "
			  "is not the 72 bytes of the window's event lines");
}
END_TEST

/* A window of two events keeps the first; the second overlaps the window
 * and is listed as dropped. */
START_TEST(test_window)
{
	struct verifycheck vc;
	struct verify v;
	struct stream_in src, out;

	verifycheck_init(&vc);
	verify_init(&v, &vc, path_of("none.json"), "w.json");
	write_file("w.window.json", WREPORT("0", "5000", "0.000", "1", "72"));
	ck_assert_int_eq(verify_window_load(&v, path_of("w.window.json")), 0);
	stream_of(&src, "src.stream", HEAD E0 "\n" E1 "\n" TAIL);
	stream_of(&out, "out.stream", HEAD E0 "\n" TAIL);
	ck_assert_int_eq(verify_window_events(&v, &src, &out), 0);
	verify_window_finish(&v);
	ck_assert_uint_eq(verifycheck_failures(&vc), 0);
	ck_assert_str_eq(vc.item[VERIFYCHECK_WINDOW].figures.p, "1 events of 2 kept, byte for "
			 "byte and in order; 1 overlapping events dropped as the report says, 0 "
			 "missing; window \"--from 0\"");
	stream_in_free(&src);
	stream_in_free(&out);
	verify_free(&v);
	verifycheck_free(&vc);

	/* the same without the dropped row: the second is missing */
	verifycheck_init(&vc);
	verify_init(&v, &vc, path_of("none.json"), "w.json");
	write_file("w.window.json", "{" SHA ",\"spec\":\"--from 0\",\"window_start_ns\":0,"
		   "\"window_end_ns\":5000,\"window_start_us\":0.000,\"window_end_us\":5.000,"
		   "\"dropped_events\":[]}\n");
	ck_assert_int_eq(verify_window_load(&v, path_of("w.window.json")), 0);
	stream_of(&src, "src.stream", HEAD E0 "\n" E1 "\n" TAIL);
	stream_of(&out, "out.stream", HEAD E0 "\n" TAIL);
	ck_assert_int_eq(verify_window_events(&v, &src, &out), 0);
	ck_assert_str_eq(vc.item[VERIFYCHECK_WINDOW].shown.p, "source event 1 overlaps the "
			 "window but is not in it, and the report does not list it as dropped");
	stream_in_free(&src);
	stream_in_free(&out);
	verify_free(&v);
	verifycheck_free(&vc);
}
END_TEST

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[300];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/check_verify.XXXXXX");
}

static Suite *verify_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("streams");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_equal);
	tcase_add_test(tc, test_one_byte);
	tcase_add_test(tc, test_dropped_and_added);
	tcase_add_test(tc, test_no_tail);
	tcase_add_test(tc, test_placements_undone);
	tcase_add_test(tc, test_flow_bound_elsewhere);
	tcase_add_test(tc, test_placement_with_escape);
	tcase_add_test(tc, test_malformed_note);
	tcase_add_test(tc, test_note_found_by_its_place);
	tcase_add_test(tc, test_placed_forward);
	tcase_add_test(tc, test_flow_ts_after_slice);
	tcase_add_test(tc, test_overlap_on_a_lane);
	tcase_add_test(tc, test_lane_out_of_order);
	tcase_add_test(tc, test_many_slices_spilled);
	tcase_add_test(tc, test_sort_without_tmpdir);
	tcase_add_test(tc, test_identity_claim);
	tcase_add_test(tc, test_identity_claim_names_source);
	tcase_add_test(tc, test_report_errors);
	tcase_add_test(tc, test_reader);
	tcase_add_test(tc, test_record_members);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_window_claims);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(verify_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
