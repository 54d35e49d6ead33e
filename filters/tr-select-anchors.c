/* tr-select-anchors: find the once-per-layer anchor kernels, check that the
 * selection is unambiguous and complete, and announce it to tr-guides with
 * control records before the tail.  Every line passes through unchanged.
 * See tr-select-anchors(1). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "buf.h"
#include "diag.h"
#include "event.h"
#include "filter.h"
#include "intern.h"
#include "json.h"
#include "opt.h"
#include "regex.h"
#include "tsnum.h"
#include "trstream.h"

static const char usage_text[] =
	"usage: tr-select-anchors --anchor-regex RE --num-layers N --anchor-offset K\n"
	"                         [--passes P] [--first-layer F] [--pid PID]\n"
	"                         [--device D] [--end-anchor-regex RE]\n"
	"                         [--confirm-regex RE [--confirm-cpu]]\n"
	"Select the once-per-layer anchor kernels of a trace-layers stream\n"
	"(tr-stream(5)) and add anchor records before its tail for tr-guides(1).\n"
	"\n"
	"  --anchor-regex RE      kernel name pattern (Python re syntax, searched\n"
	"                         anywhere in the name unless anchored)\n"
	"  --num-layers N         layers per pass (>= 1)\n"
	"  --anchor-offset K      index of the verified first layer's anchor among\n"
	"                         the timestamp-sorted matches (>= 0)\n"
	"  --passes P             passes to label (default 1)\n"
	"  --first-layer F        number of the first labelled layer (default 0)\n"
	"  --pid PID              only kernels of this pid\n"
	"  --device D             only kernels whose args.device is D\n"
	"  --end-anchor-regex RE  terminal kernel that ends each layer's work\n"
	"  --confirm-regex RE     a second landmark: a kernel that must occur exactly\n"
	"                         once between consecutive anchors of a pass\n"
	"  --confirm-cpu          the landmark is a CPU scope (cpu_op, user_annotation,\n"
	"                         python_function) placed by the anchors' launches\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected or selection refused,\n"
	"2 usage or system trouble.\n";

struct options {
	const char *anchor_regex, *end_regex, *confirm_regex, *pid, *device;
	int64_t num_layers, offset, passes, first_layer;
	int confirm_cpu;
};

/* What a matching kernel is to the selection. */
enum role { ROLE_ANCHOR, ROLE_END, ROLE_CONFIRM };

/* One matching kernel; raw JSON texts are kept for the records. */
struct match {
	uint64_t index;        /* position among this stage's input events */
	int64_t ts_ns, dur_ns;
	int ts_sub, dur_sub;   /* digits beyond the nanosecond */
	int ts_ok, dur_ok;     /* JSON numbers present */
	enum role role;        /* which of the regexes it matched */
	int64_t correlation;   /* args.correlation, for --confirm-cpu */
	int correlation_ok;
	char *ts, *dur;        /* raw, this match's own */
	/* raw, shared: the same few texts repeat over thousands of anchors */
	const char *pid, *tid, *device, *name;  /* device may be NULL */
};

struct matches {
	struct match *v;
	size_t n, cap;
};

/* (pid, tid) pairs seen, raw text, for choosing an unused guide tid. */
struct pair_set {
	struct intern seen;  /* "pid\001tid" */
	char last[256];      /* the key added last, and its length */
	size_t last_len;
	char **pid, **tid;
	size_t n, cap;
};

static void pairs_add(struct pair_set *set, const char *pid, size_t plen,
		      const char *tid, size_t tlen)
{
	char key[sizeof set->last];
	uint32_t before = set->seen.n;

	/* pids and tids are short; a longer pair is never a guide's neighbour */
	if (plen + 1 + tlen > sizeof key)
		return;
	/* events come in runs on one thread: a repeat needs no hashing */
	if (set->last_len == plen + 1 + tlen && memcmp(set->last, pid, plen) == 0 &&
	    memcmp(set->last + plen + 1, tid, tlen) == 0)
		return;
	memcpy(key, pid, plen);
	key[plen] = '\001';
	memcpy(key + plen + 1, tid, tlen);
	memcpy(set->last, key, plen + 1 + tlen);
	set->last_len = plen + 1 + tlen;
	if (intern_id(&set->seen, key, plen + 1 + tlen) < 0)
		die_nomem();
	if (set->seen.n == before)
		return;
	if (set->n == set->cap) {
		set->cap = grow_cap(set->cap, 64, sizeof *set->pid);
		set->pid = xrealloc(set->pid, set->cap * sizeof *set->pid);
		set->tid = xrealloc(set->tid, set->cap * sizeof *set->tid);
	}
	set->pid[set->n] = xmemdup(pid, plen);
	set->tid[set->n] = xmemdup(tid, tlen);
	set->n++;
}

/* The raw text of member key of obj, kept once in texts however often it
 * repeats; NULL when absent. */
static const char *shared_member(struct intern *texts, const struct jdoc *d, int obj,
				 const char *key)
{
	int v = jdoc_find(d, obj, key);
	size_t n;
	const char *p;
	int64_t id;

	if (v < 0)
		return NULL;
	p = jdoc_raw(d, v, &n);
	if ((id = intern_id(texts, p, n)) < 0)
		die_nomem();
	return texts->keys[id];
}

static void parse_number(const struct jdoc *d, int v, int64_t *ns, int *sub, int *ok)
{
	size_t n;
	const char *p;

	*ok = 0;
	if (jdoc_type(d, v) != JT_PRIMITIVE)
		return;
	p = jdoc_text(d, v, &n);
	*ok = num_us_to_ns(p, n, ns, sub) == NUM_OK;
}

/* A CPU-side event for --confirm-cpu: a kernel launch (key: its
 * args.correlation) or a scope matching the landmark (key unused). */
struct cpu_mark {
	int64_t correlation, ts_ns;
	int ts_sub;
	uint64_t index;
	const char *pid, *tid;  /* raw, shared */
};

struct cpu_marks {
	struct cpu_mark *v;
	size_t n, cap;
};

/* The first kernel with a negative dur: Perfetto cannot bound it. */
struct bad_dur {
	int seen;
	uint64_t index;
	char *ts, *dur, *name;  /* raw */
};

struct state {
	struct options opt;
	struct regex *anchor_re, *end_re, *confirm_re;
	struct matches m;
	struct cpu_marks launches, scopes;
	struct bad_dur bad_dur;
	struct pair_set pairs;
	struct jdoc doc;
	struct buf name, cat;
	int64_t origin_ns;
	int origin_sub, have_origin;
	struct buf origin_text;  /* the ts text the origin came from */
	struct intern texts;     /* pid, tid, device and name texts of matches */
	uint64_t events;
};

/* A kernel event: match its name (unescaped only when it has escapes, which
 * kernel names rarely do) and parse the whole event only for a match. */
static void check_kernel(struct state *st, const char *line, size_t len, struct member name)
{
	struct jdoc *d = &st->doc;
	const char *subject = name.p + 1;
	size_t slen = name.len - 2;
	int args, is_anchor, is_end, is_confirm = 0, rc, corr;
	struct match *m;

	if (memchr(subject, '\\', slen) != NULL) {
		buf_reset(&st->name);
		if (json_unescape(subject, slen, &st->name) != 0)
			return;
		subject = st->name.p;
		slen = st->name.len;
	}
	rc = regex_search(st->anchor_re, subject, slen);
	is_anchor = rc == 1;
	is_end = 0;
	if (st->end_re != NULL) {
		int erc = regex_search(st->end_re, subject, slen);
		if (erc < 0)
			rc = erc;
		is_end = erc == 1;
	}
	if (st->confirm_re != NULL && !st->opt.confirm_cpu) {
		int crc = regex_search(st->confirm_re, subject, slen);
		if (crc < 0)
			rc = crc;
		is_confirm = crc == 1;
	}
	if (rc < 0)
		die(EXIT_TROUBLE, "event %" PRIu64 ": regular expression matching failed "
		    "(resource limit)", st->events);
	if (!is_anchor && !is_end && !is_confirm)
		return;
	if (is_anchor + is_end + is_confirm > 1)
		die(EXIT_INPUT, "event %" PRIu64 ": kernel '%.*s' matches both %s and %s; make the "
		    "patterns exclusive", st->events, (int)slen, subject,
		    is_anchor ? "--anchor-regex" : "--end-anchor-regex",
		    is_confirm ? "--confirm-regex" : "--end-anchor-regex");
	if (jdoc_parse(d, line, len, NULL) != 0)
		die(EXIT_INPUT, "stdin: event %" PRIu64 ": not a JSON object", st->events);
	if (st->m.n == st->m.cap) {
		st->m.cap = grow_cap(st->m.cap, 256, sizeof *st->m.v);
		st->m.v = xrealloc(st->m.v, st->m.cap * sizeof *st->m.v);
	}
	m = &st->m.v[st->m.n++];
	memset(m, 0, sizeof *m);
	m->index = st->events;
	m->role = is_anchor ? ROLE_ANCHOR : is_end ? ROLE_END : ROLE_CONFIRM;
	m->pid = shared_member(&st->texts, d, 0, "pid");
	m->tid = shared_member(&st->texts, d, 0, "tid");
	m->ts = raw_copy(d, jdoc_find(d, 0, "ts"));
	m->dur = raw_copy(d, jdoc_find(d, 0, "dur"));
	m->name = shared_member(&st->texts, d, 0, "name");
	args = jdoc_find(d, 0, "args");
	m->device = jdoc_type(d, args) == JT_OBJECT ? shared_member(&st->texts, d, args, "device")
						    : NULL;
	parse_number(d, jdoc_find(d, 0, "ts"), &m->ts_ns, &m->ts_sub, &m->ts_ok);
	parse_number(d, jdoc_find(d, 0, "dur"), &m->dur_ns, &m->dur_sub, &m->dur_ok);
	corr = jdoc_type(d, args) == JT_OBJECT ? jdoc_find(d, args, "correlation") : -1;
	m->correlation_ok = jdoc_int64(d, corr, &m->correlation) == 0;
	if (m->pid == NULL)
		m->pid = "null";
}

static struct cpu_mark *add_mark(struct cpu_marks *set)
{
	if (set->n == set->cap) {
		set->cap = grow_cap(set->cap, 256, sizeof *set->v);
		set->v = xrealloc(set->v, set->cap * sizeof *set->v);
	}
	memset(&set->v[set->n], 0, sizeof set->v[0]);
	return &set->v[set->n++];
}

/* --confirm-cpu: keep every kernel launch (a cuda_runtime or cuda_driver X
 * event with an integer args.correlation; the anchors are not known yet)
 * and every CPU scope whose name matches the landmark. */
static void see_cpu_event(struct state *st, const char *line, size_t len, const char *cats,
			  size_t ncats, struct member name)
{
	struct jdoc *d = &st->doc;
	/* Runtime and Operator: the PyTorch 1.8-era names */
	int launch = category_has(cats, ncats, "cuda_runtime") ||
		     category_has(cats, ncats, "cuda_driver") || category_has(cats, ncats, "Runtime");
	struct cpu_mark *mark;
	int64_t correlation = 0;
	int ok, args;

	if (!launch) {
		const char *subject;
		size_t slen;
		int rc;
		if (!category_has(cats, ncats, "cpu_op") &&
		    !category_has(cats, ncats, "user_annotation") &&
		    !category_has(cats, ncats, "python_function") &&
		    !category_has(cats, ncats, "Operator"))
			return;
		if (name.len < 2 || name.p[0] != '"')
			return;
		subject = name.p + 1;
		slen = name.len - 2;
		if (memchr(subject, '\\', slen) != NULL) {
			buf_reset(&st->name);
			if (json_unescape(subject, slen, &st->name) != 0)
				return;
			subject = st->name.p;
			slen = st->name.len;
		}
		rc = regex_search(st->confirm_re, subject, slen);
		if (rc < 0)
			die(EXIT_TROUBLE, "event %" PRIu64 ": regular expression matching failed "
			    "(resource limit)", st->events);
		if (rc == 0)
			return;
	}
	if (jdoc_parse(d, line, len, NULL) != 0)
		die(EXIT_INPUT, "stdin: event %" PRIu64 ": not a JSON object", st->events);
	if (launch) {
		args = jdoc_find(d, 0, "args");
		if (jdoc_type(d, args) != JT_OBJECT ||
		    jdoc_int64(d, jdoc_find(d, args, "correlation"), &correlation) != 0)
			return;
	}
	mark = add_mark(launch ? &st->launches : &st->scopes);
	mark->correlation = correlation;
	mark->index = st->events;
	parse_number(d, jdoc_find(d, 0, "ts"), &mark->ts_ns, &mark->ts_sub, &ok);
	if (!ok) {
		(launch ? &st->launches : &st->scopes)->n--;  /* cannot be placed */
		return;
	}
	mark->pid = shared_member(&st->texts, d, 0, "pid");
	mark->tid = shared_member(&st->texts, d, 0, "tid");
}

/* Remember the first kernel whose dur is a negative number. */
static void see_kernel_dur(struct state *st, struct member ts, struct member dur,
			   struct member name)
{
	int64_t ns;
	int sub;

	if (st->bad_dur.seen || dur.len == 0 || dur.p[0] != '-' ||
	    num_us_to_ns(dur.p, dur.len, &ns, &sub) != NUM_OK || ns >= 0)
		return;
	st->bad_dur.seen = 1;
	st->bad_dur.index = st->events;
	st->bad_dur.ts = ts.len ? xmemdup(ts.p, ts.len) : xmemdup("missing", 7);
	st->bad_dur.dur = xmemdup(dur.p, dur.len);
	st->bad_dur.name = xmemdup(name.p, name.len);
}

/* The categories of an event, unescaped if they need it; NULL when the
 * event has no string cat. */
static const char *categories(struct state *st, struct member cat, size_t *n)
{
	if (cat.len < 2 || cat.p[0] != '"')
		return NULL;
	if (memchr(cat.p, '\\', cat.len) == NULL) {
		*n = cat.len - 2;
		return cat.p + 1;
	}
	buf_reset(&st->cat);
	if (json_unescape(cat.p + 1, cat.len - 2, &st->cat) != 0)
		return NULL;
	*n = st->cat.len;
	return st->cat.p;
}

/* Every event: the trace origin and the (pid, tid) pairs; kernels: matching.
 * One walk over the line's leading members; the rest is never parsed. */
static void see_event(struct state *st, const char *line, size_t len)
{
	static const char *const keys[] = { "ts", "pid", "tid", "ph", "cat", "name", "dur" };
	struct member m[7];
	const char *cats;
	size_t ncats;
	int is_x;

	event_members(line, len, keys, 7, m);
	/* most ts texts are plainly not below the origin's: no conversion */
	if (m[0].len > 0 && m[0].p[0] != '"' &&
	    !(st->have_origin && num_text_not_below(m[0].p, m[0].len, st->origin_text.p,
						    st->origin_text.len))) {
		int64_t ns;
		int sub;
		if (num_us_to_ns(m[0].p, m[0].len, &ns, &sub) == NUM_OK &&
		    (!st->have_origin || ns < st->origin_ns ||
		     (ns == st->origin_ns && !sub && st->origin_sub))) {
			st->origin_ns = ns;
			st->origin_sub = sub;
			st->have_origin = 1;
			buf_reset(&st->origin_text);
			if (buf_add(&st->origin_text, m[0].p, m[0].len) != 0)
				die_nomem();
		}
	}
	if (m[1].len > 0 && m[2].len > 0)
		pairs_add(&st->pairs, m[1].p, m[1].len, m[2].p, m[2].len);
	cats = categories(st, m[4], &ncats);
	if (cats == NULL)
		return;
	if (category_has(cats, ncats, "layer_guide"))
		die(EXIT_INPUT, "event %" PRIu64 ": the trace already has layer guides (cat "
		    "layer_guide); start from the original trace", st->events);
	is_x = m[3].len == 3 && memcmp(m[3].p, "\"X\"", 3) == 0;
	if (is_x && (category_has(cats, ncats, "kernel") || category_has(cats, ncats, "Kernel"))) {
		see_kernel_dur(st, m[0], m[6], m[5]);
		if (m[5].len >= 2 && m[5].p[0] == '"')
			check_kernel(st, line, len, m[5]);
	} else if (is_x && st->opt.confirm_cpu) {
		see_cpu_event(st, line, len, cats, ncats, m[5]);
	}
}

static const char *device_of(const struct match *m)
{
	return m->device ? m->device : "(none)";
}

/* What the rules of anchors.h need of a match. */
static struct anchors_kernel kernel_of(const struct match *m)
{
	struct anchors_kernel k = { m->index, m->ts_ns, m->dur_ns, m->ts_sub, m->dur_sub,
				    m->dur_ok };

	return k;
}

static struct anchors_kernel *kernels_of(struct match **v, size_t n)
{
	struct anchors_kernel *k = xmalloc((n + 1) * sizeof *k);
	size_t i;

	for (i = 0; i < n; i++)
		k[i] = kernel_of(v[i]);
	return k;
}

static int cmp_ts(const void *a, const void *b)
{
	struct anchors_kernel x = kernel_of(*(const struct match *const *)a);
	struct anchors_kernel y = kernel_of(*(const struct match *const *)b);

	return anchors_kernel_cmp(&x, &y);
}

/* The evidence for a refusal: matches per pid and device (the first 32
 * groups), with the first timestamps of each in source order. */
#define MAX_GROUPS 32
static void show_groups(const struct state *st, enum role want)
{
	const struct match *first[MAX_GROUPS];
	size_t count[MAX_GROUPS], shown[MAX_GROUPS];
	const char *ts[MAX_GROUPS][3];
	size_t ngroups = 0, i, g, k;

	for (i = 0; i < st->m.n; i++) {
		const struct match *m = &st->m.v[i];
		if (m->role != want)
			continue;
		for (g = 0; g < ngroups; g++)
			if (strcmp(first[g]->pid, m->pid) == 0 &&
			    strcmp(device_of(first[g]), device_of(m)) == 0)
				break;
		if (g == ngroups) {
			if (ngroups == MAX_GROUPS)
				continue;
			first[g] = m;
			count[g] = shown[g] = 0;
			ngroups++;
		}
		if (shown[g] < 3)
			ts[g][shown[g]++] = m->ts ? m->ts : "(none)";
		count[g]++;
	}
	for (g = 0; g < ngroups; g++) {
		fprintf(stderr, "  pid %s, device %s: %zu matches; first in source order at ts",
			first[g]->pid, device_of(first[g]), count[g]);
		for (k = 0; k < shown[g]; k++)
			fprintf(stderr, " %s", ts[g][k]);
		fprintf(stderr, "%s\n", count[g] > 3 ? " ..." : "");
	}
}

static _Noreturn void refuse(const struct state *st, const char *why, const char *fix)
{
	fprintf(stderr, "%s: %s\n", diag_progname(), why);
	show_groups(st, ROLE_ANCHOR);
	if (fix != NULL)
		fprintf(stderr, "%s: %s\n", diag_progname(), fix);
	exit(EXIT_INPUT);
}

/* The match is in the --pid and on the --device the user asked for. */
static int wanted(const struct state *st, const struct match *m)
{
	const char *dev = device_of(m);

	return (st->opt.pid == NULL || raw_matches_arg(m->pid, strlen(m->pid), st->opt.pid)) &&
	       (st->opt.device == NULL || raw_matches_arg(dev, strlen(dev), st->opt.device));
}

/* Keep only the kernels of one pid and device, anchors and terminals apart
 * (anchors_choose_group); refuses with the matches per group. */
static void choose_group(struct state *st, const char **pid, const char **device)
{
	struct anchors_where *w = xmalloc((st->m.n + 1) * sizeof *w);
	int *want = xmalloc((st->m.n + 1) * sizeof *want);
	struct anchors_result r;
	struct buf msg = BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; i < st->m.n; i++) {
		const struct match *m = &st->m.v[i];
		w[i].pid = m->pid;
		w[i].device = device_of(m);
		want[i] = m->role == ROLE_ANCHOR && wanted(st, m);
	}
	rc = anchors_choose_group(w, want, st->m.n, &r);
	free(w);
	free(want);
	if (rc == ANCHORS_NO_MATCH) {
		buf_printf(&msg, "no X kernel event matches --anchor-regex '%s'%s%s%s%s%s",
			   st->opt.anchor_regex, st->opt.pid ? " in pid " : "",
			   st->opt.pid ? st->opt.pid : "", st->opt.device ? " on device " : "",
			   st->opt.device ? st->opt.device : "",
			   st->m.n ? "; matches elsewhere:" : "");
		refuse(st, msg.p, "check the kernel name (tr-survey lists candidates) and "
		       "--pid/--device");
	}
	if (rc == ANCHORS_SEVERAL_PIDS)
		refuse(st, "anchor matches fall in several pids:",
		       "choose one with --pid");
	if (rc == ANCHORS_SEVERAL_DEVICES)
		refuse(st, "anchor matches fall on several args.device values of one pid:",
		       "choose one with --device");
	*pid = st->m.v[r.at].pid;
	*device = device_of(&st->m.v[r.at]);
	buf_release(&msg);
}

static int in_group(const struct match *m, const char *pid, const char *device)
{
	return strcmp(m->pid, pid) == 0 && strcmp(device_of(m), device) == 0;
}

/* Pointers to the group's anchors (or terminals, or landmarks), sorted by
 * time. */
static struct match **sorted_group(struct state *st, const char *pid, const char *device,
				   enum role role, size_t *count)
{
	struct match **v = xmalloc((st->m.n + 1) * sizeof *v);
	size_t i, n = 0;

	for (i = 0; i < st->m.n; i++) {
		struct match *m = &st->m.v[i];
		if (m->role != role || !in_group(m, pid, device))
			continue;
		if (!m->ts_ok)
			die(EXIT_INPUT, "event %" PRIu64 ": %s kernel has no numeric ts (%s); "
			    "the matches cannot be ordered", m->index,
			    role == ROLE_END ? "terminal" : role == ROLE_CONFIRM ? "landmark" : "anchor",
			    m->ts ? m->ts : "missing");
		v[n++] = m;
	}
	qsort(v, n, sizeof *v, cmp_ts);
	*count = n;
	return v;
}

/* The refusal of a selected kernel's dur (ANCHORS_NO_DUR and
 * ANCHORS_NEGATIVE_DUR, or their terminal kinds). */
static _Noreturn void refuse_duration(const struct match *m, const char *role)
{
	if (!m->dur_ok)
		die(EXIT_INPUT, "event %" PRIu64 ": selected %s kernel has no numeric dur (%s)",
		    m->index, role, m->dur ? m->dur : "missing");
	die(EXIT_INPUT, "event %" PRIu64 ": selected %s kernel has a negative dur (%s)",
	    m->index, role, m->dur);
}

static int cmp_time(const void *a, const void *b)
{
	return anchors_time_cmp(a, b);
}

static _Noreturn void refuse_landmark(const struct state *st, const char *where, size_t count,
				      const char *what)
{
	fprintf(stderr, "%s: --confirm-regex '%s'%s: %s: %zu %s; exactly one is needed\n",
		diag_progname(), st->opt.confirm_regex, st->opt.confirm_cpu ? " --confirm-cpu" : "",
		where, count, what);
	fprintf(stderr, "%s: a wrong anchor with the right count (a draft pass, a kernel that "
		"runs twice per layer) or a landmark that is not once per layer: compare both "
		"with tr-survey\n", diag_progname());
	exit(EXIT_INPUT);
}

/* A GPU landmark (anchors.h), among the kernels of the anchors' pid and
 * device. */
static void check_gpu_landmark(struct state *st, size_t need, struct match **anchors,
			       size_t nanchors, struct match **ends, size_t nends,
			       const char *pid, const char *device)
{
	size_t n, i, N = (size_t)st->opt.num_layers, at0 = (size_t)st->opt.offset;
	struct match **found = sorted_group(st, pid, device, ROLE_CONFIRM, &n);
	struct anchors_time *marks = xmalloc((n + 1) * sizeof *marks);
	struct anchors_kernel *ak = kernels_of(anchors, nanchors);
	struct anchors_kernel *ek = kernels_of(ends, nends);
	struct anchors_result r;
	struct buf where = BUF_INIT;
	char msg[1024];

	for (i = 0; i < n; i++) {
		marks[i].ns = found[i]->ts_ns;
		marks[i].sub = found[i]->ts_sub;
	}
	if (anchors_gpu_landmark(ak, nanchors, at0, need, N, ek, st->end_re ? nends : 0, marks, n,
				 &r) != ANCHORS_OK) {
		const struct match *a = anchors[at0 + r.at];
		int64_t first = st->opt.first_layer + (int64_t)(r.at % N);
		if (r.term == (size_t)-1)
			buf_printf(&where, "pass %zu, layers %" PRId64 " and %" PRId64 " (anchors at ts "
				   "%s and %s)", r.at / N, first, first + 1, a->ts,
				   anchors[at0 + r.at + 1]->ts);
		else
			buf_printf(&where, "pass %zu, layer %" PRId64 " (anchor at ts %s, up to the end "
				   "of its terminal at ts %s, dur %s)", r.at / N, first, a->ts,
				   ends[r.term]->ts, ends[r.term]->dur);
		/* freed first, for leak checkers: the refusal exits */
		snprintf(msg, sizeof msg, "%s", where.p);
		buf_release(&where);
		free(marks);
		free(found);
		free(ak);
		free(ek);
		refuse_landmark(st, msg, r.count, "kernels match there");
	}
	free(marks);
	free(found);
	free(ak);
	free(ek);
}

static int cmp_correlation(const void *a, const void *b)
{
	const struct cpu_mark *x = a, *y = b;

	if (x->correlation != y->correlation)
		return x->correlation < y->correlation ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The launch of a kernel: the first cuda_runtime/cuda_driver event (in
 * source order) with its args.correlation; NULL when there is none. */
static const struct cpu_mark *launch_of(const struct cpu_marks *launches, const struct match *m)
{
	size_t lo = 0, hi = launches->n;

	if (!m->correlation_ok)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (launches->v[mid].correlation < m->correlation)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < launches->n && launches->v[lo].correlation == m->correlation ?
	       &launches->v[lo] : NULL;
}

/* A CPU landmark: CPU time runs ahead of the GPU, so the scopes are placed
 * against the anchors' launches: exactly one matching scope on a thread that
 * launched a selected anchor starts in [launch_i, launch_i+1) within a pass.
 * The last layer of a pass is not checked: its scope starts before its own
 * anchor's launch, in the interval before. */
static void check_cpu_landmark(struct state *st, struct match **sel, size_t need)
{
	size_t N = (size_t)st->opt.num_layers, i, k, nthreads = 0, nkeys = 0;
	const struct cpu_mark **launch = xmalloc((need + 1) * sizeof *launch);
	const char **threads = xmalloc((2 * need + 2) * sizeof *threads);
	struct anchors_time *keys = xmalloc((st->scopes.n + 1) * sizeof *keys);
	struct buf where = BUF_INIT;
	char t0[NUM_US_BUFSZ], t1[NUM_US_BUFSZ], msg[1024];
	size_t count = 0;
	int miscount = 0;

	if (st->launches.n > 0)
		qsort(st->launches.v, st->launches.n, sizeof *st->launches.v, cmp_correlation);
	for (i = 0; i < need; i++) {
		launch[i] = launch_of(&st->launches, sel[i]);
		if (launch[i] == NULL) {
			snprintf(msg, sizeof msg, "--confirm-cpu: the anchor at ts %s (event %" PRIu64
				 ") has no launch (no cuda_runtime or cuda_driver event with its "
				 "args.correlation%s); CPU scopes are placed by the anchors' launches: "
				 "use a GPU landmark", sel[i]->ts, sel[i]->index,
				 sel[i]->correlation_ok ? "" : ", which it lacks");
			goto refused;
		}
		/* threads are few: the pid and tid texts are shared, so compare pointers */
		for (k = 0; k < nthreads; k++)
			if (threads[2 * k] == launch[i]->pid && threads[2 * k + 1] == launch[i]->tid)
				break;
		if (k == nthreads) {
			threads[2 * k] = launch[i]->pid;
			threads[2 * k + 1] = launch[i]->tid;
			nthreads++;
		}
	}
	for (i = 0; i < st->scopes.n; i++) {
		const struct cpu_mark *s = &st->scopes.v[i];
		for (k = 0; k < nthreads; k++)
			if (threads[2 * k] == s->pid && threads[2 * k + 1] == s->tid)
				break;
		if (k < nthreads) {
			keys[nkeys].ns = s->ts_ns;
			keys[nkeys++].sub = s->ts_sub;
		}
	}
	qsort(keys, nkeys, sizeof *keys, cmp_time);
	for (i = 0; i + 1 < need; i++) {
		size_t layer = i % N;
		int64_t first = st->opt.first_layer + (int64_t)layer;
		struct anchors_time lo = { launch[i]->ts_ns, launch[i]->ts_sub };
		struct anchors_time hi = { launch[i + 1]->ts_ns, launch[i + 1]->ts_sub };
		if (layer + 1 == N)
			continue;
		num_format_us3(lo.ns, t0);
		num_format_us3(hi.ns, t1);
		buf_reset(&where);
		buf_printf(&where, "pass %zu, layers %" PRId64 " and %" PRId64 " (anchors at ts %s and "
			   "%s, launched at ts %s and %s)", i / N, first, first + 1, sel[i]->ts,
			   sel[i + 1]->ts, t0, t1);
		if (anchors_time_cmp(&lo, &hi) >= 0) {
			snprintf(msg, sizeof msg, "--confirm-cpu: %s: the second anchor was not "
				 "launched after the first (one launch for both, as in a CUDA graph?); "
				 "no CPU scope can lie between them: use a GPU landmark", where.p);
			goto refused;
		}
		count = anchors_count_between(keys, nkeys, lo, hi);
		if (count != 1) {
			snprintf(msg, sizeof msg, "%s", where.p);
			miscount = 1;
			goto refused;
		}
	}
	buf_release(&where);
	free(keys);
	free(threads);
	free(launch);
	return;
refused:
	/* freed first, for leak checkers: the refusal exits */
	buf_release(&where);
	free(keys);
	free(threads);
	free(launch);
	if (miscount)
		refuse_landmark(st, msg, count, "CPU scopes start there");
	die(EXIT_INPUT, "%s", msg);
}

static void put_str_or_null(struct buf *b, const char *raw)
{
	buf_addstr(b, raw ? raw : "null");
}

static void put_match(struct buf *b, const struct match *m)
{
	buf_printf(b, "{\"source_index\":%" PRIu64 ",\"pid\":%s,\"tid\":", m->index, m->pid);
	put_str_or_null(b, m->tid);
	buf_addstr(b, ",\"device\":");
	put_str_or_null(b, m->device);
	buf_printf(b, ",\"ts\":%s,\"dur\":%s,\"ts_ns\":%" PRId64 ",\"dur_ns\":%" PRId64
		   ",\"name\":%s}", m->ts, m->dur, m->ts_ns, m->dur_ns, m->name);
}

static void emit_records(struct state *st, struct filter *f)
{
	const char *pid, *device;
	struct match **anchors, **ends = NULL;
	struct anchors_kernel *ak, *ek;
	struct anchors_result r;
	size_t nanchors, nends = 0, need, i, k;
	struct buf rec = BUF_INIT;
	char tmp[NUM_US_BUFSZ];

	choose_group(st, &pid, &device);
	anchors = sorted_group(st, pid, device, ROLE_ANCHOR, &nanchors);
	if (st->end_re != NULL)
		ends = sorted_group(st, pid, device, ROLE_END, &nends);
	need = (size_t)(st->opt.num_layers * st->opt.passes);
	ak = kernels_of(anchors, nanchors);
	ek = kernels_of(ends, nends);
	switch (anchors_select(ak, nanchors, (size_t)st->opt.offset, need, &r)) {
	case ANCHORS_OK:
		break;
	case ANCHORS_TRUNCATED:
		fprintf(stderr, "%s: truncated selection: %zu kernels match in pid %s, device %s; "
			"from --anchor-offset %" PRId64 " there are %zu, but --num-layers %" PRId64
			" x --passes %" PRId64 " needs %zu\n", diag_progname(), nanchors, pid,
			device, st->opt.offset, r.count, st->opt.num_layers, st->opt.passes, need);
		fprintf(stderr, "  sorted matches at ts:");
		for (i = 0; i < nanchors && i < 6; i++)
			fprintf(stderr, " [%zu] %s", i, anchors[i]->ts);
		fprintf(stderr, "%s\n", nanchors > 6 ? " ..." : "");
		fprintf(stderr, "%s: lower --anchor-offset, --passes or --num-layers, or profile "
			"a longer window\n", diag_progname());
		exit(EXIT_INPUT);
	case ANCHORS_NOT_INCREASING:
		die(EXIT_INPUT, "selected anchors %zu and %zu (events %" PRIu64 " and %"
		    PRIu64 ") do not have strictly increasing timestamps (%s, %s)",
		    r.at - 1, r.at, anchors[r.at - 1]->index, anchors[r.at]->index,
		    anchors[r.at - 1]->ts, anchors[r.at]->ts);
	default:
		refuse_duration(anchors[r.at], "anchor");
	}
	if (st->confirm_re != NULL && st->opt.confirm_cpu)
		check_cpu_landmark(st, anchors + st->opt.offset, need);
	else if (st->confirm_re != NULL)
		check_gpu_landmark(st, need, anchors, nanchors, ends, nends, pid, device);

	trstream_record_begin(&rec, TRSTREAM_ANCHORS);
	buf_addstr(&rec, ",\"anchor_regex\":");
	json_escape(&rec, st->opt.anchor_regex, strlen(st->opt.anchor_regex));
	buf_addstr(&rec, ",\"end_anchor_regex\":");
	if (st->opt.end_regex)
		json_escape(&rec, st->opt.end_regex, strlen(st->opt.end_regex));
	else
		buf_addstr(&rec, "null");
	buf_addstr(&rec, ",\"confirm_regex\":");
	if (st->opt.confirm_regex)
		json_escape(&rec, st->opt.confirm_regex, strlen(st->opt.confirm_regex));
	else
		buf_addstr(&rec, "null");
	buf_printf(&rec, ",\"confirm_cpu\":%s", st->opt.confirm_cpu ? "true" : "false");
	buf_printf(&rec, ",\"anchor_offset\":%" PRId64 ",\"matching_anchor_count\":%zu"
		   ",\"num_layers\":%" PRId64 ",\"first_layer\":%" PRId64 ",\"passes\":%" PRId64
		   ",\"pid\":%s,\"device\":%s", st->opt.offset, nanchors, st->opt.num_layers,
		   st->opt.first_layer, st->opt.passes, pid,
		   strcmp(device, "(none)") == 0 ? "null" : device);
	num_format_us3(st->origin_ns, tmp);
	buf_printf(&rec, ",\"trace_origin_ns\":%" PRId64 ",\"trace_origin_us\":%s,\"used_tids\":[",
		   st->origin_ns, tmp);
	for (i = 0, k = 0; i < st->pairs.n; i++)
		if (strcmp(st->pairs.pid[i], pid) == 0)
			buf_printf(&rec, "%s%s", k++ ? "," : "", st->pairs.tid[i]);
	buf_addstr(&rec, "]}");
	filter_put(f, rec.p, rec.len);

	for (i = 0; i < need; i++) {
		size_t at = (size_t)st->opt.offset + i;
		const struct match *a = anchors[at];
		const struct match *next = at + 1 < nanchors ? anchors[at + 1] : NULL;
		const struct match *term = NULL;
		buf_reset(&rec);
		trstream_record_begin(&rec, TRSTREAM_ANCHOR);
		buf_printf(&rec, ",\"i\":%zu,\"pass\":%zu,\"layer\":%zu,"
			   "\"anchor_index\":%zu,\"anchor\":", i,
			   i / (size_t)st->opt.num_layers, i % (size_t)st->opt.num_layers, at);
		put_match(&rec, a);
		if (st->end_re != NULL) {
			switch (anchors_terminal(ek, nends, &ak[at], next ? &ak[at + 1] : NULL, &r)) {
			case ANCHORS_OK:
				break;
			case ANCHORS_TERMINAL_COUNT:
				die(EXIT_INPUT, "anchor %zu (event %" PRIu64 ", ts %s): %zu kernels match "
				    "--end-anchor-regex between it and the %s; exactly one is needed",
				    at, a->index, a->ts, r.count,
				    next ? "next matching anchor" : "end of the trace");
			case ANCHORS_TERMINAL_PAST_NEXT:
				term = ends[r.at];
				die(EXIT_INPUT, "terminal kernel (event %" PRIu64 ", ts %s, dur %s) ends "
				    "after the next anchor starts (event %" PRIu64 ", ts %s)",
				    term->index, term->ts, term->dur, next->index, next->ts);
			default:
				refuse_duration(ends[r.at], "terminal");
			}
			term = ends[r.at];
			buf_addstr(&rec, ",\"terminal\":");
			put_match(&rec, term);
		}
		buf_addstr(&rec, "}");
		filter_put(f, rec.p, rec.len);
	}
	/* after the selected kernels' own checks, which say more */
	if (st->bad_dur.seen)
		die(EXIT_INPUT, "event %" PRIu64 " (ts %s): kernel %s has a negative dur (%s); "
		    "Perfetto would misplace it and the trace bounds, so no guides are added "
		    "to this trace", st->bad_dur.index, st->bad_dur.ts, st->bad_dur.name,
		    st->bad_dur.dur);
	buf_release(&rec);
	free(anchors);
	free(ends);
	free(ak);
	free(ek);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "anchor-regex", required_argument, NULL, 'a' },
		{ "num-layers", required_argument, NULL, 'n' },
		{ "anchor-offset", required_argument, NULL, 'k' },
		{ "passes", required_argument, NULL, 'p' },
		{ "first-layer", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'P' },
		{ "device", required_argument, NULL, 'D' },
		{ "end-anchor-regex", required_argument, NULL, 'e' },
		{ "confirm-regex", required_argument, NULL, 'c' },
		{ "confirm-cpu", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct opt_program prog = { NULL, ":h", longopts, usage_text };
	int ch, have_layers = 0, have_offset = 0;

	prog.name = diag_progname();
	memset(o, 0, sizeof *o);
	o->passes = 1;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'a': o->anchor_regex = optarg; break;
		case 'e': o->end_regex = optarg; break;
		case 'c': o->confirm_regex = optarg; break;
		case 'C': o->confirm_cpu = 1; break;
		case 'P': o->pid = optarg; break;
		case 'D': o->device = optarg; break;
		case 'n':
			if (opt_i64(&prog, stderr, "--num-layers", optarg, 1, 1000000, &o->num_layers) != 0)
				exit(EXIT_TROUBLE);
			have_layers = 1;
			break;
		case 'k':
			if (opt_i64(&prog, stderr, "--anchor-offset", optarg, 0, INT32_MAX, &o->offset) != 0)
				exit(EXIT_TROUBLE);
			have_offset = 1;
			break;
		case 'p':
			if (opt_i64(&prog, stderr, "--passes", optarg, 1, 1000000, &o->passes) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'f':
			if (opt_i64(&prog, stderr, "--first-layer", optarg, 0, 1000000,
				    &o->first_layer) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (o->anchor_regex == NULL || !have_layers || !have_offset)
		exit(opt_usage_error(&prog, stderr,
			"--anchor-regex, --num-layers and --anchor-offset are required"));
	if (o->confirm_cpu && o->confirm_regex == NULL)
		exit(opt_usage_error(&prog, stderr, "--confirm-cpu needs --confirm-regex"));
	if (o->num_layers * o->passes > 10000000)
		die(EXIT_TROUBLE, "--num-layers x --passes is too large (at most 10000000)");
}

int main(int argc, char **argv)
{
	struct state st;
	struct filter f;
	const char *line;
	size_t len, i;
	char err[200];
	int kind;

	diag_init(argv[0]);
	memset(&st, 0, sizeof st);
	parse_options(argc, argv, &st.opt);
	st.name = (struct buf)BUF_INIT;
	st.cat = (struct buf)BUF_INIT;
	st.origin_text = (struct buf)BUF_INIT;
	st.anchor_re = regex_compile(st.opt.anchor_regex, err, sizeof err);
	if (st.anchor_re == NULL)
		die(EXIT_TROUBLE, "--anchor-regex: %s", err);
	if (st.opt.end_regex && (st.end_re = regex_compile(st.opt.end_regex, err, sizeof err)) == NULL)
		die(EXIT_TROUBLE, "--end-anchor-regex: %s", err);
	if (st.opt.confirm_regex &&
	    (st.confirm_re = regex_compile(st.opt.confirm_regex, err, sizeof err)) == NULL)
		die(EXIT_TROUBLE, "--confirm-regex: %s", err);

	filter_open(&f);
	while ((kind = filter_next(&f, &line, &len)) != LINE_END) {
		if (kind == LINE_EVENT) {
			see_event(&st, line, len);
			st.events++;
		} else if (kind == LINE_TAIL) {
			emit_records(&st, &f);
		} else if (kind == LINE_CONTROL && stream_is_kind(line, len, "anchors")) {
			die(EXIT_INPUT, "the stream already carries anchor records "
			    "(tr-select-anchors twice in one pipeline?)");
		}
		filter_pass(&f, line, len);
	}
	filter_close(&f);

	for (i = 0; i < st.m.n; i++) {
		struct match *m = &st.m.v[i];
		free(m->ts);
		free(m->dur);
	}
	for (i = 0; i < st.pairs.n; i++) {
		free(st.pairs.pid[i]);
		free(st.pairs.tid[i]);
	}
	free(st.pairs.pid);
	free(st.pairs.tid);
	intern_free(&st.pairs.seen);
	free(st.m.v);
	jdoc_free(&st.doc);
	buf_release(&st.name);
	buf_release(&st.cat);
	buf_release(&st.origin_text);
	intern_free(&st.texts);
	regex_free(st.anchor_re);
	regex_free(st.end_re);
	regex_free(st.confirm_re);
	free(st.launches.v);
	free(st.scopes.v);
	free(st.bad_dur.ts);
	free(st.bad_dur.dur);
	free(st.bad_dur.name);
	return EXIT_OK;
}
