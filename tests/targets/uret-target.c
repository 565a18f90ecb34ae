/*
 * uret-target: kernel events that happen inside malloc, for the test of
 * stacks through return probes (tests/system/uret-stacks.sh).
 *
 * big_allocs() mallocs BIG blocks of 1 MiB, above glibc's mmap threshold,
 * so each is one mmap(2) made inside malloc (sysmalloc); small_allocs()
 * mallocs SMALL blocks of 1000 bytes, so malloc grows the heap with brk(2)
 * and page-faults in _int_malloc as it writes each new top chunk's header.
 * With malloc's return probe pending, every one of those events has the
 * kernel's trampoline where malloc's return address was: its stack must
 * still run big_allocs/small_allocs -> main.  Prints "mmaps=BIG" (the
 * truth: one mmap per block) and keeps the blocks (no munmap, no trim).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BIG = 5, SMALL = 4000 };

static void *blocks[BIG + SMALL];

static __attribute__((noinline)) void big_allocs(void)
{
	for (int i = 0; i < BIG; i++)
		blocks[i] = malloc(1 << 20);
}

static __attribute__((noinline)) void small_allocs(void)
{
	for (int i = 0; i < SMALL; i++)
		blocks[BIG + i] = malloc(1000);
}

int main(void)
{
	char line[64];
	int n;

	big_allocs();
	small_allocs();
	for (int i = 0; i < BIG + SMALL; i++)
		if (!blocks[i])
			return 1;
	/* write(2), not stdio: stdio's buffer would be one more malloc. */
	n = snprintf(line, sizeof(line), "mmaps=%d\n", BIG);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
