/* compact: see compact.h.
 *
 * Members are found by one walk over the line's top level (event.h) when
 * the line holds no backslash: then raw key bytes are the keys.  Pass one
 * walks each line once, as far as the event's kind needs.  A line with
 * escapes goes through the tokenizer, which compares unescaped keys. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compact.h"
#include "compact_flow.h"
#include "io.h"
#include "compact_rewrite.h"
#include "trstream.h"
#include "tsnum.h"

#define MAX_SEEN_CATS 4096  /* distinct categories kept for the "nothing" message */
#define MAX_LISTED 10       /* pids or categories named in a message */

/* Room for one more item in a growing array: 0 or COMPACT_NOMEM. */
static int room(void **items, size_t n, size_t *cap, size_t first, size_t elem)
{
	return buf_array_room(items, n, cap, first, elem) == 0 ? COMPACT_OK : COMPACT_NOMEM;
}

/* The order the lanes are packed in: (group, Perfetto's start, index). */
static int cmp_lanes(const void *a, const void *b)
{
	const struct compact_act *x = a, *y = b;
	int64_t xlo = x->start_ns - x->lo_pad, ylo = y->start_ns - y->lo_pad;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (xlo != ylo)
		return xlo < ylo ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_lane_rec(const void *a, const void *b)
{
	const struct compact_lane_rec *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_hit(const void *a, const void *b)
{
	const struct compact_flow_hit *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* By start, then source order (what a stable sort by start gives). */
static int cmp_guide(const void *a, const void *b)
{
	const struct compact_guide_rec *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void compact_init(struct compact *c)
{
	memset(c, 0, sizeof *c);
	/* the sizes are constants that fit: these cannot fail */
	(void)extsort_init(&c->acts, sizeof(struct compact_act), COMPACT_RUN_BYTES, cmp_lanes,
				"tr-compact");
	(void)extsort_init(&c->flows, sizeof(struct compact_flow_rec), COMPACT_RUN_BYTES, NULL,
				"tr-compact");
	(void)extsort_init(&c->guides, sizeof(struct compact_guide_rec), COMPACT_RUN_BYTES,
				cmp_guide, "tr-compact");
	(void)extsort_init(&c->lanes_out, sizeof(struct compact_lane_rec), COMPACT_RUN_BYTES,
				cmp_lane_rec, "tr-compact");
	(void)extsort_init(&c->bindings, sizeof(struct compact_flow_hit), COMPACT_RUN_BYTES,
				cmp_hit, "tr-compact");
	(void)extsort_init(&c->offsets, sizeof(struct compact_offsets), COMPACT_RUN_BYTES, NULL,
				"tr-compact");
	c->pending_fd = -1;
	c->first_bad_guide = UINT64_MAX;
	c->first_change = UINT64_MAX;
	c->max_lanes = COMPACT_MAX_LANES;
	c->key = (struct buf)BUF_INIT;
	c->last_track_key = (struct buf)BUF_INIT;
	c->last_group_dev = (struct buf)BUF_INIT;
	c->out = (struct buf)BUF_INIT;
	c->line = (struct buf)BUF_INIT;
	c->msg = (struct buf)BUF_INIT;
}

/* The intern key of a (pid, tid): raw pid, \001, raw tid, in c->key. */
static int track_key(struct compact *c, const char *pid, size_t plen, const char *tid,
		     size_t tlen)
{
	buf_reset(&c->key);
	if (buf_add(&c->key, pid, plen) || buf_addch(&c->key, '\001') ||
	    buf_add(&c->key, tid, tlen))
		return COMPACT_NOMEM;
	return COMPACT_OK;
}

/* The id of a (pid, tid) in *id, adding it when new. */
static int track_of(struct compact *c, const char *pid, size_t plen, const char *tid,
		    size_t tlen, uint32_t *out)
{
	int64_t id;
	uint32_t before;

	/* events come in runs on one thread: skip the hashing for a repeat */
	if (c->last_track_key.len == plen + 1 + tlen && c->last_track_key.len > 0 &&
	    memcmp(c->last_track_key.p, pid, plen) == 0 &&
	    memcmp(c->last_track_key.p + plen + 1, tid, tlen) == 0) {
		*out = c->last_track;
		return COMPACT_OK;
	}
	if (track_key(c, pid, plen, tid, tlen) != 0)
		return COMPACT_NOMEM;
	before = c->tracks_by_key.n;
	id = intern_id(&c->tracks_by_key, c->key.p, c->key.len);
	if (id < 0 || room((void **)&c->tracks, (size_t)id, &c->ntracks_cap, 64,
			   sizeof *c->tracks) != 0)
		return COMPACT_NOMEM;
	if (c->tracks_by_key.n != before) { /* new */
		struct compact_track *t = &c->tracks[id];
		int64_t pid_id = intern_id(&c->pids, pid, plen);
		memset(t, 0, sizeof *t);
		t->first_flow = UINT64_MAX;
		t->pid = buf_memdup(pid, plen);
		t->tid = buf_memdup(tid, tlen);
		if (pid_id < 0 || t->pid == NULL || t->tid == NULL)
			return COMPACT_NOMEM;
		t->pid_id = (uint32_t)pid_id;
	}
	buf_reset(&c->last_track_key);
	if (buf_add(&c->last_track_key, c->key.p, c->key.len) != 0)
		return COMPACT_NOMEM;
	c->last_track = (uint32_t)id;
	*out = (uint32_t)id;
	return COMPACT_OK;
}

static int group_of(struct compact *c, const struct compact_track *t, const char *dev,
		    size_t dlen, int kind, uint32_t *out)
{
	struct buf key = BUF_INIT;
	int64_t id;
	uint32_t before;

	/* a process's activity comes in runs of one device: skip the key and
	 * its hashing for a repeat */
	if (c->have_last_group && c->last_group_pid == t->pid_id &&
	    c->last_group_kind == kind && c->last_group_dev.len == dlen &&
	    memcmp(c->last_group_dev.p, dev, dlen) == 0) {
		*out = c->last_group;
		return COMPACT_OK;
	}
	/* as "%d\001%s\001" would write it, without printf's cost per event */
	if (buf_addch(&key, (char)('0' + kind)) || buf_addch(&key, '\001') ||
	    buf_addstr(&key, t->pid) || buf_addch(&key, '\001') || buf_add(&key, dev, dlen)) {
		buf_release(&key);
		return COMPACT_NOMEM;
	}
	before = c->groups_by_key.n;
	id = intern_id(&c->groups_by_key, key.p, key.len);
	buf_release(&key);
	if (id < 0 || room((void **)&c->groups, (size_t)id, &c->ngroups_cap, 16,
			   sizeof *c->groups) != 0)
		return COMPACT_NOMEM;
	if (c->groups_by_key.n != before) {
		struct compact_group *g = &c->groups[id];
		memset(g, 0, sizeof *g);
		g->pid = buf_memdup(t->pid, strlen(t->pid));
		g->device = buf_memdup(dev, dlen);
		if (g->pid == NULL || g->device == NULL)
			return COMPACT_NOMEM;
		g->pid_id = t->pid_id;
		g->kind = kind;
		g->display_pid = -1;
	}
	buf_reset(&c->last_group_dev);
	if (buf_add(&c->last_group_dev, dev, dlen) != 0)
		return COMPACT_NOMEM;
	c->have_last_group = 1;
	c->last_group_pid = t->pid_id;
	c->last_group_kind = kind;
	c->last_group = (uint32_t)id;
	*out = (uint32_t)id;
	return COMPACT_OK;
}

static int clamp_pad(struct compact *c, int64_t v, uint64_t index, int16_t *out)
{
	if (v > INT16_MAX)
		return compact_refuse(c, "event %" PRIu64 ": Perfetto's double conversion moves this "
			      "timestamp by %" PRId64 " ns; rebase the trace's timestamps first",
			      index, v);
	*out = (int16_t)v;
	return COMPACT_OK;
}

/* The members pass one looks at, found in one walk over the line's top
 * level as far as needed (event_members' rules: raw key bytes, the first
 * of a repeated key, an empty value is no value). */
enum { K_PID, K_TID, K_PH, K_CAT, K_NAME, K_TS, K_DUR, K_ARGS, K_ID, NKEYS };
#define BIT(k) (1u << (k))

struct walk {
	const char *line;
	size_t len, pos;
	unsigned found;
	int done;
	int open_args;   /* stop at an args object: its len runs to the line's end */
	struct member m[NKEYS];
};

static inline int walk_key(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return K_PH;
		if (k[0] == 't' && k[1] == 's')
			return K_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return K_ID;
		return -1;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			return K_PID;
		if (memcmp(k, "tid", 3) == 0)
			return K_TID;
		if (memcmp(k, "cat", 3) == 0)
			return K_CAT;
		if (memcmp(k, "dur", 3) == 0)
			return K_DUR;
		return -1;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return K_NAME;
		if (memcmp(k, "args", 4) == 0)
			return K_ARGS;
		return -1;
	default:
		return -1;
	}
}

/* The walks below run over every member of most events: the common cases
 * are inline here, the rest goes to event.h's functions, which give the
 * same answers for every text. */
/* event_skip_value(line, len, i): a string as a string; a number or a
 * literal ends at the comma or brace after it; an array of numbers and
 * literals (a kernel's grid and block) at its bracket; anything else (an
 * object, a nested array, a malformed value) is left to event_skip_value. */
static inline size_t value_end(const char *line, size_t len, size_t i)
{
	if (i < len) {
		char first = line[i];
		size_t j;
		if (first == '"')
			return event_string_end(line, len, i);
		if (first == '[') {
			for (j = event_next_stop(line, len, i + 1); j < len && line[j] == ',';
			     j = event_next_stop(line, len, j + 1))
				;
			if (j < len && line[j] == ']')
				return j + 1;
		} else if (first != '{') {
			j = event_next_stop(line, len, i);
			if (j >= len || line[j] == ',' || line[j] == '}')
				return j;
		}
	}
	return event_skip_value(line, len, i);
}

static void walk_init(struct walk *w, const char *line, size_t len)
{
	memset(w, 0, sizeof *w);
	w->line = line;
	w->len = len;
	w->pos = 1;
	w->done = len < 2 || line[0] != '{';
}

/* Walk on until every key of want is found or the top level ends. */
static void walk_to(struct walk *w, unsigned want)
{
	const char *line = w->line;
	size_t len = w->len;

	while (!w->done && (w->found & want) != want) {
		size_t i = w->pos, kend, vstart, vend;
		int k;
		if (i >= len || line[i] != '"') {
			w->done = 1;
			break;
		}
		kend = event_string_end(line, len, i);
		if (kend >= len || line[kend] != ':') {
			w->done = 1;
			break;
		}
		vstart = kend + 1;
		k = walk_key(line + i + 1, kend - i - 2);
		if (k == K_ARGS && w->open_args && !(w->found & BIT(k)) && vstart < len &&
		    line[vstart] == '{' && (w->found | BIT(k) | ~want) == ~0u) {
			/* the last member wanted: args' members are read next,
			 * which finds its end if anything needs it */
			w->m[k].p = line + vstart;
			w->m[k].len = len - vstart;
			w->found |= BIT(k);
			w->done = 1;
			break;
		}
		vend = value_end(line, len, vstart);
		if (k >= 0 && !(w->found & BIT(k)) && vend > vstart) {
			w->m[k].p = line + vstart;
			w->m[k].len = vend - vstart;
			w->found |= BIT(k);
		}
		if (vend >= len || line[vend] != ',') {
			w->done = 1;
			break;
		}
		w->pos = vend + 1;
	}
}

/* tsnum_parse_int64's answer, without its general scan for the common
 * text: up to 18 digits without a leading zero. */
static inline int parse_int64(const char *p, size_t n, int64_t *v)
{
	if (n >= 1 && n <= 18 && (p[0] != '0' || n == 1)) {
		int64_t x = 0;
		size_t i;
		for (i = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			x = x * 10 + (p[i] - '0');
		if (i == n) {
			*v = x;
			return NUM_OK;
		}
	}
	return tsnum_parse_int64(p, n, v);
}

/* A raw member value that is a number or a literal (not a string, object
 * or array, not absent). */
static int is_primitive(struct member m)
{
	return m.len > 0 && m.p[0] != '"' && m.p[0] != '{' && m.p[0] != '[';
}

/* Exact and Perfetto bounds of an X event. */
static int bounds(struct compact *c, struct member ts, struct member dur, struct compact_act *a)
{
	struct lane_bounds lb;
	int rc;

	if (!is_primitive(ts) || !is_primitive(dur))
		return compact_refuse(c, "event %" PRIu64 ": GPU event without a numeric ts and dur",
			      c->events);
	rc = lanes_bounds(ts.p, ts.len, dur.p, dur.len, &lb);
	if (rc == LANES_BOUNDS_RANGE)
		return compact_refuse(c, "event %" PRIu64 ": ts %.*s or dur %.*s is out of range (beyond "
			      "+/-" TSNUM_MAX_US_TEXT " us, 2^62 ns, the time range of trace-layers)",
			      c->events, (int)ts.len, ts.p, (int)dur.len, dur.p);
	if (rc == LANES_BOUNDS_NEGATIVE)
		return compact_refuse(c, "event %" PRIu64 ": negative dur %.*s", c->events,
			      (int)dur.len, dur.p);
	a->start_ns = lb.start_ns;
	a->end_ns = lb.end_ns;
	if ((rc = clamp_pad(c, lb.lo_pad, c->events, &a->lo_pad)) != 0 ||
	    (rc = clamp_pad(c, lb.hi_pad, c->events, &a->hi_pad)) != 0)
		return rc;
	if (lb.zero)
		a->flags |= COMPACT_F_ZERO;
	return COMPACT_OK;
}

/* The members of an args object from line[i] on (a member's opening
 * quote) to its end, looking at device and correlation (as event_members
 * finds them: the first with a value) when am is not NULL.  0 with *end
 * just past the object; with stop, 1 once both are found, *end then being
 * where the walk goes on (pass two finds the end from there); -1 when the
 * members do not read as an object's. */
static int args_members(const char *line, size_t len, size_t i, struct member *am, int stop,
			size_t *end)
{
	while (i < len && line[i] == '"') {
		size_t kend = event_string_end(line, len, i), vstart, vend, n;
		if (kend >= len || line[kend] != ':')
			return -1;
		vstart = kend + 1;
		vend = value_end(line, len, vstart);
		n = kend - i - 2;
		if (am != NULL && vend > vstart) {
			if (n == 6 && am[0].p == NULL && memcmp(line + i + 1, "device", 6) == 0) {
				am[0].p = line + vstart;
				am[0].len = vend - vstart;
			} else if (n == 11 && am[1].p == NULL &&
				   memcmp(line + i + 1, "correlation", 11) == 0) {
				am[1].p = line + vstart;
				am[1].len = vend - vstart;
			}
		}
		if (vend >= len)
			return -1;
		if (line[vend] == '}') {
			*end = vend + 1;
			return 0;
		}
		if (line[vend] != ',')
			return -1;
		i = vend + 1;
		if (stop && am[0].p != NULL && am[1].p != NULL) {
			*end = i;
			return 1;
		}
	}
	return -1;
}

/* The device and correlation of an args object at line[at] (as
 * event_members finds them) and where it ends, in one walk over its
 * members (args_members' results; stop: it may stop once both are
 * found). */
static int args_walk(const char *line, size_t len, size_t at, struct member *am, int stop,
		     size_t *end)
{
	size_t i = at + 1;

	am[0].p = am[1].p = NULL;
	am[0].len = am[1].len = 0;
	if (i < len && line[i] == '}') {
		*end = i + 1;
		return 0;
	}
	return args_members(line, len, i, am, stop, end);
}

/* Where pass two's rewrite finds pid, tid and args, when pass one knows. */
static int note_offsets(struct compact *c, const char *line, const struct member *pid,
			const struct member *tid, const struct member *args, size_t args_rest)
{
	struct compact_offsets o;

	memset(&o, 0, sizeof o);
	o.index = (uint32_t)c->events;
	o.pid_off = (uint32_t)(pid->p - line);
	o.pid_len = (uint32_t)pid->len;
	o.tid_off = (uint32_t)(tid->p - line);
	o.tid_len = (uint32_t)tid->len;
	o.args_off = args->len > 0 ? (uint32_t)(args->p - line) : 0;
	o.args_len = (uint32_t)args->len;
	o.args_rest = (uint32_t)args_rest;
	if (extsort_put(&c->offsets, &o) != 0)
		return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
	return COMPACT_OK;
}

/* The event being seen gets a record that pass two may act on. */
static void may_change(struct compact *c)
{
	if (c->first_change == UINT64_MAX)
		c->first_change = c->events;
}

/* A record for a GPU activity or scope; w: pass one's walk over line, or
 * NULL. */
static int add_act(struct compact *c, const char *line, size_t len, uint32_t track, int kind,
		   int is_kernel, struct walk *w)
{
	static const char *const keys[] = { "ts", "dur", "args" };
	static const char *const arg_keys[] = { "device", "correlation" };
	struct member m[3], am[2] = { { NULL, 0 }, { NULL, 0 } };
	struct compact_act rec, *a = &rec;
	struct compact_group *g;
	const char *dtext = "null";
	size_t dlen = 4, args_end;
	int rc, fast = w != NULL && len <= UINT32_MAX && memchr(line, '\\', len) == NULL;

	if (c->events > UINT32_MAX)
		return compact_refuse(c, "more than 2^32 events: too many for tr-compact's records");
	memset(a, 0, sizeof *a);
	if (fast) {
		w->open_args = 1;
		walk_to(w, BIT(K_TS) | BIT(K_DUR) | BIT(K_ARGS));
		m[0] = w->m[K_TS];
		m[1] = w->m[K_DUR];
		m[2] = w->m[K_ARGS];
	} else if ((rc = compact_members(c, line, len, keys, 3, m)) != 0) {
		return rc;
	}
	if ((rc = bounds(c, m[0], m[1], a)) != 0)
		return rc;
	if (fast && m[2].len > 0 && m[2].p[0] == '{') {
		size_t at = (size_t)(m[2].p - line);
		/* the rest of args (kernels have a dozen more members) is
		 * walked by pass two, which needs its end */
		int got = args_walk(line, len, at, am, 1, &args_end);
		if (got == 0) {
			m[2].len = args_end - at;
			rc = note_offsets(c, line, &w->m[K_PID], &w->m[K_TID], &m[2], 0);
		} else if (got == 1) {
			rc = note_offsets(c, line, &w->m[K_PID], &w->m[K_TID], &m[2], args_end);
		} else {
			rc = compact_members(c, m[2].p, m[2].len, arg_keys, 2, am);
		}
		if (rc != 0)
			return rc;
	} else if (m[2].len > 0 && m[2].p[0] == '{') {
		if ((rc = compact_members(c, m[2].p, m[2].len, arg_keys, 2, am)) != 0)
			return rc;
	} else if (fast &&
		   (rc = note_offsets(c, line, &w->m[K_PID], &w->m[K_TID], &m[2], 0)) != 0) {
		return rc;
	}
	if (am[0].len > 0) {
		dtext = am[0].p;
		dlen = am[0].len;
	}
	a->corr = COMPACT_NO_CORR;
	if (is_primitive(am[1]) && parse_int64(am[1].p, am[1].len, &a->corr) != NUM_OK)
		a->corr = COMPACT_NO_CORR;
	a->index = (uint32_t)c->events;
	a->track = track;
	a->ord = (uint32_t)c->nacts;
	if (a->corr != COMPACT_NO_CORR)
		c->tracks[track].has_corr = 1;
	c->tracks[track].moved = 1;
	if ((rc = group_of(c, &c->tracks[track], dtext, dlen, kind, &a->group)) != 0)
		return rc;
	a->flags |= (uint8_t)((is_kernel ? COMPACT_F_KERNEL : 0) |
			      (kind == COMPACT_SCOPE ? COMPACT_F_SCOPE : 0));
	g = &c->groups[a->group];
	g->nacts++;
	if (is_kernel)
		g->nkernels++;
	may_change(c);
	if (extsort_put(&c->acts, a) != 0)
		return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
	c->nacts++;
	return COMPACT_OK;
}

static void note_other(struct compact *c, uint32_t track)
{
	struct compact_track *t = &c->tracks[track];

	if (t->nother++ == 0)
		t->first_other = c->events;
}

/* Which of tr-guides' args keys a key is (0: none of them). */
static unsigned guide_key(const char *k, size_t n)
{
	if (n == 8 && memcmp(k, "layer_id", 8) == 0)
		return 1;
	if (n == 10 && memcmp(k, "pass_index", 10) == 0)
		return 2;
	if (n == 13 && memcmp(k, "boundary_kind", 13) == 0)
		return 4;
	return 0;
}

/* Bytes that may follow the first of a number or a literal in a simple
 * line (below): printable, and none that ends, nests or separates. */
static int simple_primitive_byte(unsigned char b)
{
	return b > ' ' && b < 127 && b != '"' && b != ',' && b != ':' && b != '{' && b != '}' &&
	       b != '[' && b != ']';
}

/* What a walk over a simple guide line finds: its first args, ts and dur
 * (len 0 when absent) and which of tr-guides' keys that args holds. */
struct guide_scan {
	struct member args, ts, dur;
	unsigned found;       /* BIT(K_ARGS), BIT(K_TS), BIT(K_DUR) */
	unsigned keys;        /* 1 layer_id, 2 pass_index, 4 boundary_kind */
};

/* Whether the object at line[at] is simple, with *end just past it:
 * members whose keys and string values hold no backslash, whose numbers
 * and literals start as JSON's do and hold only simple_primitive_byte,
 * with objects of the same kind (one level down, when nested) and no
 * whitespace.  The caller has made sure the line holds no backslash and no
 * NUL: then jsmn (strict) accepts such an object, and json_find finds in
 * it the first member of a key by its raw bytes, as this walk does.  top:
 * the line's own object, whose members go to g; keys: an args object,
 * whose keys go to g->keys. */
static int simple_object(const char *line, size_t len, size_t at, int top, int keys,
			 struct guide_scan *g, size_t *end)
{
	size_t i = at + 1;

	if (i < len && line[i] == '}') {
		*end = i + 1;
		return 1;
	}
	while (i < len && line[i] == '"') {
		size_t v = event_string_end(line, len, i), e;
		int k = -1;
		char first;
		if (v >= len || line[v] != ':' || ++v >= len)
			return 0;
		if (top)
			k = walk_key(line + i + 1, v - i - 3);
		else if (keys)
			g->keys |= guide_key(line + i + 1, v - i - 3);
		first = line[v];
		if (first == '"') {
			e = event_string_end(line, len, v);
		} else if (first == '{') {
			int args = k == K_ARGS && !(g->found & BIT(K_ARGS));
			if (!top || !simple_object(line, len, v, 0, args, g, &e))
				return 0;
		} else if (first == '-' || (first >= '0' && first <= '9') || first == 't' ||
			   first == 'f' || first == 'n') {
			for (e = v + 1; e < len && simple_primitive_byte((unsigned char)line[e]); e++)
				;
		} else {
			return 0;
		}
		if (e >= len)
			return 0;
		if ((k == K_ARGS || k == K_TS || k == K_DUR) && !(g->found & BIT(k))) {
			struct member *m = k == K_ARGS ? &g->args : k == K_TS ? &g->ts : &g->dur;
			g->found |= BIT(k);
			m->p = line + v;
			m->len = e - v;
		}
		if (line[e] == '}') {
			*end = e + 1;
			return 1;
		}
		if (line[e] != ',')
			return 0;
		i = e + 1;
	}
	return 0;
}

/* A guide's members as see_guide reads them, without the tokenizer when
 * the line is simple (above): 0, or -1 when it is not (the tokenizer
 * decides then).  (A line of 2^30 bytes or more json_parse refuses: left
 * to it.) */
static int guide_members(const char *line, size_t len, struct guide_scan *g)
{
	size_t end;

	memset(g, 0, sizeof *g);
	if (len < 2 || len >= (size_t)INT_MAX / 2 || line[0] != '{' ||
	    memchr(line, '\\', len) != NULL || memchr(line, '\0', len) != NULL ||
	    !simple_object(line, len, 0, 1, 0, g, &end) || end != len)
		return -1;
	return 0;
}

/* A guide read: its record for the overlap check. */
static int guide_done(struct compact *c, struct compact_guide_rec *g, int has_args)
{
	/* ts + dur of a forged guide may not fit: it then ends at the last ns */
	if (__builtin_add_overflow(g->end, g->start, &g->end))
		g->end = INT64_MAX;
	if (!has_args && c->first_bad_guide == UINT64_MAX)
		c->first_bad_guide = c->events;
	c->nguides++;
	if (extsort_put(&c->guides, g) != 0)
		return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
	return COMPACT_OK;
}

/* An existing layer guide slice: kept as it is, but only if it is one that
 * tr-guides made beside this GPU activity (checked in compact_plan). */
static int see_guide(struct compact *c, const char *line, size_t len, const char *pid,
		     size_t plen)
{
	struct jdoc *d = &c->doc;
	struct compact_guide_rec g;
	struct guide_scan scan;
	int args, has_args, sub;
	size_t n;
	const char *text;
	int64_t pid_id;
	uint32_t before = c->guide_pids.n;

	memset(&g, 0, sizeof g);
	g.index = c->events;
	pid_id = intern_id(&c->guide_pids, pid, plen);
	if (pid_id < 0 || room((void **)&c->guide_pid_first, (size_t)pid_id, &c->guide_pid_cap,
			       16, sizeof *c->guide_pid_first) != 0)
		return COMPACT_NOMEM;
	if (c->guide_pids.n != before)
		c->guide_pid_first[pid_id] = c->events;
	if (guide_members(line, len, &scan) == 0) {
		has_args = scan.args.len > 0 && scan.args.p[0] == '{' && scan.keys == 7;
		if (!is_primitive(scan.ts) ||
		    tsnum_us_to_ns(scan.ts.p, scan.ts.len, &g.start, &sub) != NUM_OK)
			has_args = 0;
		if (!is_primitive(scan.dur) ||
		    tsnum_us_to_ns(scan.dur.p, scan.dur.len, &g.end, &sub) != NUM_OK)
			has_args = 0;
		return guide_done(c, &g, has_args);
	}
	if (json_parse(d, line, len, NULL) != 0)
		return compact_refuse(c, "event %" PRIu64 ": not a JSON object", c->events);
	args = json_find(d, 0, "args");
	has_args = json_type(d, args) == JT_OBJECT && json_find(d, args, "layer_id") >= 0 &&
		   json_find(d, args, "pass_index") >= 0 &&
		   json_find(d, args, "boundary_kind") >= 0;
	text = json_type(d, json_find(d, 0, "ts")) == JT_PRIMITIVE ?
	       json_text(d, json_find(d, 0, "ts"), &n) : NULL;
	if (text == NULL || tsnum_us_to_ns(text, n, &g.start, &sub) != NUM_OK)
		has_args = 0;
	text = json_type(d, json_find(d, 0, "dur")) == JT_PRIMITIVE ?
	       json_text(d, json_find(d, 0, "dur"), &n) : NULL;
	if (text == NULL || tsnum_us_to_ns(text, n, &g.end, &sub) != NUM_OK)
		has_args = 0;
	return guide_done(c, &g, has_args);
}

/* A category is "device-like" when its name suggests work on an
 * accelerator (mtia_*, xpu_*, ..., or kernel/memcpy/memset in another
 * spelling) without being one tr-compact moves: listed when nothing is
 * found, so that a trace from another device says why. */
static int device_like(const char *s, size_t n)
{
	static const char *const hints[] = {
		"mtia", "xpu", "hpu", "npu", "tpu", "privateuse1", "gpu", "kernel", "memcpy",
		"memset", "device"
	};
	size_t h, i, k;

	for (h = 0; h < sizeof hints / sizeof hints[0]; h++) {
		size_t w = strlen(hints[h]);
		for (i = 0; i + w <= n; i++) {
			for (k = 0; k < w; k++)
				if ((s[i + k] | 0x20) != hints[h][k])
					break;
			if (k == w)
				return 1;
		}
	}
	return 0;
}

/* The categories tr-compact moves (on X events). */
static const char *const gpu_categories[] = {
	"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "gpu_user_annotation"
};

static int recognised(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < sizeof gpu_categories / sizeof gpu_categories[0]; k++)
		if (strlen(gpu_categories[k]) == n && memcmp(gpu_categories[k], s, n) == 0)
			return 1;
	return 0;
}

/* Note the unrecognised device-like categories of cat text s (comma
 * separated), while no GPU activity has been seen. */
static int note_categories(struct compact *c, const char *s, size_t n)
{
	size_t i = 0;
	struct compact_cat_slot *slot = &c->recent_cats[(n + (n ? (unsigned char)s[0] : 0)) %
						     COMPACT_RECENT_CATS];

	/* the same few category lists come again and again: the last one of
	 * each slot is compared first (looking at a list twice changes
	 * nothing), then the table of all */
	if (slot->len == n + 1 && memcmp(slot->text, s, n) == 0)
		return COMPACT_OK;
	if (n <= sizeof slot->text) {
		memcpy(slot->text, s, n);
		slot->len = (uint16_t)(n + 1);
	}
	if (intern_find(&c->checked_cats, s, n) >= 0)
		return COMPACT_OK;
	if (c->checked_cats.n < MAX_SEEN_CATS && intern_id(&c->checked_cats, s, n) < 0)
		return COMPACT_NOMEM;
	while (i <= n && c->seen_cats.n < MAX_SEEN_CATS) {
		const char *comma = memchr(s + i, ',', n - i);
		size_t end = comma ? (size_t)(comma - s) : n;
		if (end > i && device_like(s + i, end - i) && !recognised(s + i, end - i) &&
		    intern_id(&c->seen_cats, s + i, end - i) < 0)
			return COMPACT_NOMEM;
		if (comma == NULL)
			break;
		i = end + 1;
	}
	return COMPACT_OK;
}

/* A GPU event that cannot be given a lane because its pid or tid is
 * missing: the seed's rule, refuse what is ambiguous. */
static int refuse_untracked(struct compact *c, struct member pid, struct member tid, int scope)
{
	const char *what = scope ? "GPU scope (gpu_user_annotation)" : "GPU activity";

	if (pid.len == 0 && tid.len == 0)
		return compact_refuse(c, "event %" PRIu64 ": %s without pid and tid: its device and "
			      "stream are unknown, so it cannot be placed on a lane", c->events, what);
	if (pid.len == 0)
		return compact_refuse(c, "event %" PRIu64 ": %s without pid (tid %.*s): its process is "
			      "unknown, so it cannot be placed on a lane", c->events, what,
			      (int)tid.len, tid.p);
	return compact_refuse(c, "event %" PRIu64 ": %s without tid (pid %.*s): its stream is unknown, "
		      "so it cannot be placed on a lane", c->events, what, (int)pid.len, pid.p);
}

/* --device: the raw args.device of an event ("null" when absent), with
 * *present set. */
static int device_of(struct compact *c, const char *line, size_t len, const char **dev,
		     size_t *dlen, int *present)
{
	static const char *const keys[] = { "args" };
	static const char *const arg_keys[] = { "device" };
	struct member m[1], am[1] = { { NULL, 0 } };
	int rc;

	if ((rc = compact_members(c, line, len, keys, 1, m)) != 0)
		return rc;
	if (m[0].len > 0 && m[0].p[0] == '{' &&
	    (rc = compact_members(c, m[0].p, m[0].len, arg_keys, 1, am)) != 0)
		return rc;
	*present = am[0].len > 0;
	*dev = *present ? am[0].p : "null";
	*dlen = *present ? am[0].len : 4;
	return COMPACT_OK;
}

/* --device: whether a selected-by-pid GPU event stays selected (*match);
 * a scope without a device is decided after pass one (*deferred: queued). */
static int device_selects(struct compact *c, const char *line, size_t len, const char *pid,
			  size_t plen, uint32_t track, int activity, int *match, int *deferred)
{
	const char *dev;
	size_t dlen;
	int present, rc;

	*deferred = 0;
	*match = 0;
	if ((rc = device_of(c, line, len, &dev, &dlen, &present)) != 0)
		return rc;
	if (!activity && !present) {
		if (c->pending_fd < 0) {
			const char *dir;
			if ((c->pending_fd = io_open_spill("tr-compact", &dir)) < 0)
				return COMPACT_SYSTEM;
			if (compact_spill_init(&c->pending, c->pending_fd, COMPACT_SPILL_PLAIN) != 0)
				return COMPACT_NOMEM;
		}
		buf_reset(&c->line);
		if (buf_printf(&c->line, "%" PRIu64 " %" PRIu32 " ", c->events, track) != 0 ||
		    buf_add(&c->line, line, len) != 0 || buf_addch(&c->line, '\n') != 0)
			return COMPACT_NOMEM;
		if (compact_spill_put(&c->pending, c->line.p, c->line.len) != 0)
			return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
		c->npending++;
		may_change(c);
		*deferred = 1;
		return COMPACT_OK;
	}
	*match = event_raw_matches_arg(dev, dlen, c->only_device);
	if (activity) {
		struct buf key = BUF_INIT;
		c->tracks[track].dev_seen = 1;
		rc = buf_printf(&key, "pid %.*s, device %.*s", (int)plen, pid, (int)dlen, dev) != 0 ||
		     intern_id(&c->gpu_devices, key.p, key.len) < 0;
		buf_release(&key);
		if (rc)
			return COMPACT_NOMEM;
		if (*match) {
			c->tracks[track].dev_selected = 1;
			if (intern_id(&c->device_pids, pid, plen) < 0)
				return COMPACT_NOMEM;
		}
	}
	return COMPACT_OK;
}

static int retire(struct compact *c, const char *line, size_t len, uint32_t track)
{
	struct compact_retired *r;

	if (room((void **)&c->ret, c->nret, &c->ret_cap, 64, sizeof *c->ret) != 0)
		return COMPACT_NOMEM;
	r = &c->ret[c->nret];
	r->index = (uint32_t)c->events;
	r->track = track;
	r->text = buf_memdup(line, len);
	if (r->text == NULL)
		return COMPACT_NOMEM;
	c->nret++;
	return COMPACT_OK;
}

/* Members as compact_members finds them, but a line that is not JSON
 * gives 1 instead of a refusal. */
static int members_quiet(struct compact *c, const char *line, size_t len,
			 const char *const *keys, int n, struct member *out)
{
	int k;

	if (memchr(line, '\\', len) == NULL) {
		event_members(line, len, keys, n, out);
		return 0;
	}
	if (json_parse(&c->doc, line, len, NULL) != 0)
		return 1;
	for (k = 0; k < n; k++) {
		int tok = json_find(&c->doc, 0, keys[k]);
		out[k].p = NULL;
		out[k].len = 0;
		if (tok >= 0)
			out[k].p = json_raw(&c->doc, tok, &out[k].len);
	}
	return 0;
}

/* A flow on a (pid, tid): its record, bound between the passes if the
 * track turns out to move. */
static int see_flow(struct compact *c, const char *line, size_t len, uint32_t track,
		    struct walk *w)
{
	static const char *const keys[] = { "ts", "id" };
	struct compact_flow_rec f;
	struct member m[2];
	int sub = 0;

	if (c->events > UINT32_MAX)
		return compact_refuse(c, "more than 2^32 events: too many for tr-compact's records");
	memset(&f, 0, sizeof f);
	f.index = (uint32_t)c->events;
	f.track = track;
	f.id = COMPACT_NO_CORR;
	if (memchr(line, '\\', len) == NULL) {
		walk_to(w, BIT(K_TS) | BIT(K_ID));
		m[0] = w->m[K_TS];
		m[1] = w->m[K_ID];
		/* on a track that moves already (flows follow their kernel):
		 * where pass two's rewrite finds pid, tid and args */
		if (c->tracks[track].moved && len <= UINT32_MAX) {
			int rc;
			walk_to(w, BIT(K_ARGS));
			if ((rc = note_offsets(c, line, &w->m[K_PID], &w->m[K_TID],
					       &w->m[K_ARGS], 0)) != 0)
				return rc;
		}
	} else if (members_quiet(c, line, len, keys, 2, m) != 0) {
		f.status = COMPACT_FLOW_UNPARSED;
	}
	if (f.status == COMPACT_FLOW_OK) {
		if (!is_primitive(m[0]))
			f.status = COMPACT_FLOW_TS_TEXT;
		else if (lanes_us_to_ns(m[0].p, m[0].len, &f.ts_ns, &sub) != 0)
			f.status = COMPACT_FLOW_TS_RANGE;
		f.sub = sub != 0;
		if (!is_primitive(m[1]) || parse_int64(m[1].p, m[1].len, &f.id) != NUM_OK)
			f.id = COMPACT_NO_CORR;
	}
	if (f.id == COMPACT_NO_CORR)
		c->flows_noid++;
	/* bound between the passes if its track moves; unparsed, refused there */
	if (c->tracks[track].first_flow == UINT64_MAX)
		c->tracks[track].first_flow = c->events;
	if (f.status == COMPACT_FLOW_UNPARSED)
		may_change(c);
	if (extsort_put(&c->flows, &f) != 0)
		return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
	return COMPACT_OK;
}

/* What one category (a cat without a comma) makes of an X event: the
 * answers of the event_category_has calls below for it, by a switch on
 * its length -- most events have one category, and each X event would
 * ask up to eight. */
enum { CAT_KERNEL = 1, CAT_ACTIVITY = 2, CAT_SCOPE = 4, CAT_GUIDE = 8 };

static unsigned one_category(const char *s, size_t n)
{
	switch (n) {
	case 6:
		if (memcmp(s, "kernel", 6) == 0 || memcmp(s, "Kernel", 6) == 0)
			return CAT_KERNEL | CAT_ACTIVITY;
		if (memcmp(s, "Memcpy", 6) == 0 || memcmp(s, "Memset", 6) == 0)
			return CAT_ACTIVITY;
		return 0;
	case 10:
		if (memcmp(s, "gpu_memcpy", 10) == 0 || memcmp(s, "gpu_memset", 10) == 0)
			return CAT_ACTIVITY;
		return 0;
	case 11:
		return memcmp(s, "layer_guide", 11) == 0 ? CAT_GUIDE : 0;
	case 19:
		return memcmp(s, "gpu_user_annotation", 19) == 0 ? CAT_SCOPE : 0;
	default:
		return 0;
	}
}

/* Whether line holds TRSTREAM_KEY_COMPACT_TRACK anywhere, looked for on
 * every line. */
static int has_compact_key(const char *line, size_t len)
{
	return event_find_bytes(line, len, TRSTREAM_KEY_COMPACT_TRACK,
				sizeof TRSTREAM_KEY_COMPACT_TRACK - 1) != NULL;
}

/* Pass one for one event: classify it and keep what the placement needs. */
static int see(struct compact *c, const char *line, size_t len)
{
	struct walk w;
	struct member *m = w.m;
	const char *pid, *ph, *name;
	size_t plen, nlen;
	uint32_t track;
	int kernel = 0, activity = 0, scope = 0, guide = 0, selected, rc;

	if (has_compact_key(line, len))
		return compact_refuse(c, "event %" PRIu64 ": already compacted (%s); start from the "
			      "original trace", c->events, TRSTREAM_KEY_COMPACT_TRACK);
	/* one walk over the leading members; args is not looked at yet */
	walk_init(&w, line, len);
	walk_to(&w, BIT(K_PID) | BIT(K_TID) | BIT(K_PH) | BIT(K_CAT));
	pid = m[0].p;
	plen = m[0].len;
	ph = m[2].p;
	if (m[3].len >= 2 && m[3].p[0] == '"' && memchr(m[3].p + 1, '\\', m[3].len - 2) == NULL) {
		const char *s = m[3].p + 1;
		size_t n = m[3].len - 2;
		if (m[2].len == 3 && ph[1] == 'X') {
			if (memchr(s, ',', n) == NULL) {
				unsigned k = one_category(s, n);
				kernel = (k & CAT_KERNEL) != 0;
				activity = (k & CAT_ACTIVITY) != 0;
				scope = (k & CAT_SCOPE) != 0;
				guide = (k & CAT_GUIDE) != 0;
			} else {
				kernel = event_category_has(s, n, "kernel") ||
					 event_category_has(s, n, "Kernel");
				activity = kernel || event_category_has(s, n, "gpu_memcpy") ||
					   event_category_has(s, n, "gpu_memset") ||
					   event_category_has(s, n, "Memcpy") ||
					   event_category_has(s, n, "Memset");
				scope = !activity && event_category_has(s, n, "gpu_user_annotation");
				guide = event_category_has(s, n, "layer_guide");
			}
		}
		if (!activity && c->gpu_pids.n == 0 && (rc = note_categories(c, s, n)) != 0)
			return rc;
	}
	/* --pid selects by pid: an event without one is not in it */
	selected = c->only_pid == NULL || (plen > 0 && event_raw_matches_arg(pid, plen, c->only_pid));
	if (plen == 0 || m[1].len == 0) {
		if ((activity || scope) && !guide && selected)
			return refuse_untracked(c, m[0], m[1], scope);
		if (plen > 0 && intern_id(&c->pids, pid, plen) < 0)
			return COMPACT_NOMEM;
		return COMPACT_OK;
	}
	if ((rc = track_of(c, pid, plen, m[1].p, m[1].len, &track)) != 0)
		return rc;
	if (m[2].len != 3) {
		note_other(c, track);
		return COMPACT_OK;
	}
	if (selected && c->only_device != NULL && (activity || scope) && !guide) {
		int deferred;
		rc = device_selects(c, line, len, pid, plen, track, activity, &selected, &deferred);
		if (rc != 0 || deferred)
			return rc;
	}
	if (activity && !c->tracks[track].gpu_pid_noted) {
		/* once per track: its pid is in gpu_pids from then on */
		if (intern_id(&c->gpu_pids, pid, plen) < 0)
			return COMPACT_NOMEM;
		c->tracks[track].gpu_pid_noted = 1;
	}
	if (guide)
		return see_guide(c, line, len, pid, plen);
	if ((activity || scope) && selected)
		return add_act(c, line, len, track, activity ? COMPACT_ACTIVITY : COMPACT_SCOPE,
			       kernel, &w);
	if (ph[1] == 's' || ph[1] == 't' || ph[1] == 'f')
		return see_flow(c, line, len, track, &w); /* flows follow their kernel */
	if (ph[1] == 'M')
		walk_to(&w, BIT(K_NAME)); /* only metadata needs its name */
	name = m[4].p;
	nlen = m[4].len;
	/* Process-scoped metadata (process_name, process_labels,
	 * process_sort_index, ...) names the pid whatever its tid: Kineto writes
	 * it with tid 0, which on ROCm is also the default HIP stream.  It stays
	 * where it is, valid for the lanes, which keep the pid. */
	if (ph[1] == 'M' && nlen > 9 && memcmp(name, "\"process_", 9) == 0)
		return COMPACT_OK;
	if (ph[1] == 'M' &&
	    ((nlen == 13 && memcmp(name, "\"thread_name\"", 13) == 0) ||
	     (nlen == 19 && memcmp(name, "\"thread_sort_index\"", 19) == 0)))
		return retire(c, line, len, track);
	note_other(c, track);
	return COMPACT_OK;
}

int compact_see_event(struct compact *c, const char *line, size_t len)
{
	int rc = see(c, line, len);

	c->events++;
	return rc;
}

/* ------------------------------------------------------------ between the passes */

/* --device, after pass one: a scope without args.device goes with its
 * track when the track holds that device's activity, or, on a track of
 * scopes alone, with its pid when the pid does; otherwise it stays where it
 * is. */
static int resolve_pending(struct compact *c)
{
	uint64_t events = c->events;
	const char *line;
	size_t len;
	int rc = COMPACT_OK, got;

	if (c->npending == 0)
		return COMPACT_OK;
	if (compact_spill_finish(&c->pending) != 0 || compact_spill_rewind(&c->pending) != 0)
		return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
	while (rc == COMPACT_OK && (got = compact_spill_line(&c->pending, &line, &len)) != 0) {
		const char *end = line + len, *p = line;
		uint64_t index = 0;
		uint32_t track = 0;
		struct compact_track *t;
		int take;
		if (got < 0)
			return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
		/* "INDEX TRACK line", as device_selects wrote it */
		while (p < end && *p != ' ')
			index = index * 10 + (uint64_t)(*p++ - '0');
		for (p++; p < end && *p != ' '; p++)
			track = track * 10 + (uint32_t)(*p - '0');
		p++;
		t = &c->tracks[track];
		take = t->dev_selected ||
		       (!t->dev_seen && intern_find(&c->device_pids, t->pid, strlen(t->pid)) >= 0);
		c->events = index;  /* for the records and the messages */
		if (take)
			rc = add_act(c, p, (size_t)(end - p), track, COMPACT_SCOPE, 0, NULL);
		else
			note_other(c, track);
	}
	c->events = events;
	compact_spill_free(&c->pending);
	close(c->pending_fd);
	c->pending_fd = -1;
	c->npending = 0;
	return rc;
}

static int list_keys(struct buf *msg, const struct intern *t, const char *sep)
{
	uint32_t k;
	int fail = 0;

	for (k = 0; k < t->n && k < MAX_LISTED; k++)
		fail |= buf_printf(msg, "%s%s", k ? sep : "", t->keys[k]);
	if (t->n > MAX_LISTED)
		fail |= buf_printf(msg, " and %" PRIu32 " more", t->n - MAX_LISTED);
	return fail;
}

/* Nothing to move: say what was looked for and what was seen instead (a
 * compact view of nothing is a copy, which nobody asked for). */
static int refuse_nothing(struct compact *c)
{
	struct buf *msg = &c->msg;
	int fail = 0;

	buf_reset(msg);
	if (c->only_device != NULL && c->gpu_devices.n > 0) {
		fail |= buf_printf(msg, "nothing to compact: no GPU activity on device %s",
				   c->only_device);
		if (c->only_pid != NULL)
			fail |= buf_printf(msg, " in pid %s", c->only_pid);
		fail |= buf_addstr(msg, "; GPU activity is on ");
		fail |= list_keys(msg, &c->gpu_devices, "; ");
		return fail ? COMPACT_NOMEM : COMPACT_REFUSED;
	}
	if (c->only_pid != NULL && c->gpu_pids.n > 0) {
		fail |= buf_printf(msg, "nothing to compact: pid %s has no GPU activity or GPU "
				   "scopes; GPU activity is in pid ", c->only_pid);
		fail |= list_keys(msg, &c->gpu_pids, ", ");
		return fail ? COMPACT_NOMEM : COMPACT_REFUSED;
	}
	fail |= buf_addstr(msg, "nothing to compact: ");
	if (c->only_pid != NULL)
		fail |= buf_printf(msg, "pid %s has no GPU activity and neither has any other pid",
				   c->only_pid);
	else
		fail |= buf_addstr(msg, "the stream has no GPU activity");
	fail |= buf_addstr(msg, " (X events whose cat includes kernel, gpu_memcpy, gpu_memset, "
			   "Kernel, Memcpy or Memset) and no GPU scopes (gpu_user_annotation); ");
	if (c->seen_cats.n == 0) {
		fail |= buf_addstr(msg, "no unrecognised device-like categories seen either");
	} else {
		fail |= buf_addstr(msg, "unrecognised device-like categories seen: ");
		fail |= list_keys(msg, &c->seen_cats, ", ");
		fail |= buf_addstr(msg, " (tr-compact does not move them)");
	}
	return fail ? COMPACT_NOMEM : COMPACT_REFUSED;
}

/* A group's packing is done: its lane count, or the refusal. */
static int pack_done(struct compact *c, const struct lanes_pack *k, uint32_t group)
{
	unsigned nlanes = 0;

	if (lanes_end(k, &nlanes, &c->refusal) != LANES_OK)
		return COMPACT_LANES;
	c->groups[group].nlanes = nlanes;
	return COMPACT_OK;
}

static int count_lane(struct compact *c, const struct compact_act *a);

static int sort_failed(void)
{
	return errno == ENOMEM ? COMPACT_NOMEM : COMPACT_SYSTEM;
}

/* Lanes for every group, groups in ascending order, each record read once
 * in (group, start, index) order; the records with their lanes go on to
 * the lane of each event for pass two (c->lanes_out) and to the flow
 * join's sorts (by_corr; by_start when not NULL). */
static int assign_lanes(struct compact *c, struct extsort *by_corr,
			struct extsort *by_start)
{
	struct lanes_pack *k = lanes_pack_new((unsigned)c->max_lanes);
	const void *p;
	int got, rc = COMPACT_OK, started = 0;
	uint32_t group = 0;

	if (k == NULL)
		return COMPACT_NOMEM;
	if (extsort_finish(&c->acts) != 0)
		rc = sort_failed();
	while (rc == COMPACT_OK && (got = extsort_next(&c->acts, &p)) != 0) {
		struct compact_act a;
		struct compact_lane_rec out;
		unsigned lane;
		int packed;
		if (got < 0) {
			rc = sort_failed();
			break;
		}
		memcpy(&a, p, sizeof a);
		if (!started || a.group != group) {
			if (started && (rc = pack_done(c, k, group)) != COMPACT_OK)
				break;
			group = a.group;
			lanes_begin(k, group);
			started = 1;
		}
		packed = lanes_next(k, a.start_ns - a.lo_pad, a.end_ns + a.hi_pad,
				    (a.flags & COMPACT_F_ZERO) != 0, &lane);
		if (packed == LANES_OVERLAP) {
			(void)lanes_end(k, &lane, &c->refusal);
			rc = compact_refuse(c, "pid %s, device %s: more than %d GPU events overlap",
				    c->groups[group].pid, c->groups[group].device,
				    LANES_MAX_OVERLAP);
			break;
		}
		if (packed == LANES_TOO_MANY)
			continue; /* refused when the group ends: its lanes are not kept */
		a.lane = (uint8_t)lane;
		if ((rc = count_lane(c, &a)) != COMPACT_OK)
			break;
		memset(&out, 0, sizeof out);
		out.index = a.index;
		out.group = a.group;
		out.lane = a.lane;
		if (extsort_put(&c->lanes_out, &out) != 0 || extsort_put(by_corr, &a) != 0) {
			rc = sort_failed();
			break;
		}
		a.corr = 0;
		if (by_start != NULL && extsort_put(by_start, &a) != 0)
			rc = sort_failed();
	}
	if (rc == COMPACT_OK && started)
		rc = pack_done(c, k, group);
	lanes_pack_free(k);
	return rc;
}

int compact_lanes_message(struct compact *c, int64_t origin)
{
	const struct compact_group *g = &c->groups[c->refusal.group];
	struct buf *msg = &c->msg;
	int fail = 0;

	buf_reset(msg);
	fail |= buf_printf(msg, "pid %s, device %s: %s needs %u lanes (peak concurrency) but "
			   "--max-gpu-lanes is %" PRId64 "; it first exceeds %" PRId64 " from ",
			   g->pid, g->device, g->kind == COMPACT_SCOPE ? "GPU scopes" : "GPU activity",
			   c->refusal.peak, c->max_lanes, c->max_lanes);
	fail |= tsnum_append_us3(msg, c->refusal.from);
	fail |= buf_addstr(msg, " to ");
	fail |= tsnum_append_us3(msg, c->refusal.to);
	fail |= buf_addstr(msg, " us (");
	fail |= tsnum_append_ms6(msg, c->refusal.from - origin);
	fail |= buf_addstr(msg, " to ");
	fail |= tsnum_append_ms6(msg, c->refusal.to - origin);
	fail |= buf_addstr(msg, " ms from the trace start); cut a time window around the part "
			   "you need, or keep the original streams (no compaction)");
	return fail ? COMPACT_NOMEM : COMPACT_REFUSED;
}

static int pid_used(const struct compact *c, int64_t pid)
{
	char text[24];

	snprintf(text, sizeof text, "%" PRId64, pid);
	return intern_find(&c->pids, text, strlen(text)) >= 0;
}

/* 1 used, 0 free, COMPACT_NOMEM. */
static int tid_used(const struct compact *c, const char *pid, int64_t tid)
{
	char text[24];
	struct buf key = BUF_INIT;
	int used;

	snprintf(text, sizeof text, "%" PRId64, tid);
	if (buf_addstr(&key, pid) || buf_addch(&key, '\001') || buf_addstr(&key, text)) {
		buf_release(&key);
		return COMPACT_NOMEM;
	}
	used = intern_find(&c->tracks_by_key, key.p, key.len) >= 0;
	buf_release(&key);
	return used;
}

/* Synthetic ids: scope processes get new pids, lanes new tids in their
 * (display) pid, all positive, below 2^31 and unused by any event.
 * Groups of one kind and one original pid (its devices) take their lanes in
 * turn from one cursor: each takes the first free tids after the previous
 * one's, so no group rescans the others' lanes (linear in groups). */
static int choose_ids(struct compact *c)
{
	size_t gi, n = c->groups_by_key.n;
	int64_t next_scope_pid = COMPACT_SCOPE_PID_BASE;
	struct intern cursor_keys = { 0 };
	int64_t *cursor = malloc((n + 1) * sizeof *cursor);
	uint32_t *key_of = malloc((n + 1) * sizeof *key_of);
	size_t *ngroups = malloc((n + 1) * sizeof *ngroups);
	struct buf key = BUF_INIT;
	int rc = cursor && key_of && ngroups ? COMPACT_OK : COMPACT_NOMEM;

	for (gi = 0; gi < n && rc == COMPACT_OK; gi++) {
		const struct compact_group *g = &c->groups[gi];
		uint32_t before = cursor_keys.n;
		int64_t id;

		buf_reset(&key);
		if (buf_printf(&key, "%d\001%s", g->kind, g->pid) != 0 ||
		    (id = intern_id(&cursor_keys, key.p, key.len)) < 0) {
			rc = COMPACT_NOMEM;
			break;
		}
		if (cursor_keys.n != before) {
			cursor[id] = COMPACT_LANE_TID_BASE;
			ngroups[id] = 0;
		}
		ngroups[id]++;
		key_of[gi] = (uint32_t)id;
	}
	for (gi = 0; gi < n && rc == COMPACT_OK; gi++) {
		struct compact_group *g = &c->groups[gi];
		char pidtext[24];
		const char *lane_pid = g->pid;
		uint32_t k = key_of[gi];
		unsigned lane;

		if (g->kind == COMPACT_SCOPE) {
			/* two scope processes of one pid must not share a name */
			g->by_device = ngroups[k] > 1;
			while (pid_used(c, next_scope_pid))
				next_scope_pid++;
			g->display_pid = next_scope_pid++;
			snprintf(pidtext, sizeof pidtext, "%" PRId64, g->display_pid);
			lane_pid = pidtext;
		}
		for (lane = 0; lane < g->nlanes && rc == COMPACT_OK; lane++) {
			int64_t tid = cursor[k];
			int used = 1;
			while (tid <= INT32_MAX && (used = tid_used(c, lane_pid, tid)) > 0)
				tid++;
			if (used < 0)
				rc = COMPACT_NOMEM;
			else if (tid > INT32_MAX)
				rc = compact_refuse(c, "no free tid below 2^31 in pid %s", lane_pid);
			g->lane_tid[lane] = tid;
			cursor[k] = tid + 1;
		}
	}
	buf_release(&key);
	intern_free(&cursor_keys);
	free(cursor);
	free(key_of);
	free(ngroups);
	return rc;
}

/* Count an act in its group's per-lane, per-stream tally (entries are put
 * in the order of first appearance by order_counts). */
static int count_lane(struct compact *c, const struct compact_act *a)
{
	struct compact_group *g = &c->groups[a->group];
	unsigned char key[9];
	uint32_t before = c->lane_keys.n;
	int64_t id;
	struct compact_lane_count *n;

	memcpy(key, &a->group, 4);
	memcpy(key + 4, &a->track, 4);
	key[8] = a->lane;
	id = intern_id(&c->lane_keys, (const char *)key, sizeof key);
	if (id < 0)
		return COMPACT_NOMEM;
	if (c->lane_keys.n != before) {
		if (room((void **)&c->lane_slot, (size_t)id, &c->lane_slot_cap, 64,
			 sizeof *c->lane_slot) != 0)
			return COMPACT_NOMEM;
		n = realloc(g->counts[a->lane], (g->ncounts[a->lane] + 1) * sizeof *n);
		if (n == NULL)
			return COMPACT_NOMEM;
		g->counts[a->lane] = n;
		n = &g->counts[a->lane][g->ncounts[a->lane]];
		memset(n, 0, sizeof *n);
		n->track = a->track;
		n->first = a->ord;
		c->lane_slot[id] = g->ncounts[a->lane]++;
	}
	n = &g->counts[a->lane][c->lane_slot[id]];
	if (a->ord < n->first)
		n->first = a->ord;
	n->count++;
	if (a->flags & COMPACT_F_KERNEL)
		n->kernels++;
	return COMPACT_OK;
}

static int cmp_count(const void *a, const void *b)
{
	const struct compact_lane_count *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Each lane's tally in the order its streams first appear among the
 * records (the packing counted them in start order). */
static void order_counts(struct compact *c)
{
	size_t g;
	unsigned l;

	for (g = 0; g < c->groups_by_key.n; g++)
		for (l = 0; l < COMPACT_MAX_LANES; l++)
			if (c->groups[g].ncounts[l] > 1)
				qsort(c->groups[g].counts[l], c->groups[g].ncounts[l],
				      sizeof *c->groups[g].counts[l], cmp_count);
}

static int bad_guide(struct compact *c, uint64_t index, const char *why)
{
	return compact_refuse(c, "event %" PRIu64 ": the existing layer guide %s; regenerate the "
		      "guides from the original trace with tr-layer-track (with --max-gpu-lanes)",
		      index, why);
}

/* Guides made by tr-guides sit in the GPU's process, carry their args and
 * never overlap; anything else is not ours to keep beside the lanes.  The
 * first guide (in source order) that lacks its args or sits elsewhere is
 * named; then the first overlap in start order. */
static int check_guides(struct compact *c)
{
	uint64_t worst = c->first_bad_guide;
	int no_args = worst != UINT64_MAX;
	struct compact_guide_rec prev, g;
	const void *p;
	size_t i;
	int got, have = 0;

	if (c->gpu_pids.n > 0)
		for (i = 0; i < c->guide_pids.n; i++)
			if (c->guide_pid_first[i] < worst &&
			    intern_find(&c->gpu_pids, c->guide_pids.keys[i], c->guide_pids.lens[i]) < 0) {
				worst = c->guide_pid_first[i];
				no_args = 0;
			}
	if (worst != UINT64_MAX)
		return bad_guide(c, worst, no_args ?
				 "lacks the layer_guide args (layer_id, pass_index, "
				 "boundary_kind) or a numeric ts and dur" :
				 "sits in another process than the GPU activity");
	if (extsort_finish(&c->guides) != 0)
		return sort_failed();
	while ((got = extsort_next(&c->guides, &p)) != 0) {
		if (got < 0)
			return sort_failed();
		memcpy(&g, p, sizeof g);
		if (have && g.start < prev.end)
			return bad_guide(c, g.index, "overlaps another guide slice");
		prev = g;
		have = 1;
	}
	extsort_free(&c->guides);
	return COMPACT_OK;
}

/* The next lane and binding, for pass two. */
static int next_lane(struct compact *c)
{
	const void *p;
	int got = extsort_next(&c->lanes_out, &p);

	if (got < 0)
		return sort_failed();
	c->have_lane = got == 1;
	if (got == 1)
		memcpy(&c->next_lane, p, sizeof c->next_lane);
	return COMPACT_OK;
}

static int next_offsets(struct compact *c)
{
	const void *p;
	int got = extsort_next(&c->offsets, &p);

	if (got < 0)
		return sort_failed();
	c->have_offsets = got == 1;
	if (got == 1)
		memcpy(&c->next_offsets, p, sizeof c->next_offsets);
	return COMPACT_OK;
}

static int next_bind(struct compact *c)
{
	const void *p;
	int got = extsort_next(&c->bindings, &p);

	if (got < 0)
		return sort_failed();
	c->have_bind = got == 1;
	if (got == 1)
		memcpy(&c->next_bind, p, sizeof c->next_bind);
	return COMPACT_OK;
}

int compact_plan(struct compact *c)
{
	struct extsort by_corr, by_start;
	size_t i;
	int rc, use_start = c->flows_noid > 0;

	if (c->only_device != NULL && (rc = resolve_pending(c)) != 0)
		return rc;
	if (c->nacts == 0)
		return refuse_nothing(c);
	(void)extsort_init(&by_corr, sizeof(struct compact_act), COMPACT_RUN_BYTES,
				compact_flow_cmp_act, "tr-compact");
	(void)extsort_init(&by_start, sizeof(struct compact_act), COMPACT_RUN_BYTES,
				compact_flow_cmp_act, "tr-compact");
	rc = assign_lanes(c, &by_corr, use_start ? &by_start : NULL);
	extsort_free(&c->acts);
	if (rc == COMPACT_OK)
		rc = choose_ids(c);
	if (rc == COMPACT_OK) {
		order_counts(c);
		for (i = 0; i < c->tracks_by_key.n; i++) {
			const struct compact_track *t = &c->tracks[i];
			if (t->moved && t->nother > 0) {
				rc = compact_refuse(c, "event %" PRIu64 ": on GPU track pid %s tid %s, which "
					    "is moved to synthetic lanes, but it is neither GPU activity, "
					    "a GPU scope, a flow nor thread metadata, so it cannot be "
					    "placed (%" PRIu64 " such events); use --pid to leave this "
					    "pid alone", t->first_other, t->pid, t->tid, t->nother);
				break;
			}
		}
	}
	if (rc == COMPACT_OK)
		rc = check_guides(c);
	if (rc == COMPACT_OK)
		rc = compact_flow_bind_all(c, &by_corr, use_start ? &by_start : NULL);
	extsort_free(&by_corr);
	extsort_free(&by_start);
	extsort_free(&c->flows);
	if (rc == COMPACT_OK && (extsort_finish(&c->lanes_out) != 0 ||
				 extsort_finish(&c->bindings) != 0 ||
				 extsort_finish(&c->offsets) != 0))
		rc = sort_failed();
	if (rc == COMPACT_OK)
		rc = next_offsets(c);
	if (rc == COMPACT_OK)
		rc = next_lane(c);
	if (rc == COMPACT_OK)
		rc = next_bind(c);
	return rc;
}

/* ------------------------------------------------------------ pass two */

/* Pass one's offsets of pid, tid and args in the line of event index into
 * m[0..3), when it noted them (events come in index order; --device's late
 * scopes and flows seen before their track moved have none): *known 1 or
 * 0. */
static int offsets_at(struct compact *c, const char *line, size_t len, uint64_t index,
		      struct member *m, int *known)
{
	int rc;

	*known = 0;
	while (c->have_offsets && c->next_offsets.index < index)
		if ((rc = next_offsets(c)) != 0)
			return rc;
	if (c->have_offsets && c->next_offsets.index == index) {
		const struct compact_offsets *o = &c->next_offsets;
		m[0].p = line + o->pid_off;
		m[0].len = o->pid_len;
		m[1].p = line + o->tid_off;
		m[1].len = o->tid_len;
		m[2].p = o->args_len > 0 ? line + o->args_off : NULL;
		m[2].len = o->args_len;
		*known = 1;
		if (o->args_rest > 0) {
			/* pass one stopped inside args: its end, or, where its
			 * members do not read as an object's, what pass one would
			 * have done then (no offsets) */
			size_t end;
			if (o->args_rest > len || args_members(line, len, o->args_rest, NULL, 0, &end) != 0) {
				*known = 0;
			} else {
				m[2].p = line + o->args_off;
				m[2].len = end - o->args_off;
			}
		}
	}
	return COMPACT_OK;
}

uint64_t compact_first_change(const struct compact *c)
{
	uint64_t first = c->first_change;
	size_t i;

	/* flows and thread metadata change with their track: a track moves
	 * when pass one saw its activity, or, with --device, when the plan
	 * takes a pending scope (any track may move then) */
	for (i = 0; i < c->tracks_by_key.n; i++)
		if ((c->tracks[i].moved || c->npending > 0) && c->tracks[i].first_flow < first)
			first = c->tracks[i].first_flow;
	for (i = 0; i < c->nret; i++)
		if ((c->tracks[c->ret[i].track].moved || c->npending > 0) && c->ret[i].index < first)
			first = c->ret[i].index;
	return first;
}

int compact_place_skip(struct compact *c, uint64_t n)
{
	int changed;

	if (n == 0)
		return COMPACT_OK;
	changed = c->index != 0 || (c->have_lane && c->next_lane.index < n) ||
		  (c->have_bind && c->next_bind.index < n);
	/* thread metadata of a track that stays went out as it was */
	for (; !changed && c->next_ret < c->nret && c->ret[c->next_ret].index < n; c->next_ret++)
		changed = c->tracks[c->ret[c->next_ret].track].moved;
	if (changed)
		return compact_refuse(c, "internal error: pass two passed %" PRIu64 " events before the "
			      "plan was made, but the plan changes one of them", n);
	c->index = n;
	return COMPACT_OK;
}

int compact_place(struct compact *c, const char *line, size_t len, const char **out_line,
		  size_t *out_len)
{
	static const char *const keys[] = { "pid", "tid", "args" };
	uint64_t index = c->index++;
	struct member m[3];
	int rc, known;

	*out_line = line;
	*out_len = len;
	if (c->next_ret < c->nret && c->ret[c->next_ret].index == index) {
		int moved = c->tracks[c->ret[c->next_ret].track].moved;
		c->next_ret++;
		if (moved) {
			c->nretired++;
			*out_line = NULL; /* retired: kept in the report */
			*out_len = 0;
			return COMPACT_OK;
		}
	}
	if (c->have_lane && c->next_lane.index == index) {
		const struct compact_group *g = &c->groups[c->next_lane.group];
		char space[24];
		if ((rc = offsets_at(c, line, len, index, m, &known)) != 0 ||
		    (!known && (rc = compact_members(c, line, len, keys, 3, m)) != 0))
			return rc;
		if ((rc = compact_rewrite(line, len, m, index, compact_display_pid(g, space),
					  g->lane_tid[c->next_lane.lane], &c->out, &c->msg)) != 0 ||
		    (rc = next_lane(c)) != 0)
			return rc;
		c->relocated++;
	} else if (c->have_bind && c->next_bind.index == index) {
		if ((rc = offsets_at(c, line, len, index, m, &known)) != 0 ||
		    (rc = compact_flow_place(c, line, len, index, &c->next_bind,
					     known ? m : NULL)) != 0 ||
		    (rc = next_bind(c)) != 0)
			return rc;
		c->relocated_flows++;
	} else {
		return COMPACT_OK;
	}
	*out_line = c->out.p;
	*out_len = c->out.len;
	return COMPACT_OK;
}

void compact_free(struct compact *c)
{
	size_t i;
	unsigned k;

	extsort_free(&c->guides);
	extsort_free(&c->acts);
	extsort_free(&c->flows);
	extsort_free(&c->lanes_out);
	extsort_free(&c->bindings);
	extsort_free(&c->offsets);
	if (c->pending_fd >= 0) {
		compact_spill_free(&c->pending);
		close(c->pending_fd);
	}
	free(c->guide_pid_first);
	for (i = 0; i < c->tracks_by_key.n && i < c->ntracks_cap; i++) {
		free(c->tracks[i].pid);
		free(c->tracks[i].tid);
	}
	for (i = 0; i < c->groups_by_key.n && i < c->ngroups_cap; i++) {
		free(c->groups[i].pid);
		free(c->groups[i].device);
		for (k = 0; k < COMPACT_MAX_LANES; k++)
			free(c->groups[i].counts[k]);
	}
	for (i = 0; i < c->nret; i++)
		free(c->ret[i].text);
	free(c->ret);
	free(c->tracks);
	free(c->groups);
	free(c->lane_slot);
	free(c->source_name);
	intern_free(&c->lane_keys);
	intern_free(&c->tracks_by_key);
	intern_free(&c->pids);
	intern_free(&c->groups_by_key);
	intern_free(&c->gpu_pids);
	intern_free(&c->gpu_devices);
	intern_free(&c->device_pids);
	intern_free(&c->seen_cats);
	intern_free(&c->checked_cats);
	intern_free(&c->guide_pids);
	json_free(&c->doc);
	buf_release(&c->key);
	buf_release(&c->last_track_key);
	buf_release(&c->last_group_dev);
	buf_release(&c->out);
	buf_release(&c->line);
	buf_release(&c->msg);
	memset(c, 0, sizeof *c);
}
