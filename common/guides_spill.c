#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guides_spill.h"
#include "io.h"

int guides_spill_init(struct guides_spill *s, int fd)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
	s->long_ts = (struct buf)BUF_INIT;
	if (writer_init(&s->out, fd) != 0) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int guides_spill_put(struct guides_spill *s, const struct guides_kept *k, const char *ts)
{
	struct guides_kept r = *k;
	size_t n = strlen(ts);

	memset(r.ts, 0, sizeof r.ts);
	r.ts_long = 0;
	if (n < GUIDES_SPILL_TS) {
		memcpy(r.ts, ts, n);
	} else {
		if (s->long_ts.len >= UINT32_MAX - n - 1) {
			errno = ENOMEM;
			return -1;
		}
		r.ts_long = (uint32_t)s->long_ts.len + 1;
		if (buf_add(&s->long_ts, ts, n + 1) != 0) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (writer_put(&s->out, &r, sizeof r) != 0)
		return -1;
	s->n++;
	return 0;
}

int guides_spill_finish(struct guides_spill *s)
{
	return writer_flush(&s->out);
}

const char *guides_spill_ts(const struct guides_spill *s, const struct guides_kept *k)
{
	return k->ts_long ? s->long_ts.p + k->ts_long - 1 : k->ts;
}

void guides_spill_free(struct guides_spill *s)
{
	writer_free(&s->out);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	buf_release(&s->long_ts);
}

/* The next record into *k: 1, 0 at the end, -1. */
static int next_record(struct guides_walk *w, struct guides_kept *k)
{
	if (w->at == w->nv) {
		long got = io_read_some(w->s->fd, w->v, GUIDES_SPILL_BLOCK * sizeof *w->v);
		if (got < 0)
			return -1;
		if (got % (long)sizeof *w->v != 0) {
			errno = EIO;
			return -1;
		}
		w->nv = (size_t)got / sizeof *w->v;
		w->at = 0;
		if (w->nv == 0)
			return 0;
	}
	*k = w->v[w->at++];
	return 1;
}

int guides_walk_start(struct guides_walk *w, const struct guides_spill *s)
{
	int rc;

	if (w->v == NULL && (w->v = malloc(GUIDES_SPILL_BLOCK * sizeof *w->v)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	w->s = s;
	w->nv = w->at = 0;
	w->i = 0;
	w->has_cur = w->has_next = 0;
	if (lseek(s->fd, 0, SEEK_SET) != 0)
		return -1;
	/* has_cur: the first guide is still to be handed out */
	if ((rc = next_record(w, &w->next)) < 0)
		return -1;
	w->has_next = rc;
	return 0;
}

static void to_anchor(const struct guides_kept *k, struct guides_anchor *a)
{
	a->layer = (size_t)k->layer;
	a->ts_ns = k->ts_ns;
	a->has_terminal = k->has_terminal;
	a->term_end_ns = k->term_end_ns;
}

int guides_walk_next(struct guides_walk *w, size_t num_layers)
{
	struct guides_anchor a, b;
	int rc;

	if (!w->has_next)
		return 0;
	if (w->has_cur)
		w->i++;
	w->cur = w->next;
	w->has_cur = 1;
	if ((rc = next_record(w, &w->next)) < 0)
		return -1;
	w->has_next = rc;
	to_anchor(&w->cur, &a);
	if (w->has_next)
		to_anchor(&w->next, &b);
	w->status = guides_span_of(&a, w->has_next ? &b : NULL, num_layers, &w->sp);
	return 1;
}

void guides_walk_free(struct guides_walk *w)
{
	free(w->v);
	w->v = NULL;
}
