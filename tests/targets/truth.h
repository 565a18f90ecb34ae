/*
 * truth.h: what the test targets share around their measured calls:
 * option parsing, sleeping, handshakes with the test (FIFOs), and printing
 * the ground truth.
 *
 * Nothing here calls malloc or stdio.  glibc's stdio mallocs (or mmaps) a
 * buffer on first use, and malloc may call brk or mmap: either would add
 * calls to the exact counts a target prints.  Output is gathered in a
 * caller's static buffer and leaves with write(2).  None of these helpers
 * runs inside a measured phase, so none appears in a measured stack.
 *
 * The including file first defines TRUTH_PROG, its name for error
 * messages, and TRUTH_USAGE, its usage text.  The helpers are static
 * inline (as in check.h) so that a target need not use all of them.
 */
#ifndef FAULTLINE_TRUTH_H
#define FAULTLINE_TRUTH_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if !defined(TRUTH_PROG) || !defined(TRUTH_USAGE)
#error "define TRUTH_PROG and TRUTH_USAGE before including truth.h"
#endif

/* ---- messages and options ---- */

/* A message on stderr, unbuffered. */
static inline void say(const char *msg)
{
	(void)!write(2, msg, strlen(msg));
}

/* Exits 2 after "PROG: MSG" (when MSG is not NULL) and the usage text. */
static inline void die_usage(const char *msg)
{
	if (msg) {
		say(TRUTH_PROG ": ");
		say(msg);
		say("\n");
	}
	say(TRUTH_USAGE);
	exit(2);
}

/* Exits 1 after "PROG: WHAT: strerror(errno)": a call the target needs
 * failed. */
static inline void die_errno(const char *what)
{
	const char *why = strerror(errno);

	say(TRUTH_PROG ": ");
	say(what);
	say(": ");
	say(why);
	say("\n");
	exit(1);
}

/* S as a whole number (decimal, 0x hex or 0 octal); anything else, or a
 * missing S, is a usage error reported as OPT. */
static inline unsigned long parse_num(const char *s, const char *opt)
{
	char *end;
	unsigned long v;

	if (!s)
		die_usage(opt);
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end)
		die_usage(opt);
	return v;
}

/* The FIFOs of --go and --end (one copy per program: the helpers are
 * static inline, this is their shared state). */
struct truth_fifos {
	const char *go, *end;
};

static inline struct truth_fifos *truth_fifos(void)
{
	static struct truth_fifos f;

	return &f;
}

/* The options after a target's own: --delay-ms N, --hold-ms N, --go FIFO,
 * --end FIFO and --help/-h.  Consumes argv[*a] and its value; anything
 * else is an unknown option. */
static inline void parse_shared_opt(char **argv, int *a, unsigned long *delay_ms,
				    unsigned long *hold_ms)
{
	const char *opt = argv[*a];

	if (strcmp(opt, "--delay-ms") == 0) {
		*delay_ms = parse_num(argv[++*a], "--delay-ms needs a number");
	} else if (strcmp(opt, "--hold-ms") == 0) {
		*hold_ms = parse_num(argv[++*a], "--hold-ms needs a number");
	} else if (strcmp(opt, "--go") == 0 || strcmp(opt, "--end") == 0) {
		const char **slot = opt[2] == 'g' ? &truth_fifos()->go : &truth_fifos()->end;

		*slot = argv[++*a];
		if (!*slot)
			die_usage(opt[2] == 'g' ? "--go needs a FIFO" : "--end needs a FIFO");
	} else if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
		die_usage(NULL);
	} else {
		die_usage("unknown option");
	}
}

/* The command line of a target whose one own option is --pages N (at
 * least 1; @pages, the default), then the shared ones: N. */
static inline unsigned long parse_pages_opts(int argc, char **argv, unsigned long pages,
					     unsigned long *delay_ms, unsigned long *hold_ms)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pages") == 0)
			pages = parse_num(argv[++i], "--pages needs a number");
		else
			parse_shared_opt(argv, &i, delay_ms, hold_ms);
	}
	if (!pages)
		die_usage("--pages must be at least 1");
	return pages;
}

/* Sleeps MS milliseconds in full, across signal interruptions. */
static inline void sleep_ms(unsigned long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- handshakes with the test ----
 *
 * A test that must not let the target work before a tracer is live (or
 * exit before the tracer is done with it) names a FIFO: the target blocks
 * opening it for reading until the test opens it for writing, then reads
 * one byte (or end of file) and goes on.  No clock decides anything: the
 * test opens the FIFO once faultline has said it is tracing, and waits as
 * long as that takes.  Neither open(2) nor read(2) of a FIFO calls malloc,
 * brk or mmap, or touches a new page: the counts stay exact.  (The kernel
 * allocates the FIFO's pipe at the first open and frees it at the last
 * close, both here, before the measured work.) */

/* Blocks until the writer of FIFO PATH opens it; exits 1 if PATH cannot
 * be opened.  PATH NULL: returns at once. */
static inline void wait_fifo(const char *path)
{
	char c;
	ssize_t n;
	int fd;

	if (!path)
		return;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		say(TRUTH_PROG ": cannot open FIFO ");
		say(path);
		say(": ");
		say(strerror(errno));
		say("\n");
		exit(1);
	}
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	close(fd);
}

/* Before the measured work: --delay-ms, then --go FIFO. */
static inline void wait_go(unsigned long delay_ms)
{
	sleep_ms(delay_ms);
	wait_fifo(truth_fifos()->go);
}

/* After it: --hold-ms, then --end FIFO. */
static inline void wait_end(unsigned long hold_ms)
{
	sleep_ms(hold_ms);
	wait_fifo(truth_fifos()->end);
}

/* @pages fresh anonymous pages of @psz bytes, huge pages off for the
 * process and the mapping, so that each first write is one fault; exits 1
 * when mmap fails. */
static inline char *fresh_pages(unsigned long pages, long psz)
{
	char *p;

	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	p = mmap(NULL, pages * (unsigned long)psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		say(TRUTH_PROG ": mmap failed\n");
		exit(1);
	}
	madvise(p, pages * (unsigned long)psz, MADV_NOHUGEPAGE);
	return p;
}

/* ---- output without stdio ---- */

/* Large enough that a target's usual ground truth leaves in one write;
 * longer output is flushed as the buffer fills.  Keep it static: it is
 * too large for a thread's stack to carry lightly. */
struct out {
	char buf[1 << 16];
	size_t len;
};

/* Writes out what is buffered to stdout, across short writes and EINTR. */
static inline void out_flush(struct out *o)
{
	size_t off = 0;

	while (off < o->len) {
		ssize_t w = write(1, o->buf + off, o->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	o->len = 0;
}

static inline void out_str(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->len + n > sizeof(o->buf))
		out_flush(o);
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* V in BASE 10 or 16; base 16 gets a 0x prefix. */
static inline void out_num(struct out *o, unsigned long long v, unsigned int base)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	tmp[--i] = '\0';
	do {
		tmp[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (base == 16)
		out_str(o, "0x");
	out_str(o, tmp + i);
}

/* V in decimal, with a minus sign when negative. */
static inline void out_int(struct out *o, long long v)
{
	if (v < 0) {
		out_str(o, "-");
		out_num(o, (unsigned long long)-v, 10);
	} else {
		out_num(o, (unsigned long long)v, 10);
	}
}

/* One "KEY=V\n" line of ground truth, V as out_num() writes it. */
static inline void out_kv(struct out *o, const char *key, unsigned long long v, unsigned int base)
{
	out_str(o, key);
	out_str(o, "=");
	out_num(o, v, base);
	out_str(o, "\n");
}

/* ---- clocks ---- */

/* Clock @c in nanoseconds. */
static inline uint64_t clock_ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* This process's CPU time, user and system, in nanoseconds: what the
 * kernel spent on its traps and probes included. */
static inline uint64_t cpu_ns_self(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ULL +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ULL;
}

#endif
