/* windowgroup: the events a window keeps or drops whole (flows and async
 * events, grouped by id; B/E pairs, grouped by pair), matched on disk so
 * that memory does not grow with the number of ids in the stream.
 *
 * A window keeps a group only when all of it is inside, and which events
 * share a group is known only at the end of the stream.  Instead of a table
 * of every id ever seen, each grouped event adds a small tuple (its key and
 * interval) to one of WINDOWGROUP_PARTS partitions, chosen by a hash of its
 * key, in a temporary file.  Once the window is known, the partitions are
 * matched one at a time in a table of that partition's keys only, and each
 * event's verdict (a byte) is written beside the tuples; the later looks
 * read the verdicts back through a block per partition.
 *
 * Memory: WINDOWGROUP_PARTS write buffers of WINDOWGROUP_CHUNK bytes while
 * the stream is read; while matching, a table of the distinct keys of at
 * most round_events events (a partition with more is matched in rounds);
 * then WINDOWGROUP_PARTS read blocks of WINDOWGROUP_BLOCK bytes.  The common/ rule: library code returns a status (here -1 with
 * errno set: ENOMEM, or the error of the temporary file) and never prints
 * or exits. */
#ifndef TR_WINDOWGROUP_H
#define TR_WINDOWGROUP_H

#include <stddef.h>
#include <stdint.h>

#define WINDOWGROUP_PARTS 128
#define WINDOWGROUP_CHUNK 8192   /* bytes of tuples written at a time */
#define WINDOWGROUP_BLOCK 4096   /* verdicts read at a time */
/* A partition of more events than this is matched in several rounds, each
 * holding the keys of one share of it (split by more bits of the hash), so
 * that the matching table stays bounded however many ids a trace has. */
#define WINDOWGROUP_ROUND (1u << 16)

/* What an event adds to its group. */
enum windowgroup_kind {
	WGROUP_FLOW,     /* a flow event (s, t, f): the group spans all its events */
	WGROUP_ASYNC,    /* an async event (b, e, n, S, T, p, F): likewise */
	WGROUP_BEGIN,    /* the B of a B/E pair: the pair starts here and, without
			  * its E, lasts to the end */
	WGROUP_END       /* the E of a pair: the pair ends here */
};

/* The verdict on one event of a group. */
enum windowgroup_verdict {
	WGROUP_KEEP = 1,  /* the group is kept (flows, async: all inside the
			   * window; pairs: overlapping it) */
	WGROUP_CUT = 2,   /* a flow or async event inside the window, of a group
			   * with an event outside: dropped */
	WGROUP_DROP = 3   /* outside the window, group dropped */
};

/* Where an event's verdict is: its partition + 1 (0: not grouped) and its
 * rank among that partition's events. */
struct windowgroup_ref {
	uint16_t part;
	uint32_t rank;
};

struct windowgroup_block {
	uint64_t start;   /* rank of data[0] */
	uint32_t n;       /* verdicts held */
	uint8_t data[WINDOWGROUP_BLOCK];
};

struct windowgroup {
	int fd;                 /* the temporary file, -1 until the first event */
	const char *prefix;     /* its name's prefix */
	const char *dir;        /* its directory, for a message */
	size_t nparts;          /* WINDOWGROUP_PARTS, or fewer (tests) */
	uint64_t round_events;  /* WINDOWGROUP_ROUND, or fewer (tests) */
	char *bufs;             /* nparts x WINDOWGROUP_CHUNK: unwritten tuples */
	uint32_t *fill;         /* bytes in each buffer */
	uint64_t *first, *last; /* file offsets of each partition's first and
				 * last chunk (a chain on disk) */
	uint64_t *count;        /* events per partition */
	uint64_t end;           /* bytes in the file */
	uint64_t verdicts;      /* file offset of partition 0's verdicts */
	int decided;
	/* matched: the most distinct keys held at once (one round of one
	 * partition), the rounds, and the groups cut by the window */
	uint64_t peak_keys, rounds, flows_cut, async_cut;
	struct windowgroup_block *blocks;  /* one per partition */
};

/* nparts: WINDOWGROUP_PARTS (1 to WINDOWGROUP_PARTS; tests use fewer);
 * prefix: the temporary file's name (io_open_spill); 0 or -1. */
int windowgroup_init(struct windowgroup *g, size_t nparts, const char *prefix);
void windowgroup_free(struct windowgroup *g);

/* The partition of a key (text NULL: the integer key; else its n bytes). */
size_t windowgroup_part_of(const struct windowgroup *g, enum windowgroup_kind kind, int64_t key,
			   const char *text, size_t n);

/* One grouped event, in stream order: its key (text NULL for an integer
 * key; pairs are keyed by their number) and its interval [lo, hi] in half
 * ns; *ref says where its verdict will be.  0 or -1. */
int windowgroup_add(struct windowgroup *g, enum windowgroup_kind kind, int64_t key,
		    const char *text, size_t n, int64_t lo, int64_t hi,
		    struct windowgroup_ref *ref);

/* Match the groups against the window [w0, w1] (half ns): every verdict,
 * peak_keys, flows_cut and async_cut.  Once; 0 or -1. */
int windowgroup_decide(struct windowgroup *g, int64_t w0, int64_t w1);

/* The verdict of an event (after windowgroup_decide), or -1. */
int windowgroup_verdict(struct windowgroup *g, struct windowgroup_ref ref);

#endif
