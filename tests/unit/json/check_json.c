/* Unit tests for common/json/json.c: tokenizing (struct jdoc) and access (find with
 * escaped names, next, raw, text, str_eq, int64) and the string escaping
 * and unescaping that jsmn leaves to us. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1

static void parse_ok(struct jdoc *d, const char *js)
{
	int nomem = -1;

	ck_assert_msg(json_parse(d, js, strlen(js), &nomem) == 0, "rejected: %s", js);
	ck_assert_int_eq(nomem, 0);
}

/* ---- json_parse ---- */

static const char *const rejected_docs[] = {
	"{}{}",
	"[][]",
	"{\"a\":1}{\"b\":2}",
	"[1] 2",
	"{\"a\":1}}",
	"",
	"{",
	"{\"a\":",
	"[1,2",
	"{\"a\" 1}",
	"[\"a\\x\"]",
	"x",
};

START_TEST(test_parse_rejects)
{
	struct jdoc d = JDOC_INIT;
	const char *js = rejected_docs[_i];
	int nomem = -1;

	ck_assert_msg(json_parse(&d, js, strlen(js), &nomem) == -1, "accepted: %s", js);
	ck_assert_int_eq(nomem, 0);
	ck_assert_int_eq(d.ntok, 0);
	json_free(&d);
}
END_TEST

START_TEST(test_parse_types_sizes)
{
	struct jdoc d = JDOC_INIT;

	parse_ok(&d, "{\"a\":[1,{\"b\":2}],\"c\":\"x\",\"t\":true,\"n\":null}");
	ck_assert_int_eq(d.ntok, 13);
	ck_assert_int_eq(json_type(&d, 0), JT_OBJECT);
	ck_assert_int_eq(json_size(&d, 0), 4);
	ck_assert_int_eq(json_type(&d, 1), JT_STRING);
	ck_assert_int_eq(json_type(&d, 2), JT_ARRAY);
	ck_assert_int_eq(json_size(&d, 2), 2);
	ck_assert_int_eq(json_type(&d, 3), JT_PRIMITIVE);
	ck_assert_int_eq(json_type(&d, 4), JT_OBJECT);
	ck_assert_int_eq(json_size(&d, 4), 1);
	ck_assert_int_eq(json_type(&d, 8), JT_STRING);
	ck_assert_int_eq(json_type(&d, 10), JT_PRIMITIVE);
	ck_assert_int_eq(json_type(&d, 12), JT_PRIMITIVE);
	/* outside the document */
	ck_assert_int_eq(json_type(&d, -1), JT_UNDEFINED);
	ck_assert_int_eq(json_type(&d, 13), JT_UNDEFINED);
	json_free(&d);
	json_free(&d);  /* safe twice */
}
END_TEST

/* More tokens than the first allocation: the array grows and jsmn reruns. */
START_TEST(test_parse_many_tokens)
{
	struct jdoc d = JDOC_INIT;
	struct buf js = BUF_INIT;
	int i;

	ck_assert_int_eq(buf_addch(&js, '['), 0);
	for (i = 0; i < 5000; i++)
		ck_assert_int_eq(buf_printf(&js, "%s{\"i\":%d}", i ? "," : "", i), 0);
	ck_assert_int_eq(buf_addch(&js, ']'), 0);
	parse_ok(&d, js.p);
	ck_assert_int_eq(d.ntok, 1 + 5000 * 3);
	ck_assert_int_eq(json_size(&d, 0), 5000);
	{
		int64_t v = -1;
		int last = 1 + 4999 * 3;
		ck_assert_int_eq(json_find(&d, last, "i"), last + 2);
		ck_assert_int_eq(json_int64(&d, last + 2, &v), 0);
		ck_assert_int_eq(v, 4999);
	}
	/* the same jdoc parses another text (the tokens are reused) */
	parse_ok(&d, "{\"k\":1}");
	ck_assert_int_eq(d.ntok, 3);
	json_free(&d);
	buf_release(&js);
}
END_TEST

/* A failed parse leaves no tokens visible from the previous one. */
START_TEST(test_parse_failure_resets)
{
	struct jdoc d = JDOC_INIT;

	parse_ok(&d, "{\"k\":1}");
	ck_assert_int_eq(json_parse(&d, S("{}{}"), NULL), -1);
	ck_assert_int_eq(d.ntok, 0);
	ck_assert_int_eq(json_type(&d, 0), JT_UNDEFINED);
	ck_assert_int_eq(json_find(&d, 0, "k"), -1);
	json_free(&d);
}
END_TEST

/* ---- navigation ---- */

START_TEST(test_next)
{
	struct jdoc d = JDOC_INIT;

	/* 0 {  1 "a"  2 [  3 1  4 {  5 "b"  6 2  7 "c"  8 "x"  9 "e"  10 [] */
	parse_ok(&d, "{\"a\":[1,{\"b\":2}],\"c\":\"x\",\"e\":[]}");
	ck_assert_int_eq(d.ntok, 11);
	ck_assert_int_eq(json_next(&d, 0), 11);
	ck_assert_int_eq(json_next(&d, 1), 2);
	ck_assert_int_eq(json_next(&d, 2), 7);
	ck_assert_int_eq(json_next(&d, 3), 4);
	ck_assert_int_eq(json_next(&d, 4), 7);
	ck_assert_int_eq(json_next(&d, 6), 7);
	ck_assert_int_eq(json_next(&d, 7), 8);
	ck_assert_int_eq(json_next(&d, 8), 9);
	ck_assert_int_eq(json_next(&d, 10), 11);
	json_free(&d);
}
END_TEST

/* Empty strings and empty containers have no children to skip. */
START_TEST(test_next_empty)
{
	struct jdoc d = JDOC_INIT;

	/* 0 [  1 ""  2 {}  3 []  4 ""  5 [  6 [] */
	parse_ok(&d, "[\"\",{},[],\"\",[[]]]");
	ck_assert_int_eq(d.ntok, 7);
	ck_assert_int_eq(json_next(&d, 1), 2);
	ck_assert_int_eq(json_next(&d, 2), 3);
	ck_assert_int_eq(json_next(&d, 3), 4);
	ck_assert_int_eq(json_next(&d, 4), 5);
	ck_assert_int_eq(json_next(&d, 5), 7);
	ck_assert_int_eq(json_next(&d, 0), 7);
	json_free(&d);
}
END_TEST

START_TEST(test_find)
{
	struct jdoc d = JDOC_INIT;
	size_t n;
	const char *t;

	/* members: 1 "n\u0061me"  3 "a\"b"  5 "x\\y"  7 "\u00e9"  9 "name"
	 * 11 "o" {13 "k" 14}  15 "k"  17 "v"  19 "\/" */
	parse_ok(&d, "{\"n\\u0061me\":1,\"a\\\"b\":2,\"x\\\\y\":3,\"\\u00e9\":4,\"name\":5,"
		     "\"o\":{\"k\":6},\"k\":7,\"v\":\"k\",\"\\/\":8}");
	ck_assert_int_eq(json_find(&d, 0, "name"), 2);   /* the first match */
	ck_assert_int_eq(json_find(&d, 0, "a\"b"), 4);
	ck_assert_int_eq(json_find(&d, 0, "x\\y"), 6);
	ck_assert_int_eq(json_find(&d, 0, "\xc3\xa9"), 8);
	ck_assert_int_eq(json_find(&d, 0, "o"), 12);
	ck_assert_int_eq(json_find(&d, 0, "k"), 16);     /* not the nested one */
	ck_assert_int_eq(json_find(&d, 12, "k"), 14);
	ck_assert_int_eq(json_find(&d, 0, "/"), 20);
	t = json_text(&d, json_find(&d, 0, "k"), &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(t[0], '7');
	/* absent names, names that are only values, escapes not resolved */
	ck_assert_int_eq(json_find(&d, 0, "missing"), -1);
	ck_assert_int_eq(json_find(&d, 0, "n\\u0061me"), -1);
	ck_assert_int_eq(json_find(&d, 0, "nam"), -1);
	ck_assert_int_eq(json_find(&d, 0, "names"), -1);
	ck_assert_int_eq(json_find(&d, 0, ""), -1);
	/* not an object */
	ck_assert_int_eq(json_find(&d, 1, "name"), -1);
	ck_assert_int_eq(json_find(&d, 2, "name"), -1);
	ck_assert_int_eq(json_find(&d, 99, "name"), -1);
	json_free(&d);

	parse_ok(&d, "{\"a\":\"b\",\"c\":[\"d\"]}");
	ck_assert_int_eq(json_find(&d, 0, "b"), -1);
	ck_assert_int_eq(json_find(&d, 0, "d"), -1);
	ck_assert_int_eq(json_find(&d, 0, "c"), 4);
	json_free(&d);

	parse_ok(&d, "{}");
	ck_assert_int_eq(json_find(&d, 0, "a"), -1);
	json_free(&d);

	parse_ok(&d, "[{\"a\":1}]");
	ck_assert_int_eq(json_find(&d, 0, "a"), -1);
	ck_assert_int_eq(json_find(&d, 1, "a"), 3);
	json_free(&d);
}
END_TEST

/* ---- text, raw, offsets ---- */

START_TEST(test_text_raw)
{
	struct jdoc d = JDOC_INIT;
	const char *js = "{\"s\":\"a\\\"b\",\"n\":-1.5e3,\"o\":{\"x\":[]},\"e\":\"\"}";
	const char *p;
	size_t n;

	parse_ok(&d, js);
	/* 1 "s"  2 "a\"b"  3 "n"  4 -1.5e3  5 "o"  6 {...}  7 "x"  8 []  9 "e"  10 "" */
	p = json_text(&d, 2, &n);
	ck_assert_uint_eq(n, 4);
	ck_assert_mem_eq(p, "a\\\"b", 4);
	p = json_raw(&d, 2, &n);
	ck_assert_uint_eq(n, 6);
	ck_assert_mem_eq(p, "\"a\\\"b\"", 6);
	ck_assert_uint_eq(json_raw_offset(&d, 2), 5);
	ck_assert_ptr_eq(p, js + 5);

	p = json_raw(&d, 4, &n);
	ck_assert_uint_eq(n, 6);
	ck_assert_mem_eq(p, "-1.5e3", 6);
	ck_assert_uint_eq(json_raw_offset(&d, 4), 16);
	p = json_text(&d, 4, &n);
	ck_assert_uint_eq(n, 6);

	p = json_raw(&d, 6, &n);
	ck_assert_uint_eq(n, 8);
	ck_assert_mem_eq(p, "{\"x\":[]}", 8);
	ck_assert_uint_eq(json_raw_offset(&d, 6), 27);

	p = json_raw(&d, 10, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_mem_eq(p, "\"\"", 2);
	p = json_text(&d, 10, &n);
	ck_assert_uint_eq(n, 0);

	p = json_raw(&d, 0, &n);
	ck_assert_uint_eq(n, strlen(js));
	ck_assert_ptr_eq(p, js);
	ck_assert_uint_eq(json_raw_offset(&d, 0), 0);
	json_free(&d);
}
END_TEST

START_TEST(test_str_eq)
{
	struct jdoc d = JDOC_INIT;

	/* 1 "plain"  2 1  3 "esc"  4 "\u0041\n"  5 "e"  6 ""  7 "num"  8 "12" */
	parse_ok(&d, "{\"plain\":1,\"esc\":\"\\u0041\\n\",\"e\":\"\",\"num\":\"12\"}");
	ck_assert_int_eq(json_str_eq(&d, 1, "plain"), 1);
	ck_assert_int_eq(json_str_eq(&d, 1, "plai"), 0);
	ck_assert_int_eq(json_str_eq(&d, 1, "plainx"), 0);
	ck_assert_int_eq(json_str_eq(&d, 2, "1"), 0);      /* a number is no string */
	ck_assert_int_eq(json_str_eq(&d, 0, ""), 0);
	ck_assert_int_eq(json_str_eq(&d, 4, "A\n"), 1);
	ck_assert_int_eq(json_str_eq(&d, 4, "\\u0041\\n"), 0);
	ck_assert_int_eq(json_str_eq(&d, 4, "A"), 0);
	ck_assert_int_eq(json_str_eq(&d, 6, ""), 1);
	ck_assert_int_eq(json_str_eq(&d, 6, "x"), 0);
	ck_assert_int_eq(json_str_eq(&d, 8, "12"), 1);
	ck_assert_int_eq(json_str_eq(&d, 99, ""), 0);
	json_free(&d);
}
END_TEST

/* json_str_eq against the plain rule (no backslash: byte for byte; else
 * unescaped, then byte for byte) for texts with escapes anywhere, of every
 * length around the keys'. */
static int str_eq_plain(const char *text, size_t n, const char *s)
{
	struct buf tmp = BUF_INIT;
	int eq;

	if (memchr(text, '\\', n) == NULL)
		return n == strlen(s) && memcmp(text, s, n) == 0;
	eq = json_unescape(text, n, &tmp) == 0 && tmp.len == strlen(s) &&
	     memcmp(tmp.p, s, tmp.len) == 0;
	buf_release(&tmp);
	return eq;
}

START_TEST(test_str_eq_escapes)
{
	static const char *const texts[] = { "pass", "p\\u0061ss", "pas\\u0073", "\\u0070ass",
		"\\u0070\\u0061\\u0073\\u0073", "pa\\\\s", "a\\\"b", "\\ud83d\\ude00", "\\ud83d", "\\n", "", "x",
		"passx", "\\/pass", "\\u00e9", "pa\\u005cs", "p\\u0061s", "\\\\", "pas" };
	static const char *const keys[] = { "pass", "pa\\s", "p", "", "\xf0\x9f\x98\x80",
		"\xed\xa0\xbd", "\n", "/pass", "a\"b", "pa\\\\s", "\xc3\xa9", "x", "pas", "\\" };
	struct jdoc d = JDOC_INIT;
	struct buf js = BUF_INIT;
	size_t t, k;
	int matches = 0;

	for (t = 0; t < sizeof texts / sizeof texts[0]; t++) {
		buf_reset(&js);
		ck_assert_int_eq(buf_printf(&js, "[\"%s\"]", texts[t]), 0);
		ck_assert_int_eq(json_parse(&d, js.p, js.len, NULL), 0);
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			int want = str_eq_plain(texts[t], strlen(texts[t]), keys[k]);
			ck_assert_msg(json_str_eq(&d, 1, keys[k]) == want, "text %s key %s", texts[t],
				      keys[k]);
			matches += want;
		}
	}
	/* "pass" five times, "pa" backslash "s" twice, a"b, the emoji, the lone
	 * surrogate (as UTF-8 would have it), a line feed, "", x, /pass,
	 * e-acute, "pas" twice, a backslash; passx and the key with two
	 * backslashes none */
	ck_assert_int_eq(matches, 18);
	buf_release(&js);
	json_free(&d);
}
END_TEST

START_TEST(test_unescape_token)
{
	struct jdoc d = JDOC_INIT;
	struct buf out = BUF_INIT;

	parse_ok(&d, "[\"a\\tb\\u00e9\",\"\"]");
	ck_assert_int_eq(json_token_unescape(&d, 1, &out), 0);
	ck_assert_str_eq(out.p, "a\tb\xc3\xa9");
	ck_assert_int_eq(json_token_unescape(&d, 2, &out), 0);
	ck_assert_str_eq(out.p, "a\tb\xc3\xa9");
	json_free(&d);
	buf_release(&out);
}
END_TEST

/* ---- json_int64 ---- */

struct int_case {
	const char *doc;
	int rc;
	int64_t value;
};

static const struct int_case int_cases[] = {
	{ "[123]", 0, 123 },
	{ "[0]", 0, 0 },
	{ "[-0]", 0, 0 },
	{ "[-42]", 0, -42 },
	{ "[9223372036854775807]", 0, INT64_MAX },
	{ "[-9223372036854775808]", 0, INT64_MIN },
	{ "[9223372036854775808]", -1, 0 },
	{ "[-9223372036854775809]", -1, 0 },
	{ "[1.5]", -1, 0 },
	{ "[1.0]", -1, 0 },
	{ "[1e3]", -1, 0 },
	{ "[true]", -1, 0 },
	{ "[null]", -1, 0 },
	{ "[\"12\"]", -1, 0 },
	{ "[[1]]", -1, 0 },
	{ "[{}]", -1, 0 },
};

START_TEST(test_int64)
{
	const struct int_case *c = &int_cases[_i];
	struct jdoc d = JDOC_INIT;
	int64_t v = 777;

	parse_ok(&d, c->doc);
	ck_assert_int_eq(json_int64(&d, 1, &v), c->rc);
	ck_assert_int_eq(v, c->rc == 0 ? c->value : 777);
	json_free(&d);
}
END_TEST

/* ---- json_unescape ---- */

struct unescape_case {
	const char *in;
	size_t in_len;
	int rc;
	const char *out;  /* appended after "pre" */
	size_t out_len;
};

static const struct unescape_case unescape_cases[] = {
	{ S(""), 0, S("") },
	{ S("abc"), 0, S("abc") },
	{ S("\\\"\\\\\\/\\b\\f\\n\\r\\t"), 0, S("\"\\/\b\f\n\r\t") },
	{ S("x\\ny"), 0, S("x\ny") },
	{ S("\\u0041"), 0, S("A") },
	{ S("\\u00e9"), 0, S("\xc3\xa9") },
	{ S("\\u00E9"), 0, S("\xc3\xa9") },
	{ S("\\u0000"), 0, S("\0") },
	{ S("\\u007f\\u0080"), 0, S("\x7f\xc2\x80") },
	{ S("\\u07ff\\u0800"), 0, S("\xdf\xbf\xe0\xa0\x80") },
	{ S("\\u20AC"), 0, S("\xe2\x82\xac") },
	{ S("\\uFFFF"), 0, S("\xef\xbf\xbf") },
	/* surrogate pairs combine */
	{ S("\\uD83D\\uDE00"), 0, S("\xf0\x9f\x98\x80") },
	{ S("\\ud83d\\ude00"), 0, S("\xf0\x9f\x98\x80") },
	{ S("\\uD800\\uDC00"), 0, S("\xf0\x90\x80\x80") },
	{ S("\\uDBFF\\uDFFF"), 0, S("\xf4\x8f\xbf\xbf") },
	{ S("a\\uD83D\\uDE00b"), 0, S("a\xf0\x9f\x98\x80" "b") },
	/* lone surrogates keep their three-byte form */
	{ S("\\uD83D"), 0, S("\xed\xa0\xbd") },
	{ S("\\uD83Dx"), 0, S("\xed\xa0\xbdx") },
	{ S("\\uD83D\\u0041"), 0, S("\xed\xa0\xbd" "A") },
	{ S("\\uD83D\\n"), 0, S("\xed\xa0\xbd\n") },
	{ S("\\uDE00"), 0, S("\xed\xb8\x80") },
	{ S("\\uDE00\\uD83D"), 0, S("\xed\xb8\x80\xed\xa0\xbd") },
	{ S("\\uD83D\\uD83D\\uDE00"), 0, S("\xed\xa0\xbd\xf0\x9f\x98\x80") },
	/* bytes >= 0x80 and invalid UTF-8 pass through */
	{ S("\xff\xc3\x28"), 0, S("\xff\xc3\x28") },
	/* malformed escapes */
	{ S("\\"), -1, S("") },
	{ S("abc\\"), -1, S("abc") },
	{ S("\\x"), -1, S("") },
	{ S("\\'"), -1, S("") },
	{ S("\\U0041"), -1, S("") },
	{ S("\\u"), -1, S("") },
	{ S("\\u12"), -1, S("") },
	{ S("\\u12G4"), -1, S("") },
	{ S("\\u 123"), -1, S("") },
	{ S("\\uD83D\\"), -1, S("\xed\xa0\xbd") },
	{ S("\\uD83D\\uDE0"), -1, S("\xed\xa0\xbd") },
	{ S("\\uD83D\\uZZZZ"), -1, S("\xed\xa0\xbd") },
};

START_TEST(test_unescape)
{
	const struct unescape_case *c = &unescape_cases[_i];
	struct buf out = BUF_INIT;

	ck_assert_int_eq(buf_addstr(&out, "pre"), 0);
	ck_assert_int_eq(json_unescape(c->in, c->in_len, &out), c->rc);
	if (c->rc == 0) {
		ck_assert_uint_eq(out.len, 3 + c->out_len);
		ck_assert_mem_eq(out.p, "pre", 3);
		ck_assert_mem_eq(out.p + 3, c->out, c->out_len);
	} else {
		/* what came before the bad escape may have been appended */
		ck_assert_uint_le(out.len, 3 + c->out_len);
		ck_assert_mem_eq(out.p, "pre", 3);
	}
	ck_assert_int_eq(out.p[out.len], '\0');
	buf_release(&out);
}
END_TEST

/* The text is read by length, never past it. */
START_TEST(test_unescape_bounded)
{
	struct buf out = BUF_INIT;

	/* "\u0041" cut after 4 bytes, with valid hex digits after the cut */
	ck_assert_int_eq(json_unescape("\\u0041", 4, &out), -1);
	buf_reset(&out);
	/* a pair cut before its low half */
	ck_assert_int_eq(json_unescape("\\uD83D\\uDE00", 6, &out), 0);
	ck_assert_uint_eq(out.len, 3);
	ck_assert_mem_eq(out.p, "\xed\xa0\xbd", 3);
	buf_reset(&out);
	ck_assert_int_eq(json_unescape("ab\\n", 2, &out), 0);
	ck_assert_str_eq(out.p, "ab");
	buf_release(&out);
}
END_TEST

/* ---- json_escape ---- */

START_TEST(test_escape_basic)
{
	struct buf out = BUF_INIT;

	ck_assert_int_eq(json_escape(&out, "", 0), 0);
	ck_assert_str_eq(out.p, "\"\"");
	buf_reset(&out);
	ck_assert_int_eq(json_escape(&out, S("a\"b\\c/d")), 0);
	ck_assert_str_eq(out.p, "\"a\\\"b\\\\c/d\"");
	buf_reset(&out);
	ck_assert_int_eq(json_escape(&out, S("\b\f\n\r\t")), 0);
	ck_assert_str_eq(out.p, "\"\\b\\f\\n\\r\\t\"");
	buf_reset(&out);
	ck_assert_int_eq(json_escape(&out, S("\x00\x01\x1f\x7f")), 0);
	ck_assert_uint_eq(out.len, 2 + 18 + 1);
	ck_assert_str_eq(out.p, "\"\\u0000\\u0001\\u001f\x7f\"");
	buf_reset(&out);
	/* bytes >= 0x80, valid UTF-8 or not, pass unchanged */
	ck_assert_int_eq(json_escape(&out, S("\xc3\xa9\xff\x80")), 0);
	ck_assert_str_eq(out.p, "\"\xc3\xa9\xff\x80\"");
	buf_reset(&out);
	/* appends */
	ck_assert_int_eq(buf_addstr(&out, "x="), 0);
	ck_assert_int_eq(json_escape(&out, S("tr-decode")), 0);
	ck_assert_str_eq(out.p, "x=\"tr-decode\"");
	buf_release(&out);
}
END_TEST

/* Every control byte: its exact escape. */
START_TEST(test_escape_control)
{
	static const char hex[] = "0123456789abcdef";
	int c = _i;
	char in[3] = { 'a', (char)c, 'z' }, want[16];
	struct buf out = BUF_INIT;

	ck_assert_int_eq(json_escape(&out, in, 3), 0);
	switch (c) {
	case '\b': strcpy(want, "\"a\\bz\""); break;
	case '\f': strcpy(want, "\"a\\fz\""); break;
	case '\n': strcpy(want, "\"a\\nz\""); break;
	case '\r': strcpy(want, "\"a\\rz\""); break;
	case '\t': strcpy(want, "\"a\\tz\""); break;
	default:
		snprintf(want, sizeof want, "\"a\\u00%c%cz\"", hex[c >> 4], hex[c & 15]);
	}
	ck_assert_str_eq(out.p, want);
	buf_release(&out);
}
END_TEST

/* escape then unescape gives back every byte string. */
START_TEST(test_escape_round_trip)
{
	char in[256];
	struct buf esc = BUF_INIT, back = BUF_INIT;
	int i;

	for (i = 0; i < 256; i++)
		in[i] = (char)(255 - i);
	ck_assert_int_eq(json_escape(&esc, in, sizeof in), 0);
	ck_assert_int_eq(esc.p[0], '"');
	ck_assert_int_eq(esc.p[esc.len - 1], '"');
	ck_assert_int_eq(json_unescape(esc.p + 1, esc.len - 2, &back), 0);
	ck_assert_uint_eq(back.len, sizeof in);
	ck_assert_mem_eq(back.p, in, sizeof in);
	/* and the escaped form is a JSON document jsmn accepts */
	{
		struct jdoc d = JDOC_INIT;
		struct buf arr = BUF_INIT;
		ck_assert_int_eq(buf_addch(&arr, '['), 0);
		ck_assert_int_eq(buf_add(&arr, esc.p, esc.len), 0);
		ck_assert_int_eq(buf_addch(&arr, ']'), 0);
		parse_ok(&d, arr.p);
		ck_assert_int_eq(json_type(&d, 1), JT_STRING);
		buf_reset(&back);
		ck_assert_int_eq(json_token_unescape(&d, 1, &back), 0);
		ck_assert_mem_eq(back.p, in, sizeof in);
		json_free(&d);
		buf_release(&arr);
	}
	buf_release(&esc);
	buf_release(&back);
}
END_TEST

START_TEST(test_hex_digit)
{
	int c;

	for (c = 0; c < 256; c++) {
		int want = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			   c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		ck_assert_int_eq(json_hex_digit(c), want);
	}
	ck_assert_int_eq(json_hex_digit('f'), 15);
	ck_assert_int_eq(json_hex_digit('G'), -1);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *parse = tcase_create("parse");
	TCase *access = tcase_create("access");
	TCase *strings = tcase_create("strings");

	tcase_add_loop_test(parse, test_parse_rejects, 0, (int)COUNT(rejected_docs));
	tcase_add_test(parse, test_parse_types_sizes);
	tcase_add_test(parse, test_parse_many_tokens);
	tcase_add_test(parse, test_parse_failure_resets);
	suite_add_tcase(s, parse);

	tcase_add_test(access, test_next);
	tcase_add_test(access, test_next_empty);
	tcase_add_test(access, test_find);
	tcase_add_test(access, test_text_raw);
	tcase_add_test(access, test_str_eq);
	tcase_add_test(access, test_str_eq_escapes);
	tcase_add_test(access, test_unescape_token);
	tcase_add_loop_test(access, test_int64, 0, (int)COUNT(int_cases));
	suite_add_tcase(s, access);

	tcase_add_loop_test(strings, test_unescape, 0, (int)COUNT(unescape_cases));
	tcase_add_test(strings, test_unescape_bounded);
	tcase_add_test(strings, test_escape_basic);
	tcase_add_loop_test(strings, test_escape_control, 0, 0x20);
	tcase_add_test(strings, test_escape_round_trip);
	tcase_add_test(strings, test_hex_digit);
	suite_add_tcase(s, strings);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(json_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
