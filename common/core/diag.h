/* diag: the program name, fixed exit statuses and the few functions that
 * print a diagnostic.  Everything else in common/ returns errors and lets
 * the program decide how to report them.
 * The exception to the common/ rule: diag.c prints and exits for the
 * programs; every other module returns a status. */
#ifndef TR_DIAG_H
#define TR_DIAG_H

/* Exit statuses shared by every program (documented in every man page). */
enum {
	EXIT_OK = 0,      /* success */
	EXIT_INPUT = 1,   /* input rejected: malformed, truncated, a refusal */
	EXIT_TROUBLE = 2  /* usage, or system trouble: open, read, write, memory */
};

/* Called first by every program: names the program after argv0 and makes
 * sure descriptors 0, 1 and 2 are open, dying with EXIT_TROUBLE ("standard
 * output (descriptor 1) is closed; refusing to run") when one is not. */
void diag_init(const char *argv0);
const char *diag_progname(void);

/* "prog: message\n" on stderr. */
void warnx_tr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message: strerror(errno)\n" on stderr. */
void warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Hooks run by die() before exiting, e.g. removing a temporary file.  At most
 * a few; registering more than DIAG_MAX_CLEANUPS is a programming error. */
#define DIAG_MAX_CLEANUPS 4
void diag_on_exit(void (*cleanup)(void));

/* _Noreturn for the compiler; the attribute too, for cppcheck, which does
 * not read _Noreturn and would otherwise report false null dereferences. */
_Noreturn void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
_Noreturn void die_errno(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* A failed write: dies silently of SIGPIPE when the reader went away (as if
 * SIGPIPE had not been ignored), else "prog: what: strerror" and
 * EXIT_TROUBLE. */
_Noreturn void die_write(const char *what) __attribute__((noreturn));
/* A stream stage's failure (filter.h): a failed write on standard output
 * when write_errno is not 0 (as die_write), else the input's,
 * "prog: stdin: INPUT_ERROR": EXIT_TROUBLE when reading failed (read_errno
 * not 0: EISDIR, EIO, memory), else EXIT_INPUT (the stream is at fault); an
 * empty INPUT_ERROR (an earlier stage failed and said why, stream.h) exits
 * EXIT_INPUT without a message. */
_Noreturn void die_stream(int write_errno, const char *input_error, int read_errno)
	__attribute__((noreturn));
/* The cleanups, then exit with status and no message (another program
 * already said what went wrong). */
_Noreturn void die_quietly(int status) __attribute__((noreturn));
/* Out of memory is always EXIT_TROUBLE. */
_Noreturn void die_nomem(void) __attribute__((noreturn));

/* Allocation that dies on failure, for program code (never used in
 * library functions that report errors to their caller). */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
/* The next capacity of a growing array of elem-byte items: cap doubled (or
 * first, for an empty one), with buf_grow's overflow checks: dies as out of
 * memory when the count or its size in bytes would overflow size_t. */
size_t grow_cap(size_t cap, size_t first, size_t elem);
/* A stage's spill file (io_open_spill, named after the stage); dies with
 * EXIT_TROUBLE when it cannot be made. */
int xopen_spill(const char *stage);
/* A NUL-terminated copy of n bytes. */
char *xmemdup(const void *p, size_t n);

/* Print "prog VERSION" and "gzip: BACKEND" (gz_backend(), passed in so
 * that diag needs nothing above it) to stdout and exit 0 (--version). */
_Noreturn void print_version_and_exit(const char *gzip_backend);

#endif
