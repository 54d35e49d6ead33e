/* libFuzzer target: any bytes as a trace-layers stream through stream_next
 * (common/stream/stream.c and the line reader of common/core/io.c), read from a real
 * file descriptor: a memfd where the system has memfd_create, else an
 * unlinked temporary file.  Each event line then goes through the other
 * per-line parsers the stages use: event_member (common/json/event.c) and
 * json_parse with its accessors (common/json/json.c, jsmn), which must accept
 * every object that the streaming scanner of tr-decode (common/json/scan.c)
 * accepts as one value.  Nothing may crash, and
 * stream_next must keep its promises:
 *   - a line never holds '\n' and lies inside what was read;
 *   - the head comes first and once, the tail last; LINE_END only after
 *     the tail; an event line starts with '{' and ends with '}';
 *   - an error comes with a message. */
#define _GNU_SOURCE  /* memfd_create */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "json/event.h"
#include "json/json.h"
#include "json/scan.h"
#include "stream/stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_stream: property failed: %s\n", what);
	abort();
}

static int open_bytes(const uint8_t *data, size_t size)
{
	int fd = -1;
	size_t done = 0;

#ifdef MFD_CLOEXEC
	fd = memfd_create("fuzz_stream", MFD_CLOEXEC);
#endif
	if (fd < 0) {
		char path[] = "/tmp/fuzz_stream.XXXXXX";
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

/* 1 when scan takes the line as exactly one JSON value. */
static int scanner_accepts(const char *line, size_t len)
{
	struct memsrc m = { line, len, 0 };
	struct scan s;
	struct buf out = BUF_INIT;
	int ok;

	if (scan_init(&s, mem_read, &m, SIZE_MAX) != 0)
		fail("scan_init: out of memory");
	ok = scan_value(&s, &out) == SCAN_OK && scan_peek(&s) == -1;
	buf_release(&out);
	scan_free(&s);
	return ok;
}

/* What the stages do with an event line: look up members, parse it. */
static void poke_event(struct jdoc *doc, const char *line, size_t len)
{
	static const char *const keys[] = { "ts", "dur", "pid", "tid", "ph", "name", "cat", "args" };
	struct buf text = BUF_INIT;
	size_t k;

	for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const char *v;
		size_t vlen;
		if (event_member(line, len, keys[k], &v, &vlen) &&
		    (v < line || v + vlen > line + len || vlen == 0))
			fail("event_member: a value outside the line");
	}
	/* jsmn is a tokenizer, not a validator: it accepts some text that is
	 * not JSON (a trailing comma), so only one direction must hold: every
	 * valid event object tokenizes. */
	if (len > 0 && line[0] == '{' && scanner_accepts(line, len) &&
	    json_parse(doc, line, len, NULL) != 0)
		fail("json_parse refuses a JSON object the scanner accepts");
	if (json_parse(doc, line, len, NULL) == 0) {
		int i, n = doc->ntok;
		for (i = 0; i < n; i++) {
			size_t tlen;
			int64_t v;
			const char *t = json_text(doc, i, &tlen);
			if (t < line || t + tlen > line + len)
				fail("json_text: text outside the line");
			if (json_next(doc, i) <= i || json_next(doc, i) > n)
				fail("json_next: out of order");
			if (json_type(doc, i) == JT_STRING) {
				buf_reset(&text);
				(void)json_token_unescape(doc, i, &text);
			} else if (json_type(doc, i) == JT_PRIMITIVE) {
				(void)json_int64(doc, i, &v);
			}
		}
		if (json_type(doc, 0) == JT_OBJECT)
			for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
				(void)json_find(doc, 0, keys[k]);
	}
	buf_release(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_in in;
	struct jdoc doc = JDOC_INIT;
	/* a small line limit on some inputs reaches the too-long path */
	size_t max_line = size > 0 && data[0] == '{' && size % 3 == 0 ? 40 :
		STREAM_DEFAULT_MAX_LINE;
	int fd = open_bytes(data, size), rc, seen_tail = 0;
	uint64_t lines = 0, events = 0;
	const char *line;
	size_t len;

	if (stream_in_init(&in, fd, max_line) != 0)
		fail("stream_in_init: out of memory");
	while ((rc = stream_next(&in, &line, &len)) > 0) {
		if (memchr(line, '\n', len) != NULL)
			fail("a line holds a newline");
		if (len > max_line)
			fail("a line over the limit");
		if (seen_tail)
			fail("a line after the tail");
		if ((rc == LINE_HEAD) != (lines == 0))
			fail("the head is not exactly the first line");
		lines++;
		switch (rc) {
		case LINE_EVENT:
			if (len < 2 || line[0] != '{' || line[len - 1] != '}')
				fail("an event line that is not an object");
			if (stream_is_control(line, len))
				fail("a control record classified as an event");
			events++;
			poke_event(&doc, line, len);
			break;
		case LINE_TAIL:
			if (!stream_is_kind(line, len, "tail"))
				fail("a tail that is not a tail");
			seen_tail = 1;
			break;
		case LINE_CONTROL:
			if (!stream_is_control(line, len) || stream_is_kind(line, len, "head") ||
			    stream_is_kind(line, len, "tail"))
				fail("a misclassified control record");
			break;
		}
	}
	if (rc == LINE_END && !seen_tail)
		fail("the end without a tail");
	if (rc == LINE_ERROR && in.err[0] == '\0')
		fail("an error without a message");
	if (in.events != events)
		fail("stream_in.events does not count the event lines");
	stream_in_free(&in);
	json_free(&doc);
	close(fd);
	return 0;
}
