/* Unit tests for common/core/outfile.c: the destination appears whole or not at
 * all, is never replaced (a file, a directory, a symlink, dangling or not),
 * gets mode 0666 less the umask, and no temporary file is ever left; with
 * replace (--force) an existing file is replaced only at commit. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/io.h"
#include "core/outfile.h"

static char dir[64];
static char dest[128];

/* The named temporary files (where the kernel has no O_TMPFILE) are what
 * most cases look at: their name, mode and removal can be seen. */
static void setup(void)
{
	outfile_test_simulate(OUTFILE_SIM_NAMED, NULL);
	strcpy(dir, "/tmp/check_outfile.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(dest, sizeof dest, "%s/out.json", dir);
}

/* Entries of dir (but . and ..), and how many hold ".tmp." */
static int count_entries(int *tmps)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	*tmps = 0;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		if (strstr(e->d_name, ".tmp.") != NULL)
			(*tmps)++;
	}
	closedir(d);
	return n;
}

static void teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			if (unlink(path) != 0)
				rmdir(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(io_write_all(fd, text, strlen(text)), 0);
	ck_assert_int_eq(close(fd), 0);
}

static void expect_contents(const char *path, const char *text)
{
	char got[256];
	int fd = open(path, O_RDONLY);
	long n;

	ck_assert_int_ge(fd, 0);
	n = io_read_some(fd, got, sizeof got - 1);
	ck_assert_int_ge(n, 0);
	got[n] = '\0';
	ck_assert_str_eq(got, text);
	close(fd);
}

static void expect_no_tmp(void)
{
	int tmps;

	count_entries(&tmps);
	ck_assert_int_eq(tmps, 0);
}

/* ---- commit ---- */

static const mode_t umasks[] = { 022, 077, 0, 027, 0246 };

START_TEST(test_commit)
{
	mode_t mask = umasks[_i], old = umask(mask);
	struct outfile o;
	struct stat st;
	int tmps;
	char prefix[160];

	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_ge(o.fd, 0);
	ck_assert_str_eq(o.path, dest);
	/* the temporary file is beside the destination, hidden */
	snprintf(prefix, sizeof prefix, "%s/.out.json.tmp.", dir);
	ck_assert_int_eq(strncmp(o.tmp, prefix, strlen(prefix)), 0);
	ck_assert_uint_eq(strlen(o.tmp), strlen(prefix) + 6);
	ck_assert_int_eq(lstat(o.tmp, &st), 0);
	ck_assert_int_eq(lstat(dest, &st), -1);  /* not there before commit */
	ck_assert_int_eq(count_entries(&tmps), 1);
	ck_assert_int_eq(tmps, 1);

	ck_assert_int_eq(io_write_all(o.fd, "{\"a\":1}\n", 8), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	umask(old);
	ck_assert_ptr_null(o.path);
	ck_assert_ptr_null(o.tmp);
	ck_assert_int_eq(o.fd, -1);

	expect_contents(dest, "{\"a\":1}\n");
	ck_assert_int_eq(lstat(dest, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0666 & ~mask);
	ck_assert_int_eq((int)st.st_nlink, 1);
	ck_assert_int_eq(count_entries(&tmps), 1);
	ck_assert_int_eq(tmps, 0);
	outfile_abort(&o);  /* safe after commit */
	expect_contents(dest, "{\"a\":1}\n");
}
END_TEST

START_TEST(test_commit_empty_file)
{
	struct outfile o;
	struct stat st;

	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_int_eq(stat(dest, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	expect_no_tmp();
}
END_TEST

/* A relative path without a directory part: the temporary file goes in the
 * current directory. */
START_TEST(test_commit_relative)
{
	int here = open(".", O_RDONLY);
	struct outfile o;
	char prefix[] = ".rel.txt.tmp.";

	ck_assert_int_ge(here, 0);
	ck_assert_int_eq(chdir(dir), 0);
	ck_assert_int_eq(outfile_open(&o, "rel.txt"), 0);
	ck_assert_int_eq(strncmp(o.tmp, prefix, strlen(prefix)), 0);
	ck_assert_int_eq(io_write_all(o.fd, "x", 1), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	expect_contents("rel.txt", "x");
	ck_assert_int_eq(fchdir(here), 0);
	close(here);
	expect_no_tmp();
}
END_TEST

/* The destination appears between open and commit: it is kept, the
 * temporary file goes. */
START_TEST(test_commit_race)
{
	struct outfile o;

	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(io_write_all(o.fd, "new", 3), 0);
	write_file(dest, "old");
	errno = 0;
	ck_assert_int_eq(outfile_commit(&o), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_ptr_null(o.tmp);
	expect_contents(dest, "old");
	expect_no_tmp();
	outfile_abort(&o);
}
END_TEST

START_TEST(test_commit_race_symlink)
{
	struct outfile o;
	char target[160];
	struct stat st;

	snprintf(target, sizeof target, "%s/target", dir);
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(symlink(target, dest), 0);
	errno = 0;
	ck_assert_int_eq(outfile_commit(&o), -1);
	ck_assert_int_eq(errno, EEXIST);
	/* the link is untouched and nothing was written through it */
	ck_assert_int_eq(lstat(dest, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(lstat(target, &st), -1);
	expect_no_tmp();
}
END_TEST

/* ---- replace (--force) ---- */

/* The old file stays whole until commit, which renames the new one over
 * it; abort leaves the old one as it was.  A directory is refused; the
 * unnamed file is not used (only a named one can be renamed over). */
START_TEST(test_replace)
{
	struct outfile o;
	struct stat in;

	outfile_test_simulate(OUTFILE_SIM_OFF, NULL);
	outfile_set_replace(1);
	write_file(dest, "old");
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_ptr_nonnull(o.tmp);
	ck_assert_int_eq(io_write_all(o.fd, "new", 3), 0);
	expect_contents(dest, "old");
	outfile_abort(&o);
	expect_contents(dest, "old");
	expect_no_tmp();
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(io_write_all(o.fd, "new", 3), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	expect_contents(dest, "new");
	expect_no_tmp();
	errno = 0;
	ck_assert_int_eq(outfile_open(&o, dir), -1);
	ck_assert_int_eq(errno, EISDIR);
	ck_assert_int_eq(stat(dest, &in), 0);
	ck_assert_int_eq(outfile_same_file(dest, &in), 1);
	ck_assert_int_eq(stat(dir, &in), 0);
	ck_assert_int_eq(outfile_same_file(dest, &in), 0);
	/* a side output that is a regular file: replaced the same way */
	ck_assert_int_eq(outfile_open_side(&o, dest), 0);
	ck_assert_ptr_nonnull(o.path);
	ck_assert_int_eq(io_write_all(o.fd, "side", 4), 0);
	expect_contents(dest, "new");
	ck_assert_int_eq(outfile_commit(&o), 0);
	expect_contents(dest, "side");
	expect_no_tmp();
	outfile_set_replace(0);
	errno = 0;
	ck_assert_int_eq(outfile_open(&o, dest), -1);
	ck_assert_int_eq(errno, EEXIST);
}
END_TEST

/* ---- open refuses ---- */
START_TEST(test_open_existing_file)
{
	struct outfile o;

	write_file(dest, "keep");
	errno = 0;
	ck_assert_int_eq(outfile_open(&o, dest), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_ptr_null(o.path);
	ck_assert_ptr_null(o.tmp);
	ck_assert_int_eq(o.fd, -1);
	expect_contents(dest, "keep");
	expect_no_tmp();
	outfile_abort(&o);  /* safe after a failed open */
}
END_TEST

/* A side output: a path under /dev/ is written in place (here a pipe's
 * write end as /dev/fd/N) and commit only closes it; any other path is an
 * outfile, refused when it exists. */
START_TEST(test_open_side)
{
	struct outfile o;
	char path[64], got[8];
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
	ck_assert_int_eq(outfile_open_side(&o, path), 0);
	ck_assert_ptr_null(o.path);
	ck_assert_int_ge(o.fd, 0);
	ck_assert_int_eq(io_write_all(o.fd, "tab\n", 4), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_int_eq(o.fd, -1);
	close(p[1]);
	ck_assert_int_eq(io_read_some(p[0], got, sizeof got), 4);
	ck_assert_mem_eq(got, "tab\n", 4);
	ck_assert_int_eq(io_read_some(p[0], got, sizeof got), 0);  /* closed: no writer left */
	close(p[0]);

	ck_assert_int_eq(outfile_open_side(&o, dest), 0);
	ck_assert_str_eq(o.path, dest);
	ck_assert_int_eq(io_write_all(o.fd, "new", 3), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	expect_contents(dest, "new");
	errno = 0;
	ck_assert_int_eq(outfile_open_side(&o, dest), -1);
	ck_assert_int_eq(errno, EEXIST);
	expect_contents(dest, "new");
	expect_no_tmp();
}
END_TEST

/* A side path is judged by what it names, not by its spelling: an existing
 * regular file is refused and left as it was, under any name (a /dev/fd/N
 * of a file opened read-only included); a FIFO and a character device are
 * written in place; a named descriptor is duplicated, so that it writes at
 * its own offset (a file opened for appending keeps what it had). */
START_TEST(test_open_side_by_kind)
{
	struct outfile o;
	char path[256], fifo[160], got[16];
	int fd, rd;
	struct stat st;

	/* an existing file behind a name that begins with /dev/ */
	write_file(dest, "keep");
	snprintf(path, sizeof path, "/dev/..%s", dest);
	errno = 0;
	ck_assert_int_eq(outfile_open_side(&o, path), -1);
	ck_assert_int_eq(errno, EEXIST);
	expect_contents(dest, "keep");
	/* the same file unwritable: refused as existing, not as a permission */
	ck_assert_int_eq(chmod(dest, 0444), 0);
	if (geteuid() != 0) {
		errno = 0;
		ck_assert_int_eq(outfile_open_side(&o, dest), -1);
		ck_assert_int_eq(errno, EEXIST);
	}
	ck_assert_int_eq(chmod(dest, 0644), 0);
	expect_contents(dest, "keep");
	/* a directory */
	errno = 0;
	ck_assert_int_eq(outfile_open_side(&o, dir), -1);
	ck_assert_int_eq(errno, EISDIR);

	/* a named descriptor open for appending: written at its end */
	fd = open(dest, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	snprintf(path, sizeof path, "/dev/fd/%d", fd);
	ck_assert_int_eq(outfile_open_side(&o, path), 0);
	ck_assert_ptr_null(o.path);
	ck_assert_int_ne(o.fd, fd);
	ck_assert_int_eq(io_write_all(o.fd, "+new", 4), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	close(fd);
	expect_contents(dest, "keep+new");
	/* ... and one open only for reading: refused, the file unchanged */
	fd = open(dest, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	errno = 0;
	ck_assert_int_eq(outfile_open_side(&o, path), -1);
	ck_assert_int_eq(errno, EBADF);
	close(fd);
	/* one that is not open */
	errno = 0;
	ck_assert_int_eq(outfile_open_side(&o, "/dev/fd/999"), -1);
	ck_assert_int_eq(errno, EBADF);
	expect_contents(dest, "keep+new");

	/* a FIFO, with a reader */
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rd, 0);
	ck_assert_int_eq(outfile_open_side(&o, fifo), 0);
	ck_assert_ptr_null(o.path);
	ck_assert_int_eq(io_write_all(o.fd, "fifo", 4), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_int_eq(read(rd, got, sizeof got), 4);
	ck_assert_mem_eq(got, "fifo", 4);
	close(rd);
	ck_assert_int_eq(unlink(fifo), 0);
	/* a character device */
	ck_assert_int_eq(outfile_open_side(&o, "/dev/null"), 0);
	ck_assert_ptr_null(o.path);
	ck_assert_int_eq(outfile_commit(&o), 0);
	/* a new name: a new file, placed by commit */
	snprintf(path, sizeof path, "%s/new", dir);
	ck_assert_int_eq(outfile_open_side(&o, path), 0);
	ck_assert_str_eq(o.path, path);
	ck_assert_int_eq(lstat(path, &st), -1);
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_int_eq(unlink(path), 0);
	expect_no_tmp();
}
END_TEST

START_TEST(test_open_dangling_symlink)
{
	struct outfile o;
	char target[160];
	struct stat st;

	snprintf(target, sizeof target, "%s/nowhere", dir);
	ck_assert_int_eq(symlink(target, dest), 0);
	errno = 0;
	ck_assert_int_eq(outfile_open(&o, dest), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_eq(lstat(target, &st), -1);  /* not created through the link */
	expect_no_tmp();
}
END_TEST

START_TEST(test_open_symlink_to_file)
{
	struct outfile o;
	char target[160];

	snprintf(target, sizeof target, "%s/real", dir);
	write_file(target, "real");
	ck_assert_int_eq(symlink(target, dest), 0);
	errno = 0;
	ck_assert_int_eq(outfile_open(&o, dest), -1);
	ck_assert_int_eq(errno, EEXIST);
	expect_contents(target, "real");
	expect_no_tmp();
}
END_TEST

START_TEST(test_open_directory)
{
	struct outfile o;
	char path[160];

	errno = 0;
	ck_assert_int_eq(outfile_open(&o, dir), -1);
	ck_assert_int_eq(errno, EEXIST);
	snprintf(path, sizeof path, "%s/", dir);
	errno = 0;
	ck_assert_int_eq(outfile_open(&o, path), -1);
	ck_assert_int_eq(errno, EISDIR);
	ck_assert_ptr_null(o.tmp);
	expect_no_tmp();
}
END_TEST

START_TEST(test_open_missing_directory)
{
	struct outfile o;
	char path[160];

	snprintf(path, sizeof path, "%s/no/such/out.json", dir);
	errno = 0;
	ck_assert_int_eq(outfile_open(&o, path), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_null(o.path);
	ck_assert_ptr_null(o.tmp);
}
END_TEST

/* ---- abort ---- */

START_TEST(test_abort)
{
	struct outfile o;
	struct stat st;
	int tmps;

	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(io_write_all(o.fd, "partial", 7), 0);
	outfile_abort(&o);
	ck_assert_ptr_null(o.tmp);
	ck_assert_ptr_null(o.path);
	ck_assert_int_eq(o.fd, -1);
	ck_assert_int_eq(lstat(dest, &st), -1);
	ck_assert_int_eq(count_entries(&tmps), 0);
	outfile_abort(&o);  /* twice */
	ck_assert_int_eq(count_entries(&tmps), 0);
}
END_TEST

START_TEST(test_abort_all)
{
	struct outfile a, b;
	char second[160];
	int tmps;

	snprintf(second, sizeof second, "%s/second.json", dir);
	ck_assert_int_eq(outfile_open(&a, dest), 0);
	ck_assert_int_eq(outfile_open(&b, second), 0);
	ck_assert_int_eq(count_entries(&tmps), 2);
	ck_assert_int_eq(tmps, 2);
	outfile_abort_all();
	ck_assert_int_eq(count_entries(&tmps), 0);
	/* the objects are still the caller's to release */
	outfile_abort(&a);
	outfile_abort(&b);
	ck_assert_int_eq(count_entries(&tmps), 0);
	/* and the registry has room again */
	ck_assert_int_eq(outfile_open(&a, dest), 0);
	ck_assert_int_eq(outfile_commit(&a), 0);
	ck_assert_int_eq(count_entries(&tmps), 1);
	ck_assert_int_eq(tmps, 0);
}
END_TEST

/* SIGTERM while the file is open: the temporary file is removed and the
 * process dies of the signal.  Run in a child in every fork mode. */
START_TEST(test_signal_removes_tmp)
{
	pid_t pid = fork();
	int status, tmps;
	struct stat st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct outfile o;
		outfile_catch_signals();
		if (outfile_open(&o, dest) != 0 || io_write_all(o.fd, "x", 1) != 0)
			_exit(3);
		raise(SIGTERM);
		_exit(4);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGTERM);
	ck_assert_int_eq(count_entries(&tmps), 0);
	ck_assert_int_eq(lstat(dest, &st), -1);
}
END_TEST

/* ---- file systems without hard links (simulated: link(2) fails) ---- */

START_TEST(test_commit_no_link)
{
	struct outfile o;
	struct stat st;

	outfile_test_simulate(OUTFILE_SIM_NO_LINK, NULL);
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(io_write_all(o.fd, "mine\n", 5), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	outfile_test_simulate(OUTFILE_SIM_NAMED, NULL);
	expect_contents(dest, "mine\n");
	ck_assert_int_eq(lstat(dest, &st), 0);
	ck_assert_int_eq((int)st.st_nlink, 1);
	expect_no_tmp();
}
END_TEST

static void racing_writer(void)
{
	write_file(dest, "theirs\n");
}

/* The race of issue 19: another writer's output appears after the link
 * failed, just before the rename, where a check-then-rename had already
 * found the name free and replaced it.  RENAME_NOREPLACE refuses. */
START_TEST(test_commit_no_link_race)
{
	struct outfile o;

	outfile_test_simulate(OUTFILE_SIM_NO_LINK, racing_writer);
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(io_write_all(o.fd, "mine\n", 5), 0);
	errno = 0;
	ck_assert_int_eq(outfile_commit(&o), -1);
	ck_assert_int_eq(errno, EEXIST);
	outfile_test_simulate(OUTFILE_SIM_NAMED, NULL);
	expect_contents(dest, "theirs\n");
	expect_no_tmp();
}
END_TEST

/* Neither hard links nor RENAME_NOREPLACE: refused, nothing placed. */
START_TEST(test_commit_no_link_no_rename2)
{
	struct outfile o;
	struct stat st;
	int tmps;

	outfile_test_simulate(OUTFILE_SIM_NO_LINK_NO_RENAME2, NULL);
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_int_eq(io_write_all(o.fd, "mine\n", 5), 0);
	errno = 0;
	ck_assert_int_eq(outfile_commit(&o), -1);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	outfile_test_simulate(OUTFILE_SIM_NAMED, NULL);
	ck_assert_int_eq(lstat(dest, &st), -1);
	ck_assert_int_eq(count_entries(&tmps), 0);
}
END_TEST

/* Two outputs placed as one set. */
START_TEST(test_commit_all)
{
	struct outfile a, b;
	struct outfile *set[] = { &a, &b };
	char second[160];
	size_t failed = 99;
	struct stat st;
	int tmps;

	snprintf(second, sizeof second, "%s.report.json", dest);
	ck_assert_int_eq(outfile_open(&a, dest), 0);
	ck_assert_int_eq(outfile_open(&b, second), 0);
	ck_assert_int_eq(io_write_all(a.fd, "a", 1), 0);
	ck_assert_int_eq(io_write_all(b.fd, "b", 1), 0);
	ck_assert_int_eq(outfile_commit_all_while(set, 2, &failed, NULL, NULL), 0);
	ck_assert_int_eq(stat(dest, &st), 0);
	ck_assert_int_eq(stat(second, &st), 0);
	ck_assert_int_eq(count_entries(&tmps), 2);
	ck_assert_int_eq(tmps, 0);
}
END_TEST

/* The second destination appeared meanwhile: the first is taken back. */
START_TEST(test_commit_all_takes_back)
{
	struct outfile a, b;
	struct outfile *set[] = { &a, &b };
	char second[160];
	size_t failed = 99;
	struct stat st;
	int fd, tmps;

	snprintf(second, sizeof second, "%s.report.json", dest);
	ck_assert_int_eq(outfile_open(&a, dest), 0);
	ck_assert_int_eq(outfile_open(&b, second), 0);
	fd = open(second, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	errno = 0;
	ck_assert_int_eq(outfile_commit_all_while(set, 2, &failed, NULL, NULL), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_uint_eq(failed, 1);
	ck_assert_int_eq(lstat(dest, &st), -1);
	ck_assert_int_eq(count_entries(&tmps), 1); /* the racing file, untouched */
	ck_assert_int_eq(tmps, 0);
}
END_TEST

/* outfile_commit_all_while: the condition is asked before the first output
 * is placed and once the last is; the answers come from a script of them,
 * and each call notes whether the set was in place then. */
struct wanted_script {
	int answers[2];
	int calls;
	int placed_when_asked[2];
	const char *paths[2];
};

static int wanted_by_script(void *ctx)
{
	struct wanted_script *w = ctx;
	struct stat st;
	int i = w->calls++;

	ck_assert_int_lt(i, 2);
	w->placed_when_asked[i] = stat(w->paths[0], &st) == 0 && stat(w->paths[1], &st) == 0;
	return w->answers[i];
}

static void commit_while(struct wanted_script *w, int want_rc)
{
	struct outfile a, b;
	struct outfile *set[] = { &a, &b };
	static char second[160];
	size_t failed = 99;
	int rc;

	snprintf(second, sizeof second, "%s.report.json", dest);
	w->paths[0] = dest;
	w->paths[1] = second;
	ck_assert_int_eq(outfile_open(&a, dest), 0);
	ck_assert_int_eq(outfile_open(&b, second), 0);
	ck_assert_int_eq(io_write_all(a.fd, "a", 1), 0);
	ck_assert_int_eq(io_write_all(b.fd, "b", 1), 0);
	errno = 0;
	rc = outfile_commit_all_while(set, 2, &failed, wanted_by_script, w);
	ck_assert_int_eq(rc, want_rc);
	if (rc != 0) {
		ck_assert_int_eq(errno, ECANCELED);
		ck_assert_uint_eq(failed, 2);
	}
}

/* Wanted throughout: placed, asked before (nothing there) and after
 * (both there). */
START_TEST(test_commit_while_wanted)
{
	struct wanted_script w = { { 1, 1 }, 0, { -1, -1 }, { NULL, NULL } };
	int tmps;

	commit_while(&w, 0);
	ck_assert_int_eq(w.calls, 2);
	ck_assert_int_eq(w.placed_when_asked[0], 0);
	ck_assert_int_eq(w.placed_when_asked[1], 1);
	ck_assert_int_eq(count_entries(&tmps), 2);
	ck_assert_int_eq(tmps, 0);
}
END_TEST

/* Not wanted from the start: nothing is placed, not asked again. */
START_TEST(test_commit_while_unwanted)
{
	struct wanted_script w = { { 0, 1 }, 0, { -1, -1 }, { NULL, NULL } };
	int tmps;

	commit_while(&w, -1);
	ck_assert_int_eq(w.calls, 1);
	ck_assert_int_eq(count_entries(&tmps), 0);
}
END_TEST

/* No longer wanted once the set is whole: both are taken back. */
START_TEST(test_commit_while_taken_back)
{
	struct wanted_script w = { { 1, 0 }, 0, { -1, -1 }, { NULL, NULL } };
	int tmps;

	commit_while(&w, -1);
	ck_assert_int_eq(w.calls, 2);
	ck_assert_int_eq(w.placed_when_asked[1], 1);
	ck_assert_int_eq(count_entries(&tmps), 0);
}
END_TEST

/* SIGTERM pending while the set is placed: both are taken back, the call
 * says EINTR, and the signal then kills the process as if uncaught.  The
 * child blocks the signal before the call so that it is provably pending
 * inside it; it reports the call's result through a pipe. */
START_TEST(test_commit_all_interrupted)
{
	int fds[2], status, tmps;
	char result[64] = "";
	char second[160];
	struct stat st;
	ssize_t n;
	pid_t pid;

	snprintf(second, sizeof second, "%s.report.json", dest);
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct outfile a, b;
		struct outfile *set[] = { &a, &b };
		sigset_t term, old;
		size_t failed = 99;
		int rc;

		close(fds[0]);
		outfile_catch_signals();
		if (outfile_open(&a, dest) != 0 || outfile_open(&b, second) != 0)
			_exit(3);
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, &old);
		raise(SIGTERM);
		rc = outfile_commit_all_while(set, 2, &failed, NULL, NULL);
		dprintf(fds[1], "%d %d %zu", rc, errno, failed);
		close(fds[1]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		_exit(4);
	}
	close(fds[1]);
	n = read(fds[0], result, sizeof result - 1);
	close(fds[0]);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	snprintf(second, sizeof second, "-1 %d 2", EINTR);
	ck_assert_str_eq(result, second);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGTERM);
	ck_assert_int_eq(count_entries(&tmps), 0);
	ck_assert_int_eq(lstat(dest, &st), -1);
}
END_TEST

/* ---- unnamed temporary files (O_TMPFILE), the default where they exist ---- */

static void setup_unnamed(void)
{
	setup();
	outfile_test_simulate(OUTFILE_SIM_OFF, NULL);
}

/* Whether this kernel and file system give unnamed files here: open one
 * and see whether a name appeared. */
static int unnamed_here(void)
{
	struct outfile o;
	int tmps, n;

	ck_assert_int_eq(outfile_open(&o, dest), 0);
	n = count_entries(&tmps);
	outfile_abort(&o);
	return n == 0 && o.tmp == NULL;
}

START_TEST(test_unnamed_commit)
{
	mode_t old = umask(027);
	struct outfile o;
	struct stat st;
	int tmps;

	if (!unnamed_here()) {
		umask(old);
		return; /* named files, tested above */
	}
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	ck_assert_ptr_null(o.tmp);
	ck_assert_int_eq(count_entries(&tmps), 0);  /* nothing to be seen */
	ck_assert_int_eq(io_write_all(o.fd, "{\"a\":1}\n", 8), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	umask(old);
	expect_contents(dest, "{\"a\":1}\n");
	ck_assert_int_eq(lstat(dest, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(count_entries(&tmps), 1);
	ck_assert_int_eq(o.fd, -1);
}
END_TEST

/* The destination appeared meanwhile: refused, the other file untouched. */
START_TEST(test_unnamed_race)
{
	struct outfile o;
	int fd, tmps;

	if (!unnamed_here())
		return;
	ck_assert_int_eq(outfile_open(&o, dest), 0);
	fd = open(dest, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "theirs", 6), 6);
	close(fd);
	ck_assert_int_eq(io_write_all(o.fd, "ours", 4), 0);
	errno = 0;
	ck_assert_int_eq(outfile_commit(&o), -1);
	ck_assert_int_eq(errno, EEXIST);
	expect_contents(dest, "theirs");
	ck_assert_int_eq(count_entries(&tmps), 1);
}
END_TEST

/* SIGKILL while writing: no handler runs, and nothing is left. */
START_TEST(test_unnamed_sigkill_leaves_nothing)
{
	int fds[2], status, tmps;
	char c;
	pid_t pid;

	if (!unnamed_here())
		return;
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct outfile o;
		close(fds[0]);
		if (outfile_open(&o, dest) != 0 || io_write_all(o.fd, "x", 1) != 0)
			_exit(3);
		if (write(fds[1], "w", 1) != 1)
			_exit(4);
		pause();
		_exit(5);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);  /* it is writing */
	close(fds[0]);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(count_entries(&tmps), 0);
}
END_TEST

/* A set of unnamed outputs placed as one, and taken back on an interrupt. */
START_TEST(test_unnamed_commit_all_interrupted)
{
	int status, tmps;
	char second[160];
	pid_t pid;

	if (!unnamed_here())
		return;
	snprintf(second, sizeof second, "%s.report.json", dest);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct outfile a, b;
		struct outfile *set[] = { &a, &b };
		sigset_t term;
		size_t failed;
		outfile_catch_signals();
		if (outfile_open(&a, dest) != 0 || outfile_open(&b, second) != 0)
			_exit(3);
		sigemptyset(&term);
		sigaddset(&term, SIGTERM);
		sigprocmask(SIG_BLOCK, &term, NULL);
		raise(SIGTERM);
		if (outfile_commit_all_while(set, 2, &failed, NULL, NULL) != -1 || errno != EINTR || failed != 2)
			_exit(4);
		sigprocmask(SIG_UNBLOCK, &term, NULL);
		_exit(5);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGTERM);
	ck_assert_int_eq(count_entries(&tmps), 0);
}
END_TEST

static Suite *outfile_suite(void)
{
	Suite *s = suite_create("outfile");
	TCase *commit = tcase_create("commit");
	TCase *refuse = tcase_create("refuse");
	TCase *abort_ = tcase_create("abort");
	TCase *unnamed = tcase_create("unnamed");

	tcase_add_checked_fixture(commit, setup, teardown);
	tcase_add_loop_test(commit, test_commit, 0, (int)(sizeof umasks / sizeof umasks[0]));
	tcase_add_test(commit, test_commit_empty_file);
	tcase_add_test(commit, test_commit_relative);
	tcase_add_test(commit, test_commit_race);
	tcase_add_test(commit, test_commit_race_symlink);
	tcase_add_test(commit, test_commit_no_link);
	tcase_add_test(commit, test_commit_no_link_race);
	tcase_add_test(commit, test_commit_no_link_no_rename2);
	tcase_add_test(commit, test_commit_all);
	tcase_add_test(commit, test_commit_all_takes_back);
	tcase_add_test(commit, test_commit_all_interrupted);
	tcase_add_test(commit, test_commit_while_wanted);
	tcase_add_test(commit, test_commit_while_unwanted);
	tcase_add_test(commit, test_commit_while_taken_back);
	suite_add_tcase(s, commit);

	tcase_add_checked_fixture(refuse, setup, teardown);
	tcase_add_test(refuse, test_open_existing_file);
	tcase_add_test(refuse, test_replace);
	tcase_add_test(refuse, test_open_side);
	tcase_add_test(refuse, test_open_side_by_kind);
	tcase_add_test(refuse, test_open_dangling_symlink);
	tcase_add_test(refuse, test_open_symlink_to_file);
	tcase_add_test(refuse, test_open_directory);
	tcase_add_test(refuse, test_open_missing_directory);
	suite_add_tcase(s, refuse);

	tcase_add_checked_fixture(abort_, setup, teardown);
	tcase_add_test(abort_, test_abort);
	tcase_add_test(abort_, test_abort_all);
	tcase_add_test(abort_, test_signal_removes_tmp);
	suite_add_tcase(s, abort_);

	tcase_add_checked_fixture(unnamed, setup_unnamed, teardown);
	tcase_add_test(unnamed, test_unnamed_commit);
	tcase_add_test(unnamed, test_unnamed_race);
	tcase_add_test(unnamed, test_unnamed_sigkill_leaves_nothing);
	tcase_add_test(unnamed, test_unnamed_commit_all_interrupted);
	suite_add_tcase(s, unnamed);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(outfile_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
