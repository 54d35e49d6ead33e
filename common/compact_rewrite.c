/* compact_rewrite: see compact_rewrite.h. */
#include <inttypes.h>
#include <string.h>

#include "compact.h"
#include "compact_rewrite.h"
#include "trstream.h"

/* buf_addstr, but inline: the length of a literal is known when compiled
 * (this runs for every moved event). */
static inline int add_text(struct buf *b, const char *text)
{
	return buf_add(b, text, strlen(text));
}

static int refused(struct buf *msg, uint64_t index, const char *what)
{
	buf_reset(msg);
	if (buf_printf(msg, "event %" PRIu64 ": %s", index, what) != 0)
		return COMPACT_NOMEM;
	return COMPACT_REFUSED;
}

int compact_rewrite(const char *line, size_t len, const struct member *m, uint64_t index,
		    const char *new_pid, int64_t new_tid, struct buf *out, struct buf *msg)
{
	struct { size_t at, end; int what; } e[3], t;
	size_t pos = 0, k, j;
	int had_args, fail = 0;

	if (m[0].len == 0 || m[1].len == 0)
		return refused(msg, index, "GPU event without pid and tid");
	had_args = m[2].len > 0;
	if (had_args && m[2].p[0] != '{')
		return refused(msg, index, "args is not an object");
	/* three edits in offset order: pid, tid, the insertion before the '}'
	 * of args (or of the event) */
	e[0].at = (size_t)(m[0].p - line), e[0].end = e[0].at + m[0].len, e[0].what = 0;
	e[1].at = (size_t)(m[1].p - line), e[1].end = e[1].at + m[1].len, e[1].what = 1;
	e[2].at = e[2].end = had_args ? (size_t)(m[2].p - line) + m[2].len - 1 : len - 1;
	e[2].what = 2;
	for (k = 0; k < 3; k++)
		for (j = k + 1; j < 3; j++)
			if (e[j].at < e[k].at) {
				t = e[k];
				e[k] = e[j];
				e[j] = t;
			}
	buf_reset(out);
	for (k = 0; k < 3; k++) {
		fail |= buf_add(out, line + pos, e[k].at - pos);
		if (e[k].what == 0) {
			fail |= add_text(out, new_pid);
		} else if (e[k].what == 1) {
			fail |= buf_add_i64(out, new_tid);
		} else {
			if (had_args)
				fail |= add_text(out, m[2].len > 2 ? "," : "");
			else
				fail |= add_text(out, len > 2 ? ",\"args\":{" : "\"args\":{");
			fail |= add_text(out, "\"" TRSTREAM_KEY_COMPACT_TRACK "\":{\"pid\":");
			fail |= buf_add(out, m[0].p, m[0].len);
			fail |= add_text(out, ",\"tid\":");
			fail |= buf_add(out, m[1].p, m[1].len);
			fail |= add_text(out, ",\"source_event_index\":");
			fail |= buf_add_i64(out, (long long)index);
			fail |= add_text(out, had_args ? ",\"had_args\":true}" :
					   ",\"had_args\":false}}");
		}
		pos = e[k].end;
	}
	fail |= buf_add(out, line + pos, len - pos);
	return fail ? COMPACT_NOMEM : 0;
}
