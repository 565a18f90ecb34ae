/*
 * touch-pages: a page-fault storm for bench/faults-overhead: maps N fresh
 * anonymous pages (huge pages off, so each page is one fault) and writes
 * one byte in each, like a large memset over new memory, timing only that
 * loop so every variant is measured by the same clock.
 *
 *   touch-pages [--pages N] [--delay-ms N] [--hold-ms N]
 *
 * Output, with write(2) only: pages=N, ns_per_page=N, cpu_ns_per_page=N
 * (this process's user + system time: the kernel's fault handling, and
 * any tracing done in its context), pid=P.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#define TRUTH_PROG "touch-pages"
#define TRUTH_USAGE "usage: touch-pages [--pages N] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

__attribute__((noinline)) static void touch_all(volatile char *p, unsigned long pages, long psz)
{
	for (unsigned long i = 0; i < pages; i++)
		p[i * (unsigned long)psz] = 1;
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long pages, delay_ms = 0, hold_ms = 0;
	long psz = sysconf(_SC_PAGESIZE);
	struct timespec a, b;
	uint64_t c0, c1;
	char *p;

	pages = parse_pages_opts(argc, argv, 100000, &delay_ms, &hold_ms);
	p = fresh_pages(pages, psz);
	wait_go(delay_ms);
	c0 = cpu_ns_self();
	clock_gettime(CLOCK_MONOTONIC, &a);
	touch_all(p, pages, psz);
	clock_gettime(CLOCK_MONOTONIC, &b);
	c1 = cpu_ns_self();
	out_kv(&o, "pages", pages, 10);
	out_kv(&o, "ns_per_page",
	       ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL + (uint64_t)b.tv_nsec -
		(uint64_t)a.tv_nsec) / pages, 10);
	out_kv(&o, "cpu_ns_per_page", (c1 - c0) / pages, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);
	wait_end(hold_ms);
	return 0;
}
