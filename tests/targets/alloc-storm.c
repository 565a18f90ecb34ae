/*
 * alloc-storm: a malloc-heavy target that allocates as fast as it can,
 * for bench/unwind-throughput (the cost of DWARF stacks per sample,
 * faultline against perf).  Every allocation is one mmap(2) and every
 * free one munmap(2), each reached through a known call chain eight
 * named frames deep, so each iteration makes two stack samples for
 * `faultline mmap -g` and a tracer's throughput can be read off the
 * iteration count.
 *
 * What it does, in order:
 *   1. Parses options.  Sets mallopt(M_MMAP_THRESHOLD, 128 KiB): that
 *      turns glibc's dynamic threshold off (otherwise the first free of
 *      a mapped chunk raises the threshold above 256 KiB, and later
 *      allocations come from the heap without a syscall), so every
 *      malloc(256 KiB) below is one mmap and every free one munmap.
 *      Warms malloc up (one small malloc/free) so the main arena and the
 *      tcache exist before the storm.
 *   2. Sleeps --delay-ms N (default 0), then waits for --go FIFO (truth.h),
 *      so a tracer attaching with -p is ready before the work.
 *   3. The storm: --count N (default 200000) iterations of
 *      malloc(256 KiB), a write to its first byte, free, each from
 *        main -> storm_main_loop -> storm_worker -> storm_batch
 *        -> storm_job -> storm_task -> storm_request -> storm_buffer
 *        -> storm_alloc -> malloc / free (libc, then mmap / munmap)
 *      With --threads T, T threads each run the N iterations from
 *      storm_thread -> storm_main_loop -> ...; main runs none.  Each
 *      thread warms its own arena up (a small malloc/free) and then waits
 *      at a barrier with the others, so thread creation, arena creation
 *      and the storm do not overlap: the storm's mmap and munmap calls
 *      are exactly N*T each (strace -f -c shows them with the process
 *      startup's own few).
 *   4. Prints the ground truth with write(2) only (stdio would malloc a
 *      buffer): chain=storm_alloc,storm_buffer,...,storm_main_loop (the
 *      frames innermost first, from the caller of malloc/free; the next
 *      frame is main, or storm_thread with --threads), iterations=N*T,
 *      alloc_size=262144, mmap_calls=N*T, munmap_calls=N*T, threads=T,
 *      pid=P; then what the storm cost the process itself, for the
 *      benchmark to tell the target's slowdown from the tracer's own
 *      cost: storm_ns (wall time of step 3, CLOCK_MONOTONIC, read through
 *      the vDSO) and cpu_us (user + system CPU time of the whole process
 *      so far, getrusage; it includes the kernel's copying of samples,
 *      which happens in the traced process).  Those two are not counts:
 *      they differ from run to run.
 *   5. Sleeps --hold-ms N (default 0), then waits for --end FIFO and exits
 *      0.  Exit 1 if a malloc failed or a thread could not start, 2 on a
 *      usage error.
 *
 * Built -O2 -fomit-frame-pointer, as distributions build code: only a
 * DWARF walk sees the whole chain.  Every frame is kept out of
 * interprocedural optimisation (noipa: no inlining, cloning or
 * splitting) and does something after its call, so no call is a sibling
 * call that would drop a frame.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define TRUTH_PROG "alloc-storm"
#define TRUTH_USAGE "usage: alloc-storm [--count N] [--threads T] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#if defined(__clang__)
#define STORM_FRAME __attribute__((noinline))
#else
#define STORM_FRAME __attribute__((noipa))
#endif

#define STORM_ALLOC_SIZE (256UL * 1024)
/* Below STORM_ALLOC_SIZE, so every allocation is mapped; fixed, so it
 * never moves. */
#define STORM_MMAP_THRESHOLD (128 * 1024)
#define STORM_MAX_THREADS 64

#define STORM_CHAIN "storm_alloc,storm_buffer,storm_request,storm_task,storm_job," \
		    "storm_batch,storm_worker,storm_main_loop"

/* A test program's whole state; plain statics keep it obvious. */
static unsigned long count = 200000;
static pthread_barrier_t start_line;
/* Set by any thread whose malloc failed; read after the joins. */
static volatile int failed;
/* Written after each call: the work the compiler may not move before it. */
static volatile unsigned long steps;

/* One mapped allocation, touched so it is really used, and freed. */
STORM_FRAME static int storm_alloc(unsigned long i)
{
	char *p = malloc(STORM_ALLOC_SIZE);

	if (!p)
		return -1;
	p[0] = (char)i;
	/* The block escapes here: the compiler may not drop the pair. */
	__asm__ volatile("" : : "r"(p) : "memory");
	free(p);
	steps++;
	return 0;
}

STORM_FRAME static int storm_buffer(unsigned long i)
{
	int ret = storm_alloc(i);

	steps++;
	return ret;
}

STORM_FRAME static int storm_request(unsigned long i)
{
	int ret = storm_buffer(i);

	steps++;
	return ret;
}

STORM_FRAME static int storm_task(unsigned long i)
{
	int ret = storm_request(i);

	steps++;
	return ret;
}

STORM_FRAME static int storm_job(unsigned long i)
{
	int ret = storm_task(i);

	steps++;
	return ret;
}

STORM_FRAME static int storm_batch(unsigned long i)
{
	int ret = storm_job(i);

	steps++;
	return ret;
}

STORM_FRAME static int storm_worker(unsigned long i)
{
	int ret = storm_batch(i);

	steps++;
	return ret;
}

STORM_FRAME static int storm_main_loop(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (storm_worker(i) < 0)
			return -1;
	}
	steps++;
	return 0;
}

/* A small malloc/free: creates the calling thread's arena and tcache, so
 * the storm's first malloc maps nothing else. */
static void warm_up(void)
{
	void *volatile p = malloc(1);

	free(p);
}

STORM_FRAME static void *storm_thread(void *arg)
{
	(void)arg;
	warm_up();
	pthread_barrier_wait(&start_line);
	if (storm_main_loop(count) < 0)
		failed = 1;
	steps++;
	return NULL;
}

static int run_threads(unsigned long nthreads)
{
	pthread_t tids[STORM_MAX_THREADS];
	unsigned long i, started = 0;
	int err = 0;

	/* Everyone, main included, waits until all threads exist. */
	pthread_barrier_init(&start_line, NULL, (unsigned int)nthreads + 1);
	for (i = 0; i < nthreads; i++) {
		err = pthread_create(&tids[i], NULL, storm_thread, NULL);
		if (err)
			break;
		started++;
	}
	if (err) {
		/* The barrier can never fill: the started threads would wait
		 * forever, so there is nothing to join. */
		say("alloc-storm: cannot create threads\n");
		_exit(1);
	}
	pthread_barrier_wait(&start_line);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&start_line);
	return 0;
}

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static unsigned long long cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (unsigned long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ULL +
	       (unsigned long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0, nthreads = 0, total;
	unsigned long long start_ns, storm_ns;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--count") == 0)
			count = parse_num(argv[++a], "--count needs a number");
		else if (strcmp(argv[a], "--threads") == 0)
			nthreads = parse_num(argv[++a], "--threads needs a number");
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (nthreads > STORM_MAX_THREADS)
		die_usage("--threads: at most 64");

	if (!mallopt(M_MMAP_THRESHOLD, STORM_MMAP_THRESHOLD)) {
		say("alloc-storm: mallopt(M_MMAP_THRESHOLD) failed\n");
		return 1;
	}
	warm_up();
	wait_go(delay_ms);

	start_ns = mono_ns();
	if (nthreads)
		run_threads(nthreads);
	else if (storm_main_loop(count) < 0)
		failed = 1;
	storm_ns = mono_ns() - start_ns;

	total = count * (nthreads ? nthreads : 1);
	out_str(&o, "chain=" STORM_CHAIN "\n");
	out_kv(&o, "iterations", total, 10);
	out_kv(&o, "alloc_size", STORM_ALLOC_SIZE, 10);
	out_kv(&o, "mmap_calls", total, 10);
	out_kv(&o, "munmap_calls", total, 10);
	out_kv(&o, "threads", nthreads, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_kv(&o, "storm_ns", storm_ns, 10);
	out_kv(&o, "cpu_us", cpu_us(), 10);
	out_flush(&o);

	if (failed) {
		say("alloc-storm: a malloc failed\n");
		return 1;
	}
	wait_end(hold_ms);
	return 0;
}
