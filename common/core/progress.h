/* progress: the one-line meter of a long run on a terminal, redrawn in
 * place on a descriptor the program hands it:
 *
 *   annotating 612.3M/1.6G 37% 45.2M/s ETA 0:23
 *   reading 612.3M 45.2M/s                  (a source of unknown size)
 *
 * the phase, the bytes of the source read and its size (K, M, G: powers of
 * 1024, one decimal), the share read, the phase's mean rate and the time
 * left at that rate (M:SS, or H:MM:SS).  Nothing is drawn in a run's first
 * second, then at most four times a second; progress_end clears the line,
 * so that what the program prints next starts on a clean line.
 * The common/ rule: library code returns a status and never exits; it
 * writes only the meter's line, and only to the descriptor it was given. */
#ifndef TR_PROGRESS_H
#define TR_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define PROGRESS_DELAY_NS 1000000000ull   /* nothing drawn before 1 s */
#define PROGRESS_PERIOD_NS 250000000ull   /* then at most four redraws a second */
#define PROGRESS_LINE_MAX 160

enum progress_mode {
	PROGRESS_AUTO = 0,   /* only when the descriptor is a terminal */
	PROGRESS_FORCE = 1,  /* --progress */
	PROGRESS_QUIET = 2   /* --quiet */
};

/* Nanoseconds of a monotonic clock; tests give their own. */
typedef uint64_t (*progress_clock_fn)(void);

struct progress {
	int fd;                  /* the line's descriptor; -1: the meter is off */
	const char *phase;
	uint64_t total;          /* the source's size; 0: unknown */
	uint64_t born_ns;        /* progress_init: the first second counts from here */
	uint64_t phase_ns;       /* progress_phase: the rate counts from here */
	uint64_t drawn_ns;       /* the last redraw */
	int drawn;               /* a line is on the screen */
	progress_clock_fn clock;
};

/* Whether to draw, from the mode and whether the descriptor is a
 * terminal: 1 or 0. */
int progress_wanted(int mode, int is_tty);

/* The meter on fd (-1: off, and every call below does nothing), with the
 * clock (NULL: CLOCK_MONOTONIC).  The phase is "working" until set. */
void progress_init(struct progress *p, int fd, progress_clock_fn clock);
/* progress_init on fd when progress_wanted(mode, isatty(fd)), else off,
 * in the phase given. */
void progress_start(struct progress *p, int mode, int fd, const char *phase);
/* A new phase over a source of total bytes (0: unknown): the rate and
 * the time left count from now. */
void progress_phase(struct progress *p, const char *phase, uint64_t total);
/* done bytes of the phase's source are read: the line is redrawn when due
 * (progress_due).  0, or -1 with errno when writing failed: the meter is
 * then off. */
int progress_update(struct progress *p, uint64_t done);
/* The line cleared, if one was drawn ("\r", then erase to the end of the
 * line).  0, or -1 with errno; the meter is off afterwards. */
int progress_end(struct progress *p);

/* Whether a redraw is due at now: a second after progress_init, and a
 * quarter of a second after the last one. */
int progress_due(const struct progress *p, uint64_t now);

/* The line (no "\r", no newline) into buf: its length, as snprintf's. */
size_t progress_format(char *buf, size_t cap, const char *phase, uint64_t done, uint64_t total,
		       uint64_t elapsed_ns);
/* A byte count as the line writes it: "512B", "1.0K", "612.3M", "1.6G". */
size_t progress_bytes(char *buf, size_t cap, uint64_t n);
/* Seconds as the line writes them: "0:07", "12:34", "1:02:03". */
size_t progress_duration(char *buf, size_t cap, uint64_t seconds);

#endif
