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
 * The common/ rule: library code returns a status and never prints or
 * exits.  A function that refuses the input returns COMPACT_REFUSED with
 * the message (without the program name) in c->msg. */
#ifndef TR_COMPACT_H
#define TR_COMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "compact/compact_state.h"

void compact_init(struct compact *c);
void compact_free(struct compact *c);

/* Pass one, per event line (in order; c->events counts them). */
int compact_see_event(struct compact *c, const char *line, size_t len);

/* Between the passes: the pending scopes, "nothing to compact", lanes, ids,
 * moved tracks, what cannot be placed, the guides, the flow index.
 * COMPACT_LANES: a group needs more lanes than max_lanes; c->refusal says
 * where and compact_lanes_message words it. */
int compact_plan(struct compact *c);

/* After pass one: the index of the first event that pass two may change
 * (move, bind or retire), UINT64_MAX when none.  The events before it go
 * out as they are, so they may go out while compact_plan runs. */
uint64_t compact_first_change(const struct compact *c);

/* Pass two's first n events, all before compact_first_change, went out as
 * they are without compact_place (while compact_plan ran): the count goes
 * on from n.  After a successful compact_plan, before any compact_place;
 * COMPACT_REFUSED (an internal error, in c->msg) if the plan changes one
 * of them after all. */
int compact_place_skip(struct compact *c, uint64_t n);

/* The refusal of COMPACT_LANES into c->msg; origin is the smallest exact ts
 * (ns) of any event, for times relative to the trace start. */
int compact_lanes_message(struct compact *c, int64_t origin);

/* Pass two, per event line, in the same order as pass one (after a
 * successful compact_plan).  *out_line and
 * *out_len: the line to write (the event itself, or its rewritten copy in
 * c->out); both NULL/0 when the event is retired (it is in the report). */
int compact_place(struct compact *c, const char *line, size_t len, const char **out_line,
		  size_t *out_len);

#endif
