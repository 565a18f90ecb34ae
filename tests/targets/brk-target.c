/*
 * brk-target: a program whose brk(2) calls are known exactly, for the
 * system tests of `faultline brk`.
 *
 * What it does, in order:
 *   1. Parses options.  With --threads, warms malloc up (one malloc/free,
 *      trimming disabled) so that creating threads later takes memory
 *      from an existing heap and never calls brk.  With --libc, primes
 *      libc's cached break with sbrk(0) so each later sbrk(step) is
 *      exactly one brk syscall.  Process startup itself makes brk calls
 *      (ld.so's brk(NULL); malloc's first heap when --threads), all
 *      before step 2.
 *   2. Sleeps --delay-ms N (default 0), then waits for --go FIFO (truth.h),
 *      so a tracer attaching with -p is ready before the work.
 *   3. query_break(): one raw brk(0) syscall, the initial break.
 *   4. The measured phase, from main -> run_brk_scenario:
 *        default:  grow_heap_by_brk() makes --count N (default 7) raw
 *                  brk syscalls, each growing the break by --step BYTES
 *                  (default 65536).  The syscall instruction is inline asm
 *                  inside grow_heap_by_brk, so that function is the
 *                  innermost user frame of every call, and a frame-pointer
 *                  callchain reads grow_heap_by_brk <- run_brk_scenario <-
 *                  main.
 *        --libc:   grow_heap_by_sbrk() calls libc sbrk(step) N times; each
 *                  is one brk syscall from libc's brk (what a uprobe on
 *                  libc's __brk/brk sees).  The innermost frames are then
 *                  libc's brk and sbrk.  A DWARF unwind (strace -k, perf
 *                  --call-graph dwarf) continues to grow_heap_by_sbrk, but
 *                  a frame-pointer callchain stops after brk: glibc is
 *                  built without frame pointers and sbrk keeps the old
 *                  break in %rbp, so the kernel's walk reads the heap's
 *                  end, not a frame.  Tests of this mode count calls; they
 *                  cannot expect grow_heap_by_sbrk in an fp stack.
 *        --threads T: T threads (created after the delay, so a tracer
 *                  attached with -p must follow new threads) each run the
 *                  same N calls from brk_thread_main -> grow_heap_by_brk
 *                  (or grow_heap_by_sbrk); main makes none.  A mutex
 *                  serialises the calls so the final break is exact.
 *   5. Prints the ground truth on stdout with write(2) only (stdio would
 *      malloc a buffer, and malloc may call brk): one line per measured
 *      call "brk req=0x... ret=0x... fn=grow_heap_by_brk tid=N", then
 *      brk_calls_grow=N*T, brk_calls_query=1, initial_break=0x...,
 *      final_break=0x..., threads=T, mode=raw|libc, pid=P.
 *   6. Sleeps --hold-ms N (default 0), then waits for --end FIFO and exits
 *      0; nothing after the measured phase calls brk.  Exit 2 on a usage
 *      error, 1 if a brk call fails.
 *
 * Built -O0 -fno-omit-frame-pointer -fno-inline; functions are noinline
 * anyway so the stacks hold whatever the compiler flags.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRUTH_PROG "brk-target"
#define TRUTH_USAGE "usage: brk-target [--count N] [--step BYTES] [--libc] " \
		    "[--threads T] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#define NOINLINE __attribute__((noinline))
#define MAX_RECORDS 4096
#define MAX_THREADS 64

/* The syscall instruction right here, not in a function: that is what
 * makes the caller the innermost frame. */
#if defined(__x86_64__)
#define RAW_BRK(addr) ({ \
	long _ret; \
	register long _a1 __asm__("rdi") = (long)(addr); \
	__asm__ volatile("syscall" : "=a"(_ret) : "0"((long)SYS_brk), "r"(_a1) \
			 : "rcx", "r11", "memory"); \
	(unsigned long)_ret; })
#elif defined(__aarch64__)
#define RAW_BRK(addr) ({ \
	register long _x8 __asm__("x8") = (long)SYS_brk; \
	register long _x0 __asm__("x0") = (long)(addr); \
	__asm__ volatile("svc #0" : "+r"(_x0) : "r"(_x8) : "memory"); \
	(unsigned long)_x0; })
#else
#error "brk-target: add the raw syscall sequence for this architecture"
#endif

struct brk_record {
	unsigned long req;
	unsigned long ret;
	pid_t tid;
	const char *fn;
};

/* Shared by the measuring threads, under lock; this is a test program,
 * so plain statics are the simplest honest state. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start_line;
static unsigned long current_break;
static struct brk_record records[MAX_RECORDS];
static unsigned long nrecords;
static unsigned long ndropped;
static unsigned long count = 7;
static unsigned long step = 65536;
static int failed;

/* ---- the known calls ---- */

static void record(unsigned long req, unsigned long ret, const char *fn)
{
	if (nrecords < MAX_RECORDS) {
		records[nrecords].req = req;
		records[nrecords].ret = ret;
		records[nrecords].tid = (pid_t)syscall(SYS_gettid);
		records[nrecords].fn = fn;
		nrecords++;
	} else {
		ndropped++;
	}
}

NOINLINE static unsigned long query_break(void)
{
	return RAW_BRK(0);
}

NOINLINE static void grow_heap_by_brk(unsigned long n, unsigned long bytes)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		unsigned long req, ret;

		pthread_mutex_lock(&lock);
		req = current_break + bytes;
		ret = RAW_BRK(req);
		/* The kernel returns the old break when it refuses. */
		if (ret != req)
			failed = 1;
		current_break = ret;
		record(req, ret, "grow_heap_by_brk");
		pthread_mutex_unlock(&lock);
	}
}

NOINLINE static void grow_heap_by_sbrk(unsigned long n, unsigned long bytes)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		unsigned long req, ret;
		void *old;

		pthread_mutex_lock(&lock);
		req = current_break + bytes;
		old = sbrk((intptr_t)bytes);
		if (old == (void *)-1 || (unsigned long)old != current_break)
			failed = 1;
		ret = (unsigned long)sbrk(0);
		current_break = ret;
		record(req, ret, "grow_heap_by_sbrk");
		pthread_mutex_unlock(&lock);
	}
}

static int use_libc;

NOINLINE static void *brk_thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	if (use_libc)
		grow_heap_by_sbrk(count, step);
	else
		grow_heap_by_brk(count, step);
	return NULL;
}

NOINLINE static int run_brk_scenario(unsigned long nthreads)
{
	pthread_t tids[MAX_THREADS];
	unsigned long i;
	int err;

	if (nthreads == 0) {
		if (use_libc)
			grow_heap_by_sbrk(count, step);
		else
			grow_heap_by_brk(count, step);
		return 0;
	}
	/* Threads wait at the barrier until all exist, so none of the
	 * measured calls overlaps pthread_create's own work. */
	pthread_barrier_init(&start_line, NULL, (unsigned int)nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&tids[i], NULL, brk_thread_main, NULL);
		if (err)
			return -err;
	}
	pthread_barrier_wait(&start_line);
	for (i = 0; i < nthreads; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&start_line);
	return 0;
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0, nthreads = 0;
	unsigned long initial, i;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--count") == 0)
			count = parse_num(argv[++a], "--count needs a number");
		else if (strcmp(argv[a], "--step") == 0)
			step = parse_num(argv[++a], "--step needs a number of bytes");
		else if (strcmp(argv[a], "--threads") == 0)
			nthreads = parse_num(argv[++a], "--threads needs a number");
		else if (strcmp(argv[a], "--libc") == 0)
			use_libc = 1;
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (nthreads > MAX_THREADS)
		die_usage("--threads: at most 64");
	if (step == 0 || step % 4096)
		die_usage("--step must be a positive multiple of 4096");

	if (nthreads) {
		/* pthread_create callocs the new thread's DTV: make that come
		 * from a heap that already exists, and never trim it.  volatile:
		 * at -O2 the compiler may drop a malloc whose block is unused. */
		void *volatile p;

		mallopt(M_TRIM_THRESHOLD, 1 << 30);
		p = malloc(1);
		free(p);
	}
	if (use_libc)
		(void)sbrk(0);

	wait_go(delay_ms);

	initial = query_break();
	current_break = initial;
	if (run_brk_scenario(nthreads) < 0) {
		say("brk-target: cannot create threads\n");
		return 1;
	}

	for (i = 0; i < nrecords; i++) {
		out_str(&o, "brk req=");
		out_num(&o, records[i].req, 16);
		out_str(&o, " ret=");
		out_num(&o, records[i].ret, 16);
		out_str(&o, " fn=");
		out_str(&o, records[i].fn);
		out_str(&o, " tid=");
		out_num(&o, (unsigned long long)records[i].tid, 10);
		out_str(&o, "\n");
	}
	if (ndropped)
		out_kv(&o, "brk_records_dropped", ndropped, 10);
	out_kv(&o, "brk_calls_grow", count * (nthreads ? nthreads : 1), 10);
	out_kv(&o, "brk_calls_query", 1, 10);
	out_kv(&o, "initial_break", initial, 16);
	out_kv(&o, "final_break", current_break, 16);
	out_kv(&o, "threads", nthreads, 10);
	out_str(&o, use_libc ? "mode=libc\n" : "mode=raw\n");
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);

	if (failed) {
		say("brk-target: a brk call did not move the break as asked\n");
		return 1;
	}
	wait_end(hold_ms);
	return 0;
}
