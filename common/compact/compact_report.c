/* compact_report: see compact_report.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact_report.h"
#include "compact/compact_impl.h"
#include "json/json.h"
#include "stream/trstream.h"

const char compact_notice[] =
	"Compact view: GPU activity is drawn on synthetic display lanes that never "
	"overlap. Lanes are not CUDA streams and this is not a runtime change: kernel "
	"names, ts, dur and args.stream are as recorded, and args._compact_gpu_track "
	"holds each moved event's original pid and tid. Use the original trace for "
	"stream scheduling and synchronisation.";

static int put_json_text(struct buf *b, const char *s)
{
	return json_escape(b, s, strlen(s));
}

int compact_report_group_metadata(const struct compact_group_meta *g, struct buf *out,
				  uint64_t *count)
{
	struct buf name = BUF_INIT;
	unsigned k;
	int fail = 0;

	if (g->scope) {
		fail |= buf_printf(&name, "GPU scopes (original PID %s", g->pid);
		if (g->by_device)
			fail |= buf_printf(&name, ", device %s", g->device);
		fail |= buf_addch(&name, ')');
		fail |= buf_printf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%s,"
				   "\"tid\":0,\"args\":{\"name\":", g->display_pid);
		fail |= put_json_text(out, name.p);
		fail |= buf_addstr(out, "}}\n");
		(*count)++;
	}
	for (k = 0; k < g->nlanes; k++) {
		buf_reset(&name);
		if (g->scope && g->by_device)
			fail |= buf_printf(&name, "GPU scope lane %u (synthetic; original PID %s, "
					   "device %s)", k + 1, g->pid, g->device);
		else if (g->scope)
			fail |= buf_printf(&name, "GPU scope lane %u (synthetic; original PID %s)",
					   k + 1, g->pid);
		else
			fail |= buf_printf(&name, "GPU lane %u (synthetic; device %s)", k + 1,
					   g->device);
		fail |= buf_printf(out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%s,"
				   "\"tid\":%" PRId64 ",\"args\":{\"name\":", g->display_pid,
				   g->lane_tid[k]);
		fail |= put_json_text(out, name.p);
		fail |= buf_addstr(out, "}}\n");
		/* after the layer guide (-1000), in lane order */
		fail |= buf_printf(out, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%s,"
				   "\"tid\":%" PRId64 ",\"args\":{\"sort_index\":%d}}\n",
				   g->display_pid, g->lane_tid[k], -1000 + (int)k + 1);
		*count += 2;
	}
	buf_release(&name);
	return fail ? COMPACT_NOMEM : COMPACT_OK;
}

int compact_report_metadata(struct compact *c, struct buf *out)
{
	size_t gi;
	char space[24];

	for (gi = 0; gi < c->groups_by_key.n; gi++) {
		const struct compact_group *g = &c->groups[gi];
		struct compact_group_meta m;
		m.scope = g->kind == COMPACT_SCOPE;
		m.pid = g->pid;
		m.display_pid = compact_display_pid(g, space);
		m.device = g->device;
		m.by_device = g->by_device;
		m.nlanes = g->nlanes;
		m.lane_tid = g->lane_tid;
		if (compact_report_group_metadata(&m, out, &c->new_metadata) != COMPACT_OK)
			return COMPACT_NOMEM;
	}
	return COMPACT_OK;
}

struct group_stream {
	uint32_t track;
	int kernels;          /* some of its events in the group are kernels */
};

static int cmp_group_stream(const void *a, const void *b)
{
	const struct group_stream *x = a, *y = b;

	return x->track < y->track ? -1 : x->track > y->track;
}

/* The tracks (streams) with events in a group, in track order, each once:
 * read from the group's per-lane tallies, so the cost is the group's own
 * size, not the number of tracks in the trace (malloc'd, NULL when memory
 * runs out; *n set). */
static struct group_stream *group_streams(const struct compact_group *g, size_t *n)
{
	struct group_stream *s;
	size_t total = 0, i, j;
	unsigned k;

	for (k = 0; k < g->nlanes; k++)
		total += g->ncounts[k];
	s = malloc((total + 1) * sizeof *s);
	if (s == NULL)
		return NULL;
	for (k = 0, i = 0; k < g->nlanes; k++)
		for (j = 0; j < g->ncounts[k]; j++, i++) {
			s[i].track = g->counts[k][j].track;
			s[i].kernels = g->counts[k][j].kernels > 0;
		}
	if (total > 1)
		qsort(s, total, sizeof *s, cmp_group_stream);
	for (i = 0, j = 0; i < total; i++) {
		if (j > 0 && s[j - 1].track == s[i].track)
			s[j - 1].kernels |= s[i].kernels;
		else
			s[j++] = s[i];
	}
	*n = j;
	return s;
}

static int put_group(const struct compact *c, const struct compact_group *g, int first_group,
		     struct buf *r)
{
	size_t nstreams, nkstreams = 0, i;
	struct group_stream *streams = group_streams(g, &nstreams);
	char space[24];
	int first = 1, fail = 0;
	unsigned k;

	if (streams == NULL)
		return 1;
	for (i = 0; i < nstreams; i++)
		nkstreams += streams[i].kernels != 0;
	/* counts under the reference's names, the tids under new ones */
	fail |= buf_printf(r, "%s{\"pid\":%s,\"display_pid\":%s,\"device\":%s,\"kind\":\"%s\","
			   "\"original_streams\":%zu,\"original_kernel_streams\":%zu,"
			   "\"original_stream_tids\":[", first_group ? "" : ",", g->pid,
			   compact_display_pid(g, space), g->device,
			   g->kind == COMPACT_SCOPE ? "scope" : "activity", nstreams, nkstreams);
	/* streams: the tracks with events in this group */
	for (i = 0; i < nstreams; i++) {
		fail |= buf_printf(r, "%s%s", first ? "" : ",", c->tracks[streams[i].track].tid);
		first = 0;
	}
	fail |= buf_addstr(r, "],\"original_kernel_stream_tids\":[");
	first = 1;
	for (i = 0; i < nstreams; i++) {
		if (streams[i].kernels) {
			fail |= buf_printf(r, "%s%s", first ? "" : ",",
					   c->tracks[streams[i].track].tid);
			first = 0;
		}
	}
	fail |= buf_printf(r, "],\"kernel_count\":%" PRIu64 ",\"activity_count\":%" PRIu64
			   ",\"lanes\":%u,\"lane_tids\":[", g->nkernels, g->nacts, g->nlanes);
	for (k = 0; k < g->nlanes; k++)
		fail |= buf_printf(r, "%s%" PRId64, k ? "," : "", g->lane_tid[k]);
	fail |= buf_printf(r, "],\"peak_concurrency\":%u,\"lane_stream_counts\":[", g->nlanes);
	for (k = 0; k < g->nlanes; k++) {
		size_t n;
		fail |= buf_printf(r, "%s{\"lane\":%u,\"tid\":%" PRId64 ",\"streams\":{",
				   k ? "," : "", k + 1, g->lane_tid[k]);
		for (n = 0; n < g->ncounts[k]; n++) {
			const char *tid = c->tracks[g->counts[k][n].track].tid;
			if (n)
				fail |= buf_addch(r, ',');
			if (tid[0] == '"')
				fail |= buf_addstr(r, tid);
			else
				fail |= buf_printf(r, "\"%s\"", tid);
			fail |= buf_printf(r, ":%" PRIu64, g->counts[k][n].count);
		}
		fail |= buf_addstr(r, "}}");
	}
	fail |= buf_addstr(r, "]}");
	free(streams);
	return fail;
}

int compact_report_record(const struct compact *c, const char *tail, size_t tail_len,
			  struct buf *r)
{
	struct jdoc td = JDOC_INIT;
	size_t gi, i;
	unsigned k;
	int fail = 0;

	buf_reset(r);
	if (c->layers_report)
		fail |= trstream_report_member(r, TRSTREAM_LAYERS_SUFFIX, "compaction", 0);
	else
		fail |= trstream_report_body(r, TRSTREAM_COMPACT_SUFFIX);
	fail |= buf_addstr(r, "{\"schema_version\":1,\"notice\":");
	fail |= put_json_text(r, compact_notice);
	fail |= buf_printf(r, ",\"max_lanes\":%" PRId64 ",\"original_event_count\":%" PRIu64
			   ",\"output_event_count\":%" PRIu64 ",\"relocated_events\":%" PRIu64
			   ",\"relocated_flows\":%" PRIu64 ",\"new_metadata_count\":%" PRIu64
			   ",\"groups\":[", c->max_lanes, c->events,
			   c->events - c->nretired + c->new_metadata,
			   c->relocated + c->relocated_flows, c->relocated_flows, c->new_metadata);
	for (gi = 0; gi < c->groups_by_key.n; gi++)
		fail |= put_group(c, &c->groups[gi], gi == 0, r);
	fail |= buf_addstr(r, "],\"retired_track_metadata\":[");
	for (i = 0, k = 0; i < c->nret; i++) {
		if (!c->tracks[c->ret[i].track].moved)
			continue;
		fail |= buf_printf(r, "%s{\"source_event_index\":%" PRIu32 ",\"event\":%s}",
				   k++ ? "," : "", c->ret[i].index, c->ret[i].text);
	}
	fail |= buf_addstr(r, "],\"source_file\":");
	fail |= put_json_text(r, c->source_name ? c->source_name : "");
	fail |= buf_addstr(r, ",\"" TRSTREAM_KEY_SOURCE_SHA256 "\":");
	if (json_parse(&td, tail, tail_len, NULL) == 0)
		fail |= trstream_put_source_sha256(r, &td);
	else
		fail |= buf_addstr(r, "null");
	fail |= buf_printf(r, ",\"tool_version\":\"trace-layers %s\"}}", TR_VERSION);
	json_free(&td);
	return fail ? COMPACT_NOMEM : COMPACT_OK;
}

int compact_report_summary(const struct compact *c, struct buf *out)
{
	size_t gi;
	int fail = 0;

	buf_reset(out);
	for (gi = 0; gi < c->groups_by_key.n; gi++) {
		const struct compact_group *g = &c->groups[gi];
		size_t streams;
		struct group_stream *s = group_streams(g, &streams);
		if (s == NULL)
			return COMPACT_NOMEM;
		free(s);
		if (g->kind == COMPACT_SCOPE && g->by_device)
			fail |= buf_printf(out, "pid %s device %s GPU scopes: %zu original streams -> "
					   "%u scope lanes in pid %" PRId64 "\n", g->pid, g->device,
					   streams, g->nlanes, g->display_pid);
		else if (g->kind == COMPACT_SCOPE)
			fail |= buf_printf(out, "pid %s GPU scopes: %zu original streams -> %u scope "
					   "lanes in pid %" PRId64 "\n", g->pid, streams, g->nlanes,
					   g->display_pid);
		else
			fail |= buf_printf(out, "pid %s device %s: %zu original streams -> %u "
					   "synthetic lanes (%" PRIu64 " kernels, %" PRIu64
					   " GPU events)\n", g->pid, g->device, streams, g->nlanes,
					   g->nkernels, g->nacts);
	}
	fail |= buf_printf(out, "moved: %" PRIu64 " events, %" PRIu64 " flows; retired %" PRIu64
			   " thread metadata events (kept in the report)\n", c->relocated,
			   c->relocated_flows, c->nretired);
	fail |= buf_printf(out, "notice: %s\n", compact_notice);
	return fail ? COMPACT_NOMEM : COMPACT_OK;
}
