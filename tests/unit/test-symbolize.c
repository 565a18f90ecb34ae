/*
 * test-symbolize: our own functions, libc's malloc, a binary whose code
 * vaddr differs from its file offset, a file deleted while mapped, a file
 * whose inode is not the mapping's, unmapped addresses and kernel symbols,
 * each checked as the exact text a report prints; a copy of our own binary
 * sharing its symbols by build-id; JIT code named from a perf map file; the
 * source line and inline chain of our own code.  (Separate debug files:
 * test-symbolize-debug.)
 *
 * The symbolizer answers names from its own index rather than through
 * dwfl_module_addrinfo(), and must answer exactly as it does: every
 * address of an assembly library built to hold the cases libdwfl decides
 * in its own way (globals searched before locals, labels without a size,
 * aliases, nested and overlapping symbols, an absolute symbol, sections
 * sharing a start), as .symtab, as .dynsym only and as MiniDebugInfo, and
 * samples of this test binary and of libc, are compared with libdwfl's
 * answer.  That library also shows that a separate debug file is opened
 * for source lines only, not for names when .symtab has them.
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "check.h"
#include "fixture-run.h"
#include "stack/addrspace.h"
#include "elf-fixture.h"
#include "stack/symbolize.h"

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
	/* The symbol holding an address, as record writes it: its range
	 * names every address in it after it, and no other. */
	{
		struct sym_ksym k;

		CHECK_EQ_U64(symbolizer__kernel_sym(s, addr + 5, &k), 0);
		CHECK_EQ_U64(k.start, addr);
		CHECK(k.end > addr + 5);
		CHECK_STR(k.name, name);
		CHECK(k.module == NULL);
		CHECK_EQ_U64(symbolizer__kernel(s, k.end - 1, &r), 0);
		CHECK(r.func && !strcmp(r.func, name));
		CHECK_EQ_U64(symbolizer__kernel(s, k.end, &r), 0);
		CHECK(!r.func || strcmp(r.func, name) != 0);
		CHECK_EQ_U64(symbolizer__kernel_sym(s, 0x400000, &k), -ENOENT);
	}
}

static void count_call(void *ctx)
{
	(*(int *)ctx)++;
}

/* A recording's kernel symbols: the only names, kallsyms never read. */
static void test_kernel_recorded(void)
{
	struct symbolizer *s = NULL;
	struct sym_result r;
	struct sym_ksym k;
	char buf[256];
	int reads = 0;

	CHECK_EQ_U64(symbolizer__new(&s), 0);
	symbolizer__on_kallsyms(s, count_call, &reads);
	symbolizer__recorded_kernel(s);
	/* None yet (a recording without KSYMs): every address unknown. */
	CHECK_EQ_U64(symbolizer__kernel(s, 0xffffffff81001005ull, &r), 0);
	CHECK(r.func == NULL);
	CHECK_EQ_U64(symbolizer__kernel_sym(s, 0xffffffff81001005ull, &k), -ENOENT);
	CHECK_EQ_U64(symbolizer__add_kernel_sym(s, &(struct sym_ksym){ 0xffffffffc0002000ull,
		0xffffffffc0002100ull, "ext4_lookup", "ext4" }), 0);
	CHECK_EQ_U64(symbolizer__add_kernel_sym(s, &(struct sym_ksym){ 0xffffffff81001000ull,
		0xffffffff81001010ull, "__d_alloc", "" }), 0);
	CHECK_EQ_U64(symbolizer__add_kernel_sym(s, &(struct sym_ksym){ 5, 5, "x", NULL }), -EINVAL);
	CHECK_EQ_U64(symbolizer__add_kernel_sym(s, &(struct sym_ksym){ 5, 6, "", NULL }), -EINVAL);
	CHECK_EQ_U64(symbolizer__kernel(s, 0xffffffff81001005ull, &r), 0);
	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "__d_alloc+0x5 [kernel.kallsyms]");
	CHECK_EQ_U64(symbolizer__kernel(s, 0xffffffffc00020ffull, &r), 0);
	sym_result__format(&r, buf, sizeof(buf));
	CHECK_STR(buf, "ext4_lookup+0xff [ext4]");
	/* Past an end, in a gap, below the first, past the last: unknown. */
	for (uint64_t a = 0xffffffff81001010ull; a; a = a == 0xffffffff81001010ull ?
	     0xffffffff81000fffull : a == 0xffffffff81000fffull ? 0xffffffffc0002100ull : 0) {
		CHECK_EQ_U64(symbolizer__kernel(s, a, &r), 0);
		sym_result__format(&r, buf, sizeof(buf));
		CHECK_STR(buf, "[unknown] [kernel.kallsyms]");
	}
	/* One added after a lookup is found too. */
	CHECK_EQ_U64(symbolizer__add_kernel_sym(s, &(struct sym_ksym){ 0xffffffff81000f00ull,
		0xffffffff81001000ull, "d_alloc", NULL }), 0);
	CHECK_EQ_U64(symbolizer__kernel_sym(s, 0xffffffff81000fffull, &k), 0);
	CHECK_EQ_U64(k.start, 0xffffffff81000f00ull);
	CHECK_EQ_U64(k.end, 0xffffffff81001000ull);
	CHECK_STR(k.name, "d_alloc");
	CHECK(k.module == NULL);
	CHECK_EQ_U64(symbolizer__kernel_sym(s, 0xffffffffc0002000ull, &k), 0);
	CHECK_STR(k.module, "ext4");
	CHECK_EQ_U64(reads, 0);
	symbolizer__free(s);

	/* Live: kallsyms is read once, and said so once. */
	CHECK_EQ_U64(symbolizer__new(&s), 0);
	symbolizer__on_kallsyms(s, count_call, &reads);
	CHECK_EQ_U64(symbolizer__kernel(s, 0xffffffff81000000ull, &r), 0);
	CHECK_EQ_U64(symbolizer__kernel(s, 0xffffffff81000001ull, &r), 0);
	CHECK_EQ_U64(reads, 1);
	symbolizer__free(s);
}

/* A process that is gone: only the files answer. */
enum { GONE_PID = 0x7ffffff2 };
static const uint64_t MAP_BASE = 0x555500000000ULL;

/* Symbols placed where libdwfl's choice is subtle (.text at 0x1000 when
 * linked -shared -nostdlib): a global function covering a local one and a
 * global label; global and local labels in a gap, two at one address; a
 * global label exactly at a local object; aliases of one start with
 * different sizes and bindings; nested and overlapping functions; a gap
 * after a local function ended by an absolute symbol; a function without
 * a size; an object and a label in .rodata (ending where the empty
 * .eh_frame starts); an object in .data (.tbss shares .dynamic's start).
 * Only insn_func, last, holds instructions, for a source line. */
static const char fx_src[] =
	"\t.text\n\t.p2align 4\n"
	"\t.globl g_big\n\t.type g_big, %function\ng_big:\n\t.skip 0x10\n"
	"\t.type l_inner, %function\nl_inner:\n\t.skip 0x20\n\t.size l_inner, 0x20\n"
	"\t.globl g_label\ng_label:\n\t.skip 0xd0\n\t.size g_big, 0x100\n"
	"\t.globl gap_label\ngap_label:\ngap_local:\n\t.skip 0x10\nloc_label:\n\t.skip 0x10\n"
	"\t.globl exact_label\nexact_label:\n"
	"\t.type l_data, %object\nl_data:\n\t.skip 0x20\n\t.size l_data, 0x20\n"
	"\t.globl alias_aa\n\t.type alias_aa, %function\n"
	"\t.weak alias_b\n\t.type alias_b, %function\n"
	"\t.globl __alias_c\n\t.type __alias_c, %function\n"
	"\t.type alias_l, %function\n"
	"alias_aa:\nalias_b:\n__alias_c:\nalias_l:\n\t.skip 0x40\n"
	"\t.size alias_aa, 0x30\n\t.size alias_b, 0x20\n\t.size __alias_c, 0x30\n\t.size alias_l, 0x40\n"
	"\t.globl outer2\n\t.type outer2, %function\nouter2:\n\t.skip 0x10\n"
	"\t.globl inner2\n\t.type inner2, %function\ninner2:\n\t.skip 0x10\n\t.size inner2, 0x10\n"
	"\t.skip 0x20\n\t.size outer2, 0x40\n"
	"\t.globl over_x\n\t.type over_x, %function\nover_x:\n\t.skip 0x10\n"
	"\t.type over_y, %function\nover_y:\n\t.skip 0x20\n\t.size over_x, 0x30\n"
	"\t.skip 0x10\n\t.size over_y, 0x30\n"
	"\t.type l_only, %function\nl_only:\n\t.skip 0x20\n\t.size l_only, 0x20\n\t.skip 0x20\n"
	"\t.globl tail_func\n\t.type tail_func, %function\ntail_func:\n\t.skip 0x10\n"
	"\t.globl insn_func\n\t.type insn_func, %function\ninsn_func:\n\tnop\n\tnop\n"
	"\t.size insn_func, .-insn_func\n"
	"\t.globl abs_sym\n\t.set abs_sym, 0x1230\n"
	"\t.section .rodata\n\t.globl ro_obj\n\t.type ro_obj, %object\nro_obj:\n\t.skip 0x20\n"
	"\t.size ro_obj, 0x20\nro_label:\n\t.skip 0x10\n"
	"\t.data\n\t.globl d_obj\n\t.type d_obj, %object\nd_obj:\n\t.skip 0x40\n\t.size d_obj, 0x40\n"
	"\t.section .tbss,\"awT\",%nobits\n\t.globl t_var\n\t.type t_var, %tls_object\nt_var:\n"
	"\t.skip 8\n\t.size t_var, 8\n";


/* @path's PT_LOADs mapped at MAP_BASE into GONE_PID, as ld.so would. */
static struct addrspaces *map_whole_file(const char *path)
{
	struct addrspaces *as = NULL;
	struct stat st;
	size_t nph = 0;
	Elf *elf = NULL;
	int fd = open(path, O_RDONLY);

	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	CHECK_EQ_U64(addrspaces__new(&as), 0);
	if (fd >= 0)
		elf = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(elf && elf_getphdrnum(elf, &nph) == 0);
	for (size_t i = 0; elf && as && i < nph; i++) {
		GElf_Phdr ph;
		struct map m;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		m = (struct map){ .start = MAP_BASE + (ph.p_vaddr & ~0xfffULL),
				  .end = MAP_BASE + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL),
				  .pgoff = ph.p_offset & ~0xfffULL,
				  .prot = (ph.p_flags & PF_X ? PROT_EXEC : 0) | PROT_READ, .flags = MAP_PRIVATE,
				  .maj = major(st.st_dev), .min = minor(st.st_dev), .ino = st.st_ino,
				  .path = (char *)path };
		CHECK_EQ_U64(addrspaces__add(as, GONE_PID, &m), 0);
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return as;
}

struct ref_alias {
	uint64_t addr;
	const char *name;
	bool global;
	int order;
};

/* libdwfl's own answer: the file reported at base 0 to a Dwfl of its own
 * (standard debuginfo search), dwfl_module_addrinfo(), then the name of
 * the best-named function starting where that symbol starts. */
struct ref {
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	GElf_Phdr loads[16];
	size_t nloads;
	struct ref_alias *aliases;	/* the best one per address, sorted */
	size_t naliases;
	const char *base;
};

/* The symbolizer's rule for aliases, as documented: fewer leading
 * underscores, then global or weak over local, then the shorter name,
 * else the first in the table. */
static bool ref_better(const struct ref_alias *a, const struct ref_alias *b)
{
	size_t ua = strspn(a->name, "_"), ub = strspn(b->name, "_");

	if (ua != ub)
		return ua < ub;
	if (a->global != b->global)
		return a->global;
	return strlen(a->name) < strlen(b->name);
}

static int cmp_ref_alias(const void *a, const void *b)
{
	const struct ref_alias *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order - y->order;
}

static bool ref__open(struct ref *r, const char *path)
{
	Elf *elf;
	size_t nph = 0, n = 0;
	int nsyms;

	memset(r, 0, sizeof(*r));
	r->base = strrchr(path, '/') + 1;
	r->cb.find_elf = dwfl_build_id_find_elf;
	r->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	r->cb.section_address = dwfl_offline_section_address;
	r->cb.debuginfo_path = &r->debuginfo_path;
	r->dwfl = dwfl_begin(&r->cb);
	if (!r->dwfl)
		return false;
	dwfl_report_begin(r->dwfl);
	r->mod = dwfl_report_elf(r->dwfl, r->base, path, -1, 0, false);
	dwfl_report_end(r->dwfl, NULL, NULL);
	elf = r->mod ? dwfl_module_getelf(r->mod, &r->bias) : NULL;
	if (!elf || elf_getphdrnum(elf, &nph) != 0)
		return false;
	for (size_t i = 0; i < nph && r->nloads < 16; i++)
		if (gelf_getphdr(elf, (int)i, &r->loads[r->nloads]) && r->loads[r->nloads].p_type == PT_LOAD)
			r->nloads++;
	nsyms = dwfl_module_getsymtab(r->mod);
	r->aliases = calloc(nsyms > 0 ? (size_t)nsyms : 1, sizeof(*r->aliases));
	if (!r->aliases)
		return false;
	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(r->mod, i, &sym, &addr, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (name && *name && (type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_size > 0)
			r->aliases[n++] = (struct ref_alias){ addr, name, GELF_ST_BIND(sym.st_info) != STB_LOCAL, i };
	}
	if (n)
		qsort(r->aliases, n, sizeof(*r->aliases), cmp_ref_alias);
	for (size_t i = 0; i < n; i++) {
		struct ref_alias *best = r->naliases ? &r->aliases[r->naliases - 1] : NULL;

		if (best && best->addr == r->aliases[i].addr) {
			if (ref_better(&r->aliases[i], best))
				*best = r->aliases[i];
		} else {
			r->aliases[r->naliases++] = r->aliases[i];
		}
	}
	return true;
}

static void ref__close(struct ref *r)
{
	if (r->dwfl)
		dwfl_end(r->dwfl);
	free(r->aliases);
}

/* What the symbolizer answered for @q of GONE_PID before it had an index. */
static void ref__format(const struct ref *r, const struct addrspaces *as, uint64_t q, char *buf, size_t n)
{
	const struct map *m = addrspaces__find(as, GONE_PID, q);
	struct sym_result res = { .addr = q };

	if (m) {
		uint64_t off = q - m->start + m->pgoff;

		res.module = r->base;
		for (size_t i = 0; i < r->nloads; i++) {
			const GElf_Phdr *ph = &r->loads[i];
			GElf_Off symoff = 0;
			GElf_Sym sym;
			uint64_t d;
			size_t lo = 0, hi = r->naliases;

			if (off < ph->p_offset || off - ph->p_offset >= ph->p_filesz)
				continue;
			d = off - ph->p_offset + ph->p_vaddr + r->bias;
			res.func = dwfl_module_addrinfo(r->mod, d, &symoff, &sym, NULL, NULL, NULL);
			if (res.func && !*res.func)
				res.func = NULL;
			if (!res.func)
				break;
			res.offset = symoff;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (r->aliases[mid].addr < d - symoff)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < r->naliases && r->aliases[lo].addr == d - symoff)
				res.func = r->aliases[lo].name;
			break;
		}
	}
	sym_result__format(&res, buf, n);
}

/* Compare at @q, asking the symbolizer twice (the second answer comes
 * from its frame cache); print the first few differences. */
static void compare_at(struct symbolizer *s, const struct addrspaces *as, const struct ref *r, uint64_t q,
		       size_t *compared, size_t *differ)
{
	char want[512], got[512], again[512];

	ref__format(r, as, q, want, sizeof(want));
	fmt_user(s, as, GONE_PID, q, got, sizeof(got));
	fmt_user(s, as, GONE_PID, q, again, sizeof(again));
	(*compared)++;
	if (strcmp(want, got) == 0 && strcmp(want, again) == 0)
		return;
	if ((*differ)++ < 10)
		fprintf(stderr, "%s at 0x%" PRIx64 ": \"%s\" (again \"%s\"), libdwfl \"%s\"\n", r->base,
			q - MAP_BASE, got, again, want);
}

/* The symbolizer answers as libdwfl does for @path: every @stride-th
 * mapped byte, and around the start and end of every @sym_every-th
 * symbol.  Returns how many addresses were compared. */
static size_t check_like_libdwfl(const char *path, size_t stride, size_t sym_every)
{
	struct symbolizer *s = NULL;
	struct addrspaces *as = map_whole_file(path);
	const struct map *maps;
	struct ref r;
	size_t n = 0, compared = 0, differ = 0;
	int nsyms;

	CHECK_EQ_U64(symbolizer__new(&s), 0);
	CHECK(ref__open(&r, path));
	maps = addrspaces__maps(as, GONE_PID, &n);
	for (size_t i = 0; s && r.mod && i < n; i++)
		for (uint64_t q = maps[i].start; q < maps[i].end; q += stride)
			compare_at(s, as, &r, q, &compared, &differ);
	nsyms = r.mod ? dwfl_module_getsymtab(r.mod) : 0;
	for (int i = 1; s && i < nsyms; i += (int)sym_every) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(r.mod, i, &sym, &addr, NULL, NULL, NULL);
		uint64_t at[2] = { addr - r.bias, addr - r.bias + sym.st_size };

		if (!name)
			continue;
		for (int k = 0; k < 2; k++)
			for (uint64_t q = MAP_BASE + at[k] - 1; q <= MAP_BASE + at[k] + 1; q++)
				compare_at(s, as, &r, q, &compared, &differ);
	}
	printf("like libdwfl: %s: %zu addresses, %zu differ\n", r.base, compared, differ);
	CHECK_EQ_U64(differ, 0);
	ref__close(&r);
	symbolizer__free(s);
	addrspaces__free(as);
	return compared;
}

/* Whether this process maps a file whose path ends in @suffix. */
static bool mapped(const char *suffix)
{
	char *line = NULL;
	size_t cap = 0, len = strlen(suffix);
	bool found = false;
	FILE *fp = fopen("/proc/self/maps", "r");

	while (fp && !found && getline(&line, &cap, fp) > 0) {
		size_t l = strcspn(line, "\n");

		found = l >= len && memcmp(line + l - len, suffix, len) == 0;
	}
	free(line);
	if (fp)
		fclose(fp);
	return found;
}

/* @q (a file vaddr) of the library at @path as the symbolizer prints it. */
static const char *fmt_fx(struct symbolizer *s, const char *path, uint64_t q, char *buf, size_t n)
{
	struct addrspaces *as = map_whole_file(path);

	fmt_user(s, as, GONE_PID, MAP_BASE + q, buf, n);
	addrspaces__free(as);
	return buf;
}

/* An ELF file whose symbol table order is ours to choose (a linker's is
 * not): libdwfl's pick among symbols covering an address depends on the
 * order it visits them in and on their bindings.  Locals l_wide and
 * l_narrow (nested); then, from index 3, a weak function visited before
 * the global one starting below it, a GNU_UNIQUE object before a weak one
 * starting below it, and objects sharing a start with other sizes and
 * bindings (objects, as a function would be shown by its best alias). */
static int write_order_elf(const char *path)
{
	static const struct {
		const char *name;
		unsigned char bind, type;
		uint64_t value, size;
	} syms[] = {
		{ "l_wide", STB_LOCAL, STT_FUNC, 0x1100, 0x80 },
		{ "l_narrow", STB_LOCAL, STT_FUNC, 0x1120, 0x20 },
		{ "w_late", STB_WEAK, STT_FUNC, 0x1010, 0x20 },
		{ "g_early", STB_GLOBAL, STT_FUNC, 0x1000, 0x40 },
		{ "u_obj", STB_GNU_UNIQUE, STT_OBJECT, 0x1050, 0x10 },
		{ "w_obj", STB_WEAK, STT_OBJECT, 0x1048, 0x28 },
		{ "o_big", STB_GLOBAL, STT_OBJECT, 0x1080, 0x20 },
		{ "o_small", STB_GLOBAL, STT_OBJECT, 0x1080, 0x10 },
		{ "o_strong", STB_GLOBAL, STT_OBJECT, 0x10b0, 0x20 },
		{ "o_weak", STB_WEAK, STT_OBJECT, 0x10b0, 0x10 },
		{ "o_weak2", STB_WEAK, STT_OBJECT, 0x10d0, 0x10 },
		{ "o_strong2", STB_GLOBAL, STT_OBJECT, 0x10d0, 0x20 },
	};
	static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	enum { TEXT = 0x1000, TEXT_SIZE = 0x200, SYMS = 0x1200, STRS = 0x1400, SHSTRS = 0x1600, SHDRS = 0x1800 };
	enum { NSYMS = sizeof(syms) / sizeof(syms[0]) + 1 };
	static unsigned char image[SHDRS + 5 * sizeof(Elf64_Shdr)];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf64_Phdr *ph = (Elf64_Phdr *)(image + sizeof(*eh));
	Elf64_Sym *sym = (Elf64_Sym *)(image + SYMS);
	Elf64_Shdr *sh = (Elf64_Shdr *)(image + SHDRS);
	size_t str = 1;
	FILE *fp;
	int ok;

	memset(image, 0, sizeof(image));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = SHDRS;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = TEXT, .p_vaddr = TEXT,
			    .p_paddr = TEXT, .p_filesz = TEXT_SIZE, .p_memsz = TEXT_SIZE, .p_align = 0x1000 };
	memset(image + TEXT, 0xcc, TEXT_SIZE);
	for (size_t i = 1; i < NSYMS; i++) {
		sym[i] = (Elf64_Sym){ .st_name = (Elf64_Word)str,
				      .st_info = ELF64_ST_INFO(syms[i - 1].bind, syms[i - 1].type), .st_shndx = 1,
				      .st_value = syms[i - 1].value, .st_size = syms[i - 1].size };
		memcpy(image + STRS + str, syms[i - 1].name, strlen(syms[i - 1].name) + 1);
		str += strlen(syms[i - 1].name) + 1;
	}
	memcpy(image + SHSTRS, shstrtab, sizeof(shstrtab));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = TEXT, .sh_offset = TEXT, .sh_size = TEXT_SIZE, .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = SYMS, .sh_size = NSYMS * sizeof(*sym),
			      .sh_link = 3, .sh_info = 3, .sh_addralign = 8, .sh_entsize = sizeof(*sym) };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = STRS, .sh_size = str,
			      .sh_addralign = 1 };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = SHSTRS, .sh_size = sizeof(shstrtab),
			      .sh_addralign = 1 };
	fp = fopen(path, "w");
	if (!fp)
		return -1;
	ok = fwrite(image, 1, sizeof(image), fp) == sizeof(image);
	return fclose(fp) == 0 && ok ? 0 : -1;
}

static void test_like_libdwfl(const struct addrspaces *self_as)
{
	static const struct {
		uint64_t addr;
		const char *want;
	} known[] = {
		{ 0x1010, "g_big+0x10" },	/* the global is searched first */
		{ 0x1030, "g_big+0x30" },	/* a sized symbol over a label */
		{ 0x1100, "gap_label+0x0" },	/* the global label at it */
		{ 0x1105, "gap_local+0x5" },	/* the label visited last */
		{ 0x1115, "loc_label+0x5" },	/* the closest label, local or not */
		{ 0x1120, "exact_label+0x0" },	/* a global label at it: no locals */
		{ 0x1121, "l_data+0x1" },
		{ 0x1140, "alias_b+0x0" },	/* libdwfl's __alias_c, shown by its alias */
		{ 0x1195, "inner2+0x5" },	/* the closer start */
		{ 0x11d5, "over_x+0x15" },	/* the global, over the closer local */
		{ 0x11f5, "over_y+0x25" },
		{ 0x1230, "abs_sym+0x0" },	/* an absolute symbol only exactly */
		{ 0x1245, "tail_func+0x5" },
		{ 0x2025, "ro_label+0x5" },
		{ 0x4010, "d_obj+0x10" },
	};
	static const struct {
		uint64_t addr;
		const char *want;
	} order_known[] = {
		{ 0x1015, "g_early+0x15" },	/* visited later, starts lower, binds more strongly */
		{ 0x1055, "w_obj+0xd" },	/* weak over GNU_UNIQUE */
		{ 0x1085, "o_small+0x5" },	/* same start, smaller, as strong */
		{ 0x1095, "o_big+0x15" },
		{ 0x10b5, "o_strong+0x5" },	/* smaller but weaker: kept */
		{ 0x10d5, "o_strong2+0x5" },	/* larger but stronger */
		{ 0x1125, "l_narrow+0x5" },	/* locals: the closer start */
		{ 0x1145, "l_wide+0x45" },
	};
	char dir[] = "/tmp/test-symbolize-fx-XXXXXX", path[PATH_MAX], want[PATH_MAX], buf[PATH_MAX];
	const char *oc = getenv("OBJCOPY") ? getenv("OBJCOPY") : "objcopy";
	const char *fx[] = { "fx.so", "fx-dynsym.so", "fx-mini.so" };
	struct symbolizer *s = NULL;
	struct sym_inline fr[4];
	const struct map *maps;
	unsigned nop_line = 1;
	size_t n = 0;
	FILE *fp;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/fx.s", dir);
	fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (!fp)
		goto out;
	fputs(fx_src, fp);
	fclose(fp);
	for (const char *p = fx_src; p < strstr(fx_src, "\tnop\n"); p++)
		nop_line += *p == '\n';
	/* As .symtab; .dynsym only (the globals); MiniDebugInfo merged with
	 * .dynsym; .symtab with DWARF in a separate debug file beside it. */
	if (fixture_run("cd %s && cc -g -shared -nostdlib -Wl,--build-id -o fx.so fx.s && "
		"%s --strip-all fx.so fx-dynsym.so && mkdir link && "
		"%s --only-keep-debug fx.so link/fx.debug && "
		"%s --strip-debug --add-gnu-debuglink=link/fx.debug fx.so link/fx-link.so", dir, oc, oc, oc) != 0) {
		CHECK(!"building the assembly library");
		goto out;
	}
	if (fixture_run("command -v xz >/dev/null") != 0 ||
	    fixture_run("cd %s && nm --format=posix --defined-only fx.so | awk '{print $1}' > syms && "
		"%s --only-keep-debug fx.so mini && %s -S --keep-symbols=syms mini mini2 && xz -f mini2 && "
		"%s --add-section .gnu_debugdata=mini2.xz fx-dynsym.so fx-mini.so", dir, oc, oc, oc) != 0)
		fx[2] = NULL;

	CHECK_EQ_U64(symbolizer__new(&s), 0);
	snprintf(path, sizeof(path), "%s/fx.so", dir);
	for (size_t i = 0; s && i < sizeof(known) / sizeof(known[0]); i++) {
		snprintf(want, sizeof(want), "%s [fx.so]", known[i].want);
		CHECK_STR(fmt_fx(s, path, known[i].addr, buf, sizeof(buf)), want);
	}
	CHECK_STR(fmt_fx(s, path, 0x1231, buf, sizeof(buf)), "[unknown] [fx.so]");
	symbolizer__free(s);
	s = NULL;
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		if (!fx[i]) {
			printf("no xz: MiniDebugInfo comparison skipped\n");
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, fx[i]);
		CHECK(check_like_libdwfl(path, 1, 1) > 0x4000);
	}

	/* Bindings and visiting order. */
	snprintf(path, sizeof(path), "%s/order.so", dir);
	CHECK(write_order_elf(path) == 0);
	CHECK_EQ_U64(symbolizer__new(&s), 0);
	for (size_t i = 0; s && i < sizeof(order_known) / sizeof(order_known[0]); i++) {
		snprintf(want, sizeof(want), "%s [order.so]", order_known[i].want);
		CHECK_STR(fmt_fx(s, path, order_known[i].addr, buf, sizeof(buf)), want);
	}
	symbolizer__free(s);
	s = NULL;
	CHECK(check_like_libdwfl(path, 1, 1) > 0x1000);

	/* Names from .symtab leave the debug file closed; the first source
	 * line opens it. */
	CHECK_EQ_U64(symbolizer__new(&s), 0);
	snprintf(path, sizeof(path), "%s/link/fx-link.so", dir);
	CHECK_STR(fmt_fx(s, path, 0x1010, buf, sizeof(buf)), "g_big+0x10 [fx-link.so]");
	CHECK(!mapped("/link/fx.debug"));
	{
		struct addrspaces *as = map_whole_file(path);

		n = 0;
		CHECK_EQ_U64(symbolizer__srcline(s, as, GONE_PID, MAP_BASE + 0x1251, fr, 4, &n), 0);
		CHECK_EQ_U64(n, 1);
		if (n == 1) {
			CHECK_STR(fr[0].func, "insn_func");
			CHECK_EQ_U64(fr[0].line, nop_line + 1);
			CHECK(fr[0].file && strlen(fr[0].file) > 5 &&
			      strcmp(fr[0].file + strlen(fr[0].file) - 5, "/fx.s") == 0);
		}
		addrspaces__free(as);
	}
	CHECK(mapped("/link/fx.debug"));
	symbolizer__free(s);
	s = NULL;

	/* This test binary (.symtab, locals, labels from crt files), every
	 * third byte; libc (named from its debug file when installed),
	 * sampled: libdwfl takes a while per address there. */
	{
		char exe[PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		CHECK(len > 0);
		exe[len > 0 ? len : 0] = '\0';
		if (len > 0)
			check_like_libdwfl(exe, 3, 1);
	}
	maps = addrspaces__maps(self_as, getpid(), &n);
	for (size_t i = 0; i < n; i++) {
		const char *p = maps[i].path, *base = p ? strrchr(p, '/') : NULL;

		if (base && strncmp(base, "/libc.so", 8) == 0) {
			check_like_libdwfl(p, 509, 17);
			break;
		}
	}
out:
	symbolizer__free(s);
	fixture_run("rm -rf %s", dir);
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
	test_kernel_recorded();
	test_like_libdwfl(as);
	test_format();
	addrspaces__free(as);
	symbolizer__free(s);
	symbolizer__free(NULL);
	return check_done("test-symbolize");
}
