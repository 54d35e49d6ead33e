/* serve_page: the viewer page.  See serve_page.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/serve_page.h"

/* The script's only variable parts, the UI URL and the file name, are
 * percent-encoded (so they cannot end the string or the script) and
 * decoded by the page; the numbers are printed by the server. */
static const char page_head[] =
"<!DOCTYPE html>\n"
"<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<meta name=\"referrer\" content=\"no-referrer\">\n"
"<title>tr-serve</title>\n"
"<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto;"
"padding:0 1em}button{font-size:1.1em;padding:.4em 1.2em}"
"#warn,#slow,#large{color:#8a4b00}code{word-break:break-all}</style>\n"
"</head><body>\n";

static const char page_status[] =
"<p id=\"status\" role=\"status\">Not sent yet.</p>\n"
"<p id=\"progress\"></p>\n"
"<p id=\"warn\" hidden>This confirms the transfer only, not that Perfetto\n"
"parsed the trace: look for errors in the Perfetto window.</p>\n"
"<p id=\"slow\" hidden>The Perfetto UI has not answered within 10 seconds.\n"
"Look at the Perfetto window: it may still be loading, or be unable to reach\n"
"the UI's address (offline, a proxy or a firewall; tr-serve --ui URL opens a\n"
"self-hosted UI instead).  Click the button again for a new window, or\n"
"download the trace below and open it in the UI with \"Open trace file\".</p>\n";

static const char script_start[] =
"<script>\n"
"\"use strict\";\n"
"function dec(s) { try { return decodeURIComponent(s); } catch (e) { return s; } }\n";

static const char page_script[] =
"const statusEl = document.getElementById(\"status\");\n"
"const progressEl = document.getElementById(\"progress\");\n"
"const warnEl = document.getElementById(\"warn\");\n"
"const slowEl = document.getElementById(\"slow\");\n"
"let uiOrigin = null, win = null, timer = 0, slowTimer = 0, busy = false;\n"
"let streamPosted = false, fellBack = false, streamReader = null;\n"
"try { uiOrigin = new URL(UI).origin; } catch (e) { }\n"
"document.title = NAME + \" - tr-serve\";\n"
"function say(text) { statusEl.textContent = text; }\n"
"function stopPing() {\n"
"  if (timer) { clearInterval(timer); timer = 0; }\n"
"  if (slowTimer) { clearTimeout(slowTimer); slowTimer = 0; }\n"
"  slowEl.hidden = true;\n"
"}\n"
"function openUI() {\n"
"  if (!uiOrigin) { say(\"Not a valid URL for the Perfetto UI: \" + UI); return; }\n"
"  stopPing(); busy = false; streamPosted = false; fellBack = false;\n"
"  warnEl.hidden = true; progressEl.textContent = \"\";\n"
"  win = window.open(UI, \"_blank\");\n"
"  if (!win) {\n"
"    say(\"The browser blocked the pop-up window (window.open returned null): \" +\n"
"        \"allow pop-ups for this page, or click the button again.\");\n"
"    return;\n"
"  }\n"
"  if (RPC) {\n"
"    say(\"Opened the Perfetto UI: answer its dialog with YES, use loaded trace \" +\n"
"        \"(trace_processor_shell has loaded this trace).\");\n"
"    return;\n"
"  }\n"
"  say(\"Waiting for the Perfetto UI to answer PING with PONG...\");\n"
"  /* Say so when the UI is slow to answer, and go on pinging. */\n"
"  slowTimer = setTimeout(function () { slowEl.hidden = false; }, SLOW_MS);\n"
"  /* The UI answers only once loaded and keeps no queue: ping until it does. */\n"
"  timer = setInterval(function () {\n"
"    if (win.closed) {\n"
"      stopPing();\n"
"      say(\"The Perfetto window was closed before it answered; click the button again.\");\n"
"      return;\n"
"    }\n"
"    win.postMessage(\"PING\", uiOrigin);\n"
"  }, 50);\n"
"}\n"
"async function fetchTrace() {\n"
"  const r = await fetch(\"trace\", { cache: \"no-store\" });\n"
"  if (!r.ok) throw new Error(\"HTTP \" + r.status);\n"
"  return r;\n"
"}\n"
"async function sendBuffer(note) {\n"
"  const buffer = await (await fetchTrace()).arrayBuffer();\n"
"  const n = buffer.byteLength;\n"
"  /* Transferred, not copied: a trace can be hundreds of megabytes. */\n"
"  win.postMessage({ perfetto: { buffer: buffer, title: NAME, fileName: NAME } },\n"
"                  uiOrigin, [buffer]);\n"
"  say(note + \"Local trace sent: \" + n + \" bytes\");\n"
"  warnEl.hidden = false;\n"
"}\n"
"/* A large trace goes as a ReadableStream: the UI reads it with backpressure\n"
" * and the page never holds it whole.  The progress line counts what the UI\n"
" * has taken. */\n"
"async function sendStream() {\n"
"  const r = await fetchTrace();\n"
"  if (!r.body) return sendBuffer(\"This browser gives no response stream; \");\n"
"  const reader = r.body.getReader();\n"
"  let sent = 0;\n"
"  const stream = new ReadableStream({\n"
"    async pull(c) {\n"
"      const x = await reader.read();\n"
"      if (x.done) {\n"
"        c.close();\n"
"        if (!fellBack) {\n"
"          say(\"Local trace streamed: \" + sent + \" bytes\");\n"
"          warnEl.hidden = false;\n"
"        }\n"
"        return;\n"
"      }\n"
"      sent += x.value.byteLength;\n"
"      if (!fellBack) progressEl.textContent = \"Sent \" + sent + \" of \" + SIZE + \" bytes\";\n"
"      c.enqueue(x.value);\n"
"    },\n"
"    cancel(reason) { return reader.cancel(reason); }\n"
"  }, { highWaterMark: 0 });\n"
"  try {\n"
"    win.postMessage({ perfetto: { stream: stream, title: NAME, bytesTotal: SIZE } },\n"
"                    uiOrigin, [stream]);\n"
"  } catch (e) {\n"
"    reader.cancel();\n"
"    return sendBuffer(\"This browser cannot post a stream (\" + e.message +\n"
"                      \"): sent as one buffer instead. \");\n"
"  }\n"
"  streamPosted = true;\n"
"  streamReader = reader;\n"
"  say(\"Streaming the trace to the Perfetto UI...\");\n"
"  /* A UI that took a trace stops listening; an older one ignores the\n"
"   * stream and still answers this PING, which comes after it. */\n"
"  win.postMessage(\"PING\", uiOrigin);\n"
"}\n"
"async function sendTrace() {\n"
"  try {\n"
"    if (SIZE > STREAM_ABOVE && typeof ReadableStream === \"function\") {\n"
"      say(\"The Perfetto UI answered; streaming the trace...\");\n"
"      await sendStream();\n"
"    } else {\n"
"      say(\"The Perfetto UI answered; fetching the trace...\");\n"
"      await sendBuffer(\"\");\n"
"    }\n"
"  } catch (e) {\n"
"    busy = false;\n"
"    say(\"Could not send the trace: \" + e.message);\n"
"  }\n"
"}\n"
"async function fallBack() {\n"
"  fellBack = true;\n"
"  if (streamReader) streamReader.cancel();\n"
"  progressEl.textContent = \"\";\n"
"  try {\n"
"    await sendBuffer(\"The Perfetto UI did not take a stream (an older UI): \" +\n"
"                     \"sent as one buffer instead. \");\n"
"  } catch (e) {\n"
"    say(\"Could not send the trace: \" + e.message);\n"
"  }\n"
"}\n"
"window.addEventListener(\"message\", function (ev) {\n"
"  if (ev.source !== win || ev.origin !== uiOrigin || ev.data !== \"PONG\")\n"
"    return;\n"
"  if (streamPosted && !fellBack) { fallBack(); return; }\n"
"  if (busy) return;\n"
"  busy = true;\n"
"  stopPing();\n"
"  sendTrace();\n"
"});\n"
"document.getElementById(\"go\").addEventListener(\"click\", openUI);\n"
"/* For tests: a headless browser started with --disable-popup-blocking. */\n"
"if (new URLSearchParams(location.search).get(\"auto\") === \"1\") openUI();\n"
"</script>\n"
"</body></html>\n";

int serve_html_escape(struct buf *out, const char *s, size_t n)
{
	int fail = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': fail |= buf_addstr(out, "&amp;"); break;
		case '<': fail |= buf_addstr(out, "&lt;"); break;
		case '>': fail |= buf_addstr(out, "&gt;"); break;
		case '"': fail |= buf_addstr(out, "&quot;"); break;
		case '\'': fail |= buf_addstr(out, "&#39;"); break;
		default: fail |= buf_addch(out, s[i]);
		}
	}
	return fail ? -1 : 0;
}

static int esc(struct buf *out, const char *s)
{
	return serve_html_escape(out, s, strlen(s));
}

int serve_size_text(struct buf *out, uint64_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB" };
	uint64_t scale = 1024;
	int u = 0;

	if (n < 1024)
		return buf_printf(out, "%llu byte%s", (unsigned long long)n, n == 1 ? "" : "s");
	while (u < 2 && n / scale >= 1024) {
		scale *= 1024;
		u++;
	}
	/* tenths rounded down: never more than the file holds */
	return buf_printf(out, "%llu bytes (%llu.%llu %s)", (unsigned long long)n,
			  (unsigned long long)(n / scale),
			  (unsigned long long)(n % scale * 10 / scale), units[u]);
}

/* "a", "a and b", "a, b and c" */
static int join_sep(struct buf *out, size_t i, size_t n)
{
	if (i == 0)
		return 0;
	return buf_addstr(out, i + 1 == n ? " and " : ", ");
}

int serve_page_summary(struct buf *out, const struct serve_facts *f)
{
	const struct ui_view *v = f->view;
	struct ui_shown s;
	struct buf why = BUF_INIT;
	int fail = 0;
	size_t i;

	fail |= buf_addstr(out, "<li>");
	fail |= esc(out, f->name);
	fail |= buf_addstr(out, ": ");
	fail |= serve_size_text(out, f->size);
	if (f->events >= 0)
		fail |= buf_printf(out, ", %lld event%s, as its report counts them",
				   (long long)f->events, f->events == 1 ? "" : "s");
	fail |= buf_addstr(out, ".</li>\n");
	if (f->choice->no_setup)
		return fail | buf_addstr(out, "<li>Opened plainly (--no-setup): nothing pinned, "
					 "the whole trace in view.</li>\n") ? -1 : 0;
	if (!f->reports && f->choice->query == NULL) {
		fail |= buf_addstr(out, "<li>No report beside it (");
		fail |= esc(out, f->name);
		fail |= buf_addstr(out, ".layers.json, .compact.json or .window.json): the UI "
				   "opens it plainly, nothing pinned, the whole trace in view.</li>\n");
		return fail ? -1 : 0;
	}
	if (ui_shown(v, f->choice, &s, &why) != UI_OK) {
		buf_release(&why);
		return -1;
	}
	if (v->npins > 0) {
		fail |= buf_addstr(out, "<li>Pinned at the top: ");
		for (i = 0; i < v->npins; i++) {
			fail |= join_sep(out, i, v->npins);
			fail |= buf_addstr(out, "\xe2\x80\x9c");
			fail |= esc(out, v->pins[i]);
			fail |= buf_addstr(out, "\xe2\x80\x9d");
		}
		fail |= buf_addstr(out, ".</li>\n");
	} else {
		fail |= buf_addstr(out, "<li>Nothing pinned: no report names a layer guide track "
				   "or synthetic GPU lanes.</li>\n");
	}
	if (v->npids > 0) {
		fail |= buf_addstr(out, v->npids == 1 ? "<li>Expanded: the process of the guides "
				   "and lanes (pid " : "<li>Expanded: the processes of the guides "
				   "and lanes (pids ");
		for (i = 0; i < v->npids; i++) {
			fail |= join_sep(out, i, v->npids);
			fail |= buf_printf(out, "%lld", (long long)v->pids[i]);
		}
		fail |= buf_addstr(out, ").</li>\n");
	}
	if (s.by_pass) {
		fail |= buf_printf(out, "<li>In view: pass %lld, ", (long long)s.pass);
		if (s.first_layer == s.last_layer)
			fail |= buf_printf(out, "its layer L%lld", (long long)s.first_layer);
		else
			fail |= buf_printf(out, "its layers L%lld to L%lld", (long long)s.first_layer,
					   (long long)s.last_layer);
		if (s.sel != NULL)
			fail |= buf_printf(out, ", with L%lld selected", (long long)s.sel->layer);
		fail |= buf_addstr(out, ".</li>\n");
	} else if (s.by_window) {
		fail |= buf_addstr(out, "<li>In view: the window its report names.</li>\n");
	} else {
		fail |= buf_addstr(out, "<li>In view: the whole trace.</li>\n");
	}
	if (f->choice->query != NULL)
		fail |= buf_addstr(out, "<li>A query tab runs the SQL of --query.</li>\n");
	else if (s.guides)
		fail |= buf_addstr(out, "<li>A query tab lists the layer guides with their pass and "
				   "start in ms, to click through the layers.</li>\n");
	buf_release(&why);
	return fail ? -1 : 0;
}

/* The guides' explanation, when the UI will show guides. */
static int guide_note(struct buf *out, const struct serve_facts *f)
{
	struct ui_shown s;
	struct buf why = BUF_INIT;
	int rc;

	if (f->choice->no_setup || !f->reports || ui_shown(f->view, f->choice, &s, &why) != UI_OK ||
	    !s.guides) {
		buf_release(&why);
		return 0;
	}
	buf_release(&why);
	rc = buf_printf(out, "<p id=\"guides\">The layer guide track shows anchor-to-anchor "
			"intervals, to find your way: they are not layer boundaries and do not "
			"assign kernels to layers.  L%lld is the layer that starts at the first "
			"anchor.</p>\n", (long long)(s.by_pass ? s.first_layer : 0));
	return rc;
}

int serve_page_build(struct buf *out, const struct serve_facts *f)
{
	int fail = 0;

	fail |= buf_addstr(out, page_head);
	fail |= buf_addstr(out, "<h1>");
	fail |= esc(out, f->name);
	fail |= buf_addstr(out, "</h1>\n<p><button id=\"go\" type=\"button\">Open in Perfetto"
			   "</button></p>\n");
	fail |= buf_addstr(out, page_status);
	if (f->large != NULL) {
		fail |= buf_addstr(out, "<p id=\"large\">");
		fail |= esc(out, f->large);
		fail |= buf_addstr(out, "</p>\n");
	}
	fail |= buf_addstr(out, "<h2>What opens</h2>\n<ul id=\"summary\">\n");
	fail |= serve_page_summary(out, f);
	fail |= buf_addstr(out, "</ul>\n");
	fail |= guide_note(out, f);
	fail |= buf_addstr(out, "<p id=\"download\"><a href=\"trace\" download=\"");
	fail |= esc(out, f->name);
	fail |= buf_printf(out, "\">Download the trace</a> (%llu bytes) when",
			   (unsigned long long)f->size);
	fail |= buf_addstr(out, " the Perfetto UI cannot be reached from this page: open "
			   "the file in the UI with \"Open trace file\", or keep it.</p>\n");
	fail |= buf_addstr(out, "<details><summary>How this works, and the UI address</summary>\n"
			   "<p>The button opens the Perfetto UI in a new window and posts this "
			   "trace to it with <code>postMessage</code>; the trace goes from this page "
			   "to that window and is not uploaded anywhere.  Browsers open a pop-up "
			   "window only from a click, so the click is needed.</p>\n"
			   "<p>The UI address, with what it is asked to show:<br>\n<code id=\"ui\">");
	fail |= esc(out, f->ui_url);
	fail |= buf_addstr(out, "</code></p>\n</details>\n");
	/* the script's constants */
	fail |= buf_addstr(out, script_start);
	fail |= buf_addstr(out, "const UI = dec(\"");
	fail |= ui_url_encode(out, f->ui_url, strlen(f->ui_url));
	fail |= buf_addstr(out, "\"), NAME = dec(\"");
	fail |= ui_url_encode(out, f->name, strlen(f->name));
	fail |= buf_printf(out, "\");\nconst SIZE = %llu, STREAM_ABOVE = %llu;\n"
			   "const SLOW_MS = %d, RPC = %s;\n", (unsigned long long)f->size,
			   (unsigned long long)f->stream_above, SERVE_PAGE_SLOW_MS,
			   f->rpc ? "true" : "false");
	fail |= buf_addstr(out, page_script);
	return fail ? -1 : 0;
}

/* ---- the reports beside a trace -------------------------------------- */

static int sys_fail(struct buf *why, const char *path)
{
	buf_reset(why);
	return buf_printf(why, "%s: %s", path, strerror(errno)) ? SERVE_NOMEM : SERVE_SYSTEM;
}

/* The whole of a report into b: 1, or 0 when there is no such file. */
static int read_report(const char *path, struct buf *b, struct buf *why)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), rc;
	struct stat st;

	buf_reset(b);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return sys_fail(why, path);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = sys_fail(why, path);
		goto out;
	}
	buf_reset(why);
	if (!S_ISREG(st.st_mode)) {
		rc = buf_printf(why, "%s: not a regular file", path) ? SERVE_NOMEM : SERVE_SYSTEM;
		goto out;
	}
	if (st.st_size > SERVE_REPORT_MAX) {
		rc = buf_printf(why, "%s: a report of %jd bytes (at most %d read; --no-setup "
				"skips the reports)", path, (intmax_t)st.st_size, SERVE_REPORT_MAX)
		     ? SERVE_NOMEM : SERVE_INPUT;
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof chunk);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = sys_fail(why, path);
			goto out;
		}
		if (r == 0)
			break;
		if (buf_add(b, chunk, (size_t)r) != 0) {
			rc = SERVE_NOMEM;
			goto out;
		}
	}
	rc = 1;
out:
	close(fd);
	return rc;
}

static int take_report(struct ui_view *v, const char *path, struct buf *text,
	struct buf *why)
{
	struct buf reason = BUF_INIT;
	int rc = ui_view_add_report(v, text->p, text->len, &reason);

	if (rc != UI_OK && rc != UI_NOMEM) {
		buf_reset(why);
		rc = buf_printf(why, "%s: %s (--no-setup skips the reports)", path, reason.p)
		     ? UI_NOMEM : SERVE_INPUT;
	}
	buf_release(&reason);
	return rc == UI_NOMEM ? SERVE_NOMEM : rc;
}

/* The reports beside TRACE: TRACE.layers.json, TRACE.compact.json and
 * TRACE.window.json; a compact or window report whose source has reports
 * beside it (a guided trace compacted by tr-compact-track, a window cut by
 * tr-window from an annotated output) brings those too, since compaction
 * and windows keep the guides, their times and the lanes. */
int serve_read_reports(const char *path, struct ui_view *v, int64_t *events, int *nread,
	struct buf *why)
{
	static const char *const kinds[] = { ".layers.json", ".compact.json", ".window.json" };
	struct buf name = BUF_INIT, text = BUF_INIT, src = BUF_INIT;
	const char *slash = strrchr(path, '/');
	int have_layers = 0, rc = SERVE_OK;
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0] && rc == SERVE_OK; i++) {
		buf_reset(&name);
		if (buf_printf(&name, "%s%s", path, kinds[i]) != 0) {
			rc = SERVE_NOMEM;
			break;
		}
		rc = read_report(name.p, &text, why);
		if (rc == 0)
			continue;
		if (rc < 0 || (rc = take_report(v, name.p, &text, why)) != SERVE_OK)
			break;
		(*nread)++;
		/* the later kinds describe the served file more closely: a
		 * window of a trace, a compacted trace */
		if (ui_report_events(text.p, text.len, events) == UI_NOMEM) {
			rc = SERVE_NOMEM;
			break;
		}
		if (i == 0)
			have_layers = 1;
		if (i >= 1 && !have_layers && ui_report_source_file(text.p, text.len, &src) == 1 &&
		    strchr(src.p, '/') == NULL) {
			/* the source's own reports, beside it: its guides (and,
			 * for a window, its lanes) */
			size_t k;
			for (k = 0; k < i && rc == SERVE_OK; k++) {
				buf_reset(&name);
				if (buf_printf(&name, "%.*s%s%s", slash ? (int)(slash - path + 1) : 0,
					       path, src.p, kinds[k]) != 0) {
					rc = SERVE_NOMEM;
					break;
				}
				if (strcmp(name.p, path) == 0)
					continue;
				rc = read_report(name.p, &text, why);
				if (rc == 1 && (rc = take_report(v, name.p, &text, why)) == SERVE_OK) {
					(*nread)++;
					have_layers |= k == 0;
				}
				if (rc > 0)
					rc = SERVE_OK;
			}
		}
	}
	buf_release(&name);
	buf_release(&text);
	buf_release(&src);
	return rc;
}


/* s quoted for a POSIX shell when it needs it. */
static int put_shell_word(struct buf *b, const char *s)
{
	int fail = 0;

	if (*s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				 "0123456789-._/+,:=@%") == strlen(s))
		return buf_addstr(b, s);
	fail |= buf_addch(b, '\'');
	for (; *s != '\0'; s++)
		fail |= *s == '\'' ? buf_addstr(b, "'\\''") : buf_addch(b, *s);
	fail |= buf_addch(b, '\'');
	return fail ? -1 : 0;
}

int serve_window_command(struct buf *out, const char *path)
{
	struct buf name = BUF_INIT;
	size_t n = strlen(path);
	int fail = 0;

	if (n > 8 && strcmp(path + n - 8, ".json.gz") == 0)
		n -= 8;
	else if (n > 5 && strcmp(path + n - 5, ".json") == 0)
		n -= 5;
	fail |= buf_printf(&name, "%.*s.pass0.json.gz", (int)n, path);
	fail |= buf_addstr(out, "tr-decode ");
	fail |= put_shell_word(out, path);
	fail |= buf_addstr(out, " | tr-window --passes 0 | tr-encode -o ");
	fail |= put_shell_word(out, name.p);
	buf_release(&name);
	return fail ? -1 : 0;
}
