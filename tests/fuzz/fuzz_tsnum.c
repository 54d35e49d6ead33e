/* libFuzzer target: any bytes as a timestamp number text (common/json/tsnum.c).
 *   - tsnum_us_to_ns gives the same nanoseconds and sub-ns flag as the slow
 *     exact reference in tests/ref_tsnum.h, or the same refusal;
 *   - tsnum_parse_int64 agrees with strtoll on every text of the integer
 *     grammar -?(0|[1-9][0-9]*) and refuses everything else;
 *   - tsnum_perfetto_us_to_ns does not crash (ASan/UBSan watch it) and agrees
 *     with the exact conversion on integers that need no rounding;
 *   - tsnum_format_us3 of a converted value reads back to the same value, and
 *     tsnum_round_ns_to_us rounds half away from zero;
 *   - tsnum_not_below_plain answers as tsnum_text_not_below, the input split
 *     in two at its first ',' (or against fixed texts), both ways round. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/tsnum.h"
#include "../ref_tsnum.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *text, size_t len)
{
	fprintf(stderr, "fuzz_tsnum: property failed: %s on '%.*s'\n", what,
		(int)(len > 200 ? 200 : len), text);
	abort();
}

static int integer_grammar(const char *t, size_t len)
{
	size_t i = 0;

	if (i < len && t[i] == '-')
		i++;
	if (!is_digit_at(t, len, i))
		return 0;
	if (t[i] == '0')
		return i + 1 == len;
	while (is_digit_at(t, len, i))
		i++;
	return i == len;
}

static void check_us_to_ns(const char *t, size_t len)
{
	int64_t ns = 12345, ref_ns = 0;
	int sub = 7, ref_sub = 0;
	int rc = tsnum_us_to_ns(t, len, &ns, &sub);
	int ref = ref_us_to_ns(t, len, &ref_ns, &ref_sub);

	if (rc != ref)
		fail("tsnum_us_to_ns status differs from the reference", t, len);
	if (rc != NUM_OK) {
		if (ns != 12345 || sub != 7)
			fail("tsnum_us_to_ns changed its outputs on failure", t, len);
		return;
	}
	if (ns != ref_ns || sub != ref_sub)
		fail("tsnum_us_to_ns value differs from the reference", t, len);
	{
		/* three decimals of the floor read back exactly */
		char text[NUM_US_BUFSZ];
		size_t n = tsnum_format_us3(ns, text);
		int64_t back;
		int back_sub;
		if (n == 0 || n >= NUM_US_BUFSZ || strlen(text) != n)
			fail("tsnum_format_us3 length", t, len);
		if (tsnum_us_to_ns(text, n, &back, &back_sub) != NUM_OK || back != ns || back_sub)
			fail("tsnum_format_us3 does not read back", text, n);
	}
	{
		/* rounding to whole microseconds, half away from zero */
		int64_t us = tsnum_round_ns_to_us(ns);
		int64_t r = ns % 1000, q = ns / 1000;  /* C truncates toward zero */
		int64_t want = q + (r >= 500 ? 1 : r <= -500 ? -1 : 0);
		if (us != want)
			fail("tsnum_round_ns_to_us", t, len);
	}
}

static void check_int64(const char *t, size_t len)
{
	int64_t v = 42;
	int rc = tsnum_parse_int64(t, len, &v);

	if (!integer_grammar(t, len)) {
		if (rc != NUM_SYNTAX || v != 42)
			fail("tsnum_parse_int64 accepted a non-integer", t, len);
		return;
	}
	{
		char *copy = malloc(len + 1);
		long long want;
		int range;
		if (copy == NULL)
			abort();
		memcpy(copy, t, len);
		copy[len] = '\0';
		errno = 0;
		want = strtoll(copy, NULL, 10);
		range = errno == ERANGE;
		free(copy);
		if (range ? rc != NUM_RANGE : rc != NUM_OK || v != want)
			fail("tsnum_parse_int64 differs from strtoll", t, len);
	}
}

static void check_perfetto(const char *t, size_t len)
{
	int64_t ns = 0, exact = 0, i64 = 0;
	int sub = 0;
	int rc = tsnum_perfetto_us_to_ns(t, len, &ns);

	if (!ref_valid(t, len)) {
		if (rc != NUM_SYNTAX)
			fail("tsnum_perfetto_us_to_ns accepted a non-number", t, len);
		return;
	}
	/* An integer whose nanoseconds fit: Perfetto multiplies by 1000
	 * exactly, as we do. */
	if (tsnum_parse_int64(t, len, &i64) == NUM_OK && i64 > INT64_MIN / 1000 &&
	    i64 < INT64_MAX / 1000 && tsnum_us_to_ns(t, len, &exact, &sub) == NUM_OK &&
	    (rc != NUM_OK || ns != exact))
		fail("tsnum_perfetto_us_to_ns differs on an exact integer", t, len);
}

static void check_not_below(const char *a, size_t an, const char *b, size_t bn)
{
	struct tsnum_plain p;

	tsnum_plain_of(b, bn, &p);
	if (tsnum_not_below_plain(a, an, &p) != tsnum_text_not_below(a, an, b, bn))
		fail("tsnum_not_below_plain differs from tsnum_text_not_below", a, an);
}

static void check_plain(const char *t, size_t len)
{
	static const char *const fixed[] = { "0", "1428625731456.000", "1428625731456",
		"99.5", "1712195495519689.047" };
	const char *comma = memchr(t, ',', len);
	size_t i;

	if (comma != NULL) {
		size_t an = (size_t)(comma - t);
		check_not_below(t, an, comma + 1, len - an - 1);
		check_not_below(comma + 1, len - an - 1, t, an);
	}
	for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		check_not_below(t, len, fixed[i], strlen(fixed[i]));
		check_not_below(fixed[i], strlen(fixed[i]), t, len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;

	check_plain(t, size);
	check_us_to_ns(t, size);
	check_int64(t, size);
	check_perfetto(t, size);
	return 0;
}
