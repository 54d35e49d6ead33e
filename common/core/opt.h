/* opt: the command-line conventions every program shares -- getopt_long
 * without getopt's own messages, one wording for every option error
 * ("tr-x: unknown option '--bogus'", then the usage, exit 2), one number
 * rule (decimal; byte counts may end in K, M or G, powers of 1024, upper
 * case only) and one usage printer.
 * Library code: it never exits.  It writes only to the FILE * it is given,
 * and the functions that end a run return the exit status for the program
 * to exit with (the program exits). */
#ifndef TR_OPT_H
#define TR_OPT_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

/* What a program's command line accepts and how its --help reads. */
struct opt_program {
	const char *name;               /* as messages begin: diag_progname() */
	const char *shortopts;          /* getopt's, ':' first ("missing argument" is ':') */
	const struct option *longopts;  /* getopt_long's table, ending in a zero entry;
	                                   flag NULL and val non-zero in each */
	const char *usage;              /* the --help text: "usage: ...", what it does,
	                                   the options, then "Exit status: ..." */
};

/* getopt_long over p's options with opterr = 0: getopt prints nothing (it
 * would name argv[0], the full path, in its own words); '?' and ':' go to
 * opt_fail. */
int opt_next(const struct opt_program *p, int argc, char *const argv[]);

/* --help: the usage text to `out`.  Returns 0 (EXIT_OK), or 2 after
 * "NAME: standard output: strerror" on `err` when it could not be written. */
int opt_help(const struct opt_program *p, FILE *out, FILE *err);

/* After opt_next returned '?' or ':', to `err`: one of
 *   NAME: unknown option '--bogus'        (or '-x')
 *   NAME: option '--max-gpu-lanes' requires an argument   (or '-o')
 *   NAME: option '--record-path' takes no argument
 *   NAME: option '--p' is ambiguous; possibilities: '--pass' '--pid'
 * (a long option named in full however it was abbreviated, as getopt and
 * the commands of scripts/tr-common.sh name it), then the usage text.  Returns 2, the usage exit status. */
int opt_fail(const struct opt_program *p, FILE *err, int ch, char *const argv[]);

/* Any other error in the shape of the command line (an operand too many,
 * a required option missing): "NAME: MESSAGE" and the usage text to `err`.
 * Returns 2. */
int opt_usage_error(const struct opt_program *p, FILE *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An operand where none (or no more) is taken: "unexpected argument 'ARG'". */
int opt_extra_operand(const struct opt_program *p, FILE *err, const char *arg);

/* A bad option value, to `err`: "NAME: OPTION: invalid value 'TEXT' (WHY)"
 * (no parenthesis when why is NULL).  Returns 2. */
int opt_bad_value(const struct opt_program *p, FILE *err, const char *option,
	const char *text, const char *why);

/* Decimal integer in [min, max]; 0 or -1 (value untouched). */
int opt_parse_i64(const char *text, int64_t min, int64_t max, int64_t *value);
/* Decimal count in [min, max] (up to 2^64 - 1, no sign); 0 or -1. */
int opt_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *value);
/* Byte count with an optional K, M or G suffix (powers of 1024). */
int opt_parse_size(const char *text, uint64_t min, uint64_t max, uint64_t *value);

/* The parsers above with opt_bad_value's message when the text is refused:
 * "NAME: OPTION: invalid value 'TEXT' (allowed MIN to MAX)", the bounds of
 * opt_size written with the largest suffix that is exact (1G, 64M, 1024G).
 * 0, or -1 once the message is written. */
int opt_i64(const struct opt_program *p, FILE *err, const char *option, const char *text,
	int64_t min, int64_t max, int64_t *value);
int opt_u64(const struct opt_program *p, FILE *err, const char *option, const char *text,
	uint64_t min, uint64_t max, uint64_t *value);
int opt_size(const struct opt_program *p, FILE *err, const char *option, const char *text,
	uint64_t min, uint64_t max, uint64_t *value);

#endif
