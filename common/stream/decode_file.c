#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/blockq.h"
#include "stream/decode_file.h"
#include "core/io.h"
#include "json/scan.h"
#include "gz/source.h"
#include "core/writer.h"

static long read_source(void *ctx, void *dst, size_t n)
{
	return source_read(ctx, dst, n);
}

static int put_writer(void *ctx, const void *data, size_t n)
{
	return writer_put(ctx, data, n);
}

void decode_file(const char *path, int out_fd, size_t max_event, const char *tool,
		 struct decode_file_result *result)
{
	decode_file_as(path, path, out_fd, max_event, DECODE_DEFAULT_MAX_MEMBERS, tool, result,
		       NULL);
}

static char *queue_room(void *ctx)
{
	return blockq_room(ctx);
}

static void queue_commit(void *ctx, size_t n)
{
	blockq_commit(ctx, n);
}

/* Into out_fd, or into q when it is not NULL. */
static void decode_into(const char *path, const char *recorded, int out_fd, struct blockq *q,
			size_t max_event, size_t max_members, const char *tool,
			struct decode_file_result *result, struct progress *meter)
{
	struct source *src;
	struct writer out;
	struct scan scan;
	struct decode dec;
	char sha[SOURCE_SHA256_HEX];
	int rc, saved;

	memset(result, 0, sizeof *result);
	src = source_open(path);
	if (src == NULL) {
		result->status = DECODE_OPEN;
		return;
	}
	if (meter != NULL)
		source_set_progress(src, meter);
	/* into the queue's blocks in place: the events are scanned into them */
	if (q != NULL) {
		writer_init_blocks(&out, q->block_size, queue_room, queue_commit, q);
	} else if (writer_init(&out, out_fd) != 0) {
		source_close(src);
		result->status = DECODE_NOMEM;
		return;
	}
	if (scan_init(&scan, read_source, src, max_event) != 0) {
		writer_free(&out);
		source_close(src);
		result->status = DECODE_NOMEM;
		return;
	}
	decode_init(&dec, &scan, put_writer, &out, recorded, tool);
	dec.max_members = max_members;
	dec.direct = &out;
	rc = decode_document(&dec);
	if (rc == DECODE_OK) {
		if (source_drain(src) != 0) {
			rc = DECODE_READ;
		} else {
			source_sha256_hex(src, sha);
			rc = decode_put_tail(&dec, source_stored_bytes(src), sha);
		}
	}
	if (rc == DECODE_OK && writer_flush(&out) != 0)
		rc = DECODE_WRITE;
	saved = errno;
	if (rc == DECODE_INPUT)
		snprintf(result->msg, sizeof result->msg, "%s", dec.err);
	if (rc == DECODE_READ) {
		snprintf(result->msg, sizeof result->msg, "%s", source_error(src));
		/* gzip damage is the input's fault; an I/O error is trouble */
		result->input_fault = source_error_is_damage(src);
	}
	result->status = rc;
	decode_free(&dec);
	scan_free(&scan);
	writer_free(&out);
	source_close(src);
	errno = saved;
}

void decode_file_as(const char *path, const char *recorded, int out_fd, size_t max_event,
		    size_t max_members, const char *tool, struct decode_file_result *result,
		    struct progress *meter)
{
	decode_into(path, recorded, out_fd, NULL, max_event, max_members, tool, result, meter);
}

void decode_file_to_queue(const char *path, struct blockq *q, size_t max_event,
			  size_t max_members, const char *tool, struct decode_file_result *result,
			  struct progress *meter)
{
	decode_into(path, path, -1, q, max_event, max_members, tool, result, meter);
}
