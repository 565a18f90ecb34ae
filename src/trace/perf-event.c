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
#include <time.h>
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

static const struct {
	const char *name, *since;
} caps[PERF_CAP__COUNT] = {
	[PERF_CAP_DUMMY] = { "dummy", "3.12" },
	[PERF_CAP_IDENTIFIER] = { "sample_identifier", "3.12" },
	[PERF_CAP_MMAP2] = { "mmap2", "3.16" },
	[PERF_CAP_COMM_EXEC] = { "comm_exec", "3.16" },
	[PERF_CAP_CLOCKID] = { "use_clockid", "4.1" },
	[PERF_CAP_FORMAT_LOST] = { "format_lost", "6.0" },
};

const char *perf_cap__name(enum perf_cap c)
{
	return (unsigned int)c < PERF_CAP__COUNT ? caps[c].name : NULL;
}

const char *perf_cap__since(enum perf_cap c)
{
	return (unsigned int)c < PERF_CAP__COUNT ? caps[c].since : NULL;
}

/* The probe's plain event: a disabled software counter of this process's
 * page faults, sampling with the side-band's trailer. */
static void probe_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_PAGE_FAULTS;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->exclude_kernel = 1;
}

/* Taken, unless refused as unknown: EINVAL, or for an event config the
 * kernel has no such event, ENOENT (@dummy). */
static bool probe_one(struct perf_event_attr *a, bool dummy)
{
	int fd = perf_event__open(a, 0, -1, -1);

	if (fd >= 0)
		close(fd);
	return fd != -EINVAL && !(dummy && fd == -ENOENT);
}

unsigned int perf_caps__probe(void)
{
	struct perf_event_attr a;
	unsigned int have = 0;
	int fd;

	probe_attr(&a);
	fd = perf_event__open(&a, 0, -1, -1);
	if (fd < 0)
		return (1u << PERF_CAP__COUNT) - 1;
	close(fd);
	for (unsigned int c = 0; c < PERF_CAP__COUNT; c++) {
		probe_attr(&a);
		switch ((enum perf_cap)c) {
		case PERF_CAP_DUMMY:
			a.config = PERF_COUNT_SW_DUMMY;
			break;
		case PERF_CAP_IDENTIFIER:
			a.sample_type |= PERF_SAMPLE_IDENTIFIER;
			break;
		case PERF_CAP_MMAP2:
			a.mmap = a.mmap2 = 1;
			break;
		case PERF_CAP_COMM_EXEC:
			a.comm = a.comm_exec = 1;
			break;
		case PERF_CAP_CLOCKID:
			a.use_clockid = 1;
			a.clockid = CLOCK_MONOTONIC;
			break;
		case PERF_CAP_FORMAT_LOST:
			a.read_format = PERF_FORMAT_LOST;
			break;
		case PERF_CAP__COUNT:
			break;
		}
		if (probe_one(&a, c == PERF_CAP_DUMMY))
			have |= 1u << c;
	}
	return have;
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
