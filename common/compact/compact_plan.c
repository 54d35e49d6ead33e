/* compact_plan: between the passes of compact.h: lanes, ids, guides, the flow index. */
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

#define MAX_LISTED 10       /* pids or categories named in a message */

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
			rc = compact_scan_add_act(c, p, (size_t)(end - p), track, COMPACT_SCOPE, 0, NULL);
		else
			compact_scan_note_other(c, track);
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
		if (compact_room((void **)&c->lane_slot, (size_t)id, &c->lane_slot_cap, 64,
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
int compact_plan_next_lane(struct compact *c)
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

int compact_plan_next_offsets(struct compact *c)
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

int compact_plan_next_bind(struct compact *c)
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
		rc = compact_plan_next_offsets(c);
	if (rc == COMPACT_OK)
		rc = compact_plan_next_lane(c);
	if (rc == COMPACT_OK)
		rc = compact_plan_next_bind(c);
	return rc;
}
