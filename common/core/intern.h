/* intern: give each distinct byte string a small dense id (0, 1, 2, ...),
 * e.g. the raw text of a (pid, tid) pair.  Open addressing with FNV-1a;
 * the table doubles when half full.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_INTERN_H
#define TR_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
	uint32_t *slots;   /* id + 1, or 0 for empty */
	size_t nslots;
	char **keys;       /* keys[id]: a NUL-terminated copy of the key */
	size_t *lens;
	uint32_t n, cap;
};

/* The id of key, adding it if new; -1 when memory runs out. */
int64_t intern_id(struct intern *t, const char *key, size_t len);
/* The id of key, or -1 when it was never added. */
int64_t intern_find(const struct intern *t, const char *key, size_t len);
void intern_free(struct intern *t);

#endif
