/* tr-ranks: compare the layer reports of the ranks of one job: a table of
 * anchor-to-anchor intervals, layers by ranks, with per-rank totals and the
 * stragglers, as text, TSV or JSON, and optionally an SVG heat map.  See
 * tr-ranks(1). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gz/gz.h"
#include "core/buf.h"
#include "core/diag.h"
#include "core/io.h"
#include "core/opt.h"
#include "core/outfile.h"
#include "ranks/ranktab.h"

/* The text table's width without --wide: a terminal's. */
#define TEXT_COLUMNS 100

/* A report is read whole; json.c's token offsets are ints. */
#define MAX_REPORT_BYTES ((size_t)1 << 30)

static const char usage_text[] =
	"usage: tr-ranks [--pass K] [--threshold PCT] [--tsv | --json] [--wide]\n"
	"                [--svg FILE [-f]] REPORT.layers.json...\n"
	"Compare the layer reports of the ranks of one job: one row per layer, one\n"
	"column per report (rank), each cell the anchor-to-anchor interval in\n"
	"microseconds (the median over the passes), per-rank totals and the\n"
	"stragglers.  These are anchor-to-anchor intervals, not layer latencies.\n"
	"The columns follow the rank each report records, else the numbers in the\n"
	"names (2 before 10).\n"
	"\n"
	"  --pass K         the intervals of pass K (0-based) instead of the median\n"
	"  --threshold PCT  a straggler's interval exceeds the row's median by more\n"
	"                   than PCT percent (0 to 1000; default 10)\n"
	"  --tsv            tab-separated values instead of the text table\n"
	"  --json           JSON instead of the text table\n"
	"  --wide           every rank in the text table (default: within 100\n"
	"                   columns, the stragglers first)\n"
	"  --svg FILE       also write a heat map of the table to FILE (must not exist)\n"
	"  -f, --force      replace an existing --svg FILE once it is written whole\n"
	"  --help           this text\n"
	"  --version        the version\n"
	"\n"
	"Exit status: 0 success, 1 a report rejected (malformed, or its anchor,\n"
	"layer count or phase differs from the others'), 2 usage or system trouble.\n";

struct options {
	int64_t pass;                /* -1: the median over the passes */
	unsigned threshold;
	int tsv, json, wide;
	const char *svg;
};

static void read_whole(struct ranktab_report *r)
{
	struct buf b = BUF_INIT;
	char chunk[1 << 16];
	int fd = open(r->path, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		die_errno(EXIT_TROUBLE, "%s", r->path);
	while ((n = io_read_some(fd, chunk, sizeof chunk)) > 0) {
		if (b.len + (size_t)n > MAX_REPORT_BYTES)
			die(EXIT_INPUT, "%s: larger than 1 GiB; not a layers report", r->path);
		if (buf_add(&b, chunk, (size_t)n) != 0)
			die_nomem();
	}
	if (n < 0)
		die_errno(EXIT_TROUBLE, "%s", r->path);
	close(fd);
	r->text = b.p;
	r->len = b.len;
}

/* A refusal of ranktab, or its lack of memory. */
static void check(int rc, const struct buf *msg)
{
	if (rc == 0)
		return;
	if (errno == ENOMEM)
		die_nomem();
	die(EXIT_INPUT, "%s", msg->p);
}

static void write_svg(struct outfile *out, const struct ranktab *t,
	const struct ranktab_report *rep, const struct options *o)
{
	struct ranktab_view view = { o->pass, o->threshold, 0 };
	struct buf b = BUF_INIT;

	if (ranktab_render(&b, RANKTAB_SVG, t, rep, &view) != 0)
		die_nomem();
	if (io_write_all(out->fd, b.p, b.len) != 0)
		die_errno(EXIT_TROUBLE, "%s", o->svg);
	if (outfile_commit(out) != 0)
		die_errno(EXIT_TROUBLE, "%s", o->svg);
	buf_release(&b);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pass", required_argument, NULL, 'p' },
		{ "threshold", required_argument, NULL, 't' },
		{ "tsv", no_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "wide", no_argument, NULL, 'w' },
		{ "svg", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct options o = { -1, 10, 0, 0, 0, NULL };
	struct outfile svg = { NULL, NULL, -1 };
	struct ranktab_report *rep;
	struct ranktab_view view;
	struct buf msg = BUF_INIT;
	struct ranktab t;
	struct buf out = BUF_INIT;
	int64_t v;
	size_t n, i;
	int ch, force = 0;
	struct opt_program prog = { NULL, ":fh", longopts, usage_text };

	diag_init(argv[0]);
	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'p':
			if (opt_i64(&prog, stderr, "--pass", optarg, 0, 100000000, &o.pass) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 't':
			if (opt_i64(&prog, stderr, "--threshold", optarg, 0, RANKTAB_MAX_PERCENT,
				    &v) != 0)
				exit(EXIT_TROUBLE);
			o.threshold = (unsigned)v;
			break;
		case 'T': o.tsv = 1; break;
		case 'j': o.json = 1; break;
		case 'w': o.wide = 1; break;
		case 's': o.svg = optarg; break;
		case 'f': force = 1; break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit(gz_backend());
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (o.tsv && o.json)
		die(EXIT_TROUBLE, "--tsv and --json exclude each other");
	if (optind == argc)
		exit(opt_usage_error(&prog, stderr, "no report given"));
	if (o.svg != NULL) {
		if (strcmp(o.svg, "-") == 0)
			die(EXIT_TROUBLE, "--svg -: the heat map goes to a file, the table to "
			    "standard output");
		outfile_catch_signals();
		diag_on_exit(outfile_abort_all);
		/* --force never replaces a report it reads */
		for (i = (size_t)optind; force && i < (size_t)argc; i++) {
			struct stat st;
			if (stat(argv[i], &st) == 0 && outfile_same_file(o.svg, &st))
				die(EXIT_TROUBLE, "--svg %s: the heat map would be written over "
				    "the report %s", o.svg, argv[i]);
		}
		outfile_set_replace(force);
		if (outfile_open_side(&svg, o.svg) != 0)
			die_errno(EXIT_TROUBLE, "%s", o.svg);
	}
	n = (size_t)(argc - optind);
	rep = calloc(n, sizeof *rep);
	if (rep == NULL)
		die_nomem();
	for (i = 0; i < n; i++) {
		ranktab_report_init(&rep[i], argv[optind + (int)i]);
		read_whole(&rep[i]);
		check(ranktab_report_parse(&rep[i], rep[i].text, rep[i].len, &msg), &msg);
	}
	check(ranktab_agree(rep, n, diag_progname(), &msg), &msg);
	if (o.pass >= rep[0].passes)
		die(EXIT_INPUT, "--pass %lld: the reports have %lld pass%s (0 to %lld)",
		    (long long)o.pass, (long long)rep[0].passes, rep[0].passes == 1 ? "" : "es",
		    (long long)rep[0].passes - 1);
	if (ranktab_labels(rep, n) != 0)
		die_nomem();
	if (ranktab_order(rep, n) < 0)
		die_nomem();
	if (ranktab_init(&t, (size_t)rep[0].num_layers, n) != 0)
		die_nomem();
	if (ranktab_fill(&t, rep, o.pass) != 0) {
		if (errno == ENOMEM)
			die_nomem();
		die(EXIT_INPUT, "a rank's total interval exceeds 10^15 ns");
	}
	view.pass = o.pass;
	view.threshold = o.threshold;
	view.width = o.wide ? 0 : TEXT_COLUMNS;
	if (ranktab_render(&out, o.json ? RANKTAB_JSON : o.tsv ? RANKTAB_TSV : RANKTAB_TEXT, &t,
			   rep, &view) != 0)
		die_nomem();
	if (o.svg != NULL)
		write_svg(&svg, &t, rep, &o);
	if (io_write_all(STDOUT_FILENO, out.p, out.len) != 0)
		die_write("standard output");
	buf_release(&out);
	ranktab_free(&t);
	for (i = 0; i < n; i++)
		ranktab_report_free(&rep[i]);
	buf_release(&msg);
	free(rep);
	return EXIT_OK;
}
