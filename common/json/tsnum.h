/* tsnum: timestamp numbers.  Kineto writes ts and dur as microseconds in
 * JSON number texts ("ts": 1712195495519689.047) or inside strings
 * ("ts": "123.500").  We convert them to int64 nanoseconds exactly, from the
 * decimal text, and never through a double: a double has 53 bits, which is
 * not enough for epoch microseconds with three decimals.  The one exception
 * is tsnum_perfetto_us_to_ns, which deliberately reproduces Perfetto's double
 * arithmetic so that we can predict what its importer will see.
 *
 * Every function takes (text, len): the text need not be NUL-terminated and
 * may hold any bytes, so each one is safe to call directly from a fuzzer.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_TSNUM_H
#define TR_TSNUM_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* The times the stages compute with: |ts|, and ts + dur, at most
 * TSNUM_MAX_NS (2^62 - 2 ns: about 146 years either side of 0, so that
 * any difference of two such times and any doubled time fits an int64).
 * A stage that computes with an event's time refuses one beyond it. */
#define TSNUM_MAX_NS (INT64_MAX / 2 - 1)
#define TSNUM_MAX_US_TEXT "4611686018427387.902"

/* a + b and a - b, held at the int64 limits where they would pass them:
 * for a stage that compares times it did not bound (tr-verify reads any
 * pair of traces), where a held value then fails the comparison. */
static inline int64_t tsnum_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static inline int64_t tsnum_sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

/* Result of parsing a JSON number text. */
enum num_status { NUM_OK = 0, NUM_SYNTAX = -1, NUM_RANGE = -2 };

/* Exact: a JSON number text (RFC 8259 grammar:
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) meaning microseconds ->
 * int64 nanoseconds, exactly, from the decimal text.
 * Digits beyond the nanosecond: *ns is the floor (toward -infinity) of the
 * exact value and *sub_ns is set to 1 (the exact value lies strictly between
 * *ns and *ns+1); otherwise *sub_ns = 0.  Exponents shift the decimal point
 * exactly ("1.5e3" -> 1500000, "1e-4" -> 0 with sub_ns=1, "-1e-4" -> -1 with
 * sub_ns=1).  A floor that does not fit int64 -> NUM_RANGE.  Anything outside
 * the grammar ("01", "+1", ".5", "1.", "NaN", "", trailing bytes) ->
 * NUM_SYNTAX.  Huge exponents cannot overflow: a zero mantissa is 0 whatever
 * the exponent, a non-zero one with a huge exponent is NUM_RANGE or sub-ns.
 * On failure *ns and *sub_ns are left alone. */
int tsnum_us_to_ns(const char *text, size_t len, int64_t *ns, int *sub_ns);

/* Length of the integer part of a plain decimal ("123" or "123.45"), or 0
 * when the text is not plain (a sign, an exponent, no digits, a second
 * '.', an empty fraction). */
size_t tsnum_plain_int_len(const char *t, size_t n);

/* 1 when number text a is certainly not below b: both are plain
 * non-negative decimals (digits with an optional fraction, no sign, no
 * exponent) and a >= b exactly, compared digit by digit.  0 otherwise,
 * including whenever either text is not plain: the caller then converts.
 * A stage that keeps the smallest ts of millions of events skips almost
 * every conversion this way. */
int tsnum_text_not_below(const char *a, size_t an, const char *b, size_t bn);

/* tsnum_text_not_below against one b for many a (a stage's trace origin):
 * b analysed once.  int_len 0: b is not plain, and every answer is 0. */
struct tsnum_plain {
	const char *p;      /* b's text, not copied: it must outlive the analysis */
	size_t n, int_len;
};
void tsnum_plain_of(const char *b, size_t bn, struct tsnum_plain *out);
/* The same answer as tsnum_text_not_below(a, an, b->p, b->n). */
int tsnum_not_below_plain(const char *a, size_t an, const struct tsnum_plain *b);

/* Exact: the decimal values of two JSON number texts compared, never
 * through a double ("3.024" equals "3.024000" and "3024e-3", "-0" equals
 * "0", "1712195495519689.0470001" is above "1712195495519689.047").  *cmp
 * gets -1, 0 or 1 (a below, equal to, above b).  A text outside the grammar
 * -> NUM_SYNTAX; an exponent of 10^18 or more in magnitude -> NUM_RANGE.
 * On failure *cmp is left alone. */
int tsnum_compare(const char *a, size_t an, const char *b, size_t bn, int *cmp);

/* Exact integer: a JSON number text without fraction or exponent -> int64.
 * "-0" gives 0.  Overflow -> NUM_RANGE; anything else -> NUM_SYNTAX. */
int tsnum_parse_int64(const char *text, size_t len, int64_t *value);

/* Perfetto's own conversion of a ts/dur JSON number text to nanoseconds,
 * bit for bit, doubles included.  text is the token text of a number, or the
 * contents of a JSON string after unescaping (Perfetto re-parses "123.5" the
 * same way).  Reproduces ParseNumber/StringToInt64/StringToDouble
 * (src/trace_processor/util/json_parser.h) and CoerceToTs
 * (src/trace_processor/importers/json/json_trace_tokenizer.cc) of trace
 * processor v52 and later (v51 rounded whole doubles too; v50 and earlier
 * converted ts exactly and truncated dur).
 *   NUM_OK:     *ns is what Perfetto stores.
 *   NUM_SYNTAX: Perfetto fails to parse the text (its grammar is RFC 8259's;
 *               it also rejects texts whose double becomes inf or NaN, e.g.
 *               "1e309", "0e400", or 64 and more fraction digits).
 *   NUM_RANGE:  Perfetto's C++ overflows an int64 or casts an out-of-range
 *               double (undefined behaviour there).  *ns still holds what an
 *               x86-64 build computes in practice (two's-complement wrap;
 *               an out-of-range cast gives INT64_MIN), e.g.
 *               "9223372036854775807" -> -1000. */
int tsnum_perfetto_us_to_ns(const char *text, size_t len, int64_t *ns);

/* Format nanoseconds as microseconds with exactly three decimals ("-0.001",
 * "1428625746618.250"); NUL-terminates and returns the length written, at
 * most NUM_US_BUFSZ - 1. */
#define NUM_US_BUFSZ 32
size_t tsnum_format_us3(int64_t ns, char *out);

/* Format nanoseconds as milliseconds with exactly six decimals ("-0.000001",
 * "12.345678"); NUL-terminates and returns the length written. */
size_t tsnum_format_ms6(int64_t ns, char *out);

/* Append tsnum_format_us3 / tsnum_format_ms6 text to b; 0 or -1 (memory). */
int tsnum_append_us3(struct buf *b, int64_t ns);
int tsnum_append_ms6(struct buf *b, int64_t ns);

/* Round ns to the nearest whole microsecond, ties away from zero ("-1500 ns"
 * -> -2), and return the microseconds. */
int64_t tsnum_round_ns_to_us(int64_t ns);

#endif
