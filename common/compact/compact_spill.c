/* fallocate(2) and FALLOC_FL_PUNCH_HOLE are Linux-specific */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compact/compact_spill.h"

#define RAW_BLOCK ((size_t)1 << 20)        /* compressed bytes per read(2) */
/* uncompressed bytes per read(2) or inflate: pass two reads the spill
 * while the plan holds its own buffers (a longer line doubles it) */
#define READ_BLOCK ((size_t)1 << 20)
#define RELEASE_STEP ((uint64_t)16 << 20)  /* pages given back in steps of this */

/* ISA-L's fastest level compresses JSON at several hundred MB/s, less CPU
 * than the page cache spends on the bytes it saves; zlib's does not. */
static int backend_is_fast(void)
{
	return strncmp(gz_backend(), "ISA-L", 5) == 0;
}

int compact_spill_init(struct compact_spill *s, int fd, int mode)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
	s->mode = mode == COMPACT_SPILL_AUTO && backend_is_fast() ? mode : COMPACT_SPILL_PLAIN;
	s->plain_max = COMPACT_SPILL_PLAIN_MAX;
	if (writer_init(&s->out, fd) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static int put_compressed(void *ctx, const void *data, size_t n)
{
	return writer_put(ctx, data, n);
}

/* gz.h's status as errno: a write keeps the writer's errno. */
static int gz_failed(struct compact_spill *s, int rc)
{
	if (rc == GZ_NOMEM)
		errno = ENOMEM;
	else if (rc != GZ_WRITE)
		errno = EIO;
	if (rc != GZ_WRITE && s->gz != NULL)
		snprintf(s->err, sizeof s->err, "compressing: %s", gz_out_error(s->gz));
	return -1;
}

int compact_spill_put(struct compact_spill *s, const void *data, size_t n)
{
	int rc;

	if (!s->gzip) {
		size_t plain = n;
		if (s->mode == COMPACT_SPILL_AUTO && s->spilled + n > s->plain_max)
			plain = (size_t)(s->plain_max - s->spilled);
		if (writer_put(&s->out, data, plain) != 0)
			return -1;
		s->spilled += plain;
		s->plain_len = s->spilled;
		if (plain == n)
			return 0;
		/* the rest of this spill is compressed */
		s->gz = gz_out_new(1, put_compressed, &s->out);
		if (s->gz == NULL) {
			errno = ENOMEM;
			return -1;
		}
		s->gzip = 1;
		data = (const char *)data + plain;
		n -= plain;
	}
	s->spilled += n;
	rc = gz_write(s->gz, data, n);
	return rc == GZ_OK ? 0 : gz_failed(s, rc);
}

int compact_spill_finish(struct compact_spill *s)
{
	int rc;

	if (s->gzip && (rc = gz_finish(s->gz)) != GZ_OK)
		return gz_failed(s, rc);
	if (writer_flush(&s->out) != 0)
		return -1;
	gz_out_free(s->gz);
	s->gz = NULL;
	writer_free(&s->out);
	s->finished = 1;
	return 0;
}

int compact_spill_rewind(struct compact_spill *s)
{
	if (lseek(s->fd, 0, SEEK_SET) != 0)
		return -1;
	s->file_offset = 0;
	s->start = s->end = 0;
	s->raw_start = s->raw_end = 0;
	s->eof = 0;
	if (s->buf == NULL) {
		s->cap = READ_BLOCK;
		s->buf = malloc(s->cap);
		if (s->buf == NULL) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (s->gzip) {
		gz_in_free(s->in);
		s->in = gz_in_new();
		if (s->raw == NULL) {
			s->raw_cap = RAW_BLOCK;
			s->raw = malloc(s->raw_cap);
		}
		if (s->in == NULL || s->raw == NULL) {
			errno = ENOMEM;
			return -1;
		}
	}
	return 0;
}

/* Give back the pages of fd below upto (whole steps) once they are read:
 * they would otherwise stay in the page cache, or be written to disk.
 * Where the file system cannot punch holes the spill stays until closed. */
static void release(struct compact_spill *s, uint64_t upto)
{
	upto -= upto % RELEASE_STEP;
	if (s->hold || upto <= s->released)
		return;
#ifdef FALLOC_FL_PUNCH_HOLE
	(void)fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)s->released,
			(off_t)(upto - s->released));
#endif
	s->released = upto;
}

static int read_failed(struct compact_spill *s, const char *what)
{
	snprintf(s->err, sizeof s->err, "%s", what);
	errno = EIO;
	return -1;
}

/* More uncompressed bytes at buf[end..cap): plain, read(2); gzip, inflate
 * what was read.  0 (s->eof set at the end) or -1. */
static int fill(struct compact_spill *s)
{
	if (!s->gzip || s->file_offset < s->plain_len) {
		size_t want = s->cap - s->end;
		long n;
		if (s->gzip && want > s->plain_len - s->file_offset)
			want = (size_t)(s->plain_len - s->file_offset);
		n = io_read_some(s->fd, s->buf + s->end, want);
		if (n < 0)
			return -1;
		if (n == 0)
			s->eof = 1;
		s->end += (size_t)n;
		s->file_offset += (uint64_t)n;
		release(s, s->file_offset);
		return 0;
	}
	for (;;) {
		size_t used, made;
		int rc;
		if (s->raw_start == s->raw_end) {
			long n = io_read_some(s->fd, s->raw, s->raw_cap);
			if (n < 0)
				return -1;
			if (n == 0) {
				if (gz_inflate_end(s->in) != GZ_END)
					return read_failed(s, "the spill ends early");
				s->eof = 1;
				return 0;
			}
			s->raw_start = 0;
			s->raw_end = (size_t)n;
			s->file_offset += (uint64_t)n;
		}
		rc = gz_inflate(s->in, s->raw + s->raw_start, s->raw_end - s->raw_start,
				(unsigned char *)s->buf + s->end, s->cap - s->end, &used, &made);
		if (rc == GZ_NOMEM) {
			errno = ENOMEM;
			return -1;
		}
		if (rc != GZ_OK)
			return read_failed(s, gz_in_error(s->in));
		s->raw_start += used;
		s->end += made;
		release(s, s->file_offset - (s->raw_end - s->raw_start));
		if (made > 0)
			return 0;
	}
}

int compact_spill_line(struct compact_spill *s, const char **line, size_t *len)
{
	size_t scanned = 0;

	for (;;) {
		char *from = s->buf + s->start + scanned;
		char *nl = memchr(from, '\n', s->end - s->start - scanned);
		if (nl != NULL) {
			*line = s->buf + s->start;
			*len = (size_t)(nl - *line);
			s->start += *len + 1;
			return 1;
		}
		scanned = s->end - s->start;
		if (s->eof) {
			if (scanned == 0)
				return 0;
			return read_failed(s, "the spill ends inside a line");
		}
		if (s->start > 0) {
			memmove(s->buf, s->buf + s->start, scanned);
			s->end = scanned;
			s->start = 0;
		}
		if (s->end == s->cap) {
			/* a line longer than the buffer: double it (the stream's own
			 * reader has bounded the line already) */
			size_t cap = s->cap * 2;
			char *p = cap > s->cap ? realloc(s->buf, cap) : NULL;
			if (p == NULL) {
				errno = ENOMEM;
				return -1;
			}
			s->buf = p;
			s->cap = cap;
		}
		if (fill(s) != 0)
			return -1;
	}
}

void compact_spill_hold(struct compact_spill *s, int on)
{
	s->hold = on;
}

void compact_spill_free(struct compact_spill *s)
{
	if (!s->finished)
		writer_free(&s->out);
	gz_out_free(s->gz);
	gz_in_free(s->in);
	free(s->raw);
	free(s->buf);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}
