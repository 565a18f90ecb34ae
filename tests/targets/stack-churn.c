/*
 * stack-churn: malloc/free pairs from many distinct stacks, for
 * bench/reader-throughput (how many DWARF stacks a second the reader
 * unwinds when they are not all the same one).
 *
 *   stack-churn [--count N] [--depth D] [--delay-ms N] [--hold-ms N]
 *
 * Pair i descends D levels before its malloc; at level k it goes through
 * left() or right() as bit k of i says, so the pairs cycle through 2^D
 * distinct call paths (D = 0: one stack, all pairs alike; at most 20).
 * Each level has its own frame (noinline; targets build without sibling
 * calls), as a program's call tree does.  Output, with write(2) only: pairs=N, stacks=2^D,
 * ns_per_pair=N, cpu_ns_per_pair=N, pid=P.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define TRUTH_PROG "stack-churn"
#define TRUTH_USAGE "usage: stack-churn [--count N] [--depth D] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

static void *volatile sink;

__attribute__((noinline)) static void leaf(unsigned long i)
{
	void *p = malloc(16 + i % 512);

	sink = p;
	free(p);
}

static void descend(unsigned long i, unsigned int level, unsigned int depth);

/* Two frames that differ only in where they are: the bit picks one. */
__attribute__((noinline)) static void left(unsigned long i, unsigned int level, unsigned int depth)
{
	descend(i, level + 1, depth);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void right(unsigned long i, unsigned int level, unsigned int depth)
{
	descend(i, level + 1, depth);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void descend(unsigned long i, unsigned int level, unsigned int depth)
{
	if (level == depth) {
		leaf(i);
		return;
	}
	if ((i >> level) & 1)
		right(i, level, depth);
	else
		left(i, level, depth);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long n = 100000, depth = 0, delay_ms = 0, hold_ms = 0;
	uint64_t t0, t1, c0, c1;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--count") == 0)
			n = parse_num(argv[++a], "--count needs a number");
		else if (strcmp(argv[a], "--depth") == 0)
			depth = parse_num(argv[++a], "--depth needs a number");
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (!n || depth > 20)
		die_usage("--count must be at least 1 and --depth at most 20");
	free(malloc(1));	/* malloc set up before the clock starts */
	wait_go(delay_ms);
	c0 = cpu_ns_self();
	t0 = clock_ns_of(CLOCK_MONOTONIC);
	for (unsigned long i = 0; i < n; i++)
		descend(i, 0, (unsigned int)depth);
	t1 = clock_ns_of(CLOCK_MONOTONIC);
	c1 = cpu_ns_self();
	out_kv(&o, "pairs", n, 10);
	out_kv(&o, "stacks", 1UL << depth, 10);
	out_kv(&o, "ns_per_pair", (t1 - t0) / n, 10);
	out_kv(&o, "cpu_ns_per_pair", (c1 - c0) / n, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);
	wait_end(hold_ms);
	return 0;
}
