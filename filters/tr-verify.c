/* tr-verify: prove that an output of the trace-layers tools rebuilds its
 * source exactly and that Perfetto will import every guide and lane flat.
 * Both traces are decoded by child processes and compared in lock-step.
 * See tr-verify(1). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "decodefile.h"
#include "diag.h"
#include "event.h"
#include "filter.h"
#include "intern.h"
#include "io.h"
#include "json.h"
#include "jsonscan.h"
#include "opt.h"
#include "regex.h"
#include "source.h"
#include "stream.h"
#include "tsnum.h"
#include "window.h"
#include "trstream.h"

#define MAX_SHOWN 20
/* A report is read as a stream: its members besides the layers rows are
 * held together up to this size, and the rows one at a time. */
#define REPORT_MAX_HEAD ((size_t)64 << 20)
#define REPORT_MAX_HEAD_TEXT "64 MiB"
#define REPORT_MAX_ROW ((size_t)1 << 20)
#define REPORT_MAX_ROW_TEXT "1 MiB"
#define REPORT_MAX_WHOLE ((uint64_t)1 << 30)
#define REPORT_MAX_WHOLE_TEXT "1 GiB"
#define DEFAULT_MAX_EVENT ((uint64_t)64 << 20)
/* as tr-decode: json.c's token offsets are ints */
#define LIMIT_MAX_EVENT ((uint64_t)1 << 30)
enum { EXIT_NOT_VERIFIED = 1, EXIT_CANNOT_RUN = 2 };

static const char usage_text[] =
	"usage: tr-verify --source SRC --output OUT [--report R]... [--json]\n"
	"                 [--max-event-bytes N] [--max-member-bytes N] [--window]\n"
	"Verify that OUT (written by tr-layer-track, tr-compact-track or a tr-*\n"
	"pipeline) rebuilds SRC exactly, has every guide at the anchor its report\n"
	"names, and imports flat in Perfetto.\n"
	"\n"
	"  --source SRC   the original trace\n"
	"  --output OUT   the trace to verify\n"
	"  --report R     a report to use (default: OUT.layers.json and\n"
	"                 OUT.compact.json where they exist)\n"
	"  --json         print the result as a JSON object\n"
	"  --window       OUT is a window of SRC cut by tr-window(1), with its report\n"
	"                 OUT.window.json (automatic when that file exists)\n"
	"  --max-event-bytes N\n"
	"                 refuse (exit 2) an event or top-level member of either\n"
	"                 trace larger than N bytes (suffix K, M or G; default\n"
	"                 64M, at most 1G), as tr-decode(1)\n"
	"  --max-member-bytes N\n"
	"                 the bound on the top-level members before, and after,\n"
	"                 traceEvents of either trace (default 64M), as tr-decode(1)\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 verified, 1 not verified, 2 could not run.\n";

/* ---- the two decoders ------------------------------------------------ */

/* Decode path in a child process writing the stream to a pipe; the parent
 * reads it like any stage's input.  The child reports its own errors. */
static size_t max_members = DECODE_DEFAULT_MAX_MEMBERS;  /* --max-member-bytes */

static int spawn_decoder(const char *path, size_t max_event, pid_t *child)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) != 0)
		die_errno(EXIT_CANNOT_RUN, "pipe");
	pid = fork();
	if (pid < 0)
		die_errno(EXIT_CANNOT_RUN, "fork");
	if (pid == 0) {
		struct decode_result result;

		close(fds[0]);
		signal(SIGPIPE, SIG_DFL);
		decode_file_as(path, path, fds[1], max_event, max_members, "tr-verify", &result);
		if (result.status == DECODE_OPEN)
			die_errno(EXIT_CANNOT_RUN, "%s", path);
		if (result.status == DECODE_INPUT || result.status == DECODE_READ)
			die(EXIT_CANNOT_RUN, "%s: %s", path, result.msg);
		_exit(result.status == DECODE_OK ? EXIT_OK : EXIT_CANNOT_RUN);
	}
	close(fds[1]);
	*child = pid;
	return fds[0];
}

/* ---- results ----------------------------------------------------------- */

struct check {
	const char *name;
	uint64_t failures;
	struct buf figures;   /* "N events compared", ... */
	struct buf shown;     /* the first failures, one per line */
	unsigned nshown;
	int ran;
};

enum { C_IDENTITY, C_PRESERVE, C_REVERSAL, C_RENDER, C_COUNTS, C_PLACEMENT, C_LANDMARK,
	C_WINDOW, NCHECKS };

static struct check checks[NCHECKS] = {
	{ "source identity", 0, BUF_INIT, BUF_INIT, 0, 0 },
	{ "preservation", 0, BUF_INIT, BUF_INIT, 0, 0 },
	{ "exact reversal", 0, BUF_INIT, BUF_INIT, 0, 0 },
	{ "render", 0, BUF_INIT, BUF_INIT, 0, 0 },
	{ "counts", 0, BUF_INIT, BUF_INIT, 0, 0 },
	{ "placement", 0, BUF_INIT, BUF_INIT, 0, 0 },
	{ "landmark", 0, BUF_INIT, BUF_INIT, 0, 0 },
	{ "window", 0, BUF_INIT, BUF_INIT, 0, 0 },
};

static void failure(int c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void failure(int c, const char *fmt, ...)
{
	struct check *k = &checks[c];
	va_list ap;
	char line[600];

	k->failures++;
	if (k->nshown == MAX_SHOWN)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (k->nshown++)
		buf_addch(&k->shown, '\n');
	buf_addstr(&k->shown, line);
}

/* ---- reports ----------------------------------------------------------- */

struct retired_ev {
	uint64_t index;
	char *text;
};

struct span {
	int64_t start, end;  /* Perfetto's nanoseconds */
	uint64_t index;      /* output event index */
};

struct lane {
	struct span *s;
	size_t n, cap;
};

struct flow_ref {
	uint32_t lane;
	int64_t ts;
	uint64_t index;
};

/* A kernel the report's selection matches, in its pid and device. */
struct cand {
	int64_t ts_ns, dur_ns;
	int ts_sub, dur_ok;
	uint64_t index;          /* source event index */
	char *ts;                /* raw text, own copy (anchors only) */
	const char *name, *tid;  /* raw texts, interned */
};

/* What one guide must be, recomputed from the source. */
struct expect {
	int64_t start_us, end_us;     /* rounded guide endpoints */
	int64_t start_ns, end_ns;
	int64_t anchor_index, pass, layer_id;
	uint64_t source_index;
	const char *kind;             /* boundary_kind */
	const char *start_text, *end_text, *name, *tid;
	char term_end[NUM_US_BUFSZ];  /* end_text of a terminal's end */
};

/* The layers report's selection, recomputed from the source with code of
 * our own (not tr-select-anchors'): the earliest offset + N x P + 1
 * matches are kept in a max-heap, so memory follows the guides, not the
 * trace. */
struct selection {
	char *regex, *end_regex;      /* unescaped; end_regex NULL when null */
	char *pid, *device;           /* raw JSON texts from the report */
	int64_t offset, matching;
	char *origin_text;            /* the report's trace_origin_us, raw */
	/* the trace origin: the smallest numeric ts of any source event */
	int64_t origin_ns;
	int origin_sub, have_origin;
	struct buf origin_raw;        /* the ts text it came from */
	struct regex *re, *end_re;
	int broken;                   /* nothing to recompute (failure said why) */
	struct cand *heap;            /* anchors; sorted ascending once done */
	size_t nheap, heap_cap, keep;
	struct cand *terms;           /* terminals before the heap's largest */
	size_t nterms, terms_cap;
	uint64_t nmatch;              /* anchor matches in the pid and device */
	struct intern texts;
	struct expect *exp;
	size_t nexp, nguides;
	struct jdoc edoc, gdoc, rdoc;
	struct buf cat, name;
};

/* The layers rows of the report, read one at a time beside the guides. */
struct report_file {
	int fd;
	uint64_t pos;   /* next byte, read with pread */
};

struct rows {
	const char *path;
	struct report_file file;
	struct scan scan;
	uint64_t at;                  /* offset of the first row */
	uint64_t count, read;
	int open;
	struct buf row;
};

struct state {
	const char *src_path, *out_path;
	/* from the reports */
	int have_layers, have_compact;
	struct buf sha_claims;        /* report name and claimed sha, per line */
	char *guide_pid;
	int64_t guide_tid, num_layers, passes, first_layer, max_lanes;
	struct intern lane_keys;      /* "pid\001tid" of every synthetic lane */
	struct lane *lanes;
	struct intern scope_pids;
	struct retired_ev *retired;
	size_t nretired;
	/* collected from the output */
	struct span *guides;
	size_t nguides, guides_cap;
	struct buf guide_names;       /* names, '\n'-separated */
	struct flow_ref *flows;
	size_t nflows, flows_cap;
	struct intern cats;
	int64_t *cat_count;           /* source adds, output subtracts */
	size_t cat_cap;
	uint64_t compared, undone, restored, added;
	struct jdoc doc;
	struct buf tmp;
	struct selection sel;
	struct rows rows;
	size_t max_event;             /* --max-event-bytes, for every decoder */
};

static long read_report(void *ctx, void *dst, size_t n)
{
	struct report_file *f = ctx;
	ssize_t got;

	do
		got = pread(f->fd, dst, n, (off_t)f->pos);
	while (got < 0 && errno == EINTR);
	if (got > 0)
		f->pos += (uint64_t)got;
	return got;
}

/* A report is a regular file: a FIFO or a device (/dev/zero) is refused
 * before a byte is read.  O_NONBLOCK: opening a FIFO must not wait. */
static int open_report(const char *path)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		die_errno(EXIT_CANNOT_RUN, "%s", path);
	if (fstat(fd, &sb) != 0)
		die_errno(EXIT_CANNOT_RUN, "%s", path);
	if (!S_ISREG(sb.st_mode))
		die(EXIT_CANNOT_RUN, "%s: not a regular file (a report is the file tr-encode "
		    "writes beside its output)", path);
	return fd;
}

static _Noreturn void report_fail(const char *path, const struct scan *s, int rc,
				  uint64_t base, const char *what)
{
	if (rc == SCAN_READ)
		die_errno(EXIT_CANNOT_RUN, "%s: read", path);
	if (rc == SCAN_NOMEM)
		die_nomem();
	if (rc == SCAN_TOO_BIG)
		die(EXIT_CANNOT_RUN, "%s: byte %" PRIu64 ": %s", path, base + s->err_offset, what);
	die(EXIT_CANNOT_RUN, "%s: not a JSON object: byte %" PRIu64 ": %s", path,
	    base + s->err_offset, rc == SCAN_OK ? what : s->err);
}

/* Expect byte c next (after whitespace). */
static void report_expect(const char *path, struct scan *s, uint64_t base, int c,
			  const char *what)
{
	int got = scan_peek(s);

	if (got < -1)
		report_fail(path, s, SCAN_READ, base, what);
	if (got != c) {
		s->err_offset = scan_offset(s);
		report_fail(path, s, SCAN_OK, base, what);
	}
	scan_skip(s);
}

/* Read the report's top-level object as a stream: every member but the
 * rows of "layers" into head (a JSON object, at most REPORT_MAX_HEAD), the
 * rows only counted and their place remembered for the rows reader. */
static void read_report_head(const char *path, int fd, struct buf *head, uint64_t *rows_at,
			     uint64_t *nrows)
{
	struct report_file rf = { fd, 0 };
	struct scan s;
	struct buf key = BUF_INIT, row = BUF_INIT;
	int c, rc;

	*nrows = 0;
	*rows_at = 0;
	if (scan_init(&s, read_report, &rf, REPORT_MAX_HEAD) != 0)
		die_nomem();
	report_expect(path, &s, 0, '{', "expected an object");
	buf_addch(head, '{');
	if (scan_peek(&s) == '}') {
		scan_skip(&s);
	} else {
		for (;;) {
			buf_reset(&key);
			if ((rc = scan_string(&s, &key)) != SCAN_OK)
				report_fail(path, &s, rc, 0, "a member name too long");
			report_expect(path, &s, 0, ':', "expected ':'");
			if (key.len == 8 && memcmp(key.p, "\"layers\"", 8) == 0 &&
			    scan_peek(&s) == '[') {
				scan_skip(&s);
				*rows_at = scan_offset(&s);
				if (scan_peek(&s) == ']') {
					scan_skip(&s);
				} else {
					for (;;) {
						buf_reset(&row);
						s.max_value = REPORT_MAX_ROW;
						rc = scan_value(&s, &row);
						s.max_value = REPORT_MAX_HEAD;
						if (rc != SCAN_OK)
							report_fail(path, &s, rc, 0, "a layers row larger than "
								    REPORT_MAX_ROW_TEXT);
						++*nrows;
						if ((c = scan_peek(&s)) == ']') {
							scan_skip(&s);
							break;
						}
						report_expect(path, &s, 0, ',', "expected ',' or ']'");
					}
				}
			} else {
				if (head->len > 1)
					buf_addch(head, ',');
				buf_add(head, key.p, key.len);
				buf_addch(head, ':');
				if ((rc = scan_value(&s, head)) != SCAN_OK)
					report_fail(path, &s, rc, 0, "the members besides the layers rows "
						    "exceed " REPORT_MAX_HEAD_TEXT ", the most tr-verify "
						    "reads of a report");
			}
			if (scan_peek(&s) == '}') {
				scan_skip(&s);
				break;
			}
			report_expect(path, &s, 0, ',', "expected ',' or '}'");
		}
	}
	if ((c = scan_peek(&s)) != -1) {
		s.err_offset = scan_offset(&s);
		report_fail(path, &s, c < -1 ? SCAN_READ : SCAN_OK, 0, "text after the object");
	}
	if (buf_addch(head, '}') != 0)
		die_nomem();
	scan_free(&s);
	buf_release(&key);
	buf_release(&row);
}

/* The next layers row into rows->row: 1, or 0 when there are no more. */
static int next_row(struct rows *r)
{
	int rc;

	if (!r->open || r->read == r->count)
		return 0;
	if (r->read > 0)
		report_expect(r->path, &r->scan, r->at, ',', "expected ','");
	buf_reset(&r->row);
	if ((rc = scan_value(&r->scan, &r->row)) != SCAN_OK)
		report_fail(r->path, &r->scan, rc, r->at, "a layers row larger than "
			    REPORT_MAX_ROW_TEXT);
	r->read++;
	return 1;
}

static int64_t int_of(const struct jdoc *d, int obj, const char *key, const char *path)
{
	int64_t v;

	if (jdoc_int64(d, jdoc_find(d, obj, key), &v) != 0)
		die(EXIT_CANNOT_RUN, "%s: no integer %s", path, key);
	return v;
}

static int cmp_retired(const void *a, const void *b)
{
	const struct retired_ev *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static void load_compaction(struct state *st, const struct jdoc *d, int obj, const char *path)
{
	int groups = jdoc_find(d, obj, "groups"), ret = jdoc_find(d, obj, "retired_track_metadata");
	int k, g, n;

	if (jdoc_type(d, groups) != JT_ARRAY || jdoc_type(d, ret) != JT_ARRAY)
		die(EXIT_CANNOT_RUN, "%s: a compaction report needs groups and "
		    "retired_track_metadata", path);
	st->have_compact = 1;
	st->max_lanes = int_of(d, obj, "max_lanes", path);
	n = jdoc_size(d, groups);
	for (k = 0, g = groups + 1; k < n; k++, g = jdoc_next(d, g)) {
		int tids = jdoc_find(d, g, "lane_tids"), t, m, kind = jdoc_find(d, g, "kind");
		char *pid = raw_copy(d, jdoc_find(d, g, "display_pid"));
		if (pid == NULL || jdoc_type(d, tids) != JT_ARRAY)
			die(EXIT_CANNOT_RUN, "%s: group without display_pid or lane_tids", path);
		if (jdoc_size(d, tids) > st->max_lanes)
			failure(C_RENDER, "report: group pid %s has %d lanes > max_lanes %" PRId64,
				pid, jdoc_size(d, tids), st->max_lanes);
		if (jdoc_str_eq(d, kind, "scope") && intern_id(&st->scope_pids, pid, strlen(pid)) < 0)
			die_nomem();
		for (m = 0, t = tids + 1; m < jdoc_size(d, tids); m++, t = jdoc_next(d, t)) {
			size_t tn;
			const char *tid = jdoc_raw(d, t, &tn);
			buf_reset(&st->tmp);
			buf_addstr(&st->tmp, pid);
			buf_addch(&st->tmp, '\001');
			buf_add(&st->tmp, tid, tn);
			if (intern_id(&st->lane_keys, st->tmp.p, st->tmp.len) < 0)
				die_nomem();
		}
		free(pid);
	}
	st->lanes = calloc(st->lane_keys.n + 1, sizeof *st->lanes);
	n = jdoc_size(d, ret);
	st->retired = xmalloc(((size_t)n + 1) * sizeof *st->retired);
	for (k = 0, g = ret + 1; k < n; k++, g = jdoc_next(d, g)) {
		st->retired[k].index = (uint64_t)int_of(d, g, "source_event_index", path);
		st->retired[k].text = raw_copy(d, jdoc_find(d, g, "event"));
		if (st->retired[k].text == NULL)
			die(EXIT_CANNOT_RUN, "%s: retired metadata without its event", path);
	}
	st->nretired = (size_t)n;
	qsort(st->retired, st->nretired, sizeof *st->retired, cmp_retired);
}

static void claim_sha(struct state *st, const struct jdoc *d, int obj, const char *path)
{
	size_t n;
	int sha = jdoc_find(d, obj, TRSTREAM_KEY_SOURCE_SHA256);
	const char *text;

	if (jdoc_type(d, sha) != JT_STRING) {
		failure(C_IDENTITY, "%s: no source_sha256", path);
		return;
	}
	text = jdoc_text(d, sha, &n);
	buf_printf(&st->sha_claims, "%s\t%.*s\n", path, (int)n, text);
}

/* A string member as a NUL-terminated copy of its unescaped bytes; NULL
 * when it is null and null is allowed; dies otherwise. */
static char *report_string(const struct jdoc *d, const char *key, int null_ok, const char *path)
{
	int v = jdoc_find(d, 0, key);
	struct buf b = BUF_INIT;

	if (null_ok && jdoc_type(d, v) == JT_PRIMITIVE) {
		size_t n;
		const char *raw = jdoc_raw(d, v, &n);
		if (n == 4 && memcmp(raw, "null", 4) == 0)
			return NULL;
	}
	if (jdoc_type(d, v) != JT_STRING || jdoc_unescape(d, v, &b) != 0)
		die(EXIT_CANNOT_RUN, "%s: no string %s", path, key);
	if (memchr(b.p, '\0', b.len) != NULL)
		die(EXIT_CANNOT_RUN, "%s: %s holds a NUL character", path, key);
	if (b.cap == 0)
		return xmemdup("", 0);
	return b.p;
}

/* The selection a layers report names (extra members, such as those of a
 * later version, are ignored). */
static void load_selection(struct state *st, const struct jdoc *d, const char *path)
{
	struct selection *sel = &st->sel;
	char err[200];

	sel->regex = report_string(d, "anchor_regex", 0, path);
	sel->end_regex = report_string(d, "end_anchor_regex", 1, path);
	sel->pid = raw_copy(d, jdoc_find(d, 0, "pid"));
	sel->device = raw_copy(d, jdoc_find(d, 0, "device"));
	if (sel->pid == NULL || sel->device == NULL)
		die(EXIT_CANNOT_RUN, "%s: no pid or device", path);
	sel->origin_text = raw_copy(d, jdoc_find(d, 0, "trace_origin_us"));
	if (sel->origin_text == NULL)
		die(EXIT_CANNOT_RUN, "%s: no trace_origin_us", path);
	sel->offset = int_of(d, 0, "anchor_offset", path);
	sel->matching = int_of(d, 0, "matching_anchor_count", path);
	if (st->num_layers < 1 || st->num_layers > 1000000 || st->passes < 1 ||
	    st->passes > 1000000 || st->num_layers * st->passes > 10000000 ||
	    st->first_layer < 0 || st->first_layer > 1000000 || sel->offset < 0 ||
	    sel->offset > INT32_MAX)
		die(EXIT_CANNOT_RUN, "%s: num_layers, passes, first_layer or anchor_offset out of "
		    "the range tr-select-anchors accepts", path);
	sel->keep = (size_t)sel->offset + (size_t)(st->num_layers * st->passes) + 1;
	sel->re = regex_compile(sel->regex, err, sizeof err);
	if (sel->re == NULL) {
		failure(C_PLACEMENT, "report: anchor_regex '%s' does not compile (%s): the anchors "
			"cannot be found", sel->regex, err);
		sel->broken = 1;
		return;
	}
	if (sel->end_regex != NULL &&
	    (sel->end_re = regex_compile(sel->end_regex, err, sizeof err)) == NULL) {
		failure(C_PLACEMENT, "report: end_anchor_regex '%s' does not compile (%s): the "
			"terminals cannot be found", sel->end_regex, err);
		regex_free(sel->re);
		sel->re = NULL;
		sel->broken = 1;
	}
}

static void load_report(struct state *st, const char *path)
{
	struct buf head = BUF_INIT;
	struct jdoc d = JDOC_INIT;
	int fd = open_report(path), comp, keep_fd = 0;
	uint64_t rows_at, nrows;

	read_report_head(path, fd, &head, &rows_at, &nrows);
	if (jdoc_parse(&d, head.p, head.len, NULL) != 0 || jdoc_type(&d, 0) != JT_OBJECT)
		die(EXIT_CANNOT_RUN, "%s: not a JSON object", path);
	claim_sha(st, &d, 0, path);
	if (jdoc_find(&d, 0, "guide_tid") >= 0) {
		if (st->have_layers)
			die(EXIT_CANNOT_RUN, "%s: a second layers report (give one)", path);
		st->have_layers = 1;
		st->guide_pid = raw_copy(&d, jdoc_find(&d, 0, "pid"));
		st->guide_tid = int_of(&d, 0, "guide_tid", path);
		st->num_layers = int_of(&d, 0, "num_layers", path);
		st->passes = int_of(&d, 0, "passes", path);
		st->first_layer = int_of(&d, 0, "first_layer", path);
		load_selection(st, &d, path);
		if (nrows != (uint64_t)(st->num_layers * st->passes))
			failure(C_PLACEMENT, "report: %" PRIu64 " layers rows for num_layers %" PRId64
				" x passes %" PRId64 " = %" PRId64 " guides", nrows, st->num_layers,
				st->passes, st->num_layers * st->passes);
		/* the rows are read again, one at a time, as the guides come */
		st->rows.path = path;
		st->rows.file.fd = fd;
		st->rows.file.pos = rows_at;
		st->rows.at = rows_at;
		st->rows.count = nrows;
		st->rows.row = (struct buf)BUF_INIT;
		if (nrows > 0) {
			if (scan_init(&st->rows.scan, read_report, &st->rows.file, REPORT_MAX_ROW) != 0)
				die_nomem();
			st->rows.open = 1;
		}
		keep_fd = 1;
		comp = jdoc_find(&d, 0, "compaction");
		if (jdoc_type(&d, comp) == JT_OBJECT)
			load_compaction(st, &d, comp, path);
	} else if (jdoc_find(&d, 0, "groups") >= 0) {
		load_compaction(st, &d, 0, path);
	} else {
		die(EXIT_CANNOT_RUN, "%s: neither a layers nor a compaction report", path);
	}
	if (!keep_fd)
		close(fd);
	jdoc_free(&d);
	buf_release(&head);
}

/* ---- the selection, recomputed from the source ----------------------- */

static int cand_cmp(const struct cand *x, const struct cand *y)
{
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	if (x->ts_sub != y->ts_sub)
		return x->ts_sub < y->ts_sub ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cand_qsort(const void *a, const void *b)
{
	return cand_cmp(a, b);
}

/* Heap of the earliest matches, largest on top. */
static void heap_down(struct cand *h, size_t n, size_t i)
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;
		struct cand t;
		if (l < n && cand_cmp(&h[l], &h[big]) > 0)
			big = l;
		if (r < n && cand_cmp(&h[r], &h[big]) > 0)
			big = r;
		if (big == i)
			return;
		t = h[i];
		h[i] = h[big];
		h[big] = t;
		i = big;
	}
}

static void keep_anchor(struct selection *sel, struct cand *c, const char *ts, size_t tn)
{
	size_t i;

	sel->nmatch++;
	if (sel->nheap == sel->keep) {
		if (cand_cmp(c, &sel->heap[0]) >= 0)
			return;
		free(sel->heap[0].ts);
		c->ts = xmemdup(ts, tn);
		sel->heap[0] = *c;
		heap_down(sel->heap, sel->nheap, 0);
		return;
	}
	if (sel->nheap == sel->heap_cap) {
		sel->heap_cap = grow_cap(sel->heap_cap, 64, sizeof *sel->heap);
		if (sel->heap_cap > sel->keep)
			sel->heap_cap = sel->keep;
		sel->heap = xrealloc(sel->heap, sel->heap_cap * sizeof *sel->heap);
	}
	c->ts = xmemdup(ts, tn);
	i = sel->nheap++;
	sel->heap[i] = *c;
	while (i > 0 && cand_cmp(&sel->heap[(i - 1) / 2], &sel->heap[i]) < 0) {
		struct cand t = sel->heap[i];
		sel->heap[i] = sel->heap[(i - 1) / 2];
		sel->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/* A terminal can only count between two selected anchors, so one at or
 * after the heap's largest (once the heap is full) is never needed. */
static void keep_terminal(struct selection *sel, const struct cand *c)
{
	int full = sel->nheap == sel->keep;

	if (full && cand_cmp(c, &sel->heap[0]) >= 0)
		return;
	if (sel->nterms == sel->terms_cap && full) {
		size_t i, n = 0;
		for (i = 0; i < sel->nterms; i++)
			if (cand_cmp(&sel->terms[i], &sel->heap[0]) < 0)
				sel->terms[n++] = sel->terms[i];
		sel->nterms = n;
	}
	if (sel->nterms * 2 >= sel->terms_cap) {
		sel->terms_cap = grow_cap(sel->terms_cap, 64, sizeof *sel->terms);
		sel->terms = xrealloc(sel->terms, sel->terms_cap * sizeof *sel->terms);
	}
	sel->terms[sel->nterms++] = *c;
}

/* The unescaped text of a raw JSON string into scratch (only when it has
 * escapes); NULL when an escape is malformed. */
static const char *unescaped(struct buf *scratch, struct member m, size_t *n)
{
	if (memchr(m.p, '\\', m.len) == NULL) {
		*n = m.len - 2;
		return m.p + 1;
	}
	buf_reset(scratch);
	if (json_unescape(m.p + 1, m.len - 2, scratch) != 0)
		return NULL;
	*n = scratch->len;
	return scratch->p;
}

static int raw_is(const char *raw, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(raw, want, n) == 0;
}

static void number_of(const struct jdoc *d, int v, int64_t *ns, int *sub, int *ok)
{
	const char *p;
	size_t n;

	*ok = 0;
	if (jdoc_type(d, v) != JT_PRIMITIVE)
		return;
	p = jdoc_text(d, v, &n);
	*ok = num_us_to_ns(p, n, ns, sub) == NUM_OK;
}

/* One source event: is it a kernel the report's selection matches (an X
 * event of category kernel or Kernel whose unescaped name the regex finds,
 * in the report's pid and on its device)? */
static void see_source(struct state *st, const char *line, size_t len, uint64_t index)
{
	static const char *const keys[] = { "ph", "cat", "name", "ts" };
	struct selection *sel = &st->sel;
	struct member m[4];
	const char *cats, *subject, *raw, *tsraw = "";
	size_t ncats, slen, n, tn = 0;
	int is_anchor, is_end = 0, rc, v, args, sub, ok;
	struct cand c;

	if (sel->re == NULL)
		return;
	event_members(line, len, keys, 4, m);
	/* the origin the relative times count from; most ts texts are plainly
	 * not below it and need no conversion */
	if (m[3].len > 0 && m[3].p[0] != '"' &&
	    !(sel->have_origin && num_text_not_below(m[3].p, m[3].len, sel->origin_raw.p,
						     sel->origin_raw.len))) {
		int64_t ns;
		if (num_us_to_ns(m[3].p, m[3].len, &ns, &sub) == NUM_OK &&
		    (!sel->have_origin || ns < sel->origin_ns ||
		     (ns == sel->origin_ns && !sub && sel->origin_sub))) {
			sel->origin_ns = ns;
			sel->origin_sub = sub;
			sel->have_origin = 1;
			buf_reset(&sel->origin_raw);
			if (buf_add(&sel->origin_raw, m[3].p, m[3].len) != 0)
				die_nomem();
		}
	}
	if (m[0].len != 3 || memcmp(m[0].p, "\"X\"", 3) != 0 || m[1].len < 2 ||
	    m[1].p[0] != '"' || m[2].len < 2 || m[2].p[0] != '"')
		return;
	if ((cats = unescaped(&sel->cat, m[1], &ncats)) == NULL ||
	    !(category_has(cats, ncats, "kernel") || category_has(cats, ncats, "Kernel")))
		return;
	if ((subject = unescaped(&sel->name, m[2], &slen)) == NULL)
		return;
	rc = regex_search(sel->re, subject, slen);
	if (sel->end_re != NULL) {
		int erc = regex_search(sel->end_re, subject, slen);
		if (erc < 0)
			rc = erc;
		is_end = erc == 1;
	}
	if (rc < 0)
		die(EXIT_CANNOT_RUN, "%s: source event %" PRIu64 ": regular expression matching "
		    "failed (resource limit)", st->src_path, index);
	is_anchor = rc == 1;
	if (!is_anchor && !is_end)
		return;
	if (is_anchor && is_end) {
		failure(C_PLACEMENT, "source event %" PRIu64 ": kernel %.*s matches both "
			"anchor_regex and end_anchor_regex (tr-select-anchors refuses that)",
			index, (int)m[2].len, m[2].p);
		return;
	}
	if (jdoc_parse(&sel->edoc, line, len, NULL) != 0)
		return;
	v = jdoc_find(&sel->edoc, 0, "pid");
	raw = v < 0 ? "null" : jdoc_raw(&sel->edoc, v, &n);
	if (v < 0)
		n = 4;
	if (!raw_is(raw, n, sel->pid))
		return;
	args = jdoc_find(&sel->edoc, 0, "args");
	v = jdoc_type(&sel->edoc, args) == JT_OBJECT ? jdoc_find(&sel->edoc, args, "device") : -1;
	raw = v < 0 ? "null" : jdoc_raw(&sel->edoc, v, &n);
	if (v < 0)
		n = 4;
	if (!raw_is(raw, n, sel->device))
		return;

	memset(&c, 0, sizeof c);
	c.index = index;
	v = jdoc_find(&sel->edoc, 0, "ts");
	number_of(&sel->edoc, v, &c.ts_ns, &c.ts_sub, &ok);
	if (!ok) {
		failure(C_PLACEMENT, "source event %" PRIu64 ": a kernel the selection matches "
			"has no numeric ts, so the matches cannot be ordered", index);
		return;
	}
	tsraw = jdoc_raw(&sel->edoc, v, &tn);
	number_of(&sel->edoc, jdoc_find(&sel->edoc, 0, "dur"), &c.dur_ns, &sub, &c.dur_ok);
	if (is_end) {
		keep_terminal(sel, &c);
		return;
	}
	if (sel->nheap == sel->keep && cand_cmp(&c, &sel->heap[0]) >= 0) {
		sel->nmatch++;
		return;
	}
	v = jdoc_find(&sel->edoc, 0, "name");
	raw = jdoc_raw(&sel->edoc, v, &n);
	{
		int64_t id = intern_id(&sel->texts, raw, n);
		if (id < 0)
			die_nomem();
		c.name = sel->texts.keys[id];
		v = jdoc_find(&sel->edoc, 0, "tid");
		if (v < 0)
			raw = "null", n = 4;
		else
			raw = jdoc_raw(&sel->edoc, v, &n);
		if ((id = intern_id(&sel->texts, raw, n)) < 0)
			die_nomem();
		c.tid = sel->texts.keys[id];
	}
	keep_anchor(sel, &c, tsraw, tn);
}

static const char *kind_words(const char *kind)
{
	if (strcmp(kind, "next_layer_anchor") == 0)
		return "the next layer's anchor";
	if (strcmp(kind, "terminal_kernel_end") == 0)
		return "the terminal kernel's end";
	return "the anchor itself (a zero-length marker)";
}

/* Exactly one terminal from anchor a (by its floor, as tr-select-anchors
 * counts) to before the next matching anchor, or NULL with a failure. */
static const struct cand *terminal_of(struct selection *sel, const struct cand *a,
				      const struct cand *next, size_t *lo)
{
	size_t i, count = 0;
	const struct cand *term = NULL;

	while (*lo < sel->nterms && sel->terms[*lo].ts_ns < a->ts_ns)
		++*lo;
	for (i = *lo; i < sel->nterms; i++) {
		if (next != NULL && cand_cmp(&sel->terms[i], next) >= 0)
			break;
		count++;
		term = &sel->terms[i];
	}
	if (count != 1) {
		failure(C_PLACEMENT, "anchor %" PRId64 " (source event %" PRIu64 ", ts %s): %zu "
			"kernels match end_anchor_regex between it and the %s; exactly one is "
			"needed", (int64_t)(a - sel->heap), a->index, a->ts, count,
			next ? "next matching anchor" : "end of the trace");
		return NULL;
	}
	if (!term->dur_ok || term->dur_ns < 0) {
		failure(C_PLACEMENT, "terminal kernel (source event %" PRIu64 ") has no numeric "
			"dur of 0 or more", term->index);
		return NULL;
	}
	if (next != NULL && term->ts_ns + term->dur_ns > next->ts_ns) {
		failure(C_PLACEMENT, "terminal kernel (source event %" PRIu64 ") ends after the "
			"next anchor starts (source event %" PRIu64 ", ts %s)", term->index,
			next->index, next->ts);
		return NULL;
	}
	return term;
}

/* After the source's last event: sort the kept matches and compute what
 * every guide must be. */
static void finish_selection(struct state *st)
{
	struct selection *sel = &st->sel;
	size_t need = (size_t)(st->num_layers * st->passes), k = (size_t)sel->offset, i, lo = 0;

	if (sel->re == NULL)
		return;
	if (sel->nheap > 0)
		qsort(sel->heap, sel->nheap, sizeof *sel->heap, cand_qsort);
	if (sel->nterms > 0)
		qsort(sel->terms, sel->nterms, sizeof *sel->terms, cand_qsort);
	if ((int64_t)sel->nmatch != sel->matching)
		failure(C_PLACEMENT, "report: anchor_regex '%s' matches %" PRIu64 " kernels in pid "
			"%s, device %s of the source, but matching_anchor_count is %" PRId64,
			sel->regex, sel->nmatch, sel->pid, sel->device, sel->matching);
	{
		char origin[NUM_US_BUFSZ];
		num_format_us3(sel->origin_ns, origin);
		if (strcmp(origin, sel->origin_text) != 0)
			failure(C_PLACEMENT, "report: trace_origin_us %s, but the earliest ts in the "
				"source is %s", sel->origin_text,
				sel->have_origin ? sel->origin_raw.p : "(none)");
	}
	sel->nexp = sel->nheap > k ? sel->nheap - k : 0;
	if (sel->nexp > need)
		sel->nexp = need;
	if (sel->nexp < need)
		failure(C_PLACEMENT, "report: anchor_regex '%s' matches %" PRIu64 " kernels in pid "
			"%s, device %s of the source; from anchor_offset %" PRId64 " there are %zu, "
			"but num_layers %" PRId64 " x passes %" PRId64 " needs %zu", sel->regex,
			sel->nmatch, sel->pid, sel->device, sel->offset, sel->nexp, st->num_layers,
			st->passes, need);
	sel->exp = xmalloc((sel->nexp + 1) * sizeof *sel->exp);
	for (i = 0; i < sel->nexp; i++) {
		const struct cand *a = &sel->heap[k + i];
		const struct cand *next = k + i + 1 < sel->nheap ? &sel->heap[k + i + 1] : NULL;
		struct expect *e = &sel->exp[i];
		int64_t layer = (int64_t)(i % (size_t)st->num_layers), end_ns;

		memset(e, 0, sizeof *e);
		e->anchor_index = (int64_t)(k + i);
		e->pass = (int64_t)(i / (size_t)st->num_layers);
		e->layer_id = st->first_layer + layer;
		e->source_index = a->index;
		e->start_text = a->ts;
		e->name = a->name;
		e->tid = a->tid;
		if (!a->dur_ok || a->dur_ns < 0)
			failure(C_PLACEMENT, "anchor %" PRId64 " (source event %" PRIu64 ") has no "
				"numeric dur of 0 or more", e->anchor_index, a->index);
		if (i > 0 && !(a->ts_ns > a[-1].ts_ns ||
			       (a->ts_ns == a[-1].ts_ns && a->ts_sub && !a[-1].ts_sub)))
			failure(C_PLACEMENT, "anchors %" PRId64 " and %" PRId64 " (source events %"
				PRIu64 " and %" PRIu64 ") do not have strictly increasing timestamps "
				"(%s, %s)", e->anchor_index - 1, e->anchor_index, a[-1].index,
				a->index, a[-1].ts, a->ts);
		if (layer + 1 < st->num_layers) {
			/* the guide runs to the next selected anchor */
			e->kind = "next_layer_anchor";
			end_ns = next ? next->ts_ns : a->ts_ns;
			e->end_text = next ? next->ts : "(none: the selection is truncated)";
		} else if (sel->end_re != NULL) {
			const struct cand *t = terminal_of(sel, a, next, &lo);
			e->kind = "terminal_kernel_end";
			end_ns = t ? t->ts_ns + t->dur_ns : a->ts_ns;
			num_format_us3(end_ns, e->term_end);
			e->end_text = e->term_end;
		} else {
			e->kind = "anchor_point_only";
			end_ns = a->ts_ns;
			e->end_text = a->ts;
		}
		e->start_ns = a->ts_ns;
		e->end_ns = end_ns;
		e->start_us = num_round_ns_to_us(a->ts_ns);
		e->end_us = num_round_ns_to_us(end_ns);
	}
	free(sel->terms);
	sel->terms = NULL;
	sel->nterms = 0;
}

/* args._compact_gpu_track of a guide must be the raw text want. */
static void arg_is(const struct jdoc *d, int args, const char *key, const char *want,
		   size_t k, uint64_t o, const struct expect *e)
{
	int v = args < 0 ? -1 : jdoc_find(d, args, key);
	size_t n = 8;
	const char *raw = v < 0 ? "(absent)" : jdoc_raw(d, v, &n);

	if (n != strlen(want) || memcmp(raw, want, n) != 0)
		failure(C_PLACEMENT, "guide %zu (output event %" PRIu64 "): args.%s %.*s, expected "
			"%s (anchor %" PRId64 ", source event %" PRIu64 ")", k, o, key,
			(int)(n > 200 ? 200 : n), raw, want, e->anchor_index, e->source_index);
}

static void arg_int(const struct jdoc *d, int args, const char *key, int64_t want, size_t k,
		    uint64_t o, const struct expect *e)
{
	char text[32];

	snprintf(text, sizeof text, "%" PRId64, want);
	arg_is(d, args, key, text, k, o, e);
}

/* The guide's name, ts, dur and args against its anchor. */
static void check_guide_placement(struct state *st, const struct jdoc *d, size_t k, uint64_t o)
{
	const struct expect *e = &st->sel.exp[k];
	char want[48];
	int v, args = jdoc_find(d, 0, "args"), sub;
	size_t n;
	const char *raw;
	int64_t ns;

	snprintf(want, sizeof want, "L%" PRId64, e->layer_id);
	v = jdoc_find(d, 0, "name");
	if (!jdoc_str_eq(d, v, want)) {
		raw = v < 0 ? "(absent)" : jdoc_raw(d, v, &n);
		if (v < 0)
			n = 8;
		failure(C_PLACEMENT, "guide %zu (output event %" PRIu64 "): name %.*s, expected "
			"\"%s\" (layer %" PRId64 " of pass %" PRId64 ")", k, o,
			(int)(n > 200 ? 200 : n), raw, want, e->layer_id, e->pass);
	}
	v = jdoc_find(d, 0, "ts");
	raw = v < 0 ? "(absent)" : jdoc_raw(d, v, &n);
	if (v < 0 || jdoc_type(d, v) != JT_PRIMITIVE || num_us_to_ns(raw, n, &ns, &sub) != NUM_OK ||
	    sub || ns != e->start_us * 1000)
		failure(C_PLACEMENT, "guide %zu (output event %" PRIu64 "): ts %.*s, expected %"
			PRId64 ": anchor %" PRId64 " (source event %" PRIu64 ") at ts %s, rounded "
			"to the microsecond", k, o, (int)(v < 0 ? 8 : n > 200 ? 200 : n), raw,
			e->start_us, e->anchor_index, e->source_index, e->start_text);
	v = jdoc_find(d, 0, "dur");
	raw = v < 0 ? "(absent)" : jdoc_raw(d, v, &n);
	if (v < 0 || jdoc_type(d, v) != JT_PRIMITIVE || num_us_to_ns(raw, n, &ns, &sub) != NUM_OK ||
	    sub || ns != (e->end_us - e->start_us) * 1000)
		failure(C_PLACEMENT, "guide %zu (output event %" PRIu64 "): dur %.*s, expected %"
			PRId64 ": from %" PRId64 " to %s at %s, rounded to %" PRId64, k, o,
			(int)(v < 0 ? 8 : n > 200 ? 200 : n), raw, e->end_us - e->start_us,
			e->start_us, kind_words(e->kind), e->end_text, e->end_us);
	if (jdoc_type(d, args) != JT_OBJECT) {
		failure(C_PLACEMENT, "guide %zu (output event %" PRIu64 "): no args object", k, o);
		return;
	}
	arg_int(d, args, "pass_index", e->pass, k, o, e);
	arg_int(d, args, "layer_id", e->layer_id, k, o, e);
	arg_int(d, args, "anchor_index", e->anchor_index, k, o, e);
	arg_is(d, args, "anchor_name", e->name, k, o, e);
	arg_is(d, args, "anchor_tid", e->tid, k, o, e);
	arg_is(d, args, "start_us", e->start_text, k, o, e);
	arg_is(d, args, "end_us", e->end_text, k, o, e);
	arg_int(d, args, "guide_start_us", e->start_us, k, o, e);
	arg_int(d, args, "guide_end_us", e->end_us, k, o, e);
	num_format_ms6(e->start_ns - st->sel.origin_ns, want);
	arg_is(d, args, "start_relative_ms", want, k, o, e);
	num_format_ms6(e->end_ns - st->sel.origin_ns, want);
	arg_is(d, args, "end_relative_ms", want, k, o, e);
	snprintf(want, sizeof want, "\"%s\"", e->kind);
	arg_is(d, args, "boundary_kind", want, k, o, e);
}

/* Report row k against guide k's args: every member a row carries. */
static void check_row(struct state *st, const struct jdoc *d, size_t k, uint64_t o)
{
	static const char *const keys[] = { "pass_index", "layer_id", "anchor_index",
		"anchor_name", "anchor_tid", "start_us", "end_us", "guide_start_us",
		"guide_end_us", "start_relative_ms", "end_relative_ms", "boundary_kind" };
	struct jdoc *r = &st->sel.rdoc;
	int args = jdoc_find(d, 0, "args");
	size_t i, more = 0;
	const char *first = NULL;

	if (!next_row(&st->rows))
		return;
	if (jdoc_parse(r, st->rows.row.p, st->rows.row.len, NULL) != 0 ||
	    jdoc_type(r, 0) != JT_OBJECT) {
		failure(C_PLACEMENT, "report layers row %zu: not a JSON object", k);
		return;
	}
	if (jdoc_type(d, args) != JT_OBJECT)
		args = -1;
	/* one line per row: the first member that differs, and how many more */
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		int rv = jdoc_find(r, 0, keys[i]);
		int gv = args < 0 ? -1 : jdoc_find(d, args, keys[i]);
		size_t rn = 8, gn = 8;
		const char *rraw = rv < 0 ? "(absent)" : jdoc_raw(r, rv, &rn);
		const char *graw = gv < 0 ? "(absent)" : jdoc_raw(d, gv, &gn);
		if (rn == gn && memcmp(rraw, graw, rn) == 0)
			continue;
		if (first == NULL) {
			first = keys[i];
			buf_reset(&st->tmp);
			buf_printf(&st->tmp, "report layers row %zu: %s %.*s, but guide %zu (output "
				   "event %" PRIu64 ") has %.*s", k, keys[i], (int)(rn > 200 ? 200 : rn),
				   rraw, k, o, (int)(gn > 200 ? 200 : gn), graw);
		} else {
			more++;
		}
	}
	if (first != NULL) {
		if (more > 0)
			buf_printf(&st->tmp, " (and %zu more members differ)", more);
		failure(C_PLACEMENT, "%s", st->tmp.p);
	}
}

/* A guide slice after the source events, the k-th in output order. */
static void check_guide(struct state *st, const char *line, size_t len, uint64_t o)
{
	struct selection *sel = &st->sel;
	size_t k = sel->nguides++;

	if (jdoc_parse(&sel->gdoc, line, len, NULL) != 0) {
		failure(C_PLACEMENT, "guide %zu (output event %" PRIu64 "): not a JSON object", k, o);
		return;
	}
	check_row(st, &sel->gdoc, k, o);
	if (sel->broken || sel->re == NULL)
		return;
	if (k >= sel->nexp) {
		if (k == sel->nexp)
			failure(C_PLACEMENT, "guide %zu (output event %" PRIu64 ") and any after it: "
				"the report's selection has only %zu anchors", k, o, sel->nexp);
		return;
	}
	check_guide_placement(st, &sel->gdoc, k, o);
}

static void finish_placement(struct state *st)
{
	struct selection *sel = &st->sel;

	checks[C_PLACEMENT].ran = 1;
	if (sel->re != NULL && sel->nguides < sel->nexp) {
		const struct expect *e = &sel->exp[sel->nguides];
		failure(C_PLACEMENT, "anchor %" PRId64 " (source event %" PRIu64 ", ts %s): no guide "
			"for it (the output has %zu guides)", e->anchor_index, e->source_index,
			e->start_text, sel->nguides);
	}
	/* a count that differs from the report's own num_layers x passes was
	 * said first, when the report was read */
	if (st->rows.count != sel->nguides &&
	    st->rows.count == (uint64_t)(st->num_layers * st->passes))
		failure(C_PLACEMENT, "report: %" PRIu64 " layers rows for %zu guides",
			st->rows.count, sel->nguides);
	buf_printf(&checks[C_PLACEMENT].figures, "%zu guides at the anchors the report names "
		   "(anchor_regex '%s': %" PRIu64 " matches in pid %s, device %s; anchors %" PRId64
		   " to %" PRId64 "%s), %" PRIu64 " report rows", sel->nguides, sel->regex,
		   sel->nmatch, sel->pid, sel->device, sel->offset,
		   sel->offset + st->num_layers * st->passes - 1,
		   sel->end_regex ? ", with terminals" : "", st->rows.count);
}

/* ---- per event --------------------------------------------------------- */

static void count_cat(struct state *st, const char *line, size_t len, int64_t delta)
{
	const char *cat;
	size_t n;
	int64_t id;

	if (!event_member(line, len, "cat", &cat, &n) ||
	    (n == 13 && memcmp(cat, "\"layer_guide\"", 13) == 0))
		return;
	id = intern_id(&st->cats, cat, n);
	if (id < 0)
		die_nomem();
	if ((size_t)id >= st->cat_cap) {
		size_t cap = grow_cap(st->cat_cap, 64, sizeof *st->cat_count);
		st->cat_count = xrealloc(st->cat_count, cap * sizeof *st->cat_count);
		memset(st->cat_count + st->cat_cap, 0, (cap - st->cat_cap) * sizeof *st->cat_count);
		st->cat_cap = cap;
	}
	st->cat_count[id] += delta;
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

struct edit {
	size_t at, end;
	const char *text;
	size_t len;
};

/* Undo a placement: restore pid and tid, remove args._compact_gpu_track
 * (and args itself when had_args is false).  0, or -1 when the note is not
 * where tr-compact puts it. */
static int undo(struct state *st, const char *line, size_t len, struct buf *out,
		uint64_t *source_index)
{
	struct jdoc *d = &st->doc;
	int args, note, pid, tid, opid, otid, had;
	size_t pn, tn, opn, otn, an, nn, k;
	const char *praw, *traw, *opraw, *otraw, *araw, *nraw;
	struct edit e[3];
	int64_t idx;

	if (jdoc_parse(d, line, len, NULL) != 0)
		return -1;
	args = jdoc_find(d, 0, "args");
	note = jdoc_find(d, args, TRSTREAM_KEY_COMPACT_TRACK);
	pid = jdoc_find(d, 0, "pid");
	tid = jdoc_find(d, 0, "tid");
	if (jdoc_type(d, note) != JT_OBJECT || pid < 0 || tid < 0)
		return -1;
	opid = jdoc_find(d, note, "pid");
	otid = jdoc_find(d, note, "tid");
	had = jdoc_find(d, note, "had_args");
	if (opid < 0 || otid < 0 || jdoc_int64(d, jdoc_find(d, note, "source_event_index"), &idx) != 0 ||
	    idx < 0 || (!jdoc_str_eq(d, had, "true") && jdoc_type(d, had) != JT_PRIMITIVE))
		return -1;
	*source_index = (uint64_t)idx;
	praw = jdoc_raw(d, pid, &pn);
	traw = jdoc_raw(d, tid, &tn);
	opraw = jdoc_raw(d, opid, &opn);
	otraw = jdoc_raw(d, otid, &otn);
	araw = jdoc_raw(d, args, &an);
	nraw = jdoc_raw(d, note, &nn);
	{
		size_t hl;
		const char *h = jdoc_raw(d, had, &hl);
		int had_args = hl == 4 && memcmp(h, "true", 4) == 0;
		size_t key_at = jdoc_raw_offset(d, note - 1);
		size_t note_end = (size_t)(nraw - line) + nn;
		size_t args_end = (size_t)(araw - line) + an;
		size_t args_key_at = jdoc_raw_offset(d, args - 1);
		if (!had_args && !(hl == 5 && memcmp(h, "false", 5) == 0))
			return -1;
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
			if (jdoc_size(d, args) != 1 || args_end + 1 != len)
				return -1;
			if (line[args_key_at - 1] == ',')
				args_key_at--;
			e[2].at = args_key_at;
			e[2].end = args_end;
		}
	}
	e[2].text = "";
	e[2].len = 0;
	e[0].at = (size_t)(praw - line);
	e[0].end = e[0].at + pn;
	e[0].text = opraw;
	e[0].len = opn;
	e[1].at = (size_t)(traw - line);
	e[1].end = e[1].at + tn;
	e[1].text = otraw;
	e[1].len = otn;
	/* apply in offset order */
	for (k = 0; k < 3; k++) {
		size_t j;
		for (j = k + 1; j < 3; j++)
			if (e[j].at < e[k].at) {
				struct edit t = e[k];
				e[k] = e[j];
				e[j] = t;
			}
	}
	buf_reset(out);
	{
		size_t pos = 0;
		for (k = 0; k < 3; k++) {
			if (e[k].at < pos)
				return -1;
			buf_add(out, line + pos, e[k].at - pos);
			buf_add(out, e[k].text, e[k].len);
			pos = e[k].end;
		}
		buf_add(out, line + pos, len - pos);
	}
	return 0;
}

static int64_t lane_of(struct state *st, const char *line, size_t len, int *is_guide)
{
	const char *pid, *tid;
	size_t pn, tn;

	*is_guide = 0;
	if (!event_member(line, len, "pid", &pid, &pn) || !event_member(line, len, "tid", &tid, &tn))
		return -1;
	if (st->have_layers && strlen(st->guide_pid) == pn && memcmp(st->guide_pid, pid, pn) == 0) {
		int64_t t;
		if (num_parse_int64(tid, tn, &t) == NUM_OK && t == st->guide_tid) {
			*is_guide = 1;
			return -1;
		}
	}
	if (st->lane_keys.n == 0)
		return -1;
	buf_reset(&st->tmp);
	buf_add(&st->tmp, pid, pn);
	buf_addch(&st->tmp, '\001');
	buf_add(&st->tmp, tid, tn);
	return intern_find(&st->lane_keys, st->tmp.p, st->tmp.len);
}

static int pf_span(const char *line, size_t len, struct span *s)
{
	const char *ts, *dur;
	size_t tn, dn;
	int64_t t, d;

	if (!event_member(line, len, "ts", &ts, &tn) || !event_member(line, len, "dur", &dur, &dn))
		return -1;
	if (ts[0] == '"') { ts++; tn -= 2; }
	if (dur[0] == '"') { dur++; dn -= 2; }
	if (perfetto_us_to_ns(ts, tn, &t) != NUM_OK || perfetto_us_to_ns(dur, dn, &d) != NUM_OK)
		return -1;
	s->start = t;
	s->end = t + d;
	return 0;
}

static void add_span(struct span **v, size_t *n, size_t *cap, struct span s)
{
	if (*n == *cap) {
		*cap = grow_cap(*cap, 256, sizeof **v);
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = s;
}

/* Render bookkeeping for one output event; 1 when it sits on a guide or
 * lane track (or is metadata the tools add there). */
static int render_event(struct state *st, const char *line, size_t len, uint64_t oindex)
{
	int is_guide;
	int64_t lane = lane_of(st, line, len, &is_guide);
	const char *ph, *v;
	size_t phn, vn;
	struct span s;

	if (!is_guide && lane < 0)
		return 0;
	if (!event_member(line, len, "ph", &ph, &phn) || phn != 3) {
		failure(C_RENDER, "output event %" PRIu64 ": no ph on a %s track", oindex,
			is_guide ? "guide" : "lane");
		return 1;
	}
	if (ph[1] == 'M')
		return 1;
	if (ph[1] == 'X') {
		s.index = oindex;
		if (pf_span(line, len, &s) != 0) {
			failure(C_RENDER, "output event %" PRIu64 ": X without numeric ts and dur",
				oindex);
			return 1;
		}
		if (is_guide) {
			add_span(&st->guides, &st->nguides, &st->guides_cap, s);
			if (event_member(line, len, "name", &v, &vn)) {
				buf_add(&st->guide_names, v, vn);
				buf_addch(&st->guide_names, '\n');
			}
		} else {
			struct lane *l = &st->lanes[lane];
			add_span(&l->s, &l->n, &l->cap, s);
		}
		return 1;
	}
	if (!is_guide && (ph[1] == 's' || ph[1] == 't' || ph[1] == 'f')) {
		const char *ts;
		size_t tn;
		struct flow_ref *f;
		if (st->nflows == st->flows_cap) {
			st->flows_cap = grow_cap(st->flows_cap, 256, sizeof *st->flows);
			st->flows = xrealloc(st->flows, st->flows_cap * sizeof *st->flows);
		}
		f = &st->flows[st->nflows++];
		f->lane = (uint32_t)lane;
		f->index = oindex;
		if (!event_member(line, len, "ts", &ts, &tn) ||
		    perfetto_us_to_ns(ts[0] == '"' ? ts + 1 : ts, ts[0] == '"' ? tn - 2 : tn,
				      &f->ts) != NUM_OK)
			f->ts = INT64_MIN;
		return 1;
	}
	failure(C_RENDER, "output event %" PRIu64 ": a '%c' event on a %s track (only X slices, "
		"flows and metadata import flat there)", oindex, ph[1], is_guide ? "guide" : "lane");
	return 1;
}

/* ---- the checks after the streams ------------------------------------ */

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Perfetto sorts longer slices first at equal ts */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Depth 0 for every slice: the next slice starts at or after the end of the
 * previous one, and a zero-length slice never shares its ts with another. */
static void check_flat(struct span *v, size_t n, const char *what, const char *track)
{
	size_t i;

	if (n < 2)
		return;
	qsort(v, n, sizeof *v, cmp_span);
	for (i = 1; i < n; i++) {
		const struct span *a = &v[i - 1], *b = &v[i];
		if (b->start < a->end || (b->start == a->end && a->start == a->end &&
					  b->start == b->end))
			failure(C_RENDER, "output events %" PRIu64 " and %" PRIu64 " overlap on %s"
				"%s as Perfetto imports them ([%" PRId64 ", %" PRId64 ") and [%" PRId64
				", %" PRId64 ") ns): the second would not be at depth 0",
				a->index, b->index, what, track, a->start, a->end, b->start, b->end);
	}
}

static void check_render(struct state *st)
{
	size_t i, nlanes_used = 0;

	checks[C_RENDER].ran = 1;
	check_flat(st->guides, st->nguides, "the guide track", "");
	for (i = 0; i < st->lane_keys.n; i++) {
		char track[128];
		snprintf(track, sizeof track, " (pid, tid %s)", st->lane_keys.keys[i]);
		for (char *c = track; *c; c++)
			if (*c == '\001')
				*c = ',';
		check_flat(st->lanes[i].s, st->lanes[i].n, "lane", track);
		nlanes_used += st->lanes[i].n > 0;
	}
	for (i = 0; i < st->nflows; i++) {
		const struct flow_ref *f = &st->flows[i];
		const struct lane *l = &st->lanes[f->lane];
		size_t lo = 0, hi = l->n;
		int inside = 0;
		/* the last slice starting at or before the flow's ts */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (l->s[mid].start <= f->ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && f->ts <= l->s[lo - 1].end)
			inside = 1;
		if (!inside)
			failure(C_RENDER, "output event %" PRIu64 ": flow at %" PRId64 " ns is inside "
				"no slice of its lane, so Perfetto would not attach it to its kernel",
				f->index, f->ts);
	}
	buf_printf(&checks[C_RENDER].figures, "%zu guides, %zu lanes (at most %" PRId64
		   " per device), %zu flows on their kernels; depth 0 everywhere",
		   st->nguides, nlanes_used, st->have_compact ? st->max_lanes : 0, st->nflows);
}

static void check_counts(struct state *st)
{
	size_t i;
	uint64_t ncats = 0;

	checks[C_COUNTS].ran = 1;
	for (i = 0; i < st->cats.n; i++) {
		ncats++;
		if (st->cat_count[i] != 0)
			failure(C_COUNTS, "category %s: %" PRId64 " more events in the source than "
				"in the output", st->cats.keys[i], st->cat_count[i]);
	}
	if (st->have_layers) {
		int64_t want = st->num_layers * st->passes, l;
		if ((int64_t)st->nguides != want)
			failure(C_COUNTS, "%zu guides, expected %" PRId64 " (%" PRId64 " layers x %"
				PRId64 " passes)", st->nguides, want, st->num_layers, st->passes);
		for (l = 0; l < st->num_layers; l++) {
			char name[32];
			int64_t seen = 0;
			const char *p = st->guide_names.p;
			snprintf(name, sizeof name, "\"L%" PRId64 "\"\n", st->first_layer + l);
			while ((p = strstr(p, name)) != NULL) {
				if (p == st->guide_names.p || p[-1] == '\n')
					seen++;
				p++;
			}
			if (seen != st->passes)
				failure(C_COUNTS, "guide L%" PRId64 " appears %" PRId64 " times, expected %"
					PRId64, st->first_layer + l, seen, st->passes);
		}
		buf_printf(&checks[C_COUNTS].figures, "%zu guides = %" PRId64 " layers x %" PRId64
			   " passes, one guide track; ", st->nguides, st->num_layers, st->passes);
	}
	buf_printf(&checks[C_COUNTS].figures, "%" PRIu64 " categories with equal counts", ncats);
}

static void check_identity(struct state *st, const char *tail, size_t len)
{
	struct jdoc d = JDOC_INIT;
	int sha;
	size_t n;
	const char *actual;
	char *line, *save = NULL;
	unsigned claims = 0;

	checks[C_IDENTITY].ran = 1;
	if (jdoc_parse(&d, tail, len, NULL) != 0 ||
	    jdoc_type(&d, sha = jdoc_find(&d, 0, TRSTREAM_KEY_SOURCE_SHA256)) != JT_STRING)
		die(EXIT_CANNOT_RUN, "%s: no digest from the decoder", st->src_path);
	actual = jdoc_text(&d, sha, &n);
	for (line = strtok_r(st->sha_claims.p, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');
		claims++;
		if (tab == NULL || strlen(tab + 1) != n || memcmp(tab + 1, actual, n) != 0)
			failure(C_IDENTITY, "%.*s: source_sha256 %s, but %s has %.*s (%" PRId64
				" bytes): the source changed or is another file",
				tab ? (int)(tab - line) : 0, line, tab ? tab + 1 : "?", st->src_path,
				(int)n, actual, int_of(&d, 0, "source_bytes", st->src_path));
	}
	buf_printf(&checks[C_IDENTITY].figures, "sha256 %.*s, %" PRId64 " bytes; %u report%s",
		   (int)n, actual, int_of(&d, 0, "source_bytes", st->src_path), claims,
		   claims == 1 ? "" : "s");
	if (claims == 0)
		buf_addstr(&checks[C_IDENTITY].figures, " (no report beside the output: it "
			   "must then equal the source)");
	jdoc_free(&d);
}

/* ---- reading both streams -------------------------------------------- */

struct input {
	struct stream_in in;
	const char *path;
	pid_t child;
	uint64_t events;
};

/* The next line of a decoded stream: LINE_EVENT, LINE_TAIL, or dies. */
static int next_line(struct input *x, const char **line, size_t *len)
{
	int kind;

	do {
		kind = stream_next(&x->in, line, len);
		if (kind == LINE_ERROR || kind == LINE_END)
			die(EXIT_CANNOT_RUN, "%s: could not be decoded (%s)", x->path,
			    kind == LINE_END ? "no tail" : x->in.err);
	} while (kind == LINE_CONTROL);
	return kind;
}

static const char *members_raw(struct jdoc *d, const char *line, size_t len, size_t *n)
{
	int m;

	if (jdoc_parse(d, line, len, NULL) != 0 || (m = jdoc_find(d, 0, "members")) < 0)
		die(EXIT_CANNOT_RUN, "malformed stream record");
	return jdoc_raw(d, m, n);
}

static void compare_members(struct state *st, const char *a, size_t alen, const char *b,
			    size_t blen, const char *where)
{
	struct jdoc d = JDOC_INIT;
	size_t an, bn;
	const char *am = members_raw(&st->doc, a, alen, &an);
	const char *bm = members_raw(&d, b, blen, &bn);
	int c = st->have_compact ? C_REVERSAL : C_PRESERVE;

	if (an != bn || memcmp(am, bm, an) != 0) {
		struct buf diff = BUF_INIT;
		describe(&diff, am, an, bm, bn);
		failure(c, "top-level members %s traceEvents differ: %s", where, diff.p);
		buf_release(&diff);
	}
	jdoc_free(&d);
}

static int is_scope_metadata(struct state *st, const char *line, size_t len)
{
	const char *pid, *ph;
	size_t pn, phn;

	return st->scope_pids.n > 0 && event_member(line, len, "ph", &ph, &phn) && phn == 3 &&
	       ph[1] == 'M' && event_member(line, len, "pid", &pid, &pn) &&
	       intern_find(&st->scope_pids, pid, pn) >= 0;
}

/* What the tools add after the source events: metadata (on a guide track, a
 * synthetic lane or a scope process) and the guide slices; nothing else. */
static int tool_added(struct state *st, const char *line, size_t len)
{
	const char *ph, *cat;
	size_t phn, catn;
	int is_guide;

	if (!event_member(line, len, "ph", &ph, &phn) || phn != 3)
		return 0;
	if (ph[1] == 'M')
		return 1;
	lane_of(st, line, len, &is_guide);
	return ph[1] == 'X' && is_guide && event_member(line, len, "cat", &cat, &catn) &&
	       catn == 13 && memcmp(cat, "\"layer_guide\"", 13) == 0;
}

static int is_guide_slice(struct state *st, const char *line, size_t len)
{
	const char *ph, *cat;
	size_t phn, catn;
	int is_guide;

	lane_of(st, line, len, &is_guide);
	return is_guide && event_member(line, len, "ph", &ph, &phn) && phn == 3 && ph[1] == 'X' &&
	       event_member(line, len, "cat", &cat, &catn) && catn == 13 &&
	       memcmp(cat, "\"layer_guide\"", 13) == 0;
}

static void compare_events(struct state *st, struct input *src, struct input *out)
{
	const char *sl, *ol;
	size_t slen, olen;
	int skind, okind, c = st->have_compact ? C_REVERSAL : C_PRESERVE;
	uint64_t i = 0, o = 0;
	size_t rnext = 0;
	struct buf undone = BUF_INIT, diff = BUF_INIT;

	skind = next_line(src, &sl, &slen);
	okind = next_line(out, &ol, &olen);
	if (skind != LINE_HEAD || okind != LINE_HEAD)
		die(EXIT_CANNOT_RUN, "decoder streams without a head");
	compare_members(st, sl, slen, ol, olen, "before");
	okind = next_line(out, &ol, &olen);
	for (;;) {
		skind = next_line(src, &sl, &slen);
		if (skind == LINE_TAIL)
			break;
		count_cat(st, sl, slen, 1);
		if (st->have_layers)
			see_source(st, sl, slen, i);
		if (rnext < st->nretired && st->retired[rnext].index == i) {
			const char *t = st->retired[rnext].text;
			if (strlen(t) != slen || memcmp(t, sl, slen) != 0) {
				buf_reset(&diff);
				describe(&diff, sl, slen, t, strlen(t));
				failure(C_REVERSAL, "source event %" PRIu64 ": the retired metadata in the "
					"report differs: %s", i, diff.p);
			}
			while (rnext < st->nretired && st->retired[rnext].index == i)
				rnext++;
			st->restored++;
			i++;
			continue;
		}
		if (okind == LINE_TAIL) {
			failure(c, "source event %" PRIu64 ": the output ends before it (events "
				"were dropped)", i);
			i++;
			continue;
		}
		render_event(st, ol, olen, o);
		count_cat(st, ol, olen, -1);
		if (st->have_compact && find_bytes(ol, olen, TRSTREAM_KEY_COMPACT_TRACK, sizeof TRSTREAM_KEY_COMPACT_TRACK - 1) != NULL) {
			uint64_t at;
			int is_guide;
			/* a moved event is drawn on one of the report's lanes, not
			 * on a track of its own */
			if (lane_of(st, ol, olen, &is_guide) < 0)
				failure(C_RENDER, "output event %" PRIu64 ": moved (it has %s) but not "
					"on a synthetic lane of the report", o, TRSTREAM_KEY_COMPACT_TRACK);
			if (undo(st, ol, olen, &undone, &at) != 0) {
				failure(C_REVERSAL, "output event %" PRIu64 ": malformed %s note", o, TRSTREAM_KEY_COMPACT_TRACK);
			} else {
				if (at != i)
					failure(C_REVERSAL, "output event %" PRIu64 ": records source index %"
						PRIu64 " but stands at source position %" PRIu64, o, at, i);
				if (undone.len != slen || memcmp(undone.p, sl, slen) != 0) {
					buf_reset(&diff);
					describe(&diff, sl, slen, undone.p, undone.len);
					failure(C_REVERSAL, "source event %" PRIu64 " (output event %" PRIu64
						"), after undoing its placement: %s", i, o, diff.p);
				}
			}
			st->undone++;
		} else if (olen != slen || memcmp(ol, sl, slen) != 0) {
			buf_reset(&diff);
			describe(&diff, sl, slen, ol, olen);
			failure(c, "source event %" PRIu64 " (output event %" PRIu64 "): %s", i, o, diff.p);
		}
		st->compared++;
		i++;
		o++;
		okind = next_line(out, &ol, &olen);
	}
	if (st->have_layers)
		finish_selection(st);
	/* what follows the source events must be what the tools add */
	for (; okind != LINE_TAIL; o++, okind = next_line(out, &ol, &olen)) {
		if ((render_event(st, ol, olen, o) || is_scope_metadata(st, ol, olen)) &&
		    tool_added(st, ol, olen)) {
			st->added++;
			if (st->have_layers && is_guide_slice(st, ol, olen))
				check_guide(st, ol, olen, o);
			continue;
		}
		failure(c, "output event %" PRIu64 ": not in the source and not added by the "
			"tools (an event moved, duplicated or inserted?)", o);
		count_cat(st, ol, olen, -1);
	}
	if (rnext < st->nretired)
		failure(C_REVERSAL, "the report retires source event %" PRIu64 ", beyond the "
			"source's %" PRIu64 " events", st->retired[rnext].index, i);
	compare_members(st, sl, slen, ol, olen, "after");
	check_identity(st, sl, slen);
	checks[c].ran = 1;
	buf_printf(&checks[c].figures, "%" PRIu64 " events compared", i);
	if (st->have_compact)
		buf_printf(&checks[c].figures, ", %" PRIu64 " placements undone, %" PRIu64
			   " metadata restored", st->undone, st->restored);
	buf_printf(&checks[c].figures, ", %" PRIu64 " events added by the tools", st->added);
	buf_release(&undone);
	buf_release(&diff);
}

static int finish(struct input *x)
{
	int status;

	stream_in_free(&x->in);
	if (waitpid(x->child, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- the second landmark (tr-select-anchors --confirm-regex) ---------- */

/* A source event placed for the landmark check: a matching kernel or CPU
 * scope (key unused), or a kernel launch (key: its args.correlation). */
struct lm_mark {
	int64_t key, ns;
	char *pid, *tid;  /* raw; NULL for kernels */
	int row;          /* anchors: the report's layers row */
};

struct lm_marks {
	struct lm_mark *v;
	size_t n, cap;
};

static void lm_add(struct lm_marks *set, int64_t key, int64_t ns, const struct jdoc *d)
{
	struct lm_mark *m;

	if (set->n == set->cap) {
		set->cap = grow_cap(set->cap, 256, sizeof *set->v);
		set->v = xrealloc(set->v, set->cap * sizeof *set->v);
	}
	m = &set->v[set->n++];
	m->key = key;
	m->ns = ns;
	m->row = -1;
	m->pid = d ? raw_copy(d, jdoc_find(d, 0, "pid")) : NULL;
	m->tid = d ? raw_copy(d, jdoc_find(d, 0, "tid")) : NULL;
}

static int lm_cmp_ns(const void *a, const void *b)
{
	const struct lm_mark *x = a, *y = b;

	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static int lm_cmp_key(const void *a, const void *b)
{
	const struct lm_mark *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The index of the first mark (sorted by cmp) not below key/ns. */
static size_t lm_lower(const struct lm_marks *set, int64_t v, int by_key)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((by_key ? set->v[mid].key : set->v[mid].ns) < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int lm_same(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Whether a report has a confirm_regex string, read from its members
 * besides the layers rows (a report without one is not read again whole). */
static int claims_landmark(const char *path)
{
	int fd = open_report(path), claims;
	struct buf head = BUF_INIT;
	struct jdoc d = JDOC_INIT;
	uint64_t rows_at, nrows;

	read_report_head(path, fd, &head, &rows_at, &nrows);
	close(fd);
	claims = jdoc_parse(&d, head.p, head.len, NULL) == 0 &&
		 jdoc_type(&d, jdoc_find(&d, 0, "confirm_regex")) == JT_STRING;
	jdoc_free(&d);
	buf_release(&head);
	return claims;
}

/* The whole text of a layers report that claims a landmark: the landmark
 * check reads its rows as one document, so it is capped (REPORT_MAX_WHOLE;
 * 56 672 rows take 24 MB). */
static char *landmark_report_text(const char *path, size_t *len)
{
	int fd = open_report(path);
	struct stat sb;
	struct buf b = BUF_INIT;
	char chunk[65536];
	ssize_t n;

	if (fstat(fd, &sb) != 0)
		die_errno(EXIT_CANNOT_RUN, "%s", path);
	if ((uint64_t)sb.st_size > REPORT_MAX_WHOLE)
		die(EXIT_CANNOT_RUN, "%s: %" PRIu64 " bytes; the landmark check reads a report "
		    "of at most " REPORT_MAX_WHOLE_TEXT, path, (uint64_t)sb.st_size);
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die_errno(EXIT_CANNOT_RUN, "%s: read", path);
		}
		if (b.len + (size_t)n > REPORT_MAX_WHOLE)
			die(EXIT_CANNOT_RUN, "%s: grew past " REPORT_MAX_WHOLE_TEXT " while read", path);
		if (buf_add(&b, chunk, (size_t)n) != 0)
			die_nomem();
	}
	close(fd);
	/* tolerate the final newline (and indentation) */
	while (b.len > 0 && (b.p[b.len - 1] == '\n' || b.p[b.len - 1] == ' '))
		b.len--;
	*len = b.len;
	return b.p;
}

/* Recount the landmark a layers report claims (confirm_regex, confirm_cpu)
 * from a fresh decode of the source, with tr-select-anchors(1)'s rule: a
 * kernel of the guides' pid and device, exactly once in [start_us, end_us)
 * of every guide ending at the next anchor or at a terminal's end; a CPU
 * scope, exactly once between the launches of consecutive anchors of a
 * pass, on the threads that launched them.  Times at nanosecond floors. */
static void check_landmark(struct state *st, const char *const *reports, int nreports)
{
	struct jdoc d = JDOC_INIT, ev = JDOC_INIT;
	struct lm_marks found = { 0 }, launches = { 0 }, anchors = { 0 };
	struct input x;
	struct regex *re = NULL;
	struct buf name = BUF_INIT;
	char *text = NULL, err[200];
	const char *line, *pid = NULL, *dev = NULL, *path = NULL, *rxraw = NULL;
	size_t len, pn = 0, dn = 0, rxn = 0, i, k, intervals = 0;
	int r, rows = -1, cpu = 0, kind, n;

	for (r = 0; r < nreports && rows < 0; r++) {
		const char *v;
		size_t vn;
		int rx;
		free(text);
		text = NULL;
		if (!claims_landmark(reports[r]))
			continue;
		text = landmark_report_text(reports[r], &len);
		if (jdoc_parse(&d, text, len, NULL) != 0 || jdoc_find(&d, 0, "guide_tid") < 0)
			continue;
		rx = jdoc_find(&d, 0, "confirm_regex");
		if (jdoc_type(&d, rx) != JT_STRING)
			continue;
		buf_reset(&name);
		if (jdoc_unescape(&d, rx, &name) != 0 || memchr(name.p, '\0', name.len) != NULL ||
		    (re = regex_compile(name.p, err, sizeof err)) == NULL)
			die(EXIT_CANNOT_RUN, "%s: confirm_regex: not a usable pattern", reports[r]);
		v = jdoc_raw(&d, jdoc_find(&d, 0, "confirm_cpu"), &vn);
		cpu = v != NULL && vn == 4 && memcmp(v, "true", 4) == 0;
		rows = jdoc_find(&d, 0, "layers");
		pid = jdoc_raw(&d, jdoc_find(&d, 0, "pid"), &pn);
		dev = jdoc_raw(&d, jdoc_find(&d, 0, "device"), &dn);
		path = reports[r];
		rxraw = jdoc_raw(&d, rx, &rxn);
		if (jdoc_type(&d, rows) != JT_ARRAY || pid == NULL || dev == NULL)
			die(EXIT_CANNOT_RUN, "%s: a landmark without layers, pid or device", path);
	}
	if (rows < 0)
		goto done;
	checks[C_LANDMARK].ran = 1;
	n = jdoc_size(&d, rows);
	/* the guides' anchors by start time, to find their correlations */
	for (k = 0, r = rows + 1; k < (size_t)n; k++, r = jdoc_next(&d, r)) {
		size_t tn;
		const char *t = jdoc_raw(&d, jdoc_find(&d, r, "start_us"), &tn);
		int sub;
		int64_t ns = 0;
		if (t == NULL || num_us_to_ns(t, tn, &ns, &sub) != NUM_OK)
			die(EXIT_CANNOT_RUN, "%s: a layers row without a numeric start_us", path);
		lm_add(&anchors, -1, ns, NULL);  /* key: the correlation, when found */
		anchors.v[anchors.n - 1].row = r;
	}

	x.path = st->src_path;
	if (stream_in_init(&x.in, spawn_decoder(st->src_path, st->max_event, &x.child), STREAM_DEFAULT_MAX_LINE))
		die_nomem();
	while ((kind = next_line(&x, &line, &len)) == LINE_EVENT || kind == LINE_HEAD) {
		const char *cat, *v;
		size_t cn, vn;
		int64_t ns, corr = 0;
		int sub, args, is_kernel, launch, rc;
		if (kind == LINE_HEAD || !event_member(line, len, "ph", &v, &vn) || vn != 3 ||
		    v[1] != 'X' || !event_member(line, len, "cat", &cat, &cn) || cat[0] != '"')
			continue;
		cat++;
		cn -= 2;
		is_kernel = category_has(cat, cn, "kernel") || category_has(cat, cn, "Kernel");
		launch = category_has(cat, cn, "cuda_runtime") || category_has(cat, cn, "cuda_driver") ||
			 category_has(cat, cn, "Runtime");
		if (!is_kernel && !(cpu && (launch || category_has(cat, cn, "cpu_op") ||
					    category_has(cat, cn, "user_annotation") ||
					    category_has(cat, cn, "python_function") ||
					    category_has(cat, cn, "Operator"))))
			continue;
		if (jdoc_parse(&ev, line, len, NULL) != 0 ||
		    (v = jdoc_raw(&ev, jdoc_find(&ev, 0, "ts"), &vn)) == NULL ||
		    num_us_to_ns(v, vn, &ns, &sub) != NUM_OK)
			continue;
		args = jdoc_find(&ev, 0, "args");
		if (jdoc_type(&ev, args) == JT_OBJECT)
			(void)jdoc_int64(&ev, jdoc_find(&ev, args, "correlation"), &corr);
		if (is_kernel) {
			const char *p = jdoc_raw(&ev, jdoc_find(&ev, 0, "pid"), &vn);
			int dv = jdoc_type(&ev, args) == JT_OBJECT ? jdoc_find(&ev, args, "device") : -1;
			size_t dl = 4;
			const char *dt = dv >= 0 ? jdoc_raw(&ev, dv, &dl) : "null";
			if (p == NULL || vn != pn || memcmp(p, pid, pn) != 0 || dl != dn ||
			    memcmp(dt, dev, dn) != 0)
				continue;
			if (cpu) {
				/* an anchor: a kernel starting at a guide's start_us */
				size_t at = lm_lower(&anchors, ns, 0), an, en;
				const char *a, *nm = jdoc_raw(&ev, jdoc_find(&ev, 0, "name"), &en);
				if (at < anchors.n && anchors.v[at].ns == ns && anchors.v[at].key < 0 &&
				    (a = jdoc_raw(&d, jdoc_find(&d, anchors.v[at].row, "anchor_name"), &an)) &&
				    nm != NULL && an == en && memcmp(a, nm, an) == 0)
					anchors.v[at].key = corr;
				continue;
			}
		} else if (launch) {
			if (corr != 0)
				lm_add(&launches, corr, ns, &ev);
			continue;
		}
		buf_reset(&name);
		if (jdoc_type(&ev, jdoc_find(&ev, 0, "name")) != JT_STRING ||
		    jdoc_unescape(&ev, jdoc_find(&ev, 0, "name"), &name) != 0)
			continue;
		if ((rc = regex_search(re, name.p, name.len)) < 0)
			die(EXIT_CANNOT_RUN, "confirm_regex: matching failed (resource limit)");
		if (rc == 1)
			lm_add(&found, 0, ns, is_kernel ? NULL : &ev);
	}
	if (finish(&x) != 0)
		die(EXIT_CANNOT_RUN, "a decoder failed");
	if (found.n > 0)
		qsort(found.v, found.n, sizeof *found.v, lm_cmp_ns);
	if (launches.n > 0)
		qsort(launches.v, launches.n, sizeof *launches.v, lm_cmp_key);

	for (k = 0, r = rows + 1; k + (cpu ? 1 : 0) < (size_t)n; k++, r = jdoc_next(&d, r)) {
		int64_t lo = anchors.v[k].ns, hi, pass = 0, layer = 0;
		size_t count = 0, el, sl;
		const char *e = jdoc_raw(&d, jdoc_find(&d, r, "end_us"), &el);
		const char *start = jdoc_raw(&d, jdoc_find(&d, r, "start_us"), &sl);
		int sub, kind_next = jdoc_str_eq(&d, jdoc_find(&d, r, "boundary_kind"), "next_layer_anchor");
		(void)jdoc_int64(&d, jdoc_find(&d, r, "pass_index"), &pass);
		(void)jdoc_int64(&d, jdoc_find(&d, r, "layer_id"), &layer);
		if (!cpu) {
			if (!kind_next && !jdoc_str_eq(&d, jdoc_find(&d, r, "boundary_kind"),
						      "terminal_kernel_end"))
				continue;
			if (e == NULL || num_us_to_ns(e, el, &hi, &sub) != NUM_OK)
				die(EXIT_CANNOT_RUN, "%s: a layers row without a numeric end_us", path);
			hi += sub;  /* [lo, exact end): floors compare alike */
			if (hi > lo)
				count = lm_lower(&found, hi, 0) - lm_lower(&found, lo, 0);
		} else {
			const struct lm_mark *l0 = NULL, *l1 = NULL;
			size_t a;
			if (!kind_next)
				continue;
			for (i = 0; i < 2; i++) {
				int64_t c = anchors.v[k + i].key;
				a = lm_lower(&launches, c, 1);
				if (c >= 0 && a < launches.n && launches.v[a].key == c)
					*(i ? &l1 : &l0) = &launches.v[a];
			}
			if (l0 == NULL || l1 == NULL) {
				failure(C_LANDMARK, "%s: pass %" PRId64 ", layer %" PRId64 ": the anchors' "
					"launches are not in the source, so the CPU landmark cannot hold",
					path, pass, layer);
				continue;
			}
			for (a = lm_lower(&found, l0->ns, 0); a < found.n && found.v[a].ns < l1->ns; a++)
				if ((lm_same(found.v[a].pid, l0->pid) && lm_same(found.v[a].tid, l0->tid)) ||
				    (lm_same(found.v[a].pid, l1->pid) && lm_same(found.v[a].tid, l1->tid)))
					count++;
		}
		intervals++;
		if (count != 1)
			failure(C_LANDMARK, "%s claims confirm_regex %.*s%s, but pass %" PRId64 ", layer %"
				PRId64 " (anchor at ts %.*s) has %zu %s in the source, not exactly "
				"one", path, (int)rxn, rxraw, cpu ? " (confirm_cpu)" : "", pass, layer,
				(int)sl, start, count, cpu ? "CPU scopes between the anchors' launches" :
				"matching kernels");
	}
	buf_printf(&checks[C_LANDMARK].figures, "confirm_regex %.*s%s: %zu anchor intervals "
		   "recounted from the source", (int)rxn, rxraw, cpu ? " (CPU scopes)" : "",
		   intervals);
done:
	for (i = 0; i < found.n; i++) {
		free(found.v[i].pid);
		free(found.v[i].tid);
	}
	for (i = 0; i < launches.n; i++) {
		free(launches.v[i].pid);
		free(launches.v[i].tid);
	}
	free(found.v);
	free(launches.v);
	free(anchors.v);
	regex_free(re);
	buf_release(&name);
	jdoc_free(&d);
	jdoc_free(&ev);
	free(text);
}

static void print_text(void)
{
	int c, ok = 1;

	for (c = 0; c < NCHECKS; c++) {
		const struct check *k = &checks[c];
		if (!k->ran)
			continue;
		printf("%-16s %s: %s\n", k->name, k->failures ? "FAILED" : "ok", k->figures.p);
		if (k->failures) {
			const char *p, *nl;
			ok = 0;
			for (p = k->shown.p; (nl = strchr(p, '\n')) != NULL; p = nl + 1)
				printf("  %.*s\n", (int)(nl - p), p);
			printf("  %s\n", p);
			if (k->failures > k->nshown)
				printf("  ... %" PRIu64 " failures in all\n", k->failures);
		}
	}
	printf("%s\n", ok ? "verified" : "NOT VERIFIED: do not use this output");
}

static void print_json(void)
{
	struct buf b = BUF_INIT;
	int c, ok = 1;

	buf_addstr(&b, "{\"checks\":[");
	for (c = 0; c < NCHECKS; c++) {
		const struct check *k = &checks[c];
		const char *p;
		if (!k->ran)
			continue;
		if (b.p[b.len - 1] != '[')
			buf_addch(&b, ',');
		buf_addstr(&b, "{\"name\":");
		json_escape(&b, k->name, strlen(k->name));
		buf_printf(&b, ",\"ok\":%s,\"figures\":", k->failures ? "false" : "true");
		json_escape(&b, k->figures.p, k->figures.len);
		buf_printf(&b, ",\"failures\":%" PRIu64 ",\"first_failures\":[", k->failures);
		for (p = k->shown.p; *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			if (p != k->shown.p)
				buf_addch(&b, ',');
			json_escape(&b, p, n);
			p += n + (nl != NULL);
		}
		buf_addstr(&b, "]}");
		ok &= k->failures == 0;
	}
	buf_printf(&b, "],\"verified\":%s}\n", ok ? "true" : "false");
	fputs(b.p, stdout);
	buf_release(&b);
}

/* Everything freed, so that valgrind's leak report means something. */
static void free_state(struct state *st)
{
	size_t i;

	for (i = 0; i < st->lane_keys.n; i++)
		free(st->lanes[i].s);
	free(st->lanes);
	for (i = 0; i < st->nretired; i++)
		free(st->retired[i].text);
	free(st->retired);
	free(st->guide_pid);
	free(st->guides);
	free(st->flows);
	free(st->cat_count);
	intern_free(&st->lane_keys);
	intern_free(&st->scope_pids);
	intern_free(&st->cats);
	jdoc_free(&st->doc);
	buf_release(&st->tmp);
	buf_release(&st->sha_claims);
	buf_release(&st->guide_names);
	for (i = 0; i < st->sel.nheap; i++)
		free(st->sel.heap[i].ts);
	free(st->sel.heap);
	free(st->sel.terms);
	free(st->sel.exp);
	free(st->sel.regex);
	free(st->sel.end_regex);
	free(st->sel.pid);
	free(st->sel.device);
	free(st->sel.origin_text);
	buf_release(&st->sel.origin_raw);
	regex_free(st->sel.re);
	regex_free(st->sel.end_re);
	intern_free(&st->sel.texts);
	jdoc_free(&st->sel.edoc);
	jdoc_free(&st->sel.gdoc);
	jdoc_free(&st->sel.rdoc);
	buf_release(&st->sel.cat);
	buf_release(&st->sel.name);
	if (st->rows.open)
		scan_free(&st->rows.scan);
	if (st->rows.path != NULL)
		close(st->rows.file.fd);
	buf_release(&st->rows.row);
}

/* ---- a window (tr-window) ---------------------------------------------- */

/* OUT is a window of SRC cut by tr-window(1), described by the report
 * WINDOW: every OUT event equals (as bytes) an SRC event, in SRC's order;
 * every SRC event that overlaps the window is in OUT unless the report lists
 * it as dropped; the window's guides and lanes import flat, with the
 * layers and compaction reports beside SRC (the trace it was cut from). */
static void verify_window(struct state *st, const char *window_path)
{
	struct buf text = BUF_INIT, path = BUF_INIT;
	struct jdoc d = JDOC_INIT;
	struct input src, out;
	const char *sl = NULL, *ol = NULL, *v;
	size_t sn = 0, on = 0, n, nd = 0, k, claims_len;
	uint64_t si = 0, oi = 0, *dropped = NULL, missing = 0, matched_dropped = 0;
	int64_t w0, w1, lo, hi;
	int sk, ok, rows, tok, c, fd = open_report(window_path);
	static const char *const keys[] = { "ph", "ts", "dur" };
	struct member m[3];

	for (;;) {
		char chunk[65536];
		ssize_t r = read(fd, chunk, sizeof chunk);
		if (r < 0)
			die_errno(EXIT_CANNOT_RUN, "%s", window_path);
		if (r == 0)
			break;
		if (text.len + (size_t)r > REPORT_MAX_WHOLE)
			die(EXIT_CANNOT_RUN, "%s: larger than " REPORT_MAX_WHOLE_TEXT, window_path);
		if (buf_add(&text, chunk, (size_t)r) != 0)
			die_nomem();
	}
	close(fd);
	while (text.len > 0 && (text.p[text.len - 1] == '\n' || text.p[text.len - 1] == ' '))
		text.len--;
	if (jdoc_parse(&d, text.p, text.len, NULL) != 0 || jdoc_type(&d, 0) != JT_OBJECT ||
	    jdoc_int64(&d, jdoc_find(&d, 0, "window_start_ns"), &w0) != 0 ||
	    jdoc_int64(&d, jdoc_find(&d, 0, "window_end_ns"), &w1) != 0)
		die(EXIT_CANNOT_RUN, "%s: not a window report (no window_start_ns and "
		    "window_end_ns)", window_path);
	claim_sha(st, &d, 0, window_path);
	rows = jdoc_find(&d, 0, "dropped_events");
	for (k = 0, tok = rows + 1; rows >= 0 && k < (size_t)jdoc_size(&d, rows);
	     k++, tok = jdoc_next(&d, tok)) {
		int64_t idx;
		if (jdoc_int64(&d, jdoc_find(&d, tok, "source_index"), &idx) != 0 || idx < 0)
			die(EXIT_CANNOT_RUN, "%s: a dropped_events row without source_index",
			    window_path);
		dropped = xrealloc(dropped, (nd + 1) * sizeof *dropped);
		dropped[nd++] = (uint64_t)idx;
	}
	/* the reports of the trace the window was cut from: its guides and lanes
	 * (their source_sha256 names the trace before that one: not claimed) */
	claims_len = st->sha_claims.len;
	for (c = 0; c < 2; c++) {
		struct stat sb;
		buf_reset(&path);
		buf_printf(&path, "%s%s", st->src_path, c ? ".compact.json" : ".layers.json");
		if (stat(path.p, &sb) == 0)
			load_report(st, path.p);
	}
	buf_setlen(&st->sha_claims, claims_len);
	if (st->lanes == NULL)
		st->lanes = calloc(1, sizeof *st->lanes);
	w0 = window_half(w0);
	w1 = window_half(w1);

	src.path = st->src_path;
	out.path = st->out_path;
	if (stream_in_init(&src.in, spawn_decoder(st->src_path, st->max_event, &src.child),
			   STREAM_DEFAULT_MAX_LINE) ||
	    stream_in_init(&out.in, spawn_decoder(st->out_path, st->max_event, &out.child),
			   STREAM_DEFAULT_MAX_LINE))
		die_nomem();
	checks[C_WINDOW].ran = 1;
	/* the heads first: the window's members are the source's */
	if (next_line(&src, &sl, &sn) != LINE_HEAD || next_line(&out, &ol, &on) != LINE_HEAD)
		die(EXIT_CANNOT_RUN, "a decoder wrote no head");
	ok = next_line(&out, &ol, &on) == LINE_EVENT;
	k = 0;
	while ((sk = next_line(&src, &sl, &sn)) == LINE_EVENT) {
		if (ok && on == sn && memcmp(ol, sl, sn) == 0) {
			render_event(st, ol, on, oi);
			oi++;
			while (k < nd && dropped[k] < si)
				k++;
			if (k < nd && dropped[k] == si)
				matched_dropped++;
			ok = next_line(&out, &ol, &on) == LINE_EVENT;
			si++;
			continue;
		}
		event_members(sl, sn, keys, 3, m);
		if (window_category(m[0].p, m[0].len) != WCAT_METADATA &&
		    window_interval(m[1].p, m[1].len, window_category(m[0].p, m[0].len) ==
				    WCAT_COMPLETE ? m[2].p : NULL, m[2].len, &lo, &hi) == 0 &&
		    window_overlaps(lo, hi, w0, w1)) {
			while (k < nd && dropped[k] < si)
				k++;
			if (k == nd || dropped[k] != si) {
				missing++;
				failure(C_WINDOW, "source event %" PRIu64 " overlaps the window but is "
					"not in it, and the report does not list it as dropped", si);
			}
		}
		si++;
	}
	if (ok) {
		uint64_t extra = 0;
		do {
			render_event(st, ol, on, oi + extra);
			if (extra++ == 0)
				failure(C_WINDOW, "output event %" PRIu64 " is no source event (or is out "
					"of the source's order): %.*s", oi, (int)(on < 200 ? on : 200), ol);
		} while (next_line(&out, &ol, &on) == LINE_EVENT);
		(void)extra;
	}
	if (matched_dropped)
		failure(C_WINDOW, "%" PRIu64 " events the report lists as dropped are in the window",
			matched_dropped);
	check_identity(st, sl, sn);
	if (finish(&src) != 0 || finish(&out) != 0)
		die(EXIT_CANNOT_RUN, "a decoder failed");
	buf_printf(&checks[C_WINDOW].figures, "%" PRIu64 " events of %" PRIu64 " kept, byte for "
		   "byte and in order; %zu overlapping events dropped as the report says, %" PRIu64
		   " missing", oi, si, nd, missing);
	v = jdoc_raw(&d, jdoc_find(&d, 0, "spec"), &n);
	buf_printf(&checks[C_WINDOW].figures, "; window %.*s", (int)n, v);
	check_render(st);
	free(dropped);
	jdoc_free(&d);
	buf_release(&text);
	buf_release(&path);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "report", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "max-event-bytes", required_argument, NULL, 'm' },
		{ "max-member-bytes", required_argument, NULL, 'M' },
		{ "window", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct state st;
	struct input src, out;
	const char *reports[8];
	int nreports = 0, json = 0, ch, c, failed = 0, window = 0;
	struct buf window_path = BUF_INIT;
	struct stat wsb;
	uint64_t max_event = DEFAULT_MAX_EVENT;
	size_t i;
	struct opt_program prog = { NULL, ":h", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	memset(&st, 0, sizeof st);
	st.tmp = (struct buf)BUF_INIT;
	st.sha_claims = (struct buf)BUF_INIT;
	st.guide_names = (struct buf)BUF_INIT;
	st.sel.cat = (struct buf)BUF_INIT;
	st.sel.name = (struct buf)BUF_INIT;
	st.sel.origin_raw = (struct buf)BUF_INIT;
	st.rows.row = (struct buf)BUF_INIT;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 's': st.src_path = optarg; break;
		case 'o': st.out_path = optarg; break;
		case 'r':
			if (nreports == 8)
				die(EXIT_CANNOT_RUN, "at most 8 --report options");
			reports[nreports++] = optarg;
			break;
		case 'j': json = 1; break;
		case 'w': window = 1; break;
		case 'm':
			if (opt_size(&prog, stderr, "--max-event-bytes", optarg, 1, LIMIT_MAX_EVENT,
				     &max_event) != 0)
				exit(EXIT_CANNOT_RUN);
			break;
		case 'M': {
			uint64_t v;
			if (opt_size(&prog, stderr, "--max-member-bytes", optarg, 1, LIMIT_MAX_EVENT,
				     &v) != 0)
				exit(EXIT_CANNOT_RUN);
			max_members = (size_t)v;
			break;
		}
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));  /* 2, EXIT_CANNOT_RUN */
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (st.src_path == NULL || st.out_path == NULL)
		exit(opt_usage_error(&prog, stderr, "--source and --output are required"));
	/* a window: OUT.window.json, given with --window or found beside OUT */
	if (window && nreports > 0)
		die(EXIT_CANNOT_RUN, "--window takes no --report: the window's report is "
		    "OUT.window.json, and the reports beside SRC are read for its guides and lanes");
	buf_printf(&window_path, "%s.window.json", st.out_path);
	if (nreports == 0 && (window || stat(window_path.p, &wsb) == 0)) {
		st.max_event = (size_t)max_event;
		verify_window(&st, window_path.p);
		nreports = -1;
	} else if (nreports == 0) {
		static const char *const suffixes[] = { ".layers.json", ".compact.json" };
		static struct buf found[2] = { BUF_INIT, BUF_INIT };
		for (i = 0; i < 2; i++) {
			struct stat sb;
			buf_printf(&found[i], "%s%s", st.out_path, suffixes[i]);
			if (stat(found[i].p, &sb) == 0)
				reports[nreports++] = found[i].p;
		}
	}
	for (c = 0; c < nreports; c++)
		load_report(&st, reports[c]);
	if (nreports < 0)
		goto print;
	if (st.lanes == NULL)
		st.lanes = calloc(1, sizeof *st.lanes);

	st.max_event = (size_t)max_event;
	src.path = st.src_path;
	out.path = st.out_path;
	if (stream_in_init(&src.in, spawn_decoder(st.src_path, (size_t)max_event, &src.child), STREAM_DEFAULT_MAX_LINE) ||
	    stream_in_init(&out.in, spawn_decoder(st.out_path, (size_t)max_event, &out.child), STREAM_DEFAULT_MAX_LINE))
		die_nomem();
	compare_events(&st, &src, &out);
	if (finish(&src) != 0 || finish(&out) != 0)
		die(EXIT_CANNOT_RUN, "a decoder failed");
	check_render(&st);
	check_counts(&st);
	if (st.have_layers)
		finish_placement(&st);
	check_landmark(&st, reports, nreports);
print:
	buf_release(&window_path);
	if (json)
		print_json();
	else
		print_text();
	if (fflush(stdout) != 0 || ferror(stdout))
		die_write("standard output");
	for (c = 0; c < NCHECKS; c++) {
		failed |= checks[c].failures != 0;
		buf_release(&checks[c].figures);
		buf_release(&checks[c].shown);
	}
	free_state(&st);
	return failed ? EXIT_NOT_VERIFIED : EXIT_OK;
}
