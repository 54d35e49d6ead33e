/* tr-compact: pack each device's GPU activity into at most N synthetic,
 * non-overlapping display lanes (a compact view), moving flows and GPU
 * scopes with it, and record every placement so that the source can be
 * rebuilt exactly.  Kernel names, ts, dur and args.stream never change.
 * See tr-compact(1).
 *
 * Two passes: the first spills the stream to an unlinked temporary file
 * and keeps a 48-byte record per GPU activity; lanes are assigned between
 * the passes; the second rewrites the moved events in place and copies every
 * other line as it is.
 *
 * Members are found by one walk over the line's top level (event.h) when
 * the line holds no backslash: then raw key bytes are the keys.  A line with
 * escapes goes through the tokenizer, which compares unescaped keys. */
/* fallocate(2) and FALLOC_FL_PUNCH_HOLE are Linux-specific */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "event.h"
#include "filter.h"
#include "intern.h"
#include "io.h"
#include "json.h"
#include "lanes.h"
#include "opt.h"
#include "outfile.h"
#include "tsnum.h"
#include "trstream.h"

#define MAX_LANES 10
/* Records live in blocks, not one array grown by realloc: growing would
 * briefly hold the old and the new array, twice the memory. */
#define ACT_BLOCK ((size_t)1 << 16)
#define ACT(st, i) (&(st)->blocks[(size_t)(i) / ACT_BLOCK][(size_t)(i) % ACT_BLOCK])
#define LANE_TID_BASE ((int64_t)0x7E000000)  /* synthetic lane tids start here */
#define SCOPE_PID_BASE ((int64_t)0x7F000000) /* synthetic scope pids start here */
#define NO_CORR INT64_MIN
/* a layers report passed by: fold the compaction report into it */
#define LAYERS_SUFFIX "\"suffix\":\"" TRSTREAM_LAYERS_SUFFIX "\""

static const char notice[] =
	"Compact view: GPU activity is drawn on synthetic display lanes that never "
	"overlap. Lanes are not CUDA streams and this is not a runtime change: kernel "
	"names, ts, dur and args.stream are as recorded, and args._compact_gpu_track "
	"holds each moved event's original pid and tid. Use the original trace for "
	"stream scheduling and synchronisation.";

static const char usage_text[] =
	"usage: tr-compact [--max-gpu-lanes N] [--pid PID] [--device D]\n"
	"Pack each device's GPU activity of a trace-layers stream (tr-stream(5))\n"
	"into at most N synthetic display lanes, reversibly.\n"
	"\n"
	"  --max-gpu-lanes N  lanes per device, 1-10 (default 10)\n"
	"  --pid PID          compact only this GPU pid\n"
	"  --device D         compact only the GPU activity whose args.device is D\n"
	"  --summary FILE     write a short summary for people to FILE (never replaced)\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected or refused, 2 usage or system trouble.\n";

enum { KIND_ACTIVITY = 0, KIND_SCOPE = 1 };
enum { F_ZERO = 1, F_KERNEL = 2, F_SCOPE = 4 };

/* One GPU activity (kernel, memcpy, memset) or GPU scope: 48 bytes. */
struct act {
	int64_t start_ns;   /* exact ts, floor */
	int64_t end_ns;     /* exact ts + dur, ceiling */
	int64_t corr;       /* args.correlation, or NO_CORR */
	uint32_t index;     /* source index */
	uint32_t track;     /* original (pid, tid) */
	uint32_t group;
	int16_t lo_pad;     /* Perfetto may start this much earlier */
	int16_t hi_pad;     /* ... and end this much later */
	uint8_t lane;
	uint8_t flags;
};

struct track {
	char *pid, *tid;     /* raw JSON */
	uint32_t pid_id;
	int moved;
	uint64_t nother;     /* events that cannot be placed */
	uint64_t first_other;
	int64_t max_dur;     /* longest activity, for flow lookups */
	int has_corr;        /* some activity here carries args.correlation */
	int dev_selected;    /* --device: activity of that device is here */
	int dev_seen;        /* --device: any GPU activity is here */
};

/* --device: a GPU scope without args.device (Kineto writes none) waits
 * until pass one has seen which tracks hold that device's activity. */
struct pending_scope {
	uint64_t index;
	uint32_t track;
	char *line;
	size_t len;
};

struct lane_count {
	uint32_t track;
	uint64_t count;
	uint64_t kernels;
};

struct group {
	char *pid, *device;  /* raw JSON; device "null" when absent */
	uint32_t pid_id;
	int kind;
	uint64_t nacts, nkernels;
	unsigned nlanes;
	int64_t lane_tid[MAX_LANES];
	int64_t display_pid;   /* scopes: the new pid; activity: -1 (same pid) */
	int by_device;         /* scopes: the pid has scopes on several devices */
	struct lane_count *counts[MAX_LANES];
	size_t ncounts[MAX_LANES];
};

struct retired {
	uint32_t index;
	uint32_t track;
	char *text;
};

struct guide_slice {
	uint64_t index;
	char *pid;
	int64_t start, end;
	int sub, has_args;
};

struct state {
	int64_t max_lanes;
	const char *summary_path;
	struct outfile summary;    /* path NULL: a /dev/ descriptor, fd only */
	struct guide_slice *guides;
	size_t nguides, guides_cap;
	const char *only_pid;
	const char *only_device;   /* --device: args.device of the activity to move */
	struct intern gpu_devices; /* "pid P, device D" of GPU activity, with --device */
	struct intern device_pids; /* pids with activity of --device */
	struct pending_scope *pending;
	size_t npending, pending_cap;
	uint32_t *act_order;       /* acts by source index, when pending scopes joined */
	struct intern tracks_by_key, pids, groups_by_key;
	struct intern gpu_pids;    /* pids with GPU activity, --pid or not */
	struct intern seen_cats;   /* device-like categories seen before any GPU activity */
	struct track *tracks;
	size_t ntracks_cap;
	struct group *groups;
	size_t ngroups_cap;
	struct act **blocks;       /* the records, ACT_BLOCK per block */
	size_t nacts, nblocks;
	uint32_t *by_track;        /* act indices by (track, corr, start) */
	size_t *track_first;       /* by_track[track_first[t]] is track t's first */
	struct intern lane_keys;   /* (group, track, lane) seen by count_lane */
	size_t *lane_slot;         /* its entry in the group's counts[lane] */
	size_t lane_slot_cap;
	struct retired *ret;
	size_t nret, ret_cap;
	uint64_t events;
	int spill_fd;
	struct jdoc doc;
	struct buf tmp, line, key;
	struct buf last_track_key;  /* key of the last track_of, and its id */
	uint32_t last_track;
	char *source_name;
	int layers_report;         /* a .layers.json report passed by */
	uint64_t relocated, relocated_flows, new_metadata, nretired;
};

/* The intern key of a (pid, tid): raw pid, \001, raw tid, in st->key. */
static void track_key(struct state *st, const char *pid, size_t plen, const char *tid,
		      size_t tlen)
{
	buf_reset(&st->key);
	if (buf_add(&st->key, pid, plen) || buf_addch(&st->key, '\001') ||
	    buf_add(&st->key, tid, tlen))
		die_nomem();
}

/* The id of a (pid, tid) that pass one saw, or -1. */
static int64_t find_track(struct state *st, struct member pid, struct member tid)
{
	if (pid.len == 0 || tid.len == 0)
		return -1;
	track_key(st, pid.p, pid.len, tid.p, tid.len);
	return intern_find(&st->tracks_by_key, st->key.p, st->key.len);
}

static uint32_t track_of(struct state *st, const char *pid, size_t plen, const char *tid,
			 size_t tlen)
{
	int64_t id;
	uint32_t before;

	/* events come in runs on one thread: skip the hashing for a repeat */
	if (st->last_track_key.len == plen + 1 + tlen && st->last_track_key.len > 0 &&
	    memcmp(st->last_track_key.p, pid, plen) == 0 &&
	    memcmp(st->last_track_key.p + plen + 1, tid, tlen) == 0)
		return st->last_track;
	track_key(st, pid, plen, tid, tlen);
	before = st->tracks_by_key.n;
	id = intern_id(&st->tracks_by_key, st->key.p, st->key.len);
	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->ntracks_cap) {
		size_t cap = grow_cap(st->ntracks_cap, 64, sizeof *st->tracks);
		st->tracks = xrealloc(st->tracks, cap * sizeof *st->tracks);
		st->ntracks_cap = cap;
	}
	if (st->tracks_by_key.n != before) { /* new */
		struct track *t = &st->tracks[id];
		int64_t pid_id = intern_id(&st->pids, pid, plen);
		if (pid_id < 0)
			die_nomem();
		memset(t, 0, sizeof *t);
		t->pid = xmemdup(pid, plen);
		t->tid = xmemdup(tid, tlen);
		t->pid_id = (uint32_t)pid_id;
	}
	buf_reset(&st->last_track_key);
	if (buf_add(&st->last_track_key, st->key.p, st->key.len) != 0)
		die_nomem();
	st->last_track = (uint32_t)id;
	return (uint32_t)id;
}

static uint32_t group_of(struct state *st, const struct track *t, const char *dev,
			 size_t dlen, int kind)
{
	struct buf key = BUF_INIT;
	int64_t id;
	uint32_t before;

	if (buf_printf(&key, "%d\001%s\001", kind, t->pid) || buf_add(&key, dev, dlen))
		die_nomem();
	before = st->groups_by_key.n;
	id = intern_id(&st->groups_by_key, key.p, key.len);
	buf_release(&key);
	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->ngroups_cap) {
		size_t cap = grow_cap(st->ngroups_cap, 16, sizeof *st->groups);
		st->groups = xrealloc(st->groups, cap * sizeof *st->groups);
		st->ngroups_cap = cap;
	}
	if (st->groups_by_key.n != before) {
		struct group *g = &st->groups[id];
		memset(g, 0, sizeof *g);
		g->pid = xmemdup(t->pid, strlen(t->pid));
		g->device = xmemdup(dev, dlen);
		g->pid_id = t->pid_id;
		g->kind = kind;
		g->display_pid = -1;
	}
	return (uint32_t)id;
}

static int64_t clamp_pad(int64_t v, uint64_t index)
{
	if (v > INT16_MAX)
		die(EXIT_INPUT, "event %" PRIu64 ": Perfetto's double conversion moves this "
		    "timestamp by %" PRId64 " ns; rebase the trace's timestamps first", index, v);
	return v;
}

/* A raw member value that is a number or a literal (not a string, object
 * or array, not absent). */
static int is_primitive(struct member m)
{
	return m.len > 0 && m.p[0] != '"' && m.p[0] != '{' && m.p[0] != '[';
}

/* Top-level members keys[0..n) of an event line (or of an args object), as
 * raw value text; len 0 when absent.  Dies on a line that is not JSON. */
static void members_of(struct state *st, const char *line, size_t len,
		       const char *const *keys, int n, struct member *out)
{
	struct jdoc *d = &st->doc;
	int k;

	if (memchr(line, '\\', len) == NULL) {
		event_members(line, len, keys, n, out);
		return;
	}
	if (jdoc_parse(d, line, len, NULL) != 0)
		die(EXIT_INPUT, "event %" PRIu64 ": not a JSON object", st->events);
	for (k = 0; k < n; k++) {
		int tok = jdoc_find(d, 0, keys[k]);
		out[k].p = NULL;
		out[k].len = 0;
		if (tok >= 0)
			out[k].p = jdoc_raw(d, tok, &out[k].len);
	}
}

/* Exact and Perfetto bounds of an X event; dies on missing or bad numbers. */
static void bounds(struct state *st, struct member ts, struct member dur, struct act *a)
{
	struct lane_bounds lb;
	int rc;

	if (!is_primitive(ts) || !is_primitive(dur))
		die(EXIT_INPUT, "event %" PRIu64 ": GPU event without a numeric ts and dur",
		    st->events);
	rc = lanes_bounds(ts.p, ts.len, dur.p, dur.len, &lb);
	if (rc == LANES_BOUNDS_RANGE)
		die(EXIT_INPUT, "event %" PRIu64 ": ts %.*s or dur %.*s is out of range",
		    st->events, (int)ts.len, ts.p, (int)dur.len, dur.p);
	if (rc == LANES_BOUNDS_NEGATIVE)
		die(EXIT_INPUT, "event %" PRIu64 ": negative dur %.*s", st->events,
		    (int)dur.len, dur.p);
	a->start_ns = lb.start_ns;
	a->end_ns = lb.end_ns;
	a->lo_pad = (int16_t)clamp_pad(lb.lo_pad, st->events);
	a->hi_pad = (int16_t)clamp_pad(lb.hi_pad, st->events);
	if (lb.zero)
		a->flags |= F_ZERO;
}

static void add_act(struct state *st, const char *line, size_t len, uint32_t track,
		    int kind, int is_kernel)
{
	static const char *const keys[] = { "ts", "dur", "args" };
	static const char *const arg_keys[] = { "device", "correlation" };
	struct member m[3], am[2] = { { NULL, 0 }, { NULL, 0 } };
	struct act *a;
	const char *dtext = "null";
	size_t dlen = 4;

	if (st->events > UINT32_MAX)
		die(EXIT_INPUT, "more than 2^32 events: too many for tr-compact's records");
	if (st->nacts == st->nblocks * ACT_BLOCK) {
		st->blocks = xrealloc(st->blocks, (st->nblocks + 1) * sizeof *st->blocks);
		st->blocks[st->nblocks++] = xmalloc(ACT_BLOCK * sizeof **st->blocks);
	}
	a = ACT(st, st->nacts);
	memset(a, 0, sizeof *a);
	members_of(st, line, len, keys, 3, m);
	bounds(st, m[0], m[1], a);
	if (m[2].len > 0 && m[2].p[0] == '{')
		members_of(st, m[2].p, m[2].len, arg_keys, 2, am);
	if (am[0].len > 0) {
		dtext = am[0].p;
		dlen = am[0].len;
	}
	a->corr = NO_CORR;
	if (is_primitive(am[1]) && num_parse_int64(am[1].p, am[1].len, &a->corr) != NUM_OK)
		a->corr = NO_CORR;
	a->index = (uint32_t)st->events;
	a->track = track;
	if (a->corr != NO_CORR)
		st->tracks[track].has_corr = 1;
	a->group = group_of(st, &st->tracks[track], dtext, dlen, kind);
	a->flags |= (uint8_t)((is_kernel ? F_KERNEL : 0) | (kind == KIND_SCOPE ? F_SCOPE : 0));
	st->groups[a->group].nacts++;
	if (is_kernel)
		st->groups[a->group].nkernels++;
	if (a->end_ns - a->start_ns > st->tracks[track].max_dur)
		st->tracks[track].max_dur = a->end_ns - a->start_ns;
	st->nacts++;
}

static void note_other(struct state *st, uint32_t track)
{
	struct track *t = &st->tracks[track];

	if (t->nother++ == 0)
		t->first_other = st->events;
}

/* An existing layer guide slice: kept as it is, but only if it is one that
 * tr-guides made beside this GPU activity (checked in plan()). */
static void see_guide(struct state *st, const char *line, size_t len, const char *pid,
		      size_t plen)
{
	struct jdoc *d = &st->doc;
	struct guide_slice *g;
	int args;
	size_t n;
	const char *text;

	if (st->nguides == st->guides_cap) {
		st->guides_cap = grow_cap(st->guides_cap, 64, sizeof *st->guides);
		st->guides = xrealloc(st->guides, st->guides_cap * sizeof *st->guides);
	}
	g = &st->guides[st->nguides++];
	memset(g, 0, sizeof *g);
	g->index = st->events;
	g->pid = xmemdup(pid, plen);
	if (jdoc_parse(d, line, len, NULL) != 0)
		die(EXIT_INPUT, "event %" PRIu64 ": not a JSON object", st->events);
	args = jdoc_find(d, 0, "args");
	g->has_args = jdoc_type(d, args) == JT_OBJECT && jdoc_find(d, args, "layer_id") >= 0 &&
		      jdoc_find(d, args, "pass_index") >= 0 &&
		      jdoc_find(d, args, "boundary_kind") >= 0;
	text = jdoc_type(d, jdoc_find(d, 0, "ts")) == JT_PRIMITIVE ?
	       jdoc_text(d, jdoc_find(d, 0, "ts"), &n) : NULL;
	if (text == NULL || num_us_to_ns(text, n, &g->start, &g->sub) != NUM_OK)
		g->has_args = 0;
	text = jdoc_type(d, jdoc_find(d, 0, "dur")) == JT_PRIMITIVE ?
	       jdoc_text(d, jdoc_find(d, 0, "dur"), &n) : NULL;
	if (text == NULL || num_us_to_ns(text, n, &g->end, &g->sub) != NUM_OK)
		g->has_args = 0;
	g->end += g->start;
}

/* A category is "device-like" when its name suggests work on an
 * accelerator (mtia_*, xpu_*, ..., or kernel/memcpy/memset in another
 * spelling) without being one tr-compact moves: listed when nothing is
 * found, so that a trace from another device says why. */
static int device_like(const char *c, size_t n)
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
				if ((c[i + k] | 0x20) != hints[h][k])
					break;
			if (k == w)
				return 1;
		}
	}
	return 0;
}

#define MAX_SEEN_CATS 4096  /* distinct categories kept for that message */

/* The categories tr-compact moves (on X events). */
static const char *const gpu_categories[] = {
	"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "gpu_user_annotation"
};

static int recognised(const char *c, size_t n)
{
	size_t k;

	for (k = 0; k < sizeof gpu_categories / sizeof gpu_categories[0]; k++)
		if (strlen(gpu_categories[k]) == n && memcmp(gpu_categories[k], c, n) == 0)
			return 1;
	return 0;
}

/* Note the unrecognised device-like categories of cat text c (comma
 * separated), while no GPU activity has been seen. */
static void note_categories(struct state *st, const char *c, size_t n)
{
	size_t i = 0;

	while (i <= n && st->seen_cats.n < MAX_SEEN_CATS) {
		const char *comma = memchr(c + i, ',', n - i);
		size_t end = comma ? (size_t)(comma - c) : n;
		if (end > i && device_like(c + i, end - i) && !recognised(c + i, end - i) &&
		    intern_id(&st->seen_cats, c + i, end - i) < 0)
			die_nomem();
		if (comma == NULL)
			break;
		i = end + 1;
	}
}

/* A GPU event that cannot be given a lane because its pid or tid is
 * missing: the seed's rule, refuse what is ambiguous. */
static _Noreturn void refuse_untracked(struct state *st, struct member pid, struct member tid,
				       int scope)
{
	const char *what = scope ? "GPU scope (gpu_user_annotation)" : "GPU activity";

	if (pid.len == 0 && tid.len == 0)
		die(EXIT_INPUT, "event %" PRIu64 ": %s without pid and tid: its device and stream "
		    "are unknown, so it cannot be placed on a lane", st->events, what);
	if (pid.len == 0)
		die(EXIT_INPUT, "event %" PRIu64 ": %s without pid (tid %.*s): its process is "
		    "unknown, so it cannot be placed on a lane", st->events, what, (int)tid.len, tid.p);
	die(EXIT_INPUT, "event %" PRIu64 ": %s without tid (pid %.*s): its stream is unknown, "
	    "so it cannot be placed on a lane", st->events, what, (int)pid.len, pid.p);
}

/* --device: the raw args.device of an event ("null" when absent), with
 * *present set. */
static void device_of(struct state *st, const char *line, size_t len, const char **dev,
		      size_t *dlen, int *present)
{
	static const char *const keys[] = { "args" };
	static const char *const arg_keys[] = { "device" };
	struct member m[1], am[1] = { { NULL, 0 } };

	members_of(st, line, len, keys, 1, m);
	if (m[0].len > 0 && m[0].p[0] == '{')
		members_of(st, m[0].p, m[0].len, arg_keys, 1, am);
	*present = am[0].len > 0;
	*dev = *present ? am[0].p : "null";
	*dlen = *present ? am[0].len : 4;
}

/* --device: whether a selected-by-pid GPU event stays selected; 1 when it
 * is a scope without a device, decided after pass one (then it is queued). */
static int device_selects(struct state *st, const char *line, size_t len, const char *pid,
			  size_t plen, uint32_t track, int activity, int *deferred)
{
	const char *dev;
	size_t dlen;
	int present, match;

	*deferred = 0;
	device_of(st, line, len, &dev, &dlen, &present);
	if (!activity && !present) {
		struct pending_scope *p;
		if (st->npending == st->pending_cap) {
			st->pending_cap = st->pending_cap ? st->pending_cap * 2 : 64;
			st->pending = xrealloc(st->pending, st->pending_cap * sizeof *st->pending);
		}
		p = &st->pending[st->npending++];
		p->index = st->events;
		p->track = track;
		p->line = xmemdup(line, len);
		p->len = len;
		*deferred = 1;
		return 0;
	}
	match = raw_matches_arg(dev, dlen, st->only_device);
	if (activity) {
		st->tracks[track].dev_seen = 1;
		struct buf key = BUF_INIT;
		if (buf_printf(&key, "pid %.*s, device %.*s", (int)plen, pid, (int)dlen, dev) != 0 ||
		    intern_id(&st->gpu_devices, key.p, key.len) < 0)
			die_nomem();
		buf_release(&key);
		if (match) {
			st->tracks[track].dev_selected = 1;
			if (intern_id(&st->device_pids, pid, plen) < 0)
				die_nomem();
		}
	}
	return match;
}

/* Pass one, per event: classify it and keep what the placement needs. */
static void see_event(struct state *st, const char *line, size_t len)
{
	static const char *const keys[] = { "pid", "tid", "ph", "cat", "name" };
	struct member m[5];
	const char *pid, *ph, *name;
	size_t plen, nlen;
	uint32_t track;
	int kernel = 0, activity = 0, scope = 0, guide = 0, selected;

	if (find_bytes(line, len, TRSTREAM_KEY_COMPACT_TRACK, sizeof TRSTREAM_KEY_COMPACT_TRACK - 1) != NULL)
		die(EXIT_INPUT, "event %" PRIu64 ": already compacted (%s); start from the "
		    "original trace", st->events, TRSTREAM_KEY_COMPACT_TRACK);
	/* one walk over the leading members; args is never looked at here */
	event_members(line, len, keys, 5, m);
	pid = m[0].p;
	plen = m[0].len;
	ph = m[2].p;
	if (m[3].len >= 2 && m[3].p[0] == '"' && memchr(m[3].p + 1, '\\', m[3].len - 2) == NULL) {
		const char *c = m[3].p + 1;
		size_t n = m[3].len - 2;
		if (m[2].len == 3 && ph[1] == 'X') {
			kernel = category_has(c, n, "kernel") || category_has(c, n, "Kernel");
			activity = kernel || category_has(c, n, "gpu_memcpy") ||
				   category_has(c, n, "gpu_memset") || category_has(c, n, "Memcpy") ||
				   category_has(c, n, "Memset");
			scope = !activity && category_has(c, n, "gpu_user_annotation");
			guide = category_has(c, n, "layer_guide");
		}
		if (!activity && st->gpu_pids.n == 0)
			note_categories(st, c, n);
	}
	/* --pid selects by pid: an event without one is not in it */
	selected = st->only_pid == NULL || (plen > 0 && raw_matches_arg(pid, plen, st->only_pid));
	if (plen == 0 || m[1].len == 0) {
		if ((activity || scope) && !guide && selected)
			refuse_untracked(st, m[0], m[1], scope);
		if (plen > 0 && intern_id(&st->pids, pid, plen) < 0)
			die_nomem();
		return;
	}
	track = track_of(st, pid, plen, m[1].p, m[1].len);
	if (m[2].len != 3) {
		note_other(st, track);
		return;
	}
	if (selected && st->only_device != NULL && (activity || scope) && !guide) {
		int deferred;
		selected = device_selects(st, line, len, pid, plen, track, activity, &deferred);
		if (deferred)
			return;
	}
	if (activity && intern_id(&st->gpu_pids, pid, plen) < 0)
		die_nomem();
	if (guide) {
		see_guide(st, line, len, pid, plen);
		return;
	}
	if ((activity || scope) && selected) {
		add_act(st, line, len, track, activity ? KIND_ACTIVITY : KIND_SCOPE, kernel);
		return;
	}
	if (ph[1] == 's' || ph[1] == 't' || ph[1] == 'f')
		return; /* flows follow their kernel; bound in pass two */
	name = m[4].p;
	nlen = m[4].len;
	/* Process-scoped metadata (process_name, process_labels,
	 * process_sort_index, ...) names the pid whatever its tid: Kineto writes
	 * it with tid 0, which on ROCm is also the default HIP stream.  It stays
	 * where it is, valid for the lanes, which keep the pid. */
	if (ph[1] == 'M' && nlen > 9 && memcmp(name, "\"process_", 9) == 0)
		return;
	if (ph[1] == 'M' &&
	    ((nlen == 13 && memcmp(name, "\"thread_name\"", 13) == 0) ||
	     (nlen == 19 && memcmp(name, "\"thread_sort_index\"", 19) == 0))) {
		struct retired *r;
		if (st->nret == st->ret_cap) {
			st->ret_cap = grow_cap(st->ret_cap, 64, sizeof *st->ret);
			st->ret = xrealloc(st->ret, st->ret_cap * sizeof *st->ret);
		}
		r = &st->ret[st->nret++];
		r->index = (uint32_t)st->events;
		r->track = track;
		r->text = xmemdup(line, len);
		return;
	}
	note_other(st, track);
}

static int cmp_track(const void *a, const void *b, void *ctx)
{
	struct state *st = ctx;
	const struct act *x = ACT(st, *(const uint32_t *)a);
	const struct act *y = ACT(st, *(const uint32_t *)b);

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The smallest exact ts of any event (floor), for the relative times of a
 * refusal: read back from the spill, since only a refusal needs it. */
static int64_t trace_origin(struct state *st)
{
	struct stream_in in;
	const char *line, *ts;
	size_t len, tslen;
	int kind, have = 0;
	int64_t origin = 0, ns;
	int sub;

	if (lseek(st->spill_fd, 0, SEEK_SET) != 0 ||
	    stream_in_init(&in, st->spill_fd, STREAM_DEFAULT_MAX_LINE) != 0)
		return 0;
	in.seen_head = 1; /* the head went straight to the output */
	while ((kind = stream_next(&in, &line, &len)) != LINE_END && kind != LINE_ERROR)
		if (kind == LINE_EVENT && event_member(line, len, "ts", &ts, &tslen) &&
		    ts[0] != '"' && num_us_to_ns(ts, tslen, &ns, &sub) == NUM_OK &&
		    (!have || ns < origin)) {
			origin = ns;
			have = 1;
		}
	stream_in_free(&in);
	return origin;
}

static _Noreturn void refuse_lanes(struct state *st, const struct group *g, unsigned peak,
				   int64_t from, int64_t to)
{
	struct buf msg = BUF_INIT;
	int64_t origin = trace_origin(st);

	buf_printf(&msg, "pid %s, device %s: %s needs %u lanes (peak concurrency) but "
		   "--max-gpu-lanes is %" PRId64 "; it first exceeds %" PRId64 " from ",
		   g->pid, g->device, g->kind == KIND_SCOPE ? "GPU scopes" : "GPU activity",
		   peak, st->max_lanes, st->max_lanes);
	num_append_us3(&msg, from);
	buf_addstr(&msg, " to ");
	num_append_us3(&msg, to);
	buf_addstr(&msg, " us (");
	num_append_ms6(&msg, from - origin);
	buf_addstr(&msg, " to ");
	num_append_ms6(&msg, to - origin);
	buf_addstr(&msg, " ms from the trace start); cut a time window around the part "
		   "you need, or keep the original streams (no compaction)");
	die(EXIT_INPUT, "%s", msg.p);
}

/* The packing's view of act i: the union of the exact and Perfetto's bounds. */
static void lane_get(void *ctx, uint32_t i, struct lane_iv *iv)
{
	const struct act *a = ACT((struct state *)ctx, i);

	iv->lo = a->start_ns - a->lo_pad;
	iv->hi = a->end_ns + a->hi_pad;
	iv->group = a->group;
	iv->index = a->index;
	iv->zero = (a->flags & F_ZERO) != 0;
}

static void lane_set(void *ctx, uint32_t i, unsigned lane)
{
	ACT((struct state *)ctx, i)->lane = (uint8_t)lane;
}

/* Lanes for every group (lanes.h); dies on a refusal. */
static void assign_lanes(struct state *st, uint32_t *order)
{
	struct lanes_src src = { st, lane_get, lane_set };
	struct lanes_refusal why;
	unsigned *nlanes = xmalloc((st->groups_by_key.n + 1) * sizeof *nlanes);
	size_t g;
	int rc;

	for (g = 0; g < st->groups_by_key.n; g++)
		nlanes[g] = st->groups[g].nlanes;
	rc = lanes_assign(&src, st->nacts, order, (unsigned)st->max_lanes, nlanes, &why);

	if (rc == LANES_OVERLAP)
		die(EXIT_INPUT, "pid %s, device %s: more than %d GPU events overlap",
		    st->groups[why.group].pid, st->groups[why.group].device, LANES_MAX_OVERLAP);
	if (rc == LANES_TOO_MANY)
		refuse_lanes(st, &st->groups[why.group], why.peak, why.from, why.to);
	for (g = 0; g < st->groups_by_key.n; g++)
		st->groups[g].nlanes = nlanes[g];
	free(nlanes);
}

static int pid_used(const struct state *st, int64_t pid)
{
	char text[24];

	snprintf(text, sizeof text, "%" PRId64, pid);
	return intern_find(&st->pids, text, strlen(text)) >= 0;
}

static int tid_used(const struct state *st, const char *pid, int64_t tid)
{
	char text[24];
	struct buf key = BUF_INIT;
	int used;

	snprintf(text, sizeof text, "%" PRId64, tid);
	if (buf_addstr(&key, pid) || buf_addch(&key, '\001') || buf_addstr(&key, text))
		die_nomem();
	used = intern_find(&st->tracks_by_key, key.p, key.len) >= 0;
	buf_release(&key);
	return used;
}

/* Synthetic ids: scope processes get new pids, lanes new tids in their
 * (display) pid, all positive, below 2^31 and unused by any event.
 * Groups of one kind and one original pid (its devices) take their lanes in
 * turn from one cursor: each takes the first free tids after the previous
 * one's, so no group rescans the others' lanes (linear in groups). */
static void choose_ids(struct state *st)
{
	size_t gi;
	int64_t next_scope_pid = SCOPE_PID_BASE;
	struct intern cursor_keys = { 0 };
	int64_t *cursor = xmalloc((st->groups_by_key.n + 1) * sizeof *cursor);
	uint32_t *key_of = xmalloc((st->groups_by_key.n + 1) * sizeof *key_of);
	size_t *ngroups = xmalloc((st->groups_by_key.n + 1) * sizeof *ngroups);
	struct buf key = BUF_INIT;

	for (gi = 0; gi < st->groups_by_key.n; gi++) {
		const struct group *g = &st->groups[gi];
		uint32_t before = cursor_keys.n;
		int64_t c;

		buf_reset(&key);
		if (buf_printf(&key, "%d\001%s", g->kind, g->pid) != 0)
			die_nomem();
		c = intern_id(&cursor_keys, key.p, key.len);
		if (c < 0)
			die_nomem();
		if (cursor_keys.n != before) {
			cursor[c] = LANE_TID_BASE;
			ngroups[c] = 0;
		}
		ngroups[c]++;
		key_of[gi] = (uint32_t)c;
	}
	for (gi = 0; gi < st->groups_by_key.n; gi++) {
		struct group *g = &st->groups[gi];
		char pidtext[24];
		const char *lane_pid = g->pid;
		uint32_t c = key_of[gi];
		unsigned k;

		if (g->kind == KIND_SCOPE) {
			/* two scope processes of one pid must not share a name */
			g->by_device = ngroups[c] > 1;
			while (pid_used(st, next_scope_pid))
				next_scope_pid++;
			g->display_pid = next_scope_pid++;
			snprintf(pidtext, sizeof pidtext, "%" PRId64, g->display_pid);
			lane_pid = pidtext;
		}
		for (k = 0; k < g->nlanes; k++) {
			int64_t tid = cursor[c];
			while (tid <= INT32_MAX && tid_used(st, lane_pid, tid))
				tid++;
			if (tid > INT32_MAX)
				die(EXIT_INPUT, "no free tid below 2^31 in pid %s", lane_pid);
			g->lane_tid[k] = tid;
			cursor[c] = tid + 1;
		}
	}
	buf_release(&key);
	intern_free(&cursor_keys);
	free(cursor);
	free(key_of);
	free(ngroups);
}

/* Count an act in its group's per-lane, per-stream tally (entries in the
 * order of first appearance). */
static void count_lane(struct state *st, const struct act *a)
{
	struct group *g = &st->groups[a->group];
	unsigned char key[9];
	uint32_t before = st->lane_keys.n;
	int64_t id;
	struct lane_count *c;

	memcpy(key, &a->group, 4);
	memcpy(key + 4, &a->track, 4);
	key[8] = a->lane;
	id = intern_id(&st->lane_keys, (const char *)key, sizeof key);
	if (id < 0)
		die_nomem();
	if (st->lane_keys.n != before) {
		if ((size_t)id >= st->lane_slot_cap) {
			st->lane_slot_cap = grow_cap(st->lane_slot_cap, 64, sizeof *st->lane_slot);
			st->lane_slot = xrealloc(st->lane_slot, st->lane_slot_cap * sizeof *st->lane_slot);
		}
		g->counts[a->lane] = xrealloc(g->counts[a->lane],
					      (g->ncounts[a->lane] + 1) * sizeof **g->counts);
		c = &g->counts[a->lane][g->ncounts[a->lane]];
		memset(c, 0, sizeof *c);
		c->track = a->track;
		st->lane_slot[id] = g->ncounts[a->lane]++;
	}
	c = &g->counts[a->lane][st->lane_slot[id]];
	c->count++;
	if (a->flags & F_KERNEL)
		c->kernels++;
}

struct group_stream {
	uint32_t track;
	int kernels;          /* some of its events in the group are kernels */
};

static int cmp_group_stream(const void *a, const void *b)
{
	const struct group_stream *x = a, *y = b;

	return x->track < y->track ? -1 : x->track > y->track;
}

/* The tracks (streams) with events in a group, in track order, each once:
 * read from the group's per-lane tallies, so the cost is the group's own
 * size, not the number of tracks in the trace (malloc'd; *n set). */
static struct group_stream *group_streams(const struct group *g, size_t *n)
{
	struct group_stream *s;
	size_t total = 0, i, j;
	unsigned k;

	for (k = 0; k < g->nlanes; k++)
		total += g->ncounts[k];
	s = xmalloc((total + 1) * sizeof *s);
	for (k = 0, i = 0; k < g->nlanes; k++)
		for (j = 0; j < g->ncounts[k]; j++, i++) {
			s[i].track = g->counts[k][j].track;
			s[i].kernels = g->counts[k][j].kernels > 0;
		}
	if (total > 1)
		qsort(s, total, sizeof *s, cmp_group_stream);
	for (i = 0, j = 0; i < total; i++) {
		if (j > 0 && s[j - 1].track == s[i].track)
			s[j - 1].kernels |= s[i].kernels;
		else
			s[j++] = s[i];
	}
	*n = j;
	return s;
}

static int cmp_guide(const void *a, const void *b)
{
	const struct guide_slice *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static _Noreturn void bad_guide(const struct guide_slice *g, const char *why)
{
	die(EXIT_INPUT, "event %" PRIu64 ": the existing layer guide %s; regenerate the "
	    "guides from the original trace with tr-layer-track (with --max-gpu-lanes)",
	    g->index, why);
}

/* Guides made by tr-guides sit in the GPU's process, carry their args and
 * never overlap; anything else is not ours to keep beside the lanes. */
static void check_guides(struct state *st)
{
	size_t i;

	for (i = 0; i < st->nguides; i++) {
		const struct guide_slice *g = &st->guides[i];
		/* beside a GPU's activity, compacted or left alone by --pid */
		int beside = intern_find(&st->gpu_pids, g->pid, strlen(g->pid)) >= 0;
		if (!g->has_args)
			bad_guide(g, "lacks the layer_guide args (layer_id, pass_index, "
				  "boundary_kind) or a numeric ts and dur");
		if (!beside && st->gpu_pids.n > 0)
			bad_guide(g, "sits in another process than the GPU activity");
	}
	if (st->nguides > 1) /* guides is NULL when there are none */
		qsort(st->guides, st->nguides, sizeof *st->guides, cmp_guide);
	for (i = 0; i + 1 < st->nguides; i++)
		if (st->guides[i + 1].start < st->guides[i].end)
			bad_guide(&st->guides[i + 1], "overlaps another guide slice");
}

#define MAX_LISTED 10  /* pids or categories named in a message */

/* Nothing to move: say what was looked for and what was seen instead, and
 * exit 1 (a compact view of nothing is a copy, which nobody asked for). */
static _Noreturn void refuse_nothing(struct state *st)
{
	struct buf msg = BUF_INIT;
	uint32_t k;

	if (st->only_device != NULL && st->gpu_devices.n > 0) {
		buf_printf(&msg, "nothing to compact: no GPU activity on device %s",
			   st->only_device);
		if (st->only_pid != NULL)
			buf_printf(&msg, " in pid %s", st->only_pid);
		buf_addstr(&msg, "; GPU activity is on ");
		for (k = 0; k < st->gpu_devices.n && k < MAX_LISTED; k++)
			buf_printf(&msg, "%s%s", k ? "; " : "", st->gpu_devices.keys[k]);
		if (st->gpu_devices.n > MAX_LISTED)
			buf_printf(&msg, " and %" PRIu32 " more", st->gpu_devices.n - MAX_LISTED);
		die(EXIT_INPUT, "%s", msg.p);
	}
	if (st->only_pid != NULL && st->gpu_pids.n > 0) {
		buf_printf(&msg, "nothing to compact: pid %s has no GPU activity or GPU scopes; "
			   "GPU activity is in pid ", st->only_pid);
		for (k = 0; k < st->gpu_pids.n && k < MAX_LISTED; k++)
			buf_printf(&msg, "%s%s", k ? ", " : "", st->gpu_pids.keys[k]);
		if (st->gpu_pids.n > MAX_LISTED)
			buf_printf(&msg, " and %" PRIu32 " more", st->gpu_pids.n - MAX_LISTED);
		die(EXIT_INPUT, "%s", msg.p);
	}
	buf_addstr(&msg, "nothing to compact: ");
	if (st->only_pid != NULL)
		buf_printf(&msg, "pid %s has no GPU activity and neither has any other pid", st->only_pid);
	else
		buf_addstr(&msg, "the stream has no GPU activity");
	buf_addstr(&msg, " (X events whose cat includes kernel, gpu_memcpy, gpu_memset, "
		   "Kernel, Memcpy or Memset) and no GPU scopes (gpu_user_annotation); ");
	if (st->seen_cats.n == 0) {
		buf_addstr(&msg, "no unrecognised device-like categories seen either");
	} else {
		buf_addstr(&msg, "unrecognised device-like categories seen: ");
		for (k = 0; k < st->seen_cats.n && k < MAX_LISTED; k++)
			buf_printf(&msg, "%s%s", k ? ", " : "", st->seen_cats.keys[k]);
		if (st->seen_cats.n > MAX_LISTED)
			buf_printf(&msg, " and %" PRIu32 " more", st->seen_cats.n - MAX_LISTED);
		buf_addstr(&msg, " (tr-compact does not move them)");
	}
	die(EXIT_INPUT, "%s", msg.p);
}

/* Between the passes: lanes, ids, moved tracks and what cannot be placed. */
static void plan(struct state *st)
{
	size_t i, k;

	st->by_track = xmalloc((st->nacts + 1) * sizeof *st->by_track);
	assign_lanes(st, st->by_track);
	choose_ids(st);
	for (i = 0; i < st->nacts; i++) {
		struct act *a = ACT(st, i);
		st->tracks[a->track].moved = 1;
		count_lane(st, a);
	}
	for (i = 0; i < st->tracks_by_key.n; i++) {
		const struct track *t = &st->tracks[i];
		if (t->moved && t->nother > 0)
			die(EXIT_INPUT, "event %" PRIu64 ": on GPU track pid %s tid %s, which is "
			    "moved to synthetic lanes, but it is neither GPU activity, a GPU "
			    "scope, a flow nor thread metadata, so it cannot be placed "
			    "(%" PRIu64 " such events); use --pid to leave this pid alone",
			    t->first_other, t->pid, t->tid, t->nother);
	}
	check_guides(st);
	/* the flow index: by track, correlation, start */
	for (i = 0; i < st->nacts; i++)
		st->by_track[i] = (uint32_t)i;
	qsort_r(st->by_track, st->nacts, sizeof *st->by_track, cmp_track, st);
	st->track_first = xmalloc((st->tracks_by_key.n + 1) * sizeof *st->track_first);
	for (i = 0, k = 0; k <= st->tracks_by_key.n; k++) {
		while (i < st->nacts && ACT(st, st->by_track[i])->track < k)
			i++;
		st->track_first[k] = i;
	}
}

/* First position in by_track whose act is not below (track, corr). */
static size_t lower(const struct state *st, uint32_t track, int64_t corr)
{
	size_t lo = st->track_first[track], hi = st->track_first[track + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct act *a = ACT(st, st->by_track[mid]);
		if (a->track < track || (a->track == track && a->corr < corr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The activity a flow event binds to, or dies naming the flow. */
static const struct act *bind_flow(struct state *st, uint32_t track, uint64_t index,
				   struct member ts, struct member id)
{
	int64_t ts_ns, flow_id = NO_CORR;
	int sub, corr_known = 0;
	size_t from, to, k, exact = 0, inside = 0;
	const struct act *hit_exact = NULL, *hit_inside = NULL;

	if (!is_primitive(ts))
		die(EXIT_INPUT, "event %" PRIu64 ": flow on a GPU track without a numeric ts", index);
	if (num_us_to_ns(ts.p, ts.len, &ts_ns, &sub) != NUM_OK)
		die(EXIT_INPUT, "event %" PRIu64 ": flow ts %.*s out of range", index, (int)ts.len,
		    ts.p);
	if (!is_primitive(id) || num_parse_int64(id.p, id.len, &flow_id) != NUM_OK)
		flow_id = NO_CORR;
	from = st->track_first[track];
	to = st->track_first[track + 1];
	corr_known = st->tracks[track].has_corr;
	if (corr_known && flow_id != NO_CORR) {
		from = lower(st, track, flow_id);
		to = flow_id == INT64_MAX ? to : lower(st, track, flow_id + 1);
	}
	for (k = from; k < to; k++) {
		const struct act *a = ACT(st, st->by_track[k]);
		if (corr_known && flow_id != NO_CORR && a->corr != flow_id)
			continue;
		if (a->start_ns == ts_ns && !sub) {
			exact++;
			hit_exact = a;
		} else if (a->start_ns <= ts_ns && ts_ns < a->end_ns) {
			inside++;
			hit_inside = a;
		}
	}
	if (exact == 1)
		return hit_exact;
	if (exact == 0 && inside == 1)
		return hit_inside;
	{
		size_t idn = id.len ? id.len : 4;
		const char *idraw = id.len ? id.p : "none";
		die(EXIT_INPUT, "event %" PRIu64 ": flow (id %.*s, ts %.*s) on pid %s tid %s %s; "
		    "it cannot follow its kernel to a lane", index, (int)idn, idraw, (int)ts.len, ts.p,
		    st->tracks[track].pid, st->tracks[track].tid,
		    exact > 1 ? "starts exactly at several GPU events of its correlation" :
		    inside > 1 ? "lies inside several GPU events of its correlation" :
		    "matches no GPU event (same correlation, starting at or containing its ts)");
	}
}

/* The members pass two reads of a moved event: PLACE_MEMBERS of them for a
 * GPU event, all of them for a flow, in one walk either way. */
static const char *const place_keys[] = { "pid", "tid", "args", "ts", "id" };
#define PLACE_MEMBERS 3

/* Rewrite pid and tid and add args._compact_gpu_track; every other byte of
 * the event stays as it was.  m holds the line's pid, tid and args (as
 * members_of found them for place_keys).  out is overwritten. */
static void rewrite(const char *line, size_t len, const struct member *m, uint64_t index,
		    const char *new_pid, int64_t new_tid, struct buf *out)
{
	struct { size_t at, end; int what; } e[3], t;
	size_t pos = 0, k, j;
	int had_args, fail = 0;

	if (m[0].len == 0 || m[1].len == 0)
		die(EXIT_INPUT, "event %" PRIu64 ": GPU event without pid and tid", index);
	had_args = m[2].len > 0;
	if (had_args && m[2].p[0] != '{')
		die(EXIT_INPUT, "event %" PRIu64 ": args is not an object", index);
	/* three edits in offset order: pid, tid, the insertion before the '}'
	 * of args (or of the event) */
	e[0].at = (size_t)(m[0].p - line), e[0].end = e[0].at + m[0].len, e[0].what = 0;
	e[1].at = (size_t)(m[1].p - line), e[1].end = e[1].at + m[1].len, e[1].what = 1;
	e[2].at = e[2].end = had_args ? (size_t)(m[2].p - line) + m[2].len - 1 : len - 1;
	e[2].what = 2;
	for (k = 0; k < 3; k++)
		for (j = k + 1; j < 3; j++)
			if (e[j].at < e[k].at) {
				t = e[k];
				e[k] = e[j];
				e[j] = t;
			}
	buf_reset(out);
	for (k = 0; k < 3; k++) {
		fail |= buf_add(out, line + pos, e[k].at - pos);
		if (e[k].what == 0) {
			fail |= buf_addstr(out, new_pid);
		} else if (e[k].what == 1) {
			fail |= buf_add_i64(out, new_tid);
		} else {
			if (had_args)
				fail |= buf_addstr(out, m[2].len > 2 ? "," : "");
			else
				fail |= buf_addstr(out, len > 2 ? ",\"args\":{" : "\"args\":{");
			fail |= buf_addstr(out, "\"" TRSTREAM_KEY_COMPACT_TRACK "\":{\"pid\":");
			fail |= buf_add(out, m[0].p, m[0].len);
			fail |= buf_addstr(out, ",\"tid\":");
			fail |= buf_add(out, m[1].p, m[1].len);
			fail |= buf_addstr(out, ",\"source_event_index\":");
			fail |= buf_add_i64(out, (long long)index);
			fail |= buf_addstr(out, had_args ? ",\"had_args\":true}" :
					   ",\"had_args\":false}}");
		}
		pos = e[k].end;
	}
	fail |= buf_add(out, line + pos, len - pos);
	if (fail)
		die_nomem();
}

static const char *display_pid_text(const struct group *g, char *space)
{
	if (g->display_pid < 0)
		return g->pid;
	snprintf(space, 24, "%" PRId64, g->display_pid);
	return space;
}

static void put_json_text(struct buf *b, const char *s)
{
	json_escape(b, s, strlen(s));
}

static void put_metadata(struct state *st, struct filter *f)
{
	struct buf ev = BUF_INIT, name = BUF_INIT;
	size_t gi;
	unsigned k;
	char space[24];

	for (gi = 0; gi < st->groups_by_key.n; gi++) {
		const struct group *g = &st->groups[gi];
		const char *pid = display_pid_text(g, space);
		if (g->kind == KIND_SCOPE) {
			buf_reset(&ev);
			buf_reset(&name);
			buf_printf(&name, "GPU scopes (original PID %s", g->pid);
			if (g->by_device)
				buf_printf(&name, ", device %s", g->device);
			buf_addch(&name, ')');
			buf_printf(&ev, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%s,\"tid\":0,"
				   "\"args\":{\"name\":", pid);
			put_json_text(&ev, name.p);
			buf_addstr(&ev, "}}");
			filter_put(f, ev.p, ev.len);
			st->new_metadata++;
		}
		for (k = 0; k < g->nlanes; k++) {
			buf_reset(&ev);
			buf_reset(&name);
			if (g->kind == KIND_SCOPE && g->by_device)
				buf_printf(&name, "GPU scope lane %u (synthetic; original PID %s, "
					   "device %s)", k + 1, g->pid, g->device);
			else if (g->kind == KIND_SCOPE)
				buf_printf(&name, "GPU scope lane %u (synthetic; original PID %s)",
					   k + 1, g->pid);
			else
				buf_printf(&name, "GPU lane %u (synthetic; device %s)", k + 1, g->device);
			buf_printf(&ev, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%s,\"tid\":%"
				   PRId64 ",\"args\":{\"name\":", pid, g->lane_tid[k]);
			put_json_text(&ev, name.p);
			buf_addstr(&ev, "}}");
			filter_put(f, ev.p, ev.len);
			buf_reset(&ev);
			/* after the layer guide (-1000), in lane order */
			buf_printf(&ev, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%s,\"tid\":%"
				   PRId64 ",\"args\":{\"sort_index\":%d}}", pid, g->lane_tid[k],
				   -1000 + (int)k + 1);
			filter_put(f, ev.p, ev.len);
			st->new_metadata += 2;
		}
	}
	buf_release(&ev);
	buf_release(&name);
}

static void put_report(struct state *st, struct filter *f, const char *tail, size_t tail_len)
{
	struct buf r = BUF_INIT;
	struct jdoc td = JDOC_INIT;
	size_t gi, i;
	unsigned k;
	char space[24];

	if (st->layers_report)
		trstream_report_member(&r, TRSTREAM_LAYERS_SUFFIX, "compaction", 0);
	else
		trstream_report_body(&r, TRSTREAM_COMPACT_SUFFIX);
	buf_addstr(&r, "{\"schema_version\":1,\"notice\":");
	put_json_text(&r, notice);
	buf_printf(&r, ",\"max_lanes\":%" PRId64 ",\"original_event_count\":%" PRIu64
		   ",\"output_event_count\":%" PRIu64 ",\"relocated_events\":%" PRIu64
		   ",\"relocated_flows\":%" PRIu64 ",\"new_metadata_count\":%" PRIu64 ",\"groups\":[",
		   st->max_lanes, st->events, st->events - st->nretired + st->new_metadata,
		   st->relocated + st->relocated_flows, st->relocated_flows, st->new_metadata);
	for (gi = 0; gi < st->groups_by_key.n; gi++) {
		const struct group *g = &st->groups[gi];
		size_t nstreams;
		struct group_stream *streams = group_streams(g, &nstreams);
		int first = 1;
		size_t nkstreams = 0;
		for (i = 0; i < nstreams; i++)
			nkstreams += streams[i].kernels != 0;
		/* counts under the reference's names, the tids under new ones */
		buf_printf(&r, "%s{\"pid\":%s,\"display_pid\":%s,\"device\":%s,\"kind\":\"%s\","
			   "\"original_streams\":%zu,\"original_kernel_streams\":%zu,"
			   "\"original_stream_tids\":[", gi ? "," : "", g->pid,
			   display_pid_text(g, space), g->device,
			   g->kind == KIND_SCOPE ? "scope" : "activity", nstreams, nkstreams);
		/* streams: the tracks with events in this group */
		for (i = 0; i < nstreams; i++) {
			buf_printf(&r, "%s%s", first ? "" : ",", st->tracks[streams[i].track].tid);
			first = 0;
		}
		buf_addstr(&r, "],\"original_kernel_stream_tids\":[");
		first = 1;
		for (i = 0; i < nstreams; i++) {
			if (streams[i].kernels) {
				buf_printf(&r, "%s%s", first ? "" : ",", st->tracks[streams[i].track].tid);
				first = 0;
			}
		}
		buf_printf(&r, "],\"kernel_count\":%" PRIu64 ",\"activity_count\":%" PRIu64
			   ",\"lanes\":%u,\"lane_tids\":[", g->nkernels, g->nacts, g->nlanes);
		for (k = 0; k < g->nlanes; k++)
			buf_printf(&r, "%s%" PRId64, k ? "," : "", g->lane_tid[k]);
		buf_printf(&r, "],\"peak_concurrency\":%u,\"lane_stream_counts\":[", g->nlanes);
		for (k = 0; k < g->nlanes; k++) {
			size_t c;
			buf_printf(&r, "%s{\"lane\":%u,\"tid\":%" PRId64 ",\"streams\":{", k ? "," : "",
				   k + 1, g->lane_tid[k]);
			for (c = 0; c < g->ncounts[k]; c++) {
				const char *tid = st->tracks[g->counts[k][c].track].tid;
				if (c)
					buf_addch(&r, ',');
				if (tid[0] == '"')
					buf_addstr(&r, tid);
				else
					buf_printf(&r, "\"%s\"", tid);
				buf_printf(&r, ":%" PRIu64, g->counts[k][c].count);
			}
			buf_addstr(&r, "}}");
		}
		buf_addstr(&r, "]}");
		free(streams);
	}
	buf_addstr(&r, "],\"retired_track_metadata\":[");
	for (i = 0, k = 0; i < st->nret; i++) {
		if (!st->tracks[st->ret[i].track].moved)
			continue;
		buf_printf(&r, "%s{\"source_event_index\":%" PRIu32 ",\"event\":%s}", k++ ? "," : "",
			   st->ret[i].index, st->ret[i].text);
	}
	buf_addstr(&r, "],\"source_file\":");
	put_json_text(&r, st->source_name ? st->source_name : "");
	buf_addstr(&r, ",\"" TRSTREAM_KEY_SOURCE_SHA256 "\":");
	if (jdoc_parse(&td, tail, tail_len, NULL) == 0)
		trstream_put_source_sha256(&r, &td);
	else
		buf_addstr(&r, "null");
	buf_printf(&r, ",\"tool_version\":\"trace-layers %s\"}}", TR_VERSION);
	filter_put(f, r.p, r.len);
	jdoc_free(&td);
	buf_release(&r);
}

/* A flow event on a moved track goes to the lane of the GPU event it binds
 * to; 1 when it was written, 0 when the line is not such a flow.  Most
 * events are told apart by ph alone, which Kineto writes first. */
static int move_flow(struct state *st, struct filter *f, const char *line, size_t len,
		     uint64_t index)
{
	struct member m[5];
	const char *ph;
	size_t phlen;
	int64_t track;
	const struct act *a;
	const struct group *g;
	char space[24];

	if (!event_member(line, len, "ph", &ph, &phlen) || phlen != 3 ||
	    (ph[1] != 's' && ph[1] != 't' && ph[1] != 'f'))
		return 0;
	members_of(st, line, len, place_keys, 5, m);
	track = find_track(st, m[0], m[1]);
	if (track < 0 || !st->tracks[track].moved)
		return 0;
	a = bind_flow(st, (uint32_t)track, index, m[3], m[4]);
	g = &st->groups[a->group];
	rewrite(line, len, m, index, display_pid_text(g, space), g->lane_tid[a->lane],
		&st->line);
	filter_put(f, st->line.p, st->line.len);
	st->relocated_flows++;
	return 1;
}

#define RELEASE_STEP ((uint64_t)16 << 20)

/* Give back the spill's pages below offset upto (whole 16 MiB steps) once
 * pass two has read them: the page cache then holds a window of the spill,
 * not all of it, and the pages go straight to the output's writer rather
 * than being written to disk.  Where the file system cannot punch holes
 * the spill simply stays until it is closed. */
static void release_spill(int fd, uint64_t upto, uint64_t *released)
{
	upto -= upto % RELEASE_STEP;
	if (upto <= *released)
		return;
#ifdef FALLOC_FL_PUNCH_HOLE
	(void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)*released,
			(off_t)(upto - *released));
#endif
	*released = upto;
}

static int cmp_act_index(const void *a, const void *b, void *ctx)
{
	const struct state *st = ctx;
	uint32_t x = ACT(st, *(const uint32_t *)a)->index;
	uint32_t y = ACT(st, *(const uint32_t *)b)->index;

	return x < y ? -1 : x > y;
}

/* --device, after pass one: a scope without args.device goes with its
 * track when the track holds that device's activity, or, on a track of
 * scopes alone, with its pid when the pid does; otherwise it stays where it
 * is.  The records then get an order by source index for pass two. */
static void resolve_pending(struct state *st)
{
	uint64_t events = st->events;
	size_t i, added = 0;

	for (i = 0; i < st->npending; i++) {
		struct pending_scope *p = &st->pending[i];
		struct track *t = &st->tracks[p->track];
		int take = t->dev_selected ||
			   (!t->dev_seen && intern_find(&st->device_pids, t->pid, strlen(t->pid)) >= 0);
		st->events = p->index;  /* for the records and the messages */
		if (take) {
			add_act(st, p->line, p->len, p->track, KIND_SCOPE, 0);
			added++;
		} else {
			note_other(st, p->track);
		}
		free(p->line);
	}
	st->events = events;
	free(st->pending);
	st->pending = NULL;
	if (added > 0) {
		st->act_order = xmalloc(st->nacts * sizeof *st->act_order);
		for (i = 0; i < st->nacts; i++)
			st->act_order[i] = (uint32_t)i;
		qsort_r(st->act_order, st->nacts, sizeof *st->act_order, cmp_act_index, st);
	}
}

/* The k-th record in source order. */
static const struct act *act_in_order(const struct state *st, size_t k)
{
	return ACT(st, st->act_order != NULL ? st->act_order[k] : k);
}

/* Pass two: replay the spilled stream, moving and retiring events. */
static void replay(struct state *st, struct filter *f, int spill)
{
	struct stream_in in;
	const char *line;
	size_t len, next_act = 0, next_ret = 0;
	uint64_t index = 0, released = 0;
	int kind;
	char space[24];

	if (lseek(spill, 0, SEEK_SET) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (stream_in_init(&in, spill, STREAM_DEFAULT_MAX_LINE) != 0)
		die_nomem();
	in.seen_head = 1; /* the head went straight to the output */
	while ((kind = stream_next(&in, &line, &len)) != LINE_END) {
		if (kind == LINE_ERROR)
			die(EXIT_TROUBLE, "temporary file: %s", in.err);
		/* everything before the line just read is in the reader's buffer */
		release_spill(spill, in.r.offset - len - 1, &released);
		if (kind == LINE_TAIL) {
			put_metadata(st, f);
			put_report(st, f, line, len);
			filter_pass(f, line, len);
			continue;
		}
		if (kind != LINE_EVENT) {
			filter_pass(f, line, len);
			continue;
		}
		if (next_ret < st->nret && st->ret[next_ret].index == index) {
			int moved = st->tracks[st->ret[next_ret].track].moved;
			next_ret++;
			if (moved) {
				st->nretired++;
				index++;
				continue; /* retired: kept in the report */
			}
		}
		if (next_act < st->nacts && act_in_order(st, next_act)->index == index) {
			const struct act *a = act_in_order(st, next_act);
			const struct group *g = &st->groups[a->group];
			struct member m[PLACE_MEMBERS];
			next_act++;
			members_of(st, line, len, place_keys, PLACE_MEMBERS, m);
			rewrite(line, len, m, index, display_pid_text(g, space), g->lane_tid[a->lane],
				&st->line);
			filter_put(f, st->line.p, st->line.len);
			st->relocated++;
		} else if (!move_flow(st, f, line, len, index)) {
			filter_pass(f, line, len);
		}
		index++;
	}
	stream_in_free(&in);
}

static void write_summary(struct state *st)
{
	size_t gi;
	struct buf out = BUF_INIT;
	int fail = 0;

	for (gi = 0; gi < st->groups_by_key.n; gi++) {
		const struct group *g = &st->groups[gi];
		size_t streams;
		free(group_streams(g, &streams));
		if (g->kind == KIND_SCOPE && g->by_device)
			fail |= buf_printf(&out, "pid %s device %s GPU scopes: %zu original streams -> "
					   "%u scope lanes in pid %" PRId64 "\n", g->pid, g->device,
					   streams, g->nlanes, g->display_pid);
		else if (g->kind == KIND_SCOPE)
			fail |= buf_printf(&out, "pid %s GPU scopes: %zu original streams -> %u scope "
					   "lanes in pid %" PRId64 "\n", g->pid, streams, g->nlanes,
					   g->display_pid);
		else
			fail |= buf_printf(&out, "pid %s device %s: %zu original streams -> %u "
					   "synthetic lanes (%" PRIu64 " kernels, %" PRIu64
					   " GPU events)\n", g->pid, g->device, streams, g->nlanes,
					   g->nkernels, g->nacts);
	}
	fail |= buf_printf(&out, "moved: %" PRIu64 " events, %" PRIu64 " flows; retired %" PRIu64
			   " thread metadata events (kept in the report)\n", st->relocated,
			   st->relocated_flows, st->nretired);
	fail |= buf_printf(&out, "notice: %s\n", notice);
	if (fail)
		die_nomem();
	if (write_all(st->summary.fd, out.p, out.len) != 0)
		die_errno(EXIT_TROUBLE, "%s", st->summary_path);
	if (st->summary.path != NULL) {
		if (outfile_commit(&st->summary) != 0) {
			if (errno == EEXIST)
				die(EXIT_TROUBLE, "%s: exists; refusing to overwrite it",
				    st->summary_path);
			die_errno(EXIT_TROUBLE, "%s", st->summary_path);
		}
	} else if (close(st->summary.fd) != 0) {
		die_errno(EXIT_TROUBLE, "%s", st->summary_path);
	}
	buf_release(&out);
}

/* --summary FILE: a file appears whole, after the stream, or not at all, and
 * never replaces one; a /dev/ path (/dev/stderr, the /dev/fd/N of a
 * script's scratch file) is a descriptor the caller gave, written directly. */
static void open_summary(struct state *st)
{
	const char *path = st->summary_path;

	if (strncmp(path, "/dev/", 5) == 0) {
		st->summary.path = NULL;
		st->summary.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (st->summary.fd < 0)
			die_errno(EXIT_TROUBLE, "%s", path);
		return;
	}
	if (outfile_open(&st->summary, path) != 0) {
		if (errno == EEXIST)
			die(EXIT_TROUBLE, "%s: exists; refusing to overwrite it", path);
		die_errno(EXIT_TROUBLE, "%s", path);
	}
}

static void parse_options(int argc, char **argv, struct state *st)
{
	static const struct option longopts[] = {
		{ "max-gpu-lanes", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "summary", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct opt_program prog = { NULL, ":h", longopts, usage_text };
	int ch;

	prog.name = diag_progname();
	st->max_lanes = MAX_LANES;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'n':
			if (opt_i64(&prog, stderr, "--max-gpu-lanes", optarg, 1, MAX_LANES,
				    &st->max_lanes) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'p': st->only_pid = optarg; break;
		case 'd': st->only_device = optarg; break;
		case 's': st->summary_path = optarg; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
}

int main(int argc, char **argv)
{
	struct state st;
	struct filter f;
	struct writer spill;
	const char *line;
	size_t len, i;
	int kind, spill_fd;

	diag_init(argv[0]);
	memset(&st, 0, sizeof st);
	st.tmp = (struct buf)BUF_INIT;
	st.line = (struct buf)BUF_INIT;
	st.key = (struct buf)BUF_INIT;
	st.last_track_key = (struct buf)BUF_INIT;
	parse_options(argc, argv, &st);
	if (st.summary_path != NULL) {
		diag_on_exit(outfile_abort_all);
		outfile_catch_signals();
		open_summary(&st);
	}
	spill_fd = filter_open_spill("tr-compact");
	st.spill_fd = spill_fd;
	if (writer_init(&spill, spill_fd) != 0)
		die_nomem();

	filter_open(&f);
	while ((kind = filter_next(&f, &line, &len)) != LINE_END) {
		if (kind == LINE_HEAD) {
			st.source_name = head_source_name(&st.doc, line, len);
			filter_pass(&f, line, len);
			continue;
		}
		if (kind == LINE_EVENT) {
			see_event(&st, line, len);
			st.events++;
		} else if (kind == LINE_CONTROL && stream_is_kind(line, len, "report") &&
			   find_bytes(line, len, LAYERS_SUFFIX, sizeof LAYERS_SUFFIX - 1) != NULL) {
			st.layers_report = 1;
		}
		if (writer_put(&spill, line, len + 1) != 0)
			die_errno(EXIT_TROUBLE, "temporary file");
	}
	if (writer_flush(&spill) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	writer_free(&spill);
	reader_trim(&f.in.r); /* a long report line must not stay held twice */

	if (st.only_device != NULL)
		resolve_pending(&st);
	if (st.nacts == 0)
		refuse_nothing(&st);
	plan(&st);
	replay(&st, &f, spill_fd);
	filter_close(&f);
	close(spill_fd);
	if (st.summary_path != NULL)
		write_summary(&st);
	for (i = 0; i < st.nguides; i++)
		free(st.guides[i].pid);
	free(st.guides);

	for (i = 0; i < st.tracks_by_key.n; i++) {
		free(st.tracks[i].pid);
		free(st.tracks[i].tid);
	}
	for (i = 0; i < st.groups_by_key.n; i++) {
		unsigned k;
		free(st.groups[i].pid);
		free(st.groups[i].device);
		for (k = 0; k < MAX_LANES; k++)
			free(st.groups[i].counts[k]);
	}
	for (i = 0; i < st.nret; i++)
		free(st.ret[i].text);
	free(st.ret);
	free(st.tracks);
	free(st.groups);
	for (i = 0; i < st.nblocks; i++)
		free(st.blocks[i]);
	free(st.blocks);
	free(st.by_track);
	free(st.track_first);
	free(st.lane_slot);
	intern_free(&st.lane_keys);
	free(st.source_name);
	intern_free(&st.tracks_by_key);
	intern_free(&st.pids);
	intern_free(&st.groups_by_key);
	intern_free(&st.gpu_pids);
	intern_free(&st.gpu_devices);
	intern_free(&st.device_pids);
	free(st.act_order);
	intern_free(&st.seen_cats);
	jdoc_free(&st.doc);
	buf_release(&st.tmp);
	buf_release(&st.line);
	buf_release(&st.key);
	buf_release(&st.last_track_key);
	return EXIT_OK;
}
