/* Unit tests for common/gz/source.c: the stored bytes of a trace, plain or
 * gzip (told by the magic), decompressed, with the stored size and SHA-256.
 * Covered: a plain file, an empty one, a two-member gzip file read whole and
 * one byte at a time, truncated gzip and bytes after it (the exact message
 * and offset), files larger than the 1 MiB read block (the second hashing
 * thread and its two buffers), source_drain after a partial read, "-" and
 * NULL as standard input (a file, and a pipe whose first read gets only the
 * first magic byte), and paths that cannot be opened.
 *
 * The expected digests were computed once with sha256sum(1) on the same
 * bytes (see each constant); the gzip inputs were made with `gzip -n`. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include "gz/gz.h"
#include "gz/source.h"

/* printf 'hello world\n' | sha256sum */
#define SHA_HELLO "a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447"
/* printf '' | sha256sum */
#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/* sha256sum of the 52 bytes of two_members below */
#define SHA_TWO   "0f077d55a7833f30306b6c179f56ab2b60cb9e7f4fcff1ca07e3add28c9f0c9c"
/* sha256sum of the BIG_LEN bytes of pattern() (written out by a python3
 * copy of the same xorshift) */
#define SHA_BIG   "7fb8693428e339d9267b0d465d73d197222f7f88b3dfc7de3c504648d38106d8"

/* Three whole read blocks of source.c and a part block. */
#define BIG_LEN ((size_t)3 * (1u << 20) + 123)

/* (printf 'hello ' | gzip -n; printf 'world\n' | gzip -n): two members, 26
 * bytes each, holding "hello world\n" together. */
static const unsigned char two_members[52] = {
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48,
	0xcd, 0xc9, 0xc9, 0x57, 0x00, 0x00, 0xf6, 0xf9, 0x81, 0xed, 0x06, 0x00,
	0x00, 0x00, 0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
	0x2b, 0xcf, 0x2f, 0xca, 0x49, 0xe1, 0x02, 0x00, 0xa8, 0x61, 0x38, 0xdd,
	0x06, 0x00, 0x00, 0x00
};

static char dir[64];
static char path[128];

static void setup(void)
{
	strcpy(dir, "/tmp/check_source.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/in", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

static void write_file(const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	const unsigned char *p = data;

	ck_assert_int_ge(fd, 0);
	while (n > 0) {
		ssize_t put = write(fd, p, n);
		ck_assert_int_gt(put, 0);
		p += put;
		n -= (size_t)put;
	}
	ck_assert_int_eq(close(fd), 0);
}

/* Deterministic bytes that do not compress: the top byte of xorshift32. */
static unsigned char *pattern(size_t n)
{
	unsigned char *p = malloc(n);
	uint32_t x = 2463534242u;
	size_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)(x >> 24);
	}
	return p;
}

/* Everything source_read gives, in reads of at most piece bytes; the
 * length in *len.  Fails the test on an error. */
static unsigned char *read_all(struct source *s, size_t piece, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *out = malloc(cap);

	ck_assert_ptr_nonnull(out);
	for (;;) {
		long got;
		if (cap - n < piece) {
			unsigned char *more;
			cap = cap * 2 + piece;
			more = realloc(out, cap);
			ck_assert_ptr_nonnull(more);
			out = more;
		}
		got = source_read(s, out + n, piece);
		ck_assert_msg(got >= 0, "source_read: %s", source_error(s));
		if (got == 0)
			break;
		ck_assert_uint_le((size_t)got, piece);
		n += (size_t)got;
	}
	*len = n;
	return out;
}

/* Reads until the first error; its message. */
static const char *read_to_error(struct source *s)
{
	unsigned char chunk[64];
	long got;

	while ((got = source_read(s, chunk, sizeof chunk)) > 0)
		;
	ck_assert_int_eq(got, -1);
	return source_error(s);
}

static void assert_sha(struct source *s, const char *want)
{
	char hex[SOURCE_SHA256_HEX];

	source_sha256_hex(s, hex);
	ck_assert_str_eq(hex, want);
}

/* ---- plain files ---- */

START_TEST(test_plain)
{
	struct source *s;
	unsigned char *out;
	size_t len;

	write_file("hello world\n", 12);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	out = read_all(s, 5, &len);
	ck_assert_uint_eq(len, 12);
	ck_assert_mem_eq(out, "hello world\n", 12);
	/* the end stays the end */
	ck_assert_int_eq(source_read(s, out, 1), 0);
	ck_assert_uint_eq(source_stored_bytes(s), 12);
	assert_sha(s, SHA_HELLO);
	/* asking twice gives the same digest */
	assert_sha(s, SHA_HELLO);
	ck_assert_str_eq(source_error(s), "");
	free(out);
	source_close(s);
}
END_TEST

START_TEST(test_empty)
{
	struct source *s;
	unsigned char c;

	write_file("", 0);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(source_read(s, &c, 1), 0);
	ck_assert_uint_eq(source_stored_bytes(s), 0);
	assert_sha(s, SHA_EMPTY);
	source_close(s);
}
END_TEST

/* A zero-byte read is not the end of the data. */
START_TEST(test_read_zero_bytes)
{
	struct source *s;
	unsigned char *out;
	size_t len;

	write_file("hello world\n", 12);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(source_read(s, NULL, 0), 0);
	out = read_all(s, 100, &len);
	ck_assert_uint_eq(len, 12);
	free(out);
	source_close(s);
}
END_TEST

/* One gzip magic byte alone is plain data. */
START_TEST(test_one_magic_byte_is_plain)
{
	static const unsigned char one[] = { 0x1f };
	struct source *s;
	unsigned char *out;
	size_t len;

	write_file(one, 1);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	out = read_all(s, 100, &len);
	ck_assert_uint_eq(len, 1);
	ck_assert_uint_eq(out[0], 0x1f);
	free(out);
	source_close(s);
}
END_TEST

/* Larger than the read block: the hashing thread takes the blocks in
 * turn.  Read in pieces that do not divide the block. */
START_TEST(test_plain_big)
{
	unsigned char *want = pattern(BIG_LEN), *out;
	struct source *s;
	size_t len;

	write_file(want, BIG_LEN);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	out = read_all(s, 65536 + 7, &len);
	ck_assert_uint_eq(len, BIG_LEN);
	ck_assert_int_eq(memcmp(out, want, BIG_LEN), 0);
	ck_assert_uint_eq(source_stored_bytes(s), BIG_LEN);
	assert_sha(s, SHA_BIG);
	free(out);
	free(want);
	source_close(s);
}
END_TEST

/* ---- gzip ---- */

START_TEST(test_gzip_two_members)
{
	/* whole, then one byte per read */
	static const size_t pieces[] = { 4096, 1 };
	size_t k;

	write_file(two_members, sizeof two_members);
	for (k = 0; k < 2; k++) {
		struct source *s = source_open(path);
		unsigned char *out;
		size_t len;

		ck_assert_ptr_nonnull(s);
			out = read_all(s, pieces[k], &len);
		ck_assert_uint_eq(len, 12);
		ck_assert_mem_eq(out, "hello world\n", 12);
		ck_assert_uint_eq(source_stored_bytes(s), 52);
		assert_sha(s, SHA_TWO);
		free(out);
		source_close(s);
	}
}
END_TEST

struct damage_case {
	size_t keep;        /* the first bytes of two_members */
	const char *tail;   /* then these tail_len bytes */
	size_t tail_len;
	const char *err;
};

static const struct damage_case damage_cases[] = {
	/* inside the second member's deflate data */
	{ 40, "", 0, "byte 40 of the gzip file: truncated gzip data (unexpected end of file)" },
	/* inside the second member's header */
	{ 30, "", 0, "byte 30 of the gzip file: truncated gzip data (unexpected end of file)" },
	/* the magic alone */
	{ 2, "", 0, "byte 2 of the gzip file: truncated gzip data (unexpected end of file)" },
	/* one stray byte after the last member */
	{ 52, "x", 1, "byte 52 of the gzip file: trailing garbage after the gzip data" },
	/* a wrong length in the first member's trailer (6 -> 7): gz.c names
	 * the byte just after the field */
	{ 22, "\x07\x00\x00\x00", 4, "byte 26 of the gzip file: incorrect length check" },
};

START_TEST(test_gzip_damaged)
{
	const struct damage_case *c = &damage_cases[_i];
	size_t extra = c->tail_len;
	unsigned char in[64];
	struct source *s;

	memcpy(in, two_members, c->keep);
	memcpy(in + c->keep, c->tail, extra);
	write_file(in, c->keep + extra);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(read_to_error(s), c->err);
	ck_assert_int_eq(source_error_is_damage(s), 1);
	source_close(s);
}
END_TEST

static int put_file(void *ctx, const void *data, size_t n)
{
	FILE *f = ctx;

	return fwrite(data, 1, n, f) == n ? 0 : -1;
}

/* A gzip file larger than the read block; the digest is checked against a
 * one-shot SHA-256 of the file's bytes. */
START_TEST(test_gzip_big)
{
	unsigned char *want = pattern(BIG_LEN), *out, *stored;
	unsigned char digest[32];
	char hex[SOURCE_SHA256_HEX], want_hex[SOURCE_SHA256_HEX];
	struct gz_out *z;
	struct source *s;
	struct stat st;
	size_t len;
	FILE *f = fopen(path, "wb");
	int i;

	ck_assert_ptr_nonnull(f);
	z = gz_out_new(1, put_file, f);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(gz_write(z, want, BIG_LEN), GZ_OK);
	ck_assert_int_eq(gz_finish(z), GZ_OK);
	gz_out_free(z);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	/* random bytes do not shrink: the stored file spans several blocks */
	ck_assert_uint_gt((uint64_t)st.st_size, 2u << 20);

	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	out = read_all(s, 100003, &len);
	ck_assert_uint_eq(len, BIG_LEN);
	ck_assert_int_eq(memcmp(out, want, BIG_LEN), 0);
	ck_assert_uint_eq(source_stored_bytes(s), (uint64_t)st.st_size);

	stored = malloc((size_t)st.st_size);
	ck_assert_ptr_nonnull(stored);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(stored, 1, (size_t)st.st_size, f), (size_t)st.st_size);
	fclose(f);
	ck_assert_int_eq(EVP_Digest(stored, (size_t)st.st_size, digest, NULL, EVP_sha256(), NULL), 1);
	for (i = 0; i < 32; i++)
		sprintf(want_hex + 2 * i, "%02x", digest[i]);
	source_sha256_hex(s, hex);
	ck_assert_str_eq(hex, want_hex);
	free(stored);
	free(out);
	free(want);
	source_close(s);
}
END_TEST

/* ---- source_drain ---- */

START_TEST(test_drain_plain)
{
	unsigned char *want = pattern(BIG_LEN);
	unsigned char first[10];
	struct source *s;

	write_file(want, BIG_LEN);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(source_read(s, first, sizeof first), 10);
	ck_assert_mem_eq(first, want, 10);
	ck_assert_int_eq(source_drain(s), 0);
	ck_assert_uint_eq(source_stored_bytes(s), BIG_LEN);
	assert_sha(s, SHA_BIG);
	free(want);
	source_close(s);
}
END_TEST

START_TEST(test_drain_gzip_unread)
{
	struct source *s;

	write_file(two_members, sizeof two_members);
	s = source_open(path);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(source_drain(s), 0);
	ck_assert_uint_eq(source_stored_bytes(s), 52);
	assert_sha(s, SHA_TWO);
	source_close(s);
}
END_TEST

/* ---- standard input ---- */

/* Runs with fd 0 replaced by fd; restored afterwards. */
static struct source *open_stdin_from(int fd, const char *name)
{
	struct source *s;

	ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	s = source_open(name);
	ck_assert_ptr_nonnull(s);
	return s;
}

START_TEST(test_stdin_file)
{
	static const char *const names[] = { "-", NULL };
	int saved = dup(STDIN_FILENO), k;

	ck_assert_int_ge(saved, 0);
	write_file("hello world\n", 12);
	for (k = 0; k < 2; k++) {
		int fd = open(path, O_RDONLY);
		struct source *s;
		unsigned char *out;
		size_t len;

		ck_assert_int_ge(fd, 0);
		s = open_stdin_from(fd, names[k]);
		close(fd);
			out = read_all(s, 7, &len);
		ck_assert_uint_eq(len, 12);
		ck_assert_mem_eq(out, "hello world\n", 12);
		ck_assert_uint_eq(source_stored_bytes(s), 12);
		assert_sha(s, SHA_HELLO);
		free(out);
		source_close(s);
		/* standard input is not the source's to close */
		ck_assert_int_ne(fcntl(STDIN_FILENO, F_GETFD), -1);
	}
	dup2(saved, STDIN_FILENO);
	close(saved);
}
END_TEST

/* The writer of a pipe: the rest of two_members once the reader has taken
 * the first byte from the pipe, so that the first read of source_open gets
 * one byte whatever the scheduling. */
static void *write_rest(void *arg)
{
	int fd = *(int *)arg;
	int queued = 1, ok;

	while (ioctl(fd, FIONREAD, &queued) == 0 && queued > 0)
		sched_yield();
	ok = queued == 0 &&
	     write(fd, two_members + 1, sizeof two_members - 1) == (ssize_t)sizeof two_members - 1;
	close(fd);
	return ok ? NULL : arg;
}

START_TEST(test_stdin_pipe_one_byte_first)
{
	int saved = dup(STDIN_FILENO), p[2];
	void *failed;
	pthread_t writer;
	struct source *s;
	unsigned char *out;
	size_t len;

	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], two_members, 1), 1);
	ck_assert_int_eq(pthread_create(&writer, NULL, write_rest, &p[1]), 0);
	ck_assert_int_eq(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	close(p[0]);
	s = source_open("-");
	ck_assert_ptr_nonnull(s);
	out = read_all(s, 4096, &len);
	ck_assert_int_eq(pthread_join(writer, &failed), 0);
	ck_assert_ptr_null(failed);
	ck_assert_uint_eq(len, 12);
	ck_assert_mem_eq(out, "hello world\n", 12);
	ck_assert_uint_eq(source_stored_bytes(s), 52);
	assert_sha(s, SHA_TWO);
	free(out);
	source_close(s);
	dup2(saved, STDIN_FILENO);
	close(saved);
}
END_TEST

/* ---- cannot open ---- */

START_TEST(test_missing)
{
	errno = 0;
	ck_assert_ptr_null(source_open("/nonexistent/check_source/in.json"));
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* A directory opens but cannot be read: the first read's error. */
START_TEST(test_directory)
{
	errno = 0;
	ck_assert_ptr_null(source_open(dir));
	ck_assert_int_eq(errno, EISDIR);
}
END_TEST

static Suite *source_suite(void)
{
	Suite *s = suite_create("source");
	TCase *plain = tcase_create("plain");
	TCase *gz = tcase_create("gzip");
	TCase *more = tcase_create("drain, stdin, open");

	tcase_add_checked_fixture(plain, setup, teardown);
	tcase_add_checked_fixture(gz, setup, teardown);
	tcase_add_checked_fixture(more, setup, teardown);
	tcase_set_timeout(plain, 60);
	tcase_set_timeout(gz, 60);
	tcase_set_timeout(more, 60);
	tcase_add_test(plain, test_plain);
	tcase_add_test(plain, test_empty);
	tcase_add_test(plain, test_read_zero_bytes);
	tcase_add_test(plain, test_one_magic_byte_is_plain);
	tcase_add_test(plain, test_plain_big);
	suite_add_tcase(s, plain);
	tcase_add_test(gz, test_gzip_two_members);
	tcase_add_loop_test(gz, test_gzip_damaged, 0,
			    (int)(sizeof damage_cases / sizeof damage_cases[0]));
	tcase_add_test(gz, test_gzip_big);
	suite_add_tcase(s, gz);
	tcase_add_test(more, test_drain_plain);
	tcase_add_test(more, test_drain_gzip_unread);
	tcase_add_test(more, test_stdin_file);
	tcase_add_test(more, test_stdin_pipe_one_byte_first);
	tcase_add_test(more, test_missing);
	tcase_add_test(more, test_directory);
	suite_add_tcase(s, more);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(source_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
