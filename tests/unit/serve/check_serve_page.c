/* Unit tests for common/serve/serve_page.c: HTML escaping, byte counts for
 * people, the plain-words lines of what will open (with reports, without,
 * --no-setup, a window, a selected layer, a query) and the page's order:
 * the button first, the UI address inside the details toggle, escaped, the
 * download link, the script's constants. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "serve/serve_page.h"
#include "serve/ui.h"

static const char layers_report[] =
	"{\"pid\": 3, \"track_name\": \"Layer guide (decode) \xe2\x80\x94 anchor intervals\",\n"
	" \"layers\": [\n"
	"  {\"pass_index\": 0, \"layer_id\": 0, \"guide_start_us\": 100, \"guide_end_us\": 250},\n"
	"  {\"pass_index\": 0, \"layer_id\": 1, \"guide_start_us\": 250, \"guide_end_us\": 400},\n"
	"  {\"pass_index\": 1, \"layer_id\": 0, \"guide_start_us\": 1000, \"guide_end_us\": 1100},\n"
	"  {\"pass_index\": 1, \"layer_id\": 1, \"guide_start_us\": 1100, \"guide_end_us\": 1200}],\n"
	" \"compaction\": {\"groups\": [\n"
	"  {\"display_pid\": 7, \"device\": 0, \"kind\": \"activity\", \"lanes\": 2}]}}\n";

static void add(struct ui_view *v, const char *text)
{
	struct buf why = BUF_INIT;

	ck_assert_int_eq(ui_view_add_report(v, text, strlen(text), &why), UI_OK);
	buf_release(&why);
}

static struct serve_facts facts(const char *name, uint64_t size, int64_t events, int reports,
	const struct ui_view *v, const struct ui_choice *c)
{
	struct serve_facts f = { name, size, events, reports, v, c, "https://ui.perfetto.dev",
				 268435456, NULL, 0 };
	return f;
}

static void summary_is(const struct serve_facts *f, const char *want)
{
	struct buf out = BUF_INIT;

	ck_assert_int_eq(serve_page_summary(&out, f), 0);
	ck_assert_str_eq(out.p, want);
	buf_release(&out);
}

START_TEST(test_html_escape)
{
	struct buf out = BUF_INIT;

	ck_assert_int_eq(serve_html_escape(&out, "a<b>&\"c'\xe2\x80\x94", 11), 0);
	ck_assert_str_eq(out.p, "a&lt;b&gt;&amp;&quot;c&#39;\xe2\x80\x94");
	buf_release(&out);
}
END_TEST

START_TEST(test_size_text)
{
	static const struct { uint64_t n; const char *want; } cases[] = {
		{ 0, "0 bytes" }, { 1, "1 byte" }, { 1023, "1023 bytes" },
		{ 1024, "1024 bytes (1.0 KiB)" }, { 96184, "96184 bytes (93.9 KiB)" },
		{ 1048575, "1048575 bytes (1023.9 KiB)" }, { 1048576, "1048576 bytes (1.0 MiB)" },
		{ 1100000000, "1100000000 bytes (1.0 GiB)" },
		{ 5368709120ULL * 1024, "5497558138880 bytes (5120.0 GiB)" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf out = BUF_INIT;

		ck_assert_int_eq(serve_size_text(&out, cases[i].n), 0);
		ck_assert_str_eq(out.p, cases[i].want);
		buf_release(&out);
	}
}
END_TEST

START_TEST(test_summary_guides)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 0, 0, 0, 0, NULL };
	struct serve_facts f;

	add(&v, layers_report);
	f = facts("g<1>.json", 96184, 383, 1, &v, &c);
	summary_is(&f,
		"<li>g&lt;1&gt;.json: 96184 bytes (93.9 KiB), 383 events, as its report counts "
		"them.</li>\n"
		"<li>Pinned at the top: \xe2\x80\x9cLayer guide (decode) \xe2\x80\x94 anchor "
		"intervals\xe2\x80\x9d, \xe2\x80\x9cGPU lane 1 (synthetic; device 0)\xe2\x80\x9d and "
		"\xe2\x80\x9cGPU lane 2 (synthetic; device 0)\xe2\x80\x9d.</li>\n"
		"<li>Expanded: the processes of the guides and lanes (pids 3 and 7).</li>\n"
		"<li>In view: pass 0, its layers L0 to L1.</li>\n"
		"<li>A query tab lists the layer guides with their pass and start in ms, to click "
		"through the layers.</li>\n");
	c.pass_given = c.layer_given = 1;
	c.pass = 1;
	c.layer = 1;
	c.query = "SELECT 1";
	f = facts("g.json", 1, 1, 1, &v, &c);
	summary_is(&f,
		"<li>g.json: 1 byte, 1 event, as its report counts them.</li>\n"
		"<li>Pinned at the top: \xe2\x80\x9cLayer guide (decode) \xe2\x80\x94 anchor "
		"intervals\xe2\x80\x9d, \xe2\x80\x9cGPU lane 1 (synthetic; device 0)\xe2\x80\x9d and "
		"\xe2\x80\x9cGPU lane 2 (synthetic; device 0)\xe2\x80\x9d.</li>\n"
		"<li>Expanded: the processes of the guides and lanes (pids 3 and 7).</li>\n"
		"<li>In view: pass 1, its layers L0 to L1, with L1 selected.</li>\n"
		"<li>A query tab runs the SQL of --query.</li>\n");
	ui_view_free(&v);
}
END_TEST

START_TEST(test_summary_plain)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 0, 0, 0, 0, NULL };
	struct serve_facts f = facts("t.json", 2048, -1, 0, &v, &c);

	/* no report: nothing said about events, the UI opens plainly */
	summary_is(&f, "<li>t.json: 2048 bytes (2.0 KiB).</li>\n"
		   "<li>No report beside it (t.json.layers.json, .compact.json or .window.json): "
		   "the UI opens it plainly, nothing pinned, the whole trace in view.</li>\n");
	c.no_setup = 1;
	summary_is(&f, "<li>t.json: 2048 bytes (2.0 KiB).</li>\n"
		   "<li>Opened plainly (--no-setup): nothing pinned, the whole trace in view.</li>\n");
	/* a query without a report */
	c.no_setup = 0;
	c.query = "SELECT 1";
	summary_is(&f, "<li>t.json: 2048 bytes (2.0 KiB).</li>\n"
		   "<li>Nothing pinned: no report names a layer guide track or synthetic GPU "
		   "lanes.</li>\n"
		   "<li>In view: the whole trace.</li>\n"
		   "<li>A query tab runs the SQL of --query.</li>\n");
	/* a window report alone */
	c.query = NULL;
	add(&v, "{\"window_start_ns\": 5, \"window_end_ns\": 9, \"kept\": {\"complete\": 2}}");
	f.events = 2;
	f.reports = 1;
	summary_is(&f, "<li>t.json: 2048 bytes (2.0 KiB), 2 events, as its report counts them.</li>\n"
		   "<li>Nothing pinned: no report names a layer guide track or synthetic GPU "
		   "lanes.</li>\n"
		   "<li>In view: the window its report names.</li>\n");
	ui_view_free(&v);
}
END_TEST

static const char *after(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);

	ck_assert_msg(p != NULL, "no %s in the page", needle);
	return p;
}

START_TEST(test_page_order)
{
	struct ui_view v = UI_VIEW_INIT;
	struct ui_choice c = { 0, 0, 0, 0, 0, NULL };
	struct serve_facts f;
	struct buf page = BUF_INIT;
	const char *button, *details, *ui, *end, *guides, *dl;

	add(&v, layers_report);
	f = facts("a&b.json", 96184, 383, 1, &v, &c);
	f.ui_url = "https://ui.perfetto.dev/#!/?visStart=1&visEnd=2";
	ck_assert_int_eq(serve_page_build(&page, &f), 0);
	button = after(page.p, "<button id=\"go\" type=\"button\">Open in Perfetto</button>");
	/* the title, then the button, before anything else */
	ck_assert_ptr_eq(after(page.p, "<h1>a&amp;b.json</h1>\n<p><button id=\"go\""),
			 button - strlen("<h1>a&amp;b.json</h1>\n<p>"));
	details = after(page.p, "<details>");
	ui = after(page.p, "<code id=\"ui\">https://ui.perfetto.dev/#!/?visStart=1&amp;visEnd=2"
		   "</code>");
	end = after(page.p, "</details>");
	ck_assert(button < details && details < ui && ui < end);
	guides = after(page.p, "L0 is the layer that starts at the first anchor.");
	ck_assert(guides < details);
	dl = after(page.p, "<a href=\"trace\" download=\"a&amp;b.json\">Download the trace</a> "
		   "(96184 bytes)");
	ck_assert(button < dl && dl < details);
	after(page.p, "<p id=\"slow\" hidden>The Perfetto UI has not answered within 10 seconds.");
	after(page.p, "const UI = dec(\"https%3A%2F%2Fui.perfetto.dev%2F%23%21%2F%3FvisStart%3D1"
		  "%26visEnd%3D2\"), NAME = dec(\"a%26b.json\");\n"
		  "const SIZE = 96184, STREAM_ABOVE = 268435456;\n"
		  "const SLOW_MS = 10000, RPC = false;\n");
	ck_assert_ptr_null(strstr(page.p, "id=\"large\""));
	buf_release(&page);
	/* too large: the reason, escaped, before the summary; no guide note
	 * without reports */
	f = facts("t.json", 10, -1, 0, &v, &c);
	f.large = "over <2> GB";
	f.rpc = 1;
	ck_assert_int_eq(serve_page_build(&page, &f), 0);
	ck_assert(after(page.p, "<p id=\"large\">over &lt;2&gt; GB</p>") <
		  after(page.p, "<ul id=\"summary\">"));
	after(page.p, "const SLOW_MS = 10000, RPC = true;\n");
	ck_assert_ptr_null(strstr(page.p, "id=\"guides\""));
	buf_release(&page);
	ui_view_free(&v);
}
END_TEST

START_TEST(test_window_command)
{
	struct buf out = BUF_INIT;

	ck_assert_int_eq(serve_window_command(&out, "d/big.json.gz"), 0);
	ck_assert_str_eq(out.p, "tr-decode d/big.json.gz | tr-window --passes 0 | tr-encode -o "
			 "d/big.pass0.json.gz");
	buf_reset(&out);
	ck_assert_int_eq(serve_window_command(&out, "it's a.json"), 0);
	ck_assert_str_eq(out.p, "tr-decode 'it'\\''s a.json' | tr-window --passes 0 | "
			 "tr-encode -o 'it'\\''s a.pass0.json.gz'");
	buf_release(&out);
}
END_TEST

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

/* The reports beside a trace, and those of its source; the events of the
 * served file, never the source's; the refusals with their messages. */
START_TEST(test_read_reports)
{
	char dir[] = "/tmp/check_serve_page.XXXXXX", path[256], name[300];
	struct ui_view v = UI_VIEW_INIT;
	struct buf why = BUF_INIT;
	int64_t events = -1;
	int nread = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/c.json", dir);
	/* no report */
	ck_assert_int_eq(serve_read_reports(path, &v, &events, &nread, &why), SERVE_OK);
	ck_assert_int_eq(nread, 0);
	ck_assert_int_eq(events, -1);
	/* a compacted trace whose source's layers report gives the guides */
	snprintf(name, sizeof name, "%s/c.json.compact.json", dir);
	put(name, "{\"output_event_count\": 383, \"source_file\": \"g.json\", \"groups\": []}");
	snprintf(name, sizeof name, "%s/g.json.layers.json", dir);
	put(name, layers_report);
	ck_assert_int_eq(serve_read_reports(path, &v, &events, &nread, &why), SERVE_OK);
	ck_assert_int_eq(nread, 2);
	ck_assert_int_eq(events, 383);
	ck_assert_uint_eq(v.nguides, 4);
	ui_view_free(&v);
	memset(&v, 0, sizeof v);
	/* a broken report beside it: refused, named */
	snprintf(name, sizeof name, "%s/c.json.layers.json", dir);
	put(name, "{\"layers\": {}}");
	ck_assert_int_eq(serve_read_reports(path, &v, &events, &nread, &why), SERVE_INPUT);
	snprintf(path, sizeof path, "%s/c.json.layers.json: \"layers\" is not an array "
		 "(--no-setup skips the reports)", dir);
	ck_assert_str_eq(why.p, path);
	ui_view_free(&v);
	memset(&v, 0, sizeof v);
	/* a directory where a report would be */
	unlink(name);
	ck_assert_int_eq(mkdir(name, 0700), 0);
	snprintf(path, sizeof path, "%s/c.json", dir);
	ck_assert_int_eq(serve_read_reports(path, &v, &events, &nread, &why), SERVE_SYSTEM);
	snprintf(path, sizeof path, "%s/c.json.layers.json: not a regular file", dir);
	ck_assert_str_eq(why.p, path);
	rmdir(name);
	snprintf(name, sizeof name, "%s/c.json.compact.json", dir);
	unlink(name);
	snprintf(name, sizeof name, "%s/g.json.layers.json", dir);
	unlink(name);
	rmdir(dir);
	ui_view_free(&v);
	buf_release(&why);
}
END_TEST

static Suite *serve_page_suite(void)
{
	Suite *s = suite_create("serve_page");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_html_escape);
	tcase_add_test(tc, test_size_text);
	tcase_add_test(tc, test_summary_guides);
	tcase_add_test(tc, test_summary_plain);
	tcase_add_test(tc, test_page_order);
	tcase_add_test(tc, test_window_command);
	tcase_add_test(tc, test_read_reports);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(serve_page_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
