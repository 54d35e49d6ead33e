/* trstream: the names of the trace-layers stream contract (tr-stream(5))
 * and the writers of its control records, so that no filter spells a
 * record prefix or a key by hand.
 * Library code: it returns a status (0, or -1 when memory runs out, as
 * buf.h) and never prints or exits. */
#ifndef TR_TRSTREAM_H
#define TR_TRSTREAM_H

#include "buf.h"
#include "json.h"

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
