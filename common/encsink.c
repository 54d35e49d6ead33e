/* encsink: see encsink.h. */
#include <errno.h>
#include <string.h>

#include "encsink.h"

static int put_compressed(void *ctx, const void *data, size_t n)
{
	return writer_put(ctx, data, n);
}

static int gz_status(int rc)
{
	if (rc == GZ_OK)
		return ENCSINK_OK;
	return rc == GZ_WRITE ? ENCSINK_WRITE : rc == GZ_NOMEM ? ENCSINK_NOMEM : ENCSINK_GZIP;
}

int encsink_open(struct encsink *s, int fd, int gzip, int level)
{
	memset(s, 0, sizeof *s);
	if (writer_init(&s->w, fd) != 0)
		return ENCSINK_NOMEM;
	s->gzip = gzip;
	if (gzip && gzasync_start(&s->gz, level, put_compressed, &s->w) != 0) {
		s->gzip = 0;
		return errno == ENOMEM ? ENCSINK_NOMEM : ENCSINK_THREAD;
	}
	return ENCSINK_OK;
}

int encsink_put(struct encsink *s, const void *data, size_t n)
{
	if (s->gzip)
		return gz_status(gzasync_write(&s->gz, data, n));
	return writer_put(&s->w, data, n) != 0 ? ENCSINK_WRITE : ENCSINK_OK;
}

int encsink_finish(struct encsink *s)
{
	int rc = s->gzip ? gz_status(gzasync_finish(&s->gz)) : ENCSINK_OK;

	if (rc == ENCSINK_OK && writer_flush(&s->w) != 0)
		rc = ENCSINK_WRITE;
	return rc;
}

void encsink_stop(struct encsink *s)
{
	if (s->gzip)
		gzasync_stop(&s->gz);
}

const char *encsink_error(const struct encsink *s)
{
	return gzasync_error(&s->gz);
}

void encsink_free(struct encsink *s)
{
	if (s->gzip)
		gzasync_free(&s->gz);
	s->gzip = 0;
	writer_free(&s->w);
}

static int ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && strcmp(name + n - k, suffix) == 0;
}

int encsink_format_of(const char *name)
{
	return ends_with(name, ".pftrace") || ends_with(name, ".pftrace.gz") ? ENCSINK_PERFETTO :
	       ENCSINK_JSON;
}

int encsink_is_gz(const char *name)
{
	return ends_with(name, ".gz");
}
