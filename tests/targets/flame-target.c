/*
 * flame-target: allocations whose four heaptrack measures differ from
 * site to site, so that a flame graph weighted by each (leaked, peak,
 * allocations, temporary) has a different shape, known exactly.
 *
 * Usage: flame-target [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]
 *
 * After --go, in this order, each site its own noinline function calling
 * the allocator from one call instruction (main -> work -> SITE -> malloc):
 *   temp_c     5 x (malloc(100), then free at once): 5 temporary
 *   hold_d     1 x malloc(6000), kept until release_d
 *   leak_a     1 x malloc(3000), kept
 *   leak_b     4 x malloc(250), kept
 *   release_d  frees hold_d's block: the peak was just before
 * So, site by site:    leaked  peak  allocations  temporary
 *          temp_c          0     0        5           5
 *          hold_d          0  6000        1           0
 *          leak_a       3000  3000        1           0
 *          leak_b       1000  1000        4           0
 * leak_a holds 3/4 of what these sites leak, leak_b 1/4.  The truth is
 * printed with write(2) (truth.h: no stdio, no malloc outside the sites):
 * "site fn=NAME leaked=N peak=N calls=N temporary=N" per site.
 */
#define TRUTH_PROG "flame-target"
#define TRUTH_USAGE "usage: flame-target [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#define NOINLINE __attribute__((noinline, noipa))

static void *volatile kept[8];
static void *volatile held;

NOINLINE static void temp_c(void)
{
	for (int i = 0; i < 5; i++) {
		void *volatile p = malloc(100);

		free(p);
	}
}

NOINLINE static void hold_d(void)
{
	held = malloc(6000);
}

NOINLINE static void leak_a(void)
{
	kept[0] = malloc(3000);
}

NOINLINE static void leak_b(void)
{
	for (int i = 0; i < 4; i++)
		kept[1 + i] = malloc(250);
}

NOINLINE static void release_d(void)
{
	free(held);
}

NOINLINE static int work(void)
{
	temp_c();
	hold_d();
	leak_a();
	leak_b();
	release_d();
	for (int i = 0; i < 5; i++)
		if (!kept[i])
			return 1;
	return 0;
}

static void site(struct out *o, const char *fn, unsigned long leaked, unsigned long peak,
		 unsigned long calls, unsigned long temporary)
{
	out_str(o, "site fn=");
	out_str(o, fn);
	out_str(o, " leaked=");
	out_num(o, leaked, 10);
	out_str(o, " peak=");
	out_num(o, peak, 10);
	out_str(o, " calls=");
	out_num(o, calls, 10);
	out_str(o, " temporary=");
	out_num(o, temporary, 10);
	out_str(o, "\n");
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0;
	int ret;

	for (int a = 1; a < argc; a++)
		parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	wait_go(delay_ms);
	ret = work();
	site(&o, "temp_c", 0, 0, 5, 5);
	site(&o, "hold_d", 0, 6000, 1, 0);
	site(&o, "leak_a", 3000, 3000, 1, 0);
	site(&o, "leak_b", 1000, 1000, 4, 0);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);
	wait_end(hold_ms);
	return ret;
}
