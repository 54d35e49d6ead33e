/* Unit tests for common/json/tsnum.c: exact µs -> ns parsing, Perfetto's
 * double-based conversion, and the µs formatting and rounding helpers. */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/tsnum.h"
#include "../../ref_tsnum.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1

/* ---- tsnum_us_to_ns: exact values ---- */

struct exact_case {
	const char *text;
	int status;
	int64_t ns;      /* when NUM_OK */
	int sub_ns;      /* when NUM_OK */
};

static const struct exact_case exact_cases[] = {
	/* integers */
	{ "0", NUM_OK, 0, 0 },
	{ "-0", NUM_OK, 0, 0 },
	{ "1", NUM_OK, 1000, 0 },
	{ "-1", NUM_OK, -1000, 0 },
	{ "123", NUM_OK, 123000, 0 },
	{ "1712195495519689", NUM_OK, 1712195495519689000, 0 },
	/* one, two, three decimals */
	{ "1.5", NUM_OK, 1500, 0 },
	{ "0.5", NUM_OK, 500, 0 },
	{ "1.25", NUM_OK, 1250, 0 },
	{ "1.125", NUM_OK, 1125, 0 },
	{ "-1.125", NUM_OK, -1125, 0 },
	{ "0.001", NUM_OK, 1, 0 },
	{ "-0.001", NUM_OK, -1, 0 },
	{ "-0.000", NUM_OK, 0, 0 },
	{ "1428625746618.250", NUM_OK, 1428625746618250, 0 },
	/* 19 significant digits, which a double cannot hold */
	{ "1712195495519689.047", NUM_OK, 1712195495519689047, 0 },
	{ "1712195495519689.0470", NUM_OK, 1712195495519689047, 0 },
	{ "-1712195495519689.047", NUM_OK, -1712195495519689047, 0 },
	/* digits beyond the nanosecond: floor, and sub_ns */
	{ "1.000001", NUM_OK, 1000, 1 },
	{ "1.999999", NUM_OK, 1999, 1 },
	{ "1.0005", NUM_OK, 1000, 1 },
	{ "0.0005", NUM_OK, 0, 1 },
	{ "0.0006", NUM_OK, 0, 1 },
	{ "-0.0005", NUM_OK, -1, 1 },
	{ "-1.000001", NUM_OK, -1001, 1 },
	{ "-1.999999", NUM_OK, -2000, 1 },
	{ "1.001000000", NUM_OK, 1001, 0 },
	{ "1712195495519689.047000000000000000000000001", NUM_OK,
		1712195495519689047, 1 },
	/* exponents shift the point exactly */
	{ "1.5e3", NUM_OK, 1500000, 0 },
	{ "1.5E+3", NUM_OK, 1500000, 0 },
	{ "15e-1", NUM_OK, 1500, 0 },
	{ "1e-3", NUM_OK, 1, 0 },
	{ "1e-4", NUM_OK, 0, 1 },
	{ "-1e-4", NUM_OK, -1, 1 },
	{ "2.5e-4", NUM_OK, 0, 1 },
	{ "1e0", NUM_OK, 1000, 0 },
	{ "1e00000000000000000000000000003", NUM_OK, 1000000, 0 },
	{ "1e15", NUM_OK, 1000000000000000000, 0 },
	{ "1712195495519689047e-3", NUM_OK, 1712195495519689047, 0 },
	{ "1.712195495519689047e15", NUM_OK, 1712195495519689047, 0 },
	{ "0.000000000000000000000000001e27", NUM_OK, 1000, 0 },
	{ "100000000000000000000e-20", NUM_OK, 1000, 0 },
	/* huge exponents neither overflow nor loop */
	{ "0e999999", NUM_OK, 0, 0 },
	{ "0.000e-99999999999", NUM_OK, 0, 0 },
	{ "-0e99999999999999999999999999999", NUM_OK, 0, 0 },
	{ "1e-99999999999999999999", NUM_OK, 0, 1 },
	{ "-1e-99999999999999999999", NUM_OK, -1, 1 },
	{ "1e999999999999", NUM_RANGE, 0, 0 },
	{ "-1e999999999999", NUM_RANGE, 0, 0 },
	{ "1e99999999999999999999999999999", NUM_RANGE, 0, 0 },
	/* the int64 edges: INT64_MAX and INT64_MIN nanoseconds */
	{ "9223372036854775.807", NUM_OK, INT64_MAX, 0 },
	{ "9223372036854775807e-3", NUM_OK, INT64_MAX, 0 },
	{ "9.223372036854775807e15", NUM_OK, INT64_MAX, 0 },
	{ "9223372036854775.8079", NUM_OK, INT64_MAX, 1 },
	{ "9223372036854775.808", NUM_RANGE, 0, 0 },
	{ "-9223372036854775.808", NUM_OK, INT64_MIN, 0 },
	{ "-9223372036854775.8079", NUM_OK, INT64_MIN, 1 },
	{ "-9223372036854775.8081", NUM_RANGE, 0, 0 },
	{ "-9223372036854775.809", NUM_RANGE, 0, 0 },
	{ "1e16", NUM_RANGE, 0, 0 },
	{ "9.999999999999999999e15", NUM_RANGE, 0, 0 },
	{ "99999999999999999999999", NUM_RANGE, 0, 0 },
};

/* The integer part's length of plain decimals; 0 for anything else. */
/* Saturating sums and differences, and the range the stages compute with. */
START_TEST(test_saturating)
{
	ck_assert_int_eq(tsnum_sat_add(1, 2), 3);
	ck_assert_int_eq(tsnum_sat_add(INT64_MAX, 1), INT64_MAX);
	ck_assert_int_eq(tsnum_sat_add(INT64_MIN, -1), INT64_MIN);
	ck_assert_int_eq(tsnum_sat_add(INT64_MAX, INT64_MIN), -1);
	ck_assert_int_eq(tsnum_sat_sub(5, 7), -2);
	ck_assert_int_eq(tsnum_sat_sub(INT64_MAX, -1), INT64_MAX);
	ck_assert_int_eq(tsnum_sat_sub(INT64_MIN, 1), INT64_MIN);
	ck_assert_int_eq(tsnum_sat_sub(0, INT64_MIN), INT64_MAX);
	ck_assert_int_eq(tsnum_sat_sub(-1, INT64_MAX), INT64_MIN);
	/* any two times within the range differ by an int64, doubled too */
	ck_assert_int_eq(TSNUM_MAX_NS, 4611686018427387902LL);
	ck_assert(TSNUM_MAX_NS - -TSNUM_MAX_NS < INT64_MAX);
	ck_assert(2 * (TSNUM_MAX_NS + 1) + 1 <= INT64_MAX);
}
END_TEST

START_TEST(test_plain_int_len)
{
	static const struct { const char *t; size_t want; } cases[] = {
		{ "0", 1 }, { "123", 3 }, { "123.45", 3 }, { "1.5", 1 },
		{ "1719000000000.250", 13 }, { "", 0 }, { "-1", 0 }, { "+1", 0 },
		{ ".5", 0 }, { "1.", 0 }, { "1.2.3", 0 }, { "1e3", 0 }, { "12a", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(tsnum_plain_int_len(cases[i].t, strlen(cases[i].t)) == cases[i].want,
			      "%s", cases[i].t);
}
END_TEST

START_TEST(test_exact_table)
{
	const struct exact_case *c = &exact_cases[_i];
	int64_t ns = 42;
	int sub_ns = 42;
	int status = tsnum_us_to_ns(c->text, strlen(c->text), &ns, &sub_ns);

	ck_assert_msg(status == c->status, "%s: status %d, want %d", c->text,
			status, c->status);
	if (c->status == NUM_OK) {
		ck_assert_msg(ns == c->ns, "%s: ns %" PRId64 ", want %" PRId64,
				c->text, ns, c->ns);
		ck_assert_msg(sub_ns == c->sub_ns, "%s: sub_ns %d, want %d",
				c->text, sub_ns, c->sub_ns);
	} else {
		ck_assert_msg(ns == 42 && sub_ns == 42, "%s: outputs touched",
				c->text);
	}
}
END_TEST

/* ---- Syntax errors, shared by every parser ---- */

static const char *const syntax_errors[] = {
	"", "-", "--1", "01", "-01", "00", "+1", ".5", "-.5", "1.", "1.e3",
	"1e", "1e+", "1E-", "1e--1", "1e5.5", "1.5.5", "NaN", "nan",
	"Infinity", "-Infinity", "inf", "true", "null", "1x", "1 ", " 1",
	"0x10", "\"1\"", "1,", "1}", "\xd9\xa1", "1\xc2\xa0", "e5", "-e5",
};

START_TEST(test_exact_syntax)
{
	const char *text = syntax_errors[_i];
	int64_t ns = 42;
	int sub_ns = 42;

	ck_assert_msg(tsnum_us_to_ns(text, strlen(text), &ns, &sub_ns) ==
			NUM_SYNTAX, "\"%s\" accepted", text);
	ck_assert(ns == 42 && sub_ns == 42);
}
END_TEST

START_TEST(test_int64_syntax)
{
	const char *text = syntax_errors[_i];
	int64_t value = 42;

	ck_assert_msg(tsnum_parse_int64(text, strlen(text), &value) ==
			NUM_SYNTAX, "\"%s\" accepted", text);
	ck_assert(value == 42);
}
END_TEST

START_TEST(test_perfetto_syntax)
{
	const char *text = syntax_errors[_i];
	int64_t ns = 42;

	ck_assert_msg(tsnum_perfetto_us_to_ns(text, strlen(text), &ns) ==
			NUM_SYNTAX, "\"%s\" accepted", text);
	ck_assert(ns == 42);
}
END_TEST

/* The text is (pointer, length): bytes past len are never read, and an
 * embedded NUL is just a bad byte. */
START_TEST(test_length_bounds)
{
	static const char digits[] = { '1', '2', '3', '4', '5' };   /* no NUL */
	int64_t ns;
	int sub_ns;

	ck_assert_int_eq(tsnum_us_to_ns(digits, 3, &ns, &sub_ns), NUM_OK);
	ck_assert(ns == 123000 && sub_ns == 0);
	ck_assert_int_eq(tsnum_parse_int64(digits, 2, &ns), NUM_OK);
	ck_assert(ns == 12);
	ck_assert_int_eq(tsnum_perfetto_us_to_ns(digits, 1, &ns), NUM_OK);
	ck_assert(ns == 1000);
	ck_assert_int_eq(tsnum_us_to_ns("1\0", 2, &ns, &sub_ns), NUM_SYNTAX);
	ck_assert_int_eq(tsnum_us_to_ns("1.5", 2, &ns, &sub_ns), NUM_SYNTAX);
	ck_assert_int_eq(tsnum_perfetto_us_to_ns("1e5", 2, &ns), NUM_SYNTAX);
	ck_assert_int_eq(tsnum_us_to_ns(NULL, 0, &ns, &sub_ns), NUM_SYNTAX);
}
END_TEST

/* ---- tsnum_parse_int64 ---- */

struct int64_case {
	const char *text;
	int status;
	int64_t value;
};

static const struct int64_case int64_cases[] = {
	{ "0", NUM_OK, 0 },
	{ "-0", NUM_OK, 0 },
	{ "7", NUM_OK, 7 },
	{ "-7", NUM_OK, -7 },
	{ "1712195495519689", NUM_OK, 1712195495519689 },
	{ "9223372036854775807", NUM_OK, INT64_MAX },
	{ "-9223372036854775808", NUM_OK, INT64_MIN },
	{ "9223372036854775808", NUM_RANGE, 0 },
	{ "-9223372036854775809", NUM_RANGE, 0 },
	{ "10000000000000000000", NUM_RANGE, 0 },
	{ "99999999999999999999", NUM_RANGE, 0 },
	{ "-92233720368547758080", NUM_RANGE, 0 },
	{ "1.0", NUM_SYNTAX, 0 },
	{ "1e3", NUM_SYNTAX, 0 },
	{ "1E0", NUM_SYNTAX, 0 },
	{ "12a", NUM_SYNTAX, 0 },
};

START_TEST(test_int64_table)
{
	const struct int64_case *c = &int64_cases[_i];
	int64_t value = 42;
	int status = tsnum_parse_int64(c->text, strlen(c->text), &value);

	ck_assert_msg(status == c->status, "%s: status %d, want %d", c->text,
			status, c->status);
	if (c->status == NUM_OK)
		ck_assert_msg(value == c->value, "%s: %" PRId64, c->text, value);
	else
		ck_assert(value == 42);
}
END_TEST

/* ---- tsnum_perfetto_us_to_ns ----
 *
 * Expected values were computed independently of tsnum.c, by a Python 3
 * script that reimplements Perfetto's ParseNumber/StringToInt64/
 * StringToDouble and CoerceToTs with Python floats (IEEE doubles, and
 * math.pow, i.e. C's pow), explicit 64-bit two's-complement wrapping for
 * the unchecked int64 arithmetic, cvttsd2si's INT64_MIN for out-of-range
 * double -> int64 casts, and llround done exactly with fractions.Fraction
 * (half away from zero).  The "exact" comments come from
 * floor(Fraction(text) * 1000). */

struct perfetto_case {
	const char *text;
	int status;
	int64_t ns;      /* when not NUM_SYNTAX */
};

static const struct perfetto_case perfetto_cases[] = {
	/* integer-like: exact int64 * 1000 */
	{ "0", NUM_OK, 0 },
	{ "-0", NUM_OK, 0 },
	{ "-0.0", NUM_OK, 0 },
	{ "123", NUM_OK, 123000 },
	{ "1712195495519689", NUM_OK, 1712195495519689000 },
	{ "9223372036854775", NUM_OK, 9223372036854775000 },
	{ "-9223372036854775", NUM_OK, -9223372036854775000 },
	/* small values agree with the exact conversion */
	{ "123.5", NUM_OK, 123500 },
	{ "1428625746618.250", NUM_OK, 1428625746618250 },
	{ "4398046511103.999", NUM_OK, 4398046511103999 },
	{ "1.5e3", NUM_OK, 1500000 },
	{ "15e-1", NUM_OK, 1500 },
	{ "1E2", NUM_OK, 100000 },
	/* sub-nanosecond digits round to nearest (exact floor in comments) */
	{ "0.0005", NUM_OK, 1 },         /* exact 0 */
	{ "0.0006", NUM_OK, 1 },         /* exact 0 */
	{ "0.0012", NUM_OK, 1 },         /* exact 1 */
	{ "1.0005", NUM_OK, 1001 },      /* exact 1000 */
	{ "2.5e-4", NUM_OK, 0 },
	{ "1e-4", NUM_OK, 0 },
	{ "-1e-4", NUM_OK, 0 },          /* exact floor -1 */
	{ "1e-320", NUM_OK, 0 },
	{ "0e-400", NUM_OK, 0 },
	{ "1e-400", NUM_OK, 0 },
	{ "0.1234567890123456789", NUM_OK, 123 },
	/* 63 fraction digits: the uint64 divisor has wrapped to 2^63 */
	{ "0.000000000000000000000000000000000000000000000000000000000000001",
		NUM_OK, 0 },
	/* epoch microseconds, ~1.7e15: a double's ulp there is 0.25 µs and
	 * v * 1000.0 has an ulp of 256 ns, so results diverge from exact */
	{ "1712195495519689.047", NUM_OK, 1712195495519689000 },  /* -47 */
	{ "1712195495519689.125", NUM_OK, 1712195495519689000 },  /* -125 */
	{ "1712195495519689.130", NUM_OK, 1712195495519689216 },  /* +86 */
	{ "1712195495519689.250", NUM_OK, 1712195495519689216 },  /* -34 */
	{ "1712195495519689.370", NUM_OK, 1712195495519689216 },  /* -154 */
	{ "1712195495519689.500", NUM_OK, 1712195495519689472 },  /* -28 */
	{ "1712195495519689.999", NUM_OK, 1712195495519690000 },  /* +1 */
	{ "-1712195495519689.130", NUM_OK, -1712195495519689216 },
	{ "1712195495519689130e-3", NUM_OK, 1712195495519689216 },
	{ "1.712195495519689130e15", NUM_OK, 1712195495519689216 },
	{ "17121954955196891.30e-1", NUM_OK, 1712195495519689216 },
	/* Perfetto rejects what becomes inf or NaN */
	{ "1e309", NUM_SYNTAX, 0 },
	{ "0e400", NUM_SYNTAX, 0 },      /* 0 * pow(10, 400) = 0 * inf */
	{ "0.0000000000000000000000000000000000000000000000000000000000000001",
		NUM_SYNTAX, 0 },         /* 64 digits: divisor wraps to 0 */
	/* undefined behaviour in Perfetto: the value an x86-64 build gets */
	{ "9223372036854775807", NUM_RANGE, -1000 },
	{ "9223372036854776", NUM_RANGE, -9223372036854775616 },
	{ "-9223372036854776", NUM_RANGE, 9223372036854775616 },
	{ "9223372036854775808", NUM_RANGE, 0 },
	{ "12345678901234567890", NUM_RANGE, 4807115922878160896 },
	{ "-92233720368547758080", NUM_RANGE, 0 },
	{ "-92233720368547758081", NUM_RANGE, -1000 },
	{ "18446744073709551621.5", NUM_RANGE, 5500 },
	{ "1.5e18", NUM_RANGE, 5813730029526319104 },
	{ "1e19", NUM_RANGE, 0 },
	{ "1e308", NUM_RANGE, 0 },
	/* the int64 exponent wraps: 2^64 + 3 is 3 */
	{ "1.5e18446744073709551619", NUM_RANGE, 1500000 },
	{ "1.5e-18446744073709551619", NUM_RANGE, 2 },
	{ "0e18446744073709551616", NUM_RANGE, 0 },
	/* ... or to a huge negative value: pow() gives 0, x / 0 is inf */
	{ "1e-417121954951712195547", NUM_SYNTAX, 0 },
};

START_TEST(test_perfetto_table)
{
	const struct perfetto_case *c = &perfetto_cases[_i];
	int64_t ns = 42;
	int status = tsnum_perfetto_us_to_ns(c->text, strlen(c->text), &ns);

	ck_assert_msg(status == c->status, "%s: status %d, want %d", c->text,
			status, c->status);
	if (c->status != NUM_SYNTAX)
		ck_assert_msg(ns == c->ns, "%s: ns %" PRId64 ", want %" PRId64,
				c->text, ns, c->ns);
	else
		ck_assert(ns == 42);
}
END_TEST

/* A touching pair, a.ts + a.dur == b.ts exactly, overlaps by 240 ns after
 * Perfetto's conversion (values from the Python emulation above). */
START_TEST(test_perfetto_touching_pair_overlaps)
{
	static const char a_ts[] = "1712195495519689.130";
	static const char a_dur[] = "0.240";
	static const char b_ts[] = "1712195495519689.370";
	int64_t exact_a, exact_dur, exact_b, pa, pdur, pb;
	int sub_ns;

	ck_assert_int_eq(tsnum_us_to_ns(a_ts, strlen(a_ts), &exact_a, &sub_ns), 0);
	ck_assert_int_eq(tsnum_us_to_ns(a_dur, strlen(a_dur), &exact_dur,
				&sub_ns), 0);
	ck_assert_int_eq(tsnum_us_to_ns(b_ts, strlen(b_ts), &exact_b, &sub_ns), 0);
	ck_assert(exact_a + exact_dur == exact_b);

	ck_assert_int_eq(tsnum_perfetto_us_to_ns(a_ts, strlen(a_ts), &pa), NUM_OK);
	ck_assert_int_eq(tsnum_perfetto_us_to_ns(a_dur, strlen(a_dur), &pdur), NUM_OK);
	ck_assert_int_eq(tsnum_perfetto_us_to_ns(b_ts, strlen(b_ts), &pb), NUM_OK);
	ck_assert(pa == 1712195495519689216 && pdur == 240 &&
			pb == 1712195495519689216);
	ck_assert(pa + pdur - pb == 240);
}
END_TEST

/* "ts": "123.5": Perfetto re-parses the string contents as a number.  The
 * caller hands us the contents, which sit inside a larger buffer. */
START_TEST(test_perfetto_string_contents)
{
	static const char event[] = "{\"ts\": \"123.5\", \"dur\": \" 1\"}";
	const char *contents = strstr(event, "123.5");
	const char *spaced = strstr(event, " 1\"");
	int64_t ns = 0;

	ck_assert_int_eq(tsnum_perfetto_us_to_ns(contents, 5, &ns), NUM_OK);
	ck_assert(ns == 123500);
	/* Trailing or leading bytes inside the string fail in Perfetto too. */
	ck_assert_int_eq(tsnum_perfetto_us_to_ns(contents, 6, &ns), NUM_SYNTAX);
	ck_assert_int_eq(tsnum_perfetto_us_to_ns(spaced, 2, &ns), NUM_SYNTAX);
}
END_TEST

/* A deterministic generator, so that failures reproduce.  The loops below
 * test with if + ck_abort_msg: every passing ck_assert records its location
 * through a system call, which would make them take seconds. */
static uint64_t lcg_next(uint64_t *state)
{
	*state = *state * 6364136223846793005u + 1442695040888963407u;
	return *state >> 11;
}

/* Below 2^42 µs, "us.nnn" goes through Perfetto's doubles unharmed: the
 * result equals the exact conversion (the research notes' bound, which the
 * Python emulation also confirmed on 2e6 random values). */
START_TEST(test_perfetto_exact_below_2_42)
{
	uint64_t state = 20240404;
	char text[40];
	int i;

	for (i = 0; i < 200000; i++) {
		uint64_t r = lcg_next(&state);
		/* half spread out, half crowded just below 2^42 */
		uint64_t whole = i % 2 ? r % (UINT64_C(1) << 42)
			: (UINT64_C(1) << 42) - 1 - r % (UINT64_C(1) << 20);
		unsigned millis = (unsigned)(lcg_next(&state) % 1000);
		int64_t exact, perfetto;
		int sub_ns, len;

		len = snprintf(text, sizeof(text), "%s%" PRIu64 ".%03u",
				i % 7 == 0 ? "-" : "", whole, millis);
		if (tsnum_us_to_ns(text, (size_t)len, &exact, &sub_ns) != NUM_OK ||
		    tsnum_perfetto_us_to_ns(text, (size_t)len, &perfetto) != NUM_OK)
			ck_abort_msg("%s: not parsed", text);
		if (exact != perfetto)
			ck_abort_msg("%s: exact %" PRId64 ", perfetto %" PRId64,
					text, exact, perfetto);
	}
}
END_TEST

/* Near epoch microseconds the error is bounded: 0.125 µs from the sum's
 * rounding plus 128 ns from v * 1000.0's. */
START_TEST(test_perfetto_error_bound_at_epoch)
{
	uint64_t state = 7;
	char text[40];
	int i, differ = 0;

	for (i = 0; i < 100000; i++) {
		uint64_t whole = 1712195495519689 + lcg_next(&state) % 1000000000;
		unsigned millis = (unsigned)(lcg_next(&state) % 1000);
		int64_t exact, perfetto, error;
		int sub_ns, len;

		len = snprintf(text, sizeof(text), "%" PRIu64 ".%03u", whole,
				millis);
		if (tsnum_us_to_ns(text, (size_t)len, &exact, &sub_ns) != NUM_OK ||
		    tsnum_perfetto_us_to_ns(text, (size_t)len, &perfetto) != NUM_OK)
			ck_abort_msg("%s: not parsed", text);
		error = perfetto - exact;
		if (error < -256 || error > 256)
			ck_abort_msg("%s: error %" PRId64, text, error);
		differ += error != 0;
	}
	ck_assert_msg(differ > 90000, "only %d of 100000 differ", differ);
}
END_TEST

/* ---- tsnum_us_to_ns against the reference in tests/ref_tsnum.h ---- */

/* A text that is a number more often than not, with a few bad bytes. */
static size_t random_number_text(uint64_t *state, char *text, size_t size)
{
	static const char alphabet[] = "0123456789.-eE+";
	size_t len = 0, n, i;

	if (lcg_next(state) % 4 == 0) {
		n = 1 + lcg_next(state) % 12;
		for (i = 0; i < n && len < size - 1; i++)
			text[len++] = alphabet[lcg_next(state) %
				(sizeof(alphabet) - 1)];
		return len;
	}
	if (lcg_next(state) % 3 == 0)
		text[len++] = '-';
	n = 1 + lcg_next(state) % 22;
	for (i = 0; i < n; i++)
		text[len++] = (char)('0' + lcg_next(state) % 10);
	if (lcg_next(state) % 2) {
		text[len++] = '.';
		n = 1 + lcg_next(state) % 22;
		for (i = 0; i < n; i++)
			text[len++] = (char)('0' + lcg_next(state) % 10);
	}
	if (lcg_next(state) % 3 == 0)
		len += (size_t)snprintf(text + len, size - len, "e%d",
				(int)(lcg_next(state) % 61) - 30);
	return len;
}

START_TEST(test_exact_matches_reference)
{
	uint64_t state = 1;
	char text[80];
	int i, compared = 0;

	for (i = 0; i < 300000; i++) {
		size_t len = random_number_text(&state, text, sizeof(text));
		int64_t ns = 0, ref_ns = 0;
		int sub = 0, ref_sub = 0;
		int status = tsnum_us_to_ns(text, len, &ns, &sub);
		int ref = ref_us_to_ns(text, len, &ref_ns, &ref_sub);

		if (status != ref)
			ck_abort_msg("%.*s: status %d, reference %d", (int)len,
					text, status, ref);
		if (status == NUM_OK && (ns != ref_ns || sub != ref_sub))
			ck_abort_msg("%.*s: %" PRId64 "/%d, reference %" PRId64
					"/%d", (int)len, text, ns, sub, ref_ns,
					ref_sub);
		compared += status == NUM_OK;
	}
	ck_assert_msg(compared > 100000, "only %d valid texts", compared);
}
END_TEST

/* ---- tsnum_format_us3 and tsnum_round_ns_to_us ---- */

struct format_case {
	int64_t ns;
	const char *text;
};

static const struct format_case format_cases[] = {
	{ 0, "0.000" },
	{ 1, "0.001" },
	{ -1, "-0.001" },
	{ 999, "0.999" },
	{ -999, "-0.999" },
	{ 1000, "1.000" },
	{ -1000, "-1.000" },
	{ -1001, "-1.001" },
	{ 1428625746618250, "1428625746618.250" },
	{ 1712195495519689047, "1712195495519689.047" },
	{ INT64_MAX, "9223372036854775.807" },
	{ INT64_MIN, "-9223372036854775.808" },
};

START_TEST(test_format_us3)
{
	const struct format_case *c = &format_cases[_i];
	char out[NUM_US_BUFSZ];
	size_t len = tsnum_format_us3(c->ns, out);

	ck_assert_str_eq(out, c->text);
	ck_assert_uint_eq(len, strlen(c->text));
}
END_TEST

/* Formatting then parsing gives back the same nanoseconds. */
START_TEST(test_format_round_trip)
{
	uint64_t state = 99;
	int i;

	for (i = 0; i < 100000; i++) {
		uint64_t high = lcg_next(&state) << 11;
		int64_t ns = (int64_t)(high ^ lcg_next(&state));
		char out[NUM_US_BUFSZ];
		size_t len = tsnum_format_us3(ns, out);
		int64_t back;
		int sub_ns;

		if (tsnum_us_to_ns(out, len, &back, &sub_ns) != NUM_OK ||
		    back != ns || sub_ns != 0)
			ck_abort_msg("%s: does not parse back", out);
	}
}
END_TEST

struct round_case {
	int64_t ns;
	int64_t us;
};

static const struct round_case round_cases[] = {
	{ 0, 0 },
	{ 499, 0 },
	{ 500, 1 },
	{ 1499, 1 },
	{ 1500, 2 },
	{ 2500, 3 },      /* ties away from zero, not to even */
	{ -499, 0 },
	{ -500, -1 },
	{ -1499, -1 },
	{ -1500, -2 },
	{ -2500, -3 },
	{ INT64_MAX, 9223372036854776 },
	{ INT64_MIN, -9223372036854776 },
};

START_TEST(test_round_ns_to_us)
{
	const struct round_case *c = &round_cases[_i];
	int64_t us = tsnum_round_ns_to_us(c->ns);

	ck_assert_msg(us == c->us, "%" PRId64 " ns: %" PRId64 " µs, want %"
			PRId64, c->ns, us, c->us);
}
END_TEST

/* tsnum_text_not_below against integer comparison: values v/10^k written
 * with their fraction padded by trailing zeros, and texts that are not
 * plain (never "not below"). */
static size_t plain_text(char *out, unsigned v, unsigned frac_digits, unsigned pad)
{
	unsigned scale = 1, k;
	size_t n;

	for (k = 0; k < frac_digits; k++)
		scale *= 10;
	n = (size_t)sprintf(out, "%u", v / scale);
	if (frac_digits + pad > 0) {
		n += (size_t)sprintf(out + n, ".%0*u", (int)frac_digits, v % scale);
		if (frac_digits == 0)
			n--;  /* "%0*u" with width 0 still writes a digit */
		for (k = 0; k < pad; k++)
			out[n++] = '0';
		out[n] = '\0';
	}
	return n;
}

START_TEST(test_text_not_below)
{
	static const char *const not_plain[] = { "-1", "1e3", "1E3", "", ".5", "1.", "1.2.3",
		"+1", "x", "1.5e-3", "0x10" };
	unsigned a, b, pa, pb;
	char ta[32], tb[32];
	size_t i;

	for (a = 0; a < 1200; a += 7)
		for (b = 0; b < 1200; b += 11)
			for (pa = 0; pa < 3; pa++)
				for (pb = 0; pb < 3; pb++) {
					/* a/1000 with 3 fraction digits, b/100 with 2 */
					size_t na = plain_text(ta, a, 3, pa), nb = plain_text(tb, b, 2, pb);
					ck_assert_int_eq(tsnum_text_not_below(ta, na, tb, nb),
							 a >= b * 10);
					ck_assert_int_eq(tsnum_text_not_below(tb, nb, ta, na),
							 b * 10 >= a);
				}
	/* integer texts, and integer against fraction */
	ck_assert_int_eq(tsnum_text_not_below(S("10"), S("9.999")), 1);
	ck_assert_int_eq(tsnum_text_not_below(S("9.999"), S("10")), 0);
	ck_assert_int_eq(tsnum_text_not_below(S("0"), S("0.000")), 1);
	ck_assert_int_eq(tsnum_text_not_below(S("1712195495519689.047"),
					    S("1712195495519689.0470001")), 0);
	for (i = 0; i < sizeof not_plain / sizeof not_plain[0]; i++) {
		ck_assert_int_eq(tsnum_text_not_below(not_plain[i], strlen(not_plain[i]), S("0")), 0);
		ck_assert_int_eq(tsnum_text_not_below(S("99"), not_plain[i], strlen(not_plain[i])), 0);
	}
}
END_TEST

/* tsnum_not_below_plain gives tsnum_text_not_below's answer for every pair
 * of these texts, plain or not (b analysed once by tsnum_plain_of). */
START_TEST(test_not_below_plain)
{
	static const char *const texts[] = { "0", "0.000", "9.999", "10", "10.0", "10.01",
		"1712195495519689.047", "1712195495519689.0470001", "1712195495519689",
		"1712195495519690.5", "999", "1000", "-1", "1e3", "1E3", "", ".5", "1.", "1.2.3",
		"+1", "x", "1.5e-3", "0x10", "01", "\"10\"", "10 ", "1..2" };
	size_t n = sizeof texts / sizeof texts[0], i, j;
	struct tsnum_plain p;

	for (j = 0; j < n; j++) {
		tsnum_plain_of(texts[j], strlen(texts[j]), &p);
		for (i = 0; i < n; i++)
			ck_assert_int_eq(tsnum_not_below_plain(texts[i], strlen(texts[i]), &p),
					 tsnum_text_not_below(texts[i], strlen(texts[i]), texts[j],
							      strlen(texts[j])));
	}
	tsnum_plain_of(S("1712195495519689.047"), &p);
	ck_assert_uint_eq(p.int_len, 16);
	ck_assert_int_eq(tsnum_not_below_plain(S("1712195495519689.0471"), &p), 1);
	ck_assert_int_eq(tsnum_not_below_plain(S("1712195495519689.0469"), &p), 0);
	ck_assert_int_eq(tsnum_not_below_plain(S("1712195495519689.047"), &p), 1);
	ck_assert_int_eq(tsnum_not_below_plain(S("99999999999999999"), &p), 1);
	ck_assert_int_eq(tsnum_not_below_plain(S("1712195495519689.1e-9"), &p), 0);
	tsnum_plain_of(S("1e3"), &p);
	ck_assert_uint_eq(p.int_len, 0);
	ck_assert_int_eq(tsnum_not_below_plain(S("5000"), &p), 0);
}
END_TEST

/* tsnum_compare: exact decimal values, whatever the text's form. */
static const struct {
	const char *a, *b;
	int cmp;
} compare_cases[] = {
	{ "3.024", "3.024000", 0 },
	{ "3.024000", "3.024", 0 },
	{ "1.5", "1.500", 0 },
	{ "1740461679470630", "1740461679470630.000", 0 },
	{ "1740461679470630.0", "1740461679470630", 0 },
	{ "3024e-3", "3.024", 0 },
	{ "0.3024E1", "3.024", 0 },
	{ "30.24e-1", "3.024", 0 },
	{ "0", "-0", 0 },
	{ "0.000", "0e5", 0 },
	{ "-0.0", "0", 0 },
	{ "0", "0.000001", -1 },
	{ "0", "-0.000001", 1 },
	{ "-0.000001", "0", -1 },
	{ "-1", "1", -1 },
	{ "-2", "-1", -1 },
	{ "-1.5", "-1.50", 0 },
	{ "-1.5", "-1.49", -1 },
	{ "1712195495519689.0470001", "1712195495519689.047", 1 },
	{ "1712195495519689.047", "1712195495519689.0470001", -1 },
	{ "1740461679470630", "1740461679470629.999", 1 },
	{ "1740461679470630.0005", "1740461679470630.0001", 1 },
	{ "9.999", "10", -1 },
	{ "100", "99.9999", 1 },
	{ "1e2", "99", 1 },
	{ "1e-2", "0.01", 0 },
	{ "1e-999", "0", 1 },
	{ "-1e-999", "0", -1 },
	{ "1e999", "1e998", 1 },
	{ "12345678901234567890123", "12345678901234567890124", -1 },
	{ "0.00000000000000000000000001", "1e-26", 0 },
};

START_TEST(test_compare_table)
{
	const char *a = compare_cases[_i].a, *b = compare_cases[_i].b;
	int cmp = 7, back = 7;

	ck_assert_int_eq(tsnum_compare(a, strlen(a), b, strlen(b), &cmp), NUM_OK);
	ck_assert_msg(cmp == compare_cases[_i].cmp, "%s against %s: %d", a, b, cmp);
	ck_assert_int_eq(tsnum_compare(b, strlen(b), a, strlen(a), &back), NUM_OK);
	ck_assert_int_eq(back, -cmp);
}
END_TEST

/* The grammar's refusals, and the exponents too large to compare. */
START_TEST(test_compare_errors)
{
	static const char *const bad[] = { "", "01", "+1", ".5", "1.", "1e", "NaN", "1 ",
		"\"1\"", "0x10", "1.2.3", "--1" };
	size_t i;
	int cmp = 7;

	for (i = 0; i < COUNT(bad); i++) {
		ck_assert_int_eq(tsnum_compare(bad[i], strlen(bad[i]), S("1"), &cmp), NUM_SYNTAX);
		ck_assert_int_eq(tsnum_compare(S("1"), bad[i], strlen(bad[i]), &cmp), NUM_SYNTAX);
	}
	ck_assert_int_eq(tsnum_compare(S("1e1000000000000000000"), S("1"), &cmp), NUM_RANGE);
	ck_assert_int_eq(tsnum_compare(S("1"), S("1e-1000000000000000000"), &cmp), NUM_RANGE);
	ck_assert_int_eq(cmp, 7);
	/* a zero mantissa is zero whatever its exponent */
	ck_assert_int_eq(tsnum_compare(S("0e1000000000000000000"), S("0"), &cmp), NUM_OK);
	ck_assert_int_eq(cmp, 0);
}
END_TEST

/* On plain decimals it agrees with tsnum_text_not_below, and on texts of
 * whole nanoseconds with tsnum_us_to_ns. */
START_TEST(test_compare_agrees)
{
	unsigned a, b, pa, pb;
	char ta[32], tb[32];

	for (a = 0; a < 1200; a += 7)
		for (b = 0; b < 1200; b += 11)
			for (pa = 0; pa < 3; pa++)
				for (pb = 0; pb < 3; pb++) {
					size_t na = plain_text(ta, a, 3, pa), nb = plain_text(tb, b, 2, pb);
					int cmp = 7, sub;
					int64_t x, y;
					ck_assert_int_eq(tsnum_compare(ta, na, tb, nb, &cmp), NUM_OK);
					ck_assert_int_eq(cmp >= 0, tsnum_text_not_below(ta, na, tb, nb));
					ck_assert_int_eq(cmp <= 0, tsnum_text_not_below(tb, nb, ta, na));
					ck_assert_int_eq(tsnum_us_to_ns(ta, na, &x, &sub), NUM_OK);
					ck_assert_int_eq(tsnum_us_to_ns(tb, nb, &y, &sub), NUM_OK);
					ck_assert_int_eq(cmp, x < y ? -1 : x > y);
				}
}
END_TEST

static Suite *tsnum_suite(void)
{
	Suite *s = suite_create("tsnum");
	TCase *exact = tcase_create("exact");
	TCase *syntax = tcase_create("syntax");
	TCase *int64 = tcase_create("int64");
	TCase *perfetto = tcase_create("perfetto");
	TCase *output = tcase_create("output");

	tcase_add_loop_test(exact, test_exact_table, 0, (int)COUNT(exact_cases));
	tcase_add_test(exact, test_exact_matches_reference);
	tcase_add_test(exact, test_plain_int_len);
	tcase_add_test(exact, test_saturating);
	tcase_add_test(exact, test_length_bounds);
	tcase_add_test(exact, test_text_not_below);
	tcase_add_test(exact, test_not_below_plain);
	tcase_add_loop_test(exact, test_compare_table, 0, (int)COUNT(compare_cases));
	tcase_add_test(exact, test_compare_errors);
	tcase_add_test(exact, test_compare_agrees);
	suite_add_tcase(s, exact);

	tcase_add_loop_test(syntax, test_exact_syntax, 0,
			(int)COUNT(syntax_errors));
	tcase_add_loop_test(syntax, test_int64_syntax, 0,
			(int)COUNT(syntax_errors));
	tcase_add_loop_test(syntax, test_perfetto_syntax, 0,
			(int)COUNT(syntax_errors));
	suite_add_tcase(s, syntax);

	tcase_add_loop_test(int64, test_int64_table, 0, (int)COUNT(int64_cases));
	suite_add_tcase(s, int64);

	tcase_add_loop_test(perfetto, test_perfetto_table, 0,
			(int)COUNT(perfetto_cases));
	tcase_add_test(perfetto, test_perfetto_touching_pair_overlaps);
	tcase_add_test(perfetto, test_perfetto_string_contents);
	tcase_add_test(perfetto, test_perfetto_exact_below_2_42);
	tcase_add_test(perfetto, test_perfetto_error_bound_at_epoch);
	suite_add_tcase(s, perfetto);

	tcase_add_loop_test(output, test_format_us3, 0, (int)COUNT(format_cases));
	tcase_add_test(output, test_format_round_trip);
	tcase_add_loop_test(output, test_round_ns_to_us, 0,
			(int)COUNT(round_cases));
	suite_add_tcase(s, output);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tsnum_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
