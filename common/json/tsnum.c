#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json/tsnum.h"

/* ---- The JSON number grammar, shared by every parser below ---- */

/* Where the pieces of a valid JSON number text lie: [begin, end) offsets. */
struct num_text {
	int negative;
	size_t int_begin, int_end;    /* integer digits, never empty */
	int has_point;
	size_t frac_begin, frac_end;  /* fraction digits, empty without '.' */
	int has_exp;
	int exp_negative;
	size_t exp_begin, exp_end;    /* exponent digits, empty without 'e' */
};

/* The byte at i, or -1 past the end: the end then behaves like any
 * character that cannot continue a number. */
static int byte_at(const char *text, size_t len, size_t i)
{
	return i < len ? (unsigned char)text[i] : -1;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static size_t skip_digits(const char *text, size_t len, size_t i)
{
	while (is_digit(byte_at(text, len, i)))
		i++;
	return i;
}

/* Split text per RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
 * and nothing after it.  0, or -1 when text is not exactly one number. */
static int scan_json_number(const char *text, size_t len, struct num_text *nt)
{
	size_t i = 0;
	int c;

	nt->negative = byte_at(text, len, i) == '-';
	if (nt->negative)
		i++;
	nt->int_begin = i;
	c = byte_at(text, len, i);
	if (c == '0')
		i++;
	else if (c >= '1' && c <= '9')
		i = skip_digits(text, len, i);
	else
		return -1;
	nt->int_end = i;
	if (is_digit(byte_at(text, len, i)))
		return -1;    /* a leading zero */

	nt->has_point = byte_at(text, len, i) == '.';
	if (nt->has_point)
		i++;
	nt->frac_begin = i;
	i = skip_digits(text, len, i);
	nt->frac_end = i;
	if (nt->has_point && nt->frac_end == nt->frac_begin)
		return -1;

	c = byte_at(text, len, i);
	nt->has_exp = c == 'e' || c == 'E';
	nt->exp_negative = 0;
	if (nt->has_exp) {
		i++;
		c = byte_at(text, len, i);
		nt->exp_negative = c == '-';
		if (c == '+' || c == '-')
			i++;
	}
	nt->exp_begin = i;
	i = skip_digits(text, len, i);
	nt->exp_end = i;
	if (nt->has_exp && nt->exp_end == nt->exp_begin)
		return -1;

	return i == len ? 0 : -1;
}

static int digit_value(const char *text, size_t i)
{
	return text[i] - '0';
}

/* ---- Exact conversions ---- */

/* Every exponent beyond this is treated as this: the caller picks a bound
 * past which the answer no longer depends on the exponent, so that texts
 * such as "1e999999999999" cannot overflow. */
static int64_t clamped_exponent(const char *text, const struct num_text *nt,
		int64_t bound)
{
	int64_t exp = 0;
	size_t i;

	for (i = nt->exp_begin; i < nt->exp_end; i++) {
		int digit = digit_value(text, i);

		if (exp > (bound - digit) / 10) {
			exp = bound;
			break;
		}
		exp = exp * 10 + digit;
	}
	return nt->exp_negative ? -exp : exp;
}

/* The mantissa digits, integer then fraction, seen as one digit string. */
static int mantissa_digit(const char *text, const struct num_text *nt,
		size_t k)
{
	size_t n_int = nt->int_end - nt->int_begin;

	if (k < n_int)
		return digit_value(text, nt->int_begin + k);
	return digit_value(text, nt->frac_begin + (k - n_int));
}

/* int64 values have at most 19 digits. */
#define INT64_MAX_DIGITS 19

/* The exact value is (-1)^negative * digits * 10^(point - n) ns, where the
 * decimal point sits after the first `point` mantissa digits (point may lie
 * outside [0, n]: zeros are implied).  first and last are the first and
 * last non-zero digits. */
static int floor_to_int64(const char *text, const struct num_text *nt,
		int64_t point, int64_t first, int64_t last, int64_t n,
		int64_t *ns, int *sub_ns)
{
	int64_t k;
	uint64_t magnitude = 0;
	int has_fraction = last >= point;

	if (point - first > INT64_MAX_DIGITS)
		return NUM_RANGE;
	if (point <= first) {
		/* Non-zero, but less than one nanosecond in magnitude. */
		*ns = nt->negative ? -1 : 0;
		*sub_ns = 1;
		return NUM_OK;
	}
	/* At most 19 digits: below 10^19, which fits uint64. */
	for (k = first; k < point; k++)
		magnitude = magnitude * 10 +
			(unsigned)(k < n ? mantissa_digit(text, nt, (size_t)k) : 0);

	if (!nt->negative) {
		if (magnitude > (uint64_t)INT64_MAX)
			return NUM_RANGE;
		*ns = (int64_t)magnitude;
	} else {
		/* The floor of -(m + f), 0 < f < 1, is -(m + 1). */
		if (has_fraction)
			magnitude++;
		if (magnitude > (uint64_t)INT64_MAX + 1)
			return NUM_RANGE;
		*ns = magnitude == 0 ? 0 : -(int64_t)(magnitude - 1) - 1;
	}
	*sub_ns = has_fraction;
	return NUM_OK;
}

int tsnum_us_to_ns(const char *text, size_t len, int64_t *ns, int *sub_ns)
{
	struct num_text nt;
	int64_t n_int, n, first, last, point, exp;

	if (scan_json_number(text, len, &nt) != 0)
		return NUM_SYNTAX;

	/* Texts live in memory, so these lengths are far below 2^62 and the
	 * sums below cannot overflow. */
	n_int = (int64_t)(nt.int_end - nt.int_begin);
	n = n_int + (int64_t)(nt.frac_end - nt.frac_begin);

	for (first = 0; first < n; first++)
		if (mantissa_digit(text, &nt, (size_t)first) != 0)
			break;
	if (first == n) {
		*ns = 0;    /* zero, whatever the exponent says */
		*sub_ns = 0;
		return NUM_OK;
	}
	for (last = n - 1; mantissa_digit(text, &nt, (size_t)last) == 0; last--)
		;

	/* Past |exp| = n + 32 a non-zero value is either too large for
	 * int64 or below a nanosecond, so clamping there changes nothing. */
	exp = clamped_exponent(text, &nt, n + 32);
	/* Microseconds to nanoseconds moves the point three digits right. */
	point = n_int + exp + 3;
	return floor_to_int64(text, &nt, point, first, last, n, ns, sub_ns);
}

/* A number text's value as sign, significant digits and the place of the
 * first: 0.d1d2...dk x 10^place, d1 and dk non-zero.  k 0 is zero. */
struct num_value {
	int negative;
	int64_t first, last, place;
	struct num_text nt;
	const char *text;
};

#define COMPARE_EXP_BOUND 1000000000000000000LL

static int value_of(const char *text, size_t len, struct num_value *v)
{
	int64_t n_int, n, exp;

	if (scan_json_number(text, len, &v->nt) != 0)
		return NUM_SYNTAX;
	v->text = text;
	n_int = (int64_t)(v->nt.int_end - v->nt.int_begin);
	n = n_int + (int64_t)(v->nt.frac_end - v->nt.frac_begin);
	for (v->first = 0; v->first < n; v->first++)
		if (mantissa_digit(text, &v->nt, (size_t)v->first) != 0)
			break;
	v->negative = v->nt.negative;
	if (v->first == n) {
		v->negative = 0;    /* "-0" is zero */
		v->last = v->first - 1;
		v->place = 0;
		return NUM_OK;
	}
	for (v->last = n - 1; mantissa_digit(text, &v->nt, (size_t)v->last) == 0; v->last--)
		;
	exp = clamped_exponent(text, &v->nt, COMPARE_EXP_BOUND);
	if (exp >= COMPARE_EXP_BOUND || exp <= -COMPARE_EXP_BOUND)
		return NUM_RANGE;
	v->place = n_int - v->first + exp;
	return NUM_OK;
}

int tsnum_compare(const char *a, size_t an, const char *b, size_t bn, int *cmp)
{
	struct num_value x, y;
	int rc, sign;
	int64_t i, xk, yk;

	if ((rc = value_of(a, an, &x)) != NUM_OK || (rc = value_of(b, bn, &y)) != NUM_OK)
		return rc;
	xk = x.last - x.first + 1;
	yk = y.last - y.first + 1;
	if (xk == 0 || yk == 0) {
		*cmp = xk == 0 && yk == 0 ? 0 : xk == 0 ? (y.negative ? 1 : -1)
							: (x.negative ? -1 : 1);
		return NUM_OK;
	}
	if (x.negative != y.negative) {
		*cmp = x.negative ? -1 : 1;
		return NUM_OK;
	}
	sign = x.negative ? -1 : 1;
	if (x.place != y.place) {
		*cmp = x.place > y.place ? sign : -sign;
		return NUM_OK;
	}
	for (i = 0; i < xk || i < yk; i++) {
		int dx = i < xk ? mantissa_digit(a, &x.nt, (size_t)(x.first + i)) : 0;
		int dy = i < yk ? mantissa_digit(b, &y.nt, (size_t)(y.first + i)) : 0;
		if (dx != dy) {
			*cmp = dx > dy ? sign : -sign;
			return NUM_OK;
		}
	}
	*cmp = 0;
	return NUM_OK;
}

int tsnum_parse_int64(const char *text, size_t len, int64_t *value)
{
	struct num_text nt;
	uint64_t magnitude = 0;
	uint64_t limit;
	size_t i;

	if (scan_json_number(text, len, &nt) != 0 || nt.has_point || nt.has_exp)
		return NUM_SYNTAX;

	limit = nt.negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (i = nt.int_begin; i < nt.int_end; i++) {
		unsigned digit = (unsigned)digit_value(text, i);

		if (magnitude > (limit - digit) / 10)
			return NUM_RANGE;
		magnitude = magnitude * 10 + digit;
	}
	if (!nt.negative)
		*value = (int64_t)magnitude;
	else
		*value = magnitude == 0 ? 0 : -(int64_t)(magnitude - 1) - 1;
	return NUM_OK;
}

/* ---- Perfetto's conversion, reproduced ----
 *
 * Read from google/perfetto (the search index holds these versions; the
 * research notes cite ec5d16b14b743ba6063d720956d6d6af6610fd72, v58.2, which
 * the index does not store, and describe the same arithmetic):
 *   src/trace_processor/util/json_parser.h
 *       at 6ae159476ae3276127aebd54a728c11e5a45a72a:
 *       internal::ParseNumber, StringToInt64, StringToDouble
 *   src/trace_processor/importers/json/json_trace_tokenizer.cc
 *       at 692321f26216e7db4f04c9c19149a21082f854d8: CoerceToTs
 *
 * What the source does, which the research notes leave out:
 *   - ParseNumber accepts exactly the RFC 8259 grammar.  A text without '.'
 *     and 'e' goes to StringToInt64; if that overflows, to StringToDouble.
 *   - StringToInt64 checks overflow, but lets "-9223372036854775808" through
 *     by overflowing (then negating INT64_MIN), and after that its check no
 *     longer fires, so "-92233720368547758080" wraps to 0.
 *   - StringToDouble accumulates the integer part in an int64, unchecked;
 *     the fraction digits in an int64 (unchecked) over a uint64 divisor
 *     multiplied by 10 per digit (it wraps, and is 0 from 64 digits on);
 *     fraction = double(frac) / double(divisor); value = double(int) +
 *     fraction; the exponent, an unchecked int64, is applied as
 *     value /= pow(10, e) when negative, value *= pow(10, e) when positive.
 *     inf or NaN is an error (so "0e400" fails: 0 * inf).  The sign is
 *     applied last.
 *   - CoerceToTs: int64 -> v * 1000 (unchecked); whole double ->
 *     int64(v) * 1000 (unchecked); other double -> llround(v * 1000.0).
 * Unchecked signed overflow is undefined in C++; the builds wrap in two's
 * complement, so we do the same in unsigned arithmetic and report
 * NUM_RANGE.  This file is compiled as ISO C (no FMA contraction) and
 * needs IEEE doubles with round-to-nearest, like Perfetto. */

/* A uint64 bit pattern read as a two's-complement int64, without relying
 * on implementation-defined conversions. */
static int64_t int64_from_bits(uint64_t bits)
{
	if (bits <= (uint64_t)INT64_MAX)
		return (int64_t)bits;
	return -(int64_t)(UINT64_MAX - bits) - 1;
}

/* C++'s "a * 10 + digit" on int64 as compiled: wraps, and sets *overflowed
 * when either step overflows. */
static int64_t wrapping_times10_plus(int64_t a, int digit, int *overflowed)
{
	if (a > INT64_MAX / 10 || a < INT64_MIN / 10 ||
	    a * 10 > INT64_MAX - digit)
		*overflowed = 1;
	return int64_from_bits((uint64_t)a * 10u + (uint64_t)digit);
}

/* C++'s "v * 1000" on int64 as compiled. */
static int64_t wrapping_times1000(int64_t v, int *overflowed)
{
	if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000)
		*overflowed = 1;
	return int64_from_bits((uint64_t)v * 1000u);
}

/* static_cast<int64_t>(double) as x86-64's cvttsd2si does it: out-of-range
 * values give INT64_MIN. */
static int64_t x86_double_to_int64(double d, int *overflowed)
{
	/* cppcheck misreads hex float literals as integers */
	/* cppcheck-suppress incorrectLogicOperator */
	if (d >= -0x1p63 && d < 0x1p63)
		return (int64_t)d;
	*overflowed = 1;
	return INT64_MIN;
}

/* StringToInt64.  0, or -1 on the overflow it detects. */
static int perfetto_string_to_int64(const char *text, const struct num_text *nt,
		int64_t *out, int *overflowed)
{
	const int64_t abs_max_div10 = INT64_MAX / 10;
	const int abs_max_mod10 = (int)(INT64_MAX % 10);
	int64_t value = 0;
	size_t i;

	for (i = nt->int_begin; i < nt->int_end; i++) {
		int digit = digit_value(text, i);
		int too_big = value > abs_max_div10 ||
			(value == abs_max_div10 && digit > abs_max_mod10);
		int is_int64_min = nt->negative && value == abs_max_div10 &&
			digit == abs_max_mod10 + 1;

		if (too_big && !is_int64_min)
			return -1;
		value = wrapping_times10_plus(value, digit, overflowed);
	}
	if (nt->negative) {
		if (value == INT64_MIN)
			*overflowed = 1;    /* -INT64_MIN wraps to itself */
		value = int64_from_bits(0u - (uint64_t)value);
	}
	*out = value;
	return 0;
}

/* The fraction as StringToDouble builds it.  0, or -1 when its divisor has
 * wrapped to 0: Perfetto then divides by zero, gets inf or NaN, and
 * rejects the text (we must not divide by zero ourselves). */
static int perfetto_fraction(const char *text, const struct num_text *nt,
		double *fraction, int *overflowed)
{
	int64_t frac_digits = 0;
	uint64_t divisor = 1;
	size_t i;

	for (i = nt->frac_begin; i < nt->frac_end; i++) {
		frac_digits = wrapping_times10_plus(frac_digits,
				digit_value(text, i), overflowed);
		divisor *= 10;    /* unsigned: wraps, as in Perfetto */
	}
	if (divisor == 0)
		return -1;
	*fraction = (double)frac_digits / (double)divisor;
	return 0;
}

/* StringToDouble.  0, or -1 where Perfetto reports an error. */
static int perfetto_string_to_double(const char *text,
		const struct num_text *nt, double *out, int *overflowed)
{
	int64_t int_part = 0;
	int64_t exponent = 0;
	double fraction = 0;
	double value;
	size_t i;

	for (i = nt->int_begin; i < nt->int_end; i++)
		int_part = wrapping_times10_plus(int_part, digit_value(text, i),
				overflowed);
	if (nt->has_point && perfetto_fraction(text, nt, &fraction,
				overflowed) != 0)
		return -1;
	for (i = nt->exp_begin; i < nt->exp_end; i++)
		exponent = wrapping_times10_plus(exponent, digit_value(text, i),
				overflowed);

	value = (double)int_part + fraction;
	if (nt->exp_negative) {
		double scale = pow(10, (double)exponent);

		/* An exponent wrapped to a huge negative value makes the scale
		 * 0: Perfetto divides by zero and rejects the inf or NaN. */
		if (scale == 0)
			return -1;
		value /= scale;
	} else if (exponent > 0) {
		value *= pow(10, (double)exponent);
	}
	if (isinf(value) || isnan(value))
		return -1;
	*out = nt->negative ? -value : value;
	return 0;
}

/* CoerceToTs for a double. */
static int64_t perfetto_double_to_ns(double value, int *overflowed)
{
	if (value == trunc(value))
		return wrapping_times1000(x86_double_to_int64(value, overflowed),
				overflowed);
	/* Not whole, so |value| < 2^52 and the product fits a long long. */
	return (int64_t)llround(value * 1000.0);
}

int tsnum_perfetto_us_to_ns(const char *text, size_t len, int64_t *ns)
{
	struct num_text nt;
	int overflowed = 0;
	int64_t int_value;
	double double_value;
	int64_t result;

	if (scan_json_number(text, len, &nt) != 0)
		return NUM_SYNTAX;

	if (!nt.has_point && !nt.has_exp &&
	    perfetto_string_to_int64(text, &nt, &int_value, &overflowed) == 0) {
		result = wrapping_times1000(int_value, &overflowed);
	} else {
		/* Not int-like, or StringToInt64 detected an overflow. */
		if (perfetto_string_to_double(text, &nt, &double_value,
					&overflowed) != 0)
			return NUM_SYNTAX;
		result = perfetto_double_to_ns(double_value, &overflowed);
	}
	*ns = result;
	return overflowed ? NUM_RANGE : NUM_OK;
}

/* ---- Output ---- */

/* |ns| as uint64: the magnitude of INT64_MIN does not fit int64. */
static uint64_t magnitude_of(int64_t ns)
{
	return ns < 0 ? 0u - (uint64_t)ns : (uint64_t)ns;
}

size_t tsnum_format_us3(int64_t ns, char *out)
{
	uint64_t magnitude = magnitude_of(ns);
	int n;

	n = snprintf(out, NUM_US_BUFSZ, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "",
			magnitude / 1000, (unsigned)(magnitude % 1000));
	/* The longest, "-9223372036854775.808", is 21 bytes. */
	return n < 0 ? 0 : (size_t)n;
}

int64_t tsnum_round_ns_to_us(int64_t ns)
{
	/* At most 2^63 + 500: no uint64 overflow; the quotient fits int64. */
	uint64_t us = (magnitude_of(ns) + 500) / 1000;

	return ns < 0 ? -(int64_t)us : (int64_t)us;
}

size_t tsnum_format_ms6(int64_t ns, char *out)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	int n = snprintf(out, NUM_US_BUFSZ, "%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "",
			 mag / 1000000, mag % 1000000);

	return n > 0 ? (size_t)n : 0;
}

int tsnum_append_us3(struct buf *b, int64_t ns)
{
	char text[NUM_US_BUFSZ];

	return buf_add(b, text, tsnum_format_us3(ns, text));
}

int tsnum_append_ms6(struct buf *b, int64_t ns)
{
	char text[NUM_US_BUFSZ];

	return buf_add(b, text, tsnum_format_ms6(ns, text));
}

/* Length of the integer part of a plain decimal, or 0 when text is not
 * plain (sign, exponent, no digits, a second '.', an empty fraction). */
size_t tsnum_plain_int_len(const char *t, size_t n)
{
	size_t i = 0, dot = n;

	if (n == 0 || t[0] < '0' || t[0] > '9')
		return 0;
	for (i = 0; i < n; i++) {
		if (t[i] == '.' && dot == n && i + 1 < n)
			dot = i;
		else if (t[i] < '0' || t[i] > '9')
			return 0;
	}
	return dot;
}

int tsnum_text_not_below(const char *a, size_t an, const char *b, size_t bn)
{
	size_t ai = tsnum_plain_int_len(a, an), bi = tsnum_plain_int_len(b, bn), i, af, bf;
	int c;

	if (ai == 0 || bi == 0)
		return 0;
	/* JSON allows no leading zeros: a longer integer part is larger */
	if (ai != bi)
		return ai > bi;
	if ((c = memcmp(a, b, ai)) != 0)
		return c > 0;
	af = ai < an ? an - ai - 1 : 0;  /* fraction digits after the '.' */
	bf = bi < bn ? bn - bi - 1 : 0;
	for (i = 0; i < af || i < bf; i++) {
		char x = i < af ? a[ai + 1 + i] : '0', y = i < bf ? b[bi + 1 + i] : '0';
		if (x != y)
			return x > y;
	}
	return 1;
}

void tsnum_plain_of(const char *b, size_t bn, struct tsnum_plain *out)
{
	out->p = b;
	out->n = bn;
	out->int_len = tsnum_plain_int_len(b, bn);
}

int tsnum_not_below_plain(const char *a, size_t an, const struct tsnum_plain *b)
{
	size_t i, ai, af, bf, bi = b->int_len;
	int c = 0;

	if (bi == 0 || an == 0)
		return 0;
	/* a's integer part; compared with b's only when as long (every
	 * event's ts passes here: one memcmp beats a compare per digit) */
	for (i = 0; i < an && (unsigned)((unsigned char)a[i] - '0') <= 9u; i++)
		;
	ai = i;
	if (ai == 0)
		return 0;
	if (ai < an) {  /* a plain fraction: a '.' and one digit or more */
		if (a[ai] != '.' || ai + 1 == an)
			return 0;
		for (i = ai + 1; i < an; i++)
			if ((unsigned)((unsigned char)a[i] - '0') > 9u)
				return 0;
	}
	/* JSON allows no leading zeros: a longer integer part is larger */
	if (ai != bi)
		return ai > bi;
	if ((c = memcmp(a, b->p, ai)) != 0)
		return c > 0;
	af = ai < an ? an - ai - 1 : 0;
	bf = bi < b->n ? b->n - bi - 1 : 0;
	for (i = 0; i < af || i < bf; i++) {
		char x = i < af ? a[ai + 1 + i] : '0', y = i < bf ? b->p[bi + 1 + i] : '0';
		if (x != y)
			return x > y;
	}
	return 1;
}
