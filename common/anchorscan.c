/* anchorscan: see anchorscan.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "anchorscan.h"
#include "event.h"
#include "trstream.h"
#include "tsnum.h"

/* Append to a refusal; a failure is remembered as ANCHORSCAN_NOMEM. */
static void say(int *nomem, struct buf *msg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(int *nomem, struct buf *msg, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp) {
		/* a long one (a regex, a kernel name): print it again, whole */
		struct buf big = BUF_INIT;
		va_start(ap, fmt);
		n = n < 0 ? -1 : vsnprintf(NULL, 0, fmt, ap);
		va_end(ap);
		if (n < 0 || buf_grow(&big, (size_t)n) != 0) {
			*nomem = 1;
			return;
		}
		va_start(ap, fmt);
		(void)vsnprintf(big.p, (size_t)n + 1, fmt, ap);
		va_end(ap);
		if (buf_add(msg, big.p, (size_t)n) != 0)
			*nomem = 1;
		buf_release(&big);
		return;
	}
	if (buf_add(msg, tmp, (size_t)n) != 0)
		*nomem = 1;
}

static int done(int nomem, int status)
{
	return nomem ? ANCHORSCAN_NOMEM : status;
}

int anchorscan_init(struct anchorscan *s, const struct anchorscan_options *opt,
		    const char *progname, struct buf *msg)
{
	char err[200];
	int nomem = 0;

	s->opt = *opt;
	s->progname = progname;
	s->name = (struct buf)BUF_INIT;
	s->cat = (struct buf)BUF_INIT;
	s->origin_text = (struct buf)BUF_INIT;
	s->doc = (struct jdoc)JDOC_INIT;
	if ((s->anchor_re = regex_compile(opt->anchor_regex, err, sizeof err)) == NULL) {
		say(&nomem, msg, "--anchor-regex: %s", err);
		return done(nomem, ANCHORSCAN_TROUBLE);
	}
	if (opt->end_regex && (s->end_re = regex_compile(opt->end_regex, err, sizeof err)) == NULL) {
		say(&nomem, msg, "--end-anchor-regex: %s", err);
		return done(nomem, ANCHORSCAN_TROUBLE);
	}
	if (opt->confirm_regex &&
	    (s->confirm_re = regex_compile(opt->confirm_regex, err, sizeof err)) == NULL) {
		say(&nomem, msg, "--confirm-regex: %s", err);
		return done(nomem, ANCHORSCAN_TROUBLE);
	}
	return ANCHORSCAN_OK;
}

/* ---- while the events go by ------------------------------------------ */

static int pairs_add(struct anchorscan *s, const char *pid, size_t plen, const char *tid,
		     size_t tlen)
{
	char key[sizeof s->pairs.last];
	uint32_t before = s->pairs.seen.n;
	size_t cap;

	/* pids and tids are short; a longer pair is never a guide's neighbour */
	if (plen + 1 + tlen > sizeof key)
		return 0;
	/* events come in runs on one thread: a repeat needs no hashing */
	if (s->pairs.last_len == plen + 1 + tlen && memcmp(s->pairs.last, pid, plen) == 0 &&
	    memcmp(s->pairs.last + plen + 1, tid, tlen) == 0)
		return 0;
	memcpy(key, pid, plen);
	key[plen] = '\001';
	memcpy(key + plen + 1, tid, tlen);
	memcpy(s->pairs.last, key, plen + 1 + tlen);
	s->pairs.last_len = plen + 1 + tlen;
	if (intern_id(&s->pairs.seen, key, plen + 1 + tlen) < 0)
		return -1;
	if (s->pairs.seen.n == before)
		return 0;
	cap = s->pairs.cap;
	if (buf_array_room((void **)&s->pairs.pid, s->pairs.n, &cap, 64, sizeof *s->pairs.pid) != 0)
		return -1;
	cap = s->pairs.cap;
	if (buf_array_room((void **)&s->pairs.tid, s->pairs.n, &cap, 64, sizeof *s->pairs.tid) != 0)
		return -1;
	s->pairs.cap = cap;
	s->pairs.pid[s->pairs.n] = buf_memdup(pid, plen);
	s->pairs.tid[s->pairs.n] = buf_memdup(tid, tlen);
	s->pairs.n++;
	return s->pairs.pid[s->pairs.n - 1] && s->pairs.tid[s->pairs.n - 1] ? 0 : -1;
}

/* A match's pid when its event has none. */
static char null_text[] = "null";

/* The raw text of member key of obj, kept once in texts however often it
 * repeats; NULL when absent (or, with *nomem set, when memory ran out). */
static char *shared_member(struct anchorscan *s, int obj, const char *key, int *nomem)
{
	int v = json_find(&s->doc, obj, key);
	size_t n;
	const char *p;
	int64_t id;

	if (v < 0)
		return NULL;
	p = json_raw(&s->doc, v, &n);
	if ((id = intern_id(&s->texts, p, n)) < 0) {
		*nomem = 1;
		return NULL;
	}
	return s->texts.keys[id];
}

static void parse_number(const struct jdoc *d, int v, int64_t *ns, int *sub, int *ok)
{
	size_t n;
	const char *p;

	*ok = 0;
	if (json_type(d, v) != JT_PRIMITIVE)
		return;
	p = json_text(d, v, &n);
	*ok = tsnum_us_to_ns(p, n, ns, sub) == NUM_OK;
}

/* The string body of a JSON string member, unescaped into scratch when it
 * has escapes (kernel names rarely do); NULL when malformed. */
static const char *unescaped(struct buf *scratch, const char *p, size_t n, size_t *len)
{
	if (memchr(p, '\\', n) == NULL) {
		*len = n;
		return p;
	}
	buf_reset(scratch);
	if (json_unescape(p, n, scratch) != 0)
		return NULL;
	*len = scratch->len;
	return scratch->p;
}

static int regex_trouble(struct anchorscan *s, struct buf *msg)
{
	int nomem = 0;

	say(&nomem, msg, "event %" PRIu64 ": regular expression matching failed "
	    "(resource limit)", s->events);
	return done(nomem, ANCHORSCAN_TROUBLE);
}

static int not_an_object(struct anchorscan *s, struct buf *msg)
{
	int nomem = 0;

	say(&nomem, msg, "stdin: event %" PRIu64 ": not a JSON object", s->events);
	return done(nomem, ANCHORSCAN_REFUSED);
}

/* A kernel event: match its name and parse the whole event only for a
 * match. */
static int check_kernel(struct anchorscan *s, const char *line, size_t len, struct member name,
			struct buf *msg)
{
	struct jdoc *d = &s->doc;
	size_t slen;
	const char *subject = unescaped(&s->name, name.p + 1, name.len - 2, &slen);
	int args, is_anchor, is_end = 0, is_confirm = 0, rc, corr, nomem = 0;
	struct anchorscan_match *m;

	if (subject == NULL)
		return ANCHORSCAN_OK;
	rc = regex_search(s->anchor_re, subject, slen);
	is_anchor = rc == 1;
	if (s->end_re != NULL) {
		int erc = regex_search(s->end_re, subject, slen);
		if (erc < 0)
			rc = erc;
		is_end = erc == 1;
	}
	if (s->confirm_re != NULL && !s->opt.confirm_cpu) {
		int crc = regex_search(s->confirm_re, subject, slen);
		if (crc < 0)
			rc = crc;
		is_confirm = crc == 1;
	}
	if (rc < 0)
		return regex_trouble(s, msg);
	if (!is_anchor && !is_end && !is_confirm)
		return ANCHORSCAN_OK;
	if (is_anchor + is_end + is_confirm > 1) {
		say(&nomem, msg, "event %" PRIu64 ": kernel '%.*s' matches both %s and %s; make "
		    "the patterns exclusive", s->events, (int)slen, subject,
		    is_anchor ? "--anchor-regex" : "--end-anchor-regex",
		    is_confirm ? "--confirm-regex" : "--end-anchor-regex");
		return done(nomem, ANCHORSCAN_REFUSED);
	}
	if (json_parse(d, line, len, &nomem) != 0)
		return nomem ? ANCHORSCAN_NOMEM : not_an_object(s, msg);
	if (buf_array_room((void **)&s->m, s->nm, &s->mcap, 256, sizeof *s->m) != 0)
		return ANCHORSCAN_NOMEM;
	m = &s->m[s->nm++];
	memset(m, 0, sizeof *m);
	m->index = s->events;
	m->role = is_anchor ? ANCHORSCAN_ANCHOR : is_end ? ANCHORSCAN_END : ANCHORSCAN_CONFIRM;
	m->pid = shared_member(s, 0, "pid", &nomem);
	m->tid = shared_member(s, 0, "tid", &nomem);
	m->ts = json_raw_dup(d, json_find(d, 0, "ts"), &nomem);
	m->dur = json_raw_dup(d, json_find(d, 0, "dur"), &nomem);
	m->name = shared_member(s, 0, "name", &nomem);
	args = json_find(d, 0, "args");
	m->device = json_type(d, args) == JT_OBJECT ? shared_member(s, args, "device", &nomem)
						    : NULL;
	parse_number(d, json_find(d, 0, "ts"), &m->ts_ns, &m->ts_sub, &m->ts_ok);
	parse_number(d, json_find(d, 0, "dur"), &m->dur_ns, &m->dur_sub, &m->dur_ok);
	corr = json_type(d, args) == JT_OBJECT ? json_find(d, args, "correlation") : -1;
	m->correlation_ok = json_int64(d, corr, &m->correlation) == 0;
	if (m->pid == NULL)
		m->pid = null_text;
	return nomem ? ANCHORSCAN_NOMEM : ANCHORSCAN_OK;
}

/* --confirm-cpu: keep every kernel launch (a cuda_runtime or cuda_driver X
 * event with an integer args.correlation; the anchors are not known yet)
 * and every CPU scope whose name matches the landmark. */
static int see_cpu_event(struct anchorscan *s, const char *line, size_t len, const char *cats,
			 size_t ncats, struct member name, struct buf *msg)
{
	struct jdoc *d = &s->doc;
	/* Runtime and Operator: the PyTorch 1.8-era names */
	int launch = event_category_has(cats, ncats, "cuda_runtime") ||
		     event_category_has(cats, ncats, "cuda_driver") || event_category_has(cats, ncats, "Runtime");
	struct anchorscan_marks *set = launch ? &s->launches : &s->scopes;
	struct anchorscan_mark *mark;
	int64_t correlation = 0;
	int ok, args, nomem = 0;

	if (!launch) {
		const char *subject;
		size_t slen;
		int rc;
		if (!event_category_has(cats, ncats, "cpu_op") &&
		    !event_category_has(cats, ncats, "user_annotation") &&
		    !event_category_has(cats, ncats, "python_function") &&
		    !event_category_has(cats, ncats, "Operator"))
			return ANCHORSCAN_OK;
		if (name.len < 2 || name.p[0] != '"')
			return ANCHORSCAN_OK;
		subject = unescaped(&s->name, name.p + 1, name.len - 2, &slen);
		if (subject == NULL)
			return ANCHORSCAN_OK;
		rc = regex_search(s->confirm_re, subject, slen);
		if (rc < 0)
			return regex_trouble(s, msg);
		if (rc == 0)
			return ANCHORSCAN_OK;
	}
	if (json_parse(d, line, len, &nomem) != 0)
		return nomem ? ANCHORSCAN_NOMEM : not_an_object(s, msg);
	if (launch) {
		args = json_find(d, 0, "args");
		if (json_type(d, args) != JT_OBJECT ||
		    json_int64(d, json_find(d, args, "correlation"), &correlation) != 0)
			return ANCHORSCAN_OK;
	}
	if (buf_array_room((void **)&set->v, set->n, &set->cap, 256, sizeof *set->v) != 0)
		return ANCHORSCAN_NOMEM;
	mark = &set->v[set->n];
	memset(mark, 0, sizeof *mark);
	mark->correlation = correlation;
	mark->index = s->events;
	parse_number(d, json_find(d, 0, "ts"), &mark->ts_ns, &mark->ts_sub, &ok);
	if (!ok)
		return ANCHORSCAN_OK;  /* cannot be placed */
	mark->pid = shared_member(s, 0, "pid", &nomem);
	mark->tid = shared_member(s, 0, "tid", &nomem);
	set->n++;
	return nomem ? ANCHORSCAN_NOMEM : ANCHORSCAN_OK;
}

/* Remember the first kernel whose dur is a negative number. */
static int see_kernel_dur(struct anchorscan *s, struct member ts, struct member dur,
			  struct member name)
{
	int64_t ns;
	int sub;

	if (s->bad_dur.seen || dur.len == 0 || dur.p[0] != '-' ||
	    tsnum_us_to_ns(dur.p, dur.len, &ns, &sub) != NUM_OK || ns >= 0)
		return ANCHORSCAN_OK;
	s->bad_dur.seen = 1;
	s->bad_dur.index = s->events;
	s->bad_dur.ts = ts.len ? buf_memdup(ts.p, ts.len) : buf_memdup("missing", 7);
	s->bad_dur.dur = buf_memdup(dur.p, dur.len);
	s->bad_dur.name = buf_memdup(name.p, name.len);
	return s->bad_dur.ts && s->bad_dur.dur && s->bad_dur.name ? ANCHORSCAN_OK
								  : ANCHORSCAN_NOMEM;
}

/* Every event: the trace origin and the (pid, tid) pairs; kernels: matching.
 * One walk over the line's leading members; the rest is never parsed. */
int anchorscan_event(struct anchorscan *s, const char *line, size_t len, struct buf *msg)
{
	static const char *const keys[] = { "ts", "pid", "tid", "ph", "cat", "name", "dur" };
	struct member m[7];
	const char *cats;
	size_t ncats;
	int is_x, rc = ANCHORSCAN_OK, nomem = 0;

	event_members(line, len, keys, 7, m);
	/* most ts texts are plainly not below the origin's: no conversion */
	if (m[0].len > 0 && m[0].p[0] != '"' &&
	    !(s->have_origin && tsnum_text_not_below(m[0].p, m[0].len, s->origin_text.p,
						   s->origin_text.len))) {
		int64_t ns;
		int sub;
		if (tsnum_us_to_ns(m[0].p, m[0].len, &ns, &sub) == NUM_OK &&
		    (!s->have_origin || ns < s->origin_ns ||
		     (ns == s->origin_ns && !sub && s->origin_sub))) {
			s->origin_ns = ns;
			s->origin_sub = sub;
			s->have_origin = 1;
			buf_reset(&s->origin_text);
			if (buf_add(&s->origin_text, m[0].p, m[0].len) != 0)
				rc = ANCHORSCAN_NOMEM;
		}
	}
	if (m[1].len > 0 && m[2].len > 0 && pairs_add(s, m[1].p, m[1].len, m[2].p, m[2].len) != 0)
		rc = ANCHORSCAN_NOMEM;
	if (rc == ANCHORSCAN_OK && m[4].len >= 2 && m[4].p[0] == '"' &&
	    (cats = unescaped(&s->cat, m[4].p + 1, m[4].len - 2, &ncats)) != NULL) {
		if (event_category_has(cats, ncats, "layer_guide")) {
			say(&nomem, msg, "event %" PRIu64 ": the trace already has layer guides "
			    "(cat layer_guide); start from the original trace", s->events);
			rc = done(nomem, ANCHORSCAN_REFUSED);
		} else {
			is_x = m[3].len == 3 && memcmp(m[3].p, "\"X\"", 3) == 0;
			if (is_x && (event_category_has(cats, ncats, "kernel") ||
				     event_category_has(cats, ncats, "Kernel"))) {
				rc = see_kernel_dur(s, m[0], m[6], m[5]);
				if (rc == ANCHORSCAN_OK && m[5].len >= 2 && m[5].p[0] == '"')
					rc = check_kernel(s, line, len, m[5], msg);
			} else if (is_x && s->opt.confirm_cpu) {
				rc = see_cpu_event(s, line, len, cats, ncats, m[5], msg);
			}
		}
	}
	s->events++;
	return rc;
}

/* ---- at the tail: the selection -------------------------------------- */

static const char *device_of(const struct anchorscan_match *m)
{
	return m->device ? m->device : "(none)";
}

/* What the rules of anchors.h need of a match. */
static struct anchors_kernel kernel_of(const struct anchorscan_match *m)
{
	struct anchors_kernel k = { m->index, m->ts_ns, m->dur_ns, m->ts_sub, m->dur_sub,
				    m->dur_ok };

	return k;
}

static struct anchors_kernel *kernels_of(struct anchorscan_match **v, size_t n)
{
	struct anchors_kernel *k = malloc((n + 1) * sizeof *k);
	size_t i;

	for (i = 0; k != NULL && i < n; i++)
		k[i] = kernel_of(v[i]);
	return k;
}

static int cmp_ts(const void *a, const void *b)
{
	struct anchors_kernel x = kernel_of(*(const struct anchorscan_match *const *)a);
	struct anchors_kernel y = kernel_of(*(const struct anchorscan_match *const *)b);

	return anchors_kernel_cmp(&x, &y);
}

static int cmp_time(const void *a, const void *b)
{
	return anchors_time_cmp(a, b);
}

/* The evidence for a refusal: matches per pid and device (the first 32
 * groups), with the first timestamps of each in source order. */
#define MAX_GROUPS 32
static void show_groups(const struct anchorscan *s, int *nomem, struct buf *msg)
{
	const struct anchorscan_match *first[MAX_GROUPS];
	size_t count[MAX_GROUPS], shown[MAX_GROUPS];
	const char *ts[MAX_GROUPS][3];
	size_t ngroups = 0, i, g, k;

	for (i = 0; i < s->nm; i++) {
		const struct anchorscan_match *m = &s->m[i];
		if (m->role != ANCHORSCAN_ANCHOR)
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
		say(nomem, msg, "\n  pid %s, device %s: %zu matches; first in source order at ts",
		    first[g]->pid, device_of(first[g]), count[g]);
		for (k = 0; k < shown[g]; k++)
			say(nomem, msg, " %s", ts[g][k]);
		say(nomem, msg, "%s", count[g] > 3 ? " ..." : "");
	}
}

static int refuse(const struct anchorscan *s, struct buf *msg, const char *why,
		  const char *fix)
{
	int nomem = 0;

	say(&nomem, msg, "%s", why);
	show_groups(s, &nomem, msg);
	say(&nomem, msg, "\n%s: %s", s->progname, fix);
	return done(nomem, ANCHORSCAN_REFUSED);
}

/* The match is in the --pid and on the --device the user asked for. */
static int wanted(const struct anchorscan *s, const struct anchorscan_match *m)
{
	const char *dev = device_of(m);

	return (s->opt.pid == NULL || event_raw_matches_arg(m->pid, strlen(m->pid), s->opt.pid)) &&
	       (s->opt.device == NULL || event_raw_matches_arg(dev, strlen(dev), s->opt.device));
}

/* Keep only the kernels of one pid and device, anchors and terminals apart
 * (anchors_choose_group); refuses with the matches per group. */
static int choose_group(struct anchorscan *s, struct buf *msg)
{
	struct anchors_where *w = malloc((s->nm + 1) * sizeof *w);
	int *want = malloc((s->nm + 1) * sizeof *want);
	struct anchors_result r;
	struct buf why = BUF_INIT;
	size_t i;
	int rc, nomem = 0;

	if (w == NULL || want == NULL) {
		free(w);
		free(want);
		return ANCHORSCAN_NOMEM;
	}
	for (i = 0; i < s->nm; i++) {
		const struct anchorscan_match *m = &s->m[i];
		w[i].pid = m->pid;
		w[i].device = device_of(m);
		want[i] = m->role == ANCHORSCAN_ANCHOR && wanted(s, m);
	}
	rc = anchors_choose_group(w, want, s->nm, &r);
	free(w);
	free(want);
	if (rc == ANCHORSCAN_OK) {
		s->pid = s->m[r.at].pid;
		s->device = device_of(&s->m[r.at]);
		return ANCHORSCAN_OK;
	}
	if (rc == ANCHORS_SEVERAL_PIDS)
		return refuse(s, msg, "anchor matches fall in several pids:", "choose one with --pid");
	if (rc == ANCHORS_SEVERAL_DEVICES)
		return refuse(s, msg, "anchor matches fall on several args.device values of one pid:",
			      "choose one with --device");
	say(&nomem, &why, "no X kernel event matches --anchor-regex '%s'%s%s%s%s%s",
	    s->opt.anchor_regex, s->opt.pid ? " in pid " : "", s->opt.pid ? s->opt.pid : "",
	    s->opt.device ? " on device " : "", s->opt.device ? s->opt.device : "",
	    s->nm ? "; matches elsewhere:" : "");
	rc = refuse(s, msg, why.p, "check the kernel name (tr-survey lists candidates) and "
		    "--pid/--device");
	buf_release(&why);
	return done(nomem, rc);
}

/* Pointers to the group's matches of one role, sorted by time. */
static int sorted_group(const struct anchorscan *s, enum anchorscan_role role,
			struct anchorscan_match ***out, size_t *count, struct buf *msg)
{
	struct anchorscan_match **v = malloc((s->nm + 1) * sizeof *v);
	size_t i, n = 0;
	int nomem = 0;

	*out = v;
	*count = 0;
	if (v == NULL)
		return ANCHORSCAN_NOMEM;
	for (i = 0; i < s->nm; i++) {
		struct anchorscan_match *m = &s->m[i];
		if (m->role != role || strcmp(m->pid, s->pid) != 0 ||
		    strcmp(device_of(m), s->device) != 0)
			continue;
		if (!m->ts_ok) {
			say(&nomem, msg, "event %" PRIu64 ": %s kernel has no numeric ts (%s); "
			    "the matches cannot be ordered", m->index,
			    role == ANCHORSCAN_END ? "terminal" :
			    role == ANCHORSCAN_CONFIRM ? "landmark" : "anchor",
			    m->ts ? m->ts : "missing");
			return done(nomem, ANCHORSCAN_REFUSED);
		}
		v[n++] = m;
	}
	qsort(v, n, sizeof *v, cmp_ts);
	*count = n;
	return ANCHORSCAN_OK;
}

/* The refusal of a selected kernel's dur (ANCHORS_NO_DUR and
 * ANCHORS_NEGATIVE_DUR, or their terminal kinds). */
static int refuse_duration(const struct anchorscan_match *m, const char *role, struct buf *msg)
{
	int nomem = 0;

	if (!m->dur_ok)
		say(&nomem, msg, "event %" PRIu64 ": selected %s kernel has no numeric dur (%s)",
		    m->index, role, m->dur ? m->dur : "missing");
	else
		say(&nomem, msg, "event %" PRIu64 ": selected %s kernel has a negative dur (%s)",
		    m->index, role, m->dur);
	return done(nomem, ANCHORSCAN_REFUSED);
}

static int refuse_landmark(const struct anchorscan *s, struct buf *msg, const char *where,
			   size_t count, const char *what)
{
	int nomem = 0;

	say(&nomem, msg, "--confirm-regex '%s'%s: %s: %zu %s; exactly one is needed\n",
	    s->opt.confirm_regex, s->opt.confirm_cpu ? " --confirm-cpu" : "", where, count, what);
	say(&nomem, msg, "%s: a wrong anchor with the right count (a draft pass, a kernel that "
	    "runs twice per layer) or a landmark that is not once per layer: compare both "
	    "with tr-survey", s->progname);
	return done(nomem, ANCHORSCAN_REFUSED);
}

/* A GPU landmark (anchors.h), among the kernels of the anchors' pid and
 * device. */
static int check_gpu_landmark(struct anchorscan *s, const struct anchors_kernel *ak,
			      const struct anchors_kernel *ek, struct buf *msg)
{
	size_t n = 0, i, N = (size_t)s->opt.num_layers, at0 = (size_t)s->opt.offset;
	struct anchorscan_match **found = NULL;
	struct anchors_time *marks;
	struct anchors_result r;
	struct buf where = BUF_INIT;
	int rc = sorted_group(s, ANCHORSCAN_CONFIRM, &found, &n, msg), nomem = 0;

	if (rc != ANCHORSCAN_OK) {
		free(found);
		return rc;
	}
	if ((marks = malloc((n + 1) * sizeof *marks)) == NULL) {
		free(found);
		return ANCHORSCAN_NOMEM;
	}
	for (i = 0; i < n; i++) {
		marks[i].ns = found[i]->ts_ns;
		marks[i].sub = found[i]->ts_sub;
	}
	if (anchors_gpu_landmark(ak, s->nanchors, at0, s->need, N, ek, s->end_re ? s->nends : 0,
				 marks, n, &r) != ANCHORS_OK) {
		const struct anchorscan_match *a = s->anchors[at0 + r.at];
		int64_t first = s->opt.first_layer + (int64_t)(r.at % N);
		if (r.term == (size_t)-1)
			say(&nomem, &where, "pass %zu, layers %" PRId64 " and %" PRId64 " (anchors at "
			    "ts %s and %s)", r.at / N, first, first + 1, a->ts,
			    s->anchors[at0 + r.at + 1]->ts);
		else
			say(&nomem, &where, "pass %zu, layer %" PRId64 " (anchor at ts %s, up to the "
			    "end of its terminal at ts %s, dur %s)", r.at / N, first, a->ts,
			    s->ends[r.term]->ts, s->ends[r.term]->dur);
		rc = done(nomem, refuse_landmark(s, msg, where.p, r.count, "kernels match there"));
	}
	buf_release(&where);
	free(marks);
	free(found);
	return rc;
}

static int cmp_correlation(const void *a, const void *b)
{
	const struct anchorscan_mark *x = a, *y = b;

	if (x->correlation != y->correlation)
		return x->correlation < y->correlation ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The launch of a kernel: the first cuda_runtime/cuda_driver event (in
 * source order) with its args.correlation; NULL when there is none. */
static const struct anchorscan_mark *launch_of(const struct anchorscan_marks *launches,
					       const struct anchorscan_match *m)
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
static int check_cpu_landmark(struct anchorscan *s, struct buf *msg)
{
	struct anchorscan_match **sel = s->anchors + s->opt.offset;
	size_t N = (size_t)s->opt.num_layers, need = s->need, i, k, nthreads = 0, nkeys = 0;
	const struct anchorscan_mark **launch = malloc((need + 1) * sizeof *launch);
	const char **threads = malloc((2 * need + 2) * sizeof *threads);
	struct anchors_time *keys = malloc((s->scopes.n + 1) * sizeof *keys);
	char t0[NUM_US_BUFSZ], t1[NUM_US_BUFSZ];
	int rc = ANCHORSCAN_OK, nomem = 0;

	if (launch == NULL || threads == NULL || keys == NULL) {
		rc = ANCHORSCAN_NOMEM;
		goto out;
	}
	if (s->launches.n > 0)
		qsort(s->launches.v, s->launches.n, sizeof *s->launches.v, cmp_correlation);
	for (i = 0; i < need; i++) {
		launch[i] = launch_of(&s->launches, sel[i]);
		if (launch[i] == NULL) {
			say(&nomem, msg, "--confirm-cpu: the anchor at ts %s (event %" PRIu64
			    ") has no launch (no cuda_runtime or cuda_driver event with its "
			    "args.correlation%s); CPU scopes are placed by the anchors' launches: "
			    "use a GPU landmark", sel[i]->ts, sel[i]->index,
			    sel[i]->correlation_ok ? "" : ", which it lacks");
			rc = done(nomem, ANCHORSCAN_REFUSED);
			goto out;
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
	for (i = 0; i < s->scopes.n; i++) {
		const struct anchorscan_mark *sc = &s->scopes.v[i];
		for (k = 0; k < nthreads; k++)
			if (threads[2 * k] == sc->pid && threads[2 * k + 1] == sc->tid)
				break;
		if (k < nthreads) {
			keys[nkeys].ns = sc->ts_ns;
			keys[nkeys++].sub = sc->ts_sub;
		}
	}
	qsort(keys, nkeys, sizeof *keys, cmp_time);
	for (i = 0; i + 1 < need; i++) {
		size_t layer = i % N, count;
		int64_t first = s->opt.first_layer + (int64_t)layer;
		struct anchors_time lo = { launch[i]->ts_ns, launch[i]->ts_sub };
		struct anchors_time hi = { launch[i + 1]->ts_ns, launch[i + 1]->ts_sub };
		struct buf where = BUF_INIT;
		if (layer + 1 == N)
			continue;
		tsnum_format_us3(lo.ns, t0);
		tsnum_format_us3(hi.ns, t1);
		if (anchors_time_cmp(&lo, &hi) >= 0) {
			say(&nomem, msg, "--confirm-cpu: pass %zu, layers %" PRId64 " and %" PRId64
			    " (anchors at ts %s and %s, launched at ts %s and %s): the second anchor "
			    "was not launched after the first (one launch for both, as in a CUDA "
			    "graph?); no CPU scope can lie between them: use a GPU landmark", i / N,
			    first, first + 1, sel[i]->ts, sel[i + 1]->ts, t0, t1);
			rc = done(nomem, ANCHORSCAN_REFUSED);
			goto out;
		}
		count = anchors_count_between(keys, nkeys, lo, hi);
		if (count != 1) {
			say(&nomem, &where, "pass %zu, layers %" PRId64 " and %" PRId64 " (anchors at "
			    "ts %s and %s, launched at ts %s and %s)", i / N, first, first + 1,
			    sel[i]->ts, sel[i + 1]->ts, t0, t1);
			rc = done(nomem, refuse_landmark(s, msg, where.p, count,
							 "CPU scopes start there"));
			buf_release(&where);
			goto out;
		}
	}
out:
	free(keys);
	free(threads);
	free(launch);
	return rc;
}

/* The terminal of each selected anchor (anchors_terminal). */
static int check_terminals(struct anchorscan *s, const struct anchors_kernel *ak,
			   const struct anchors_kernel *ek, struct buf *msg)
{
	struct anchors_result r;
	size_t i;
	int nomem = 0;

	for (i = 0; i < s->need; i++) {
		size_t at = (size_t)s->opt.offset + i;
		const struct anchorscan_match *a = s->anchors[at];
		const struct anchorscan_match *next = at + 1 < s->nanchors ? s->anchors[at + 1] : NULL;
		const struct anchorscan_match *term;

		switch (anchors_terminal(ek, s->nends, &ak[at], next ? &ak[at + 1] : NULL, &r)) {
		case ANCHORS_OK:
			s->terminal[i] = r.at;
			continue;
		case ANCHORS_TERMINAL_COUNT:
			say(&nomem, msg, "anchor %zu (event %" PRIu64 ", ts %s): %zu kernels match "
			    "--end-anchor-regex between it and the %s; exactly one is needed",
			    at, a->index, a->ts, r.count,
			    next ? "next matching anchor" : "end of the trace");
			return done(nomem, ANCHORSCAN_REFUSED);
		case ANCHORS_TERMINAL_PAST_NEXT:
			term = s->ends[r.at];
			say(&nomem, msg, "terminal kernel (event %" PRIu64 ", ts %s, dur %s) ends "
			    "after the next anchor starts (event %" PRIu64 ", ts %s)",
			    term->index, term->ts, term->dur, next->index, next->ts);
			return done(nomem, ANCHORSCAN_REFUSED);
		default:
			return refuse_duration(s->ends[r.at], "terminal", msg);
		}
	}
	return ANCHORSCAN_OK;
}

/* The selection (anchors_select), refused with its evidence. */
static int select_anchors(struct anchorscan *s, const struct anchors_kernel *ak, struct buf *msg)
{
	struct anchors_result r;
	size_t i;
	int nomem = 0;

	switch (anchors_select(ak, s->nanchors, (size_t)s->opt.offset, s->need, &r)) {
	case ANCHORS_OK:
		return ANCHORSCAN_OK;
	case ANCHORS_TRUNCATED:
		say(&nomem, msg, "truncated selection: %zu kernels match in pid %s, device %s; "
		    "from --anchor-offset %" PRId64 " there are %zu, but --num-layers %" PRId64
		    " x --passes %" PRId64 " needs %zu\n", s->nanchors, s->pid, s->device,
		    s->opt.offset, r.count, s->opt.num_layers, s->opt.passes, s->need);
		say(&nomem, msg, "  sorted matches at ts:");
		for (i = 0; i < s->nanchors && i < 6; i++)
			say(&nomem, msg, " [%zu] %s", i, s->anchors[i]->ts);
		say(&nomem, msg, "%s\n", s->nanchors > 6 ? " ..." : "");
		say(&nomem, msg, "%s: lower --anchor-offset, --passes or --num-layers, or profile "
		    "a longer window", s->progname);
		return done(nomem, ANCHORSCAN_REFUSED);
	case ANCHORS_NOT_INCREASING:
		say(&nomem, msg, "selected anchors %zu and %zu (events %" PRIu64 " and %" PRIu64
		    ") do not have strictly increasing timestamps (%s, %s)", r.at - 1, r.at,
		    s->anchors[r.at - 1]->index, s->anchors[r.at]->index,
		    s->anchors[r.at - 1]->ts, s->anchors[r.at]->ts);
		return done(nomem, ANCHORSCAN_REFUSED);
	default:
		return refuse_duration(s->anchors[r.at], "anchor", msg);
	}
}

int anchorscan_finish(struct anchorscan *s, struct buf *msg)
{
	struct anchors_kernel *ak = NULL, *ek = NULL;
	int rc, nomem = 0;

	if ((rc = choose_group(s, msg)) != ANCHORSCAN_OK ||
	    (rc = sorted_group(s, ANCHORSCAN_ANCHOR, &s->anchors, &s->nanchors, msg)) != ANCHORSCAN_OK)
		return rc;
	if (s->end_re != NULL &&
	    (rc = sorted_group(s, ANCHORSCAN_END, &s->ends, &s->nends, msg)) != ANCHORSCAN_OK)
		return rc;
	s->need = (size_t)(s->opt.num_layers * s->opt.passes);
	ak = kernels_of(s->anchors, s->nanchors);
	ek = kernels_of(s->ends, s->nends);
	s->terminal = malloc((s->need + 1) * sizeof *s->terminal);
	if (ak == NULL || ek == NULL || s->terminal == NULL)
		rc = ANCHORSCAN_NOMEM;
	if (rc == ANCHORSCAN_OK)
		rc = select_anchors(s, ak, msg);
	if (rc == ANCHORSCAN_OK && s->confirm_re != NULL && s->opt.confirm_cpu)
		rc = check_cpu_landmark(s, msg);
	else if (rc == ANCHORSCAN_OK && s->confirm_re != NULL)
		rc = check_gpu_landmark(s, ak, ek, msg);
	if (rc == ANCHORSCAN_OK && s->end_re != NULL)
		rc = check_terminals(s, ak, ek, msg);
	/* after the selected kernels' own checks, which say more */
	if (rc == ANCHORSCAN_OK && s->bad_dur.seen) {
		say(&nomem, msg, "event %" PRIu64 " (ts %s): kernel %s has a negative dur (%s); "
		    "Perfetto would misplace it and the trace bounds, so no guides are added "
		    "to this trace", s->bad_dur.index, s->bad_dur.ts, s->bad_dur.name,
		    s->bad_dur.dur);
		rc = done(nomem, ANCHORSCAN_REFUSED);
	}
	free(ak);
	free(ek);
	return rc;
}

int anchorscan_put_anchors(const struct anchorscan *s, struct buf *b)
{
	struct trstream_anchors a;
	const char **tids = malloc((s->pairs.n + 1) * sizeof *tids);
	size_t i;
	int rc;

	if (tids == NULL)
		return -1;
	a.anchor_regex = s->opt.anchor_regex;
	a.end_anchor_regex = s->opt.end_regex;
	a.confirm_regex = s->opt.confirm_regex;
	a.confirm_cpu = s->opt.confirm_cpu;
	a.anchor_offset = s->opt.offset;
	a.matching_anchor_count = s->nanchors;
	a.num_layers = s->opt.num_layers;
	a.first_layer = s->opt.first_layer;
	a.passes = s->opt.passes;
	a.pid = s->pid;
	a.device = strcmp(s->device, "(none)") == 0 ? NULL : s->device;
	a.trace_origin_ns = s->origin_ns;
	a.nused = 0;
	for (i = 0; i < s->pairs.n; i++)
		if (strcmp(s->pairs.pid[i], s->pid) == 0)
			tids[a.nused++] = s->pairs.tid[i];
	a.used_tids = tids;
	rc = trstream_anchors_write(b, &a);
	free(tids);
	return rc;
}

static struct trstream_kernel record_of(const struct anchorscan_match *m)
{
	struct trstream_kernel k = { m->index, m->pid, m->tid, m->device, m->ts, m->dur,
				     m->name, m->ts_ns, m->dur_ns };

	return k;
}

int anchorscan_put_anchor(const struct anchorscan *s, size_t i, struct buf *b)
{
	struct trstream_anchor a;
	size_t N = (size_t)s->opt.num_layers;

	memset(&a, 0, sizeof a);
	a.i = i;
	a.pass = i / N;
	a.layer = i % N;
	a.anchor_index = (size_t)s->opt.offset + i;
	a.anchor = record_of(s->anchors[a.anchor_index]);
	if (s->end_re != NULL) {
		a.has_terminal = 1;
		a.terminal = record_of(s->ends[s->terminal[i]]);
	}
	return trstream_anchor_write(b, &a);
}

void anchorscan_free(struct anchorscan *s)
{
	size_t i;

	for (i = 0; i < s->nm; i++) {
		free(s->m[i].ts);
		free(s->m[i].dur);
	}
	for (i = 0; i < s->pairs.n; i++) {
		free(s->pairs.pid[i]);
		free(s->pairs.tid[i]);
	}
	free(s->pairs.pid);
	free(s->pairs.tid);
	intern_free(&s->pairs.seen);
	free(s->m);
	json_free(&s->doc);
	buf_release(&s->name);
	buf_release(&s->cat);
	buf_release(&s->origin_text);
	intern_free(&s->texts);
	regex_free(s->anchor_re);
	regex_free(s->end_re);
	regex_free(s->confirm_re);
	free(s->launches.v);
	free(s->scopes.v);
	free(s->bad_dur.ts);
	free(s->bad_dur.dur);
	free(s->bad_dur.name);
	free(s->anchors);
	free(s->ends);
	free(s->terminal);
}
