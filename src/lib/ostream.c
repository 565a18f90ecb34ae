/*
 * ostream: a FILE over fopencookie(3) whose write function keeps the
 * errno of the first write(2) that failed (see ostream.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ostream.h"
#include "lib/safeout.h"

struct ostream {
	FILE *f;
	int fd;
	int err;	/* -errno of the first failed write or of close */
	struct safe_out *so;	/* ostream__open()'s: renamed at close */
};

static ssize_t os_write(void *cookie, const char *buf, size_t n)
{
	struct ostream *o = cookie;
	size_t done = 0;

	if (o->err)
		return 0;	/* stdio's error; the first errno is kept */
	while (done < n) {
		ssize_t w = write(o->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? -errno : -EIO;
			return 0;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int os_close(void *cookie)
{
	struct ostream *o = cookie;

	if (o->fd >= 0 && close(o->fd) != 0 && !o->err)
		o->err = -errno;
	o->fd = -1;
	return 0;
}

int ostream__fdopen(int fd, struct ostream **out)
{
	static const cookie_io_functions_t io = { .write = os_write, .close = os_close };
	struct ostream *o = calloc(1, sizeof(*o));

	*out = NULL;
	if (o)
		o->fd = fd;
	if (o && (o->f = fopencookie(o, "w", io))) {
		*out = o;
		return 0;
	}
	free(o);
	close(fd);
	return -ENOMEM;
}

int ostream__open(const char *path, struct ostream **out)
{
	struct safe_out *so;
	int fd, err;

	*out = NULL;
	err = safe_out__open(path, 0666, 0, &so, &fd, NULL);
	if (err)
		return err;
	err = ostream__fdopen(fd, out);
	if (err) {
		safe_out__free(so);	/* fd: closed by ostream__fdopen() */
		return err;
	}
	(*out)->so = so;
	return 0;
}

FILE *ostream__file(const struct ostream *o)
{
	return o->f;
}

int ostream__close(struct ostream *o)
{
	int err;

	if (!o)
		return 0;
	fclose(o->f);	/* flushes through os_write, then os_close */
	err = o->err;
	if (o->so && !err)
		err = safe_out__commit(o->so, NULL);
	safe_out__free(o->so);	/* an uncommitted temporary is removed */
	free(o);
	return err;
}
