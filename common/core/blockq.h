/* blockq: a bounded queue of byte blocks from one thread to another, in
 * the place of a pipe where both ends are in one process (tr-verify's
 * decoders, tr-encode's compressor): two memcpy calls instead of write(2)
 * and read(2), which copy in the kernel and allocate and free a page for
 * every 4 KiB; none where an end fills or reads the blocks in place.
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

/* Producer: the next free block (block_size bytes, waiting
 * for one), or NULL with errno EPIPE once the consumer has cancelled; fill
 * it, then blockq_commit the bytes filled (1 to block_size). */
char *blockq_room(struct blockq *q);
void blockq_commit(struct blockq *q, size_t n);
/* Producer: no more bytes will come. */
void blockq_close(struct blockq *q);

/* Consumer: the bytes of the first block not yet taken
 * (*data, valid until blockq_advance passes them), waiting for a block; 0
 * when the producer has closed and everything was taken.  blockq_advance
 * takes n of them (at most what blockq_peek gave). */
size_t blockq_peek(struct blockq *q, const char **data);
void blockq_advance(struct blockq *q, size_t n);
/* Either end: stop; a producer waiting for room, or putting later, gets
 * -1 (NULL); a consumer waiting for bytes, or taking later, gets 0. */
void blockq_cancel(struct blockq *q);

#endif
