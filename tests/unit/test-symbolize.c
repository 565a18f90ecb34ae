/*
 * test-symbolize: our own functions, libc's malloc, a binary whose code
 * vaddr differs from its file offset, a file deleted while mapped, a file
 * whose inode is not the mapping's, unmapped addresses and kernel symbols,
 * each checked as the exact text a report prints; a copy of our own binary
 * sharing its symbols by build-id; JIT code named from a perf map file; the
 * source line and inline chain of our own code.  (Separate debug files:
 * test-symbolize-debug.)
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"
#include "addrspace.h"
#include "elf-fixture.h"
#include "symbolize.h"

int main(void);

/* Functions to find: not inlined, and long enough for an inner offset. */
static volatile int sink;

static __attribute__((noinline)) int symbolize_target_a(int n)
{
	int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i * sink;
	return acc;
}

static __attribute__((noinline)) int symbolize_target_b(int n)
{
	int acc = 1;

	for (int i = 0; i < n; i++)
		acc ^= i + sink;
	return acc;
}

/* An inline chain with known lines: srcline_pc() returns the address of
 * its call inside srcline_inner(), itself inlined into srcline_outer(). */
static volatile int srcline_sink;
static int srcline_inner_line, srcline_outer_line;

static __attribute__((noinline)) uintptr_t srcline_pc(void)
{
	return (uintptr_t)__builtin_return_address(0);
}

static inline __attribute__((always_inline)) uintptr_t srcline_inner(void)
{
	uintptr_t pc = srcline_pc(); srcline_inner_line = __LINE__;

	srcline_sink++;	/* no tail call */
	return pc;
}

static __attribute__((noinline)) uintptr_t srcline_outer(void)
{
	uintptr_t pc = srcline_inner(); srcline_outer_line = __LINE__;

	srcline_sink++;
	return pc;
}

static const char *fmt_user(struct symbolizer *s, const struct addrspaces *as, pid_t pid, uint64_t addr,
			    char *buf, size_t n)
{
	struct sym_result r;

	CHECK_EQ_U64(symbolizer__user(s, as, pid, addr, &r), 0);
	CHECK_EQ_U64(r.addr, addr);
	sym_result__format(&r, buf, n);
	return buf;
}

static void test_self(struct symbolizer *s, const struct addrspaces *as)
{
	char exe[PATH_MAX], want[PATH_MAX + 64], buf[512];
	const char *base;
	struct sym_result r1, r2;
	void *libc, *malloc_addr;
	ssize_t len;

	CHECK_EQ_U64(symbolize_target_a(3) + symbolize_target_b(3), 2);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(len > 0);
	exe[len > 0 ? len : 0] = '\0';
	base = strrchr(exe, '/') + 1;

	snprintf(want, sizeof(want), "symbolize_target_a+0x0 [%s]", base);
	CHECK_STR(fmt_user(s, as, getpid(), (uintptr_t)symbolize_target_a, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "symbolize_target_b+0x0 [%s]", base);
	CHECK_STR(fmt_user(s, as, getpid(), (uintptr_t)symbolize_target_b, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "symbolize_target_a+0x3 [%s]", base);
	CHECK_STR(fmt_user(s, as, getpid(), (uintptr_t)symbolize_target_a + 3, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "main+0x0 [%s]", base);
	CHECK_STR(fmt_user(s, as, getpid(), (uintptr_t)main, buf, sizeof(buf)), want);
	printf("own function: %s\n", buf);

	/* The module is opened once: strings are the same pointers. */
	CHECK_EQ_U64(symbolizer__user(s, as, getpid(), (uintptr_t)symbolize_target_a, &r1), 0);
	CHECK_EQ_U64(symbolizer__user(s, as, getpid(), (uintptr_t)symbolize_target_a + 1, &r2), 0);
	CHECK(r1.func == r2.func && r1.module == r2.module);
	CHECK_EQ_U64(r2.offset, 1);

	/* libc's own malloc (dlsym on libc's handle: a sanitizer intercepts the
	 * default one). */
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	CHECK(libc != NULL);
	malloc_addr = libc ? dlsym(libc, "malloc") : NULL;
	CHECK(malloc_addr != NULL);
	if (malloc_addr) {
		CHECK_STR(fmt_user(s, as, getpid(), (uintptr_t)malloc_addr, buf, sizeof(buf)),
			  "malloc+0x0 [libc.so.6]");
		CHECK_STR(fmt_user(s, as, getpid(), (uintptr_t)malloc_addr + 0x10, buf, sizeof(buf)),
			  "malloc+0x10 [libc.so.6]");
	}
	if (libc)
		dlclose(libc);

	/* Nothing mapped; an unknown pid; a special mapping. */
	CHECK_STR(fmt_user(s, as, getpid(), 0x10, buf, sizeof(buf)), "[unknown]");
	CHECK_STR(fmt_user(s, as, 2147483647, (uintptr_t)symbolize_target_a, buf, sizeof(buf)), "[unknown]");
	CHECK_STR(fmt_user(s, as, getpid(), (uintptr_t)&len, buf, sizeof(buf)), "[unknown] [stack]");
}

/* The call's return address - 1, as reports look return addresses up. */
static void test_srcline(struct symbolizer *s, const struct addrspaces *as)
{
	uintptr_t ra = srcline_outer();
	struct sym_inline fr[4];
	size_t n = 99;
	const char *file;

	CHECK_EQ_U64(symbolizer__srcline(s, as, getpid(), ra - 1, fr, 4, &n), 0);
	CHECK_EQ_U64(n, 2);
	if (n == 2) {
		CHECK_STR(fr[0].func, "srcline_inner");
		CHECK_EQ_U64(fr[0].line, srcline_inner_line);
		CHECK_STR(fr[1].func, "srcline_outer");
		CHECK_EQ_U64(fr[1].line, srcline_outer_line);
		/* Full paths, as the compiler saw this file. */
		for (int i = 0; i < 2; i++) {
			file = fr[i].file ? fr[i].file : "";
			CHECK(file[0] == '/');
			CHECK(strlen(file) >= strlen("/test-symbolize.c") &&
			      strcmp(file + strlen(file) - strlen("/test-symbolize.c"), "/test-symbolize.c") == 0);
		}
		printf("srcline: %s %s:%u < %s:%u\n", fr[0].func, fr[0].file, fr[0].line, fr[1].func, fr[1].line);
	}
	/* Strings stay the same for the same answer. */
	{
		struct sym_inline again[4];
		size_t m = 0;

		CHECK_EQ_U64(symbolizer__srcline(s, as, getpid(), ra - 1, again, 4, &m), 0);
		CHECK(m == n && n && again[0].file == fr[0].file && again[0].func == fr[0].func);
	}
	/* No file behind the address: nothing, and not an error. */
	CHECK_EQ_U64(symbolizer__srcline(s, as, getpid(), (uintptr_t)&n, fr, 4, &n), 0);
	CHECK_EQ_U64(n, 0);
	CHECK_EQ_U64(symbolizer__srcline(s, as, getpid(), 0x10, fr, 4, &n), 0);
	CHECK_EQ_U64(n, 0);
}

/* A copy of our executable (another inode, another name) maps into a
 * process that is gone: the build-id makes it the binary already open,
 * so names come back as the very same strings. */
static void test_build_id_cache(struct symbolizer *s, const struct addrspaces *as)
{
	char copy[] = "/tmp/test-symbolize-copy-XXXXXX", exe[PATH_MAX], cmd[PATH_MAX + 64], want[128], buf[512];
	const pid_t gone = 0x7ffffff1;
	struct addrspaces *cas = NULL;
	const struct map *maps;
	struct sym_result own, theirs;
	struct stat st;
	size_t n = 0;
	ssize_t len;
	int fd;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(len > 0);
	exe[len > 0 ? len : 0] = '\0';
	fd = mkstemp(copy);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", exe, copy);
	CHECK(system(cmd) == 0);
	CHECK(stat(copy, &st) == 0);
	CHECK_EQ_U64(addrspaces__new(&cas), 0);
	maps = addrspaces__maps(as, getpid(), &n);
	for (size_t i = 0; i < n; i++) {
		struct map m = maps[i];

		if (!m.path || strcmp(m.path, exe) != 0)
			continue;
		m.maj = major(st.st_dev);
		m.min = minor(st.st_dev);
		m.ino = st.st_ino;
		m.path = copy;
		CHECK_EQ_U64(addrspaces__add(cas, gone, &m), 0);
	}
	CHECK_EQ_U64(symbolizer__user(s, as, getpid(), (uintptr_t)symbolize_target_b + 2, &own), 0);
	CHECK_EQ_U64(symbolizer__user(s, cas, gone, (uintptr_t)symbolize_target_b + 2, &theirs), 0);
	sym_result__format(&theirs, buf, sizeof(buf));
	snprintf(want, sizeof(want), "symbolize_target_b+0x2 [%s]", strrchr(copy, '/') + 1);
	CHECK_STR(buf, want);
	CHECK(own.func && own.func == theirs.func);
	CHECK(own.module != theirs.module);
	unlink(copy);
	addrspaces__free(cas);
}

/* JIT code: an anonymous executable mapping (and code outside any
 * mapping) of a process that has written /tmp/perf-PID.map. */
static void test_jit(struct symbolizer *s)
{
	/* Above any real pid (PID_MAX_LIMIT is 2^22), unique to this run. */
	const pid_t pid = 0x40000000 + getpid();
	struct addrspaces *as = NULL;
	char path[64], module[64], want[128], buf[512];
	struct map anon = { .start = 0x50000000, .end = 0x50010000, .prot = PROT_READ | PROT_EXEC,
			    .flags = MAP_PRIVATE };
	struct map named = anon;
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	snprintf(module, sizeof(module), "perf-%d.map", (int)pid);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		return;
	fputs("50000000 100 jit_func_one\n"
	      "50000100 80 LazyCompile:*foo bar.js:10\n"
	      "not a line\n"
	      "50000200 zz bad_size\n"
	      "60000000 40 outside_any_map\n"
	      "50000100 80 recompiled\r\n"
	      "50008000 10 in_named_anon\n", fp);
	fclose(fp);
	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK_EQ_U64(addrspaces__add(as, pid, &anon), 0);
	named.start = 0x50008000;
	named.end = 0x50009000;
	named.path = (char *)"[anon:v8]";
	CHECK_EQ_U64(addrspaces__add(as, pid, &named), 0);

	snprintf(want, sizeof(want), "jit_func_one+0x10 [%s]", module);
	CHECK_STR(fmt_user(s, as, pid, 0x50000010, buf, sizeof(buf)), want);
	printf("jit: %s\n", buf);
	/* The later line for the same start wins (code recompiled in place). */
	snprintf(want, sizeof(want), "recompiled+0x20 [%s]", module);
	CHECK_STR(fmt_user(s, as, pid, 0x50000120, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "outside_any_map+0x4 [%s]", module);
	CHECK_STR(fmt_user(s, as, pid, 0x60000004, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "in_named_anon+0x1 [%s]", module);
	CHECK_STR(fmt_user(s, as, pid, 0x50008001, buf, sizeof(buf)), want);
	/* Past a symbol's size; in a named anon mapping the file does not cover. */
	CHECK_STR(fmt_user(s, as, pid, 0x50000190, buf, sizeof(buf)), "[unknown]");
	CHECK_STR(fmt_user(s, as, pid, 0x50008800, buf, sizeof(buf)), "[unknown] [anon:v8]");
	/* The JIT compiled more since: a miss rereads the grown file. */
	fp = fopen(path, "a");
	CHECK(fp != NULL);
	if (fp) {
		fputs("50000400 20 compiled_later\n", fp);
		fclose(fp);
	}
	snprintf(want, sizeof(want), "compiled_later+0x10 [%s]", module);
	CHECK_STR(fmt_user(s, as, pid, 0x50000410, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "jit_func_one+0x0 [%s]", module);
	CHECK_STR(fmt_user(s, as, pid, 0x50000000, buf, sizeof(buf)), want);
	unlink(path);
	/* Another process without a map file: unknown, as before. */
	CHECK_EQ_U64(addrspaces__add(as, pid + 1, &anon), 0);
	CHECK_STR(fmt_user(s, as, pid + 1, 0x50000010, buf, sizeof(buf)), "[unknown]");
	addrspaces__free(as);
}

/* Maps the fixture the way ld.so would (its code page from file offset
 * 0x1000), then deletes it: symbols must still come, via map_files. */
static void test_fixture(struct symbolizer *s)
{
	char path[] = "/tmp/test-symbolize-XXXXXX", want[128], buf[512];
	struct addrspaces *as = NULL;
	const char *base = strrchr(path, '/') + 1;
	struct map m;
	struct stat st;
	uint64_t a;
	void *p = MAP_FAILED;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	CHECK(write_fixture_elf(path) == 0);
	CHECK(stat(path, &st) == 0);
	CHECK_EQ_U64(addrspaces__new(&as), 0);

	/* A process that is gone: only the plain path can be opened. */
	m = (struct map){ .start = 0x7000000000ULL, .end = 0x7000001000ULL, .pgoff = 0x1000,
			  .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .maj = major(st.st_dev),
			  .min = minor(st.st_dev), .ino = st.st_ino, .path = path };
	CHECK_EQ_U64(addrspaces__add(as, 2147483646, &m), 0);
	snprintf(want, sizeof(want), "fixture_func+0x0 [%s]", base);
	CHECK_STR(fmt_user(s, as, 2147483646, 0x7000000020ULL, buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "fixture_other+0x5 [%s]", base);
	CHECK_STR(fmt_user(s, as, 2147483646, 0x7000000085ULL, buf, sizeof(buf)), want);
	/* Before the first symbol, and past the segment's file size. */
	snprintf(want, sizeof(want), "[unknown] [%s]", base);
	CHECK_STR(fmt_user(s, as, 2147483646, 0x7000000010ULL, buf, sizeof(buf)), want);
	CHECK_STR(fmt_user(s, as, 2147483646, 0x7000000200ULL, buf, sizeof(buf)), want);
	/* Between two sized symbols: inside neither. */
	CHECK_STR(fmt_user(s, as, 2147483646, 0x7000000050ULL, buf, sizeof(buf)), want);

	/* Same path, another inode: it is not the mapped file, refuse it. */
	m.ino = st.st_ino + 1;
	m.start = 0x7100000000ULL;
	m.end = 0x7100001000ULL;
	CHECK_EQ_U64(addrspaces__add(as, 2147483646, &m), 0);
	CHECK_STR(fmt_user(s, as, 2147483646, 0x7100000020ULL, buf, sizeof(buf)), want);

	/* Our own live mapping of it, deleted afterwards. */
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	if (fd >= 0) {
		p = mmap(NULL, 0x1000, PROT_READ, MAP_PRIVATE, fd, 0x1000);
		close(fd);
	}
	CHECK(p != MAP_FAILED);
	unlink(path);
	if (p != MAP_FAILED) {
		CHECK_EQ_U64(addrspaces__load_pid(as, getpid(), NULL), 0);
		a = (uintptr_t)p;
		CHECK(addrspaces__find(as, getpid(), a) && addrspaces__find(as, getpid(), a)->deleted);
		snprintf(want, sizeof(want), "fixture_func+0x4 [%s]", base);
		CHECK_STR(fmt_user(s, as, getpid(), a + 0x24, buf, sizeof(buf)), want);
		printf("deleted file: %s\n", buf);
		munmap(p, 0x1000);
	}
	addrspaces__free(as);
}

/* A kernel text symbol alone at its address (aliases make the name a
 * choice), preferably do_sys_open. */
static bool pick_ksym(char *name, size_t n, uint64_t *addr)
{
	uint64_t prev = 0, cand = 0;
	char line[512], pname[256] = "", cname[256] = "";
	int dup = 0;
	bool found = false;
	FILE *fp = fopen("/proc/kallsyms", "r");

	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long a;
		char type, sym[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3)
			continue;
		if (a == prev) {
			dup = 1;
			continue;
		}
		/* prev is complete: alone at its address? */
		if (!dup && prev && pname[0] && (strcmp(pname, "do_sys_open") == 0 || !cname[0])) {
			snprintf(cname, sizeof(cname), "%s", pname);
			cand = prev;
			if (strcmp(pname, "do_sys_open") == 0)
				break;
		}
		dup = 0;
		prev = a;
		snprintf(pname, sizeof(pname), "%s", (type == 'T' || type == 't') && !strchr(line, '\t') ? sym : "");
	}
	fclose(fp);
	if (cname[0] && cand) {
		snprintf(name, n, "%s", cname);
		*addr = cand;
		found = true;
	}
	return found;
}

static void test_kernel(struct symbolizer *s)
{
	char name[256], want[300], buf[512];
	struct sym_result r;
	uint64_t addr;

	if (!pick_ksym(name, sizeof(name), &addr)) {
		printf("kallsyms shows no addresses (not root?): kernel checks skipped\n");
		CHECK_EQ_U64(symbolizer__kernel(s, 0xffffffff81000000ULL, &r), 0);
		CHECK(r.func == NULL);
		return;
	}
	CHECK_EQ_U64(symbolizer__kernel(s, addr, &r), 0);
	sym_result__format(&r, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s+0x0 [kernel.kallsyms]", name);
	CHECK_STR(buf, want);
	printf("kernel: %s\n", buf);
	CHECK_EQ_U64(symbolizer__kernel(s, addr + 5, &r), 0);
	sym_result__format(&r, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s+0x5 [kernel.kallsyms]", name);
	CHECK_STR(buf, want);
	/* A user address is below every kernel symbol. */
	CHECK_EQ_U64(symbolizer__kernel(s, 0x400000, &r), 0);
	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown] [kernel.kallsyms]");
}

static void test_format(void)
{
	struct sym_result r = { .addr = 1, .func = "f", .offset = 0x1a, .module = "libx.so" };
	char buf[64], small[8];

	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "f+0x1a [libx.so]");
	sym_result__format(&r, small, sizeof(small));
	CHECK_STR(small, "f+0x1a ");
	r.module = NULL;
	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "f+0x1a");
	r.func = NULL;
	r.module = "libx.so";
	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown] [libx.so]");
	r.module = "[heap]";
	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown] [heap]");
	r.module = NULL;
	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown]");
}

int main(void)
{
	struct symbolizer *s = NULL;
	struct addrspaces *as = NULL;

	CHECK_EQ_U64(symbolizer__new(&s), 0);
	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK_EQ_U64(addrspaces__load_pid(as, getpid(), NULL), 0);
	test_self(s, as);
	test_srcline(s, as);
	test_build_id_cache(s, as);
	test_jit(s);
	test_fixture(s);
	test_kernel(s);
	test_format();
	addrspaces__free(as);
	symbolizer__free(s);
	symbolizer__free(NULL);
	return check_done("test-symbolize");
}
