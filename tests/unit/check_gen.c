/* Unit tests for common/gen.c: an exact small trace, the layouts (they
 * change separators, never events), --disorder (the same bytes in another
 * order), experts, configurations refused. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"
#include "io.h"

/* gen_write's output, NUL-terminated; *rc its status, *err errno. */
static char *gen(const struct gen_config *cfg, int *rc, int *err, size_t *len)
{
	char path[] = "/tmp/check_gen.XXXXXX";
	int fd = mkstemp(path);
	struct writer w;
	struct stat st;
	char *p;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(writer_init(&w, fd), 0);
	errno = 0;
	*rc = gen_write(cfg, &w);
	*err = errno;
	ck_assert_int_eq(writer_flush(&w), 0);
	writer_free(&w);
	ck_assert_int_eq(fstat(fd, &st), 0);
	p = calloc((size_t)st.st_size + 1, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static char *gen_ok(const struct gen_config *cfg)
{
	int rc, err;
	size_t len;
	char *p = gen(cfg, &rc, &err, &len);

	ck_assert_int_eq(rc, 0);
	return p;
}

#define ADD "void at::native::vectorized_elementwise_kernel<4, " \
	"at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, " \
	"at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)"

START_TEST(test_exact_scale_case)
{
	struct gen_config cfg;
	char *p;

	gen_defaults(&cfg);
	cfg.scale_pids = 2;
	cfg.array = 1;
	cfg.layout = GEN_COMPACT;
	cfg.ts_int = 1;
	p = gen_ok(&cfg);
	ck_assert_str_eq(p, "[\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" ADD "\", \"pid\": 0, \"tid\": 7, "
		"\"ts\": 1428625731456, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7, "
		"\"correlation\": 1}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" ADD "\", \"pid\": 1, \"tid\": 7, "
		"\"ts\": 1428625731458, \"dur\": 1, \"args\": {\"device\": 1, \"stream\": 7, "
		"\"correlation\": 2}}\n]\n");
	free(p);
}
END_TEST

/* Replace every `from` in s by `to` (same or shorter), in place. */
static void replace_all(char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to);
	char *r = s, *w = s;

	while (*r) {
		if (strncmp(r, from, fl) == 0) {
			memcpy(w, to, tl);
			w += tl;
			r += fl;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

START_TEST(test_layouts)
{
	struct gen_config cfg;
	char *kineto, *lines, *compact, *indent2, *events;

	gen_defaults(&cfg);
	cfg.concurrency = 3;
	cfg.streams = 3;
	cfg.experts = 2;
	kineto = gen_ok(&cfg);
	cfg.layout = GEN_LINES;
	lines = gen_ok(&cfg);
	cfg.layout = GEN_COMPACT;
	compact = gen_ok(&cfg);
	cfg.layout = GEN_INDENT2;
	indent2 = gen_ok(&cfg);
	/* torch 2.0's args: a new line where Kineto now pads with six spaces */
	events = strstr(lines, "\"traceEvents\"");
	ck_assert_ptr_nonnull(events);
	replace_all(events, ",\n      \"", ",      \"");
	ck_assert_str_eq(lines, kineto);
	replace_all(indent2, "\n  {", "\n{");
	ck_assert_str_eq(indent2, compact);
	free(kineto);
	free(lines);
	free(compact);
	free(indent2);
}
END_TEST

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what)) != NULL) {
		n++;
		s++;
	}
	return n;
}

START_TEST(test_experts_and_disorder)
{
	struct gen_config cfg;
	char *plain, *dis;
	size_t a, b;
	int rc, err;

	gen_defaults(&cfg);
	cfg.concurrency = 4;
	cfg.streams = 8;
	cfg.experts = 3;
	cfg.layout = GEN_COMPACT;
	plain = gen(&cfg, &rc, &err, &a);
	/* 4 layers, 2 passes, 3 experts each */
	ck_assert_uint_eq(count(plain, "\"cat\": \"kernel\", \"name\": \"fused_moe_kernel\""), 24);
	ck_assert_uint_eq(count(plain, "\"name\": \"vllm::fused_moe\""), 24);
	cfg.disorder = 1;
	cfg.args_first = 1;
	dis = gen(&cfg, &rc, &err, &b);
	ck_assert_uint_eq(a, b);
	ck_assert_str_ne(plain, dis);
	/* args first: every runtime call's args come before its ts */
	ck_assert_uint_eq(count(dis, "\"tid\": 12345, \"args\": {\"External id\""),
			  count(dis, "\"cat\": \"cuda_runtime\""));
	free(plain);
	free(dis);
}
END_TEST

START_TEST(test_refused)
{
	struct gen_config cfg;
	int rc, err;
	size_t len;
	char *p;

	gen_defaults(&cfg);
	cfg.concurrency = 2;      /* one stream */
	p = gen(&cfg, &rc, &err, &len);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(err, EINVAL);
	ck_assert_uint_eq(len, 0);
	free(p);
	gen_defaults(&cfg);
	cfg.experts = 2;          /* one slot */
	p = gen(&cfg, &rc, &err, &len);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(err, EINVAL);
	free(p);
}
END_TEST

/* --shape: the bench's three traces, and an unknown name that changes nothing */
START_TEST(test_shapes)
{
	struct gen_config cfg, before;

	gen_defaults(&cfg);
	ck_assert_int_eq(gen_shape(&cfg, "dense"), 0);
	ck_assert_uint_eq(cfg.layers, 40);
	ck_assert_uint_eq(cfg.target_bytes, 900ULL << 20);
	ck_assert_uint_eq(cfg.streams, 300);
	ck_assert_uint_eq(cfg.concurrency, 3);
	ck_assert_int_eq(cfg.layout, GEN_COMPACT);
	ck_assert_uint_eq(cfg.experts, 0);

	gen_defaults(&cfg);
	ck_assert_int_eq(gen_shape(&cfg, "moe"), 0);
	ck_assert_uint_eq(cfg.streams, 300);
	ck_assert_uint_eq(cfg.concurrency, 6);
	ck_assert_uint_eq(cfg.experts, 6);
	ck_assert_int_eq(cfg.disorder, 1);
	ck_assert_int_eq(cfg.args_first, 1);
	ck_assert_int_eq(cfg.layout, GEN_INDENT2);

	gen_defaults(&cfg);
	ck_assert_int_eq(gen_shape(&cfg, "kineto"), 0);
	ck_assert_uint_eq(cfg.streams, 2);
	ck_assert_uint_eq(cfg.concurrency, 2);
	ck_assert_int_eq(cfg.layout, GEN_LINES);
	ck_assert_uint_eq(cfg.target_bytes, 900ULL << 20);

	gen_defaults(&cfg);
	before = cfg;
	ck_assert_int_eq(gen_shape(&cfg, "Dense"), -1);
	ck_assert_int_eq(memcmp(&cfg, &before, sizeof cfg), 0);
}
END_TEST

START_TEST(test_rocm_then_cuda)
{
	struct gen_config cfg;
	char *a, *b;

	/* the ROCm names do not stay behind for the next trace */
	gen_defaults(&cfg);
	a = gen_ok(&cfg);
	cfg.rocm = 1;
	b = gen_ok(&cfg);
	ck_assert_ptr_nonnull(strstr(b, "hipLaunchKernel"));
	free(b);
	cfg.rocm = 0;
	b = gen_ok(&cfg);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
}
END_TEST

static Suite *gen_suite(void)
{
	Suite *s = suite_create("gen");
	TCase *tc = tcase_create("gen");

	tcase_add_test(tc, test_exact_scale_case);
	tcase_add_test(tc, test_layouts);
	tcase_add_test(tc, test_experts_and_disorder);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_rocm_then_cuda);
	tcase_add_test(tc, test_shapes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(gen_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
