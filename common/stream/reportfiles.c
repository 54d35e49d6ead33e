#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/event.h"
#include "core/io.h"
#include "stream/reportfiles.h"

/* The message of a failure: msg replaced by the formatted text. */
static int fail(struct buf *msg, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct buf *msg, int status, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	buf_reset(msg);
	if (buf_addstr(msg, text) != 0)
		return REPORTFILES_NOMEM;
	return status;
}

/* "PATH: strerror(errno)", or out of memory for ENOMEM from a layout. */
static int fail_errno(struct buf *msg, const char *path)
{
	int err = errno;

	return fail(msg, REPORTFILES_TROUBLE, "%s: %s", path, strerror(err));
}

static int put_report(void *ctx, const void *data, size_t n)
{
	return io_write_all(((struct reportfile_out *)ctx)->fd, data, n);
}

void reportfiles_init(struct reportfiles *rs, const char *base, unsigned indent)
{
	memset(rs, 0, sizeof *rs);
	rs->base = base;
	rs->indent = indent;
}

static int suffix_ok(const char *s, size_t n)
{
	size_t i;

	if (n < 2 || n > 64 || s[0] != '.')
		return 0;
	for (i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '.' || s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

/* The report of suffix, added when new; NULL for too many (msg set) or
 * out of memory (*rc tells). */
static struct reportfile *report_for(struct reportfiles *rs, const char *suffix, size_t len,
				     struct buf *msg, int *rc)
{
	struct reportfile *list, *r;
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (strlen(rs->list[i].suffix) == len && memcmp(rs->list[i].suffix, suffix, len) == 0)
			return &rs->list[i];
	if (rs->n == REPORTFILES_MAX) {
		*rc = fail(msg, REPORTFILES_INPUT, "more than %d report files requested",
			   REPORTFILES_MAX);
		return NULL;
	}
	*rc = REPORTFILES_NOMEM;
	if ((list = realloc(rs->list, (rs->n + 1) * sizeof *list)) == NULL)
		return NULL;
	rs->list = list;
	r = &list[rs->n];
	memset(r, 0, sizeof *r);
	if ((r->suffix = buf_memdup(suffix, len)) == NULL)
		return NULL;
	r->members = (struct buf)BUF_INIT;
	r->file.fd = -1;
	rs->n++;
	return r;
}

static int report_write(struct reportfile *r, const char *text, size_t n, struct buf *msg)
{
	if (indent_write(&r->out->layout, text, n) != 0)
		return errno == ENOMEM ? REPORTFILES_NOMEM : fail_errno(msg, r->file.path);
	return REPORTFILES_OK;
}

/* Open the report's temporary file and write its object up to, not
 * including, the closing brace: the body (or "{"), then pending members. */
static int report_start(struct reportfiles *rs, struct reportfile *r, const char *body,
			size_t blen, struct buf *msg)
{
	struct buf path = BUF_INIT;
	int rc;

	if (buf_addstr(&path, rs->base) != 0 || buf_addstr(&path, r->suffix) != 0) {
		buf_release(&path);
		return REPORTFILES_NOMEM;
	}
	if (outfile_open(&r->file, path.p) != 0) {
		if (errno == ENOMEM)
			rc = REPORTFILES_NOMEM;
		else if (errno == EEXIST)
			rc = fail(msg, REPORTFILES_TROUBLE,
				  "%s: report exists; refusing to overwrite it", path.p);
		else
			rc = fail_errno(msg, path.p);
		buf_release(&path);
		return rc;
	}
	buf_release(&path);
	if ((r->out = malloc(sizeof *r->out)) == NULL)
		return REPORTFILES_NOMEM;
	r->out->fd = r->file.fd;
	indent_init(&r->out->layout, rs->indent, put_report, r->out);
	/* tr-compact's retired metadata events are the source's exact text */
	r->out->layout.verbatim_key = "event";
	if (body != NULL) {
		if ((rc = report_write(r, body, blen - 1, msg)) != 0)
			return rc;
		r->need_comma = blen > 2;
	} else if ((rc = report_write(r, "{", 1, msg)) != 0) {
		return rc;
	}
	if (r->members.len) {
		if ((r->need_comma && (rc = report_write(r, ",", 1, msg)) != 0) ||
		    (rc = report_write(r, r->members.p, r->members.len, msg)) != 0)
			return rc;
		r->need_comma = 1;
		buf_release(&r->members);
	}
	return REPORTFILES_OK;
}

/* Close the array member that items were appended to, if one is open. */
static int close_array(struct reportfile *r, struct buf *msg)
{
	int rc;

	if (r->open_array == NULL)
		return REPORTFILES_OK;
	if ((rc = report_write(r, "]", 1, msg)) != 0)
		return rc;
	if (intern_id(&r->closed, r->open_array, strlen(r->open_array)) < 0)
		return REPORTFILES_NOMEM;
	free(r->open_array);
	r->open_array = NULL;
	return REPORTFILES_OK;
}

/* Items [a,b,...] appended to array member name (raw, with quotes): the
 * first record opens the member, later ones continue it. */
static int append_items(struct reportfile *r, const struct member *name,
			const struct member *items, uint64_t lineno, struct buf *msg)
{
	const char *inner = items->p + 1;
	size_t n = items->len - 2;
	int rc;

	if (!r->has_body)
		return fail(msg, REPORTFILES_INPUT, "line %llu: report items for %s before its body",
			    (unsigned long long)lineno, r->suffix);
	if (r->open_array == NULL || strlen(r->open_array) != name->len ||
	    memcmp(r->open_array, name->p, name->len) != 0) {
		if ((rc = close_array(r, msg)) != 0)
			return rc;
		if (intern_find(&r->closed, name->p, name->len) >= 0) /* it would be given twice */
			return fail(msg, REPORTFILES_INPUT, "line %llu: report items for member "
				    "%.*s of %s after another member came between",
				    (unsigned long long)lineno, (int)name->len, name->p, r->suffix);
		if ((r->need_comma && (rc = report_write(r, ",", 1, msg)) != 0) ||
		    (rc = report_write(r, name->p, name->len, msg)) != 0 ||
		    (rc = report_write(r, ":[", 2, msg)) != 0)
			return rc;
		r->need_comma = 1;
		if ((r->open_array = buf_memdup(name->p, name->len)) == NULL)
			return REPORTFILES_NOMEM;
		r->array_has_items = 0;
	}
	if (n == 0)
		return REPORTFILES_OK;
	if ((r->array_has_items && (rc = report_write(r, ",", 1, msg)) != 0) ||
	    (rc = report_write(r, inner, n, msg)) != 0)
		return rc;
	r->array_has_items = 1;
	return REPORTFILES_OK;
}

/* A report record's members are found with one walk over the line, not by
 * tokenizing it: a layers report has tokens for every layer's row. */
int reportfiles_collect(struct reportfiles *rs, const char *line, size_t len,
			uint64_t lineno, struct buf *msg)
{
	static const char *const keys[] = { "suffix", "member", "body", "items" };
	struct member m[4];
	struct reportfile *r;
	int rc;

	event_members(line, len, keys, 4, m);
	/* a body is an object; a member's value ("body") anything; items an array */
	if (m[0].len < 2 || m[0].p[0] != '"' ||
	    (m[1].p != NULL && (m[1].len < 2 || m[1].p[0] != '"')) ||
	    (m[3].p == NULL ? m[2].len < 1 || (m[1].p == NULL && m[2].p[0] != '{')
			    : m[2].p != NULL || m[1].p == NULL || m[3].len < 2 || m[3].p[0] != '['))
		return fail(msg, REPORTFILES_INPUT, "line %llu: a report record needs a string "
			    "\"suffix\" and an object \"body\", or a \"member\" and its value "
			    "(\"body\") or an array \"items\"", (unsigned long long)lineno);
	if (!suffix_ok(m[0].p + 1, m[0].len - 2))
		return fail(msg, REPORTFILES_INPUT, "line %llu: report suffix must look like "
			    ".name.json (lowercase letters, digits, '.', '-', '_')",
			    (unsigned long long)lineno);
	if ((r = report_for(rs, m[0].p + 1, m[0].len - 2, msg, &rc)) == NULL)
		return rc;
	if (m[3].p != NULL)
		return append_items(r, &m[1], &m[3], lineno, msg);
	if ((rc = close_array(r, msg)) != 0)
		return rc;
	if (m[1].p == NULL) {
		if (r->has_body)
			return fail(msg, REPORTFILES_INPUT, "line %llu: a second report body for %s",
				    (unsigned long long)lineno, r->suffix);
		r->has_body = 1;
		return report_start(rs, r, m[2].p, m[2].len, msg);
	}
	if (r->has_body) {
		if ((r->need_comma && (rc = report_write(r, ",", 1, msg)) != 0) ||
		    (rc = report_write(r, m[1].p, m[1].len, msg)) != 0 ||
		    (rc = report_write(r, ":", 1, msg)) != 0 ||
		    (rc = report_write(r, m[2].p, m[2].len, msg)) != 0)
			return rc;
		r->need_comma = 1;
		return REPORTFILES_OK;
	}
	if ((r->members.len && buf_addch(&r->members, ',') != 0) ||
	    buf_add(&r->members, m[1].p, m[1].len) != 0 || buf_addch(&r->members, ':') != 0 ||
	    buf_add(&r->members, m[2].p, m[2].len) != 0)
		return REPORTFILES_NOMEM;
	return REPORTFILES_OK;
}

int reportfiles_finish(struct reportfiles *rs, struct buf *msg)
{
	size_t i;
	int rc;

	for (i = 0; i < rs->n; i++) {
		struct reportfile *r = &rs->list[i];
		if ((!r->has_body && (rc = report_start(rs, r, NULL, 0, msg)) != 0) ||
		    (rc = close_array(r, msg)) != 0 || (rc = report_write(r, "}\n", 2, msg)) != 0)
			return rc;
		if (indent_flush(&r->out->layout) != 0)
			return errno == ENOMEM ? REPORTFILES_NOMEM : fail_errno(msg, r->file.path);
	}
	return REPORTFILES_OK;
}

void reportfiles_free(struct reportfiles *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		struct reportfile *r = &rs->list[i];
		outfile_abort(&r->file);
		free(r->suffix);
		free(r->open_array);
		buf_release(&r->members);
		intern_free(&r->closed);
		if (r->out != NULL)
			indent_free(&r->out->layout);
		free(r->out);
	}
	free(rs->list);
	memset(rs, 0, sizeof *rs);
}
