/* compact_flow: see compact_flow.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact_flow.h"
#include "compact/compact_impl.h"
#include "compact/compact_rewrite.h"
#include "json/tsnum.h"

/* The join's key is (correlation, track), correlation first: correlations
 * grow with time, so that the records (made in start order) and the flows
 * (in source order) reach their sorts nearly in order, which costs the
 * sorts about a pass, where the track first would interleave the streams.
 * The matches of one key do not depend on the order of the keys. */
int compact_flow_cmp_act(const void *a, const void *b)
{
	const struct compact_act *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int compact_flow_cmp_flow(const void *a, const void *b)
{
	const struct compact_flow_rec *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* (corr, track) of a record against (id, track) of a flow. */
static int cmp_key(const struct compact_act *a, const struct compact_flow_rec *f)
{
	if (a->corr != f->id)
		return a->corr < f->id ? -1 : 1;
	if (a->track != f->track)
		return a->track < f->track ? -1 : 1;
	return 0;
}

/* The join's state: the next record and the records of the current key
 * that may still bind a later flow. */
struct join {
	struct extsort *acts;
	struct compact_act next;
	int have_next;
	struct compact_act *active;
	size_t nactive, cap;
};

static int join_advance(struct join *j)
{
	const void *p;
	int rc = extsort_next(j->acts, &p);

	if (rc < 0)
		return COMPACT_SYSTEM;
	j->have_next = rc == 1;
	if (rc == 1)
		memcpy(&j->next, p, sizeof j->next);
	return COMPACT_OK;
}

static int join_push(struct join *j)
{
	if (j->nactive == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 16;
		struct compact_act *p = realloc(j->active, cap * sizeof *p);
		if (p == NULL)
			return COMPACT_NOMEM;
		j->active = p;
		j->cap = cap;
	}
	j->active[j->nactive++] = j->next;
	return join_advance(j);
}

/* One flow against the join: its result. */
static int join_flow(struct join *j, const struct compact_flow_rec *f, int new_key,
		     struct compact_flow_hit *out)
{
	int64_t ts = f->ts_ns;
	size_t k, w, exact = 0, inside = 0;
	const struct compact_act *hit_exact = NULL, *hit_inside = NULL;
	int rc;

	if (new_key) {
		j->nactive = 0;
		while (j->have_next && cmp_key(&j->next, f) < 0)
			if ((rc = join_advance(j)) != 0)
				return rc;
	}
	while (j->have_next && cmp_key(&j->next, f) == 0 && j->next.start_ns <= ts)
		if ((rc = join_push(j)) != 0)
			return rc;
	/* flows come in ts order: a record that ended before ts and started
	 * before it can match no later flow */
	for (k = 0, w = 0; k < j->nactive; k++) {
		const struct compact_act *a = &j->active[k];
		if (a->end_ns <= ts && a->start_ns < ts)
			continue;
		j->active[w++] = *a;
	}
	j->nactive = w;
	for (k = 0; k < j->nactive; k++) {
		const struct compact_act *a = &j->active[k];
		if (a->start_ns == ts && !f->sub) {
			exact++;
			hit_exact = a;
		} else if (a->start_ns <= ts && ts < a->end_ns) {
			inside++;
			hit_inside = a;
		}
	}
	memset(out, 0, sizeof *out);
	out->index = f->index;
	out->track = f->track;
	if (exact == 1 || (exact == 0 && inside == 1)) {
		const struct compact_act *a = exact == 1 ? hit_exact : hit_inside;
		out->status = COMPACT_BIND_HIT;
		out->group = a->group;
		out->lane = a->lane;
	} else {
		out->status = exact > 1 ? COMPACT_BIND_EXACT_MANY :
			      inside > 1 ? COMPACT_BIND_INSIDE_MANY : COMPACT_BIND_NONE;
	}
	return COMPACT_OK;
}

static int join_all(struct compact *c, struct extsort *flows, struct extsort *acts)
{
	struct join j;
	struct compact_flow_rec f, prev;
	struct compact_flow_hit hit;
	const void *p;
	int rc, have_prev = 0, got;

	memset(&j, 0, sizeof j);
	j.acts = acts;
	if (extsort_finish(flows) != 0 || extsort_finish(acts) != 0)
		return COMPACT_SYSTEM;
	rc = join_advance(&j);
	while (rc == COMPACT_OK && (got = extsort_next(flows, &p)) != 0) {
		if (got < 0) {
			rc = COMPACT_SYSTEM;
			break;
		}
		memcpy(&f, p, sizeof f);
		rc = join_flow(&j, &f, !have_prev || prev.track != f.track || prev.id != f.id,
			       &hit);
		if (rc == COMPACT_OK && extsort_put(&c->bindings, &hit) != 0)
			rc = COMPACT_SYSTEM;
		prev = f;
		have_prev = 1;
	}
	free(j.active);
	return rc;
}

int compact_flow_bind_all(struct compact *c, struct extsort *by_corr,
			  struct extsort *by_start)
{
	struct extsort keyed, unkeyed;
	const void *p;
	int got, rc = COMPACT_OK;

	if (extsort_init(&keyed, sizeof(struct compact_flow_rec), COMPACT_RUN_BYTES,
			      compact_flow_cmp_flow, "tr-compact") != 0 ||
	    extsort_init(&unkeyed, sizeof(struct compact_flow_rec), COMPACT_RUN_BYTES,
			      compact_flow_cmp_flow, "tr-compact") != 0)
		return COMPACT_NOMEM;
	if (extsort_finish(&c->flows) != 0)
		rc = COMPACT_SYSTEM;
	while (rc == COMPACT_OK && (got = extsort_next(&c->flows, &p)) != 0) {
		struct compact_flow_rec f;
		const struct compact_track *t;
		if (got < 0) {
			rc = COMPACT_SYSTEM;
			break;
		}
		memcpy(&f, p, sizeof f);
		t = &c->tracks[f.track];
		if (!t->moved && f.status != COMPACT_FLOW_UNPARSED)
			continue;
		if (f.status != COMPACT_FLOW_OK) {
			struct compact_flow_hit hit;
			memset(&hit, 0, sizeof hit);
			hit.index = f.index;
			hit.track = f.track;
			hit.status = f.status == COMPACT_FLOW_TS_TEXT ? COMPACT_BIND_TS_TEXT :
				     f.status == COMPACT_FLOW_TS_RANGE ? COMPACT_BIND_TS_RANGE :
				     COMPACT_BIND_UNPARSED;
			if (extsort_put(&c->bindings, &hit) != 0)
				rc = COMPACT_SYSTEM;
			continue;
		}
		if (!t->has_corr)
			f.id = COMPACT_NO_CORR; /* any record of the track */
		if (t->has_corr && f.id == COMPACT_NO_CORR) {
			f.id = 0; /* by_start's records all have corr 0 */
			if (extsort_put(&unkeyed, &f) != 0)
				rc = COMPACT_SYSTEM;
		} else if (extsort_put(&keyed, &f) != 0) {
			rc = COMPACT_SYSTEM;
		}
	}
	if (rc == COMPACT_OK)
		rc = join_all(c, &keyed, by_corr);
	if (rc == COMPACT_OK && unkeyed.count > 0)
		rc = by_start != NULL ? join_all(c, &unkeyed, by_start) : COMPACT_NOMEM;
	extsort_free(&keyed);
	extsort_free(&unkeyed);
	return rc;
}

static int refused(int fail)
{
	return fail ? COMPACT_NOMEM : COMPACT_REFUSED;
}

/* The members a flow's move reads, in one walk: pid, tid and args for the
 * rewrite, ts and id for the refusals. */
static const char *const flow_keys[] = { "pid", "tid", "args", "ts", "id" };

int compact_flow_place(struct compact *c, const char *line, size_t len, uint64_t index,
		       const struct compact_flow_hit *hit, const struct member *known)
{
	const struct compact_track *t = &c->tracks[hit->track];
	const struct compact_group *g;
	struct member m[5];
	struct member ts, id;
	char space[24];
	const char *idraw;
	size_t idn;
	int rc;

	if (known != NULL && hit->status == COMPACT_BIND_HIT) {
		g = &c->groups[hit->group];
		return compact_rewrite(line, len, known, index, compact_display_pid(g, space),
				       g->lane_tid[hit->lane], &c->out, &c->msg);
	}
	if ((rc = compact_members(c, line, len, flow_keys, 5, m)) != 0)
		return rc;
	ts = m[3];
	id = m[4];
	buf_reset(&c->msg);
	switch (hit->status) {
	case COMPACT_BIND_HIT:
		g = &c->groups[hit->group];
		return compact_rewrite(line, len, m, index, compact_display_pid(g, space),
				       g->lane_tid[hit->lane], &c->out, &c->msg);
	case COMPACT_BIND_TS_TEXT:
		return refused(buf_printf(&c->msg, "event %" PRIu64 ": flow on a GPU track "
					     "without a numeric ts", index));
	case COMPACT_BIND_TS_RANGE:
		return refused(buf_printf(&c->msg, "event %" PRIu64 ": flow ts %.*s out of "
					     "range", index, (int)ts.len, ts.p));
	case COMPACT_BIND_UNPARSED:
		return refused(buf_printf(&c->msg, "event %" PRIu64 ": not a JSON object",
					     c->events));
	default:
		break;
	}
	idn = id.len ? id.len : 4;
	idraw = id.len ? id.p : "none";
	return refused(buf_printf(&c->msg, "event %" PRIu64 ": flow (id %.*s, ts %.*s) on pid "
				     "%s tid %s %s; it cannot follow its kernel to a lane", index,
				     (int)idn, idraw, (int)ts.len, ts.p, t->pid, t->tid,
				     hit->status == COMPACT_BIND_EXACT_MANY ? "starts exactly at several "
				     "GPU events of its correlation" :
				     hit->status == COMPACT_BIND_INSIDE_MANY ? "lies inside several GPU "
				     "events of its correlation" :
				     "matches no GPU event (same correlation, starting at or "
				     "containing its ts)"));
}
