/* opt: command-line number parsing with full range checks (glibc has no
 * strtonum).  Library code: returns -1 and leaves the message to the caller. */
#ifndef TR_OPT_H
#define TR_OPT_H

#include <stdint.h>

/* Decimal integer in [min, max]; 0 or -1. */
int opt_parse_i64(const char *text, int64_t min, int64_t max, int64_t *value);
/* Byte count with an optional K, M or G suffix (powers of 1024). */
int opt_parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *value);

#endif
