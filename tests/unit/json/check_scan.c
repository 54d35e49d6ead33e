/* Unit tests for common/json/scan.c.  The scanner reads through a callback
 * that serves the input whole, one byte at a time, or in random pieces, so
 * that every refill path (inside strings, escapes, numbers, literals and
 * whitespace) is taken.  Every case is run in every serving mode. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/event.h"
#include "json/scan.h"
#include "../../mutate.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1

/* ---- the byte source ---- */

enum serve { SERVE_WHOLE, SERVE_ONE, SERVE_RANDOM_SMALL, SERVE_RANDOM_LARGE, NSERVE };

struct feeder {
	const char *data;
	size_t len, pos;
	enum serve mode;
	uint32_t rng;
	size_t fail_at;  /* read fails once pos reaches it (SIZE_MAX: never) */
	unsigned calls;
};

static long feed_read(void *ctx, void *dst, size_t n)
{
	struct feeder *f = ctx;
	size_t k = f->len - f->pos;

	f->calls++;
	if (f->pos >= f->fail_at)
		return -1;
	if (f->fail_at - f->pos < k)
		k = f->fail_at - f->pos;
	switch (f->mode) {
	case SERVE_WHOLE: break;
	case SERVE_ONE: k = k < 1 ? k : 1; break;
	case SERVE_RANDOM_SMALL: {
		size_t r = 1 + next_rand(&f->rng) % 5;
		k = k < r ? k : r;
		break;
	}
	default: {
		size_t r = 1 + next_rand(&f->rng) % 97;
		k = k < r ? k : r;
		break;
	}
	}
	if (k > n)
		k = n;
	memcpy(dst, f->data + f->pos, k);
	f->pos += k;
	return (long)k;
}

static void feeder_init(struct feeder *f, const char *data, size_t len, enum serve mode)
{
	memset(f, 0, sizeof *f);
	f->data = data;
	f->len = len;
	f->mode = mode;
	f->rng = 0x9E3779B9u ^ (uint32_t)(len * 2654435761u) ^ (uint32_t)mode;
	f->fail_at = SIZE_MAX;
}

/* Scan one value from data with the given serving mode. */
static int scan_one(const char *data, size_t len, enum serve mode, size_t max_value,
		    struct buf *out, struct scan *s, struct feeder *f)
{
	feeder_init(f, data, len, mode);
	ck_assert_int_eq(scan_init(s, feed_read, f, max_value), SCAN_OK);
	return scan_value(s, out);
}

/* ---- minification keeps everything but insignificant whitespace ---- */

struct minify_case {
	const char *in;
	size_t in_len;
	const char *out;
	size_t out_len;
	size_t end;  /* offset after the value */
};

static const struct minify_case minify_cases[] = {
	{ S(" { \"a\" : 1 , \"b\" : [ true , false , null ] } "),
	  S("{\"a\":1,\"b\":[true,false,null]}"), 44 },
	{ S("[ -0 , 0.5e-10 , 1E+3 , -12.340e0 , 123456789012345678901234567890 , 0 ]"),
	  S("[-0,0.5e-10,1E+3,-12.340e0,123456789012345678901234567890,0]"), 72 },
	{ S("\r\n\t[\r\n\t1\r\n\t]\r\n\t"), S("[1]"), 12 },
	{ S("{ \"x\" : { } , \"y\" : [ ] , \"z\" : [ [ ] , { } ] }"),
	  S("{\"x\":{},\"y\":[],\"z\":[[],{}]}"), 47 },
	/* member order and duplicate names are kept */
	{ S("{\"b\":1 ,\"a\":2, \"b\":3}"), S("{\"b\":1,\"a\":2,\"b\":3}"), 21 },
	/* escapes are copied, not resolved; whitespace inside strings stays */
	{ S(" \" a \\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0041\\uD83D\\uDE00\\uDEAD \" "),
	  S("\" a \\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0041\\uD83D\\uDE00\\uDEAD \""), 51 },
	/* punctuation inside strings is content */
	{ S("[\"{}[],: \" , \"\"]"), S("[\"{}[],: \",\"\"]"), 16 },
	/* invalid UTF-8 and DEL pass byte for byte, in names and values */
	{ S("{ \"\xff\xfe\" : \"\xc3\x28\xed\xa0\x80\x7f\x80\xc0\xaf\" }"),
	  S("{\"\xff\xfe\":\"\xc3\x28\xed\xa0\x80\x7f\x80\xc0\xaf\"}"), 22 },
	/* scalars at the top level */
	{ S("  42  "), S("42"), 4 },
	{ S("-1.5e-3"), S("-1.5e-3"), 7 },
	{ S("0"), S("0"), 1 },
	{ S("-0.0E-0 "), S("-0.0E-0"), 7 },
	{ S("\"s\""), S("\"s\""), 3 },
	{ S("true"), S("true"), 4 },
	{ S("false "), S("false"), 5 },
	{ S("\nnull\n"), S("null"), 5 },
	{ S("[true,false,null]"), S("[true,false,null]"), 17 },
	/* the number text is kept exactly (no normalisation) */
	{ S("[1.000000000000000000001,1e400,-0e-0,1712195495519689.047]"),
	  S("[1.000000000000000000001,1e400,-0e-0,1712195495519689.047]"), 58 },
};

START_TEST(test_minify)
{
	const struct minify_case *c = &minify_cases[_i];
	int mode;

	for (mode = 0; mode < NSERVE; mode++) {
		struct buf out = BUF_INIT;
		struct scan s;
		struct feeder f;

		ck_assert_msg(scan_one(c->in, c->in_len, (enum serve)mode, SIZE_MAX, &out, &s, &f)
			      == SCAN_OK, "mode %d: %s", mode, s.err);
		ck_assert_uint_eq(out.len, c->out_len);
		ck_assert_mem_eq(out.p, c->out, c->out_len);
		ck_assert_uint_eq(scan_offset(&s), c->end);
		/* only whitespace is left */
		ck_assert_int_eq(scan_peek(&s), -1);
		ck_assert_uint_eq(scan_offset(&s), c->in_len);
		scan_free(&s);
		buf_release(&out);
	}
}
END_TEST

/* Every byte a string may hold unescaped passes through unchanged. */
START_TEST(test_all_string_bytes)
{
	enum serve mode = (enum serve)_i;
	char in[300];
	size_t n = 0;
	int c;
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;

	in[n++] = '"';
	for (c = 0x20; c <= 0xff; c++)
		if (c != '"' && c != '\\')
			in[n++] = (char)c;
	in[n++] = '"';
	ck_assert_int_eq(scan_one(in, n, mode, SIZE_MAX, &out, &s, &f), SCAN_OK);
	ck_assert_uint_eq(out.len, n);
	ck_assert_mem_eq(out.p, in, n);
	scan_free(&s);
	buf_release(&out);
}
END_TEST

/* ---- errors: status, offset of the offending byte, and message ---- */

struct error_case {
	const char *in;
	size_t in_len;
	int status;
	uint64_t offset;
	const char *msg;
};

#define E_VALUE "expected a value"
#define E_ELEM "expected ',' or ']' after an element"
#define E_MEMBER "expected ',' or '}' after a member"
#define E_NAME_AFTER "expected a member name after ','"
#define E_NAME_OR "expected a member name or '}'"
#define E_COLON "expected ':' after a member name"
#define E_MISMATCH "mismatched closing bracket"
#define E_ZERO "invalid number (leading zero)"
#define E_FRAC "invalid number (no digit after '.')"
#define E_EXP "invalid number (no digit in exponent)"
#define E_NUMBER "invalid number"
#define E_ESCAPE "invalid escape in string"
#define E_UESC "invalid \\u escape (expected 4 hex digits)"
#define E_CTRL "control character in string (must be escaped)"
#define E_LITERAL "invalid literal"
#define E_EOF "unexpected end of input (truncated JSON)"

static const struct error_case error_cases[] = {
	/* numbers */
	{ S("[01]"), SCAN_SYNTAX, 2, E_ZERO },
	{ S("[00]"), SCAN_SYNTAX, 2, E_ZERO },
	{ S("[-01]"), SCAN_SYNTAX, 3, E_ZERO },
	{ S("01"), SCAN_SYNTAX, 1, E_ZERO },
	{ S("[1.]"), SCAN_SYNTAX, 3, E_FRAC },
	{ S("[1.e5]"), SCAN_SYNTAX, 3, E_FRAC },
	{ S("[1e]"), SCAN_SYNTAX, 3, E_EXP },
	{ S("[1E+]"), SCAN_SYNTAX, 4, E_EXP },
	{ S("[1e-x]"), SCAN_SYNTAX, 4, E_EXP },
	{ S("[-]"), SCAN_SYNTAX, 2, E_NUMBER },
	{ S("[-a]"), SCAN_SYNTAX, 2, E_NUMBER },
	{ S("[--1]"), SCAN_SYNTAX, 2, E_NUMBER },
	{ S("[-Infinity]"), SCAN_SYNTAX, 2, E_NUMBER },
	{ S("[+1]"), SCAN_SYNTAX, 1, E_VALUE },
	{ S("[.5]"), SCAN_SYNTAX, 1, E_VALUE },
	{ S("[NaN]"), SCAN_SYNTAX, 1, E_VALUE },
	{ S("[0x1]"), SCAN_SYNTAX, 2, E_ELEM },
	{ S("[1.5.2]"), SCAN_SYNTAX, 4, E_ELEM },
	{ S("[1e5e]"), SCAN_SYNTAX, 4, E_ELEM },
	/* truncated numbers at the end of input */
	{ S("1."), SCAN_EOF, 2, E_EOF },
	{ S("1e"), SCAN_EOF, 2, E_EOF },
	{ S("1e+"), SCAN_EOF, 3, E_EOF },
	{ S("-"), SCAN_EOF, 1, E_EOF },
	{ S("[1."), SCAN_EOF, 3, E_EOF },
	/* commas and colons */
	{ S("[1 2]"), SCAN_SYNTAX, 3, E_ELEM },
	{ S("{\"a\":1 \"b\":2}"), SCAN_SYNTAX, 7, E_MEMBER },
	{ S("{\"a\":1,}"), SCAN_SYNTAX, 7, E_NAME_AFTER },
	{ S("{\"a\":1 , }"), SCAN_SYNTAX, 9, E_NAME_AFTER },
	{ S("[1,]"), SCAN_SYNTAX, 3, E_VALUE },
	{ S("[1 , ]"), SCAN_SYNTAX, 5, E_VALUE },
	{ S("[,1]"), SCAN_SYNTAX, 1, E_VALUE },
	{ S("[1,,2]"), SCAN_SYNTAX, 3, E_VALUE },
	{ S("{,}"), SCAN_SYNTAX, 1, E_NAME_OR },
	{ S("{1:2}"), SCAN_SYNTAX, 1, E_NAME_OR },
	{ S("{\"a\" 1}"), SCAN_SYNTAX, 5, E_COLON },
	{ S("{\"a\"}"), SCAN_SYNTAX, 4, E_COLON },
	{ S("{\"a\"::1}"), SCAN_SYNTAX, 5, E_VALUE },
	{ S("[\"a\" : 1]"), SCAN_SYNTAX, 5, E_ELEM },
	/* escapes and control characters */
	{ S("\"\\x\""), SCAN_SYNTAX, 2, E_ESCAPE },
	{ S("\"ab\\'\""), SCAN_SYNTAX, 4, E_ESCAPE },
	{ S("\"\\U0041\""), SCAN_SYNTAX, 2, E_ESCAPE },
	{ S("\"\\u12G4\""), SCAN_SYNTAX, 5, E_UESC },
	{ S("\"\\u\""), SCAN_SYNTAX, 3, E_UESC },
	{ S("\"\\u004\""), SCAN_SYNTAX, 6, E_UESC },
	{ S("\"a\x01" "b\""), SCAN_SYNTAX, 2, E_CTRL },
	{ S("\"\t\""), SCAN_SYNTAX, 1, E_CTRL },
	{ S("\"\n\""), SCAN_SYNTAX, 1, E_CTRL },
	{ S("{\"k\x1f\":1}"), SCAN_SYNTAX, 3, E_CTRL },
	{ S("[\"a\",\"\x00\"]"), SCAN_SYNTAX, 6, E_CTRL },
	/* brackets */
	{ S("[}"), SCAN_SYNTAX, 1, E_VALUE },
	{ S("{]"), SCAN_SYNTAX, 1, E_NAME_OR },
	{ S("[1}"), SCAN_SYNTAX, 2, E_MISMATCH },
	{ S("{\"a\":[1}}"), SCAN_SYNTAX, 7, E_MISMATCH },
	{ S("{\"a\":1]"), SCAN_SYNTAX, 6, E_MISMATCH },
	{ S("[[]}"), SCAN_SYNTAX, 3, E_MISMATCH },
	{ S("[{}]]"), SCAN_OK, 0, "" },  /* one value; the second ']' is the caller's */
	/* literals */
	{ S("tru"), SCAN_EOF, 3, E_EOF },
	{ S("t"), SCAN_EOF, 1, E_EOF },
	{ S("fals"), SCAN_EOF, 4, E_EOF },
	{ S("nul"), SCAN_EOF, 3, E_EOF },
	{ S("trux"), SCAN_SYNTAX, 3, E_LITERAL },
	{ S("[tru]"), SCAN_SYNTAX, 4, E_LITERAL },
	{ S("[nul,1]"), SCAN_SYNTAX, 4, E_LITERAL },
	{ S("[t]"), SCAN_SYNTAX, 2, E_LITERAL },
	{ S("[nulL]"), SCAN_SYNTAX, 4, E_LITERAL },
	{ S("[truefalse]"), SCAN_SYNTAX, 5, E_ELEM },
	{ S("[True]"), SCAN_SYNTAX, 1, E_VALUE },
	{ S("['a']"), SCAN_SYNTAX, 1, E_VALUE },
	/* other starts */
	{ S("x"), SCAN_SYNTAX, 0, E_VALUE },
	{ S("  ]"), SCAN_SYNTAX, 2, E_VALUE },
	{ S("\xef\xbb\xbf{}"), SCAN_SYNTAX, 0, E_VALUE },
	{ S(""), SCAN_EOF, 0, E_EOF },
	{ S(" \n\t\r "), SCAN_EOF, 5, E_EOF },
	{ S("\x00"), SCAN_SYNTAX, 0, E_VALUE },
	/* truncations inside a value */
	{ S("[1"), SCAN_EOF, 2, E_EOF },
	{ S("{\"a\""), SCAN_EOF, 4, E_EOF },
	{ S("{\"a\":"), SCAN_EOF, 5, E_EOF },
	{ S("\"abc"), SCAN_EOF, 4, E_EOF },
	{ S("\"\\"), SCAN_EOF, 2, E_EOF },
	{ S("\"\\u00"), SCAN_EOF, 5, E_EOF },
};

START_TEST(test_errors)
{
	const struct error_case *c = &error_cases[_i];
	int mode;

	for (mode = 0; mode < NSERVE; mode++) {
		struct buf out = BUF_INIT;
		struct scan s;
		struct feeder f;
		int rc = scan_one(c->in, c->in_len, (enum serve)mode, SIZE_MAX, &out, &s, &f);

		ck_assert_msg(rc == c->status, "case %d (%s) mode %d: status %d, want %d",
			      _i, c->in, mode, rc, c->status);
		if (c->status != SCAN_OK) {
			ck_assert_msg(s.err_offset == c->offset,
				      "case %d (%s) mode %d: offset %llu, want %llu", _i,
				      c->in, mode, (unsigned long long)s.err_offset,
				      (unsigned long long)c->offset);
			ck_assert_str_eq(s.err, c->msg);
		}
		scan_free(&s);
		buf_release(&out);
	}
}
END_TEST

/* ---- truncation at every prefix; read errors at every offset ---- */

static const char full_doc[] =
	"{ \"s\" : \"a\\\"\\u00e9\\n\\uD83D\\uDE00\xff\" , \"n\" : [ -12.5e+3 , 0 , 1E-2 , -0 , "
	"0.25 , 10 ] , \"l\" : [ true , false , null ] , \"o\" : { \"\" : { } } , "
	"\"e\" : [ ] , \"d\" : [ [ [ 1 ] ] ] }";
static const char full_min[] =
	"{\"s\":\"a\\\"\\u00e9\\n\\uD83D\\uDE00\xff\",\"n\":[-12.5e+3,0,1E-2,-0,0.25,10],"
	"\"l\":[true,false,null],\"o\":{\"\":{}},\"e\":[],\"d\":[[[1]]]}";

START_TEST(test_every_prefix_is_eof)
{
	enum serve mode = (enum serve)_i;
	size_t len = sizeof full_doc - 1, k;

	for (k = 0; k <= len; k++) {
		struct buf out = BUF_INIT;
		struct scan s;
		struct feeder f;
		int rc = scan_one(full_doc, k, mode, SIZE_MAX, &out, &s, &f);

		if (k == len) {
			ck_assert_int_eq(rc, SCAN_OK);
			ck_assert_str_eq(out.p, full_min);
		} else {
			ck_assert_msg(rc == SCAN_EOF, "prefix %zu mode %d: status %d (%s)",
				      k, mode, rc, s.err);
			ck_assert_uint_eq(s.err_offset, k);
			ck_assert_str_eq(s.err, E_EOF);
		}
		scan_free(&s);
		buf_release(&out);
	}
}
END_TEST

START_TEST(test_read_error_everywhere)
{
	enum serve mode = (enum serve)_i;
	size_t len = sizeof full_doc - 1, k;

	for (k = 0; k <= len; k++) {
		struct buf out = BUF_INIT;
		struct scan s;
		struct feeder f;
		int rc;

		feeder_init(&f, full_doc, len, mode);
		f.fail_at = k;
		ck_assert_int_eq(scan_init(&s, feed_read, &f, SIZE_MAX), SCAN_OK);
		rc = scan_value(&s, &out);
		if (k == len) {
			/* the value ends with its last byte: no further read */
			ck_assert_int_eq(rc, SCAN_OK);
			ck_assert_str_eq(out.p, full_min);
		} else {
			ck_assert_msg(rc == SCAN_READ, "fail at %zu mode %d: status %d (%s)",
				      k, mode, rc, s.err);
			ck_assert_str_eq(s.err, "read error");
			ck_assert_uint_eq(s.err_offset, k);
		}
		scan_free(&s);
		buf_release(&out);
	}
}
END_TEST

START_TEST(test_peek_read_error)
{
	struct scan s;
	struct feeder f;

	feeder_init(&f, "  x", 3, SERVE_ONE);
	f.fail_at = 2;
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 10), SCAN_OK);
	ck_assert_int_eq(scan_peek(&s), SCAN_READ);
	ck_assert_str_eq(s.err, "read error");
	ck_assert_uint_eq(s.err_offset, 2);
	scan_free(&s);
}
END_TEST

/* ---- the size limit ---- */

START_TEST(test_max_value)
{
	enum serve mode = (enum serve)_i;
	static const char in[] = " { \"key\" : \"0123456789\" , \"n\" : [ 1 , 2 , 3 ] } ";
	static const char min[] = "{\"key\":\"0123456789\",\"n\":[1,2,3]}";
	size_t L = sizeof min - 1;
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;

	/* the limit counts the minified bytes, not the input */
	ck_assert_int_eq(scan_one(in, sizeof in - 1, mode, L, &out, &s, &f), SCAN_OK);
	ck_assert_str_eq(out.p, min);
	scan_free(&s);
	buf_reset(&out);

	ck_assert_int_eq(scan_one(in, sizeof in - 1, mode, L - 1, &out, &s, &f), SCAN_TOO_BIG);
	ck_assert_str_eq(s.err, "value too large");
	ck_assert_uint_le(out.len, L - 1);
	scan_free(&s);

	/* what out already holds counts */
	buf_reset(&out);
	ck_assert_int_eq(buf_addstr(&out, "abc"), 0);
	ck_assert_int_eq(scan_one(in, sizeof in - 1, mode, L + 3, &out, &s, &f), SCAN_OK);
	ck_assert_uint_eq(out.len, L + 3);
	ck_assert_mem_eq(out.p, "abc", 3);
	ck_assert_str_eq(out.p + 3, min);
	scan_free(&s);
	buf_reset(&out);
	ck_assert_int_eq(buf_addstr(&out, "abc"), 0);
	ck_assert_int_eq(scan_one(in, sizeof in - 1, mode, L + 2, &out, &s, &f), SCAN_TOO_BIG);
	ck_assert_uint_le(out.len, L + 2);
	scan_free(&s);
	buf_release(&out);
}
END_TEST

/* Each kind of value at a limit one byte too small. */
START_TEST(test_max_value_each_kind)
{
	static const char *const vals[] = {
		"\"abcdef\"", "\"a\\u0041\"", "\"\\n\\t\"", "123456", "-1.5e+10",
		"true", "false", "null", "[1,2]", "{\"a\":{}}", "[[[[]]]]"
	};
	enum serve mode = (enum serve)_i;
	size_t i;

	for (i = 0; i < COUNT(vals); i++) {
		size_t L = strlen(vals[i]);
		struct buf out = BUF_INIT;
		struct scan s;
		struct feeder f;

		ck_assert_int_eq(scan_one(vals[i], L, mode, L, &out, &s, &f), SCAN_OK);
		ck_assert_str_eq(out.p, vals[i]);
		scan_free(&s);
		buf_reset(&out);
		ck_assert_msg(scan_one(vals[i], L, mode, L - 1, &out, &s, &f) == SCAN_TOO_BIG,
			      "%s at limit %zu", vals[i], L - 1);
		scan_free(&s);
		buf_release(&out);
	}
}
END_TEST

/* At every limit below the document's size: SCAN_TOO_BIG, at an offset that
 * does not depend on how the input was served (so that plain and gzip
 * input, or different pipe timings, report the same byte). */
START_TEST(test_max_value_offset_stable)
{
	size_t len = sizeof full_doc - 1, L = sizeof full_min - 1, max;

	for (max = 0; max < L; max++) {
		uint64_t first = 0;
		int mode;

		for (mode = 0; mode < NSERVE; mode++) {
			struct buf out = BUF_INIT;
			struct scan s;
			struct feeder f;

			ck_assert_int_eq(scan_one(full_doc, len, (enum serve)mode, max, &out, &s, &f),
					 SCAN_TOO_BIG);
			ck_assert_uint_le(out.len, max);
			ck_assert_uint_le(s.err_offset, len);
			if (mode == 0)
				first = s.err_offset;
			ck_assert_msg(s.err_offset == first, "limit %zu mode %d: offset %llu, "
				      "whole input gave %llu", max, mode,
				      (unsigned long long)s.err_offset, (unsigned long long)first);
			scan_free(&s);
			buf_release(&out);
		}
	}
}
END_TEST

/* A string run that does not fit: the offset is the first byte over. */
START_TEST(test_max_value_string_offset)
{
	enum serve mode = (enum serve)_i;
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;

	/* {"name":"  is 9 bytes; 11 more fit; 'b' at offset 20 does not */
	ck_assert_int_eq(scan_one(S("{\"name\":\"0123456789abcdefghij\"}"), mode, 20,
				  &out, &s, &f), SCAN_TOO_BIG);
	ck_assert_uint_eq(s.err_offset, 20);
	scan_free(&s);
	buf_release(&out);
	/* digits likewise: [12345 with a limit of 3 stops at '3' */
	ck_assert_int_eq(scan_one(S("[12345]"), mode, 3, &out, &s, &f), SCAN_TOO_BIG);
	ck_assert_uint_eq(s.err_offset, 3);
	scan_free(&s);
	buf_release(&out);
}
END_TEST

/* ---- nesting: iterative up to SCAN_MAX_DEPTH, refused beyond ---- */

#define DEEP SCAN_MAX_DEPTH

START_TEST(test_deep_arrays)
{
	enum serve mode = (enum serve)_i;
	size_t n = 2 * DEEP;
	char *in = malloc(n);
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;

	ck_assert_ptr_nonnull(in);
	memset(in, '[', DEEP);
	memset(in + DEEP, ']', DEEP);
	ck_assert_int_eq(scan_one(in, n, mode, SIZE_MAX, &out, &s, &f), SCAN_OK);
	ck_assert_uint_eq(out.len, n);
	ck_assert_mem_eq(out.p, in, n);
	ck_assert_uint_eq(s.stack.len, 0);
	scan_free(&s);
	buf_reset(&out);
	/* one bracket short */
	ck_assert_int_eq(scan_one(in, n - 1, mode, SIZE_MAX, &out, &s, &f), SCAN_EOF);
	ck_assert_uint_eq(s.err_offset, n - 1);
	scan_free(&s);
	buf_release(&out);
	free(in);
}
END_TEST

/* One level deeper than SCAN_MAX_DEPTH is refused at the opening bracket
 * that goes too deep, wherever the reads end. */
START_TEST(test_too_deep)
{
	enum serve mode = (enum serve)_i;
	size_t n = 2 * (DEEP + 1);
	char *in = malloc(n);
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;

	ck_assert_ptr_nonnull(in);
	memset(in, '[', DEEP + 1);
	memset(in + DEEP + 1, ']', DEEP + 1);
	ck_assert_int_eq(scan_one(in, n, mode, SIZE_MAX, &out, &s, &f), SCAN_SYNTAX);
	ck_assert_uint_eq(s.err_offset, DEEP);
	ck_assert_ptr_nonnull(strstr(s.err, "nested deeper than 1000 levels"));
	scan_free(&s);
	buf_release(&out);
	free(in);
}
END_TEST

START_TEST(test_deep_objects)
{
	enum serve mode = (enum serve)_i;
	size_t n = 5 * DEEP + 1 + DEEP, i;
	char *in = malloc(n);
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;

	ck_assert_ptr_nonnull(in);
	for (i = 0; i < DEEP; i++)
		memcpy(in + 5 * i, "{\"a\":", 5);
	in[5 * DEEP] = '1';
	memset(in + 5 * DEEP + 1, '}', DEEP);
	ck_assert_int_eq(scan_one(in, n, mode, SIZE_MAX, &out, &s, &f), SCAN_OK);
	ck_assert_uint_eq(out.len, n);
	ck_assert_mem_eq(out.p, in, n);
	scan_free(&s);
	buf_reset(&out);
	/* a ']' where the innermost '}' belongs */
	in[5 * DEEP + 1] = ']';
	ck_assert_int_eq(scan_one(in, n, mode, SIZE_MAX, &out, &s, &f), SCAN_SYNTAX);
	ck_assert_uint_eq(s.err_offset, 5 * DEEP + 1);
	ck_assert_str_eq(s.err, E_MISMATCH);
	scan_free(&s);
	buf_release(&out);
	free(in);
}
END_TEST

/* ---- several values in a row, scan_string, scan_peek, scan_fail ---- */

START_TEST(test_sequence)
{
	enum serve mode = (enum serve)_i;
	static const char in[] = "1 [2]{\"a\":3}\"x\"\ntrue -4.5 null";
	static const char *const want[] = {
		"1", "[2]", "{\"a\":3}", "\"x\"", "true", "-4.5", "null"
	};
	static const uint64_t ends[] = { 1, 5, 12, 15, 20, 25, 30 };
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;
	size_t i;

	feeder_init(&f, in, sizeof in - 1, mode);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 64), SCAN_OK);
	for (i = 0; i < COUNT(want); i++) {
		buf_reset(&out);
		ck_assert_int_eq(scan_value(&s, &out), SCAN_OK);
		ck_assert_str_eq(out.p, want[i]);
		ck_assert_uint_eq(scan_offset(&s), ends[i]);
	}
	ck_assert_int_eq(scan_peek(&s), -1);
	ck_assert_int_eq(scan_value(&s, &out), SCAN_EOF);
	ck_assert_uint_eq(s.err_offset, sizeof in - 1);
	scan_free(&s);
	buf_release(&out);
}
END_TEST

START_TEST(test_scan_string)
{
	enum serve mode = (enum serve)_i;
	struct buf out = BUF_INIT;
	struct scan s;
	struct feeder f;

	feeder_init(&f, S("  \"a\\u0062\" 1"), mode);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 64), SCAN_OK);
	ck_assert_int_eq(scan_string(&s, &out), SCAN_OK);
	ck_assert_str_eq(out.p, "\"a\\u0062\"");
	ck_assert_uint_eq(scan_offset(&s), 11);
	ck_assert_int_eq(scan_string(&s, &out), SCAN_SYNTAX);
	ck_assert_str_eq(s.err, "expected a string");
	ck_assert_uint_eq(s.err_offset, 12);
	scan_free(&s);

	buf_reset(&out);
	feeder_init(&f, S(" \"ab"), mode);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 64), SCAN_OK);
	ck_assert_int_eq(scan_string(&s, &out), SCAN_EOF);
	ck_assert_uint_eq(s.err_offset, 4);
	scan_free(&s);

	buf_reset(&out);
	feeder_init(&f, S("   "), mode);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 64), SCAN_OK);
	ck_assert_int_eq(scan_string(&s, &out), SCAN_EOF);
	ck_assert_uint_eq(s.err_offset, 3);
	scan_free(&s);

	/* the limit applies to strings too */
	buf_reset(&out);
	feeder_init(&f, S("\"abcdef\""), mode);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 7), SCAN_OK);
	ck_assert_int_eq(scan_string(&s, &out), SCAN_TOO_BIG);
	scan_free(&s);
	buf_release(&out);
}
END_TEST

START_TEST(test_peek_skip)
{
	enum serve mode = (enum serve)_i;
	struct scan s;
	struct feeder f;

	feeder_init(&f, S(" \t\r\n,x  "), mode);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 64), SCAN_OK);
	ck_assert_uint_eq(scan_offset(&s), 0);
	ck_assert_int_eq(scan_peek(&s), ',');
	ck_assert_uint_eq(scan_offset(&s), 4);
	ck_assert_int_eq(scan_peek(&s), ',');  /* peek does not consume */
	scan_skip(&s);
	ck_assert_int_eq(scan_peek(&s), 'x');
	ck_assert_uint_eq(scan_offset(&s), 5);
	scan_skip(&s);
	ck_assert_int_eq(scan_peek(&s), -1);
	ck_assert_uint_eq(scan_offset(&s), 8);
	ck_assert_int_eq(scan_peek(&s), -1);
	/* a byte >= 0x80 peeks as a non-negative value */
	scan_free(&s);
	feeder_init(&f, S("\xff"), mode);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 64), SCAN_OK);
	ck_assert_int_eq(scan_peek(&s), 0xff);
	scan_free(&s);
}
END_TEST

START_TEST(test_scan_fail)
{
	struct scan s;
	struct feeder f;

	feeder_init(&f, S("  abc"), SERVE_WHOLE);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 64), SCAN_OK);
	ck_assert_int_eq(scan_peek(&s), 'a');
	ck_assert_int_eq(scan_fail(&s, SCAN_SYNTAX, "my own grammar"), SCAN_SYNTAX);
	ck_assert_uint_eq(s.err_offset, 2);
	ck_assert_str_eq(s.err, "my own grammar");
	scan_free(&s);
	scan_free(&s);  /* safe twice */
}
END_TEST

/* ---- the one-block fast path against the byte-at-a-time path ----
 * Inputs served whole take the fast path; the same inputs with slow_only
 * set take the automaton that reads a byte at a time.  Over thousands of
 * mutations of a Kineto-like event (valid and not) both must give the same
 * status, bytes, end offset, error offset and message. */
static const char fast_seed[] =
	"  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void k<\\\"a\\\\\\u00e9>\",\n"
	"    \"pid\": 0, \"tid\": 7, \"ts\": 1712195495519689.047, \"dur\": -0.5e-3,\n"
	"    \"args\": {\"a\": [true, false, null, [], {}, [1, [2, {\"b\": 0}]]],\r\n"
	"\t\"c\": 1E+30, \"d\": \"\\/\\b\\f\\n\\r\\t\"}\n  }  ";

/* The scanners of the comparison, made once: scan_init allocates a
 * 4 MiB block, too slow to repeat 40 000 times under ASan. */
static struct scan fast_scan, slow_scan, into_scan;
static int scanners_ready;
/* How often scan_text_valid and scan_value_into vouched for a value, and
 * how often they left it to scan_value: a comparison must see both. */
static unsigned valid_yes, valid_no, into_yes, into_no, into_calls;

/* What scan_init does, on a scanner whose block is already allocated. */
static void restart(struct scan *s, struct feeder *f, size_t max_value)
{
	s->read = feed_read;
	s->ctx = f;
	s->max_value = max_value;
	s->pos = s->len = 0;
	s->base = 0;
	s->eof = 0;
	buf_reset(&s->stack);
	s->err_offset = 0;
	s->err[0] = '\0';
}

/* scan_value_into on into_scan, with room bytes (cycling through sizes
 * around the value's length), then scan_value when it declined: the same
 * result as the slow scanner's, and nothing written past the room. */
static void scan_into(const char *data, size_t len, size_t max_value, int src,
		      const struct scan *slow, const struct buf *so)
{
	struct scan *s = &into_scan;
	struct feeder f;
	size_t rooms[] = { len + 17, len + 16, len, len / 2 + 16, 17, 16, 0 };
	size_t room = rooms[into_calls++ % COUNT(rooms)], n = 0, i;
	unsigned char *dst = malloc(room + 32);
	struct buf out = BUF_INIT;
	int rc;

	ck_assert_ptr_nonnull(dst);
	memset(dst, 0xA5, room + 32);
	feeder_init(&f, data, len, SERVE_WHOLE);
	restart(s, &f, max_value);
	scan_peek(s);
	if (scan_value_into(s, dst, room, &n)) {
		into_yes++;
		ck_assert_int_eq(src, SCAN_OK);
		ck_assert_uint_eq(n, so->len);
		ck_assert_mem_eq(dst, so->p, n);
		ck_assert_uint_eq(scan_offset(s), scan_offset(slow));
	} else {
		into_no++;
		rc = scan_value(s, &out);
		ck_assert_int_eq(rc, src);
		ck_assert_uint_eq(out.len, so->len);
		ck_assert_mem_eq(out.p, so->p, out.len);
		if (rc == SCAN_OK) {
			ck_assert_uint_eq(scan_offset(s), scan_offset(slow));
		} else {
			ck_assert_uint_eq(s->err_offset, slow->err_offset);
			ck_assert_str_eq(s->err, slow->err);
		}
	}
	for (i = room; i < room + 32; i++)
		ck_assert_uint_eq(dst[i], 0xA5);
	free(dst);
	buf_release(&out);
}

/* scan_text_valid on an exact copy of data (ASan sees any read past it):
 * when it vouches for the text, the slow scanner accepts one value
 * followed by nothing but whitespace. */
static void check_text_valid(const char *data, size_t len, int src, struct scan *slow)
{
	char *copy = malloc(len > 0 ? len : 1);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, data, len);
	if (scan_text_valid(copy, len)) {
		valid_yes++;
		ck_assert_int_eq(src, SCAN_OK);
		ck_assert_int_eq(scan_peek(slow), -1);
	} else {
		valid_no++;
	}
	free(copy);
}

static void scan_both(const char *data, size_t len, size_t max_value)
{
	struct scan *fast = &fast_scan, *slow = &slow_scan;
	struct feeder ff, fs;
	struct buf fo = BUF_INIT, so = BUF_INIT;
	int frc, src;

	if (!scanners_ready) {
		ck_assert_int_eq(scan_init(fast, feed_read, NULL, max_value), SCAN_OK);
		ck_assert_int_eq(scan_init(slow, feed_read, NULL, max_value), SCAN_OK);
		ck_assert_int_eq(scan_init(&into_scan, feed_read, NULL, max_value), SCAN_OK);
		slow->slow_only = 1;
		scanners_ready = 1;
	}
	feeder_init(&ff, data, len, SERVE_WHOLE);
	feeder_init(&fs, data, len, SERVE_WHOLE);
	restart(fast, &ff, max_value);
	restart(slow, &fs, max_value);
	/* as tr-decode does: the peek fills the block the fast path works on */
	ck_assert_int_eq(scan_peek(fast), scan_peek(slow));
	frc = scan_value(fast, &fo);
	src = scan_value(slow, &so);
	ck_assert_int_eq(frc, src);
	ck_assert_uint_eq(fo.len, so.len);
	ck_assert_mem_eq(fo.p, so.p, fo.len);
	ck_assert_int_eq(fo.p[fo.len], '\0');
	if (frc == SCAN_OK) {
		ck_assert_uint_eq(scan_offset(fast), scan_offset(slow));
	} else {
		ck_assert_uint_eq(fast->err_offset, slow->err_offset);
		ck_assert_str_eq(fast->err, slow->err);
	}
	scan_into(data, len, max_value, src, slow, &so);
	/* scan_text_valid has no size limit: compare where none applies */
	if (max_value >= len)
		check_text_valid(data, len, src, slow);
	buf_release(&fo);
	buf_release(&so);
}

static void free_scanners(void)
{
	scan_free(&fast_scan);
	scan_free(&slow_scan);
	scan_free(&into_scan);
	scanners_ready = 0;
}

START_TEST(test_fast_path_agrees)
{
	static const char alphabet[] = "{}[]\":,\\ \n\t-+.0123456789eEtruefalsnu\x01\x7f\xff/bx";
	char data[sizeof fast_seed + 8];
	uint32_t rng = 0x2545F491u;
	size_t n = sizeof fast_seed - 1, i;

	scan_both(fast_seed, n, 1 << 20);
	for (i = 0; i < n; i++) /* every cut: the value ends inside every token */
		scan_both(fast_seed, i, 1 << 20);
	for (i = 0; i < 60; i++) /* every size limit around the value's length */
		scan_both(fast_seed, n, 200 + i * 3);
	for (i = 0; i < 20000; i++) {
		size_t len;
		memcpy(data, fast_seed, n);
		len = mutate_text(data, n, sizeof data, alphabet, sizeof alphabet - 1, &rng);
		scan_both(data, len, 1 << 20);
	}
	free_scanners();
	/* both ways were taken, many times */
	ck_assert_uint_gt(valid_yes, 1000);
	ck_assert_uint_gt(valid_no, 1000);
	ck_assert_uint_gt(into_yes, 1000);
	ck_assert_uint_gt(into_no, 1000);
}
END_TEST

/* scan_text_valid: exact verdicts on small texts, including those it
 * leaves to scan_value though they are valid (deep nesting, a number at
 * the very end, where more digits could follow in a stream). */
START_TEST(test_text_valid)
{
	static const struct { const char *text; int valid; } cases[] = {
		{ "{}", 1 }, { " \t{ \"a\" : [1, 2.5e-3, true, null, \"\\u00e9\"] }\r\n", 1 },
		{ "[]", 1 }, { "\"x\"", 1 }, { "true", 1 }, { " null ", 1 }, { "1 ", 1 },
		{ "", 0 }, { "   ", 0 }, { "{} {}", 0 }, { "{}x", 0 }, { "{", 0 },
		{ "{\"a\":1,}", 0 }, { "[1,]", 0 }, { "{\"a\" 1}", 0 }, { "01", 0 },
		{ "\"a\x01\"", 0 }, { "\"\\x\"", 0 }, { "[1}", 0 }, { "tru", 0 },
		{ "1", 0 },      /* valid, left to scan_value: the end may hide digits */
	};
	char deep[2 * 70 + 1];
	size_t i;

	for (i = 0; i < COUNT(cases); i++)
		ck_assert_msg(scan_text_valid(cases[i].text, strlen(cases[i].text)) == cases[i].valid,
			      "case %zu", i);
	/* 64 levels are checked in place; 65 and more left to scan_value */
	for (i = 0; i < 70; i++) {
		deep[i] = '[';
		deep[2 * 70 - 1 - i] = ']';
	}
	ck_assert_int_eq(scan_text_valid(deep + 6, 2 * 64), 1);
	ck_assert_int_eq(scan_text_valid(deep + 5, 2 * 65), 0);
}
END_TEST

/* ---- scan_text_valid against the walk it replaced ----
 * The reference: the byte-at-a-time grammar walk that scan_text_valid was
 * before it worked on 64-byte masks (common/json/scan.c's fast_walk without
 * copying, its SSE2 runs written as the plain loops they stand for).  The
 * verdicts must be the same on every text, including the valid ones it
 * declines (nesting deeper than 64 levels, a number that ends the text). */
static int ref_is_space(int c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static int ref_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int ref_is_hex(int c)
{
	return ref_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const unsigned char *ref_space(const unsigned char *p, const unsigned char *end)
{
	while (p < end && ref_is_space(*p))
		p++;
	return p;
}

static const unsigned char *ref_escape(const unsigned char *q, const unsigned char *end)
{
	int i;

	if (end - q < 2)
		return NULL;
	switch (q[1]) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
		return q + 2;
	case 'u':
		if (end - q < 6)
			return NULL;
		for (i = 2; i < 6; i++)
			if (!ref_is_hex(q[i]))
				return NULL;
		return q + 6;
	default:
		return NULL;
	}
}

static const unsigned char *ref_string(const unsigned char *p, const unsigned char *end)
{
	for (p++;;) {
		while (p < end && *p >= 0x20 && *p != '"' && *p != '\\')
			p++;
		if (p == end)
			return NULL;
		if (*p == '"')
			return p + 1;
		if (*p != '\\' || (p = ref_escape(p, end)) == NULL)
			return NULL;
	}
}

static const unsigned char *ref_digits(const unsigned char *p, const unsigned char *end)
{
	while (p < end && ref_is_digit(*p))
		p++;
	return p;
}

static const unsigned char *ref_number(const unsigned char *p, const unsigned char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p == end)
		return NULL;
	if (*p == '0')
		p++;
	else if (ref_is_digit(*p))
		p = ref_digits(p + 1, end);
	else
		return NULL;
	if (p < end && *p == '.') {
		const unsigned char *digits = ++p;
		p = ref_digits(p, end);
		if (p == digits)
			return NULL;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		const unsigned char *digits;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		digits = p;
		p = ref_digits(p, end);
		if (p == digits)
			return NULL;
	}
	if (p == end || ref_is_digit(*p))
		return NULL;
	return p;
}

/* true, false or null at p: the byte after it, or NULL. */
static const unsigned char *ref_word(const unsigned char *p, const unsigned char *end)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i;

	for (i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);

		if ((size_t)(end - p) >= n && memcmp(p, words[i], n) == 0)
			return p + n;
	}
	return NULL;
}

static int ref_text_valid(const void *text, size_t len)
{
	const unsigned char *p = text, *end = p + len;
	uint64_t objects = 0;
	unsigned depth = 0;
	int c;

	p = ref_space(p, end);
value:
	if (p == end)
		return 0;
	c = *p;
	if (c == '"') {
		if ((p = ref_string(p, end)) == NULL)
			return 0;
		goto after_value;
	}
	if (c == '-' || ref_is_digit(c)) {
		if ((p = ref_number(p, end)) == NULL)
			return 0;
		goto after_value;
	}
	if (c == '{' || c == '[') {
		if (depth == 64)
			return 0;
		p = ref_space(p + 1, end);
		if (p == end)
			return 0;
		if (c == '{') {
			objects |= (uint64_t)1 << depth++;
			if (*p != '}')
				goto key;
		} else {
			objects &= ~((uint64_t)1 << depth++);
			if (*p != ']')
				goto value;
		}
		p++;
		depth--;
		goto after_value;
	}
	if ((p = ref_word(p, end)) == NULL)
		return 0;
after_value:
	if (depth == 0)
		return ref_space(p, end) == end;
	p = ref_space(p, end);
	if (p == end)
		return 0;
	c = *p;
	if (c == ',') {
		p = ref_space(p + 1, end);
		if (objects >> (depth - 1) & 1)
			goto key;
		goto value;
	}
	if ((c != '}' && c != ']') || (c == '}') != (int)(objects >> (depth - 1) & 1))
		return 0;
	p++;
	depth--;
	goto after_value;
key:
	if (p == end || *p != '"')
		return 0;
	if ((p = ref_string(p, end)) == NULL)
		return 0;
	p = ref_space(p, end);
	if (p == end || *p != ':')
		return 0;
	p = ref_space(p + 1, end);
	goto value;
}

/* ---- scan_value_into against a byte-at-a-time reference ----
 * The reference: common/json/scan.c's fast_walk with copying, its SSE2 runs
 * written as the plain loops they stand for (the oracle for any faster
 * walk put in its place: a walk on 64-byte masks was tried and measured
 * no cheaper on Kineto events): from p, after whitespace, one value
 * ending before end, its bytes without whitespace to *out; just past it,
 * or NULL where it gave up (an error, the end, nesting deeper than 64
 * levels). */
static unsigned char *ref_put(unsigned char *o, const unsigned char *from, const unsigned char *to)
{
	memcpy(o, from, (size_t)(to - from));
	return o + (to - from);
}

static const unsigned char *ref_copy(const unsigned char *p, const unsigned char *end,
				     unsigned char **out)
{
	const unsigned char *from;
	unsigned char *o = *out;
	uint64_t objects = 0;
	unsigned depth = 0;
	int c;

	p = ref_space(p, end);
value:
	if (p == end)
		return NULL;
	c = *p;
	from = p;
	if (c == '"') {
		if ((p = ref_string(p, end)) == NULL)
			return NULL;
		o = ref_put(o, from, p);
		goto after_value;
	}
	if (c == '-' || ref_is_digit(c)) {
		if ((p = ref_number(p, end)) == NULL)
			return NULL;
		o = ref_put(o, from, p);
		goto after_value;
	}
	if (c == '{' || c == '[') {
		if (depth == 64)
			return NULL;
		*o++ = (unsigned char)c;
		p = ref_space(p + 1, end);
		if (p == end)
			return NULL;
		if (c == '{') {
			objects |= (uint64_t)1 << depth++;
			if (*p != '}')
				goto key;
		} else {
			objects &= ~((uint64_t)1 << depth++);
			if (*p != ']')
				goto value;
		}
		*o++ = *p++;
		depth--;
		goto after_value;
	}
	if ((p = ref_word(p, end)) == NULL)
		return NULL;
	o = ref_put(o, from, p);
after_value:
	if (depth == 0) {
		*out = o;
		return p;
	}
	p = ref_space(p, end);
	if (p == end)
		return NULL;
	c = *p;
	if (c == ',') {
		*o++ = ',';
		p = ref_space(p + 1, end);
		if (objects >> (depth - 1) & 1)
			goto key;
		goto value;
	}
	if ((c != '}' && c != ']') || (c == '}') != (int)(objects >> (depth - 1) & 1))
		return NULL;
	*o++ = (unsigned char)c;
	p++;
	depth--;
	goto after_value;
key:
	if (p == end || *p != '"')
		return NULL;
	from = p;
	if ((p = ref_string(p, end)) == NULL)
		return NULL;
	o = ref_put(o, from, p);
	p = ref_space(p, end);
	if (p == end || *p != ':')
		return NULL;
	*o++ = ':';
	p = ref_space(p + 1, end);
	goto value;
}

/* The scanner of the copy comparison, its block allocated once. */
static struct scan copy_scan;
static int copy_ready;
static unsigned copy_yes, copy_no, copy_calls;

/* What follows the text in the scanner's block past its end, where
 * nothing may be read: a different byte each call. */
static const char past_end[] = "\"\\ }]0\x01{,:\n";

/* scan_value_into on text as the block read (leading whitespace skipped
 * by a peek, as tr-decode does): the reference's verdict, bytes and end,
 * nothing consumed when it declines, nothing written past its room.  The
 * room leaves the whole text to the walk. */
static void copy_agrees(const char *text, size_t len, const char *what, size_t at)
{
	struct scan *s = &copy_scan;
	struct feeder f;
	size_t room = len + 16, n = 0, pos, i;
	unsigned char *dst = malloc(room + 32), *want = malloc(len + 16), *o = want;
	const unsigned char *ref_end;
	int got;

	/* plain ifs: Check records every passing assertion, and this runs
	 * a few hundred thousand times */
	if (dst == NULL || want == NULL)
		ck_abort_msg("out of memory");
	if (!copy_ready) {
		ck_assert_int_eq(scan_init(s, feed_read, NULL, 1 << 30), SCAN_OK);
		copy_ready = 1;
	}
	feeder_init(&f, text, len, SERVE_WHOLE);
	restart(s, &f, 1 << 30);
	scan_peek(s);
	memset(s->buf + s->len, past_end[copy_calls++ % (sizeof past_end - 1)], 128);
	pos = s->pos;
	ref_end = ref_copy(s->buf + pos, s->buf + s->len, &o);
	memset(dst, 0xA5, room + 32);
	got = scan_value_into(s, dst, room, &n);
	if (got != (ref_end != NULL))
		ck_abort_msg("%s %zu: scan_value_into on \"%.*s\" is %d", what, at, (int)len, text, got);
	if (got) {
		copy_yes++;
		if (n != (size_t)(o - want) || memcmp(dst, want, n) != 0)
			ck_abort_msg("%s %zu: \"%.*s\" copied as \"%.*s\"", what, at, (int)len, text,
				     (int)n, (const char *)dst);
		if (s->pos != (size_t)(ref_end - s->buf))
			ck_abort_msg("%s %zu: \"%.*s\" ends at %zu, not %zu", what, at, (int)len, text,
				     s->pos, (size_t)(ref_end - s->buf));
	} else {
		copy_no++;
		if (s->pos != pos)
			ck_abort_msg("%s %zu: \"%.*s\" declined, consumed", what, at, (int)len, text);
	}
	for (i = room; i < room + 32; i++)
		if (dst[i] != 0xA5)
			ck_abort_msg("%s %zu: \"%.*s\": written past the room", what, at, (int)len, text);
	free(dst);
	free(want);
}

static void free_copy_scan(void)
{
	if (copy_ready)
		scan_free(&copy_scan);
	copy_ready = 0;
}

/* What may follow an event in the block: the next one, or bytes that make
 * the rest invalid (checked in the same 64-byte blocks as the value). */
static const char *const trailers[] = {
	",\n{\"ph\":\"X\",\"ts\":1}", ", {\"a\": [1, 2]}", "\x01", "\t\"\x01\"", "\"\\q\"", "\\",
	"\"", "]", "}}}", "  ,\r\n", "1", "\"\\u12\"",
};

/* copy_agrees on text alone and followed by a trailer. */
static void copy_agrees_trailed(const char *text, size_t len, const char *what, size_t at)
{
	char *both;
	const char *trailer = trailers[at % COUNT(trailers)];
	size_t n = strlen(trailer);

	copy_agrees(text, len, what, at);
	both = malloc(len + n);
	ck_assert_ptr_nonnull(both);
	memcpy(both, text, len);
	memcpy(both + len, trailer, n);
	copy_agrees(both, len + n, what, at);
	free(both);
}

static unsigned agree_valid, agree_invalid;

/* scan_text_valid on an exact copy of text (ASan sees any read past it):
 * the reference's verdict.  check_scan_portable runs this on a scan.c
 * built without SSE2, whose byte-at-a-time classifiers must agree too. */
/* The members scan_text_valid_members is asked for in valid_agrees: short
 * and long names, one with an escape as it stands, the empty one. */
static const struct scan_member member_names[] = {
	{ "ph", 2 }, { "ts", 2 }, { "dur", 3 }, { "cat", 3 }, { "name", 4 }, { "id", 2 },
	{ "", 0 }, { "p\\u0068", 7 }, { "External", 8 },
};
#define NMEMBERS (sizeof member_names / sizeof member_names[0])
static const char *const member_keys[NMEMBERS] = {
	"ph", "ts", "dur", "cat", "name", "id", "", "p\\u0068", "External",
};
static size_t members_exact;   /* texts where the values were vouched for */

/* scan_text_valid_members: the same verdict; when it vouches for the
 * values (1), they are event_members's, the member walk's, exactly.
 * Plain tests: every ck_assert that passes costs a write. */
static void members_agree(const char *copy, size_t len, int valid, const char *what, size_t at)
{
	static struct scan_want want;
	static int prepared;
	struct scan_span got[NMEMBERS];
	struct member ref[NMEMBERS];
	size_t k;
	int rc;

	if (!prepared) {
		ck_assert_int_eq(scan_want_init(&want, member_names, NMEMBERS), 0);
		prepared = 1;
	}
	rc = scan_text_valid_members(copy, len, &want, got);
	if ((rc != 0) != valid)
		ck_abort_msg("%s %zu: members verdict on \"%.*s\" is %d", what, at, (int)len, copy,
			     rc);
	if (rc != 1)
		return;
	members_exact++;
	event_members(copy, len, member_keys, (int)NMEMBERS, ref);
	for (k = 0; k < NMEMBERS; k++)
		if (got[k].len != ref[k].len || (ref[k].len > 0 && got[k].p != ref[k].p))
			ck_abort_msg("%s %zu: member %s of \"%.*s\": \"%.*s\", the walk \"%.*s\"",
				     what, at, member_keys[k], (int)len, copy, (int)got[k].len,
				     got[k].p ? got[k].p : "", (int)ref[k].len,
				     ref[k].p ? ref[k].p : "");
}

static void valid_agrees(const char *text, size_t len, const char *what, size_t at)
{
	char *copy = malloc(len > 0 ? len : 1);
	int want;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, text, len);
	want = ref_text_valid(copy, len);
	ck_assert_msg(scan_text_valid(copy, len) == want, "%s %zu: scan_text_valid on \"%.*s\" is %d",
		      what, at, (int)len, text, !want);
	members_agree(copy, len, want, what, at);
	if (want)
		agree_valid++;
	else
		agree_invalid++;
	free(copy);
	copy_agrees_trailed(text, len, what, at);
}

/* Exact verdicts on every corner of the grammar, each also the
 * reference's. */
START_TEST(test_text_valid_corners)
{
	static const struct { const char *text; int valid; } cases[] = {
		/* escapes */
		{ "\"\\u00e9\"", 1 }, { "\"\\uABCD\\uabcd\"", 1 }, { "\"\\u00g9\"", 0 },
		{ "\"\\u12\"", 0 }, { "\"\\u\"", 0 }, { "\"\\u12", 0 }, { "\"\\x\"", 0 },
		{ "\"\\\"", 0 }, { "\"\\\\\"", 1 }, { "\"\\\\\\\"\"", 1 }, { "\"\\", 0 },
		{ "\"\\/\\b\\f\\n\\r\\t\\\"\"", 1 }, { "\"\\'\"", 0 }, { "\"\\\x01\"", 0 },
		/* control bytes in and out of strings */
		{ "\"a\tb\"", 0 }, { "\"a\nb\"", 0 }, { "\"a\x1f\"", 0 }, { "\"a\x7f\"", 1 },
		{ "\"\xff\xfe\xc3\x28\xed\xa0\x80\"", 1 }, { "[1,\t2]", 1 }, { "[1,\x0b" "2]", 0 },
		{ "\x01[]", 0 }, { "[]\x01", 0 }, { "\f{}", 0 }, { "[\x1f]", 0 },
		/* numbers */
		{ "[0]", 1 }, { "[00]", 0 }, { "[01]", 0 }, { "[-0]", 1 }, { "[-]", 0 },
		{ "[-01]", 0 }, { "[-00]", 0 }, { "[1.]", 0 }, { "[.5]", 0 }, { "[1.5]", 1 },
		{ "[0.5]", 1 }, { "[00.5]", 0 }, { "[-0.5]", 1 }, { "[1e5]", 1 },
		{ "[1E+5]", 1 }, { "[1e-5]", 1 }, { "[1e-]", 0 }, { "[1e]", 0 }, { "[1.5e3]", 1 },
		{ "[1.e3]", 0 }, { "[--1]", 0 }, { "[1-]", 0 }, { "[+1]", 0 }, { "[1.2.3]", 0 },
		{ "[1..2]", 0 }, { "[1x]", 0 }, { "[1 2]", 0 }, { "[1\"a\"]", 0 }, { "[1:2]", 0 },
		{ "[1{}]", 0 }, { "[1 ,2 ]", 1 }, { "[1\t]", 1 }, { "[1\\]", 0 }, { "[1|]", 0 },
		{ "[123456789012345]", 1 }, { "[1234567890123456]", 1 },
		{ "[12345678901234567]", 1 }, { "[123456789012345.5]", 1 },
		{ "[1234567890123456.5]", 1 }, { "[0.000000000000001]", 1 },
		{ "1", 0 }, { "1 ", 1 }, { "-", 0 }, { "0", 0 }, { "0 ", 1 }, { "-1.5\n", 1 },
		{ "1.5", 0 }, { "1e5", 0 }, { "1.", 0 }, { "[1]", 1 }, { "{\"a\":1:2}", 0 },
		/* literals */
		{ "true", 1 }, { "true ", 1 }, { "false", 1 }, { "null", 1 }, { "tru", 0 },
		{ "truex", 0 }, { "[truex]", 0 }, { "[true,false,null]", 1 }, { "[nul]", 0 },
		{ "[True]", 0 }, { "[true false]", 0 }, { "[true\"x\"]", 0 }, { "[null1]", 0 },
		/* nesting */
		{ "[[[]]]", 1 }, { "[[[]]", 0 }, { "[]]", 0 }, { "{\"a\":{\"b\":{}}}", 1 },
		{ "{[]}", 0 }, { "[{]}", 0 }, { "{\"a\"}", 0 }, { "{\"a\":}", 0 }, { "{:1}", 0 },
		{ "{1:1}", 0 }, { "{\"a\" \"b\"}", 0 }, { "{\"a\"::1}", 0 }, { "[\"a\":1]", 0 },
		{ "{\"a\":1 \"b\":2}", 0 }, { "{\"a\":1,\"b\":[{\"c\":[]}]}", 1 },
		/* empty containers, trailing and doubled commas */
		{ "{}", 1 }, { "[]", 1 }, { "{ }", 1 }, { "[ ]", 1 }, { "[,]", 0 }, { "{,}", 0 },
		{ "[1,]", 0 }, { "{\"a\":1,}", 0 }, { "[1,,2]", 0 }, { ",[]", 0 }, { "[],", 0 },
		{ "[]:", 0 }, { "{}}", 0 }, { "", 0 }, { "   ", 0 }, { "{} {}", 0 }, { "[] 1", 0 },
		/* whitespace everywhere */
		{ " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" :\n{ } }\n\t ", 1 },
		/* bytes never valid outside strings, valid inside */
		{ "[|]", 0 }, { "[\\]", 0 }, { "[^]", 0 }, { "[~]", 0 }, { "[\x7f]", 0 },
		{ "[\xff]", 0 }, { "[_]", 0 }, { "[`]", 0 }, { "{\"a\":1}|", 0 }, { "[1]\\", 0 },
		{ "[\"{}[],:\\\\|^~_`\x7f\"]", 1 },
		/* quotes */
		{ "\"", 0 }, { "\"\"", 1 }, { "\"\"\"", 0 }, { "[\"a\"\"b\"]", 0 }, { "[\"a\",\"b\"]", 1 },
	};
	size_t i;

	for (i = 0; i < COUNT(cases); i++) {
		size_t len = strlen(cases[i].text);
		ck_assert_msg(ref_text_valid(cases[i].text, len) == cases[i].valid,
			      "reference, case %zu", i);
		valid_agrees(cases[i].text, len, "case", i);
	}
	/* a NUL inside a string and after the value (strlen would stop there) */
	valid_agrees("\"a\0b\"", 5, "nul", 0);
	valid_agrees("[]\0", 3, "nul", 1);
	ck_assert_int_eq(scan_text_valid("\"a\0b\"", 5), 0);
	free_copy_scan();
}
END_TEST

/* Quotes, backslash runs, escapes, numbers and literals at every offset
 * from 0 to 200, across the 64-byte blocks, and around the 512-byte chunks
 * the blocks are classified in, and every prefix of each text (texts of
 * every length from 0 on end inside every token). */
START_TEST(test_text_valid_blocks)
{
	static const char *const tails[] = {
		"\"k\":\"a\\\"b\"}", "\"k\":\"\\\\\"}", "\"k\":\"\\\\\\\\\\\"x\"}", "\"k\":\"\\u00e9\"}",
		"\"k\":\"\\u00\"}", "\"k\":12345.678}", "\"k\":-0}", "\"k\":1e+5}", "\"k\":true}",
		"\"k\":null }", "\"k\":[1,{},[]]}", "\"k\":\"\t\"}", "\"k\" : \"v\" ,\"j\":0}",
		"\"k\":\"x\",}", "\"k\":01}", "\"k\":1x}",
	};
	char text[1200];
	size_t pad, t, r, n, cut;

	for (pad = 0; pad <= 1100; pad++) {
		if (pad == 201)
			pad = 440;     /* the end of the first chunk of blocks */
		if (pad == 581)
			pad = 960;     /* the second */
		if (pad == 1061)
			break;
		/* {"p":"xxx", then a tail: its tokens cross block boundaries */
		for (t = 0; t < COUNT(tails); t++) {
			memcpy(text, "{\"p\":\"", 6);
			memset(text + 6, 'x', pad);
			memcpy(text + 6 + pad, "\",", 2);
			n = 8 + pad;
			memcpy(text + n, tails[t], strlen(tails[t]));
			n += strlen(tails[t]);
			valid_agrees(text, n, "tail", pad * 100 + t);
			if (pad < 72 || (pad > 190 && pad <= 200) || (pad > 490 && pad < 510))
				for (cut = 0; cut < n; cut++)
					valid_agrees(text, cut, "cut", pad * 10000 + t * 1000 + cut);
		}
		/* a run of r backslashes then a quote, in a string at every offset */
		for (r = 0; r <= 6; r++) {
			memcpy(text, "[\"", 2);
			memset(text + 2, 'x', pad);
			memset(text + 2 + pad, '\\', r);
			n = 2 + pad + r;
			memcpy(text + n, "\"]", 2);
			valid_agrees(text, n + 2, "run", pad * 10 + r);      /* valid: r even */
			memcpy(text + n, "\"x\"]", 4);
			valid_agrees(text, n + 4, "run", pad * 10 + r);      /* valid: r odd */
		}
		/* whitespace, then a bare number ending the text, or spaces after */
		memset(text, ' ', pad);
		memcpy(text + pad, "-12.5e3", 7);
		valid_agrees(text, pad + 7, "bare", pad);
		text[pad + 7] = ' ';
		valid_agrees(text, pad + 8, "bare", pad);
		/* a number whose digits run across a block boundary */
		text[0] = '[';
		memset(text + 1, '7', pad + 1);
		memcpy(text + pad + 2, ".25]", 4);
		valid_agrees(text, pad + 6, "digits", pad);
		text[1] = '0';
		valid_agrees(text, pad + 6, "digits", pad);
	}
	free_copy_scan();
}
END_TEST

/* Numbers of every length from 1 to 40 bytes and of every form, inside a
 * long array and at its end, at several offsets: the digit-mask check and
 * fast_number must agree with the reference. */
START_TEST(test_text_valid_numbers)
{
	static const char *const forms[] = { "", "-", "0", "-0", "00", "0.", "-.", ".", "1.", "1.2.",
					     "1e", "1.5e+", "1x", "1-", "1..5", "-1.", "x" };
	char text[256], number[64];
	size_t f, digits, frac, at, n;

	for (f = 0; f < COUNT(forms); f++)
		for (digits = 0; digits <= 34; digits++)
			for (frac = 0; frac <= 4; frac++) {
				n = strlen(forms[f]);
				memcpy(number, forms[f], n);
				memset(number + n, '7', digits);
				n += digits;
				if (frac > 0) {
					number[n++] = '.';
					memset(number + n, '3', frac - 1);
					n += frac - 1;
				}
				for (at = 0; at < 70; at += 23) {
					/* [ "xx...", NUMBER ] and [ "xx...", NUMBER,1] */
					memcpy(text, "[\"", 2);
					memset(text + 2, 'x', at);
					memcpy(text + 2 + at, "\",", 2);
					memcpy(text + 4 + at, number, n);
					text[4 + at + n] = ']';
					valid_agrees(text, 5 + at + n, "number", f * 1000 + digits * 10 + frac);
					memcpy(text + 4 + at + n, ",1]", 3);
					valid_agrees(text, 7 + at + n, "number", f * 1000 + digits * 10 + frac);
					memcpy(text + 4 + at + n, " ]", 2);
					valid_agrees(text, 6 + at + n, "number", f * 1000 + digits * 10 + frac);
				}
			}
	free_copy_scan();
}
END_TEST

/* Event lines as tr-encode sees them, mutated many thousands of times
 * (bytes replaced by special ones or by any byte, deleted, inserted,
 * pieces repeated): the verdicts must stay the reference's. */
START_TEST(test_text_valid_mutations)
{
	static const char *const seeds[] = {
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\",\"pid\":12345,\"tid\":12345,"
		"\"ts\":1428625731456.000,\"dur\":16.725,\"args\":{\"External id\":1,"
		"\"Record function id\":0,\"Sequence number\":0,\"Fwd thread id\":0,\"Ev Idx\":0}}",
		"{\"ph\":\"s\",\"id\":1,\"pid\":12345,\"tid\":12345,\"ts\":1428625731459.100,"
		"\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void k<\\\"a\\\\\\u00e9>(float*, int)\","
		"\"pid\":0,\"tid\":7,\"ts\":1712195495519689.047,\"dur\":-0.5e-3,\"args\":{\"grid\":"
		"[132, 1, 1],\"block\":[128,1,1],\"ok\":true,\"no\":false,\"nil\":null,\"e\":1E+30,"
		"\"d\":\"\\/\\b\\f\\n\\r\\t\"}}",
		" {\n  \"a\" : [ 1 , 2.5 , { \"b\" : [ ] } ] ,\r\n\t\"c\" : \"\xc3\xa9\\\\\" }\n",
	};
	static const char special[] = "{}[]\":,\\ \n\t\r-+.0123456789eEtruefalsnu\x01\x1f\x7f\xff/bx|";
	char text[1024];
	uint32_t rng = 0x1234567u;
	size_t i, k;

	for (i = 0; i < COUNT(seeds); i++)
		valid_agrees(seeds[i], strlen(seeds[i]), "seed", i);
	for (i = 0; i < 60000; i++) {
		const char *seed = seeds[i % COUNT(seeds)];
		size_t len = strlen(seed), edits = 1 + next_rand(&rng) % 4;
		memcpy(text, seed, len);
		for (k = 0; k < edits; k++) { /* seeds are long: len stays above 0 */
			size_t at = next_rand(&rng) % len;
			char c = next_rand(&rng) % 4 == 0 ? (char)next_rand(&rng)
				: special[next_rand(&rng) % (sizeof special - 1)];
			switch (next_rand(&rng) % 4) {
			case 0:
				text[at] = c;
				break;
			case 1:
				memmove(text + at, text + at + 1, len - at - 1);
				len--;
				break;
			case 2:
				if (len < sizeof text) {
					memmove(text + at + 1, text + at, len - at);
					text[at] = c;
					len++;
				}
				break;
			default: {
				/* repeat a piece: shifts everything after it */
				size_t from = next_rand(&rng) % len, n = 1 + next_rand(&rng) % 40;
				if (from + n > len)
					n = len - from;
				if (len + n <= sizeof text) {
					memmove(text + at + n, text + at, len - at);
					memmove(text + at, text + (from >= at ? from + n : from), n);
					len += n;
				}
			}
			}
		}
		valid_agrees(text, len, "mutation", i);
	}
	/* both verdicts, many times; values vouched for often */
	ck_assert_uint_gt(agree_valid, 5000);
	ck_assert_uint_gt(agree_invalid, 20000);
	ck_assert_uint_gt(members_exact, 3000);
	free_copy_scan();
}
END_TEST

/* ---- scan_value_into on the whitespace styles of real traces ---- */
enum style { STYLE_NONE, STYLE_PYTHON, STYLE_INDENT, STYLE_MIXED, NSTYLE };

/* A minified text written again in a style: none (as tr-encode writes),
 * Python json.dumps's default (", " and ": "), json.dumps(indent=2)
 * (a line per member or element), or tabs, CRs and LFs drawn by rng
 * between all tokens.  Whitespace inside strings is left alone. */
static size_t restyle(const char *in, size_t len, char *out, enum style style, uint32_t *rng)
{
	static const char *const mixed[] = { "", " ", "\t", "\r\n", "\n", " \t\r", "\n\n  " };
	size_t i, n = 0, d;
	unsigned depth = 0;
	int in_string = 0, escaped = 0;

	for (i = 0; i < len; i++) {
		char c = in[i];
		const char *ws = "";
		if (in_string) {
			out[n++] = c;
			if (escaped)
				escaped = 0;
			else if (c == '\\')
				escaped = 1;
			else if (c == '"')
				in_string = 0;
			continue;
		}
		if (style == STYLE_INDENT && (c == '}' || c == ']') && depth > 0) {
			depth--;
			if (i > 0 && in[i - 1] != '{' && in[i - 1] != '[') {
				out[n++] = '\n';
				for (d = 0; d < 2 * depth; d++)
					out[n++] = ' ';
			}
		}
		out[n++] = c;
		if (c == '"')
			in_string = 1;
		if (style == STYLE_PYTHON)
			ws = c == ',' || c == ':' ? " " : "";
		else if (style == STYLE_MIXED)
			ws = mixed[next_rand(rng) % COUNT(mixed)];
		else if (style == STYLE_INDENT) {
			if (c == ':')
				ws = " ";
			if (c == '{' || c == '[')
				depth++;
			if (((c == '{' || c == '[') && i + 1 < len && in[i + 1] != '}' && in[i + 1] != ']') ||
			    c == ',') {
				out[n++] = '\n';
				for (d = 0; d < 2 * depth; d++)
					out[n++] = ' ';
			}
		}
		memcpy(out + n, ws, strlen(ws));
		n += strlen(ws);
	}
	return n;
}

static const char *const event_seeds[] = {
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\",\"pid\":12345,\"tid\":12345,"
	"\"ts\":1428625731456.000,\"dur\":16.725,\"args\":{\"External id\":1,"
	"\"Record function id\":0,\"Sequence number\":0,\"Fwd thread id\":0,\"Ev Idx\":0}}",
	"{\"ph\":\"s\",\"id\":1,\"pid\":12345,\"tid\":12345,\"ts\":1428625731459.100,"
	"\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void k<\\\"a\\\\\\u00e9>(float*, int)\","
	"\"pid\":0,\"tid\":7,\"ts\":1712195495519689.047,\"dur\":-0.5e-3,\"args\":{\"grid\":"
	"[132,1,1],\"block\":[128,1,1],\"ok\":true,\"no\":false,\"nil\":null,\"e\":1E+30,"
	"\"d\":\"\\/\\b\\f\\n\\r\\t\",\"x\":[[],{},[{}],{\"y\":[0]}]}}",
	"[{\"a\":[1,2.5,{\"b\":[]}]},\"\xc3\xa9\\\\\",-0,0.5e-10]",
};

/* Each seed in each style, followed by each trailer, and thousands of
 * mutations of them (bytes replaced, deleted, inserted): scan_value_into
 * gives the reference's verdict, bytes and end every time. */
START_TEST(test_copy_styles)
{
	static const char alphabet[] = "{}[]\":,\\ \n\t\r-+.0123456789eEtruefalsnu\x01\x7f\xff/bx";
	static const char styles_in[] = "{\"a\":[1,{\"b\":\"x, y: z\"}],\"c\":{}}";
	char styled[2048], text[2048];
	uint32_t rng = 0x6A09E667u;
	size_t i, len;
	unsigned st;

	for (i = 0; i < COUNT(event_seeds); i++)
		for (st = 0; st < NSTYLE; st++) {
			size_t t;
			len = restyle(event_seeds[i], strlen(event_seeds[i]), styled, (enum style)st, &rng);
			for (t = 0; t < COUNT(trailers); t++)
				copy_agrees_trailed(styled, len, "style", i * 100 + st * 20 + t);
		}
	/* the styles themselves: what json.dumps writes */
	len = restyle(styles_in, strlen(styles_in), styled, STYLE_INDENT, &rng);
	ck_assert_uint_eq(len, 67);
	ck_assert_mem_eq(styled, "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x, y: z\"\n    }\n  ],\n"
			 "  \"c\": {}\n}", len);
	len = restyle(styles_in, strlen(styles_in), styled, STYLE_PYTHON, &rng);
	ck_assert_uint_eq(len, 37);
	ck_assert_mem_eq(styled, "{\"a\": [1, {\"b\": \"x, y: z\"}], \"c\": {}}", len);
	for (i = 0; i < 40000; i++) {
		const char *seed = event_seeds[i % COUNT(event_seeds)];
		len = restyle(seed, strlen(seed), styled, (enum style)(i / COUNT(event_seeds) % NSTYLE),
			      &rng);
		memcpy(text, styled, len);
		len = mutate_text(text, len, sizeof text, alphabet, sizeof alphabet - 1, &rng);
		copy_agrees_trailed(text, len, "mutation", i);
	}
	free_copy_scan();
	/* both ways, many times */
	ck_assert_uint_gt(copy_yes, 10000);
	ck_assert_uint_gt(copy_no, 10000);
}
END_TEST

/* Values longer than the input the fast path reserves room for (256 KiB):
 * the slow path takes them, with the same result. */
START_TEST(test_fast_path_long_values)
{
	size_t n = 300u << 10, i;
	char *data = malloc(n + 64);
	struct scan s;
	struct feeder f;
	struct buf out = BUF_INIT;

	ck_assert_ptr_nonnull(data);
	/* {"a": "xxx...", "b": [1, 2]}: one long string, whitespace kept out */
	memcpy(data, "{\"a\": \"", 7);
	for (i = 7; i < n; i++)
		data[i] = 'x';
	memcpy(data + n, "\", \"b\": [1, 2]}", 15);
	scan_both(data, n + 15, 1 << 20);
	scan_both(data, n + 14, 1 << 20);         /* truncated */
	scan_both(data, n + 15, (300u << 10) - 1); /* over the size limit */
	free_scanners();
	feeder_init(&f, data, n + 15, SERVE_WHOLE);
	ck_assert_int_eq(scan_init(&s, feed_read, &f, 1 << 20), SCAN_OK);
	ck_assert_int_eq(scan_value(&s, &out), SCAN_OK);
	ck_assert_uint_eq(out.len, n + 15 - 4);   /* four spaces removed */
	ck_assert_mem_eq(out.p + n - 2, "x\",\"b\":[1,2]}", 13);
	scan_free(&s);
	buf_release(&out);
	free(data);
}
END_TEST

static Suite *scan_suite(void)
{
	Suite *s = suite_create("scan");
	TCase *values = tcase_create("values");
	TCase *errors = tcase_create("errors");
	TCase *limits = tcase_create("limits");
	TCase *api = tcase_create("api");

	tcase_add_loop_test(values, test_minify, 0, (int)COUNT(minify_cases));
	tcase_add_loop_test(values, test_all_string_bytes, 0, NSERVE);
	tcase_set_timeout(values, 60);  /* 40 000 scans, slow under ASan */
	tcase_add_test(values, test_fast_path_agrees);
	tcase_add_test(values, test_fast_path_long_values);
	tcase_add_test(values, test_text_valid);
	tcase_add_test(values, test_text_valid_corners);
	tcase_add_test(values, test_text_valid_blocks);
	tcase_add_test(values, test_text_valid_numbers);
	tcase_add_test(values, test_text_valid_mutations);
	tcase_add_test(values, test_copy_styles);
	suite_add_tcase(s, values);

	tcase_set_timeout(errors, 60);
	tcase_add_loop_test(errors, test_errors, 0, (int)COUNT(error_cases));
	tcase_add_loop_test(errors, test_every_prefix_is_eof, 0, NSERVE);
	tcase_add_loop_test(errors, test_read_error_everywhere, 0, NSERVE);
	tcase_add_test(errors, test_peek_read_error);
	suite_add_tcase(s, errors);

	tcase_set_timeout(limits, 120);
	tcase_add_loop_test(limits, test_max_value, 0, NSERVE);
	tcase_add_loop_test(limits, test_max_value_each_kind, 0, NSERVE);
	tcase_add_test(limits, test_max_value_offset_stable);
	tcase_add_loop_test(limits, test_max_value_string_offset, 0, NSERVE);
	tcase_add_loop_test(limits, test_deep_arrays, 0, NSERVE);
	tcase_add_loop_test(limits, test_too_deep, 0, NSERVE);
	tcase_add_loop_test(limits, test_deep_objects, 0, NSERVE);
	suite_add_tcase(s, limits);

	tcase_add_loop_test(api, test_sequence, 0, NSERVE);
	tcase_add_loop_test(api, test_scan_string, 0, NSERVE);
	tcase_add_loop_test(api, test_peek_skip, 0, NSERVE);
	tcase_add_test(api, test_scan_fail);
	suite_add_tcase(s, api);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(scan_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
