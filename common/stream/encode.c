#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stream/encode.h"
#include "json/event.h"
#include "json/json.h"
#include "stream/stream.h"

/* The scanner reads the line being checked through this function. */
static long line_read(void *ctx, void *dst, size_t n)
{
	struct encoder *e = ctx;
	size_t k = e->src_len - e->src_pos < n ? e->src_len - e->src_pos : n;

	memcpy(dst, e->src + e->src_pos, k);
	e->src_pos += k;
	return (long)k;
}

int encode_init(struct encoder *e, encode_put_fn put, void *ctx)
{
	struct buf empty = BUF_INIT;

	memset(e, 0, sizeof *e);
	e->put = put;
	e->put_ctx = ctx;
	e->text = empty;
	e->first_event = 1;
	/* the reader bounds the line; the scanner needs no limit of its own */
	return scan_init(&e->scan, line_read, e, SIZE_MAX) == SCAN_OK ? 0 : -1;
}

void encode_free(struct encoder *e)
{
	scan_free(&e->scan);
	buf_release(&e->text);
}

static int refuse(struct encoder *e, uint64_t lineno, const char *what)
{
	snprintf(e->err, sizeof e->err, "line %" PRIu64 ": %s", lineno, what);
	return ENCODE_INPUT;
}

/* At the scanner's position: a value copied to e->text without whitespace.
 * With levels > 0 an object is walked here, member by member, and its
 * values are read likewise with one level less; other values are scanned
 * whole.  The head and tail records hold the top-level members two levels
 * down ({"@tr":"head",...,"members":{NAME:VALUE}}): walking those two
 * levels lets VALUE nest as deep as tr-decode lets a top-level member
 * nest, counted from VALUE. */
static int scan_walk(struct encoder *e, int levels)
{
	struct scan *s = &e->scan;
	int c = scan_peek(s), rc, first = 1;

	if (levels == 0 || c != '{')
		return scan_value(s, &e->text);
	scan_skip(s);
	if (buf_addch(&e->text, '{') != 0)
		return SCAN_NOMEM;
	for (;;) {
		c = scan_peek(s);
		if (first && c == '}')
			break;
		if (c != '"')
			return c < -1 ? c : c == -1 ? scan_fail(s, SCAN_EOF,
				"unexpected end of input (truncated JSON)")
				: scan_fail(s, SCAN_SYNTAX, first ? "expected a member name or '}'"
					    : "expected a member name after ','");
		if ((rc = scan_string(s, &e->text)) != SCAN_OK)
			return rc;
		if ((c = scan_peek(s)) != ':')
			return c < -1 ? c : c == -1 ? scan_fail(s, SCAN_EOF,
				"unexpected end of input (truncated JSON)")
				: scan_fail(s, SCAN_SYNTAX, "expected ':' after a member name");
		scan_skip(s);
		if (buf_addch(&e->text, ':') != 0)
			return SCAN_NOMEM;
		if ((rc = scan_walk(e, levels - 1)) != SCAN_OK)
			return rc;
		first = 0;
		c = scan_peek(s);
		if (c == ',') {
			scan_skip(s);
			if (buf_addch(&e->text, ',') != 0)
				return SCAN_NOMEM;
			continue;
		}
		if (c == '}')
			break;
		return c < -1 ? c : c == -1 ? scan_fail(s, SCAN_EOF,
			"unexpected end of input (truncated JSON)")
			: scan_fail(s, SCAN_SYNTAX, "expected ',' or '}' after a member");
	}
	scan_skip(s);
	return buf_addch(&e->text, '}') != 0 ? SCAN_NOMEM : SCAN_OK;
}

/* The line must be exactly one JSON value (whitespace around it allowed);
 * e->text gets it without whitespace. */
static int check_line(struct encoder *e, const char *line, size_t len, int levels,
		      uint64_t lineno)
{
	struct scan *s = &e->scan;
	int rc;

	e->src = line;
	e->src_len = len;
	e->src_pos = 0;
	scan_reset(s);
	buf_reset(&e->text);
	rc = scan_walk(e, levels);
	if (rc == SCAN_OK) {
		int c = scan_peek(s);
		if (c == -1)
			return ENCODE_OK;
		rc = c < -1 ? c : scan_fail(s, SCAN_SYNTAX, "more than one JSON value on the line");
	}
	if (rc == SCAN_NOMEM)
		return ENCODE_NOMEM;
	snprintf(e->err, sizeof e->err, "line %" PRIu64 ": invalid JSON at byte %" PRIu64 ": %s",
		 lineno, s->err_offset, s->err);
	return ENCODE_INPUT;
}

static int put(struct encoder *e, const void *data, size_t n)
{
	return e->put(e->put_ctx, data, n) == 0 ? ENCODE_OK : ENCODE_WRITE;
}

/* Whether the member name KEY (its raw text, quotes included) is
 * "traceEvents", however it is escaped. */
static int is_trace_events(const char *key, size_t n)
{
	static const char name[] = "traceEvents";
	struct buf plain = BUF_INIT;
	int yes;

	if (memchr(key, '\\', n) == NULL)
		return n == sizeof name + 1 && memcmp(key + 1, name, sizeof name - 1) == 0;
	yes = json_unescape(key + 1, n - 2, &plain) == 0 && plain.len == sizeof name - 1 &&
	      memcmp(plain.p, name, plain.len) == 0;
	buf_release(&plain);
	return yes;
}

/* The members object m (valid, minified) of a head or tail record: refuse
 * a traceEvents member; with put_them set, put its "name":value pairs as
 * top-level members, as tr-encode always wrote them: in the head each
 * followed by ",\n" (traceEvents comes next), in the tail each preceded
 * by it (the event array came before). */
static int members(struct encoder *e, const struct member *m, int put_them, int head,
		   uint64_t lineno)
{
	size_t i = 1;
	int rc, k = 0;

	while (i < m->len && m->p[i] == '"') {
		size_t kend = event_skip_string(m->p, m->len, i),
		       vend = event_skip_value(m->p, m->len, kend + 1);
		if (is_trace_events(m->p + i, kend - i))
			return refuse(e, lineno, head ? "head record: its members hold a "
				      "traceEvents member (events come only as event lines)" :
				      "tail record: its members hold a traceEvents member "
				      "(events come only as event lines)");
		if (put_them && (!head || k > 0) && (rc = put(e, ",\n", 2)) != ENCODE_OK)
			return rc;
		if (put_them && (rc = put(e, m->p + i, vend - i)) != ENCODE_OK)
			return rc;
		k++;
		i = vend < m->len && m->p[vend] == ',' ? vend + 1 : vend;
	}
	if (put_them && head && k > 0)
		return put(e, ",\n", 2);
	return ENCODE_OK;
}

static int head(struct encoder *e, uint64_t lineno)
{
	static const char *const keys[] = { "format", "members" };
	struct member m[2];
	int rc;

	event_members(e->text.p, e->text.len, keys, 2, m);
	if (m[1].p == NULL || m[1].p[0] != '{')
		return refuse(e, lineno, "head record without a \"members\" object");
	if (m[0].len == 7 && memcmp(m[0].p, "\"array\"", 7) == 0) {
		if (m[1].len != 2)
			return refuse(e, lineno, "head record: an array-format trace has no "
				      "top-level members");
		e->array_format = 1;
		return put(e, "[\n", 2);
	}
	if (m[0].len != 8 || memcmp(m[0].p, "\"object\"", 8) != 0)
		return refuse(e, lineno, "head record: format must be \"object\" or \"array\"");
	if ((rc = members(e, &m[1], 0, 1, lineno)) != ENCODE_OK ||
	    (rc = put(e, "{", 1)) != ENCODE_OK ||
	    (rc = members(e, &m[1], 1, 1, lineno)) != ENCODE_OK)
		return rc;
	return put(e, "\"traceEvents\":[\n", 16);
}

static int tail(struct encoder *e, uint64_t lineno)
{
	static const char *const keys[] = { "members" };
	struct member m[1];
	int rc;

	event_members(e->text.p, e->text.len, keys, 1, m);
	if (m[0].p == NULL || m[0].p[0] != '{')
		return refuse(e, lineno, "tail record without a \"members\" object");
	if (e->array_format && m[0].len != 2)
		return refuse(e, lineno, "tail record: an array-format trace has no "
			      "top-level members");
	/* refused before anything of the tail is put */
	if ((rc = members(e, &m[0], 0, 0, lineno)) != ENCODE_OK)
		return rc;
	if ((rc = put(e, e->first_event ? "]" : "\n]", e->first_event ? 1 : 2)) != ENCODE_OK)
		return rc;
	if (!e->array_format &&
	    ((rc = members(e, &m[0], 1, 0, lineno)) != ENCODE_OK || (rc = put(e, "}", 1)) != ENCODE_OK))
		return rc;
	return put(e, "\n", 1);
}

static const unsigned char *skip_space(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* Whether the valid JSON text [line, len) would begin with the bytes
 * {"@tr": once its whitespace is removed: an object whose first member's
 * name is written "@tr" (an escaped name such as "\u0040tr" is not). */
static int begins_as_control(const char *line, size_t len)
{
	const unsigned char *p = (const unsigned char *)line, *end = p + len;

	p = skip_space(p, end);
	if (p == end || *p != '{')
		return 0;
	p = skip_space(p + 1, end);
	if ((size_t)(end - p) < 5 || memcmp(p, "\"@tr\"", 5) != 0)
		return 0;
	p = skip_space(p + 5, end);
	return p < end && *p == ':';
}

/* An event line is checked where it lies (scan_text_valid): the common
 * case copies nothing.  A line that check refuses, or cannot vouch for, is
 * scanned as before, which gives the verdict and the exact message; so
 * does every line with the scanner's slow_only set (tests: the reference). */
static int event_line(struct encoder *e, const char *line, size_t len, uint64_t lineno)
{
	int rc, control, valid;

	e->found_ok = 0;
	if (e->scan.slow_only)
		valid = 0;
	else if (e->want != NULL)
		e->found_ok = (valid = scan_text_valid_members(line, len, e->want, e->found)) == 1;
	else
		valid = scan_text_valid(line, len);
	if (valid) {
		control = begins_as_control(line, len);
	} else {
		if ((rc = check_line(e, line, len, 0, lineno)) != ENCODE_OK)
			return rc;
		control = stream_is_control(e->text.p, e->text.len);
	}
	/* "{ \"@tr\":..." is not a control record, but tr-decode would read
	 * back an event that begins as one, and refuse it */
	if (control)
		return refuse(e, lineno, "an event whose first member is \"@tr\", which "
			      "the stream reserves for control records (a control "
			      "record must begin with the exact bytes {\"@tr\":)");
	if (!e->first_event && (rc = put(e, ",\n", 2)) != ENCODE_OK)
		return rc;
	e->first_event = 0;
	return put(e, line, len);
}

int encode_line(struct encoder *e, int kind, const char *line, size_t len, uint64_t lineno)
{
	int rc;

	if (kind == LINE_EVENT)
		return event_line(e, line, len, lineno);
	rc = check_line(e, line, len, kind == LINE_HEAD || kind == LINE_TAIL ? 2 : 0, lineno);
	if (rc != ENCODE_OK)
		return rc;
	switch (kind) {
	case LINE_HEAD:
		return head(e, lineno);
	case LINE_TAIL:
		return tail(e, lineno);
	default:
		return ENCODE_CONTROL;
	}
}
