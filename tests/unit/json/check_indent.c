/* Unit tests for common/json/indent.c: the layout of Python's json.dump(indent=2)
 * (expected texts made by Python 3's json module), exact number text and
 * string bytes, any split of the input into pieces, pass-through at width
 * 0, and the errors. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "json/indent.h"

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

/* Lay out text in pieces of at most step bytes; the result in out. */
static void lay_out(const char *text, unsigned width, size_t step, struct buf *out)
{
	struct indent ix;
	size_t n = strlen(text), i;

	buf_reset(out);
	indent_init(&ix, width, put_buf, out);
	for (i = 0; i < n; i += step)
		ck_assert_int_eq(indent_write(&ix, text + i, n - i < step ? n - i : step), 0);
	ck_assert_int_eq(indent_flush(&ix), 0);
	indent_free(&ix);
}

/* json.dumps({...}, indent=2) + "\n" */
static const char nested_in[] =
	"{\"a\":1,\"b\":[1,[2,{}]],\"c\":{},\"d\":[],"
	"\"e\":{\"f\":\"x\",\"g\":[{\"h\":null,\"i\":true}]}}\n";
static const char nested_want[] =
	"{\n  \"a\": 1,\n  \"b\": [\n    1,\n    [\n      2,\n      {}\n    ]\n  ],\n"
	"  \"c\": {},\n  \"d\": [],\n  \"e\": {\n    \"f\": \"x\",\n    \"g\": [\n"
	"      {\n        \"h\": null,\n        \"i\": true\n      }\n    ]\n  }\n}\n";

START_TEST(test_python_layout)
{
	struct buf out = BUF_INIT;

	lay_out(nested_in, 2, 1 << 20, &out);
	ck_assert_str_eq(out.p, nested_want);
	buf_release(&out);
}
END_TEST

START_TEST(test_any_pieces)
{
	struct buf out = BUF_INIT;
	size_t step;

	for (step = 1; step <= sizeof nested_in; step++) {
		lay_out(nested_in, 2, step, &out);
		ck_assert_str_eq(out.p, nested_want);
	}
	buf_release(&out);
}
END_TEST

/* Numbers keep their text; strings keep their bytes, escapes and the
 * brackets, commas and colons inside them; whitespace outside strings goes. */
START_TEST(test_exact_text)
{
	static const char in[] =
		"{ \"n\" : 1.50e+03 ,\"m\":-0.0,\"big\":12345678901234567890123,"
		"\"s\":\"a, b: {c} [d] \\\"q\\\" \\\\\",\"u\":\"\\u00e9\\n\","
		"\"raw\":\"\xc3\xa9\\t\",\"k\\\"{\":[ ]}\n";
	static const char want[] =
		"{\n  \"n\": 1.50e+03,\n  \"m\": -0.0,\n  \"big\": 12345678901234567890123,\n"
		"  \"s\": \"a, b: {c} [d] \\\"q\\\" \\\\\",\n  \"u\": \"\\u00e9\\n\",\n"
		"  \"raw\": \"\xc3\xa9\\t\",\n  \"k\\\"{\": []\n}\n";
	struct buf out = BUF_INIT;
	size_t step;

	for (step = 1; step <= sizeof in; step++) {
		lay_out(in, 2, step, &out);
		ck_assert_str_eq(out.p, want);
	}
	buf_release(&out);
}
END_TEST

START_TEST(test_other_width)
{
	struct buf out = BUF_INIT;

	lay_out("{\"a\":[1]}\n", 4, 3, &out);
	ck_assert_str_eq(out.p, "{\n    \"a\": [\n        1\n    ]\n}\n");
	lay_out("{}\n", 2, 1, &out);
	ck_assert_str_eq(out.p, "{}\n");
	buf_release(&out);
}
END_TEST

START_TEST(test_width_zero_passes_through)
{
	static const char in[] = "{ \"a\" :1.0,\n\"b\":[ ]}\n";
	struct buf out = BUF_INIT;

	lay_out(in, 0, 5, &out);
	ck_assert_str_eq(out.p, in);
	buf_release(&out);
}
END_TEST

START_TEST(test_unbalanced)
{
	struct indent ix;
	struct buf out = BUF_INIT;

	indent_init(&ix, 2, put_buf, &out);
	ck_assert_int_eq(indent_write(&ix, "{}", 2), 0);
	errno = 0;
	ck_assert_int_eq(indent_write(&ix, "}", 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	indent_free(&ix);
	buf_release(&out);
}
END_TEST

/* put's failure comes back with its errno, from the flush and from a write
 * that fills the buffer. */
START_TEST(test_put_failure)
{
	struct indent ix;
	char *big = malloc(1 << 20);
	size_t i;

	ck_assert_ptr_nonnull(big);
	indent_init(&ix, 2, put_fails, NULL);
	ck_assert_int_eq(indent_write(&ix, "[1", 2), 0);
	errno = 0;
	ck_assert_int_eq(indent_flush(&ix), -1);
	ck_assert_int_eq(errno, ENOSPC);
	for (i = 0; i < (1 << 20); i++)
		big[i] = i % 2 ? ',' : '1';
	errno = 0;
	ck_assert_int_eq(indent_write(&ix, big, 1 << 20), -1);
	ck_assert_int_eq(errno, ENOSPC);
	indent_free(&ix);
	free(big);
}
END_TEST

/* Values of the verbatim key keep their exact text (whitespace included)
 * on one line; other members around them are laid out. */
START_TEST(test_verbatim_key)
{
	static const char in[] =
		"{\"retired\":[{\"index\":3,\"event\":{\"name\":\"a}\\\"\",\"args\":{\"x\": [1, {}]}}},"
		"{\"event\":[],\"events\":{\"y\":1},\"z\":\"event\",\"w\":{\"k\":1}}],"
		"\"event\":7}\n";
	static const char want[] =
		"{\n  \"retired\": [\n    {\n      \"index\": 3,\n"
		"      \"event\": {\"name\":\"a}\\\"\",\"args\":{\"x\": [1, {}]}}\n    },\n"
		"    {\n      \"event\": [],\n      \"events\": {\n        \"y\": 1\n      },\n"
		"      \"z\": \"event\",\n      \"w\": {\n        \"k\": 1\n      }\n    }\n  ],\n"
		"  \"event\": 7\n}\n";
	struct buf out = BUF_INIT;
	struct indent ix;
	size_t step, n = strlen(in), i;

	for (step = 1; step <= sizeof in; step++) {
		buf_reset(&out);
		indent_init(&ix, 2, put_buf, &out);
		ix.verbatim_key = "event";
		for (i = 0; i < n; i += step)
			ck_assert_int_eq(indent_write(&ix, in + i, n - i < step ? n - i : step), 0);
		ck_assert_int_eq(indent_flush(&ix), 0);
		indent_free(&ix);
		ck_assert_str_eq(out.p, want);
	}
	buf_release(&out);
}
END_TEST

static Suite *indent_suite(void)
{
	Suite *s = suite_create("indent");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_python_layout);
	tcase_add_test(tc, test_any_pieces);
	tcase_add_test(tc, test_exact_text);
	tcase_add_test(tc, test_other_width);
	tcase_add_test(tc, test_verbatim_key);
	tcase_add_test(tc, test_width_zero_passes_through);
	tcase_add_test(tc, test_unbalanced);
	tcase_add_test(tc, test_put_failure);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(indent_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
