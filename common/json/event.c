/* memmem(3) is a GNU extension; only this file asks for it. */
#define _GNU_SOURCE
#include <string.h>

#include "json/event.h"

/* Index just past the string starting at line[i] == '"', or len.  Up to
 * the first backslash, the first quote ends it; after one, a quote ends it
 * when an even number of backslashes stands before it.  Kernel names run
 * to kilobytes: after a backslash, jump from quote to quote with memchr. */
static inline size_t skip_string(const char *line, size_t len, size_t i)
{
	i = event_find_either(line, len, i + 1, '"', '\\');
	if (i < len && line[i] == '"')
		return i + 1;
	while (i < len) {
		const char *q = memchr(line + i, '"', len - i);
		size_t at, backslashes = 0;
		if (q == NULL)
			return len;
		at = (size_t)(q - line);
		while (line[at - backslashes - 1] == '\\')
			backslashes++;
		if (backslashes % 2 == 0)
			return at + 1;
		i = at + 1;
	}
	return len;
}

/* Index just past the value starting at line[i] (no whitespace inside the
 * minified line), or len. */
static inline size_t skip_value(const char *line, size_t len, size_t i)
{
	size_t depth = 0;

	/* most values are a string or a number: no bracket to count */
	if (i < len && line[i] == '"')
		return skip_string(line, len, i);
	while ((i = event_next_stop(line, len, i)) < len) {
		char c = line[i];
		if (c == '"') {
			i = skip_string(line, len, i);
			if (depth == 0)
				return i;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0) {
			return i;  /* the comma after a number or a literal */
		}
		i++;
	}
	return len;
}

size_t event_skip_string(const char *line, size_t len, size_t i)
{
	return skip_string(line, len, i);
}

size_t event_skip_value(const char *line, size_t len, size_t i)
{
	return skip_value(line, len, i);
}

/* 1 when the member name name[0..n) is key: compared byte by byte up to
 * key's NUL, so no strlen per line and no read past key's end even when
 * the name holds a NUL byte. */
static inline int name_is(const char *name, size_t n, const char *key)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (key[j] == '\0' || key[j] != name[j])
			return 0;
	return key[n] == '\0';
}

int event_member(const char *line, size_t len, const char *key,
		 const char **value, size_t *vlen)
{
	size_t i = 1;

	if (len < 2 || line[0] != '{')
		return 0;
	while (i < len && line[i] == '"') {
		size_t kend = skip_string(line, len, i), vstart, vend;
		if (kend >= len || line[kend] != ':')
			return 0;
		vstart = kend + 1;
		vend = skip_value(line, len, vstart);
		if (name_is(line + i + 1, kend - i - 2, key)) {
			*value = line + vstart;
			*vlen = vend - vstart;
			return vend > vstart;
		}
		if (vend >= len || line[vend] != ',')
			return 0;
		i = vend + 1;
	}
	return 0;
}

/* The keys still wanted are the set bits of a mask, looked at lowest index
 * first: keys found earlier cost nothing, and callers that list their keys
 * in the order profilers write the members meet the member's own key
 * first.  Of two equal keys the first takes the first member of that name,
 * as a loop over the keys would. */
int event_members(const char *line, size_t len, const char *const *keys, int nkeys,
		  struct member *out)
{
	size_t i = 1;
	unsigned want = 0;
	int k, found = 0;

	if (nkeys > 16)
		nkeys = 16;
	for (k = 0; k < nkeys; k++) {
		out[k].p = NULL;
		out[k].len = 0;
		want |= 1u << k;
	}
	if (len < 2 || line[0] != '{')
		return 0;
	while (i < len && line[i] == '"' && want != 0) {
		size_t kend = skip_string(line, len, i), vstart, vend, n;
		const char *name = line + i + 1;
		char first;
		if (kend >= len || line[kend] != ':')
			return found;
		vstart = kend + 1;
		vend = skip_value(line, len, vstart);
		n = kend - i - 2;
		/* the first byte tells most keys apart: a name of n bytes
		 * starts with name[0], an empty one ends at once.  A name
		 * starting with a NUL byte is no key's (a key starting with
		 * NUL is the empty one) and is passed over, so that past a
		 * matching first byte the compare starts at the second
		 * byte of a key of at least one byte. */
		first = n ? name[0] : '\0';
		if (vend > vstart && (n == 0 || first != '\0')) {
			unsigned cand;
			for (cand = want; cand != 0; cand &= cand - 1) {
				const char *key = keys[__builtin_ctz(cand)];
				if (key[0] == first && (n == 0 || name_is(name + 1, n - 1, key + 1))) {
					k = __builtin_ctz(cand);
					out[k].p = line + vstart;
					out[k].len = vend - vstart;
					want &= ~(1u << k);
					found++;
					break;
				}
			}
		}
		if (vend >= len || line[vend] != ',')
			return found;
		i = vend + 1;
	}
	return found;
}

int event_category_has(const char *cats, size_t n, const char *want)
{
	size_t w = strlen(want), i = 0;

	for (;;) {
		const char *comma = memchr(cats + i, ',', n - i);
		size_t end = comma ? (size_t)(comma - cats) : n;
		if (end - i == w && memcmp(cats + i, want, w) == 0)
			return 1;
		if (comma == NULL)
			return 0;
		i = end + 1;
	}
}

int event_raw_matches_arg(const char *raw, size_t n, const char *arg)
{
	size_t a = strlen(arg);

	if (n == a && memcmp(raw, arg, a) == 0)
		return 1;
	return n == a + 2 && raw[0] == '"' && raw[n - 1] == '"' && memcmp(raw + 1, arg, a) == 0;
}

void event_edit_order(const size_t at[3], unsigned order[3])
{
	unsigned k, j, t;

	for (k = 0; k < 3; k++)
		order[k] = k;
	for (k = 0; k < 3; k++)
		for (j = k + 1; j < 3; j++)
			if (at[order[j]] < at[order[k]]) {
				t = order[k];
				order[k] = order[j];
				order[j] = t;
			}
}

const char *event_memmem(const char *hay, size_t n, const char *needle, size_t m)
{
	return memmem(hay, n, needle, m);
}
