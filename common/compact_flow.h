/* compact_flow: flow binding for tr-compact(1).  A flow (ph s, t, f) on a
 * moved (pid, tid) goes to the lane of the GPU event it binds to: among
 * that track's activity, those whose args.correlation equals the flow's id
 * (when the track carries correlations), the one that starts exactly at the
 * flow's ts, else the one whose interval contains it.  No match, or
 * several, is a refusal naming the flow's source index.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits. */
#ifndef TR_COMPACT_FLOW_H
#define TR_COMPACT_FLOW_H

#include <stdint.h>

#include "compact.h"

/* The index of c's records by (track, correlation, start) that binding
 * searches: called once by compact_plan.  0 or COMPACT_NOMEM. */
int compact_flow_index(struct compact *c);

/* The record flow event index (raw ts and id members) on track binds to
 * in *hit; COMPACT_REFUSED (c->msg) when none or several match. */
int compact_flow_bind(struct compact *c, uint32_t track, uint64_t index, struct member ts,
		      struct member id, const struct compact_act **hit);

/* Pass two: when line is a flow on a moved track, its rewritten copy goes
 * to c->out and 1 is returned; 0 when the line is not such a flow; a
 * negative status on a refusal.  Most events are told apart by ph alone,
 * which Kineto writes first. */
int compact_flow_move(struct compact *c, const char *line, size_t len, uint64_t index);

#endif
