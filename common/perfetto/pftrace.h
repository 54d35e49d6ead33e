/* pftrace: the trace-layers event stream as a Perfetto protobuf trace
 * (a sequence of TracePacket, Perfetto's own field numbers), one event line
 * at a time, in bounded memory.  What becomes what:
 *   every pid: a process TrackDescriptor (process_name, and
 *     process_sort_index as sibling_order_rank under explicit ordering);
 *   every (pid, tid): a thread TrackDescriptor (thread_name,
 *     thread_sort_index), synthetic lanes and the layer guide included;
 *   X: SLICE_BEGIN at ts and SLICE_END at ts + dur; B / E: SLICE_BEGIN /
 *     SLICE_END; i / I: INSTANT (scope g: a global track, p: the process,
 *     else the thread); C: one COUNTER per numeric args member, on the
 *     process's counter track "NAME KEY";
 *   s / t / f: flow ids on the packet that begins the slice Perfetto's
 *     JSON import binds them to (see pftrace.c);
 *   M: the descriptors above; other metadata and other phases are left out.
 * Names, categories, args keys and short string values are interned
 * (InternedData), the table reset past PFTRACE_INTERN_MAX_* entries or
 * bytes.  Every args member is a debug annotation of its JSON type.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_PFTRACE_H
#define TR_PFTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/extsort.h"
#include "core/intern.h"
#include "json/json.h"
#include "perfetto/pb.h"

/* Perfetto's field numbers (protos/perfetto/trace/...), the subset used. */
enum {
	PF_TRACE_PACKET = 1,
	PF_PKT_TIMESTAMP = 8, PF_PKT_SEQ_ID = 10, PF_PKT_TRACK_EVENT = 11,
	PF_PKT_INTERNED = 12, PF_PKT_SEQ_FLAGS = 13, PF_PKT_TRACK_DESCRIPTOR = 60,
	PF_PKT_CLOCK_SNAPSHOT = 6, PF_PKT_DEFAULTS = 59, PF_PKT_CLOCK_ID = 58,
	PF_CS_CLOCKS = 1, PF_CS_CLOCK_ID = 1, PF_CS_TIMESTAMP = 2, PF_CS_INCREMENTAL = 3,
	PF_SEQ_CLEARED = 1, PF_SEQ_NEEDS = 2,
	PF_TE_CATEGORY_IIDS = 3, PF_TE_DEBUG = 4, PF_TE_TYPE = 9, PF_TE_NAME_IID = 10,
	PF_TE_TRACK_UUID = 11, PF_TE_COUNTER = 30, PF_TE_DOUBLE_COUNTER = 44,
	PF_TE_FLOW_IDS = 47, PF_TE_TERMINATING_FLOW_IDS = 48,
	PF_TYPE_BEGIN = 1, PF_TYPE_END = 2, PF_TYPE_INSTANT = 3, PF_TYPE_COUNTER = 4,
	PF_ID_CATEGORIES = 1, PF_ID_NAMES = 2, PF_ID_ARG_NAMES = 3, PF_ID_STRINGS = 29,
	PF_IID = 1, PF_IID_NAME = 2,
	PF_DA_NAME_IID = 1, PF_DA_BOOL = 2, PF_DA_UINT = 3, PF_DA_INT = 4, PF_DA_DOUBLE = 5,
	PF_DA_STRING = 6, PF_DA_JSON = 9, PF_DA_DICT = 11, PF_DA_ARRAY = 12,
	PF_DA_STRING_IID = 17,
	PF_TD_UUID = 1, PF_TD_NAME = 2, PF_TD_PROCESS = 3, PF_TD_THREAD = 4,
	PF_TD_PARENT = 5, PF_TD_COUNTER = 8, PF_TD_RANK = 12, PF_TD_PROCESS_ORDERING = 19,
	PF_TD_THREAD_ORDERING = 20,
	PF_PD_PID = 1, PF_PD_NAME = 6,
	PF_THD_PID = 1, PF_THD_TID = 2, PF_THD_NAME = 5
};

/* The interning bound: past this many entries, or bytes of their text, the
 * next packet starts a new incremental state (SEQ_INCREMENTAL_STATE_CLEARED). */
#define PFTRACE_INTERN_MAX_ENTRIES 65536
#define PFTRACE_INTERN_MAX_BYTES ((size_t)8 << 20)
/* a string value longer than this is written in place, not interned */
#define PFTRACE_INTERN_MAX_STRING 256
/* pids and tids that are not integers in range (strings such as "Spans")
 * get these numbers, in order of first appearance */
#define PFTRACE_SYNTH_PID 0x70000000
#define PFTRACE_SYNTH_TID 0x70000000
/* Timestamps: a ClockSnapshot before the first defines the sequence's
 * clock PFTRACE_CLOCK as BOOTTIME, incremental (each packet's timestamp
 * the delta from the last one on it), and TracePacketDefaults make it
 * every packet's; a time earlier than the last one is a negative delta
 * (its two's complement, ten bytes).  Exact ns either way. */
#define PFTRACE_CLOCK 64
#define PFTRACE_BOOTTIME 6
/* the one sequence every packet belongs to */
#define PFTRACE_SEQ_ID 1
#define PFTRACE_GLOBAL_TRACK_NAME "Global instants"

/* PFTRACE_TEMP: the temporary file or sort failed (err says why) */
enum pftrace_status { PFTRACE_OK = 0, PFTRACE_INPUT = -1, PFTRACE_WRITE = -2,
		      PFTRACE_NOMEM = -3, PFTRACE_TEMP = -4 };

/* What an event line becomes: its phase's class. */
enum pf_kind { PF_K_SKIP = 0, PF_K_SLICE, PF_K_BEGIN, PF_K_END, PF_K_INSTANT, PF_K_COUNTER,
	       PF_K_FLOW, PF_K_META };
enum pf_kind pftrace_kind(const char *ph, size_t n);

/* The ids of processes and threads, shared with the reader: pid and tid
 * raw JSON texts to numbers (integers within int32 / int64 as they are,
 * anything else a synthetic number from PFTRACE_SYNTH_*). */
struct pf_proc {
	uint64_t uuid;
	int32_t pid;
	int synthetic;
	char *name;         /* process_name, or the raw string of a synthetic pid */
	int has_rank;
	int32_t rank;
};
/* A slice or flow of a thread for the binding: ts (a slice's start),
 * end, file position, and for a flow its id and kind. */
struct pf_item {
	int64_t ts, end;
	uint64_t index, id, slot;   /* slot: the slice's packet */
	uint32_t thread;
	uint8_t slice, term, wait;
};
struct pf_open {
	int64_t start, end;
	uint64_t slot, index;
};
struct pf_thread {
	uint64_t uuid;
	uint32_t proc;      /* index into procs */
	int64_t tid;
	int synthetic;
	char *name;
	int has_rank;
	int32_t rank;
	/* the writer's binding of flows (pftrace.c): items not yet taken in
	 * Perfetto's order, the slices open in that order, the f events
	 * waiting for the next slice, the B events waiting for their E */
	struct pf_item *wait;
	size_t nwait, capwait;
	struct pf_open *stack, *bstack;
	size_t nstack, capstack, nb, capb;
	int has_mark;           /* pfread: a thread with slices */
};
struct pf_ids {
	struct intern procs_by_raw, threads_by_raw;
	struct pf_proc *procs;
	struct pf_thread *threads;
	size_t nprocs, capprocs, nthreads, capthreads;
	uint64_t next_uuid;
	int32_t next_synth_pid;
	int64_t next_synth_tid;
	char last_key[64];      /* the last thread's "pid\0tid" texts */
	size_t last_len;
	int64_t last_thread;
};
/* The process (thread) of raw pid (pid, tid) texts: its index, *created set
 * to 1 when it is new; -1 when memory runs out. */
int64_t pf_ids_proc(struct pf_ids *ids, const char *pid, size_t pn, int *created);
int64_t pf_ids_thread(struct pf_ids *ids, const char *pid, size_t pn, const char *tid,
		      size_t tn, int *created);
void pf_ids_free(struct pf_ids *ids);
/* The tokens (in a parsed event line) of the members the writer and the
 * reader use, the first of each name; -1 where absent.  pf_members: -1
 * when the line is not an object.  pf_raw: a member's raw JSON text, ""
 * (length 0) when absent. */
struct pf_members {
	int ph, name, cat, pid, tid, ts, dur, args, id, bp, scope;
};
int pf_members(const struct jdoc *d, struct pf_members *e);
const char *pf_raw(const struct jdoc *d, int tok, size_t *n);

/* A metadata (M) event's process_name, thread_name, process_sort_index or
 * thread_sort_index, as Perfetto's JSON import reads it, applied to ids:
 * name_tok and args_tok its name and args tokens in d (-1: absent), pid
 * and tid their raw texts (length 0: absent).  *pr the process it names
 * and *th its thread (-1 for a process's metadata), *created as
 * pf_ids_thread sets it.  PF_META_NONE: it names no process or thread;
 * PF_META_IDS: it does, but holds no value of the right type, so nothing
 * is set; PF_META_SET: the name or rank is set (a double rank truncated,
 * every rank clamped to int32).  tmp: scratch. */
enum pf_meta { PF_META_NOMEM = -2, PF_META_ESCAPE = -1, PF_META_NONE = 0, PF_META_IDS,
	       PF_META_SET };
int pf_ids_meta(struct pf_ids *ids, const struct jdoc *d, int name_tok, int args_tok,
		const char *pid, size_t pn, const char *tid, size_t tn, struct buf *tmp,
		int64_t *th, int64_t *pr, int *created);
/* Perfetto's JSON import order of two items of a track: by ts, slices
 * with a length (the longer first) before flows, the rest in file order. */
int pf_item_cmp(const struct pf_item *a, const struct pf_item *b);

/* The flow id of an s / t / f event: a 64-bit hash of its (cat, name, id)
 * texts, Perfetto's identity of a JSON flow. */
uint64_t pftrace_flow_id(const char *cat, size_t cn, const char *name, size_t nn,
			 const char *id, size_t in);

typedef int (*pftrace_put_fn)(void *ctx, const void *data, size_t n);

/* A packet to be written: the lengths of its parts (the fields before
 * the track event, the track event, the fields after), and the flows
 * bound to the slice it begins. */
struct pf_qent {
	size_t pre, te, post;
	int64_t ts;
	int has_ts, is_te;
	uint64_t *flows;
	uint8_t *term;
	size_t nflows, capflows;
};
/* a packet's head in the spill file: five varints at most (pftrace.c) */
#define PF_SPILL_HEAD_MAX 50
/* a flow bound to the slice that packet slot begins */
struct pf_bind {
	uint64_t slot, id;
	uint8_t term, pad[7];
};
#define PFTRACE_SORT_RUN ((size_t)4 << 20)

struct pftrace {
	pftrace_put_fn put;
	void *put_ctx;
	struct pf_ids ids;
	struct intern names, cats, argnames, strings;
	uint32_t *next_key;     /* the args key iid that last followed iid k (0: none) */
	size_t capnext;
	size_t intern_bytes;
	int cleared;            /* the next event packet clears the state */
	struct pb pkt;
	struct pb interned;     /* this packet's new entries */
	struct jdoc doc;
	struct buf tmp;
	uint64_t global_uuid;
	struct intern counters; /* "pid\0name\0key" -> counter track */
	uint64_t *counter_uuids;
	size_t capcounters;
	/* the packets, spilled in file order until their flows are known */
	FILE *spill;
	uint64_t nqueued;
	struct extsort items, binds;
	int sorts;
	struct buf out;
	size_t pre_len;         /* the packet being built: bytes before its track event */
	int64_t pkt_ts;
	int clock_set;
	int64_t clock_last, min_ts;
	int64_t spill_ts;       /* the last spilled packet's time */
	uint64_t nqueued_ts;
	uint64_t packets, events, flows, flows_dropped, skipped, resets;
	char err[256];
};

int pftrace_init(struct pftrace *p, pftrace_put_fn put, void *ctx);
/* One event line (a JSON object, as tr-encode checked it). */
int pftrace_event(struct pftrace *p, const char *line, size_t len);
/* The rest of the queue; flows that bind to no slice are left out
 * (counted in flows_dropped). */
int pftrace_finish(struct pftrace *p);
void pftrace_free(struct pftrace *p);

/* The time texts of an event: a number or a string holding one, in
 * microseconds, to exact nanoseconds (the floor below a nanosecond). */
int pftrace_time(const struct jdoc *d, int tok, int64_t *ns);

#endif
