/*
 * pageflags: what kind of page backs a user address of a live process,
 * read from /proc/PID/pagemap (virtual page -> PFN) and /proc/kpageflags
 * (PFN -> page flags): a small page, a PMD-sized transparent huge page, the
 * huge zero page, or a hugetlb page; and for a huge page, its first PFN and
 * the user address where it starts.
 *
 * For `faultline hfaults` on kernels without kprobes: no tracepoint fires
 * on a huge-page fault, so a fault is classified after the fact by the page
 * it mapped.  The answer is the page as it is when asked, not as it was at
 * the fault.  Both files are the kernel's (Documentation/admin-guide/mm/
 * pagemap.rst); reading PFNs takes CAP_SYS_ADMIN (without it the kernel
 * shows them as 0, reported here as -EPERM).
 */
#ifndef FAULTLINE_PAGEFLAGS_H
#define FAULTLINE_PAGEFLAGS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/errbuf.h"

enum page_kind {
	PAGE_SMALL,	/* a base page, part of a folio smaller than a PMD (mTHP),
			 * or memory without a struct page (device memory) */
	PAGE_THP,	/* part of a PMD-sized transparent huge page */
	PAGE_HUGE_ZERO,	/* the huge zero page (a THP read fault mapped it; nothing allocated) */
	PAGE_HUGETLB,	/* part of a hugetlb page (hugetlbfs, MAP_HUGETLB, SHM_HUGETLB) */
};

struct page_info {
	enum page_kind kind;
	bool anon;		/* the page is anonymous memory (KPF_ANON) */
	uint64_t pfn;		/* of the base page at the address */
	uint64_t head_pfn;	/* first PFN of the huge page; = pfn for PAGE_SMALL */
	uint64_t start;		/* user address of the huge page's first byte (the base
				 * page's for PAGE_SMALL) */
	uint64_t size;		/* bytes: the huge page's, or the base page size */
};

struct pageflags;

/**
 * pageflags__new() - open /proc/kpageflags and learn the huge page sizes
 * @procfs: procfs root, NULL for "/proc"
 * @sysfs:  sysfs root, NULL for "/sys": the PMD THP size comes from
 *          kernel/mm/transparent_hugepage/hpage_pmd_size (absent, as on
 *          3.10, with that directory present: a page-table page's span
 *          on x86-64 and 4 KiB arm64; else no THP),
 *          the hugetlb sizes from kernel/mm/hugepages/hugepages-<N>kB
 * @out:    receives the reader, owned by the caller (pageflags__free)
 * @eb:     detail on failure
 *
 * Return: 0; -ENOENT (no kpageflags: CONFIG_PROC_PAGE_MONITOR=n), -EACCES
 * or -EPERM (not root), -ENOMEM; detail in @eb.
 */
int pageflags__new(const char *procfs, const char *sysfs, struct pageflags **out,
		   struct errbuf *eb);

/** pageflags__free() - close every file and free @pf; NULL is allowed. */
void pageflags__free(struct pageflags *pf);

/**
 * pageflags__lookup() - the page behind @addr in process @pid, now
 * @pid:  tgid; its pagemap is opened on first use and kept open (a few
 *        hundred at most) until pageflags__forget()
 * @addr: any address in the page
 * @out:  filled on success
 *
 * Return: 0; -ESRCH when the process or its address space is gone (it
 * exited, or is a zombie); -ENOENT when no page is present at @addr
 * (never touched, unmapped, or swapped out); -ESTALE when the page changed
 * while its flags were read (freed and reused); -EPERM when the kernel
 * hides PFNs; other -errno of open or read.
 */
int pageflags__lookup(struct pageflags *pf, pid_t pid, uint64_t addr, struct page_info *out);

/**
 * pageflags__forget() - close @pid's pagemap
 *
 * Call when @pid exec'd (an open pagemap reads the address space it was
 * opened on, which exec replaced) or exited.  Unknown pids are fine.
 */
void pageflags__forget(struct pageflags *pf, pid_t pid);

/** pageflags__thp_size() - bytes of a PMD-sized THP, 0 when the kernel has no THP. */
uint64_t pageflags__thp_size(const struct pageflags *pf);

#endif
