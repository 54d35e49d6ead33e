/* A slow, exact reference for tsnum_us_to_ns (common/json/tsnum.c), shared by the
 * unit test (tests/unit/check_tsnum.c) and the libFuzzer target
 * (tests/fuzz/fuzz_tsnum.c).  Written differently on purpose: it checks
 * RFC 8259's number grammar by a walk, keeps the mantissa digits as a
 * string, strips zeros and reads the nanosecond digits off the string.  No
 * length or exponent limit: exponents saturate past 10^15, where the answer
 * no longer depends on them.  Included by test programs only. */
#ifndef TR_REF_TSNUM_H
#define TR_REF_TSNUM_H

#include <stdint.h>
#include <stdlib.h>

#include "json/tsnum.h"

static int is_digit_at(const char *t, size_t len, size_t i)
{
	return i < len && t[i] >= '0' && t[i] <= '9';
}

/* RFC 8259's number grammar as a walk; 1 when text is exactly one number. */
static int ref_valid(const char *t, size_t len)
{
	size_t i = 0;

	if (i < len && t[i] == '-')
		i++;
	if (!is_digit_at(t, len, i))
		return 0;
	if (t[i] == '0' && is_digit_at(t, len, i + 1))
		return 0;
	while (is_digit_at(t, len, i))
		i++;
	if (i < len && t[i] == '.') {
		if (!is_digit_at(t, len, ++i))
			return 0;
		while (is_digit_at(t, len, i))
			i++;
	}
	if (i < len && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		if (i < len && (t[i] == '+' || t[i] == '-'))
			i++;
		if (!is_digit_at(t, len, i))
			return 0;
		while (is_digit_at(t, len, i))
			i++;
	}
	return i == len;
}

/* The exact reference: value = digits * 10^scale microseconds, with the
 * mantissa digits as a string; strip zeros, then read the nanosecond digits
 * off the string. */
static int ref_us_to_ns(const char *t, size_t len, int64_t *ns, int *sub_ns)
{
	char *digits;
	size_t n = 0, i = 0, lead, end;
	long long scale = 0, exp = 0, point;
	int negative, exp_negative = 0, in_fraction = 0, fraction_nonzero;
	unsigned long long magnitude = 0;

	if (!ref_valid(t, len))
		return NUM_SYNTAX;
	digits = malloc(len + 1);
	if (digits == NULL)
		abort();
	negative = t[0] == '-';
	i = (size_t)negative;
	for (; i < len && t[i] != 'e' && t[i] != 'E'; i++) {
		if (t[i] == '.') {
			in_fraction = 1;
			continue;
		}
		digits[n++] = t[i];
		scale -= in_fraction;
	}
	if (i < len) {
		i++;
		exp_negative = t[i] == '-';
		if (t[i] == '+' || t[i] == '-')
			i++;
		/* saturate: past 10^15 the answer no longer depends on it */
		for (; i < len; i++)
			if (exp < 1000000000000000LL)
				exp = exp * 10 + (t[i] - '0');
	}
	scale += (exp_negative ? -exp : exp) + 3;  /* now in nanoseconds */
	for (lead = 0; lead < n && digits[lead] == '0'; lead++)
		;
	for (end = n; end > lead && digits[end - 1] == '0'; end--)
		scale++;
	if (lead == end) {
		free(digits);
		*ns = 0;
		*sub_ns = 0;
		return NUM_OK;
	}
	/* value = digits[lead, end) * 10^scale, the last digit non-zero */
	point = (long long)(end - lead) + scale;  /* integer digits of the value */
	fraction_nonzero = scale < 0;
	if (point > 19) {
		free(digits);
		return NUM_RANGE;
	}
	for (i = 0; (long long)i < point; i++) {
		size_t k = lead + i;
		magnitude = magnitude * 10 + (unsigned)(k < end ? digits[k] - '0' : 0);
	}
	free(digits);
	if (!negative) {
		if (magnitude > (unsigned long long)INT64_MAX)
			return NUM_RANGE;
		*ns = (int64_t)magnitude;
	} else {
		magnitude += (unsigned long long)fraction_nonzero;
		if (magnitude > (unsigned long long)INT64_MAX + 1)
			return NUM_RANGE;
		*ns = magnitude == 0 ? 0 : -(int64_t)(magnitude - 1) - 1;
	}
	*sub_ns = fraction_nonzero;
	return NUM_OK;
}

#endif
