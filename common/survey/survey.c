/* survey: see survey.h. */
#include <stdlib.h>
#include <string.h>

#include "anchors/anchors.h"
#include "survey/survey.h"
#include "json/tsnum.h"
#include "window/window.h"

/* "void f<int, g<x>>(a)" -> "void f<...>(a)": names that differ only in
 * template arguments fall into one family. */
char *survey_family(const char *name)
{
	struct buf b = BUF_INIT;
	int depth = 0;
	const char *p;

	int rc = 0;

	for (p = name; *p; p++) {
		if (*p == '<') {
			if (depth++ == 0)
				rc |= buf_addstr(&b, "<...>");
			continue;
		}
		if (*p == '>' && depth > 0) {
			depth--;
			continue;
		}
		if (depth == 0)
			rc |= buf_addch(&b, *p);
	}
	if (rc != 0) {
		buf_release(&b);
		return NULL;
	}
	return b.p[0] ? b.p : calloc(1, 1);
}

int survey_name_init(struct survey_name *s, uint32_t group, const char *name, size_t len)
{
	s->group = group;
	s->name_len = len;
	if ((s->name = buf_memdup(name, len)) == NULL)
		return -1;
	if ((s->family = survey_family(s->name)) == NULL) {
		free(s->name);
		s->name = NULL;
		return -1;
	}
	return 0;
}

/* The streams are told apart by the raw text of their tids; past 255
 * distinct ones a kernel is counted as on 255. */
int survey_name_add(struct survey_name *s, int64_t ts, int64_t dur, const char *tid, size_t tid_len)
{
	unsigned k;

	if (buf_array_room((void **)&s->occ, s->n, &s->cap, 4, sizeof *s->occ) != 0)
		return -1;
	s->occ[s->n].ts = ts;
	if (__builtin_add_overflow(ts, dur, &s->occ[s->n].end))
		s->occ[s->n].end = INT64_MAX;
	s->n++;
	if (tid == NULL)
		return 0;
	for (k = 0; k < s->nstreams; k++)
		if (strlen(s->streams[k]) == tid_len && memcmp(s->streams[k], tid, tid_len) == 0)
			return 0;
	if (s->nstreams == 255)
		return 0;
	if (buf_array_room((void **)&s->streams, k, &s->streams_cap, 4, sizeof *s->streams) != 0)
		return -1;
	if ((s->streams[k] = buf_memdup(tid, tid_len)) == NULL)
		return -1;
	s->nstreams++;
	return 0;
}

void survey_name_free(struct survey_name *s)
{
	unsigned k;

	free(s->name);
	free(s->family);
	free(s->occ);
	for (k = 0; k < s->nstreams; k++)
		free(s->streams[k]);
	free(s->streams);
}

static int cmp_occ(const void *a, const void *b)
{
	const struct survey_occ *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t gap(const struct survey_occ *o, size_t i)
{
	return o[i + 1].ts - o[i].ts;
}

/* Gap i (from occurrence i to i + 1) lies inside a pass, a partial first
 * or last one included: it is no pass boundary. */
static int inside_pass(const struct survey_split *sp, size_t N, size_t i)
{
	if (N == 1 || sp->kind == SURVEY_SPLIT_NONE)
		return 0;
	if (i + 1 == sp->offset)
		return 0;
	if (i < sp->offset || i + 1 >= sp->offset + sp->passes * N)
		return i + 1 != sp->offset + sp->passes * N;
	return (i - sp->offset) % N != N - 1;
}

/* The gaps compared between names and measured for regularity: inside
 * the passes, or for N = 1 (one occurrence per pass) every gap. */
static int compared_gap(const struct survey_split *sp, size_t N, size_t i)
{
	return N == 1 || inside_pass(sp, N, i);
}

/* Cut n sorted occurrences into passes of N.  The offset (the partial pass
 * before the first complete one, 0 to N - 1) is the one whose pass
 * boundaries are the largest gaps: it maximises the smallest boundary gap;
 * on a tie the one with more passes, then the smaller offset.  The split is
 * clean when every boundary gap is larger than every gap inside a pass (the
 * partial first and last passes included), ambiguous otherwise: the passes
 * then rest on the count alone. */
void survey_split_passes(const struct survey_occ *o, size_t n, size_t N, struct survey_split *sp)
{
	size_t off, last, j, k;
	int64_t best = 0, minb;
	int have = 0;

	memset(sp, 0, sizeof *sp);
	sp->kind = SURVEY_SPLIT_NONE;
	sp->min_between = sp->max_inside = -1;
	if (n < N || n == 0)
		return;
	last = n - N < N - 1 ? n - N : N - 1;
	for (off = 0; off <= last; off++) {
		k = (n - off) / N;
		minb = INT64_MAX;
		if (off > 0)
			minb = gap(o, off - 1);
		for (j = 1; j < k && !(have && minb <= best); j++)
			if (gap(o, off + j * N - 1) < minb)
				minb = gap(o, off + j * N - 1);
		if (off + k * N < n && gap(o, off + k * N - 1) < minb)
			minb = gap(o, off + k * N - 1);
		if (!have || minb > best) {
			have = 1;
			best = minb;
			sp->offset = off;
		}
	}
	sp->passes = (n - sp->offset) / N;
	sp->partial_last = n - sp->offset - sp->passes * N;
	sp->min_between = best == INT64_MAX ? -1 : best;
	sp->kind = SURVEY_SPLIT_SINGLE; /* for inside_pass */
	for (j = 0; j + 1 < n; j++)
		if (inside_pass(sp, N, j) && gap(o, j) > sp->max_inside)
			sp->max_inside = gap(o, j);
	if (sp->min_between < 0)
		sp->kind = SURVEY_SPLIT_SINGLE;
	else if (sp->max_inside < 0 || sp->min_between > sp->max_inside)
		sp->kind = SURVEY_SPLIT_CLEAN;
	else
		sp->kind = SURVEY_SPLIT_AMBIGUOUS;
}

/* Passes of kN from the first occurrence split cleanly (or there is one):
 * with a count of kN x p whose passes of N do not split cleanly, the name
 * runs k times per layer.  Only k = 2 is read from the count alone: evenly
 * spaced passes of N look like one pass of 3N as much as like three. */
static int splits_at_kn(const struct survey_occ *o, size_t n, size_t kN)
{
	int64_t minb = INT64_MAX, maxi = -1;
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		if ((i + 1) % kN == 0) {
			if (gap(o, i) < minb)
				minb = gap(o, i);
		} else if (gap(o, i) > maxi) {
			maxi = gap(o, i);
		}
	}
	return minb == INT64_MAX || minb > maxi;
}

/* The coefficient of variation of gaps a to b - 1 (population standard
 * deviation over mean); 0 with fewer than two. */
static double gaps_cv(const struct survey_name *s, size_t a, size_t b)
{
	size_t i, cnt = 0;
	double sum = 0, var = 0, mean;

	for (i = a; i < b; i++) {
		sum += (double)gap(s->occ, i);
		cnt++;
	}
	if (cnt < 2)
		return 0;
	mean = sum / (double)cnt;
	for (i = a; i < b; i++) {
		double dv = (double)gap(s->occ, i) - mean;
		var += dv * dv;
	}
	var /= (double)cnt;
	return mean > 0 && var > 0 ? __builtin_sqrt(var) / mean : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The spacing of s: with N = 1 the cv of every gap (between passes);
 * else the cv of each whole pass's gaps on its own, and of those the
 * median (the lower middle one for an even number of passes), so that a
 * slow pass beside fast ones is no irregularity. */
static int spacing_cv(struct survey_name *s, size_t N)
{
	size_t j, p = s->sp.passes;
	double *cvs;

	s->cv = 0;
	if (N == 1) {
		s->cv = s->n > 1 ? gaps_cv(s, 0, s->n - 1) : 0;
		return 0;
	}
	if (p == 0)
		return 0;
	if ((cvs = malloc(p * sizeof *cvs)) == NULL)
		return -1;
	for (j = 0; j < p; j++) {
		size_t a = s->sp.offset + j * N;
		cvs[j] = gaps_cv(s, a, a + N - 1);
	}
	qsort(cvs, p, sizeof *cvs, cmp_double);
	s->cv = cvs[(p - 1) / 2];
	free(cvs);
	return 0;
}

/* Sort the occurrences, split them into passes, measure the spacing inside
 * passes, and score the name as an anchor. */
int survey_analyse(struct survey_name *s, size_t N)
{
	size_t i, n = s->n;

	qsort(s->occ, n, sizeof *s->occ, cmp_occ);
	if (N == 0)
		return 0;
	survey_split_passes(s->occ, n, N, &s->sp);
	s->times_by_count = 0;
	if (s->sp.kind == SURVEY_SPLIT_AMBIGUOUS && N <= SIZE_MAX / 2 && n % (2 * N) == 0 &&
	    splits_at_kn(s->occ, n, 2 * N))
		s->times_by_count = 2;
	if (spacing_cv(s, N) != 0)
		return -1;
	if (s->sp.kind == SURVEY_SPLIT_NONE || s->times_by_count) {
		s->score = 0;
	} else {
		s->score = (double)s->sp.passes * (double)N;
		if (s->sp.kind == SURVEY_SPLIT_AMBIGUOUS)
			s->score *= 0.25;
		s->score /= 1.0 + 4.0 * s->cv;
		if (s->nstreams > 1)
			s->score *= 0.8;
	}
	/* Runs at gaps over 1.5 times the median gap, only for the draft and
	 * target warning: one family in runs of two different lengths. */
	if (n >= 2) {
		int64_t *gaps = malloc((n - 1) * sizeof *gaps), median, limit;
		size_t lens[64] = { 0 }, counts[64] = { 0 }, nlens = 0, start = 0, a = 0, k;

		if (gaps == NULL)
			return -1;
		for (i = 0; i + 1 < n; i++)
			gaps[i] = gap(s->occ, i);
		qsort(gaps, n - 1, sizeof *gaps, cmp_i64);
		median = gaps[(n - 1) / 2];
		free(gaps);
		/* gaps of times within the range fit an int64; 1.5 times one may not */
		limit = median > 0 ? tsnum_sat_add(median, median / 2) : 1;
		for (i = 1; i <= n; i++) {
			if (i < n && gap(s->occ, i - 1) <= limit)
				continue;
			for (k = 0; k < nlens && lens[k] != i - start; k++)
				;
			if (k == nlens && nlens < 64) {
				lens[nlens] = i - start;
				counts[nlens++] = 0;
			}
			if (k < nlens)
				counts[k]++;
			s->nruns++;
			start = i;
		}
		for (k = 1; k < nlens; k++)
			if (counts[k] > counts[a])
				a = k;
		s->len_a = nlens ? lens[a] : 0;
	} else {
		s->nruns = n;
	}
	return 0;
}

/* Occurrences of b between consecutive occurrences of a (at compared gaps
 * of a): 1 when always exactly one (b confirms a's boundaries), k when
 * always exactly k (b runs k times per layer), 0 otherwise. */
int survey_interleave(const struct survey_name *a, const struct survey_name *b, size_t N)
{
	size_t i, j = 0, pairs = 0;
	int pattern = -1;

	for (i = 0; i + 1 < a->n; i++) {
		size_t between = 0;
		if (!compared_gap(&a->sp, N, i))
			continue;
		while (j < b->n && b->occ[j].ts < a->occ[i].ts)
			j++;
		while (j < b->n && b->occ[j].ts < a->occ[i + 1].ts) {
			between++;
			j++;
		}
		if (between < 1 || between > SURVEY_MAX_TIMES)
			return 0;
		if (pattern == -1)
			pattern = (int)between;
		else if (pattern != (int)between)
			return 0;
		pairs++;
	}
	return pairs >= 2 && pattern > 0 ? pattern : 0;
}

/* The most passes of s that lie inside one pass of t (from the first to
 * the last occurrence of each): more than one means that s recurs in groups
 * of N inside t's layers, not once per layer. */
size_t survey_passes_inside(const struct survey_name *s, const struct survey_name *t, size_t N)
{
	size_t i, j = 0, in = 0, most = 0;

	for (i = 0; i < s->sp.passes; i++) {
		int64_t a = s->occ[s->sp.offset + i * N].ts;
		int64_t b = s->occ[s->sp.offset + i * N + N - 1].ts;
		size_t before = j;
		while (j < t->sp.passes && t->occ[t->sp.offset + j * N + N - 1].ts < a)
			j++;
		if (j != before)
			in = 0;
		if (j < t->sp.passes && t->occ[t->sp.offset + j * N].ts <= a &&
		    b <= t->occ[t->sp.offset + j * N + N - 1].ts) {
			if (++in > most)
				most = in;
		}
	}
	return most;
}

/* ProfilerStep starts against the passes: a step that starts inside a
 * whole pass (between its occurrences N - 1 and N, counted from the offset)
 * contradicts the split; one that starts at a pass boundary agrees.  With
 * fewer than two steps there is nothing to compare. */
void survey_steps_vs_passes(const struct survey_step *steps, size_t nsteps,
			    const struct survey_name *s, size_t N, size_t *on, size_t *inside)
{
	size_t j, i = 0, first = s->sp.offset, last = s->sp.offset + s->sp.passes * N;

	*on = *inside = 0;
	if (nsteps < 2)
		return;
	for (j = 0; j < nsteps; j++) {
		while (i < s->n && s->occ[i].ts < steps[j].start)
			i++;
		/* i occurrences lie before step j */
		if (i < first || i > last)
			continue;
		if ((i - first) % N == 0)
			(*on)++;
		else
			(*inside)++;
	}
}

/* Pass j of s: from its first occurrence to the latest end in it (ns). */
void survey_pass_span(const struct survey_name *s, size_t N, size_t j, int64_t *a, int64_t *b)
{
	size_t i, first = s->sp.offset + j * N;

	*a = s->occ[first].ts;
	*b = s->occ[first].end;
	for (i = first + 1; i < first + N; i++)
		if (s->occ[i].end > *b)
			*b = s->occ[i].end;
}

/* Best score first, then more occurrences, then by name. */
static int cmp_score(const void *a, const void *b)
{
	const struct survey_name *x = *(struct survey_name *const *)a;
	const struct survey_name *y = *(struct survey_name *const *)b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Rank by score; rescore the best 64 candidates by their allies and rank
 * again; judge every name against candidate 1 (a name twice between its
 * occurrences is no candidate) and rank again; then find each listed
 * ambiguous candidate a one-to-one partner that splits cleanly. */
int survey_rank(struct survey_ranking *rk, struct survey_name *const *names, size_t n,
		size_t N, size_t top_k)
{
	struct survey_name **order = malloc((n + 1) * sizeof *order);
	size_t i, k, ncand = 0, listed;
	struct survey_name *top = NULL;

	memset(rk, 0, sizeof *rk);
	if (order == NULL)
		return -1;
	for (i = 0; i < n; i++)
		order[i] = names[i];
	qsort(order, n, sizeof *order, cmp_score);
	/* Once-per-layer kernels confirm each other: between two consecutive
	 * occurrences of one there is exactly one of the other.  A kernel that
	 * merely clusters in groups of N inside each layer has no such allies. */
	while (ncand < n && ncand < 64 && order[ncand]->score > 0)
		ncand++;
	for (i = 0; i < ncand; i++)
		for (k = 0; k < ncand; k++)
			if (i != k && survey_interleave(order[i], order[k], N) == 1)
				order[i]->confirms++;
	for (i = 0; i < ncand; i++)
		order[i]->score *= 1.0 + order[i]->confirms;
	qsort(order, ncand, sizeof *order, cmp_score);
	if (n > 0 && order[0]->score > 0)
		top = order[0];
	/* Judged against the top candidate's passes: a name with k > 1
	 * occurrences between each pair of consecutive ones runs k times per
	 * layer and is no candidate, whatever its count. */
	if (top != NULL) {
		for (i = 0; i < n; i++) {
			struct survey_name *s = order[i];
			int pattern;
			if (s == top)
				continue;
			pattern = survey_interleave(top, s, N);
			if (pattern == 1 && s->n == top->n)
				s->confirmed_by = top->name;
			if (pattern > 1) {
				s->times_between = pattern;
				s->score = 0;
			}
		}
		qsort(order, n, sizeof *order, cmp_score);
	}
	ncand = 0;
	while (ncand < n && order[ncand]->score > 0)
		ncand++;
	listed = ncand < top_k ? ncand : top_k;
	for (i = 0; i < n; i++)
		if (order[i]->n >= N)
			rk->any_n = 1;
	/* an ambiguous split is supported by a one-to-one partner that splits
	 * cleanly: its passes are the same occurrences by index */
	for (i = 0; i < listed; i++) {
		struct survey_name *x = order[i];
		if (x->sp.kind != SURVEY_SPLIT_AMBIGUOUS)
			continue;
		for (k = 0; k < ncand; k++) {
			const struct survey_name *y = order[k];
			if (k != i && y->sp.kind == SURVEY_SPLIT_CLEAN && y->n == x->n &&
			    survey_interleave(x, y, N) == 1) {
				x->clean_partner = k + 1;
				break;
			}
		}
	}
	rk->order = order;
	rk->n = n;
	rk->ncand = ncand;
	rk->listed = listed;
	rk->top = top;
	return 0;
}

void survey_ranking_free(struct survey_ranking *rk)
{
	free(rk->order);
	rk->order = NULL;
}

int survey_spans_add(struct survey_spans *sp, const struct survey_ranking *rk, size_t N)
{
	size_t i, j;

	for (i = 0; i < rk->listed; i++) {
		struct survey_name *s = rk->order[i];
		s->span0 = sp->n;
		for (j = 0; j < s->sp.passes; j++) {
			int64_t a, e;
			if (sp->n == sp->cap) {
				/* lo and hi grow together: the second is given
				 * the capacity before the first grew it */
				size_t cap_hi = sp->cap;
				if (buf_array_room((void **)&sp->lo, sp->n, &sp->cap, 64,
						   sizeof *sp->lo) != 0 ||
				    buf_array_room((void **)&sp->hi, sp->n, &cap_hi, 64,
						   sizeof *sp->hi) != 0)
					return -1;
			}
			survey_pass_span(s, N, j, &a, &e);
			sp->lo[sp->n] = window_half(a);
			sp->hi[sp->n++] = window_half(e);
		}
	}
	return 0;
}

void survey_spans_free(struct survey_spans *sp)
{
	free(sp->lo);
	free(sp->hi);
	sp->lo = sp->hi = NULL;
	sp->n = sp->cap = 0;
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
int survey_exact_regex(struct buf *b, const char *name, size_t n)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t i = 0, run = 0, best = 0, best_len = 0, len;
	int exact = 1, rc = 0;

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
		rc |= buf_addch(b, '^');
	for (i = best; i < best + best_len; i++) {
		if (name[i] == '\0') {
			rc |= buf_addstr(b, "\\x00");
			continue;
		}
		if (strchr("\\^$.|?*+()[]{}", name[i]))
			rc |= buf_addch(b, '\\');
		rc |= buf_addch(b, name[i]);
	}
	if (best + best_len == n)
		rc |= buf_addch(b, '$');
	return rc != 0 ? -1 : exact;
}

/* The passes as tr-select-anchors would take them (the offset and passes
 * of the split) have the shape of whole passes by its own rule
 * (anchors_pass_shape), so that a starting command is never one it
 * refuses: 1 or 0; -1 when memory runs out. */
static int shape_whole(const struct survey_name *s, size_t N)
{
	struct anchors_kernel *k = calloc(s->n + 1, sizeof *k);
	int64_t *scratch = malloc((N + 1) * sizeof *scratch);
	struct anchors_shape sh;
	struct anchors_result r;
	size_t i;
	int whole = -1;

	if (k != NULL && scratch != NULL) {
		for (i = 0; i < s->n; i++) {
			k[i].index = i;
			k[i].ts_ns = s->occ[i].ts;
		}
		whole = anchors_pass_shape(k, s->n, s->sp.offset, N, s->sp.passes, scratch, &sh,
					   &r) == ANCHORS_OK;
	}
	free(k);
	free(scratch);
	return whole;
}

int survey_passes_whole(const struct survey_name *s, size_t N, const struct survey_step *steps,
			size_t nsteps)
{
	size_t on = 0, in, i = 0, j, first = s->sp.offset, last = s->sp.offset + s->sp.passes * N;

	if (s->sp.passes == 0)
		return 0;
	survey_steps_vs_passes(steps, nsteps, s, N, &j, &in);
	if (in > 0)
		return 0;
	/* what confirms an ambiguous split: a step start at one of its pass
	 * boundaries with occurrences on both sides (one before them all
	 * confirms nothing) */
	for (j = 0; nsteps >= 2 && j < nsteps; j++) {
		while (i < s->n && s->occ[i].ts < steps[j].start)
			i++;
		if (i > 0 && i < s->n && i >= first && i <= last && (i - first) % N == 0)
			on++;
	}
	switch (s->sp.kind) {
	case SURVEY_SPLIT_CLEAN:
	case SURVEY_SPLIT_SINGLE:
		break;
	case SURVEY_SPLIT_AMBIGUOUS:
		if (s->clean_partner > 0 || on > 0)
			break;
		return 0;
	default:
		return 0;
	}
	return shape_whole(s, N);
}

int survey_rank_start(struct survey_ranking *rk, size_t N, const struct survey_step *steps,
		      size_t nsteps)
{
	size_t i;
	int whole;

	rk->start = NULL;
	rk->start_rank = 0;
	for (i = 0; i < rk->listed; i++) {
		if ((whole = survey_passes_whole(rk->order[i], N, steps, nsteps)) < 0)
			return -1;
		if (whole) {
			rk->start = rk->order[i];
			rk->start_rank = i + 1;
			return 0;
		}
	}
	return 0;
}

size_t survey_per_step(const struct survey_name *s, const struct survey_step *steps, size_t nsteps)
{
	size_t i = 0, j, want = 0;

	if (nsteps < 2)
		return 0;
	while (i < s->n && s->occ[i].ts < steps[0].start)
		i++;
	for (j = 0; j < nsteps; j++) {
		size_t c = 0;
		while (i < s->n && (j + 1 == nsteps || s->occ[i].ts < steps[j + 1].start)) {
			c++;
			i++;
		}
		if (c == 0 || (j > 0 && c != want))
			return 0;
		want = c;
	}
	return want;
}

/* The name cut to SURVEY_SHORT_NAME bytes with "..." (not inside a UTF-8
 * sequence). */
static int cut_name(struct buf *b, const char *name, size_t n)
{
	size_t k = n;

	if (n > SURVEY_SHORT_NAME) {
		k = SURVEY_SHORT_NAME - 3;
		while (k > 0 && ((unsigned char)name[k] & 0xC0) == 0x80)
			k--;
	}
	return buf_add(b, name, k) | (k < n ? buf_addstr(b, "...") : 0);
}

/* A mangled name's nested name read without demangling: "_ZN5aiter3fooI...E
 * ..." -> "foo<...>(...)" (its last identifier); 0 when it is not one. */
static int short_mangled(struct buf *b, const char *name, size_t n)
{
	size_t i = 2, last = 0, last_len = 0;

	if (i < n && name[i] == 'N')
		i++;
	while (i < n && strchr("rVKRO", name[i]))
		i++;
	if (i + 1 < n && name[i] == 'S' && name[i + 1] == 't')
		i += 2;
	while (i < n && name[i] >= '0' && name[i] <= '9') {
		size_t len = 0;
		while (i < n && name[i] >= '0' && name[i] <= '9' && len < 100000)
			len = len * 10 + (size_t)(name[i++] - '0');
		if (len == 0 || len > n - i)
			return 0;
		last = i;
		last_len = len;
		i += len;
	}
	if (last_len == 0)
		return 0;
	return (buf_add(b, name + last, last_len) |
		buf_addstr(b, i < n && name[i] == 'I' ? "<...>(...)" : "(...)")) ? -1 : 1;
}

/* A C++ name at depth 0 only: each bracketed part (<>, (), {}) as "<...>",
 * "(...)", "{...}", "(anonymous namespace)" kept; then without what comes
 * before the function's own name (its return type and namespaces). */
static int short_cpp(struct buf *b, const char *name, size_t n)
{
	static const char anon[] = "(anonymous namespace)";
	struct buf t = BUF_INIT;
	size_t i, start = 0, end;
	int depth = 0, rc = 0;
	char *params;

	for (i = 0; i < n; i++) {
		char c = name[i];
		if (depth == 0 && n - i >= sizeof anon - 1 && memcmp(name + i, anon, sizeof anon - 1) == 0) {
			rc |= buf_addstr(&t, anon);
			i += sizeof anon - 2;
			continue;
		}
		if (c == '<' || c == '(' || c == '{') {
			if (depth++ == 0)
				rc |= buf_addstr(&t, c == '<' ? "<...>" : c == '(' ? "(...)" : "{...}");
			continue;
		}
		if ((c == '>' || c == ')' || c == '}') && depth > 0) {
			depth--;
			continue;
		}
		if (depth == 0)
			rc |= buf_addch(&t, c);
	}
	if (rc != 0) {
		buf_release(&t);
		return -1;
	}
	/* the function's own name ends where its parameters begin */
	params = strstr(t.p, "(...)");
	end = params ? (size_t)(params - t.p) : t.len;
	for (i = 0; i < end; i++) {
		if (t.p[i] == ' ')
			start = i + 1;
		else if (t.p[i] == ':' && i + 1 < end && t.p[i + 1] == ':')
			start = i + 2;
	}
	if (start >= end)
		start = 0;
	rc = cut_name(b, t.p + start, t.len - start);
	buf_release(&t);
	return rc;
}

int survey_short_name(struct buf *b, const char *name, size_t n)
{
	int rc;

	if (n <= SURVEY_SHORT_NAME)
		return buf_add(b, name, n);
	if (n > 2 && name[0] == '_' && name[1] == 'Z') {
		if ((rc = short_mangled(b, name, n)) != 0)
			return rc < 0 ? -1 : 0;
		return cut_name(b, name, n);
	}
	if (memchr(name, '<', n) || memchr(name, '(', n))
		return short_cpp(b, name, n);
	return cut_name(b, name, n);
}

int survey_steps_see(struct survey_steps *s, const struct member *m)
{
	static const char prefix[] = "\"ProfilerStep#";
	int64_t ns, dur = 0;
	int sub;

	if (!(m[2].len > sizeof prefix - 1 && memcmp(m[2].p, prefix, sizeof prefix - 1) == 0 &&
	      m[1].len == 3 && memcmp(m[1].p, "\"X\"", 3) == 0 && m[0].len > 0 &&
	      tsnum_us_to_ns(m[0].p, m[0].len, &ns, &sub) == NUM_OK))
		return 0;
	if (m[3].len == 0 || tsnum_us_to_ns(m[3].p, m[3].len, &dur, &sub) != NUM_OK || dur < 0)
		dur = 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct survey_step *v;
		if (cap > SIZE_MAX / sizeof *v || (v = realloc(s->v, cap * sizeof *v)) == NULL)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].start = ns;
	if (__builtin_add_overflow(ns, dur, &s->v[s->n].end))
		s->v[s->n].end = INT64_MAX;
	s->n++;
	return 0;
}

static int cmp_step(const void *a, const void *b)
{
	const struct survey_step *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

void survey_steps_sort(struct survey_steps *s)
{
	if (s->n > 0)
		qsort(s->v, s->n, sizeof *s->v, cmp_step);
}

void survey_steps_free(struct survey_steps *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

int survey_training_name(const struct member *name)
{
	return name->len > 0 && (event_find_bytes(name->p, name->len, "ackward", 7) != NULL ||
				 event_find_bytes(name->p, name->len, "\"Optimizer.", 11) != NULL);
}

size_t survey_group_members(struct survey_name *names, size_t first, const size_t *next,
			    struct survey_name ***members, size_t *cap)
{
	size_t m = 0, i;

	for (i = first; i != SIZE_MAX; i = next[i]) {
		if (m == *cap) {
			size_t c = *cap ? 2 * *cap : 64;
			struct survey_name **v;
			if (c > SIZE_MAX / sizeof *v || (v = realloc(*members, c * sizeof *v)) == NULL)
				return SIZE_MAX;
			*members = v;
			*cap = c;
		}
		(*members)[m++] = &names[i];
	}
	return m;
}
