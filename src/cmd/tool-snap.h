/*
 * tool-snap: two things the driver (tool.c) does around any tool's run:
 * --output FILE, the report written there instead of stdout while a
 * traced command keeps stdout, and snapshots, the tool's report as it
 * stands printed while tracing goes on (on SIGUSR1, and every SECS with
 * --snapshot-every).  Only commands print: this is cmd/'s.
 */
#ifndef FAULTLINE_TOOL_SNAP_H
#define FAULTLINE_TOOL_SNAP_H

#include <stdbool.h>
#include <stdio.h>

#include "agg/every.h"

struct session;
struct ostream;
struct tool_opts;

struct tool_snap {
	const char *tool;
	const struct tool_opts *o;
	struct session *s;
	/* the tool's snapshot (struct tool.snapshot), or NULL: it has none */
	int (*fn)(void *st, struct session *s);
	void *st;
	unsigned int asked;	/* SIGUSR1's count when the run began, then seen */
	unsigned int wait;	/* rounds until the snapshot asked for; 0: none */
	unsigned int index;	/* snapshots printed */
	bool said;		/* "no snapshots" said once */
	int status;		/* a snapshot's failure: the run's exit status */
	struct every every;	/* --snapshot-every's clock */
	bool every_on;
	/* --output */
	struct ostream *out;
	FILE *stdout_was;
	const char *path;
};

/*
 * tool_snap__output() - for --output @path: the file made (0644, never
 * through a symlink; what is there truncated, and only a regular file,
 * never a FIFO, device or directory opened) and stdout pointed at it, the
 * process's file descriptor 1 left as it was, for a traced command.
 * 0, or -1 after one line "faultline TOOL: cannot write the report to
 * 'PATH': ...".
 */
int tool_snap__output(struct tool_snap *sn, const char *tool, const char *path);

/*
 * tool_snap__begin() - snapshots for a session's run: SIGUSR1 asks for
 * one (lib/stopsig), and --snapshot-every's clock on the session's.  @fn
 * NULL: a snapshot asked for is refused in one line each time.
 */
void tool_snap__begin(struct tool_snap *sn, const struct tool_opts *o, struct session *s,
		      int (*fn)(void *st, struct session *s), void *st);
/* The session's ready hook: the clock starts. */
void tool_snap__ready(struct tool_snap *sn);
/* Between batches: the snapshots asked for (or due) printed.  True when
 * one failed: the run should stop (sn->status says how it ends). */
bool tool_snap__round(struct tool_snap *sn);
/* The run is over: SIGUSR1 asks to stop again. */
void tool_snap__stop(struct tool_snap *sn);

/*
 * tool_snap__close() - --output's file closed (stdout back to fd 1's
 * stream): @status, or EXIT_FAIL after "faultline TOOL: cannot write
 * 'PATH': REASON" when a write or the close failed and @status was
 * EXIT_OK.  Nothing without --output; called again, nothing.
 */
int tool_snap__close(struct tool_snap *sn, int status);

#endif
