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

/* ---- reading: reports and records (tr-verify) ------------------------- */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int trstream_report_open(struct trstream_report *r, const char *path, struct trstream_error *e)
{
	struct stat sb;

	memset(e, 0, sizeof *e);
	r->pos = 0;
	/* O_NONBLOCK: opening a FIFO must not wait */
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &sb) != 0) {
		e->kind = TRSTREAM_ERR_SYSTEM;
		e->errnum = errno;
		if (r->fd >= 0)
			close(r->fd);
		r->fd = -1;
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		e->kind = TRSTREAM_ERR_INPUT;
		snprintf(e->msg, sizeof e->msg, "not a regular file (a report is the file "
			 "tr-encode writes beside its output)");
		close(r->fd);
		r->fd = -1;
		return -1;
	}
	return 0;
}

long trstream_report_read(void *ctx, void *dst, size_t n)
{
	struct trstream_report *f = ctx;
	ssize_t got;

	do
		got = pread(f->fd, dst, n, (off_t)f->pos);
	while (got < 0 && errno == EINTR);
	if (got > 0)
		f->pos += (uint64_t)got;
	return got;
}

/* Fill e for scan status rc at offset base + s->err_offset. */
static int report_error(struct trstream_error *e, const struct scan *s, int rc, uint64_t base,
			const char *what)
{
	int saved = errno;

	memset(e, 0, sizeof *e);
	if (rc == SCAN_READ) {
		e->kind = TRSTREAM_ERR_SYSTEM;
		e->errnum = saved;
		snprintf(e->msg, sizeof e->msg, "read");
	} else if (rc == SCAN_NOMEM) {
		e->kind = TRSTREAM_ERR_NOMEM;
	} else if (rc == SCAN_TOO_BIG) {
		e->kind = TRSTREAM_ERR_INPUT;
		snprintf(e->msg, sizeof e->msg, "byte %" PRIu64 ": %s", base + s->err_offset, what);
	} else {
		e->kind = TRSTREAM_ERR_INPUT;
		snprintf(e->msg, sizeof e->msg, "not a JSON object: byte %" PRIu64 ": %s",
			 base + s->err_offset, rc == SCAN_OK ? what : s->err);
	}
	return -1;
}

/* Consume byte c next (after whitespace): 0, or -1 with e set. */
static int report_expect(struct scan *s, uint64_t base, int c, const char *what,
			 struct trstream_error *e)
{
	int got = scan_peek(s);

	if (got < -1)
		return report_error(e, s, SCAN_READ, base, what);
	if (got != c) {
		s->err_offset = scan_offset(s);
		return report_error(e, s, SCAN_OK, base, what);
	}
	scan_skip(s);
	return 0;
}

/* The rows of the array: counted, each at most TRSTREAM_REPORT_MAX_ROW. */
static int count_rows(struct scan *s, struct buf *row, uint64_t *nrows, struct trstream_error *e)
{
	int rc;

	if (scan_peek(s) == ']') {
		scan_skip(s);
		return 0;
	}
	for (;;) {
		buf_reset(row);
		s->max_value = TRSTREAM_REPORT_MAX_ROW;
		rc = scan_value(s, row);
		s->max_value = TRSTREAM_REPORT_MAX_HEAD;
		if (rc != SCAN_OK)
			return report_error(e, s, rc, 0, "a layers row larger than "
					    TRSTREAM_REPORT_MAX_ROW_TEXT);
		++*nrows;
		if (scan_peek(s) == ']') {
			scan_skip(s);
			return 0;
		}
		if (report_expect(s, 0, ',', "expected ',' or ']'", e) != 0)
			return -1;
	}
}

static int read_head(struct scan *s, const char *rows_key, struct buf *head, struct buf *key,
		     struct buf *row, uint64_t *rows_at, uint64_t *nrows, struct trstream_error *e)
{
	size_t klen = strlen(rows_key);
	int c, rc;

	if (report_expect(s, 0, '{', "expected an object", e) != 0)
		return -1;
	buf_addch(head, '{');
	if (scan_peek(s) == '}') {
		scan_skip(s);
	} else {
		for (;;) {
			buf_reset(key);
			if ((rc = scan_string(s, key)) != SCAN_OK)
				return report_error(e, s, rc, 0, "a member name too long");
			if (report_expect(s, 0, ':', "expected ':'", e) != 0)
				return -1;
			if (key->len == klen && memcmp(key->p, rows_key, klen) == 0 &&
			    scan_peek(s) == '[') {
				scan_skip(s);
				*rows_at = scan_offset(s);
				if (count_rows(s, row, nrows, e) != 0)
					return -1;
			} else {
				if (head->len > 1)
					buf_addch(head, ',');
				buf_add(head, key->p, key->len);
				buf_addch(head, ':');
				if ((rc = scan_value(s, head)) != SCAN_OK)
					return report_error(e, s, rc, 0, "the members besides the "
							    "layers rows exceed "
							    TRSTREAM_REPORT_MAX_HEAD_TEXT ", the most "
							    "tr-verify reads of a report");
			}
			if (scan_peek(s) == '}') {
				scan_skip(s);
				break;
			}
			if (report_expect(s, 0, ',', "expected ',' or '}'", e) != 0)
				return -1;
		}
	}
	if ((c = scan_peek(s)) != -1) {
		s->err_offset = scan_offset(s);
		return report_error(e, s, c < -1 ? SCAN_READ : SCAN_OK, 0, "text after the object");
	}
	if (buf_addch(head, '}') != 0) {
		e->kind = TRSTREAM_ERR_NOMEM;
		return -1;
	}
	return 0;
}

int trstream_report_head(struct trstream_report *r, const char *rows_key, struct buf *head,
			 uint64_t *rows_at, uint64_t *nrows, struct trstream_error *e)
{
	struct trstream_report from = { r->fd, 0 };
	struct scan s;
	struct buf key = BUF_INIT, row = BUF_INIT;
	int rc;

	memset(e, 0, sizeof *e);
	*nrows = 0;
	*rows_at = 0;
	if (scan_init(&s, trstream_report_read, &from, TRSTREAM_REPORT_MAX_HEAD) != 0) {
		e->kind = TRSTREAM_ERR_NOMEM;
		return -1;
	}
	rc = read_head(&s, rows_key, head, &key, &row, rows_at, nrows, e);
	scan_free(&s);
	buf_release(&key);
	buf_release(&row);
	return rc;
}

int trstream_rows_open(struct trstream_rows *r, int fd, uint64_t at, uint64_t count)
{
	r->file.fd = fd;
	r->file.pos = at;
	r->at = at;
	r->count = count;
	r->read = 0;
	r->open = 0;
	r->row = (struct buf)BUF_INIT;
	if (count > 0) {
		if (scan_init(&r->scan, trstream_report_read, &r->file, TRSTREAM_REPORT_MAX_ROW) != 0)
			return -1;
		r->open = 1;
	}
	return 0;
}

int trstream_rows_next(struct trstream_rows *r, struct trstream_error *e)
{
	int rc;

	memset(e, 0, sizeof *e);
	if (!r->open || r->read == r->count)
		return 0;
	if (r->read > 0 && report_expect(&r->scan, r->at, ',', "expected ','", e) != 0)
		return -1;
	buf_reset(&r->row);
	if ((rc = scan_value(&r->scan, &r->row)) != SCAN_OK)
		return report_error(e, &r->scan, rc, r->at, "a layers row larger than "
				    TRSTREAM_REPORT_MAX_ROW_TEXT);
	r->read++;
	return 1;
}

void trstream_rows_free(struct trstream_rows *r)
{
	if (r->open)
		scan_free(&r->scan);
	r->open = 0;
	buf_release(&r->row);
}

int trstream_report_whole(struct trstream_report *r, uint64_t max, int check_size,
			  struct buf *text, struct trstream_error *e)
{
	struct stat sb;
	char chunk[65536];
	ssize_t n;

	memset(e, 0, sizeof *e);
	if (check_size) {
		if (fstat(r->fd, &sb) != 0) {
			e->kind = TRSTREAM_ERR_SYSTEM;
			e->errnum = errno;
			return -1;
		}
		if ((uint64_t)sb.st_size > max) {
			e->kind = TRSTREAM_ERR_TOO_BIG;
			e->size = (uint64_t)sb.st_size;
			return -1;
		}
	}
	while ((n = read(r->fd, chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e->kind = TRSTREAM_ERR_SYSTEM;
			e->errnum = errno;
			return -1;
		}
		if (text->len + (size_t)n > max) {
			e->kind = TRSTREAM_ERR_TOO_BIG;
			return -1;
		}
		if (buf_add(text, chunk, (size_t)n) != 0) {
			e->kind = TRSTREAM_ERR_NOMEM;
			return -1;
		}
	}
	/* tolerate the final newline (and indentation) */
	while (text->len > 0 && (text->p[text->len - 1] == '\n' || text->p[text->len - 1] == ' '))
		text->len--;
	return 0;
}

int trstream_record_members(struct jdoc *d, const char *line, size_t len, const char **raw,
			    size_t *n)
{
	int m;

	if (jdoc_parse(d, line, len, NULL) != 0 || (m = jdoc_find(d, 0, "members")) < 0)
		return -1;
	*raw = jdoc_raw(d, m, n);
	return 0;
}
