/*
 * reclaim-pair: how long each reclaim a thread did took.
 *
 * The vmscan tracepoints report a reclaim twice, both in the reclaiming
 * task: a begin, then an end with the pages it reclaimed
 * (mm_vmscan_direct_reclaim_begin/end, mm_vmscan_memcg_reclaim_begin/end,
 * and mm_shrink_slab_start/end for the slab shrinking inside either).
 * An end belongs to its thread's last begin of the same kind, or to a
 * begin from before tracing started: then it is counted as unpaired and
 * has no length.  This module keeps that rule, once, for reclaim(1), the
 * timeline and reclaim-watch (pressure, oom --timeline); callers decode
 * the events and do the printing.
 */
#ifndef FAULTLINE_RECLAIM_PAIR_H
#define FAULTLINE_RECLAIM_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct reclaim_pair;

enum reclaim_kind { RECLAIM_DIRECT, RECLAIM_MEMCG, RECLAIM_SLAB, RECLAIM__COUNT };

/* Cumulative since the pairing began: paired ends, their nanoseconds and
 * pages by kind, and ends without a begin (all kinds). */
struct reclaim_sums {
	uint64_t count[RECLAIM__COUNT];
	uint64_t ns[RECLAIM__COUNT];
	uint64_t pages[RECLAIM__COUNT];
	uint64_t unpaired;
};

/* 0 or -ENOMEM. */
int reclaim_pair__new(struct reclaim_pair **out);
void reclaim_pair__free(struct reclaim_pair *rp);

/* @tid began a reclaim of kind @k at @time (ns); a begin replaces an
 * earlier one left without its end.  0 or -ENOMEM. */
int reclaim_pair__begin(struct reclaim_pair *rp, pid_t tid, enum reclaim_kind k, uint64_t time);

/*
 * reclaim_pair__end - @tid ended a reclaim of kind @k at @time
 * @pages: what the end event says it reclaimed (0 when it does not say)
 * @ns: set to the reclaim's length (0 for an end before its begin)
 *
 * True when it ends a begin, which it consumes; false (counted unpaired,
 * @ns untouched) when there was none.
 */
bool reclaim_pair__end(struct reclaim_pair *rp, pid_t tid, enum reclaim_kind k, uint64_t time,
		       uint64_t pages, uint64_t *ns);

/* The sums so far; all zero for NULL. */
void reclaim_pair__sums(const struct reclaim_pair *rp, struct reclaim_sums *out);

#endif
