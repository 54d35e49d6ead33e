#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "stream/decode.h"
#include "json/json.h"
#include "stream/stream.h"
#include "stream/trstream.h"

#ifndef TR_VERSION
#define TR_VERSION "unknown"
#endif

void decode_init(struct decode *d, struct scan *s, decode_put_fn put, void *ctx,
		 const char *source_name, const char *tool)
{
	struct buf empty = BUF_INIT;

	memset(d, 0, sizeof *d);
	d->scan = s;
	d->put = put;
	d->put_ctx = ctx;
	d->source_name = source_name;
	d->tool = tool;
	d->max_members = DECODE_DEFAULT_MAX_MEMBERS;
	d->event = empty;
	d->members = empty;
}

void decode_free(struct decode *d)
{
	buf_release(&d->event);
	buf_release(&d->members);
}

/* Turn a scanner failure (or our own) into the status and a message. */
static int scan_error(struct decode *d, int rc, const char *context)
{
	const struct scan *s = d->scan;

	if (rc == SCAN_READ)
		return DECODE_READ;
	if (rc == SCAN_NOMEM)
		return DECODE_NOMEM;
	snprintf(d->err, sizeof d->err, "byte %" PRIu64 "%s: %s", s->err_offset,
		 context, rc == SCAN_TOO_BIG ? "larger than --max-event-bytes" : s->err);
	return DECODE_INPUT;
}

static int fail_here(struct decode *d, const char *context, const char *msg)
{
	return scan_error(d, scan_fail(d->scan, SCAN_SYNTAX, msg), context);
}

static int put(struct decode *d, const void *data, size_t n)
{
	return d->put(d->put_ctx, data, n) == 0 ? DECODE_OK : DECODE_WRITE;
}

static int put_buf(struct decode *d, const struct buf *b)
{
	return put(d, b->p, b->len);
}

/* The record is put in three pieces: the members are not copied. */
static int put_head(struct decode *d)
{
	struct buf head = BUF_INIT;
	struct trstream_head h = { d->array_format, d->source_name, d->tool, TR_VERSION };
	int rc = DECODE_NOMEM;

	if (trstream_head_begin(&head, &h) == 0) {
		rc = put_buf(d, &head);
		if (rc == DECODE_OK)
			rc = put_buf(d, &d->members);
		buf_reset(&head);
		if (rc == DECODE_OK)
			rc = trstream_head_end(&head) == 0 && buf_addch(&head, '\n') == 0 ?
			     put_buf(d, &head) : DECODE_NOMEM;
	}
	buf_release(&head);
	/* the members after traceEvents start from nothing */
	buf_release(&d->members);
	return rc;
}

int decode_put_tail(struct decode *d, uint64_t stored_bytes, const char *sha256_hex)
{
	struct buf tail = BUF_INIT;
	int rc;

	if (trstream_tail_begin(&tail) != 0)
		return DECODE_NOMEM;
	rc = put_buf(d, &tail);
	if (rc == DECODE_OK)
		rc = put_buf(d, &d->members);
	buf_reset(&tail);
	if (rc == DECODE_OK) {
		rc = trstream_tail_end(&tail, d->events, stored_bytes, sha256_hex) == 0 &&
		     buf_addch(&tail, '\n') == 0 ? put_buf(d, &tail) : DECODE_NOMEM;
	}
	buf_release(&tail);
	return rc;
}

static int control_event(struct decode *d, uint64_t at)
{
	snprintf(d->err, sizeof d->err, "byte %" PRIu64 " (event %" PRIu64 "): its first "
		 "member is \"@tr\", which the stream reserves for control records",
		 at, d->events);
	return DECODE_INPUT;
}

static int put_event(struct decode *d, uint64_t at)
{
	if (stream_is_control(d->event.p, d->event.len))
		return control_event(d, at);
	if (buf_addch(&d->event, '\n') != 0)
		return DECODE_NOMEM;
	if (put_buf(d, &d->event) != DECODE_OK)
		return DECODE_WRITE;
	d->events++;
	return DECODE_OK;
}

/* The event at the scanner's position, scanned into the free part of the
 * writer's block when it fits there with its newline, as writer_put would
 * have copied it: DECODE_OK, an error, or -1 when put_event's way must
 * take it (no writer, no room, not whole in the scanner's block, or a
 * value for the slow path; nothing consumed then).  writer_put would
 * flush before an event that does not fit: that event takes put_event's
 * way, so the writes stay as they were. */
static int event_direct(struct decode *d, uint64_t at)
{
	struct writer *w = d->direct;
	size_t n;

	if (w == NULL || w->cap - w->len < 2 ||
	    !scan_value_into(d->scan, w->buf + w->len, w->cap - w->len - 1, &n))
		return -1;
	if (stream_is_control(w->buf + w->len, n))
		return control_event(d, at);
	w->buf[w->len + n] = '\n';
	w->len += n + 1;
	d->events++;
	return DECODE_OK;
}

/* The elements of the event array, after its '['.  In the array format the
 * closing ']' may be missing (the Chrome format allows it, and streaming
 * writers end with a comma).  A trailing comma before ']' is accepted, as
 * Perfetto accepts it. */
/* An error inside an event (or, with after set, just after one); rc is a
 * scan status.  The context is formatted only here, never per event. */
static int event_error(struct decode *d, int rc, int after)
{
	char ctx[64];

	if (after)
		snprintf(ctx, sizeof ctx, " (after event %" PRIu64 ")", d->events - 1);
	else
		snprintf(ctx, sizeof ctx, " (event %" PRIu64 ")", d->events);
	return scan_error(d, rc, ctx);
}

/* scan_peek gave c < 0: -1 is the end of input (not SCAN_SYNTAX, which is
 * also -1), below -1 a read failure. */
static int events_end(struct decode *d, int c, int after)
{
	if (c == -1)
		c = scan_fail(d->scan, SCAN_EOF,
			      "unexpected end of input inside traceEvents (truncated JSON)");
	return event_error(d, c, after);
}

static int decode_events(struct decode *d)
{
	struct scan *s = d->scan;
	uint64_t at;
	int c, rc;

	c = scan_peek(s);
	if (c == ']') {
		scan_skip(s);
		return DECODE_OK;
	}
	for (;;) {
		if (c == -1 && d->array_format)
			return DECODE_OK;
		if (c < 0)
			return events_end(d, c, 0);
		if (c != '{')
			return event_error(d, scan_fail(s, SCAN_SYNTAX, "event is not a JSON object"), 0);
		at = scan_offset(s);
		rc = event_direct(d, at);
		if (rc == -1) {
			buf_reset(&d->event);
			if ((rc = scan_value(s, &d->event)) != SCAN_OK)
				return event_error(d, rc, 0);
			rc = put_event(d, at);
		}
		if (rc != DECODE_OK)
			return rc;
		c = scan_peek(s);
		if (c == ',') {
			scan_skip(s);
			c = scan_peek(s);
			if (c == ']') {
				scan_skip(s);
				return DECODE_OK;
			}
			continue;
		}
		if (c == ']') {
			scan_skip(s);
			return DECODE_OK;
		}
		if (c == -1 && d->array_format)
			return DECODE_OK;
		if (c < 0)
			return events_end(d, c, 1);
		return event_error(d, scan_fail(s, SCAN_SYNTAX, "expected ',' or ']' after an event"), 1);
	}
}

static int is_trace_events_key(const struct buf *key)
{
	static const char name[] = "\"traceEvents\"";
	struct buf plain = BUF_INIT;
	int yes;

	if (memchr(key->p, '\\', key->len) == NULL)
		return key->len == sizeof name - 1 && memcmp(key->p, name, key->len) == 0;
	yes = json_unescape(key->p + 1, key->len - 2, &plain) == 0 &&
	      plain.len == sizeof name - 3 && memcmp(plain.p, name + 1, plain.len) == 0;
	buf_release(&plain);
	return yes;
}

static int decode_object(struct decode *d)
{
	struct scan *s = d->scan;
	struct buf key = BUF_INIT;
	int seen_events = 0, first = 1, rc = DECODE_OK, c;

	scan_skip(s); /* '{' */
	for (;;) {
		c = scan_peek(s);
		if (first && c == '}')
			break;
		if (c != '"') {
			if (c < 0) {
				rc = scan_error(d, c == -1 ? scan_fail(s, SCAN_EOF,
					"unexpected end of input (truncated JSON)") : c, "");
				goto out;
			}
			rc = fail_here(d, "", first ? "expected a member name or '}'"
						    : "expected a member name after ','");
			goto out;
		}
		buf_reset(&key);
		if ((rc = scan_string(s, &key)) != SCAN_OK) {
			rc = scan_error(d, rc, " (top-level member name)");
			goto out;
		}
		if ((c = scan_peek(s)) != ':') {
			rc = c == -1 ? scan_error(d, scan_fail(s, SCAN_EOF,
				"unexpected end of input (truncated JSON)"), "")
				: c < -1 ? scan_error(d, c, "")
				: fail_here(d, "", "expected ':' after a member name");
			goto out;
		}
		scan_skip(s);
		if (is_trace_events_key(&key)) {
			if (seen_events) {
				rc = fail_here(d, "", "a second traceEvents member");
				goto out;
			}
			seen_events = 1;
			if ((c = scan_peek(s)) != '[') {
				rc = c == -1 ? scan_error(d, scan_fail(s, SCAN_EOF,
					"unexpected end of input (truncated JSON)"), "")
					: c < -1 ? scan_error(d, c, "")
					: fail_here(d, "", "traceEvents is not an array");
				goto out;
			}
			scan_skip(s);
			if ((rc = put_head(d)) != DECODE_OK || (rc = decode_events(d)) != DECODE_OK)
				goto out;
			/* the members after it are held, not the largest event */
			buf_release(&d->event);
		} else {
			size_t mark = d->members.len;
			if (mark > 0 && buf_addch(&d->members, ',') != 0)
				goto nomem;
			if (buf_add(&d->members, key.p, key.len) != 0 ||
			    buf_addch(&d->members, ':') != 0)
				goto nomem;
			/* --max-event-bytes applies to each member's value alone,
			 * --max-member-bytes to all the members on this side of
			 * traceEvents together, names and separators included */
			{
				size_t limit = s->max_value, each, all;
				each = limit > SIZE_MAX - d->members.len ? SIZE_MAX
					: limit + d->members.len;
				all = d->max_members;
				s->max_value = each < all ? each : all;
				rc = scan_value(s, &d->members);
				s->max_value = limit;
				if (rc == SCAN_TOO_BIG && all <= each) {
					snprintf(d->err, sizeof d->err, "byte %" PRIu64 " (top-level "
						 "member): the top-level members %s traceEvents are "
						 "larger than --max-member-bytes (%zu bytes in all)",
						 s->err_offset, seen_events ? "after" : "before", all);
					buf_setlen(&d->members, mark);
					rc = DECODE_INPUT;
					goto out;
				}
			}
			if (rc != SCAN_OK) {
				buf_setlen(&d->members, mark);
				rc = scan_error(d, rc, " (top-level member)");
				goto out;
			}
		}
		first = 0;
		c = scan_peek(s);
		if (c == ',') {
			scan_skip(s);
			continue;
		}
		if (c == '}')
			break;
		rc = c == -1 ? scan_error(d, scan_fail(s, SCAN_EOF,
			"unexpected end of input (truncated JSON)"), "")
			: c < -1 ? scan_error(d, c, "")
			: fail_here(d, "", "expected ',' or '}' after a top-level member");
		goto out;
	}
	scan_skip(s); /* '}' */
	if (!seen_events)
		rc = fail_here(d, "", "the top-level object has no traceEvents member");
out:
	buf_release(&key);
	return rc;
nomem:
	buf_release(&key);
	return DECODE_NOMEM;
}

int decode_document(struct decode *d)
{
	struct scan *s = d->scan;
	int c = scan_peek(s), rc;

	if (c == -1)
		return fail_here(d, "", "empty input (no JSON document)");
	if (c < -1)
		return scan_error(d, c, "");
	if (c == '[') {
		d->array_format = 1;
		scan_skip(s);
		if ((rc = put_head(d)) != DECODE_OK || (rc = decode_events(d)) != DECODE_OK)
			return rc;
	} else if (c == '{') {
		if ((rc = decode_object(d)) != DECODE_OK)
			return rc;
	} else if (c == 0xEF) {
		return fail_here(d, "", "UTF-8 byte order mark before the JSON document "
				 "(not allowed in JSON text; remove the first 3 bytes)");
	} else {
		return fail_here(d, "", "not a trace: the JSON document must be an object "
				 "with traceEvents or an array of events");
	}
	c = scan_peek(s);
	if (c < -1)
		return scan_error(d, c, "");
	if (c != -1)
		return fail_here(d, "", "trailing garbage after the JSON document");
	return DECODE_OK;
}
