/* blockq: a bounded queue of byte blocks from one thread to another, in
 * the place of a pipe where both ends are in one process (tr-verify's
 * decoders): two memcpy calls instead of write(2) and read(2), which copy
 * in the kernel and allocate and free a page for every 4 KiB.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_BLOCKQ_H
#define TR_BLOCKQ_H

#include <pthread.h>
#include <stddef.h>

#define BLOCKQ_BLOCKS 4   /* blocks in flight */

struct blockq {
	pthread_mutex_t mu;
	pthread_cond_t changed;   /* a block was put or taken, or an end came */
	char *block[BLOCKQ_BLOCKS];
	size_t len[BLOCKQ_BLOCKS];
	size_t block_size;
	unsigned first, count;    /* the blocks waiting: first, first + 1, ... */
	size_t taken;             /* bytes of the first block already taken */
	int closed;               /* the producer has put everything */
	int cancelled;            /* the consumer takes nothing more */
};

/* 0, or -1 when memory or a mutex cannot be had. */
int blockq_init(struct blockq *q, size_t block_size);
void blockq_free(struct blockq *q);

/* Producer: queue n bytes (waiting for room); 0, or -1 with errno EPIPE
 * once the consumer has cancelled. */
int blockq_put(struct blockq *q, const void *data, size_t n);
/* Producer: no more bytes will come. */
void blockq_close(struct blockq *q);

/* Consumer: up to n bytes into dst, waiting for some: the count, or 0
 * when the producer has closed and everything was taken. */
long blockq_take(struct blockq *q, void *dst, size_t n);
/* Consumer: stop; a producer waiting for room, or putting later, gets -1. */
void blockq_cancel(struct blockq *q);

#endif
