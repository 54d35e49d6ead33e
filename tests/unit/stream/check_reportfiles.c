/* Unit tests for common/stream/reportfiles.c: report records assembled into their
 * files (body, members before and after it, items appended to an array
 * member, several files at once, the layout), with exact file bytes, and
 * every refusal with its exact message. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/outfile.h"
#include "stream/reportfiles.h"

static char dir[] = "/tmp/check_reportfiles.XXXXXX";
static char base[64];

static void setup(void)
{
	strcpy(dir, "/tmp/check_reportfiles.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(base, sizeof base, "%s/out.json", dir);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Collect each record (lines 1, 2, ...), finish, place the files. */
static void run_records(struct reportfiles *rs, const char *const *records, unsigned indent)
{
	struct buf msg = BUF_INIT;
	size_t i;

	reportfiles_init(rs, base, indent);
	for (i = 0; records[i] != NULL; i++)
		ck_assert_int_eq(reportfiles_collect(rs, records[i], strlen(records[i]), i + 1, &msg),
				 REPORTFILES_OK);
	ck_assert_int_eq(reportfiles_finish(rs, &msg), REPORTFILES_OK);
	for (i = 0; i < rs->n; i++)
		ck_assert_int_eq(outfile_commit(&rs->list[i].file), 0);
	buf_release(&msg);
}

/* The status and message of the first record that fails. */
static int refused(const char *const *records, struct buf *msg)
{
	struct reportfiles rs;
	size_t i;
	int rc = REPORTFILES_OK;

	reportfiles_init(&rs, base, 0);
	for (i = 0; records[i] != NULL && rc == REPORTFILES_OK; i++)
		rc = reportfiles_collect(&rs, records[i], strlen(records[i]), i + 1, msg);
	if (rc == REPORTFILES_OK)
		rc = reportfiles_finish(&rs, msg);
	reportfiles_free(&rs);
	return rc;
}

static void file_is(const char *suffix, const char *want)
{
	char path[128], got[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "%s%s", base, suffix);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(got, 1, sizeof got - 1, f);
	got[n] = '\0';
	fclose(f);
	ck_assert_str_eq(got, want);
}

#define R(s) "{\"@tr\":\"report\",\"suffix\":\".x.json\"," s "}"

START_TEST(body_members_items)
{
	static const char *const records[] = {
		R("\"body\":{\"a\":1}"),
		R("\"member\":\"m\",\"body\":\"two\""),
		R("\"member\":\"rows\",\"items\":[1,2]"),
		R("\"member\":\"rows\",\"items\":[]"),
		R("\"member\":\"rows\",\"items\":[3]"),
		R("\"member\":\"z\",\"body\":null"),
		NULL
	};
	struct reportfiles rs;

	run_records(&rs, records, 0);
	file_is(".x.json", "{\"a\":1,\"m\":\"two\",\"rows\":[1,2,3],\"z\":null}\n");
	reportfiles_free(&rs);
}
END_TEST

START_TEST(members_before_body)
{
	static const char *const records[] = {
		R("\"member\":\"m\",\"body\":[1]"),
		R("\"member\":\"n\",\"body\":2"),
		R("\"body\":{\"a\":{\"b\":1}}"),
		NULL
	};
	struct reportfiles rs;

	run_records(&rs, records, 0);
	file_is(".x.json", "{\"a\":{\"b\":1},\"m\":[1],\"n\":2}\n");
	reportfiles_free(&rs);
}
END_TEST

START_TEST(empty_body_and_no_body)
{
	static const char *const records[] = {
		R("\"body\":{}"),
		R("\"member\":\"m\",\"body\":1"),
		"{\"@tr\":\"report\",\"suffix\":\".y.json\",\"member\":\"only\",\"body\":true}",
		"{\"@tr\":\"report\",\"suffix\":\".e.json\",\"body\":{}}",
		NULL
	};
	struct reportfiles rs;

	run_records(&rs, records, 0);
	ck_assert_uint_eq(rs.n, 3);
	file_is(".x.json", "{\"m\":1}\n");
	file_is(".y.json", "{\"only\":true}\n");
	file_is(".e.json", "{}\n");
	reportfiles_free(&rs);
}
END_TEST

/* Two files fed alternately keep their own open arrays. */
START_TEST(interleaved_files)
{
	static const char *const records[] = {
		R("\"body\":{\"k\":0}"),
		"{\"@tr\":\"report\",\"suffix\":\".y.json\",\"body\":{\"k\":1}}",
		R("\"member\":\"rows\",\"items\":[1]"),
		"{\"@tr\":\"report\",\"suffix\":\".y.json\",\"member\":\"rows\",\"items\":[\"a\"]}",
		R("\"member\":\"rows\",\"items\":[2]"),
		NULL
	};
	struct reportfiles rs;

	run_records(&rs, records, 0);
	file_is(".x.json", "{\"k\":0,\"rows\":[1,2]}\n");
	file_is(".y.json", "{\"k\":1,\"rows\":[\"a\"]}\n");
	reportfiles_free(&rs);
}
END_TEST

/* Width 2: Python's json.dump(indent=2) layout, number and string bytes
 * as they came. */
START_TEST(indented)
{
	static const char *const records[] = {
		R("\"body\":{\"a\":1.50,\"s\":\"x\\u00e9\"}"),
		R("\"member\":\"rows\",\"items\":[{\"l\":0},{\"l\":1}]"),
		NULL
	};
	struct reportfiles rs;

	run_records(&rs, records, 2);
	file_is(".x.json", "{\n  \"a\": 1.50,\n  \"s\": \"x\\u00e9\",\n  \"rows\": [\n"
		"    {\n      \"l\": 0\n    },\n    {\n      \"l\": 1\n    }\n  ]\n}\n");
	reportfiles_free(&rs);
}
END_TEST

static void refusal_is(const char *const *records, int status, const char *want)
{
	struct buf msg = BUF_INIT;

	ck_assert_int_eq(refused(records, &msg), status);
	ck_assert_str_eq(msg.p, want);
	buf_release(&msg);
}

START_TEST(refusals)
{
	static const char *const before_body[] = { R("\"member\":\"r\",\"items\":[1]"), NULL };
	static const char *const second_body[] = { R("\"body\":{}"), R("\"body\":{}"), NULL };
	static const char *const came_between[] = {
		R("\"body\":{}"), R("\"member\":\"r\",\"items\":[1]"),
		R("\"member\":\"m\",\"body\":1"), R("\"member\":\"r\",\"items\":[2]"), NULL };
	static const char *const bad_suffix[] = {
		"{\"@tr\":\"report\",\"suffix\":\".X.json\",\"body\":{}}", NULL };
	static const char *const no_suffix[] = { "{\"@tr\":\"report\",\"body\":{}}", NULL };
	static const char *const body_not_object[] = { R("\"body\":[1]"), NULL };
	static const char *const items_not_array[] = {
		R("\"body\":{}"), R("\"member\":\"r\",\"items\":1"), NULL };
	static const char *const items_and_body[] = {
		R("\"member\":\"r\",\"body\":1,\"items\":[1]"), NULL };
	const char *needs = "line 1: a report record needs a string \"suffix\" and an object "
		"\"body\", or a \"member\" and its value (\"body\") or an array \"items\"";

	refusal_is(before_body, REPORTFILES_INPUT,
		   "line 1: report items for .x.json before its body");
	refusal_is(second_body, REPORTFILES_INPUT, "line 2: a second report body for .x.json");
	refusal_is(came_between, REPORTFILES_INPUT, "line 4: report items for member \"r\" of "
		   ".x.json after another member came between");
	refusal_is(bad_suffix, REPORTFILES_INPUT, "line 1: report suffix must look like "
		   ".name.json (lowercase letters, digits, '.', '-', '_')");
	refusal_is(no_suffix, REPORTFILES_INPUT, needs);
	refusal_is(body_not_object, REPORTFILES_INPUT, needs);
	refusal_is(items_and_body, REPORTFILES_INPUT, needs);
	refusal_is(items_not_array, REPORTFILES_INPUT, "line 2: a report record needs a string "
		   "\"suffix\" and an object \"body\", or a \"member\" and its value (\"body\") "
		   "or an array \"items\"");
}
END_TEST

START_TEST(too_many_files)
{
	char records_text[9][96];
	const char *records[10];
	int i;

	for (i = 0; i < 9; i++) {
		snprintf(records_text[i], sizeof records_text[i],
			 "{\"@tr\":\"report\",\"suffix\":\".r%d.json\",\"body\":{}}", i);
		records[i] = records_text[i];
	}
	records[9] = NULL;
	refusal_is(records, REPORTFILES_INPUT, "more than 8 report files requested");
}
END_TEST

/* An existing file is never replaced: refused when the body arrives, and
 * nothing else appears. */
START_TEST(existing_file)
{
	static const char *const records[] = { R("\"body\":{}"), NULL };
	char path[128], want[256];
	FILE *f;

	snprintf(path, sizeof path, "%s.x.json", base);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("keep", f);
	fclose(f);
	snprintf(want, sizeof want, "%s: report exists; refusing to overwrite it", path);
	refusal_is(records, REPORTFILES_TROUBLE, want);
	file_is(".x.json", "keep");
}
END_TEST

/* A base in a directory that does not exist: the path and the reason. */
START_TEST(cannot_create)
{
	static const char *const records[] = { R("\"body\":{}"), NULL };
	char want[256];

	snprintf(base, sizeof base, "%s/missing/out.json", dir);
	snprintf(want, sizeof want, "%s.x.json: No such file or directory", base);
	refusal_is(records, REPORTFILES_TROUBLE, want);
}
END_TEST

/* Freed unplaced, the temporary files are gone: the directory is empty. */
START_TEST(free_removes_temporaries)
{
	static const char *const records[] = { R("\"body\":{\"a\":1}"), NULL };
	struct reportfiles rs;
	struct buf msg = BUF_INIT;
	char cmd[160];

	reportfiles_init(&rs, base, 0);
	ck_assert_int_eq(reportfiles_collect(&rs, records[0], strlen(records[0]), 1, &msg), 0);
	ck_assert_int_eq(reportfiles_finish(&rs, &msg), 0);
	reportfiles_free(&rs);
	snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
	ck_assert_int_eq(system(cmd), 0);
	buf_release(&msg);
}
END_TEST

static Suite *reportfiles_suite(void)
{
	Suite *s = suite_create("reportfiles");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, body_members_items);
	tcase_add_test(tc, members_before_body);
	tcase_add_test(tc, empty_body_and_no_body);
	tcase_add_test(tc, interleaved_files);
	tcase_add_test(tc, indented);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, too_many_files);
	tcase_add_test(tc, existing_file);
	tcase_add_test(tc, cannot_create);
	tcase_add_test(tc, free_removes_temporaries);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(reportfiles_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
