/*
 * huge-target: huge-page faults in known number, for the system tests of
 * `faultline hfaults`.
 *
 * Usage: huge-target [--delay-ms N] [--hold-ms N] [--thp N].
 *
 * What it does, in order:
 *   1. Warm-up: checks that pages are 4 KiB, learns the default hugetlb
 *      page size (/proc/meminfo Hugepagesize) and the THP size
 *      (/sys/kernel/mm/transparent_hugepage/hpage_pmd_size; on kernels
 *      without it, such as 3.10, the span of a page-table page), and writes
 *      every static it uses later, so none of them faults in the phase.
 *   2. Sleeps --delay-ms N (default 0), then waits for --go FIFO (truth.h),
 *      so a tracer attaching with -p is ready.
 *   3. The measured phase:
 *        thp      mmap(5 THP sizes) anonymous, private; the 4 THP-aligned
 *                 THP sizes inside it get MADV_HUGEPAGE; one byte written
 *                 in each: 4 faults, each mapping a THP when the kernel
 *                 has one to give (THP "madvise" or "always").
 *        hugetlb  mmap(3 hugetlb pages, MAP_HUGETLB): the pool must have
 *                 3 free (the test raises vm.nr_hugepages); one byte
 *                 written in each: 3 faults.  mmap reserves the pages, so
 *                 once it succeeds the touches cannot fail.
 *        small    mmap(64 pages) with MADV_NOHUGEPAGE, one byte written in
 *                 each: 64 ordinary faults that no huge-page count may
 *                 include.
 *   4. Prints the ground truth with write(2) only, measured, not assumed:
 *        thp_touched=4
 *        thp_region_pages=N   AnonHugePages of the region's mapping in
 *                             /proc/self/smaps, in THPs
 *        thp_pages=N          AnonHugePages of the whole process, in THPs:
 *                             the THP faults an exact tool counts (under
 *                             THP "always" the stack or data may have some)
 *        hugetlb_pages=N      Private_Hugetlb + Shared_Hugetlb of the whole
 *                             process, in hugetlb pages (before 4.4, whose
 *                             smaps lacks them: the drop of /proc/meminfo
 *                             HugePages_Free over the touches): 3, or 0 with
 *        reason=WHY           mmap-ENOMEM (no free pool pages) or the like
 *        small_pages=64
 *        thp_size_kb=, hugetlb_size_kb=, pid=
 *   5. Sleeps --hold-ms N (default 0), then waits for --end FIFO, so that a
 *      tracer still finds the pages when it looks them up, and exits 0; 2
 *      on a usage error, 1 if a call fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define TRUTH_PROG "huge-target"
#define TRUTH_USAGE "usage: huge-target [--delay-ms N] [--hold-ms N] [--thp N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#define PAGE 4096UL
#define THP_TOUCH 4	/* THPs touched unless --thp says */
#define THP_MAX 512
#define HUGETLB_TOUCH 3
#define SMALL_TOUCH 64

static struct out o;
/* /proc/self/smaps and friends; large enough for any process this small. */
static char text[1 << 20];
static unsigned long thp_size, hugetlb_size;
static int hugetlb_errno;
static int failed;
static unsigned long thp_touch = THP_TOUCH;

/* Reads PATH into text (NUL-terminated); its length, or -1. */
static long slurp(const char *path)
{
	size_t len = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len < sizeof(text) - 1) {
		r = read(fd, text + len, sizeof(text) - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	text[len] = '\0';
	return (long)len;
}

/* The number after "KEY:" in the line starting at P (kB in smaps and
 * meminfo), or 0. */
static unsigned long value_of(const char *p, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(p, key, n) || p[n] != ':')
		return 0;
	return strtoul(p + n + 1, NULL, 10);
}

/*
 * Sums KEY (kB) over the mappings of /proc/self/smaps; with ADDR != 0,
 * over the one mapping holding ADDR only.
 */
static unsigned long smaps_kb(const char *key, uintptr_t addr)
{
	unsigned long sum = 0;
	int in = !addr;

	if (slurp("/proc/self/smaps") < 0) {
		failed = 1;
		return 0;
	}
	for (char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		char *end;
		unsigned long start = strtoul(p, &end, 16);

		if (*end == '-' && addr) {
			unsigned long stop = strtoul(end + 1, NULL, 16);

			in = addr >= start && addr < stop;
			continue;
		}
		if (in)
			sum += value_of(p, key);
	}
	return sum;
}

static void learn_sizes(void)
{
	char *p;

	if (slurp("/proc/meminfo") >= 0 && (p = strstr(text, "\nHugepagesize:")))
		hugetlb_size = value_of(p + 1, "Hugepagesize") * 1024;
	if (slurp("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size") > 0)
		thp_size = strtoul(text, NULL, 10);
	else if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
		/* No hpage_pmd_size (3.10 has none): a THP spans one page-table
		 * page of 8-byte entries, each mapping a 4 KiB page. */
		thp_size = PAGE * (PAGE / sizeof(uint64_t));
}

/* Whether /proc/self/smaps has KEY (Private_Hugetlb: 4.4+). */
static int smaps_has(const char *key)
{
	char want[64];

	if (slurp("/proc/self/smaps") < 0)
		return 0;
	want[0] = '\n';
	strncpy(want + 1, key, sizeof(want) - 3);
	want[sizeof(want) - 2] = '\0';
	strcat(want, ":");
	return strstr(text, want) != NULL;
}

/* /proc/meminfo's HugePages_Free. */
static unsigned long hugetlb_free(void)
{
	char *p;

	if (slurp("/proc/meminfo") < 0 || !(p = strstr(text, "\nHugePages_Free:")))
		return 0;
	return value_of(p + 1, "HugePages_Free");
}

static const char *errno_name(int e)
{
	switch (e) {
	case ENOMEM:
		return "mmap-ENOMEM";
	case EINVAL:
		return "mmap-EINVAL";
	case EPERM:
		return "mmap-EPERM";
	case ENOSYS:
		return "mmap-ENOSYS";
	}
	return "mmap-failed";
}

/* ---- the phase ---- */

static uintptr_t thp_region;

static void fault_thp(void)
{
	char *map;
	uintptr_t start;
	unsigned int i;

	if (!thp_size)
		return;
	map = mmap(NULL, (thp_touch + 1) * thp_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		failed = 1;
		return;
	}
	start = ((uintptr_t)map + thp_size - 1) & ~(uintptr_t)(thp_size - 1);
	if (madvise((void *)start, thp_touch * thp_size, MADV_HUGEPAGE))
		failed = 1;
	for (i = 0; i < thp_touch; i++)
		((volatile char *)start)[i * thp_size + 100] = 1;
	thp_region = start;
}

static void fault_hugetlb(void)
{
	char *map;
	unsigned int i;

	if (!hugetlb_size) {
		hugetlb_errno = ENOSYS;
		return;
	}
	map = mmap(NULL, HUGETLB_TOUCH * hugetlb_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (map == MAP_FAILED) {
		hugetlb_errno = errno;
		return;
	}
	for (i = 0; i < HUGETLB_TOUCH; i++)
		((volatile char *)map)[i * hugetlb_size + 200] = 2;
}

static void fault_small(void)
{
	char *map = mmap(NULL, SMALL_TOUCH * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i;

	if (map == MAP_FAILED || madvise(map, SMALL_TOUCH * PAGE, MADV_NOHUGEPAGE)) {
		failed = 1;
		return;
	}
	for (i = 0; i < SMALL_TOUCH; i++)
		((volatile char *)map)[i * PAGE] = 3;
}

int main(int argc, char **argv)
{
	unsigned long delay_ms = 0, hold_ms = 0, thp_kb, free_before, free_after;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--thp") == 0) {
			thp_touch = parse_num(argv[++a], "--thp needs a number");
			if (!thp_touch || thp_touch > THP_MAX)
				die_usage("--thp wants 1 to 512");
			continue;
		}
		parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (sysconf(_SC_PAGESIZE) != (long)PAGE) {
		say("huge-target: needs 4 KiB pages\n");
		return 1;
	}
	learn_sizes();
	memset(o.buf, 0, sizeof(o.buf));
	memset(text, 0, sizeof(text));
	wait_go(delay_ms);

	fault_thp();
	free_before = hugetlb_free();
	fault_hugetlb();
	free_after = hugetlb_free();
	fault_small();

	thp_kb = thp_size / 1024;
	out_kv(&o, "thp_touched", thp_size ? thp_touch : 0, 10);
	out_kv(&o, "thp_region_pages",
	       thp_region ? smaps_kb("AnonHugePages", thp_region) / thp_kb : 0, 10);
	out_kv(&o, "thp_pages", thp_kb ? smaps_kb("AnonHugePages", 0) / thp_kb : 0, 10);
	if (hugetlb_errno) {
		out_kv(&o, "hugetlb_pages", 0, 10);
		out_str(&o, "reason=");
		out_str(&o, errno_name(hugetlb_errno));
		out_str(&o, "\n");
	} else if (smaps_has("Private_Hugetlb")) {
		out_kv(&o, "hugetlb_pages", (smaps_kb("Private_Hugetlb", 0) +
					     smaps_kb("Shared_Hugetlb", 0)) / (hugetlb_size / 1024), 10);
	} else {
		/* Before 4.4 smaps has no hugetlb fields: the pool pages the
		 * touches took (a quiet machine: nothing else takes any). */
		out_kv(&o, "hugetlb_pages", free_before - free_after, 10);
	}
	out_kv(&o, "small_pages", SMALL_TOUCH, 10);
	out_kv(&o, "thp_size_kb", thp_kb, 10);
	out_kv(&o, "hugetlb_size_kb", hugetlb_size / 1024, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);
	wait_end(hold_ms);
	if (failed) {
		say("huge-target: a call failed\n");
		return 1;
	}
	return 0;
}
