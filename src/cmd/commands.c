/*
 * commands: the command table, the one list of faultline's commands and
 * of what record and report may do with each tool (as git's git.c and
 * perf's perf.c hold theirs).  Each command lives in cmd-<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/tool.h"

/* The tools, each defined at the end of its cmd-NAME.c: named here only. */
extern const struct tool leak_tool, heap_tool, flamegraph_tool, faults_tool, ffaults_tool,
	hfaults_tool, goalloc_tool, brk_tool, mmap_tool, reclaim_tool, swapin_tool, cache_tool,
	pressure_tool, oom_tool, cachetop_tool, shm_tool, slab_tool, compact_tool, numa_tool;

static const struct command commands[] = {
	{ "leak", "outstanding allocations by stack, user or kernel (memleak)",
	  .tool = &leak_tool },
	{ "heap", "calls, peak, temporary allocations and leaks by stack (heaptrack_print)",
	  .tool = &heap_tool },
	{ "flamegraph", "a flame graph in one HTML page: leaked, peak, calls, temporary; or faults",
	  .tool = &flamegraph_tool },
	{ "faults", "page faults by user stack and process, minor and major",
	  .tool = &faults_tool },
	{ "ffaults", "page faults on file-backed memory, by file (ffaults.bt)",
	  .tool = &ffaults_tool },
	{ "hfaults", "huge-page faults (THP and hugetlb) by process (hfaults.bt)",
	  .tool = &hfaults_tool },
	{ "goalloc", "a Go program's allocations (bytes, count) by stack",
	  .tool = &goalloc_tool },
	{ "brk", "brk(2) calls counted by user stack and process (brkstack)",
	  .tool = &brk_tool },
	{ "mmap", "every mmap/munmap with flags, file and stack; net bytes per process",
	  .tool = &mmap_tool },
	{ "reclaim", "direct and memcg reclaim with latency per process (drsnoop); -s vmscan summary",
	  .tool = &reclaim_tool },
	{ "swapin", "swap-ins counted by process per interval (BCC swapin)",
	  .tool = &swapin_tool },
	{ "cache", "page-cache hits, misses, dirties per interval (BCC cachestat)",
	  .tool = &cache_tool },
	{ "pressure", "memory PSI, reclaim, swap, compaction, OOM kills per interval; PSI triggers",
	  .tool = &pressure_tool },
	{ "oom", "one line per OOM kill: trigger, victim, memcg (BCC oomkill)",
	  .tool = &oom_tool },
	{ "cachetop", "page-cache hits, misses, dirties per process (BCC cachetop)",
	  .tool = &cachetop_tool },
	{ "shm", "every shmget/shmat/shmdt/shmctl call with its arguments (shmsnoop)",
	  .tool = &shm_tool },
	{ "slab", "slab caches (slabtop) with allocations and frees per interval; -C -g kernel stacks",
	  .tool = &slab_tool },
	{ "compact", "compaction runs with latency and result (drsnoop-like); THP collapses; -s summary",
	  .tool = &compact_tool },
	{ "numa", "a process's pages per NUMA node (numastat -p), its migrations over the run",
	  .tool = &numa_tool },
	{ "record", "record the events of several tools once, to a file (perf record)",
	  .cmd = cmd_record, .cmdline = &record_cmdline },
	{ "report", "any tool's report, a perf script dump, a timeline, a heap diff or a pprof profile, from recordings",
	  .cmd = cmd_report, .cmdline = &report_cmdline },
	{ "features", "what this kernel offers and which event source each tool uses",
	  .cmd = cmd_features, .cmdline = &features_cmdline },
	{ "cleanup", "remove probes left by faultline processes that died",
	  .cmd = cmd_cleanup, .cmdline = &cleanup_cmdline },
};

const struct command *commands__all(size_t *n)
{
	*n = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

const struct command *commands__find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

void commands__list(unsigned int flag, char *buf, size_t n)
{
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]) && len < n; i++)
		if (command__flags(&commands[i]) & flag)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "," : "",
						commands[i].name);
}

unsigned int command__flags(const struct command *c)
{
	return c->tool ? c->tool->flags : 0;
}

const char *command__why_not(const struct command *c)
{
	return c->tool ? c->tool->why_not : NULL;
}

size_t commands__ladders(const struct ladder **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct tool *t = commands[i].tool;
		const struct ladder *two[2] = { t ? t->ladder : NULL, t ? t->other_ladder : NULL };

		for (size_t k = 0; k < 2; k++) {
			bool seen = !two[k];

			for (size_t j = 0; j < n && j < max && !seen; j++)
				seen = out[j] == two[k];
			if (seen)
				continue;
			if (n < max)
				out[n] = two[k];
			n++;
		}
	}
	return n;
}

size_t commands__cmdlines(const struct tool_cmdline **out, size_t max)
{
	const struct tool_cmdline *c;
	size_t n = 0;
	bool more = true;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		c = commands[i].tool ? commands[i].tool->cmdline : commands[i].cmdline;
		if (c && n < max)
			out[n] = c;
		n += c != NULL;
	}
	for (size_t i = 0; more; i++) {
		c = report__sub_cmdline(i, &more);
		if (c && n < max)
			out[n] = c;
		n += c != NULL;
	}
	return n;
}

const struct ladder *commands__ladder(const char *name)
{
	const struct ladder *all[64];
	size_t n = commands__ladders(all, 64);

	for (size_t i = 0; name && i < n && i < 64; i++)
		if (!strcmp(all[i]->tool, name))
			return all[i];
	return NULL;
}
