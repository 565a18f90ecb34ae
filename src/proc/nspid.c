/*
 * nspid: the NSpid line of /proc/PID/status.  See nspid.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/file.h"
#include "proc/nspid.h"

long nspid__parse(const char *status)
{
	const char *p = strncmp(status, "NSpid:", 6) == 0 ? status : strstr(status, "\nNSpid:");
	long last = -ENOENT;

	if (!p)
		return -ENOENT;
	p += *p == '\n' ? 7 : 6;
	for (;;) {
		char *end;
		long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		v = strtol(p, &end, 10);
		if (v <= 0)
			return -ENOENT;
		last = v;
		p = end;
	}
	return last;
}

long nspid__read(pid_t pid)
{
	char path[64], *buf = NULL;
	long v;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	err = read_file(path, 1 << 16, &buf, NULL);
	if (err)
		return err;
	v = nspid__parse(buf);
	free(buf);
	return v;
}

int nspid__ns(pid_t pid, unsigned long *ino)
{
	char path[64], link[64], *end;
	ssize_t n;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/pid");
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	if (strncmp(link, "pid:[", 5) || link[5] < '0' || link[5] > '9')
		return -EINVAL;
	*ino = strtoul(link + 5, &end, 10);
	return strcmp(end, "]") ? -EINVAL : 0;
}

long nspid__find(unsigned long ns, long inner)
{
	long found = -ENOENT;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while (found == -ENOENT && (de = readdir(d))) {
		unsigned long ino;
		char *end;
		long pid = strtol(de->d_name, &end, 10), v;

		if (*end || pid <= 0 || nspid__ns((pid_t)pid, &ino) || ino != ns)
			continue;
		v = nspid__read((pid_t)pid);
		if (v == -ENOENT && nspid__read(getpid()) == -ENOENT)
			found = -ENOSYS;
		else if (v == inner)
			found = pid;
	}
	closedir(d);
	return found;
}
