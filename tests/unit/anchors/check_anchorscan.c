/* Unit tests for common/anchors/anchorscan.c: events in, the exact anchors and
 * anchor records out (origin, used tids, terminals), and each refusal with
 * its exact text and status: a bad pattern, an existing guide track, a
 * kernel matching two patterns, no match, several pids, a truncated
 * selection, a terminal count, a selection that is not whole passes, a
 * negative kernel dur; the same records and
 * evidence when the texts went to the text store's temporary file, and
 * the trouble when it cannot be made. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors/anchorscan.h"

static struct anchorscan_options opts(const char *re, const char *end, int64_t layers,
				      int64_t offset, int64_t passes)
{
	struct anchorscan_options o;

	memset(&o, 0, sizeof o);
	o.anchor_regex = re;
	o.end_regex = end;
	o.num_layers = layers;
	o.offset = offset;
	o.passes = passes;
	return o;
}

/* Feed the lines; the status of the first refusal (or of finish). */
static int run(struct anchorscan *s, const struct anchorscan_options *o,
	       const char *const *lines, size_t n, struct buf *msg)
{
	size_t i;
	int rc;

	memset(s, 0, sizeof *s);
	if ((rc = anchorscan_init(s, o, "tr-select-anchors", msg)) != ANCHORSCAN_OK)
		return rc;
	for (i = 0; i < n; i++)
		if ((rc = anchorscan_event(s, lines[i], strlen(lines[i]), msg)) != ANCHORSCAN_OK)
			return rc;
	return anchorscan_finish(s, msg);
}

#define K(ts, dur, name) \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" ts \
	",\"dur\":" dur ",\"args\":{\"device\":0}}"

static const char *const two_layers[] = {
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"tid\":3,\"ts\":5}",
	K("10", "1", "attn"), K("12", "0.5", "end"), K("20", "1", "attn"),
	K("22.25", "1", "end"), K("60", "1", "attn"),
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":9,\"tid\":9,\"ts\":2.5,\"dur\":1}",
};

START_TEST(test_records)
{
	struct anchorscan_options o = opts("^attn$", "end", 2, 0, 1);
	struct anchorscan s;
	struct buf msg = BUF_INIT, b = BUF_INIT;

	ck_assert_int_eq(run(&s, &o, two_layers, 7, &msg), ANCHORSCAN_OK);
	ck_assert_uint_eq(s.nanchors, 3);
	ck_assert_uint_eq(s.need, 2);
	ck_assert_int_eq(anchorscan_put_anchors(&s, &b), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchors\",\"anchor_regex\":\"^attn$\",\"end_anchor_regex\":"
			 "\"end\",\"confirm_regex\":null,\"confirm_cpu\":false,\"anchor_offset\":0,"
			 "\"matching_anchor_count\":3,\"num_layers\":2,\"first_layer\":0,\"passes\":1,"
			 "\"pid\":0,\"device\":0,\"trace_origin_ns\":2500,\"trace_origin_us\":2.500,"
			 "\"used_tids\":[3,7]}");
	buf_reset(&b);
	ck_assert_int_eq(anchorscan_put_anchor(&s, 1, &b, &msg), ANCHORSCAN_OK);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchor\",\"i\":1,\"pass\":0,\"layer\":1,\"anchor_index\":1,"
			 "\"anchor\":{\"source_index\":3,\"pid\":0,\"tid\":7,\"device\":0,\"ts\":20,"
			 "\"dur\":1,\"ts_ns\":20000,\"dur_ns\":1000,\"name\":\"attn\"},\"terminal\":"
			 "{\"source_index\":4,\"pid\":0,\"tid\":7,\"device\":0,\"ts\":22.25,\"dur\":1,"
			 "\"ts_ns\":22250,\"dur_ns\":1000,\"name\":\"end\"}}");
	anchorscan_free(&s);
	buf_release(&msg);
	buf_release(&b);
}
END_TEST

static void refused(const struct anchorscan_options *o, const char *const *lines, size_t n,
		    int status, const char *want)
{
	struct anchorscan s;
	struct buf msg = BUF_INIT;

	ck_assert_int_eq(run(&s, o, lines, n, &msg), status);
	ck_assert_str_eq(msg.p, want);
	anchorscan_free(&s);
	buf_release(&msg);
}

START_TEST(test_refusals)
{
	struct anchorscan_options o = opts("^attn$", NULL, 2, 2, 1);
	static const char *const guide[] = {
		"{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":0,\"tid\":1,\"ts\":1}"
	};
	static const char *const pids[] = {
		K("10", "1", "attn"),
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"attn\",\"pid\":1,\"tid\":7,\"ts\":11,"
		"\"dur\":1}",
	};
	static const char *const negative[] = {
		K("10", "1", "attn"), K("11", "-2", "other"), K("20", "1", "attn"),
	};

	refused(&o, two_layers, 7, ANCHORSCAN_REFUSED,
		"truncated selection: 3 kernels match in pid 0, device 0; from --anchor-offset 2 "
		"there are 1, but --num-layers 2 x --passes 1 needs 2\n"
		"  sorted matches at ts: [0] 10 [1] 20 [2] 60\n"
		"tr-select-anchors: lower --anchor-offset, --passes or --num-layers, or profile a "
		"longer window");
	o.offset = 0;
	refused(&o, guide, 1, ANCHORSCAN_REFUSED, "event 0: the trace already has layer guides "
		"(cat layer_guide); start from the original trace");
	refused(&o, pids, 2, ANCHORSCAN_REFUSED, "anchor matches fall in several pids:\n"
		"  pid 0, device 0: 1 matches; first in source order at ts 10\n"
		"  pid 1, device (none): 1 matches; first in source order at ts 11\n"
		"tr-select-anchors: choose one with --pid");
	refused(&o, negative, 3, ANCHORSCAN_REFUSED, "event 1 (ts 11): kernel \"other\" has a "
		"negative dur (-2); Perfetto would misplace it and the trace bounds, so no guides "
		"are added to this trace");
	o.anchor_regex = "nothing";
	refused(&o, two_layers, 7, ANCHORSCAN_REFUSED, "no X kernel event matches --anchor-regex "
		"'nothing'\ntr-select-anchors: check the kernel name (tr-survey lists candidates) "
		"and --pid/--device");
	o = opts("attn|end", "end", 2, 0, 1);
	refused(&o, two_layers, 7, ANCHORSCAN_REFUSED, "event 2: kernel 'end' matches both "
		"--anchor-regex and --end-anchor-regex; make the patterns exclusive");
	o = opts("^attn$", "end", 3, 0, 1);
	refused(&o, two_layers, 7, ANCHORSCAN_REFUSED, "anchor 2 (event 5, ts 60): 0 kernels "
		"match --end-anchor-regex between it and the end of the trace; exactly one is "
		"needed");
	o = opts("(", NULL, 1, 0, 1);
	{
		struct anchorscan s;
		struct buf msg = BUF_INIT;

		memset(&s, 0, sizeof s);
		ck_assert_int_eq(anchorscan_init(&s, &o, "tr-select-anchors", &msg),
				 ANCHORSCAN_TROUBLE);
		ck_assert_int_eq(strncmp(msg.p, "--anchor-regex: ", 16), 0);
		anchorscan_free(&s);
		buf_release(&msg);
	}
}
END_TEST

#define STEP(ts, cat, pid) \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"ProfilerStep#1\",\"pid\":" pid \
	",\"tid\":7,\"ts\":" ts ",\"dur\":5}"

/* Not whole passes: the boundaries against the rhythm inside passes, and
 * GPU ProfilerStep starts inside a pass, each with its numbers and the
 * ways out. */
START_TEST(test_shape)
{
	/* two passes of 3, 10 us apart inside, 100 us between */
	static const char *const passes[] = {
		K("10", "1", "attn"), K("20", "1", "attn"), K("30", "1", "attn"),
		K("130", "1", "attn"), K("140", "1", "attn"), K("150.5", "1", "attn"),
		STEP("5", "gpu_user_annotation", "0"), STEP("25", "user_annotation", "0"),
		STEP("25", "gpu_user_annotation", "1"), STEP("80", "gpu_user_annotation", "0"),
	};
	static const char *const step_inside[] = {
		K("10", "1", "attn"), K("20", "1", "attn"), K("30", "1", "attn"),
		K("130", "1", "attn"), K("140", "1", "attn"), K("150.5", "1", "attn"),
		STEP("5", "gpu_user_annotation", "0"), STEP("140", "gpu_user_annotation", "0"),
	};
	static const char *const ways =
		"tr-select-anchors: the anchor may run more than once per layer, or the passes may "
		"not have 2 layers: see the count per pass with tr-survey --num-layers 2, then "
		"choose --num-layers, --passes and --anchor-offset that select whole passes, or add "
		"--confirm-regex with a kernel that runs once per layer";
	struct anchorscan_options o = opts("^attn$", NULL, 3, 0, 2);
	struct anchorscan s;
	struct buf msg = BUF_INIT, want = BUF_INIT;

	/* whole passes; the CPU step and the other pid's step inside pass 0 are
	 * not evidence */
	ck_assert_int_eq(run(&s, &o, passes, 10, &msg), ANCHORSCAN_OK);
	anchorscan_free(&s);
	o = opts("^attn$", NULL, 3, 3, 1);
	ck_assert_int_eq(run(&s, &o, passes, 10, &msg), ANCHORSCAN_OK);
	anchorscan_free(&s);
	/* passes of 2: the boundary is a gap inside a pass of 3 */
	o = opts("^attn$", NULL, 2, 0, 3);
	buf_addstr(&want, "the selection is not whole passes: between passes 0 and 1 (anchors at "
		   "ts 20 and 30, events 1 and 2) the gap is 10.000 us, no longer than 5/4 of the "
		   "anchors' rhythm beside it (inside pass 0: 10.000 us; inside pass 1: "
		   "100.000 us): a boundary at the passes' own rhythm cuts a pass\n"
		   "  6 kernels match in pid 0, device 0 (3 x 2); --num-layers 2 x --passes 3 from "
		   "--anchor-offset 0 uses 6 of them\n");
	buf_addstr(&want, ways);
	refused(&o, passes, 10, ANCHORSCAN_REFUSED, want.p);
	/* one pass of 2: the match after it goes on at its rhythm */
	o = opts("^attn$", NULL, 2, 0, 1);
	buf_reset(&want);
	buf_addstr(&want, "the selection is not whole passes: from its last anchor (ts 20, event 1) "
		   "to the next match (ts 30, event 2) the gap is 10.000 us, no longer than 5/4 of "
		   "the anchors' rhythm beside it (inside pass 0: 10.000 us; the matches after "
		   "(1 gap): 100.000 us): a boundary at the passes' own rhythm cuts a pass\n"
		   "  6 kernels match in pid 0, device 0 (3 x 2); --num-layers 2 x --passes 1 from "
		   "--anchor-offset 0 uses 2 of them\n");
	buf_addstr(&want, ways);
	refused(&o, passes, 10, ANCHORSCAN_REFUSED, want.p);
	/* from offset 4: the match before it */
	o = opts("^attn$", NULL, 2, 4, 1);
	buf_reset(&want);
	buf_addstr(&want, "the selection is not whole passes: from the match before it (ts 130, "
		   "event 3) to its first anchor (ts 140, event 4) the gap is 10.000 us, no longer "
		   "than 5/4 of the anchors' rhythm beside it (the matches before (1 gap): "
		   "100.000 us; inside pass 0: 10.500 us): a boundary at the passes' own rhythm "
		   "cuts a pass\n"
		   "  6 kernels match in pid 0, device 0 (3 x 2); --num-layers 2 x --passes 1 from "
		   "--anchor-offset 4 uses 2 of them\n");
	buf_addstr(&want, ways);
	refused(&o, passes, 10, ANCHORSCAN_REFUSED, want.p);
	/* a GPU step starts inside pass 1 */
	o = opts("^attn$", NULL, 3, 0, 2);
	refused(&o, step_inside, 8, ANCHORSCAN_REFUSED,
		"the selection is not whole passes: pass 1 (anchors at ts 130 to 150.5) straddles "
		"a step: a ProfilerStep (GPU annotation) starts at ts 140.000 inside it\n"
		"  6 kernels match in pid 0, device 0; per step (2 steps): 0 before the first, 4, 2\n"
		"tr-select-anchors: the anchor may run more than once per layer, or the passes may "
		"not have 3 layers: see the count per pass with tr-survey --num-layers 3, then "
		"choose --num-layers, --passes and --anchor-offset that select whole passes, or add "
		"--confirm-regex with a kernel that runs once per layer");
	buf_release(&msg);
	buf_release(&want);
}
END_TEST

/* n layers of an anchor and its terminal, ts texts of several shapes;
 * every 10 layers a pass ends (1 ms more between passes). */
static char **many_layers(size_t n)
{
	char **v = malloc(2 * n * sizeof *v);
	size_t i;

	ck_assert_ptr_nonnull(v);
	for (i = 0; i < n; i++) {
		v[2 * i] = malloc(200);
		v[2 * i + 1] = malloc(200);
		ck_assert_ptr_nonnull(v[2 * i]);
		ck_assert_ptr_nonnull(v[2 * i + 1]);
		sprintf(v[2 * i], "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"attn\",\"pid\":0,"
			"\"tid\":%zu,\"ts\":%zu.%0*zu,\"dur\":1,\"args\":{\"device\":0}}",
			7 + i % 2, 100 * i + 10 + 1000 * (i / 10), (int)(i % 4), i % 4 ? i % 10 : 0);
		if (i % 4 == 0)  /* "%0*zu" with width 0 still writes a digit */
			sprintf(strchr(v[2 * i], '.'), ",\"dur\":1,\"args\":{\"device\":0}}");
		sprintf(v[2 * i + 1], "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"end\",\"pid\":0,"
			"\"tid\":7,\"ts\":%zu.5,\"dur\":2.50,\"args\":{\"device\":0}}",
			100 * i + 50 + 1000 * (i / 10));
	}
	return v;
}

/* The records of a selection: the anchors record, then each anchor's. */
static void records(struct anchorscan *s, struct buf *out)
{
	struct buf msg = BUF_INIT;
	size_t i;

	ck_assert_int_eq(anchorscan_put_anchors(s, out), 0);
	for (i = 0; i < s->need; i++) {
		buf_addch(out, '\n');
		ck_assert_int_eq(anchorscan_put_anchor(s, i, out, &msg), ANCHORSCAN_OK);
	}
	buf_release(&msg);
}

/* Past the text store's bound the ts and dur texts go to the temporary
 * file: the records and the refusals' evidence are the same as in memory. */
START_TEST(test_spilled_texts)
{
	size_t n = 400, i;
	char **lines = many_layers(n);
	struct anchorscan_options o = opts("^attn$", "^end$", 10, 0, 40);
	struct anchorscan s;
	struct buf msg = BUF_INIT, mem = BUF_INIT, file = BUF_INIT;
	const char *last;

	ck_assert_int_eq(run(&s, &o, (const char *const *)lines, 2 * n, &msg), ANCHORSCAN_OK);
	ck_assert_int_eq(textspill_created(&s.store), 0);
	records(&s, &mem);
	anchorscan_free(&s);
	o.store_bound = 64;
	ck_assert_int_eq(run(&s, &o, (const char *const *)lines, 2 * n, &msg), ANCHORSCAN_OK);
	ck_assert_int_eq(textspill_created(&s.store), 1);
	records(&s, &file);
	anchorscan_free(&s);
	ck_assert_str_eq(file.p, mem.p);
	last = strrchr(file.p, '\n') + 1;
	ck_assert_str_eq(last, "{\"@tr\":\"anchor\",\"i\":399,\"pass\":39,\"layer\":9,"
			 "\"anchor_index\":399,\"anchor\":{\"source_index\":798,\"pid\":0,\"tid\":8,"
			 "\"device\":0,\"ts\":78910.009,\"dur\":1,\"ts_ns\":78910009,\"dur_ns\":1000,"
			 "\"name\":\"attn\"},\"terminal\":{\"source_index\":799,\"pid\":0,\"tid\":7,"
			 "\"device\":0,\"ts\":78950.5,\"dur\":2.50,\"ts_ns\":78950500,"
			 "\"dur_ns\":2500,\"name\":\"end\"}}");

	/* the refusals that quote texts, from the file */
	o = opts("^attn$", NULL, 10, 395, 1);
	o.store_bound = 64;
	refused(&o, (const char *const *)lines, 2 * n, ANCHORSCAN_REFUSED,
		"truncated selection: 400 kernels match in pid 0, device 0; from --anchor-offset "
		"395 there are 5, but --num-layers 10 x --passes 1 needs 10\n"
		"  sorted matches at ts: [0] 10 [1] 110.1 [2] 210.02 [3] 310.003 [4] 410 "
		"[5] 510.5 ...\n"
		"tr-select-anchors: lower --anchor-offset, --passes or --num-layers, or profile a "
		"longer window");
	o = opts("^attn$|^end$", NULL, 4, 0, 1);
	o.store_bound = 64;
	free(lines[3]);
	lines[3] = strdup("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"end\",\"pid\":0,"
			  "\"tid\":7,\"ts\":150.5,\"dur\":-2.5,\"args\":{\"device\":0}}");
	ck_assert_ptr_nonnull(lines[3]);
	refused(&o, (const char *const *)lines, 2 * n, ANCHORSCAN_REFUSED,
		"event 3: selected anchor kernel has a negative dur (-2.5)");
	o = opts("^attn$", "^end$", 4, 0, 1);
	o.store_bound = 64;
	refused(&o, (const char *const *)lines, 2 * n, ANCHORSCAN_REFUSED,
		"event 3: selected terminal kernel has a negative dur (-2.5)");
	free(lines[3]);
	lines[3] = strdup("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"end\",\"pid\":0,"
			  "\"tid\":7,\"ts\":150.5,\"dur\":1e2,\"args\":{\"device\":0}}");
	ck_assert_ptr_nonnull(lines[3]);
	refused(&o, (const char *const *)lines, 2 * n, ANCHORSCAN_REFUSED,
		"terminal kernel (event 3, ts 150.5, dur 1e2) ends after the next anchor starts "
		"(event 4, ts 210.02)");
	for (i = 0; i < 2 * n; i++)
		free(lines[i]);
	free(lines);
	buf_release(&msg);
	buf_release(&mem);
	buf_release(&file);
}
END_TEST

/* A text store that must spill with no TMPDIR to spill to: trouble, where. */
START_TEST(test_spill_trouble)
{
	char **lines = many_layers(4);
	struct anchorscan_options o = opts("^attn$", NULL, 1, 0, 1);
	struct anchorscan s;
	struct buf msg = BUF_INIT;
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	size_t i;

	o.store_bound = 16;
	setenv("TMPDIR", "/nonexistent/check_anchorscan", 1);
	ck_assert_int_eq(run(&s, &o, (const char *const *)lines, 8, &msg), ANCHORSCAN_TROUBLE);
	ck_assert_str_eq(msg.p, "temporary file in /nonexistent/check_anchorscan: No such file "
			 "or directory");
	anchorscan_free(&s);
	if (old != NULL)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	for (i = 0; i < 8; i++)
		free(lines[i]);
	free(lines);
	buf_release(&msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("anchorscan");
	TCase *tc = tcase_create("scan");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_records);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_shape);
	tcase_add_test(tc, test_spilled_texts);
	tcase_add_test(tc, test_spill_trouble);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
