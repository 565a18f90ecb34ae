/*
 * test-alloc-track: the rules of `faultline leak` without a kernel: which
 * return pairs with which entry (by stack pointer), which calls are inner,
 * what each completed call does, and the table of outstanding blocks and
 * regions (including deletion inside long probe runs and munmap splits),
 * fork copies, and the address index behind `faults --by-alloc`, checked
 * case by case and against a brute-force reference over random operations.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg/alloc-track.h"
#include "check.h"

static struct alloc_call call(enum alloc_fn fn, uint64_t size, uint64_t old, uint64_t sp)
{
	return (struct alloc_call){ .fn = fn, .size = size, .old = old, .sp = sp };
}

static void test_pairing(void)
{
	struct alloc_track *t;
	struct alloc_call c, got;

	CHECK(alloc_track__new(&t) == 0);
	/* realloc(NULL, 10) calls malloc(10): inner, and returns pair by sp. */
	c = call(ALLOC_REALLOC, 10, 0, 0x7000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(!c.inner);
	c = call(ALLOC_MALLOC, 10, 0, 0x6f00);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(c.inner);
	CHECK(alloc_track__busy(t, 1));
	CHECK(!alloc_track__busy(t, 2));
	CHECK(alloc_track__leave(t, 1, 0x6f08, &got) == 0);
	CHECK(got.fn == ALLOC_MALLOC && got.inner);
	CHECK(alloc_track__leave(t, 1, 0x7008, &got) == 0);
	CHECK(got.fn == ALLOC_REALLOC && !got.inner && got.size == 10);
	CHECK(!alloc_track__busy(t, 1));

	/* A return whose entry was filtered out pairs with nothing, and
	 * leaves the outer entry in place. */
	c = call(ALLOC_REALLOC, 5000, 0, 0x7000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(alloc_track__leave(t, 1, 0x6f08, &got) == -ENOENT);
	CHECK(alloc_track__leave(t, 1, 0x7008, &got) == 0 && got.size == 5000);

	/* An entry never returned (longjmp): dropped by a shallower return,
	 * and by a new call at the same depth. */
	c = call(ALLOC_MALLOC, 1, 0, 0x7000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	c = call(ALLOC_MALLOC, 2, 0, 0x6000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(alloc_track__leave(t, 1, 0x7008, &got) == 0 && got.size == 1);
	CHECK(!alloc_track__busy(t, 1));
	c = call(ALLOC_MALLOC, 3, 0, 0x5000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	c = call(ALLOC_MALLOC, 4, 0, 0x5000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(!c.inner);
	CHECK(alloc_track__leave(t, 1, 0x5008, &got) == 0 && got.size == 4);
	CHECK(!alloc_track__busy(t, 1));

	/* posix_memalign's stored address lands in its own call. */
	c = call(ALLOC_POSIX_MEMALIGN, 256, 0, 0x4000);
	CHECK(alloc_track__enter(t, 3, &c) == 0);
	alloc_track__note_ptr(t, 3, ALLOC_POSIX_MEMALIGN, 0xabc0);
	CHECK(alloc_track__leave(t, 3, 0x4008, &got) == 0 && got.ptr == 0xabc0);

	/* Threads are separate; forget_thread empties one. */
	c = call(ALLOC_MALLOC, 9, 0, 0x3000);
	CHECK(alloc_track__enter(t, 4, &c) == 0);
	CHECK(alloc_track__leave(t, 5, 0x3008, &got) == -ENOENT);
	c = call(ALLOC_MALLOC, 10, 0, 0x3000);
	CHECK(alloc_track__enter(t, 6, &c) == 0);
	alloc_track__forget_thread(t, 4);
	alloc_track__forget_thread(t, 99);	/* never seen: nothing */
	CHECK(alloc_track__leave(t, 4, 0x3008, &got) == -ENOENT);
	/* Threads after the forgotten one moved in the table: still there. */
	CHECK(alloc_track__leave(t, 6, 0x3008, &got) == 0 && got.size == 10);
	CHECK(alloc_track__busy(t, 1) == false);
	c = call(ALLOC_MALLOC, 11, 0, 0x3000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(alloc_track__leave(t, 1, 0x3008, &got) == 0 && got.size == 11);

	/* A return lost from a shallow call: every deeper call after it
	 * would look nested inside it, until events are reported lost and
	 * the calls in flight are dropped. */
	c = call(ALLOC_MALLOC, 12, 0, 0x3000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	c = call(ALLOC_MALLOC, 13, 0, 0x2000);
	CHECK(alloc_track__enter(t, 7, &c) == 0);
	c = call(ALLOC_MALLOC, 14, 0, 0x2000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(c.inner);
	CHECK(alloc_track__drop_calls(t) == 3);
	CHECK(!alloc_track__busy(t, 1) && !alloc_track__busy(t, 7));
	CHECK(alloc_track__leave(t, 1, 0x2008, &got) == -ENOENT);
	c = call(ALLOC_MALLOC, 15, 0, 0x2000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(!c.inner);
	CHECK(alloc_track__leave(t, 1, 0x2008, &got) == 0 && got.size == 15);
	CHECK(alloc_track__drop_calls(t) == 0);
	alloc_track__free(t);
}

static void test_effects(void)
{
	struct alloc_effect e;
	struct alloc_call c;

	c = call(ALLOC_MALLOC, 40, 0, 0);
	alloc_call__effect(&c, 0x1000, true, &e);
	CHECK(e.allocates && e.addr == 0x1000 && e.size == 40 && !e.frees);
	alloc_call__effect(&c, 0, true, &e);
	CHECK(e.failed && !e.allocates);

	c = call(ALLOC_REALLOC, 100, 0, 0);	/* realloc(NULL, 100) */
	alloc_call__effect(&c, 0x2000, true, &e);
	CHECK(e.allocates && !e.frees && e.size == 100);
	c = call(ALLOC_REALLOC, 1000, 0x2000, 0);
	alloc_call__effect(&c, 0x3000, true, &e);
	CHECK(e.frees && e.freed == 0x2000 && e.allocates && e.addr == 0x3000 && e.size == 1000);
	alloc_call__effect(&c, 0, true, &e);	/* failed: old block stays */
	CHECK(e.failed && !e.frees);
	c = call(ALLOC_REALLOC, 0, 0x3000, 0);	/* realloc(p, 0) */
	alloc_call__effect(&c, 0, true, &e);
	CHECK(e.frees && e.freed == 0x3000 && !e.allocates);
	alloc_call__effect(&c, 0, false, &e);
	CHECK(e.failed && !e.frees);

	c = call(ALLOC_POSIX_MEMALIGN, 256, 0, 0);
	c.ptr = 0x4040;
	alloc_call__effect(&c, 0, true, &e);
	CHECK(e.allocates && e.addr == 0x4040 && e.size == 256);
	alloc_call__effect(&c, 12, true, &e);	/* ENOMEM */
	CHECK(e.failed);

	c = call(ALLOC_MMAP, 8192, 0, 0);
	alloc_call__effect(&c, (uint64_t)-12, true, &e);
	CHECK(e.failed);
	c = call(ALLOC_MREMAP, 16384, 0x10000, 0);
	c.old_size = 8192;
	alloc_call__effect(&c, 0x20000, true, &e);
	CHECK(e.frees && e.freed == 0x10000 && e.freed_size == 8192 && e.addr == 0x20000 &&
	      e.size == 16384);

	c = call(ALLOC_BRK, 0x5000, 0x4000, 0);	/* break 0x4000 -> 0x5000 */
	alloc_call__effect(&c, 0x5000, true, &e);
	CHECK(e.allocates && e.addr == 0x4000 && e.size == 0x1000);
	c = call(ALLOC_BRK, 0x4800, 0x5000, 0);
	alloc_call__effect(&c, 0x4800, true, &e);
	CHECK(e.frees && e.freed == 0x4800 && e.freed_size == 0x800);
	c = call(ALLOC_BRK, 0, 0, 0);		/* first call seen: baseline */
	alloc_call__effect(&c, 0x4800, true, &e);
	CHECK(!e.allocates && !e.frees && !e.failed);
}

static uint64_t sum_size;
static size_t visits;

static void sum(const struct alloc_rec *r, void *ctx)
{
	(void)ctx;
	sum_size += r->size;
	visits++;
}

static void test_table(void)
{
	struct alloc_track *t;
	struct alloc_rec r = { 0 }, got;
	enum { N = 100000 };

	CHECK(alloc_track__new(&t) == 0);
	/* Many blocks of two pids at the same addresses, then every other
	 * one removed: the rest must all still be found (backward shift). */
	for (uint64_t i = 1; i <= N; i++) {
		r = (struct alloc_rec){ .addr = i * 16, .size = i, .pid = 7, .stack = 1 };
		CHECK(alloc_track__add(t, &r) == 0);
		r.pid = 8;
		CHECK(alloc_track__add(t, &r) == 0);
	}
	CHECK_EQ_U64(alloc_track__count(t), 2 * N);
	/* Bytes outstanding: twice 1 + 2 + ... + N, the peak reached by
	 * the last add (time 0 here: the records carry none). */
	CHECK_EQ_U64(alloc_track__bytes(t), (uint64_t)N * (N + 1));
	CHECK_EQ_U64(alloc_track__peak_bytes(t, NULL), (uint64_t)N * (N + 1));
	for (uint64_t i = 1; i <= N; i += 2)
		CHECK(alloc_track__remove(t, 7, i * 16, NULL) == 0);
	for (uint64_t i = 1; i <= N; i++) {
		int err = alloc_track__remove(t, 7, i * 16, &got);

		if (i % 2) {
			CHECK(err == -ENOENT);
		} else {
			CHECK(err == 0);
			CHECK_EQ_U64(got.size, i);
		}
	}
	CHECK_EQ_U64(alloc_track__count(t), N);
	CHECK(alloc_track__remove(t, 9, 16, NULL) == -ENOENT);
	/* A block at an outstanding address replaces it. */
	r = (struct alloc_rec){ .addr = 16, .size = 99, .pid = 8 };
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_EQ_U64(alloc_track__replaced(t), 1);
	CHECK_EQ_U64(alloc_track__count(t), N);
	/* pid 7 is gone, pid 8's block at 16 (1 byte) became 99. */
	CHECK_EQ_U64(alloc_track__bytes(t), (uint64_t)N * (N + 1) / 2 - 1 + 99);
	CHECK_EQ_U64(alloc_track__drop_pid(t, 8, NULL, NULL), N);
	CHECK_EQ_U64(alloc_track__count(t), 0);
	CHECK_EQ_U64(alloc_track__bytes(t), 0);
	CHECK_EQ_U64(alloc_track__peak_bytes(t, NULL), (uint64_t)N * (N + 1));
	CHECK_EQ_U64(alloc_track__peak(t), 2 * N);
	alloc_track__free(t);
}

static void test_regions(void)
{
	struct alloc_track *t;
	struct alloc_rec r = { .addr = 0x10000, .size = 0x10000, .pid = 5, .region = true };
	uint64_t when = 0;

	CHECK(alloc_track__new(&t) == 0);
	CHECK(alloc_track__add(t, &r) == 0);
	r.pid = 6;
	r.time = 7;
	CHECK(alloc_track__add(t, &r) == 0);
	/* Split the middle out of pid 5's region, then trim both ends. */
	CHECK(alloc_track__unmap(t, 5, 0x14000, 0x1000) == 0x1000);
	CHECK(alloc_track__unmap(t, 5, 0x8000, 0x9000) == 0x1000);
	CHECK(alloc_track__unmap(t, 5, 0x1f000, 0x4000) == 0x1000);
	CHECK(alloc_track__unmap(t, 5, 0x30000, 0x1000) == 0);
	sum_size = 0;
	visits = 0;
	alloc_track__foreach(t, sum, NULL);
	CHECK_EQ_U64(visits, 3);
	CHECK_EQ_U64(sum_size, 0x10000 + 0x10000 - 0x3000);
	CHECK_EQ_U64(alloc_track__bytes(t), 0x10000 + 0x10000 - 0x3000);
	CHECK_EQ_U64(alloc_track__peak_bytes(t, &when), 0x20000);
	CHECK_EQ_U64(when, 7);
	/* Both parts of the split disappear with a covering unmap. */
	CHECK(alloc_track__unmap(t, 5, 0, 0x100000) == 0x10000 - 0x3000);
	CHECK_EQ_U64(alloc_track__count(t), 1);
	CHECK_EQ_U64(alloc_track__bytes(t), 0x10000);
	alloc_track__free(t);
}

/* Leak's totals split by kind: blocks (mapped ones too) are the malloc
 * family's, regions the program's mmap or brk, and a region's parts after
 * a split keep its kind. */
static void count_kind(const struct alloc_rec *r, void *ctx)
{
	uint64_t *bytes = ctx;

	bytes[alloc_rec__kind(r)] += r->size;
}

static void test_kinds(void)
{
	static const struct alloc_rec recs[] = {
		{ .addr = 0x1000, .size = 10, .pid = 5, .fn = ALLOC_MALLOC },
		{ .addr = 0x2000, .size = 20, .pid = 5, .fn = ALLOC_REALLOC },
		{ .addr = 0x100010, .size = 200000, .pid = 5, .fn = ALLOC_MALLOC, .mapped = true },
		{ .addr = 0x200000, .size = 0x3000, .pid = 5, .fn = ALLOC_MMAP, .region = true },
		{ .addr = 0x300000, .size = 0x2000, .pid = 5, .fn = ALLOC_MREMAP, .region = true },
		{ .addr = 0x400000, .size = 0x21000, .pid = 5, .fn = ALLOC_BRK, .region = true },
	};
	struct alloc_track *t;
	uint64_t bytes[ALLOC_KIND__COUNT] = { 0 };

	CHECK(alloc_rec__kind(&recs[0]) == ALLOC_KIND_MALLOC);
	CHECK(alloc_rec__kind(&recs[1]) == ALLOC_KIND_MALLOC);
	CHECK(alloc_rec__kind(&recs[2]) == ALLOC_KIND_MALLOC);
	CHECK(alloc_rec__kind(&recs[3]) == ALLOC_KIND_MMAP);
	CHECK(alloc_rec__kind(&recs[4]) == ALLOC_KIND_MMAP);
	CHECK(alloc_rec__kind(&recs[5]) == ALLOC_KIND_BRK);
	CHECK(!strcmp(alloc_kind__name(ALLOC_KIND_MALLOC), "malloc"));
	CHECK(!strcmp(alloc_kind__name(ALLOC_KIND_MMAP), "mmap"));
	CHECK(!strcmp(alloc_kind__name(ALLOC_KIND_BRK), "brk"));
	CHECK(!strcmp(alloc_kind__name(ALLOC_KIND__COUNT), "?"));
	CHECK(alloc_track__new(&t) == 0);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		CHECK(alloc_track__add(t, &recs[i]) == 0);
	/* A hole in the mmap region and in the brk one. */
	CHECK(alloc_track__unmap(t, 5, 0x201000, 0x1000) == 0x1000);
	CHECK(alloc_track__unmap(t, 5, 0x410000, 0x1000) == 0x1000);
	alloc_track__foreach(t, count_kind, bytes);
	CHECK_EQ_U64(bytes[ALLOC_KIND_MALLOC], 10 + 20 + 200000);
	CHECK_EQ_U64(bytes[ALLOC_KIND_MMAP], 0x2000 + 0x2000);
	CHECK_EQ_U64(bytes[ALLOC_KIND_BRK], 0x20000);
	alloc_track__free(t);
}

static void test_note_map(void)
{
	struct alloc_track *t;
	struct alloc_call c, got;

	CHECK(alloc_track__new(&t) == 0);
	/* Nothing in flight: nothing noted, nothing to carry. */
	alloc_track__note_map(t, 1, 0x7f0000000000, 0x21000);
	c = call(ALLOC_MALLOC, 200000, 0, 0x6000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	CHECK(alloc_track__leave(t, 1, 0x6008, &got) == 0);
	CHECK_EQ_U64(got.map_addr, 0);
	CHECK_EQ_U64(got.map_len, 0);

	/* realloc -> malloc -> mmap: both levels get it; another thread's
	 * call does not. */
	c = call(ALLOC_REALLOC, 300000, 0x1000, 0x7000);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	c = call(ALLOC_MALLOC, 300000, 0, 0x6f00);
	CHECK(alloc_track__enter(t, 1, &c) == 0);
	c = call(ALLOC_MALLOC, 300000, 0, 0x5000);
	CHECK(alloc_track__enter(t, 2, &c) == 0);
	alloc_track__note_map(t, 1, 0x7f0000100000, 0x4a000);
	alloc_track__note_map(t, 99, 0x1234000, 0x1000);	/* never seen */
	CHECK(alloc_track__leave(t, 1, 0x6f08, &got) == 0);
	CHECK(got.inner);
	CHECK_EQ_U64(got.map_addr, 0x7f0000100000);
	CHECK_EQ_U64(got.map_len, 0x4a000);
	CHECK(alloc_track__leave(t, 1, 0x7008, &got) == 0);
	CHECK(!got.inner && got.fn == ALLOC_REALLOC);
	CHECK_EQ_U64(got.map_addr, 0x7f0000100000);
	CHECK_EQ_U64(got.map_len, 0x4a000);
	CHECK(alloc_track__leave(t, 2, 0x5008, &got) == 0);
	CHECK_EQ_U64(got.map_addr, 0);
	CHECK_EQ_U64(got.map_len, 0);
	alloc_track__free(t);
}

static struct alloc_rec blk(pid_t pid, uint64_t addr, uint64_t size, uint32_t stack)
{
	return (struct alloc_rec){ .addr = addr, .size = size, .pid = pid, .stack = stack,
				   .time = 1000 + stack, .fn = ALLOC_CALLOC, .mapped = stack & 1 };
}

/* lookup(@pid, @addr) finds the block or region at @want (size @size). */
#define CHECK_OWNER(t, p, a, want, wsize) do { \
	struct alloc_rec _o = { 0 }; \
	CHECK(alloc_track__lookup(t, p, a, &_o) == 0); \
	CHECK_EQ_U64(_o.addr, want); \
	CHECK_EQ_U64(_o.size, wsize); \
	CHECK_EQ_U64(_o.pid, (uint64_t)(p)); \
} while (0)
#define CHECK_MISS(t, p, a) do { \
	struct alloc_rec _o = { 0 }; \
	CHECK(alloc_track__lookup(t, p, a, &_o) == -ENOENT); \
} while (0)

/* What alloc_track__drop_pid() passed on. */
struct gone_count {
	size_t blocks, regions, other_pid;
};

static void count_gone(void *ctx, const struct alloc_rec *r)
{
	struct gone_count *g = ctx;

	if (r->pid != 10)
		g->other_pid++;
	else if (r->region)
		g->regions++;
	else
		g->blocks++;
}

static void test_lookup(void)
{
	struct alloc_track *t;
	struct alloc_rec r, o;
	struct gone_count gone;
	const uint64_t P = 4096;

	CHECK(alloc_track__new(&t) == 0);
	/* Blocks made before the index exists are in it once it is on. */
	r = blk(10, 0x10010, 0x20, 1);		/* A: page 0x10 */
	CHECK(alloc_track__add(t, &r) == 0);
	r = blk(10, 0x10040, 0x100, 2);		/* B: same page */
	CHECK(alloc_track__add(t, &r) == 0);
	r = blk(10, 0x10ff0, 0x20, 3);		/* C: across pages 0x10, 0x11 */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_MISS(t, 10, 0x10010);		/* index off */
	CHECK(alloc_track__index_check(t) == 0);	/* off: nothing to check */
	CHECK(alloc_track__index(t) == 0);
	CHECK(alloc_track__index(t) == 0);	/* again: nothing */
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_OWNER(t, 10, 0x10010, 0x10010, 0x20);	/* first byte */
	CHECK_OWNER(t, 10, 0x1002f, 0x10010, 0x20);	/* last byte */
	CHECK_MISS(t, 10, 0x10030);			/* one past */
	CHECK_MISS(t, 10, 0x1000f);			/* one before */
	CHECK_MISS(t, 10, 0x10000);			/* page start, no block */
	CHECK_OWNER(t, 10, 0x10040, 0x10040, 0x100);
	CHECK_OWNER(t, 10, 0x1013f, 0x10040, 0x100);
	CHECK_MISS(t, 10, 0x10140);
	CHECK_OWNER(t, 10, 0x10fff, 0x10ff0, 0x20);
	CHECK_OWNER(t, 10, 0x11000, 0x10ff0, 0x20);	/* its second page */
	CHECK_OWNER(t, 10, 0x1100f, 0x10ff0, 0x20);
	CHECK_MISS(t, 10, 0x11010);
	/* The whole record comes back. */
	memset(&o, 0, sizeof(o));
	CHECK(alloc_track__lookup(t, 10, 0x10050, &o) == 0);
	CHECK(o.stack == 2 && o.time == 1002 && o.fn == ALLOC_CALLOC && !o.mapped && !o.region);
	CHECK(alloc_track__lookup(t, 10, 0x10050, NULL) == 0);
	/* Another pid at the same address: its own blocks only. */
	CHECK_MISS(t, 11, 0x10010);
	r = blk(11, 0x10010, 8, 4);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_OWNER(t, 11, 0x10017, 0x10010, 8);
	CHECK_MISS(t, 11, 0x10018);
	CHECK_OWNER(t, 10, 0x10018, 0x10010, 0x20);

	/* Exactly 16 pages (page path), aligned and not; 17 (large path). */
	r = blk(10, 0x100000, 16 * P, 5);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_MISS(t, 10, 0xfffff);
	CHECK_OWNER(t, 10, 0x100000, 0x100000, 16 * P);
	CHECK_OWNER(t, 10, 0x100000 + 8 * P + 5, 0x100000, 16 * P);
	CHECK_OWNER(t, 10, 0x100000 + 16 * P - 1, 0x100000, 16 * P);
	CHECK_MISS(t, 10, 0x100000 + 16 * P);
	r = blk(10, 0x200800, 15 * P + 0x800, 6);	/* pages 0x200..0x20f */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_MISS(t, 10, 0x2007ff);
	CHECK_OWNER(t, 10, 0x200800, 0x200800, 15 * P + 0x800);
	CHECK_OWNER(t, 10, 0x20ffff, 0x200800, 15 * P + 0x800);
	CHECK_MISS(t, 10, 0x210000);
	r = blk(10, 0x300800, 16 * P, 7);		/* pages 0x300..0x310 */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_MISS(t, 10, 0x3007ff);
	CHECK_OWNER(t, 10, 0x300800, 0x300800, 16 * P);
	CHECK_OWNER(t, 10, 0x300800 + 8 * P + 5, 0x300800, 16 * P);	/* middle */
	CHECK_OWNER(t, 10, 0x310000, 0x300800, 16 * P);		/* 17th page */
	CHECK_OWNER(t, 10, 0x3107ff, 0x300800, 16 * P);
	CHECK_MISS(t, 10, 0x310800);
	CHECK_MISS(t, 11, 0x300800 + 8 * P);
	r = blk(10, 0x1000000, 200 * 1024 * 1024, 8);	/* 200 MiB */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_OWNER(t, 10, 0x1000000 + 123456789, 0x1000000, 200 * 1024 * 1024);
	CHECK_MISS(t, 10, 0x1000000 + 200 * 1024 * 1024);
	CHECK(alloc_track__index_check(t) == 0);

	/* Regions, and a block inside one winning over it; a size-0 block
	 * owns nothing. */
	r = (struct alloc_rec){ .addr = 0x400000, .size = 0x100000, .pid = 10, .stack = 9,
				.fn = ALLOC_MMAP, .region = true };
	CHECK(alloc_track__add(t, &r) == 0);
	r = blk(10, 0x410000, 0x40, 10);
	CHECK(alloc_track__add(t, &r) == 0);
	r = blk(10, 0x420000, 0, 11);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__lookup(t, 10, 0x410010, &o) == 0);
	CHECK(!o.region && o.addr == 0x410000 && o.stack == 10);
	CHECK(alloc_track__lookup(t, 10, 0x410040, &o) == 0);
	CHECK(o.region && o.addr == 0x400000 && o.size == 0x100000 && o.fn == ALLOC_MMAP);
	CHECK(alloc_track__lookup(t, 10, 0x420000, &o) == 0);
	CHECK(o.region && o.addr == 0x400000);
	CHECK_OWNER(t, 10, 0x400000, 0x400000, 0x100000);
	CHECK_OWNER(t, 10, 0x4fffff, 0x400000, 0x100000);
	CHECK_MISS(t, 10, 0x500000);
	CHECK_MISS(t, 10, 0x3fffff);		/* just below the region */
	CHECK_MISS(t, 11, 0x410010);
	r = blk(10, 0x500000, 0, 13);		/* size 0 outside regions */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_MISS(t, 10, 0x500000);

	/* Unmap splits the region: both halves found, the hole is not, the
	 * block inside stays (unmap touches regions only). */
	CHECK(alloc_track__unmap(t, 10, 0x480000, 0x10000) == 0x10000);
	CHECK_OWNER(t, 10, 0x47ffff, 0x400000, 0x80000);
	CHECK_MISS(t, 10, 0x480000);
	CHECK_MISS(t, 10, 0x48ffff);
	CHECK_OWNER(t, 10, 0x490000, 0x490000, 0x70000);
	CHECK_OWNER(t, 10, 0x4fffff, 0x490000, 0x70000);
	CHECK_OWNER(t, 10, 0x410000, 0x410000, 0x40);
	CHECK(alloc_track__unmap(t, 10, 0x4f0000, 0x20000) == 0x10000);	/* trim tail */
	CHECK_MISS(t, 10, 0x4fffff);
	CHECK_OWNER(t, 10, 0x4effff, 0x490000, 0x60000);
	CHECK(alloc_track__index_check(t) == 0);

	/* Remove: gone, its page neighbours stay. */
	CHECK(alloc_track__remove(t, 10, 0x10010, NULL) == 0);
	CHECK_MISS(t, 10, 0x10010);
	CHECK_MISS(t, 10, 0x1002f);
	CHECK_OWNER(t, 10, 0x10040, 0x10040, 0x100);
	CHECK_OWNER(t, 11, 0x10010, 0x10010, 8);
	CHECK(alloc_track__remove(t, 10, 0x10ff0, NULL) == 0);
	CHECK_MISS(t, 10, 0x10ff0);
	CHECK_MISS(t, 10, 0x11000);
	CHECK_OWNER(t, 10, 0x10040, 0x10040, 0x100);
	CHECK(alloc_track__remove(t, 10, 0x300800, NULL) == 0);	/* a large one */
	CHECK_MISS(t, 10, 0x300800 + 8 * P);
	CHECK_OWNER(t, 10, 0x1000000 + 5, 0x1000000, 200 * 1024 * 1024);
	CHECK(alloc_track__index_check(t) == 0);

	/* Replace at the same address: smaller (old tail misses), larger
	 * (new tail found), small <-> large. */
	r = blk(10, 0x100000, 0x1000, 14);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_EQ_U64(alloc_track__replaced(t), 1);
	CHECK_OWNER(t, 10, 0x100fff, 0x100000, 0x1000);
	CHECK(alloc_track__lookup(t, 10, 0x100000, &o) == 0 && o.stack == 14);
	CHECK_MISS(t, 10, 0x101000);
	CHECK_MISS(t, 10, 0x100000 + 16 * P - 1);
	r = blk(10, 0x100000, 3 * P, 15);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_OWNER(t, 10, 0x102fff, 0x100000, 3 * P);
	CHECK_MISS(t, 10, 0x103000);
	r = blk(10, 0x100000, 40 * P, 16);	/* small -> large */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_OWNER(t, 10, 0x100000, 0x100000, 40 * P);
	CHECK_OWNER(t, 10, 0x100000 + 39 * P + 7, 0x100000, 40 * P);
	CHECK_MISS(t, 10, 0x100000 + 40 * P);
	r = blk(10, 0x100000, 50 * P, 17);	/* large -> larger */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_OWNER(t, 10, 0x100000 + 49 * P, 0x100000, 50 * P);
	r = blk(10, 0x100000, 0x10, 18);	/* large -> small */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_OWNER(t, 10, 0x10000f, 0x100000, 0x10);
	CHECK_MISS(t, 10, 0x100010);
	CHECK_MISS(t, 10, 0x100000 + 20 * P);
	r = blk(10, 0x100000, 0, 19);		/* small -> size 0 */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_MISS(t, 10, 0x100000);
	r = blk(10, 0x100000, 0x30, 20);	/* size 0 -> small */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__index_check(t) == 0);
	CHECK_OWNER(t, 10, 0x10002f, 0x100000, 0x30);
	CHECK_EQ_U64(alloc_track__replaced(t), 7);

	/* Pids the key cannot hold are not indexed; addresses above 2^48
	 * still are (with the large blocks). */
	r = blk(-1, 0x10010, 0x20, 21);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_MISS(t, -1, 0x10010);
	r = blk(1 << 28, 0x10010, 0x20, 22);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_MISS(t, 1 << 28, 0x10010);
	CHECK(alloc_track__remove(t, -1, 0x10010, NULL) == 0);
	CHECK(alloc_track__remove(t, 1 << 28, 0x10010, NULL) == 0);
	r = blk((1 << 28) - 1, 0xfffffffff000ULL, 0x20, 23);	/* top pid, top page */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_OWNER(t, (1 << 28) - 1, 0xfffffffff01fULL, 0xfffffffff000ULL, 0x20);
	CHECK_MISS(t, (1 << 28) - 2, 0xfffffffff000ULL);
	CHECK_MISS(t, 0, 0xfffffffff000ULL);
	r = blk(10, 0xfffffffffff0ULL, 0x20, 24);	/* across 2^48 */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_OWNER(t, 10, 0xfffffffffff0ULL, 0xfffffffffff0ULL, 0x20);
	CHECK_OWNER(t, 10, 0x100000000000fULL, 0xfffffffffff0ULL, 0x20);
	CHECK_MISS(t, 10, 0x1000000000010ULL);
	r = blk(10, 0xffff800000001000ULL, 0x100, 25);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_OWNER(t, 10, 0xffff8000000010ffULL, 0xffff800000001000ULL, 0x100);
	CHECK_MISS(t, 10, 0xffff800000001100ULL);
	CHECK(alloc_track__index_check(t) == 0);

	/* A free never seen: a stale block under a newer one.  Where only
	 * the stale one reaches, it is still the owner. */
	r = blk(12, 0x700000, 0x100, 26);
	CHECK(alloc_track__add(t, &r) == 0);
	r = blk(12, 0x700080, 0x10, 27);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK(alloc_track__lookup(t, 12, 0x700088, &o) == 0 && o.stack == 27);
	CHECK(alloc_track__lookup(t, 12, 0x7000c0, &o) == 0 && o.stack == 26);
	CHECK(alloc_track__lookup(t, 12, 0x700010, &o) == 0 && o.stack == 26);
	CHECK_MISS(t, 12, 0x700100);

	/* drop_pid: all of pid 10 gone, pid 11 stays; each passed on. */
	/* 9 blocks (A, C and the 17-page one were freed) and 2 regions. */
	gone = (struct gone_count){ 0 };
	CHECK_EQ_U64(alloc_track__drop_pid(t, 10, count_gone, &gone), 11);
	CHECK_EQ_U64(gone.blocks, 9);
	CHECK_EQ_U64(gone.regions, 2);
	CHECK_EQ_U64(gone.other_pid, 0);
	CHECK_MISS(t, 10, 0x10040);
	CHECK_MISS(t, 10, 0x100000);
	CHECK_MISS(t, 10, 0x200800);
	CHECK_MISS(t, 10, 0x1000000 + 5);
	CHECK_MISS(t, 10, 0x410000);
	CHECK_MISS(t, 10, 0x400000);
	CHECK_MISS(t, 10, 0xfffffffffff0ULL);
	CHECK_OWNER(t, 11, 0x10010, 0x10010, 8);
	CHECK(alloc_track__index_check(t) == 0);
	alloc_track__free(t);
}

static void test_fork(void)
{
	struct alloc_track *t;
	struct alloc_rec r, o;

	CHECK(alloc_track__new(&t) == 0);
	CHECK(alloc_track__index(t) == 0);
	r = blk(20, 0x20000, 0x40, 1);
	CHECK(alloc_track__add(t, &r) == 0);
	r = blk(20, 0x20100, 0x40000, 2);	/* large */
	r.fn = ALLOC_REALLOC;
	r.mapped = true;
	CHECK(alloc_track__add(t, &r) == 0);
	r = (struct alloc_rec){ .addr = 0x800000, .size = 0x21000, .pid = 20, .stack = 3,
				.time = 77, .fn = ALLOC_BRK, .region = true };
	CHECK(alloc_track__add(t, &r) == 0);
	r = blk(22, 0x20000, 0x10, 4);		/* an unrelated pid */
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_EQ_U64(alloc_track__fork(t, 20, 21), 3);
	CHECK_EQ_U64(alloc_track__count(t), 7);
	CHECK_EQ_U64(alloc_track__fork(t, 20, 20), 0);
	CHECK_EQ_U64(alloc_track__fork(t, 99, 98), 0);
	CHECK_EQ_U64(alloc_track__count(t), 7);
	CHECK(alloc_track__index_check(t) == 0);
	/* The child's copies: every field. */
	CHECK(alloc_track__lookup(t, 21, 0x2003f, &o) == 0);
	CHECK(o.addr == 0x20000 && o.size == 0x40 && o.pid == 21 && o.stack == 1 &&
	      o.time == 1001 && o.fn == ALLOC_CALLOC && o.mapped && !o.region);
	CHECK(alloc_track__lookup(t, 21, 0x20100 + 0x3ffff, &o) == 0);
	CHECK(o.addr == 0x20100 && o.size == 0x40000 && o.pid == 21 && o.stack == 2 &&
	      o.time == 1002 && o.fn == ALLOC_REALLOC && o.mapped && !o.region);
	CHECK(alloc_track__lookup(t, 21, 0x820fff, &o) == 0);
	CHECK(o.addr == 0x800000 && o.size == 0x21000 && o.pid == 21 && o.stack == 3 &&
	      o.time == 77 && o.fn == ALLOC_BRK && !o.mapped && o.region);
	CHECK(alloc_track__remove(t, 21, 0x20100, &o) == 0);
	CHECK(o.fn == ALLOC_REALLOC && o.mapped && o.stack == 2);
	/* The child's free and munmap leave the parent's alone. */
	CHECK(alloc_track__remove(t, 21, 0x20000, NULL) == 0);
	CHECK(alloc_track__unmap(t, 21, 0x800000, 0x21000) == 0x21000);
	CHECK_MISS(t, 21, 0x20000);
	CHECK_MISS(t, 21, 0x20100);
	CHECK_MISS(t, 21, 0x800000);
	CHECK_OWNER(t, 20, 0x20000, 0x20000, 0x40);
	CHECK_OWNER(t, 20, 0x20100 + 0x20000, 0x20100, 0x40000);
	CHECK_OWNER(t, 20, 0x800000, 0x800000, 0x21000);
	CHECK_OWNER(t, 22, 0x20000, 0x20000, 0x10);
	CHECK(alloc_track__index_check(t) == 0);
	/* A fork onto a pid with a stale block at a copied address replaces
	 * it. */
	r = blk(23, 0x20000, 0x8, 5);
	CHECK(alloc_track__add(t, &r) == 0);
	CHECK_EQ_U64(alloc_track__fork(t, 20, 23), 3);
	CHECK_EQ_U64(alloc_track__replaced(t), 1);
	CHECK_OWNER(t, 23, 0x2003f, 0x20000, 0x40);
	alloc_track__free(t);

	/* Forking a big parent grows the table mid-copy. */
	CHECK(alloc_track__new(&t) == 0);
	for (uint64_t i = 1; i <= 3000; i++) {
		r = blk(30, i * 0x40, 0x30, (uint32_t)i);
		CHECK(alloc_track__add(t, &r) == 0);
	}
	CHECK_EQ_U64(alloc_track__fork(t, 30, 31), 3000);
	CHECK_EQ_U64(alloc_track__count(t), 6000);
	CHECK(alloc_track__index(t) == 0);	/* built from both */
	CHECK(alloc_track__index_check(t) == 0);
	for (uint64_t i = 1; i <= 3000; i++) {
		CHECK(alloc_track__lookup(t, 31, i * 0x40 + 0x2f, &o) == 0 && o.stack == i);
		CHECK(alloc_track__lookup(t, 30, i * 0x40 + 0x30, &o) == -ENOENT);
	}
	alloc_track__free(t);
}

/* ---- randomized cross-check against a brute-force reference ---- */

struct ref {
	uint64_t addr, size;
	pid_t pid;
	uint32_t stack;
	bool region;
};

static struct ref refs[20000];
static size_t nrefs;
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t rnd_in(uint64_t lo, uint64_t hi)	/* [lo, hi] */
{
	return lo + rnd() % (hi - lo + 1);
}

/* Does [addr, addr + size) meet a block (or region) of @pid, bar @skip? */
static bool ref_overlaps(pid_t pid, uint64_t addr, uint64_t size, bool region, size_t skip)
{
	for (size_t i = 0; i < nrefs; i++) {
		const struct ref *f = &refs[i];

		if (i == skip || f->pid != pid || f->region != region || !f->size)
			continue;
		if (addr < f->addr + f->size && f->addr < addr + size)
			return true;
	}
	return false;
}

static const struct ref *ref_owner(pid_t pid, uint64_t addr)
{
	const struct ref *reg = NULL;

	for (size_t i = 0; i < nrefs; i++) {
		const struct ref *f = &refs[i];

		if (f->pid != pid || addr < f->addr || addr - f->addr >= f->size)
			continue;
		if (!f->region)
			return f;
		reg = f;
	}
	return reg;
}

static size_t ref_find_block(pid_t pid, uint64_t addr)
{
	for (size_t i = 0; i < nrefs; i++)
		if (!refs[i].region && refs[i].pid == pid && refs[i].addr == addr)
			return i;
	return SIZE_MAX;
}

static int random_failures;

static void rcheck(bool ok, const char *what, uint64_t op)
{
	CHECK(ok);
	if (!ok && random_failures++ < 10)
		fprintf(stderr, "  op %llu: %s\n", (unsigned long long)op, what);
}

static void test_random(void)
{
	enum { OPS = 200000, INDEX_AT = 3000 };
	static const pid_t pids[3] = { 100, 200, 300 };
	const uint64_t base = 0x55550000000ULL;
	struct alloc_track *t;
	uint32_t next_stack = 1;
	uint64_t lookups = 0, hits = 0, forks = 0, maxn = 0;
	bool indexed = false;

	CHECK(alloc_track__new(&t) == 0);
	for (uint64_t op = 0; op < OPS; op++) {
		pid_t pid = pids[rnd() % 3];
		unsigned int kind = (unsigned int)(rnd() % 1000);

		if (op == INDEX_AT) {
			CHECK(alloc_track__index(t) == 0);
			indexed = true;
		}
		if (kind < 450 && rnd() % 6000 < 6000 - (nrefs < 6000 ? nrefs : 6000)) {
			/* Add a block: small ones crowd a 256 KiB corner so
			 * pages are shared; others anywhere in 64 MiB; some
			 * replace a block at its address.  Adds thin out as
			 * blocks pile up, so a few thousand stay outstanding. */
			unsigned int sc = (unsigned int)(rnd() % 10);
			uint64_t size = sc < 5 ? rnd_in(1, 256) : sc < 8 ? rnd_in(257, 16384) :
				rnd_in(16385, 200 * 1024);
			uint64_t addr = sc < 5 ? base + rnd_in(0, 0x3ffff) / 16 * 16 :
				base + rnd_in(0, 0x3ffffff) / 16 * 16;
			size_t skip = SIZE_MAX;
			struct alloc_rec r;

			if (kind < 60 && nrefs) {
				size_t j = rnd() % nrefs;

				if (!refs[j].region) {
					pid = refs[j].pid;
					addr = refs[j].addr;
					skip = j;
				}
			}
			if (kind % 97 == 0)
				size = 0;
			if (ref_overlaps(pid, addr, size, false, skip))
				continue;
			if (skip == SIZE_MAX && ref_find_block(pid, addr) != SIZE_MAX)
				continue;	/* a size-0 block sits there */
			r = (struct alloc_rec){ .addr = addr, .size = size, .pid = pid,
						.stack = next_stack, .fn = (uint8_t)(size % 4) };
			rcheck(alloc_track__add(t, &r) == 0, "add", op);
			if (skip == SIZE_MAX)
				skip = nrefs++;
			refs[skip] = (struct ref){ addr, size, pid, next_stack++, false };
		} else if (kind < 600) {
			/* Free a block, or an address no block starts at. */
			size_t j = nrefs ? rnd() % nrefs : 0;
			struct alloc_rec o;

			if (!nrefs || refs[j].region || kind % 10 == 0) {
				uint64_t a = base + rnd_in(0, 0x3ffffff);
				size_t k = ref_find_block(pid, a);
				int err = alloc_track__remove(t, pid, a, NULL);

				rcheck(k == SIZE_MAX ? err == -ENOENT : err == 0, "remove any", op);
				if (k != SIZE_MAX)
					refs[k] = refs[--nrefs];
				continue;
			}
			rcheck(alloc_track__remove(t, refs[j].pid, refs[j].addr, &o) == 0 &&
			       o.size == refs[j].size && o.stack == refs[j].stack, "remove", op);
			refs[j] = refs[--nrefs];
		} else if (kind < 980) {
			/* Look up: near an edge of something, or anywhere. */
			uint64_t a;
			const struct ref *want;
			struct alloc_rec o = { 0 };
			int err;

			if (nrefs && kind % 2) {
				const struct ref *f = &refs[rnd() % nrefs];
				uint64_t edge[5] = { f->addr, f->addr + f->size - 1, f->addr + f->size,
						     f->addr - 1, f->addr + rnd() % (f->size + 1) };

				a = edge[rnd() % 5];
				if (kind % 4 == 1)
					pid = f->pid;
			} else {
				a = base + rnd_in(0, 0x4ffffff);
			}
			want = indexed ? ref_owner(pid, a) : NULL;
			err = alloc_track__lookup(t, pid, a, &o);
			lookups++;
			if (!want) {
				rcheck(err == -ENOENT, "lookup miss", op);
			} else {
				hits++;
				rcheck(err == 0 && o.addr == want->addr && o.size == want->size &&
				       o.pid == pid && o.stack == want->stack &&
				       o.region == want->region, "lookup hit", op);
			}
		} else if (kind < 990) {
			/* A region (disjoint from the pid's others) or a munmap. */
			uint64_t addr = base + rnd_in(0, 0x4ff) * 0x10000;
			uint64_t len = rnd_in(1, 64) * 4096;

			if (kind < 985) {
				struct alloc_rec r = { .addr = addr, .size = len, .pid = pid,
						       .stack = next_stack, .region = true,
						       .fn = ALLOC_MMAP };

				if (ref_overlaps(pid, addr, len, true, SIZE_MAX))
					continue;
				rcheck(alloc_track__add(t, &r) == 0, "add region", op);
				refs[nrefs++] = (struct ref){ addr, len, pid, next_stack++, true };
			} else {
				/* Regions of a pid are disjoint: at most two
				 * pieces survive (a split, or two trims). */
				uint64_t end = addr + len, released = 0;
				struct ref pieces[2];
				size_t npieces = 0;

				for (size_t i = 0; i < nrefs;) {
					struct ref f = refs[i];
					uint64_t fend = f.addr + f.size;

					if (!f.region || f.pid != pid || fend <= addr || f.addr >= end) {
						i++;
						continue;
					}
					refs[i] = refs[--nrefs];
					released += (fend < end ? fend : end) - (f.addr > addr ? f.addr : addr);
					if (f.addr < addr)
						pieces[npieces++] = (struct ref){ f.addr, addr - f.addr, pid,
										  f.stack, true };
					if (fend > end)
						pieces[npieces++] = (struct ref){ end, fend - end, pid,
										  f.stack, true };
				}
				for (size_t i = 0; i < npieces; i++)
					refs[nrefs++] = pieces[i];
				rcheck(alloc_track__unmap(t, pid, addr, len) == (int64_t)released,
				       "unmap", op);
			}
		} else if (kind < 994 && nrefs * 2 < sizeof(refs) / sizeof(refs[0])) {
			/* fork: the child starts empty (drop), then copies. */
			pid_t child = pids[(rnd() % 2 + 1 + (unsigned)(pid / 100 - 1)) % 3];
			size_t dropped = 0, copied = 0, n;

			for (size_t i = 0; i < nrefs;) {
				if (refs[i].pid == child) {
					refs[i] = refs[--nrefs];
					dropped++;
				} else {
					i++;
				}
			}
			rcheck(alloc_track__drop_pid(t, child, NULL, NULL) == dropped, "drop before fork", op);
			n = nrefs;
			for (size_t i = 0; i < n; i++) {
				if (refs[i].pid == pid) {
					refs[nrefs] = refs[i];
					refs[nrefs++].pid = child;
					copied++;
				}
			}
			rcheck(alloc_track__fork(t, pid, child) == (int)copied, "fork", op);
			forks++;
		} else if (kind == 995 && rnd() % 8 == 0) {
			/* exec: rare, or pids would rarely hold much. */
			size_t dropped = 0;

			for (size_t i = 0; i < nrefs;) {
				if (refs[i].pid == pid) {
					refs[i] = refs[--nrefs];
					dropped++;
				} else {
					i++;
				}
			}
			rcheck(alloc_track__drop_pid(t, pid, NULL, NULL) == dropped, "drop", op);
		}
		if (nrefs > maxn)
			maxn = nrefs;
		if (op % 10000 == 0)
			rcheck(alloc_track__count(t) == nrefs, "count", op);
		if (op % 500 == 0)
			rcheck(alloc_track__index_check(t) == 0, "index check", op);
	}
	CHECK_EQ_U64(alloc_track__count(t), nrefs);
	CHECK(alloc_track__index_check(t) == 0);
	/* Everything still outstanding is found from its first and last byte
	 * (a region's may belong to a block inside it). */
	for (size_t i = 0; i < nrefs; i++) {
		const struct ref *f = &refs[i];
		uint64_t ends[2] = { f->addr, f->addr + f->size - 1 };
		struct alloc_rec o;

		for (int e = 0; e < 2 && f->size; e++) {
			const struct ref *want = ref_owner(f->pid, ends[e]);

			rcheck(want && (want == f || f->region) &&
			       alloc_track__lookup(t, f->pid, ends[e], &o) == 0 &&
			       o.stack == want->stack && o.addr == want->addr, "final", i);
		}
	}
	/* The run must have exercised what it claims to. */
	CHECK(forks > 100);
	CHECK(lookups > 50000 && hits > 10000 && lookups - hits > 10000);
	CHECK(maxn > 1000);
	printf("random: %llu lookups (%llu hits), %llu forks, up to %llu outstanding\n",
	       (unsigned long long)lookups, (unsigned long long)hits, (unsigned long long)forks,
	       (unsigned long long)maxn);
	alloc_track__free(t);
}

int main(void)
{
	test_pairing();
	test_effects();
	test_table();
	test_regions();
	test_kinds();
	test_note_map();
	test_lookup();
	test_fork();
	test_random();
	return check_done("test-alloc-track");
}
