/* libFuzzer target: any bytes as a trace document through decode_document
 * (common/stream/decode.c and the scanner under it), served in pieces of varying
 * size so that every refill boundary is crossed.  Properties checked on a
 * document the decoder accepts:
 *   - every stream line is one line holding one JSON object that json.c
 *     parses, the head and tail records with a "members" object, as
 *     tr-encode and the stages need;
 *   - decode -> encode -> decode gives the same stream, byte for byte: the
 *     document is rebuilt from the stream lines the way tr-encode does it
 *     ({ head members, "traceEvents":[ events ], tail members } or
 *     [ events ]) and decoded again.
 * A rejected document must come with a message.  Any failed property
 * aborts, which libFuzzer reports as a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "stream/decode.h"
#include "json/json.h"
#include "json/scan.h"
#include "stream/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SOURCE_NAME "fuzz.json"
#define SHA_HEX "0000000000000000000000000000000000000000000000000000000000000000"

struct feeder {
	const uint8_t *data;
	size_t len, pos;
	unsigned step;  /* which piece size comes next */
	int whole;      /* serve everything in one read */
};

static long feed_read(void *ctx, void *dst, size_t n)
{
	/* piece sizes that cross every boundary a few times */
	static const size_t pieces[] = { 1, 7, 2, 64, 3, 4096, 1, 13 };
	struct feeder *f = ctx;
	size_t k = f->len - f->pos;

	if (!f->whole) {
		size_t p = pieces[f->step++ % (sizeof pieces / sizeof pieces[0])];
		if (k > p)
			k = p;
	}
	if (k > n)
		k = n;
	memcpy(dst, f->data + f->pos, k);
	f->pos += k;
	return (long)k;
}

static int sink_put(void *ctx, const void *data, size_t n)
{
	return buf_add(ctx, data, n);
}

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_decode: property failed: %s\n", what);
	abort();
}

/* Decode data into out (the whole stream, tail included).  Returns the
 * decode status; *array_format tells the format. */
static int decode_bytes(const uint8_t *data, size_t size, int whole, size_t max_value,
			struct buf *out, int *array_format)
{
	struct feeder f = { data, size, 0, 0, whole };
	struct scan s;
	struct decode d;
	int rc;

	if (scan_init(&s, feed_read, &f, max_value) != 0)
		fail("scan_init: out of memory");
	decode_init(&d, &s, sink_put, out, SOURCE_NAME, "fuzz");
	rc = decode_document(&d);
	if (rc == DECODE_OK)
		rc = decode_put_tail(&d, 0, SHA_HEX);
	else if (rc == DECODE_INPUT && d.err[0] == '\0')
		fail("an input error without a message");
	else if (rc != DECODE_INPUT)
		fail("a status other than OK or INPUT from an in-memory source");
	*array_format = d.array_format;
	decode_free(&d);
	scan_free(&s);
	return rc;
}

/* The raw members text (between the braces) of a head or tail record,
 * checked the way tr-encode reads it (json.c). */
static void record_members(struct jdoc *doc, const char *line, size_t len,
			   const char **text, size_t *tlen)
{
	int members;
	const char *raw;

	if (json_parse(doc, line, len, NULL) != 0 || json_type(doc, 0) != JT_OBJECT)
		fail("a head or tail record that json.c does not parse");
	members = json_find(doc, 0, "members");
	if (json_type(doc, members) != JT_OBJECT)
		fail("a head or tail record without a members object");
	raw = json_raw(doc, members, tlen);
	if (*tlen < 2 || raw[0] != '{' || raw[*tlen - 1] != '}')
		fail("members is not an object text");
	*text = raw + 1;
	*tlen -= 2;
}

/* Rebuild the document from the stream as tr-encode does. */
static void rebuild(const struct buf *stream, int array_format, struct buf *doc_text)
{
	struct jdoc doc = JDOC_INIT;
	const char *p = stream->p, *end = stream->p + stream->len;
	const char *members;
	size_t mlen, lineno = 0, events = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len;
		if (nl == NULL)
			fail("the stream does not end in a newline");
		len = (size_t)(nl - p);
		if (len < 2 || p[0] != '{' || p[len - 1] != '}')
			fail("a stream line that is not one object");
		if (lineno == 0) {
			if (!stream_is_kind(p, len, "head"))
				fail("the first line is not the head");
			record_members(&doc, p, len, &members, &mlen);
			if (array_format && mlen != 0)
				fail("array format with head members");
			if (buf_addstr(doc_text, array_format ? "[" : "{") != 0 ||
			    buf_add(doc_text, members, mlen) != 0 ||
			    (mlen && buf_addch(doc_text, ',') != 0) ||
			    (!array_format && buf_addstr(doc_text, "\"traceEvents\":[") != 0))
				fail("out of memory");
		} else if (nl + 1 == end) {
			if (!stream_is_kind(p, len, "tail"))
				fail("the last line is not the tail");
			record_members(&doc, p, len, &members, &mlen);
			if (array_format && mlen != 0)
				fail("array format with tail members");
			if (buf_addch(doc_text, ']') != 0 ||
			    (mlen && (buf_addch(doc_text, ',') != 0 ||
				      buf_add(doc_text, members, mlen) != 0)) ||
			    (!array_format && buf_addch(doc_text, '}') != 0))
				fail("out of memory");
		} else {
			if (stream_is_control(p, len))
				fail("an event line that looks like a control record");
			/* every stage parses events with json.c */
			if (json_parse(&doc, p, len, NULL) != 0 || json_type(&doc, 0) != JT_OBJECT)
				fail("an event line that json.c does not parse");
			if ((events++ && buf_addch(doc_text, ',') != 0) ||
			    buf_add(doc_text, p, len) != 0)
				fail("out of memory");
		}
		lineno++;
		p = nl + 1;
	}
	if (lineno < 2)
		fail("a stream without head and tail");
	json_free(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf first = BUF_INIT, second = BUF_INIT, doc_text = BUF_INIT;
	/* a small limit on odd sizes reaches the too-big paths */
	size_t max_value = size & 1 ? 300 : (size_t)64 << 20;
	int array_format, array_again;

	if (decode_bytes(data, size, 0, max_value, &first, &array_format) == DECODE_OK) {
		rebuild(&first, array_format, &doc_text);
		if (decode_bytes((const uint8_t *)doc_text.p, doc_text.len, 1, max_value,
				 &second, &array_again) != DECODE_OK)
			fail("the rebuilt document is refused");
		if (array_again != array_format)
			fail("the rebuilt document changed format");
		/* the tail's source_bytes is the same fixed number in both */
		if (first.len != second.len || memcmp(first.p, second.p, first.len) != 0)
			fail("decode -> encode -> decode changed the stream");
	}
	buf_release(&first);
	buf_release(&second);
	buf_release(&doc_text);
	return 0;
}
