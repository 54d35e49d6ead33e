/* Unit tests for common/core/opt.c: decimal integers and byte counts with full
 * range checks, suffixes, and refusal of anything else; the exact words of
 * every option error, the usage printer and its status. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opt.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct i64_case {
	const char *text;
	int64_t min, max;
	int rc;
	int64_t value;
};

static const struct i64_case i64_cases[] = {
	{ "0", 0, 10, 0, 0 },
	{ "7", 1, 9, 0, 7 },
	{ "1", 1, 9, 0, 1 },      /* the bounds are inclusive */
	{ "9", 1, 9, 0, 9 },
	{ "0", 1, 9, -1, 0 },
	{ "10", 1, 9, -1, 0 },
	{ "-5", -10, 10, 0, -5 },
	{ "-11", -10, 10, -1, 0 },
	{ "-0", 0, 0, 0, 0 },
	{ "007", 0, 10, 0, 7 },
	{ "9223372036854775807", INT64_MIN, INT64_MAX, 0, INT64_MAX },
	{ "-9223372036854775808", INT64_MIN, INT64_MAX, 0, INT64_MIN },
	{ "9223372036854775808", INT64_MIN, INT64_MAX, -1, 0 },
	{ "-9223372036854775809", INT64_MIN, INT64_MAX, -1, 0 },
	{ "99999999999999999999999", INT64_MIN, INT64_MAX, -1, 0 },
	/* junk */
	{ "", INT64_MIN, INT64_MAX, -1, 0 },
	{ "-", INT64_MIN, INT64_MAX, -1, 0 },
	{ "+1", INT64_MIN, INT64_MAX, -1, 0 },
	{ " 1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "\t1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "\n1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1 ", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1x", INT64_MIN, INT64_MAX, -1, 0 },
	{ "x1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1.0", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1e3", INT64_MIN, INT64_MAX, -1, 0 },
	{ "0x10", INT64_MIN, INT64_MAX, -1, 0 },
	{ "--1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "- 1", INT64_MIN, INT64_MAX, -1, 0 },
	{ "1K", INT64_MIN, INT64_MAX, -1, 0 },
};

START_TEST(test_i64)
{
	const struct i64_case *c = &i64_cases[_i];
	int64_t v = 4242;

	ck_assert_msg(opt_parse_i64(c->text, c->min, c->max, &v) == c->rc, "\"%s\"", c->text);
	ck_assert_int_eq(v, c->rc == 0 ? c->value : 4242);  /* untouched on failure */
}
END_TEST

struct size_case {
	const char *text;
	uint64_t min, max;
	int rc;
	uint64_t value;
};

static const struct size_case size_cases[] = {
	{ "0", 0, UINT64_MAX, 0, 0 },
	{ "1", 1, 100, 0, 1 },
	{ "100", 1, 100, 0, 100 },
	{ "101", 1, 100, -1, 0 },
	{ "0", 1, 100, -1, 0 },
	{ "1K", 0, UINT64_MAX, 0, 1024 },
	{ "3M", 0, UINT64_MAX, 0, 3u << 20 },
	{ "2G", 0, UINT64_MAX, 0, (uint64_t)2 << 30 },
	{ "0K", 0, UINT64_MAX, 0, 0 },
	{ "64M", 1, (uint64_t)64 << 20, 0, (uint64_t)64 << 20 },
	{ "65M", 1, (uint64_t)64 << 20, -1, 0 },
	{ "1025K", 1, 1 << 20, -1, 0 },
	{ "1024K", 1, 1 << 20, 0, 1 << 20 },
	{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
	{ "18446744073709551616", 0, UINT64_MAX, -1, 0 },
	{ "17179869183G", 0, UINT64_MAX, 0, (uint64_t)17179869183 << 30 },
	{ "17179869184G", 0, UINT64_MAX, -1, 0 },  /* 2^64 */
	{ "17592186044415M", 0, UINT64_MAX, 0, (uint64_t)17592186044415 << 20 },
	{ "17592186044416M", 0, UINT64_MAX, -1, 0 },
	{ "18014398509481983K", 0, UINT64_MAX, 0, (uint64_t)18014398509481983 << 10 },
	{ "18014398509481984K", 0, UINT64_MAX, -1, 0 },
	/* junk */
	{ "", 0, UINT64_MAX, -1, 0 },
	{ "K", 0, UINT64_MAX, -1, 0 },
	{ "-1", 0, UINT64_MAX, -1, 0 },
	{ "+1", 0, UINT64_MAX, -1, 0 },
	{ " 1", 0, UINT64_MAX, -1, 0 },
	{ "1 ", 0, UINT64_MAX, -1, 0 },
	{ "1k", 0, UINT64_MAX, -1, 0 },
	{ "1m", 0, UINT64_MAX, -1, 0 },
	{ "1T", 0, UINT64_MAX, -1, 0 },
	{ "1KB", 0, UINT64_MAX, -1, 0 },
	{ "1KK", 0, UINT64_MAX, -1, 0 },
	{ "1 K", 0, UINT64_MAX, -1, 0 },
	{ "1.5M", 0, UINT64_MAX, -1, 0 },
	{ "0x10", 0, UINT64_MAX, -1, 0 },
	{ "1e6", 0, UINT64_MAX, -1, 0 },
};

START_TEST(test_size)
{
	const struct size_case *c = &size_cases[_i];
	uint64_t v = 4242;

	ck_assert_msg(opt_parse_size(c->text, c->min, c->max, &v) == c->rc, "\"%s\"", c->text);
	ck_assert_uint_eq(v, c->rc == 0 ? c->value : 4242);
}
END_TEST

struct u64_case {
	const char *text;
	uint64_t min, max;
	int rc;
	uint64_t value;
};

static const struct u64_case u64_cases[] = {
	{ "0", 0, 10, 0, 0 },
	{ "10", 1, 10, 0, 10 },
	{ "11", 1, 10, -1, 0 },
	{ "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX },
	{ "18446744073709551616", 0, UINT64_MAX, -1, 0 },
	{ "1K", 0, UINT64_MAX, -1, 0 },  /* a count takes no suffix */
	{ "-1", 0, UINT64_MAX, -1, 0 },
	{ "+1", 0, UINT64_MAX, -1, 0 },
	{ " 1", 0, UINT64_MAX, -1, 0 },
	{ "", 0, UINT64_MAX, -1, 0 },
};

START_TEST(test_u64)
{
	const struct u64_case *c = &u64_cases[_i];
	uint64_t v = 4242;

	ck_assert_msg(opt_parse_u64(c->text, c->min, c->max, &v) == c->rc, "\"%s\"", c->text);
	ck_assert_uint_eq(v, c->rc == 0 ? c->value : 4242);
}
END_TEST

/* ---- messages ---------------------------------------------------- */

static const struct option longopts[] = {
	{ "max-event-bytes", required_argument, NULL, 'm' },
	{ "max-member-bytes", required_argument, NULL, 'M' },
	{ "record-path", no_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	/* two names for one option: an abbreviation of both is no ambiguity */
	{ "colour", no_argument, NULL, 'c' },
	{ "color", no_argument, NULL, 'c' },
	{ NULL, 0, NULL, 0 }
};

static const char usage[] = "usage: tr-x [-o FILE]\n\nExit status: 0 success.\n";
static const struct opt_program prog = { "tr-x", ":o:h", longopts, usage };

/* What the program's stderr holds after parsing args (NULL-terminated) up
 * to the first error, with the status opt_fail returned. */
static char *fail_text(char *const *args, int *status)
{
	char *argv[8], *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	int argc = 0, ch;

	ck_assert_ptr_nonnull(err);
	while (args[argc] != NULL) {
		argv[argc] = args[argc];
		argc++;
	}
	argv[argc] = NULL;
	optind = 0;  /* glibc: start over */
	*status = -1;
	while ((ch = opt_next(&prog, argc, argv)) != -1)
		if (ch == '?' || ch == ':') {
			*status = opt_fail(&prog, err, ch, argv);
			break;
		}
	ck_assert_int_eq(fclose(err), 0);
	return text;
}

struct fail_case {
	const char *args[6];
	const char *first_line;  /* then the usage */
};

static const struct fail_case fail_cases[] = {
	{ { "tr-x", "--bogus", NULL }, "tr-x: unknown option '--bogus'" },
	{ { "tr-x", "--bogus=1", NULL }, "tr-x: unknown option '--bogus=1'" },
	{ { "tr-x", "-x", NULL }, "tr-x: unknown option '-x'" },
	{ { "tr-x", "-px", NULL }, "tr-x: unknown option '-p'" },
	{ { "tr-x", "--=x", NULL }, "tr-x: unknown option '--=x'" },
	{ { "tr-x", "--record-path", "--", "--bogus", NULL }, NULL },  /* an operand */
	{ { "tr-x", "--max-event-bytes", NULL }, "tr-x: option '--max-event-bytes' requires an argument" },
	{ { "tr-x", "--max-e", NULL }, "tr-x: option '--max-event-bytes' requires an argument" },
	{ { "tr-x", "-o", NULL }, "tr-x: option '-o' requires an argument" },
	{ { "tr-x", "--output", NULL }, "tr-x: option '--output' requires an argument" },
	{ { "tr-x", "--record-path=1", NULL }, "tr-x: option '--record-path' takes no argument" },
	{ { "tr-x", "--rec=", NULL }, "tr-x: option '--record-path' takes no argument" },
	{ { "tr-x", "--max", "4", NULL },
	  "tr-x: option '--max' is ambiguous; possibilities: '--max-event-bytes' '--max-member-bytes'" },
	{ { "tr-x", "--max=4", NULL },
	  "tr-x: option '--max' is ambiguous; possibilities: '--max-event-bytes' '--max-member-bytes'" },
	{ { "tr-x", "--col", "--bogus", NULL }, "tr-x: unknown option '--bogus'" },
	{ { "tr-x", "--colo=1", NULL }, "tr-x: option '--colour' takes no argument" },
	{ { "tr-x", "--color=1", NULL }, "tr-x: option '--color' takes no argument" },
	{ { "tr-x", "-ho", NULL }, "tr-x: option '-o' requires an argument" },
};

START_TEST(test_fail)
{
	const struct fail_case *c = &fail_cases[_i];
	char want[512];
	int status;
	char *got = fail_text((char *const *)c->args, &status);

	if (c->first_line == NULL) {
		ck_assert_int_eq(status, -1);
		ck_assert_str_eq(got, "");
	} else {
		snprintf(want, sizeof want, "%s\n%s", c->first_line, usage);
		ck_assert_int_eq(status, 2);
		ck_assert_str_eq(got, want);
	}
	free(got);
}
END_TEST

START_TEST(test_usage_errors)
{
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(err);
	ck_assert_int_eq(opt_extra_operand(&prog, err, "b.json"), 2);
	ck_assert_int_eq(opt_usage_error(&prog, err, "--%s and --%s are required", "a", "b"), 2);
	ck_assert_int_eq(fclose(err), 0);
	ck_assert_str_eq(text, "tr-x: unexpected argument 'b.json'\n"
		"usage: tr-x [-o FILE]\n\nExit status: 0 success.\n"
		"tr-x: --a and --b are required\n"
		"usage: tr-x [-o FILE]\n\nExit status: 0 success.\n");
	free(text);
}
END_TEST

struct value_case {
	int kind;  /* 'i' opt_i64, 'u' opt_u64, 's' opt_size */
	const char *text;
	int64_t min, max;  /* as uint64_t for 'u' and 's' */
	const char *message;  /* NULL: accepted */
};

static const struct value_case value_cases[] = {
	{ 'i', "0", 1, 9, "tr-x: --n: invalid value '0' (allowed 1 to 9)\n" },
	{ 'i', "-1", 0, INT32_MAX, "tr-x: --n: invalid value '-1' (allowed 0 to 2147483647)\n" },
	{ 'i', "-11", -10, 10, "tr-x: --n: invalid value '-11' (allowed -10 to 10)\n" },
	{ 'i', "x", 1, 9, "tr-x: --n: invalid value 'x' (allowed 1 to 9)\n" },
	{ 'i', "5", 1, 9, NULL },
	{ 'u', "2K", 1, 100000, "tr-x: --n: invalid value '2K' (allowed 1 to 100000)\n" },
	{ 'u', "100000", 1, 100000, NULL },
	{ 's', "1m", 1, 1 << 30, "tr-x: --n: invalid value '1m' (allowed 1 to 1G)\n" },
	{ 's', "2G", 1, 1 << 30, "tr-x: --n: invalid value '2G' (allowed 1 to 1G)\n" },
	{ 's', "0", 1, (int64_t)1 << 40, "tr-x: --n: invalid value '0' (allowed 1 to 1024G)\n" },
	{ 's', "65M", 1024, (int64_t)64 << 20, "tr-x: --n: invalid value '65M' (allowed 1K to 64M)\n" },
	{ 's', "1", 1536, 3 << 20, "tr-x: --n: invalid value '1' (allowed 1536 to 3M)\n" },
	{ 's', "", 0, 1000, "tr-x: --n: invalid value '' (allowed 0 to 1000)\n" },
	{ 's', "1G", 1, 1 << 30, NULL },
};

START_TEST(test_values)
{
	const struct value_case *c = &value_cases[_i];
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);
	int64_t i = 4242;
	uint64_t u = 4242;
	int rc;

	ck_assert_ptr_nonnull(err);
	if (c->kind == 'i')
		rc = opt_i64(&prog, err, "--n", c->text, c->min, c->max, &i);
	else if (c->kind == 'u')
		rc = opt_u64(&prog, err, "--n", c->text, (uint64_t)c->min, (uint64_t)c->max, &u);
	else
		rc = opt_size(&prog, err, "--n", c->text, (uint64_t)c->min, (uint64_t)c->max, &u);
	ck_assert_int_eq(fclose(err), 0);
	ck_assert_int_eq(rc, c->message == NULL ? 0 : -1);
	ck_assert_str_eq(text, c->message == NULL ? "" : c->message);
	if (c->message != NULL)
		ck_assert(i == 4242 && u == 4242);  /* untouched on failure */
	free(text);
}
END_TEST

START_TEST(test_bad_value)
{
	char *text = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&text, &len);

	ck_assert_int_eq(opt_bad_value(&prog, err, "--layer", "Lx", "a layer, as L3 or 3"), 2);
	ck_assert_int_eq(opt_bad_value(&prog, err, "--pad", "-", NULL), 2);
	ck_assert_int_eq(fclose(err), 0);
	ck_assert_str_eq(text, "tr-x: --layer: invalid value 'Lx' (a layer, as L3 or 3)\n"
		"tr-x: --pad: invalid value '-'\n");
	free(text);
}
END_TEST

START_TEST(test_help)
{
	char *out_text = NULL, *err_text = NULL;
	size_t out_len = 0, err_len = 0;
	FILE *out = open_memstream(&out_text, &out_len);
	FILE *err = open_memstream(&err_text, &err_len);
	FILE *full = fopen("/dev/full", "w");

	ck_assert_int_eq(opt_help(&prog, out, err), 0);
	ck_assert_ptr_nonnull(full);
	ck_assert_int_eq(opt_help(&prog, full, err), 2);
	fclose(full);
	ck_assert_int_eq(fclose(out), 0);
	ck_assert_int_eq(fclose(err), 0);
	ck_assert_str_eq(out_text, usage);
	ck_assert_str_eq(err_text, "tr-x: standard output: No space left on device\n");
	free(out_text);
	free(err_text);
}
END_TEST

static Suite *opt_suite(void)
{
	Suite *s = suite_create("opt");
	TCase *tc = tcase_create("parse");

	tcase_add_loop_test(tc, test_i64, 0, (int)COUNT(i64_cases));
	tcase_add_loop_test(tc, test_size, 0, (int)COUNT(size_cases));
	tcase_add_loop_test(tc, test_u64, 0, (int)COUNT(u64_cases));
	suite_add_tcase(s, tc);
	tc = tcase_create("messages");
	tcase_add_loop_test(tc, test_fail, 0, (int)COUNT(fail_cases));
	tcase_add_test(tc, test_usage_errors);
	tcase_add_loop_test(tc, test_values, 0, (int)COUNT(value_cases));
	tcase_add_test(tc, test_bad_value);
	tcase_add_test(tc, test_help);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(opt_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
