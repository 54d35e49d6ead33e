#include <string.h>

#include "tsnum.h"
#include "window.h"

#define HALF_MAX (INT64_MAX / 2)

int window_parse_dur(const char *text, int64_t default_unit_ns, int64_t *ns)
{
	static const struct { const char *name; int64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }
	};
	const char *p = text;
	int64_t whole = 0, frac = 0, unit = default_unit_ns, scale;
	size_t nfrac = 0, k;
	int digits = 0;

	while (*p >= '0' && *p <= '9') {
		if (whole > ((int64_t)1 << 62) / 10)
			return -1;
		whole = whole * 10 + (*p++ - '0');
		digits++;
	}
	if (digits == 0)
		return -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9') {
			if (nfrac == 18)
				return -1;
			frac = frac * 10 + (*p++ - '0');
			nfrac++;
		}
	}
	if (*p != '\0') {
		for (k = 0; k < sizeof units / sizeof units[0]; k++)
			if (strcmp(p, units[k].name) == 0)
				break;
		if (k == sizeof units / sizeof units[0])
			return -1;
		unit = units[k].ns;
	}
	if (whole > ((int64_t)1 << 62) / unit)
		return -1;
	/* frac / 10^nfrac of a unit must be whole ns */
	scale = 1;
	for (k = 0; k < nfrac; k++)
		scale *= 10;
	{
		/* unit * frac / scale exactly: unit and scale are powers of ten */
		int64_t part;
		if (unit >= scale)
			part = frac * (unit / scale);
		else if (frac % (scale / unit) != 0)
			return -1;
		else
			part = frac / (scale / unit);
		*ns = whole * unit + part;
	}
	return *ns > ((int64_t)1 << 62) ? -1 : 0;
}

static int parse_nonneg(const char *p, size_t n, int64_t *v)
{
	return n > 0 && p[0] != '-' && num_parse_int64(p, n, v) == NUM_OK ? 0 : -1;
}

int window_parse_range(const char *text, int64_t *a, int64_t *b)
{
	const char *dash = strchr(text, '-');
	size_t n = strlen(text);

	if (dash == NULL) {
		if (parse_nonneg(text, n, a) != 0)
			return -1;
		*b = *a;
		return 0;
	}
	if (parse_nonneg(text, (size_t)(dash - text), a) != 0 ||
	    parse_nonneg(dash + 1, n - (size_t)(dash - text) - 1, b) != 0)
		return -1;
	return *a <= *b ? 0 : -1;
}

int64_t window_half(int64_t ns)
{
	if (ns > HALF_MAX)
		return INT64_MAX;
	if (ns < -HALF_MAX)
		return INT64_MIN;
	return 2 * ns;
}

static int number(const char *t, size_t n, int64_t *ns, int *sub)
{
	if (n >= 2 && t[0] == '"' && t[n - 1] == '"') {
		t++;
		n -= 2;
	}
	return num_us_to_ns(t, n, ns, sub) == NUM_OK && *ns < HALF_MAX && *ns > -HALF_MAX ? 0 : -1;
}

int window_interval(const char *ts, size_t tn, const char *dur, size_t dn,
		    int64_t *lo, int64_t *hi)
{
	int64_t t, d = 0;
	int ts_sub, dur_sub = 0;

	if (ts == NULL || tn == 0 || number(ts, tn, &t, &ts_sub) != 0)
		return -1;
	if (dur != NULL && dn > 0 && (number(dur, dn, &d, &dur_sub) != 0 || d < 0))
		return -1;
	*lo = 2 * t + ts_sub;
	if (t > HALF_MAX - d - 1)
		return -1;
	/* both fractions below the ns: the end lies in (t+d, t+d+2) ns; take
	 * the upper bound */
	*hi = ts_sub && dur_sub ? 2 * (t + d + 1) : 2 * (t + d) + ts_sub + dur_sub;
	return 0;
}

int window_overlaps(int64_t lo, int64_t hi, int64_t w0, int64_t w1)
{
	return lo <= w1 && hi >= w0;
}

int window_contains(int64_t lo, int64_t hi, int64_t w0, int64_t w1)
{
	return lo >= w0 && hi <= w1;
}

enum window_cat window_category(const char *ph, size_t n)
{
	if (n != 3 || ph[0] != '"' || ph[2] != '"')
		return WCAT_OTHER;
	switch (ph[1]) {
	case 'X': return WCAT_COMPLETE;
	case 'B': case 'E': return WCAT_DURATION;
	case 'i': case 'I': case 'R': return WCAT_INSTANT;
	case 'C': return WCAT_COUNTER;
	case 'M': return WCAT_METADATA;
	case 's': case 't': case 'f': return WCAT_FLOW;
	case 'b': case 'e': case 'n': case 'S': case 'T': case 'p': case 'F': return WCAT_ASYNC;
	default: return WCAT_OTHER;
	}
}

const char *window_category_name(enum window_cat c)
{
	static const char *const names[WCAT_N] = { "complete", "duration", "instant",
		"counter", "metadata", "flow", "async", "other" };
	return (unsigned)c < WCAT_N ? names[c] : "other";
}
