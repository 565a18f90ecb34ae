/*
 * cmdlines: the list of every command's declared command line.  Data only.
 */
#include <stddef.h>

#include "cmd/cmdlines.h"

const struct tool_cmdline *const tool_cmdlines[] = {
	&leak_cmdline,
	&brk_cmdline,
	&swapin_cmdline,
	&cache_cmdline,
	&cachetop_cmdline,
	&compact_cmdline,
	&ffaults_cmdline,
	&goalloc_cmdline,
	&hfaults_cmdline,
	&mmap_cmdline,
	&faults_cmdline,
	&flamegraph_cmdline,
	&heap_cmdline,
	&oom_cmdline,
	&pressure_cmdline,
	&reclaim_cmdline,
	&shm_cmdline,
	&slab_cmdline,
	&numa_cmdline,
	&record_cmdline,
	&diff_cmdline,
	&pprof_cmdline,
	&timeline_cmdline,
	NULL,
};
