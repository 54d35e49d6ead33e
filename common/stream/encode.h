/* encode: the trace-layers event stream back into a Chrome JSON document,
 * one stream line at a time.  Every line is checked before a byte of it is
 * passed on: strict JSON (RFC 8259, as common/json/scan.c reads it) and
 * exactly one value on the line.  Head and tail records give the top-level
 * members around traceEvents; other control records are handed back to the
 * caller (tr-encode writes report files from them).
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_ENCODE_H
#define TR_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/scan.h"

/* Receives the document's bytes; 0, or -1 with errno set. */
typedef int (*encode_put_fn)(void *ctx, const void *data, size_t n);

enum encode_status {
	ENCODE_OK = 0,
	ENCODE_CONTROL = 1,  /* a valid control record for the caller: see text */
	ENCODE_INPUT = -1,   /* the line is refused; see err */
	ENCODE_WRITE = -2,   /* put failed; errno is set */
	ENCODE_NOMEM = -3
};

struct encoder {
	encode_put_fn put;
	void *put_ctx;
	struct scan scan;
	const char *src;     /* the line being checked */
	size_t src_len, src_pos;
	struct buf text;     /* the last line checked, whitespace removed */
	int array_format;
	int first_event;
	/* members an event line's check also reads (NULL: none): after
	 * ENCODE_OK for an event, found[] holds their first values and
	 * found_ok is 1 when they are exactly what a walk from the first
	 * member finds (scan_text_valid_members), else 0 and the caller reads
	 * them itself */
	const struct scan_want *want;
	struct scan_span found[SCAN_WANT_MAX];
	int found_ok;
	char err[256];
};

int encode_init(struct encoder *e, encode_put_fn put, void *ctx);
/* One line as stream_next classified it (LINE_HEAD, LINE_EVENT, ...),
 * lineno as the reader counts.  ENCODE_OK when its bytes were put,
 * ENCODE_CONTROL for a control record other than head and tail (nothing
 * put; e->text holds it without whitespace), or an error.  An event line
 * is checked in place (e->text does not hold it); with e->scan.slow_only
 * set (tests) it goes through the scanner's slow path instead, the
 * reference the in-place check must agree with. */
int encode_line(struct encoder *e, int kind, const char *line, size_t len, uint64_t lineno);
void encode_free(struct encoder *e);

#endif
