/*
 * newsys: system calls newer than 3.10, with their fallbacks.  See
 * newsys.h for the list and how it was found.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/newsys.h"

static int urandom(unsigned char *p, size_t len)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY), err = 0;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	close(fd);
	return err;
}

int newsys__random(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == ENOSYS || errno == EPERM))
			return urandom(p, len);
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

const char *newsys__thread_refusal(int err)
{
#ifdef SYS_clone3
	if (err == EPERM && syscall(SYS_clone3, NULL, (size_t)0) < 0 && errno == EPERM)
		return ": the clone3 system call is refused with EPERM (a seccomp policy "
		       "for calls it does not know?), and glibc falls back to clone only on "
		       "ENOSYS: allow clone3 or make the policy answer ENOSYS, as docker's does";
#else
	(void)err;
#endif
	return "";
}
