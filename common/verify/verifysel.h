/* verifysel: tr-verify's placement check.  The selection a layers report
 * names (anchor_regex, end_anchor_regex, pid, device, anchor_offset,
 * num_layers x passes) is recomputed from the source with code of our own,
 * not tr-select-anchors': the earliest anchor_offset + N x P + 1 matches
 * are kept in a max-heap, so memory follows the guides, not the trace.
 * Every guide slice is then checked against what it must be (name, ts and
 * dur rounded to the microsecond, args), and every layers row of the report
 * against its guide's args.
 * The common/ rule: library code returns a status and never prints or
 * exits; failures go to a struct verifycheck. */
#ifndef TR_VERIFYSEL_H
#define TR_VERIFYSEL_H

#include <stdint.h>

#include "core/buf.h"
#include "json/event.h"
#include "core/intern.h"
#include "json/json.h"
#include "json/regex.h"
#include "stream/trstream.h"
#include "json/tsnum.h"
#include "verify/verifycheck.h"

/* A kernel the report's selection matches, in its pid and device. */
struct verifysel_cand {
	int64_t ts_ns, dur_ns;
	int ts_sub, dur_ok;
	uint64_t index;          /* source event index */
	char *ts;                /* raw text, own copy (anchors only) */
	const char *name, *tid;  /* raw texts, interned */
};

/* What one guide must be, recomputed from the source. */
struct verifysel_expect {
	int64_t start_us, end_us;     /* rounded guide endpoints */
	int64_t start_ns, end_ns;
	int64_t anchor_index, pass, layer_id;
	uint64_t source_index;
	const char *kind;             /* boundary_kind */
	const char *start_text, *end_text, *name, *tid;
	char term_end[NUM_US_BUFSZ];  /* end_text of a terminal's end */
};

struct verifysel {
	struct verifycheck *vc;
	const char *src_path;         /* for messages */
	int64_t num_layers, passes, first_layer;
	char *regex, *end_regex;      /* unescaped; end_regex NULL when null */
	char *pid, *device;           /* raw JSON texts from the report */
	int64_t offset, matching;
	char *origin_text;            /* the report's trace_origin_us, raw */
	/* the trace origin: the smallest numeric ts of any source event */
	int64_t origin_ns;
	int origin_sub, have_origin;
	struct buf origin_raw;        /* the ts text it came from */
	size_t origin_int;            /* its integer digits when plain, else 0 */
	struct regex *re, *end_re;
	int broken;                   /* nothing to recompute (a failure said why) */
	struct verifysel_cand *heap;  /* anchors; sorted ascending once done */
	size_t nheap, heap_cap, keep;
	struct verifysel_cand *terms; /* terminals before the heap's largest */
	size_t nterms, terms_cap;
	uint64_t nmatch;              /* anchor matches in the pid and device */
	struct intern texts;
	struct verifysel_expect *exp;
	size_t nexp, nguides;
	struct jdoc edoc, gdoc, rdoc;
	struct buf cat, name, tmp;
	struct buf want;              /* a guide's args as expected */
	/* the layers rows of the report, read one at a time beside the guides */
	const char *rows_path;
	struct trstream_rows rows;
	int have_rows;
};

/* Before anything else: an empty selection reporting to vc. */
void verifysel_init(struct verifysel *sel, struct verifycheck *vc, const char *src_path);
/* The selection of the layers report d (its top-level object) read from
 * path, with its num_layers, passes and first_layer; rows_fd, rows_at and
 * nrows: where its layers rows are (trstream_report_head).  Members the
 * check does not know are ignored.  0, or -1 (vc's error says why). */
int verifysel_load(struct verifysel *sel, const struct jdoc *d, const char *path,
		   int64_t num_layers, int64_t passes, int64_t first_layer, int rows_fd,
		   uint64_t rows_at, uint64_t nrows);
/* One source event (index in the source), m its members ph, cat, name and
 * ts in that order (event_members): is it a kernel the selection matches?
 * 0, or -1 (vc's error says why). */
int verifysel_see_source(struct verifysel *sel, const char *line, size_t len,
			 const struct member *m, uint64_t index);
/* After the source's last event: what every guide must be. 0, or -1. */
int verifysel_finish_source(struct verifysel *sel);
/* A guide slice after the source events, output event o, the next in
 * output order; with the next layers row of the report.  0, or -1. */
int verifysel_guide(struct verifysel *sel, const char *line, size_t len, uint64_t o);
/* After the output's last event: the guides missing, the rows left over,
 * and the check's figures. */
void verifysel_finish(struct verifysel *sel);
void verifysel_free(struct verifysel *sel);

#endif
