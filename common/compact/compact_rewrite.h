/* compact_rewrite: the byte edit that moves one event to a lane (tr-compact(1)):
 * its pid and tid become the lane's, and args (created if absent) gets, as
 * its last member,
 *   "_compact_gpu_track":{"pid":P,"tid":T,"source_event_index":I,"had_args":B}
 * with the original values.  Every other byte of the line stays as it was.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits. */
#ifndef TR_COMPACT_REWRITE_H
#define TR_COMPACT_REWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/event.h"

/* m holds the line's raw pid, tid and args members (event_members or
 * compact_members: pointers into line; len 0 when absent); index is the
 * event's source index.  out is overwritten.  Returns 0, COMPACT_NOMEM, or
 * COMPACT_REFUSED with the reason in msg (no pid or tid, args not an
 * object). */
int compact_rewrite(const char *line, size_t len, const struct member *m, uint64_t index,
		    const char *new_pid, int64_t new_tid, struct buf *out, struct buf *msg);

#endif
