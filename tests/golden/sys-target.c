/*
 * sys-target: the program of the golden brk, mmap, shm and ffaults
 * recording (regen.sh builds it, records it and commits the binary beside
 * the recording).
 *
 * Static and without libc (-static -nostdlib: its own _start, raw system
 * calls, as fault-target), so that every frame of every stack, and every
 * system call the recording holds, is its own: the kernel's exec maps the
 * binary and its stack, the target makes no other call than these.
 *
 * Usage: sys-target HOT COLD, two files of at least 256 KiB; HOT in the
 * page cache, COLD not (regen.sh drops its pages).  In this order:
 *   brk_query    brk(0): the initial break
 *   brk_grow     4 x brk(break + 16 KiB): the break grows by 64 KiB
 *   brk_shrink   brk(break - 32 KiB)
 *   map_anon     3 x mmap(16 KiB, RW, MAP_PRIVATE|MAP_ANONYMOUS)
 *   map_shared   mmap(8 KiB, RW, MAP_SHARED|MAP_ANONYMOUS)
 *   map_fixed    mmap(4 KiB, R, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED) over
 *                the first page of map_anon's first mapping
 *   map_bad      mmap(0 bytes): fails, EINVAL
 *   map_file     HOT: 256 KiB RW MAP_PRIVATE at offset 0, one byte written
 *                in pages 0, 16, 32 and 48: 4 copy-on-write faults, each
 *                through the page cache's fault handler (a write fault on
 *                a private file mapping does no fault-around; a read
 *                fault on a cached page would be mapped by fault-around
 *                and not reach it), 0 major; unmapped;
 *                COLD: 256 KiB read-only MAP_PRIVATE at offset 0, page 0
 *                read: 1 fault, major (the page is read from disk);
 *                unmapped
 *   unmap_anon   munmap of map_anon's second and third mappings (32 KiB)
 *   shm_calls    shmget(IPC_PRIVATE, 8 KiB, IPC_CREAT|0600), shmat(id, 0,
 *                0), one byte written, shmdt, shmat(id, 0, SHM_RDONLY),
 *                shmdt, shmctl(id, IPC_RMID, 0)
 *   shm_bad      shmget(0x464c5400, 4096, 0): fails, ENOENT (no such key)
 * then exit_group(0); 1 if a call that must succeed failed.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>

#include "start.h"
#include "sys6.h"

#define NOINL __attribute__((noinline, noipa))
#define PAGE 4096
#define KiB 1024L

static int bad;

static long must(long ret)
{
	if (ret < 0 && ret > -4096)
		bad = 1;
	return ret;
}

NOINL static long brk_query(void)
{
	return sys6(SYS_brk, 0, 0, 0, 0, 0, 0);
}

NOINL static long brk_grow(long cur)
{
	for (int i = 0; i < 4; i++) {
		long want = cur + 16 * KiB;

		cur = sys6(SYS_brk, want, 0, 0, 0, 0, 0);
		if (cur != want)
			bad = 1;
	}
	return cur;
}

NOINL static void brk_shrink(long cur)
{
	if (sys6(SYS_brk, cur - 32 * KiB, 0, 0, 0, 0, 0) != cur - 32 * KiB)
		bad = 1;
}

static long map(long addr, long len, int prot, int flags, long fd)
{
	return sys6(SYS_mmap, addr, len, prot, flags, fd, 0);
}

char *anon[3];

NOINL static void map_anon(void)
{
	for (int i = 0; i < 3; i++)
		anon[i] = (char *)must(map(0, 16 * KiB, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1));
}

NOINL static void map_shared(void)
{
	must(map(0, 8 * KiB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1));
}

NOINL static void map_fixed(void)
{
	must(map((long)anon[0], 4 * KiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1));
}

NOINL static void map_bad(void)
{
	if (map(0, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1) != -22)
		bad = 1;
}

NOINL static void write_pages(volatile char *p)
{
	for (int i = 0; i < 64; i += 16)
		p[i * PAGE] = 1;
}

NOINL static int read_page(volatile char *p)
{
	return p[0];
}

NOINL static void map_file(const char *hot, const char *cold)
{
	long fd = must(sys6(SYS_open, (long)hot, O_RDONLY, 0, 0, 0, 0));
	char *p = (char *)must(map(0, 256 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd));

	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (!bad)
		write_pages(p);
	must(sys6(SYS_munmap, (long)p, 256 * KiB, 0, 0, 0, 0));
	fd = must(sys6(SYS_open, (long)cold, O_RDONLY, 0, 0, 0, 0));
	p = (char *)must(map(0, 256 * KiB, PROT_READ, MAP_PRIVATE, fd));
	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (!bad)
		read_page(p);
	must(sys6(SYS_munmap, (long)p, 256 * KiB, 0, 0, 0, 0));
}

NOINL static void unmap_anon(void)
{
	must(sys6(SYS_munmap, (long)anon[1], 16 * KiB, 0, 0, 0, 0));
	must(sys6(SYS_munmap, (long)anon[2], 16 * KiB, 0, 0, 0, 0));
}

NOINL static void shm_calls(void)
{
	long id = must(sys6(SYS_shmget, IPC_PRIVATE, 8 * KiB, IPC_CREAT | 0600, 0, 0, 0));
	char *p = (char *)must(sys6(SYS_shmat, id, 0, 0, 0, 0, 0));

	if (!bad)
		*(volatile char *)p = 1;
	must(sys6(SYS_shmdt, (long)p, 0, 0, 0, 0, 0));
	p = (char *)must(sys6(SYS_shmat, id, 0, SHM_RDONLY, 0, 0, 0));
	must(sys6(SYS_shmdt, (long)p, 0, 0, 0, 0, 0));
	must(sys6(SYS_shmctl, id, IPC_RMID, 0, 0, 0, 0));
}

NOINL static void shm_bad(void)
{
	if (sys6(SYS_shmget, 0x464c5400, PAGE, 0, 0, 0, 0) != -2)
		bad = 1;
}

NOINL void start_c(long *sp)
{
	char **argv = (char **)(sp + 1);
	long cur;

	if (sp[0] != 3)
		sys6(SYS_exit_group, 2, 0, 0, 0, 0, 0);
	cur = brk_query();
	cur = brk_grow(cur);
	brk_shrink(cur);
	map_anon();
	map_shared();
	map_fixed();
	map_bad();
	map_file(argv[1], argv[2]);
	unmap_anon();
	shm_calls();
	shm_bad();
	sys6(SYS_exit_group, bad, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}
