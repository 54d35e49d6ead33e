/* passfile: see passfile.h. */
#include <string.h>

#include "io.h"
#include "passfile.h"

int passfile_open(struct passfile *t, const char *path, int spill_fd)
{
	memset(t, 0, sizeof *t);
	t->path = path;
	t->file.fd = -1;
	t->text = (struct buf)BUF_INIT;
	if (outfile_open_side(&t->file, path) != 0)
		return 1;
	return passtable_init(&t->passes, spill_fd) != 0 ? PASSTABLE_NOMEM : 0;
}

int passfile_event(struct passfile *t, const struct encoder *enc, const char *line, size_t len)
{
	return enc->found_ok ? passtable_event_found(&t->passes, line, len, enc->found) :
	       passtable_event(&t->passes, line, len);
}

int passfile_write(struct passfile *t)
{
	int rc = passtable_finish(&t->passes, 0, &t->text);

	if (rc != PASSTABLE_OK)
		return rc;
	if (io_write_all(t->file.fd, t->text.p, t->text.len) != 0 ||
	    (t->file.path == NULL && outfile_commit(&t->file) != 0))
		return 1;
	return PASSTABLE_OK;
}

void passfile_free(struct passfile *t)
{
	passtable_free(&t->passes);
	buf_release(&t->text);
}
