/*
 * mmap-target: a program whose mmap(2)/munmap(2) calls are known exactly,
 * for the system tests of `faultline mmap`.
 *
 * What it does, in order:
 *   1. Parses options; sleeps --delay-ms N (default 0) so a tracer
 *      attaching with -p is ready before the work.  Process startup
 *      (ld.so mapping libc) makes mmap calls of its own before this.
 *   2. The measured phase, main -> run_mmap_scenario -> one function per
 *      step, exactly these calls (lengths are the requested ones; the
 *      kernel rounds 4097 up to two pages):
 *        map_anon_rw    mmap len=65536   RW-  PRIVATE|ANONYMOUS  fd=-1 off=0
 *                       mmap len=1048576 RW-  PRIVATE|ANONYMOUS  fd=-1 off=0
 *                       mmap len=4097    RW-  PRIVATE|ANONYMOUS  fd=-1 off=0
 *        map_file_ro    creates /tmp/faultline-mmap-target.XXXXXX, 4 pages
 *                       (16384 bytes; byte i of page p is 'A'+p), maps
 *                       mmap len=12288   R--  PRIVATE  fd=F off=4096
 *                       (pages 1..3), reads one byte of each mapped page
 *                       to check the offset, and closes the fd
 *        map_shared_rw  mmap len=8192    RW-  SHARED|ANONYMOUS   fd=-1 off=0
 *        map_exec_none  mmap len=16384   ---  PRIVATE|ANONYMOUS|NORESERVE
 *                       fd=-1 off=0
 *        unmap_some     munmap the 65536 region; the upper half (524288)
 *                       of the 1 MiB region; the 8192 shared region; the
 *                       12288 file mapping
 *      Totals: mmap_calls=6 mapped_bytes=1155073, munmap_calls=4
 *      unmapped_bytes=610304.  The 4097, 16384 and lower-half regions stay
 *      mapped until exit.
 *   3. Prints the ground truth with write(2) only (glibc's stdio would
 *      mmap or malloc a buffer): one line per call, in call order,
 *        mmap len=65536 prot=RW- flags=PRIVATE|ANONYMOUS fd=-1 off=0
 *             addr=0x... fn=map_anon_rw
 *        munmap addr=0x... len=65536 fn=unmap_some
 *      (flags spelled as mmap_flags__format spells them), then file=PATH,
 *      mmap_calls, munmap_calls, mapped_bytes, unmapped_bytes,
 *      mode=libc|raw, pid=P.
 *   4. Sleeps --hold-ms N (default 0), then waits for --end FIFO, removes
 *      the temp file, exits 0. Exit 2 on a usage error, 1 if a call fails.
 *
 * Stacks: by default the calls go through libc's mmap()/munmap().  Those
 * are leaf functions without a frame, so a frame-pointer callchain (the
 * kernel's, at the syscall or at a uprobe on __mmap) reads
 * __mmap <- run_mmap_scenario <- main: the named function, whose return
 * address is only on the stack top, is skipped; a DWARF unwind shows it.
 * With --raw the syscall instruction is inline asm inside each named
 * function, which is then the innermost frame:
 * map_anon_rw <- run_mmap_scenario <- main.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRUTH_PROG "mmap-target"
#define TRUTH_USAGE "usage: mmap-target [--raw] [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

#define NOINLINE __attribute__((noinline))
#define PAGE 4096UL
#define FILE_PAGES 4

#if defined(__x86_64__)
#define RAW_SYSCALL6(nr, a, b, c, d, e, f) ({ \
	long _ret; \
	register long _a __asm__("rdi") = (long)(a); \
	register long _b __asm__("rsi") = (long)(b); \
	register long _c __asm__("rdx") = (long)(c); \
	register long _d __asm__("r10") = (long)(d); \
	register long _e __asm__("r8") = (long)(e); \
	register long _f __asm__("r9") = (long)(f); \
	__asm__ volatile("syscall" : "=a"(_ret) \
			 : "0"((long)(nr)), "r"(_a), "r"(_b), "r"(_c), "r"(_d), "r"(_e), "r"(_f) \
			 : "rcx", "r11", "memory"); \
	_ret; })
#elif defined(__aarch64__)
#define RAW_SYSCALL6(nr, a, b, c, d, e, f) ({ \
	register long _x8 __asm__("x8") = (long)(nr); \
	register long _a __asm__("x0") = (long)(a); \
	register long _b __asm__("x1") = (long)(b); \
	register long _c __asm__("x2") = (long)(c); \
	register long _d __asm__("x3") = (long)(d); \
	register long _e __asm__("x4") = (long)(e); \
	register long _f __asm__("x5") = (long)(f); \
	__asm__ volatile("svc #0" : "+r"(_a) \
			 : "r"(_x8), "r"(_b), "r"(_c), "r"(_d), "r"(_e), "r"(_f) : "memory"); \
	_a; })
#else
#error "mmap-target: add the raw syscall sequence for this architecture"
#endif

/* Expanded in the named functions themselves, so in --raw mode the
 * syscall instruction belongs to them. */
#define DO_MMAP(addr, len, prot, flags, fd, off) \
	(use_raw ? raw_result(RAW_SYSCALL6(SYS_mmap, addr, len, prot, flags, fd, off)) \
		 : mmap(addr, len, prot, flags, fd, off))
#define DO_MUNMAP(addr, len) \
	(use_raw ? (RAW_SYSCALL6(SYS_munmap, addr, len, 0, 0, 0, 0) < 0 ? -1 : 0) \
		 : munmap(addr, len))

struct call {
	int is_mmap;
	unsigned long len;
	const char *prot;
	const char *flags;
	int fd;
	unsigned long off;
	void *addr;
	const char *fn;
};

/* A test program's whole state; plain statics keep it obvious. */
static int use_raw;
static int failed;
static struct call calls[16];
static unsigned int ncalls;
static char file_path[] = "/tmp/faultline-mmap-target.XXXXXX";
static int file_made;
static void *anon64k, *anon1m, *anon4097, *file_map, *shared8k, *none16k;

static void *raw_result(long ret)
{
	return (ret < 0 && ret > -4096) ? MAP_FAILED : (void *)ret;
}

static void note(int is_mmap, unsigned long len, const char *prot, const char *flags, int fd,
		 unsigned long off, void *addr, const char *fn)
{
	struct call *c = &calls[ncalls++];

	if (is_mmap && addr == MAP_FAILED)
		failed = 1;
	c->is_mmap = is_mmap;
	c->len = len;
	c->prot = prot;
	c->flags = flags;
	c->fd = fd;
	c->off = off;
	c->addr = addr;
	c->fn = fn;
}

/* ---- the known calls ---- */

NOINLINE static void map_anon_rw(void)
{
	anon64k = DO_MMAP(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	note(1, 65536, "RW-", "PRIVATE|ANONYMOUS", -1, 0, anon64k, "map_anon_rw");
	anon1m = DO_MMAP(NULL, 1048576, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	note(1, 1048576, "RW-", "PRIVATE|ANONYMOUS", -1, 0, anon1m, "map_anon_rw");
	anon4097 = DO_MMAP(NULL, 4097, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	note(1, 4097, "RW-", "PRIVATE|ANONYMOUS", -1, 0, anon4097, "map_anon_rw");
}

NOINLINE static void map_file_ro(void)
{
	char page[PAGE];
	int fd, p;

	fd = mkstemp(file_path);
	if (fd < 0) {
		failed = 1;
		return;
	}
	file_made = 1;
	for (p = 0; p < FILE_PAGES; p++) {
		memset(page, 'A' + p, sizeof(page));
		if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
			failed = 1;
	}
	file_map = DO_MMAP(NULL, 3 * PAGE, PROT_READ, MAP_PRIVATE, fd, PAGE);
	note(1, 3 * PAGE, "R--", "PRIVATE", fd, PAGE, file_map, "map_file_ro");
	if (file_map != MAP_FAILED) {
		/* Offset 4096: the mapping starts at the file's page 1. */
		for (p = 0; p < 3; p++) {
			if (((volatile char *)file_map)[(unsigned long)p * PAGE] != 'A' + 1 + p)
				failed = 1;
		}
	}
	close(fd);
}

NOINLINE static void map_shared_rw(void)
{
	shared8k = DO_MMAP(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	note(1, 8192, "RW-", "SHARED|ANONYMOUS", -1, 0, shared8k, "map_shared_rw");
}

NOINLINE static void map_exec_none(void)
{
	none16k = DO_MMAP(NULL, 16384, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	note(1, 16384, "---", "PRIVATE|ANONYMOUS|NORESERVE", -1, 0, none16k, "map_exec_none");
}

NOINLINE static void unmap_some(void)
{
	char *upper = (char *)anon1m + 524288;

	if (DO_MUNMAP(anon64k, 65536))
		failed = 1;
	note(0, 65536, NULL, NULL, 0, 0, anon64k, "unmap_some");
	if (DO_MUNMAP(upper, 524288))
		failed = 1;
	note(0, 524288, NULL, NULL, 0, 0, upper, "unmap_some");
	if (DO_MUNMAP(shared8k, 8192))
		failed = 1;
	note(0, 8192, NULL, NULL, 0, 0, shared8k, "unmap_some");
	if (DO_MUNMAP(file_map, 3 * PAGE))
		failed = 1;
	note(0, 3 * PAGE, NULL, NULL, 0, 0, file_map, "unmap_some");
}

NOINLINE static void run_mmap_scenario(void)
{
	map_anon_rw();
	map_file_ro();
	map_shared_rw();
	map_exec_none();
	if (failed)
		return;
	unmap_some();
}

int main(int argc, char **argv)
{
	static struct out o;
	unsigned long delay_ms = 0, hold_ms = 0;
	unsigned long long mapped = 0, unmapped = 0;
	unsigned int i, nmmap = 0, nmunmap = 0;
	int a;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--raw") == 0)
			use_raw = 1;
		else
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
	}

	wait_go(delay_ms);
	run_mmap_scenario();

	for (i = 0; i < ncalls; i++) {
		const struct call *c = &calls[i];

		if (c->is_mmap) {
			nmmap++;
			mapped += c->len;
			out_str(&o, "mmap len=");
			out_num(&o, c->len, 10);
			out_str(&o, " prot=");
			out_str(&o, c->prot);
			out_str(&o, " flags=");
			out_str(&o, c->flags);
			out_str(&o, " fd=");
			out_int(&o, c->fd);
			out_str(&o, " off=");
			out_num(&o, c->off, 10);
			out_str(&o, " addr=");
			out_num(&o, (uintptr_t)c->addr, 16);
		} else {
			nmunmap++;
			unmapped += c->len;
			out_str(&o, "munmap addr=");
			out_num(&o, (uintptr_t)c->addr, 16);
			out_str(&o, " len=");
			out_num(&o, c->len, 10);
		}
		out_str(&o, " fn=");
		out_str(&o, c->fn);
		out_str(&o, "\n");
	}
	out_str(&o, "file=");
	out_str(&o, file_path);
	out_str(&o, "\n");
	out_kv(&o, "mmap_calls", nmmap, 10);
	out_kv(&o, "munmap_calls", nmunmap, 10);
	out_kv(&o, "mapped_bytes", mapped, 10);
	out_kv(&o, "unmapped_bytes", unmapped, 10);
	out_str(&o, use_raw ? "mode=raw\n" : "mode=libc\n");
	out_kv(&o, "pid", (unsigned long long)getpid(), 10);
	out_flush(&o);

	if (!failed)
		wait_end(hold_ms);
	if (file_made)
		unlink(file_path);
	if (failed) {
		say("mmap-target: a call failed or read the wrong data\n");
		return 1;
	}
	return 0;
}
