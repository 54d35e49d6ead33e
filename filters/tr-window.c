/* tr-window: cut an exact, browser-sized piece out of a trace-layers stream:
 * the events that overlap a window given by passes, layers or time, whole
 * and byte-identical, with the metadata of the threads they sit on, and a
 * report for tr-encode.  See tr-window(1).
 *
 * The window is known only at the end of the stream (the guides come last,
 * the trace start is the smallest ts anywhere), so the stream is spilled to
 * an unlinked temporary file while the guides, the trace start, every flow,
 * async pair and B/E pair and every metadata event are recorded; the spill
 * is then read twice: once to decide each event (a bit each) and find the
 * threads that keep one, whose metadata is then decided from the record,
 * and once to write the events whose bit is set. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "event.h"
#include "filter.h"
#include "intern.h"
#include "json.h"
#include "opt.h"
#include "stream.h"
#include "tsnum.h"
#include "window.h"

#define DROPPED_ROWS 500  /* dropped-event rows per report record */
#define REPORT_MEMBER "{\"@tr\":\"report\",\"suffix\":\".window.json\",\"member\":"
#define NO_LAYER INT64_MIN

static const char usage_text[] =
	"usage: tr-window --passes A-B | --pass K [--layers A-B] |\n"
	"                 --around LN --pass K [--pad DUR] | --from MS [--to MS]\n"
	"                 [--max-bytes N] [--pass-table FILE]\n"
	"       tr-window --list-passes\n"
	"Keep the events of a trace-layers stream (tr-stream(5)) that overlap a\n"
	"window, whole and byte-identical, and add a report OUTPUT.window.json.\n"
	"\n"
	"  --passes A-B    from the first guide of pass A to the last of pass B\n"
	"  --pass K        pass K (with --layers or --around: the pass they are in)\n"
	"  --layers A-B    from guide LA to guide LB of the pass\n"
	"  --around LN     guide LN of the pass, widened by --pad on both sides\n"
	"  --pad DUR       duration with unit ns, us, ms or s (default unit ms; 0)\n"
	"  --from MS       window start, ms after the trace start (default 0)\n"
	"  --to MS         window end, ms after the trace start (default: the end)\n"
	"  --max-bytes N   refuse a window larger than N bytes of events (K, M, G)\n"
	"  --pass-table FILE  write each pass's time span and bytes to FILE\n"
	"  --list-passes   write only that table, to standard output, and no stream\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected or window refused, 2 usage or\n"
	"system trouble.\n";

/* A flow, async id or B/E pair: the extent of its ends, in half ns. */
struct group {
	int64_t lo, hi;
	int counted;   /* its drop was counted */
};

struct guide {
	int64_t pass, layer, lo, hi;
};

/* A metadata event, decided once the threads that keep events are known. */
struct meta {
	uint64_t index;
	char *pid;       /* raw text */
	char *thread;    /* "pid\001tid", or NULL for process metadata */
	size_t bytes;
};

struct stack {
	uint32_t *v;
	size_t n, cap;
};

struct state {
	/* the spec */
	const char *from, *to, *passes, *pass, *layers, *around, *pad;
	uint64_t max_bytes;
	int have_max, list_passes;
	const char *table_path;
	/* each pass's extent (half ns) and the bytes of the events overlapping it */
	struct guide *passes_ext;
	uint64_t *pass_bytes;
	size_t npasses;
	struct buf spec;
	/* from the first read */
	int64_t origin_ns;
	int have_origin;
	struct buf origin_text;
	struct guide *g;
	size_t ng, gcap;
	struct intern group_keys;
	struct group *groups;
	size_t groups_cap;
	struct intern thread_keys;     /* B/E stacks, by "pid\001tid" */
	struct stack *stacks;
	size_t stacks_cap;
	struct group *pairs;
	size_t npairs, pairs_cap, next_pair;
	char *source_name;
	struct buf sha;                /* raw source_sha256 of the tail, or null */
	uint64_t events;
	/* the window, in half ns, and its exact endpoints */
	int64_t w0, w1, w0_ns, w1_ns;
	/* what the window keeps */
	struct intern pids, threads;   /* keys of kept events */
	uint8_t *pid_kept, *thread_kept;
	size_t pid_cap, thread_cap;
	uint64_t kept[WCAT_N], dropped[WCAT_N];
	uint64_t flows_cut, async_cut, bytes;
	struct meta *meta;
	size_t nmeta, meta_cap;
	uint8_t *keep;                 /* a bit per event */
	struct buf rows;               /* dropped-event rows, ',' separated */
	uint64_t nrows;
	struct jdoc doc;
	struct buf key;
};

static const char *const keys[] = { "ph", "ts", "dur", "pid", "tid", "cat", "id", "id2",
	"name" };
enum { K_PH, K_TS, K_DUR, K_PID, K_TID, K_CAT, K_ID, K_ID2, K_NAME, NKEYS };

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return v;
	while (*cap < need)
		*cap = *cap ? *cap * 2 : 64;
	return xrealloc(v, *cap * size);
}

static int64_t intern_or_die(struct intern *t, const char *k, size_t n)
{
	int64_t id = intern_id(t, k, n);

	if (id < 0)
		die_nomem();
	return id;
}

static const char *thread_key(struct state *st, const struct member *m, size_t *n)
{
	buf_reset(&st->key);
	if (buf_add(&st->key, m[K_PID].p, m[K_PID].len) != 0 || buf_addch(&st->key, '\001') != 0 ||
	    buf_add(&st->key, m[K_TID].p, m[K_TID].len) != 0)
		die_nomem();
	*n = st->key.len;
	return st->key.p;
}

/* The group of a flow or async event: its class and id text.  Pairs are
 * keyed by the id alone (not the category or name, which Perfetto may also
 * use): events that Perfetto would pair are then always in one group, and
 * a window never keeps part of one. */
static int64_t group_of(struct state *st, enum window_cat c, const struct member *m, int add)
{
	const struct member *id = m[K_ID].len ? &m[K_ID] : &m[K_ID2];

	if (id->len == 0)
		return -1;
	buf_reset(&st->key);
	if (buf_addch(&st->key, c == WCAT_FLOW ? 'f' : 'a') != 0 ||
	    buf_add(&st->key, id->p, id->len) != 0)
		die_nomem();
	if (!add)
		return intern_find(&st->group_keys, st->key.p, st->key.len);
	return intern_or_die(&st->group_keys, st->key.p, st->key.len);
}

/* B/E: matched per thread as Perfetto does, in stream order; the pair
 * number of this end, or -1 for an E with nothing open.  Each read of the
 * stream replays the matching from the start, so pairs keep their numbers. */
static int64_t pair_of(struct state *st, const struct member *m)
{
	size_t n;
	const char *k = thread_key(st, m, &n);
	int64_t t = intern_or_die(&st->thread_keys, k, n);
	struct stack *s;

	if ((size_t)t >= st->stacks_cap) {
		size_t old = st->stacks_cap;
		st->stacks = grow(st->stacks, &st->stacks_cap, (size_t)t + 1, sizeof *st->stacks);
		memset(st->stacks + old, 0, (st->stacks_cap - old) * sizeof *st->stacks);
	}
	s = &st->stacks[t];
	if (m[K_PH].p[1] == 'B') {
		s->v = grow(s->v, &s->cap, s->n + 1, sizeof *s->v);
		s->v[s->n++] = (uint32_t)st->next_pair;
		return (int64_t)st->next_pair++;
	}
	return s->n ? (int64_t)s->v[--s->n] : -1;
}

static void reset_pairs(struct state *st)
{
	size_t i;

	for (i = 0; i < st->thread_keys.n; i++)
		st->stacks[i].n = 0;
	st->next_pair = 0;
}

static void see_guide(struct state *st, const char *line, size_t len, int64_t lo, int64_t hi)
{
	struct jdoc *d = &st->doc;
	int args;
	int64_t pass, layer, a, b;
	struct guide *g;
	size_t n;
	const char *t;

	if (jdoc_parse(d, line, len, NULL) != 0)
		die(EXIT_INPUT, "malformed layer guide event");
	args = jdoc_find(d, 0, "args");
	if (jdoc_int64(d, jdoc_find(d, args, "pass_index"), &pass) != 0 ||
	    jdoc_int64(d, jdoc_find(d, args, "layer_id"), &layer) != 0)
		die(EXIT_INPUT, "layer guide event %" PRIu64 " without args.pass_index and "
		    "args.layer_id (not written by tr-guides?)", st->events);
	/* the exact anchor times widen the rounded guide, never narrow it */
	t = jdoc_raw(d, jdoc_find(d, args, "start_us"), &n);
	if (window_interval(t, n, NULL, 0, &a, &b) == 0 && a < lo)
		lo = a;
	t = jdoc_raw(d, jdoc_find(d, args, "end_us"), &n);
	if (window_interval(t, n, NULL, 0, &a, &b) == 0 && b > hi)
		hi = b;
	st->g = grow(st->g, &st->gcap, st->ng + 1, sizeof *st->g);
	g = &st->g[st->ng++];
	g->pass = pass;
	g->layer = layer;
	g->lo = lo;
	g->hi = hi;
}

static void extend(struct group *g, int64_t lo, int64_t hi)
{
	if (lo < g->lo)
		g->lo = lo;
	if (hi > g->hi)
		g->hi = hi;
}

/* The first read: the origin, the guides, the groups. */
/* The members an event's decision needs: ph, ts, dur, pid and tid, which
 * come before args in Kineto's events (the walk stops once it has them);
 * cat for a slice (a guide?), id and id2 for flows and async events, name
 * for metadata, in a second walk only for those. */
static enum window_cat members_of(const char *line, size_t len, struct member *m)
{
	static const char *const more[] = { "cat", "id", "id2", "name" };
	enum window_cat c;

	event_members(line, len, keys, K_CAT, m);
	c = window_category(m[K_PH].p, m[K_PH].len);
	if (c == WCAT_FLOW || c == WCAT_ASYNC || c == WCAT_METADATA || c == WCAT_COMPLETE) {
		memset(m + K_CAT, 0, (NKEYS - K_CAT) * sizeof *m);
		if (c == WCAT_COMPLETE)
			event_members(line, len, more, 1, m + K_CAT);
		else
			event_members(line, len, more, 4, m + K_CAT);
	} else {
		memset(m + K_CAT, 0, (NKEYS - K_CAT) * sizeof *m);
	}
	return c;
}

static void see_meta(struct state *st, const struct member *m, size_t len)
{
	struct meta *x;
	size_t n;

	st->meta = grow(st->meta, &st->meta_cap, st->nmeta + 1, sizeof *st->meta);
	x = &st->meta[st->nmeta++];
	x->index = st->events;
	x->bytes = len + 1;
	x->pid = m[K_PID].len ? xmemdup(m[K_PID].p, m[K_PID].len) : NULL;
	x->thread = NULL;
	/* metadata of a process (no tid, or a process_* name) follows its pid;
	 * any other its thread */
	if (m[K_PID].len && m[K_TID].len &&
	    !(m[K_NAME].len > 9 && memcmp(m[K_NAME].p, "\"process_", 9) == 0)) {
		const char *k = thread_key(st, m, &n);
		x->thread = xmemdup(k, n);
	}
}

/* The trace start: the smallest numeric ts, as tr-select-anchors counts it. */
static void see_origin(struct state *st, struct member ts)
{
	int64_t ns;
	int sub;

	/* most ts texts are plainly not below the origin's: no conversion */
	if (ts.len == 0 || ts.p[0] == '"' ||
	    (st->have_origin && num_text_not_below(ts.p, ts.len, st->origin_text.p,
						   st->origin_text.len)))
		return;
	if (num_us_to_ns(ts.p, ts.len, &ns, &sub) == NUM_OK &&
	    (!st->have_origin || ns < st->origin_ns)) {
		st->origin_ns = ns;
		st->have_origin = 1;
		buf_reset(&st->origin_text);
		if (buf_add(&st->origin_text, ts.p, ts.len) != 0)
			die_nomem();
	}
}

static void see_event(struct state *st, const char *line, size_t len)
{
	static const char *const first[] = { "ph", "ts", "cat" };
	struct member m[NKEYS];
	enum window_cat c;
	int64_t lo, hi, id;
	int timed;

	/* most events are slices: ph, ts and cat (a guide?) are all this read
	 * needs of them, and they come first */
	event_members(line, len, first, 3, m);
	c = window_category(m[0].p, m[0].len);
	if ((c == WCAT_COMPLETE && !(m[2].len == 13 &&
				     memcmp(m[2].p, "\"layer_guide\"", 13) == 0)) ||
	    c == WCAT_INSTANT || c == WCAT_COUNTER || c == WCAT_OTHER) {
		see_origin(st, m[1]);
		return;
	}
	c = members_of(line, len, m);
	see_origin(st, m[K_TS]);
	if (c == WCAT_METADATA) {
		see_meta(st, m, len);
		return;
	}
	timed = window_interval(m[K_TS].p, m[K_TS].len, c == WCAT_COMPLETE ? m[K_DUR].p : NULL,
				m[K_DUR].len, &lo, &hi) == 0;
	if (c == WCAT_COMPLETE && timed && m[K_CAT].len == 13 &&
	    memcmp(m[K_CAT].p, "\"layer_guide\"", 13) == 0)
		see_guide(st, line, len, lo, hi);
	if (!timed)
		return;
	if (c == WCAT_FLOW || c == WCAT_ASYNC) {
		id = group_of(st, c, m, 1);
		if (id < 0)
			return;
		if ((size_t)id >= st->groups_cap) {
			size_t old = st->groups_cap;
			st->groups = grow(st->groups, &st->groups_cap, (size_t)id + 1,
					  sizeof *st->groups);
			for (; old < st->groups_cap; old++)
				st->groups[old] = (struct group){ INT64_MAX, INT64_MIN, 0 };
		}
		extend(&st->groups[id], lo, hi);
	} else if (c == WCAT_DURATION && m[K_PID].len && m[K_TID].len) {
		id = pair_of(st, m);
		if (id < 0)
			return;
		if ((size_t)id >= st->npairs) {
			st->pairs = grow(st->pairs, &st->pairs_cap, (size_t)id + 1, sizeof *st->pairs);
			/* a B without its E lasts to the end, as Perfetto draws it */
			st->pairs[id] = (struct group){ lo, INT64_MAX, 0 };
			st->npairs = (size_t)id + 1;
		} else {
			st->pairs[id].hi = hi;
		}
	}
}

/* ---- the window ------------------------------------------------------ */

static int64_t parse_int_or_die(const char *opt, const char *text)
{
	int64_t v;

	if (text[0] == 'L')
		text++;
	if (opt_parse_i64(text, 0, INT32_MAX, &v) != 0)
		die(EXIT_TROUBLE, "%s: invalid value '%s'", opt, text);
	return v;
}

static void list_passes(const struct state *st, struct buf *b)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;

	for (i = 0; i < st->ng; i++) {
		if (st->g[i].pass < lo)
			lo = st->g[i].pass;
		if (st->g[i].pass > hi)
			hi = st->g[i].pass;
	}
	buf_printf(b, "%" PRId64 "-%" PRId64, lo, hi);
}

static int pass_exists(const struct state *st, int64_t pass)
{
	size_t i;

	for (i = 0; i < st->ng; i++)
		if (st->g[i].pass == pass)
			return 1;
	return 0;
}

static void need_pass(const struct state *st, int64_t pass)
{
	struct buf b = BUF_INIT;

	if (pass_exists(st, pass))
		return;
	list_passes(st, &b);
	die(EXIT_INPUT, "pass %" PRId64 " does not exist (the guides cover passes %s)", pass, b.p);
}

/* The extent of guides [la, lb] of pass (all layers when la is NO_LAYER). */
static void guide_extent(const struct state *st, int64_t pass, int64_t la, int64_t lb,
			 int64_t *lo, int64_t *hi)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	size_t i;
	int found_a = la == NO_LAYER, found_b = la == NO_LAYER;

	*lo = INT64_MAX;
	*hi = INT64_MIN;
	for (i = 0; i < st->ng; i++) {
		const struct guide *g = &st->g[i];
		if (g->pass != pass)
			continue;
		if (g->layer < first)
			first = g->layer;
		if (g->layer > last)
			last = g->layer;
		if (la != NO_LAYER && (g->layer < la || g->layer > lb))
			continue;
		found_a |= g->layer == la;
		found_b |= g->layer == lb;
		if (g->lo < *lo)
			*lo = g->lo;
		if (g->hi > *hi)
			*hi = g->hi;
	}
	if (!found_a || !found_b)
		die(EXIT_INPUT, "layer L%" PRId64 " does not exist in pass %" PRId64
		    " (its guides are L%" PRId64 "-L%" PRId64 ")", found_a ? lb : la, pass, first, last);
}

static int64_t lone_pass(const struct state *st, const char *opt)
{
	size_t i;
	struct buf b = BUF_INIT;

	for (i = 1; i < st->ng; i++)
		if (st->g[i].pass != st->g[0].pass) {
			list_passes(st, &b);
			die(EXIT_TROUBLE, "%s needs --pass K: the guides cover passes %s", opt, b.p);
		}
	return st->g[0].pass;
}

/* Whole ns below (or above, when up) a half-ns time. */
static int64_t half_to_ns(int64_t half, int up)
{
	int64_t ns = half / 2;

	if (half % 2 != 0 && (half < 0) != up)
		ns += up ? 1 : -1;
	return ns;
}

static void choose_window(struct state *st)
{
	int64_t lo, hi;

	if (st->from || st->to) {
		int64_t from = 0, to = 0;
		if (!st->have_origin)
			die(EXIT_INPUT, "empty window: the stream has no event with a numeric ts");
		if (st->from && window_parse_dur(st->from, 1000000, &from) != 0)
			die(EXIT_TROUBLE, "--from: invalid value '%s' (milliseconds: digits with "
			    "at most six decimals, or a unit ns, us, ms, s)", st->from);
		if (st->to && window_parse_dur(st->to, 1000000, &to) != 0)
			die(EXIT_TROUBLE, "--to: invalid value '%s' (milliseconds: digits with "
			    "at most six decimals, or a unit ns, us, ms, s)", st->to);
		if (st->to && to < from)
			die(EXIT_INPUT, "empty window: --from %s is after --to %s", st->from, st->to);
		st->w0_ns = st->origin_ns + from;
		st->w1_ns = st->to ? st->origin_ns + to : INT64_MAX / 2;
		st->w0 = window_half(st->w0_ns);
		st->w1 = window_half(st->w1_ns);
		return;
	}
	if (st->ng == 0)
		die(EXIT_INPUT, "the stream has no layer guides (cat \"layer_guide\"): --passes, "
		    "--pass, --layers and --around need a trace annotated by tr-guides or "
		    "tr-layer-track; a window by time (--from, --to) works on any trace");
	if (st->passes) {
		int64_t a, b, l2, h2, p;
		if (window_parse_range(st->passes, &a, &b) != 0)
			die(EXIT_TROUBLE, "--passes: invalid value '%s' (A-B or A)", st->passes);
		need_pass(st, a);
		need_pass(st, b);
		lo = INT64_MAX;
		hi = INT64_MIN;
		for (p = a; p <= b; p++) {
			if (!pass_exists(st, p))
				continue;
			guide_extent(st, p, NO_LAYER, NO_LAYER, &l2, &h2);
			lo = l2 < lo ? l2 : lo;
			hi = h2 > hi ? h2 : hi;
		}
	} else {
		int64_t pass = st->pass ? parse_int_or_die("--pass", st->pass) :
			lone_pass(st, st->layers ? "--layers" : "--around");
		need_pass(st, pass);
		if (st->layers) {
			int64_t a, b;
			if (window_parse_range(st->layers, &a, &b) != 0)
				die(EXIT_TROUBLE, "--layers: invalid value '%s' (A-B or A)", st->layers);
			guide_extent(st, pass, a, b, &lo, &hi);
		} else if (st->around) {
			int64_t l = parse_int_or_die("--around", st->around), pad = 0;
			if (st->pad && window_parse_dur(st->pad, 1000000, &pad) != 0)
				die(EXIT_TROUBLE, "--pad: invalid value '%s' (e.g. 2ms, 500us, 0.5)",
				    st->pad);
			guide_extent(st, pass, l, l, &lo, &hi);
			lo -= 2 * pad;
			hi += 2 * pad;
		} else {
			guide_extent(st, pass, NO_LAYER, NO_LAYER, &lo, &hi);
		}
	}
	/* whole ns that hold the guides' exact extent */
	st->w0_ns = half_to_ns(lo, 0);
	st->w1_ns = half_to_ns(hi, 1);
	st->w0 = window_half(st->w0_ns);
	st->w1 = window_half(st->w1_ns);
}

/* The passes the guides cover, in the guides' order, with their extents. */
static void find_passes(struct state *st)
{
	size_t i, k;

	st->passes_ext = xmalloc((st->ng + 1) * sizeof *st->passes_ext);
	st->pass_bytes = xmalloc((st->ng + 1) * sizeof *st->pass_bytes);
	for (i = 0; i < st->ng; i++) {
		for (k = 0; k < st->npasses; k++)
			if (st->passes_ext[k].pass == st->g[i].pass)
				break;
		if (k == st->npasses) {
			st->passes_ext[k] = st->g[i];
			st->pass_bytes[k] = 0;
			st->npasses++;
		}
		if (st->g[i].lo < st->passes_ext[k].lo)
			st->passes_ext[k].lo = st->g[i].lo;
		if (st->g[i].hi > st->passes_ext[k].hi)
			st->passes_ext[k].hi = st->g[i].hi;
	}
}

/* The pass table: each pass's time span and the bytes of its events (an
 * event overlapping two passes counts in both). */
static void print_passes(const struct state *st, FILE *to)
{
	size_t k;
	char a[NUM_US_BUFSZ], b[NUM_US_BUFSZ];

	for (k = 0; k < st->npasses; k++) {
		const struct guide *p = &st->passes_ext[k];
		num_format_ms6(p->lo / 2 - st->origin_ns, a);
		num_format_ms6((p->hi + 1) / 2 - st->origin_ns, b);
		fprintf(to, "pass %" PRId64 ": %s-%s ms from the trace start, %" PRIu64
			" bytes of events\n", p->pass, a, b, st->pass_bytes[k]);
	}
}

static void count_pass_bytes(struct state *st, const struct member *m, enum window_cat c,
			     size_t len)
{
	int64_t lo, hi;
	size_t k;

	if (st->npasses == 0 || c == WCAT_METADATA ||
	    window_interval(m[K_TS].p, m[K_TS].len, c == WCAT_COMPLETE ? m[K_DUR].p : NULL,
			    m[K_DUR].len, &lo, &hi) != 0)
		return;
	for (k = 0; k < st->npasses; k++)
		if (window_overlaps(lo, hi, st->passes_ext[k].lo, st->passes_ext[k].hi))
			st->pass_bytes[k] += len + 1;
}

/* ---- the decision ---------------------------------------------------- */

enum verdict { KEEP, DROP, DROP_CUT, META };

/* What the window does with one event (metadata is decided later, from
 * the threads that keep events). */
static enum verdict decide(struct state *st, const struct member *m, enum window_cat c)
{
	int64_t lo, hi, id;
	struct group *g;

	if (c == WCAT_METADATA)
		return META;
	if (window_interval(m[K_TS].p, m[K_TS].len, c == WCAT_COMPLETE ? m[K_DUR].p : NULL,
			    m[K_DUR].len, &lo, &hi) != 0)
		return DROP;
	if (c == WCAT_DURATION && m[K_PID].len && m[K_TID].len) {
		id = pair_of(st, m);
		if (id >= 0) {
			g = &st->pairs[id];
			return window_overlaps(g->lo, g->hi, st->w0, st->w1) ? KEEP : DROP;
		}
	}
	if (c == WCAT_FLOW || c == WCAT_ASYNC) {
		id = group_of(st, c, m, 0);
		if (id >= 0) {
			g = &st->groups[id];
			if (window_contains(g->lo, g->hi, st->w0, st->w1))
				return KEEP;
			return window_overlaps(lo, hi, st->w0, st->w1) ? DROP_CUT : DROP;
		}
	}
	return window_overlaps(lo, hi, st->w0, st->w1) ? KEEP : DROP;
}

static void mark(struct intern *t, uint8_t **kept, size_t *cap, const char *k, size_t n)
{
	int64_t id = intern_or_die(t, k, n);

	if ((size_t)id >= *cap) {
		size_t old = *cap;
		*kept = grow(*kept, cap, (size_t)id + 1, 1);
		memset(*kept + old, 0, *cap - old);
	}
	(*kept)[id] = 1;
}

static int is_kept(const struct intern *t, const uint8_t *kept, const char *k, size_t n)
{
	int64_t id = intern_find(t, k, n);

	return id >= 0 && kept[id];
}

/* Metadata: kept when its pid (process metadata) or its thread keeps an
 * event. */
static void decide_meta(struct state *st)
{
	size_t i;

	for (i = 0; i < st->nmeta; i++) {
		const struct meta *x = &st->meta[i];
		int kept = x->pid != NULL && is_kept(&st->pids, st->pid_kept, x->pid, strlen(x->pid)) &&
			   (x->thread == NULL ||
			    is_kept(&st->threads, st->thread_kept, x->thread, strlen(x->thread)));
		if (kept) {
			st->keep[x->index / 8] |= (uint8_t)(1u << (x->index % 8));
			st->bytes += x->bytes;
			st->kept[WCAT_METADATA]++;
		} else {
			st->dropped[WCAT_METADATA]++;
		}
	}
}

typedef void (*line_fn)(struct state *st, struct filter *f, int kind, const char *line,
			size_t len, uint64_t index);

static void replay(struct state *st, struct filter *f, int spill, line_fn fn)
{
	struct stream_in in;
	const char *line;
	size_t len;
	uint64_t index = 0;
	int kind;

	if (lseek(spill, 0, SEEK_SET) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (stream_in_init(&in, spill, STREAM_DEFAULT_MAX_LINE) != 0)
		die_nomem();
	reset_pairs(st);
	while ((kind = stream_next(&in, &line, &len)) != LINE_END) {
		if (kind == LINE_ERROR)
			die(EXIT_TROUBLE, "temporary file: %s", in.err);
		fn(st, f, kind, line, len, index);
		if (kind == LINE_EVENT)
			index++;
	}
	stream_in_free(&in);
}

static void add_row(struct state *st, uint64_t index, const struct member *m, const char *why);

/* The second read: each event's bit, the threads that keep events, the
 * counts and the size. */
static void measure(struct state *st, struct filter *f, int kind, const char *line,
		    size_t len, uint64_t index)
{
	struct member m[NKEYS];
	enum window_cat c;
	size_t n;
	const char *k;
	int64_t id;

	(void)f;
	if (kind != LINE_EVENT)
		return;
	c = members_of(line, len, m);
	count_pass_bytes(st, m, c, len);
	switch (decide(st, m, c)) {
	case KEEP:
		st->keep[index / 8] |= (uint8_t)(1u << (index % 8));
		st->kept[c]++;
		st->bytes += len + 1;
		if (m[K_PID].len) {
			mark(&st->pids, &st->pid_kept, &st->pid_cap, m[K_PID].p, m[K_PID].len);
			if (m[K_TID].len) {
				k = thread_key(st, m, &n);
				mark(&st->threads, &st->thread_kept, &st->thread_cap, k, n);
			}
		}
		break;
	case DROP_CUT:
		st->dropped[c]++;
		id = group_of(st, c, m, 0);
		if (!st->groups[id].counted) {
			st->groups[id].counted = 1;
			if (c == WCAT_FLOW)
				st->flows_cut++;
			else
				st->async_cut++;
		}
		add_row(st, index, m, c == WCAT_FLOW ? "flow with an end outside the window" :
			"async pair with an end outside the window");
		break;
	case DROP:
		st->dropped[c]++;
		break;
	case META:
		break;
	}
}

static void add_row(struct state *st, uint64_t index, const struct member *m, const char *why)
{
	if (st->nrows++)
		buf_addch(&st->rows, ',');
	buf_printf(&st->rows, "{\"source_index\":%" PRIu64 ",\"ph\":%.*s,\"reason\":\"%s\"}",
		   index, (int)m[K_PH].len, m[K_PH].p, why);
}

static void put_report(struct state *st, struct filter *f);

/* The third read: write the events whose bit is set. */
static void write_line(struct state *st, struct filter *f, int kind, const char *line,
		       size_t len, uint64_t index)
{
	if (kind == LINE_TAIL)
		put_report(st, f);
	if (kind != LINE_EVENT) {
		/* the reports of earlier stages describe the whole trace */
		if (kind == LINE_CONTROL && stream_is_kind(line, len, "report"))
			return;
		filter_pass(f, line, len);
		return;
	}
	if (st->keep[index / 8] & (1u << (index % 8)))
		filter_pass(f, line, len);
}

static void put_quoted(struct buf *b, const char *s)
{
	json_escape(b, s, strlen(s));
}

static void put_counts(struct buf *b, const char *name, const uint64_t *n)
{
	int c;

	buf_printf(b, ",\"%s\":{", name);
	for (c = 0; c < WCAT_N; c++)
		buf_printf(b, "%s\"%s\":%" PRIu64, c ? "," : "", window_category_name(c), n[c]);
	buf_addch(b, '}');
}

static void put_report(struct state *st, struct filter *f)
{
	struct buf r = BUF_INIT;
	uint64_t i;
	size_t at, start;

	buf_addstr(&r, "{\"@tr\":\"report\",\"suffix\":\".window.json\",\"body\":{"
		   "\"schema_version\":1,\"spec\":");
	put_quoted(&r, st->spec.p);
	buf_addstr(&r, ",\"window_start_us\":");
	num_append_us3(&r, st->w0_ns);
	buf_addstr(&r, ",\"window_end_us\":");
	num_append_us3(&r, st->w1_ns);
	buf_printf(&r, ",\"window_start_ns\":%" PRId64 ",\"window_end_ns\":%" PRId64,
		   st->w0_ns, st->w1_ns);
	buf_addstr(&r, ",\"trace_origin_us\":");
	if (st->have_origin)
		num_append_us3(&r, st->origin_ns);
	else
		buf_addstr(&r, "null");
	buf_addstr(&r, ",\"overlap\":\"closed: an event is kept when ts <= window end and "
		   "ts + dur >= window start\",\"source_file\":");
	put_quoted(&r, st->source_name ? st->source_name : "");
	buf_addstr(&r, ",\"source_sha256\":");
	buf_add(&r, st->sha.p, st->sha.len);
	buf_printf(&r, ",\"source_events\":%" PRIu64, st->events);
	put_counts(&r, "kept", st->kept);
	put_counts(&r, "dropped", st->dropped);
	buf_printf(&r, ",\"flows_dropped_end_outside\":%" PRIu64
		   ",\"async_dropped_end_outside\":%" PRIu64 ",\"bytes_written\":%" PRIu64
		   ",\"tool_version\":\"trace-layers %s\"}}", st->flows_cut, st->async_cut,
		   st->bytes, TR_VERSION);
	filter_put(f, r.p, r.len);
	/* the rows of the dropped ends, DROPPED_ROWS per record */
	buf_reset(&r);
	buf_addstr(&r, REPORT_MEMBER "\"dropped_events\",\"body\":[]}");
	if (st->nrows == 0)
		filter_put(f, r.p, r.len);
	for (i = 0, at = 0; i < st->nrows; i += DROPPED_ROWS) {
		uint64_t k;
		start = at;
		for (k = 0; k < DROPPED_ROWS && at < st->rows.len; at++)
			if (st->rows.p[at] == '}' && (at + 1 == st->rows.len || st->rows.p[at + 1] == ','))
				k++;
		buf_reset(&r);
		buf_addstr(&r, REPORT_MEMBER "\"dropped_events\",\"items\":[");
		buf_add(&r, st->rows.p + start, at - start);
		buf_addstr(&r, "]}");
		filter_put(f, r.p, r.len);
		if (at < st->rows.len)
			at++;  /* the ',' between records */
	}
	buf_release(&r);
}

/* ---- main ------------------------------------------------------------ */

static void add_spec(struct state *st, const char *opt, const char *value)
{
	if (value == NULL)
		return;
	buf_printf(&st->spec, "%s--%s %s", st->spec.len ? " " : "", opt, value);
}

static void parse_options(int argc, char **argv, struct state *st)
{
	static const struct option longopts[] = {
		{ "passes", required_argument, NULL, 'P' },
		{ "pass", required_argument, NULL, 'p' },
		{ "layers", required_argument, NULL, 'l' },
		{ "around", required_argument, NULL, 'a' },
		{ "pad", required_argument, NULL, 'd' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "max-bytes", required_argument, NULL, 'm' },
		{ "list-passes", no_argument, NULL, 'L' },
		{ "pass-table", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct opt_program prog = { NULL, ":h", longopts, usage_text };
	int ch, kinds;

	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'P': st->passes = optarg; break;
		case 'p': st->pass = optarg; break;
		case 'l': st->layers = optarg; break;
		case 'a': st->around = optarg; break;
		case 'd': st->pad = optarg; break;
		case 'f': st->from = optarg; break;
		case 't': st->to = optarg; break;
		case 'm':
			if (opt_parse_size(optarg, 1, UINT64_MAX, &st->max_bytes) != 0)
				exit(opt_bad_value(&prog, stderr, "--max-bytes", optarg,
						   "bytes, suffix K, M or G"));
			st->have_max = 1;
			break;
		case 'L': st->list_passes = 1; break;
		case 'T': st->table_path = optarg; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (st->list_passes) {
		if (st->passes || st->pass || st->layers || st->around || st->pad || st->from ||
		    st->to || st->have_max || st->table_path)
			die(EXIT_TROUBLE, "--list-passes takes no other option");
		return;
	}
	kinds = (st->passes != NULL) + (st->from || st->to) +
		(st->pass != NULL && !st->layers && !st->around) + (st->layers != NULL) +
		(st->around != NULL);
	if (kinds != 1 || (st->passes && st->pass) || (st->layers && st->around) ||
	    (st->pad && !st->around))
		die(EXIT_TROUBLE, "give one window: --passes A-B, --pass K, --layers A-B [--pass K], "
		    "--around LN [--pass K] [--pad DUR], or --from MS [--to MS]");
	add_spec(st, "passes", st->passes);
	add_spec(st, "pass", st->pass);
	add_spec(st, "layers", st->layers);
	add_spec(st, "around", st->around);
	add_spec(st, "pad", st->pad);
	add_spec(st, "from", st->from);
	add_spec(st, "to", st->to);
}

static void free_state(struct state *st)
{
	size_t i;

	for (i = 0; i < st->stacks_cap; i++)
		free(st->stacks[i].v);
	free(st->stacks);
	for (i = 0; i < st->nmeta; i++) {
		free(st->meta[i].pid);
		free(st->meta[i].thread);
	}
	free(st->meta);
	free(st->keep);
	free(st->g);
	free(st->passes_ext);
	free(st->pass_bytes);
	free(st->groups);
	free(st->pairs);
	free(st->pid_kept);
	free(st->thread_kept);
	free(st->source_name);
	intern_free(&st->group_keys);
	intern_free(&st->thread_keys);
	intern_free(&st->pids);
	intern_free(&st->threads);
	jdoc_free(&st->doc);
	buf_release(&st->spec);
	buf_release(&st->origin_text);
	buf_release(&st->sha);
	buf_release(&st->rows);
	buf_release(&st->key);
}

int main(int argc, char **argv)
{
	struct state st;
	struct filter f;
	struct writer spill;
	const char *line;
	size_t len;
	int kind, spill_fd;

	diag_init(argv[0]);
	memset(&st, 0, sizeof st);
	st.spec = (struct buf)BUF_INIT;
	st.origin_text = (struct buf)BUF_INIT;
	st.sha = (struct buf)BUF_INIT;
	st.rows = (struct buf)BUF_INIT;
	st.key = (struct buf)BUF_INIT;
	parse_options(argc, argv, &st);
	spill_fd = filter_open_spill("tr-window");
	if (writer_init(&spill, spill_fd) != 0)
		die_nomem();

	filter_open(&f);
	while ((kind = filter_next(&f, &line, &len)) != LINE_END) {
		if (kind == LINE_HEAD)
			st.source_name = head_source_name(&st.doc, line, len);
		if (kind == LINE_EVENT) {
			see_event(&st, line, len);
			st.events++;
		}
		if (kind == LINE_TAIL) {
			const char *sha;
			size_t n;
			if (event_member(line, len, "source_sha256", &sha, &n) && sha[0] == '"')
				buf_add(&st.sha, sha, n);
			else
				buf_addstr(&st.sha, "null");
		}
		if (writer_put(&spill, line, len + 1) != 0)
			die_errno(EXIT_TROUBLE, "temporary file");
	}
	if (writer_flush(&spill) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	writer_free(&spill);
	reader_trim(&f.in.r);

	find_passes(&st);
	st.keep = xmalloc(st.events / 8 + 1);
	memset(st.keep, 0, st.events / 8 + 1);
	if (st.list_passes) {
		if (st.ng == 0)
			die(EXIT_INPUT, "the stream has no layer guides (cat \"layer_guide\"): "
			    "--list-passes needs a trace annotated by tr-guides or tr-layer-track");
		/* every event is inside this window: only the passes count */
		st.w0 = INT64_MIN;
		st.w1 = INT64_MAX;
		replay(&st, &f, spill_fd, measure);
		print_passes(&st, stdout);
		if (fflush(stdout) != 0 || ferror(stdout))
			die_write("standard output");
		close(spill_fd);
		writer_free(&f.out);
		stream_in_free(&f.in);
		free_state(&st);
		return EXIT_OK;
	}
	choose_window(&st);
	replay(&st, &f, spill_fd, measure);
	decide_meta(&st);
	if (st.bytes == 0) {
		char a[NUM_US_BUFSZ], b[NUM_US_BUFSZ];
		num_format_us3(st.w0_ns, a);
		num_format_us3(st.w1_ns, b);
		die(EXIT_INPUT, "empty window: no event overlaps [%s, %s] us (%s)", a, b, st.spec.p);
	}
	if (st.have_max && st.bytes > st.max_bytes)
		die(EXIT_INPUT, "the window would be %" PRIu64 " bytes of events, more than "
		    "--max-bytes %" PRIu64 "; choose a smaller window", st.bytes, st.max_bytes);
	if (st.table_path != NULL) {
		FILE *t = fopen(st.table_path, "w");
		if (t == NULL)
			die_errno(EXIT_TROUBLE, "%s", st.table_path);
		print_passes(&st, t);
		if (fclose(t) != 0)
			die_errno(EXIT_TROUBLE, "%s", st.table_path);
	}
	replay(&st, &f, spill_fd, write_line);
	filter_close(&f);
	close(spill_fd);
	free_state(&st);
	return EXIT_OK;
}
