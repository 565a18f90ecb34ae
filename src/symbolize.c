/*
 * symbolize: user addresses through libdw, kernel addresses through
 * /proc/kallsyms.
 *
 * User: mapping -> file offset (addr - start + pgoff) -> ELF vaddr through
 * the PT_LOAD holding that offset -> symbol.  Each binary gets its own Dwfl
 * with the file reported at base 0, so Dwfl addresses are ELF vaddrs (plus
 * the module's bias, non-zero only for prelinked objects) whatever address
 * each process loaded it at: one handle serves every process that maps the
 * file.  libdw rather than a hand-sorted symtab, because it already finds
 * separate debuginfo and .gnu_debugdata, and source lines and inlines come
 * later from the same handle.
 *
 * Kernel: kallsyms text symbols, sorted, one per address (the best-named
 * alias), binary-searched.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "lib/hashmap.h"
#include "symbolize.h"
#include "lib/file.h"

struct load {
	uint64_t offset, filesz, vaddr;
};

struct module {
	struct module *next_same;	/* same key hash */
	struct module *next_all;
	uint32_t maj, min;
	uint64_t ino;
	char *path;			/* key: the mapping's path */
	char *name;			/* basename, handed out in results */
	Dwfl *dwfl;			/* NULL when the binary could not be opened */
	Dwfl_Module *mod;
	GElf_Addr bias;
	struct load *loads;
	size_t nloads;
	struct hashmap *best;		/* function start -> symtab index of its best alias */
	pid_t failed_pid;		/* last pid for which opening failed */
	unsigned attempts;		/* opens tried, bounded: see get_module() */
};

/* Interned strings (names of mappings that are not binaries: "[heap]"). */
struct name {
	struct name *next;
	char str[];
};

struct ksym {
	uint64_t addr;
	const char *name;		/* into kbuf */
	const char *module;		/* "kernel.kallsyms" or into kbuf */
};

struct symbolizer {
	/* libdwfl keeps a pointer to its callbacks, and reads the default
	 * debuginfo path through a char **: both live here, so nothing is a
	 * global. */
	Dwfl_Callbacks dwfl_callbacks;
	char *debuginfo_path;		/* NULL: libdw's default search */
	struct hashmap *modules;	/* key hash -> struct module * chain */
	struct module *all;
	struct hashmap *names;		/* hash -> struct name * chain */
	bool kloaded;
	struct ksym *ksyms;
	size_t nksyms;
	char *kbuf;			/* /proc/kallsyms, tokenized in place */
};

static const char kernel_module[] = "kernel.kallsyms";

enum { MAX_OPEN_ATTEMPTS = 4 };

int symbolizer__new(struct symbolizer **out)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	int err = -ENOMEM;

	if (!s)
		goto out;
	/* Standard callbacks: separate debuginfo by build-id and
	 * .gnu_debuglink, as every elfutils tool finds it. */
	s->dwfl_callbacks.find_elf = dwfl_build_id_find_elf;
	s->dwfl_callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s->dwfl_callbacks.section_address = dwfl_offline_section_address;
	s->dwfl_callbacks.debuginfo_path = &s->debuginfo_path;
	s->modules = hashmap__new();
	s->names = hashmap__new();
	if (!s->modules || !s->names)
		goto out;
	*out = s;
	s = NULL;
	err = 0;
out:
	symbolizer__free(s);
	return err;
}

static void module__free(struct module *m)
{
	if (m->dwfl)
		dwfl_end(m->dwfl);
	hashmap__free(m->best);
	free(m->loads);
	free(m->name);
	free(m->path);
	free(m);
}

void symbolizer__free(struct symbolizer *s)
{
	uint64_t key, value;
	size_t pos = 0;

	if (!s)
		return;
	while (s->all) {
		struct module *next = s->all->next_all;

		module__free(s->all);
		s->all = next;
	}
	if (s->names) {
		while (hashmap__next(s->names, &pos, &key, &value)) {
			struct name *n = (struct name *)(uintptr_t)value;

			while (n) {
				struct name *next = n->next;

				free(n);
				n = next;
			}
		}
	}
	hashmap__free(s->names);
	hashmap__free(s->modules);
	free(s->ksyms);
	free(s->kbuf);
	free(s);
}

/* Interned copy of @str, valid for the symbolizer's life; NULL on ENOMEM. */
static const char *intern(struct symbolizer *s, const char *str)
{
	size_t len = strlen(str);
	uint64_t h = hash_bytes(str, len), v;
	struct name *n = NULL, *head = NULL;

	if (hashmap__get(s->names, h, &v))
		head = (struct name *)(uintptr_t)v;
	for (n = head; n; n = n->next)
		if (strcmp(n->str, str) == 0)
			return n->str;
	n = malloc(sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	memcpy(n->str, str, len + 1);
	n->next = head;
	if (hashmap__set(s->names, h, (uint64_t)(uintptr_t)n)) {
		free(n);
		return NULL;
	}
	return n->str;
}

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static uint64_t module_key(const struct map *m)
{
	uint64_t id[3] = { m->maj, m->min, m->ino };

	return hash_bytes(m->path, strlen(m->path)) ^ (hash_bytes(id, sizeof(id)) * 31);
}

/* Which of two aliases at one address names it best, as a reader knows it:
 * fewer leading underscores (malloc over __libc_malloc, brk over __brk),
 * then global or weak over local, then the shorter name (mmap over mmap64),
 * else the first seen. */
static bool better_alias(bool global_a, const char *a, bool global_b, const char *b)
{
	size_t ua = strspn(a, "_"), ub = strspn(b, "_");

	if (ua != ub)
		return ua < ub;
	if (global_a != global_b)
		return global_a;
	return strlen(a) < strlen(b);
}

/* Open @path if it is the mapping's file: a candidate whose inode is not
 * the mapping's is another file (a recycled pid, a replaced library). */
static int open_if_same(const char *path, const struct map *m)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (!m->ino || st.st_ino == m->ino))
		return fd;
	close(fd);
	return -1;
}

/* Open the file behind @m as process @pid sees it; -1 when no way works.
 * @opened (PATH_MAX bytes) gets the path that worked. */
static int open_mapped_file(pid_t pid, const struct map *m, char *opened)
{
	int fd = -1;

	if (pid > 0 && !m->deleted) {
		snprintf(opened, PATH_MAX, "/proc/%d/root%s", (int)pid, m->path);
		fd = open_if_same(opened, m);
	}
	if (fd < 0 && pid > 0) {
		snprintf(opened, PATH_MAX, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start,
			 m->end);
		fd = open_if_same(opened, m);
	}
	if (fd < 0 && !m->deleted) {
		snprintf(opened, PATH_MAX, "%s", m->path);
		fd = open_if_same(opened, m);
	}
	return fd;
}

static bool is_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_size > 0;
}

static bool is_global(const GElf_Sym *sym)
{
	return GELF_ST_BIND(sym->st_info) != STB_LOCAL;
}

/* libdw answers with whichever alias its table holds first (__libc_malloc
 * for malloc); note the best-named function symbol of every start address
 * once, so lookups can print the name people know. */
static int module__index_aliases(struct module *mod)
{
	int n = dwfl_module_getsymtab(mod->mod);

	mod->best = hashmap__new();
	if (!mod->best)
		return -ENOMEM;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym, osym;
		GElf_Addr addr, oaddr;
		const char *name, *oname;
		uint64_t idx;

		name = dwfl_module_getsym_info(mod->mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name || !*name || !is_function(&sym))
			continue;
		if (hashmap__get(mod->best, addr, &idx)) {
			oname = dwfl_module_getsym_info(mod->mod, (int)idx, &osym, &oaddr, NULL, NULL, NULL);
			if (oname && !better_alias(is_global(&sym), name, is_global(&osym), oname))
				continue;
		}
		if (hashmap__set(mod->best, addr, (uint64_t)i))
			return -ENOMEM;
	}
	return 0;
}

/* Report the binary to a fresh Dwfl and note its PT_LOADs.  Failure is not
 * an error: the module stays without symbols. */
static void module__load(struct module *mod, const Dwfl_Callbacks *cb, pid_t pid, const struct map *m)
{
	char opened[PATH_MAX];
	GElf_Ehdr ehdr;
	size_t nph;
	Elf *elf;
	int fd;

	mod->failed_pid = pid;
	mod->attempts++;
	fd = open_mapped_file(pid, m, opened);
	if (fd < 0)
		return;
	mod->dwfl = dwfl_begin(cb);
	if (!mod->dwfl)
		goto fail;
	dwfl_report_begin(mod->dwfl);
	/* base 0: Dwfl addresses are the file's own vaddrs. */
	mod->mod = dwfl_report_elf(mod->dwfl, mod->name, opened, fd, 0, false);
	if (!mod->mod)
		goto fail;
	fd = -1;	/* consumed */
	if (dwfl_report_end(mod->dwfl, NULL, NULL) != 0)
		goto fail;
	elf = dwfl_module_getelf(mod->mod, &mod->bias);
	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &nph) != 0)
		goto fail;
	mod->loads = calloc(nph ? nph : 1, sizeof(*mod->loads));
	if (!mod->loads)
		goto fail;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		mod->loads[mod->nloads++] = (struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	if (module__index_aliases(mod))
		goto fail;
	mod->failed_pid = 0;
	return;
fail:
	if (fd >= 0)
		close(fd);
	if (mod->dwfl)
		dwfl_end(mod->dwfl);
	mod->dwfl = NULL;
	mod->mod = NULL;
	free(mod->loads);
	mod->loads = NULL;
	mod->nloads = 0;
	hashmap__free(mod->best);
	mod->best = NULL;
}

/* The cached module for @m, loading it on first use; NULL on ENOMEM.  A
 * file one process could not give us (it exited, its root is elsewhere)
 * may open through another that maps it, so a failed module is retried for
 * a different pid, a bounded number of times so that a file nobody can open
 * does not cost an open per frame. */
static struct module *get_module(struct symbolizer *s, pid_t pid, const struct map *m)
{
	uint64_t key = module_key(m), v;
	struct module *head = NULL, *mod;

	if (hashmap__get(s->modules, key, &v))
		head = (struct module *)(uintptr_t)v;
	for (mod = head; mod; mod = mod->next_same) {
		if (mod->ino == m->ino && mod->maj == m->maj && mod->min == m->min &&
		    strcmp(mod->path, m->path) == 0) {
			if (!mod->dwfl && mod->failed_pid != pid && mod->attempts < MAX_OPEN_ATTEMPTS)
				module__load(mod, &s->dwfl_callbacks, pid, m);
			return mod;
		}
	}
	mod = calloc(1, sizeof(*mod));
	if (!mod)
		return NULL;
	mod->maj = m->maj;
	mod->min = m->min;
	mod->ino = m->ino;
	mod->path = strdup(m->path);
	mod->name = strdup(basename_of(m->path));
	if (!mod->path || !mod->name || hashmap__set(s->modules, key, (uint64_t)(uintptr_t)mod)) {
		module__free(mod);
		return NULL;
	}
	mod->next_same = head;
	mod->next_all = s->all;
	s->all = mod;
	module__load(mod, &s->dwfl_callbacks, pid, m);
	return mod;
}

int symbolizer__user(struct symbolizer *s, const struct addrspaces *as, pid_t pid, uint64_t addr,
		     struct sym_result *res)
{
	const struct map *m = addrspaces__find(as, pid, addr);
	struct module *mod;
	uint64_t off;

	*res = (struct sym_result){ .addr = addr };
	if (!m || !m->path)
		return 0;
	/* [heap], [stack], [vdso] and other special mappings: a name, no file.
	 * (A file with inode 0 is still a file: MMAP2 records that carry a
	 * build-id instead of dev/inode look like that.) */
	if (m->path[0] != '/') {
		res->module = intern(s, m->path);
		return res->module ? 0 : -ENOMEM;
	}
	mod = get_module(s, pid, m);
	if (!mod)
		return -ENOMEM;
	res->module = mod->name;
	if (!mod->mod)
		return 0;
	off = addr - m->start + m->pgoff;
	for (size_t i = 0; i < mod->nloads; i++) {
		const struct load *l = &mod->loads[i];
		GElf_Off symoff = 0;
		GElf_Sym sym;
		const char *name;

		if (off < l->offset || off - l->offset >= l->filesz)
			continue;
		GElf_Addr daddr = off - l->offset + l->vaddr + mod->bias;
		uint64_t idx;

		name = dwfl_module_addrinfo(mod->mod, daddr, &symoff, &sym, NULL, NULL, NULL);
		if (name && *name) {
			if (hashmap__get(mod->best, daddr - symoff, &idx)) {
				GElf_Addr start;
				const char *alias = dwfl_module_getsym_info(mod->mod, (int)idx, &sym, &start,
									    NULL, NULL, NULL);

				if (alias)
					name = alias;
			}
			res->func = name;
			res->offset = symoff;
		}
		break;
	}
	return 0;
}

struct kline {
	struct ksym sym;
	size_t order;
	char type;
};

static int cmp_kline(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* All of /proc/kallsyms (a few MiB; its size reads as 0). */
static int read_kallsyms(char **out)
{
	return read_file("/proc/kallsyms", 256u << 20, out, NULL);
}

/* Parse kallsyms once.  An unreadable file leaves no symbols, which makes
 * every kernel address unknown: not an error for a report. */
static int load_kallsyms(struct symbolizer *s)
{
	struct kline *lines = NULL, *nl;
	size_t n = 0, cap = 0, out = 0;
	char *p, *save = NULL;
	int err;

	s->kloaded = true;
	err = read_kallsyms(&s->kbuf);
	if (err)
		return err == -ENOMEM ? err : 0;
	for (p = strtok_r(s->kbuf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		char *addr_end, *name, *mod, *tab;
		uint64_t addr = strtoull(p, &addr_end, 16);
		char type;

		if (addr_end == p || addr_end[0] != ' ' || !addr_end[1] || addr_end[2] != ' ')
			continue;
		type = addr_end[1];
		if (!addr || (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		name = addr_end + 3;
		mod = NULL;
		tab = strchr(name, '\t');
		if (tab) {
			*tab = '\0';
			mod = tab + 1;
			if (*mod == '[') {
				mod++;
				mod[strcspn(mod, "]")] = '\0';
			}
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			nl = realloc(lines, cap * sizeof(*lines));
			if (!nl) {
				err = -ENOMEM;
				goto out;
			}
			lines = nl;
		}
		lines[n] = (struct kline){ { addr, name, mod ? mod : kernel_module }, n, type };
		n++;
	}
	if (!n)
		goto out;
	qsort(lines, n, sizeof(*lines), cmp_kline);
	s->ksyms = malloc(n * sizeof(*s->ksyms));
	if (!s->ksyms) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0, j; i < n; i = j) {
		size_t best = i;

		for (j = i + 1; j < n && lines[j].sym.addr == lines[i].sym.addr; j++)
			if (better_alias(lines[j].type == 'T' || lines[j].type == 'W', lines[j].sym.name,
					 lines[best].type == 'T' || lines[best].type == 'W', lines[best].sym.name))
				best = j;
		s->ksyms[out++] = lines[best].sym;
	}
	s->nksyms = out;
out:
	free(lines);
	return err;
}

int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct sym_result *res)
{
	size_t lo = 0, hi;
	int err;

	*res = (struct sym_result){ .addr = addr, .module = kernel_module };
	if (!s->kloaded && (err = load_kallsyms(s)))
		return err;
	/* Last symbol at or below addr. */
	hi = s->nksyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	res->func = s->ksyms[lo - 1].name;
	res->offset = addr - s->ksyms[lo - 1].addr;
	res->module = s->ksyms[lo - 1].module;
	return 0;
}

void sym_result__format(const struct sym_result *r, char *buf, size_t n)
{
	/* "[heap]" is bracketed already: "[unknown] [heap]", not "[[heap]]". */
	bool bracketed = r->module && r->module[0] == '[';
	const char *lb = bracketed ? "" : "[", *rb = bracketed ? "" : "]";

	if (!n)
		return;
	if (r->func && r->module)
		snprintf(buf, n, "%s+0x%" PRIx64 " %s%s%s", r->func, r->offset, lb, r->module, rb);
	else if (r->func)
		snprintf(buf, n, "%s+0x%" PRIx64, r->func, r->offset);
	else if (r->module)
		snprintf(buf, n, "[unknown] %s%s%s", lb, r->module, rb);
	else
		snprintf(buf, n, "[unknown]");
}
