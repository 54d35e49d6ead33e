/* Unit tests for common/serve/serve.c: the Range header's forms, the Host check,
 * the token compare, the JSON text size of a gzip file, PATH look-up, the
 * token, and a server on 127.0.0.1 answering real requests (the page, the
 * trace whole and in part, 416, 404, 405, 421, 400). */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve/serve.h"

START_TEST(test_range)
{
	static const struct {
		const char *h;
		uint64_t size;
		enum serve_range want;
		uint64_t off, len;
	} cases[] = {
		{ NULL, 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=0-9", 100, SERVE_RANGE_OK, 0, 10 },
		{ "bytes=10-19", 100, SERVE_RANGE_OK, 10, 10 },
		{ "Bytes= 90-", 100, SERVE_RANGE_OK, 90, 10 },
		{ "bytes=90-500", 100, SERVE_RANGE_OK, 90, 10 },
		{ "bytes=99-99", 100, SERVE_RANGE_OK, 99, 1 },
		{ "bytes=-10", 100, SERVE_RANGE_OK, 90, 10 },
		{ "bytes=-500", 100, SERVE_RANGE_OK, 0, 100 },
		{ "bytes=100-", 100, SERVE_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=100-200", 100, SERVE_RANGE_UNSATISFIABLE, 0, 0 },
		{ "bytes=-0", 100, SERVE_RANGE_UNSATISFIABLE, 0, 0 },
		/* forms not served: the whole file goes out */
		{ "bytes=0-1,5-6", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=-1,-2", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=9-3", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=x-3", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=3", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=-", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "items=0-9", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=99999999999999999999-", 100, SERVE_RANGE_NONE, 0, 0 },
		{ "bytes=0-18446744073709551615", 100, SERVE_RANGE_OK, 0, 100 },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t off = 0, len = 0;

		ck_assert_msg(serve_parse_range(cases[i].h, cases[i].size, &off, &len) ==
			      cases[i].want, "case %zu: %s", i, cases[i].h ? cases[i].h : "NULL");
		if (cases[i].want == SERVE_RANGE_OK) {
			ck_assert_uint_eq(off, cases[i].off);
			ck_assert_uint_eq(len, cases[i].len);
		}
	}
}
END_TEST

START_TEST(test_host_and_secret)
{
	ck_assert(serve_host_ok("127.0.0.1:8080", 8080));
	ck_assert(serve_host_ok("localhost:8080", 8080));
	ck_assert(serve_host_ok("LocalHost:8080", 8080));
	ck_assert(!serve_host_ok("127.0.0.1:8081", 8080));
	ck_assert(!serve_host_ok("127.0.0.1", 8080));
	ck_assert(!serve_host_ok("evil.example:8080", 8080));
	ck_assert(!serve_host_ok("127.0.0.1:8080 ", 8080));
	ck_assert(!serve_host_ok("", 8080));
	ck_assert(serve_same_secret("/abc/", 5, "/abc/"));
	ck_assert(serve_same_secret("/abc/?x", 5, "/abc/"));
	ck_assert(!serve_same_secret("/abc/", 4, "/abc/"));
	ck_assert(!serve_same_secret("/ABC/", 5, "/abc/"));
	ck_assert(!serve_same_secret("", 0, "/"));
}
END_TEST

START_TEST(test_text_size_and_path)
{
	char path[] = "/tmp/check_serve.XXXXXX";
	/* a gzip header, 8 bytes of body and a trailer whose ISIZE says 5000 */
	static const unsigned char gz[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
					    1, 2, 3, 4, 5, 6, 7, 8,
					    0, 0, 0, 0, 0x88, 0x13, 0, 0 };
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, gz, sizeof gz), (int)sizeof gz);
	ck_assert_uint_eq(serve_text_size(fd, sizeof gz), 5000);
	/* not gzip: the file's size */
	ck_assert_int_eq(pwrite(fd, "{}", 2, 0), 2);
	ck_assert_uint_eq(serve_text_size(fd, sizeof gz), sizeof gz);
	close(fd);
	unlink(path);
	ck_assert(serve_in_path("sh"));
	ck_assert(!serve_in_path("no-such-program-here"));
}
END_TEST

START_TEST(test_token)
{
	char a[SERVE_TOKEN_HEX + 1], b[SERVE_TOKEN_HEX + 1];

	ck_assert_int_eq(serve_token(a), 0);
	ck_assert_int_eq(serve_token(b), 0);
	ck_assert_uint_eq(strlen(a), SERVE_TOKEN_HEX);
	ck_assert_uint_eq(strspn(a, "0123456789abcdef"), SERVE_TOKEN_HEX);
	ck_assert_str_ne(a, b);
}
END_TEST

/* One request over a socket: the whole response, NUL-terminated. */
static char *ask(unsigned port, const char *req, size_t *n)
{
	struct sockaddr_in sa;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	char *out = malloc(1 << 20);
	ssize_t r;

	ck_assert_int_ge(s, 0);
	ck_assert_ptr_nonnull(out);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(s, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(write(s, req, strlen(req)), (int)strlen(req));
	*n = 0;
	while ((r = read(s, out + *n, (1 << 20) - 1 - *n)) > 0)
		*n += (size_t)r;
	out[*n] = '\0';
	close(s);
	return out;
}

static const char *body_of(const char *resp)
{
	const char *p = strstr(resp, "\r\n\r\n");

	ck_assert_ptr_nonnull(p);
	return p + 4;
}

START_TEST(test_server)
{
	char path[] = "/tmp/check_serve.XXXXXX", req[512], tok[SERVE_TOKEN_HEX + 1];
	static const char trace[] = "{\"traceEvents\": [1, 2, 3]}\n";
	static const char page[] = "<p>the page</p>\n";
	struct serve_conf c;
	struct serve *s;
	const char *what;
	char *r;
	size_t n;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, trace, sizeof trace - 1), (int)sizeof trace - 1);
	ck_assert_int_eq(serve_token(tok), 0);
	c.token = tok;
	c.page = page;
	c.page_len = sizeof page - 1;
	c.trace_fd = fd;
	c.trace_size = sizeof trace - 1;
	ck_assert_int_eq(serve_listen(0, &c.listen_fd, &c.port, &what), 0);
	s = serve_start(&c);
	ck_assert_ptr_nonnull(s);

	snprintf(req, sizeof req, "GET /%s/?auto=1 HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", tok, c.port);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0, "%s", r);
	ck_assert_ptr_nonnull(strstr(r, "Content-Type: text/html; charset=utf-8\r\n"));
	ck_assert_ptr_nonnull(strstr(r, "Content-Security-Policy: default-src 'none';"));
	ck_assert_ptr_nonnull(strstr(r, "Referrer-Policy: no-referrer\r\n"));
	ck_assert_str_eq(body_of(r), page);
	free(r);

	snprintf(req, sizeof req, "GET /%s/trace HTTP/1.1\r\nHost: localhost:%u\r\n\r\n", tok, c.port);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 200 OK\r\n", 17) == 0, "%s", r);
	ck_assert_ptr_nonnull(strstr(r, "Accept-Ranges: bytes\r\n"));
	ck_assert_str_eq(body_of(r), trace);
	free(r);

	snprintf(req, sizeof req, "GET /%s/trace HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
		 "Range: bytes=1-13\r\n\r\n", tok, c.port);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 206 Partial Content\r\n", 30) == 0, "%s", r);
	ck_assert_ptr_nonnull(strstr(r, "Content-Range: bytes 1-13/27\r\n"));
	ck_assert_str_eq(body_of(r), "\"traceEvents\"");
	free(r);

	snprintf(req, sizeof req, "GET /%s/trace HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
		 "Range: bytes=27-\r\n\r\n", tok, c.port);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 416 ", 13) == 0, "%s", r);
	ck_assert_ptr_nonnull(strstr(r, "Content-Range: bytes */27\r\n"));
	free(r);

	snprintf(req, sizeof req, "GET /%s/%%74race HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", tok,
		 c.port);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 404 ", 13) == 0, "encoded path: %s", r);
	ck_assert_str_eq(body_of(r), "404 Not Found\n");
	free(r);

	snprintf(req, sizeof req, "POST /%s/trace HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n", tok,
		 c.port);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 405 ", 13) == 0, "%s", r);
	ck_assert_ptr_nonnull(strstr(r, "Allow: GET, HEAD\r\n"));
	free(r);

	snprintf(req, sizeof req, "GET /%s/ HTTP/1.1\r\nHost: evil.example:%u\r\n\r\n", tok, c.port);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 421 ", 13) == 0, "%s", r);
	free(r);

	snprintf(req, sizeof req, "GET /%s/ HTTP/1.0\r\n\r\n", tok);
	r = ask(c.port, req, &n);
	ck_assert_msg(strncmp(r, "HTTP/1.1 400 ", 13) == 0, "no Host: %s", r);
	free(r);

	serve_stop(s);
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(test_open_and_spawn)
{
	char dir[] = "/tmp/check_serve.XXXXXX", path[256];
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"test -t 1 && exit 3; exit 7", NULL };
	char *none[] = { (char *)"no-such-program-here", NULL };
	uint64_t size = 9;
	int fd, st;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/t.json", dir);
	ck_assert_int_eq(serve_open_trace(path, &fd, &size), -1);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(write(fd, "[1]", 3), 3);
	close(fd);
	ck_assert_int_eq(serve_open_trace(path, &fd, &size), 0);
	ck_assert_uint_eq(size, 3);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	ck_assert_int_eq(serve_open_trace(dir, &fd, &size), -2);
	ck_assert_int_eq(fd, -1);
	unlink(path);
	rmdir(dir);
	/* the program runs, its standard output not a terminal but /dev/null */
	pid = serve_spawn(argv);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	pid = serve_spawn(none);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 127);
}
END_TEST

static Suite *serve_suite(void)
{
	Suite *s = suite_create("serve");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_host_and_secret);
	tcase_add_test(tc, test_text_size_and_path);
	tcase_add_test(tc, test_token);
	tcase_add_test(tc, test_server);
	tcase_add_test(tc, test_open_and_spawn);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(serve_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
