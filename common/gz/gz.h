/* gz: gzip streams in and out through one backend chosen when the project is
 * built: Intel ISA-L (igzip) when the build found it, zlib otherwise (`make
 * GZIP=zlib` forces zlib).  No caller knows which one it got.
 *
 * Both backends behave the same on every input.  The gzip wrapper (header,
 * trailer, concatenated members, what follows the last one) is read here,
 * byte by byte, by the same code for both; a backend only inflates the raw
 * deflate data of a member.  So a damaged header or trailer, a truncated
 * stream and bytes after the gzip data give the same status, message and
 * offset under both.  Damaged deflate data is reported at the start of its
 * member: the two backends notice damage at different points inside the
 * data (ISA-L reads ahead and checks a whole block header at once), so the
 * only offset both can name exactly is where the member starts.
 *
 * Library code: every function returns a status; nothing here prints or
 * exits. */
#ifndef TR_GZ_H
#define TR_GZ_H

#include <stddef.h>
#include <stdint.h>

enum gz_status {
	GZ_OK = 0,     /* progress made; call again */
	GZ_END = 1,    /* the input ended cleanly after a whole member */
	GZ_BAD = 2,    /* the input is not a sound gzip stream: see gz_in_error */
	GZ_NOMEM = 3,
	GZ_WRITE = 4,  /* the output callback failed; errno is as it left it */
	GZ_FAIL = 5    /* the backend refused a call (a bug, not the input) */
};

/* "ISA-L 2.30.0" or "zlib 1.2.13": the backend, for --version. */
const char *gz_backend(void);

/* ---- Decompression: a gzip file, any number of concatenated members ---- */

struct gz_in;

struct gz_in *gz_in_new(void);  /* NULL: out of memory */
void gz_in_free(struct gz_in *z);

/* Decompress from in[0..in_len) into out[0..out_cap); *in_used and
 * *out_made say how much of each was taken.  GZ_OK: call again (with more
 * input once all of it is used); GZ_BAD: damaged input; GZ_NOMEM, GZ_FAIL.
 * It stops early only when out is full.  Output made in a call that fails
 * is not part of the data. */
int gz_inflate(struct gz_in *z, const unsigned char *in, size_t in_len,
	       unsigned char *out, size_t out_cap, size_t *in_used, size_t *out_made);
/* The input has ended: GZ_END when it ended after a whole member, else
 * GZ_BAD (truncated, or a stray byte after the last member). */
int gz_inflate_end(struct gz_in *z);

/* After GZ_BAD: what is wrong ("incorrect data check") and the 0-based
 * offset in the gzip input it names.  After GZ_NOMEM or GZ_FAIL, the
 * message alone says what failed. */
const char *gz_in_error(const struct gz_in *z);
uint64_t gz_in_error_offset(const struct gz_in *z);

/* ---- Compression: one gzip member ---- */

/* Receives compressed bytes; 0, or -1 with errno set. */
typedef int (*gz_put_fn)(void *ctx, const void *data, size_t n);

struct gz_out;

/* level 1-9 as gzip(1) counts it: 1 fastest, 9 smallest (ISA-L has four
 * levels; see tr-encode(1) for the mapping).  NULL: out of memory. */
struct gz_out *gz_out_new(int level, gz_put_fn put, void *ctx);
/* GZ_OK, GZ_WRITE, GZ_NOMEM or GZ_FAIL (gz_out_error says what). */
int gz_write(struct gz_out *z, const void *data, size_t n);
/* End the member: everything goes through put. */
int gz_finish(struct gz_out *z);
const char *gz_out_error(const struct gz_out *z);
void gz_out_free(struct gz_out *z);

#endif
