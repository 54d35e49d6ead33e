/* compact_impl: what the files of compaction share and nothing else
 * includes (compact.c: the state, its tracks and groups; compact_scan.c:
 * pass one; compact_plan.c: between the passes; compact_place.c: pass
 * two; compact_flow.c and compact_report.c, which work on the state
 * too).  The definition of struct compact is here: its
 * callers see it through compact.h's functions only.  The member walks
 * (an event line's, an args object's) are inline here: they run over
 * every event. */
#ifndef TR_COMPACT_IMPL_H
#define TR_COMPACT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compact/compact_state.h"
#include "json/event.h"

/* The members pass one looks at, found in one walk over the line's top
 * level as far as needed (event_members' rules: raw key bytes, the first
 * of a repeated key, an empty value is no value). */
enum { K_PID, K_TID, K_PH, K_CAT, K_NAME, K_TS, K_DUR, K_ARGS, K_ID, NKEYS };
#define BIT(k) (1u << (k))

struct walk {
	const char *line;
	size_t len, pos;
	unsigned found;
	int done;
	int open_args;   /* stop at an args object: its len runs to the line's end */
	struct member m[NKEYS];
};

static inline int walk_key(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return K_PH;
		if (k[0] == 't' && k[1] == 's')
			return K_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return K_ID;
		return -1;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			return K_PID;
		if (memcmp(k, "tid", 3) == 0)
			return K_TID;
		if (memcmp(k, "cat", 3) == 0)
			return K_CAT;
		if (memcmp(k, "dur", 3) == 0)
			return K_DUR;
		return -1;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return K_NAME;
		if (memcmp(k, "args", 4) == 0)
			return K_ARGS;
		return -1;
	default:
		return -1;
	}
}

/* The walks below run over every member of most events: the common cases
 * are inline here, the rest goes to event.h's functions, which give the
 * same answers for every text. */
/* event_skip_value(line, len, i): a string as a string; a number or a
 * literal ends at the comma or brace after it; an array of numbers and
 * literals (a kernel's grid and block) at its bracket; anything else (an
 * object, a nested array, a malformed value) is left to event_skip_value. */
static inline size_t value_end(const char *line, size_t len, size_t i)
{
	if (i < len) {
		char first = line[i];
		size_t j;
		if (first == '"')
			return event_string_end(line, len, i);
		if (first == '[') {
			for (j = event_next_stop(line, len, i + 1); j < len && line[j] == ',';
			     j = event_next_stop(line, len, j + 1))
				;
			if (j < len && line[j] == ']')
				return j + 1;
		} else if (first != '{') {
			j = event_next_stop(line, len, i);
			if (j >= len || line[j] == ',' || line[j] == '}')
				return j;
		}
	}
	return event_skip_value(line, len, i);
}

static inline void walk_init(struct walk *w, const char *line, size_t len)
{
	memset(w, 0, sizeof *w);
	w->line = line;
	w->len = len;
	w->pos = 1;
	w->done = len < 2 || line[0] != '{';
}

/* Walk on until every key of want is found or the top level ends. */
static inline void walk_to(struct walk *w, unsigned want)
{
	const char *line = w->line;
	size_t len = w->len;

	while (!w->done && (w->found & want) != want) {
		size_t i = w->pos, kend, vstart, vend;
		int k;
		if (i >= len || line[i] != '"') {
			w->done = 1;
			break;
		}
		kend = event_string_end(line, len, i);
		if (kend >= len || line[kend] != ':') {
			w->done = 1;
			break;
		}
		vstart = kend + 1;
		k = walk_key(line + i + 1, kend - i - 2);
		if (k == K_ARGS && w->open_args && !(w->found & BIT(k)) && vstart < len &&
		    line[vstart] == '{' && (w->found | BIT(k) | ~want) == ~0u) {
			/* the last member wanted: args' members are read next,
			 * which finds its end if anything needs it */
			w->m[k].p = line + vstart;
			w->m[k].len = len - vstart;
			w->found |= BIT(k);
			w->done = 1;
			break;
		}
		vend = value_end(line, len, vstart);
		if (k >= 0 && !(w->found & BIT(k)) && vend > vstart) {
			w->m[k].p = line + vstart;
			w->m[k].len = vend - vstart;
			w->found |= BIT(k);
		}
		if (vend >= len || line[vend] != ',') {
			w->done = 1;
			break;
		}
		w->pos = vend + 1;
	}
}

/* The members of an args object from line[i] on (a member's opening
 * quote) to its end, looking at device and correlation (as event_members
 * finds them: the first with a value) when am is not NULL.  0 with *end
 * just past the object; with stop, 1 once both are found, *end then being
 * where the walk goes on (pass two finds the end from there); -1 when the
 * members do not read as an object's. */
static inline int args_members(const char *line, size_t len, size_t i, struct member *am,
				int stop, size_t *end)
{
	while (i < len && line[i] == '"') {
		size_t kend = event_string_end(line, len, i), vstart, vend, n;
		if (kend >= len || line[kend] != ':')
			return -1;
		vstart = kend + 1;
		vend = value_end(line, len, vstart);
		n = kend - i - 2;
		if (am != NULL && vend > vstart) {
			if (n == 6 && am[0].p == NULL && memcmp(line + i + 1, "device", 6) == 0) {
				am[0].p = line + vstart;
				am[0].len = vend - vstart;
			} else if (n == 11 && am[1].p == NULL &&
				   memcmp(line + i + 1, "correlation", 11) == 0) {
				am[1].p = line + vstart;
				am[1].len = vend - vstart;
			}
		}
		if (vend >= len)
			return -1;
		if (line[vend] == '}') {
			*end = vend + 1;
			return 0;
		}
		if (line[vend] != ',')
			return -1;
		i = vend + 1;
		if (stop && am[0].p != NULL && am[1].p != NULL) {
			*end = i;
			return 1;
		}
	}
	return -1;
}

/* The state of one compaction (compact.h's struct compact): the options,
 * what pass one gathered, the plan, pass two's place. */
struct compact {
	/* options: set after compact_new, before the first event */
	int64_t max_lanes;         /* 1..COMPACT_MAX_LANES */
	const char *only_pid;      /* --pid, or NULL */
	const char *only_device;   /* --device: args.device of the activity to move */
	int layers_report;         /* a .layers.json report passed by (set by the caller) */
	char *source_name;         /* the head's source (set by the caller, freed here) */

	uint64_t events;           /* events seen: the source index of the next one */
	/* the first activity, scope or unparsed flow (UINT64_MAX: none);
	 * flows on a track: the track's first_flow; thread metadata: ret[] */
	uint64_t first_change;
	/* guides: the overlap check sorts them; the other checks need only
	 * the first offender */
	struct extsort guides;
	uint64_t nguides;
	uint64_t first_bad_guide;  /* first guide without its args, or UINT64_MAX */
	struct intern guide_pids;  /* pids holding guides ... */
	uint64_t *guide_pid_first; /* ... and the first guide of each */
	size_t guide_pid_cap;
	struct intern gpu_devices; /* "pid P, device D" of GPU activity, with --device */
	struct intern device_pids; /* pids with activity of --device */
	/* --device: a GPU scope without args.device (Kineto writes none) waits
	 * in this spill ("INDEX TRACK line") until pass one has seen which
	 * tracks hold that device's activity */
	struct compact_spill pending;
	int pending_fd;            /* -1 until the first one */
	uint64_t npending;
	struct intern tracks_by_key, pids, groups_by_key;
	struct intern gpu_pids;    /* pids with GPU activity, --pid or not */
	struct intern seen_cats;   /* device-like categories seen before any GPU activity */
	struct intern checked_cats;/* categories already looked at for the above */
	struct compact_cat_slot recent_cats[COMPACT_RECENT_CATS];
	struct compact_track *tracks;
	size_t ntracks_cap;
	struct compact_group *groups;
	size_t ngroups_cap;
	struct extsort acts;  /* the records, sorted for the lanes */
	size_t nacts;
	struct extsort flows; /* flow records, in source order */
	uint64_t flows_noid;       /* flows without a numeric id */
	struct extsort lanes_out;  /* compact_lane_rec by source index */
	struct extsort bindings;   /* compact_flow_hit by source index */
	struct extsort offsets;    /* compact_offsets, in source order */
	struct intern lane_keys;   /* (group, track, lane) seen while counting */
	size_t *lane_slot;         /* its entry in the group's counts[lane] */
	size_t lane_slot_cap;
	struct compact_retired *ret;
	size_t nret, ret_cap;
	struct lanes_refusal refusal; /* after COMPACT_LANES */
	/* pass two */
	struct compact_lane_rec next_lane;
	struct compact_flow_hit next_bind;
	struct compact_offsets next_offsets;
	int have_lane, have_bind, have_offsets;
	size_t next_ret;
	uint64_t index;
	uint64_t relocated, relocated_flows, new_metadata, nretired;
	/* scratch */
	struct jdoc doc;
	struct buf key, last_track_key, out, line;
	uint32_t last_track;
	struct buf last_group_dev; /* the last group_of: its device text, pid, kind */
	uint32_t last_group_pid, last_group;
	int last_group_kind, have_last_group;
	struct buf msg;            /* the refusal */
};

/* Room for one more item in a growing array: 0 or COMPACT_NOMEM. */
int compact_room(void **items, size_t n, size_t *cap, size_t first, size_t elem);

/* compact.c */
/* The id of a (pid, tid) in *id, adding it when new. */
int compact_track_of(struct compact *c, const char *pid, size_t plen, const char *tid,
		    size_t tlen, uint32_t *out);
int compact_group_of(struct compact *c, const struct compact_track *t, const char *dev,
		    size_t dlen, int kind, uint32_t *out);

/* compact_scan.c */
/* A record for a GPU activity or scope; w: pass one's walk over line, or
 * NULL. */
int compact_scan_add_act(struct compact *c, const char *line, size_t len, uint32_t track, int kind,
		   int is_kernel, struct walk *w);
void compact_scan_note_other(struct compact *c, uint32_t track);

/* compact_plan.c */
/* The next lane and binding, for pass two. */
int compact_plan_next_lane(struct compact *c);
int compact_plan_next_offsets(struct compact *c);
int compact_plan_next_bind(struct compact *c);

#endif
