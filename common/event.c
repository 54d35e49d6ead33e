/* memmem(3) is a GNU extension; only this file asks for it. */
#define _GNU_SOURCE
#include <string.h>

#include "event.h"

/* Index just past the string starting at line[i] == '"', or len.  Kernel
 * names run to kilobytes, so jump from quote to quote with memchr. */
size_t event_skip_string(const char *line, size_t len, size_t i)
{
	size_t stop = i + 17 < len ? i + 17 : len;

	/* most member names and values are short: look at them directly */
	for (i++; i < stop; i++) {
		if (line[i] == '\\')
			break;
		if (line[i] == '"')
			return i + 1;
	}
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
size_t event_skip_value(const char *line, size_t len, size_t i)
{
	size_t depth = 0;

	while (i < len) {
		char c = line[i];
		if (c == '"') {
			i = event_skip_string(line, len, i);
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
		} else if (depth == 0 && c == ',') {
			return i;
		}
		i++;
	}
	return len;
}

/* memcmp(a, b, n) == 0 for the short member names compared on every line,
 * without a library call each time. */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

int event_member(const char *line, size_t len, const char *key,
		 const char **value, size_t *vlen)
{
	size_t klen = strlen(key), i = 1;

	if (len < 2 || line[0] != '{')
		return 0;
	while (i < len && line[i] == '"') {
		size_t kend = event_skip_string(line, len, i), vstart, vend;
		if (kend >= len || line[kend] != ':')
			return 0;
		vstart = kend + 1;
		vend = event_skip_value(line, len, vstart);
		if (kend - i == klen + 2 && memcmp(line + i + 1, key, klen) == 0) {
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

int event_members(const char *line, size_t len, const char *const *keys, int nkeys,
		  struct member *out)
{
	size_t klen[16], i = 1;
	int k, found = 0;

	if (nkeys > 16)
		nkeys = 16;
	for (k = 0; k < nkeys; k++) {
		klen[k] = strlen(keys[k]);
		out[k].p = NULL;
		out[k].len = 0;
	}
	if (len < 2 || line[0] != '{')
		return 0;
	while (i < len && line[i] == '"' && found < nkeys) {
		size_t kend = event_skip_string(line, len, i), vstart, vend, n;
		if (kend >= len || line[kend] != ':')
			return found;
		vstart = kend + 1;
		vend = event_skip_value(line, len, vstart);
		n = kend - i - 2;
		for (k = 0; k < nkeys; k++)
			if (out[k].p == NULL && n == klen[k] && same_bytes(line + i + 1, keys[k], n) &&
			    vend > vstart) {
				out[k].p = line + vstart;
				out[k].len = vend - vstart;
				found++;
				break;
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

const char *event_find_bytes(const char *hay, size_t n, const char *needle, size_t m)
{
	return memmem(hay, n, needle, m);
}
