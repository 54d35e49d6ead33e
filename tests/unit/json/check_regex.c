/* Unit tests for common/json/regex.c: Python's \uXXXX and \UXXXXXXXX escapes,
 * which PCRE2 does not know, are translated (also inside character
 * classes, never after an escaped backslash); \N{NAME} and malformed
 * escapes are refused with Python-like messages and offsets in the
 * pattern as typed.  The expected results are Python 3's re.search. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "json/regex.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct match_case {
	const char *pattern, *subject;
	int found;  /* re.search(pattern, subject) is not None */
};

static const struct match_case match_cases[] = {
	{ "\\u0041", "xAx", 1 },
	{ "\\u0041", "u0041", 0 },
	{ "^\\u00e9t\\u00E9$", "\xc3\xa9t\xc3\xa9", 1 },          /* été; hex either case */
	{ "\\U0001F600", "smile \xf0\x9f\x98\x80", 1 },
	{ "\\U00000041\\U00000042", "AB", 1 },
	{ "[\\u0041-\\u0043]+$", "xBCA", 1 },                  /* inside a class */
	{ "^[\\u0041-\\u0043]$", "D", 0 },
	{ "[^\\u0041]", "A", 0 },
	{ "\\u00411", "A1", 1 },                                /* four digits only */
	{ "\\u0041{2}", "AA", 1 },                              /* a quantifier after it */
	/* an escaped backslash: "\\u0041" is a backslash, then u0041 */
	{ "\\\\u0041", "\\u0041", 1 },
	{ "\\\\u0041", "A", 0 },
	{ "\\\\\\u0041", "\\A", 1 },                            /* \\ then \u0041 */
	{ "[\\\\u]", "u", 1 },                                  /* a class of \ and u */
	{ "[\\\\u]", "\\", 1 },
	{ "x\\x41", "xA", 1 },                                  /* what PCRE2 knew stays */
	{ "\\w+_kernel", "rotary_kernel", 1 },
};

START_TEST(test_match)
{
	const struct match_case *c = &match_cases[_i];
	char err[200] = "";
	struct regex *re = regex_compile(c->pattern, err, sizeof err);

	ck_assert_msg(re != NULL, "%s: %s", c->pattern, err);
	ck_assert_msg(regex_search(re, c->subject, strlen(c->subject)) == c->found, "%s on %s",
		      c->pattern, c->subject);
	regex_free(re);
}
END_TEST

struct error_case {
	const char *pattern, *message;
};

static const struct error_case error_cases[] = {
	{ "\\N{LATIN SMALL LETTER E WITH ACUTE}",
	  "at offset 0: \\N{...} (a character by its Unicode name) is not supported, PCRE2 has "
	  "no name table: write the code point as \\x{...}, e.g. \\x{e9} for \\N{LATIN SMALL "
	  "LETTER E WITH ACUTE}" },
	{ "ab[\\N{DIGIT ONE}]",
	  "at offset 3: \\N{...} (a character by its Unicode name) is not supported, PCRE2 has "
	  "no name table: write the code point as \\x{...}, e.g. \\x{e9} for \\N{LATIN SMALL "
	  "LETTER E WITH ACUTE}" },
	{ "ab\\N", "at offset 2: \\N{...} (a character by its Unicode name) is not supported, "
	  "PCRE2 has no name table: write the code point as \\x{...}, e.g. \\x{e9} for "
	  "\\N{LATIN SMALL LETTER E WITH ACUTE}" },
	{ "x\\u004", "at offset 1: incomplete escape \\u (Python's \\u takes exactly 4 hex digits)" },
	{ "\\u00g1", "at offset 0: incomplete escape \\u (Python's \\u takes exactly 4 hex digits)" },
	{ "\\U0001F60", "at offset 0: incomplete escape \\U (Python's \\U takes exactly 8 hex digits)" },
	{ "\\U00110000", "at offset 0: bad escape \\U00110000 (beyond U+10FFFF)" },
	/* PCRE2's own errors point into the pattern as typed, past the translation */
	{ "\\u0041\\u0042(", "at offset 13: missing closing parenthesis" },
};

START_TEST(test_error)
{
	const struct error_case *c = &error_cases[_i];
	char err[300] = "";

	ck_assert_ptr_null(regex_compile(c->pattern, err, sizeof err));
	ck_assert_str_eq(err, c->message);
}
END_TEST

static Suite *regex_suite(void)
{
	Suite *s = suite_create("regex");
	TCase *tc = tcase_create("python escapes");

	tcase_add_loop_test(tc, test_match, 0, (int)COUNT(match_cases));
	tcase_add_loop_test(tc, test_error, 0, (int)COUNT(error_cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(regex_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
