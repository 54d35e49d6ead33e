/* compact_spill: the spill file of a stage that reads its stream twice
 * (tr-compact): lines written once, in order, then read back once, in
 * order.
 *
 * The first plain_max bytes (COMPACT_SPILL_PLAIN_MAX unless the caller
 * changes it after init) are written as they are: for them the page
 * cache's copies cost less CPU than compressing and inflating.  Past
 * them, when the gzip backend is fast (ISA-L), the rest goes through gz.h
 * at its fastest level as one gzip member, so that a spill of many GB
 * neither fills the page cache nor waits on the disk.  With zlib the whole
 * spill is plain.  Reading gives back the pages already read (where the
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

#include "gz/gz.h"
#include "core/io.h"
#include "core/writer.h"

/* Bytes written plain before the rest is compressed (COMPACT_SPILL_AUTO). */
#define COMPACT_SPILL_PLAIN_MAX ((uint64_t)1 << 30)

enum compact_spill_mode {
	COMPACT_SPILL_PLAIN = 0,  /* never compress */
	COMPACT_SPILL_AUTO = 1    /* compress past plain_max when the backend is fast */
};

struct compact_spill {
	int fd;
	int mode;
	int gzip;                 /* past plain_len, the spill is one gzip member */
	int finished;
	uint64_t plain_max;       /* AUTO: bytes written plain before compressing */
	uint64_t plain_len;       /* bytes at the file's start written plain */
	struct writer out;        /* bytes to fd (plain ones, and gz output) */
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
	int hold;                 /* keep the pages read (see compact_spill_hold) */
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
/* With on set, the pages read stay (a rewind may read them again); set
 * back to 0, they are given back as reading goes on. */
void compact_spill_hold(struct compact_spill *s, int on);
void compact_spill_free(struct compact_spill *s);

#endif
