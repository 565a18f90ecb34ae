/*
 * alloc-sample: the sampling rule of leak -s; see alloc-sample.h.
 */
#include <errno.h>
#include <stdio.h>

#include "agg/alloc-sample.h"

/* The lowest bit of an address the kernel's rule looks at.  glibc's
 * chunks are 16-byte multiples, and a run of one size class's chunks
 * side by side keeps the bits below its stride's lowest set bit fixed:
 * from bit 7, runs of 32-, 64- and 128-byte chunks (blocks of up to 120
 * bytes, most of them) go through every value; 256 and 512 do not. */
#define BITS_LO 7

static unsigned int log2_rate(uint64_t rate)
{
	return (unsigned int)(63 - __builtin_clzll(rate));
}

bool alloc_sample__bits_ok(uint64_t rate)
{
	return rate >= 2 && rate <= (1u << 16) && !(rate & (rate - 1));
}

bool alloc_sample__picked(const struct alloc_sample *s, uint64_t addr)
{
	if (s->rate <= 1)
		return true;
	if (s->by == ALLOC_SAMPLE_BITS)
		return (addr >> BITS_LO & (s->rate - 1)) == s->rate - 1;
	/* Fibonacci hashing of the 16-byte granule: neighbouring blocks of
	 * one size class land far apart. */
	return ((addr >> 4) * 0x9e3779b97f4a7c15ULL >> 32) % s->rate == 0;
}

uint64_t alloc_sample__weight(const struct alloc_sample *s, uint64_t addr, uint64_t size)
{
	if (s->rate <= 1 || size >= ALLOC_SAMPLE_WHOLE)
		return 1;
	return alloc_sample__picked(s, addr) ? s->rate : 0;
}

uint64_t alloc_sample__glibc_usable(uint64_t hsz, bool *mapped)
{
	uint64_t chunk = hsz & ~(uint64_t)7;
	bool mm = hsz & 2;

	if (mapped)
		*mapped = mm;
	/* In the heap the next chunk's first word is this block's too. */
	return chunk > 16 ? chunk - (mm ? 16 : 8) : 0;
}

int alloc_sample__fetchargs(const struct alloc_sample *s, const char *value, char *buf, size_t n)
{
	int w;

	if (s->by != ALLOC_SAMPLE_BITS || !alloc_sample__bits_ok(s->rate))
		return -EINVAL;
	w = snprintf(buf, n, "hsz=%d(%s):u64 sel=%s:b%u@%u/64", ALLOC_SAMPLE_GLIBC_HEADER, value,
		     value, log2_rate(s->rate), BITS_LO);
	return w < 0 || (size_t)w >= n ? -ENOSPC : 0;
}

int alloc_sample__filter(const struct alloc_sample *s, const char *addr, char *buf, size_t n)
{
	int w;

	if (s->by != ALLOC_SAMPLE_BITS || !alloc_sample__bits_ok(s->rate))
		return -EINVAL;
	/* A usable size of ALLOC_SAMPLE_WHOLE or more is a chunk of 16 more
	 * (chunks are 16-byte multiples; the flags add at most 7). */
	w = snprintf(buf, n, "%s != 0 && (hsz >= %d || sel == %llu)", addr, ALLOC_SAMPLE_WHOLE + 16,
		     (unsigned long long)(s->rate - 1));
	return w < 0 || (size_t)w >= n ? -ENOSPC : 0;
}
