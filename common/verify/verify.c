/* verify: see verify.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json/tsnum.h"
#include "stream/trstream.h"
#include "verify/verify.h"
#include "verify/verifybind.h"
#include "window/window.h"

/* The top-level members the checks read of an event, found in one walk
 * over its line (event_members) and shared by every check; the first four
 * are those verifysel_see_source reads. */
enum { EV_PH, EV_CAT, EV_NAME, EV_TS, EV_PID, EV_TID, EV_DUR, NEV, EV_ARGS = NEV };
static const char *const ev_keys[NEV + 1] = { "ph", "cat", "name", "ts", "pid", "tid", "dur",
					      "args" };

/* the whole window report is read as one document */
#define WINDOW_REPORT_MAX TRSTREAM_WINDOW_REPORT_MAX
#define WINDOW_REPORT_MAX_TEXT TRSTREAM_WINDOW_REPORT_MAX_TEXT

static void ev_read(const char *line, size_t len, struct member *m)
{
	event_members(line, len, ev_keys, NEV, m);
}

/* ev_read and args too, for an event tr-compact moved (m[EV_ARGS]): args
 * comes last, so this walk covers the line that ev_read stops short of. */
static void ev_read_moved(const char *line, size_t len, struct member *m)
{
	event_members(line, len, ev_keys, NEV + 1, m);
}

/* Index just past the object or array at line[i] of a line without a
 * backslash, or len: what event_skip_value finds there, its quotes always
 * bounding strings, so that only quotes and brackets are looked at (sixteen
 * bytes at a time on x86-64) -- not every comma and member of a GPU
 * kernel's args. */
static size_t skip_plain_container(const char *line, size_t len, size_t i)
{
	size_t depth = 0;
	int in_string = 0;

	for (;;) {
		unsigned mask = 0;
		size_t n = len - i < 16 ? len - i : 16, j;
#ifdef __SSE2__
		if (n == 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(line + i));
			__m128i hit = _mm_or_si128(
				_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
					     _mm_cmpeq_epi8(v, _mm_set1_epi8('{'))),
				_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('}')),
							  _mm_cmpeq_epi8(v, _mm_set1_epi8('['))),
					     _mm_cmpeq_epi8(v, _mm_set1_epi8(']'))));
			mask = (unsigned)_mm_movemask_epi8(hit);
		} else
#endif
		{
			for (j = 0; j < n; j++) {
				char c = line[i + j];
				if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']')
					mask |= 1u << j;
			}
		}
		while (mask != 0) {
			size_t at = i + (size_t)__builtin_ctz(mask);
			char c = line[at];
			mask &= mask - 1;
			if (c == '"')
				in_string = !in_string;
			else if (in_string)
				continue;
			else if (c == '{' || c == '[')
				depth++;
			else if (--depth == 0)
				return at + 1;
		}
		if (n < 16)
			return len;
		i += 16;
	}
}

/* ev_read_moved over a line without a backslash: the same walk as
 * event_members (the first member of each name, the walk ending where it
 * does), with objects and arrays passed over by skip_plain_container. */
static void ev_read_plain_moved(const char *line, size_t len, struct member *m)
{
	size_t i = 1;
	int k, found = 0;

	for (k = 0; k <= NEV; k++) {
		m[k].p = NULL;
		m[k].len = 0;
	}
	if (len < 2 || line[0] != '{')
		return;
	while (i < len && line[i] == '"' && found < NEV + 1) {
		const char *q = memchr(line + i + 1, '"', len - i - 1);
		size_t kend = q != NULL ? (size_t)(q - line) + 1 : len, vstart, vend, n;
		if (kend >= len || line[kend] != ':')
			return;
		vstart = kend + 1;
		vend = vstart < len && (line[vstart] == '{' || line[vstart] == '[')
			       ? skip_plain_container(line, len, vstart)
			       : event_skip_value(line, len, vstart);
		n = kend - i - 2;
		if (vend > vstart)
			for (k = 0; k <= NEV; k++)
				if (m[k].p == NULL && strlen(ev_keys[k]) == n &&
				    memcmp(line + i + 1, ev_keys[k], n) == 0) {
					m[k].p = line + vstart;
					m[k].len = vend - vstart;
					found++;
					break;
				}
		if (vend >= len || line[vend] != ',')
			return;
		i = vend + 1;
	}
}

static int int_of(struct verify *v, const struct jdoc *d, int obj, const char *key,
		  const char *path, int64_t *value)
{
	if (json_int64(d, json_find(d, obj, key), value) != 0)
		return verifycheck_trouble(v->vc, "%s: no integer %s", path, key);
	return 0;
}

static int cmp_retired(const void *a, const void *b)
{
	const struct verify_retired *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* The lanes of the compaction report's groups, with the pids of its scope
 * groups; 0, or -1. */
static int load_groups(struct verify *v, const struct jdoc *d, int groups, const char *path)
{
	int k, g, n = json_size(d, groups), nomem = 0;

	for (k = 0, g = groups + 1; k < n; k++, g = json_next(d, g)) {
		int tids = json_find(d, g, "lane_tids"), t, m, kind = json_find(d, g, "kind");
		char *pid = json_raw_dup(d, json_find(d, g, "display_pid"), &nomem);
		if (nomem)
			return verifycheck_nomem(v->vc);
		if (pid == NULL || json_type(d, tids) != JT_ARRAY) {
			free(pid);
			return verifycheck_trouble(v->vc, "%s: group without display_pid or "
						   "lane_tids", path);
		}
		if (json_size(d, tids) > v->max_lanes)
			verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "report: group pid %s has %d "
					 "lanes > max_lanes %" PRId64, pid, json_size(d, tids),
					 v->max_lanes);
		if (json_str_eq(d, kind, "scope") && intern_id(&v->scope_pids, pid, strlen(pid)) < 0)
			nomem = 1;
		for (m = 0, t = tids + 1; !nomem && m < json_size(d, tids); m++, t = json_next(d, t)) {
			size_t tn;
			const char *tid = json_raw(d, t, &tn);
			buf_reset(&v->tmp);
			buf_addstr(&v->tmp, pid);
			buf_addch(&v->tmp, '\001');
			buf_add(&v->tmp, tid, tn);
			if (intern_id(&v->lane_keys, v->tmp.p, v->tmp.len) < 0)
				nomem = 1;
		}
		free(pid);
		if (nomem)
			return verifycheck_nomem(v->vc);
	}
	return 0;
}

static int load_compaction(struct verify *v, const struct jdoc *d, int obj, const char *path)
{
	int groups = json_find(d, obj, "groups"), ret = json_find(d, obj, "retired_track_metadata");
	int k, g, n, nomem = 0;

	if (json_type(d, groups) != JT_ARRAY || json_type(d, ret) != JT_ARRAY)
		return verifycheck_trouble(v->vc, "%s: a compaction report needs groups and "
					   "retired_track_metadata", path);
	v->have_compact = 1;
	if (int_of(v, d, obj, "max_lanes", path, &v->max_lanes) != 0 ||
	    load_groups(v, d, groups, path) != 0 ||
	    verifyadd_load_compaction(&v->add, d, obj, path) != 0)
		return -1;
	free(v->lanes);
	if ((v->lanes = calloc(v->lane_keys.n + 1, sizeof *v->lanes)) == NULL)
		return verifycheck_nomem(v->vc);
	n = json_size(d, ret);
	for (k = 0; k < (int)v->nretired; k++)
		free(v->retired[k].text);
	free(v->retired);
	v->nretired = 0;
	if ((v->retired = calloc((size_t)n + 1, sizeof *v->retired)) == NULL)
		return verifycheck_nomem(v->vc);
	for (k = 0, g = ret + 1; k < n; k++, g = json_next(d, g)) {
		int64_t index;
		if (int_of(v, d, g, "source_event_index", path, &index) != 0)
			return -1;
		v->retired[k].index = (uint64_t)index;
		v->retired[k].text = json_raw_dup(d, json_find(d, g, "event"), &nomem);
		v->nretired = (size_t)k + 1;
		if (nomem)
			return verifycheck_nomem(v->vc);
		if (v->retired[k].text == NULL)
			return verifycheck_trouble(v->vc, "%s: retired metadata without its event",
						   path);
	}
	qsort(v->retired, v->nretired, sizeof *v->retired, cmp_retired);
	return 0;
}

/* window: a window report, whose failed claim stops the report (below) */
static void claim_sha(struct verify *v, const struct jdoc *d, int obj, const char *path,
		      int window)
{
	size_t n;
	int sha = json_find(d, obj, TRSTREAM_KEY_SOURCE_SHA256), file;
	const char *text;
	struct buf name = BUF_INIT;

	if (json_type(d, sha) != JT_STRING) {
		verifycheck_fail(v->vc, VERIFYCHECK_IDENTITY, "%s: no source_sha256", path);
		return;
	}
	text = json_text(d, sha, &n);
	/* NUL-separated: a file name may hold any other byte, a tab or a
	 * newline included */
	if (buf_add(&v->sha_claims, path, strlen(path) + 1) != 0 ||
	    buf_add(&v->sha_claims, text, n) != 0 || buf_add(&v->sha_claims, "", 1) != 0)
		verifycheck_nomem(v->vc);
	/* the kind of report ('W' a window), then the trace it was made from,
	 * as the report names it (empty: unnamed) */
	if (buf_addch(&v->sha_claims, window ? 'W' : 'R') != 0)
		verifycheck_nomem(v->vc);
	file = json_find(d, obj, "source_file");
	if (json_type(d, file) == JT_STRING && json_token_unescape(d, file, &name) == 0 &&
	    memchr(name.p, '\0', name.len) == NULL && buf_add(&v->sha_claims, name.p, name.len) != 0)
		verifycheck_nomem(v->vc);
	if (buf_add(&v->sha_claims, "", 1) != 0)
		verifycheck_nomem(v->vc);
	buf_release(&name);
}

/* A layers report: the guide track, the selection (verifysel), and the
 * compaction report folded into it, if any.  fd stays open for the rows. */
static int load_layers(struct verify *v, const struct jdoc *d, const char *path, int fd,
		       uint64_t rows_at, uint64_t nrows)
{
	int comp, nomem = 0;

	if (v->have_layers)
		return verifycheck_trouble(v->vc, "%s: a second layers report (give one)", path);
	v->have_layers = 1;
	v->layers_fd = fd;
	v->guide_pid = json_raw_dup(d, json_find(d, 0, "pid"), &nomem);
	if (nomem)
		return verifycheck_nomem(v->vc);
	v->guide_pid_len = v->guide_pid ? strlen(v->guide_pid) : 0;
	if (int_of(v, d, 0, "guide_tid", path, &v->guide_tid) != 0 ||
	    int_of(v, d, 0, "num_layers", path, &v->num_layers) != 0 ||
	    int_of(v, d, 0, "passes", path, &v->passes) != 0 ||
	    int_of(v, d, 0, "first_layer", path, &v->first_layer) != 0)
		return -1;
	v->guide_tid_len = (size_t)snprintf(v->guide_tid_text, sizeof v->guide_tid_text,
					    "%" PRId64, v->guide_tid);
	if (verifysel_load(&v->sel, d, path, v->num_layers, v->passes, v->first_layer, fd,
			   rows_at, nrows) != 0 || verifyadd_load_layers(&v->add, d, path) != 0)
		return -1;
	comp = json_find(d, 0, "compaction");
	if (json_type(d, comp) == JT_OBJECT)
		return load_compaction(v, d, comp, path);
	return 0;
}

int verify_load_report(struct verify *v, const char *path)
{
	struct buf head = BUF_INIT;
	struct jdoc d = JDOC_INIT;
	struct trstream_report r;
	struct trstream_error e;
	uint64_t rows_at, nrows;
	int rc = -1, keep_fd = 0;

	if (trstream_report_open(&r, path, &e) != 0)
		return verifycheck_report_error(v->vc, path, &e);
	if (trstream_report_head(&r, "\"layers\"", &head, &rows_at, &nrows, &e) != 0) {
		verifycheck_report_error(v->vc, path, &e);
	} else if (json_parse(&d, head.p, head.len, NULL) != 0 || json_type(&d, 0) != JT_OBJECT) {
		verifycheck_trouble(v->vc, "%s: not a JSON object", path);
	} else {
		claim_sha(v, &d, 0, path, 0);
		if (json_find(&d, 0, "guide_tid") >= 0) {
			keep_fd = !v->have_layers;
			rc = load_layers(v, &d, path, r.fd, rows_at, nrows);
		} else if (json_find(&d, 0, "groups") >= 0) {
			rc = load_compaction(v, &d, 0, path);
		} else {
			verifycheck_trouble(v->vc, "%s: neither a layers nor a compaction report",
					    path);
		}
	}
	if (!keep_fd)
		close(r.fd);
	json_free(&d);
	buf_release(&head);
	return rc;
}

/* A trace has a handful of categories and lanes: looking through them
 * beats hashing every event's.  The id of the key a, or a '\001' b when b
 * is not NULL, among the first FEW_MAX keys of t; -1 when it is not one of
 * them. */
#define FEW_MAX 32
static int64_t few_find(const struct intern *t, const char *a, size_t an, const char *b,
			size_t bn)
{
	size_t n = b != NULL ? an + 1 + bn : an;
	uint32_t id, upto = t->n < FEW_MAX ? t->n : FEW_MAX;

	for (id = 0; id < upto; id++) {
		const char *k = t->keys[id];
		if (t->lens[id] == n && memcmp(k, a, an) == 0 &&
		    (b == NULL || (k[an] == '\001' && memcmp(k + an + 1, b, bn) == 0)))
			return id;
	}
	return -1;
}

/* The category's index in v->cats, -1 when the event has none, or -2 when
 * memory ran out (vc's error). */
static int64_t count_cat(struct verify *v, struct member m, int64_t delta)
{
	const char *cat = m.p;
	size_t n = m.len;
	int64_t id;

	if (n == 0 || (n == 13 && memcmp(cat, "\"layer_guide\"", 13) == 0))
		return -1;
	id = few_find(&v->cats, cat, n, NULL, 0);
	if (id < 0)
		id = intern_id(&v->cats, cat, n);
	if (id < 0)
		return verifycheck_nomem(v->vc), -2;
	if ((size_t)id >= v->cat_cap) {
		size_t old = v->cat_cap;
		if (buf_array_room((void **)&v->cat_count, (size_t)id, &v->cat_cap, 64,
				   sizeof *v->cat_count) != 0)
			return verifycheck_nomem(v->vc), -2;
		memset(v->cat_count + old, 0, (v->cat_cap - old) * sizeof *v->cat_count);
	}
	v->cat_count[id] += delta;
	return id;
}

/* Describe where two event texts first differ. */
static void describe(struct buf *b, const char *a, size_t alen, const char *o, size_t olen)
{
	size_t i = 0, from;

	while (i < alen && i < olen && a[i] == o[i])
		i++;
	from = i > 30 ? i - 30 : 0;
	buf_printf(b, "byte %zu: source ...%.*s... output ...%.*s...", i,
		   (int)((alen - from) > 70 ? 70 : alen - from), a + from,
		   (int)((olen - from) > 70 ? 70 : olen - from), o + from);
}

/* One replacement in an event line: bytes [at, end) become text. */
struct edit {
	size_t at, end;
	const char *text;
	size_t len;
};

/* Apply three edits of line, in offset order, into out: 0, or -1 when two
 * overlap. */
static int apply_edits(const char *line, size_t len, const struct edit *e, struct buf *out)
{
	size_t k, pos = 0, at[3];
	unsigned order[3];

	for (k = 0; k < 3; k++)
		at[k] = e[k].at;
	event_edit_order(at, order);
	buf_reset(out);
	for (k = 0; k < 3; k++) {
		const struct edit *ek = &e[order[k]];
		if (ek->at < pos)
			return -1;
		buf_add(out, line + pos, ek->at - pos);
		buf_add(out, ek->text, ek->len);
		pos = ek->end;
	}
	buf_add(out, line + pos, len - pos);
	return 0;
}

/* The edits that undo a placement, given where its parts are: pid and tid
 * (e[0], e[1], already filled) take back their original text, and the
 * note goes -- with args itself when it held only the note.  0, or -1 when
 * the note or args is not where tr-compact puts it. */
static int undo_edits(const char *line, size_t len, int had_args, size_t key_at,
		      size_t note_end, size_t args_key_at, size_t args_end, struct edit e[3],
		      struct buf *out)
{
	if (had_args) {
		/* the note is the last member of args */
		if (note_end + 1 != args_end)
			return -1;
		if (line[key_at - 1] == ',')
			key_at--;
		e[2].at = key_at;
		e[2].end = note_end;
	} else {
		/* args holds only the note and is the event's last member */
		if (args_end + 1 != len)
			return -1;
		if (line[args_key_at - 1] == ',')
			args_key_at--;
		e[2].at = args_key_at;
		e[2].end = args_end;
	}
	e[2].text = "";
	e[2].len = 0;
	return apply_edits(line, len, e, out);
}

/* The note of a moved event without walking args again: key is the first
 * "_compact_gpu_track" in the line.  In a valid line without a backslash a
 * quote always bounds a string, so "KEY":{ there is a member name; when
 * its object value closes right where args closes, the note is a member of
 * args itself, and the first one so named (an earlier one would be an
 * earlier match): what event_members over args finds.  0 when that is not
 * the case, for the caller to walk args. */
static int note_of_args(const char *line, size_t len, struct member args, const char *key,
			struct member *note)
{
	size_t klen = sizeof TRSTREAM_KEY_COMPACT_TRACK - 1, at, end;

	if (key == NULL || key <= args.p || key + klen + 3 > args.p + args.len ||
	    key[-1] != '"' || memcmp(key + klen, "\":{", 3) != 0)
		return 0;
	at = (size_t)(key - line) + klen + 2;
	end = event_skip_value(line, len, at);
	if (end + 1 != (size_t)(args.p - line) + args.len)
		return 0;
	note->p = line + at;
	note->len = end - at;
	return 1;
}

/* undo() for a line without a backslash, where every member name is its
 * raw bytes: the same edits found by event_members instead of a parse
 * (tr-decode's lines are minified JSON objects).  m holds the line's
 * members as ev_read_moved found them (pid, tid and args among them), so
 * that the line is walked once for them; key the first "_compact_gpu_track"
 * in it (note_of_args).  As undo(). */
static int undo_plain(const char *line, size_t len, const struct member *m, const char *key,
		      struct buf *out, uint64_t *source_index)
{
	static const char *const note_keys[] = { "pid", "tid", "had_args", "source_event_index" };
	static const char *const args_key[] = { TRSTREAM_KEY_COMPACT_TRACK };
	struct member top[3], note[1], in[4];
	struct edit e[3];
	size_t args_at, args_end, note_at, note_end, key_at;
	int64_t idx;
	int had_args;

	top[0] = m[EV_ARGS];
	top[1] = m[EV_PID];
	top[2] = m[EV_TID];
	if (top[0].len == 0 || top[1].len == 0 || top[2].len == 0)
		return -1;
	if (!note_of_args(line, len, top[0], key, &note[0]))
		event_members(top[0].p, top[0].len, args_key, 1, note);
	if (note[0].len == 0 || note[0].p[0] != '{')
		return -1;
	event_members(note[0].p, note[0].len, note_keys, 4, in);
	if (in[0].len == 0 || in[1].len == 0 || in[3].len == 0 ||
	    tsnum_parse_int64(in[3].p, in[3].len, &idx) != NUM_OK || idx < 0)
		return -1;
	if (in[2].len == 4 && memcmp(in[2].p, "true", 4) == 0)
		had_args = 1;
	else if (in[2].len == 5 && memcmp(in[2].p, "false", 5) == 0)
		had_args = 0;
	else
		return -1;
	*source_index = (uint64_t)idx;
	args_at = (size_t)(top[0].p - line);
	args_end = args_at + top[0].len;
	note_at = (size_t)(note[0].p - line);
	note_end = note_at + note[0].len;
	/* the names are their raw bytes: "_compact_gpu_track": and "args": */
	key_at = note_at - (sizeof TRSTREAM_KEY_COMPACT_TRACK - 1 + 3);
	/* without had_args, args holds only the note */
	if (!had_args && (key_at != args_at + 1 || note_end + 1 != args_end))
		return -1;
	e[0].at = (size_t)(top[1].p - line);
	e[0].end = e[0].at + top[1].len;
	e[0].text = in[0].p;
	e[0].len = in[0].len;
	e[1].at = (size_t)(top[2].p - line);
	e[1].end = e[1].at + top[2].len;
	e[1].text = in[1].p;
	e[1].len = in[1].len;
	return undo_edits(line, len, had_args, key_at, note_end, args_at - 7, args_end, e, out);
}

/* Undo a placement: restore pid and tid, remove args._compact_gpu_track
 * (and args itself when had_args is false).  0, or -1 when the note is not
 * where tr-compact puts it. */
static int undo(struct verify *v, const char *line, size_t len, const struct member *m,
		const char *key, struct buf *out, uint64_t *source_index)
{
	struct jdoc *d = &v->doc;
	int args, note, pid, tid, opid, otid, had;
	size_t pn, tn, opn, otn, an, nn;
	const char *praw, *traw, *opraw, *otraw, *araw, *nraw;
	struct edit e[3];
	int64_t idx;

	if (memchr(line, '\\', len) == NULL)
		return undo_plain(line, len, m, key, out, source_index);
	if (json_parse(d, line, len, NULL) != 0)
		return -1;
	args = json_find(d, 0, "args");
	note = json_find(d, args, TRSTREAM_KEY_COMPACT_TRACK);
	pid = json_find(d, 0, "pid");
	tid = json_find(d, 0, "tid");
	if (json_type(d, note) != JT_OBJECT || pid < 0 || tid < 0)
		return -1;
	opid = json_find(d, note, "pid");
	otid = json_find(d, note, "tid");
	had = json_find(d, note, "had_args");
	if (opid < 0 || otid < 0 || json_int64(d, json_find(d, note, "source_event_index"), &idx) != 0 ||
	    idx < 0 || (!json_str_eq(d, had, "true") && json_type(d, had) != JT_PRIMITIVE))
		return -1;
	*source_index = (uint64_t)idx;
	praw = json_raw(d, pid, &pn);
	traw = json_raw(d, tid, &tn);
	opraw = json_raw(d, opid, &opn);
	otraw = json_raw(d, otid, &otn);
	araw = json_raw(d, args, &an);
	nraw = json_raw(d, note, &nn);
	{
		size_t hl;
		const char *h = json_raw(d, had, &hl);
		int had_args = hl == 4 && memcmp(h, "true", 4) == 0;

		if (!had_args && !(hl == 5 && memcmp(h, "false", 5) == 0))
			return -1;
		if (!had_args && json_size(d, args) != 1)
			return -1;
		e[0].at = (size_t)(praw - line);
		e[0].end = e[0].at + pn;
		e[0].text = opraw;
		e[0].len = opn;
		e[1].at = (size_t)(traw - line);
		e[1].end = e[1].at + tn;
		e[1].text = otraw;
		e[1].len = otn;
		return undo_edits(line, len, had_args, json_raw_offset(d, note - 1),
				  (size_t)(nraw - line) + nn, json_raw_offset(d, args - 1),
				  (size_t)(araw - line) + an, e, out);
	}
}

static int64_t lane_of(struct verify *v, const struct member *m, int *is_guide)
{
	const char *pid = m[EV_PID].p, *tid = m[EV_TID].p;
	size_t pn = m[EV_PID].len, tn = m[EV_TID].len;
	int64_t lane;

	*is_guide = 0;
	if (pn == 0 || tn == 0)
		return -1;
	/* a JSON integer has one text per value (no leading zeros), but for
	 * -0: the tid is guide_tid exactly when it is guide_tid's decimal text,
	 * as tsnum_parse_int64 would find, without parsing every GPU event's */
	if (v->have_layers && v->guide_pid_len == pn && memcmp(v->guide_pid, pid, pn) == 0 &&
	    ((tn == v->guide_tid_len && memcmp(tid, v->guide_tid_text, tn) == 0) ||
	     (v->guide_tid == 0 && tn == 2 && memcmp(tid, "-0", 2) == 0))) {
		*is_guide = 1;
		return -1;
	}
	if (v->lane_keys.n == 0)
		return -1;
	lane = few_find(&v->lane_keys, pid, pn, tid, tn);
	if (lane >= 0 || v->lane_keys.n <= FEW_MAX)
		return lane;
	buf_reset(&v->tmp);
	buf_add(&v->tmp, pid, pn);
	buf_addch(&v->tmp, '\001');
	buf_add(&v->tmp, tid, tn);
	return intern_find(&v->lane_keys, v->tmp.p, v->tmp.len);
}

/* Perfetto's nanoseconds of a ts text (quotes taken off): NUM_OK, or what
 * tsnum_perfetto_us_to_ns says.  A flow on a lane mostly has the ts of the
 * kernel just before it: the last text converted is kept. */
static int ts_ns(struct verify *v, const char *ts, size_t tn, int64_t *ns)
{
	int rc;

	if (tn == v->last_ts_len && tn > 0 && memcmp(ts, v->last_ts, tn) == 0) {
		*ns = v->last_ts_ns;
		return NUM_OK;
	}
	rc = tsnum_perfetto_us_to_ns(ts, tn, ns);
	if (rc == NUM_OK && tn <= sizeof v->last_ts) {
		memcpy(v->last_ts, ts, tn);
		v->last_ts_len = tn;
		v->last_ts_ns = *ns;
	}
	return rc;
}

static int pf_span(struct verify *v, const struct member *m, struct verify_slice *s)
{
	const char *ts = m[EV_TS].p, *dur = m[EV_DUR].p;
	size_t tn = m[EV_TS].len, dn = m[EV_DUR].len;
	int64_t t, d;

	if (tn == 0 || dn == 0)
		return -1;
	if (ts[0] == '"') { ts++; tn -= 2; }
	if (dur[0] == '"') { dur++; dn -= 2; }
	if (ts_ns(v, ts, tn, &t) != NUM_OK || tsnum_perfetto_us_to_ns(dur, dn, &d) != NUM_OK)
		return -1;
	s->start = t;
	s->end = t + d;
	return 0;
}

static int cmp_slice(const void *a, const void *b)
{
	const struct verify_slice *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Perfetto sorts longer slices first at equal ts */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_flow(const void *a, const void *b)
{
	const struct verify_flow *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The failing flows, reported in output order. */
static int cmp_flow_index(const void *a, const void *b)
{
	const struct verify_flow *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

#define VERIFY_SORT_RUN ((size_t)4 << 20)  /* bytes of records sorted in memory */

static int cmp_bound(const void *a, const void *b)
{
	const struct verify_bound *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Put a slice or a flow into its sort (set up at the first). */
static void put_sorted(struct verify *v, struct extsort *sort, const void *rec)
{
	if (!v->sorts_on) {
		if (extsort_init(&v->slices, sizeof(struct verify_slice), VERIFY_SORT_RUN,
				      cmp_slice, "tr-verify") != 0 ||
		    extsort_init(&v->flows, sizeof(struct verify_flow), VERIFY_SORT_RUN,
				      cmp_flow, "tr-verify") != 0 ||
		    extsort_init(&v->src_slices, sizeof(struct verify_slice), VERIFY_SORT_RUN,
				      cmp_slice, "tr-verify") != 0 ||
		    extsort_init(&v->bound, sizeof(struct verify_bound), VERIFY_SORT_RUN,
				      cmp_bound, "tr-verify") != 0) {
			verifycheck_nomem(v->vc);
			return;
		}
		v->sorts_on = 1;
	}
	if (extsort_put(sort, rec) != 0)
		verifycheck_trouble_errno(v->vc, errno, "temporary file");
}

/* The id of a moved event's (pid, tid) in the source, sm its members there;
 * the last one is kept, as a stream's events mostly come together. */
#define NO_SRC (VERIFY_WAITS - 1)
static uint32_t src_track(struct verify *v, const struct member *sm)
{
	int64_t id;

	if (sm[EV_PID].len == v->last_src_pn && sm[EV_TID].len == v->last_src_tn &&
	    v->last_src_pid != NULL && memcmp(sm[EV_PID].p, v->last_src_pid, v->last_src_pn) == 0 &&
	    memcmp(sm[EV_TID].p, v->last_src_tid, v->last_src_tn) == 0)
		return v->last_src;
	buf_reset(&v->tmp);
	buf_add(&v->tmp, sm[EV_PID].p, sm[EV_PID].len);
	buf_addch(&v->tmp, '\001');
	buf_add(&v->tmp, sm[EV_TID].p, sm[EV_TID].len);
	id = intern_id(&v->src_tracks, v->tmp.p, v->tmp.len);
	if (id < 0 || id >= (int64_t)NO_SRC) {
		if (id < 0)
			verifycheck_nomem(v->vc);
		return NO_SRC;
	}
	/* the key's copy stays where it is: compared from there next time */
	{
		const char *k = v->src_tracks.keys[id];
		v->last_src_pid = k;
		v->last_src_pn = sm[EV_PID].len;
		v->last_src_tid = k + sm[EV_PID].len + 1;
		v->last_src_tn = sm[EV_TID].len;
	}
	v->last_src = (uint32_t)id;
	return v->last_src;
}

/* Render bookkeeping for one output event (line), sm the members of its
 * source event when tr-compact moved it (else NULL); 1 when it sits on a
 * guide or lane track (or is metadata the tools add there).  Memory
 * running out is vc's error, for the caller to see. */
static int render_event(struct verify *v, const struct member *m, uint64_t oindex,
			const struct member *sm, const char *line, size_t len)
{
	int is_guide;
	int64_t lane = lane_of(v, m, &is_guide);
	const char *ph = m[EV_PH].p;
	size_t phn = m[EV_PH].len;
	struct verify_slice s;

	if (!is_guide && lane < 0)
		return 0;
	if (phn != 3) {
		verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "output event %" PRIu64 ": no ph on a %s track", oindex,
			is_guide ? "guide" : "lane");
		return 1;
	}
	if (ph[1] == 'M')
		return 1;
	if (ph[1] == 'X') {
		memset(&s, 0, sizeof s);
		s.index = oindex;
		s.track = is_guide ? 0 : (uint32_t)lane + 1;
		if (pf_span(v, m, &s) != 0) {
			verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "output event %" PRIu64 ": X without numeric ts and dur",
				oindex);
			return 1;
		}
		put_sorted(v, &v->slices, &s);
		if (sm != NULL && !is_guide) {
			/* where it was, for the flows' binding there */
			s.track = src_track(v, sm);
			put_sorted(v, &v->src_slices, &s);
		}
		if (is_guide) {
			v->nguides++;
			if (m[EV_NAME].len > 0) {
				buf_add(&v->guide_names, m[EV_NAME].p, m[EV_NAME].len);
				buf_addch(&v->guide_names, '\n');
			}
		} else {
			v->lanes[lane].n++;
		}
		return 1;
	}
	if (!is_guide && (ph[1] == 's' || ph[1] == 't' || ph[1] == 'f')) {
		const char *ts = m[EV_TS].p;
		size_t tn = m[EV_TS].len;
		struct verify_flow f;
		memset(&f, 0, sizeof f);
		f.track = (uint32_t)lane + 1;
		f.index = oindex;
		f.src = sm != NULL ? src_track(v, sm) : NO_SRC;
		/* an f without "bp":"e" binds to the next slice, not the open one */
		if (ph[1] == 'f' && event_find_bytes(line, len, "\"bp\":\"e\"", 8) == NULL)
			f.src |= VERIFY_WAITS;
		if (tn == 0 ||
		    ts_ns(v, ts[0] == '"' ? ts + 1 : ts, ts[0] == '"' ? tn - 2 : tn, &f.ts) != NUM_OK)
			f.ts = INT64_MIN;
		put_sorted(v, &v->flows, &f);
		v->nflows++;
		return 1;
	}
	verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "output event %" PRIu64 ": a '%c' event on a %s track (only X slices, "
		"flows and metadata import flat there)", oindex, ph[1], is_guide ? "guide" : "lane");
	return 1;
}

static void track_name(const struct verify *v, uint32_t track, const char **what,
		       char *name, size_t size)
{
	if (track == 0) {
		*what = "the guide track";
		name[0] = '\0';
		return;
	}
	*what = "lane";
	snprintf(name, size, " (pid, tid %s)", v->lane_keys.keys[track - 1]);
	for (char *c = name; *c; c++)
		if (*c == '\001')
			*c = ',';
}

static int next_sorted(struct verify *v, struct extsort *sort, const void **rec)
{
	int rc = extsort_next(sort, rec);

	if (rc < 0)
		verifycheck_trouble_errno(v->vc, errno, "temporary file");
	return rc > 0;
}

/* A flow of the view bound (or not) to a slice: kept for the binding in
 * the source. */
static int put_bound(void *ctx, void *rec, uint64_t slice)
{
	struct verify *v = ctx;
	struct verify_bound *b = rec;

	b->slice = slice;
	put_sorted(v, &v->bound, b);
	return v->vc->error ? -1 : 0;
}

/* Depth 0 for every slice of a track: the next slice (in Perfetto's order)
 * starts at or after the end of the previous one, and a zero-length slice
 * never shares its ts with another.  And every flow on a lane lies inside
 * the last slice starting at or before it, so that Perfetto attaches it to
 * its kernel.  One walk over the slices and the flows, both sorted by
 * track and time, in the order Perfetto imports them; the failing flows
 * are then told in output order.  The slice each moved flow binds to
 * (verifybind.h) goes to the sort of check_binding. */
static void check_render(struct verify *v)
{
	struct verify_slice prev = { UINT32_MAX, 0, 0, 0, 0 };
	const struct verify_slice *sl = NULL;
	const struct verify_flow *fl = NULL;
	struct extsort bad;
	struct verifybind bind;
	uint32_t bind_track = UINT32_MAX;
	const void *rec;
	int have_sl, have_fl, have_bad = 0;
	size_t i, nlanes_used = 0;
	char track[128];
	const char *what;

	verifycheck_ran(v->vc, VERIFYCHECK_RENDER);
	verifybind_init(&bind, 0, sizeof(struct verify_bound), put_bound, v);
	for (i = 0; i < v->lane_keys.n; i++)
		nlanes_used += v->lanes[i].n > 0;
	if (v->sorts_on) {
		if (extsort_finish(&v->slices) != 0 || extsort_finish(&v->flows) != 0 ||
		    extsort_init(&bad, sizeof(struct verify_flow), VERIFY_SORT_RUN,
				      cmp_flow_index, "tr-verify") != 0) {
			verifycheck_trouble_errno(v->vc, errno, "temporary file");
			return;
		}
		have_bad = 1;
		have_sl = next_sorted(v, &v->slices, &rec);
		sl = rec;
		have_fl = next_sorted(v, &v->flows, &rec);
		fl = rec;
		while ((have_sl || have_fl) && !v->vc->error) {
			uint32_t t = have_sl && (!have_fl || sl->track <= fl->track) ? sl->track
										 : fl->track;
			if (t != bind_track) {
				verifybind_track_end(&bind);
				bind_track = t;
			}
			if (have_sl && (!have_fl || sl->track < fl->track ||
					(sl->track == fl->track &&
					 verifybind_slice_first(sl->start, sl->end, sl->index, fl->ts,
								fl->index)))) {
				const struct verify_slice *a = &prev, *b = sl;
				if (a->track == b->track &&
				    (b->start < a->end || (b->start == a->end && a->start == a->end &&
							   b->start == b->end))) {
					track_name(v, b->track, &what, track, sizeof track);
					verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "output events %" PRIu64
						" and %" PRIu64 " overlap on %s%s as Perfetto imports them ([%"
						PRId64 ", %" PRId64 ") and [%" PRId64 ", %" PRId64 ") ns): the "
						"second would not be at depth 0", a->index, b->index, what,
						track, a->start, a->end, b->start, b->end);
				}
				if (verifybind_slice(&bind, sl->start, sl->end, sl->index) != 0)
					verifycheck_nomem(v->vc);
				prev = *sl;
				have_sl = next_sorted(v, &v->slices, &rec);
				sl = rec;
			} else {
				if (!(prev.track == fl->track && prev.start <= fl->ts &&
				      fl->ts <= prev.end) && extsort_put(&bad, fl) != 0)
					verifycheck_trouble_errno(v->vc, errno, "temporary file");
				if ((fl->src & ~VERIFY_WAITS) != NO_SRC) {
					struct verify_bound b;
					int waits = (fl->src & VERIFY_WAITS) != 0, r;
					memset(&b, 0, sizeof b);
					b.src = fl->src & ~VERIFY_WAITS;
					b.waits = (uint32_t)waits;
					b.ts = fl->ts;
					b.index = fl->index;
					if ((r = verifybind_flow(&bind, waits, &b, &b.slice)) < 0)
						verifycheck_nomem(v->vc);
					else if (r == 1)
						put_bound(v, &b, b.slice);
				}
				have_fl = next_sorted(v, &v->flows, &rec);
				fl = rec;
			}
		}
		verifybind_track_end(&bind);
	}
	verifybind_free(&bind);
	if (have_bad) {
		if (extsort_finish(&bad) == 0)
			while (next_sorted(v, &bad, &rec)) {
				fl = rec;
				verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "output event %" PRIu64 ": flow at %"
					PRId64 " ns is inside no slice of its lane, so Perfetto would not "
					"attach it to its kernel", fl->index, fl->ts);
			}
		extsort_free(&bad);
	}
	verifycheck_figures(v->vc, VERIFYCHECK_RENDER, "%zu guides, %zu lanes (at most %" PRId64
		   " per device), %zu flows on their kernels; depth 0 everywhere",
		   v->nguides, nlanes_used, v->have_compact ? v->max_lanes : 0, v->nflows);
}

/* The source event index of output event o (a source event, not one the
 * tools added): the retired events before it are not in the output. */
static uint64_t source_index_of(const struct verify *v, uint64_t o)
{
	uint64_t i = o;
	size_t k;

	for (k = 0; k < v->nretired; k++) {
		if (k > 0 && v->retired[k].index == v->retired[k - 1].index)
			continue;
		if (v->retired[k].index > i)
			break;
		i++;
	}
	return i;
}

/* A flow whose binding differs, for the report in output order. */
struct verify_mismatch {
	uint64_t index, view, source;
};

static int cmp_mismatch(const void *a, const void *b)
{
	const struct verify_mismatch *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

struct binding_walk {
	struct verify *v;
	struct extsort bad;
};

/* The slice a moved flow binds to in the source against the one it binds
 * to in the view. */
static int compare_bound(void *ctx, void *rec, uint64_t slice)
{
	struct binding_walk *w = ctx;
	const struct verify_bound *b = rec;
	struct verify_mismatch m;

	if (b->slice == slice)
		return 0;
	m.index = b->index;
	m.view = b->slice;
	m.source = slice;
	if (extsort_put(&w->bad, &m) != 0) {
		verifycheck_trouble_errno(w->v->vc, errno, "temporary file");
		return -1;
	}
	return 0;
}

static void say_slice(struct buf *b, const struct verify *v, uint64_t o)
{
	if (o == VERIFYBIND_NONE)
		buf_addstr(b, "no slice");
	else
		buf_printf(b, "output event %" PRIu64 " (source event %" PRIu64 ")", o,
			   source_index_of(v, o));
}

/* Every moved flow binds, in the output, to the slice it binds to in the
 * source: the moved slices on their source tracks and the flows with
 * their binding in the output (check_render's), both sorted by source
 * track and time, walked as Perfetto imports the source's tracks, except
 * that a slice sticking out of another nests in it (verifybind.h): where
 * a stream's kernels overlap, Perfetto's import of the source binds the
 * flow of the later one to the earlier, the view to its own.  A flow
 * bound to another kernel would draw its arrow there. */
static void check_binding(struct verify *v)
{
	const struct verify_slice *sl = NULL;
	const struct verify_bound *fb = NULL;
	struct binding_walk w;
	struct verifybind bind;
	uint32_t bind_track = UINT32_MAX;
	const void *rec;
	int have_sl, have_fb;
	uint64_t n = 0;

	if (!v->sorts_on || v->vc->error)
		return;
	w.v = v;
	if (extsort_finish(&v->src_slices) != 0 || extsort_finish(&v->bound) != 0 ||
	    extsort_init(&w.bad, sizeof(struct verify_mismatch), VERIFY_SORT_RUN, cmp_mismatch,
			 "tr-verify") != 0) {
		verifycheck_trouble_errno(v->vc, errno, "temporary file");
		return;
	}
	verifybind_init(&bind, 1, sizeof(struct verify_bound), compare_bound, &w);
	have_sl = next_sorted(v, &v->src_slices, &rec);
	sl = rec;
	have_fb = next_sorted(v, &v->bound, &rec);
	fb = rec;
	while ((have_sl || have_fb) && !v->vc->error) {
		uint32_t t = have_sl && (!have_fb || sl->track <= fb->src) ? sl->track : fb->src;
		if (t != bind_track) {
			verifybind_track_end(&bind);
			bind_track = t;
		}
		if (have_sl && (!have_fb || sl->track < fb->src ||
				(sl->track == fb->src &&
				 verifybind_slice_first(sl->start, sl->end, sl->index, fb->ts,
							fb->index)))) {
			if (verifybind_slice(&bind, sl->start, sl->end, sl->index) != 0 &&
			    !v->vc->error)
				verifycheck_nomem(v->vc);
			have_sl = next_sorted(v, &v->src_slices, &rec);
			sl = rec;
		} else {
			uint64_t slice;
			int r = verifybind_flow(&bind, (int)fb->waits, fb, &slice);
			if (r < 0)
				verifycheck_nomem(v->vc);
			else if (r == 1)
				compare_bound(&w, (void *)(uintptr_t)fb, slice);
			n++;
			have_fb = next_sorted(v, &v->bound, &rec);
			fb = rec;
		}
	}
	verifybind_track_end(&bind);
	verifybind_free(&bind);
	if (extsort_finish(&w.bad) == 0) {
		while (next_sorted(v, &w.bad, &rec)) {
			const struct verify_mismatch *m = rec;
			buf_reset(&v->diff);
			say_slice(&v->diff, v, m->view);
			buf_addstr(&v->diff, " in the output, but to ");
			say_slice(&v->diff, v, m->source);
			verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "output event %" PRIu64 ": moved "
					 "flow (source event %" PRIu64 ") binds to %s in the source: "
					 "Perfetto would draw its arrow to another slice", m->index,
					 source_index_of(v, m->index), v->diff.p);
		}
	} else {
		verifycheck_trouble_errno(v->vc, errno, "temporary file");
	}
	extsort_free(&w.bad);
	if (v->have_compact)
		verifycheck_figures(v->vc, VERIFYCHECK_RENDER, "; %" PRIu64 " moved flows bind "
				    "to the slices they bind to in the source", n);
}

static void check_counts(struct verify *v)
{
	size_t i;
	uint64_t ncats = 0;

	verifycheck_ran(v->vc, VERIFYCHECK_COUNTS);
	for (i = 0; i < v->cats.n; i++) {
		ncats++;
		if (v->cat_count[i] != 0)
			verifycheck_fail(v->vc, VERIFYCHECK_COUNTS, "category %s: %" PRId64 " more events in the source than "
				"in the output", v->cats.keys[i], v->cat_count[i]);
	}
	if (v->have_layers) {
		int64_t want = v->num_layers * v->passes, l;
		if ((int64_t)v->nguides != want)
			verifycheck_fail(v->vc, VERIFYCHECK_COUNTS, "%zu guides, expected %" PRId64 " (%" PRId64 " layers x %"
				PRId64 " passes)", v->nguides, want, v->num_layers, v->passes);
		for (l = 0; l < v->num_layers; l++) {
			char name[32];
			int64_t seen = 0;
			const char *p = v->guide_names.p;
			snprintf(name, sizeof name, "\"L%" PRId64 "\"\n", v->first_layer + l);
			while ((p = strstr(p, name)) != NULL) {
				if (p == v->guide_names.p || p[-1] == '\n')
					seen++;
				p++;
			}
			if (seen != v->passes)
				verifycheck_fail(v->vc, VERIFYCHECK_COUNTS, "guide L%" PRId64 " appears %" PRId64 " times, expected %"
					PRId64, v->first_layer + l, seen, v->passes);
		}
		verifycheck_figures(v->vc, VERIFYCHECK_COUNTS, "%zu guides = %" PRId64 " layers x %" PRId64
			   " passes, one guide track; ", v->nguides, v->num_layers, v->passes);
	}
	verifycheck_figures(v->vc, VERIFYCHECK_COUNTS, "%" PRIu64 " categories with equal counts", ncats);
}

/* The source's digest in its decoder's tail against every report's claim;
 * 0, or -1. */
static int check_identity(struct verify *v, const char *tail, size_t len)
{
	struct jdoc d = JDOC_INIT;
	int sha;
	size_t n;
	const char *actual;
	const char *claim, *end;
	unsigned claims = 0;
	int64_t bytes;

	verifycheck_ran(v->vc, VERIFYCHECK_IDENTITY);
	if (json_parse(&d, tail, len, NULL) != 0 ||
	    json_type(&d, sha = json_find(&d, 0, TRSTREAM_KEY_SOURCE_SHA256)) != JT_STRING) {
		json_free(&d);
		return verifycheck_trouble(v->vc, "%s: no digest from the decoder", v->src_path);
	}
	if (int_of(v, &d, 0, "source_bytes", v->src_path, &bytes) != 0) {
		json_free(&d);
		return -1;
	}
	actual = json_text(&d, sha, &n);
	/* claim_sha's triples: the report's path, its claim, 'W' (a window) or
	 * 'R' and the source file it names (empty when none), each NUL-ended */
	end = v->sha_claims.p + v->sha_claims.len;
	for (claim = v->sha_claims.p; claim < end; claim += strlen(claim) + 1) {
		const char *path = claim, *text = (claim += strlen(claim) + 1);
		const char *file = (claim += strlen(claim) + 1);
		int window = *file++ == 'W';
		claims++;
		if (strlen(text) == n && memcmp(text, actual, n) == 0)
			continue;
		if (window && *file != '\0') {
			verifycheck_fail(v->vc, VERIFYCHECK_IDENTITY, "%s: source_sha256 %s, but %s has %.*s (%" PRId64
				" bytes): it was made from %s; verify against that file (or the source "
				"changed since)", path, text, v->src_path, (int)n, actual, bytes, file);
			/* a window checked against another trace fails event
			 * after event: the line above is the one that matters */
			verifycheck_stop_after(v->vc, VERIFYCHECK_IDENTITY);
		} else if (*file != '\0') {
			/* the other checks stay: a source changed in place is
			 * named down to the event that differs */
			verifycheck_fail(v->vc, VERIFYCHECK_IDENTITY, "%s: source_sha256 %s, but %s has %.*s (%" PRId64
				" bytes): the source changed or is another file (the report was made "
				"from %s)", path, text, v->src_path, (int)n, actual, bytes, file);
		} else {
			verifycheck_fail(v->vc, VERIFYCHECK_IDENTITY, "%s: source_sha256 %s, but %s has %.*s (%" PRId64
				" bytes): the source changed or is another file",
				path, text, v->src_path, (int)n, actual, bytes);
		}
	}
	verifycheck_figures(v->vc, VERIFYCHECK_IDENTITY, "sha256 %.*s, %" PRId64 " bytes; %u "
			    "report%s", (int)n, actual, bytes, claims, claims == 1 ? "" : "s");
	if (claims == 0)
		verifycheck_figures(v->vc, VERIFYCHECK_IDENTITY, " (no report beside the output: "
				    "it must then equal the source)");
	json_free(&d);
	return 0;
}

/* The members of the head or tail records before or after traceEvents;
 * 0, or -1. */
static int compare_members(struct verify *v, const char *a, size_t alen, const char *b,
			   size_t blen, const char *where)
{
	struct jdoc d = JDOC_INIT;
	size_t an, bn;
	const char *am, *bm;
	int c = v->have_compact ? VERIFYCHECK_REVERSAL : VERIFYCHECK_PRESERVE;

	if (trstream_record_members(&v->doc, a, alen, &am, &an) != 0 ||
	    trstream_record_members(&d, b, blen, &bm, &bn) != 0) {
		json_free(&d);
		return verifycheck_trouble(v->vc, "malformed stream record");
	}
	if (an != bn || memcmp(am, bm, an) != 0) {
		struct buf diff = BUF_INIT;
		describe(&diff, am, an, bm, bn);
		verifycheck_fail(v->vc, c, "top-level members %s traceEvents differ: %s", where, diff.p);
		buf_release(&diff);
	}
	json_free(&d);
	return 0;
}

static int is_scope_metadata(struct verify *v, const struct member *m)
{
	return v->scope_pids.n > 0 && m[EV_PH].len == 3 && m[EV_PH].p[1] == 'M' &&
	       m[EV_PID].len > 0 && intern_find(&v->scope_pids, m[EV_PID].p, m[EV_PID].len) >= 0;
}

static int is_guide_cat(const struct member *m)
{
	return m[EV_CAT].len == 13 && memcmp(m[EV_CAT].p, "\"layer_guide\"", 13) == 0;
}

/* What the tools add after the source events: metadata (on a guide track, a
 * synthetic lane or a scope process) and the guide slices; nothing else. */
static int tool_added(struct verify *v, const struct member *m)
{
	int is_guide;

	if (m[EV_PH].len != 3)
		return 0;
	if (m[EV_PH].p[1] == 'M')
		return 1;
	lane_of(v, m, &is_guide);
	return m[EV_PH].p[1] == 'X' && is_guide && is_guide_cat(m);
}

static int is_guide_slice(struct verify *v, const struct member *m)
{
	int is_guide;

	lane_of(v, m, &is_guide);
	return is_guide && m[EV_PH].len == 3 && m[EV_PH].p[1] == 'X' && is_guide_cat(m);
}

int verify_next_line(struct verifycheck *vc, struct stream_in *in, const char *path,
		     const char **line, size_t *len)
{
	int kind;

	do {
		kind = stream_next(in, line, len);
		if (kind == LINE_ERROR || kind == LINE_END)
			return verifycheck_trouble(vc, "%s: could not be decoded (%s)", path,
						   kind == LINE_END ? "no tail" : in->err);
	} while (kind == LINE_CONTROL);
	return kind;
}

/* One change tr-compact makes to a source line, at [at, end) of it: its
 * pid or tid value replaced (the new value is read from the output), or
 * the note inserted (at == end). */
struct placed_edit {
	size_t at, end;
	int member;   /* EV_PID, EV_TID, or EV_ARGS for the note */
};

/* 1 when ol[*at..] opens with the n bytes p, then passed over. */
static int take(const char *ol, size_t olen, size_t *at, const char *p, size_t n)
{
	if (olen - *at < n || memcmp(ol + *at, p, n) != 0)
		return 0;
	*at += n;
	return 1;
}

/* Whether ol[*at..] opens with the note tr-compact writes for source event
 * i whose pid, tid and args are sm's: a member of args (after a comma when
 * args held any), or args itself after the last member.  1 with *at past
 * it and *key_at where its member name's first byte is; 0 when not. */
static int note_here(const char *ol, size_t olen, size_t *at, const struct member *sm,
		     uint64_t i, size_t *key_at)
{
	static const char args_key[] = ",\"args\":{";
	static const char name[] = "\"" TRSTREAM_KEY_COMPACT_TRACK "\":{\"pid\":";
	static const char tid[] = ",\"tid\":", index[] = ",\"source_event_index\":";
	static const char had[] = ",\"had_args\":true}", had_not[] = ",\"had_args\":false}}";
	char digits[24];
	size_t nd = sizeof digits;
	uint64_t rest = i;
	int had_args = sm[EV_ARGS].len > 0;

	do {
		digits[--nd] = (char)('0' + rest % 10);
		rest /= 10;
	} while (rest != 0);
	if (!had_args ? !take(ol, olen, at, args_key, sizeof args_key - 1)
		      : sm[EV_ARGS].len > 2 && !take(ol, olen, at, ",", 1))
		return 0;
	*key_at = *at + 1;
	return take(ol, olen, at, name, sizeof name - 1) &&
	       take(ol, olen, at, sm[EV_PID].p, sm[EV_PID].len) &&
	       take(ol, olen, at, tid, sizeof tid - 1) &&
	       take(ol, olen, at, sm[EV_TID].p, sm[EV_TID].len) &&
	       take(ol, olen, at, index, sizeof index - 1) &&
	       take(ol, olen, at, digits + nd, sizeof digits - nd) &&
	       (had_args ? take(ol, olen, at, had, sizeof had - 1)
			 : take(ol, olen, at, had_not, sizeof had_not - 1));
}

/* Is the output line ol exactly source event i (sl, with its members sm
 * and args among them: ev_read_moved) as tr-compact places it: its pid and
 * tid values replaced, and the note {"pid":P,"tid":T,"source_event_index":
 * i,"had_args":B} (P and T the source's own texts) added as the last member
 * of args, or as args itself after the last member when it had none?  And
 * is key, the first "_compact_gpu_track" in ol, the note's name?  Then,
 * for a line without a backslash, undo_plain would find that very note,
 * give back sl byte for byte and source index i: nothing for the reversal
 * check to say, so it need neither walk ol nor rebuild sl.  1 with om
 * filled as ev_read_moved over ol would (the source's members, the new pid
 * and tid; args left out, as nothing reads it after this); 0 when any of
 * that does not hold, for undo to say why. */
static int placed_as_noted(const char *sl, size_t slen,
			   const struct member *sm, const char *ol, size_t olen, const char *key,
			   uint64_t i, struct member *om)
{
	struct placed_edit e[3], t;
	size_t s = 0, o = 0, key_at = 0, k, j;

	/* (undo reads the index as an int64) */
	if (sm[EV_PID].len == 0 || sm[EV_TID].len == 0 || i > (uint64_t)INT64_MAX ||
	    (sm[EV_ARGS].len > 0 && (sm[EV_ARGS].p[0] != '{' ||
				     sm[EV_ARGS].p[sm[EV_ARGS].len - 1] != '}')) ||
	    memchr(ol, '\\', olen) != NULL)
		return 0;
	e[0].at = (size_t)(sm[EV_PID].p - sl);
	e[0].end = e[0].at + sm[EV_PID].len;
	e[0].member = EV_PID;
	e[1].at = (size_t)(sm[EV_TID].p - sl);
	e[1].end = e[1].at + sm[EV_TID].len;
	e[1].member = EV_TID;
	e[2].at = sm[EV_ARGS].len > 0 ? (size_t)(sm[EV_ARGS].p - sl) + sm[EV_ARGS].len - 1
				      : slen - 1;
	e[2].end = e[2].at;
	e[2].member = EV_ARGS;
	for (k = 0; k < 3; k++)
		for (j = k + 1; j < 3; j++)
			if (e[j].at < e[k].at) {
				t = e[k];
				e[k] = e[j];
				e[j] = t;
			}
	for (k = 0; k < 3; k++) {
		size_t n = e[k].at - s;
		if (olen - o < n || memcmp(ol + o, sl + s, n) != 0)
			return 0;
		o += n;
		if (e[k].member == EV_ARGS) {
			if (!note_here(ol, olen, &o, sm, i, &key_at))
				return 0;
		} else {
			/* the new value, where a walk over ol finds it */
			size_t end = event_skip_value(ol, olen, o);
			if (end == o)
				return 0;
			om[e[k].member].p = ol + o;
			om[e[k].member].len = end - o;
			o = end;
		}
		s = e[k].end;
	}
	if (olen - o != slen - s || memcmp(ol + o, sl + s, slen - s) != 0 ||
	    key != ol + key_at)
		return 0;
	for (k = 0; k < NEV; k++)
		if (k != EV_PID && k != EV_TID)
			om[k] = sm[k];
	om[EV_ARGS].p = NULL;
	om[EV_ARGS].len = 0;
	return 1;
}

/* One source event i and the output event o that stands at its place:
 * equal bytes, or a placement undone to equal bytes.  sm holds the
 * source's members, with args when key (the first "_compact_gpu_track" in
 * ol) is not NULL. */
static void compare_event(struct verify *v, const char *sl, size_t slen, const struct member *sm,
			  int64_t scat, const char *ol, size_t olen, const char *key, uint64_t i,
			  uint64_t o)
{
	int c = v->have_compact ? VERIFYCHECK_REVERSAL : VERIFYCHECK_PRESERVE, same, moved;
	int placed = 0;
	struct member om[NEV + 1];
	size_t k;

	/* most events are unchanged: their members are the source's */
	same = olen == slen && memcmp(ol, sl, slen) == 0;
	moved = key != NULL;
	if (moved) {
		placed = !same && placed_as_noted(sl, slen, sm, ol, olen, key, i, om);
		if (!placed)
			ev_read_moved(ol, olen, om);
	} else if (same) {
		for (k = 0; k < NEV; k++)
			om[k] = sm[k];
	} else {
		ev_read(ol, olen, om);
	}
	render_event(v, om, o, moved ? sm : NULL, ol, olen);
	if (!same)
		count_cat(v, om[EV_CAT], -1);
	else if (scat >= 0)
		v->cat_count[scat]--;
	if (moved) {
		uint64_t at;
		int is_guide;
		/* a moved event is drawn on one of the report's lanes, not on a
		 * track of its own */
		if (lane_of(v, om, &is_guide) < 0)
			verifycheck_fail(v->vc, VERIFYCHECK_RENDER, "output event %" PRIu64 ": moved "
					 "(it has %s) but not on a synthetic lane of the report", o,
					 TRSTREAM_KEY_COMPACT_TRACK);
		if (placed) {
			/* undo would give back sl and i: nothing to say */
		} else if (undo(v, ol, olen, om, key, &v->undone_text, &at) != 0) {
			verifycheck_fail(v->vc, VERIFYCHECK_REVERSAL, "output event %" PRIu64 ": "
					 "malformed %s note", o, TRSTREAM_KEY_COMPACT_TRACK);
		} else {
			if (at != i)
				verifycheck_fail(v->vc, VERIFYCHECK_REVERSAL, "output event %" PRIu64
						 ": records source index %" PRIu64 " but stands at "
						 "source position %" PRIu64, o, at, i);
			if (v->undone_text.len != slen || memcmp(v->undone_text.p, sl, slen) != 0) {
				buf_reset(&v->diff);
				describe(&v->diff, sl, slen, v->undone_text.p, v->undone_text.len);
				verifycheck_fail(v->vc, VERIFYCHECK_REVERSAL, "source event %" PRIu64
						 " (output event %" PRIu64 "), after undoing its "
						 "placement: %s", i, o, v->diff.p);
			}
		}
		v->undone++;
	} else if (!same) {
		buf_reset(&v->diff);
		describe(&v->diff, sl, slen, ol, olen);
		verifycheck_fail(v->vc, c, "source event %" PRIu64 " (output event %" PRIu64 "): %s",
				 i, o, v->diff.p);
	}
	v->compared++;
}

/* A source event that tr-compact retired: it must equal the report's copy. */
static void restore_event(struct verify *v, const char *sl, size_t slen, const char *t,
			  uint64_t i)
{
	if (strlen(t) != slen || memcmp(t, sl, slen) != 0) {
		buf_reset(&v->diff);
		describe(&v->diff, sl, slen, t, strlen(t));
		verifycheck_fail(v->vc, VERIFYCHECK_REVERSAL, "source event %" PRIu64 ": the retired "
				 "metadata in the report differs: %s", i, v->diff.p);
	}
	v->restored++;
}

/* A guide after the source events, the next in output order: as tr-guides
 * writes the one the placement check expects there. */
static int added_guide(struct verify *v, const char *line, size_t len, uint64_t o)
{
	const struct verifysel *sel = &v->sel;
	size_t k = sel->nguides;
	struct guides_row g;
	const struct verifysel_expect *e;

	if (sel->re == NULL || sel->broken || k >= sel->nexp || !sel->have_origin)
		return verifyadd_guide(&v->add, line, len, o, k, NULL, 0);
	e = &sel->exp[k];
	memset(&g, 0, sizeof g);
	g.pass = (size_t)e->pass;
	g.layer = (size_t)e->layer_id;
	g.anchor_index = (size_t)e->anchor_index;
	g.start_ns = e->start_ns;
	g.end_ns = e->end_ns;
	g.start_us = e->start_us;
	g.end_us = e->end_us;
	g.start_text = e->start_text;
	g.end_text = e->end_text;
	g.kind = e->kind;
	g.anchor_name = e->name;
	g.anchor_tid = e->tid;
	return verifyadd_guide(&v->add, line, len, o, k, &g, sel->origin_ns);
}

int verify_events(struct verify *v, struct stream_in *src, struct stream_in *out)
{
	const char *sl, *ol;
	size_t slen, olen;
	int skind, okind, c = v->have_compact ? VERIFYCHECK_REVERSAL : VERIFYCHECK_PRESERVE;
	struct member sm[NEV + 1], om[NEV];
	uint64_t i = 0, o = 0;
	size_t rnext = 0;
	struct verifycheck *vc = v->vc;

	if (v->lanes == NULL && (v->lanes = calloc(1, sizeof *v->lanes)) == NULL)
		return verifycheck_nomem(vc);
	if ((skind = verify_next_line(vc, src, v->src_path, &sl, &slen)) < 0 ||
	    (okind = verify_next_line(vc, out, v->out_path, &ol, &olen)) < 0)
		return -1;
	if (skind != LINE_HEAD || okind != LINE_HEAD)
		return verifycheck_trouble(vc, "decoder streams without a head");
	if (compare_members(v, sl, slen, ol, olen, "before") != 0 ||
	    (okind = verify_next_line(vc, out, v->out_path, &ol, &olen)) < 0)
		return -1;
	for (;;) {
		int64_t scat;
		int retired;
		const char *key = NULL;
		if ((skind = verify_next_line(vc, src, v->src_path, &sl, &slen)) < 0)
			return -1;
		if (skind == LINE_TAIL)
			break;
		retired = rnext < v->nretired && v->retired[rnext].index == i;
		/* an output event that tr-compact moved is checked against the
		 * source's args too (placed_as_noted) */
		if (!retired && okind != LINE_TAIL && v->have_compact)
			key = event_find_bytes(ol, olen, TRSTREAM_KEY_COMPACT_TRACK,
					       sizeof TRSTREAM_KEY_COMPACT_TRACK - 1);
		if (key != NULL && memchr(sl, '\\', slen) == NULL)
			ev_read_plain_moved(sl, slen, sm);
		else if (key != NULL)
			ev_read_moved(sl, slen, sm);
		else
			ev_read(sl, slen, sm);
		scat = count_cat(v, sm[EV_CAT], 1);
		if (v->have_layers && verifysel_see_source(&v->sel, sl, slen, sm, i) != 0)
			return -1;
		if (retired) {
			restore_event(v, sl, slen, v->retired[rnext].text, i);
			while (rnext < v->nretired && v->retired[rnext].index == i)
				rnext++;
		} else if (okind == LINE_TAIL) {
			verifycheck_fail(vc, c, "source event %" PRIu64 ": the output ends before it "
					 "(events were dropped)", i);
		} else {
			compare_event(v, sl, slen, sm, scat, ol, olen, key, i, o);
			o++;
			if ((okind = verify_next_line(vc, out, v->out_path, &ol, &olen)) < 0)
				return -1;
		}
		i++;
		if (vc->error)
			return -1;
	}
	if (v->have_layers && verifysel_finish_source(&v->sel) != 0)
		return -1;
	/* what follows the source events must be what the tools add, as the
	 * reports imply it (verifyadd.h); the guide track's metadata has the
	 * first guide's ts */
	verifyadd_begin(&v->add, c, v->sel.re != NULL && !v->sel.broken && v->sel.nexp > 0,
			v->sel.nexp > 0 ? v->sel.exp[0].start_us : 0);
	for (; okind != LINE_TAIL; o++) {
		ev_read(ol, olen, om);
		if ((render_event(v, om, o, NULL, ol, olen) || is_scope_metadata(v, om)) &&
		    tool_added(v, om)) {
			v->added++;
			if (om[EV_PH].p[1] == 'M') {
				if (verifyadd_meta_event(&v->add, ol, olen, o, om[EV_NAME].p,
							 om[EV_NAME].len, om[EV_PID].p, om[EV_PID].len,
							 om[EV_TID].p, om[EV_TID].len) != 0)
					return -1;
			} else if (v->have_layers && is_guide_slice(v, om) &&
				   (added_guide(v, ol, olen, o) != 0 ||
				    verifysel_guide(&v->sel, ol, olen, o) != 0)) {
				return -1;
			}
		} else {
			verifycheck_fail(vc, c, "output event %" PRIu64 ": not in the source and not "
					 "added by the tools (an event moved, duplicated or inserted?)", o);
			count_cat(v, om[EV_CAT], -1);
		}
		if (vc->error || (okind = verify_next_line(vc, out, v->out_path, &ol, &olen)) < 0)
			return -1;
	}
	verifyadd_finish(&v->add);
	if (rnext < v->nretired)
		verifycheck_fail(vc, VERIFYCHECK_REVERSAL, "the report retires source event %" PRIu64
				 ", beyond the source's %" PRIu64 " events", v->retired[rnext].index, i);
	if (compare_members(v, sl, slen, ol, olen, "after") != 0 ||
	    check_identity(v, sl, slen) != 0)
		return -1;
	verifycheck_ran(vc, c);
	verifycheck_figures(vc, c, "%" PRIu64 " events compared", i);
	if (v->have_compact)
		verifycheck_figures(vc, c, ", %" PRIu64 " placements undone, %" PRIu64
				    " metadata restored", v->undone, v->restored);
	verifycheck_figures(vc, c, ", %" PRIu64 " events added by the tools", v->added);
	return 0;
}

int verify_finish(struct verify *v)
{
	check_render(v);
	check_binding(v);
	check_counts(v);
	if (v->have_layers)
		verifysel_finish(&v->sel);
	return v->vc->error ? -1 : 0;
}

void verify_init(struct verify *v, struct verifycheck *vc, const char *src_path,
		 const char *out_path)
{
	memset(v, 0, sizeof *v);
	v->vc = vc;
	v->src_path = src_path;
	v->out_path = out_path;
	v->layers_fd = -1;
	v->sha_claims = (struct buf)BUF_INIT;
	v->guide_names = (struct buf)BUF_INIT;
	v->tmp = (struct buf)BUF_INIT;
	v->undone_text = (struct buf)BUF_INIT;
	v->diff = (struct buf)BUF_INIT;
	v->wtext = (struct buf)BUF_INIT;
	v->doc = (struct jdoc)JDOC_INIT;
	v->wdoc = (struct jdoc)JDOC_INIT;
	verifysel_init(&v->sel, vc, src_path);
	verifyadd_init(&v->add, vc);
}

/* Everything freed, so that valgrind's leak report means something. */
void verify_free(struct verify *v)
{
	size_t i;

	free(v->lanes);
	if (v->sorts_on) {
		extsort_free(&v->slices);
		extsort_free(&v->flows);
		extsort_free(&v->src_slices);
		extsort_free(&v->bound);
	}
	intern_free(&v->src_tracks);
	verifyadd_free(&v->add);
	for (i = 0; i < v->nretired; i++)
		free(v->retired[i].text);
	free(v->retired);
	free(v->guide_pid);
	free(v->cat_count);
	free(v->dropped);
	intern_free(&v->lane_keys);
	intern_free(&v->scope_pids);
	intern_free(&v->cats);
	json_free(&v->doc);
	json_free(&v->wdoc);
	buf_release(&v->tmp);
	buf_release(&v->undone_text);
	buf_release(&v->diff);
	buf_release(&v->wtext);
	buf_release(&v->sha_claims);
	buf_release(&v->guide_names);
	verifysel_free(&v->sel);
	if (v->layers_fd >= 0)
		close(v->layers_fd);
}

/* ---- a window (tr-window) ---------------------------------------------- */

/* The dropped_events of the window report: their source indices. */
static int load_dropped(struct verify *v, const char *window_path)
{
	struct jdoc *d = &v->wdoc;
	int rows = json_find(d, 0, "dropped_events"), tok;
	size_t k, cap = 0;

	for (k = 0, tok = rows + 1; rows >= 0 && k < (size_t)json_size(d, rows);
	     k++, tok = json_next(d, tok)) {
		int64_t idx;
		if (json_int64(d, json_find(d, tok, "source_index"), &idx) != 0 || idx < 0)
			return verifycheck_trouble(v->vc, "%s: a dropped_events row without "
						   "source_index", window_path);
		if (buf_array_room((void **)&v->dropped, v->ndropped, &cap, 64,
				   sizeof *v->dropped) != 0)
			return verifycheck_nomem(v->vc);
		v->dropped[v->ndropped++] = (uint64_t)idx;
	}
	return 0;
}

/* The report's member key, a number of microseconds, is ns exactly. */
static void claim_us(struct verify *v, const char *key, int64_t ns)
{
	char want[NUM_US_BUFSZ];
	size_t n = 0;
	int tok = json_find(&v->wdoc, 0, key), sub = 1;
	const char *got = tok >= 0 ? json_raw(&v->wdoc, tok, &n) : "";
	int64_t said;

	tsnum_format_us3(ns, want);
	if (json_type(&v->wdoc, tok) != JT_PRIMITIVE ||
	    tsnum_us_to_ns(got, n, &said, &sub) != NUM_OK || sub || said != ns)
		verifycheck_fail(v->vc, VERIFYCHECK_WINDOW, "the report's %s %.*s is not its %.*sns "
				 "%" PRId64 " (%s us)", key, (int)(n < 40 ? n : 40), got,
				 (int)strlen(key) - 2, key, ns, want);
}

/* The report's integer member key (of the object at obj) is the count
 * found in the window: 1 when it is not (the failure told). */
static int claim_count(struct verify *v, int obj, const char *group, const char *key,
		       uint64_t found, const char *where)
{
	int64_t said;
	int tok = obj >= 0 ? json_find(&v->wdoc, obj, key) : -1;
	size_t n = 4;
	const char *raw = tok >= 0 ? json_raw(&v->wdoc, tok, &n) : "none";

	if (json_int64(&v->wdoc, tok, &said) == 0 && said >= 0 && (uint64_t)said == found)
		return 0;
	verifycheck_fail(v->vc, VERIFYCHECK_WINDOW, "the report's %s%s%s %.*s is not the %" PRIu64
			 " %s", group, group[0] ? "." : "", key, (int)(n < 40 ? n : 40), raw, found,
			 where);
	return 1;
}

/* Every count the report gives, against the window and the source. */
static void window_claims(struct verify *v)
{
	struct jdoc *d = &v->wdoc;
	int kept = json_find(d, 0, "kept"), dropped = json_find(d, 0, "dropped");
	int64_t flows = -1, async = -1;
	enum window_cat c;

	if (claim_count(v, 0, "", "source_events", v->window_read, "events of the source") ||
	    claim_count(v, 0, "", "bytes_written", v->window_bytes,
			"bytes of the window's event lines"))
		return;
	for (c = 0; c < WCAT_N; c++)
		if (claim_count(v, kept, "kept", window_category_name(c), v->cat_kept[c],
				"events of that category in the window") ||
		    claim_count(v, dropped, "dropped", window_category_name(c), v->cat_dropped[c],
				"source events of that category not in it"))
			return;
	/* each id dropped has one event or more inside the window, listed */
	(void)json_int64(d, json_find(d, 0, "flows_dropped_end_outside"), &flows);
	(void)json_int64(d, json_find(d, 0, "async_dropped_end_outside"), &async);
	if (flows < 0 || async < 0 || (uint64_t)flows + (uint64_t)async > v->ndropped ||
	    ((flows + async == 0) != (v->ndropped == 0)))
		verifycheck_fail(v->vc, VERIFYCHECK_WINDOW, "the report's flows_dropped_end_outside "
				 "%" PRId64 " and async_dropped_end_outside %" PRId64 " do not fit the "
				 "%zu dropped events it lists", flows, async, v->ndropped);
}

int verify_window_load(struct verify *v, const char *window_path)
{
	struct trstream_report r;
	struct trstream_error e;
	struct buf path = BUF_INIT;
	size_t claims_len;
	int c, rc;

	if (trstream_report_open(&r, window_path, &e) != 0)
		return verifycheck_report_error(v->vc, window_path, &e);
	rc = trstream_report_whole(&r, WINDOW_REPORT_MAX, 0, &v->wtext, &e);
	close(r.fd);
	if (rc != 0 && e.kind == TRSTREAM_ERR_TOO_BIG)
		return verifycheck_trouble(v->vc, "%s: larger than " WINDOW_REPORT_MAX_TEXT,
					   window_path);
	if (rc != 0 && e.kind == TRSTREAM_ERR_SYSTEM)
		return verifycheck_trouble_errno(v->vc, e.errnum, "%s", window_path);
	if (rc != 0)
		return verifycheck_report_error(v->vc, window_path, &e);
	if (json_parse(&v->wdoc, v->wtext.p, v->wtext.len, NULL) != 0 ||
	    json_type(&v->wdoc, 0) != JT_OBJECT ||
	    json_int64(&v->wdoc, json_find(&v->wdoc, 0, "window_start_ns"), &v->w0) != 0 ||
	    json_int64(&v->wdoc, json_find(&v->wdoc, 0, "window_end_ns"), &v->w1) != 0)
		return verifycheck_trouble(v->vc, "%s: not a window report (no window_start_ns "
					   "and window_end_ns)", window_path);
	claim_sha(v, &v->wdoc, 0, window_path, 1);
	if (load_dropped(v, window_path) != 0)
		return -1;
	/* the reports of the trace the window was cut from: its guides and lanes
	 * (their source_sha256 names the trace before that one: not claimed) */
	claims_len = v->sha_claims.len;
	for (c = 0, rc = 0; c < 2 && rc == 0; c++) {
		struct stat sb;
		buf_reset(&path);
		buf_printf(&path, "%s%s", v->src_path,
			   c ? TRSTREAM_COMPACT_SUFFIX : TRSTREAM_LAYERS_SUFFIX);
		if (stat(path.p, &sb) == 0)
			rc = verify_load_report(v, path.p);
	}
	buf_release(&path);
	if (rc != 0)
		return -1;
	buf_setlen(&v->sha_claims, claims_len);
	if (v->lanes == NULL && (v->lanes = calloc(1, sizeof *v->lanes)) == NULL)
		return verifycheck_nomem(v->vc);
	if (v->w0 > v->w1)
		verifycheck_fail(v->vc, VERIFYCHECK_WINDOW, "the report's window starts after it "
				 "ends (window_start_ns %" PRId64 ", window_end_ns %" PRId64 ")",
				 v->w0, v->w1);
	claim_us(v, "window_start_us", v->w0);
	claim_us(v, "window_end_us", v->w1);
	v->w0 = window_half(v->w0);
	v->w1 = window_half(v->w1);
	return 0;
}

/* A source event not in the window: it must not overlap the window, or
 * be listed as dropped; 1 when it is missing. */
static int window_missing(struct verify *v, const char *sl, size_t sn, uint64_t si, size_t *k)
{
	static const char *const keys[] = { "ph", "ts", "dur" };
	struct member m[3];
	int64_t lo, hi;

	event_members(sl, sn, keys, 3, m);
	v->cat_dropped[window_category(m[0].p, m[0].len)]++;
	if (window_category(m[0].p, m[0].len) != WCAT_METADATA &&
	    window_interval(m[1].p, m[1].len, window_category(m[0].p, m[0].len) ==
			    WCAT_COMPLETE ? m[2].p : NULL, m[2].len, &lo, &hi) == 0 &&
	    windowspan_overlaps(lo, hi, v->w0, v->w1)) {
		while (*k < v->ndropped && v->dropped[*k] < si)
			++*k;
		if (*k == v->ndropped || v->dropped[*k] != si) {
			verifycheck_fail(v->vc, VERIFYCHECK_WINDOW, "source event %" PRIu64 " overlaps "
					 "the window but is not in it, and the report does not list "
					 "it as dropped", si);
			return 1;
		}
	}
	return 0;
}

int verify_window_events(struct verify *v, struct stream_in *src, struct stream_in *out)
{
	const char *sl = NULL, *ol = NULL;
	size_t sn = 0, on = 0, k = 0;
	uint64_t si = 0, oi = 0, matched_dropped = 0;
	int sk, ok, kind;
	struct member om[NEV];
	struct verifycheck *vc = v->vc;

	verifycheck_ran(vc, VERIFYCHECK_WINDOW);
	/* the heads first: the window's members are the source's */
	if ((sk = verify_next_line(vc, src, v->src_path, &sl, &sn)) < 0 ||
	    (kind = verify_next_line(vc, out, v->out_path, &ol, &on)) < 0)
		return -1;
	if (sk != LINE_HEAD || kind != LINE_HEAD)
		return verifycheck_trouble(vc, "a decoder wrote no head");
	if ((kind = verify_next_line(vc, out, v->out_path, &ol, &on)) < 0)
		return -1;
	ok = kind == LINE_EVENT;
	while ((sk = verify_next_line(vc, src, v->src_path, &sl, &sn)) == LINE_EVENT) {
		if (ok && on == sn && memcmp(ol, sl, sn) == 0) {
			ev_read(ol, on, om);
			render_event(v, om, oi, NULL, ol, on);
			v->cat_kept[window_category(om[EV_PH].p, om[EV_PH].len)]++;
			v->window_bytes += on + 1;
			oi++;
			while (k < v->ndropped && v->dropped[k] < si)
				k++;
			if (k < v->ndropped && v->dropped[k] == si)
				matched_dropped++;
			if ((kind = verify_next_line(vc, out, v->out_path, &ol, &on)) < 0)
				return -1;
			ok = kind == LINE_EVENT;
		} else {
			v->missing += (uint64_t)window_missing(v, sl, sn, si, &k);
		}
		si++;
		if (vc->error)
			return -1;
	}
	if (sk < 0)
		return -1;
	if (ok) {
		uint64_t extra = 0;
		do {
			ev_read(ol, on, om);
			render_event(v, om, oi + extra, NULL, ol, on);
			if (extra++ == 0)
				verifycheck_fail(vc, VERIFYCHECK_WINDOW, "output event %" PRIu64 " is no "
						 "source event (or is out of the source's order): %.*s",
						 oi, (int)(on < 200 ? on : 200), ol);
			if (vc->error || (kind = verify_next_line(vc, out, v->out_path, &ol, &on)) < 0)
				return -1;
		} while (kind == LINE_EVENT);
	}
	if (matched_dropped)
		verifycheck_fail(vc, VERIFYCHECK_WINDOW, "%" PRIu64 " events the report lists as "
				 "dropped are in the window", matched_dropped);
	v->window_kept = oi;
	v->window_read = si;
	/* the counts mean something once every event is where it should be */
	if (vc->item[VERIFYCHECK_WINDOW].failures == 0)
		window_claims(v);
	return check_identity(v, sl, sn);
}

void verify_window_finish(struct verify *v)
{
	size_t n = 0;
	int tok = json_find(&v->wdoc, 0, "spec");
	const char *spec = tok >= 0 ? json_raw(&v->wdoc, tok, &n) : "";

	verifycheck_figures(v->vc, VERIFYCHECK_WINDOW, "%" PRIu64 " events of %" PRIu64 " kept, "
			    "byte for byte and in order; %zu overlapping events dropped as the "
			    "report says, %" PRIu64 " missing", v->window_kept, v->window_read,
			    v->ndropped, v->missing);
	verifycheck_figures(v->vc, VERIFYCHECK_WINDOW, "; window %.*s", (int)n, spec);
	check_render(v);
}
