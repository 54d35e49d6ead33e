/* tr-survey: evidence for choosing a once-per-layer anchor.  At the end of a
 * pipeline it reads the stream and reports, per GPU pid and device, how each
 * kernel name occurs in time, ranks the kernels whose occurrences form runs
 * of exactly N, and warns about the traps.  It never chooses for the user.
 * See tr-survey(1). */
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diag.h"
#include "event.h"
#include "filter.h"
#include "intern.h"
#include "json.h"
#include "opt.h"
#include "tsnum.h"

static const char usage_text[] =
	"usage: tr-survey --num-layers N [--pid PID] [--device D] [--top K] [--json]\n"
	"Read a trace-layers stream (tr-stream(5)) and report, per GPU pid and\n"
	"device, which kernels occur once per layer: counts, runs in time, ranked\n"
	"anchor candidates with suggested --anchor-offset and --passes, warnings.\n"
	"\n"
	"  --num-layers N  layers per pass in the phase of interest (>= 1)\n"
	"  --pid PID       only this pid\n"
	"  --device D      only kernels whose args.device is D\n"
	"  --top K         candidates and names listed per device (default 10)\n"
	"  --json          print a JSON object instead of text\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected, 2 usage or system trouble.\n";

static _Noreturn void usage(FILE *to, int status)
{
	fputs(usage_text, to);
	exit(status);
}

/* One kernel name in one (pid, device). */
struct name_stats {
	uint32_t group;        /* (pid, device) */
	char *name;            /* unescaped */
	size_t name_len;       /* bytes (a \u0000 in the name included) */
	char *family;          /* the name with template arguments removed */
	int64_t *ts;           /* occurrence starts, ns */
	size_t n, cap;
	char *streams[4];      /* first distinct tids (raw) */
	unsigned nstreams;     /* distinct tids seen, saturating */
	/* analysis */
	size_t nruns, runs_of_n, runs_of_2n, partial_first, partial_last;
	size_t first_full_run_start; /* index in sorted ts */
	size_t len_a, len_b;   /* the two most common run lengths */
	double cv;             /* spacing regularity inside runs */
	double score;
	unsigned confirms;     /* other candidates with one occurrence per interval */
	char *confirmed_by;
};

struct state {
	int64_t num_layers, top;
	const char *pid, *device;
	int json;
	struct intern keys;    /* group \001 name */
	struct name_stats *names;
	size_t names_cap;
	struct intern groups;  /* pid \001 device */
	struct jdoc doc;
	struct buf tmp;
	uint64_t events;
};

/* "void f<int, g<x>>(a)" -> "void f<...>(a)": names that differ only in
 * template arguments fall into one family. */
static char *family_of(const char *name)
{
	struct buf b = BUF_INIT;
	int depth = 0;
	const char *p;

	for (p = name; *p; p++) {
		if (*p == '<') {
			if (depth++ == 0)
				buf_addstr(&b, "<...>");
			continue;
		}
		if (*p == '>' && depth > 0) {
			depth--;
			continue;
		}
		if (depth == 0)
			buf_addch(&b, *p);
	}
	return b.p[0] ? b.p : xmemdup("", 0);
}

static void see_kernel(struct state *st, const char *line, size_t len)
{
	struct jdoc *d = &st->doc;
	int cat, name, args, dev, ts, tid;
	size_t n, pn, dn = 4, tn;
	const char *p, *pid, *dtext = "null", *ttext;
	int64_t ts_ns, gid, id;
	int sub;
	struct name_stats *s;
	unsigned k;

	if (jdoc_parse(d, line, len, NULL) != 0 || !jdoc_str_eq(d, jdoc_find(d, 0, "ph"), "X"))
		return;
	cat = jdoc_find(d, 0, "cat");
	if (jdoc_type(d, cat) != JT_STRING)
		return;
	p = jdoc_text(d, cat, &n);
	if (!category_has(p, n, "kernel") && !category_has(p, n, "Kernel"))
		return;
	name = jdoc_find(d, 0, "name");
	ts = jdoc_find(d, 0, "ts");
	tid = jdoc_find(d, 0, "tid");
	if (jdoc_find(d, 0, "pid") < 0 || jdoc_type(d, name) != JT_STRING ||
	    jdoc_type(d, ts) != JT_PRIMITIVE)
		return;
	pid = jdoc_raw(d, jdoc_find(d, 0, "pid"), &pn);
	if (st->pid && !raw_matches_arg(pid, pn, st->pid))
		return;
	args = jdoc_find(d, 0, "args");
	dev = jdoc_type(d, args) == JT_OBJECT ? jdoc_find(d, args, "device") : -1;
	if (dev >= 0)
		dtext = jdoc_raw(d, dev, &dn);
	if (st->device && !raw_matches_arg(dtext, dn, st->device))
		return;
	p = jdoc_text(d, ts, &n);
	if (num_us_to_ns(p, n, &ts_ns, &sub) != NUM_OK)
		return;

	buf_reset(&st->tmp);
	buf_add(&st->tmp, pid, pn);
	buf_addch(&st->tmp, '\001');
	buf_add(&st->tmp, dtext, dn);
	gid = intern_id(&st->groups, st->tmp.p, st->tmp.len);
	buf_printf(&st->tmp, "\001");
	if (gid < 0 || jdoc_unescape(d, name, &st->tmp) != 0)
		die_nomem();
	id = intern_id(&st->keys, st->tmp.p, st->tmp.len);
	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->names_cap) {
		size_t cap = st->names_cap ? st->names_cap * 2 : 256;
		st->names = xrealloc(st->names, cap * sizeof *st->names);
		memset(st->names + st->names_cap, 0, (cap - st->names_cap) * sizeof *st->names);
		st->names_cap = cap;
	}
	s = &st->names[id];
	if (s->name == NULL) {
		const char *nm = memchr(st->tmp.p, '\001', st->tmp.len);
		nm = memchr(nm + 1, '\001', st->tmp.len - (size_t)(nm + 1 - st->tmp.p));
		s->group = (uint32_t)gid;
		s->name_len = st->tmp.len - (size_t)(nm + 1 - st->tmp.p);
		s->name = xmemdup(nm + 1, s->name_len);
		s->family = family_of(s->name);
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->ts = xrealloc(s->ts, s->cap * sizeof *s->ts);
	}
	s->ts[s->n++] = ts_ns;
	if (tid >= 0) {
		ttext = jdoc_raw(d, tid, &tn);
		for (k = 0; k < s->nstreams && k < 4; k++)
			if (strlen(s->streams[k]) == tn && memcmp(s->streams[k], ttext, tn) == 0)
				break;
		if (k == s->nstreams && s->nstreams < 255) {
			if (k < 4)
				s->streams[k] = xmemdup(ttext, tn);
			s->nstreams++;
		}
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Split the sorted occurrences into runs at gaps much larger than the
 * typical (median) spacing, and describe the runs against N. */
static void analyse(struct state *st, struct name_stats *s)
{
	size_t i, start = 0, n = s->n, N = (size_t)st->num_layers;
	int64_t *gaps, median, limit;
	size_t lens[64], counts[64], nlens = 0;
	double sum = 0, sum2 = 0;
	size_t nsp = 0;

	qsort(s->ts, n, sizeof *s->ts, cmp_i64);
	s->first_full_run_start = SIZE_MAX;
	if (n < 2) {
		s->nruns = n;
		return;
	}
	gaps = xmalloc((n - 1) * sizeof *gaps);
	for (i = 0; i + 1 < n; i++)
		gaps[i] = s->ts[i + 1] - s->ts[i];
	qsort(gaps, n - 1, sizeof *gaps, cmp_i64);
	median = gaps[(n - 1) / 2];
	free(gaps);
	limit = median > 0 ? median + median / 2 : 1;
	for (i = 1; i <= n; i++) {
		if (i < n && s->ts[i] - s->ts[i - 1] <= limit) {
			sum += (double)(s->ts[i] - s->ts[i - 1]);
			sum2 += (double)(s->ts[i] - s->ts[i - 1]) * (double)(s->ts[i] - s->ts[i - 1]);
			nsp++;
			continue;
		}
		/* a run [start, i) ends */
		{
			size_t len = i - start, k;
			if (len == N) {
				s->runs_of_n++;
				if (s->first_full_run_start == SIZE_MAX)
					s->first_full_run_start = start;
			} else if (len == 2 * N) {
				s->runs_of_2n++;
			} else if (len < N && start == 0) {
				s->partial_first = len;
			} else if (len < N && i == n) {
				s->partial_last = len;
			}
			for (k = 0; k < nlens && lens[k] != len; k++)
				;
			if (k == nlens && nlens < 64) {
				lens[nlens] = len;
				counts[nlens++] = 0;
			}
			if (k < nlens)
				counts[k]++;
		}
		s->nruns++;
		start = i;
	}
	/* the two most common run lengths, for the draft/target warning */
	{
		size_t a = 0, b = SIZE_MAX, k;
		for (k = 1; k < nlens; k++)
			if (counts[k] > counts[a])
				a = k;
		for (k = 0; k < nlens; k++)
			if (k != a && (b == SIZE_MAX || counts[k] > counts[b]))
				b = k;
		s->len_a = nlens ? lens[a] : 0;
		s->len_b = b != SIZE_MAX && counts[b] >= 2 ? lens[b] : 0;
	}
	if (nsp > 1) {
		double mean = sum / (double)nsp, var = sum2 / (double)nsp - mean * mean;
		s->cv = mean > 0 && var > 0 ? __builtin_sqrt(var) / mean : 0;
	}
	/* Rank: whole runs of exactly N, regular spacing, one stream. */
	s->score = (double)s->runs_of_n * (double)N;
	if (s->runs_of_n == 0 && n % N == 0 && s->nruns == 1)
		s->score = (double)N * 0.5; /* one run of k*N: possible, weaker */
	s->score /= 1.0 + 4.0 * s->cv;  /* an anchor recurs at a steady pace */
	if (s->runs_of_2n > 0)
		s->score = 0;
	if (s->nstreams > 1)
		s->score *= 0.8;
}

/* Occurrences of b between consecutive occurrences of a inside a's runs:
 * 1 when always exactly one (b confirms a's boundaries), 2 when always
 * exactly two (b runs twice per layer), 0 otherwise. */
static int interleave(const struct name_stats *a, const struct name_stats *b, int64_t limit)
{
	size_t i, j = 0, pairs = 0;
	int pattern = -1;

	for (i = 0; i + 1 < a->n; i++) {
		size_t between = 0;
		if (a->ts[i + 1] - a->ts[i] > limit)
			continue; /* a gap between runs */
		while (j < b->n && b->ts[j] < a->ts[i])
			j++;
		while (j < b->n && b->ts[j] < a->ts[i + 1]) {
			between++;
			j++;
		}
		if (between != 1 && between != 2)
			return 0;
		if (pattern == -1)
			pattern = (int)between;
		else if (pattern != (int)between)
			return 0;
		pairs++;
	}
	return pairs >= 2 && pattern > 0 ? pattern : 0;
}

static int64_t run_limit(const struct name_stats *s)
{
	int64_t *gaps, median;
	size_t i;

	if (s->n < 2)
		return 0;
	gaps = xmalloc((s->n - 1) * sizeof *gaps);
	for (i = 0; i + 1 < s->n; i++)
		gaps[i] = s->ts[i + 1] - s->ts[i];
	qsort(gaps, s->n - 1, sizeof *gaps, cmp_i64);
	median = gaps[(s->n - 1) / 2];
	free(gaps);
	return median > 0 ? median + median / 2 : 1;
}

static struct state *rank_state;

static int cmp_score(const void *a, const void *b)
{
	const struct name_stats *x = &rank_state->names[*(const size_t *)a];
	const struct name_stats *y = &rank_state->names[*(const size_t *)b];

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void put_text(struct buf *b, const char *s)
{
	json_escape(b, s, strlen(s));
}

static void shell_quote(struct buf *b, const char *s)
{
	buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_addstr(b, "'\\''");
		else
			buf_addch(b, *s);
	}
	buf_addch(b, '\'');
}

/* The length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates), or 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len, k;
	unsigned char lo = 0x80, hi = 0xBF;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		len = 3;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		len = 4;
	else
		return 0;
	if (p[0] == 0xE0)
		lo = 0xA0;
	else if (p[0] == 0xED)
		hi = 0x9F;
	else if (p[0] == 0xF0)
		lo = 0x90;
	else if (p[0] == 0xF4)
		hi = 0x8F;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < len; k++)
		if (p[k] < 0x80 || p[k] > 0xBF)
			return 0;
	return len;
}

/* A regex matching exactly this name: metacharacters escaped, a NUL as
 * \x00, anchored.  No pattern matches bytes that are not UTF-8 (a lone
 * surrogate included; see regex.h), so for such a name the regex covers
 * its longest valid run, anchored where the run touches an end of the
 * name.  Returns 1 when the regex is exact. */
static int exact_regex(struct buf *b, const char *name, size_t n)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t i = 0, run = 0, best = 0, best_len = 0, len;
	int exact = 1;

	while (i < n) {
		if ((len = utf8_len(p + i, n - i)) == 0) {
			exact = 0;
			run = ++i;
			continue;
		}
		i += len;
		if (i - run > best_len) {
			best = run;
			best_len = i - run;
		}
	}
	if (exact) {
		best = 0;
		best_len = n;
	}
	if (best == 0)
		buf_addch(b, '^');
	for (i = best; i < best + best_len; i++) {
		if (name[i] == '\0') {
			buf_addstr(b, "\\x00");
			continue;
		}
		if (strchr("\\^$.|?*+()[]{}", name[i]))
			buf_addch(b, '\\');
		buf_addch(b, name[i]);
	}
	if (best + best_len == n)
		buf_addch(b, '$');
	return exact;
}

/* Second landmarks for the top candidate (tr-select-anchors --confirm-regex):
 * the kernels of the group that occur exactly once between consecutive
 * occurrences of it inside its runs, listed with the exact regex. */
static void put_landmarks(const struct state *st, uint32_t g, const struct name_stats *top,
			  const size_t *order, size_t n, struct buf *out)
{
	int64_t limit = run_limit(top);
	size_t i, shown = 0;
	struct buf rx = BUF_INIT;

	if (st->json)
		buf_addstr(out, ",\"landmarks\":[");
	for (i = 0; i < n && shown < (size_t)st->top; i++) {
		const struct name_stats *s = &st->names[order[i]];
		if (s == top || s->group != g || interleave(top, s, limit) != 1)
			continue;
		buf_reset(&rx);
		(void)exact_regex(&rx, s->name, s->name_len);
		if (st->json) {
			buf_addstr(out, shown ? ",{\"name\":" : "{\"name\":");
			json_escape(out, s->name, s->name_len);
			buf_addstr(out, ",\"regex\":");
			put_text(out, rx.p);
			buf_addch(out, '}');
		} else {
			if (shown == 0)
				buf_addstr(out, "second landmarks, once between consecutive anchors of "
					   "candidate 1 (add one with --confirm-regex):\n");
			buf_addstr(out, "  --confirm-regex ");
			shell_quote(out, rx.p);
			buf_addch(out, '\n');
		}
		shown++;
	}
	if (st->json)
		buf_addch(out, ']');
	buf_release(&rx);
}

static void report_group(struct state *st, uint32_t g, struct buf *out, int first_group)
{
	size_t *order = xmalloc((st->keys.n + 1) * sizeof *order), n = 0, i, k, shown;
	const char *key = st->groups.keys[g];
	const char *sep = strchr(key, '\001');
	int pidlen = (int)(sep - key);
	const struct name_stats *top = NULL;
	int64_t N = st->num_layers;
	struct buf warn = BUF_INIT, cmd = BUF_INIT, rx = BUF_INIT;

	for (i = 0; i < st->keys.n; i++)
		if (st->names[i].group == g)
			order[n++] = i;
	rank_state = st;
	qsort(order, n, sizeof *order, cmp_score);
	/* Once-per-layer kernels confirm each other: between two consecutive
	 * occurrences of one there is exactly one of the other.  A kernel that
	 * merely clusters in groups of N inside each layer has no such allies. */
	{
		size_t ncand = 0, a, b;
		while (ncand < n && ncand < 64 && st->names[order[ncand]].score > 0)
			ncand++;
		for (a = 0; a < ncand; a++) {
			struct name_stats *x = &st->names[order[a]];
			int64_t limit = run_limit(x);
			for (b = 0; b < ncand; b++)
				if (a != b && interleave(x, &st->names[order[b]], limit) == 1)
					x->confirms++;
		}
		for (a = 0; a < ncand; a++)
			st->names[order[a]].score *= 1.0 + st->names[order[a]].confirms;
		qsort(order, ncand, sizeof *order, cmp_score);
	}
	if (n > 0 && st->names[order[0]].score > 0)
		top = &st->names[order[0]];

	/* warnings, judged against the top candidate's boundaries */
	if (top != NULL) {
		int64_t limit = run_limit(top);
		for (i = 0; i < n; i++) {
			struct name_stats *s = &st->names[order[i]];
			int pattern;
			if (s == top)
				continue;
			pattern = interleave(top, s, limit);
			if (pattern == 1 && s->n == top->n)
				s->confirmed_by = (char *)top->name;
			if (pattern == 2 || s->runs_of_2n > 0)
				buf_printf(&warn, "twice per layer (%zu = 2 x %zu): %s\n", s->n,
					   s->n / 2, s->name);
		}
	}
	for (i = 0; i < n; i++) {
		const struct name_stats *s = &st->names[order[i]];
		if (s->score <= 0 || i >= (size_t)st->top)
			continue;
		if (s->n % (size_t)N != 0)
			buf_printf(&warn, "%zu is not a multiple of %" PRId64 " (%s%s%s): %s\n", s->n, N,
				   s->partial_first ? "partial first run" : "",
				   s->partial_first && s->partial_last ? ", " : "",
				   s->partial_last ? "partial last run" : "", s->name);
		if (s->nstreams > 1)
			buf_printf(&warn, "runs on %u streams: %s\n", s->nstreams, s->name);
	}
	/* families whose members run in runs of different lengths */
	for (i = 0; i < n; i++) {
		const struct name_stats *s = &st->names[order[i]];
		for (k = i + 1; k < n; k++) {
			const struct name_stats *o = &st->names[order[k]];
			if (strcmp(s->family, o->family) == 0 && s->len_a >= 2 && o->len_a >= 2 &&
			    s->len_a != o->len_a && s->nruns > 1 && o->nruns > 1 &&
			    (s->score > 0 || o->score > 0)) {
				buf_printf(&warn, "one family, runs of %zu and %zu (draft and target "
					   "passes?): anchor the regex on the template arguments: %s\n",
					   s->len_a, o->len_a, s->family);
				break;
			}
		}
	}
	if (top != NULL) {
		if (!exact_regex(&rx, top->name, top->name_len))
			buf_printf(&warn, "the name holds bytes that are not UTF-8, which no regex "
				   "matches; the command's regex covers its longest valid part, so "
				   "check that it matches this kernel only: %s\n", top->name);
		buf_addstr(&cmd, "tr-layer-track --trace TRACE --output OUT --anchor-regex ");
		shell_quote(&cmd, rx.p);
		buf_printf(&cmd, " --num-layers %" PRId64 " --anchor-offset %zu --passes %zu "
			   "--pid %.*s --phase PHASE --evidence 'WHY L0 IS L0'", N,
			   top->first_full_run_start == SIZE_MAX ? 0 : top->first_full_run_start,
			   top->runs_of_n ? top->runs_of_n : top->n / (size_t)N, pidlen, key);
	}

	if (st->json) {
		buf_printf(out, "%s{\"pid\":%.*s,\"device\":%s,\"candidates\":[", first_group ? "" : ",",
			   pidlen, key, sep + 1);
		for (i = 0, shown = 0; i < n && shown < (size_t)st->top; i++) {
			const struct name_stats *s = &st->names[order[i]];
			if (s->score <= 0)
				break;
			buf_printf(out, "%s{\"name\":", shown++ ? "," : "");
			put_text(out, s->name);
			buf_printf(out, ",\"count\":%zu,\"per_layer\":%.3f,\"runs\":%zu,\"runs_of_n\":%zu,"
				   "\"streams\":%u,\"spacing_cv\":%.3f,\"anchor_offset\":%zu,\"passes\":%zu,"
				   "\"score\":%.3f,\"confirms\":%u,\"confirmed_by\":", s->n, (double)s->n / (double)N,
				   s->nruns, s->runs_of_n, s->nstreams, s->cv,
				   s->first_full_run_start == SIZE_MAX ? 0 : s->first_full_run_start,
				   s->runs_of_n ? s->runs_of_n : s->n / (size_t)N, s->score, s->confirms);
			if (s->confirmed_by)
				put_text(out, s->confirmed_by);
			else
				buf_addstr(out, "null");
			buf_addch(out, '}');
		}
		buf_addstr(out, "],\"warnings\":[");
		for (const char *p = warn.p; *p;) {
			const char *nl = strchr(p, '\n');
			if (p != warn.p)
				buf_addch(out, ',');
			json_escape(out, p, (size_t)(nl - p));
			p = nl + 1;
		}
		buf_addstr(out, "],\"command\":");
		if (top)
			put_text(out, cmd.p);
		else
			buf_addstr(out, "null");
		if (top)
			put_landmarks(st, g, top, order, n, out);
		else
			buf_addstr(out, ",\"landmarks\":[]");
		buf_addch(out, '}');
	} else {
		buf_printf(out, "== pid %.*s, device %s: %zu kernel names\n", pidlen, key, sep + 1, n);
		buf_printf(out, "anchor candidates (runs of exactly %" PRId64 " occurrences):\n", N);
		for (i = 0, shown = 0; i < n && shown < (size_t)st->top; i++) {
			const struct name_stats *s = &st->names[order[i]];
			if (s->score <= 0)
				break;
			shown++;
			buf_printf(out, "  %zu. %zu x (%.2f per layer), %zu runs, %zu of %" PRId64
				   ", spacing cv %.2f, %u stream%s; --anchor-offset %zu --passes %zu%s%s\n"
				   "     %s\n", shown, s->n, (double)s->n / (double)N, s->nruns,
				   s->runs_of_n, N, s->cv, s->nstreams, s->nstreams == 1 ? "" : "s",
				   s->first_full_run_start == SIZE_MAX ? 0 : s->first_full_run_start,
				   s->runs_of_n ? s->runs_of_n : s->n / (size_t)N,
				   "", "", s->name);
			if (s->confirms)
				buf_printf(out, "     (%u other candidate%s interleave one-to-one with it)\n",
					   s->confirms, s->confirms == 1 ? "" : "s");
		}
		if (shown == 0)
			buf_printf(out, "  none: no kernel occurs in runs of %" PRId64 "\n", N);
		if (warn.len)
			buf_printf(out, "warnings:\n%s", warn.p);
		if (top)
			buf_printf(out, "starting point (verify L0 yourself before publishing):\n  %s\n",
				   cmd.p);
		if (top)
			put_landmarks(st, g, top, order, n, out);
	}
	buf_release(&warn);
	buf_release(&cmd);
	buf_release(&rx);
	free(order);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "num-layers", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "top", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct state st;
	struct stream_in in;
	struct buf out = BUF_INIT;
	const char *line;
	size_t len, i;
	int ch, kind, have_layers = 0;
	uint32_t g;

	diag_init(argv[0]);
	memset(&st, 0, sizeof st);
	st.top = 10;
	st.tmp = (struct buf)BUF_INIT;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			if (opt_parse_i64(optarg, 1, 1000000, &st.num_layers) != 0)
				die(EXIT_TROUBLE, "--num-layers: invalid value '%s' (allowed 1-1000000)", optarg);
			have_layers = 1;
			break;
		case 'p': st.pid = optarg; break;
		case 'd': st.device = optarg; break;
		case 't':
			if (opt_parse_i64(optarg, 1, 1000, &st.top) != 0)
				die(EXIT_TROUBLE, "--top: invalid value '%s' (allowed 1-1000)", optarg);
			break;
		case 'j': st.json = 1; break;
		case 'h': usage(stdout, EXIT_OK);
		case 'V': print_version_and_exit();
		default: usage(stderr, EXIT_TROUBLE);
		}
	}
	if (optind != argc || !have_layers)
		usage(stderr, EXIT_TROUBLE);

	if (stream_in_init(&in, 0, STREAM_DEFAULT_MAX_LINE) != 0)
		die_nomem();
	while ((kind = stream_next(&in, &line, &len)) != LINE_END) {
		if (kind == LINE_ERROR)
			die(EXIT_INPUT, "stdin: %s", in.err);
		if (kind == LINE_EVENT && find_bytes(line, len, "ernel", 5) != NULL)
			see_kernel(&st, line, len);
	}
	for (i = 0; i < st.keys.n; i++)
		analyse(&st, &st.names[i]);
	if (st.json)
		buf_addstr(&out, "{\"num_layers\":"), buf_printf(&out, "%" PRId64 ",\"groups\":[",
								  st.num_layers);
	for (g = 0; g < st.groups.n; g++)
		report_group(&st, g, &out, g == 0);
	if (st.json)
		buf_addstr(&out, "]}\n");
	if (st.groups.n == 0 && !st.json)
		buf_addstr(&out, "no GPU kernels in the stream\n");
	if (fwrite(out.p, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
		die_write("standard output");

	for (i = 0; i < st.keys.n; i++) {
		unsigned k;
		free(st.names[i].name);
		free(st.names[i].family);
		free(st.names[i].ts);
		for (k = 0; k < st.names[i].nstreams && k < 4; k++)
			free(st.names[i].streams[k]);
	}
	free(st.names);
	intern_free(&st.keys);
	intern_free(&st.groups);
	jdoc_free(&st.doc);
	buf_release(&st.tmp);
	buf_release(&out);
	stream_in_free(&in);
	return EXIT_OK;
}
