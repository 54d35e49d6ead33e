#include <errno.h>
#include <stdlib.h>

#include "opt.h"

int opt_parse_i64(const char *text, int64_t min, int64_t max, int64_t *value)
{
	char *end;
	long long v;

	/* strtoll would skip any leading white space and accept a '+' */
	if (*text != '-' && (*text < '0' || *text > '9'))
		return -1;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*value = v;
	return 0;
}

int opt_parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *value)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (*text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno != 0)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	default: return -1;
	}
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return -1;
	v <<= shift;
	if (v < min || v > max)
		return -1;
	*value = v;
	return 0;
}
