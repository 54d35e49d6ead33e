/* ranktab: see ranktab.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "indent.h"
#include "ranktab.h"
#include "tsnum.h"

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
	t->cell = t->median = t->total = NULL;
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
	if (t->cell == NULL || t->median == NULL || t->total == NULL) {
		ranktab_free(t);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++)
		t->cell[i] = RANKTAB_NONE;
	for (i = 0; i <= nlayers; i++)
		t->median[i] = RANKTAB_NONE;
	for (i = 0; i < nranks; i++)
		t->total[i] = RANKTAB_NONE;
	return 0;
}

void ranktab_free(struct ranktab *t)
{
	free(t->cell);
	free(t->median);
	free(t->total);
	t->cell = t->median = t->total = NULL;
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
	for (l = 0; l <= t->nlayers; l++)
		t->median[l] = row_median(t, l, scratch);
	free(scratch);
	return 0;
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

static void text_table(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	const struct ranktab_view *o)
{
	size_t ncol = t->nranks + 1, c, l, *width = malloc((ncol + 1) * sizeof *width);
	struct buf text = BUF_INIT;
	struct sink tmp = { &text, 0 };

	if (width == NULL) {
		b->nomem = 1;
		return;
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
	add(b, "\n");
	for (l = 0; l <= t->nlayers + 1; l++) {
		size_t from = b->b->len;

		/* l == 0: the header; then the layers, then the totals */
		if (l == 0)
			add(b, "layer");
		else
			add_layer_name(b, &rep[0], l - 1, t->nlayers);
		pad_to(b, from, width[0], 0);
		for (c = 0; c < ncol; c++) {
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
			add_stragglers(b, t, rep, l - 1, o->threshold, ",");
			if (b->b->len == from)
				add(b, "-");
		}
		add(b, "\n");
	}
	buf_release(&text);
	free(width);
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

static const char *const band_fill[] = {
	[RANKTAB_BAND_NONE] = "#d9d9d9",
	[RANKTAB_BAND_FAST] = "#2166ac",
	[RANKTAB_BAND_BELOW] = "#92c5de",
	[RANKTAB_BAND_NEAR] = "#f7f7f7",
	[RANKTAB_BAND_SLOW] = "#f4a582",
	[RANKTAB_BAND_SLOWEST] = "#b2182b",
};

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

enum { CELL_H = 20, LEFT = 80, TOP = 100, LEGEND_H = 120 };

static void svg_map(struct sink *b, const struct ranktab *t, const struct ranktab_report *rep,
	const struct ranktab_view *o)
{
	size_t c, l, cell_w = 64, label_max = 0;
	size_t width, height, title_w, rows = t->nlayers + 1;
	struct buf stext = BUF_INIT;
	struct sink s = { &stext, 0 };
	unsigned th = o->threshold;
	static const char *legend[6];
	char text[6][96];
	int k;

	for (c = 0; c < t->nranks; c++)
		if (strlen(rep[c].label) > label_max)
			label_max = strlen(rep[c].label);
	if (label_max * 7 + 8 > cell_w)
		cell_w = label_max * 7 + 8;
	width = LEFT + cell_w * (t->nranks + 1) + 40;
	if (width < 760)
		width = 760;
	/* the title, about 8 px a character in bold 14 px sans-serif */
	title_w = 20 + 8 * (strlen(rep[0].field[RANKTAB_PHASE].p) + strlen(rep[0].field[RANKTAB_ANCHOR].p) + 70);
	if (width < title_w)
		width = title_w;
	height = TOP + CELL_H * rows + 8 + LEGEND_H;
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
	add(b, "</text>\n<text id=\"subtitle\" x=\"10\" y=\"38\">Colour: the interval "
	    "relative to its row&apos;s median over the ranks; cells in µs (");
	what_cells_are(&s, rep, o->pass);
	add_xml(b, stext.p);
	add(b, ").</text>\n<text id=\"notice\" x=\"10\" y=\"54\">Not layer latencies: "
	    "each cell runs from a layer&apos;s anchor kernel to the next layer&apos;s "
	    "anchor.</text>\n");
	addf(b, "<text id=\"x-axis\" x=\"%zu\" y=\"72\" text-anchor=\"middle\" "
	     "font-weight=\"bold\">rank</text>\n",
	     LEFT + cell_w * (t->nranks + 1) / 2);
	addf(b, "<text id=\"y-axis\" x=\"14\" y=\"%zu\" text-anchor=\"middle\" "
	     "font-weight=\"bold\" transform=\"rotate(-90 14 %zu)\">layer</text>\n",
	     TOP + CELL_H * rows / 2, TOP + CELL_H * rows / 2);
	for (c = 0; c <= t->nranks; c++) {
		addf(b, "<text class=\"rank\" x=\"%zu\" y=\"%d\" text-anchor=\"middle\">",
		     LEFT + cell_w * c + cell_w / 2, TOP - 8);
		add_xml(b, c < t->nranks ? rep[c].label : "median");
		add(b, "</text>\n");
	}
	for (l = 0; l < rows; l++) {
		size_t y = TOP + CELL_H * l + (l == t->nlayers ? 6 : 0);

		buf_reset(&stext);
		add_layer_name(&s, &rep[0], l, t->nlayers);
		addf(b, "<text class=\"layer\" x=\"%d\" y=\"%zu\" text-anchor=\"end\">%s</text>\n",
		     LEFT - 6, y + 14, stext.p);
		for (c = 0; c <= t->nranks; c++) {
			int64_t v = c < t->nranks ? ranktab_value(t, l, c) : t->median[l];
			enum ranktab_band band = c < t->nranks ?
				ranktab_band(v, t->median[l], th) :
				(v == RANKTAB_NONE ? RANKTAB_BAND_NONE : RANKTAB_BAND_NEAR);
			char us[NUM_US_BUFSZ] = "";
			int dark = band == RANKTAB_BAND_FAST || band == RANKTAB_BAND_SLOWEST;

			if (v != RANKTAB_NONE)
				tsnum_format_us3(v, us);
			add(b, c < t->nranks ? "<g class=\"cell\" data-layer=\"" :
			    "<g class=\"median\" data-layer=\"");
			add(b, stext.p);
			add(b, "\" data-rank=\"");
			add_xml(b, c < t->nranks ? rep[c].label : "median");
			addf(b, "\" data-us=\"%s\"><rect x=\"%zu\" y=\"%zu\" width=\"%zu\" "
			     "height=\"%d\" fill=\"%s\" stroke=\"#ffffff\"/>", us,
			     LEFT + cell_w * c + (c == t->nranks ? 6 : 0), y, cell_w, CELL_H,
			     band_fill[band]);
			add(b, "<title>");
			add(b, stext.p);
			add(b, c < t->nranks ? ", rank " : ", ");
			add_xml(b, c < t->nranks ? rep[c].label : "median over the ranks");
			addf(b, ": %s%s</title>", v == RANKTAB_NONE ? "no interval" : us,
			     v == RANKTAB_NONE ? "" : " µs");
			addf(b, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\" fill=\"%s\">%s"
			     "</text></g>\n", LEFT + cell_w * c + (c == t->nranks ? 6 : 0) +
			     cell_w / 2, y + 14, dark ? "#ffffff" : "#000000",
			     v == RANKTAB_NONE ? "-" : us);
		}
	}
	snprintf(text[0], sizeof text[0], "more than %u%% below the row's median", th);
	snprintf(text[1], sizeof text[1], "up to %u%% below the median", th);
	snprintf(text[2], sizeof text[2], "the median to %u%% above it", th);
	snprintf(text[3], sizeof text[3], "%u%% to %u%% above: straggler", th, 3 * th);
	snprintf(text[4], sizeof text[4], "more than %u%% above: straggler", 3 * th);
	snprintf(text[5], sizeof text[5], "no interval (zero-length marker)");
	for (k = 0; k < 6; k++)
		legend[k] = text[k];
	add(b, "<g id=\"legend\">\n");
	for (k = 0; k < 6; k++) {
		size_t y = TOP + CELL_H * rows + 16 + (size_t)k * 16;
		enum ranktab_band band = k < 5 ? (enum ranktab_band)(k + 1) : RANKTAB_BAND_NONE;

		addf(b, "<rect class=\"swatch\" x=\"%d\" y=\"%zu\" width=\"24\" height=\"12\" "
		     "fill=\"%s\" stroke=\"#808080\"/><text x=\"%d\" y=\"%zu\">", LEFT, y,
		     band_fill[band], LEFT + 32, y + 10);
		add_xml(b, legend[k]);
		add(b, "</text>\n");
	}
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
