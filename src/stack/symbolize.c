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
 * Three levels of cache.  A "mapfile" is a file as mappings name it (path,
 * device, inode): an entry of the session's one cache of open binaries
 * (binary.h), shared with the unwinder, which opens it once for both; the
 * lookup every frame makes, without a system call.  A "symfile" is a Dwfl
 * over that file's Elf (its symbol index, its separate debug file), keyed
 * by build-id when it has one: the same library seen through a container's
 * /proc/PID/root and through the host, or two copies of one file, is
 * parsed once.  A "frame" is a (symfile, address) already named.
 *
 * Separate debug info is found by our own search (debuginfo.h says why)
 * rather than libdwfl's standard one.  Only the dwz alt file, whose lookup
 * depends on state libdwfl keeps to itself, is left to libdwfl's standard
 * search.
 *
 * JIT: a process's perf map file (jitmap.h), looked for once per process.
 *
 * Kernel: kallsyms text symbols, sorted, one per address (the best-named
 * alias), binary-searched (kallsyms.h); or a recording's.
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

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "lib/file.h"
#include "lib/hashmap.h"
#include "stack/binary.h"
#include "stack/debuginfo.h"
#include "stack/jitmap.h"
#include "stack/kallsyms.h"
#include "stack/symindex.h"
#include "stack/symbolize.h"
#include "stack/mapped-file.h"

/* One binary's symbols: a Dwfl over the cache's Elf, shared by every
 * mapped file of its build-id. */
struct symfile {
	struct symfile *next_all;
	struct symfile *next_same;	/* same build-id hash */
	struct symbolizer *s;		/* for the debug directories */
	struct binary *bin;		/* held: the file it was built on */
	const struct bin_image *img;	/* bin's */
	unsigned char *build_id;	/* NULL when the file has none */
	size_t build_id_len;
	/* Where to look for its debug file: the root it was opened in
	 * (img->root) and the mapping's path there.  Its own .gnu_debuglink,
	 * to tell the main debug lookup from the dwz alt-file lookup that
	 * comes through the same callback. */
	const char *path;
	char *debuglink;
	GElf_Word debuglink_crc;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	struct symindex *index;		/* NULL until the first name is asked for */
	uint64_t id;			/* 1, 2, ...: in frame cache keys */
};

/* A mapped file as mappings name it: the cache's entry. */
struct mapfile {
	struct binary *bin;		/* held */
	char *name;			/* basename, handed out in results */
	struct symfile *sym;		/* NULL until its file opened and was usable */
	bool built;			/* sym was tried on the opened file */
};

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
	/* libdwfl keeps a pointer to its callbacks, and reads the debuginfo
	 * path of its standard search through a char **: both live here, so
	 * nothing is a global. */
	Dwfl_Callbacks dwfl_callbacks;
	char *debuginfo_path;		/* for the dwz alt-file lookup only */
	char **debug_dirs;		/* extra directories, searched before /usr/lib/debug */
	size_t ndebug_dirs;
	char *symfs;			/* --symfs: a root holding a recording's binaries */
	struct bincache *cache;		/* the session's binaries (binary.h) */
	struct hashmap *mapfiles;	/* struct binary * -> struct mapfile * */
	struct hashmap *symfiles;	/* build-id hash -> struct symfile * chain */
	struct symfile *all_symfiles;
	uint64_t nsymfiles;
	/* (binary id << 48 | Dwfl address) -> struct symindex_sym * of the answer,
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

static int find_debuginfo(Dwfl_Module *dmod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc, char **debug_name);
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp);

int symbolizer__new(struct symbolizer **out)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	int err = -ENOMEM;

	if (!s)
		goto out;
	/* We read build-ids with libelf before libdwfl (which does this
	 * itself) is ever called. */
	elf_version(EV_CURRENT);
	s->dwfl_callbacks.find_elf = find_elf;
	s->dwfl_callbacks.find_debuginfo = find_debuginfo;
	s->dwfl_callbacks.section_address = dwfl_offline_section_address;
	s->dwfl_callbacks.debuginfo_path = &s->debuginfo_path;
	s->mapfiles = hashmap__new();
	s->symfiles = hashmap__new();
	s->names = hashmap__new();
	s->jitmaps = hashmap__new();
	s->frames = hashmap__new();
	if (!s->mapfiles || !s->symfiles || !s->names || !s->jitmaps || !s->frames)
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

static void symfile__free(struct symfile *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);	/* before the Elf it holds a duplicate of */
	symindex__free(f->index);
	free(f->debuglink);
	free(f->build_id);
	binary__put(f->bin);
	free(f);
}

static void mapfile__free(struct mapfile *mf)
{
	binary__put(mf->bin);
	free(mf->name);
	free(mf);
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
	if (s->mapfiles) {
		while (hashmap__next(s->mapfiles, &pos, &key, &value))
			mapfile__free((struct mapfile *)(uintptr_t)value);
	}
	while (s->all_symfiles) {
		struct symfile *next = s->all_symfiles->next_all;

		symfile__free(s->all_symfiles);
		s->all_symfiles = next;
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
	for (size_t i = 0; i < s->ndebug_dirs; i++)
		free(s->debug_dirs[i]);
	free(s->debug_dirs);
	free(s->symfs);
	free(s->debuginfo_path);
	hashmap__free(s->frames);
	hashmap__free(s->jitmaps);
	hashmap__free(s->names);
	hashmap__free(s->symfiles);
	hashmap__free(s->mapfiles);
	bincache__unref(s->cache);
	kallsyms__free(s->kernel);
	free(s);
}

int symbolizer__set_symfs(struct symbolizer *s, const char *dir)
{
	char debug[PATH_MAX];
	int err;

	if (!dir || !dir[0])
		return -EINVAL;
	free(s->symfs);
	s->symfs = strdup(dir);
	if (!s->symfs)
		return -ENOMEM;
	/* Its debug files first, as perf looks below --symfs. */
	snprintf(debug, sizeof(debug), "%s/usr/lib/debug", dir);
	err = symbolizer__add_debug_dir(s, debug);
	return err == -EINVAL ? 0 : err;
}

int symbolizer__add_debug_dir(struct symbolizer *s, const char *dir)
{
	size_t len = dir ? strlen(dir) : 0;
	char **dirs = NULL, *copy = NULL, *path = NULL;
	int err = -EINVAL;

	/* libdwfl's path syntax separates directories with ':'. */
	if (!len || strchr(dir, ':'))
		goto out;
	err = -ENOMEM;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	copy = strndup(dir, len);
	if (!copy)
		goto out;
	dirs = realloc(s->debug_dirs, (s->ndebug_dirs + 1) * sizeof(*dirs));
	if (!dirs)
		goto out;
	s->debug_dirs = dirs;
	/* The standard search (dwz alt files) sees them too. */
	if (asprintf(&path, "%s:%s", s->debuginfo_path ? s->debuginfo_path : ":.debug:/usr/lib/debug",
		     copy) < 0) {
		path = NULL;
		goto out;
	}
	free(s->debuginfo_path);
	s->debuginfo_path = path;
	s->debug_dirs[s->ndebug_dirs++] = copy;
	copy = NULL;
	err = 0;
out:
	free(copy);
	return err;
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

/* libdwfl's find_debuginfo callback.  It comes twice per module at most:
 * for the debug file (with the binary's own .gnu_debuglink, if any), and
 * for the dwz alt file named by the DWARF's .gnu_debugaltlink. */
static int find_debuginfo(Dwfl_Module *dmod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc, char **debug_name)
{
	const struct symfile *b = *userdata;
	struct debuginfo_query q;
	int fd;

	if (!b)
		return -1;
	if (debuglink && (!b->debuglink || strcmp(debuglink, b->debuglink) != 0 || crc != b->debuglink_crc))
		return dwfl_standard_find_debuginfo(dmod, userdata, modname, base, file_name, debuglink, crc,
						    debug_name);
	q = (struct debuginfo_query){ b->s->debug_dirs, b->s->ndebug_dirs, b->img->root, b->path,
				      b->build_id, b->build_id_len, b->img->dev, b->img->ino };
	fd = debuginfo__find(&q, debuglink, crc, debug_name);
	return fd >= 0 ? fd : -1;
}

/* libdwfl's find_elf callback: the cache's Elf of the module's file (a
 * counted duplicate, ended with the module), never a file of its own. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	const struct symfile *f = *userdata;

	if (!f)
		return -1;
	*elfp = elf_begin(-1, ELF_C_READ_MMAP, f->img->elf);
	if (*elfp && f->img->opened[0])
		*file_name = strdup(f->img->opened);
	return -1;
}

/* The symbols already known for this build-id, if any. */
static struct symfile *find_symfile(struct symbolizer *s, const unsigned char *id, size_t len)
{
	uint64_t v;

	if (!hashmap__get(s->symfiles, hash_bytes(id, len), &v))
		return NULL;
	for (struct symfile *f = (struct symfile *)(uintptr_t)v; f; f = f->next_same)
		if (f->build_id_len == len && memcmp(f->build_id, id, len) == 0)
			return f;
	return NULL;
}

/* A Dwfl over @bin's Elf, the file reported at its own vaddrs, and its
 * debuglink noted.  NULL when it is not usable (or on ENOMEM: the frame is
 * then as unknown as a stripped one). */
static struct symfile *symfile__new(struct symbolizer *s, struct binary *bin, const struct map *m,
				    const unsigned char *id, size_t id_len)
{
	const struct bin_image *img = binary__image(bin);
	struct symfile *f = calloc(1, sizeof(*f));
	const char *link;
	GElf_Word crc = 0;
	void **userdata;

	if (!f)
		return NULL;
	f->s = s;
	f->bin = binary__hold(bin);
	f->img = img;
	f->path = binary__path(bin);
	if (id_len) {
		f->build_id = malloc(id_len);
		if (!f->build_id)
			goto fail;
		memcpy(f->build_id, id, id_len);
		f->build_id_len = id_len;
	}
	link = dwelf_elf_gnu_debuglink(img->elf, &crc);
	if (link) {
		f->debuglink = strdup(link);
		if (!f->debuglink)
			goto fail;
		f->debuglink_crc = crc;
	}
	/* No PT_LOAD: no address of it can be named. */
	if (!img->nloads)
		goto fail;
	f->dwfl = dwfl_begin(&s->dwfl_callbacks);
	if (!f->dwfl)
		goto fail;
	dwfl_report_begin(f->dwfl);
	/* At its first PT_LOAD's vaddr, aligned: Dwfl addresses are the
	 * file's own vaddrs, whatever address each process loaded it at. */
	f->mod = dwfl_report_module(f->dwfl, path_base(m->path), img->lo, img->hi);
	if (!f->mod)
		goto fail;
	/* Before anything asks for the Elf or symbols: find_elf and the
	 * debug search need it. */
	dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
	if (dwfl_report_end(f->dwfl, NULL, NULL) != 0 || !dwfl_module_getelf(f->mod, &f->bias))
		goto fail;
	if (id_len) {
		uint64_t h = hash_bytes(id, id_len), v;

		if (hashmap__get(s->symfiles, h, &v))
			f->next_same = (struct symfile *)(uintptr_t)v;
		if (hashmap__set(s->symfiles, h, (uint64_t)(uintptr_t)f))
			goto fail;
	}
	f->next_all = s->all_symfiles;
	s->all_symfiles = f;
	f->id = ++s->nsymfiles;
	return f;
fail:
	symfile__free(f);
	return NULL;
}

/* @fd's ELF build-id is @m's recorded one (or @m has none recorded). */
static bool same_build_id(int fd, const struct map *m)
{
	const unsigned char *id = NULL;
	Elf *elf;
	bool same;

	if (!m->build_id_size)
		return true;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	same = elf && debuginfo__build_id(elf, &id) == m->build_id_size &&
	       !memcmp(id, m->build_id, m->build_id_size);
	if (elf)
		elf_end(elf);
	return same;
}

static int open_checked(const char *path, const struct map *m, char *opened, size_t n)
{
	int fd = open_regular(path, 0);

	if (fd < 0)
		return -1;
	if (!same_build_id(fd, m)) {
		close(fd);
		return -1;
	}
	snprintf(opened, n, "%s", path);
	return fd;
}

/*
 * A recording's binary, on this or another host: below --symfs first (the
 * user said where they are; the recorded build-id, when there is one,
 * must match), else where a live process's would be, else a debug file
 * named by the recorded build-id (DIR/.build-id/xx/rest.debug: it holds
 * the symbols and the program headers), under --symfs, each debug
 * directory, then /usr/lib/debug.  -1 when none.
 */
static int open_recorded(struct symbolizer *s, const struct addrspaces *as, pid_t pid,
			 const struct map *m, char *opened, size_t n)
{
	char path[PATH_MAX], hex[2 * sizeof(m->build_id) + 1];
	int fd;

	if (s->symfs && snprintf(path, sizeof(path), "%s%s", s->symfs, m->path) < (int)sizeof(path) &&
	    (fd = open_checked(path, m, opened, n)) >= 0)
		return fd;
	fd = mapped_file__open(as, pid, m, opened, n);
	if (fd >= 0 && same_build_id(fd, m))
		return fd;
	if (fd >= 0)
		close(fd);
	if (!m->build_id_size)
		return -1;
	for (size_t i = 0; i < m->build_id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	for (size_t d = 0; d <= s->ndebug_dirs; d++) {
		const char *dir = d < s->ndebug_dirs ? s->debug_dirs[d] : "/usr/lib/debug";

		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
		if ((fd = open_checked(path, m, opened, n)) >= 0)
			return fd;
	}
	return -1;
}

/* The cache's opener: a recording's binaries are looked for as
 * open_recorded() says, a live process's the one way (mapped-file.h). */
static int open_mapped(void *ctx, const struct addrspaces *as, pid_t pid, const struct map *m,
		       char *opened, size_t n)
{
	struct symbolizer *s = ctx;

	if (m->build_id_size || s->symfs)
		return open_recorded(s, as, pid, m, opened, n);
	return mapped_file__open(as, pid, m, opened, n);
}

/* Find or make the symbols of @mf's file once it is open. */
static void mapfile__load(struct symbolizer *s, struct mapfile *mf, const struct map *m)
{
	const struct bin_image *img = binary__image(mf->bin);
	const unsigned char *id = NULL;
	size_t id_len;

	if (!img || mf->built)
		return;
	mf->built = true;
	id_len = debuginfo__build_id(img->elf, &id);
	if (id_len && (mf->sym = find_symfile(s, id, id_len)))
		return;
	mf->sym = symfile__new(s, mf->bin, m, id, id_len);
}

/* The mapfile for @m, its file opened on first use; NULL on ENOMEM.  A
 * file one process could not give us (it exited, its root is elsewhere)
 * may open through another that maps it: the cache retries it for a
 * different pid, a bounded number of times (binary.h). */
static struct mapfile *get_mapfile(struct symbolizer *s, const struct addrspaces *as, pid_t pid,
				   const struct map *m)
{
	struct binary *bin = bincache__find(s->cache, m);
	struct mapfile *mf;
	uint64_t v;

	if (bin && hashmap__get(s->mapfiles, (uint64_t)(uintptr_t)bin, &v)) {
		mf = (struct mapfile *)(uintptr_t)v;
		if (!mf->built) {
			if (binary__get(s->cache, as, pid, m, open_mapped, s, &bin))
				return NULL;
			binary__put(bin);	/* held by mf already */
			mapfile__load(s, mf, m);
		}
		return mf;
	}
	mf = calloc(1, sizeof(*mf));
	if (!mf)
		return NULL;
	if (binary__get(s->cache, as, pid, m, open_mapped, s, &mf->bin)) {
		free(mf);
		return NULL;
	}
	mf->name = strdup(path_base(m->path));
	if (!mf->name || hashmap__set(s->mapfiles, (uint64_t)(uintptr_t)mf->bin, (uint64_t)(uintptr_t)mf)) {
		mapfile__free(mf);
		return NULL;
	}
	mapfile__load(s, mf, m);
	return mf;
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

/* The symbols of the binary holding @addr of @pid, and the address in its Dwfl; NULL
 * (with *mfp still set when a file mapping covers @addr) when none. */
static struct symfile *resolve(struct symbolizer *s, const struct addrspaces *as,
			      const struct map *m, pid_t pid, uint64_t addr, struct mapfile **mfp,
			      GElf_Addr *daddr, int *err)
{
	struct mapfile *mf;
	uint64_t off;

	*mfp = NULL;
	*err = 0;
	mf = get_mapfile(s, as, pid, m);
	if (!mf) {
		*err = -ENOMEM;
		return NULL;
	}
	*mfp = mf;
	if (!mf->sym)
		return NULL;
	off = addr - m->start + m->pgoff;
	for (size_t i = 0; i < mf->sym->img->nloads; i++) {
		const struct bin_load *l = &mf->sym->img->loads[i];

		if (off < l->offset || off - l->offset >= l->filesz)
			continue;
		*daddr = off - l->offset + l->vaddr + mf->sym->bias;
		return mf->sym;
	}
	return NULL;
}

/* The name of the symbol at @daddr of @b and @daddr's offset in it;
 * *name NULL when none covers it.  Return 0 or -ENOMEM. */
static int symfile__symbol(struct symbolizer *s, struct symfile *b, GElf_Addr daddr, const char **name,
			  uint64_t *offset)
{
	const struct symindex_sym *f;
	bool cacheable = b->id < (1ULL << FRAME_ID_BITS) && daddr < (1ULL << FRAME_ADDR_BITS);
	uint64_t key = b->id << FRAME_ADDR_BITS | daddr, v;
	int err;

	*name = NULL;
	*offset = 0;
	if (cacheable && hashmap__get(s->frames, key, &v)) {
		f = (const struct symindex_sym *)(uintptr_t)v;
	} else {
		if (!b->index && (err = symindex__build(b->mod, &b->index)))
			return err;
		f = symindex__lookup(b->index, daddr);
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
	struct mapfile *mf;
	struct symfile *b;
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
	b = resolve(s, as, m, pid, addr, &mf, &daddr, &err);
	if (err)
		return err;
	res->module = mf->name;
	return b ? symfile__symbol(s, b, daddr, &res->func, &res->offset) : 0;
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
	struct mapfile *mf;
	struct symfile *b;
	GElf_Addr daddr = 0;
	Dwarf_Addr bias = 0;
	const char *file = NULL;
	int line = 0, nscopes = 0, err = 0;

	*n = 0;
	if (!m || !m->path || m->path[0] != '/' || !max)
		return 0;
	b = resolve(s, as, m, pid, addr, &mf, &daddr, &err);
	if (!b)
		return err;
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

		if ((err = symfile__symbol(s, b, daddr, &name, &off)))
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
