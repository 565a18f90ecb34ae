/*
 * cgroup: memcg and small procfs readers for oom (see cgroup.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "proc/cgroup.h"
#include "proc/procstat.h"

void cgroup__read_line(const char *path, char *out, size_t n)
{
	char *buf = NULL;

	out[0] = '\0';
	if (read_file(path, 4096, &buf, NULL) == 0) {
		snprintf(out, n, "%.*s", (int)strcspn(buf, "\n"), buf);
		free(buf);
	}
}

bool cgroup__read_psi(char *out, size_t n)
{
	char *buf = NULL, *line, *save = NULL;
	size_t used = 0;

	if (read_file("/proc/pressure/memory", 4096, &buf, NULL) != 0)
		return false;
	out[0] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int w = snprintf(out + used, n - used, "%s%s", used ? "; " : "", line);

		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
	free(buf);
	return true;
}

void cgroup__meminfo_totals(uint64_t *swap_kb, uint64_t *mem_kb)
{
	static const char *const names[] = { "SwapTotal", "MemTotal", NULL };
	uint64_t v[2];

	*swap_kb = *mem_kb = 0;
	if (meminfo__read(NULL, names, v, NULL))
		return;
	*swap_kb = v[0] == PROCSTAT_ABSENT ? 0 : v[0];
	*mem_kb = v[1] == PROCSTAT_ABSENT ? 0 : v[1];
}

void cgroup__memcg_root(char *out, size_t n)
{
	procstat__cgroup_mount(NULL, "memory", out, n);
	if (!out[0])
		procstat__cgroup_mount(NULL, NULL, out, n);
}

bool cgroup__pid_memcg(pid_t pid, char *out, size_t n)
{
	char path[64], v2[OOM_KMSG_PATH] = "", *buf = NULL, *line, *save = NULL;
	bool v1 = false;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	out[0] = '\0';
	if (read_file(path, 1 << 16, &buf, NULL) != 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line && !v1; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *tok, *tsave = NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		if (c1 + 1 == c2) {
			snprintf(v2, sizeof(v2), "%s", c2 + 1);
			continue;
		}
		for (tok = strtok_r(c1 + 1, ",", &tsave); tok; tok = strtok_r(NULL, ",", &tsave))
			if (!strcmp(tok, "memory")) {
				snprintf(out, n, "%s", c2 + 1);
				v1 = true;
			}
	}
	if (!v1)
		snprintf(out, n, "%s", v2);
	free(buf);
	return out[0] != '\0';
}

bool cgroup__memcg_file(const char *root, const char *memcg, const char *name, char *buf,
			size_t n)
{
	int len = snprintf(buf, n, "%s%s/%s", root, memcg, name);

	return len > 0 && (size_t)len < n;
}

bool cgroup__memory_stat(const char *root, const char *memcg, struct oom_stat *stats, size_t max,
			 size_t *n)
{
	char path[4096 + OOM_KMSG_PATH + 32], *buf = NULL, *line, *save = NULL;

	if (!root[0] || !memcg[0] || !cgroup__memcg_file(root, memcg, "memory.stat", path,
							 sizeof(path)))
		return false;
	if (read_file(path, 1 << 16, &buf, NULL) != 0)
		return false;
	*n = 0;
	for (line = strtok_r(buf, "\n", &save); line && *n < max; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		snprintf(stats[*n].key, sizeof(stats[0].key), "%s", line);
		stats[(*n)++].value = strtoull(sp + 1, NULL, 10);
	}
	free(buf);
	return true;
}
