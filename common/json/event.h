/* event: quick access to the top-level members of an event line without
 * tokenizing the whole line.  Stages that look at one or two members of
 * every event (ts, pid, tid) use this; anything more goes through json.h.
 * The line must be one JSON object as written by tr-decode; on anything
 * else the functions return "not found", never read out of bounds.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_EVENT_H
#define TR_EVENT_H

#include <stddef.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Find top-level member key (compared with the raw name bytes, which for
 * the Chrome keys ts, pid, tid, ph, cat and name never hold escapes).
 * On success value and vlen hold the raw value text (strings with their
 * quotes). */
int event_member(const char *line, size_t len, const char *key,
		 const char **value, size_t *vlen);

/* A member's raw value text; len 0 when the member is absent. */
struct member {
	const char *p;
	size_t len;
};

/* Several members in one walk over the line: out[i] for keys[i] (at most
 * 16 keys).  Stops early once every key was found.  Returns how many were
 * found.  Each key is compared with raw name bytes, as in event_member. */
int event_members(const char *line, size_t len, const char *const *keys, int nkeys,
		  struct member *out);

/* 1 when the comma-separated category list cats[0..n) holds want, e.g.
 * "kernel" in "kernel,cuda". */
/* Index just past the string starting at line[i] == '"', or len; just past
 * the value starting at line[i] of a minified line, or len. */
size_t event_skip_string(const char *line, size_t len, size_t i);
size_t event_skip_value(const char *line, size_t len, size_t i);

int event_category_has(const char *cats, size_t n, const char *want);

/* 1 when a raw JSON value (pid, tid, args.device) is what a user wrote on
 * the command line: --pid 0 matches the number 0, --pid Spans the string
 * "Spans". */
int event_raw_matches_arg(const char *raw, size_t n, const char *arg);

/* The first index at or after i where line holds a or b, or len.  On
 * x86-64 sixteen bytes at a time (SSE2 is part of its baseline), the bytes
 * short of a whole block one by one.  Inline, in the header: the member
 * walks (here and in window.c) run it on every key and value of every
 * event, and a call per string costs as much as the scan. */
static inline size_t event_find_either(const char *line, size_t len, size_t i, char a, char b)
{
#ifdef __SSE2__
	const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);

	while (len - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(line + i));
		int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, va),
							  _mm_cmpeq_epi8(v, vb)));
		if (mask != 0)
			return i + (size_t)__builtin_ctz((unsigned)mask);
		i += 16;
	}
#endif
	while (i < len && line[i] != a && line[i] != b)
		i++;
	return i;
}

/* The first index at or after i whose byte can end or nest a value (a
 * quote, a comma, a bracket), or len: where the value walks stop and look.
 * Every other byte (digits, letters, the bulk of a number or a literal) is
 * passed over sixteen at a time on x86-64. */
static inline size_t event_next_stop(const char *line, size_t len, size_t i)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), comma = _mm_set1_epi8(',');
	const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
	const __m128i open_sq = _mm_set1_epi8('['), close_sq = _mm_set1_epi8(']');

	while (len - i >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(line + i));
		__m128i hit = _mm_or_si128(
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, comma)),
				     _mm_or_si128(_mm_cmpeq_epi8(v, open), _mm_cmpeq_epi8(v, close))),
			_mm_or_si128(_mm_cmpeq_epi8(v, open_sq), _mm_cmpeq_epi8(v, close_sq)));
		int mask = _mm_movemask_epi8(hit);
		if (mask != 0)
			return i + (size_t)__builtin_ctz((unsigned)mask);
		i += 16;
	}
#endif
	while (i < len && line[i] != '"' && line[i] != ',' && line[i] != '{' && line[i] != '}' &&
	       line[i] != '[' && line[i] != ']')
		i++;
	return i;
}

/* event_skip_string, inline for the walks that run over every member: a
 * string without a backslash ends at its next quote, found here; one with
 * a backslash is event_skip_string's. */
static inline size_t event_string_end(const char *line, size_t len, size_t i)
{
	size_t j = event_find_either(line, len, i + 1, '"', '\\');

	if (j < len && line[j] == '"')
		return j + 1;
	return event_skip_string(line, len, i);
}

/* The order in which to apply three edits of one line, by their offsets
 * at[0..2]: order[0..2] are their indices, the lowest offset first. */
void event_edit_order(const size_t at[3], unsigned order[3]);

/* memmem(3), which needs _GNU_SOURCE: wrapped so that only event.c asks
 * for it. */
const char *event_memmem(const char *hay, size_t n, const char *needle, size_t m);

/* Where needle[0..m) first stands in hay[0..n), or NULL.  On x86-64 the
 * places where the needle's first and last bytes stand are found sixteen
 * at a time and only those compared whole: two bytes that far apart rule
 * out almost every place in an event (tr-compact and tr-verify look for
 * "_compact_gpu_track" in every event).  Inline, in the header: with the
 * needle a constant, the compiler fixes its length and its compare.
 * Elsewhere, and for a haystack shorter than the needle and a block,
 * memmem. */
static inline const char *event_find_bytes(const char *hay, size_t n, const char *needle,
					   size_t m)
{
#ifdef __SSE2__
	if (m >= 2 && n >= m + 15) {
		const __m128i first = _mm_set1_epi8(needle[0]), final = _mm_set1_epi8(needle[m - 1]);
		size_t i = 0, last = n - m;  /* the needle can start at 0 .. last */

		for (;;) {
			/* places i .. i + 15, reading hay up to i + 15 + m - 1 < n */
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(hay + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(hay + i + m - 1));
			unsigned mask = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, final)));
			while (mask != 0) {
				size_t at = i + (size_t)__builtin_ctz(mask);
				if (memcmp(hay + at + 1, needle + 1, m - 2) == 0)
					return hay + at;
				mask &= mask - 1;
			}
			/* the last block overlaps the one before: no place is
			 * looked at one by one */
			if (i == last - 15)
				return NULL;
			i = i + 16 <= last - 15 ? i + 16 : last - 15;
		}
	}
#endif
	return event_memmem(hay, n, needle, m);
}

#endif
