/* serve: tr-serve's HTTP server on GNU libmicrohttpd.  See serve.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <microhttpd.h>

#include "serve/serve.h"

struct serve {
	struct MHD_Daemon *d;
	struct serve_conf c;
	char page_path[SERVE_TOKEN_HEX + 3];
	char trace_path[SERVE_TOKEN_HEX + 8];
};

/* Sent with every response.  The Referrer-Policy keeps the token out of the
 * Referer that the UI would otherwise see; no Cross-Origin-Opener-Policy,
 * which would cut the page off from the window it opens. */
static const char *const common_headers[][2] = {
	{ "Cache-Control", "no-store" },
	{ "X-Content-Type-Options", "nosniff" },
	{ "Referrer-Policy", "no-referrer" },
	{ "X-Frame-Options", "DENY" },
	{ "Connection", "close" },
};

static const char page_csp[] =
	"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

int serve_listen(unsigned want_port, int *fd, unsigned *port, const char **what)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	int one = 1, s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), saved;

	*what = "socket";
	if (s < 0)
		return -1;
	/* a restart on the same --port must not wait out TIME_WAIT */
	*what = "setsockopt";
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0)
		goto fail;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)want_port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);   /* never 0.0.0.0 */
	*what = "bind";
	if (bind(s, (struct sockaddr *)&sa, sizeof sa) != 0)
		goto fail;
	*what = "listen";
	if (listen(s, 16) != 0)
		goto fail;
	*what = "getsockname";
	if (getsockname(s, (struct sockaddr *)&sa, &len) != 0)
		goto fail;
	*fd = s;
	*port = ntohs(sa.sin_port);
	return 0;
fail:
	saved = errno;
	close(s);
	errno = saved;
	return -1;
}

int serve_open_trace(const char *path, int *fd, uint64_t *size)
{
	struct stat st;
	int saved;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	*fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0)
		return -1;
	if (fstat(*fd, &st) != 0 || (S_ISREG(st.st_mode) &&
				     fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) < 0)) {
		saved = errno;
		close(*fd);
		*fd = -1;
		errno = saved;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		return -2;
	}
	*size = (uint64_t)st.st_size;
	return 0;
}

int serve_token(char tok[SERVE_TOKEN_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[SERVE_TOKEN_HEX / 2];
	size_t got = 0, i;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), saved;

	if (fd < 0)
		return -1;
	while (got < sizeof raw) {
		ssize_t r = read(fd, raw + got, sizeof raw - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			saved = r == 0 ? EIO : errno;
			close(fd);
			errno = saved;
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	for (i = 0; i < sizeof raw; i++) {
		tok[2 * i] = hex[raw[i] >> 4];
		tok[2 * i + 1] = hex[raw[i] & 15];
	}
	tok[SERVE_TOKEN_HEX] = '\0';
	return 0;
}

int serve_host_ok(const char *host, unsigned port)
{
	char a[32], b[32];

	snprintf(a, sizeof a, "127.0.0.1:%u", port);
	snprintf(b, sizeof b, "localhost:%u", port);
	return strcmp(host, a) == 0 || strcasecmp(host, b) == 0;
}

int serve_same_secret(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b), i;
	unsigned char d = 0;

	if (alen != blen)
		return 0;
	for (i = 0; i < alen; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

/* Decimal digits at *p into *v: 1, or 0 when there are none or too many. */
static int digits(const char **p, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (*v > UINT64_MAX / 10 || (*v == UINT64_MAX / 10 && d > UINT64_MAX % 10))
			return 0;
		*v = *v * 10 + d;
	}
	*p = s;
	return 1;
}

enum serve_range serve_parse_range(const char *h, uint64_t size, uint64_t *off,
	uint64_t *len)
{
	const char *p;
	uint64_t first, last;

	if (h == NULL || strncasecmp(h, "bytes=", 6) != 0)
		return SERVE_RANGE_NONE;
	p = h + 6;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '-') {                       /* the last N bytes */
		p++;
		if (!digits(&p, &last))
			return SERVE_RANGE_NONE;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '\0')
			return SERVE_RANGE_NONE;   /* several ranges: all of it */
		if (last == 0 || size == 0)
			return SERVE_RANGE_UNSATISFIABLE;
		*len = last < size ? last : size;
		*off = size - *len;
		return SERVE_RANGE_OK;
	}
	if (!digits(&p, &first) || *p++ != '-')
		return SERVE_RANGE_NONE;
	last = UINT64_MAX;
	if (*p >= '0' && *p <= '9' && !digits(&p, &last))
		return SERVE_RANGE_NONE;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0' || last < first)
		return SERVE_RANGE_NONE;
	if (first >= size)
		return SERVE_RANGE_UNSATISFIABLE;
	if (last >= size)
		last = size - 1;
	*off = first;
	*len = last - first + 1;
	return SERVE_RANGE_OK;
}

uint64_t serve_text_size(int fd, uint64_t size)
{
	unsigned char tail[4], magic[2];
	uint64_t isize;

	if (size < 18 || pread(fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b)
		return size;
	if (pread(fd, tail, 4, (off_t)(size - 4)) != 4)
		return size;
	isize = (uint64_t)tail[0] | (uint64_t)tail[1] << 8 | (uint64_t)tail[2] << 16 |
		(uint64_t)tail[3] << 24;
	return isize > size ? isize : size;
}

int serve_in_path(const char *name)
{
	const char *p = getenv("PATH"), *colon;
	char full[4096];

	if (p == NULL)
		p = "/usr/bin:/bin";
	for (;; p = colon + 1) {
		int dl;

		colon = strchr(p, ':');
		dl = colon ? (int)(colon - p) : (int)strlen(p);
		if (dl == 0)
			snprintf(full, sizeof full, "./%s", name);
		else
			snprintf(full, sizeof full, "%.*s/%s", dl, p, name);
		if (access(full, X_OK) == 0)
			return 1;
		if (colon == NULL)
			return 0;
	}
}

pid_t serve_spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		sigset_t none;

		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* Our stdout may be a pipe a script reads to the end; a
		 * browser started by the program must not hold it open. */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* ---- the request handler -------------------------------------------- */

static enum MHD_Result queue(struct MHD_Connection *c, unsigned code,
	struct MHD_Response *r, const char *type)
{
	enum MHD_Result ok;
	size_t i;

	if (r == NULL)
		return MHD_NO;   /* the library closes the connection */
	for (i = 0; i < sizeof common_headers / sizeof common_headers[0]; i++)
		MHD_add_response_header(r, common_headers[i][0], common_headers[i][1]);
	MHD_add_response_header(r, "Content-Type", type);
	ok = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned code,
	const char *reason, const char *allow)
{
	char body[128];
	int n = snprintf(body, sizeof body, "%u %s\n", code, reason);
	struct MHD_Response *r = MHD_create_response_from_buffer((size_t)n, body,
								 MHD_RESPMEM_MUST_COPY);

	if (r != NULL && allow != NULL)
		MHD_add_response_header(r, "Allow", allow);
	return queue(c, code, r, "text/plain; charset=utf-8");
}

/* The trace as stored, or the range asked for, from a descriptor of its
 * own (the library closes it with the response), without copying. */
static enum MHD_Result send_trace(struct serve *s, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Range");
	uint64_t off = 0, len = s->c.trace_size;
	enum serve_range k = serve_parse_range(h, s->c.trace_size, &off, &len);
	struct MHD_Response *r;
	char cr[96];
	int fd;

	if (k == SERVE_RANGE_UNSATISFIABLE) {
		struct MHD_Response *e;
		char body[] = "416 Range Not Satisfiable\n";

		snprintf(cr, sizeof cr, "bytes */%llu", (unsigned long long)s->c.trace_size);
		e = MHD_create_response_from_buffer(sizeof body - 1, body, MHD_RESPMEM_MUST_COPY);
		if (e != NULL)
			MHD_add_response_header(e, "Content-Range", cr);
		return queue(c, MHD_HTTP_RANGE_NOT_SATISFIABLE, e, "text/plain; charset=utf-8");
	}
	fd = fcntl(s->c.trace_fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return send_error(c, 500, "Internal Server Error", NULL);
	r = MHD_create_response_from_fd_at_offset64(len, fd, off);
	if (r == NULL) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Accept-Ranges", "bytes");
	if (k == SERVE_RANGE_OK) {
		snprintf(cr, sizeof cr, "bytes %llu-%llu/%llu", (unsigned long long)off,
			 (unsigned long long)(off + len - 1), (unsigned long long)s->c.trace_size);
		MHD_add_response_header(r, "Content-Range", cr);
	}
	return queue(c, k == SERVE_RANGE_OK ? MHD_HTTP_PARTIAL_CONTENT : MHD_HTTP_OK, r,
		     "application/octet-stream");
}

struct hosts {
	int n;
	const char *value;
};

static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key,
	const char *value)
{
	struct hosts *h = cls;

	(void)kind;
	if (strcasecmp(key, "Host") == 0) {
		h->n++;
		h->value = value;
	}
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
	const char *method, const char *version, const char *upload_data,
	size_t *upload_data_size, void **con_cls)
{
	struct serve *s = cls;
	struct hosts h = { 0, NULL };
	size_t n;

	(void)version;
	(void)upload_data;
	(void)con_cls;
	/* a request body is never read: answered at once, then closed */
	*upload_data_size = 0;
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_host, &h);
	if (h.n != 1)
		return send_error(c, 400, "Bad Request", NULL);
	/* DNS rebinding: a page of evil.example resolved to 127.0.0.1 still
	 * sends its own name. */
	if (!serve_host_ok(h.value, s->c.port))
		return send_error(c, 421, "Misdirected Request", NULL);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return send_error(c, 405, "Method Not Allowed", "GET, HEAD");
	/* The path is compared, never decoded or looked up (the library
	 * gives it without the query). */
	n = strlen(url);
	if (serve_same_secret(url, n, s->page_path)) {
		struct MHD_Response *r = MHD_create_response_from_buffer(
			s->c.page_len, (void *)s->c.page, MHD_RESPMEM_PERSISTENT);

		if (r != NULL)
			MHD_add_response_header(r, "Content-Security-Policy", page_csp);
		return queue(c, MHD_HTTP_OK, r, "text/html; charset=utf-8");
	}
	if (serve_same_secret(url, n, s->trace_path))
		return send_trace(s, c);
	return send_error(c, 404, "Not Found", NULL);
}

/* The path as sent: %2e%2e stays %2e%2e. */
static size_t no_unescape(void *cls, struct MHD_Connection *c, char *str)
{
	(void)cls;
	(void)c;
	return strlen(str);
}

struct serve *serve_start(const struct serve_conf *conf)
{
	struct serve *s = calloc(1, sizeof *s);

	if (s == NULL)
		return NULL;
	s->c = *conf;
	snprintf(s->page_path, sizeof s->page_path, "/%s/", conf->token);
	snprintf(s->trace_path, sizeof s->trace_path, "/%s/trace", conf->token);
	/* No MHD_USE_ERROR_LOG: the library says nothing on standard error. */
	s->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, s,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)conf->listen_fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVE_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)SERVE_IDLE_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_HEAD_MAX,
		MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL,
		MHD_OPTION_END);
	if (s->d == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

void serve_stop(struct serve *s)
{
	if (s == NULL)
		return;
	MHD_stop_daemon(s->d);
	free(s);
}
