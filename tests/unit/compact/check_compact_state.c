/* Unit tests for compact_state.h's helpers (in common/compact/compact.c): the
 * refusal's message and status, an event's members on the fast path and
 * through the JSON parser (escapes), a line with escapes that is not JSON,
 * and a group's display pid. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact.h"
#include "../../compact_test.h"
#include "compact/compact_state.h"

START_TEST(test_refuse)
{
	struct compact *c;

	c = new_compact();
	ck_assert_str_eq(compact_message(c), "");
	ck_assert_int_eq(compact_refuse(c, "event %d: %s", 7, "no"), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "event 7: no");
	ck_assert_uint_eq(strlen(compact_message(c)), 11);
	/* a longer one replaces it whole */
	ck_assert_int_eq(compact_refuse(c, "%s", "x"), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "x");
	compact_free(c);
}
END_TEST

static void assert_member(struct member m, const char *want)
{
	if (want == NULL) {
		ck_assert_uint_eq(m.len, 0);
		return;
	}
	ck_assert_uint_eq(m.len, strlen(want));
	ck_assert_int_eq(memcmp(m.p, want, m.len), 0);
}

START_TEST(test_members)
{
	static const char *const keys[] = { "pid", "tid", "args", "dur" };
	static const char plain[] = "{\"pid\":1,\"tid\":\"s 7\",\"args\":{\"a\":[1,2]}}";
	/* with an escape: the parser's answer (a key spelled with an escape
	 * counts as that key) */
	static const char esc[] = "{\"name\":\"a\\\"b\",\"p\\u0069d\":\"x\",\"tid\":2}";
	static const char bad[] = "{\"name\":\"a\\\"b\",\"pid\":1";
	static const char cpu[] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,"
				  "\"tid\":1,\"ts\":0,\"dur\":1}";
	struct compact *c;
	struct member m[4];
	int k;

	c = new_compact();
	ck_assert_int_eq(compact_members(c, plain, sizeof plain - 1, keys, 4, m), COMPACT_OK);
	assert_member(m[0], "1");
	assert_member(m[1], "\"s 7\"");
	assert_member(m[2], "{\"a\":[1,2]}");
	assert_member(m[3], NULL);
	ck_assert_int_eq(compact_members(c, esc, sizeof esc - 1, keys, 4, m), COMPACT_OK);
	assert_member(m[0], "\"x\"");
	assert_member(m[1], "2");
	assert_member(m[2], NULL);
	/* the message names the event by its source index: 41 came before */
	for (k = 0; k < 41; k++)
		ck_assert_int_eq(compact_see_event(c, cpu, sizeof cpu - 1), COMPACT_OK);
	ck_assert_uint_eq(stats_of(c).events, 41);
	ck_assert_int_eq(compact_members(c, bad, sizeof bad - 1, keys, 2, m), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "event 41: not a JSON object");
	compact_free(c);
}
END_TEST

START_TEST(test_display_pid)
{
	struct compact_group g;
	char space[24];

	memset(&g, 0, sizeof g);
	g.pid = "\"Traces\"";
	g.display_pid = -1;
	ck_assert_str_eq(compact_display_pid(&g, space), "\"Traces\"");
	g.display_pid = INT64_C(2130706433);
	ck_assert_str_eq(compact_display_pid(&g, space), "2130706433");
	ck_assert_ptr_eq(compact_display_pid(&g, space), space);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("compact_state");
	TCase *tc = tcase_create("state");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_refuse);
	tcase_add_test(tc, test_members);
	tcase_add_test(tc, test_display_pid);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
