/* buf: a growable byte buffer with git strbuf's invariants: p is never NULL
 * and p[len] == '\0' always.  Growth failures are reported, not fatal.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_BUF_H
#define TR_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char *p;
	size_t len;
	size_t cap;   /* bytes allocated at p, or 0 while p is the shared empty */
};

#define BUF_INIT { buf_empty, 0, 0 }
extern char buf_empty[1];

/* Make room for n more bytes (plus the terminating NUL).  0, or -1 on
 * overflow or allocation failure (the buffer is unchanged). */
int buf_grow(struct buf *b, size_t n);
int buf_add(struct buf *b, const void *data, size_t n);
int buf_addstr(struct buf *b, const char *s);
int buf_addch(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The decimal text of v, as printf's %lld writes it, without printf's cost
 * (tr-compact writes three numbers into each of a million events). */
int buf_add_i64(struct buf *b, long long v);
/* The decimal digits of an unsigned count. */
int buf_add_u64(struct buf *b, uint64_t v);
void buf_setlen(struct buf *b, size_t len);
void buf_reset(struct buf *b);
void buf_release(struct buf *b);

/* Two memory helpers every module needs, here so that none writes its own.
 * Room for item n of a growing array *v of elem-byte items holding *cap:
 * when n reaches *cap, the capacity doubles (first for an empty array),
 * with the count and its size in bytes checked for overflow.  0, or -1 when
 * it would overflow or memory runs out (the array is unchanged). */
int buf_array_room(void **v, size_t n, size_t *cap, size_t first, size_t elem);
/* A NUL-terminated copy of n bytes; NULL when memory runs out. */
char *buf_memdup(const void *p, size_t n);

#endif
