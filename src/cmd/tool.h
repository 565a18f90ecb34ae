/*
 * tool: what a tracing tool is to the three commands that run it: its own
 * command line (live), faultline record (its events added to one shared
 * recording session) and faultline report (its handlers fed from a
 * recording).  A tool describes itself with a struct tool (its options,
 * its events, its hooks, its report, what record and report may do with
 * it, what it reads besides events); the driver here owns the life:
 *
 *	init		parse the command line into the tool's state
 *	start		the session (live, the recording's, or a replay) and the
 *			rung of the tool's fallback ladder (its .ladder)
 *	add_events	the rung's events, hooks and handlers
 *	-- record stops here: the recording session runs once for all tools --
 *	before_run	headers
 *	run		session__run (or the tool's own loop, for a rung with
 *			no session), ready and round hooks; live, on a
 *			terminal, the status line (cmd/status.h) with the
 *			tool's headline
 *	report		the tool's results and exit status (snapshot: the same
 *			during the run, on SIGUSR1 or --snapshot-every; the
 *			report, and they, to --output FILE when given)
 *	fini		the tool's allocations
 *
 * so no tool knows which of the three commands runs it, beyond what its
 * tool_opts' mode says of the session (recording or replaying).
 *
 * A new tool is one file, src/cmd/tools/cmd-NAME.c (its state, options, events
 * and report, then its ladder and its struct tool NAME_tool), includes
 * this header (and cmd/tool-shared.h only to use another tool's parts),
 * and is named in one row of commands.c's table; Makefile.am builds it,
 * and its man page docs/man/faultline-NAME.1.in (configure.ac lists it).
 */
#ifndef FAULTLINE_TOOL_H
#define FAULTLINE_TOOL_H

#include <stddef.h>

#include "cmd/exit-codes.h"
#include "cmd/tool-opts.h"
#include "ladder.h"

struct errbuf;
struct session;

/* What record and report may do with a tool (struct tool.flags). */
#define TOOL_RECORDS		(1u << 0)	/* record -e TOOL adds its events */
#define TOOL_RECORD_DEFAULT	(1u << 1)	/* ... and record without -e does */
#define TOOL_REPLAYS		(1u << 2)	/* report -i FILE TOOL runs it */
/* A tool of the whole system, taking neither -p nor -c: its "Tracing"
 * line names no target (tool__banner). */
#define TOOL_NO_TARGET		(1u << 3)
/* Its -s N samples the events: a remedy for lost ones (lost.c). */
#define TOOL_SAMPLES		(1u << 4)

/*
 * A rung that reads system-wide counters instead of events (/proc/vmstat,
 * /proc/slabinfo): refused by record and report, since a recording holds
 * events only, and a warning where a process or stacks were asked for.
 */
struct tool_counters {
	const char *rung;	/* its key in the ladder */
	const char *source;	/* "/proc counters": what record/report refuse */
	const char *what;	/* "/proc/vmstat": the warning's subject */
	/* what the warning says is lost; NULL: "the counts are not limited
	 * to the command" (-c) or "... to -p" */
	const char *loses;
};

/* The stacks a tool's events take (struct tool.stacks), which size its
 * rings: the frame-pointer mode's are small, DWARF's copies large. */
enum tool_stacks {
	TOOL_STACKS_USER,	/* user stacks as --call-graph says (DWARF by default) */
	TOOL_STACKS_NONE,	/* none */
	TOOL_STACKS_KERNEL,	/* kernel stacks only */
	TOOL_STACKS_USER_FP,	/* user stacks by frame pointers only (goalloc: Go's) */
};

struct tool {
	const char *name;
	/* Its command line, declared once (cmd/tool-opts.h): init parses with
	 * it; -h, completion and the tables' test read it from here. */
	const struct tool_cmdline *cmdline;
	/* "Tracing WHAT of PID 1 with ...", said by the driver once tracing
	 * is live; NULL: the tool's ready() says its own line (not in a
	 * replay), as swapin keeps BCC's "Counting swap ins of ...". */
	const char *what;
	unsigned int flags;		/* TOOL_* above */
	/* Why it cannot be recorded or replayed, for the refusal; NULL when
	 * flags say it can. */
	const char *why_not;
	struct tool_counters counters;	/* rung: NULL when it has no such rung */
	/* A rung that needs no session (it reads /proc or /dev/kmsg itself),
	 * chosen live before tracefs is touched (tool__start_bare: refused
	 * under record and report); NULL: every rung traces. */
	const char *bare_rung;
	/* Its event sources, best first (compat/ladder.h), defined before
	 * the struct tool in its file; NULL for none. */
	const struct ladder *ladder;
	/* Another ladder its variant() may pick (leak -k's), listed with
	 * the first by `faultline features`; NULL: none. */
	const struct ladder *other_ladder;
	enum tool_stacks stacks;	/* the driver sets the call-graph mode from it */
	size_t size;			/* of its state, zeroed before init */

	/*
	 * Parse the command line (tool_opts__parse_cmdline with @mode into @o,
	 * which stays the tool's for the run) and allocate what the handlers
	 * need.  0 to go on; as it returns otherwise: 1 (help printed),
	 * -EINVAL (usage printed); TOOL_INIT_FAILED: failed, having printed
	 * why; another -errno: failed, said by the driver.
	 */
	int (*init)(void *st, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv);
	/* For a tool whose ladder and banner depend on its options (leak -k):
	 * may set *@ladder (default: .ladder) and *@what (default: .what).
	 * NULL: the defaults. */
	void (*variant)(const void *st, const struct ladder **ladder, const char **what);
	/*
	 * Add @rung's events to @s (NULL for the bare rung), described by
	 * @label.  0; -errno with @eb set; or 1 after printing why not.
	 */
	int (*add_events)(void *st, struct session *s, const char *rung, const char *label,
			  struct errbuf *eb);
	void (*before_run)(void *st);	/* may be NULL: headers, to stdout */
	void (*ready)(void *st);	/* may be NULL: after the banner */
	void (*round)(void *st);	/* may be NULL: between batches */
	/* May be NULL: the tool's figure on the status line a live run keeps
	 * on a terminal (cmd/status.h), "4194304 bytes outstanding in 1
	 * allocation", into @buf; between batches, at most 4 times a second. */
	void (*headline)(const void *st, char *buf, size_t n);
	/* The bare rung's loop, run when there is no session (set with
	 * .bare_rung); every other run is session__run with the hooks above.
	 * It says tracing is live itself, with tool__banner (cmd/tool-opts.h).
	 * 0 or -errno with @eb set. */
	int (*run)(void *st, struct session *s, struct errbuf *eb);
	/* After a run that succeeded: print the results; the exit status. */
	int (*report)(void *st, struct session *s);
	/* May be NULL (a SIGUSR1 is then answered "no snapshot"): the report
	 * as it stands, printed while the run goes on (SIGUSR1,
	 * --snapshot-every), leaving the state as it was; .report itself when
	 * it does.  EXIT_OK, or the exit status after saying why (the run
	 * then stops). */
	int (*snapshot)(void *st, struct session *s);
	void (*fini)(void *st);		/* may be NULL */
};

/* What init returns when it failed and said why (exit status EXIT_FAIL). */
#define TOOL_INIT_FAILED 2

/* One tool set up for a run: its state, options, session and rung. */
struct tool_run;

/*
 * tool__setup() - init, start and add_events, for @mode (NULL: live)
 * @run: set to the tool set up, or NULL when it stops here
 *
 * Return: EXIT_OK, with *@run NULL after -h; otherwise the exit status,
 * having printed why.
 */
int tool__setup(const struct tool *t, const struct tool_mode *mode, int argc, char **argv,
		struct tool_run **run);
/* Run a tool set up for a live session or a replay, and report.  Return:
 * the exit status. */
int tool__drive(struct tool_run *r);
/* fini, the session's reference and the state.  NULL is ignored. */
void tool_run__free(struct tool_run *r);

/* The whole life: the tool's own command line, or report's replay. */
int tool__main(const struct tool *t, const struct tool_mode *mode, int argc, char **argv);

/* The driver's parts, for a tool that runs itself (record, report's subcommands,
 * a bare rung's loop) and for the tools' own messages. */

/* Whether the tool runs for faultline record, or on a recording. */
bool tool__recording(const struct tool_opts *o);
bool tool__replaying(const struct tool_opts *o);
/* A source that reads the live system (@what: "/proc counters"), in a
 * record or a report: says so in one line and returns true. */
bool tool__refuse_live(const struct tool_opts *o, const char *tool, const char *what);

/*
 * tool__counters_rung - the chosen rung reads system-wide counters (@what,
 * "/proc/vmstat") instead of events: refused under record and report
 * (tool__refuse_live(@refused)), and where a process or stacks were asked
 * for, "faultline TOOL: warning: WHAT is system-wide: LOSES" (stderr).
 * True when refused (a line was printed).
 */
bool tool__counters_rung(const struct tool_opts *o, const char *tool, const char *refused,
			 const char *what, const char *loses);


/*
 * Start a tool: open the session for o (printing one clear line and
 * returning NULL on failure), warn about stale probe groups, and choose the
 * tool's event source from its fallback ladder (compat/).  *rung_key gets
 * the chosen rung's key, *rung_label its description.
 */
struct session *tool__start(struct tool_opts *o, const struct ladder *l, const char **rung_key,
			    const char **rung_label);

/*
 * tool__start_bare - tool__start, for a tool whose rung @bare_rung needs no
 * session (it reads /proc counters itself)
 * @s: set to the session, or to NULL when @bare_rung is chosen
 *
 * The rung is chosen from this machine's features before anything is
 * opened, so that @bare_rung works where tracefs cannot be had; any other
 * rung goes through tool__start.  Returns 0, or -1 after printing one line.
 * The caller frees *s (session__free accepts NULL).
 */
int tool__start_bare(struct tool_opts *o, const struct ladder *l, const char *bare_rung,
		     struct session **s, const char **rung_key, const char **rung_label);

/*
 * The line that says tracing is live (stderr), which scripts wait for:
 * "Tracing WHAT of TARGET with SOURCE... Hit Ctrl-C to end.", under -c
 * "Executing 'CMD' and tracing WHAT with SOURCE.", and with @untargeted
 * (a tool of the whole system, taking neither -p nor -c) "Tracing WHAT
 * with SOURCE... Hit Ctrl-C to end.".  Nothing on a recording (report).
 */
void tool__banner(const struct tool_opts *o, const char *what, const char *source,
		  bool untargeted);

/* Print the "Tracing ..." line (stderr), run the session, report errors.
 * 0 on success, EXIT_FAIL after printing the error. */
int tool__run(struct session *s, const struct tool_opts *o, const char *tool,
	      const char *what, const char *source);

/* As tool__run, with ready(ctx) called once tracing is live (before the
 * "Tracing" line) and round(ctx) between batches of events (at least
 * every 100 ms): periodic reports.  Either may be NULL.  @what NULL: no
 * "Tracing" line (the caller's ready says it, with tool__banner). */
int tool__run_with(struct session *s, const struct tool_opts *o, const char *tool,
		   const char *what, const char *source, void (*ready)(void *ctx),
		   void (*round)(void *ctx), void *ctx);

/* Call after printing one event's lines: keeps stdout's flushes between
 * events, so no line is ever split. */
void tool__event_done(void);

struct alloc_trace;
/* What an allocation tracer set up: "faultline TOOL: probing ... in PATH
 * (static glibc)" and its warning, if any, on stderr. */
void tool__alloc_notes(const char *tool, struct alloc_trace *at);
/* The line of alloc_trace_hooks.late: another allocator probed from now
 * on, or not, and why. */
void tool__alloc_late(const char *tool, const char *what, const char *roles, int err,
		      const char *msg);
/*
 * tool__output_status() - @status, unless stdout cannot take what is left
 * in it: a report that could not be written is no report (a full disk, a
 * closed pipe under `faultline leak ... >FILE` must not exit 0).  Flushes
 * stdout and checks the stream.
 *
 * Return: @status; EXIT_FAIL, after one line saying why, when it was
 * EXIT_OK and the output failed, but for SIGPIPE having ended the run
 * (the reader gone): main.c's one line says that.
 */
int tool__output_status(int status);

/*
 * tool__exit_status() - the exit status of a run whose own is @own
 * (EXIT_OK, EXIT_FAIL or EXIT_USAGE): with a command (-c, --), live, the
 * command's status (128+N when signal N killed it) when faultline did its
 * part, EXIT_CMD_FAIL when it failed; @own otherwise (-p, -a, a report,
 * or a command still running when tracing ended).  @s may be NULL (no
 * session yet, or a bare rung).
 */
int tool__exit_status(const struct tool_opts *o, const struct session *s, int own);

/*
 * tool__stdout_aside() - for -o -: a close-on-exec duplicate of stdout,
 * which the output is then written to, and stdout itself pointed at
 * stderr, so that nothing else (the -c command's output, a line of
 * faultline's) lands in the page or the recording.  Call it before the
 * command starts.  Return: the fd (the caller's), or -errno.
 */
int tool__stdout_aside(void);

/*
 * tool__output_open() - the stream to write an output file to: @fd when
 * it is >= 0 (tool__stdout_aside's, owned by the stream from here), else
 * @path created or truncated.  tool__output_close() closes it and gives
 * the first failed write's errno (ENOSPC, not stdio's EIO) over @err.
 * Both set "cannot write 'PATH': REASON" ("stdout" for "-") in @eb.
 */
int tool__output_open(const char *path, int fd, struct ostream **os, struct errbuf *eb);
int tool__output_close(const char *path, struct ostream *os, int err, struct errbuf *eb);

/*
 * tool__check_recording() - @path, given to report -i, is a regular file
 * (checked without opening a device or waiting on a FIFO: open_regular):
 * a report reads its recording more than once (the recorded target, then
 * the tool's run), which a pipe cannot give.  0, or -1 after one line
 * "faultline TOOL: cannot read 'PATH': it is a FIFO, ..." (or the open's
 * error).
 */
int tool__check_recording(const char *tool, const char *path);

/* What @path is when it is not a regular file, for a message: "a FIFO",
 * "a directory", "a device", "a socket", with @nofollow "a symbolic link,
 * which is not followed" (lstat), else what it points to. */
const char *tool__file_kind(const char *path, bool nofollow);

/* Print an error of a setup step: "faultline TOOL: message". Returns EXIT_FAIL. */
int tool__fail(const char *tool, const struct errbuf *eb, int err);

/*
 * tool__perf_note() - one line on stderr when a live session's kernel
 * lacks a bit of perf_event_attr its side-band is made of (the dummy
 * event, PERF_SAMPLE_IDENTIFIER, mmap2, comm_exec: before 3.12 and 3.16),
 * naming each with what faultline does instead; nothing otherwise.
 */
void tool__perf_note(const char *tool, const struct session *s);

#endif
