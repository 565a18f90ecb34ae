/*
 * ostream: an output file whose first failed write is remembered with its
 * errno.  stdio keeps only an error flag, so a page written to a full
 * disk (`flamegraph -o /dev/full`) could be reported only as "Input/output
 * error"; the user needs "No space left on device".
 */
#ifndef FAULTLINE_OSTREAM_H
#define FAULTLINE_OSTREAM_H

#include <stdio.h>

struct ostream;

/* A new file at @path (mode 0666 less the umask, as fopen's "w"), made
 * as safe_out makes it (safeout.h): written to a new temporary beside it,
 * never through a symlink, and renamed over @path by ostream__close() only
 * when every write succeeded (a failed run keeps the old file); a device
 * or a FIFO at @path is written as it is.  0, or -errno. */
int ostream__open(const char *path, struct ostream **out);
/* The same on @fd, which the stream owns from here (closed by close). */
int ostream__fdopen(int fd, struct ostream **out);
/* Where to write; buffered as any FILE. */
FILE *ostream__file(const struct ostream *o);
/*
 * ostream__close() - flush, close and free @o (NULL: 0)
 *
 * Return: 0, or the -errno of the first write that failed (ENOSPC, EPIPE,
 * EFBIG...), else of close(2).
 */
int ostream__close(struct ostream *o);

#endif
