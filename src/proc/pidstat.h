/*
 * pidstat: the fields of /proc/PID/stat that faultline reads, parsed in
 * one place.  The line is "pid (comm) S ppid ...", and the comm may hold
 * spaces and ") " (a process names itself): the fields start after the
 * last ')'.  Six readers each parsed it by hand before.
 */
#ifndef FAULTLINE_PIDSTAT_H
#define FAULTLINE_PIDSTAT_H

#include <stddef.h>
#include <sys/types.h>

struct pid_stat {
	char state;			/* R S D T t Z X ... */
	pid_t ppid;
	unsigned long flags;		/* PF_* (PF_KTHREAD 0x00200000) */
	unsigned long long starttime;	/* clock ticks after boot */
};

/* include/linux/sched.h */
#define PID_STAT_PF_KTHREAD 0x00200000ul

/*
 * pid_stat__read() - @pid's stat under @procfs ("/proc" when NULL)
 *
 * Return: 0; -ENOENT or -ESRCH when the process is gone (an empty read,
 * a process reaped between open and read, is -ESRCH); -EINVAL when the
 * line does not parse; other -errno of open(2).
 */
int pid_stat__read(const char *procfs, pid_t pid, struct pid_stat *out);

/*
 * pid_threads() - the thread ids of process @pid now (/proc/PID/task)
 * @tids: receives a malloc'ed array (the caller frees it)
 *
 * Return: 0; -ESRCH when the process is gone; -ENOMEM; other -errno.
 */
int pid_threads(pid_t pid, pid_t **tids, size_t *n);

#endif
