/* tr-window: cut an exact, browser-sized piece out of a trace-layers stream:
 * the events that overlap a window given by passes, layers or time, whole
 * and byte-identical, with the metadata of the threads they sit on, and a
 * report for tr-encode.  See tr-window(1).
 *
 * The window is known only at the end of the stream (the guides come last,
 * the trace start is the smallest ts anywhere), so the stream is spilled to
 * an unlinked temporary file, and beside it, in a second one, a small
 * fixed-size record per line (common/window/window.h: the cut) that holds all the
 * decision needs, its flows and async ids matched on disk, a part at a time
 * (common/window/windowgroup.h).  The records are read twice (to measure the window, then
 * to write it); of the spilled stream only the lines written are read
 * back.  This file is options and glue. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gz/gz.h"
#include "core/buf.h"
#include "core/diag.h"
#include "json/event.h"
#include "stream/filter.h"
#include "core/io.h"
#include "json/json.h"
#include "core/opt.h"
#include "core/outfile.h"
#include "window/passtable.h"
#include "core/reader.h"
#include "stream/stream.h"
#include "stream/trstream.h"
#include "json/tsnum.h"
#include "window/window.h"
#include "core/writer.h"

static const char usage_text[] =
	"usage: tr-window --passes A-B | --pass K [--layers A-B] |\n"
	"                 --around LN --pass K [--pad DUR] | --from MS [--to MS]\n"
	"                 [--max-bytes N] [--pass-table FILE] [-q | --quiet]\n"
	"       tr-window --list-passes\n"
	"       tr-window --pass-table FILE   (the stream passes through unchanged)\n"
	"Keep the events of a trace-layers stream (tr-stream(5)) that overlap a\n"
	"window, whole and byte-identical, and add a report OUTPUT.window.json.\n"
	"\n"
	"  --passes A-B    from the first guide of pass A to the last of pass B\n"
	"  --pass K        pass K (with --layers or --around: the pass they are in)\n"
	"  --layers A-B    from guide LA to guide LB of the pass\n"
	"  --around LN     guide LN of the pass, widened by --pad on both sides\n"
	"  --pad DUR       duration with unit ns, us, ms or s (default unit ms; 0)\n"
	"  --from MS       window start, ms after the trace start (default 0)\n"
	"  --to MS         window end, ms after the trace start (default: the end)\n"
	"  --max-bytes N   refuse a window larger than N bytes of events (K, M, G)\n"
	"  --pass-table FILE  write each pass's time span and bytes to FILE;\n"
	"                  alone, without a window: pass the stream through\n"
	"  --list-passes   write only that table, to standard output, and no stream\n"
	"  -q, --quiet     no summary line on standard error\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected or window refused, 2 usage or\n"
	"system trouble.\n";

struct state {
	struct window_spec w;   /* the window's options */
	uint64_t max_bytes;
	int have_max, through, quiet;
	const char *table_path;
	struct outfile table;     /* open from the start when table_path is set */
	struct buf spec;
};

static void parse_options(int argc, char **argv, struct state *st)
{
	static const struct option longopts[] = {
		{ "passes", required_argument, NULL, 'P' },
		{ "pass", required_argument, NULL, 'p' },
		{ "layers", required_argument, NULL, 'l' },
		{ "around", required_argument, NULL, 'a' },
		{ "pad", required_argument, NULL, 'd' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "max-bytes", required_argument, NULL, 'm' },
		{ "list-passes", no_argument, NULL, 'L' },
		{ "pass-table", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct opt_program prog = { NULL, ":hq", longopts, usage_text };
	int ch, kinds;

	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'P': st->w.passes = optarg; break;
		case 'p': st->w.pass = optarg; break;
		case 'l': st->w.layers = optarg; break;
		case 'a': st->w.around = optarg; break;
		case 'd': st->w.pad = optarg; break;
		case 'f': st->w.from = optarg; break;
		case 't': st->w.to = optarg; break;
		case 'm':
			if (opt_parse_size(optarg, 1, UINT64_MAX, &st->max_bytes) != 0)
				exit(opt_bad_value(&prog, stderr, "--max-bytes", optarg,
						   "bytes, suffix K, M or G"));
			st->have_max = 1;
			break;
		case 'L': st->w.list_passes = 1; break;
		case 'T': st->table_path = optarg; break;
		case 'q': st->quiet = 1; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit(gz_backend());
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (st->w.list_passes) {
		if (st->w.passes || st->w.pass || st->w.layers || st->w.around || st->w.pad ||
		    st->w.from || st->w.to || st->have_max || st->table_path)
			die(EXIT_TROUBLE, "--list-passes takes no other option");
		return;
	}
	kinds = window_spec_kind(&st->w);
	if (kinds == 0 && !st->have_max && st->table_path) {
		st->through = 1;
		return;
	}
	if (kinds != 1)
		die(EXIT_TROUBLE, "give one window: --passes A-B, --pass K, --layers A-B [--pass K], "
		    "--around LN [--pass K] [--pad DUR], or --from MS [--to MS]");
	if (window_spec_text(&st->w, &st->spec) != 0)
		die_nomem();
}

static void check(struct window_cut *c, int rc)
{
	if (rc < 0)
		die_nomem();
	if (rc != 0)
		die(rc == WINDOW_REFUSED ? EXIT_INPUT : EXIT_TROUBLE, "%s", c->err.p);
}

static const struct window_rec *records_next(struct window_recs *r)
{
	const struct window_rec *rec;
	int rc = window_recs_next(r, &rec);

	if (rc < 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	return rc ? rec : NULL;
}

/* Where the stream is read back from: the spill, or standard input itself
 * when that is a regular file (then nothing is spilled). */
struct source {
	int fd;
	uint64_t base;   /* the stream's first byte in fd */
};

/* The third look's output: the lines kept, copied from the spill in runs,
 * and the report. */
struct out {
	const struct state *st;
	struct window_cut *c;
	struct filter *f;
	struct source src;
	const char *source_name;
	const struct buf *sha;
	char *buf;
	size_t cap;
};

/* Copy bytes [from, to) of the stream to the output. */
static int copy_run(void *ctx, uint64_t from, uint64_t to)
{
	struct out *o = ctx;

	while (from < to) {
		size_t want = to - from < o->cap ? (size_t)(to - from) : o->cap;
		ssize_t got = pread(o->src.fd, o->buf, want, (off_t)(o->src.base + from));
		/* standard input read back in place: a file that shrank
		 * since the first pass was changed under us */
		if (got == 0 && o->src.fd == 0)
			die(EXIT_TROUBLE, "stdin: the input changed between the two passes (it is "
			    "shorter now); cut the window from a file that does not change");
		if (got <= 0)
			die_errno(EXIT_TROUBLE, "%s", o->src.fd == 0 ? "stdin" : "temporary file");
		if (writer_put(&o->f->out, o->buf, (size_t)got) != 0)
			die_write("standard output");
		from += (uint64_t)got;
	}
	return 0;
}

static int put_report(void *ctx)
{
	struct out *o = ctx;
	struct buf r = BUF_INIT;

	if (window_cut_report(o->c, o->st->spec.p, o->source_name, o->sha->p, o->sha->len, &r) != 0)
		die_nomem();
	if (writer_put(&o->f->out, r.p, r.len) != 0)
		die_write("standard output");
	buf_release(&r);
	return 0;
}

/* --pass-table FILE: a new file placed whole, or a /dev/ descriptor (the
 * one-line commands hand over theirs).  Opened before the stream is read:
 * an existing file is refused before anything is written. */
static void open_table(struct state *st)
{
	diag_on_exit(outfile_abort_all);
	if (outfile_open_side(&st->table, st->table_path) == 0)
		return;
	if (errno == EEXIST)
		die(EXIT_TROUBLE, "%s: exists; refusing to overwrite it", st->table_path);
	die_errno(EXIT_TROUBLE, "%s", st->table_path);
}

static void write_table(struct state *st, const struct buf *table)
{
	if (io_write_all(st->table.fd, table->p, table->len) != 0 ||
	    outfile_commit(&st->table) != 0)
		die_errno(EXIT_TROUBLE, "%s", st->table_path);
}

/* A pass table failure: its message, or the temporary file's error. */
static void check_table(struct passtable *t, int rc)
{
	if (rc == PASSTABLE_NOMEM)
		die_nomem();
	if (rc == PASSTABLE_SPILL)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (rc != PASSTABLE_OK)
		die(rc == PASSTABLE_REFUSED ? EXIT_INPUT : EXIT_TROUBLE, "%s", passtable_error(t));
}

/* The pass table alone: --pass-table without a window, where every line
 * goes through as it comes and the table, known only at the end, goes to
 * its file (empty without guides), and --list-passes, where the table goes
 * to standard output and nothing else does (passtable.h: no copy of the
 * stream, no records). */
static int table_only(struct state *st)
{
	struct passtable passes;
	struct filter f;
	struct jdoc doc = { 0 };
	struct buf table = BUF_INIT;
	const char *line;
	size_t len;
	int kind;

	if (passtable_init(&passes, xopen_spill("tr-window")) != 0)
		die_nomem();
	if (filter_open(&f) != 0)
		die_nomem();
	f.table_out = !st->through;
	while ((kind = filter_next(&f, &line, &len)) > LINE_END) {
		if (kind == LINE_HEAD && !st->through) {
			/* refused as a window refuses it */
			struct trstream_head_in head;
			char err[100];
			if (trstream_head_read(&doc, line, len, &head, err, sizeof err) != 0)
				die(EXIT_INPUT, "%s", err);
			free(head.source);
		}
		if (kind == LINE_EVENT)
			check_table(&passes, passtable_event(&passes, line, len));
		if (st->through)
			filter_pass(&f, line, len);
	}
	if (kind == LINE_ERROR || (st->through && filter_close(&f) != 0))
		die_stream(f.write_errno, f.in.err, f.in.read_errno);
	check_table(&passes, passtable_finish(&passes, !st->through, &table));
	if (st->through) {
		write_table(st, &table);
	} else {
		if (fwrite(table.p, 1, table.len, stdout) != table.len || fflush(stdout) != 0)
			die_write("standard output");
		writer_free(&f.out);
		stream_in_free(&f.in);
	}
	passtable_free(&passes);
	json_free(&doc);
	buf_release(&table);
	return EXIT_OK;
}

/* One line on standard error once the window is written, as the other
 * stages end: what was kept and what it weighs, what was left out. */
static void summary(const struct window_cut *c)
{
	struct buf line = BUF_INIT;

	if (window_cut_summary(c, &line) != 0)
		die_nomem();
	fprintf(stderr, "%s: %s\n", diag_progname(), line.p);
	buf_release(&line);
}

int main(int argc, char **argv)
{
	struct state st;
	struct window_cut cut;
	struct window_rec rec;
	struct filter f;
	struct writer spill, recw;
	struct window_recs *recs;
	const struct window_rec *r;
	struct buf sha = BUF_INIT, table = BUF_INIT;
	char *source_name = NULL;
	const char *line;
	size_t len;
	int kind;
	struct source src = { 0, 0 };
	struct out out;
	struct stat sb;
	off_t at;

	diag_init(argv[0]);
	memset(&st, 0, sizeof st);
	st.spec = (struct buf)BUF_INIT;
	parse_options(argc, argv, &st);
	/* every option value checked before the stream is read */
	window_cut_init(&cut);
	check(&cut, window_spec_check(&cut, &st.w));
	if (st.table_path != NULL)
		open_table(&st);
	if (st.through || st.w.list_passes)
		return table_only(&st);
	/* standard input read back in place when it is a regular file */
	if (fstat(0, &sb) == 0 && S_ISREG(sb.st_mode) && (at = lseek(0, 0, SEEK_CUR)) >= 0)
		src.base = (uint64_t)at;
	else
		src.fd = xopen_spill("tr-window");
	recs = xmalloc(sizeof *recs);
	recs->fd = xopen_spill("tr-window");
	if ((src.fd != 0 && writer_init(&spill, src.fd) != 0) || writer_init(&recw, recs->fd) != 0)
		die_nomem();

	/* the first look: spill each line and its record */
	if (filter_open(&f) != 0)
		die_nomem();
	while ((kind = filter_next(&f, &line, &len)) > LINE_END) {
		check(&cut, window_cut_line(&cut, kind, line, len, &rec, &source_name, &sha));
		if ((src.fd != 0 && writer_put(&spill, line, len + 1) != 0) ||
		    writer_put(&recw, &rec, sizeof rec) != 0)
			die_errno(EXIT_TROUBLE, "temporary file");
	}
	if (kind == LINE_ERROR)
		die_stream(f.write_errno, f.in.err, f.in.read_errno);
	if ((src.fd != 0 && writer_flush(&spill) != 0) || writer_flush(&recw) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (src.fd != 0)
		writer_free(&spill);
	writer_free(&recw);
	reader_trim(&f.in.r);

	check(&cut, window_cut_choose(&cut, &st.w));
	/* the second look: measure */
	if (window_recs_rewind(recs) != 0)
		die_errno(EXIT_TROUBLE, "temporary file");
	while ((r = records_next(recs)) != NULL)
		check(&cut, window_cut_measure(&cut, r));
	if (window_cut_pass_table(&cut, &table) != 0)
		die_nomem();
	check(&cut, window_cut_check(&cut, st.spec.p, st.have_max, st.max_bytes));
	if (st.table_path != NULL)
		write_table(&st, &table);
	out.st = &st, out.c = &cut, out.f = &f, out.src = src;
	out.source_name = source_name, out.sha = &sha;
	out.cap = (size_t)1 << 20, out.buf = xmalloc(out.cap);
	switch (window_cut_write(&cut, recs, copy_run, put_report, &out)) {
	case 0: break;
	case -2: die(EXIT_TROUBLE, "%s", cut.err.p);
	default: die_errno(EXIT_TROUBLE, "temporary file");
	}
	free(out.buf);
	if (filter_close(&f) != 0)
		die_stream(f.write_errno, f.in.err, f.in.read_errno);
	if (!st.quiet)
		summary(&cut);
	if (src.fd != 0)
		close(src.fd);
	close(recs->fd);
	free(recs);
	free(source_name);
	window_cut_free(&cut);
	buf_release(&sha);
	buf_release(&table);
	buf_release(&st.spec);
	return EXIT_OK;
}
