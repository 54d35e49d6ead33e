/* io: block-wise line reading and buffered writing on file descriptors.
 * Filters pass megabytes per call rather than a line per call: per-line stdio
 * and 64 KiB pipes dominate the cost of a pipeline otherwise.
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

struct reader {
	int fd;
	char *buf;
	size_t cap;        /* allocated bytes at buf */
	size_t start, end; /* unread bytes are buf[start..end) */
	size_t max_line;   /* longest accepted line, excluding '\n' */
	uint64_t offset;   /* stream offset of buf[start] */
	uint64_t lineno;   /* lines returned so far */
	int eof;
};

enum reader_status {
	READ_LINE = 1,      /* line and len hold a line without its '\n' */
	READ_EOF = 0,       /* clean end of input */
	READ_ERROR = -1,    /* read(2) failed; errno is set */
	READ_TOO_LONG = -2, /* a line longer than max_line */
	READ_PARTIAL = -3,  /* input ended inside a line (no final '\n') */
	READ_NOMEM = -4
};

int reader_init(struct reader *r, int fd, size_t max_line);
/* The line stays valid until the next call. */
int reader_line(struct reader *r, const char **line, size_t *len);
void reader_free(struct reader *r);
/* Give back what one long line made the buffer grow to, keeping the unread
 * bytes (for a stage that holds a reader across a long computation). */
void reader_trim(struct reader *r);

struct writer {
	int fd;
	char *buf;
	size_t len, cap;   /* cap: flushed when full; half the pipe on a pipe */
	uint64_t written;  /* bytes handed to write(2) so far */
};

int writer_init(struct writer *w, int fd);
/* 0 or -1 with errno set (EPIPE included: the caller decides). */
int writer_put(struct writer *w, const void *data, size_t n);
int writer_flush(struct writer *w);
void writer_free(struct writer *w);

/* write(2) every byte, retrying short writes and EINTR. */
int write_all(int fd, const void *data, size_t n);

/* A spill file for a stage that reads its input twice: created in TMPDIR
 * (or /tmp) as PREFIX.XXXXXX and unlinked at once, so that nothing is left
 * behind whatever happens to the process.  The descriptor, or -1 with errno
 * set; *dir is the directory tried, for the message. */
int io_open_spill(const char *prefix, const char **dir);
/* read(2) up to n bytes, retrying EINTR; returns bytes read, 0 at EOF, -1. */
long read_some(int fd, void *data, size_t n);

#endif
