/*
 * tool-opts: the command-line options every tracing tool shares, parsed
 * one way, with perf's and BCC's spellings: -p PID, -c "CMD", -a, -m PAGES,
 * -T, -g, --json, --folded, and a trailing [duration] in seconds (or, for
 * the tools that report every interval, "interval [count]"); and perf's
 * "-- CMD ARGS..." after all of them, a command run with its arguments as
 * they are.  The shared options are rows of one table (tool-opts.c), a
 * command's own are rows of its struct tool_cmdline (opt-table.h), and
 * the parser, -h, the synopsis and --list-opts all come from those rows.
 */
#ifndef FAULTLINE_TOOL_OPTS_H
#define FAULTLINE_TOOL_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "trace/session.h"

struct ostream;

/*
 * How a tool runs (cmd/tool.h drives it): live (the command line's own
 * run), or for record and report:
 *  - record: tool__start() hands out @record (one session for every tool
 *    recorded; a reference the tool_run frees) after choosing the tool's
 *    rung on this kernel; the tool adds its events, and record runs the
 *    session once for all of them (no tool's run or report).
 *  - report: tool__start() opens a replay of @replay instead of tracing;
 *    the tool's target defaults to the recorded one (@target_pid,
 *    @command), -c is refused, and the rest is the live path.
 * The caller owns it; a tool keeps it in its tool_opts for the run.
 */
struct replay_opts;
struct tool_mode {
	struct session *record;
	const struct replay_opts *replay;
	pid_t target_pid;
	const char *command;
};

struct tool_opts {
	struct session_opts sess;
	const struct tool_mode *mode;	/* how the tool runs; never NULL once parsed */
	/* The command's name for its messages, when it runs on another
	 * tool's ladder (heap and flamegraph on leak's); NULL: the ladder's */
	const char *name;
	bool all;		/* -a given */
	bool timestamps;	/* -T */
	bool stacks;		/* -g */
	bool json;		/* --json */
	bool folded;		/* --folded */
	bool srcline;		/* --srcline */
	bool quiet;		/* --quiet: no status line on a terminal (cmd/status.h) */
	const char *output;	/* --output FILE: the report there, not stdout; NULL: stdout */
	double snapshot_secs;	/* --snapshot-every SECS; 0: on SIGUSR1 only */
	/* "-- CMD ARGS": the command as one shell-quoted line, for messages
	 * and the recording (sess.cmd points here, sess.cmd_argv into argv) */
	char cmdline[1024];
};

/* -m's limit, said as such (16777216 is a power of two too): 2^20 pages
 * are a 4 GiB ring a CPU, far beyond what the drain needs, as the spools
 * take a slow reader's backlog. */
#define TOOL_MAX_MMAP_PAGES	(1u << 20)
#define TOOL_MAX_MMAP_PAGES_S	"1048576"

/* Which shared options a tool takes, beyond -p/-c/-a/-m/--json, the stack
 * options, --pause/--no-pause, --no-realtime and duration. */
#define TOOL_OPT_T	(1u << 0)
#define TOOL_OPT_G	(1u << 1)
#define TOOL_OPT_FOLDED	(1u << 2)
/* Options may also follow the positional arguments, as argparse (BCC's
 * tools) allows; without it the first positional ends the options. */
#define TOOL_OPT_ANY_ORDER	(1u << 3)
/* Live, the tool traces the whole system and refuses -p and -c itself,
 * saying why (oom; a recording may hold a target's): a program typed where
 * a number goes is not told to run with "--". */
#define TOOL_OPT_LIVE_ALL	(1u << 4)
/* --snapshot-every: the tool prints snapshots (its struct tool has a
 * .snapshot; test-opt-tables holds the two together).  A tool without
 * answers a SIGUSR1 in one line. */
#define TOOL_OPT_SNAPSHOT	(1u << 5)
/*
 * Shared options a tool does not take (it has no target to choose, or
 * prints no JSON): getopt is not told of them, so they are an "unknown
 * option" there, as any other unknown spelling.
 */
#define TOOL_OPT_NO_PID		(1u << 8)	/* -p, --pid (both: --pause, --no-pause) */
#define TOOL_OPT_NO_CMD		(1u << 9)	/* -c, --command */
#define TOOL_OPT_NO_ALL		(1u << 10)	/* -a, --all-cpus */
#define TOOL_OPT_NO_MMAP	(1u << 11)	/* -m, --mmap-pages, --no-realtime */
#define TOOL_OPT_NO_JSON	(1u << 12)	/* --json */
#define TOOL_OPT_NO_UNWIND	(1u << 13)	/* --call-graph, --unwinder, --srcline */
#define TOOL_OPT_NO_SRCLINE	(1u << 14)	/* --srcline alone (record: a report's choice) */
#define TOOL_OPT_NO_OUTPUT	(1u << 15)	/* --output, --snapshot-every (no report to print) */
#define TOOL_OPT_NO_SHARED	(TOOL_OPT_NO_PID | TOOL_OPT_NO_CMD | TOOL_OPT_NO_ALL | \
				 TOOL_OPT_NO_MMAP | TOOL_OPT_NO_JSON | TOOL_OPT_NO_UNWIND)
/* A report subcommand's: its own options in any order, none of the
 * tracing ones (TOOL_OPT_REPORT_JSON: but --json). */
#define TOOL_OPT_REPORT		(TOOL_OPT_ANY_ORDER | TOOL_OPT_NO_SHARED | TOOL_OPT_NO_OUTPUT)
#define TOOL_OPT_REPORT_JSON	(TOOL_OPT_REPORT & ~TOOL_OPT_NO_JSON)

/*
 * A tool's positional arguments (struct tool_cmdline.positional): they
 * return 0 or a message, and may point *arg (preset to argv[0], or ""
 * when there is none) at the argument the message is about.
 *
 * The shared options, as rows of tool-opts.c's table: a command's table
 * places one with OPT_SHARED(TOOL_SHARED_*, its own help), and takes
 * every other one its accepts do not refuse, after its own rows.
 */
enum {
	TOOL_SHARED_PID = 1, TOOL_SHARED_CMD, TOOL_SHARED_ALL, TOOL_SHARED_MMAP, TOOL_SHARED_T,
	TOOL_SHARED_G, TOOL_SHARED_JSON, TOOL_SHARED_FOLDED, TOOL_SHARED_CALLGRAPH,
	TOOL_SHARED_UNWINDER, TOOL_SHARED_SRCLINE, TOOL_SHARED_NO_REALTIME, TOOL_SHARED_PAUSE,
	TOOL_SHARED_NO_PAUSE, TOOL_SHARED_QUIET, TOOL_SHARED_OUTPUT, TOOL_SHARED_SNAPSHOT_EVERY,
	TOOL_SHARED_HELP,
};

#include "cmd/opt-table.h"

/*
 * A command's command line, declared once: its rows (own and placed
 * shared ones), which shared options it takes (TOOL_OPT_*), its
 * positionals and the words of its -h besides the rows.  Everything
 * else (getopt's tables, the synopsis, -h, --list-opts) is derived.
 */
/* The args_help of "interval [count]". */
#define TOOL_ARGS_INTERVAL(interval, count) "interval\t" interval "\ncount\t" count "\n"

struct tool_cmdline {
	const char *tool;		/* "leak", "report diff": messages */
	unsigned int accepts;		/* TOOL_OPT_* */
	const struct tool_option *options;	/* OPT_END-terminated */
	struct opt_text text;		/* .usage_name NULL: tool */
	/* CALL rows: 0 or a message for "faultline TOOL: MESSAGE 'ARG'" */
	const char *(*opt)(int key, const char *arg, void *ctx);
	/* the arguments after the options; NULL: [duration] */
	const char *(*positional)(int argc, char **argv, const char **arg, void *ctx);
};

/* Which shared option given cannot go with a top-like screen on the
 * terminal (--live: --json, --folded, and --snapshot-every unless the
 * snapshots go to --output's file), said as "--json"; NULL: none. */
const char *tool_opts__screen_conflict(const struct tool_opts *o);

/* The shared row of long name @name's help (its meaning in every
 * command), or NULL; every shared row as "--name<TAB>help" lines. */
const char *tool_shared__meaning(const char *name);
void tool_shared__list(FILE *f);

/*
 * tool_cmdline__table - the rows @cl parses with, in -h's order: its own
 * (a placed shared one with its help), then the shared ones it takes and
 * has not placed, unless its own rows take their letter.  -E2BIG when
 * they do not fit (a bug in a table).
 */
int tool_cmdline__table(const struct tool_cmdline *cl, struct opt_table *t);
/* The text of @cl (usage_name and runs_cmd filled in). */
struct opt_text tool_cmdline__text(const struct tool_cmdline *cl);

/*
 * tool_opts__parse_cmdline - parse argv with @cl's table, for a tool
 * running in @mode (NULL: live), FLAG rows and opt() writing into @ctx.
 * Returns 0, 1 when help was printed (exit 0), or -EINVAL after printing
 * "faultline TOOL: <what> (see 'faultline TOOL -h')" to stderr (exit 2).
 * Live, a tool that runs commands given a program where its duration,
 * interval or count goes ("faultline leak ls -l") says how to run it
 * instead, in one line: "faultline leak: 'ls' is not an interval; to run
 * a program: faultline leak -- ls -l".  A command's own letters win over
 * shared ones (memleak's -a and -T mean --show-allocs and --top there),
 * whose long names are then not known either.  argv may be permuted
 * (TOOL_OPT_ANY_ORDER); o's strings point into argv.  "TOOL --list-opts"
 * (first) prints the rows for completion and returns 1.
 */
int tool_opts__parse_cmdline(struct tool_opts *o, const struct tool_mode *mode,
			     const struct tool_cmdline *cl, void *ctx, int argc, char **argv);

/* tool_opts__parse_cmdline for a report subcommand (diff, timeline,
 * pprof; accepts TOOL_OPT_REPORT or TOOL_OPT_REPORT_JSON).
 * Return: the exit status to end with (EXIT_OK after --help, EXIT_USAGE
 * after a line on stderr), or -1 to go on. */
int tool_opts__parse_report_cmdline(struct tool_opts *o, const struct tool_cmdline *cl, void *ctx,
				    int argc, char **argv);

/*
 * tool_cmdline__plain - the tables of a command with none of the tracing
 * options (report's own, features, cleanup), which takes getopt_long's
 * returns itself and says its own errors: @cl's rows in @t, getopt's
 * tables in @shortopts and @longopts (sizes as opt_table__getopt's,
 * options ending at the first positional), getopt restarted quietly.
 * Returns 0, 1 after "CMD --list-opts" printed the rows (exit 0), or
 * -E2BIG (a bug in the table).  -h is then opt_table__help(@t, @x).
 */
int tool_cmdline__plain(const struct tool_cmdline *cl, struct opt_table *t, struct opt_text *x,
			char *shortopts, struct option *longopts, int argc, char **argv);

/*
 * The trailing "interval [count]" of the tools that report every interval
 * seconds, as BCC's cachestat, cachetop, swapin and memleak take it.
 */
struct tool_interval {
	double secs;		/* set to the tool's default before parsing */
	unsigned long count;	/* reports wanted; 0: until stopped */
};

/*
 * tool_opts__parse_secs - a number of seconds, as [duration] and intervals
 * @arg: the argument
 * @secs: set to its value on success
 *
 * Seconds > 0 (fractional allowed), at most 1e7.  Returns 0 or -EINVAL.
 */
int tool_opts__parse_secs(const char *arg, double *secs);
/* The same, at least 0.000001 s, in nanoseconds (an --interval SECS
 * option of the over-time reports).  0 or -EINVAL. */
int tool_opts__parse_secs_ns(const char *arg, uint64_t *ns);

/* The summary tools' extra options (reclaim, compact): -s sets *@summary,
 * -i SECS *@secs.  NULL, or the message for a bad interval. */
const char *tool_opts__summary_opt(int c, const char *arg, bool *summary, double *secs);

/*
 * tool_opts__parse_interval - "interval [count]" from the arguments left
 * after the options
 * @iv: keeps its defaults for what is not given
 * @argc, @argv: the arguments after the options
 * @arg: set to the argument a message is about
 *
 * interval as tool_opts__parse_secs, count a decimal integer >= 1.  Returns
 * NULL, or "invalid interval", "invalid count" or "unexpected argument" for
 * a positional() to return: call it from one, or use
 * tool_opts__interval_positional.
 */
const char *tool_opts__parse_interval(struct tool_interval *iv, int argc, char **argv,
				      const char **arg);

/* A positional() for commands that take no positional argument
 * at all (not even [duration]: report's pprof, timeline). */
const char *tool_opts__no_positional(int argc, char **argv, const char **arg, void *ctx);

/* A positional() for tools with no other positional arguments:
 * ctx is the struct tool_interval to fill. */
const char *tool_opts__interval_positional(int argc, char **argv, const char **arg, void *ctx);

/* "PID 123", "PID 4242 (pid 1 in its namespace)" (a process in another
 * PID namespace), "'cmd'", "all processes" for messages. */
void tool_opts__describe(const struct tool_opts *o, char *buf, size_t n);

/*
 * tool__usage_error() - a bad command line, in one line on stderr:
 * "faultline TOOL: WHAT 'ARG' (see 'faultline TOOL -h')"; a report-only
 * @tool ("report diff") points at "faultline report diff -h".
 *
 * Return: EXIT_USAGE.
 */
int tool__usage_error(const char *tool, const char *what, const char *arg);

/* tool__usage_error() for getopt's '?' on argv[optind - 1]: an unknown
 * option, or one that needs a value.  Return: EXIT_USAGE. */
int tool__bad_option(const char *tool, char **argv);

#endif
