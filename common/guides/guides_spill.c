#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guides/guides_spill.h"
#include "core/io.h"
#include "json/tsnum.h"
#include "core/writer.h"

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

int guides_spill_check(const struct guides_spill *s, size_t num_layers, size_t first_layer,
		       struct buf *msg)
{
	struct guides_walk w = { 0 };
	struct guides_kept prev;
	int64_t prev_us = 0;
	int have_back = 0, have_same = 0, rc;
	size_t back_layer = 0;

	buf_reset(msg);
	if (guides_walk_start(&w, s) != 0)
		return -1;
	while ((rc = guides_walk_next(&w, num_layers)) > 0) {
		if (w.status != GUIDES_OK && !have_back) {
			have_back = 1;
			back_layer = (size_t)w.cur.layer;
		}
		if (w.i > 0 && !have_same && w.sp.start_us == prev_us) {
			/* worded now, while both ts texts are at hand */
			have_same = 1;
			if (buf_printf(msg, "anchors %zu and %zu start within the same microsecond "
				       "(%s and %s); their guides would overlap in Perfetto",
				       (size_t)prev.anchor_index, (size_t)w.cur.anchor_index,
				       guides_spill_ts(s, &prev), guides_spill_ts(s, &w.cur)) != 0) {
				rc = -2;
				break;
			}
		}
		prev = w.cur;
		prev_us = w.sp.start_us;
	}
	guides_walk_free(&w);
	if (rc < 0)
		return rc;
	if (have_back) {
		buf_reset(msg);
		if (buf_printf(msg, "guide L%zu would end before it starts",
			       first_layer + back_layer) != 0)
			return -2;
		return GUIDES_BACKWARDS;
	}
	return have_same ? GUIDES_SAME_US : 0;
}

int guides_walk_row(const struct guides_walk *w, const char *const *names,
		    const char *const *tids, size_t first_layer, struct guides_row *x,
		    struct buf *end)
{
	const struct guides_kept *a = &w->cur;
	const struct guides_span *sp = &w->sp;
	int rc;

	memset(x, 0, sizeof *x);
	x->pass = (size_t)a->pass;
	x->layer = first_layer + (size_t)a->layer;
	x->anchor_index = (size_t)a->anchor_index;
	x->anchor_name = names[a->name];
	x->anchor_tid = tids[a->tid];
	x->start_text = guides_spill_ts(w->s, a);
	x->start_ns = sp->start_ns;
	x->end_ns = sp->end_ns;
	x->start_us = sp->start_us;
	x->end_us = sp->end_us;
	x->kind = guides_kind_name(sp->kind);
	buf_reset(end);
	if (sp->kind == GUIDES_NEXT_LAYER_ANCHOR)
		rc = buf_addstr(end, guides_spill_ts(w->s, &w->next));
	else if (sp->kind == GUIDES_TERMINAL_KERNEL_END)
		rc = tsnum_append_us3(end, sp->end_ns);
	else
		rc = buf_addstr(end, x->start_text);
	if (rc != 0)
		return -1;
	x->end_text = end->p;
	return 0;
}
