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

#include "core/buf.h"
#include "core/intern.h"
#include "json/json.h"
#include "json/regex.h"
#include "core/textspill.h"
#include "json/tsnum.h"
#include "anchors/anchors.h"

/* The options of tr-select-anchors(1). */
struct anchorscan_options {
	const char *anchor_regex, *end_regex, *confirm_regex, *pid, *device;
	int64_t num_layers, offset, passes, first_layer;
	int confirm_cpu;
	size_t store_bound;  /* bytes of texts held in memory (0: TEXTSPILL_BOUND) */
};

/* A status is the exit status of tr-select-anchors, but for memory.  The
 * text store's temporary file (in TMPDIR, made only when the texts pass
 * TEXTSPILL_BOUND) is ANCHORSCAN_TROUBLE: "temporary file in DIR: why"
 * when it cannot be made, "temporary file: why" when it fails later. */
enum anchorscan_status {
	ANCHORSCAN_OK = 0,
	ANCHORSCAN_REFUSED = 1,   /* the input or the selection refused (EXIT_INPUT) */
	ANCHORSCAN_TROUBLE = 2,   /* a bad pattern, a regex resource limit (EXIT_TROUBLE) */
	ANCHORSCAN_NOMEM = 3,
};

/* What a matching kernel is to the selection. */
enum anchorscan_role { ANCHORSCAN_ANCHOR, ANCHORSCAN_END, ANCHORSCAN_CONFIRM };

/* One matching kernel, besides what the rules need of it (anchors.h):
 * a small fixed record; its own ts and dur texts wait in a text store
 * (textspill.h), the texts that repeat (pid, tid, device, name) are kept
 * once each. */
struct anchorscan_info {
	uint64_t text;         /* its ts text in the store, its dur text next */
	uint32_t group;        /* its (pid, device): an index into groups */
	uint32_t tid, name;    /* 1 + an id in texts; 0: absent */
	uint8_t flags;         /* ANCHORSCAN_HAS_TS ... */
};

enum {
	ANCHORSCAN_HAS_TS = 1,     /* the event has a ts member */
	ANCHORSCAN_HAS_DUR = 2,
	ANCHORSCAN_TS_OK = 4,      /* ... a JSON number */
	ANCHORSCAN_CORR_OK = 8,    /* an integer args.correlation */
	ANCHORSCAN_HAS_DEVICE = 16, /* an args.device member */
	ANCHORSCAN_LONG = 32,      /* its texts exceed TRSTREAM_KERNEL_MAX_TEXT */
};

/* The matching kernels of one role, in source order (info, correlation)
 * and, after anchorscan_finish, the group's first in time order (k: the
 * rules' view of each; k[j].ref is its index in info). */
struct anchorscan_matches {
	struct anchors_kernel *k;
	struct anchorscan_info *info;
	int64_t *correlation;      /* with --confirm-cpu only */
	size_t n, cap;
};

/* A (pid, device) of a match: raw pid text, raw args.device text (NULL
 * when absent). */
struct anchorscan_group {
	const char *pid, *device;
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

/* The ts and dur texts of one match, as read back (NULL: absent). */
struct anchorscan_texts {
	struct buf ts_buf, dur_buf;
	const char *ts, *dur;
};

/* Everything kept between the events and the tail.  Zero it, then
 * anchorscan_init. */
struct anchorscan {
	struct anchorscan_options opt;
	const char *progname;              /* for the lines of a refusal */
	struct regex *anchor_re, *end_re, *confirm_re;
	struct anchorscan_matches role[3]; /* by enum anchorscan_role */
	struct textspill store;            /* the matches' ts and dur texts */
	struct intern group_ids;           /* a (pid, device) key -> groups */
	struct anchorscan_group *groups;
	size_t ngroups, groups_cap;
	struct anchorscan_marks launches, scopes;
	struct {                           /* GPU-side ProfilerStep#N starts */
		struct anchors_time *t;
		uint32_t *pid;             /* 1 + an id in texts; 0: absent */
		size_t n, cap;
	} steps;
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
	struct buf name, cat, key;         /* unescaped scratch, a group key */
	int64_t origin_ns;
	int origin_sub, have_origin;
	struct buf origin_text;            /* the ts text the origin came from */
	struct tsnum_plain origin_plain;   /* ... analysed */
	struct intern texts;               /* pid, tid, device, name texts */
	uint64_t events;                   /* events seen */
	/* the selection, after anchorscan_finish */
	size_t group;                      /* the group chosen */
	const char *pid, *device;          /* the group: raw pid, device or "(none)" */
	const struct anchors_kernel *anchors, *ends;  /* role[].k, the group's, sorted */
	size_t nanchors, nends, need;
	uint32_t *terminal;                /* need, with --end-anchor-regex: the
					    * terminal of each in ends */
	struct anchorscan_texts scratch[2];
};

/* Compile the patterns.  ANCHORSCAN_TROUBLE with "--anchor-regex: why"
 * (or the option that failed) in msg. */
int anchorscan_init(struct anchorscan *s, const struct anchorscan_options *opt,
		    const char *progname, struct buf *msg);

/* One event line (they count from 0).  Refused: a layer_guide event, a
 * kernel matching two patterns, a matching line that is not a JSON object;
 * ANCHORSCAN_TROUBLE when a regex hit its resource limit. */
int anchorscan_event(struct anchorscan *s, const char *line, size_t len, struct buf *msg);

/* At the tail: choose the group, select, check the landmark, the
 * terminals and the shape of whole passes (anchors_pass_shape, then
 * anchors_steps against the ProfilerStep#N spans of cat
 * gpu_user_annotation on the anchors' pid), then any negative kernel dur,
 * each refusal with its evidence. */
int anchorscan_finish(struct anchorscan *s, struct buf *msg);

/* The records, after anchorscan_finish: the anchors record, then the
 * anchor record of selected anchor i (0 .. need - 1).  0, or -1 when
 * memory runs out. */
int anchorscan_put_anchors(const struct anchorscan *s, struct buf *b);
/* A status: ANCHORSCAN_TROUBLE when the text store's temporary file
 * fails, its text in msg. */
int anchorscan_put_anchor(struct anchorscan *s, size_t i, struct buf *b, struct buf *msg);

void anchorscan_free(struct anchorscan *s);

#endif
