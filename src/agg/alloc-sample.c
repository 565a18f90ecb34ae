/*
 * alloc-sample: the sampling rule of leak -s; see alloc-sample.h.
 */
#include "agg/alloc-sample.h"

bool alloc_sample__picked(uint64_t rate, uint64_t addr)
{
	/* Fibonacci hashing of the 16-byte granule: neighbouring blocks of
	 * one size class land far apart. */
	return rate <= 1 || ((addr >> 4) * 0x9e3779b97f4a7c15ULL >> 32) % rate == 0;
}

uint64_t alloc_sample__weight(uint64_t rate, uint64_t addr, uint64_t size)
{
	if (rate <= 1 || size >= ALLOC_SAMPLE_WHOLE)
		return 1;
	return alloc_sample__picked(rate, addr) ? rate : 0;
}
