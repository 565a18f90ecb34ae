/*
 * test-symbolize: our own functions, libc's malloc, a binary whose code
 * vaddr differs from its file offset, a file deleted while mapped, a file
 * whose inode is not the mapping's, unmapped addresses and kernel symbols,
 * each checked as the exact text a report prints.
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <elf.h>
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
#include "symbolize.h"

/* A minimal ET_DYN whose code segment's vaddr is not its file offset
 * (offset 0x1000, vaddr 0x11000), as lld and non-PIE executables lay them
 * out; the system's own binaries all have vaddr == offset for code, which
 * would hide a missing conversion.  Symbols: fixture_func at vaddr 0x11020
 * (size 0x20), fixture_other at 0x11080 (size 0x10).  Returns 0 or -1. */
static int write_fixture_elf(const char *path)
{
	static const char strtab[] = "\0fixture_func\0fixture_other";
	static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	enum { TEXT_OFF = 0x1000, TEXT_SIZE = 0x100, TEXT_VADDR = 0x11000 };
	unsigned char image[0x2000];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf64_Phdr *ph = (Elf64_Phdr *)(image + sizeof(*eh));
	Elf64_Sym *sym = (Elf64_Sym *)(image + TEXT_OFF + TEXT_SIZE);
	char *str = (char *)(sym + 3);
	char *shstr = str + sizeof(strtab);
	Elf64_Shdr *sh = (Elf64_Shdr *)(image + 0x1400);
	size_t total = 0x1400 + 5 * sizeof(*sh);
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
	eh->e_shoff = 0x1400;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = TEXT_OFF,
			    .p_vaddr = TEXT_VADDR, .p_paddr = TEXT_VADDR, .p_filesz = TEXT_SIZE,
			    .p_memsz = TEXT_SIZE, .p_align = 0x1000 };
	memset(image + TEXT_OFF, 0xcc, TEXT_SIZE);
	sym[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
			      .st_value = TEXT_VADDR + 0x20, .st_size = 0x20 };
	sym[2] = (Elf64_Sym){ .st_name = 14, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
			      .st_value = TEXT_VADDR + 0x80, .st_size = 0x10 };
	memcpy(str, strtab, sizeof(strtab));
	memcpy(shstr, shstrtab, sizeof(shstrtab));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = TEXT_VADDR, .sh_offset = TEXT_OFF, .sh_size = TEXT_SIZE, .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = (unsigned char *)sym - image,
			      .sh_size = 3 * sizeof(*sym), .sh_link = 3, .sh_info = 1, .sh_addralign = 8,
			      .sh_entsize = sizeof(*sym) };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = (unsigned char *)str - image,
			      .sh_size = sizeof(strtab), .sh_addralign = 1 };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = (unsigned char *)shstr - image,
			      .sh_size = sizeof(shstrtab), .sh_addralign = 1 };
	fp = fopen(path, "w");
	if (!fp)
		return -1;
	ok = fwrite(image, 1, total, fp) == total;
	return fclose(fp) == 0 && ok ? 0 : -1;
}

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
	test_fixture(s);
	test_kernel(s);
	test_format();
	addrspaces__free(as);
	symbolizer__free(s);
	symbolizer__free(NULL);
	return check_done("test-symbolize");
}
