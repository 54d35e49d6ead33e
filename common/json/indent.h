/* indent: lays out JSON text as Python's json.dump(indent=N) does (one
 * member or element per line, N spaces per level, "key": value, empty
 * containers as {} and []), as a stream: the text may arrive in any pieces.
 * Only whitespace outside strings changes; number text and string bytes
 * pass through exactly, and member order is kept.  Width 0 passes the text
 * through unchanged.  The input is trusted to be JSON (the writer validates
 * it); an unbalanced closing bracket is reported, nothing else is checked.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_INDENT_H
#define TR_INDENT_H

#include <stddef.h>

#include "core/buf.h"

/* Where the laid-out text goes: 0, or -1 with errno set. */
typedef int (*indent_put_fn)(void *ctx, const void *data, size_t n);

struct indent {
	indent_put_fn put;
	void *ctx;
	unsigned width;    /* spaces per level; 0: pass through */
	/* A member name (without quotes or escapes) whose object or array
	 * values stay exactly as they are, on one line: text kept as a copy of
	 * source bytes (tr-compact's retired events).  NULL: none. */
	const char *verbatim_key;
	size_t depth;      /* open containers */
	int in_string;
	int escaped;       /* in a string, after a backslash */
	int just_opened;   /* after { or [: the line break waits for what follows */
	char key[32];      /* the last string's bytes, for verbatim_key */
	size_t key_len;    /* or sizeof key + 1 when it was longer */
	int verbatim_next; /* after verbatim_key's colon */
	size_t verbatim_from; /* depth of the verbatim container, 0 outside one */
	struct buf out;    /* laid-out text not yet given to put */
};

void indent_init(struct indent *ix, unsigned width, indent_put_fn put, void *ctx);
/* Lay out the next piece.  0, or -1 with errno set: put's failure, ENOMEM,
 * or EINVAL for a closing bracket without its opening one. */
int indent_write(struct indent *ix, const char *text, size_t n);
/* Give everything laid out so far to put (0, or -1 with errno set). */
int indent_flush(struct indent *ix);
void indent_free(struct indent *ix);

#endif
