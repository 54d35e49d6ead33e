/* ranktab: see ranktab.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "json/indent.h"
#include "ranks/ranktab.h"
#include "json/tsnum.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t ranktab_median_low(int64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_i64);
	return v[(n - 1) / 2];
}

int ranktab_init(struct ranktab *t, size_t nlayers, size_t nranks)
{
	size_t i, n;

	t->nlayers = nlayers;
	t->nranks = nranks;
	t->cell = t->median = t->total = t->mad = NULL;
	if (nlayers == 0 || nranks == 0) {
		errno = EINVAL;
		return -1;
	}
	if (nlayers > SIZE_MAX / sizeof(int64_t) / nranks) {
		errno = ENOMEM;
		return -1;
	}
	n = nlayers * nranks;
	t->cell = malloc(n * sizeof *t->cell);
	t->median = malloc((nlayers + 1) * sizeof *t->median);
	t->total = malloc(nranks * sizeof *t->total);
	t->mad = malloc((nlayers + 1) * sizeof *t->mad);
	if (t->cell == NULL || t->median == NULL || t->total == NULL || t->mad == NULL) {
		ranktab_free(t);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++)
		t->cell[i] = RANKTAB_NONE;
	for (i = 0; i <= nlayers; i++)
		t->median[i] = t->mad[i] = RANKTAB_NONE;
	for (i = 0; i < nranks; i++)
		t->total[i] = RANKTAB_NONE;
	return 0;
}

void ranktab_free(struct ranktab *t)
{
	free(t->cell);
	free(t->median);
	free(t->total);
	free(t->mad);
	t->cell = t->median = t->total = t->mad = NULL;
}

int64_t ranktab_value(const struct ranktab *t, size_t layer, size_t rank)
{
	return layer == t->nlayers ? t->total[rank] : t->cell[layer * t->nranks + rank];
}

/* The median of a row's intervals (RANKTAB_NONE for none), with scratch
 * room for nranks values. */
static int64_t row_median(const struct ranktab *t, size_t layer, int64_t *scratch)
{
	size_t r, n = 0;

	for (r = 0; r < t->nranks; r++) {
		int64_t v = ranktab_value(t, layer, r);

		if (v != RANKTAB_NONE)
			scratch[n++] = v;
	}
	return n == 0 ? RANKTAB_NONE : ranktab_median_low(scratch, n);
}

int ranktab_compute(struct ranktab *t)
{
	int64_t *scratch;
	size_t l, r;

	for (r = 0; r < t->nranks; r++) {
		int64_t sum = RANKTAB_NONE;

		for (l = 0; l < t->nlayers; l++) {
			int64_t v = t->cell[l * t->nranks + r];

			if (v == RANKTAB_NONE)
				continue;
			if (v < 0 || v > RANKTAB_MAX_NS) {
				errno = ERANGE;
				return -1;
			}
			sum = sum == RANKTAB_NONE ? v : sum + v;
			if (sum > RANKTAB_MAX_NS) {
				errno = ERANGE;
				return -1;
			}
		}
		t->total[r] = sum;
	}
	scratch = malloc(t->nranks * sizeof *scratch);
	if (scratch == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (l = 0; l <= t->nlayers; l++) {
		size_t n = 0;

		t->median[l] = row_median(t, l, scratch);
		t->mad[l] = RANKTAB_NONE;
		if (t->median[l] == RANKTAB_NONE)
			continue;
		for (r = 0; r < t->nranks; r++) {
			int64_t v = ranktab_value(t, l, r);

			if (v != RANKTAB_NONE)
				scratch[n++] = v > t->median[l] ? v - t->median[l] : t->median[l] - v;
		}
		t->mad[l] = ranktab_median_low(scratch, n);
	}
	free(scratch);
	return 0;
}

double ranktab_robust_z(const struct ranktab *t, size_t layer, size_t rank)
{
	int64_t v = ranktab_value(t, layer, rank), m = t->median[layer];
	double sigma;

	if (v == RANKTAB_NONE || m == RANKTAB_NONE)
		return 0;
	sigma = 1.4826 * (double)t->mad[layer];
	if (sigma < (double)m / 100)
		sigma = (double)m / 100;
	if (sigma < 1)
		sigma = 1;
	return (double)(v - m) / sigma;
}

/* Both operands are at most RANKTAB_MAX_NS and the factors at most
 * 100 + 3 RANKTAB_MAX_PERCENT, so the products stay below 2^63. */
enum ranktab_band ranktab_band(int64_t v, int64_t m, unsigned percent)
{
	int64_t p = (int64_t)percent;

	if (v == RANKTAB_NONE || m == RANKTAB_NONE)
		return RANKTAB_BAND_NONE;
	if (v * 100 > m * (100 + 3 * p))
		return RANKTAB_BAND_SLOWEST;
	if (v * 100 > m * (100 + p))
		return RANKTAB_BAND_SLOW;
	if (v >= m)
		return RANKTAB_BAND_NEAR;
	if (v * 100 >= m * (100 - p))
		return RANKTAB_BAND_BELOW;
	return RANKTAB_BAND_FAST;
}

int ranktab_straggler(int64_t v, int64_t m, unsigned percent)
{
	enum ranktab_band b = ranktab_band(v, m, percent);

	return b == RANKTAB_BAND_SLOW || b == RANKTAB_BAND_SLOWEST;
}

/* ---- rendering --------------------------------------------------------- */

/* The text being built, and whether an append failed: the renderers go on
 * and report it at the end. */
struct sink {
	struct buf *b;
	int nomem;
};

static void add(struct sink *b, const char *s)
{
	if (buf_addstr(b->b, s) != 0)
		b->nomem = 1;
}

static void addf(struct sink *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(struct sink *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	struct buf *o = b->b;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_grow(o, (size_t)n) != 0) {
		b->nomem = 1;
		return;
	}
	va_start(ap, fmt);
	(void)vsnprintf(o->p + o->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_setlen(o, o->len + (size_t)n);
}

static void add_us(struct sink *b, int64_t v, const char *none)
{
	char tmp[NUM_US_BUFSZ];

	if (v == RANKTAB_NONE) {
		add(b, none);
		return;
	}
	tsnum_format_us3(v, tmp);
	add(b, tmp);
}

static void add_layer_name(struct sink *b, const struct ranktab_report *r, size_t l, size_t nlayers)
{
	if (l == nlayers)
		add(b, "total");
	else
		addf(b, "L%lld", (long long)(r->first_layer + (int64_t)l));
}

/* The straggler labels of a row, comma-separated; "" when none. */
static void add_stragglers(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	size_t l, unsigned threshold, const char *sep)
{
	size_t r, k = 0;

	for (r = 0; r < t->nranks; r++)
		if (ranktab_straggler(ranktab_value(t, l, r), t->median[l], threshold)) {
			if (k++ > 0)
				add(b, sep);
			add(b, rep[r].label);
		}
}

static void what_cells_are(struct sink *b, const struct ranktab_report *rep, int64_t pass)
{
	if (pass >= 0) {
		addf(b, "pass %lld", (long long)pass);
	} else {
		addf(b, "median over %lld pass%s", (long long)rep[0].passes,
		     rep[0].passes == 1 ? "" : "es");
	}
}

static void pad_to(struct sink *b, size_t from, size_t width, int right)
{
	size_t len = b->b->len - from;

	if (len >= width)
		return;
	if (!right) {
		while (len++ < width)
			add(b, " ");
		return;
	}
	if (buf_grow(b->b, width - len) != 0) {
		b->nomem = 1;
		return;
	}
	memmove(b->b->p + from + (width - len), b->b->p + from, len);
	memset(b->b->p + from, ' ', width - len);
	buf_setlen(b->b, from + width);
}

/* cell text of row l, column c: c < nranks a rank, nranks the median */
static void add_cell(struct sink *b, const struct ranktab *t, size_t l, size_t c,
	const char *none)
{
	add_us(b, c < t->nranks ? ranktab_value(t, l, c) : t->median[l], none);
}

/* A rank's worst excess over its rows' medians among its straggler cells,
 * in permille; -1 when it has none.  Cells are at most RANKTAB_MAX_NS, so
 * the product stays below 2^63. */
static int64_t worst_excess(const struct ranktab *t, size_t r, unsigned threshold)
{
	int64_t worst = -1;
	size_t l;

	for (l = 0; l <= t->nlayers; l++) {
		int64_t v = ranktab_value(t, l, r), m = t->median[l], e;

		if (!ranktab_straggler(v, m, threshold))
			continue;
		e = m == 0 ? INT64_MAX : (v - m) * 1000 / m;
		if (e > worst)
			worst = e;
	}
	return worst;
}

/* The straggler labels of row l in at most room bytes: as many as fit, then
 * "and K more". */
static void add_stragglers_within(struct sink *b, const struct ranktab *t,
	const struct ranktab_report *rep, size_t l, unsigned threshold, size_t room)
{
	size_t r, k = 0, total = 0, from = b->b->len;
	char more[48];

	for (r = 0; r < t->nranks; r++)
		total += (size_t)ranktab_straggler(ranktab_value(t, l, r), t->median[l], threshold);
	for (r = 0; r < t->nranks && k < total; r++) {
		size_t need;

		if (!ranktab_straggler(ranktab_value(t, l, r), t->median[l], threshold))
			continue;
		need = b->b->len - from + (k > 0) + strlen(rep[r].label);
		/* room for " and K more" unless this is the last */
		snprintf(more, sizeof more, " and %zu more", total - k - 1);
		if (need + (k + 1 < total ? strlen(more) : 0) > room)
			break;
		if (k++ > 0)
			add(b, ",");
		add(b, rep[r].label);
	}
	if (k < total)
		addf(b, "%s%zu more", k > 0 ? " and " : "", total - k);
}

enum { STRAGGLERS_MIN = 10 };  /* strlen("stragglers") */

static void text_table(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	const struct ranktab_view *o)
{
	size_t ncol = t->nranks + 1, c, l, k, ncols = 0, full, strag_w = STRAGGLERS_MIN;
	size_t *width = malloc((ncol + 1) * sizeof *width), *col = malloc(ncol * sizeof *col);
	int64_t *worst = malloc(ncol * sizeof *worst);
	struct buf text = BUF_INIT;
	struct sink tmp = { &text, 0 };
	int narrow = 0;

	if (width == NULL || col == NULL || worst == NULL) {
		b->nomem = 1;
		goto out;
	}
	width[0] = 5;
	for (l = 0; l < t->nlayers; l++) {
		buf_reset(&text);
		add_layer_name(&tmp, &rep[0], l, t->nlayers);
		if (text.len > width[0])
			width[0] = text.len;
	}
	for (c = 0; c < ncol; c++) {
		width[c + 1] = c < t->nranks ? strlen(rep[c].label) : 6;
		for (l = 0; l <= t->nlayers; l++) {
			buf_reset(&text);
			add_cell(&tmp, t, l, c, "-");
			if (text.len > width[c + 1])
				width[c + 1] = text.len;
		}
	}
	for (l = 0; l <= t->nlayers; l++) {
		buf_reset(&text);
		add_stragglers(&tmp, t, rep, l, o->threshold, ",");
		if (text.len > strag_w)
			strag_w = text.len;
	}
	full = width[0] + 2 + width[ncol] + 2 + strag_w;
	for (c = 0; c < t->nranks; c++)
		full += 2 + width[c + 1];
	if (o->width == 0 || full <= o->width) {
		for (c = 0; c < t->nranks; c++)
			col[ncols++] = c;
	} else {
		/* the stragglers first, the worst first (ties in rank order),
		 * then the others in rank order, as many as the width holds */
		size_t used = width[0] + 2 + width[ncol] + 2 + STRAGGLERS_MIN, n = 0;

		narrow = 1;
		for (c = 0; c < t->nranks; c++) {
			worst[c] = worst_excess(t, c, o->threshold);
			if (worst[c] < 0)
				continue;
			for (k = n; k > 0 && worst[col[k - 1]] < worst[c]; k--)
				col[k] = col[k - 1];
			col[k] = c;
			n++;
		}
		for (c = 0; c < t->nranks; c++)
			if (worst[c] < 0)
				col[n++] = c;
		for (k = 0; k < n && used + 2 + width[col[k] + 1] <= o->width; k++)
			used += 2 + width[col[k] + 1];
		ncols = k;
	}
	b->nomem |= tmp.nomem;
	add(b, "anchor-to-anchor intervals in µs (");
	what_cells_are(b, rep, o->pass);
	add(b, "), not layer latencies:\n"
	       "each cell runs from a layer's anchor kernel to the next layer's anchor\n");
	addf(b, "phase: %s\nanchor: %s\nlayers: %s (L%s to L%lld), passes: %s, ranks: %zu\n",
	     rep[0].field[RANKTAB_PHASE].p, rep[0].field[RANKTAB_ANCHOR].p,
	     rep[0].field[RANKTAB_LAYERS].p, rep[0].field[RANKTAB_FIRST].p,
	     (long long)(rep[0].first_layer + rep[0].num_layers - 1),
	     rep[0].field[RANKTAB_PASSES].p, t->nranks);
	addf(b, "straggler: an interval more than %u%% above its row's median over the ranks\n",
	     o->threshold);
	for (c = 0; c < t->nranks; c++)
		addf(b, "rank %s: %s (%s)\n", rep[c].label, rep[c].source.p, rep[c].path);
	if (narrow)
		addf(b, "showing %zu of %zu ranks, the stragglers first, the worst first "
		     "(--wide: every rank)\n", ncols, t->nranks);
	add(b, "\n");
	for (l = 0; l <= t->nlayers + 1; l++) {
		size_t from = b->b->len, line = b->b->len;

		/* l == 0: the header; then the layers, then the totals */
		if (l == 0)
			add(b, "layer");
		else
			add_layer_name(b, &rep[0], l - 1, t->nlayers);
		pad_to(b, from, width[0], 0);
		for (k = 0; k <= ncols; k++) {
			c = k < ncols ? col[k] : t->nranks;
			add(b, "  ");
			from = b->b->len;
			if (l == 0)
				add(b, c < t->nranks ? rep[c].label : "median");
			else
				add_cell(b, t, l - 1, c, "-");
			pad_to(b, from, width[c + 1], 1);
		}
		add(b, "  ");
		if (l == 0) {
			add(b, "stragglers");
		} else {
			from = b->b->len;
			if (narrow)
				add_stragglers_within(b, t, rep, l - 1, o->threshold,
						      from - line < o->width ?
						      o->width - (from - line) : 0);
			else
				add_stragglers(b, t, rep, l - 1, o->threshold, ",");
			if (b->b->len == from)
				add(b, "-");
		}
		add(b, "\n");
	}
out:
	buf_release(&text);
	free(width);
	free(col);
	free(worst);
}

static void tsv_table(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	const struct ranktab_view *o)
{
	size_t c, l;

	add(b, "layer");
	for (c = 0; c < t->nranks; c++) {
		add(b, "\t");
		add(b, rep[c].label);
	}
	add(b, "\tmedian\tstragglers\n");
	for (l = 0; l <= t->nlayers; l++) {
		add_layer_name(b, &rep[0], l, t->nlayers);
		for (c = 0; c <= t->nranks; c++) {
			add(b, "\t");
			add_cell(b, t, l, c, "");
		}
		add(b, "\t");
		add_stragglers(b, t, rep, l, o->threshold, ",");
		add(b, "\n");
	}
}

static void add_json_string(struct sink *b, const char *s, size_t n)
{
	if (json_escape(b->b, s, n) != 0)
		b->nomem = 1;
}

static void json_row(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	size_t l, const struct ranktab_view *o)
{
	size_t c, k = 0;

	if (l < t->nlayers) {
		struct buf text = BUF_INIT;
		struct sink name = { &text, 0 };

		add(b, "{\"layer\":");
		add_layer_name(&name, &rep[0], l, t->nlayers);
		add_json_string(b, text.p, text.len);
		b->nomem |= name.nomem;
		buf_release(&text);
		add(b, ",");
	} else {
		add(b, "{");
	}
	add(b, "\"intervals_us\":[");
	for (c = 0; c < t->nranks; c++) {
		if (c > 0)
			add(b, ",");
		add_cell(b, t, l, c, "null");
	}
	add(b, "],\"median_us\":");
	add_us(b, t->median[l], "null");
	add(b, ",\"stragglers\":[");
	for (c = 0; c < t->nranks; c++)
		if (ranktab_straggler(ranktab_value(t, l, c), t->median[l], o->threshold)) {
			if (k++ > 0)
				add(b, ",");
			add_json_string(b, rep[c].label, strlen(rep[c].label));
		}
	add(b, "]}");
}

static int put_buf(void *ctx, const void *data, size_t n)
{
	return buf_add(ctx, data, n);
}

static void json_table(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	const struct ranktab_view *o)
{
	struct buf text = BUF_INIT;
	struct sink flat_sink = { &text, 0 }, *flat = &flat_sink;
	struct indent ix;
	size_t c, l;

	add(flat, "{\"notice\":\"These are anchor-to-anchor intervals, not layer latencies: "
	    "each cell runs from a layer's anchor kernel to the next layer's anchor, in "
	    "microseconds; null where a layer has no interval (a zero-length marker).\","
	    "\"phase\":");
	add_json_string(flat, rep[0].field[RANKTAB_PHASE].p, rep[0].field[RANKTAB_PHASE].len);
	add(flat, ",\"anchor_regex\":");
	add_json_string(flat, rep[0].field[RANKTAB_ANCHOR].p, rep[0].field[RANKTAB_ANCHOR].len);
	addf(flat, ",\"num_layers\":%s,\"first_layer\":%s,\"passes\":%s,\"pass\":",
	     rep[0].field[RANKTAB_LAYERS].p, rep[0].field[RANKTAB_FIRST].p,
	     rep[0].field[RANKTAB_PASSES].p);
	if (o->pass >= 0) {
		addf(flat, "%lld", (long long)o->pass);
	} else {
		add(flat, "null");
	}
	add(flat, ",\"statistic\":");
	add(flat, o->pass >= 0 ? "\"pass\"" : "\"median_low\"");
	addf(flat, ",\"threshold_percent\":%u,\"ranks\":[", o->threshold);
	for (c = 0; c < t->nranks; c++) {
		add(flat, c > 0 ? ",{\"label\":" : "{\"label\":");
		add_json_string(flat, rep[c].label, strlen(rep[c].label));
		add(flat, ",\"source_file\":");
		add_json_string(flat, rep[c].source.p, rep[c].source.len);
		add(flat, ",\"report\":");
		add_json_string(flat, rep[c].path, strlen(rep[c].path));
		add(flat, "}");
	}
	add(flat, "],\"layers\":[");
	for (l = 0; l < t->nlayers; l++) {
		if (l > 0)
			add(flat, ",");
		json_row(flat, t, rep, l, o);
	}
	add(flat, "],\"totals\":");
	json_row(flat, t, rep, t->nlayers, o);
	add(flat, "}\n");
	indent_init(&ix, 2, put_buf, b->b);
	if (flat->nomem || indent_write(&ix, text.p, text.len) != 0 || indent_flush(&ix) != 0)
		b->nomem = 1;
	indent_free(&ix);
	buf_release(&text);
}

/* ---- the heat map --------------------------------------------------- */

/* Only stragglers are coloured, on one ramp from light to dark: the eye
 * finds the few cells that matter among hundreds of white ones.  Faster
 * than the median is not a problem worth a colour. */
#define FILL_NEUTRAL "#ffffff"
#define FILL_NONE "#d9d9d9"
#define FILL_MEDIAN "#f0f0f0"
static const int ramp_light[3] = { 0xfe, 0xe0, 0xd2 }, ramp_dark[3] = { 0x67, 0x00, 0x0d };
enum { RAMP_STEPS = 8 };

static void add_xml(struct sink *b, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&': add(b, "&amp;"); break;
		case '<': add(b, "&lt;"); break;
		case '>': add(b, "&gt;"); break;
		case '"': add(b, "&quot;"); break;
		case '\'': add(b, "&apos;"); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if (buf_addch(b->b, (unsigned char)*s < 0x20 ? ' ' : *s) != 0)
				b->nomem = 1;
		}
	}
}

/* The ramp's colour at f in [0, 1]: 0 the lightest, 1 the darkest. */
static void ramp(char out[8], double f)
{
	int c[3], i;

	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	for (i = 0; i < 3; i++)
		c[i] = ramp_light[i] + (int)((double)(ramp_dark[i] - ramp_light[i]) * f +
					     (ramp_dark[i] > ramp_light[i] ? 0.5 : -0.5));
	snprintf(out, 8, "#%02x%02x%02x", (unsigned)c[0] & 0xffu, (unsigned)c[1] & 0xffu,
		 (unsigned)c[2] & 0xffu);
}

/* Whether the cell is drawn as a straggler: one by the threshold, and
 * beyond the noise of its row. */
static int coloured(const struct ranktab *t, size_t l, size_t r, unsigned threshold, double *z)
{
	*z = ranktab_robust_z(t, l, r);
	return ranktab_straggler(ranktab_value(t, l, r), t->median[l], threshold) &&
		*z > RANKTAB_Z_NEUTRAL;
}

/* The smallest of 1, 2, 5, 10, 20, 50... whose multiple of cell holds need:
 * a label every that many cells. */
static size_t label_step(size_t cell, size_t need)
{
	static const size_t mant[3] = { 1, 2, 5 };
	size_t p, i;

	for (p = 1;; p *= 10)
		for (i = 0; i < 3; i++)
			if (mant[i] * p * cell >= need)
				return mant[i] * p;
}

enum { LEFT = 80, TOP = 100, MEDIAN_W = 64, GAP = 8 };

static void svg_map(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	const struct ranktab_view *o)
{
	size_t c, l, rows = t->nlayers + 1, n = t->nranks, label_max = 1;
	size_t cell_w, cell_h, width, height, title_w, map_w, step_x, step_y, legend_y;
	size_t worst_l = 0, worst_r = 0, med_x;
	struct buf stext = BUF_INIT;
	struct sink s = { &stext, 0 };
	unsigned th = o->threshold;
	double zmax = 0, z;
	char fill[8], us[NUM_US_BUFSZ];
	int k;

	for (c = 0; c < n; c++)
		if (strlen(rep[c].label) > label_max)
			label_max = strlen(rep[c].label);
	for (l = 0; l < rows; l++)
		for (c = 0; c < n; c++)
			if (coloured(t, l, c, th, &z) && z > zmax) {
				zmax = z;
				worst_l = l;
				worst_r = c;
			}
	/* about 960 px for the ranks, 2 to 64 a cell; rows of 20 px while
	 * there are room and few of them */
	cell_w = 960 / n;
	cell_w = cell_w > 64 ? 64 : cell_w < 2 ? 2 : cell_w;
	cell_h = rows <= 40 ? 20 : 800 / rows < 3 ? 3 : 800 / rows;
	map_w = cell_w * n;
	med_x = LEFT + map_w + GAP;
	step_x = label_step(cell_w, label_max * 7 + 6);
	step_y = label_step(cell_h, 13);
	width = med_x + MEDIAN_W + 20;
	/* the legend's longest line, about 6 px a character */
	if (width < 1120)
		width = 1120;
	/* the title, about 8 px a character in bold 14 px sans-serif */
	title_w = 20 + 8 * (strlen(rep[0].field[RANKTAB_PHASE].p) +
			    strlen(rep[0].field[RANKTAB_ANCHOR].p) + 70);
	if (width < title_w)
		width = title_w;
	legend_y = TOP + cell_h * rows + 6 + 24;
	height = legend_y + 100;
	addf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
	     "viewBox=\"0 0 %zu %zu\" font-family=\"sans-serif\" font-size=\"11\">\n",
	     width, height, width, height);
	addf(b, "<rect x=\"0\" y=\"0\" width=\"%zu\" height=\"%zu\" fill=\"#ffffff\"/>\n",
	     width, height);
	add(b, "<text id=\"title\" x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">"
	    "Anchor-to-anchor intervals by layer and rank: phase ");
	add_xml(b, rep[0].field[RANKTAB_PHASE].p);
	add(b, ", anchor ");
	add_xml(b, rep[0].field[RANKTAB_ANCHOR].p);
	add(b, "</text>\n<text id=\"subtitle\" x=\"10\" y=\"38\">Coloured: the stragglers, "
	    "darker the further above their row&apos;s median over the ranks; white: the rest. "
	    "Intervals in µs (");
	what_cells_are(&s, rep, o->pass);
	add_xml(b, stext.p);
	add(b, ").</text>\n<text id=\"notice\" x=\"10\" y=\"54\">Not layer latencies: "
	    "each cell runs from a layer&apos;s anchor kernel to the next layer&apos;s "
	    "anchor.</text>\n");
	addf(b, "<text id=\"x-axis\" x=\"%zu\" y=\"%d\" text-anchor=\"middle\" "
	     "font-weight=\"bold\">rank</text>\n", LEFT + map_w / 2, TOP - 24);
	addf(b, "<text id=\"y-axis\" x=\"14\" y=\"%zu\" text-anchor=\"middle\" "
	     "font-weight=\"bold\" transform=\"rotate(-90 14 %zu)\">layer</text>\n",
	     TOP + cell_h * rows / 2, TOP + cell_h * rows / 2);
	for (c = 0; c < n; c += step_x) {
		addf(b, "<text class=\"rank\" x=\"%zu\" y=\"%d\" text-anchor=\"middle\">",
		     LEFT + cell_w * c + cell_w / 2, TOP - 6);
		add_xml(b, rep[c].label);
		add(b, "</text>\n");
	}
	addf(b, "<text class=\"rank\" x=\"%zu\" y=\"%d\" text-anchor=\"middle\">median</text>\n",
	     med_x + MEDIAN_W / 2, TOP - 6);
	for (l = 0; l < rows; l++) {
		size_t y = TOP + cell_h * l + (l == t->nlayers ? 6 : 0);
		int numbers = cell_h >= 14;

		buf_reset(&stext);
		add_layer_name(&s, &rep[0], l, t->nlayers);
		if (l % step_y == 0 || l == t->nlayers)
			addf(b, "<text class=\"layer\" x=\"%d\" y=\"%zu\" text-anchor=\"end\" "
			     "dominant-baseline=\"central\">%s</text>\n", LEFT - 6, y + cell_h / 2,
			     stext.p);
		for (c = 0; c <= n; c++) {
			int64_t v = c < n ? ranktab_value(t, l, c) : t->median[l];
			size_t x = c < n ? LEFT + cell_w * c : med_x, w = c < n ? cell_w : MEDIAN_W;
			int hot = c < n && coloured(t, l, c, th, &z), dark = 0;

			us[0] = '\0';
			if (v != RANKTAB_NONE)
				tsnum_format_us3(v, us);
			if (c == n) {
				snprintf(fill, sizeof fill, "%s", v == RANKTAB_NONE ? FILL_NONE :
					 FILL_MEDIAN);
			} else if (v == RANKTAB_NONE) {
				snprintf(fill, sizeof fill, "%s", FILL_NONE);
			} else if (hot) {
				double f = zmax > RANKTAB_Z_NEUTRAL ?
					(z - RANKTAB_Z_NEUTRAL) / (zmax - RANKTAB_Z_NEUTRAL) : 1;

				ramp(fill, f);
				dark = f > 0.45;
			} else {
				snprintf(fill, sizeof fill, "%s", FILL_NEUTRAL);
			}
			add(b, c < n ? "<g class=\"cell\" data-layer=\"" :
			    "<g class=\"median\" data-layer=\"");
			add(b, stext.p);
			add(b, "\" data-rank=\"");
			add_xml(b, c < n ? rep[c].label : "median");
			addf(b, "\" data-us=\"%s\"", us);
			if (c < n && v != RANKTAB_NONE)
				addf(b, " data-sigmas=\"%.1f\"", ranktab_robust_z(t, l, c));
			addf(b, "><rect x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\" fill=\"%s\"%s/>",
			     x, y, w, cell_h, fill,
			     w >= 8 && cell_h >= 8 ? " stroke=\"#e0e0e0\" stroke-width=\"0.5\"" : "");
			add(b, "<title>");
			add(b, stext.p);
			add(b, c < n ? ", rank " : ", ");
			add_xml(b, c < n ? rep[c].label : "median over the ranks");
			if (v == RANKTAB_NONE) {
				add(b, ": no interval");
			} else {
				addf(b, ": %s µs", us);
				if (c < n && t->median[l] > 0)
					addf(b, ", %+.1f%% against the median, %.1f robust sigmas",
					     (double)(v - t->median[l]) * 100 / (double)t->median[l],
					     ranktab_robust_z(t, l, c));
			}
			add(b, "</title>");
			/* a number only where it fits the cell */
			if (numbers && w >= 6 * strlen(v == RANKTAB_NONE ? "-" : us) + 6)
				addf(b, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\" "
				     "dominant-baseline=\"central\" fill=\"%s\">%s</text>",
				     x + w / 2, y + cell_h / 2, dark ? "#ffffff" : "#000000",
				     v == RANKTAB_NONE ? "-" : us);
			add(b, "</g>\n");
		}
	}
	/* the map's edge, which white cells do not show, just outside them */
	addf(b, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%zu\" height=\"%zu\" "
	     "fill=\"none\" stroke=\"#808080\"/>\n", LEFT - 1, TOP - 1, map_w + 2,
	     cell_h * t->nlayers + 2);
	addf(b, "<rect class=\"frame\" x=\"%d\" y=\"%zu\" width=\"%zu\" height=\"%zu\" "
	     "fill=\"none\" stroke=\"#808080\"/>\n", LEFT - 1, TOP + cell_h * t->nlayers + 5,
	     map_w + 2, cell_h + 2);
	add(b, "<g id=\"legend\">\n");
	addf(b, "<text x=\"%d\" y=\"%zu\" font-weight=\"bold\">Legend</text>\n", LEFT, legend_y);
	for (k = 0; k < RAMP_STEPS; k++) {
		ramp(fill, (double)k / (RAMP_STEPS - 1));
		addf(b, "<rect class=\"swatch\" x=\"%d\" y=\"%zu\" width=\"16\" height=\"12\" "
		     "fill=\"%s\"/>\n", LEFT + 16 * k, legend_y + 8, fill);
	}
	addf(b, "<text x=\"%d\" y=\"%zu\">a straggler: more than %u%% above its row&apos;s "
	     "median over the ranks and more than %.0f robust sigmas above it, darker the "
	     "further</text>\n", LEFT + 16 * RAMP_STEPS + 8, legend_y + 18, th,
	     RANKTAB_Z_NEUTRAL);
	addf(b, "<text x=\"%d\" y=\"%zu\">(a robust sigma: 1.4826 × the median absolute "
	     "deviation of the row, at least 1%% of its median); ", LEFT + 16 * RAMP_STEPS + 8,
	     legend_y + 32);
	if (zmax > 0) {
		buf_reset(&stext);
		add_layer_name(&s, &rep[0], worst_l, t->nlayers);
		add(b, "the darkest: ");
		add(b, stext.p);
		add(b, ", rank ");
		add_xml(b, rep[worst_r].label);
		addf(b, ", %+.1f%%, %.1f sigmas",
		     (double)(ranktab_value(t, worst_l, worst_r) - t->median[worst_l]) * 100 /
		     (double)(t->median[worst_l] > 0 ? t->median[worst_l] : 1), zmax);
	} else {
		add(b, "no straggler here");
	}
	add(b, "</text>\n");
	addf(b, "<rect class=\"swatch\" x=\"%d\" y=\"%zu\" width=\"16\" height=\"12\" fill=\"%s\" "
	     "stroke=\"#808080\"/><text x=\"%d\" y=\"%zu\">not a straggler (within the noise "
	     "of its row, or not above its median)</text>\n", LEFT, legend_y + 40, FILL_NEUTRAL,
	     LEFT + 24, legend_y + 50);
	addf(b, "<rect class=\"swatch\" x=\"%d\" y=\"%zu\" width=\"16\" height=\"12\" fill=\"%s\" "
	     "stroke=\"#808080\"/><text x=\"%d\" y=\"%zu\">the median over the ranks</text>\n",
	     LEFT, legend_y + 58, FILL_MEDIAN, LEFT + 24, legend_y + 68);
	addf(b, "<rect class=\"swatch\" x=\"%d\" y=\"%zu\" width=\"16\" height=\"12\" fill=\"%s\" "
	     "stroke=\"#808080\"/><text x=\"%d\" y=\"%zu\">no interval (zero-length "
	     "marker)</text>\n", LEFT, legend_y + 76, FILL_NONE, LEFT + 24, legend_y + 86);
	add(b, "</g>\n</svg>\n");
	b->nomem |= s.nomem;
	buf_release(&stext);
}


int ranktab_render(struct buf *out, enum ranktab_format format, const struct ranktab *t,
		   const struct ranktab_report *rep, const struct ranktab_view *view)
{
	struct sink b = { out, 0 };

	switch (format) {
	case RANKTAB_TEXT:
		text_table(&b, t, rep, view);
		break;
	case RANKTAB_TSV:
		tsv_table(&b, t, rep, view);
		break;
	case RANKTAB_JSON:
		json_table(&b, t, rep, view);
		break;
	case RANKTAB_SVG:
		svg_map(&b, t, rep, view);
		break;
	}
	if (b.nomem) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* ---- the reports ------------------------------------------------------ */

/* One guide row's interval not yet seen, as opposed to RANKTAB_NONE. */
#define UNSET INT64_MAX

static const char *const field_names[RANKTAB_NFIELDS] = {
	"phase", "anchor_regex", "num_layers", "first_layer", "passes"
};

void ranktab_report_init(struct ranktab_report *r, const char *path)
{
	int f;

	memset(r, 0, sizeof *r);
	r->path = path;
	r->doc = (struct jdoc)JDOC_INIT;
	for (f = 0; f < RANKTAB_NFIELDS; f++)
		r->field[f] = (struct buf)BUF_INIT;
	r->source = (struct buf)BUF_INIT;
}

void ranktab_report_free(struct ranktab_report *r)
{
	int f;

	for (f = 0; f < RANKTAB_NFIELDS; f++)
		buf_release(&r->field[f]);
	buf_release(&r->source);
	json_free(&r->doc);
	free(r->text);
	free(r->label);
	free(r->interval);
	r->text = r->label = NULL;
	r->interval = NULL;
}

/* A refusal: msg holds it; -1 with errno EINVAL (ENOMEM when even the
 * message could not be kept). */
static int refused(struct buf *msg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refused(struct buf *msg, const char *fmt, ...)
{
	struct sink s = { msg, 0 };
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	add(&s, n < 0 ? "(no message)" : tmp);
	errno = s.nomem ? ENOMEM : EINVAL;
	return -1;
}

static int nomem(void)
{
	errno = ENOMEM;
	return -1;
}

static int bad_report(const struct ranktab_report *r, struct buf *msg, const char *what)
{
	return refused(msg, "%s: %s; not a layers report of tr-layer-track or tr-encode",
		       r->path, what);
}

static int member(const struct ranktab_report *r, int obj, const char *key, enum jtype type)
{
	int i = json_find(&r->doc, obj, key);

	if (i < 0 || json_type(&r->doc, i) != type)
		return -1;
	return i;
}

static int string_member(const struct ranktab_report *r, const char *key, struct buf *out,
			 struct buf *msg)
{
	int i = member(r, 0, key, JT_STRING);
	char what[96];

	if (i < 0) {
		snprintf(what, sizeof what, "no string member \"%s\"", key);
		return bad_report(r, msg, what);
	}
	if (json_token_unescape(&r->doc, i, out) != 0)
		return bad_report(r, msg, "a malformed string escape");
	return 0;
}

static int int_member(const struct ranktab_report *r, int obj, const char *key, int64_t min,
		      int64_t max, const char *where, int64_t *v, struct buf *msg)
{
	int i = member(r, obj, key, JT_PRIMITIVE);

	if (i < 0 || json_int64(&r->doc, i, v) != 0 || *v < min || *v > max)
		return refused(msg, "%s: %s\"%s\" is not an integer from %lld to %lld",
			       r->path, where, key, (long long)min, (long long)max);
	return 0;
}

static int ns_member(const struct ranktab_report *r, int obj, const char *key,
		     const char *where, int64_t *ns, struct buf *msg)
{
	int i = member(r, obj, key, JT_PRIMITIVE);
	const char *text;
	size_t n;
	int sub_ns;

	if (i < 0)
		return refused(msg, "%s: %sno number \"%s\"", r->path, where, key);
	text = json_text(&r->doc, i, &n);
	if (tsnum_us_to_ns(text, n, ns, &sub_ns) != NUM_OK)
		return refused(msg, "%s: %s\"%s\" %.*s is not a number of microseconds",
			       r->path, where, key, (int)n, text);
	if (sub_ns)
		return refused(msg, "%s: %s\"%s\" %.*s is finer than a nanosecond",
			       r->path, where, key, (int)n, text);
	return 0;
}

/* The guide rows: one interval per (pass, layer), each exactly once. */
static int read_rows(struct ranktab_report *r, struct buf *msg)
{
	int rows = member(r, 0, "layers", JT_ARRAY), i, k, nrows;
	size_t want = (size_t)(r->num_layers * r->passes), j;

	if (rows < 0)
		return bad_report(r, msg, "no array \"layers\"");
	nrows = json_size(&r->doc, rows);
	if ((size_t)nrows != want)
		return refused(msg, "%s: %d guide rows, but num_layers %lld x passes %lld = %zu",
			       r->path, nrows, (long long)r->num_layers, (long long)r->passes, want);
	if ((r->interval = malloc(want * sizeof *r->interval)) == NULL)
		return nomem();
	for (j = 0; j < want; j++)
		r->interval[j] = UNSET;
	for (k = 0, i = rows + 1; k < nrows; k++, i = json_next(&r->doc, i)) {
		char where[48];
		int64_t pass, layer, start, end;
		int kind;
		size_t at;

		snprintf(where, sizeof where, "layers[%d]: ", k);
		if (json_type(&r->doc, i) != JT_OBJECT)
			return refused(msg, "%s: %snot an object", r->path, where);
		if (int_member(r, i, "pass_index", 0, r->passes - 1, where, &pass, msg) != 0 ||
		    int_member(r, i, "layer_id", r->first_layer, r->first_layer + r->num_layers - 1,
			       where, &layer, msg) != 0)
			return -1;
		at = (size_t)(pass * r->num_layers + layer - r->first_layer);
		if (r->interval[at] != UNSET)
			return refused(msg, "%s: %spass %lld, layer %lld appears twice", r->path,
				       where, (long long)pass, (long long)layer);
		kind = member(r, i, "boundary_kind", JT_STRING);
		if (kind < 0)
			return refused(msg, "%s: %sno string \"boundary_kind\"", r->path, where);
		if (ns_member(r, i, "start_us", where, &start, msg) != 0 ||
		    ns_member(r, i, "end_us", where, &end, msg) != 0)
			return -1;
		if (json_str_eq(&r->doc, kind, "anchor_point_only")) {
			r->interval[at] = RANKTAB_NONE;
			continue;
		}
		if (end < start || end - start > RANKTAB_MAX_NS)
			return refused(msg, "%s: %send_us is before start_us or over 10^15 ns after it",
				       r->path, where);
		r->interval[at] = end - start;
	}
	return 0;
}

int ranktab_report_parse(struct ranktab_report *r, const char *text, size_t len,
			 struct buf *msg)
{
	size_t lead = 0;
	int no_memory = 0, f;

	/* the value itself: a report ends with a newline */
	while (len > 0 && strchr(" \t\r\n", text[len - 1]) != NULL)
		len--;
	while (lead < len && strchr(" \t\r\n", text[lead]) != NULL)
		lead++;
	if (json_parse(&r->doc, text + lead, len - lead, &no_memory) != 0)
		return no_memory ? nomem() : bad_report(r, msg, "not JSON");
	if (r->doc.ntok < 1 || json_type(&r->doc, 0) != JT_OBJECT)
		return bad_report(r, msg, "not a JSON object");
	if (string_member(r, "phase", &r->field[RANKTAB_PHASE], msg) != 0 ||
	    string_member(r, "anchor_regex", &r->field[RANKTAB_ANCHOR], msg) != 0 ||
	    string_member(r, "source_file", &r->source, msg) != 0 ||
	    int_member(r, 0, "num_layers", 1, 100000000, "", &r->num_layers, msg) != 0 ||
	    int_member(r, 0, "first_layer", 0, 1000000000, "", &r->first_layer, msg) != 0 ||
	    int_member(r, 0, "passes", 1, 100000000, "", &r->passes, msg) != 0)
		return -1;
	r->rank = -1;
	if (json_find(&r->doc, 0, "rank") >= 0 &&
	    int_member(r, 0, "rank", 0, 1000000000, "", &r->rank, msg) != 0)
		return -1;
	if (r->num_layers * r->passes > 100000000)
		return refused(msg, "%s: more than 10^8 guide rows", r->path);
	for (f = RANKTAB_LAYERS; f <= RANKTAB_PASSES; f++) {
		int64_t v = f == RANKTAB_LAYERS ? r->num_layers :
			    f == RANKTAB_FIRST ? r->first_layer : r->passes;

		if (buf_add_i64(&r->field[f], v) != 0)
			return nomem();
	}
	return read_rows(r, msg);
}

static int same_field(const struct ranktab_report *a, const struct ranktab_report *b, int f)
{
	return a->field[f].len == b->field[f].len &&
		memcmp(a->field[f].p, b->field[f].p, a->field[f].len) == 0;
}

int ranktab_agree(const struct ranktab_report *rep, size_t n, const char *progname,
		  struct buf *msg)
{
	struct sink s = { msg, 0 };
	int f;

	for (f = 0; f < RANKTAB_NFIELDS; f++) {
		size_t i, j, best = 0, best_at = 0, ties = 0;
		int quoted = f < RANKTAB_LAYERS;
		const char *q = quoted ? "'" : "";

		for (i = 1; i < n && same_field(&rep[0], &rep[i], f); i++)
			;
		if (i == n)
			continue;
		for (i = 0; i < n; i++) {
			size_t count = 0;

			for (j = 0; j < n; j++)
				count += (size_t)same_field(&rep[i], &rep[j], f);
			if (count > best) {
				best = count;
				best_at = i;
				ties = 0;
			} else if (count == best && !same_field(&rep[i], &rep[best_at], f)) {
				ties = 1;
			}
		}
		if (best > 1 && !ties) {
			for (i = 0; i < n; i++)
				if (!same_field(&rep[i], &rep[best_at], f))
					addf(&s, "%s: %s %s%s%s differs from the other reports' "
					     "%s%s%s (%zu of %zu)\n%s: ", rep[i].path, field_names[f],
					     q, rep[i].field[f].p, q, q, rep[best_at].field[f].p, q,
					     best, n, progname);
		} else {
			for (i = 0; i < n; i++)
				addf(&s, "%s: %s %s%s%s\n%s: ", rep[i].path, field_names[f], q,
				     rep[i].field[f].p, q, progname);
			addf(&s, "the reports disagree on %s\n%s: ", field_names[f], progname);
		}
		add(&s, "refusing to compare reports of different anchors, layer counts or "
		    "phases (run every rank with the same anchor options)");
		errno = s.nomem ? ENOMEM : EINVAL;
		return -1;
	}
	return 0;
}

/* Column names: the source files' names less the prefix and suffix they all
 * share (never cutting into a number), so that rank-0.json.gz and
 * rank-1.json.gz become 0 and 1.  Falls back to the whole names, then to
 * the argument positions, when those are not distinct. */
static int labels_distinct(const struct ranktab_report *rep, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (rep[i].label[0] == '\0')
			return 0;
		for (j = 0; j < i; j++)
			if (strcmp(rep[i].label, rep[j].label) == 0)
				return 0;
	}
	return 1;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Set every label from its source's bytes [from, from + n) ... */
static int set_labels(struct ranktab_report *rep, size_t n, size_t pre, size_t suf, int cut)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct buf *s = &rep[i].source;

		free(rep[i].label);
		rep[i].label = cut ? buf_memdup(s->p + pre, s->len - pre - suf)
				   : buf_memdup(s->p, s->len);
		if (rep[i].label == NULL)
			return nomem();
	}
	return 0;
}

int ranktab_labels(struct ranktab_report *rep, size_t n)
{
	size_t len0 = rep[0].source.len, i, pre, suf, min_len;

	/* shrunk below to what every name shares */
	pre = suf = min_len = len0;
	for (i = 1; i < n; i++) {
		const struct buf *a = &rep[0].source, *b = &rep[i].source;
		size_t k = 0;

		while (k < pre && k < b->len && a->p[k] == b->p[k])
			k++;
		pre = k;
		k = 0;
		while (k < suf && k < b->len && a->p[a->len - 1 - k] == b->p[b->len - 1 - k])
			k++;
		suf = k;
		if (b->len < min_len)
			min_len = b->len;
	}
	while (pre > 0 && is_digit(rep[0].source.p[pre - 1]))
		pre--;
	while (suf > 0 && is_digit(rep[0].source.p[rep[0].source.len - suf]))
		suf--;
	if (set_labels(rep, n, pre, suf, n > 1 && pre + suf < min_len) != 0)
		return -1;
	if (labels_distinct(rep, n))
		return 0;
	if (set_labels(rep, n, 0, 0, 0) != 0)
		return -1;
	if (labels_distinct(rep, n))
		return 0;
	for (i = 0; i < n; i++) {
		char tmp[32];

		snprintf(tmp, sizeof tmp, "#%zu", i + 1);
		free(rep[i].label);
		if ((rep[i].label = buf_memdup(tmp, strlen(tmp))) == NULL)
			return nomem();
	}
	return 0;
}

int ranktab_natural_cmp(const char *a, const char *b)
{
	while (*a != '\0' && *b != '\0') {
		if (is_digit(*a) && is_digit(*b)) {
			const char *x = a, *y = b;
			size_t nx, ny;
			int c;

			while (*x == '0' && is_digit(x[1]))
				x++;
			while (*y == '0' && is_digit(y[1]))
				y++;
			for (nx = 0; is_digit(x[nx]); nx++)
				;
			for (ny = 0; is_digit(y[ny]); ny++)
				;
			if (nx != ny)
				return nx < ny ? -1 : 1;
			if ((c = memcmp(x, y, nx)) != 0)
				return c < 0 ? -1 : 1;
			a = x + nx;
			b = y + ny;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return (*a != '\0') - (*b != '\0');
}

static int by_rank(const void *x, const void *y)
{
	const struct ranktab_report *a = x, *b = y;

	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* Equal labels cannot happen (ranktab_labels), but "07" and "7" compare
 * equal as numbers: then as text, for one order whatever qsort does. */
static int by_label(const void *x, const void *y)
{
	const struct ranktab_report *a = x, *b = y;
	int c = ranktab_natural_cmp(a->label, b->label);

	return c != 0 ? c : strcmp(a->label, b->label);
}

int ranktab_order(struct ranktab_report *rep, size_t n)
{
	size_t i;

	for (i = 0; i < n && rep[i].rank >= 0; i++)
		;
	if (i == n) {
		qsort(rep, n, sizeof *rep, by_rank);
		for (i = 1; i < n && rep[i].rank != rep[i - 1].rank; i++)
			;
		if (i >= n) {
			/* the column is named by the rank it shows */
			for (i = 0; i < n; i++) {
				char tmp[24];

				snprintf(tmp, sizeof tmp, "%lld", (long long)rep[i].rank);
				free(rep[i].label);
				if ((rep[i].label = buf_memdup(tmp, strlen(tmp))) == NULL)
					return nomem();
			}
			return 1;
		}
	}
	qsort(rep, n, sizeof *rep, by_label);
	return 0;
}

int ranktab_fill(struct ranktab *t, const struct ranktab_report *rep, int64_t pass)
{
	int64_t *scratch = malloc(((size_t)rep[0].passes + 1) * sizeof *scratch);
	size_t l, r, n = t->nranks;

	if (scratch == NULL)
		return nomem();
	for (r = 0; r < n; r++) {
		for (l = 0; l < t->nlayers; l++) {
			int64_t p, v = RANKTAB_NONE;
			size_t k = 0;

			if (pass >= 0) {
				v = rep[r].interval[(size_t)pass * t->nlayers + l];
			} else {
				for (p = 0; p < rep[r].passes; p++) {
					int64_t x = rep[r].interval[(size_t)p * t->nlayers + l];

					if (x != RANKTAB_NONE)
						scratch[k++] = x;
				}
				if (k > 0)
					v = ranktab_median_low(scratch, k);
			}
			t->cell[l * n + r] = v;
		}
	}
	free(scratch);
	return ranktab_compute(t);
}
