#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/diag.h"
#include "core/opt.h"

int opt_next(const struct opt_program *p, int argc, char *const argv[])
{
	opterr = 0;
	return getopt_long(argc, argv, p->shortopts, p->longopts, NULL);
}

int opt_help(const struct opt_program *p, FILE *out, FILE *err)
{
	if (fputs(p->usage, out) >= 0 && fflush(out) == 0 && !ferror(out))
		return EXIT_OK;
	/* a reader that went away has heard enough: no message, as on SIGPIPE */
	if (errno != EPIPE)
		fprintf(err, "%s: standard output: %s\n", p->name, strerror(errno));
	return EXIT_TROUBLE;
}

static int end_with_usage(const struct opt_program *p, FILE *err)
{
	fputs(p->usage, err);
	return EXIT_TROUBLE;
}

/* Whether `arg` (--NAME or --NAME=VALUE) abbreviates long options that
 * getopt_long tells apart (it takes an abbreviation of several entries that
 * all do the same); with `err`, also writes them there as " '--a' '--b'". */
static int ambiguous(const struct opt_program *p, const char *arg, FILE *err)
{
	const struct option *o, *first = NULL;
	size_t len = strcspn(arg + 2, "=");
	int differ = 0;

	if (len == 0)  /* "--=x" names no option */
		return 0;
	for (o = p->longopts; o->name != NULL; o++) {
		if (strncmp(o->name, arg + 2, len) != 0)
			continue;
		if (first == NULL)
			first = o;
		else if (o->has_arg != first->has_arg || o->flag != first->flag ||
			 o->val != first->val)
			differ = 1;
	}
	if (differ && err != NULL)
		for (o = p->longopts; o->name != NULL; o++)
			if (strncmp(o->name, arg + 2, len) == 0)
				fprintf(err, " '--%s'", o->name);
	return differ;
}

/* The name of the long option that getopt_long took `arg` (--NAME or
 * --NAME=VALUE, NAME perhaps abbreviated) for: the entry with its value
 * `val`, an exact name first; the text as written when none is found. */
static void write_long_name(const struct opt_program *p, FILE *err, const char *arg, int val)
{
	const struct option *o, *found = NULL;
	size_t len = strcspn(arg + 2, "=");

	for (o = p->longopts; o->name != NULL; o++)
		if (o->val == val && strncmp(o->name, arg + 2, len) == 0 &&
		    (found == NULL || strlen(o->name) == len))
			found = o;
	if (found != NULL)
		fprintf(err, "--%s", found->name);
	else
		fprintf(err, "%.*s", (int)(len + 2), arg);
}

int opt_fail(const struct opt_program *p, FILE *err, int ch, char *const argv[])
{
	const char *arg = argv[optind - 1];
	int is_long = strncmp(arg, "--", 2) == 0;

	if (is_long && optopt != 0) {
		/* named in full, as the commands of tr-common.sh name it */
		fprintf(err, "%s: option '", p->name);
		write_long_name(p, err, arg, optopt);
		fputs(ch == ':' ? "' requires an argument\n" : "' takes no argument\n", err);
	} else if (ch == ':') {
		fprintf(err, "%s: option '-%c' requires an argument\n", p->name, optopt);
	} else if (is_long && ambiguous(p, arg, NULL)) {
		/* unknown and ambiguous both come back as '?' with optopt 0 */
		fprintf(err, "%s: option '%.*s' is ambiguous; possibilities:", p->name,
			(int)strcspn(arg, "="), arg);
		ambiguous(p, arg, err);
		fputc('\n', err);
	} else if (is_long || optopt == 0) {
		fprintf(err, "%s: unknown option '%s'\n", p->name, arg);
	} else {
		fprintf(err, "%s: unknown option '-%c'\n", p->name, optopt);
	}
	return end_with_usage(p, err);
}

int opt_usage_error(const struct opt_program *p, FILE *err, const char *fmt, ...)
{
	va_list ap;

	fprintf(err, "%s: ", p->name);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
	return end_with_usage(p, err);
}

int opt_extra_operand(const struct opt_program *p, FILE *err, const char *arg)
{
	return opt_usage_error(p, err, "unexpected argument '%s'", arg);
}

int opt_bad_value(const struct opt_program *p, FILE *err, const char *option,
	const char *text, const char *why)
{
	fprintf(err, "%s: %s: invalid value '%s'", p->name, option, text);
	if (why != NULL)
		fprintf(err, " (%s)", why);
	fputc('\n', err);
	return EXIT_TROUBLE;
}

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

int opt_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value)
{
	/* a byte count without its suffix: digits only */
	if (text[strspn(text, "0123456789")] != '\0')
		return -1;
	return opt_parse_size(text, min, max, value);
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

int opt_i64(const struct opt_program *p, FILE *err, const char *option, const char *text,
	int64_t min, int64_t max, int64_t *value)
{
	char why[64];

	if (opt_parse_i64(text, min, max, value) == 0)
		return 0;
	snprintf(why, sizeof why, "allowed %lld to %lld", (long long)min, (long long)max);
	opt_bad_value(p, err, option, text, why);
	return -1;
}

int opt_u64(const struct opt_program *p, FILE *err, const char *option, const char *text,
	uint64_t min, uint64_t max, uint64_t *value)
{
	char why[64];

	if (opt_parse_u64(text, min, max, value) == 0)
		return 0;
	snprintf(why, sizeof why, "allowed %llu to %llu", (unsigned long long)min,
		 (unsigned long long)max);
	opt_bad_value(p, err, option, text, why);
	return -1;
}

/* A byte count as opt_parse_size reads it back: with the largest suffix
 * that leaves it exact. */
static void size_text(char *to, size_t room, uint64_t v)
{
	static const char suffixes[] = "GMK";
	int i;

	for (i = 0; i < 3; i++) {
		unsigned shift = 30 - 10 * (unsigned)i;

		if (v != 0 && v % ((uint64_t)1 << shift) == 0) {
			snprintf(to, room, "%llu%c", (unsigned long long)(v >> shift), suffixes[i]);
			return;
		}
	}
	snprintf(to, room, "%llu", (unsigned long long)v);
}

int opt_size(const struct opt_program *p, FILE *err, const char *option, const char *text,
	uint64_t min, uint64_t max, uint64_t *value)
{
	char lo[32], hi[32], why[80];

	if (opt_parse_size(text, min, max, value) == 0)
		return 0;
	size_text(lo, sizeof lo, min);
	size_text(hi, sizeof hi, max);
	snprintf(why, sizeof why, "allowed %s to %s", lo, hi);
	opt_bad_value(p, err, option, text, why);
	return -1;
}
