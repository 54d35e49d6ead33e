/* Unit tests for common/genrepeat.c: exact outputs of small traces repeated
 * (ts moved in their own number format, ids offset, metadata once, the
 * separators and the text around the events kept), the plan, refusals. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "genrepeat.h"
#include "io.h"

/* The output of genrepeat_write(text, n), NUL-terminated; *rc its status. */
static char *repeat(const char *text, uint64_t n, int *rc, struct genrepeat_error *err)
{
	char path[] = "/tmp/check_genrepeat.XXXXXX";
	int fd = mkstemp(path);
	struct writer w;
	struct stat st;
	char *p;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(writer_init(&w, fd), 0);
	*rc = genrepeat_write(text, strlen(text), n, &w, err);
	ck_assert_int_eq(writer_flush(&w), 0);
	writer_free(&w);
	ck_assert_int_eq(fstat(fd, &st), 0);
	p = calloc((size_t)st.st_size + 1, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	return p;
}

static void repeats_to(const char *text, uint64_t n, const char *want)
{
	struct genrepeat_error err;
	int rc;
	char *got = repeat(text, n, &rc, &err);

	ck_assert_int_eq(rc, GENREPEAT_OK);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(test_kineto_object)
{
	/* span 10.250 .. 12.250 + 0.5: 2.5 us -> 3 + 1 = 4 us; ids: 7 + 1 = 8 */
	repeats_to("{\"a\": 1, \"traceEvents\": [\n"
		   "  {\"ph\": \"M\", \"ts\": 3, \"name\": \"thread_name\"},\n"
		   "  {\"ph\": \"X\", \"ts\": 10.250, \"dur\": 2, \"args\": "
		   "{\"External id\": 7, \"correlation\": 6}},\n"
		   "  {\"ph\": \"f\", \"id\": 6, \"ts\": 12.250, \"dur\": 0.5}\n"
		   "  ], \"z\": [1]}\n", 3,
		   "{\"a\": 1, \"traceEvents\": [\n"
		   "  {\"ph\": \"M\", \"ts\": 3, \"name\": \"thread_name\"},\n"
		   "  {\"ph\": \"X\", \"ts\": 10.250, \"dur\": 2, \"args\": "
		   "{\"External id\": 7, \"correlation\": 6}},\n"
		   "  {\"ph\": \"f\", \"id\": 6, \"ts\": 12.250, \"dur\": 0.5},\n"
		   "  {\"ph\": \"X\", \"ts\": 14.250, \"dur\": 2, \"args\": "
		   "{\"External id\": 15, \"correlation\": 14}},\n"
		   "  {\"ph\": \"f\", \"id\": 14, \"ts\": 16.250, \"dur\": 0.5},\n"
		   "  {\"ph\": \"X\", \"ts\": 18.250, \"dur\": 2, \"args\": "
		   "{\"External id\": 23, \"correlation\": 22}},\n"
		   "  {\"ph\": \"f\", \"id\": 22, \"ts\": 20.250, \"dur\": 0.5}\n"
		   "  ], \"z\": [1]}\n");
}
END_TEST

START_TEST(test_array_and_carry)
{
	/* integer ts across a power of ten; a string id and a negative one
	 * stay as written; the multi-line layout between events is kept */
	repeats_to("[{\"ph\": \"X\", \"ts\": 95,\n \"dur\": 4, \"id\": \"0x1\"},"
		   "\n{\"ph\": \"s\", \"ts\": 98, \"id\": -2}]", 2,
		   "[{\"ph\": \"X\", \"ts\": 95,\n \"dur\": 4, \"id\": \"0x1\"},"
		   "\n{\"ph\": \"s\", \"ts\": 98, \"id\": -2},"
		   "\n{\"ph\": \"X\", \"ts\": 100,\n \"dur\": 4, \"id\": \"0x1\"},"
		   "\n{\"ph\": \"s\", \"ts\": 103, \"id\": -2}]");
}
END_TEST

START_TEST(test_one_copy_is_identity)
{
	const char *t = "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": 1.5, \"args\": {\"args\": 1}} ],"
			" \"traceName\": \"x\"}";

	repeats_to(t, 1, t);
	repeats_to("{\"traceEvents\": []}", 4, "{\"traceEvents\": []}");
}
END_TEST

START_TEST(test_plan)
{
	const char *t = "{\"traceEvents\": [{\"ph\": \"M\", \"ts\": 0},"
			"{\"ph\": \"X\", \"ts\": 1000.0001, \"dur\": 0.9998, \"args\": {\"correlation\": 41}}]}";
	struct genrepeat_plan plan;
	struct genrepeat_error err;

	ck_assert_int_eq(genrepeat_plan(t, strlen(t), &plan, &err), GENREPEAT_OK);
	ck_assert_uint_eq(plan.events, 2);
	ck_assert_uint_eq(plan.metadata, 1);
	/* the metadata's ts 0 is not in the span: 999 ns -> 1 us, + 1 */
	ck_assert_uint_eq(plan.shift_us, 2);
	ck_assert_uint_eq(plan.id_offset, 42);
}
END_TEST

START_TEST(test_refusals)
{
	static const struct {
		const char *text, *msg;
		uint64_t offset;
	} cases[] = {
		{ "[{\"ts\": 1e3}]", "a ts that is not a plain decimal number of microseconds", 8 },
		{ "[{\"ts\": -1}]", "a ts that is not a plain decimal number of microseconds", 8 },
		{ "[{\"ts\": \"1\"}]", "a ts that is not a plain decimal number of microseconds", 8 },
		{ "{\"events\": []}", "no traceEvents array", 0 },
		{ "[{\"ts\": 1},]", "not a JSON text (or nested deeper than 64 levels)", 0 },
		{ "true ", "neither a JSON object nor an array", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct genrepeat_error err;
		int rc;
		char *got = repeat(cases[i].text, 2, &rc, &err);

		ck_assert_int_eq(rc, GENREPEAT_INPUT);
		ck_assert_str_eq(err.msg, cases[i].msg);
		ck_assert_uint_eq(err.offset, cases[i].offset);
		ck_assert_str_eq(got, "");
		free(got);
	}
}
END_TEST

START_TEST(test_range)
{
	struct genrepeat_error err;
	int rc;
	char *got = repeat("[{\"ts\": 18446744073709551000, \"dur\": 1000}]", 2, &rc, &err);

	ck_assert_int_eq(rc, GENREPEAT_INPUT);   /* above int64 ns: tsnum refuses */
	free(got);
	got = repeat("[{\"ts\": 1, \"id\": 9223372036854775807}]", 3, &rc, &err);
	ck_assert_int_eq(rc, GENREPEAT_RANGE);
	free(got);
}
END_TEST

static Suite *genrepeat_suite(void)
{
	Suite *s = suite_create("genrepeat");
	TCase *tc = tcase_create("genrepeat");

	tcase_add_test(tc, test_kineto_object);
	tcase_add_test(tc, test_array_and_carry);
	tcase_add_test(tc, test_one_copy_is_identity);
	tcase_add_test(tc, test_plan);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_range);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(genrepeat_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
