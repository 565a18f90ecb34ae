/*
 * pidstat: /proc/PID/stat's state, ppid, flags and starttime (pidstat.h).
 * A stack buffer and one read(2): tree-pause.c reads every process's stat
 * twice a pause, so no allocation a file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/pidstat.h"
#include "lib/grow.h"

int pid_stat__read(const char *procfs, pid_t pid, struct pid_stat *out)
{
	char path[4096], buf[2048], *p;
	ssize_t n;
	int fd, ppid;

	if (snprintf(path, sizeof(path), "%s/%d/stat", procfs ? procfs : "/proc", (int)pid) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno != ESRCH ? -errno : -ESRCH;
	buf[n] = '\0';
	/* Fields 3 (state), 4 (ppid), 9 (flags), 22 (starttime). */
	p = strrchr(buf, ')');
	memset(out, 0, sizeof(*out));
	if (!p || sscanf(p + 1, " %c %d %*d %*d %*d %*d %lu %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
				"%*d %*d %llu",
			 &out->state, &ppid, &out->flags, &out->starttime) != 4)
		return -EINVAL;
	out->ppid = (pid_t)ppid;
	return 0;
}

int pid_threads(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *de;
	pid_t *v = NULL;
	size_t cnt = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		if (GROW_FOR(v, cap, cnt + 1, 16)) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[cnt++] = (pid_t)tid;
	}
	closedir(d);
	*tids = v;
	*n = cnt;
	return 0;
}
