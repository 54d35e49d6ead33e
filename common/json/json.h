/* json: token-level access to one JSON value (an event line, a control
 * record) through jsmn, plus string escaping and unescaping.  This is the
 * only file that includes jsmn.  Token indices are ints; token 0 is the root.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_JSON_H
#define TR_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

enum jtype { JT_UNDEFINED = 0, JT_OBJECT, JT_ARRAY, JT_STRING, JT_PRIMITIVE };

struct jdoc {
	const char *js;  /* the text parsed (not owned) */
	size_t len;
	void *tok;       /* jsmn tokens, private to json.c */
	int ntok;
	unsigned int cap;
};

#define JDOC_INIT { NULL, 0, NULL, 0, 0 }

/* Tokenize js[0..len).  0, or -1 when jsmn rejects it or memory runs out
 * (*nomem tells which when not NULL).  len must be below 2 GiB. */
int json_parse(struct jdoc *d, const char *js, size_t len, int *nomem);
void json_free(struct jdoc *d);

enum jtype json_type(const struct jdoc *d, int i);
/* Children: members of an object (keys), elements of an array. */
int json_size(const struct jdoc *d, int i);
/* Index of the token after i's whole subtree. */
int json_next(const struct jdoc *d, int i);
/* The value of member key in object obj, or -1.  The key is compared with
 * the member name's unescaped bytes. */
int json_find(const struct jdoc *d, int obj, const char *key);
/* Text of token i: strings without their quotes (escapes kept). */
const char *json_text(const struct jdoc *d, int i, size_t *len);
/* The whole source text of token i: strings with their quotes. */
const char *json_raw(const struct jdoc *d, int i, size_t *len);
/* A NUL-terminated copy of token i's raw text (malloc'd); NULL when i < 0
 * (a member that is absent), or when memory runs out (then *nomem is set). */
char *json_raw_dup(const struct jdoc *d, int i, int *nomem);
/* Byte offset of the start of token i's raw text within js. */
size_t json_raw_offset(const struct jdoc *d, int i);
/* 1 when token i is a string whose unescaped bytes equal s. */
int json_str_eq(const struct jdoc *d, int i, const char *s);
/* Append token i's unescaped string bytes; -1 on a bad escape or memory. */
int json_token_unescape(const struct jdoc *d, int i, struct buf *out);
/* Integer value of primitive token i (exact; no fraction or exponent). */
int json_int64(const struct jdoc *d, int i, int64_t *value);

/* Append the UTF-8 text of a JSON string body (between the quotes) with
 * escapes resolved; \u surrogate pairs combine, a lone surrogate is encoded
 * as its three-byte form so that nothing is lost.  -1 on a malformed escape. */
int json_unescape(const char *s, size_t n, struct buf *out);
/* The value of one hex digit (0-9, a-f, A-F), or -1 for any other byte. */
int json_hex_digit(int c);
/* Append s as a JSON string with quotes; bytes >= 0x80 pass unchanged. */
int json_escape(struct buf *out, const char *s, size_t n);

#endif
