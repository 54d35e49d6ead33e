#include <errno.h>
#include <unistd.h>

#include "stream/filter.h"

static void write_failed(struct filter *f)
{
	if (f->write_errno == 0)
		f->write_errno = errno != 0 ? errno : EIO;
}

/* The reader's read: the shadow pipe settles what the stage has decided
 * about the lines read so far before more input comes in. */
static long fill(void *ctx, void *dst, size_t n)
{
	struct filter *f = ctx;

	if (f->write_errno == 0 && teepass_settle(&f->tee, &f->out, f->in.r.offset) != 0)
		write_failed(f);
	return teepass_read(&f->tee, f->in.r.fd, dst, n);
}

int filter_open(struct filter *f)
{
	f->write_errno = 0;
	f->table_out = 0;
	f->last = NULL;
	f->last_len = 0;
	f->last_offset = 0;
	if (stream_in_init(&f->in, STDIN_FILENO, STREAM_DEFAULT_MAX_LINE) != 0)
		return -1;
	if (writer_init(&f->out, STDOUT_FILENO) != 0) {
		stream_in_free(&f->in);
		return -1;
	}
	teepass_open(&f->tee, STDIN_FILENO, STDOUT_FILENO);
	f->in.r.fill = fill;
	f->in.r.fill_ctx = f;
	return 0;
}

/* The input ended early or carried the failed record: the lines decided
 * so far, then the failed record, so that the next stage knows why its
 * input ends and says nothing of it.  A stage writes whole lines between
 * two filter_next calls: the record starts a line. */
static void mark_failed(struct filter *f)
{
	static const char rec[] = STREAM_FAILED_RECORD "\n";

	if (f->write_errno != 0 || f->table_out)
		return;
	if (teepass_flush(&f->tee, &f->out) != 0 || writer_put(&f->out, rec, sizeof rec - 1) != 0 ||
	    writer_flush(&f->out) != 0)
		write_failed(f);
}

int filter_next(struct filter *f, const char **line, size_t *len)
{
	int kind;

	f->last = NULL;
	/* a reader that went away has heard enough: stop reading too */
	if (f->write_errno != 0)
		return LINE_ERROR;
	kind = stream_next(&f->in, line, len);
	if (kind == LINE_ERROR && (f->in.cut || f->in.upstream_failed))
		mark_failed(f);
	if (kind > LINE_END) {
		f->last = *line;
		f->last_len = *len;
		f->last_offset = f->in.r.offset - *len - 1;
	}
	return kind;
}

static int put(struct filter *f, const char *data, size_t n)
{
	if (f->write_errno != 0)
		return -1;
	if (teepass_flush(&f->tee, &f->out) != 0 || writer_put(&f->out, data, n) != 0) {
		write_failed(f);
		return -1;
	}
	return 0;
}

int filter_pass(struct filter *f, const char *line, size_t len)
{
	if (f->write_errno != 0)
		return -1;
	if (line == f->last && len == f->last_len) {
		int rc = teepass_pass(&f->tee, &f->out, f->last_offset,
				      f->last_offset + len + 1);
		if (rc < 0) {
			write_failed(f);
			return -1;
		}
		if (rc == 1)
			return 0;
	}
	/* the reader keeps the '\n' right after the line in its buffer */
	return put(f, line, len + 1);
}

int filter_put(struct filter *f, const char *line, size_t len)
{
	if (put(f, line, len) != 0)
		return -1;
	return put(f, "\n", 1);
}

int filter_close(struct filter *f)
{
	if (f->write_errno == 0 &&
	    (teepass_flush(&f->tee, &f->out) != 0 || writer_flush(&f->out) != 0))
		write_failed(f);
	teepass_close(&f->tee);
	if (close(STDOUT_FILENO) != 0 && f->write_errno == 0)
		f->write_errno = errno;
	writer_free(&f->out);
	stream_in_free(&f->in);
	return f->write_errno != 0 ? -1 : 0;
}
