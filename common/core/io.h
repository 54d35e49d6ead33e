/* io: the descriptor helpers under the block reader (reader.h) and the
 * buffered writer (writer.h): pipe capacity, whole writes, reads that
 * retry EINTR, spill files.  Filters pass megabytes per call rather than a
 * line per call: per-line stdio and 64 KiB pipes dominate the cost of a
 * pipeline otherwise.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_IO_H
#define TR_IO_H

#include <stddef.h>
#include <stdint.h>

/* bytes per read(2) (writes: IO_WRITE_BLOCK); the fuzz build makes both small */
#ifndef IO_BLOCK
#define IO_BLOCK (4u << 20)
#endif
#define IO_PIPE_SIZE (1 << 20)   /* requested pipe capacity */
#ifndef IO_WRITE_BLOCK
#define IO_WRITE_BLOCK (512u << 10)  /* bytes per write(2) at most, buffered */
#endif

/* Ask for a 1 MiB pipe buffer when fd is a pipe; silently keeps the old size
 * where the system refuses (unprivileged limit).  Returns the pipe's
 * capacity in bytes, or 0 when fd is not a pipe. */
size_t io_grow_pipe(int fd);

/* write(2) every byte, retrying short writes and EINTR. */
int io_write_all(int fd, const void *data, size_t n);
/* read(2) up to n bytes, retrying EINTR; returns bytes read, 0 at EOF, -1. */
long io_read_some(int fd, void *data, size_t n);

/* A spill file for a stage that reads its input twice: created in TMPDIR
 * (or /tmp) as PREFIX.XXXXXX and unlinked at once, so that nothing is left
 * behind whatever happens to the process.  The descriptor, or -1 with errno
 * set; *dir is the directory tried, for the message. */
int io_open_spill(const char *prefix, const char **dir);

#endif
