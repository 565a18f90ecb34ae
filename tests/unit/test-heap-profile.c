/*
 * test-heap-profile: heaptrack's rules, case by case, and the lazy peak
 * against a brute-force replay: random allocations and frees over a few
 * sites, each site's bytes at the global peak computed the slow way (every
 * site's live bytes copied whenever the total rises above its old peak).
 * First, the per-stack table it builds on (stack-table.c): sites made on
 * first use, calls and held blocks counted, held cleared, and the sorted
 * copies leak and the timeline print, in each order they use.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "agg/alloc-sample.h"
#include "agg/alloc-track.h"
#include "agg/heap-profile.h"
#include "agg/stack-table.h"
#include "trace/sample.h"
#include "check.h"

static const struct stack_site *site(const struct stack_site *v, size_t n, pid_t pid, uint32_t stack)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].stack == stack)
			return &v[i];
	return NULL;
}

static void test_rules(void)
{
	struct heap_profile *hp;
	const struct heap_totals *t;
	struct stack_site *v = NULL;
	const struct stack_site *a, *b;
	size_t n = 0;

	CHECK_EQ_U64(heap_profile__new(0, &hp), 0);
	/* A then freed at once: temporary.  B, C, free C: temporary (C was
	 * the last allocation).  Free B: not (a free came in between). */
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x100, 10, 7, 1), 0);
	heap_profile__release(hp, 1, 0x100, 10, 7, 2);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x200, 100, 8, 3), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x300, 1000, 7, 4), 0);
	heap_profile__release(hp, 1, 0x300, 1000, 7, 5);
	heap_profile__release(hp, 1, 0x200, 100, 8, 6);
	/* D stays: leaked; E made, then F, then E freed: not temporary. */
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x400, 5, 8, 7), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x500, 1, 7, 8), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x600, 2, 7, 9), 0);
	heap_profile__release(hp, 1, 0x500, 1, 7, 10);
	/* A free of a block never made here changes nothing. */
	heap_profile__release(hp, 1, 0x999, 50, 9, 11);
	t = heap_profile__totals(hp);
	CHECK_EQ_U64(t->calls, 6);
	CHECK_EQ_U64(t->temporary, 2);
	CHECK_EQ_U64(t->frees, 4);
	CHECK_EQ_U64(t->peak_bytes, 1100);
	CHECK_EQ_U64(t->peak_time, 4);
	CHECK_EQ_U64(t->live_bytes, 7);
	CHECK_EQ_U64(t->live_blocks, 2);
	CHECK_EQ_U64(t->first_time, 1);
	CHECK_EQ_U64(t->last_time, 10);
	CHECK_EQ_U64(heap_profile__sites(hp, &v, &n), 0);
	CHECK_EQ_U64(n, 2);
	a = site(v, n, 1, 7);
	b = site(v, n, 1, 8);
	CHECK(a && b);
	if (a && b) {
		CHECK_EQ_U64(a->calls, 4);
		CHECK_EQ_U64(a->bytes, 10 + 1000 + 1 + 2);
		CHECK_EQ_U64(a->temporary, 2);
		CHECK_EQ_U64(a->peak, 1000);	/* at the peak: C */
		CHECK_EQ_U64(a->leaked, 2);
		CHECK_EQ_U64(b->calls, 2);
		CHECK_EQ_U64(b->bytes, 105);
		CHECK_EQ_U64(b->peak, 100);	/* B */
		CHECK_EQ_U64(b->leaked, 5);
	}
	free(v);
	{
		uint64_t *sizes = NULL, *counts = NULL;

		CHECK_EQ_U64(heap_profile__histogram(hp, &sizes, &counts, &n), 0);
		CHECK_EQ_U64(n, 6);
		CHECK(n == 6 && sizes[0] == 1 && sizes[5] == 1000 && counts[0] == 1);
		free(sizes);
		free(counts);
	}
	heap_profile__free(hp);

	/* memray's threshold: freed before 3 more allocations were made. */
	CHECK_EQ_U64(heap_profile__new(3, &hp), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x10, 1, 1, 1), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x20, 1, 1, 2), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x30, 1, 1, 3), 0);
	heap_profile__release(hp, 1, 0x10, 1, 1, 4);	/* 2 after it: temporary */
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x40, 1, 1, 5), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 1, 0x50, 1, 1, 6), 0);
	heap_profile__release(hp, 1, 0x20, 1, 1, 7);	/* 3 after it: not */
	CHECK_EQ_U64(heap_profile__totals(hp)->temporary, 1);
	heap_profile__free(hp);
	heap_profile__free(NULL);
}

/* The order of the sites of @v as their stack ids, against @want. */
static void check_stacks(const struct stack_site *v, size_t n, const uint32_t *want, size_t nwant)
{
	CHECK_EQ_U64(n, nwant);
	for (size_t i = 0; i < n && i < nwant; i++)
		CHECK_EQ_U64(v[i].stack, want[i]);
}

static void test_stack_table(void)
{
	struct stack_table *t;
	struct stack_site *v = NULL;
	const struct stack_site *s;
	size_t n = 0;

	CHECK_EQ_U64(stack_table__new(sizeof(struct stack_site) - 1, &t), (uint64_t)-EINVAL);
	CHECK(t == NULL);
	CHECK_EQ_U64(stack_table__new(0, &t), 0);
	CHECK(stack_table__find(t, 1, 1) == NULL);
	CHECK_EQ_U64(stack_table__count(t), 0);
	/* leak -s 64: a small block kept stands for 64 calls. */
	CHECK_EQ_U64(stack_table__call(t, 10, 1, 40, 64), 0);
	CHECK_EQ_U64(stack_table__call(t, 10, 1, 4096, 1), 0);
	CHECK_EQ_U64(stack_table__call(t, 10, 2, 8, 1), 0);
	/* The same stack id in two processes: two sites. */
	CHECK_EQ_U64(stack_table__call(t, 11, 2, 8, 3), 0);
	CHECK_EQ_U64(stack_table__count(t), 3);
	s = stack_table__find(t, 10, 1);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U64(s->pid, 10);
		CHECK_EQ_U64(s->stack, 1);
		CHECK_EQ_U64(s->calls, 65);
		CHECK_EQ_U64(s->bytes, 64 * 40 + 4096);
		CHECK_EQ_U64(s->leaked, 0);
	}
	s = stack_table__find(t, 11, 2);
	CHECK(s && s->calls == 3 && s->bytes == 24);
	CHECK(stack_table__at(t, 3) == NULL);
	CHECK(stack_table__at(t, 0) == stack_table__find(t, 10, 1));

	/* A report: what each stack holds; a site made by holding alone
	 * (a block whose call was not seen) has no calls. */
	CHECK_EQ_U64(stack_table__hold(t, 10, 1, 100, 1), 0);
	CHECK_EQ_U64(stack_table__hold(t, 10, 1, 100, 1), 0);
	CHECK_EQ_U64(stack_table__hold(t, 11, 2, 50, 4), 0);
	CHECK_EQ_U64(stack_table__hold(t, 12, 3, 200, 1), 0);
	CHECK_EQ_U64(stack_table__count(t), 4);
	s = stack_table__find(t, 12, 3);
	CHECK(s && s->calls == 0 && s->leaked == 200 && s->leaked_blocks == 1);

	/* leak's order: ascending by bytes held, only the sites holding
	 * some; ties by pid, then stack.  10/1: 200 B in 2, 11/2: 200 B in
	 * 4, 12/3: 200 B in 1; 10/2 holds nothing. */
	CHECK_EQ_U64(stack_table__sorted(t, &(struct stack_order){ STACK_LEAKED, STACK_LEAKED, false,
								   true }, &v, &n), 0);
	check_stacks(v, n, (const uint32_t[]){ 1, 2, 3 }, 3);
	free(v);
	/* --sort count: 12/3 (1), 10/1 (2), 11/2 (4). */
	CHECK_EQ_U64(stack_table__sorted(t, &(struct stack_order){ STACK_LEAKED_BLOCKS,
								   STACK_LEAKED_BLOCKS, false, true },
					 &v, &n), 0);
	check_stacks(v, n, (const uint32_t[]){ 3, 1, 2 }, 3);
	free(v);
	/* The timeline's: most first by bytes, then blocks; the others
	 * too.  Ties of both keys stay by pid, stack ascending. */
	CHECK_EQ_U64(stack_table__hold(t, 10, 2, 100, 2), 0);
	CHECK_EQ_U64(stack_table__sorted(t, &(struct stack_order){ STACK_LEAKED, STACK_LEAKED_BLOCKS,
								   true, false }, &v, &n), 0);
	CHECK_EQ_U64(n, 4);
	if (n == 4) {
		CHECK(v[0].pid == 11 && v[0].stack == 2);	/* 200 B, 4 blocks */
		CHECK(v[1].pid == 10 && v[1].stack == 1);	/* 200 B, 2 */
		CHECK(v[2].pid == 10 && v[2].stack == 2);	/* 200 B, 2: after 10/1 */
		CHECK(v[3].pid == 12 && v[3].stack == 3);	/* 200 B, 1 */
	}
	free(v);
	/* By calls, most first: 10/1 (65), 11/2 (3), 10/2 (1), 12/3 (0). */
	CHECK_EQ_U64(stack_table__sorted(t, &(struct stack_order){ STACK_CALLS, STACK_BYTES, true,
								   false }, &v, &n), 0);
	check_stacks(v, n, (const uint32_t[]){ 1, 2, 2, 3 }, 4);
	CHECK(n == 4 && v[1].pid == 11);
	free(v);

	/* The next report holds again from nothing; sorting changed no
	 * site, and lookups go on. */
	stack_table__clear_held(t);
	CHECK_EQ_U64(stack_table__sorted(t, &(struct stack_order){ STACK_LEAKED, STACK_LEAKED, false,
								   true }, &v, &n), 0);
	CHECK_EQ_U64(n, 0);
	free(v);
	s = stack_table__find(t, 10, 1);
	CHECK(s && s->calls == 65 && s->leaked == 0 && s->leaked_blocks == 0);
	CHECK_EQ_U64(stack_table__hold(t, 10, 1, 7, 1), 0);
	CHECK(s == stack_table__find(t, 10, 1) && s->leaked == 7);
	stack_table__free(t);
	stack_table__free(NULL);

	/* Bigger records that begin with a site (heap-profile's): the rest
	 * is made zeroed too, and kept. */
	{
		struct big { struct stack_site s; uint64_t extra; } *b;

		CHECK_EQ_U64(stack_table__new(sizeof(struct big), &t), 0);
		CHECK_EQ_U64(stack_table__call(t, 1, 1, 1, 1), 0);
		b = (struct big *)stack_table__get(t, 2, 9);
		CHECK(b && b->extra == 0 && b->s.pid == 2 && b->s.stack == 9);
		if (b)
			b->extra = 42;
		CHECK_EQ_U64(stack_table__call(t, 3, 1, 1, 1), 0);
		b = (struct big *)stack_table__find(t, 2, 9);
		CHECK(b && b->extra == 42);
		CHECK(stack_table__at(t, 1) == &b->s);
		stack_table__free(t);
	}
}

/* A table per thread: the same stack in two threads of a process is two
 * sites, each with its tid; a per-process table sums them under tid 0. */
static void test_stack_table_threads(void)
{
	struct stack_table *t, *pt;
	struct stack_site *v = NULL;
	const struct stack_site *s;
	size_t n = 0;

	CHECK_EQ_U64(stack_table__new_threads(sizeof(struct stack_site) - 1, &t),
		     (uint64_t)-EINVAL);
	CHECK_EQ_U64(stack_table__new_threads(0, &t), 0);
	CHECK_EQ_U64(stack_table__new(0, &pt), 0);
	CHECK(stack_table__threads(t) && !stack_table__threads(pt));
	/* report pprof --faults: a fault is a call of no bytes. */
	CHECK_EQ_U64(stack_table__call_tid(t, 10, 12, 5, 0, 1), 0);
	CHECK_EQ_U64(stack_table__call_tid(t, 10, 11, 5, 0, 1), 0);
	CHECK_EQ_U64(stack_table__call_tid(t, 10, 12, 5, 0, 1), 0);
	/* goalloc --pprof: allocations and bytes. */
	CHECK_EQ_U64(stack_table__call_tid(t, 10, 11, 4, 64, 1), 0);
	CHECK_EQ_U64(stack_table__call_tid(t, 9, 9, 5, 8, 2), 0);
	CHECK_EQ_U64(stack_table__count(t), 4);
	s = stack_table__find_tid(t, 10, 12, 5);
	CHECK(s && s->pid == 10 && s->tid == 12 && s->stack == 5 && s->calls == 2 &&
	      s->bytes == 0);
	s = stack_table__find_tid(t, 10, 11, 5);
	CHECK(s && s->tid == 11 && s->calls == 1);
	s = stack_table__find_tid(t, 9, 9, 5);
	CHECK(s && s->calls == 2 && s->bytes == 16);
	CHECK(stack_table__find_tid(t, 10, 13, 5) == NULL);
	/* No thread 0 was seen: a process-wide lookup finds nothing. */
	CHECK(stack_table__find(t, 10, 5) == NULL);
	/* Made in the order seen (pprof's sample order). */
	CHECK(stack_table__at(t, 0) == stack_table__find_tid(t, 10, 12, 5));
	CHECK(stack_table__at(t, 1) == stack_table__find_tid(t, 10, 11, 5));
	CHECK_EQ_U64(stack_site__col(stack_table__at(t, 3), STACK_BYTES), 16);

	/* Ties of the keys by pid, stack, then tid: 9/5/9, 10/4/11, 10/5/11,
	 * 10/5/12 by bytes (16, 64, 0, 0) ascending: 0, 0, 16, 64. */
	CHECK_EQ_U64(stack_table__sorted(t, &(struct stack_order){ STACK_BYTES, STACK_BYTES, false,
								   false }, &v, &n), 0);
	CHECK_EQ_U64(n, 4);
	if (n == 4) {
		CHECK(v[0].pid == 10 && v[0].stack == 5 && v[0].tid == 11);
		CHECK(v[1].pid == 10 && v[1].stack == 5 && v[1].tid == 12);
		CHECK(v[2].pid == 9 && v[2].stack == 5 && v[2].tid == 9);
		CHECK(v[3].pid == 10 && v[3].stack == 4 && v[3].tid == 11);
	}
	free(v);
	/* By calls, most first: 10/5/12 (2) and 9/5/9 (2), then 10/4/11
	 * and 10/5/11 (1): ties by pid, stack, tid. */
	CHECK_EQ_U64(stack_table__sorted(t, &(struct stack_order){ STACK_CALLS, STACK_CALLS, true,
								   false }, &v, &n), 0);
	CHECK_EQ_U64(n, 4);
	if (n == 4) {
		CHECK(v[0].pid == 9 && v[1].pid == 10 && v[1].tid == 12);
		CHECK(v[2].stack == 4 && v[3].stack == 5 && v[3].tid == 11);
	}
	free(v);

	/* The same calls per process: the threads in one site, tid 0. */
	CHECK_EQ_U64(stack_table__call_tid(pt, 10, 12, 5, 0, 1), 0);
	CHECK_EQ_U64(stack_table__call_tid(pt, 10, 11, 5, 0, 1), 0);
	CHECK_EQ_U64(stack_table__call(pt, 10, 5, 0, 1), 0);
	CHECK_EQ_U64(stack_table__count(pt), 1);
	s = stack_table__find_tid(pt, 10, 99, 5);
	CHECK(s && s == stack_table__find(pt, 10, 5) && s->tid == 0 && s->calls == 3);
	stack_table__free(pt);

	/* goalloc's text report: the per-thread table summed by process,
	 * 10/5 from threads 11 and 12, 10/4 and 9/5 from one each. */
	CHECK_EQ_U64(stack_table__by_process(t, &pt), 0);
	CHECK(pt && !stack_table__threads(pt));
	CHECK_EQ_U64(stack_table__count(pt), 3);
	s = stack_table__find(pt, 10, 5);
	CHECK(s && s->tid == 0 && s->calls == 3 && s->bytes == 0);
	s = stack_table__find(pt, 10, 4);
	CHECK(s && s->calls == 1 && s->bytes == 64);
	s = stack_table__find(pt, 9, 5);
	CHECK(s && s->calls == 2 && s->bytes == 16);
	stack_table__free(pt);

	/* Many threads of one stack: every one found again (the hashed keys
	 * collide or not). */
	for (pid_t tid = 1; tid <= 2000; tid++)
		CHECK_EQ_U64(stack_table__call_tid(t, 20, tid, 7, (uint64_t)tid, 1), 0);
	CHECK_EQ_U64(stack_table__count(t), 2004);
	for (pid_t tid = 1; tid <= 2000; tid++) {
		s = stack_table__find_tid(t, 20, tid, 7);
		if (!s || s->tid != tid || s->bytes != (uint64_t)tid) {
			CHECK(!"thread site lost");
			break;
		}
	}
	stack_table__free(t);
}

enum { NSITES = 5, NBLOCKS = 64, STEPS = 20000 };

/* A block its process held when it exec'd: gone, not leaked, and not a
 * free (no free counted, never temporary); the peak before it stays. */
static void test_gone(void)
{
	struct heap_profile *hp;
	const struct heap_totals *t;
	struct stack_site *v = NULL;
	const struct stack_site *a;
	size_t n = 0;
	struct alloc_rec r = { .addr = 0x100, .size = 64, .pid = 3, .stack = 5 };
	struct alloc_rec map = { .addr = 0x9000, .size = 4096, .pid = 3, .stack = 5, .region = true };

	CHECK_EQ_U64(heap_profile__new(0, &hp), 0);
	CHECK_EQ_U64(heap_profile__alloc(hp, 3, 0x100, 64, 5, 1), 0);
	heap_profile__gone(hp, &map, 2);	/* a region: not the heap's */
	heap_profile__gone(hp, &r, 2);
	t = heap_profile__totals(hp);
	CHECK_EQ_U64(t->calls, 1);
	CHECK_EQ_U64(t->frees, 0);
	CHECK_EQ_U64(t->temporary, 0);
	CHECK_EQ_U64(t->live_bytes, 0);
	CHECK_EQ_U64(t->live_blocks, 0);
	CHECK_EQ_U64(t->peak_bytes, 64);
	CHECK_EQ_U64(t->last_time, 1);
	/* Gone twice, or never made: nothing. */
	heap_profile__gone(hp, &r, 3);
	CHECK_EQ_U64(t->live_bytes, 0);
	CHECK_EQ_U64(heap_profile__sites(hp, &v, &n), 0);
	a = n == 1 ? &v[0] : NULL;
	CHECK(a != NULL);
	if (a) {
		CHECK_EQ_U64(a->calls, 1);
		CHECK_EQ_U64(a->temporary, 0);
		CHECK_EQ_U64(a->leaked, 0);
		CHECK_EQ_U64(a->leaked_blocks, 0);
		CHECK_EQ_U64(a->peak, 64);
	}
	free(v);
	heap_profile__free(hp);
}

static void test_random_peak(void)
{
	struct heap_profile *hp;
	uint64_t live[NSITES] = { 0 }, at_peak[NSITES] = { 0 }, total = 0, peak = 0;
	struct { uint64_t size; uint32_t site; bool used; } blocks[NBLOCKS] = { { 0 } };
	struct stack_site *v = NULL;
	size_t n = 0;

	CHECK_EQ_U64(heap_profile__new(0, &hp), 0);
	srand(11);
	for (int step = 0; step < STEPS; step++) {
		int b = rand() % NBLOCKS;

		if (!blocks[b].used) {
			blocks[b].size = 1 + (uint64_t)(rand() % 1000);
			blocks[b].site = (uint32_t)(rand() % NSITES);
			blocks[b].used = true;
			CHECK_EQ_U64(heap_profile__alloc(hp, 4, 0x1000 + (uint64_t)b * 16, blocks[b].size,
							 blocks[b].site, (uint64_t)step + 1), 0);
			live[blocks[b].site] += blocks[b].size;
			total += blocks[b].size;
			if (total > peak) {
				peak = total;
				for (int s = 0; s < NSITES; s++)
					at_peak[s] = live[s];
			}
		} else {
			heap_profile__release(hp, 4, 0x1000 + (uint64_t)b * 16, blocks[b].size, blocks[b].site,
					      (uint64_t)step + 1);
			live[blocks[b].site] -= blocks[b].size;
			total -= blocks[b].size;
			blocks[b].used = false;
		}
	}
	CHECK_EQ_U64(heap_profile__totals(hp)->peak_bytes, peak);
	CHECK_EQ_U64(heap_profile__totals(hp)->live_bytes, total);
	CHECK_EQ_U64(heap_profile__sites(hp, &v, &n), 0);
	CHECK_EQ_U64(n, NSITES);
	for (int s = 0; s < NSITES; s++) {
		const struct stack_site *hs = site(v, n, 4, (uint32_t)s);

		CHECK(hs != NULL);
		if (hs) {
			CHECK_EQ_U64(hs->peak, at_peak[s]);
			CHECK_EQ_U64(hs->leaked, live[s]);
		}
	}
	free(v);
	heap_profile__free(hp);
}

/* heap --sample-rate: a kept small block counts N times, a large one
 * once, one the rule dropped nothing; a free takes back what its block
 * stood for; nothing is temporary. */
static void test_sampled(void)
{
	struct alloc_sample rule = { .rate = 64, .by = ALLOC_SAMPLE_BITS };
	/* Bits 7-12 all set: picked; clear: not. */
	struct alloc_rec kept = { .addr = 0x55000fff80, .size = 40, .pid = 3, .stack = 5 };
	struct alloc_rec dropped = { .addr = 0x5500000000, .size = 40, .pid = 3, .stack = 5 };
	struct alloc_rec big = { .addr = 0x5500000010, .size = 4096, .pid = 3, .stack = 6 };
	struct sample smp = { .time = 2 };
	struct heap_profile *hp;
	const struct heap_totals *t;

	CHECK(alloc_sample__weight(&rule, kept.addr, kept.size) == 64);
	CHECK(alloc_sample__weight(&rule, dropped.addr, dropped.size) == 0);
	CHECK_EQ_U64(heap_profile__new(0, &hp), 0);
	heap_profile__set_sample(hp, &rule);
	heap_profile__made(hp, &smp, &kept);
	heap_profile__made(hp, &smp, &dropped);
	heap_profile__made(hp, &smp, &big);
	t = heap_profile__totals(hp);
	CHECK_EQ_U64(t->calls, 65);
	CHECK_EQ_U64(t->live_blocks, 65);
	CHECK_EQ_U64(t->live_bytes, 64 * 40 + 4096);
	CHECK_EQ_U64(t->peak_bytes, 64 * 40 + 4096);
	/* Freed right after it was made: not temporary when sampled. */
	heap_profile__freed(hp, &smp, &big);
	heap_profile__freed(hp, &smp, &dropped);
	heap_profile__freed(hp, &smp, &kept);
	CHECK_EQ_U64(t->frees, 65);
	CHECK_EQ_U64(t->temporary, 0);
	CHECK_EQ_U64(t->live_bytes, 0);
	CHECK_EQ_U64(t->live_blocks, 0);
	heap_profile__free(hp);
}

int main(void)
{
	test_stack_table();
	test_stack_table_threads();
	test_rules();
	test_gone();
	test_sampled();
	test_random_peak();
	return check_done("test-heap-profile");
}
