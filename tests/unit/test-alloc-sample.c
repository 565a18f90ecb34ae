/*
 * test-alloc-sample: leak -s's rule (agg/alloc-sample.c) on address runs
 * shaped like allocators' (a size class's slots back to back, power-of-
 * two slots, page-aligned large blocks): large blocks always kept whole,
 * small ones one in N whatever the stride, and the weighted sums
 * unbiased.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../src/agg/alloc-sample.h"
#include "check.h"

/* Kept blocks and their weights' sum over @n slots of @stride bytes
 * from @base, blocks of @size bytes. */
static void run_by(enum alloc_sample_by by, uint64_t rate, uint64_t base, uint64_t stride,
		   uint64_t size, uint64_t n, uint64_t *kept, uint64_t *wsum)
{
	struct alloc_sample s = { .rate = rate, .by = by };

	*kept = *wsum = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t w = alloc_sample__weight(&s, base + i * stride, size);

		*kept += w != 0;
		*wsum += w;
	}
}

static void run(uint64_t rate, uint64_t base, uint64_t stride, uint64_t size, uint64_t n,
		uint64_t *kept, uint64_t *wsum)
{
	run_by(ALLOC_SAMPLE_HASH, rate, base, stride, size, n, kept, wsum);
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
	for (uint64_t a = 0x1000; a < 0x1000 + 64 * 1000; a += 16) {
		struct alloc_sample hs = { 64, ALLOC_SAMPLE_HASH }, bs = { 64, ALLOC_SAMPLE_BITS };

		CHECK(!!alloc_sample__weight(&hs, a, 100) == alloc_sample__picked(&hs, a));
		CHECK(!!alloc_sample__weight(&bs, a, 100) == alloc_sample__picked(&bs, a));
	}
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

/* The kernel's rule: bits 7.. all set.  One in N of glibc's chunks
 * (16-byte multiples back to back: 48, 32, 64, 128, 80, 1040 bytes...),
 * within 5%; power-of-two slots of 256 bytes and more keep bit 7 fixed
 * and a run of them is picked twice as often or never (why the rule
 * starts at bit 7, and why it is glibc's only). */
static void test_bits(void)
{
	static const uint64_t strides[] = { 48, 32, 64, 128, 80, 96, 1040, 4112 };
	const uint64_t n = 640000;
	uint64_t kept, wsum;

	for (size_t i = 0; i < sizeof(strides) / sizeof(strides[0]); i++) {
		uint64_t want = n / 64;

		run_by(ALLOC_SAMPLE_BITS, 64, 0x55d4c3a252a0ULL, strides[i], 24, n, &kept, &wsum);
		CHECK(kept >= want - want / 20 && kept <= want + want / 20);
	}
	run_by(ALLOC_SAMPLE_BITS, 64, 0x7f0000000000ULL, 256, 24, n, &kept, &wsum);
	CHECK_EQ_U64(kept, 0);
	CHECK(alloc_sample__bits_ok(2) && alloc_sample__bits_ok(64) && alloc_sample__bits_ok(65536));
	CHECK(!alloc_sample__bits_ok(0) && !alloc_sample__bits_ok(1) && !alloc_sample__bits_ok(10) &&
	      !alloc_sample__bits_ok(131072));
}

/* What the kernel is given, and the header read back. */
static void test_kernel_text(void)
{
	struct alloc_sample bs = { 64, ALLOC_SAMPLE_BITS }, hs = { 64, ALLOC_SAMPLE_HASH };
	char buf[128];
	bool mapped;

	CHECK_EQ_U64(alloc_sample__fetchargs(&bs, "$retval", buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "hsz=-8($retval):u64 sel=$retval:b6@7/64"));
	CHECK_EQ_U64(alloc_sample__filter(&bs, "ptr", buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "ptr != 0 && (hsz >= 1040 || sel == 63)"));
	bs.rate = 16;
	CHECK_EQ_U64(alloc_sample__fetchargs(&bs, "%di", buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "hsz=-8(%di):u64 sel=%di:b4@7/64"));
	CHECK_EQ_U64(alloc_sample__fetchargs(&hs, "%di", buf, sizeof(buf)), (uint64_t)-EINVAL);
	CHECK_EQ_U64(alloc_sample__filter(&bs, "ret", buf, 8), (uint64_t)-ENOSPC);
	/* malloc(32): a 48-byte chunk in use after one in use (flag 1). */
	CHECK_EQ_U64(alloc_sample__glibc_usable(48 | 1, &mapped), 40);
	CHECK(!mapped);
	/* 1 MiB in its own mmap: 1 MiB + 4 KiB, flag 2. */
	CHECK_EQ_U64(alloc_sample__glibc_usable(1052672 | 2, &mapped), 1052656);
	CHECK(mapped);
	/* A thread arena's chunk (flag 4) of 1040 bytes: kept whole. */
	CHECK_EQ_U64(alloc_sample__glibc_usable(1040 | 5, NULL), 1032);
	CHECK_EQ_U64(alloc_sample__glibc_usable(0, NULL), 0);
}

int main(void)
{
	test_strata();
	test_uniform();
	test_bits();
	test_kernel_text();
	return check_done("test-alloc-sample");
}
