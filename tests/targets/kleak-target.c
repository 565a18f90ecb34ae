/*
 * kleak-target: a program whose kernel allocations follow a known
 * pattern, for the kernel-mode tests of `faultline leak` (-k).
 *
 * Usage: kleak-target NPIPES [--delay-ms N] [--hold-ms N] [--go FIFO]
 * [--end FIFO].  What it does, in order:
 *   1. Parses options; raises its soft RLIMIT_NOFILE to the hard limit
 *      when 2*NPIPES descriptors need it.  Sleeps --delay-ms N (default
 *      0) and waits for --go FIFO (truth.h) so a tracer is ready.
 *   2. make_pipes: NPIPES x pipe2(fds, O_CLOEXEC), one call instruction
 *      in a loop (main -> make_pipes -> pipe2).  Each pipe makes the
 *      kernel allocate, among others, two kmem:kmalloc from
 *      alloc_pipe_info (on 6.18: the struct pipe_inode_info, bytes_req=176
 *      bytes_alloc=192, and its 16 struct pipe_buffer, bytes_req=640
 *      bytes_alloc=1024), an inode, a dentry and two struct file
 *      (kmem:kmem_cache_alloc); no pages (nothing is written).
 *   3. Prints "pipes=N" and "pid=P" (one per line, write(2) only) and
 *      sleeps --hold-ms N (then --end FIFO): the allocations are outstanding.
 *   4. close_pipes: closes every descriptor (main -> close_pipes ->
 *      close), which frees what step 2 allocated: per pipe one kmem:kfree
 *      from pipe_release and one from free_pipe_info (the inodes and
 *      dentries through RCU, a little later).
 *   5. Prints "closed=N" (pipes closed) and sleeps --hold-ms N (then --end FIFO) again, so a
 *      tracer sees the frees, then exits 0.  Exit 1 if a pipe2 or close
 *      fails (what it made is closed first), 2 on a usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* pipe2 */
#endif
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define TRUTH_PROG "kleak-target"
#define TRUTH_USAGE "usage: kleak-target NPIPES [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#if defined(__clang__)
#define SITE __attribute__((noinline))
#else
#define SITE __attribute__((noipa))
#endif

#define MAX_PIPES 16384

/* A test program's whole state; plain statics keep it obvious. */
static int fds[MAX_PIPES][2];

/* The number of pipes made (all NPIPES unless one failed). */
SITE static unsigned long make_pipes(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (pipe2(fds[i], O_CLOEXEC) < 0)
			break;
	}
	return i;
}

/* The number of pipes whose two ends closed cleanly. */
SITE static unsigned long close_pipes(unsigned long n)
{
	unsigned long i, closed = 0;

	for (i = 0; i < 2 * n; i++) {
		if (close(fds[i / 2][i % 2]) == 0 && i % 2)
			closed++;
	}
	return closed;
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0, npipes, made, closed;
	struct rlimit rl;
	int a;

	if (argc < 2 || argv[1][0] == '-')
		die_usage(argc < 2 ? "NPIPES is needed" : NULL);
	npipes = parse_num(argv[1], "NPIPES must be a number");
	for (a = 2; a < argc; a++)
		parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	if (npipes > MAX_PIPES)
		die_usage("NPIPES: at most 16384");

	/* stdin, stdout, stderr and a few spare. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 2 * npipes + 16) {
		rl.rlim_cur = rl.rlim_max;
		if (rl.rlim_cur < 2 * npipes + 16 || setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			say("kleak-target: RLIMIT_NOFILE is too low for NPIPES pipes\n");
			return 1;
		}
	}

	wait_go(delay_ms);

	made = make_pipes(npipes);
	out_kv(&o, "pipes", made, 10);
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);
	if (made == npipes)
		wait_end(hold_ms);

	closed = close_pipes(made);
	out_kv(&o, "closed", closed, 10);
	out_flush(&o);
	if (made != npipes || closed != made) {
		say("kleak-target: a pipe2 or close call failed\n");
		return 1;
	}
	wait_end(hold_ms);
	return 0;
}
