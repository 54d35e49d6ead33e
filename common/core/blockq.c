#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/blockq.h"

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

char *blockq_room(struct blockq *q)
{
	char *room;

	pthread_mutex_lock(&q->mu);
	while (q->count == BLOCKQ_BLOCKS && !q->cancelled)
		pthread_cond_wait(&q->changed, &q->mu);
	if (q->cancelled) {
		pthread_mutex_unlock(&q->mu);
		errno = EPIPE;
		return NULL;
	}
	/* the slot is the producer's until counted in */
	room = q->block[(q->first + q->count) % BLOCKQ_BLOCKS];
	pthread_mutex_unlock(&q->mu);
	return room;
}

void blockq_commit(struct blockq *q, size_t n)
{
	pthread_mutex_lock(&q->mu);
	q->len[(q->first + q->count) % BLOCKQ_BLOCKS] = n;
	q->count++;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
}

void blockq_close(struct blockq *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = 1;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
}

size_t blockq_peek(struct blockq *q, const char **data)
{
	unsigned slot;

	pthread_mutex_lock(&q->mu);
	while (q->count == 0 && !q->closed && !q->cancelled)
		pthread_cond_wait(&q->changed, &q->mu);
	if (q->count == 0 || q->cancelled) {
		pthread_mutex_unlock(&q->mu);
		return 0;
	}
	slot = q->first;
	pthread_mutex_unlock(&q->mu);
	/* the first block is the consumer's until given back */
	*data = q->block[slot] + q->taken;
	return q->len[slot] - q->taken;
}

void blockq_advance(struct blockq *q, size_t n)
{
	q->taken += n;
	if (q->taken < q->len[q->first])
		return;
	pthread_mutex_lock(&q->mu);
	q->first = (q->first + 1) % BLOCKQ_BLOCKS;
	q->count--;
	q->taken = 0;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
}

void blockq_cancel(struct blockq *q)
{
	pthread_mutex_lock(&q->mu);
	q->cancelled = 1;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
}
