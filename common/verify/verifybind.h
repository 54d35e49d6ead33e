/* verifybind: the slice a v1 flow event (ph s, t or f) binds to when
 * Perfetto imports a track, for tr-verify's check that every flow
 * tr-compact moved binds in the view to the slice it binds to in the
 * source.  The caller hands over one track's slices and flows in
 * Perfetto's sorted order (verifybind_slice_first), each slice as it
 * begins: a slice begins after popping those that ended before it (or at
 * its start, unless both are zero-length), nests in the one it lies in,
 * and is left off the track's stack when it sticks out of it (Perfetto
 * moves it to an overflow track) -- or, with nest, nests there too, as
 * Perfetto did before v51: a CUDA stream whose kernels overlap by a few
 * ns (a profiler's rounding) imports with the later kernel spilled, so
 * that a flow at its start binds to the kernel before; the kernel the
 * flow belongs to is the one nest finds.  s, t and f with "bp":"e" bind to the
 * top of the stack, ended or not (ended slices leave it only when the next
 * slice begins); f without bp waits for the next slice that begins.
 * Memory: the slices open at once, and the f events waiting.
 * The common/ rule: library code returns a status and never prints or
 * exits. */
#ifndef TR_VERIFYBIND_H
#define TR_VERIFYBIND_H

#include <stddef.h>
#include <stdint.h>

#define VERIFYBIND_NONE UINT64_MAX   /* bound to no slice */

struct verifybind_open {
	int64_t start, end;
	uint64_t index;
};

/* Told the slice a waiting flow (its record, as queued) binds to; 0, or
 * -1 to stop. */
typedef int (*verifybind_fn)(void *ctx, void *rec, uint64_t slice);

struct verifybind {
	struct verifybind_open *stack;
	size_t n, cap;
	char *wait;               /* f events without bp, rec_size each */
	size_t nwait, wait_cap, rec_size;
	verifybind_fn fn;
	void *ctx;
	int nest;                 /* a slice sticking out nests all the same */
};

void verifybind_init(struct verifybind *b, int nest, size_t rec_size, verifybind_fn fn,
		     void *ctx);
/* 1 when Perfetto handles the slice [start, end) (file position index)
 * before a flow event at ts (file position fi) of the same track: an
 * earlier start, or the same with a length, or zero-length and earlier in
 * the file. */
int verifybind_slice_first(int64_t start, int64_t end, uint64_t index, int64_t ts, uint64_t fi);
/* A slice begins.  0, or -1 (memory, or fn's -1). */
int verifybind_slice(struct verifybind *b, int64_t start, int64_t end, uint64_t index);
/* A flow event: wait 0 (s, t, f with "bp":"e"): *slice is the slice it
 * binds to (VERIFYBIND_NONE for none) and 1 is returned; wait 1 (f
 * without bp): rec is queued for fn and 0 is returned; -1 when memory
 * runs out. */
int verifybind_flow(struct verifybind *b, int wait, const void *rec, uint64_t *slice);
/* The end of a track: the waiting flows bind to nothing.  0, or -1. */
int verifybind_track_end(struct verifybind *b);
void verifybind_free(struct verifybind *b);

#endif
