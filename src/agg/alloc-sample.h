/*
 * alloc-sample: which blocks a sampled allocation trace keeps (leak -s N)
 * and how many blocks each kept one stands for.
 *
 * Two strata, by the block's size:
 *   - a block of ALLOC_SAMPLE_WHOLE bytes or more is always kept and
 *     stands for itself: a stack holding a few large blocks is exact;
 *   - a smaller block is kept when a hash of its address picks it, one in
 *     N, and stands for N blocks (its allocation and its free agree, as
 *     both see the address).
 * Each kept block weighs the inverse of its chance of being kept, so sums
 * of weights and of weighted sizes are unbiased estimates.
 *
 * Why: bench/sample-rule measured 1-in-N sampling by count alone (the hash
 * included) off by 100% and more on stacks holding 1% of perl's and
 * python3's bytes (a few large blocks each); with blocks of 1 KiB or more
 * kept whole, perl's were within 6% under glibc, jemalloc, tcmalloc and
 * mimalloc.
 */
#ifndef FAULTLINE_ALLOC_SAMPLE_H
#define FAULTLINE_ALLOC_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

/* Blocks this large or larger are never left to chance. */
#define ALLOC_SAMPLE_WHOLE 1024

/* Whether the hash of @addr picks it, one address in @rate (every one
 * for @rate <= 1). */
bool alloc_sample__picked(uint64_t rate, uint64_t addr);

/* How many blocks the block of @size bytes at @addr stands for under
 * @rate: 0 when it is not kept; 1 for every block when @rate <= 1. */
uint64_t alloc_sample__weight(uint64_t rate, uint64_t addr, uint64_t size);

#endif
