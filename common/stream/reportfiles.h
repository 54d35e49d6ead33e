/* reportfiles: the report records of a stream (tr-stream(5), "report")
 * assembled into their files, BASE.SUFFIX, for tr-encode.  A record without
 * "member" gives the body of a file; records with "member" add a member to
 * that body, and records with "member" and "items" append to an array
 * member, so that no stage has to hold a report that grows with the layers
 * as one line.  Everything goes to the file's temporary outfile (outfile.h)
 * as soon as it arrives; the caller places the files (outfile_commit_all_while).
 * The common/ rule: library code returns a status and never prints or
 * exits; a failure comes back as the whole message the program prints
 * after its name. */
#ifndef TR_REPORTFILES_H
#define TR_REPORTFILES_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "json/indent.h"
#include "core/intern.h"
#include "core/outfile.h"

/* A status is the exit status tr-encode gives it, but for memory. */
enum reportfiles_status {
	REPORTFILES_OK = 0,
	REPORTFILES_INPUT = 1,    /* a malformed or misplaced report record */
	REPORTFILES_TROUBLE = 2,  /* a file exists, cannot be made or written */
	REPORTFILES_NOMEM = 3
};

/* At most this many report files per stream. */
#define REPORTFILES_MAX 8

/* A report file as the layout's destination; on the heap, as the list of
 * reports moves while it grows. */
struct reportfile_out {
	int fd;
	struct indent layout;
};

struct reportfile {
	char *suffix;
	struct reportfile_out *out;  /* with the file */
	struct outfile file;  /* open once the body arrived */
	int has_body;
	int need_comma;       /* the object written so far has a member */
	struct buf members;   /* "name":value,... that came before the body */
	char *open_array;     /* the array member items are appended to, or NULL */
	int array_has_items;
	struct intern closed; /* array members closed so far (raw names) */
};

struct reportfiles {
	struct reportfile *list;
	size_t n;
	const char *base;     /* files are BASE.SUFFIX */
	unsigned indent;      /* spaces per level (indent.h); 0: one line */
};

void reportfiles_init(struct reportfiles *rs, const char *base, unsigned indent);
/* One report record, without whitespace between its tokens, read at line
 * lineno of the stream. */
int reportfiles_collect(struct reportfiles *rs, const char *line, size_t len,
			uint64_t lineno, struct buf *msg);
/* Close every file's object; one that got only members starts now. */
int reportfiles_finish(struct reportfiles *rs, struct buf *msg);
/* Remove the temporary files not placed and free everything. */
void reportfiles_free(struct reportfiles *rs);

#endif
