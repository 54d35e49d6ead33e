#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blockq.h"

int blockq_init(struct blockq *q, size_t block_size)
{
	unsigned i;

	memset(q, 0, sizeof *q);
	q->block_size = block_size;
	for (i = 0; i < BLOCKQ_BLOCKS; i++)
		if ((q->block[i] = malloc(block_size)) == NULL)
			goto fail;
	if (pthread_mutex_init(&q->mu, NULL) != 0)
		goto fail;
	if (pthread_cond_init(&q->changed, NULL) != 0) {
		pthread_mutex_destroy(&q->mu);
		goto fail;
	}
	return 0;
fail:
	for (i = 0; i < BLOCKQ_BLOCKS; i++)
		free(q->block[i]);
	memset(q, 0, sizeof *q);
	return -1;
}

void blockq_free(struct blockq *q)
{
	unsigned i;

	if (q->block_size == 0)
		return;
	pthread_cond_destroy(&q->changed);
	pthread_mutex_destroy(&q->mu);
	for (i = 0; i < BLOCKQ_BLOCKS; i++)
		free(q->block[i]);
	memset(q, 0, sizeof *q);
}

int blockq_put(struct blockq *q, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		size_t k = n < q->block_size ? n : q->block_size;
		unsigned slot;

		pthread_mutex_lock(&q->mu);
		while (q->count == BLOCKQ_BLOCKS && !q->cancelled)
			pthread_cond_wait(&q->changed, &q->mu);
		if (q->cancelled) {
			pthread_mutex_unlock(&q->mu);
			errno = EPIPE;
			return -1;
		}
		slot = (q->first + q->count) % BLOCKQ_BLOCKS;
		pthread_mutex_unlock(&q->mu);
		/* the slot is the producer's until counted in */
		memcpy(q->block[slot], p, k);
		q->len[slot] = k;
		pthread_mutex_lock(&q->mu);
		q->count++;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->mu);
		p += k;
		n -= k;
	}
	return 0;
}

void blockq_close(struct blockq *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = 1;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
}

long blockq_take(struct blockq *q, void *dst, size_t n)
{
	unsigned slot;
	size_t k;

	pthread_mutex_lock(&q->mu);
	while (q->count == 0 && !q->closed)
		pthread_cond_wait(&q->changed, &q->mu);
	if (q->count == 0) {
		pthread_mutex_unlock(&q->mu);
		return 0;
	}
	slot = q->first;
	pthread_mutex_unlock(&q->mu);
	/* the first block is the consumer's until given back */
	k = q->len[slot] - q->taken;
	if (k > n)
		k = n;
	memcpy(dst, q->block[slot] + q->taken, k);
	q->taken += k;
	if (q->taken == q->len[slot]) {
		pthread_mutex_lock(&q->mu);
		q->first = (q->first + 1) % BLOCKQ_BLOCKS;
		q->count--;
		q->taken = 0;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->mu);
	}
	return (long)k;
}

void blockq_cancel(struct blockq *q)
{
	pthread_mutex_lock(&q->mu);
	q->cancelled = 1;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
}
