/*
 * mem-series: the memory-pressure indicators as rows (one per interval:
 * stall microseconds, counts and reclaim time in it, MemAvailable at its
 * end) from samples of procstat.h and reclaim-watch.h, a ring of the
 * last samples, and which indicator left its baseline first: the oom
 * precursor timeline, the memory chapter's "an OOM kill is the end of a
 * sequence that could have been seen".
 *
 * Baseline rule: the first MEM_SERIES_BASELINE rows of a series are its
 * baseline; a counter leaves it at the first later row above the
 * baseline's largest value (a stall by more than MEM_SERIES_STALL_MIN_US:
 * the system's PSI moves by tens of microseconds a second on an idle
 * machine here), MemAvailable at the first row more than 1% (at least
 * MEM_SERIES_AVAIL_DROP_KB) below the baseline's smallest: other tasks
 * move it by tens of MiB a second on a shared 24 GiB machine.  Simple on
 * purpose: the answer can be checked by eye against the rows printed.
 */
#ifndef FAULTLINE_MEM_SERIES_H
#define FAULTLINE_MEM_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/procstat.h"
#include "agg/reclaim-watch.h"

#define MEM_SERIES_BASELINE 3
#define MEM_SERIES_AVAIL_DROP_KB 4096
#define MEM_SERIES_STALL_MIN_US 1000

enum mem_col {
	MC_PSI_SOME_US, MC_PSI_FULL_US, MC_CG_SOME_US, MC_CG_FULL_US,
	MC_MEMAVAIL_KB,
	MC_MAJFLT, MC_PSWPIN, MC_PSWPOUT,
	MC_DIRECT, MC_DIRECT_NS, MC_MEMCG, MC_MEMCG_NS,
	MC_COMPACT, MC_OOM,
	MC__COUNT
};

/* One sample: the /proc and cgroup counters, and reclaim totals when
 * traced (have_reclaim). */
struct mem_point {
	struct mem_sample s;
	struct reclaim_totals r;
	bool have_reclaim;
};

struct mem_row {
	uint64_t time_ns;		/* end of the interval (the later sample) */
	uint64_t len_ns;
	uint64_t v[MC__COUNT];
	bool have[MC__COUNT];
};

/* JSON name ("cg_some_us", "memcg_reclaims") and column header. */
const char *mem_col__name(enum mem_col c);
const char *mem_col__header(enum mem_col c);

/* The interval from @then to @now. */
void mem_row__diff(const struct mem_point *now, const struct mem_point *then, struct mem_row *out);

/**
 * mem_rows__departure() - the indicator that left its baseline first
 * @rows: @n rows in time order
 * @col:  receives it
 * @row:  receives the index of the row where it did
 *
 * Return: false when none did (or there are too few rows for a baseline).
 */
bool mem_rows__departure(const struct mem_row *rows, size_t n, enum mem_col *col, size_t *row);

struct mem_series;

/* A ring of the last @cap samples.  Return: 0 or -ENOMEM. */
int mem_series__new(size_t cap, struct mem_series **out);
void mem_series__free(struct mem_series *ms);
/* Append (the oldest goes when full). */
void mem_series__push(struct mem_series *ms, const struct mem_point *p);

/**
 * mem_series__rows() - the rows between samples from @since_ns on,
 * ending with @last (a sample taken now, not pushed) when not NULL
 * @out: receives a malloc'ed array the caller frees; *@n its length
 *
 * Return: 0 or -ENOMEM.
 */
int mem_series__rows(const struct mem_series *ms, uint64_t since_ns, const struct mem_point *last,
		     struct mem_row **out, size_t *n);

#endif
