/*
 * probe-group: the dynamic probes (uprobes, uretprobes, kprobes) of one
 * faultline process, created through libtracefs in a group of its own,
 * "faultline_<pid>", and removed as a group.
 *
 * Describing a probe is separate from creating it, so --dry-run and tests
 * need no root.  Removing probes whose perf fds are still open fails with
 * EBUSY: close the events first (the session does).
 *
 * Groups whose owner died without removing them (SIGKILL, power loss of the
 * process) are "stale": probe_groups__find_stale() lists them and
 * probe_groups__remove() removes one group, and nothing else.
 */
#ifndef FAULTLINE_TRACEFS_PROBES_H
#define FAULTLINE_TRACEFS_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/errbuf.h"

#define PROBE_GROUP_PREFIX "faultline_"

struct probe_group;

/* A group named faultline_<getpid()>; nothing is created yet.  The tracing
 * dir is libtracefs's (set with tracefs_set_tracing_dir()). */
int probe_group__new(struct probe_group **out);
const char *probe_group__name(const struct probe_group *g);
size_t probe_group__count(const struct probe_group *g);

/*
 * Create a uprobe (or uretprobe) named <event> at <path>+<offset> with
 * tracefs fetchargs (may be NULL).  On failure the kernel's error_log line is
 * in the errbuf.  0 / -errno.
 */
int probe_group__add_uprobe(struct probe_group *g, const char *event, const char *path,
			    uint64_t offset, bool retprobe, const char *fetchargs,
			    struct errbuf *eb);
/* Same for a kprobe on a kernel function (kernels with kprobes only). */
int probe_group__add_kprobe(struct probe_group *g, const char *event, const char *func,
			    bool retprobe, const char *fetchargs, struct errbuf *eb);

/*
 * The "-:group/event" lines that remove every probe of the group, for the
 * async-signal-safe emergency path (written with write(2) to
 * <tracing>/uprobe_events or kprobe_events).  Owned by the group.
 */
const char *probe_group__removal_lines(const struct probe_group *g, bool kprobes);

/* Remove every probe this group created.  0, or the first -errno (all are
 * attempted). */
int probe_group__remove_all(struct probe_group *g, struct errbuf *eb);
/* remove_all + free.  NULL is fine. */
void probe_group__free(struct probe_group *g);

struct stale_group {
	char name[64];
	pid_t pid;
	size_t nprobes;
};
/* Groups faultline_<pid> whose pid is not a live faultline process.
 * *out is malloc'ed (may be NULL with *n = 0). */
int probe_groups__find_stale(struct stale_group **out, size_t *n, struct errbuf *eb);
/* Remove every dynamic event of one group. */
int probe_groups__remove(const char *group, struct errbuf *eb);
/* Whether the owner of @group (a faultline probe group or cgroup name,
 * perf-cgroup.h) may still be there: a live faultline process, or one in
 * a PID namespace faultline cannot see into.  False only for an owner
 * known gone (or whose pid is another program's now). */
bool probe_group__owner_alive(const char *group);
/* The name of this process's group: "faultline_<pid>", with "_<pidns>"
 * appended outside the initial PID namespace (a container's pid 1 is not
 * the host's). */
void probe_group__owner_name(char *buf, size_t len);
/* Pure: the owner of a group name "faultline_<pid>[_<pidns inode>]":
 * 0 with *@pid and *@ns set (the initial namespace's inode when the name
 * has none), or -EINVAL. */
int probe_group__parse_owner(const char *group, pid_t *pid, unsigned long *ns);
/* Pure: the pid of such a group name, or -1. */
pid_t probe_group__parse_pid(const char *group);

#endif
