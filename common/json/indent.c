/* indent: see indent.h.  Reports are written in pieces (tr-encode appends
 * report records as they arrive), so this is a byte-level state machine
 * rather than a parse of the whole text. */
#include <errno.h>
#include <string.h>

#include "json/indent.h"

/* give the buffered text to put once this much has gathered */
#define INDENT_FLUSH_AT (256u << 10)

void indent_init(struct indent *ix, unsigned width, indent_put_fn put, void *ctx)
{
	memset(ix, 0, sizeof *ix);
	ix->put = put;
	ix->ctx = ctx;
	ix->width = width;
	ix->out = (struct buf)BUF_INIT;
}

static int newline(struct indent *ix)
{
	size_t n = ix->depth * ix->width;

	if (buf_grow(&ix->out, n + 1) != 0)
		return -1;
	ix->out.p[ix->out.len] = '\n';
	memset(ix->out.p + ix->out.len + 1, ' ', n);
	buf_setlen(&ix->out, ix->out.len + n + 1);
	return 0;
}

/* Bytes of a string from text[i], up to and including its closing quote
 * (or to the end of the piece): copied as they are. */
static size_t string_run(struct indent *ix, const char *text, size_t n, size_t i)
{
	size_t start = i, content;

	while (i < n) {
		if (ix->escaped) {
			ix->escaped = 0;
			i++;
			continue;
		}
		{
			/* names of kernels run to hundreds of bytes: memchr's pace */
			const char *quote = memchr(text + i, '"', n - i);
			size_t stop = quote != NULL ? (size_t)(quote - text) : n;
			const char *backslash = memchr(text + i, '\\', stop - i);
			i = backslash != NULL ? (size_t)(backslash - text) : stop;
		}
		if (i == n)
			break;
		i++;
		if (text[i - 1] == '\\') {
			ix->escaped = 1;
		} else {
			ix->in_string = 0;
			break;
		}
	}
	content = i - start - (ix->in_string ? 0 : 1);
	if (ix->key_len + content <= sizeof ix->key) {
		memcpy(ix->key + ix->key_len, text + start, content);
		ix->key_len += content;
	} else {
		ix->key_len = sizeof ix->key + 1;
	}
	return i - start;
}

static int is_verbatim_key(const struct indent *ix)
{
	return ix->verbatim_key != NULL && strlen(ix->verbatim_key) == ix->key_len &&
	       memcmp(ix->verbatim_key, ix->key, ix->key_len) == 0;
}

/* One byte outside strings of a verbatim value: copied. */
static int verbatim(struct indent *ix, char c)
{
	if (c == '"') {
		ix->in_string = 1;
	} else if (c == '{' || c == '[') {
		ix->depth++;
	} else if (c == '}' || c == ']') {
		if (--ix->depth < ix->verbatim_from)
			ix->verbatim_from = 0;
	}
	return buf_addch(&ix->out, c);
}

/* Bytes from text[i] on, outside strings, that are copied as they are
 * with no change of state: in a verbatim value all but quotes and
 * brackets; elsewhere, once nothing waits for the next byte (the line
 * break after an opening bracket, a verbatim value after its key), the
 * rest of a number or literal.  Copied in one piece, not byte by byte:
 * tr-compact's layer report is tens of megabytes of them. */
static size_t plain_run(const struct indent *ix, const char *text, size_t n, size_t i)
{
	size_t start = i;

	if (ix->verbatim_from != 0) {
		while (i < n && text[i] != '"' && text[i] != '{' && text[i] != '[' &&
		       text[i] != '}' && text[i] != ']')
			i++;
	} else if (!ix->just_opened && !ix->verbatim_next) {
		while (i < n && text[i] != '"' && text[i] != '{' && text[i] != '[' &&
		       text[i] != '}' && text[i] != ']' && text[i] != ',' && text[i] != ':' &&
		       text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n')
			i++;
	}
	return i - start;
}

/* One byte outside strings: 0, -1 (no memory) or UNBALANCED. */
enum { UNBALANCED = -2 };

static int structural(struct indent *ix, char c)
{
	if (ix->verbatim_from != 0)
		return verbatim(ix, c);
	if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
		/* between top-level values a line break stays: a report ends with one */
		return c == '\n' && ix->depth == 0 ? buf_addch(&ix->out, c) : 0;
	}
	if (c == '}' || c == ']') {
		ix->verbatim_next = 0;
		if (ix->depth == 0)
			return UNBALANCED;
		ix->depth--;
		if (!ix->just_opened && newline(ix) != 0)
			return -1;
		ix->just_opened = 0;
		return buf_addch(&ix->out, c);
	}
	if (ix->just_opened) {
		ix->just_opened = 0;
		if (newline(ix) != 0)
			return -1;
	}
	if (ix->verbatim_next) {
		ix->verbatim_next = 0;
		if (c == '{' || c == '[') {
			ix->verbatim_from = ++ix->depth;
			return buf_addch(&ix->out, c);
		}
	}
	switch (c) {
	case '{':
	case '[':
		ix->depth++;
		ix->just_opened = 1;
		return buf_addch(&ix->out, c);
	case ',':
		return buf_addch(&ix->out, c) != 0 ? -1 : newline(ix);
	case ':':
		ix->verbatim_next = is_verbatim_key(ix);
		return buf_addstr(&ix->out, ": ");
	case '"':
		ix->in_string = 1;
		ix->key_len = 0;
		return buf_addch(&ix->out, c);
	default:
		return buf_addch(&ix->out, c);
	}
}

int indent_write(struct indent *ix, const char *text, size_t n)
{
	size_t i = 0;

	if (ix->width == 0)
		return n == 0 ? 0 : ix->put(ix->ctx, text, n);
	while (i < n) {
		if (ix->in_string) {
			size_t run = string_run(ix, text, n, i);
			if (buf_add(&ix->out, text + i, run) != 0)
				goto nomem;
			i += run;
			continue;
		}
		size_t plain = plain_run(ix, text, n, i);
		if (plain > 0) {
			if (buf_add(&ix->out, text + i, plain) != 0)
				goto nomem;
			i += plain;
			continue;
		}
		int rc = structural(ix, text[i++]);
		if (rc == UNBALANCED) {
			errno = EINVAL;
			return -1;
		}
		if (rc != 0)
			goto nomem;
	}
	return ix->out.len >= INDENT_FLUSH_AT ? indent_flush(ix) : 0;
nomem:
	errno = ENOMEM;
	return -1;
}

int indent_flush(struct indent *ix)
{
	int rc = 0;

	if (ix->out.len != 0)
		rc = ix->put(ix->ctx, ix->out.p, ix->out.len);
	buf_reset(&ix->out);
	return rc;
}

void indent_free(struct indent *ix)
{
	buf_release(&ix->out);
}
