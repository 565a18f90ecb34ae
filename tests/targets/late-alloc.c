/*
 * late-alloc: allocates through an allocator library it dlopen's once
 * running, and prints its own account of what it leaked there
 * (tests/system/late-alloc.sh).
 *
 * usage: late-alloc LIB [--probed FIFO] [--go FIFO] [--end FIFO]
 *   --go FIFO      wait before dlopen()ing LIB (a tracer attaches first)
 *   --probed FIFO  wait after dlopen(), before the first call into LIB (a
 *                  tracer probes LIB meanwhile)
 *   --end FIFO     wait after the account is printed
 *
 * Through LIB's malloc, calloc, realloc and free, called by dlsym()'s
 * pointers (the program's own malloc stays glibc's; dl-alloc.h, which
 * wants aligned_alloc of LIB too): late_keep keeps 40
 * blocks of 1000 B, late_zeroed 10 of 5 x 100 B, late_grown 5 grown by
 * realloc from 10 B to 3000 B (the 10 B blocks freed by it), temp_late
 * frees its 20 blocks of 700 B.  Printed as "site fn=F bytes=B count=C"
 * lines, then "late_bytes=B late_count=C".
 */
#define TRUTH_PROG "late-alloc"
#define TRUTH_USAGE "usage: late-alloc LIB [--probed FIFO] [--go FIFO] [--end FIFO]\n"
#include "truth.h"
#include "dl-alloc.h"

#include <stdio.h>

static struct dl_alloc lib;
static void *kept[55];

void late_keep(void)
{
	for (int i = 0; i < 40; i++)
		kept[i] = lib.malloc_fn(1000);
}

void late_zeroed(void)
{
	for (int i = 0; i < 10; i++)
		kept[40 + i] = lib.calloc_fn(5, 100);
}

void late_grown(void)
{
	for (int i = 0; i < 5; i++)
		kept[50 + i] = lib.realloc_fn(lib.malloc_fn(10), 3000);
}

void temp_late(void)
{
	for (int i = 0; i < 20; i++)
		lib.free_fn(lib.malloc_fn(700));
}

int main(int argc, char **argv)
{
	static char out[512];
	const char *probed;
	unsigned long delay = 0, hold = 0;
	int n;

	dl_alloc_opts(argc, argv, &probed, &delay, &hold);
	wait_go(delay);
	dl_alloc_open(argv[1], &lib);
	wait_fifo(probed);
	late_keep();
	late_zeroed();
	late_grown();
	temp_late();
	for (int i = 0; i < 55; i++)
		if (!kept[i]) {
			say(TRUTH_PROG ": an allocation failed\n");
			return 1;
		}
	n = snprintf(out, sizeof(out),
		     "site fn=late_keep bytes=40000 count=40\n"
		     "site fn=late_zeroed bytes=5000 count=10\n"
		     "site fn=late_grown bytes=15000 count=5\n"
		     "late_bytes=60000 late_count=55\n");
	(void)!write(1, out, (size_t)n);
	wait_end(hold);
	return 0;
}
