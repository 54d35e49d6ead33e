/* extsort: see extsort.h. */
/* qsort_r and pread */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "extsort.h"
#include "io.h"

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

/* Stable: positions break ties. */
static int cmp_pos(const void *a, const void *b, void *ctx)
{
	const struct extsort *s = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = s->cmp(s->buf + (size_t)x * s->rec_size, s->buf + (size_t)y * s->rec_size);

	if (r != 0)
		return r;
	return x < y ? -1 : x > y;
}

static void sort_run(struct extsort *s)
{
	size_t i;

	if (s->cmp == NULL || s->n == 0)
		return;
	for (i = 0; i < s->n; i++)
		s->order[i] = (uint32_t)i;
	qsort_r(s->order, s->n, sizeof *s->order, cmp_pos, s);
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
	sort_run(s);
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
		if (rc == 0)
			s->heap[0] = s->heap[--s->nheap];
	}
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
	if (s->nruns == 0) {
		sort_run(s);
		return 0;
	}
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

size_t extsort_runs(const struct extsort *s)
{
	return s->nspilled;
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
