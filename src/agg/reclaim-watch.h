/*
 * reclaim-watch: how often, and for how long, tasks reclaimed memory
 * themselves, as cumulative counters a caller diffs like /proc/vmstat's:
 * direct reclaim (the zone's watermark: kswapd is losing) and memcg
 * reclaim (a cgroup at its limit), from the vmscan begin/end tracepoints
 * paired per thread (both fire in the reclaiming task).  For the
 * interval views (pressure) and the oom precursor timeline; reclaim(1)
 * shows each event.  A reclaim is counted, with its time, at its end; an
 * end whose begin came before tracing started is counted as unpaired.
 */
#ifndef FAULTLINE_RECLAIM_WATCH_H
#define FAULTLINE_RECLAIM_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "agg/reclaim-pair.h"
#include "lib/errbuf.h"

struct session;
struct reclaim_watch;

/* Cumulative since the watch was added; direct and memcg (the pairing
 * in agg/reclaim-pair.h), slab shrinking is not watched. */
struct reclaim_totals {
	uint64_t count[RECLAIM__COUNT];
	uint64_t ns[RECLAIM__COUNT];
	bool have[RECLAIM__COUNT];	/* the kernel has that pair of events */
	uint64_t unpaired;
};

/**
 * reclaim_watch__add() - trace direct (and, where the kernel has them,
 * memcg) reclaim in session @s
 * @out: the watch; free it with reclaim_watch__free() after the session
 *
 * Return: 0, -ENOMEM, or the session's error adding the direct pair
 * (detail in @eb).
 */
int reclaim_watch__add(struct session *s, struct reclaim_watch **out, struct errbuf *eb);

/* The totals so far; all zero for NULL. */
void reclaim_watch__totals(const struct reclaim_watch *w, struct reclaim_totals *out);

/* The memory allocation error of a handler (0 or -ENOMEM). */
int reclaim_watch__err(const struct reclaim_watch *w);

void reclaim_watch__free(struct reclaim_watch *w);

#endif
