/* compact: tr-compact's model of a stream -- which events are GPU activity,
 * GPU scopes, flows and thread metadata, grouped by (pid, args.device,
 * kind), and where each moved event goes (tr-compact(1)).
 *
 * Pass one (compact_see_event, per event) puts a 48-byte record per GPU
 * activity or scope and a 24-byte one per flow into external sorts
 * (extsort.h), and keeps a line per thread metadata event of a GPU
 * track; compact_plan packs the lanes while merging the records in start
 * order (lanes.h's rule), chooses the synthetic ids, checks what cannot be
 * placed and binds the flows (compact_flow.h) by a merge join; pass two
 * (compact_place, per event again) reads the lanes and the bindings back in
 * source order and rewrites the moved events (compact_rewrite.h).  Memory
 * holds a bounded window of the records, whatever the number of events.
 * The report and the summary are compact_report.h.  The passes are
 * compact_scan.c, compact_plan.c and compact_place.c (compact_impl.h is
 * what they share); compact.c holds the state's tracks and groups.
 *
 * struct compact is opaque: a caller makes one with compact_new, sets its
 * options, shows it the stream and reads what it found through the
 * functions below (and compact_report.h).
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  A function that refuses the input returns COMPACT_REFUSED with
 * the message (without the program name) in compact_message. */
#ifndef TR_COMPACT_H
#define TR_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "compact/compact_state.h"

/* A new compaction with the default options (COMPACT_MAX_LANES lanes,
 * every pid and device); NULL when memory runs out. */
struct compact *compact_new(void);
/* Frees c and everything it holds; c may be NULL. */
void compact_free(struct compact *c);

/* The options, set after compact_new and before the first event. */
/* Lanes per group, 1..COMPACT_MAX_LANES (--max-gpu-lanes). */
void compact_set_max_lanes(struct compact *c, int64_t max_lanes);
/* Only this GPU pid, raw JSON text (--pid); NULL: every pid.  Kept, not
 * copied. */
void compact_set_pid(struct compact *c, const char *pid);
/* Only the GPU activity whose args.device is this text (--device); NULL:
 * every device.  Kept, not copied. */
void compact_set_device(struct compact *c, const char *device);

/* What the stream says of itself, given in pass one: the head's source
 * name (malloc'd: c frees it; NULL when the head has none), and whether a
 * .layers.json report passes by (the record then folds into it). */
void compact_set_source(struct compact *c, char *source_name);
void compact_set_layers_report(struct compact *c, int on);

/* The message of the last refusal (COMPACT_REFUSED), "" when none. */
const char *compact_message(const struct compact *c);

/* How far a compaction has come, at any time. */
struct compact_stats {
	uint64_t events;          /* events shown to pass one */
	uint64_t activities;      /* GPU activities and scopes to place */
	uint64_t pending_scopes;  /* --device: scopes whose track waits for pass one's end */
	uint64_t track_metadata;  /* thread metadata of GPU tracks, retired if they move */
	uint64_t members_noted;   /* events whose pid, tid and args pass one found for pass two */
	uint64_t records_held;    /* activity records in memory now */
	uint64_t runs_written;    /* sorted runs of them written to the temporary file */
	uint64_t relocated;       /* pass two: activities and scopes moved */
	uint64_t relocated_flows; /* pass two: flows moved */
	uint64_t retired;         /* pass two: thread metadata events retired */
	uint64_t new_metadata;    /* metadata events compact_report_metadata wrote */
};
void compact_get_stats(const struct compact *c, struct compact_stats *out);

/* A group: the GPU activity (or the GPU scopes) of one device of a pid,
 * whose lanes the plan chooses. */
struct compact_group_info {
	const char *pid, *device; /* raw JSON; device "null" when absent */
	int kind;                 /* COMPACT_ACTIVITY or COMPACT_SCOPE */
	int64_t display_pid;      /* scopes: the new process's pid; activity: -1 (its own) */
	uint64_t activities, kernels;
	unsigned nlanes;          /* after compact_plan */
	int64_t lane_tid[COMPACT_MAX_LANES];
};
/* The number of groups pass one found, and group i of them in *out (0;
 * -1 when i is past the last).  The texts are valid until compact_free. */
size_t compact_ngroups(const struct compact *c);
int compact_group_info(const struct compact *c, size_t i, struct compact_group_info *out);

/* Pass one, per event line (in order; compact_stats' events counts them). */
int compact_see_event(struct compact *c, const char *line, size_t len);

/* Between the passes: the pending scopes, "nothing to compact", lanes, ids,
 * moved tracks, what cannot be placed, the guides, the flow index.
 * COMPACT_LANES: a group needs more lanes than max_lanes;
 * compact_lanes_message words where. */
int compact_plan(struct compact *c);

/* After pass one: the index of the first event that pass two may change
 * (move, bind or retire), UINT64_MAX when none.  The events before it go
 * out as they are, so they may go out while compact_plan runs. */
uint64_t compact_first_change(const struct compact *c);

/* Pass two's first n events, all before compact_first_change, went out as
 * they are without compact_place (while compact_plan ran): the count goes
 * on from n.  After a successful compact_plan, before any compact_place;
 * COMPACT_REFUSED (an internal error, in compact_message) if the plan changes one
 * of them after all. */
int compact_place_skip(struct compact *c, uint64_t n);

/* The refusal of COMPACT_LANES into compact_message; origin is the smallest exact ts
 * (ns) of any event, for times relative to the trace start. */
int compact_lanes_message(struct compact *c, int64_t origin);

/* Pass two, per event line, in the same order as pass one (after a
 * successful compact_plan).  *out_line and
 * *out_len: the line to write (the event itself, or its rewritten copy,
 * valid until the next call); both NULL/0 when the event is retired (it is in the report). */
int compact_place(struct compact *c, const char *line, size_t len, const char **out_line,
		  size_t *out_len);

#endif
