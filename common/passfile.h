/* passfile: tr-encode's --pass-table: what passtable.h says of the events,
 * into a file placed with the output (or a /dev/ descriptor, written in
 * place).  The check of each event line finds the members the table needs
 * on its way (encode.h's found[]).
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_PASSFILE_H
#define TR_PASSFILE_H

#include "buf.h"
#include "encode.h"
#include "outfile.h"
#include "passtable.h"

struct passfile {
	const char *path;
	struct outfile file;
	struct passtable passes;
	struct buf text;
};

/* Open path (1 with errno set when it cannot be: EEXIST for an existing
 * file) and start the table, its spill on spill_fd: 0, 1, or
 * PASSTABLE_NOMEM. */
int passfile_open(struct passfile *t, const char *path, int spill_fd);
/* One event line: a PASSTABLE_ status. */
int passfile_event(struct passfile *t, const struct encoder *enc, const char *line, size_t len);
/* The table into its file; a /dev/ descriptor is done with then, a file
 * waits to be placed with the output.  A PASSTABLE_ status, or 1 with
 * errno set when the file's write failed. */
int passfile_write(struct passfile *t);
void passfile_free(struct passfile *t);

#endif
