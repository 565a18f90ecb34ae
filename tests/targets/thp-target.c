/*
 * thp-target: THP collapses in known number, for the system tests of
 * `faultline compact`.
 *
 * What it does, in order:
 *   1. Parses --regions N (default 4), then maps N+1 THP sizes of private
 *      anonymous memory and, in the N THP-aligned sizes inside, writes one
 *      byte of every 4 KiB page, so that each region is 512 small pages
 *      (with THP "always", under MADV_NOHUGEPAGE, then MADV_HUGEPAGE to
 *      clear it); with "madvise" or "never" no advice, so that khugepaged
 *      never scans the regions and only MADV_COLLAPSE collapses them.
 *   2. Waits for --go FIFO (truth.h).
 *   3. The measured phase, main -> collapse_regions: madvise(MADV_COLLAPSE)
 *      of each region (Linux 6.1+), a synchronous collapse into one THP.
 *   4. Prints, measured: collapsed=N (calls that returned 0), and
 *      anon_huge_kb=K, the AnonHugePages of the whole process in
 *      /proc/self/smaps_rollup (summed over smaps where there is none)
 *      after the collapses; or collapse=unsupported
 *      when this kernel has no MADV_COLLAPSE (EINVAL on the first call).
 *      Then pid=P, waits for --end FIFO and exits 0 (1 on another error).
 *
 * With --fragment MB --faults N instead, direct compaction: maps MB MiB of
 * anonymous memory under MADV_NOHUGEPAGE, writes every 4 KiB page, then
 * frees every other one (MADV_DONTNEED), so that free memory is order-0
 * pages between movable ones; prints fragmented=PAGES (the pages freed),
 * waits for --go, then faults N THP-aligned 2 MiB regions under
 * MADV_HUGEPAGE (one write each: with THP defrag "always" each fault
 * that finds no free 2 MiB block compacts directly) and prints
 * faulted=N, anon_huge_kb=K as above, pid=P; waits for --end.
 */
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define TRUTH_PROG "thp-target"
#define TRUTH_USAGE "usage: thp-target [--regions N | --fragment MB --faults N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#define THP (2UL << 20)

static char *base;
static unsigned long regions = 4, collapsed;
static unsigned long frag_mb, faults;
static int unsupported;

__attribute__((noinline)) static void collapse_regions(void)
{
	for (unsigned long i = 0; i < regions; i++) {
		int r, tries = 0;

		/* EAGAIN is transient (madvise(2): a page could not be
		 * locked or isolated for a moment), and is said before any
		 * collapse event: asked again, as the man page says to. */
		while ((r = madvise(base + i * THP, THP, MADV_COLLAPSE)) != 0 && errno == EAGAIN &&
		       ++tries < 100)
			sched_yield();
		if (r == 0) {
			collapsed++;
		} else if (errno == EINVAL && i == 0) {
			unsupported = 1;
			return;
		} else {
			die_errno("madvise(MADV_COLLAPSE)");
		}
	}
}

/* AnonHugePages of smaps_rollup, in kB; summed over smaps where there is
 * no smaps_rollup (before 4.14: RHEL 7's 3.10). */
static unsigned long anon_huge_kb(void)
{
	static char buf[1 << 20];
	const char *key = "AnonHugePages:";
	unsigned long kb = 0;
	size_t len = 0;
	ssize_t n;
	char *p;
	int fd = open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_errno("open smaps_rollup");
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (!len)
		die_errno("read smaps_rollup");
	buf[len] = '\0';
	for (p = buf; (p = strstr(p, key)); p += strlen(key))
		kb += strtoul(p + strlen(key), NULL, 10);
	return kb;
}

/* Whether THP's "enabled" is [always]. */
static int thp_always(void)
{
	char buf[128];
	ssize_t n;
	int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, "[always]") != NULL;
}

/* --fragment MB --faults N (see the top). */
static int fragment_and_fault(struct out *out)
{
	size_t len = frag_mb << 20;
	unsigned long freed = 0;
	char *frag = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *map, *thp;

	if (frag == MAP_FAILED)
		die_errno("mmap");
	if (madvise(frag, len, MADV_NOHUGEPAGE))
		die_errno("madvise(MADV_NOHUGEPAGE)");
	for (size_t off = 0; off < len; off += 4096)
		frag[off] = 1;
	for (size_t off = 0; off < len; off += 2 * 4096, freed++)
		if (madvise(frag + off, 4096, MADV_DONTNEED))
			die_errno("madvise(MADV_DONTNEED)");
	out_kv(out, "fragmented", freed, 10);
	out_flush(out);
	out->len = 0;
	map = mmap(NULL, (faults + 1) * THP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (map == MAP_FAILED)
		die_errno("mmap");
	thp = (char *)(((unsigned long)map + THP - 1) & ~(THP - 1));
	if (madvise(thp, faults * THP, MADV_HUGEPAGE))
		die_errno("madvise(MADV_HUGEPAGE)");
	wait_go(0);
	for (unsigned long i = 0; i < faults; i++)
		thp[i * THP] = 1;
	out_kv(out, "faulted", faults, 10);
	out_kv(out, "anon_huge_kb", anon_huge_kb(), 10);
	out_kv(out, "pid", (unsigned long long)getpid(), 10);
	out_flush(out);
	wait_end(0);
	return 0;
}

int main(int argc, char **argv)
{
	static struct out out;
	unsigned long none = 0;
	char *map;
	int always;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--regions") == 0)
			regions = parse_num(argv[++a], "--regions needs a number");
		else if (strcmp(argv[a], "--fragment") == 0)
			frag_mb = parse_num(argv[++a], "--fragment needs a number");
		else if (strcmp(argv[a], "--faults") == 0)
			faults = parse_num(argv[++a], "--faults needs a number");
		else
			parse_shared_opt(argv, &a, &none, &none);
	}
	if (!regions || regions > 64)
		die_usage("--regions is 1 to 64");
	if (frag_mb || faults) {
		if (!frag_mb || !faults || faults > 4096)
			die_usage("--fragment MB needs --faults 1 to 4096");
		return fragment_and_fault(&out);
	}
	map = mmap(NULL, (regions + 1) * THP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (map == MAP_FAILED)
		die_errno("mmap");
	base = (char *)(((unsigned long)map + THP - 1) & ~(THP - 1));
	/* THP "always" would fault whole THPs in: small pages need
	 * NOHUGEPAGE while touching, and MADV_HUGEPAGE after it to clear
	 * that, which also lets khugepaged race the collapses.  Otherwise no
	 * advice at all: MADV_COLLAPSE needs none, and khugepaged then never
	 * scans this memory. */
	always = thp_always();
	if (always && madvise(base, regions * THP, MADV_NOHUGEPAGE))
		die_errno("madvise(MADV_NOHUGEPAGE)");
	for (unsigned long off = 0; off < regions * THP; off += 4096)
		base[off] = 1;
	if (always && madvise(base, regions * THP, MADV_HUGEPAGE))
		die_errno("madvise(MADV_HUGEPAGE)");
	wait_go(0);
	collapse_regions();
	if (unsupported) {
		out_str(&out, "collapse=unsupported\n");
	} else {
		out_kv(&out, "collapsed", collapsed, 10);
		out_kv(&out, "anon_huge_kb", anon_huge_kb(), 10);
	}
	out_kv(&out, "pid", (unsigned long long)getpid(), 10);
	out_flush(&out);
	wait_end(0);
	return 0;
}
