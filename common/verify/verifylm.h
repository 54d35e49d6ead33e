/* verifylm: tr-verify's landmark check.  A layers report that claims a
 * second landmark (tr-select-anchors --confirm-regex, --confirm-cpu) is
 * recounted from a fresh decode of the source with tr-select-anchors(1)'s
 * rule: a kernel of the guides' pid and device, exactly once in [start_us,
 * end_us) of every guide ending at the next anchor or at a terminal's end;
 * a CPU scope, exactly once between the launches of consecutive anchors of
 * a pass, on the threads that launched them.  Times at nanosecond floors.
 * The common/ rule: library code returns a status and never prints or
 * exits; failures go to a struct verifycheck. */
#ifndef TR_VERIFYLM_H
#define TR_VERIFYLM_H

#include <stdint.h>

#include "core/buf.h"
#include "json/json.h"
#include "json/regex.h"
#include "stream/stream.h"
#include "verify/verifycheck.h"

/* The whole report is read as one document, so it is capped (56 672 rows
 * take 24 MB). */
#define VERIFYLM_REPORT_MAX ((uint64_t)1 << 30)
#define VERIFYLM_REPORT_MAX_TEXT "1 GiB"

/* A source event placed for the check: a matching kernel or CPU scope (key
 * unused), or a kernel launch (key: its args.correlation); for the
 * anchors, key is the correlation once found and row the report's row. */
struct verifylm_mark {
	int64_t key, ns;
	char *pid, *tid;  /* raw; NULL for kernels */
	int row;
};

struct verifylm_marks {
	struct verifylm_mark *v;
	size_t n, cap;
};

struct verifylm {
	struct verifycheck *vc;
	const char *path;             /* the report that claims the landmark */
	struct buf text, name;
	struct jdoc d, ev;            /* the report; one source event */
	struct regex *re;
	const char *pid, *dev, *rxraw;
	size_t pn, dn, rxn;
	int rows, nrows, cpu;
	struct verifylm_marks found, launches, anchors;
};

void verifylm_init(struct verifylm *lm, struct verifycheck *vc);
/* Find the first of the reports that claims a landmark: 1 (the check runs:
 * then verifylm_source and verifylm_finish), 0 when none does, -1 (vc's
 * error says why). */
int verifylm_load(struct verifylm *lm, const char *const *reports, int nreports);
/* The decoded source, from its head to its tail (src_path names it in
 * messages).  0, or -1. */
int verifylm_source(struct verifylm *lm, struct stream_in *in, const char *src_path);
/* After the source's decoder succeeded: the counts.  0, or -1. */
int verifylm_finish(struct verifylm *lm);
void verifylm_free(struct verifylm *lm);

#endif
