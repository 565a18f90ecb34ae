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
 *			rung of the tool's fallback ladder (compat/ladder.c)
 *	add_events	the rung's events, hooks and handlers
 *	-- record stops here: the recording session runs once for all tools --
 *	before_run	headers
 *	run		session__run (or the tool's own loop, for a rung with
 *			no session), ready and round hooks
 *	report		the tool's results and exit status
 *	fini		the tool's allocations
 *
 * so no tool knows which of the three commands runs it, beyond what its
 * tool_opts' mode says of the session (recording or replaying).
 */
#ifndef FAULTLINE_TOOL_H
#define FAULTLINE_TOOL_H

#include <stddef.h>

#include "cmd/tool-opts.h"

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

struct tool {
	const char *name;
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
	 * may set *@ladder (default: the ladder named as the tool) and *@what
	 * (default: .what).  NULL: the defaults. */
	void (*variant)(const void *st, const char **ladder, const char **what);
	/*
	 * Add @rung's events to @s (NULL for the bare rung), described by
	 * @label.  0; -errno with @eb set; or 1 after printing why not.
	 */
	int (*add_events)(void *st, struct session *s, const char *rung, const char *label,
			  struct errbuf *eb);
	void (*before_run)(void *st);	/* may be NULL: headers, to stdout */
	void (*ready)(void *st);	/* may be NULL: after the banner */
	void (*round)(void *st);	/* may be NULL: between batches */
	/* The bare rung's loop, run when there is no session (set with
	 * .bare_rung); every other run is session__run with the hooks above.
	 * It says tracing is live itself, with tool__banner (cmd/tool-opts.h).
	 * 0 or -errno with @eb set. */
	int (*run)(void *st, struct session *s, struct errbuf *eb);
	/* After a run that succeeded: print the results; the exit status. */
	int (*report)(void *st, struct session *s);
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

#endif
