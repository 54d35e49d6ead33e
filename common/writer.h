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
	uint64_t written;  /* bytes handed to write(2) so far */
	/* when set, bytes go here instead of write(2) on fd (a queue to
	 * another thread, blockq.h): 0, or -1 with errno set */
	int (*sink)(void *ctx, const void *data, size_t n);
	void *sink_ctx;
};

int writer_init(struct writer *w, int fd);
/* 0 or -1 with errno set (EPIPE included: the caller decides). */
int writer_put(struct writer *w, const void *data, size_t n);
int writer_flush(struct writer *w);
void writer_free(struct writer *w);

#endif
