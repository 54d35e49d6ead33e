#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include "core/lifeline.h"

int lifeline_check(int fd)
{
	struct stat st;
	int flags;

	if (fd < 0 || fstat(fd, &st) != 0 || (flags = fcntl(fd, F_GETFL)) < 0) {
		errno = EBADF;
		return -1;
	}
	if (!S_ISFIFO(st.st_mode) || (flags & O_ACCMODE) != O_RDONLY) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int lifeline_lost(const int *fds, size_t n)
{
	/* a fixed batch: a program takes a handful of lifelines at most */
	struct pollfd p[16];
	size_t i, j, k;
	int rc;

	for (i = 0; i < n; i += k) {
		for (k = 0; k < sizeof p / sizeof p[0] && i + k < n; k++) {
			p[k].fd = fds[i + k];
			p[k].events = POLLIN;
			p[k].revents = 0;
		}
		do
			rc = poll(p, (nfds_t)k, 0);
		while (rc < 0 && errno == EINTR);
		if (rc < 0)
			return 1; /* cannot tell: do not place on a guess */
		for (j = 0; rc > 0 && j < k; j++)
			if (p[j].revents & (POLLHUP | POLLERR | POLLNVAL))
				return 1;
	}
	return 0;
}
