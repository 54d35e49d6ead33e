/* Unit tests for common/core/reader.c: reader_line over a temporary file, over
 * a pipe fed by a thread in uneven pieces, and over blocks handed out in
 * uneven sizes as blockq_peek does (reader_use_blocks; each block freed
 * and poisoned once given back): lines across 4 MiB block boundaries,
 * lines longer than a block, max_line, a last line without '\n', empty
 * input, read errors. */
#define _GNU_SOURCE  /* F_GETPIPE_SZ */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/blockq.h"
#include "core/io.h"
#include "core/reader.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- input helpers: the same bytes from a file or from a pipe ---- */

enum feed { FEED_FILE = 0, FEED_PIPE = 1, FEED_BLOCKS = 2 };

struct input {
	int fd;
	int threaded;
	pthread_t writer;
	const char *data;
	size_t n;
	int wfd;
	int wrc;
	/* FEED_BLOCKS: the block handed out, a copy of data[block_at,
	 * block_end), given back up to at */
	int blocks;
	char *block;
	size_t at, block_at, block_end, piece;
};

static int temp_fd(void)
{
	char path[] = "/tmp/check_io.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(unlink(path), 0);
	return fd;
}

/* A thread writes the bytes in pieces of growing, uneven sizes so that the
 * reader sees short reads at many different positions.  (A thread rather
 * than a child process: a child would leave valgrind a leak report.) */
static void *pipe_writer(void *arg)
{
	struct input *in = arg;
	size_t off = 0, piece = 1;

	while (off < in->n) {
		size_t k = in->n - off < piece ? in->n - off : piece;
		if (io_write_all(in->wfd, in->data + off, k) != 0) {
			in->wrc = -1;
			break;
		}
		off += k;
		piece = piece * 3 + 7;
		if (piece > 3 * 1000 * 1000)
			piece = 1;
	}
	close(in->wfd);
	return NULL;
}

/* FEED_BLOCKS: the next piece as a block of its own (sizes growing as the
 * pipe writer's pieces do), until it is given back whole. */
static size_t peek_block(void *ctx, const char **data)
{
	struct input *in = ctx;

	if (in->block == NULL) {
		size_t k;
		if (in->at == in->n)
			return 0;
		k = in->n - in->at < in->piece ? in->n - in->at : in->piece;
		in->block = malloc(k);
		ck_assert_ptr_nonnull(in->block);
		memcpy(in->block, in->data + in->at, k);
		in->block_at = in->at;
		in->block_end = in->at + k;
		in->piece = in->piece * 3 + 7;
		if (in->piece > 3 * 1000 * 1000)
			in->piece = 1;
	}
	*data = in->block + (in->at - in->block_at);
	return in->block_end - in->at;
}

/* A block given back is poisoned and freed: a line still pointing into it
 * would read garbage (and ASan would say so). */
static void advance_block(void *ctx, size_t n)
{
	struct input *in = ctx;

	ck_assert_ptr_nonnull(in->block);
	ck_assert_uint_le(n, in->block_end - in->at);
	in->at += n;
	if (in->at == in->block_end) {
		memset(in->block, 0xa5, in->block_end - in->block_at);
		free(in->block);
		in->block = NULL;
	}
}

/* reader_init on the input's descriptor, or on its blocks. */
static void start_reader(struct reader *r, struct input *in, size_t max_line)
{
	ck_assert_int_eq(reader_init(r, in->fd, max_line), 0);
	if (in->blocks)
		reader_use_blocks(r, peek_block, advance_block, in);
}

static void open_input(struct input *in, const char *data, size_t n, enum feed how)
{
	int p[2];

	memset(in, 0, sizeof *in);
	if (how == FEED_BLOCKS) {
		in->fd = -1;
		in->blocks = 1;
		in->data = data;
		in->n = n;
		in->piece = 1;
		return;
	}
	if (how == FEED_FILE) {
		in->fd = temp_fd();
		ck_assert_int_eq(io_write_all(in->fd, data, n), 0);
		ck_assert_int_eq(lseek(in->fd, 0, SEEK_SET), 0);
		return;
	}
	ck_assert_int_eq(pipe(p), 0);
	in->fd = p[0];
	in->wfd = p[1];
	in->data = data;
	in->n = n;
	ck_assert_int_eq(pthread_create(&in->writer, NULL, pipe_writer, in), 0);
	in->threaded = 1;
}

/* Drains a pipe first, so that the writer never meets a closed pipe. */
static void close_input(struct input *in)
{
	char sink[65536];

	if (in->blocks) {
		free(in->block);
		return;
	}
	if (in->threaded)
		while (io_read_some(in->fd, sink, sizeof sink) > 0)
			;
	ck_assert_int_eq(close(in->fd), 0);
	if (in->threaded) {
		ck_assert_int_eq(pthread_join(in->writer, NULL), 0);
		ck_assert_int_eq(in->wrc, 0);
	}
}

static void expect_line(struct reader *r, const char *want, size_t want_len)
{
	const char *line = NULL;
	size_t len = 12345;

	ck_assert_int_eq(reader_line(r, &line, &len), READ_LINE);
	ck_assert_uint_eq(len, want_len);
	ck_assert_mem_eq(line, want, want_len);
}

static void expect_status(struct reader *r, int want)
{
	const char *line = NULL;
	size_t len = 0;

	ck_assert_int_eq(reader_line(r, &line, &len), want);
}

/* ---- many lines across block boundaries ---- */

/* Line i: its length cycles through 0..4099 (so empty lines occur), its
 * bytes depend on i and the position. */
static size_t line_len(size_t i)
{
	return (i * 37) % 4100;
}

static char line_byte(size_t i, size_t k)
{
	return (char)('!' + (i * 7 + k * 13) % 90);
}

START_TEST(test_lines_across_blocks)
{
	enum feed how = (enum feed)_i;
	size_t total = 0, nlines = 0, i, k, off;
	char *data;
	struct input in;
	struct reader r;
	const char *line;
	size_t len;

	/* about 2.5 blocks of input */
	while (total < 2 * IO_BLOCK + IO_BLOCK / 2)
		total += line_len(nlines++) + 1;
	data = malloc(total);
	ck_assert_ptr_nonnull(data);
	for (i = 0, off = 0; i < nlines; i++) {
		for (k = 0; k < line_len(i); k++)
			data[off++] = line_byte(i, k);
		data[off++] = '\n';
	}
	ck_assert_uint_eq(off, total);

	open_input(&in, data, total, how);
	start_reader(&r, &in, 4100);
	for (i = 0, off = 0; i < nlines; i++) {
		/* plain tests in the loop: every ck_assert costs a write in
		 * no-fork mode */
		if (r.offset != off || reader_line(&r, &line, &len) != READ_LINE ||
		    len != line_len(i) || memcmp(line, data + off, len) != 0 ||
		    r.lineno != i + 1)
			ck_abort_msg("line %zu (offset %zu) differs", i, off);
		off += len + 1;
	}
	ck_assert_uint_eq(r.offset, total);
	expect_status(&r, READ_EOF);
	expect_status(&r, READ_EOF);
	ck_assert_uint_eq(r.lineno, nlines);
	reader_free(&r);
	close_input(&in);
	free(data);
}
END_TEST

/* A line whose '\n' is the first byte of the second block, and one whose
 * '\n' is the last byte of the first block. */
START_TEST(test_newline_at_block_edges)
{
	enum feed how = (enum feed)_i;
	size_t n = 2 * IO_BLOCK + 10;
	char *data = malloc(n);
	struct input in;
	struct reader r;

	ck_assert_ptr_nonnull(data);
	memset(data, 'a', n);
	data[IO_BLOCK - 1] = '\n';  /* line 1: IO_BLOCK - 1 bytes */
	data[IO_BLOCK] = '\n';      /* line 2: empty */
	data[n - 1] = '\n';         /* line 3: the rest */
	open_input(&in, data, n, how);
	start_reader(&r, &in, 2 * IO_BLOCK);
	expect_line(&r, data, IO_BLOCK - 1);
	expect_line(&r, "", 0);
	expect_line(&r, data + IO_BLOCK + 1, n - IO_BLOCK - 2);
	expect_status(&r, READ_EOF);
	reader_free(&r);
	close_input(&in);
	free(data);
}
END_TEST

/* A line longer than two blocks: the buffer grows to hold it. */
START_TEST(test_line_longer_than_block)
{
	enum feed how = (enum feed)_i;
	size_t big = 2 * IO_BLOCK + 12345, n = big + 1 + 4, i;
	char *data = malloc(n);
	struct input in;
	struct reader r;

	ck_assert_ptr_nonnull(data);
	for (i = 0; i < big; i++)
		data[i] = (char)('a' + i % 26);
	memcpy(data + big, "\nxyz\n", 5);
	open_input(&in, data, n, how);
	start_reader(&r, &in, big);
	expect_line(&r, data, big);
	ck_assert_uint_eq(r.offset, big + 1);
	expect_line(&r, "xyz", 3);
	expect_status(&r, READ_EOF);
	reader_free(&r);
	close_input(&in);
	free(data);
}
END_TEST

/* ---- max_line ---- */

START_TEST(test_max_line_exact_and_over)
{
	enum feed how = (enum feed)_i;
	static const char data[] = "0123456789\n\n0123456789A\nnext\n";
	struct input in;
	struct reader r;

	open_input(&in, data, sizeof data - 1, how);

	start_reader(&r, &in, 10);
	expect_line(&r, "0123456789", 10);  /* exactly max_line */
	expect_line(&r, "", 0);
	expect_status(&r, READ_TOO_LONG);  /* 11 bytes */
	ck_assert_uint_eq(r.lineno, 2);
	ck_assert_uint_eq(r.offset, 12);
	reader_free(&r);
	close_input(&in);
}
END_TEST

/* Too long without a '\n' in sight: refused once more than max_line bytes
 * are buffered, without buffering the whole line (a file and blocks: a
 * pipe's reads may stop anywhere). */
START_TEST(test_max_line_no_newline)
{
	enum feed how = (enum feed)_i;
	size_t n = 3 * IO_BLOCK, max = IO_BLOCK + 100;
	char *data = malloc(n);
	struct input in;
	struct reader r;

	ck_assert_ptr_nonnull(data);
	memset(data, 'q', n);
	data[n - 1] = '\n';
	open_input(&in, data, n, how);
	start_reader(&r, &in, max);
	expect_status(&r, READ_TOO_LONG);
	ck_assert_uint_le(r.cap, 2 * IO_BLOCK);
	ck_assert_uint_eq(r.lineno, 0);
	reader_free(&r);
	close_input(&in);
	free(data);
}
END_TEST

START_TEST(test_max_line_partial_tail)
{
	enum feed how = (enum feed)_i;
	static const char data[] = "abc\n0123456789AB";  /* last line 12 > 10 */
	struct input in;
	struct reader r;

	open_input(&in, data, sizeof data - 1, how);

	start_reader(&r, &in, 10);
	expect_line(&r, "abc", 3);
	expect_status(&r, READ_TOO_LONG);
	reader_free(&r);
	close_input(&in);
}
END_TEST

/* ---- the end of input ---- */

START_TEST(test_partial_last_line)
{
	enum feed how = (enum feed)_i;
	static const char data[] = "first\nsecond\nthird";
	struct input in;
	struct reader r;

	open_input(&in, data, sizeof data - 1, how);

	start_reader(&r, &in, 100);
	expect_line(&r, "first", 5);
	expect_line(&r, "second", 6);
	expect_status(&r, READ_PARTIAL);
	expect_status(&r, READ_PARTIAL);
	ck_assert_uint_eq(r.lineno, 2);
	ck_assert_uint_eq(r.offset, 13);
	reader_free(&r);
	close_input(&in);
}
END_TEST

START_TEST(test_partial_only_line)
{
	enum feed how = (enum feed)_i;
	struct input in;
	struct reader r;

	open_input(&in, "x", 1, how);

	start_reader(&r, &in, 100);
	expect_status(&r, READ_PARTIAL);
	reader_free(&r);
	close_input(&in);
}
END_TEST

START_TEST(test_empty_input)
{
	enum feed how = (enum feed)_i;
	struct input in;
	struct reader r;

	open_input(&in, "", 0, how);

	start_reader(&r, &in, 100);
	expect_status(&r, READ_EOF);
	expect_status(&r, READ_EOF);
	ck_assert_uint_eq(r.lineno, 0);
	ck_assert_uint_eq(r.offset, 0);
	reader_free(&r);
	close_input(&in);
}
END_TEST

START_TEST(test_only_newlines)
{
	enum feed how = (enum feed)_i;
	struct input in;
	struct reader r;

	open_input(&in, "\n\n", 2, how);

	start_reader(&r, &in, 0);
	expect_line(&r, "", 0);
	expect_line(&r, "", 0);
	expect_status(&r, READ_EOF);
	ck_assert_uint_eq(r.lineno, 2);
	reader_free(&r);
	close_input(&in);
}
END_TEST

START_TEST(test_read_error)
{
	int fd = open("/dev/null", O_WRONLY);
	struct reader r;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(reader_init(&r, fd, 100), 0);
	errno = 0;
	expect_status(&r, READ_ERROR);
	ck_assert_int_eq(errno, EBADF);
	reader_free(&r);
	close(fd);
}
END_TEST

/* reader_use_blockq: lines read from a queue's blocks, one across two */
START_TEST(test_blockq_lines)
{
	struct blockq q;
	struct reader r;
	char *room;

	ck_assert_int_eq(blockq_init(&q, 8), 0);
	ck_assert_int_eq(reader_init(&r, -1, 100), 0);
	reader_use_blockq(&r, &q);
	room = blockq_room(&q);
	memcpy(room, "ab\ncdef", 7);
	blockq_commit(&q, 7);
	room = blockq_room(&q);
	memcpy(room, "gh\n\n", 4);
	blockq_commit(&q, 4);
	blockq_close(&q);
	expect_line(&r, "ab", 2);
	expect_line(&r, "cdefgh", 6);
	expect_line(&r, "", 0);
	expect_status(&r, READ_EOF);
	reader_free(&r);
	blockq_free(&q);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *lines = tcase_create("lines");
	TCase *limits = tcase_create("limits");
	TCase *end = tcase_create("end");

	tcase_set_timeout(lines, 60);
	tcase_set_timeout(limits, 60);
	tcase_add_loop_test(lines, test_lines_across_blocks, FEED_FILE, FEED_BLOCKS + 1);
	tcase_add_loop_test(lines, test_newline_at_block_edges, FEED_FILE, FEED_BLOCKS + 1);
	tcase_add_loop_test(lines, test_line_longer_than_block, FEED_FILE, FEED_BLOCKS + 1);
	suite_add_tcase(s, lines);

	tcase_add_loop_test(limits, test_max_line_exact_and_over, FEED_FILE, FEED_BLOCKS + 1);
	tcase_add_loop_test(limits, test_max_line_no_newline, FEED_FILE, FEED_FILE + 1);
	tcase_add_loop_test(limits, test_max_line_no_newline, FEED_BLOCKS, FEED_BLOCKS + 1);
	tcase_add_loop_test(limits, test_max_line_partial_tail, FEED_FILE, FEED_BLOCKS + 1);
	suite_add_tcase(s, limits);

	tcase_add_loop_test(end, test_partial_last_line, FEED_FILE, FEED_BLOCKS + 1);
	tcase_add_loop_test(end, test_partial_only_line, FEED_FILE, FEED_BLOCKS + 1);
	tcase_add_loop_test(end, test_empty_input, FEED_FILE, FEED_BLOCKS + 1);
	tcase_add_loop_test(end, test_only_newlines, FEED_FILE, FEED_BLOCKS + 1);
	tcase_add_test(end, test_read_error);
	tcase_add_test(end, test_blockq_lines);
	suite_add_tcase(s, end);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reader_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
