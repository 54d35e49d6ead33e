/* pfread: see pfread.h.  The output's packets come in the order of the
 * source's events (an X's SLICE_END right after its SLICE_BEGIN), so they
 * are checked one by one as the source's events come.  The flows are not
 * replayed from the writer: the source's slices and flows go to an
 * external sort, and at the end Perfetto's JSON import is modelled on
 * them (verifybind.h) and the flows it binds are compared with those the
 * output's packets carry, both sorted by slice: memory stays bounded. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "perfetto/pb.h"
#include "perfetto/pfread.h"
#include "verify/verifybind.h"
#include "gz/source.h"
#include "stream/stream.h"
#include "json/tsnum.h"

struct pf_track {
	uint64_t uuid, parent;
	int kind;           /* PF_T_* */
	int32_t pid;
	int64_t tid;
	char *name;
	int has_rank;
	int32_t rank;
};
enum { PF_T_NAMED = 0, PF_T_PROC, PF_T_THREAD, PF_T_COUNTER };

/* A decoded TrackEvent. */
struct te {
	uint64_t type, uuid, name_iid, cat_iid;
	int has_name, ncat, has_int, has_double;
	uint64_t counter;
	size_t nflows, nterm;
	const unsigned char *da[1024];   /* the first debug annotations */
	size_t dalen[1024], nda;
};

static int diff(struct pfread *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int diff(struct pfread *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->msg, sizeof r->msg, "%s: event %llu: ", r->path,
			 (unsigned long long)r->events - 1);

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof r->msg)
		vsnprintf(r->msg + n, sizeof r->msg - (size_t)n, fmt, ap);
	va_end(ap);
	return PFREAD_DIFF;
}

static int trouble_errno(struct pfread *r)
{
	snprintf(r->msg, sizeof r->msg, "%s: temporary file: %s", r->path, strerror(errno));
	return errno == ENOMEM ? PFREAD_NOMEM : PFREAD_TROUBLE;
}

/* Perfetto's order of a track's slices and flows (verifybind.h). */
static int cmp_item(const void *a, const void *b)
{
	const struct pfread_item *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->slice && y->slice) {
		if (x->ts != y->ts)
			return x->ts < y->ts ? -1 : 1;
		if (x->end != y->end)
			return x->end > y->end ? -1 : 1;
	} else if (x->slice != y->slice) {
		const struct pfread_item *s = x->slice ? x : y, *f = x->slice ? y : x;
		int first = verifybind_slice_first(s->ts, s->end, s->index, f->ts, f->index);
		return (first == (x->slice != 0)) ? -1 : 1;
	} else if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_bound(const void *a, const void *b)
{
	const struct pfread_bound *x = a, *y = b;

	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->term != y->term)
		return x->term < y->term ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

#define PFREAD_SORT_RUN ((size_t)4 << 20)

int pfread_open(struct pfread *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->in = (struct buf)BUF_INIT;
	r->tmp = (struct buf)BUF_INIT;
	r->tmp2 = (struct buf)BUF_INIT;
	r->doc = (struct jdoc)JDOC_INIT;
	if (extsort_init(&r->items, sizeof(struct pfread_item), PFREAD_SORT_RUN, cmp_item,
			 "tr-verify") != 0 ||
	    extsort_init(&r->got, sizeof(struct pfread_bound), PFREAD_SORT_RUN, cmp_bound,
			 "tr-verify") != 0 ||
	    extsort_init(&r->want, sizeof(struct pfread_bound), PFREAD_SORT_RUN, cmp_bound,
			 "tr-verify") != 0)
		return PFREAD_TROUBLE;
	r->sorts = 1;
	if ((r->src = source_open(path)) == NULL)
		return PFREAD_TROUBLE;
	return PFREAD_OK;
}

void pfread_free(struct pfread *r)
{
	size_t i, k;

	if (r->src != NULL)
		source_close(r->src);
	for (i = 0; i < r->ntracks; i++)
		free(r->tracks[i].name);
	free(r->tracks);
	for (k = 0; k < 4; k++) {
		for (i = 0; i < r->ntab[k]; i++)
			buf_release(&r->tables[k][i]);
		free(r->tables[k]);
	}
	intern_free(&r->uuids);
	pf_ids_free(&r->ids);
	if (r->sorts) {
		extsort_free(&r->items);
		extsort_free(&r->got);
		extsort_free(&r->want);
	}
	json_free(&r->doc);
	buf_release(&r->in);
	buf_release(&r->tmp);
	buf_release(&r->tmp2);
}

/* ---- the output's packets ---------------------------------------------- */

/* At least n bytes from pos in r->in, or fewer at the end: 0, or -1 with
 * r->msg set (a read error). */
static int fill(struct pfread *r, size_t n)
{
	while (!r->eof && r->in.len - r->pos < n) {
		long got;
		if (r->pos > 0) {
			memmove(r->in.p, r->in.p + r->pos, r->in.len - r->pos);
			buf_setlen(&r->in, r->in.len - r->pos);
			r->pos = 0;
		}
		if (buf_grow(&r->in, 1 << 20) != 0)
			return -2;
		got = source_read(r->src, r->in.p + r->in.len, r->in.cap - r->in.len - 1);
		if (got < 0) {
			snprintf(r->msg, sizeof r->msg, "%s: %s", r->path, source_error(r->src));
			return -1;
		}
		if (got == 0)
			r->eof = 1;
		buf_setlen(&r->in, r->in.len + (size_t)got);
	}
	return 0;
}

static int bad(struct pfread *r, const char *what)
{
	snprintf(r->msg, sizeof r->msg, "%s: packet %llu: %s", r->path,
		 (unsigned long long)r->packets, what);
	return PFREAD_DIFF;
}

static struct pf_track *track_of(struct pfread *r, uint64_t uuid)
{
	int64_t k = intern_find(&r->uuids, (const char *)&uuid, sizeof uuid);

	return k < 0 ? NULL : &r->tracks[k];
}

static int read_descriptor(struct pfread *r, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n, *q;
	struct pb_field f, g;
	struct pf_track t;
	uint32_t before;
	int64_t k;
	int rc;

	memset(&t, 0, sizeof t);
	t.kind = PF_T_NAMED;
	while ((rc = pb_next(&p, end, &f)) > 0) {
		/* each field with the wire type tr-encode gives it */
		if ((f.wire == PB_LEN) != (f.num == PF_TD_NAME || f.num == PF_TD_PROCESS ||
					   f.num == PF_TD_THREAD || f.num == PF_TD_COUNTER) ||
		    (f.wire != PB_LEN && f.wire != PB_VARINT)) {
			free(t.name);
			return bad(r, "a track descriptor field of another wire type");
		}
		switch (f.num) {
		case PF_TD_UUID: t.uuid = f.v; break;
		case PF_TD_PARENT: t.parent = f.v; break;
		case PF_TD_RANK: t.has_rank = 1; t.rank = (int32_t)f.v; break;
		case PF_TD_COUNTER: t.kind = PF_T_COUNTER; break;
		case PF_TD_PROCESS_ORDERING: case PF_TD_THREAD_ORDERING:
			if (f.v != 1) {
				free(t.name);
				return bad(r, "an ordering other than explicit");
			}
			break;
		case PF_TD_NAME:
			free(t.name);
			t.name = buf_memdup(f.data, f.len);
			break;
		case PF_TD_PROCESS: case PF_TD_THREAD:
			t.kind = f.num == PF_TD_PROCESS ? PF_T_PROC : PF_T_THREAD;
			for (q = f.data; (rc = pb_next(&q, f.data + f.len, &g)) > 0;) {
				int is_name = g.num == (t.kind == PF_T_PROC ? PF_PD_NAME : PF_THD_NAME);
				if ((g.wire == PB_LEN) != is_name || (!is_name && g.wire != PB_VARINT)) {
					free(t.name);
					return bad(r, "a descriptor field of another wire type");
				}
				if (g.num == PF_PD_PID)
					t.pid = (int32_t)g.v;
				else if (t.kind == PF_T_THREAD && g.num == PF_THD_TID)
					t.tid = (int64_t)g.v;
				else if (g.num == (t.kind == PF_T_PROC ? PF_PD_NAME : PF_THD_NAME)) {
					free(t.name);
					t.name = buf_memdup(g.data, g.len);
				} else {
					free(t.name);
					return bad(r, "a descriptor field tr-encode does not write");
				}
			}
			if (rc < 0) {
				free(t.name);
				return bad(r, "a malformed descriptor");
			}
			break;
		default:
			free(t.name);
			return bad(r, "a track descriptor field tr-encode does not write");
		}
	}
	if (rc < 0) {
		free(t.name);
		return bad(r, "a malformed track descriptor");
	}
	before = r->uuids.n;
	if ((k = intern_id(&r->uuids, (const char *)&t.uuid, sizeof t.uuid)) < 0)
		return PFREAD_NOMEM;
	if (r->uuids.n != before &&
	    buf_array_room((void **)&r->tracks, r->ntracks++, &r->captracks, 16,
			   sizeof *r->tracks) != 0)
		return PFREAD_NOMEM;
	if (r->uuids.n == before) {
		/* written again: the same track, a new name or rank */
		const struct pf_track *o = &r->tracks[k];
		if (o->kind != t.kind || o->parent != t.parent || o->pid != t.pid || o->tid != t.tid) {
			free(t.name);
			return bad(r, "a track descriptor written again for another track");
		}
		free(r->tracks[k].name);
	}
	r->tracks[k] = t;
	return PFREAD_OK;
}

static void clear_tables(struct pfread *r)
{
	size_t i, k;

	for (k = 0; k < 4; k++) {
		for (i = 0; i < r->ntab[k]; i++)
			buf_release(&r->tables[k][i]);
		r->ntab[k] = 0;
	}
}

static int read_interned(struct pfread *r, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n, *q;
	struct pb_field f, g;
	int rc, k;

	while ((rc = pb_next(&p, end, &f)) > 0) {
		uint64_t iid = 0;
		const unsigned char *s = NULL;
		size_t sl = 0;
		k = f.num == PF_ID_NAMES ? 0 : f.num == PF_ID_CATEGORIES ? 1 :
		    f.num == PF_ID_ARG_NAMES ? 2 : f.num == PF_ID_STRINGS ? 3 : -1;
		if (k < 0 || f.wire != PB_LEN)
			return bad(r, "interned data tr-encode does not write");
		for (q = f.data; (rc = pb_next(&q, f.data + f.len, &g)) > 0;) {
			if (g.num == PF_IID)
				iid = g.v;
			else if (g.num == PF_IID_NAME && g.wire == PB_LEN) {
				s = g.data;
				sl = g.len;
			}
		}
		/* iids are given in order, from 1 after each clearing */
		if (rc < 0 || iid != r->ntab[k] + 1 || s == NULL)
			return bad(r, "an interned entry out of order");
		if (buf_array_room((void **)&r->tables[k], r->ntab[k], &r->captab[k], 64,
				   sizeof **r->tables) != 0)
			return PFREAD_NOMEM;
		r->tables[k][r->ntab[k]] = (struct buf)BUF_INIT;
		if (buf_add(&r->tables[k][r->ntab[k]++], s, sl) != 0)
			return PFREAD_NOMEM;
	}
	return rc < 0 ? bad(r, "malformed interned data") : PFREAD_OK;
}

/* A ClockSnapshot: BOOTTIME and the incremental clock at one time. */
static int read_clocks(struct pfread *r, const unsigned char *p, size_t n)
{
	const unsigned char *end = p + n, *q;
	struct pb_field f, g;
	int64_t boot = 0, inc = 0;
	int have = 0, rc;

	while ((rc = pb_next(&p, end, &f)) > 0) {
		uint64_t id = 0, ts = 0, incremental = 0;
		if (f.num != PF_CS_CLOCKS || f.wire != PB_LEN)
			return bad(r, "a clock snapshot tr-encode does not write");
		for (q = f.data; (rc = pb_next(&q, f.data + f.len, &g)) > 0;) {
			if (g.num == PF_CS_CLOCK_ID)
				id = g.v;
			else if (g.num == PF_CS_TIMESTAMP)
				ts = g.v;
			else if (g.num == PF_CS_INCREMENTAL)
				incremental = g.v;
			else
				return bad(r, "a clock tr-encode does not write");
		}
		if (rc < 0)
			return bad(r, "a malformed clock");
		if (id == PFTRACE_BOOTTIME && !incremental) {
			boot = (int64_t)ts;
			have |= 1;
		} else if (id == PFTRACE_CLOCK && incremental) {
			inc = (int64_t)ts;
			have |= 2;
		} else {
			return bad(r, "a clock tr-encode does not write");
		}
	}
	if (rc < 0 || have != 3 || boot != inc)
		return bad(r, "a clock snapshot tr-encode does not write");
	r->clock_set = 1;
	r->clock_last = inc;
	return PFREAD_OK;
}

/* The next TrackEvent packet (descriptors and interned data taken in on
 * the way): GOT_EVENT, 0 at the end of the file, or a status. */
#define GOT_EVENT 100
static int next_event(struct pfread *r)
{
	for (;;) {
		const unsigned char *p, *end;
		struct pb_field f;
		uint64_t len = 0;
		int rc, have_seq = 0;

		if ((rc = fill(r, 16)) != 0)
			return rc == -2 ? PFREAD_NOMEM : PFREAD_TROUBLE;
		if (r->pos == r->in.len)
			return 0;
		p = (const unsigned char *)r->in.p + r->pos;
		end = (const unsigned char *)r->in.p + r->in.len;
		if (*p != 0x0a)
			return bad(r, "not a Trace.packet field (a Perfetto trace is a "
				   "sequence of them)");
		p++;
		if (pb_read_varint(&p, end, &len) != 0 || len > ((uint64_t)1 << 31))
			return bad(r, "a packet's length is cut or too large");
		{
			size_t head = (size_t)(p - ((const unsigned char *)r->in.p + r->pos));
			if ((rc = fill(r, head + (size_t)len)) != 0)
				return rc == -2 ? PFREAD_NOMEM : PFREAD_TROUBLE;
			if (r->in.len - r->pos < head + len)
				return bad(r, "the file ends inside it");
			p = (const unsigned char *)r->in.p + r->pos + head;
			r->pos += head + (size_t)len;
		}
		r->packets++;
		end = p + len;
		r->te = NULL;
		r->ts = 0;
		{
			const unsigned char *q = p;
			uint64_t flags = 0;
			/* flags first: a clearing comes before the packet's entries */
			int defaults = 0;
			while ((rc = pb_next(&q, end, &f)) > 0) {
				if (f.num == PF_PKT_SEQ_FLAGS)
					flags = f.v;
				defaults |= f.num == PF_PKT_DEFAULTS;
			}
			if (rc < 0)
				return bad(r, "a malformed packet");
			if (flags & PF_SEQ_CLEARED) {
				clear_tables(r);
				r->have_state = 1;
				r->have_defaults = 0;
			}
			/* the packet's defaults hold for its own timestamp */
			r->have_defaults |= defaults;
		}
		while ((rc = pb_next(&p, end, &f)) > 0) {
			if (f.wire != (f.num == PF_PKT_TRACK_DESCRIPTOR || f.num == PF_PKT_INTERNED ||
				       f.num == PF_PKT_TRACK_EVENT || f.num == PF_PKT_CLOCK_SNAPSHOT ||
				       f.num == PF_PKT_DEFAULTS ? PB_LEN : PB_VARINT))
				return bad(r, "a packet field of another wire type");
			switch (f.num) {
			case PF_PKT_TIMESTAMP:
				/* a delta on the incremental clock (pftrace.h) */
				if (!r->clock_set || !r->have_defaults)
					return bad(r, "a timestamp before its clock and defaults");
				r->clock_last = (int64_t)((uint64_t)r->clock_last + f.v);
				r->ts = r->clock_last;
				break;
			case PF_PKT_CLOCK_SNAPSHOT:
				if ((rc = read_clocks(r, f.data, f.len)) != PFREAD_OK)
					return rc;
				break;
			case PF_PKT_DEFAULTS: {
				const unsigned char *q = f.data;
				struct pb_field g;
				while ((rc = pb_next(&q, f.data + f.len, &g)) > 0)
					if (g.num != PF_PKT_CLOCK_ID || g.v != PFTRACE_CLOCK)
						return bad(r, "packet defaults tr-encode does not write");
				if (rc < 0)
					return bad(r, "malformed packet defaults");
				break;
			}
			case PF_PKT_SEQ_ID:
				if (f.v != PFTRACE_SEQ_ID)
					return bad(r, "a sequence tr-encode does not write");
				have_seq = 1;
				break;
			case PF_PKT_SEQ_FLAGS: break;
			case PF_PKT_TRACK_DESCRIPTOR:
				if ((rc = read_descriptor(r, f.data, f.len)) != PFREAD_OK)
					return rc;
				break;
			case PF_PKT_INTERNED:
				if ((rc = read_interned(r, f.data, f.len)) != PFREAD_OK)
					return rc;
				break;
			case PF_PKT_TRACK_EVENT:
				r->te = f.data;
				r->te_len = f.len;
				break;
			default:
				return bad(r, "a packet field tr-encode does not write");
			}
		}
		if (!have_seq)
			return bad(r, "a packet without its sequence id");
		if (r->te != NULL) {
			if (!r->have_state)
				return bad(r, "an event before the sequence's state was cleared");
			return GOT_EVENT;
		}
	}
}

static int decode_te(struct pfread *r, struct te *e)
{
	const unsigned char *p = r->te, *end = r->te + r->te_len;
	struct pb_field f;
	int rc;

	memset(e, 0, offsetof(struct te, da));
	e->nda = 0;
	while ((rc = pb_next(&p, end, &f)) > 0) {
		int want = f.num == PF_TE_DEBUG ? PB_LEN :
			   f.num == PF_TE_DOUBLE_COUNTER || f.num == PF_TE_FLOW_IDS ||
			   f.num == PF_TE_TERMINATING_FLOW_IDS ? PB_I64 : PB_VARINT;
		if (f.wire != want)
			return bad(r, "a track event field of another wire type");
		switch (f.num) {
		case PF_TE_TYPE: e->type = f.v; break;
		case PF_TE_TRACK_UUID: e->uuid = f.v; break;
		case PF_TE_NAME_IID: e->has_name = 1; e->name_iid = f.v; break;
		case PF_TE_CATEGORY_IIDS: e->ncat++; e->cat_iid = f.v; break;
		case PF_TE_COUNTER: e->has_int = 1; e->counter = f.v; break;
		case PF_TE_DOUBLE_COUNTER: e->has_double = 1; e->counter = f.v; break;
		case PF_TE_FLOW_IDS: e->nflows++; break;
		case PF_TE_TERMINATING_FLOW_IDS: e->nterm++; break;
		case PF_TE_DEBUG:
			if (e->nda == sizeof e->da / sizeof *e->da)
				return bad(r, "more than 1024 args members");
			e->da[e->nda] = f.data;
			e->dalen[e->nda++] = f.len;
			break;
		default:
			return bad(r, "a track event field tr-encode does not write");
		}
	}
	if (rc < 0)
		return bad(r, "a malformed track event");
	r->flows_out += e->nflows + e->nterm;
	return PFREAD_OK;
}

/* Interned string iid of table k, or NULL. */
static const struct buf *lookup(const struct pfread *r, int k, uint64_t iid)
{
	return iid >= 1 && iid <= r->ntab[k] ? &r->tables[k][iid - 1] : NULL;
}

/* ---- comparing --------------------------------------------------------- */

static int same_text(const struct buf *b, const struct buf *want)
{
	return b != NULL && b->len == want->len && memcmp(b->p, want->p, b->len) == 0;
}

static int compare_value(struct pfread *r, int tok, const unsigned char *p, size_t n,
			 const char *key, int *next);

/* An annotation's parts: its name, its value's field, how many children. */
struct da {
	int has_name;
	struct buf name;
	struct pb_field value;
	int has_value;
	size_t nkids;
	int kids_dict;
};

static int parse_da(struct pfread *r, const unsigned char *p, size_t n, struct da *d)
{
	const unsigned char *end = p + n;
	struct pb_field f;
	int rc;

	d->has_name = d->has_value = 0;
	d->nkids = 0;
	d->kids_dict = -1;
	d->name = (struct buf)BUF_INIT;
	while ((rc = pb_next(&p, end, &f)) > 0) {
		int want = f.num == PF_DA_STRING || f.num == PF_DA_JSON || f.num == PF_DA_DICT ||
			   f.num == PF_DA_ARRAY ? PB_LEN : f.num == PF_DA_DOUBLE ? PB_I64 : PB_VARINT;
		if (f.wire != want)
			return bad(r, "a debug annotation field of another wire type");
		if (f.num == PF_DA_NAME_IID) {
			const struct buf *b = lookup(r, 2, f.v);
			if (b == NULL)
				return bad(r, "an args name iid never interned");
			d->name = *b;
			d->has_name = 1;
		} else if (f.num == PF_DA_DICT || f.num == PF_DA_ARRAY) {
			d->kids_dict = f.num == PF_DA_DICT;
			d->nkids++;
		} else if (f.num == PF_DA_BOOL || f.num == PF_DA_UINT || f.num == PF_DA_INT ||
			   f.num == PF_DA_DOUBLE || f.num == PF_DA_STRING || f.num == PF_DA_JSON ||
			   f.num == PF_DA_STRING_IID) {
			d->value = f;
			d->has_value = 1;
		} else {
			return bad(r, "a debug annotation field tr-encode does not write");
		}
	}
	return rc < 0 ? bad(r, "a malformed debug annotation") : PFREAD_OK;
}

static int compare_children(struct pfread *r, int tok, const struct da *d,
			    const unsigned char *p, size_t n, const char *key, int *next)
{
	int dict = json_type(&r->doc, tok) == JT_OBJECT, cnt = json_size(&r->doc, tok), i, k, rc;
	const unsigned char *end = p + n;
	struct pb_field f;
	struct da kid;

	if ((size_t)cnt != d->nkids || d->kids_dict != dict)
		return diff(r, "args member \"%s\": the output holds %zu %s, the source %d %s", key,
			    d->nkids, d->kids_dict == 1 ? "dict entries" : "array values", cnt,
			    dict ? "object members" : "array elements");
	i = tok + 1;
	k = 0;
	while (pb_next(&p, end, &f) > 0) {
		if (f.num != PF_DA_DICT && f.num != PF_DA_ARRAY)
			continue;
		if (dict) {
			if ((rc = parse_da(r, f.data, f.len, &kid)) != PFREAD_OK)
				return rc;
			buf_reset(&r->tmp);
			if (json_token_unescape(&r->doc, i, &r->tmp) != 0 || !kid.has_name ||
			    !same_text(&kid.name, &r->tmp))
				return diff(r, "args member \"%s\": member %d's name differs", key, k);
			i++;
		}
		if ((rc = compare_value(r, i, f.data, f.len, key, &i)) != PFREAD_OK)
			return rc;
		k++;
	}
	*next = i;
	return PFREAD_OK;
}

/* Token tok (a value) against the annotation p[0..n). */
static int compare_value(struct pfread *r, int tok, const unsigned char *p, size_t n,
			 const char *key, int *next)
{
	struct da dd, *d = &dd;
	size_t tn;
	const char *t = json_text(&r->doc, tok, &tn);
	int rc = PFREAD_OK, type = json_type(&r->doc, tok);
	const struct pb_field *v;

	if ((rc = parse_da(r, p, n, d)) != PFREAD_OK)
		goto out;
	v = &d->value;
	*next = json_next(&r->doc, tok);
	if ((type == JT_OBJECT || type == JT_ARRAY) && json_size(&r->doc, tok) > 0) {
		rc = compare_children(r, tok, d, p, n, key, next);
		goto out;
	}
	if (!d->has_value || d->nkids > 0) {
		rc = diff(r, "args member \"%s\": no value in the output", key);
		goto out;
	}
	if (type == JT_OBJECT || type == JT_ARRAY || (type == JT_PRIMITIVE && t[0] == 'n')) {
		const char *want = type == JT_OBJECT ? "{}" : type == JT_ARRAY ? "[]" : "null";
		if (v->num != PF_DA_JSON || v->len != strlen(want) || memcmp(v->data, want, v->len) != 0)
			rc = diff(r, "args member \"%s\": the source holds %s", key, want);
	} else if (type == JT_STRING) {
		const struct buf *s = NULL;
		struct buf inplace = BUF_INIT;
		buf_reset(&r->tmp2);
		if (json_token_unescape(&r->doc, tok, &r->tmp2) != 0) {
			rc = diff(r, "args member \"%s\": a bad escape in the source", key);
			goto out;
		}
		if (v->num == PF_DA_STRING_IID)
			s = lookup(r, 3, v->v);
		else if (v->num == PF_DA_STRING) {
			inplace.p = (char *)(uintptr_t)v->data;
			inplace.len = v->len;
			s = &inplace;
		}
		if (!same_text(s, &r->tmp2))
			rc = diff(r, "args member \"%s\": the string differs from the source's \"%.*s\"",
				  key, (int)(r->tmp2.len > 80 ? 80 : r->tmp2.len), r->tmp2.p);
	} else if (t[0] == 't' || t[0] == 'f') {
		if (v->num != PF_DA_BOOL || v->v != (t[0] == 't'))
			rc = diff(r, "args member \"%s\": the source holds %.*s", key, (int)tn, t);
	} else {
		int64_t iv;
		size_t i;
		int integral = 1;
		for (i = 0; i < tn; i++)
			if (t[i] == '.' || t[i] == 'e' || t[i] == 'E')
				integral = 0;
		if (integral && tsnum_parse_int64(t, tn, &iv) == NUM_OK) {
			if (v->num != PF_DA_INT || (int64_t)v->v != iv)
				rc = diff(r, "args member \"%s\": the output holds %s %lld, the source %.*s",
					  key, v->num == PF_DA_INT ? "the integer" : "another type",
					  (long long)(int64_t)v->v, (int)tn, t);
		} else if (v->num == PF_DA_UINT) {
			char tmp[32];
			snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v->v);
			if (!integral || strlen(tmp) != tn || memcmp(tmp, t, tn) != 0)
				rc = diff(r, "args member \"%s\": the output holds %s, the source %.*s",
					  key, tmp, (int)tn, t);
		} else {
			char *end;
			double dv;
			buf_reset(&r->tmp2);
			buf_add(&r->tmp2, t, tn);
			dv = strtod(r->tmp2.p, &end);
			if (v->num != PF_DA_DOUBLE || memcmp(&dv, &v->v, sizeof dv) != 0)
				rc = diff(r, "args member \"%s\": the output holds %.17g, the source %.*s",
					  key, pb_as_double(v->v), (int)tn, t);
		}
	}
out:
	return rc;
}

static int compare_args(struct pfread *r, int args, const struct te *e)
{
	int i, k, cnt, rc;
	struct da dd, *d = &dd;

	cnt = args >= 0 && json_type(&r->doc, args) == JT_OBJECT ? json_size(&r->doc, args) : 0;
	if ((size_t)cnt != e->nda)
		return diff(r, "%zu args members in the output, %d in the source", e->nda, cnt);
	for (i = args + 1, k = 0; k < cnt; k++) {
		buf_reset(&r->tmp);
		if (json_token_unescape(&r->doc, i, &r->tmp) != 0) {
			return diff(r, "an args name with a bad escape");
		}
		if ((rc = parse_da(r, e->da[k], e->dalen[k], d)) != PFREAD_OK)
			return rc;
		if (!d->has_name || !same_text(&d->name, &r->tmp)) {
			return diff(r, "args member %d: named \"%s\" in the source, otherwise in the output",
				    k, r->tmp.p);
		}
		{
			char key[128];
			snprintf(key, sizeof key, "%s", r->tmp.p);
			if ((rc = compare_value(r, i + 1, e->da[k], e->dalen[k], key, &i)) != PFREAD_OK)
				return rc;
		}
	}
	return PFREAD_OK;
}

static const char *type_name(uint64_t t)
{
	return t == PF_TYPE_BEGIN ? "SLICE_BEGIN" : t == PF_TYPE_END ? "SLICE_END" :
	       t == PF_TYPE_INSTANT ? "INSTANT" : t == PF_TYPE_COUNTER ? "COUNTER" : "another type";
}

/* The next event packet must be of type on the thread or track want. */
static int expect(struct pfread *r, struct te *e, uint64_t type, int64_t ts, const char *what)
{
	int rc = next_event(r);

	if (rc == 0)
		return diff(r, "the output ends before the %s of this event", what);
	if (rc != GOT_EVENT)
		return rc;
	if ((rc = decode_te(r, e)) != PFREAD_OK)
		return rc;
	r->compared++;
	if (e->type != type)
		return diff(r, "the output has a %s where the source's event gives a %s (%s)",
			    type_name(e->type), type_name(type), what);
	if (r->ts != ts)
		return diff(r, "%s: ts %lld ns in the output, %lld ns in the source", what,
			    (long long)r->ts, (long long)ts);
	return PFREAD_OK;
}

static int same_thread(struct pfread *r, const struct te *e, const struct pf_thread *t,
		       const char *what)
{
	const struct pf_track *k = track_of(r, e->uuid);
	const struct pf_proc *p = &r->ids.procs[t->proc];

	if (k == NULL)
		return diff(r, "%s: on track %llu, which no descriptor names", what,
			    (unsigned long long)e->uuid);
	if (k->kind != PF_T_THREAD || k->pid != p->pid || k->tid != t->tid)
		return diff(r, "%s: on another track than thread %lld of process %d", what,
			    (long long)t->tid, (int)p->pid);
	return PFREAD_OK;
}

/* The flows of the packet in hand, on the slice of source event slice
 * (for the comparison with the bindings at the end). */
static int got_flows(struct pfread *r, const struct te *e, uint64_t slice)
{
	const unsigned char *p = r->te, *end = r->te + r->te_len;
	struct pb_field f;
	struct pfread_bound b;

	if (e->nflows + e->nterm == 0)
		return PFREAD_OK;
	if (slice == UINT64_MAX)
		return diff(r, "flows on a packet that begins no slice of a thread");
	memset(&b, 0, sizeof b);
	b.slice = slice;
	while (pb_next(&p, end, &f) > 0) {
		if (f.num != PF_TE_FLOW_IDS && f.num != PF_TE_TERMINATING_FLOW_IDS)
			continue;
		b.id = f.v;
		b.term = f.num == PF_TE_TERMINATING_FLOW_IDS;
		if (extsort_put(&r->got, &b) != 0)
			return trouble_errno(r);
	}
	return PFREAD_OK;
}

/* A slice or flow of thread th for the bindings at the end. */
static int put_item(struct pfread *r, int64_t th, int slice, int64_t ts, int64_t end,
		    uint64_t index, uint64_t id, int term, int wait)
{
	struct pfread_item it;

	memset(&it, 0, sizeof it);
	it.thread = (uint32_t)th;
	it.slice = (uint8_t)slice;
	it.ts = ts;
	it.end = end;
	it.index = index;
	it.id = id;
	it.term = (uint8_t)term;
	it.wait = (uint8_t)wait;
	return extsort_put(&r->items, &it) != 0 ? trouble_errno(r) : PFREAD_OK;
}

static int name_cat(struct pfread *r, const struct te *e, int name, int cat)
{
	if (cat >= 0) {
		buf_reset(&r->tmp);
		json_token_unescape(&r->doc, cat, &r->tmp);
		if (e->ncat != 1 || !same_text(lookup(r, 1, e->cat_iid), &r->tmp))
			return diff(r, "category differs from the source's \"%s\"", r->tmp.p);
	} else if (e->ncat != 0) {
		return diff(r, "a category the source's event does not have");
	}
	if (name >= 0) {
		buf_reset(&r->tmp);
		json_token_unescape(&r->doc, name, &r->tmp);
		if (!e->has_name || !same_text(lookup(r, 0, e->name_iid), &r->tmp))
			return diff(r, "name differs from the source's \"%.*s\"",
				    (int)(r->tmp.len > 200 ? 200 : r->tmp.len), r->tmp.p);
	} else if (e->has_name) {
		return diff(r, "a name the source's event does not have");
	}
	return PFREAD_OK;
}

/* ---- the source's events ----------------------------------------------- */

/* M: the names and ranks the descriptors must end with (a name with a bad
 * escape, which tr-decode lets through to no stage, is passed by). */
static int meta(struct pfread *r, const struct pf_members *e)
{
	size_t pn, tn;
	const char *pid = pf_raw(&r->doc, e->pid, &pn), *tid = pf_raw(&r->doc, e->tid, &tn);
	int created;
	int64_t th, pr;

	if (pf_ids_meta(&r->ids, &r->doc, e->name, e->args, pid, pn, tid, tn, &r->tmp, &th, &pr,
			&created) == PF_META_NOMEM)
		return PFREAD_NOMEM;
	return PFREAD_OK;
}

static int counter(struct pfread *r, const struct pf_members *e, int64_t ts)
{
	size_t pn, nn;
	const char *pid = pf_raw(&r->doc, e->pid, &pn);
	int created, i, k, cnt, rc;
	int64_t pr;
	struct te *te;

	if (e->args < 0 || json_type(&r->doc, e->args) != JT_OBJECT)
		return PFREAD_OK;
	if ((pr = pf_ids_proc(&r->ids, pid, pn, &created)) < 0)
		return PFREAD_NOMEM;
	if ((te = malloc(sizeof *te)) == NULL)
		return PFREAD_NOMEM;
	cnt = json_size(&r->doc, e->args);
	rc = PFREAD_OK;
	for (i = e->args + 1, k = 0; k < cnt && rc == PFREAD_OK; k++, i = json_next(&r->doc, i + 1)) {
		const char *t = json_text(&r->doc, i + 1, &nn);
		const struct pf_track *tr, *parent;
		int64_t iv;
		size_t j;
		int integral = 1;
		if (json_type(&r->doc, i + 1) != JT_PRIMITIVE || t[0] == 't' || t[0] == 'f' ||
		    t[0] == 'n')
			continue;
		buf_reset(&r->tmp);
		if (e->name >= 0)
			json_token_unescape(&r->doc, e->name, &r->tmp);
		buf_addch(&r->tmp, ' ');
		json_token_unescape(&r->doc, i, &r->tmp);
		if ((rc = expect(r, te, PF_TYPE_COUNTER, ts, "counter")) != PFREAD_OK)
			break;
		r->counters++;
		tr = track_of(r, te->uuid);
		parent = tr != NULL ? track_of(r, tr->parent) : NULL;
		if (tr == NULL || tr->kind != PF_T_COUNTER || tr->name == NULL ||
		    strcmp(tr->name, r->tmp.p) != 0 || parent == NULL || parent->kind != PF_T_PROC ||
		    parent->pid != r->ids.procs[pr].pid) {
			rc = diff(r, "counter \"%s\" is on another track in the output", r->tmp.p);
			break;
		}
		for (j = 0; j < nn; j++)
			if (t[j] == '.' || t[j] == 'e' || t[j] == 'E')
				integral = 0;
		if (integral && tsnum_parse_int64(t, nn, &iv) == NUM_OK) {
			if (!te->has_int || (int64_t)te->counter != iv)
				rc = diff(r, "counter \"%s\": the source's value %.*s differs", r->tmp.p,
					  (int)nn, t);
		} else {
			char *end;
			double d;
			buf_reset(&r->tmp2);
			buf_add(&r->tmp2, t, nn);
			d = strtod(r->tmp2.p, &end);
			if (!te->has_double || memcmp(&d, &te->counter, sizeof d) != 0)
				rc = diff(r, "counter \"%s\": the source's value %.*s differs", r->tmp.p,
					  (int)nn, t);
		}
	}
	free(te);
	return rc;
}

int pfread_event(struct pfread *r, const char *line, size_t len)
{
	struct pf_members e;
	struct te *te;
	int nomem = 0, created, rc;
	enum pf_kind kind;
	size_t pn, tn, n;
	const char *pid, *tid, *ph;
	int64_t th, ts = 0, dur = 0;
	struct pf_thread *t;
	uint64_t want_type;
	int on_thread;

	r->events++;
	if (json_parse(&r->doc, line, len, &nomem) != 0 || json_type(&r->doc, 0) != JT_OBJECT) {
		if (nomem)
			return PFREAD_NOMEM;
		return diff(r, "the source's event is not a JSON object");
	}
	(void)pf_members(&r->doc, &e);  /* an object: checked above */
	ph = pf_raw(&r->doc, e.ph, &n);
	kind = pftrace_kind(ph, n);
	if (kind == PF_K_SKIP) {
		r->skipped++;
		return PFREAD_OK;
	}
	if (kind == PF_K_META)
		return meta(r, &e);
	if (pftrace_time(&r->doc, e.ts, &ts) != 0) {
		r->skipped++;
		return PFREAD_OK;
	}
	if (kind == PF_K_COUNTER)
		return counter(r, &e, ts);
	pid = pf_raw(&r->doc, e.pid, &pn);
	tid = pf_raw(&r->doc, e.tid, &tn);
	if ((th = pf_ids_thread(&r->ids, pid, pn, tid, tn, &created)) < 0)
		return PFREAD_NOMEM;
	t = &r->ids.threads[th];
	if (kind == PF_K_FLOW) {
		size_t bn, cn, nn, in;
		const char *bp = pf_raw(&r->doc, e.bp, &bn), *cat = pf_raw(&r->doc, e.cat, &cn);
		const char *name = pf_raw(&r->doc, e.name, &nn), *id = pf_raw(&r->doc, e.id, &in);
		int term = ph[1] == 'f', wait = term && !(bn == 3 && bp[1] == 'e');
		r->flows_src++;
		return put_item(r, th, 0, ts, ts, r->events - 1,
				pftrace_flow_id(cat, cn, name, nn, id, in), term, wait);
	}
	if (kind == PF_K_SLICE && e.dur >= 0 && pftrace_time(&r->doc, e.dur, &dur) != 0)
		dur = 0;
	want_type = kind == PF_K_END ? PF_TYPE_END : kind == PF_K_INSTANT ? PF_TYPE_INSTANT :
		    PF_TYPE_BEGIN;
	if ((te = malloc(sizeof *te)) == NULL)
		return PFREAD_NOMEM;
	rc = expect(r, te, want_type, ts, "event");
	on_thread = kind == PF_K_SLICE || kind == PF_K_BEGIN;
	if (rc == PFREAD_OK && kind == PF_K_INSTANT) {
		const char *s = pf_raw(&r->doc, e.scope, &n);
		const struct pf_track *k = track_of(r, te->uuid);
		r->instants++;
		if (n == 3 && s[1] == 'g') {
			if (k == NULL || k->kind != PF_T_NAMED || k->parent != 0 || k->name == NULL ||
			    strcmp(k->name, PFTRACE_GLOBAL_TRACK_NAME) != 0)
				rc = diff(r, "a global instant on another track");
		} else if (n == 3 && s[1] == 'p') {
			if (k == NULL || k->kind != PF_T_PROC || k->pid != r->ids.procs[t->proc].pid)
				rc = diff(r, "a process instant on another track");
		} else {
			on_thread = 1;
			rc = same_thread(r, te, t, "event");
		}
	} else if (rc == PFREAD_OK) {
		rc = same_thread(r, te, t, "event");
	}
	if (rc == PFREAD_OK)
		rc = name_cat(r, te, e.name, e.cat);
	if (rc == PFREAD_OK)
		rc = compare_args(r, e.args, te);
	if (rc == PFREAD_OK)
		rc = got_flows(r, te, on_thread ? r->events - 1 : UINT64_MAX);
	if (rc == PFREAD_OK && kind == PF_K_SLICE) {
		/* its end, the next packet */
		if ((rc = expect(r, te, PF_TYPE_END, tsnum_sat_add(ts, dur), "slice end (ts + dur)")) ==
		    PFREAD_OK && (rc = same_thread(r, te, t, "slice end")) == PFREAD_OK &&
		    (te->has_name || te->ncat || te->nda || te->nflows || te->nterm))
			rc = diff(r, "an X's slice end carries a name, category, args or flows");
	}
	free(te);
	if (rc != PFREAD_OK)
		return rc;
	if (kind == PF_K_SLICE || kind == PF_K_BEGIN)
		r->slices++;
	t->has_mark = 1;   /* a thread with slices */
	if (kind == PF_K_BEGIN) {
		if (buf_array_room((void **)&t->bstack, t->nb, &t->capb, 4, sizeof *t->bstack) != 0)
			return PFREAD_NOMEM;
		t->bstack[t->nb].start = ts;
		t->bstack[t->nb++].index = r->events - 1;
		return PFREAD_OK;
	}
	if (kind == PF_K_END) {
		if (t->nb == 0)
			return PFREAD_OK;
		t->nb--;
		return put_item(r, th, 1, t->bstack[t->nb].start, ts, t->bstack[t->nb].index, 0, 0, 0);
	}
	if (!on_thread)
		return PFREAD_OK;
	return put_item(r, th, 1, ts, kind == PF_K_SLICE ? tsnum_sat_add(ts, dur) : ts,
			r->events - 1, 0, 0, 0);
}

/* A flow bound (or not) in the source's import. */
static int put_want(void *ctx, void *rec, uint64_t slice)
{
	struct pfread *r = ctx;
	const struct pfread_item *it = rec;
	struct pfread_bound b;

	if (slice == VERIFYBIND_NONE) {
		r->flows_dropped++;
		return 0;
	}
	memset(&b, 0, sizeof b);
	b.slice = slice;
	b.id = it->id;
	b.term = it->term;
	b.flow = it->index;
	return extsort_put(&r->want, &b);
}

/* Every flow of the source on the slice Perfetto's JSON import binds it
 * to (verifybind.h), and no other flow in the output. */
static int check_bindings(struct pfread *r)
{
	struct verifybind vb;
	const void *rec;
	const struct pfread_item *it;
	const struct pfread_bound *g = NULL, *w = NULL;
	uint32_t track = UINT32_MAX;
	int rc = 0, hg, hw;

	verifybind_init(&vb, 0, sizeof(struct pfread_item), put_want, r);
	if (extsort_finish(&r->items) != 0)
		return trouble_errno(r);
	while (rc == 0 && extsort_next(&r->items, &rec) > 0) {
		uint64_t slice;
		it = rec;
		if (it->thread != track) {
			rc = verifybind_track_end(&vb);
			track = it->thread;
		}
		if (rc != 0)
			break;
		if (it->slice)
			rc = verifybind_slice(&vb, it->ts, it->end, it->index);
		else if ((rc = verifybind_flow(&vb, it->wait, it, &slice)) == 1)
			rc = put_want(r, (void *)(uintptr_t)it, slice);
	}
	if (rc == 0)
		rc = verifybind_track_end(&vb);
	verifybind_free(&vb);
	if (rc != 0 || extsort_finish(&r->want) != 0 || extsort_finish(&r->got) != 0)
		return trouble_errno(r);
	hg = extsort_next(&r->got, &rec) > 0;
	g = rec;
	hw = extsort_next(&r->want, &rec) > 0;
	w = rec;
	while (hg || hw) {
		int c = !hg ? 1 : !hw ? -1 : cmp_bound(g, w);
		if (hg && hw && g->slice == w->slice && g->id == w->id && g->term == w->term)
			c = 0;
		if (c > 0) {
			snprintf(r->msg, sizeof r->msg, "%s: event %llu: Perfetto's JSON import binds "
				 "this flow event to event %llu; the output does not carry it there",
				 r->path, (unsigned long long)w->flow, (unsigned long long)w->slice);
			return PFREAD_DIFF;
		}
		if (c < 0) {
			snprintf(r->msg, sizeof r->msg, "%s: event %llu: the output carries a flow "
				 "(id %016llx) there that Perfetto's JSON import binds elsewhere or not "
				 "at all", r->path, (unsigned long long)g->slice,
				 (unsigned long long)g->id);
			return PFREAD_DIFF;
		}
		hg = extsort_next(&r->got, &rec) > 0;
		g = rec;
		hw = extsort_next(&r->want, &rec) > 0;
		w = rec;
	}
	return PFREAD_OK;
}

int pfread_finish(struct pfread *r)
{
	size_t i;
	int rc;

	r->events++;  /* a message names the place after the last event */
	for (i = 0; i < r->ids.nthreads; i++) {
		struct pf_thread *t = &r->ids.threads[i];
		/* a B without its E: open to the end */
		while (t->nb > 0) {
			t->nb--;
			if ((rc = put_item(r, (int64_t)i, 1, t->bstack[t->nb].start, INT64_MAX,
					   t->bstack[t->nb].index, 0, 0, 0)) != PFREAD_OK)
				return rc;
		}
	}
	if ((rc = next_event(r)) == GOT_EVENT)
		return diff(r, "the output has events after the source's last one");
	if (rc != 0)
		return rc;
	if ((rc = check_bindings(r)) != PFREAD_OK)
		return rc;
	/* the names and sort indices, as the descriptors left them */
	for (i = 0; i < r->ids.nthreads + r->ids.nprocs; i++) {
		int thread = i < r->ids.nthreads;
		const struct pf_proc *p = thread ? &r->ids.procs[r->ids.threads[i].proc] :
					  &r->ids.procs[i - r->ids.nthreads];
		const struct pf_thread *t = thread ? &r->ids.threads[i] : NULL;
		const char *want = thread ? t->name : p->name;
		int has_rank = thread ? t->has_rank : p->has_rank;
		int32_t rank = thread ? t->rank : p->rank;
		const struct pf_track *k = NULL, *parent;
		size_t j, count = 0;
		for (j = 0; j < r->ntracks; j++)
			if (r->tracks[j].kind == (thread ? PF_T_THREAD : PF_T_PROC) &&
			    r->tracks[j].pid == p->pid && (!thread || r->tracks[j].tid == t->tid)) {
				k = &r->tracks[j];
				count++;
			}
		if (count > 1) {
			snprintf(r->msg, sizeof r->msg, "%s: %zu descriptors for %s %lld", r->path,
				 count, thread ? "thread" : "process",
				 thread ? (long long)t->tid : (long long)p->pid);
			return PFREAD_DIFF;
		}
		if (k != NULL && thread && ((parent = track_of(r, k->parent)) == NULL ||
					    parent->kind != PF_T_PROC || parent->pid != p->pid)) {
			snprintf(r->msg, sizeof r->msg, "%s: thread %lld is not under its process %d",
				 r->path, (long long)t->tid, (int)p->pid);
			return PFREAD_DIFF;
		}
		if (k == NULL) {
			if (thread && !t->has_mark && want == NULL && !has_rank)
				continue;  /* a thread of flows alone */
			snprintf(r->msg, sizeof r->msg, "%s: no descriptor for %s %lld", r->path,
				 thread ? "thread" : "process", thread ? (long long)t->tid :
				 (long long)p->pid);
			return PFREAD_DIFF;
		}
		if ((want == NULL) != (k->name == NULL) ||
		    (want != NULL && strcmp(want, k->name) != 0) ||
		    has_rank != k->has_rank || (has_rank && rank != k->rank)) {
			snprintf(r->msg, sizeof r->msg, "%s: %s %lld: its name or sort index differs "
				 "from the source's metadata", r->path, thread ? "thread" : "process",
				 thread ? (long long)t->tid : (long long)p->pid);
			return PFREAD_DIFF;
		}
	}
	return PFREAD_OK;
}

int pfread_summary(const struct pfread *r, struct buf *out)
{
	return buf_printf(out, "verified: %s holds the source's %llu events: %llu slices, "
			  "%llu instants, %llu counter values, %llu flows, each on the slice "
			  "Perfetto's JSON import binds it to (%llu left out: no slice of their "
			  "thread binds them), %zu processes and %zu threads with their names and "
			  "sort indices; %llu events of other phases or without ts left out\n", r->path,
			  (unsigned long long)(r->events - 1), (unsigned long long)r->slices,
			  (unsigned long long)r->instants, (unsigned long long)r->counters,
			  (unsigned long long)r->flows_out, (unsigned long long)r->flows_dropped, r->ids.nprocs, r->ids.nthreads, (unsigned long long)r->skipped);
}

int pfread_run(struct pfread *r, struct stream_in *in, const char *src_path, struct buf *summary)
{
	const char *line;
	size_t len;
	int rc, status = PFREAD_OK;

	while (status == PFREAD_OK && (rc = stream_next(in, &line, &len)) > 0)
		if (rc == LINE_EVENT)
			status = pfread_event(r, line, len);
	if (status != PFREAD_OK)
		return status;
	if (rc == LINE_ERROR) {
		snprintf(r->msg, sizeof r->msg, "%s: %s", src_path, in->err);
		return PFREAD_INPUT;
	}
	if ((status = pfread_finish(r)) != PFREAD_OK)
		return status;
	return pfread_summary(r, summary) != 0 ? PFREAD_NOMEM : PFREAD_OK;
}

int pfread_stream_source(const char *path, struct stream_in *in)
{
	int fd;

	if (!pfread_is_stream(path, &fd))
		return 0;
	return stream_in_init(in, fd, STREAM_DEFAULT_MAX_LINE) != 0 ? -1 : 1;
}

int pfread_is_stream(const char *path, int *fd)
{
	char head[8];

	if (strcmp(path, "-") == 0) {
		*fd = STDIN_FILENO;
		return 1;
	}
	if ((*fd = open(path, O_RDONLY)) < 0)
		return 0;
	if (read(*fd, head, sizeof head) == (ssize_t)sizeof head &&
	    memcmp(head, "{\"@tr\":", 7) == 0 && lseek(*fd, 0, SEEK_SET) == 0)
		return 1;
	close(*fd);
	return 0;
}
