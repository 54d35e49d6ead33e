/* Unit tests for common/stream/decode.c: a whole document in, the exact stream
 * out (head record, event lines, tail record), and every rejection with
 * its exact message and byte offset.  Input is served whole, one byte at a
 * time, and in random pieces. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "stream/decode.h"
#include "json/scan.h"
#include "../../mutate.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) lit, sizeof(lit) - 1

/* ---- byte source and sink ---- */

enum serve { SERVE_WHOLE, SERVE_ONE, SERVE_RANDOM, NSERVE };

struct feeder {
	const char *data;
	size_t len, pos;
	enum serve mode;
	uint32_t rng;
	size_t fail_at;  /* the read fails once pos reaches it */
};

static long feed_read(void *ctx, void *dst, size_t n)
{
	struct feeder *f = ctx;
	size_t k = f->len - f->pos;

	if (f->pos >= f->fail_at)
		return -1;
	if (f->fail_at - f->pos < k)
		k = f->fail_at - f->pos;
	if (f->mode == SERVE_ONE && k > 1)
		k = 1;
	if (f->mode == SERVE_RANDOM) {
		size_t r;
		f->rng ^= f->rng << 13;
		f->rng ^= f->rng >> 17;
		f->rng ^= f->rng << 5;
		r = 1 + f->rng % 11;
		if (k > r)
			k = r;
	}
	if (k > n)
		k = n;
	memcpy(dst, f->data + f->pos, k);
	f->pos += k;
	return (long)k;
}

struct sink {
	struct buf out;
	int calls;
	int fail_on;  /* the put with this number (1-based) fails; 0: never */
};

static int sink_put(void *ctx, const void *data, size_t n)
{
	struct sink *k = ctx;

	if (++k->calls == k->fail_on) {
		errno = ENOSPC;
		return -1;
	}
	return buf_add(&k->out, data, n);
}

static int writer_put_fn(void *ctx, const void *data, size_t n)
{
	return writer_put(ctx, data, n);
}

/* One decoder over data, ready to run. */
struct run {
	struct feeder f;
	struct scan s;
	struct sink k;
	struct decode d;
};

static void run_init(struct run *r, const char *data, size_t len, enum serve mode,
		     size_t max_event, const char *source)
{
	struct buf empty = BUF_INIT;

	memset(r, 0, sizeof *r);
	r->f.data = data;
	r->f.len = len;
	r->f.mode = mode;
	r->f.rng = 2463534242u + (uint32_t)len;
	r->f.fail_at = SIZE_MAX;
	r->k.out = empty;
	ck_assert_int_eq(scan_init(&r->s, feed_read, &r->f, max_event), SCAN_OK);
	decode_init(&r->d, &r->s, sink_put, &r->k, source, "tr-test");
}

static void run_free(struct run *r)
{
	decode_free(&r->d);
	scan_free(&r->s);
	buf_release(&r->k.out);
}

#define HEAD(format, members) \
	"{\"@tr\":\"head\",\"format\":\"" format "\",\"source\":\"in.json\"," \
	"\"tool\":\"tr-test\",\"version\":\"" TR_VERSION "\",\"members\":{" members "}}\n"
#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define TAIL(members, events) \
	"{\"@tr\":\"tail\",\"members\":{" members "},\"events\":" #events \
	",\"source_bytes\":4242,\"source_sha256\":\"" SHA "\"}\n"

/* ---- accepted documents: the exact stream ---- */

struct ok_case {
	const char *in;
	size_t in_len;
	const char *out;  /* head, events and the tail (source_bytes 4242) */
	uint64_t events;
};

static const struct ok_case ok_cases[] = {
	/* object format, traceEvents first */
	{ S("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1.5},{\"name\":\"a b\"}],"
	    "\"displayTimeUnit\":\"ns\",\"otherData\":{\"v\":1}}"),
	  HEAD("object", "")
	  "{\"ph\":\"X\",\"ts\":1.5}\n{\"name\":\"a b\"}\n"
	  TAIL("\"displayTimeUnit\":\"ns\",\"otherData\":{\"v\":1}", 2), 2 },
	/* traceEvents in the middle, with whitespace everywhere */
	{ S(" { \"schemaVersion\" : 1 , \"traceEvents\" : [ { \"a\" : 1 } , "
	    "{ \"b\" : [ 1 , 2 ] } ] , \"x\" : [ 1 , 2 ] , \"y\" : null } \n"),
	  HEAD("object", "\"schemaVersion\":1")
	  "{\"a\":1}\n{\"b\":[1,2]}\n"
	  TAIL("\"x\":[1,2],\"y\":null", 2), 2 },
	/* traceEvents last */
	{ S("{\"a\":1,\"b\":{\"c\":null},\"traceEvents\":[]}"),
	  HEAD("object", "\"a\":1,\"b\":{\"c\":null}") TAIL("", 0), 0 },
	/* the member name may be escaped */
	{ S("{\"trace\\u0045vents\":[{\"a\":1}]}"),
	  HEAD("object", "") "{\"a\":1}\n" TAIL("", 1), 1 },
	/* a trailing comma in the event array */
	{ S("{\"traceEvents\":[{\"a\":1},]}"),
	  HEAD("object", "") "{\"a\":1}\n" TAIL("", 1), 1 },
	{ S("{\"traceEvents\":[{\"a\":1} , ] , \"z\":0}"),
	  HEAD("object", "") "{\"a\":1}\n" TAIL("\"z\":0", 1), 1 },
	/* names that only look like traceEvents are kept as members */
	{ S("{\"traceevents\":[],\"traceEvents \":1,\"traceEvents\":[]}"),
	  HEAD("object", "\"traceevents\":[],\"traceEvents \":1") TAIL("", 0), 0 },
	/* array format, closed */
	{ S("[{\"a\":1},{\"b\":2}]"),
	  HEAD("array", "") "{\"a\":1}\n{\"b\":2}\n" TAIL("", 2), 2 },
	{ S("\n [ { \"a\" : 1 } ] \n"), HEAD("array", "") "{\"a\":1}\n" TAIL("", 1), 1 },
	/* array format without its ']' */
	{ S("[{\"a\":1},{\"b\":2}"),
	  HEAD("array", "") "{\"a\":1}\n{\"b\":2}\n" TAIL("", 2), 2 },
	{ S("[{\"a\":1},\n"), HEAD("array", "") "{\"a\":1}\n" TAIL("", 1), 1 },
	{ S("[{\"a\":1},]"), HEAD("array", "") "{\"a\":1}\n" TAIL("", 1), 1 },
	{ S("[]"), HEAD("array", "") TAIL("", 0), 0 },
	{ S("[ ]"), HEAD("array", "") TAIL("", 0), 0 },
	{ S("["), HEAD("array", "") TAIL("", 0), 0 },
	/* event bytes are kept: escapes, number text, invalid UTF-8, order */
	{ S("[{\"name\":\"\\u00e9\\\"\\n\xff\",\"ts\":1712195495519689.047,\"z\":1,\"a\":2,"
	    "\"args\":{\"@tr\":1}}]"),
	  HEAD("array", "")
	  "{\"name\":\"\\u00e9\\\"\\n\xff\",\"ts\":1712195495519689.047,\"z\":1,\"a\":2,"
	  "\"args\":{\"@tr\":1}}\n" TAIL("", 1), 1 },
	/* "@tr" is reserved only as the first member */
	{ S("[{\"a\":1,\"@tr\":\"head\"}]"),
	  HEAD("array", "") "{\"a\":1,\"@tr\":\"head\"}\n" TAIL("", 1), 1 },
	/* escaped "@tr" does not start with the control prefix */
	{ S("[{\"\\u0040tr\":1}]"), HEAD("array", "") "{\"\\u0040tr\":1}\n" TAIL("", 1), 1 },
};

START_TEST(test_ok)
{
	const struct ok_case *c = &ok_cases[_i];
	int mode;

	for (mode = 0; mode < NSERVE; mode++) {
		struct run r;

		run_init(&r, c->in, c->in_len, (enum serve)mode, 1 << 20, "in.json");
		ck_assert_msg(decode_document(&r.d) == DECODE_OK, "mode %d: %s", mode, r.d.err);
		ck_assert_uint_eq(r.d.events, c->events);
		ck_assert_int_eq(decode_put_tail(&r.d, 4242, SHA), DECODE_OK);
		ck_assert_str_eq(r.k.out.p, c->out);
		ck_assert_uint_eq(r.k.out.len, strlen(c->out));
		/* the head and the tail in three puts each (the members are
		 * put as they are held, not copied), one per event */
		ck_assert_int_eq(r.k.calls, (int)c->events + 6);
		ck_assert_str_eq(r.d.err, "");
		run_free(&r);
	}
}
END_TEST

START_TEST(test_source_name_escaped)
{
	struct run r;

	run_init(&r, S("[]"), SERVE_WHOLE, 100, "dir/a\"b\\c\n\xc3\xa9.json");
	ck_assert_int_eq(decode_document(&r.d), DECODE_OK);
	ck_assert_str_eq(r.k.out.p, "{\"@tr\":\"head\",\"format\":\"array\",\"source\":"
			 "\"dir/a\\\"b\\\\c\\n\xc3\xa9.json\",\"tool\":\"tr-test\",\"version\":\""
			 TR_VERSION "\",\"members\":{}}\n");
	run_free(&r);
}
END_TEST

/* ---- rejected documents ---- */

struct bad_case {
	const char *in;
	size_t in_len;
	size_t max_event;
	const char *err;
};

#define NOT_TRACE "not a trace: the JSON document must be an object with " \
	"traceEvents or an array of events"
#define NOT_OBJECT "event is not a JSON object"
#define GARBAGE "trailing garbage after the JSON document"
#define RESERVED "its first member is \"@tr\", which the stream reserves for " \
	"control records"
#define TOO_BIG "larger than --max-event-bytes"
#define EOF_MSG "unexpected end of input (truncated JSON)"
#define EOF_EVENTS "unexpected end of input inside traceEvents (truncated JSON)"

static const struct bad_case bad_cases[] = {
	/* empty, not JSON, not a trace */
	{ S(""), 100, "byte 0: empty input (no JSON document)" },
	{ S(" \n\t "), 100, "byte 4: empty input (no JSON document)" },
	{ S("hello"), 100, "byte 0: " NOT_TRACE },
	{ S("  42"), 100, "byte 2: " NOT_TRACE },
	{ S("\"traceEvents\""), 100, "byte 0: " NOT_TRACE },
	{ S("null"), 100, "byte 0: " NOT_TRACE },
	{ S("]"), 100, "byte 0: " NOT_TRACE },
	{ S("\xef\xbb\xbf{\"traceEvents\":[]}"), 100,
	  "byte 0: UTF-8 byte order mark before the JSON document (not allowed in JSON "
	  "text; remove the first 3 bytes)" },
	/* objects that are not traces */
	{ S("{}"), 100, "byte 2: the top-level object has no traceEvents member" },
	{ S("{\"a\":1}"), 100, "byte 7: the top-level object has no traceEvents member" },
	{ S("{\"traceEvents\":{}}"), 100, "byte 15: traceEvents is not an array" },
	{ S("{\"traceEvents\": 5}"), 100, "byte 16: traceEvents is not an array" },
	{ S("{\"traceEvents\":null}"), 100, "byte 15: traceEvents is not an array" },
	{ S("{\"traceEvents\":[],\"traceEvents\":[]}"), 100,
	  "byte 32: a second traceEvents member" },
	/* top-level object grammar */
	{ S("{\"a\":1,}"), 100, "byte 7: expected a member name after ','" },
	{ S("{,}"), 100, "byte 1: expected a member name or '}'" },
	{ S("{\"a\" 1,\"traceEvents\":[]}"), 100, "byte 5: expected ':' after a member name" },
	{ S("{\"traceEvents\":[] \"a\":1}"), 100,
	  "byte 18: expected ',' or '}' after a top-level member" },
	{ S("{\"a\":01,\"traceEvents\":[]}"), 100,
	  "byte 6 (top-level member): invalid number (leading zero)" },
	{ S("{\"a\x01\":1}"), 100,
	  "byte 3 (top-level member name): control character in string (must be escaped)" },
	/* events that are not objects */
	{ S("[1]"), 100, "byte 1 (event 0): " NOT_OBJECT },
	{ S("[{\"a\":1},[2]]"), 100, "byte 9 (event 1): " NOT_OBJECT },
	{ S("{\"traceEvents\":[\"x\"]}"), 100, "byte 16 (event 0): " NOT_OBJECT },
	{ S("[{\"a\":1},,{}]"), 100, "byte 9 (event 1): " NOT_OBJECT },
	{ S("[,]"), 100, "byte 1 (event 0): " NOT_OBJECT },
	{ S("[{\"a\":1},null]"), 100, "byte 9 (event 1): " NOT_OBJECT },
	/* bad JSON inside an event */
	{ S("[{\"a\":1,}]"), 100, "byte 8 (event 0): expected a member name after ','" },
	{ S("[{\"a\":1},{\"b\":[1}]"), 100, "byte 16 (event 1): mismatched closing bracket" },
	{ S("[{\"a\":1} {\"b\":2}]"), 100,
	  "byte 9 (after event 0): expected ',' or ']' after an event" },
	{ S("{\"traceEvents\":[{}}"), 100,
	  "byte 18 (after event 0): expected ',' or ']' after an event" },
	/* trailing garbage */
	{ S("[{\"a\":1}] x"), 100, "byte 10: " GARBAGE },
	{ S("{\"traceEvents\":[]}{}"), 100, "byte 18: " GARBAGE },
	{ S("[][]"), 100, "byte 2: " GARBAGE },
	{ S("[],"), 100, "byte 2: " GARBAGE },
	{ S("{\"traceEvents\":[]}\n\x00"), 100, "byte 19: " GARBAGE },
	/* events that would pass for control records */
	{ S("[{\"@tr\":\"head\"}]"), 100, "byte 1 (event 0): " RESERVED },
	{ S("[ { \"@tr\" : 1}]"), 100, "byte 2 (event 0): " RESERVED },
	{ S("{\"traceEvents\":[{\"a\":1},{\"@tr\":\"tail\"}]}"), 100,
	  "byte 24 (event 1): " RESERVED },
	/* size limits */
	{ S("[{\"name\":\"0123456789abcdefghij\"}]"), 20, "byte 21 (event 0): " TOO_BIG },
	{ S("[{\"a\":1},{\"ts\":123456789012345678901234}]"), 20,
	  "byte 29 (event 1): " TOO_BIG },
	{ S("[{\"a\" : 1},{\"a\":12}]"), 7, "byte 18 (event 1): " TOO_BIG },
	{ S("{\"big\":\"0123456789\",\"traceEvents\":[]}"), 10,
	  "byte 17 (top-level member): " TOO_BIG },
	{ S("{\"traceEvents\":[],\"big\":[1,2,3,4,5,6,7]}"), 13,
	  "byte 37 (top-level member): " TOO_BIG },
	/* member names count against the limit too */
	{ S("{\"traceEvents\":[]}"), 12, "byte 13 (top-level member name): " TOO_BIG },
	/* truncated object format */
	{ S("{\"traceEvents\":[{\"a\":1}"), 100, "byte 23 (after event 0): " EOF_EVENTS },
	{ S("{\"traceEvents\":[{\"a\":1},"), 100, "byte 24 (event 1): " EOF_EVENTS },
	{ S("{\"traceEvents\":["), 100, "byte 16 (event 0): " EOF_EVENTS },
	{ S("{\"traceEvents\":"), 100, "byte 15: " EOF_MSG },
	{ S("{\"traceEvents\":[]"), 100, "byte 17: " EOF_MSG },
	{ S("{\"traceEvents\":[],"), 100, "byte 18: " EOF_MSG },
	{ S("{\"traceEvents\":[],\"a\":"), 100, "byte 22 (top-level member): " EOF_MSG },
	{ S("{\"trace"), 100, "byte 7 (top-level member name): " EOF_MSG },
	{ S("{"), 100, "byte 1: " EOF_MSG },
	/* truncated array format: inside an event */
	{ S("[{\"a\":1},{\"b\""), 100, "byte 13 (event 1): " EOF_MSG },
};

START_TEST(test_bad)
{
	const struct bad_case *c = &bad_cases[_i];
	int mode;

	for (mode = 0; mode < NSERVE; mode++) {
		struct run r;
		int rc;

		run_init(&r, c->in, c->in_len, (enum serve)mode, c->max_event, "in.json");
		rc = decode_document(&r.d);
		ck_assert_msg(rc == DECODE_INPUT, "mode %d: status %d", mode, rc);
		ck_assert_str_eq(r.d.err, c->err);
		run_free(&r);
	}
}
END_TEST

/* The size limit: exactly the minified event, members each on their own. */
START_TEST(test_max_event_exact)
{
	enum serve mode = (enum serve)_i;
	static const char in[] = "{\"m\":\"0123456789ab\",\"traceEvents\":[{ \"a\" : 1 } , "
		"{\"bc\":\"defghijk\"}],\"n\":[1,2,3,4,5,6,7]}";
	struct run r;

	/* {"bc":"defghijk"} is 17 bytes, "m" and "n" have 14 and 15 */
	run_init(&r, S(in), mode, 17, "in.json");
	ck_assert_int_eq(decode_document(&r.d), DECODE_OK);
	ck_assert_int_eq(decode_put_tail(&r.d, 4242, SHA), DECODE_OK);
	ck_assert_str_eq(r.k.out.p, HEAD("object", "\"m\":\"0123456789ab\"")
			 "{\"a\":1}\n{\"bc\":\"defghijk\"}\n" TAIL("\"n\":[1,2,3,4,5,6,7]", 2));
	run_free(&r);

	/* one byte less: the event's closing '}' is the byte over */
	run_init(&r, S(in), mode, 16, "in.json");
	ck_assert_int_eq(decode_document(&r.d), DECODE_INPUT);
	ck_assert_str_eq(r.d.err, "byte 65 (event 1): " TOO_BIG);
	run_free(&r);
}
END_TEST

/* Every proper prefix of an object-format trace is refused as truncated,
 * at the offset where it ends. */
START_TEST(test_truncated_object)
{
	enum serve mode = (enum serve)_i;
	static const char doc[] = "{ \"a\" : [1, {\"x\":\"y\"}] , \"traceEvents\" : [ {\"ph\":\"X\","
		"\"ts\":-1.5e3,\"s\":\"\\u00e9\\\"\"} , {\"b\":[true,false,null]} , ] , "
		"\"tail\" : { \"k\" : 0.25 } }";
	size_t len = sizeof doc - 1, k;

	for (k = 0; k <= len; k++) {
		struct run r;
		char want[32];
		int rc;

		run_init(&r, doc, k, mode, 1 << 20, "in.json");
		rc = decode_document(&r.d);
		if (k == len) {
			ck_assert_int_eq(rc, DECODE_OK);
			ck_assert_uint_eq(r.d.events, 2);
		} else if (k == 0) {
			ck_assert_int_eq(rc, DECODE_INPUT);
			ck_assert_str_eq(r.d.err, "byte 0: empty input (no JSON document)");
		} else {
			ck_assert_msg(rc == DECODE_INPUT, "prefix %zu: status %d", k, rc);
			snprintf(want, sizeof want, "byte %zu", k);
			ck_assert_msg(strncmp(r.d.err, want, strlen(want)) == 0 &&
				      (r.d.err[strlen(want)] == ':' || r.d.err[strlen(want)] == ' '),
				      "prefix %zu: %s", k, r.d.err);
			ck_assert_msg(strstr(r.d.err, "truncated") != NULL, "prefix %zu: %s",
				      k, r.d.err);
		}
		run_free(&r);
	}
}
END_TEST

/* Array format: a prefix ending between events is a complete trace (the
 * closing ']' is optional); one ending inside an event is truncated. */
START_TEST(test_truncated_array)
{
	enum serve mode = (enum serve)_i;
	/*                         0 1      7 8 9       17 18 19    27 28 */
	static const char doc[] = "[{\"a\":1},{\"b\":[2]},{\"c\":\"}\"}]";
	size_t len = sizeof doc - 1, k;

	ck_assert_uint_eq(len, 29);
	for (k = 0; k <= len; k++) {
		struct run r;
		char want[96];
		int rc, events = -1;

		if (k == 1)
			events = 0;
		else if (k == 8 || k == 9)
			events = 1;
		else if (k == 18 || k == 19)
			events = 2;
		else if (k >= 28)
			events = 3;
		run_init(&r, doc, k, mode, 1 << 20, "in.json");
		rc = decode_document(&r.d);
		if (k == 0) {
			ck_assert_int_eq(rc, DECODE_INPUT);
			ck_assert_str_eq(r.d.err, "byte 0: empty input (no JSON document)");
		} else if (events >= 0) {
			ck_assert_msg(rc == DECODE_OK, "prefix %zu: %s", k, r.d.err);
			ck_assert_uint_eq(r.d.events, (uint64_t)events);
		} else {
			ck_assert_msg(rc == DECODE_INPUT, "prefix %zu: status %d", k, rc);
			snprintf(want, sizeof want, "byte %zu (event %d): " EOF_MSG, k,
				 k < 8 ? 0 : k < 18 ? 1 : 2);
			ck_assert_str_eq(r.d.err, want);
		}
		run_free(&r);
	}
}
END_TEST

/* ---- the source and the sink fail ---- */

START_TEST(test_read_error_everywhere)
{
	enum serve mode = (enum serve)_i;
	static const char doc[] = "{\"a\":[1,\"x\"],\"traceEvents\" : [{\"ph\":\"X\"},{\"b\":2},],"
		"\"z\":{\"k\":null}}";
	size_t len = sizeof doc - 1, k;

	for (k = 0; k <= len; k++) {
		struct run r;
		int rc;

		run_init(&r, doc, len, mode, 1 << 20, "in.json");
		r.f.fail_at = k;
		rc = decode_document(&r.d);
		/* the end of input is always read: every failure is a read failure */
		ck_assert_msg(rc == DECODE_READ, "fail at %zu: status %d (%s)", k, rc, r.d.err);
		run_free(&r);
	}
}
END_TEST

START_TEST(test_write_error)
{
	static const char doc[] = "[{\"a\":1},{\"b\":2}]";
	int fail_on;

	/* the head's three pieces, the first event, the second event */
	for (fail_on = 1; fail_on <= 5; fail_on++) {
		struct run r;

		run_init(&r, S(doc), SERVE_WHOLE, 100, "in.json");
		r.k.fail_on = fail_on;
		errno = 0;
		ck_assert_int_eq(decode_document(&r.d), DECODE_WRITE);
		ck_assert_int_eq(errno, ENOSPC);
		ck_assert_int_eq(r.k.calls, fail_on);
		run_free(&r);
	}
	/* the tail's three pieces */
	for (fail_on = 6; fail_on <= 8; fail_on++) {
		struct run r;

		run_init(&r, S(doc), SERVE_WHOLE, 100, "in.json");
		r.k.fail_on = fail_on;
		ck_assert_int_eq(decode_document(&r.d), DECODE_OK);
		errno = 0;
		ck_assert_int_eq(decode_put_tail(&r.d, 1, SHA), DECODE_WRITE);
		ck_assert_int_eq(errno, ENOSPC);
		ck_assert_int_eq(r.k.calls, fail_on);
		run_free(&r);
	}
}
END_TEST

/* max_members bounds the members on each side of traceEvents together,
 * as the record holds them; each member's value stays under max_event. */
START_TEST(test_max_members)
{
	/* before: "a":1,"b":2 (11 bytes); after: "c":"yyyyyyyyyy" (16 bytes) */
	static const char doc[] = "{\"a\":1, \"b\":2,\"traceEvents\":[],\"c\":\"yyyyyyyyyy\"}";
	static const struct { size_t max; int rc; const char *err; } cases[] = {
		{ 8, DECODE_INPUT, "byte 12 (top-level member): the top-level members before "
		  "traceEvents are larger than --max-member-bytes (8 bytes in all)" },
		{ 11, DECODE_INPUT, "byte 42 (top-level member): the top-level members after "
		  "traceEvents are larger than --max-member-bytes (11 bytes in all)" },
		{ 15, DECODE_INPUT, "byte 46 (top-level member): the top-level members after "
		  "traceEvents are larger than --max-member-bytes (15 bytes in all)" },
		{ 16, DECODE_OK, "" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct run r;

		run_init(&r, S(doc), SERVE_WHOLE, 100, "in.json");
		r.d.max_members = cases[i].max;
		ck_assert_int_eq(decode_document(&r.d), cases[i].rc);
		ck_assert_str_eq(r.d.err, cases[i].err);
		run_free(&r);
	}
}
END_TEST

/* The head of an object-format trace comes when traceEvents starts, so a
 * document refused before that point writes nothing. */
START_TEST(test_nothing_written_before_head)
{
	struct run r;

	run_init(&r, S("{\"a\":1,\"b\":2}"), SERVE_WHOLE, 100, "in.json");
	ck_assert_int_eq(decode_document(&r.d), DECODE_INPUT);
	ck_assert_int_eq(r.k.calls, 0);
	ck_assert_uint_eq(r.k.out.len, 0);
	run_free(&r);
}
END_TEST

/* ---- events scanned straight into the writer (struct decode's direct)
 * against put_event's way, through the same writer: over every cut and
 * thousands of mutations of a document, with small writer blocks of many
 * sizes, the same status, message, bytes and flushes. */

struct wrun {
	struct feeder f;
	struct scan s;
	struct writer w;
	struct decode d;
	FILE *file;
};

static void wrun_go(struct wrun *r, const char *data, size_t len, enum serve mode, size_t cap,
		    int direct)
{
	memset(r, 0, sizeof *r);
	r->f.data = data;
	r->f.len = len;
	r->f.mode = mode;
	r->f.rng = 2463534242u + (uint32_t)len;
	r->f.fail_at = SIZE_MAX;
	r->file = tmpfile();
	ck_assert_ptr_nonnull(r->file);
	ck_assert_int_eq(writer_init(&r->w, fileno(r->file)), 0);
	ck_assert_uint_ge(r->w.cap, cap);
	r->w.cap = cap;  /* a small block: events meet its end often */
	ck_assert_int_eq(scan_init(&r->s, feed_read, &r->f, 300), SCAN_OK);
	decode_init(&r->d, &r->s, writer_put_fn, &r->w, "in.json", "tr-test");
	if (direct)
		r->d.direct = &r->w;
}

static void file_bytes(FILE *file, struct buf *b)
{
	char chunk[512];
	size_t n;

	ck_assert_int_eq(fseek(file, 0, SEEK_SET), 0);
	while ((n = fread(chunk, 1, sizeof chunk, file)) > 0)
		ck_assert_int_eq(buf_add(b, chunk, n), 0);
}

static unsigned direct_ok, direct_bad;

static void direct_both(const char *data, size_t len, enum serve mode, size_t cap)
{
	struct wrun a, b;
	struct buf fa = BUF_INIT, fb = BUF_INIT;
	int rca, rcb;

	wrun_go(&a, data, len, mode, cap, 1);
	wrun_go(&b, data, len, mode, cap, 0);
	rca = decode_document(&a.d);
	rcb = decode_document(&b.d);
	ck_assert_int_eq(rca, rcb);
	ck_assert_str_eq(a.d.err, b.d.err);
	ck_assert_uint_eq(a.d.events, b.d.events);
	/* the same writes so far, and the same bytes waiting in the block */
	ck_assert_uint_eq(a.w.written, b.w.written);
	ck_assert_uint_eq(a.w.len, b.w.len);
	ck_assert_mem_eq(a.w.buf, b.w.buf, a.w.len);
	file_bytes(a.file, &fa);
	file_bytes(b.file, &fb);
	ck_assert_uint_eq(fa.len, fb.len);
	ck_assert_mem_eq(fa.p, fb.p, fa.len);
	if (rca == DECODE_OK)
		direct_ok++;
	else
		direct_bad++;
	buf_release(&fa);
	buf_release(&fb);
	decode_free(&a.d);
	decode_free(&b.d);
	scan_free(&a.s);
	scan_free(&b.s);
	writer_free(&a.w);
	writer_free(&b.w);
	fclose(a.file);
	fclose(b.file);
}

START_TEST(test_direct_agrees)
{
	static const char doc[] = "{\"a\":1,\"traceEvents\":[{\"ph\":\"X\",\"ts\":1712195495519689.047,"
		"\"name\":\"k<\\\"\\u00e9>\"},\n{ \"b\" : [ 1 , 2 ] }, {\"@t\":1}  ,{\"c\":{\"d\":null}},"
		"{\"e\":\"0123456789abcdef0123456789abcdef\",\"f\":[true,false]},{}],\"z\":[1]}";
	static const char alphabet[] = "{}[]\":,\\ \n-.0123456789etrufalsn@\x01x";
	char data[sizeof doc + 8];
	uint32_t rng = 0x3C6EF372u;
	size_t n = sizeof doc - 1, i;

	static const char control[] = "[{\"a\":1},{\"b\":2},{\"@tr\":\"head\"}]";

	for (i = 0; i <= n; i++) /* every cut, every block size from 2 to 99 */
		direct_both(doc, i, i % 3 == 0 ? SERVE_RANDOM : SERVE_WHOLE, 2 + i % 98);
	for (i = 2; i < 100; i++) /* refused wherever the block ends */
		direct_both(control, sizeof control - 1, SERVE_WHOLE, i);
	for (i = 0; i < 3000; i++) {
		size_t len;
		memcpy(data, doc, n);
		len = mutate_text(data, n, sizeof data, alphabet, sizeof alphabet - 1, &rng);
		direct_both(data, len, i % 5 == 0 ? SERVE_RANDOM : SERVE_WHOLE,
			    2 + next_rand(&rng) % 200);
	}
	ck_assert_uint_gt(direct_ok, 300);
	ck_assert_uint_gt(direct_bad, 1000);
}
END_TEST

static Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *ok = tcase_create("ok");
	TCase *bad = tcase_create("bad");
	TCase *trunc = tcase_create("truncated");
	TCase *io = tcase_create("io");

	tcase_add_loop_test(ok, test_ok, 0, (int)COUNT(ok_cases));
	tcase_add_test(ok, test_source_name_escaped);
	tcase_add_loop_test(ok, test_max_event_exact, 0, NSERVE);
	suite_add_tcase(s, ok);

	tcase_add_loop_test(bad, test_bad, 0, (int)COUNT(bad_cases));
	tcase_add_test(bad, test_nothing_written_before_head);
	tcase_add_test(bad, test_max_members);
	suite_add_tcase(s, bad);

	tcase_set_timeout(trunc, 60);
	tcase_add_loop_test(trunc, test_truncated_object, 0, NSERVE);
	tcase_add_loop_test(trunc, test_truncated_array, 0, NSERVE);
	suite_add_tcase(s, trunc);

	tcase_set_timeout(io, 60);
	tcase_add_loop_test(io, test_read_error_everywhere, 0, NSERVE);
	tcase_add_test(io, test_write_error);
	tcase_add_test(io, test_direct_agrees);
	suite_add_tcase(s, io);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(decode_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
