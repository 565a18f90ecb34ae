/*
 * fault-steps: page faults in known steps, from three stacks, for the test
 * of faults over time (faultline faults --interval-faults).
 *
 *   fault-steps [--steps N] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]
 *
 * Before --go it maps every page it will touch (anonymous, huge pages off,
 * so each first write is one fault) and runs each toucher once over no
 * page, so that their code, the stack and the output buffer are faulted in
 * already.  After --go, step i (1..N) touches fresh pages, each toucher
 * its own noinline, noipa function writing one byte a page from one loop
 * (so each has one stack, main -> run_step -> TOUCHER):
 *   rise_touch    4 i pages: its fault rate rises
 *   fall_touch    4 (N + 2 - i) pages: falls
 *   steady_touch  10 pages: holds
 * so every step makes 4 (N + 2) + 10 faults.
 *
 * Ground truth on stdout after the steps (write(2) only), its own count
 * of the pages each toucher wrote:
 *   steps=N  step_faults=F  then per step: rise_I=  fall_I=  steady_I=
 * then --hold-ms, --end, exit 0 (1 when mmap fails, 2 on a usage error).
 */
#include <stdint.h>

#define TRUTH_PROG "fault-steps"
#define TRUTH_USAGE "usage: fault-steps [--steps N] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#define MAX_STEPS 1000

static char *next_page;
static long psz;

#define TOUCHER(name)								\
	__attribute__((noinline, noipa)) static unsigned long name(unsigned long n) \
	{									\
		volatile char *p = next_page;					\
		unsigned long i;						\
										\
		for (i = 0; i < n; i++)						\
			p[i * (unsigned long)psz] = 1;				\
		next_page += n * (unsigned long)psz;				\
		return i;							\
	}
TOUCHER(rise_touch)
TOUCHER(fall_touch)
TOUCHER(steady_touch)

static unsigned long done[MAX_STEPS + 1][3];

__attribute__((noinline, noipa)) static void run_step(unsigned long i, unsigned long steps)
{
	done[i][0] = rise_touch(i ? 4 * i : 0);
	done[i][1] = fall_touch(i ? 4 * (steps + 2 - i) : 0);
	done[i][2] = steady_touch(i ? 10 : 0);
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long steps = 6, delay_ms = 0, hold_ms = 0, pages;
	static const char *const names[3] = { "rise_", "fall_", "steady_" };

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--steps") == 0)
			steps = parse_num(argv[++i], "--steps needs a number");
		else
			parse_shared_opt(argv, &i, &delay_ms, &hold_ms);
	}
	if (!steps || steps > MAX_STEPS)
		die_usage("--steps must be 1..1000");
	psz = sysconf(_SC_PAGESIZE);
	pages = steps * (4 * (steps + 2) + 10);
	next_page = fresh_pages(pages, psz);
	run_step(0, steps);
	/* The output buffer and the account, faulted in before the steps. */
	for (size_t off = 0; off < sizeof(o.buf); off += (size_t)psz)
		((volatile char *)o.buf)[off] = 0;
	for (size_t off = 0; off < sizeof(done); off += (size_t)psz)
		((volatile char *)done)[off] = 0;
	wait_go(delay_ms);
	for (unsigned long i = 1; i <= steps; i++)
		run_step(i, steps);
	out_kv(&o, "steps", steps, 10);
	out_kv(&o, "step_faults", 4 * (steps + 2) + 10, 10);
	for (unsigned long i = 1; i <= steps; i++) {
		for (int k = 0; k < 3; k++) {
			out_str(&o, names[k]);
			out_num(&o, i, 10);
			out_str(&o, "=");
			out_num(&o, done[i][k], 10);
			out_str(&o, "\n");
		}
	}
	out_flush(&o);
	wait_end(hold_ms);
	return 0;
}
