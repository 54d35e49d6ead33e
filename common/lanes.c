/* lanes: see lanes.h. */
/* qsort_r, which passes the caller's context to the comparison */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>

#include "lanes.h"
#include "tsnum.h"

/* The digits most timestamps are written with (Kineto's "123.456"): at
 * most this many before the point, so that the integer part and its
 * nanoseconds fit int64 and a double exactly, ... */
#define PLAIN_INT_DIGITS 15
/* ... and at most this many after it, so that Perfetto's fraction (its
 * digits over a power of ten) neither wraps nor loses its divisor. */
#define PLAIN_FRAC_DIGITS 9

/* A number in microseconds in the plain form "D" or "D.F" (JSON digits, no
 * sign, no exponent; D and F within the bounds above) converted twice in one
 * pass, with the results of tsnum_us_to_ns (*ns, *sub) and of
 * tsnum_perfetto_us_to_ns (*pf) -- Perfetto's StringToInt64, or its
 * StringToDouble (integer part plus the fraction's digits over their power
 * of ten) and CoerceToTs (whole: times 1000; else llround of the value
 * times 1000), done the same way in the same double arithmetic; pf NULL:
 * the exact value alone (a flow's ts needs no more).  1, or 0 for any
 * other text, which the tsnum functions convert instead. */
static int plain_us_to_ns(const char *text, size_t len, int64_t *ns, int *sub, int64_t *pf)
{
	size_t i = 0, int_end, frac_end;
	int64_t int_part = 0, frac = 0, divisor = 1, first3 = 0;
	int below = 0;

	while (i < len && text[i] >= '0' && text[i] <= '9') {
		if (i == PLAIN_INT_DIGITS)
			return 0;  /* before the digit could overflow int_part */
		int_part = int_part * 10 + (text[i++] - '0');
	}
	int_end = i;
	if (int_end == 0 || int_end > PLAIN_INT_DIGITS || (text[0] == '0' && int_end > 1))
		return 0;
	if (i == len) {
		*ns = int_part * 1000;
		*sub = 0;
		if (pf != NULL)
			*pf = *ns;
		return 1;
	}
	if (text[i++] != '.')
		return 0;
	for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
		int d = text[i] - '0';
		frac = frac * 10 + d;
		divisor *= 10;
		if (i - int_end <= 3)
			first3 = first3 * 10 + d;
		else if (d != 0)
			below = 1;
	}
	frac_end = i;
	if (frac_end != len || frac_end == int_end + 1 ||
	    frac_end - int_end - 1 > PLAIN_FRAC_DIGITS)
		return 0;
	for (i = frac_end - int_end - 1; i < 3; i++)
		first3 *= 10;
	*ns = int_part * 1000 + first3;
	*sub = below;
	if (pf != NULL) {
		double value = (double)int_part + (double)frac / (double)divisor;
		if (value == trunc(value))
			*pf = (int64_t)value * 1000;
		else
			*pf = (int64_t)llround(value * 1000.0);
	}
	return 1;
}

static int in_range(int64_t ns)
{
	return ns <= TSNUM_MAX_NS && ns >= -TSNUM_MAX_NS;
}

int lanes_us_to_ns(const char *text, size_t len, int64_t *ns, int *sub)
{
	if (plain_us_to_ns(text, len, ns, sub, NULL))
		return 0;
	return tsnum_us_to_ns(text, len, ns, sub) == NUM_OK && in_range(*ns) ? 0 : -1;
}

/* A number in microseconds as tsnum_us_to_ns and tsnum_perfetto_us_to_ns
 * read it: 0, or -1 when either refuses it. */
static int us_to_ns(const char *text, size_t len, int64_t *ns, int *sub, int64_t *pf)
{
	if (plain_us_to_ns(text, len, ns, sub, pf))
		return 0;
	if (tsnum_us_to_ns(text, len, ns, sub) != NUM_OK ||
	    tsnum_perfetto_us_to_ns(text, len, pf) != NUM_OK)
		return -1;
	return 0;
}

int lanes_bounds(const char *ts, size_t ts_len, const char *dur, size_t dur_len,
		 struct lane_bounds *out)
{
	int64_t ts_ns, dur_ns, pf_ts, pf_dur;
	int ts_sub, dur_sub;

	if (us_to_ns(ts, ts_len, &ts_ns, &ts_sub, &pf_ts) != 0 ||
	    us_to_ns(dur, dur_len, &dur_ns, &dur_sub, &pf_dur) != 0)
		return LANES_BOUNDS_RANGE;
	if (dur_ns < 0 || pf_dur < 0)
		return LANES_BOUNDS_NEGATIVE;
	/* each within the range, the sums below cannot overflow; the ends
	 * must be within it too, for the pads and the lanes' comparisons */
	if (!in_range(ts_ns) || !in_range(pf_ts) || !in_range(dur_ns) || !in_range(pf_dur) ||
	    !in_range(ts_ns + dur_ns + (ts_sub || dur_sub)) || !in_range(pf_ts + pf_dur))
		return LANES_BOUNDS_RANGE;
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
