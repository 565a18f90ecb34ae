/*
 * elf-sym: symbol -> file offset, build-id and library-name resolution with
 * libelf.
 *
 * Each call opens the file, answers and closes it: these run a handful of
 * times per session (one per probe), so a cache would only add state.
 * Symbols are matched on their base name (the part before '@'), with the
 * version compared only when the caller asks for one; .dynsym versions come
 * from .gnu.version/.gnu.version_d, .symtab ones from the name itself.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "stack/addrspace.h"
#include "stack/elf-sym.h"
#include "stack/mapped-file.h"

struct elf_file {
	int fd;
	Elf *elf;
};

static void elf_file__close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Open @path as ELF.  A missing file is -ENXIO, not -ENOENT, because -ENOENT
 * means "no such symbol" to our callers. */
static int elf_file__open(struct elf_file *f, const char *path, struct errbuf *eb)
{
	int err;

	f->fd = -1;
	f->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return errbuf__set(eb, -EINVAL, "libelf is too old for this program");
	f->fd = open_regular(path, 0);
	if (f->fd < 0) {
		err = -f->fd;
		if (err == ENOENT || err == ENOTDIR)
			return errbuf__set(eb, -ENXIO, "'%s' does not exist", path);
		if (err == EINVAL)
			return errbuf__set(eb, -ENOEXEC, "'%s' is not a regular file", path);
		return errbuf__set(eb, -err, "cannot open '%s': %s", path, strerror(err));
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf) {
		err = errbuf__set(eb, -EIO, "cannot read '%s': %s", path, elf_errmsg(-1));
		goto fail;
	}
	if (elf_kind(f->elf) != ELF_K_ELF) {
		err = errbuf__set(eb, -ENOEXEC, "'%s' is not an ELF file", path);
		goto fail;
	}
	return 0;
fail:
	elf_file__close(f);
	return err;
}

/* Split "name@VER" / "name@@VER": length of the base name and the version
 * (NULL when none). */
static size_t split_version(const char *s, const char **version)
{
	const char *at = strchr(s, '@');

	if (!at) {
		*version = NULL;
		return strlen(s);
	}
	*version = at[1] == '@' ? at + 2 : at + 1;
	return (size_t)(at - s);
}

/* Version name of .dynsym entry @ndx and whether it is hidden (an older,
 * non-default version).  *name is NULL for unversioned symbols. */
static void dynsym_version(Elf *elf, Elf_Data *versym, Elf_Scn *verdef_scn, size_t ndx,
			   const char **name, bool *hidden)
{
	GElf_Versym vs;
	Elf_Data *data;
	GElf_Shdr shdr;
	size_t off = 0;

	*name = NULL;
	*hidden = false;
	if (!versym || !gelf_getversym(versym, (int)ndx, &vs))
		return;
	*hidden = (vs & 0x8000) != 0;
	vs &= 0x7fff;
	if (vs <= 1 || !verdef_scn || !gelf_getshdr(verdef_scn, &shdr))
		return;
	data = elf_getdata(verdef_scn, NULL);
	if (!data)
		return;
	for (GElf_Word i = 0; i < shdr.sh_info; i++) {
		GElf_Verdef vd;
		GElf_Verdaux vda;

		if (!gelf_getverdef(data, (int)off, &vd))
			return;
		if (vd.vd_ndx == vs) {
			if (gelf_getverdaux(data, (int)(off + vd.vd_aux), &vda))
				*name = elf_strptr(elf, shdr.sh_link, vda.vda_name);
			return;
		}
		if (!vd.vd_next)
			return;
		off += vd.vd_next;
	}
}

/* Best function symbol called @want in the symbol table @scn.  Returns true
 * and fills *best when found. */
static bool find_in_symtab(Elf *elf, Elf_Scn *scn, bool dynamic, const char *want, GElf_Sym *best)
{
	const char *want_ver, *sym_ver;
	size_t want_len = split_version(want, &want_ver);
	Elf_Scn *versym_scn = NULL, *verdef_scn = NULL, *it = NULL;
	Elf_Data *data, *versym = NULL;
	GElf_Shdr shdr;
	int best_score = -1;

	if (!gelf_getshdr(scn, &shdr) || !shdr.sh_entsize)
		return false;
	data = elf_getdata(scn, NULL);
	if (!data)
		return false;
	if (dynamic) {
		while ((it = elf_nextscn(elf, it))) {
			GElf_Shdr sh;

			if (!gelf_getshdr(it, &sh))
				continue;
			if (sh.sh_type == SHT_GNU_versym)
				versym_scn = it;
			else if (sh.sh_type == SHT_GNU_verdef)
				verdef_scn = it;
		}
		if (versym_scn)
			versym = elf_getdata(versym_scn, NULL);
	}
	for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
		GElf_Sym sym;
		const char *name;
		size_t len;
		bool hidden = false;
		int type, bind, score;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (!name)
			continue;
		len = split_version(name, &sym_ver);
		if (len != want_len || strncmp(name, want, len) != 0)
			continue;
		if (dynamic)
			dynsym_version(elf, versym, verdef_scn, i, &sym_ver, &hidden);
		else if (sym_ver)
			hidden = name[len + 1] != '@';	/* "f@V" is hidden, "f@@V" default */
		if (want_ver && (!sym_ver || strcmp(sym_ver, want_ver) != 0))
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		score = (bind == STB_GLOBAL || bind == STB_WEAK ? 2 : 0) + (hidden ? 0 : 1);
		if (score > best_score) {
			best_score = score;
			*best = sym;
		}
	}
	return best_score >= 0;
}

/* st_value -> file offset: through the PT_LOAD holding it, or for objects
 * without program headers (ET_REL), through the symbol's section. */
static int vaddr_to_offset(Elf *elf, const GElf_Sym *sym, uint64_t *off)
{
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	size_t nph;

	if (!gelf_getehdr(elf, &ehdr))
		return -EIO;
	if (ehdr.e_type != ET_REL && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (sym->st_value >= ph.p_vaddr && sym->st_value < ph.p_vaddr + ph.p_filesz) {
				*off = sym->st_value - ph.p_vaddr + ph.p_offset;
				return 0;
			}
		}
		return -ERANGE;
	}
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &shdr))
		return -ERANGE;
	*off = shdr.sh_offset + (ehdr.e_type == ET_REL ? sym->st_value : sym->st_value - shdr.sh_addr);
	return 0;
}

int elf_sym__offset(const char *path, const char *symbol, uint64_t *file_offset, struct errbuf *eb)
{
	uint64_t size;

	return elf_sym__function(path, symbol, file_offset, &size, eb);
}

int elf_sym__function(const char *path, const char *symbol, uint64_t *file_offset,
		      uint64_t *size, struct errbuf *eb)
{
	struct elf_file f = { .fd = -1 };
	Elf_Scn *symtab = NULL, *dynsym = NULL, *scn = NULL;
	GElf_Sym sym;
	bool found = false;
	int err;

	err = elf_file__open(&f, path, eb);
	if (err)
		goto out;
	while ((scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (shdr.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	if (symtab)
		found = find_in_symtab(f.elf, symtab, false, symbol, &sym);
	if (!found && dynsym)
		found = find_in_symtab(f.elf, dynsym, true, symbol, &sym);
	if (!found) {
		err = errbuf__set(eb, -ENOENT, "function '%s' not found in '%s'%s", symbol, path,
				  symtab || dynsym ? "" : " (no symbol table)");
		goto out;
	}
	err = vaddr_to_offset(f.elf, &sym, file_offset);
	*size = sym.st_size;
	if (err)
		errbuf__set(eb, err, "symbol '%s' at 0x%llx is in no loadable segment of '%s'",
			    symbol, (unsigned long long)sym.st_value, path);
out:
	elf_file__close(&f);
	return err;
}

/* Look for the GNU build-id note in one note data block. */
static bool find_build_id(Elf_Data *data, const unsigned char **bits, size_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
			*bits = (const unsigned char *)data->d_buf + desc_off;
			*len = nh.n_descsz;
			return true;
		}
		off = next;
	}
	return false;
}

int elf_sym__build_id(const char *path, char *buf, size_t n, struct errbuf *eb)
{
	struct elf_file f = { .fd = -1 };
	const unsigned char *bits = NULL;
	Elf_Scn *scn = NULL;
	size_t len = 0, nph;
	bool found = false;
	int err;

	err = elf_file__open(&f, path, eb);
	if (err)
		goto out;
	while (!found && (scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data)
			found = find_build_id(data, &bits, &len);
	}
	/* Files stripped of section headers still have their PT_NOTE. */
	if (!found && elf_getphdrnum(f.elf, &nph) == 0) {
		for (size_t i = 0; !found && i < nph; i++) {
			GElf_Phdr ph;
			Elf_Data *data;

			if (!gelf_getphdr(f.elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			data = elf_getdata_rawchunk(f.elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
			if (data)
				found = find_build_id(data, &bits, &len);
		}
	}
	if (!found || !len) {
		err = errbuf__set(eb, -ENOENT, "'%s' has no build-id", path);
		goto out;
	}
	if (n < len * 2 + 1) {
		err = errbuf__set(eb, -ENOSPC, "build-id of '%s' does not fit in %zu bytes", path, n);
		goto out;
	}
	for (size_t i = 0; i < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", bits[i]);
out:
	elf_file__close(&f);
	return err;
}

/* Does a file's basename look like library @name?  The remainder after the
 * name (or lib+name) must be empty, ".so...", "-<digit>...so..." or, when
 * the name already has ".so", ".<digit>..." (libc.so -> libc.so.6). */
static bool library_name_matches(const char *base, const char *name)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t plen = strlen(name) + (pass ? 3 : 0);
		const char *r, *so;

		if (pass ? strncmp(base, "lib", 3) != 0 || strncmp(base + 3, name, plen - 3) != 0
			 : strncmp(base, name, plen) != 0)
			continue;
		r = base + plen;
		if (!*r || strncmp(r, ".so", 3) == 0)
			return true;
		if (r[0] == '-' && isdigit((unsigned char)r[1]) && strstr(r, ".so"))
			return true;
		so = strstr(base, ".so");
		if (r[0] == '.' && isdigit((unsigned char)r[1]) && so && so < r)
			return true;
	}
	return false;
}

static int copy_out(char *out, size_t n, const char *s, struct errbuf *eb)
{
	if (strlen(s) >= n)
		return errbuf__set(eb, -ENAMETOOLONG, "path '%s' is too long", s);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* Whether @path is the file @id names (device and inode), or, with no
 * @id, a file with the mapping's inode. */
static bool names_file(const char *path, const struct stat *id, const struct map *m)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	return id ? st.st_dev == id->st_dev && st.st_ino == id->st_ino : !m->ino || st.st_ino == m->ino;
}

/*
 * The path that names @m's file for a uprobe: the plain path (readable
 * output) when it is that very file, else the path through the process's
 * root, else its /proc/PID/map_files entry.  The file is known by device
 * and inode from map_files (the mapped file itself, also on overlayfs,
 * whose paths name another inode that no uprobe on it would see), or, when
 * that cannot be read, from the root path with the mapping's inode.  So a
 * library in a container is never confused with a file of the same path
 * on the host.
 */
int elf_sym__mapped_file(pid_t pid, const struct map *m, char *out, size_t n, struct errbuf *eb)
{
	char rooted[PATH_MAX + 32], mf[96];
	struct stat id;
	bool have_id;

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start,
		 m->end);
	mapped_file__rooted(pid, m->path, rooted, sizeof(rooted));
	have_id = (stat(mf, &id) == 0 && (!m->ino || id.st_ino == m->ino)) ||
		  (names_file(rooted, NULL, m) && stat(rooted, &id) == 0);
	if (names_file(m->path, have_id ? &id : NULL, m))
		return copy_out(out, n, m->path, eb);
	if (names_file(rooted, have_id ? &id : NULL, m))
		return copy_out(out, n, rooted, eb);
	if (have_id && names_file(mf, &id, m))
		return copy_out(out, n, mf, eb);
	return -ENOENT;
}

/* Search the mappings of @pid.  0 and *out set when found, -ENOENT when the
 * process maps no such library (or is gone), -errno on other errors. */
static int resolve_in_maps(pid_t pid, const char *name, char *out, size_t n, struct errbuf *eb)
{
	char file[64];
	struct map m = { 0 };
	char *line = NULL;
	size_t cap = 0;
	FILE *fp = NULL;
	int err = -ENOENT;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	fp = fopen(file, "re");
	if (!fp) {
		err = errno == ENOENT ? -ENOENT : -errno;
		if (err != -ENOENT)
			errbuf__set(eb, err, "cannot read '%s': %s", file, strerror(-err));
		goto out;
	}
	while (getline(&line, &cap, fp) > 0) {
		const char *base;

		map__clear(&m);
		if (map__parse_line(line, &m) || !m.path || m.path[0] != '/' || m.deleted)
			continue;
		base = strrchr(m.path, '/') + 1;
		if (!library_name_matches(base, name))
			continue;
		err = elf_sym__mapped_file(pid, &m, out, n, eb);
		if (err != -ENOENT)
			goto out;
	}
	err = -ENOENT;
out:
	map__clear(&m);
	free(line);
	if (fp)
		fclose(fp);
	return err;
}

static bool is_elf(const char *path)
{
	unsigned char magic[4];
	bool ok = false;
	int fd = open_regular(path, 0);

	if (fd < 0)
		return false;
	ok = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) && memcmp(magic, ELFMAG, SELFMAG) == 0;
	close(fd);
	return ok;
}


/* Scan the standard directories: within the first directory that has a
 * match, the shortest matching ELF name wins (libc.so.6 over libc.so.6.x). */
static int resolve_in_dirs(const char *name, char *out, size_t n, struct errbuf *eb)
{
	char path[PATH_MAX], best[PATH_MAX], dirname[PATH_MAX];

	for (const char *d = ELF_SYM_LIB_DIRS; *d; d += strcspn(d, ":"), d += *d == ':') {
		size_t best_len = SIZE_MAX, dlen = strcspn(d, ":");
		struct dirent *de;
		DIR *dir;

		snprintf(dirname, sizeof(dirname), "%.*s", (int)dlen, d);
		if (!(dir = opendir(dirname)))
			continue;
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name);

			if (!library_name_matches(de->d_name, name))
				continue;
			if (len > best_len || (len == best_len && strcmp(de->d_name, strrchr(best, '/') + 1) >= 0))
				continue;
			if ((size_t)snprintf(path, sizeof(path), "%s/%s", dirname, de->d_name) >= sizeof(path))
				continue;
			if (!is_elf(path))
				continue;
			memcpy(best, path, strlen(path) + 1);
			best_len = len;
		}
		closedir(dir);
		if (best_len != SIZE_MAX)
			return copy_out(out, n, best, eb);
	}
	return -ENOENT;
}

int elf_sym__resolve_library(pid_t pid, const char *name, char *out, size_t n, struct errbuf *eb)
{
	char *real = NULL;
	int err;

	if (!name || !*name) {
		err = errbuf__set(eb, -EINVAL, "empty library name");
		goto out;
	}
	if (strchr(name, '/')) {
		/* A path: uprobes need it absolute, and it must exist now.
		 * An absolute one is only checked: realpath() would follow
		 * /proc/PID/root as the text of its link, which names another
		 * mount namespace's directory (a container's) or nothing. */
		struct stat st;

		if (name[0] == '/' && stat(name, &st) == 0) {
			err = copy_out(out, n, name, eb);
			goto out;
		}
		real = realpath(name, NULL);
		if (!real) {
			err = -errno;
			errbuf__set(eb, err, "library '%s': %s", name, strerror(-err));
			goto out;
		}
		err = copy_out(out, n, name[0] == '/' ? name : real, eb);
		goto out;
	}
	if (pid > 0) {
		err = resolve_in_maps(pid, name, out, n, eb);
		if (err != -ENOENT)
			goto out;
	}
	err = resolve_in_dirs(name, out, n, eb);
	if (err == -ENOENT) {
		if (pid > 0)
			errbuf__set(eb, err, "library '%s' is not mapped by process %d nor in the standard "
				    "library directories", name, (int)pid);
		else
			errbuf__set(eb, err, "library '%s' not found in the standard library directories", name);
	}
out:
	free(real);
	return err;
}
