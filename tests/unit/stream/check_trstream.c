/* Unit tests for common/stream/trstream.c: the exact bytes of each control
 * record (tr-encode and tr-decode recognise records by their first bytes,
 * tr-stream(5)), that written records parse as JSON and read back as
 * written, the exact refusals of malformed records, and the source_sha256
 * copied from a tail record. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stream/trstream.h"

static void assert_json(const struct buf *b)
{
	struct jdoc d = JDOC_INIT;

	ck_assert_msg(json_parse(&d, b->p, b->len, NULL) == 0, "not JSON: %s", b->p);
	ck_assert_int_eq(json_type(&d, 0), JT_OBJECT);
	json_free(&d);
}

START_TEST(test_names)
{
	ck_assert_str_eq(TRSTREAM_KEY_COMPACT_TRACK, "_compact_gpu_track");
	ck_assert_str_eq(TRSTREAM_KEY_SOURCE_SHA256, "source_sha256");
	ck_assert_str_eq(TRSTREAM_LAYERS_SUFFIX, ".layers.json");
	ck_assert_str_eq(TRSTREAM_COMPACT_SUFFIX, ".compact.json");
}
END_TEST

START_TEST(test_record_begin)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(trstream_record_begin(&b, TRSTREAM_ANCHORS), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchors\"");
	buf_addstr(&b, ",\"n\":1}");
	assert_json(&b);
	buf_reset(&b);
	trstream_record_begin(&b, TRSTREAM_ANCHOR);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchor\"");
	buf_release(&b);
}
END_TEST

START_TEST(test_report_body)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(trstream_report_body(&b, TRSTREAM_COMPACT_SUFFIX), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".compact.json\",\"body\":");
	buf_addstr(&b, "{\"schema_version\":1}}");
	assert_json(&b);
	buf_release(&b);
}
END_TEST

START_TEST(test_report_member)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(trstream_report_member(&b, TRSTREAM_LAYERS_SUFFIX, "tool_version", 0), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".layers.json\",\"member\":"
			 "\"tool_version\",\"body\":");
	buf_addstr(&b, "\"x\"}");
	assert_json(&b);
	buf_reset(&b);
	trstream_report_member(&b, TRSTREAM_LAYERS_SUFFIX, "layers", 1);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".layers.json\",\"member\":"
			 "\"layers\",\"items\":[");
	buf_addstr(&b, "{\"a\":1},{\"a\":2}]}");
	assert_json(&b);
	buf_release(&b);
}
END_TEST

static void sha_of(const char *tail, const char *want)
{
	struct jdoc d = JDOC_INIT;
	struct buf b = BUF_INIT;

	ck_assert_int_eq(json_parse(&d, tail, strlen(tail), NULL), 0);
	ck_assert_int_eq(trstream_put_source_sha256(&b, &d), 0);
	ck_assert_str_eq(b.p, want);
	json_free(&d);
	buf_release(&b);
}

START_TEST(test_source_sha256)
{
	sha_of("{\"@tr\":\"tail\",\"events\":3,\"source_sha256\":\"ab\\u0063\"}", "\"ab\\u0063\"");
	sha_of("{\"@tr\":\"tail\",\"source_sha256\":5}", "null");
	sha_of("{\"@tr\":\"tail\"}", "null");
	/* only the top level counts */
	sha_of("{\"@tr\":\"tail\",\"x\":{\"source_sha256\":\"ab\"}}", "null");
}
END_TEST

/* ---- head and tail ---- */

START_TEST(test_head_write_read)
{
	struct trstream_head h = { 0, "tr\"ace.json.gz", "tr-decode", "0.1.0" };
	struct trstream_head_in in;
	struct jdoc d = JDOC_INIT;
	struct buf b = BUF_INIT;
	char err[TRSTREAM_ERR_SIZE];

	ck_assert_int_eq(trstream_head_begin(&b, &h), 0);
	buf_addstr(&b, "\"schemaVersion\":1");
	ck_assert_int_eq(trstream_head_end(&b), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"head\",\"format\":\"object\",\"source\":\"tr\\\"ace.json.gz\","
			 "\"tool\":\"tr-decode\",\"version\":\"0.1.0\",\"members\":{\"schemaVersion\":1}}");
	ck_assert_int_eq(trstream_head_read(&d, b.p, b.len, &in, err, sizeof err), 0);
	ck_assert_int_eq(in.array_format, 0);
	ck_assert_str_eq(in.source, "tr\"ace.json.gz");
	free(in.source);
	buf_reset(&b);
	h.array_format = 1;
	h.source = "-";
	trstream_head_begin(&b, &h);
	trstream_head_end(&b);
	ck_assert_str_eq(b.p, "{\"@tr\":\"head\",\"format\":\"array\",\"source\":\"-\","
			 "\"tool\":\"tr-decode\",\"version\":\"0.1.0\",\"members\":{}}");
	ck_assert_int_eq(trstream_head_read(&d, b.p, b.len, &in, err, sizeof err), 0);
	ck_assert_int_eq(in.array_format, 1);
	ck_assert_str_eq(in.source, "-");
	free(in.source);
	/* a source that is not a string: none */
	ck_assert_int_eq(trstream_head_read(&d, "{\"@tr\":\"head\",\"source\":5}", 25, &in, err,
					    sizeof err), 0);
	ck_assert_ptr_null(in.source);
	/* jsmn refuses a bad escape: the record is malformed */
	ck_assert_int_eq(trstream_head_read(&d, "{\"@tr\":\"head\",\"source\":\"\\x\"}", 28, &in,
					    err, sizeof err), -1);
	ck_assert_str_eq(err, "malformed head record");
	ck_assert_int_eq(trstream_head_read(&d, "{\"@tr\":\"head\",", 14, &in, err, sizeof err), -1);
	ck_assert_str_eq(err, "malformed head record");
	ck_assert_int_eq(trstream_head_read(&d, "[1]", 3, &in, err, sizeof err), -1);
	ck_assert_str_eq(err, "malformed head record");
	json_free(&d);
	buf_release(&b);
}
END_TEST

START_TEST(test_tail_write_read)
{
	struct trstream_tail_in in;
	struct jdoc d = JDOC_INIT;
	struct buf b = BUF_INIT;
	char err[TRSTREAM_ERR_SIZE];

	ck_assert_int_eq(trstream_tail_begin(&b), 0);
	buf_addstr(&b, "\"displayTimeUnit\":\"ms\"");
	ck_assert_int_eq(trstream_tail_end(&b, 18221, UINT64_C(444829), "9f2c"), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"tail\",\"members\":{\"displayTimeUnit\":\"ms\"},"
			 "\"events\":18221,\"source_bytes\":444829,\"source_sha256\":\"9f2c\"}");
	ck_assert_int_eq(trstream_tail_read(&d, b.p, b.len, &in, err, sizeof err), 0);
	ck_assert_int_eq(in.has_counts, 1);
	ck_assert_uint_eq(in.events, 18221);
	ck_assert_uint_eq(in.source_bytes, 444829);
	buf_reset(&b);
	ck_assert_int_eq(trstream_put_source_sha256(&b, &d), 0);
	ck_assert_str_eq(b.p, "\"9f2c\"");
	ck_assert_int_eq(trstream_tail_read(&d, "{\"@tr\":\"tail\",\"events\":-1}", 26, &in, err,
					    sizeof err), 0);
	ck_assert_int_eq(in.has_counts, 0);
	ck_assert_int_eq(trstream_tail_read(&d, "{\"@tr\":\"tail\"", 13, &in, err, sizeof err), -1);
	ck_assert_str_eq(err, "malformed tail record");
	json_free(&d);
	buf_release(&b);
}
END_TEST

/* ---- anchors ---- */

static const char anchors_rec[] =
	"{\"@tr\":\"anchors\",\"anchor_regex\":\"^a\\\\(b\\\"\",\"end_anchor_regex\":null,"
	"\"confirm_regex\":\"c\",\"confirm_cpu\":true,\"anchor_offset\":2,"
	"\"matching_anchor_count\":9,\"num_layers\":3,\"first_layer\":1,\"passes\":2,"
	"\"pid\":7,\"device\":null,\"trace_origin_ns\":-1500,\"trace_origin_us\":-1.500,"
	"\"used_tids\":[1,\"x\",3]}";

START_TEST(test_anchors_write_read)
{
	static const char *const tids[] = { "1", "\"x\"", "3" };
	struct trstream_anchors a = { "^a\\(b\"", NULL, "c", 1, 2, 9, 3, 1, 2, "7", NULL, -1500,
				      tids, 3 };
	struct trstream_anchors_in in = { JDOC_INIT, 0, 0, 0, 0, 0, { NULL, 0 }, { NULL, 0 },
					   NULL, 0, 0 };
	struct trstream_raw raw;
	struct buf b = BUF_INIT;
	char err[TRSTREAM_ERR_SIZE];

	ck_assert_int_eq(trstream_anchors_write(&b, &a), 0);
	ck_assert_str_eq(b.p, anchors_rec);
	assert_json(&b);
	ck_assert_int_eq(trstream_anchors_read(b.p, b.len, &in, err, sizeof err), 0);
	ck_assert_int_eq(in.num_layers, 3);
	ck_assert_int_eq(in.first_layer, 1);
	ck_assert_int_eq(in.passes, 2);
	ck_assert_int_eq(in.trace_origin_ns, -1500);
	ck_assert_int_eq(in.pid_value, 7);
	ck_assert_int_eq((int)in.pid.n, 1);
	ck_assert_int_eq(memcmp(in.pid.p, "7", 1), 0);
	ck_assert_int_eq((int)in.device.n, 4);
	ck_assert_int_eq(memcmp(in.device.p, "null", 4), 0);
	/* the integer tids only */
	ck_assert_uint_eq(in.nused, 2);
	ck_assert_int_eq(in.used_tids[0], 1);
	ck_assert_int_eq(in.used_tids[1], 3);
	raw = trstream_anchors_raw(&in, "anchor_regex");
	ck_assert_int_eq((int)raw.n, 10);
	ck_assert_int_eq(memcmp(raw.p, "\"^a\\\\(b\\\"\"", 10), 0);
	raw = trstream_anchors_raw(&in, "no_such_member");
	ck_assert_int_eq(memcmp(raw.p, "null", 4), 0);
	trstream_anchors_in_free(&in);

	/* a string pid, a device, no tids */
	buf_reset(&b);
	a.pid = "\"Spans\"";
	a.device = "0";
	a.nused = 0;
	a.end_anchor_regex = "e";
	a.confirm_regex = NULL;
	a.confirm_cpu = 0;
	trstream_anchors_write(&b, &a);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchors\",\"anchor_regex\":\"^a\\\\(b\\\"\","
			 "\"end_anchor_regex\":\"e\",\"confirm_regex\":null,\"confirm_cpu\":false,"
			 "\"anchor_offset\":2,\"matching_anchor_count\":9,\"num_layers\":3,"
			 "\"first_layer\":1,\"passes\":2,\"pid\":\"Spans\",\"device\":0,"
			 "\"trace_origin_ns\":-1500,\"trace_origin_us\":-1.500,\"used_tids\":[]}");
	ck_assert_int_eq(trstream_anchors_read(b.p, b.len, &in, err, sizeof err), 0);
	ck_assert_int_eq(in.pid_value, -1);
	ck_assert_uint_eq(in.nused, 0);
	trstream_anchors_in_free(&in);
	buf_release(&b);
}
END_TEST

static void anchors_refused(const char *rec, const char *want)
{
	struct trstream_anchors_in in = { JDOC_INIT, 0, 0, 0, 0, 0, { NULL, 0 }, { NULL, 0 },
					   NULL, 0, 0 };
	char err[TRSTREAM_ERR_SIZE];

	ck_assert_int_eq(trstream_anchors_read(rec, strlen(rec), &in, err, sizeof err), -1);
	ck_assert_str_eq(err, want);
	trstream_anchors_in_free(&in);
}

START_TEST(test_anchors_refused)
{
	anchors_refused("{\"@tr\":\"anchors\"", "malformed anchors record");
	anchors_refused("{\"@tr\":\"anchors\"}", "malformed anchors record: no integer num_layers");
	anchors_refused("{\"num_layers\":3,\"first_layer\":0,\"passes\":1.5}",
			"malformed anchors record: no integer passes");
	anchors_refused("{\"num_layers\":3,\"first_layer\":0,\"passes\":1}",
			"malformed anchors record: no integer trace_origin_ns");
	anchors_refused("{\"num_layers\":3,\"first_layer\":0,\"passes\":1,\"trace_origin_ns\":0,"
			"\"used_tids\":[]}", "malformed anchors record: no pid or used_tids");
	anchors_refused("{\"num_layers\":3,\"first_layer\":0,\"passes\":1,\"trace_origin_ns\":0,"
			"\"pid\":1,\"used_tids\":{}}", "malformed anchors record: no pid or used_tids");
	/* the limits of tr-select-anchors' options */
#define ANCHORS(n, f, p, o) "{\"num_layers\":" n ",\"first_layer\":" f ",\"passes\":" p \
	",\"trace_origin_ns\":0,\"pid\":1,\"used_tids\":[]" o "}"
	anchors_refused(ANCHORS("3", "0", "1", ""), "malformed anchors record: no integer "
			"anchor_offset");
	anchors_refused(ANCHORS("0", "0", "1", ",\"anchor_offset\":0"),
			"malformed anchors record: num_layers 0 out of range (1 to 1000000)");
	anchors_refused(ANCHORS("1000001", "0", "1", ",\"anchor_offset\":0"),
			"malformed anchors record: num_layers 1000001 out of range (1 to 1000000)");
	anchors_refused(ANCHORS("3", "-3", "1", ",\"anchor_offset\":0"),
			"malformed anchors record: first_layer -3 out of range (0 to 1000000)");
	anchors_refused(ANCHORS("3", "0", "-1", ",\"anchor_offset\":0"),
			"malformed anchors record: passes -1 out of range (1 to 1000000)");
	anchors_refused(ANCHORS("3", "0", "1", ",\"anchor_offset\":2147483648"),
			"malformed anchors record: anchor_offset 2147483648 out of range "
			"(0 to 2147483647)");
	anchors_refused(ANCHORS("1000000", "0", "11", ",\"anchor_offset\":0"),
			"malformed anchors record: num_layers x passes is 11000000, more than 10000000");
}
END_TEST

/* A record for the anchors record of num_layers 2, passes 2, offset 1,
 * trace origin 1000 ns. */
START_TEST(test_anchor_check)
{
	static const char sm_rec[] = "{\"num_layers\":2,\"first_layer\":0,\"passes\":2,"
		"\"anchor_offset\":1,\"trace_origin_ns\":1000,\"pid\":1,\"used_tids\":[]}";
	struct trstream_anchors_in sm = { JDOC_INIT, 0, 0, 0, 0, 0, { NULL, 0 }, { NULL, 0 },
					   NULL, 0, 0 };
	struct trstream_anchor a;
	char err[TRSTREAM_ERR_SIZE];

	ck_assert_int_eq(trstream_anchors_read(sm_rec, strlen(sm_rec), &sm, err, sizeof err), 0);
	memset(&a, 0, sizeof a);
	a.i = 3;
	a.pass = 1;
	a.layer = 1;
	a.anchor_index = 4;
	a.anchor.ts_ns = 5000;
	ck_assert_int_eq(trstream_anchor_check(&a, 3, &sm, err, sizeof err), 0);
	ck_assert_int_eq(trstream_anchor_check(&a, 2, &sm, err, sizeof err), -1);
	ck_assert_str_eq(err, "anchor records out of order (record 2 is number 3)");
	a.layer = 2;
	ck_assert_int_eq(trstream_anchor_check(&a, 3, &sm, err, sizeof err), -1);
	ck_assert_str_eq(err, "anchor record 3: layer 2 out of range (num_layers 2)");
	a.layer = 1;
	a.pass = 2;
	ck_assert_int_eq(trstream_anchor_check(&a, 3, &sm, err, sizeof err), -1);
	ck_assert_str_eq(err, "anchor record 3: pass 2 out of range (passes 2)");
	a.pass = 0;
	ck_assert_int_eq(trstream_anchor_check(&a, 3, &sm, err, sizeof err), -1);
	ck_assert_str_eq(err, "anchor record 3: i 3 is not pass 0 x num_layers 2 + layer 1");
	a.pass = 1;
	a.anchor_index = 3;
	ck_assert_int_eq(trstream_anchor_check(&a, 3, &sm, err, sizeof err), -1);
	ck_assert_str_eq(err, "anchor record 3: anchor_index 3 is not anchor_offset 1 + i 3");
	a.anchor_index = 4;
	a.anchor.ts_ns = 999;
	ck_assert_int_eq(trstream_anchor_check(&a, 3, &sm, err, sizeof err), -1);
	ck_assert_str_eq(err, "anchor record 3: ts_ns 999 is not within 2^63 ns after "
			 "trace_origin_ns 1000");
	/* a terminal end that no int64 difference from the origin holds */
	a.anchor.ts_ns = 5000;
	sm.trace_origin_ns = -INT64_MAX;
	a.has_terminal = 1;
	a.terminal.ts_ns = 5000;
	ck_assert_int_eq(trstream_anchor_check(&a, 3, &sm, err, sizeof err), -1);
	trstream_anchors_in_free(&sm);
}
END_TEST

static const char anchor_rec[] =
	"{\"@tr\":\"anchor\",\"i\":4,\"pass\":1,\"layer\":1,\"anchor_index\":6,"
	"\"anchor\":{\"source_index\":120,\"pid\":7,\"tid\":null,\"device\":0,\"ts\":10.5,"
	"\"dur\":2,\"ts_ns\":10500,\"dur_ns\":2000,\"name\":\"k\\u0041\"},"
	"\"terminal\":{\"source_index\":125,\"pid\":7,\"tid\":8,\"device\":null,\"ts\":11,"
	"\"dur\":0.25,\"ts_ns\":11000,\"dur_ns\":250,\"name\":\"end\"}}";

START_TEST(test_anchor_write_read)
{
	struct trstream_anchor a, in;
	struct jdoc d = JDOC_INIT;
	struct buf b = BUF_INIT;
	char err[TRSTREAM_ERR_SIZE];
	char pid[] = "7", dev[] = "0", ts[] = "10.5", dur[] = "2", name[] = "\"k\\u0041\"";
	char tid2[] = "8", ts2[] = "11", dur2[] = "0.25", name2[] = "\"end\"";

	memset(&a, 0, sizeof a);
	a.i = 4;
	a.pass = 1;
	a.layer = 1;
	a.anchor_index = 6;
	a.anchor = (struct trstream_kernel){ 120, pid, NULL, dev, ts, dur, name, 10500, 2000 };
	a.has_terminal = 1;
	a.terminal = (struct trstream_kernel){ 125, pid, tid2, NULL, ts2, dur2, name2, 11000, 250 };
	ck_assert_int_eq(trstream_anchor_write(&b, &a), 0);
	ck_assert_str_eq(b.p, anchor_rec);
	assert_json(&b);

	ck_assert_int_eq(trstream_anchor_read(&d, b.p, b.len, &in, err, sizeof err), 0);
	ck_assert_uint_eq(in.i, 4);
	ck_assert_uint_eq(in.pass, 1);
	ck_assert_uint_eq(in.layer, 1);
	ck_assert_uint_eq(in.anchor_index, 6);
	ck_assert_uint_eq(in.anchor.source_index, 120);
	ck_assert_int_eq(in.anchor.ts_ns, 10500);
	ck_assert_int_eq(in.anchor.dur_ns, 2000);
	ck_assert_str_eq(in.anchor.ts, "10.5");
	ck_assert_str_eq(in.anchor.tid, "null");
	ck_assert_str_eq(in.anchor.name, "\"k\\u0041\"");
	ck_assert_str_eq(in.anchor.device, "0");
	ck_assert_int_eq(in.has_terminal, 1);
	ck_assert_int_eq(in.terminal.ts_ns, 11000);
	ck_assert_int_eq(in.terminal.dur_ns, 250);
	ck_assert_str_eq(in.terminal.dur, "0.25");
	/* written again, the same bytes */
	buf_reset(&b);
	trstream_anchor_write(&b, &in);  /* tid: the text null, as read */
	ck_assert_str_eq(b.p, anchor_rec);
	trstream_anchor_free(&in);

	/* without a terminal */
	buf_reset(&b);
	a.has_terminal = 0;
	trstream_anchor_write(&b, &a);
	ck_assert_str_eq(b.p, "{\"@tr\":\"anchor\",\"i\":4,\"pass\":1,\"layer\":1,\"anchor_index\":6,"
			 "\"anchor\":{\"source_index\":120,\"pid\":7,\"tid\":null,\"device\":0,"
			 "\"ts\":10.5,\"dur\":2,\"ts_ns\":10500,\"dur_ns\":2000,\"name\":\"k\\u0041\"}}");
	ck_assert_int_eq(trstream_anchor_read(&d, b.p, b.len, &in, err, sizeof err), 0);
	ck_assert_int_eq(in.has_terminal, 0);
	trstream_anchor_free(&in);
	json_free(&d);
	buf_release(&b);
}
END_TEST

static void kernel_same(const struct trstream_kernel *x, const struct trstream_kernel *y)
{
	const char *const xs[] = { x->pid, x->tid, x->device, x->ts, x->dur, x->name };
	const char *const ys[] = { y->pid, y->tid, y->device, y->ts, y->dur, y->name };
	size_t k;

	ck_assert_uint_eq(x->source_index, y->source_index);
	ck_assert_int_eq(x->ts_ns, y->ts_ns);
	ck_assert_int_eq(x->dur_ns, y->dur_ns);
	for (k = 0; k < 6; k++)
		ck_assert_pstr_eq(xs[k], ys[k]);
}

/* A record in the writer's layout is read member by member; any other
 * spelling of the same record (whitespace, another member order, an
 * escaped key, a member more) by jsmn: both read the same. */
START_TEST(test_anchor_layout_and_jsmn)
{
	static const char *const others[] = {
		"{\"@tr\":\"anchor\",\"i\": 4,\"pass\":1,\"layer\":1,\"anchor_index\":6,"
		"\"anchor\":{\"source_index\":120,\"pid\":7,\"tid\":null,\"device\":0,\"ts\":10.5,"
		"\"dur\":2,\"ts_ns\":10500,\"dur_ns\":2000,\"name\":\"k\\u0041\"},"
		"\"terminal\":{\"source_index\":125,\"pid\":7,\"tid\":8,\"device\":null,\"ts\":11,"
		"\"dur\":0.25,\"ts_ns\":11000,\"dur_ns\":250,\"name\":\"end\"}}",
		"{\"@tr\":\"anchor\",\"i\":4,\"pass\":1,\"layer\":1,\"anchor_index\":6,"
		"\"anchor\":{\"pid\":7,\"source_index\":120,\"tid\":null,\"device\":0,\"ts\":10.5,"
		"\"dur\":2,\"ts_ns\":10500,\"dur_ns\":2000,\"name\":\"k\\u0041\"},"
		"\"terminal\":{\"source_index\":125,\"pid\":7,\"tid\":8,\"device\":null,\"ts\":11,"
		"\"dur\":0.25,\"ts_ns\":11000,\"dur_ns\":250,\"name\":\"end\"}}",
		"{\"@tr\":\"anchor\",\"i\":4,\"pass\":1,\"layer\":1,\"anchor_index\":6,"
		"\"anchor\":{\"source_index\":120,\"pid\":7,\"tid\":null,\"device\":0,\"ts\":10.5,"
		"\"dur\":2,\"ts_ns\":10500,\"dur_ns\":2000,\"name\":\"k\\u0041\"},"
		"\"terminal\":{\"source_index\":125,\"pid\":7,\"tid\":8,\"device\":null,\"ts\":11,"
		"\"dur\":0.25,\"ts\\u005fns\":11000,\"dur_ns\":250,\"name\":\"end\"}}",
		"{\"@tr\":\"anchor\",\"i\":4,\"pass\":1,\"layer\":1,\"anchor_index\":6,"
		"\"anchor\":{\"source_index\":120,\"pid\":7,\"tid\":null,\"device\":0,\"ts\":10.5,"
		"\"dur\":2,\"ts_ns\":10500,\"dur_ns\":2000,\"name\":\"k\\u0041\"},"
		"\"terminal\":{\"source_index\":125,\"pid\":7,\"tid\":8,\"device\":null,\"ts\":11,"
		"\"dur\":0.25,\"ts_ns\":11000,\"dur_ns\":250,\"name\":\"end\"},\"x\":[1]}",
	};
	struct trstream_anchor want, in;
	struct jdoc d = JDOC_INIT;
	char err[TRSTREAM_ERR_SIZE];
	size_t k;

	ck_assert_int_eq(trstream_anchor_read(&d, anchor_rec, strlen(anchor_rec), &want, err,
					      sizeof err), 0);
	ck_assert_str_eq(want.anchor.pid, "7");
	ck_assert_str_eq(want.terminal.name, "\"end\"");
	for (k = 0; k < sizeof others / sizeof others[0]; k++) {
		ck_assert_int_eq(trstream_anchor_read(&d, others[k], strlen(others[k]), &in, err,
						      sizeof err), 0);
		ck_assert_uint_eq(in.i, want.i);
		ck_assert_uint_eq(in.pass, want.pass);
		ck_assert_uint_eq(in.layer, want.layer);
		ck_assert_uint_eq(in.anchor_index, want.anchor_index);
		ck_assert_int_eq(in.has_terminal, want.has_terminal);
		kernel_same(&in.anchor, &want.anchor);
		kernel_same(&in.terminal, &want.terminal);
		trstream_anchor_free(&in);
	}
	trstream_anchor_free(&want);
	json_free(&d);
}
END_TEST

static void anchor_refused(const char *rec, const char *want)
{
	struct trstream_anchor in;
	struct jdoc d = JDOC_INIT;
	char err[TRSTREAM_ERR_SIZE];

	ck_assert_int_eq(trstream_anchor_read(&d, rec, strlen(rec), &in, err, sizeof err), -1);
	ck_assert_str_eq(err, want);
	json_free(&d);
}

START_TEST(test_anchor_refused)
{
	anchor_refused("{\"@tr\":\"anchor\",", "malformed anchor record");
	/* the writer's layout, but not JSON (a bracket closed by a brace) */
	anchor_refused("{\"@tr\":\"anchor\",\"i\":4,\"pass\":1,\"layer\":1,\"anchor_index\":6,"
		       "\"anchor\":{\"source_index\":120,\"pid\":[7},\"tid\":null,\"device\":0,"
		       "\"ts\":10.5,\"dur\":2,\"ts_ns\":10500,\"dur_ns\":2000,\"name\":\"k\"}}",
		       "malformed anchor record");
	anchor_refused("{\"i\":0}", "malformed anchor record: no integer pass");
	anchor_refused("{\"i\":0,\"pass\":0,\"layer\":0}",
		       "malformed anchor record: no integer anchor_index");
	anchor_refused("{\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,\"anchor\":[]}",
		       "malformed anchor record: no anchor object");
	anchor_refused("{\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,\"anchor\":{}}",
		       "malformed anchor record: no integer source_index");
	anchor_refused("{\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,\"anchor\":"
		       "{\"source_index\":1,\"ts_ns\":\"5\"}",
		       "malformed anchor record");
	anchor_refused("{\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,\"anchor\":"
		       "{\"source_index\":1,\"ts_ns\":\"5\"}}",
		       "malformed anchor record: no integer ts_ns");
	anchor_refused("{\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,\"anchor\":"
		       "{\"source_index\":1,\"ts_ns\":5,\"dur_ns\":1,\"ts\":5,\"tid\":1}}",
		       "malformed anchor record: ts, name and tid are needed");
	anchor_refused("{\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,\"anchor\":"
		       "{\"source_index\":1,\"ts_ns\":5,\"dur_ns\":1,\"ts\":5,\"tid\":1,\"name\":\"k\"},"
		       "\"terminal\":{\"ts_ns\":7}}",
		       "malformed anchor record: no integer dur_ns");
	/* numbers no writer makes: in the writer's layout and in another */
#define REC(i, pass, si, ts, dur, ts_ns, dur_ns) "{\"@tr\":\"anchor\",\"i\":" i ",\"pass\":" \
	pass ",\"layer\":0,\"anchor_index\":0,\"anchor\":{\"source_index\":" si ",\"pid\":1," \
	"\"tid\":7,\"device\":0,\"ts\":" ts ",\"dur\":" dur ",\"ts_ns\":" ts_ns ",\"dur_ns\":" \
	dur_ns ",\"name\":\"k\"}}"
	anchor_refused(REC("-1", "0", "1", "5", "1", "5000", "1000"),
		       "malformed anchor record: i -1 out of range (at least 0)");
	anchor_refused(REC("0", "-5", "1", "5", "1", "5000", "1000"),
		       "malformed anchor record: pass -5 out of range (at least 0)");
	anchor_refused(REC("0", "0", "-2", "5", "1", "5000", "1000"),
		       "malformed anchor record: source_index -2 out of range (at least 0)");
	anchor_refused(REC("0", "0", "1", "5", "1", "5000", "-1000"),
		       "malformed anchor record: anchor dur_ns -1000 out of range (at least 0)");
	anchor_refused(REC("0", "0", "1", "5", "1", "5001", "1000"),
		       "malformed anchor record: anchor ts 5 is not ts_ns 5001");
	anchor_refused(REC("0", "0", "1", "5", "1.5", "5000", "1000"),
		       "malformed anchor record: anchor dur 1.5 is not dur_ns 1000");
	anchor_refused("{\"@tr\":\"anchor\",\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,"
		       "\"anchor\":{\"source_index\":1,\"pid\":1,\"tid\":7,\"device\":0,\"ts\":5,"
		       "\"dur\":1,\"ts_ns\":5000,\"dur_ns\":1000,\"name\":\"k\"},\"terminal\":"
		       "{\"source_index\":2,\"pid\":1,\"tid\":7,\"device\":0,\"ts\":9223372036854775,"
		       "\"dur\":1,\"ts_ns\":9223372036854775000,\"dur_ns\":1000,\"name\":\"e\"}}",
		       "malformed anchor record: terminal ts_ns + dur_ns beyond the int64 range");
}
END_TEST

/* A kernel's texts take at most TRSTREAM_KERNEL_MAX_TEXT bytes. */
START_TEST(test_anchor_long_texts)
{
	struct buf rec = BUF_INIT;
	struct trstream_anchor in;
	struct jdoc d = JDOC_INIT;
	char err[TRSTREAM_ERR_SIZE];
	/* besides the name: pid 1, tid 7, device 0, ts 5, dur 1 (5 bytes) */
	size_t k, name = TRSTREAM_KERNEL_MAX_TEXT - 5 - 2;

	buf_addstr(&rec, "{\"@tr\":\"anchor\",\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,"
		   "\"anchor\":{\"source_index\":1,\"pid\":1,\"tid\":7,\"device\":0,\"ts\":5,"
		   "\"dur\":1,\"ts_ns\":5000,\"dur_ns\":1000,\"name\":\"");
	for (k = 0; k < name; k++)
		buf_addch(&rec, 'k');
	buf_addstr(&rec, "\"}}");
	ck_assert_int_eq(trstream_anchor_read(&d, rec.p, rec.len, &in, err, sizeof err), 0);
	trstream_anchor_free(&in);
	buf_reset(&rec);
	buf_addstr(&rec, "{\"@tr\":\"anchor\",\"i\":0,\"pass\":0,\"layer\":0,\"anchor_index\":0,"
		   "\"anchor\":{\"source_index\":1,\"pid\":1,\"tid\":7,\"device\":0,\"ts\":5,"
		   "\"dur\":1,\"ts_ns\":5000,\"dur_ns\":1000,\"name\":\"");
	for (k = 0; k < name + 1; k++)
		buf_addch(&rec, 'k');
	buf_addstr(&rec, "\"}}");
	ck_assert_int_eq(trstream_anchor_read(&d, rec.p, rec.len, &in, err, sizeof err), -1);
	ck_assert_str_eq(err, "malformed anchor record: anchor texts take 262145 bytes, more than "
			 "256 KiB");
	json_free(&d);
	buf_release(&rec);
}
END_TEST

/* ---- report ---- */

START_TEST(test_report_whole_members)
{
	struct buf b = BUF_INIT;

	ck_assert_int_eq(trstream_report_string(&b, TRSTREAM_LAYERS_SUFFIX, "source_file",
						"a\"b.json"), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".layers.json\",\"member\":"
			 "\"source_file\",\"body\":\"a\\\"b.json\"}");
	assert_json(&b);
	buf_reset(&b);
	ck_assert_int_eq(trstream_report_body(&b, TRSTREAM_COMPACT_SUFFIX), 0);
	buf_addstr(&b, "[1,2]}");
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".compact.json\",\"body\":[1,2]}");
	ck_assert_int_eq(trstream_report_is(b.p, b.len, TRSTREAM_COMPACT_SUFFIX), 1);
	ck_assert_int_eq(trstream_report_is(b.p, b.len, TRSTREAM_LAYERS_SUFFIX), 0);
	ck_assert_int_eq(trstream_report_is(b.p, (size_t)(strstr(b.p, ".json") - b.p) + 5,
					    TRSTREAM_COMPACT_SUFFIX), 0);  /* no closing quote */
	ck_assert_int_eq(trstream_report_is(b.p, b.len, ".compact"), 0);
	ck_assert_int_eq(trstream_report_is("{\"suffix\":\".compact.json\"", 25,
					    TRSTREAM_COMPACT_SUFFIX), 1);
	ck_assert_int_eq(trstream_report_is("{\"suffix\":\".compact.json\"", 24,
					    TRSTREAM_COMPACT_SUFFIX), 0);
	buf_reset(&b);
	trstream_report_member(&b, TRSTREAM_LAYERS_SUFFIX, "layers", 1);
	buf_addstr(&b, "{}");
	ck_assert_int_eq(trstream_report_items_end(&b), 0);
	ck_assert_str_eq(b.p, "{\"@tr\":\"report\",\"suffix\":\".layers.json\",\"member\":"
			 "\"layers\",\"items\":[{}]}");
	assert_json(&b);
	buf_release(&b);
}
END_TEST

static Suite *trstream_suite(void)
{
	Suite *s = suite_create("trstream");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_record_begin);
	tcase_add_test(tc, test_report_body);
	tcase_add_test(tc, test_report_member);
	tcase_add_test(tc, test_source_sha256);
	tcase_add_test(tc, test_head_write_read);
	tcase_add_test(tc, test_tail_write_read);
	tcase_add_test(tc, test_anchors_write_read);
	tcase_add_test(tc, test_anchors_refused);
	tcase_add_test(tc, test_anchor_write_read);
	tcase_add_test(tc, test_anchor_layout_and_jsmn);
	tcase_add_test(tc, test_anchor_refused);
	tcase_add_test(tc, test_anchor_check);
	tcase_add_test(tc, test_anchor_long_texts);
	tcase_add_test(tc, test_report_whole_members);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trstream_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
