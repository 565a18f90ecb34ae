/*
 * every: the clock of the reports a tool prints every interval seconds
 * ("interval [count]", --interval; as BCC's swapin, slabratetop,
 * cachestat), for every tool that has them.  On the session's clock, so
 * that a replay reports at the recorded run's times; without a session
 * (cachestat's vmstat rung) on CLOCK_MONOTONIC.  It prints nothing: it
 * says when, the tool's report callback prints.  May call trace/session.
 *
 * The intervals are a grid from the start (every__ready, else the first
 * round): a live round that comes late does not make a burst of short
 * intervals (the boundaries it passed are skipped); a replay's rounds
 * come with records only, so the intervals of a gap between two were
 * reported live, empty, and are reported so again.
 *
 * Where the last of @count reports comes, two ways:
 *   default        after the session ends (every__final), so that the
 *                  events of its final round are in it; a live run ends
 *                  by its duration (every__duration), a replay where the
 *                  count is due (session__stop).
 *   last_in_round  in the round it is due, which then stops the session
 *                  (session__stop); every__final prints nothing after.
 * In both, every__final prints the interval in progress of a run stopped
 * before its count (Ctrl-C, a -c command's exit, the recording's end).
 */
#ifndef FAULTLINE_EVERY_H
#define FAULTLINE_EVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/session.h"

/* Prints one interval, and starts the next.  Nonzero ends the reports
 * (the run stops; every__final prints nothing). */
typedef int (*every_report_fn)(void *ctx);

struct every {
	struct session *s;		/* NULL: CLOCK_MONOTONIC, nothing to stop */
	double secs;			/* > 0 */
	unsigned long count;		/* reports wanted; 0: until stopped */
	bool last_in_round;		/* see above */
	unsigned long printed;
	uint64_t next_ns;		/* the interval in progress ends; 0: not started */
	bool done;			/* no more reports: the count, or report said so */
	every_report_fn report;
	void *ctx;
};

/* The session's duration for @count reports of @secs (0: until stopped). */
double every__duration(double secs, unsigned long count);
/* Reports of @secs seconds on @s's clock (NULL: CLOCK_MONOTONIC), @count
 * of them (0: until stopped), the last after the session (see above). */
void every__init(struct every *e, struct session *s, double secs, unsigned long count,
		 every_report_fn report, void *ctx);
/* Now on the clock (nanoseconds). */
uint64_t every__now(const struct every *e);
/* Once tracing is live (the session's ready hook): the first interval
 * starts.  Without it, the first every__round() starts the clock. */
void every__ready(struct every *e);
/* After each batch of events (the round hook): the reports now due;
 * session__stop() when the run is done (see above). */
void every__round(struct every *e);
/* every__round on a given clock: true when the run should stop. */
bool every__tick(struct every *e, uint64_t now_ns, bool replay);
/* After the session: the interval in progress when it stopped, unless
 * the reports are done (nothing on an every never every__init'ed: a
 * setup that failed first). */
void every__final(struct every *e);

#endif
