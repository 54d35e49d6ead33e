/* interrupt_placement.so: preloaded into tr-encode by the fault tests
 * (t-faults.sh).  It wraps the calls that place an output (link, linkat,
 * rename, renameat, renameat2) and, just before the second placement, that
 * is between placing the trace and placing its first report, sends SIGTERM:
 * to the process whose pid is in the file named by TR_TEST_SIGNAL_PID_FILE
 * (the one-line command, which then stops its pipeline), or else to itself.
 * It then waits until one of SIGINT/SIGTERM/SIGHUP is pending in this
 * process, so the signal provably arrives inside the placement; where the
 * program does not block those signals it dies of the signal there instead.
 * With TR_TEST_CLOSE_FD=N it closes descriptor N there instead (the only
 * write end of a --lifeline: the command gone just as the trace is placed). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int placements;

static pid_t signal_target(void)
{
	const char *file = getenv("TR_TEST_SIGNAL_PID_FILE");
	FILE *f;
	long pid = 0;

	if (file == NULL)
		return getpid();
	f = fopen(file, "r");
	if (f == NULL || fscanf(f, "%ld", &pid) != 1 || pid <= 0) {
		fprintf(stderr, "interrupt_placement: no pid in %s\n", file);
		abort();
	}
	fclose(f);
	return (pid_t)pid;
}

static void before_placement(void)
{
	const struct timespec ms = { 0, 1000000 };
	sigset_t arrived;
	long waited;

	const char *close_fd = getenv("TR_TEST_CLOSE_FD");

	if (++placements != 2)
		return;
	if (close_fd != NULL) {
		close(atoi(close_fd));
		return;
	}
	kill(signal_target(), SIGTERM);
	/* a bound, so that a broken test fails instead of hanging */
	for (waited = 0; waited < 120000; waited++) {
		sigpending(&arrived);
		if (sigismember(&arrived, SIGINT) || sigismember(&arrived, SIGTERM) ||
		    sigismember(&arrived, SIGHUP))
			return;
		nanosleep(&ms, NULL);
	}
	fprintf(stderr, "interrupt_placement: no signal arrived in 120 s\n");
	abort();
}

typedef int (*link_fn)(const char *, const char *);
typedef int (*linkat_fn)(int, const char *, int, const char *, int);
typedef int (*rename_fn)(const char *, const char *);
typedef int (*renameat_fn)(int, const char *, int, const char *);
typedef int (*renameat2_fn)(int, const char *, int, const char *, unsigned int);

int link(const char *from, const char *to)
{
	before_placement();
	return ((link_fn)dlsym(RTLD_NEXT, "link"))(from, to);
}

int linkat(int fromdir, const char *from, int todir, const char *to, int flags)
{
	before_placement();
	return ((linkat_fn)dlsym(RTLD_NEXT, "linkat"))(fromdir, from, todir, to, flags);
}

int rename(const char *from, const char *to)
{
	before_placement();
	return ((rename_fn)dlsym(RTLD_NEXT, "rename"))(from, to);
}

int renameat(int fromdir, const char *from, int todir, const char *to)
{
	before_placement();
	return ((renameat_fn)dlsym(RTLD_NEXT, "renameat"))(fromdir, from, todir, to);
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned int flags)
{
	before_placement();
	return ((renameat2_fn)dlsym(RTLD_NEXT, "renameat2"))(fromdir, from, todir, to, flags);
}
