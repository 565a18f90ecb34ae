/*
 * nspid: the NSpid line of /proc/PID/status.  See nspid.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
