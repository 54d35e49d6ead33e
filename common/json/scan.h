/* scan: a streaming JSON scanner over a byte source of any length.  It
 * validates RFC 8259 grammar (numbers, literals, escapes, commas, nesting) and
 * copies one value at a time with insignificant whitespace removed, keeping
 * member order, number text and string bytes (escapes, invalid UTF-8) as they
 * are.  Memory: one read block plus the value being copied.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_SCAN_H
#define TR_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* Returns bytes read into dst, 0 at the end of input, -1 on error. */
typedef long (*scan_read_fn)(void *ctx, void *dst, size_t n);

/* Deepest nesting accepted.  Real traces nest fewer than ten levels;
 * Python's json module stops near a thousand too. */
#define SCAN_MAX_DEPTH 1000
#define SCAN_MAX_DEPTH_TEXT "1000"

enum scan_status {
	SCAN_OK = 0,
	SCAN_SYNTAX = -1,  /* not JSON; the message says what was expected */
	SCAN_EOF = -2,     /* input ended inside the value (truncated) */
	SCAN_TOO_BIG = -3, /* the value is longer than max_value bytes */
	SCAN_READ = -4,    /* the read function failed */
	SCAN_NOMEM = -5
};

struct scan {
	scan_read_fn read;
	void *ctx;
	unsigned char *buf;
	size_t pos, len;
	uint64_t base;       /* input offset of buf[0] */
	int eof;
	size_t max_value;
	struct buf stack;    /* open containers, '{' or '[' */
	uint64_t err_offset; /* input offset of the offending byte */
	char err[128];
	int slow_only;       /* tests: 1 turns the one-block fast path off */
};

int scan_init(struct scan *s, scan_read_fn read, void *ctx, size_t max_value);
void scan_free(struct scan *s);
/* Start over on a new input from the same read function (keeps the block:
 * a caller that scans many short texts allocates it once). */
void scan_reset(struct scan *s);

/* Skip whitespace; return the next byte without consuming it, -1 at the end
 * of input, or SCAN_READ (below -1) when reading failed. */
int scan_peek(struct scan *s);
/* Consume the byte scan_peek returned. */
void scan_skip(struct scan *s);
/* Input offset of the next unread byte. */
uint64_t scan_offset(const struct scan *s);

/* Append the next value, minified, to out (max_value counts out's length
 * after appending).  Leading whitespace is skipped. */
int scan_value(struct scan *s, struct buf *out);
/* scan_value's common case into caller memory (dst, room bytes; nothing
 * written past them, no NUL added): 1 with *n the value's length when it
 * lies whole in the block already read and fits, whitespace removed;
 * 0 when it does not or needs more care (nothing consumed; call
 * scan_value, which gives the verdict and any message).  Leading
 * whitespace is skipped. */
int scan_value_into(struct scan *s, void *dst, size_t room, size_t *n);
/* 1 when text[0, len) is one JSON value, whitespace around it allowed,
 * that scan_value accepts: checked in place, nothing copied, no scanner
 * needed.  0 when it is not, or may not be (nesting deeper than 64 levels,
 * a bare number at the very end): scan the text with scan_value then, for
 * the verdict and its message. */
int scan_text_valid(const void *text, size_t len);
/* A member of an object by its name: the raw bytes between the quotes
 * (escapes as they stand), and a value's raw text (len 0: none). */
struct scan_member {
	const char *name;
	size_t len;
};
struct scan_span {
	const char *p;
	size_t len;
};
/* The names scan_text_valid_members looks for, prepared once. */
#define SCAN_WANT_MAX 16
struct scan_want {
	uint64_t name[SCAN_WANT_MAX];  /* the bytes of each name, packed */
	size_t len[SCAN_WANT_MAX];
	size_t longest;
	unsigned lengths;              /* bit k: some name has k bytes */
	unsigned n;
};
/* 0, or -1 for more than SCAN_WANT_MAX names or one longer than 8 bytes. */
int scan_want_init(struct scan_want *w, const struct scan_member *names, unsigned n);
/* scan_text_valid, and on the way, of the outermost object's own members
 * (not those of objects inside it), the first value of each name of want
 * into value[i] (len 0: absent).  1: the text is valid and each value is
 * what a walk from the first member, member after member, finds
 * (event_members).  2: it is valid, but the values may not be that: the
 * text has whitespace outside strings (where such a walk stops), or a
 * wanted member's value is an object or array.  0 as scan_text_valid. */
int scan_text_valid_members(const void *text, size_t len, const struct scan_want *want,
			    struct scan_span *value);
/* Append the next value, which must be a string, with its quotes. */
int scan_string(struct scan *s, struct buf *out);

/* Record an error at the current offset (for callers' own grammar). */
int scan_fail(struct scan *s, int status, const char *msg);

#endif
