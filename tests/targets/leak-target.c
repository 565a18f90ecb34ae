/*
 * leak-target: a program whose heap leaks are known exactly, for the
 * system tests of `faultline leak`.
 *
 * Usage: leak-target MODE [--delay-ms N] [--hold-ms N] [--go FIFO]
 * [--end FIFO].  Every mode parses its options, does its warm-up (below),
 * sleeps --delay-ms N (default 0) and waits for --go FIFO (truth.h) so a
 * tracer attaching with -p is ready, runs its measured phase, prints the
 * ground truth on stdout, sleeps --hold-ms N (default 0), waits for --end
 * FIFO and exits 0 (1 if a call did not behave as glibc's does, 2 on a
 * usage error).  Every allocation site is its own noinline, noipa
 * function that calls the allocator from one call instruction (a loop
 * around one call), so each site has exactly one stack:
 * main -> run_MODE -> SITE -> allocator (threads: start_thread -> SITE).
 *
 * Modes and their measured phases:
 *   leaks     in this order:
 *               leak_malloc_small    7 x malloc(40), kept
 *               leak_calloc          3 x calloc(5, 100), kept (1500 bytes)
 *               leak_realloc_chain   one pointer through realloc(NULL, 10),
 *                                    realloc(p, 100), realloc(p, 1000): one
 *                                    call site in a loop; 1000 bytes in one
 *                                    block kept
 *               leak_posix_memalign  2 x posix_memalign(&p, 64, 256), kept
 *               leak_aligned_alloc   2 x aligned_alloc(128, 384), kept
 *               leak_big             2 x malloc(1 MiB), kept: above the mmap
 *                                    threshold, so each is an mmap(2)
 *               leak_threads         4 threads, each thread_leak (the start
 *                                    routine): 5 x malloc(72), kept
 *               cross_thread         a consumer thread (consume_blocks) and
 *                                    a producer (produce_blocks): 10 x
 *                                    malloc(200) in the producer, each
 *                                    freed by the consumer
 *               temp_allocs          temp_alloc(n) for n = 1..1000: malloc(n)
 *                                    then free
 *               realloc_to_zero      zero_alloc: malloc(64); then
 *                                    realloc(p, 0), which frees it and
 *                                    returns NULL
 *               failed_alloc         huge_alloc: malloc(SIZE_MAX / 2) returns
 *                                    NULL (ENOMEM)
 *               reallocarray_site    reallocarray(NULL, 6, 50), kept (300)
 *   clean     the same phase, then free_kept frees every kept block.
 *   many      leak_many: 10000 x malloc(32), kept (for -s sampling), in
 *             ten bursts of 1000, 50 ms apart.
 *   fork      parent_leak: 2 x malloc(48), kept; fork; the child runs
 *             child_leak: 3 x malloc(24), kept, and _exit(0)s; the parent
 *             waits for it, prints its truth and execs /proc/self/exe in
 *             mode leaks (same pid, --hold-ms passed on, no delay): a
 *             tracer that follows exec must forget the pre-exec blocks.
 *             The child's address space also holds copies of
 *             parent_leak's two blocks, inherited and never freed.
 *   prealloc  early_alloc: 25 x malloc(56) BEFORE the delay; after it
 *             free_early frees those 25 and late_leak makes 4 x
 *             malloc(88), kept.  A tracer that attached during the delay
 *             sees 25 frees of blocks it never saw allocated.
 *   aged      aged_alloc: 1 x malloc(512); sleeps 1200 ms; free_aged frees
 *             it; young_leak: 1 x malloc(128), kept.  For -o (older than).
 *
 * Ground truth, written with write(2) only (glibc's stdio would malloc a
 * buffer), after the measured phase:
 *   site fn=NAME bytes=N count=N     one per site that leaks, in the order
 *                                    above (fork: "site pid=P fn=...")
 *   addr fn=NAME addr=0x... size=N   one per kept block (not in mode many)
 *   outstanding_bytes=N, outstanding_count=N    sum of the site lines
 *   mode=MODE, pid=P
 * and per mode: clean adds freed_bytes= and freed_count=; prealloc adds
 * early_frees=25 first; aged adds "aged fn=aged_alloc bytes=512 count=1
 * held_ms=1200" first; fork prints, instead of the outstanding lines,
 * "inherited pid=CHILD fn=parent_leak bytes=96 count=2", child_pid=,
 * preexec_bytes=96 and preexec_count=2 (then mode=fork and pid=, and the
 * exec'd leaks mode its own truth).  leaks: outstanding_bytes=2102952,
 * outstanding_count=38.
 *
 * Allocator calls outside the named sites, as seen at glibc 2.36's
 * public entry points (checked with gdb breakpoints on their first
 * instruction); a test tells them apart by stack, or avoids the warm-up
 * by attaching with -p during the delay:
 *   - Warm-up, modes leaks and clean, before the delay: 4 x calloc(17, 16)
 *     from main -> warm_up_threads -> start_threads -> pthread_create ->
 *     allocate_stack -> _dl_allocate_tls -> allocate_dtv -> calloc, one per
 *     thread (4 threads, alive together, joined).  Those DTVs stay with
 *     the stacks in glibc's stack cache and are never freed: 4 blocks,
 *     1088 bytes, outstanding at exit.  Every thread of the measured
 *     phase reuses a cached stack (all threads ask for the same 256 KiB,
 *     far below the 40 MiB cache limit), so pthread_create allocates
 *     nothing there.
 *   - Measured phase, free(NULL) only: 15 per pthread_create (90 in
 *     leaks: 60 from leak_threads, 30 from cross_thread), from
 *     pthread_create -> allocate_stack -> get_cached_stack -> free (the
 *     reused DTV's slots), and 2 per exiting thread (12; 8 more in the
 *     warm-up) from start_thread -> __libc_thread_freeres ->
 *     __glibc_tls_internal_free -> free.
 *   - Measured phase, frees of blocks no public call returned: 13 in
 *     leaks and clean, from start_thread -> __libc_thread_freeres ->
 *     __malloc_arena_thread_freeres -> tcache_thread_shutdown -> free,
 *     as each thread that used malloc or free (thread_leak x4,
 *     produce_blocks, consume_blocks) hands its tcache back: one free per
 *     cached chunk (freed by the program earlier) and one for the tcache
 *     itself (allocated with glibc's internal _int_malloc).
 *   - Nested public calls (a probe on each function fires, the inner
 *     while the outer's return is pending): realloc(NULL, 10) tail-jumps
 *     to malloc(10); realloc(p, 0) calls free(p); reallocarray(NULL, 6,
 *     50) calls realloc(NULL, 300), which calls malloc(300).
 *     posix_memalign and aligned_alloc with alignments above 16 call no
 *     other public function; glibc 2.36's aligned_alloc is memalign (one
 *     address, two names).
 *   - Syscalls, not allocator calls: leak_big's two mmaps, an arena mmap
 *     for the new threads, huge_alloc's three failed mmaps (ENOMEM).
 *   - None before main reaches libc's allocator (ld.so uses its own until
 *     libc is relocated), and printing, sleeping, fork, waitpid and exec
 *     allocate nothing.
 * Modes prealloc, aged and many make no allocator call but their sites'.
 * In mode clean the stacks have one more frame: main -> run_clean ->
 * run_leaks -> SITE; free_kept frees the 38 kept blocks from one call.
 *
 * Every loop count reaches its site as an argument and every site is
 * noipa, so at any -O level (the user's CFLAGS come after -O0) each site
 * keeps exactly one call instruction: no unrolling, and no folding of
 * realloc(NULL, n) into malloc(n) by the compiler.
 *
 * Stacks: built with frame pointers, but glibc has none, so a
 * frame-pointer callchain taken at the allocator's first instruction may
 * skip the site (its return address is only on the stack top, as
 * mmap-target explains): malloc <- run_leaks <- main.  A DWARF unwind
 * shows the site.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRUTH_PROG "leak-target"
#define TRUTH_USAGE "usage: leak-target leaks|clean|many|fork|prealloc|aged " \
		    "[--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

/* No inlining, cloning (.constprop) or splitting: the site names and
 * their single call instruction must survive any -O level. */
#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

#define MAX_KEPT 16384
#define NTHREADS 4
#define THREAD_STACK (256UL * 1024)
#define NCROSS 10
#define AGED_MS 1200
#define N_EARLY 25

/* The sites that can leak, in the order their truth lines are printed. */
enum site_id {
	S_MALLOC_SMALL, S_CALLOC, S_REALLOC_CHAIN, S_POSIX_MEMALIGN, S_ALIGNED_ALLOC, S_BIG,
	S_THREAD, S_REALLOCARRAY, S_MANY, S_PARENT, S_CHILD, S_LATE, S_YOUNG, NSITES
};

static const char *const site_names[NSITES] = {
	"leak_malloc_small", "leak_calloc", "leak_realloc_chain", "leak_posix_memalign",
	"leak_aligned_alloc", "leak_big", "thread_leak", "reallocarray_site", "leak_many",
	"parent_leak", "child_leak", "late_leak", "young_leak",
};

struct kept {
	void *p;
	size_t size;
	enum site_id site;
};

/* A test program's whole state; plain statics keep it obvious.  kept[]
 * is written by several threads, under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept kept[MAX_KEPT];
static unsigned long nkept;
static volatile int failed;
static pthread_attr_t thread_attr;

/* The handover of cross_thread. */
static pthread_cond_t handed = PTHREAD_COND_INITIALIZER;
static void *handover[NCROSS];
static unsigned int nhanded;

static pthread_barrier_t warm_line;
static void *early[N_EARLY];

/* Records a kept block (or a failure: NULL). */
static void keep(void *p, size_t size, enum site_id site)
{
	if (!p) {
		failed = 1;
		return;
	}
	pthread_mutex_lock(&lock);
	if (nkept < MAX_KEPT)
		kept[nkept++] = (struct kept){ p, size, site };
	else
		failed = 1;
	pthread_mutex_unlock(&lock);
}

/* Uses a block, so the compiler may not drop its malloc/free pair. */
SITE static void touch(void *p, size_t n)
{
	memset(p, 0x5a, n);
	__asm__ volatile("" : : "r"(p) : "memory");
}

/* ARG: each thread's number of allocations (or frees). */
static int start_threads(pthread_t *tids, unsigned int n, void *(*fn)(void *), uintptr_t arg)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (pthread_create(&tids[i], &thread_attr, fn, (void *)arg)) {
			failed = 1;
			return (int)i;
		}
	}
	return (int)n;
}

static void join_threads(pthread_t *tids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
}

/* ---- warm-up: thread stacks (and their DTVs) into glibc's cache ---- */

SITE static void *warm_thread(void *arg)
{
	(void)arg;
	/* All NTHREADS alive at once: that makes NTHREADS distinct stacks. */
	pthread_barrier_wait(&warm_line);
	return NULL;
}

SITE static void warm_up_threads(void)
{
	pthread_t tids[NTHREADS];
	int n;

	pthread_barrier_init(&warm_line, NULL, NTHREADS + 1);
	n = start_threads(tids, NTHREADS, warm_thread, 0);
	if (n == NTHREADS)
		pthread_barrier_wait(&warm_line);
	join_threads(tids, n);
	pthread_barrier_destroy(&warm_line);
}

/* ---- the leaks ---- */

SITE static void leak_malloc_small(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keep(malloc(40), 40, S_MALLOC_SMALL);
}

SITE static void leak_calloc(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keep(calloc(5, 100), 500, S_CALLOC);
}

SITE static void leak_realloc_chain(const size_t *sizes, unsigned int n)
{
	void *p = NULL, *q;
	unsigned int i;

	for (i = 0; i < n; i++) {
		q = realloc(p, sizes[i]);
		if (!q) {
			failed = 1;
			free(p);
			return;
		}
		p = q;
	}
	keep(p, sizes[n - 1], S_REALLOC_CHAIN);
}

SITE static void leak_posix_memalign(unsigned int n)
{
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = NULL;
		if (posix_memalign(&p, 64, 256) || ((uintptr_t)p & 63))
			failed = 1;
		keep(p, 256, S_POSIX_MEMALIGN);
	}
}

SITE static void leak_aligned_alloc(unsigned int n)
{
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = aligned_alloc(128, 384);
		if ((uintptr_t)p & 127)
			failed = 1;
		keep(p, 384, S_ALIGNED_ALLOC);
	}
}

SITE static void leak_big(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keep(malloc(1UL << 20), 1UL << 20, S_BIG);
}

/* A start routine: the threads' stack is start_thread -> thread_leak. */
SITE static void *thread_leak(void *arg)
{
	uintptr_t i;

	for (i = 0; i < (uintptr_t)arg; i++)
		keep(malloc(72), 72, S_THREAD);
	return NULL;
}

SITE static void leak_threads(void)
{
	pthread_t tids[NTHREADS];

	join_threads(tids, start_threads(tids, NTHREADS, thread_leak, 5));
}

SITE static void *produce_blocks(void *arg)
{
	uintptr_t i;
	void *p;

	for (i = 0; i < (uintptr_t)arg; i++) {
		p = malloc(200);
		if (!p)
			failed = 1;
		pthread_mutex_lock(&lock);
		handover[nhanded++] = p;
		pthread_cond_signal(&handed);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

SITE static void *consume_blocks(void *arg)
{
	uintptr_t i;
	void *p;

	for (i = 0; i < (uintptr_t)arg; i++) {
		pthread_mutex_lock(&lock);
		while (nhanded <= i)
			pthread_cond_wait(&handed, &lock);
		p = handover[i];
		pthread_mutex_unlock(&lock);
		free(p);
	}
	return NULL;
}

SITE static void cross_thread(void)
{
	pthread_t tids[2];
	int n;

	/* The consumer first, so it is waiting when the blocks come. */
	n = start_threads(tids, 1, consume_blocks, NCROSS);
	if (n == 1)
		n += start_threads(tids + 1, 1, produce_blocks, NCROSS);
	join_threads(tids, n);
}

SITE static void temp_alloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		failed = 1;
		return;
	}
	touch(p, n);
	free(p);
}

SITE static void temp_allocs(size_t max)
{
	size_t n;

	for (n = 1; n <= max; n++)
		temp_alloc(n);
}

SITE static void *zero_alloc(void)
{
	void *p = malloc(64);

	if (!p)
		failed = 1;
	return p;
}

SITE static void realloc_to_zero(void)
{
	void *p = zero_alloc();

	/* glibc frees p and returns NULL (REALLOC_ZERO_BYTES_FREES). */
	p = realloc(p, 0);
	if (p) {
		failed = 1;
		free(p);
	}
}

SITE static void *huge_alloc(void)
{
	/* volatile: a constant size this large draws a compiler warning. */
	volatile size_t size = SIZE_MAX / 2;

	return malloc(size);
}

SITE static void failed_alloc(void)
{
	void *p = huge_alloc();

	if (p) {
		failed = 1;
		free(p);
	}
}

SITE static void reallocarray_site(void)
{
	keep(reallocarray(NULL, 6, 50), 300, S_REALLOCARRAY);
}

SITE static void run_leaks(void)
{
	static const size_t chain[] = { 10, 100, 1000 };

	leak_malloc_small(7);
	leak_calloc(3);
	leak_realloc_chain(chain, 3);
	leak_posix_memalign(2);
	leak_aligned_alloc(2);
	leak_big(2);
	leak_threads();
	cross_thread();
	temp_allocs(1000);
	realloc_to_zero();
	failed_alloc();
	reallocarray_site();
}

/* Frees every kept block, from one call instruction. */
SITE static void free_kept(unsigned long long *bytes, unsigned long *count)
{
	unsigned long i;

	for (i = 0; i < nkept; i++) {
		free(kept[i].p);
		*bytes += kept[i].size;
	}
	*count = nkept;
	nkept = 0;
}

SITE static void run_clean(unsigned long long *bytes, unsigned long *count)
{
	run_leaks();
	free_kept(bytes, count);
}

/* ---- many ---- */

SITE static void leak_many(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keep(malloc(32), 32, S_MANY);
}

/* Ten bursts of 1000 from one call site (one stack), 50 ms apart: each
 * burst's 1000 return samples (about 8 MiB with DWARF stacks) fit in the
 * default ring, and the pause lets a slow tracer (a sanitizer build)
 * drain it, so the sampling test measures sampling, not lost events. */
SITE static void run_many(void)
{
	for (int burst = 0; burst < 10; burst++) {
		leak_many(1000);
		sleep_ms(50);
	}
}

/* ---- fork ---- */

SITE static void parent_leak(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keep(malloc(48), 48, S_PARENT);
}

SITE static void child_leak(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keep(malloc(24), 24, S_CHILD);
}

/* The child's pid, or -1. */
SITE static pid_t run_fork(void)
{
	pid_t child;
	int status;

	parent_leak(2);
	child = fork();
	if (child < 0) {
		failed = 1;
		return -1;
	}
	if (child == 0) {
		child_leak(3);
		_exit(failed ? 1 : 0);
	}
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR) {
			failed = 1;
			return child;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		failed = 1;
	return child;
}

/* ---- prealloc ---- */

SITE static void early_alloc(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		early[i] = malloc(56);
		if (!early[i])
			failed = 1;
	}
}

SITE static void free_early(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(early[i]);
}

SITE static void late_leak(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keep(malloc(88), 88, S_LATE);
}

SITE static void run_prealloc(void)
{
	free_early(N_EARLY);
	late_leak(4);
}

/* ---- aged ---- */

SITE static void *aged_alloc(void)
{
	void *p = malloc(512);

	if (!p)
		failed = 1;
	return p;
}

SITE static void free_aged(void *p)
{
	free(p);
}

SITE static void young_leak(void)
{
	keep(malloc(128), 128, S_YOUNG);
}

SITE static void run_aged(void)
{
	void *p = aged_alloc();

	sleep_ms(AGED_MS);
	free_aged(p);
	young_leak();
}

/* ---- ground truth ---- */

/* "KIND [pid=P ]fn=FN bytes=N count=N"; PID 0 leaves pid= out. */
static void out_site(struct out *o, const char *kind, pid_t pid, const char *fn,
		     unsigned long long bytes, unsigned long count)
{
	out_str(o, kind);
	if (pid > 0) {
		out_str(o, " pid=");
		out_num(o, (unsigned long long)pid, 10);
	}
	out_str(o, " fn=");
	out_str(o, fn);
	out_str(o, " bytes=");
	out_num(o, bytes, 10);
	out_str(o, " count=");
	out_num(o, count, 10);
	out_str(o, "\n");
}

/* site lines, in site order; PID > 0 adds pid= (mode fork). */
static void out_sites(struct out *o, pid_t pid, unsigned long long *bytes, unsigned long *count)
{
	unsigned long long sb[NSITES] = { 0 };
	unsigned long sc[NSITES] = { 0 };
	unsigned long i;
	int s;

	for (i = 0; i < nkept; i++) {
		sb[kept[i].site] += kept[i].size;
		sc[kept[i].site]++;
	}
	*bytes = 0;
	*count = 0;
	for (s = 0; s < NSITES; s++) {
		if (!sc[s])
			continue;
		out_site(o, "site", pid, site_names[s], sb[s], sc[s]);
		*bytes += sb[s];
		*count += sc[s];
	}
}

static void out_addrs(struct out *o)
{
	unsigned long i;

	for (i = 0; i < nkept; i++) {
		out_str(o, "addr fn=");
		out_str(o, site_names[kept[i].site]);
		out_str(o, " addr=");
		out_num(o, (uintptr_t)kept[i].p, 16);
		out_str(o, " size=");
		out_num(o, kept[i].size, 10);
		out_str(o, "\n");
	}
}

/* V in decimal into BUF (N >= 21 bytes). */
static void format_ulong(char *buf, size_t n, unsigned long v)
{
	char tmp[24];
	size_t i = sizeof(tmp), len;

	tmp[--i] = '\0';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	len = sizeof(tmp) - i;
	if (len <= n)
		memcpy(buf, tmp + i, len);
}

int main(int argc, char **argv)
{
	static struct out o;
	static char hold_arg[24];
	unsigned long delay_ms = 0, hold_ms = 0, count = 0;
	unsigned long long bytes = 0;
	const char *mode;
	pid_t child;
	int a;

	if (argc < 2 || argv[1][0] == '-')
		die_usage(argc < 2 ? "a mode is needed" : NULL);
	mode = argv[1];
	for (a = 2; a < argc; a++)
		parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	if (strcmp(mode, "leaks") && strcmp(mode, "clean") && strcmp(mode, "many") &&
	    strcmp(mode, "fork") && strcmp(mode, "prealloc") && strcmp(mode, "aged"))
		die_usage("unknown mode");

	if (!strcmp(mode, "leaks") || !strcmp(mode, "clean")) {
		pthread_attr_init(&thread_attr);
		pthread_attr_setstacksize(&thread_attr, THREAD_STACK);
		warm_up_threads();
	}
	if (!strcmp(mode, "prealloc"))
		early_alloc(N_EARLY);

	wait_go(delay_ms);

	if (!strcmp(mode, "leaks")) {
		run_leaks();
		out_sites(&o, 0, &bytes, &count);
		out_addrs(&o);
	} else if (!strcmp(mode, "clean")) {
		unsigned long long freed_bytes = 0;
		unsigned long freed_count = 0;

		run_clean(&freed_bytes, &freed_count);
		out_kv(&o, "freed_bytes", freed_bytes, 10);
		out_kv(&o, "freed_count", freed_count, 10);
	} else if (!strcmp(mode, "many")) {
		run_many();
		out_sites(&o, 0, &bytes, &count);
	} else if (!strcmp(mode, "prealloc")) {
		run_prealloc();
		out_kv(&o, "early_frees", N_EARLY, 10);
		out_sites(&o, 0, &bytes, &count);
		out_addrs(&o);
	} else if (!strcmp(mode, "aged")) {
		run_aged();
		out_str(&o, "aged fn=aged_alloc bytes=512 count=1 held_ms=");
		out_num(&o, AGED_MS, 10);
		out_str(&o, "\n");
		out_sites(&o, 0, &bytes, &count);
		out_addrs(&o);
	}

	if (!strcmp(mode, "fork")) {
		child = run_fork();
		out_sites(&o, getpid(), &bytes, &count);
		if (child > 0) {
			/* The child exits 1 unless its three mallocs worked. */
			out_site(&o, "site", child, "child_leak", 3 * 24, 3);
			out_site(&o, "inherited", child, "parent_leak", bytes, count);
			out_kv(&o, "child_pid", (unsigned long long)child, 10);
		}
		out_kv(&o, "preexec_bytes", bytes, 10);
		out_kv(&o, "preexec_count", count, 10);
	} else {
		out_kv(&o, "outstanding_bytes", bytes, 10);
		out_kv(&o, "outstanding_count", count, 10);
	}
	out_str(&o, "mode=");
	out_str(&o, mode);
	out_str(&o, "\n");
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);

	if (failed) {
		say("leak-target: an allocator call did not behave as glibc's does\n");
		return 1;
	}
	if (!strcmp(mode, "fork")) {
		char *args[] = { argv[0], (char *)"leaks", (char *)"--hold-ms", hold_arg, NULL };

		format_ulong(hold_arg, sizeof(hold_arg), hold_ms);
		execv("/proc/self/exe", args);
		say("leak-target: cannot exec /proc/self/exe\n");
		return 1;
	}
	wait_end(hold_ms);
	return 0;
}
