/* source: the bytes of a trace as stored (plain or gzip, detected by the
 * gzip magic), decompressed through gz.h (ISA-L or zlib), with the stored
 * size and SHA-256 computed while streaming.  Concatenated gzip members are
 * one stream.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_SOURCE_H
#define TR_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#define SOURCE_SHA256_HEX 65  /* 64 hex digits and a NUL */

struct source;

/* path NULL or "-" reads standard input.  Returns NULL with errno set when
 * the file cannot be opened (ENOMEM included). */
struct source *source_open(const char *path);

/* Read up to n decompressed bytes.  Returns the count, 0 at the end of the
 * data, or -1 with source_error() describing what is wrong. */
long source_read(struct source *s, void *dst, size_t n);

/* Read and hash whatever stored bytes remain (so that size and digest cover
 * the whole file); -1 on a read error. */
int source_drain(struct source *s);

/* The meter p is told the stored bytes read after every block (1 MiB),
 * in its current phase, over the file's size (unknown for a pipe). */
struct progress;
void source_set_progress(struct source *s, struct progress *p);
uint64_t source_stored_bytes(const struct source *s);
/* Valid after source_read returned 0 or source_drain succeeded. */
void source_sha256_hex(struct source *s, char hex[SOURCE_SHA256_HEX]);
/* The last error: a message and, for gzip errors, the stored byte offset. */
const char *source_error(const struct source *s);
/* Whether that error is damaged gzip data (the input's fault) rather than
 * an I/O or memory error (trouble). */
int source_error_is_damage(const struct source *s);
void source_close(struct source *s);

#endif
