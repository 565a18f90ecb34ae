/*
 * file: whole-file reads for pseudo-filesystems.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/errbuf.h"
#include "lib/file.h"

int read_file(const char *path, size_t max, char **out, size_t *outlen)
{
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_fd(fd, max, out, outlen);
	close(fd);
	return err;
}

long write_fd(int fd, const void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(fd, (const char *)buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return done ? (long)done : w < 0 ? -errno : -EIO;
		done += (size_t)w;
	}
	return (long)n;
}

int read_fd(int fd, size_t max, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = NULL, *nb;
	int err = 0;
	ssize_t r;

	*out = NULL;
	buf = malloc(cap);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	while (len < max) {
		if (cap - len < 2) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, (cap - len - 1 < max - len) ? cap - len - 1 : max - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
	if (outlen)
		*outlen = len;
out:
	free(buf);
	return err;
}

int read_proc_file(const char *procfs, const char *name, size_t max, char **buf,
		   struct errbuf *eb)
{
	char path[4096];
	int err;

	snprintf(path, sizeof(path), "%s/%s", procfs ? procfs : "/proc", name);
	err = read_file(path, max, buf, NULL);
	if (err)
		return errbuf__set(eb, err, "cannot read '%s': %s", path, strerror(-err));
	return 0;
}

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int open_inode(const char *path, int pflags, int oflags,
	       int (*check)(const struct stat *st, const void *ctx), const void *ctx)
{
	char self[64];
	struct stat st;
	int pfd, fd;

	pfd = open(path, O_PATH | O_CLOEXEC | pflags);
	if (pfd < 0)
		return -errno;
	fd = fstat(pfd, &st) ? -errno : check(&st, ctx);
	if (!fd) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
		fd = open(self, oflags | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	close(pfd);
	return fd;
}

int inode_regular(const struct stat *st, const void *ctx)
{
	(void)ctx;
	return S_ISREG(st->st_mode) ? 0 : -EINVAL;
}

int open_regular(const char *path, int flags)
{
	return open_inode(path, flags, O_RDONLY | O_NONBLOCK, inode_regular, NULL);
}
