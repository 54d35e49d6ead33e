/* pftrace: see pftrace.h.
 *
 * Flows.  A JSON flow event (s, t, f) is not a slice: Perfetto's JSON
 * import sorts a track's events (by ts; at one ts slices with a length
 * first, the longer first, then the rest in file order) and binds s, t and
 * f with "bp":"e" to the slice on top of the track's stack there (the last
 * slice begun, ended or not, unless one begun later popped it), f without
 * bp to the next slice that begins (verifybind.h has the same rule for
 * tr-verify).  A TrackEvent carries its flows itself (flow_ids,
 * terminating_flow_ids on the packet that begins the slice: Perfetto
 * binds them to the slice the packet begins, and the begin of the slice
 * of an s comes before the slice of its f), and a thread's events come
 * in no particular order, so the packets go, in file order, to a
 * temporary file, the slices and flows to an external sort (extsort.h),
 * and at the end each thread's are taken in Perfetto's order and the
 * packets written with the flows bound to their slices.  Memory stays
 * bounded; the disk holds the packets once more while the trace is read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json/event.h"
#include "core/extsort.h"
#include "core/io.h"
#include "perfetto/pftrace.h"
#include "json/tsnum.h"

enum pf_kind pftrace_kind(const char *ph, size_t n)
{
	if (n != 3 || ph[0] != '"' || ph[2] != '"')
		return PF_K_SKIP;
	switch (ph[1]) {
	case 'X': return PF_K_SLICE;
	case 'B': return PF_K_BEGIN;
	case 'E': return PF_K_END;
	case 'i': case 'I': return PF_K_INSTANT;
	case 'C': return PF_K_COUNTER;
	case 's': case 't': case 'f': return PF_K_FLOW;
	case 'M': return PF_K_META;
	default: return PF_K_SKIP;
	}
}

uint64_t pftrace_flow_id(const char *cat, size_t cn, const char *name, size_t nn,
			 const char *id, size_t in)
{
	const char *part[3] = { cat, name, id };
	size_t len[3] = { cn, nn, in }, i, k;
	uint64_t h = 14695981039346656037ULL;

	for (k = 0; k < 3; k++) {
		for (i = 0; i < len[k]; i++) {
			h ^= (unsigned char)part[k][i];
			h *= 1099511628211ULL;
		}
		h ^= 0xff;  /* a separator no text byte of a key ends with */
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

/* ---- ids --------------------------------------------------------------- */

/* A raw JSON integer text within [lo, hi]: 1 with *v, else 0. */
static int raw_int(const char *t, size_t n, int64_t lo, int64_t hi, int64_t *v)
{
	int64_t x;

	if (n == 0 || tsnum_parse_int64(t, n, &x) != NUM_OK || x < lo || x > hi)
		return 0;
	*v = x;
	return 1;
}

/* the string of a raw JSON string text (or the raw text of anything else) */
static char *raw_label(const char *t, size_t n)
{
	struct buf b = BUF_INIT;

	if (n >= 2 && t[0] == '"') {
		if (json_unescape(t + 1, n - 2, &b) != 0) {
			buf_release(&b);
			return buf_memdup(t, n);
		}
		return b.p == buf_empty ? buf_memdup("", 0) : b.p;
	}
	return buf_memdup(t, n);
}

int64_t pf_ids_proc(struct pf_ids *ids, const char *pid, size_t pn, int *created)
{
	uint32_t before = ids->procs_by_raw.n;
	int64_t k = intern_id(&ids->procs_by_raw, pid, pn), v;
	struct pf_proc *p;

	*created = 0;
	if (k < 0)
		return -1;
	if (ids->procs_by_raw.n == before)
		return k;
	if (buf_array_room((void **)&ids->procs, ids->nprocs, &ids->capprocs, 16,
			   sizeof *ids->procs) != 0)
		return -1;
	p = &ids->procs[ids->nprocs++];
	memset(p, 0, sizeof *p);
	p->uuid = ++ids->next_uuid;
	if (raw_int(pid, pn, INT32_MIN, INT32_MAX, &v)) {
		p->pid = (int32_t)v;
	} else {
		p->pid = PFTRACE_SYNTH_PID + ids->next_synth_pid++;
		p->synthetic = 1;
		if ((p->name = raw_label(pid, pn)) == NULL)
			return -1;
	}
	*created = 1;
	return k;
}

int64_t pf_ids_thread(struct pf_ids *ids, const char *pid, size_t pn, const char *tid,
		      size_t tn, int *created)
{
	struct buf key = BUF_INIT;
	int64_t k, proc, v;
	uint32_t before = ids->threads_by_raw.n;
	struct pf_thread *t;
	int pc;

	*created = 0;
	/* most events are on the thread of the one before */
	if (ids->last_len > 0 && pn + 1 + tn == ids->last_len &&
	    memcmp(ids->last_key, pid, pn) == 0 && memcmp(ids->last_key + pn + 1, tid, tn) == 0)
		return ids->last_thread;
	if ((proc = pf_ids_proc(ids, pid, pn, &pc)) < 0)
		return -1;
	*created = pc;
	/* a pid's text never holds a NUL byte: the pair is unambiguous */
	if (buf_add(&key, pid, pn) != 0 || buf_addch(&key, '\0') != 0 ||
	    buf_add(&key, tid, tn) != 0) {
		buf_release(&key);
		return -1;
	}
	k = intern_id(&ids->threads_by_raw, key.p, key.len);
	if (k >= 0 && key.len <= sizeof ids->last_key) {
		memcpy(ids->last_key, key.p, key.len);
		ids->last_len = key.len;
		ids->last_thread = k;
	}
	buf_release(&key);
	if (k < 0)
		return -1;
	if (ids->threads_by_raw.n == before)
		return k;
	if (buf_array_room((void **)&ids->threads, ids->nthreads, &ids->capthreads, 16,
			   sizeof *ids->threads) != 0)
		return -1;
	t = &ids->threads[ids->nthreads++];
	memset(t, 0, sizeof *t);
	t->uuid = ++ids->next_uuid;
	t->proc = (uint32_t)proc;
	if (raw_int(tid, tn, INT64_MIN, INT64_MAX, &v)) {
		t->tid = v;
	} else {
		t->tid = PFTRACE_SYNTH_TID + ids->next_synth_tid++;
		t->synthetic = 1;
		if ((t->name = raw_label(tid, tn)) == NULL)
			return -1;
	}
	*created |= 2;
	return k;
}

/* A name or rank set from the metadata event's args member at idx. */
static int meta_value(struct pf_ids *ids, const struct jdoc *d, int idx, int name, int64_t th,
		      int64_t pr, struct buf *tmp)
{
	int64_t v;

	if (name) {
		char **slot = th >= 0 ? &ids->threads[th].name : &ids->procs[pr].name;
		if (json_type(d, idx) != JT_STRING)
			return PF_META_IDS;
		buf_reset(tmp);
		if (json_token_unescape(d, idx, tmp) != 0)
			return PF_META_ESCAPE;
		free(*slot);
		if ((*slot = buf_memdup(tmp->p, tmp->len)) == NULL)
			return PF_META_NOMEM;
		return PF_META_SET;
	}
	if (json_type(d, idx) != JT_PRIMITIVE)
		return PF_META_IDS;
	{
		size_t n;
		const char *t = json_text(d, idx, &n);
		if (tsnum_parse_int64(t, n, &v) != NUM_OK) {
			/* a double, truncated, as Perfetto's JSON import does */
			char *end;
			double x;
			buf_reset(tmp);
			if (buf_add(tmp, t, n) != 0)
				return PF_META_NOMEM;
			x = strtod(tmp->p, &end);
			if (!(x > -2147483649.0 && x < 2147483648.0))
				return PF_META_IDS;
			v = (int64_t)x;
		}
	}
	if (v < INT32_MIN)
		v = INT32_MIN;
	if (v > INT32_MAX)
		v = INT32_MAX;
	if (th >= 0) {
		ids->threads[th].has_rank = 1;
		ids->threads[th].rank = (int32_t)v;
	} else {
		ids->procs[pr].has_rank = 1;
		ids->procs[pr].rank = (int32_t)v;
	}
	return PF_META_SET;
}

int pf_ids_meta(struct pf_ids *ids, const struct jdoc *d, int name_tok, int args_tok,
		const char *pid, size_t pn, const char *tid, size_t tn, struct buf *tmp,
		int64_t *th, int64_t *pr, int *created)
{
	int is_thread, name, idx;

	*th = -1;
	*pr = -1;
	*created = 0;
	if (name_tok < 0 || args_tok < 0 || json_type(d, args_tok) != JT_OBJECT)
		return PF_META_NONE;
	if (json_str_eq(d, name_tok, "process_name")) { is_thread = 0; name = 1; }
	else if (json_str_eq(d, name_tok, "thread_name")) { is_thread = 1; name = 1; }
	else if (json_str_eq(d, name_tok, "process_sort_index")) { is_thread = 0; name = 0; }
	else if (json_str_eq(d, name_tok, "thread_sort_index")) { is_thread = 1; name = 0; }
	else return PF_META_NONE;
	if (pn == 0 || (is_thread && tn == 0))
		return PF_META_NONE;
	if (is_thread) {
		if ((*th = pf_ids_thread(ids, pid, pn, tid, tn, created)) < 0)
			return PF_META_NOMEM;
		*pr = ids->threads[*th].proc;
	} else if ((*pr = pf_ids_proc(ids, pid, pn, created)) < 0) {
		return PF_META_NOMEM;
	}
	if ((idx = json_find(d, args_tok, name ? "name" : "sort_index")) < 0)
		return PF_META_IDS;
	return meta_value(ids, d, idx, name, *th, *pr, tmp);
}

void pf_ids_free(struct pf_ids *ids)
{
	size_t i;

	for (i = 0; i < ids->nprocs; i++)
		free(ids->procs[i].name);
	for (i = 0; i < ids->nthreads; i++) {
		free(ids->threads[i].name);
		free(ids->threads[i].wait);
		free(ids->threads[i].stack);
		free(ids->threads[i].bstack);
	}
	free(ids->procs);
	free(ids->threads);
	intern_free(&ids->procs_by_raw);
	intern_free(&ids->threads_by_raw);
	memset(ids, 0, sizeof *ids);
}

/* ---- packets ----------------------------------------------------------- */

int pftrace_time(const struct jdoc *d, int tok, int64_t *ns)
{
	size_t n;
	const char *t;
	int sub;

	if (tok < 0)
		return -1;
	t = json_text(d, tok, &n);
	if (json_type(d, tok) != JT_STRING && json_type(d, tok) != JT_PRIMITIVE)
		return -1;
	return tsnum_us_to_ns(t, n, ns, &sub) == NUM_OK ? 0 : -1;
}

/* Write a packet (b: its parts), its flows in its track event. */
static int write_packet(struct pftrace *p, const struct pf_qent *q, const char *b)
{
	unsigned char tmp[24];
	size_t k, te = q->te + q->nflows * 10, total = q->pre + q->post, i;
	int err = 0;

	unsigned char stamp[16];
	size_t ns = 0;

	buf_reset(&p->out);
	if (q->has_ts) {
		/* the delta from the last packet on the sequence's incremental
		 * clock; a time before it as the delta's two's complement, which
		 * trace_processor reads as a signed delta */
		stamp[0] = PF_PKT_TIMESTAMP << 3;
		ns = 1 + pb_put_varint(stamp + 1, (uint64_t)q->ts - (uint64_t)p->clock_last);
		p->clock_last = q->ts;
	}
	total += ns;
	if (q->is_te)
		total += 1 + pb_put_varint(tmp, te) + te;
	tmp[0] = 0x0a;
	k = 1 + pb_put_varint(tmp + 1, total);
	err |= buf_add(&p->out, tmp, k);
	err |= buf_add(&p->out, stamp, ns);
	err |= buf_add(&p->out, b, q->pre);
	if (q->is_te) {
		tmp[0] = PF_PKT_TRACK_EVENT << 3 | PB_LEN;
		err |= buf_add(&p->out, tmp, 1 + pb_put_varint(tmp + 1, te));
		err |= buf_add(&p->out, b + q->pre, q->te);
		for (i = 0; i < q->nflows; i++) {
			uint32_t f = q->term[i] ? PF_TE_TERMINATING_FLOW_IDS : PF_TE_FLOW_IDS;
			tmp[0] = (unsigned char)((f << 3 | PB_I64 | 0x80) & 0xff);
			tmp[1] = (unsigned char)(f >> 4);
			for (k = 0; k < 8; k++)
				tmp[2 + k] = (unsigned char)(q->flows[i] >> (8 * k));
			err |= buf_add(&p->out, tmp, 10);
		}
	}
	err |= buf_add(&p->out, b + q->pre + q->te, q->post);
	if (err)
		return PFTRACE_NOMEM;
	if (p->put(p->put_ctx, p->out.p, p->out.len) != 0)
		return PFTRACE_WRITE;
	p->flows += q->nflows;
	p->packets++;
	return PFTRACE_OK;
}

static int spill_error(struct pftrace *p)
{
	snprintf(p->err, sizeof p->err, "temporary file: %s", strerror(errno ? errno : EIO));
	return PFTRACE_TEMP;
}

/* A packet's record in the spill file: its flags (has_ts, is_te << 1),
 * the lengths of its parts and, with a time, that time's difference from
 * the last packet's (zigzag), as varints, then its bytes: a sixth of the
 * bytes of a fixed header on the many small packets (a slice's end is
 * about a dozen bytes). */
static size_t spill_head(struct pftrace *p, unsigned char *h, int has_ts, int is_te, size_t pre,
			 size_t te, size_t post)
{
	size_t k = pb_put_varint(h, (uint64_t)has_ts | (uint64_t)is_te << 1);

	k += pb_put_varint(h + k, pre);
	k += pb_put_varint(h + k, te);
	k += pb_put_varint(h + k, post);
	if (has_ts) {
		uint64_t d = (uint64_t)p->pkt_ts - (uint64_t)p->spill_ts;
		k += pb_put_varint(h + k, d << 1 ^ (0 - (d >> 63)));
		p->spill_ts = p->pkt_ts;
	}
	return k;
}

/* One varint of the spill file; -1 at its end or on a varint too long. */
static int spill_varint(FILE *f, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	int c;

	do {
		if (shift > 63 || (c = getc_unlocked(f)) == EOF)
			return -1;
		r |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*v = r;
	return 0;
}

/* The next record's head into q (its time from *ts, the last one). */
static int spill_read_head(FILE *f, struct pf_qent *q, int64_t *ts)
{
	uint64_t flags, pre, te, post, d;

	if (spill_varint(f, &flags) != 0 || spill_varint(f, &pre) != 0 ||
	    spill_varint(f, &te) != 0 || spill_varint(f, &post) != 0)
		return -1;
	q->has_ts = (int)(flags & 1);
	q->is_te = (int)(flags >> 1 & 1);
	q->pre = (size_t)pre;
	q->te = (size_t)te;
	q->post = (size_t)post;
	if (q->has_ts) {
		if (spill_varint(f, &d) != 0)
			return -1;
		*ts = (int64_t)((uint64_t)*ts + (d >> 1 ^ (0 - (d & 1))));
		q->ts = *ts;
	}
	return 0;
}

/* p->pkt's bytes as the next packet (pre bytes, then te bytes of its
 * track event when is_te, the rest after) into the spill file, its flows
 * to come at the end.  Its slot in *slot. */
static int enqueue(struct pftrace *p, int has_ts, int is_te, size_t pre, size_t te,
		   uint64_t *slot)
{
	unsigned char h[PF_SPILL_HEAD_MAX];
	size_t k;

	if (pb_failed(&p->pkt))
		return PFTRACE_NOMEM;
	k = spill_head(p, h, has_ts, is_te, pre, te, p->pkt.b.len - pre - te);
	if (p->spill == NULL) {
		const char *dir;
		int fd = io_open_spill("tr-encode", &dir);
		if (fd < 0 || (p->spill = fdopen(fd, "w+")) == NULL) {
			if (fd >= 0)
				close(fd);
			return spill_error(p);
		}
		setvbuf(p->spill, NULL, _IOFBF, (size_t)1 << 20);
	}
	if (fwrite(h, 1, k, p->spill) != k ||
	    fwrite(p->pkt.b.p, 1, p->pkt.b.len, p->spill) != p->pkt.b.len)
		return spill_error(p);
	if (has_ts && (p->nqueued_ts++ == 0 || p->pkt_ts < p->min_ts))
		p->min_ts = p->pkt_ts;
	if (slot != NULL)
		*slot = p->nqueued;
	p->nqueued++;
	pb_reset(&p->pkt);
	return PFTRACE_OK;
}

/* A whole packet (a descriptor) in p->pkt, queued. */
static int emit(struct pftrace *p)
{
	return enqueue(p, 0, 0, p->pkt.b.len, 0, NULL);
}

static int item_sort(const void *a, const void *b);
static int bind_sort(const void *a, const void *b);

static void intern_reset(struct pftrace *p)
{
	intern_free(&p->names);
	intern_free(&p->cats);
	intern_free(&p->argnames);
	intern_free(&p->strings);
	if (p->capnext > 0)
		memset(p->next_key, 0, p->capnext * sizeof *p->next_key);  /* iids start again */
	p->intern_bytes = 0;
	p->cleared = 1;
	p->resets++;
}

/* The iid of s in table t, its entry added to this packet's InternedData
 * (field) when new; 0 when memory runs out. */
static uint64_t iid_of(struct pftrace *p, struct intern *t, uint32_t field, const char *s,
		       size_t n)
{
	uint32_t before = t->n;
	int64_t k = intern_id(t, s, n);

	if (k < 0)
		return 0;
	if (t->n != before) {
		p->intern_bytes += n + 16;
		pb_begin(&p->interned, field);
		pb_varint(&p->interned, PF_IID, (uint64_t)k + 1);
		pb_bytes(&p->interned, PF_IID_NAME, s, n);
		pb_end(&p->interned);
	}
	return (uint64_t)k + 1;
}

/* Open an event packet: sequence, flags; the track event's fields follow.
 * A packet that uses no interned string (a slice end, a counter value)
 * says nothing of the sequence's state, unless it is the first after a
 * clearing: two bytes less on half the packets. */
static void packet_begin(struct pftrace *p, int64_t ts, int interns)
{
	if (p->intern_bytes > PFTRACE_INTERN_MAX_BYTES ||
	    p->names.n + p->cats.n + p->argnames.n + p->strings.n > PFTRACE_INTERN_MAX_ENTRIES)
		intern_reset(p);
	pb_reset(&p->interned);
	pb_reset(&p->pkt);
	p->pkt_ts = ts;
	pb_varint(&p->pkt, PF_PKT_SEQ_ID, PFTRACE_SEQ_ID);
	if (p->cleared || interns)
		pb_varint(&p->pkt, PF_PKT_SEQ_FLAGS, p->cleared ? PF_SEQ_CLEARED | PF_SEQ_NEEDS :
			  PF_SEQ_NEEDS);
	if (p->cleared) {
		/* the defaults are incremental state: again after each clearing */
		pb_begin(&p->pkt, PF_PKT_DEFAULTS);
		pb_varint(&p->pkt, PF_PKT_CLOCK_ID, PFTRACE_CLOCK);
		pb_end(&p->pkt);
	}
	p->cleared = 0;
	p->pre_len = p->pkt.b.len;
}

/* The track event done: the packet's interned entries after it, spilled
 * (its slot in *slot, for the flows bound to its slice). */
static int packet_end(struct pftrace *p, uint64_t *slot)
{
	size_t te = p->pkt.b.len - p->pre_len;

	if (p->interned.b.len > 0)
		pb_bytes(&p->pkt, PF_PKT_INTERNED, p->interned.b.p, p->interned.b.len);
	if (pb_failed(&p->interned))
		return PFTRACE_NOMEM;
	return enqueue(p, 1, 1, p->pre_len, te, slot);
}

static int put_descriptor_head(struct pftrace *p, uint64_t uuid)
{
	pb_varint(&p->pkt, PF_PKT_SEQ_ID, PFTRACE_SEQ_ID);
	pb_begin(&p->pkt, PF_PKT_TRACK_DESCRIPTOR);
	return pb_varint(&p->pkt, PF_TD_UUID, uuid);
}

static int put_descriptor_tail(struct pftrace *p)
{
	pb_end(&p->pkt);
	return emit(p);
}

static int proc_descriptor(struct pftrace *p, const struct pf_proc *pr)
{
	put_descriptor_head(p, pr->uuid);
	if (pr->has_rank)
		pb_int64(&p->pkt, PF_TD_RANK, pr->rank);
	pb_begin(&p->pkt, PF_TD_PROCESS);
	pb_int64(&p->pkt, PF_PD_PID, pr->pid);
	if (pr->name != NULL)
		pb_bytes(&p->pkt, PF_PD_NAME, pr->name, strlen(pr->name));
	pb_end(&p->pkt);
	return put_descriptor_tail(p);
}

static int thread_descriptor(struct pftrace *p, const struct pf_thread *t)
{
	const struct pf_proc *pr = &p->ids.procs[t->proc];

	put_descriptor_head(p, t->uuid);
	pb_varint(&p->pkt, PF_TD_PARENT, pr->uuid);
	if (t->has_rank)
		pb_int64(&p->pkt, PF_TD_RANK, t->rank);
	pb_begin(&p->pkt, PF_TD_THREAD);
	pb_int64(&p->pkt, PF_THD_PID, pr->pid);
	pb_int64(&p->pkt, PF_THD_TID, t->tid);
	if (t->name != NULL)
		pb_bytes(&p->pkt, PF_THD_NAME, t->name, strlen(t->name));
	pb_end(&p->pkt);
	return put_descriptor_tail(p);
}

/* The descriptors of an event's new process and thread. */
static int new_tracks(struct pftrace *p, int created, int64_t th, int64_t pr)
{
	int rc = PFTRACE_OK;

	if (created & 1)
		rc = proc_descriptor(p, &p->ids.procs[pr]);
	if (rc == PFTRACE_OK && (created & 2))
		rc = thread_descriptor(p, &p->ids.threads[th]);
	return rc;
}

int pftrace_init(struct pftrace *p, pftrace_put_fn put, void *ctx)
{
	memset(p, 0, sizeof *p);
	p->put = put;
	p->put_ctx = ctx;
	p->pkt = (struct pb)PB_INIT;
	p->interned = (struct pb)PB_INIT;
	p->doc = (struct jdoc)JDOC_INIT;
	p->tmp = (struct buf)BUF_INIT;
	p->out = (struct buf)BUF_INIT;
	p->cleared = 1;
	if (extsort_init(&p->items, sizeof(struct pf_item), PFTRACE_SORT_RUN, item_sort,
			 "tr-encode") != 0 ||
	    extsort_init(&p->binds, sizeof(struct pf_bind), PFTRACE_SORT_RUN, bind_sort,
			 "tr-encode") != 0)
		return PFTRACE_NOMEM;
	p->sorts = 1;
	/* the root track (uuid 0): processes and threads in the order of their
	 * sort indices, as the JSON view orders them */
	put_descriptor_head(p, 0);
	pb_varint(&p->pkt, PF_TD_PROCESS_ORDERING, 1);
	pb_varint(&p->pkt, PF_TD_THREAD_ORDERING, 1);
	return put_descriptor_tail(p);
}

/* ---- args -------------------------------------------------------------- */

static int put_number(struct pftrace *p, const char *t, size_t n)
{
	int64_t v;
	char tmp[64], *end;
	size_t i;
	int integral = 1;

	for (i = 0; i < n; i++)
		if (t[i] == '.' || t[i] == 'e' || t[i] == 'E')
			integral = 0;
	if (integral && tsnum_parse_int64(t, n, &v) == NUM_OK)
		return pb_int64(&p->pkt, PF_DA_INT, v);
	if (integral && t[0] != '-' && n < 21) {
		unsigned long long u;
		memcpy(tmp, t, n);
		tmp[n] = '\0';
		errno = 0;
		u = strtoull(tmp, &end, 10);
		if (errno == 0 && *end == '\0')
			return pb_varint(&p->pkt, PF_DA_UINT, u);
	}
	buf_reset(&p->tmp);
	if (buf_add(&p->tmp, t, n) != 0)
		return -1;
	{
		double d = strtod(p->tmp.p, &end);
		buf_reset(&p->tmp);
		return pb_double(&p->pkt, PF_DA_DOUBLE, d);
	}
}

/* ---- args from the text ---------------------------------------------- */

/* The event lines were checked (tr-encode's scan): these walks over the
 * text trust their structure and only keep within the bytes.  They read
 * the members of the common events without a token array: jsmn's tokens
 * took a fifth of the encode. */
static size_t jws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* The first index at or after i of a quote, open or close, or n;
 * sixteen bytes at a time on x86-64. */
static size_t next_of(const char *s, size_t n, size_t i, char open, char close)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), o = _mm_set1_epi8(open), c = _mm_set1_epi8(close);

	while (n - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q),
							  _mm_or_si128(_mm_cmpeq_epi8(v, o),
								       _mm_cmpeq_epi8(v, c))));
		if (mask != 0)
			return i + (size_t)__builtin_ctz((unsigned)mask);
		i += 16;
	}
#endif
	while (i < n && s[i] != '"' && s[i] != open && s[i] != close)
		i++;
	return i;
}

/* Index just past the value at s[i]. */
static size_t jskip(const char *s, size_t n, size_t i)
{
	int depth = 0;

	if (i >= n)
		return n;
	if (s[i] == '"')
		return event_string_end(s, n, i);
	if (s[i] != '{' && s[i] != '[') {
		while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
		       s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			i++;
		return i;
	}
	/* the line is valid JSON: an object ends at the brace that balances
	 * its own, strings passed over; commas and the other brackets need
	 * no stop (most args members are a key and a number) */
	{
		char open = s[i], close = open == '{' ? '}' : ']';
		while (i < n) {
			i = next_of(s, n, i, open, close);
			if (i >= n)
				break;
			if (s[i] == '"') {
				i = event_string_end(s, n, i);
				continue;
			}
			if (s[i] == open)
				depth++;
			else if (--depth == 0)
				return i + 1;
			i++;
		}
	}
	return n;
}

/* The bytes of the string whose text (quotes included) is s[0..n): in
 * place without escapes, else unescaped into b.  -1 on a bad escape. */
static int jstring(const char *s, size_t n, struct buf *b, const char **out, size_t *len)
{
	if (n < 2)
		return -1;
	if (memchr(s + 1, '\\', n - 2) == NULL) {
		*out = s + 1;
		*len = n - 2;
		return 0;
	}
	buf_reset(b);
	if (json_unescape(s + 1, n - 2, b) != 0)
		return -1;
	*out = b->p;
	*len = b->len;
	return 0;
}

static int text_value(struct pftrace *p, const char *s, size_t n, size_t *at);

/* The members (dict) or elements of the container at s[*at]. */
static int text_children(struct pftrace *p, const char *s, size_t n, size_t *at)
{
	int dict = s[*at] == '{';
	size_t i = jws(s, n, *at + 1);

	if (i < n && s[i] == (dict ? '}' : ']')) {
		pb_bytes(&p->pkt, PF_DA_JSON, dict ? "{}" : "[]", 2);
		*at = i + 1;
		return 0;
	}
	while (i < n) {
		pb_begin(&p->pkt, dict ? PF_DA_DICT : PF_DA_ARRAY);
		if (dict) {
			size_t kend = event_string_end(s, n, i), klen;
			const char *key;
			uint64_t iid;
			if (jstring(s + i, kend - i, &p->tmp, &key, &klen) != 0 ||
			    (iid = iid_of(p, &p->argnames, PF_ID_ARG_NAMES, key, klen)) == 0)
				return -1;
			pb_varint(&p->pkt, PF_DA_NAME_IID, iid);
			i = jws(s, n, jws(s, n, kend) + 1);  /* past the colon */
		}
		if (text_value(p, s, n, &i) != 0)
			return -1;
		pb_end(&p->pkt);
		i = jws(s, n, i);
		if (i >= n || s[i] != ',')
			break;
		i = jws(s, n, i + 1);
	}
	*at = i + 1;
	return 0;
}

/* Most args numbers are plain integers: the value at s[*at] read in the
 * one pass that finds its end, written as put_number would write it (an
 * int within int64, else a uint), *at past it: 0, or -1 when memory runs
 * out.  1 for anything else (a fraction, an exponent, more than 18
 * digits, which may not fit an int64, a leading zero): put_number's. */
static int plain_integer(struct pftrace *p, const char *s, size_t n, size_t *at)
{
	size_t i = *at, digits = 0;
	uint64_t mag = 0;
	int neg = s[i] == '-';

	for (i += (size_t)neg; i < n && s[i] >= '0' && s[i] <= '9' && digits < 18; i++, digits++)
		mag = mag * 10 + (uint64_t)(s[i] - '0');
	if (digits == 0 || (digits > 1 && s[*at + (size_t)neg] == '0') ||
	    (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
			    s[i] != '\t' && s[i] != '\n' && s[i] != '\r'))
		return 1;
	*at = i;
	return pb_int64(&p->pkt, PF_DA_INT, neg ? (int64_t)(0 - mag) : (int64_t)mag) != 0 ? -1 : 0;
}

/* The value at s[*at] into the open annotation; *at past it. */
static int text_value(struct pftrace *p, const char *s, size_t n, size_t *at)
{
	size_t i = *at, end, len;
	const char *str;

	if (i >= n)
		return -1;
	if (s[i] == '{' || s[i] == '[')
		return text_children(p, s, n, at);
	if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9')) {
		int rc = plain_integer(p, s, n, at);
		if (rc <= 0)
			return rc;
	}
	end = jskip(s, n, i);
	*at = end;
	if (s[i] == '"') {
		if (jstring(s + i, end - i, &p->tmp, &str, &len) != 0)
			return -1;
		if (len <= PFTRACE_INTERN_MAX_STRING) {
			uint64_t iid = iid_of(p, &p->strings, PF_ID_STRINGS, str, len);
			if (iid == 0)
				return -1;
			return pb_varint(&p->pkt, PF_DA_STRING_IID, iid);
		}
		return pb_bytes(&p->pkt, PF_DA_STRING, str, len);
	}
	if (s[i] == 't' || s[i] == 'f')
		return pb_varint(&p->pkt, PF_DA_BOOL, s[i] == 't');
	if (s[i] == 'n')
		return pb_bytes(&p->pkt, PF_DA_JSON, "null", 4);
	return put_number(p, s + i, end - i);
}

/* The iid of the args key after the key prev (0: the first), looked up
 * as the key that followed prev last time before the table: events of
 * a kind repeat their args in one order, and a comparison is cheaper
 * than a hash. */
static uint64_t next_key(struct pftrace *p, uint64_t prev, const char *key, size_t len)
{
	uint32_t want = prev < p->capnext ? p->next_key[prev] : 0;
	uint64_t iid;

	if (want != 0 && p->argnames.lens[want - 1] == len &&
	    memcmp(p->argnames.keys[want - 1], key, len) == 0)
		return want;
	if ((iid = iid_of(p, &p->argnames, PF_ID_ARG_NAMES, key, len)) == 0)
		return 0;
	if (prev >= p->capnext) {
		size_t cap = p->capnext ? p->capnext : 64;
		uint32_t *v;
		while (cap <= prev)
			cap *= 2;
		if ((v = realloc(p->next_key, cap * sizeof *v)) == NULL)
			return iid;  /* no cache: only slower */
		memset(v + p->capnext, 0, (cap - p->capnext) * sizeof *v);
		p->next_key = v;
		p->capnext = cap;
	}
	p->next_key[prev] = (uint32_t)iid;
	return iid;
}

/* Every member of the args object whose text is s[0..n). */
static int text_args(struct pftrace *p, const char *s, size_t n)
{
	size_t i = jws(s, n, 1);
	uint64_t prev = 0;

	if (n < 2 || s[0] != '{')
		return 0;
	while (i < n && s[i] == '"') {
		size_t kend = event_string_end(s, n, i), klen;
		const char *key;
		uint64_t iid;
		if (jstring(s + i, kend - i, &p->tmp, &key, &klen) != 0 ||
		    (iid = next_key(p, prev, key, klen)) == 0)
			return -1;
		prev = iid;
		pb_begin(&p->pkt, PF_TE_DEBUG);
		pb_varint(&p->pkt, PF_DA_NAME_IID, iid);
		i = jws(s, n, jws(s, n, kend) + 1);
		if (text_value(p, s, n, &i) != 0)
			return -1;
		pb_end(&p->pkt);
		i = jws(s, n, i);
		if (i >= n || s[i] != ',')
			break;
		i = jws(s, n, i + 1);
	}
	return 0;
}

/* The top-level members of an event line, the first of each name. */
enum { M_PH, M_NAME, M_CAT, M_PID, M_TID, M_TS, M_DUR, M_ARGS, M_ID, M_BP, M_S, M_N };
static const char *const member_keys[M_N] = { "ph", "name", "cat", "pid", "tid", "ts", "dur",
	"args", "id", "bp", "s" };
struct span {
	const char *p;
	size_t n;   /* 0: absent */
};

static int text_members(const char *s, size_t n, struct span *m)
{
	size_t i = jws(s, n, 0), kend, vend, klen;
	int k;

	memset(m, 0, M_N * sizeof *m);
	if (i >= n || s[i] != '{')
		return -1;
	i = jws(s, n, i + 1);
	while (i < n && s[i] == '"') {
		kend = event_string_end(s, n, i);
		klen = kend - i - 2;
		for (k = 0; k < M_N; k++)
			if (strlen(member_keys[k]) == klen && memcmp(member_keys[k], s + i + 1, klen) == 0)
				break;
		i = jws(s, n, jws(s, n, kend) + 1);  /* past the colon */
		vend = jskip(s, n, i);
		if (k < M_N && m[k].n == 0) {
			m[k].p = s + i;
			m[k].n = vend - i;
		}
		i = jws(s, n, vend);
		if (i >= n || s[i] != ',')
			break;
		i = jws(s, n, i + 1);
	}
	return 0;
}

/* ---- events ------------------------------------------------------------ */

int pf_members(const struct jdoc *d, struct pf_members *e)
{
	int i, k, cnt;

	memset(e, 0xff, sizeof *e);  /* every member absent: -1 */
	if (json_type(d, 0) != JT_OBJECT)
		return -1;
	cnt = json_size(d, 0);
	for (i = 1, k = 0; k < cnt && i > 0; k++) {
		size_t n;
		const char *key = json_text(d, i, &n);
		int *slot = NULL;
#define KEY(s, f) else if (n == sizeof s - 1 && memcmp(key, s, n) == 0) slot = &e->f
		if (0) {}
		KEY("ph", ph); KEY("name", name); KEY("cat", cat); KEY("pid", pid);
		KEY("tid", tid); KEY("ts", ts); KEY("dur", dur); KEY("args", args);
		KEY("id", id); KEY("bp", bp); KEY("s", scope);
#undef KEY
		/* the first of a repeated member, as the other stages read */
		if (slot != NULL && *slot < 0)
			*slot = i + 1;
		i = json_next(d, i + 1);
	}
	return 0;
}

const char *pf_raw(const struct jdoc *d, int tok, size_t *n)
{
	if (tok < 0) {
		*n = 0;
		return "";
	}
	return json_raw(d, tok, n);
}

/* ---- binding flows ----------------------------------------------------- */

int pf_item_cmp(const struct pf_item *a, const struct pf_item *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->slice && b->slice && a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->slice != b->slice) {
		const struct pf_item *s = a->slice ? a : b;
		if (s->end > s->ts)
			return a->slice ? -1 : 1;
	}
	return a->index < b->index ? -1 : a->index > b->index;
}

static int attach(struct pftrace *p, uint64_t slot, const struct pf_item *f)
{
	struct pf_bind b;

	memset(&b, 0, sizeof b);
	b.slot = slot;
	b.id = f->id;
	b.term = f->term;
	return extsort_put(&p->binds, &b);
}

/* Take the next item of thread t in Perfetto's order (verifybind.c's
 * rule, with no nesting of a slice that sticks out of the open one). */
static int take(struct pftrace *p, struct pf_thread *t, const struct pf_item *it)
{
	size_t k;

	if (!it->slice) {
		if (it->wait) {
			if (buf_array_room((void **)&t->wait, t->nwait, &t->capwait, 4,
					   sizeof *t->wait) != 0)
				return -1;
			t->wait[t->nwait++] = *it;
			return 0;
		}
		if (t->nstack == 0) {
			p->flows_dropped++;
			return 0;
		}
		return attach(p, t->stack[t->nstack - 1].slot, it);
	}
	while (t->nstack > 0) {
		const struct pf_open *top = &t->stack[t->nstack - 1];
		if (top->end < it->ts ||
		    (top->end == it->ts && !(top->start == top->end && it->ts == it->end)))
			t->nstack--;
		else
			break;
	}
	if (t->nstack > 0 && it->end > t->stack[t->nstack - 1].end)
		return 0;   /* onto an overflow track in Perfetto */
	if (buf_array_room((void **)&t->stack, t->nstack, &t->capstack, 8, sizeof *t->stack) != 0)
		return -1;
	t->stack[t->nstack].start = it->ts;
	t->stack[t->nstack].end = it->end;
	t->stack[t->nstack++].slot = it->slot;
	for (k = 0; k < t->nwait; k++)
		if (attach(p, it->slot, &t->wait[k]) != 0)
			return -1;
	t->nwait = 0;
	return 0;
}

static int item_error(struct pftrace *p)
{
	return errno == ENOMEM ? PFTRACE_NOMEM : spill_error(p);
}

/* An item of thread th, for the bindings at the end. */
static int add_item(struct pftrace *p, int64_t th, struct pf_item *it)
{
	it->thread = (uint32_t)th;
	return extsort_put(&p->items, it);
}

static int item_sort(const void *a, const void *b)
{
	const struct pf_item *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return pf_item_cmp(x, y);
}

static int bind_sort(const void *a, const void *b)
{
	const struct pf_bind *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int input(struct pftrace *p, const char *what)
{
	snprintf(p->err, sizeof p->err, "%s", what);
	return PFTRACE_INPUT;
}

/* M: the descriptor of the process or thread it names. */
static int meta(struct pftrace *p, const struct pf_members *e)
{
	size_t pn, tn;
	const char *pid = pf_raw(&p->doc, e->pid, &pn), *tid = pf_raw(&p->doc, e->tid, &tn);
	int created;
	int64_t th, pr;

	switch (pf_ids_meta(&p->ids, &p->doc, e->name, e->args, pid, pn, tid, tn, &p->tmp,
			    &th, &pr, &created)) {
	case PF_META_NONE:
		return PFTRACE_OK;
	case PF_META_NOMEM:
		return PFTRACE_NOMEM;
	case PF_META_ESCAPE:
		return input(p, "a metadata name with a bad escape");
	case PF_META_IDS:
		return new_tracks(p, created, th, pr);
	default:
		break;
	}
	/* written again whole: Perfetto takes the later name and rank */
	if (th < 0)
		return proc_descriptor(p, &p->ids.procs[pr]);
	if ((created & 1) && proc_descriptor(p, &p->ids.procs[pr]) != PFTRACE_OK)
		return PFTRACE_WRITE;
	return thread_descriptor(p, &p->ids.threads[th]);
}

static int counter(struct pftrace *p, const struct pf_members *e, int64_t ts)
{
	size_t pn, nn;
	const char *pid = pf_raw(&p->doc, e->pid, &pn);
	int created, i, k, cnt, rc;
	int64_t pr;
	struct buf key = BUF_INIT, name = BUF_INIT;

	if (e->args < 0 || json_type(&p->doc, e->args) != JT_OBJECT)
		return PFTRACE_OK;
	if ((pr = pf_ids_proc(&p->ids, pid, pn, &created)) < 0)
		return PFTRACE_NOMEM;
	if (created && (rc = proc_descriptor(p, &p->ids.procs[pr])) != PFTRACE_OK)
		return rc;
	cnt = json_size(&p->doc, e->args);
	rc = PFTRACE_OK;
	for (i = e->args + 1, k = 0; k < cnt && rc == PFTRACE_OK; k++, i = json_next(&p->doc, i + 1)) {
		const char *t = json_text(&p->doc, i + 1, &nn);
		uint32_t before = p->counters.n;
		int64_t c;
		/* numbers only, as Perfetto's JSON import reads a counter */
		if (json_type(&p->doc, i + 1) != JT_PRIMITIVE || t[0] == 't' || t[0] == 'f' ||
		    t[0] == 'n')
			continue;
		buf_reset(&name);
		if (e->name >= 0 && json_token_unescape(&p->doc, e->name, &name) != 0)
			break;
		buf_addch(&name, ' ');
		if (json_token_unescape(&p->doc, i, &name) != 0)
			break;
		buf_reset(&key);
		buf_add(&key, pid, pn);
		buf_addch(&key, '\0');
		buf_add(&key, name.p, name.len);
		if ((c = intern_id(&p->counters, key.p, key.len)) < 0) {
			rc = PFTRACE_NOMEM;
			break;
		}
		if (p->counters.n != before) {
			if ((size_t)c >= p->capcounters &&
			    buf_array_room((void **)&p->counter_uuids, (size_t)c, &p->capcounters, 16,
					   sizeof *p->counter_uuids) != 0) {
				rc = PFTRACE_NOMEM;
				break;
			}
			p->counter_uuids[c] = ++p->ids.next_uuid;
			put_descriptor_head(p, p->counter_uuids[c]);
			pb_varint(&p->pkt, PF_TD_PARENT, p->ids.procs[pr].uuid);
			pb_bytes(&p->pkt, PF_TD_NAME, name.p, name.len);
			pb_bytes(&p->pkt, PF_TD_COUNTER, "", 0);
			if ((rc = put_descriptor_tail(p)) != PFTRACE_OK)
				break;
		}
		packet_begin(p, ts, 0);
		pb_varint(&p->pkt, PF_TE_TYPE, PF_TYPE_COUNTER);
		pb_varint(&p->pkt, PF_TE_TRACK_UUID, p->counter_uuids[c]);
		{
			int64_t v;
			size_t j;
			int integral = 1;
			for (j = 0; j < nn; j++)
				if (t[j] == '.' || t[j] == 'e' || t[j] == 'E')
					integral = 0;
			if (integral && tsnum_parse_int64(t, nn, &v) == NUM_OK) {
				pb_int64(&p->pkt, PF_TE_COUNTER, v);
			} else {
				char *end;
				buf_reset(&p->tmp);
				buf_add(&p->tmp, t, nn);
				pb_double(&p->pkt, PF_TE_DOUBLE_COUNTER, strtod(p->tmp.p, &end));
			}
		}
		rc = packet_end(p, NULL);
	}
	buf_release(&key);
	buf_release(&name);
	return rc;
}

/* A time member's text (a number, or a string holding one) to ns. */
static int span_time(const struct span *m, int64_t *ns)
{
	int sub;

	if (m->n == 0)
		return -1;
	if (m->p[0] == '"')
		return m->n >= 2 && tsnum_us_to_ns(m->p + 1, m->n - 2, ns, &sub) == NUM_OK ? 0 : -1;
	return tsnum_us_to_ns(m->p, m->n, ns, &sub) == NUM_OK ? 0 : -1;
}

/* The interned iid of a string member's text into field, when present. */
static int span_iid(struct pftrace *p, const struct span *m, struct intern *t, uint32_t table,
		    uint32_t field)
{
	const char *str;
	size_t len;
	uint64_t iid;

	if (m->n == 0)
		return 0;
	if (m->p[0] != '"' || jstring(m->p, m->n, &p->tmp, &str, &len) != 0 ||
	    (iid = iid_of(p, t, table, str, len)) == 0)
		return -1;
	return pb_varint(&p->pkt, field, iid);
}

/* M and C: through the token array (a few per trace). */
static int event_by_tokens(struct pftrace *p, const char *line, size_t len, enum pf_kind kind)
{
	struct pf_members e;
	int nomem = 0;
	int64_t ts;

	if (json_parse(&p->doc, line, len, &nomem) != 0)
		return nomem ? PFTRACE_NOMEM : input(p, "an event line that is not JSON");
	if (pf_members(&p->doc, &e) != 0)
		return input(p, "an event line that is not an object");
	if (kind == PF_K_META)
		return meta(p, &e);
	if (pftrace_time(&p->doc, e.ts, &ts) != 0) {
		p->skipped++;
		return PFTRACE_OK;
	}
	return counter(p, &e, ts);
}

int pftrace_event(struct pftrace *p, const char *line, size_t len)
{
	struct span m[M_N];
	int created, rc;
	enum pf_kind kind;
	int64_t th, ts = 0, dur = 0;
	struct pf_thread *t;

	if (text_members(line, len, m) != 0)
		return input(p, "an event line that is not an object");
	kind = pftrace_kind(m[M_PH].p, m[M_PH].n);
	p->events++;
	if (kind == PF_K_SKIP) {
		p->skipped++;
		return PFTRACE_OK;
	}
	if (kind == PF_K_META || kind == PF_K_COUNTER)
		return event_by_tokens(p, line, len, kind);
	if (span_time(&m[M_TS], &ts) != 0) {
		p->skipped++;
		return PFTRACE_OK;
	}
	if ((th = pf_ids_thread(&p->ids, m[M_PID].p, m[M_PID].n, m[M_TID].p, m[M_TID].n,
				&created)) < 0)
		return PFTRACE_NOMEM;
	if ((rc = new_tracks(p, created, th, p->ids.threads[th].proc)) != PFTRACE_OK)
		return rc;
	t = &p->ids.threads[th];
	if (kind == PF_K_FLOW) {
		const struct span *bp = &m[M_BP];
		struct pf_item it;
		memset(&it, 0, sizeof it);
		it.term = m[M_PH].p[1] == 'f';
		it.wait = it.term && !(bp->n == 3 && bp->p[1] == 'e');
		it.ts = it.end = ts;
		it.index = p->events;
		it.id = pftrace_flow_id(m[M_CAT].p, m[M_CAT].n, m[M_NAME].p, m[M_NAME].n,
					m[M_ID].p, m[M_ID].n);
		if (add_item(p, th, &it) != 0)
			return item_error(p);
		return PFTRACE_OK;
	}
	if (kind == PF_K_SLICE && m[M_DUR].n > 0 && span_time(&m[M_DUR], &dur) != 0)
		dur = 0;
	packet_begin(p, ts, 1);
	pb_varint(&p->pkt, PF_TE_TYPE, kind == PF_K_END ? PF_TYPE_END :
		  kind == PF_K_INSTANT ? PF_TYPE_INSTANT : PF_TYPE_BEGIN);
	{
		uint64_t uuid = t->uuid;
		const struct span *sc = &m[M_S];
		if (kind == PF_K_INSTANT && sc->n == 3 && sc->p[1] == 'g') {
			if (p->global_uuid == 0) {
				p->global_uuid = ++p->ids.next_uuid;
				/* a descriptor inside a packet being built: keep that
				 * packet's bytes aside */
				struct pb save = p->pkt;
				p->pkt = (struct pb)PB_INIT;
				put_descriptor_head(p, p->global_uuid);
				pb_bytes(&p->pkt, PF_TD_NAME, PFTRACE_GLOBAL_TRACK_NAME,
					 sizeof PFTRACE_GLOBAL_TRACK_NAME - 1);
				rc = put_descriptor_tail(p);
				pb_release(&p->pkt);
				p->pkt = save;
				if (rc != PFTRACE_OK)
					return rc;
			}
			uuid = p->global_uuid;
		} else if (kind == PF_K_INSTANT && sc->n == 3 && sc->p[1] == 'p') {
			uuid = p->ids.procs[t->proc].uuid;
		}
		pb_varint(&p->pkt, PF_TE_TRACK_UUID, uuid);
	}
	if (span_iid(p, &m[M_CAT], &p->cats, PF_ID_CATEGORIES, PF_TE_CATEGORY_IIDS) != 0 ||
	    span_iid(p, &m[M_NAME], &p->names, PF_ID_NAMES, PF_TE_NAME_IID) != 0 ||
	    (m[M_ARGS].n > 0 && text_args(p, m[M_ARGS].p, m[M_ARGS].n) != 0))
		return pb_failed(&p->pkt) ? PFTRACE_NOMEM : input(p, "a string with a bad escape");
	{
		/* a slice of the thread's track (an instant on it is one too) */
		int on_thread = kind == PF_K_SLICE || kind == PF_K_BEGIN ||
				(kind == PF_K_INSTANT && !(m[M_S].n == 3 && (m[M_S].p[1] == 'g' ||
									  m[M_S].p[1] == 'p')));
		struct pf_item it;
		memset(&it, 0, sizeof it);
		if ((rc = packet_end(p, &it.slot)) != PFTRACE_OK)
			return rc;
		it.slice = 1;
		it.ts = ts;
		it.index = p->events;
		if (kind == PF_K_SLICE) {
			it.end = tsnum_sat_add(ts, dur);
			packet_begin(p, it.end, 0);
			pb_varint(&p->pkt, PF_TE_TYPE, PF_TYPE_END);
			pb_varint(&p->pkt, PF_TE_TRACK_UUID, t->uuid);
			if ((rc = packet_end(p, NULL)) != PFTRACE_OK)
				return rc;
		} else if (kind == PF_K_INSTANT) {
			it.end = ts;
		}
		if (kind == PF_K_BEGIN) {
			struct pf_open *b;
			if (buf_array_room((void **)&t->bstack, t->nb, &t->capb, 4,
					   sizeof *t->bstack) != 0)
				return PFTRACE_NOMEM;
			b = &t->bstack[t->nb++];
			b->start = ts;
			b->slot = it.slot;
			b->index = it.index;
		} else if (kind == PF_K_END && t->nb > 0) {
			/* the slice of its B, now that its end is known */
			struct pf_open *b = &t->bstack[--t->nb];
			it.ts = b->start;
			it.end = ts;
			it.slot = b->slot;
			it.index = b->index;
			if (add_item(p, th, &it) != 0)
				return item_error(p);
		}
		if (on_thread && kind != PF_K_BEGIN && add_item(p, th, &it) != 0)
			return item_error(p);
	}
	return PFTRACE_OK;
}

/* The bindings: every thread's items in Perfetto's order. */
static int bind_all(struct pftrace *p)
{
	const void *rec;
	struct pf_thread *t = NULL;
	int r;

	if (extsort_finish(&p->items) != 0)
		return -1;
	while ((r = extsort_next(&p->items, &rec)) > 0) {
		const struct pf_item *it = rec;
		if (t != &p->ids.threads[it->thread]) {
			if (t != NULL) {
				p->flows_dropped += t->nwait;
				t->nwait = t->nstack = 0;
			}
			t = &p->ids.threads[it->thread];
		}
		if (take(p, t, it) != 0)
			return -1;
	}
	if (t != NULL) {
		p->flows_dropped += t->nwait;
		t->nwait = t->nstack = 0;
	}
	return r < 0 ? -1 : extsort_finish(&p->binds);
}

/* The sequence's incremental clock, at ts (the earliest) as BOOTTIME is,
 * before the first packet that counts on it. */
static int clock_snapshot(struct pftrace *p, int64_t ts)
{
	int rc;

	pb_reset(&p->pkt);
	pb_begin(&p->pkt, PF_TRACE_PACKET);
	pb_varint(&p->pkt, PF_PKT_SEQ_ID, PFTRACE_SEQ_ID);
	pb_begin(&p->pkt, PF_PKT_CLOCK_SNAPSHOT);
	pb_begin(&p->pkt, PF_CS_CLOCKS);
	pb_varint(&p->pkt, PF_CS_CLOCK_ID, PFTRACE_BOOTTIME);
	pb_varint(&p->pkt, PF_CS_TIMESTAMP, (uint64_t)ts);
	pb_end(&p->pkt);
	pb_begin(&p->pkt, PF_CS_CLOCKS);
	pb_varint(&p->pkt, PF_CS_CLOCK_ID, PFTRACE_CLOCK);
	pb_varint(&p->pkt, PF_CS_TIMESTAMP, (uint64_t)ts);
	pb_varint(&p->pkt, PF_CS_INCREMENTAL, 1);
	pb_end(&p->pkt);
	pb_end(&p->pkt);
	pb_end(&p->pkt);
	if (pb_failed(&p->pkt))
		return PFTRACE_NOMEM;
	rc = p->put(p->put_ctx, p->pkt.b.p, p->pkt.b.len) != 0 ? PFTRACE_WRITE : PFTRACE_OK;
	pb_reset(&p->pkt);
	p->packets++;
	p->clock_set = 1;
	p->clock_last = ts;
	return rc;
}

int pftrace_finish(struct pftrace *p)
{
	struct pf_qent q;
	int64_t spill_ts = 0;
	const struct pf_bind *b = NULL;
	const void *rec;
	uint64_t slot;
	size_t i, cap = 0;
	int rc = PFTRACE_OK, hb;

	for (i = 0; i < p->ids.nthreads; i++) {
		struct pf_thread *t = &p->ids.threads[i];
		/* a B without its E: open to the end */
		while (t->nb > 0) {
			struct pf_item it;
			struct pf_open *o = &t->bstack[--t->nb];
			memset(&it, 0, sizeof it);
			it.slice = 1;
			it.ts = o->start;
			it.end = INT64_MAX;
			it.slot = o->slot;
			it.index = o->index;
			if (add_item(p, (int64_t)i, &it) != 0)
				return item_error(p);
		}
	}
	if (bind_all(p) != 0)
		return errno == ENOMEM ? PFTRACE_NOMEM : spill_error(p);
	if (p->spill == NULL)
		return PFTRACE_OK;
	if (fflush(p->spill) != 0 || fseek(p->spill, 0, SEEK_SET) != 0)
		return spill_error(p);
	memset(&q, 0, sizeof q);
	hb = extsort_next(&p->binds, &rec) > 0;
	b = rec;
	for (slot = 0; slot < p->nqueued && rc == PFTRACE_OK; slot++) {
		size_t n;
		if (spill_read_head(p->spill, &q, &spill_ts) != 0)
			return spill_error(p);
		n = q.pre + q.te + q.post;
		buf_reset(&p->tmp);
		if (buf_grow(&p->tmp, n + 1) != 0)
			return PFTRACE_NOMEM;
		if (fread(p->tmp.p, 1, n, p->spill) != n)
			return spill_error(p);
		q.nflows = 0;
		if (q.has_ts && !p->clock_set && (rc = clock_snapshot(p, p->min_ts)) != PFTRACE_OK)
			break;
		for (; hb && b->slot == slot; hb = extsort_next(&p->binds, &rec) > 0, b = rec) {
			if (buf_array_room((void **)&q.flows, q.nflows, &cap, 4, sizeof *q.flows) != 0 ||
			    (q.capflows < cap && (q.term = realloc(q.term, cap)) == NULL)) {
				rc = PFTRACE_NOMEM;
				break;
			}
			q.capflows = cap;
			q.flows[q.nflows] = b->id;
			q.term[q.nflows++] = b->term;
		}
		if (rc == PFTRACE_OK)
			rc = write_packet(p, &q, p->tmp.p);
	}
	free(q.flows);
	free(q.term);
	return rc;
}

void pftrace_free(struct pftrace *p)
{
	pf_ids_free(&p->ids);
	intern_free(&p->names);
	intern_free(&p->cats);
	intern_free(&p->argnames);
	intern_free(&p->strings);
	intern_free(&p->counters);
	free(p->counter_uuids);
	free(p->next_key);
	pb_release(&p->pkt);
	pb_release(&p->interned);
	json_free(&p->doc);
	buf_release(&p->tmp);
	if (p->spill != NULL)
		fclose(p->spill);
	if (p->sorts) {
		extsort_free(&p->items);
		extsort_free(&p->binds);
	}
	buf_release(&p->out);
}
