/*
 * malloc-churn: a malloc/free-heavy workload for bench/leak-overhead: it
 * times N malloc/free pairs and reports the cost per pair, so each
 * variant (untraced, probes counted by perf stat, faultline leak) is
 * measured by the same clock around the same loop, without the setup of
 * the tool that traces it.
 *
 *   malloc-churn [--count N] [--keep K] [--min-size B] [--max-size B]
 *                [--delay-ms N] [--hold-ms N]
 *
 * The loop: main -> churn -> churn_step -> malloc(min + i % (max - min +
 * 1)) and free (sizes from --min-size to --max-size, default 16 to 527),
 * except every K-th block (--keep, default 0: none) which is kept, so a
 * leak report has something to show.  Output, with write(2) only:
 * pairs=N, kept=N, kept_bytes=N, ns_per_pair=N, cpu_ns_per_pair=N (user +
 * system time of this process per pair: the trap and probe handling the
 * kernel does in the target's context), pid=P.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define TRUTH_PROG "malloc-churn"
#define TRUTH_USAGE "usage: malloc-churn [--count N] [--keep K] [--min-size B] [--max-size B] " \
	"[--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

static void *volatile sink;
static unsigned long min_size = 16, size_span = 512;

static unsigned long size_of(unsigned long i)
{
	return min_size + i % size_span;
}

__attribute__((noinline)) static void *churn_step(unsigned long i)
{
	return malloc(size_of(i));
}

__attribute__((noinline)) static unsigned long churn(unsigned long n, unsigned long keep,
						     unsigned long *kept_bytes)
{
	unsigned long kept = 0;

	for (unsigned long i = 0; i < n; i++) {
		void *p = churn_step(i);

		sink = p;
		if (keep && i % keep == keep - 1) {
			kept++;
			*kept_bytes += size_of(i);
		} else {
			free(p);
		}
	}
	return kept;
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long n = 100000, keep = 0, delay_ms = 0, hold_ms = 0, kept, kept_bytes = 0;
	unsigned long max_size = min_size + size_span - 1;
	uint64_t t0, t1, c0, c1;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--count") == 0)
			n = parse_num(argv[++a], "--count needs a number");
		else if (strcmp(argv[a], "--keep") == 0)
			keep = parse_num(argv[++a], "--keep needs a number");
		else if (strcmp(argv[a], "--min-size") == 0)
			min_size = parse_num(argv[++a], "--min-size needs a number");
		else if (strcmp(argv[a], "--max-size") == 0)
			max_size = parse_num(argv[++a], "--max-size needs a number");
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (!n)
		die_usage("--count must be at least 1");
	if (max_size < min_size || max_size - min_size + 1 == 0)
		die_usage("--max-size must be at least --min-size, and the range not all sizes");
	size_span = max_size - min_size + 1;
	free(malloc(1));	/* malloc set up before the clock starts */
	wait_go(delay_ms);
	c0 = cpu_ns_self();
	t0 = clock_ns_of(CLOCK_MONOTONIC);
	kept = churn(n, keep, &kept_bytes);
	t1 = clock_ns_of(CLOCK_MONOTONIC);
	c1 = cpu_ns_self();
	out_kv(&o, "pairs", n, 10);
	out_kv(&o, "kept", kept, 10);
	out_kv(&o, "kept_bytes", kept_bytes, 10);
	out_kv(&o, "ns_per_pair", (t1 - t0) / n, 10);
	out_kv(&o, "cpu_ns_per_pair", (c1 - c0) / n, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);
	wait_end(hold_ms);
	return 0;
}
