/* verifyadd: see verifyadd.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact_report.h"
#include "verify/verifyadd.h"

#define TOOL_PREFIX "trace-layers "

void verifyadd_init(struct verifyadd *va, struct verifycheck *vc)
{
	memset(va, 0, sizeof *va);
	va->vc = vc;
	va->added_event_count = -1;
	va->new_metadata_count = -1;
	va->track_name = (struct buf)BUF_INIT;
	va->tail = (struct buf)BUF_INIT;
	va->meta_text = (struct buf)BUF_INIT;
	va->keys = (struct buf)BUF_INIT;
	va->want = (struct buf)BUF_INIT;
	va->x = (struct buf)BUF_INIT;
	va->y = (struct buf)BUF_INIT;
	va->alt = (struct buf)BUF_INIT;
	va->a = (struct jdoc)JDOC_INIT;
	va->b = (struct jdoc)JDOC_INIT;
}

/* Whether the report object obj says that trace-layers wrote it. */
static int ours(const struct jdoc *d, int obj)
{
	int v = json_find(d, obj, "tool_version");
	size_t n;
	const char *t;

	if (json_type(d, v) != JT_STRING)
		return 0;
	t = json_text(d, v, &n);
	return n > sizeof TOOL_PREFIX - 1 && memcmp(t, TOOL_PREFIX, sizeof TOOL_PREFIX - 1) == 0;
}

/* A copy of the string member key of obj, unescaped; NULL when there is
 * none (or memory runs out: vc's error). */
static char *string_of(struct verifyadd *va, const struct jdoc *d, int obj, const char *key)
{
	int v = json_find(d, obj, key);
	struct buf b = BUF_INIT;

	if (json_type(d, v) != JT_STRING || json_token_unescape(d, v, &b) != 0 ||
	    memchr(b.p, '\0', b.len) != NULL) {
		buf_release(&b);
		return NULL;
	}
	{
		char *c = buf_memdup(b.p, b.len);
		buf_release(&b);
		if (c == NULL)
			verifycheck_nomem(va->vc);
		return c;
	}
}

/* Add the metadata events of text[0..len) ('\n'-ended lines, as the
 * writers make them) to the expected ones. */
static int expect_lines(struct verifyadd *va, const char *text, size_t len, int guide,
			int is_ours, const char *what)
{
	struct jdoc d = JDOC_INIT;
	size_t at = 0;
	int rc = 0;

	while (at < len && rc == 0) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		struct verifyadd_meta *m;
		size_t kn[3];
		const char *k[3];
		int i;
		if (buf_array_room((void **)&va->meta, va->nmeta, &va->meta_cap, 16,
				   sizeof *va->meta) != 0 || json_parse(&d, text + at, n, NULL) != 0) {
			rc = verifycheck_nomem(va->vc);
			break;
		}
		m = &va->meta[va->nmeta++];
		memset(m, 0, sizeof *m);
		m->guide = guide;
		m->ours = is_ours;
		m->what = what;
		m->at = va->meta_text.len;
		m->len = n;
		k[0] = json_raw(&d, json_find(&d, 0, "name"), &kn[0]);
		k[1] = json_raw(&d, json_find(&d, 0, "pid"), &kn[1]);
		k[2] = json_raw(&d, json_find(&d, 0, "tid"), &kn[2]);
		m->key_at = va->keys.len;
		for (i = 0; i < 3; i++)
			if ((i > 0 && buf_addch(&va->keys, '\001') != 0) ||
			    buf_add(&va->keys, k[i], kn[i]) != 0)
				rc = -1;
		m->key_len = va->keys.len - m->key_at;
		if (rc != 0 || buf_add(&va->meta_text, text + at, n) != 0)
			rc = verifycheck_nomem(va->vc);
		at += n + (nl != NULL);
	}
	json_free(&d);
	return rc;
}

int verifyadd_load_layers(struct verifyadd *va, const struct jdoc *d, const char *path)
{
	int v, nomem = 0;
	int64_t tid;

	if (json_int64(d, json_find(d, 0, "guide_tid"), &tid) != 0)
		return verifycheck_trouble(va->vc, "%s: no integer guide_tid", path);
	va->pid = json_raw_dup(d, json_find(d, 0, "pid"), &nomem);
	if (nomem)
		return verifycheck_nomem(va->vc);
	if (va->pid == NULL)
		return verifycheck_trouble(va->vc, "%s: no pid", path);
	va->have_guides = 1;
	if ((va->layers_path = buf_memdup(path, strlen(path))) == NULL)
		return verifycheck_nomem(va->vc);
	if ((va->phase = string_of(va, d, 0, "phase")) == NULL ||
	    (va->evidence = string_of(va, d, 0, "evidence")) == NULL) {
		/* said by verifyadd_begin, in the check it fails */
		va->no_track = va->phase == NULL ? "phase" : "evidence";
		return va->vc->error ? -1 : 0;
	}
	v = json_find(d, 0, "added_event_count");
	if (v >= 0 && json_int64(d, v, &va->added_event_count) != 0)
		return verifycheck_trouble(va->vc, "%s: added_event_count is not an integer", path);
	va->guides_ours = ours(d, 0);
	va->track.pid = va->pid;
	va->track.tid = tid;
	va->track.phase = va->phase;
	va->track.evidence = va->evidence;
	/* the name comes from the phase, as tr-guides makes it; the report's
	 * track_name is then held to it too */
	if (guides_track_name(&va->track_name, va->phase) != 0 ||
	    guides_slice_tail(&va->tail, &va->track) != 0)
		return verifycheck_nomem(va->vc);
	va->track.name = va->track_name.p;
	va->bad_track_name = !json_str_eq(d, json_find(d, 0, "track_name"), va->track_name.p);
	return 0;
}

int verifyadd_load_compaction(struct verifyadd *va, const struct jdoc *d, int obj,
			      const char *path)
{
	int groups = json_find(d, obj, "groups"), n, g, k, v, is_ours = ours(d, obj);
	struct buf text = BUF_INIT;
	int64_t tids[64];
	int rc = 0;

	va->have_compact = 1;
	v = json_find(d, obj, "new_metadata_count");
	if (v >= 0 && json_int64(d, v, &va->new_metadata_count) != 0)
		return verifycheck_trouble(va->vc, "%s: new_metadata_count is not an integer", path);
	n = json_size(d, groups);
	for (k = 0, g = groups + 1; k < n && rc == 0; k++, g = json_next(d, g)) {
		struct compact_group_meta m;
		char *pid, *display, *device;
		int t, lt = json_find(d, g, "lane_tids"), j, h, same = 0, nomem = 0;
		pid = json_raw_dup(d, json_find(d, g, "pid"), &nomem);
		display = json_raw_dup(d, json_find(d, g, "display_pid"), &nomem);
		device = json_raw_dup(d, json_find(d, g, "device"), &nomem);
		m.scope = json_str_eq(d, json_find(d, g, "kind"), "scope");
		/* tr-compact names a scope process by its device when its pid
		 * has scopes on several devices (groups of their own) */
		for (j = 0, h = groups + 1; m.scope && pid != NULL && j < n; j++, h = json_next(d, h)) {
			size_t pn;
			const char *p = json_raw(d, json_find(d, h, "pid"), &pn);
			same += json_str_eq(d, json_find(d, h, "kind"), "scope") &&
				json_find(d, h, "pid") >= 0 && pn == strlen(pid) &&
				memcmp(p, pid, pn) == 0;
		}
		m.by_device = same > 1;
		m.pid = pid;
		m.display_pid = display;
		m.device = device;
		m.nlanes = json_type(d, lt) == JT_ARRAY ? (unsigned)json_size(d, lt) : 0;
		m.lane_tid = tids;
		if (nomem) {
			rc = verifycheck_nomem(va->vc);
		} else if (!is_ours && (pid == NULL || display == NULL || device == NULL)) {
			/* another tool's report without what the names are made
			 * of: its lanes' metadata is taken as it is */
			va->unrebuilt = 1;
		} else if (pid == NULL || display == NULL || device == NULL ||
			   m.nlanes > sizeof tids / sizeof tids[0]) {
			rc = verifycheck_trouble(va->vc, "%s: group %d without pid, display_pid, "
						 "device or lane_tids (at most 64)", path, k);
		} else {
			for (j = 0, t = lt + 1; j < (int)m.nlanes && rc == 0; j++, t = json_next(d, t))
				if (json_int64(d, t, &tids[j]) != 0)
					rc = verifycheck_trouble(va->vc, "%s: group %d: a lane tid "
								 "that is not an integer", path, k);
			buf_reset(&text);
			if (rc == 0 && compact_report_group_metadata(&m, &text, &va->nlane_meta) != 0)
				rc = verifycheck_nomem(va->vc);
			if (rc == 0)
				rc = expect_lines(va, text.p, text.len, 0, is_ours,
						  m.scope ? "a GPU scope process's or lane's" :
						  "a synthetic lane's");
		}
		free(pid);
		free(display);
		free(device);
	}
	buf_release(&text);
	return rc;
}

void verifyadd_begin(struct verifyadd *va, int check, int have_t0, int64_t t0)
{
	struct buf name = BUF_INIT, sort = BUF_INIT;

	va->check = check;
	va->have_t0 = have_t0;
	va->t0 = t0;
	if (!va->have_guides)
		return;
	if (va->no_track != NULL) {
		verifycheck_fail(va->vc, check, "%s: no string %s: the guide track cannot be "
				 "rebuilt", va->layers_path, va->no_track);
		va->have_guides = 0;
		return;
	}
	if (va->bad_track_name)
		verifycheck_fail(va->vc, check, "%s: track_name is not \"%s\", the name "
				 "tr-guides gives the track of phase \"%s\"", va->layers_path,
				 va->track_name.p, va->phase);
	/* the guide track's two, with ts 0 until it is known */
	if (guides_put_meta(&name, &sort, &va->track, have_t0 ? t0 : 0) != 0 ||
	    buf_addch(&name, '\n') != 0 || buf_add(&name, sort.p, sort.len) != 0 ||
	    expect_lines(va, name.p, name.len, 1, va->guides_ours, "the guide track's") != 0)
		verifycheck_nomem(va->vc);
	buf_release(&name);
	buf_release(&sort);
}

/* A number's decimal value as sign, significant digits and the power of
 * ten of the last one, for comparing texts by value. */
struct dec {
	int neg;
	char dig[64];
	size_t n;
	long exp;
};

static int dec_of(const char *s, size_t len, struct dec *d)
{
	size_t i = 0;
	long e = 0, x = 0;
	int xneg = 0, seen = 0, frac = 0;

	memset(d, 0, sizeof *d);
	if (i < len && s[i] == '-')
		d->neg = 1, i++;
	for (; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
		if (s[i] == '.') {
			if (frac)
				return -1;
			frac = 1;
			continue;
		}
		seen = 1;
		if (d->n == 0 && s[i] == '0') {
			e -= frac;
			continue;
		}
		if (d->n == sizeof d->dig)
			return -1;
		d->dig[d->n++] = s[i];
		e -= frac;
	}
	if (!seen)
		return -1;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			xneg = s[i++] == '-';
		if (i == len)
			return -1;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if ((x = x * 10 + (s[i] - '0')) > 100000)
				return -1;
	}
	if (i != len)
		return -1;
	/* e counts the fraction digits kept; drop trailing zeros */
	while (d->n > 0 && d->dig[d->n - 1] == '0')
		d->n--, e++;
	d->exp = e + (xneg ? -x : x);
	if (d->n == 0)
		d->neg = 0, d->exp = 0;
	return 0;
}

/* The first difference, for a message: PATH: output RAW, expected RAW
 * (raw texts cut at 100 bytes). */
static void why_not(struct buf *why, const struct buf *path, const struct jdoc *a, int ia,
		    const struct jdoc *b, int ib)
{
	size_t an = 8, bn = 8;
	const char *at = ia < 0 ? "(absent)" : json_raw(a, ia, &an);
	const char *bt = ib < 0 ? "(absent)" : json_raw(b, ib, &bn);

	if (why == NULL || why->len > 0)
		return;
	buf_printf(why, "%s: output %.*s, expected %.*s", path->len ? path->p : "(the event)",
		   (int)(an > 100 ? 100 : an), at, (int)(bn > 100 ? 100 : bn), bt);
}

static int value_eq(const struct jdoc *a, int ia, const struct jdoc *b, int ib, struct buf *x,
		    struct buf *y, struct buf *path, struct buf *why, const char *skip)
{
	enum jtype t = json_type(a, ia);
	size_t an, bn, keep = path->len;
	const char *at, *bt;
	int k, n, ka, r;

	at = json_raw(a, ia, &an);
	bt = json_raw(b, ib, &bn);
	if (an == bn && memcmp(at, bt, an) == 0)
		return 1;
	if (t != json_type(b, ib) || (t == JT_ARRAY && json_size(a, ia) != json_size(b, ib))) {
		why_not(why, path, a, ia, b, ib);
		return 0;
	}
	switch (t) {
	case JT_STRING:
		buf_reset(x);
		buf_reset(y);
		if (json_token_unescape(a, ia, x) == 0 && json_token_unescape(b, ib, y) == 0 &&
		    x->len == y->len && memcmp(x->p, y->p, x->len) == 0)
			return 1;
		break;
	case JT_PRIMITIVE: {
		struct dec da, db;
		if (dec_of(at, an, &da) == 0 && dec_of(bt, bn, &db) == 0 && da.neg == db.neg &&
		    da.n == db.n && da.exp == db.exp && memcmp(da.dig, db.dig, da.n) == 0)
			return 1;
		break;
	}
	case JT_ARRAY:
		n = json_size(a, ia);
		for (k = 0, ia++, ib++; k < n; k++, ia = json_next(a, ia), ib = json_next(b, ib)) {
			buf_printf(path, "[%d]", k);
			if ((r = value_eq(a, ia, b, ib, x, y, path, why, NULL)) != 1)
				return r;
			buf_setlen(path, keep);
		}
		return 1;
	case JT_OBJECT:
		/* every member of each is in the other with an equal value */
		for (r = 0; r < 2; r++) {
			const struct jdoc *p = r ? b : a, *q = r ? a : b;
			int ip = r ? ib : ia, iq = r ? ia : ib, kq, e;
			n = json_size(p, ip);
			for (k = 0, ka = ip + 1; k < n; k++, ka = json_next(p, ka + 1)) {
				buf_reset(x);
				if (json_token_unescape(p, ka, x) != 0)
					return 0;
				if (skip != NULL && strcmp(x->p, skip) == 0)
					continue;
				if (path->len > 0)
					buf_addch(path, '.');
				buf_add(path, x->p, x->len);
				if ((kq = json_find(q, iq, x->p)) < 0) {
					if (r)
						why_not(why, path, a, -1, b, ka + 1);
					else
						why_not(why, path, a, ka + 1, b, -1);
					return 0;
				}
				e = r ? 1 : value_eq(a, ka + 1, b, kq, x, y, path, why, NULL);
				if (e != 1)
					return e;
				buf_setlen(path, keep);
			}
		}
		return 1;
	default:
		break;
	}
	why_not(why, path, a, ia, b, ib);
	return 0;
}

int verifyadd_value_eq(const struct jdoc *a, int ia, const struct jdoc *b, int ib,
		       struct buf *x, struct buf *y, struct buf *why, const char *skip)
{
	struct buf path = BUF_INIT;
	int r;

	if (why != NULL)
		buf_reset(why);
	r = value_eq(a, ia, b, ib, x, y, &path, why, skip);
	buf_release(&path);
	return r;
}

/* Where the output text o first differs from the text w wanted; o is at
 * byte base of its line. */
static void say_diff(struct buf *b, size_t base, const char *o, size_t on, const char *w,
		     size_t wn)
{
	size_t i = 0, from;

	while (i < on && i < wn && o[i] == w[i])
		i++;
	from = i > 30 ? i - 30 : 0;
	buf_printf(b, "byte %zu: output ...%.*s... expected ...%.*s...", base + i,
		   (int)(on - from > 70 ? 70 : on - from), o + from,
		   (int)(wn - from > 70 ? 70 : wn - from), w + from);
}

/* Compare an added event with what is wanted: byte for byte, or (not
 * ours) as JSON values.  1 when equal; otherwise 0 with the difference in
 * va->want. */
static int same(struct verifyadd *va, const char *line, size_t len, const char *w, size_t wn,
		int by_bytes, const char *skip)
{
	int eq;

	if (len == wn && memcmp(line, w, len) == 0)
		return 1;
	if (!by_bytes && json_parse(&va->a, line, len, NULL) == 0 &&
	    json_parse(&va->b, w, wn, NULL) == 0) {
		eq = verifyadd_value_eq(&va->a, 0, &va->b, 0, &va->x, &va->y, &va->want, skip);
		if (eq == 1)
			return 1;
		if (va->want.len > 0)
			return 0;
	}
	buf_reset(&va->want);
	say_diff(&va->want, 0, line, len, w, wn);
	return 0;
}

static void key_of(struct verifyadd *va, const char *name, size_t nn, const char *pid, size_t pn,
		   const char *tid, size_t tn)
{
	buf_reset(&va->x);
	buf_add(&va->x, name, nn);
	buf_addch(&va->x, '\001');
	buf_add(&va->x, pid, pn);
	buf_addch(&va->x, '\001');
	buf_add(&va->x, tid, tn);
}

/* "thread_name (pid 0, tid 1)" of an expected event's key. */
static void key_words(struct buf *b, const char *k, size_t n)
{
	const char *p1 = memchr(k, '\001', n), *p2;

	if (p1 == NULL || (p2 = memchr(p1 + 1, '\001', n - (size_t)(p1 + 1 - k))) == NULL) {
		buf_add(b, k, n);
		return;
	}
	/* the name without its quotes */
	if (p1 - k >= 2 && k[0] == '"' && p1[-1] == '"')
		buf_printf(b, "%.*s", (int)(p1 - k - 2), k + 1);
	else
		buf_printf(b, "%.*s", (int)(p1 - k), k);
	buf_printf(b, " (pid %.*s, tid %.*s)", (int)(p2 - p1 - 1), p1 + 1,
		   (int)(n - (size_t)(p2 + 1 - k)), p2 + 1);
}

int verifyadd_meta_event(struct verifyadd *va, const char *line, size_t len, uint64_t o,
			 const char *name, size_t nn, const char *pid, size_t pn,
			 const char *tid, size_t tn)
{
	struct buf words = BUF_INIT;
	struct verifyadd_meta *m = NULL;
	const char *w;
	size_t k, wn;

	key_of(va, name, nn, pid, pn, tid, tn);
	if (va->x.len == 0 && nn + pn + tn > 0)
		return verifycheck_nomem(va->vc);
	for (k = 0; k < va->nmeta; k++)
		if (va->meta[k].key_len == va->x.len &&
		    memcmp(va->keys.p + va->meta[k].key_at, va->x.p, va->x.len) == 0) {
			m = &va->meta[k];
			break;
		}
	key_words(&words, va->x.p, va->x.len);
	if (m == NULL && va->unrebuilt) {
		/* not rebuilt: accepted, as before, unless on the guide track */
		char t[24];
		int n = snprintf(t, sizeof t, "%" PRId64, va->track.tid);
		if (!(va->have_guides && va->pid != NULL && pn == strlen(va->pid) &&
		      memcmp(pid, va->pid, pn) == 0 && tn == (size_t)n && memcmp(tid, t, tn) == 0)) {
			buf_release(&words);
			return 0;
		}
	}
	if (m == NULL) {
		verifycheck_fail(va->vc, va->check, "output event %" PRIu64 ": not in the source "
				 "and not added by the tools (the reports imply no %s)", o, words.p);
		buf_release(&words);
		return 0;
	}
	if (m->guide)
		va->guide_meta_seen++;
	else
		va->lane_meta_seen++;
	if (m->seen++ > 0) {
		verifycheck_fail(va->vc, va->check, "output event %" PRIu64 ": %s %s once more "
				 "(the tools add it once)", o, m->what, words.p);
		buf_release(&words);
		return 0;
	}
	w = va->meta_text.p + m->at;
	wn = m->len;
	if (m->guide && !va->have_t0) {
		/* its ts is the first guide's, unknown here: taken from the
		 * event itself (the placement check fails such an output) */
		int v;
		int64_t ts = 0;
		struct buf sort = BUF_INIT;
		buf_reset(&va->alt);
		if (json_parse(&va->a, line, len, NULL) == 0 &&
		    (v = json_find(&va->a, 0, "ts")) >= 0)
			(void)json_int64(&va->a, v, &ts);
		if (guides_put_meta(&va->alt, &sort, &va->track, ts) != 0) {
			buf_release(&sort);
			buf_release(&words);
			return verifycheck_nomem(va->vc);
		}
		if (!(nn == 13 && memcmp(name, "\"thread_name\"", 13) == 0)) {
			buf_reset(&va->alt);
			buf_add(&va->alt, sort.p, sort.len);
		}
		buf_release(&sort);
		w = va->alt.p;
		wn = va->alt.len;
	}
	/* another tool's metadata: its ts is its own (Perfetto reads none) */
	if (!same(va, line, len, w, wn, m->ours, "ts"))
		goto differs;
	buf_release(&words);
	return 0;
differs:
	verifycheck_fail(va->vc, va->check, "output event %" PRIu64 ": %s %s is not %s: %s", o,
			 m->what, words.p, m->ours ? (m->guide ? "as tr-guides writes it" :
						      "as tr-compact writes it")
			 : "what the report implies", va->want.p);
	buf_release(&words);
	return 0;
}

int verifyadd_guide(struct verifyadd *va, const char *line, size_t len, uint64_t o,
		    uint64_t k, const struct guides_row *g, int64_t origin_ns)
{
	static const char head[] = "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L";

	va->guides_seen++;
	if (!va->have_guides)
		return 0;
	if (g != NULL) {
		buf_reset(&va->want);
		if (guides_put_slice_tail(&va->want, &va->track, g, origin_ns, &va->tail) != 0)
			return verifycheck_nomem(va->vc);
		buf_reset(&va->alt);
		buf_add(&va->alt, va->want.p, va->want.len);
		if (!same(va, line, len, va->alt.p, va->alt.len, va->guides_ours, NULL))
			verifycheck_fail(va->vc, va->check, "output event %" PRIu64 ": guide %" PRIu64
					 " is not %s: %s", o, k, va->guides_ours ?
					 "as tr-guides writes it" : "what the report implies",
					 va->want.p);
		return 0;
	}
	/* without its placement, what the track gives: how it opens and ends */
	if (va->guides_ours &&
	    (len < sizeof head - 1 + va->tail.len ||
	     memcmp(line, head, sizeof head - 1) != 0 ||
	     memcmp(line + len - va->tail.len, va->tail.p, va->tail.len) != 0)) {
		buf_reset(&va->want);
		if (len < sizeof head - 1 || memcmp(line, head, sizeof head - 1) != 0)
			say_diff(&va->want, 0, line, len, head, sizeof head - 1);
		else
			say_diff(&va->want, len - va->tail.len, line + len - va->tail.len,
				 va->tail.len, va->tail.p, va->tail.len);
		verifycheck_fail(va->vc, va->check, "output event %" PRIu64 ": guide %" PRIu64
				 " is not as tr-guides writes it: %s", o, k, va->want.p);
	}
	return 0;
}

void verifyadd_finish(struct verifyadd *va)
{
	struct buf words = BUF_INIT;
	size_t k;

	for (k = 0; k < va->nmeta; k++)
		if (va->meta[k].seen == 0) {
			buf_reset(&words);
			key_words(&words, va->keys.p + va->meta[k].key_at, va->meta[k].key_len);
			verifycheck_fail(va->vc, va->check, "output: %s %s is missing (%s adds it)",
					 va->meta[k].what, words.p, va->meta[k].guide ? "tr-guides" :
					 "tr-compact");
		}
	buf_release(&words);
	if (va->have_guides && va->added_event_count >= 0 &&
	    (uint64_t)va->added_event_count != va->guides_seen + va->guide_meta_seen)
		verifycheck_fail(va->vc, va->check, "output: %" PRIu64 " guides and %" PRIu64
				 " metadata events on the guide track, but the layers report's "
				 "added_event_count is %" PRId64, va->guides_seen, va->guide_meta_seen,
				 va->added_event_count);
	if (va->have_compact && !va->unrebuilt && va->new_metadata_count >= 0 &&
	    ((uint64_t)va->new_metadata_count != va->nlane_meta ||
	     va->lane_meta_seen != va->nlane_meta))
		verifycheck_fail(va->vc, va->check, "output: %" PRIu64 " metadata events of the "
				 "lanes and scope processes, the report's groups imply %" PRIu64
				 " and its new_metadata_count is %" PRId64, va->lane_meta_seen,
				 va->nlane_meta, va->new_metadata_count);
}

void verifyadd_free(struct verifyadd *va)
{
	free(va->pid);
	free(va->layers_path);
	free(va->phase);
	free(va->evidence);
	free(va->meta);
	buf_release(&va->track_name);
	buf_release(&va->tail);
	buf_release(&va->meta_text);
	buf_release(&va->keys);
	buf_release(&va->want);
	buf_release(&va->x);
	buf_release(&va->y);
	buf_release(&va->alt);
	json_free(&va->a);
	json_free(&va->b);
}
