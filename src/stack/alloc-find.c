/*
 * alloc-find: the object that provides a process's malloc.  See
 * alloc-find.h.
 *
 * Each object is opened once, its dynamic section and symbol tables read
 * in one pass (a few ms for libc: a session does this once).  The search
 * stops at the first object that defines malloc, so a dynamically linked
 * glibc program reads its executable and libc.so.6, nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "lib/grow.h"
#include "stack/addrspace.h"
#include "stack/alloc-find.h"
#include "stack/elf-sym.h"

/* Objects looked at, at most: the libraries of a big program (a browser
 * maps ~150). */
#define MAX_OBJS 512

#if defined(__x86_64__)
#define CACHE_FLAGS 0x0303	/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define CACHE_FLAGS 0x0a03	/* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#endif

/* Symbols that tell an allocator, in the order they are trusted. */
static const struct {
	const char *sym, *spec, *name;
} kinds[] = {
	{ "tc_malloc", "tcmalloc", "tcmalloc" },
	{ "mi_malloc", "mimalloc", "mimalloc" },
	{ "mallocx", "jemalloc", "jemalloc" },
	{ "__libc_calloc", "glibc", "glibc" },
	{ "__libc_malloc_impl", "musl", "musl" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* What one ELF object says about itself. */
struct obj {
	bool dynamic;			/* has PT_DYNAMIC */
	bool malloc;			/* defines malloc */
	bool kind[NKINDS];		/* defines kinds[i].sym */
	char **needed;			/* DT_NEEDED, in order */
	size_t nneeded, cap;
	char *rpath, *runpath;		/* DT_RPATH, DT_RUNPATH */
	char interp[PATH_MAX];		/* PT_INTERP, "" if none */
};

static void obj_clear(struct obj *o)
{
	for (size_t i = 0; i < o->nneeded; i++)
		free(o->needed[i]);
	free(o->needed);
	free(o->rpath);
	free(o->runpath);
	memset(o, 0, sizeof(*o));
}

static void scan_symbols(Elf *elf, Elf_Scn *scn, struct obj *o)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr sh;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;
		int type, bind;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    (bind != STB_GLOBAL && bind != STB_WEAK))
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name)
			continue;
		if (!strcmp(name, "malloc") || !strncmp(name, "malloc@", 7))
			o->malloc = true;
		for (size_t k = 0; k < NKINDS; k++)
			o->kind[k] |= !strcmp(name, kinds[k].sym);
	}
}

static int scan_dynamic(Elf *elf, Elf_Scn *scn, struct obj *o)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr sh;

	if (!data || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Dyn dyn;
		const char *s;
		char **slot = NULL;

		if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
			continue;
		s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
		if (!s)
			continue;
		if (dyn.d_tag == DT_NEEDED) {
			if (GROW_FOR(o->needed, o->cap, o->nneeded + 1, 8))
				return -ENOMEM;
			slot = &o->needed[o->nneeded++];
			*slot = NULL;
		} else {
			slot = dyn.d_tag == DT_RPATH ? &o->rpath : &o->runpath;
			free(*slot);
		}
		*slot = strdup(s);
		if (!*slot)
			return -ENOMEM;
	}
	return 0;
}

/* Read @path: 0, -ENOEXEC (not ELF), -errno of open. */
static int obj_read(const char *path, bool exe, struct obj *o)
{
	Elf_Scn *scn = NULL;
	Elf *elf = NULL;
	size_t nph = 0;
	int fd, err = 0;

	memset(o, 0, sizeof(*o));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open_regular(path, 0);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph))
				continue;
			o->dynamic |= ph.p_type == PT_DYNAMIC;
			if (ph.p_type == PT_INTERP && ph.p_filesz < sizeof(o->interp) &&
			    pread(fd, o->interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
				o->interp[0] = '\0';
			o->interp[sizeof(o->interp) - 1] = '\0';
		}
	}
	while (!err && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM || (exe && sh.sh_type == SHT_SYMTAB))
			scan_symbols(elf, scn, o);
		else if (sh.sh_type == SHT_DYNAMIC)
			err = scan_dynamic(elf, scn, o);
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	if (err)
		obj_clear(o);
	return err;
}

/* What allocator @o is, by the symbols it defines; musl's spec (the
 * standard functions only) for one that none tells. */
static void tell(const struct obj *o, const char *path, const char *where,
		 struct allocator *out)
{
	size_t k;

	for (k = 0; k < NKINDS && !o->kind[k]; k++)
		;
	if (k < NKINDS) {
		out->spec = kinds[k].spec;
		out->name = kinds[k].name;
	} else {
		out->spec = "musl";
		out->name = strstr(path, "musl") ? "musl" : "an allocator of unknown kind";
	}
	out->where = where;
}

static int set_path(struct allocator *out, const char *path, struct errbuf *eb)
{
	if (strlen(path) >= sizeof(out->path))
		return errbuf__set(eb, -ENAMETOOLONG, "path '%s' is too long", path);
	strcpy(out->path, path);
	return 0;
}

/* ---- a command's objects: found as ld.so would ---- */

/* @dir/@name into @buf if that is an ELF file ("$ORIGIN" in @dir is the
 * directory of @origin). */
static bool try_dir(const char *dir, size_t dlen, const char *name, const char *origin,
		    char *buf, size_t n)
{
	char d[PATH_MAX];
	struct obj o;
	int w;

	if (dlen >= sizeof(d))
		return false;
	memcpy(d, dir, dlen);
	d[dlen] = '\0';
	if (!strncmp(d, "$ORIGIN", 7) || !strncmp(d, "${ORIGIN}", 9)) {
		const char *slash = strrchr(origin, '/');
		int olen = slash ? (int)(slash - origin) : 1;

		w = snprintf(buf, n, "%.*s%s/%s", olen, slash ? origin : ".",
			     d + (d[1] == '{' ? 9 : 7), name);
	} else {
		w = snprintf(buf, n, "%s/%s", dlen ? d : ".", name);
	}
	if (w < 0 || (size_t)w >= n || obj_read(buf, false, &o))
		return false;
	obj_clear(&o);
	return true;
}

/* The first directory of a ':'-separated list holding @name. */
static bool try_list(const char *list, const char *name, const char *origin, char *buf, size_t n)
{
	while (list && *list) {
		size_t len = strcspn(list, ":;");

		if (try_dir(list, len, name, origin, buf, n))
			return true;
		list += len + (list[len] != '\0');
	}
	return false;
}

/* /etc/ld.so.cache (glibc 2.32+: the "glibc-ld.so.cache1.1" format, alone
 * or after the old one): the path it gives @name. */
static bool try_cache(const char *name, char *buf, size_t n)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	char *data = NULL, *hdr;
	size_t len = 0, base;
	uint32_t nlibs;
	bool found = false;

	if (read_file("/etc/ld.so.cache", 64 << 20, &data, &len))
		return false;
	hdr = memmem(data, len, magic, sizeof(magic) - 1);
	base = hdr ? (size_t)(hdr - data) : len;
	if (!hdr || len - base < 48)
		goto out;
	memcpy(&nlibs, hdr + 20, sizeof(nlibs));
	for (uint32_t i = 0; i < nlibs && !found; i++) {
		size_t at = base + 48 + (size_t)i * 24;
		int32_t flags;
		uint32_t key, value;

		if (at + 24 > len)
			break;
		memcpy(&flags, data + at, 4);
		memcpy(&key, data + at + 4, 4);
		memcpy(&value, data + at + 8, 4);
		if (base + key >= len || base + value >= len ||
		    !memchr(data + base + key, '\0', len - base - key) ||
		    !memchr(data + base + value, '\0', len - base - value))
			continue;
#ifdef CACHE_FLAGS
		if (flags != CACHE_FLAGS)
			continue;
#endif
		if (strcmp(data + base + key, name))
			continue;
		found = (size_t)snprintf(buf, n, "%s", data + base + value) < n;
	}
out:
	free(data);
	return found;
}

/* Where ld.so finds @name needed by the object at @from (@o), the program
 * being @exe (@eo). */
static bool search(const char *name, const char *from, const struct obj *o, const char *exe,
		   const struct obj *eo, const char *libpath, char *buf, size_t n)
{
	if (strchr(name, '/')) {
		struct obj x;

		if ((size_t)snprintf(buf, n, "%s", name) >= n || obj_read(buf, false, &x))
			return false;
		obj_clear(&x);
		return true;
	}
	if (!o->runpath && (try_list(o->rpath, name, from, buf, n) ||
			    (!eo->runpath && try_list(eo->rpath, name, exe, buf, n))))
		return true;
	return try_list(libpath, name, from, buf, n) || try_list(o->runpath, name, from, buf, n) ||
	       try_cache(name, buf, n) || try_list(ELF_SYM_LIB_DIRS, name, from, buf, n);
}

#define PRELOAD_SEP ": \t\n"

/* /etc/ld.so.preload, which ld.so reads after LD_PRELOAD, into @buf ("" if
 * none; '#' comments are not allowed there). */
static void etc_preload(char *buf, size_t n)
{
	char *text = NULL;

	buf[0] = '\0';
	if (read_file("/etc/ld.so.preload", n - 1, &text, NULL))
		return;
	snprintf(buf, n, "%s", text);
	free(text);
}

/* A "#!" script's interpreter into @buf: 0, or -ENOEXEC when @path is no
 * script. */
static int interpreter(const char *path, char *buf, size_t n)
{
	char head[256];
	ssize_t got;
	size_t len;
	int fd = open_regular(path, 0);

	if (fd < 0)
		return fd;
	got = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (got < 3 || head[0] != '#' || head[1] != '!')
		return -ENOEXEC;
	head[got] = '\0';
	for (len = 2; head[len] == ' ' || head[len] == '\t'; len++)
		;
	got = (ssize_t)strcspn(head + len, " \t\n");
	if (!got || (size_t)got >= n)
		return -ENOEXEC;
	memcpy(buf, head + len, (size_t)got);
	buf[got] = '\0';
	return 0;
}

struct walk {
	char (*paths)[PATH_MAX];	/* objects queued, breadth first */
	size_t n, cap;
};

static bool queued(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->paths[i], path))
			return true;
	return false;
}

static int enqueue(struct walk *w, const char *path)
{
	if (queued(w, path) || w->n >= MAX_OBJS)
		return 0;
	if (GROW_FOR(w->paths, w->cap, w->n + 1, 16))
		return -ENOMEM;
	snprintf(w->paths[w->n++], PATH_MAX, "%s", path);
	return 0;
}

int allocator__find_exec(const char *exe, const char *preload, const char *libpath,
			 struct allocator *out, struct errbuf *eb)
{
	char path[PATH_MAX], found[PATH_MAX], etc[4096];
	struct obj eo = { 0 }, o = { 0 };
	struct walk w = { 0 };
	size_t first_lib;
	int err = 0;

	snprintf(path, sizeof(path), "%s", exe);
	for (int depth = 0; depth < 4 && !interpreter(path, found, sizeof(found)); depth++)
		memcpy(path, found, sizeof(path));
	err = obj_read(path, true, &eo);
	if (err == -ENOEXEC) {
		err = errbuf__set(eb, err, "'%s' is not an ELF file", path);
		goto out;
	}
	if (err) {
		/* -ENOENT is "no allocator" to callers. */
		err = errbuf__set(eb, err == -ENOENT ? -ENXIO : err, "cannot read '%s': %s", path,
				  strerror(-err));
		goto out;
	}
	if (eo.malloc) {
		tell(&eo, path, eo.dynamic ? "linked in" : "static", out);
		err = set_path(out, path, eb);
		goto out;
	}
	if (!eo.dynamic) {
		err = errbuf__set(eb, -ENOENT, "'%s' is a static executable without malloc", path);
		goto out;
	}
	/* LD_PRELOAD, then /etc/ld.so.preload: names separated by blanks or
	 * ':' (newlines in the file), searched as needed names. */
	etc_preload(etc, sizeof(etc));
	for (int list = 0; list < 2; list++) {
		for (const char *p = list ? etc : preload; p && *p;) {
			size_t len = strcspn(p, PRELOAD_SEP);
			char name[PATH_MAX];

			if (len && len < sizeof(name)) {
				memcpy(name, p, len);
				name[len] = '\0';
				if (search(name, path, &eo, path, &eo, libpath, found, sizeof(found)) &&
				    (err = enqueue(&w, found)))
					goto out;
			}
			p += len + (p[len] != '\0');
		}
	}
	first_lib = w.n;
	for (size_t i = 0; i < eo.nneeded; i++)
		if (search(eo.needed[i], path, &eo, path, &eo, libpath, found, sizeof(found)) &&
		    (err = enqueue(&w, found)))
			goto out;
	/* Then the dynamic linker: musl's is its libc (the "libc.so" of its
	 * programs' DT_NEEDED); glibc's defines no malloc. */
	if (eo.interp[0] && (err = enqueue(&w, eo.interp)))
		goto out;
	for (size_t i = 0; i < w.n; i++) {
		char here[PATH_MAX];

		memcpy(here, w.paths[i], sizeof(here));
		if (obj_read(here, false, &o))
			continue;
		if (o.malloc) {
			tell(&o, here, i < first_lib ? "preloaded" : "library", out);
			err = set_path(out, here, eb);
			goto out;
		}
		for (size_t k = 0; k < o.nneeded; k++)
			if (search(o.needed[k], here, &o, path, &eo, libpath, found, sizeof(found)) &&
			    (err = enqueue(&w, found)))
				goto out;
		obj_clear(&o);
	}
	err = errbuf__set(eb, -ENOENT, "neither '%s' nor the %zu libraries it loads define malloc",
			  path, w.n);
out:
	obj_clear(&o);
	obj_clear(&eo);
	free(w.paths);
	return err;
}

/* ---- a running process: its maps ---- */

struct mapped {
	char path[PATH_MAX];	/* as the process names it */
	char open[PATH_MAX];	/* as we open it */
	bool done;
};

static int read_maps(pid_t pid, struct mapped **out, size_t *nout, struct errbuf *eb)
{
	char file[64], *line = NULL;
	struct mapped *v = NULL;
	size_t n = 0, cap = 0, lcap = 0;
	struct map m = { 0 };
	FILE *fp;
	int err = 0;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	fp = fopen(file, "re");
	if (!fp)
		return errno == ENOENT ? errbuf__set(eb, -ESRCH, "no process with pid %d", (int)pid) :
		       errbuf__set(eb, -errno, "cannot read '%s': %s", file, strerror(errno));
	while (!err && getline(&line, &lcap, fp) > 0) {
		bool dup = false;

		map__clear(&m);
		if (map__parse_line(line, &m) || !m.path || m.path[0] != '/' || m.deleted)
			continue;
		for (size_t i = 0; i < n && !dup; i++)
			dup = !strcmp(v[i].path, m.path);
		if (dup || n >= MAX_OBJS)
			continue;
		if (GROW_FOR(v, cap, n + 1, 16)) {
			err = -ENOMEM;
			break;
		}
		snprintf(v[n].path, sizeof(v[n].path), "%s", m.path);
		v[n].done = false;
		if (!elf_sym__mapped_file(pid, &m, v[n].open, sizeof(v[n].open), NULL))
			n++;
	}
	map__clear(&m);
	free(line);
	fclose(fp);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* The process's LD_PRELOAD, from its environment, into @buf ("" if none). */
static void pid_preload(pid_t pid, char *buf, size_t n)
{
	char file[64], *env = NULL;
	size_t len = 0;

	buf[0] = '\0';
	snprintf(file, sizeof(file), "/proc/%d/environ", (int)pid);
	if (read_file(file, 1 << 20, &env, &len))
		return;
	for (size_t at = 0; at < len; at += strlen(env + at) + 1)
		if (!strncmp(env + at, "LD_PRELOAD=", 11)) {
			snprintf(buf, n, "%s", env + at + 11);
			break;
		}
	free(env);
}

/* Look at @m once: true (and @out filled) when it provides malloc. */
static bool provides(struct mapped *m, bool exe, const char *where, struct allocator *out)
{
	struct obj o;
	bool yes;

	if (m->done)
		return false;
	m->done = true;
	if (obj_read(m->open, exe, &o))
		return false;
	yes = o.malloc;
	if (yes) {
		tell(&o, m->path, exe && !o.dynamic ? "static" : where, out);
		snprintf(out->path, sizeof(out->path), "%s", m->open);
	}
	obj_clear(&o);
	return yes;
}

/* The mapping named @name: a path, or a basename.  A soname matches the
 * file it names too (maps shows where the link led: DT_NEEDED's
 * libasan.so.8 is mapped as libasan.so.8.0.0). */
static struct mapped *by_name(struct mapped *v, size_t n, const char *name, size_t len)
{
	bool path = memchr(name, '/', len) != NULL;
	struct mapped *versioned = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *p = path ? v[i].path : path_base(v[i].path);
		size_t plen = strlen(p);

		if (plen == len && !memcmp(p, name, len))
			return &v[i];
		if (!path && !versioned && plen > len && !memcmp(p, name, len) && p[len] == '.')
			versioned = &v[i];
	}
	return versioned;
}

int allocator__find_pid(pid_t pid, struct allocator *out, struct errbuf *eb)
{
	char file[64], preload[4096], etc[4096];
	struct mapped *v = NULL, *m;
	struct stat st_exe;
	struct obj eo = { 0 };
	size_t n = 0;
	int err;

	err = read_maps(pid, &v, &n, eb);
	if (err)
		return err;
	/* The executable: the mapping that is /proc/PID/exe's inode. */
	snprintf(file, sizeof(file), "/proc/%d/exe", (int)pid);
	if (stat(file, &st_exe) == 0) {
		for (size_t i = 0; i < n; i++) {
			struct stat st;

			if (stat(v[i].open, &st) || st.st_ino != st_exe.st_ino ||
			    st.st_dev != st_exe.st_dev)
				continue;
			if (provides(&v[i], true, "linked in", out))
				goto found;
			obj_read(v[i].open, true, &eo);
			break;
		}
	}
	pid_preload(pid, preload, sizeof(preload));
	etc_preload(etc, sizeof(etc));
	for (int list = 0; list < 2; list++) {
		for (const char *p = list ? etc : preload; *p;) {
			size_t len = strcspn(p, PRELOAD_SEP);

			m = len ? by_name(v, n, p, len) : NULL;
			if (m && provides(m, false, "preloaded", out))
				goto found;
			p += len + (p[len] != '\0');
		}
	}
	/* The executable's own libraries first (its DT_NEEDED, in order),
	 * then whatever else it maps, in address order. */
	for (size_t i = 0; i < eo.nneeded; i++) {
		m = by_name(v, n, eo.needed[i], strlen(eo.needed[i]));
		if (m && provides(m, false, "library", out))
			goto found;
	}
	for (size_t i = 0; i < n; i++)
		if (provides(&v[i], false, "library", out))
			goto found;
	err = errbuf__set(eb, -ENOENT, "none of the %zu files process %d maps defines malloc", n,
			  (int)pid);
	goto out;
found:
	err = 0;
out:
	obj_clear(&eo);
	free(v);
	return err;
}

int allocator__identify(const char *path, const char *where, struct allocator *out)
{
	struct obj o;
	int err = obj_read(path, false, &o);

	if (err)
		return err;
	err = o.malloc ? 0 : -ENOENT;
	if (!err) {
		tell(&o, path, where, out);
		err = set_path(out, path, NULL);
	}
	obj_clear(&o);
	return err;
}
