/*
 * mapped-file: open the file behind a mapping as its process sees it.
 *
 * One answer for the symbolizer and both unwinders: through the process's
 * root (containers), then /proc/PID/map_files (deleted or replaced files,
 * while the process lives), then a descriptor kept from when it lived
 * (addrspaces__kept_fd), then our own view of the path.  Each candidate
 * must be a regular file with the mapping's inode, so a recycled pid or a
 * library replaced on disk is never read in its place.
 */
#ifndef FAULTLINE_MAPPED_FILE_H
#define FAULTLINE_MAPPED_FILE_H

#include <stddef.h>
#include <sys/types.h>

struct addrspaces;
struct map;

/* An fd (O_RDONLY|O_CLOEXEC, the caller's to close), or -1 when no way
 * works.  opened (may be NULL) gets the path that worked.  as may be NULL
 * (no kept descriptors). */
int mapped_file__open(const struct addrspaces *as, pid_t pid, const struct map *m, char *opened,
		  size_t n);

#endif
