/*
 * mapped-file: the one way faultline opens a mapped binary.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "stack/addrspace.h"
#include "stack/mapped-file.h"

/* path, if it is the mapping's file (same inode when the mapping has one). */
static int open_if_same(const char *path, const struct map *m)
{
	struct stat st;
	int fd = open_regular(path, 0);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (!m->ino || st.st_ino == m->ino))
		return fd;
	close(fd);
	return -1;
}

int mapped_file__open(const struct addrspaces *as, pid_t pid, const struct map *m, char *opened,
		  size_t n)
{
	char buf[4200];
	int fd = -1, kept;

	if (!m->path || !m->path[0] || m->path[0] == '[')
		return -1;
	if (pid > 0 && !m->deleted) {
		snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)pid, m->path);
		fd = open_if_same(buf, m);
	}
	if (fd < 0 && pid > 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
			 m->start, m->end);
		fd = open_if_same(buf, m);
	}
	if (fd < 0 && as && (kept = addrspaces__kept_fd(as, m)) >= 0) {
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", kept);
		fd = open_if_same(buf, m);
	}
	if (fd < 0 && !m->deleted) {
		snprintf(buf, sizeof(buf), "%s", m->path);
		fd = open_if_same(buf, m);
	}
	if (fd >= 0 && opened)
		snprintf(opened, n, "%s", buf);
	return fd;
}
