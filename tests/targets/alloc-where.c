/*
 * alloc-where: a fixed set of malloc-family calls, built against several
 * allocators (tests/system/alloc-where.sh and alloc-where-tools.sh: static
 * glibc, static and dynamic musl, jemalloc and tcmalloc linked in
 * statically, jemalloc preloaded, and, as alloc-where-dl, an allocator
 * library it dlopen's), so that faultline must find and probe the
 * allocator where the program has it; it prints its own account of every
 * call, which each tool's report must match.
 *
 *   alloc-where [--go FIFO] [--end FIFO]
 *   alloc-where-dl LIB [--go FIFO] [--probed FIFO] [--end FIFO]
 *
 * In order, from main:
 *   grab     malloc(TOUCH_BYTES): 256 KiB and 100 B, above every
 *            allocator's small sizes here (glibc and musl mmap it, jemalloc
 *            and tcmalloc cut it from fresh pages); touch writes one byte in
 *            each page that lies wholly inside the block, after mincore(2)
 *            counted how many of them were resident already (an allocator's
 *            header is in the block's first, partial page, left out).
 *            Huge pages are off for the process (PR_SET_THP_DISABLE, before
 *            --go) and for those pages (MADV_NOHUGEPAGE): one fault a page.
 *   churn    20 times: calloc(4, 32), realloc(NULL, 16), aligned_alloc(64,
 *            256), malloc(100), the realloc'ed block grown to 1000 then 5000
 *            B, and all four freed.
 *   make     100 blocks of 4096 B, then 50 of 128 B, kept.
 *   churn    again, then grab's block freed.
 * Every block passes through the account below as it is made and freed, in
 * the order heaptrack (and faultline heap) see the calls: realloc frees
 * its old block, then makes the new one; a block is temporary when its
 * free is the event right after its allocation (heaptrack's rule: no other
 * allocation or free between); the peak is the most requested bytes
 * outstanding after an allocation, first reached.
 *
 * Printed on stdout at the end (write(2) only: stdio mallocs its buffer in
 * some libcs):
 *   outstanding BYTES COUNT        the blocks kept (make's)
 *   site fn=F calls=N frees=N temporary=N peak=B leaked=B leaked_count=N
 *                                  per allocating function (grab, churn,
 *                                  make): its calls, the frees of its
 *                                  blocks, its bytes at the peak
 *   calls=N frees=N temporary=N peak=B leaked=B leaked_count=N
 *                                  the same, the whole program
 *   touched_bytes=B touched_pages=N resident=N
 *                                  grab's block, touch's pages, those of
 *                                  them resident before it wrote
 * --go FIFO: wait, before any allocation, until the FIFO is opened for
 * writing (a tracer attached by -p is ready); alloc-where-dl dlopen's LIB
 * after it.  --probed FIFO (alloc-where-dl): wait after the dlopen, before
 * the first call into LIB (the tracer probes LIB meanwhile).  --end FIFO:
 * wait after the account is printed.
 *
 * alloc-where-dl (built with -DAW_DLOPEN) calls LIB's malloc, calloc,
 * realloc, aligned_alloc and free by dlsym()'s pointers: the program's own
 * malloc stays libc's, used by the dynamic linker alone (dlopen's own
 * blocks, not in the account).
 */
#define TRUTH_PROG "alloc-where"
#ifdef AW_DLOPEN
#define TRUTH_USAGE "usage: alloc-where-dl LIB [--go FIFO] [--probed FIFO] [--end FIFO]\n"
#else
#define TRUTH_USAGE "usage: alloc-where [--go FIFO] [--end FIFO]\n"
#endif
#include "truth.h"

#ifdef AW_DLOPEN
#include "dl-alloc.h"

static struct dl_alloc lib;
#define MALLOC lib.malloc_fn
#define CALLOC lib.calloc_fn
#define REALLOC lib.realloc_fn
#define ALIGNED_ALLOC lib.aligned_alloc_fn
#define FREE lib.free_fn
#else
/* Direct calls: a static glibc's callers call __libc_malloc, malloc's alias. */
#define MALLOC malloc
#define CALLOC calloc
#define REALLOC realloc
#define ALIGNED_ALLOC aligned_alloc
#define FREE free
#endif

#define BIG 100
#define BIG_SIZE 4096
#define SMALL 50
#define SMALL_SIZE 128
#define TOUCH_BYTES (256 * 1024 + 100)

enum site { S_GRAB, S_CHURN, S_MAKE, NSITES };
static const char *const site_name[NSITES] = { "grab", "churn", "make" };

/* One account per site and one for the program (index NSITES). */
struct tally {
	unsigned long long calls, frees, temporary, cur, peak, leaked_count;
};
static struct tally tally[NSITES + 1];
/* last: the seq of the last event's block when that event was an
 * allocation, 0 after a free. */
static unsigned long long peak, seq, last;

/* The blocks outstanding: never more than make's and churn's four, grab's. */
static struct blk {
	void *p;
	size_t n;
	unsigned long long seq;
	enum site site;
} live[BIG + SMALL + 8];

static void *kept[BIG + SMALL];
/* Every block passes here: under -O2 (the user's CFLAGS come after the
 * targets' -O0) gcc drops a malloc whose block is only freed. */
static void *volatile sink;

static void made(enum site s, void *p, size_t n)
{
	struct blk *b = NULL;

	if (!p) {
		say(TRUTH_PROG ": an allocation failed\n");
		exit(1);
	}
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]) && !b; i++)
		if (!live[i].p)
			b = &live[i];
	if (!b) {
		say(TRUTH_PROG ": more blocks than planned\n");
		exit(1);
	}
	*b = (struct blk){ p, n, ++seq, s };
	last = seq;
	tally[s].calls++;
	tally[NSITES].calls++;
	tally[s].cur += n;
	tally[NSITES].cur += n;
	if (tally[NSITES].cur > peak) {
		peak = tally[NSITES].cur;
		for (int i = 0; i <= NSITES; i++)
			tally[i].peak = tally[i].cur;
	}
}

/* Called before the block goes back (free, realloc): gcc 12's -Wuse-after-free,
 * in -Wall at -O2, refuses a pointer read after it is freed. */
static void freed(void *p)
{
	struct blk *b = NULL;

	if (!p)
		return;
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]) && !b; i++)
		if (live[i].p == p)
			b = &live[i];
	if (!b) {
		say(TRUTH_PROG ": a block not in the account\n");
		exit(1);
	}
	for (int i = b->site;; i = NSITES) {
		tally[i].frees++;
		tally[i].temporary += b->seq == last;
		tally[i].cur -= b->n;
		if (i == NSITES)
			break;
	}
	b->p = NULL;
	last = 0;
}

/* Each call in its own function, not inlined: stacks name them. */
__attribute__((noinline)) static void *make(size_t n)
{
	void *p = MALLOC(n);

	made(S_MAKE, p, n);
	return p;
}

__attribute__((noinline)) static void *grab(void)
{
	void *p = MALLOC(TOUCH_BYTES);

	made(S_GRAB, p, TOUCH_BYTES);
	return p;
}

/* Writes a byte in each page wholly inside [p, p + n); returns how many,
 * and in *resident how many of them were resident before. */
__attribute__((noinline)) static unsigned long touch(char *p, size_t n, unsigned long *resident)
{
	long psz = sysconf(_SC_PAGESIZE);
	uintptr_t first = ((uintptr_t)p + (uintptr_t)psz - 1) & ~((uintptr_t)psz - 1);
	uintptr_t end = ((uintptr_t)p + n) & ~((uintptr_t)psz - 1);
	unsigned long pages = (unsigned long)(end - first) / (unsigned long)psz;
	static unsigned char vec[TOUCH_BYTES / 4096 + 1];

	if (pages > sizeof(vec) || mincore((void *)first, end - first, vec) < 0)
		die_errno("mincore");
	madvise((void *)first, end - first, MADV_NOHUGEPAGE);
	*resident = 0;
	for (unsigned long i = 0; i < pages; i++)
		*resident += vec[i] & 1;
	for (uintptr_t a = first; a < end; a += (uintptr_t)psz)
		*(volatile char *)a = 1;
	return pages;
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 20; i++) {
		void *c = CALLOC(4, 32), *r, *a, *m, *q;

		made(S_CHURN, c, 128);
		r = REALLOC(NULL, 16);
		made(S_CHURN, r, 16);
		a = ALIGNED_ALLOC(64, 256);
		made(S_CHURN, a, 256);
		m = MALLOC(100);
		made(S_CHURN, m, 100);
		sink = c;
		sink = a;
		sink = m;
		sink = r;
		freed(r);
		q = REALLOC(r, 1000);
		made(S_CHURN, q, 1000);
		sink = q;
		freed(q);
		r = REALLOC(q, 5000);
		made(S_CHURN, r, 5000);
		sink = r;
		freed(c);
		FREE(c);
		freed(r);
		FREE(r);
		freed(a);
		FREE(a);
		freed(m);
		FREE(m);
	}
}

static void out_tally(struct out *o, const struct tally *a)
{
	out_str(o, "calls=");
	out_num(o, a->calls, 10);
	out_str(o, " frees=");
	out_num(o, a->frees, 10);
	out_str(o, " temporary=");
	out_num(o, a->temporary, 10);
	out_str(o, " peak=");
	out_num(o, a->peak, 10);
	out_str(o, " leaked=");
	out_num(o, a->cur, 10);
	out_str(o, " leaked_count=");
	out_num(o, a->calls - a->frees, 10);
	out_str(o, "\n");
}

int main(int argc, char **argv)
{
	static struct out o;
	const char *probed = NULL;
	unsigned long delay = 0, hold = 0, pages, resident;
	unsigned long long bytes = 0, count = 0;
	char *block;

#ifdef AW_DLOPEN
	dl_alloc_opts(argc, argv, &probed, &delay, &hold);
#else
	for (int a = 1; a < argc; a++)
		parse_shared_opt(argv, &a, &delay, &hold);
#endif
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	wait_go(delay);
#ifdef AW_DLOPEN
	dl_alloc_open(argv[1], &lib);
#endif
	wait_fifo(probed);
	block = grab();
	sink = block;
	pages = touch(block, TOUCH_BYTES, &resident);
	churn();
	for (int i = 0; i < BIG; i++) {
		kept[i] = make(BIG_SIZE);
		bytes += BIG_SIZE;
		count++;
	}
	for (int i = 0; i < SMALL; i++) {
		kept[BIG + i] = make(SMALL_SIZE);
		bytes += SMALL_SIZE;
		count++;
	}
	churn();
	freed(block);
	FREE(block);

	out_str(&o, "outstanding ");
	out_num(&o, bytes, 10);
	out_str(&o, " ");
	out_num(&o, count, 10);
	out_str(&o, "\n");
	for (int s = 0; s < NSITES; s++) {
		out_str(&o, "site fn=");
		out_str(&o, site_name[s]);
		out_str(&o, " ");
		out_tally(&o, &tally[s]);
	}
	out_tally(&o, &tally[NSITES]);
	out_kv(&o, "touched_bytes", TOUCH_BYTES, 10);
	out_kv(&o, "touched_pages", pages, 10);
	out_kv(&o, "resident", resident, 10);
	out_flush(&o);
	wait_end(hold);
	return 0;
}
