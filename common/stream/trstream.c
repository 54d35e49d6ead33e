/* trstream: see trstream.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "json/event.h"
#include "json/scan.h"
#include "stream/trstream.h"
#include "json/tsnum.h"

int trstream_record_begin(struct buf *b, const char *kind)
{
	return buf_printf(b, "{\"@tr\":\"%s\"", kind);
}

static int put_str(struct buf *b, const char *s)
{
	return json_escape(b, s, strlen(s));
}

static int put_str_or_null(struct buf *b, const char *s)
{
	return s != NULL ? put_str(b, s) : buf_addstr(b, "null");
}

static int put_raw_or_null(struct buf *b, const char *raw)
{
	return buf_addstr(b, raw != NULL ? raw : "null");
}

static int refuse(char *err, size_t errsz, const char *what, const char *detail)
{
	snprintf(err, errsz, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	return -1;
}

/* "malformed KIND record: no integer KEY" */
static int no_integer(char *err, size_t errsz, const char *what, const char *key)
{
	snprintf(err, errsz, "%s: no integer %s", what, key);
	return -1;
}

/* "malformed KIND record: KEY V out of range (LO to HI)" */
static int out_of_range(char *err, size_t errsz, const char *what, const char *key, int64_t v,
			int64_t lo, int64_t hi)
{
	snprintf(err, errsz, "%s: %s %" PRId64 " out of range (%" PRId64 " to %" PRId64 ")", what,
		 key, v, lo, hi);
	return -1;
}

/* "malformed KIND record: KEY V out of range (at least 0)" */
static int negative(char *err, size_t errsz, const char *what, const char *key, int64_t v)
{
	snprintf(err, errsz, "%s: %s %" PRId64 " out of range (at least 0)", what, key, v);
	return -1;
}

static int int_member(const struct jdoc *d, int obj, const char *key, int64_t *v)
{
	return json_int64(d, json_find(d, obj, key), v);
}

static struct trstream_raw raw_member(const struct jdoc *d, int obj, const char *key)
{
	struct trstream_raw r = { "null", 4 };
	int tok = json_find(d, obj, key);

	if (tok >= 0)
		r.p = json_raw(d, tok, &r.n);
	return r;
}

_Static_assert(2 * TRSTREAM_KERNEL_MAX_TEXT + 4096 <= TRSTREAM_REPORT_MAX_ROW,
	       "a guide's report row holds a kernel's texts and the next anchor's ts");

/* ---- head and tail ------------------------------------------------- */

int trstream_head_begin(struct buf *b, const struct trstream_head *h)
{
	if (trstream_record_begin(b, TRSTREAM_HEAD) != 0 ||
	    buf_printf(b, ",\"format\":\"%s\",\"source\":", h->array_format ? "array" : "object") != 0 ||
	    put_str(b, h->source) != 0)
		return -1;
	return buf_printf(b, ",\"tool\":\"%s\",\"version\":\"%s\",\"members\":{", h->tool,
			  h->version);
}

int trstream_head_end(struct buf *b)
{
	return buf_addstr(b, "}}");
}

int trstream_head_read(struct jdoc *d, const char *line, size_t len,
		       struct trstream_head_in *h, char *err, size_t errsz)
{
	struct buf name = BUF_INIT;
	int src;

	memset(h, 0, sizeof *h);
	if (json_parse(d, line, len, NULL) != 0 || json_type(d, 0) != JT_OBJECT)
		return refuse(err, errsz, "malformed head record", NULL);
	h->array_format = json_str_eq(d, json_find(d, 0, "format"), "array");
	src = json_find(d, 0, "source");
	if (json_type(d, src) == JT_STRING && json_token_unescape(d, src, &name) == 0) {
		h->source = malloc(name.len + 1);
		if (h->source == NULL) {
			buf_release(&name);
			return refuse(err, errsz, "out of memory", NULL);
		}
		memcpy(h->source, name.p, name.len + 1);
	}
	buf_release(&name);
	return 0;
}

int trstream_tail_begin(struct buf *b)
{
	if (trstream_record_begin(b, TRSTREAM_TAIL) != 0)
		return -1;
	return buf_addstr(b, ",\"members\":{");
}

int trstream_tail_end(struct buf *b, uint64_t events, uint64_t source_bytes,
		      const char *sha256_hex)
{
	return buf_printf(b, "},\"events\":%" PRIu64 ",\"source_bytes\":%" PRIu64
			  ",\"" TRSTREAM_KEY_SOURCE_SHA256 "\":\"%s\"}", events, source_bytes,
			  sha256_hex);
}

int trstream_tail_read(struct jdoc *d, const char *line, size_t len,
		       struct trstream_tail_in *t, char *err, size_t errsz)
{
	int64_t events, bytes;

	memset(t, 0, sizeof *t);
	if (json_parse(d, line, len, NULL) != 0 || json_type(d, 0) != JT_OBJECT)
		return refuse(err, errsz, "malformed tail record", NULL);
	if (int_member(d, 0, "events", &events) == 0 && events >= 0 &&
	    int_member(d, 0, "source_bytes", &bytes) == 0 && bytes >= 0) {
		t->events = (uint64_t)events;
		t->source_bytes = (uint64_t)bytes;
		t->has_counts = 1;
	}
	return 0;
}

/* ---- anchors ------------------------------------------------------- */

int trstream_anchors_write(struct buf *b, const struct trstream_anchors *a)
{
	char origin_us[NUM_US_BUFSZ];
	size_t i;

	if (trstream_record_begin(b, TRSTREAM_ANCHORS) != 0 ||
	    buf_addstr(b, ",\"anchor_regex\":") != 0 || put_str(b, a->anchor_regex) != 0 ||
	    buf_addstr(b, ",\"end_anchor_regex\":") != 0 ||
	    put_str_or_null(b, a->end_anchor_regex) != 0 ||
	    buf_addstr(b, ",\"confirm_regex\":") != 0 ||
	    put_str_or_null(b, a->confirm_regex) != 0)
		return -1;
	tsnum_format_us3(a->trace_origin_ns, origin_us);
	if (buf_printf(b, ",\"confirm_cpu\":%s,\"anchor_offset\":%" PRId64
		       ",\"matching_anchor_count\":%" PRIu64 ",\"num_layers\":%" PRId64
		       ",\"first_layer\":%" PRId64 ",\"passes\":%" PRId64 ",\"pid\":%s,\"device\":",
		       a->confirm_cpu ? "true" : "false", a->anchor_offset,
		       a->matching_anchor_count, a->num_layers, a->first_layer, a->passes,
		       a->pid) != 0 ||
	    put_raw_or_null(b, a->device) != 0 ||
	    buf_printf(b, ",\"trace_origin_ns\":%" PRId64 ",\"trace_origin_us\":%s,"
		       "\"used_tids\":[", a->trace_origin_ns, origin_us) != 0)
		return -1;
	for (i = 0; i < a->nused; i++)
		if ((i > 0 && buf_addch(b, ',') != 0) || buf_addstr(b, a->used_tids[i]) != 0)
			return -1;
	return buf_addstr(b, "]}");
}

int trstream_anchors_read(const char *line, size_t len, struct trstream_anchors_in *a,
			  char *err, size_t errsz)
{
	static const char what[] = "malformed anchors record";
	struct jdoc *d = &a->d;
	int used, n, k, tok;

	if (json_parse(d, line, len, NULL) != 0 || json_type(d, 0) != JT_OBJECT)
		return refuse(err, errsz, what, NULL);
	if (int_member(d, 0, "num_layers", &a->num_layers) != 0)
		return no_integer(err, errsz, what, "num_layers");
	if (int_member(d, 0, "first_layer", &a->first_layer) != 0)
		return no_integer(err, errsz, what, "first_layer");
	if (int_member(d, 0, "passes", &a->passes) != 0)
		return no_integer(err, errsz, what, "passes");
	if (int_member(d, 0, "trace_origin_ns", &a->trace_origin_ns) != 0)
		return no_integer(err, errsz, what, "trace_origin_ns");
	used = json_find(d, 0, "used_tids");
	if (json_find(d, 0, "pid") < 0 || json_type(d, used) != JT_ARRAY)
		return refuse(err, errsz, what, "no pid or used_tids");
	a->pid = raw_member(d, 0, "pid");
	a->pid_value = -1;
	(void)json_int64(d, json_find(d, 0, "pid"), &a->pid_value);
	a->device = raw_member(d, 0, "device");
	if (int_member(d, 0, "anchor_offset", &a->anchor_offset) != 0)
		return no_integer(err, errsz, what, "anchor_offset");
	/* tr-select-anchors' limits: a stage computes with these */
	if (a->num_layers < 1 || a->num_layers > TRSTREAM_MAX_LAYERS)
		return out_of_range(err, errsz, what, "num_layers", a->num_layers, 1,
				    TRSTREAM_MAX_LAYERS);
	if (a->first_layer < 0 || a->first_layer > TRSTREAM_MAX_LAYERS)
		return out_of_range(err, errsz, what, "first_layer", a->first_layer, 0,
				    TRSTREAM_MAX_LAYERS);
	if (a->passes < 1 || a->passes > TRSTREAM_MAX_LAYERS)
		return out_of_range(err, errsz, what, "passes", a->passes, 1, TRSTREAM_MAX_LAYERS);
	if (a->anchor_offset < 0 || a->anchor_offset > TRSTREAM_MAX_OFFSET)
		return out_of_range(err, errsz, what, "anchor_offset", a->anchor_offset, 0,
				    TRSTREAM_MAX_OFFSET);
	if (a->num_layers * a->passes > TRSTREAM_MAX_GUIDES) {
		snprintf(err, errsz, "%s: num_layers x passes is %" PRId64 ", more than %d", what,
			 a->num_layers * a->passes, TRSTREAM_MAX_GUIDES);
		return -1;
	}
	n = json_size(d, used);
	free(a->used_tids);
	a->nused = 0;
	a->used_tids = malloc(((size_t)n + 1) * sizeof *a->used_tids);
	if (a->used_tids == NULL)
		return refuse(err, errsz, "out of memory", NULL);
	for (k = 0, tok = used + 1; k < n; k++, tok = json_next(d, tok))
		if (json_int64(d, tok, &a->used_tids[a->nused]) == 0)
			a->nused++;
	return 0;
}

struct trstream_raw trstream_anchors_raw(const struct trstream_anchors_in *a, const char *key)
{
	return raw_member(&a->d, 0, key);
}

void trstream_anchors_in_free(struct trstream_anchors_in *a)
{
	json_free(&a->d);
	free(a->used_tids);
	a->used_tids = NULL;
	a->nused = 0;
}

static int put_kernel(struct buf *b, const struct trstream_kernel *k)
{
	if (buf_addstr(b, "{\"source_index\":") != 0 || buf_add_u64(b, k->source_index) != 0 ||
	    buf_addstr(b, ",\"pid\":") != 0 || put_raw_or_null(b, k->pid) != 0 ||
	    buf_addstr(b, ",\"tid\":") != 0 ||
	    put_raw_or_null(b, k->tid) != 0 || buf_addstr(b, ",\"device\":") != 0 ||
	    put_raw_or_null(b, k->device) != 0 || buf_addstr(b, ",\"ts\":") != 0 ||
	    put_raw_or_null(b, k->ts) != 0 || buf_addstr(b, ",\"dur\":") != 0 ||
	    put_raw_or_null(b, k->dur) != 0 || buf_addstr(b, ",\"ts_ns\":") != 0 ||
	    buf_add_i64(b, k->ts_ns) != 0 || buf_addstr(b, ",\"dur_ns\":") != 0 ||
	    buf_add_i64(b, k->dur_ns) != 0 || buf_addstr(b, ",\"name\":") != 0 ||
	    put_raw_or_null(b, k->name) != 0)
		return -1;
	return buf_addch(b, '}');
}

int trstream_anchor_write(struct buf *b, const struct trstream_anchor *a)
{
	if (buf_addstr(b, "{\"@tr\":\"" TRSTREAM_ANCHOR "\",\"i\":") != 0 ||
	    buf_add_u64(b, a->i) != 0 || buf_addstr(b, ",\"pass\":") != 0 ||
	    buf_add_u64(b, a->pass) != 0 || buf_addstr(b, ",\"layer\":") != 0 ||
	    buf_add_u64(b, a->layer) != 0 || buf_addstr(b, ",\"anchor_index\":") != 0 ||
	    buf_add_u64(b, a->anchor_index) != 0 || buf_addstr(b, ",\"anchor\":") != 0 ||
	    put_kernel(b, &a->anchor) != 0)
		return -1;
	if (a->has_terminal &&
	    (buf_addstr(b, ",\"terminal\":") != 0 || put_kernel(b, &a->terminal) != 0))
		return -1;
	return buf_addch(b, '}');
}

static void kernel_free(struct trstream_kernel *k)
{
	free(k->pid);
	free(k->tid);
	free(k->device);
	free(k->ts);
	free(k->dur);
	free(k->name);
	memset(k, 0, sizeof *k);
}

/* The texts of kernel object obj; 0, or -1 when memory runs out. */
static int read_texts(const struct jdoc *d, int obj, struct trstream_kernel *k)
{
	int nomem = 0;

	k->pid = json_raw_dup(d, json_find(d, obj, "pid"), &nomem);
	k->tid = json_raw_dup(d, json_find(d, obj, "tid"), &nomem);
	k->device = json_raw_dup(d, json_find(d, obj, "device"), &nomem);
	k->ts = json_raw_dup(d, json_find(d, obj, "ts"), &nomem);
	k->dur = json_raw_dup(d, json_find(d, obj, "dur"), &nomem);
	k->name = json_raw_dup(d, json_find(d, obj, "name"), &nomem);
	return nomem ? -1 : 0;
}

/* ---- anchor records as trstream_anchor_write lays them out ------------
 * tr-guides reads one record per guide at the end of the stream, while the
 * stages after it wait: jsmn and json_find cost 16,000 instructions a
 * record.  A record in exactly the writer's layout is read member by
 * member instead; it gives what the jsmn reader gives only on a valid line
 * (json_parse's verdict) that is the object alone, so anything else, and
 * any value the layout reader does not take, goes to the jsmn reader,
 * which has every verdict and message. */

/* The literal text lit at line[*i]: 0 and *i past it, or -1. */
static int layout_lit(const char *line, size_t len, size_t *i, const char *lit)
{
	size_t n = strlen(lit);

	if (len - *i < n || memcmp(line + *i, lit, n) != 0)
		return -1;
	*i += n;
	return 0;
}

/* The raw value at line[*i] (*i past it): as json_raw gives a token. */
static int layout_raw(const char *line, size_t len, size_t *i, const char **p, size_t *n)
{
	size_t end = event_skip_value(line, len, *i);

	if (end == *i || end >= len)
		return -1;
	*p = line + *i;
	*n = end - *i;
	*i = end;
	return 0;
}

/* An integer as json_int64 reads a primitive token. */
static int layout_int(const char *line, size_t len, size_t *i, int64_t *v)
{
	const char *p;
	size_t n;

	if (layout_raw(line, len, i, &p, &n) != 0 || p[0] == '"' || p[0] == '{' || p[0] == '[')
		return -1;
	return tsnum_parse_int64(p, n, v) == NUM_OK ? 0 : -1;
}

static int layout_text(const char *line, size_t len, size_t *i, char **text)
{
	const char *p;
	size_t n;

	if (layout_raw(line, len, i, &p, &n) != 0)
		return -1;
	*text = buf_memdup(p, n);
	return *text == NULL ? -1 : 0;
}

static int layout_kernel(const char *line, size_t len, size_t *i, struct trstream_kernel *k)
{
	int64_t v;

	if (layout_lit(line, len, i, "{\"source_index\":") != 0 || layout_int(line, len, i, &v) != 0 ||
	    v < 0)
		return -1;
	k->source_index = (uint64_t)v;
	return layout_lit(line, len, i, ",\"pid\":") != 0 || layout_text(line, len, i, &k->pid) != 0 ||
	       layout_lit(line, len, i, ",\"tid\":") != 0 || layout_text(line, len, i, &k->tid) != 0 ||
	       layout_lit(line, len, i, ",\"device\":") != 0 ||
	       layout_text(line, len, i, &k->device) != 0 ||
	       layout_lit(line, len, i, ",\"ts\":") != 0 || layout_text(line, len, i, &k->ts) != 0 ||
	       layout_lit(line, len, i, ",\"dur\":") != 0 || layout_text(line, len, i, &k->dur) != 0 ||
	       layout_lit(line, len, i, ",\"ts_ns\":") != 0 || layout_int(line, len, i, &k->ts_ns) != 0 ||
	       layout_lit(line, len, i, ",\"dur_ns\":") != 0 ||
	       layout_int(line, len, i, &k->dur_ns) != 0 ||
	       layout_lit(line, len, i, ",\"name\":") != 0 || layout_text(line, len, i, &k->name) != 0 ||
	       layout_lit(line, len, i, "}") != 0 ? -1 : 0;
}

/* 0 with *a read, or -1 with *a cleared (then the jsmn reader decides). */
static int anchor_read_layout(const char *line, size_t len, struct trstream_anchor *a)
{
	size_t i = 0;
	int64_t v[4];

	if (layout_lit(line, len, &i, "{\"@tr\":\"" TRSTREAM_ANCHOR "\",\"i\":") != 0 ||
	    layout_int(line, len, &i, &v[0]) != 0 || layout_lit(line, len, &i, ",\"pass\":") != 0 ||
	    layout_int(line, len, &i, &v[1]) != 0 || layout_lit(line, len, &i, ",\"layer\":") != 0 ||
	    layout_int(line, len, &i, &v[2]) != 0 ||
	    layout_lit(line, len, &i, ",\"anchor_index\":") != 0 ||
	    layout_int(line, len, &i, &v[3]) != 0 || layout_lit(line, len, &i, ",\"anchor\":") != 0 ||
	    layout_kernel(line, len, &i, &a->anchor) != 0)
		goto other;
	if (i < len && line[i] == ',') {
		if (layout_lit(line, len, &i, ",\"terminal\":") != 0 ||
		    layout_kernel(line, len, &i, &a->terminal) != 0)
			goto other;
		a->has_terminal = 1;
	}
	if (i != len - 1 || line[i] != '}' || !scan_text_valid(line, len) || v[0] < 0 ||
	    v[1] < 0 || v[2] < 0 || v[3] < 0)
		goto other;
	a->i = (size_t)v[0];
	a->pass = (size_t)v[1];
	a->layer = (size_t)v[2];
	a->anchor_index = (size_t)v[3];
	return 0;
other:
	trstream_anchor_free(a);
	memset(a, 0, sizeof *a);
	return -1;
}

/* The number text t (a JSON number; NULL: absent) is exactly ns, to the
 * floor as tr-select-anchors converts it. */
static int text_is(const char *t, int64_t ns)
{
	int64_t v;
	int sub;

	return t == NULL || (tsnum_us_to_ns(t, strlen(t), &v, &sub) == NUM_OK && v == ns);
}

static size_t text_len(const char *t)
{
	return t != NULL ? strlen(t) : 0;
}

/* What no writer makes in a kernel of a record read: 0, or -1 with err. */
static int kernel_valid(const struct trstream_kernel *k, const char *role, char *err,
			size_t errsz)
{
	static const char what[] = "malformed anchor record";
	size_t n = text_len(k->pid) + text_len(k->tid) + text_len(k->device) + text_len(k->ts) +
		   text_len(k->dur) + text_len(k->name);

	if (k->dur_ns < 0) {
		snprintf(err, errsz, "%s: %s dur_ns %" PRId64 " out of range (at least 0)", what,
			 role, k->dur_ns);
		return -1;
	}
	if (!text_is(k->ts, k->ts_ns) || !text_is(k->dur, k->dur_ns)) {
		int ts = !text_is(k->ts, k->ts_ns);
		snprintf(err, errsz, "%s: %s %s %.40s is not %s_ns %" PRId64, what, role,
			 ts ? "ts" : "dur", ts ? k->ts : k->dur, ts ? "ts" : "dur",
			 ts ? k->ts_ns : k->dur_ns);
		return -1;
	}
	if (n > TRSTREAM_KERNEL_MAX_TEXT) {
		snprintf(err, errsz, "%s: %s texts take %zu bytes, more than "
			 TRSTREAM_KERNEL_MAX_TEXT_TEXT, what, role, n);
		return -1;
	}
	return 0;
}

/* A record read: its kernels' checks; on a refusal *a is freed. */
static int anchor_valid(struct trstream_anchor *a, char *err, size_t errsz)
{
	int64_t end;

	if (kernel_valid(&a->anchor, "anchor", err, errsz) != 0 ||
	    (a->has_terminal && kernel_valid(&a->terminal, "terminal", err, errsz) != 0))
		goto refused;
	if (a->has_terminal && __builtin_add_overflow(a->terminal.ts_ns, a->terminal.dur_ns, &end)) {
		refuse(err, errsz, "malformed anchor record",
		       "terminal ts_ns + dur_ns beyond the int64 range");
		goto refused;
	}
	return 0;
refused:
	trstream_anchor_free(a);
	return -1;
}

int trstream_anchor_read(struct jdoc *d, const char *line, size_t len,
			 struct trstream_anchor *a, char *err, size_t errsz)
{
	static const char what[] = "malformed anchor record";
	static const char *const keys[] = { "i", "pass", "layer", "anchor_index" };
	int64_t v[4];
	int anchor, term, k;

	memset(a, 0, sizeof *a);
	if (anchor_read_layout(line, len, a) == 0)
		return anchor_valid(a, err, errsz);
	if (json_parse(d, line, len, NULL) != 0 || json_type(d, 0) != JT_OBJECT)
		return refuse(err, errsz, what, NULL);
	for (k = 0; k < 4; k++) {
		if (int_member(d, 0, keys[k], &v[k]) != 0)
			return no_integer(err, errsz, what, keys[k]);
		if (v[k] < 0)
			return negative(err, errsz, what, keys[k], v[k]);
	}
	a->i = (size_t)v[0];
	a->pass = (size_t)v[1];
	a->layer = (size_t)v[2];
	a->anchor_index = (size_t)v[3];
	anchor = json_find(d, 0, "anchor");
	if (json_type(d, anchor) != JT_OBJECT)
		return refuse(err, errsz, what, "no anchor object");
	if (int_member(d, anchor, "source_index", &v[0]) != 0)
		return no_integer(err, errsz, what, "source_index");
	if (v[0] < 0)
		return negative(err, errsz, what, "source_index", v[0]);
	a->anchor.source_index = (uint64_t)v[0];
	if (int_member(d, anchor, "ts_ns", &a->anchor.ts_ns) != 0)
		return no_integer(err, errsz, what, "ts_ns");
	if (int_member(d, anchor, "dur_ns", &a->anchor.dur_ns) != 0)
		return no_integer(err, errsz, what, "dur_ns");
	if (read_texts(d, anchor, &a->anchor) != 0)
		goto nomem;
	if (a->anchor.ts == NULL || a->anchor.name == NULL || a->anchor.tid == NULL) {
		trstream_anchor_free(a);
		return refuse(err, errsz, what, "ts, name and tid are needed");
	}
	term = json_find(d, 0, "terminal");
	if (json_type(d, term) != JT_OBJECT)
		return anchor_valid(a, err, errsz);
	a->has_terminal = 1;
	if (int_member(d, term, "source_index", &v[0]) == 0 && v[0] >= 0)
		a->terminal.source_index = (uint64_t)v[0];
	if (int_member(d, term, "ts_ns", &a->terminal.ts_ns) != 0 ||
	    int_member(d, term, "dur_ns", &a->terminal.dur_ns) != 0) {
		int no_ts = int_member(d, term, "ts_ns", &v[0]) != 0;
		trstream_anchor_free(a);
		return no_integer(err, errsz, what, no_ts ? "ts_ns" : "dur_ns");
	}
	if (read_texts(d, term, &a->terminal) != 0)
		goto nomem;
	return anchor_valid(a, err, errsz);
nomem:
	trstream_anchor_free(a);
	return refuse(err, errsz, "out of memory", NULL);
}

void trstream_anchor_free(struct trstream_anchor *a)
{
	kernel_free(&a->anchor);
	kernel_free(&a->terminal);
}

int trstream_anchor_check(const struct trstream_anchor *a, size_t n,
			  const struct trstream_anchors_in *s, char *err, size_t errsz)
{
	/* the anchors record's reader bounds these: no product overflows */
	size_t N = (size_t)s->num_layers, P = (size_t)s->passes;
	int64_t rel;

	if (a->i != n) {
		snprintf(err, errsz, "anchor records out of order (record %zu is number %zu)", n,
			 a->i);
		return -1;
	}
	if (a->pass >= P) {
		snprintf(err, errsz, "anchor record %zu: pass %zu out of range (passes %zu)", n,
			 a->pass, P);
		return -1;
	}
	if (a->layer >= N) {
		snprintf(err, errsz, "anchor record %zu: layer %zu out of range (num_layers %zu)",
			 n, a->layer, N);
		return -1;
	}
	if (a->i != a->pass * N + a->layer) {
		snprintf(err, errsz, "anchor record %zu: i %zu is not pass %zu x num_layers %zu + "
			 "layer %zu", n, a->i, a->pass, N, a->layer);
		return -1;
	}
	if (a->anchor_index != (size_t)s->anchor_offset + a->i) {
		snprintf(err, errsz, "anchor record %zu: anchor_index %zu is not anchor_offset %"
			 PRId64 " + i %zu", n, a->anchor_index, s->anchor_offset, a->i);
		return -1;
	}
	/* the trace starts at or before every event; the guides' times are
	 * written relative to it */
	if (a->anchor.ts_ns < s->trace_origin_ns ||
	    __builtin_sub_overflow(a->anchor.ts_ns, s->trace_origin_ns, &rel) ||
	    (a->has_terminal &&
	     __builtin_sub_overflow(a->terminal.ts_ns + a->terminal.dur_ns, s->trace_origin_ns,
				    &rel))) {
		snprintf(err, errsz, "anchor record %zu: ts_ns %" PRId64 " is not within 2^63 ns "
			 "after trace_origin_ns %" PRId64, n, a->anchor.ts_ns, s->trace_origin_ns);
		return -1;
	}
	return 0;
}

/* ---- report -------------------------------------------------------- */

int trstream_report_string(struct buf *b, const char *suffix, const char *member,
			   const char *text)
{
	if (trstream_report_member(b, suffix, member, 0) != 0 || put_str(b, text) != 0)
		return -1;
	return buf_addch(b, '}');
}

int trstream_report_is(const char *line, size_t len, const char *suffix)
{
	static const char key[] = "\"suffix\":\"";
	size_t k = sizeof key - 1, m = strlen(suffix), i;

	for (i = 0; i + k + m + 1 <= len; i++)
		if (line[i] == '"' && memcmp(line + i, key, k) == 0 &&
		    memcmp(line + i + k, suffix, m) == 0 && line[i + k + m] == '"')
			return 1;
	return 0;
}

int trstream_report_items_end(struct buf *b)
{
	return buf_addstr(b, "]}");
}

int trstream_report_body(struct buf *b, const char *suffix)
{
	return buf_printf(b, "{\"@tr\":\"" TRSTREAM_REPORT "\",\"suffix\":\"%s\",\"body\":", suffix);
}

int trstream_report_member(struct buf *b, const char *suffix, const char *member, int items)
{
	return buf_printf(b, "{\"@tr\":\"" TRSTREAM_REPORT "\",\"suffix\":\"%s\",\"member\":\"%s\",%s",
			  suffix, member, items ? "\"items\":[" : "\"body\":");
}

int trstream_put_source_sha256(struct buf *b, const struct jdoc *tail)
{
	int sha = json_find(tail, 0, TRSTREAM_KEY_SOURCE_SHA256);
	size_t n;
	const char *raw;

	if (json_type(tail, sha) != JT_STRING)
		return buf_addstr(b, "null");
	raw = json_raw(tail, sha, &n);
	return buf_add(b, raw, n);
}

/* ---- reading: reports and records (tr-verify) ------------------------- */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int trstream_report_open(struct trstream_report *r, const char *path, struct trstream_error *e)
{
	struct stat sb;

	memset(e, 0, sizeof *e);
	r->pos = 0;
	/* O_NONBLOCK: opening a FIFO must not wait */
	r->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &sb) != 0) {
		e->kind = TRSTREAM_ERR_SYSTEM;
		e->errnum = errno;
		if (r->fd >= 0)
			close(r->fd);
		r->fd = -1;
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		e->kind = TRSTREAM_ERR_INPUT;
		snprintf(e->msg, sizeof e->msg, "not a regular file (a report is the file "
			 "tr-encode writes beside its output)");
		close(r->fd);
		r->fd = -1;
		return -1;
	}
	return 0;
}

long trstream_report_read(void *ctx, void *dst, size_t n)
{
	struct trstream_report *f = ctx;
	ssize_t got;

	do
		got = pread(f->fd, dst, n, (off_t)f->pos);
	while (got < 0 && errno == EINTR);
	if (got > 0)
		f->pos += (uint64_t)got;
	return got;
}

/* Fill e for scan status rc at offset base + s->err_offset. */
static int report_error(struct trstream_error *e, const struct scan *s, int rc, uint64_t base,
			const char *what)
{
	int saved = errno;

	memset(e, 0, sizeof *e);
	if (rc == SCAN_READ) {
		e->kind = TRSTREAM_ERR_SYSTEM;
		e->errnum = saved;
		snprintf(e->msg, sizeof e->msg, "read");
	} else if (rc == SCAN_NOMEM) {
		e->kind = TRSTREAM_ERR_NOMEM;
	} else if (rc == SCAN_TOO_BIG) {
		e->kind = TRSTREAM_ERR_INPUT;
		snprintf(e->msg, sizeof e->msg, "byte %" PRIu64 ": %s", base + s->err_offset, what);
	} else {
		e->kind = TRSTREAM_ERR_INPUT;
		snprintf(e->msg, sizeof e->msg, "not a JSON object: byte %" PRIu64 ": %s",
			 base + s->err_offset, rc == SCAN_OK ? what : s->err);
	}
	return -1;
}

/* Consume byte c next (after whitespace): 0, or -1 with e set. */
static int report_expect(struct scan *s, uint64_t base, int c, const char *what,
			 struct trstream_error *e)
{
	int got = scan_peek(s);

	if (got < -1)
		return report_error(e, s, SCAN_READ, base, what);
	if (got != c) {
		s->err_offset = scan_offset(s);
		return report_error(e, s, SCAN_OK, base, what);
	}
	scan_skip(s);
	return 0;
}

/* The rows of the array: counted, each at most TRSTREAM_REPORT_MAX_ROW. */
static int count_rows(struct scan *s, struct buf *row, uint64_t *nrows, struct trstream_error *e)
{
	int rc;

	if (scan_peek(s) == ']') {
		scan_skip(s);
		return 0;
	}
	for (;;) {
		buf_reset(row);
		s->max_value = TRSTREAM_REPORT_MAX_ROW;
		rc = scan_value(s, row);
		s->max_value = TRSTREAM_REPORT_MAX_HEAD;
		if (rc != SCAN_OK)
			return report_error(e, s, rc, 0, "a layers row larger than "
					    TRSTREAM_REPORT_MAX_ROW_TEXT);
		++*nrows;
		if (scan_peek(s) == ']') {
			scan_skip(s);
			return 0;
		}
		if (report_expect(s, 0, ',', "expected ',' or ']'", e) != 0)
			return -1;
	}
}

static int read_head(struct scan *s, const char *rows_key, struct buf *head, struct buf *key,
		     struct buf *row, uint64_t *rows_at, uint64_t *nrows, struct trstream_error *e)
{
	size_t klen = strlen(rows_key);
	int c, rc;

	if (report_expect(s, 0, '{', "expected an object", e) != 0)
		return -1;
	buf_addch(head, '{');
	if (scan_peek(s) == '}') {
		scan_skip(s);
	} else {
		for (;;) {
			buf_reset(key);
			if ((rc = scan_string(s, key)) != SCAN_OK)
				return report_error(e, s, rc, 0, "a member name too long");
			if (report_expect(s, 0, ':', "expected ':'", e) != 0)
				return -1;
			if (key->len == klen && memcmp(key->p, rows_key, klen) == 0 &&
			    scan_peek(s) == '[') {
				scan_skip(s);
				*rows_at = scan_offset(s);
				if (count_rows(s, row, nrows, e) != 0)
					return -1;
			} else {
				if (head->len > 1)
					buf_addch(head, ',');
				buf_add(head, key->p, key->len);
				buf_addch(head, ':');
				if ((rc = scan_value(s, head)) != SCAN_OK)
					return report_error(e, s, rc, 0, "the members besides the "
							    "layers rows exceed "
							    TRSTREAM_REPORT_MAX_HEAD_TEXT ", the most "
							    "tr-verify reads of a report");
			}
			if (scan_peek(s) == '}') {
				scan_skip(s);
				break;
			}
			if (report_expect(s, 0, ',', "expected ',' or '}'", e) != 0)
				return -1;
		}
	}
	if ((c = scan_peek(s)) != -1) {
		s->err_offset = scan_offset(s);
		return report_error(e, s, c < -1 ? SCAN_READ : SCAN_OK, 0, "text after the object");
	}
	if (buf_addch(head, '}') != 0) {
		e->kind = TRSTREAM_ERR_NOMEM;
		return -1;
	}
	return 0;
}

int trstream_report_head(struct trstream_report *r, const char *rows_key, struct buf *head,
			 uint64_t *rows_at, uint64_t *nrows, struct trstream_error *e)
{
	struct trstream_report from = { r->fd, 0 };
	struct scan s;
	struct buf key = BUF_INIT, row = BUF_INIT;
	int rc;

	memset(e, 0, sizeof *e);
	*nrows = 0;
	*rows_at = 0;
	if (scan_init(&s, trstream_report_read, &from, TRSTREAM_REPORT_MAX_HEAD) != 0) {
		e->kind = TRSTREAM_ERR_NOMEM;
		return -1;
	}
	rc = read_head(&s, rows_key, head, &key, &row, rows_at, nrows, e);
	scan_free(&s);
	buf_release(&key);
	buf_release(&row);
	return rc;
}

int trstream_rows_open(struct trstream_rows *r, int fd, uint64_t at, uint64_t count)
{
	r->file.fd = fd;
	r->file.pos = at;
	r->at = at;
	r->count = count;
	r->read = 0;
	r->open = 0;
	r->row = (struct buf)BUF_INIT;
	if (count > 0) {
		if (scan_init(&r->scan, trstream_report_read, &r->file, TRSTREAM_REPORT_MAX_ROW) != 0)
			return -1;
		r->open = 1;
	}
	return 0;
}

int trstream_rows_next(struct trstream_rows *r, struct trstream_error *e)
{
	int rc;

	memset(e, 0, sizeof *e);
	if (!r->open || r->read == r->count)
		return 0;
	if (r->read > 0 && report_expect(&r->scan, r->at, ',', "expected ','", e) != 0)
		return -1;
	buf_reset(&r->row);
	if ((rc = scan_value(&r->scan, &r->row)) != SCAN_OK)
		return report_error(e, &r->scan, rc, r->at, "a layers row larger than "
				    TRSTREAM_REPORT_MAX_ROW_TEXT);
	r->read++;
	return 1;
}

void trstream_rows_free(struct trstream_rows *r)
{
	if (r->open)
		scan_free(&r->scan);
	r->open = 0;
	buf_release(&r->row);
}

int trstream_report_whole(struct trstream_report *r, uint64_t max, int check_size,
			  struct buf *text, struct trstream_error *e)
{
	struct stat sb;
	char chunk[65536];
	ssize_t n;

	memset(e, 0, sizeof *e);
	if (check_size) {
		if (fstat(r->fd, &sb) != 0) {
			e->kind = TRSTREAM_ERR_SYSTEM;
			e->errnum = errno;
			return -1;
		}
		if ((uint64_t)sb.st_size > max) {
			e->kind = TRSTREAM_ERR_TOO_BIG;
			e->size = (uint64_t)sb.st_size;
			return -1;
		}
	}
	while ((n = read(r->fd, chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e->kind = TRSTREAM_ERR_SYSTEM;
			e->errnum = errno;
			return -1;
		}
		if (text->len + (size_t)n > max) {
			e->kind = TRSTREAM_ERR_TOO_BIG;
			return -1;
		}
		if (buf_add(text, chunk, (size_t)n) != 0) {
			e->kind = TRSTREAM_ERR_NOMEM;
			return -1;
		}
	}
	/* tolerate the final newline (and indentation) */
	while (text->len > 0 && (text->p[text->len - 1] == '\n' || text->p[text->len - 1] == ' '))
		text->len--;
	return 0;
}

int trstream_record_members(struct jdoc *d, const char *line, size_t len, const char **raw,
			    size_t *n)
{
	int m;

	if (json_parse(d, line, len, NULL) != 0 || (m = json_find(d, 0, "members")) < 0)
		return -1;
	*raw = json_raw(d, m, n);
	return 0;
}

/* ---- the window report ----------------------------------------------- */

static int put_counts(struct buf *b, const char *name, const struct trstream_window *w,
		      const uint64_t *n)
{
	size_t c;
	int rc = buf_printf(b, ",\"%s\":{", name);

	for (c = 0; c < w->ncats; c++)
		rc |= buf_printf(b, "%s\"%s\":%" PRIu64, c ? "," : "", w->cat_names[c], n[c]);
	return rc | buf_addch(b, '}');
}

int trstream_window_report(struct buf *b, const struct trstream_window *w)
{
	int rc;
	uint64_t i;
	size_t at, start;

	rc = trstream_report_body(b, TRSTREAM_WINDOW_SUFFIX);
	rc |= buf_addstr(b, "{\"schema_version\":1,\"spec\":");
	rc |= json_escape(b, w->spec, strlen(w->spec));
	rc |= buf_addstr(b, ",\"window_start_us\":");
	rc |= tsnum_append_us3(b, w->start_ns);
	rc |= buf_addstr(b, ",\"window_end_us\":");
	rc |= tsnum_append_us3(b, w->end_ns);
	rc |= buf_printf(b, ",\"window_start_ns\":%" PRId64 ",\"window_end_ns\":%" PRId64,
			 w->start_ns, w->end_ns);
	rc |= buf_addstr(b, ",\"trace_origin_us\":");
	rc |= w->have_origin ? tsnum_append_us3(b, w->origin_ns) : buf_addstr(b, "null");
	rc |= buf_addstr(b, ",\"overlap\":\"closed: an event is kept when ts <= window end and "
			 "ts + dur >= window start\",\"source_file\":");
	rc |= json_escape(b, w->source_file, strlen(w->source_file));
	rc |= buf_addstr(b, ",\"" TRSTREAM_KEY_SOURCE_SHA256 "\":");
	rc |= buf_add(b, w->sha, w->sha_len);
	rc |= buf_printf(b, ",\"source_events\":%" PRIu64, w->source_events);
	rc |= put_counts(b, "kept", w, w->kept);
	rc |= put_counts(b, "dropped", w, w->dropped);
	rc |= buf_printf(b, ",\"flows_dropped_end_outside\":%" PRIu64
			 ",\"async_dropped_end_outside\":%" PRIu64 ",\"bytes_written\":%" PRIu64
			 ",\"tool_version\":\"trace-layers %s\"}}\n", w->flows_cut, w->async_cut,
			 w->bytes, TR_VERSION);
	if (w->nrows == 0) {
		rc |= trstream_report_member(b, TRSTREAM_WINDOW_SUFFIX, "dropped_events", 0);
		return rc | buf_addstr(b, "[]}\n");
	}
	/* the rows, TRSTREAM_WINDOW_ROWS per record: a row ends at a '}'
	 * followed by ',' or the end */
	for (i = 0, at = 0; i < w->nrows; i += TRSTREAM_WINDOW_ROWS) {
		uint64_t k;
		start = at;
		for (k = 0; k < TRSTREAM_WINDOW_ROWS && at < w->rows_len; at++)
			if (w->rows[at] == '}' && (at + 1 == w->rows_len || w->rows[at + 1] == ','))
				k++;
		rc |= trstream_report_member(b, TRSTREAM_WINDOW_SUFFIX, "dropped_events", 1);
		rc |= buf_add(b, w->rows + start, at - start);
		rc |= buf_addstr(b, "]}\n");
		if (at < w->rows_len)
			at++;  /* the ',' between records */
	}
	return rc;
}
