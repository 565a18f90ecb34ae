/*
 * perf-event: perf_event_open(2) and ioctl wrappers.
 *
 * perf_event_open has no glibc wrapper; errors come back as -errno so the
 * caller can tell EACCES (paranoid/privilege) from ENOENT/EINVAL (the kernel
 * lacks the event or the attr) and say which.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace/perf-event.h"
#include "lib/grow.h"

/*
 * PERF_FLAG_FD_CLOEXEC is Linux 3.14's: a kernel before it (a vanilla
 * 3.10; RHEL 7 has it backported) answers EINVAL to the flag.  Learnt
 * from the first open it refuses: when the same call succeeds without the
 * flag, every later fd is opened without it and marked close-on-exec at
 * once.  Opens happen on the session's thread only.
 */
static bool no_cloexec_flag;

static int open_flags(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		      unsigned long flags)
{
	long fd = -1;

	attr->size = sizeof(*attr);
	if (!no_cloexec_flag) {
		fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			     PERF_FLAG_FD_CLOEXEC | flags);
		if (fd >= 0 || errno != EINVAL)
			return fd < 0 ? -errno : (int)fd;
		attr->size = sizeof(*attr);
	}
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	if (fd < 0)
		return -errno;
	no_cloexec_flag = true;
	if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0) {
		int err = -errno;

		close((int)fd);
		return err;
	}
	return (int)fd;
}

int perf_event__open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	return open_flags(attr, pid, cpu, group_fd, 0);
}

int perf_event__open_cgroup(struct perf_event_attr *attr, int cgroup_fd, int cpu)
{
	return open_flags(attr, cgroup_fd, cpu, -1, PERF_FLAG_PID_CGROUP);
}

static int do_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int perf_event__set_output(int fd, int target_fd)
{
	return do_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)target_fd);
}

int perf_event__enable(int fd)
{
	return do_ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

int perf_event__disable(int fd)
{
	return do_ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

int perf_event__set_filter(int fd, const char *filter)
{
	return do_ioctl(fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)filter);
}

int perf_event__id(int fd, uint64_t *id)
{
	return do_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)id);
}

int perf_cpus__parse(const char *list, int **cpus, int *n)
{
	int *v = NULL, cnt = 0;
	size_t cap = 0;
	const char *p = list;

	while (*p && *p != '\n') {
		char *end;
		long lo, hi;

		lo = strtol(p, &end, 10);
		if (end == p || lo < 0)
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				goto bad;
			p = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (GROW_FOR(v, cap, (size_t)cnt + 1, 8)) {
				free(v);
				return -ENOMEM;
			}
			v[cnt++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			goto bad;
	}
	if (!cnt)
		goto bad;
	*cpus = v;
	*n = cnt;
	return 0;
bad:
	free(v);
	return -EINVAL;
}

int perf_cpus__online(int **cpus, int *n)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int err;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f))
		err = -EIO;
	else
		err = perf_cpus__parse(buf, cpus, n);
	fclose(f);
	return err;
}
