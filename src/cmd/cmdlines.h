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

/* NULL-terminated. */
extern const struct tool_cmdline *const tool_cmdlines[];

#endif
