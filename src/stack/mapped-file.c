/*
 * mapped-file: the one way faultline opens a mapped binary.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
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

void mapped_file__rooted(pid_t pid, const char *path, char *buf, size_t n)
{
	char link[64], root[PATH_MAX];
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/%d/root", (int)pid);
	len = readlink(link, root, sizeof(root) - 1);
	if (len > 1) {
		root[len] = '\0';
		if (strncmp(path, root, (size_t)len) == 0 && path[len] == '/')
			path += len;
	}
	snprintf(buf, n, "%s%s", link, path);
}

int mapped_file__open(const struct addrspaces *as, pid_t pid, const struct map *m, char *opened,
		  size_t n)
{
	char buf[4200];
	int fd = -1, kept;

	if (!m->path || !m->path[0] || m->path[0] == '[')
		return -1;
	if (pid > 0 && !m->deleted) {
		mapped_file__rooted(pid, m->path, buf, sizeof(buf));
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
