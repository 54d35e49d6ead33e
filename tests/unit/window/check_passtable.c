/* Unit tests for common/window/passtable.c: the table of a stream read once, its
 * bytes counted from the definition (each event line, newline included, in
 * every pass its interval overlaps); the same table from members found by
 * scan_text_valid_members; no guides (empty, or refused when the table is
 * asked for); a guide without its args; a temporary file that cannot be
 * written. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "window/passtable.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int spill_fd(void)
{
	const char *dir;
	int fd = io_open_spill("check_passtable", &dir);

	ck_assert_int_ge(fd, 0);
	return fd;
}

#define ORIGIN "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"ts\":0,\"args\":{\"name\":\"p\"}}"
#define G0 "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,\"tid\":9,\"ts\":100," \
	"\"dur\":50,\"args\":{\"pass_index\":0,\"layer_id\":0}}"
#define G1 "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,\"tid\":9,\"ts\":300," \
	"\"dur\":20,\"args\":{\"pass_index\":1,\"layer_id\":0}}"
#define K1 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":0,\"tid\":7,\"ts\":90,\"dur\":20}"
#define K2 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":10}"
#define K3 "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"both passes\",\"pid\":0,\"tid\":8,\"ts\":140," \
	"\"dur\":170}"
#define I1 "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":305,\"s\":\"t\"}"

static const char *const lines[] = { ORIGIN, K1, G0, K2, K3, G1, I1 };

/* Each line through passtable_event, or with its members found by
 * scan_text_valid_members (found set: they must be vouched for). */
static void feed(struct passtable *t, const char *const *v, size_t n, int found)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t len = strlen(v[i]);
		if (found) {
			struct scan_span m[SCAN_WANT_MAX];
			ck_assert_int_eq(scan_text_valid_members(v[i], len, &t->want, m), 1);
			ck_assert_int_eq(passtable_event_found(t, v[i], len, m), PASSTABLE_OK);
		} else {
			ck_assert_int_eq(passtable_event(t, v[i], len), PASSTABLE_OK);
		}
	}
}

START_TEST(test_table)
{
	struct passtable t;
	struct buf table = BUF_INIT;
	char want[256];

	ck_assert_int_eq(passtable_init(&t, spill_fd()), PASSTABLE_OK);
	feed(&t, lines, COUNT(lines), _i);
	ck_assert_int_eq(passtable_finish(&t, 0, &table), PASSTABLE_OK);
	/* pass 0 [100, 150] us: K1, G0, K3; pass 1 [300, 320]: K3, G1, I1 */
	snprintf(want, sizeof want,
		 "pass 0: 0.100000-0.150000 ms from the trace start, %zu bytes of events\n"
		 "pass 1: 0.300000-0.320000 ms from the trace start, %zu bytes of events\n",
		 strlen(K1) + strlen(G0) + strlen(K3) + 3, strlen(K3) + strlen(G1) + strlen(I1) + 3);
	ck_assert_str_eq(table.p, want);
	buf_release(&table);
	passtable_free(&t);
}
END_TEST

START_TEST(test_no_guides)
{
	static const char *const events[] = { ORIGIN, K1, K2 };
	struct passtable t;
	struct buf table = BUF_INIT;

	ck_assert_int_eq(passtable_init(&t, spill_fd()), PASSTABLE_OK);
	feed(&t, events, COUNT(events), 0);
	ck_assert_int_eq(passtable_finish(&t, 0, &table), PASSTABLE_OK);
	ck_assert_uint_eq(table.len, 0);
	passtable_free(&t);

	ck_assert_int_eq(passtable_init(&t, spill_fd()), PASSTABLE_OK);
	feed(&t, events, COUNT(events), 0);
	ck_assert_int_eq(passtable_finish(&t, 1, &table), PASSTABLE_REFUSED);
	ck_assert_uint_eq(table.len, 0);
	ck_assert_str_eq(passtable_error(&t), "the stream has no layer guides (cat \"layer_guide\"): "
			 "--list-passes needs a trace annotated by tr-guides or tr-layer-track");
	buf_release(&table);
	passtable_free(&t);
}
END_TEST

START_TEST(test_guide_without_args)
{
	static const char bare[] = "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,"
				   "\"tid\":9,\"ts\":100,\"dur\":50}";
	struct passtable t;

	ck_assert_int_eq(passtable_init(&t, spill_fd()), PASSTABLE_OK);
	ck_assert_int_eq(passtable_event(&t, bare, strlen(bare)), PASSTABLE_REFUSED);
	ck_assert(strstr(passtable_error(&t), "pass_index") != NULL);
	passtable_free(&t);
}
END_TEST

/* the spans go to a descriptor that cannot be written: the flush at the
 * end says so */
START_TEST(test_spill_fails)
{
	struct passtable t;
	struct buf table = BUF_INIT;
	int fd = open("/dev/null", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(passtable_init(&t, fd), PASSTABLE_OK);
	feed(&t, lines, COUNT(lines), 0);
	ck_assert_int_eq(passtable_finish(&t, 0, &table), PASSTABLE_SPILL);
	buf_release(&table);
	passtable_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("passtable");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_table, 0, 2);
	tcase_add_test(tc, test_no_guides);
	tcase_add_test(tc, test_guide_without_args);
	tcase_add_test(tc, test_spill_fails);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
