/*
 * numa-bind: a program whose pages per NUMA node are known exactly, for
 * the tests of `faultline numa`.  Raw mbind(2) and move_pages(2) system
 * calls: no libnuma.
 *
 * What it does, in order:
 *   1. Parses options, then waits for --go FIFO (truth.h).
 *   2. For each node 0..N-1 (--nodes N, default 1): maps --pages P fresh
 *      anonymous pages (default 64, huge pages off: truth.h fresh_pages),
 *      binds them to that node (MPOL_BIND, MPOL_MF_STRICT) and writes
 *      each page, so that each is allocated there.
 *   3. --migrate M: moves the first M pages of node 0's region to node 1
 *      (node 0 with one node, where nothing moves) with move_pages(2);
 *      migrated= counts the pages whose node changed.
 *   3b. --balance MS: NUMA balancing's turn instead: a region of --pages
 *      pages is bound to node 0 and written, its policy reset to the
 *      default (the pages stay), then the program runs on node 1's CPU 1
 *      only, reading the pages, until balancing has moved them all to
 *      node 1 (move_pages(2) asked every 10 ms) or MS milliseconds have
 *      passed; prints balanced=K, the pages now on node 1, and its other
 *      lines for that one region (no --nodes regions then).
 *   4. Asks the kernel where every page of every region is
 *      (move_pages(2) with no target nodes) and prints that account:
 *        region=I start=0xADDR pages=P N0=.. N1=..   (nodes that hold any)
 *        node0=..  (pages of all regions on each node 0..N-1)
 *        migrated=K
 *        pid=PID
 *      and exits 1 when a page is not on the node it was bound to (or
 *      moved to): the binding did not hold.
 *   5. Waits for --end FIFO, exits 0.
 */
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRUTH_PROG "numa-bind"
#define TRUTH_USAGE "usage: numa-bind [--pages N] [--nodes N] [--migrate M | --balance MS] [--go FIFO]\n" \
	"                 [--end FIFO]\n"
#include "truth.h"

#define MAX_NODES 8
#define MAX_PAGES 4096
#define MPOL_DEFAULT_ 0
#define MPOL_BIND_ 2
#define MPOL_MF_STRICT_ (1 << 0)
#define MPOL_MF_MOVE_ (1 << 1)

static struct out out;
static void *addrs[MAX_PAGES];
static int nodes_to[MAX_PAGES], status[MAX_PAGES];

static void bind_region(char *p, unsigned long pages, long psz, int node)
{
	unsigned long mask = 1ul << node;

	/* maxnode counts one more than the bits the kernel reads. */
	if (syscall(SYS_mbind, p, pages * (unsigned long)psz, MPOL_BIND_, &mask,
		    sizeof(mask) * 8 + 1, MPOL_MF_STRICT_) < 0)
		die_errno("mbind");
	for (unsigned long i = 0; i < pages; i++)
		p[i * (unsigned long)psz] = 1;
}

/* Where each page of @p is now, into status[]. */
static void where(char *p, unsigned long pages, long psz)
{
	for (unsigned long i = 0; i < pages; i++)
		addrs[i] = p + i * (unsigned long)psz;
	if (syscall(SYS_move_pages, 0, pages, addrs, NULL, status, 0) < 0)
		die_errno("move_pages (query)");
}

static unsigned long migrate(char *p, unsigned long m, long psz, int dst)
{
	unsigned long moved = 0;
	int before[MAX_PAGES];

	where(p, m, psz);
	for (unsigned long i = 0; i < m; i++) {
		before[i] = status[i];
		nodes_to[i] = dst;
	}
	if (syscall(SYS_move_pages, 0, m, addrs, nodes_to, status, MPOL_MF_MOVE_) < 0)
		die_errno("move_pages");
	where(p, m, psz);
	for (unsigned long i = 0; i < m; i++)
		moved += status[i] != before[i];
	return moved;
}

/* Reads @p from CPU 1 until balancing moved every page to node 1, or
 * @ms passed; the pages on node 1 then. */
static unsigned long balance(char *p, unsigned long pages, long psz, unsigned long ms)
{
	uint64_t end = clock_ns_of(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000u, next = 0;
	unsigned long on1 = 0;
	volatile char sink;
	cpu_set_t cpus;

	if (syscall(SYS_mbind, p, pages * (unsigned long)psz, MPOL_DEFAULT_, NULL, 0, 0) < 0)
		die_errno("mbind (default)");
	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) < 0)
		die_errno("sched_setaffinity");
	while (on1 < pages && clock_ns_of(CLOCK_MONOTONIC) < end) {
		for (unsigned long i = 0; i < pages; i++)
			sink = p[i * (unsigned long)psz];
		if (clock_ns_of(CLOCK_MONOTONIC) < next)
			continue;
		next = clock_ns_of(CLOCK_MONOTONIC) + 10000000u;
		where(p, pages, psz);
		on1 = 0;
		for (unsigned long i = 0; i < pages; i++)
			on1 += status[i] == 1;
	}
	(void)sink;
	return on1;
}

int main(int argc, char **argv)
{
	unsigned long pages = 64, nodes = 1, mig = 0, delay_ms = 0, hold_ms = 0, moved = 0, bal = 0;
	unsigned long total[MAX_NODES] = { 0 };
	long psz = sysconf(_SC_PAGESIZE);
	char *region[MAX_NODES];
	int a, bad = 0;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--pages") && a + 1 < argc)
			pages = parse_num(argv[++a], "--pages");
		else if (!strcmp(argv[a], "--nodes") && a + 1 < argc)
			nodes = parse_num(argv[++a], "--nodes");
		else if (!strcmp(argv[a], "--migrate") && a + 1 < argc)
			mig = parse_num(argv[++a], "--migrate");
		else if (!strcmp(argv[a], "--balance") && a + 1 < argc)
			bal = parse_num(argv[++a], "--balance");
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}
	if (!pages || pages > MAX_PAGES || !nodes || nodes > MAX_NODES || mig > pages)
		die_usage("--pages 1..4096, --nodes 1..8, --migrate at most --pages");
	wait_go(delay_ms);
	if (bal) {
		region[0] = fresh_pages(pages, psz);
		bind_region(region[0], pages, psz, 0);
		out_kv(&out, "balanced", balance(region[0], pages, psz, bal), 10);
		out_kv(&out, "pid", (unsigned long)getpid(), 10);
		out_flush(&out);
		wait_end(hold_ms);
		return 0;
	}
	for (unsigned long n = 0; n < nodes; n++) {
		region[n] = fresh_pages(pages, psz);
		bind_region(region[n], pages, psz, (int)n);
	}
	if (mig)
		moved = migrate(region[0], mig, psz, nodes > 1 ? 1 : 0);
	for (unsigned long n = 0; n < nodes; n++) {
		unsigned long on[MAX_NODES] = { 0 };

		where(region[n], pages, psz);
		for (unsigned long i = 0; i < pages; i++) {
			int want = n == 0 && i < mig && nodes > 1 ? 1 : (int)n;

			if (status[i] < 0 || status[i] >= MAX_NODES) {
				bad = 1;
				continue;
			}
			on[status[i]]++;
			total[status[i]]++;
			bad |= status[i] != want;
		}
		out_str(&out, "region=");
		out_num(&out, n, 10);
		out_str(&out, " start=");
		out_num(&out, (unsigned long)region[n], 16);
		out_str(&out, " pages=");
		out_num(&out, pages, 10);
		for (int k = 0; k < MAX_NODES; k++)
			if (on[k]) {
				out_str(&out, " N");
				out_num(&out, (unsigned long)k, 10);
				out_str(&out, "=");
				out_num(&out, on[k], 10);
			}
		out_str(&out, "\n");
	}
	for (unsigned long n = 0; n < nodes; n++) {
		char key[8] = "node0";

		key[4] = (char)('0' + n);
		out_kv(&out, key, total[n], 10);
	}
	out_kv(&out, "migrated", moved, 10);
	out_kv(&out, "pid", (unsigned long)getpid(), 10);
	out_flush(&out);
	if (bad) {
		say(TRUTH_PROG ": a page is not on the node it was bound or moved to\n");
		return 1;
	}
	wait_end(hold_ms);
	return 0;
}
