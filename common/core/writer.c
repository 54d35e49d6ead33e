#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "core/writer.h"

int writer_init(struct writer *w, int fd)
{
	size_t pipe_size = io_grow_pipe(fd);

	memset(w, 0, sizeof *w);
	w->fd = fd;
	/* Into a pipe, write half its capacity at a time: the reader can take
	 * one half while the next is being made.  A write as large as the pipe
	 * stalls the writer until the reader has drained nearly all of it, and
	 * the stages of a pipeline then take turns instead of running side by
	 * side (1.5x the wall time of a five-stage pipeline, measured).  Into a
	 * file, IO_WRITE_BLOCK: a stage inside a long write(2) to the page
	 * cache does not read its input pipe, which then stalls the stage
	 * before it (4 MiB writes: 10-20% slower pipelines, measured). */
	w->cap = IO_WRITE_BLOCK;
	if (pipe_size > 0 && pipe_size / 2 < w->cap)
		w->cap = pipe_size / 2 > 4096 ? pipe_size / 2 : 4096;
	w->buf = malloc(w->cap);
	if (w->buf == NULL)
		return -1;
	return 0;
}

void writer_init_blocks(struct writer *w, size_t block_size, char *(*room)(void *ctx),
			void (*commit)(void *ctx, size_t n), void *blocks)
{
	memset(w, 0, sizeof *w);
	w->fd = -1;
	w->room = room;
	w->commit = commit;
	w->blocks = blocks;
	w->block_size = block_size;
}

int writer_flush(struct writer *w)
{
	if (w->len == 0)
		return 0;
	if (w->room != NULL) {
		w->commit(w->blocks, w->len);
		w->buf = NULL;
		w->cap = 0;
	} else if (io_write_all(w->fd, w->buf, w->len) != 0) {
		return -1;
	}
	w->written += w->len;
	w->len = 0;
	return 0;
}

/* Into blocks: as many as the bytes fill, the last one kept for more. */
static int put_blocks(struct writer *w, const char *data, size_t n)
{
	while (n > 0) {
		size_t k;
		if (w->buf == NULL) {
			if ((w->buf = w->room(w->blocks)) == NULL)
				return -1;
			w->cap = w->block_size;
		}
		k = n < w->cap - w->len ? n : w->cap - w->len;
		memcpy(w->buf + w->len, data, k);
		w->len += k;
		data += k;
		n -= k;
		if (w->len == w->cap && writer_flush(w) != 0)
			return -1;
	}
	return 0;
}

int writer_put(struct writer *w, const void *data, size_t n)
{
	if (n > w->cap - w->len || w->buf == NULL) {
		if (w->room != NULL)
			return put_blocks(w, data, n);
		if (writer_flush(w) != 0)
			return -1;
		if (n >= w->cap) {
			if (io_write_all(w->fd, data, n) != 0)
				return -1;
			w->written += n;
			return 0;
		}
	}
	memcpy(w->buf + w->len, data, n);
	w->len += n;
	return 0;
}

void writer_free(struct writer *w)
{
	if (w->room == NULL)
		free(w->buf);
	w->buf = NULL;
}
