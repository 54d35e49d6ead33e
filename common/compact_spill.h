/* compact_spill: the spill file of a stage that reads its stream twice
 * (tr-compact): lines written once, in order, then read back once, in
 * order.
 *
 * Writing a spill costs more than reading the stream (the page cache
 * copies and allocates every page), so a long spill is compressed: once
 * more than COMPACT_SPILL_PLAIN_MAX bytes are spilled, and when the gzip
 * backend is fast enough to beat the write (ISA-L), the bytes go through
 * gz.h at its fastest level.  A short spill, or any spill with zlib, is
 * written as it is.  Reading gives back the pages already read (where the
 * file system can punch holes), so the page cache holds a window of the
 * spill, not all of it.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  Functions return 0, or -1 with errno set (ENOMEM when memory runs
 * out, EIO for a spill that no longer inflates, with the reason in err). */
#ifndef TR_COMPACT_SPILL_H
#define TR_COMPACT_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "gz.h"
#include "io.h"

/* Spills up to this size are written plain whatever the backend. */
#define COMPACT_SPILL_PLAIN_MAX ((size_t)4 << 20)

enum compact_spill_mode {
	COMPACT_SPILL_PLAIN = 0,  /* never compress */
	COMPACT_SPILL_AUTO = 1    /* compress a long spill when the backend is fast */
};

struct compact_spill {
	int fd;
	int mode;
	int gzip;                 /* the spill is one gzip member */
	int finished;
	struct writer out;        /* plain bytes to fd (plain spills, and gz output) */
	char *held;               /* the first bytes, until plain or gzip is decided */
	size_t held_len;
	struct gz_out *gz;
	uint64_t spilled;         /* bytes put, uncompressed */
	/* reading */
	struct gz_in *in;
	unsigned char *raw;       /* bytes read from fd, not yet inflated */
	size_t raw_start, raw_end, raw_cap;
	char *buf;                /* uncompressed bytes: lines are handed out from here */
	size_t start, end, cap;
	uint64_t file_offset;     /* bytes of fd read so far */
	uint64_t released;        /* bytes of fd given back */
	int eof;
	char err[120];
};

/* A spill on fd (an empty, unlinked temporary file, owned by the caller). */
int compact_spill_init(struct compact_spill *s, int fd, int mode);
/* Append n bytes (whole lines with their newline, in any pieces). */
int compact_spill_put(struct compact_spill *s, const void *data, size_t n);
/* Everything put reaches the file; then the spill may be read. */
int compact_spill_finish(struct compact_spill *s);
/* Read from the start (may be called again to read it once more). */
int compact_spill_rewind(struct compact_spill *s);
/* The next line without its '\n' (valid until the next call): 1, 0 at the
 * end, -1 on error (errno set; err says what for EIO). */
int compact_spill_line(struct compact_spill *s, const char **line, size_t *len);
/* 1 when the spill is compressed (for tests and the bench). */
int compact_spill_is_gzip(const struct compact_spill *s);
void compact_spill_free(struct compact_spill *s);

#endif
