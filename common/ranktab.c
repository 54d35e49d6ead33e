/* ranktab: see ranktab.h. */
#include <errno.h>
#include <stdlib.h>

#include "ranktab.h"

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
