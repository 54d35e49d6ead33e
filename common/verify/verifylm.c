/* verifylm: see verifylm.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json/event.h"
#include "stream/trstream.h"
#include "json/tsnum.h"
#include "verify/verify.h"
#include "verify/verifylm.h"

static int lm_add(struct verifylm *lm, struct verifylm_marks *set, int64_t key, int64_t ns,
		  const struct jdoc *d)
{
	struct verifylm_mark *m;

	if (buf_array_room((void **)&set->v, set->n, &set->cap, 256, sizeof *set->v) != 0)
		return verifycheck_nomem(lm->vc);
	m = &set->v[set->n++];
	m->key = key;
	m->ns = ns;
	m->row = -1;
	m->pid = m->tid = NULL;
	if (d != NULL) {
		size_t n;
		const char *raw;
		int pid = json_find(d, 0, "pid"), tid = json_find(d, 0, "tid");
		if (pid >= 0 && (raw = json_raw(d, pid, &n), (m->pid = buf_memdup(raw, n)) == NULL))
			return verifycheck_nomem(lm->vc);
		if (tid >= 0 && (raw = json_raw(d, tid, &n), (m->tid = buf_memdup(raw, n)) == NULL))
			return verifycheck_nomem(lm->vc);
	}
	return 0;
}

/* The raw text of token tok, or NULL when the member is absent (tok < 0). */
static const char *raw_of(const struct jdoc *d, int tok, size_t *n)
{
	if (tok < 0) {
		*n = 0;
		return NULL;
	}
	return json_raw(d, tok, n);
}

static int lm_cmp_ns(const void *a, const void *b)
{
	const struct verifylm_mark *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static int lm_cmp_key(const void *a, const void *b)
{
	const struct verifylm_mark *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The index of the first mark (sorted by key or ns) not below v. */
static size_t lm_lower(const struct verifylm_marks *set, int64_t v, int by_key)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((by_key ? set->v[mid].key : set->v[mid].ns) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int lm_same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

void verifylm_init(struct verifylm *lm, struct verifycheck *vc)
{
	memset(lm, 0, sizeof *lm);
	lm->vc = vc;
	lm->text = (struct buf)BUF_INIT;
	lm->name = (struct buf)BUF_INIT;
	lm->d = (struct jdoc)JDOC_INIT;
	lm->ev = (struct jdoc)JDOC_INIT;
	lm->rows = -1;
}

/* Whether a report has a confirm_regex string, read from its members
 * besides the layers rows (a report without one is not read again whole):
 * 1, 0, or -1. */
static int claims_landmark(struct verifylm *lm, const char *path)
{
	struct trstream_report r;
	struct trstream_error e;
	struct buf head = BUF_INIT;
	struct jdoc d = JDOC_INIT;
	uint64_t rows_at, nrows;
	int claims = -1;

	if (trstream_report_open(&r, path, &e) != 0)
		return verifycheck_report_error(lm->vc, path, &e);
	if (trstream_report_head(&r, "\"layers\"", &head, &rows_at, &nrows, &e) != 0)
		verifycheck_report_error(lm->vc, path, &e);
	else
		claims = json_parse(&d, head.p, head.len, NULL) == 0 &&
			 json_type(&d, json_find(&d, 0, "confirm_regex")) == JT_STRING;
	close(r.fd);
	json_free(&d);
	buf_release(&head);
	return claims;
}

/* The whole text of a report that claims a landmark into lm->text. */
static int read_whole(struct verifylm *lm, const char *path)
{
	struct trstream_report r;
	struct trstream_error e;
	int rc;

	if (trstream_report_open(&r, path, &e) != 0)
		return verifycheck_report_error(lm->vc, path, &e);
	buf_reset(&lm->text);
	rc = trstream_report_whole(&r, VERIFYLM_REPORT_MAX, 1, &lm->text, &e);
	close(r.fd);
	if (rc == 0)
		return 0;
	if (e.kind == TRSTREAM_ERR_TOO_BIG && e.size > 0)
		return verifycheck_trouble(lm->vc, "%s: %" PRIu64 " bytes; the landmark check reads "
					   "a report of at most " VERIFYLM_REPORT_MAX_TEXT, path, e.size);
	if (e.kind == TRSTREAM_ERR_TOO_BIG)
		return verifycheck_trouble(lm->vc, "%s: grew past " VERIFYLM_REPORT_MAX_TEXT
					   " while read", path);
	if (e.kind == TRSTREAM_ERR_SYSTEM)
		return verifycheck_trouble_errno(lm->vc, e.errnum, "%s: read", path);
	return verifycheck_report_error(lm->vc, path, &e);
}

/* Report path, read whole into lm->d: does it claim the landmark? 1, 0, or
 * -1. */
static int load_one(struct verifylm *lm, const char *path)
{
	struct jdoc *d = &lm->d;
	const char *v;
	size_t vn;
	int rx, claims;
	char err[200];

	if ((claims = claims_landmark(lm, path)) <= 0)
		return claims;
	if (read_whole(lm, path) != 0)
		return -1;
	if (json_parse(d, lm->text.p, lm->text.len, NULL) != 0 || json_find(d, 0, "guide_tid") < 0)
		return 0;
	rx = json_find(d, 0, "confirm_regex");
	if (json_type(d, rx) != JT_STRING)
		return 0;
	buf_reset(&lm->name);
	if (json_token_unescape(d, rx, &lm->name) != 0 || memchr(lm->name.p, '\0', lm->name.len) != NULL ||
	    (lm->re = regex_compile(lm->name.p, err, sizeof err)) == NULL)
		return verifycheck_trouble(lm->vc, "%s: confirm_regex: not a usable pattern", path);
	v = raw_of(d, json_find(d, 0, "confirm_cpu"), &vn);
	lm->cpu = v != NULL && vn == 4 && memcmp(v, "true", 4) == 0;
	lm->rows = json_find(d, 0, "layers");
	lm->pid = raw_of(d, json_find(d, 0, "pid"), &lm->pn);
	lm->dev = raw_of(d, json_find(d, 0, "device"), &lm->dn);
	lm->path = path;
	lm->rxraw = json_raw(d, rx, &lm->rxn);
	if (json_type(d, lm->rows) != JT_ARRAY || lm->pid == NULL || lm->dev == NULL)
		return verifycheck_trouble(lm->vc, "%s: a landmark without layers, pid or device",
					   path);
	return 1;
}

int verifylm_load(struct verifylm *lm, const char *const *reports, int nreports)
{
	struct jdoc *d = &lm->d;
	int r, k, rc = 0;

	for (r = 0; r < nreports && rc == 0; r++)
		rc = load_one(lm, reports[r]);
	if (rc <= 0)
		return rc;
	verifycheck_ran(lm->vc, VERIFYCHECK_LANDMARK);
	lm->nrows = json_size(d, lm->rows);
	/* the guides' anchors by start time, to find their correlations */
	for (k = 0, r = lm->rows + 1; k < lm->nrows; k++, r = json_next(d, r)) {
		size_t tn;
		const char *t = raw_of(d, json_find(d, r, "start_us"), &tn);
		int sub;
		int64_t ns = 0;
		if (t == NULL || tsnum_us_to_ns(t, tn, &ns, &sub) != NUM_OK)
			return verifycheck_trouble(lm->vc, "%s: a layers row without a numeric "
						   "start_us", lm->path);
		/* key: the correlation, when found */
		if (lm_add(lm, &lm->anchors, -1, ns, NULL) != 0)
			return -1;
		lm->anchors.v[lm->anchors.n - 1].row = r;
	}
	return 1;
}

/* One source event of category cat[0..cn) (unquoted), an X event. */
static int see_event(struct verifylm *lm, const char *line, size_t len, const char *cat,
		     size_t cn)
{
	struct jdoc *ev = &lm->ev;
	const char *v;
	size_t vn;
	int64_t ns, corr = 0;
	int sub, args, is_kernel, launch, rc, cpu = lm->cpu;

	is_kernel = event_category_has(cat, cn, "kernel") || event_category_has(cat, cn, "Kernel");
	launch = event_category_has(cat, cn, "cuda_runtime") || event_category_has(cat, cn, "cuda_driver") ||
		 event_category_has(cat, cn, "Runtime");
	if (!is_kernel && !(cpu && (launch || event_category_has(cat, cn, "cpu_op") ||
				    event_category_has(cat, cn, "user_annotation") ||
				    event_category_has(cat, cn, "python_function") ||
				    event_category_has(cat, cn, "Operator"))))
		return 0;
	if (json_parse(ev, line, len, NULL) != 0 ||
	    (v = raw_of(ev, json_find(ev, 0, "ts"), &vn)) == NULL ||
	    tsnum_us_to_ns(v, vn, &ns, &sub) != NUM_OK)
		return 0;
	args = json_find(ev, 0, "args");
	if (json_type(ev, args) == JT_OBJECT)
		(void)json_int64(ev, json_find(ev, args, "correlation"), &corr);
	if (is_kernel) {
		const char *p = raw_of(ev, json_find(ev, 0, "pid"), &vn);
		int dv = json_type(ev, args) == JT_OBJECT ? json_find(ev, args, "device") : -1;
		size_t dl = 4;
		const char *dt = dv >= 0 ? json_raw(ev, dv, &dl) : "null";
		if (p == NULL || vn != lm->pn || memcmp(p, lm->pid, lm->pn) != 0 || dl != lm->dn ||
		    memcmp(dt, lm->dev, lm->dn) != 0)
			return 0;
		if (cpu) {
			/* an anchor: a kernel starting at a guide's start_us */
			struct verifylm_marks *anchors = &lm->anchors;
			size_t at = lm_lower(anchors, ns, 0), an, en;
			const char *a, *nm = raw_of(ev, json_find(ev, 0, "name"), &en);
			if (at < anchors->n && anchors->v[at].ns == ns && anchors->v[at].key < 0 &&
			    (a = raw_of(&lm->d, json_find(&lm->d, anchors->v[at].row, "anchor_name"),
					  &an)) &&
			    nm != NULL && an == en && memcmp(a, nm, an) == 0)
				anchors->v[at].key = corr;
			return 0;
		}
	} else if (launch) {
		return corr != 0 ? lm_add(lm, &lm->launches, corr, ns, ev) : 0;
	}
	buf_reset(&lm->name);
	if (json_type(ev, json_find(ev, 0, "name")) != JT_STRING ||
	    json_token_unescape(ev, json_find(ev, 0, "name"), &lm->name) != 0)
		return 0;
	if ((rc = regex_search(lm->re, lm->name.p, lm->name.len)) < 0)
		return verifycheck_trouble(lm->vc, "confirm_regex: matching failed (resource "
					   "limit)");
	if (rc == 1)
		return lm_add(lm, &lm->found, 0, ns, is_kernel ? NULL : ev);
	return 0;
}

int verifylm_source(struct verifylm *lm, struct stream_in *in, const char *src_path)
{
	const char *line;
	size_t len;
	int kind;

	while ((kind = verify_next_line(lm->vc, in, src_path, &line, &len)) == LINE_EVENT ||
	       kind == LINE_HEAD) {
		const char *cat, *v;
		size_t cn, vn;
		if (kind == LINE_HEAD || !event_member(line, len, "ph", &v, &vn) || vn != 3 ||
		    v[1] != 'X' || !event_member(line, len, "cat", &cat, &cn) || cat[0] != '"')
			continue;
		if (see_event(lm, line, len, cat + 1, cn - 2) != 0)
			return -1;
	}
	return kind < 0 ? -1 : 0;
}

/* Guide row r (the k-th): how many landmarks in its interval, or -1 when
 * the row does not count; -2 on trouble. */
static long count_row(struct verifylm *lm, int r, size_t k, int64_t pass, int64_t layer)
{
	struct jdoc *d = &lm->d;
	int64_t lo = lm->anchors.v[k].ns, hi;
	size_t count = 0, el, i, a;
	const char *e = raw_of(d, json_find(d, r, "end_us"), &el);
	int sub, kind_next = json_str_eq(d, json_find(d, r, "boundary_kind"), "next_layer_anchor");
	const struct verifylm_mark *l0 = NULL, *l1 = NULL;
	const struct verifylm_marks *found = &lm->found, *launches = &lm->launches;

	if (!lm->cpu) {
		if (!kind_next && !json_str_eq(d, json_find(d, r, "boundary_kind"),
					      "terminal_kernel_end"))
			return -1;
		if (e == NULL || tsnum_us_to_ns(e, el, &hi, &sub) != NUM_OK)
			return verifycheck_trouble(lm->vc, "%s: a layers row without a numeric "
						   "end_us", lm->path), -2;
		hi += sub;  /* [lo, exact end): floors compare alike */
		if (hi > lo)
			count = lm_lower(found, hi, 0) - lm_lower(found, lo, 0);
		return (long)count;
	}
	if (!kind_next)
		return -1;
	for (i = 0; i < 2; i++) {
		int64_t c = lm->anchors.v[k + i].key;
		a = lm_lower(launches, c, 1);
		if (c >= 0 && a < launches->n && launches->v[a].key == c)
			*(i ? &l1 : &l0) = &launches->v[a];
	}
	if (l0 == NULL || l1 == NULL) {
		verifycheck_fail(lm->vc, VERIFYCHECK_LANDMARK, "%s: pass %" PRId64 ", layer %" PRId64
				 ": the anchors' launches are not in the source, so the CPU "
				 "landmark cannot hold", lm->path, pass, layer);
		return -1;
	}
	for (a = lm_lower(found, l0->ns, 0); a < found->n && found->v[a].ns < l1->ns; a++)
		if ((lm_same(found->v[a].pid, l0->pid) && lm_same(found->v[a].tid, l0->tid)) ||
		    (lm_same(found->v[a].pid, l1->pid) && lm_same(found->v[a].tid, l1->tid)))
			count++;
	return (long)count;
}

int verifylm_finish(struct verifylm *lm)
{
	struct jdoc *d = &lm->d;
	size_t k, intervals = 0;
	int r;

	if (lm->found.n > 0)
		qsort(lm->found.v, lm->found.n, sizeof *lm->found.v, lm_cmp_ns);
	if (lm->launches.n > 0)
		qsort(lm->launches.v, lm->launches.n, sizeof *lm->launches.v, lm_cmp_key);
	for (k = 0, r = lm->rows + 1; k + (lm->cpu ? 1 : 0) < (size_t)lm->nrows;
	     k++, r = json_next(d, r)) {
		int64_t pass = 0, layer = 0;
		size_t sl;
		const char *start = raw_of(d, json_find(d, r, "start_us"), &sl);
		long count;
		(void)json_int64(d, json_find(d, r, "pass_index"), &pass);
		(void)json_int64(d, json_find(d, r, "layer_id"), &layer);
		if ((count = count_row(lm, r, k, pass, layer)) == -2)
			return -1;
		if (count < 0)
			continue;
		intervals++;
		if (count != 1)
			verifycheck_fail(lm->vc, VERIFYCHECK_LANDMARK, "%s claims confirm_regex %.*s%s, "
					 "but pass %" PRId64 ", layer %" PRId64 " (anchor at ts %.*s) "
					 "has %ld %s in the source, not exactly one", lm->path,
					 (int)lm->rxn, lm->rxraw, lm->cpu ? " (confirm_cpu)" : "",
					 pass, layer, (int)sl, start, count, lm->cpu ?
					 "CPU scopes between the anchors' launches" : "matching kernels");
	}
	verifycheck_figures(lm->vc, VERIFYCHECK_LANDMARK, "confirm_regex %.*s%s: %zu anchor "
			    "intervals recounted from the source", (int)lm->rxn, lm->rxraw,
			    lm->cpu ? " (CPU scopes)" : "", intervals);
	return 0;
}

static void free_marks(struct verifylm_marks *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		free(set->v[i].pid);
		free(set->v[i].tid);
	}
	free(set->v);
}

void verifylm_free(struct verifylm *lm)
{
	free_marks(&lm->found);
	free_marks(&lm->launches);
	free_marks(&lm->anchors);
	regex_free(lm->re);
	buf_release(&lm->name);
	buf_release(&lm->text);
	json_free(&lm->d);
	json_free(&lm->ev);
}
