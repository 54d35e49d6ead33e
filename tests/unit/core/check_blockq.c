/* Unit tests for common/core/blockq.c: bytes put by one thread come out of
 * blockq_take in another exactly and in order, whatever the sizes of the
 * puts (larger than a block included) and of the takes; the end comes
 * after the last byte; a consumer that cancels releases a producer
 * waiting for room (EPIPE), and a consumer waiting for bytes; a writer
 * filling the queue's blocks in place (writer_init_blocks), stopped the
 * same way; blocks filled and read in place. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/blockq.h"
#include "../../oracle.h"
#include "core/io.h"
#include "core/writer.h"

#define TOTAL (3u << 20)

static unsigned char *pattern(void)
{
	unsigned char *p = malloc(TOTAL);
	unsigned x = 12345;
	size_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < TOTAL; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (unsigned char)(x >> 16);
	}
	return p;
}

struct producer {
	struct blockq *q;
	const unsigned char *data;
	size_t total;
	int rc;        /* the first failed put's result, or 0 */
	int err;
	int via_writer;
};

static char *queue_room(void *ctx)
{
	return blockq_room(ctx);
}

static void queue_commit(void *ctx, size_t n)
{
	blockq_commit(ctx, n);
}

/* Puts of 1, 7, 100, ... bytes, up to twice the block size. */
static void *produce(void *arg)
{
	struct producer *pr = arg;
	static const size_t sizes[] = { 1, 7, 100, 4096, 65537, 1000, 3, 200000, 9 };
	size_t at = 0, k = 0;

	if (pr->via_writer) {
		struct writer w;
		writer_init_blocks(&w, pr->q->block_size, queue_room, queue_commit, pr->q);
		while (at < pr->total && pr->rc == 0) {
			size_t n = sizes[k++ % 9];
			if (n > pr->total - at)
				n = pr->total - at;
			pr->rc = writer_put(&w, pr->data + at, n);
			at += n;
		}
		if (pr->rc == 0)
			pr->rc = writer_flush(&w);
		pr->err = errno;
		writer_free(&w);
		blockq_close(pr->q);
		return NULL;
	}
	while (at < pr->total) {
		size_t n = sizes[k++ % 9] * 3;
		if (n > pr->total - at)
			n = pr->total - at;
		if (blockq_put(pr->q, pr->data + at, n) != 0) {
			pr->rc = -1;
			pr->err = errno;
			break;
		}
		at += n;
	}
	blockq_close(pr->q);
	return NULL;
}

static void round_trip(int via_writer)
{
	struct blockq q;
	struct producer pr;
	pthread_t t;
	unsigned char *data = pattern(), *got = malloc(TOTAL + 1);
	size_t at = 0, k = 0;
	long n;

	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(blockq_init(&q, 65536), 0);
	memset(&pr, 0, sizeof pr);
	pr.q = &q;
	pr.data = data;
	pr.total = TOTAL;
	pr.via_writer = via_writer;
	ck_assert_int_eq(pthread_create(&t, NULL, produce, &pr), 0);
	/* takes of 5, 333, 70000 ... bytes */
	for (;;) {
		static const size_t sizes[] = { 5, 333, 70000, 1, 65536 };
		size_t want = sizes[k++ % 5];
		if (want > TOTAL + 1 - at)
			want = TOTAL + 1 - at;
		n = blockq_take(&q, got + at, want);
		if (n == 0)
			break;
		at += (size_t)n;
	}
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(pr.rc, 0);
	ck_assert_uint_eq(at, TOTAL);
	ck_assert(memcmp(got, data, TOTAL) == 0);
	/* the end stays the end */
	ck_assert_int_eq(blockq_take(&q, got, 10), 0);
	blockq_free(&q);
	free(data);
	free(got);
}

START_TEST(bytes_in_order)
{
	round_trip(0);
}
END_TEST

START_TEST(writer_in_blocks)
{
	round_trip(1);
}
END_TEST

/* Nobody takes: the producer fills the blocks and waits; a cancel frees it
 * with EPIPE, and a later put fails at once. */
START_TEST(cancel_frees_producer)
{
	struct blockq q;
	struct producer pr;
	pthread_t t;
	unsigned char *data = pattern();

	ck_assert_int_eq(blockq_init(&q, 4096), 0);
	memset(&pr, 0, sizeof pr);
	pr.q = &q;
	pr.data = data;
	pr.total = TOTAL;
	pr.via_writer = _i;
	ck_assert_int_eq(pthread_create(&t, NULL, produce, &pr), 0);
	blockq_cancel(&q);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(pr.rc, -1);
	ck_assert_int_eq(pr.err, EPIPE);
	ck_assert_int_eq(blockq_put(&q, "x", 1), -1);
	blockq_free(&q);
	free(data);
}
END_TEST

/* One thread: blocks put before the close are all taken, then the end. */
START_TEST(close_after_puts)
{
	struct blockq q;
	char got[16];

	ck_assert_int_eq(blockq_init(&q, 4), 0);
	ck_assert_int_eq(blockq_put(&q, "abcdefghij", 10), 0);  /* three blocks */
	blockq_close(&q);
	ck_assert_int_eq(blockq_take(&q, got, 3), 3);
	ck_assert_int_eq(blockq_take(&q, got + 3, 16), 1);
	ck_assert_int_eq(blockq_take(&q, got + 4, 16), 4);
	ck_assert_int_eq(blockq_take(&q, got + 8, 16), 2);
	ck_assert_int_eq(blockq_take(&q, got + 10, 16), 0);
	ck_assert(memcmp(got, "abcdefghij", 10) == 0);
	blockq_free(&q);
	blockq_free(&q);  /* twice is harmless */
}
END_TEST

/* In place at both ends: blocks filled through blockq_room in pieces of
 * any size up to a block, read through blockq_peek and given back by
 * blockq_advance in parts, come out exactly and in order. */
struct filler {
	struct blockq *q;
	const unsigned char *data;
	int rc;
};

static void *fill_in_place(void *arg)
{
	struct filler *f = arg;
	static const size_t sizes[] = { 1, 4096, 700, 4095, 3 };
	size_t at = 0, k = 0;

	while (at < TOTAL) {
		char *room = blockq_room(f->q);
		size_t n = sizes[k++ % 5];
		if (room == NULL) {
			f->rc = -1;
			break;
		}
		if (n > TOTAL - at)
			n = TOTAL - at;
		memcpy(room, f->data + at, n);
		blockq_commit(f->q, n);
		at += n;
	}
	blockq_close(f->q);
	return NULL;
}

START_TEST(in_place_both_ends)
{
	struct blockq q;
	struct filler f;
	pthread_t t;
	unsigned char *data = pattern(), *got = malloc(TOTAL);
	const char *p;
	size_t at = 0, n, k = 0;

	ck_assert_ptr_nonnull(got);
	ck_assert_int_eq(blockq_init(&q, 4096), 0);
	f.q = &q;
	f.data = data;
	f.rc = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, fill_in_place, &f), 0);
	while ((n = blockq_peek(&q, &p)) > 0) {
		/* all of it, or one byte, or half */
		size_t part = k % 3 == 0 ? n : k % 3 == 1 ? 1 : (n + 1) / 2;
		ck_assert_uint_le(at + part, TOTAL);
		memcpy(got + at, p, part);
		blockq_advance(&q, part);
		at += part;
		k++;
	}
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(f.rc, 0);
	ck_assert_uint_eq(at, TOTAL);
	ck_assert(memcmp(got, data, TOTAL) == 0);
	blockq_free(&q);
	free(data);
	free(got);
}
END_TEST

/* A consumer waiting for bytes that never come is released by a cancel
 * (tr-encode's compressor when the process dies): 0, as at the end. */
static void *wait_for_bytes(void *arg)
{
	const char *p;

	return blockq_peek(arg, &p) == 0 ? arg : NULL;
}

START_TEST(cancel_frees_consumer)
{
	struct blockq q;
	pthread_t t;
	void *ret = NULL;
	char got[4];

	ck_assert_int_eq(blockq_init(&q, 64), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, wait_for_bytes, &q), 0);
	blockq_cancel(&q);
	ck_assert_int_eq(pthread_join(t, &ret), 0);
	ck_assert_ptr_eq(ret, &q);
	/* bytes put before a cancel are not handed out after it */
	blockq_free(&q);
	ck_assert_int_eq(blockq_init(&q, 64), 0);
	ck_assert_int_eq(blockq_put(&q, "ab", 2), 0);
	blockq_cancel(&q);
	ck_assert_int_eq(blockq_take(&q, got, 4), 0);
	ck_assert_ptr_null(blockq_room(&q));
	ck_assert_int_eq(errno, EPIPE);
	blockq_free(&q);
}
END_TEST

static Suite *blockq_suite(void)
{
	Suite *s = suite_create("blockq");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, bytes_in_order);
	tcase_add_test(tc, writer_in_blocks);
	tcase_add_loop_test(tc, cancel_frees_producer, 0, 2);
	tcase_add_test(tc, close_after_puts);
	tcase_add_test(tc, in_place_both_ends);
	tcase_add_test(tc, cancel_frees_consumer);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(blockq_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
