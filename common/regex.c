#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>

#include "regex.h"

struct regex {
	pcre2_code *code;
	pcre2_match_data *match;
};

struct regex *regex_compile(const char *pattern, char *err, size_t errsz)
{
	struct regex *re = calloc(1, sizeof *re);
	int errcode;
	PCRE2_SIZE erroffset;

	if (re == NULL) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	/* UCP: \w, \d and \b follow Unicode as in Python 3's str patterns. */
	re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
				 PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
				 &errcode, &erroffset, NULL);
	if (re->code == NULL) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(errcode, msg, sizeof msg);
		snprintf(err, errsz, "at offset %zu: %s", (size_t)erroffset, (char *)msg);
		free(re);
		return NULL;
	}
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
