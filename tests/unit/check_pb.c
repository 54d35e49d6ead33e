/* Unit tests for common/pb.c: varints in their shortest form (0, 127,
 * 128, 300, 2^63, -1 as ten bytes), keys of field numbers past 15, fixed64
 * and doubles little-endian, nested messages with their exact lengths in
 * front (a length past 127 takes two bytes), the depth bound, and the
 * reader: every field read back, truncated and malformed input refused. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static void bytes_eq(const struct pb *w, const char *want, size_t n)
{
	ck_assert_uint_eq(w->b.len, n);
	ck_assert(memcmp(w->b.p, want, n) == 0);
}

START_TEST(test_varints)
{
	unsigned char out[10];

	ck_assert_uint_eq(pb_put_varint(out, 0), 1);
	ck_assert_uint_eq(out[0], 0);
	ck_assert_uint_eq(pb_put_varint(out, 127), 1);
	ck_assert_uint_eq(pb_put_varint(out, 128), 2);
	ck_assert(memcmp(out, "\x80\x01", 2) == 0);
	ck_assert_uint_eq(pb_put_varint(out, 300), 2);
	ck_assert(memcmp(out, "\xac\x02", 2) == 0);
	ck_assert_uint_eq(pb_put_varint(out, UINT64_MAX), 10);
	ck_assert_uint_eq(out[9], 1);
}
END_TEST

START_TEST(test_fields)
{
	struct pb w = PB_INIT;

	pb_varint(&w, 1, 150);
	bytes_eq(&w, "\x08\x96\x01", 3);
	pb_reset(&w);
	pb_int64(&w, 4, -1);
	bytes_eq(&w, "\x20\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
	pb_reset(&w);
	/* field 47, wire type 1: key 377, two bytes */
	pb_fixed64(&w, 47, 0x0102030405060708ULL);
	bytes_eq(&w, "\xf9\x02\x08\x07\x06\x05\x04\x03\x02\x01", 10);
	pb_reset(&w);
	pb_double(&w, 5, 1.0);
	bytes_eq(&w, "\x29\x00\x00\x00\x00\x00\x00\xf0\x3f", 9);
	pb_reset(&w);
	pb_bytes(&w, 2, "hi", 2);
	bytes_eq(&w, "\x12\x02hi", 4);
	pb_release(&w);
}
END_TEST

START_TEST(test_nested)
{
	struct pb w = PB_INIT;
	char big[200];

	pb_begin(&w, 1);
	pb_varint(&w, 8, 5);
	pb_begin(&w, 11);
	pb_varint(&w, 9, 1);
	pb_end(&w);
	pb_end(&w);
	/* 0a 06 | 40 05 | 5a 02 | 48 01 */
	bytes_eq(&w, "\x0a\x06\x40\x05\x5a\x02\x48\x01", 8);
	ck_assert(!pb_failed(&w));
	pb_reset(&w);
	memset(big, 'x', sizeof big);
	pb_begin(&w, 1);
	pb_bytes(&w, 2, big, sizeof big);
	pb_end(&w);
	/* 203 bytes inside: a two-byte length */
	ck_assert_uint_eq(w.b.len, 2 + 1 + 2 + 200 + 1);
	ck_assert(memcmp(w.b.p, "\x0a\xcb\x01\x12\xc8\x01", 6) == 0);
	pb_release(&w);
}
END_TEST

START_TEST(test_bounds)
{
	struct pb w = PB_INIT;
	int i;

	ck_assert_int_eq(pb_end(&w), -1);
	pb_reset(&w);
	for (i = 0; i < PB_MAX_DEPTH; i++)
		ck_assert_int_eq(pb_begin(&w, 1), 0);
	ck_assert_int_eq(pb_begin(&w, 1), -1);
	ck_assert(pb_failed(&w));
	ck_assert_int_eq(pb_varint(&w, 1, 1), -1);
	pb_reset(&w);
	ck_assert(!pb_failed(&w));
	pb_release(&w);
}
END_TEST

START_TEST(test_read_back)
{
	struct pb w = PB_INIT;
	struct pb_field f;
	const unsigned char *p, *end;

	pb_varint(&w, 1, 300);
	pb_fixed64(&w, 47, 42);
	pb_bytes(&w, 60, "abc", 3);
	pb_double(&w, 5, -2.5);
	p = (const unsigned char *)w.b.p;
	end = p + w.b.len;
	ck_assert_int_eq(pb_next(&p, end, &f), 1);
	ck_assert_uint_eq(f.num, 1);
	ck_assert_int_eq(f.wire, PB_VARINT);
	ck_assert_uint_eq(f.v, 300);
	ck_assert_int_eq(pb_next(&p, end, &f), 1);
	ck_assert_uint_eq(f.num, 47);
	ck_assert_uint_eq(f.v, 42);
	ck_assert_int_eq(pb_next(&p, end, &f), 1);
	ck_assert_uint_eq(f.num, 60);
	ck_assert_uint_eq(f.len, 3);
	ck_assert(memcmp(f.data, "abc", 3) == 0);
	ck_assert_int_eq(pb_next(&p, end, &f), 1);
	ck_assert(pb_as_double(f.v) == -2.5);
	ck_assert_int_eq(pb_next(&p, end, &f), 0);
	pb_release(&w);
}
END_TEST

START_TEST(test_read_refusals)
{
	struct pb_field f;
	const unsigned char cut_len[] = { 0x12, 0x05, 'a' };
	const unsigned char cut_varint[] = { 0x08, 0x80 };
	const unsigned char group[] = { 0x0b };
	const unsigned char zero[] = { 0x00, 0x01 };
	const unsigned char eleven[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0xff, 0xff, 0x01 };
	const unsigned char *p;

	p = cut_len;
	ck_assert_int_eq(pb_next(&p, cut_len + sizeof cut_len, &f), -1);
	p = cut_varint;
	ck_assert_int_eq(pb_next(&p, cut_varint + sizeof cut_varint, &f), -1);
	p = group;
	ck_assert_int_eq(pb_next(&p, group + 1, &f), -1);
	p = zero;
	ck_assert_int_eq(pb_next(&p, zero + 2, &f), -1);
	p = eleven;
	ck_assert_int_eq(pb_next(&p, eleven + sizeof eleven, &f), -1);
}
END_TEST

static Suite *pb_suite(void)
{
	Suite *s = suite_create("pb");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, test_varints);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_nested);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_read_back);
	tcase_add_test(tc, test_read_refusals);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pb_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
