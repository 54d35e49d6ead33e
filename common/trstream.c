/* trstream: see trstream.h. */
#include <inttypes.h>
#include <string.h>

#include "trstream.h"
#include "tsnum.h"

int trstream_record_begin(struct buf *b, const char *kind)
{
	return buf_printf(b, "{\"@tr\":\"%s\"", kind);
}

int trstream_report_body(struct buf *b, const char *suffix)
{
	return buf_printf(b, "{\"@tr\":\"" TRSTREAM_REPORT "\",\"suffix\":\"%s\",\"body\":", suffix);
}

int trstream_report_member(struct buf *b, const char *suffix, const char *member, int items)
{
	return buf_printf(b, "{\"@tr\":\"" TRSTREAM_REPORT "\",\"suffix\":\"%s\",\"member\":\"%s\",%s",
			  suffix, member, items ? "\"items\":[" : "\"body\":");
}

int trstream_put_source_sha256(struct buf *b, const struct jdoc *tail)
{
	int sha = jdoc_find(tail, 0, TRSTREAM_KEY_SOURCE_SHA256);
	size_t n;
	const char *raw;

	if (jdoc_type(tail, sha) != JT_STRING)
		return buf_addstr(b, "null");
	raw = jdoc_raw(tail, sha, &n);
	return buf_add(b, raw, n);
}

/* ---- the window report ----------------------------------------------- */

static int put_counts(struct buf *b, const char *name, const struct trstream_window *w,
		      const uint64_t *n)
{
	size_t c;
	int rc = buf_printf(b, ",\"%s\":{", name);

	for (c = 0; c < w->ncats; c++)
		rc |= buf_printf(b, "%s\"%s\":%" PRIu64, c ? "," : "", w->cat_names[c], n[c]);
	return rc | buf_addch(b, '}');
}

int trstream_window_report(struct buf *b, const struct trstream_window *w)
{
	int rc;
	uint64_t i;
	size_t at, start;

	rc = trstream_report_body(b, TRSTREAM_WINDOW_SUFFIX);
	rc |= buf_addstr(b, "{\"schema_version\":1,\"spec\":");
	rc |= json_escape(b, w->spec, strlen(w->spec));
	rc |= buf_addstr(b, ",\"window_start_us\":");
	rc |= num_append_us3(b, w->start_ns);
	rc |= buf_addstr(b, ",\"window_end_us\":");
	rc |= num_append_us3(b, w->end_ns);
	rc |= buf_printf(b, ",\"window_start_ns\":%" PRId64 ",\"window_end_ns\":%" PRId64,
			 w->start_ns, w->end_ns);
	rc |= buf_addstr(b, ",\"trace_origin_us\":");
	rc |= w->have_origin ? num_append_us3(b, w->origin_ns) : buf_addstr(b, "null");
	rc |= buf_addstr(b, ",\"overlap\":\"closed: an event is kept when ts <= window end and "
			 "ts + dur >= window start\",\"source_file\":");
	rc |= json_escape(b, w->source_file, strlen(w->source_file));
	rc |= buf_addstr(b, ",\"" TRSTREAM_KEY_SOURCE_SHA256 "\":");
	rc |= buf_add(b, w->sha, w->sha_len);
	rc |= buf_printf(b, ",\"source_events\":%" PRIu64, w->source_events);
	rc |= put_counts(b, "kept", w, w->kept);
	rc |= put_counts(b, "dropped", w, w->dropped);
	rc |= buf_printf(b, ",\"flows_dropped_end_outside\":%" PRIu64
			 ",\"async_dropped_end_outside\":%" PRIu64 ",\"bytes_written\":%" PRIu64
			 ",\"tool_version\":\"trace-layers %s\"}}\n", w->flows_cut, w->async_cut,
			 w->bytes, TR_VERSION);
	if (w->nrows == 0) {
		rc |= trstream_report_member(b, TRSTREAM_WINDOW_SUFFIX, "dropped_events", 0);
		return rc | buf_addstr(b, "[]}\n");
	}
	/* the rows, TRSTREAM_WINDOW_ROWS per record: a row ends at a '}'
	 * followed by ',' or the end */
	for (i = 0, at = 0; i < w->nrows; i += TRSTREAM_WINDOW_ROWS) {
		uint64_t k;
		start = at;
		for (k = 0; k < TRSTREAM_WINDOW_ROWS && at < w->rows_len; at++)
			if (w->rows[at] == '}' && (at + 1 == w->rows_len || w->rows[at + 1] == ','))
				k++;
		rc |= trstream_report_member(b, TRSTREAM_WINDOW_SUFFIX, "dropped_events", 1);
		rc |= buf_add(b, w->rows + start, at - start);
		rc |= buf_addstr(b, "]}\n");
		if (at < w->rows_len)
			at++;  /* the ',' between records */
	}
	return rc;
}
