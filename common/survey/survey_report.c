/* survey_report: see survey_report.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "survey/survey_report.h"
#include "json/tsnum.h"

static int put_text(struct buf *b, const char *s)
{
	return json_escape(b, s, strlen(s));
}

int survey_report_shell_quote(struct buf *out, const char *s)
{
	int rc = buf_addch(out, '\'');

	for (; *s; s++) {
		if (*s == '\'')
			rc |= buf_addstr(out, "'\\''");
		else
			rc |= buf_addch(out, *s);
	}
	return rc | buf_addch(out, '\'');
}

/* "73 = 2 x 36 + 1": the true arithmetic of a count against kN. */
static int put_times_arith(struct buf *b, size_t n, size_t N, size_t k)
{
	size_t p = n / (k * N), r = n % (k * N);
	int rc;

	if (p == 0)
		return buf_printf(b, "%zu < %zu x %zu", n, k, N);
	rc = buf_printf(b, "%zu = %zu x %zu", n, k, N);
	if (p > 1)
		rc |= buf_printf(b, " x %zu", p);
	if (r)
		rc |= buf_printf(b, " + %zu", r);
	return rc;
}

/* "once", "twice", "three times", "k times" per layer. */
static int put_times(struct buf *b, int k)
{
	if (k == 1)
		return buf_addstr(b, "once");
	if (k == 2)
		return buf_addstr(b, "twice");
	if (k == 3)
		return buf_addstr(b, "three times");
	return buf_printf(b, "%d times", k);
}

/* A name as the report shows it: whole in JSON (up to a NUL, as the text
 * has always been), shortened in the text (survey_short_name). */
static int put_name(const struct survey_report *r, struct buf *b, const char *name)
{
	return r->json ? buf_addstr(b, name) : survey_short_name(b, name, strlen(name));
}

/* Each line of lines (every one ended by '\n') as a JSON string, with
 * commas between. */
static int put_lines_json(struct buf *out, const struct buf *lines)
{
	const char *p;
	int rc = 0;

	for (p = lines->p; *p;) {
		const char *nl = strchr(p, '\n');
		if (p != lines->p)
			rc |= buf_addch(out, ',');
		rc |= json_escape(out, p, (size_t)(nl - p));
		p = nl + 1;
	}
	return rc;
}

/* Occurrences per ProfilerStep (an occurrence belongs to the last step
 * that started at or before it), run-length coded: "0, 80 x 8". */
static int put_per_step(const struct survey_report *r, const struct survey_name *s,
			struct buf *b)
{
	size_t *count = calloc(r->nsteps, sizeof *count), i, j = 0, before = 0, run;
	int rc = 0;

	if (count == NULL)
		return -1;
	for (i = 0; i < s->n; i++) {
		while (j + 1 < r->nsteps && r->steps[j + 1].start <= s->occ[i].ts)
			j++;
		if (s->occ[i].ts < r->steps[0].start)
			before++;
		else
			count[j]++;
	}
	if (r->json) {
		rc |= buf_printf(b, "{\"before_first\":%zu,\"counts\":[", before);
		for (i = 0; i < r->nsteps; i++)
			rc |= buf_printf(b, "%s%zu", i ? "," : "", count[i]);
		rc |= buf_addstr(b, "]}");
	} else {
		for (i = 0; i < r->nsteps; i += run) {
			for (run = 1; i + run < r->nsteps && count[i + run] == count[i]; run++)
				;
			rc |= buf_printf(b, "%s%zu", i ? ", " : "", count[i]);
			if (run > 1)
				rc |= buf_printf(b, " x %zu", run);
		}
		if (before)
			rc |= buf_printf(b, "; %zu before the first step", before);
	}
	free(count);
	return rc;
}

static const char *split_word(enum survey_split_kind k)
{
	switch (k) {
	case SURVEY_SPLIT_SINGLE: return "single";
	case SURVEY_SPLIT_CLEAN: return "clean";
	case SURVEY_SPLIT_AMBIGUOUS: return "ambiguous";
	default: return "none";
	}
}

/* The reasons weigh s against an ideal anchor: a clean split, regular
 * spacing, an ally, one stream, whole passes only. */
int survey_report_reasons(const struct survey_report *r, const struct survey_name *s,
			  const struct survey_ranking *rk, struct buf *out)
{
	const struct survey_name *top = rk->top;
	size_t k, on, N = r->N;
	int rc = 0;

	if (s->sp.kind == SURVEY_SPLIT_AMBIGUOUS)
		rc |= buf_addstr(out, "its passes are not separated by gaps larger than those inside "
				 "them\n");
	if (s->cv > SURVEY_IRREGULAR_CV)
		rc |= buf_printf(out, "irregular spacing %s (cv %.2f)\n",
				 N == 1 ? "between passes" : "inside passes", s->cv);
	if (s->confirms == 0 && rk->ncand > 1)
		rc |= buf_addstr(out, "no other candidate interleaves one-to-one with it\n");
	if (top != NULL && s != top && s->sp.passes < top->sp.passes)
		rc |= buf_printf(out, "fewer complete passes (%zu) than candidate 1 (%zu)\n",
				 s->sp.passes, top->sp.passes);
	if (top != NULL && s != top && s->sp.passes > top->sp.passes &&
	    (k = survey_passes_inside(s, top, N)) > 1)
		rc |= buf_printf(out, "%zu of its passes lie inside one pass of candidate 1 (several "
				 "per layer?)\n", k);
	survey_steps_vs_passes(r->steps, r->nsteps, s, N, &on, &k);
	if (k > 0)
		rc |= buf_printf(out, "%zu ProfilerStep start%s inside its passes\n", k,
				 k == 1 ? " falls" : "s fall");
	if (s->n % N != 0)
		rc |= buf_printf(out, "partial passes (%zu is not a multiple of %zu)\n", s->n, N);
	if (s->nstreams > 1)
		rc |= buf_printf(out, "runs on %u streams\n", s->nstreams);
	return rc;
}

/* Each pass's span (ms from the trace start) and the bytes of the events
 * that overlap it; in the text "A-B (N bytes)", in JSON [A,B]. */
static int put_spans(const struct survey_report *r, const struct survey_name *s,
		     struct buf *b, size_t limit)
{
	size_t j;
	int64_t a, e;
	int rc = 0, json = r->json;

	for (j = 0; j < s->sp.passes && j < limit; j++) {
		survey_pass_span(s, r->N, j, &a, &e);
		rc |= buf_addstr(b, j ? (json ? "," : ", ") : "");
		rc |= buf_addstr(b, json ? "[" : "");
		rc |= tsnum_append_ms6(b, a - r->origin_ns);
		rc |= buf_addstr(b, json ? "," : "-");
		rc |= tsnum_append_ms6(b, e - r->origin_ns);
		if (json)
			rc |= buf_addstr(b, "]");
		else
			rc |= buf_printf(b, " (%" PRIu64 " bytes)",
					 window_tally_bytes(r->tally, s->span0 + j));
	}
	if (j < s->sp.passes)
		rc |= buf_printf(b, " and %zu more (--json lists all)", s->sp.passes - j);
	return rc;
}

static int put_pass_bytes(const struct survey_report *r, const struct survey_name *s,
			  struct buf *b)
{
	size_t j;
	int rc = 0;

	for (j = 0; j < s->sp.passes; j++)
		rc |= buf_printf(b, "%s%" PRIu64, j ? "," : "",
				 window_tally_bytes(r->tally, s->span0 + j));
	return rc;
}

/* Second landmarks for the command's candidate (tr-select-anchors
 * --confirm-regex): the kernels of the group that occur exactly once between
 * consecutive occurrences of it (at its compared gaps), listed with the
 * exact regex. */
static int put_landmarks(const struct survey_report *r, const struct survey_ranking *rk,
			 struct buf *out)
{
	size_t i, shown = 0;
	struct buf rx = BUF_INIT;
	int rc = 0;

	if (r->json)
		rc |= buf_addstr(out, ",\"landmarks\":[");
	for (i = 0; i < rk->n && shown < r->top_k; i++) {
		const struct survey_name *s = rk->order[i];
		if (s == rk->start || survey_interleave(rk->start, s, r->N) != 1)
			continue;
		buf_reset(&rx);
		if (survey_exact_regex(&rx, s->name, s->name_len) < 0) {
			rc = -1;
			break;
		}
		if (r->json) {
			rc |= buf_addstr(out, shown ? ",{\"name\":" : "{\"name\":");
			rc |= json_escape(out, s->name, s->name_len);
			rc |= buf_addstr(out, ",\"regex\":");
			rc |= put_text(out, rx.p);
			rc |= buf_addch(out, '}');
		} else {
			if (shown == 0)
				rc |= buf_printf(out, "second landmarks, once between consecutive "
						 "anchors of candidate %zu (add one with --confirm-regex):\n",
						 rk->start_rank);
			rc |= buf_addstr(out, "  --confirm-regex ");
			rc |= survey_report_shell_quote(out, rx.p);
			rc |= buf_addch(out, '\n');
		}
		shown++;
	}
	if (r->json)
		rc |= buf_addch(out, ']');
	buf_release(&rx);
	return rc;
}

/* A name's family and rank position: sorted by family, then position. */
struct family_pos {
	const char *family;
	size_t pos;
};

static int cmp_family_pos(const void *a, const void *b)
{
	const struct family_pos *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	if (c)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Families whose members run in runs of different lengths: for each name,
 * the first name after it in rank order of the same family. */
static int warn_families(const struct survey_report *r, const struct survey_ranking *rk,
			 struct buf *warn)
{
	size_t i, k, n = rk->n;
	struct family_pos *fam = malloc((n + 1) * sizeof *fam);
	size_t *fpos = malloc((n + 1) * sizeof *fpos);
	int rc = 0;

	if (fam == NULL || fpos == NULL) {
		free(fam);
		free(fpos);
		return -1;
	}
	for (i = 0; i < n; i++)
		fam[i] = (struct family_pos){ rk->order[i]->family, i };
	qsort(fam, n, sizeof *fam, cmp_family_pos);
	for (i = 0; i < n; i++)
		fpos[fam[i].pos] = i;
	for (i = 0; i < n; i++) {
		const struct survey_name *s = rk->order[i];
		for (k = fpos[i] + 1; k < n; k++) {
			const struct survey_name *o = rk->order[fam[k].pos];
			if (strcmp(s->family, o->family) != 0)
				break;
			if (s->len_a >= 2 && o->len_a >= 2 && s->len_a != o->len_a && s->nruns > 1 &&
			    o->nruns > 1 && (s->score > 0 || o->score > 0)) {
				rc |= buf_printf(warn, "one family, runs of %zu and %zu%s: anchor "
						 "the regex on the template arguments: ", s->len_a,
						 o->len_a, r->training ? "" :
						 " (draft and target passes?)");
				rc |= put_name(r, warn, s->family);
				rc |= buf_addch(warn, '\n');
				break;
			}
		}
	}
	free(fam);
	free(fpos);
	return rc;
}

/* An ambiguous split's warning: what the passes rest on. */
static int warn_ambiguous(const struct survey_report *r, const struct survey_name *s,
			  struct buf *warn)
{
	size_t N = r->N, on, in;
	int rc = buf_addstr(warn, "passes ambiguous: a gap inside a pass (");

	rc |= tsnum_append_ms6(warn, s->sp.max_inside);
	rc |= buf_addstr(warn, " ms) is not smaller than the smallest gap between passes (");
	rc |= tsnum_append_ms6(warn, s->sp.min_between);
	rc |= buf_printf(warn, " ms); %zu passes of exactly %zu assumed", s->sp.passes, N);
	if (s->clean_partner) {
		rc |= buf_printf(warn, ", as candidate %zu (one-to-one, split cleanly) shows",
				 s->clean_partner);
	} else if (r->nsteps < 2) {
		rc |= buf_addstr(warn, "; check them against the time spans");
	} else {
		survey_steps_vs_passes(r->steps, r->nsteps, s, N, &on, &in);
		if (in == 0 && on > 0)
			rc |= buf_printf(warn, "; %zu ProfilerStep start%s at pass boundaries, none "
					 "inside a pass", on, on == 1 ? " falls" : "s fall");
		else
			rc |= buf_printf(warn, "; %zu ProfilerStep start%s inside passes, compare "
					 "them with the counts", in, in == 1 ? " falls" : "s fall");
	}
	rc |= buf_addstr(warn, ": ");
	rc |= put_name(r, warn, s->name);
	return rc | buf_addch(warn, '\n');
}

/* The group's warnings, one per line: names that run k times per layer,
 * then per listed candidate partial passes, an ambiguous split and several
 * streams, then families in runs of two lengths. */
static int warnings(const struct survey_report *r, const struct survey_ranking *rk,
		    struct buf *warn)
{
	size_t i, N = r->N;
	int rc = 0;

	for (i = 0; i < rk->n; i++) {
		const struct survey_name *s = rk->order[i];
		int k = s->times_between ? s->times_between : s->times_by_count;
		if (k == 0)
			continue;
		rc |= put_times(warn, k);
		if (s->times_between) {
			rc |= buf_printf(warn, " per layer (%d between consecutive occurrences of "
					 "candidate 1; ", k);
			rc |= put_times_arith(warn, s->n, N, (size_t)k);
		} else {
			rc |= buf_addstr(warn, " per layer (");
			rc |= put_times_arith(warn, s->n, N, (size_t)k);
			rc |= buf_printf(warn, "; its gaps fit passes of %zu, not passes of %zu",
					 (size_t)k * N, N);
		}
		rc |= buf_addstr(warn, "): ");
		rc |= put_name(r, warn, s->name);
		rc |= buf_addch(warn, '\n');
	}
	for (i = 0; i < rk->listed; i++) {
		const struct survey_name *s = rk->order[i];
		if (s->n % N != 0) {
			rc |= buf_printf(warn, "%zu is not a multiple of %zu (%zu = %zu x %zu + %zu: ",
					 s->n, N, s->n, s->n / N, N, s->n % N);
			if (s->sp.offset)
				rc |= buf_printf(warn, "a partial first pass of %zu", s->sp.offset);
			if (s->sp.offset && s->sp.partial_last)
				rc |= buf_addstr(warn, ", ");
			if (s->sp.partial_last)
				rc |= buf_printf(warn, "a partial last pass of %zu", s->sp.partial_last);
			rc |= buf_addstr(warn, "): ");
			rc |= put_name(r, warn, s->name);
			rc |= buf_addch(warn, '\n');
		}
		if (s->sp.kind == SURVEY_SPLIT_AMBIGUOUS)
			rc |= warn_ambiguous(r, s, warn);
		if (s->nstreams > 1) {
			rc |= buf_printf(warn, "runs on %u streams: ", s->nstreams);
			rc |= put_name(r, warn, s->name);
			rc |= buf_addch(warn, '\n');
		}
	}
	return rc | warn_families(r, rk, warn);
}

/* The starting command for the first listed candidate with whole passes,
 * and a warning when its regex cannot be exact.  The command is written
 * whole, whatever the length of the name. */
static int command(const struct survey_report *r, const char *key,
		   const struct survey_ranking *rk, struct buf *warn, struct buf *cmd)
{
	const struct survey_name *top = rk->start;
	struct buf rx = BUF_INIT;
	int rc = 0, exact = survey_exact_regex(&rx, top->name, top->name_len);

	if (exact < 0) {
		buf_release(&rx);
		return -1;
	}
	if (!exact) {
		rc |= buf_addstr(warn, "the name holds bytes that are not UTF-8, which no regex "
				 "matches; the command's regex covers its longest valid part, so "
				 "check that it matches this kernel only: ");
		rc |= put_name(r, warn, top->name);
		rc |= buf_addch(warn, '\n');
	}
	rc |= buf_addstr(cmd, "tr-layer-track --trace TRACE --output OUT --anchor-regex ");
	rc |= survey_report_shell_quote(cmd, rx.p);
	rc |= buf_printf(cmd, " --num-layers %zu --anchor-offset %zu --passes %zu "
			 "--pid %.*s --phase PHASE --evidence 'WHY L0 IS L0'", r->N,
			 top->sp.offset, top->sp.passes, (int)(strchr(key, '\001') - key), key);
	buf_release(&rx);
	return rc;
}

static int put_ms_or_null(struct buf *b, int64_t ns)
{
	return ns >= 0 ? tsnum_append_ms6(b, ns) : buf_addstr(b, "null");
}

static int candidate_json(const struct survey_report *r, const struct survey_ranking *rk,
			  size_t rank, struct buf *why, struct buf *out)
{
	const struct survey_name *s = rk->order[rank];
	size_t N = r->N;
	int whole, rc = buf_addstr(out, rank ? ",{\"name\":" : "{\"name\":");

	rc |= put_text(out, s->name);
	rc |= buf_printf(out, ",\"count\":%zu,\"per_layer\":%.3f,\"passes\":%zu,\"anchor_offset\":%zu,"
			 "\"partial_first\":%zu,\"partial_last\":%zu,\"split\":\"%s\","
			 "\"min_gap_between_ms\":", s->n, (double)s->n / (double)N, s->sp.passes,
			 s->sp.offset, s->sp.offset, s->sp.partial_last, split_word(s->sp.kind));
	rc |= put_ms_or_null(out, s->sp.min_between);
	rc |= buf_addstr(out, ",\"max_gap_inside_ms\":");
	rc |= put_ms_or_null(out, s->sp.max_inside);
	whole = survey_passes_whole(s, N, r->steps, r->nsteps);
	rc |= whole < 0 ? -1 : 0;
	rc |= buf_printf(out, ",\"streams\":%u,\"spacing_cv\":%.3f,\"score\":%.3f,\"confirms\":%u,"
			 "\"whole_passes\":%s,\"confirmed_by\":", s->nstreams, s->cv, s->score, s->confirms,
			 whole > 0 ? "true" : "false");
	if (s->confirmed_by)
		rc |= put_text(out, s->confirmed_by);
	else
		rc |= buf_addstr(out, "null");
	rc |= buf_addstr(out, ",\"pass_spans_ms\":[");
	rc |= put_spans(r, s, out, SIZE_MAX);
	rc |= buf_addstr(out, "],\"pass_bytes\":[");
	rc |= put_pass_bytes(r, s, out);
	rc |= buf_addstr(out, "],\"per_step\":");
	if (r->nsteps >= 2)
		rc |= put_per_step(r, s, out);
	else
		rc |= buf_addstr(out, "null");
	rc |= buf_addstr(out, ",\"weaker\":[");
	buf_reset(why);
	rc |= survey_report_reasons(r, s, rk, why);
	rc |= put_lines_json(out, why);
	return rc | buf_addstr(out, "]}");
}

/* Why there is no starting command although there are candidates. */
static int no_command(const struct survey_report *r, struct buf *b)
{
	return buf_printf(b, "no starting command: no listed candidate has whole passes of %zu "
			  "(split at gaps larger than those inside them, no ProfilerStep starting "
			  "inside one); the trace may not run %zu layers per pass", r->N, r->N);
}

static int group_json(const struct survey_report *r, const char *key,
		      const struct survey_ranking *rk, int first, const struct buf *warn,
		      const struct buf *cmd, struct buf *why, struct buf *out)
{
	const char *sep = strchr(key, '\001');
	size_t shown;
	int rc = buf_printf(out, "%s{\"pid\":%.*s,\"device\":%s,\"candidates\":[", first ? "" : ",",
			    (int)(sep - key), key, sep + 1);

	for (shown = 0; shown < rk->listed; shown++)
		rc |= candidate_json(r, rk, shown, why, out);
	rc |= buf_printf(out, "],\"more_candidates\":%zu,\"warnings\":[", rk->ncand - rk->listed);
	rc |= put_lines_json(out, warn);
	rc |= buf_addstr(out, "],\"command\":");
	if (rk->start) {
		rc |= put_text(out, cmd->p);
		rc |= buf_printf(out, ",\"command_candidate\":%zu,\"command_note\":null",
				 rk->start_rank);
		rc |= put_landmarks(r, rk, out);
	} else {
		rc |= buf_addstr(out, "null,\"command_candidate\":null,\"command_note\":");
		if (rk->top) {
			struct buf note = BUF_INIT;
			rc |= no_command(r, &note);
			rc |= put_text(out, note.p);
			buf_release(&note);
		} else {
			rc |= buf_addstr(out, "null");
		}
		rc |= buf_addstr(out, ",\"landmarks\":[]");
	}
	return rc | buf_addch(out, '}');
}

static int candidate_text(const struct survey_report *r, const struct survey_ranking *rk,
			  size_t rank, struct buf *why, struct buf *out)
{
	const struct survey_name *s = rk->order[rank];
	size_t N = r->N;
	int rc = buf_printf(out, "  %zu. %zu x (%zu / %zu layer%s = %.2f), %zu pass%s of %zu, %s, "
			    "spacing cv %.2f, %u stream%s; --anchor-offset %zu --passes %zu\n     ",
			    rank + 1, s->n, s->n, N, N == 1 ? "" : "s", (double)s->n / (double)N, s->sp.passes,
			    s->sp.passes == 1 ? "" : "es", N,
			    s->sp.kind == SURVEY_SPLIT_CLEAN ? "split at larger gaps" :
			    s->sp.kind == SURVEY_SPLIT_SINGLE ? "exactly one pass" : "split ambiguous",
			    s->cv, s->nstreams, s->nstreams == 1 ? "" : "s", s->sp.offset,
			    s->sp.passes);

	rc |= put_name(r, out, s->name);
	rc |= buf_addch(out, '\n');

	if (s->confirms)
		rc |= buf_printf(out, "     (%u other candidate%s interleave one-to-one with it)\n",
				 s->confirms, s->confirms == 1 ? "" : "s");
	rc |= buf_addstr(out, "     passes (ms from the trace start, bytes of the events in each): ");
	rc |= put_spans(r, s, out, SURVEY_REPORT_TEXT_SPANS);
	rc |= buf_addch(out, '\n');
	if (r->nsteps >= 2) {
		rc |= buf_printf(out, "     per ProfilerStep (%zu steps): ", r->nsteps);
		rc |= put_per_step(r, s, out);
		rc |= buf_addch(out, '\n');
	}
	buf_reset(why);
	rc |= survey_report_reasons(r, s, rk, why);
	if (why->len) {
		const char *p = why->p;
		rc |= buf_addstr(out, "     weaker evidence: ");
		while (*p) {
			const char *nl = strchr(p, '\n');
			rc |= buf_add(out, p, (size_t)(nl - p));
			rc |= buf_addstr(out, nl[1] ? "; " : "\n");
			p = nl + 1;
		}
	}
	return rc;
}

static int group_text(const struct survey_report *r, const char *key,
		      const struct survey_ranking *rk, const struct buf *warn,
		      const struct buf *cmd, struct buf *why, struct buf *out)
{
	const char *sep = strchr(key, '\001');
	size_t shown, N = r->N, more = rk->ncand - rk->listed;
	int rc = buf_printf(out, "== pid %.*s, device %s: %zu kernel names\n", (int)(sep - key),
			    key, sep + 1, rk->n);

	if (N == 1)
		rc |= buf_addstr(out, "anchor candidates (--num-layers 1: each occurrence is a pass "
				 "of its own):\n");
	else
		rc |= buf_printf(out, "anchor candidates (%zu or more occurrences, cut into passes "
				 "of %zu):\n", N, N);
	for (shown = 0; shown < rk->listed; shown++)
		rc |= candidate_text(r, rk, shown, why, out);
	if (rk->listed == 0)
		rc |= buf_printf(out, rk->any_n ? "  none: every kernel that occurs %zu times or "
				 "more runs more than once per layer (see the warnings)\n" :
				 "  none: no kernel occurs %zu times or more\n", N);
	if (more)
		rc |= buf_printf(out, "  %zu more candidate%s: --top %zu lists %s\n", more,
				 more == 1 ? "" : "s", rk->ncand, more == 1 ? "it" : "them");
	if (warn->len)
		rc |= buf_printf(out, "warnings:\n%s", warn->p);
	if (rk->start) {
		rc |= buf_printf(out, "starting point, candidate %zu (verify L0 yourself before "
				 "publishing):\n  %s\n", rk->start_rank, cmd->p);
		rc |= put_landmarks(r, rk, out);
	} else if (rk->top) {
		rc |= no_command(r, out);
		rc |= buf_addch(out, '\n');
	}
	return rc;
}

int survey_report_group(const struct survey_report *r, const char *key,
			const struct survey_ranking *rk, int first, struct buf *out)
{
	struct buf warn = BUF_INIT, cmd = BUF_INIT, why = BUF_INIT;
	int rc = warnings(r, rk, &warn);

	if (rk->start != NULL)
		rc |= command(r, key, rk, &warn, &cmd);
	if (rc == 0 && r->json)
		rc = group_json(r, key, rk, first, &warn, &cmd, &why, out);
	else if (rc == 0)
		rc = group_text(r, key, rk, &warn, &cmd, &why, out);
	buf_release(&warn);
	buf_release(&cmd);
	buf_release(&why);
	return rc;
}

int survey_report_head(const struct survey_report *r, struct buf *out)
{
	int rc;

	if (!r->json)
		return 0;
	rc = r->N ? buf_printf(out, "{\"num_layers\":%zu,\"trace_origin_us\":", r->N) :
		    buf_addstr(out, "{\"num_layers\":null,\"trace_origin_us\":");
	if (r->have_origin)
		rc |= tsnum_append_us3(out, r->origin_ns);
	else
		rc |= buf_addstr(out, "null");
	return rc | buf_printf(out, ",\"profiler_steps\":%zu,\"groups\":[", r->nsteps);
}

/* JSON: every pid and device pair left out; text, only when nothing
 * matched: where the kernels are, 20 pairs at most. */
int survey_report_tail(const struct survey_report *r, size_t ngroups,
		       const struct survey_elsewhere *e, struct buf *out)
{
	size_t i;
	int rc = 0;

	if (r->json) {
		rc |= buf_addstr(out, "],\"kernels_elsewhere\":[");
		for (i = 0; i < e->n; i++) {
			const char *key = e->keys[i], *sep = strchr(key, '\001');
			rc |= buf_printf(out, "%s{\"pid\":%.*s,\"device\":%s,\"kernels\":%" PRIu64 "}",
					 i ? "," : "", (int)(sep - key), key, sep + 1, e->kernels[i]);
		}
		return rc | buf_addstr(out, "]}\n");
	}
	if (ngroups > 0)
		return 0;
	if (e->n == 0)
		return buf_addstr(out, "no GPU kernels in the stream\n");
	rc |= buf_addstr(out, "no GPU kernels");
	if (e->pid)
		rc |= buf_printf(out, " in pid %s", e->pid);
	if (e->device)
		rc |= buf_printf(out, " on device %s", e->device);
	rc |= buf_addstr(out, "; kernels are in:\n");
	for (i = 0; i < e->n && i < 20; i++) {
		const char *key = e->keys[i], *sep = strchr(key, '\001');
		rc |= buf_printf(out, "  pid %.*s, device %s: %" PRIu64 " kernel%s\n", (int)(sep - key),
				 key, sep + 1, e->kernels[i], e->kernels[i] == 1 ? "" : "s");
	}
	if (i < e->n)
		rc |= buf_printf(out, "  and %zu more pid and device pairs\n", e->n - i);
	return rc;
}

/* A count per pass and the names that have it. */
struct count_names {
	size_t count, first, n;   /* first: index in the sorted names */
};

struct named_count {
	size_t count;
	const struct survey_name *s;
};

static int cmp_named_count(const void *a, const void *b)
{
	const struct named_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return strcmp(x->s->name, y->s->name);
}

/* Counts above 1 first (once per pass is no layer count), then most names
 * first (once-per-layer kernels share the layer count), then the smaller
 * count. */
static int cmp_count_names(const void *a, const void *b)
{
	const struct count_names *x = a, *y = b;

	if ((x->count == 1) != (y->count == 1))
		return x->count == 1 ? 1 : -1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->count < y->count ? -1 : x->count > y->count;
}

int survey_report_counts(const struct survey_report *r, const char *key,
			 struct survey_name *const *names, size_t n, int first, struct buf *out)
{
	const char *sep = strchr(key, '\001');
	struct named_count *nc = malloc((n + 1) * sizeof *nc);
	struct count_names *cn = malloc((n + 1) * sizeof *cn);
	size_t i, k, m = 0, ncn = 0, shown;
	int steps = r->nsteps >= 2, rc = 0;

	if (nc == NULL || cn == NULL) {
		free(nc);
		free(cn);
		return -1;
	}
	for (i = 0; i < n; i++) {
		size_t c = steps ? survey_per_step(names[i], r->steps, r->nsteps) : names[i]->n;
		if (c > 0)
			nc[m++] = (struct named_count){ c, names[i] };
	}
	qsort(nc, m, sizeof *nc, cmp_named_count);
	for (i = 0; i < m; i = k) {
		for (k = i + 1; k < m && nc[k].count == nc[i].count; k++)
			;
		cn[ncn++] = (struct count_names){ nc[i].count, i, k - i };
	}
	qsort(cn, ncn, sizeof *cn, cmp_count_names);
	shown = ncn < r->top_k ? ncn : r->top_k;
	if (r->json) {
		rc |= buf_printf(out, "%s{\"pid\":%.*s,\"device\":%s,\"per\":\"%s\",\"counts\":[",
				 first ? "" : ",", (int)(sep - key), key, sep + 1,
				 steps ? "step" : "trace");
		for (i = 0; i < shown; i++) {
			rc |= buf_printf(out, "%s{\"count\":%zu,\"names\":[", i ? "," : "",
					 cn[i].count);
			for (k = 0; k < cn[i].n; k++) {
				const struct survey_name *s = nc[cn[i].first + k].s;
				rc |= buf_addstr(out, k ? "," : "");
				rc |= json_escape(out, s->name, s->name_len);
			}
			rc |= buf_addstr(out, "]}");
		}
		rc |= buf_printf(out, "],\"more_counts\":%zu}", ncn - shown);
	} else {
		rc |= buf_printf(out, "== pid %.*s, device %s: %zu kernel names\n", (int)(sep - key),
				 key, sep + 1, n);
		if (steps)
			rc |= buf_printf(out, "counts per ProfilerStep (%zu steps; the names with the "
					 "same count in every step, most shared count first, 1 last):\n",
					 r->nsteps);
		else
			rc |= buf_addstr(out, "counts in the whole trace (no ProfilerStep markers: the "
					 "trace is one pass; most shared count first, 1 last):\n");
		for (i = 0; i < shown; i++) {
			rc |= buf_printf(out, "  %zu %s: %zu name%s: ", cn[i].count,
					 steps ? "per step" : "in the trace", cn[i].n,
					 cn[i].n == 1 ? "" : "s");
			for (k = 0; k < cn[i].n && k < 3; k++) {
				rc |= buf_addstr(out, k ? ", " : "");
				rc |= put_name(r, out, nc[cn[i].first + k].s->name);
			}
			if (k < cn[i].n)
				rc |= buf_printf(out, " and %zu more", cn[i].n - k);
			rc |= buf_addch(out, '\n');
		}
		if (ncn == 0)
			rc |= buf_addstr(out, "  none: no kernel name occurs the same number of times "
					 "in every step\n");
		if (shown < ncn)
			rc |= buf_printf(out, "  %zu more count%s: --top %zu lists %s\n", ncn - shown,
					 ncn - shown == 1 ? "" : "s", ncn,
					 ncn - shown == 1 ? "it" : "them");
		rc |= buf_addstr(out, "a once-per-layer kernel occurs the number of layers times per "
				 "pass: give that number as --num-layers N for anchor candidates, "
				 "their passes and a starting command\n");
	}
	free(nc);
	free(cn);
	return rc;
}
