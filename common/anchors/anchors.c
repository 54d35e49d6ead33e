/* anchors: see anchors.h. */
#include <stdlib.h>
#include <string.h>

#include "anchors/anchors.h"

int anchors_time_cmp(const struct anchors_time *x, const struct anchors_time *y)
{
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return (x->sub > y->sub) - (x->sub < y->sub);
}

/* The first of the sorted times not below at. */
static size_t lower_bound(const struct anchors_time *v, size_t n, struct anchors_time at)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (anchors_time_cmp(&v[mid], &at) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t anchors_count_between(const struct anchors_time *v, size_t n, struct anchors_time lo,
			     struct anchors_time hi)
{
	size_t a = lower_bound(v, n, lo), b = lower_bound(v, n, hi);

	return b > a ? b - a : 0;
}

int anchors_kernel_cmp(const struct anchors_kernel *x, const struct anchors_kernel *y)
{
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->ts_sub != y->ts_sub)
		return x->ts_sub < y->ts_sub ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Strictly later, exactly: equal floors with digits beyond the nanosecond
 * on both sides cannot be ordered. */
static int strictly_after(const struct anchors_kernel *later, const struct anchors_kernel *earlier)
{
	if (later->ts_ns != earlier->ts_ns)
		return later->ts_ns > earlier->ts_ns;
	return later->ts_sub && !earlier->ts_sub;
}

static int refuse(struct anchors_result *r, enum anchors_status status, size_t at, size_t count)
{
	r->status = status;
	r->at = at;
	r->count = count;
	r->term = (size_t)-1;
	return status;
}

int anchors_choose_group(const struct anchors_where *w, const int *wanted, size_t n,
			 struct anchors_result *r)
{
	size_t i, first = n;
	int several_pids = 0, several_devs = 0;

	for (i = 0; i < n; i++) {
		if (!wanted[i])
			continue;
		if (first == n)
			first = i;
		else if (strcmp(w[first].pid, w[i].pid) != 0)
			several_pids = 1;
		else if (strcmp(w[first].device, w[i].device) != 0)
			several_devs = 1;
	}
	if (first == n)
		return refuse(r, ANCHORS_NO_MATCH, 0, 0);
	if (several_pids)
		return refuse(r, ANCHORS_SEVERAL_PIDS, first, 0);
	if (several_devs)
		return refuse(r, ANCHORS_SEVERAL_DEVICES, first, 0);
	return refuse(r, ANCHORS_OK, first, 0);
}

int anchors_select(const struct anchors_kernel *a, size_t n, size_t offset, size_t need,
		   struct anchors_result *r)
{
	size_t i;

	if (offset >= n || n - offset < need)
		return refuse(r, ANCHORS_TRUNCATED, 0, offset >= n ? 0 : n - offset);
	for (i = offset; i < offset + need; i++) {
		if (!a[i].dur_ok)
			return refuse(r, ANCHORS_NO_DUR, i, 0);
		if (a[i].dur_ns < 0)
			return refuse(r, ANCHORS_NEGATIVE_DUR, i, 0);
		if (i > offset && !strictly_after(&a[i], &a[i - 1]))
			return refuse(r, ANCHORS_NOT_INCREASING, i, 0);
	}
	return refuse(r, ANCHORS_OK, 0, 0);
}

/* The terminals of a: how many, and the last of them.  Both bounds are
 * monotone over the sorted ends (the first starts at or after a's ns, the
 * first not before next): two binary searches, not a walk per anchor. */
static size_t terminals(const struct anchors_kernel *ends, size_t nends,
			const struct anchors_kernel *a, const struct anchors_kernel *next,
			size_t *last)
{
	size_t lo = 0, hi = nends, first, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ends[mid].ts_ns < a->ts_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	hi = nends;
	if (next != NULL)
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (anchors_kernel_cmp(&ends[mid], next) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	end = next != NULL ? lo : nends;
	if (end <= first)
		return 0;
	*last = end - 1;
	return end - first;
}

int anchors_terminal(const struct anchors_kernel *ends, size_t nends,
		     const struct anchors_kernel *a, const struct anchors_kernel *next,
		     struct anchors_result *r)
{
	size_t t = 0, count = terminals(ends, nends, a, next, &t);

	if (count != 1)
		return refuse(r, ANCHORS_TERMINAL_COUNT, 0, count);
	if (!ends[t].dur_ok)
		return refuse(r, ANCHORS_TERMINAL_NO_DUR, t, 1);
	if (ends[t].dur_ns < 0)
		return refuse(r, ANCHORS_TERMINAL_NEGATIVE_DUR, t, 1);
	if (next != NULL && ends[t].ts_ns + ends[t].dur_ns > next->ts_ns)
		return refuse(r, ANCHORS_TERMINAL_PAST_NEXT, t, 1);
	return refuse(r, ANCHORS_OK, t, 1);
}

int anchors_gpu_landmark(const struct anchors_kernel *a, size_t n, size_t offset, size_t need,
			 size_t num_layers, const struct anchors_kernel *ends, size_t nends,
			 const struct anchors_time *marks, size_t nmarks,
			 struct anchors_result *r)
{
	size_t i;

	for (i = 0; i < need; i++) {
		const struct anchors_kernel *x = &a[offset + i];
		struct anchors_time lo = { x->ts_ns, x->ts_sub }, hi;
		size_t term = (size_t)-1, count;

		if (i % num_layers + 1 < num_layers) {
			hi.ns = a[offset + i + 1].ts_ns;
			hi.sub = a[offset + i + 1].ts_sub;
		} else {
			const struct anchors_kernel *next = offset + i + 1 < n ? &a[offset + i + 1] : NULL;
			size_t t = 0;
			if (terminals(ends, nends, x, next, &t) != 1 || !ends[t].dur_ok)
				continue;
			term = t;
			hi.ns = ends[t].ts_ns + ends[t].dur_ns;
			hi.sub = ends[t].ts_sub || ends[t].dur_sub;
		}
		count = anchors_count_between(marks, nmarks, lo, hi);
		if (count != 1) {
			refuse(r, ANCHORS_LANDMARK_COUNT, i, count);
			r->term = term;
			return ANCHORS_LANDMARK_COUNT;
		}
	}
	return refuse(r, ANCHORS_OK, 0, 0);
}

static int cmp_gap(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* The rhythm of the anchors a[from .. to]: their longest gap once the
 * longest tenth of the gaps (at least one, with two gaps or more) is set
 * aside, so that one slow layer does not hide a cut; -1 when there is no
 * gap (to <= from).  scratch holds to - from gaps. */
static int64_t rhythm_of(const struct anchors_kernel *a, size_t from, size_t to, int64_t *scratch)
{
	size_t m = to > from ? to - from : 0, i, drop;

	if (m == 0)
		return -1;
	for (i = 0; i < m; i++)
		scratch[i] = a[from + i + 1].ts_ns - a[from + i].ts_ns;
	qsort(scratch, m, sizeof *scratch, cmp_gap);
	drop = m < 2 ? 0 : m / 10 > 1 ? m / 10 : 1;
	return scratch[m - 1 - drop];
}

/* A gap at the rhythm: no longer than 5/4 of the shorter rhythm of the
 * sides that have one.  gap <= m + m / 4 is 4 gap <= 5 m for integers,
 * without the overflow of 5 m (m < 2^63, so m + m / 4 < 2^64). */
static int at_rhythm(int64_t gap, const int64_t rhythm[2])
{
	int64_t m = rhythm[0] < 0 ? rhythm[1] : rhythm[1] < 0 ? rhythm[0] :
		    rhythm[0] < rhythm[1] ? rhythm[0] : rhythm[1];
	uint64_t um = (uint64_t)m;

	if (m < 0)
		return 0;
	return gap < 0 || (uint64_t)gap <= um + um / 4;
}

static int cut(struct anchors_shape *sh, struct anchors_result *r, enum anchors_boundary where,
	       size_t pass, const struct anchors_kernel *a, size_t left, int64_t l, int64_t rr)
{
	sh->where = where;
	sh->pass = pass;
	sh->left = left;
	sh->right = left + 1;
	sh->gap = a[left + 1].ts_ns - a[left].ts_ns;
	sh->rhythm[0] = l;
	sh->rhythm[1] = rr;
	if (!at_rhythm(sh->gap, sh->rhythm))
		return 0;
	refuse(r, ANCHORS_PASS_CUT, left + 1, pass);
	return 1;
}

int anchors_pass_shape(const struct anchors_kernel *a, size_t n, size_t offset,
		       size_t num_layers, size_t passes, int64_t *scratch,
		       struct anchors_shape *sh, struct anchors_result *r)
{
	size_t N = num_layers, end = offset + num_layers * passes, p;

	memset(sh, 0, sizeof *sh);
	if (N < 2)
		return refuse(r, ANCHORS_OK, 0, 0);
	/* the matches before: the up to N - 1 gaps that end at a[offset - 1] */
	if (offset > 0 &&
	    cut(sh, r, ANCHORS_BEFORE, 0, a, offset - 1,
		rhythm_of(a, offset - 1 >= N - 1 ? offset - N : 0, offset - 1, scratch),
		rhythm_of(a, offset, offset + N - 1, scratch)))
		return ANCHORS_PASS_CUT;
	for (p = 0; p + 1 < passes; p++) {
		size_t last = offset + (p + 1) * N - 1;
		if (cut(sh, r, ANCHORS_BETWEEN, p, a, last, rhythm_of(a, last + 1 - N, last, scratch),
			rhythm_of(a, last + 1, last + N, scratch)))
			return ANCHORS_PASS_CUT;
	}
	/* the matches after: the up to N - 1 gaps that start at a[end] */
	if (end < n &&
	    cut(sh, r, ANCHORS_AFTER, passes - 1, a, end - 1, rhythm_of(a, end - N, end - 1, scratch),
		rhythm_of(a, end, n - end > N - 1 ? end + N - 1 : n - 1, scratch)))
		return ANCHORS_PASS_CUT;
	memset(sh, 0, sizeof *sh);
	return refuse(r, ANCHORS_OK, 0, 0);
}

int anchors_steps(const struct anchors_kernel *a, size_t offset, size_t num_layers,
		  size_t passes, const struct anchors_time *steps, size_t nsteps,
		  struct anchors_result *r)
{
	size_t p;

	for (p = 0; p < passes && nsteps > 0; p++) {
		const struct anchors_kernel *first = &a[offset + p * num_layers];
		const struct anchors_kernel *last = first + num_layers - 1;
		struct anchors_time lo = { first->ts_ns, first->ts_sub };
		/* the first step not before the first anchor; one at it agrees */
		size_t i = lower_bound(steps, nsteps, lo);
		if (i < nsteps && anchors_time_cmp(&steps[i], &lo) == 0)
			i++;
		if (i < nsteps) {
			struct anchors_time hi = { last->ts_ns, last->ts_sub };
			if (anchors_time_cmp(&steps[i], &hi) <= 0)
				return refuse(r, ANCHORS_STEP_INSIDE, i, p);
		}
	}
	return refuse(r, ANCHORS_OK, 0, 0);
}
