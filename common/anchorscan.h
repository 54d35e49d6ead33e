/* anchorscan: the work of tr-select-anchors over one stream: match the
 * kernels against the anchor, terminal and landmark patterns as the events
 * go by (with the trace origin and the (pid, tid) pairs in use), then
 * choose the group, select and verify the anchors by the rules of
 * anchors.h, and write the anchors and anchor records (trstream.h).
 * Library code: it returns a status and never prints or exits; a refusal
 * comes back as the whole text the program prints (after its name), with
 * the exit status it documents. */
#ifndef TR_ANCHORSCAN_H
#define TR_ANCHORSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "intern.h"
#include "json.h"
#include "regex.h"

/* The options of tr-select-anchors(1). */
struct anchorscan_options {
	const char *anchor_regex, *end_regex, *confirm_regex, *pid, *device;
	int64_t num_layers, offset, passes, first_layer;
	int confirm_cpu;
};

/* A status is the exit status of tr-select-anchors, but for memory. */
enum anchorscan_status {
	ANCHORSCAN_OK = 0,
	ANCHORSCAN_REFUSED = 1,   /* the input or the selection refused (EXIT_INPUT) */
	ANCHORSCAN_TROUBLE = 2,   /* a bad pattern, a regex resource limit (EXIT_TROUBLE) */
	ANCHORSCAN_NOMEM = 3,
};

/* What a matching kernel is to the selection. */
enum anchorscan_role { ANCHORSCAN_ANCHOR, ANCHORSCAN_END, ANCHORSCAN_CONFIRM };

/* One matching kernel; raw JSON texts are kept for the records. */
struct anchorscan_match {
	uint64_t index;        /* position among this stage's input events */
	int64_t ts_ns, dur_ns;
	int ts_sub, dur_sub;   /* digits beyond the nanosecond */
	int ts_ok, dur_ok;     /* JSON numbers present */
	enum anchorscan_role role;
	int64_t correlation;   /* args.correlation, for --confirm-cpu */
	int correlation_ok;
	char *ts, *dur;        /* raw, this match's own */
	/* raw, shared: the same few texts repeat over thousands of anchors */
	char *pid, *tid, *device, *name;  /* device may be NULL */
};

/* A CPU-side event for --confirm-cpu: a kernel launch (key: its
 * args.correlation) or a scope matching the landmark (key unused). */
struct anchorscan_mark {
	int64_t correlation, ts_ns;
	int ts_sub;
	uint64_t index;
	const char *pid, *tid;  /* raw, shared */
};

struct anchorscan_marks {
	struct anchorscan_mark *v;
	size_t n, cap;
};

/* Everything kept between the events and the tail.  Zero it, then
 * anchorscan_init. */
struct anchorscan {
	struct anchorscan_options opt;
	const char *progname;              /* for the lines of a refusal */
	struct regex *anchor_re, *end_re, *confirm_re;
	struct anchorscan_match *m;
	size_t nm, mcap;
	struct anchorscan_marks launches, scopes;
	struct {                           /* the first kernel with a negative dur */
		int seen;
		uint64_t index;
		char *ts, *dur, *name;     /* raw */
	} bad_dur;
	struct {                           /* (pid, tid) pairs seen, raw */
		struct intern seen;        /* "pid\001tid" */
		char last[256];            /* the key added last */
		size_t last_len;
		char **pid, **tid;
		size_t n, cap;
	} pairs;
	struct jdoc doc;
	struct buf name, cat;              /* unescaped scratch */
	int64_t origin_ns;
	int origin_sub, have_origin;
	struct buf origin_text;            /* the ts text the origin came from */
	struct intern texts;               /* pid, tid, device, name texts */
	uint64_t events;                   /* events seen */
	/* the selection, after anchorscan_finish */
	const char *pid, *device;          /* the group: raw pid, device or "(none)" */
	struct anchorscan_match **anchors, **ends;
	size_t nanchors, nends, need;
	size_t *terminal;                  /* need: the terminal of each in ends */
};

/* Compile the patterns.  ANCHORSCAN_TROUBLE with "--anchor-regex: why"
 * (or the option that failed) in msg. */
int anchorscan_init(struct anchorscan *s, const struct anchorscan_options *opt,
		    const char *progname, struct buf *msg);

/* One event line (they count from 0).  Refused: a layer_guide event, a
 * kernel matching two patterns, a matching line that is not a JSON object;
 * ANCHORSCAN_TROUBLE when a regex hit its resource limit. */
int anchorscan_event(struct anchorscan *s, const char *line, size_t len, struct buf *msg);

/* At the tail: choose the group, select, check the landmark and the
 * terminals, then any negative kernel dur, each refusal with its evidence. */
int anchorscan_finish(struct anchorscan *s, struct buf *msg);

/* The records, after anchorscan_finish: the anchors record, then the
 * anchor record of selected anchor i (0 .. need - 1).  0, or -1 when
 * memory runs out. */
int anchorscan_put_anchors(const struct anchorscan *s, struct buf *b);
int anchorscan_put_anchor(const struct anchorscan *s, size_t i, struct buf *b);

void anchorscan_free(struct anchorscan *s);

#endif
