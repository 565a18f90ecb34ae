/*
 * deep-target: one mmap(2) and one brk(2), made through libc at the end
 * of a known call chain eleven frames deep that crosses a shared library
 * of ours (libdeep.so) and libc's qsort, for the system tests of DWARF
 * unwinding (tests/system/dwarf.sh).  Built -O2 -fomit-frame-pointer, as
 * distributions build code: a frame-pointer walk loses most of the chain;
 * only the CFI of the three objects finds every frame.
 *
 * The chain, outermost first (exe = this program, lib = libdeep.so):
 *   main -> run_deep (exe) -> deep_level_1 (exe) -> deep_lib_enter (lib)
 *   -> deep_lib_sort (lib: qsort of a two-element array)
 *   -> [qsort's internal frames, in libc; they depend on the glibc
 *       version: in 2.36 qsort jumps to qsort_r (no frame of its own),
 *       which calls msort_with_tmp]
 *   -> deep_compare (exe: the comparator; two elements make exactly one
 *      comparison, and it does the work on its first call only)
 *   -> deep_level_2 (exe) -> deep_lib_leaf (lib), which calls in turn
 *        deep_do_mmap (exe) -> mmap (libc): 65536 bytes, RW, private
 *                              anonymous;
 *        deep_do_sbrk (exe) -> sbrk (libc) -> brk (libc): grows the break
 *                              by 65536 bytes, one brk syscall.
 * Every function of the chain is kept out of interprocedural optimisation
 * (noipa: no inlining, cloning or splitting) and does something after
 * each call, so no call is a sibling call that would drop a frame.
 *
 * What it does, in order:
 *   1. Parses options.  Primes libc's cached break with sbrk(0), so that
 *      the sbrk in the chain is exactly one brk syscall.  Process startup
 *      (ld.so) makes mmap and brk calls of its own before this.
 *   2. Sleeps --delay-ms N (default 0), then waits for --go FIFO (truth.h),
 *      so a tracer attaching with -p is ready before the work.
 *   3. The work: main -> run_deep, the chain above.  Nothing else in the
 *      process calls mmap or brk from here to its exit.
 *   4. Prints the ground truth with write(2) only (stdio would malloc a
 *      buffer):
 *        chain=deep_do_mmap,deep_lib_leaf,deep_level_2,deep_compare,
 *              [libc],deep_lib_sort,deep_lib_enter,deep_level_1,run_deep,main
 *        sbrk_chain=deep_do_sbrk,deep_lib_leaf,...,main (the same after
 *              the first name)
 *      (one line each): the frames innermost first, from the caller of
 *      libc's syscall wrapper (mmap; sbrk, which calls brk) down to main.
 *      "[libc]" stands for one or more frames of qsort's inside libc.
 *      Then compare_calls=1, mmap_addr=0x..., mmap_len=65536,
 *      sbrk_ret=0x... (the old break, where the new 65536 bytes start),
 *      sbrk_len=65536, pid=P.
 *   5. Sleeps --hold-ms N (default 0), then waits for --end FIFO and exits
 *      0.  Exit 1 if a call failed or the comparator was not called, 2 on a
 *      usage error.
 *
 * --exit-early: _exit(2)s right after printing the ground truth, skipping
 * --hold-ms and libc's exit path, so the process and its /proc entry may
 * be gone while a tracer still holds its samples (the tracer must have
 * unwound them from what it kept).  Under `faultline -c` the target always
 * exits before the report anyway; this matters with -p.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TRUTH_PROG "deep-target"
#define TRUTH_USAGE "usage: deep-target [--exit-early] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#include "libdeep.h"

#if defined(__clang__)
#define DEEP_FRAME __attribute__((noinline))
#else
#define DEEP_FRAME __attribute__((noipa))
#endif

#define DEEP_MMAP_LEN 65536UL
#define DEEP_SBRK_LEN 65536L

/* The ground truth, by construction of the calls below. */
#define CHAIN_TAIL "deep_lib_leaf,deep_level_2,deep_compare,[libc],deep_lib_sort," \
		   "deep_lib_enter,deep_level_1,run_deep,main"
#define MMAP_CHAIN "deep_do_mmap," CHAIN_TAIL
#define SBRK_CHAIN "deep_do_sbrk," CHAIN_TAIL

/* A test program's whole state; plain statics keep it obvious. */
static void *mmap_addr = MAP_FAILED;
static void *sbrk_ret = (void *)-1;
static unsigned int compare_calls;
static int work_result = -1;
/* Written after each call: the work the compiler may not move before it. */
static volatile unsigned long steps;

DEEP_FRAME static int deep_do_mmap(void)
{
	mmap_addr = mmap(NULL, DEEP_MMAP_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	steps++;
	return mmap_addr == MAP_FAILED ? -1 : 0;
}

DEEP_FRAME static int deep_do_sbrk(void)
{
	sbrk_ret = sbrk(DEEP_SBRK_LEN);
	steps++;
	return sbrk_ret == (void *)-1 ? -1 : 0;
}

DEEP_FRAME static int deep_level_2(void)
{
	int ret = deep_lib_leaf(deep_do_mmap, deep_do_sbrk);

	steps++;
	return ret;
}

/* qsort's comparator.  Two elements make one comparison in every qsort
 * algorithm; should a libc compare more, the chain still runs once. */
DEEP_FRAME static int deep_compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (compare_calls++ == 0)
		work_result = deep_level_2();
	steps++;
	return (x > y) - (x < y);
}

DEEP_FRAME static int deep_level_1(void)
{
	int ret = deep_lib_enter(deep_compare);

	steps++;
	return ret;
}

DEEP_FRAME static int run_deep(void)
{
	int ret = deep_level_1();

	steps++;
	return ret;
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0;
	int a, exit_early = 0, sorted, failed;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--exit-early") == 0)
			exit_early = 1;
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}

	/* The first sbrk may call brk(0) to learn the break: do it here,
	 * outside the chain. */
	(void)sbrk(0);
	wait_go(delay_ms);

	sorted = run_deep();
	failed = sorted != 0 || work_result != 0 || compare_calls == 0;

	out_str(&o, "chain=" MMAP_CHAIN "\n");
	out_str(&o, "sbrk_chain=" SBRK_CHAIN "\n");
	out_kv(&o, "compare_calls", compare_calls, 10);
	out_kv(&o, "mmap_addr", (uintptr_t)mmap_addr, 16);
	out_kv(&o, "mmap_len", DEEP_MMAP_LEN, 10);
	out_kv(&o, "sbrk_ret", (uintptr_t)sbrk_ret, 16);
	out_kv(&o, "sbrk_len", (unsigned long long)DEEP_SBRK_LEN, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);

	if (failed)
		say("deep-target: the sort, the mmap or the sbrk failed\n");
	if (exit_early)
		_exit(failed);
	if (!failed)
		wait_end(hold_ms);
	return failed;
}
