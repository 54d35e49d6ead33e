/* compact_rewrite: see compact_rewrite.h. */
#include <inttypes.h>
#include <string.h>

#include "compact/compact_state.h"
#include "compact/compact_rewrite.h"
#include "stream/trstream.h"

/* The decimal text of v as printf's %lld writes it, ending at end: its
 * start. */
static char *decimal(long long v, char *end)
{
	/* two digits a step: each moved event writes two ten-digit numbers */
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	/* the magnitude as unsigned: -LLONG_MIN does not fit long long */
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	while (u >= 100) {
		unsigned d = (unsigned)(u % 100);
		u /= 100;
		*--end = pairs[2 * d + 1];
		*--end = pairs[2 * d];
	}
	if (u >= 10) {
		*--end = pairs[2 * u + 1];
		*--end = pairs[2 * u];
	} else {
		*--end = (char)('0' + u);
	}
	if (v < 0)
		*--end = '-';
	return end;
}

/* n bytes at *w, which moves on. */
static inline void put(char **w, const void *p, size_t n)
{
	memcpy(*w, p, n);
	*w += n;
}

#define RECORD_PID "\"" TRSTREAM_KEY_COMPACT_TRACK "\":{\"pid\":"
#define RECORD_TID ",\"tid\":"
#define RECORD_INDEX ",\"source_event_index\":"
#define HAD_ARGS ",\"had_args\":true}"
#define NO_ARGS ",\"had_args\":false}}"

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
	struct { size_t at, end; int what; } e[3], in[3];
	size_t at[3];
	unsigned order[3];
	size_t pos = 0, k, tid_len, index_len, pid_len, lead_len, tail_len, insert;
	char tid_space[24], index_space[24], *w;
	const char *tid_text, *index_text, *lead, *tail;
	int had_args;

	if (m[0].len == 0 || m[1].len == 0)
		return refused(msg, index, "GPU event without pid and tid");
	had_args = m[2].len > 0;
	if (had_args && m[2].p[0] != '{')
		return refused(msg, index, "args is not an object");
	/* three edits in offset order: pid, tid, the insertion before the '}'
	 * of args (or of the event) */
	in[0].at = (size_t)(m[0].p - line), in[0].end = in[0].at + m[0].len, in[0].what = 0;
	in[1].at = (size_t)(m[1].p - line), in[1].end = in[1].at + m[1].len, in[1].what = 1;
	in[2].at = in[2].end = had_args ? (size_t)(m[2].p - line) + m[2].len - 1 : len - 1;
	in[2].what = 2;
	for (k = 0; k < 3; k++)
		at[k] = in[k].at;
	event_edit_order(at, order);
	for (k = 0; k < 3; k++)
		e[k] = in[order[k]];
	/* the pieces, measured first: the line is built in one buffer with a
	 * copy each (this runs for every moved event) */
	tid_text = decimal((long long)new_tid, tid_space + sizeof tid_space);
	tid_len = (size_t)(tid_space + sizeof tid_space - tid_text);
	index_text = decimal((long long)index, index_space + sizeof index_space);
	index_len = (size_t)(index_space + sizeof index_space - index_text);
	pid_len = strlen(new_pid);
	lead = had_args ? (m[2].len > 2 ? "," : "") : (len > 2 ? ",\"args\":{" : "\"args\":{");
	lead_len = strlen(lead);
	tail = had_args ? HAD_ARGS : NO_ARGS;
	tail_len = had_args ? sizeof HAD_ARGS - 1 : sizeof NO_ARGS - 1;
	insert = lead_len + sizeof RECORD_PID - 1 + m[0].len + sizeof RECORD_TID - 1 + m[1].len +
		 sizeof RECORD_INDEX - 1 + index_len + tail_len;
	/* edits out of order (members that overlap) would copy a negative
	 * length: too much for any buffer, as buf_add found */
	for (k = 0; k < 3; k++) {
		if (e[k].at < pos)
			return COMPACT_NOMEM;
		pos = e[k].end;
	}
	if (pos > len)
		return COMPACT_NOMEM;
	buf_reset(out);
	if (buf_grow(out, len - m[0].len - m[1].len + pid_len + tid_len + insert) != 0)
		return COMPACT_NOMEM;
	w = out->p;
	pos = 0;
	for (k = 0; k < 3; k++) {
		put(&w, line + pos, e[k].at - pos);
		if (e[k].what == 0) {
			put(&w, new_pid, pid_len);
		} else if (e[k].what == 1) {
			put(&w, tid_text, tid_len);
		} else {
			put(&w, lead, lead_len);
			put(&w, RECORD_PID, sizeof RECORD_PID - 1);
			put(&w, m[0].p, m[0].len);
			put(&w, RECORD_TID, sizeof RECORD_TID - 1);
			put(&w, m[1].p, m[1].len);
			put(&w, RECORD_INDEX, sizeof RECORD_INDEX - 1);
			put(&w, index_text, index_len);
			put(&w, tail, tail_len);
		}
		pos = e[k].end;
	}
	put(&w, line + pos, len - pos);
	buf_setlen(out, (size_t)(w - out->p));
	return 0;
}
