/* outfile: output files that appear whole or not at all.  Bytes go to a
 * temporary file in the destination's directory: an unnamed one (O_TMPFILE)
 * where the kernel and file system have them, so that nothing is left even
 * by SIGKILL, else a hidden ".NAME.tmp.XXXXXX".  Commit links it into place
 * only if the destination still does not exist (an existing file, or a
 * symlink in its place, is never replaced).  Abort, die() and
 * SIGINT/SIGTERM/SIGHUP remove every temporary file still open.
 * The common/ rule: library code returns a status and never prints or exits
 * (the signal handler dies of the signal, as the program would have). */
#ifndef TR_OUTFILE_H
#define TR_OUTFILE_H

#include <stddef.h>
#include <sys/stat.h>

struct outfile {
	char *path;  /* destination */
	char *tmp;   /* temporary file beside it; NULL when it is unnamed */
	int fd;
};

/* 0, or -1 with errno set: EEXIST when path exists (a symlink included). */
int outfile_open(struct outfile *o, const char *path);
/* A side output the user names (a summary, a table).  Written in place
 * (path then NULL; outfile_commit only closes it) when the path names a
 * descriptor the program was given (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N: a duplicate of it, so that a script can hand one over)
 * or when what it names is a FIFO or a character device (/dev/null, a
 * terminal); decided by opening it without O_CREAT or O_TRUNC, then
 * fstat(2).  Any other path follows outfile_open: a new file, placed whole
 * by outfile_commit; an existing one (/dev/shm/x, a regular file behind a
 * /dev/ name) is refused with EEXIST and left as it was.  0, or -1 with
 * errno set (EBADF: a named descriptor that is not open for writing). */
int outfile_open_side(struct outfile *o, const char *path);
/* Close, give the file its final mode (0666 less the umask) and link it into
 * place; on a file system without hard links, rename it into place with
 * RENAME_NOREPLACE.  0, or -1 with errno set (the temporary file is then
 * removed): EEXIST when the destination appeared meanwhile, EOPNOTSUPP
 * when neither hard links nor RENAME_NOREPLACE work there (the output is
 * refused rather than put in place by a rename that could replace). */
int outfile_commit(struct outfile *o);
/* Place several outputs as one set: each is committed in turn with SIGINT,
 * SIGTERM and SIGHUP blocked.  If one cannot be placed, or one of those
 * signals arrived meanwhile, the ones already placed are removed again, so
 * that the set appears whole or not at all.  0, or -1 with errno set (EINTR
 * for a signal) and *failed the index of the output that failed (n for a
 * signal); every temporary file is gone either way.  A signal that arrived is
 * delivered when the mask is restored, after the roll-back.
 * With wanted not NULL, the set is placed only while wanted(ctx) says 1: it
 * is asked before the first output is placed and again once the last is
 * (the signals still blocked); a 0 either time places nothing, or takes
 * back what was placed, and gives -1 with errno ECANCELED and *failed n.  A
 * set that stays was thus wanted after it was whole. */
int outfile_commit_all_while(struct outfile *const *files, size_t n, size_t *failed,
			     int (*wanted)(void *), void *ctx);
/* --force, for the whole process: from now on outfile_open takes an
 * existing file (not a directory: EISDIR) and outfile_commit replaces it by
 * one rename(2) of a named temporary file, so that the old file stays as it
 * was until the new one is whole and takes its name.  A set that cannot be
 * placed whole is still taken back (outfile_commit_all_while), and the files it
 * had replaced are then gone.  outfile_open_side then replaces an
 * existing regular file the same way (a FIFO, a device or a descriptor is
 * still written in place). */
void outfile_set_replace(int on);
/* 1 when path names the file that other describes (device and inode), so
 * that --force never replaces the input it reads. */
int outfile_same_file(const char *path, const struct stat *other);
/* Remove the temporary file (safe to call twice, or after commit). */
void outfile_abort(struct outfile *o);
/* Remove every temporary file still registered (for die() hooks). */
void outfile_abort_all(void);
/* Catch SIGINT, SIGTERM and SIGHUP: remove the temporary files, then die
 * of the signal as if uncaught. */
void outfile_catch_signals(void);

/* Tests only: make commit behave as on a file system without hard links
 * (OUTFILE_SIM_NO_LINK), and also without RENAME_NOREPLACE
 * (OUTFILE_SIM_NO_LINK_NO_RENAME2), or open named temporary files as where
 * O_TMPFILE is missing (OUTFILE_SIM_NAMED; every simulation does);
 * OUTFILE_SIM_OFF is the real thing.  hook, when not NULL, runs just
 * before the rename (a racing writer). */
enum { OUTFILE_SIM_OFF = 0, OUTFILE_SIM_NO_LINK, OUTFILE_SIM_NO_LINK_NO_RENAME2,
       OUTFILE_SIM_NAMED };
void outfile_test_simulate(int what, void (*hook)(void));

#endif
