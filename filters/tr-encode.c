/* tr-encode: the trace-layers event stream back into a Chrome JSON trace, and
 * the report records of earlier stages into their report files.  Nothing is
 * written in place until the tail record arrived.  See tr-encode(1). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "encode.h"
#include "event.h"
#include "gz.h"
#include "gzasync.h"
#include "io.h"
#include "lifeline.h"
#include "opt.h"
#include "outfile.h"
#include "passtable.h"
#include "reportfiles.h"
#include "stream.h"
#include "json.h"
#include "trstream.h"
#include "writer.h"

static const char usage_text[] =
	"usage: tr-encode [-o OUTPUT] [--force] [--level N] [--report-base PATH]\n"
	"                 [--compact-report] [--pass-table FILE] [--lifeline FD]...\n"
	"Encode the trace-layers event stream (tr-stream(5)) on standard input into\n"
	"a Chrome JSON trace, gzip-compressed when OUTPUT ends in .gz.\n"
	"\n"
	"  -o, --output OUTPUT  the trace to write; - for standard output (default).\n"
	"                       An existing file is never replaced, unless --force.\n"
	"  -f, --force          replace an existing OUTPUT and its reports, by a rename\n"
	"                       once the whole run has succeeded (never the input)\n"
	"  --level N            gzip level 1-9 for a .gz OUTPUT (default 1, the fastest)\n"
	"  --report-base PATH   report files are PATH.SUFFIX (default: OUTPUT)\n"
	"  --compact-report     write reports on one line (default: indented by 2)\n"
	"  --pass-table FILE    also write each pass's time span and bytes to FILE,\n"
	"                       as tr-window --pass-table would (empty without guides)\n"
	"  --lifeline FD        place nothing once the pipe read on descriptor FD hangs\n"
	"                       up (the command that holds its write end has ended)\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected, 2 usage or system trouble.\n";

/* Where the trace bytes go: a buffered writer, through a gzip stream for a
 * .gz OUTPUT, deflated by a thread of its own (gzasync.h): checking and
 * laying out the events, and deflating them, take about the same time, and
 * the stages before tr-encode are done while most of it is still to come.
 * Plain JSON is written by the thread that reads the stream: on the bench's
 * VM a write(2) into the page cache from another CPU cost five times the
 * system time (the pages the pipe's reads free are reused on their CPU). */
struct sink {
	struct writer w;
	struct gzasync gz;
	int gzip;
	const char *name;
};

/* die's hook: a compressor still running stops before the process exits
 * (exit tears down what it may be using). */
static struct sink *running_sink;

static void stop_compressor(void)
{
	if (running_sink != NULL)
		gzasync_stop(&running_sink->gz);
}

static int put_compressed(void *ctx, const void *data, size_t n)
{
	return writer_put(ctx, data, n);
}

static void sink_open(struct sink *s, int fd, int gzip, int level)
{
	if (writer_init(&s->w, fd) != 0)
		die_nomem();
	s->gzip = gzip;
	if (!gzip)
		return;
	if (gzasync_start(&s->gz, level, put_compressed, &s->w) != 0) {
		if (errno == ENOMEM)
			die_nomem();
		die_errno(EXIT_TROUBLE, "starting the compressor thread");
	}
	running_sink = s;
	diag_on_exit(stop_compressor);
}

static void sink_check(struct sink *s, int rc)
{
	if (rc == GZ_WRITE)
		die_write(s->name);
	if (rc == GZ_NOMEM)
		die_nomem();
	if (rc != GZ_OK)
		die(EXIT_TROUBLE, "%s: gzip: %s", s->name, gzasync_error(&s->gz));
}

static void sink_put(struct sink *s, const void *data, size_t n)
{
	if (s->gzip)
		sink_check(s, gzasync_write(&s->gz, data, n));
	else if (writer_put(&s->w, data, n) != 0)
		die_write(s->name);
}

static void sink_finish(struct sink *s)
{
	if (s->gzip)
		sink_check(s, gzasync_finish(&s->gz));
	if (writer_flush(&s->w) != 0)
		die_write(s->name);
}

static void sink_free(struct sink *s)
{
	if (s->gzip)
		gzasync_free(&s->gz);
	running_sink = NULL;
	writer_free(&s->w);
}

/* A report failure: the module's message, or out of memory. */
static void check_reports(int rc, const struct buf *msg)
{
	if (rc == REPORTFILES_NOMEM)
		die_nomem();
	if (rc != REPORTFILES_OK)
		die(rc, "%s", msg->p);
}

/* --pass-table: what passtable.h says of the events, into a file placed
 * with the output (or a /dev/ descriptor, written in place).  The check of
 * each event line finds the members the table needs on its way. */
struct table {
	const char *path;
	struct outfile file;
	struct passtable passes;
	struct buf text;
};

static void table_open(struct table *t)
{
	if (outfile_open_side(&t->file, t->path) != 0) {
		if (errno == EEXIST)
			die(EXIT_TROUBLE, "%s: exists; refusing to overwrite it", t->path);
		die_errno(EXIT_TROUBLE, "%s", t->path);
	}
	if (passtable_init(&t->passes, xopen_spill("tr-encode")) != 0)
		die_nomem();
}

static void table_check(struct table *t, int rc)
{
	if (rc == PASSTABLE_NOMEM)
		die_nomem();
	if (rc == PASSTABLE_SPILL)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (rc != PASSTABLE_OK)
		die(rc == PASSTABLE_REFUSED ? EXIT_INPUT : EXIT_TROUBLE, "%s",
		    passtable_error(&t->passes));
}

static void table_event(struct table *t, const struct encoder *enc, const char *line, size_t len)
{
	table_check(t, enc->found_ok ? passtable_event_found(&t->passes, line, len, enc->found) :
			       passtable_event(&t->passes, line, len));
}

/* The table's bytes into its file; a /dev/ descriptor is done with then,
 * a file waits to be placed with the output. */
static void table_write(struct table *t)
{
	table_check(t, passtable_finish(&t->passes, 0, &t->text));
	if (io_write_all(t->file.fd, t->text.p, t->text.len) != 0 ||
	    (t->file.path == NULL && outfile_commit(&t->file) != 0))
		die_errno(EXIT_TROUBLE, "%s", t->path);
}

/* --lifeline: the read ends of pipes whose writers are the commands that
 * run this pipeline (lifeline.h).  Checked at the start and around the
 * placing of the files, never per event. */
#define MAX_LIFELINES 16
struct lifelines {
	int fd[MAX_LIFELINES];
	size_t n;
};

static int lifelines_held(void *ctx)
{
	const struct lifelines *l = ctx;
	return !lifeline_lost(l->fd, l->n);
}

static void die_lifeline(const char *output, const char *what)
{
	if (strcmp(output, "-") == 0)
		die(EXIT_TROUBLE, "the command that runs this pipeline has ended "
		    "(its --lifeline hung up); %s", what);
	die(EXIT_TROUBLE, "%s: the command that runs this pipeline has ended "
	    "(its --lifeline hung up); nothing was written", output);
}

/* --force: the trace the stream was decoded from (its head names it) is
 * never the output it replaces. */
static void refuse_source(const char *output, const char *line, size_t len)
{
	struct jdoc d = JDOC_INIT;
	struct trstream_head_in head;
	struct stat st;
	char err[100];

	if (trstream_head_read(&d, line, len, &head, err, sizeof err) == 0) {
		if (head.source != NULL && stat(head.source, &st) == 0 &&
		    outfile_same_file(output, &st))
			die(EXIT_TROUBLE, "%s: the output is the source trace %s; --force never "
			    "replaces the file it reads", output, head.source);
		free(head.source);
	}
	json_free(&d);
}

/* The encoder's output: sink_put dies on a write error itself. */
static int put_sink(void *ctx, const void *data, size_t n)
{
	sink_put(ctx, data, n);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "level", required_argument, NULL, 'l' },
		{ "report-base", required_argument, NULL, 'r' },
		{ "compact-report", no_argument, NULL, 'c' },
		{ "pass-table", required_argument, NULL, 'T' },
		{ "lifeline", required_argument, NULL, 'L' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = "-", *report_base = NULL, *table_path = NULL;
	int64_t level = 1, lfd;
	struct lifelines lines = { { 0 }, 0 };
	struct outfile file = { NULL, NULL, -1 };
	struct sink out;
	struct stream_in in;
	struct reportfiles reports;
	struct buf msg = BUF_INIT;
	unsigned report_indent = 2;
	struct encoder enc;
	struct table table;
	int ch, rc, fd = STDOUT_FILENO, force = 0;
	struct stat in_st;
	const char *line;
	size_t len, i;
	struct opt_program prog = { NULL, ":o:fh", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'o': output = optarg; break;
		case 'l':
			if (opt_i64(&prog, stderr, "--level", optarg, 1, 9, &level) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'r': report_base = optarg; break;
		case 'c': report_indent = 0; break;
		case 'f': force = 1; break;
		case 'T': table_path = optarg; break;
		case 'L':
			if (opt_i64(&prog, stderr, "--lifeline", optarg, 3, INT_MAX, &lfd) != 0)
				exit(EXIT_TROUBLE);
			if (lines.n == MAX_LIFELINES)
				exit(opt_bad_value(&prog, stderr, "--lifeline", optarg,
						   "at most 16 lifelines"));
			if (lifeline_check((int)lfd) != 0)
				exit(opt_bad_value(&prog, stderr, "--lifeline", optarg,
						   errno == EBADF ? "not an open descriptor" :
						   "not the read end of a pipe"));
			lines.fd[lines.n++] = (int)lfd;
			break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (report_base == NULL && strcmp(output, "-") != 0)
		report_base = output;
	/* already gone: not even a temporary file */
	if (lifeline_lost(lines.fd, lines.n))
		die_lifeline(output, "nothing was written");
	reportfiles_init(&reports, report_base, report_indent);
	memset(&table, 0, sizeof table);
	table.path = table_path;
	table.file.fd = -1;
	table.text = (struct buf)BUF_INIT;

	memset(&out, 0, sizeof out);
	out.name = strcmp(output, "-") == 0 ? "standard output" : output;
	diag_on_exit(outfile_abort_all);
	outfile_catch_signals();
	/* the table first: a /dev/fd/N it names is one the caller gave, not
	 * the output's own temporary file */
	if (table.path != NULL)
		table_open(&table);
	if (strcmp(output, "-") != 0) {
		/* --force replaces a file, never the one being read */
		if (force && fstat(STDIN_FILENO, &in_st) == 0 && S_ISREG(in_st.st_mode) &&
		    outfile_same_file(output, &in_st))
			die(EXIT_TROUBLE, "%s: the output is the input; --force never replaces "
			    "the file it reads", output);
		outfile_set_replace(force);
		if (outfile_open(&file, output) != 0) {
			if (errno == EEXIST)
				die(EXIT_TROUBLE, "%s: output exists; refusing to overwrite it", output);
			die_errno(EXIT_TROUBLE, "%s", output);
		}
		fd = file.fd;
	}
	len = strlen(output);
	sink_open(&out, fd, len > 3 && strcmp(output + len - 3, ".gz") == 0, (int)level);
	if (stream_in_init(&in, STDIN_FILENO, STREAM_DEFAULT_MAX_LINE) != 0 ||
	    encode_init(&enc, put_sink, &out) != 0)
		die_nomem();
	if (table.path != NULL)
		enc.want = &table.passes.want;

	while ((rc = stream_next(&in, &line, &len)) > 0) {
		int erc = encode_line(&enc, rc, line, len, in.r.lineno);
		if (rc == LINE_HEAD && force && file.path != NULL)
			refuse_source(output, line, len);
		if (erc == ENCODE_INPUT)
			die(EXIT_INPUT, "stdin: %s; %s", enc.err,
			    file.path ? "no output written" : "output incomplete");
		if (erc == ENCODE_NOMEM)
			die_nomem();
		if (rc == LINE_EVENT && table.path != NULL)
			table_event(&table, &enc, line, len);
		if (erc != ENCODE_CONTROL)
			continue;
		/* refuse at once, before the rest of the trace reaches
		 * standard output complete-looking */
		if (stream_is_kind(line, len, "report") && report_base == NULL)
			die(EXIT_TROUBLE, "the stream carries reports: give --report-base "
			    "when writing to standard output");
		/* the record without whitespace: collect_report walks it */
		if (stream_is_kind(line, len, "report"))
			check_reports(reportfiles_collect(&reports, enc.text.p, enc.text.len,
							  in.r.lineno, &msg), &msg);
		/* other kinds are for stages that were not in the pipeline */
	}
	/* after an earlier stage's message, nothing to add */
	if (rc == LINE_ERROR && in.upstream_failed)
		die_quietly(EXIT_INPUT);
	if (rc == LINE_ERROR)
		die(in.read_errno ? EXIT_TROUBLE : EXIT_INPUT, "stdin: %s; %s", in.err,
		    file.path ? "no output written" : "output incomplete");

	sink_finish(&out);
	check_reports(reportfiles_finish(&reports, &msg), &msg);
	if (table.path != NULL)
		table_write(&table);
	/* Everything is written: put the files in place, the trace first, as
	 * one set: a failure or an interrupt on the way takes back what was
	 * placed (all or nothing). */
	{
		struct outfile **set = xmalloc((reports.n + 2) * sizeof *set);
		char **names = xmalloc((reports.n + 2) * sizeof *names);
		size_t n = 0, failed;
		if (file.path != NULL)
			set[n++] = &file;
		for (i = 0; i < reports.n; i++)
			set[n++] = &reports.list[i].file;
		if (table.file.path != NULL)
			set[n++] = &table.file;
		for (i = 0; i < n; i++)
			if ((names[i] = strdup(set[i]->path)) == NULL)
				die_nomem();
		/* placed only while the command that runs the pipeline is there
		 * to verify the files and say what became of them: a set it left
		 * behind (killed, even by SIGKILL) is not placed, or taken back */
		if (outfile_commit_all_while(set, n, &failed, n > 0 && lines.n > 0 ? lifelines_held : NULL,
					     &lines) != 0) {
			if (failed == n && errno == ECANCELED)
				die_lifeline(output, "the reports were not written");
			if (failed == n)
				die(EXIT_TROUBLE, "interrupted while placing the output; nothing was written");
			die_errno(EXIT_TROUBLE, "%s", names[failed]);
		}
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
		free(set);
	}
	if (file.path == NULL && close(STDOUT_FILENO) != 0)
		die_write("standard output");
	reportfiles_free(&reports);
	buf_release(&msg);
	encode_free(&enc);
	if (table.path != NULL)
		passtable_free(&table.passes);
	buf_release(&table.text);
	stream_in_free(&in);
	sink_free(&out);
	return EXIT_OK;
}
