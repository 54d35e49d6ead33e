/* lanes: see lanes.h. */
#include <math.h>
#include <stdlib.h>

#include "compact/lanes.h"
#include "json/tsnum.h"

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

struct lanes_pack {
	unsigned max_lanes;
	uint32_t group;
	unsigned nlanes, peak;
	int exceeded, overlap;
	int64_t first_from, first_to;
	int64_t lane_end[LANES_MAX_OVERLAP];
	unsigned char lane_zero[LANES_MAX_OVERLAP];
};

struct lanes_pack *lanes_pack_new(unsigned max_lanes)
{
	struct lanes_pack *k = malloc(sizeof *k);

	if (k != NULL) {
		k->max_lanes = max_lanes;
		lanes_begin(k, 0);
	}
	return k;
}

void lanes_pack_free(struct lanes_pack *k)
{
	free(k);
}

void lanes_begin(struct lanes_pack *k, uint32_t group)
{
	k->group = group;
	k->nlanes = k->peak = 0;
	k->exceeded = k->overlap = 0;
	k->first_from = k->first_to = 0;
}

int lanes_next(struct lanes_pack *k, int64_t lo, int64_t hi, int zero, unsigned *lane)
{
	unsigned l;

	for (l = 0; l < k->nlanes; l++)
		if (k->lane_end[l] < lo || (k->lane_end[l] == lo && !k->lane_zero[l]))
			break;
	if (l == k->nlanes) {
		if (k->nlanes == LANES_MAX_OVERLAP) {
			k->overlap = 1;
			return LANES_OVERLAP;
		}
		k->nlanes++;
		if (k->nlanes > k->max_lanes && !k->exceeded) {
			k->exceeded = 1;
			k->first_from = lo;
			k->first_to = hi;
			for (l = 0; l + 1 < k->nlanes; l++)
				if (k->lane_end[l] < k->first_to)
					k->first_to = k->lane_end[l];
			l = k->nlanes - 1;
		}
	}
	k->lane_end[l] = hi;
	k->lane_zero[l] = zero != 0;
	*lane = l;
	if (k->nlanes > k->peak)
		k->peak = k->nlanes;
	return k->exceeded ? LANES_TOO_MANY : LANES_OK;
}

int lanes_end(const struct lanes_pack *k, unsigned *nlanes, struct lanes_refusal *why)
{
	if (k->overlap) {
		why->group = k->group;
		why->peak = LANES_MAX_OVERLAP + 1;
		why->from = why->to = 0;
		return LANES_OVERLAP;
	}
	if (k->exceeded) {
		why->group = k->group;
		why->peak = k->peak;
		why->from = k->first_from;
		why->to = k->first_to;
		return LANES_TOO_MANY;
	}
	*nlanes = k->nlanes;
	return LANES_OK;
}
