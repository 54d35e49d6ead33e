#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/regex.h"

struct regex {
	pcre2_code *code;
	pcre2_match_data *match;
};

/* Python's \uXXXX and \UXXXXXXXX, which PCRE2 does not know, become its
 * \x{...}; everything else is copied (an escaped backslash as a pair, so
 * that "\\u0041" stays a backslash and "u0041").  \N{NAME} is refused:
 * PCRE2 has no Unicode name table.  map[i] is the pattern offset of output
 * byte i (and map[len] the pattern's length), for PCRE2's error offsets.
 * Returns the output (malloc'd) or NULL with err set. */
static char *translate(const char *pattern, size_t **map, char *err, size_t errsz)
{
	size_t len = strlen(pattern), i = 0, o = 0;
	/* the longest growth is \uXXXX (6 bytes) -> \x{XXXX} (8 bytes) */
	char *out = malloc(2 * len + 1);
	size_t *at = malloc((2 * len + 1) * sizeof *at);

	if (out == NULL || at == NULL) {
		free(out);
		free(at);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	while (i < len) {
		char next = pattern[i] == '\\' ? pattern[i + 1] : '\0';
		if (next == 'u' || next == 'U') {
			size_t digits = next == 'u' ? 4 : 8, k;
			unsigned long value = 0;
			for (k = 0; k < digits; k++) {
				int h = json_hex_digit((unsigned char)pattern[i + 2 + k]);
				if (h < 0)
					break;
				value = value * 16 + (unsigned long)h;
			}
			if (k < digits) {
				snprintf(err, errsz, "at offset %zu: incomplete escape \\%c (Python's "
					 "\\%c takes exactly %zu hex digits)", i, next, next, digits);
				goto fail;
			}
			if (value > 0x10FFFF) {
				snprintf(err, errsz, "at offset %zu: bad escape \\U%.8s (beyond "
					 "U+10FFFF)", i, pattern + i + 2);
				goto fail;
			}
			memcpy(out + o, "\\x{", 3);
			memcpy(out + o + 3, pattern + i + 2, digits);
			out[o + 3 + digits] = '}';
			for (k = 0; k < digits + 4; k++)
				at[o + k] = i;
			o += digits + 4;
			i += digits + 2;
			continue;
		}
		if (next == 'N') {
			snprintf(err, errsz, "at offset %zu: \\N{...} (a character by its Unicode "
				 "name) is not supported, PCRE2 has no name table: write the code "
				 "point as \\x{...}, e.g. \\x{e9} for \\N{LATIN SMALL LETTER E WITH "
				 "ACUTE}", i);
			goto fail;
		}
		at[o] = i;
		out[o++] = pattern[i++];
		if (next != '\0') {
			at[o] = i;
			out[o++] = pattern[i++];
		}
	}
	out[o] = '\0';
	at[o] = len;
	*map = at;
	return out;
fail:
	free(out);
	free(at);
	return NULL;
}

struct regex *regex_compile(const char *pattern, char *err, size_t errsz)
{
	struct regex *re = calloc(1, sizeof *re);
	int errcode;
	PCRE2_SIZE erroffset;
	size_t *map = NULL;
	char *translated;

	if (re == NULL) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	if ((translated = translate(pattern, &map, err, errsz)) == NULL) {
		free(re);
		return NULL;
	}
	/* UCP: \w, \d and \b follow Unicode as in Python 3's str patterns. */
	re->code = pcre2_compile((PCRE2_SPTR)translated, PCRE2_ZERO_TERMINATED,
				 PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
				 &errcode, &erroffset, NULL);
	if (re->code == NULL) {
		PCRE2_UCHAR msg[160];
		size_t tlen = strlen(translated);
		pcre2_get_error_message(errcode, msg, sizeof msg);
		snprintf(err, errsz, "at offset %zu: %s", map[erroffset <= tlen ? erroffset : tlen],
			 (char *)msg);
		free(translated);
		free(map);
		free(re);
		return NULL;
	}
	free(translated);
	free(map);
	re->match = pcre2_match_data_create_from_pattern(re->code, NULL);
	if (re->match == NULL) {
		pcre2_code_free(re->code);
		free(re);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	(void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE); /* optional speed-up */
	return re;
}

int regex_search(const struct regex *re, const char *subject, size_t len)
{
	int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, 0, 0, re->match, NULL);

	if (rc >= 0)
		return 1;
	return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

void regex_free(struct regex *re)
{
	if (re == NULL)
		return;
	pcre2_match_data_free(re->match);
	pcre2_code_free(re->code);
	free(re);
}
