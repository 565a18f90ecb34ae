/*
 * fault-target: page faults on known pages of allocations from known call
 * sites, for the system tests of `faultline faults --by-alloc` (and of
 * ffaults: the file it maps).
 *
 * Usage: fault-target [--delay-ms N] [--hold-ms N].
 *
 * What it does, in order:
 *   1. Warm-up, before the delay: checks that pages are 4 KiB;
 *      mallopt(M_MMAP_THRESHOLD, 128 KiB), so glibc's threshold is fixed
 *      (mallopt also stops glibc raising it dynamically);
 *      prctl(PR_SET_THP_DISABLE), so no anonymous memory of the process
 *      (the brk heap and the stack included, and the forked child's: the
 *      flag is inherited) gets a PMD or multi-size THP folio, which maps
 *      many pages in one fault; writes the statics the phase writes, so
 *      their pages fault now, not in the phase, and reads a byte of each
 *      page of its own code, for the same reason.  No malloc runs before the
 *      phase (none before main either), so the brk heap does not exist
 *      yet.  Linked with -z now: no lazy PLT binding (a GOT write, so a
 *      fault) in the phase or the child.
 *   2. Sleeps --delay-ms N (default 0), then waits for --go FIFO (truth.h),
 *      so a tracer attaching with -p is ready.
 *   3. The measured phase, main -> run_fault_scenario -> one function per
 *      step.  Each allocation site is a noinline, noipa function with one
 *      allocator call instruction (a loop around it for alloc_small).  Each
 *      toucher is another such function, which writes (read_file: reads)
 *      one byte at each address the truth plans for it, in address order:
 *        alloc_small   64 x malloc(100).  The first call creates the brk
 *                      heap (sbrk of 132 KiB) and glibc's tcache, a
 *                      576-byte block from glibc's internal _int_malloc, at
 *                      its start.  touch_small writes the first byte of
 *                      each block.
 *        alloc_heap    malloc(65536): below the threshold, so it is cut
 *                      from the heap's top chunk, after the small blocks.
 *                      touch_heap writes one byte in each page the block
 *                      overlaps (its first byte, then each page's first).
 *        alloc_big     malloc(8 MiB): above the threshold, so glibc mmaps
 *                      it (8 MiB and one page: a 16-byte chunk header
 *                      starts the mapping).  MADV_NOHUGEPAGE on its pages;
 *                      touch_big writes one byte in each of the block's
 *                      first 100 pages only.
 *        alloc_zeroed  calloc(1, 262144): above the threshold, so mmapped,
 *                      and glibc's calloc does not clear fresh mmap memory.
 *                      MADV_NOHUGEPAGE; touch_zeroed writes one byte in
 *                      each of the 65 pages the block overlaps (the 16-byte
 *                      header shifts 256 KiB across 65 pages).
 *        map_anon      mmap(NULL, 1 MiB, RW, PRIVATE|ANONYMOUS) through
 *                      libc.  MADV_NOHUGEPAGE; touch_anon writes the first
 *                      byte of each of its first 32 pages.
 *        map_file      make_file first creates /tmp/faultline-fault-target.XXXXXX
 *                      of 16 pages (byte i of page p is 'A'+p) with
 *                      write(2), fsyncs it and drops it from the page cache
 *                      (POSIX_FADV_DONTNEED: its pages are clean); map_file
 *                      maps it whole, PROT_READ, MAP_PRIVATE; read_file
 *                      reads the first byte of each of its 16 pages
 *                      (checked against the pattern afterwards).
 *        fork_buffer   malloc(262144), mmapped like alloc_zeroed;
 *                      MADV_NOHUGEPAGE; touch_fork writes one byte in each
 *                      of its 65 pages, in the parent.  Then fork(): the
 *                      child runs child_write, which writes the first byte
 *                      of each of the block's first 64 pages (present and
 *                      shared with the parent, so each write is a
 *                      copy-on-write fault), and _exit(0)s; the parent
 *                      waits for it and meanwhile writes nothing in the
 *                      block.
 *      Before each toucher runs, mincore(2) counts how many of its pages
 *      are already resident (the "resident" lines below).  Every block and
 *      region stays allocated until exit.
 *   4. Prints the ground truth with write(2) only (glibc's stdio would
 *      malloc a buffer and fault its pages):
 *        site fn=NAME kind=small|heap|mmap|zeroed|anon|file bytes=REQUESTED
 *             touched_pages=N
 *            one per site, in the order above.  N is the number of
 *            distinct pages holding the addresses the site's toucher wrote
 *            or read (the parent's, for fork_buffer), computed from the
 *            addresses.  On x86-64 with glibc 2.36 (a page-aligned brk heap
 *            start, as Linux makes it): bytes/N = 6400/2, 65536/17,
 *            8388608/100, 262144/65, 1048576/32, 65536/16, 262144/65.
 *        resident fn=NAME before_touch=M
 *            M of those N pages were resident as the toucher started
 *            (mincore: for anonymous memory a present page table entry;
 *            for the file mapping the page cache, so 0 there means the
 *            file was evicted).  Here: 2, 2, 1, 1, 0, 0, 1.
 *        inalloc fn=NAME faults=F
 *            the faults, minor and major, this process took during the
 *            site's allocator (or mmap) call: getrusage before and after
 *            it, the kernel's own count.  The executable's own text was
 *            read page by page in the warm-up, so these are the
 *            allocator's: here 2, 1, 1, 1, 0, 0, 1 (traced, the first
 *            also holds the tracer's fault on the uprobes page); on 3.10,
 *            which has no fault-around, the first malloc also faults in
 *            each page of libc's malloc code it runs: 6 there.
 *        cow pid=CHILD fn=fork_buffer pages=64
 *        addr fn=NAME start=0x... end=0x...
 *            one per block or region (64 for alloc_small), end one past
 *            the last byte requested; for map_anon and map_file, the
 *            mapping.
 *        file=PATH, file_pages=16, minflt=, majflt= (this process's faults
 *        in the phase: getrusage RUSAGE_SELF deltas), child_minflt=,
 *        child_majflt= (the waited-for child's: RUSAGE_CHILDREN), pid=P,
 *        child_pid=C.
 *   5. Sleeps --hold-ms N (default 0), then waits for --end FIFO, removes
 *      the temp file, exits 0. Exit 2 on a usage error, 1 if a call fails
 *      or reads wrong data.
 *
 * What is exact, and what the kernel or glibc blurs (checked with perf
 * record -e page-faults -d -g, kernel 6.18, glibc 2.36):
 *   - Exact: the touched pages, requested bytes and addresses; and on
 *     anonymous memory (THP off; fault-around is for file mappings only)
 *     one first-touch fault per page that turns resident.  Each toucher
 *     takes exactly N-M not-present write faults: touch_small 0,
 *     touch_heap 15, touch_big 99, touch_zeroed 64, touch_anon 32,
 *     touch_fork 64.  The M pages were faulted inside the allocator call
 *     of the same site (or an earlier site, for a shared heap page), so
 *     per site the faults of allocator call plus toucher are exactly:
 *     alloc_small 2, alloc_heap 16, alloc_big 100, alloc_zeroed 65,
 *     map_anon 32, fork_buffer 65.  child_write takes exactly 64 write
 *     faults on present pages (copy-on-write), in the child.
 *   - Faults inside the allocator (its own writes, outside the returned
 *     block): an mmapped chunk's header (prev_size, size) is written in
 *     the mapping's first page by sysmalloc_mmap; on the heap, sysmalloc
 *     writes the new top chunk's header in heap page 0 (with the
 *     tcache), and each split writes the top chunk's header just past
 *     the block, in _int_malloc.  So both pages holding the small blocks
 *     fault inside malloc and touch_small takes no fault; alloc_heap's
 *     block starts on the small blocks' last page (resident) and its
 *     malloc faults its last page.  Where a heap fault lands on the page
 *     of a block (or past it, at the top header) depends on glibc; the
 *     resident lines say what this run saw.
 *   - The file: the 16 pages read are exact, the fault count is not.  The
 *     first read is a major fault that reads the file in (read-around
 *     takes the whole 64 KiB, ext4 may cache it as one large folio), and
 *     the kernel maps the rest of the folio or the cached neighbours
 *     (fault-around, 64 KiB by default) at once: here one major fault and
 *     no minor fault cover all 16 pages.  A tool must count pages there.
 *   - Outside the sites the phase also faults, in named regions: libc's
 *     text the first time a function runs (mkstemp, open, fork:
 *     file-backed), libc's data and TLS and the stack after fork (each
 *     process's first write to a page shared by fork is a copy-on-write
 *     fault: fork's own bookkeeping, the kernel's rseq update, a stack
 *     frame).  Here minflt=285..288 majflt=1 (281 site faults, 4 to 7
 *     others) and child_minflt=71..74 (64 + 7 to 10); the others vary
 *     from run to run and with libc and kernel: compare with a margin.
 *
 * Stacks: built with frame pointers, and each toucher calls an empty
 * function last so that gcc gives it a frame even at -O1 and above, so
 * its faults read touch_heap <- run_fault_scenario <- main by either
 * unwinder (child: child_write <- run_fault_scenario <- main).  The
 * allocator's faults are in glibc, which has no frame pointers: a
 * frame-pointer callchain there is one frame (_int_malloc,
 * sysmalloc_mmap); a DWARF unwind reads _int_malloc <- malloc <-
 * alloc_heap <- run_fault_scenario <- main (heap page 0: sysmalloc <-
 * _int_malloc <- tcache_init <- malloc <- alloc_small <- ...).
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRUTH_PROG "fault-target"
#define TRUTH_USAGE "usage: fault-target [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

/* No inlining, cloning (.constprop) or splitting: the site and toucher
 * names and their single call instruction must survive any -O level. */
#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

#define PAGE 4096UL
#define MMAP_THRESHOLD (128 * 1024)
#define N_SMALL 64
#define SMALL_SIZE 100
#define HEAP_SIZE (64UL * 1024)
#define BIG_SIZE (8UL << 20)
#define BIG_TOUCH 100
#define ZEROED_SIZE (256UL * 1024)
#define ANON_SIZE (1UL << 20)
#define ANON_TOUCH 32
#define FILE_PAGES 16
#define FORK_SIZE (256UL * 1024)
#define CHILD_TOUCH 64
#define MAX_TOUCH 128
#define MAX_BLOCKS (N_SMALL + 8)

enum site_id { S_SMALL, S_HEAP, S_BIG, S_ZEROED, S_ANON, S_FILE, S_FORK, NSITES };

/* One site: what it asked for and the addresses its toucher uses. */
struct site {
	const char *fn;
	const char *kind;
	unsigned long long bytes;
	char *addrs[MAX_TOUCH];
	unsigned int naddrs;
	unsigned long touched_pages;
	unsigned long resident;
	unsigned long inalloc;	/* faults (minor + major) in the allocator call */
};

struct block {
	const char *fn;
	char *start;
	size_t len;
};

/* A test program's whole state; plain statics keep it obvious.  All of
 * it is written before the delay (prefault_statics), so the phase takes
 * no fault on it. */
static struct site sites[NSITES] = {
	[S_SMALL] = { "alloc_small", "small", 0, { 0 }, 0, 0, 0, 0 },
	[S_HEAP] = { "alloc_heap", "heap", 0, { 0 }, 0, 0, 0, 0 },
	[S_BIG] = { "alloc_big", "mmap", 0, { 0 }, 0, 0, 0, 0 },
	[S_ZEROED] = { "alloc_zeroed", "zeroed", 0, { 0 }, 0, 0, 0, 0 },
	[S_ANON] = { "map_anon", "anon", 0, { 0 }, 0, 0, 0, 0 },
	[S_FILE] = { "map_file", "file", 0, { 0 }, 0, 0, 0, 0 },
	[S_FORK] = { "fork_buffer", "mmap", 0, { 0 }, 0, 0, 0, 0 },
};
static struct block blocks[MAX_BLOCKS];
static unsigned int nblocks;
static char *child_addrs[CHILD_TOUCH];
static void *small_ptrs[N_SMALL];
static char file_bytes[FILE_PAGES];
static char page_buf[PAGE];
static struct out o;
static int failed;
static char file_path[] = "/tmp/faultline-fault-target.XXXXXX";
static int file_made;
static struct rusage usage;

/* This process's faults so far, minor and major (the kernel's count). */
static unsigned long faults_now(void)
{
	if (getrusage(RUSAGE_SELF, &usage))
		failed = __LINE__;
	return (unsigned long)(usage.ru_minflt + usage.ru_majflt);
}

static void note_block(const char *fn, void *start, size_t len)
{
	if (!start || start == MAP_FAILED) {
		failed = __LINE__;
		return;
	}
	blocks[nblocks++] = (struct block){ fn, start, len };
}

/* Adds to S the address of one byte in each of the first MAX pages that
 * [P, P+LEN) overlaps: P itself, then each later page's first byte. */
static void plan_pages(struct site *s, char *p, size_t len, unsigned long max)
{
	uintptr_t page = (uintptr_t)p & ~(PAGE - 1);
	unsigned long k;

	for (k = 0; k < max; k++, page += PAGE) {
		char *a = (uintptr_t)p > page ? p : (char *)page;

		if (a >= p + len)
			break;
		if (s->naddrs == MAX_TOUCH) {
			failed = __LINE__;
			break;
		}
		s->addrs[s->naddrs++] = a;
	}
}

static int mincore_page(uintptr_t page)
{
	unsigned char v = 0;

	if (mincore((void *)page, PAGE, &v)) {
		failed = __LINE__;
		return 0;
	}
	return v & 1;
}

/* Counts S's distinct pages, and how many of them are resident now. */
static void count_pages(struct site *s)
{
	unsigned int i, j;

	s->touched_pages = 0;
	s->resident = 0;
	for (i = 0; i < s->naddrs; i++) {
		uintptr_t page = (uintptr_t)s->addrs[i] & ~(PAGE - 1);

		for (j = 0; j < i; j++) {
			if (((uintptr_t)s->addrs[j] & ~(PAGE - 1)) == page)
				break;
		}
		if (j < i)
			continue;
		s->touched_pages++;
		s->resident += (unsigned long)mincore_page(page);
	}
}

/* MADV_NOHUGEPAGE on the pages [P, P+LEN) overlaps: for a block glibc
 * mmapped that is exactly its mapping (header page included). */
static void no_thp(void *p, size_t len)
{
	uintptr_t start = (uintptr_t)p & ~(PAGE - 1);
	uintptr_t end = ((uintptr_t)p + len + PAGE - 1) & ~(PAGE - 1);

	/* 3.10 (RHEL 7) refuses it with EINVAL for a mapping THP can never
	 * back (shared, file): nothing to keep small there. */
	if (madvise((void *)start, end - start, MADV_NOHUGEPAGE) && errno != EINVAL)
		failed = __LINE__;
}

/* ---- the sites: one allocator (or mmap) call each ---- */

SITE static void alloc_small(void **ptrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ptrs[i] = malloc(SMALL_SIZE);
}

SITE static void *alloc_heap(void)
{
	return malloc(HEAP_SIZE);
}

SITE static void *alloc_big(void)
{
	return malloc(BIG_SIZE);
}

SITE static void *alloc_zeroed(void)
{
	return calloc(1, ZEROED_SIZE);
}

SITE static void *map_anon(void)
{
	return mmap(NULL, ANON_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

SITE static void *map_file(int fd)
{
	return mmap(NULL, FILE_PAGES * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
}

SITE static void *fork_buffer(void)
{
	return malloc(FORK_SIZE);
}

/* ---- the touchers: one byte at each planned address ---- */

/* Does nothing, but each toucher calls it last: a leaf function gets no
 * frame from gcc at -O1 and above, even with -fno-omit-frame-pointer,
 * and a frame-pointer callchain taken at its fault would then skip its
 * caller.  A toucher that calls keeps its frame. */
SITE static void toucher_done(void)
{
	__asm__ volatile("" : : : "memory");
}

SITE static void touch_small(char *const *addrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(volatile char *)addrs[i] = 1;
	toucher_done();
}

SITE static void touch_heap(char *const *addrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(volatile char *)addrs[i] = 2;
	toucher_done();
}

SITE static void touch_big(char *const *addrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(volatile char *)addrs[i] = 3;
	toucher_done();
}

SITE static void touch_zeroed(char *const *addrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(volatile char *)addrs[i] = 4;
	toucher_done();
}

SITE static void touch_anon(char *const *addrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(volatile char *)addrs[i] = 5;
	toucher_done();
}

SITE static void read_file(char *const *addrs, unsigned int n, char *out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		out[i] = *(volatile const char *)addrs[i];
	toucher_done();
}

SITE static void touch_fork(char *const *addrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(volatile char *)addrs[i] = 6;
	toucher_done();
}

SITE static void child_write(char *const *addrs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		*(volatile char *)addrs[i] = 7;
	toucher_done();
}

/* ---- the scenario ---- */

/* The temp file, written, synced and evicted; its fd, or -1. */
SITE static int make_file(void)
{
	int fd, p, err;

	fd = mkstemp(file_path);
	if (fd < 0)
		return -1;
	file_made = 1;
	for (p = 0; p < FILE_PAGES; p++) {
		memset(page_buf, 'A' + p, sizeof(page_buf));
		if (write(fd, page_buf, sizeof(page_buf)) != (ssize_t)sizeof(page_buf))
			failed = __LINE__;
	}
	if (fsync(fd))
		failed = __LINE__;
	/* fsync'ed pages are clean, so DONTNEED drops them from the cache. */
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err)
		failed = __LINE__;
	return fd;
}

/* Records BLOCK of site S in the truth and plans MAX of its pages. */
static void take(enum site_id s, void *block, size_t len, unsigned long max)
{
	sites[s].bytes += len;
	note_block(sites[s].fn, block, len);
	if (block && block != MAP_FAILED)
		plan_pages(&sites[s], block, len, max);
}

/* The child's pid, or -1. */
SITE static pid_t run_fault_scenario(void)
{
	char *p;
	pid_t child;
	int fd, status;
	unsigned int i;
	unsigned long f0;

	f0 = faults_now();
	alloc_small(small_ptrs, N_SMALL);
	sites[S_SMALL].inalloc = faults_now() - f0;
	for (i = 0; i < N_SMALL; i++)
		take(S_SMALL, small_ptrs[i], SMALL_SIZE, 1);
	count_pages(&sites[S_SMALL]);
	touch_small(sites[S_SMALL].addrs, sites[S_SMALL].naddrs);

	f0 = faults_now();
	p = alloc_heap();
	sites[S_HEAP].inalloc = faults_now() - f0;
	take(S_HEAP, p, HEAP_SIZE, ~0UL);
	count_pages(&sites[S_HEAP]);
	touch_heap(sites[S_HEAP].addrs, sites[S_HEAP].naddrs);

	f0 = faults_now();
	p = alloc_big();
	sites[S_BIG].inalloc = faults_now() - f0;
	take(S_BIG, p, BIG_SIZE, BIG_TOUCH);
	if (p)
		no_thp(p, BIG_SIZE);
	count_pages(&sites[S_BIG]);
	touch_big(sites[S_BIG].addrs, sites[S_BIG].naddrs);

	f0 = faults_now();
	p = alloc_zeroed();
	sites[S_ZEROED].inalloc = faults_now() - f0;
	take(S_ZEROED, p, ZEROED_SIZE, ~0UL);
	if (p)
		no_thp(p, ZEROED_SIZE);
	count_pages(&sites[S_ZEROED]);
	touch_zeroed(sites[S_ZEROED].addrs, sites[S_ZEROED].naddrs);

	f0 = faults_now();
	p = map_anon();
	sites[S_ANON].inalloc = faults_now() - f0;
	take(S_ANON, p, ANON_SIZE, ANON_TOUCH);
	if (p != MAP_FAILED)
		no_thp(p, ANON_SIZE);
	count_pages(&sites[S_ANON]);
	touch_anon(sites[S_ANON].addrs, sites[S_ANON].naddrs);

	fd = make_file();
	if (fd < 0) {
		failed = __LINE__;
		return -1;
	}
	f0 = faults_now();
	p = map_file(fd);
	sites[S_FILE].inalloc = faults_now() - f0;
	close(fd);
	take(S_FILE, p, FILE_PAGES * PAGE, FILE_PAGES);
	count_pages(&sites[S_FILE]);
	read_file(sites[S_FILE].addrs, sites[S_FILE].naddrs, file_bytes);
	for (i = 0; i < sites[S_FILE].naddrs; i++) {
		if (file_bytes[i] != (char)('A' + i))
			failed = __LINE__;
	}

	f0 = faults_now();
	p = fork_buffer();
	sites[S_FORK].inalloc = faults_now() - f0;
	take(S_FORK, p, FORK_SIZE, ~0UL);
	if (!p || sites[S_FORK].naddrs < CHILD_TOUCH) {
		failed = __LINE__;
		return -1;
	}
	no_thp(p, FORK_SIZE);
	count_pages(&sites[S_FORK]);
	touch_fork(sites[S_FORK].addrs, sites[S_FORK].naddrs);
	for (i = 0; i < CHILD_TOUCH; i++)
		child_addrs[i] = sites[S_FORK].addrs[i];

	child = fork();
	if (child < 0) {
		failed = __LINE__;
		return -1;
	}
	if (child == 0) {
		child_write(child_addrs, CHILD_TOUCH);
		_exit(0);
	}
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			failed = __LINE__;
			return child;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		failed = __LINE__;
	return child;
}

/* The linkers' symbols: the ELF header's address (the first page of the
 * executable's image) and the end of its text. */
extern const char __ehdr_start[], etext[];

/* Reads a byte of every page of this executable's own code, so that no
 * function of the phase takes its first instruction fetch as a fault (a
 * kernel without fault-around, 3.10, maps one page per fault): the faults
 * of an allocator window are then the allocator's own. */
static void prefault_text(void)
{
	const char *p;

	for (p = __ehdr_start; p < etext; p += PAGE)
		(void)*(volatile const char *)p;
}

/* Writes every static the phase writes, so its pages are present. */
static void prefault_statics(void)
{
	unsigned int s;

	for (s = 0; s < NSITES; s++) {
		memset(sites[s].addrs, 0, sizeof(sites[s].addrs));
		sites[s].naddrs = 0;
	}
	memset(blocks, 0, sizeof(blocks));
	memset(child_addrs, 0, sizeof(child_addrs));
	memset(small_ptrs, 0, sizeof(small_ptrs));
	memset(file_bytes, 0, sizeof(file_bytes));
	memset(page_buf, 0, sizeof(page_buf));
	memset(o.buf, 0, sizeof(o.buf));
	o.len = 0;
	failed = 0;
}

static void out_site(const struct site *s)
{
	out_str(&o, "site fn=");
	out_str(&o, s->fn);
	out_str(&o, " kind=");
	out_str(&o, s->kind);
	out_str(&o, " bytes=");
	out_num(&o, s->bytes, 10);
	out_str(&o, " touched_pages=");
	out_num(&o, s->touched_pages, 10);
	out_str(&o, "\n");
}

/* "WHAT fn=NAME KEY=V": a per-site line of the truth. */
static void out_site_num(const char *what, const struct site *s, const char *key,
			 unsigned long long v)
{
	out_str(&o, what);
	out_str(&o, " fn=");
	out_str(&o, s->fn);
	out_str(&o, " ");
	out_str(&o, key);
	out_str(&o, "=");
	out_num(&o, v, 10);
	out_str(&o, "\n");
}

int main(int argc, char **argv)
{
	unsigned long delay_ms = 0, hold_ms = 0;
	struct rusage before, after, children;
	pid_t child;
	unsigned int i;
	int a;

	for (a = 1; a < argc; a++)
		parse_shared_opt(argv, &a, &delay_ms, &hold_ms);

	if (sysconf(_SC_PAGESIZE) != (long)PAGE) {
		say("fault-target: needs 4 KiB pages\n");
		return 1;
	}
	if (mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) != 1 ||
	    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)) {
		say("fault-target: mallopt or prctl failed\n");
		return 1;
	}
	prefault_statics();
	prefault_text();

	wait_go(delay_ms);

	getrusage(RUSAGE_SELF, &before);
	child = run_fault_scenario();
	getrusage(RUSAGE_SELF, &after);
	getrusage(RUSAGE_CHILDREN, &children);

	for (i = 0; i < NSITES; i++)
		out_site(&sites[i]);
	for (i = 0; i < NSITES; i++)
		out_site_num("resident", &sites[i], "before_touch", sites[i].resident);
	for (i = 0; i < NSITES; i++)
		out_site_num("inalloc", &sites[i], "faults", sites[i].inalloc);
	if (child > 0) {
		out_str(&o, "cow pid=");
		out_num(&o, (unsigned long long)child, 10);
		out_str(&o, " fn=fork_buffer pages=");
		out_num(&o, CHILD_TOUCH, 10);
		out_str(&o, "\n");
	}
	for (i = 0; i < nblocks; i++) {
		out_str(&o, "addr fn=");
		out_str(&o, blocks[i].fn);
		out_str(&o, " start=");
		out_num(&o, (uintptr_t)blocks[i].start, 16);
		out_str(&o, " end=");
		out_num(&o, (uintptr_t)blocks[i].start + blocks[i].len, 16);
		out_str(&o, "\n");
	}
	out_str(&o, "file=");
	out_str(&o, file_path);
	out_str(&o, "\n");
	out_kv(&o, "file_pages", FILE_PAGES, 10);
	out_kv(&o, "minflt", (unsigned long long)(after.ru_minflt - before.ru_minflt), 10);
	out_kv(&o, "majflt", (unsigned long long)(after.ru_majflt - before.ru_majflt), 10);
	out_kv(&o, "child_minflt", (unsigned long long)children.ru_minflt, 10);
	out_kv(&o, "child_majflt", (unsigned long long)children.ru_majflt, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	if (child > 0)
		out_kv(&o, "child_pid", (unsigned long long)child, 10);
	out_flush(&o);

	if (!failed)
		wait_end(hold_ms);
	if (file_made)
		unlink(file_path);
	if (failed) {
		char msg[96];

		snprintf(msg, sizeof(msg), "fault-target: a call failed or read the wrong data "
			 "(fault-target.c:%d)\n", failed);
		say(msg);
		return 1;
	}
	return 0;
}
