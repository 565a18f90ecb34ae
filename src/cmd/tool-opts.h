/*
 * tool-opts: the command-line options every tracing tool shares, parsed
 * one way, with perf's and BCC's spellings: -p PID, -c "CMD", -a, -m PAGES,
 * -T, -g, --json, --folded, and a trailing [duration] in seconds (or, for
 * the tools that report every interval, "interval [count]"); and perf's
 * "-- CMD ARGS..." after all of them, a command run with its arguments as
 * they are.
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
	/* "-- CMD ARGS": the command as one shell-quoted line, for messages
	 * and the recording (sess.cmd points here, sess.cmd_argv into argv) */
	char cmdline[1024];
};

/* -m's limit, said as such (16777216 is a power of two too): 2^20 pages
 * are a 4 GiB ring a CPU, far beyond what the drain needs, as the spools
 * take a slow reader's backlog. */
#define TOOL_MAX_MMAP_PAGES	(1u << 20)
#define TOOL_MAX_MMAP_PAGES_S	"1048576"

/* Help lines of the options every tracing tool takes. */
#define TOOL_OPTS_HELP \
	"  -p PID       trace this process (all its threads, and threads it creates)\n" \
	"  -c CMD       run CMD and trace it from its first instruction\n" \
	"  -- CMD ARGS  the same, CMD's arguments passed as they are (no shell\n" \
	"               parsing); after every other option\n" \
	"  -a           trace every process (the default without -p and -c)\n" \
	"  --json       one JSON object per line\n" \
	"  -m PAGES     ring buffer pages per CPU (power of two; default 4096 with\n" \
	"               dwarf stacks, 1024 with fp, at most 64 MiB in all)\n" \
	TOOL_OPTS_PAUSE_HELP \
	"  duration     stop after this many seconds\n"
/* Back-pressure (session.h's pause). */
#define TOOL_OPTS_PAUSE_HELP \
	"  --no-pause   never stop a command's processes while the rings drain\n" \
	"               (by default a -c/-- target is paused rather than lose events)\n" \
	"  --pause      pause a -p target too\n"
#define TOOL_OPTS_STACK_HELP \
	"  --call-graph dwarf[,SIZE] | fp\n" \
	"               user stacks unwound with DWARF CFI from SIZE bytes of copied\n" \
	"               stack (default dwarf,32768), or the kernel's frame-pointer walk\n" \
	"  --unwinder libdw | libunwind\n" \
	"               the DWARF unwinder (default libdw)\n" \
	"  --srcline    add file:line to each frame, and the functions inlined there\n"

/* Which shared options a tool takes, beyond -p/-c/-a/-m/--json/duration. */
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
/*
 * Shared options a tool does not take (it has no target to choose, or
 * prints no JSON): getopt is not told of them, so they are an "unknown
 * option" there, as any other unknown spelling.
 */
#define TOOL_OPT_NO_PID		(1u << 8)	/* -p, --pid */
#define TOOL_OPT_NO_CMD		(1u << 9)	/* -c, --command */
#define TOOL_OPT_NO_ALL		(1u << 10)	/* -a, --all-cpus */
#define TOOL_OPT_NO_MMAP	(1u << 11)	/* -m, --mmap-pages */
#define TOOL_OPT_NO_JSON	(1u << 12)	/* --json */
#define TOOL_OPT_NO_UNWIND	(1u << 13)	/* --call-graph, --unwinder, --srcline */
#define TOOL_OPT_NO_SRCLINE	(1u << 14)	/* --srcline alone (record: a report's choice) */
#define TOOL_OPT_NO_SHARED	(TOOL_OPT_NO_PID | TOOL_OPT_NO_CMD | TOOL_OPT_NO_ALL | \
				 TOOL_OPT_NO_MMAP | TOOL_OPT_NO_JSON | TOOL_OPT_NO_UNWIND)

/*
 * Parse argv, for a tool running in @mode (NULL: live).  Returns 0, 1 when help was printed (exit 0), or -EINVAL after
 * printing "faultline TOOL: <what>" and the usage line to stderr (exit 2).
 * usage is the tool's one-line synopsis, help its option list.  Live, a
 * tool that runs commands given a program where its duration, interval or
 * count goes ("faultline leak ls -l") says how to run it instead, in one
 * line: "faultline leak: 'ls' is not an interval; to run a program:
 * faultline leak -- ls -l".
 */
int tool_opts__parse(struct tool_opts *o, const struct tool_mode *mode, const char *tool, unsigned int accepts,
		     const char *usage, const char *help, int argc, char **argv);

struct option;

/*
 * A tool's own options, parsed in the same pass as the shared ones.  Its
 * short options win over shared ones of the same letter (memleak's -a and
 * -T mean --show-allocs and --top there), and the shared long options of
 * those letters are then not known (--timestamp must not mean --top).
 * opt() gets the option's value (getopt's return, the long option's val)
 * and its argument, and returns 0 or a message for "faultline TOOL:
 * MESSAGE 'ARG'".  positional(), when set, takes the arguments after the
 * options instead of [duration]; it returns 0 or a message, and may point
 * *arg (preset to argv[0], or "" when there is none) at the argument the
 * message is about.
 */
struct tool_extra {
	const char *shortopts;
	const struct option *longopts;	/* NULL-terminated; vals >= 256 or a letter */
	const char *(*opt)(int c, const char *arg, void *ctx);
	const char *(*positional)(int argc, char **argv, const char **arg, void *ctx);
	void *ctx;
};

/*
 * tool_opts__parse_ext - tool_opts__parse with a tool's own options
 * @mode: how the tool runs (NULL: live)
 * @extra: the tool's options and positional arguments, or NULL
 *
 * As tool_opts__parse otherwise.  argv may be permuted (TOOL_OPT_ANY_ORDER);
 * o's strings point into argv.
 */
int tool_opts__parse_ext(struct tool_opts *o, const struct tool_mode *mode, const char *tool, unsigned int accepts,
			 const char *usage, const char *help, const struct tool_extra *extra,
			 int argc, char **argv);

/*
 * tool_opts__parse_report - a report subcommand's command line (diff,
 * timeline, pprof): its own options in any order, --json when @json, and
 * none of the tracing tools' shared ones.
 *
 * Return: the exit status to end with (EXIT_OK after --help, EXIT_USAGE
 * after a line on stderr), or -1 to go on.
 */
int tool_opts__parse_report(struct tool_opts *o, const char *tool, bool json, const char *usage,
			    const char *help, const struct tool_extra *extra, int argc, char **argv);

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
 * tool_extra.positional() to return: call it from one, or use
 * tool_opts__interval_positional.
 */
const char *tool_opts__parse_interval(struct tool_interval *iv, int argc, char **argv,
				      const char **arg);

/* A tool_extra.positional() for commands that take no positional argument
 * at all (not even [duration]: report's pprof, timeline). */
const char *tool_opts__no_positional(int argc, char **argv, const char **arg, void *ctx);

/* A tool_extra.positional() for tools with no other positional arguments:
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
