/*
 * test-maps: /proc/PID/maps parsing, loading our own maps and finding real
 * code in them, and the MMAP2/FORK/exec updates (overlap splitting, copy,
 * drop).
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "stack/addrspace.h"

/* Lines map__parse_line() must refuse: a field missing, malformed or out
 * of range, one at a time. */
static const char *const malformed[] = {
	"",
	"\n",
	"zz-1000 r--p 00000000 00:00 0",
	"1000 r--p 00000000 00:00 0",
	"1000-2000 rwzp 00000000 00:00 0",
	"1000-2000 r--q 00000000 00:00 0",
	"1000-2000 r--p 00000000 0000 0",
	"1000-2000 r--p 00000000 00:00",
	"1000-2000 r--p 00000000 00:00 x /a",
	"2000-1000 r--p 00000000 00:00 0",
	"0x1000-2000 r--p 00000000 00:00 0",
	"11111111111111111-2000 r--p 00000000 00:00 0",
};

static void test_parse(void)
{
	struct map m;
	size_t i;

	CHECK_EQ_U64(map__parse_line("55c724548000-55c72454a000 r-xp 00002000 fe:01 247134"
				     "                     /usr/bin/cat\n", &m), 0);
	CHECK_EQ_U64(m.start, 0x55c724548000ULL);
	CHECK_EQ_U64(m.end, 0x55c72454a000ULL);
	CHECK_EQ_U64(m.pgoff, 0x2000);
	CHECK_EQ_U64(m.prot, PROT_READ | PROT_EXEC);
	CHECK_EQ_U64(m.flags, MAP_PRIVATE);
	CHECK_EQ_U64(m.maj, 0xfe);
	CHECK_EQ_U64(m.min, 1);
	CHECK_EQ_U64(m.ino, 247134);
	CHECK_STR(m.path, "/usr/bin/cat");
	CHECK(!m.deleted);
	map__clear(&m);
	CHECK(m.path == NULL);

	/* A newline in a path is "\012" in maps; spaces stay as they are. */
	CHECK_EQ_U64(map__parse_line("7f0565c20000-7f0565c42000 r-xp 00000000 fe:01 5 "
				     "/tmp/sp ace/a:0x0\\012-:g/e\\012z/libc.so.6\n", &m), 0);
	CHECK_STR(m.path, "/tmp/sp ace/a:0x0\n-:g/e\nz/libc.so.6");
	map__clear(&m);

	/* Anonymous: the kernel leaves a space after the inode. */
	CHECK_EQ_U64(map__parse_line("7f0565c20000-7f0565c42000 rw-p 00000000 00:00 0 \n", &m), 0);
	CHECK(m.path == NULL);
	CHECK_EQ_U64(m.prot, PROT_READ | PROT_WRITE);
	CHECK_EQ_U64(m.ino, 0);
	map__clear(&m);
	CHECK_EQ_U64(map__parse_line("7f0565c20000-7f0565c42000 ---p 00000000 00:00 0", &m), 0);
	CHECK(m.path == NULL);
	CHECK_EQ_U64(m.prot, 0);
	map__clear(&m);

	CHECK_EQ_U64(map__parse_line("7f0565e88000-7f0565e8f000 r--s 00001000 103:02 332280"
				     "                     /usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache\n",
				     &m), 0);
	CHECK_EQ_U64(m.flags, MAP_SHARED);
	CHECK_EQ_U64(m.prot, PROT_READ);
	CHECK_EQ_U64(m.maj, 0x103);
	CHECK_EQ_U64(m.min, 2);
	CHECK_EQ_U64(m.pgoff, 0x1000);
	CHECK_STR(m.path, "/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache");
	map__clear(&m);

	/* Spaces inside a path are part of it; the padding before is not. */
	CHECK_EQ_U64(map__parse_line("7f0000000000-7f0000001000 r--p 00000000 08:01 42          "
				     "/tmp/my dir/lib x.so\n", &m), 0);
	CHECK_STR(m.path, "/tmp/my dir/lib x.so");
	CHECK(!m.deleted);
	map__clear(&m);

	/* " (deleted)" moves into the flag. */
	CHECK_EQ_U64(map__parse_line("7f0000000000-7f0000001000 r-xp 00000000 08:01 43   "
				     "/tmp/gone lib.so (deleted)\n", &m), 0);
	CHECK_STR(m.path, "/tmp/gone lib.so");
	CHECK(m.deleted);
	map__clear(&m);
	CHECK_EQ_U64(map__parse_line("7f0000000000-7f0000001000 rw-s 00000000 00:01 1024   "
				     "/memfd:jit (deleted)", &m), 0);
	CHECK_STR(m.path, "/memfd:jit");
	CHECK(m.deleted);
	CHECK_EQ_U64(m.flags, MAP_SHARED);
	map__clear(&m);

	CHECK_EQ_U64(map__parse_line("55c73bb50000-55c73bb71000 rw-p 00000000 00:00 0"
				     "                          [heap]\n", &m), 0);
	CHECK_STR(m.path, "[heap]");
	map__clear(&m);
	CHECK_EQ_U64(map__parse_line("7ffc1a5f3000-7ffc1a5f5000 r-xp 00000000 00:00 0"
				     "                          [vdso]\n", &m), 0);
	CHECK_STR(m.path, "[vdso]");
	CHECK_EQ_U64(m.prot, PROT_READ | PROT_EXEC);
	map__clear(&m);
	CHECK_EQ_U64(map__parse_line("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
				     "                  [vsyscall]\n", &m), 0);
	CHECK_EQ_U64(m.start, 0xffffffffff600000ULL);
	CHECK_EQ_U64(m.prot, PROT_EXEC);
	CHECK_STR(m.path, "[vsyscall]");
	map__clear(&m);

	/* Malformed lines are refused and leave *m alone. */
	memset(&m, 0, sizeof(m));
	m.ino = 77;
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		int err = map__parse_line(malformed[i], &m);

		if (err != -EINVAL)
			fprintf(stderr, "malformed line \"%s\" parsed: %d\n", malformed[i], err);
		CHECK_EQ_U64(err, (uint64_t)-EINVAL);
	}
	CHECK_EQ_U64(m.ino, 77);
	map__clear(NULL);
}

static __attribute__((noinline)) int local_function(int x)
{
	return x * 3 + 1;
}

/* The mapping found for an address is the file dladdr() says holds it:
 * compared by inode and device, since the paths may differ (/lib vs /usr/lib). */
static void check_mapping_of(const struct addrspaces *as, const void *addr, const char *what)
{
	const struct map *m = addrspaces__find(as, getpid(), (uint64_t)(uintptr_t)addr);
	struct stat st;
	Dl_info info;

	CHECK(m != NULL);
	CHECK(dladdr(addr, &info) != 0);
	if (!m || !info.dli_fname)
		return;
	CHECK(m->path != NULL);
	CHECK(m->prot & PROT_EXEC);
	CHECK(stat(info.dli_fname[0] ? info.dli_fname : "/proc/self/exe", &st) == 0);
	CHECK_EQ_U64(m->ino, st.st_ino);
	CHECK_EQ_U64(m->maj, major(st.st_dev));
	CHECK_EQ_U64(m->min, minor(st.st_dev));
	CHECK(m->start <= (uintptr_t)addr && (uintptr_t)addr < m->end);
	printf("%s at %p: %s\n", what, addr, m->path ? m->path : "(anon)");
}

static void test_load_self(void)
{
	struct addrspaces *as = NULL;
	char exe[PATH_MAX];
	ssize_t len;
	void *libc, *malloc_addr;
	const struct map *m;

	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK(!addrspaces__known(as, getpid()));
	CHECK_EQ_U64(addrspaces__load_pid(as, getpid(), NULL), 0);
	CHECK(addrspaces__known(as, getpid()));

	CHECK_EQ_U64(local_function(1), 4);
	check_mapping_of(as, (void *)local_function, "local_function");
	m = addrspaces__find(as, getpid(), (uint64_t)(uintptr_t)local_function);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(len > 0);
	if (len > 0 && m) {
		exe[len] = '\0';
		CHECK_STR(m->path, exe);
	}

	/* libc's malloc, not a sanitizer's interceptor of it. */
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	CHECK(libc != NULL);
	malloc_addr = libc ? dlsym(libc, "malloc") : NULL;
	CHECK(malloc_addr != NULL);
	if (malloc_addr) {
		check_mapping_of(as, malloc_addr, "malloc");
		m = addrspaces__find(as, getpid(), (uint64_t)(uintptr_t)malloc_addr);
		CHECK(m && m->path && strcmp(strrchr(m->path, '/'), "/libc.so.6") == 0);
	}
	if (libc)
		dlclose(libc);

	/* Our stack is in [stack]; an address in page 0 is in nothing. */
	m = addrspaces__find(as, getpid(), (uint64_t)(uintptr_t)&len);
	CHECK(m && m->path && strcmp(m->path, "[stack]") == 0);
	CHECK(addrspaces__find(as, getpid(), 0x10) == NULL);

	/* Pids above the kernel's PID_MAX_LIMIT cannot exist. */
	CHECK_EQ_U64(addrspaces__load_pid(as, 2147483647, NULL), (uint64_t)-ESRCH);
	CHECK(!addrspaces__known(as, 2147483647));
	addrspaces__free(as);
}

/* A procfs fixture: lines out of order and one malformed line. */
static void test_load_fixture(void)
{
	char root[] = "/tmp/test-maps-XXXXXX", dir[64], file[80];
	struct addrspaces *as = NULL;
	const struct map *m;
	FILE *fp;

	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/4242", root);
	CHECK(mkdir(dir, 0700) == 0);
	snprintf(file, sizeof(file), "%s/maps", dir);
	fp = fopen(file, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs("7f0000010000-7f0000020000 r-xp 00010000 08:01 100    /opt/app/lib two.so\n"
	      "this line is not a mapping\n"
	      "400000-401000 r-xp 00000000 08:01 99     /opt/app/bin\n", fp);
	fclose(fp);

	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK_EQ_U64(addrspaces__load_pid(as, 4242, root), 0);
	m = addrspaces__find(as, 4242, 0x400800);
	CHECK(m && m->path && strcmp(m->path, "/opt/app/bin") == 0);
	m = addrspaces__find(as, 4242, 0x7f000001ffffULL);
	CHECK(m && m->path && strcmp(m->path, "/opt/app/lib two.so") == 0 && m->pgoff == 0x10000);
	CHECK(addrspaces__find(as, 4242, 0x7f0000020000ULL) == NULL);
	CHECK(addrspaces__find(as, 4242, 0x3fffff) == NULL);
	CHECK_EQ_U64(addrspaces__load_pid(as, 4243, root), (uint64_t)-ESRCH);
	addrspaces__free(as);
	unlink(file);
	rmdir(dir);
	rmdir(root);
}

/* addrspaces__add() of [START, END) at PGOFF of PATH (r-xp, 08:01, inode 7)
 * to PID; its result. */
static int add_map(struct addrspaces *as, pid_t pid, uint64_t start, uint64_t end, uint64_t pgoff,
		   const char *path)
{
	struct map m = { .start = start, .end = end, .pgoff = pgoff, .prot = PROT_READ | PROT_EXEC,
			 .flags = MAP_PRIVATE, .maj = 8, .min = 1, .ino = 7, .path = (char *)path };

	return addrspaces__add(as, pid, &m);
}

static void check_piece(const struct addrspaces *as, pid_t pid, uint64_t addr, uint64_t start,
			uint64_t end, uint64_t pgoff, const char *path)
{
	const struct map *m = addrspaces__find(as, pid, addr);

	CHECK(m != NULL);
	if (!m)
		return;
	CHECK_EQ_U64(m->start, start);
	CHECK_EQ_U64(m->end, end);
	CHECK_EQ_U64(m->pgoff, pgoff);
	if (path)
		CHECK_STR(m->path, path);
	else
		CHECK(m->path == NULL);
}

static void test_updates(void)
{
	struct addrspaces *as = NULL;
	char path[] = "/a";
	const struct map *pm, *cm;

	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK_EQ_U64(add_map(as, 100, 0x10000, 0x20000, 0x1000, path), 0);
	path[1] = 'z';	/* the caller keeps its string: the map made a copy */
	check_piece(as, 100, 0x10000, 0x10000, 0x20000, 0x1000, "/a");

	/* Into the middle: three pieces, the right one's pgoff advanced. */
	CHECK_EQ_U64(add_map(as, 100, 0x14000, 0x16000, 0, "/b"), 0);
	check_piece(as, 100, 0x10000, 0x10000, 0x14000, 0x1000, "/a");
	check_piece(as, 100, 0x13fff, 0x10000, 0x14000, 0x1000, "/a");
	check_piece(as, 100, 0x14000, 0x14000, 0x16000, 0, "/b");
	check_piece(as, 100, 0x15fff, 0x14000, 0x16000, 0, "/b");
	check_piece(as, 100, 0x16000, 0x16000, 0x20000, 0x7000, "/a");
	check_piece(as, 100, 0x1ffff, 0x16000, 0x20000, 0x7000, "/a");
	CHECK(addrspaces__find(as, 100, 0xffff) == NULL);
	CHECK(addrspaces__find(as, 100, 0x20000) == NULL);

	/* Across all three: trims both ends, swallows the middle. */
	CHECK_EQ_U64(add_map(as, 100, 0x12000, 0x18000, 0x3000, "/c"), 0);
	check_piece(as, 100, 0x11fff, 0x10000, 0x12000, 0x1000, "/a");
	check_piece(as, 100, 0x12000, 0x12000, 0x18000, 0x3000, "/c");
	check_piece(as, 100, 0x15000, 0x12000, 0x18000, 0x3000, "/c");
	check_piece(as, 100, 0x18000, 0x18000, 0x20000, 0x9000, "/a");

	/* Exact replacement, disjoint additions before and after, anonymous. */
	CHECK_EQ_U64(add_map(as, 100, 0x12000, 0x18000, 0, "/d"), 0);
	check_piece(as, 100, 0x12000, 0x12000, 0x18000, 0, "/d");
	CHECK_EQ_U64(add_map(as, 100, 0x1000, 0x2000, 0, NULL), 0);
	pm = addrspaces__find(as, 100, 0x1800);
	CHECK(pm && pm->path == NULL && pm->start == 0x1000);
	CHECK_EQ_U64(add_map(as, 100, 0x30000, 0x31000, 0, "/tmp/x.so (deleted)"), 0);
	pm = addrspaces__find(as, 100, 0x30000);
	CHECK(pm && pm->deleted);
	check_piece(as, 100, 0x30000, 0x30000, 0x31000, 0, "/tmp/x.so");
	check_piece(as, 100, 0x10000, 0x10000, 0x12000, 0x1000, "/a");
	check_piece(as, 100, 0x1a000, 0x18000, 0x20000, 0x9000, "/a");
	CHECK_EQ_U64(add_map(as, 100, 0x5000, 0x5000, 0, "/e"), (uint64_t)-EINVAL);

	/* Covering everything leaves one mapping. */
	CHECK_EQ_U64(add_map(as, 101, 0x0, 0x40000, 0, "/all"), 0);
	CHECK_EQ_U64(add_map(as, 101, 0x1000, 0x2000, 0, "/x"), 0);
	CHECK_EQ_U64(add_map(as, 101, 0x3000, 0x4000, 0, "/y"), 0);
	CHECK_EQ_U64(add_map(as, 101, 0x0, 0x40000, 0, "/all2"), 0);
	check_piece(as, 101, 0x0, 0x0, 0x40000, 0, "/all2");
	check_piece(as, 101, 0x3fff, 0x0, 0x40000, 0, "/all2");

	/* fork: an independent copy. */
	CHECK_EQ_U64(addrspaces__fork(as, 100, 200), 0);
	CHECK(addrspaces__known(as, 200));
	pm = addrspaces__find(as, 100, 0x14000);
	cm = addrspaces__find(as, 200, 0x14000);
	CHECK(pm && cm && pm != cm && pm->path != cm->path);
	check_piece(as, 200, 0x14000, 0x12000, 0x18000, 0, "/d");
	check_piece(as, 200, 0x1000, 0x1000, 0x2000, 0, NULL);
	check_piece(as, 200, 0x30000, 0x30000, 0x31000, 0, "/tmp/x.so");
	CHECK_EQ_U64(add_map(as, 200, 0x12000, 0x18000, 0, "/child"), 0);
	check_piece(as, 200, 0x14000, 0x12000, 0x18000, 0, "/child");
	check_piece(as, 100, 0x14000, 0x12000, 0x18000, 0, "/d");
	CHECK_EQ_U64(addrspaces__fork(as, 999, 998), (uint64_t)-ESRCH);
	CHECK(!addrspaces__known(as, 998));
	CHECK_EQ_U64(addrspaces__fork(as, 100, 100), 0);
	check_piece(as, 100, 0x14000, 0x12000, 0x18000, 0, "/d");
	/* A second fork into the same child replaces what it had. */
	CHECK_EQ_U64(addrspaces__fork(as, 101, 200), 0);
	check_piece(as, 200, 0x14000, 0x0, 0x40000, 0, "/all2");

	/* exec: maps dropped, pid still known; the new image's maps follow. */
	addrspaces__exec(as, 200);
	CHECK(addrspaces__known(as, 200));
	CHECK(addrspaces__find(as, 200, 0x14000) == NULL);
	CHECK_EQ_U64(add_map(as, 200, 0x400000, 0x401000, 0, "/new"), 0);
	check_piece(as, 200, 0x400000, 0x400000, 0x401000, 0, "/new");
	check_piece(as, 100, 0x14000, 0x12000, 0x18000, 0, "/d");
	addrspaces__exec(as, 300);
	CHECK(addrspaces__known(as, 300));

	addrspaces__free(as);
	addrspaces__free(NULL);
}

/*
 * Images: an exec starts a new one; the old one stays, under an alias,
 * only when a stack was unwound in it (pinned), and a stack of it is then
 * named in the maps it was taken under, not in the new program's at the
 * same addresses.  A fork child shares its parent's image until it execs.
 */
static void test_images(void)
{
	struct addrspaces *as = NULL;
	uint32_t first, second, third;
	pid_t old, older;

	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK_EQ_U64(addrspaces__pin_image(as, 500), 0);	/* unknown */
	CHECK_EQ_U64(addrspaces__image_pid(as, 500, 7), 500);
	CHECK_EQ_U64(add_map(as, 500, 0x555555554000, 0x555555556000, 0, "/bin/setarch"), 0);
	first = addrspaces__pin_image(as, 500);
	CHECK(first != 0);
	CHECK_EQ_U64(addrspaces__image_pid(as, 500, first), 500);
	CHECK_EQ_U64(addrspaces__image_pid(as, 500, 0), 500);

	/* The first exec: the pinned image is kept under an alias. */
	old = addrspaces__exec(as, 500);
	CHECK(old < 0);
	CHECK(addrspaces__find(as, 500, 0x555555555000) == NULL);
	CHECK_EQ_U64(add_map(as, 500, 0x555555554000, 0x555555557000, 0, "/bin/exec-target"), 0);
	second = addrspaces__pin_image(as, 500);
	CHECK(second != 0 && second != first);
	CHECK_EQ_U64((uint64_t)(int64_t)addrspaces__image_pid(as, 500, first), (uint64_t)(int64_t)old);
	CHECK_EQ_U64(addrspaces__image_pid(as, 500, second), 500);
	check_piece(as, old, 0x555555555000, 0x555555554000, 0x555555556000, 0, "/bin/setarch");
	check_piece(as, 500, 0x555555555000, 0x555555554000, 0x555555557000, 0, "/bin/exec-target");
	CHECK(addrspaces__known(as, old));

	/* The second: both earlier images resolve, each to its own. */
	older = old;
	old = addrspaces__exec(as, 500);
	CHECK(old < 0 && old != older);
	CHECK_EQ_U64(add_map(as, 500, 0x555555554000, 0x555555558000, 0, "/bin/fault-target"), 0);
	third = addrspaces__pin_image(as, 500);
	check_piece(as, addrspaces__image_pid(as, 500, first), 0x555555555000, 0x555555554000,
		    0x555555556000, 0, "/bin/setarch");
	check_piece(as, addrspaces__image_pid(as, 500, second), 0x555555555000, 0x555555554000,
		    0x555555557000, 0, "/bin/exec-target");
	check_piece(as, addrspaces__image_pid(as, 500, third), 0x555555555000, 0x555555554000,
		    0x555555558000, 0, "/bin/fault-target");

	/* No stack in an image: an exec frees it (nothing to name). */
	CHECK_EQ_U64(add_map(as, 600, 0x400000, 0x401000, 0, "/bin/sh"), 0);
	CHECK_EQ_U64(addrspaces__exec(as, 600), 0);

	/* fork: the child shares the parent's image; its own exec keeps it
	 * for the child's stacks, and the parent's stays current. */
	CHECK_EQ_U64(addrspaces__fork(as, 500, 501), 0);
	CHECK_EQ_U64(addrspaces__pin_image(as, 501), third);
	old = addrspaces__exec(as, 501);
	CHECK(old < 0);
	CHECK_EQ_U64((uint64_t)(int64_t)addrspaces__image_pid(as, 501, third), (uint64_t)(int64_t)old);
	CHECK_EQ_U64(addrspaces__image_pid(as, 500, third), 500);
	check_piece(as, old, 0x555555555000, 0x555555554000, 0x555555558000, 0, "/bin/fault-target");
	addrspaces__free(as);
}

/* The uprobes page, cached per code generation: found when it appears,
 * moved with the mapping, gone with it. */
static void test_uprobes_page(void)
{
	struct addrspaces *as = NULL;
	uint64_t lo = 0, hi = 0;

	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK(!addrspaces__uprobes_page(as, 400, &lo, &hi));
	CHECK_EQ_U64(add_map(as, 400, 0x400000, 0x401000, 0, "/bin/x"), 0);
	CHECK(!addrspaces__uprobes_page(as, 400, &lo, &hi));
	CHECK_EQ_U64(add_map(as, 400, 0x7fff0000, 0x7fff1000, 0, "[uprobes]"), 0);
	CHECK(addrspaces__uprobes_page(as, 400, &lo, &hi));
	CHECK_EQ_U64(lo, 0x7fff0000);
	CHECK_EQ_U64(hi, 0x7fff1000);
	/* Asked again with no change: the same answer from the cache. */
	CHECK(addrspaces__uprobes_page(as, 400, &lo, &hi));
	CHECK_EQ_U64(lo, 0x7fff0000);
	/* Code mapped over it: the page is gone. */
	CHECK_EQ_U64(add_map(as, 400, 0x7fff0000, 0x7fff1000, 0, "/bin/y"), 0);
	CHECK(!addrspaces__uprobes_page(as, 400, &lo, &hi));
	CHECK_EQ_U64(add_map(as, 400, 0x7ffe0000, 0x7ffe1000, 0, "[uprobes]"), 0);
	CHECK(addrspaces__uprobes_page(as, 400, &lo, &hi));
	CHECK_EQ_U64(lo, 0x7ffe0000);
	CHECK(!addrspaces__uprobes_page(as, 401, &lo, &hi));
	addrspaces__free(as);
}

int main(void)
{
	test_parse();
	test_load_self();
	test_load_fixture();
	test_updates();
	test_images();
	test_uprobes_page();
	return check_done("test-maps");
}
