/* regex: Python-style regular expressions through PCRE2, matched like
 * Python's re.search: anywhere in the subject unless the pattern anchors
 * itself.  Subjects are UTF-8 (invalid sequences never match a character
 * but do not make the match fail).
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_REGEX_H
#define TR_REGEX_H

#include <stddef.h>

struct regex;

/* NULL on a bad pattern, with the message and offset in err. */
struct regex *regex_compile(const char *pattern, char *err, size_t errsz);
/* 1 match, 0 no match, -1 matching failed (e.g. a resource limit). */
int regex_search(const struct regex *re, const char *subject, size_t len);
void regex_free(struct regex *re);

#endif
