/* windowspan: the intervals and sizes of a stream's events, kept in a
 * temporary file for a second look.  tr-window --pass-table without a
 * window needs every event's interval and bytes once the passes are known,
 * at the end of the stream: a few bytes per event instead of a window_rec
 * (40 bytes with the threads and groups a window needs): lo as the
 * difference from the previous event's lo (zigzag), hi - lo and the bytes,
 * each a varint (7 bits a byte, low bits first).  Differences wrap in 64
 * bits: every int64 interval comes back exactly, however far apart.
 * The common/ rule: library code returns a status (0, or -1 with errno
 * set: ENOMEM, EIO for a file that ends inside a span, or the temporary
 * file's error) and never prints or exits. */
#ifndef TR_WINDOWSPAN_H
#define TR_WINDOWSPAN_H

#include <stddef.h>
#include <stdint.h>


/* [lo, hi] overlaps the closed window [w0, w1] (all in half ns): touching
 * counts.  Inline: the window asks it of every event. */
static inline int windowspan_overlaps(int64_t lo, int64_t hi, int64_t w0, int64_t w1)
{
	return lo <= w1 && hi >= w0;
}
/* [lo, hi] lies inside [w0, w1]. */
static inline int windowspan_contains(int64_t lo, int64_t hi, int64_t w0, int64_t w1)
{
	return lo >= w0 && hi <= w1;
}

#define WINDOWSPAN_MAX 25          /* bytes of the longest span: 10 + 10 + 5 */
#define WINDOWSPAN_BLOCK 65536     /* bytes written and read at a time */

struct windowspan {
	int fd;
	unsigned char *buf;        /* a block to write, then a block read back */
	size_t have, at;           /* bytes in buf; read back: the next unread */
	int eof;
	uint64_t n;                /* spans put */
	uint64_t last;             /* lo of the span put or read last */
};

/* fd: an empty temporary file (io_open_spill), owned from now on. */
int windowspan_init(struct windowspan *s, int fd);
/* One event: its interval [lo, hi] and its bytes. */
int windowspan_put(struct windowspan *s, int64_t lo, int64_t hi, uint32_t bytes);
/* After the last put, before reading. */
int windowspan_finish(struct windowspan *s);
/* Back to the first span (any number of reads, one at a time). */
int windowspan_rewind(struct windowspan *s);
/* The next span: 1, 0 at the end, -1 (EIO: the file ends inside one). */
int windowspan_next(struct windowspan *s, int64_t *lo, int64_t *hi, uint32_t *bytes);
void windowspan_free(struct windowspan *s);

#endif
