/* Unit tests for common/stream/encode.c: the exact document written for a stream
 * of lines, every refusal with its message, nesting counted from a
 * top-level member as tr-decode counts it, and write failures. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "stream/encode.h"
#include "stream/stream.h"
#include "../../mutate.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int put_buf(void *ctx, const void *data, size_t n)
{
	return buf_add(ctx, data, n);
}

static int put_fails(void *ctx, const void *data, size_t n)
{
	(void)ctx;
	(void)data;
	(void)n;
	errno = ENOSPC;
	return -1;
}

/* Feed lines (classified as stream_next would, which the caller ensures);
 * returns the status of the first line that is not ENCODE_OK or
 * ENCODE_CONTROL, or ENCODE_OK. */
static int feed(struct encoder *e, const char *const *lines, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t len = strlen(lines[i]);
		int kind = i == 0 ? LINE_HEAD : i == n - 1 ? LINE_TAIL :
			stream_is_control(lines[i], len) ? LINE_CONTROL : LINE_EVENT;
		int rc = encode_line(e, kind, lines[i], len, i + 1);
		if (rc != ENCODE_OK && rc != ENCODE_CONTROL)
			return rc;
	}
	return ENCODE_OK;
}

START_TEST(test_object)
{
	static const char *const lines[] = {
		"{\"@tr\":\"head\",\"format\":\"object\",\"source\":\"x\",\"members\":{\"a\":1, \"b\" : [1, {\"c\":\"}\"}]}}",
		"{ \"ph\" : \"i\" }",
		"{\"@tr\":\"report\",\"suffix\":\".r.json\", \"body\":{}}",
		"{\"ph\":\"X\",\"s\":\"\\\"\\\\\"}",
		"{\"@tr\":\"tail\",\"members\":{\"z\":{\"y\":\"\\\\\"},\"w\":null},\"events\":2}",
	};
	struct buf out = BUF_INIT;
	struct encoder e;

	ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
	ck_assert_int_eq(feed(&e, lines, COUNT(lines)), ENCODE_OK);
	ck_assert_str_eq(out.p, "{\"a\":1,\n\"b\":[1,{\"c\":\"}\"}],\n\"traceEvents\":[\n"
			 "{ \"ph\" : \"i\" },\n{\"ph\":\"X\",\"s\":\"\\\"\\\\\"}\n],\n"
			 "\"z\":{\"y\":\"\\\\\"},\n\"w\":null}\n");
	encode_free(&e);
	buf_release(&out);
}
END_TEST

/* Members read on the way: found for a minified event line, not vouched
 * for (found_ok 0) where whitespace stands between the tokens, and
 * nothing found for a line refused; the output is the same either way. */
START_TEST(test_found_members)
{
	static const struct scan_member names[] = { { "ts", 2 }, { "cat", 3 } };
	static const char head[] = "{\"@tr\":\"head\",\"format\":\"array\",\"members\":{}}";
	static const char minified[] = "{\"ph\":\"X\",\"ts\":1.5,\"cat\":\"k\",\"ts\":2}";
	static const char spaced[] = "{\"ph\":\"X\", \"ts\":1.5}";
	struct scan_want want;
	struct buf out = BUF_INIT;
	struct encoder e;

	ck_assert_int_eq(scan_want_init(&want, names, 2), 0);
	ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
	e.want = &want;
	ck_assert_int_eq(encode_line(&e, LINE_HEAD, head, strlen(head), 1), ENCODE_OK);
	ck_assert_int_eq(encode_line(&e, LINE_EVENT, minified, strlen(minified), 2), ENCODE_OK);
	ck_assert_int_eq(e.found_ok, 1);
	ck_assert_ptr_eq(e.found[0].p, minified + 15);  /* the first ts */
	ck_assert_uint_eq(e.found[0].len, 3);
	ck_assert_ptr_eq(e.found[1].p, minified + 25);
	ck_assert_uint_eq(e.found[1].len, 3);
	ck_assert_int_eq(encode_line(&e, LINE_EVENT, spaced, strlen(spaced), 3), ENCODE_OK);
	ck_assert_int_eq(e.found_ok, 0);
	ck_assert_int_eq(encode_line(&e, LINE_EVENT, "{\"ts\":1", 7, 4), ENCODE_INPUT);
	ck_assert_int_eq(e.found_ok, 0);
	ck_assert_str_eq(out.p, "[\n{\"ph\":\"X\",\"ts\":1.5,\"cat\":\"k\",\"ts\":2},\n"
			 "{\"ph\":\"X\", \"ts\":1.5}");
	encode_free(&e);
	buf_release(&out);
}
END_TEST

START_TEST(test_control_text)
{
	struct buf out = BUF_INIT;
	struct encoder e;
	static const char line[] = "{\"@tr\":\"report\", \"suffix\" : \".r.json\",\"body\":{ }}";

	ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
	ck_assert_int_eq(encode_line(&e, LINE_CONTROL, line, strlen(line), 7), ENCODE_CONTROL);
	ck_assert_str_eq(e.text.p, "{\"@tr\":\"report\",\"suffix\":\".r.json\",\"body\":{}}");
	ck_assert_uint_eq(out.len, 0);
	encode_free(&e);
	buf_release(&out);
}
END_TEST

START_TEST(test_empty_and_array)
{
	static const char *const object[] = {
		"{\"@tr\":\"head\",\"format\":\"object\",\"members\":{}}",
		"{\"@tr\":\"tail\",\"members\":{}}",
	};
	static const char *const array[] = {
		"{\"@tr\":\"head\",\"format\":\"array\",\"members\":{}}",
		"{\"a\":1}",
		"{\"b\":2}",
		"{\"@tr\":\"tail\",\"members\":{}}",
	};
	struct buf out = BUF_INIT;
	struct encoder e;

	ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
	ck_assert_int_eq(feed(&e, object, COUNT(object)), ENCODE_OK);
	ck_assert_str_eq(out.p, "{\"traceEvents\":[\n]}\n");
	encode_free(&e);
	buf_reset(&out);
	ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
	ck_assert_int_eq(feed(&e, array, COUNT(array)), ENCODE_OK);
	ck_assert_str_eq(out.p, "[\n{\"a\":1},\n{\"b\":2}\n]\n");
	encode_free(&e);
	buf_release(&out);
}
END_TEST

struct refusal {
	const char *head_members, *line, *tail_members, *err;
};

#define HEAD "{\"@tr\":\"head\",\"format\":\"object\",\"members\":{%s}}"
#define TAIL "{\"@tr\":\"tail\",\"members\":{%s}}"

static const struct refusal refusals[] = {
	{ "\"a\":", "{}", "", "line 1: invalid JSON at byte 47: expected a value" },
	{ "\"a\"", "{}", "", "line 1: invalid JSON at byte 46: expected ':' after a member name" },
	{ "\"a\":1,\"b\"", "{}", "",
	  "line 1: invalid JSON at byte 52: expected ':' after a member name" },
	{ "\"a\":1,", "{}", "", "line 1: invalid JSON at byte 49: expected a member name after ','" },
	{ "", "{}", "\"z\":", "line 3: invalid JSON at byte 29: expected a value" },
	{ "", "{}", "\"z\":1}", "line 3: invalid JSON at byte 32: more than one JSON value on the line" },
	{ "", "{\"a\":}", "", "line 2: invalid JSON at byte 5: expected a value" },
	{ "", "{\"a\":1}{\"b\":2}", "", "line 2: invalid JSON at byte 7: more than one JSON value on the line" },
	{ "", "{\"a\":1,\"b\":[1,2}", "", "line 2: invalid JSON at byte 15: mismatched closing bracket" },
	{ "", "{\"a\":01}", "", "line 2: invalid JSON at byte 6: invalid number (leading zero)" },
	{ "", "{\"a\":\"\\x\"}", "", "line 2: invalid JSON at byte 7: invalid escape in string" },
	{ "", "{\"a\":NaN}", "", "line 2: invalid JSON at byte 5: expected a value" },
	{ "", "{\"a\":\"\x01\"}", "",
	  "line 2: invalid JSON at byte 6: control character in string (must be escaped)" },
	{ "", "{\"a\":1", "", "line 2: invalid JSON at byte 6: unexpected end of input (truncated JSON)" },
	{ "", "{\"@tr\":\"report\",\"suffix\":\".r.json\",\"body\":{\"a\":}}", "",
	  "line 2: invalid JSON at byte 47: expected a value" },
	{ "", "{ \"@tr\":\"x\"}", "",
	  "line 2: an event whose first member is \"@tr\", which the stream reserves for control "
	  "records (a control record must begin with the exact bytes {\"@tr\":)" },
	{ "\"traceEvents\":[]", "{}", "",
	  "line 1: head record: its members hold a traceEvents member (events come only as event lines)" },
	{ "\"trace\\u0045vents\":1", "{}", "",
	  "line 1: head record: its members hold a traceEvents member (events come only as event lines)" },
	{ "", "{}", "\"a\":1,\"traceEvents\":{}",
	  "line 3: tail record: its members hold a traceEvents member (events come only as event lines)" },
};

START_TEST(test_refusal)
{
	const struct refusal *r = &refusals[_i];
	char head[256], tail[256];
	const char *lines[3];
	struct buf out = BUF_INIT;
	struct encoder e;

	snprintf(head, sizeof head, HEAD, r->head_members);
	snprintf(tail, sizeof tail, TAIL, r->tail_members);
	lines[0] = head;
	lines[1] = r->line;
	lines[2] = tail;
	ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
	ck_assert_int_eq(feed(&e, lines, 3), ENCODE_INPUT);
	ck_assert_str_eq(e.err, r->err);
	encode_free(&e);
	buf_release(&out);
}
END_TEST

START_TEST(test_record_refusals)
{
	static const struct { const char *line; int kind; const char *err; } cases[] = {
		{ "{\"@tr\":\"head\",\"format\":\"xml\",\"members\":{}}", LINE_HEAD,
		  "line 1: head record: format must be \"object\" or \"array\"" },
		{ "{\"@tr\":\"head\",\"format\":\"object\"}", LINE_HEAD,
		  "line 1: head record without a \"members\" object" },
		{ "{\"@tr\":\"head\",\"format\":\"object\",\"members\":[]}", LINE_HEAD,
		  "line 1: head record without a \"members\" object" },
		{ "{\"@tr\":\"head\",\"format\":\"array\",\"members\":{\"a\":1}}", LINE_HEAD,
		  "line 1: head record: an array-format trace has no top-level members" },
		{ "{\"@tr\":\"tail\",\"members\":1}", LINE_TAIL,
		  "line 1: tail record without a \"members\" object" },
	};
	struct buf out = BUF_INIT;
	struct encoder e;
	size_t i;

	for (i = 0; i < COUNT(cases); i++) {
		ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
		ck_assert_int_eq(encode_line(&e, cases[i].kind, cases[i].line,
					      strlen(cases[i].line), 1), ENCODE_INPUT);
		ck_assert_str_eq(e.err, cases[i].err);
		ck_assert_uint_eq(out.len, 0);
		encode_free(&e);
	}
	buf_release(&out);
}
END_TEST

/* A top-level member nests up to 1000 levels counted from its value, as
 * tr-decode counts it, though the record puts it two levels down. */
START_TEST(test_member_depth)
{
	struct buf line = BUF_INIT, out = BUF_INIT;
	struct encoder e;
	int depth = 1000 + _i, k;

	buf_addstr(&line, "{\"@tr\":\"tail\",\"members\":{\"m\":");
	for (k = 0; k < depth; k++)
		buf_addch(&line, '[');
	for (k = 0; k < depth; k++)
		buf_addch(&line, ']');
	buf_addstr(&line, "}}");
	ck_assert_int_eq(encode_init(&e, put_buf, &out), 0);
	ck_assert_int_eq(encode_line(&e, LINE_TAIL, line.p, line.len, 9),
			 depth == 1000 ? ENCODE_OK : ENCODE_INPUT);
	if (depth > 1000)
		ck_assert_str_eq(e.err, "line 9: invalid JSON at byte 1029: nested deeper than 1000 "
				 "levels (refused: later stages tokenize with jsmn, whose cost "
				 "grows with the square of the depth)");
	encode_free(&e);
	buf_release(&line);
	buf_release(&out);
}
END_TEST

START_TEST(test_write_error)
{
	static const char head[] = "{\"@tr\":\"head\",\"format\":\"object\",\"members\":{}}";
	struct encoder e;

	ck_assert_int_eq(encode_init(&e, put_fails, NULL), 0);
	ck_assert_int_eq(encode_line(&e, LINE_HEAD, head, strlen(head), 1), ENCODE_WRITE);
	ck_assert_int_eq(errno, ENOSPC);
	encode_free(&e);
}
END_TEST

/* Event lines are checked in place (scan_text_valid); with the scanner's
 * slow_only set the encoder takes its old way, the scanner's slow path,
 * as the reference.  Over every cut and thousands of mutations of a few
 * event lines, both must give the same status, the same message (line,
 * byte offset, text) and the same bytes put. */
static unsigned diff_ok, diff_refused, diff_control;

static void encode_both(struct encoder *fast, struct buf *fo, struct encoder *ref,
			struct buf *ro, const char *line, size_t len, uint64_t lineno)
{
	int frc, rrc;

	buf_reset(fo);
	buf_reset(ro);
	frc = encode_line(fast, LINE_EVENT, line, len, lineno);
	rrc = encode_line(ref, LINE_EVENT, line, len, lineno);
	ck_assert_int_eq(frc, rrc);
	ck_assert_uint_eq(fo->len, ro->len);
	ck_assert_mem_eq(fo->p, ro->p, fo->len);
	if (frc == ENCODE_OK) {
		diff_ok++;
	} else {
		ck_assert_int_eq(frc, ENCODE_INPUT);
		ck_assert_str_eq(fast->err, ref->err);
		diff_refused++;
		diff_control += strstr(fast->err, "reserves for control records") != NULL;
	}
}

START_TEST(test_event_check_agrees)
{
	static const char *const seeds[] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void k<\\\"a\\\\\\u00e9>\","
		"\"pid\":0,\"tid\":7,\"ts\":1712195495519689.047,\"dur\":-0.5e-3,"
		"\"args\":{\"a\":[true,false,null,[],{},[1,[2,{\"b\":0}]]],\"c\":1E+30,"
		"\"d\":\"\\/\\b\\f\\n\\r\\t\"}}",
		"{ \"ph\" : \"i\", \"s\":\"t\",\t\"ts\": 0 }",
		"{ \"@tr\" : \"x\", \"a\": 1 }",
		"{\"@tr\":\"y\"}",
		"{\"\\u0040tr\":1,\"@tr\":2}",
		"{\"@trx\":1,\"b\":{\"@tr\":1}}",
		"\r\n {\"@tr\"\n:[]}\t",
	};
	static const char alphabet[] = "{}[]\":,\\ \n\t\r-+.0123456789eEtruefalsnu@\x01\x7f\xff/bx";
	struct buf fo = BUF_INIT, ro = BUF_INIT;
	struct encoder fast, ref;
	char data[256];
	uint32_t rng = 0x6A09E667u;
	uint64_t lineno = 1;
	size_t i, j;

	ck_assert_int_eq(encode_init(&fast, put_buf, &fo), 0);
	ck_assert_int_eq(encode_init(&ref, put_buf, &ro), 0);
	ref.scan.slow_only = 1;
	for (j = 0; j < COUNT(seeds); j++) {
		size_t n = strlen(seeds[j]);
		ck_assert_uint_lt(n, sizeof data - 8);
		for (i = 0; i <= n; i++) /* every cut */
			encode_both(&fast, &fo, &ref, &ro, seeds[j], i, lineno++);
		for (i = 0; i < 4000; i++) {
			size_t len;
			memcpy(data, seeds[j], n);
			len = mutate_text(data, n, sizeof data, alphabet, sizeof alphabet - 1, &rng);
			/* an exact-size copy: ASan sees a read past the line */
			{
				char *line = malloc(len > 0 ? len : 1);
				ck_assert_ptr_nonnull(line);
				memcpy(line, data, len);
				encode_both(&fast, &fo, &ref, &ro, line, len, lineno++);
				free(line);
			}
		}
	}
	/* every outcome was seen, many times */
	ck_assert_uint_gt(diff_ok, 1000);
	ck_assert_uint_gt(diff_refused, 1000);
	ck_assert_uint_gt(diff_control, 100);
	encode_free(&fast);
	encode_free(&ref);
	buf_release(&fo);
	buf_release(&ro);
}
END_TEST

static Suite *encode_suite(void)
{
	Suite *s = suite_create("encode");
	TCase *tc = tcase_create("encode");

	tcase_add_test(tc, test_object);
	tcase_add_test(tc, test_found_members);
	tcase_add_test(tc, test_control_text);
	tcase_add_test(tc, test_empty_and_array);
	tcase_add_loop_test(tc, test_refusal, 0, (int)COUNT(refusals));
	tcase_add_test(tc, test_record_refusals);
	tcase_add_loop_test(tc, test_member_depth, 0, 2);
	tcase_add_test(tc, test_write_error);
	tcase_add_test(tc, test_event_check_agrees);
	tcase_set_timeout(tc, 60);  /* 28 000 lines, slow under ASan */
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(encode_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
