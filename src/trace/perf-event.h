/*
 * perf-event: thin, checked wrappers around perf_event_open(2) and its
 * ioctls, plus the list of online CPUs.  No policy here: the session
 * decides what to open where.
 */
#ifndef FAULTLINE_PERF_EVENT_H
#define FAULTLINE_PERF_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Open one event; returns the fd (O_CLOEXEC) or -errno. */
int perf_event__open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);
/* The same for a cgroup: @cgroup_fd is its directory's (PERF_FLAG_PID_CGROUP). */
int perf_event__open_cgroup(struct perf_event_attr *attr, int cgroup_fd, int cpu);

/* Route fd's records into target_fd's ring (both on the same CPU). 0 / -errno. */
int perf_event__set_output(int fd, int target_fd);
int perf_event__enable(int fd);
int perf_event__disable(int fd);
/* Attach an ftrace filter expression to a tracepoint/uprobe event. 0 / -errno. */
int perf_event__set_filter(int fd, const char *filter);
/* The kernel id of the event behind fd (PERF_EVENT_IOC_ID). 0 / -errno. */
int perf_event__id(int fd, uint64_t *id);

/*
 * What of faultline's perf_event_attr the running kernel takes, probed
 * once by opening a disabled software event on this process with each
 * bit alone (as perf's perf_api_probe does), never inferred from the
 * version: RHEL 7's 3.10 has every side-band bit but PERF_FORMAT_LOST.
 */
enum perf_cap {
	PERF_CAP_DUMMY,		/* the dummy software event (3.12): ENOENT before */
	PERF_CAP_IDENTIFIER,	/* PERF_SAMPLE_IDENTIFIER (3.12) */
	PERF_CAP_MMAP2,		/* attr.mmap2, PERF_RECORD_MMAP2 (3.16) */
	PERF_CAP_COMM_EXEC,	/* attr.comm_exec, PERF_RECORD_MISC_COMM_EXEC (3.16) */
	PERF_CAP_CLOCKID,	/* attr.use_clockid (4.1) */
	PERF_CAP_FORMAT_LOST,	/* read_format PERF_FORMAT_LOST (6.0) */
	PERF_CAP__COUNT
};

/* Bit (1 << enum perf_cap) set for each the kernel takes.  A bit whose
 * open fails for another reason than the kernel not knowing it (EINVAL;
 * for the dummy event also ENOENT), or when the plain event cannot be
 * opened at all, counts as taken: the real open will say what is wrong. */
unsigned int perf_caps__probe(void);
/* "dummy", "sample_identifier", "mmap2", "comm_exec", "use_clockid",
 * "format_lost"; NULL out of range. */
const char *perf_cap__name(enum perf_cap c);
/* The first Linux release with it ("3.16"). */
const char *perf_cap__since(enum perf_cap c);

/*
 * Online CPUs from <sysfs>/devices/system/cpu/online ("0-3,5").  *cpus is
 * malloc'ed and owned by the caller.  0 / -errno.
 */
int perf_cpus__online(int **cpus, int *n);
/* Pure parser behind it, for tests. */
int perf_cpus__parse(const char *list, int **cpus, int *n);

#endif
