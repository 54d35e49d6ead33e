/* Seeded mutations of a text, shared by the unit tests that compare a fast
 * path with its reference over damaged inputs (check_decode, check_encode,
 * check_scan) and by those that only need the generator (check_event).
 * Deterministic across runs.  Included by test programs only. */
#ifndef TR_MUTATE_H
#define TR_MUTATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* xorshift32 */
static inline uint32_t next_rand(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* One to three edits of data[0..len) in place, each replacing a byte,
 * deleting one or inserting one (while len < cap) drawn from alphabet[0..n):
 * the new length. */
static inline size_t mutate_text(char *data, size_t len, size_t cap, const char *alphabet, size_t n,
				 uint32_t *rng)
{
	size_t edits = 1 + next_rand(rng) % 3, k;

	for (k = 0; k < edits && len > 0; k++) {
		size_t at = next_rand(rng) % len;
		char c = alphabet[next_rand(rng) % n];
		switch (next_rand(rng) % 3) {
		case 0: /* replace */
			data[at] = c;
			break;
		case 1: /* delete */
			memmove(data + at, data + at + 1, len - at - 1);
			len--;
			break;
		default: /* insert */
			if (len < cap) {
				memmove(data + at + 1, data + at, len - at);
				data[at] = c;
				len++;
			}
		}
	}
	return len;
}

#endif
