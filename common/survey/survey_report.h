/* survey_report: what tr-survey(1) reports about ranked groups (survey.h):
 * per GPU pid and device the anchor candidates with their passes, the bytes
 * of each pass, counts per ProfilerStep and why a candidate is weaker
 * evidence, the warnings, a starting command and second landmarks; and
 * where the kernels are that --pid and --device left out.  As text for
 * people or as one JSON object (--json); member order and wording are
 * tr-survey(1)'s.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  Each function appends to out and returns 0, or -1 when memory
 * runs out (out then holds part of the text). */
#ifndef TR_SURVEY_REPORT_H
#define TR_SURVEY_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "survey/survey.h"
#include "window/window.h"

/* Pass spans written per candidate in the text report (--json has all). */
#define SURVEY_REPORT_TEXT_SPANS 8

struct survey_report {
	size_t N;                         /* --num-layers */
	size_t top_k;                     /* --top: second landmarks listed at most */
	int json;
	const struct survey_step *steps;  /* ProfilerStep#N spans, sorted */
	size_t nsteps;
	int have_origin;
	int64_t origin_ns;                /* the earliest ts; times are relative to it */
	/* the bytes of the spans of survey_spans_add (a candidate's pass j is
	 * span span0 + j) */
	const struct window_tally *tally;
	int training;                     /* the trace has backward or optimizer events */
};

/* Where the kernels are that --pid and --device left out. */
struct survey_elsewhere {
	char *const *keys;          /* "PID\001DEVICE", raw JSON texts */
	const uint64_t *kernels;    /* kernels per key */
	size_t n;
	const char *pid, *device;   /* the filters, NULL when not given */
};

/* JSON: the object's head, up to the opening of "groups"; text: nothing. */
int survey_report_head(const struct survey_report *r, struct buf *out);

/* The report of one group, key "PID\001DEVICE" (raw JSON texts), ranked in
 * rk (its start set by survey_rank_start); first: the first group (JSON:
 * no comma before it). */
int survey_report_group(const struct survey_report *r, const char *key,
			const struct survey_ranking *rk, int first, struct buf *out);

/* Without --num-layers (r->N 0): the n names of one group by their count
 * per ProfilerStep, or in the whole trace without two steps; names holds
 * them sorted (survey_analyse with N 0). */
int survey_report_counts(const struct survey_report *r, const char *key,
			 struct survey_name *const *names, size_t n, int first, struct buf *out);

/* JSON: the close of "groups", "kernels_elsewhere" and the end of the
 * object; text: when no group matched (ngroups 0), where the kernels are. */
int survey_report_tail(const struct survey_report *r, size_t ngroups,
		       const struct survey_elsewhere *e, struct buf *out);

/* Why candidate s of rk is weaker evidence than an ideal anchor, one
 * reason per line, each ended by '\n'. */
int survey_report_reasons(const struct survey_report *r, const struct survey_name *s,
			  const struct survey_ranking *rk, struct buf *out);

/* s in single quotes for a POSIX shell, a quote in it as '\''. */
int survey_report_shell_quote(struct buf *out, const char *s);

#endif
