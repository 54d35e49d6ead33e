/* tr-survey: evidence for choosing a once-per-layer anchor.  At the end of a
 * pipeline it reads the stream and reports, per GPU pid and device, how each
 * kernel name occurs in time, splits the occurrences of every name that
 * occurs at least N times into passes of N, ranks the candidates, and warns
 * about the traps.  It never chooses for the user.  See tr-survey(1). */
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
#include "io.h"
#include "tsnum.h"
#include "survey.h"
#include "window.h"

static const char usage_text[] =
	"usage: tr-survey --num-layers N [--pid PID] [--device D] [--top K] [--json]\n"
	"Read a trace-layers stream (tr-stream(5)) and report, per GPU pid and\n"
	"device, which kernels occur once per layer: counts, passes of N with their\n"
	"time spans, ranked anchor candidates with suggested --anchor-offset and\n"
	"--passes, and warnings.\n"
	"\n"
	"  --num-layers N  layers per pass in the phase of interest (>= 1)\n"
	"  --pid PID       only this pid\n"
	"  --device D      only kernels whose args.device is D\n"
	"  --top K         candidates listed per device (default 10)\n"
	"  --json          print a JSON object instead of text\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected, 2 usage or system trouble.\n";

/* Pass spans printed per candidate in the text report (--json has all). */
#define TEXT_SPANS 8

/* A group's names in rank order: ncand candidates, listed of them shown. */
struct ranking {
	size_t *order, n, ncand, listed;
	int any_n;
	const struct survey_name *top;
};

/* An event's interval (half ns) and its bytes, spilled for the pass bytes. */
struct extent {
	int64_t lo, hi;
	uint64_t bytes;
};

struct state {
	int64_t num_layers, top;
	const char *pid, *device;
	int json;
	struct intern keys;    /* group \001 name */
	struct survey_name *names;
	size_t names_cap;
	struct intern groups;  /* pid \001 device */
	struct intern elsewhere; /* pid \001 device of kernels the filters left out */
	uint64_t *elsewhere_n;
	size_t elsewhere_cap;
	struct survey_step *steps;    /* ProfilerStep#N spans */
	size_t nsteps, steps_cap;
	int64_t origin_ns;
	int have_origin;
	struct buf origin_text;
	struct jdoc doc;
	struct buf tmp;
	struct ranking *ranks;     /* by group */
	struct writer spill;       /* each event's extent */
	struct window_tally tally; /* the bytes of the listed candidates' passes */
	int64_t *span_lo, *span_hi;
	size_t nspans, spans_cap;
};

static void count_elsewhere(struct state *st, const char *key, size_t len)
{
	int64_t id = intern_id(&st->elsewhere, key, len);

	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->elsewhere_cap) {
		size_t cap = grow_cap(st->elsewhere_cap, 16, sizeof *st->elsewhere_n);
		st->elsewhere_n = xrealloc(st->elsewhere_n, cap * sizeof *st->elsewhere_n);
		memset(st->elsewhere_n + st->elsewhere_cap, 0,
		       (cap - st->elsewhere_cap) * sizeof *st->elsewhere_n);
		st->elsewhere_cap = cap;
	}
	st->elsewhere_n[id]++;
}

static void see_kernel(struct state *st, const char *line, size_t len)
{
	struct jdoc *d = &st->doc;
	int cat, name, args, dev, ts, tid, dur;
	size_t n, pn, dn = 4, tn;
	const char *p, *pid, *dtext = "null", *ttext;
	int64_t ts_ns, dur_ns = 0, gid, id;
	int sub;
	struct survey_name *s;
	unsigned k;

	if (jdoc_parse(d, line, len, NULL) != 0 || !jdoc_str_eq(d, jdoc_find(d, 0, "ph"), "X"))
		return;
	cat = jdoc_find(d, 0, "cat");
	if (jdoc_type(d, cat) != JT_STRING)
		return;
	p = jdoc_text(d, cat, &n);
	if (!event_category_has(p, n, "kernel") && !event_category_has(p, n, "Kernel"))
		return;
	name = jdoc_find(d, 0, "name");
	ts = jdoc_find(d, 0, "ts");
	tid = jdoc_find(d, 0, "tid");
	if (jdoc_find(d, 0, "pid") < 0 || jdoc_type(d, name) != JT_STRING ||
	    jdoc_type(d, ts) != JT_PRIMITIVE)
		return;
	p = jdoc_text(d, ts, &n);
	if (tsnum_us_to_ns(p, n, &ts_ns, &sub) != NUM_OK)
		return;
	dur = jdoc_find(d, 0, "dur");
	if (jdoc_type(d, dur) == JT_PRIMITIVE) {
		p = jdoc_text(d, dur, &n);
		if (tsnum_us_to_ns(p, n, &dur_ns, &sub) != NUM_OK || dur_ns < 0)
			dur_ns = 0;
	}
	pid = jdoc_raw(d, jdoc_find(d, 0, "pid"), &pn);
	args = jdoc_find(d, 0, "args");
	dev = jdoc_type(d, args) == JT_OBJECT ? jdoc_find(d, args, "device") : -1;
	if (dev >= 0)
		dtext = jdoc_raw(d, dev, &dn);

	buf_reset(&st->tmp);
	buf_add(&st->tmp, pid, pn);
	buf_addch(&st->tmp, '\001');
	buf_add(&st->tmp, dtext, dn);
	if ((st->pid && !event_raw_matches_arg(pid, pn, st->pid)) ||
	    (st->device && !event_raw_matches_arg(dtext, dn, st->device))) {
		count_elsewhere(st, st->tmp.p, st->tmp.len);
		return;
	}
	gid = intern_id(&st->groups, st->tmp.p, st->tmp.len);
	buf_printf(&st->tmp, "\001");
	if (gid < 0 || jdoc_unescape(d, name, &st->tmp) != 0)
		die_nomem();
	id = intern_id(&st->keys, st->tmp.p, st->tmp.len);
	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->names_cap) {
		size_t cap = grow_cap(st->names_cap, 256, sizeof *st->names);
		st->names = xrealloc(st->names, cap * sizeof *st->names);
		memset(st->names + st->names_cap, 0, (cap - st->names_cap) * sizeof *st->names);
		st->names_cap = cap;
	}
	s = &st->names[id];
	if (s->name == NULL) {
		const char *nm = memchr(st->tmp.p, '\001', st->tmp.len);
		nm = memchr(nm + 1, '\001', st->tmp.len - (size_t)(nm + 1 - st->tmp.p));
		s->group = (uint32_t)gid;
		s->name_len = st->tmp.len - (size_t)(nm + 1 - st->tmp.p);
		s->name = xmemdup(nm + 1, s->name_len);
		if ((s->family = survey_family(s->name)) == NULL)
			die_nomem();
	}
	if (s->n == s->cap) {
		s->cap = grow_cap(s->cap, 4, sizeof *s->occ);
		s->occ = xrealloc(s->occ, s->cap * sizeof *s->occ);
	}
	s->occ[s->n].ts = ts_ns;
	s->occ[s->n].end = dur_ns > INT64_MAX - ts_ns ? INT64_MAX : ts_ns + dur_ns;
	s->n++;
	if (tid >= 0) {
		ttext = jdoc_raw(d, tid, &tn);
		for (k = 0; k < s->nstreams; k++)
			if (strlen(s->streams[k]) == tn && memcmp(s->streams[k], ttext, tn) == 0)
				break;
		if (k == s->nstreams && s->nstreams < 255) {
			if (k == s->streams_cap) {
				s->streams_cap = grow_cap(s->streams_cap, 4, sizeof *s->streams);
				s->streams = xrealloc(s->streams, s->streams_cap * sizeof *s->streams);
			}
			s->streams[k] = xmemdup(ttext, tn);
			s->nstreams++;
		}
	}
}

/* Every timed event but metadata: its interval as tr-window(1) counts it
 * (dur for a complete event only) and its bytes, for the pass bytes. */
static void spill_extent(struct state *st, struct member ph, struct member ts,
			 struct member dur, size_t len)
{
	enum window_cat c = window_category(ph.p, ph.len);
	struct extent e;

	if (c == WCAT_METADATA ||
	    window_interval(ts.p, ts.len, c == WCAT_COMPLETE ? dur.p : NULL, dur.len,
			    &e.lo, &e.hi) != 0)
		return;
	e.bytes = len + 1;
	if (writer_put(&st->spill, &e, sizeof e) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
}

/* Every event: the trace origin (the earliest ts, as tr-guides counts its
 * relative times) and the ProfilerStep#N spans; kernels go to see_kernel. */
static void see_event(struct state *st, const char *line, size_t len)
{
	static const char *const keys[] = { "ts", "ph", "name", "dur" };
	static const char step_prefix[] = "\"ProfilerStep#";
	struct member m[4];
	int64_t ns, dur = 0;
	int sub;

	event_members(line, len, keys, 4, m);
	spill_extent(st, m[1], m[0], m[3], len);
	if (m[0].len > 0 && m[0].p[0] != '"' &&
	    !(st->have_origin && tsnum_text_not_below(m[0].p, m[0].len, st->origin_text.p,
						    st->origin_text.len)) &&
	    tsnum_us_to_ns(m[0].p, m[0].len, &ns, &sub) == NUM_OK &&
	    (!st->have_origin || ns < st->origin_ns)) {
		st->origin_ns = ns;
		st->have_origin = 1;
		buf_reset(&st->origin_text);
		if (buf_add(&st->origin_text, m[0].p, m[0].len) != 0)
			die_nomem();
	}
	if (m[2].len > sizeof step_prefix - 1 &&
	    memcmp(m[2].p, step_prefix, sizeof step_prefix - 1) == 0 &&
	    m[1].len == 3 && memcmp(m[1].p, "\"X\"", 3) == 0 && m[0].len > 0 &&
	    tsnum_us_to_ns(m[0].p, m[0].len, &ns, &sub) == NUM_OK) {
		if (m[3].len == 0 || tsnum_us_to_ns(m[3].p, m[3].len, &dur, &sub) != NUM_OK || dur < 0)
			dur = 0;
		if (st->nsteps == st->steps_cap) {
			st->steps_cap = grow_cap(st->steps_cap, 16, sizeof *st->steps);
			st->steps = xrealloc(st->steps, st->steps_cap * sizeof *st->steps);
		}
		st->steps[st->nsteps].start = ns;
		st->steps[st->nsteps++].end = dur > INT64_MAX - ns ? INT64_MAX : ns + dur;
	}
	if (event_find_bytes(line, len, "ernel", 5) != NULL)
		see_kernel(st, line, len);
}

static int cmp_step(const void *a, const void *b)
{
	const struct survey_step *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static struct state *rank_state;

static int cmp_score(const void *a, const void *b)
{
	const struct survey_name *x = &rank_state->names[*(const size_t *)a];
	const struct survey_name *y = &rank_state->names[*(const size_t *)b];

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const size_t *fam_order;

/* Rank positions by family, then by rank. */
static int cmp_family_pos(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(rank_state->names[fam_order[x]].family, rank_state->names[fam_order[y]].family);

	if (c)
		return c;
	return x < y ? -1 : x > y;
}

static void put_text(struct buf *b, const char *s)
{
	json_escape(b, s, strlen(s));
}

static void shell_quote(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_addstr(b, "'\\''");
		else
			buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}

/* "73 = 2 x 36 + 1": the true arithmetic of a count against 2N. */
static void put_twice_arith(struct buf *b, size_t n, size_t N)
{
	size_t p = n / (2 * N), r = n % (2 * N);

	if (p == 0) {
		buf_printf(b, "%zu < 2 x %zu", n, N);
		return;
	}
	buf_printf(b, "%zu = 2 x %zu", n, N);
	if (p > 1)
		buf_printf(b, " x %zu", p);
	if (r)
		buf_printf(b, " + %zu", r);
}

static void put_ms(struct buf *b, int64_t ns)
{
	tsnum_append_ms6(b, ns);
}

/* Occurrences per ProfilerStep (an occurrence belongs to the last step
 * that started at or before it), run-length coded: "0, 80 x 8". */
static void put_per_step(struct state *st, const struct survey_name *s, struct buf *b, int json)
{
	size_t *count = xmalloc(st->nsteps * sizeof *count), i, j = 0, before = 0, run;

	memset(count, 0, st->nsteps * sizeof *count);
	for (i = 0; i < s->n; i++) {
		while (j + 1 < st->nsteps && st->steps[j + 1].start <= s->occ[i].ts)
			j++;
		if (s->occ[i].ts < st->steps[0].start)
			before++;
		else
			count[j]++;
	}
	if (json) {
		buf_printf(b, "{\"before_first\":%zu,\"counts\":[", before);
		for (i = 0; i < st->nsteps; i++)
			buf_printf(b, "%s%zu", i ? "," : "", count[i]);
		buf_addstr(b, "]}");
	} else {
		for (i = 0; i < st->nsteps; i += run) {
			for (run = 1; i + run < st->nsteps && count[i + run] == count[i]; run++)
				;
			buf_printf(b, "%s%zu", i ? ", " : "", count[i]);
			if (run > 1)
				buf_printf(b, " x %zu", run);
		}
		if (before)
			buf_printf(b, "; %zu before the first step", before);
	}
	free(count);
}

static const char *split_word(enum survey_split_kind k)
{
	switch (k) {
	case SURVEY_SPLIT_SINGLE: return "single";
	case SURVEY_SPLIT_CLEAN: return "clean";
	case SURVEY_SPLIT_AMBIGUOUS: return "ambiguous";
	default: return "none";
	}
}

/* Why a listed candidate is weaker evidence than an ideal anchor (a clean
 * split, regular spacing, an ally, one stream, whole passes only); one
 * reason per line in b. */
static void reasons(const struct state *st, const struct survey_name *s,
		    const struct survey_name *top, size_t ncand, size_t N, struct buf *b)
{
	size_t k, on;

	if (s->sp.kind == SURVEY_SPLIT_AMBIGUOUS)
		buf_printf(b, "its passes are not separated by gaps larger than those inside them\n");
	if (s->cv > SURVEY_IRREGULAR_CV)
		buf_printf(b, "irregular spacing %s (cv %.2f)\n",
			   N == 1 ? "between passes" : "inside passes", s->cv);
	if (s->confirms == 0 && ncand > 1)
		buf_printf(b, "no other candidate interleaves one-to-one with it\n");
	if (top != NULL && s != top && s->sp.passes < top->sp.passes)
		buf_printf(b, "fewer complete passes (%zu) than candidate 1 (%zu)\n", s->sp.passes,
			   top->sp.passes);
	if (top != NULL && s != top && s->sp.passes > top->sp.passes &&
	    (k = survey_passes_inside(s, top, N)) > 1)
		buf_printf(b, "%zu of its passes lie inside one pass of candidate 1 (several per "
			   "layer?)\n", k);
	survey_steps_vs_passes(st->steps, st->nsteps, s, N, &on, &k);
	if (k > 0)
		buf_printf(b, "%zu ProfilerStep start%s inside its passes\n", k,
			   k == 1 ? " falls" : "s fall");
	if (s->n % N != 0)
		buf_printf(b, "partial passes (%zu is not a multiple of %zu)\n", s->n, N);
	if (s->nstreams > 1)
		buf_printf(b, "runs on %u streams\n", s->nstreams);
}

/* Each pass's span (ms from the trace start) and the bytes of the events
 * that overlap it; in the text "A-B (N bytes)", in JSON [A,B]. */
static void put_spans(struct state *st, const struct survey_name *s, size_t N, struct buf *b,
		      int json, size_t limit)
{
	size_t j;
	int64_t a, e;

	for (j = 0; j < s->sp.passes && j < limit; j++) {
		survey_pass_span(s, N, j, &a, &e);
		buf_addstr(b, j ? (json ? "," : ", ") : "");
		buf_addstr(b, json ? "[" : "");
		put_ms(b, a - st->origin_ns);
		buf_addstr(b, json ? "," : "-");
		put_ms(b, e - st->origin_ns);
		if (json)
			buf_addstr(b, "]");
		else
			buf_printf(b, " (%" PRIu64 " bytes)", window_tally_bytes(&st->tally, s->span0 + j));
	}
	if (j < s->sp.passes)
		buf_printf(b, " and %zu more (--json lists all)", s->sp.passes - j);
}

static void put_pass_bytes(struct state *st, const struct survey_name *s, struct buf *b)
{
	size_t j;

	for (j = 0; j < s->sp.passes; j++)
		buf_printf(b, "%s%" PRIu64, j ? "," : "", window_tally_bytes(&st->tally, s->span0 + j));
}

/* The passes of every listed candidate, then the bytes of the events that
 * overlap each, from the spilled extents. */
static void tally_passes(struct state *st, int fd)
{
	static struct extent v[4096];
	size_t g, i, j, N = (size_t)st->num_layers;
	long got;

	for (g = 0; g < st->groups.n; g++)
		for (i = 0; i < st->ranks[g].listed; i++) {
			struct survey_name *s = &st->names[st->ranks[g].order[i]];
			s->span0 = st->nspans;
			for (j = 0; j < s->sp.passes; j++) {
				int64_t a, e;
				if (st->nspans == st->spans_cap) {
					st->spans_cap = grow_cap(st->spans_cap, 64, sizeof *st->span_lo);
					st->span_lo = xrealloc(st->span_lo, st->spans_cap * sizeof *st->span_lo);
					st->span_hi = xrealloc(st->span_hi, st->spans_cap * sizeof *st->span_hi);
				}
				survey_pass_span(s, N, j, &a, &e);
				st->span_lo[st->nspans] = window_half(a);
				st->span_hi[st->nspans++] = window_half(e);
			}
		}
	if (window_tally_init(&st->tally, st->span_lo, st->span_hi, st->nspans) != 0)
		die_nomem();
	if (writer_flush(&st->spill) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	while ((got = io_read_some(fd, v, sizeof v)) > 0) {
		if (got % (long)sizeof v[0] != 0)
			die(EXIT_TROUBLE, "temporary file: short read");
		for (i = 0; i < (size_t)got / sizeof v[0]; i++)
			window_tally_add(&st->tally, v[i].lo, v[i].hi, v[i].bytes);
	}
	if (got < 0)
		die_errno(EXIT_TROUBLE, "temporary file");
}

/* Second landmarks for the top candidate (tr-select-anchors --confirm-regex):
 * the kernels of the group that occur exactly once between consecutive
 * occurrences of it (at its compared gaps), listed with the exact regex. */
static void put_landmarks(const struct state *st, const struct survey_name *top,
			  const size_t *order, size_t n, size_t N, struct buf *out)
{
	size_t i, shown = 0;
	struct buf rx = BUF_INIT;

	if (st->json)
		buf_addstr(out, ",\"landmarks\":[");
	for (i = 0; i < n && shown < (size_t)st->top; i++) {
		const struct survey_name *s = &st->names[order[i]];
		if (s == top || survey_interleave(top, s, N) != 1)
			continue;
		buf_reset(&rx);
		if (survey_exact_regex(&rx, s->name, s->name_len) < 0)
			die_nomem();
		if (st->json) {
			buf_addstr(out, shown ? ",{\"name\":" : "{\"name\":");
			json_escape(out, s->name, s->name_len);
			buf_addstr(out, ",\"regex\":");
			put_text(out, rx.p);
			buf_addch(out, '}');
		} else {
			if (shown == 0)
				buf_addstr(out, "second landmarks, once between consecutive anchors of "
					   "candidate 1 (add one with --confirm-regex):\n");
			buf_addstr(out, "  --confirm-regex ");
			shell_quote(out, rx.p);
			buf_addch(out, '\n');
		}
		shown++;
	}
	if (st->json)
		buf_addch(out, ']');
	buf_release(&rx);
}

/* Rank the names of group g (members: their ids): the candidates, their
 * allies and the names that run twice per layer. */
static void rank_group(struct state *st, uint32_t g, const size_t *members, size_t n)
{
	struct ranking *rk = &st->ranks[g];
	size_t *order = xmalloc((n + 1) * sizeof *order);
	size_t i, k, ncand = 0, listed = 0, N = (size_t)st->num_layers;
	int any_n = 0;
	struct survey_name *top = NULL;

	memcpy(order, members, n * sizeof *order);
	rank_state = st;
	qsort(order, n, sizeof *order, cmp_score);
	/* Once-per-layer kernels confirm each other: between two consecutive
	 * occurrences of one there is exactly one of the other.  A kernel that
	 * merely clusters in groups of N inside each layer has no such allies. */
	while (ncand < n && ncand < 64 && st->names[order[ncand]].score > 0)
		ncand++;
	for (i = 0; i < ncand; i++) {
		struct survey_name *x = &st->names[order[i]];
		for (k = 0; k < ncand; k++)
			if (i != k && survey_interleave(x, &st->names[order[k]], N) == 1)
				x->confirms++;
	}
	for (i = 0; i < ncand; i++)
		st->names[order[i]].score *= 1.0 + st->names[order[i]].confirms;
	qsort(order, ncand, sizeof *order, cmp_score);
	if (n > 0 && st->names[order[0]].score > 0)
		top = &st->names[order[0]];
	/* Judged against the top candidate's passes: a name with two
	 * occurrences between each pair of consecutive ones runs twice per
	 * layer and is no candidate, whatever its count. */
	if (top != NULL) {
		for (i = 0; i < n; i++) {
			struct survey_name *s = &st->names[order[i]];
			int pattern;
			if (s == top)
				continue;
			pattern = survey_interleave(top, s, N);
			if (pattern == 1 && s->n == top->n)
				s->confirmed_by = top->name;
			if (pattern == 2) {
				s->twice_between = 1;
				s->score = 0;
			}
		}
		qsort(order, n, sizeof *order, cmp_score);
	}
	ncand = 0;
	while (ncand < n && st->names[order[ncand]].score > 0)
		ncand++;
	listed = ncand < (size_t)st->top ? ncand : (size_t)st->top;
	for (i = 0; i < n; i++)
		if (st->names[order[i]].n >= N)
			any_n = 1;
	/* an ambiguous split is supported by a one-to-one partner that splits
	 * cleanly: its passes are the same occurrences by index */
	for (i = 0; i < listed; i++) {
		struct survey_name *x = &st->names[order[i]];
		if (x->sp.kind != SURVEY_SPLIT_AMBIGUOUS)
			continue;
		for (k = 0; k < ncand; k++) {
			const struct survey_name *y = &st->names[order[k]];
			if (k != i && y->sp.kind == SURVEY_SPLIT_CLEAN && y->n == x->n &&
			    survey_interleave(x, y, N) == 1) {
				x->clean_partner = k + 1;
				break;
			}
		}
	}
	rk->order = order;
	rk->n = n;
	rk->ncand = ncand;
	rk->listed = listed;
	rk->any_n = any_n;
	rk->top = top;
}

/* The report of group g, ranked by rank_group. */
static void report_group(struct state *st, uint32_t g, struct buf *out, int first_group)
{
	const struct ranking *rk = &st->ranks[g];
	size_t *order = rk->order, *fam, *fpos;
	size_t i, k, shown, n = rk->n, ncand = rk->ncand, listed = rk->listed;
	size_t N = (size_t)st->num_layers, more = 0;
	const char *key = st->groups.keys[g];
	const char *sep = strchr(key, '\001');
	int pidlen = (int)(sep - key), any_n = rk->any_n;
	const struct survey_name *top = rk->top;
	struct buf warn = BUF_INIT, cmd = BUF_INIT, rx = BUF_INIT, why = BUF_INIT;

	rank_state = st;
	/* warnings */
	for (i = 0; i < n; i++) {
		const struct survey_name *s = &st->names[order[i]];
		if (s->twice_between) {
			buf_addstr(&warn, "twice per layer (2 between consecutive occurrences of "
				   "candidate 1; ");
			put_twice_arith(&warn, s->n, N);
			buf_printf(&warn, "): %s\n", s->name);
		} else if (s->twice_by_count) {
			buf_addstr(&warn, "twice per layer (");
			put_twice_arith(&warn, s->n, N);
			buf_printf(&warn, "; its gaps fit passes of %zu, not passes of %zu): %s\n",
				   2 * N, N, s->name);
		}
	}
	for (i = 0; i < listed; i++) {
		const struct survey_name *s = &st->names[order[i]];
		if (s->n % N != 0) {
			buf_printf(&warn, "%zu is not a multiple of %zu (%zu = %zu x %zu + %zu: ", s->n,
				   N, s->n, s->n / N, N, s->n % N);
			if (s->sp.offset)
				buf_printf(&warn, "a partial first pass of %zu", s->sp.offset);
			if (s->sp.offset && s->sp.partial_last)
				buf_addstr(&warn, ", ");
			if (s->sp.partial_last)
				buf_printf(&warn, "a partial last pass of %zu", s->sp.partial_last);
			buf_printf(&warn, "): %s\n", s->name);
		}
		if (s->sp.kind == SURVEY_SPLIT_AMBIGUOUS) {
			buf_addstr(&warn, "passes ambiguous: a gap inside a pass (");
			put_ms(&warn, s->sp.max_inside);
			buf_addstr(&warn, " ms) is not smaller than the smallest gap between passes (");
			put_ms(&warn, s->sp.min_between);
			buf_printf(&warn, " ms); %zu passes of exactly %zu assumed", s->sp.passes, N);
			if (s->clean_partner)
				buf_printf(&warn, ", as candidate %zu (one-to-one, split cleanly) shows",
					   s->clean_partner);
			else if (st->nsteps < 2)
				buf_addstr(&warn, "; check them against the time spans");
			else {
				size_t on, in;
				survey_steps_vs_passes(st->steps, st->nsteps, s, N, &on, &in);
				if (in == 0 && on > 0)
					buf_printf(&warn, "; %zu ProfilerStep start%s at pass boundaries, "
						   "none inside a pass", on, on == 1 ? " falls" : "s fall");
				else
					buf_printf(&warn, "; %zu ProfilerStep start%s inside passes, "
						   "compare them with the counts", in,
						   in == 1 ? " falls" : "s fall");
			}
			buf_printf(&warn, ": %s\n", s->name);
		}
		if (s->nstreams > 1)
			buf_printf(&warn, "runs on %u streams: %s\n", s->nstreams, s->name);
	}
	/* families whose members run in runs of different lengths: for each
	 * name, the first name after it in rank order of the same family */
	fam = xmalloc((n + 1) * sizeof *fam);
	fpos = xmalloc((n + 1) * sizeof *fpos);
	for (i = 0; i < n; i++)
		fam[i] = i;
	fam_order = order;
	qsort(fam, n, sizeof *fam, cmp_family_pos);
	for (i = 0; i < n; i++)
		fpos[fam[i]] = i;
	for (i = 0; i < n; i++) {
		const struct survey_name *s = &st->names[order[i]];
		for (k = fpos[i] + 1; k < n; k++) {
			const struct survey_name *o = &st->names[order[fam[k]]];
			if (strcmp(s->family, o->family) != 0)
				break;
			if (s->len_a >= 2 && o->len_a >= 2 && s->len_a != o->len_a && s->nruns > 1 &&
			    o->nruns > 1 && (s->score > 0 || o->score > 0)) {
				buf_printf(&warn, "one family, runs of %zu and %zu (draft and target "
					   "passes?): anchor the regex on the template arguments: %s\n",
					   s->len_a, o->len_a, s->family);
				break;
			}
		}
	}
	free(fam);
	free(fpos);
	if (top != NULL) {
		int exact = survey_exact_regex(&rx, top->name, top->name_len);
		if (exact < 0)
			die_nomem();
		if (!exact)
			buf_printf(&warn, "the name holds bytes that are not UTF-8, which no regex "
				   "matches; the command's regex covers its longest valid part, so "
				   "check that it matches this kernel only: %s\n", top->name);
		buf_addstr(&cmd, "tr-layer-track --trace TRACE --output OUT --anchor-regex ");
		shell_quote(&cmd, rx.p);
		buf_printf(&cmd, " --num-layers %zu --anchor-offset %zu --passes %zu "
			   "--pid %.*s --phase PHASE --evidence 'WHY L0 IS L0'", N,
			   top->sp.offset, top->sp.passes, pidlen, key);
	}
	more = ncand - listed;

	if (st->json) {
		buf_printf(out, "%s{\"pid\":%.*s,\"device\":%s,\"candidates\":[", first_group ? "" : ",",
			   pidlen, key, sep + 1);
		for (shown = 0; shown < listed; shown++) {
			const struct survey_name *s = &st->names[order[shown]];
			buf_addstr(out, shown ? ",{\"name\":" : "{\"name\":");
			put_text(out, s->name);
			buf_printf(out, ",\"count\":%zu,\"per_layer\":%.3f,\"passes\":%zu,\"anchor_offset\":%zu,"
				   "\"partial_first\":%zu,\"partial_last\":%zu,\"split\":\"%s\","
				   "\"min_gap_between_ms\":", s->n, (double)s->n / (double)N, s->sp.passes,
				   s->sp.offset, s->sp.offset, s->sp.partial_last, split_word(s->sp.kind));
			if (s->sp.min_between >= 0)
				put_ms(out, s->sp.min_between);
			else
				buf_addstr(out, "null");
			buf_addstr(out, ",\"max_gap_inside_ms\":");
			if (s->sp.max_inside >= 0)
				put_ms(out, s->sp.max_inside);
			else
				buf_addstr(out, "null");
			buf_printf(out, ",\"streams\":%u,\"spacing_cv\":%.3f,\"score\":%.3f,\"confirms\":%u,"
				   "\"confirmed_by\":", s->nstreams, s->cv, s->score, s->confirms);
			if (s->confirmed_by)
				put_text(out, s->confirmed_by);
			else
				buf_addstr(out, "null");
			buf_addstr(out, ",\"pass_spans_ms\":[");
			put_spans(st, s, N, out, 1, SIZE_MAX);
			buf_addstr(out, "],\"pass_bytes\":[");
			put_pass_bytes(st, s, out);
			buf_addstr(out, "],\"per_step\":");
			if (st->nsteps >= 2)
				put_per_step(st, s, out, 1);
			else
				buf_addstr(out, "null");
			buf_addstr(out, ",\"weaker\":[");
			buf_reset(&why);
			reasons(st, s, top, ncand, N, &why);
			for (const char *p = why.p; *p;) {
				const char *nl = strchr(p, '\n');
				if (p != why.p)
					buf_addch(out, ',');
				json_escape(out, p, (size_t)(nl - p));
				p = nl + 1;
			}
			buf_addstr(out, "]}");
		}
		buf_printf(out, "],\"more_candidates\":%zu,\"warnings\":[", more);
		for (const char *p = warn.p; *p;) {
			const char *nl = strchr(p, '\n');
			if (p != warn.p)
				buf_addch(out, ',');
			json_escape(out, p, (size_t)(nl - p));
			p = nl + 1;
		}
		buf_addstr(out, "],\"command\":");
		if (top)
			put_text(out, cmd.p);
		else
			buf_addstr(out, "null");
		if (top)
			put_landmarks(st, top, order, n, N, out);
		else
			buf_addstr(out, ",\"landmarks\":[]");
		buf_addch(out, '}');
	} else {
		buf_printf(out, "== pid %.*s, device %s: %zu kernel names\n", pidlen, key, sep + 1, n);
		if (N == 1)
			buf_addstr(out, "anchor candidates (--num-layers 1: each occurrence is a pass "
				   "of its own):\n");
		else
			buf_printf(out, "anchor candidates (%zu or more occurrences, cut into passes "
				   "of %zu):\n", N, N);
		for (shown = 0; shown < listed; shown++) {
			const struct survey_name *s = &st->names[order[shown]];
			buf_printf(out, "  %zu. %zu x (%.2f per layer), %zu pass%s of %zu, %s, spacing cv "
				   "%.2f, %u stream%s; --anchor-offset %zu --passes %zu\n     %s\n",
				   shown + 1, s->n, (double)s->n / (double)N, s->sp.passes,
				   s->sp.passes == 1 ? "" : "es", N,
				   s->sp.kind == SURVEY_SPLIT_CLEAN ? "split at larger gaps" :
				   s->sp.kind == SURVEY_SPLIT_SINGLE ? "exactly one pass" : "split ambiguous",
				   s->cv, s->nstreams, s->nstreams == 1 ? "" : "s", s->sp.offset,
				   s->sp.passes, s->name);
			if (s->confirms)
				buf_printf(out, "     (%u other candidate%s interleave one-to-one with it)\n",
					   s->confirms, s->confirms == 1 ? "" : "s");
			buf_addstr(out, "     passes (ms from the trace start, bytes of the events in "
				   "each): ");
			put_spans(st, s, N, out, 0, TEXT_SPANS);
			buf_addch(out, '\n');
			if (st->nsteps >= 2) {
				buf_printf(out, "     per ProfilerStep (%zu steps): ", st->nsteps);
				put_per_step(st, s, out, 0);
				buf_addch(out, '\n');
			}
			buf_reset(&why);
			reasons(st, s, top, ncand, N, &why);
			if (why.len) {
				const char *p = why.p;
				buf_addstr(out, "     weaker evidence: ");
				while (*p) {
					const char *nl = strchr(p, '\n');
					buf_add(out, p, (size_t)(nl - p));
					buf_addstr(out, nl[1] ? "; " : "\n");
					p = nl + 1;
				}
			}
		}
		if (listed == 0)
			buf_printf(out, any_n ? "  none: every kernel that occurs %zu times or more runs "
				   "twice per layer (see the warnings)\n" :
				   "  none: no kernel occurs %zu times or more\n", N);
		if (more)
			buf_printf(out, "  %zu more candidate%s: --top %zu lists %s\n", more,
				   more == 1 ? "" : "s", ncand, more == 1 ? "it" : "them");
		if (warn.len)
			buf_printf(out, "warnings:\n%s", warn.p);
		if (top)
			buf_printf(out, "starting point (verify L0 yourself before publishing):\n  %s\n",
				   cmd.p);
		if (top)
			put_landmarks(st, top, order, n, N, out);
	}
	buf_release(&warn);
	buf_release(&cmd);
	buf_release(&rx);
	buf_release(&why);
}

/* Nothing matched the filters: say where the kernels are. */
static void put_elsewhere(struct state *st, struct buf *out)
{
	size_t i;

	if (st->json) {
		for (i = 0; i < st->elsewhere.n; i++) {
			const char *key = st->elsewhere.keys[i], *sep = strchr(key, '\001');
			buf_printf(out, "%s{\"pid\":%.*s,\"device\":%s,\"kernels\":%" PRIu64 "}",
				   i ? "," : "", (int)(sep - key), key, sep + 1, st->elsewhere_n[i]);
		}
		return;
	}
	if (st->groups.n > 0)
		return;
	if (st->elsewhere.n == 0) {
		buf_addstr(out, "no GPU kernels in the stream\n");
		return;
	}
	buf_addstr(out, "no GPU kernels");
	if (st->pid)
		buf_printf(out, " in pid %s", st->pid);
	if (st->device)
		buf_printf(out, " on device %s", st->device);
	buf_addstr(out, "; kernels are in:\n");
	for (i = 0; i < st->elsewhere.n && i < 20; i++) {
		const char *key = st->elsewhere.keys[i], *sep = strchr(key, '\001');
		buf_printf(out, "  pid %.*s, device %s: %" PRIu64 " kernel%s\n", (int)(sep - key), key,
			   sep + 1, st->elsewhere_n[i], st->elsewhere_n[i] == 1 ? "" : "s");
	}
	if (i < st->elsewhere.n)
		buf_printf(out, "  and %zu more pid and device pairs\n", (size_t)(st->elsewhere.n - i));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "num-layers", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "top", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct state st;
	struct stream_in in;
	struct buf out = BUF_INIT;
	const char *line;
	size_t len, i, *first, *next, *members, m, cap = 0;
	int ch, kind, have_layers = 0, spill_fd;
	uint32_t g;
	struct opt_program prog = { NULL, ":h", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	memset(&st, 0, sizeof st);
	st.top = 10;
	st.tmp = (struct buf)BUF_INIT;
	st.origin_text = (struct buf)BUF_INIT;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'n':
			if (opt_i64(&prog, stderr, "--num-layers", optarg, 1, 1000000, &st.num_layers) != 0)
				exit(EXIT_TROUBLE);
			have_layers = 1;
			break;
		case 'p': st.pid = optarg; break;
		case 'd': st.device = optarg; break;
		case 't':
			if (opt_i64(&prog, stderr, "--top", optarg, 1, 1000, &st.top) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'j': st.json = 1; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (!have_layers)
		exit(opt_usage_error(&prog, stderr, "--num-layers is required"));

	spill_fd = xopen_spill("tr-survey");
	if (stream_in_init(&in, 0, STREAM_DEFAULT_MAX_LINE) != 0 ||
	    writer_init(&st.spill, spill_fd) != 0)
		die_nomem();
	while ((kind = stream_next(&in, &line, &len)) != LINE_END) {
		if (kind == LINE_ERROR)
			die(EXIT_INPUT, "stdin: %s", in.err);
		if (kind == LINE_EVENT)
			see_event(&st, line, len);
	}
	if (st.nsteps)
		qsort(st.steps, st.nsteps, sizeof *st.steps, cmp_step);
	for (i = 0; i < st.keys.n; i++)
		if (survey_analyse(&st.names[i], (size_t)st.num_layers) != 0)
			die_nomem();
	/* the names of each group, in id order, in one pass (a list per group) */
	first = xmalloc((st.groups.n + 1) * sizeof *first);
	next = xmalloc((st.keys.n + 1) * sizeof *next);
	for (g = 0; g < st.groups.n; g++)
		first[g] = SIZE_MAX;
	for (i = st.keys.n; i-- > 0;) {
		next[i] = first[st.names[i].group];
		first[st.names[i].group] = i;
	}
	members = NULL;
	if (st.json) {
		buf_printf(&out, "{\"num_layers\":%" PRId64 ",\"trace_origin_us\":", st.num_layers);
		if (st.have_origin)
			tsnum_append_us3(&out, st.origin_ns);
		else
			buf_addstr(&out, "null");
		buf_printf(&out, ",\"profiler_steps\":%zu,\"groups\":[", st.nsteps);
	}
	st.ranks = xmalloc((st.groups.n + 1) * sizeof *st.ranks);
	for (g = 0; g < st.groups.n; g++) {
		for (m = 0, i = first[g]; i != SIZE_MAX; i = next[i]) {
			if (m == cap) {
				cap = grow_cap(cap, 64, sizeof *members);
				members = xrealloc(members, cap * sizeof *members);
			}
			members[m++] = i;
		}
		rank_group(&st, g, members, m);
	}
	tally_passes(&st, spill_fd);
	for (g = 0; g < st.groups.n; g++) {
		report_group(&st, g, &out, g == 0);
		/* one group at a time: the report is not kept whole */
		if (fwrite(out.p, 1, out.len, stdout) != out.len)
			die_write("standard output");
		buf_reset(&out);
	}
	if (st.json)
		buf_addstr(&out, "],\"kernels_elsewhere\":[");
	put_elsewhere(&st, &out);
	if (st.json)
		buf_addstr(&out, "]}\n");
	if (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
		die_write("standard output");

	for (i = 0; i < st.keys.n; i++) {
		unsigned k;
		free(st.names[i].name);
		free(st.names[i].family);
		free(st.names[i].occ);
		for (k = 0; k < st.names[i].nstreams; k++)
			free(st.names[i].streams[k]);
		free(st.names[i].streams);
	}
	for (g = 0; g < st.groups.n; g++)
		free(st.ranks[g].order);
	free(st.ranks);
	free(st.span_lo);
	free(st.span_hi);
	window_tally_free(&st.tally);
	writer_free(&st.spill);
	close(spill_fd);
	free(members);
	free(first);
	free(next);
	free(st.names);
	free(st.steps);
	free(st.elsewhere_n);
	intern_free(&st.keys);
	intern_free(&st.groups);
	intern_free(&st.elsewhere);
	jdoc_free(&st.doc);
	buf_release(&st.tmp);
	buf_release(&st.origin_text);
	buf_release(&out);
	stream_in_free(&in);
	return EXIT_OK;
}
