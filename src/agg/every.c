/*
 * every: interval reports on the session's clock (see every.h).  May call
 * trace/session and the C library's clock.
 */
#include <time.h>

#include "agg/every.h"

double every__duration(double secs, unsigned long count)
{
	/* Beyond the longest duration (1e7 s) a deadline would overflow its
	 * nanoseconds: run until stopped, as good as forever. */
	if (count && secs * (double)count <= 1e7)
		return secs * (double)count;
	return 0;
}

void every__init(struct every *e, struct session *s, double secs, unsigned long count,
		 every_report_fn report, void *ctx)
{
	*e = (struct every){ .s = s, .secs = secs, .count = count, .report = report, .ctx = ctx };
}

uint64_t every__now(const struct every *e)
{
	struct timespec ts;

	if (e->s)
		return session__now(e->s);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t step_ns(const struct every *e)
{
	uint64_t step = (uint64_t)(e->secs * 1e9);

	return step ? step : 1;
}

void every__ready(struct every *e)
{
	e->next_ns = every__now(e) + step_ns(e);
}

bool every__tick(struct every *e, uint64_t now, bool replay)
{
	uint64_t step = step_ns(e);
	/* The reports a round may print: all @count when the last is the
	 * round's, else all but the last, which every__final prints. */
	unsigned long held = e->last_in_round ? 0 : 1;

	if (e->done)
		return false;
	/* The first round starts the clock, when every__ready was not
	 * called: at most one round (100 ms) after tracing began. */
	if (!e->next_ns) {
		e->next_ns = now + step;
		return false;
	}
	while (now >= e->next_ns && (!e->count || e->printed + held < e->count)) {
		/* A replay's gap of hours is thousands of reports in one
		 * round: a stop (Ctrl-C) ends them where they are. */
		if (e->s && session__stopping(e->s))
			return false;
		if (e->report(e->ctx)) {
			e->done = true;
			return true;
		}
		e->printed++;
		e->next_ns += step;
		if (!replay)
			while (e->next_ns <= now)
				e->next_ns += step;
	}
	if (!e->count || e->printed + held < e->count)
		return false;
	if (e->last_in_round) {
		e->done = true;
		return true;
	}
	/* A replay ends where the count does, as the live session did at
	 * its duration. */
	return replay && now >= e->next_ns;
}

void every__round(struct every *e)
{
	if (!e->s)
		return;
	if (every__tick(e, session__now(e->s), session__replaying(e->s)))
		session__stop(e->s);
}

void every__final(struct every *e)
{
	if (e->done || !e->report)
		return;
	e->report(e->ctx);
	e->printed++;
}
