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

#endif
