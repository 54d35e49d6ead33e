/* compact_state: see compact_state.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compact/compact_state.h"

int compact_refuse(struct compact *c, const char *fmt, ...)
{
	va_list ap;
	char small[1];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	buf_reset(&c->msg);
	if (n < 0 || buf_grow(&c->msg, (size_t)n + 1) != 0)
		return COMPACT_NOMEM;
	va_start(ap, fmt);
	vsnprintf(c->msg.p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_setlen(&c->msg, (size_t)n);
	return COMPACT_REFUSED;
}

const char *compact_display_pid(const struct compact_group *g, char *space)
{
	if (g->display_pid < 0)
		return g->pid;
	snprintf(space, 24, "%" PRId64, g->display_pid);
	return space;
}

int compact_members(struct compact *c, const char *line, size_t len, const char *const *keys,
		    int n, struct member *out)
{
	struct jdoc *d = &c->doc;
	int k;

	if (memchr(line, '\\', len) == NULL) {
		event_members(line, len, keys, n, out);
		return COMPACT_OK;
	}
	if (json_parse(d, line, len, NULL) != 0)
		return compact_refuse(c, "event %" PRIu64 ": not a JSON object", c->events);
	for (k = 0; k < n; k++) {
		int tok = json_find(d, 0, keys[k]);
		out[k].p = NULL;
		out[k].len = 0;
		if (tok >= 0)
			out[k].p = json_raw(d, tok, &out[k].len);
	}
	return COMPACT_OK;
}
