/* tr-encode: the trace-layers event stream back into a Chrome JSON trace, and
 * the report records of earlier stages into their report files.  Nothing is
 * written in place until the tail record arrived.  See tr-encode(1). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "encode.h"
#include "event.h"
#include "indent.h"
#include "gz.h"
#include "intern.h"
#include "io.h"
#include "opt.h"
#include "outfile.h"
#include "stream.h"

static const char usage_text[] =
	"usage: tr-encode [-o OUTPUT] [--level N] [--report-base PATH] [--compact-report]\n"
	"Encode the trace-layers event stream (tr-stream(5)) on standard input into\n"
	"a Chrome JSON trace, gzip-compressed when OUTPUT ends in .gz.\n"
	"\n"
	"  -o, --output OUTPUT  the trace to write; - for standard output (default).\n"
	"                       An existing file is never replaced.\n"
	"  --level N            gzip level 1-9 for a .gz OUTPUT (default 1, the fastest)\n"
	"  --report-base PATH   report files are PATH.SUFFIX (default: OUTPUT)\n"
	"  --compact-report     write reports on one line (default: indented by 2)\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 input rejected, 2 usage or system trouble.\n";

/* Where the trace bytes go: a buffered writer, through a gzip stream (gz.h)
 * for a .gz OUTPUT. */
struct sink {
	struct writer w;
	struct gz_out *gz;
	const char *name;
};

static int put_compressed(void *ctx, const void *data, size_t n)
{
	return writer_put(ctx, data, n);
}

static void sink_open(struct sink *s, int fd, int gzip, int level)
{
	if (writer_init(&s->w, fd) != 0)
		die_nomem();
	if (gzip && (s->gz = gz_out_new(level, put_compressed, &s->w)) == NULL)
		die_nomem();
}

static void sink_check(struct sink *s, int rc)
{
	if (rc == GZ_WRITE)
		die_write(s->name);
	if (rc == GZ_NOMEM)
		die_nomem();
	if (rc != GZ_OK)
		die(EXIT_TROUBLE, "%s: gzip: %s", s->name, gz_out_error(s->gz));
}

static void sink_put(struct sink *s, const void *data, size_t n)
{
	if (s->gz != NULL)
		sink_check(s, gz_write(s->gz, data, n));
	else if (writer_put(&s->w, data, n) != 0)
		die_write(s->name);
}

static void sink_finish(struct sink *s)
{
	if (s->gz != NULL)
		sink_check(s, gz_finish(s->gz));
	if (writer_flush(&s->w) != 0)
		die_write(s->name);
}

static void sink_free(struct sink *s)
{
	gz_out_free(s->gz);
	s->gz = NULL;
	writer_free(&s->w);
}

/* Report files: one per suffix.  A record without "member" gives the body
 * of the file; records with "member" add a member to that body, and records
 * with "member" and "items" append to an array member, so that no stage has
 * to hold a report that grows with the layers as one line.  Everything goes
 * to the temporary file as soon as it arrives. */
/* Reports are laid out for people (indent.h) unless --compact-report. */
static unsigned report_indent = 2;

/* A report file as the layout's destination; on the heap, as the list of
 * reports moves while it grows. */
struct report_out {
	int fd;
	struct indent layout;
};

static int put_report(void *ctx, const void *data, size_t n)
{
	return write_all(((struct report_out *)ctx)->fd, data, n);
}

struct report {
	char *suffix;
	struct report_out *out;  /* with the file */
	struct outfile file;  /* open once the body arrived */
	int has_body;
	int need_comma;       /* the object written so far has a member */
	struct buf members;   /* "name":value,... that came before the body */
	char *open_array;     /* the array member items are appended to, or NULL */
	int array_has_items;
	struct intern closed; /* array members closed so far (raw names) */
};

struct reports {
	struct report *list;
	size_t n;
};

static struct report *report_for(struct reports *rs, const char *suffix, size_t len)
{
	struct report *r;
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (strlen(rs->list[i].suffix) == len && memcmp(rs->list[i].suffix, suffix, len) == 0)
			return &rs->list[i];
	if (rs->n == 8)
		die(EXIT_INPUT, "more than 8 report files requested");
	rs->list = xrealloc(rs->list, (rs->n + 1) * sizeof *rs->list);
	r = &rs->list[rs->n++];
	memset(r, 0, sizeof *r);
	r->suffix = xmalloc(len + 1);
	memcpy(r->suffix, suffix, len);
	r->suffix[len] = '\0';
	r->members = (struct buf)BUF_INIT;
	r->file.fd = -1;
	return r;
}

static int suffix_ok(const char *s, size_t n)
{
	size_t i;

	if (n < 2 || n > 64 || s[0] != '.')
		return 0;
	for (i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '.' || s[i] == '-' || s[i] == '_'))
			return 0;
	return 1;
}

static void report_write(struct report *r, const char *text, size_t n)
{
	if (indent_write(&r->out->layout, text, n) != 0)
		die_errno(EXIT_TROUBLE, "%s", r->file.path);
}

/* Open the report's temporary file and write its object up to, not
 * including, the closing brace: the body (or "{"), then pending members. */
static void report_start(struct report *r, const char *base, const char *body, size_t blen)
{
	struct buf path = BUF_INIT;

	if (buf_addstr(&path, base) != 0 || buf_addstr(&path, r->suffix) != 0)
		die_nomem();
	if (outfile_open(&r->file, path.p) != 0) {
		if (errno == EEXIST)
			die(EXIT_TROUBLE, "%s: report exists; refusing to overwrite it", path.p);
		die_errno(EXIT_TROUBLE, "%s", path.p);
	}
	buf_release(&path);
	r->out = xmalloc(sizeof *r->out);
	r->out->fd = r->file.fd;
	indent_init(&r->out->layout, report_indent, put_report, r->out);
	/* tr-compact's retired metadata events are the source's exact text */
	r->out->layout.verbatim_key = "event";
	if (body != NULL) {
		report_write(r, body, blen - 1);
		r->need_comma = blen > 2;
	} else {
		report_write(r, "{", 1);
	}
	if (r->members.len) {
		if (r->need_comma)
			report_write(r, ",", 1);
		report_write(r, r->members.p, r->members.len);
		r->need_comma = 1;
		buf_release(&r->members);
	}
}

/* Close the array member that items were appended to, if one is open. */
static void close_array(struct report *r)
{
	if (r->open_array == NULL)
		return;
	report_write(r, "]", 1);
	if (intern_id(&r->closed, r->open_array, strlen(r->open_array)) < 0)
		die_nomem();
	free(r->open_array);
	r->open_array = NULL;
}

/* Items [a,b,...] appended to array member name (raw, with quotes): the
 * first record opens the member, later ones continue it. */
static void append_items(struct report *r, const struct member *name,
			 const struct member *items, uint64_t lineno)
{
	const char *inner = items->p + 1;
	size_t n = items->len - 2;

	if (!r->has_body)
		die(EXIT_INPUT, "line %llu: report items for %s before its body",
		    (unsigned long long)lineno, r->suffix);
	if (r->open_array == NULL || strlen(r->open_array) != name->len ||
	    memcmp(r->open_array, name->p, name->len) != 0) {
		close_array(r);
		if (intern_find(&r->closed, name->p, name->len) >= 0) /* it would be given twice */
			die(EXIT_INPUT, "line %llu: report items for member %.*s of %s "
			    "after another member came between", (unsigned long long)lineno,
			    (int)name->len, name->p, r->suffix);
		if (r->need_comma)
			report_write(r, ",", 1);
		report_write(r, name->p, name->len);
		report_write(r, ":[", 2);
		r->need_comma = 1;
		r->open_array = xmemdup(name->p, name->len);
		r->array_has_items = 0;
	}
	if (n == 0)
		return;
	if (r->array_has_items)
		report_write(r, ",", 1);
	report_write(r, inner, n);
	r->array_has_items = 1;
}

/* A report record's members are found with one walk over the line, not by
 * tokenizing it: a layers report has tokens for every layer's row. */
static void collect_report(struct reports *rs, const char *line, size_t len,
			   uint64_t lineno, const char *base)
{
	static const char *const keys[] = { "suffix", "member", "body", "items" };
	struct member m[4];
	struct report *r;

	event_members(line, len, keys, 4, m);
	/* a body is an object; a member's value ("body") anything; items an array */
	if (m[0].len < 2 || m[0].p[0] != '"' ||
	    (m[1].p != NULL && (m[1].len < 2 || m[1].p[0] != '"')) ||
	    (m[3].p == NULL ? m[2].len < 1 || (m[1].p == NULL && m[2].p[0] != '{')
			    : m[2].p != NULL || m[1].p == NULL || m[3].len < 2 || m[3].p[0] != '['))
		die(EXIT_INPUT, "line %llu: a report record needs a string \"suffix\" and an "
		    "object \"body\", or a \"member\" and its value (\"body\") or an array "
		    "\"items\"", (unsigned long long)lineno);
	if (!suffix_ok(m[0].p + 1, m[0].len - 2))
		die(EXIT_INPUT, "line %llu: report suffix must look like .name.json "
		    "(lowercase letters, digits, '.', '-', '_')", (unsigned long long)lineno);
	r = report_for(rs, m[0].p + 1, m[0].len - 2);
	if (m[3].p != NULL) {
		append_items(r, &m[1], &m[3], lineno);
		return;
	}
	close_array(r);
	if (m[1].p == NULL) {
		if (r->has_body)
			die(EXIT_INPUT, "line %llu: a second report body for %s",
			    (unsigned long long)lineno, r->suffix);
		r->has_body = 1;
		report_start(r, base, m[2].p, m[2].len);
		return;
	}
	if (r->has_body) {
		if (r->need_comma)
			report_write(r, ",", 1);
		report_write(r, m[1].p, m[1].len);
		report_write(r, ":", 1);
		report_write(r, m[2].p, m[2].len);
		r->need_comma = 1;
		return;
	}
	if ((r->members.len && buf_addch(&r->members, ',') != 0) ||
	    buf_add(&r->members, m[1].p, m[1].len) != 0 || buf_addch(&r->members, ':') != 0 ||
	    buf_add(&r->members, m[2].p, m[2].len) != 0)
		die_nomem();
}

/* Close every report's object; one that got only members starts now. */
static void finish_reports(struct reports *rs, const char *base)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		struct report *r = &rs->list[i];
		if (!r->has_body)
			report_start(r, base, NULL, 0);
		close_array(r);
		report_write(r, "}\n", 2);
		if (indent_flush(&r->out->layout) != 0)
			die_errno(EXIT_TROUBLE, "%s", r->file.path);
	}
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *output = "-", *report_base = NULL;
	int64_t level = 1;
	struct outfile file = { NULL, NULL, -1 };
	struct sink out;
	struct stream_in in;
	struct reports reports = { NULL, 0 };
	struct encoder enc;
	int ch, rc, fd = STDOUT_FILENO;
	const char *line;
	size_t len, i;
	struct opt_program prog = { NULL, ":o:h", longopts, usage_text };

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
		case 'h': exit(opt_help(&prog, stdout, stderr));
		case 'V': print_version_and_exit();
		default: exit(opt_fail(&prog, stderr, ch, argv));
		}
	}
	if (optind != argc)
		exit(opt_extra_operand(&prog, stderr, argv[optind]));
	if (report_base == NULL && strcmp(output, "-") != 0)
		report_base = output;

	memset(&out, 0, sizeof out);
	out.name = strcmp(output, "-") == 0 ? "standard output" : output;
	diag_on_exit(outfile_abort_all);
	outfile_catch_signals();
	if (strcmp(output, "-") != 0) {
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
	    encoder_init(&enc, put_sink, &out) != 0)
		die_nomem();

	while ((rc = stream_next(&in, &line, &len)) > 0) {
		int erc = encoder_line(&enc, rc, line, len, in.r.lineno);
		if (erc == ENCODE_INPUT)
			die(EXIT_INPUT, "stdin: %s; %s", enc.err,
			    file.path ? "no output written" : "output incomplete");
		if (erc == ENCODE_NOMEM)
			die_nomem();
		if (erc != ENCODE_CONTROL)
			continue;
		/* refuse at once, before the rest of the trace reaches
		 * standard output complete-looking */
		if (stream_is_kind(line, len, "report") && report_base == NULL)
			die(EXIT_TROUBLE, "the stream carries reports: give --report-base "
			    "when writing to standard output");
		/* the record without whitespace: collect_report walks it */
		if (stream_is_kind(line, len, "report"))
			collect_report(&reports, enc.text.p, enc.text.len, in.r.lineno, report_base);
		/* other kinds are for stages that were not in the pipeline */
	}
	if (rc == LINE_ERROR)
		die(EXIT_INPUT, "stdin: %s; %s", in.err,
		    file.path ? "no output written" : "output incomplete");

	sink_finish(&out);
	if (reports.n > 0)
		finish_reports(&reports, report_base);
	/* Everything is written: put the files in place, the trace first, as
	 * one set: a failure or an interrupt on the way takes back what was
	 * placed (all or nothing). */
	{
		struct outfile **set = xmalloc((reports.n + 1) * sizeof *set);
		char **names = xmalloc((reports.n + 1) * sizeof *names);
		size_t n = 0, failed;
		if (file.path != NULL)
			set[n++] = &file;
		for (i = 0; i < reports.n; i++)
			set[n++] = &reports.list[i].file;
		for (i = 0; i < n; i++)
			if ((names[i] = strdup(set[i]->path)) == NULL)
				die_nomem();
		if (outfile_commit_all(set, n, &failed) != 0) {
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
	for (i = 0; i < reports.n; i++) {
		free(reports.list[i].suffix);
		free(reports.list[i].open_array);
		buf_release(&reports.list[i].members);
		intern_free(&reports.list[i].closed);
		indent_free(&reports.list[i].out->layout);
		free(reports.list[i].out);
	}
	free(reports.list);
	encoder_free(&enc);
	stream_in_free(&in);
	sink_free(&out);
	return EXIT_OK;
}
