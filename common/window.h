/* window: the arithmetic of tr-window(1) and tr-verify --window: exact
 * durations from decimal text, event intervals in half nanoseconds, and the
 * overlap and containment rules that decide what a window keeps.
 *
 * Times are int64 "half nanoseconds": 2 x the floor of the exact value in
 * ns, plus 1 when the text has digits beyond the nanosecond (the exact value
 * then lies strictly between two whole ns).  Compared with a whole-ns
 * window endpoint (also doubled) this gives the exact answer without a
 * double anywhere.  Library code: returns a status, never prints. */
#ifndef TR_WINDOW_H
#define TR_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/* A decimal duration ("2", "1.5", "0.000001") with an optional unit "ns",
 * "us", "ms" or "s" (default_unit_ns when none, e.g. 1000000 for ms) ->
 * whole nanoseconds, exactly.  Refused (-1): a sign, an exponent, empty
 * text, digits below the nanosecond, a value beyond 2^62 ns. */
int window_parse_dur(const char *text, int64_t default_unit_ns, int64_t *ns);

/* "A-B" or "A" (then B = A), non-negative integers with A <= B; 0 or -1. */
int window_parse_range(const char *text, int64_t *a, int64_t *b);

/* The interval of an event from the raw texts of its ts and dur members
 * (dur may be NULL/0 for none; string values such as "12.5" are read
 * inside their quotes): *lo and *hi in half ns.  When both ts and dur have
 * digits beyond the ns the end is uncertain by one ns; *hi is then its
 * upper bound, so that a doubtful event is kept rather than lost.
 * 0, or -1 when ts is absent or not a number (or dur is present and not a
 * non-negative number). */
int window_interval(const char *ts, size_t tn, const char *dur, size_t dn,
		    int64_t *lo, int64_t *hi);

/* Half ns of a whole-ns value (saturating at the int64 range). */
int64_t window_half(int64_t ns);

/* [lo, hi] overlaps the closed window [w0, w1] (all in half ns): touching
 * counts. */
int window_overlaps(int64_t lo, int64_t hi, int64_t w0, int64_t w1);
/* [lo, hi] lies inside [w0, w1]. */
int window_contains(int64_t lo, int64_t hi, int64_t w0, int64_t w1);

/* The categories a window counts, by the event's ph. */
enum window_cat {
	WCAT_COMPLETE,   /* X */
	WCAT_DURATION,   /* B, E (matched per thread, kept whole) */
	WCAT_INSTANT,    /* i, I, R */
	WCAT_COUNTER,    /* C */
	WCAT_METADATA,   /* M */
	WCAT_FLOW,       /* s, t, f */
	WCAT_ASYNC,      /* b, e, n, S, T, p, F */
	WCAT_OTHER,      /* anything else, and events without ph */
	WCAT_N
};
enum window_cat window_category(const char *ph, size_t n);
const char *window_category_name(enum window_cat c);

#endif
