#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/io.h"
#include "window/windowgroup.h"
#include "window/windowspan.h"

/* A chunk on disk: the offset of the partition's next chunk (NO_CHUNK for
 * none), the bytes of tuples that follow, then the tuples. */
#define NO_CHUNK UINT64_MAX
#define CHUNK_HEAD 12
/* A tuple: kind (1 byte), text length (4), key, lo, hi (8 each), text. */
#define TUPLE_HEAD 29

/* The three classes of keys: a flow id, an async id, a pair number. */
static unsigned class_of(enum windowgroup_kind kind)
{
	return kind == WGROUP_END ? WGROUP_BEGIN : kind;
}

/* A key's hash: its top bits pick the partition, its low bits the slot of
 * the matching table (splitmix64's finaliser mixes both well). */
static uint64_t hash_of(enum windowgroup_kind kind, int64_t key, const char *text, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15u * (class_of(kind) + 1);
	size_t i;

	if (text == NULL) {
		h ^= (uint64_t)key;
	} else {
		h ^= 0xcbf29ce484222325u;
		for (i = 0; i < n; i++)
			h = (h ^ (unsigned char)text[i]) * 0x100000001b3u;
	}
	h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9u;
	h = (h ^ (h >> 27)) * 0x94D049BB133111EBu;
	return h ^ (h >> 31);
}

size_t windowgroup_part_of(const struct windowgroup *g, enum windowgroup_kind kind, int64_t key,
			   const char *text, size_t n)
{
	return (size_t)((hash_of(kind, key, text, n) >> 32) % g->nparts);
}

int windowgroup_init(struct windowgroup *g, size_t nparts, const char *prefix)
{
	size_t p;

	memset(g, 0, sizeof *g);
	g->fd = -1;
	g->prefix = prefix;
	g->dir = "";
	g->nparts = nparts < 1 ? 1 : nparts > WINDOWGROUP_PARTS ? WINDOWGROUP_PARTS : nparts;
	g->round_events = WINDOWGROUP_ROUND;
	g->fill = calloc(g->nparts, sizeof *g->fill);
	g->first = malloc(g->nparts * sizeof *g->first);
	g->last = malloc(g->nparts * sizeof *g->last);
	g->count = calloc(g->nparts, sizeof *g->count);
	if (g->fill == NULL || g->first == NULL || g->last == NULL || g->count == NULL) {
		windowgroup_free(g);
		errno = ENOMEM;
		return -1;
	}
	for (p = 0; p < g->nparts; p++)
		g->first[p] = g->last[p] = NO_CHUNK;
	return 0;
}

void windowgroup_free(struct windowgroup *g)
{
	if (g->fd >= 0)
		close(g->fd);
	free(g->bufs);
	free(g->fill);
	free(g->first);
	free(g->last);
	free(g->count);
	free(g->blocks);
	memset(g, 0, sizeof *g);
	g->fd = -1;
}

static int pwrite_all(int fd, const void *data, size_t n, uint64_t at)
{
	const char *p = data;

	while (n > 0) {
		ssize_t put = pwrite(fd, p, n, (off_t)at);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0) {
			if (put == 0)
				errno = EIO;
			return -1;
		}
		p += put;
		n -= (size_t)put;
		at += (uint64_t)put;
	}
	return 0;
}

static int pread_all(int fd, void *data, size_t n, uint64_t at)
{
	char *p = data;

	while (n > 0) {
		ssize_t got = pread(fd, p, n, (off_t)at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				errno = EIO;  /* the file is shorter than written */
			return -1;
		}
		p += got;
		n -= (size_t)got;
		at += (uint64_t)got;
	}
	return 0;
}

static void put_u64(char *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

/* Append a chunk (head space included, len bytes of tuples after it) to
 * partition p's chain. */
static int put_chunk(struct windowgroup *g, size_t p, char *chunk, uint32_t len)
{
	char next[8];

	put_u64(chunk, NO_CHUNK);
	memcpy(chunk + 8, &len, 4);
	if (pwrite_all(g->fd, chunk, CHUNK_HEAD + (size_t)len, g->end) != 0)
		return -1;
	if (g->last[p] != NO_CHUNK) {
		put_u64(next, g->end);
		if (pwrite_all(g->fd, next, 8, g->last[p]) != 0)
			return -1;
	} else {
		g->first[p] = g->end;
	}
	g->last[p] = g->end;
	g->end += CHUNK_HEAD + (uint64_t)len;
	return 0;
}

static int flush_part(struct windowgroup *g, size_t p)
{
	int rc;

	if (g->fill[p] == 0)
		return 0;
	rc = put_chunk(g, p, g->bufs + p * WINDOWGROUP_CHUNK, g->fill[p]);
	g->fill[p] = 0;
	return rc;
}

static void put_tuple(char *t, enum windowgroup_kind kind, int64_t key, const char *text,
		      uint32_t n, int64_t lo, int64_t hi)
{
	t[0] = (char)kind;
	memcpy(t + 1, &n, 4);
	memcpy(t + 5, &key, 8);
	memcpy(t + 13, &lo, 8);
	memcpy(t + 21, &hi, 8);
	if (n > 0)
		memcpy(t + TUPLE_HEAD, text, n);
}

int windowgroup_add(struct windowgroup *g, enum windowgroup_kind kind, int64_t key,
		    const char *text, size_t n, int64_t lo, int64_t hi,
		    struct windowgroup_ref *ref)
{
	size_t p, need = TUPLE_HEAD + (text ? n : 0);
	uint32_t tn = text ? (uint32_t)n : 0;

	if (g->count == NULL) {  /* windowgroup_init failed */
		errno = ENOMEM;
		return -1;
	}
	p = windowgroup_part_of(g, kind, key, text, n);
	if (text != NULL && (n == 0 || n > UINT32_MAX - TUPLE_HEAD - CHUNK_HEAD)) {
		errno = EINVAL;
		return -1;
	}
	if (g->fd < 0) {
		if ((g->fd = io_open_spill(g->prefix, &g->dir)) < 0)
			return -1;
		if ((g->bufs = malloc(g->nparts * WINDOWGROUP_CHUNK)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (CHUNK_HEAD + g->fill[p] + need > WINDOWGROUP_CHUNK && flush_part(g, p) != 0)
		return -1;
	if (CHUNK_HEAD + need > WINDOWGROUP_CHUNK) {
		/* a key too long for a chunk: a chunk of its own */
		char *big = malloc(CHUNK_HEAD + need);
		int rc;
		if (big == NULL) {
			errno = ENOMEM;
			return -1;
		}
		put_tuple(big + CHUNK_HEAD, kind, key, text, tn, lo, hi);
		rc = put_chunk(g, p, big, (uint32_t)need);
		free(big);
		if (rc != 0)
			return -1;
	} else {
		char *at = g->bufs + p * WINDOWGROUP_CHUNK + CHUNK_HEAD + g->fill[p];
		put_tuple(at, kind, key, text, tn, lo, hi);
		g->fill[p] += (uint32_t)need;
	}
	if (g->count[p] >= UINT32_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	ref->part = (uint16_t)(p + 1);
	ref->rank = (uint32_t)g->count[p]++;
	return 0;
}

/* ---- matching: one partition at a time ------------------------------- */

/* A group being matched.  Text keys live in the partition's arena. */
struct slot {
	int64_t key, lo, hi;
	uint32_t text;      /* offset + 1 in the arena; 0: an integer key */
	uint32_t len;
	uint8_t used, cls, inside;  /* inside: an event overlaps the window */
};

struct table {
	struct slot *slots;
	size_t nslots, n;
	struct buf arena;
};

struct tuple {
	enum windowgroup_kind kind;
	uint32_t n;
	int64_t key, lo, hi;
	const char *text;   /* NULL: an integer key */
};

static struct slot *find(struct table *t, const struct tuple *u)
{
	size_t i = (size_t)hash_of(u->kind, u->key, u->text, u->n) & (t->nslots - 1);
	unsigned cls = class_of(u->kind);

	for (;; i = (i + 1) & (t->nslots - 1)) {
		struct slot *s = &t->slots[i];
		if (!s->used)
			return s;
		if (s->cls != cls || (s->text != 0) != (u->text != NULL))
			continue;
		if (u->text == NULL ? s->key == u->key :
		    s->len == u->n && memcmp(t->arena.p + s->text - 1, u->text, u->n) == 0)
			return s;
	}
}

static int table_grow(struct table *t)
{
	struct table bigger = { NULL, t->nslots ? t->nslots * 2 : 1024, t->n, t->arena };
	struct tuple u;
	size_t i;

	bigger.slots = calloc(bigger.nslots, sizeof *bigger.slots);
	if (bigger.slots == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < t->nslots; i++) {
		const struct slot *s = &t->slots[i];
		if (!s->used)
			continue;
		u.kind = s->cls;
		u.key = s->key;
		u.n = s->len;
		u.text = s->text ? t->arena.p + s->text - 1 : NULL;
		*find(&bigger, &u) = *s;
	}
	free(t->slots);
	*t = bigger;
	return 0;
}

/* The partition's tuples, chunk by chunk: each calls visit. */
static int each_tuple(struct windowgroup *g, size_t p, struct buf *chunk,
		      int (*visit)(void *arg, const struct tuple *u), void *arg)
{
	uint64_t at = g->first[p], next;
	char head[CHUNK_HEAD];
	uint32_t len, i;
	struct tuple u;

	while (at != NO_CHUNK) {
		if (pread_all(g->fd, head, CHUNK_HEAD, at) != 0)
			return -1;
		memcpy(&next, head, 8);
		memcpy(&len, head + 8, 4);
		buf_reset(chunk);
		if (buf_grow(chunk, len) != 0) {
			errno = ENOMEM;
			return -1;
		}
		if (pread_all(g->fd, chunk->p, len, at + CHUNK_HEAD) != 0)
			return -1;
		for (i = 0; i + TUPLE_HEAD <= len; ) {
			const char *t = chunk->p + i;
			u.kind = (enum windowgroup_kind)t[0];
			memcpy(&u.n, t + 1, 4);
			memcpy(&u.key, t + 5, 8);
			memcpy(&u.lo, t + 13, 8);
			memcpy(&u.hi, t + 21, 8);
			u.text = u.n ? t + TUPLE_HEAD : NULL;
			if (visit(arg, &u) != 0)
				return -1;
			i += TUPLE_HEAD + u.n;
		}
		at = next;
	}
	return 0;
}

struct match {
	struct windowgroup *g;
	struct table t;
	int64_t w0, w1;
	uint64_t rounds, round;  /* this partition's rounds, the one under way */
	uint8_t *out;      /* verdicts of the block at offset at */
	size_t nout;
	uint64_t at;       /* file offset of out[0] */
	uint64_t left;     /* the partition's events not yet judged this round */
};

/* Whether a tuple's key is matched in this round: more bits of the hash
 * than the partition's, so that each round holds a share of the keys. */
static int in_round(const struct match *m, const struct tuple *u)
{
	if (m->rounds == 1)
		return 1;
	return (hash_of(u->kind, u->key, u->text, u->n) >> 32) / m->g->nparts % m->rounds ==
	       m->round;
}

/* The first look at a partition: each group's extent. */
static int see_tuple(void *arg, const struct tuple *u)
{
	struct match *m = arg;
	struct slot *s;

	if (!in_round(m, u))
		return 0;
	if (2 * (m->t.n + 1) > m->t.nslots && table_grow(&m->t) != 0)
		return -1;
	s = find(&m->t, u);
	if (!s->used) {
		s->used = 1;
		s->cls = (uint8_t)class_of(u->kind);
		s->key = u->key;
		s->lo = INT64_MAX;
		s->hi = u->kind == WGROUP_BEGIN || u->kind == WGROUP_END ? INT64_MAX : INT64_MIN;
		if (u->text != NULL) {
			if (m->t.arena.len >= UINT32_MAX - u->n) {
				errno = EOVERFLOW;
				return -1;
			}
			s->text = (uint32_t)m->t.arena.len + 1;
			s->len = u->n;
			if (buf_add(&m->t.arena, u->text, u->n) != 0) {
				errno = ENOMEM;
				return -1;
			}
		}
		m->t.n++;
	}
	switch (u->kind) {
	case WGROUP_BEGIN:
		s->lo = u->lo;
		break;
	case WGROUP_END:
		s->hi = u->hi;
		break;
	default:
		if (u->lo < s->lo)
			s->lo = u->lo;
		if (u->hi > s->hi)
			s->hi = u->hi;
		if (windowspan_overlaps(u->lo, u->hi, m->w0, m->w1))
			s->inside = 1;
	}
	return 0;
}

/* Write the verdicts block out (a full one moves on to the next). */
static int put_out(struct match *m)
{
	if (m->nout > 0 && pwrite_all(m->g->fd, m->out, m->nout, m->at) != 0)
		return -1;
	m->at += m->nout;
	m->nout = 0;
	return 0;
}

/* The second look: each event's verdict, in the partition's order.  In a
 * round after the first, the block holds the earlier rounds' verdicts,
 * read back, and only this round's events are judged. */
static int judge_tuple(void *arg, const struct tuple *u)
{
	struct match *m = arg;
	const struct slot *s;
	uint8_t v;

	if (m->nout == WINDOWGROUP_BLOCK && put_out(m) != 0)
		return -1;
	if (m->round > 0 && m->nout == 0 &&
	    pread_all(m->g->fd, m->out, m->left < WINDOWGROUP_BLOCK ? m->left :
		      WINDOWGROUP_BLOCK, m->at) != 0)
		return -1;
	m->left--;
	if (!in_round(m, u)) {
		if (m->round == 0)
			m->out[m->nout] = 0;
		m->nout++;
		return 0;
	}
	s = find(&m->t, u);
	if (u->kind == WGROUP_BEGIN || u->kind == WGROUP_END)
		v = windowspan_overlaps(s->lo, s->hi, m->w0, m->w1) ? WGROUP_KEEP : WGROUP_DROP;
	else if (windowspan_contains(s->lo, s->hi, m->w0, m->w1))
		v = WGROUP_KEEP;
	else
		v = windowspan_overlaps(u->lo, u->hi, m->w0, m->w1) ? WGROUP_CUT : WGROUP_DROP;
	m->out[m->nout++] = v;
	return 0;
}

/* One round of a partition: the share of its keys in_round takes. */
static int match_round(struct match *m, size_t p, struct buf *chunk, uint64_t start)
{
	struct windowgroup *g = m->g;
	size_t i;

	if (m->t.nslots > 0)
		memset(m->t.slots, 0, m->t.nslots * sizeof *m->t.slots);
	m->t.n = 0;
	buf_reset(&m->t.arena);
	if (each_tuple(g, p, chunk, see_tuple, m) != 0)
		return -1;
	if (m->t.n > g->peak_keys)
		g->peak_keys = m->t.n;
	for (i = 0; i < m->t.nslots; i++) {
		const struct slot *s = &m->t.slots[i];
		if (!s->used || s->cls == WGROUP_BEGIN || !s->inside ||
		    windowspan_contains(s->lo, s->hi, m->w0, m->w1))
			continue;
		if (s->cls == WGROUP_FLOW)
			g->flows_cut++;
		else
			g->async_cut++;
	}
	m->at = start;
	m->nout = 0;
	m->left = g->count[p];
	if (each_tuple(g, p, chunk, judge_tuple, m) != 0)
		return -1;
	return put_out(m);
}

static int match_part(struct match *m, size_t p, struct buf *chunk)
{
	uint64_t start = m->at;

	m->rounds = (m->g->count[p] + m->g->round_events - 1) / m->g->round_events;
	if (m->rounds == 0)
		return 0;
	m->g->rounds += m->rounds;
	for (m->round = 0; m->round < m->rounds; m->round++)
		if (match_round(m, p, chunk, start) != 0)
			return -1;
	m->at = start + m->g->count[p];
	return 0;
}

int windowgroup_decide(struct windowgroup *g, int64_t w0, int64_t w1)
{
	struct match m;
	struct buf chunk = BUF_INIT;
	size_t p;
	int rc = 0;

	if (g->decided)
		return 0;
	g->decided = 1;
	if (g->fd < 0)
		return 0;
	for (p = 0; p < g->nparts; p++)
		if (flush_part(g, p) != 0)
			return -1;
	free(g->bufs);
	g->bufs = NULL;
	memset(&m, 0, sizeof m);
	m.g = g;
	m.w0 = w0;
	m.w1 = w1;
	m.t.arena = (struct buf)BUF_INIT;
	m.at = g->verdicts = g->end;
	m.out = malloc(WINDOWGROUP_BLOCK);
	g->blocks = calloc(g->nparts, sizeof *g->blocks);
	if (m.out == NULL || g->blocks == NULL) {
		errno = ENOMEM;
		rc = -1;
	}
	for (p = 0; p < g->nparts && rc == 0; p++)
		rc = match_part(&m, p, &chunk);
	free(m.out);
	free(m.t.slots);
	buf_release(&m.t.arena);
	buf_release(&chunk);
	return rc;
}

int windowgroup_verdict(struct windowgroup *g, struct windowgroup_ref ref)
{
	struct windowgroup_block *b;
	uint64_t base = g->verdicts, start;
	size_t p = (size_t)ref.part - 1, q;

	if (ref.part == 0 || p >= g->nparts || ref.rank >= g->count[p] || g->blocks == NULL) {
		errno = EINVAL;
		return -1;
	}
	b = &g->blocks[p];
	if (ref.rank < b->start || ref.rank >= b->start + b->n) {
		for (q = 0; q < p; q++)
			base += g->count[q];
		start = ref.rank - ref.rank % WINDOWGROUP_BLOCK;
		b->n = g->count[p] - start < WINDOWGROUP_BLOCK ? (uint32_t)(g->count[p] - start) :
			WINDOWGROUP_BLOCK;
		b->start = start;
		if (pread_all(g->fd, b->data, b->n, base + start) != 0) {
			b->n = 0;
			return -1;
		}
	}
	return b->data[ref.rank - b->start];
}
