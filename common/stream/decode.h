/* decode: a Chrome JSON trace document (object or array format) into the
 * event stream: a head record, one line per element of the event array in
 * source order (whitespace removed, everything else byte for byte), and the
 * members that follow the array, kept for the tail record.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_DECODE_H
#define TR_DECODE_H

#include <stdint.h>

#include "core/buf.h"
#include "json/scan.h"
#include "core/writer.h"

/* Receives stream bytes; 0, or -1 with errno set. */
typedef int (*decode_put_fn)(void *ctx, const void *data, size_t n);

enum decode_status {
	DECODE_OK = 0,
	DECODE_INPUT = 1,  /* the document is not an acceptable trace; see err */
	DECODE_READ = 2,   /* the source failed; the caller has the reason */
	DECODE_WRITE = 3,  /* put failed; errno is set */
	DECODE_NOMEM = 4
};

/* The default bound on the top-level members before traceEvents, and
 * separately on those after it, as written in the head or tail record
 * ("name":value,...): each side is held whole, by tr-decode and by every
 * stage that reads the record. */
#define DECODE_DEFAULT_MAX_MEMBERS ((size_t)64 << 20)

struct decode {
	struct scan *scan;
	decode_put_fn put;
	void *put_ctx;
	const char *source_name;  /* as recorded in the head */
	const char *tool;         /* recorded in the head, e.g. "tr-decode" */
	size_t max_members;       /* DECODE_DEFAULT_MAX_MEMBERS unless set */
	int array_format;
	uint64_t events;
	struct buf event;         /* the event being copied */
	/* Optional (decode_file sets it): the writer behind put.  An event
	 * that fits in its block is scanned straight into it, not copied
	 * there from event; write(2) sees the same bytes in the same pieces. */
	struct writer *direct;
	struct buf members;       /* members before, then after, traceEvents */
	char err[256];
};

void decode_init(struct decode *d, struct scan *s, decode_put_fn put, void *ctx,
		 const char *source_name, const char *tool);
/* Head record and event lines; the members after the array are kept. */
int decode_document(struct decode *d);
/* The tail record, with the stored size and SHA-256 of the source. */
int decode_put_tail(struct decode *d, uint64_t stored_bytes, const char *sha256_hex);
void decode_free(struct decode *d);

#endif
