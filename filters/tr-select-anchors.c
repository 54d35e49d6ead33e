/* tr-select-anchors: find the once-per-layer anchor kernels, check that the
 * selection is unambiguous and complete, and announce it to tr-guides with
 * control records before the tail.  Every line passes through unchanged.
 * See tr-select-anchors(1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gz/gz.h"
#include "anchors/anchorscan.h"
#include "core/buf.h"
#include "core/diag.h"
#include "stream/filter.h"
#include "core/opt.h"
#include "stream/trstream.h"

static const char usage_text[] =
	"usage: tr-select-anchors --anchor-regex RE --num-layers N --anchor-offset K\n"
	"                         [--passes P] [--first-layer F] [--pid PID]\n"
	"                         [--device D] [--end-anchor-regex RE]\n"
	"                         [--confirm-regex RE [--confirm-cpu]]\n"
	"Select the once-per-layer anchor kernels of a trace-layers stream\n"
	"(tr-stream(5)) and add anchor records before its tail for tr-guides(1).\n"
	"\n"
	"  --anchor-regex RE      kernel name pattern (Python re syntax, searched\n"
	"                         anywhere in the name unless anchored)\n"
	"  --num-layers N         layers per pass (>= 1)\n"
	"  --anchor-offset K      index of the verified first layer's anchor among\n"
	"                         the timestamp-sorted matches (>= 0)\n"
	"  --passes P             passes to label (default 1)\n"
	"  --first-layer F        number of the first labelled layer (default 0)\n"
	"  --pid PID              only kernels of this pid\n"
	"  --device D             only kernels whose args.device is D\n"
	"  --end-anchor-regex RE  terminal kernel that ends each layer's work\n"
	"  --confirm-regex RE     a second landmark: a kernel that must occur exactly\n"
	"                         once between consecutive anchors of a pass\n"
	"  --confirm-cpu          the landmark is a CPU scope (cpu_op, user_annotation,\n"
	"                         python_function) placed by the anchors' launches\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected or selection refused,\n"
	"2 usage or system trouble.\n";

static void parse_options(int argc, char **argv, struct anchorscan_options *o)
{
	static const struct option longopts[] = {
		{ "anchor-regex", required_argument, NULL, 'a' },
		{ "num-layers", required_argument, NULL, 'n' },
		{ "anchor-offset", required_argument, NULL, 'k' },
		{ "passes", required_argument, NULL, 'p' },
		{ "first-layer", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'P' },
		{ "device", required_argument, NULL, 'D' },
		{ "end-anchor-regex", required_argument, NULL, 'e' },
		{ "confirm-regex", required_argument, NULL, 'c' },
		{ "confirm-cpu", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct opt_program prog = { NULL, ":h", longopts, usage_text };
	int ch, have_layers = 0, have_offset = 0;

	prog.name = diag_progname();
	memset(o, 0, sizeof *o);
	o->passes = 1;
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'a': o->anchor_regex = optarg; break;
		case 'e': o->end_regex = optarg; break;
		case 'c': o->confirm_regex = optarg; break;
		case 'C': o->confirm_cpu = 1; break;
		case 'P': o->pid = optarg; break;
		case 'D': o->device = optarg; break;
		case 'n':
			if (opt_i64(&prog, stderr, "--num-layers", optarg, 1, TRSTREAM_MAX_LAYERS, &o->num_layers) != 0)
				exit(EXIT_TROUBLE);
			have_layers = 1;
			break;
		case 'k':
			if (opt_i64(&prog, stderr, "--anchor-offset", optarg, 0, TRSTREAM_MAX_OFFSET,
				    &o->offset) != 0)
				exit(EXIT_TROUBLE);
			have_offset = 1;
			break;
		case 'p':
			if (opt_i64(&prog, stderr, "--passes", optarg, 1, TRSTREAM_MAX_LAYERS, &o->passes) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'f':
			if (opt_i64(&prog, stderr, "--first-layer", optarg, 0, TRSTREAM_MAX_LAYERS,
				    &o->first_layer) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit(gz_backend());
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (o->anchor_regex == NULL || !have_layers || !have_offset)
		exit(opt_usage_error(&prog, stderr,
			"--anchor-regex, --num-layers and --anchor-offset are required"));
	if (o->confirm_cpu && o->confirm_regex == NULL)
		exit(opt_usage_error(&prog, stderr, "--confirm-cpu needs --confirm-regex"));
	if (o->num_layers * o->passes > TRSTREAM_MAX_GUIDES)
		die(EXIT_TROUBLE, "--num-layers x --passes is too large (at most 10000000)");
}

/* A refusal of anchorscan: its text, and its status as the exit status. */
static void check(int rc, const struct buf *msg)
{
	if (rc == ANCHORSCAN_NOMEM)
		die_nomem();
	if (rc != ANCHORSCAN_OK)
		die(rc, "%s", msg->p);
}

/* At the tail: the selection, then its records before the tail. */
static void emit_records(struct anchorscan *s, struct filter *f)
{
	struct buf rec = BUF_INIT, msg = BUF_INIT;
	size_t i;

	check(anchorscan_finish(s, &rec), &rec);
	buf_reset(&rec);
	if (anchorscan_put_anchors(s, &rec) != 0)
		die_nomem();
	filter_put(f, rec.p, rec.len);
	for (i = 0; i < s->need; i++) {
		buf_reset(&rec);
		check(anchorscan_put_anchor(s, i, &rec, &msg), &msg);
		filter_put(f, rec.p, rec.len);
	}
	buf_release(&rec);
	buf_release(&msg);
}

int main(int argc, char **argv)
{
	struct anchorscan_options opt;
	struct anchorscan scan;
	struct buf msg = BUF_INIT;
	struct filter f;
	const char *line;
	size_t len;
	int kind;

	diag_init(argv[0]);
	memset(&scan, 0, sizeof scan);
	parse_options(argc, argv, &opt);
	check(anchorscan_init(&scan, &opt, diag_progname(), &msg), &msg);

	if (filter_open(&f) != 0)
		die_nomem();
	while ((kind = filter_next(&f, &line, &len)) > LINE_END) {
		if (kind == LINE_EVENT) {
			check(anchorscan_event(&scan, line, len, &msg), &msg);
		} else if (kind == LINE_TAIL) {
			emit_records(&scan, &f);
		} else if (kind == LINE_CONTROL && stream_is_kind(line, len, TRSTREAM_ANCHORS)) {
			die(EXIT_INPUT, "the stream already carries anchor records "
			    "(tr-select-anchors twice in one pipeline?)");
		}
		filter_pass(&f, line, len);
	}
	if (kind == LINE_ERROR || filter_close(&f) != 0)
		die_stream(f.write_errno, f.in.err, f.in.read_errno);
	anchorscan_free(&scan);
	buf_release(&msg);
	return EXIT_OK;
}
