/* anchorscan: see anchorscan.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors/anchors.h"
#include "anchors/anchorscan.h"
#include "json/event.h"
#include "stream/trstream.h"
#include "json/tsnum.h"

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
	textspill_init(&s->store, opt->store_bound ? opt->store_bound : TEXTSPILL_BOUND,
		       "tr-select-anchors");
	s->scratch[0].ts_buf = s->scratch[0].dur_buf = (struct buf)BUF_INIT;
	s->scratch[1].ts_buf = s->scratch[1].dur_buf = (struct buf)BUF_INIT;
	s->key = (struct buf)BUF_INIT;
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
static const char null_text[] = "null";

/* The raw text of member key of obj, kept once in texts however often it
 * repeats: 1 + its id, or 0 when absent (or, with *nomem set, when memory
 * ran out). */
static uint32_t shared_member(struct anchorscan *s, int obj, const char *key, int *nomem)
{
	int v = json_find(&s->doc, obj, key);
	size_t n;
	const char *p;
	int64_t id;

	if (v < 0)
		return 0;
	p = json_raw(&s->doc, v, &n);
	if ((id = intern_id(&s->texts, p, n)) < 0) {
		*nomem = 1;
		return 0;
	}
	return (uint32_t)id + 1;
}

static const char *text_of(const struct anchorscan *s, uint32_t id)
{
	return id ? s->texts.keys[id - 1] : NULL;
}

/* The group of a (pid, device) pair: raw pid, device_of text (so that
 * groups compare as the refusals' evidence shows them). */
static int group_of(struct anchorscan *s, const char *pid, const char *device, uint32_t *group)
{
	uint32_t plen = (uint32_t)strlen(pid);
	int64_t id;

	buf_reset(&s->key);
	if (buf_add(&s->key, &plen, sizeof plen) != 0 || buf_addstr(&s->key, pid) != 0 ||
	    buf_addstr(&s->key, device) != 0 ||
	    (id = intern_id(&s->group_ids, s->key.p, s->key.len)) < 0)
		return -1;
	if ((size_t)id == s->ngroups) {
		if (buf_array_room((void **)&s->groups, s->ngroups, &s->groups_cap, 8,
				   sizeof *s->groups) != 0)
			return -1;
		s->groups[s->ngroups].pid = pid;
		s->groups[s->ngroups].device = device;
		s->ngroups++;
	}
	*group = (uint32_t)id;
	return 0;
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

/* The raw text of token v into the text store ("" when absent, v < 0). */
static int store_raw(struct anchorscan *s, int v, uint64_t *at)
{
	size_t n = 0;
	const char *p = v >= 0 ? json_raw(&s->doc, v, &n) : "";

	return textspill_put(&s->store, p, n, at);
}

/* The text store failed (errno): its refusal. */
static int store_trouble(const struct anchorscan *s, struct buf *msg)
{
	int nomem = 0;

	if (errno == ENOMEM)
		return ANCHORSCAN_NOMEM;
	if (!textspill_created(&s->store))
		say(&nomem, msg, "temporary file in %s: %s", s->store.dir, strerror(errno));
	else
		say(&nomem, msg, "temporary file: %s", strerror(errno));
	return done(nomem, ANCHORSCAN_TROUBLE);
}

/* The ts and dur texts of match ref of a role, read back into t. */
static int texts_of(struct anchorscan *s, enum anchorscan_role role, uint32_t ref,
		    struct anchorscan_texts *t)
{
	const struct anchorscan_info *in = &s->role[role].info[ref];
	uint64_t next;

	if (textspill_get(&s->store, in->text, &t->ts_buf, &next) != 0 ||
	    textspill_get(&s->store, next, &t->dur_buf, NULL) != 0)
		return -1;
	t->ts = in->flags & ANCHORSCAN_HAS_TS ? t->ts_buf.p : NULL;
	t->dur = in->flags & ANCHORSCAN_HAS_DUR ? t->dur_buf.p : NULL;
	return 0;
}

static void texts_release(struct anchorscan_texts *t)
{
	buf_release(&t->ts_buf);
	buf_release(&t->dur_buf);
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

/* The JSON text of the parsed kernel's texts that its anchor record would
 * carry (tr-stream(5): name, pid, tid, device, ts and dur). */
static size_t kernel_text(const struct jdoc *d, int args)
{
	static const char *const keys[] = { "name", "pid", "tid", "ts", "dur" };
	size_t k, n, sum = 0;

	for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
		if (json_raw(d, json_find(d, 0, keys[k]), &n) != NULL)
			sum += n;
	if (json_type(d, args) == JT_OBJECT && json_raw(d, json_find(d, args, "device"), &n) != NULL)
		sum += n;
	return sum;
}

/* The parsed kernel event in s->doc (line len bytes), a match of role:
 * its record, its texts into the store. */
static int keep_match(struct anchorscan *s, enum anchorscan_role role, size_t len,
		      struct buf *msg)
{
	struct jdoc *d = &s->doc;
	struct anchorscan_matches *r = &s->role[role];
	struct anchors_kernel *k;
	struct anchorscan_info *in;
	uint32_t pid, dev = 0;
	uint64_t dur_at;
	int64_t correlation = 0;
	int args, ts, dur, ok, sub = 0, nomem = 0;
	size_t cap = r->cap;

	if (r->n >= UINT32_MAX)
		return ANCHORSCAN_NOMEM;
	if (buf_array_room((void **)&r->k, r->n, &cap, 256, sizeof *r->k) != 0)
		return ANCHORSCAN_NOMEM;
	cap = r->cap;
	if (buf_array_room((void **)&r->info, r->n, &cap, 256, sizeof *r->info) != 0)
		return ANCHORSCAN_NOMEM;
	if (s->opt.confirm_cpu) {
		cap = r->cap;
		if (buf_array_room((void **)&r->correlation, r->n, &cap, 256,
				   sizeof *r->correlation) != 0)
			return ANCHORSCAN_NOMEM;
	}
	r->cap = cap;
	k = &r->k[r->n];
	in = &r->info[r->n];
	memset(k, 0, sizeof *k);
	memset(in, 0, sizeof *in);
	k->index = s->events;
	k->ref = (uint32_t)r->n;
	ts = json_find(d, 0, "ts");
	dur = json_find(d, 0, "dur");
	parse_number(d, ts, &k->ts_ns, &sub, &ok);
	k->ts_sub = (unsigned char)sub;
	if (ok)
		in->flags |= ANCHORSCAN_TS_OK;
	sub = 0;
	parse_number(d, dur, &k->dur_ns, &sub, &ok);
	k->dur_sub = (unsigned char)sub;
	k->dur_ok = (unsigned char)ok;
	if (ts >= 0)
		in->flags |= ANCHORSCAN_HAS_TS;
	if (dur >= 0)
		in->flags |= ANCHORSCAN_HAS_DUR;
	if (store_raw(s, ts, &in->text) != 0 || store_raw(s, dur, &dur_at) != 0)
		return store_trouble(s, msg);
	pid = shared_member(s, 0, "pid", &nomem);
	in->tid = shared_member(s, 0, "tid", &nomem);
	in->name = shared_member(s, 0, "name", &nomem);
	args = json_find(d, 0, "args");
	if (json_type(d, args) == JT_OBJECT) {
		dev = shared_member(s, args, "device", &nomem);
		if (dev)
			in->flags |= ANCHORSCAN_HAS_DEVICE;
		if (json_int64(d, json_find(d, args, "correlation"), &correlation) == 0)
			in->flags |= ANCHORSCAN_CORR_OK;
	}
	if (s->opt.confirm_cpu)
		r->correlation[r->n] = correlation;
	/* only an event longer than the limit can carry too much of it */
	if (len > TRSTREAM_KERNEL_MAX_TEXT && kernel_text(d, args) > TRSTREAM_KERNEL_MAX_TEXT)
		in->flags |= ANCHORSCAN_LONG;
	if (nomem || group_of(s, pid ? text_of(s, pid) : null_text,
			      dev ? text_of(s, dev) : "(none)", &in->group) != 0)
		return ANCHORSCAN_NOMEM;
	r->n++;
	return ANCHORSCAN_OK;
}

/* A kernel event: match its name and parse the whole event only for a
 * match. */
static int check_kernel(struct anchorscan *s, const char *line, size_t len, struct member name,
			struct buf *msg)
{
	struct jdoc *d = &s->doc;
	size_t slen;
	const char *subject = unescaped(&s->name, name.p + 1, name.len - 2, &slen);
	int is_anchor, is_end = 0, is_confirm = 0, rc, nomem = 0;

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
	return keep_match(s, is_anchor ? ANCHORSCAN_ANCHOR : is_end ? ANCHORSCAN_END
								: ANCHORSCAN_CONFIRM, len, msg);
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
	mark->pid = text_of(s, shared_member(s, 0, "pid", &nomem));
	mark->tid = text_of(s, shared_member(s, 0, "tid", &nomem));
	set->n++;
	return nomem ? ANCHORSCAN_NOMEM : ANCHORSCAN_OK;
}

/* A GPU-side ProfilerStep#N: its start, on its pid.  CPU-side steps are
 * not kept: the CPU runs ahead of the GPU, so their starts fall inside
 * the GPU's passes of an earlier step. */
static int see_step(struct anchorscan *s, struct member ts, struct member pid)
{
	struct anchors_time *t;
	int64_t ns, id = -1;
	int sub;

	if (ts.len == 0 || tsnum_us_to_ns(ts.p, ts.len, &ns, &sub) != NUM_OK)
		return ANCHORSCAN_OK;
	if (pid.len > 0 && (id = intern_id(&s->texts, pid.p, pid.len)) < 0)
		return ANCHORSCAN_NOMEM;
	if (s->steps.n == s->steps.cap) {
		size_t cap = s->steps.cap;
		if (buf_array_room((void **)&s->steps.t, s->steps.n, &cap, 16, sizeof *s->steps.t) != 0)
			return ANCHORSCAN_NOMEM;
		cap = s->steps.cap;
		if (buf_array_room((void **)&s->steps.pid, s->steps.n, &cap, 16,
				   sizeof *s->steps.pid) != 0)
			return ANCHORSCAN_NOMEM;
		s->steps.cap = cap;
	}
	t = &s->steps.t[s->steps.n];
	t->ns = ns;
	t->sub = sub;
	s->steps.pid[s->steps.n++] = (uint32_t)(id + 1);
	return ANCHORSCAN_OK;
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

/* 1 when the comma-separated categories cats[0..n) hold want (of wlen
 * bytes); single tells that they hold no comma (most events have one
 * category): then one comparison. */
static int has_category(const char *cats, size_t n, int single, const char *want, size_t wlen)
{
	if (single)
		return n == wlen && memcmp(cats, want, wlen) == 0;
	return event_category_has(cats, n, want);
}

/* A ts text: a new trace origin when it is below the one kept. */
static int see_ts(struct anchorscan *s, struct member ts)
{
	int64_t ns;
	int sub;

	/* most ts texts are plainly not below the origin's: no conversion */
	if (ts.len == 0 || ts.p[0] == '"' ||
	    (s->have_origin && tsnum_not_below_plain(ts.p, ts.len, &s->origin_plain)))
		return ANCHORSCAN_OK;
	if (tsnum_us_to_ns(ts.p, ts.len, &ns, &sub) != NUM_OK ||
	    (s->have_origin && ns >= s->origin_ns &&
	     !(ns == s->origin_ns && !sub && s->origin_sub)))
		return ANCHORSCAN_OK;
	s->origin_ns = ns;
	s->origin_sub = sub;
	s->have_origin = 1;
	buf_reset(&s->origin_text);
	if (buf_add(&s->origin_text, ts.p, ts.len) != 0)
		return ANCHORSCAN_NOMEM;
	tsnum_plain_of(s->origin_text.p, s->origin_text.len, &s->origin_plain);
	return ANCHORSCAN_OK;
}

/* Every event: the trace origin and the (pid, tid) pairs; kernels: matching.
 * One walk over the line's leading members; the rest is never parsed. */
int anchorscan_event(struct anchorscan *s, const char *line, size_t len, struct buf *msg)
{
	/* in the order profilers write them: a member's first byte then picks
	 * its own key first ("ph" before "pid" is found, "tid" before "ts"),
	 * with no compare against the other key of that byte */
	static const char *const keys[] = { "ph", "cat", "name", "pid", "tid", "ts", "dur" };
	enum { PH, CAT, NAME, PID, TID, TS, DUR };
	struct member m[7];
	const char *cats;
	size_t ncats;
	int is_x, single, rc, nomem = 0;

	event_members(line, len, keys, 7, m);
	rc = see_ts(s, m[TS]);
	if (m[PID].len > 0 && m[TID].len > 0 &&
	    pairs_add(s, m[PID].p, m[PID].len, m[TID].p, m[TID].len) != 0)
		rc = ANCHORSCAN_NOMEM;
	if (rc == ANCHORSCAN_OK && m[CAT].len >= 2 && m[CAT].p[0] == '"' &&
	    (cats = unescaped(&s->cat, m[CAT].p + 1, m[CAT].len - 2, &ncats)) != NULL) {
		single = memchr(cats, ',', ncats) == NULL;
		if (has_category(cats, ncats, single, "layer_guide", 11)) {
			say(&nomem, msg, "event %" PRIu64 ": the trace already has layer guides "
			    "(cat layer_guide); start from the original trace", s->events);
			rc = done(nomem, ANCHORSCAN_REFUSED);
		} else {
			is_x = m[PH].len == 3 && memcmp(m[PH].p, "\"X\"", 3) == 0;
			if (is_x && (has_category(cats, ncats, single, "kernel", 6) ||
				     has_category(cats, ncats, single, "Kernel", 6))) {
				rc = see_kernel_dur(s, m[TS], m[DUR], m[NAME]);
				if (rc == ANCHORSCAN_OK && m[NAME].len >= 2 && m[NAME].p[0] == '"')
					rc = check_kernel(s, line, len, m[NAME], msg);
			} else if (is_x && m[NAME].len > 14 &&
				   memcmp(m[NAME].p, "\"ProfilerStep#", 14) == 0 &&
				   has_category(cats, ncats, single, "gpu_user_annotation", 19)) {
				rc = see_step(s, m[TS], m[PID]);
			} else if (is_x && s->opt.confirm_cpu) {
				rc = see_cpu_event(s, line, len, cats, ncats, m[NAME], msg);
			}
		}
	}
	s->events++;
	return rc;
}

/* ---- at the tail: the selection -------------------------------------- */

static int cmp_kernel(const void *a, const void *b)
{
	return anchors_kernel_cmp(a, b);
}

static int cmp_time(const void *a, const void *b)
{
	return anchors_time_cmp(a, b);
}

/* The evidence for a refusal: matches per pid and device (the first 32
 * groups), with the first timestamps of each in source order. */
#define MAX_GROUPS 32
static int show_groups(struct anchorscan *s, int *nomem, struct buf *msg)
{
	const struct anchorscan_matches *r = &s->role[ANCHORSCAN_ANCHOR];
	uint32_t group[MAX_GROUPS];
	size_t count[MAX_GROUPS], shown[MAX_GROUPS];
	struct buf ts[MAX_GROUPS][3];
	size_t ngroups = 0, i, g, k;
	int failed = 0, saved = 0;

	for (i = 0; i < r->n; i++) {
		const struct anchorscan_info *in = &r->info[i];
		for (g = 0; g < ngroups; g++)
			if (group[g] == in->group)
				break;
		if (g == ngroups) {
			if (ngroups == MAX_GROUPS)
				continue;
			group[g] = in->group;
			count[g] = shown[g] = 0;
			ngroups++;
		}
		if (shown[g] < 3) {
			struct buf *t = &ts[g][shown[g]++];
			*t = (struct buf)BUF_INIT;
			if (!(in->flags & ANCHORSCAN_HAS_TS))
				*nomem |= buf_addstr(t, "(none)") != 0;
			else if (!failed && textspill_get(&s->store, in->text, t, NULL) != 0) {
				failed = 1;
				saved = errno;
			}
		}
		count[g]++;
	}
	for (g = 0; g < ngroups; g++) {
		say(nomem, msg, "\n  pid %s, device %s: %zu matches; first in source order at ts",
		    s->groups[group[g]].pid, s->groups[group[g]].device, count[g]);
		for (k = 0; k < shown[g]; k++) {
			say(nomem, msg, " %s", ts[g][k].p);
			buf_release(&ts[g][k]);
		}
		say(nomem, msg, "%s", count[g] > 3 ? " ..." : "");
	}
	if (!failed)
		return ANCHORSCAN_OK;
	buf_reset(msg);
	errno = saved;
	return store_trouble(s, msg);
}

static int refuse(struct anchorscan *s, struct buf *msg, const char *why, const char *fix)
{
	int nomem = 0, rc;

	say(&nomem, msg, "%s", why);
	if ((rc = show_groups(s, &nomem, msg)) != ANCHORSCAN_OK)
		return rc;
	say(&nomem, msg, "\n%s: %s", s->progname, fix);
	return done(nomem, ANCHORSCAN_REFUSED);
}

/* The group is in the --pid and on the --device the user asked for. */
static int wanted(const struct anchorscan *s, const struct anchorscan_group *g)
{
	return (s->opt.pid == NULL || event_raw_matches_arg(g->pid, strlen(g->pid), s->opt.pid)) &&
	       (s->opt.device == NULL ||
		event_raw_matches_arg(g->device, strlen(g->device), s->opt.device));
}

/* Keep only the kernels of one pid and device, anchors and terminals apart
 * (anchors_choose_group, given the groups of the anchor matches in the
 * order they first appear: the first wanted one is the first wanted
 * match's); refuses with the matches per group. */
static int choose_group(struct anchorscan *s, struct buf *msg)
{
	const struct anchorscan_matches *r = &s->role[ANCHORSCAN_ANCHOR];
	struct anchors_where *w = malloc((s->ngroups + 1) * sizeof *w);
	int *want = malloc((s->ngroups + 1) * sizeof *want);
	uint32_t *order = malloc((s->ngroups + 1) * sizeof *order);
	unsigned char *seen = calloc(s->ngroups + 1, 1);
	struct anchors_result r_;
	struct buf why = BUF_INIT;
	size_t i, n = 0;
	int rc, nomem = 0, some = 0;

	if (w == NULL || want == NULL || order == NULL || seen == NULL) {
		free(w);
		free(want);
		free(order);
		free(seen);
		return ANCHORSCAN_NOMEM;
	}
	for (i = 0; i < r->n && n < s->ngroups; i++) {
		uint32_t g = r->info[i].group;
		if (seen[g])
			continue;
		seen[g] = 1;
		order[n] = g;
		w[n].pid = s->groups[g].pid;
		w[n].device = s->groups[g].device;
		want[n] = wanted(s, &s->groups[g]);
		n++;
	}
	rc = anchors_choose_group(w, want, n, &r_);
	if (rc == ANCHORSCAN_OK)
		s->group = order[r_.at];
	free(w);
	free(want);
	free(order);
	free(seen);
	if (rc == ANCHORSCAN_OK) {
		s->pid = s->groups[s->group].pid;
		s->device = s->groups[s->group].device;
		return ANCHORSCAN_OK;
	}
	if (rc == ANCHORS_SEVERAL_PIDS)
		return refuse(s, msg, "anchor matches fall in several pids:", "choose one with --pid");
	if (rc == ANCHORS_SEVERAL_DEVICES)
		return refuse(s, msg, "anchor matches fall on several args.device values of one pid:",
			      "choose one with --device");
	for (i = 0; i < 3; i++)
		some |= s->role[i].n > 0;
	say(&nomem, &why, "no X kernel event matches --anchor-regex '%s'%s%s%s%s%s",
	    s->opt.anchor_regex, s->opt.pid ? " in pid " : "", s->opt.pid ? s->opt.pid : "",
	    s->opt.device ? " on device " : "", s->opt.device ? s->opt.device : "",
	    some ? "; matches elsewhere:" : "");
	rc = refuse(s, msg, why.p, "check the kernel name (tr-survey lists candidates) and "
		    "--pid/--device");
	buf_release(&why);
	return done(nomem, rc);
}

/* The group's matches of one role, first in role[].k, sorted by time:
 * their count. */
static int sorted_group(struct anchorscan *s, enum anchorscan_role role, size_t *count,
			struct buf *msg)
{
	struct anchorscan_matches *r = &s->role[role];
	size_t i, n = 0;
	int nomem = 0;

	*count = 0;
	for (i = 0; i < r->n; i++) {
		const struct anchorscan_info *in = &r->info[r->k[i].ref];
		if (in->group != s->group)
			continue;
		if (!(in->flags & ANCHORSCAN_TS_OK)) {
			struct anchorscan_texts *t = &s->scratch[0];
			if (texts_of(s, role, r->k[i].ref, t) != 0)
				return store_trouble(s, msg);
			say(&nomem, msg, "event %" PRIu64 ": %s kernel has no numeric ts (%s); "
			    "the matches cannot be ordered", r->k[i].index,
			    role == ANCHORSCAN_END ? "terminal" :
			    role == ANCHORSCAN_CONFIRM ? "landmark" : "anchor",
			    t->ts ? t->ts : "missing");
			return done(nomem, ANCHORSCAN_REFUSED);
		}
		r->k[n++] = r->k[i];
	}
	if (n > 1)  /* r->k is NULL when nothing matched */
		qsort(r->k, n, sizeof *r->k, cmp_kernel);
	*count = n;
	return ANCHORSCAN_OK;
}

/* The texts of a sorted anchor (ANCHORSCAN_ANCHOR) or terminal into
 * scratch slot. */
static int texts_at(struct anchorscan *s, enum anchorscan_role role, const struct anchors_kernel *k,
		    int slot, struct buf *msg, int *rc)
{
	if (texts_of(s, role, k->ref, &s->scratch[slot]) == 0)
		return 0;
	*rc = store_trouble(s, msg);
	return -1;
}

/* The refusal of a selected kernel's dur (ANCHORS_NO_DUR and
 * ANCHORS_NEGATIVE_DUR, or their terminal kinds). */
static int refuse_duration(struct anchorscan *s, enum anchorscan_role role,
			   const struct anchors_kernel *k, struct buf *msg)
{
	const char *what = role == ANCHORSCAN_END ? "terminal" : "anchor";
	const struct anchorscan_texts *t = &s->scratch[0];
	int nomem = 0, rc;

	if (texts_at(s, role, k, 0, msg, &rc) != 0)
		return rc;
	if (!k->dur_ok)
		say(&nomem, msg, "event %" PRIu64 ": selected %s kernel has no numeric dur (%s)",
		    k->index, what, t->dur ? t->dur : "missing");
	else
		say(&nomem, msg, "event %" PRIu64 ": selected %s kernel has a negative dur (%s)",
		    k->index, what, t->dur);
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
static int check_gpu_landmark(struct anchorscan *s, struct buf *msg)
{
	size_t n = 0, i, N = (size_t)s->opt.num_layers, at0 = (size_t)s->opt.offset;
	const struct anchors_kernel *found = s->role[ANCHORSCAN_CONFIRM].k;
	struct anchors_time *marks;
	struct anchors_result r;
	struct buf where = BUF_INIT;
	int rc = sorted_group(s, ANCHORSCAN_CONFIRM, &n, msg), nomem = 0;

	if (rc != ANCHORSCAN_OK)
		return rc;
	if ((marks = malloc((n + 1) * sizeof *marks)) == NULL)
		return ANCHORSCAN_NOMEM;
	for (i = 0; i < n; i++) {
		marks[i].ns = found[i].ts_ns;
		marks[i].sub = found[i].ts_sub;
	}
	if (anchors_gpu_landmark(s->anchors, s->nanchors, at0, s->need, N, s->ends,
				 s->end_re ? s->nends : 0, marks, n, &r) != ANCHORS_OK) {
		const struct anchors_kernel *a = &s->anchors[at0 + r.at];
		int64_t first = s->opt.first_layer + (int64_t)(r.at % N);
		const struct anchorscan_texts *t0 = &s->scratch[0], *t1 = &s->scratch[1];
		if (texts_at(s, ANCHORSCAN_ANCHOR, a, 0, msg, &rc) != 0)
			goto out;
		if (r.term == (size_t)-1) {
			if (texts_at(s, ANCHORSCAN_ANCHOR, a + 1, 1, msg, &rc) != 0)
				goto out;
			say(&nomem, &where, "pass %zu, layers %" PRId64 " and %" PRId64 " (anchors at "
			    "ts %s and %s)", r.at / N, first, first + 1, t0->ts, t1->ts);
		} else {
			if (texts_at(s, ANCHORSCAN_END, &s->ends[r.term], 1, msg, &rc) != 0)
				goto out;
			say(&nomem, &where, "pass %zu, layer %" PRId64 " (anchor at ts %s, up to the "
			    "end of its terminal at ts %s, dur %s)", r.at / N, first, t0->ts,
			    t1->ts, t1->dur);
		}
		rc = done(nomem, refuse_landmark(s, msg, where.p, r.count, "kernels match there"));
	}
out:
	buf_release(&where);
	free(marks);
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
static const struct anchorscan_mark *launch_of(const struct anchorscan *s,
					       const struct anchors_kernel *k)
{
	const struct anchorscan_marks *launches = &s->launches;
	const struct anchorscan_matches *r = &s->role[ANCHORSCAN_ANCHOR];
	int64_t correlation = r->correlation[k->ref];
	size_t lo = 0, hi = launches->n;

	if (!(r->info[k->ref].flags & ANCHORSCAN_CORR_OK))
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (launches->v[mid].correlation < correlation)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < launches->n && launches->v[lo].correlation == correlation ?
	       &launches->v[lo] : NULL;
}

/* A CPU landmark: CPU time runs ahead of the GPU, so the scopes are placed
 * against the anchors' launches: exactly one matching scope on a thread that
 * launched a selected anchor starts in [launch_i, launch_i+1) within a pass.
 * The last layer of a pass is not checked: its scope starts before its own
 * anchor's launch, in the interval before. */
static int check_cpu_landmark(struct anchorscan *s, struct buf *msg)
{
	const struct anchors_kernel *sel = s->anchors + s->opt.offset;
	const struct anchorscan_info *info = s->role[ANCHORSCAN_ANCHOR].info;
	size_t N = (size_t)s->opt.num_layers, need = s->need, i, k, nthreads = 0, nkeys = 0;
	const struct anchorscan_mark **launch = malloc((need + 1) * sizeof *launch);
	const char **threads = malloc((2 * need + 2) * sizeof *threads);
	struct anchors_time *keys = malloc((s->scopes.n + 1) * sizeof *keys);
	const struct anchorscan_texts *t0 = &s->scratch[0], *t1 = &s->scratch[1];
	char u0[NUM_US_BUFSZ], u1[NUM_US_BUFSZ];
	int rc = ANCHORSCAN_OK, nomem = 0;

	if (launch == NULL || threads == NULL || keys == NULL) {
		rc = ANCHORSCAN_NOMEM;
		goto out;
	}
	if (s->launches.n > 0)
		qsort(s->launches.v, s->launches.n, sizeof *s->launches.v, cmp_correlation);
	for (i = 0; i < need; i++) {
		launch[i] = launch_of(s, &sel[i]);
		if (launch[i] == NULL) {
			if (texts_at(s, ANCHORSCAN_ANCHOR, &sel[i], 0, msg, &rc) != 0)
				goto out;
			say(&nomem, msg, "--confirm-cpu: the anchor at ts %s (event %" PRIu64
			    ") has no launch (no cuda_runtime or cuda_driver event with its "
			    "args.correlation%s); CPU scopes are placed by the anchors' launches: "
			    "use a GPU landmark", t0->ts, sel[i].index,
			    info[sel[i].ref].flags & ANCHORSCAN_CORR_OK ? "" : ", which it lacks");
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
		int ordered;
		if (layer + 1 == N)
			continue;
		ordered = anchors_time_cmp(&lo, &hi) < 0;
		count = ordered ? anchors_count_between(keys, nkeys, lo, hi) : 0;
		if (ordered && count == 1)
			continue;
		tsnum_format_us3(lo.ns, u0);
		tsnum_format_us3(hi.ns, u1);
		if (texts_at(s, ANCHORSCAN_ANCHOR, &sel[i], 0, msg, &rc) != 0 ||
		    texts_at(s, ANCHORSCAN_ANCHOR, &sel[i + 1], 1, msg, &rc) != 0)
			goto out;
		if (!ordered) {
			say(&nomem, msg, "--confirm-cpu: pass %zu, layers %" PRId64 " and %" PRId64
			    " (anchors at ts %s and %s, launched at ts %s and %s): the second anchor "
			    "was not launched after the first (one launch for both, as in a CUDA "
			    "graph?); no CPU scope can lie between them: use a GPU landmark", i / N,
			    first, first + 1, t0->ts, t1->ts, u0, u1);
			rc = done(nomem, ANCHORSCAN_REFUSED);
		} else {
			struct buf where = BUF_INIT;
			say(&nomem, &where, "pass %zu, layers %" PRId64 " and %" PRId64 " (anchors at "
			    "ts %s and %s, launched at ts %s and %s)", i / N, first, first + 1,
			    t0->ts, t1->ts, u0, u1);
			rc = done(nomem, refuse_landmark(s, msg, where.p, count,
							 "CPU scopes start there"));
			buf_release(&where);
		}
		goto out;
	}
out:
	free(keys);
	free(threads);
	free(launch);
	return rc;
}

/* The terminal of each selected anchor (anchors_terminal). */
static int check_terminals(struct anchorscan *s, struct buf *msg)
{
	const struct anchorscan_texts *t0 = &s->scratch[0], *t1 = &s->scratch[1];
	struct anchors_result r;
	size_t i;
	int nomem = 0, rc = ANCHORSCAN_OK;

	for (i = 0; i < s->need; i++) {
		size_t at = (size_t)s->opt.offset + i;
		const struct anchors_kernel *a = &s->anchors[at];
		const struct anchors_kernel *next = at + 1 < s->nanchors ? &s->anchors[at + 1] : NULL;
		const struct anchors_kernel *term;

		switch (anchors_terminal(s->ends, s->nends, a, next, &r)) {
		case ANCHORS_OK:
			s->terminal[i] = (uint32_t)r.at;
			continue;
		case ANCHORS_TERMINAL_COUNT:
			if (texts_at(s, ANCHORSCAN_ANCHOR, a, 0, msg, &rc) != 0)
				return rc;
			say(&nomem, msg, "anchor %zu (event %" PRIu64 ", ts %s): %zu kernels match "
			    "--end-anchor-regex between it and the %s; exactly one is needed",
			    at, a->index, t0->ts, r.count,
			    next ? "next matching anchor" : "end of the trace");
			return done(nomem, ANCHORSCAN_REFUSED);
		case ANCHORS_TERMINAL_PAST_NEXT:
			term = &s->ends[r.at];
			if (texts_at(s, ANCHORSCAN_END, term, 0, msg, &rc) != 0 ||
			    texts_at(s, ANCHORSCAN_ANCHOR, next, 1, msg, &rc) != 0)
				return rc;
			say(&nomem, msg, "terminal kernel (event %" PRIu64 ", ts %s, dur %s) ends "
			    "after the next anchor starts (event %" PRIu64 ", ts %s)",
			    term->index, t0->ts, t0->dur, next->index, t1->ts);
			return done(nomem, ANCHORSCAN_REFUSED);
		default:
			return refuse_duration(s, ANCHORSCAN_END, &s->ends[r.at], msg);
		}
	}
	return ANCHORSCAN_OK;
}

/* The selection (anchors_select), refused with its evidence. */
static int select_anchors(struct anchorscan *s, struct buf *msg)
{
	const struct anchorscan_texts *t0 = &s->scratch[0], *t1 = &s->scratch[1];
	struct anchors_result r;
	size_t i;
	int nomem = 0, rc = ANCHORSCAN_OK;

	switch (anchors_select(s->anchors, s->nanchors, (size_t)s->opt.offset, s->need, &r)) {
	case ANCHORS_OK:
		return ANCHORSCAN_OK;
	case ANCHORS_TRUNCATED:
		say(&nomem, msg, "truncated selection: %zu kernels match in pid %s, device %s; "
		    "from --anchor-offset %" PRId64 " there are %zu, but --num-layers %" PRId64
		    " x --passes %" PRId64 " needs %zu\n", s->nanchors, s->pid, s->device,
		    s->opt.offset, r.count, s->opt.num_layers, s->opt.passes, s->need);
		say(&nomem, msg, "  sorted matches at ts:");
		for (i = 0; i < s->nanchors && i < 6; i++) {
			if (texts_at(s, ANCHORSCAN_ANCHOR, &s->anchors[i], 0, msg, &rc) != 0)
				return rc;
			say(&nomem, msg, " [%zu] %s", i, t0->ts);
		}
		say(&nomem, msg, "%s\n", s->nanchors > 6 ? " ..." : "");
		say(&nomem, msg, "%s: lower --anchor-offset, --passes or --num-layers, or profile "
		    "a longer window", s->progname);
		return done(nomem, ANCHORSCAN_REFUSED);
	case ANCHORS_NOT_INCREASING:
		if (texts_at(s, ANCHORSCAN_ANCHOR, &s->anchors[r.at - 1], 0, msg, &rc) != 0 ||
		    texts_at(s, ANCHORSCAN_ANCHOR, &s->anchors[r.at], 1, msg, &rc) != 0)
			return rc;
		say(&nomem, msg, "selected anchors %zu and %zu (events %" PRIu64 " and %" PRIu64
		    ") do not have strictly increasing timestamps (%s, %s)", r.at - 1, r.at,
		    s->anchors[r.at - 1].index, s->anchors[r.at].index, t0->ts, t1->ts);
		return done(nomem, ANCHORSCAN_REFUSED);
	default:
		return refuse_duration(s, ANCHORSCAN_ANCHOR, &s->anchors[r.at], msg);
	}
}

/* The ways out of a selection that is not whole passes. */
static void shape_ways_out(const struct anchorscan *s, int *nomem, struct buf *msg)
{
	say(nomem, msg, "%s: the anchor may run more than once per layer, or the passes may not "
	    "have %" PRId64 " layers: see the count per pass with tr-survey --num-layers %" PRId64
	    ", then choose --num-layers, --passes and --anchor-offset that select whole passes, "
	    "or add --confirm-regex with a kernel that runs once per layer", s->progname,
	    s->opt.num_layers, s->opt.num_layers);
}

/* "the longest gap inside pass 3: 1.234 us" and the like. */
static void rhythm_text(int *nomem, struct buf *b, int64_t rhythm, const char *what, size_t pass,
			size_t count)
{
	char u[NUM_US_BUFSZ];

	if (rhythm < 0) {
		say(nomem, b, "%s: no gap", what);
		return;
	}
	tsnum_format_us3(rhythm, u);
	if (count == (size_t)-1)
		say(nomem, b, "%s %zu: %s us", what, pass, u);
	else
		say(nomem, b, "%s (%zu gap%s): %s us", what, count, count == 1 ? "" : "s", u);
}

/* The shape of whole passes (anchors_pass_shape, anchors_steps), refused
 * with the numbers. */
static int check_shape(struct anchorscan *s, struct buf *msg)
{
	size_t N = (size_t)s->opt.num_layers, P = (size_t)s->opt.passes, at0 = (size_t)s->opt.offset;
	size_t end = at0 + N * P, i, k, nsteps = 0;
	const struct anchorscan_texts *t0 = &s->scratch[0], *t1 = &s->scratch[1];
	struct anchors_shape sh;
	struct anchors_result r;
	struct anchors_time *steps;
	char u[NUM_US_BUFSZ];
	int nomem = 0, rc;
	/* room for the gaps of one pass (N <= the matches: the selection holds) */
	int64_t *scratch = malloc(N * sizeof *scratch);

	if (scratch == NULL)
		return ANCHORSCAN_NOMEM;
	rc = anchors_pass_shape(s->anchors, s->nanchors, at0, N, P, scratch, &sh, &r);
	free(scratch);
	if (rc != ANCHORS_OK) {
		const struct anchors_kernel *l = &s->anchors[sh.left], *x = &s->anchors[sh.right];
		size_t before = at0 - 1 >= N - 1 ? N - 1 : at0 - 1;
		size_t after = s->nanchors - end - 1 < N - 1 ? s->nanchors - end - 1 : N - 1;
		if (texts_at(s, ANCHORSCAN_ANCHOR, l, 0, msg, &rc) != 0 ||
		    texts_at(s, ANCHORSCAN_ANCHOR, x, 1, msg, &rc) != 0)
			return rc;
		tsnum_format_us3(sh.gap, u);
		if (sh.where == ANCHORS_BETWEEN)
			say(&nomem, msg, "the selection is not whole passes: between passes %zu and %zu "
			    "(anchors at ts %s and %s, events %" PRIu64 " and %" PRIu64 ") the gap is "
			    "%s us, ", sh.pass, sh.pass + 1, t0->ts, t1->ts, l->index, x->index, u);
		else if (sh.where == ANCHORS_BEFORE)
			say(&nomem, msg, "the selection is not whole passes: from the match before it "
			    "(ts %s, event %" PRIu64 ") to its first anchor (ts %s, event %" PRIu64
			    ") the gap is %s us, ", t0->ts, l->index, t1->ts, x->index, u);
		else
			say(&nomem, msg, "the selection is not whole passes: from its last anchor (ts %s, "
			    "event %" PRIu64 ") to the next match (ts %s, event %" PRIu64 ") the gap is "
			    "%s us, ", t0->ts, l->index, t1->ts, x->index, u);
		say(&nomem, msg, "no longer than 5/4 of the anchors' rhythm beside it (");
		if (sh.where == ANCHORS_BEFORE)
			rhythm_text(&nomem, msg, sh.rhythm[0], "the matches before", 0, before);
		else
			rhythm_text(&nomem, msg, sh.rhythm[0], "inside pass", sh.pass, (size_t)-1);
		say(&nomem, msg, "; ");
		if (sh.where == ANCHORS_AFTER)
			rhythm_text(&nomem, msg, sh.rhythm[1], "the matches after", 0, after);
		else
			rhythm_text(&nomem, msg, sh.rhythm[1], "inside pass",
				    sh.where == ANCHORS_BETWEEN ? sh.pass + 1 : 0, (size_t)-1);
		say(&nomem, msg, "): a boundary at the passes' own rhythm cuts a pass\n");
		/* the count against the layers, as tr-survey writes it */
		say(&nomem, msg, "  %zu kernels match in pid %s, device %s (%zu x %zu", s->nanchors,
		    s->pid, s->device, s->nanchors / N, N);
		if (s->nanchors % N)
			say(&nomem, msg, " + %zu", s->nanchors % N);
		say(&nomem, msg, "); --num-layers %" PRId64 " x --passes %" PRId64 " from "
		    "--anchor-offset %" PRId64 " uses %zu of them\n", s->opt.num_layers,
		    s->opt.passes, s->opt.offset, N * P);
		shape_ways_out(s, &nomem, msg);
		return done(nomem, ANCHORSCAN_REFUSED);
	}
	if (s->steps.n == 0)
		return ANCHORSCAN_OK;
	if ((steps = malloc(s->steps.n * sizeof *steps)) == NULL)
		return ANCHORSCAN_NOMEM;
	for (i = 0; i < s->steps.n; i++) {
		const char *pid = text_of(s, s->steps.pid[i]);
		if (pid != NULL && strcmp(pid, s->pid) == 0)
			steps[nsteps++] = s->steps.t[i];
	}
	qsort(steps, nsteps, sizeof *steps, cmp_time);
	if (anchors_steps(s->anchors, at0, N, P, steps, nsteps, &r) != ANCHORS_OK) {
		const struct anchors_kernel *first = &s->anchors[at0 + r.count * N];
		size_t j = 0, count;
		if (texts_at(s, ANCHORSCAN_ANCHOR, first, 0, msg, &rc) != 0 ||
		    texts_at(s, ANCHORSCAN_ANCHOR, first + N - 1, 1, msg, &rc) != 0)
			goto out;
		tsnum_format_us3(steps[r.at].ns, u);
		say(&nomem, msg, "the selection is not whole passes: pass %zu (anchors at ts %s to %s) "
		    "straddles a step: a ProfilerStep (GPU annotation) starts at ts %s inside it\n",
		    r.count, t0->ts, t1->ts, u);
		/* matches per step: those before the first step, then per step */
		say(&nomem, msg, "  %zu kernels match in pid %s, device %s; per step (%zu steps):",
		    s->nanchors, s->pid, s->device, nsteps);
		for (k = 0; k <= nsteps && k < 17; k++) {
			count = 0;
			while (j < s->nanchors &&
			       (k == nsteps || s->anchors[j].ts_ns < steps[k].ns ||
				(s->anchors[j].ts_ns == steps[k].ns && s->anchors[j].ts_sub < steps[k].sub))) {
				count++;
				j++;
			}
			if (k == 0)
				say(&nomem, msg, " %zu before the first,", count);
			else
				say(&nomem, msg, "%s %zu", k > 1 ? "," : "", count);
		}
		say(&nomem, msg, "%s\n", nsteps > 16 ? ", ..." : "");
		shape_ways_out(s, &nomem, msg);
		rc = done(nomem, ANCHORSCAN_REFUSED);
	}
out:
	free(steps);
	return rc;
}

/* A selected kernel whose texts its records could not carry: refused
 * here, before a stage writes a guide or a report that tr-verify would
 * refuse to read. */
static int refuse_long(struct anchorscan *s, enum anchorscan_role role,
		       const struct anchors_kernel *k, struct buf *msg)
{
	const struct anchorscan_info *in = &s->role[role].info[k->ref];
	const struct anchorscan_group *g = &s->groups[in->group];
	const struct anchorscan_texts *t = &s->scratch[0];
	size_t n;
	int nomem = 0, rc;

	if (texts_at(s, role, k, 0, msg, &rc) != 0)
		return rc;
	n = strlen(text_of(s, in->name)) + strlen(g->pid) + strlen(text_of(s, in->tid)) +
	    (in->flags & ANCHORSCAN_HAS_DEVICE ? strlen(g->device) : 0) +
	    (t->ts ? strlen(t->ts) : 0) + (t->dur ? strlen(t->dur) : 0);
	say(&nomem, msg, "event %" PRIu64 ": selected %s kernel's name, pid, tid, device, ts "
	    "and dur take %zu bytes of JSON text, more than the " TRSTREAM_KERNEL_MAX_TEXT_TEXT
	    " a guide and its report row can carry", k->index,
	    role == ANCHORSCAN_END ? "terminal" : "anchor", n);
	return done(nomem, ANCHORSCAN_REFUSED);
}

static int check_long(struct anchorscan *s, struct buf *msg)
{
	size_t i, at0 = (size_t)s->opt.offset;
	const struct anchors_kernel *k;

	for (i = 0; i < s->need; i++) {
		k = &s->anchors[at0 + i];
		if (s->role[ANCHORSCAN_ANCHOR].info[k->ref].flags & ANCHORSCAN_LONG)
			return refuse_long(s, ANCHORSCAN_ANCHOR, k, msg);
		if (s->end_re == NULL)
			continue;
		k = &s->ends[s->terminal[i]];
		if (s->role[ANCHORSCAN_END].info[k->ref].flags & ANCHORSCAN_LONG)
			return refuse_long(s, ANCHORSCAN_END, k, msg);
	}
	return ANCHORSCAN_OK;
}

int anchorscan_finish(struct anchorscan *s, struct buf *msg)
{
	int rc, nomem = 0;

	if ((rc = choose_group(s, msg)) != ANCHORSCAN_OK ||
	    (rc = sorted_group(s, ANCHORSCAN_ANCHOR, &s->nanchors, msg)) != ANCHORSCAN_OK)
		return rc;
	s->anchors = s->role[ANCHORSCAN_ANCHOR].k;
	if (s->end_re != NULL &&
	    (rc = sorted_group(s, ANCHORSCAN_END, &s->nends, msg)) != ANCHORSCAN_OK)
		return rc;
	s->ends = s->role[ANCHORSCAN_END].k;
	s->need = (size_t)(s->opt.num_layers * s->opt.passes);
	if (s->end_re != NULL && (s->terminal = malloc((s->need + 1) * sizeof *s->terminal)) == NULL)
		return ANCHORSCAN_NOMEM;
	rc = select_anchors(s, msg);
	if (rc == ANCHORSCAN_OK && s->confirm_re != NULL && s->opt.confirm_cpu)
		rc = check_cpu_landmark(s, msg);
	else if (rc == ANCHORSCAN_OK && s->confirm_re != NULL)
		rc = check_gpu_landmark(s, msg);
	if (rc == ANCHORSCAN_OK && s->end_re != NULL)
		rc = check_terminals(s, msg);
	if (rc == ANCHORSCAN_OK)
		rc = check_long(s, msg);
	if (rc == ANCHORSCAN_OK)
		rc = check_shape(s, msg);
	/* after the selected kernels' own checks, which say more */
	if (rc == ANCHORSCAN_OK && s->bad_dur.seen) {
		say(&nomem, msg, "event %" PRIu64 " (ts %s): kernel %s has a negative dur (%s); "
		    "Perfetto would misplace it and the trace bounds, so no guides are added "
		    "to this trace", s->bad_dur.index, s->bad_dur.ts, s->bad_dur.name,
		    s->bad_dur.dur);
		rc = done(nomem, ANCHORSCAN_REFUSED);
	}
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

/* A selected kernel as its record carries it; its texts read into slot. */
static int record_of(struct anchorscan *s, enum anchorscan_role role,
		     const struct anchors_kernel *k, int slot, struct trstream_kernel *out,
		     struct buf *msg)
{
	const struct anchorscan_info *in = &s->role[role].info[k->ref];
	const struct anchorscan_group *g = &s->groups[in->group];
	const struct anchorscan_texts *t = &s->scratch[slot];
	int rc;

	if (texts_at(s, role, k, slot, msg, &rc) != 0)
		return rc;
	/* the trstream writer only reads them */
	out->source_index = k->index;
	out->pid = (char *)(uintptr_t)g->pid;
	out->tid = (char *)(uintptr_t)text_of(s, in->tid);
	out->device = in->flags & ANCHORSCAN_HAS_DEVICE ? (char *)(uintptr_t)g->device : NULL;
	out->ts = (char *)(uintptr_t)t->ts;
	out->dur = (char *)(uintptr_t)t->dur;
	out->name = (char *)(uintptr_t)text_of(s, in->name);
	out->ts_ns = k->ts_ns;
	out->dur_ns = k->dur_ns;
	return ANCHORSCAN_OK;
}

int anchorscan_put_anchor(struct anchorscan *s, size_t i, struct buf *b, struct buf *msg)
{
	struct trstream_anchor a;
	size_t N = (size_t)s->opt.num_layers;
	int rc;

	memset(&a, 0, sizeof a);
	a.i = i;
	a.pass = i / N;
	a.layer = i % N;
	a.anchor_index = (size_t)s->opt.offset + i;
	if ((rc = record_of(s, ANCHORSCAN_ANCHOR, &s->anchors[a.anchor_index], 0, &a.anchor,
			    msg)) != ANCHORSCAN_OK)
		return rc;
	if (s->end_re != NULL) {
		a.has_terminal = 1;
		if ((rc = record_of(s, ANCHORSCAN_END, &s->ends[s->terminal[i]], 1, &a.terminal,
				    msg)) != ANCHORSCAN_OK)
			return rc;
	}
	return trstream_anchor_write(b, &a) == 0 ? ANCHORSCAN_OK : ANCHORSCAN_NOMEM;
}

void anchorscan_free(struct anchorscan *s)
{
	size_t i;

	for (i = 0; i < 3; i++) {
		free(s->role[i].k);
		free(s->role[i].info);
		free(s->role[i].correlation);
	}
	for (i = 0; i < s->pairs.n; i++) {
		free(s->pairs.pid[i]);
		free(s->pairs.tid[i]);
	}
	free(s->pairs.pid);
	free(s->pairs.tid);
	intern_free(&s->pairs.seen);
	textspill_free(&s->store);
	intern_free(&s->group_ids);
	free(s->groups);
	json_free(&s->doc);
	buf_release(&s->name);
	buf_release(&s->cat);
	buf_release(&s->key);
	buf_release(&s->origin_text);
	intern_free(&s->texts);
	regex_free(s->anchor_re);
	regex_free(s->end_re);
	regex_free(s->confirm_re);
	free(s->launches.v);
	free(s->scopes.v);
	free(s->steps.t);
	free(s->steps.pid);
	free(s->bad_dur.ts);
	free(s->bad_dur.dur);
	free(s->bad_dur.name);
	free(s->terminal);
	texts_release(&s->scratch[0]);
	texts_release(&s->scratch[1]);
}
