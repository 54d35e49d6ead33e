#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS  /* closing brackets in O(depth), not a backward scan */
#include <jsmn.h>

#include "json/json.h"
#include "json/tsnum.h"

#define TOK(d) ((jsmntok_t *)(d)->tok)

int json_parse(struct jdoc *d, const char *js, size_t len, int *nomem)
{
	jsmn_parser parser;
	int rc;

	if (nomem)
		*nomem = 0;
	d->js = js;
	d->len = len;
	d->ntok = 0;
	if (len >= INT_MAX / 2)
		return -1;
	if (d->cap == 0) {
		d->cap = 256;
		d->tok = malloc(d->cap * sizeof(jsmntok_t));
		if (d->tok == NULL) {
			d->cap = 0;
			goto out_of_memory;
		}
	}
	for (;;) {
		jsmntok_t *grown;
		jsmn_init(&parser);
		rc = jsmn_parse(&parser, js, len, TOK(d), d->cap);
		if (rc >= 0)
			break;
		if (rc != JSMN_ERROR_NOMEM)
			return -1;
		if (d->cap > UINT_MAX / 2 / sizeof(jsmntok_t))
			goto out_of_memory;
		grown = realloc(d->tok, 2 * d->cap * sizeof(jsmntok_t));
		if (grown == NULL)
			goto out_of_memory;
		d->tok = grown;
		d->cap *= 2;
	}
	/* One value spanning the whole text: jsmn alone accepts "{}{}". */
	if (rc == 0 || (size_t)TOK(d)[0].end != len || TOK(d)[0].start != 0)
		return -1;
	d->ntok = rc;
	return 0;
out_of_memory:
	if (nomem)
		*nomem = 1;
	return -1;
}

void json_free(struct jdoc *d)
{
	free(d->tok);
	d->tok = NULL;
	d->cap = 0;
	d->ntok = 0;
}

enum jtype json_type(const struct jdoc *d, int i)
{
	if (i < 0 || i >= d->ntok)
		return JT_UNDEFINED;
	switch (TOK(d)[i].type) {
	case JSMN_OBJECT: return JT_OBJECT;
	case JSMN_ARRAY: return JT_ARRAY;
	case JSMN_STRING: return JT_STRING;
	case JSMN_PRIMITIVE: return JT_PRIMITIVE;
	default: return JT_UNDEFINED;
	}
}

int json_size(const struct jdoc *d, int i)
{
	return TOK(d)[i].size;
}

int json_next(const struct jdoc *d, int i)
{
	const jsmntok_t *t = TOK(d);
	int end = t[i].end;
	int j = i + 1;

	while (j < d->ntok && t[j].start < end)
		j++;
	return j;
}

const char *json_text(const struct jdoc *d, int i, size_t *len)
{
	const jsmntok_t *t = &TOK(d)[i];

	*len = (size_t)(t->end - t->start);
	return d->js + t->start;
}

size_t json_raw_offset(const struct jdoc *d, int i)
{
	const jsmntok_t *t = &TOK(d)[i];

	return (size_t)(t->type == JSMN_STRING ? t->start - 1 : t->start);
}

const char *json_raw(const struct jdoc *d, int i, size_t *len)
{
	const jsmntok_t *t = &TOK(d)[i];
	int quote = t->type == JSMN_STRING;

	*len = (size_t)(t->end - t->start + 2 * quote);
	return d->js + t->start - quote;
}

int json_str_eq(const struct jdoc *d, int i, const char *s)
{
	size_t n, want = strlen(s);
	const char *text;
	struct buf tmp = BUF_INIT;
	int eq;

	if (json_type(d, i) != JT_STRING)
		return 0;
	text = json_text(d, i, &n);
	/* An escape always shortens (2 to 12 bytes give 1 to 4): a text no
	 * longer than s names it only byte for byte, and a longer one only
	 * when its first byte does or is an escape.  json_find asks this of
	 * every key it passes: most are told apart without a scan. */
	if (n <= want)
		return n == want && memcmp(text, s, n) == 0 && memchr(text, '\\', n) == NULL;
	if ((text[0] != s[0] && text[0] != '\\') || memchr(text, '\\', n) == NULL)
		return 0;
	eq = json_unescape(text, n, &tmp) == 0 && tmp.len == want &&
	     memcmp(tmp.p, s, want) == 0;
	buf_release(&tmp);
	return eq;
}

int json_find(const struct jdoc *d, int obj, const char *key)
{
	int members, k, i;

	if (json_type(d, obj) != JT_OBJECT)
		return -1;
	members = TOK(d)[obj].size;
	for (k = 0, i = obj + 1; k < members && i + 1 < d->ntok; k++) {
		if (json_str_eq(d, i, key))
			return i + 1;
		i = json_next(d, i + 1);
	}
	return -1;
}

int json_token_unescape(const struct jdoc *d, int i, struct buf *out)
{
	size_t n;
	const char *text = json_text(d, i, &n);

	return json_unescape(text, n, out);
}

int json_int64(const struct jdoc *d, int i, int64_t *value)
{
	size_t n;
	const char *text;

	if (json_type(d, i) != JT_PRIMITIVE)
		return -1;
	text = json_text(d, i, &n);
	return tsnum_parse_int64(text, n, value) == NUM_OK ? 0 : -1;
}

int json_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long read_u16(const char *s, size_t n, size_t at)
{
	long v = 0;
	size_t k;

	if (at + 4 > n)
		return -1;
	for (k = 0; k < 4; k++) {
		int h = json_hex_digit((unsigned char)s[at + k]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static int put_utf8(struct buf *out, unsigned long cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return buf_add(out, b, n);
}

int json_unescape(const char *s, size_t n, struct buf *out)
{
	size_t i = 0;

	while (i < n) {
		const char *bs = memchr(s + i, '\\', n - i);
		size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
		long cp;
		char c;

		if (run > 0 && buf_add(out, s + i, run) != 0)
			return -1;
		i += run;
		if (i == n)
			break;
		if (i + 1 >= n)
			return -1;
		c = s[i + 1];
		i += 2;
		switch (c) {
		case '"': case '\\': case '/':
			if (buf_addch(out, c) != 0)
				return -1;
			continue;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			cp = read_u16(s, n, i);
			if (cp < 0)
				return -1;
			i += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= n && s[i] == '\\' &&
			    s[i + 1] == 'u') {
				long low = read_u16(s, n, i + 2);
				if (low >= 0xDC00 && low <= 0xDFFF) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
					i += 6;
				}
			}
			if (put_utf8(out, (unsigned long)cp) != 0)
				return -1;
			continue;
		default:
			return -1;
		}
		if (buf_addch(out, c) != 0)
			return -1;
	}
	return 0;
}

int json_escape(struct buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	if (buf_addch(out, '"') != 0)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];
		size_t elen = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (buf_add(out, s + run, i - run) != 0)
			return -1;
		run = i + 1;
		esc[0] = '\\';
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			elen = 6;
		}
		if (buf_add(out, esc, elen) != 0)
			return -1;
	}
	if (buf_add(out, s + run, n - run) != 0)
		return -1;
	return buf_addch(out, '"');
}

char *json_raw_dup(const struct jdoc *d, int i, int *nomem)
{
	const char *p;
	size_t n;
	char *copy;

	if (i < 0)
		return NULL;
	p = json_raw(d, i, &n);
	if ((copy = buf_memdup(p, n)) == NULL)
		*nomem = 1;
	return copy;
}
