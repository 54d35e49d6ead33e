/* compact: see compact.h; the state, its options and what callers read of
 * it, its tracks and groups, and compact_state.h's helpers (the passes are
 * compact_scan.c, compact_plan.c and compact_place.c). */
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

/* Room for one more item in a growing array: 0 or COMPACT_NOMEM. */
int compact_room(void **items, size_t n, size_t *cap, size_t first, size_t elem)
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

static void compact_init(struct compact *c)
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

struct compact *compact_new(void)
{
	struct compact *c = malloc(sizeof *c);

	if (c != NULL)
		compact_init(c);
	return c;
}

void compact_set_max_lanes(struct compact *c, int64_t max_lanes)
{
	c->max_lanes = max_lanes;
}

void compact_set_pid(struct compact *c, const char *pid)
{
	c->only_pid = pid;
}

void compact_set_device(struct compact *c, const char *device)
{
	c->only_device = device;
}

void compact_set_source(struct compact *c, char *source_name)
{
	free(c->source_name);
	c->source_name = source_name;
}

void compact_set_layers_report(struct compact *c, int on)
{
	c->layers_report = on;
}

const char *compact_message(const struct compact *c)
{
	return c->msg.len > 0 ? c->msg.p : "";
}

void compact_get_stats(const struct compact *c, struct compact_stats *out)
{
	memset(out, 0, sizeof *out);
	out->events = c->events;
	out->activities = c->nacts;
	out->pending_scopes = c->npending;
	out->track_metadata = c->nret;
	out->members_noted = c->offsets.count;
	out->records_held = c->acts.n;
	out->runs_written = c->acts.nspilled;
	out->relocated = c->relocated;
	out->relocated_flows = c->relocated_flows;
	out->retired = c->nretired;
	out->new_metadata = c->new_metadata;
}

size_t compact_ngroups(const struct compact *c)
{
	return c->groups_by_key.n;
}

int compact_group_info(const struct compact *c, size_t i, struct compact_group_info *out)
{
	const struct compact_group *g;

	if (i >= c->groups_by_key.n)
		return -1;
	g = &c->groups[i];
	memset(out, 0, sizeof *out);
	out->pid = g->pid;
	out->device = g->device;
	out->kind = g->kind;
	out->display_pid = g->display_pid;
	out->activities = g->nacts;
	out->kernels = g->nkernels;
	out->nlanes = g->nlanes;
	memcpy(out->lane_tid, g->lane_tid, sizeof out->lane_tid);
	return 0;
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
int compact_track_of(struct compact *c, const char *pid, size_t plen, const char *tid,
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
	if (id < 0 || compact_room((void **)&c->tracks, (size_t)id, &c->ntracks_cap, 64,
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

int compact_group_of(struct compact *c, const struct compact_track *t, const char *dev,
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
	if (id < 0 || compact_room((void **)&c->groups, (size_t)id, &c->ngroups_cap, 16,
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

void compact_free(struct compact *c)
{
	size_t i;
	unsigned k;

	if (c == NULL)
		return;
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
	free(c);
}

/* The helpers of compact_state.h. */
int compact_refuse(struct compact *c, const char *fmt, ...)
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

const char *compact_display_pid(const struct compact_group *g, char *space)
{
	if (g->display_pid < 0)
		return g->pid;
	snprintf(space, 24, "%" PRId64, g->display_pid);
	return space;
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
		return compact_refuse(c, "event %" PRIu64 ": not a JSON object", c->events);
	for (k = 0; k < n; k++) {
		int tok = json_find(d, 0, keys[k]);
		out[k].p = NULL;
		out[k].len = 0;
		if (tok >= 0)
			out[k].p = json_raw(d, tok, &out[k].len);
	}
	return COMPACT_OK;
}
