#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json/event.h"
#include "core/opt.h"
#include "core/io.h"
#include "json/scan.h"
#include "stream/stream.h"
#include "stream/trstream.h"
#include "json/tsnum.h"
#include "window/window.h"

#define HALF_MAX (INT64_MAX / 2)

int window_parse_dur(const char *text, int64_t default_unit_ns, int64_t *ns)
{
	static const struct { const char *name; int64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }
	};
	const char *p = text;
	int64_t whole = 0, frac = 0, unit = default_unit_ns, scale;
	size_t nfrac = 0, k;
	int digits = 0;

	while (*p >= '0' && *p <= '9') {
		if (whole > ((int64_t)1 << 62) / 10)
			return -1;
		whole = whole * 10 + (*p++ - '0');
		digits++;
	}
	if (digits == 0)
		return -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9') {
			if (nfrac == 18)
				return -1;
			frac = frac * 10 + (*p++ - '0');
			nfrac++;
		}
	}
	if (*p != '\0') {
		for (k = 0; k < sizeof units / sizeof units[0]; k++)
			if (strcmp(p, units[k].name) == 0)
				break;
		if (k == sizeof units / sizeof units[0])
			return -1;
		unit = units[k].ns;
	}
	if (whole > ((int64_t)1 << 62) / unit)
		return -1;
	/* frac / 10^nfrac of a unit must be whole ns */
	scale = 1;
	for (k = 0; k < nfrac; k++)
		scale *= 10;
	{
		/* unit * frac / scale exactly: unit and scale are powers of ten */
		int64_t part;
		if (unit >= scale)
			part = frac * (unit / scale);
		else if (frac % (scale / unit) != 0)
			return -1;
		else
			part = frac / (scale / unit);
		*ns = whole * unit + part;
	}
	return *ns > ((int64_t)1 << 62) ? -1 : 0;
}

static int parse_nonneg(const char *p, size_t n, int64_t *v)
{
	return n > 0 && p[0] != '-' && tsnum_parse_int64(p, n, v) == NUM_OK ? 0 : -1;
}

int window_parse_range(const char *text, int64_t *a, int64_t *b)
{
	const char *dash = strchr(text, '-');
	size_t n = strlen(text);

	if (dash == NULL) {
		if (parse_nonneg(text, n, a) != 0)
			return -1;
		*b = *a;
		return 0;
	}
	if (parse_nonneg(text, (size_t)(dash - text), a) != 0 ||
	    parse_nonneg(dash + 1, n - (size_t)(dash - text) - 1, b) != 0)
		return -1;
	return *a <= *b ? 0 : -1;
}

int64_t window_half(int64_t ns)
{
	if (ns > HALF_MAX)
		return INT64_MAX;
	if (ns < -HALF_MAX)
		return INT64_MIN;
	return 2 * ns;
}

/* The value of the eight digits at t, or -1 when a byte is not a digit:
 * the eight read as one word and combined in three multiplications (a ts
 * has 13 digits or more before the point, every event has one).  Digits
 * are bytes 0x30 to 0x39: high nibble 3, and still 3 after adding 6. */
static inline int64_t eight_digits(const char *t)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x;

	memcpy(&x, t, 8);
	if (((x & 0xF0F0F0F0F0F0F0F0u) |
	     (((x + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) != 0x3333333333333333u)
		return -1;
	/* pairs of digits, then fours, then the eight (first digit lowest) */
	x = ((x & 0x0F0F0F0F0F0F0F0Fu) * 2561) >> 8;
	x = ((x & 0x00FF00FF00FF00FFu) * 6553601) >> 16;
	return (int64_t)(((x & 0x0000FFFF0000FFFFu) * 42949672960001u) >> 32);
#else
	(void)t;
	return -1;  /* byte by byte, below */
#endif
}

/* The common form of a Kineto time, "123456.789" (at most 3 decimals,
 * no leading zero, at most 15 digits before the point), read directly;
 * 0, or -1 for any other text (tsnum_us_to_ns reads those). */
static int plain_us(const char *t, size_t n, int64_t *ns)
{
	size_t i = 0, f;
	int64_t whole = 0, frac = 0, eight;

	while (i <= 8 && n - i >= 8 && (eight = eight_digits(t + i)) >= 0) {
		whole = whole * 100000000 + eight;
		i += 8;
	}
	while (i < n && t[i] >= '0' && t[i] <= '9') {
		if (i >= 15)
			return -1;  /* a 16th digit */
		whole = whole * 10 + (t[i++] - '0');
	}
	if (i == 0 || i > 15 || (t[0] == '0' && i > 1))
		return -1;
	if (i < n) {
		if (t[i] != '.' || n - i - 1 == 0 || n - i - 1 > 3)
			return -1;
		for (f = i + 1; f < n; f++) {
			if (t[f] < '0' || t[f] > '9')
				return -1;
			frac = frac * 10 + (t[f] - '0');
		}
		for (f = n - i - 1; f < 3; f++)
			frac *= 10;
	}
	*ns = whole * 1000 + frac;
	return 0;
}

/* 0, -1 (not a number) or WINDOW_RANGE. */
static int number(const char *t, size_t n, int64_t *ns, int *sub)
{
	int rc;

	if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
		t++;
		n -= 2;
	}
	if (plain_us(t, n, ns) == 0) {
		*sub = 0;
		return 0;
	}
	rc = tsnum_us_to_ns(t, n, ns, sub);
	if (rc == NUM_RANGE)
		return WINDOW_RANGE;
	if (rc != NUM_OK)
		return -1;
	return *ns <= TSNUM_MAX_NS && *ns >= -TSNUM_MAX_NS ? 0 : WINDOW_RANGE;
}

int window_interval(const char *ts, size_t tn, const char *dur, size_t dn,
		    int64_t *lo, int64_t *hi)
{
	int64_t t, d = 0;
	int ts_sub, dur_sub = 0, rc;

	if (ts == NULL || tn == 0 || (rc = number(ts, tn, &t, &ts_sub)) == -1)
		return -1;
	if (rc != 0)
		return rc;
	if (dur != NULL && dn > 0 && ((rc = number(dur, dn, &d, &dur_sub)) != 0 || d < 0))
		return rc == WINDOW_RANGE ? rc : -1;
	*lo = 2 * t + ts_sub;
	/* the end, the ns above t + d when either has digits below the ns (as
	 * tr-compact counts it), within the range too */
	if (t > TSNUM_MAX_NS - d - (ts_sub || dur_sub))
		return WINDOW_RANGE;
	/* both fractions below the ns: the end lies in (t+d, t+d+2) ns; take
	 * the upper bound */
	*hi = ts_sub && dur_sub ? 2 * (t + d + 1) : 2 * (t + d) + ts_sub + dur_sub;
	return 0;
}

enum window_cat window_category(const char *ph, size_t n)
{
	if (n != 3 || ph[0] != '"' || ph[2] != '"')
		return WCAT_OTHER;
	switch (ph[1]) {
	case 'X': return WCAT_COMPLETE;
	case 'B': case 'E': return WCAT_DURATION;
	case 'i': case 'I': case 'R': return WCAT_INSTANT;
	case 'C': return WCAT_COUNTER;
	case 'M': return WCAT_METADATA;
	case 's': case 't': case 'f': return WCAT_FLOW;
	case 'b': case 'e': case 'n': case 'S': case 'T': case 'p': case 'F': return WCAT_ASYNC;
	default: return WCAT_OTHER;
	}
}

const char *window_category_name(enum window_cat c)
{
	static const char *const names[WCAT_N] = { "complete", "duration", "instant",
		"counter", "metadata", "flow", "async", "other" };
	return (unsigned)c < WCAT_N ? names[c] : "other";
}

/* ---- pass bytes ------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

int window_tally_init(struct window_tally *t, const int64_t *lo, const int64_t *hi, size_t n)
{
	memset(t, 0, sizeof *t);
	t->n = n;
	t->span_lo = lo;
	t->span_hi = hi;
	t->los = malloc((n + 1) * sizeof *t->los);
	t->his = malloc((n + 1) * sizeof *t->his);
	t->after = calloc(n + 1, sizeof *t->after);
	t->before = calloc(n + 1, sizeof *t->before);
	if (t->los == NULL || t->his == NULL || t->after == NULL || t->before == NULL) {
		window_tally_free(t);
		return -1;
	}
	if (n > 0) {
		memcpy(t->los, lo, n * sizeof *lo);
		memcpy(t->his, hi, n * sizeof *hi);
		qsort(t->los, n, sizeof *t->los, cmp_i64);
		qsort(t->his, n, sizeof *t->his, cmp_i64);
	}
	return 0;
}

/* The number of v[0..n) below x (strictly, or at most x when or_equal). */
static size_t count_below(const int64_t *v, size_t n, int64_t x, int or_equal)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (v[m] < x || (or_equal && v[m] == x))
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* count_below, trying first the answer of the last call (*hint): events
 * come mostly in time order, and a run of them falls between the same two
 * span ends. */
static size_t count_below_near(const int64_t *v, size_t n, int64_t x, int or_equal,
			       size_t *hint)
{
	size_t k = *hint;

	/* k is the answer when v[k - 1] is below x and v[k] is not */
	if ((k == 0 || v[k - 1] < x || (or_equal && v[k - 1] == x)) &&
	    (k == n || !(v[k] < x || (or_equal && v[k] == x))))
		return k;
	return *hint = count_below(v, n, x, or_equal);
}

void window_tally_add(struct window_tally *t, int64_t lo, int64_t hi, uint64_t bytes)
{
	if (t->n == 0)
		return;
	t->total += bytes;
	/* lo > the k span ends below it; hi < every span start from m on */
	t->after[count_below_near(t->his, t->n, lo, 0, &t->hint_after)] += bytes;
	t->before[count_below_near(t->los, t->n, hi, 1, &t->hint_before)] += bytes;
}

void window_tally_sum(struct window_tally *t)
{
	size_t k;

	if (t->summed || t->n == 0)
		return;
	for (k = t->n; k-- > 0;)
		t->after[k] += t->after[k + 1];
	for (k = 1; k <= t->n; k++)
		t->before[k] += t->before[k - 1];
	t->summed = 1;
}

uint64_t window_tally_bytes(const struct window_tally *t, size_t i)
{
	size_t k, j, e;
	uint64_t lo_after = 0, hi_before = 0;

	if (i >= t->n)
		return 0;
	/* events with lo > span end: those whose bucket k is above the
	 * position of the end among the sorted ends (every end equal to it
	 * counted as below) */
	e = count_below(t->his, t->n, t->span_hi[i], 1);
	/* events with hi < span start: every span start at or below hi is
	 * counted in their bucket; hi < start means bucket <= position of the
	 * first start equal to it */
	j = count_below(t->los, t->n, t->span_lo[i], 0);
	if (t->summed)
		return t->total - t->after[e] - t->before[j];
	for (k = e; k <= t->n; k++)
		lo_after += t->after[k];
	for (k = 0; k <= j; k++)
		hi_before += t->before[k];
	return t->total - lo_after - hi_before;
}

void window_tally_free(struct window_tally *t)
{
	free(t->los);
	free(t->his);
	free(t->after);
	free(t->before);
	memset(t, 0, sizeof *t);
}

/* ---- the cut --------------------------------------------------------- */

#define NO_LAYER INT64_MIN

/* The text of a plain integer (no leading zero, at most 18 digits): it
 * and the number then name each other, so that the number can key it. */
static int plain_integer(const char *p, size_t n, int64_t *v)
{
	size_t i = p[0] == '-';
	int64_t x = 0;

	if (n <= i || n - i > 18 || (p[i] == '0' && n - i > 1))
		return 0;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		x = x * 10 + (p[i] - '0');
	}
	*v = p[0] == '-' ? -x : x;
	return !(p[0] == '-' && x == 0);
}

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	void *p;

	if (need <= c)
		return v;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			return NULL;
		c = c ? c * 2 : 64;
	}
	p = realloc(v, c * size);
	if (p != NULL)
		*cap = c;
	return p;
}

void window_cut_init(struct window_cut *c)
{
	memset(c, 0, sizeof *c);
	c->rows = (struct buf)BUF_INIT;
	c->err = (struct buf)BUF_INIT;
	c->key = (struct buf)BUF_INIT;
	/* without its tables, the first grouped event fails for want of
	 * memory */
	(void)windowgroup_init(&c->groups, WINDOWGROUP_PARTS, "tr-window");
}

void window_cut_free(struct window_cut *c)
{
	size_t i;

	for (i = 0; i < c->stacks_cap; i++)
		free(c->stacks[i].v);
	free(c->stacks);
	free(c->g);
	windowgroup_free(&c->groups);
	free(c->passes);
	free(c->pass_lo);
	free(c->pass_hi);
	free(c->pid_kept);
	free(c->thread_kept);
	free(c->meta);
	window_tally_free(&c->tally);
	intern_free(&c->pids);
	intern_free(&c->threads);
	json_free(&c->doc);
	buf_release(&c->rows);
	buf_release(&c->err);
	buf_release(&c->key);
	memset(c, 0, sizeof *c);
}

/* The members an event's decision needs, in one walk over its leading
 * members: ph, ts, dur, pid, tid, cat (a guide?), id and id2 (flows and
 * async events), name (metadata).  The walk stops once it has what the
 * event's ph asks for, before args in Kineto's events.  As event_members,
 * the first occurrence of a key counts. */
enum { M_PH, M_TS, M_DUR, M_PID, M_TID, M_CAT, M_ID, M_ID2, M_NAME, M_N };

static int key_of(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h') return M_PH;
		if (k[0] == 't' && k[1] == 's') return M_TS;
		if (k[0] == 'i' && k[1] == 'd') return M_ID;
		return -1;
	case 3:
		if (memcmp(k, "dur", 3) == 0) return M_DUR;
		if (memcmp(k, "pid", 3) == 0) return M_PID;
		if (memcmp(k, "tid", 3) == 0) return M_TID;
		if (memcmp(k, "cat", 3) == 0) return M_CAT;
		if (memcmp(k, "id2", 3) == 0) return M_ID2;
		return -1;
	case 4:
		return memcmp(k, "name", 4) == 0 ? M_NAME : -1;
	default:
		return -1;
	}
}

/* The members still wanted once ph is known (a bit per member); the pass
 * table alone (spans_only) needs no thread, group or metadata name. */
static unsigned wanted(enum window_cat cat, int spans_only)
{
	unsigned base = 1u << M_PH | 1u << M_TS | 1u << M_PID | 1u << M_TID;

	if (spans_only)
		return cat == WCAT_COMPLETE ?
			1u << M_PH | 1u << M_TS | 1u << M_DUR | 1u << M_CAT :
			1u << M_PH | 1u << M_TS;
	switch (cat) {
	case WCAT_COMPLETE: return base | 1u << M_DUR | 1u << M_CAT;
	case WCAT_FLOW: case WCAT_ASYNC: return base | 1u << M_ID | 1u << M_ID2;
	case WCAT_METADATA: return base | 1u << M_NAME;
	default: return base;
	}
}


static inline size_t skip_number_or_value(const char *line, size_t len, size_t i)
{
	if (line[i] == '-' || (line[i] >= '0' && line[i] <= '9'))
		return event_find_either(line, len, i, ',', '}');
	return event_skip_value(line, len, i);
}

/* The first occurrence of each member is the same whatever the walk
 * wants: a walk that wants fewer only stops sooner. */
static inline enum window_cat walk(const char *line, size_t len, struct member *m,
				   int spans_only)
{
	size_t i = 1;
	unsigned have = 0, want = spans_only ?
		1u << M_PH | 1u << M_TS | 1u << M_DUR | 1u << M_CAT :
		~0u & ((1u << M_N) - 1);
	enum window_cat cat = WCAT_OTHER;

	memset(m, 0, M_N * sizeof *m);
	if (len < 2 || line[0] != '{')
		return cat;
	while (i < len && line[i] == '"' && (have & want) != want) {
		size_t kend = event_string_end(line, len, i), vstart, vend;
		int k;
		if (kend >= len || line[kend] != ':')
			break;
		vstart = kend + 1;
		vend = line[vstart] == '"' ? event_string_end(line, len, vstart) :
			skip_number_or_value(line, len, vstart);
		k = key_of(line + i + 1, kend - i - 2);
		if (k >= 0 && !(have & 1u << k) && vend > vstart) {
			m[k].p = line + vstart;
			m[k].len = vend - vstart;
			have |= 1u << k;
			if (k == M_PH) {
				cat = window_category(m[k].p, m[k].len);
				want = wanted(cat, spans_only);
			}
			/* a flow's group is its id when it has one, else id2 */
			if (k == M_ID)
				want &= ~(1u << M_ID2);
		}
		if (vend >= len || line[vend] != ',')
			break;
		i = vend + 1;
	}
	if (!(have & 1u << M_PH))
		cat = WCAT_OTHER;
	return cat;
}

/* The trace start: the smallest numeric ts, as tr-select-anchors counts it
 * (a ts in quotes does not count).  A timed event's record already holds
 * its ts: lo is 2 x the floor of the ns, plus 1 for digits beyond. */
static int refuse(struct window_cut *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static const struct member no_member = { "", 0 };

/* An event whose time a half ns cannot hold (window_interval). */
static int refuse_range(struct window_cut *c, struct member ts, struct member dur)
{
	return refuse(c, WINDOW_REFUSED, "event %" PRIu64 ": ts %.*s%s%.*s lies beyond "
		      "+/-" TSNUM_MAX_US_TEXT " us (2^62 ns), the time range of trace-layers",
		      c->events - 1, ts.len > 40 ? 40 : (int)ts.len, ts.p, dur.len ? ", dur " : "",
		      dur.len > 40 ? 40 : (int)dur.len, dur.p);
}

static int see_origin(struct window_cut *c, struct member ts, int timed, int64_t lo)
{
	int64_t ns;
	int sub, rc;

	if (ts.len == 0 || ts.p[0] == '"')
		return 0;
	if (timed) {
		ns = (lo - (lo & 1)) / 2;
	} else if ((rc = tsnum_us_to_ns(ts.p, ts.len, &ns, &sub)) != NUM_OK) {
		return rc == NUM_RANGE ? refuse_range(c, ts, no_member) : 0;
	} else if (ns > TSNUM_MAX_NS || ns < -TSNUM_MAX_NS) {
		return refuse_range(c, ts, no_member);
	}
	if (!c->have_origin || ns < c->origin_ns) {
		c->origin_ns = ns;
		c->have_origin = 1;
	}
	return 0;
}

static int is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* A guide as tr-guides writes it, read by the member walk instead of
 * jsmn (a guide line is about 1 KB: the tokenizer cost 18,000 instructions
 * a guide).  The walk gives what json_find would only on a valid line
 * (json_parse's verdict) without escapes (json_find unescapes keys) and
 * the object alone on it, when it found all four members with values
 * that start and end on a token (whitespace between tokens stops the walk
 * early or shows at a value's edge): 1 with am[] set, else 0 and the
 * caller asks jsmn. */
static int guide_walk(const char *line, size_t len, struct member *am)
{
	static const char *const top[] = { "args" };
	static const char *const keys[] = { "pass_index", "layer_id", "start_us", "end_us" };
	struct member args;
	int k;

	if (len < 2 || line[0] != '{' || line[len - 1] != '}' || memchr(line, '\\', len) != NULL ||
	    event_members(line, len, top, 1, &args) != 1 || args.p[0] != '{' ||
	    event_members(args.p, args.len, keys, 4, am) != 4)
		return 0;
	for (k = 0; k < 4; k++)
		if (is_space(am[k].p[0]) || is_space(am[k].p[am[k].len - 1]))
			return 0;
	return scan_text_valid(line, len);
}

static int see_guide(struct window_cut *c, const char *line, size_t len, int64_t lo, int64_t hi)
{
	struct jdoc *d = &c->doc;
	int args, tok;
	int64_t pass, layer, a, b;
	struct window_guide *g;
	struct member am[4];
	size_t n;
	const char *t;

	if (guide_walk(line, len, am) && tsnum_parse_int64(am[0].p, am[0].len, &pass) == NUM_OK &&
	    tsnum_parse_int64(am[1].p, am[1].len, &layer) == NUM_OK && am[0].p[0] != '"' &&
	    am[1].p[0] != '"') {
		if (window_interval(am[2].p, am[2].len, NULL, 0, &a, &b) == 0 && a < lo)
			lo = a;
		if (window_interval(am[3].p, am[3].len, NULL, 0, &a, &b) == 0 && b > hi)
			hi = b;
		goto keep;
	}
	if (json_parse(d, line, len, NULL) != 0) {
		buf_reset(&c->err);
		return buf_addstr(&c->err, "malformed layer guide event") ? -1 : WINDOW_REFUSED;
	}
	args = json_find(d, 0, "args");
	if (json_int64(d, json_find(d, args, "pass_index"), &pass) != 0 ||
	    json_int64(d, json_find(d, args, "layer_id"), &layer) != 0) {
		buf_reset(&c->err);
		return buf_printf(&c->err, "layer guide event %" PRIu64 " without args.pass_index "
				  "and args.layer_id (not written by tr-guides?)", c->events) ?
			-1 : WINDOW_REFUSED;
	}
	/* the exact anchor times widen the rounded guide, never narrow it */
	if ((tok = json_find(d, args, "start_us")) >= 0) {
		t = json_raw(d, tok, &n);
		if (window_interval(t, n, NULL, 0, &a, &b) == 0 && a < lo)
			lo = a;
	}
	if ((tok = json_find(d, args, "end_us")) >= 0) {
		t = json_raw(d, tok, &n);
		if (window_interval(t, n, NULL, 0, &a, &b) == 0 && b > hi)
			hi = b;
	}
keep:
	if ((g = grow(c->g, &c->gcap, c->ng + 1, sizeof *c->g)) == NULL)
		return -1;
	c->g = g;
	c->g[c->ng++] = (struct window_guide){ pass, layer, lo, hi };
	return 0;
}

/* The id + 1 of a text in t; the last one looked up is remembered, as
 * neighbouring events mostly share their pid and thread. */
static int id_of(struct intern *t, const char *k, size_t n, char *last, size_t cap,
		 size_t *last_len, uint32_t *last_id, uint32_t *id)
{
	int64_t v;

	if (n == *last_len && n > 0 && memcmp(k, last, n) == 0) {
		*id = *last_id;
		return 0;
	}
	if ((v = intern_id(t, k, n)) < 0)
		return -1;
	*id = (uint32_t)v + 1;
	if (n <= cap) {
		memcpy(last, k, n);
		*last_len = n;
		*last_id = *id;
	}
	return 0;
}

static int thread_of(struct window_cut *c, const struct member *m, uint32_t *id)
{
	char k[64];
	size_t n = m[M_PID].len + 1 + m[M_TID].len;

	if (n <= sizeof k) {
		memcpy(k, m[M_PID].p, m[M_PID].len);
		k[m[M_PID].len] = '\001';
		memcpy(k + m[M_PID].len + 1, m[M_TID].p, m[M_TID].len);
		return id_of(&c->threads, k, n, c->last_thread, sizeof c->last_thread,
			     &c->last_thread_len, &c->last_thread_id, id);
	}
	buf_reset(&c->key);
	if (buf_add(&c->key, m[M_PID].p, m[M_PID].len) != 0 || buf_addch(&c->key, '\001') != 0 ||
	    buf_add(&c->key, m[M_TID].p, m[M_TID].len) != 0)
		return -1;
	return id_of(&c->threads, c->key.p, n, c->last_thread, sizeof c->last_thread,
		     &c->last_thread_len, &c->last_thread_id, id);
}

/* The failure of the groups' temporary file (errno set): -1 when memory
 * ran out, else WINDOW_SYSTEM with the message in c->err. */
static int group_failed(struct window_cut *c)
{
	int e = errno;

	if (e == ENOMEM)
		return -1;
	buf_reset(&c->err);
	return buf_printf(&c->err, "temporary file in %s: %s", c->groups.dir, strerror(e)) ?
		-1 : WINDOW_SYSTEM;
}

/* The group of a flow or async event: its class and id text.  Groups are
 * keyed by the id alone (not the category or name, which Perfetto may also
 * use): events that Perfetto would pair are then always in one group, and
 * a window never keeps part of one.  0, or as group_failed. */
static int group_of(struct window_cut *c, enum window_cat cat, const struct member *m,
		    struct window_rec *r)
{
	const struct member *id = m[M_ID].len ? &m[M_ID] : &m[M_ID2];
	enum windowgroup_kind kind = cat == WCAT_FLOW ? WGROUP_FLOW : WGROUP_ASYNC;
	int64_t v;
	int rc;

	if (id->len == 0)
		return 0;
	/* a plain integer and its text name each other: keyed by the number */
	if (plain_integer(id->p, id->len, &v))
		rc = windowgroup_add(&c->groups, kind, v, NULL, 0, r->lo, r->hi, &r->grp);
	else
		rc = windowgroup_add(&c->groups, kind, 0, id->p, id->len, r->lo, r->hi, &r->grp);
	return rc == 0 ? 0 : group_failed(c);
}

/* B/E: matched per thread as Perfetto does, in stream order: a B starts a
 * pair, an E ends the pair open last on its thread (an E with nothing open
 * has none).  0, or as group_failed. */
static int pair_of(struct window_cut *c, const struct member *m, struct window_rec *r)
{
	struct window_stack *s;
	size_t t = r->thread - 1;
	int rc;

	if (t >= c->stacks_cap) {
		size_t old = c->stacks_cap;
		struct window_stack *v = grow(c->stacks, &c->stacks_cap, t + 1, sizeof *v);
		if (v == NULL)
			return -1;
		c->stacks = v;
		memset(c->stacks + old, 0, (c->stacks_cap - old) * sizeof *c->stacks);
	}
	s = &c->stacks[t];
	if (m[M_PH].p[1] == 'B') {
		uint32_t *v = grow(s->v, &s->cap, s->n + 1, sizeof *v);
		if (v == NULL)
			return -1;
		s->v = v;
		s->v[s->n++] = c->npairs;
		rc = windowgroup_add(&c->groups, WGROUP_BEGIN, c->npairs++, NULL, 0, r->lo, r->hi,
				     &r->grp);
	} else if (s->n > 0) {
		rc = windowgroup_add(&c->groups, WGROUP_END, s->v[--s->n], NULL, 0, r->lo, r->hi,
				     &r->grp);
	} else {
		return 0;
	}
	return rc == 0 ? 0 : group_failed(c);
}

static int is_guide(enum window_cat cat, const struct member *m)
{
	return cat == WCAT_COMPLETE && m[M_CAT].len == 13 &&
	       memcmp(m[M_CAT].p, "\"layer_guide\"", 13) == 0;
}

/* A guide among the events counted (c->events includes it). */
static int see_counted_guide(struct window_cut *c, const char *line, size_t len, int64_t lo,
			     int64_t hi)
{
	int rc;

	c->events--;  /* the message counts events before this one */
	rc = see_guide(c, line, len, lo, hi);
	c->events++;
	return rc;
}

int window_cut_see(struct window_cut *c, const char *line, size_t len, struct window_rec *r)
{
	struct member m[M_N];
	enum window_cat cat = walk(line, len, m, 0);
	int rc;

	memset(r, 0, sizeof *r);
	r->line = WLINE_EVENT;
	r->cat = (uint8_t)cat;
	r->len = (uint32_t)(len + 1);
	r->ph = m[M_PH].len == 3 ? m[M_PH].p[1] : 0;
	c->events++;
	if (m[M_PID].len && id_of(&c->pids, m[M_PID].p, m[M_PID].len, c->last_pid,
				  sizeof c->last_pid, &c->last_pid_len, &c->last_pid_id,
				  &r->pid) != 0)
		return -1;
	if (m[M_PID].len && m[M_TID].len && thread_of(c, m, &r->thread) != 0)
		return -1;
	if (cat == WCAT_METADATA) {
		if ((rc = see_origin(c, m[M_TS], 0, 0)) != 0)
			return rc;
		/* metadata of a process (no tid, or a process_* name) follows
		 * its pid; any other its thread */
		if (m[M_NAME].len > 9 && memcmp(m[M_NAME].p, "\"process_", 9) == 0)
			r->thread = 0;
		return 0;
	}
	rc = window_interval(m[M_TS].p, m[M_TS].len, cat == WCAT_COMPLETE ? m[M_DUR].p : NULL,
			     m[M_DUR].len, &r->lo, &r->hi);
	if (rc == WINDOW_RANGE)
		return refuse_range(c, m[M_TS], cat == WCAT_COMPLETE ? m[M_DUR] : no_member);
	r->timed = rc == 0;
	if ((rc = see_origin(c, m[M_TS], r->timed, r->lo)) != 0)
		return rc;
	if (!r->timed)
		return 0;
	if (is_guide(cat, m))
		return see_counted_guide(c, line, len, r->lo, r->hi);
	if (cat == WCAT_FLOW || cat == WCAT_ASYNC)
		return group_of(c, cat, m, r);
	if (cat == WCAT_DURATION && r->thread)
		return pair_of(c, m, r);
	return 0;
}

static int span_of(struct window_cut *c, const char *line, size_t len, enum window_cat cat,
		   const struct member *m, int64_t *lo, int64_t *hi, int *counted)
{
	int timed, rc;

	*counted = 0;
	*lo = *hi = 0;
	c->events++;
	if (cat == WCAT_METADATA)
		return see_origin(c, m[M_TS], 0, 0);
	rc = window_interval(m[M_TS].p, m[M_TS].len, cat == WCAT_COMPLETE ? m[M_DUR].p : NULL,
			     m[M_DUR].len, lo, hi);
	if (rc == WINDOW_RANGE)
		return refuse_range(c, m[M_TS], cat == WCAT_COMPLETE ? m[M_DUR] : no_member);
	timed = rc == 0;
	if ((rc = see_origin(c, m[M_TS], timed, *lo)) != 0)
		return rc;
	if (!timed)
		return 0;
	*counted = 1;
	return is_guide(cat, m) ? see_counted_guide(c, line, len, *lo, *hi) : 0;
}

int window_cut_span(struct window_cut *c, const char *line, size_t len, int64_t *lo,
		    int64_t *hi, int *counted)
{
	struct member m[M_N];
	enum window_cat cat = walk(line, len, m, 1);

	return span_of(c, line, len, cat, m, lo, hi, counted);
}

int window_cut_span_members(struct window_cut *c, const char *line, size_t len,
			    const struct member *found, int64_t *lo, int64_t *hi, int *counted)
{
	struct member m[M_N];

	memset(m, 0, sizeof m);
	m[M_PH] = found[WINDOW_SPAN_PH];
	m[M_TS] = found[WINDOW_SPAN_TS];
	m[M_DUR] = found[WINDOW_SPAN_DUR];
	m[M_CAT] = found[WINDOW_SPAN_CAT];
	return span_of(c, line, len, m[M_PH].len > 0 ? window_category(m[M_PH].p, m[M_PH].len) :
		       WCAT_OTHER, m, lo, hi, counted);
}

void window_cut_add_span(struct window_cut *c, int64_t lo, int64_t hi, uint32_t bytes)
{
	window_tally_add(&c->tally, lo, hi, bytes);
}

/* ---- the window ------------------------------------------------------ */

static int refuse(struct window_cut *c, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct window_cut *c, int status, const char *fmt, ...)
{
	va_list ap;
	char small[256], *big = NULL;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof small) {
		if ((big = malloc((size_t)n + 1)) == NULL)
			return -1;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	buf_reset(&c->err);
	n = buf_addstr(&c->err, big != NULL ? big : small);
	free(big);
	return n != 0 ? -1 : status;
}

static int parse_index(const char *text, int64_t *v)
{
	if (text[0] == 'L')
		text++;
	return opt_parse_i64(text, 0, INT32_MAX, v);
}

/* "A-B": the smallest and largest pass the guides cover. */
static int pass_range(const struct window_cut *c, struct buf *b)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;

	for (i = 0; i < c->ng; i++) {
		if (c->g[i].pass < lo)
			lo = c->g[i].pass;
		if (c->g[i].pass > hi)
			hi = c->g[i].pass;
	}
	return buf_printf(b, "%" PRId64 "-%" PRId64, lo, hi);
}

static int pass_exists(const struct window_cut *c, int64_t pass)
{
	size_t i;

	for (i = 0; i < c->ng; i++)
		if (c->g[i].pass == pass)
			return 1;
	return 0;
}

static int need_pass(struct window_cut *c, int64_t pass)
{
	struct buf b = BUF_INIT;
	int rc;

	if (pass_exists(c, pass))
		return 0;
	if (pass_range(c, &b) != 0) {
		buf_release(&b);
		return -1;
	}
	rc = refuse(c, WINDOW_REFUSED, "pass %" PRId64 " does not exist (the guides cover "
		    "passes %s)", pass, b.p);
	buf_release(&b);
	return rc;
}

/* The extent of guides [la, lb] of pass (all layers when la is NO_LAYER). */
static int guide_extent(struct window_cut *c, int64_t pass, int64_t la, int64_t lb,
			int64_t *lo, int64_t *hi)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	size_t i;
	int found_a = la == NO_LAYER, found_b = la == NO_LAYER;

	*lo = INT64_MAX;
	*hi = INT64_MIN;
	for (i = 0; i < c->ng; i++) {
		const struct window_guide *g = &c->g[i];
		if (g->pass != pass)
			continue;
		if (g->layer < first)
			first = g->layer;
		if (g->layer > last)
			last = g->layer;
		if (la != NO_LAYER && (g->layer < la || g->layer > lb))
			continue;
		found_a |= g->layer == la;
		found_b |= g->layer == lb;
		if (g->lo < *lo)
			*lo = g->lo;
		if (g->hi > *hi)
			*hi = g->hi;
	}
	if (!found_a || !found_b)
		return refuse(c, WINDOW_REFUSED, "layer L%" PRId64 " does not exist in pass %" PRId64
			      " (its guides are L%" PRId64 "-L%" PRId64 ")", found_a ? lb : la, pass,
			      first, last);
	return 0;
}

static int lone_pass(struct window_cut *c, const char *opt, int64_t *pass)
{
	size_t i;
	struct buf b = BUF_INIT;
	int rc;

	for (i = 1; i < c->ng; i++)
		if (c->g[i].pass != c->g[0].pass) {
			if (pass_range(c, &b) != 0) {
				buf_release(&b);
				return -1;
			}
			rc = refuse(c, WINDOW_BAD_OPTION, "%s needs --pass K: the guides cover "
				    "passes %s", opt, b.p);
			buf_release(&b);
			return rc;
		}
	*pass = c->g[0].pass;
	return 0;
}

/* Whole ns below (or above, when up) a half-ns time. */
static int64_t half_to_ns(int64_t half, int up)
{
	int64_t ns = half / 2;

	if (half % 2 != 0 && (half < 0) != up)
		ns += up ? 1 : -1;
	return ns;
}

/* The passes the guides cover, in the guides' order, with their extents,
 * and the tally of their bytes.  A pass is found by its number's bytes in
 * a hash table, as a stream may have any number of passes. */
static int find_passes(struct window_cut *c)
{
	struct intern ids = { 0 };
	size_t i, k;
	int rc = -1;

	c->passes = malloc((c->ng + 1) * sizeof *c->passes);
	c->pass_lo = malloc((c->ng + 1) * sizeof *c->pass_lo);
	c->pass_hi = malloc((c->ng + 1) * sizeof *c->pass_hi);
	if (c->passes == NULL || c->pass_lo == NULL || c->pass_hi == NULL)
		return -1;
	for (i = 0; i < c->ng; i++) {
		/* the guides come pass by pass: mostly the pass of the last */
		k = c->npasses;
		if (k > 0 && c->passes[k - 1].pass == c->g[i].pass) {
			k--;
		} else {
			int64_t id = intern_id(&ids, (const char *)&c->g[i].pass,
					       sizeof c->g[i].pass);
			if (id < 0)
				goto out;
			k = (size_t)id;
		}
		if (k == c->npasses)
			c->passes[c->npasses++] = c->g[i];
		if (c->g[i].lo < c->passes[k].lo)
			c->passes[k].lo = c->g[i].lo;
		if (c->g[i].hi > c->passes[k].hi)
			c->passes[k].hi = c->g[i].hi;
	}
	for (k = 0; k < c->npasses; k++) {
		c->pass_lo[k] = c->passes[k].lo;
		c->pass_hi[k] = c->passes[k].hi;
	}
	rc = window_tally_init(&c->tally, c->pass_lo, c->pass_hi, c->npasses);
out:
	intern_free(&ids);
	return rc;
}

static int window_by_time(struct window_cut *c, const struct window_spec *s)
{
	int64_t from = 0, to = 0;

	if (!c->have_origin)
		return refuse(c, WINDOW_REFUSED, "empty window: the stream has no event with a "
			      "numeric ts");
	if (s->from && window_parse_dur(s->from, 1000000, &from) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--from: invalid value '%s' (milliseconds: "
			      "digits with at most six decimals, or a unit ns, us, ms, s)", s->from);
	if (s->to && window_parse_dur(s->to, 1000000, &to) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--to: invalid value '%s' (milliseconds: "
			      "digits with at most six decimals, or a unit ns, us, ms, s)", s->to);
	if (s->to && to < from)
		return refuse(c, WINDOW_REFUSED, "empty window: --from %s is after --to %s",
			      s->from, s->to);
	/* origin, from and to are at most TSNUM_MAX_NS: no sum overflows, and
	 * with no --to the window runs to the last time an event can have */
	c->w0_ns = c->origin_ns + from;
	c->w1_ns = s->to ? c->origin_ns + to : TSNUM_MAX_NS + 1;
	c->w0 = window_half(c->w0_ns);
	c->w1 = window_half(c->w1_ns);
	return 0;
}

static int window_by_guides(struct window_cut *c, const struct window_spec *s)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, pass, a, b;
	size_t i;
	int rc;

	if (s->passes) {
		if (window_parse_range(s->passes, &a, &b) != 0)
			return refuse(c, WINDOW_BAD_OPTION, "--passes: invalid value '%s' (A-B or A)",
				      s->passes);
		if ((rc = need_pass(c, a)) != 0 || (rc = need_pass(c, b)) != 0)
			return rc;
		/* the extent of every guide of a pass in [a, b]: one look at the
		 * guides, however many passes the range holds */
		for (i = 0; i < c->ng; i++) {
			if (c->g[i].pass < a || c->g[i].pass > b)
				continue;
			lo = c->g[i].lo < lo ? c->g[i].lo : lo;
			hi = c->g[i].hi > hi ? c->g[i].hi : hi;
		}
	} else {
		if (s->pass) {
			if (parse_index(s->pass, &pass) != 0)
				return refuse(c, WINDOW_BAD_OPTION, "--pass: invalid value '%s'",
					      s->pass[0] == 'L' ? s->pass + 1 : s->pass);
		} else if ((rc = lone_pass(c, s->layers ? "--layers" : "--around", &pass)) != 0) {
			return rc;
		}
		if ((rc = need_pass(c, pass)) != 0)
			return rc;
		if (s->layers) {
			if (window_parse_range(s->layers, &a, &b) != 0)
				return refuse(c, WINDOW_BAD_OPTION, "--layers: invalid value '%s' "
					      "(A-B or A)", s->layers);
			rc = guide_extent(c, pass, a, b, &lo, &hi);
		} else if (s->around) {
			int64_t l, pad = 0;
			if (parse_index(s->around, &l) != 0)
				return refuse(c, WINDOW_BAD_OPTION, "--around: invalid value '%s'",
					      s->around[0] == 'L' ? s->around + 1 : s->around);
			if (s->pad && window_parse_dur(s->pad, 1000000, &pad) != 0)
				return refuse(c, WINDOW_BAD_OPTION, "--pad: invalid value '%s' "
					      "(e.g. 2ms, 500us, 0.5)", s->pad);
			rc = guide_extent(c, pass, l, l, &lo, &hi);
			/* pad is at most 2^62 ns, the guides within the range: the
			 * padded window must stay within it too, as its report says */
			if (rc == 0 && (pad > TSNUM_MAX_NS ||
					__builtin_sub_overflow(lo, 2 * pad, &lo) ||
					__builtin_add_overflow(hi, 2 * pad, &hi) ||
					lo < -2 * TSNUM_MAX_NS || hi > 2 * TSNUM_MAX_NS))
				return refuse(c, WINDOW_REFUSED, "--pad %s: the window would reach "
					      "beyond +/-" TSNUM_MAX_US_TEXT " us (2^62 ns), the time "
					      "range of trace-layers", s->pad);
		} else {
			rc = guide_extent(c, pass, NO_LAYER, NO_LAYER, &lo, &hi);
		}
		if (rc != 0)
			return rc;
	}
	/* whole ns that hold the guides' exact extent */
	c->w0_ns = half_to_ns(lo, 0);
	c->w1_ns = half_to_ns(hi, 1);
	c->w0 = window_half(c->w0_ns);
	c->w1 = window_half(c->w1_ns);
	return 0;
}

int window_spec_check(struct window_cut *c, const struct window_spec *s)
{
	static const char ms[] = "(milliseconds: digits with at most six decimals, or a unit "
				 "ns, us, ms, s)";
	int64_t from = 0, to = 0, a, b;

	if (s->from && window_parse_dur(s->from, 1000000, &from) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--from: invalid value '%s' %s", s->from, ms);
	if (s->to && window_parse_dur(s->to, 1000000, &to) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--to: invalid value '%s' %s", s->to, ms);
	if (s->passes && window_parse_range(s->passes, &a, &b) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--passes: invalid value '%s' (A-B or A)",
			      s->passes);
	if (s->pass && parse_index(s->pass, &a) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--pass: invalid value '%s'",
			      s->pass[0] == 'L' ? s->pass + 1 : s->pass);
	if (s->layers && window_parse_range(s->layers, &a, &b) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--layers: invalid value '%s' (A-B or A)",
			      s->layers);
	if (s->around && parse_index(s->around, &a) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--around: invalid value '%s'",
			      s->around[0] == 'L' ? s->around + 1 : s->around);
	if (s->pad && window_parse_dur(s->pad, 1000000, &a) != 0)
		return refuse(c, WINDOW_BAD_OPTION, "--pad: invalid value '%s' (e.g. 2ms, 500us, 0.5)",
			      s->pad);
	/* options that contradict each other, whatever the stream */
	if (s->to && to < from)
		return refuse(c, WINDOW_BAD_OPTION, "empty window: --from %s is after --to %s",
			      s->from ? s->from : "0", s->to);
	return 0;
}

/* The window itself, from the spec. */
static int choose(struct window_cut *c, const struct window_spec *s)
{
	if (s->list_passes) {
		if (c->ng == 0)
			return refuse(c, WINDOW_REFUSED, "the stream has no layer guides (cat "
				      "\"layer_guide\"): --list-passes needs a trace annotated by "
				      "tr-guides or tr-layer-track");
		/* every event is inside this window: only the passes count */
		c->w0 = INT64_MIN;
		c->w1 = INT64_MAX;
		return 0;
	}
	if (s->from || s->to)
		return window_by_time(c, s);
	if (c->ng == 0)
		return refuse(c, WINDOW_REFUSED, "the stream has no layer guides (cat "
			      "\"layer_guide\"): --passes, --pass, --layers and --around need a "
			      "trace annotated by tr-guides or tr-layer-track; a window by time "
			      "(--from, --to) works on any trace");
	return window_by_guides(c, s);
}

int window_cut_choose(struct window_cut *c, const struct window_spec *s)
{
	int rc;

	if (find_passes(c) != 0)
		return -1;
	if ((rc = choose(c, s)) != 0)
		return rc;
	/* the window known, each group is kept or dropped whole */
	if (windowgroup_decide(&c->groups, c->w0, c->w1) != 0)
		return group_failed(c);
	c->flows_cut = c->groups.flows_cut;
	c->async_cut = c->groups.async_cut;
	return 0;
}

/* ---- the decision ---------------------------------------------------- */

enum verdict { KEEP, DROP, DROP_CUT, META, FAILED };

/* What the window does with one event (metadata is decided later, from
 * the threads that keep events); FAILED: the groups' file failed. */
static enum verdict decide(struct window_cut *c, const struct window_rec *r)
{
	if (r->cat == WCAT_METADATA)
		return META;
	if (!r->timed)
		return DROP;
	if (r->grp.part != 0) {
		switch (windowgroup_verdict(&c->groups, r->grp)) {
		case WGROUP_KEEP: return KEEP;
		case WGROUP_CUT: return DROP_CUT;
		case WGROUP_DROP: return DROP;
		default: return FAILED;
		}
	}
	return windowspan_overlaps(r->lo, r->hi, c->w0, c->w1) ? KEEP : DROP;
}

static int mark(uint8_t **kept, const struct intern *t, uint32_t id)
{
	if (*kept == NULL && (*kept = calloc((size_t)t->n + 1, 1)) == NULL)
		return -1;
	(*kept)[id - 1] = 1;
	return 0;
}

static int is_kept(const uint8_t *kept, uint32_t id)
{
	return kept != NULL && kept[id - 1];
}

int window_cut_measure(struct window_cut *c, const struct window_rec *r)
{
	uint64_t index;

	if (r->line != WLINE_EVENT)
		return 0;
	index = c->measured++;
	if (r->cat != WCAT_METADATA && r->timed)
		window_tally_add(&c->tally, r->lo, r->hi, r->len);
	switch (decide(c, r)) {
	case KEEP:
		c->kept[r->cat]++;
		c->bytes += r->len;
		if (r->pid && mark(&c->pid_kept, &c->pids, r->pid) != 0)
			return -1;
		if (r->thread && mark(&c->thread_kept, &c->threads, r->thread) != 0)
			return -1;
		return 0;
	case DROP_CUT:
		c->dropped[r->cat]++;
		return buf_printf(&c->rows, "%s{\"source_index\":%" PRIu64 ",\"ph\":\"%c\","
				  "\"reason\":\"%s\"}", c->nrows++ ? "," : "", index, r->ph,
				  r->cat == WCAT_FLOW ? "flow with an end outside the window" :
				  "async pair with an end outside the window");
	case DROP:
		c->dropped[r->cat]++;
		return 0;
	case META: {
		struct window_meta *m = grow(c->meta, &c->meta_cap, c->nmeta + 1, sizeof *m);
		if (m == NULL)
			return -1;
		c->meta = m;
		c->meta[c->nmeta++] = (struct window_meta){ r->pid, r->thread, r->len };
		return 0;
	}
	case FAILED:
		return group_failed(c);
	}
	return 0;
}

/* Metadata: kept when its pid (process metadata) or its thread keeps an
 * event. */
static int meta_kept(const struct window_cut *c, uint32_t pid, uint32_t thread)
{
	return pid != 0 && is_kept(c->pid_kept, pid) &&
	       (thread == 0 || is_kept(c->thread_kept, thread));
}

int window_cut_check(struct window_cut *c, const char *spec_text, int have_max,
		     uint64_t max_bytes)
{
	size_t i;

	/* the metadata once, however often the limits are checked */
	for (i = c->checked ? c->nmeta : 0; i < c->nmeta; i++) {
		if (meta_kept(c, c->meta[i].pid, c->meta[i].thread)) {
			c->bytes += c->meta[i].bytes;
			c->kept[WCAT_METADATA]++;
		} else {
			c->dropped[WCAT_METADATA]++;
		}
	}
	c->checked = 1;
	if (c->bytes == 0) {
		char a[NUM_US_BUFSZ], b[NUM_US_BUFSZ];
		tsnum_format_us3(c->w0_ns, a);
		tsnum_format_us3(c->w1_ns, b);
		return refuse(c, WINDOW_REFUSED, "empty window: no event overlaps [%s, %s] us (%s)",
			      a, b, spec_text);
	}
	if (have_max && c->bytes > max_bytes)
		return refuse(c, WINDOW_REFUSED, "the window would be %" PRIu64 " bytes of events, "
			      "more than --max-bytes %" PRIu64 "; choose a smaller window", c->bytes,
			      max_bytes);
	if (c->rows.len > TRSTREAM_WINDOW_ROWS_MAX)
		return refuse(c, WINDOW_REFUSED, "the report would list %" PRIu64 " dropped events "
			      "in %zu bytes, more than the " TRSTREAM_WINDOW_ROWS_MAX_TEXT " that "
			      "keep it within the " TRSTREAM_WINDOW_REPORT_MAX_TEXT " tr-verify reads; "
			      "choose a smaller window", c->nrows, c->rows.len);
	return 0;
}

int window_cut_keeps(struct window_cut *c, const struct window_rec *r)
{
	if (r->line != WLINE_EVENT)
		return r->line != WLINE_REPORT;
	switch (decide(c, r)) {
	case KEEP: return 1;
	case META: return r->cat == WCAT_METADATA && meta_kept(c, r->pid, r->thread);
	case FAILED:
		if (group_failed(c) < 0) {
			buf_reset(&c->err);
			buf_addstr(&c->err, "out of memory");
		}
		return -1;
	default: return 0;
	}
}

int window_cut_pass_table(struct window_cut *c, struct buf *out)
{
	size_t k;
	char a[NUM_US_BUFSZ], b[NUM_US_BUFSZ];

	window_tally_sum(&c->tally);
	for (k = 0; k < c->npasses; k++) {
		const struct window_guide *p = &c->passes[k];
		tsnum_format_ms6(p->lo / 2 - c->origin_ns, a);
		tsnum_format_ms6((p->hi + 1) / 2 - c->origin_ns, b);
		if (buf_printf(out, "pass %" PRId64 ": %s-%s ms from the trace start, %" PRIu64
			       " bytes of events\n", p->pass, a, b, window_tally_bytes(&c->tally, k)) != 0)
			return -1;
	}
	return 0;
}

int window_cut_report(const struct window_cut *c, const char *spec_text, const char *source_name,
		      const char *sha, size_t sha_len, struct buf *out)
{
	static const char *names[WCAT_N];
	struct trstream_window w;
	int k;

	for (k = 0; k < WCAT_N; k++)
		names[k] = window_category_name(k);
	memset(&w, 0, sizeof w);
	w.spec = spec_text;
	w.start_ns = c->w0_ns;
	w.end_ns = c->w1_ns;
	w.origin_ns = c->origin_ns;
	w.have_origin = c->have_origin;
	w.source_file = source_name ? source_name : "";
	w.sha = sha;
	w.sha_len = sha_len;
	w.source_events = c->events;
	w.cat_names = names;
	w.kept = c->kept;
	w.dropped = c->dropped;
	w.ncats = WCAT_N;
	w.flows_cut = c->flows_cut;
	w.async_cut = c->async_cut;
	w.bytes = c->bytes;
	w.rows = c->rows.p;
	w.rows_len = c->rows.len;
	w.nrows = c->nrows;
	return trstream_window_report(out, &w);
}

/* ---- the records ----------------------------------------------------- */

int window_recs_rewind(struct window_recs *r)
{
	r->n = r->at = 0;
	return lseek(r->fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

int window_recs_next(struct window_recs *r, const struct window_rec **rec)
{
	long got;

	if (r->at == r->n) {
		got = io_read_some(r->fd, r->v, sizeof r->v);
		if (got < 0)
			return -1;
		if (got % (long)sizeof r->v[0] != 0) {
			errno = EIO;
			return -1;
		}
		r->n = (size_t)got / sizeof r->v[0];
		r->at = 0;
		if (r->n == 0)
			return 0;
	}
	*rec = &r->v[r->at++];
	return 1;
}

int window_spec_kind(const struct window_spec *w)
{
	int kinds = (w->passes != NULL) + (w->from || w->to) +
		    (w->pass != NULL && !w->layers && !w->around) + (w->layers != NULL) +
		    (w->around != NULL);

	if (kinds == 0)
		return 0;
	if (kinds != 1 || (w->passes && w->pass) || (w->layers && w->around) ||
	    (w->pad && !w->around))
		return -1;
	return 1;
}

int window_spec_text(const struct window_spec *w, struct buf *out)
{
	const char *const names[] = { "passes", "pass", "layers", "around", "pad", "from", "to" };
	const char *const values[] = { w->passes, w->pass, w->layers, w->around, w->pad,
				       w->from, w->to };
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (values[i] != NULL &&
		    buf_printf(out, "%s--%s %s", out->len ? " " : "", names[i], values[i]) != 0)
			return -1;
	return 0;
}

int window_cut_line(struct window_cut *c, int kind, const char *line, size_t len,
		    struct window_rec *rec, char **source, struct buf *sha)
{
	memset(rec, 0, sizeof *rec);
	rec->line = WLINE_COPY;
	rec->len = (uint32_t)(len + 1);
	if (kind == LINE_HEAD) {
		struct trstream_head_in head;
		char err[100];
		if (trstream_head_read(&c->doc, line, len, &head, err, sizeof err) != 0) {
			buf_reset(&c->err);
			return buf_addstr(&c->err, err) != 0 ? -1 : WINDOW_REFUSED;
		}
		*source = head.source;
	}
	if (kind == LINE_EVENT)
		return window_cut_see(c, line, len, rec);
	if (kind == LINE_CONTROL && stream_is_kind(line, len, TRSTREAM_REPORT))
		rec->line = WLINE_REPORT;  /* earlier reports describe the whole trace */
	if (kind == LINE_TAIL) {
		const char *p;
		size_t n;
		rec->line = WLINE_TAIL;
		if (event_member(line, len, TRSTREAM_KEY_SOURCE_SHA256, &p, &n) && p[0] == '"')
			return buf_add(sha, p, n) != 0 ? -1 : 0;
		return buf_addstr(sha, "null") != 0 ? -1 : 0;
	}
	return 0;
}

int window_cut_summary(const struct window_cut *c, struct buf *out)
{
	uint64_t kept = 0, dropped = 0;
	int i;

	for (i = 0; i < WCAT_N; i++) {
		kept += c->kept[i];
		dropped += c->dropped[i];
	}
	return buf_printf(out, "kept %" PRIu64 " event%s (%" PRIu64 " bytes), dropped %" PRIu64
			  " event%s", kept, kept == 1 ? "" : "s", c->bytes, dropped,
			  dropped == 1 ? "" : "s");
}

int window_cut_write(struct window_cut *c, struct window_recs *recs,
		     int (*copy)(void *ctx, uint64_t from, uint64_t to), int (*report)(void *ctx),
		     void *ctx)
{
	const struct window_rec *r;
	uint64_t at = 0, run = 0;
	int got, keep, rc;

	if (window_recs_rewind(recs) != 0)
		return -1;
	while ((got = window_recs_next(recs, &r)) > 0) {
		if (r->line == WLINE_TAIL) {
			if ((run < at && (rc = copy(ctx, run, at)) != 0) || (rc = report(ctx)) != 0)
				return rc;
			run = at;
		}
		if ((keep = window_cut_keeps(c, r)) < 0)
			return -2;
		if (!keep) {
			if (run < at && (rc = copy(ctx, run, at)) != 0)
				return rc;
			run = at + r->len;
		}
		at += r->len;
	}
	if (got < 0)
		return -1;
	return run < at ? copy(ctx, run, at) : 0;
}
