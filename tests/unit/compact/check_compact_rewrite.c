/* Unit tests for common/compact/compact_rewrite.c: the exact bytes of a moved
 * event -- pid and tid replaced wherever they stand, the record appended as
 * the last member of args (or in a new args), every other byte kept -- and
 * the refusals. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact.h"
#include "compact/compact_rewrite.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct rewrite_case {
	const char *line;
	const char *pid;
	long long tid;
	unsigned long long index;
	int rc;
	const char *want;   /* the line, or the refusal */
};

static const struct rewrite_case cases[] = {
	{ "{\"ph\":\"X\",\"pid\":1,\"tid\":7,\"ts\":1,\"dur\":2,\"args\":{\"stream\":7}}", "1",
	  2113929216, 5, 0,
	  "{\"ph\":\"X\",\"pid\":1,\"tid\":2113929216,\"ts\":1,\"dur\":2,\"args\":{\"stream\":7,"
	  "\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":5,"
	  "\"had_args\":true}}}" },
	/* no args: a new one at the end of the event */
	{ "{\"ph\":\"f\",\"id\":3,\"pid\":\"p\",\"tid\":\"s 1\",\"ts\":1}", "\"p\"", 2113929217, 0, 0,
	  "{\"ph\":\"f\",\"id\":3,\"pid\":\"p\",\"tid\":2113929217,\"ts\":1,\"args\":{"
	  "\"_compact_gpu_track\":{\"pid\":\"p\",\"tid\":\"s 1\",\"source_event_index\":0,"
	  "\"had_args\":false}}}" },
	/* empty args: no comma before the record */
	{ "{\"args\":{},\"tid\":2,\"pid\":1}", "2130706432", 2113929216, 9, 0,
	  "{\"args\":{\"_compact_gpu_track\":{\"pid\":1,\"tid\":2,\"source_event_index\":9,"
	  "\"had_args\":true}},\"tid\":2113929216,\"pid\":2130706432}" },
	/* the numbers as %lld writes them, one and two digits at a time */
	{ "{\"pid\":1,\"tid\":2}", "1", 0, 100, 0,
	  "{\"pid\":1,\"tid\":0,\"args\":{\"_compact_gpu_track\":{\"pid\":1,\"tid\":2,"
	  "\"source_event_index\":100,\"had_args\":false}}}" },
	{ "{\"pid\":1,\"tid\":2}", "1", 9, 10, 0,
	  "{\"pid\":1,\"tid\":9,\"args\":{\"_compact_gpu_track\":{\"pid\":1,\"tid\":2,"
	  "\"source_event_index\":10,\"had_args\":false}}}" },
	{ "{\"pid\":1,\"tid\":2}", "1", -1000, 99, 0,
	  "{\"pid\":1,\"tid\":-1000,\"args\":{\"_compact_gpu_track\":{\"pid\":1,\"tid\":2,"
	  "\"source_event_index\":99,\"had_args\":false}}}" },
	{ "{\"pid\":1,\"tid\":2}", "1", -9223372036854775807LL - 1, 12345678901234567ULL, 0,
	  "{\"pid\":1,\"tid\":-9223372036854775808,\"args\":{\"_compact_gpu_track\":{"
	  "\"pid\":1,\"tid\":2,\"source_event_index\":12345678901234567,"
	  "\"had_args\":false}}}" },
	{ "{\"ph\":\"X\",\"pid\":1}", "1", 1, 4, COMPACT_REFUSED,
	  "event 4: GPU event without pid and tid" },
	{ "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"args\":[1]}", "1", 1, 6, COMPACT_REFUSED,
	  "event 6: args is not an object" },
};

START_TEST(test_rewrite)
{
	static const char *const keys[] = { "pid", "tid", "args" };
	const struct rewrite_case *c = &cases[_i];
	struct member m[3];
	struct buf out = BUF_INIT, msg = BUF_INIT;
	int rc;

	event_members(c->line, strlen(c->line), keys, 3, m);
	rc = compact_rewrite(c->line, strlen(c->line), m, c->index, c->pid, c->tid, &out, &msg);
	ck_assert_int_eq(rc, c->rc);
	ck_assert_str_eq(rc == 0 ? out.p : msg.p, c->want);
	buf_release(&out);
	buf_release(&msg);
}
END_TEST

static Suite *rewrite_suite(void)
{
	Suite *s = suite_create("compact_rewrite");
	TCase *tc = tcase_create("rewrite");

	tcase_add_loop_test(tc, test_rewrite, 0, (int)COUNT(cases));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rewrite_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
