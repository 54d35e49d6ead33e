/* compact: see compact.h.
 *
 * Members are found by one walk over the line's top level (event.h) when
 * the line holds no backslash: then raw key bytes are the keys.  A line with
 * escapes goes through the tokenizer, which compares unescaped keys. */
/* qsort_r, which passes the caller's context to the comparison */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "compact_flow.h"
#include "compact_rewrite.h"
#include "trstream.h"
#include "tsnum.h"

#define MAX_SEEN_CATS 4096  /* distinct categories kept for the "nothing" message */
#define MAX_LISTED 10       /* pids or categories named in a message */

static int refuse(struct compact *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct compact *c, const char *fmt, ...)
{
	va_list ap;
	char small[1];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	buf_reset(&c->msg);
	if (n < 0 || buf_grow(&c->msg, (size_t)n + 1) != 0)
		return COMPACT_NOMEM;
	va_start(ap, fmt);
	vsnprintf(c->msg.p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_setlen(&c->msg, (size_t)n);
	return COMPACT_REFUSED;
}

/* Room for one more item in a growing array: 0 or COMPACT_NOMEM. */
static int room(void **items, size_t n, size_t *cap, size_t first, size_t elem)
{
	size_t want;
	void *p;

	if (n < *cap)
		return COMPACT_OK;
	want = *cap ? *cap * 2 : first;
	if (*cap > SIZE_MAX / 2 || want > SIZE_MAX / elem)
		return COMPACT_NOMEM;
	p = realloc(*items, want * elem);
	if (p == NULL)
		return COMPACT_NOMEM;
	*items = p;
	*cap = want;
	return COMPACT_OK;
}

static char *dup_bytes(const char *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s != NULL) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

void compact_init(struct compact *c)
{
	memset(c, 0, sizeof *c);
	c->max_lanes = COMPACT_MAX_LANES;
	c->key = (struct buf)BUF_INIT;
	c->last_track_key = (struct buf)BUF_INIT;
	c->out = (struct buf)BUF_INIT;
	c->msg = (struct buf)BUF_INIT;
}

const char *compact_display_pid(const struct compact_group *g, char *space)
{
	if (g->display_pid < 0)
		return g->pid;
	snprintf(space, 24, "%" PRId64, g->display_pid);
	return space;
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

int64_t compact_find_track(struct compact *c, struct member pid, struct member tid)
{
	if (pid.len == 0 || tid.len == 0 || track_key(c, pid.p, pid.len, tid.p, tid.len) != 0)
		return -1;
	return intern_find(&c->tracks_by_key, c->key.p, c->key.len);
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
		t->pid = dup_bytes(pid, plen);
		t->tid = dup_bytes(tid, tlen);
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
		g->pid = dup_bytes(t->pid, strlen(t->pid));
		g->device = dup_bytes(dev, dlen);
		if (g->pid == NULL || g->device == NULL)
			return COMPACT_NOMEM;
		g->pid_id = t->pid_id;
		g->kind = kind;
		g->display_pid = -1;
	}
	*out = (uint32_t)id;
	return COMPACT_OK;
}

static int clamp_pad(struct compact *c, int64_t v, uint64_t index, int16_t *out)
{
	if (v > INT16_MAX)
		return refuse(c, "event %" PRIu64 ": Perfetto's double conversion moves this "
			      "timestamp by %" PRId64 " ns; rebase the trace's timestamps first",
			      index, v);
	*out = (int16_t)v;
	return COMPACT_OK;
}

/* A raw member value that is a number or a literal (not a string, object
 * or array, not absent). */
static int is_primitive(struct member m)
{
	return m.len > 0 && m.p[0] != '"' && m.p[0] != '{' && m.p[0] != '[';
}

int compact_members(struct compact *c, const char *line, size_t len, const char *const *keys,
		    int n, struct member *out)
{
	struct jdoc *d = &c->doc;
	int k;

	if (memchr(line, '\\', len) == NULL) {
		event_members(line, len, keys, n, out);
		return COMPACT_OK;
	}
	if (json_parse(d, line, len, NULL) != 0)
		return refuse(c, "event %" PRIu64 ": not a JSON object", c->events);
	for (k = 0; k < n; k++) {
		int tok = json_find(d, 0, keys[k]);
		out[k].p = NULL;
		out[k].len = 0;
		if (tok >= 0)
			out[k].p = json_raw(d, tok, &out[k].len);
	}
	return COMPACT_OK;
}

/* Exact and Perfetto bounds of an X event. */
static int bounds(struct compact *c, struct member ts, struct member dur, struct compact_act *a)
{
	struct lane_bounds lb;
	int rc;

	if (!is_primitive(ts) || !is_primitive(dur))
		return refuse(c, "event %" PRIu64 ": GPU event without a numeric ts and dur",
			      c->events);
	rc = lanes_bounds(ts.p, ts.len, dur.p, dur.len, &lb);
	if (rc == LANES_BOUNDS_RANGE)
		return refuse(c, "event %" PRIu64 ": ts %.*s or dur %.*s is out of range",
			      c->events, (int)ts.len, ts.p, (int)dur.len, dur.p);
	if (rc == LANES_BOUNDS_NEGATIVE)
		return refuse(c, "event %" PRIu64 ": negative dur %.*s", c->events,
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

static int add_act(struct compact *c, const char *line, size_t len, uint32_t track, int kind,
		   int is_kernel)
{
	static const char *const keys[] = { "ts", "dur", "args" };
	static const char *const arg_keys[] = { "device", "correlation" };
	struct member m[3], am[2] = { { NULL, 0 }, { NULL, 0 } };
	struct compact_act *a;
	struct compact_group *g;
	const char *dtext = "null";
	size_t dlen = 4;
	int rc;

	if (c->events > UINT32_MAX)
		return refuse(c, "more than 2^32 events: too many for tr-compact's records");
	if (c->nacts == c->nblocks * COMPACT_ACT_BLOCK) {
		struct compact_act **blocks = realloc(c->blocks, (c->nblocks + 1) * sizeof *blocks);
		if (blocks == NULL)
			return COMPACT_NOMEM;
		c->blocks = blocks;
		c->blocks[c->nblocks] = malloc(COMPACT_ACT_BLOCK * sizeof **c->blocks);
		if (c->blocks[c->nblocks] == NULL)
			return COMPACT_NOMEM;
		c->nblocks++;
	}
	a = compact_act(c, c->nacts);
	memset(a, 0, sizeof *a);
	if ((rc = compact_members(c, line, len, keys, 3, m)) != 0 ||
	    (rc = bounds(c, m[0], m[1], a)) != 0)
		return rc;
	if (m[2].len > 0 && m[2].p[0] == '{' &&
	    (rc = compact_members(c, m[2].p, m[2].len, arg_keys, 2, am)) != 0)
		return rc;
	if (am[0].len > 0) {
		dtext = am[0].p;
		dlen = am[0].len;
	}
	a->corr = COMPACT_NO_CORR;
	if (is_primitive(am[1]) && tsnum_parse_int64(am[1].p, am[1].len, &a->corr) != NUM_OK)
		a->corr = COMPACT_NO_CORR;
	a->index = (uint32_t)c->events;
	a->track = track;
	if (a->corr != COMPACT_NO_CORR)
		c->tracks[track].has_corr = 1;
	if ((rc = group_of(c, &c->tracks[track], dtext, dlen, kind, &a->group)) != 0)
		return rc;
	a->flags |= (uint8_t)((is_kernel ? COMPACT_F_KERNEL : 0) |
			      (kind == COMPACT_SCOPE ? COMPACT_F_SCOPE : 0));
	g = &c->groups[a->group];
	g->nacts++;
	if (is_kernel)
		g->nkernels++;
	if (a->end_ns - a->start_ns > c->tracks[track].max_dur)
		c->tracks[track].max_dur = a->end_ns - a->start_ns;
	c->nacts++;
	return COMPACT_OK;
}

static void note_other(struct compact *c, uint32_t track)
{
	struct compact_track *t = &c->tracks[track];

	if (t->nother++ == 0)
		t->first_other = c->events;
}

/* An existing layer guide slice: kept as it is, but only if it is one that
 * tr-guides made beside this GPU activity (checked in compact_plan). */
static int see_guide(struct compact *c, const char *line, size_t len, const char *pid,
		     size_t plen)
{
	struct jdoc *d = &c->doc;
	struct compact_guide *g;
	int args;
	size_t n;
	const char *text;

	if (room((void **)&c->guides, c->nguides, &c->guides_cap, 64, sizeof *c->guides) != 0)
		return COMPACT_NOMEM;
	g = &c->guides[c->nguides++];
	memset(g, 0, sizeof *g);
	g->index = c->events;
	g->pid = dup_bytes(pid, plen);
	if (g->pid == NULL)
		return COMPACT_NOMEM;
	if (json_parse(d, line, len, NULL) != 0)
		return refuse(c, "event %" PRIu64 ": not a JSON object", c->events);
	args = json_find(d, 0, "args");
	g->has_args = json_type(d, args) == JT_OBJECT && json_find(d, args, "layer_id") >= 0 &&
		      json_find(d, args, "pass_index") >= 0 &&
		      json_find(d, args, "boundary_kind") >= 0;
	text = json_type(d, json_find(d, 0, "ts")) == JT_PRIMITIVE ?
	       json_text(d, json_find(d, 0, "ts"), &n) : NULL;
	if (text == NULL || tsnum_us_to_ns(text, n, &g->start, &g->sub) != NUM_OK)
		g->has_args = 0;
	text = json_type(d, json_find(d, 0, "dur")) == JT_PRIMITIVE ?
	       json_text(d, json_find(d, 0, "dur"), &n) : NULL;
	if (text == NULL || tsnum_us_to_ns(text, n, &g->end, &g->sub) != NUM_OK)
		g->has_args = 0;
	g->end += g->start;
	return COMPACT_OK;
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
		return refuse(c, "event %" PRIu64 ": %s without pid and tid: its device and "
			      "stream are unknown, so it cannot be placed on a lane", c->events, what);
	if (pid.len == 0)
		return refuse(c, "event %" PRIu64 ": %s without pid (tid %.*s): its process is "
			      "unknown, so it cannot be placed on a lane", c->events, what,
			      (int)tid.len, tid.p);
	return refuse(c, "event %" PRIu64 ": %s without tid (pid %.*s): its stream is unknown, "
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
		struct compact_pending *p;
		if (room((void **)&c->pending, c->npending, &c->pending_cap, 64,
			 sizeof *c->pending) != 0)
			return COMPACT_NOMEM;
		p = &c->pending[c->npending];
		p->index = c->events;
		p->track = track;
		p->line = dup_bytes(line, len);
		p->len = len;
		if (p->line == NULL)
			return COMPACT_NOMEM;
		c->npending++;
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
	r->text = dup_bytes(line, len);
	if (r->text == NULL)
		return COMPACT_NOMEM;
	c->nret++;
	return COMPACT_OK;
}

/* Pass one for one event: classify it and keep what the placement needs. */
static int see(struct compact *c, const char *line, size_t len)
{
	static const char *const keys[] = { "pid", "tid", "ph", "cat", "name" };
	struct member m[5];
	const char *pid, *ph, *name;
	size_t plen, nlen;
	uint32_t track;
	int kernel = 0, activity = 0, scope = 0, guide = 0, selected, rc;

	if (event_find_bytes(line, len, TRSTREAM_KEY_COMPACT_TRACK,
		       sizeof TRSTREAM_KEY_COMPACT_TRACK - 1) != NULL)
		return refuse(c, "event %" PRIu64 ": already compacted (%s); start from the "
			      "original trace", c->events, TRSTREAM_KEY_COMPACT_TRACK);
	/* one walk over the leading members; args is never looked at here */
	event_members(line, len, keys, 5, m);
	pid = m[0].p;
	plen = m[0].len;
	ph = m[2].p;
	if (m[3].len >= 2 && m[3].p[0] == '"' && memchr(m[3].p + 1, '\\', m[3].len - 2) == NULL) {
		const char *s = m[3].p + 1;
		size_t n = m[3].len - 2;
		if (m[2].len == 3 && ph[1] == 'X') {
			kernel = event_category_has(s, n, "kernel") || event_category_has(s, n, "Kernel");
			activity = kernel || event_category_has(s, n, "gpu_memcpy") ||
				   event_category_has(s, n, "gpu_memset") || event_category_has(s, n, "Memcpy") ||
				   event_category_has(s, n, "Memset");
			scope = !activity && event_category_has(s, n, "gpu_user_annotation");
			guide = event_category_has(s, n, "layer_guide");
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
	if (activity && intern_id(&c->gpu_pids, pid, plen) < 0)
		return COMPACT_NOMEM;
	if (guide)
		return see_guide(c, line, len, pid, plen);
	if ((activity || scope) && selected)
		return add_act(c, line, len, track, activity ? COMPACT_ACTIVITY : COMPACT_SCOPE,
			       kernel);
	if (ph[1] == 's' || ph[1] == 't' || ph[1] == 'f')
		return COMPACT_OK; /* flows follow their kernel; bound in pass two */
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

static int cmp_act_index(const void *a, const void *b, void *ctx)
{
	const struct compact *c = ctx;
	uint32_t x = compact_act(c, *(const uint32_t *)a)->index;
	uint32_t y = compact_act(c, *(const uint32_t *)b)->index;

	return x < y ? -1 : x > y;
}

/* --device, after pass one: a scope without args.device goes with its
 * track when the track holds that device's activity, or, on a track of
 * scopes alone, with its pid when the pid does; otherwise it stays where it
 * is.  The records then get an order by source index for pass two. */
static int resolve_pending(struct compact *c)
{
	uint64_t events = c->events;
	size_t i, added = 0;
	int rc = COMPACT_OK;

	for (i = 0; i < c->npending && rc == COMPACT_OK; i++) {
		struct compact_pending *p = &c->pending[i];
		struct compact_track *t = &c->tracks[p->track];
		int take = t->dev_selected ||
			   (!t->dev_seen && intern_find(&c->device_pids, t->pid, strlen(t->pid)) >= 0);
		c->events = p->index;  /* for the records and the messages */
		if (take) {
			rc = add_act(c, p->line, p->len, p->track, COMPACT_SCOPE, 0);
			added++;
		} else {
			note_other(c, p->track);
		}
	}
	c->events = events;
	for (i = 0; i < c->npending; i++)
		free(c->pending[i].line);
	free(c->pending);
	c->pending = NULL;
	c->npending = 0;
	if (rc == COMPACT_OK && added > 0) {
		c->act_order = malloc((c->nacts + 1) * sizeof *c->act_order);
		if (c->act_order == NULL)
			return COMPACT_NOMEM;
		for (i = 0; i < c->nacts; i++)
			c->act_order[i] = (uint32_t)i;
		qsort_r(c->act_order, c->nacts, sizeof *c->act_order, cmp_act_index, c);
	}
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

/* The packing's view of act i: the union of the exact and Perfetto's bounds. */
static void lane_get(void *ctx, uint32_t i, struct lane_iv *iv)
{
	const struct compact_act *a = compact_act(ctx, i);

	iv->lo = a->start_ns - a->lo_pad;
	iv->hi = a->end_ns + a->hi_pad;
	iv->group = a->group;
	iv->index = a->index;
	iv->zero = (a->flags & COMPACT_F_ZERO) != 0;
}

static void lane_set(void *ctx, uint32_t i, unsigned lane)
{
	compact_act(ctx, i)->lane = (uint8_t)lane;
}

/* Lanes for every group (lanes.h); order has room for nacts ids. */
static int assign_lanes(struct compact *c, uint32_t *order)
{
	struct lanes_src src = { c, lane_get, lane_set };
	unsigned *nlanes = malloc((c->groups_by_key.n + 1) * sizeof *nlanes);
	size_t g;
	int rc;

	if (nlanes == NULL)
		return COMPACT_NOMEM;
	for (g = 0; g < c->groups_by_key.n; g++)
		nlanes[g] = c->groups[g].nlanes;
	rc = lanes_assign(&src, c->nacts, order, (unsigned)c->max_lanes, nlanes, &c->refusal);
	for (g = 0; g < c->groups_by_key.n && rc == LANES_OK; g++)
		c->groups[g].nlanes = nlanes[g];
	free(nlanes);
	if (rc == LANES_OVERLAP)
		return refuse(c, "pid %s, device %s: more than %d GPU events overlap",
			      c->groups[c->refusal.group].pid, c->groups[c->refusal.group].device,
			      LANES_MAX_OVERLAP);
	return rc == LANES_TOO_MANY ? COMPACT_LANES : COMPACT_OK;
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
				rc = refuse(c, "no free tid below 2^31 in pid %s", lane_pid);
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

/* Count an act in its group's per-lane, per-stream tally (entries in the
 * order of first appearance). */
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
		c->lane_slot[id] = g->ncounts[a->lane]++;
	}
	n = &g->counts[a->lane][c->lane_slot[id]];
	n->count++;
	if (a->flags & COMPACT_F_KERNEL)
		n->kernels++;
	return COMPACT_OK;
}

static int cmp_guide(const void *a, const void *b)
{
	const struct compact_guide *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int bad_guide(struct compact *c, const struct compact_guide *g, const char *why)
{
	return refuse(c, "event %" PRIu64 ": the existing layer guide %s; regenerate the "
		      "guides from the original trace with tr-layer-track (with --max-gpu-lanes)",
		      g->index, why);
}

/* Guides made by tr-guides sit in the GPU's process, carry their args and
 * never overlap; anything else is not ours to keep beside the lanes. */
static int check_guides(struct compact *c)
{
	size_t i;

	for (i = 0; i < c->nguides; i++) {
		const struct compact_guide *g = &c->guides[i];
		/* beside a GPU's activity, compacted or left alone by --pid */
		int beside = intern_find(&c->gpu_pids, g->pid, strlen(g->pid)) >= 0;
		if (!g->has_args)
			return bad_guide(c, g, "lacks the layer_guide args (layer_id, pass_index, "
					 "boundary_kind) or a numeric ts and dur");
		if (!beside && c->gpu_pids.n > 0)
			return bad_guide(c, g, "sits in another process than the GPU activity");
	}
	if (c->nguides > 1) /* guides is NULL when there are none */
		qsort(c->guides, c->nguides, sizeof *c->guides, cmp_guide);
	for (i = 0; i + 1 < c->nguides; i++)
		if (c->guides[i + 1].start < c->guides[i].end)
			return bad_guide(c, &c->guides[i + 1], "overlaps another guide slice");
	return COMPACT_OK;
}

int compact_plan(struct compact *c)
{
	size_t i;
	int rc;

	if (c->only_device != NULL && (rc = resolve_pending(c)) != 0)
		return rc;
	if (c->nacts == 0)
		return refuse_nothing(c);
	c->by_track = malloc((c->nacts + 1) * sizeof *c->by_track);
	if (c->by_track == NULL)
		return COMPACT_NOMEM;
	if ((rc = assign_lanes(c, c->by_track)) != 0 || (rc = choose_ids(c)) != 0)
		return rc;
	for (i = 0; i < c->nacts; i++) {
		struct compact_act *a = compact_act(c, i);
		c->tracks[a->track].moved = 1;
		if ((rc = count_lane(c, a)) != 0)
			return rc;
	}
	for (i = 0; i < c->tracks_by_key.n; i++) {
		const struct compact_track *t = &c->tracks[i];
		if (t->moved && t->nother > 0)
			return refuse(c, "event %" PRIu64 ": on GPU track pid %s tid %s, which is "
				      "moved to synthetic lanes, but it is neither GPU activity, a GPU "
				      "scope, a flow nor thread metadata, so it cannot be placed "
				      "(%" PRIu64 " such events); use --pid to leave this pid alone",
				      t->first_other, t->pid, t->tid, t->nother);
	}
	if ((rc = check_guides(c)) != 0)
		return rc;
	return compact_flow_index(c);
}

/* ------------------------------------------------------------ pass two */

/* The k-th record in source order. */
static const struct compact_act *act_in_order(const struct compact *c, size_t k)
{
	return compact_act(c, c->act_order != NULL ? c->act_order[k] : k);
}

int compact_place(struct compact *c, const char *line, size_t len, const char **out_line,
		  size_t *out_len)
{
	static const char *const keys[] = { "pid", "tid", "args" };
	uint64_t index = c->index++;
	int rc;

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
	if (c->next_act < c->nacts && act_in_order(c, c->next_act)->index == index) {
		const struct compact_act *a = act_in_order(c, c->next_act);
		const struct compact_group *g = &c->groups[a->group];
		struct member m[3];
		char space[24];
		c->next_act++;
		if ((rc = compact_members(c, line, len, keys, 3, m)) != 0 ||
		    (rc = compact_rewrite(line, len, m, index, compact_display_pid(g, space),
					  g->lane_tid[a->lane], &c->out, &c->msg)) != 0)
			return rc;
		c->relocated++;
	} else {
		if ((rc = compact_flow_move(c, line, len, index)) < 0)
			return rc;
		if (rc == 0)
			return COMPACT_OK;
		c->relocated_flows++;
	}
	*out_line = c->out.p;
	*out_len = c->out.len;
	return COMPACT_OK;
}

void compact_free(struct compact *c)
{
	size_t i;
	unsigned k;

	for (i = 0; i < c->nguides; i++)
		free(c->guides[i].pid);
	free(c->guides);
	for (i = 0; i < c->npending; i++)
		free(c->pending[i].line);
	free(c->pending);
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
	for (i = 0; i < c->nblocks; i++)
		free(c->blocks[i]);
	free(c->blocks);
	free(c->by_track);
	free(c->track_first);
	free(c->lane_slot);
	free(c->act_order);
	free(c->source_name);
	intern_free(&c->lane_keys);
	intern_free(&c->tracks_by_key);
	intern_free(&c->pids);
	intern_free(&c->groups_by_key);
	intern_free(&c->gpu_pids);
	intern_free(&c->gpu_devices);
	intern_free(&c->device_pids);
	intern_free(&c->seen_cats);
	json_free(&c->doc);
	buf_release(&c->key);
	buf_release(&c->last_track_key);
	buf_release(&c->out);
	buf_release(&c->msg);
	memset(c, 0, sizeof *c);
}
