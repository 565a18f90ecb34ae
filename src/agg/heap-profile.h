/*
 * heap-profile: heaptrack's questions about a heap, answered from the
 * allocations and frees as they happen (live, or replayed from a
 * recording): how many calls to allocation functions, how many of them
 * were temporary, when the heap was at its peak and which stacks held it
 * then, what was still allocated at the end, and the sizes asked for.
 *
 * The rules are heaptrack's (heaptrack_print's summary and its sections):
 * every successful allocation is a call (realloc included: its old block
 * is freed, its new one made); the live bytes are the sizes asked for; the
 * peak is the largest live total, and a stack's peak is what it held at
 * that instant; an allocation is temporary when it is freed before any
 * other allocation or free happens (heaptrack_print's test: the free is
 * of a block of the size and stack of the allocation just made), or with
 * a threshold N > 1, memray's rule: freed before N more allocations were
 * made.
 *
 * A stack's value at the peak instant is kept lazily, in O(1) per event:
 * each stack remembers when it last changed; the first change after a
 * new peak saves the value it had, so nothing walks all stacks when the
 * peak moves (heaptrack reads its file twice instead).
 *
 * Pure: no kernel, no printing.  Sites are keyed by (pid, stack id): the
 * per-stack table's (stack-table.h), which holds them.
 */
#ifndef FAULTLINE_HEAP_PROFILE_H
#define FAULTLINE_HEAP_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agg/stack-table.h"

struct heap_profile;

struct heap_totals {
	uint64_t calls;		/* successful allocations */
	uint64_t temporary;	/* of them, freed at once (see above) */
	uint64_t frees;		/* frees of blocks seen made */
	uint64_t peak_bytes;	/* the largest live total */
	uint64_t peak_time;	/* when it was first reached (event clock) */
	uint64_t live_bytes;	/* live now: at the end, what leaked */
	uint64_t live_blocks;
	uint64_t first_time, last_time;	/* of the events seen (0: none) */
};

/* @temp_threshold: 0 or 1 for heaptrack's rule, N for memray's.  0 or
 * -ENOMEM. */
int heap_profile__new(unsigned int temp_threshold, struct heap_profile **out);
/* NULL is fine. */
void heap_profile__free(struct heap_profile *hp);

/* @pid made the block [@addr, +@size) at @time from @stack.  0, -ENOMEM. */
int heap_profile__alloc(struct heap_profile *hp, pid_t pid, uint64_t addr, uint64_t size,
			uint32_t stack, uint64_t time);
/* The block @addr of @pid, made from @stack with @size, was freed. */
void heap_profile__release(struct heap_profile *hp, pid_t pid, uint64_t addr, uint64_t size,
			   uint32_t stack, uint64_t time);

/*
 * The allocation tracer's hooks (alloc_trace_hooks .made, .freed, .gone, with
 * the heap_profile as their ctx): the blocks of the malloc family go to
 * heap_profile__alloc() and __release(), not the program's own mmap
 * regions, which heaptrack does not see either.  The first error of an
 * allocation (-ENOMEM) is kept for heap_profile__error().
 */
struct alloc_rec;
struct sample;
void heap_profile__made(void *hp, const struct sample *smp, const struct alloc_rec *r);
void heap_profile__freed(void *hp, const struct sample *smp, const struct alloc_rec *r);
/* .gone: a block its process held when it exec'd is no longer live, nor
 * leaked; not a free (not counted as one, never temporary). */
void heap_profile__gone(void *hp, const struct alloc_rec *r, uint64_t time);
/*
 * Blocks sampled by @s (heap --sample-rate, agg/alloc-sample.h): each one
 * the hooks see stands for as many blocks as the rule says (calls, bytes,
 * live and leaked blocks, the sizes' counts, peaks), 0 for one the rule
 * did not keep; temporary allocations are not counted (the events
 * between two kept ones are not seen).  @s is kept, not copied; NULL:
 * every block is itself.
 */
struct alloc_sample;
void heap_profile__set_sample(struct heap_profile *hp, const struct alloc_sample *s);

/* 0, or the first error heap_profile__made() met. */
int heap_profile__error(const struct heap_profile *hp);

const struct heap_totals *heap_profile__totals(const struct heap_profile *hp);

/* The live bytes after each allocation and free (and block gone at an
 * exec), at its time: agg/live-series.h, its highest point the peak. */
struct live_series;
const struct live_series *heap_profile__series(const struct heap_profile *hp);

/*
 * The sites (one per (pid, stack) that allocated), their peaks resolved,
 * in no particular order, into *@out (the caller frees it): calls,
 * temporary, bytes, peak, and leaked (bytes live now) and leaked_blocks.
 * 0, -ENOMEM.
 */
int heap_profile__sites(const struct heap_profile *hp, struct stack_site **out, size_t *n);

/* Requested sizes and how many calls asked for each, ascending by size,
 * into *@sizes and *@counts (the caller frees both).  0, -ENOMEM. */
int heap_profile__histogram(const struct heap_profile *hp, uint64_t **sizes, uint64_t **counts,
			    size_t *n);

#endif
