#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zlib.h>

#include "io.h"
#include "source.h"

#define RAW_BLOCK (1u << 20)

struct source {
	int fd;
	int owns_fd;
	int gzip;
	int raw_eof;
	int member_done;     /* the current gzip member ended (Z_STREAM_END) */
	int finished;        /* sha256 finalised */
	unsigned char *raw;  /* stored bytes not yet consumed */
	size_t raw_pos, raw_len;
	uint64_t stored;     /* stored bytes read (and hashed) so far */
	z_stream z;
	int z_ready;
	EVP_MD_CTX *sha;
	unsigned char digest[32];
	char error[160];
};

static int read_raw(struct source *s)
{
	long got = read_some(s->fd, s->raw, RAW_BLOCK);

	if (got < 0) {
		snprintf(s->error, sizeof s->error, "%s", strerror(errno));
		return -1;
	}
	if (got == 0) {
		s->raw_eof = 1;
	} else if (EVP_DigestUpdate(s->sha, s->raw, (size_t)got) != 1) {
		snprintf(s->error, sizeof s->error, "SHA-256 update failed");
		return -1;
	}
	s->stored += (uint64_t)got;
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
	s->raw = malloc(RAW_BLOCK + 1);  /* +1: next_member may prepend a byte */
	s->sha = EVP_MD_CTX_new();
	if (s->fd < 0 || s->raw == NULL || s->sha == NULL ||
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
		long got = read_some(s->fd, s->raw + 1, RAW_BLOCK - 1);
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
	return s;
}

int source_is_gzip(const struct source *s)
{
	return s->gzip;
}

uint64_t source_stored_bytes(const struct source *s)
{
	return s->stored;
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

static uint64_t stored_offset(const struct source *s)
{
	return s->stored - (s->raw_len - s->raw_pos);
}

static int gzip_error(struct source *s, const char *what)
{
	snprintf(s->error, sizeof s->error, "byte %llu of the gzip file: %s",
		 (unsigned long long)stored_offset(s), what);
	return -1;
}

/* After a member ends: another member may follow (its magic), else only the
 * end of the file is acceptable.  zlib's gzread would ignore trailing bytes
 * silently; a trace with junk after its compressed data is refused. */
static int next_member(struct source *s)
{
	for (;;) {
		if (s->raw_pos == s->raw_len) {
			if (s->raw_eof)
				return 0;
			if (read_raw(s) != 0)
				return -1;
			continue;
		}
		if (s->raw_len - s->raw_pos < 2 && !s->raw_eof) {
			/* keep the lone byte and read on to see two */
			unsigned char first = s->raw[s->raw_pos];
			if (read_raw(s) != 0)
				return -1;
			if (s->raw_len == 0) {
				/* put the byte back so that the offset names it */
				s->raw[0] = first;
				s->raw_len = 1;
				return gzip_error(s, "trailing garbage after the gzip data");
			}
			memmove(s->raw + 1, s->raw, s->raw_len);
			s->raw[0] = first;
			s->raw_len += 1;
			continue;
		}
		if (s->raw_len - s->raw_pos >= 2 && s->raw[s->raw_pos] == 0x1f &&
		    s->raw[s->raw_pos + 1] == 0x8b) {
			if (inflateReset(&s->z) != Z_OK)
				return gzip_error(s, "zlib inflateReset failed");
			s->member_done = 0;
			return 1;
		}
		return gzip_error(s, "trailing garbage after the gzip data");
	}
}

static long read_gzip(struct source *s, unsigned char *dst, size_t n)
{
	if (!s->z_ready) {
		if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
			return gzip_error(s, "zlib inflateInit2 failed");
		s->z_ready = 1;
	}
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	for (;;) {
		int zrc;
		if (s->member_done) {
			int more = next_member(s);
			if (more <= 0)
				return more;
		}
		if (s->raw_pos == s->raw_len) {
			if (s->raw_eof)
				return gzip_error(s, "truncated gzip data (unexpected end of file)");
			if (read_raw(s) != 0)
				return -1;
			continue;
		}
		s->z.next_in = s->raw + s->raw_pos;
		s->z.avail_in = (uInt)(s->raw_len - s->raw_pos);
		s->z.next_out = dst;
		s->z.avail_out = (uInt)n;
		zrc = inflate(&s->z, Z_NO_FLUSH);
		s->raw_pos = s->raw_len - s->z.avail_in;
		if (zrc == Z_STREAM_END) {
			s->member_done = 1;
		} else if (zrc == Z_NEED_DICT || zrc == Z_DATA_ERROR) {
			return gzip_error(s, s->z.msg ? s->z.msg : "corrupt gzip data");
		} else if (zrc == Z_MEM_ERROR) {
			return gzip_error(s, "out of memory in zlib");
		} else if (zrc != Z_OK && zrc != Z_BUF_ERROR) {
			return gzip_error(s, "zlib inflate failed");
		}
		if (s->z.avail_out < n)
			return (long)(n - s->z.avail_out);
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
	return 0;
}

void source_sha256_hex(struct source *s, char hex[SOURCE_SHA256_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned int len = 0;
	int i;

	if (!s->finished) {
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
	if (s->z_ready)
		inflateEnd(&s->z);
	if (s->owns_fd && s->fd >= 0)
		close(s->fd);
	EVP_MD_CTX_free(s->sha);
	free(s->raw);
	free(s);
}
