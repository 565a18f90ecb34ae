/*
 * test-alloc-sample: leak -s's rule (agg/alloc-sample.c) on address runs
 * shaped like allocators' (a size class's slots back to back, power-of-
 * two slots, page-aligned large blocks): large blocks always kept whole,
 * small ones one in N whatever the stride, and the weighted sums
 * unbiased.
 */
#include <stdint.h>

#include "../../src/agg/alloc-sample.h"
#include "check.h"

/* Kept blocks and their weights' sum over @n slots of @stride bytes
 * from @base, blocks of @size bytes. */
static void run(uint64_t rate, uint64_t base, uint64_t stride, uint64_t size, uint64_t n,
		uint64_t *kept, uint64_t *wsum)
{
	*kept = *wsum = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t w = alloc_sample__weight(rate, base + i * stride, size);

		*kept += w != 0;
		*wsum += w;
	}
}

static void test_strata(void)
{
	uint64_t kept, wsum;

	/* Without -s: everything, weight 1. */
	run(1, 0x555555550010ULL, 48, 32, 1000, &kept, &wsum);
	CHECK_EQ_U64(kept, 1000);
	CHECK_EQ_U64(wsum, 1000);
	/* Large blocks (glibc's mmap'ed ones at page + 16, page-aligned
	 * ones) are all kept, each standing for itself. */
	run(64, 0x7f0000000010ULL, 0x101000, 1 << 20, 1000, &kept, &wsum);
	CHECK_EQ_U64(kept, 1000);
	CHECK_EQ_U64(wsum, 1000);
	run(64, 0x7f0000000000ULL, 4096, ALLOC_SAMPLE_WHOLE, 1000, &kept, &wsum);
	CHECK_EQ_U64(kept, 1000);
	/* Just below the threshold: sampled. */
	run(64, 0x7f0000000000ULL, 4096, ALLOC_SAMPLE_WHOLE - 1, 100000, &kept, &wsum);
	CHECK(kept < 100000 / 32);
	/* A block and its free agree: the pick is the address's alone. */
	for (uint64_t a = 0x1000; a < 0x1000 + 64 * 1000; a += 16)
		CHECK(!!alloc_sample__weight(64, a, 100) == alloc_sample__picked(64, a));
}

/* One in N of the small blocks, within 5%, for the strides that defeat
 * a rule of address bits: glibc's 48-byte chunks, power-of-two slots of
 * 16 to 4096 bytes (jemalloc, tcmalloc, mimalloc), glibc's 1040-byte
 * chunks; and the weights sum to the number of blocks within 5%. */
static void test_uniform(void)
{
	static const uint64_t strides[] = { 48, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 1040 };
	static const uint64_t rates[] = { 10, 16, 64 };
	const uint64_t n = 640000;

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (size_t i = 0; i < sizeof(strides) / sizeof(strides[0]); i++) {
			uint64_t kept, wsum, want = n / rates[r];

			run(rates[r], 0x55d4c3a25000ULL + 0x2a0, strides[i], 24, n, &kept, &wsum);
			CHECK(kept >= want - want / 20 && kept <= want + want / 20);
			CHECK(wsum >= n - n / 20 && wsum <= n + n / 20);
		}
	}
}

int main(void)
{
	test_strata();
	test_uniform();
	return check_done("test-alloc-sample");
}
