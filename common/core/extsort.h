/* extsort: an external sort of fixed-size records, so that the memory of
 * tr-compact (tr-compact(1), "Memory") and of tr-verify's depth and flow
 * checks does not grow with the number of events.
 *
 * Records are put one by one into a run buffer of run_bytes; a full buffer
 * is sorted (stably: equal keys keep the order they were put in; a merge
 * sort of the stretches already in order, so that records put nearly in
 * order cost about a pass) and
 * written as a sorted run to an unlinked temporary file; reading merges the
 * runs (k-way, a heap of cursors with a small read buffer each, ties going
 * to the earlier run), first merging the earliest EXTSORT_FANIN runs
 * into one as long as there are more.  Records that fit in one run never reach a file.
 * Without a comparison the records come back in the order they were put.
 *
 * Memory: the run buffer and its 4-byte order entry per record while
 * putting (and another while a run is sorted); EXTSORT_READ bytes per run, for at most EXTSORT_FANIN
 * runs, while reading: bounded whatever the number of records.
 *
 * The common/ rule: library code returns a status and never prints or
 * exits.  Functions return 0, or -1 with errno set (ENOMEM, or the errno of
 * the temporary file's creation, write or read; EIO for a short file). */
#ifndef TR_EXTSORT_H
#define TR_EXTSORT_H

#include <stddef.h>
#include <stdint.h>

#define EXTSORT_READ ((size_t)8 << 10)   /* read buffer per run while merging */
/* Runs merged at once.  Merging the first runs into one rewrites them,
 * and again with the next ones: at 64, the 10 GB bench trace's records were
 * written about three times over (1.8 GB more); 256 runs of 2 MiB merge
 * 512 MiB of records in one pass, for 2 MiB of read buffers. */
#define EXTSORT_FANIN 256

typedef int (*extsort_cmp)(const void *a, const void *b);

struct extsort_run {
	uint64_t offset, count;  /* where in the file, how many records */
};

struct extsort_cursor {
	char *buf;
	size_t pos, end;         /* records buf[pos..end) not yet handed out */
	uint64_t next;           /* the run's next record not yet read into buf */
	uint32_t run;
};

struct extsort {
	size_t rec_size;
	extsort_cmp cmp;    /* NULL: keep the order of put */
	const char *prefix;      /* temporary file name prefix */
	int fd;                  /* valid when has_file */
	int has_file;            /* a first run was written */
	char *buf;               /* the run being put */
	uint32_t *order;
	size_t n, cap;           /* records in buf, room */
	struct extsort_run *runs;
	size_t nruns, runs_cap;
	size_t nspilled;         /* runs written from memory */
	uint64_t file_records;   /* records written to the file */
	uint64_t count;          /* records put */
	int reading;
	/* reading: in memory (nruns 0) or a heap of cursors */
	size_t mem_next;
	struct extsort_cursor *cur;
	uint32_t *heap;
	size_t nheap;
	char *space;             /* each cursor's buffer, one block */
	char *last;              /* the record handed out, copied */
};

/* rec_size > 0; run_bytes holds at least one record; cmp may be NULL;
 * prefix names the temporary file (io_open_spill). */
int extsort_init(struct extsort *s, size_t rec_size, size_t run_bytes,
		      extsort_cmp cmp, const char *prefix);
int extsort_put(struct extsort *s, const void *rec);
/* No more puts: the last run is sorted; reading may start. */
int extsort_finish(struct extsort *s);
/* The next record in order into *rec (valid until the next call): 1, 0 at
 * the end, -1 on error. */
int extsort_next(struct extsort *s, const void **rec);
void extsort_free(struct extsort *s);

#endif
