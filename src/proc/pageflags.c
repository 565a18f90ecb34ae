/*
 * pageflags: classify the page behind a user address with the kernel's
 * page-table and page-flag views (/proc/PID/pagemap, /proc/kpageflags).
 *
 * kpageflags sets KPF_THP on every page of any large anonymous folio
 * (multi-size THP too) and on the huge zero page, and KPF_HUGE on every
 * page of a hugetlb folio, so the flags of the page alone do not say how
 * big the huge page is.  Folios are naturally aligned in physical memory
 * (the buddy allocator and the hugetlb pools hand them out so), which gives
 * the head: for a PMD-sized THP it is the PFN rounded down to the PMD's
 * page count, and the folio is PMD-sized exactly when that PFN is a head
 * and every following page up to the next PMD boundary is a tail; for
 * hugetlb, of the pool sizes in ascending order, the first whose rounded
 * PFN is a hugetlb head is the folio's (a smaller rounding that lands
 * inside the folio finds a tail, unless it is the head itself).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel-page-flags.h>

#include "lib/file.h"
#include "lib/hashmap.h"
#include "proc/pageflags.h"

#ifndef KPF_THP
#define KPF_THP 22
#endif
#ifndef KPF_ZERO_PAGE
#define KPF_ZERO_PAGE 24
#endif

#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define MAX_HUGETLB_SIZES 8
/* Open pagemaps kept at most: -a sees every process that faults. */
#define MAX_OPEN_PAGEMAPS 256
/* kpageflags entries read at once when checking a THP (a PMD of 4 KiB
 * pages is 512: one 4 KiB read). */
#define FLAGS_CHUNK 512

struct pageflags {
	char procfs[PATH_MAX];
	int kpageflags_fd;
	uint64_t page_size;
	uint64_t thp_size;			/* 0: no THP */
	uint64_t hugetlb_sizes[MAX_HUGETLB_SIZES];	/* ascending */
	size_t n_hugetlb;
	struct hashmap *pagemaps;		/* tgid -> pagemap fd */
	uint64_t chunk[FLAGS_CHUNK];
};

static bool bit(uint64_t flags, int b)
{
	return flags >> b & 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The PMD THP size from sysfs's hpage_pmd_size; 0 when there is no THP
 * (CONFIG_TRANSPARENT_HUGEPAGE=n: no transparent_hugepage directory).
 * Kernels older than that file (RHEL 7's 3.10) have the directory
 * without it: there the PMD's span is computed where it is known, one
 * page-table page of 8-byte entries each mapping a page (x86-64; arm64
 * with 4 KiB pages), and 0 elsewhere.
 */
static uint64_t read_thp_size(const char *sysfs, uint64_t page_size)
{
	char path[PATH_MAX], *text = NULL, *end;
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/hpage_pmd_size", sysfs);
	if (read_file(path, 64, &text, NULL)) {
#if defined(__x86_64__) || defined(__aarch64__)
		snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled", sysfs);
		if (page_size == 4096 && access(path, F_OK) == 0)
			return page_size * (page_size / 8);
#else
		(void)page_size;
#endif
		return 0;
	}
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || (*end && *end != '\n'))
		v = 0;
	free(text);
	return v;
}

/* The hugetlb pool sizes ("hugepages-2048kB"...), ascending; none when the
 * directory is absent (CONFIG_HUGETLBFS=n). */
static void read_hugetlb_sizes(struct pageflags *pf, const char *sysfs)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages", sysfs);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && pf->n_hugetlb < MAX_HUGETLB_SIZES) {
		unsigned long long kb;
		char unit[3];

		if (sscanf(de->d_name, "hugepages-%llu%2s", &kb, unit) == 2 && !strcmp(unit, "kB") &&
		    kb * 1024 >= pf->page_size)
			pf->hugetlb_sizes[pf->n_hugetlb++] = kb * 1024;
	}
	closedir(d);
	qsort(pf->hugetlb_sizes, pf->n_hugetlb, sizeof(pf->hugetlb_sizes[0]), cmp_u64);
}

int pageflags__new(const char *procfs, const char *sysfs, struct pageflags **out,
		   struct errbuf *eb)
{
	struct pageflags *pf = NULL;
	char path[PATH_MAX];
	long page;
	int err;

	*out = NULL;
	procfs = procfs ? procfs : "/proc";
	sysfs = sysfs ? sysfs : "/sys";
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pf->kpageflags_fd = -1;
	pf->pagemaps = hashmap__new();
	if (!pf->pagemaps) {
		err = -ENOMEM;
		goto fail;
	}
	if (snprintf(pf->procfs, sizeof(pf->procfs), "%s", procfs) >= (int)sizeof(pf->procfs)) {
		err = errbuf__set(eb, -ENAMETOOLONG, "procfs root '%s' too long", procfs);
		goto fail;
	}
	page = sysconf(_SC_PAGESIZE);
	pf->page_size = page > 0 ? (uint64_t)page : 4096;
	snprintf(path, sizeof(path), "%s/kpageflags", procfs);
	pf->kpageflags_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pf->kpageflags_fd < 0) {
		err = errbuf__set(eb, -errno, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	pf->thp_size = read_thp_size(sysfs, pf->page_size);
	/* A THP size that is not a power-of-two multiple of the page cannot
	 * be checked by rounding: treat the kernel as having no THP. */
	if (pf->thp_size < pf->page_size || (pf->thp_size & (pf->thp_size - 1)) ||
	    pf->thp_size / pf->page_size > FLAGS_CHUNK)
		pf->thp_size = 0;
	read_hugetlb_sizes(pf, sysfs);
	*out = pf;
	return 0;
fail:
	pageflags__free(pf);
	return err;
}

static void close_pagemaps(struct pageflags *pf)
{
	uint64_t pid, fd;
	size_t pos = 0;

	while (hashmap__next(pf->pagemaps, &pos, &pid, &fd)) {
		close((int)fd);
		hashmap__delete(pf->pagemaps, pid, NULL);
	}
}

void pageflags__free(struct pageflags *pf)
{
	if (!pf)
		return;
	if (pf->pagemaps) {
		close_pagemaps(pf);
		hashmap__free(pf->pagemaps);
	}
	if (pf->kpageflags_fd >= 0)
		close(pf->kpageflags_fd);
	free(pf);
}

void pageflags__forget(struct pageflags *pf, pid_t pid)
{
	uint64_t fd;

	if (pf && hashmap__delete(pf->pagemaps, (uint64_t)pid, &fd))
		close((int)fd);
}

uint64_t pageflags__thp_size(const struct pageflags *pf)
{
	return pf ? pf->thp_size : 0;
}

/* @pid's pagemap fd (cached), or -errno: -ESRCH when the process is gone. */
static int pagemap_fd(struct pageflags *pf, pid_t pid)
{
	char path[PATH_MAX + 32];
	uint64_t v;
	int fd;

	if (hashmap__get(pf->pagemaps, (uint64_t)pid, &v))
		return (int)v;
	if (hashmap__count(pf->pagemaps) >= MAX_OPEN_PAGEMAPS)
		close_pagemaps(pf);
	snprintf(path, sizeof(path), "%s/%d/pagemap", pf->procfs, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	if (hashmap__set(pf->pagemaps, (uint64_t)pid, (uint64_t)fd)) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

/* Read @n u64s at index @idx of @fd: bytes read, or -errno. */
static ssize_t read_u64s(int fd, uint64_t *buf, size_t n, uint64_t idx)
{
	ssize_t r;

	do {
		r = pread(fd, buf, n * sizeof(uint64_t), (off_t)(idx * sizeof(uint64_t)));
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/* The flags of @pfn; a PFN past the last one the kernel describes (device
 * memory mapped with VM_PFNMAP) reads as nothing: no page, as KPF_NOPAGE. */
static int page_flags(struct pageflags *pf, uint64_t pfn, uint64_t *flags)
{
	ssize_t r = read_u64s(pf->kpageflags_fd, flags, 1, pfn);

	if (r < 0)
		return (int)r;
	if (r != sizeof(uint64_t))
		*flags = 1ULL << KPF_NOPAGE;
	return 0;
}

/* Whether @head starts a PMD-sized THP folio: a THP head followed by tails
 * only, up to the next PMD boundary. */
static int is_pmd_thp_head(struct pageflags *pf, uint64_t head, bool *yes)
{
	size_t n = pf->thp_size / pf->page_size;
	ssize_t r = read_u64s(pf->kpageflags_fd, pf->chunk, n, head);

	*yes = false;
	if (r < 0)
		return (int)r;
	/* Short: the range runs past the last PFN, so no PMD folio is there. */
	if ((size_t)r != n * sizeof(uint64_t))
		return 0;
	if (!bit(pf->chunk[0], KPF_COMPOUND_HEAD) || !bit(pf->chunk[0], KPF_THP))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!bit(pf->chunk[i], KPF_COMPOUND_TAIL) || bit(pf->chunk[i], KPF_COMPOUND_HEAD))
			return 0;
	*yes = true;
	return 0;
}

int pageflags__lookup(struct pageflags *pf, pid_t pid, uint64_t addr, struct page_info *out)
{
	uint64_t entry, pfn, flags, vpage = addr / pf->page_size;
	ssize_t r;
	int fd, err;

	fd = pagemap_fd(pf, pid);
	if (fd < 0)
		return fd;
	r = read_u64s(fd, &entry, 1, vpage);
	if (r < 0)
		return (int)r;
	/* The kernel reads nothing once the address space is gone.  Drop the
	 * descriptor: should the pid be reused, the next lookup opens anew. */
	if (r == 0) {
		pageflags__forget(pf, pid);
		return -ESRCH;
	}
	if (r != sizeof(entry))
		return -EIO;
	if (!(entry & PM_PRESENT))
		return -ENOENT;
	pfn = entry & PM_PFN_MASK;
	if (!pfn)
		return -EPERM;
	err = page_flags(pf, pfn, &flags);
	if (err)
		return err;
	*out = (struct page_info){
		.kind = PAGE_SMALL, .anon = bit(flags, KPF_ANON), .pfn = pfn, .head_pfn = pfn,
		.start = vpage * pf->page_size, .size = pf->page_size,
	};
	/* No struct page (device memory): nothing huge. */
	if (bit(flags, KPF_NOPAGE))
		return 0;
	if (bit(flags, KPF_HUGE)) {
		for (size_t i = 0; i < pf->n_hugetlb; i++) {
			uint64_t n = pf->hugetlb_sizes[i] / pf->page_size, head = pfn & ~(n - 1), hf;

			err = page_flags(pf, head, &hf);
			if (err)
				return err;
			if (bit(hf, KPF_COMPOUND_HEAD) && bit(hf, KPF_HUGE)) {
				out->kind = PAGE_HUGETLB;
				out->head_pfn = head;
				out->size = pf->hugetlb_sizes[i];
				out->start = (vpage - (pfn - head)) * pf->page_size;
				return 0;
			}
		}
		return -ESTALE;
	}
	if (bit(flags, KPF_THP) && pf->thp_size) {
		uint64_t n = pf->thp_size / pf->page_size, head = pfn & ~(n - 1);
		bool pmd = false;

		err = is_pmd_thp_head(pf, head, &pmd);
		if (err)
			return err;
		if (!pmd)
			return 0;	/* a smaller large folio: mTHP */
		out->kind = bit(flags, KPF_ZERO_PAGE) ? PAGE_HUGE_ZERO : PAGE_THP;
		out->anon = bit(pf->chunk[0], KPF_ANON);
		out->head_pfn = head;
		out->size = pf->thp_size;
		out->start = (vpage - (pfn - head)) * pf->page_size;
	}
	return 0;
}
