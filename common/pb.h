/* pb: the protobuf wire format, the small part trace-layers needs to write
 * and read Perfetto traces: varints, fixed64, doubles and length-delimited
 * fields, nested messages written into one growable buffer (each length is
 * put in front of its message once the message is complete, in its
 * shortest form).  No schema, no library: the caller names field numbers.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_PB_H
#define TR_PB_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum pb_wire { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

#define PB_MAX_DEPTH 64

/* A message being written: b holds the bytes, open[] where each nested
 * message still open begins.  Every put returns 0, or -1 when memory runs
 * out or PB_MAX_DEPTH messages are open (the buffer is then unusable until
 * pb_reset). */
struct pb {
	struct buf b;
	size_t open[PB_MAX_DEPTH];
	unsigned char kept[PB_MAX_DEPTH];   /* bytes kept for each length */
	int depth;
	int failed;
};
#define PB_INIT { BUF_INIT, { 0 }, { 0 }, 0, 0 }

int pb_varint(struct pb *w, uint32_t field, uint64_t v);
/* int64 as protobuf's int64 (two's complement, 10 bytes when negative) */
int pb_int64(struct pb *w, uint32_t field, int64_t v);
int pb_fixed64(struct pb *w, uint32_t field, uint64_t v);
int pb_double(struct pb *w, uint32_t field, double v);
int pb_bytes(struct pb *w, uint32_t field, const void *p, size_t n);
/* Open field's nested message; pb_end closes the innermost one.  The
 * length is written in its shortest form either way; pb_begin_large keeps
 * two bytes for it, where the message is expected to take 128 bytes or
 * more (a packet with its args), so that it moves only when it is not. */
int pb_begin(struct pb *w, uint32_t field);
int pb_begin_large(struct pb *w, uint32_t field);
int pb_end(struct pb *w);
/* 1 when the last put failed. */
int pb_failed(const struct pb *w);
void pb_reset(struct pb *w);
void pb_release(struct pb *w);

/* The bytes of v as a varint into out (at least 10 bytes); the count. */
size_t pb_put_varint(unsigned char *out, uint64_t v);

/* ---- reading ---------------------------------------------------------- */

/* A field read from [p, end): its number and wire type, and its value: v
 * for varints and fixed widths (a double's bits), data/len for
 * length-delimited ones. */
struct pb_field {
	uint32_t num;
	int wire;
	uint64_t v;
	const unsigned char *data;
	size_t len;
};

/* The next field at *p before end, *p advanced past it: 1, 0 at end, or
 * -1 when the bytes are not a well-formed field (a truncated varint or
 * length, a group or unknown wire type, field number 0). */
int pb_next(const unsigned char **p, const unsigned char *end, struct pb_field *f);
/* A varint at *p before end: 0, or -1 when truncated or longer than 10. */
int pb_read_varint(const unsigned char **p, const unsigned char *end, uint64_t *v);
double pb_as_double(uint64_t bits);

#endif
