/* teepass: pass lines from one pipe to another without copying them
 * through the process.  Most stages pass nearly every line unchanged;
 * read(2) and write(2) of it are two copies of the whole stream per stage.
 * With standard input and output both pipes, tee(2) first duplicates each
 * block of input into a private "shadow" pipe (page references, no copy),
 * the stage reads the block as usual, and the lines it passes go on from
 * the shadow pipe to standard output with splice(2), again without a copy;
 * bytes it drops are spliced to /dev/null.  The shadow pipe holds exactly
 * the input bytes [lo, hi) whose fate is not yet written out; [lo, pend)
 * of them are owed to the output, after whatever the writer holds.
 * The writer and the shadow pipe are always emptied in that order, so the
 * output is the same byte for byte as with plain writes.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_TEEPASS_H
#define TR_TEEPASS_H

#include <stddef.h>
#include <stdint.h>

#include "core/io.h"
#include "core/writer.h"

struct teepass {
	int on;           /* both ends are pipes and the shadow pipe is open */
	int shadow[2];    /* the private pipe: [0] read end, [1] write end */
	int null_fd;      /* /dev/null, where dropped bytes go; -1: read them */
	size_t cap;       /* the shadow pipe's capacity in bytes */
	uint64_t lo;      /* stream offset of the first byte in the shadow pipe */
	uint64_t pend;    /* [lo, pend) goes to the output next */
	uint64_t hi;      /* stream bytes read so far: the shadow holds [lo, hi) */
};

/* Turn the shadow pipe on when in_fd and out_fd are both pipes (and the
 * system has tee and splice); otherwise, or when a descriptor cannot be
 * had, t->on stays 0 and the stage copies as before.  Never fails. */
void teepass_open(struct teepass *t, int in_fd, int out_fd);
void teepass_close(struct teepass *t);

/* Before reading more input: write out what is owed ([lo, pend), after
 * the writer's bytes), drop what the stage did not pass up to consumed
 * (the stream offset of the first byte not yet handed to the stage), and
 * when the shadow pipe is short of room, drop the rest as well (a line
 * then passed from it is copied instead).  0, or -1 when a write failed
 * (errno set; the shadow pipe is then off). */
int teepass_settle(struct teepass *t, struct writer *w, uint64_t consumed);

/* Read up to n bytes of in_fd into dst, duplicating them into the shadow
 * pipe first: bytes read, 0 at the end of input, -1 on error (errno). */
long teepass_read(struct teepass *t, int in_fd, void *dst, size_t n);

/* Pass the input bytes [a, b) (a line with its newline) on: 1 when they
 * are now owed from the shadow pipe, 0 when the caller must copy them
 * (they are not all there; what was owed has been written first), -1
 * when a write failed (errno set). */
int teepass_pass(struct teepass *t, struct writer *w, uint64_t a, uint64_t b);

/* Write out what is owed, after the writer's bytes: 0 or -1 (errno). */
int teepass_flush(struct teepass *t, struct writer *w);

#endif
