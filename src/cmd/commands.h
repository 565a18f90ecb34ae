/*
 * commands: the subcommands of faultline.  Each parses its own options,
 * orchestrates modules and prints; each returns the process exit status
 * (see EXIT_* below).  Only commands print.
 */
#ifndef FAULTLINE_COMMANDS_H
#define FAULTLINE_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses, as eu-stack documents its own: */
#define EXIT_OK		0	/* done */
#define EXIT_FAIL	1	/* could not do it (the reason is on stderr) */
#define EXIT_USAGE	2	/* bad command line */
/* With a command (-c CMD, -- CMD) faultline exits with the command's own
 * status (128+N when signal N killed it), as valgrind does with its
 * client's, so `faultline leak -- make` fails when make does.  Its own
 * failure then needs a status no command is likely to return: 125, as
 * env(1), timeout(1) and git bisect run use for "the wrapper failed". */
#define EXIT_CMD_FAIL	125	/* faultline failed, a command given */

struct tool_mode;

/* The plain commands. */
int cmd_features(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* report -i FILE timeline (cmd-timeline.c): argv[0] is "timeline". */
struct replay_opts;
int report_timeline(const struct replay_opts *ro, int argc, char **argv);
/* report -i NEW diff OLD (cmd-diff.c): argv[0] is "diff". */
int report_diff(const struct replay_opts *ro, int argc, char **argv);
/* report -i FILE pprof (cmd-pprof.c): argv[0] is "pprof". */
int report_pprof(const struct replay_opts *ro, int argc, char **argv);

/* The tools (cmd/tool.h): record and report run them through the table below. */
extern const struct tool reclaim_tool;
extern const struct tool oom_tool;
extern const struct tool heap_tool;
extern const struct tool leak_tool;
extern const struct tool flamegraph_tool;
extern const struct tool faults_tool;

/*
 * faults__folded() - a faults tool's counts as folded stacks
 * @st: the state of a faults_tool that ran (for flamegraph)
 * @major: weighted by major faults, else by every fault
 * @out: gets one "comm;frame;...;frame COUNT" line per stack
 *
 * Return: 0, the tool's handlers' error, or -EIO when @out failed.
 */
struct session;
int faults__folded(void *st, struct session *s, bool major, FILE *out);

/*
 * heap__profile() - a heap tool's count of allocations (for flamegraph)
 * @st: the state of a heap_tool that ran
 * @hp: gets its profile, owned by @st
 *
 * Return: 0, or the error its handlers or its allocation trace met.
 */
struct heap_profile;
int heap__profile(void *st, struct heap_profile **hp);
extern const struct tool compact_tool;
extern const struct tool slab_tool;
extern const struct tool cache_tool;
extern const struct tool cachetop_tool;
extern const struct tool pressure_tool;
extern const struct tool brk_tool;
extern const struct tool shm_tool;
extern const struct tool ffaults_tool;
extern const struct tool hfaults_tool;
extern const struct tool goalloc_tool;
extern const struct tool mmap_tool;
extern const struct tool swapin_tool;

/*
 * One entry of the command table (commands.c), the only list of
 * faultline's commands: main() dispatches on it, record and report take
 * their tools from it.  Exactly one of @cmd and @tool is set.
 */
struct tool;
struct command {
	const char *name;
	const char *summary;		/* faultline --help's line */
	int (*cmd)(int argc, char **argv);
	const struct tool *tool;	/* a tracing tool (cmd/tool.h) */
};

/* The TOOL_* flags of a tool's command (0 for a plain command). */
unsigned int command__flags(const struct command *c);
/* Why a tool cannot be recorded or replayed, or NULL. */
const char *command__why_not(const struct command *c);

/* The command named @name, or NULL. */
const struct command *commands__find(const char *name);
/* The whole table: *n entries. */
const struct command *commands__all(size_t *n);
/* "leak,faults,...": the tools with @flag, comma-separated, into @buf. */
void commands__list(unsigned int flag, char *buf, size_t n);

#endif
