/* trstream: see trstream.h. */
#include "trstream.h"

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
