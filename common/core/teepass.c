/* tee(2) and splice(2) are Linux-specific and need _GNU_SOURCE. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/teepass.h"

static int is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

void teepass_open(struct teepass *t, int in_fd, int out_fd)
{
	t->on = 0;
	t->shadow[0] = t->shadow[1] = t->null_fd = -1;
	t->lo = t->pend = t->hi = 0;
	t->cap = 0;
#ifdef SPLICE_F_NONBLOCK
	if (!is_pipe(in_fd) || !is_pipe(out_fd) || pipe2(t->shadow, O_CLOEXEC) != 0) {
		t->shadow[0] = t->shadow[1] = -1;
		return;
	}
	t->cap = io_grow_pipe(t->shadow[1]);
	t->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	t->on = t->cap > 0;
	if (!t->on)
		teepass_close(t);
#else
	(void)in_fd;
	(void)out_fd;
#endif
}

void teepass_close(struct teepass *t)
{
	int i;

	for (i = 0; i < 2; i++)
		if (t->shadow[i] >= 0)
			close(t->shadow[i]);
	if (t->null_fd >= 0)
		close(t->null_fd);
	t->shadow[0] = t->shadow[1] = t->null_fd = -1;
	t->on = 0;
}

/* Move n bytes from the shadow pipe to fd. */
static int move_out(struct teepass *t, int fd, uint64_t n)
{
	while (n > 0) {
		ssize_t k = splice(t->shadow[0], NULL, fd, NULL, n, SPLICE_F_MOVE);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO; /* the shadow pipe cannot run dry */
			return -1;
		}
		n -= (uint64_t)k;
	}
	return 0;
}

/* Drop n bytes from the shadow pipe: into /dev/null, or read and forgotten
 * where /dev/null takes no splice. */
static int drop(struct teepass *t, uint64_t n)
{
	char scratch[65536];

	if (n == 0)
		return 0;
	if (t->null_fd >= 0) {
		if (move_out(t, t->null_fd, n) == 0)
			return 0;
		if (errno != EINVAL)
			return -1;
		close(t->null_fd);
		t->null_fd = -1;
	}
	while (n > 0) {
		long k = io_read_some(t->shadow[0], scratch, n < sizeof scratch ? n : sizeof scratch);
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		n -= (uint64_t)k;
	}
	return 0;
}

int teepass_flush(struct teepass *t, struct writer *w)
{
	if (!t->on || t->pend == t->lo)
		return 0;
	if (writer_flush(w) != 0 || move_out(t, w->fd, t->pend - t->lo) != 0) {
		teepass_close(t);
		return -1;
	}
	t->lo = t->pend;
	return 0;
}

/* The shadow pipe failed us (not the output): forget it; the stage copies
 * from now on, which gives the same bytes. */
static void give_up(struct teepass *t)
{
	teepass_close(t);
}

int teepass_settle(struct teepass *t, struct writer *w, uint64_t consumed)
{
	if (!t->on)
		return 0;
	if (teepass_flush(t, w) != 0)
		return -1;
	if (consumed > t->lo) {
		if (drop(t, consumed - t->lo) != 0) {
			give_up(t);
			return 0;
		}
		t->lo = t->pend = consumed;
	}
	/* A long line still being read keeps its start here; when it leaves
	 * less than half the pipe, it is dropped and copied if passed. */
	if (t->hi - t->lo > t->cap / 2) {
		if (drop(t, t->hi - t->lo) != 0) {
			give_up(t);
			return 0;
		}
		t->lo = t->pend = t->hi;
	}
	return 0;
}

/* Wait until in_fd has data or has ended; 0, or -1 (errno). */
static int wait_input(int in_fd)
{
	struct pollfd p = { .fd = in_fd, .events = POLLIN };

	for (;;) {
		int k = poll(&p, 1, -1);
		if (k > 0)
			return 0;
		if (k < 0 && errno != EINTR)
			return -1;
	}
}

/* Whether the shadow pipe has no free slot: tee(2) counts pipe buffers, not
 * bytes, so partly filled pages can fill it before cap bytes are there. */
static int shadow_full(const struct teepass *t)
{
	struct pollfd p = { .fd = t->shadow[1], .events = POLLOUT };

	return poll(&p, 1, 0) == 0;
}

/* The shadow pipe failed us, or tee(2) cannot be had here: empty it (the
 * caller settled first, so nothing in it is owed) and copy from now on. */
static long read_plainly(struct teepass *t, int in_fd, void *dst, size_t n)
{
	give_up(t);
	return io_read_some(in_fd, dst, n);
}

long teepass_read(struct teepass *t, int in_fd, void *dst, size_t n)
{
	size_t want = n;
	int idle = 0;

	if (!t->on)
		return io_read_some(in_fd, dst, n);
	for (;;) {
		size_t room = t->cap - (size_t)(t->hi - t->lo);
		ssize_t k = tee(in_fd, t->shadow[1], want < room ? want : room, SPLICE_F_NONBLOCK);
		if (k > 0) {
			size_t got = 0;
			while (got < (size_t)k) {
				long r = io_read_some(in_fd, (char *)dst + got, (size_t)k - got);
				if (r <= 0) {
					if (r == 0)
						errno = EIO; /* what tee saw must be there */
					return -1;
				}
				got += (size_t)r;
			}
			t->hi += (uint64_t)k;
			return k;
		}
		if (k == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return read_plainly(t, in_fd, dst, want);
		if (shadow_full(t)) {
			/* the start of a line still being read fills it: drop it
			 * (copied if passed) */
			if (t->hi == t->lo || drop(t, t->hi - t->lo) != 0)
				return read_plainly(t, in_fd, dst, want);
			t->lo = t->pend = t->hi;
			continue;
		}
		/* input ready by poll(2) yet tee(2) keeps refusing: stop asking */
		if (++idle > 1000)
			return read_plainly(t, in_fd, dst, want);
		if (wait_input(in_fd) != 0)
			return -1;
	}
}

int teepass_pass(struct teepass *t, struct writer *w, uint64_t a, uint64_t b)
{
	if (!t->on)
		return 0;
	if (a < t->pend || b > t->hi) {
		/* not (all) in the shadow pipe, or passed twice: copied, after
		 * what is owed */
		return teepass_flush(t, w) == 0 ? 0 : -1;
	}
	if (a > t->pend) {
		/* lines in between were dropped */
		if (teepass_flush(t, w) != 0)
			return -1;
		if (drop(t, a - t->lo) != 0) {
			give_up(t);
			return 0;
		}
		t->lo = t->pend = a;
	}
	t->pend = b;
	return 1;
}
