/*
 * growth-target: a program whose heap grows in a known pattern, step by
 * step, for the tests of heap's memory over time (--interval-calls), of
 * report diff and of leak's calls and peak.
 *
 * Usage: growth-target [--steps N] [--spike BYTES] [--delay-ms N]
 * [--hold-ms N] [--go FIFO] [--end FIFO].  After --go, step i (1..N) runs,
 * in this order, each site its own noinline, noipa function calling the
 * allocator from one call instruction (so each has exactly one stack,
 * main -> run_steps -> SITE -> allocator):
 *   leak_step   malloc(1000), kept: the slow leak, 1000 bytes a step
 *   half_step   malloc(300); kept on odd steps, freed on even ones (by
 *               drop_half, which allocates nothing)
 *   spike       step 1 only, and only with --spike BYTES: malloc(BYTES),
 *               freed at once (by drop_spike)
 *   churn_step  2 x malloc(500), then both freed (by drop_churn)
 * Without --spike a step makes 4 allocation calls, so intervals of 4 calls
 * end after each step's frees.  Nothing else allocates: truth.h uses no
 * stdio, and a C program makes no malloc call before main.
 *
 * Ground truth on stdout after the steps (write(2) only):
 *   steps=N  leak_calls=N  leak_bytes=1000N  half_calls=N
 *   half_bytes=300*ceil(N/2)  churn_calls=2N  spike_calls=0|1
 *   peak_bytes=P  the most bytes ever live at once, the program's own count
 *   leaked_bytes  what is live at the end
 * then --hold-ms, --end, exit 0 (1 when malloc fails, 2 on a usage error).
 */
#define TRUTH_PROG "growth-target"
#define TRUTH_USAGE \
	"usage: growth-target [--steps N] [--spike BYTES] [--delay-ms N] [--hold-ms N]\n" \
	"                     [--go FIFO] [--end FIFO]\n"

#include "truth.h"

#define MAX_STEPS 10000

static void *kept[2 * MAX_STEPS];
static size_t nkept;
static uint64_t live, peak;

static void account(long long delta)
{
	live += (uint64_t)delta;
	if (live > peak)
		peak = live;
}

static void *must(void *p)
{
	if (!p) {
		say(TRUTH_PROG ": malloc failed\n");
		exit(1);
	}
	return p;
}

__attribute__((noinline, noipa)) static void *leak_step(void)
{
	void *p = must(malloc(1000));

	account(1000);
	return p;
}

__attribute__((noinline, noipa)) static void *half_step(void)
{
	void *p = must(malloc(300));

	account(300);
	return p;
}

__attribute__((noinline, noipa)) static void drop_half(void *p)
{
	free(p);
	account(-300);
}

__attribute__((noinline, noipa)) static void *spike(size_t n)
{
	void *p = must(malloc(n));

	account((long long)n);
	return p;
}

__attribute__((noinline, noipa)) static void drop_spike(void *p, size_t n)
{
	free(p);
	account(-(long long)n);
}

/* Volatile: the build's -O2 would unroll a loop of 2 into two calls. */
static volatile int churn_blocks = 2;

__attribute__((noinline, noipa)) static void churn_step(void **p)
{
	for (int j = 0; j < churn_blocks; j++) {
		p[j] = must(malloc(500));
		account(500);
	}
}

__attribute__((noinline, noipa)) static void drop_churn(void **p)
{
	for (int j = 0; j < 2; j++) {
		free(p[j]);
		account(-500);
	}
}

__attribute__((noinline, noipa)) static void run_steps(unsigned long steps, size_t spike_bytes)
{
	for (unsigned long i = 1; i <= steps; i++) {
		void *h, *c[2];

		kept[nkept++] = leak_step();
		h = half_step();
		if (i % 2)
			kept[nkept++] = h;
		else
			drop_half(h);
		if (i == 1 && spike_bytes)
			drop_spike(spike(spike_bytes), spike_bytes);
		churn_step(c);
		drop_churn(c);
	}
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long steps = 8, spike_bytes = 0, delay_ms = 0, hold_ms = 0;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--steps") == 0)
			steps = parse_num(argv[++a], "--steps needs a number");
		else if (strcmp(argv[a], "--spike") == 0)
			spike_bytes = parse_num(argv[++a], "--spike needs a number of bytes");
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (!steps || steps > MAX_STEPS)
		die_usage("--steps is 1 to 10000");
	wait_go(delay_ms);
	run_steps(steps, spike_bytes);
	out_kv(&o, "steps", steps, 10);
	out_kv(&o, "leak_calls", steps, 10);
	out_kv(&o, "leak_bytes", 1000ULL * steps, 10);
	out_kv(&o, "half_calls", steps, 10);
	out_kv(&o, "half_bytes", 300ULL * ((steps + 1) / 2), 10);
	out_kv(&o, "churn_calls", 2ULL * steps, 10);
	out_kv(&o, "spike_calls", spike_bytes ? 1 : 0, 10);
	out_kv(&o, "peak_bytes", peak, 10);
	out_kv(&o, "leaked_bytes", live, 10);
	out_flush(&o);
	wait_end(hold_ms);
	return 0;
}
