/* passtable: see passtable.h. */
#include "window/passtable.h"

static const struct scan_member span_members[WINDOW_SPAN_N] = {
	[WINDOW_SPAN_PH] = { "ph", 2 },
	[WINDOW_SPAN_TS] = { "ts", 2 },
	[WINDOW_SPAN_DUR] = { "dur", 3 },
	[WINDOW_SPAN_CAT] = { "cat", 3 },
};

int passtable_init(struct passtable *t, int spill_fd)
{
	window_cut_init(&t->cut);
	(void)scan_want_init(&t->want, span_members, WINDOW_SPAN_N);  /* four short names */
	if (windowspan_init(&t->spans, spill_fd) != 0)
		return PASSTABLE_NOMEM;
	return PASSTABLE_OK;
}

static int window_status(int rc)
{
	if (rc < 0)
		return PASSTABLE_NOMEM;
	return rc == WINDOW_REFUSED ? PASSTABLE_REFUSED : PASSTABLE_TROUBLE;
}

static int keep_span(struct passtable *t, int rc, size_t len, int64_t lo, int64_t hi,
		     int counted)
{
	if (rc != 0)
		return window_status(rc);
	if (counted && windowspan_put(&t->spans, lo, hi, (uint32_t)(len + 1)) != 0)
		return PASSTABLE_SPILL;
	return PASSTABLE_OK;
}

int passtable_event(struct passtable *t, const char *line, size_t len)
{
	int64_t lo, hi;
	int counted, rc;

	rc = window_cut_span(&t->cut, line, len, &lo, &hi, &counted);
	return keep_span(t, rc, len, lo, hi, counted);
}

int passtable_event_found(struct passtable *t, const char *line, size_t len,
			  const struct scan_span *found)
{
	struct member m[WINDOW_SPAN_N];
	int64_t lo, hi;
	int counted, rc, i;

	for (i = 0; i < WINDOW_SPAN_N; i++) {
		m[i].p = found[i].p;
		m[i].len = found[i].len;
	}
	rc = window_cut_span_members(&t->cut, line, len, m, &lo, &hi, &counted);
	return keep_span(t, rc, len, lo, hi, counted);
}

int passtable_finish(struct passtable *t, int always, struct buf *out)
{
	const struct window_spec spec = { .list_passes = 1 };
	int64_t lo, hi;
	uint32_t bytes;
	int rc;

	if (windowspan_finish(&t->spans) != 0)
		return PASSTABLE_SPILL;
	if (t->cut.ng == 0 && !always)
		return PASSTABLE_OK;
	if ((rc = window_cut_choose(&t->cut, &spec)) != 0)
		return window_status(rc);
	if (windowspan_rewind(&t->spans) != 0)
		return PASSTABLE_SPILL;
	while ((rc = windowspan_next(&t->spans, &lo, &hi, &bytes)) > 0)
		window_cut_add_span(&t->cut, lo, hi, bytes);
	if (rc < 0)
		return PASSTABLE_SPILL;
	if (window_cut_pass_table(&t->cut, out) != 0)
		return PASSTABLE_NOMEM;
	return PASSTABLE_OK;
}

const char *passtable_error(const struct passtable *t)
{
	return t->cut.err.p != NULL ? t->cut.err.p : "";
}

void passtable_free(struct passtable *t)
{
	windowspan_free(&t->spans);
	window_cut_free(&t->cut);
}
