/* Unit tests for common/json/event.c: the member walk over an event line.
 * Exact cases for each kind of value the walk passes over (numbers,
 * literals, strings with escapes and unicode, nested objects and arrays in
 * args, long names past the short-string look), the "not found" answers on
 * lines that are not one minified object, and a differential test against
 * the walk as it was before the value table (kept here as the oracle) on
 * every prefix of many lines and on random mutations of them, for several
 * key lists (shared prefixes, empty and duplicate keys, sixteen keys, keys
 * out of the members' order). */
/* memmem(3), the oracle of event_find_bytes */
#define _GNU_SOURCE
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/event.h"
#include "../../mutate.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the oracle: the walk of commit 1bb86d6, byte for byte ---- */

static size_t ref_skip_string(const char *line, size_t len, size_t i)
{
	size_t stop = i + 17 < len ? i + 17 : len;

	for (i++; i < stop; i++) {
		if (line[i] == '\\')
			break;
		if (line[i] == '"')
			return i + 1;
	}
	while (i < len) {
		const char *q = memchr(line + i, '"', len - i);
		size_t at, backslashes = 0;
		if (q == NULL)
			return len;
		at = (size_t)(q - line);
		while (line[at - backslashes - 1] == '\\')
			backslashes++;
		if (backslashes % 2 == 0)
			return at + 1;
		i = at + 1;
	}
	return len;
}

static size_t ref_skip_value(const char *line, size_t len, size_t i)
{
	size_t depth = 0;

	while (i < len) {
		char c = line[i];
		if (c == '"') {
			i = ref_skip_string(line, len, i);
			if (depth == 0)
				return i;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0 && c == ',') {
			return i;
		}
		i++;
	}
	return len;
}

static int ref_members(const char *line, size_t len, const char *const *keys, int nkeys,
		       struct member *out)
{
	size_t klen[16], i = 1;
	int k, found = 0;

	for (k = 0; k < nkeys; k++) {
		klen[k] = strlen(keys[k]);
		out[k].p = NULL;
		out[k].len = 0;
	}
	if (len < 2 || line[0] != '{')
		return 0;
	while (i < len && line[i] == '"' && found < nkeys) {
		size_t kend = ref_skip_string(line, len, i), vstart, vend, n;
		if (kend >= len || line[kend] != ':')
			return found;
		vstart = kend + 1;
		vend = ref_skip_value(line, len, vstart);
		n = kend - i - 2;
		for (k = 0; k < nkeys; k++)
			if (out[k].p == NULL && n == klen[k] && memcmp(line + i + 1, keys[k], n) == 0 &&
			    vend > vstart) {
				out[k].p = line + vstart;
				out[k].len = vend - vstart;
				found++;
				break;
			}
		if (vend >= len || line[vend] != ',')
			return found;
		i = vend + 1;
	}
	return found;
}

static int ref_member(const char *line, size_t len, const char *key, const char **value,
		      size_t *vlen)
{
	size_t klen = strlen(key), i = 1;

	if (len < 2 || line[0] != '{')
		return 0;
	while (i < len && line[i] == '"') {
		size_t kend = ref_skip_string(line, len, i), vstart, vend;
		if (kend >= len || line[kend] != ':')
			return 0;
		vstart = kend + 1;
		vend = ref_skip_value(line, len, vstart);
		if (kend - i == klen + 2 && memcmp(line + i + 1, key, klen) == 0) {
			*value = line + vstart;
			*vlen = vend - vstart;
			return vend > vstart;
		}
		if (vend >= len || line[vend] != ',')
			return 0;
		i = vend + 1;
	}
	return 0;
}

/* ---- helpers ---- */

static const char *const keys7[] = { "ts", "pid", "tid", "ph", "cat", "name", "dur" };

/* Key lists for the differential test: the lists of the stages, keys in
 * the members' order and against it, keys that are prefixes of each other
 * and of member names, the empty key, a key twice (the first takes the
 * first member of that name, the second the next one), sixteen keys, keys
 * of sixteen bytes and more, raw name bytes with an escape. */
static const char *const keys_order[] = { "ph", "cat", "name", "pid", "tid", "ts", "dur" };
static const char *const keys_reversed[] = { "dur", "ts", "tid", "pid", "name", "cat", "ph" };
static const char *const keys_prefixes[] = { "t", "ts", "tid", "tsx", "p", "pi", "pid", "ph",
					     "", "na", "name", "names" };
static const char *const keys_twice[] = { "ts", "ts", "", "", "pid", "ts", "a", "a", "s" };
static const char *const keys16[] = { "ph", "cat", "name", "pid", "tid", "ts", "dur", "args",
				      "id", "bp", "", "ts", "p\\\"id", "x", "s", "External id" };
static const char *const keys_long[] = { "a_member_name_longer_than_seventeen",
					 "a_member_name_longer_than_seventeen_", "grid", "\xc3\xa9",
					 "0123456789abcdef", "0123456789abcde", "" };
static const char *const keys_one_empty[] = { "" };
static const char *const keys_one[] = { "ts" };

static const struct {
	const char *const *keys;
	int n;
} key_lists[] = {
	{ keys7, (int)COUNT(keys7) },
	{ keys_order, (int)COUNT(keys_order) },
	{ keys_reversed, (int)COUNT(keys_reversed) },
	{ keys_prefixes, (int)COUNT(keys_prefixes) },
	{ keys_twice, (int)COUNT(keys_twice) },
	{ keys16, (int)COUNT(keys16) },
	{ keys_long, (int)COUNT(keys_long) },
	{ keys_one_empty, 1 },
	{ keys_one, 1 },
};

/* the raw value of key in line as a NUL-terminated string, "" when absent */
static char got[4096];
static const char *value_of(const char *line, const char *key)
{
	const char *v;
	size_t n;

	got[0] = '\0';
	if (event_member(line, strlen(line), key, &v, &n) && n < sizeof got) {
		memcpy(got, v, n);
		got[n] = '\0';
	}
	return got;
}

/* ---- exact cases ---- */

START_TEST(test_values)
{
	const char *line =
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"a\\\"b\\\\\",\"pid\":-12,"
		"\"tid\":\"stream 7 \\u00e9\",\"ts\":1.5e+3,\"dur\":0.125,\"ok\":true,"
		"\"no\":null,\"args\":{\"grid\":[1,[2,{\"x\":\"]}\"}],3],\"s\":\"{\"},"
		"\"last\":false}";

	ck_assert_str_eq(value_of(line, "ph"), "\"X\"");
	ck_assert_str_eq(value_of(line, "name"), "\"a\\\"b\\\\\"");
	ck_assert_str_eq(value_of(line, "pid"), "-12");
	ck_assert_str_eq(value_of(line, "tid"), "\"stream 7 \\u00e9\"");
	ck_assert_str_eq(value_of(line, "ts"), "1.5e+3");
	ck_assert_str_eq(value_of(line, "dur"), "0.125");
	ck_assert_str_eq(value_of(line, "ok"), "true");
	ck_assert_str_eq(value_of(line, "no"), "null");
	ck_assert_str_eq(value_of(line, "args"), "{\"grid\":[1,[2,{\"x\":\"]}\"}],3],\"s\":\"{\"}");
	ck_assert_str_eq(value_of(line, "last"), "false");
	ck_assert_str_eq(value_of(line, "grid"), "");  /* not a top-level member */
	ck_assert_str_eq(value_of(line, "x"), "");
}
END_TEST

START_TEST(test_long_strings)
{
	/* names past the 17-byte direct look: escapes before and after it */
	const char *line =
		"{\"name\":\"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(\\\"p\\\")\","
		"\"a_member_name_longer_than_seventeen\":\"\\\\\\\\\",\"pid\":0}";

	ck_assert_str_eq(value_of(line, "name"),
			 "\"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>(\\\"p\\\")\"");
	ck_assert_str_eq(value_of(line, "a_member_name_longer_than_seventeen"), "\"\\\\\\\\\"");
	ck_assert_str_eq(value_of(line, "pid"), "0");
	/* unicode bytes as they stand in UTF-8 */
	ck_assert_str_eq(value_of("{\"n\":\"\xc3\xa9\xe2\x82\xac \\ud83d\\ude00\",\"m\":1}", "m"),
			 "1");
}
END_TEST

START_TEST(test_members)
{
	const char *line = "{\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":14.196,\"cat\":\"ac2g\","
			   "\"name\":\"ac2g\",\"bp\":\"e\"}";
	struct member m[7];

	ck_assert_int_eq(event_members(line, strlen(line), keys7, 7, m), 6);
	ck_assert_int_eq((int)m[0].len, 6);
	ck_assert_int_eq(memcmp(m[0].p, "14.196", 6), 0);
	ck_assert_int_eq(memcmp(m[1].p, "0", 1), 0);
	ck_assert_int_eq(memcmp(m[2].p, "7", 1), 0);
	ck_assert_int_eq(memcmp(m[3].p, "\"f\"", 3), 0);
	ck_assert_int_eq(memcmp(m[4].p, "\"ac2g\"", 6), 0);
	ck_assert_int_eq((int)m[5].len, 6);
	ck_assert_ptr_null(m[6].p);  /* no dur */
	ck_assert_int_eq((int)m[6].len, 0);
	/* the first of two equal names wins; an empty name is a name */
	{
		const char *dup = "{\"\":5,\"a\":1,\"a\":2}";
		const char *const k[] = { "a", "" };
		ck_assert_int_eq(event_members(dup, strlen(dup), k, 2, m), 2);
		ck_assert_int_eq(m[0].p[0], '1');
		ck_assert_int_eq(m[1].p[0], '5');
	}
}
END_TEST

/* What the key matching answers, exactly: raw name bytes of the same
 * length, lowest key index first, a member with no value text passed over,
 * NUL bytes in a name, at most sixteen keys. */
START_TEST(test_key_matching)
{
	struct member m[17];
	/* two equal keys take the first two members of that name, a third
	 * finds none left; a key that is a prefix of a name is not it */
	{
		const char *line = "{\"tsx\":0,\"ts\":1,\"t\":2,\"ts\":3,\"\":4}";
		const char *const k[] = { "ts", "t", "ts", "ts", "" };
		ck_assert_int_eq(event_members(line, strlen(line), k, 5, m), 4);
		ck_assert_int_eq(m[0].p[0], '1');
		ck_assert_int_eq(m[1].p[0], '2');
		ck_assert_int_eq(m[2].p[0], '3');
		ck_assert_ptr_null(m[3].p);
		ck_assert_int_eq(m[4].p[0], '4');
	}
	/* keys against the members' order, and a member with no value text
	 * is passed over for the next of its name */
	{
		const char *line = "{\"ph\":\"X\",\"ts\":,\"pid\":5,\"ts\":6,\"cat\":\"k\"}";
		const char *const k[] = { "cat", "ts", "pid", "ph" };
		ck_assert_int_eq(event_members(line, strlen(line), k, 4, m), 4);
		ck_assert_int_eq(m[0].p[1], 'k');
		ck_assert_int_eq(m[1].p[0], '6');
		ck_assert_int_eq(m[2].p[0], '5');
		ck_assert_int_eq(m[3].p[1], 'X');
	}
	/* NUL bytes in names: "t\0" is not "t", "\0" is not "" */
	{
		static const char line[] = "{\"t\0\":1,\"\0\":2,\"\":3,\"t\":4}";
		const char *const k[] = { "t", "" };
		ck_assert_int_eq(event_members(line, sizeof line - 1, k, 2, m), 2);
		ck_assert_int_eq(m[0].p[0], '4');
		ck_assert_int_eq(m[1].p[0], '3');
	}
	/* past sixteen keys the rest are not looked at, nor their out */
	{
		const char *line = "{\"a\":1,\"b\":2}";
		const char *const k[] = { "x", "x", "x", "x", "x", "x", "x", "x",
					  "x", "x", "x", "x", "x", "x", "x", "a", "b" };
		m[16].p = line;
		m[16].len = 99;
		ck_assert_int_eq(event_members(line, strlen(line), k, 17, m), 1);
		ck_assert_int_eq(m[15].p[0], '1');
		ck_assert_ptr_eq(m[16].p, line);
		ck_assert_uint_eq(m[16].len, 99);
	}
	/* no keys: nothing looked for */
	ck_assert_int_eq(event_members("{\"a\":1}", 7, keys7, 0, m), 0);
}
END_TEST

START_TEST(test_not_found)
{
	const char *v = NULL;
	size_t n = 0;
	struct member m[7];
	static const char *const bad[] = {
		"", "{", "[1]", "{\"ts\"", "{\"ts\":", "{\"ts\"1}", "{\"a\":1\"ts\":2}",
		"{\"a\":\"unterminated,\"ts\":2}", "{\"a\":{\"b\":1,\"ts\":2}",
	};
	size_t i;

	for (i = 0; i < COUNT(bad); i++) {
		ck_assert_int_eq(event_member(bad[i], strlen(bad[i]), "ts", &v, &n), 0);
		ck_assert_int_eq(event_members(bad[i], strlen(bad[i]), keys7, 7, m), 0);
	}
	/* a member with no value text is "not found" */
	ck_assert_int_eq(event_member("{\"ts\":,\"x\":1}", 13, "ts", &v, &n), 0);
}
END_TEST

/* ---- the differential test ---- */

static const char *const corpus[] = {
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::native::indexSelectLargeIndex<c10::BFloat16, "
	"long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>)\","
	"\"pid\":0,\"tid\":8,\"ts\":1428625731484.298,\"dur\":6.734,\"args\":{\"External id\":2,"
	"\"grid\":[512,1,1],\"block\":[128,1,1],\"est. achieved occupancy %\":48}}",
	"{\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":1428625731461.196,\"cat\":\"ac2g\","
	"\"name\":\"ac2g\",\"bp\":\"e\"}",
	"{\"args\":{\"a\":[{\"b\":\"}]\\\"\"},[[]],{}],\"c\":\"\\\\\"},\"name\":\"x\\u0022y\",\"ts\":-1e-7,"
	"\"pid\":\"Spans\",\"tid\":true,\"ph\":null,\"cat\":\"a,b\",\"dur\":0}",
	"{\"name\":\"\\\\\\\\\\\\\\\"\\\\\\\"\\\"seventeen and more bytes\\\\\",\"ts\":1}",
	"{\"ts\":1,\"ts\":2,\"\":3,\"p\\\"id\":4,\"pid\":[1,2],\"tid\":{\"x\":[\"]\"]}}",
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":2,\"args\":{\"name\":\"\xc3\xa9t\xc3\xa9\"}}",
	"{\"tid\":1,\"t\":2,\"\":3,\"ts\":4,\"\":5,\"ts\":6,\"tsx\":7,\"pi\":8,\"pid\":9,\"ph\":10,"
	"\"p\":11,\"names\":12,\"na\":13,\"name\":14,\"a\":15,\"a\":16,\"s\":17,\"a\":18,\"ts\":19}",
	"{\"ts\":,\"ts\":1,\"\":,\"\":2,\"a\":,\"a\":3,\"0123456789abcdef\":4,\"0123456789abcde\":5,"
	"\"a_member_name_longer_than_seventeen_\":6,\"a_member_name_longer_than_seventeen\":7,"
	"\"\xc3\xa9\":8,\"External id\":9,\"p\\\"id\":10,\"x\":11,\"s\":12}",
};

/* event_members with every key list, and event_member with every key of
 * them, as the oracle finds them */
static void members_as_oracle(const char *line, size_t len)
{
	size_t l;

	for (l = 0; l < COUNT(key_lists); l++) {
		const char *const *keys = key_lists[l].keys;
		int nkeys = key_lists[l].n, k;
		struct member a[16], b[16];
		int fa = event_members(line, len, keys, nkeys, a);
		int fb = ref_members(line, len, keys, nkeys, b);

		ck_assert_int_eq(fa, fb);
		for (k = 0; k < nkeys; k++) {
			const char *va = NULL, *vb = NULL;
			size_t na = 0, nb = 0;
			int ra = event_member(line, len, keys[k], &va, &na);
			int rb = ref_member(line, len, keys[k], &vb, &nb);
			ck_assert_ptr_eq(a[k].p, b[k].p);
			ck_assert_uint_eq(a[k].len, b[k].len);
			ck_assert_int_eq(ra, rb);
			if (rb) {
				ck_assert_ptr_eq(va, vb);
				ck_assert_uint_eq(na, nb);
			}
		}
	}
}

static void same_as_oracle(const char *line, size_t len)
{
	size_t i;

	members_as_oracle(line, len);
	for (i = 0; i < len; i++) {
		ck_assert_uint_eq(event_skip_value(line, len, i), ref_skip_value(line, len, i));
		if (line[i] == '"')
			ck_assert_uint_eq(event_skip_string(line, len, i), ref_skip_string(line, len, i));
	}
}

START_TEST(test_prefixes)
{
	size_t c, n;

	for (c = 0; c < COUNT(corpus); c++) {
		size_t len = strlen(corpus[c]);
		/* each prefix in a buffer of its own size, so that a read past
		 * the end shows under ASan */
		for (n = 0; n <= len; n++) {
			char *copy = malloc(n ? n : 1);
			ck_assert_ptr_nonnull(copy);
			memcpy(copy, corpus[c], n);
			same_as_oracle(copy, n);
			free(copy);
		}
	}
}
END_TEST

/* Strings, numbers and nested args of every length from 0 to 47, with an
 * escape at every place: each stop byte lands on every offset within and
 * across the sixteen-byte blocks of the fast path, and on the last bytes,
 * which are looked at one by one. */
START_TEST(test_block_edges)
{
	char line[256], body[64];
	size_t n, at;

	for (n = 0; n < 48; n++) {
		for (at = 0; at <= n; at++) {
			size_t j, len;
			for (j = 0; j < n; j++)
				body[j] = (char)('a' + j % 26);
			if (at < n)
				body[at] = '\\';
			if (at + 1 < n)
				body[at + 1] = at % 2 ? '"' : '\\';
			body[n] = '\0';
			len = (size_t)snprintf(line, sizeof line, "{\"x\":\"%s\",\"ts\":1,\"pid\":\"%s\"}",
					       body, body);
			same_as_oracle(line, len);
			len = (size_t)snprintf(line, sizeof line, "{\"args\":{\"%s\":[\"%s\",{\"y\":%zu}]},"
					       "\"ts\":%s}", body, body, n, body);
			same_as_oracle(line, len);
		}
		/* a number of n digits, then the member after it */
		for (at = 0; at < n; at++)
			body[at] = (char)('0' + at % 10);
		body[n] = '\0';
		{
			size_t len = (size_t)snprintf(line, sizeof line,
						      "{\"ts\":-%s.5e+1,\"dur\":%s,\"tid\":[%s]}",
						      body, body, body);
			struct member m[7];
			same_as_oracle(line, len);
			ck_assert_int_eq(event_members(line, len, keys7, 7, m), n ? 3 : 2);
		}
	}
}
END_TEST

START_TEST(test_mutations)
{
	/* the bytes the walk reacts to, and a few it passes over */
	static const char bytes[] = "\"\\{}[],:0-.e a\0";
	uint32_t rng = 2463534242u;
	int round;

	for (round = 0; round < 5000; round++) {
		const char *src = corpus[next_rand(&rng) % COUNT(corpus)];
		size_t len = strlen(src), edits = 1 + next_rand(&rng) % 4, e;
		char *copy = malloc(len);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, src, len);
		for (e = 0; e < edits; e++)
			copy[next_rand(&rng) % len] = bytes[next_rand(&rng) % (sizeof bytes - 1)];
		same_as_oracle(copy, len);
		free(copy);
	}
}
END_TEST

/* event_find_bytes is memmem: every needle of one to twenty bytes taken
 * from the corpus lines and their mutations, and needles not there, at
 * every length of hay. */
START_TEST(test_find_bytes)
{
	uint32_t rng = 88172645u;
	size_t c;
	int round;

	for (c = 0; c < COUNT(corpus); c++) {
		const char *line = corpus[c];
		size_t len = strlen(line), n, at, m;
		for (n = 0; n <= len; n += 1 + n / 8)
			for (at = 0; at + 1 < len; at += 7)
				for (m = 1; m <= 20 && at + m <= len; m += 3) {
					ck_assert_ptr_eq(event_find_bytes(line, n, line + at, m),
							 memmem(line, n, line + at, m));
					ck_assert_ptr_eq(event_find_bytes(line, n, "_compact_gpu_track", 18),
							 memmem(line, n, "_compact_gpu_track", 18));
				}
	}
	for (round = 0; round < 2000; round++) {
		char hay[96], needle[8];
		size_t n = next_rand(&rng) % sizeof hay, m = 1 + next_rand(&rng) % sizeof needle, k;
		for (k = 0; k < n; k++)
			hay[k] = "ab_c"[next_rand(&rng) % 4];
		for (k = 0; k < m; k++)
			needle[k] = "ab_c"[next_rand(&rng) % 4];
		ck_assert_ptr_eq(event_find_bytes(hay, n, needle, m), memmem(hay, n, needle, m));
	}
}
END_TEST

/* Every order of three offsets, ties included, against a stable sort: the
 * edits come out lowest offset first (ties: the later-listed first, as the
 * rewrite and its undo always applied them). */
START_TEST(test_edit_order)
{
	static const size_t cases[][3] = {
		{ 1, 2, 3 }, { 1, 3, 2 }, { 2, 1, 3 }, { 2, 3, 1 }, { 3, 1, 2 }, { 3, 2, 1 },
		{ 5, 5, 1 }, { 1, 5, 5 }, { 5, 1, 5 }, { 7, 7, 7 },
	};
	static const unsigned want[][3] = {
		{ 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 }, { 2, 0, 1 }, { 1, 2, 0 }, { 2, 1, 0 },
		{ 2, 1, 0 }, { 0, 1, 2 }, { 1, 0, 2 }, { 0, 1, 2 },
	};
	size_t i, k;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned order[3] = { 9, 9, 9 };
		event_edit_order(cases[i], order);
		for (k = 0; k < 3; k++)
			ck_assert_msg(order[k] == want[i][k], "case %zu: order[%zu] = %u, want %u",
				      i, k, order[k], want[i][k]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("walk");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_long_strings);
	tcase_add_test(tc, test_members);
	tcase_add_test(tc, test_key_matching);
	tcase_add_test(tc, test_not_found);
	tcase_add_test(tc, test_prefixes);
	tcase_add_test(tc, test_block_edges);
	tcase_add_test(tc, test_mutations);
	tcase_add_test(tc, test_find_bytes);
	tcase_add_test(tc, test_edit_order);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
