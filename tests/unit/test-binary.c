/*
 * test-binary: the one cache of open binaries (stack/binary.h).  Holds are
 * counted and one entry serves every get; each file our process maps is
 * opened once, by the symbolizer, and the libdw and libunwind unwinders
 * and the recorder's build-id reads given the same cache open nothing more
 * and hold the same entries; the build-ids it reads are the ones the
 * loader mapped (dl_iterate_phdr's notes); the symbols and symbol index
 * are built once per build-id, shared by a copy of the file, and freed
 * with the last entry; a recording's build-id is part of the key and only
 * a file with it is taken; a file replaced on disk (same path, new inode)
 * is another entry and never read for the old one; a FIFO is refused; a
 * path with a space and a newline opens; entries nobody holds are freed
 * past BINCACHE_MAX, held ones kept.
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
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
#include "stack/binary.h"
#include "stack/symbolize.h"
#include "stack/symindex.h"
#include "stack/unwind.h"

int main(void);

/* A file mapping of @path as it is now on disk. */
static struct map map_of(const char *path)
{
	struct map m = { .start = 0x400000, .end = 0x401000, .prot = PROT_READ | PROT_EXEC };
	struct stat st;

	CHECK(stat(path, &st) == 0);
	m.maj = major(st.st_dev);
	m.min = minor(st.st_dev);
	m.ino = st.st_ino;
	m.path = (char *)path;
	return m;
}

/* Copy our own executable to @path (replacing it: a new inode). */
static void copy_self(const char *path)
{
	char tmp[PATH_MAX], buf[65536];
	int in = open("/proc/self/exe", O_RDONLY), out;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CHECK(in >= 0 && out >= 0);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(out, buf, (size_t)n) == n);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	CHECK(rename(tmp, path) == 0);
}

struct bid_check {
	struct bincache *c;
	struct addrspaces *as;
	pid_t pid;
};

/* The GNU build-id note of a loaded object, as the loader mapped it: its
 * length (*id into it), or 0. */
static size_t loaded_build_id(const struct dl_phdr_info *info, const unsigned char **id)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		while (off + sizeof(ElfW(Nhdr)) <= ph->p_memsz) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(p + off);
			size_t name = (nh->n_namesz + 3) & ~3u, desc = (nh->n_descsz + 3) & ~3u;

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(p + off + sizeof(*nh), "GNU", 4) == 0) {
				*id = p + off + sizeof(*nh) + name;
				return nh->n_descsz;
			}
			off += sizeof(*nh) + name + desc;
		}
	}
	return 0;
}

/* dl_iterate_phdr: each loaded object with a build-id has it in the cache,
 * read through the entry the symbolizer opened. */
static int check_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct bid_check *k = arg;
	const unsigned char *want = NULL, *got = NULL;
	size_t len = loaded_build_id(info, &want);
	const struct map *m = addrspaces__find(k->as, k->pid, info->dlpi_addr + info->dlpi_phdr[0].p_vaddr);
	struct binary *b = NULL;

	(void)size;
	if (!len || !m || !m->path || m->path[0] != '/')
		return 0;
	CHECK_EQ_U64(binary__get(k->c, k->as, k->pid, m, &b), 0);
	CHECK(b != NULL);
	if (!b)
		return 0;
	CHECK_EQ_U64(binary__build_id(b, &got), len);
	CHECK(got && memcmp(got, want, len) == 0);
	binary__put(b);
	return 0;
}

static void test_holds(void)
{
	struct bincache *c = NULL;
	struct binary *a = NULL, *b = NULL;
	struct map m = map_of("/proc/self/exe");
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	CHECK(len > 0);
	exe[len > 0 ? len : 0] = '\0';
	m.path = exe;
	CHECK_EQ_U64(bincache__new(&c), 0);
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m, &a), 0);
	CHECK(a && binary__image(a));
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m, &b), 0);
	CHECK(a == b);
	CHECK_EQ_U64(binary__refs(a), 2);
	CHECK_EQ_U64(bincache__opens(c), 1);
	CHECK_EQ_U64(bincache__count(c), 1);
	CHECK(bincache__find(c, &m) == a);
	if (a && binary__image(a)) {
		const struct bin_image *img = binary__image(a);
		struct cfi_table *t1 = NULL, *t2 = NULL;

		CHECK_EQ_U64(img->ino, m.ino);
		CHECK(img->nloads > 0 && img->has_eh_table);
		CHECK_EQ_U64(binary__cfi(a, &t1), 0);
		CHECK_EQ_U64(binary__cfi(a, &t2), 0);
		CHECK(t1 && t1 == t2);	/* built once */
	}
	binary__put(b);
	CHECK_EQ_U64(binary__refs(a), 1);
	binary__put(a);
	CHECK_EQ_U64(binary__refs(a), 0);
	CHECK(bincache__find(c, &m) == a);	/* kept while under the bound */
	/* The cache lives while someone holds it. */
	CHECK(bincache__ref(c) == c);
	bincache__unref(c);
	CHECK_EQ_U64(bincache__count(c), 1);
	bincache__unref(c);
}

/* Every executable file mapping of ours, one entry (and one open) each,
 * whichever of the symbolizer and the unwinders asks. */
static void test_shared(void)
{
	struct addrspaces *as = NULL;
	struct symbolizer *s = NULL;
	struct bincache *c;
	struct bincache_stats st, st2;
	const struct map *maps;
	const struct map *exe = NULL;
	uint64_t opens, count = 0, stack[64] = { 0 };
	size_t n;
	pid_t pid = getpid();

	CHECK_EQ_U64(addrspaces__new(&as), 0);
	CHECK_EQ_U64(addrspaces__load_pid(as, pid, NULL), 0);
	CHECK_EQ_U64(symbolizer__new(&s), 0);
	if (!as || !s)
		goto out;
	c = bincache__ref(symbolizer__bincache(s));
	maps = addrspaces__maps(as, pid, &n);
	for (size_t i = 0; i < n; i++) {
		struct sym_result res;

		if (!(maps[i].prot & PROT_EXEC) || !maps[i].path || maps[i].path[0] != '/')
			continue;
		if (!bincache__find(c, &maps[i]))
			count++;
		CHECK_EQ_U64(symbolizer__user(s, as, pid, maps[i].start, &res), 0);
		if (maps[i].start <= (uint64_t)(uintptr_t)main && (uint64_t)(uintptr_t)main < maps[i].end)
			exe = &maps[i];
	}
	CHECK(exe != NULL);
	CHECK(count >= 2);	/* ourselves and libc at least */
	CHECK_EQ_U64(bincache__count(c), count);
	CHECK_EQ_U64(bincache__opens(c), count);
	opens = bincache__opens(c);
	/* Named again: no symbol table read again. */
	bincache__stats(c, &st);
	CHECK(st.indexes >= 2 && st.indexes <= count);
	for (size_t i = 0; i < n; i++) {
		struct sym_result res;

		if ((maps[i].prot & PROT_EXEC) && maps[i].path && maps[i].path[0] == '/')
			CHECK_EQ_U64(symbolizer__user(s, as, pid, maps[i].start + 1, &res), 0);
	}
	bincache__stats(c, &st2);
	CHECK_EQ_U64(st2.indexes, st.indexes);
	CHECK_EQ_U64(st2.symbols, st.symbols);
	CHECK_EQ_U64(st2.opens, opens);
	/* The symbolizer holds its file once, symbols and all. */
	if (exe)
		CHECK_EQ_U64(binary__refs(bincache__find(c, exe)), 1);
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "libunwind" : "libdw";
		uint64_t regs[3] = { 0, (uint64_t)(uintptr_t)stack, (uint64_t)(uintptr_t)main + 1 };
		struct unwind_input in = {
			.pid = pid, .regs = regs,
			.regs_mask = (1ULL << PERF_REG_X86_BP) | (1ULL << PERF_REG_X86_SP) | (1ULL << PERF_REG_X86_IP),
			.stack = (const unsigned char *)stack, .stack_size = sizeof(stack),
		};
		struct unwinder *u = NULL;
		enum unwind_stop stop;
		uint64_t ips[8];
		uint32_t got = 0;

		CHECK_EQ_U64(unwinder__new(name, as, c, &u), 0);
		if (!u)
			continue;
		CHECK_EQ_U64(unwinder__unwind(u, &in, ips, 8, &got, &stop), 0);
		CHECK(got >= 1 && ips[0] == regs[2]);
		/* Nothing opened again, nothing new kept. */
		CHECK_EQ_U64(bincache__opens(c), opens);
		CHECK_EQ_U64(bincache__count(c), count);
		/* The unwinder holds our executable's very entry too. */
		if (exe)
			CHECK_EQ_U64(binary__refs(bincache__find(c, exe)), 2);
		unwinder__free(u);
		if (exe)
			CHECK_EQ_U64(binary__refs(bincache__find(c, exe)), 1);
	}
	/* The recorder's build-ids: the same entries, nothing opened, and the
	 * ids the loader mapped. */
	CHECK_EQ_U64(dl_iterate_phdr(check_build_id, &(struct bid_check){ c, as, pid }), 0);
	CHECK_EQ_U64(bincache__opens(c), opens);
	CHECK_EQ_U64(bincache__count(c), count);
	if (exe)
		CHECK_EQ_U64(binary__refs(bincache__find(c, exe)), 1);
	symbolizer__free(s);
	s = NULL;
	if (exe)
		CHECK_EQ_U64(binary__refs(bincache__find(c, exe)), 0);
	bincache__unref(c);
out:
	symbolizer__free(s);
	addrspaces__free(as);
}

/* Same path, new inode: another entry, and the old inode never served by
 * the new file. */
static void test_replaced(const char *dir)
{
	char path[PATH_MAX];
	struct bincache *c = NULL, *c2 = NULL;
	struct binary *old = NULL, *new = NULL, *gone = NULL;
	struct map m1, m2;

	snprintf(path, sizeof(path), "%s/lib with space\nand newline.so", dir);
	copy_self(path);
	m1 = map_of(path);
	CHECK_EQ_U64(bincache__new(&c), 0);
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m1, &old), 0);
	CHECK(old && binary__image(old));
	copy_self(path);
	m2 = map_of(path);
	CHECK(m1.ino != m2.ino);
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m2, &new), 0);
	CHECK(new && new != old && binary__image(new));
	CHECK_EQ_U64(bincache__opens(c), 2);
	if (old && new && binary__image(old) && binary__image(new)) {
		CHECK_EQ_U64(binary__image(old)->ino, m1.ino);
		CHECK_EQ_U64(binary__image(new)->ino, m2.ino);
	}
	/* A cache that first hears of the old inode now finds no file for
	 * it (the path holds another), and asks again only for another pid. */
	CHECK_EQ_U64(bincache__new(&c2), 0);
	CHECK_EQ_U64(binary__get(c2, NULL, getpid(), &m1, &gone), 0);
	CHECK(gone && !binary__image(gone));
	binary__put(gone);
	CHECK_EQ_U64(binary__get(c2, NULL, getpid(), &m1, &gone), 0);
	CHECK(gone && !binary__image(gone));
	CHECK_EQ_U64(bincache__opens(c2), 0);
	binary__put(gone);
	binary__put(old);
	binary__put(new);
	bincache__unref(c2);
	bincache__unref(c);
	unlink(path);
}

/* dl_iterate_phdr: the main program's load address. */
static int main_base(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (info->dlpi_name[0])
		return 0;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

/* Symbols and their index: built once per build-id (a copy of the file
 * shares the first's), naming main where the loader put it, and freed
 * with the last entry that holds them. */
static void test_symbols(const char *dir)
{
	char pa[PATH_MAX], pb[PATH_MAX];
	struct bincache *c = NULL;
	struct binary *a = NULL, *b = NULL, *x = NULL;
	const struct bin_syms *sa = NULL, *sb = NULL;
	const struct symindex *ia = NULL, *ib = NULL;
	const struct symindex_sym *f;
	struct bincache_stats st;
	struct map ma, mb, m = { .start = 0x1000, .end = 0x2000, .prot = PROT_READ | PROT_EXEC, .ino = 1 };
	uint64_t base = 0;
	char path[64];

	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	copy_self(pa);
	copy_self(pb);
	ma = map_of(pa);
	mb = map_of(pb);
	CHECK_EQ_U64(dl_iterate_phdr(main_base, &base), 1);
	CHECK_EQ_U64(bincache__new(&c), 0);
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &ma, &a), 0);
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &mb, &b), 0);
	CHECK(a && b && a != b && binary__image(a) && binary__image(b));
	if (!a || !b || !binary__image(a) || !binary__image(b))
		goto out;
	CHECK_EQ_U64(binary__syms(a, &sa), 0);
	CHECK_EQ_U64(binary__syms(b, &sb), 0);
	CHECK(sa && sa == sb);	/* one build-id, one Dwfl */
	CHECK_EQ_U64(binary__refs(a), 2);	/* ours, and b's */
	CHECK_EQ_U64(binary__symindex(b, &ib), 0);
	CHECK_EQ_U64(binary__symindex(a, &ia), 0);
	CHECK_EQ_U64(binary__symindex(a, &ia), 0);
	CHECK(ia && ia == ib);
	bincache__stats(c, &st);
	CHECK_EQ_U64(st.opens, 2);
	CHECK_EQ_U64(st.symbols, 1);
	CHECK_EQ_U64(st.indexes, 1);
	CHECK_EQ_U64(st.live_indexes, 1);
	if (ia && sa) {
		f = symindex__lookup(ia, (uint64_t)(uintptr_t)main - base + 1 + sa->bias);
		CHECK(f && strcmp(f->name, "main") == 0);
		CHECK(f && f->value == (uint64_t)(uintptr_t)main - base + sa->bias);
	}
	binary__put(a);
	CHECK_EQ_U64(binary__refs(a), 1);
	binary__put(b);
	/* Past the bound, the entries nobody holds go, and what was built on
	 * them with them: b first (it held a), then a. */
	for (int i = 0; i < BINCACHE_MAX; i++) {
		snprintf(path, sizeof(path), "/nonexistent/faultline/%d", i);
		m.path = path;
		CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m, &x), 0);
		binary__put(x);
	}
	CHECK(bincache__find(c, &ma) == NULL && bincache__find(c, &mb) == NULL);
	bincache__stats(c, &st);
	CHECK_EQ_U64(st.indexes, 1);
	CHECK_EQ_U64(st.live_indexes, 0);
out:
	bincache__unref(c);
	unlink(pa);
	unlink(pb);
}

/* A recording's build-id is part of the key: only a file with it is
 * taken, below --symfs first. */
static void test_recorded(const char *dir)
{
	char pa[PATH_MAX], name[PATH_MAX];
	struct bincache *c = NULL, *c2 = NULL;
	struct binary *live = NULL, *rec = NULL, *wrong = NULL, *sym = NULL;
	const unsigned char *id = NULL;
	struct map ma, mr, mw, ms;
	size_t len;

	snprintf(pa, sizeof(pa), "%s/rec", dir);
	copy_self(pa);
	ma = map_of(pa);
	CHECK_EQ_U64(bincache__new(&c), 0);
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &ma, &live), 0);
	len = live ? binary__build_id(live, &id) : 0;
	CHECK(len > 0 && len <= sizeof(ma.build_id));
	if (!len || len > sizeof(ma.build_id))
		goto out;
	mr = ma;
	mr.build_id_size = (uint8_t)len;
	memcpy(mr.build_id, id, len);
	mw = mr;
	mw.build_id[0] ^= 0xff;
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &mr, &rec), 0);
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &mw, &wrong), 0);
	CHECK(rec && rec != live && binary__image(rec));
	CHECK(wrong && wrong != rec && !binary__image(wrong));
	CHECK_EQ_U64(bincache__opens(c), 2);
	/* Below --symfs: the recorded path /rec is DIR/rec. */
	CHECK_EQ_U64(bincache__new(&c2), 0);
	CHECK_EQ_U64(bincache__set_symfs(c2, dir), 0);
	ms = mr;
	snprintf(name, sizeof(name), "/rec");
	ms.path = name;
	ms.ino = 12345;	/* another host's */
	CHECK_EQ_U64(binary__get(c2, NULL, getpid(), &ms, &sym), 0);
	CHECK(sym && binary__image(sym));
	if (sym && binary__image(sym))
		CHECK_EQ_U64(binary__image(sym)->ino, ma.ino);
	binary__put(sym);
	bincache__unref(c2);
out:
	binary__put(wrong);
	binary__put(rec);
	binary__put(live);
	bincache__unref(c);
	unlink(pa);
}

static void test_fifo(const char *dir)
{
	char path[PATH_MAX];
	struct bincache *c = NULL;
	struct binary *b = NULL;
	struct map m;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	m = map_of(path);
	CHECK_EQ_U64(bincache__new(&c), 0);
	/* Opened, it would block here. */
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m, &b), 0);
	CHECK(b && !binary__image(b));
	binary__put(b);
	bincache__unref(c);
	unlink(path);
}

/* Entries nobody holds go once more than BINCACHE_MAX are kept. */
static void test_bound(void)
{
	struct bincache *c = NULL;
	struct binary *held = NULL, *b = NULL;
	char path[64];
	struct map m = { .start = 0x1000, .end = 0x2000, .prot = PROT_READ | PROT_EXEC, .ino = 1 };
	struct map m0 = m;

	CHECK_EQ_U64(bincache__new(&c), 0);
	m0.path = (char *)"/nonexistent/faultline/0";
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m0, &held), 0);
	for (int i = 1; i <= BINCACHE_MAX; i++) {
		snprintf(path, sizeof(path), "/nonexistent/faultline/%d", i);
		m.path = path;
		CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m, &b), 0);
		binary__put(b);
	}
	CHECK_EQ_U64(bincache__count(c), BINCACHE_MAX + 1);
	m.path = (char *)"/nonexistent/faultline/last";
	CHECK_EQ_U64(binary__get(c, NULL, getpid(), &m, &b), 0);
	/* The held one and the new one. */
	CHECK_EQ_U64(bincache__count(c), 2);
	CHECK(bincache__find(c, &m0) == held);
	snprintf(path, sizeof(path), "/nonexistent/faultline/%d", 1);
	m.path = path;
	CHECK(bincache__find(c, &m) == NULL);
	binary__put(b);
	binary__put(held);
	bincache__unref(c);
}

int main(void)
{
	char dir[] = "/tmp/test-binary.XXXXXX";

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_holds();
	test_shared();
	test_replaced(dir);
	test_symbols(dir);
	test_recorded(dir);
	test_fifo(dir);
	test_bound();
	rmdir(dir);
	return check_done("test-binary");
}
