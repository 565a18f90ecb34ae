/*
 * heap-places: one function calling the allocator from two places, for
 * heap's sections where only one of the two counts (tests/system/
 * heap-summary.sh).  main -> toss -> place mallocs 50 bytes and toss frees
 * them at once: a temporary allocation, not live at the peak; then main ->
 * keep -> place mallocs 100 bytes, kept to the end: the peak, and the
 * leak.  So heap's group "place" (the allocator's caller) has two stacks,
 * one call each: in the temporary section toss's counts and keep's is 0,
 * in the peak and leak sections keep's counts and toss's is 0.  Nothing
 * else allocates: truth.h uses no stdio, and a C program makes no malloc
 * call before main.
 *
 * Usage: heap-places [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO].
 * Ground truth on stdout (write(2) only): calls=2 temporary=1 peak_bytes=100
 * leaked_bytes=100.  Exit 0 (1 when malloc fails, 2 on a usage error).
 */
#define TRUTH_PROG "heap-places"
#define TRUTH_USAGE "usage: heap-places [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"

#include "truth.h"

static void *volatile kept;

__attribute__((noinline, noipa)) static void *place(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		say(TRUTH_PROG ": malloc failed\n");
		exit(1);
	}
	return p;
}

__attribute__((noinline, noipa)) static void toss(void)
{
	free(place(50));
}

__attribute__((noinline, noipa)) static void keep(void)
{
	kept = place(100);
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0;

	for (int a = 1; a < argc; a++)
		parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	wait_go(delay_ms);
	toss();
	keep();
	out_kv(&o, "calls", 2, 10);
	out_kv(&o, "temporary", 1, 10);
	out_kv(&o, "peak_bytes", 100, 10);
	out_kv(&o, "leaked_bytes", 100, 10);
	out_flush(&o);
	wait_end(hold_ms);
	return 0;
}
