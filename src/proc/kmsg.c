/*
 * kmsg: /dev/kmsg read from its end; see kmsg.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "proc/kmsg.h"

struct kmsg {
	int fd;
	uint64_t lost;
};

int kmsg__open(struct kmsg **out, struct errbuf *eb)
{
	struct kmsg *k;
	int fd, err;

	*out = NULL;
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errbuf__set(eb, -errno, "cannot read '/dev/kmsg': %s", strerror(errno));
	if (lseek(fd, 0, SEEK_END) < 0) {
		err = -errno;
		close(fd);
		return errbuf__set(eb, err, "cannot seek '/dev/kmsg': %s", strerror(-err));
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		close(fd);
		return -ENOMEM;
	}
	k->fd = fd;
	*out = k;
	return 0;
}

void kmsg__close(struct kmsg *k)
{
	if (!k)
		return;
	close(k->fd);
	free(k);
}

int kmsg__fd(const struct kmsg *k)
{
	return k->fd;
}

size_t kmsg__read(struct kmsg *k, char *buf, size_t n)
{
	for (;;) {
		ssize_t got = read(k->fd, buf, n);

		if (got < 0 && errno == EPIPE) {
			k->lost++;	/* overwritten before we read it */
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		return got > 0 ? (size_t)got : 0;
	}
}

uint64_t kmsg__lost(const struct kmsg *k)
{
	return k ? k->lost : 0;
}

uint64_t kmsg__realtime(uint64_t ts_usec, uint64_t *mono)
{
	uint64_t real = clock__ns(CLOCK_REALTIME), now = clock__ns(CLOCK_MONOTONIC);
	uint64_t t = ts_usec * 1000;

	*mono = t;
	return t <= now ? real - (now - t) : real;
}
