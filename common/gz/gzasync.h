/* gzasync: one gzip member (gz.h) deflated by a thread of its own, so that
 * compressing, most of tr-encode's work on a .gz OUTPUT, runs beside the
 * thread that makes the bytes instead of after it.  The producer's bytes go
 * into the blocks of a blockq; the compressor thread deflates each block
 * and hands the compressed bytes to put, in its own thread.  The member is
 * byte for byte the one gz_write and gz_finish make in one thread given
 * the same blocks (IO_WRITE_BLOCK bytes each, the last one shorter).
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  Statuses are gz.h's. */
#ifndef TR_GZASYNC_H
#define TR_GZASYNC_H

#include <pthread.h>
#include <stddef.h>

#include "core/blockq.h"
#include "gz/gz.h"

struct gzasync {
	struct blockq q;
	struct gz_out *gz;
	pthread_t thread;
	int running;         /* the thread was started and is not joined yet */
	int abandoned;       /* gzasync_stop: end without finishing the member */
	char *room;          /* the block being filled, or NULL */
	size_t filled;
	int status;          /* the compressor's gz.h status once it stopped */
	int err;             /* errno with a GZ_WRITE */
};

/* Start the compressor (level as gz_out_new); put receives the compressed
 * bytes in the compressor's thread, and the caller must not use put's
 * target until gzasync_finish or gzasync_stop returns.  0, or -1 with
 * errno set (ENOMEM, or pthread_create's error). */
int gzasync_start(struct gzasync *a, int level, gz_put_fn put, void *ctx);
/* Append n bytes: GZ_OK, or, once the compressor has stopped on a failure,
 * its status (errno restored for GZ_WRITE; the thread is joined). */
int gzasync_write(struct gzasync *a, const void *data, size_t n);
/* End the member, wait for the compressor: GZ_OK, or its failure as above. */
int gzasync_finish(struct gzasync *a);
/* Stop the compressor without ending the member (a process dying with a
 * partial output): it drops what is queued; returns once it has stopped.
 * Nothing when it is not running. */
void gzasync_stop(struct gzasync *a);
/* What a GZ_FAIL or GZ_NOMEM was (gz_out_error). */
const char *gzasync_error(const struct gzasync *a);
void gzasync_free(struct gzasync *a);

#endif
