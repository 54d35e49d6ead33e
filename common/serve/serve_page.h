/* serve_page: the viewer page tr-serve serves beside a trace.  It says in
 * plain words what will open (the file, its size and events, the tracks
 * pinned, the pass in view), has the button that opens the Perfetto UI and
 * posts the trace to it, a link to download the trace, and the UI address
 * behind a details toggle.  Every fact comes from the caller (the file and
 * the reports beside it); a fact nobody knows is left out, never guessed.
 * Nothing here prints or exits. */
#ifndef TR_SERVE_PAGE_H
#define TR_SERVE_PAGE_H

#include <stdint.h>

#include "core/buf.h"
#include "serve/ui.h"

/* The page's JavaScript says so when the UI has not answered in this time. */
#define SERVE_PAGE_SLOW_MS 10000

struct serve_facts {
	const char *name;            /* the trace's base name */
	uint64_t size;               /* its bytes */
	int64_t events;              /* as its report records them; -1: unknown */
	int reports;                 /* reports read beside it (0: none, or no_setup) */
	const struct ui_view *view;  /* what they say */
	const struct ui_choice *choice;
	const char *ui_url;          /* the address the button opens */
	uint64_t stream_above;       /* larger traces go as a stream */
	const char *large;           /* NULL, or why the trace is too large for a browser */
	int rpc;                     /* trace_processor_shell serves the trace: post nothing */
};

/* s with & < > " ' as HTML character references, appended to out. */
int serve_html_escape(struct buf *out, const char *s, size_t n);

/* A byte count for people: "812 bytes", "96184 bytes (93.9 KiB)", with
 * KiB, MiB or GiB (one decimal, rounded down). */
int serve_size_text(struct buf *out, uint64_t n);

/* The plain-words lines of what will open, each an HTML <li> element with
 * its text escaped. */
int serve_page_summary(struct buf *out, const struct serve_facts *f);

/* The whole page. 0, or -1 when memory runs out. */
int serve_page_build(struct buf *out, const struct serve_facts *f);

/* Read the reports beside the trace at path into v: PATH.layers.json,
 * PATH.compact.json and PATH.window.json; a compact or window report whose
 * source_file has reports beside it (a guided trace compacted by
 * tr-compact-track, a window cut from an annotated output) brings those
 * too, since compaction and windows keep the guides, their times and the
 * lanes.  *nread counts the reports read; *events is set from the ones
 * beside path (the last kind that counts them: a window, a compacted
 * trace, a guided one), not from a source's.  SERVE_OK, SERVE_NOMEM, or
 * SERVE_INPUT (a report that is not valid, or larger than
 * SERVE_REPORT_MAX) and SERVE_SYSTEM (unreadable, not a regular file) with
 * the message, "REPORT: why", in why. */
#define SERVE_REPORT_MAX (256 * 1024 * 1024)
enum { SERVE_OK = 0, SERVE_NOMEM = -1, SERVE_INPUT = -2, SERVE_SYSTEM = -3 };
int serve_read_reports(const char *path, struct ui_view *v, int64_t *events, int *nread,
	struct buf *why);

/* The command that cuts pass 0 out of the trace at path with tr-window,
 * its words quoted for a POSIX shell, appended to out. */
int serve_window_command(struct buf *out, const char *path);

#endif
