/* trstream: the trace-layers stream contract (tr-stream(5)) in code: the
 * record kinds, the key names, and one writer and one reader for each
 * control record (head, tail, anchors, anchor, report), so that no filter
 * spells a record prefix or a key by hand.
 * Writers append to a struct buf and return 0, or -1 when memory runs out
 * (buf.h).  Readers parse a record into a struct and return 0, or -1 with
 * the exact refusal in err ("malformed anchor record: no integer i").
 * Library code: it returns a status and never prints or exits. */
#ifndef TR_TRSTREAM_H
#define TR_TRSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/json.h"
#include "json/scan.h"

/* args member of an event that tr-compact moved: its original pid and tid */
#define TRSTREAM_KEY_COMPACT_TRACK "_compact_gpu_track"
/* tail record and report member: the sha256 of the source's bytes */
#define TRSTREAM_KEY_SOURCE_SHA256 "source_sha256"

/* report file suffixes: OUT.layers.json (tr-guides), OUT.compact.json */
#define TRSTREAM_LAYERS_SUFFIX ".layers.json"
#define TRSTREAM_COMPACT_SUFFIX ".compact.json"

/* The record kinds, as the value of "@tr". */
#define TRSTREAM_HEAD "head"
#define TRSTREAM_TAIL "tail"
#define TRSTREAM_ANCHORS "anchors"
#define TRSTREAM_ANCHOR "anchor"
#define TRSTREAM_REPORT "report"

/* Room for a reader's refusal. */
#define TRSTREAM_ERR_SIZE 160

/* Start a control record of kind: {"@tr":"KIND" -- the caller adds the
 * members, each after a comma, and the closing brace. */
int trstream_record_begin(struct buf *b, const char *kind);

/* ---- head and tail ------------------------------------------------- */

/* The head record, written in two halves around the source's top-level
 * members (raw, "name":value,...), which the writer never copies:
 * {"@tr":"head","format":"object","source":"NAME","tool":"T","version":"V","members":{
 * ... }} */
struct trstream_head {
	int array_format;       /* "array" rather than "object" */
	const char *source;     /* plain text, escaped by the writer */
	const char *tool, *version;
};
int trstream_head_begin(struct buf *b, const struct trstream_head *h);
/* "}}": after the members; the newline is the caller's. */
int trstream_head_end(struct buf *b);

/* The members of a head a reader needs. */
struct trstream_head_in {
	int array_format;
	char *source;           /* unescaped, malloc'd; NULL when not a string */
};
/* d is scratch space for the parse; free h->source. */
int trstream_head_read(struct jdoc *d, const char *line, size_t len,
		       struct trstream_head_in *h, char *err, size_t errsz);

/* The tail record, in two halves around the members after traceEvents:
 * {"@tr":"tail","members":{ ... },"events":N,"source_bytes":N,"source_sha256":"HEX"} */
int trstream_tail_begin(struct buf *b);
int trstream_tail_end(struct buf *b, uint64_t events, uint64_t source_bytes,
		      const char *sha256_hex);

struct trstream_tail_in {
	uint64_t events, source_bytes;   /* 0 when absent */
	int has_counts;                  /* both present as integers */
};
/* d keeps the parse, for trstream_put_source_sha256. */
int trstream_tail_read(struct jdoc *d, const char *line, size_t len,
		       struct trstream_tail_in *t, char *err, size_t errsz);

/* ---- anchors: tr-select-anchors to tr-guides ------------------------ */

/* The anchors record: the selection's options and what tr-guides needs
 * of the trace (its origin, the tids in use in the anchors' pid). */
struct trstream_anchors {
	const char *anchor_regex;       /* plain text */
	const char *end_anchor_regex;   /* plain text, NULL: null */
	const char *confirm_regex;      /* plain text, NULL: null */
	int confirm_cpu;
	int64_t anchor_offset;
	uint64_t matching_anchor_count;
	int64_t num_layers, first_layer, passes;
	const char *pid;                /* raw JSON */
	const char *device;             /* raw JSON, NULL: null */
	int64_t trace_origin_ns;
	const char *const *used_tids;   /* raw JSON, nused of them */
	size_t nused;
};
int trstream_anchors_write(struct buf *b, const struct trstream_anchors *a);

/* A raw JSON text inside a parsed record. */
struct trstream_raw {
	const char *p;
	size_t n;
};

/* The limits of a selection, tr-select-anchors' options: a record beyond
 * them is refused by its reader. */
#define TRSTREAM_MAX_LAYERS 1000000       /* num_layers, first_layer, passes */
#define TRSTREAM_MAX_GUIDES 10000000      /* num_layers x passes */
#define TRSTREAM_MAX_OFFSET INT32_MAX     /* anchor_offset */

/* The anchors record as read: the integers tr-guides computes with, and
 * the raw texts it copies into its report (pointing into the line, which
 * must outlive them). */
struct trstream_anchors_in {
	struct jdoc d;                  /* JDOC_INIT before the first read */
	int64_t num_layers, first_layer, passes, trace_origin_ns;
	int64_t pid_value;              /* the pid as an integer, or -1 */
	struct trstream_raw pid, device;
	int64_t *used_tids;             /* the integer ones, in order; malloc'd */
	size_t nused;
	int64_t anchor_offset;
};
/* Refused: "malformed anchors record" (not JSON), "...: no integer KEY"
 * (num_layers, first_layer, passes, trace_origin_ns, in that order),
 * "...: no pid or used_tids", "...: no integer anchor_offset", and a
 * number beyond the limits above: "...: KEY V out of range (LO to HI)",
 * "...: num_layers x passes is N, more than 10000000". */
int trstream_anchors_read(const char *line, size_t len, struct trstream_anchors_in *a,
			  char *err, size_t errsz);
/* The raw text of any member of the record read ("null" when absent). */
struct trstream_raw trstream_anchors_raw(const struct trstream_anchors_in *a, const char *key);
void trstream_anchors_in_free(struct trstream_anchors_in *a);

/* The most JSON text a selected kernel's record carries: its name, pid,
 * tid, device, ts and dur together.  A guide's report row holds its
 * anchor's name, tid and ts and the next anchor's ts, and must fit in
 * TRSTREAM_REPORT_MAX_ROW, the most tr-verify reads of a row; so
 * tr-select-anchors refuses a longer kernel when it selects it, and the
 * anchor record reader refuses one, before any stage writes a guide. */
#define TRSTREAM_KERNEL_MAX_TEXT ((size_t)256 << 10)
#define TRSTREAM_KERNEL_MAX_TEXT_TEXT "256 KiB"

/* A selected kernel, as the anchor record carries it.  The texts are raw
 * JSON, NUL-terminated; tid and device NULL: null. */
struct trstream_kernel {
	uint64_t source_index;
	char *pid, *tid, *device, *ts, *dur, *name;
	int64_t ts_ns, dur_ns;
};

/* One anchor record: the i-th selected anchor (pass i / num_layers, layer
 * i % num_layers, anchor_index among the sorted matches) and, with
 * --end-anchor-regex, its terminal kernel. */
struct trstream_anchor {
	size_t i, pass, layer, anchor_index;
	struct trstream_kernel anchor;
	int has_terminal;
	struct trstream_kernel terminal;
};
int trstream_anchor_write(struct buf *b, const struct trstream_anchor *a);
/* The reader copies the texts (free with trstream_anchor_free).  Refused:
 * "malformed anchor record" (not JSON), "...: no integer KEY" (i, pass,
 * layer, anchor_index, then the anchor's source_index, ts_ns, dur_ns,
 * then the terminal's ts_ns, dur_ns), "...: no anchor object",
 * "...: ts, name and tid are needed", "out of memory", and a record no
 * writer makes: "...: KEY V out of range (at least 0)" (i, pass, layer,
 * anchor_index, source_index; a dur_ns as "anchor dur_ns V ..."),
 * "...: terminal ts_ns + dur_ns beyond the int64 range",
 * "...: anchor ts T is not ts_ns V" (or dur, or the terminal's: the text
 * and its integer disagree), "...: anchor texts take N bytes, more than
 * 256 KiB" (TRSTREAM_KERNEL_MAX_TEXT).  Whether the numbers agree with
 * the anchors record (layer < num_layers, ...) is the reader's caller's
 * to check: trstream_anchor_check. */
int trstream_anchor_read(struct jdoc *d, const char *line, size_t len,
			 struct trstream_anchor *a, char *err, size_t errsz);
void trstream_anchor_free(struct trstream_anchor *a);
/* The anchor record number n (0-based, in stream order) read as a, against
 * the anchors record: i == n, pass < passes, layer < num_layers,
 * i == pass x num_layers + layer, anchor_index == anchor_offset + i.
 * 0, or -1 with the refusal in err ("anchor record 3: layer 7 out of range
 * (num_layers 4)", "anchor records out of order (record 3 is number 5)"). */
int trstream_anchor_check(const struct trstream_anchor *a, size_t n,
			  const struct trstream_anchors_in *s, char *err, size_t errsz);

/* ---- report -------------------------------------------------------- */

/* A whole member record whose value is the string text (plain, escaped
 * here). */
int trstream_report_string(struct buf *b, const char *suffix, const char *member,
			   const char *text);
/* 1 when the report record line[0..len) belongs to the report SUFFIX (its
 * "suffix" member as the functions here write it), else 0. */
int trstream_report_is(const char *line, size_t len, const char *suffix);
/* Close an items record: "]}". */
int trstream_report_items_end(struct buf *b);

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
/* The stages that write a report keep within what tr-verify reads: a
 * compaction report (alone, or a member of the layers report, whose other
 * members take well under 2 MiB) within the members' bound, a window
 * report (read whole, indented: its dropped_events rows take about 1.5
 * times their minified size) within 1 GiB. */
#define TRSTREAM_COMPACT_REPORT_MAX (TRSTREAM_REPORT_MAX_HEAD - ((size_t)2 << 20))
#define TRSTREAM_COMPACT_REPORT_MAX_TEXT "62 MiB"
#define TRSTREAM_WINDOW_REPORT_MAX ((uint64_t)1 << 30)
#define TRSTREAM_WINDOW_REPORT_MAX_TEXT "1 GiB"
#define TRSTREAM_WINDOW_ROWS_MAX ((size_t)512 << 20)
#define TRSTREAM_WINDOW_ROWS_MAX_TEXT "512 MiB"

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

/* ---- the window report (tr-window(1)): OUT.window.json ---------------
 * Kept in a block of its own: the records tr-window writes before the
 * tail, built here so that no filter spells them by hand. */
#define TRSTREAM_WINDOW_SUFFIX ".window.json"
/* dropped-event rows per report record */
#define TRSTREAM_WINDOW_ROWS 500

struct trstream_window {
	const char *spec;                /* the options, as words */
	int64_t start_ns, end_ns;        /* the window, exact whole ns */
	int64_t origin_ns;               /* the trace start, when have_origin */
	int have_origin;
	const char *source_file;         /* the head's source name */
	const char *sha;                 /* raw JSON: the tail's source_sha256 or null */
	size_t sha_len;
	uint64_t source_events;
	const char *const *cat_names;    /* the categories counted, ncats of them */
	const uint64_t *kept, *dropped;
	size_t ncats;
	uint64_t flows_cut, async_cut, bytes;
	const char *rows;                /* dropped-event rows, ',' separated */
	size_t rows_len;
	uint64_t nrows;
};

/* Append the window report's records, each a line ending in '\n': the
 * body, then the dropped_events member (an empty array, or its rows
 * TRSTREAM_WINDOW_ROWS per record). */
int trstream_window_report(struct buf *b, const struct trstream_window *w);

#endif
