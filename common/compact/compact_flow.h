/* compact_flow: flow binding for tr-compact(1).  A flow (ph s, t, f) on a
 * moved (pid, tid) goes to the lane of the GPU event it binds to: among
 * that track's activity, those whose args.correlation equals the flow's id
 * (when the track carries correlations), the one that starts exactly at the
 * flow's ts, else the one whose interval contains it.  No match, or
 * several, is a refusal naming the flow's source index.
 *
 * The binding is a merge join: the flows sorted by (id, track, ts) against
 * the records sorted by (correlation, track, start), sweeping each
 * (correlation, track) with the records that may still contain a later ts (as many
 * as overlap there, bounded by the lanes).  Its results, one per flow on a
 * moved track, go to c->bindings in source order for pass two.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits. */
#ifndef TR_COMPACT_FLOW_H
#define TR_COMPACT_FLOW_H

#include <stdint.h>

#include "compact/compact_state.h"

/* The order the join reads records in: (corr, track, start_ns, index). */
int compact_flow_cmp_act(const void *a, const void *b);

/* The order the join reads flows in: (id, track, ts_ns, index). */
int compact_flow_cmp_flow(const void *a, const void *b);

/* Bind every flow of c->flows (finished here) on a moved track into
 * c->bindings (not finished).  by_corr: the records, with their lanes, in
 * compact_flow_cmp_act order; by_start: the same with corr 0 (NULL when no
 * flow lacks a numeric id).  0, COMPACT_NOMEM or -1 with errno set for the
 * temporary files (COMPACT_SYSTEM). */
int compact_flow_bind_all(struct compact *c, struct extsort *by_corr,
			  struct extsort *by_start);

/* Pass two: flow event index, whose binding is hit: its rewritten copy in
 * c->out, or the refusal (COMPACT_REFUSED, c->msg).  known: its pid, tid
 * and args as pass one found them (compact_offsets), or NULL to find them
 * here. */
int compact_flow_place(struct compact *c, const char *line, size_t len, uint64_t index,
		       const struct compact_flow_hit *hit, const struct member *known);

#endif
