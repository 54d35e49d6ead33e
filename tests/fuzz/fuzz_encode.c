/* libFuzzer target: any bytes as tr-encode's input, a trace-layers stream
 * read by stream_next from a real file descriptor (a memfd where the system
 * has memfd_create, else an unlinked temporary file), each line through
 * encode_line (common/stream/encode.c) into memory, as tr-encode does.  Nothing
 * may crash, and:
 *   - a refusal comes with a message naming the line;
 *   - a control record handed back is one object without whitespace, and
 *     so is an accepted event line once a scanner here removes its
 *     whitespace;
 *   - when the whole stream is accepted, what was written is a trace that
 *     tr-decode's decode_document (common/stream/decode.c) reads back: the same
 *     format, the same top-level members before and after traceEvents, and
 *     the same events, each as the line had it without whitespace. */
#define _GNU_SOURCE  /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "stream/decode.h"
#include "stream/encode.h"
#include "json/event.h"
#include "json/scan.h"
#include "stream/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_encode: property failed: %s\n", what);
	abort();
}

static int open_bytes(const uint8_t *data, size_t size)
{
	int fd = -1;
	size_t done = 0;

#ifdef MFD_CLOEXEC
	fd = memfd_create("fuzz_encode", MFD_CLOEXEC);
#endif
	if (fd < 0) {
		char path[] = "/tmp/fuzz_encode.XXXXXX";
		fd = mkstemp(path);
		if (fd < 0)
			fail("no temporary file");
		unlink(path);
	}
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0)
			fail("cannot write the temporary file");
		done += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0)
		fail("cannot rewind the temporary file");
	return fd;
}

static int put_buf(void *ctx, const void *data, size_t n)
{
	return buf_add(ctx, data, n);
}

struct memsrc {
	const char *p;
	size_t len, pos;
};

static long mem_read(void *ctx, void *dst, size_t n)
{
	struct memsrc *m = ctx;
	size_t k = m->len - m->pos < n ? m->len - m->pos : n;

	memcpy(dst, m->p + m->pos, k);
	m->pos += k;
	return (long)k;
}

/* An accepted event line without whitespace, made here by a scanner of
 * its own (the encoder checks event lines in place and keeps no copy). */
static void minify_event(const char *line, size_t len, struct buf *out)
{
	struct memsrc m = { line, len, 0 };
	struct scan s;

	if (scan_init(&s, mem_read, &m, SIZE_MAX) != 0)
		fail("scan_init: out of memory");
	buf_reset(out);
	if (scan_value(&s, out) != SCAN_OK || scan_peek(&s) != -1)
		fail("an accepted event line that is not one JSON value");
	scan_free(&s);
}

/* The members object of a record without whitespace, braces included. */
static void record_members(const char *text, size_t len, struct buf *out)
{
	const char *v;
	size_t vlen;

	if (!event_member(text, len, "members", &v, &vlen) || vlen < 2 || v[0] != '{')
		fail("an accepted head or tail record without a members object");
	buf_reset(out);
	if (buf_add(out, v, vlen) != 0)
		fail("out of memory");
}

/* What was written must decode to what was read. */
static void decode_back(const struct buf *doc, int array_format, const struct buf *head,
			const struct buf *tail, const struct buf *events)
{
	struct memsrc m = { doc->p, doc->len, 0 };
	struct buf stream = BUF_INIT, members = BUF_INIT;
	struct scan s;
	struct decode d;
	const char *nl;
	int rc;

	if (scan_init(&s, mem_read, &m, SIZE_MAX) != 0)
		fail("scan_init: out of memory");
	decode_init(&d, &s, put_buf, &stream, "fuzz.json", "fuzz");
	rc = decode_document(&d);
	if (rc != DECODE_OK) {
		fprintf(stderr, "fuzz_encode: %s\n", d.err);
		fail("tr-decode refuses what the encoder wrote");
	}
	if (d.array_format != array_format)
		fail("the format changed");
	nl = memchr(stream.p, '\n', stream.len);
	if (nl == NULL)
		fail("no head line in the decoded stream");
	record_members(stream.p, (size_t)(nl - stream.p), &members);
	if (members.len != head->len || memcmp(members.p, head->p, head->len) != 0)
		fail("the members before traceEvents changed");
	if (tail->len - 2 != d.members.len || memcmp(tail->p + 1, d.members.p, d.members.len) != 0)
		fail("the members after traceEvents changed");
	if (stream.len - (size_t)(nl + 1 - stream.p) != events->len ||
	    memcmp(nl + 1, events->p, events->len) != 0)
		fail("the events changed");
	decode_free(&d);
	scan_free(&s);
	buf_release(&stream);
	buf_release(&members);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_in in;
	struct encoder enc;
	struct buf doc = BUF_INIT, head = BUF_INIT, tail = BUF_INIT, events = BUF_INIT;
	struct buf event = BUF_INIT;
	const struct buf *text;
	int fd = open_bytes(data, size), rc, erc = ENCODE_OK;
	const char *line;
	size_t len;

	if (stream_in_init(&in, fd, STREAM_DEFAULT_MAX_LINE) != 0 ||
	    encode_init(&enc, put_buf, &doc) != 0)
		fail("out of memory");
	while ((rc = stream_next(&in, &line, &len)) > 0) {
		erc = encode_line(&enc, rc, line, len, in.r.lineno);
		if (erc == ENCODE_INPUT) {
			if (strncmp(enc.err, "line ", 5) != 0)
				fail("a refusal that does not name the line");
			break;
		}
		if (erc != ENCODE_OK && erc != ENCODE_CONTROL)
			fail("a status other than OK, CONTROL or INPUT writing to memory");
		if ((erc == ENCODE_CONTROL) != (rc == LINE_CONTROL))
			fail("a control record not handed back, or another line handed back");
		text = &enc.text;
		if (rc == LINE_EVENT) {
			minify_event(line, len, &event);
			text = &event;
		}
		if (memchr(text->p, '\n', text->len) != NULL || text->len < 2 ||
		    text->p[0] != '{' || text->p[text->len - 1] != '}')
			fail("an accepted line that is not one object on one line");
		if (rc == LINE_HEAD)
			record_members(text->p, text->len, &head);
		else if (rc == LINE_TAIL)
			record_members(text->p, text->len, &tail);
		else if (rc == LINE_EVENT &&
			 (buf_add(&events, text->p, text->len) != 0 || buf_addch(&events, '\n') != 0))
			fail("out of memory");
	}
	if (rc == LINE_END && erc != ENCODE_INPUT)
		decode_back(&doc, enc.array_format, &head, &tail, &events);
	encode_free(&enc);
	stream_in_free(&in);
	buf_release(&doc);
	buf_release(&head);
	buf_release(&tail);
	buf_release(&events);
	buf_release(&event);
	close(fd);
	return 0;
}
