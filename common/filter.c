#include <errno.h>
#include <unistd.h>

#include "diag.h"
#include "filter.h"

void filter_open(struct filter *f)
{
	if (stream_in_init(&f->in, STDIN_FILENO, STREAM_DEFAULT_MAX_LINE) != 0 ||
	    writer_init(&f->out, STDOUT_FILENO) != 0)
		die_nomem();
}

int filter_next(struct filter *f, const char **line, size_t *len)
{
	int rc = stream_next(&f->in, line, len);

	if (rc == LINE_ERROR)
		die(EXIT_INPUT, "stdin: %s", f->in.err);
	return rc;
}

void filter_pass(struct filter *f, const char *line, size_t len)
{
	/* the reader keeps the '\n' right after the line in its buffer */
	if (writer_put(&f->out, line, len + 1) != 0)
		die_write("standard output");
}

void filter_put(struct filter *f, const char *line, size_t len)
{
	if (writer_put(&f->out, line, len) != 0 || writer_put(&f->out, "\n", 1) != 0)
		die_write("standard output");
}

char *raw_copy(const struct jdoc *d, int tok)
{
	size_t n;
	const char *p;

	if (tok < 0)
		return NULL;
	p = jdoc_raw(d, tok, &n);
	return xmemdup(p, n);
}

char *head_source_name(struct jdoc *d, const char *line, size_t len)
{
	struct buf name = BUF_INIT;
	char *copy = NULL;
	int src;

	if (jdoc_parse(d, line, len, NULL) != 0)
		die(EXIT_INPUT, "malformed head record");
	src = jdoc_find(d, 0, "source");
	if (jdoc_type(d, src) == JT_STRING && jdoc_unescape(d, src, &name) == 0)
		copy = xmemdup(name.p, name.len);
	buf_release(&name);
	return copy;
}

void filter_close(struct filter *f)
{
	if (writer_flush(&f->out) != 0 || close(STDOUT_FILENO) != 0)
		die_write("standard output");
	writer_free(&f->out);
	stream_in_free(&f->in);
}

int filter_open_spill(const char *stage)
{
	const char *dir;
	int fd = io_open_spill(stage, &dir);

	if (fd < 0) {
		if (errno == ENOMEM)
			die_nomem();
		die_errno(EXIT_TROUBLE, "temporary file in %s", dir);
	}
	return fd;
}
