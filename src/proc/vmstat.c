/*
 * vmstat: /proc/vmstat counters by name (see vmstat.h).  The file is a few
 * KiB; it is read whole and scanned once per lookup set.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "proc/vmstat.h"

/* Whether counter @name (length @len) is what pattern @pat names. */
static int matches(const char *pat, const char *name, size_t len)
{
	size_t plen = strlen(pat);

	if (plen && pat[plen - 1] == '*')
		return len >= plen - 1 && strncmp(name, pat, plen - 1) == 0;
	return len == plen && strncmp(name, pat, len) == 0;
}

void vmstat__parse(const char *text, const char *const *names, uint64_t *vals)
{
	const char *line = text, *sp, *eol;
	size_t i;

	for (i = 0; names[i]; i++)
		vals[i] = VMSTAT_ABSENT;
	for (; line && *line; line = eol ? eol + 1 : NULL) {
		unsigned long long v;
		char *end;

		eol = strchr(line, '\n');
		sp = strchr(line, ' ');
		if (!sp || sp == line || (eol && sp > eol))
			continue;
		errno = 0;
		v = strtoull(sp + 1, &end, 10);
		if (errno || end == sp + 1 || (*end != '\n' && *end != '\0'))
			continue;
		for (i = 0; names[i]; i++) {
			if (!matches(names[i], line, (size_t)(sp - line)))
				continue;
			vals[i] = (vals[i] == VMSTAT_ABSENT ? 0 : vals[i]) + v;
		}
	}
}

int vmstat__read(const char *procfs, const char *const *names, uint64_t *vals, struct errbuf *eb)
{
	char *text = NULL;
	int err;

	err = read_proc_file(procfs, "vmstat", 1 << 20, &text, eb);
	if (err)
		return err;
	vmstat__parse(text, names, vals);
	free(text);
	return 0;
}

uint64_t vmstat__delta(uint64_t now, uint64_t then)
{
	if (now == VMSTAT_ABSENT || then == VMSTAT_ABSENT || now < then)
		return 0;
	return now - then;
}
