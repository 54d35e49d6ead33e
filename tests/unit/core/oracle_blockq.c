/* oracle_blockq: see tests/oracle.h. */
#include <string.h>

#include "../../oracle.h"

int blockq_put(struct blockq *q, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		size_t k = n < q->block_size ? n : q->block_size;
		char *room = blockq_room(q);

		if (room == NULL)
			return -1;
		memcpy(room, p, k);
		blockq_commit(q, k);
		p += k;
		n -= k;
	}
	return 0;
}

long blockq_take(struct blockq *q, void *dst, size_t n)
{
	const char *data;
	size_t k = blockq_peek(q, &data);

	if (k > n)
		k = n;
	if (k > 0) {
		memcpy(dst, data, k);
		blockq_advance(q, k);
	}
	return (long)k;
}
