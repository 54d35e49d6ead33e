/* verifyadd: tr-verify's proof of the events the tools add after the
 * source events: the guide track's thread_name and thread_sort_index and
 * its slices (tr-guides), the synthetic lanes' thread_name and
 * thread_sort_index and the scope processes' process_name (tr-compact).
 * Each is rebuilt from the reports with the writers' own code (guides.h,
 * compact_report.h) and compared byte for byte when the report says that
 * trace-layers wrote it (its tool_version), as JSON values otherwise (the
 * numbers by value).  Every metadata event must be in the output once, and
 * none that the reports do not imply; the counts the reports claim
 * (added_event_count, new_metadata_count) must be the output's.
 * The common/ rule: library code returns a status and never prints or
 * exits; failures go to a struct verifycheck. */
#ifndef TR_VERIFYADD_H
#define TR_VERIFYADD_H

#include <stdint.h>

#include "core/buf.h"
#include "guides/guides.h"
#include "json/json.h"
#include "verify/verifycheck.h"

/* A metadata event the reports imply. */
struct verifyadd_meta {
	size_t at, len;          /* its text in meta_text */
	size_t key_at, key_len;  /* name, pid and tid (raw) in keys, '\001' apart */
	uint64_t seen;           /* times found in the output */
	int guide;               /* of the guide track: its ts is the first guide's */
	int ours;                /* compared byte for byte */
	const char *what;        /* "the guide track's", "a synthetic lane's", ... */
};

struct verifyadd {
	struct verifycheck *vc;
	int check;                    /* the check its failures go to */
	/* the guide track, from a layers report */
	int have_guides, guides_ours;
	char *layers_path;            /* the report's path, for messages */
	const char *no_track;         /* the member missing to rebuild the track */
	int bad_track_name;           /* the report's track_name is not the phase's */
	struct guides_track track;
	char *pid, *phase, *evidence;
	struct buf track_name, tail;  /* guides_track_name, guides_slice_tail */
	int64_t added_event_count;    /* the report's claim, -1 when absent */
	int64_t t0;                   /* ts of the guide track's metadata */
	int have_t0;
	/* the metadata, from both reports */
	struct verifyadd_meta *meta;
	size_t nmeta, meta_cap;
	struct buf meta_text, keys;
	int have_compact;
	int unrebuilt;                /* another tool's groups without their names' parts */
	int64_t new_metadata_count;   /* the compaction report's claim */
	uint64_t nlane_meta;          /* rebuilt */
	/* the output */
	uint64_t guides_seen, guide_meta_seen, lane_meta_seen;
	struct jdoc a, b;
	struct buf want, x, y, alt;
};

void verifyadd_init(struct verifyadd *va, struct verifycheck *vc);
/* The guide track of a layers report d (its top-level object) read from
 * path: pid, guide_tid, phase, evidence, track_name, notice,
 * added_event_count and tool_version.  0, or -1 (vc's error says why). */
int verifyadd_load_layers(struct verifyadd *va, const struct jdoc *d, const char *path);
/* The groups of a compaction report: its object obj in d.  0, or -1. */
int verifyadd_load_compaction(struct verifyadd *va, const struct jdoc *d, int obj,
			      const char *path);
/* Before the first added event: the check failures go to, and the ts of
 * the guide track's metadata when known (tr-guides writes the first
 * guide's); unknown, the output's own is taken. */
void verifyadd_begin(struct verifyadd *va, int check, int have_t0, int64_t t0);
/* An added metadata event (ph "M"), output event o, whose name, pid and tid
 * texts are given raw.  0, or -1 (vc's error says why). */
int verifyadd_meta_event(struct verifyadd *va, const char *line, size_t len, uint64_t o,
			 const char *name, size_t nn, const char *pid, size_t pn,
			 const char *tid, size_t tn);
/* Guide k, output event o; g what the placement check found it must be
 * (NULL when it could not: then only what the track gives is compared),
 * origin_ns the trace origin.  0, or -1. */
int verifyadd_guide(struct verifyadd *va, const char *line, size_t len, uint64_t o,
		    uint64_t k, const struct guides_row *g, int64_t origin_ns);
/* After the output's last event: what is missing, and the counts. */
void verifyadd_finish(struct verifyadd *va);
void verifyadd_free(struct verifyadd *va);

/* 1 when the JSON values a[ia] and b[ib] are equal: objects with the same
 * members in any order, numbers by decimal value ("3.024" = "3.024000" =
 * "3024e-3"), strings unescaped; 0 when not, with the first difference in
 * why when it is not NULL ("args.evidence: output RAW, expected RAW").  x
 * and y are room to unescape in; skip, when not NULL, a member of the
 * objects a[ia] and b[ib] not compared. */
int verifyadd_value_eq(const struct jdoc *a, int ia, const struct jdoc *b, int ib,
		       struct buf *x, struct buf *y, struct buf *why, const char *skip);

#endif
