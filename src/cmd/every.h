/*
 * every: the reports of a tool that prints every interval seconds
 * ("interval [count]", as BCC's swapin and slabratetop), on the session's
 * clock, so that a replay reports as the live run did.  The last report
 * of a counted run comes after the session ends (every__final), so that
 * the events of its final round are in it.
 */
#ifndef FAULTLINE_EVERY_H
#define FAULTLINE_EVERY_H

#include <stdint.h>

#include "trace/session.h"

struct every {
	struct session *s;
	double secs;			/* > 0 */
	unsigned long count;		/* reports wanted; 0: until stopped */
	unsigned long printed;
	uint64_t next_ns;
	void (*report)(void *ctx);	/* prints one interval and starts the next */
	void *ctx;
};

/* The session's duration for @count reports of @secs (0: until stopped). */
double every__duration(double secs, unsigned long count);
/* Once tracing is live (the session's ready hook); without it, the first
 * every__round() starts the clock. */
void every__ready(struct every *e);
/* After each batch of events (the round hook): the reports now due; in a
 * replay, session__stop() once the count is done. */
void every__round(struct every *e);
/* After the session: the interval in progress when it stopped. */
void every__final(struct every *e);

#endif
