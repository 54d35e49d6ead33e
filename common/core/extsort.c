/* extsort: see extsort.h. */
/* pread */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/extsort.h"
#include "core/io.h"

#define WRITE_STAGE ((size_t)64 << 10)  /* sorted records gathered per write(2) */

int extsort_init(struct extsort *s, size_t rec_size, size_t run_bytes,
		      extsort_cmp cmp, const char *prefix)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
	s->rec_size = rec_size;
	s->cmp = cmp;
	s->prefix = prefix;
	s->cap = rec_size > 0 ? run_bytes / rec_size : 0;
	if (s->cap == 0 || s->cap > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Room for the run: allocated on the first put, so that a sort that is
 * never used costs nothing. */
static int run_room(struct extsort *s)
{
	if (s->buf != NULL)
		return 0;
	s->buf = malloc(s->cap * s->rec_size);
	s->order = s->cmp != NULL ? malloc(s->cap * sizeof *s->order) : NULL;
	if (s->buf == NULL || (s->cmp != NULL && s->order == NULL)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Records of a run too short to be worth merging are put in order by
 * insertion first, so that a run of random keys makes at most
 * n / MIN_RUN runs to merge. */
#define MIN_RUN 32

static int order_cmp(const struct extsort *s, uint32_t x, uint32_t y)
{
	return s->cmp(s->buf + (size_t)x * s->rec_size, s->buf + (size_t)y * s->rec_size);
}

/* order[lo..hi) in order, stably, given that order[lo..sorted) is. */
static void insertion_sort(const struct extsort *s, uint32_t *order, size_t lo, size_t sorted,
			   size_t hi)
{
	size_t i, j;

	for (i = sorted; i < hi; i++) {
		uint32_t v = order[i];
		for (j = i; j > lo && order_cmp(s, order[j - 1], v) > 0; j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
}

/* The first k in [lo, hi) whose record comes after v (after: strictly
 * greater; or, with ties_after, greater or equal), or hi: a[lo..hi) is in
 * order. */
static size_t first_after(const struct extsort *s, const uint32_t *a, size_t lo, size_t hi,
			  uint32_t v, int ties_after)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = order_cmp(s, a[mid], v);
		if (r > 0 || (r == 0 && ties_after))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* a[lo..mid) and a[mid..hi), each in order, merged into b[lo..hi), ties
 * from the left (the earlier records).  What of the left comes before all
 * of the right, and what of the right after all of the left, is found by
 * binary search and copied: nearly sorted records merge at memory speed. */
static void merge(const struct extsort *s, const uint32_t *a, uint32_t *b, size_t lo,
		  size_t mid, size_t hi)
{
	size_t i, j, k, tail;

	if (mid == hi || order_cmp(s, a[mid - 1], a[mid]) <= 0) {
		memcpy(b + lo, a + lo, (hi - lo) * sizeof *a);
		return;
	}
	i = first_after(s, a, lo, mid, a[mid], 0);
	tail = first_after(s, a, mid, hi, a[mid - 1], 1);
	memcpy(b + lo, a + lo, (i - lo) * sizeof *a);
	memcpy(b + tail, a + tail, (hi - tail) * sizeof *a);
	j = mid;
	k = i;
	while (i < mid && j < tail)
		b[k++] = order_cmp(s, a[j], a[i]) < 0 ? a[j++] : a[i++];
	while (i < mid)
		b[k++] = a[i++];
	while (j < tail)
		b[k++] = a[j++];
}

/* The run's order, stably (equal records keep the order they were put
 * in): a merge sort of the runs already in the records, so that records
 * put nearly in order (tr-compact's lanes and bindings, by source index)
 * cost little more than a pass.  0, or -1 (ENOMEM). */
static int sort_run(struct extsort *s)
{
	size_t n = s->n, i, nb = 0, lo = 0;
	uint32_t *tmp, *src, *dst;
	size_t *bounds;

	if (s->cmp == NULL || n == 0)
		return 0;
	for (i = 0; i < n; i++)
		s->order[i] = (uint32_t)i;
	tmp = malloc(n * sizeof *tmp);
	bounds = malloc((n / MIN_RUN + 2) * sizeof *bounds);
	if (tmp == NULL || bounds == NULL) {
		free(tmp);
		free(bounds);
		errno = ENOMEM;
		return -1;
	}
	/* every run but the last holds at least MIN_RUN records */
	while (lo < n) {
		size_t hi = lo + 1;
		while (hi < n && order_cmp(s, (uint32_t)(hi - 1), (uint32_t)hi) <= 0)
			hi++;
		if (hi - lo < MIN_RUN) {
			size_t end = n - lo < MIN_RUN ? n : lo + MIN_RUN;
			insertion_sort(s, s->order, lo, hi, end);
			hi = end;
		}
		bounds[nb++] = lo;
		lo = hi;
	}
	bounds[nb] = n;
	src = s->order;
	dst = tmp;
	while (nb > 1) {
		size_t r, w = 0;
		uint32_t *t;
		for (r = 0; r + 1 < nb; r += 2) {
			merge(s, src, dst, bounds[r], bounds[r + 1], bounds[r + 2]);
			bounds[w++] = bounds[r];
		}
		if (r < nb) {
			memcpy(dst + bounds[r], src + bounds[r], (n - bounds[r]) * sizeof *src);
			bounds[w++] = bounds[r];
		}
		bounds[w] = n;
		nb = w;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != s->order)
		memcpy(s->order, src, n * sizeof *src);
	free(tmp);
	free(bounds);
	return 0;
}

static const char *run_record(const struct extsort *s, size_t k)
{
	size_t at = s->cmp != NULL ? s->order[k] : k;

	return s->buf + at * s->rec_size;
}

/* The run in memory, sorted, appended to the file as one run. */
static int spill_run(struct extsort *s)
{
	char stage[WRITE_STAGE];
	size_t per = sizeof stage / s->rec_size, k = 0;
	struct extsort_run *run;

	if (!s->has_file) {
		const char *dir;
		if ((s->fd = io_open_spill(s->prefix, &dir)) < 0)
			return -1;
		s->has_file = 1;
	}
	if (s->nruns == s->runs_cap) {
		size_t cap = s->runs_cap ? s->runs_cap * 2 : 16;
		struct extsort_run *p = realloc(s->runs, cap * sizeof *p);
		if (p == NULL) {
			errno = ENOMEM;
			return -1;
		}
		s->runs = p;
		s->runs_cap = cap;
	}
	if (sort_run(s) != 0)
		return -1;
	while (k < s->n) {
		size_t m = 0;
		if (per == 0) { /* a record larger than the stage: write it alone */
			if (io_write_all(s->fd, run_record(s, k), s->rec_size) != 0)
				return -1;
			k++;
			continue;
		}
		for (; m < per && k < s->n; m++, k++)
			memcpy(stage + m * s->rec_size, run_record(s, k), s->rec_size);
		if (io_write_all(s->fd, stage, m * s->rec_size) != 0)
			return -1;
	}
	run = &s->runs[s->nruns++];
	s->nspilled++;
	run->offset = s->file_records;
	run->count = s->n;
	s->file_records += s->n;
	s->n = 0;
	return 0;
}

int extsort_put(struct extsort *s, const void *rec)
{
	if (run_room(s) != 0)
		return -1;
	if (s->n == s->cap && spill_run(s) != 0)
		return -1;
	memcpy(s->buf + s->n * s->rec_size, rec, s->rec_size);
	s->n++;
	s->count++;
	return 0;
}

/* Heap order of cursors a and b: their current records, then their runs. */
static int cursor_less(const struct extsort *s, uint32_t a, uint32_t b)
{
	const struct extsort_cursor *x = &s->cur[a], *y = &s->cur[b];

	if (s->cmp != NULL) {
		int r = s->cmp(x->buf + x->pos * s->rec_size, y->buf + y->pos * s->rec_size);
		if (r != 0)
			return r < 0;
	}
	return x->run < y->run;
}

static void sift_down(struct extsort *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint32_t t;
		if (l < s->nheap && cursor_less(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < s->nheap && cursor_less(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			return;
		t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* Read the cursor's next records: 1, 0 when its run is done, -1. */
static int refill(struct extsort *s, struct extsort_cursor *c)
{
	const struct extsort_run *run = &s->runs[c->run];
	size_t per = EXTSORT_READ / s->rec_size, want, got = 0;
	uint64_t left = run->count - c->next;
	off_t at;

	if (per == 0)
		per = 1;
	if (left == 0)
		return 0;
	want = (size_t)(left < per ? left : per) * s->rec_size;
	at = (off_t)((run->offset + c->next) * s->rec_size);
	while (got < want) {
		ssize_t n = pread(s->fd, c->buf + got, want - got, at + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		got += (size_t)n;
	}
	c->pos = 0;
	c->end = want / s->rec_size;
	c->next += c->end;
	return 1;
}

/* Cursors on runs[0..k), in a heap. */
static int merge_open(struct extsort *s, size_t k)
{
	size_t per = EXTSORT_READ / s->rec_size, i;

	if (per == 0)
		per = 1;
	s->nheap = 0;
	for (i = 0; i < k; i++) {
		struct extsort_cursor *c = &s->cur[i];
		int rc;
		memset(c, 0, sizeof *c);
		c->buf = s->space + i * per * s->rec_size;
		c->run = (uint32_t)i;
		if ((rc = refill(s, c)) < 0)
			return -1;
		if (rc > 0)
			s->heap[s->nheap++] = (uint32_t)i;
	}
	for (i = s->nheap; i-- > 0;)
		sift_down(s, i);
	return 0;
}

static int merge_pop(struct extsort *s, const void **rec)
{
	struct extsort_cursor *c;
	int rc;

	if (s->nheap == 0)
		return 0;
	c = &s->cur[s->heap[0]];
	memcpy(s->last, c->buf + c->pos * s->rec_size, s->rec_size);
	*rec = s->last;
	if (++c->pos == c->end) {
		if ((rc = refill(s, c)) < 0)
			return -1;
		if (rc == 0) {
			s->heap[0] = s->heap[--s->nheap];
			sift_down(s, 0);
			return 1;
		}
	}
	/* without a comparison the earliest run stays first until it ends */
	if (s->cmp != NULL)
		sift_down(s, 0);
	return 1;
}

/* The first EXTSORT_FANIN runs become one, written at the file's end:
 * the merge then never holds more than EXTSORT_FANIN cursors. */
static int merge_first_runs(struct extsort *s)
{
	char stage[WRITE_STAGE];
	size_t per = sizeof stage / s->rec_size, m = 0;
	struct extsort_run run = { s->file_records, 0 };
	const void *p;
	int got;

	if (merge_open(s, EXTSORT_FANIN) != 0)
		return -1;
	while ((got = merge_pop(s, &p)) == 1) {
		if (per == 0) {
			if (io_write_all(s->fd, p, s->rec_size) != 0)
				return -1;
		} else {
			memcpy(stage + m * s->rec_size, p, s->rec_size);
			if (++m == per) {
				if (io_write_all(s->fd, stage, m * s->rec_size) != 0)
					return -1;
				m = 0;
			}
		}
		run.count++;
	}
	if (got < 0 || (m > 0 && io_write_all(s->fd, stage, m * s->rec_size) != 0))
		return -1;
	s->file_records += run.count;
	s->runs[0] = run;
	memmove(s->runs + 1, s->runs + EXTSORT_FANIN,
		(s->nruns - EXTSORT_FANIN) * sizeof *s->runs);
	s->nruns -= EXTSORT_FANIN - 1;
	return 0;
}

int extsort_finish(struct extsort *s)
{
	size_t per, k;

	s->reading = 1;
	s->mem_next = 0;
	if (s->nruns == 0)
		return sort_run(s);
	if (s->n > 0 && spill_run(s) != 0)
		return -1;
	free(s->buf);
	free(s->order);
	s->buf = NULL;
	s->order = NULL;
	per = EXTSORT_READ / s->rec_size;
	if (per == 0)
		per = 1;
	k = s->nruns < EXTSORT_FANIN ? s->nruns : EXTSORT_FANIN;
	s->cur = calloc(k, sizeof *s->cur);
	s->heap = malloc(k * sizeof *s->heap);
	s->space = malloc(k * per * s->rec_size);
	s->last = malloc(s->rec_size);
	if (s->cur == NULL || s->heap == NULL || s->space == NULL || s->last == NULL) {
		errno = ENOMEM;
		return -1;
	}
	while (s->nruns > EXTSORT_FANIN)
		if (merge_first_runs(s) != 0)
			return -1;
	return merge_open(s, s->nruns);
}

int extsort_next(struct extsort *s, const void **rec)
{
	if (s->nruns == 0) {
		if (s->mem_next >= s->n)
			return 0;
		*rec = run_record(s, s->mem_next++);
		return 1;
	}
	return merge_pop(s, rec);
}

void extsort_free(struct extsort *s)
{
	if (s->has_file)
		close(s->fd);
	free(s->buf);
	free(s->order);
	free(s->runs);
	free(s->cur);
	free(s->heap);
	free(s->space);
	free(s->last);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}
