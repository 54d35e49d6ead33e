/* Unit tests for common/compact/compact_report.c: the exact lane and scope-process
 * metadata events, the report record (members in tr-compact(1)'s order,
 * counts, retired metadata of moved tracks only, source_sha256 from the
 * tail) and the --summary text, on a small planned and placed stream. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact.h"
#include "../../compact_test.h"
#include "compact/compact_report.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Two overlapping activities on device 0 (a kernel and a memset), a scope,
 * the thread_name of a moved stream and of a CPU thread. */
static const char *const lines[] = {
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,\"dur\":5,"
	"\"args\":{\"device\":0}}",
	"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"b\",\"pid\":1,\"tid\":8,\"ts\":12,\"dur\":5,"
	"\"args\":{\"device\":0}}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"stream 7\"}}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"cpu\"}}",
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"s\",\"pid\":1,\"tid\":7,\"ts\":10,"
	"\"dur\":3}",
};

static const char want_metadata[] =
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2113929216,\"args\":{\"name\":\"GPU lane"
	" 1 (synthetic; device 0)\"}}\n"
	"{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":2113929216,\"args\":{\"sort_inde"
	"x\":-999}}\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2113929217,\"args\":{\"name\":\"GPU lane"
	" 2 (synthetic; device 0)\"}}\n"
	"{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":2113929217,\"args\":{\"sort_inde"
	"x\":-998}}\n"
	"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2130706432,\"tid\":0,\"args\":{\"name\":\"GPU sco"
	"pes (original PID 1)\"}}\n"
	"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2130706432,\"tid\":2113929216,\"args\":{\"name\":"
	"\"GPU scope lane 1 (synthetic; original PID 1)\"}}\n"
	"{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":2130706432,\"tid\":2113929216,\"args\":{\""
	"sort_index\":-999}}\n";

static const char want_record[] =
	"{\"@tr\":\"report\",\"suffix\":\".compact.json\",\"body\":{\"schema_version\":1,\"notice\":\"Co"
	"mpact view: GPU activity is drawn on synthetic display lanes that never overlap."
	" Lanes are not CUDA streams and this is not a runtime change: kernel names, ts, "
	"dur and args.stream are as recorded, and args._compact_gpu_track holds each move"
	"d event's original pid and tid. Use the original trace for stream scheduling and"
	" synchronisation.\",\"max_lanes\":10,\"original_event_count\":5,\"output_event_count\":"
	"11,\"relocated_events\":3,\"relocated_flows\":0,\"new_metadata_count\":7,\"groups\":[{\"p"
	"id\":1,\"display_pid\":1,\"device\":0,\"kind\":\"activity\",\"original_streams\":2,\"origina"
	"l_kernel_streams\":1,\"original_stream_tids\":[7,8],\"original_kernel_stream_tids\":["
	"7],\"kernel_count\":1,\"activity_count\":2,\"lanes\":2,\"lane_tids\":[2113929216,2113929"
	"217],\"peak_concurrency\":2,\"lane_stream_counts\":[{\"lane\":1,\"tid\":2113929216,\"stre"
	"ams\":{\"7\":1}},{\"lane\":2,\"tid\":2113929217,\"streams\":{\"8\":1}}]},{\"pid\":1,\"display_"
	"pid\":2130706432,\"device\":null,\"kind\":\"scope\",\"original_streams\":1,\"original_kern"
	"el_streams\":0,\"original_stream_tids\":[7],\"original_kernel_stream_tids\":[],\"kerne"
	"l_count\":0,\"activity_count\":1,\"lanes\":1,\"lane_tids\":[2113929216],\"peak_concurren"
	"cy\":1,\"lane_stream_counts\":[{\"lane\":1,\"tid\":2113929216,\"streams\":{\"7\":1}}]}],\"re"
	"tired_track_metadata\":[{\"source_event_index\":2,\"event\":{\"ph\":\"M\",\"name\":\"thread_"
	"name\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"stream 7\"}}}],\"source_file\":\"t.json\",\"sour"
	"ce_sha256\":\"ab\",\"tool_version\":\"trace-layers 0.1.0\"}}";

static const char want_summary[] =
	"pid 1 device 0: 2 original streams -> 2 synthetic lanes (1 kernels, 2 GPU events"
	")\n"
	"pid 1 GPU scopes: 1 original streams -> 1 scope lanes in pid 2130706432\n"
	"moved: 3 events, 0 flows; retired 1 thread metadata events (kept in the report)\n"
	"notice: Compact view: GPU activity is drawn on synthetic display lanes that neve"
	"r overlap. Lanes are not CUDA streams and this is not a runtime change: kernel n"
	"ames, ts, dur and args.stream are as recorded, and args._compact_gpu_track holds"
	" each moved event's original pid and tid. Use the original trace for stream sche"
	"duling and synchronisation.\n";

static struct compact *planned(void)
{
	struct compact *c;
	const char *out;
	size_t len, k;

	c = new_compact();
	compact_set_source(c, strdup("t.json"));
	for (k = 0; k < COUNT(lines); k++)
		ck_assert_int_eq(compact_see_event(c, lines[k], strlen(lines[k])), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	for (k = 0; k < COUNT(lines); k++)
		ck_assert_int_eq(compact_place(c, lines[k], strlen(lines[k]), &out, &len), 0);
	return c;
}

START_TEST(test_report)
{
	static const char tail[] = "{\"@tr\":\"tail\",\"source_sha256\":\"ab\"}";
	struct compact *c;
	struct buf b = BUF_INIT;

	c = planned();
	ck_assert_int_eq(compact_report_metadata(c, &b), 0);
	ck_assert_str_eq(b.p, want_metadata);
	ck_assert_uint_eq(stats_of(c).new_metadata, 7);
	/* the metadata counts go into the record: made after it */
	ck_assert_int_eq(compact_report_record(c, tail, sizeof tail - 1, &b), 0);
	ck_assert_str_eq(b.p, want_record);
	ck_assert_int_eq(compact_report_summary(c, &b), 0);
	ck_assert_str_eq(b.p, want_summary);
	compact_free(c);
	buf_release(&b);
}
END_TEST

/* With a layers report in the stream the record is its "compaction" member;
 * a tail without source_sha256 gives null. */
START_TEST(test_layers_member)
{
	static const char tail[] = "{\"@tr\":\"tail\"}";
	static const char prefix[] = "{\"@tr\":\"report\",\"suffix\":\".layers.json\","
				     "\"member\":\"compaction\",\"body\":{\"schema_version\":1,";
	struct compact *c;
	struct buf b = BUF_INIT;

	c = planned();
	compact_set_layers_report(c, 1);
	ck_assert_int_eq(compact_report_record(c, tail, sizeof tail - 1, &b), 0);
	ck_assert(strncmp(b.p, prefix, sizeof prefix - 1) == 0);
	ck_assert_ptr_nonnull(strstr(b.p, ",\"source_sha256\":null,"));
	compact_free(c);
	buf_release(&b);
}
END_TEST

static Suite *report_suite(void)
{
	Suite *s = suite_create("compact_report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, test_report);
	tcase_add_test(tc, test_layers_member);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(report_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
