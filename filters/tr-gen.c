/*
 * tr-gen: write a deterministic, Kineto-shaped Chrome JSON trace of a
 * transformer's forward passes (common/gen), or a real trace grown N times
 * over (common/genrepeat), for the demo, the tests and the benchmarks.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "gen.h"
#include "genrepeat.h"
#include "io.h"
#include "opt.h"
#include "progress.h"
#include "outfile.h"

/* Limits of the options. */
static const uint64_t MAX_LAYERS = 100000, MAX_PASSES = 1000000, MAX_DRAFT_PASSES = 1000,
	MAX_STREAMS = 10000, MAX_CONCURRENCY = 64, MAX_DEVICES = 64,
	MAX_ORIGIN_US = 4000000000000000ULL, MAX_TARGET_BYTES = 1ULL << 40, MAX_SCALE = 10000000,
	MAX_RANK = 1000000, MAX_SLOWDOWN = 10000, MAX_REPEAT = 1000000;

struct options {
	struct gen_config gen;
	int streams_given;
	uint64_t repeat;          /* --repeat N: 0 when not given */
	const char *repeat_file;
	const char *output;       /* NULL: stdout */
	int progress_mode;        /* progress.h: auto, --progress, --quiet */
};

static const char usage_text[] =
	"usage: tr-gen [--array] [--compact] [--concurrency C] [--devices G]\n"
	"              [--draft-layers M] [--draft-passes D] [--layers N]\n"
	"              [-o file [--force]] [--origin-us U] [--passes P] [--seed N]\n"
	"              [--rocm] [--streams S] [--target-bytes B[K|M|G]]\n"
	"              [--ts-format kineto|int] [--rank K]\n"
	"              [--slow-layer L --slowdown PCT] [--shape dense|moe|kineto]\n"
	"              [--layout kineto|kineto-lines|compact|indent2] [--experts E]\n"
	"              [--disorder] [--args-first]\n"
	"       tr-gen --scale-devices N | --scale-pids N [--rocm] [--compact]\n"
	"              [--array] [-o file] [--origin-us U] [--ts-format kineto|int]\n"
	"       tr-gen --repeat N [-o file [--force]] FILE\n"
	"       tr-gen --help | --version\n"
	"Write the PyTorch profiler (Kineto) trace of a simulated transformer\n"
	"inference run; the same options and seed always give the same bytes.\n"
	"\n"
	"  --args-first       runtime events with their args before ts and dur\n"
	"  --array            the JSON Array Format, not Kineto's object\n"
	"  --compact          one event per line, not indented (--layout compact)\n"
	"  --concurrency C    GPU activities overlapping at most, 1-64 (default 1)\n"
	"  --devices G        GPUs, 1-64 (default 1)\n"
	"  --disorder         events out of time order: CPU among GPU events, each\n"
	"                     runtime call before its op, GPU ones shuffled\n"
	"  --draft-layers M   layers of a draft pass (default 2)\n"
	"  --draft-passes D   draft passes before each target pass (default 0)\n"
	"  --experts E        a mixture-of-experts MLP: E expert kernels at once, 2-C\n"
	"  --layers N         layers of a target pass (default 4)\n"
	"  --layout L         kineto (default), kineto-lines (args over several lines,\n"
	"                     as torch 2.0 writes them), compact, indent2 (one event\n"
	"                     per line, indented by two spaces)\n"
	"  -o, --output FILE  write FILE (never replaced), not standard output\n"
	"  -f, --force        replace an existing FILE once it is written whole\n"
	"  --origin-us U      the first timestamp, in microseconds\n"
	"  --passes P         target passes (default 2)\n"
	"  --progress         the progress line on standard error (the counting run of\n"
	"                     --target-bytes, then the writing) even when that is\n"
	"                     not a terminal\n"
	"  -q, --quiet        no progress line, even on a terminal\n"
	"  --rank K           the trace of rank K of a distributed job\n"
	"  --repeat N FILE    FILE's events N times, each copy later, ids offset\n"
	"  --rocm             what a ROCm (HIP) build of the same run shows\n"
	"  --seed N           the seed of the timing jitter (default 1)\n"
	"  --shape S          make bench's shapes, 900M each (later options override):\n"
	"                     dense: 40 layers, 300 streams, 3 overlapping, compact;\n"
	"                     moe: dense with 6 overlapping, 6 experts, --disorder,\n"
	"                     --args-first, indent2; kineto: 40 layers, 2 streams,\n"
	"                     2 overlapping, kineto-lines\n"
	"  --slow-layer L     with --slowdown PCT: layer L's attention lasts PCT\n"
	"                     percent longer in every target pass\n"
	"  --streams S        GPU streams per device (default 1, or C if larger)\n"
	"  --target-bytes B   add passes until B bytes are written (K, M, G)\n"
	"  --ts-format F      kineto (microseconds, 3 decimals; default) or int\n"
	"  --scale-devices N  a scaling case: one pid with N devices, one kernel each\n"
	"  --scale-pids N     a scaling case: N pids, one kernel each\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 FILE refused, 2 usage or system trouble.\n";

enum {
	OPT_ARRAY = 256, OPT_COMPACT, OPT_CONCURRENCY, OPT_DEVICES, OPT_DRAFT_LAYERS,
	OPT_DRAFT_PASSES, OPT_HELP, OPT_LAYERS, OPT_ORIGIN, OPT_PASSES, OPT_SEED,
	OPT_STREAMS, OPT_TARGET, OPT_TS_FORMAT, OPT_VERSION, OPT_ROCM, OPT_SCALE_DEVICES,
	OPT_SCALE_PIDS, OPT_RANK, OPT_SLOW_LAYER, OPT_SLOWDOWN, OPT_SHAPE, OPT_LAYOUT,
	OPT_EXPERTS, OPT_DISORDER, OPT_ARGS_FIRST, OPT_REPEAT, OPT_PROGRESS
};

static const struct option long_options[] = {
	{ "args-first", no_argument, NULL, OPT_ARGS_FIRST },
	{ "array", no_argument, NULL, OPT_ARRAY },
	{ "compact", no_argument, NULL, OPT_COMPACT },
	{ "concurrency", required_argument, NULL, OPT_CONCURRENCY },
	{ "devices", required_argument, NULL, OPT_DEVICES },
	{ "disorder", no_argument, NULL, OPT_DISORDER },
	{ "draft-layers", required_argument, NULL, OPT_DRAFT_LAYERS },
	{ "draft-passes", required_argument, NULL, OPT_DRAFT_PASSES },
	{ "experts", required_argument, NULL, OPT_EXPERTS },
	{ "force", no_argument, NULL, 'f' },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "layers", required_argument, NULL, OPT_LAYERS },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "origin-us", required_argument, NULL, OPT_ORIGIN },
	{ "output", required_argument, NULL, 'o' },
	{ "passes", required_argument, NULL, OPT_PASSES },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "rocm", no_argument, NULL, OPT_ROCM },
	{ "scale-devices", required_argument, NULL, OPT_SCALE_DEVICES },
	{ "scale-pids", required_argument, NULL, OPT_SCALE_PIDS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "shape", required_argument, NULL, OPT_SHAPE },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "slow-layer", required_argument, NULL, OPT_SLOW_LAYER },
	{ "slowdown", required_argument, NULL, OPT_SLOWDOWN },
	{ "streams", required_argument, NULL, OPT_STREAMS },
	{ "target-bytes", required_argument, NULL, OPT_TARGET },
	{ "ts-format", required_argument, NULL, OPT_TS_FORMAT },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/* A count in [min, max]: decimal digits; with suffixes, a byte count as
 * every program reads one (K, M or G, powers of 1024). */
static uint64_t number(const struct opt_program *prog, const char *opt, const char *arg,
	uint64_t min, uint64_t max, int suffixes)
{
	uint64_t v;
	int rc = suffixes ? opt_size(prog, stderr, opt, arg, min, max, &v)
			  : opt_u64(prog, stderr, opt, arg, min, max, &v);

	if (rc != 0)
		exit(EXIT_TROUBLE);
	return v;
}

static int pick(const char *arg, const char *const *names)
{
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	return -1;
}

static void parse_options(int argc, char **argv, struct options *opt)
{
	static const char *const layouts[] = { "kineto", "compact", "kineto-lines", "indent2",
		NULL };
	struct opt_program prog = { NULL, ":o:fhq", long_options, usage_text };
	struct gen_config *g = &opt->gen;
	int ch, i;

	memset(opt, 0, sizeof *opt);
	gen_defaults(g);
	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case OPT_ARGS_FIRST: g->args_first = 1; break;
		case OPT_ARRAY: g->array = 1; break;
		case OPT_COMPACT: g->layout = GEN_COMPACT; break;
		case OPT_CONCURRENCY:
			g->concurrency = (unsigned)number(&prog, "--concurrency", optarg, 1,
				MAX_CONCURRENCY, 0);
			break;
		case OPT_DEVICES:
			g->devices = (unsigned)number(&prog, "--devices", optarg, 1, MAX_DEVICES, 0);
			break;
		case OPT_DISORDER: g->disorder = 1; break;
		case OPT_DRAFT_LAYERS:
			g->draft_layers = number(&prog, "--draft-layers", optarg, 1, MAX_LAYERS, 0);
			break;
		case OPT_DRAFT_PASSES:
			g->draft_passes = number(&prog, "--draft-passes", optarg, 0, MAX_DRAFT_PASSES, 0);
			break;
		case OPT_EXPERTS:
			g->experts = (unsigned)number(&prog, "--experts", optarg, 2, MAX_CONCURRENCY, 0);
			break;
		case 'h':
		case OPT_HELP:
			exit(opt_help(&prog, stdout, stderr));
		case OPT_LAYERS: g->layers = number(&prog, "--layers", optarg, 1, MAX_LAYERS, 0); break;
		case OPT_LAYOUT:
			if ((i = pick(optarg, layouts)) < 0)
				exit(opt_bad_value(&prog, stderr, "--layout", optarg,
					"allowed kineto, kineto-lines, compact, indent2"));
			g->layout = (enum gen_layout)i;
			break;
		case OPT_ORIGIN:
			g->origin_us = number(&prog, "--origin-us", optarg, 0, MAX_ORIGIN_US, 0);
			break;
		case 'o': opt->output = optarg; break;
		case OPT_PASSES: g->passes = number(&prog, "--passes", optarg, 1, MAX_PASSES, 0); break;
		case OPT_REPEAT:
			opt->repeat = number(&prog, "--repeat", optarg, 1, MAX_REPEAT, 0);
			break;
		case OPT_ROCM: g->rocm = 1; break;
		case 'f': outfile_set_replace(1); break;
		case OPT_RANK: g->rank = number(&prog, "--rank", optarg, 0, MAX_RANK, 0); break;
		case OPT_SLOW_LAYER:
			g->slow_layer = (int64_t)number(&prog, "--slow-layer", optarg, 0,
				MAX_LAYERS - 1, 0);
			break;
		case OPT_SLOWDOWN: g->slowdown = number(&prog, "--slowdown", optarg, 1, MAX_SLOWDOWN, 0); break;
		case OPT_SCALE_DEVICES:
			g->scale_devices = number(&prog, "--scale-devices", optarg, 1, MAX_SCALE, 0);
			break;
		case OPT_SCALE_PIDS:
			g->scale_pids = number(&prog, "--scale-pids", optarg, 1, MAX_SCALE, 0);
			break;
		case OPT_SHAPE:
			if (gen_shape(&opt->gen, optarg) != 0)
				exit(opt_bad_value(&prog, stderr, "--shape", optarg,
						   "allowed dense, moe, kineto"));
			opt->streams_given = 1;
			break;
		case OPT_SEED:
			g->seed = number(&prog, "--seed", optarg, 0, UINT64_MAX, 0);
			break;
		case OPT_STREAMS:
			g->streams = (unsigned)number(&prog, "--streams", optarg, 1, MAX_STREAMS, 0);
			opt->streams_given = 1;
			break;
		case OPT_TARGET:
			g->target_bytes = number(&prog, "--target-bytes", optarg, 1,
				MAX_TARGET_BYTES, 1);
			break;
		case OPT_TS_FORMAT:
			if (strcmp(optarg, "kineto") == 0)
				g->ts_int = 0;
			else if (strcmp(optarg, "int") == 0)
				g->ts_int = 1;
			else
				exit(opt_bad_value(&prog, stderr, "--ts-format", optarg,
						   "allowed kineto, int"));
			break;
		case OPT_PROGRESS: opt->progress_mode = PROGRESS_FORCE; break;
		case 'q': opt->progress_mode = PROGRESS_QUIET; break;
		case OPT_VERSION:
			print_version_and_exit();
		default:
			exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (opt->repeat > 0) {
		if (optind == argc)
			die(EXIT_TROUBLE, "--repeat needs a FILE");
		opt->repeat_file = argv[optind++];
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if ((g->slow_layer >= 0) != (g->slowdown > 0))
		die(EXIT_TROUBLE, "--slow-layer and --slowdown go together");
	if (g->scale_devices && g->scale_pids)
		die(EXIT_TROUBLE, "--scale-devices and --scale-pids exclude each other");
	/* Activities of one stream never overlap, so C concurrent ones need at
	 * least C streams. */
	if (!opt->streams_given && g->streams < g->concurrency)
		g->streams = g->concurrency;
	if (g->concurrency > g->streams)
		die(EXIT_TROUBLE, "--concurrency %u exceeds --streams %u", g->concurrency,
			g->streams);
	if (g->experts > g->concurrency)
		die(EXIT_TROUBLE, "--experts %u exceeds --concurrency %u", g->experts,
			g->concurrency);
}

/* ---- output -------------------------------------------------------- */

/* The -o file: written beside its destination and put in place only when
 * complete (common/outfile), so that a failure or a signal leaves nothing. */
static struct outfile output_file = { NULL, NULL, -1 };

static _Noreturn void output_failed(const char *name)
{
	if (errno == EPIPE) {
		/* The reader went away: end as quietly as a filter killed by SIGPIPE. */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (errno == ENOMEM)
		die_nomem();
	die_errno(EXIT_TROUBLE, "write %s", name);
}

/* The writer of standard output or of the -o file (common/io, as every
 * program writes); the name for messages. */
static const char *open_output(const char *path, struct writer *w)
{
	int fd = STDOUT_FILENO;

	if (path != NULL && strcmp(path, "-") != 0) {
		/* Never overwrite (a generated trace is often a big file),
		 * unless --force: then one rename once it is whole. */
		diag_on_exit(outfile_abort_all);
		outfile_catch_signals();
		if (outfile_open(&output_file, path) != 0)
			die_errno(EXIT_TROUBLE, "%s", path);
		fd = output_file.fd;
	}
	if (writer_init(w, fd) != 0)
		die_nomem();
	return fd != STDOUT_FILENO ? path : "standard output";
}

static void close_output(struct writer *w, const char *name)
{
	if (writer_flush(w) != 0)
		output_failed(name);
	if (output_file.path != NULL) {
		/* outfile_commit closes the descriptor */
		if (outfile_commit(&output_file) != 0)
			die_errno(EXIT_TROUBLE, "%s", name);
	} else if (close(w->fd) != 0) {
		output_failed(name);
	}
	writer_free(w);
}

static void repeat(const struct options *opt, struct writer *w, const char *name)
{
	struct buf text = BUF_INIT;
	struct genrepeat_error err;
	const char *why;
	int rc = genrepeat_load(opt->repeat_file, &text, &why);

	if (rc != GENREPEAT_OK)
		die(rc == GENREPEAT_INPUT ? EXIT_INPUT : EXIT_TROUBLE, "%s: %s",
			opt->repeat_file, why);
	rc = genrepeat_write(text.p, text.len, opt->repeat, w, &err);
	if (rc == GENREPEAT_WRITE)
		output_failed(name);
	if (rc == GENREPEAT_INPUT)
		die(EXIT_INPUT, "%s: byte %llu: %s", opt->repeat_file,
			(unsigned long long)err.offset, err.msg);
	if (rc == GENREPEAT_RANGE)
		die(EXIT_INPUT, "%s: a timestamp or id of copy %llu would not fit 64 bits",
			opt->repeat_file, (unsigned long long)opt->repeat);
	buf_release(&text);
}

/* The progress line: the bytes of --target-bytes counted, then written. */
static struct progress meter;

int main(int argc, char **argv)
{
	struct options opt;
	struct writer w;
	const char *name;

	diag_init(argv[0]);
	signal(SIGPIPE, SIG_DFL);
	parse_options(argc, argv, &opt);
	/* The output first: an existing one is refused before a counting run
	 * over the whole --target-bytes. */
	name = open_output(opt.output, &w);
	progress_start(&meter, opt.progress_mode, STDERR_FILENO, "generating");
	opt.gen.meter = &meter;
	if (opt.repeat > 0)
		repeat(&opt, &w, name);
	else if (gen_write(&opt.gen, &w) != 0)
		output_failed(name);
	(void)progress_end(&meter);
	close_output(&w, name);
	return EXIT_OK;
}
