/*
 * perf-cgroup: a cgroup of the traced process's own (-c's command, -p's
 * process), so that perf events opened for it (PERF_FLAG_PID_CGROUP)
 * count its process tree and nothing else, where an event cannot follow
 * the tree itself.
 *
 * Why: a perf uprobe PMU event cannot be inherited (fork re-reads the
 * path pointer in config1 in the forking task and fails with EFAULT), so
 * the PMU rung opens its uprobes on each CPU, and before this kept to
 * the target by a filter on common_pid ("born after the command", for -p
 * "born after the attach"), which every process started later on the
 * host passes too: on a busy host their samples, each with its user
 * stack, take the rings' space.  A cgroup event is scheduled in only
 * while a task of the cgroup runs on that CPU, and every thread and child
 * of the target is born in its cgroup.
 *
 * The cgroup is made below the one the target is in (its limits still
 * apply: the hierarchy is the same; on cgroup2 a cgroup other than the
 * root that holds processes enables no controller below it, so the new
 * one has none), in the perf_event hierarchy: a v1 mount with that
 * controller, else cgroup2, where perf_event is implicit.  It is named
 * faultline_<pid> after the tracer, like its probe groups;
 * perf_cgroup__free() moves what is still in it back to its parent (the
 * cgroup the target came from) and removes it, and `faultline cleanup`
 * does the same for a faultline that died (perf_cgroup__remove_stale()).
 */
#ifndef FAULTLINE_PERF_CGROUP_H
#define FAULTLINE_PERF_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct errbuf;
struct perf_cgroup;

/* Make the cgroup and move @pid (a process held before its exec, or a
 * running one with all its threads) into it.  0, or -errno with the
 * reason in @eb (no perf_event hierarchy, a read-only cgroup
 * filesystem...); nothing is left behind on failure. */
int perf_cgroup__new(pid_t pid, struct perf_cgroup **out, struct errbuf *eb);
/* Move @pid (and its threads) into it too.  0, or -errno (-ESRCH: gone). */
int perf_cgroup__add(struct perf_cgroup *cg, pid_t pid);
/* The cgroup directory's fd, for perf_event_open()'s pid argument. */
int perf_cgroup__fd(const struct perf_cgroup *cg);
/* The cgroup's path (for messages and tests). */
const char *perf_cgroup__path(const struct perf_cgroup *cg);
/* The directory of the cgroup the target came from, its parent. */
const char *perf_cgroup__parent(const struct perf_cgroup *cg);
/* Whether it is cgroup2's (else a v1 perf_event mount's). */
bool perf_cgroup__v2(const struct perf_cgroup *cg);
/* Move the processes still in it to its parent, remove it, free.  NULL is
 * fine. */
void perf_cgroup__free(struct perf_cgroup *cg);
/* The same removal (the processes moved to the parent, the directory
 * removed) from a fatal signal's handler: async-signal-safe, nothing
 * freed, @cg left as it was.  NULL is fine. */
void perf_cgroup__remove_in_signal(const struct perf_cgroup *cg);

/* Remove the faultline_<pid> cgroups of faultline processes that are gone
 * (their processes moved to the parent first).  @alive says whether the
 * owner of such a name may still be there; @dry only counts.  Returns how many (were) removed;
 * each path in @names (NULL: not wanted) as a malloc'ed '\n'-separated
 * list. */
size_t perf_cgroup__remove_stale(bool (*alive)(const char *name), bool dry, char **names);

#endif
