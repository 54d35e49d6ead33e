/* The unit runners' view of a compaction: through compact.h's functions
 * only (struct compact is opaque), with Check's assertions. */
#ifndef TR_TESTS_COMPACT_TEST_H
#define TR_TESTS_COMPACT_TEST_H

#include <check.h>

#include "compact/compact.h"

static inline struct compact *new_compact(void)
{
	struct compact *c = compact_new();

	ck_assert_ptr_nonnull(c);
	return c;
}

static inline struct compact_stats stats_of(const struct compact *c)
{
	struct compact_stats s;

	compact_get_stats(c, &s);
	return s;
}

/* Group i, which must exist. */
static inline struct compact_group_info group_of(const struct compact *c, size_t i)
{
	struct compact_group_info g;

	ck_assert_int_eq(compact_group_info(c, i, &g), 0);
	return g;
}

#endif
