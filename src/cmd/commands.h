/*
 * commands: the subcommands of faultline.  Each parses its own options,
 * orchestrates modules and prints; each returns the process exit status
 * (cmd/exit-codes.h).  Only commands print.  The tools (cmd/tool.h) are
 * rows of the command table: their names are known to commands.c alone.
 */
#ifndef FAULTLINE_COMMANDS_H
#define FAULTLINE_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/exit-codes.h"

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
/* The command lines of the plain commands and of report's subcommands
 * with options. */
extern const struct tool_cmdline record_cmdline, report_cmdline, features_cmdline, cleanup_cmdline;
extern const struct tool_cmdline timeline_cmdline, diff_cmdline, pprof_cmdline;
/* report's subcommand @i's declared command line (NULL for one with no
 * options, or past the last: *@more says which). */
const struct tool_cmdline *report__sub_cmdline(size_t i, bool *more);
/*
 * commands__cmdlines() - every declared command line, the tools' (from the
 * command table), record's and report's subcommands', for what walks them
 * all (the tables' test); fills @out up to @max.  Return: how many there are.
 */
size_t commands__cmdlines(const struct tool_cmdline **out, size_t max);
/*
 * report_replay() - what every report subcommand does with a recording
 * (cmd-report.c): open @ro's replay, let @add (may be NULL) add the
 * events and hooks (or print what comes before them) with @ctx, and run
 * it to its end
 * @s: gets the session, the caller's to free whatever the return; NULL
 *     when the recording could not be opened
 *
 * Return: 0, or the first -errno, with @eb set.
 */
struct session;
struct errbuf;
int report_replay(const struct replay_opts *ro,
		  int (*add)(struct session *s, void *ctx, struct errbuf *eb), void *ctx,
		  struct session **s, struct errbuf *eb);

/*
 * One entry of the command table (commands.c), the only list of
 * faultline's commands: main() dispatches on it, record and report take
 * their tools from it.  Exactly one of @cmd and @tool is set.
 */
struct tool;
struct ladder;
struct tool_cmdline;
struct command {
	const char *name;
	const char *summary;		/* faultline --help's line */
	int (*cmd)(int argc, char **argv);
	const struct tool *tool;	/* a tracing tool (cmd/tool.h) */
	/* A plain command's declared command line, when it has one (a
	 * tool's is its struct tool's). */
	const struct tool_cmdline *cmdline;
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

/*
 * commands__ladders() - every tool's ladders, each once, in the table's
 * order (a tool's own, then its other_ladder: leak, leak -k, ...)
 * @out: gets the first @max of them
 *
 * Return: how many there are (more than @max when @out was too short).
 */
size_t commands__ladders(const struct ladder **out, size_t max);
/* The ladder named @name ("leak -k"), or NULL (@name NULL too). */
const struct ladder *commands__ladder(const char *name);

#endif
