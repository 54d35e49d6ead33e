/* tr-ranks: compare the layer reports of the ranks of one job: a table of
 * anchor-to-anchor intervals, layers by ranks, with per-rank totals and the
 * stragglers, as text, TSV or JSON, and optionally an SVG heat map.  See
 * tr-ranks(1). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "indent.h"
#include "io.h"
#include "json.h"
#include "opt.h"
#include "outfile.h"
#include "ranktab.h"
#include "tsnum.h"

/* A report is read whole; json.c's token offsets are ints. */
#define MAX_REPORT_BYTES ((size_t)1 << 30)
/* One guide row's interval not yet seen, as opposed to RANKTAB_NONE. */
#define UNSET INT64_MAX

static const char usage_text[] =
	"usage: tr-ranks [--pass K] [--threshold PCT] [--tsv | --json] [--svg FILE]\n"
	"                REPORT.layers.json...\n"
	"Compare the layer reports of the ranks of one job: one row per layer, one\n"
	"column per report (rank), each cell the anchor-to-anchor interval in\n"
	"microseconds (the median over the passes), per-rank totals and the\n"
	"stragglers.  These are anchor-to-anchor intervals, not layer latencies.\n"
	"\n"
	"  --pass K         the intervals of pass K (0-based) instead of the median\n"
	"  --threshold PCT  a straggler's interval exceeds the row's median by more\n"
	"                   than PCT percent (0 to 1000; default 10)\n"
	"  --tsv            tab-separated values instead of the text table\n"
	"  --json           JSON instead of the text table\n"
	"  --svg FILE       also write a heat map of the table to FILE (must not exist)\n"
	"  --help           this text\n"
	"  --version        the version\n"
	"\n"
	"Exit status: 0 success, 1 a report rejected (malformed, or its anchor,\n"
	"layer count or phase differs from the others'), 2 usage or system trouble.\n";

/* The members that must agree between the reports, in the order checked. */
enum field { F_PHASE, F_ANCHOR, F_LAYERS, F_FIRST, F_PASSES, NFIELDS };
static const char *const field_names[NFIELDS] = {
	"phase", "anchor_regex", "num_layers", "first_layer", "passes"
};

struct report {
	const char *path;
	char *text;
	size_t len;
	struct jdoc doc;
	struct buf field[NFIELDS];   /* unescaped strings, decimal integers */
	struct buf source;           /* source_file, unescaped */
	char *label;                 /* the column's name */
	int64_t num_layers, first_layer, passes;
	int64_t *interval;           /* [pass * num_layers + layer index] */
};

struct options {
	int64_t pass;                /* -1: the median over the passes */
	unsigned threshold;
	int tsv, json;
	const char *svg;
};

static void read_whole(struct report *r)
{
	struct buf b = BUF_INIT;
	char chunk[1 << 16];
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		die_errno(EXIT_TROUBLE, "%s", r->path);
	while ((n = read_some(fd, chunk, sizeof chunk)) > 0) {
		if (b.len + (size_t)n > MAX_REPORT_BYTES)
			die(EXIT_INPUT, "%s: larger than 1 GiB; not a layers report", r->path);
		if (buf_add(&b, chunk, (size_t)n) != 0)
			die_nomem();
	}
	if (n < 0)
		die_errno(EXIT_TROUBLE, "%s", r->path);
	close(fd);
	r->text = b.p;
	r->len = b.len;
}

static _Noreturn void bad_report(const struct report *r, const char *what)
{
	die(EXIT_INPUT, "%s: %s; not a layers report of tr-layer-track or tr-encode",
	    r->path, what);
}

static int member(const struct report *r, int obj, const char *key, enum jtype type)
{
	int i = jdoc_find(&r->doc, obj, key);

	if (i < 0 || jdoc_type(&r->doc, i) != type)
		return -1;
	return i;
}

static void string_member(struct report *r, const char *key, struct buf *out)
{
	int i = member(r, 0, key, JT_STRING);
	char what[96];

	if (i < 0) {
		snprintf(what, sizeof what, "no string member \"%s\"", key);
		bad_report(r, what);
	}
	if (jdoc_unescape(&r->doc, i, out) != 0)
		bad_report(r, "a malformed string escape");
}

static int64_t int_member(struct report *r, int obj, const char *key, int64_t min,
	int64_t max, const char *where)
{
	int i = member(r, obj, key, JT_PRIMITIVE);
	int64_t v;

	if (i < 0 || jdoc_int64(&r->doc, i, &v) != 0 || v < min || v > max)
		die(EXIT_INPUT, "%s: %s\"%s\" is not an integer from %lld to %lld",
		    r->path, where, key, (long long)min, (long long)max);
	return v;
}

static int64_t ns_member(struct report *r, int obj, const char *key, const char *where)
{
	int i = member(r, obj, key, JT_PRIMITIVE);
	const char *text;
	size_t n;
	int64_t ns;
	int sub_ns;

	if (i < 0)
		die(EXIT_INPUT, "%s: %sno number \"%s\"", r->path, where, key);
	text = jdoc_text(&r->doc, i, &n);
	if (num_us_to_ns(text, n, &ns, &sub_ns) != NUM_OK)
		die(EXIT_INPUT, "%s: %s\"%s\" %.*s is not a number of microseconds",
		    r->path, where, key, (int)n, text);
	if (sub_ns)
		die(EXIT_INPUT, "%s: %s\"%s\" %.*s is finer than a nanosecond",
		    r->path, where, key, (int)n, text);
	return ns;
}

/* The guide rows: one interval per (pass, layer), each exactly once. */
static void read_rows(struct report *r)
{
	int rows = member(r, 0, "layers", JT_ARRAY), i, k, nrows;
	size_t want = (size_t)(r->num_layers * r->passes), j;

	if (rows < 0)
		bad_report(r, "no array \"layers\"");
	nrows = jdoc_size(&r->doc, rows);
	if ((size_t)nrows != want)
		die(EXIT_INPUT, "%s: %d guide rows, but num_layers %lld x passes %lld = %zu",
		    r->path, nrows, (long long)r->num_layers, (long long)r->passes, want);
	r->interval = xmalloc(want * sizeof *r->interval);
	for (j = 0; j < want; j++)
		r->interval[j] = UNSET;
	for (k = 0, i = rows + 1; k < nrows; k++, i = jdoc_next(&r->doc, i)) {
		char where[48];
		int64_t pass, layer, start, end;
		int kind;
		size_t at;

		snprintf(where, sizeof where, "layers[%d]: ", k);
		if (jdoc_type(&r->doc, i) != JT_OBJECT)
			die(EXIT_INPUT, "%s: %snot an object", r->path, where);
		pass = int_member(r, i, "pass_index", 0, r->passes - 1, where);
		layer = int_member(r, i, "layer_id", r->first_layer,
			r->first_layer + r->num_layers - 1, where);
		at = (size_t)(pass * r->num_layers + layer - r->first_layer);
		if (r->interval[at] != UNSET)
			die(EXIT_INPUT, "%s: %spass %lld, layer %lld appears twice", r->path,
			    where, (long long)pass, (long long)layer);
		kind = member(r, i, "boundary_kind", JT_STRING);
		if (kind < 0)
			die(EXIT_INPUT, "%s: %sno string \"boundary_kind\"", r->path, where);
		start = ns_member(r, i, "start_us", where);
		end = ns_member(r, i, "end_us", where);
		if (jdoc_str_eq(&r->doc, kind, "anchor_point_only")) {
			r->interval[at] = RANKTAB_NONE;
			continue;
		}
		if (end < start || end - start > RANKTAB_MAX_NS)
			die(EXIT_INPUT, "%s: %send_us is before start_us or over 10^15 ns after it",
			    r->path, where);
		r->interval[at] = end - start;
	}
}

static void read_report(struct report *r)
{
	size_t lead = 0;
	int nomem, j;

	read_whole(r);
	/* the value itself: a report ends with a newline */
	while (r->len > 0 && strchr(" \t\r\n", r->text[r->len - 1]) != NULL)
		r->len--;
	while (lead < r->len && strchr(" \t\r\n", r->text[lead]) != NULL)
		lead++;
	if (jdoc_parse(&r->doc, r->text + lead, r->len - lead, &nomem) != 0) {
		if (nomem)
			die_nomem();
		bad_report(r, "not JSON");
	}
	if (r->doc.ntok < 1 || jdoc_type(&r->doc, 0) != JT_OBJECT)
		bad_report(r, "not a JSON object");
	string_member(r, "phase", &r->field[F_PHASE]);
	string_member(r, "anchor_regex", &r->field[F_ANCHOR]);
	string_member(r, "source_file", &r->source);
	r->num_layers = int_member(r, 0, "num_layers", 1, 100000000, "");
	r->first_layer = int_member(r, 0, "first_layer", 0, 1000000000, "");
	r->passes = int_member(r, 0, "passes", 1, 100000000, "");
	if (r->num_layers * r->passes > 100000000)
		die(EXIT_INPUT, "%s: more than 10^8 guide rows", r->path);
	for (j = F_LAYERS; j <= F_PASSES; j++) {
		int64_t v = j == F_LAYERS ? r->num_layers : j == F_FIRST ? r->first_layer : r->passes;

		if (buf_add_i64(&r->field[j], v) != 0)
			die_nomem();
	}
	read_rows(r);
}

static int same_field(const struct report *a, const struct report *b, int f)
{
	return a->field[f].len == b->field[f].len &&
		memcmp(a->field[f].p, b->field[f].p, a->field[f].len) == 0;
}

/* Reports that differ in a member that must agree are refused: the ones
 * that differ from the value most reports share are named, or, without
 * such a majority, every report with its value. */
static void check_agreement(struct report *rep, size_t n)
{
	int f;

	for (f = 0; f < NFIELDS; f++) {
		size_t i, j, best = 0, best_at = 0, ties = 0;
		int quoted = f < F_LAYERS;
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
					warnx_tr("%s: %s %s%s%s differs from the other reports' "
						 "%s%s%s (%zu of %zu)", rep[i].path, field_names[f],
						 q, rep[i].field[f].p, q, q, rep[best_at].field[f].p, q,
						 best, n);
		} else {
			for (i = 0; i < n; i++)
				warnx_tr("%s: %s %s%s%s", rep[i].path, field_names[f], q,
					 rep[i].field[f].p, q);
			warnx_tr("the reports disagree on %s", field_names[f]);
		}
		die(EXIT_INPUT, "refusing to compare reports of different anchors, layer "
		    "counts or phases (run every rank with the same anchor options)");
	}
}

/* Column names: the source files' names less the prefix and suffix they all
 * share (never cutting into a number), so that rank-0.json.gz and
 * rank-1.json.gz become 0 and 1.  Falls back to the whole names, then to
 * the argument positions, when those are not distinct. */
static int labels_distinct(struct report *rep, size_t n)
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

static void make_labels(struct report *rep, size_t n)
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
	for (i = 0; i < n; i++) {
		const struct buf *s = &rep[i].source;

		rep[i].label = n > 1 && pre + suf < min_len ?
			xmemdup(s->p + pre, s->len - pre - suf) : xmemdup(s->p, s->len);
	}
	if (labels_distinct(rep, n))
		return;
	for (i = 0; i < n; i++) {
		free(rep[i].label);
		rep[i].label = xmemdup(rep[i].source.p, rep[i].source.len);
	}
	if (labels_distinct(rep, n))
		return;
	for (i = 0; i < n; i++) {
		char tmp[32];

		snprintf(tmp, sizeof tmp, "#%zu", i + 1);
		free(rep[i].label);
		rep[i].label = xmemdup(tmp, strlen(tmp));
	}
}

static void fill_table(struct ranktab *t, struct report *rep, size_t n, int64_t pass)
{
	int64_t *scratch = xmalloc((size_t)rep[0].passes * sizeof *scratch);
	size_t l, r;

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
	if (ranktab_compute(t) != 0) {
		if (errno == ENOMEM)
			die_nomem();
		die(EXIT_INPUT, "a rank's total interval exceeds 10^15 ns");
	}
}

/* ---- output --------------------------------------------------------- */

static void add(struct buf *b, const char *s)
{
	if (buf_addstr(b, s) != 0)
		die_nomem();
}

static void add_us(struct buf *b, int64_t v, const char *none)
{
	char tmp[NUM_US_BUFSZ];

	if (v == RANKTAB_NONE) {
		add(b, none);
		return;
	}
	num_format_us3(v, tmp);
	add(b, tmp);
}

static void add_layer_name(struct buf *b, const struct report *r, size_t l, size_t nlayers)
{
	if (l == nlayers)
		add(b, "total");
	else if (buf_printf(b, "L%lld", (long long)(r->first_layer + (int64_t)l)) != 0)
		die_nomem();
}

/* The straggler labels of a row, comma-separated; "" when none. */
static void add_stragglers(struct buf *b, const struct ranktab *t, const struct report *rep,
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

static void what_cells_are(struct buf *b, const struct report *rep, int64_t pass)
{
	if (pass >= 0) {
		if (buf_printf(b, "pass %lld", (long long)pass) != 0)
			die_nomem();
	} else if (buf_printf(b, "median over %lld pass%s", (long long)rep[0].passes,
			      rep[0].passes == 1 ? "" : "es") != 0) {
		die_nomem();
	}
}

static void pad_to(struct buf *b, size_t from, size_t width, int right)
{
	size_t len = b->len - from;

	if (len >= width)
		return;
	if (!right) {
		while (len++ < width)
			add(b, " ");
		return;
	}
	if (buf_grow(b, width - len) != 0)
		die_nomem();
	memmove(b->p + from + (width - len), b->p + from, len);
	memset(b->p + from, ' ', width - len);
	buf_setlen(b, from + width);
}

/* cell text of row l, column c: c < nranks a rank, nranks the median */
static void add_cell(struct buf *b, const struct ranktab *t, size_t l, size_t c,
	const char *none)
{
	add_us(b, c < t->nranks ? ranktab_value(t, l, c) : t->median[l], none);
}

static void text_table(struct buf *b, const struct ranktab *t, const struct report *rep,
	const struct options *o)
{
	size_t ncol = t->nranks + 1, c, l, *width = xmalloc((ncol + 1) * sizeof *width);
	struct buf tmp = BUF_INIT;

	width[0] = 5;
	for (l = 0; l < t->nlayers; l++) {
		buf_reset(&tmp);
		add_layer_name(&tmp, &rep[0], l, t->nlayers);
		if (tmp.len > width[0])
			width[0] = tmp.len;
	}
	for (c = 0; c < ncol; c++) {
		width[c + 1] = c < t->nranks ? strlen(rep[c].label) : 6;
		for (l = 0; l <= t->nlayers; l++) {
			buf_reset(&tmp);
			add_cell(&tmp, t, l, c, "-");
			if (tmp.len > width[c + 1])
				width[c + 1] = tmp.len;
		}
	}
	add(b, "anchor-to-anchor intervals in µs (");
	what_cells_are(b, rep, o->pass);
	add(b, "), not layer latencies:\n"
	       "each cell runs from a layer's anchor kernel to the next layer's anchor\n");
	if (buf_printf(b, "phase: %s\nanchor: %s\nlayers: %s (L%s to L%lld), passes: %s, "
		       "ranks: %zu\n", rep[0].field[F_PHASE].p, rep[0].field[F_ANCHOR].p,
		       rep[0].field[F_LAYERS].p, rep[0].field[F_FIRST].p,
		       (long long)(rep[0].first_layer + rep[0].num_layers - 1),
		       rep[0].field[F_PASSES].p, t->nranks) != 0 ||
	    buf_printf(b, "straggler: an interval more than %u%% above its row's median "
		       "over the ranks\n", o->threshold) != 0)
		die_nomem();
	for (c = 0; c < t->nranks; c++)
		if (buf_printf(b, "rank %s: %s (%s)\n", rep[c].label, rep[c].source.p,
			       rep[c].path) != 0)
			die_nomem();
	add(b, "\n");
	for (l = 0; l <= t->nlayers + 1; l++) {
		size_t from = b->len;

		/* l == 0: the header; then the layers, then the totals */
		if (l == 0)
			add(b, "layer");
		else
			add_layer_name(b, &rep[0], l - 1, t->nlayers);
		pad_to(b, from, width[0], 0);
		for (c = 0; c < ncol; c++) {
			add(b, "  ");
			from = b->len;
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
			from = b->len;
			add_stragglers(b, t, rep, l - 1, o->threshold, ",");
			if (b->len == from)
				add(b, "-");
		}
		add(b, "\n");
	}
	buf_release(&tmp);
	free(width);
}

static void tsv_table(struct buf *b, const struct ranktab *t, const struct report *rep,
	const struct options *o)
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

static void add_json_string(struct buf *b, const char *s, size_t n)
{
	if (json_escape(b, s, n) != 0)
		die_nomem();
}

static void json_row(struct buf *b, const struct ranktab *t, const struct report *rep,
	size_t l, const struct options *o)
{
	size_t c, k = 0;

	if (l < t->nlayers) {
		struct buf name = BUF_INIT;

		add(b, "{\"layer\":");
		add_layer_name(&name, &rep[0], l, t->nlayers);
		add_json_string(b, name.p, name.len);
		buf_release(&name);
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

static void json_table(struct buf *b, const struct ranktab *t, const struct report *rep,
	const struct options *o)
{
	struct buf flat = BUF_INIT;
	struct indent ix;
	size_t c, l;

	add(&flat, "{\"notice\":\"These are anchor-to-anchor intervals, not layer latencies: "
	    "each cell runs from a layer's anchor kernel to the next layer's anchor, in "
	    "microseconds; null where a layer has no interval (a zero-length marker).\","
	    "\"phase\":");
	add_json_string(&flat, rep[0].field[F_PHASE].p, rep[0].field[F_PHASE].len);
	add(&flat, ",\"anchor_regex\":");
	add_json_string(&flat, rep[0].field[F_ANCHOR].p, rep[0].field[F_ANCHOR].len);
	if (buf_printf(&flat, ",\"num_layers\":%s,\"first_layer\":%s,\"passes\":%s,\"pass\":",
		       rep[0].field[F_LAYERS].p, rep[0].field[F_FIRST].p,
		       rep[0].field[F_PASSES].p) != 0)
		die_nomem();
	if (o->pass >= 0) {
		if (buf_add_i64(&flat, o->pass) != 0)
			die_nomem();
	} else {
		add(&flat, "null");
	}
	add(&flat, ",\"statistic\":");
	add(&flat, o->pass >= 0 ? "\"pass\"" : "\"median_low\"");
	if (buf_printf(&flat, ",\"threshold_percent\":%u,\"ranks\":[", o->threshold) != 0)
		die_nomem();
	for (c = 0; c < t->nranks; c++) {
		add(&flat, c > 0 ? ",{\"label\":" : "{\"label\":");
		add_json_string(&flat, rep[c].label, strlen(rep[c].label));
		add(&flat, ",\"source_file\":");
		add_json_string(&flat, rep[c].source.p, rep[c].source.len);
		add(&flat, ",\"report\":");
		add_json_string(&flat, rep[c].path, strlen(rep[c].path));
		add(&flat, "}");
	}
	add(&flat, "],\"layers\":[");
	for (l = 0; l < t->nlayers; l++) {
		if (l > 0)
			add(&flat, ",");
		json_row(&flat, t, rep, l, o);
	}
	add(&flat, "],\"totals\":");
	json_row(&flat, t, rep, t->nlayers, o);
	add(&flat, "}\n");
	indent_init(&ix, 2, put_buf, b);
	if (indent_write(&ix, flat.p, flat.len) != 0 || indent_flush(&ix) != 0)
		die_nomem();
	indent_free(&ix);
	buf_release(&flat);
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

static void add_xml(struct buf *b, const char *s)
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
			if (buf_addch(b, (unsigned char)*s < 0x20 ? ' ' : *s) != 0)
				die_nomem();
		}
	}
}

static void svgf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void svgf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		die(EXIT_TROUBLE, "internal error: an SVG element too long");
	add(b, tmp);
}

enum { CELL_H = 20, LEFT = 80, TOP = 100, LEGEND_H = 120 };

static void svg_map(struct buf *b, const struct ranktab *t, const struct report *rep,
	const struct options *o)
{
	size_t c, l, cell_w = 64, label_max = 0;
	size_t width, height, title_w, rows = t->nlayers + 1;
	struct buf s = BUF_INIT;
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
	title_w = 20 + 8 * (strlen(rep[0].field[F_PHASE].p) + strlen(rep[0].field[F_ANCHOR].p) + 70);
	if (width < title_w)
		width = title_w;
	height = TOP + CELL_H * rows + 8 + LEGEND_H;
	svgf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
	     "viewBox=\"0 0 %zu %zu\" font-family=\"sans-serif\" font-size=\"11\">\n",
	     width, height, width, height);
	svgf(b, "<rect x=\"0\" y=\"0\" width=\"%zu\" height=\"%zu\" fill=\"#ffffff\"/>\n",
	     width, height);
	add(b, "<text id=\"title\" x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">"
	    "Anchor-to-anchor intervals by layer and rank: phase ");
	add_xml(b, rep[0].field[F_PHASE].p);
	add(b, ", anchor ");
	add_xml(b, rep[0].field[F_ANCHOR].p);
	add(b, "</text>\n<text id=\"subtitle\" x=\"10\" y=\"38\">Colour: the interval "
	    "relative to its row&apos;s median over the ranks; cells in µs (");
	what_cells_are(&s, rep, o->pass);
	add_xml(b, s.p);
	add(b, ").</text>\n<text id=\"notice\" x=\"10\" y=\"54\">Not layer latencies: "
	    "each cell runs from a layer&apos;s anchor kernel to the next layer&apos;s "
	    "anchor.</text>\n");
	svgf(b, "<text id=\"x-axis\" x=\"%zu\" y=\"72\" text-anchor=\"middle\" "
	     "font-weight=\"bold\">rank</text>\n",
	     LEFT + cell_w * (t->nranks + 1) / 2);
	svgf(b, "<text id=\"y-axis\" x=\"14\" y=\"%zu\" text-anchor=\"middle\" "
	     "font-weight=\"bold\" transform=\"rotate(-90 14 %zu)\">layer</text>\n",
	     TOP + CELL_H * rows / 2, TOP + CELL_H * rows / 2);
	for (c = 0; c <= t->nranks; c++) {
		svgf(b, "<text class=\"rank\" x=\"%zu\" y=\"%d\" text-anchor=\"middle\">",
		     LEFT + cell_w * c + cell_w / 2, TOP - 8);
		add_xml(b, c < t->nranks ? rep[c].label : "median");
		add(b, "</text>\n");
	}
	for (l = 0; l < rows; l++) {
		size_t y = TOP + CELL_H * l + (l == t->nlayers ? 6 : 0);

		buf_reset(&s);
		add_layer_name(&s, &rep[0], l, t->nlayers);
		svgf(b, "<text class=\"layer\" x=\"%d\" y=\"%zu\" text-anchor=\"end\">%s</text>\n",
		     LEFT - 6, y + 14, s.p);
		for (c = 0; c <= t->nranks; c++) {
			int64_t v = c < t->nranks ? ranktab_value(t, l, c) : t->median[l];
			enum ranktab_band band = c < t->nranks ?
				ranktab_band(v, t->median[l], th) :
				(v == RANKTAB_NONE ? RANKTAB_BAND_NONE : RANKTAB_BAND_NEAR);
			char us[NUM_US_BUFSZ] = "";
			int dark = band == RANKTAB_BAND_FAST || band == RANKTAB_BAND_SLOWEST;

			if (v != RANKTAB_NONE)
				num_format_us3(v, us);
			add(b, c < t->nranks ? "<g class=\"cell\" data-layer=\"" :
			    "<g class=\"median\" data-layer=\"");
			add(b, s.p);
			add(b, "\" data-rank=\"");
			add_xml(b, c < t->nranks ? rep[c].label : "median");
			svgf(b, "\" data-us=\"%s\"><rect x=\"%zu\" y=\"%zu\" width=\"%zu\" "
			     "height=\"%d\" fill=\"%s\" stroke=\"#ffffff\"/>", us,
			     LEFT + cell_w * c + (c == t->nranks ? 6 : 0), y, cell_w, CELL_H,
			     band_fill[band]);
			add(b, "<title>");
			add(b, s.p);
			add(b, c < t->nranks ? ", rank " : ", ");
			add_xml(b, c < t->nranks ? rep[c].label : "median over the ranks");
			svgf(b, ": %s%s</title>", v == RANKTAB_NONE ? "no interval" : us,
			     v == RANKTAB_NONE ? "" : " µs");
			svgf(b, "<text x=\"%zu\" y=\"%zu\" text-anchor=\"middle\" fill=\"%s\">%s"
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

		svgf(b, "<rect class=\"swatch\" x=\"%d\" y=\"%zu\" width=\"24\" height=\"12\" "
		     "fill=\"%s\" stroke=\"#808080\"/><text x=\"%d\" y=\"%zu\">", LEFT, y,
		     band_fill[band], LEFT + 32, y + 10);
		add_xml(b, legend[k]);
		add(b, "</text>\n");
	}
	add(b, "</g>\n</svg>\n");
	buf_release(&s);
}

static void write_svg(struct outfile *out, const struct ranktab *t, const struct report *rep,
	const struct options *o)
{
	struct buf b = BUF_INIT;

	svg_map(&b, t, rep, o);
	if (write_all(out->fd, b.p, b.len) != 0)
		die_errno(EXIT_TROUBLE, "%s", o->svg);
	if (outfile_commit(out) != 0)
		die_errno(EXIT_TROUBLE, "%s", o->svg);
	buf_release(&b);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pass", required_argument, NULL, 'p' },
		{ "threshold", required_argument, NULL, 't' },
		{ "tsv", no_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct options o = { -1, 10, 0, 0, NULL };
	struct outfile svg = { NULL, NULL, -1 };
	struct report *rep;
	struct ranktab t;
	struct buf out = BUF_INIT;
	int64_t v;
	size_t n, i;
	int ch;
	struct opt_program prog = { NULL, ":h", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'p':
			if (opt_i64(&prog, stderr, "--pass", optarg, 0, 100000000, &o.pass) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 't':
			if (opt_i64(&prog, stderr, "--threshold", optarg, 0, RANKTAB_MAX_PERCENT,
				    &v) != 0)
				exit(EXIT_TROUBLE);
			o.threshold = (unsigned)v;
			break;
		case 'T': o.tsv = 1; break;
		case 'j': o.json = 1; break;
		case 's': o.svg = optarg; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (o.tsv && o.json)
		die(EXIT_TROUBLE, "--tsv and --json exclude each other");
	if (optind == argc)
		exit(opt_usage_error(&prog, stderr, "no report given"));
	if (o.svg != NULL) {
		if (strcmp(o.svg, "-") == 0)
			die(EXIT_TROUBLE, "--svg -: the heat map goes to a file, the table to "
			    "standard output");
		outfile_catch_signals();
		diag_on_exit(outfile_abort_all);
		if (outfile_open(&svg, o.svg) != 0)
			die_errno(EXIT_TROUBLE, "%s", o.svg);
	}
	n = (size_t)(argc - optind);
	rep = calloc(n, sizeof *rep);
	if (rep == NULL)
		die_nomem();
	for (i = 0; i < n; i++) {
		struct jdoc init = JDOC_INIT;
		int f;

		rep[i].path = argv[optind + (int)i];
		rep[i].doc = init;
		for (f = 0; f < NFIELDS; f++) {
			struct buf empty = BUF_INIT;

			rep[i].field[f] = empty;
		}
		{
			struct buf empty = BUF_INIT;

			rep[i].source = empty;
		}
		read_report(&rep[i]);
	}
	check_agreement(rep, n);
	if (o.pass >= rep[0].passes)
		die(EXIT_INPUT, "--pass %lld: the reports have %lld pass%s (0 to %lld)",
		    (long long)o.pass, (long long)rep[0].passes, rep[0].passes == 1 ? "" : "es",
		    (long long)rep[0].passes - 1);
	make_labels(rep, n);
	if (ranktab_init(&t, (size_t)rep[0].num_layers, n) != 0)
		die_nomem();
	fill_table(&t, rep, n, o.pass);
	if (o.json)
		json_table(&out, &t, rep, &o);
	else if (o.tsv)
		tsv_table(&out, &t, rep, &o);
	else
		text_table(&out, &t, rep, &o);
	if (o.svg != NULL)
		write_svg(&svg, &t, rep, &o);
	if (write_all(STDOUT_FILENO, out.p, out.len) != 0)
		die_write("standard output");
	buf_release(&out);
	ranktab_free(&t);
	for (i = 0; i < n; i++) {
		int f;

		for (f = 0; f < NFIELDS; f++)
			buf_release(&rep[i].field[f]);
		buf_release(&rep[i].source);
		jdoc_free(&rep[i].doc);
		free(rep[i].text);
		free(rep[i].label);
		free(rep[i].interval);
	}
	free(rep);
	return EXIT_OK;
}
