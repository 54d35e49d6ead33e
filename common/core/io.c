/* F_SETPIPE_SZ is Linux-specific and needs _GNU_SOURCE (as do tee and
 * splice, in teepass.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io.h"

size_t io_grow_pipe(int fd)
{
	struct stat st;
	size_t size = 0;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
		int saved = errno;
#ifdef F_SETPIPE_SZ
		int now = fcntl(fd, F_GETPIPE_SZ);
		if (now < IO_PIPE_SIZE && fcntl(fd, F_SETPIPE_SZ, IO_PIPE_SIZE) >= 0)
			now = fcntl(fd, F_GETPIPE_SZ);
		size = now > 0 ? (size_t)now : 65536;
#else
		size = 65536;
#endif
		errno = saved;
	}
	return size;
}

long io_read_some(int fd, void *data, size_t n)
{
	for (;;) {
		ssize_t got = read(fd, data, n);
		if (got >= 0)
			return (long)got;
		if (errno != EINTR)
			return -1;
	}
}

int io_write_all(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		ssize_t put = write(fd, p, n);
		if (put < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += put;
		n -= (size_t)put;
	}
	return 0;
}

int io_open_spill(const char *prefix, const char **dir)
{
	const char *tmp = getenv("TMPDIR");
	char *path;
	int fd, saved;

	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	*dir = tmp;
	path = malloc(strlen(tmp) + strlen(prefix) + sizeof "/.XXXXXX");
	if (path == NULL) {
		errno = ENOMEM;
		return -1;
	}
	sprintf(path, "%s/%s.XXXXXX", tmp, prefix);
	fd = mkstemp(path);
	saved = errno;
	if (fd >= 0)
		unlink(path);
	free(path);
	errno = saved;
	return fd;
}
