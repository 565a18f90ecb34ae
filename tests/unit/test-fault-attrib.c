/*
 * test-fault-attrib: faults go to the block or region owning their
 * address; faults inside an allocator call go to the block it returns, or
 * by address when it returns none; major events mark the thread's last
 * fault; pages count once per owner; what no allocation owns goes to the
 * region the maps say; fork children fault on their copies.
 */
#include <stdlib.h>

#include "check.h"
#include "agg/fault-attrib.h"

#define PID 100
#define CHILD 101
#define TID 100
#define TID2 102

/* The test's "maps": a heap below 64 MiB, a file at [1 GiB, 1 GiB + 1 MiB),
 * a second file above it, other memory elsewhere. */
static void fake_place(void *ctx, pid_t pid, uint64_t addr, enum fault_region *region,
		       const char **path)
{
	(void)ctx;
	(void)pid;
	*path = NULL;
	if (addr < (64u << 20)) {
		*region = REGION_HEAP;
	} else if (addr >= (1ULL << 30) && addr < (1ULL << 30) + (1u << 20)) {
		*region = REGION_FILE;
		*path = "/data/one";
	} else if (addr >= (1ULL << 30) + (1u << 20) && addr < (1ULL << 30) + (2u << 20)) {
		*region = REGION_FILE;
		*path = "/data/two";
	} else {
		*region = REGION_OTHER;
	}
}

static const struct fault_owner *find_site(const struct fault_attrib *fa, pid_t pid,
					   uint32_t stack)
{
	for (size_t i = 0; i < fault_attrib__count(fa); i++) {
		const struct fault_owner *o = fault_attrib__at(fa, i);

		if (o->is_site && o->pid == pid && o->stack == stack)
			return o;
	}
	return NULL;
}

static const struct fault_owner *find_region(const struct fault_attrib *fa, pid_t pid,
					     enum fault_region r, const char *path)
{
	for (size_t i = 0; i < fault_attrib__count(fa); i++) {
		const struct fault_owner *o = fault_attrib__at(fa, i);

		if (!o->is_site && o->pid == pid && o->region == r &&
		    (path ? o->path && !strcmp(o->path, path) : !o->path))
			return o;
	}
	return NULL;
}

static struct alloc_rec block(uint64_t addr, uint64_t size, uint32_t stack, enum alloc_fn fn)
{
	return (struct alloc_rec){ .addr = addr, .size = size, .pid = PID, .stack = stack,
				   .fn = (uint8_t)fn };
}

static void test_kinds_and_classes(void)
{
	char buf[64];
	struct alloc_rec r = block(0x1000, 100, 1, ALLOC_MALLOC);

	CHECK_EQ_U64(fault_kind__from_error_code(0x4), FAULT_FIRST_TOUCH);	/* user read */
	CHECK_EQ_U64(fault_kind__from_error_code(0x6), FAULT_FIRST_TOUCH);	/* user write */
	CHECK_EQ_U64(fault_kind__from_error_code(0x7), FAULT_COW);
	CHECK_EQ_U64(fault_kind__from_error_code(0x5), FAULT_PROT);
	CHECK_EQ_U64(fault_kind__from_error_code(0x15), FAULT_PROT);	/* exec of a present page */

	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_SMALL);
	r.size = 128;
	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_SMALL);
	r.size = 129;
	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_HEAP);
	r.mapped = true;
	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_MMAP);
	r.fn = ALLOC_CALLOC;
	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_MMAP | CLASS_ZEROED);
	alloc_class__format(alloc_rec__class(&r), buf, sizeof(buf));
	CHECK_STR(buf, "mmap,zeroed");
	r.mapped = false;
	r.size = 16;
	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_SMALL | CLASS_ZEROED);
	r = (struct alloc_rec){ .region = true, .fn = ALLOC_MMAP, .size = 4096 };
	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_ANON);
	r.fn = ALLOC_BRK;
	CHECK_EQ_U64(alloc_rec__class(&r), CLASS_BRK);
	alloc_class__format(0, buf, sizeof(buf));
	CHECK_STR(buf, "");
	alloc_class__format(CLASS_SMALL | CLASS_HEAP, buf, 8);	/* truncated, terminated */
	CHECK_STR(buf, "small,h");
	CHECK_STR(fault_region__name(REGION_FILE), "file");
	CHECK_STR(fault_region__name(REGION__COUNT), "?");
}

static void test_attribution(void)
{
	struct alloc_track *t = NULL;
	struct fault_attrib *fa = NULL;
	const struct fault_owner *o;
	struct fault_totals tot;
	struct alloc_rec big = block(0x40000000000ULL + 16, 8 << 20, 3, ALLOC_MALLOC);
	struct alloc_rec small = block(0x2000010, 100, 1, ALLOC_MALLOC);
	struct alloc_rec zeroed = block(0x50000000000ULL + 16, 256 << 10, 4, ALLOC_CALLOC);

	CHECK(!alloc_track__new(&t));
	CHECK(!alloc_track__index(t));
	CHECK(!fault_attrib__new(t, fake_place, NULL, &fa));

	/* A block, made: its site counts allocations and bytes. */
	big.mapped = true;
	CHECK(!alloc_track__add(t, &big));
	CHECK(!fault_attrib__made(fa, &big));
	/* The allocator's own fault on the chunk header while making it:
	 * waits, then goes to the block returned. */
	CHECK(!fault_attrib__fault(fa, PID, TID, big.addr - 16, FAULT_FIRST_TOUCH, true));
	fault_attrib__totals(fa, &tot);
	CHECK_EQ_U64(tot.waiting, 1);
	CHECK_EQ_U64(tot.faults, 0);
	CHECK(!fault_attrib__returned(fa, PID, TID, &big));
	/* The program's touches of 99 more pages, one a read, one twice. */
	for (uint64_t p = 1; p < 100; p++)
		CHECK(!fault_attrib__fault(fa, PID, TID, (big.addr & ~4095ULL) + p * 4096 + 8,
					   FAULT_FIRST_TOUCH, false));
	CHECK(!fault_attrib__fault(fa, PID, TID, (big.addr & ~4095ULL) + 4096 + 100, FAULT_COW,
				   false));
	o = find_site(fa, PID, 3);
	CHECK(o != NULL);
	if (o) {
		CHECK_EQ_U64(o->faults, 101);
		CHECK_EQ_U64(o->pages, 100);
		CHECK_EQ_U64(o->first_touch, 100);
		CHECK_EQ_U64(o->cow, 1);
		CHECK_EQ_U64(o->in_allocator, 1);
		CHECK_EQ_U64(o->allocs, 1);
		CHECK_EQ_U64(o->bytes, 8 << 20);
		CHECK_EQ_U64(o->classes, CLASS_MMAP);
	}
	/* Its last byte is its own; one past is not. */
	CHECK(!fault_attrib__fault(fa, PID, TID, big.addr + big.size - 1, FAULT_FIRST_TOUCH, false));
	CHECK(!fault_attrib__fault(fa, PID, TID, big.addr + big.size, FAULT_FIRST_TOUCH, false));
	o = find_site(fa, PID, 3);
	CHECK(o && o->faults == 102 && o->pages == 101);
	o = find_region(fa, PID, REGION_OTHER, NULL);
	CHECK(o && o->faults == 1 && o->pages == 1);

	/* A small block on the heap: faults inside the allocator that makes
	 * nothing (a failed call) go by address. */
	CHECK(!fault_attrib__fault(fa, PID, TID, 0x3000, FAULT_FIRST_TOUCH, true));
	CHECK(!fault_attrib__returned(fa, PID, TID, NULL));
	o = find_region(fa, PID, REGION_HEAP, NULL);
	CHECK(o && o->faults == 1 && o->in_allocator == 0);
	CHECK(!alloc_track__add(t, &small));
	CHECK(!fault_attrib__made(fa, &small));
	CHECK(!fault_attrib__returned(fa, PID, TID, &small));
	CHECK(!fault_attrib__fault(fa, PID, TID, small.addr + 99, FAULT_FIRST_TOUCH, false));
	o = find_site(fa, PID, 1);
	CHECK(o && o->faults == 1 && o->classes == CLASS_SMALL && o->in_allocator == 0);
	/* Freed: its page goes to the heap region now. */
	CHECK(!alloc_track__remove(t, PID, small.addr, NULL));
	CHECK(!fault_attrib__fault(fa, PID, TID, small.addr, FAULT_COW, false));
	o = find_region(fa, PID, REGION_HEAP, NULL);
	CHECK(o && o->faults == 2 && o->pages == 2 && o->cow == 1);

	/* Major: the major event of the thread's last fault, on its page. */
	CHECK(!fault_attrib__fault(fa, PID, TID, (1ULL << 30) + 8192, FAULT_FIRST_TOUCH, false));
	fault_attrib__major(fa, TID2, (1ULL << 30) + 8192);	/* another thread: no */
	fault_attrib__major(fa, TID, (1ULL << 30) + 4096);	/* another page: no */
	fault_attrib__major(fa, TID, (1ULL << 30) + 8192 + 5);
	fault_attrib__major(fa, TID, (1ULL << 30) + 8192);	/* once only */
	CHECK(!fault_attrib__fault(fa, PID, TID2, (1ULL << 30) + (1u << 20), FAULT_FIRST_TOUCH,
				   false));
	o = find_region(fa, PID, REGION_FILE, "/data/one");
	CHECK(o && o->faults == 1 && o->major == 1 && o->pages == 1);
	o = find_region(fa, PID, REGION_FILE, "/data/two");
	CHECK(o && o->faults == 1 && o->major == 0);

	/* A major fault inside the allocator (its page read from swap): the
	 * mark follows the fault to the block's site. */
	CHECK(!alloc_track__add(t, &zeroed));
	CHECK(!fault_attrib__made(fa, &zeroed));
	CHECK(!fault_attrib__fault(fa, PID, TID2, zeroed.addr, FAULT_FIRST_TOUCH, true));
	fault_attrib__major(fa, TID2, zeroed.addr);
	CHECK(!fault_attrib__returned(fa, PID, TID2, &zeroed));
	o = find_site(fa, PID, 4);
	CHECK(o && o->faults == 1 && o->major == 1 && o->in_allocator == 1 &&
	      o->classes == CLASS_HEAP + CLASS_ZEROED);

	/* A thread exits inside an allocator call: its faults go by address. */
	CHECK(!fault_attrib__fault(fa, PID, TID2, 0x5000, FAULT_FIRST_TOUCH, true));
	CHECK(!fault_attrib__thread_exit(fa, PID, TID2));
	o = find_region(fa, PID, REGION_HEAP, NULL);
	CHECK(o && o->faults == 3 && o->pages == 3);

	/* A fork child writes its copy of the parent's block: its own site. */
	CHECK_EQ_U64(alloc_track__fork(t, PID, CHILD), 2);
	CHECK(!fault_attrib__fault(fa, CHILD, CHILD, big.addr + 4096, FAULT_COW, false));
	o = find_site(fa, CHILD, 3);
	CHECK(o && o->faults == 1 && o->cow == 1 && o->allocs == 0 && o->pages == 1 &&
	      o->classes == CLASS_MMAP);
	o = find_site(fa, PID, 3);
	CHECK(o && o->faults == 102);

	fault_attrib__totals(fa, &tot);
	CHECK_EQ_U64(tot.waiting, 0);
	CHECK_EQ_U64(tot.faults, 102 + 1 + 3 + 1 + 2 + 1 + 1);
	CHECK_EQ_U64(tot.to_allocations, 102 + 1 + 1 + 1);
	CHECK_EQ_U64(tot.in_allocator, 2);
	CHECK_EQ_U64(tot.to_regions, tot.faults - tot.to_allocations);
	fault_attrib__free(fa);
	alloc_track__free(t);
}

/* Many threads with faults waiting, some exiting: each list stays its own. */
static void test_threads(void)
{
	struct alloc_track *t = NULL;
	struct fault_attrib *fa = NULL;
	struct fault_totals tot;

	CHECK(!alloc_track__new(&t));
	CHECK(!alloc_track__index(t));
	CHECK(!fault_attrib__new(t, fake_place, NULL, &fa));
	for (pid_t tid = 1; tid <= 50; tid++)
		for (int i = 0; i < tid; i++)
			CHECK(!fault_attrib__fault(fa, PID, tid, 0x1000 * (uint64_t)(i + 1),
						   FAULT_FIRST_TOUCH, true));
	for (pid_t tid = 1; tid <= 50; tid += 2)
		CHECK(!fault_attrib__thread_exit(fa, PID, tid));
	fault_attrib__totals(fa, &tot);
	CHECK_EQ_U64(tot.waiting, 50 * 51 / 2 - 25 * 25);
	for (pid_t tid = 2; tid <= 50; tid += 2) {
		struct alloc_rec r = { .addr = 0x900000 + (uint64_t)tid * 4096, .size = 200,
				       .pid = PID, .stack = (uint32_t)tid };

		CHECK(!alloc_track__add(t, &r));
		CHECK(!fault_attrib__made(fa, &r));
		CHECK(!fault_attrib__returned(fa, PID, tid, &r));
		CHECK(find_site(fa, PID, (uint32_t)tid) &&
		      find_site(fa, PID, (uint32_t)tid)->in_allocator == (uint64_t)tid);
	}
	fault_attrib__totals(fa, &tot);
	CHECK_EQ_U64(tot.waiting, 0);
	CHECK_EQ_U64(tot.in_allocator, 25 * 26);
	CHECK_EQ_U64(tot.faults, 50 * 51 / 2);
	fault_attrib__free(fa);
	alloc_track__free(t);
}

int main(void)
{
	test_kinds_and_classes();
	test_attribution();
	test_threads();
	return check_done("test-fault-attrib");
}
