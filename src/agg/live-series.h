/*
 * live-series: a quantity over time (the heap's live bytes, event by
 * event) in a bounded number of points, for a chart: heaptrack_gui's
 * "consumed" chart, in the flame graph page (cmd/out/heap-flame.c).
 *
 * Every change is given (time, value).  The first changes are kept as
 * they are; past LIVE_SERIES_BUCKETS of them, neighbours merge: the
 * series is cut into buckets of k consecutive changes (k doubling when
 * the buckets run out: two neighbours become one), and a bucket keeps
 * its lowest value, its highest and its last, each with its time.  So at
 * most 3 x LIVE_SERIES_BUCKETS points are drawn however long the run,
 * and what matters on such a chart survives every merge exactly: the
 * highest value and the first time it was reached (a later equal value
 * never replaces it), the lowest, and the value at the end.
 *
 * Pure: no kernel, no printing.  The memory is taken once, at
 * live_series__new: adding a change cannot fail.
 */
#ifndef FAULTLINE_LIVE_SERIES_H
#define FAULTLINE_LIVE_SERIES_H

#include <stddef.h>
#include <stdint.h>

#define LIVE_SERIES_BUCKETS 340		/* even: neighbours merge in pairs */
#define LIVE_SERIES_MAX_POINTS (3 * LIVE_SERIES_BUCKETS)

struct live_series;

struct live_point {
	uint64_t time;
	uint64_t value;
};

/* 0 or -ENOMEM. */
int live_series__new(struct live_series **out);
/* NULL is fine. */
void live_series__free(struct live_series *ls);

/* The quantity became @value at @time (times in the order they came). */
void live_series__add(struct live_series *ls, uint64_t time, uint64_t value);

/* How many changes were added. */
uint64_t live_series__changes(const struct live_series *ls);

/*
 * The points to draw, in the order the changes came, into @out (room for
 * LIVE_SERIES_MAX_POINTS): each bucket's lowest, highest and last, once
 * each (a point that is two of them is written once).  Returns how many.
 */
size_t live_series__points(const struct live_series *ls, struct live_point *out);

#endif
