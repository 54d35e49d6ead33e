/* Unit tests for common/perfetto/pftrace.c: the exact bytes of a one-event trace
 * (root descriptor with explicit ordering, process and thread descriptors,
 * the clock snapshot of the incremental clock, SLICE_BEGIN with the packet
 * defaults and a delta timestamp, with interned name and category and the clearing flags, the
 * SLICE_END at ts + dur without flags); flows on the packet that begins
 * the slice Perfetto's JSON import binds them to (out of file order,
 * nested, past a spilled slice), left out with no slice; metadata
 * names written again in their descriptors; the interning bound clearing
 * the state; the flow id of (cat, name, id); pftrace_kind; what a
 * metadata event sets (pf_ids_meta, which the reader shares). */
#define _GNU_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto/pftrace.h"

static int put_buf(void *ctx, const void *data, size_t n)
{
	return buf_add(ctx, data, n);
}

static void ev(struct pftrace *p, const char *line)
{
	ck_assert_int_eq(pftrace_event(p, line, strlen(line)), PFTRACE_OK);
}

#define B(lit) lit, sizeof(lit) - 1

START_TEST(test_exact_bytes)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	static const char want[] =
		/* root: seq 1, descriptor { uuid 0, process and thread ordering explicit } */
		"\x0a\x0d\x50\x01\xe2\x03\x08\x08\x00\x98\x01\x01\xa0\x01\x01"
		/* process: uuid 1, pid 1 */
		"\x0a\x0b\x50\x01\xe2\x03\x06\x08\x01\x1a\x02\x08\x01"
		/* thread: uuid 2, parent 1, pid 1, tid 2 */
		"\x0a\x0f\x50\x01\xe2\x03\x0a\x08\x02\x28\x01\x22\x04\x08\x01\x10\x02"
		/* clock snapshot: seq 1, { clocks { id 6, ts 1000 } clocks { id 64,
		 * ts 1000, incremental } } */
		"\x0a\x14\x50\x01\x32\x10\x0a\x05\x08\x06\x10\xe8\x07"
		"\x0a\x07\x08\x40\x10\xe8\x07\x18\x01"
		/* begin: ts +0, seq 1, flags 3, defaults { clock 64 }, { type 1,
		 * track 2, cat 1, name 1 }, interned { categories { 1 "c" } names
		 * { 1 "a" } } */
		"\x0a\x26\x40\x00\x50\x01\x68\x03\xda\x03\x03\xd0\x03\x40"
		"\x5a\x08\x48\x01\x58\x02\x18\x01\x50\x01"
		"\x62\x0e\x0a\x05\x08\x01\x12\x01" "c" "\x12\x05\x08\x01\x12\x01" "a"
		/* end: ts +2000, seq 1, { type 2, track 2 } */
		"\x0a\x0b\x40\xd0\x0f\x50\x01\x5a\x04\x48\x02\x58\x02";

	ck_assert_int_eq(pftrace_init(&p, put_buf, &out), PFTRACE_OK);
	ev(&p, "{\"ph\":\"X\",\"name\":\"a\",\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":2}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(out.len, sizeof want - 1);
	ck_assert(memcmp(out.p, want, out.len) == 0);
	ck_assert_uint_eq(p.packets, 6);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

/* The number of times field `key` (its key bytes) stands in out. */
static size_t count(const struct buf *out, const char *key, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i + n <= out->len; i++)
		c += memcmp(out->p + i, key, n) == 0;
	return c;
}

/* The packet (its index from 0) of out holding bytes key, or -1. */
static int packet_of(const struct buf *out, const char *key, size_t n)
{
	size_t i = 0;
	int k = 0;

	while (i < out->len) {
		size_t len = 0, shift = 0, j = i + 1;
		while (out->p[j] & 0x80)
			len |= (size_t)(out->p[j++] & 0x7f) << shift, shift += 7;
		len |= (size_t)out->p[j++] << shift;
		if (memmem(out->p + j, len, key, n) != NULL)
			return k;
		i = j + len;
		k++;
	}
	return -1;
}

START_TEST(test_flows)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	int launch, kernel;

	pftrace_init(&p, put_buf, &out);
	/* the s comes after a later slice of its thread: it binds to the slice
	 * that spans its ts, in Perfetto's order, not to the last one written */
	ev(&p, "{\"ph\":\"X\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}");
	ev(&p, "{\"ph\":\"X\",\"name\":\"later\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":2}");
	ev(&p, "{\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":2,\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
	/* f without bp: the next slice that begins after it */
	ev(&p, "{\"ph\":\"f\",\"id\":7,\"pid\":0,\"tid\":3,\"ts\":4,\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
	ev(&p, "{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":0,\"tid\":3,\"ts\":5,\"dur\":1}");
	/* at the ts of a slice with a length, that slice comes first: no next one */
	ev(&p, "{\"ph\":\"f\",\"id\":9,\"pid\":0,\"tid\":3,\"ts\":5,\"cat\":\"x\",\"name\":\"x\"}");
	/* a flow on a thread that never has a slice: left out */
	ev(&p, "{\"ph\":\"s\",\"id\":8,\"pid\":0,\"tid\":9,\"ts\":5,\"cat\":\"x\",\"name\":\"x\"}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.flows, 2);
	ck_assert_uint_eq(p.flows_dropped, 2);
	/* flow_ids (47, fixed64: key f9 02) and terminating_flow_ids (48: 81 03),
	 * each on the packet that begins its slice (the one interning its name) */
	ck_assert_uint_eq(count(&out, B("\xf9\x02")), 1);
	ck_assert_uint_eq(count(&out, B("\x81\x03")), 1);
	launch = packet_of(&out, B("launch"));
	kernel = packet_of(&out, B("kernel"));
	ck_assert_int_ge(launch, 0);
	ck_assert_int_eq(packet_of(&out, B("\xf9\x02")), launch);
	ck_assert_int_eq(packet_of(&out, B("\x81\x03")), kernel);
	ck_assert_uint_eq(pftrace_flow_id(B("ac2g"), B("ac2g"), B("7")),
			  pftrace_flow_id(B("ac2g"), B("ac2g"), B("7")));
	ck_assert_uint_ne(pftrace_flow_id(B("ac2g"), B("ac2g"), B("7")),
			  pftrace_flow_id(B("ac2"), B("gac2g"), B("7")));
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

/* Slices out of order on a thread, nested and spilled: each flow on the
 * slice on top of Perfetto's stack at its ts. */
START_TEST(test_binding_order)
{
	struct buf out = BUF_INIT;
	struct pftrace p;

	pftrace_init(&p, put_buf, &out);
	/* the flow at 6 binds to "inner" [5, 7] inside "outer" [0, 20], though
	 * "outer" comes last in the file; the flow at 8 to "inner" too (ended,
	 * but no slice has begun since); "spill" [15, 25] pops "inner" and
	 * sticks out of "outer" (an overflow track in Perfetto): the flow at
	 * 16 binds to "outer", and so does the flow at 1 */
	ev(&p, "{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":6,\"cat\":\"c\",\"name\":\"n\"}");
	ev(&p, "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":2}");
	ev(&p, "{\"ph\":\"s\",\"id\":2,\"pid\":1,\"tid\":1,\"ts\":8,\"cat\":\"c\",\"name\":\"n\"}");
	ev(&p, "{\"ph\":\"X\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":20}");
	ev(&p, "{\"ph\":\"X\",\"name\":\"spill\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":10}");
	ev(&p, "{\"ph\":\"s\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":16,\"cat\":\"c\",\"name\":\"n\"}");
	ev(&p, "{\"ph\":\"s\",\"id\":4,\"pid\":1,\"tid\":1,\"ts\":1,\"cat\":\"c\",\"name\":\"n\"}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.flows, 4);
	ck_assert_uint_eq(count(&out, B("\xf9\x02")), 4);
	/* inner: flows 1 and 2; outer: 3 (spill left it on top) and 4 */
	{
		int inner = packet_of(&out, B("inner")), outer = packet_of(&out, B("outer"));
		uint64_t id[5];
		int k;
		for (k = 1; k <= 4; k++) {
			char t[2] = { (char)('0' + k), 0 }, key[10];
			id[k] = pftrace_flow_id(B("\"c\""), B("\"n\""), t, 1);
			key[0] = (char)0xf9;
			key[1] = 2;
			memcpy(key + 2, &id[k], 8);
			ck_assert_int_eq(packet_of(&out, key, 10), k <= 2 ? inner : outer);
		}
	}
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

START_TEST(test_metadata)
{
	struct buf out = BUF_INIT;
	struct pftrace p;

	pftrace_init(&p, put_buf, &out);
	ev(&p, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4,\"args\":{\"name\":\"GPU 4\"}}");
	ev(&p, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":4,\"args\":{\"sort_index\":2.7}}");
	ev(&p, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4,\"tid\":\"s\",\"args\":{\"name\":\"lane\"}}");
	ev(&p, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":4,\"args\":{\"labels\":\"x\"}}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.ids.nprocs, 1);
	ck_assert_str_eq(p.ids.procs[0].name, "GPU 4");
	ck_assert_int_eq(p.ids.procs[0].rank, 2);
	ck_assert_str_eq(p.ids.threads[0].name, "lane");
	ck_assert_int_eq(p.ids.threads[0].tid, PFTRACE_SYNTH_TID);
	/* root, process (name), process (rank), thread: no event packet */
	ck_assert_uint_eq(p.packets, 4);
	ck_assert_uint_eq(count(&out, B("GPU 4")), 2);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

START_TEST(test_intern_bound)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	char line[200];
	int i;

	pftrace_init(&p, put_buf, &out);
	for (i = 0; i < PFTRACE_INTERN_MAX_ENTRIES + 10; i++) {
		snprintf(line, sizeof line,
			 "{\"ph\":\"i\",\"name\":\"n%d\",\"pid\":1,\"tid\":1,\"ts\":%d}", i, i);
		ev(&p, line);
	}
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.resets, 1);
	/* sequence_flags 3: on the first event packet and after the reset */
	ck_assert_uint_eq(count(&out, B("\x50\x01\x68\x03")), 2);
	ck_assert_uint_le(p.names.n, 16);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

START_TEST(test_kinds)
{
	ck_assert_int_eq(pftrace_kind(B("\"X\"")), PF_K_SLICE);
	ck_assert_int_eq(pftrace_kind(B("\"I\"")), PF_K_INSTANT);
	ck_assert_int_eq(pftrace_kind(B("\"t\"")), PF_K_FLOW);
	ck_assert_int_eq(pftrace_kind(B("\"b\"")), PF_K_SKIP);
	ck_assert_int_eq(pftrace_kind(B("\"XX\"")), PF_K_SKIP);
	ck_assert_int_eq(pftrace_kind("", 0), PF_K_SKIP);
}
END_TEST

START_TEST(test_refusal)
{
	struct buf out = BUF_INIT;
	struct pftrace p;

	pftrace_init(&p, put_buf, &out);
	ck_assert_int_eq(pftrace_event(&p, B("[1]")), PFTRACE_INPUT);
	ck_assert_str_eq(p.err, "an event line that is not an object");
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

/* pf_ids_meta on one event line: its status, *th and *pr. */
static int meta_of(struct pf_ids *ids, const char *line, int64_t *th, int64_t *pr)
{
	struct jdoc d = JDOC_INIT;
	struct buf tmp = BUF_INIT;
	int nomem = 0, i, k, cnt, name = -1, args = -1, pid = -1, tid = -1, created, rc;
	size_t pn = 0, tn = 0;
	const char *pt = "", *tt = "";

	ck_assert_int_eq(json_parse(&d, line, strlen(line), &nomem), 0);
	cnt = json_size(&d, 0);
	for (i = 1, k = 0; k < cnt; k++, i = json_next(&d, i + 1)) {
		if (json_str_eq(&d, i, "name"))
			name = i + 1;
		else if (json_str_eq(&d, i, "args"))
			args = i + 1;
		else if (json_str_eq(&d, i, "pid"))
			pid = i + 1;
		else if (json_str_eq(&d, i, "tid"))
			tid = i + 1;
	}
	if (pid >= 0)
		pt = json_raw(&d, pid, &pn);
	if (tid >= 0)
		tt = json_raw(&d, tid, &tn);
	rc = pf_ids_meta(ids, &d, name, args, pt, pn, tt, tn, &tmp, th, pr, &created);
	json_free(&d);
	buf_release(&tmp);
	return rc;
}

START_TEST(test_ids_meta)
{
	struct pf_ids ids;
	int64_t th, pr;

	memset(&ids, 0, sizeof ids);
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"process_name\",\"pid\":7,"
				 "\"args\":{\"name\":\"GPU \\u0037\"}}", &th, &pr), PF_META_SET);
	ck_assert_int_eq(th, -1);
	ck_assert_int_eq(pr, 0);
	ck_assert_str_eq(ids.procs[0].name, "GPU 7");
	/* a double rank truncated toward zero, a large one clamped */
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"thread_sort_index\",\"pid\":7,\"tid\":3,"
				 "\"args\":{\"sort_index\":-2.9}}", &th, &pr), PF_META_SET);
	ck_assert_int_eq(th, 0);
	ck_assert_int_eq(pr, 0);
	ck_assert_int_eq(ids.threads[0].has_rank, 1);
	ck_assert_int_eq(ids.threads[0].rank, -2);
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"process_sort_index\",\"pid\":7,"
				 "\"args\":{\"sort_index\":99999999999}}", &th, &pr), PF_META_SET);
	ck_assert_int_eq(ids.procs[0].rank, INT32_MAX);
	/* a value of the wrong type or too large a double: the ids, nothing set */
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"thread_name\",\"pid\":7,\"tid\":4,"
				 "\"args\":{\"name\":5}}", &th, &pr), PF_META_IDS);
	ck_assert_int_eq(th, 1);
	ck_assert_ptr_null(ids.threads[1].name);
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"thread_sort_index\",\"pid\":7,\"tid\":4,"
				 "\"args\":{\"sort_index\":1e12}}", &th, &pr), PF_META_IDS);
	ck_assert_int_eq(ids.threads[1].has_rank, 0);
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"thread_name\",\"pid\":7,\"tid\":4,"
				 "\"args\":{}}", &th, &pr), PF_META_IDS);
	/* no process or thread named: nothing made */
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"process_labels\",\"pid\":8,"
				 "\"args\":{\"labels\":\"x\"}}", &th, &pr), PF_META_NONE);
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"thread_name\",\"pid\":8,"
				 "\"args\":{\"name\":\"t\"}}", &th, &pr), PF_META_NONE);
	ck_assert_int_eq(meta_of(&ids, "{\"name\":\"process_name\",\"pid\":8,"
				 "\"args\":[1]}", &th, &pr), PF_META_NONE);
	ck_assert_uint_eq(ids.nprocs, 1);
	ck_assert_uint_eq(ids.nthreads, 2);
	ck_assert_str_eq(ids.procs[0].name, "GPU 7");
	pf_ids_free(&ids);
}
END_TEST

/* The fields of every top-level debug annotation of out's track events,
 * in order: each field's number into num (PF_DA_NAME_IID, then the
 * value's: PF_DA_INT, PF_DA_UINT, PF_DA_DOUBLE, PF_DA_ARRAY, ...) and its
 * varint or fixed bits into v.  How many. */
static size_t da_fields(const struct buf *out, uint32_t *num, uint64_t *v, size_t max)
{
	const unsigned char *q = (const unsigned char *)out->p, *end = q + out->len;
	struct pb_field pkt, f, te, da;
	size_t k = 0;

	while (pb_next(&q, end, &pkt) == 1) {
		const unsigned char *pq = pkt.data, *pe = pkt.data + pkt.len;
		while (pb_next(&pq, pe, &f) == 1) {
			const unsigned char *tq = f.data, *tend = f.data + f.len;
			if (f.num != PF_PKT_TRACK_EVENT)
				continue;
			while (pb_next(&tq, tend, &te) == 1) {
				const unsigned char *dq = te.data, *dend = te.data + te.len;
				if (te.num != PF_TE_DEBUG)
					continue;
				while (pb_next(&dq, dend, &da) == 1 && k < max) {
					num[k] = da.num;
					v[k++] = da.v;
				}
			}
		}
	}
	return k;
}

/* Of da_fields, those whose number is (want) or is not (!want) a name
 * iid, moved to the front.  How many. */
static size_t only_names(uint32_t *num, uint64_t *v, size_t n, int want)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if ((num[i] == PF_DA_NAME_IID) == want) {
			num[k] = num[i];
			v[k++] = v[i];
		}
	return k;
}

/* Integers read in one pass where they are plain; every other number as
 * before: past int64 a uint, past uint64 or with a point a double. */
START_TEST(test_arg_numbers)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	uint32_t field[32];
	uint64_t bits[32];
	static const struct { uint32_t field; uint64_t bits; } want[] = {
		{ PF_DA_INT, 0 }, { PF_DA_INT, 0 }, { PF_DA_INT, 123456789012345678ULL },
		{ PF_DA_INT, (uint64_t)-123456789012345678LL }, { PF_DA_INT, (uint64_t)INT64_MAX },
		{ PF_DA_INT, (uint64_t)INT64_MIN }, { PF_DA_UINT, 9999999999999999999ULL },
		{ PF_DA_DOUBLE, 0x43f0000000000000ULL },   /* 2^64 */
		{ PF_DA_DOUBLE, 0x3ff8000000000000ULL },   /* 1.5 */
		{ PF_DA_INT, (uint64_t)-7 }, { PF_DA_DOUBLE, 0x40c3880000000000ULL },  /* 1e4 */
	};
	size_t n, i;

	pftrace_init(&p, put_buf, &out);
	ev(&p, "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{"
	   "\"a\":0,\"b\":-0,\"c\":123456789012345678,\"d\":-123456789012345678,"
	   "\"e\":9223372036854775807,\"f\":-9223372036854775808,\"g\":9999999999999999999,"
	   "\"h\":18446744073709551616,\"i\":1.5,\"j\": -7 ,\"k\":1e4,\"l\":[42]}}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	n = da_fields(&out, field, bits, 32);
	n = only_names(field, bits, n, 0);
	ck_assert_uint_eq(n, sizeof want / sizeof want[0] + 1);
	for (i = 0; i + 1 < n; i++) {
		ck_assert_uint_eq(field[i], want[i].field);
		ck_assert_uint_eq(bits[i], want[i].bits);
	}
	/* the array's element is a nested annotation */
	ck_assert_uint_eq(field[n - 1], PF_DA_ARRAY);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

/* Args keys in changing orders: each its own iid, whatever key came
 * before it last time ("bb" after "a" is new: 4, not "b"). */
START_TEST(test_arg_keys)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	uint32_t num[32];
	uint64_t iid[32];
	static const uint64_t want[] = { 1, 2, 2, 1, 1, 3, 1, 4, 3 };
	size_t n, i;

	pftrace_init(&p, put_buf, &out);
	ev(&p, "{\"ph\":\"i\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"a\":1,\"b\":2}}");
	ev(&p, "{\"ph\":\"i\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":2,\"args\":{\"b\":1,\"a\":2}}");
	ev(&p, "{\"ph\":\"i\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{\"a\":1,\"c\":2}}");
	ev(&p, "{\"ph\":\"i\",\"name\":\"e\",\"pid\":1,\"tid\":1,\"ts\":4,\"args\":{\"a\":1,\"bb\":2,\"c\":3}}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	n = da_fields(&out, num, iid, 32);
	n = only_names(num, iid, n, 1);
	ck_assert_uint_eq(n, 9);
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(iid[i], want[i]);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

/* Members after a nested args value, whose strings hold brackets and
 * braces, are still found. */
START_TEST(test_members_after_args)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	uint32_t num[8];
	uint64_t iid[8];
	size_t n;

	pftrace_init(&p, put_buf, &out);
	ev(&p, "{\"ph\":\"i\",\"args\":{\"a\":[1,{\"b\":\"]}{[\"},[]],\"c\":{\"d\":\"}\"}},"
	   "\"name\":\"after\",\"ts\":1,\"pid\":1,\"tid\":1}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(p.skipped, 0);
	ck_assert_uint_eq(count(&out, B("after")), 1);
	n = da_fields(&out, num, iid, 8);
	ck_assert_uint_eq(only_names(num, iid, n, 1), 2);   /* a and c at the top */
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

/* The times of out's packets that have one, in order: the clock
 * snapshot's start of the incremental clock plus each delta. */
static size_t packet_times(const struct buf *out, int64_t *ts, size_t max)
{
	const unsigned char *q = (const unsigned char *)out->p, *end = q + out->len;
	struct pb_field pkt, f, c, k;
	uint64_t clock = 0;
	size_t n = 0;

	while (pb_next(&q, end, &pkt) == 1) {
		const unsigned char *pq = pkt.data, *pe = pkt.data + pkt.len;
		while (pb_next(&pq, pe, &f) == 1) {
			if (f.num == PF_PKT_CLOCK_SNAPSHOT) {
				const unsigned char *cq = f.data, *ce = f.data + f.len;
				while (pb_next(&cq, ce, &c) == 1) {
					const unsigned char *kq = c.data, *ke = c.data + c.len;
					uint64_t id = 0, t = 0;
					while (pb_next(&kq, ke, &k) == 1) {
						if (k.num == PF_CS_CLOCK_ID)
							id = k.v;
						if (k.num == PF_CS_TIMESTAMP)
							t = k.v;
					}
					if (id == PFTRACE_CLOCK)
						clock = t;
				}
			} else if (f.num == PF_PKT_TIMESTAMP && n < max) {
				clock += f.v;
				ts[n++] = (int64_t)clock;
			}
		}
	}
	return n;
}

/* Times far apart, in no order, come back exact through the temporary
 * file (each kept there as the difference from the one before). */
START_TEST(test_spill_times)
{
	struct buf out = BUF_INIT;
	struct pftrace p;
	int64_t ts[8];
	static const int64_t want[] = { 9000000000000000000LL, 9000000000000001000LL, 1, 1001,
					-4500000000000000000LL };

	pftrace_init(&p, put_buf, &out);
	ev(&p, "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":9000000000000000,\"dur\":1}");
	ev(&p, "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":0.001,\"dur\":1}");
	ev(&p, "{\"ph\":\"i\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":-4500000000000000}");
	ck_assert_int_eq(pftrace_finish(&p), PFTRACE_OK);
	ck_assert_uint_eq(packet_times(&out, ts, 8), 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_int_eq(ts[i], want[i]);
	pftrace_free(&p);
	buf_release(&out);
}
END_TEST

static Suite *pftrace_suite(void)
{
	Suite *s = suite_create("pftrace");
	TCase *tc = tcase_create("writer");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exact_bytes);
	tcase_add_test(tc, test_flows);
	tcase_add_test(tc, test_binding_order);
	tcase_add_test(tc, test_metadata);
	tcase_add_test(tc, test_intern_bound);
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_refusal);
	tcase_add_test(tc, test_ids_meta);
	tcase_add_test(tc, test_arg_numbers);
	tcase_add_test(tc, test_arg_keys);
	tcase_add_test(tc, test_members_after_args);
	tcase_add_test(tc, test_spill_times);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pftrace_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
