/* verifycheck: the results of tr-verify's checks (source identity,
 * preservation, exact reversal, render, counts, placement, landmark,
 * window): per check its failures, the first of them as lines, and the
 * figures it states; the one error that stops a run (it could not run:
 * exit 2); and the text and JSON reports built from them.
 * The common/ rule: library code returns a status and never prints or
 * exits; the reports are built into a buffer for the caller to write. */
#ifndef TR_VERIFYCHECK_H
#define TR_VERIFYCHECK_H

#include <stdint.h>

#include "core/buf.h"
#include "stream/trstream.h"

/* The failures shown per check; the rest are counted. */
#define VERIFYCHECK_MAX_SHOWN 20

enum verifycheck_id {
	VERIFYCHECK_IDENTITY, VERIFYCHECK_PRESERVE, VERIFYCHECK_REVERSAL, VERIFYCHECK_RENDER,
	VERIFYCHECK_COUNTS, VERIFYCHECK_PLACEMENT, VERIFYCHECK_LANDMARK, VERIFYCHECK_WINDOW,
	VERIFYCHECK_N
};

/* Why a run stopped (verifycheck.error). */
enum verifycheck_error {
	VERIFYCHECK_RUNNING = 0,
	VERIFYCHECK_TROUBLE,   /* err says what; the program exits 2 */
	VERIFYCHECK_NOMEM
};

struct verifycheck_item {
	const char *name;
	uint64_t failures;
	struct buf figures;   /* "N events compared", ... */
	struct buf shown;     /* the first failures, one per line */
	unsigned nshown;
	int ran;
};

struct verifycheck {
	struct verifycheck_item item[VERIFYCHECK_N];
	int error;            /* the first error; later ones are dropped */
	int stop;             /* 1 + the last check the reports show; 0: all */
	char err[5000];       /* its message, without the program's name */
};

void verifycheck_init(struct verifycheck *vc);
void verifycheck_free(struct verifycheck *vc);

/* Count a failure of check id; its line (at most 599 bytes) is kept while
 * fewer than VERIFYCHECK_MAX_SHOWN are. */
void verifycheck_fail(struct verifycheck *vc, int id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append to the figures of check id. */
void verifycheck_figures(struct verifycheck *vc, int id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void verifycheck_ran(struct verifycheck *vc, int id);
/* The reports show no check after id: a failure of id makes the later
 * checks' failures mere consequences (a window compared with a trace it
 * was not cut from fails event after event).  Their failures still count. */
void verifycheck_stop_after(struct verifycheck *vc, int id);

/* Record the error that stops the run (the first one wins); return -1. */
int verifycheck_trouble(struct verifycheck *vc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, followed by ": strerror(errnum)". */
int verifycheck_trouble_errno(struct verifycheck *vc, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int verifycheck_nomem(struct verifycheck *vc);
/* The error of reading the report at path (trstream.h): "PATH: MSG", with
 * ": strerror" for a system error; return -1. */
int verifycheck_report_error(struct verifycheck *vc, const char *path,
			     const struct trstream_error *e);

/* 1 when no check that ran failed. */
int verifycheck_verified(const struct verifycheck *vc);
/* The failures of every check, whether it ran or not (a report read for a
 * check that does not run may still fail it: the exit status says so). */
uint64_t verifycheck_failures(const struct verifycheck *vc);
/* The text report: one line per check that ran ("NAME  ok: FIGURES", or
 * FAILED with the first failures indented), then "verified" or "NOT
 * VERIFIED: do not use this output".  0, or -1 when memory runs out. */
int verifycheck_text(const struct verifycheck *vc, struct buf *out);
/* The same as one JSON object {"checks":[...],"verified":B} and a newline. */
int verifycheck_json(const struct verifycheck *vc, struct buf *out);

#endif
