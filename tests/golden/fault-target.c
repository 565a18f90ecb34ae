/*
 * fault-target: the program of the golden faults recording (regen.sh
 * builds it, records it and commits the binary beside the recording).
 *
 * Static and without libc (-static -nostdlib: its own _start, raw system
 * calls), so that every frame of every stack, and every page it faults,
 * is its own: a report prints the same text on any host.
 *
 * In this order, 100 ms apart (for faults --interval):
 *   write_pages   an anonymous mmap of 8 pages, one byte written in each:
 *                 8 write faults
 *   read_pages    an anonymous mmap of 4 pages, one byte read from each:
 *                 4 read faults (the zero page)
 *   write_again   those 4 pages written: 4 write faults (copy on write of
 *                 the zero page)
 * then exit(0).
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#include "start.h"
#include "sys6.h"

#define NOINL __attribute__((noinline, noipa))
#define PAGE 4096

static char *map_pages(int n)
{
	return (char *)sys6(SYS_mmap, 0, (long)n * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void pause_100ms(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	sys6(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
}

NOINL static void write_pages(volatile char *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i * PAGE] = 1;
}

NOINL static int read_pages(volatile char *p, int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += p[i * PAGE];
	return sum;
}

NOINL static void write_again(volatile char *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i * PAGE] = 2;
}

NOINL void start_c(long *sp)
{
	char *a = map_pages(8), *b = map_pages(4);
	int st = 0;

	(void)sp;
	if ((long)a < 0 || (long)b < 0)
		st = 1;
	else {
		write_pages(a, 8);
		pause_100ms();
		st = read_pages(b, 4) != 0;
		pause_100ms();
		write_again(b, 4);
	}
	sys6(SYS_exit_group, st, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}
