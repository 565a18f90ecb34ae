/*
 * perf-event: thin, checked wrappers around perf_event_open(2) and its
 * ioctls, plus the list of online CPUs.  No policy here: the session
 * decides what to open where.
 */
#ifndef FAULTLINE_PERF_EVENT_H
#define FAULTLINE_PERF_EVENT_H

#include <linux/perf_event.h>
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
 * Online CPUs from <sysfs>/devices/system/cpu/online ("0-3,5").  *cpus is
 * malloc'ed and owned by the caller.  0 / -errno.
 */
int perf_cpus__online(int **cpus, int *n);
/* Pure parser behind it, for tests. */
int perf_cpus__parse(const char *list, int **cpus, int *n);

#endif
