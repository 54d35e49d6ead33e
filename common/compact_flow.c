/* compact_flow: see compact_flow.h. */
/* qsort_r, which passes the caller's context to the comparison */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compact_flow.h"
#include "compact_rewrite.h"
#include "tsnum.h"

static int cmp_track(const void *a, const void *b, void *ctx)
{
	const struct compact *c = ctx;
	const struct compact_act *x = compact_act(c, *(const uint32_t *)a);
	const struct compact_act *y = compact_act(c, *(const uint32_t *)b);

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int compact_flow_index(struct compact *c)
{
	size_t i, k;

	if (c->by_track == NULL)
		c->by_track = malloc((c->nacts + 1) * sizeof *c->by_track);
	c->track_first = malloc((c->tracks_by_key.n + 1) * sizeof *c->track_first);
	if (c->by_track == NULL || c->track_first == NULL)
		return COMPACT_NOMEM;
	for (i = 0; i < c->nacts; i++)
		c->by_track[i] = (uint32_t)i;
	qsort_r(c->by_track, c->nacts, sizeof *c->by_track, cmp_track, c);
	for (i = 0, k = 0; k <= c->tracks_by_key.n; k++) {
		while (i < c->nacts && compact_act(c, c->by_track[i])->track < k)
			i++;
		c->track_first[k] = i;
	}
	return COMPACT_OK;
}

/* First position in by_track whose act is not below (track, corr). */
static size_t lower(const struct compact *c, uint32_t track, int64_t corr)
{
	size_t lo = c->track_first[track], hi = c->track_first[track + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct compact_act *a = compact_act(c, c->by_track[mid]);
		if (a->track < track || (a->track == track && a->corr < corr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int is_primitive(struct member m)
{
	return m.len > 0 && m.p[0] != '"' && m.p[0] != '{' && m.p[0] != '[';
}

static int refused(int fail)
{
	return fail ? COMPACT_NOMEM : COMPACT_REFUSED;
}

int compact_flow_bind(struct compact *c, uint32_t track, uint64_t index, struct member ts,
		      struct member id, const struct compact_act **hit)
{
	int64_t ts_ns, flow_id = COMPACT_NO_CORR;
	int sub, corr_known = 0;
	size_t from, to, k, exact = 0, inside = 0, idn;
	const struct compact_act *hit_exact = NULL, *hit_inside = NULL;
	const char *idraw;

	buf_reset(&c->msg);
	if (!is_primitive(ts))
		return refused(buf_printf(&c->msg, "event %" PRIu64 ": flow on a GPU track "
					     "without a numeric ts", index));
	if (tsnum_us_to_ns(ts.p, ts.len, &ts_ns, &sub) != NUM_OK)
		return refused(buf_printf(&c->msg, "event %" PRIu64 ": flow ts %.*s out of "
					     "range", index, (int)ts.len, ts.p));
	if (!is_primitive(id) || tsnum_parse_int64(id.p, id.len, &flow_id) != NUM_OK)
		flow_id = COMPACT_NO_CORR;
	from = c->track_first[track];
	to = c->track_first[track + 1];
	corr_known = c->tracks[track].has_corr;
	if (corr_known && flow_id != COMPACT_NO_CORR) {
		from = lower(c, track, flow_id);
		to = flow_id == INT64_MAX ? to : lower(c, track, flow_id + 1);
	}
	for (k = from; k < to; k++) {
		const struct compact_act *a = compact_act(c, c->by_track[k]);
		if (corr_known && flow_id != COMPACT_NO_CORR && a->corr != flow_id)
			continue;
		if (a->start_ns == ts_ns && !sub) {
			exact++;
			hit_exact = a;
		} else if (a->start_ns <= ts_ns && ts_ns < a->end_ns) {
			inside++;
			hit_inside = a;
		}
	}
	if (exact == 1) {
		*hit = hit_exact;
		return COMPACT_OK;
	}
	if (exact == 0 && inside == 1) {
		*hit = hit_inside;
		return COMPACT_OK;
	}
	idn = id.len ? id.len : 4;
	idraw = id.len ? id.p : "none";
	return refused(buf_printf(&c->msg, "event %" PRIu64 ": flow (id %.*s, ts %.*s) on pid "
				     "%s tid %s %s; it cannot follow its kernel to a lane", index,
				     (int)idn, idraw, (int)ts.len, ts.p, c->tracks[track].pid,
				     c->tracks[track].tid,
				     exact > 1 ? "starts exactly at several GPU events of its "
				     "correlation" :
				     inside > 1 ? "lies inside several GPU events of its correlation" :
				     "matches no GPU event (same correlation, starting at or "
				     "containing its ts)"));
}

/* The members a flow's move reads, in one walk: pid, tid and args for the
 * rewrite, ts and id for the binding. */
static const char *const flow_keys[] = { "pid", "tid", "args", "ts", "id" };

int compact_flow_move(struct compact *c, const char *line, size_t len, uint64_t index)
{
	struct member m[5];
	const char *ph;
	size_t phlen;
	int64_t track;
	const struct compact_act *a;
	const struct compact_group *g;
	char space[24];
	int rc;

	if (!event_member(line, len, "ph", &ph, &phlen) || phlen != 3 ||
	    (ph[1] != 's' && ph[1] != 't' && ph[1] != 'f'))
		return 0;
	/* most flows are on CPU threads, which stay: look at pid and tid first
	 * (raw keys are the keys when the line holds no backslash) */
	if (memchr(line, '\\', len) == NULL) {
		event_members(line, len, flow_keys, 2, m);
		track = compact_find_track(c, m[0], m[1]);
		if (track < 0 || !c->tracks[track].moved)
			return 0;
	}
	if ((rc = compact_members(c, line, len, flow_keys, 5, m)) != 0)
		return rc;
	track = compact_find_track(c, m[0], m[1]);
	if (track < 0 || !c->tracks[track].moved)
		return 0;
	if ((rc = compact_flow_bind(c, (uint32_t)track, index, m[3], m[4], &a)) != 0)
		return rc;
	g = &c->groups[a->group];
	rc = compact_rewrite(line, len, m, index, compact_display_pid(g, space),
			     g->lane_tid[a->lane], &c->out, &c->msg);
	return rc != 0 ? rc : 1;
}
