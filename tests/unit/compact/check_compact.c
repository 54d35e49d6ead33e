/* Unit tests for common/compact/compact.c: pass one, the plan and pass two on small
 * streams -- which events move to which lane tid, which metadata retires,
 * what stays byte for byte -- and every refusal's exact message. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "compact/compact.h"
#include "compact/compact_report.h"
#include "../../compact_test.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Two kernels overlap on streams 7 and 8 of device 0; a third touches the
 * first's end (touching may share a lane); a flow binds to the second. */
static const char *const s1[] = {
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,\"dur\":5,"
	"\"args\":{\"device\":0,\"correlation\":1}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":8,\"ts\":12,\"dur\":5,"
	"\"args\":{\"device\":0,\"correlation\":2}}",
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"c\",\"pid\":1,\"tid\":7,\"ts\":15,\"dur\":1,"
	"\"args\":{\"device\":0,\"correlation\":3}}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"stream 7\"}}",
	"{\"ph\":\"f\",\"id\":2,\"pid\":1,\"tid\":8,\"ts\":12,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}",
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"p\"}}",
};

/* What pass two writes for each event of s1 (NULL: retired). */
static const char *const s1_out[] = {
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2113929216,\"ts\":10,"
	"\"dur\":5,\"args\":{\"device\":0,\"correlation\":1,\"_compact_gpu_track\":{\"pid\":1,"
	"\"tid\":7,\"source_event_index\":0,\"had_args\":true}}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":2113929217,\"ts\":12,"
	"\"dur\":5,\"args\":{\"device\":0,\"correlation\":2,\"_compact_gpu_track\":{\"pid\":1,"
	"\"tid\":8,\"source_event_index\":1,\"had_args\":true}}}",
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"c\",\"pid\":1,\"tid\":2113929216,\"ts\":15,"
	"\"dur\":1,\"args\":{\"device\":0,\"correlation\":3,\"_compact_gpu_track\":{\"pid\":1,"
	"\"tid\":7,\"source_event_index\":2,\"had_args\":true}}}",
	NULL,
	"{\"ph\":\"f\",\"id\":2,\"pid\":1,\"tid\":2113929217,\"ts\":12,\"cat\":\"ac2g\","
	"\"name\":\"ac2g\",\"args\":{\"_compact_gpu_track\":{\"pid\":1,\"tid\":8,"
	"\"source_event_index\":4,\"had_args\":false}}}",
	NULL, /* as it was */
	NULL, /* as it was */
};

static int see_all(struct compact *c, const char *const *lines, size_t n)
{
	size_t k;
	int rc;

	for (k = 0; k < n; k++)
		if ((rc = compact_see_event(c, lines[k], strlen(lines[k]))) != 0)
			return rc;
	return 0;
}

START_TEST(test_s1)
{
	struct compact *c;
	size_t k;
	const char *out;
	size_t len;

	c = new_compact();
	ck_assert_int_eq(see_all(c, s1, COUNT(s1)), 0);
	ck_assert_uint_eq(stats_of(c).activities, 3);
	ck_assert_uint_eq(stats_of(c).track_metadata, 1);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_uint_eq(compact_ngroups(c), 1);
	ck_assert_str_eq(group_of(c, 0).pid, "1");
	ck_assert_str_eq(group_of(c, 0).device, "0");
	ck_assert_uint_eq(group_of(c, 0).nlanes, 2);
	ck_assert_int_eq(group_of(c, 0).lane_tid[0], 0x7E000000);
	ck_assert_int_eq(group_of(c, 0).lane_tid[1], 0x7E000001);
	ck_assert_uint_eq(group_of(c, 0).kernels, 2);
	ck_assert_uint_eq(group_of(c, 0).activities, 3);
	for (k = 0; k < COUNT(s1); k++) {
		ck_assert_int_eq(compact_place(c, s1[k], strlen(s1[k]), &out, &len), 0);
		if (k == 3) {
			ck_assert_ptr_null(out);
		} else if (s1_out[k] == NULL) {
			ck_assert_ptr_eq(out, s1[k]);
			ck_assert_uint_eq(len, strlen(s1[k]));
		} else {
			ck_assert_uint_eq(len, strlen(s1_out[k]));
			ck_assert(memcmp(out, s1_out[k], len) == 0);
		}
	}
	ck_assert_uint_eq(stats_of(c).relocated, 3);
	ck_assert_uint_eq(stats_of(c).relocated_flows, 1);
	ck_assert_uint_eq(stats_of(c).retired, 1);
	compact_free(c);
}
END_TEST

/* A zero-length event does not share a lane with one that starts where it
 * is (Perfetto would nest it); a tid already used in the pid is skipped. */
START_TEST(test_zero_and_used_tid)
{
	static const char *const lines[] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"z\",\"pid\":1,\"tid\":7,\"ts\":10,"
		"\"dur\":0}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,"
		"\"dur\":3}",
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":2113929216,"
		"\"ts\":0,\"dur\":1}",
	};
	struct compact *c;

	c = new_compact();
	ck_assert_int_eq(see_all(c, lines, COUNT(lines)), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_uint_eq(group_of(c, 0).nlanes, 2);
	ck_assert_str_eq(group_of(c, 0).device, "null");
	ck_assert_int_eq(group_of(c, 0).lane_tid[0], 0x7E000001);
	ck_assert_int_eq(group_of(c, 0).lane_tid[1], 0x7E000002);
	compact_free(c);
}
END_TEST

/* GPU scopes go to a new process, pid 0x7F000000 upward. */
START_TEST(test_scope)
{
	static const char *const lines[] = {
		"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"s\",\"pid\":1,\"tid\":7,"
		"\"ts\":10,\"dur\":3}",
	};
	struct compact *c;

	c = new_compact();
	ck_assert_int_eq(see_all(c, lines, COUNT(lines)), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_int_eq(group_of(c, 0).kind, COMPACT_SCOPE);
	ck_assert_int_eq(group_of(c, 0).display_pid, 2130706432);
	ck_assert_int_eq(group_of(c, 0).lane_tid[0], 0x7E000000);
	compact_free(c);
}
END_TEST

struct refusal_case {
	const char *lines[3];
	int max_lanes;
	const char *only_pid;
	int in_plan;          /* refused by compact_plan, not by pass one */
	const char *msg;
};

static const struct refusal_case refusals[] = {
	{ { "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1}" },
	  10, NULL, 0,
	  "event 0: GPU activity without tid (pid 1): its stream is unknown, so it cannot be "
	  "placed on a lane" },
	{ { "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"a\",\"ts\":1,\"dur\":1}" },
	  10, NULL, 0,
	  "event 0: GPU scope (gpu_user_annotation) without pid and tid: its device and stream "
	  "are unknown, so it cannot be placed on a lane" },
	{ { "{\"ph\":\"X\",\"name\":\"a\",\"args\":{\"_compact_gpu_track\":{}}}" }, 10, NULL, 0,
	  "event 0: already compacted (_compact_gpu_track); start from the original trace" },
	{ { "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,"
	    "\"dur\":-1}" }, 10, NULL, 0, "event 0: negative dur -1" },
	{ { "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":\"1\","
	    "\"dur\":1}" }, 10, NULL, 0, "event 0: GPU event without a numeric ts and dur" },
	{ { "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1}",
	    "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,"
	    "\"dur\":1}" }, 10, NULL, 1,
	  "nothing to compact: the stream has no GPU activity (X events whose cat includes "
	  "kernel, gpu_memcpy, gpu_memset, Kernel, Memcpy or Memset) and no GPU scopes "
	  "(gpu_user_annotation); unrecognised device-like categories seen: mtia_ccp_events "
	  "(tr-compact does not move them)" },
	{ { "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1}" },
	  10, "5", 1,
	  "nothing to compact: pid 5 has no GPU activity or GPU scopes; GPU activity is in pid 1" },
	{ { "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1}",
	    "{\"ph\":\"i\",\"name\":\"m\",\"pid\":1,\"tid\":2,\"ts\":1}" }, 10, NULL, 1,
	  "event 1: on GPU track pid 1 tid 2, which is moved to synthetic lanes, but it is "
	  "neither GPU activity, a GPU scope, a flow nor thread metadata, so it cannot be placed "
	  "(1 such events); use --pid to leave this pid alone" },
	{ { "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":1}",
	    "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"g\",\"pid\":1,\"tid\":3,\"ts\":1,"
	    "\"dur\":1}" }, 10, NULL, 1,
	  "event 1: the existing layer guide lacks the layer_guide args (layer_id, pass_index, "
	  "boundary_kind) or a numeric ts and dur; regenerate the guides from the original trace "
	  "with tr-layer-track (with --max-gpu-lanes)" },
};

START_TEST(test_refusal)
{
	const struct refusal_case *r = &refusals[_i];
	struct compact *c;
	size_t n = 0;
	int rc;

	c = new_compact();
	compact_set_max_lanes(c, r->max_lanes);
	compact_set_pid(c, r->only_pid);
	while (n < COUNT(r->lines) && r->lines[n] != NULL)
		n++;
	rc = see_all(c, r->lines, n);
	if (r->in_plan) {
		ck_assert_int_eq(rc, 0);
		rc = compact_plan(c);
	}
	ck_assert_int_eq(rc, COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), r->msg);
	compact_free(c);
}
END_TEST

/* One lane for s1: refused where the second lane is first needed, from the
 * start of b (12 us) to the end of a (15 us), relative to the origin. */
START_TEST(test_too_many_lanes)
{
	struct compact *c;

	c = new_compact();
	compact_set_max_lanes(c, 1);
	ck_assert_int_eq(see_all(c, s1, COUNT(s1)), 0);
	ck_assert_int_eq(compact_plan(c), COMPACT_LANES);
	/* the peak (2), where it is first exceeded (12000 to 15000 ns) */
	ck_assert_int_eq(compact_lanes_message(c, 2000), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "pid 1, device 0: GPU activity needs 2 lanes (peak "
			 "concurrency) but --max-gpu-lanes is 1; it first exceeds 1 from 12.000 to "
			 "15.000 us (0.010000 to 0.013000 ms from the trace start); cut a time window "
			 "around the part you need, or keep the original streams (no compaction)");
	compact_free(c);
}
END_TEST

/* --device: only that device's activity moves. */
START_TEST(test_device)
{
	static const char *const lines[] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":1,"
		"\"dur\":1,\"args\":{\"device\":0}}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":8,\"ts\":1,"
		"\"dur\":1,\"args\":{\"device\":1}}",
	};
	struct compact *c;

	c = new_compact();
	compact_set_device(c, "1");
	ck_assert_int_eq(see_all(c, lines, COUNT(lines)), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_uint_eq(stats_of(c).activities, 1);
	ck_assert_str_eq(group_of(c, 0).device, "1");
	compact_free(c);
}
END_TEST

/* More lanes than COMPACT_MAX_LANES before the refusal: the packing goes
 * on counting the group's peak without keeping lanes past the limit. */
START_TEST(test_past_max_lanes)
{
	struct compact *c;
	struct buf line = BUF_INIT;
	int t;

	c = new_compact();
	compact_set_max_lanes(c, COMPACT_MAX_LANES);
	for (t = 1; t <= 12; t++) {
		buf_reset(&line);
		buf_printf(&line, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g%d\",\"pid\":0,"
			   "\"tid\":%d,\"ts\":100,\"dur\":%d,\"args\":{\"device\":0}}", t, t, 50 + t);
		ck_assert_int_eq(compact_see_event(c, line.p, line.len), 0);
	}
	ck_assert_int_eq(compact_plan(c), COMPACT_LANES);
	/* the peak (12), where it is first exceeded (100000 to 151000 ns) */
	ck_assert_int_eq(compact_lanes_message(c, 0), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "pid 0, device 0: GPU activity needs 12 lanes (peak "
			 "concurrency) but --max-gpu-lanes is 10; it first exceeds 10 from 100.000 to "
			 "151.000 us (0.100000 to 0.151000 ms from the trace start); cut a time window "
			 "around the part you need, or keep the original streams (no compaction)");
	buf_release(&line);
	compact_free(c);
}
END_TEST

/* Flows on a moved track: pass one notes where pid, tid and args are when
 * the track moves already and the line has no backslash (flows 2 and 5),
 * and pass two finds them itself otherwise (flow 0, before its track's
 * first kernel; flow 3, with an escape; flow 4 on a CPU track stays). */
static const char *const flows_in[] = {
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":7,\"ts\":11,\"bp\":\"e\"}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,\"dur\":5,"
	"\"args\":{\"device\":0,\"correlation\":1}}",
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":7,\"ts\":12,\"args\":{\"x\":[1,{}]},\"bp\":\"e\"}",
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":7,\"ts\":13,\"name\":\"a\\\"b\"}",
	"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":9}",
	"{\"tid\":7,\"ph\":\"f\",\"ts\":14,\"pid\":1,\"id\":1}",
};

static const char *const flows_out[] = {
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2113929216,\"ts\":11,\"bp\":\"e\",\"args\":{"
	"\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":0,"
	"\"had_args\":false}}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2113929216,\"ts\":10,"
	"\"dur\":5,\"args\":{\"device\":0,\"correlation\":1,\"_compact_gpu_track\":{\"pid\":1,"
	"\"tid\":7,\"source_event_index\":1,\"had_args\":true}}}",
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2113929216,\"ts\":12,\"args\":{\"x\":[1,{}],"
	"\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":2,"
	"\"had_args\":true}},\"bp\":\"e\"}",
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":2113929216,\"ts\":13,\"name\":\"a\\\"b\","
	"\"args\":{\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":3,"
	"\"had_args\":false}}}",
	NULL, /* as it was */
	"{\"tid\":2113929216,\"ph\":\"f\",\"ts\":14,\"pid\":1,\"id\":1,\"args\":{"
	"\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":5,"
	"\"had_args\":false}}}",
};

START_TEST(test_flow_offsets)
{
	struct compact *c;
	size_t k, len;
	const char *out;
	static const char *const late[] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,"
		"\"dur\":5,\"args\":{\"correlation\":1}}",
		"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":7,\"ts\":100}",
	};

	c = new_compact();
	ck_assert_int_eq(see_all(c, flows_in, COUNT(flows_in)), 0);
	ck_assert_uint_eq(stats_of(c).members_noted, 3); /* the kernel, flows 2 and 5 */
	ck_assert_int_eq(compact_plan(c), 0);
	for (k = 0; k < COUNT(flows_in); k++) {
		ck_assert_int_eq(compact_place(c, flows_in[k], strlen(flows_in[k]), &out, &len), 0);
		if (flows_out[k] == NULL) {
			ck_assert_ptr_eq(out, flows_in[k]);
		} else {
			ck_assert_uint_eq(len, strlen(flows_out[k]));
			ck_assert(memcmp(out, flows_out[k], len) == 0);
		}
	}
	ck_assert_uint_eq(stats_of(c).relocated, 1);
	ck_assert_uint_eq(stats_of(c).relocated_flows, 4);
	compact_free(c);

	/* a flow whose offsets are known but which binds to nothing: the
	 * refusal still names its id and ts */
	c = new_compact();
	ck_assert_int_eq(see_all(c, late, COUNT(late)), 0);
	ck_assert_uint_eq(stats_of(c).members_noted, 2);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_int_eq(compact_place(c, late[0], strlen(late[0]), &out, &len), 0);
	ck_assert_int_eq(compact_place(c, late[1], strlen(late[1]), &out, &len), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "event 1: flow (id 1, ts 100) on pid 1 tid 7 matches no GPU "
			 "event (same correlation, starting at or containing its ts); it cannot "
			 "follow its kernel to a lane");
	compact_free(c);
}
END_TEST

/* Which X events are GPU activity, by their categories: one category is
 * compared whole, a list item by item (kernel and Kernel count kernels). */
START_TEST(test_categories)
{
	static const char *const in[] = {
		"{\"ph\":\"X\",\"cat\":\"cpu_op,kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,"
		"\"ts\":10,\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"Memset\",\"name\":\"b\",\"pid\":1,\"tid\":7,\"ts\":20,"
		"\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"kernelx\",\"name\":\"c\",\"pid\":1,\"tid\":8,\"ts\":30,"
		"\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"kerne\",\"name\":\"c\",\"pid\":1,\"tid\":8,\"ts\":30,"
		"\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"a,Memcpy,b\",\"name\":\"d\",\"pid\":1,\"tid\":7,\"ts\":40,"
		"\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"e\",\"pid\":1,\"tid\":7,\"ts\":50,"
		"\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"gpu_memcpy,\",\"name\":\"f\",\"pid\":1,\"tid\":7,\"ts\":60,"
		"\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"x,kernel_y\",\"name\":\"g\",\"pid\":1,\"tid\":8,\"ts\":70,"
		"\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"h\",\"pid\":1,\"tid\":9,"
		"\"ts\":10,\"dur\":90}",
	};
	struct compact *c;

	c = new_compact();
	ck_assert_int_eq(see_all(c, in, COUNT(in)), 0);
	ck_assert_uint_eq(stats_of(c).activities, 6);
	ck_assert_uint_eq(compact_ngroups(c), 2);
	ck_assert_int_eq(group_of(c, 0).kind, COMPACT_ACTIVITY);
	ck_assert_uint_eq(group_of(c, 0).activities, 5);
	ck_assert_uint_eq(group_of(c, 0).kernels, 2);
	ck_assert_int_eq(group_of(c, 1).kind, COMPACT_SCOPE);
	ck_assert_uint_eq(group_of(c, 1).activities, 1);
	compact_free(c);
}
END_TEST

/* Existing guides: a simple line (no whitespace, escapes or arrays) is read
 * by a member walk, any other by the tokenizer; both must give the same
 * verdict -- kept (the plan passes), refused for its args or numbers, or
 * not JSON at all. */
#define GUIDE_HEAD "{\"ph\":\"X\",\"cat\":\"layer_guide\",\"name\":\"L0\",\"pid\":1,\"tid\":3,"
#define GUIDE_ARGS "\"args\":{\"pass_index\":0,\"layer_id\":0,\"anchor_name\":\"k\"," \
	"\"boundary_kind\":\"next_layer_anchor\"}"
#define LACKS "event 1: the existing layer guide lacks the layer_guide args (layer_id, " \
	"pass_index, boundary_kind) or a numeric ts and dur; regenerate the guides from the " \
	"original trace with tr-layer-track (with --max-gpu-lanes)"
#define NOT_JSON "event 1: not a JSON object"

static const struct {
	const char *line;
	const char *msg;      /* NULL: kept */
	int in_pass_one;      /* refused by pass one */
} guide_cases[] = {
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2," GUIDE_ARGS "}", NULL, 0 },
	{ GUIDE_HEAD "\"ts\": 1,\"dur\":2," GUIDE_ARGS "}", NULL, 0 },
	{ GUIDE_HEAD "\"ts\":1.5,\"dur\":2e0,\"x\":[1,{\"a\":2}]," GUIDE_ARGS "}", NULL, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2,\"args\":{\"layer\\u005fid\":0,\"pass_index\":0,"
	  "\"boundary_kind\":\"x\"}}", NULL, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2,\"args\":{\"layer_id\":0,\"pass_index\":0,"
	  "\"boundary_kind\":\"a\\\"b\",\"o\":{\"p\":[]}}}", NULL, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2,\"args\":{\"layer_id\":0,\"pass_index\":0,"
	  "\"o\":{\"boundary_kind\":1}}}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2,\"args\":{\"layer_id\":0},"
	  GUIDE_ARGS "}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1x,\"dur\":2," GUIDE_ARGS "}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1:2,\"dur\":2," GUIDE_ARGS "}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":\"2\"," GUIDE_ARGS "}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":{}," GUIDE_ARGS "}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2,\"args\":[]}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2}", LACKS, 0 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2," GUIDE_ARGS "}x", NOT_JSON, 1 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2," GUIDE_ARGS, NOT_JSON, 1 },
	{ GUIDE_HEAD "\"ts\":x,\"dur\":2," GUIDE_ARGS "}", NOT_JSON, 1 },
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2,\"args\":{\"layer_id\":0,\"pass_index\":0,"
	  "\"boundary_kind\":\"\\q\"}}", NOT_JSON, 1 },
	/* the tokenizer lets a doubled comma pass */
	{ GUIDE_HEAD "\"ts\":1,\"dur\":2,," GUIDE_ARGS "}", NULL, 0 },
};

START_TEST(test_guide_lines)
{
	const char *lines[2] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":1,"
		"\"dur\":1}",
		guide_cases[_i].line
	};
	struct compact *c;
	int rc;

	c = new_compact();
	rc = see_all(c, lines, 2);
	if (!guide_cases[_i].in_pass_one) {
		ck_assert_int_eq(rc, 0);
		rc = compact_plan(c);
	}
	if (guide_cases[_i].msg == NULL) {
		ck_assert_int_eq(rc, COMPACT_OK);
	} else {
		ck_assert_int_eq(rc, COMPACT_REFUSED);
		ck_assert_str_eq(compact_message(c), guide_cases[_i].msg);
	}
	compact_free(c);
}
END_TEST

/* The member walk on values that end where a quick look would not: escaped
 * quotes and brackets inside strings, a number followed by a space, nested
 * values before the wanted members.  The kernel's tid is in its name only,
 * so it has none. */
START_TEST(test_walk_edges)
{
	static const char *const no_tid[] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\\",\\\"tid\\\":2}\","
		"\"pid\":1,\"ts\":1,\"dur\":1}",
		"{\"ph\":\"X\",\"x\":[\"tid\",{\"tid\":2}],\"cat\":\"kernel\",\"name\":\"a\","
		"\"pid\":1,\"ts\":1,\"dur\":1}",
	};
	static const char *const spaced =
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\\\\",\"pid\":1 ,\"tid\":2,"
		"\"ts\":1,\"dur\":1,\"args\":{\"s\":\"}\\\"\",\"device\":3,\"correlation\":4}}";
	const char *spaced_flow[2] = {
		spaced, "{\"ph\":\"f\",\"id\":5,\"pid\":1 ,\"tid\":2,\"ts\":1}"
	};
	struct compact *c;
	const char *out;
	size_t k, len;

	for (k = 0; k < COUNT(no_tid); k++) {
		c = new_compact();
		ck_assert_int_eq(see_all(c, &no_tid[k], 1), COMPACT_REFUSED);
		ck_assert_str_eq(compact_message(c), "event 0: GPU activity without tid (pid 1): its stream is "
				 "unknown, so it cannot be placed on a lane");
		compact_free(c);
	}
	c = new_compact();
	ck_assert_int_eq(see_all(c, spaced_flow, 2), 0);
	ck_assert_uint_eq(stats_of(c).activities, 1);
	ck_assert_uint_eq(compact_ngroups(c), 1);
	ck_assert_str_eq(group_of(c, 0).pid, "1 ");
	ck_assert_str_eq(group_of(c, 0).device, "3");
	/* the correlation past the escaped quote was found: the track carries
	 * correlations, so a flow of another id starting at the kernel does
	 * not bind to it */
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_int_eq(compact_place(c, spaced, strlen(spaced), &out, &len), 0);
	ck_assert_int_eq(compact_place(c, spaced_flow[1], strlen(spaced_flow[1]), &out, &len),
			 COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "event 1: flow (id 5, ts 1) on pid 1  tid 2 matches "
			 "no GPU event (same correlation, starting at or containing its ts); it "
			 "cannot follow its kernel to a lane");
	compact_free(c);
}
END_TEST

/* The already-compacted key is found wherever it stands in a line, of any
 * length (16 places are looked at a time, the last ones overlapping), and a
 * near miss is not it. */
START_TEST(test_compacted_key_anywhere)
{
	struct buf line = BUF_INIT;
	struct compact *c;
	const char *text;
	int pad, miss, k;

	for (pad = 0; pad < 48; pad++) {
		for (miss = 0; miss < 3; miss++) {
			buf_reset(&line);
			ck_assert_int_eq(buf_addstr(&line, "{\"a\":\""), 0);
			for (k = 0; k < pad; k++)
				ck_assert_int_eq(buf_addch(&line, k % 2 ? 'k' : '_'), 0);
			ck_assert_int_eq(buf_addstr(&line, miss == 0 ? "_compact_gpu_track" :
						    miss == 1 ? "_compact_gpu_trac_" :
						    "xcompact_gpu_track"), 0);
			ck_assert_int_eq(buf_addstr(&line, pad % 3 ? "\"}" : "\",\"b\":1}"), 0);
			text = line.p;
			c = new_compact();
			if (miss == 0) {
				ck_assert_int_eq(see_all(c, &text, 1), COMPACT_REFUSED);
				ck_assert_str_eq(compact_message(c), "event 0: already compacted "
						 "(_compact_gpu_track); start from the original trace");
			} else {
				ck_assert_int_eq(see_all(c, &text, 1), 0);
			}
			compact_free(c);
		}
	}
	buf_release(&line);
}
END_TEST

/* Pass one stops walking args once it has the device and the correlation;
 * pass two finds the end from there: past an array and a string holding a
 * brace, right after the correlation, and, where the rest does not read as
 * members, where the line's own walk says (as when pass one found no end). */
START_TEST(test_args_rest)
{
	static const char *const in[] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,"
		"\"dur\":5,\"args\":{\"device\":0,\"correlation\":1,\"grid\":[1,2],\"s\":\"}\"}}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":8,\"ts\":20,"
		"\"dur\":5,\"args\":{\"device\":0,\"correlation\":2,\"x\"},\"y\":1}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"pid\":1,\"tid\":9,\"ts\":12,"
		"\"dur\":5,\"args\":{\"correlation\":3,\"device\":0},\"z\":{}}",
	};
	static const char *const want[] = {
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":2113929216,"
		"\"ts\":10,\"dur\":5,\"args\":{\"device\":0,\"correlation\":1,\"grid\":[1,2],"
		"\"s\":\"}\",\"_compact_gpu_track\":{\"pid\":1,\"tid\":7,\"source_event_index\":0,"
		"\"had_args\":true}}}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"b\",\"pid\":1,\"tid\":2113929216,"
		"\"ts\":20,\"dur\":5,\"args\":{\"device\":0,\"correlation\":2,\"x\","
		"\"_compact_gpu_track\":{\"pid\":1,\"tid\":8,\"source_event_index\":1,"
		"\"had_args\":true}},\"y\":1}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"c\",\"pid\":1,\"tid\":2113929217,"
		"\"ts\":12,\"dur\":5,\"args\":{\"correlation\":3,\"device\":0,"
		"\"_compact_gpu_track\":{\"pid\":1,\"tid\":9,\"source_event_index\":2,"
		"\"had_args\":true}},\"z\":{}}",
	};
	struct compact *c;
	const char *out;
	size_t k, len;

	c = new_compact();
	ck_assert_int_eq(see_all(c, in, COUNT(in)), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	for (k = 0; k < COUNT(in); k++) {
		ck_assert_int_eq(compact_place(c, in[k], strlen(in[k]), &out, &len), 0);
		ck_assert_ptr_nonnull(out);
		ck_assert_str_eq(out, want[k]);
	}
	compact_free(c);
}
END_TEST

/* Event k of the bounded-memory stream: N kernels in reverse source order
 * on streams 7, 8, 9 (kernel j starts at 10 j and lasts 25, so three
 * overlap and kernel j takes lane j mod 3), then a flow per kernel (id j,
 * inside it, on its stream), and a CPU flow. */
enum { BIG_N = 150000 };

static void big_event(struct buf *b, int k)
{
	int j;

	buf_reset(b);
	if (k < BIG_N) {
		j = BIG_N - 1 - k;
		buf_printf(b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":%d,"
			   "\"ts\":%d,\"dur\":25,\"args\":{\"device\":0,\"correlation\":%d}}",
			   7 + j % 3, 10 * j, j);
	} else if (k < 2 * BIG_N) {
		j = k - BIG_N;
		buf_printf(b, "{\"ph\":\"f\",\"id\":%d,\"pid\":1,\"tid\":%d,\"ts\":%d,\"bp\":\"e\"}",
			   j, 7 + j % 3, 10 * j + 24);
	} else {
		buf_printf(b, "{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":0}");
	}
}

/* More records than one run holds: they go through the sorts' files, the
 * records held in memory stay below a fixed bound, and every kernel and
 * flow still gets its lane. */
START_TEST(test_bounded_memory)
{
	struct compact *c;
	struct buf line = BUF_INIT;
	const char *out, *tid;
	size_t len, held_max = 0;
	int k;

	c = new_compact();
	for (k = 0; k < 2 * BIG_N + 1; k++) {
		big_event(&line, k);
		ck_assert_int_eq(compact_see_event(c, line.p, line.len), 0);
		if (stats_of(c).records_held > held_max)
			held_max = stats_of(c).records_held;
	}
	ck_assert_uint_eq(stats_of(c).activities, BIG_N);
	ck_assert_uint_eq(held_max, COMPACT_RUN_BYTES / sizeof(struct compact_act));
	ck_assert_uint_eq(stats_of(c).runs_written, BIG_N / held_max);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_uint_eq(group_of(c, 0).nlanes, 3);
	for (k = 0; k < 2 * BIG_N + 1; k++) {
		int j = k < BIG_N ? BIG_N - 1 - k : k - BIG_N;
		big_event(&line, k);
		ck_assert_int_eq(compact_place(c, line.p, line.len, &out, &len), 0);
		tid = strstr(out, "\"tid\":");
		ck_assert_ptr_nonnull(tid);
		if (k < 2 * BIG_N)
			ck_assert_int_eq(strtol(tid + 6, NULL, 10), 0x7E000000 + j % 3);
		else
			ck_assert_ptr_eq(out, line.p);
	}
	ck_assert_uint_eq(stats_of(c).relocated, BIG_N);
	ck_assert_uint_eq(stats_of(c).relocated_flows, BIG_N);
	/* lane 1 holds the kernels of one stream (7), a third of them */
	ck_assert_int_eq(compact_report_record(c, "{\"@tr\":\"tail\"}", 13, &line), 0);
	ck_assert_ptr_nonnull(strstr(line.p, "\"lane_stream_counts\":[{\"lane\":1,"
				     "\"tid\":2113929216,\"streams\":{\"7\":50000}},"));
	buf_release(&line);
	compact_free(c);
}
END_TEST

/* The first event pass two may change, which may go out before the plan
 * is made, and the count that goes on from there: CPU events and a flow
 * start on a CPU track come first; the flow end on the GPU track, before
 * its kernel, is the first one bound. */
static const char *const ahead_in[] = {
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}",
	"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":9,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"y\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}",
	"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":7,\"ts\":10,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,\"dur\":5,"
	"\"args\":{\"correlation\":1}}",
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":2}",
};

/* ahead_in through pass two after skip events went out unplaced: the
 * lines written, NULL for a retired one. */
static void place_after(const char *const *in, size_t n, uint64_t skip, const char **out,
			size_t *len)
{
	struct compact *c;
	size_t k;

	c = new_compact();
	ck_assert_int_eq(see_all(c, in, n), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_int_eq(compact_place_skip(c, skip), 0);
	for (k = skip; k < n; k++) {
		const char *line;
		ck_assert_int_eq(compact_place(c, in[k], strlen(in[k]), &line, &len[k]), 0);
		out[k] = line == NULL ? NULL : strndup(line, len[k]);
	}
	compact_free(c);
}

static int same_line(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* in placed whole into full[], and again after skip events went out
 * unplaced: the events before skip are unchanged, the rest the same both
 * times.  The caller frees full[]. */
static void same_after_skip(const char *const *in, size_t n, uint64_t skip, const char **full)
{
	const char *part[8];
	size_t flen[8], plen[8], k;

	ck_assert_uint_le(n, 8);
	place_after(in, n, 0, full, flen);
	place_after(in, n, skip, part, plen);
	for (k = 0; k < n; k++) {
		if (k < skip) {
			ck_assert_str_eq(full[k], in[k]);
			continue;
		}
		ck_assert(same_line(part[k], full[k]));
		free((void *)part[k]);
	}
}

static void free_lines(const char **lines, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		free((void *)lines[k]);
}

static const char *const late_names[] = {
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}",
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,"
	"\"dur\":5}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"s\"}}",
};

START_TEST(test_first_change)
{
	const char *full[COUNT(ahead_in)];
	struct compact *c;
	static const char *const cpu_only[] = {
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}",
		"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":0,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
	};
	/* a flow that does not parse is refused in pass two, wherever it is */
	static const char *const unparsed[] = {
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}",
		"{\"ph\":\"s\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"\\q\"}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,"
		"\"dur\":5}",
	};
	/* thread metadata retires only where its track moves */
	static const char *const names[] = {
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}",
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":7,\"args\":{\"name\":\"s\"}}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":10,"
		"\"dur\":5}",
	};
	/* --device: a scope waiting for pass one's end may move its track */
	static const char *const pending[] = {
		"{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":9,\"ts\":1,\"cat\":\"ac2g\",\"name\":\"ac2g\"}",
		"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"s\",\"pid\":1,\"tid\":9,"
		"\"ts\":1,\"dur\":5}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\",\"pid\":1,\"tid\":7,\"ts\":1,"
		"\"dur\":1,\"args\":{\"device\":0}}",
	};

	c = new_compact();
	ck_assert_int_eq(see_all(c, ahead_in, COUNT(ahead_in)), 0);
	ck_assert_uint_eq(compact_first_change(c), 3);
	compact_free(c);

	/* the events from 3 on come out as when all are placed */
	same_after_skip(ahead_in, COUNT(ahead_in), 3, full);
	ck_assert_str_ne(full[3], ahead_in[3]); /* the flow end follows its kernel */
	free_lines(full, COUNT(ahead_in));

	/* one past it: the plan changes an event that went out */
	c = new_compact();
	ck_assert_int_eq(see_all(c, ahead_in, COUNT(ahead_in)), 0);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_int_eq(compact_place_skip(c, 4), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "internal error: pass two passed 4 events before the plan "
			 "was made, but the plan changes one of them");
	compact_free(c);

	c = new_compact();
	ck_assert_int_eq(see_all(c, cpu_only, COUNT(cpu_only)), 0);
	ck_assert_uint_eq(compact_first_change(c), UINT64_MAX);
	compact_free(c);

	c = new_compact();
	ck_assert_int_eq(see_all(c, unparsed, COUNT(unparsed)), 0);
	ck_assert_uint_eq(compact_first_change(c), 1);
	compact_free(c);

	c = new_compact();
	ck_assert_int_eq(see_all(c, names, COUNT(names)), 0);
	ck_assert_uint_eq(stats_of(c).track_metadata, 2);
	ck_assert_uint_eq(compact_first_change(c), 1);
	compact_free(c);

	/* a CPU thread's name before the first change goes out as it is; the
	 * stream's name after it still retires */
	same_after_skip(late_names, COUNT(late_names), 2, full);
	ck_assert_ptr_null(full[3]);
	free_lines(full, COUNT(late_names));
	c = new_compact();
	ck_assert_int_eq(see_all(c, late_names, COUNT(late_names)), 0);
	ck_assert_uint_eq(compact_first_change(c), 2);
	ck_assert_int_eq(compact_plan(c), 0);
	ck_assert_int_eq(compact_place_skip(c, 4), COMPACT_REFUSED);
	ck_assert_str_eq(compact_message(c), "internal error: pass two passed 4 events before the plan "
			 "was made, but the plan changes one of them");
	compact_free(c);

	c = new_compact();
	compact_set_device(c, "0");
	ck_assert_int_eq(see_all(c, pending, COUNT(pending)), 0);
	ck_assert_uint_eq(stats_of(c).pending_scopes, 1);
	ck_assert_uint_eq(compact_first_change(c), 0);
	compact_free(c);
}
END_TEST

static Suite *compact_suite(void)
{
	Suite *s = suite_create("compact");
	TCase *tc = tcase_create("compact");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_s1);
	tcase_add_test(tc, test_zero_and_used_tid);
	tcase_add_test(tc, test_scope);
	tcase_add_loop_test(tc, test_refusal, 0, (int)COUNT(refusals));
	tcase_add_test(tc, test_too_many_lanes);
	tcase_add_test(tc, test_device);
	tcase_add_test(tc, test_past_max_lanes);
	tcase_add_test(tc, test_bounded_memory);
	tcase_add_test(tc, test_flow_offsets);
	tcase_add_test(tc, test_categories);
	tcase_add_loop_test(tc, test_guide_lines, 0, (int)COUNT(guide_cases));
	tcase_add_test(tc, test_walk_edges);
	tcase_add_test(tc, test_args_rest);
	tcase_add_test(tc, test_compacted_key_anywhere);
	tcase_add_test(tc, test_first_change);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(compact_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
