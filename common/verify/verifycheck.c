/* verifycheck: see verifycheck.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "verify/verifycheck.h"

static const char *const names[VERIFYCHECK_N] = {
	"source identity", "preservation", "exact reversal", "render", "counts", "placement",
	"landmark", "window"
};

void verifycheck_init(struct verifycheck *vc)
{
	int c;

	memset(vc, 0, sizeof *vc);
	for (c = 0; c < VERIFYCHECK_N; c++) {
		vc->item[c].name = names[c];
		vc->item[c].figures = (struct buf)BUF_INIT;
		vc->item[c].shown = (struct buf)BUF_INIT;
	}
}

void verifycheck_free(struct verifycheck *vc)
{
	int c;

	for (c = 0; c < VERIFYCHECK_N; c++) {
		buf_release(&vc->item[c].figures);
		buf_release(&vc->item[c].shown);
	}
}

void verifycheck_fail(struct verifycheck *vc, int id, const char *fmt, ...)
{
	struct verifycheck_item *k = &vc->item[id];
	va_list ap;
	char line[600];

	k->failures++;
	if (k->nshown == VERIFYCHECK_MAX_SHOWN)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (k->nshown++)
		buf_addch(&k->shown, '\n');
	buf_addstr(&k->shown, line);
}

void verifycheck_figures(struct verifycheck *vc, int id, const char *fmt, ...)
{
	struct buf *b = &vc->item[id].figures;
	va_list ap, again;
	int n;

	va_start(ap, fmt);
	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n >= 0 && buf_grow(b, (size_t)n + 1) == 0) {
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
}

void verifycheck_ran(struct verifycheck *vc, int id)
{
	vc->item[id].ran = 1;
}

static int trouble(struct verifycheck *vc, int errnum, const char *fmt, va_list ap)
{
	size_t n;

	if (vc->error != VERIFYCHECK_RUNNING)
		return -1;
	vc->error = VERIFYCHECK_TROUBLE;
	vsnprintf(vc->err, sizeof vc->err, fmt, ap);
	n = strlen(vc->err);
	if (errnum != 0)
		snprintf(vc->err + n, sizeof vc->err - n, ": %s", strerror(errnum));
	return -1;
}

int verifycheck_trouble(struct verifycheck *vc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trouble(vc, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int verifycheck_trouble_errno(struct verifycheck *vc, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trouble(vc, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

int verifycheck_nomem(struct verifycheck *vc)
{
	if (vc->error == VERIFYCHECK_RUNNING) {
		vc->error = VERIFYCHECK_NOMEM;
		snprintf(vc->err, sizeof vc->err, "out of memory");
	}
	return -1;
}

int verifycheck_report_error(struct verifycheck *vc, const char *path,
			     const struct trstream_error *e)
{
	if (e->kind == TRSTREAM_ERR_NOMEM)
		return verifycheck_nomem(vc);
	if (e->msg[0] == '\0')
		return verifycheck_trouble_errno(vc, e->errnum, "%s", path);
	return verifycheck_trouble_errno(vc, e->kind == TRSTREAM_ERR_SYSTEM ? e->errnum : 0,
					 "%s: %s", path, e->msg);
}

void verifycheck_stop_after(struct verifycheck *vc, int id)
{
	vc->stop = id + 1;
}

/* Whether the reports show check c. */
static int shown_check(const struct verifycheck *vc, int c)
{
	return vc->item[c].ran && (vc->stop == 0 || c < vc->stop);
}

int verifycheck_verified(const struct verifycheck *vc)
{
	int c;

	for (c = 0; c < VERIFYCHECK_N; c++)
		if (vc->item[c].ran && vc->item[c].failures)
			return 0;
	return 1;
}

uint64_t verifycheck_failures(const struct verifycheck *vc)
{
	uint64_t n = 0;
	int c;

	for (c = 0; c < VERIFYCHECK_N; c++)
		n += vc->item[c].failures;
	return n;
}

int verifycheck_text(const struct verifycheck *vc, struct buf *b)
{
	int c, rc = 0;

	for (c = 0; c < VERIFYCHECK_N; c++) {
		const struct verifycheck_item *k = &vc->item[c];
		if (!shown_check(vc, c))
			continue;
		rc |= buf_printf(b, "%-16s %s: %s\n", k->name, k->failures ? "FAILED" : "ok",
				 k->figures.p);
		if (k->failures) {
			const char *p, *nl;
			for (p = k->shown.p; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
				rc |= buf_printf(b, "  %.*s\n", (int)(nl - p), p);
			rc |= buf_printf(b, "  %s\n", p);
			if (k->failures > k->nshown)
				rc |= buf_printf(b, "  ... %" PRIu64 " failures in all\n", k->failures);
		}
	}
	rc |= buf_printf(b, "%s\n", verifycheck_verified(vc) ? "verified" :
			 "NOT VERIFIED: do not use this output");
	return rc ? -1 : 0;
}

int verifycheck_json(const struct verifycheck *vc, struct buf *b)
{
	int c, rc = 0, first = 1;

	rc |= buf_addstr(b, "{\"checks\":[");
	for (c = 0; c < VERIFYCHECK_N; c++) {
		const struct verifycheck_item *k = &vc->item[c];
		const char *p, *shown = k->shown.p;
		if (!shown_check(vc, c))
			continue;
		if (!first)
			rc |= buf_addch(b, ',');
		first = 0;
		rc |= buf_addstr(b, "{\"name\":");
		rc |= json_escape(b, k->name, strlen(k->name));
		rc |= buf_printf(b, ",\"ok\":%s,\"figures\":", k->failures ? "false" : "true");
		rc |= json_escape(b, k->figures.p, k->figures.len);
		rc |= buf_printf(b, ",\"failures\":%" PRIu64 ",\"first_failures\":[", k->failures);
		for (p = shown; *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			if (p != shown)
				rc |= buf_addch(b, ',');
			rc |= json_escape(b, p, n);
			p += n + (nl != NULL);
		}
		rc |= buf_addstr(b, "]}");
	}
	rc |= buf_printf(b, "],\"verified\":%s}\n", verifycheck_verified(vc) ? "true" : "false");
	return rc ? -1 : 0;
}
