#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stream/stream.h"

int stream_is_control(const char *line, size_t len)
{
	return len >= STREAM_PREFIX_LEN &&
	       memcmp(line, STREAM_CONTROL_PREFIX, STREAM_PREFIX_LEN) == 0;
}

int stream_is_kind(const char *line, size_t len, const char *kind)
{
	size_t k = strlen(kind);

	return stream_is_control(line, len) && len >= STREAM_PREFIX_LEN + k + 2 &&
	       line[STREAM_PREFIX_LEN] == '"' &&
	       memcmp(line + STREAM_PREFIX_LEN + 1, kind, k) == 0 &&
	       line[STREAM_PREFIX_LEN + 1 + k] == '"';
}

int stream_in_init(struct stream_in *in, int fd, size_t max_line)
{
	memset(in, 0, sizeof *in);
	return reader_init(&in->r, fd, max_line);
}

void stream_in_free(struct stream_in *in)
{
	reader_free(&in->r);
}

static int fail(struct stream_in *in, const char *what)
{
	snprintf(in->err, sizeof in->err, "%s", what);
	return LINE_ERROR;
}

static int fail_at(struct stream_in *in, const char *what)
{
	snprintf(in->err, sizeof in->err, "line %" PRIu64 ": %s", in->r.lineno, what);
	return LINE_ERROR;
}

/* The stage before said why it stopped: nothing more to say. */
static int upstream_failed(struct stream_in *in)
{
	in->upstream_failed = 1;
	in->err[0] = '\0';
	return LINE_ERROR;
}

int stream_next(struct stream_in *in, const char **line, size_t *len)
{
	int rc = reader_line(&in->r, line, len);

	switch (rc) {
	case READ_LINE:
		break;
	case READ_EOF:
		if (!in->seen_head) {
			in->cut = 1;
			return fail(in, "empty input: no stream (an earlier stage failed, or this "
				    "is not tr-decode output)");
		}
		if (!in->seen_tail) {
			in->cut = 1;
			return fail(in, "truncated stream: input ended before the tail record "
				    "(an earlier stage failed or the stream was cut)");
		}
		return LINE_END;
	case READ_ERROR:
		in->read_errno = errno ? errno : EIO;
		snprintf(in->err, sizeof in->err, "read error: %s", strerror(in->read_errno));
		return LINE_ERROR;
	case READ_TOO_LONG:
		/* the reader has not counted the line it refused */
		snprintf(in->err, sizeof in->err, "line %" PRIu64 ": line longer than the "
			 "maximum line length (%zu bytes)", in->r.lineno + 1, in->r.max_line);
		return LINE_ERROR;
	case READ_PARTIAL:
		in->cut = 1;
		return fail(in, "truncated stream: input ended inside a line (an earlier stage "
			    "failed or the stream was cut)");
	default:
		in->read_errno = ENOMEM;
		return fail(in, "out of memory");
	}
	if (in->seen_tail)
		return fail_at(in, "data after the tail record");
	if (!in->seen_head) {
		if (stream_is_kind(*line, *len, STREAM_FAILED_KIND))
			return upstream_failed(in);
		if (!stream_is_kind(*line, *len, "head"))
			return fail_at(in, "not a trace-layers stream: the first line is not a "
				       "head record (is this tr-decode output?)");
		in->seen_head = 1;
		return LINE_HEAD;
	}
	if (*len == 0)
		return fail_at(in, "empty line");
	if (!stream_is_control(*line, *len)) {
		if ((*line)[0] != '{' || (*line)[*len - 1] != '}')
			return fail_at(in, "not a JSON object on one line");
		in->events++;
		return LINE_EVENT;
	}
	if (stream_is_kind(*line, *len, "tail")) {
		in->seen_tail = 1;
		return LINE_TAIL;
	}
	if (stream_is_kind(*line, *len, STREAM_FAILED_KIND))
		return upstream_failed(in);
	if (stream_is_kind(*line, *len, "head"))
		return fail_at(in, "a second head record (two streams concatenated?)");
	return LINE_CONTROL;
}
