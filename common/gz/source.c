#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <openssl/evp.h>
#include "gz/gz.h"
#include "core/io.h"
#include "core/progress.h"
#include "gz/source.h"

#define RAW_BLOCK (1u << 20)

/* SHA-256 of a plain trace costs a quarter of decoding it, so a second
 * thread hashes each raw block while the caller decodes it.  Two raw
 * buffers alternate; a buffer is reused only once it has been hashed. */
struct hasher {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int on;
	int stop;
	int pending;         /* buffer index waiting to be hashed, or -1 */
	size_t pending_len;
	int done[2];         /* buffer i holds no bytes still to be hashed */
	int failed;
};

struct source {
	int fd;
	int owns_fd;
	int gzip;
	int raw_eof;
	int finished;        /* sha256 finalised */
	unsigned char *bufs[2];
	int cur;             /* raw == bufs[cur] */
	struct hasher h;
	unsigned char *raw;  /* stored bytes not yet consumed */
	size_t raw_pos, raw_len;
	uint64_t stored;     /* stored bytes read (and hashed) so far */
	struct gz_in *gz;    /* the gzip reader, once the magic was seen */
	EVP_MD_CTX *sha;
	unsigned char digest[32];
	char error[160];
	int damaged;         /* the last error is damaged gzip data, not I/O */
	struct progress *progress;  /* told the stored bytes read, a block at a time */
};

static void *hash_blocks(void *arg)
{
	struct source *s = arg;
	struct hasher *h = &s->h;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		int i, ok;
		size_t n;
		while (h->pending < 0 && !h->stop)
			pthread_cond_wait(&h->cv, &h->mu);
		if (h->pending < 0)
			break;
		i = h->pending;
		n = h->pending_len;
		h->pending = -1;
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
		ok = EVP_DigestUpdate(s->sha, s->bufs[i], n) == 1;
		pthread_mutex_lock(&h->mu);
		if (!ok)
			h->failed = 1;
		h->done[i] = 1;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

static void hasher_start(struct source *s)
{
	struct hasher *h = &s->h;

	h->pending = -1;
	h->done[0] = h->done[1] = 1;
	if (pthread_mutex_init(&h->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&h->cv, NULL) != 0) {
		pthread_mutex_destroy(&h->mu);
		return;
	}
	if (pthread_create(&h->thread, NULL, hash_blocks, s) != 0) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
		return; /* hash in this thread instead */
	}
	h->on = 1;
}

/* Wait until buffer i holds nothing still to be hashed. */
static void hasher_wait(struct source *s, int i)
{
	struct hasher *h = &s->h;

	if (!h->on)
		return;
	pthread_mutex_lock(&h->mu);
	while (!h->done[i])
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
}

static int hasher_submit(struct source *s, int i, size_t n)
{
	struct hasher *h = &s->h;
	int failed;

	if (!h->on)
		return EVP_DigestUpdate(s->sha, s->bufs[i], n) == 1 ? 0 : -1;
	pthread_mutex_lock(&h->mu);
	while (h->pending >= 0)
		pthread_cond_wait(&h->cv, &h->mu);
	h->done[i] = 0;
	h->pending = i;
	h->pending_len = n;
	failed = h->failed;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return failed ? -1 : 0;
}

/* Hash everything submitted and end the thread; -1 if hashing failed. */
static int hasher_stop(struct source *s)
{
	struct hasher *h = &s->h;

	if (!h->on)
		return 0;
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->thread, NULL);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	h->on = 0;
	return h->failed ? -1 : 0;
}

/* Read the next stored block into the other buffer (once it is hashed) and
 * hand it to the hasher. */
static int read_raw(struct source *s)
{
	int next = s->h.on ? 1 - s->cur : s->cur;
	long got;

	hasher_wait(s, next);
	got = io_read_some(s->fd, s->bufs[next], RAW_BLOCK);
	if (got < 0) {
		snprintf(s->error, sizeof s->error, "%s", strerror(errno));
		return -1;
	}
	s->cur = next;
	s->raw = s->bufs[next];
	if (got == 0) {
		s->raw_eof = 1;
	} else if (hasher_submit(s, next, (size_t)got) != 0) {
		snprintf(s->error, sizeof s->error, "SHA-256 update failed");
		return -1;
	}
	s->stored += (uint64_t)got;
	if (s->progress != NULL)
		(void)progress_update(s->progress, s->stored);
	s->raw_pos = 0;
	s->raw_len = (size_t)got;
	return 0;
}

struct source *source_open(const char *path)
{
	struct source *s = calloc(1, sizeof *s);

	if (s == NULL)
		return NULL;
	if (path == NULL || strcmp(path, "-") == 0) {
		s->fd = STDIN_FILENO;
		io_grow_pipe(s->fd);
	} else {
		s->fd = open(path, O_RDONLY);
		s->owns_fd = 1;
	}
	s->bufs[0] = malloc(RAW_BLOCK);
	s->bufs[1] = malloc(RAW_BLOCK);
	s->raw = s->bufs[0];
	s->sha = EVP_MD_CTX_new();
	if (s->fd < 0 || s->bufs[0] == NULL || s->bufs[1] == NULL || s->sha == NULL ||
	    EVP_DigestInit_ex(s->sha, EVP_sha256(), NULL) != 1) {
		int saved = s->fd < 0 ? errno : ENOMEM;
		if (s->fd < 0)
			s->owns_fd = 0;
		source_close(s);
		errno = saved;
		return NULL;
	}
	/* Sniff the gzip magic in the first block; a one-byte first read of a
	 * pipe is completed so that the two magic bytes are seen together. */
	if (read_raw(s) != 0) {
		int saved = errno;
		source_close(s);
		errno = saved ? saved : EIO;
		return NULL;
	}
	while (s->raw_len == 1 && !s->raw_eof) {
		long got = io_read_some(s->fd, s->raw + 1, RAW_BLOCK - 1);
		if (got < 0) {
			int saved = errno;
			source_close(s);
			errno = saved;
			return NULL;
		}
		if (got == 0)
			s->raw_eof = 1;
		else
			EVP_DigestUpdate(s->sha, s->raw + 1, (size_t)got);
		s->stored += (uint64_t)got;
		s->raw_len += (size_t)got;
	}
	s->gzip = s->raw_len >= 2 && s->raw[0] == 0x1f && s->raw[1] == 0x8b;
	if (!s->raw_eof)
		hasher_start(s);
	return s;
}

void source_set_progress(struct source *s, struct progress *p)
{
	struct stat sb;
	uint64_t size = 0;

	if (fstat(s->fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
		size = (uint64_t)sb.st_size;
	s->progress = p;
	progress_phase(p, p->phase, size);
}

uint64_t source_stored_bytes(const struct source *s)
{
	return s->stored;
}

int source_error_is_damage(const struct source *s)
{
	return s->damaged;
}

const char *source_error(const struct source *s)
{
	return s->error;
}

static long read_plain(struct source *s, unsigned char *dst, size_t n)
{
	size_t have;

	if (s->raw_pos == s->raw_len) {
		if (s->raw_eof)
			return 0;
		if (read_raw(s) != 0)
			return -1;
		if (s->raw_len == 0)
			return 0;
	}
	have = s->raw_len - s->raw_pos;
	if (have > n)
		have = n;
	memcpy(dst, s->raw + s->raw_pos, have);
	s->raw_pos += have;
	return (long)have;
}

static int gzip_error(struct source *s)
{
	s->damaged = 1;
	snprintf(s->error, sizeof s->error, "byte %llu of the gzip file: %s",
		 (unsigned long long)gz_in_error_offset(s->gz), gz_in_error(s->gz));
	return -1;
}

/* gz.c reads the members, checks their trailers and refuses what follows
 * the last one (zlib's gzread would ignore trailing bytes silently; a trace
 * with junk after its compressed data is refused). */
static long read_gzip(struct source *s, unsigned char *dst, size_t n)
{
	if (s->gz == NULL && (s->gz = gz_in_new()) == NULL) {
		snprintf(s->error, sizeof s->error, "out of memory");
		return -1;
	}
	for (;;) {
		size_t used = 0, made = 0;
		int rc;
		if (s->raw_pos == s->raw_len && !s->raw_eof) {
			if (read_raw(s) != 0)
				return -1;
			continue;
		}
		/* at the end, the reader may still hold output for no input */
		rc = gz_inflate(s->gz, s->raw + s->raw_pos, s->raw_len - s->raw_pos, dst, n,
				&used, &made);
		s->raw_pos += used;
		if (rc == GZ_OK && made == 0 && s->raw_pos == s->raw_len && s->raw_eof)
			rc = gz_inflate_end(s->gz);
		if (rc == GZ_END)
			return 0;
		if (rc == GZ_BAD)
			return gzip_error(s);
		if (rc != GZ_OK) {
			snprintf(s->error, sizeof s->error, "gzip: %s", gz_in_error(s->gz));
			return -1;
		}
		if (made > 0)
			return (long)made;
		if (used == 0 && s->raw_pos < s->raw_len) {
			snprintf(s->error, sizeof s->error, "gzip: the reader made no progress");
			return -1;
		}
	}
}

long source_read(struct source *s, void *dst, size_t n)
{
	if (n == 0)
		return 0;
	return s->gzip ? read_gzip(s, dst, n) : read_plain(s, dst, n);
}

int source_drain(struct source *s)
{
	while (!s->raw_eof)
		if (read_raw(s) != 0)
			return -1;
	s->raw_pos = s->raw_len;
	if (hasher_stop(s) != 0) {
		snprintf(s->error, sizeof s->error, "SHA-256 update failed");
		return -1;
	}
	return 0;
}

void source_sha256_hex(struct source *s, char hex[SOURCE_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned int len = 0;
	int i;

	if (!s->finished) {
		(void)hasher_stop(s);
		EVP_DigestFinal_ex(s->sha, s->digest, &len);
		s->finished = 1;
	}
	for (i = 0; i < 32; i++) {
		hex[2 * i] = digits[s->digest[i] >> 4];
		hex[2 * i + 1] = digits[s->digest[i] & 15];
	}
	hex[64] = '\0';
}

void source_close(struct source *s)
{
	if (s == NULL)
		return;
	(void)hasher_stop(s);
	gz_in_free(s->gz);
	if (s->owns_fd && s->fd >= 0)
		close(s->fd);
	EVP_MD_CTX_free(s->sha);
	free(s->bufs[0]);
	free(s->bufs[1]);
	free(s);
}
