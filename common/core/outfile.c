/* renameat2(2) and RENAME_NOREPLACE (glibc 2.28), syscall(2) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "core/outfile.h"

/* Temporary paths for the signal handler; unlink(2) is async-signal-safe. */
#define MAX_OPEN 8
static char *volatile pending[MAX_OPEN];

static void track(char *tmp)
{
	int i;

	for (i = 0; i < MAX_OPEN; i++)
		if (pending[i] == NULL) {
			pending[i] = tmp;
			return;
		}
	abort(); /* more simultaneous outputs than any program opens */
}

static void untrack(const char *tmp)
{
	int i;

	for (i = 0; i < MAX_OPEN; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

static void on_signal(int sig)
{
	int i;

	for (i = 0; i < MAX_OPEN; i++)
		if (pending[i] != NULL)
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void outfile_catch_signals(void)
{
	struct sigaction sa;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

void outfile_abort_all(void)
{
	int i;

	for (i = 0; i < MAX_OPEN; i++)
		if (pending[i] != NULL) {
			unlink(pending[i]);
			pending[i] = NULL;
		}
}

static void interrupt_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

static int simulate; /* outfile_test_simulate */
static void (*before_rename)(void);

/* The name under which an open file can be linked into place: linkat(2)
 * with AT_SYMLINK_FOLLOW on /proc/self/fd/N needs no privilege (open(2),
 * O_TMPFILE). */
static void fd_name(char *name, size_t size, int fd)
{
	snprintf(name, size, "/proc/self/fd/%d", fd);
}

/* An unnamed file in the destination's directory (O_TMPFILE), or -1 where
 * the kernel, the file system or a missing /proc cannot give one that can
 * later be linked into place. */
static int open_anonymous(const char *path, size_t dirlen)
{
#ifdef O_TMPFILE
	char dir[4096], name[64];
	int fd;

	if (dirlen >= sizeof dir)
		return -1;
	if (dirlen == 0) {
		strcpy(dir, ".");
	} else {
		memcpy(dir, path, dirlen);
		dir[dirlen] = '\0';
	}
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	fd_name(name, sizeof name, fd);
	if (access(name, F_OK) != 0) {
		close(fd);
		return -1;
	}
	return fd;
#else
	(void)path;
	(void)dirlen;
	return -1;
#endif
}

/* --force: outfile_open takes an existing file, and commit renames over it. */
static int replace;

void outfile_set_replace(int on)
{
	replace = on;
}

int outfile_same_file(const char *path, const struct stat *other)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == other->st_dev && st.st_ino == other->st_ino;
}

int outfile_open(struct outfile *o, const char *path)
{
	struct stat st;
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dirlen;
	sigset_t block, old;

	o->path = NULL;
	o->tmp = NULL;
	o->fd = -1;
	if (*base == '\0') {
		errno = EISDIR;
		return -1;
	}
	if (lstat(path, &st) == 0) {
		if (!replace) {
			errno = EEXIST;
			return -1;
		}
		/* rename(2) would refuse a directory only at the end */
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
	} else if (errno != ENOENT) {
		return -1;
	}
	o->path = strdup(path);
	if (o->path == NULL) {
		errno = ENOMEM;
		return -1;
	}
	/* An unnamed file where the kernel has them: a run killed even by
	 * SIGKILL leaves nothing behind. */
	if (simulate == OUTFILE_SIM_OFF && !replace && (o->fd = open_anonymous(path, dirlen)) >= 0)
		return 0;
	o->tmp = malloc(dirlen + strlen(base) + sizeof "..tmp.XXXXXX");
	if (o->tmp == NULL) {
		free(o->path);
		o->path = NULL;
		errno = ENOMEM;
		return -1;
	}
	sprintf(o->tmp, "%.*s.%s.tmp.XXXXXX", (int)dirlen, path, base);
	/* No signal between creating the file and registering it. */
	interrupt_signals(&block);
	sigprocmask(SIG_BLOCK, &block, &old);
	o->fd = mkstemp(o->tmp);
	if (o->fd >= 0)
		track(o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (o->fd < 0) {
		int saved = errno;
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		errno = saved;
		return -1;
	}
	return 0;
}

static int no_links(void)
{
	return simulate == OUTFILE_SIM_NO_LINK || simulate == OUTFILE_SIM_NO_LINK_NO_RENAME2;
}

void outfile_test_simulate(int what, void (*hook)(void))
{
	simulate = what;
	before_rename = hook;
}

/* rename(2) that never replaces: RENAME_NOREPLACE makes the check and the
 * rename one step.  Without it (an old kernel, or a file system that does
 * not take the flag: EINVAL) there is no safe way: checking that the name
 * is free, then renaming, lets a racing writer's finished output be
 * replaced; refuse with EOPNOTSUPP instead. */
static int rename_noreplace(const char *from, const char *to)
{
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1u << 0)
#endif
	int rc;

	if (before_rename != NULL)
		before_rename();
	if (simulate == OUTFILE_SIM_NO_LINK_NO_RENAME2) {
		errno = ENOSYS;
		rc = -1;
	} else {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28))
		rc = renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#elif defined(SYS_renameat2)
		rc = (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
#else
		errno = ENOSYS;
		rc = -1;
#endif
	}
	if (rc != 0 && (errno == ENOSYS || errno == EINVAL))
		errno = EOPNOTSUPP;
	return rc;
}

/* The descriptor that a path names as one the program was given: /dev/stdout,
 * /dev/stderr, /dev/fd/N or /proc/self/fd/N; -1 for any other path.
 * Opening such a name again would start a new file description at offset 0
 * (or truncate a file the shell opened for appending); the descriptor
 * itself writes where the caller meant. */
static int named_descriptor(const char *path)
{
	static const char *const prefixes[] = { "/dev/fd/", "/proc/self/fd/" };
	size_t i;

	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
		size_t n = strlen(prefixes[i]);
		const char *p = path + n;
		long fd = 0;
		if (strncmp(path, prefixes[i], n) != 0 || *p == '\0')
			continue;
		for (; *p >= '0' && *p <= '9'; p++)
			if ((fd = fd * 10 + (*p - '0')) > 1 << 20)
				return -1;
		return *p == '\0' ? (int)fd : -1;
	}
	return -1;
}

int outfile_open_side(struct outfile *o, const char *path)
{
	struct stat st;
	int fd = named_descriptor(path), flags;

	o->path = NULL;
	o->tmp = NULL;
	o->fd = -1;
	if (fd >= 0) {
		if ((flags = fcntl(fd, F_GETFL)) < 0)
			return -1;  /* EBADF: not open */
		if ((flags & O_ACCMODE) == O_RDONLY) {
			errno = EBADF;
			return -1;
		}
		o->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		return o->fd < 0 ? -1 : 0;
	}
	/* What the path is decides, not how it is spelled: opened without
	 * O_CREAT or O_TRUNC, an existing file is not changed by the look. */
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return outfile_open(o, path);
		if ((errno == EACCES || errno == EPERM || errno == EROFS || errno == ETXTBSY) &&
		    lstat(path, &st) == 0)
			errno = EEXIST;  /* an existing file we may not write */
		return -1;
	}
	if (replace && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		close(fd);  /* --force: a file to replace, not to write in place */
		return outfile_open(o, path);
	}
	if (fstat(fd, &st) != 0 ||
	    !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode))) {
		close(fd);
		errno = EEXIST;
		return -1;
	}
	o->fd = fd;
	return 0;
}

int outfile_commit(struct outfile *o)
{
	mode_t mask;
	int saved;

	if (o->path == NULL) {  /* a device (outfile_open_side) */
		int rc = o->fd >= 0 ? close(o->fd) : 0;
		o->fd = -1;
		return rc;
	}
	mask = umask(0);
	umask(mask);
	if (o->tmp == NULL) {
		/* unnamed: linked while open, then closed (a close that fails
		 * takes the placed file back) */
		char name[64];
		fd_name(name, sizeof name, o->fd);
		if (fchmod(o->fd, 0666 & ~mask) != 0 ||
		    linkat(AT_FDCWD, name, AT_FDCWD, o->path, AT_SYMLINK_FOLLOW) != 0)
			goto fail;
		if (close(o->fd) != 0) {
			saved = errno;
			o->fd = -1;
			unlink(o->path);
			errno = saved;
			goto fail;
		}
		o->fd = -1;
		outfile_abort(o);
		return 0;
	}
	if (fchmod(o->fd, 0666 & ~mask) != 0 || close(o->fd) != 0) {
		o->fd = -1;
		goto fail;
	}
	o->fd = -1;
	/* --force: one rename(2), so that the old file stays whole until the
	 * new one takes its name */
	if (replace) {
		if (rename(o->tmp, o->path) != 0)
			goto fail;
		outfile_abort(o);
		return 0;
	}
	/* link(2) fails with EEXIST if the destination appeared meanwhile,
	 * where rename(2) would silently replace it. */
	if ((no_links() ? (errno = EPERM, -1) : link(o->tmp, o->path)) != 0) {
		if (errno == EEXIST)
			goto fail;
		/* file systems without hard links (vfat, some FUSE and SMB) */
		if (rename_noreplace(o->tmp, o->path) != 0)
			goto fail;
	}
	outfile_abort(o);
	return 0;
fail:
	saved = errno;
	outfile_abort(o);
	errno = saved;
	return -1;
}

static int interrupt_pending(void)
{
	sigset_t arrived;

	if (sigpending(&arrived) != 0)
		return 0;
	return sigismember(&arrived, SIGINT) == 1 || sigismember(&arrived, SIGTERM) == 1 ||
	       sigismember(&arrived, SIGHUP) == 1;
}

int outfile_commit_all_while(struct outfile *const *files, size_t n, size_t *failed,
			     int (*wanted)(void *), void *ctx)
{
	sigset_t interrupts, old;
	char **placed = calloc(n ? n : 1, sizeof *placed);
	size_t i, nplaced = 0;
	int saved = 0;

	*failed = 0;
	if (placed == NULL) {
		for (i = 0; i < n; i++)
			outfile_abort(files[i]);
		errno = ENOMEM;
		return -1;
	}
	/* The paths to take back are copied first: commit frees them. */
	for (i = 0; i < n; i++)
		if ((placed[i] = strdup(files[i]->path)) == NULL) {
			*failed = i;
			saved = ENOMEM;
			goto undo;
		}
	interrupt_signals(&interrupts);
	sigprocmask(SIG_BLOCK, &interrupts, &old);
	if (wanted != NULL && !wanted(ctx)) {
		*failed = n;
		saved = ECANCELED;
	}
	for (i = 0; saved == 0 && i < n; i++) {
		if (outfile_commit(files[i]) != 0) {
			*failed = i;
			saved = errno;
			break;
		}
		nplaced++;
	}
	if (saved == 0 && interrupt_pending()) {
		*failed = n;
		saved = EINTR;
	}
	/* asked again once the set is whole: if it is kept, it was wanted
	 * after the last output appeared, not only before the first */
	if (saved == 0 && wanted != NULL && !wanted(ctx)) {
		*failed = n;
		saved = ECANCELED;
	}
	if (saved != 0)
		while (nplaced > 0)
			unlink(placed[--nplaced]);
	sigprocmask(SIG_SETMASK, &old, NULL);
undo:
	for (i = 0; i < n; i++) {
		outfile_abort(files[i]);
		free(placed[i]);
	}
	free(placed);
	if (saved != 0) {
		errno = saved;
		return -1;
	}
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->fd >= 0) {
		close(o->fd);
		o->fd = -1;
	}
	if (o->tmp != NULL) {
		untrack(o->tmp);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	free(o->path);
	o->path = NULL;
}
