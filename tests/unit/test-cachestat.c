/*
 * test-cachestat: the page-cache counting of src/agg/cachestat.c, without the
 * kernel: BCC's formula and clamps per rung, the tracker's de-duplication
 * of filemap_get_pages ranges and folio orders for dirties, and the procfs
 * parsers on text copied from a 6.18 machine.
 */
#include <errno.h>
#include <string.h>

#include "agg/cachestat.h"
#include "check.h"

static void test_formulas(void)
{
	struct cache_tally t;
	struct cache_row r;

	/* BCC cachestat: total = mpa - mbd, misses = apcl - apd; DIRTIES
	 * are apd, the pages dirtied (mbd doubles on no-journal ext4). */
	t = (struct cache_tally){ .accesses = 1000, .adds = 300, .dirties = 100, .buffer_dirties = 50 };
	cache_tally__row(&t, CACHE_FORMULA_KPROBE, &r);
	CHECK_EQ_U64(r.misses, 200);
	CHECK_EQ_U64(r.hits, 750);
	CHECK_EQ_U64(r.dirties, 100);
	CHECK(r.ratio > 78.94 && r.ratio < 78.95);	/* 750 / 950 */

	/* Negative differences clamp to 0, never wrap. */
	t = (struct cache_tally){ .accesses = 10, .adds = 5, .dirties = 20, .buffer_dirties = 30 };
	cache_tally__row(&t, CACHE_FORMULA_KPROBE, &r);
	CHECK_EQ_U64(r.hits, 0);
	CHECK_EQ_U64(r.misses, 0);
	CHECK_EQ_U64(r.dirties, 20);
	CHECK(r.ratio == 0.0);

	/* More misses than accesses: misses become the accesses, hits 0. */
	t = (struct cache_tally){ .accesses = 100, .adds = 400 };
	cache_tally__row(&t, CACHE_FORMULA_TRACEPOINT, &r);
	CHECK_EQ_U64(r.misses, 100);
	CHECK_EQ_U64(r.hits, 0);

	/* Tracepoint: pages a write added are not read misses. */
	t = (struct cache_tally){ .accesses = 16384, .adds = 16384 + 512, .dirties = 600, .write_adds = 512 };
	cache_tally__row(&t, CACHE_FORMULA_TRACEPOINT, &r);
	CHECK_EQ_U64(r.misses, 16384);
	CHECK_EQ_U64(r.hits, 0);
	CHECK_EQ_U64(r.dirties, 600);
	CHECK(r.write_hit_pct > 14.66 && r.write_hit_pct < 14.67);	/* 88 / 600 */

	/* Warm read. */
	t = (struct cache_tally){ .accesses = 16384 };
	cache_tally__row(&t, CACHE_FORMULA_TRACEPOINT, &r);
	CHECK_EQ_U64(r.hits, 16384);
	CHECK(r.ratio == 100.0 && r.read_hit_pct == 100.0);

	t = (struct cache_tally){ .accesses = 50, .adds = 20, .dirties = 7 };
	cache_tally__row(&t, CACHE_FORMULA_VMSTAT, &r);
	CHECK_EQ_U64(r.hits, 30);
	CHECK_EQ_U64(r.misses, 20);
	CHECK_EQ_U64(r.dirties, 7);
	CHECK(r.write_hit_pct == 0.0);

	CHECK(cache_formula__of_rung("kprobe:folio") == CACHE_FORMULA_KPROBE);
	CHECK(cache_formula__of_rung("kprobe:page") == CACHE_FORMULA_KPROBE);
	CHECK(cache_formula__of_rung("tracepoint") == CACHE_FORMULA_TRACEPOINT);
	CHECK(cache_formula__of_rung("vmstat") == CACHE_FORMULA_VMSTAT);
}

static void test_reads(void)
{
	struct cache_tracker *t = NULL;
	uint64_t p = 99, sum = 0;

	CHECK(cache_tracker__new(&t) == 0);
	/* One read() of 256 pages in four batches, as 6.18 reports it:
	 * every call repeats the rest of the request. */
	CHECK(cache_tracker__read(t, 7, 0xfe00000, 42, 0, 255, &p) == 0);
	CHECK_EQ_U64(p, 256);
	CHECK(cache_tracker__read(t, 7, 0xfe00000, 42, 31, 255, &p) == 0);
	CHECK_EQ_U64(p, 0);
	/* Another thread's read of the same range is its own access. */
	CHECK(cache_tracker__read(t, 8, 0xfe00000, 42, 31, 255, &p) == 0);
	CHECK_EQ_U64(p, 225);
	CHECK(cache_tracker__read(t, 7, 0xfe00000, 42, 62, 255, &p) == 0);
	CHECK_EQ_U64(p, 0);
	/* The next read() of thread 7: a new end. */
	CHECK(cache_tracker__read(t, 7, 0xfe00000, 42, 256, 511, &p) == 0);
	CHECK_EQ_U64(p, 256);
	/* The same range read again from its start is a new read. */
	CHECK(cache_tracker__read(t, 7, 0xfe00000, 42, 256, 511, &p) == 0);
	CHECK_EQ_U64(p, 256);
	/* Same end, other file: new. */
	CHECK(cache_tracker__read(t, 7, 0xfe00000, 43, 300, 511, &p) == 0);
	CHECK_EQ_U64(p, 212);
	/* A range that ends before it starts counts nothing. */
	CHECK(cache_tracker__read(t, 9, 1, 1, 10, 9, &p) == 0);
	CHECK_EQ_U64(p, 0);

	/* 64 reads of 256 pages, each in 9 batches: exactly 16384 pages. */
	for (uint64_t r = 0; r < 64; r++)
		for (uint64_t b = 0; b < 9; b++) {
			CHECK(cache_tracker__read(t, 100, 5, 77, r * 256 + b * 29, r * 256 + 255, &p) == 0);
			sum += p;
		}
	CHECK_EQ_U64(sum, 16384);
	cache_tracker__free(t);
}

static void test_folios(void)
{
	struct cache_tracker *t = NULL;
	uint64_t p = 0;
	bool miss = true;

	CHECK(cache_tracker__new(&t) == 0);
	CHECK(cache_tracker__add(t, 42, 0, 8, &p) == 0);
	CHECK_EQ_U64(p, 256);
	CHECK(cache_tracker__add(t, 42, 256, 0, &p) == 0);
	CHECK_EQ_U64(p, 1);
	/* Dirtying the order-8 folio added in this interval: a write miss. */
	CHECK(cache_tracker__dirty(t, 42, 0, &p, &miss) == 0);
	CHECK_EQ_U64(p, 256);
	CHECK(miss);
	/* Dirtied again after writeback: cached already, a write hit. */
	CHECK(cache_tracker__dirty(t, 42, 0, &p, &miss) == 0);
	CHECK_EQ_U64(p, 256);
	CHECK(!miss);
	/* A folio whose add was not seen counts one page. */
	CHECK(cache_tracker__dirty(t, 43, 0, &p, &miss) == 0);
	CHECK_EQ_U64(p, 1);
	CHECK(!miss);
	/* Added in an earlier interval: dirtying it is a write hit. */
	cache_tracker__next_interval(t);
	CHECK(cache_tracker__dirty(t, 42, 256, &p, &miss) == 0);
	CHECK_EQ_U64(p, 1);
	CHECK(!miss);
	/* Orders that cannot be read as one page. */
	CHECK(cache_tracker__add(t, 44, 0, 200, &p) == 0);
	CHECK_EQ_U64(p, 1);
	cache_tracker__free(t);
	cache_tracker__free(NULL);
}

static void test_parsers(void)
{
	static const char vmstat[] =
		"nr_free_pages 5904233\nnr_dirty 12\nnr_dirtied 1519440\nnr_written 1510099\n"
		"pgpgin 2934188\npgpgout 6370260\npswpin 7\npswpout 0\n";
	static const char io[] =
		"rchar: 67108864\nwchar: 0\nsyscr: 70\nsyscw: 0\nread_bytes: 65536\n"
		"write_bytes: 4096\ncancelled_write_bytes: 0\n";
	static const char meminfo[] =
		"MemTotal:       24684000 kB\nMemFree:        23617000 kB\nBuffers:            2048 kB\n"
		"Cached:           333312 kB\nSwapCached:            0 kB\n";
	struct cache_vmstat vm;
	struct cache_io pio;
	double b = -1, c = -1;

	CHECK(cache_vmstat__parse(vmstat, &vm) == 0);
	CHECK_EQ_U64(vm.pgpgin_kb, 2934188);
	CHECK_EQ_U64(vm.pswpin, 7);
	CHECK_EQ_U64(vm.nr_dirtied, 1519440);
	CHECK(cache_vmstat__parse("pgpgin 5\n", &vm) == -ENOENT);
	/* "nr_dirty" must not be read as "nr_dirtied" or the other way. */
	CHECK(cache_vmstat__parse("nr_dirty 3\npgpgin 1\n", &vm) == -ENOENT);

	CHECK(cache_io__parse(io, &pio) == 0);
	CHECK_EQ_U64(pio.rchar, 67108864);
	CHECK_EQ_U64(pio.read_bytes, 65536);
	CHECK_EQ_U64(pio.write_bytes, 4096);
	CHECK(cache_io__parse("rchar: 1\n", &pio) == -ENOENT);

	CHECK(cache_meminfo__parse(meminfo, &b, &c) == 0);
	CHECK(b == 2.0 && c == 325.5);
	CHECK(cache_meminfo__parse("MemTotal: 1 kB\n", &b, &c) == -ENOENT);
}

static void test_source(void)
{
	struct cache_source *cs = NULL;

	CHECK(cache_source__new("bogus", false, 0, NULL, &cs) == -EINVAL);
	CHECK(cs == NULL);
	CHECK(cache_source__new("tracepoint", true, 0, NULL, &cs) == 0);
	CHECK(cache_source__formula(cs) == CACHE_FORMULA_TRACEPOINT);
	cache_source__free(cs);
	cache_source__free(NULL);
}

int main(void)
{
	test_formulas();
	test_reads();
	test_folios();
	test_parsers();
	test_source();
	return check_done("test-cachestat");
}
