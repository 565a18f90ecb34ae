/*
 * test-alloc-track: the rules of `faultline leak` without a kernel: which
 * return pairs with which entry (by stack pointer), which calls are inner,
 * what each completed call does, and the table of outstanding blocks and
 * regions (including deletion inside long probe runs and munmap splits).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc-track.h"
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
	CHECK_EQ_U64(alloc_track__drop_pid(t, 8), N);
	CHECK_EQ_U64(alloc_track__count(t), 0);
	CHECK_EQ_U64(alloc_track__peak(t), 2 * N);
	alloc_track__free(t);
}

static void test_regions(void)
{
	struct alloc_track *t;
	struct alloc_rec r = { .addr = 0x10000, .size = 0x10000, .pid = 5, .region = true };

	CHECK(alloc_track__new(&t) == 0);
	CHECK(alloc_track__add(t, &r) == 0);
	r.pid = 6;
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
	/* Both parts of the split disappear with a covering unmap. */
	CHECK(alloc_track__unmap(t, 5, 0, 0x100000) == 0x10000 - 0x3000);
	CHECK_EQ_U64(alloc_track__count(t), 1);
	alloc_track__free(t);
}

int main(void)
{
	test_pairing();
	test_effects();
	test_table();
	test_regions();
	return check_done("test-alloc-track");
}
