/* trstream: the names of the trace-layers stream contract (tr-stream(5))
 * and the writers of its control records, so that no filter spells a
 * record prefix or a key by hand.
 * Library code: it returns a status (0, or -1 when memory runs out, as
 * buf.h) and never prints or exits. */
#ifndef TR_TRSTREAM_H
#define TR_TRSTREAM_H

#include <stdint.h>

#include "buf.h"
#include "json.h"
#include "jsonscan.h"

/* args member of an event that tr-compact moved: its original pid and tid */
#define TRSTREAM_KEY_COMPACT_TRACK "_compact_gpu_track"
/* tail record and report member: the sha256 of the source's bytes */
#define TRSTREAM_KEY_SOURCE_SHA256 "source_sha256"

/* report file suffixes: OUT.layers.json (tr-guides), OUT.compact.json */
#define TRSTREAM_LAYERS_SUFFIX ".layers.json"
#define TRSTREAM_COMPACT_SUFFIX ".compact.json"

/* The record kinds, as the value of "@tr". */
#define TRSTREAM_ANCHORS "anchors"
#define TRSTREAM_ANCHOR "anchor"
#define TRSTREAM_REPORT "report"

/* Start a control record of kind: {"@tr":"KIND" -- the caller adds the
 * members, each after a comma, and the closing brace. */
int trstream_record_begin(struct buf *b, const char *kind);

/* Start the body of a report: {"@tr":"report","suffix":"SUFFIX","body":
 * -- the caller adds the body value and one closing brace. */
int trstream_report_body(struct buf *b, const char *suffix);

/* Start a member of a report:
 * {"@tr":"report","suffix":"SUFFIX","member":"MEMBER","body":  or, with
 * items set, ..."member":"MEMBER","items":[  (items appended to an array
 * member) -- the caller adds the value (or the items and "]") and "}". */
int trstream_report_member(struct buf *b, const char *suffix, const char *member, int items);

/* Append the tail record's source_sha256 string (raw JSON) from its parsed
 * document, or null when it has none. */
int trstream_put_source_sha256(struct buf *b, const struct jdoc *tail);

/* ---- reading: reports and records (tr-verify) -------------------------
 * A report is the JSON file tr-encode writes beside its output
 * (OUT.layers.json, OUT.compact.json, OUT.window.json).  It is read as a
 * stream: the members besides one array (the layers rows) held together
 * up to TRSTREAM_REPORT_MAX_HEAD, the rows one at a time.  On trouble the
 * functions fill a struct trstream_error and return -1; the caller names
 * the file: "PATH: MSG" (and ": strerror(errnum)" when errnum is set). */

#define TRSTREAM_REPORT_MAX_HEAD ((size_t)64 << 20)
#define TRSTREAM_REPORT_MAX_HEAD_TEXT "64 MiB"
#define TRSTREAM_REPORT_MAX_ROW ((size_t)1 << 20)
#define TRSTREAM_REPORT_MAX_ROW_TEXT "1 MiB"
#define TRSTREAM_WINDOW_SUFFIX ".window.json"

enum trstream_error_kind {
	TRSTREAM_ERR_INPUT = 1,   /* the file is not what it should be: msg */
	TRSTREAM_ERR_SYSTEM,      /* open/read failed: msg, errnum */
	TRSTREAM_ERR_NOMEM,
	TRSTREAM_ERR_TOO_BIG      /* trstream_report_whole: see size */
};

struct trstream_error {
	int kind;
	int errnum;      /* with TRSTREAM_ERR_SYSTEM */
	uint64_t size;   /* with TRSTREAM_ERR_TOO_BIG */
	char msg[400];
};

/* A report opened for reading: a regular file (a FIFO or a device is
 * refused before a byte is read), read with pread from pos. */
struct trstream_report {
	int fd;
	uint64_t pos;
};

/* Open path as a report; 0, or -1 with e set (msg "" and errnum for a
 * failed open or fstat). */
int trstream_report_open(struct trstream_report *r, const char *path, struct trstream_error *e);
/* The scan_read_fn over a report (ctx: struct trstream_report *). */
long trstream_report_read(void *ctx, void *dst, size_t n);

/* Read the report's top-level object from offset 0: every member but the
 * rows of the array member rows_key (raw JSON name with quotes, e.g.
 * "\"layers\"") into head as one JSON object, the rows only counted and the
 * offset of the first row set in *rows_at.  0, or -1 with e set. */
int trstream_report_head(struct trstream_report *r, const char *rows_key, struct buf *head,
			 uint64_t *rows_at, uint64_t *nrows, struct trstream_error *e);

/* The rows of a report, read one at a time from their offset. */
struct trstream_rows {
	struct trstream_report file;
	struct scan scan;
	uint64_t at;      /* offset of the first row */
	uint64_t count;   /* as trstream_report_head counted them */
	uint64_t read;
	int open;
	struct buf row;   /* the last row read, minified */
};

/* Start reading count rows at offset at of the report open on fd (the
 * rows do not own fd).  0, or -1 when memory runs out. */
int trstream_rows_open(struct trstream_rows *r, int fd, uint64_t at, uint64_t count);
/* The next row into r->row: 1, 0 when there are no more, -1 with e set. */
int trstream_rows_next(struct trstream_rows *r, struct trstream_error *e);
void trstream_rows_free(struct trstream_rows *r);

/* The whole text of a report, at most max bytes, without its trailing
 * newlines and spaces.  0, or -1 with e set: TRSTREAM_ERR_TOO_BIG with
 * e->size the file's size when check_size refused it before reading, or 0
 * when it grew past max as it was read; TRSTREAM_ERR_SYSTEM for a failed
 * fstat or read. */
int trstream_report_whole(struct trstream_report *r, uint64_t max, int check_size,
			  struct buf *text, struct trstream_error *e);

/* The raw "members" of a head or tail record, parsed into d: 0, or -1 when
 * the line is not such a record. */
int trstream_record_members(struct jdoc *d, const char *line, size_t len, const char **raw,
			    size_t *n);

#endif
