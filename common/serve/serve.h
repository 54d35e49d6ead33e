/* serve: the HTTP side of tr-serve, on GNU libmicrohttpd: one page and one
 * trace file on 127.0.0.1, under a random token, with the Host header
 * checked (DNS rebinding), only GET and HEAD, byte ranges of the trace, and
 * the library's limits on connections, their memory and their idle time.
 * Paths are compared as strings, never decoded or looked up: no request
 * ever names a file.  Nothing here prints or exits. */
#ifndef TR_SERVE_H
#define TR_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SERVE_TOKEN_HEX 32        /* 128 random bits */
#define SERVE_MAX_CONNECTIONS 16  /* served at once */
#define SERVE_IDLE_S 30           /* a connection silent this long is closed */
#define SERVE_HEAD_MAX 8192       /* request line and headers, about */

struct serve_conf {
	int listen_fd;            /* from serve_listen */
	unsigned port;
	const char *token;        /* SERVE_TOKEN_HEX hex digits */
	const char *page;         /* the page's bytes, kept while serving */
	size_t page_len;
	int trace_fd;             /* the trace, opened once, a regular file */
	uint64_t trace_size;
};

struct serve;

/* A socket listening on 127.0.0.1:want_port (0: any free port), its port
 * in *port: 0, or -1 with errno (the failed call's name in *what). */
int serve_listen(unsigned want_port, int *fd, unsigned *port, const char **what);

/* Serve until serve_stop, in the library's own thread.  The listening
 * socket is the server's from then on, and closed by serve_stop.  NULL
 * when the library cannot start (errno may tell). */
struct serve *serve_start(const struct serve_conf *c);
void serve_stop(struct serve *s);

/* Open the trace to serve, once: 0 with the descriptor and size, -1 with
 * errno, -2 when it is not a regular file. */
int serve_open_trace(const char *path, int *fd, uint64_t *size);

/* SERVE_TOKEN_HEX random hex digits (from /dev/urandom) and the NUL into
 * tok: 0, or -1 with errno. */
int serve_token(char tok[SERVE_TOKEN_HEX + 1]);

/* The request's Host header names this server: exactly 127.0.0.1:PORT or
 * localhost:PORT (any case). */
int serve_host_ok(const char *host, unsigned port);

/* a[0..alen) equals the string b, in a time that does not depend on where
 * they differ. */
int serve_same_secret(const char *a, size_t alen, const char *b);

/* A Range header for a file of size bytes: SERVE_RANGE_NONE (no header, a
 * form this server does not serve, such as several ranges: the whole file
 * goes out), SERVE_RANGE_OK with the bytes [*off, *off + *len), or
 * SERVE_RANGE_UNSATISFIABLE (416). */
enum serve_range { SERVE_RANGE_NONE, SERVE_RANGE_OK, SERVE_RANGE_UNSATISFIABLE };
enum serve_range serve_parse_range(const char *h, uint64_t size, uint64_t *off,
	uint64_t *len);

/* The size of the JSON text of a trace: the file's, or for gzip the larger
 * of the compressed size and the trailer's ISIZE (the size modulo 4 GiB). */
uint64_t serve_text_size(int fd, uint64_t size);

/* Run argv (argv[0] looked up in PATH, never through a shell) with
 * standard input and output on /dev/null and no signal blocked: its pid, or
 * -1 with errno when fork fails.  A program that cannot be run exits 127. */
pid_t serve_spawn(char *const argv[]);

/* name is an executable file in PATH (or in /usr/bin:/bin without one). */
int serve_in_path(const char *name);

#endif
