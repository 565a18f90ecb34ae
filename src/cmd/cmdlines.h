/*
 * cmdlines: every command's declared command line (struct tool_cmdline,
 * cmd/tool-opts.h), by name, for what walks them all: the table test,
 * completion and the man pages' check (faultline --list-opts).  Data only.
 */
#ifndef FAULTLINE_CMDLINES_H
#define FAULTLINE_CMDLINES_H

#include "cmd/tool-opts.h"

extern const struct tool_cmdline leak_cmdline;
extern const struct tool_cmdline brk_cmdline;
extern const struct tool_cmdline swapin_cmdline;
extern const struct tool_cmdline cache_cmdline;
extern const struct tool_cmdline cachetop_cmdline;
extern const struct tool_cmdline compact_cmdline;
extern const struct tool_cmdline ffaults_cmdline;
extern const struct tool_cmdline goalloc_cmdline;
extern const struct tool_cmdline hfaults_cmdline;
extern const struct tool_cmdline mmap_cmdline;
extern const struct tool_cmdline faults_cmdline;
extern const struct tool_cmdline flamegraph_cmdline;
extern const struct tool_cmdline heap_cmdline;
extern const struct tool_cmdline oom_cmdline;
extern const struct tool_cmdline pressure_cmdline;
extern const struct tool_cmdline reclaim_cmdline;
extern const struct tool_cmdline shm_cmdline;
extern const struct tool_cmdline slab_cmdline;
extern const struct tool_cmdline numa_cmdline;
extern const struct tool_cmdline record_cmdline;
extern const struct tool_cmdline diff_cmdline;
extern const struct tool_cmdline pprof_cmdline;
extern const struct tool_cmdline timeline_cmdline;

/* NULL-terminated. */
extern const struct tool_cmdline *const tool_cmdlines[];

#endif
