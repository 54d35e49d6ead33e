/* oracle_guides: see tests/oracle.h. */
#include "../../oracle.h"

int guides_build(const struct guides_anchor *a, size_t n, size_t num_layers,
		 struct guides_span *out, size_t *where)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (guides_span_of(&a[i], i + 1 < n ? &a[i + 1] : NULL, num_layers,
				   &out[i]) != GUIDES_OK) {
			*where = i;
			return GUIDES_BACKWARDS;
		}
	/* A zero-length guide sharing its start with another guide would nest
	 * under it in Perfetto (depth 1); so would any two sharing a start. */
	for (i = 0; i + 1 < n; i++)
		if (out[i + 1].start_us == out[i].start_us) {
			*where = i;
			return GUIDES_SAME_US;
		}
	return GUIDES_OK;
}
