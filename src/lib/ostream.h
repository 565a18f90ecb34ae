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

/* Create or truncate @path (mode 0666 less the umask, as fopen's "w").
 * 0, or -errno of open(2). */
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
