/* ranktab: the cross-rank layer table of tr-ranks(1).  Cells are anchor
 * intervals in integer nanoseconds, one per (layer, rank); a row's median
 * is taken over the ranks, a rank's total over the layers, and a cell is a
 * straggler when it exceeds its row's median by more than a threshold
 * percentage.  Every comparison is exact integer arithmetic (no double), so
 * that an oracle recomputes the same table from the same reports.  The
 * table is filled from the ranks' layers reports (tr-guides(1)) and
 * rendered as text, TSV, JSON or an SVG heat map.
 * Library code: it returns a status and never prints or exits; a refused
 * report comes back as the text tr-ranks prints. */
#ifndef TR_RANKTAB_H
#define TR_RANKTAB_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/json.h"

/* A cell without an interval (the last layer of a pass without
 * --end-anchor-regex is a zero-length marker). */
#define RANKTAB_NONE INT64_MIN
/* Largest interval or total accepted, 10^15 ns (about 11.6 days): with
 * thresholds up to RANKTAB_MAX_PERCENT no product below can overflow. */
#define RANKTAB_MAX_NS INT64_C(1000000000000000)
#define RANKTAB_MAX_PERCENT 1000

struct ranktab {
	size_t nlayers, nranks;
	int64_t *cell;     /* [layer * nranks + rank], ns or RANKTAB_NONE */
	int64_t *median;   /* nlayers + 1: each layer's median over the ranks,
	                    * then the totals' median; RANKTAB_NONE when the
	                    * row has no interval */
	int64_t *total;    /* nranks: the sum of the rank's intervals */
	int64_t *mad;      /* nlayers + 1: each row's median absolute deviation
	                    * from its median (lower median), RANKTAB_NONE as
	                    * median is */
};

/* Where a cell lies relative to its row's median m, with threshold T
 * percent. */
enum ranktab_band {
	RANKTAB_BAND_NONE = 0, /* no interval (or none in the row) */
	RANKTAB_BAND_FAST,     /* cell < m (100 - T) / 100 */
	RANKTAB_BAND_BELOW,    /* m (100 - T) / 100 <= cell < m */
	RANKTAB_BAND_NEAR,     /* m <= cell <= m (100 + T) / 100 */
	RANKTAB_BAND_SLOW,     /* m (100 + T) / 100 < cell <= m (100 + 3T) / 100: a straggler */
	RANKTAB_BAND_SLOWEST   /* cell > m (100 + 3T) / 100: a straggler */
};

/* The lower median of n > 0 values (the smaller of the two middle ones for
 * an even n, so that it is always one of the values); sorts v in place. */
int64_t ranktab_median_low(int64_t *v, size_t n);

/* All cells RANKTAB_NONE.  0, or -1 with errno set (ENOMEM, EINVAL for a
 * zero dimension). */
int ranktab_init(struct ranktab *t, size_t nlayers, size_t nranks);
void ranktab_free(struct ranktab *t);

/* Fill median and total from the cells.  0, or -1 with errno ERANGE when a
 * cell is negative or above RANKTAB_MAX_NS or a total would be, ENOMEM. */
int ranktab_compute(struct ranktab *t);

/* The cell of a layer, or with layer == nlayers the rank's total. */
int64_t ranktab_value(const struct ranktab *t, size_t layer, size_t rank);

/* The band of value v against median m (both ns, RANKTAB_NONE allowed) for
 * threshold percent (0 to RANKTAB_MAX_PERCENT). */
enum ranktab_band ranktab_band(int64_t v, int64_t m, unsigned percent);

/* 1 when v exceeds m by more than percent: v 100 > m (100 + percent). */
int ranktab_straggler(int64_t v, int64_t m, unsigned percent);

/* Robust sigmas of the heat map: a cell is drawn as a straggler only when it
 * is one by the threshold and lies more than RANKTAB_Z_NEUTRAL robust sigmas
 * above its row's median, a robust sigma being 1.4826 MAD (the standard
 * deviation for normal noise), at least 1 % of the median. */
#define RANKTAB_Z_NEUTRAL 3.0

/* How many robust sigmas the cell (layer, rank) lies above its row's
 * median (negative below it); 0 for a cell or row without an interval.  A
 * display quantity: the straggler tests above stay exact. */
double ranktab_robust_z(const struct ranktab *t, size_t layer, size_t rank);


/* ---- the reports ------------------------------------------------------ */

/* The members that must agree between the reports, in the order checked. */
enum ranktab_field {
	RANKTAB_PHASE, RANKTAB_ANCHOR, RANKTAB_LAYERS, RANKTAB_FIRST, RANKTAB_PASSES,
	RANKTAB_NFIELDS
};

/* One rank's layers report. */
struct ranktab_report {
	const char *path;                    /* as given, for the messages */
	char *text;                          /* the file's bytes (malloc'd, owned) */
	size_t len;
	struct jdoc doc;
	struct buf field[RANKTAB_NFIELDS];   /* unescaped strings, decimal integers */
	struct buf source;                   /* source_file, unescaped */
	char *label;                         /* the column's name (ranktab_labels) */
	int64_t rank;                        /* the report's "rank", -1 without one */
	int64_t num_layers, first_layer, passes;
	int64_t *interval;                   /* [pass * num_layers + layer index] */
};

void ranktab_report_init(struct ranktab_report *r, const char *path);
void ranktab_report_free(struct ranktab_report *r);

/* Read the report in text[0..len) (r->text or any text that outlives r):
 * its phase, anchor, layer numbering and one interval per guide row.  0,
 * or -1 with errno EINVAL and the refusal in msg ("PATH: layers[3]: pass
 * 0, layer 5 appears twice"), or ENOMEM. */
int ranktab_report_parse(struct ranktab_report *r, const char *text, size_t len,
			 struct buf *msg);

/* The reports agree on phase, anchor_regex, num_layers, first_layer and
 * passes.  -1 with errno EINVAL and the refusal in msg: the reports that
 * differ from the majority's value (or, without one, every report's
 * value), a line each, the later lines after "PROGNAME: ". */
int ranktab_agree(const struct ranktab_report *rep, size_t n, const char *progname,
		  struct buf *msg);

/* The columns' labels: the source names less their shared prefix and
 * suffix (never cutting a number), else the whole names, else #1, #2...
 * 0, or -1 (ENOMEM). */
int ranktab_labels(struct ranktab_report *rep, size_t n);

/* Order the reports as the ranks: by the rank each records when all
 * record one and no two the same, else by their labels, numbers in them
 * compared as numbers (rank 2 before rank 10).  1 when ordered by the
 * recorded ranks, each label then the rank's number; 0 by the labels; -1
 * (ENOMEM). */
int ranktab_order(struct ranktab_report *rep, size_t n);

/* strcmp, but digit runs compare as numbers. */
int ranktab_natural_cmp(const char *a, const char *b);

/* The cells of a table of nranks == n reports: pass's intervals (pass >=
 * 0), or the lower median over the passes; then ranktab_compute. */
int ranktab_fill(struct ranktab *t, const struct ranktab_report *rep, int64_t pass);

/* ---- rendering -------------------------------------------------------- */

struct ranktab_view {
	int64_t pass;          /* the pass shown, -1: the median over the passes */
	unsigned threshold;    /* straggler threshold, percent */
	size_t width;          /* the text table's most columns; 0: no limit,
	                        * every rank shown */
};

enum ranktab_format { RANKTAB_TEXT, RANKTAB_TSV, RANKTAB_JSON, RANKTAB_SVG };

/* Append the table in a format (tr-ranks(1)).  0, or -1 (ENOMEM). */
int ranktab_render(struct buf *out, enum ranktab_format format, const struct ranktab *t,
		   const struct ranktab_report *rep, const struct ranktab_view *view);

#endif
