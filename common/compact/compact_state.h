/* compact_state: the records and the state that compaction's passes share
 * (compact.h runs them; compact_flow.h binds the flows, compact_report.h
 * writes the report), below all of them, with the helpers each pass uses:
 * the refusal, an event's members, a group's display pid (compact.c).
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  A function that refuses the input returns COMPACT_REFUSED with
 * the message (without the program name) in compact_message. */
#ifndef TR_COMPACT_STATE_H
#define TR_COMPACT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/extsort.h"
#include "compact/compact_spill.h"
#include "json/event.h"
#include "core/intern.h"
#include "json/json.h"
#include "compact/lanes.h"

enum compact_status {
	COMPACT_OK = 0,
	COMPACT_REFUSED = -1,  /* input rejected or refused: compact_message says why */
	COMPACT_NOMEM = -2,
	COMPACT_LANES = -3,    /* compact_plan: too many lanes; see compact_lanes_message */
	COMPACT_SYSTEM = -4    /* a temporary file failed: errno says why */
};

#define COMPACT_MAX_LANES 10
#define COMPACT_LANE_TID_BASE ((int64_t)0x7E000000)  /* synthetic lane tids start here */
#define COMPACT_SCOPE_PID_BASE ((int64_t)0x7F000000) /* synthetic scope pids start here */
#define COMPACT_NO_CORR INT64_MIN
/* Bytes of records an external sort holds in memory before it writes a
 * sorted run to its temporary file. */
#define COMPACT_RUN_BYTES ((size_t)2 << 20)

enum { COMPACT_ACTIVITY = 0, COMPACT_SCOPE = 1 };
enum { COMPACT_F_ZERO = 1, COMPACT_F_KERNEL = 2, COMPACT_F_SCOPE = 4 };

/* One GPU activity (kernel, memcpy, memset) or GPU scope: 48 bytes. */
struct compact_act {
	int64_t start_ns;   /* exact ts, floor */
	int64_t end_ns;     /* exact ts + dur, ceiling */
	int64_t corr;       /* args.correlation, or COMPACT_NO_CORR */
	uint32_t index;     /* source index */
	uint32_t track;     /* original (pid, tid) */
	uint32_t group;
	uint32_t ord;       /* the order records were made in */
	int16_t lo_pad;     /* Perfetto may start this much earlier */
	int16_t hi_pad;     /* ... and end this much later */
	uint8_t lane;
	uint8_t flags;
};

/* Where a moved activity goes, by source index, for pass two: 12 bytes. */
struct compact_lane_rec {
	uint32_t index;
	uint32_t group;
	uint8_t lane;
};

/* Where pass two finds the members it rewrites in a moved activity's
 * line, or a flow's on a track already moved, when pass one walked it:
 * 32 bytes. */
struct compact_offsets {
	uint32_t index;
	uint32_t pid_off, pid_len;
	uint32_t tid_off, tid_len;
	uint32_t args_off, args_len;  /* args_len 0: no args ... */
	uint32_t args_rest;  /* ... or, when not 0, args' end is not known: pass
			      * one stopped at this member of args */
};

/* A flow (ph s, t, f) on a (pid, tid), from pass one: 24 bytes. */
enum {
	COMPACT_FLOW_OK = 0,
	COMPACT_FLOW_TS_TEXT = 1,   /* ts is not a number */
	COMPACT_FLOW_TS_RANGE = 2,  /* ts is out of range */
	COMPACT_FLOW_UNPARSED = 3   /* a line with escapes that is not JSON */
};
struct compact_flow_rec {
	int64_t ts_ns;      /* floor */
	int64_t id;         /* its numeric id, or COMPACT_NO_CORR; the join's key */
	uint32_t index;
	uint32_t track;
	uint8_t sub;        /* ts has a part below 1 ns */
	uint8_t status;
};

/* A flow on a moved track, bound or refused, for pass two: 16 bytes. */
enum {
	COMPACT_BIND_HIT = 0,
	COMPACT_BIND_EXACT_MANY = 1, /* starts exactly at several */
	COMPACT_BIND_INSIDE_MANY = 2,/* lies inside several */
	COMPACT_BIND_NONE = 3,       /* matches none */
	COMPACT_BIND_TS_TEXT = 4,
	COMPACT_BIND_TS_RANGE = 5,
	COMPACT_BIND_UNPARSED = 6
};
struct compact_flow_hit {
	uint32_t index;
	uint32_t group;
	uint32_t track;
	uint8_t lane;
	uint8_t status;
};

/* A layer guide slice, for the overlap check: 24 bytes. */
struct compact_guide_rec {
	int64_t start, end;
	uint64_t index;
};

struct compact_track {
	char *pid, *tid;     /* raw JSON */
	uint32_t pid_id;
	int moved;
	uint64_t nother;     /* events that cannot be placed */
	uint64_t first_other;
	uint64_t first_flow; /* its first flow event, or UINT64_MAX */
	int has_corr;        /* some activity here carries args.correlation */
	int dev_selected;    /* --device: activity of that device is here */
	int dev_seen;        /* --device: any GPU activity is here */
	int gpu_pid_noted;   /* its pid is in gpu_pids */
};

struct compact_lane_count {
	uint32_t track;
	uint32_t first;      /* the smallest record ord counted here */
	uint64_t count;
	uint64_t kernels;
};

struct compact_group {
	char *pid, *device;  /* raw JSON; device "null" when absent */
	uint32_t pid_id;
	int kind;
	uint64_t nacts, nkernels;
	unsigned nlanes;
	int64_t lane_tid[COMPACT_MAX_LANES];
	int64_t display_pid;   /* scopes: the new pid; activity: -1 (same pid) */
	int by_device;         /* scopes: the pid has scopes on several devices */
	struct compact_lane_count *counts[COMPACT_MAX_LANES];
	size_t ncounts[COMPACT_MAX_LANES];
};

/* A category list note_categories looked at last, in its slot. */
#define COMPACT_RECENT_CATS 8
struct compact_cat_slot {
	char text[30];
	uint16_t len;        /* the text's length + 1; 0: none yet */
};

struct compact_retired {
	uint32_t index;
	uint32_t track;
	char *text;
};

/* The state of one compaction: opaque outside the compaction's files
 * (compact_impl.h defines it; compact.h is its interface). */
struct compact;

/* The refusal: the message, formatted, into c->msg; COMPACT_REFUSED, or
 * COMPACT_NOMEM when it cannot be held. */
int compact_refuse(struct compact *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Top-level members keys[0..n) of an event line (or of an args object), as
 * raw value text; len 0 when absent.  COMPACT_REFUSED on a line with
 * escapes that is not JSON ("event I: not a JSON object"). */
int compact_members(struct compact *c, const char *line, size_t len, const char *const *keys,
		    int n, struct member *out);

/* The display pid of a group as text: its own pid, or the scope process
 * (space: 24 bytes). */
const char *compact_display_pid(const struct compact_group *g, char *space);

#endif
