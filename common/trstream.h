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

#endif
