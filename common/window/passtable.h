/* passtable: each pass's time span and bytes, from a stream read once, as
 * it passes (tr-window --pass-table, tr-encode --pass-table).  Of each
 * event only its first ph, ts, dur and cat are read (window_cut_span; or
 * given, as tr-encode's check of the line finds them on its way), and its
 * interval and bytes kept in a few bytes of a temporary file
 * (windowspan.h); once the stream has ended and the guides say where the
 * passes are, the kept spans are counted into them.  The bytes of an
 * event are its stream line's, its newline included.
 * The common/ rule: library code returns a status and never prints or
 * exits. */
#ifndef TR_PASSTABLE_H
#define TR_PASSTABLE_H

#include <stddef.h>

#include "core/buf.h"
#include "json/scan.h"
#include "window/window.h"
#include "window/windowspan.h"

enum passtable_status {
	PASSTABLE_OK = 0,
	PASSTABLE_REFUSED = 1,  /* the stream's guides are refused (passtable_error) */
	PASSTABLE_TROUBLE = 2,  /* any other refusal of the window code (passtable_error) */
	PASSTABLE_NOMEM = -1,
	PASSTABLE_SPILL = -2    /* the temporary file failed (errno set) */
};

struct passtable {
	struct window_cut cut;
	struct windowspan spans;
	/* the members an event's span needs (ph, ts, dur, cat), in the order
	 * passtable_event_found takes their values: for
	 * scan_text_valid_members */
	struct scan_want want;
};

/* spill_fd: an empty temporary file (io_open_spill), owned from now on,
 * closed by passtable_free even when init fails.  0 or PASSTABLE_NOMEM. */
int passtable_init(struct passtable *t, int spill_fd);
/* One event line of the stream (without its newline). */
int passtable_event(struct passtable *t, const char *line, size_t len);
/* The same, with the values of the want members already found in
 * the line as a walk from its first member finds them (found[i].len 0:
 * absent). */
int passtable_event_found(struct passtable *t, const char *line, size_t len,
			  const struct scan_span *found);
/* After the last event: the table into out, a line per pass in the
 * guides' order (tr-window(1) shows them).  Without guides it stays empty,
 * or with always set, PASSTABLE_REFUSED (the stream has no layer guides). */
int passtable_finish(struct passtable *t, int always, struct buf *out);
/* The message of PASSTABLE_REFUSED or PASSTABLE_TROUBLE. */
const char *passtable_error(const struct passtable *t);
void passtable_free(struct passtable *t);

#endif
