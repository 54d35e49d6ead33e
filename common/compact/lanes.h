/* lanes: pack intervals into non-overlapping display lanes, as tr-compact
 * draws GPU activity, with bounds that Perfetto will not disturb.
 * Library code: it returns a status and never prints or exits; the caller
 * words the refusal.
 *
 * Intervals are grouped (one group per pid and device); each group is
 * packed on its own by greedy interval partitioning in start order, lowest
 * free lane first, so that its lane count equals its peak concurrency. */
#ifndef TR_LANES_H
#define TR_LANES_H

#include <stddef.h>
#include <stdint.h>

/* More intervals than this overlapping at once is refused outright (the
 * lanes are counted only for the refusal message). */
#define LANES_MAX_OVERLAP 4096

/* The bounds of one X event, from the raw text of its ts and dur (in us):
 * the exact ones (ns, start floored, end ceiled) and how far Perfetto's
 * double conversion moves them outwards. */
struct lane_bounds {
	int64_t start_ns, end_ns;
	int64_t lo_pad, hi_pad;   /* >= 0: Perfetto starts this much earlier, ends later */
	int zero;                 /* zero length, exactly or in Perfetto */
};

enum lanes_bounds_status { LANES_BOUNDS_OK = 0, LANES_BOUNDS_RANGE = -1, LANES_BOUNDS_NEGATIVE = -2 };

/* tsnum_us_to_ns's exact nanoseconds (floor) of a number in microseconds
 * and whether digits below a nanosecond were dropped, read in one pass when
 * the text is plain ("D" or "D.F"): 0, or -1 where tsnum_us_to_ns refuses
 * the text. */
int lanes_us_to_ns(const char *text, size_t len, int64_t *ns, int *sub);

/* LANES_BOUNDS_RANGE: ts or dur is not a number or out of range;
 * LANES_BOUNDS_NEGATIVE: dur is negative.  *out is set only on success. */
int lanes_bounds(const char *ts, size_t ts_len, const char *dur, size_t dur_len,
		 struct lane_bounds *out);

enum lanes_status {
	LANES_OK = 0,
	LANES_TOO_MANY = 1,   /* a group needs more than max_lanes lanes */
	LANES_OVERLAP = 2,    /* more than LANES_MAX_OVERLAP intervals overlap */
};

/* Where a group was refused: its peak concurrency and the first span in
 * which max_lanes is exceeded (from the start of the interval that needs
 * lane max_lanes + 1 to the earliest end among the lanes it overlaps). */
struct lanes_refusal {
	uint32_t group;
	unsigned peak;
	int64_t from, to;
};

/* The packer, fed one group at a time with the group's intervals in start
 * order (ties of the start in source order), so that it holds only the
 * lanes' ends, never the intervals:
 *
 *	k = lanes_pack_new(max_lanes);
 *	for each group g: lanes_begin(k, g);
 *		for each interval: lanes_next(k, lo, hi, zero, &lane);
 *		lanes_end(k, &nlanes, &why);
 *	lanes_pack_free(k);
 *
 * An interval is [lo, hi], the union of the exact and Perfetto's bounds
 * (lane_bounds).  Touching is fine, except after a zero-length interval:
 * Perfetto sorts a longer slice with the same ts first and would nest the
 * zero-length one under it. */
struct lanes_pack;

/* NULL when out of memory. */
struct lanes_pack *lanes_pack_new(unsigned max_lanes);
void lanes_pack_free(struct lanes_pack *k);

/* Starts group `group` afresh: no lanes in use. */
void lanes_begin(struct lanes_pack *k, uint32_t group);

/* The group's next interval: its lane in *lane, the lowest one free.
 * LANES_OK; LANES_TOO_MANY once the group has needed more than max_lanes
 * lanes (the lanes go on being counted for the peak, and the group will be
 * refused); LANES_OVERLAP, *lane unset, when LANES_MAX_OVERLAP lanes are
 * all in use (stop feeding the group: lanes_end says why). */
int lanes_next(struct lanes_pack *k, int64_t lo, int64_t hi, int zero, unsigned *lane);

/* The group is done: LANES_OK with its lane count in *nlanes, or the
 * refusal (LANES_TOO_MANY or LANES_OVERLAP) with *why filled (peak, from
 * and to for LANES_TOO_MANY only; for LANES_OVERLAP the peak is
 * LANES_MAX_OVERLAP + 1). */
int lanes_end(const struct lanes_pack *k, unsigned *nlanes, struct lanes_refusal *why);

#endif
