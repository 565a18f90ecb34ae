/*
 * heap-growth: the heap over time, as heaptrack's "consumed" chart and
 * bytehound's leak filter ask it: per interval, what each stack and the
 * process held at the interval's end; then which stacks keep growing.
 *
 * The caller cuts the run into intervals (by time, or by a number of
 * allocation calls) and closes each one (heap_growth__close) before the
 * first event of the next, so an interval's figures are exact: what was
 * live after its last event.  Values are kept sparsely, one point per
 * stack per interval in which it changed, so a run of many intervals
 * costs what changed, not stacks x intervals.
 *
 * The growth rule (stated in faultline-heap(1)): over K >= 3 closed
 * intervals, with v[k] a stack's bytes at the end of interval k,
 *   rises, falls  intervals whose end is above, below the one before;
 *   growth        v[K-1] - v[0];
 * and the stack is growing when growth > 0, it rose in at least 2
 * intervals and at least twice as often as it fell, and its highest end
 * (the first interval to reach it) lies in the last quarter of the run:
 * it peaked late, as bytehound's "first peaked at least T after the start"
 * asks, and rose nearly monotonically getting there.  A stack that fills
 * a cache and then holds it steady peaks early and is not growing; a slow
 * leak is.  The ranking: growing stacks by growth, then the others by
 * their highest end, then by (pid, stack).
 *
 * Pure: no kernel, no printing.  Stacks are keyed by (pid, stack id).
 */
#ifndef FAULTLINE_HEAP_GROWTH_H
#define FAULTLINE_HEAP_GROWTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct heap_growth;

struct growth_interval {
	uint64_t end_time;	/* as given to heap_growth__close */
	uint64_t calls;		/* allocation calls up to its end, from the start */
	uint64_t bytes;		/* the process's (every stack's) bytes at its end */
	uint64_t peak;		/* the most bytes live at once within it */
};

struct growth_site {
	pid_t pid;
	uint32_t stack;
	bool growing;
	int64_t growth;		/* v[K-1] - v[0] */
	uint32_t rises, falls;
	uint64_t first, last;	/* v[0], v[K-1] */
	uint64_t highest;	/* max v[k] */
	size_t highest_at;	/* the first k with v[k] == highest */
	uint64_t calls;		/* allocation calls it made */
	size_t index;		/* for heap_growth__series */
};

/* 0 or -ENOMEM. */
int heap_growth__new(struct heap_growth **out);
/* NULL is fine. */
void heap_growth__free(struct heap_growth *hg);

/* @pid's @stack made (@call: an allocation call) or released @delta
 * bytes.  0, -ENOMEM. */
int heap_growth__change(struct heap_growth *hg, pid_t pid, uint32_t stack, int64_t delta,
			bool call);
/* Allocation calls since the last close (to cut intervals by calls). */
uint64_t heap_growth__open_calls(const struct heap_growth *hg);
/* Close the interval in progress at @end_time.  0, -ENOMEM. */
int heap_growth__close(struct heap_growth *hg, uint64_t end_time);

/*
 * Or let it cut the intervals: every @interval_ns from the start, or (when
 * @calls) every @calls calls, an interval ending just before the call
 * that starts the next.  Then heap_growth__before before each event, at
 * @ns since the start (@call: it is a call), closes the intervals that end
 * before it, and heap_growth__end closes the rest at the end of the run,
 * @end_ns since the start: by time, every interval that ended before it
 * (those without an event too), then the one it ended in, at @end_ns; by
 * calls, the last, at @end_ns.  No interval ends after the run (nor
 * before its last event).  0, -ENOMEM.
 */
void heap_growth__cut(struct heap_growth *hg, uint64_t interval_ns, uint64_t calls);
int heap_growth__before(struct heap_growth *hg, uint64_t ns, bool call);
int heap_growth__end(struct heap_growth *hg, uint64_t end_ns);

size_t heap_growth__intervals(const struct heap_growth *hg);
const struct growth_interval *heap_growth__interval(const struct heap_growth *hg, size_t k);

/*
 * The stacks, ranked (see above), into *@out (the caller frees it).
 * Call after the last close.  0, -ENOMEM.
 */
int heap_growth__rank(const struct heap_growth *hg, struct growth_site **out, size_t *n);
/*
 * The same rule and order on rates instead of levels: with c[k] a stack's
 * count at the end of interval k (c[-1] = 0), v[k] = c[k] - c[k-1], what
 * it added within interval k, over the first @K intervals only (@K at most
 * heap_growth__intervals).  "growing" then reads: its rate rose.
 */
int heap_growth__rank_rate(const struct heap_growth *hg, size_t K, struct growth_site **out,
			   size_t *n);
/* @site's bytes at the end of each interval, into @v[0..intervals). */
void heap_growth__series(const struct heap_growth *hg, const struct growth_site *site,
			 uint64_t *v);

#endif
