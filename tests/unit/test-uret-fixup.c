/*
 * test-uret-fixup: the pending-return table follows the kernel's rules
 * (push at an entry, pop at its return, frames left by longjmp dropped at
 * the next entry or return, chained tail calls sharing a slot, fork copies,
 * exit forgets), and the mending of a stack copy and of a frame-pointer
 * callchain puts back exactly the addresses the trampoline hid.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "stack/uret-fixup.h"

#define TRAMP 0x7fff0000ULL	/* the [uprobes] page */
#define TRAMP_END (TRAMP + 4096)

static void test_push_pop(void)
{
	struct uret_table *t = NULL;
	const struct uret_pending *p;
	size_t n;

	CHECK_EQ_U64(uret_table__new(&t), 0);
	CHECK(uret_table__pending(t, 7, &n) == NULL && n == 0);
	/* realloc at slot 0x1000 calls malloc at 0xf00 */
	CHECK_EQ_U64(uret_table__enter(t, 7, 0x1000, 0x401111, false), 0);
	CHECK_EQ_U64(uret_table__enter(t, 7, 0xf00, 0x7f0222, false), 0);
	p = uret_table__pending(t, 7, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(p[0].slot, 0x1000);
	CHECK_EQ_U64(p[0].ret, 0x401111);
	CHECK_EQ_U64(p[1].slot, 0xf00);
	CHECK_EQ_U64(p[1].ret, 0x7f0222);
	/* another thread is its own */
	CHECK(uret_table__pending(t, 8, &n) == NULL);
	/* malloc returns: %sp is its slot + 8 */
	uret_table__leave(t, 7, 0xf08);
	p = uret_table__pending(t, 7, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(p[0].slot, 0x1000);
	/* a return of no pending call (its entry lost) changes nothing above */
	uret_table__leave(t, 7, 0xe08);
	CHECK(uret_table__pending(t, 7, &n) != NULL && n == 1);
	uret_table__leave(t, 7, 0x1008);
	CHECK(uret_table__pending(t, 7, &n) == NULL && n == 0);
	uret_table__free(t);
}

static void test_longjmp(void)
{
	struct uret_table *t = NULL;
	const struct uret_pending *p;
	size_t n;

	CHECK_EQ_U64(uret_table__new(&t), 0);
	CHECK_EQ_U64(uret_table__enter(t, 1, 0x2000, 0xa, false), 0);
	CHECK_EQ_U64(uret_table__enter(t, 1, 0x1800, 0xb, false), 0);
	CHECK_EQ_U64(uret_table__enter(t, 1, 0x1400, 0xc, false), 0);
	/* longjmp out of both inner calls; the next entry is at 0x1c00:
	 * the calls at 0x1800 and 0x1400 never return */
	CHECK_EQ_U64(uret_table__enter(t, 1, 0x1c00, 0xd, false), 0);
	p = uret_table__pending(t, 1, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(p[0].slot, 0x2000);
	CHECK_EQ_U64(p[1].slot, 0x1c00);
	CHECK_EQ_U64(p[1].ret, 0xd);
	/* a new call at the same slot, not chained: the old one is dead */
	CHECK_EQ_U64(uret_table__enter(t, 1, 0x1c00, 0xe, false), 0);
	p = uret_table__pending(t, 1, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(p[1].ret, 0xe);
	/* a deeper call, then a longjmp out of it and the outermost's
	 * return: the inner ones go with it */
	CHECK_EQ_U64(uret_table__enter(t, 1, 0x1000, 0xf, false), 0);
	uret_table__leave(t, 1, 0x2008);
	CHECK(uret_table__pending(t, 1, &n) == NULL && n == 0);
	uret_table__free(t);
}

static void test_chained_fork_exit(void)
{
	struct uret_table *t = NULL;
	const struct uret_pending *p;
	size_t n;

	CHECK_EQ_U64(uret_table__new(&t), 0);
	/* reallocarray tail-jumps to realloc: realloc's entry sees the
	 * trampoline at the same slot; the original is reallocarray's */
	CHECK_EQ_U64(uret_table__enter(t, 3, 0x3000, 0x405555, false), 0);
	CHECK_EQ_U64(uret_table__enter(t, 3, 0x3000, TRAMP, true), 0);
	p = uret_table__pending(t, 3, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(p[1].ret, 0x405555);
	/* fork copies them, exit forgets */
	CHECK_EQ_U64(uret_table__fork(t, 3, 4), 0);
	p = uret_table__pending(t, 4, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(p[0].ret, 0x405555);
	CHECK_EQ_U64(uret_table__threads(t), 2);
	/* both returns of the chain fire at the one slot */
	uret_table__leave(t, 3, 0x3008);
	CHECK(uret_table__pending(t, 3, &n) != NULL && n == 1);
	uret_table__leave(t, 3, 0x3008);
	CHECK(uret_table__pending(t, 3, &n) == NULL);
	CHECK(uret_table__pending(t, 4, &n) != NULL && n == 2);
	uret_table__forget(t, 4);
	uret_table__forget(t, 3);
	CHECK_EQ_U64(uret_table__threads(t), 0);
	/* a chained entry with nothing pending at its slot: unknown */
	CHECK_EQ_U64(uret_table__enter(t, 5, 0x3000, TRAMP, true), 0);
	p = uret_table__pending(t, 5, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(p[0].ret, 0);
	uret_table__free(t);
	uret_table__free(NULL);
}

static void test_mend_stack(void)
{
	/* sp 0x8000, 64 bytes of copy; a pending malloc at 0x8018 (in the
	 * copy, trampoline there), an outer one at 0x8030 whose word is not
	 * the trampoline (not hijacked: left), one beyond the copy */
	uint64_t words[8] = { 0 };
	uint64_t regs[2] = { 0x8000, 0x7f001234 };	/* sp, ip: PERF_REG_X86_* order */
	struct uret_pending p[3] = { { 0x9000, 0x4000aa }, { 0x8030, 0x4000bb }, { 0x8018, 0x5555000cc000 } };
	struct unwind_patch patches[4];
	struct unwind_input in = {
		.pid = 1, .regs = regs,
		.regs_mask = (1ULL << PERF_REG_X86_IP) | (1ULL << PERF_REG_X86_SP),
		.stack = (const unsigned char *)words, .stack_size = sizeof(words),
	};
	uint64_t w = 0, ip = 0;
	uint32_t k;

	words[3] = TRAMP;		/* 0x8018 */
	words[6] = 0x4000bb;		/* 0x8030 */
	k = uret_fixup__stack(p, 3, &in, TRAMP, TRAMP_END, patches, 4);
	CHECK_EQ_U64(k, 1);
	CHECK_EQ_U64(patches[0].addr, 0x8018);
	CHECK_EQ_U64(patches[0].val, 0x5555000cc000);
	in.patches = patches;
	in.npatches = k;
	CHECK(unwind_input__read(&in, 0x8018, &w, 8));
	CHECK_EQ_U64(w, 0x5555000cc000);
	CHECK(unwind_input__read(&in, 0x8010, &w, 8));
	CHECK_EQ_U64(w, 0);
	/* a read over part of the patched word sees its bytes */
	{
		uint32_t half = 0;

		CHECK(unwind_input__read(&in, 0x801c, &half, 4));
		CHECK_EQ_U64(half, 0x5555);
	}
	/* no room: nothing written past max */
	CHECK_EQ_U64(uret_fixup__stack(p, 3, &in, TRAMP, TRAMP_END, patches, 0), 0);
	/* at the trampoline with sp 0x8020 (malloc's slot popped): it
	 * returns to malloc's caller */
	CHECK(uret_fixup__at_trampoline(p, 3, 0x8020, &ip));
	CHECK_EQ_U64(ip, 0x5555000cc000);
	CHECK(!uret_fixup__at_trampoline(p, 3, 0x8000, &ip));
}

static void test_mend_ips(void)
{
	/* innermost first: two trampolines for three pending returns, two
	 * of them chained (one slot, one frame) */
	struct uret_pending p[3] = { { 0x9000, 0x4000aa }, { 0x8030, 0x4000bb }, { 0x8030, 0x4000bb } };
	uint64_t ips[5] = { 0x7f0001, TRAMP, 0x7f0002, TRAMP, TRAMP };

	CHECK_EQ_U64(uret_fixup__ips(p, 3, TRAMP, TRAMP_END, ips, 5), 2);
	CHECK_EQ_U64(ips[0], 0x7f0001);
	CHECK_EQ_U64(ips[1], 0x4000bb);
	CHECK_EQ_U64(ips[2], 0x7f0002);
	CHECK_EQ_U64(ips[3], 0x4000aa);
	CHECK_EQ_U64(ips[4], TRAMP);	/* nothing more pending: left */
	CHECK_EQ_U64(uret_fixup__ips(NULL, 0, TRAMP, TRAMP_END, ips, 5), 0);
}

int main(void)
{
	test_push_pop();
	test_longjmp();
	test_chained_fork_exit();
	test_mend_stack();
	test_mend_ips();
	return check_done("test-uret-fixup");
}
