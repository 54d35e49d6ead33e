/* ui: the Perfetto UI's startup parameters from the reports beside a
 * trace.  See ui.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "json/tsnum.h"
#include "serve/ui.h"

const char ui_default_query[] =
	"SELECT s.id, s.ts, s.dur, s.track_id, s.name AS layer, "
	"EXTRACT_ARG(s.arg_set_id, 'args.pass_index') AS pass, "
	"EXTRACT_ARG(s.arg_set_id, 'args.start_relative_ms') AS start_relative_ms, "
	"EXTRACT_ARG(s.arg_set_id, 'args.end_relative_ms') AS end_relative_ms "
	"FROM slice s WHERE s.category = 'layer_guide' ORDER BY s.ts";

/* jsmn wants the value to span the text: no white space around it. */
static void trim(const char **text, size_t *len)
{
	while (*len > 0 && strchr(" \t\r\n", (*text)[0]) != NULL) {
		(*text)++;
		(*len)--;
	}
	while (*len > 0 && strchr(" \t\r\n", (*text)[*len - 1]) != NULL)
		(*len)--;
}

static int bad(struct buf *why, const char *what)
{
	if (why != NULL) {
		buf_reset(why);
		buf_addstr(why, what);
	}
	return UI_BAD;
}

static int add_pin(struct ui_view *v, const char *name, size_t n)
{
	char **grown, *copy;
	size_t i;

	for (i = 0; i < v->npins; i++)
		if (strlen(v->pins[i]) == n && memcmp(v->pins[i], name, n) == 0)
			return UI_OK;
	grown = realloc(v->pins, (v->npins + 1) * sizeof *grown);
	if (grown == NULL)
		return UI_NOMEM;
	v->pins = grown;
	copy = malloc(n + 1);
	if (copy == NULL)
		return UI_NOMEM;
	memcpy(copy, name, n);
	copy[n] = '\0';
	v->pins[v->npins++] = copy;
	return UI_OK;
}

static int add_pid(struct ui_view *v, int64_t pid)
{
	int64_t *grown;
	size_t i;

	for (i = 0; i < v->npids; i++)
		if (v->pids[i] == pid)
			return UI_OK;
	grown = realloc(v->pids, (v->npids + 1) * sizeof *grown);
	if (grown == NULL)
		return UI_NOMEM;
	v->pids = grown;
	v->pids[v->npids++] = pid;
	return UI_OK;
}

/* A guide time member: Perfetto's own conversion of the number text. */
static int guide_ns(const struct jdoc *d, int row, const char *key, int64_t *ns)
{
	int t = json_find(d, row, key);
	const char *s;
	size_t n;

	if (t < 0 || json_type(d, t) != JT_PRIMITIVE)
		return -1;
	s = json_text(d, t, &n);
	return tsnum_perfetto_us_to_ns(s, n, ns) == NUM_OK ? 0 : -1;
}

static int int_member(const struct jdoc *d, int obj, const char *key, int64_t *value)
{
	int t = json_find(d, obj, key);

	if (t < 0 || json_type(d, t) != JT_PRIMITIVE)
		return -1;
	return json_int64(d, t, value) == 0 ? 0 : -1;
}

static int add_layers(struct ui_view *v, const struct jdoc *d, int arr, struct buf *why)
{
	int n = json_size(d, arr), row = arr + 1, k;
	struct ui_guide *grown;

	if (n == 0)
		return UI_OK;
	grown = realloc(v->guides, (v->nguides + (size_t)n) * sizeof *grown);
	if (grown == NULL)
		return UI_NOMEM;
	v->guides = grown;
	for (k = 0; k < n; k++, row = json_next(d, row)) {
		struct ui_guide g;

		if (json_type(d, row) != JT_OBJECT ||
		    int_member(d, row, "pass_index", &g.pass) != 0 ||
		    int_member(d, row, "layer_id", &g.layer) != 0 ||
		    guide_ns(d, row, "guide_start_us", &g.start_ns) != 0 ||
		    guide_ns(d, row, "guide_end_us", &g.end_ns) != 0)
			return bad(why, "a row of \"layers\" lacks pass_index, layer_id, "
				   "guide_start_us or guide_end_us");
		v->guides[v->nguides++] = g;
	}
	return UI_OK;
}

/* Compaction groups: the lanes of each "activity" group, by the names
 * tr-compact gives them. */
static int add_groups(struct ui_view *v, const struct jdoc *d, int arr, struct buf *why)
{
	int n = json_size(d, arr), g = arr + 1, k;
	struct buf name = BUF_INIT;
	int rc = UI_OK;

	for (k = 0; k < n && rc == UI_OK; k++, g = json_next(d, g)) {
		int kind = json_type(d, g) == JT_OBJECT ? json_find(d, g, "kind") : -1;
		int dev = kind >= 0 ? json_find(d, g, "device") : -1;
		int64_t lanes, pid, lane;
		const char *dt;
		size_t dn;

		if (kind < 0 || dev < 0 || int_member(d, g, "lanes", &lanes) != 0 ||
		    int_member(d, g, "display_pid", &pid) != 0 || lanes < 0) {
			rc = bad(why, "a compaction group lacks kind, device, lanes or display_pid");
			break;
		}
		if (!json_str_eq(d, kind, "activity"))
			continue;
		/* the device as tr-compact writes it: the number text, or the
		 * string's bytes */
		if (json_type(d, dev) == JT_STRING) {
			struct buf tmp = BUF_INIT;

			if (json_token_unescape(d, dev, &tmp) != 0) {
				buf_release(&tmp);
				rc = UI_NOMEM;
				break;
			}
			for (lane = 1; lane <= lanes && rc == UI_OK; lane++) {
				buf_reset(&name);
				if (buf_printf(&name, "GPU lane %lld (synthetic; device %s)",
					       (long long)lane, tmp.p) != 0)
					rc = UI_NOMEM;
				else
					rc = add_pin(v, name.p, name.len);
			}
			buf_release(&tmp);
		} else {
			dt = json_text(d, dev, &dn);
			for (lane = 1; lane <= lanes && rc == UI_OK; lane++) {
				buf_reset(&name);
				if (buf_printf(&name, "GPU lane %lld (synthetic; device %.*s)",
					       (long long)lane, (int)dn, dt) != 0)
					rc = UI_NOMEM;
				else
					rc = add_pin(v, name.p, name.len);
			}
		}
		if (rc == UI_OK && lanes > 0)
			rc = add_pid(v, pid);
	}
	buf_release(&name);
	return rc;
}

int ui_view_add_report(struct ui_view *v, const char *text, size_t len, struct buf *why)
{
	struct jdoc d = JDOC_INIT;
	int nomem = 0, rc = UI_OK, t, w;

	trim(&text, &len);
	if (json_parse(&d, text, len, &nomem) != 0) {
		json_free(&d);
		return nomem ? UI_NOMEM : bad(why, "not valid JSON");
	}
	if (json_type(&d, 0) != JT_OBJECT) {
		json_free(&d);
		return bad(why, "not a JSON object");
	}
	t = json_find(&d, 0, "track_name");
	if (t >= 0 && json_type(&d, t) == JT_STRING) {
		struct buf name = BUF_INIT;
		int64_t pid;

		if (json_token_unescape(&d, t, &name) != 0)
			rc = UI_NOMEM;
		else
			rc = add_pin(v, name.p, name.len);
		buf_release(&name);
		if (rc == UI_OK && int_member(&d, 0, "pid", &pid) == 0)
			rc = add_pid(v, pid);
	} else if (t >= 0 && json_type(&d, t) != JT_PRIMITIVE) {
		rc = bad(why, "\"track_name\" is not a string");
	}
	t = json_find(&d, 0, "layers");
	if (rc == UI_OK && t >= 0)
		rc = json_type(&d, t) == JT_ARRAY ? add_layers(v, &d, t, why)
		   : bad(why, "\"layers\" is not an array");
	t = json_find(&d, 0, "compaction");
	if (t >= 0 && json_type(&d, t) != JT_OBJECT)
		t = -1;
	t = json_find(&d, t >= 0 ? t : 0, "groups");
	if (rc == UI_OK && t >= 0)
		rc = json_type(&d, t) == JT_ARRAY ? add_groups(v, &d, t, why)
		   : bad(why, "\"groups\" is not an array");
	/* tr-window's report: the window in exact ns */
	w = json_find(&d, 0, "window_start_ns");
	if (rc == UI_OK && (w >= 0 || json_find(&d, 0, "window_end_ns") >= 0)) {
		if (int_member(&d, 0, "window_start_ns", &v->window_start_ns) != 0 ||
		    int_member(&d, 0, "window_end_ns", &v->window_end_ns) != 0 ||
		    v->window_end_ns < v->window_start_ns)
			rc = bad(why, "window_start_ns and window_end_ns are not integers, "
				 "start first");
		else
			v->have_window = 1;
	}
	json_free(&d);
	return rc;
}

int ui_report_source_file(const char *text, size_t len, struct buf *out)
{
	struct jdoc d = JDOC_INIT;
	int nomem = 0, t, rc = 0;

	trim(&text, &len);
	if (json_parse(&d, text, len, &nomem) != 0) {
		json_free(&d);
		return nomem ? UI_NOMEM : UI_BAD;
	}
	t = json_type(&d, 0) == JT_OBJECT ? json_find(&d, 0, "source_file") : -1;
	if (t >= 0 && json_type(&d, t) == JT_STRING)
		rc = json_token_unescape(&d, t, out) == 0 ? 1 : UI_NOMEM;
	json_free(&d);
	return rc;
}

/* The events of the trace a report was written beside: a window report's
 * kept counts, a compact report's output_event_count (also under
 * "compaction" in a layers report), else a layers report's source events
 * plus the ones it added. */
int ui_report_events(const char *text, size_t len, int64_t *events)
{
	struct jdoc d = JDOC_INIT;
	int nomem = 0, rc = 0, t;
	int64_t a, b;

	trim(&text, &len);
	if (json_parse(&d, text, len, &nomem) != 0) {
		json_free(&d);
		return nomem ? UI_NOMEM : UI_BAD;
	}
	if (json_type(&d, 0) != JT_OBJECT)
		goto out;
	t = json_find(&d, 0, "kept");
	if (t >= 0 && json_type(&d, t) == JT_OBJECT) {
		int n = json_size(&d, t), k, m = t + 1;
		int64_t sum = 0;

		for (k = 0; k < n; k++, m = json_next(&d, m + 1)) {
			if (json_int64(&d, m + 1, &a) != 0 || a < 0 || a > INT64_MAX - sum)
				goto out;
			sum += a;
		}
		*events = sum;
		rc = 1;
		goto out;
	}
	t = json_find(&d, 0, "compaction");
	if (int_member(&d, t >= 0 && json_type(&d, t) == JT_OBJECT ? t : 0,
		       "output_event_count", &a) == 0 && a >= 0) {
		*events = a;
		rc = 1;
	} else if (int_member(&d, 0, "original_event_count", &a) == 0 &&
		   int_member(&d, 0, "added_event_count", &b) == 0 && a >= 0 && b >= 0 &&
		   a <= INT64_MAX - b) {
		*events = a + b;
		rc = 1;
	}
out:
	json_free(&d);
	return rc;
}

void ui_view_free(struct ui_view *v)
{
	size_t i;

	for (i = 0; i < v->npins; i++)
		free(v->pins[i]);
	free(v->pins);
	free(v->pids);
	free(v->guides);
	memset(v, 0, sizeof *v);
}

int ui_regex_escape(struct buf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr("^$\\.*+?()[]{}|", s[i]) != NULL && s[i] != '\0' &&
		    buf_addch(out, '\\') != 0)
			return UI_NOMEM;
		if (buf_addch(out, s[i]) != 0)
			return UI_NOMEM;
	}
	return UI_OK;
}

int ui_url_encode(struct buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int rc;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
			rc = buf_addch(out, (char)c);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };

			rc = buf_add(out, e, 3);
		}
		if (rc != 0)
			return UI_NOMEM;
	}
	return UI_OK;
}

static int in_window(const struct ui_view *v, const struct ui_guide *g)
{
	return !v->have_window ||
	       (g->end_ns >= v->window_start_ns && g->start_ns <= v->window_end_ns);
}

/* One command {"id":ID,"args":[ARG]} appended to the JSON array in cmds. */
static int add_command(struct buf *cmds, const char *id, const char *arg, size_t n)
{
	if (buf_addstr(cmds, cmds->len > 1 ? ",{\"id\":\"" : "{\"id\":\"") != 0 ||
	    buf_addstr(cmds, id) != 0 || buf_addstr(cmds, "\",\"args\":[") != 0 ||
	    json_escape(cmds, arg, n) != 0 || buf_addstr(cmds, "]}") != 0)
		return UI_NOMEM;
	return UI_OK;
}

static int add_param(struct buf *out, const char *key, const char *value, size_t n)
{
	if ((out->len > 0 && buf_addch(out, '&') != 0) || buf_addstr(out, key) != 0 ||
	    buf_addch(out, '=') != 0)
		return UI_NOMEM;
	return ui_url_encode(out, value, n);
}

static int add_ns_param(struct buf *out, const char *key, int64_t ns)
{
	char num[32];
	int n = snprintf(num, sizeof num, "%lld", (long long)ns);

	return add_param(out, key, num, (size_t)n);
}

static int refuse(struct buf *why, const struct ui_view *v, const char *what, int64_t which)
{
	size_t i;
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	for (i = 0; i < v->nguides; i++) {
		if (!in_window(v, &v->guides[i]))
			continue;
		if (v->guides[i].pass < lo)
			lo = v->guides[i].pass;
		if (v->guides[i].pass > hi)
			hi = v->guides[i].pass;
	}
	buf_reset(why);
	if (lo > hi)
		buf_printf(why, "%s %lld: the served trace has no layer guides%s", what,
			   (long long)which, v->have_window ? " in its window" : "");
	else
		buf_printf(why, "%s %lld: no such %s (the guides have passes %lld-%lld)", what,
			   (long long)which, what + 2, (long long)lo, (long long)hi);
	return UI_REFUSED;
}

static int build_commands(const struct ui_view *v, const struct ui_choice *c, int guides,
	struct buf *cmds)
{
	struct buf re = BUF_INIT;
	size_t i;
	int rc = UI_OK;

	buf_addch(cmds, '[');
	if (v->npids > 0) {
		/* Perfetto titles a process group "NAME PID" */
		rc = buf_addstr(&re, "(^| )(") == 0 ? UI_OK : UI_NOMEM;
		for (i = 0; i < v->npids && rc == UI_OK; i++)
			if (buf_printf(&re, i ? "|%lld" : "%lld", (long long)v->pids[i]) != 0)
				rc = UI_NOMEM;
		if (rc == UI_OK && buf_addstr(&re, ")$") != 0)
			rc = UI_NOMEM;
		if (rc == UI_OK)
			rc = add_command(cmds, "dev.perfetto.ExpandTracksByRegex", re.p, re.len);
	}
	if (rc == UI_OK && v->npins > 0) {
		/* the names exactly; a thread track's title may add " TID" */
		buf_reset(&re);
		rc = buf_addstr(&re, "^(?:") == 0 ? UI_OK : UI_NOMEM;
		for (i = 0; i < v->npins && rc == UI_OK; i++) {
			if (i > 0 && buf_addch(&re, '|') != 0)
				rc = UI_NOMEM;
			else
				rc = ui_regex_escape(&re, v->pins[i], strlen(v->pins[i]));
		}
		if (rc == UI_OK && buf_addstr(&re, ")(?: -?[0-9]+)?$") != 0)
			rc = UI_NOMEM;
		if (rc == UI_OK)
			rc = add_command(cmds, "dev.perfetto.PinTracksByRegex", re.p, re.len);
	}
	if (rc == UI_OK && (c->query != NULL || guides))
		rc = add_command(cmds, "dev.perfetto.RunQueryAndShowTab",
				 c->query ? c->query : ui_default_query,
				 strlen(c->query ? c->query : ui_default_query));
	if (rc == UI_OK && buf_addch(cmds, ']') != 0)
		rc = UI_NOMEM;
	buf_release(&re);
	return rc;
}

int ui_shown(const struct ui_view *v, const struct ui_choice *c, struct ui_shown *s,
	struct buf *why)
{
	size_t i;
	int found = 0;

	memset(s, 0, sizeof *s);
	if (c->no_setup)
		return UI_OK;
	for (i = 0; i < v->nguides; i++)
		s->guides |= in_window(v, &v->guides[i]);
	/* the pass: asked for, else 0, else (in a window) the first one there */
	s->pass = c->pass_given ? c->pass : 0;
	if (!c->pass_given && v->have_window) {
		s->pass = INT64_MAX;
		for (i = 0; i < v->nguides; i++)
			if (in_window(v, &v->guides[i]) && v->guides[i].pass < s->pass)
				s->pass = v->guides[i].pass;
	}
	for (i = 0; i < v->nguides; i++) {
		const struct ui_guide *g = &v->guides[i];

		if (g->pass != s->pass || !in_window(v, g))
			continue;
		if (!found || g->start_ns < s->start_ns)
			s->start_ns = g->start_ns;
		if (!found || g->end_ns > s->end_ns)
			s->end_ns = g->end_ns;
		if (!found || g->layer < s->first_layer)
			s->first_layer = g->layer;
		if (!found || g->layer > s->last_layer)
			s->last_layer = g->layer;
		found = 1;
		if (c->layer_given && g->layer == c->layer)
			s->sel = g;
	}
	if ((c->pass_given || c->layer_given) && !found)
		return refuse(why, v, "--pass", s->pass);
	if (c->layer_given && s->sel == NULL) {
		buf_reset(why);
		buf_printf(why, "--layer %lld: pass %lld has no guide L%lld", (long long)c->layer,
			   (long long)s->pass, (long long)c->layer);
		return UI_REFUSED;
	}
	s->by_pass = found;
	if (!found && v->have_window) {
		s->start_ns = v->window_start_ns;
		s->end_ns = v->window_end_ns;
		s->by_window = 1;
		found = 1;
	}
	/* a pass of one zero-length marker: 1 µs wide, or nothing shows */
	if (found && s->end_ns <= s->start_ns)
		s->end_ns = s->start_ns + 1000;
	return UI_OK;
}

int ui_build_params(const struct ui_view *v, const struct ui_choice *c, struct buf *out,
	struct buf *why)
{
	struct buf cmds = BUF_INIT;
	struct ui_shown s;
	int rc = ui_shown(v, c, &s, why);

	if (rc != UI_OK || c->no_setup)
		return rc;
	if ((s.by_pass || s.by_window) && (add_ns_param(out, "visStart", s.start_ns) != 0 ||
					     add_ns_param(out, "visEnd", s.end_ns) != 0))
		rc = UI_NOMEM;
	if (rc == UI_OK && s.sel != NULL &&
	    (add_ns_param(out, "ts", s.sel->start_ns) != 0 ||
	     add_ns_param(out, "dur", s.sel->end_ns - s.sel->start_ns) != 0))
		rc = UI_NOMEM;
	if (rc == UI_OK && (v->npins > 0 || v->npids > 0 || s.guides || c->query != NULL)) {
		rc = build_commands(v, c, s.guides, &cmds);
		if (rc == UI_OK)
			rc = add_param(out, "startupCommands", cmds.p, cmds.len);
	}
	buf_release(&cmds);
	return rc;
}
