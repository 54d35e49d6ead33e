/* Unit tests for common/core/textspill.c: texts come back exactly by the offset
 * put gave, with the offset of the next, whether they stay in memory or
 * went to the temporary file past the bound; read back in order, backwards
 * and across the read block; texts longer than a block; an offset that put
 * never gave; a TMPDIR that does not exist (errno, no file made). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textspill.h"

/* The i-th text: its length varies from 0 to 40 bytes. */
static size_t text_of(size_t i, char *out)
{
	size_t n = i % 41, k;

	for (k = 0; k < n; k++)
		out[k] = (char)('a' + (i + k) % 26);
	return n;
}

/* n texts through a store of the bound; each read back and checked, in
 * order and then backwards; returns whether the file was made. */
static int round_trip(size_t n, size_t bound)
{
	struct textspill t;
	struct buf out = BUF_INIT;
	uint64_t *at = malloc((n + 1) * sizeof *at), next;
	char want[64];
	size_t i, len;
	int created;

	ck_assert_ptr_nonnull(at);
	textspill_init(&t, bound, "check_textspill");
	for (i = 0; i < n; i++) {
		len = text_of(i, want);
		ck_assert_int_eq(textspill_put(&t, want, len, &at[i]), 0);
	}
	for (i = 0; i < n; i++) {
		len = text_of(i, want);
		ck_assert_int_eq(textspill_get(&t, at[i], &out, &next), 0);
		ck_assert_uint_eq(out.len, len);
		ck_assert_int_eq(memcmp(out.p, want, len), 0);
		ck_assert_int_eq(out.p[len], '\0');
		if (i + 1 < n)
			ck_assert_uint_eq(next, at[i + 1]);
	}
	for (i = n; i-- > 0;) {
		len = text_of(i, want);
		ck_assert_int_eq(textspill_get(&t, at[i], &out, NULL), 0);
		ck_assert_uint_eq(out.len, len);
		ck_assert_int_eq(memcmp(out.p, want, len), 0);
	}
	created = textspill_created(&t);
	textspill_free(&t);
	buf_release(&out);
	free(at);
	return created;
}

START_TEST(test_in_memory)
{
	ck_assert_int_eq(round_trip(0, TEXTSPILL_BOUND), 0);
	ck_assert_int_eq(round_trip(1000, TEXTSPILL_BOUND), 0);
}
END_TEST

START_TEST(test_spilled)
{
	/* past the bound at once, and over many read blocks */
	ck_assert_int_eq(round_trip(3, 1), 1);
	ck_assert_int_eq(round_trip(20000, 100), 1);
	ck_assert_int_eq(round_trip(20000, 5000), 1);
}
END_TEST

START_TEST(test_long_text)
{
	struct textspill t;
	struct buf out = BUF_INIT;
	size_t n = 3 * TEXTSPILL_BLOCK + 5, i;
	char *big = malloc(n);
	uint64_t a, b, c, next;

	ck_assert_ptr_nonnull(big);
	for (i = 0; i < n; i++)
		big[i] = (char)('0' + i % 10);
	textspill_init(&t, 10, "check_textspill");
	ck_assert_int_eq(textspill_put(&t, "x", 1, &a), 0);
	ck_assert_int_eq(textspill_put(&t, big, n, &b), 0);
	ck_assert_int_eq(textspill_put(&t, "yz", 2, &c), 0);
	ck_assert_int_eq(textspill_created(&t), 1);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 5);
	ck_assert_uint_eq(c, 5 + 4 + n);
	ck_assert_int_eq(textspill_get(&t, b, &out, &next), 0);
	ck_assert_uint_eq(out.len, n);
	ck_assert_int_eq(memcmp(out.p, big, n), 0);
	ck_assert_uint_eq(next, c);
	ck_assert_int_eq(textspill_get(&t, a, &out, &next), 0);
	ck_assert_str_eq(out.p, "x");
	ck_assert_uint_eq(next, b);
	ck_assert_int_eq(textspill_get(&t, c, &out, NULL), 0);
	ck_assert_str_eq(out.p, "yz");
	textspill_free(&t);
	buf_release(&out);
	free(big);
}
END_TEST

START_TEST(test_bad_offset)
{
	struct textspill t;
	struct buf out = BUF_INIT;
	uint64_t a;

	textspill_init(&t, 8, "check_textspill");
	ck_assert_int_eq(textspill_put(&t, "abcdefgh", 8, &a), 0);  /* in the file */
	ck_assert_int_eq(textspill_put(&t, "ab", 2, &a), 0);        /* in memory */
	ck_assert_uint_eq(a, 12);
	errno = 0;
	ck_assert_int_eq(textspill_get(&t, 100, &out, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	/* inside the file's text: a length that runs past the file */
	ck_assert_int_eq(textspill_get(&t, 6, &out, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(textspill_get(&t, 13, &out, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	textspill_free(&t);
	buf_release(&out);
}
END_TEST

START_TEST(test_no_tmpdir)
{
	struct textspill t;
	uint64_t a;
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;

	setenv("TMPDIR", "/nonexistent/check_textspill", 1);
	textspill_init(&t, 8, "check_textspill");
	ck_assert_int_eq(textspill_put(&t, "ab", 2, &a), 0);        /* 6 bytes: not yet */
	ck_assert_int_eq(textspill_created(&t), 0);
	textspill_free(&t);
	errno = 0;
	textspill_init(&t, 8, "check_textspill");
	ck_assert_int_eq(textspill_put(&t, "abcd", 4, &a), -1);     /* 8 bytes: the file */
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(textspill_created(&t), 0);
	ck_assert_str_eq(t.dir, "/nonexistent/check_textspill");
	textspill_free(&t);
	if (old != NULL)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("textspill");
	TCase *tc = tcase_create("store");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_in_memory);
	tcase_add_test(tc, test_spilled);
	tcase_add_test(tc, test_long_text);
	tcase_add_test(tc, test_bad_offset);
	tcase_add_test(tc, test_no_tmpdir);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
