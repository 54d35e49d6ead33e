/* Unit tests for common/core/extsort.c: records come back in key order,
 * equal keys in the order they were put, whether they stay in memory (one
 * run) or go through the file (many runs, a merge); nothing put gives
 * nothing back; keys past 2^53 compare exactly; without a comparison the
 * order of put is kept. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/extsort.h"

struct rec {
	int64_t key;
	uint32_t seq;   /* the order of put */
	uint32_t pad;
};

static int cmp_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* n records with keys key_of(i), through a sort whose runs hold run_recs
 * records; checks order, stability, that each record comes back once with
 * its key; returns the runs. */
static size_t sort_and_check(size_t n, size_t run_recs, int64_t (*key_of)(size_t))
{
	struct extsort s;
	const void *p;
	struct rec r, prev = { 0, 0, 0 };
	size_t i, got = 0, runs;
	unsigned char *seen = calloc(n + 1, 1);
	int rc;

	ck_assert_ptr_nonnull(seen);
	ck_assert_int_eq(extsort_init(&s, sizeof r, run_recs * sizeof r, cmp_key,
					   "check_extsort"), 0);
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof r);
		r.key = key_of(i);
		r.seq = (uint32_t)i;
		ck_assert_int_eq(extsort_put(&s, &r), 0);
	}
	ck_assert_int_eq(extsort_finish(&s), 0);
	while ((rc = extsort_next(&s, &p)) == 1) {
		memcpy(&r, p, sizeof r);
		ck_assert_uint_lt(r.seq, n);
		ck_assert_int_eq(seen[r.seq], 0);
		seen[r.seq] = 1;
		ck_assert_int_eq(r.key, key_of(r.seq));
		if (got > 0) {
			ck_assert(prev.key <= r.key);
			if (prev.key == r.key)
				ck_assert_uint_lt(prev.seq, r.seq);
		}
		prev = r;
		got++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(got, n);
	runs = s.nspilled;
	extsort_free(&s);
	free(seen);
	return runs;
}

static int64_t key_scrambled(size_t i)
{
	return (int64_t)((i * 2654435761u) % 1000003u);
}

static int64_t key_few(size_t i)
{
	return (int64_t)((i * 7u) % 5u);  /* many equal keys */
}

static int64_t key_big(size_t i)
{
	/* past 2^53, where a double would merge neighbours */
	return ((int64_t)1 << 53) + (int64_t)((i * 31u) % 17u) - 8;
}

static int64_t key_desc(size_t i)
{
	return -(int64_t)i;
}

static int64_t key_sorted(size_t i)
{
	return (int64_t)(i / 3);  /* in order already, ties included */
}

static int64_t key_nearly(size_t i)
{
	/* in order but for one record in 500, which belongs far earlier:
	 * long runs whose merges copy most records */
	return i % 500 == 499 ? (int64_t)(i / 7) : (int64_t)i;
}

static int64_t key_sawtooth(size_t i)
{
	/* rising runs of 40 and of 3 keys, overlapping, with equal keys across
	 * runs: merges where both sides interleave and where ties decide */
	return i % 2000 < 1000 ? (int64_t)(i % 40) : (int64_t)(i % 3) * 20;
}

START_TEST(test_runs_in_the_records)
{
	/* records put (nearly) in order: the sort merges the runs it finds */
	ck_assert_uint_eq(sort_and_check(100000, 100000, key_sorted), 0);
	ck_assert_uint_eq(sort_and_check(100000, 100000, key_nearly), 0);
	ck_assert_uint_eq(sort_and_check(100000, 30000, key_nearly), 4);
	ck_assert_uint_eq(sort_and_check(100000, 100000, key_sawtooth), 0);
	ck_assert_uint_eq(sort_and_check(9999, 1000, key_sawtooth), 10);
	ck_assert_uint_eq(sort_and_check(100000, 100000, key_desc), 0);
	/* fewer records than one insertion-sorted stretch, and one more */
	ck_assert_uint_eq(sort_and_check(31, 1000, key_desc), 0);
	ck_assert_uint_eq(sort_and_check(33, 1000, key_scrambled), 0);
}
END_TEST

START_TEST(test_empty)
{
	struct extsort s;
	const void *p;

	ck_assert_int_eq(extsort_init(&s, 16, 1024, cmp_key, "check_extsort"), 0);
	ck_assert_int_eq(extsort_finish(&s), 0);
	ck_assert_int_eq(extsort_next(&s, &p), 0);
	ck_assert_int_eq(extsort_next(&s, &p), 0);
	ck_assert_uint_eq(s.nspilled, 0);
	extsort_free(&s);
}
END_TEST

START_TEST(test_one_run)
{
	/* fits in the run buffer: no file */
	ck_assert_uint_eq(sort_and_check(1000, 1000, key_scrambled), 0);
	ck_assert_uint_eq(sort_and_check(1, 4, key_scrambled), 0);
	ck_assert_uint_eq(sort_and_check(999, 1000, key_few), 0);
}
END_TEST

START_TEST(test_many_runs)
{
	ck_assert_uint_eq(sort_and_check(1001, 1000, key_scrambled), 2);
	ck_assert_uint_eq(sort_and_check(100000, 1000, key_scrambled), 100);
	/* over EXTSORT_FANIN runs: the first ones merged into one first */
	ck_assert_uint_eq(sort_and_check(300000, 1000, key_scrambled), 300);
	/* runs longer than one read buffer, and a run of one record */
	ck_assert_uint_eq(sort_and_check(20001, 5000, key_desc), 5);
}
END_TEST

START_TEST(test_stable_equal_keys)
{
	ck_assert_uint_eq(sort_and_check(50000, 777, key_few), 65);
	ck_assert_uint_eq(sort_and_check(5000, 3, key_few), 1667);
}
END_TEST

START_TEST(test_big_keys)
{
	ck_assert_uint_eq(sort_and_check(3000, 100, key_big), 30);
	ck_assert_uint_eq(sort_and_check(300, 1000, key_big), 0);
}
END_TEST

START_TEST(test_no_comparison)
{
	struct extsort s;
	const void *p;
	struct rec r;
	size_t i, n = 12345;
	int rc;

	ck_assert_int_eq(extsort_init(&s, sizeof r, 100 * sizeof r, NULL,
					   "check_extsort"), 0);
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof r);
		r.key = key_scrambled(i);
		r.seq = (uint32_t)i;
		ck_assert_int_eq(extsort_put(&s, &r), 0);
	}
	ck_assert_int_eq(extsort_finish(&s), 0);
	ck_assert_uint_eq(s.nspilled, 124);
	for (i = 0; (rc = extsort_next(&s, &p)) == 1; i++) {
		memcpy(&r, p, sizeof r);
		ck_assert_uint_eq(r.seq, i);
		ck_assert_int_eq(r.key, key_scrambled(i));
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(i, n);
	extsort_free(&s);
}
END_TEST

START_TEST(test_bad_size)
{
	struct extsort s;

	ck_assert_int_eq(extsort_init(&s, 64, 63, cmp_key, "check_extsort"), -1);
	ck_assert_int_eq(extsort_init(&s, 0, 63, cmp_key, "check_extsort"), -1);
}
END_TEST

static Suite *sort_suite(void)
{
	Suite *s = suite_create("extsort");
	TCase *tc = tcase_create("sort");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_one_run);
	tcase_add_test(tc, test_many_runs);
	tcase_add_test(tc, test_stable_equal_keys);
	tcase_add_test(tc, test_big_keys);
	tcase_add_test(tc, test_runs_in_the_records);
	tcase_add_test(tc, test_no_comparison);
	tcase_add_test(tc, test_bad_size);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sort_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
