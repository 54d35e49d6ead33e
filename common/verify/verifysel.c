/* verifysel: see verifysel.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/verifysel.h"
#include "json/event.h"

static int int_of(struct verifysel *sel, const struct jdoc *d, const char *key,
		  const char *path, int64_t *v)
{
	if (json_int64(d, json_find(d, 0, key), v) != 0)
		return verifycheck_trouble(sel->vc, "%s: no integer %s", path, key);
	return 0;
}

/* A string member as a NUL-terminated copy of its unescaped bytes in *out;
 * NULL when it is null and null is allowed.  0, or -1. */
static int report_string(struct verifysel *sel, const struct jdoc *d, const char *key,
			 int null_ok, const char *path, char **out)
{
	int v = json_find(d, 0, key);
	struct buf b = BUF_INIT;

	*out = NULL;
	if (null_ok && json_type(d, v) == JT_PRIMITIVE) {
		size_t n;
		const char *raw = json_raw(d, v, &n);
		if (n == 4 && memcmp(raw, "null", 4) == 0)
			return 0;
	}
	if (json_type(d, v) != JT_STRING || json_token_unescape(d, v, &b) != 0) {
		buf_release(&b);
		return verifycheck_trouble(sel->vc, "%s: no string %s", path, key);
	}
	if (memchr(b.p, '\0', b.len) != NULL) {
		buf_release(&b);
		return verifycheck_trouble(sel->vc, "%s: %s holds a NUL character", path, key);
	}
	if (b.cap == 0 && (b.p = calloc(1, 1)) == NULL)
		return verifycheck_nomem(sel->vc);
	*out = b.p;
	return 0;
}

void verifysel_init(struct verifysel *sel, struct verifycheck *vc, const char *src_path)
{
	memset(sel, 0, sizeof *sel);
	sel->vc = vc;
	sel->src_path = src_path;
	sel->origin_raw = (struct buf)BUF_INIT;
	sel->cat = (struct buf)BUF_INIT;
	sel->name = (struct buf)BUF_INIT;
	sel->tmp = (struct buf)BUF_INIT;
	sel->want = (struct buf)BUF_INIT;
	sel->rows.row = (struct buf)BUF_INIT;
	sel->edoc = (struct jdoc)JDOC_INIT;
	sel->gdoc = (struct jdoc)JDOC_INIT;
	sel->rdoc = (struct jdoc)JDOC_INIT;
}

int verifysel_load(struct verifysel *sel, const struct jdoc *d, const char *path,
		   int64_t num_layers, int64_t passes, int64_t first_layer, int rows_fd,
		   uint64_t rows_at, uint64_t nrows)
{
	char err[200];
	int nomem = 0;

	sel->num_layers = num_layers;
	sel->passes = passes;
	sel->first_layer = first_layer;
	if (report_string(sel, d, "anchor_regex", 0, path, &sel->regex) != 0 ||
	    report_string(sel, d, "end_anchor_regex", 1, path, &sel->end_regex) != 0)
		return -1;
	sel->pid = json_raw_dup(d, json_find(d, 0, "pid"), &nomem);
	sel->device = json_raw_dup(d, json_find(d, 0, "device"), &nomem);
	if (nomem)
		return verifycheck_nomem(sel->vc);
	if (sel->pid == NULL || sel->device == NULL)
		return verifycheck_trouble(sel->vc, "%s: no pid or device", path);
	sel->origin_text = json_raw_dup(d, json_find(d, 0, "trace_origin_us"), &nomem);
	if (nomem)
		return verifycheck_nomem(sel->vc);
	if (sel->origin_text == NULL)
		return verifycheck_trouble(sel->vc, "%s: no trace_origin_us", path);
	if (int_of(sel, d, "anchor_offset", path, &sel->offset) != 0 ||
	    int_of(sel, d, "matching_anchor_count", path, &sel->matching) != 0)
		return -1;
	if (num_layers < 1 || num_layers > 1000000 || passes < 1 || passes > 1000000 ||
	    num_layers * passes > 10000000 || first_layer < 0 || first_layer > 1000000 ||
	    sel->offset < 0 || sel->offset > INT32_MAX)
		return verifycheck_trouble(sel->vc, "%s: num_layers, passes, first_layer or "
					   "anchor_offset out of the range tr-select-anchors "
					   "accepts", path);
	sel->keep = (size_t)sel->offset + (size_t)(num_layers * passes) + 1;
	sel->re = regex_compile(sel->regex, err, sizeof err);
	if (sel->re == NULL) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report: anchor_regex '%s' does "
				 "not compile (%s): the anchors cannot be found", sel->regex, err);
		sel->broken = 1;
	} else if (sel->end_regex != NULL &&
		   (sel->end_re = regex_compile(sel->end_regex, err, sizeof err)) == NULL) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report: end_anchor_regex '%s' "
				 "does not compile (%s): the terminals cannot be found",
				 sel->end_regex, err);
		regex_free(sel->re);
		sel->re = NULL;
		sel->broken = 1;
	}
	if (nrows != (uint64_t)(num_layers * passes))
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report: %" PRIu64 " layers rows "
				 "for num_layers %" PRId64 " x passes %" PRId64 " = %" PRId64
				 " guides", nrows, num_layers, passes, num_layers * passes);
	/* the rows are read again, one at a time, as the guides come */
	sel->rows_path = path;
	sel->have_rows = 1;
	if (trstream_rows_open(&sel->rows, rows_fd, rows_at, nrows) != 0)
		return verifycheck_nomem(sel->vc);
	return 0;
}

static int cand_cmp(const struct verifysel_cand *x, const struct verifysel_cand *y)
{
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->ts_sub != y->ts_sub)
		return x->ts_sub < y->ts_sub ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cand_qsort(const void *a, const void *b)
{
	return cand_cmp(a, b);
}

/* Heap of the earliest matches, largest on top. */
static void heap_down(struct verifysel_cand *h, size_t n, size_t i)
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;
		struct verifysel_cand t;
		if (l < n && cand_cmp(&h[l], &h[big]) > 0)
			big = l;
		if (r < n && cand_cmp(&h[r], &h[big]) > 0)
			big = r;
		if (big == i)
			return;
		t = h[i];
		h[i] = h[big];
		h[big] = t;
		i = big;
	}
}

static int keep_anchor(struct verifysel *sel, struct verifysel_cand *c, const char *ts,
		       size_t tn)
{
	size_t i;

	sel->nmatch++;
	if (sel->nheap == sel->keep) {
		if (cand_cmp(c, &sel->heap[0]) >= 0)
			return 0;
		if ((c->ts = buf_memdup(ts, tn)) == NULL)
			return verifycheck_nomem(sel->vc);
		free(sel->heap[0].ts);
		sel->heap[0] = *c;
		heap_down(sel->heap, sel->nheap, 0);
		return 0;
	}
	if (sel->nheap == sel->heap_cap) {
		size_t cap = sel->heap_cap ? sel->heap_cap * 2 : 64;
		struct verifysel_cand *grown;
		if (sel->heap_cap > SIZE_MAX / 2 || cap > SIZE_MAX / sizeof *sel->heap)
			return verifycheck_nomem(sel->vc);
		if (cap > sel->keep)
			cap = sel->keep;
		if ((grown = realloc(sel->heap, cap * sizeof *sel->heap)) == NULL)
			return verifycheck_nomem(sel->vc);
		sel->heap = grown;
		sel->heap_cap = cap;
	}
	if ((c->ts = buf_memdup(ts, tn)) == NULL)
		return verifycheck_nomem(sel->vc);
	i = sel->nheap++;
	sel->heap[i] = *c;
	while (i > 0 && cand_cmp(&sel->heap[(i - 1) / 2], &sel->heap[i]) < 0) {
		struct verifysel_cand t = sel->heap[i];
		sel->heap[i] = sel->heap[(i - 1) / 2];
		sel->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

/* A terminal can only count between two selected anchors, so one at or
 * after the heap's largest (once the heap is full) is never needed. */
static int keep_terminal(struct verifysel *sel, const struct verifysel_cand *c)
{
	int full = sel->nheap == sel->keep;

	if (full && cand_cmp(c, &sel->heap[0]) >= 0)
		return 0;
	if (sel->nterms == sel->terms_cap && full) {
		size_t i, n = 0;
		for (i = 0; i < sel->nterms; i++)
			if (cand_cmp(&sel->terms[i], &sel->heap[0]) < 0)
				sel->terms[n++] = sel->terms[i];
		sel->nterms = n;
	}
	/* twice the room the kept terminals need: the pruning above runs when
	 * half full */
	if (buf_array_room((void **)&sel->terms, sel->nterms * 2, &sel->terms_cap, 64,
			   sizeof *sel->terms) != 0)
		return verifycheck_nomem(sel->vc);
	sel->terms[sel->nterms++] = *c;
	return 0;
}

/* The unescaped text of a raw JSON string into scratch (only when it has
 * escapes); NULL when an escape is malformed. */
static const char *unescaped(struct buf *scratch, struct member m, size_t *n)
{
	if (memchr(m.p, '\\', m.len) == NULL) {
		*n = m.len - 2;
		return m.p + 1;
	}
	buf_reset(scratch);
	if (json_unescape(m.p + 1, m.len - 2, scratch) != 0)
		return NULL;
	*n = scratch->len;
	return scratch->p;
}

static int raw_is(const char *raw, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(raw, want, n) == 0;
}

static void number_of(const struct jdoc *d, int v, int64_t *ns, int *sub, int *ok)
{
	const char *p;
	size_t n;

	*ok = 0;
	if (json_type(d, v) != JT_PRIMITIVE)
		return;
	p = json_text(d, v, &n);
	*ok = tsnum_us_to_ns(p, n, ns, sub) == NUM_OK;
}

/* 1 when the ts text a is plainly not below the origin: both plain
 * decimals, a's integer part longer or as long and larger (JSON has no
 * leading zeros).  Only then: what tsnum_text_not_below would say, without
 * reading the origin's text again for every event.  0 leaves it to that. */
static int plainly_above_origin(const struct verifysel *sel, const char *a, size_t an)
{
	size_t ai = sel->origin_int == 0 ? 0 : tsnum_plain_int_len(a, an);

	if (ai == 0 || ai < sel->origin_int)
		return 0;
	return ai > sel->origin_int || memcmp(a, sel->origin_raw.p, ai) > 0;
}

/* 1 when the raw texts are the same, or both numbers of the same exact
 * value: another tool may write 3.024 for 3.024000, or 1.5 for 1.500. */
static int same_value(const char *a, size_t an, const char *b, size_t bn)
{
	int cmp;

	if (an == bn && memcmp(a, b, an) == 0)
		return 1;
	return tsnum_compare(a, an, b, bn, &cmp) == NUM_OK && cmp == 0;
}

/* 1 when ts text a is below the earliest ts text kept so far, exactly: two
 * ts in the same nanosecond, both with digits beyond it.  The message that
 * names the earliest ts must name the earliest. */
static int below_origin_raw(const struct verifysel *sel, const char *a, size_t an)
{
	int cmp;

	return tsnum_compare(a, an, sel->origin_raw.p, sel->origin_raw.len, &cmp) == NUM_OK &&
	       cmp < 0;
}

/* One source event: is it a kernel the report's selection matches (an X
 * event of category kernel or Kernel whose unescaped name the regex finds,
 * in the report's pid and on its device)? */
int verifysel_see_source(struct verifysel *sel, const char *line, size_t len,
			 const struct member *m, uint64_t index)
{
	const char *cats, *subject, *raw, *tsraw = "";
	size_t ncats, slen, n, tn = 0;
	int is_anchor, is_end = 0, rc, v, args, sub, ok;
	struct verifysel_cand c;

	if (sel->re == NULL)
		return 0;
	/* the origin the relative times count from; most ts texts are plainly
	 * not below it and need no conversion */
	if (m[3].len > 0 && m[3].p[0] != '"' &&
	    !(sel->have_origin && (plainly_above_origin(sel, m[3].p, m[3].len) ||
				   tsnum_text_not_below(m[3].p, m[3].len, sel->origin_raw.p,
							sel->origin_raw.len)))) {
		int64_t ns;
		if (tsnum_us_to_ns(m[3].p, m[3].len, &ns, &sub) == NUM_OK &&
		    (!sel->have_origin || ns < sel->origin_ns ||
		     (ns == sel->origin_ns && !sub && sel->origin_sub) ||
		     (ns == sel->origin_ns && sub && sel->origin_sub &&
		      below_origin_raw(sel, m[3].p, m[3].len)))) {
			sel->origin_ns = ns;
			sel->origin_sub = sub;
			sel->have_origin = 1;
			buf_reset(&sel->origin_raw);
			if (buf_add(&sel->origin_raw, m[3].p, m[3].len) != 0)
				return verifycheck_nomem(sel->vc);
			sel->origin_int = tsnum_plain_int_len(m[3].p, m[3].len);
		}
	}
	if (m[0].len != 3 || memcmp(m[0].p, "\"X\"", 3) != 0 || m[1].len < 2 ||
	    m[1].p[0] != '"' || m[2].len < 2 || m[2].p[0] != '"')
		return 0;
	if ((cats = unescaped(&sel->cat, m[1], &ncats)) == NULL ||
	    !(event_category_has(cats, ncats, "kernel") || event_category_has(cats, ncats, "Kernel")))
		return 0;
	if ((subject = unescaped(&sel->name, m[2], &slen)) == NULL)
		return 0;
	rc = regex_search(sel->re, subject, slen);
	if (sel->end_re != NULL) {
		int erc = regex_search(sel->end_re, subject, slen);
		if (erc < 0)
			rc = erc;
		is_end = erc == 1;
	}
	if (rc < 0)
		return verifycheck_trouble(sel->vc, "%s: source event %" PRIu64 ": regular "
					   "expression matching failed (resource limit)",
					   sel->src_path, index);
	is_anchor = rc == 1;
	if (!is_anchor && !is_end)
		return 0;
	if (is_anchor && is_end) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "source event %" PRIu64 ": kernel %.*s matches both "
			"anchor_regex and end_anchor_regex (tr-select-anchors refuses that)",
			index, (int)m[2].len, m[2].p);
		return 0;
	}
	if (json_parse(&sel->edoc, line, len, NULL) != 0)
		return 0;
	v = json_find(&sel->edoc, 0, "pid");
	raw = v < 0 ? "null" : json_raw(&sel->edoc, v, &n);
	if (v < 0)
		n = 4;
	if (!raw_is(raw, n, sel->pid))
		return 0;
	args = json_find(&sel->edoc, 0, "args");
	v = json_type(&sel->edoc, args) == JT_OBJECT ? json_find(&sel->edoc, args, "device") : -1;
	raw = v < 0 ? "null" : json_raw(&sel->edoc, v, &n);
	if (v < 0)
		n = 4;
	if (!raw_is(raw, n, sel->device))
		return 0;

	memset(&c, 0, sizeof c);
	c.index = index;
	v = json_find(&sel->edoc, 0, "ts");
	number_of(&sel->edoc, v, &c.ts_ns, &c.ts_sub, &ok);
	if (!ok) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "source event %" PRIu64 ": a kernel the selection matches "
			"has no numeric ts, so the matches cannot be ordered", index);
		return 0;
	}
	tsraw = json_raw(&sel->edoc, v, &tn);
	number_of(&sel->edoc, json_find(&sel->edoc, 0, "dur"), &c.dur_ns, &sub, &c.dur_ok);
	if (is_end) {
		return keep_terminal(sel, &c);
	}
	if (sel->nheap == sel->keep && cand_cmp(&c, &sel->heap[0]) >= 0) {
		sel->nmatch++;
		return 0;
	}
	v = json_find(&sel->edoc, 0, "name");
	raw = json_raw(&sel->edoc, v, &n);
	{
		int64_t id = intern_id(&sel->texts, raw, n);
		if (id < 0)
			return verifycheck_nomem(sel->vc);
		c.name = sel->texts.keys[id];
		v = json_find(&sel->edoc, 0, "tid");
		if (v < 0)
			raw = "null", n = 4;
		else
			raw = json_raw(&sel->edoc, v, &n);
		if ((id = intern_id(&sel->texts, raw, n)) < 0)
			return verifycheck_nomem(sel->vc);
		c.tid = sel->texts.keys[id];
	}
	return keep_anchor(sel, &c, tsraw, tn);
}

static const char *kind_words(const char *kind)
{
	if (strcmp(kind, "next_layer_anchor") == 0)
		return "the next layer's anchor";
	if (strcmp(kind, "terminal_kernel_end") == 0)
		return "the terminal kernel's end";
	return "the anchor itself (a zero-length marker)";
}

/* Exactly one terminal from anchor a (by its floor, as tr-select-anchors
 * counts) to before the next matching anchor, or NULL with a failure. */
static const struct verifysel_cand *terminal_of(struct verifysel *sel, const struct verifysel_cand *a,
				      const struct verifysel_cand *next, size_t *lo)
{
	size_t i, count = 0;
	const struct verifysel_cand *term = NULL;

	while (*lo < sel->nterms && sel->terms[*lo].ts_ns < a->ts_ns)
		++*lo;
	for (i = *lo; i < sel->nterms; i++) {
		if (next != NULL && cand_cmp(&sel->terms[i], next) >= 0)
			break;
		count++;
		term = &sel->terms[i];
	}
	if (count != 1) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "anchor %" PRId64 " (source event %" PRIu64 ", ts %s): %zu "
			"kernels match end_anchor_regex between it and the %s; exactly one is "
			"needed", (int64_t)(a - sel->heap), a->index, a->ts, count,
			next ? "next matching anchor" : "end of the trace");
		return NULL;
	}
	if (!term->dur_ok || term->dur_ns < 0) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "terminal kernel (source event %" PRIu64 ") has no numeric "
			"dur of 0 or more", term->index);
		return NULL;
	}
	if (next != NULL && tsnum_sat_add(term->ts_ns, term->dur_ns) > next->ts_ns) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "terminal kernel (source event %" PRIu64 ") ends after the "
			"next anchor starts (source event %" PRIu64 ", ts %s)", term->index,
			next->index, next->ts);
		return NULL;
	}
	return term;
}

/* After the source's last event: sort the kept matches and compute what
 * every guide must be. */
int verifysel_finish_source(struct verifysel *sel)
{
	size_t need = (size_t)(sel->num_layers * sel->passes), k = (size_t)sel->offset, i, lo = 0;

	if (sel->re == NULL)
		return 0;
	if (sel->nheap > 0)
		qsort(sel->heap, sel->nheap, sizeof *sel->heap, cand_qsort);
	if (sel->nterms > 0)
		qsort(sel->terms, sel->nterms, sizeof *sel->terms, cand_qsort);
	if ((int64_t)sel->nmatch != sel->matching)
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report: anchor_regex '%s' matches %" PRIu64 " kernels in pid "
			"%s, device %s of the source, but matching_anchor_count is %" PRId64,
			sel->regex, sel->nmatch, sel->pid, sel->device, sel->matching);
	{
		/* the origin to the nanosecond below (what tr-guides writes), or
		 * the earliest ts exactly, in any number text */
		char origin[NUM_US_BUFSZ];
		size_t on = tsnum_format_us3(sel->origin_ns, origin), rn = strlen(sel->origin_text);
		if (!same_value(sel->origin_text, rn, origin, on) &&
		    !(sel->have_origin && same_value(sel->origin_text, rn, sel->origin_raw.p,
						     sel->origin_raw.len)))
			verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report: trace_origin_us %s, but the earliest ts in the "
				"source is %s", sel->origin_text,
				sel->have_origin ? sel->origin_raw.p : "(none)");
	}
	sel->nexp = sel->nheap > k ? sel->nheap - k : 0;
	if (sel->nexp > need)
		sel->nexp = need;
	if (sel->nexp < need)
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report: anchor_regex '%s' matches %" PRIu64 " kernels in pid "
			"%s, device %s of the source; from anchor_offset %" PRId64 " there are %zu, "
			"but num_layers %" PRId64 " x passes %" PRId64 " needs %zu", sel->regex,
			sel->nmatch, sel->pid, sel->device, sel->offset, sel->nexp, sel->num_layers,
			sel->passes, need);
	if ((sel->exp = malloc((sel->nexp + 1) * sizeof *sel->exp)) == NULL)
		return verifycheck_nomem(sel->vc);
	for (i = 0; i < sel->nexp; i++) {
		const struct verifysel_cand *a = &sel->heap[k + i];
		const struct verifysel_cand *next = k + i + 1 < sel->nheap ? &sel->heap[k + i + 1] : NULL;
		struct verifysel_expect *e = &sel->exp[i];
		int64_t layer = (int64_t)(i % (size_t)sel->num_layers), end_ns;

		memset(e, 0, sizeof *e);
		e->anchor_index = (int64_t)(k + i);
		e->pass = (int64_t)(i / (size_t)sel->num_layers);
		e->layer_id = sel->first_layer + layer;
		e->source_index = a->index;
		e->start_text = a->ts;
		e->name = a->name;
		e->tid = a->tid;
		if (!a->dur_ok || a->dur_ns < 0)
			verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "anchor %" PRId64 " (source event %" PRIu64 ") has no "
				"numeric dur of 0 or more", e->anchor_index, a->index);
		if (i > 0 && !(a->ts_ns > a[-1].ts_ns ||
			       (a->ts_ns == a[-1].ts_ns && a->ts_sub && !a[-1].ts_sub)))
			verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "anchors %" PRId64 " and %" PRId64 " (source events %"
				PRIu64 " and %" PRIu64 ") do not have strictly increasing timestamps "
				"(%s, %s)", e->anchor_index - 1, e->anchor_index, a[-1].index,
				a->index, a[-1].ts, a->ts);
		if (layer + 1 < sel->num_layers) {
			/* the guide runs to the next selected anchor */
			e->kind = "next_layer_anchor";
			end_ns = next ? next->ts_ns : a->ts_ns;
			e->end_text = next ? next->ts : "(none: the selection is truncated)";
		} else if (sel->end_re != NULL) {
			const struct verifysel_cand *t = terminal_of(sel, a, next, &lo);
			e->kind = "terminal_kernel_end";
			end_ns = t ? tsnum_sat_add(t->ts_ns, t->dur_ns) : a->ts_ns;
			tsnum_format_us3(end_ns, e->term_end);
			e->end_text = e->term_end;
		} else {
			e->kind = "anchor_point_only";
			end_ns = a->ts_ns;
			e->end_text = a->ts;
		}
		e->start_ns = a->ts_ns;
		e->end_ns = end_ns;
		e->start_us = tsnum_round_ns_to_us(a->ts_ns);
		e->end_us = tsnum_round_ns_to_us(end_ns);
	}
	free(sel->terms);
	sel->terms = NULL;
	sel->nterms = 0;
	return 0;
}

/* args.KEY of a guide must be want: the same text, or for a number the
 * same value. */
static void arg_is(struct verifysel *sel, const struct jdoc *d, int args, const char *key, const char *want,
		   size_t k, uint64_t o, const struct verifysel_expect *e)
{
	int v = args < 0 ? -1 : json_find(d, args, key);
	size_t n = 8;
	const char *raw = v < 0 ? "(absent)" : json_raw(d, v, &n);

	if (v < 0 || !same_value(raw, n, want, strlen(want)))
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "guide %zu (output event %" PRIu64 "): args.%s %.*s, expected "
			"%s (anchor %" PRId64 ", source event %" PRIu64 ")", k, o, key,
			(int)(n > 200 ? 200 : n), raw, want, e->anchor_index, e->source_index);
}

static void arg_int(struct verifysel *sel, const struct jdoc *d, int args, const char *key, int64_t want, size_t k,
		    uint64_t o, const struct verifysel_expect *e)
{
	char text[32];

	snprintf(text, sizeof text, "%" PRId64, want);
	arg_is(sel, d, args, key, text, k, o, e);
}

/* 1 when the guide's args begins with exactly the members the checks below
 * want, in tr-guides' order, names as their raw bytes, each value the text
 * wanted: then each is the first member of its name, and no arg_is can
 * fail.  0 leaves it to them (and their messages). */
static int args_open_as_expected(struct verifysel *sel, const struct jdoc *d, int args,
				 const struct verifysel_expect *e)
{
	struct buf *b = &sel->want;
	char ms[NUM_US_BUFSZ];
	size_t n;
	const char *raw = json_raw(d, args, &n);
	int rc = 0;

	buf_reset(b);
	rc |= buf_addstr(b, "{\"pass_index\":");
	rc |= buf_add_i64(b, e->pass);
	rc |= buf_addstr(b, ",\"layer_id\":");
	rc |= buf_add_i64(b, e->layer_id);
	rc |= buf_addstr(b, ",\"anchor_index\":");
	rc |= buf_add_i64(b, e->anchor_index);
	rc |= buf_addstr(b, ",\"anchor_name\":");
	rc |= buf_addstr(b, e->name);
	rc |= buf_addstr(b, ",\"anchor_tid\":");
	rc |= buf_addstr(b, e->tid);
	rc |= buf_addstr(b, ",\"start_us\":");
	rc |= buf_addstr(b, e->start_text);
	rc |= buf_addstr(b, ",\"end_us\":");
	rc |= buf_addstr(b, e->end_text);
	rc |= buf_addstr(b, ",\"guide_start_us\":");
	rc |= buf_add_i64(b, e->start_us);
	rc |= buf_addstr(b, ",\"guide_end_us\":");
	rc |= buf_add_i64(b, e->end_us);
	rc |= buf_addstr(b, ",\"start_relative_ms\":");
	rc |= buf_add(b, ms, tsnum_format_ms6(tsnum_sat_sub(e->start_ns, sel->origin_ns), ms));
	rc |= buf_addstr(b, ",\"end_relative_ms\":");
	rc |= buf_add(b, ms, tsnum_format_ms6(tsnum_sat_sub(e->end_ns, sel->origin_ns), ms));
	rc |= buf_addstr(b, ",\"boundary_kind\":\"");
	rc |= buf_addstr(b, e->kind);
	rc |= buf_addch(b, '"');
	return rc == 0 && n > b->len && memcmp(raw, b->p, b->len) == 0 &&
	       (raw[b->len] == ',' || raw[b->len] == '}');
}

/* The guide's name, ts, dur and args against its anchor. */
static void check_guide_placement(struct verifysel *sel, const struct jdoc *d, size_t k,
				  uint64_t o)
{
	const struct verifysel_expect *e = &sel->exp[k];
	char want[48];
	int v, args = json_find(d, 0, "args"), sub;
	size_t n;
	const char *raw;
	int64_t ns;

	snprintf(want, sizeof want, "L%" PRId64, e->layer_id);
	v = json_find(d, 0, "name");
	if (!json_str_eq(d, v, want)) {
		raw = v < 0 ? "(absent)" : json_raw(d, v, &n);
		if (v < 0)
			n = 8;
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "guide %zu (output event %" PRIu64 "): name %.*s, expected "
			"\"%s\" (layer %" PRId64 " of pass %" PRId64 ")", k, o,
			(int)(n > 200 ? 200 : n), raw, want, e->layer_id, e->pass);
	}
	v = json_find(d, 0, "ts");
	raw = v < 0 ? "(absent)" : json_raw(d, v, &n);
	if (v < 0 || json_type(d, v) != JT_PRIMITIVE || tsnum_us_to_ns(raw, n, &ns, &sub) != NUM_OK ||
	    sub || ns != e->start_us * 1000)
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "guide %zu (output event %" PRIu64 "): ts %.*s, expected %"
			PRId64 ": anchor %" PRId64 " (source event %" PRIu64 ") at ts %s, rounded "
			"to the microsecond", k, o, (int)(v < 0 ? 8 : n > 200 ? 200 : n), raw,
			e->start_us, e->anchor_index, e->source_index, e->start_text);
	v = json_find(d, 0, "dur");
	raw = v < 0 ? "(absent)" : json_raw(d, v, &n);
	if (v < 0 || json_type(d, v) != JT_PRIMITIVE || tsnum_us_to_ns(raw, n, &ns, &sub) != NUM_OK ||
	    sub || ns != (e->end_us - e->start_us) * 1000)
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "guide %zu (output event %" PRIu64 "): dur %.*s, expected %"
			PRId64 ": from %" PRId64 " to %s at %s, rounded to %" PRId64, k, o,
			(int)(v < 0 ? 8 : n > 200 ? 200 : n), raw, e->end_us - e->start_us,
			e->start_us, kind_words(e->kind), e->end_text, e->end_us);
	if (json_type(d, args) != JT_OBJECT) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "guide %zu (output event %" PRIu64 "): no args object", k, o);
		return;
	}
	if (args_open_as_expected(sel, d, args, e))
		return;
	arg_int(sel, d, args, "pass_index", e->pass, k, o, e);
	arg_int(sel, d, args, "layer_id", e->layer_id, k, o, e);
	arg_int(sel, d, args, "anchor_index", e->anchor_index, k, o, e);
	arg_is(sel, d, args, "anchor_name", e->name, k, o, e);
	arg_is(sel, d, args, "anchor_tid", e->tid, k, o, e);
	arg_is(sel, d, args, "start_us", e->start_text, k, o, e);
	arg_is(sel, d, args, "end_us", e->end_text, k, o, e);
	arg_int(sel, d, args, "guide_start_us", e->start_us, k, o, e);
	arg_int(sel, d, args, "guide_end_us", e->end_us, k, o, e);
	tsnum_format_ms6(tsnum_sat_sub(e->start_ns, sel->origin_ns), want);
	arg_is(sel, d, args, "start_relative_ms", want, k, o, e);
	tsnum_format_ms6(tsnum_sat_sub(e->end_ns, sel->origin_ns), want);
	arg_is(sel, d, args, "end_relative_ms", want, k, o, e);
	snprintf(want, sizeof want, "\"%s\"", e->kind);
	arg_is(sel, d, args, "boundary_kind", want, k, o, e);
}

/* Report row k against guide k's args: every member a row carries. */
/* 1 when the report row is, byte for byte, the beginning of the guide's
 * args: exactly the members keys[0..n) in that order, names as their raw
 * bytes, and args going on with ',' or ending there.  Each member of the
 * row then finds the same first member in args, with the same raw value:
 * check_row's comparison cannot fail, and it need parse neither. */
static int row_opens_args(const char *row, size_t rn, const char *args, size_t an,
			  const char *const *keys, size_t n)
{
	size_t i = 1, k;

	if (rn < 2 || row[0] != '{' || row[rn - 1] != '}' || an < rn ||
	    memcmp(row, args, rn - 1) != 0 || (args[rn - 1] != ',' && args[rn - 1] != '}'))
		return 0;
	for (k = 0; k < n; k++) {
		size_t kl = strlen(keys[k]), kend, vend;
		if (i >= rn || row[i] != '"')
			return 0;
		kend = event_skip_string(row, rn, i);
		if (kend - i != kl + 2 || memcmp(row + i + 1, keys[k], kl) != 0 || kend >= rn ||
		    row[kend] != ':')
			return 0;
		vend = event_skip_value(row, rn, kend + 1);
		if (vend == kend + 1 || vend >= rn || row[vend] != (k + 1 < n ? ',' : '}'))
			return 0;
		i = vend + 1;
	}
	return i == rn;
}

static int check_row(struct verifysel *sel, const struct jdoc *d, size_t k, uint64_t o)
{
	static const char *const keys[] = { "pass_index", "layer_id", "anchor_index",
		"anchor_name", "anchor_tid", "start_us", "end_us", "guide_start_us",
		"guide_end_us", "start_relative_ms", "end_relative_ms", "boundary_kind" };
	struct jdoc *r = &sel->rdoc;
	int args = json_find(d, 0, "args");
	size_t i, more = 0;
	const char *first = NULL;
	struct trstream_error err;
	int rc = sel->have_rows ? trstream_rows_next(&sel->rows, &err) : 0;

	if (rc < 0)
		return verifycheck_report_error(sel->vc, sel->rows_path, &err);
	if (rc == 0)
		return 0;
	if (json_type(d, args) == JT_OBJECT) {
		size_t an;
		const char *araw = json_raw(d, args, &an);
		if (row_opens_args(sel->rows.row.p, sel->rows.row.len, araw, an, keys,
				   sizeof keys / sizeof keys[0]))
			return 0;
	}
	if (json_parse(r, sel->rows.row.p, sel->rows.row.len, NULL) != 0 ||
	    json_type(r, 0) != JT_OBJECT) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report layers row %zu: not a "
				 "JSON object", k);
		return 0;
	}
	if (json_type(d, args) != JT_OBJECT)
		args = -1;
	/* one line per row: the first member that differs, and how many more */
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		int rv = json_find(r, 0, keys[i]);
		int gv = args < 0 ? -1 : json_find(d, args, keys[i]);
		size_t rn = 8, gn = 8;
		const char *rraw = rv < 0 ? "(absent)" : json_raw(r, rv, &rn);
		const char *graw = gv < 0 ? "(absent)" : json_raw(d, gv, &gn);
		if ((rv < 0 && gv < 0) || (rv >= 0 && gv >= 0 && same_value(rraw, rn, graw, gn)))
			continue;
		if (first == NULL) {
			first = keys[i];
			buf_reset(&sel->tmp);
			buf_printf(&sel->tmp, "report layers row %zu: %s %.*s, but guide %zu (output "
				   "event %" PRIu64 ") has %.*s", k, keys[i], (int)(rn > 200 ? 200 : rn),
				   rraw, k, o, (int)(gn > 200 ? 200 : gn), graw);
		} else {
			more++;
		}
	}
	if (first != NULL) {
		if (more > 0)
			buf_printf(&sel->tmp, " (and %zu more members differ)", more);
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "%s", sel->tmp.p);
	}
	return 0;
}

int verifysel_guide(struct verifysel *sel, const char *line, size_t len, uint64_t o)
{
	size_t k = sel->nguides++;

	if (json_parse(&sel->gdoc, line, len, NULL) != 0) {
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "guide %zu (output event %" PRIu64
				 "): not a JSON object", k, o);
		return 0;
	}
	if (check_row(sel, &sel->gdoc, k, o) != 0)
		return -1;
	if (sel->broken || sel->re == NULL)
		return 0;
	if (k >= sel->nexp) {
		if (k == sel->nexp)
			verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "guide %zu (output event %"
					 PRIu64 ") and any after it: the report's selection has "
					 "only %zu anchors", k, o, sel->nexp);
		return 0;
	}
	check_guide_placement(sel, &sel->gdoc, k, o);
	return 0;
}

void verifysel_finish(struct verifysel *sel)
{
	verifycheck_ran(sel->vc, VERIFYCHECK_PLACEMENT);
	if (sel->re != NULL && sel->nguides < sel->nexp) {
		const struct verifysel_expect *e = &sel->exp[sel->nguides];
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "anchor %" PRId64 " (source event %" PRIu64 ", ts %s): no guide "
			"for it (the output has %zu guides)", e->anchor_index, e->source_index,
			e->start_text, sel->nguides);
	}
	/* a count that differs from the report's own num_layers x passes was
	 * said first, when the report was read */
	if (sel->rows.count != sel->nguides &&
	    sel->rows.count == (uint64_t)(sel->num_layers * sel->passes))
		verifycheck_fail(sel->vc, VERIFYCHECK_PLACEMENT, "report: %" PRIu64 " layers rows for %zu guides",
			sel->rows.count, sel->nguides);
	verifycheck_figures(sel->vc, VERIFYCHECK_PLACEMENT, "%zu guides at the anchors the report names "
		   "(anchor_regex '%s': %" PRIu64 " matches in pid %s, device %s; anchors %" PRId64
		   " to %" PRId64 "%s), %" PRIu64 " report rows", sel->nguides, sel->regex,
		   sel->nmatch, sel->pid, sel->device, sel->offset,
		   sel->offset + sel->num_layers * sel->passes - 1,
		   sel->end_regex ? ", with terminals" : "", sel->rows.count);
}

void verifysel_free(struct verifysel *sel)
{
	size_t i;

	for (i = 0; i < sel->nheap; i++)
		free(sel->heap[i].ts);
	free(sel->heap);
	free(sel->terms);
	free(sel->exp);
	free(sel->regex);
	free(sel->end_regex);
	free(sel->pid);
	free(sel->device);
	free(sel->origin_text);
	buf_release(&sel->origin_raw);
	regex_free(sel->re);
	regex_free(sel->end_re);
	intern_free(&sel->texts);
	json_free(&sel->edoc);
	json_free(&sel->gdoc);
	json_free(&sel->rdoc);
	buf_release(&sel->cat);
	buf_release(&sel->name);
	buf_release(&sel->tmp);
	buf_release(&sel->want);
	trstream_rows_free(&sel->rows);
}
