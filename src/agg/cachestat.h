/*
 * cachestat: page-cache hits, misses and dirties, counted from whichever
 * event source the "cache" ladder chose, for `faultline cache` (BCC
 * cachestat: one system-wide row per interval) and `faultline cachetop`
 * (BCC cachetop: one row per process).
 *
 * Each rung sees different events, so each has its own raw tallies and
 * its own formula to turn them into HITS/MISSES/DIRTIES (cache_tally__row):
 *
 *   kprobe:*   calls of folio_mark_accessed / filemap_add_folio /
 *              folio_account_dirtied (or __folio_mark_dirty) /
 *              mark_buffer_dirty, or the pre-5.16 page names: BCC's own
 *              formula, counting calls (a large folio counts once), but
 *              DIRTIES from the account-dirtied hook, one per page.
 *   tracepoint filemap:mm_filemap_get_pages page ranges (read accesses),
 *              filemap:mm_filemap_add_to_page_cache pages by folio order
 *              (misses), writeback:writeback_dirty_folio pages by the
 *              order its add showed (dirties).
 *   vmstat     /proc/vmstat pgpgin (misses) and nr_dirtied (dirties),
 *              /proc/PID/io rchar (accesses): an approximation.
 *
 * The event interpretation that needs state across events (a read() seen
 * as several overlapping ranges; the order of a dirtied folio, known only
 * from its add) lives in struct cache_tracker, which is pure and unit
 * tested.  struct cache_source ties a rung to a session (or to /proc) and
 * keeps the tallies of the current interval, in total and per process.
 */
#ifndef FAULTLINE_CACHESTAT_H
#define FAULTLINE_CACHESTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "agg/every.h"
#include "lib/errbuf.h"

struct session;

/* Which formula turns a tally into a row: one per kind of rung. */
enum cache_formula {
	CACHE_FORMULA_KPROBE,		/* BCC's, over function-call counts */
	CACHE_FORMULA_TRACEPOINT,	/* pages, write-path adds taken out */
	CACHE_FORMULA_VMSTAT,		/* procfs deltas */
};

/*
 * Raw counts of one interval (all rungs use the same struct; each fills
 * what it sees).  Kprobe rung: calls.  Other rungs: pages.
 */
struct cache_tally {
	uint64_t accesses;	/* mark_accessed calls / read pages / rchar pages */
	uint64_t adds;		/* add-to-page-cache calls / pages added / pages read in */
	uint64_t dirties;	/* account_dirtied calls / pages dirtied */
	uint64_t write_adds;	/* tracepoint: pages added and dirtied in the interval */
	uint64_t buffer_dirties; /* kprobe: mark_buffer_dirty calls */
};

/* What is printed.  Never negative, whatever the raw counts did. */
struct cache_row {
	uint64_t hits, misses, dirties;
	double ratio;		/* hits / (hits + misses) in percent, 0 with no access */
	double read_hit_pct;	/* cachetop READ_HIT% */
	double write_hit_pct;	/* cachetop WRITE_HIT% (0 where the rung cannot tell) */
};

/**
 * cache_tally__row() - HITS/MISSES/DIRTIES of @t under @formula
 *
 * All formulas clamp as BCC cachestat does: misses and accesses below 0
 * become 0, and when misses exceed accesses (readahead of one interval
 * read in the next) misses become the accesses and hits 0.
 */
void cache_tally__row(const struct cache_tally *t, enum cache_formula formula,
		      struct cache_row *r);

/* cache_tally__add() - @dst += @src, member by member. */
void cache_tally__add(struct cache_tally *dst, const struct cache_tally *src);

/* cache_formula__of_rung() - the formula of a "cache" ladder rung key. */
enum cache_formula cache_formula__of_rung(const char *rung_key);

/*
 * cache_tracker: state of the tracepoint rung's event interpretation.
 */
struct cache_tracker;

/** cache_tracker__new() - empty tracker owned by the caller (cache_tracker__free). 0 / -ENOMEM. */
int cache_tracker__new(struct cache_tracker **out);
/** cache_tracker__free() - release @t; NULL is allowed. */
void cache_tracker__free(struct cache_tracker *t);

/**
 * cache_tracker__read() - pages a mm_filemap_get_pages event adds to the accesses
 * @tid:   thread that read
 * @index: first page of the range, @last: last page (inclusive)
 * @pages: receives the pages to count
 *
 * filemap_read() calls filemap_get_pages() once per batch of folios, and
 * each call reports the whole remainder of the request (pos .. end of the
 * read) again.  A call that continues the previous one of the same thread
 * (same file, same end, later start) is therefore counted as 0: the first
 * call of a read() already counted its whole range.
 *
 * Return: 0 or -ENOMEM.
 */
int cache_tracker__read(struct cache_tracker *t, uint32_t tid, uint64_t dev, uint64_t ino,
			uint64_t index, uint64_t last, uint64_t *pages);

/**
 * cache_tracker__add() - note a mm_filemap_add_to_page_cache event
 * @pages: receives 1 << @order
 *
 * The folio's order is remembered by (@ino, @index) for a later dirty
 * event, which does not carry it.  At most CACHE_TRACKER_MAX_FOLIOS folios
 * are remembered: past that the memory is cleared and older folios count
 * one page when dirtied.  Return: 0 or -ENOMEM.
 */
int cache_tracker__add(struct cache_tracker *t, uint64_t ino, uint64_t index, unsigned int order,
		       uint64_t *pages);
#define CACHE_TRACKER_MAX_FOLIOS (1u << 20)

/**
 * cache_tracker__dirty() - pages of a writeback_dirty_folio/_page event
 * @pages:      receives 1 << order of the folio's add, 1 if its add was not seen
 * @write_miss: receives whether the folio was added in this interval and
 *              not dirtied before (a write that created the page: its add
 *              is taken out of the misses)
 *
 * Return: 0 or -ENOMEM.
 */
int cache_tracker__dirty(struct cache_tracker *t, uint64_t ino, uint64_t index, uint64_t *pages,
			 bool *write_miss);

/** cache_tracker__next_interval() - start a new interval (for write_miss). */
void cache_tracker__next_interval(struct cache_tracker *t);

/*
 * procfs readers, split into pure parsers (unit tested) and file readers
 * below a procfs root (NULL = "/proc").
 */
struct cache_vmstat {
	uint64_t pgpgin_kb;	/* KiB read from block devices */
	uint64_t pswpin;	/* pages swapped in (part of pgpgin) */
	uint64_t nr_dirtied;	/* pages dirtied */
};
struct cache_io {
	uint64_t rchar, read_bytes, write_bytes;
};

/** cache_vmstat__parse() - fields of /proc/vmstat text; -ENOENT if pgpgin or nr_dirtied is missing. */
int cache_vmstat__parse(const char *text, struct cache_vmstat *out);
/** cache_io__parse() - fields of /proc/PID/io text; -ENOENT if one is missing. */
int cache_io__parse(const char *text, struct cache_io *out);
/** cache_meminfo__parse() - Buffers and Cached of /proc/meminfo text, in MiB; -ENOENT if missing. */
int cache_meminfo__parse(const char *text, double *buffers_mb, double *cached_mb);
/** cache_meminfo__read() - the same from <@procfs>/meminfo. 0 / -errno. */
int cache_meminfo__read(const char *procfs, double *buffers_mb, double *cached_mb);

/*
 * cache_source: one rung feeding the tallies of the current interval.
 */
struct cache_source;

/* Per-process tallies of an interval (cachetop). */
struct cache_proc {
	pid_t pid;
	struct cache_tally t;
};

/**
 * cache_source__new() - a source for rung @rung_key of the "cache" ladder
 * @per_pid: keep per-process tallies too (cachetop)
 * @pid:     only this process (and, on the vmstat rung, nothing else); 0 = all
 * @procfs:  procfs root of the vmstat rung; NULL = "/proc"
 * @out:     receives the source, owned by the caller (cache_source__free)
 *
 * Return: 0, -EINVAL for an unknown rung, -ENOMEM.
 */
int cache_source__new(const char *rung_key, bool per_pid, pid_t pid, const char *procfs,
		      struct cache_source **out);
/** cache_source__free() - release @cs; NULL is allowed.  The session is not freed. */
void cache_source__free(struct cache_source *cs);

/**
 * cache_source__attach() - add the rung's events to @s (kprobe and
 * tracepoint rungs); their callbacks fill @cs, which must outlive the run.
 * The vmstat rung adds nothing.  Return: 0 or -errno with detail in @eb.
 */
int cache_source__attach(struct cache_source *cs, struct session *s, struct errbuf *eb);

/**
 * cache_source__poll_procfs() - vmstat rung: read /proc and add the deltas
 * since the previous call to the current interval.  The first call only
 * takes the baseline.  A process first seen in a call counts from its
 * birth if it started since the previous call, else from now; one that
 * exited is forgotten (with what it did since the previous call).  Return: 0 or -errno (@eb).
 */
int cache_source__poll_procfs(struct cache_source *cs, struct errbuf *eb);

/**
 * cache_source__take() - end the interval: the tallies so far go to
 * @total and (per_pid) to *@procs / *@nprocs, and counting starts over.
 * *@procs is owned by @cs and valid until the session delivers another
 * event, or the next poll, take or free.
 * Return: 0, or the first error a callback met (-ENOMEM, -ERANGE for a
 * record without the fields it should have), which is cleared.
 */
int cache_source__take(struct cache_source *cs, struct cache_tally *total,
		       const struct cache_proc **procs, size_t *nprocs);

/**
 * cache_source__peek() - the per-process tallies of the interval so far,
 * without ending it (to learn who a pid is while it still runs).  Owned
 * by @cs, valid until the session delivers another event.
 */
void cache_source__peek(const struct cache_source *cs, const struct cache_proc **procs,
			size_t *nprocs);

/** cache_source__formula() - formula of the source's rung. */
enum cache_formula cache_source__formula(const struct cache_source *cs);

/** cache_source__bad_records() - records whose fields could not be read, since start. */
uint64_t cache_source__bad_records(const struct cache_source *cs);

/*
 * cache_run: the interval loop both commands share.  With a session (the
 * sampled rungs) the session's rounds drive it, on the session's clock
 * (session__now: a replay's intervals are the recorded run's, and the
 * end of a recording ends the run as a Ctrl-C would): call
 * cache_run__ready and cache_run__round from the session's ready and
 * round hooks, and cache_run__end once it has run.  Without (the vmstat
 * rung) cache_run__procfs is the loop: it sleeps to each interval's end
 * and polls /proc, stopping on SIGINT, SIGTERM, SIGHUP or SIGPIPE.
 */
struct cache_run_ops {
	/* Tracing is live: print headers.  May be NULL. */
	void (*ready)(void *ctx);
	/* An interval ended; @final when a signal ended the run (BCC prints
	 * that last partial row, then "Detaching...").  Take the tallies with
	 * cache_source__take().  Return nonzero to stop (no final call). */
	int (*interval)(void *ctx, struct cache_source *cs, bool final);
	/* Called every 100 ms at most: nonzero stops the run at once (a key
	 * press).  May be NULL. */
	int (*idle)(void *ctx);
	void *ctx;
};

/* The loop's state: filled by cache_run__init, owned by the caller. */
struct cache_run {
	struct cache_source *cs;
	struct session *s;
	const struct cache_run_ops *ops;
	struct every every;		/* the intervals: the session's clock, or
					 * CLOCK_MONOTONIC for the vmstat rung */
	bool final;			/* the interval reported is the last */
	bool stopped_by_us;
};

/**
 * cache_run__init() - intervals of @interval seconds until @count of them
 * (0: no limit), a signal, or an op asks to stop
 * @s: the session the source is attached to (live or a replay, not one
 *     being recorded: faultline record runs that itself), or NULL for the
 *     vmstat rung
 * @ops: kept, as @cs and @s, for the run; @r must stay where it is (its
 *       every reports to it)
 */
void cache_run__init(struct cache_run *r, struct cache_source *cs, struct session *s,
		     double interval, unsigned long count, const struct cache_run_ops *ops);
/**
 * cache_run__open() - cache_run__init with a source of its own: the
 * cache_source__new(@rung_key, @per_pid, @pid) attached to @s (NULL: the
 * vmstat rung), freed by cache_run__close (also after a failure)
 *
 * Return: 0, or -errno with detail in @eb.
 */
int cache_run__open(struct cache_run *r, const char *rung_key, bool per_pid, pid_t pid,
		    struct session *s, double interval, unsigned long count,
		    const struct cache_run_ops *ops, struct errbuf *eb);
/* The source cache_run__open made; a zeroed run is allowed. */
void cache_run__close(struct cache_run *r);
/* The session's ready hook: the first interval starts; ops->ready. */
void cache_run__ready(struct cache_run *r);
/* The session's round hook: the intervals now ended; session__stop once
 * the count is done or an op asked to stop. */
void cache_run__round(struct cache_run *r);
/* After the session ran (0): the partial interval of a run a signal or
 * the recording's end stopped.  Nothing without a session. */
void cache_run__end(struct cache_run *r);
/**
 * cache_run__procfs() - the vmstat rung's run, without a session
 *
 * Return: 0, or -errno with detail in @eb (a failed poll of /proc, no
 * memory in a callback).
 */
int cache_run__procfs(struct cache_run *r, struct errbuf *eb);

#endif
