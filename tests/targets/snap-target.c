/*
 * snap-target: heap blocks outstanding in two known phases, for the tests
 * of snapshots (tests/system/snapshot.sh): a snapshot taken between the
 * phases must show phase 1's blocks exactly, the final report phase 2's.
 *
 * Usage: snap-target [--next FIFO] [--delay-ms N] [--hold-ms N] [--go FIFO]
 * [--end FIFO].  After --go: phase 1, three blocks of 100000 bytes from
 * first(), kept; its truth on stdout; then --next FIFO (waited on like
 * --go): phase 2, one of them freed and two blocks of 70000 bytes from
 * second(), kept; its truth; then --end.  Nothing else allocates (truth.h
 * uses no stdio).  Truth, a KEY=VALUE a line (write(2)): phase=1,
 * outstanding_bytes=300000, allocations=3; then phase=2,
 * outstanding_bytes=340000, allocations=4.
 * Exit 0 (1 when malloc fails, 2 on a usage error).
 */
#define TRUTH_PROG "snap-target"
#define TRUTH_USAGE "usage: snap-target [--next FIFO] [--delay-ms N] [--hold-ms N] [--go FIFO] " \
	"[--end FIFO]\n"

#include "truth.h"

static void *volatile kept[5];

__attribute__((noinline, noipa)) static void *get(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		say(TRUTH_PROG ": malloc failed\n");
		exit(1);
	}
	memset(p, 1, n);
	return p;
}

__attribute__((noinline, noipa)) static void first(int i)
{
	kept[i] = get(100000);
}

__attribute__((noinline, noipa)) static void second(int i)
{
	kept[i] = get(70000);
}

static void truth(int phase, unsigned long bytes, unsigned long n)
{
	static struct out o;

	out_kv(&o, "phase", (unsigned long long)phase, 10);
	out_kv(&o, "outstanding_bytes", bytes, 10);
	out_kv(&o, "allocations", n, 10);
	out_flush(&o);
}

int main(int argc, char **argv)
{
	unsigned long delay_ms = 0, hold_ms = 0;
	const char *next = NULL;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--next") == 0) {
			next = argv[++a];
			if (!next)
				die_usage("--next needs a FIFO");
		} else {
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
		}
	}
	wait_go(delay_ms);
	for (int i = 0; i < 3; i++)
		first(i);
	truth(1, 300000, 3);
	wait_fifo(next);
	free(kept[0]);
	kept[0] = NULL;
	second(3);
	second(4);
	truth(2, 340000, 4);
	wait_end(hold_ms);
	return 0;
}
