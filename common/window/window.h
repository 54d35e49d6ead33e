/* window: the arithmetic of tr-window(1) and tr-verify --window: exact
 * durations from decimal text, event intervals in half nanoseconds, and the
 * overlap and containment rules that decide what a window keeps.
 *
 * And the cut itself (window_cut_*), the algorithm of tr-window: what a
 * window keeps, in three looks at a stream of which only the first parses.
 *
 * Times are int64 "half nanoseconds": 2 x the floor of the exact value in
 * ns, plus 1 when the text has digits beyond the nanosecond (the exact value
 * then lies strictly between two whole ns).  Compared with a whole-ns
 * window endpoint (also doubled) this gives the exact answer without a
 * double anywhere.  Library code: returns a status, never prints. */
#ifndef TR_WINDOW_H
#define TR_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/event.h"
#include "core/intern.h"
#include "json/json.h"
#include "window/windowgroup.h"
#include "window/windowspan.h"

/* A decimal duration ("2", "1.5", "0.000001") with an optional unit "ns",
 * "us", "ms" or "s" (default_unit_ns when none, e.g. 1000000 for ms) ->
 * whole nanoseconds, exactly.  Refused (-1): a sign, an exponent, empty
 * text, digits below the nanosecond, a value beyond 2^62 ns. */
int window_parse_dur(const char *text, int64_t default_unit_ns, int64_t *ns);

/* "A-B" or "A" (then B = A), non-negative integers with A <= B; 0 or -1. */
int window_parse_range(const char *text, int64_t *a, int64_t *b);

/* The interval of an event from the raw texts of its ts and dur members
 * (dur may be NULL/0 for none; string values such as "12.5" are read
 * inside their quotes): *lo and *hi in half ns.  When both ts and dur have
 * digits beyond the ns the end is uncertain by one ns; *hi is then its
 * upper bound, so that a doubtful event is kept rather than lost.
 * 0, or -1 when ts is absent or not a number (or dur is present and not a
 * non-negative number), or WINDOW_RANGE when ts or its end lies beyond
 * TSNUM_MAX_NS (tsnum.h): a half ns time cannot hold it. */
#define WINDOW_RANGE (-2)
int window_interval(const char *ts, size_t tn, const char *dur, size_t dn,
		    int64_t *lo, int64_t *hi);

/* Half ns of a whole-ns value (saturating at the int64 range). */
int64_t window_half(int64_t ns);

/* The categories a window counts, by the event's ph. */
enum window_cat {
	WCAT_COMPLETE,   /* X */
	WCAT_DURATION,   /* B, E (matched per thread, kept whole) */
	WCAT_INSTANT,    /* i, I, R */
	WCAT_COUNTER,    /* C */
	WCAT_METADATA,   /* M */
	WCAT_FLOW,       /* s, t, f */
	WCAT_ASYNC,      /* b, e, n, S, T, p, F */
	WCAT_OTHER,      /* anything else, and events without ph */
	WCAT_N
};
enum window_cat window_category(const char *ph, size_t n);
const char *window_category_name(enum window_cat c);

/* ---- pass bytes: the bytes of the events that overlap each of a set of
 * spans, in one look at each event ---------------------------------------
 * The spans are known first, the events come after, in any order: an
 * event [lo, hi] overlaps span [a, b] unless lo > b or hi < a (disjoint
 * cases, as lo <= hi and a <= b), so each span's bytes are the total less
 * two sums that sorted span ends and a bucket per end give exactly.
 * window_tally_sum, once every event is in, turns the buckets into
 * running sums, so that each span's bytes take two binary searches, not a
 * walk over every bucket (a table of n spans: n log n, not n^2). */
struct window_tally {
	int64_t *los, *his;        /* span starts, span ends, each sorted */
	uint64_t *after, *before;  /* bytes of events by bucket (n + 1 each) */
	const int64_t *span_lo, *span_hi;  /* the caller's spans, unsorted */
	size_t n;
	uint64_t total;
	size_t hint_after, hint_before;    /* the buckets of the last event */
	int summed;                /* after[k]: bytes of buckets k..n, before[k]:
				    * of buckets 0..k (window_tally_sum) */
};

/* n spans [lo[i], hi[i]] (half ns, lo <= hi; the arrays stay the
 * caller's and must outlive the tally); 0 or -1 when memory runs out. */
int window_tally_init(struct window_tally *t, const int64_t *lo, const int64_t *hi, size_t n);
/* An event [lo, hi] of bytes bytes; none after window_tally_sum. */
void window_tally_add(struct window_tally *t, int64_t lo, int64_t hi, uint64_t bytes);
/* After the last event: the running sums that make window_tally_bytes
 * O(log n).  Calling it again does nothing. */
void window_tally_sum(struct window_tally *t);
/* The bytes of the events added so far that overlap span i (the same
 * answer before window_tally_sum, only in O(n)). */
uint64_t window_tally_bytes(const struct window_tally *t, size_t i);
void window_tally_free(struct window_tally *t);

/* ---- the cut: what tr-window keeps -------------------------------------
 * Three looks at a stream: window_cut_see on every event of the first read
 * (the guides, the trace start; each event of a flow, async id and B/E pair
 * to its group, on disk: windowgroup.h) gives a small fixed-size record per
 * event, which the caller keeps (a temporary file); window_cut_choose fixes
 * the window and matches the groups against it; window_cut_measure
 * on each record counts what the window keeps and finds the threads that
 * keep events; window_cut_keeps then says for each record whether it is
 * written.  No event text is parsed twice. */

/* What the first read keeps of one stream line. */
enum window_line {
	WLINE_EVENT,   /* an event */
	WLINE_COPY,    /* a control record written as it is (head, anchors...) */
	WLINE_REPORT,  /* an earlier stage's report record: not written */
	WLINE_TAIL     /* the tail: the window's report goes before it */
};

struct window_rec {
	int64_t lo, hi;       /* the event's interval (half ns), when timed */
	uint32_t len;         /* bytes of the line, its newline included */
	uint32_t pid;         /* id + 1 of its pid text, 0: none */
	uint32_t thread;      /* id + 1 of its (pid, tid), 0: none (metadata:
			       * 0 also for a process's metadata) */
	struct windowgroup_ref grp;  /* where the verdict on its flow or
			       * async group or B/E pair is (part 0: none) */
	uint8_t line;         /* enum window_line */
	uint8_t cat;          /* enum window_cat */
	uint8_t timed;        /* lo and hi hold its interval */
	char ph;              /* the ph letter, for the report's rows */
};

struct window_guide {
	int64_t pass, layer, lo, hi;   /* lo, hi: half ns */
};

/* The window asked for: the options of tr-window(1), NULL when absent. */
struct window_spec {
	const char *from, *to, *passes, *pass, *layers, *around, *pad;
	int list_passes;  /* every event is inside: only the pass table counts */
};

/* The kind of window the options give (one of --passes, --pass, --layers,
 * --around, --from/--to, with --pass and --pad only where they belong):
 * 1 when they give exactly one, 0 for none, -1 for a wrong mix. */
int window_spec_kind(const struct window_spec *w);
/* The options as given, "--passes 3-4 --pad 2ms" (the report's "spec"),
 * appended to out; 0 or -1 (memory). */
int window_spec_text(const struct window_spec *w, struct buf *out);

/* Results of window_cut_* and window_spec_check: 0, or the exit status of a refusal (1: the
 * window is refused, 2: a malformed option value, or the temporary file of
 * the groups failed), with the message in cut.err; -1: memory ran out. */
enum { WINDOW_OK = 0, WINDOW_REFUSED = 1, WINDOW_BAD_OPTION = 2, WINDOW_SYSTEM = 2 };

struct window_cut {
	/* from the first read */
	uint64_t events;
	int64_t origin_ns;
	int have_origin;
	struct window_guide *g;
	size_t ng, gcap;
	/* flows and async ids (grouped by id), B/E pairs (by number), on disk */
	struct windowgroup groups;
	uint32_t npairs;
	struct intern pids, threads;  /* pid texts, "pid\001tid" */
	struct window_stack { uint32_t *v; size_t n, cap; } *stacks;  /* open B, by thread */
	size_t stacks_cap;
	/* the window: half ns, and its exact whole-ns endpoints */
	int64_t w0, w1, w0_ns, w1_ns;
	/* the passes the guides cover, in the guides' order, and their bytes */
	struct window_guide *passes;
	int64_t *pass_lo, *pass_hi;
	size_t npasses;
	struct window_tally tally;
	/* what the window keeps */
	uint8_t *pid_kept, *thread_kept;
	uint64_t kept[WCAT_N], dropped[WCAT_N];
	uint64_t flows_cut, async_cut, bytes;
	struct window_meta { uint32_t pid, thread, bytes; } *meta;
	size_t nmeta, meta_cap;
	int checked;                  /* the metadata is counted */
	struct buf rows;              /* dropped-event rows, ',' separated */
	uint64_t nrows;
	uint64_t measured;            /* events measured so far */
	struct buf err;               /* the message of a refusal */
	struct jdoc doc;
	struct buf key;
	char last_pid[32], last_thread[64];
	size_t last_pid_len, last_thread_len;
	uint32_t last_pid_id, last_thread_id;
};

void window_cut_init(struct window_cut *c);
void window_cut_free(struct window_cut *c);
/* One event of the first read (its line without the newline): its record.
 * 0; WINDOW_REFUSED for a guide without its args (message in c->err); -1
 * when memory runs out. */
int window_cut_see(struct window_cut *c, const char *line, size_t len, struct window_rec *rec);
/* Any line of the first read, of stream kind `kind` (stream.h's LINE_*),
 * into *rec: events through window_cut_see; the head's source name into
 * *source (the caller frees it); earlier reports and the tail marked; the
 * tail's raw source_sha256 string (or null) appended to sha.  0,
 * WINDOW_REFUSED (a head that is not one, or as window_cut_see; message in
 * c->err), -1 when memory runs out. */
int window_cut_line(struct window_cut *c, int kind, const char *line, size_t len,
		    struct window_rec *rec, char **source, struct buf *sha);
/* The third read, the records from the first: for each run of stream
 * bytes [from, to) that goes out as it is, copy(ctx, from, to); where the
 * window's report goes (before the tail), report(ctx).  0; the first
 * non-zero status of a callback; -1 when the records cannot be read (errno
 * set); -2 when window_cut_keeps fails (c->err). */
struct window_recs;
int window_cut_write(struct window_cut *c, struct window_recs *recs,
		     int (*copy)(void *ctx, uint64_t from, uint64_t to), int (*report)(void *ctx),
		     void *ctx);
/* What the window kept, as the summary line says it (no program name, no
 * newline): "kept 3 events (120 bytes), dropped 1 event". */
int window_cut_summary(const struct window_cut *c, struct buf *out);
/* After the first read: the passes and the window of spec (with
 * list_passes: every event).  0, WINDOW_REFUSED, WINDOW_BAD_OPTION, -1. */
int window_cut_choose(struct window_cut *c, const struct window_spec *spec);
/* The option values alone, before any stream is read: each one's syntax
 * and --from after --to (WINDOW_BAD_OPTION, a usage error), with the
 * messages window_cut_choose would give. */
int window_spec_check(struct window_cut *c, const struct window_spec *spec);
/* Each record of the first read, in order; 0, WINDOW_SYSTEM or -1. */
int window_cut_measure(struct window_cut *c, const struct window_rec *r);
/* After the last record: the metadata kept, then the refusals of an empty
 * window and of one over max_bytes (when have_max); 0, WINDOW_REFUSED, -1. */
int window_cut_check(struct window_cut *c, const char *spec_text, int have_max,
		     uint64_t max_bytes);
/* Whether the record is written (after window_cut_check): 1 or 0; -1
 * when the groups' temporary file or memory fails (message in c->err). */
int window_cut_keeps(struct window_cut *c, const struct window_rec *r);
/* The window's report records (tr-stream(5)) into out: spec_text, the
 * head's source name (NULL: none) and the tail's source_sha256 (raw JSON
 * text); 0 or -1. */
int window_cut_report(const struct window_cut *c, const char *spec_text, const char *source_name,
		      const char *sha, size_t sha_len, struct buf *out);
/* The pass table: a line per pass, "pass K: A-B ms from the trace start,
 * N bytes of events", once every event is measured (no
 * window_cut_measure or window_cut_add_span after it); 0 or -1. */
int window_cut_pass_table(struct window_cut *c, struct buf *out);

/* ---- the pass table alone (tr-window --pass-table without a window) ---
 * The table needs of each event only its interval (the pass bytes), its ts
 * (the trace start) and whether it is a guide.  window_cut_span reads just
 * ph, ts, dur and cat, and sees the same guides, trace start and event
 * count as window_cut_see, without the threads and groups a window needs:
 * *counted is 1 when the event counts toward the pass bytes (timed, not
 * metadata; its interval in *lo, *hi), the caller keeping those (and the
 * line's bytes, its newline included) for after window_cut_choose with
 * list_passes, when window_cut_add_span takes each (in any order) in
 * place of window_cut_measure; then window_cut_pass_table.
 * 0, WINDOW_REFUSED or -1 as window_cut_see. */
int window_cut_span(struct window_cut *c, const char *line, size_t len, int64_t *lo,
		    int64_t *hi, int *counted);
/* window_cut_span with the members it reads already found: found[] holds
 * the raw texts of the event's first ph, ts, dur and cat members (len 0
 * when absent), in the order below, as window_cut_span's walk from the
 * first member would find them (scan_text_valid_members returning 1). */
enum { WINDOW_SPAN_PH, WINDOW_SPAN_TS, WINDOW_SPAN_DUR, WINDOW_SPAN_CAT, WINDOW_SPAN_N };
int window_cut_span_members(struct window_cut *c, const char *line, size_t len,
			    const struct member *found, int64_t *lo, int64_t *hi, int *counted);
void window_cut_add_span(struct window_cut *c, int64_t lo, int64_t hi, uint32_t bytes);

/* The records of the first read, kept by the caller in the file fd, read
 * back a block at a time. */
struct window_recs {
	int fd;
	struct window_rec v[4096];
	size_t n, at;
};

/* Back to the first record; 0 or -1 (errno set). */
int window_recs_rewind(struct window_recs *r);
/* The next record in *rec: 1, 0 at the end, -1 (errno set; EIO: the file
 * ends inside a record). */
int window_recs_next(struct window_recs *r, const struct window_rec **rec);

#endif
