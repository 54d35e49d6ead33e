/* compact_report: what tr-compact(1) writes about a compaction -- the new
 * lane and scope-process metadata events, the report record (member order
 * and meanings in tr-compact(1), "Report") and the --summary text for
 * people.  Built from a planned struct compact after pass two.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  Each function returns 0 or COMPACT_NOMEM. */
#ifndef TR_COMPACT_REPORT_H
#define TR_COMPACT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "compact/compact.h"

/* What a compact view is and is not (the report's and summary's notice). */
extern const char compact_notice[];

/* The metadata events of the lanes and scope processes, each line ended by
 * '\n', appended to out; counts them (compact_stats' new_metadata). */
int compact_report_metadata(struct compact *c, struct buf *out);

/* What the metadata of one group is made of (texts raw JSON, display_pid
 * the pid its lanes are on): the same events for tr-verify(1) to rebuild
 * from a report. */
struct compact_group_meta {
	int scope, by_device;
	const char *pid, *display_pid, *device;
	unsigned nlanes;
	const int64_t *lane_tid;
};
/* The metadata events of one group, as compact_report_metadata writes
 * them, appended to out; *count grows by their number. */
int compact_report_group_metadata(const struct compact_group_meta *g, struct buf *out,
				  uint64_t *count);

/* The report record (one line, no '\n'), into out (overwritten): a
 * .compact.json report, or the "compaction" member of the .layers.json one
 * when compact_set_layers_report said so; source_sha256 from the tail record's text. */
int compact_report_record(const struct compact *c, const char *tail, size_t tail_len,
			  struct buf *out);

/* The --summary text, into out (overwritten). */
int compact_report_summary(const struct compact *c, struct buf *out);

#endif
