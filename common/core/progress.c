#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/io.h"
#include "core/progress.h"

#define CLEAR "\r\033[K"

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int progress_wanted(int mode, int is_tty)
{
	if (mode == PROGRESS_FORCE)
		return 1;
	return mode == PROGRESS_AUTO && is_tty;
}

void progress_init(struct progress *p, int fd, progress_clock_fn clock)
{
	memset(p, 0, sizeof *p);
	p->fd = fd;
	p->clock = clock != NULL ? clock : monotonic_ns;
	p->phase = "working";
	p->born_ns = p->phase_ns = p->clock();
}

void progress_start(struct progress *p, int mode, int fd, const char *phase)
{
	progress_init(p, progress_wanted(mode, isatty(fd)) ? fd : -1, NULL);
	p->phase = phase;
}

void progress_phase(struct progress *p, const char *phase, uint64_t total)
{
	if (p->fd < 0)
		return;
	p->phase = phase;
	p->total = total;
	p->phase_ns = p->clock();
}

int progress_due(const struct progress *p, uint64_t now)
{
	if (now - p->born_ns < PROGRESS_DELAY_NS)
		return 0;
	return !p->drawn || now - p->drawn_ns >= PROGRESS_PERIOD_NS;
}

/* A write that fails turns the meter off: a run does not stop for it. */
static int put(struct progress *p, const char *s, size_t n)
{
	if (io_write_all(p->fd, s, n) != 0) {
		int saved = errno;
		p->fd = -1;
		errno = saved;
		return -1;
	}
	return 0;
}

int progress_update(struct progress *p, uint64_t done)
{
	char line[PROGRESS_LINE_MAX + sizeof CLEAR];
	uint64_t now;
	size_t n;

	if (p->fd < 0)
		return 0;
	now = p->clock();
	if (!progress_due(p, now))
		return 0;
	/* "\r", the line, then erase what a longer line before left */
	line[0] = '\r';
	n = 1 + progress_format(line + 1, PROGRESS_LINE_MAX, p->phase, done, p->total,
				now - p->phase_ns);
	if (n > PROGRESS_LINE_MAX)
		n = PROGRESS_LINE_MAX;
	memcpy(line + n, CLEAR + 1, sizeof CLEAR - 2);
	n += sizeof CLEAR - 2;
	p->drawn = 1;
	p->drawn_ns = now;
	return put(p, line, n);
}

int progress_end(struct progress *p)
{
	int rc = 0;

	if (p->fd >= 0 && p->drawn)
		rc = put(p, CLEAR, sizeof CLEAR - 1);
	p->fd = -1;
	p->drawn = 0;
	return rc;
}

size_t progress_bytes(char *buf, size_t cap, uint64_t n)
{
	static const char units[] = "KMG";
	uint64_t unit = 1024, tenths;
	int k = 0;
	int len;

	if (n < 1024) {
		len = snprintf(buf, cap, "%lluB", (unsigned long long)n);
		return len < 0 ? 0 : (size_t)len;
	}
	while (k < 2 && n >= unit * 1024) {
		unit *= 1024;
		k++;
	}
	/* rounded to a tenth, without n * 10 (which may not fit) */
	tenths = n / unit * 10 + ((n % unit) * 10 + unit / 2) / unit;
	if (tenths >= 10240 && k < 2) {
		/* 1023.95K rounds up to the next unit's 1.0M */
		unit *= 1024;
		k++;
		tenths = n / unit * 10 + ((n % unit) * 10 + unit / 2) / unit;
	}
	len = snprintf(buf, cap, "%llu.%llu%c", (unsigned long long)(tenths / 10),
		       (unsigned long long)(tenths % 10), units[k]);
	return len < 0 ? 0 : (size_t)len;
}

size_t progress_duration(char *buf, size_t cap, uint64_t s)
{
	int len;

	if (s < 3600)
		len = snprintf(buf, cap, "%llu:%02llu", (unsigned long long)(s / 60),
			       (unsigned long long)(s % 60));
	else
		len = snprintf(buf, cap, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
			       (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
	return len < 0 ? 0 : (size_t)len;
}

size_t progress_format(char *buf, size_t cap, const char *phase, uint64_t done, uint64_t total,
		       uint64_t elapsed_ns)
{
	char d[32], t[32], r[32], e[32];
	uint64_t rate = 0;
	int len;

	progress_bytes(d, sizeof d, done);
	/* bytes a second over the phase; a double, as the product may not fit */
	if (elapsed_ns > 0)
		rate = (uint64_t)((double)done * 1e9 / (double)elapsed_ns);
	progress_bytes(r, sizeof r, rate);
	if (total == 0) {
		len = snprintf(buf, cap, "%s %s %s/s", phase, d, r);
		return len < 0 ? 0 : (size_t)len;
	}
	progress_bytes(t, sizeof t, total);
	if (done >= total)
		snprintf(e, sizeof e, "0:00");
	else if (rate == 0)
		snprintf(e, sizeof e, "-:--");
	else
		progress_duration(e, sizeof e, (total - done + rate - 1) / rate);
	len = snprintf(buf, cap, "%s %s/%s %llu%% %s/s ETA %s", phase, d, t,
		       (unsigned long long)(done >= total ? 100
			: done <= UINT64_MAX / 100 ? done * 100 / total : done / (total / 100)),
		       r, e);
	return len < 0 ? 0 : (size_t)len;
}
