/* Unit tests for common/core/diag.c, the one module that prints and exits.  Each
 * case that ends the program runs in a child process of its own, whose
 * standard output and error come back through pipes: the exact text, the
 * exit status or the signal.  Covered: the program name from argv0; die,
 * die_errno, die_nomem ("prog: ..." and the status); cleanup hooks run in
 * reverse order before exit, at most DIAG_MAX_CLEANUPS; die_write dying
 * silently of SIGPIPE on EPIPE (even with SIGPIPE ignored; with it
 * blocked, the message follows and each hook runs once) and with a
 * message otherwise; die_stream's two cases; warnx_tr and warn_errno
 * (errno kept); grow_cap's doubling and its overflow refusals; xmalloc,
 * xrealloc, xmemdup; xopen_spill; diag_init refusing a closed descriptor
 * 0, 1 or 2; print_version_and_exit and its failed write. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/diag.h"
#include "gz/gz.h"

/* xmalloc(SIZE_MAX) must see malloc fail: AddressSanitizer would otherwise
 * stop the program itself (the asan-unit build; unused elsewhere).  It
 * still prints a line of its own then; drop_asan_warning takes it out. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/* ---- running a case in a child ---- */

struct outcome {
	int exited;        /* exit status, or -1 when killed */
	int sig;           /* the signal that killed it, or 0 */
	char out[512];     /* standard output */
	char err[512];     /* standard error */
};

/* What a body returns when it should have ended the program. */
#define RETURNED 99

static void read_pipe(int fd, char *text, size_t cap)
{
	size_t n = 0;
	ssize_t got;

	while (n < cap - 1 && (got = read(fd, text + n, cap - 1 - n)) > 0)
		n += (size_t)got;
	text[n] = '\0';
	close(fd);
}

/* Removes AddressSanitizer's "==PID==WARNING: AddressSanitizer failed to
 * allocate 0x... bytes" line, which is not diag's output. */
static void drop_asan_warning(char *text)
{
	char *w = strstr(text, "WARNING: AddressSanitizer failed to allocate ");
	char *start, *end;

	if (w == NULL)
		return;
	for (start = w; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(w, '\n');
	end = end ? end + 1 : w + strlen(w);
	memmove(start, end, strlen(end) + 1);
}

static void run_child(void (*body)(void), struct outcome *o)
{
	int out[2], err[2], status;
	pid_t pid;

	memset(o, 0, sizeof *o);
	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		close(out[0]);
		close(out[1]);
		close(err[0]);
		close(err[1]);
		body();
		fflush(NULL);
		_exit(RETURNED);
	}
	close(out[1]);
	close(err[1]);
	/* the outputs are small: the pipes hold them until they are read */
	read_pipe(out[0], o->out, sizeof o->out);
	read_pipe(err[0], o->err, sizeof o->err);
	drop_asan_warning(o->err);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status)) {
		o->exited = WEXITSTATUS(status);
	} else {
		ck_assert(WIFSIGNALED(status));
		o->exited = -1;
		o->sig = WTERMSIG(status);
	}
}

static void expect_exit(void (*body)(void), int status, const char *err)
{
	struct outcome o;

	run_child(body, &o);
	ck_assert_int_eq(o.exited, status);
	ck_assert_str_eq(o.err, err);
	ck_assert_str_eq(o.out, "");
}

static void expect_signal(void (*body)(void), int sig, const char *err)
{
	struct outcome o;

	run_child(body, &o);
	ck_assert_int_eq(o.exited, -1);
	ck_assert_int_eq(o.sig, sig);
	ck_assert_str_eq(o.err, err);
	ck_assert_str_eq(o.out, "");
}

/* "BEFOREtr-x: TEXT: strerror(errnum)\nAFTER" */
static const char *with_errno(const char *before, const char *text, int errnum,
			      const char *after)
{
	static char line[512];

	snprintf(line, sizeof line, "%str-x: %s: %s\n%s", before, text, strerror(errnum), after);
	return line;
}

/* Hooks that leave their mark on standard error. */
static void hook1(void)
{
	(void)write(STDERR_FILENO, "1", 1);
}

static void hook2(void)
{
	(void)write(STDERR_FILENO, "2", 1);
}

static void hook3(void)
{
	(void)write(STDERR_FILENO, "3", 1);
}

static void hook4(void)
{
	(void)write(STDERR_FILENO, "4", 1);
}

/* ---- the program name ---- */

static void name_default(void)
{
	fprintf(stderr, "%s\n", diag_progname());
	_exit(0);
}

static void name_from_path(void)
{
	diag_init("/usr/local/bin/tr-x");
	fprintf(stderr, "%s|", diag_progname());
	/* NULL and "" keep the name */
	diag_init(NULL);
	diag_init("");
	fprintf(stderr, "%s|", diag_progname());
	diag_init("tr-y");
	fprintf(stderr, "%s\n", diag_progname());
	_exit(0);
}

START_TEST(test_progname)
{
	expect_exit(name_default, 0, "trace-layers\n");
	expect_exit(name_from_path, 0, "tr-x|tr-x|tr-y\n");
}
END_TEST

/* ---- die and friends ---- */

static void do_die(void)
{
	diag_init("bin/tr-x");
	die(EXIT_INPUT, "bad %s at %d", "thing", 7);
}

static void do_die_trouble(void)
{
	diag_init("tr-x");
	die(EXIT_TROUBLE, "usage: tr-x [options]");
}

static void do_die_errno(void)
{
	diag_init("tr-x");
	errno = ENOENT;
	die_errno(EXIT_TROUBLE, "cannot open %s", "a.json");
}

static void do_die_nomem(void)
{
	diag_init("tr-x");
	die_nomem();
}

START_TEST(test_die)
{
	expect_exit(do_die, 1, "tr-x: bad thing at 7\n");
	expect_exit(do_die_trouble, 2, "tr-x: usage: tr-x [options]\n");
	expect_exit(do_die_errno, 2, with_errno("", "cannot open a.json", ENOENT, ""));
	expect_exit(do_die_nomem, 2, "tr-x: out of memory\n");
}
END_TEST

static void warn_and_return(void)
{
	diag_init("tr-x");
	warnx_tr("note %d", 3);
	errno = EACCES;
	warn_errno("reading %s", "x");
	/* warn_errno keeps errno for the caller */
	_exit(errno == EACCES ? 0 : 3);
}

START_TEST(test_warn)
{
	expect_exit(warn_and_return, 0, with_errno("tr-x: note 3\n", "reading x", EACCES, ""));
}
END_TEST

/* ---- cleanup hooks ---- */

static void die_with_hooks(void)
{
	diag_init("tr-x");
	diag_on_exit(hook1);
	diag_on_exit(hook2);
	diag_on_exit(hook3);
	die(EXIT_INPUT, "stop");
}

static void die_errno_with_hooks(void)
{
	diag_init("tr-x");
	diag_on_exit(hook1);
	diag_on_exit(hook2);
	errno = EIO;
	die_errno(EXIT_TROUBLE, "read");
}

static void die_with_max_hooks(void)
{
	diag_init("tr-x");
	diag_on_exit(hook1);
	diag_on_exit(hook2);
	diag_on_exit(hook3);
	diag_on_exit(hook4);
	die_nomem();
}

/* One hook more than allowed is a programming error: abort. */
static void too_many_hooks(void)
{
	diag_init("tr-x");
	diag_on_exit(hook1);
	diag_on_exit(hook2);
	diag_on_exit(hook3);
	diag_on_exit(hook4);
	diag_on_exit(hook1);
}

START_TEST(test_cleanups)
{
	ck_assert_int_eq(DIAG_MAX_CLEANUPS, 4);
	/* the message first, then the hooks, last registered first */
	expect_exit(die_with_hooks, 1, "tr-x: stop\n321");
	expect_exit(die_errno_with_hooks, 2, with_errno("", "read", EIO, "21"));
	expect_exit(die_with_max_hooks, 2, "tr-x: out of memory\n4321");
	expect_signal(too_many_hooks, SIGABRT, "");
}
END_TEST

/* ---- failed writes ---- */

static void write_epipe(void)
{
	diag_init("tr-x");
	diag_on_exit(hook1);
	diag_on_exit(hook2);
	errno = EPIPE;
	die_write("standard output");
}

/* A program that ignored SIGPIPE (to see EPIPE) still dies of it. */
static void write_epipe_ignored(void)
{
	diag_init("tr-x");
	signal(SIGPIPE, SIG_IGN);
	errno = EPIPE;
	die_write("out.json");
}

/* With SIGPIPE blocked (a mask inherited from the parent) raising it does
 * not end the program: the message and status of any other failed write
 * follow, and the hooks, which already ran, do not run a second time. */
static void write_epipe_blocked(void)
{
	sigset_t pipe_only;

	diag_init("tr-x");
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_only, NULL);
	diag_on_exit(hook1);
	diag_on_exit(hook2);
	errno = EPIPE;
	die_write("standard output");
}

static void write_enospc(void)
{
	diag_init("tr-x");
	diag_on_exit(hook1);
	errno = ENOSPC;
	die_write("out.json");
}

START_TEST(test_die_write)
{
	/* no message; the hooks still run, in reverse order */
	expect_signal(write_epipe, SIGPIPE, "21");
	expect_signal(write_epipe_ignored, SIGPIPE, "");
	expect_exit(write_epipe_blocked, 2, with_errno("21", "standard output", EPIPE, ""));
	expect_exit(write_enospc, 2, with_errno("", "out.json", ENOSPC, "1"));
}
END_TEST

static void stream_input(void)
{
	diag_init("tr-x");
	die_stream(0, "byte 12 (event 3): event is not a JSON object", 0);
}

/* A read that failed is system trouble, not a refused stream. */
static void stream_read_error(void)
{
	diag_init("tr-x");
	die_stream(0, "read error: Is a directory", EISDIR);
}

static void stream_epipe(void)
{
	diag_init("tr-x");
	signal(SIGPIPE, SIG_IGN);
	die_stream(EPIPE, "not shown", 0);
}

static void stream_eio(void)
{
	diag_init("tr-x");
	die_stream(EIO, "not shown", EISDIR);
}

/* An earlier stage failed and said why: exit 1, no message. */
static void stream_upstream(void)
{
	diag_init("tr-x");
	die_stream(0, "", 0);
}

START_TEST(test_die_stream)
{
	expect_exit(stream_input, 1, "tr-x: stdin: byte 12 (event 3): event is not a JSON object\n");
	expect_exit(stream_read_error, 2, "tr-x: stdin: read error: Is a directory\n");
	expect_exit(stream_upstream, 1, "");
	expect_signal(stream_epipe, SIGPIPE, "");
	expect_exit(stream_eio, 2, with_errno("", "standard output", EIO, ""));
}
END_TEST

/* ---- allocation ---- */

START_TEST(test_grow_cap)
{
	ck_assert_uint_eq(grow_cap(0, 64, 8), 64);
	ck_assert_uint_eq(grow_cap(64, 64, 8), 128);
	ck_assert_uint_eq(grow_cap(3, 64, 8), 6);
	/* the largest counts that still fit */
	ck_assert_uint_eq(grow_cap(SIZE_MAX / 2, 1, 1), SIZE_MAX - 1);
	ck_assert_uint_eq(grow_cap(SIZE_MAX / 2, 1, 0), SIZE_MAX - 1);
	ck_assert_uint_eq(grow_cap(SIZE_MAX / 16, 1, 8), SIZE_MAX / 8 - 1);
	ck_assert_uint_eq(grow_cap(0, SIZE_MAX / 8, 8), SIZE_MAX / 8);
}
END_TEST

static void grow_count_overflow(void)
{
	diag_init("tr-x");
	(void)grow_cap(SIZE_MAX / 2 + 1, 1, 1);
}

static void grow_bytes_overflow(void)
{
	diag_init("tr-x");
	(void)grow_cap(SIZE_MAX / 16 + 1, 1, 8);
}

static void grow_first_overflow(void)
{
	diag_init("tr-x");
	(void)grow_cap(0, SIZE_MAX / 8 + 1, 8);
}

static void xmalloc_huge(void)
{
	diag_init("tr-x");
	(void)xmalloc(SIZE_MAX);
}

static void xrealloc_huge(void)
{
	diag_init("tr-x");
	(void)xrealloc(NULL, SIZE_MAX);
}

START_TEST(test_out_of_memory)
{
	expect_exit(grow_count_overflow, 2, "tr-x: out of memory\n");
	expect_exit(grow_bytes_overflow, 2, "tr-x: out of memory\n");
	expect_exit(grow_first_overflow, 2, "tr-x: out of memory\n");
	expect_exit(xmalloc_huge, 2, "tr-x: out of memory\n");
	expect_exit(xrealloc_huge, 2, "tr-x: out of memory\n");
}
END_TEST

START_TEST(test_alloc)
{
	char *p = xmalloc(0), *q;

	ck_assert_ptr_nonnull(p);
	free(p);
	p = xmalloc(4);
	memcpy(p, "abcd", 4);
	p = xrealloc(p, 100000);
	ck_assert_mem_eq(p, "abcd", 4);
	p = xrealloc(p, 0);
	ck_assert_ptr_nonnull(p);
	free(p);
	/* bytes kept, NUL bytes included, and a NUL after them */
	q = xmemdup("a\0bc", 4);
	ck_assert_mem_eq(q, "a\0bc\0", 5);
	free(q);
	q = xmemdup("", 0);
	ck_assert_str_eq(q, "");
	free(q);
}
END_TEST

/* ---- spill files ---- */

START_TEST(test_spill)
{
	char dir[64] = "/tmp/check_diag.XXXXXX";
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	struct dirent *e;
	DIR *d;
	int fd, entries = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(setenv("TMPDIR", dir, 1), 0);
	fd = xopen_spill("tr-x-test");
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "spill", 5), 5);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	/* already unlinked: nothing is left behind */
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			entries++;
	closedir(d);
	ck_assert_int_eq(entries, 0);
	close(fd);
	ck_assert_int_eq(rmdir(dir), 0);
	if (saved != NULL)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}
END_TEST

static void spill_no_dir(void)
{
	diag_init("tr-x");
	setenv("TMPDIR", "/nonexistent/check_diag", 1);
	(void)xopen_spill("tr-x-test");
}

START_TEST(test_spill_fails)
{
	expect_exit(spill_no_dir, 2,
		    with_errno("", "temporary file in /nonexistent/check_diag", ENOENT, ""));
}
END_TEST

/* ---- closed standard descriptors ---- */

static void closed_stdin(void)
{
	close(STDIN_FILENO);
	diag_init("/bin/tr-x");
}

static void closed_stdout(void)
{
	close(STDOUT_FILENO);
	diag_init("/bin/tr-x");
}

static void closed_stderr(void)
{
	close(STDERR_FILENO);
	diag_init("/bin/tr-x");
}

static void all_open(void)
{
	diag_init("/bin/tr-x");
	_exit(0);
}

START_TEST(test_closed_descriptors)
{
	expect_exit(closed_stdin, 2,
		    "tr-x: standard input (descriptor 0) is closed; refusing to run\n");
	expect_exit(closed_stdout, 2,
		    "tr-x: standard output (descriptor 1) is closed; refusing to run\n");
	/* the message has nowhere to go; the status tells */
	expect_exit(closed_stderr, 2, "");
	expect_exit(all_open, 0, "");
}
END_TEST

/* ---- --version ---- */

static void version(void)
{
	diag_init("/usr/bin/tr-x");
	print_version_and_exit(gz_backend());
}

static void version_closed_stdout(void)
{
	diag_init("/usr/bin/tr-x");
	close(STDOUT_FILENO);
	print_version_and_exit(gz_backend());
}

START_TEST(test_version)
{
	struct outcome o;
	char want[256];

	run_child(version, &o);
	snprintf(want, sizeof want, "tr-x " TR_VERSION "\ngzip: %s\n", gz_backend());
	ck_assert_int_eq(o.exited, 0);
	ck_assert_str_eq(o.out, want);
	ck_assert_str_eq(o.err, "");
	/* the version could not be written: status 2, no message */
	expect_exit(version_closed_stdout, 2, "");
}
END_TEST

static Suite *diag_suite(void)
{
	Suite *s = suite_create("diag");
	TCase *die_tc = tcase_create("dying");
	TCase *misc = tcase_create("helpers");

	tcase_set_timeout(die_tc, 60);
	tcase_add_test(die_tc, test_progname);
	tcase_add_test(die_tc, test_die);
	tcase_add_test(die_tc, test_warn);
	tcase_add_test(die_tc, test_cleanups);
	tcase_add_test(die_tc, test_die_write);
	tcase_add_test(die_tc, test_die_stream);
	tcase_add_test(die_tc, test_out_of_memory);
	tcase_add_test(die_tc, test_spill_fails);
	tcase_add_test(die_tc, test_closed_descriptors);
	tcase_add_test(die_tc, test_version);
	suite_add_tcase(s, die_tc);
	tcase_add_test(misc, test_grow_cap);
	tcase_add_test(misc, test_alloc);
	tcase_add_test(misc, test_spill);
	suite_add_tcase(s, misc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(diag_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
