/*
 * mapped-file: open the file behind a mapping as its process sees it.
 *
 * One answer for the symbolizer and both unwinders: through the process's
 * root (containers), then /proc/PID/map_files (deleted or replaced files,
 * while the process lives), then a descriptor kept from when it lived
 * (addrspaces__kept_fd), then our own view of the path.  Each candidate
 * must be a regular file with the mapping's inode, so a recycled pid or a
 * library replaced on disk is never read in its place.
 *
 * A chrooted process's maps name its files from our root (the kernel
 * writes paths as the reader sees them): /tmp/c/lib/libc.so.6 for what is
 * /lib/libc.so.6 in there.  When its root is not reachable from ours (a
 * private mount namespace), that path may name another file here, or none,
 * and inside its root the prefix must go: mapped_file__rooted() does that.
 */
#ifndef FAULTLINE_MAPPED_FILE_H
#define FAULTLINE_MAPPED_FILE_H

#include <stddef.h>
#include <sys/types.h>

struct addrspaces;
struct map;

/* @path (a mapping's, as /proc/PID/maps writes it) as @pid sees it from
 * here: "/proc/PID/root" and the path less the process's root directory
 * when it starts with it (as readlink of /proc/PID/root says). */
void mapped_file__rooted(pid_t pid, const char *path, char *buf, size_t n);

/* An fd (O_RDONLY|O_CLOEXEC, the caller's to close), or -1 when no way
 * works.  opened (may be NULL) gets the path that worked.  as may be NULL
 * (no kept descriptors). */
int mapped_file__open(const struct addrspaces *as, pid_t pid, const struct map *m, char *opened,
		  size_t n);

#endif
