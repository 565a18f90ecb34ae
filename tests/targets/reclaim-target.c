/*
 * reclaim-target: memory work of a known size, for the system tests of
 * `faultline reclaim` and `faultline swapin`.
 *
 * --file PATH --mb N [--passes P]
 *     Writes PATH with N MiB of non-zero data, fsyncs it and drops it from
 *     the page cache (POSIX_FADV_DONTNEED: clean pages go), then reads it
 *     whole P times (default 2) with read(2).  Run inside a memory cgroup
 *     whose limit is below N MiB, every pass must reclaim the cgroup's
 *     earlier page cache: memcg reclaim in this process, of clean pages.
 *     Prints file_pages=N*256, passes=P, read_pages=N*256*P.
 * --pageout PAGES
 *     Maps PAGES private anonymous pages (no THP, so each is one 4 KiB
 *     page), writes a non-zero byte pattern into each (the kernel keeps
 *     all-zero pages out of swap since 6.12: they would never be read
 *     back), asks MADV_PAGEOUT for all, and counts from /proc/self/pagemap
 *     how many are now in swap (what the kernel moved: MADV_PAGEOUT is
 *     best effort, some pages may stay; a kernel before 5.4 has no
 *     MADV_PAGEOUT: there the pages in swap are those that the limit of a
 *     memory cgroup the caller put it in pushed out during the writes).
 *     With --mlock, everything mapped before the region is locked first
 *     (mlockall MCL_CURRENT), so that such a limit takes none of it.
 *     Prints those two counts, then
 *     sleeps --gap-ms N (default 0) and waits for --go FIFO: a tracer
 *     attaches meanwhile.  Then reads one byte of every page (each
 *     swapped page is one swap-in, by one major fault), checks the pattern,
 *     and counts the pages still in swap.  Prints pages=PAGES,
 *     swapped_out=K (in swap after MADV_PAGEOUT), swapped_in=K-remaining,
 *     majflt=the process's major faults during the touching (getrusage).
 *     Exit 3 when no page went to swap (no swap device on).
 * Both print pid=P first (before --delay-ms) and the rest when done, then
 * sleep --hold-ms N and wait for --end FIFO.  --go FIFO comes after
 * --delay-ms: before the work of --file, before the swap-ins of --pageout.  Exit 2 on usage errors, 1 when a call fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define TRUTH_PROG "reclaim-target"
#define TRUTH_USAGE \
	"usage: reclaim-target (--file PATH --mb N [--passes P] | --pageout PAGES [--gap-ms N] [--mlock])\n" \
	"                      [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#define PAGE 4096UL
#define PM_SWAP (1ULL << 62)

static struct out out;
static unsigned char buf[1 << 16];

static void fail_call(const char *what)
{
	say(TRUTH_PROG ": ");
	say(what);
	say(" failed\n");
	exit(1);
}

static void run_file(const char *path, unsigned long mb, unsigned long passes)
{
	unsigned long total = mb << 20, done;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		fail_call("open");
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 1);
	for (done = 0; done < total; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			fail_call("write");
	if (fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		fail_call("fsync/fadvise");
	for (unsigned long p = 0; p < passes; p++) {
		if (lseek(fd, 0, SEEK_SET) < 0)
			fail_call("lseek");
		for (done = 0; done < total; done += sizeof(buf))
			if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				fail_call("read");
	}
	close(fd);
	unlink(path);
	out_kv(&out, "file_pages", mb * 256, 10);
	out_kv(&out, "passes", passes, 10);
	out_kv(&out, "read_pages", mb * 256 * passes, 10);
}

/* Pages of [p, p + n pages) whose pagemap entry says "swapped". */
static unsigned long count_swapped(const unsigned char *p, unsigned long n)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	unsigned long swapped = 0;
	uint64_t e;

	if (fd < 0)
		fail_call("open pagemap");
	for (unsigned long i = 0; i < n; i++) {
		off_t off = (off_t)(((uintptr_t)p / PAGE + i) * sizeof(e));

		if (pread(fd, &e, sizeof(e), off) != (ssize_t)sizeof(e))
			fail_call("pread pagemap");
		swapped += !!(e & PM_SWAP);
	}
	close(fd);
	return swapped;
}

static long majflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_majflt;
}

static void run_pageout(unsigned long pages, unsigned long gap_ms, int lock_rest)
{
	unsigned char *p;
	unsigned long out_n, left, bad = 0;
	volatile unsigned char sink = 0;
	long before;

	/* --mlock: everything mapped so far (stack, data, libc) stays in
	 * memory, so that a cgroup limit pushes out the region's pages only
	 * (the region, mapped next, is not locked: no MCL_FUTURE). */
	if (lock_rest && mlockall(MCL_CURRENT))
		fail_call("mlockall(MCL_CURRENT)");
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		fail_call("mmap");
	if (madvise(p, pages * PAGE, MADV_NOHUGEPAGE))
		fail_call("madvise(MADV_NOHUGEPAGE)");
	for (unsigned long i = 0; i < pages; i++)
		memset(p + i * PAGE, (int)(i % 251) + 1, PAGE);
	/* Before 5.4 no MADV_PAGEOUT (EINVAL): what went to swap is what a
	 * memory cgroup limit below PAGES pushed out during the writes. */
	if (madvise(p, pages * PAGE, MADV_PAGEOUT) && errno != EINVAL)
		fail_call("madvise(MADV_PAGEOUT)");
	out_n = count_swapped(p, pages);
	out_kv(&out, "pages", pages, 10);
	out_kv(&out, "swapped_out", out_n, 10);
	if (!out_n) {
		out_flush(&out);
		say(TRUTH_PROG ": no page went to swap (is a swap device on?)\n");
		exit(3);
	}
	/* What is measured is the swap-in: a tracer attaches here. */
	out_flush(&out);
	sleep_ms(gap_ms);
	wait_go(0);
	before = majflt();
	for (unsigned long i = 0; i < pages; i++) {
		sink = p[i * PAGE + 17];
		bad += sink != (unsigned char)((i % 251) + 1);
	}
	out_kv(&out, "majflt", (unsigned long long)(majflt() - before), 10);
	left = count_swapped(p, pages);
	out_kv(&out, "swapped_in", out_n - left, 10);
	if (bad)
		fail_call("pattern check");
	munmap(p, pages * PAGE);
}

int main(int argc, char **argv)
{
	unsigned long delay_ms = 0, hold_ms = 0, mb = 0, passes = 2, pageout = 0, gap_ms = 0;
	const char *file = NULL;
	int lock_rest = 0;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--file") == 0) {
			file = argv[++a];
			if (!file)
				die_usage("--file needs a path");
		} else if (strcmp(argv[a], "--mb") == 0) {
			mb = parse_num(argv[++a], "--mb needs a number");
		} else if (strcmp(argv[a], "--passes") == 0) {
			passes = parse_num(argv[++a], "--passes needs a number");
		} else if (strcmp(argv[a], "--pageout") == 0) {
			pageout = parse_num(argv[++a], "--pageout needs a number");
		} else if (strcmp(argv[a], "--mlock") == 0) {
			lock_rest = 1;
		} else if (strcmp(argv[a], "--gap-ms") == 0) {
			gap_ms = parse_num(argv[++a], "--gap-ms needs a number");
		} else {
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
		}
	}
	if (!!file == !!pageout || (file && !mb))
		die_usage("choose --file PATH --mb N or --pageout PAGES");
	out_kv(&out, "pid", (unsigned long long)getpid(), 10);
	out_flush(&out);
	sleep_ms(delay_ms);
	if (file) {
		wait_go(0);
		run_file(file, mb, passes);
	} else {
		run_pageout(pageout, gap_ms, lock_rest);
	}
	out_flush(&out);
	wait_end(hold_ms);
	return 0;
}
