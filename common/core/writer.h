/* writer: buffered writing on a file descriptor, in pieces sized for the
 * pipe or file behind it (see writer_init).
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_WRITER_H
#define TR_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct writer {
	int fd;
	char *buf;
	size_t len, cap;   /* cap: flushed when full; half the pipe on a pipe */
	uint64_t written;  /* bytes handed to write(2) (or committed) so far */
	/* when set (writer_init_blocks), buf is a block of a queue to another
	 * thread (blockq.h), filled in place and handed over whole: room
	 * gives the next one (NULL with errno set once the other end has
	 * stopped), commit hands over its first n bytes; between them buf is
	 * NULL and cap 0 */
	char *(*room)(void *ctx);
	void (*commit)(void *ctx, size_t n);
	void *blocks;
	size_t block_size;
};

int writer_init(struct writer *w, int fd);
/* Into the blocks of a queue instead of a descriptor (see room above);
 * no memory of its own. */
void writer_init_blocks(struct writer *w, size_t block_size, char *(*room)(void *ctx),
			void (*commit)(void *ctx, size_t n), void *blocks);
/* 0 or -1 with errno set (EPIPE included: the caller decides). */
int writer_put(struct writer *w, const void *data, size_t n);
int writer_flush(struct writer *w);
void writer_free(struct writer *w);

#endif
