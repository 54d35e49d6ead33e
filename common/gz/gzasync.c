#include <errno.h>
#include <string.h>

#include "gz/gzasync.h"
#include "core/io.h"

static void *compress_main(void *arg)
{
	struct gzasync *a = arg;
	const char *data;
	size_t n;
	int rc = GZ_OK;

	while ((n = blockq_peek(&a->q, &data)) > 0) {
		rc = gz_write(a->gz, data, n);
		blockq_advance(&a->q, n);
		if (rc != GZ_OK)
			break;
	}
	/* blockq_peek took the queue's lock after gzasync_stop set the flag */
	if (rc == GZ_OK && !a->abandoned)
		rc = gz_finish(a->gz);
	a->status = rc;
	a->err = errno;
	/* a failure: the producer, waiting for room or putting later, stops */
	if (rc != GZ_OK)
		blockq_cancel(&a->q);
	return NULL;
}

int gzasync_start(struct gzasync *a, int level, gz_put_fn put, void *ctx)
{
	int rc;

	memset(a, 0, sizeof *a);
	if (blockq_init(&a->q, IO_WRITE_BLOCK) != 0) {
		errno = ENOMEM;
		return -1;
	}
	if ((a->gz = gz_out_new(level, put, ctx)) == NULL) {
		blockq_free(&a->q);
		errno = ENOMEM;
		return -1;
	}
	if ((rc = pthread_create(&a->thread, NULL, compress_main, a)) != 0) {
		gz_out_free(a->gz);
		blockq_free(&a->q);
		memset(a, 0, sizeof *a);
		errno = rc;
		return -1;
	}
	a->running = 1;
	return 0;
}

static void join(struct gzasync *a)
{
	if (a->running) {
		pthread_join(a->thread, NULL);
		a->running = 0;
	}
}

/* The compressor's failure, once it has stopped. */
static int stopped(struct gzasync *a)
{
	join(a);
	errno = a->err;
	return a->status != GZ_OK ? a->status : GZ_FAIL;
}

int gzasync_write(struct gzasync *a, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		size_t k;
		if (a->room == NULL) {
			if (!a->running || (a->room = blockq_room(&a->q)) == NULL)
				return stopped(a);
			a->filled = 0;
		}
		k = a->q.block_size - a->filled;
		if (k > n)
			k = n;
		memcpy(a->room + a->filled, p, k);
		a->filled += k;
		p += k;
		n -= k;
		if (a->filled == a->q.block_size) {
			blockq_commit(&a->q, a->filled);
			a->room = NULL;
		}
	}
	return GZ_OK;
}

int gzasync_finish(struct gzasync *a)
{
	if (!a->running)
		return stopped(a);
	if (a->room != NULL && a->filled > 0)
		blockq_commit(&a->q, a->filled);
	a->room = NULL;
	blockq_close(&a->q);
	join(a);
	errno = a->err;
	return a->status;
}

void gzasync_stop(struct gzasync *a)
{
	if (!a->running)
		return;
	a->abandoned = 1;
	blockq_cancel(&a->q);
	join(a);
}

const char *gzasync_error(const struct gzasync *a)
{
	return gz_out_error(a->gz);
}

void gzasync_free(struct gzasync *a)
{
	gzasync_stop(a);
	gz_out_free(a->gz);
	blockq_free(&a->q);
	memset(a, 0, sizeof *a);
}
