#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/diag.h"
#include "core/io.h"

#ifndef TR_VERSION
#define TR_VERSION "unknown"
#endif

static const char *progname = "trace-layers";
static void (*cleanups[DIAG_MAX_CLEANUPS])(void);
static int ncleanups;

/* A descriptor 0, 1 or 2 that is closed at start would be handed out by the
 * program's next open: tr-compact's spill file became its standard output
 * and took the stream it wrote.  Such a program cannot do what it was asked
 * (its output or its messages would go nowhere), so it says so and stops;
 * putting /dev/null in the hole instead would let it lose its output and
 * exit 0.  The message goes nowhere when standard error is the closed one;
 * the status still tells. */
static void check_standard_descriptors(void)
{
	static const char *const names[] = {
		"standard input", "standard output", "standard error"
	};
	int fd;

	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF)
			die(EXIT_TROUBLE, "%s (descriptor %d) is closed; refusing to run",
			    names[fd], fd);
}

void diag_init(const char *argv0)
{
	const char *slash;

	if (argv0 != NULL && *argv0 != '\0') {
		slash = strrchr(argv0, '/');
		progname = slash ? slash + 1 : argv0;
	}
	check_standard_descriptors();
}

const char *diag_progname(void)
{
	return progname;
}

static void vmessage(const char *fmt, va_list ap, int errnum)
	__attribute__((format(printf, 1, 0)));

static void vmessage(const char *fmt, va_list ap, int errnum)
{
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (errnum != 0)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

void warnx_tr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap, 0);
	va_end(ap);
}

void warn_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap, saved);
	va_end(ap);
	errno = saved;
}

void diag_on_exit(void (*cleanup)(void))
{
	if (ncleanups == DIAG_MAX_CLEANUPS)
		abort();
	cleanups[ncleanups++] = cleanup;
}

static _Noreturn void run_cleanups_and_exit(int status)
{
	while (ncleanups > 0)
		cleanups[--ncleanups]();
	exit(status);
}

void die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap, 0);
	va_end(ap);
	run_cleanups_and_exit(status);
}

void die_errno(int status, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap, saved);
	va_end(ap);
	run_cleanups_and_exit(status);
}

void die_write(const char *what)
{
	if (errno == EPIPE) {
		/* each hook once: if SIGPIPE is blocked, die_errno follows */
		while (ncleanups > 0)
			cleanups[--ncleanups]();
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	die_errno(EXIT_TROUBLE, "%s", what);
}

void die_quietly(int status)
{
	run_cleanups_and_exit(status);
}

void die_stream(int write_errno, const char *input_error, int read_errno)
{
	if (write_errno != 0) {
		errno = write_errno;
		die_write("standard output");
	}
	if (read_errno != 0)
		die(EXIT_TROUBLE, "stdin: %s", input_error);
	if (input_error[0] == '\0')
		die_quietly(EXIT_INPUT);
	die(EXIT_INPUT, "stdin: %s", input_error);
}

int xopen_spill(const char *stage)
{
	const char *dir;
	int fd = io_open_spill(stage, &dir);

	if (fd < 0) {
		if (errno == ENOMEM)
			die_nomem();
		die_errno(EXIT_TROUBLE, "temporary file in %s", dir);
	}
	return fd;
}

void die_nomem(void)
{
	die(EXIT_TROUBLE, "out of memory");
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die_nomem();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		die_nomem();
	return q;
}

size_t grow_cap(size_t cap, size_t first, size_t elem)
{
	size_t n = cap ? cap * 2 : first;

	if (cap > SIZE_MAX / 2 || (elem != 0 && n > SIZE_MAX / elem))
		die_nomem();
	return n;
}

char *xmemdup(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

void print_version_and_exit(const char *gzip_backend)
{
	printf("%s %s\ngzip: %s\n", progname, TR_VERSION, gzip_backend);
	if (fflush(stdout) != 0 || ferror(stdout))
		exit(EXIT_TROUBLE);
	exit(EXIT_OK);
}
