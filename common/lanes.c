/* lanes: see lanes.h. */
/* qsort_r, which passes the caller's context to the comparison */
#define _GNU_SOURCE
#include <stdlib.h>

#include "lanes.h"
#include "tsnum.h"

int lanes_bounds(const char *ts, size_t ts_len, const char *dur, size_t dur_len,
		 struct lane_bounds *out)
{
	int64_t ts_ns, dur_ns, pf_ts, pf_dur;
	int ts_sub, dur_sub;

	if (tsnum_us_to_ns(ts, ts_len, &ts_ns, &ts_sub) != NUM_OK ||
	    tsnum_us_to_ns(dur, dur_len, &dur_ns, &dur_sub) != NUM_OK ||
	    tsnum_perfetto_us_to_ns(ts, ts_len, &pf_ts) != NUM_OK ||
	    tsnum_perfetto_us_to_ns(dur, dur_len, &pf_dur) != NUM_OK)
		return LANES_BOUNDS_RANGE;
	if (dur_ns < 0 || pf_dur < 0)
		return LANES_BOUNDS_NEGATIVE;
	out->start_ns = ts_ns;
	/* ceiling of the exact end: sub-ns digits on either side round up */
	out->end_ns = ts_ns + dur_ns + (ts_sub || dur_sub);
	out->lo_pad = pf_ts < out->start_ns ? out->start_ns - pf_ts : 0;
	out->hi_pad = pf_ts + pf_dur > out->end_ns ? pf_ts + pf_dur - out->end_ns : 0;
	out->zero = dur_ns == 0 || pf_dur == 0;
	return LANES_BOUNDS_OK;
}

static int cmp_start(const void *a, const void *b, void *ctx)
{
	const struct lanes_src *src = ctx;
	struct lane_iv x, y;

	src->get(src->ctx, *(const uint32_t *)a, &x);
	src->get(src->ctx, *(const uint32_t *)b, &y);
	if (x.group != y.group)
		return x.group < y.group ? -1 : 1;
	if (x.lo != y.lo)
		return x.lo < y.lo ? -1 : 1;
	return x.index < y.index ? -1 : x.index > y.index;
}

int lanes_assign(const struct lanes_src *src, size_t n, uint32_t *order, unsigned max_lanes,
		 unsigned *group_lanes, struct lanes_refusal *why)
{
	size_t i;
	struct lanes_src sort_src = *src;

	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof *order, cmp_start, &sort_src);
	i = 0;
	while (i < n) {
		struct lane_iv iv;
		uint32_t gid;
		int64_t lane_end[LANES_MAX_OVERLAP];
		int lane_zero[LANES_MAX_OVERLAP];
		unsigned nlanes = 0, peak = 0, k;
		int64_t first_from = 0, first_to = 0;
		int exceeded = 0;

		src->get(src->ctx, order[i], &iv);
		gid = iv.group;
		for (; i < n; i++) {
			src->get(src->ctx, order[i], &iv);
			if (iv.group != gid)
				break;
			for (k = 0; k < nlanes; k++)
				if (lane_end[k] < iv.lo || (lane_end[k] == iv.lo && !lane_zero[k]))
					break;
			if (k == nlanes) {
				if (nlanes == LANES_MAX_OVERLAP) {
					why->group = gid;
					why->peak = nlanes + 1;
					why->from = why->to = 0;
					return LANES_OVERLAP;
				}
				nlanes++;
				if (nlanes > max_lanes && !exceeded) {
					exceeded = 1;
					first_from = iv.lo;
					first_to = iv.hi;
					for (k = 0; k + 1 < nlanes; k++)
						if (lane_end[k] < first_to)
							first_to = lane_end[k];
					k = nlanes - 1;
				}
			}
			lane_end[k] = iv.hi;
			lane_zero[k] = iv.zero;
			src->set_lane(src->ctx, order[i], k);
			if (nlanes > peak)
				peak = nlanes;
		}
		if (exceeded) {
			why->group = gid;
			why->peak = peak;
			why->from = first_from;
			why->to = first_to;
			return LANES_TOO_MANY;
		}
		group_lanes[gid] = nlanes;
	}
	return LANES_OK;
}
