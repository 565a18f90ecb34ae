/*
 * tool: the life of a tracing tool, the same for its command line, for
 * faultline record and for faultline report (see tool.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/lost.h"
#include "cmd/status.h"
#include "cmd/tool.h"
#include "cmd/tool-opts.h"
#include "ladder.h"
#include "lib/errbuf.h"
#include "trace/session.h"

struct tool_run {
	const struct tool *t;
	struct tool_opts o;
	struct session *s;
	const char *rung, *label;
	const char *ladder, *what;	/* t's, or its variant's */
	void *st;			/* t's state, its init ran */
	uint64_t lost_said;		/* events lost, as last said during the run */
	uint64_t lost_said_ns;		/* when */
	bool cut_said;			/* a cut recording's caveat is out */
	struct status *status;		/* the line on a terminal, or NULL */
};

void tool_run__free(struct tool_run *r)
{
	if (!r)
		return;
	status__free(r->status);
	if (r->t->fini)
		r->t->fini(r->st);
	session__free(r->s);
	free(r->st);
	free(r);
}

/* The session and the rung; 0, or -1 after printing why. */
static int start(struct tool_run *r)
{
	const struct tool *t = r->t;

	r->ladder = t->name;
	r->what = t->what;
	if (t->variant)
		t->variant(r->st, &r->ladder, &r->what);
	r->o.name = t->name;	/* heap's messages are heap's, on leak's ladder */
	if (t->bare_rung)
		return tool__start_bare(&r->o, r->ladder, t->bare_rung, &r->s, &r->rung, &r->label);
	r->s = tool__start(&r->o, r->ladder, &r->rung, &r->label);
	return r->s ? 0 : -1;
}

/* The counters rung refused (a line printed): true. */
static bool counters_refused(const struct tool_run *r)
{
	const struct tool_counters *c = &r->t->counters;
	const char *loses = c->loses;

	if (!c->rung || !ladder__is(r->rung, c->rung))
		return false;
	if (!loses)
		loses = r->o.sess.cmd ? "the counts are not limited to the command"
				      : "the counts are not limited to -p";
	return tool__counters_rung(&r->o, r->t->name, c->source, c->what, loses);
}

int tool__setup(const struct tool *t, const struct tool_mode *mode, int argc, char **argv,
		struct tool_run **run)
{
	struct errbuf eb = { "" };
	struct tool_run *r;
	int err, ret = EXIT_FAIL;

	*run = NULL;
	r = calloc(1, sizeof(*r));
	if (r)
		r->st = calloc(1, t->size ? t->size : 1);
	if (!r || !r->st) {
		free(r);
		fprintf(stderr, "faultline %s: out of memory\n", t->name);
		return EXIT_FAIL;
	}
	r->t = t;
	err = t->init(r->st, &r->o, mode, argc, argv);
	if (err) {
		if (err == 1)
			ret = EXIT_OK;
		else if (err == -EINVAL)
			ret = EXIT_USAGE;
		else if (err == TOOL_INIT_FAILED)
			ret = EXIT_FAIL;
		else
			ret = tool__fail(t->name, NULL, err);
		goto fail;
	}
	if (start(r) || counters_refused(r))
		goto fail;
	err = t->add_events(r->st, r->s, r->rung, r->label, &eb);
	if (err < 0)
		tool__fail(t->name, &eb, err);
	if (err)
		goto fail;
	*run = r;
	return EXIT_OK;
fail:
	ret = tool__exit_status(&r->o, NULL, ret);
	tool_run__free(r);
	return ret;
}

/*
 * A recording cut short is said before any result, in the output's own
 * format (stderr has it from the replay): when the replay starts for a
 * file read ahead, when it ends for a pipe.  Folded output is FlameGraph's
 * input: nothing there.
 */
static void say_cut(struct tool_run *r)
{
	uint64_t bytes = 0;
	double at = 0;

	if (r->cut_said || !session__replay_cut(r->s, &at, &bytes) || r->o.folded)
		return;
	r->cut_said = true;
	if (r->o.json)
		printf("{\"type\":\"truncated\",\"ends_at_s\":%.3f,\"cut_bytes\":%" PRIu64
		       ",\"message\":\"the recording ends early at %.3f s (%" PRIu64 " bytes of a "
		       "record cut off): no END record\"}\n", at, bytes, at, bytes);
	else
		printf("WARNING: the recording ends early at %.3f s (%" PRIu64 " bytes of a record "
		       "cut off): no END record\n", at, bytes);
}

/* The status line, when due: the session's figures and the tool's. */
static void status_tick(struct tool_run *r)
{
	char head[256] = "";
	uint64_t now;

	if (!r->status)
		return;
	now = session__now(r->s);
	if (!status__due(r->status, now))
		return;
	if (r->t->headline)
		r->t->headline(r->st, head, sizeof(head));
	status__show(r->status, now, session__samples(r->s), session__lost(r->s), head);
}

/*
 * A live run on a terminal keeps a status line there from now on; not one
 * that runs a command (-c, --): the command writes to the same terminal
 * whenever it likes, out of faultline's reach, and its lines would be
 * glued to the status line's ("...in 187 allocationshi").
 */
static void status_begin(struct tool_run *r)
{
	if (tool__replaying(&r->o) || r->o.sess.cmd || !status__wanted(r->o.quiet) ||
	    status__new(STDERR_FILENO, session__now(r->s), session__samples(r->s), &r->status))
		return;
	if (status__take_streams(r->status, status__stdout_shared())) {
		status__free(r->status);
		r->status = NULL;
	}
	status_tick(r);
}

/* Tracing is live: the tool's ready hook, then the line that says so. */
static void on_ready(void *ctx)
{
	struct tool_run *r = ctx;

	say_cut(r);
	if (r->t->ready)
		r->t->ready(r->st);
	/* No .what: the tool's ready said its own line (swapin's). */
	if (r->what)
		tool__banner(&r->o, r->what, r->label, r->t->flags & TOOL_NO_TARGET);
	status_begin(r);
}

/*
 * Events lost while the tool runs are said as they happen, before what the
 * round prints next (an interval's rows, the events that follow): at most
 * once a second, with the total so far.  The tools' reports say the total
 * again, before the results it shortens.
 */
static void say_lost(struct tool_run *r)
{
	uint64_t lost = session__lost(r->s), now = session__now(r->s);

	if (lost <= r->lost_said || (r->lost_said && now - r->lost_said_ns < 1000000000ULL))
		return;
	lost__warn(r->s, r->t->name, lost, "so far, a ring buffer was full, and what is printed "
		   "from here on is short of them");
	r->lost_said = lost;
	r->lost_said_ns = now;
}

static void on_round(void *ctx)
{
	struct tool_run *r = ctx;

	say_lost(r);
	if (r->t->round)
		r->t->round(r->st);
	status_tick(r);
}

int tool__drive(struct tool_run *r)
{
	const struct tool *t = r->t;
	struct errbuf eb = { "" };
	int err;

	if (t->before_run)
		t->before_run(r->st);
	fflush(stdout);
	/* A tool with a bare rung has its own loop there only. */
	if (!r->s) {
		err = t->run(r->st, r->s, &eb);
		if (err)
			return tool__fail(t->name, &eb, err);
	} else if (tool__run_with(r->s, &r->o, t->name, NULL, r->label, on_ready, on_round, r)) {
		return EXIT_FAIL;
	}
	status__end(r->status);	/* gone before the report */
	if (r->s)
		say_cut(r);
	return t->report(r->st, r->s);
}

int tool__main(const struct tool *t, const struct tool_mode *mode, int argc, char **argv)
{
	struct tool_run *r;
	int ret;

	ret = tool__setup(t, mode, argc, argv, &r);
	if (!r)
		return ret;
	ret = tool__drive(r);
	/* Checked before the command's status takes its place. */
	ret = tool__exit_status(&r->o, r->s, tool__output_status(ret));
	tool_run__free(r);
	return ret;
}
