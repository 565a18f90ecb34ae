/*
 * nspid: a process's pid in its own PID namespace, from the NSpid line of
 * /proc/PID/status ("NSpid:\t4242\t17\t1": the pid in each namespace from
 * the reader's down to the process's own).  A process in a container is
 * pid 4242 to faultline and pid 1 to itself, to its logs and to what it
 * writes under its pid (perf's /tmp/perf-PID.map).
 */
#ifndef FAULTLINE_NSPID_H
#define FAULTLINE_NSPID_H

#include <sys/types.h>

/*
 * nspid__parse() - the last pid of the NSpid line of a status file's text
 * @status: the text of /proc/PID/status (NUL-terminated)
 *
 * Return: that pid (> 0), the same as the first when the process lives in
 * the reader's namespace; -ENOENT when there is no such line (kernels
 * before 4.1) or it holds no pid.
 */
long nspid__parse(const char *status);

/*
 * nspid__read() - the pid @pid has in its own PID namespace
 *
 * Return: that pid (> 0, @pid itself when it lives in ours); -ENOENT for a
 * process that is gone or a kernel without NSpid, -errno of reading.
 */
long nspid__read(pid_t pid);

/* The initial PID namespace's inode (PROC_PID_INIT_INO, fixed since 3.8). */
#define NSPID_INIT_NS 4026531836UL

/*
 * nspid__ns() - the inode of @pid's PID namespace (0: faultline's own), from
 * the /proc/PID/ns/pid link ("pid:[4026531836]")
 *
 * Return: 0 with *@ino set; -errno of reading the link, -EINVAL for a link
 * of another form.
 */
int nspid__ns(pid_t pid, unsigned long *ino);

/*
 * nspid__find() - the process that is pid @inner in the PID namespace @ns
 *
 * Scans /proc: it finds the process only where faultline's namespace is
 * @ns or an ancestor of it.
 *
 * Return: its pid as faultline sees it (> 0); -ENOENT when no process
 * visible here is pid @inner of @ns; -ENOSYS when the kernel has no NSpid
 * line (before 4.1) to tell a namespace's pids.
 */
long nspid__find(unsigned long ns, long inner);

#endif
