/*
 * tool-opts: the command-line options every tracing tool shares, parsed
 * one way, with perf's and BCC's spellings: -p PID, -c "CMD", -a, -m PAGES,
 * -T, -g, --json, --folded, and a trailing [duration] in seconds.
 */
#ifndef FAULTLINE_TOOL_OPTS_H
#define FAULTLINE_TOOL_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "session.h"

struct tool_opts {
	struct session_opts sess;
	bool all;		/* -a given */
	bool timestamps;	/* -T */
	bool stacks;		/* -g */
	bool json;		/* --json */
	bool folded;		/* --folded */
	bool srcline;		/* --srcline */
};

/* Help lines of the options every tracing tool takes. */
#define TOOL_OPTS_HELP \
	"  -p PID       trace this process (all its threads, and threads it creates)\n" \
	"  -c CMD       run CMD and trace it from its first instruction\n" \
	"  -a           trace every process (the default without -p and -c)\n" \
	"  --json       one JSON object per line\n" \
	"  -m PAGES     ring buffer pages per CPU (power of two; default 1024 with\n" \
	"               dwarf stacks, at most 64 MiB in all, 64 with fp)\n" \
	"  duration     stop after this many seconds\n"
#define TOOL_OPTS_STACK_HELP \
	"  --call-graph dwarf[,SIZE] | fp\n" \
	"               user stacks unwound with DWARF CFI from SIZE bytes of copied\n" \
	"               stack (default dwarf,8192), or the kernel's frame-pointer walk\n" \
	"  --unwinder libdw | libunwind\n" \
	"               the DWARF unwinder (default libdw)\n" \
	"  --srcline    add file:line to each frame, and the functions inlined there\n"

/* Which shared options a tool takes, beyond -p/-c/-a/-m/--json/duration. */
#define TOOL_OPT_T	(1u << 0)
#define TOOL_OPT_G	(1u << 1)
#define TOOL_OPT_FOLDED	(1u << 2)

/*
 * Parse argv.  Returns 0, 1 when help was printed (exit 0), or -EINVAL after
 * printing "faultline TOOL: <what>" and the usage line to stderr (exit 2).
 * usage is the tool's one-line synopsis, help its option list.
 */
int tool_opts__parse(struct tool_opts *o, const char *tool, unsigned int accepts,
		     const char *usage, const char *help, int argc, char **argv);

/* "PID 123 (\"comm\")", "command 'cmd'", "all processes" for messages. */
void tool_opts__describe(const struct tool_opts *o, char *buf, size_t n);

#endif

struct ladder;
struct features;

/*
 * Start a tool: open the session for o (printing one clear line and
 * returning NULL on failure), warn about stale probe groups, and choose the
 * tool's event source from its fallback ladder (compat/).  *rung_key gets
 * the chosen rung's key, *rung_label its description.
 */
struct session *tool__start(struct tool_opts *o, const char *tool, const char **rung_key,
			    const char **rung_label);

/* Print the "Tracing ..." line (stderr), run the session, report errors.
 * 0 on success, EXIT_FAIL after printing the error. */
int tool__run(struct session *s, const struct tool_opts *o, const char *tool,
	      const char *what, const char *source);

/* Call after printing one event's lines: keeps stdout's flushes between
 * events, so no line is ever split. */
void tool__event_done(void);

/* Print an error of a setup step: "faultline TOOL: message". Returns EXIT_FAIL. */
int tool__fail(const char *tool, const struct errbuf *eb, int err);
