/*
 * cgroup: what oom reads of a process's memory cgroup and of the kernel's
 * small procfs files around a kill: the memory controller's mount (v1 with
 * the "memory" option, else cgroup2), a process's memcg from
 * /proc/PID/cgroup, a memcg's files (memory.stat's first lines, a limit)
 * and the one-line files (loadavg, comm, oom_score_adj), /proc/pressure/
 * memory as one line, and MemTotal/SwapTotal.  Readers only: nothing here
 * knows of kills or printing.
 */
#ifndef FAULTLINE_CGROUP_H
#define FAULTLINE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/oom-kmsg.h"

/* The first line of a small file, newline gone; "" if unreadable. */
void cgroup__read_line(const char *path, char *out, size_t n);

/* "some avg10=... total=N; full avg10=..." from /proc/pressure/memory;
 * false when it cannot be read. */
bool cgroup__read_psi(char *out, size_t n);

/* SwapTotal and MemTotal (kB) from one read of /proc/meminfo; 0 unknown. */
void cgroup__meminfo_totals(uint64_t *swap_kb, uint64_t *mem_kb);

/* Where the memory controller's hierarchy is mounted: a cgroup (v1) mount
 * with the "memory" option, else the cgroup2 mount; "" when neither.  The
 * kernel's memcg paths are relative to it. */
void cgroup__memcg_root(char *out, size_t n);

/* The memcg of @pid from /proc/PID/cgroup ("ID:CONTROLLERS:PATH"): the v1
 * line whose controllers include "memory", else the v2 "0::" line.  false
 * when the process is gone. */
bool cgroup__pid_memcg(pid_t pid, char *out, size_t n);

/* <@root><@memcg>/<@name> into @buf; false when it does not fit. */
bool cgroup__memcg_file(const char *root, const char *memcg, const char *name, char *buf,
			size_t n);

/* The first @max "key value" lines of <@root><@memcg>/memory.stat into
 * @stats, their number in *@n.  false when there is no such file. */
bool cgroup__memory_stat(const char *root, const char *memcg, struct oom_stat *stats, size_t max,
			 size_t *n);

#endif
