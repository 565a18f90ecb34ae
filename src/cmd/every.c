/*
 * every: interval reports on the session's clock (see every.h).  A live
 * round that comes late does not make a burst of short intervals; a
 * replay's rounds come with records only, so the intervals of a gap
 * between two were reported live, empty, and are reported so again.
 */
#include "cmd/every.h"

double every__duration(double secs, unsigned long count)
{
	/* Beyond the longest duration (1e7 s) a deadline would overflow its
	 * nanoseconds: run until stopped, as good as forever. */
	if (count && secs * (double)count <= 1e7)
		return secs * (double)count;
	return 0;
}

void every__ready(struct every *e)
{
	e->next_ns = session__now(e->s) + (uint64_t)(e->secs * 1e9);
}

void every__round(struct every *e)
{
	uint64_t now = session__now(e->s), step = (uint64_t)(e->secs * 1e9);
	bool replay = session__replaying(e->s);

	/* The first round starts the clock, when every__ready was not
	 * called: at most one round (100 ms) after tracing began. */
	if (!e->next_ns) {
		e->next_ns = now + step;
		return;
	}

	while (now >= e->next_ns && (!e->count || e->printed + 1 < e->count)) {
		e->report(e->ctx);
		e->printed++;
		e->next_ns += step;
		if (!replay)
			while (e->next_ns <= now)
				e->next_ns += step;
	}
	if (replay && e->count && e->printed + 1 >= e->count && now >= e->next_ns)
		session__stop(e->s);
}

void every__final(struct every *e)
{
	e->report(e->ctx);
	e->printed++;
}
