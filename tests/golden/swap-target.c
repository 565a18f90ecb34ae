/*
 * swap-target: the program of the golden swapin recording (regen.sh
 * builds it, records it while a zram swap device of its own is on, and
 * commits the binary beside the recording).
 *
 * Static and without libc (-static -nostdlib, its own _start, raw system
 * calls), as fault-target: every frame and every mapping is its own.
 *
 * It maps 64 anonymous pages, writes a byte in each (page i holds i + 1,
 * so that none is zero-filled), pushes them out with MADV_PAGEOUT, counts
 * in /proc/self/pagemap how many went to swap (MADV_PAGEOUT is best
 * effort), reads every page back (on zram, a synchronous device, each
 * swapped page is one major fault: no swap cache, no readahead), and
 * prints its own account on stdout:
 *   swapped_out=N swapped_in=M majflt=K
 * M: the pages swapped out that are no longer in swap after the reads;
 * K: its getrusage major faults.  Exit 0, or 1 if a call failed or a page
 * read back differs.
 */
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "start.h"
#include "sys6.h"

#define NOINL __attribute__((noinline, noipa))
#define PAGE 4096
#define PAGES 64

/* How many of the PAGES pages at p are in swap (pagemap bit 62). */
static long in_swap(char *p)
{
	uint64_t ent[PAGES];
	long fd = sys6(SYS_open, (long)"/proc/self/pagemap", O_RDONLY, 0, 0, 0, 0), n = 0;

	if (fd < 0)
		return -1;
	if (sys6(SYS_pread64, fd, (long)ent, sizeof(ent), (long)((uintptr_t)p / PAGE * 8), 0, 0) !=
	    (long)sizeof(ent))
		n = -1;
	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	for (int i = 0; n >= 0 && i < PAGES; i++)
		n += (ent[i] >> 62) & 1;
	return n;
}

NOINL static void fill(volatile char *p)
{
	for (int i = 0; i < PAGES; i++)
		p[i * PAGE] = (char)(i + 1);
}

NOINL static int read_back(volatile char *p)
{
	int bad = 0;

	for (int i = 0; i < PAGES; i++)
		bad |= p[i * PAGE] != (char)(i + 1);
	return bad;
}

static char *put(char *o, const char *s, long v)
{
	char d[24];
	int n = 0;

	while (*s)
		*o++ = *s++;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n)
		*o++ = d[--n];
	return o;
}

NOINL void start_c(long *sp)
{
	char *p = (char *)sys6(SYS_mmap, 0, PAGES * PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long out, left, bad = 0;
	struct rusage ru;
	char line[96], *o;

	(void)sp;
	if ((long)p < 0)
		sys6(SYS_exit_group, 1, 0, 0, 0, 0, 0);
	fill(p);
	if (sys6(SYS_madvise, (long)p, PAGES * PAGE, MADV_PAGEOUT, 0, 0, 0) != 0)
		bad = 1;
	out = in_swap(p);
	bad |= read_back(p);
	left = in_swap(p);
	if (out < 0 || left < 0 || sys6(SYS_getrusage, RUSAGE_SELF, (long)&ru, 0, 0, 0, 0) != 0)
		sys6(SYS_exit_group, 1, 0, 0, 0, 0, 0);
	o = put(line, "swapped_out=", out);
	o = put(o, " swapped_in=", out - left);
	o = put(o, " majflt=", ru.ru_majflt);
	*o++ = '\n';
	sys6(SYS_write, 1, (long)line, o - line, 0, 0, 0);
	sys6(SYS_exit_group, bad, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}
