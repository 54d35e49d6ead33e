/* compact_scan: pass one of compact.h, per event.
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

#include "compact/compact.h"
#include "compact/compact_impl.h"
#include "compact/compact_flow.h"
#include "core/io.h"
#include "compact/compact_rewrite.h"
#include "stream/trstream.h"
#include "json/tsnum.h"

#define MAX_SEEN_CATS 4096  /* distinct categories kept for the "nothing" message */

static int clamp_pad(struct compact *c, int64_t v, uint64_t index, int16_t *out)
{
	if (v > INT16_MAX)
		return compact_refuse(c, "event %" PRIu64 ": Perfetto's double conversion moves this "
			      "timestamp by %" PRId64 " ns; rebase the trace's timestamps first",
			      index, v);
	*out = (int16_t)v;
	return COMPACT_OK;
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
int compact_scan_add_act(struct compact *c, const char *line, size_t len, uint32_t track, int kind,
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
	if ((rc = compact_group_of(c, &c->tracks[track], dtext, dlen, kind, &a->group)) != 0)
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

void compact_scan_note_other(struct compact *c, uint32_t track)
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
	if (pid_id < 0 || compact_room((void **)&c->guide_pid_first, (size_t)pid_id, &c->guide_pid_cap,
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

	if (compact_room((void **)&c->ret, c->nret, &c->ret_cap, 64, sizeof *c->ret) != 0)
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
	if ((rc = compact_track_of(c, pid, plen, m[1].p, m[1].len, &track)) != 0)
		return rc;
	if (m[2].len != 3) {
		compact_scan_note_other(c, track);
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
		return compact_scan_add_act(c, line, len, track, activity ? COMPACT_ACTIVITY : COMPACT_SCOPE,
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
	compact_scan_note_other(c, track);
	return COMPACT_OK;
}

int compact_see_event(struct compact *c, const char *line, size_t len)
{
	int rc = see(c, line, len);

	c->events++;
	return rc;
}
