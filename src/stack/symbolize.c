/*
 * symbolize: user addresses through libdw, JIT addresses through perf map
 * files, kernel addresses through /proc/kallsyms.
 *
 * User: mapping -> file offset (addr - start + pgoff) -> ELF vaddr through
 * the PT_LOAD holding that offset -> symbol.  Each binary gets its own Dwfl
 * with the file reported at its own first PT_LOAD, so Dwfl addresses are ELF
 * vaddrs (plus the module's bias, 0 but for odd alignments) whatever address
 * each process loaded it at: one handle serves every process that maps the
 * file.  libdw assembles the symbol table (the binary's .symtab, else its
 * separate debug file's, else .gnu_debugdata (MiniDebugInfo) merged with
 * .dynsym) and gives source lines and inlines from the same handle.
 *
 * Names are not looked up through dwfl_module_addrinfo(), which walks the
 * whole table per address: each binary's table is read once into a
 * symindex (symindex.h), which answers exactly what addrinfo would, by
 * binary search, with the best-known alias of that function (malloc, not
 * __libc_malloc).  Every answer is also remembered per (binary, address),
 * so a frame seen again costs one hash lookup.
 *
 * Separate debug files are opened only when libdw needs them: for names
 * when the binary has no .symtab, for source lines on the binary's first
 * srcline request (libdwfl loads DWARF, and inflates compressed sections,
 * only then).
 *
 * What is kept per binary lives in the session's one cache of open
 * binaries (binary.h), shared with the unwinder and the recorder: the file
 * as mappings name it (path, device, inode), opened once for all of them,
 * and built on it when first asked for, its Dwfl (shared by the entries
 * of one build-id: the same library seen through a container's
 * /proc/PID/root and through the host is parsed once), its separate debug
 * file (the cache's debug directories; --symfs) and its symbol index.
 * The symbolizer holds each entry it named a frame of for its life (the
 * names it hands out are the entries'), and keeps only what is its own:
 * the frame cache, a (binary's symbols, address) already named.
 *
 * JIT: a process's perf map file (jitmap.h), looked for once per process.
 *
 * Kernel: kallsyms text symbols, sorted, one per address (the best-named
 * alias), binary-searched (kallsyms.h); or a recording's.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "lib/file.h"
#include "lib/hashmap.h"
#include "stack/binary.h"
#include "stack/jitmap.h"
#include "stack/kallsyms.h"
#include "stack/symindex.h"
#include "stack/symbolize.h"

/* Interned strings (names of mappings that are not binaries: "[heap]";
 * JIT symbol names; joined source paths). */
struct name {
	struct name *next;
	char str[];
};

/* A process's JIT symbols, looked for once. */
struct jitproc {
	struct jitmap *map;		/* NULL when the process has no perf map file */
	const char *module;		/* interned basename of its path */
};

struct symbolizer {
	struct bincache *cache;		/* the session's binaries (binary.h) */
	struct hashmap *held;		/* struct binary * held -> 1: for the symbolizer's life */
	/* (symbols' id << 48 | Dwfl address) -> struct symindex_sym * of the answer,
	 * 0 for none.  Cleared when it grows past MAX_CACHED_FRAMES. */
	struct hashmap *frames;
	struct hashmap *names;		/* hash -> struct name * chain */
	struct hashmap *jitmaps;	/* pid -> struct jitproc * */
	struct kallsyms *kernel;		/* live or a recording's */
};

static const char kernel_module[] = "kernel.kallsyms";

/* About 50 MiB of cache at most; a frame not cached costs two binary
 * searches. */
enum { MAX_CACHED_FRAMES = 1 << 20 };
enum { FRAME_ID_BITS = 16, FRAME_ADDR_BITS = 48 };

int symbolizer__new(struct symbolizer **out)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	int err = -ENOMEM;

	if (!s)
		goto out;
	s->held = hashmap__new();
	s->names = hashmap__new();
	s->jitmaps = hashmap__new();
	s->frames = hashmap__new();
	if (!s->held || !s->names || !s->jitmaps || !s->frames)
		goto out;
	if ((err = bincache__new(&s->cache)))
		goto out;
	err = -ENOMEM;
	if ((err = kallsyms__new(&s->kernel)))
		goto out;
	*out = s;
	s = NULL;
	err = 0;
out:
	symbolizer__free(s);
	return err;
}

struct bincache *symbolizer__bincache(struct symbolizer *s)
{
	return s->cache;
}

void symbolizer__free(struct symbolizer *s)
{
	uint64_t key, value;
	size_t pos = 0;

	if (!s)
		return;
	if (s->held) {
		while (hashmap__next(s->held, &pos, &key, &value))
			binary__put((struct binary *)(uintptr_t)key);
	}
	pos = 0;
	if (s->jitmaps) {
		while (hashmap__next(s->jitmaps, &pos, &key, &value)) {
			struct jitproc *j = (struct jitproc *)(uintptr_t)value;

			jitmap__free(j->map);
			free(j);
		}
	}
	pos = 0;
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
	hashmap__free(s->frames);
	hashmap__free(s->jitmaps);
	hashmap__free(s->names);
	hashmap__free(s->held);
	bincache__unref(s->cache);
	kallsyms__free(s->kernel);
	free(s);
}

int symbolizer__set_symfs(struct symbolizer *s, const char *dir)
{
	return bincache__set_symfs(s->cache, dir);
}

int symbolizer__add_debug_dir(struct symbolizer *s, const char *dir)
{
	return bincache__add_debug_dir(s->cache, dir);
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

/* The cache's entry of @m, held for the symbolizer's life; NULL on ENOMEM.
 * A file one process could not give us (it exited, its root is elsewhere)
 * may open through another that maps it: the cache retries it for a
 * different pid, a bounded number of times (binary.h). */
static struct binary *get_binary(struct symbolizer *s, const struct addrspaces *as, pid_t pid,
				 const struct map *m)
{
	struct binary *bin = NULL;
	uint64_t one;

	if (binary__get(s->cache, as, pid, m, &bin))
		return NULL;
	if (hashmap__get(s->held, (uint64_t)(uintptr_t)bin, &one)) {
		binary__put(bin);	/* held already */
	} else if (hashmap__set(s->held, (uint64_t)(uintptr_t)bin, 1)) {
		binary__put(bin);
		return NULL;
	}
	return bin;
}

/* Name @addr from @pid's perf map file, read on first use and reread
 * when it grew since.  Return 0 (res untouched when not found) or
 * -ENOMEM. */
static int jit_lookup(struct symbolizer *s, pid_t pid, uint64_t addr, struct sym_result *res)
{
	struct jitproc *j = NULL;
	const char *name;
	uint64_t v, offset;
	int err = 0;

	if (pid <= 0)
		return 0;
	if (hashmap__get(s->jitmaps, (uint64_t)pid, &v)) {
		j = (struct jitproc *)(uintptr_t)v;
	} else {
		/* Known from now on, with or without a file: looked for once. */
		j = calloc(1, sizeof(*j));
		if (!j)
			return -ENOMEM;
		if (hashmap__set(s->jitmaps, (uint64_t)pid, (uint64_t)(uintptr_t)j)) {
			free(j);
			return -ENOMEM;
		}
		err = jitmap__new(pid, &j->map);
		if (err)
			return err == -ENOENT ? 0 : err;
		j->module = intern(s, path_base(jitmap__path(j->map)));
		if (!j->module) {
			jitmap__free(j->map);
			j->map = NULL;
			return -ENOMEM;
		}
	}
	if (!j->map)
		return 0;
	if ((err = jitmap__lookup(j->map, addr, &name, &offset)) || !name)
		return err;
	res->func = intern(s, name);
	if (!res->func)
		return -ENOMEM;
	res->offset = offset;
	res->module = j->module;
	return 0;
}

/* The symbols of the binary holding @addr of @pid, and the address in
 * its Dwfl; NULL (with *binp still set when a file mapping covers @addr)
 * when none. */
static const struct bin_syms *resolve(struct symbolizer *s, const struct addrspaces *as,
				      const struct map *m, pid_t pid, uint64_t addr, struct binary **binp,
				      GElf_Addr *daddr, int *err)
{
	const struct bin_syms *sy;
	struct binary *bin;
	uint64_t off;

	*binp = NULL;
	*err = 0;
	bin = get_binary(s, as, pid, m);
	if (!bin) {
		*err = -ENOMEM;
		return NULL;
	}
	*binp = bin;
	if ((*err = binary__syms(bin, &sy)))
		return NULL;
	off = addr - m->start + m->pgoff;
	for (size_t i = 0; i < sy->img->nloads; i++) {
		const struct bin_load *l = &sy->img->loads[i];

		if (off < l->offset || off - l->offset >= l->filesz)
			continue;
		*daddr = off - l->offset + l->vaddr + sy->bias;
		return sy;
	}
	return NULL;
}

/* The name of the symbol at @daddr of @bin's symbols @sy and @daddr's
 * offset in it; *name NULL when none covers it.  Return 0 or -ENOMEM. */
static int symbol_at(struct symbolizer *s, struct binary *bin, const struct bin_syms *sy, GElf_Addr daddr,
		     const char **name, uint64_t *offset)
{
	const struct symindex_sym *f;
	const struct symindex *index;
	bool cacheable = sy->id < (1ULL << FRAME_ID_BITS) && daddr < (1ULL << FRAME_ADDR_BITS);
	uint64_t key = sy->id << FRAME_ADDR_BITS | daddr, v;
	int err;

	*name = NULL;
	*offset = 0;
	if (cacheable && hashmap__get(s->frames, key, &v)) {
		f = (const struct symindex_sym *)(uintptr_t)v;
	} else {
		if ((err = binary__symindex(bin, &index)))
			return err == -ENOENT ? 0 : err;
		f = symindex__lookup(index, daddr);
		if (cacheable && hashmap__count(s->frames) >= MAX_CACHED_FRAMES) {
			struct hashmap *fresh = hashmap__new();

			/* Without memory for a new one, keep the old one as it is. */
			if (fresh) {
				hashmap__free(s->frames);
				s->frames = fresh;
			} else {
				cacheable = false;
			}
		}
		/* Not cached (no memory) costs only time. */
		if (cacheable)
			(void)hashmap__set(s->frames, key, (uint64_t)(uintptr_t)f);
	}
	if (f) {
		*name = f->name;
		*offset = daddr - f->value;
	}
	return 0;
}

int symbolizer__user(struct symbolizer *s, const struct addrspaces *as, pid_t pid, uint64_t addr,
		     struct sym_result *res)
{
	const struct map *m = addrspaces__find(as, pid, addr);
	const struct bin_syms *sy;
	struct binary *bin;
	GElf_Addr daddr = 0;
	int err;

	*res = (struct sym_result){ .addr = addr };
	/* Code in anonymous memory can only be named by a JIT's map file. */
	if (!m || map__anonymous(m)) {
		err = jit_lookup(s, pid, addr, res);
		if (err || res->func || !m)
			return err;
	}
	if (!m->path)
		return 0;
	/* [heap], [stack], [vdso] and other special mappings: a name, no file.
	 * (A file with inode 0 is still a file: MMAP2 records that carry a
	 * build-id instead of dev/inode look like that.) */
	if (m->path[0] != '/') {
		res->module = intern(s, m->path);
		return res->module ? 0 : -ENOMEM;
	}
	sy = resolve(s, as, m, pid, addr, &bin, &daddr, &err);
	if (err && err != -ENOENT)
		return err;
	/* The entry's own: valid while the symbolizer holds it. */
	res->module = path_base(binary__path(bin));
	return sy ? symbol_at(s, bin, sy, daddr, &res->func, &res->offset) : 0;
}

/* The name a reader knows a function DIE by, through abstract origins and
 * specifications: its source name (glibc's linkage names are internal
 * aliases such as __GI___libc_malloc), else its linkage name. */
static const char *die_function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_diename(die);

	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	return name;
}

/* @file as a full path: joined to the CU's compilation directory when
 * DWARF left it relative.  NULL on ENOMEM. */
static const char *full_source_path(struct symbolizer *s, Dwarf_Die *cudie, const char *file, int *err)
{
	Dwarf_Attribute attr;
	const char *comp_dir, *full;
	char *joined;

	if (!file || file[0] == '/')
		return file;
	comp_dir = cudie ? dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr)) : NULL;
	/* A relative compilation directory (Debian's -fdebug-prefix-map
	 * makes it "./malloc") adds nothing. */
	if (!comp_dir || comp_dir[0] != '/')
		return file;
	if (asprintf(&joined, "%s/%s", comp_dir, file) < 0) {
		*err = -ENOMEM;
		return NULL;
	}
	full = intern(s, joined);
	free(joined);
	if (!full)
		*err = -ENOMEM;
	return full;
}

static bool is_function_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

int symbolizer__srcline(struct symbolizer *s, const struct addrspaces *as, pid_t pid, uint64_t addr,
			struct sym_inline *frames, size_t max, size_t *n)
{
	const struct map *m = addrspaces__find(as, pid, addr);
	Dwarf_Die *scopes = NULL, *cudie, innermost;
	Dwarf_Files *files = NULL;
	Dwfl_Line *dline;
	const struct bin_syms *b;
	struct binary *bin;
	GElf_Addr daddr = 0;
	Dwarf_Addr bias = 0;
	const char *file = NULL;
	int line = 0, nscopes = 0, err = 0;

	*n = 0;
	if (!m || !m->path || m->path[0] != '/' || !max)
		return 0;
	b = resolve(s, as, m, pid, addr, &bin, &daddr, &err);
	if (!b)
		return err == -ENOENT ? 0 : err;
	cudie = dwfl_module_addrdie(b->mod, daddr, &bias);
	dline = dwfl_module_getsrc(b->mod, daddr);
	if (dline)
		file = dwfl_lineinfo(dline, NULL, &line, NULL, NULL, NULL);
	file = full_source_path(s, cudie, file, &err);
	if (err)
		goto out;
	/* The innermost scope at the address, then every scope around it as
	 * nested in the code (dwarf_getscopes alone would continue with the
	 * abstract definition's scopes past an inlined subroutine). */
	if (cudie && dwarf_getscopes(cudie, daddr - bias, &scopes) > 0) {
		innermost = scopes[0];
		free(scopes);
		scopes = NULL;
		nscopes = dwarf_getscopes_die(&innermost, &scopes);
		dwarf_getsrcfiles(cudie, &files, NULL);
	}
	for (int i = 0; i < nscopes && *n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute attr;
		Dwarf_Word val;

		if (!is_function_scope(tag))
			continue;
		frames[(*n)++] = (struct sym_inline){ die_function_name(&scopes[i]), file, line > 0 ? line : 0 };
		if (tag != DW_TAG_inlined_subroutine)
			break;
		/* The caller's position is where this one was inlined. */
		file = NULL;
		line = 0;
		if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &val) == 0)
			file = full_source_path(s, cudie, dwarf_filesrc(files, val, NULL, NULL), &err);
		if (err)
			goto out;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &val) == 0)
			line = (int)val;
	}
	/* No DWARF scopes (assembly, a CU without them) but a line: one frame
	 * named by the symbol table. */
	if (!*n && (file || line > 0)) {
		const char *name;
		uint64_t off;

		if ((err = symbol_at(s, bin, b, daddr, &name, &off)))
			goto out;
		frames[(*n)++] = (struct sym_inline){ name, file, line > 0 ? line : 0 };
	}
out:
	free(scopes);
	if (err)
		*n = 0;
	return err;
}

int symbolizer__kernel(struct symbolizer *s, uint64_t addr, struct sym_result *res)
{
	const struct ksym *k;
	int err;

	*res = (struct sym_result){ .addr = addr, .module = kernel_module };
	if ((err = kallsyms__find(s->kernel, addr, &k)) || !k)
		return err;
	res->func = k->name;
	res->offset = addr - k->addr;
	res->module = k->module ? k->module : kernel_module;
	return 0;
}

int symbolizer__kernel_sym(struct symbolizer *s, uint64_t addr, struct sym_ksym *out)
{
	const struct ksym *k;
	int err;

	*out = (struct sym_ksym){ 0 };
	if ((err = kallsyms__find(s->kernel, addr, &k)))
		return err;
	if (!k)
		return -ENOENT;
	*out = (struct sym_ksym){ k->addr, k->end, k->name, k->module };
	return 0;
}

void symbolizer__recorded_kernel(struct symbolizer *s)
{
	kallsyms__recorded(s->kernel);
}

int symbolizer__add_kernel_sym(struct symbolizer *s, const struct sym_ksym *k)
{
	return kallsyms__add(s->kernel, &(struct ksym){ k->start, k->end, k->name, k->module });
}

void symbolizer__on_kallsyms(struct symbolizer *s, void (*fn)(void *ctx), void *ctx)
{
	kallsyms__on_read(s->kernel, fn, ctx);
}

void sym_result__format(const struct sym_result *r, char *buf, size_t n)
{
	/* "[heap]" is bracketed already: "[unknown] [heap]", not "[[heap]]". */
	bool bracketed = r->module && r->module[0] == '[';
	const char *lb = bracketed ? "" : "[", *rb = bracketed ? "" : "]";

	/* Symbol versions ("__libc_start_main@@GLIBC_2.34") are not part of
	 * the name users know, nor of what BCC and perf print. */
	int flen = r->func ? (int)strcspn(r->func, "@") : 0;

	if (!n)
		return;
	if (r->func && r->module)
		snprintf(buf, n, "%.*s+0x%" PRIx64 " %s%s%s", flen, r->func, r->offset, lb, r->module,
			 rb);
	else if (r->func)
		snprintf(buf, n, "%.*s+0x%" PRIx64, flen, r->func, r->offset);
	else if (r->module)
		snprintf(buf, n, "[unknown] %s%s%s", lb, r->module, rb);
	else
		snprintf(buf, n, "[unknown]");
}
