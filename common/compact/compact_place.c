/* compact_place: pass two of compact.h, per event. */
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
		if ((rc = compact_plan_next_offsets(c)) != 0)
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
		    (rc = compact_plan_next_lane(c)) != 0)
			return rc;
		c->relocated++;
	} else if (c->have_bind && c->next_bind.index == index) {
		if ((rc = offsets_at(c, line, len, index, m, &known)) != 0 ||
		    (rc = compact_flow_place(c, line, len, index, &c->next_bind,
					     known ? m : NULL)) != 0 ||
		    (rc = compact_plan_next_bind(c)) != 0)
			return rc;
		c->relocated_flows++;
	} else {
		return COMPACT_OK;
	}
	*out_line = c->out.p;
	*out_len = c->out.len;
	return COMPACT_OK;
}
