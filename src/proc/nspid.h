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

#endif
