#include <stdlib.h>
#include <string.h>

#include "core/intern.h"

static uint64_t hash(const char *key, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static size_t slot_of(const struct intern *t, const char *key, size_t len)
{
	size_t mask = t->nslots - 1, i = (size_t)hash(key, len) & mask;

	while (t->slots[i] != 0) {
		uint32_t id = t->slots[i] - 1;
		if (t->lens[id] == len && memcmp(t->keys[id], key, len) == 0)
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

int64_t intern_find(const struct intern *t, const char *key, size_t len)
{
	size_t i;

	if (t->nslots == 0)
		return -1;
	i = slot_of(t, key, len);
	return t->slots[i] ? (int64_t)t->slots[i] - 1 : -1;
}

static int rehash(struct intern *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 64, k;
	uint32_t *old = t->slots;
	size_t oldn = t->nslots;

	t->slots = calloc(n, sizeof *t->slots);
	if (t->slots == NULL) {
		t->slots = old;
		return -1;
	}
	t->nslots = n;
	for (k = 0; k < oldn; k++)
		if (old[k] != 0) {
			uint32_t id = old[k] - 1;
			t->slots[slot_of(t, t->keys[id], t->lens[id])] = old[k];
		}
	free(old);
	return 0;
}

int64_t intern_id(struct intern *t, const char *key, size_t len)
{
	size_t i;
	char *copy;

	if ((size_t)t->n * 2 >= t->nslots && rehash(t) != 0)
		return -1;
	i = slot_of(t, key, len);
	if (t->slots[i] != 0)
		return (int64_t)t->slots[i] - 1;
	if (t->n == t->cap) {
		uint32_t cap;
		if (t->cap > UINT32_MAX / 2)  /* ids are 32-bit */
			return -1;
		cap = t->cap ? t->cap * 2 : 64;
		char **keys = realloc(t->keys, cap * sizeof *keys);
		size_t *lens;
		if (keys == NULL)
			return -1;
		t->keys = keys;
		lens = realloc(t->lens, cap * sizeof *lens);
		if (lens == NULL)
			return -1;
		t->lens = lens;
		t->cap = cap;
	}
	copy = malloc(len + 1);
	if (copy == NULL)
		return -1;
	memcpy(copy, key, len);
	copy[len] = '\0';
	t->keys[t->n] = copy;
	t->lens[t->n] = len;
	t->slots[i] = ++t->n;
	return (int64_t)t->n - 1;
}

void intern_free(struct intern *t)
{
	uint32_t k;

	for (k = 0; k < t->n; k++)
		free(t->keys[k]);
	free(t->keys);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof *t);
}
