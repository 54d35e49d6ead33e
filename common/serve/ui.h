/* ui: what tr-serve asks the Perfetto UI to do at load time, from the
 * reports beside a served trace (.layers.json, .compact.json, .window.json):
 * the tracks to pin (layer guides and synthetic GPU lanes, by their exact
 * names), the GPU processes to expand, the pass to show (visStart/visEnd in
 * Perfetto's nanoseconds), a guide slice to select (ts/dur), and a query
 * tab.  The result is the parameter text of the UI's hash route
 * ("#!/?visStart=...&startupCommands=..."), every value percent-encoded.
 * Nothing here prints or exits; texts of refusals go to a buffer. */
#ifndef TR_UI_H
#define TR_UI_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

enum ui_status { UI_OK = 0, UI_NOMEM = -1, UI_BAD = -2, UI_REFUSED = -3 };

struct ui_guide {
	int64_t pass, layer;
	int64_t start_ns, end_ns;   /* Perfetto's conversion of guide_*_us */
};

struct ui_view {
	char **pins;                /* exact track names, each once */
	size_t npins;
	int64_t *pids;              /* GPU processes to expand, each once */
	size_t npids;
	struct ui_guide *guides;
	size_t nguides;
	int have_window;
	int64_t window_start_ns, window_end_ns;
};
#define UI_VIEW_INIT { NULL, 0, NULL, 0, NULL, 0, 0, 0, 0 }

/* Take what one report (its JSON text) says: track_name, pid and layers
 * rows (a layers report), compaction groups of kind "activity" (top level
 * in a .compact.json, under "compaction" in a .layers.json; their lanes are
 * named "GPU lane K (synthetic; device D)"), and a window object with
 * start_ns and end_ns (a .window.json).  UI_BAD with a reason in why when
 * the text is not a JSON object or a member has the wrong type. */
int ui_view_add_report(struct ui_view *v, const char *text, size_t len, struct buf *why);

/* The source_file member of a report, appended to out: 1, or 0 when it has
 * none (or null), UI_BAD or UI_NOMEM. */
int ui_report_source_file(const char *text, size_t len, struct buf *out);

void ui_view_free(struct ui_view *v);

struct ui_choice {
	int no_setup;       /* nothing but the plain UI */
	int pass_given;
	int64_t pass;       /* default: 0, or the first pass in the window */
	int layer_given;
	int64_t layer;      /* layer_id of the guide to select */
	const char *query;  /* NULL: the default guide listing when guides exist */
};

/* The hash route's parameters for v and c, appended to out (without "#!/?";
 * empty when there is nothing to ask).  UI_REFUSED with the reason in why
 * for a --pass or --layer that the guides do not have. */
int ui_build_params(const struct ui_view *v, const struct ui_choice *c, struct buf *out,
	struct buf *why);

/* What the UI shows at load time for v and c: the pass in view (by_pass:
 * from its first guide's start to its last guide's end, its guides' first
 * and last layer ids) or the window (by_window), the selected guide (sel),
 * and whether any guide is in view.  Refusals as ui_build_params. */
struct ui_shown {
	int guides;
	int by_pass, by_window;
	int64_t pass, first_layer, last_layer;
	int64_t start_ns, end_ns;
	const struct ui_guide *sel;
};
int ui_shown(const struct ui_view *v, const struct ui_choice *c, struct ui_shown *s,
	struct buf *why);

/* The number of events in the trace a report lies beside, as the report
 * records it (tr-window's kept counts, tr-compact's output_event_count,
 * tr-layer-track's original_event_count plus added_event_count): 1, 0 when
 * it records none, UI_BAD or UI_NOMEM. */
int ui_report_events(const char *text, size_t len, int64_t *events);

/* The default query: the guides with their pass and relative start in ms. */
extern const char ui_default_query[];

/* s as a regular expression that matches exactly s (JavaScript and PCRE
 * syntax alike): each of ^$\.*+?()[]{}| gets a backslash. */
int ui_regex_escape(struct buf *out, const char *s, size_t n);

/* s percent-encoded: every byte but RFC 3986 unreserved characters
 * (A-Z a-z 0-9 - . _ ~), as decodeURIComponent reads it back. */
int ui_url_encode(struct buf *out, const char *s, size_t n);

#endif
