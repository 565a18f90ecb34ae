/*
 * cmdlines: the list of every command's declared command line.  Data only.
 */
#include <stddef.h>

#include "cmd/cmdlines.h"

const struct tool_cmdline *const tool_cmdlines[] = {
	&leak_cmdline,
	&brk_cmdline,
	&swapin_cmdline,
	NULL,
};
