/*
 * alloc-sample: which blocks a sampled allocation trace keeps (leak -s N),
 * how many blocks each kept one stands for, and the same rule as a
 * kernel event filter.
 *
 * Two strata, by the block's size:
 *   - a block of ALLOC_SAMPLE_WHOLE bytes or more is always kept and
 *     stands for itself: a stack holding a few large blocks is exact;
 *   - a smaller block is kept when its address is picked, one in N, and
 *     stands for N blocks (its allocation and its free agree, as both see
 *     the address).
 * Each kept block weighs the inverse of its chance of being kept, so sums
 * of weights and of weighted sizes are unbiased estimates.
 *
 * Two ways of picking an address:
 *   - HASH (user space, any allocator): Fibonacci hashing of the 16-byte
 *     granule, uniform whatever the allocator's slot sizes;
 *   - BITS (a kernel filter, glibc only): bits 7 .. 7+log2(N)-1 of the
 *     address all set.  A tracefs filter can compare a fetched bit field,
 *     not hash; glibc's chunks are 16-byte multiples placed back to back,
 *     so from bit 7 up those bits go through every value in a run of
 *     chunks of 32 to 128 bytes, where the power-of-two slots of jemalloc,
 *     tcmalloc and mimalloc share their low bits (measured by
 *     bench/sample-rule: 1 block in 14-20 kept for N = 64 from bit 4).
 *     The size comes from glibc's chunk header, the word before the
 *     block, at the return and at the free alike.
 *
 * Why strata: bench/sample-rule measured 1-in-N sampling by count alone
 * (the hash included) off by 100% and more on stacks holding 1% of perl's
 * and python3's bytes (a few large blocks each); with blocks of 1 KiB or
 * more kept whole, perl's were within 6% under glibc, jemalloc, tcmalloc
 * and mimalloc (hash) and within 6.1% under glibc (bits 7-12).
 */
#ifndef FAULTLINE_ALLOC_SAMPLE_H
#define FAULTLINE_ALLOC_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks this large or larger are never left to chance. */
#define ALLOC_SAMPLE_WHOLE 1024
/* The largest 1-in-N a command takes (leak -s, heap --sample-rate). */
#define ALLOC_SAMPLE_MAX (1u << 20)

enum alloc_sample_by {
	ALLOC_SAMPLE_HASH,
	ALLOC_SAMPLE_BITS,
};

struct alloc_sample {
	uint64_t rate;			/* N: 0 or 1 keeps every block */
	enum alloc_sample_by by;
};

/* Whether @rate can be a rule of address bits: a power of two, 2 to 2^16. */
bool alloc_sample__bits_ok(uint64_t rate);

/* Whether the rule picks @addr, one address in s->rate (every one for a
 * rate <= 1). */
bool alloc_sample__picked(const struct alloc_sample *s, uint64_t addr);

/* How many blocks the block of @size bytes at @addr stands for: 0 when it
 * is not kept; 1 for every block when s->rate <= 1. */
uint64_t alloc_sample__weight(const struct alloc_sample *s, uint64_t addr, uint64_t size);

/*
 * glibc's chunk header, as a kernel filter reads it.  The word at
 * ALLOC_SAMPLE_GLIBC_HEADER bytes from a block is its chunk's size, its
 * low 3 bits flags (bit 1: the chunk is an mmap of its own).
 */
#define ALLOC_SAMPLE_GLIBC_HEADER (-8)

/* The block's usable size (malloc_usable_size()) from the header word
 * @hsz; *@mapped tells an mmap'ed chunk (may be NULL). */
uint64_t alloc_sample__glibc_usable(uint64_t hsz, bool *mapped);

/**
 * alloc_sample__fetchargs() - tracefs fetchargs that give a filter the
 * header word and the picking bits of the block whose address is @value
 * @s:     a BITS rule
 * @value: the address as a fetcharg value: "$retval", "%di"
 * @buf:   receives "hsz=-8(%di):u64 sel=%di:b6@7/64"
 *
 * Return: 0, -EINVAL (not a BITS rule), -ENOSPC.
 */
int alloc_sample__fetchargs(const struct alloc_sample *s, const char *value, char *buf, size_t n);

/**
 * alloc_sample__filter() - the rule as a tracefs filter over those
 * fetchargs and the field @addr (the address: "ret", "ptr")
 * @buf: receives "ret != 0 && (hsz >= 1040 || sel == 63)"
 *
 * Return: 0, -EINVAL (not a BITS rule), -ENOSPC.
 */
int alloc_sample__filter(const struct alloc_sample *s, const char *addr, char *buf, size_t n);

#endif
