/* anchors: the rules by which tr-select-anchors accepts a selection of
 * anchor kernels, their terminals (--end-anchor-regex) and a GPU landmark
 * (--confirm-regex): each check returns a status that names the refusal
 * and, in struct anchors_result, its evidence.
 * Library code: it returns a status and never prints or exits; the caller
 * words the refusal with the texts it kept. */
#ifndef TR_ANCHORS_H
#define TR_ANCHORS_H

#include <stddef.h>
#include <stdint.h>

/* A time at nanosecond resolution; sub: digits beyond the nanosecond (the
 * exact time lies strictly between ns and ns + 1). */
struct anchors_time {
	int64_t ns;
	int sub;
};

int anchors_time_cmp(const struct anchors_time *x, const struct anchors_time *y);
/* How many of the sorted times v[0..n) lie in [lo, hi). */
size_t anchors_count_between(const struct anchors_time *v, size_t n, struct anchors_time lo,
			     struct anchors_time hi);

/* What the rules need of a matching kernel. */
struct anchors_kernel {
	uint64_t index;        /* position among the input events */
	int64_t ts_ns, dur_ns;
	unsigned char ts_sub, dur_sub;
	unsigned char dur_ok;  /* dur is a JSON number */
	uint32_t ref;          /* the caller's (the rules never read it) */
};

/* Time order: ts, then digits beyond the ns, then source order. */
int anchors_kernel_cmp(const struct anchors_kernel *x, const struct anchors_kernel *y);

enum anchors_status {
	ANCHORS_OK = 0,
	ANCHORS_NO_MATCH,           /* no wanted anchor matches at all */
	ANCHORS_SEVERAL_PIDS,       /* wanted anchors fall in several pids */
	ANCHORS_SEVERAL_DEVICES,    /* ... on several devices of one pid */
	ANCHORS_TRUNCATED,          /* fewer than need from the offset; count: how many */
	ANCHORS_NO_DUR,             /* the kernel at has no numeric dur */
	ANCHORS_NEGATIVE_DUR,       /* the kernel at has a negative dur */
	ANCHORS_NOT_INCREASING,     /* anchors at - 1 and at have no strictly increasing ts */
	ANCHORS_TERMINAL_COUNT,     /* count terminals (not 1) between the anchor and the next */
	ANCHORS_TERMINAL_NO_DUR,    /* the terminal at has no numeric dur */
	ANCHORS_TERMINAL_NEGATIVE_DUR,
	ANCHORS_TERMINAL_PAST_NEXT, /* the terminal at ends after the next anchor starts */
	ANCHORS_LANDMARK_COUNT,     /* count landmarks (not 1) in the span of selected anchor at */
	ANCHORS_PASS_CUT,           /* a boundary at the passes' own rhythm (struct anchors_shape) */
	ANCHORS_STEP_INSIDE,        /* a step starts inside selected pass count, at steps[at] */
};

struct anchors_result {
	enum anchors_status status;
	size_t at;      /* the kernel the refusal names (see the status) */
	size_t count;   /* the count it names */
	size_t term;    /* ANCHORS_LANDMARK_COUNT on a last layer: its terminal in ends,
			 * or (size_t)-1 when the span ends at the next anchor */
};

/* Where a match lies: raw pid text and args.device text ("(none)" when
 * absent), compared as bytes. */
struct anchors_where {
	const char *pid, *device;
};

/* The one (pid, device) of the anchor matches w[i] with wanted[i] set
 * (in the --pid and on the --device asked for): r->at is the first of
 * them.  Refused: ANCHORS_NO_MATCH, then ANCHORS_SEVERAL_PIDS, then
 * ANCHORS_SEVERAL_DEVICES (several devices within the first match's pid). */
int anchors_choose_group(const struct anchors_where *w, const int *wanted, size_t n,
			 struct anchors_result *r);

/* The selection a[offset .. offset + need) of the sorted matches a[0..n):
 * enough of them, each with a dur >= 0, at strictly increasing times
 * (equal ns floors with sub-ns digits on both sides cannot be ordered).
 * at is an index into a. */
int anchors_select(const struct anchors_kernel *a, size_t n, size_t offset, size_t need,
		   struct anchors_result *r);

/* The terminal of anchor a: exactly one of the sorted ends[0..nends)
 * starts at or after a and before next (NULL: the end of the trace); it
 * has a dur >= 0 and ends no later than next starts.  r->at is the
 * terminal's index in ends (when count is 1). */
int anchors_terminal(const struct anchors_kernel *ends, size_t nends,
		     const struct anchors_kernel *a, const struct anchors_kernel *next,
		     struct anchors_result *r);

/* A GPU landmark: exactly one of the sorted landmark times marks[0..nmarks)
 * lies in [anchor, next anchor) of each layer of a pass of num_layers; in
 * the last layer, [anchor, end of its terminal) when ends (nends > 0) give
 * the anchor a unique terminal with a dur, else the layer is not checked.
 * The selection is a[offset .. offset + need); r->at counts from offset. */
int anchors_gpu_landmark(const struct anchors_kernel *a, size_t n, size_t offset, size_t need,
			 size_t num_layers, const struct anchors_kernel *ends, size_t nends,
			 const struct anchors_time *marks, size_t nmarks,
			 struct anchors_result *r);

/* The shape of whole passes.  A boundary of the selection a[offset ..
 * offset + num_layers x passes) is the gap between the last anchor of one
 * pass and the first of the next, and, where matches lie outside the
 * selection, between the match before it and its first anchor and between
 * its last anchor and the match after it.  The rhythm of a pass is its
 * longest gap between consecutive anchors once the longest tenth of its
 * gaps (at least one, with two gaps or more) is set aside: one slow layer
 * does not count.  Outside the selection, the rhythm of the up to
 * num_layers - 1 gaps between the matches next to the boundary (none when
 * a single match lies there).  A boundary must be longer than 5/4 of the
 * shorter rhythm on its two sides (of the one side that has one): one no
 * longer is a gap like those inside passes, and the selection cuts a pass.
 * With num_layers 1 a pass has no rhythm and nothing is checked.  Exact
 * integer ns (ts floors); scratch has room for num_layers gaps.  Refused:
 * ANCHORS_PASS_CUT with the first such boundary in time order in sh. */
enum anchors_boundary {
	ANCHORS_BETWEEN,  /* between selected passes pass and pass + 1 */
	ANCHORS_BEFORE,   /* the match before the selection, and its first anchor */
	ANCHORS_AFTER,    /* its last anchor, and the match after it */
};

struct anchors_shape {
	enum anchors_boundary where;
	size_t pass;            /* ANCHORS_BETWEEN: the pass the boundary closes */
	size_t left, right;     /* indexes into a of the kernels on either side */
	int64_t gap;            /* a[right] - a[left] */
	int64_t rhythm[2];      /* the rhythm, left and right; -1: none */
};

int anchors_pass_shape(const struct anchors_kernel *a, size_t n, size_t offset,
		       size_t num_layers, size_t passes, int64_t *scratch,
		       struct anchors_shape *sh, struct anchors_result *r);

/* Where the trace marks steps (their sorted start times steps[0..nsteps)):
 * none starts inside a selected pass, after its first anchor and no later
 * than its last.  Refused: ANCHORS_STEP_INSIDE, r->count the pass, r->at
 * the step. */
int anchors_steps(const struct anchors_kernel *a, size_t offset, size_t num_layers,
		  size_t passes, const struct anchors_time *steps, size_t nsteps,
		  struct anchors_result *r);

#endif
