/* Preloaded by t-progress: every read(2) of a whole MiB from a regular
 * file (a trace's stored blocks) sleeps SLOW_READ_MS milliseconds first,
 * so that a small trace takes the seconds after which the progress line
 * is drawn. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	struct stat sb;
	const char *ms = getenv("SLOW_READ_MS");

	if (real == NULL)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (n == (size_t)1 << 20 && ms != NULL && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		long v = atol(ms);
		struct timespec ts = { v / 1000, (v % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return real(fd, buf, n);
}
