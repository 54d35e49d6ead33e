/* gen: the deterministic, Kineto-shaped Chrome JSON trace of a simulated
 * transformer's forward passes that tr-gen writes, for the demo, the tests
 * and the benchmarks.  The same configuration always gives the same bytes.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_GEN_H
#define TR_GEN_H

#include <stdint.h>

#include "progress.h"
#include "writer.h"

/* How events are laid out. */
enum gen_layout {
	GEN_INDENTED,  /* Kineto's: a few lines per event, args on one line */
	GEN_COMPACT,   /* one event per line */
	GEN_LINES,     /* Kineto's as torch 2.0 writes it: args a few members a line */
	GEN_INDENT2    /* one event per line, each indented by two spaces */
};

struct gen_config {
	uint64_t layers, passes, draft_passes, draft_layers;
	unsigned streams, concurrency, devices;
	unsigned experts;         /* > 1: the MLP is this many expert kernels at once */
	int ts_int;               /* integer microseconds instead of Kineto's %.3f */
	uint64_t origin_us;
	uint64_t target_bytes;    /* 0: passes decides */
	int array;                /* the JSON Array Format */
	enum gen_layout layout;
	int rocm;                 /* HIP: stream 0, hip* calls, ROCm kernel names */
	int disorder;             /* events out of time order (see gen.c) */
	int args_first;           /* runtime events' args before their ts and dur */
	uint64_t scale_devices;   /* one pid, this many devices, one kernel each */
	uint64_t scale_pids;      /* this many pids, one kernel each */
	uint64_t seed;
	uint64_t rank;            /* mixed into every device's seed */
	int64_t slow_layer;       /* -1, or the target layer whose attention is slowed */
	uint64_t slowdown;        /* percent added to that attention kernel's duration */
	struct progress *meter;   /* NULL, or told the bytes counted ("counting", the
	                           * sizing run of target_bytes) and written ("generating") */
};

/* tr-gen's defaults: 4 layers, 2 passes, one stream, device and slot. */
void gen_defaults(struct gen_config *cfg);

/* --shape NAME (dense, moe or kineto): the options of that bench trace,
 * about 900 MiB, set in cfg; -1 (cfg untouched) for another name. */
int gen_shape(struct gen_config *cfg, const char *shape);

/* Write the trace to w (not flushed).  0, or -1 with errno set: a failed
 * write (EPIPE included: the caller decides), ENOMEM, or EINVAL for a
 * configuration out of range (concurrency above streams, experts above
 * concurrency, no device). */
int gen_write(const struct gen_config *cfg, struct writer *w);

#endif
