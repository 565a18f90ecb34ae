/*
 * test-pageflags: the page kinds of this test's own memory, as the kernel
 * has them: a transparent huge page it faults in with MADV_HUGEPAGE (its
 * head PFN, start and size; every address in it gives the same head), the
 * PMD-sized page a read maps beside it (the huge zero page, or a THP),
 * base pages, a page never touched, a hugetlb page when the pool has one
 * free, and processes that are gone (exited, zombie).  The THP is confirmed independently by /proc/self/smaps
 * (AnonHugePages) first: where the kernel gives no THP (enabled=never, no
 * 2 MiB block free) the test is skipped with that reason, as it is without
 * root (kpageflags and PFNs are root's).  The size parsing runs on a made
 * sysfs tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/pageflags.h"
#include "check.h"

#define MIB (1024UL * 1024)

/* AnonHugePages (kB) of the mapping of /proc/self/smaps that holds @addr,
 * or -1 when it cannot be read. */
static long anon_huge_kb(uintptr_t addr)
{
	char line[512];
	bool in = false;
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = addr >= start && addr < end;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static void skip(const char *why)
{
	printf("test-pageflags: SKIP: %s\n", why);
	exit(77);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* pageflags__new on a made tree: the THP size from hpage_pmd_size, none
 * when it is malformed, or absent without transparent_hugepage/enabled
 * (with it, as on 3.10: the PMD's span); no kpageflags is -ENOENT. */
static void test_roots(void)
{
	char dir[] = "/tmp/test-pageflags.XXXXXX", path[1024], proc[256], sys[256];
	struct errbuf eb = { "" };
	struct pageflags *pf = NULL;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(sys, sizeof(sys), "%s/sys", dir);
	mkdir(proc, 0755);
	CHECK_EQ_U64(pageflags__new(proc, sys, &pf, &eb), -ENOENT);
	CHECK(pf == NULL);
	CHECK(strstr(eb.msg, "kpageflags") != NULL);

	snprintf(path, sizeof(path), "%s/kpageflags", proc);
	write_text(path, "");
	CHECK_EQ_U64(pageflags__new(proc, sys, &pf, &eb), 0);
	CHECK_EQ_U64(pageflags__thp_size(pf), 0);	/* no sysfs at all */
	pageflags__free(pf);

	snprintf(path, sizeof(path), "%s/kernel", sys);
	mkdir(sys, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/mm", sys);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage", sys);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/hpage_pmd_size", sys);
	write_text(path, "2097152\n");
	CHECK_EQ_U64(pageflags__new(proc, sys, &pf, &eb), 0);
	CHECK_EQ_U64(pageflags__thp_size(pf), 2 * MIB);
	pageflags__free(pf);
	write_text(path, "2097153\n");		/* not a power of two */
	CHECK_EQ_U64(pageflags__new(proc, sys, &pf, &eb), 0);
	CHECK_EQ_U64(pageflags__thp_size(pf), 0);
	pageflags__free(pf);
	write_text(path, "big\n");
	CHECK_EQ_U64(pageflags__new(proc, sys, &pf, &eb), 0);
	CHECK_EQ_U64(pageflags__thp_size(pf), 0);
	pageflags__free(pf);
	pageflags__free(NULL);

	/* 3.10: the directory without hpage_pmd_size, the size computed
	 * where the PMD's span is known. */
	unlink(path);
	CHECK_EQ_U64(pageflags__new(proc, sys, &pf, &eb), 0);
	CHECK_EQ_U64(pageflags__thp_size(pf), 0);	/* no "enabled" either */
	pageflags__free(pf);
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled", sys);
	write_text(path, "[always] madvise never\n");
	CHECK_EQ_U64(pageflags__new(proc, sys, &pf, &eb), 0);
#if defined(__x86_64__) || defined(__aarch64__)
	if (sysconf(_SC_PAGESIZE) == 4096)
		CHECK_EQ_U64(pageflags__thp_size(pf), 2 * MIB);
#endif
	pageflags__free(pf);

	unlink(path);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
}

/* A child that exited and was reaped, and one left a zombie: both -ESRCH. */
static void test_gone(struct pageflags *pf, uintptr_t addr)
{
	struct page_info pi;
	char path[64], state = 0, buf[256];
	pid_t child;
	int st, n = 500;

	child = fork();
	if (child == 0)
		_exit(0);
	/* A zombie: /proc/PID is there, its memory is not. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	while (state != 'Z' && n-- > 0) {
		FILE *f = fopen(path, "r");

		if (f && fgets(buf, sizeof(buf), f) && strrchr(buf, ')'))
			state = strrchr(buf, ')')[2];
		if (f)
			fclose(f);
		if (state != 'Z')
			usleep(10000);
	}
	CHECK(state == 'Z');
	CHECK_EQ_U64(pageflags__lookup(pf, child, addr, &pi), -ESRCH);
	waitpid(child, &st, 0);
	CHECK_EQ_U64(pageflags__lookup(pf, child, addr, &pi), -ESRCH);
	pageflags__forget(pf, child);
}

/* A hugetlb page, when the pool has one free (the system test sets it). */
static void test_hugetlb(struct pageflags *pf)
{
	struct page_info pi;
	char *p = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED) {
		printf("test-pageflags: no free hugetlb page (%s): hugetlb part not run\n",
		       strerror(errno));
		return;
	}
	p[5000] = 1;
	CHECK_EQ_U64(pageflags__lookup(pf, getpid(), (uintptr_t)p + 5000, &pi), 0);
	CHECK_EQ_U64(pi.kind, PAGE_HUGETLB);
	CHECK_EQ_U64(pi.start, (uintptr_t)p);
	CHECK_EQ_U64(pi.size, 2 * MIB);
	CHECK_EQ_U64(pi.pfn, pi.head_pfn + 1);
	munmap(p, 2 * MIB);
}

int main(void)
{
	struct errbuf eb = { "" };
	struct pageflags *pf = NULL;
	struct page_info a, b, z, s;
	uintptr_t huge, small;
	char *map, *smallmap;
	uint64_t head;
	long kb;
	int err;

	test_roots();
	if (geteuid() != 0)
		skip("needs root (/proc/kpageflags and PFNs in pagemap)");
	err = pageflags__new(NULL, NULL, &pf, &eb);
	if (err == -ENOENT)
		skip(eb.msg);
	CHECK_EQ_U64(err, 0);
	if (err)
		return check_done("test-pageflags");
	if (pageflags__thp_size(pf) != 2 * MIB) {
		pageflags__free(pf);
		skip("no 2 MiB transparent huge pages on this kernel");
	}

	/* 4 MiB, 2 MiB-aligned, inside a 6 MiB reservation. */
	map = mmap(NULL, 6 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		return check_done("test-pageflags");
	huge = ((uintptr_t)map + 2 * MIB - 1) & ~(2 * MIB - 1);
	if (madvise((void *)huge, 4 * MIB, MADV_HUGEPAGE)) {
		pageflags__free(pf);
		skip("madvise(MADV_HUGEPAGE) refused: no THP");
	}
	((volatile char *)huge)[12345] = 1;
	kb = anon_huge_kb(huge);
	if (kb < 2048) {
		char why[160];

		snprintf(why, sizeof(why), "the kernel gave no THP for a MADV_HUGEPAGE write "
			 "(AnonHugePages %ld kB): THP disabled, or no free 2 MiB block", kb);
		pageflags__free(pf);
		skip(why);
	}

	/* The THP, from two addresses in it. */
	CHECK_EQ_U64(pageflags__lookup(pf, getpid(), huge + 12345, &a), 0);
	CHECK_EQ_U64(a.kind, PAGE_THP);
	CHECK(a.anon);
	CHECK_EQ_U64(a.start, huge);
	CHECK_EQ_U64(a.size, 2 * MIB);
	CHECK_EQ_U64(a.head_pfn % 512, 0);
	CHECK_EQ_U64(a.pfn, a.head_pfn + 3);
	head = a.head_pfn;
	CHECK_EQ_U64(pageflags__lookup(pf, getpid(), huge + 2 * MIB - 1, &b), 0);
	CHECK_EQ_U64(b.kind, PAGE_THP);
	CHECK_EQ_U64(b.head_pfn, head);
	CHECK_EQ_U64(b.pfn, head + 511);
	CHECK_EQ_U64(b.start, huge);

	/* A read in the next 2 MiB: the huge zero page where the kernel maps
	 * it (use_zero_page), a THP of its own where it does not (6.18 here:
	 * thp_zero_page_alloc stays 0); either way a PMD-sized page. */
	(void)((volatile char *)huge)[2 * MIB + 7];
	CHECK_EQ_U64(pageflags__lookup(pf, getpid(), huge + 2 * MIB + 4096, &z), 0);
	CHECK(z.kind == PAGE_HUGE_ZERO || (z.kind == PAGE_THP && z.anon));
	CHECK_EQ_U64(z.start, huge + 2 * MIB);
	CHECK_EQ_U64(z.size, 2 * MIB);
	CHECK_EQ_U64(z.pfn, z.head_pfn + 1);
	CHECK(z.head_pfn != head);

	/* Base pages: MADV_NOHUGEPAGE, one touched, one not. */
	smallmap = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(smallmap != MAP_FAILED);
	if (smallmap != MAP_FAILED) {
		small = (uintptr_t)smallmap;
		CHECK(madvise(smallmap, 16 * 4096, MADV_NOHUGEPAGE) == 0);
		smallmap[4096 + 10] = 1;
		CHECK_EQ_U64(pageflags__lookup(pf, getpid(), small + 4096 + 10, &s), 0);
		CHECK_EQ_U64(s.kind, PAGE_SMALL);
		CHECK(s.anon);
		CHECK_EQ_U64(s.start, small + 4096);
		CHECK_EQ_U64(s.size, 4096);
		CHECK_EQ_U64(s.head_pfn, s.pfn);
		CHECK_EQ_U64(pageflags__lookup(pf, getpid(), small + 3 * 4096, &s), -ENOENT);
		munmap(smallmap, 16 * 4096);
		/* Unmapped now. */
		CHECK_EQ_U64(pageflags__lookup(pf, getpid(), small + 4096, &s), -ENOENT);
	}

	/* Forgetting a pid closes its pagemap; the next lookup opens it again. */
	pageflags__forget(pf, getpid());
	pageflags__forget(pf, 999999999);
	CHECK_EQ_U64(pageflags__lookup(pf, getpid(), huge, &a), 0);
	CHECK_EQ_U64(a.head_pfn, head);

	test_gone(pf, huge);
	CHECK_EQ_U64(pageflags__lookup(pf, 999999999, huge, &a), -ESRCH);
	test_hugetlb(pf);

	munmap(map, 6 * MIB);
	pageflags__free(pf);
	return check_done("test-pageflags");
}
