/* Unit tests for common/core/intern.c: dense ids 0, 1, 2, ... in first-seen
 * order; an equal key gets its id back, a key never added is not found.
 * Keys are byte strings: the empty key, keys with NUL bytes, keys that are
 * prefixes of each other.  100000 keys, across every doubling of the table
 * and of the key array, all found again with their ids; the table's copy of
 * each key is NUL-terminated; intern_free leaves an empty table that works
 * again. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/intern.h"

#define S(lit) lit, sizeof(lit) - 1

START_TEST(test_empty_table)
{
	struct intern t = { 0 };

	ck_assert_int_eq(intern_find(&t, S("a")), -1);
	ck_assert_int_eq(intern_find(&t, "", 0), -1);
	intern_free(&t);
}
END_TEST

START_TEST(test_first_seen_order)
{
	struct intern t = { 0 };

	ck_assert_int_eq(intern_id(&t, S("12,7")), 0);
	ck_assert_int_eq(intern_id(&t, S("12,8")), 1);
	ck_assert_int_eq(intern_id(&t, S("12,7")), 0);
	ck_assert_int_eq(intern_id(&t, S("3,3")), 2);
	ck_assert_int_eq(intern_id(&t, S("12,8")), 1);
	ck_assert_uint_eq(t.n, 3);
	ck_assert_int_eq(intern_find(&t, S("12,7")), 0);
	ck_assert_int_eq(intern_find(&t, S("12,8")), 1);
	ck_assert_int_eq(intern_find(&t, S("3,3")), 2);
	ck_assert_int_eq(intern_find(&t, S("3,4")), -1);
	/* finding adds nothing */
	ck_assert_uint_eq(t.n, 3);
	ck_assert_str_eq(t.keys[1], "12,8");
	ck_assert_uint_eq(t.lens[1], 4);
	intern_free(&t);
}
END_TEST

/* The length is part of the key: prefixes, the empty key, NUL bytes. */
START_TEST(test_byte_strings)
{
	struct intern t = { 0 };

	ck_assert_int_eq(intern_id(&t, S("ab")), 0);
	ck_assert_int_eq(intern_id(&t, S("a")), 1);
	ck_assert_int_eq(intern_id(&t, "", 0), 2);
	ck_assert_int_eq(intern_id(&t, S("a\0b")), 3);
	ck_assert_int_eq(intern_id(&t, S("a\0c")), 4);
	ck_assert_int_eq(intern_id(&t, S("\0")), 5);
	ck_assert_int_eq(intern_id(&t, S("\0\0")), 6);
	ck_assert_int_eq(intern_id(&t, S("abc")), 7);
	/* only the first len bytes count */
	ck_assert_int_eq(intern_id(&t, "abX", 2), 0);
	ck_assert_int_eq(intern_find(&t, "a\0bZ", 3), 3);
	ck_assert_int_eq(intern_find(&t, "", 0), 2);
	ck_assert_int_eq(intern_find(&t, S("\0")), 5);
	ck_assert_int_eq(intern_find(&t, S("\0\0\0")), -1);
	ck_assert_int_eq(intern_find(&t, S("a\0")), -1);
	ck_assert_uint_eq(t.n, 8);
	/* copies with their length, NUL-terminated */
	ck_assert_uint_eq(t.lens[3], 3);
	ck_assert_mem_eq(t.keys[3], "a\0b", 4);
	ck_assert_uint_eq(t.lens[2], 0);
	ck_assert_str_eq(t.keys[2], "");
	intern_free(&t);
}
END_TEST

/* The key is copied: the caller's buffer may change afterwards. */
START_TEST(test_key_copied)
{
	struct intern t = { 0 };
	char key[] = "7,9";

	ck_assert_int_eq(intern_id(&t, key, 3), 0);
	key[0] = '8';
	ck_assert_int_eq(intern_find(&t, key, 3), -1);
	ck_assert_int_eq(intern_find(&t, S("7,9")), 0);
	ck_assert_str_eq(t.keys[0], "7,9");
	intern_free(&t);
}
END_TEST

#define MANY 100000

static size_t key_of(char *key, size_t i)
{
	/* what the filters intern: "pid,tid" text */
	return (size_t)sprintf(key, "%zu,%zu", i / 7, i % 7 * 1000003u);
}

START_TEST(test_many)
{
	struct intern t = { 0 };
	char key[64];
	size_t i, len;

	for (i = 0; i < MANY; i++) {
		len = key_of(key, i);
		ck_assert_int_eq(intern_id(&t, key, len), (int64_t)i);
		/* the table is never more than half full */
		ck_assert_uint_le((size_t)t.n * 2, t.nslots);
	}
	ck_assert_uint_eq(t.n, MANY);
	/* 64 slots doubled until 2 * 100000 fit: 262144 */
	ck_assert_uint_eq(t.nslots, 262144);
	for (i = 0; i < MANY; i++) {
		len = key_of(key, i);
		ck_assert_int_eq(intern_find(&t, key, len), (int64_t)i);
		ck_assert_int_eq(intern_id(&t, key, len), (int64_t)i);
		ck_assert_str_eq(t.keys[i], key);
	}
	ck_assert_uint_eq(t.n, MANY);
	/* keys never added, with the same shape */
	for (i = MANY; i < MANY + 1000; i++) {
		len = key_of(key, i);
		ck_assert_int_eq(intern_find(&t, key, len), -1);
	}
	intern_free(&t);
}
END_TEST

START_TEST(test_free_and_reuse)
{
	struct intern t = { 0 };

	ck_assert_int_eq(intern_id(&t, S("x")), 0);
	ck_assert_int_eq(intern_id(&t, S("y")), 1);
	intern_free(&t);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_ptr_null(t.slots);
	ck_assert_int_eq(intern_find(&t, S("x")), -1);
	ck_assert_int_eq(intern_id(&t, S("y")), 0);
	intern_free(&t);
	/* freeing an empty table is harmless */
	intern_free(&t);
}
END_TEST

static Suite *intern_suite(void)
{
	Suite *s = suite_create("intern");
	TCase *tc = tcase_create("ids");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_empty_table);
	tcase_add_test(tc, test_first_seen_order);
	tcase_add_test(tc, test_byte_strings);
	tcase_add_test(tc, test_key_copied);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_free_and_reuse);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(intern_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
