#include <errno.h>
#include <unistd.h>

#include "filter.h"

int filter_open(struct filter *f)
{
	f->write_errno = 0;
	if (stream_in_init(&f->in, STDIN_FILENO, STREAM_DEFAULT_MAX_LINE) != 0)
		return -1;
	if (writer_init(&f->out, STDOUT_FILENO) != 0) {
		stream_in_free(&f->in);
		return -1;
	}
	return 0;
}

int filter_next(struct filter *f, const char **line, size_t *len)
{
	/* a reader that went away has heard enough: stop reading too */
	if (f->write_errno != 0)
		return LINE_ERROR;
	return stream_next(&f->in, line, len);
}

static int put(struct filter *f, const char *data, size_t n)
{
	if (f->write_errno != 0)
		return -1;
	if (writer_put(&f->out, data, n) != 0) {
		f->write_errno = errno != 0 ? errno : EIO;
		return -1;
	}
	return 0;
}

int filter_pass(struct filter *f, const char *line, size_t len)
{
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
	if (f->write_errno == 0 && writer_flush(&f->out) != 0)
		f->write_errno = errno != 0 ? errno : EIO;
	if (close(STDOUT_FILENO) != 0 && f->write_errno == 0)
		f->write_errno = errno;
	writer_free(&f->out);
	stream_in_free(&f->in);
	return f->write_errno != 0 ? -1 : 0;
}
