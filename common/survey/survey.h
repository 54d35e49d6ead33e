/* survey: the analysis behind tr-survey(1): a kernel name's occurrences
 * gathered, cut into passes of N at the largest gaps, its score as a
 * once-per-layer anchor, how two names interleave, the ranking of a group's
 * names (rescored by their allies), the spans whose bytes the report
 * shows, and the exact regex of a name.  survey_report.h writes the report.
 * The common/ rule: library code returns a status and never prints or
 * exits. */
#ifndef TR_SURVEY_H
#define TR_SURVEY_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/event.h"

/* Spacing above this coefficient of variation inside passes is called
 * irregular in the reasons a candidate ranks lower. */
#define SURVEY_IRREGULAR_CV 0.25

/* The most occurrences per layer a name is recognised to run between
 * consecutive occurrences of the top candidate (by its count alone: 2). */
#define SURVEY_MAX_TIMES 8

/* Names longer than this are shortened in the text report. */
#define SURVEY_SHORT_NAME 72

struct survey_occ {
	int64_t ts, end;       /* ns; end = ts + dur (ts when dur is missing) */
};

enum survey_split_kind { SURVEY_SPLIT_NONE, SURVEY_SPLIT_SINGLE, SURVEY_SPLIT_CLEAN, SURVEY_SPLIT_AMBIGUOUS };

/* The occurrences of a name cut into passes of N: partial_first
 * occurrences, then passes x N, then partial_last. */
struct survey_split {
	size_t offset, passes, partial_last;
	enum survey_split_kind kind;
	int64_t min_between;   /* smallest gap at a pass boundary, -1: none */
	int64_t max_inside;    /* largest gap inside a pass, -1: none */
};

/* One kernel name in one (pid, device). */
struct survey_name {
	uint32_t group;        /* (pid, device) */
	char *name;            /* unescaped */
	size_t name_len;       /* bytes (a \u0000 in the name included) */
	char *family;          /* the name with template arguments removed */
	struct survey_occ *occ;  /* occurrences, sorted by survey_analyse */
	size_t n, cap;
	char **streams;        /* its distinct tids (raw), up to 255 */
	size_t streams_cap;
	unsigned nstreams;     /* distinct tids seen, saturating */
	/* analysis */
	struct survey_split sp;
	int times_by_count;    /* 2: n = 2N x p and passes of 2N split cleanly, not of N */
	int times_between;     /* k > 1: k between consecutive occurrences of the top */
	size_t nruns, len_a;   /* runs at large gaps, most common run length */
	double cv;             /* spacing regularity: the median of the passes' own */
	double score;
	unsigned confirms;     /* other candidates with one occurrence per interval */
	const char *confirmed_by;
	size_t clean_partner;  /* rank (1-based) of a one-to-one partner with a clean split */
	size_t span0;          /* where its passes' spans begin in the caller's tally */
};

struct survey_step {
	int64_t start, end;
};

/* The ProfilerStep#N spans of a trace, kept as its events come. */
struct survey_steps {
	struct survey_step *v;
	size_t n, cap;
};
/* An event's raw members ts, ph, name and dur (m[0..3], len 0 when
 * absent): a complete "ProfilerStep#..." event's span is kept (a dur that
 * is absent, unreadable or negative as 0; an end past the int64 range as
 * INT64_MAX).  0, or -1 when memory runs out. */
int survey_steps_see(struct survey_steps *s, const struct member *m);
/* By start, then end: the order the functions below take them in. */
void survey_steps_sort(struct survey_steps *s);
void survey_steps_free(struct survey_steps *s);

/* 1 when an event's raw name shows a training run: autograd's backward
 * ops and kernels ("...ackward..."), the optimizer's step ("Optimizer."). */
int survey_training_name(const struct member *name);

/* The names of one group, listed from its first (next: the chain of the
 * names in each group, SIZE_MAX ends it) into *members, grown as needed:
 * how many, or SIZE_MAX when memory runs out. */
size_t survey_group_members(struct survey_name *names, size_t first, const size_t *next,
			    struct survey_name ***members, size_t *cap);

/* A group's names in rank order: the ncand candidates (score > 0) first,
 * best first, listed of them reported; then the other names. */
struct survey_ranking {
	struct survey_name **order;
	size_t n, ncand, listed;
	int any_n;             /* some name occurs N times or more */
	const struct survey_name *top;  /* candidate 1, or NULL: none */
	const struct survey_name *start; /* the first listed candidate with whole passes, or NULL */
	size_t start_rank;     /* its rank (1-based), 0: none */
};

/* The passes of the listed candidates, in half ns (window.h), in the
 * order survey_spans_add met them. */
struct survey_spans {
	int64_t *lo, *hi;
	size_t n, cap;
};

/* s (zeroed) becomes name (len bytes, a NUL among them kept) of group;
 * 0, or -1 when memory runs out. */
int survey_name_init(struct survey_name *s, uint32_t group, const char *name, size_t len);

/* One occurrence of s at ts lasting dur ns (0: none), on the stream whose
 * raw tid text is tid (NULL: none); 0, or -1 when memory runs out. */
int survey_name_add(struct survey_name *s, int64_t ts, int64_t dur, const char *tid, size_t tid_len);

void survey_name_free(struct survey_name *s);

/* Rank the n analysed names of one group (survey_analyse) as anchors for
 * passes of N, top_k of them listed (see survey.c); sets their confirms,
 * confirmed_by, times_between, clean_partner and rescored score.  0, or -1
 * when memory runs out. */
int survey_rank(struct survey_ranking *rk, struct survey_name *const *names, size_t n,
		size_t N, size_t top_k);

/* Set rk->start and rk->start_rank: the first listed candidate whose
 * passes are whole (survey_passes_whole); 0, or -1 when memory runs out. */
int survey_rank_start(struct survey_ranking *rk, size_t N, const struct survey_step *steps,
		      size_t nsteps);

void survey_ranking_free(struct survey_ranking *rk);

/* Append the passes of rk's listed candidates to sp, setting their span0;
 * 0, or -1 when memory runs out. */
int survey_spans_add(struct survey_spans *sp, const struct survey_ranking *rk, size_t N);

void survey_spans_free(struct survey_spans *sp);

/* "void f<int, g<x>>(a)" -> "void f<...>(a)" (a new string), or NULL when
 * memory runs out. */
char *survey_family(const char *name);

/* Cut n sorted occurrences into passes of N (see survey.c). */
void survey_split_passes(const struct survey_occ *o, size_t n, size_t N, struct survey_split *sp);

/* Sort s's occurrences, split them into passes of N, measure the spacing
 * inside passes and score s as an anchor (N = 0: sort only); 0, or -1 when
 * memory runs out. */
int survey_analyse(struct survey_name *s, size_t N);

/* Occurrences of b between consecutive occurrences of a (at a's compared
 * gaps): k when always exactly k (1 to SURVEY_MAX_TIMES), else 0. */
int survey_interleave(const struct survey_name *a, const struct survey_name *b, size_t N);

/* Whether s's passes of N are whole: split at gaps larger than those inside
 * them (or, ambiguous, confirmed by a one-to-one partner or by a ProfilerStep
 * start between two of its passes), with no ProfilerStep start inside a whole
 * pass (so that every step holds a multiple of N of its whole passes'
 * occurrences; partial passes at the ends of the trace may share a step),
 * and those passes, as tr-select-anchors would select them, pass its own
 * check of the shape of whole passes (anchors_pass_shape): 1 or 0, -1 when
 * memory runs out. */
int survey_passes_whole(const struct survey_name *s, size_t N, const struct survey_step *steps,
			size_t nsteps);

/* Occurrences of s in each ProfilerStep (those before the first step are
 * left out): the count when it is the same, and above 0, in every step; 0
 * otherwise, or with fewer than two steps. */
size_t survey_per_step(const struct survey_name *s, const struct survey_step *steps, size_t nsteps);

/* Append name (n bytes) as the text report shows it: whole up to
 * SURVEY_SHORT_NAME bytes; longer, a C++ name without its return type,
 * namespaces, template arguments and parameters ("f<...>(...)"), a mangled
 * one (_Z...) as its nested name read without demangling, and anything
 * else cut, each marked by "..."; 0, or -1 when memory runs out. */
int survey_short_name(struct buf *b, const char *name, size_t n);

/* The most passes of s that lie inside one pass of t. */
size_t survey_passes_inside(const struct survey_name *s, const struct survey_name *t, size_t N);

/* ProfilerStep starts (sorted) against s's passes: *on at a pass boundary,
 * *inside inside a whole pass; both 0 with fewer than two steps. */
void survey_steps_vs_passes(const struct survey_step *steps, size_t nsteps,
			    const struct survey_name *s, size_t N, size_t *on, size_t *inside);

/* Pass j of s: from its first occurrence to the latest end in it (ns). */
void survey_pass_span(const struct survey_name *s, size_t N, size_t j, int64_t *a, int64_t *b);

/* Append a regex matching exactly this name (see survey.c): 1 when it is
 * exact, 0 when the name holds bytes that are not UTF-8 (the regex then
 * covers its longest valid run), -1 when memory runs out. */
int survey_exact_regex(struct buf *b, const char *name, size_t n);

#endif
