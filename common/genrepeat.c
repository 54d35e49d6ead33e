/*
 * genrepeat: a real trace, N times over.  The text is checked once
 * (scan_text_valid), so the walk below only skips values: it never meets
 * malformed JSON.  Each copy is written from the text itself, with the
 * few numbers that change spliced in: the number format (integer or
 * decimal microseconds, the fraction's digits) stays as the trace wrote it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "genrepeat.h"
#include "scan.h"
#include "source.h"
#include "tsnum.h"

int genrepeat_load(const char *path, struct buf *text, const char **why)
{
	struct source *src = source_open(path);
	long n = 0;
	int rc = GENREPEAT_OK;

	if (src == NULL) {
		*why = strerror(errno);
		return GENREPEAT_WRITE;
	}
	for (;;) {
		if (buf_grow(text, 1 << 20) != 0) {
			*why = strerror(ENOMEM);
			rc = GENREPEAT_WRITE;
			break;
		}
		n = source_read(src, text->p + text->len, 1 << 20);
		if (n <= 0)
			break;
		buf_setlen(text, text->len + (size_t)n);
	}
	if (n < 0) {
		/* the message lives as long as the source: keep a copy */
		static char msg[160];

		snprintf(msg, sizeof msg, "%s", source_error(src));
		*why = msg;
		rc = source_error_is_damage(src) ? GENREPEAT_INPUT : GENREPEAT_WRITE;
	}
	source_close(src);
	return rc;
}

/* ---- skipping over valid JSON ---------------------------------------- */

static size_t skip_ws(const char *t, size_t i, size_t len)
{
	while (i < len && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t'))
		i++;
	return i;
}

/* t[i] is the opening quote; the index after the closing one. */
static size_t skip_string(const char *t, size_t i, size_t len)
{
	for (i++; i < len; i++) {
		if (t[i] == '\\')
			i++;
		else if (t[i] == '"')
			return i + 1;
	}
	return len;
}

static size_t skip_value(const char *t, size_t i, size_t len)
{
	size_t depth = 0;

	if (t[i] == '"')
		return skip_string(t, i, len);
	if (t[i] != '{' && t[i] != '[') {
		while (i < len && strchr(",]} \n\r\t", t[i]) == NULL)
			i++;
		return i;
	}
	for (; i < len; i++) {
		if (t[i] == '"') {
			i = skip_string(t, i, len) - 1;
		} else if (t[i] == '{' || t[i] == '[') {
			depth++;
		} else if (t[i] == '}' || t[i] == ']') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return len;
}

/* The members of the object at t[i] ('{'), one at a time: *key and *klen
 * the name's raw bytes, *v the value's start; returns the index after the
 * value, or 0 when the object has no more members.  *at: the walk's place
 * (start it at i). */
static size_t next_member(const char *t, size_t len, size_t *at, const char **key,
			  size_t *klen, size_t *v)
{
	size_t i, k, e;

	if (*at >= len || t[*at] == '}')    /* the object's end */
		return 0;
	i = skip_ws(t, *at + 1, len);
	if (i >= len || t[i] == '}')
		return 0;
	k = skip_string(t, i, len);
	*key = t + i + 1;
	*klen = k - i - 2;
	i = skip_ws(t, k, len) + 1;          /* past ':' */
	*v = skip_ws(t, i, len);
	e = skip_value(t, *v, len);
	*at = skip_ws(t, e, len);            /* at ',' or '}' */
	return e;
}

static int key_is(const char *key, size_t klen, const char *want)
{
	return klen == strlen(want) && memcmp(key, want, klen) == 0;
}

/* ---- the members that change ---------------------------------------- */

struct span {
	size_t at, len;  /* len 0: absent */
};

enum { F_TS, F_ID, F_CORR, F_EXT, F_COUNT };

struct fields {
	struct span f[F_COUNT];
	struct span dur;
	int meta;
};

static void set_once(struct span *s, size_t at, size_t end)
{
	if (s->len == 0) {
		s->at = at;
		s->len = end - at;
	}
}

/* The fields of the event object t[s, ...). */
static void event_fields(const char *t, size_t len, size_t s, struct fields *fl)
{
	size_t at = s, v, e, klen;
	const char *key;

	memset(fl, 0, sizeof *fl);
	while ((e = next_member(t, len, &at, &key, &klen, &v)) != 0) {
		if (key_is(key, klen, "ts")) {
			set_once(&fl->f[F_TS], v, e);
		} else if (key_is(key, klen, "dur")) {
			set_once(&fl->dur, v, e);
		} else if (key_is(key, klen, "id")) {
			set_once(&fl->f[F_ID], v, e);
		} else if (key_is(key, klen, "ph")) {
			fl->meta = e - v == 3 && t[v + 1] == 'M';
		} else if (key_is(key, klen, "args") && t[v] == '{') {
			size_t aat = v, av, ae, aklen;
			const char *akey;

			while ((ae = next_member(t, len, &aat, &akey, &aklen, &av)) != 0) {
				if (key_is(akey, aklen, "correlation"))
					set_once(&fl->f[F_CORR], av, ae);
				else if (key_is(akey, aklen, "External id"))
					set_once(&fl->f[F_EXT], av, ae);
			}
		}
	}
}

/* Digits only, at most 19 of them: 1 and *v. */
static int plain_u64(const char *p, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0 || n > 19)
		return 0;
	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 0;
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	*v = x;
	return 1;
}

/* ---- the events array ------------------------------------------------- */

struct layout {
	size_t open;        /* just after the array's '[' */
	size_t close;       /* just after its last event (open when empty) */
};

static int fail(struct genrepeat_error *err, uint64_t offset, const char *msg)
{
	err->offset = offset;
	snprintf(err->msg, sizeof err->msg, "%s", msg);
	return GENREPEAT_INPUT;
}

static int find_events(const char *t, size_t len, struct layout *lay,
		       struct genrepeat_error *err)
{
	size_t i, e, v, klen, at;
	const char *key;

	if (!scan_text_valid(t, len))
		return fail(err, 0, "not a JSON text (or nested deeper than 64 levels)");
	i = skip_ws(t, 0, len);
	if (t[i] == '{') {
		at = i;
		i = len;
		while ((e = next_member(t, len, &at, &key, &klen, &v)) != 0)
			if (key_is(key, klen, "traceEvents") && t[v] == '[') {
				i = v;
				break;
			}
		if (i == len)
			return fail(err, 0, "no traceEvents array");
	} else if (t[i] != '[') {
		return fail(err, i, "neither a JSON object nor an array");
	}
	lay->open = lay->close = i + 1;
	return GENREPEAT_OK;
}

/* The next element of the array after *at (an index just after '[' or after
 * an element): its start, and *end; 0 when there is none. */
static size_t next_event(const char *t, size_t len, size_t at, size_t *end)
{
	size_t i = skip_ws(t, at, len);

	if (i < len && t[i] == ',')
		i = skip_ws(t, i + 1, len);
	if (i >= len || t[i] == ']')
		return 0;
	*end = skip_value(t, i, len);
	return i;
}

int genrepeat_plan(const char *text, size_t len, struct genrepeat_plan *plan,
		   struct genrepeat_error *err)
{
	struct layout lay;
	struct fields fl;
	size_t at, s, e;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	uint64_t max_id = 0;
	int any_id = 0, rc;

	memset(plan, 0, sizeof *plan);
	if ((rc = find_events(text, len, &lay, err)) != GENREPEAT_OK)
		return rc;
	for (at = lay.open; (s = next_event(text, len, at, &e)) != 0; at = e) {
		unsigned k;

		plan->events++;
		if (text[s] != '{')
			continue;
		event_fields(text, len, s, &fl);
		if (fl.f[F_TS].len > 0) {
			const char *p = text + fl.f[F_TS].at;
			int64_t ts, dur = 0;
			int sub;

			if (tsnum_plain_int_len(p, fl.f[F_TS].len) == 0 ||
			    tsnum_us_to_ns(p, fl.f[F_TS].len, &ts, &sub) != NUM_OK)
				return fail(err, fl.f[F_TS].at,
					    "a ts that is not a plain decimal number of microseconds");
			if (fl.dur.len > 0 && (tsnum_us_to_ns(text + fl.dur.at, fl.dur.len, &dur,
							       &sub) != NUM_OK || dur < 0))
				dur = 0;
			if (!fl.meta) {
				lo = ts < lo ? ts : lo;
				hi = tsnum_sat_add(ts, dur) > hi ? tsnum_sat_add(ts, dur) : hi;
			}
		}
		plan->metadata += (uint64_t)fl.meta;
		for (k = F_ID; k < F_COUNT; k++) {
			uint64_t id;

			if (plain_u64(text + fl.f[k].at, fl.f[k].len, &id)) {
				max_id = id > max_id ? id : max_id;
				any_id = 1;
			}
		}
	}
	plan->shift_us = 1;
	if (lo <= hi)
		plan->shift_us += ((uint64_t)hi - (uint64_t)lo + 999) / 1000;
	if (any_id) {
		if (max_id == UINT64_MAX)
			return GENREPEAT_RANGE;
		plan->id_offset = max_id + 1;
	}
	return GENREPEAT_OK;
}

/* ---- writing ---------------------------------------------------------- */

static int put(struct writer *w, const char *p, size_t n)
{
	return n == 0 || writer_put(w, p, n) == 0 ? GENREPEAT_OK : GENREPEAT_WRITE;
}

static int put_u64(struct writer *w, uint64_t v)
{
	char tmp[20];
	size_t n = sizeof tmp;

	do {
		tmp[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	return put(w, tmp + n, sizeof tmp - n);
}

/* a + k * step, or 0 when that does not fit */
static int add_times(uint64_t a, uint64_t k, uint64_t step, uint64_t *r)
{
	if (step != 0 && k > (UINT64_MAX - a) / step)
		return 0;
	*r = a + k * step;
	return 1;
}

/* One event of copy k: the text with its ts and ids moved. */
static int put_event(const char *t, size_t s, size_t e, const struct fields *fl,
		     const struct genrepeat_plan *plan, uint64_t k, struct writer *w)
{
	struct span order[F_COUNT];
	unsigned n = 0, i, j;
	size_t from = s;
	int rc;

	for (i = 0; i < F_COUNT; i++)
		if (fl->f[i].len > 0)
			order[n++] = fl->f[i];
	for (i = 1; i < n; i++)      /* at most four, usually in text order */
		for (j = i; j > 0 && order[j].at < order[j - 1].at; j--) {
			struct span x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (i = 0; i < n; i++) {
		const char *p = t + order[i].at;
		int is_ts = order[i].at == fl->f[F_TS].at && fl->f[F_TS].len > 0;
		size_t ilen = is_ts ? tsnum_plain_int_len(p, order[i].len) : order[i].len;
		uint64_t v;

		if (!plain_u64(p, ilen, &v))
			continue;          /* not a plain integer id: kept as written */
		if (!add_times(v, k, is_ts ? plan->shift_us : plan->id_offset, &v))
			return GENREPEAT_RANGE;
		if ((rc = put(w, t + from, order[i].at - from)) != GENREPEAT_OK ||
		    (rc = put_u64(w, v)) != GENREPEAT_OK)
			return rc;
		from = order[i].at + ilen;
	}
	return put(w, t + from, e - from);
}

int genrepeat_write(const char *text, size_t len, uint64_t n, struct writer *w,
		    struct genrepeat_error *err)
{
	struct genrepeat_plan plan;
	struct layout lay;
	struct fields fl;
	const char *comma = ",";
	size_t at, s, e, comma_len = 1;
	uint64_t k, written = 0;
	int rc;

	if ((rc = genrepeat_plan(text, len, &plan, err)) != GENREPEAT_OK ||
	    (rc = find_events(text, len, &lay, err)) != GENREPEAT_OK)
		return rc;
	/* the separator between two events, for a copy's first one */
	if ((s = next_event(text, len, lay.open, &e)) != 0 &&
	    next_event(text, len, e, &at) != 0) {
		comma = text + e;
		comma_len = skip_ws(text, skip_ws(text, e, len) + 1, len) - e;
	}
	if ((rc = put(w, text, lay.open)) != GENREPEAT_OK)
		return rc;
	for (k = 0; k < n; k++) {
		size_t prev = lay.open;

		for (at = lay.open; (s = next_event(text, len, at, &e)) != 0; at = e) {
			const char *gap = text + prev;
			size_t gap_len = s - prev;

			prev = e;
			memset(&fl, 0, sizeof fl);
			if (text[s] == '{')
				event_fields(text, len, s, &fl);
			if (fl.meta && k > 0)
				continue;
			/* the first event written keeps the array's opening
			 * whitespace; any other takes a comma */
			if (written > 0 && memchr(gap, ',', gap_len) == NULL) {
				gap = comma;
				gap_len = comma_len;
			} else if (written == 0 && at != lay.open) {
				gap_len = 0;
			}
			if ((rc = put(w, gap, gap_len)) != GENREPEAT_OK ||
			    (rc = put_event(text, s, e, &fl, &plan, k, w)) != GENREPEAT_OK)
				return rc;
			written++;
		}
	}
	/* the tail after the original's last event (the whole rest when the
	 * array is empty) */
	for (at = lay.open; (s = next_event(text, len, at, &e)) != 0; at = e)
		lay.close = e;
	return put(w, text + lay.close, len - lay.close);
}
