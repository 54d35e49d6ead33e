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

#include "gz/gz.h"
#include "core/buf.h"
#include "core/diag.h"
#include "stream/encode.h"
#include "gz/encsink.h"
#include "json/event.h"
#include "core/io.h"
#include "core/lifeline.h"
#include "core/opt.h"
#include "core/outfile.h"
#include "window/passfile.h"
#include "perfetto/pftrace.h"
#include "stream/reportfiles.h"
#include "stream/stream.h"
#include "json/json.h"
#include "stream/trstream.h"
#include "core/writer.h"

static const char usage_text[] =
	"usage: tr-encode [-o OUTPUT] [--format FMT] [--force] [--level N]\n"
	"                 [--report-base PATH] [--compact-report] [--pass-table FILE]\n"
	"                 [--lifeline FD]...\n"
	"Encode the trace-layers event stream (tr-stream(5)) on standard input into\n"
	"a Chrome JSON or Perfetto trace, gzip-compressed when OUTPUT ends in .gz.\n"
	"\n"
	"  -o, --output OUTPUT  the trace to write; - for standard output (default).\n"
	"                       An existing file is never replaced, unless --force.\n"
	"  --format FMT         json (Chrome JSON) or perfetto (Perfetto's protobuf\n"
	"                       trace); default: perfetto for an OUTPUT ending in\n"
	"                       .pftrace or .pftrace.gz, else json\n"
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

/* Where the trace bytes go (encsink.h), and for a Perfetto trace the
 * writer that turns each event line into packets (pftrace.h). */
struct sink {
	struct encsink s;
	struct pftrace pf;
	int perfetto;
	const char *name;
};

/* die's hook: a compressor still running stops before the process exits
 * (exit tears down what it may be using). */
static struct sink *running_sink;

static void stop_compressor(void)
{
	if (running_sink != NULL)
		encsink_stop(&running_sink->s);
}

static void sink_check(struct sink *s, int rc)
{
	if (rc == ENCSINK_WRITE)
		die_write(s->name);
	if (rc == ENCSINK_NOMEM)
		die_nomem();
	if (rc == ENCSINK_THREAD)
		die_errno(EXIT_TROUBLE, "starting the compressor thread");
	if (rc != ENCSINK_OK)
		die(EXIT_TROUBLE, "%s: gzip: %s", s->name, encsink_error(&s->s));
}

static void sink_put(struct sink *s, const void *data, size_t n)
{
	sink_check(s, encsink_put(&s->s, data, n));
}

static int put_packets(void *ctx, const void *data, size_t n)
{
	sink_put(ctx, data, n);
	return 0;
}

static void sink_open(struct sink *s, int fd, int gzip, int level)
{
	sink_check(s, encsink_open(&s->s, fd, gzip, level));
	if (gzip) {
		running_sink = s;
		diag_on_exit(stop_compressor);
	}
	if (s->perfetto && pftrace_init(&s->pf, put_packets, s) != PFTRACE_OK)
		die_nomem();
}

/* A Perfetto writer's failure (a write failure died in put_packets). */
static void pf_check(struct sink *s, int rc, const char *output)
{
	if (rc == PFTRACE_NOMEM)
		die_nomem();
	if (rc == PFTRACE_TEMP)
		die(EXIT_TROUBLE, "%s; %s", s->pf.err, output);
	if (rc != PFTRACE_OK)
		die(EXIT_INPUT, "stdin: %s; %s", s->pf.err, output);
}

static void sink_finish(struct sink *s)
{
	if (s->perfetto)
		pf_check(s, pftrace_finish(&s->pf), "no output written");
	sink_check(s, encsink_finish(&s->s));
}

static void sink_free(struct sink *s)
{
	if (s->perfetto)
		pftrace_free(&s->pf);
	encsink_free(&s->s);
	running_sink = NULL;
}

/* A report failure: the module's message, or out of memory. */
static void check_reports(int rc, const struct buf *msg)
{
	if (rc == REPORTFILES_NOMEM)
		die_nomem();
	if (rc != REPORTFILES_OK)
		die(rc, "%s", msg->p);
}

/* --pass-table (passfile.h): a failure of the table's own code. */
static void table_check(struct passfile *t, int rc)
{
	if (rc == PASSTABLE_NOMEM)
		die_nomem();
	if (rc == PASSTABLE_SPILL)
		die_errno(EXIT_TROUBLE, "temporary file");
	if (rc == 1)
		die_errno(EXIT_TROUBLE, "%s", t->path);
	if (rc != PASSTABLE_OK)
		die(rc == PASSTABLE_REFUSED ? EXIT_INPUT : EXIT_TROUBLE, "%s",
		    passtable_error(&t->passes));
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

/* The encoder's output: sink_put dies on a write error itself.  A
 * Perfetto trace takes the event lines whole, from the main loop. */
static int put_sink(void *ctx, const void *data, size_t n)
{
	if (!((struct sink *)ctx)->perfetto)
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
		{ "format", required_argument, NULL, 'F' },
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
	struct passfile table;
	int ch, rc, fd = STDOUT_FILENO, force = 0, format = -1;
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
		case 'F':
			if (strcmp(optarg, "json") != 0 && strcmp(optarg, "perfetto") != 0)
				exit(opt_bad_value(&prog, stderr, "--format", optarg,
						   "allowed json or perfetto"));
			format = strcmp(optarg, "perfetto") == 0;
			break;
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
		case 'V': print_version_and_exit(gz_backend());
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
	memset(&out, 0, sizeof out);
	out.name = strcmp(output, "-") == 0 ? "standard output" : output;
	diag_on_exit(outfile_abort_all);
	outfile_catch_signals();
	/* the table first: a /dev/fd/N it names is one the caller gave, not
	 * the output's own temporary file */
	if (table_path != NULL && (rc = passfile_open(&table, table_path,
						      xopen_spill("tr-encode"))) != 0) {
		if (rc == PASSTABLE_NOMEM)
			die_nomem();
		die(EXIT_TROUBLE, errno == EEXIST ? "%s: exists; refusing to overwrite it" : "%s: %s",
		    table_path, strerror(errno));
	}
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
	out.perfetto = format >= 0 ? format : encsink_format_of(output) == ENCSINK_PERFETTO;
	sink_open(&out, fd, encsink_is_gz(output), (int)level);
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
		if (rc == LINE_EVENT && out.perfetto)
			pf_check(&out, pftrace_event(&out.pf, line, len),
				 file.path ? "no output written" : "output incomplete");
		if (rc == LINE_EVENT && table.path != NULL)
			table_check(&table, passfile_event(&table, &enc, line, len));
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
		table_check(&table, passfile_write(&table));
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
		passfile_free(&table);
	stream_in_free(&in);
	sink_free(&out);
	return EXIT_OK;
}
