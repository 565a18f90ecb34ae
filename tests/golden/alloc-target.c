/*
 * alloc-target: the program of the golden heap recordings (regen.sh builds
 * it, records it and commits the binary beside the recordings).
 *
 * Its stacks hold its own frames only, so that a report of the committed
 * recordings prints the same text on a host whose libc is another: it has
 * its own _start (-nostartfiles), so no __libc_start_main frame is below
 * main, it makes no thread (start_thread and clone are libc's), uses no
 * stdio (printf mallocs its buffer from inside libc), and calls the
 * allocator from noinline, noipa functions only.  The allocator's own
 * frame, the first of every stack, is libc's: the reports drop it.
 *
 * Usage: alloc-target a | b.  Mode a, in this order:
 *   keep_small     6 x malloc(40), kept
 *   keep_calloc    3 x calloc(4, 100), kept
 *   grow_buffer    realloc(NULL, 64), then realloc to 256 and 1024, kept
 *   temp_buffers   16 x malloc(32 * i) then free: temporary
 *   peak_block     malloc(65536), filled, then freed: the peak
 *   drop_half      the first three keep_small blocks freed
 * Mode b: the same, and then
 *   keep_more      4 x malloc(512), kept: the growth a diff a -> b shows
 * then exit(0).  Phases are 100 ms apart (for the interval reports): the
 * first three sites | temp_buffers | peak_block | the rest.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "start.h"

#define NOINL __attribute__((noinline, noipa))

/* Not static: GCC drops the allocations whose blocks nothing reads. */
void *small[6], *more[4];

NOINL static void keep_small(void)
{
	for (int i = 0; i < 6; i++)
		small[i] = malloc(40);
}

void *zeroed[3], *grown;

NOINL static void keep_calloc(void)
{
	for (int i = 0; i < 3; i++)
		zeroed[i] = calloc(4, 100);
}

NOINL static void grow_buffer(void)
{
	for (size_t n = 64; n <= 1024; n *= 4)
		grown = realloc(grown, n);
}

NOINL static void temp_buffers(void)
{
	for (int i = 1; i <= 16; i++) {
		char *volatile p = malloc(32 * i);

		if (p)
			p[0] = (char)i;
		free(p);
	}
}

NOINL static void peak_block(void)
{
	char *volatile p = malloc(65536);

	if (p)
		memset(p, 1, 65536);
	free(p);
}

NOINL static void drop_half(void)
{
	for (int i = 0; i < 3; i++)
		free(small[i]);
}

NOINL static void keep_more(void)
{
	for (int i = 0; i < 4; i++)
		more[i] = malloc(512);
}

static void pause_100ms(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

NOINL static int run(int b)
{
	keep_small();
	keep_calloc();
	grow_buffer();
	pause_100ms();
	temp_buffers();
	pause_100ms();
	peak_block();
	pause_100ms();
	drop_half();
	if (b)
		keep_more();
	return 0;
}

NOINL void start_c(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);

	if (argc != 2 || (strcmp(argv[1], "a") && strcmp(argv[1], "b"))) {
		static const char usage[] = "usage: alloc-target a | b\n";

		if (write(2, usage, sizeof(usage) - 1) < 0)
			_exit(2);
		_exit(2);
	}
	exit(run(argv[1][0] == 'b'));
}
