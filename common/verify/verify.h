/* verify: tr-verify's checks of an output against its source, both read as
 * decoded streams (tr-stream(5)) in lock-step: source identity (the
 * reports' source_sha256), preservation or exact reversal (every source
 * event byte for byte, after undoing tr-compact's placements and restoring
 * the metadata it retired), render (every guide and synthetic lane flat
 * under Perfetto's own timestamp conversion, every flow inside a slice of
 * its lane), counts (per category, guides per layer), placement (through
 * verifysel.h) and, for a window cut by tr-window, the window check.
 * The reports are read through trstream.h's reader.
 * The common/ rule: library code returns a status and never prints or
 * exits; failures and the error that stops a run go to a struct
 * verifycheck. */
#ifndef TR_VERIFY_H
#define TR_VERIFY_H

#include <stdint.h>

#include "core/buf.h"
#include "core/extsort.h"
#include "json/event.h"
#include "core/intern.h"
#include "json/json.h"
#include "stream/stream.h"
#include "verify/verifyadd.h"
#include "verify/verifycheck.h"
#include "verify/verifysel.h"
#include "window/window.h"

/* An event tr-compact retired from the output, kept in its report. */
struct verify_retired {
	uint64_t index;
	char *text;
};

struct verify_span {
	int64_t start, end;  /* Perfetto's nanoseconds */
	uint64_t index;      /* output event index */
};

/* A slice on a guide or lane track, as sorted for the depth check: track
 * 0 is the guide track, track i + 1 synthetic lane i. */
struct verify_slice {
	uint32_t track, pad;
	int64_t start, end;  /* Perfetto's nanoseconds */
	uint64_t index;      /* output event index */
};

/* A flow event on a synthetic lane (track as above); src: the id of its
 * (pid, tid) in the source, VERIFY_WAITS set for an f without bp. */
struct verify_flow {
	uint32_t track, src;
	int64_t ts;
	uint64_t index;
};
#define VERIFY_WAITS ((uint32_t)1 << 31)

/* A moved flow with the output event of the slice it binds to in the
 * output (VERIFYBIND_NONE: none), sorted by its source track for the
 * binding in the source. */
struct verify_bound {
	uint32_t src, waits;
	int64_t ts;
	uint64_t index, slice;
};

struct verify_lane {
	size_t n;            /* slices on it */
};

struct verify {
	struct verifycheck *vc;
	const char *src_path, *out_path;
	/* from the reports */
	int have_layers, have_compact;
	struct buf sha_claims;        /* report name and claimed sha, per line */
	char *guide_pid;
	size_t guide_pid_len;
	int64_t guide_tid, num_layers, passes, first_layer, max_lanes;
	char guide_tid_text[24];      /* guide_tid in decimal, as JSON writes it */
	size_t guide_tid_len;
	struct intern lane_keys;      /* "pid\001tid" of every synthetic lane */
	struct verify_lane *lanes;
	struct intern scope_pids;
	struct verify_retired *retired;
	size_t nretired;
	int layers_fd;                /* the layers report, open for its rows */
	/* collected from the output: slices and flows go to external sorts
	 * (extsort.h), so that memory does not grow with them */
	size_t nguides, nflows;
	struct buf guide_names;       /* names, '\n'-separated */
	int sorts_on;                 /* the four sorts below are set up */
	struct extsort slices, flows;
	/* the moved slices on their source tracks (index: the output's),
	 * and the moved flows with their binding in the output */
	struct extsort src_slices, bound;
	struct intern src_tracks;     /* "pid\001tid" of the moved events' sources */
	const char *last_src_pid, *last_src_tid;
	size_t last_src_pn, last_src_tn;
	uint32_t last_src;
	struct verifyadd add;         /* the events the tools add */
	struct intern cats;
	int64_t *cat_count;           /* source adds, output subtracts */
	size_t cat_cap;
	uint64_t compared, undone, restored, added;
	struct jdoc doc;
	struct buf tmp, undone_text, diff;
	char last_ts[32];             /* the last ts text converted (ts_ns), */
	size_t last_ts_len;           /* 0 for none, */
	int64_t last_ts_ns;           /* and its nanoseconds */
	struct verifysel sel;
	/* a window (verify_window_*) */
	struct jdoc wdoc;
	struct buf wtext;
	uint64_t *dropped;
	size_t ndropped;
	int64_t w0, w1;
	uint64_t window_kept, window_read, missing;
	/* what the report claims, counted in the window itself */
	uint64_t window_bytes, cat_kept[WCAT_N], cat_dropped[WCAT_N];
};

/* Before anything else: a run over SRC and OUT reporting to vc. */
void verify_init(struct verify *v, struct verifycheck *vc, const char *src_path,
		 const char *out_path);
/* Read a layers or compaction report; 0, or -1 (vc's error says why). */
int verify_load_report(struct verify *v, const char *path);
/* Compare the decoded source and output streams, both from their first
 * line to their tail; then the identity check.  0, or -1. */
int verify_events(struct verify *v, struct stream_in *src, struct stream_in *out);
/* After verify_events and both decoders' success: the render, counts and
 * placement checks.  0, or -1. */
int verify_finish(struct verify *v);

/* A window: OUT was cut from SRC by tr-window(1), described by the report
 * window_path; the layers and compaction reports beside SRC (the trace it
 * was cut from) describe its guides and lanes.  Load, compare the streams
 * (then the identity check), and after both decoders' success finish. */
int verify_window_load(struct verify *v, const char *window_path);
int verify_window_events(struct verify *v, struct stream_in *src, struct stream_in *out);
void verify_window_finish(struct verify *v);

void verify_free(struct verify *v);

/* The next line of a decoded stream that is an event, the head or the
 * tail (LINE_EVENT, LINE_HEAD, LINE_TAIL); -1 with vc's error ("PATH: could
 * not be decoded (...)") when the stream ends early or is broken. */
int verify_next_line(struct verifycheck *vc, struct stream_in *in, const char *path,
		     const char **line, size_t *len);

#endif
