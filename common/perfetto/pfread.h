/* pfread: read back a Perfetto trace that pftrace.h wrote (plain or
 * gzip) and compare it, event by event, with the event lines it was
 * written from: name, category, ts, dur (the SLICE_END that follows), track
 * (process and thread by their pid and tid), every args member with its
 * JSON type, counters, the flows each slice carries (each on the slice
 * Perfetto's JSON import binds it to, recomputed from the source), and the names and
 * sort indices of processes and threads.  Only the subset pftrace writes
 * is read; anything else in the file is a difference.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_PFREAD_H
#define TR_PFREAD_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/extsort.h"
#include "json/json.h"
#include "perfetto/pftrace.h"

/* PFREAD_INPUT: the source's lines failed (r->msg: "SRC: why") */
enum pfread_status { PFREAD_OK = 0, PFREAD_DIFF = 1, PFREAD_TROUBLE = 2, PFREAD_INPUT = 3,
		     PFREAD_NOMEM = -1 };

struct pf_track;  /* a decoded track descriptor (pfread.c) */

/* A source slice or flow, for the bindings computed at the end; a flow
 * on a slice (of the output, or bound in the source): source positions. */
struct pfread_item {
	int64_t ts, end;
	uint64_t index, id;
	uint32_t thread;
	uint8_t slice, term, wait, pad;
};
struct pfread_bound {
	uint64_t slice, id, flow;
	uint8_t term, pad[7];
};

struct pfread {
	struct source *src;
	const char *path;
	struct buf in;            /* bytes read, not yet used */
	size_t pos;
	int eof;
	uint64_t packets;
	/* the output's state: descriptors and interned strings */
	struct intern uuids;
	struct pf_track *tracks;
	size_t ntracks, captracks;
	struct buf *tables[4];    /* names, categories, arg names, strings: by iid */
	size_t ntab[4], captab[4];
	int have_state, have_defaults, clock_set;
	int64_t clock_last;       /* the incremental clock's time */
	/* the source's side: the writer's ids and holding of slice ends */
	struct pf_ids ids;
	struct jdoc doc;
	struct buf tmp, tmp2;
	struct extsort items, got, want;
	int sorts;
	uint64_t events, compared, slices, instants, counters, flows_src, flows_out,
		 flows_dropped, skipped;
	/* the packet in hand */
	const unsigned char *pkt, *te;
	size_t pkt_len, te_len;
	int64_t ts;
	char msg[1024];
};

/* Open the Perfetto trace at path: PFREAD_OK, or PFREAD_TROUBLE with
 * errno set. */
int pfread_open(struct pfread *r, const char *path);
/* One event line of the source (the nth, from 0). */
int pfread_event(struct pfread *r, const char *line, size_t len);
/* After the last event: nothing more in the file, the flows' bindings, the
 * descriptors' names and ranks. */
int pfread_finish(struct pfread *r);
/* The summary line of a verified trace, appended to out. */
int pfread_summary(const struct pfread *r, struct buf *out);
void pfread_free(struct pfread *r);

struct stream_in;
/* Every event line of in (the source at src_path), then pfread_finish; the
 * summary line appended to summary.  A status; r->msg says why. */
int pfread_run(struct pfread *r, struct stream_in *in, const char *src_path, struct buf *summary);

/* 1 with in reading the source at path when it is a stream (below), 0
 * when it is not, -1 when memory runs out. */
int pfread_stream_source(const char *path, struct stream_in *in);
/* 1 with *fd open on it when the source at path is a stream (tr-stream(5):
 * its first bytes a control record; "-" is standard input), else 0. */
int pfread_is_stream(const char *path, int *fd);

#endif
