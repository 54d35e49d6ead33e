/* tr-decode: a Chrome JSON trace (plain or gzip, object or array format) to
 * the trace-layers event stream on standard output.  See tr-decode(1). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gz/gz.h"
#include "stream/decode_file.h"
#include "core/diag.h"
#include "core/opt.h"
#include "core/progress.h"

#define DEFAULT_MAX_EVENT ((uint64_t)64 << 20)
/* json.c's token offsets are ints: no stream line may reach 2 GiB (the
 * head and tail records hold up to 1 GiB of members and a little more). */
#define LIMIT_MAX_EVENT ((uint64_t)1 << 30)

static const char usage_text[] =
	"usage: tr-decode [--max-event-bytes N] [--max-member-bytes N] [--record-path]\n"
	"                 [--progress[=PHASE] | -q | --quiet] [FILE | -]\n"
	"Decode a Chrome JSON trace (.json or .json.gz, object or array format)\n"
	"into the trace-layers event stream (tr-stream(5)) on standard output.\n"
	"\n"
	"  --max-event-bytes N  refuse an event or top-level member larger than N\n"
	"                       bytes (suffix K, M or G; default 64M)\n"
	"  --max-member-bytes N refuse top-level members before traceEvents, or\n"
	"                       after it, larger than N bytes together (default 64M)\n"
	"  --record-path        record FILE as given in the stream (and so in the\n"
	"                       reports' source_file), not its base name\n"
	"  --progress[=PHASE]   the progress line on standard error (bytes of FILE\n"
	"                       read, its size, rate, time left) even when that is\n"
	"                       not a terminal; PHASE names it (default reading)\n"
	"  -q, --quiet          no progress line, even on a terminal\n"
	"  --help               this text\n"
	"  --version            the version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected, 2 usage or system trouble.\n";

/* Reports are shared: a capture path such as /home/NAME/... stays out of
 * them unless asked for. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max-event-bytes", required_argument, NULL, 'm' },
		{ "max-member-bytes", required_argument, NULL, 'M' },
		{ "record-path", no_argument, NULL, 'p' },
		{ "progress", optional_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t max_event = DEFAULT_MAX_EVENT, max_members = DECODE_DEFAULT_MAX_MEMBERS;
	const char *path = "-", *name, *phase = "reading";
	struct progress meter;
	struct decode_file_result result;
	struct opt_program prog = { NULL, ":hq", longopts, usage_text };
	int ch, record_path = 0, mode = PROGRESS_AUTO;

	diag_init(argv[0]);
	prog.name = diag_progname();
	while ((ch = opt_next(&prog, argc, argv)) != -1) {
		switch (ch) {
		case 'm':
			if (opt_size(&prog, stderr, "--max-event-bytes", optarg, 1, LIMIT_MAX_EVENT,
				     &max_event) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'M':
			if (opt_size(&prog, stderr, "--max-member-bytes", optarg, 1, LIMIT_MAX_EVENT,
				     &max_members) != 0)
				exit(EXIT_TROUBLE);
			break;
		case 'p':
			record_path = 1;
			break;
		case 'P':
			mode = PROGRESS_FORCE;
			if (optarg != NULL && *optarg != '\0')
				phase = optarg;
			break;
		case 'q':
			mode = PROGRESS_QUIET;
			break;
		case 'h':
			exit(opt_help(&prog, stdout, stderr));
		case 'V':
			print_version_and_exit(gz_backend());
		default:
			exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (argc - optind > 1)
		exit(opt_extra_operand(&prog, stderr, argv[optind + 1]));
	if (argc - optind == 1)
		path = argv[optind];
	name = strcmp(path, "-") == 0 ? "stdin" : path;

	progress_start(&meter, mode, STDERR_FILENO, phase);
	decode_file_as(path, record_path ? path : base_name(path), STDOUT_FILENO,
		       (size_t)max_event, (size_t)max_members, "tr-decode", &result, &meter);
	/* a message or the next program's output starts on a clean line */
	(void)progress_end(&meter);
	switch (result.status) {
	case DECODE_OK:
		break;
	case DECODE_OPEN:
		die_errno(EXIT_TROUBLE, "%s", name);
	case DECODE_INPUT:
		die(EXIT_INPUT, "%s: %s", name, result.msg);
	case DECODE_READ:
		die(result.input_fault ? EXIT_INPUT : EXIT_TROUBLE, "%s: %s", name, result.msg);
	case DECODE_WRITE:
		die_write("standard output");
	default:
		die_nomem();
	}
	if (close(STDOUT_FILENO) != 0)
		die_write("standard output");
	return EXIT_OK;
}
