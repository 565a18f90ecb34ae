/*
 * slabinfo: /proc/slabinfo and /proc/meminfo's slab lines (slabinfo.h).
 * slabinfo is a few hundred lines (217 caches on this project's VM); it is
 * read whole once per interval, as slabtop does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/grow.h"
#include "proc/slabinfo.h"

int slabinfo__parse(const char *text, struct slab_cache **out, size_t *n)
{
	struct slab_cache *v = NULL, c;
	size_t len = 0, cap = 0;
	const char *line = text, *eol;
	unsigned int major = 0;

	*out = NULL;
	*n = 0;
	if (sscanf(text, "slabinfo - version: %u.", &major) != 1 || major != 2)
		return -EINVAL;
	for (; line && *line; line = eol ? eol + 1 : NULL) {
		eol = strchr(line, '\n');
		if (*line == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		memset(&c, 0, sizeof(c));
		/* name active num objsize objperslab pagesperslab : tunables
		 * a b c : slabdata active_slabs num_slabs sharedavail */
		if (sscanf(line, "%63s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " : tunables %*u %*u %*u : slabdata %" SCNu64 " %" SCNu64, c.name,
			   &c.active_objs, &c.num_objs, &c.objsize, &c.objperslab, &c.pagesperslab,
			   &c.active_slabs, &c.num_slabs) != 8)
			continue;
		if (GROW_FOR(v, cap, len + 1, 256)) {
			free(v);
			return -ENOMEM;
		}
		v[len++] = c;
	}
	*out = v;
	*n = len;
	return 0;
}

int slabinfo__read(const char *procfs, struct slab_cache **out, size_t *n, struct errbuf *eb)
{
	char *text = NULL;
	int err;

	err = read_proc_file(procfs, "slabinfo", 16 << 20, &text, eb);
	if (err)
		return err;
	err = slabinfo__parse(text, out, n);
	free(text);
	if (err)
		return errbuf__set(eb, err, "'%s/slabinfo' is not slabinfo version 2",
				   procfs ? procfs : "/proc");
	return 0;
}

void meminfo__parse_kb(const char *text, const char *const *names, uint64_t *vals)
{
	const char *line = text, *eol;
	size_t i, len;

	for (i = 0; names[i]; i++)
		vals[i] = UINT64_MAX;
	for (; line && *line; line = eol ? eol + 1 : NULL) {
		eol = strchr(line, '\n');
		for (i = 0; names[i]; i++) {
			len = strlen(names[i]);
			if (!strncmp(line, names[i], len) && line[len] == ':')
				vals[i] = strtoull(line + len + 1, NULL, 10);
		}
	}
}

int meminfo__read_kb(const char *procfs, const char *const *names, uint64_t *vals,
		     struct errbuf *eb)
{
	char *text = NULL;
	int err;

	err = read_proc_file(procfs, "meminfo", 1 << 20, &text, eb);
	if (err)
		return err;
	meminfo__parse_kb(text, names, vals);
	free(text);
	return 0;
}
