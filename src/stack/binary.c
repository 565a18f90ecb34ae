/*
 * binary: the one cache of open binaries (binary.h), and what every user
 * reads of one: its segments, RELRO and .eh_frame_hdr table, noted when it
 * is opened; its build-id, CFI rows, symbols (a Dwfl, its separate debug
 * file found by debuginfo.h) and symbol index, built on first use.
 *
 * Separate debug info is found by our own search (debuginfo.h says why)
 * rather than libdwfl's standard one.  Only the dwz alt file, whose lookup
 * depends on state libdwfl keeps to itself, is left to libdwfl's standard
 * search.
 *
 * May call: stack/mapped-file, stack/cfi-table, stack/debuginfo,
 * stack/symindex, stack/addrspace, lib/.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "lib/file.h"
#include "lib/hashmap.h"
#include "stack/addrspace.h"
#include "stack/binary.h"
#include "stack/cfi-table.h"
#include "stack/debuginfo.h"
#include "stack/mapped-file.h"
#include "stack/symindex.h"

enum { MAX_VDSO_SIZE = 1 << 20 };

/* DW_EH_PE_* encodings of .eh_frame_hdr (LSB "Exception Frame Header"). */
enum {
	EH_PE_ABSPTR = 0x00,
	EH_PE_UDATA2 = 0x02,
	EH_PE_UDATA4 = 0x03,
	EH_PE_UDATA8 = 0x04,
	EH_PE_SDATA2 = 0x0a,
	EH_PE_SDATA4 = 0x0b,
	EH_PE_SDATA8 = 0x0c,
	EH_PE_DATAREL = 0x30,
	EH_PE_OMIT = 0xff,
};

struct binary {
	struct binary *next_same;	/* same key hash */
	struct binary *next_all;
	struct bincache *c;
	/* key: the file as mappings name it */
	char *path;
	uint32_t maj, min;
	uint64_t ino;
	unsigned refs;
	bool open;			/* img is valid */
	struct bin_image img;
	char *opened, *root;		/* img's strings */
	void *owned_image;		/* the vDSO's copy, freed after img.elf */
	uint8_t rec_id_size;		/* key too: a recording's build-id, or 0 */
	uint8_t rec_id[20];
	struct cfi_table *cfi;		/* made on first use */
	pid_t failed_pid;		/* last pid for which opening failed */
	unsigned attempts;
	/* made on first use: */
	bool id_read;
	const unsigned char *build_id;	/* into img.elf's data; NULL when none */
	size_t build_id_len;
	bool syms_tried;
	struct binary *syms_of;		/* held: the entry whose syms serve this one */
	struct binary *next_bid;	/* same build-id hash, among entries with syms */
	struct bin_syms syms;		/* syms.mod NULL when not made here */
	Dwfl *dwfl;
	char *debuglink;		/* its .gnu_debuglink, to tell the main debug */
	GElf_Word debuglink_crc;	/* lookup from the dwz alt file's */
	struct symindex *index;
};

struct bincache {
	unsigned refs;
	struct hashmap *map;		/* key hash -> struct binary * chain */
	struct binary *all;
	size_t count;
	struct binary *vdso;
	bool vdso_tried;
	struct hashmap *by_bid;		/* build-id hash -> struct binary * with syms (next_bid) */
	struct bincache_stats stats;
	bool closing;			/* the last unref: no unlinking */
	/* Where binaries and their debug files are looked for.  libdwfl keeps
	 * a pointer to its callbacks, and reads the debuginfo path of its
	 * standard search through a char **: both live here, so nothing is
	 * a global. */
	char *symfs;			/* --symfs: a root holding a recording's binaries */
	char **debug_dirs;		/* extra directories, searched before /usr/lib/debug */
	size_t ndebug_dirs;
	char *debuginfo_path;		/* for the dwz alt-file lookup only */
	Dwfl_Callbacks callbacks;
};

static int find_debuginfo(Dwfl_Module *dmod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc, char **debug_name);
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp);

int bincache__new(struct bincache **out)
{
	struct bincache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->map = hashmap__new();
	c->by_bid = hashmap__new();
	if (!c->map || !c->by_bid) {
		hashmap__free(c->map);
		hashmap__free(c->by_bid);
		free(c);
		return -ENOMEM;
	}
	c->callbacks.find_elf = find_elf;
	c->callbacks.find_debuginfo = find_debuginfo;
	c->callbacks.section_address = dwfl_offline_section_address;
	c->callbacks.debuginfo_path = &c->debuginfo_path;
	/* We read ELF files before any dwfl_begin() would set libelf's version. */
	elf_version(EV_CURRENT);
	c->refs = 1;
	*out = c;
	return 0;
}

struct bincache *bincache__ref(struct bincache *c)
{
	c->refs++;
	return c;
}

static void image__unload(struct binary *b)
{
	cfi_table__free(b->cfi);	/* it reads the Elf */
	b->cfi = NULL;
	if (b->img.elf)
		elf_end(b->img.elf);
	free(b->img.loads);
	free(b->owned_image);
	free(b->opened);
	free(b->root);
	b->owned_image = NULL;
	b->opened = b->root = NULL;
	memset(&b->img, 0, sizeof(b->img));
	b->open = false;
}

static void syms__unlink(struct binary *b);

/* What was built on the Elf, before it goes. */
static void syms__unload(struct binary *b)
{
	if (b->syms.mod && !b->c->closing)
		syms__unlink(b);
	if (b->index)
		b->c->stats.live_indexes--;
	symindex__free(b->index);	/* its names are libdwfl's */
	if (b->dwfl)
		dwfl_end(b->dwfl);	/* before the Elf it holds a duplicate of */
	free(b->debuglink);
	binary__put(b->syms_of);
	b->index = NULL;
	b->dwfl = NULL;
	b->debuglink = NULL;
	b->syms_of = NULL;
	memset(&b->syms, 0, sizeof(b->syms));
}

static void binary__free(struct binary *b)
{
	if (!b)
		return;
	syms__unload(b);
	image__unload(b);
	free(b->path);
	free(b);
}

void bincache__unref(struct bincache *c)
{
	if (!c || --c->refs > 0)
		return;
	c->closing = true;
	/* An entry may hold another (its syms_of): those holds go first, so
	 * the order the entries are freed in does not matter. */
	for (struct binary *b = c->all; b; b = b->next_all) {
		binary__put(b->syms_of);
		b->syms_of = NULL;
	}
	while (c->all) {
		struct binary *next = c->all->next_all;

		binary__free(c->all);
		c->all = next;
	}
	binary__free(c->vdso);
	hashmap__free(c->map);
	hashmap__free(c->by_bid);
	for (size_t i = 0; i < c->ndebug_dirs; i++)
		free(c->debug_dirs[i]);
	free(c->debug_dirs);
	free(c->symfs);
	free(c->debuginfo_path);
	free(c);
}

int bincache__add_debug_dir(struct bincache *c, const char *dir)
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
	dirs = realloc(c->debug_dirs, (c->ndebug_dirs + 1) * sizeof(*dirs));
	if (!dirs)
		goto out;
	c->debug_dirs = dirs;
	/* The standard search (dwz alt files) sees them too. */
	if (asprintf(&path, "%s:%s", c->debuginfo_path ? c->debuginfo_path : ":.debug:/usr/lib/debug",
		     copy) < 0) {
		path = NULL;
		goto out;
	}
	free(c->debuginfo_path);
	c->debuginfo_path = path;
	c->debug_dirs[c->ndebug_dirs++] = copy;
	copy = NULL;
	err = 0;
out:
	free(copy);
	return err;
}

int bincache__set_symfs(struct bincache *c, const char *dir)
{
	char debug[PATH_MAX];
	int err;

	if (!dir || !dir[0])
		return -EINVAL;
	free(c->symfs);
	c->symfs = strdup(dir);
	if (!c->symfs)
		return -ENOMEM;
	/* Its debug files first, as perf looks below --symfs. */
	snprintf(debug, sizeof(debug), "%s/usr/lib/debug", dir);
	err = bincache__add_debug_dir(c, debug);
	return err == -EINVAL ? 0 : err;
}

void bincache__stats(const struct bincache *c, struct bincache_stats *st)
{
	*st = c->stats;
}

size_t bincache__count(const struct bincache *c)
{
	return c->count;
}

uint64_t bincache__opens(const struct bincache *c)
{
	return c->stats.opens;
}

static uint64_t binary_key(const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	uint64_t id[3] = { maj, min, ino };

	return hash_bytes(path, strlen(path)) ^ (hash_bytes(id, sizeof(id)) * 31);
}

static bool binary__is(const struct binary *b, const struct map *m)
{
	return b->ino == m->ino && b->maj == m->maj && b->min == m->min && b->rec_id_size == m->build_id_size &&
	       memcmp(b->rec_id, m->build_id, b->rec_id_size) == 0 && strcmp(b->path, m->path) == 0;
}

struct binary *bincache__find(const struct bincache *c, const struct map *m)
{
	uint64_t v;

	if (!m->path || !hashmap__get(c->map, binary_key(m->path, m->maj, m->min, m->ino), &v))
		return NULL;
	for (struct binary *b = (struct binary *)(uintptr_t)v; b; b = b->next_same)
		if (binary__is(b, m))
			return b;
	return NULL;
}

/* A DW_EH_PE-encoded value of .eh_frame_hdr at @p (fixed sizes only);
 * false when unsupported or past @end. */
static bool read_encoded(const unsigned char **p, const unsigned char *end, uint8_t enc, uint64_t *val)
{
	size_t len;

	switch (enc & 0x0f) {
	case EH_PE_ABSPTR:
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		len = 8;
		break;
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		len = 4;
		break;
	case EH_PE_UDATA2:
	case EH_PE_SDATA2:
		len = 2;
		break;
	default:
		return false;
	}
	if ((size_t)(end - *p) < len)
		return false;
	if (len == 8) {
		memcpy(val, *p, 8);
	} else if (len == 4) {
		uint32_t v;

		memcpy(&v, *p, 4);
		*val = (enc & 0x0f) == EH_PE_SDATA4 ? (uint64_t)(int64_t)(int32_t)v : v;
	} else {
		uint16_t v;

		memcpy(&v, *p, 2);
		*val = (enc & 0x0f) == EH_PE_SDATA2 ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	*p += len;
	return true;
}

/* The .eh_frame_hdr at @ph, when libunwind can search its table. */
static void note_eh_frame_hdr(struct bin_image *img, const GElf_Phdr *ph)
{
	const unsigned char *hdr, *p, *end;
	uint64_t eh_frame_ptr, count;

	if (ph->p_offset >= img->size || ph->p_filesz > img->size - ph->p_offset || ph->p_filesz < 4)
		return;
	hdr = img->data + ph->p_offset;
	p = hdr + 4;
	end = hdr + ph->p_filesz;
	/* version 1, eh_frame_ptr_enc, fde_count_enc, table_enc;
	 * libunwind searches only datarel sdata4 tables. */
	if (hdr[0] != 1 || hdr[2] == EH_PE_OMIT || hdr[3] != (EH_PE_DATAREL | EH_PE_SDATA4) ||
	    !read_encoded(&p, end, hdr[1], &eh_frame_ptr) || !read_encoded(&p, end, hdr[2], &count) ||
	    count > (uint64_t)(end - p) / 8)
		return;
	img->has_eh_table = count > 0;
	img->eh_hdr_vaddr = ph->p_vaddr;
	img->eh_table_off = (uint64_t)(p - hdr);
	img->eh_fde_count = count;
}

/* Note what users read of @elf, held in memory whole.  False when it is
 * not an ELF file or on ENOMEM. */
static bool image__index(struct bin_image *img, Elf *elf)
{
	GElf_Ehdr eh;
	size_t nph;
	bool first = true;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0)
		return false;
	img->data = (const unsigned char *)elf_rawfile(elf, &img->size);
	img->loads = calloc(nph ? nph : 1, sizeof(*img->loads));
	if (!img->data || !img->loads)
		return false;
	img->elf = elf;
	img->machine = eh.e_machine;
	img->elfclass = eh.e_ident[EI_CLASS];
	img->type = eh.e_type;
	img->phdrs_ok = true;
	img->min_vaddr = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph)) {
			img->phdrs_ok = false;
			continue;
		}
		if (ph.p_type == PT_GNU_RELRO) {
			img->relro_lo = ph.p_vaddr;
			img->relro_hi = ph.p_vaddr + ph.p_memsz;
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			note_eh_frame_hdr(img, &ph);
		}
		if (ph.p_type != PT_LOAD)
			continue;
		/* libdwfl puts a module's start at its first PT_LOAD's vaddr,
		 * aligned down. */
		if (first)
			img->lo = ph.p_align > 1 ? ph.p_vaddr & -ph.p_align : ph.p_vaddr;
		first = false;
		if (ph.p_vaddr < img->min_vaddr)
			img->min_vaddr = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > img->hi)
			img->hi = ph.p_vaddr + ph.p_memsz;
		img->loads[img->nloads++] = (struct bin_load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	if (!img->nloads)
		img->min_vaddr = 0;
	return true;
}

/* "/proc/PID/root" when @pid lives in another root than ours (a
 * container), "" when in ours or gone: where its debug files may be. */
static const char *other_root(pid_t pid, char *buf, size_t n)
{
	struct stat mine, theirs;

	if (pid <= 0)
		return "";
	snprintf(buf, n, "/proc/%d/root/", (int)pid);
	if (stat(buf, &theirs) != 0 || stat("/", &mine) != 0 ||
	    (theirs.st_dev == mine.st_dev && theirs.st_ino == mine.st_ino))
		return "";
	snprintf(buf, n, "/proc/%d/root", (int)pid);
	return buf;
}

/* @fd's ELF when it is one, with @m's recorded build-id when @m has one;
 * NULL else (@fd stays open). */
static Elf *elf_of(int fd, const struct map *m)
{
	const unsigned char *id = NULL;
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF &&
	    (!m->build_id_size ||
	     (debuginfo__build_id(elf, &id) == m->build_id_size && !memcmp(id, m->build_id, m->build_id_size))))
		return elf;
	if (elf)
		elf_end(elf);
	return NULL;
}

/* @path opened as @m's file (*elf its ELF), or -1. */
static int open_checked(const char *path, const struct map *m, char *opened, size_t n, Elf **elf)
{
	int fd = open_regular(path, 0);

	if (fd < 0)
		return -1;
	if (!(*elf = elf_of(fd, m))) {
		close(fd);
		return -1;
	}
	snprintf(opened, n, "%s", path);
	return fd;
}

/*
 * Open @m's file as @pid sees it: its descriptor (*elf its ELF, parsed
 * once), or -1.  A recording's binary, on this or another host: below
 * --symfs first (the user said where they are), else where a live
 * process's would be, else a debug file named by the recorded build-id
 * (DIR/.build-id/xx/rest.debug: it holds the symbols and the program
 * headers), under --symfs, each debug directory, then /usr/lib/debug;
 * each only with the recorded build-id, when there is one.
 */
static int open_file(struct bincache *c, const struct addrspaces *as, pid_t pid, const struct map *m,
		     char *opened, size_t n, Elf **elf)
{
	char path[PATH_MAX], hex[2 * sizeof(m->build_id) + 1];
	int fd;

	*elf = NULL;
	if (c->symfs && snprintf(path, sizeof(path), "%s%s", c->symfs, m->path) < (int)sizeof(path) &&
	    (fd = open_checked(path, m, opened, n, elf)) >= 0)
		return fd;
	fd = mapped_file__open(as, pid, m, opened, n);
	if ((*elf = elf_of(fd, m)))
		return fd;
	if (fd >= 0)
		close(fd);
	if (!m->build_id_size)
		return -1;
	for (size_t i = 0; i < m->build_id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	for (size_t d = 0; d <= c->ndebug_dirs; d++) {
		const char *dir = d < c->ndebug_dirs ? c->debug_dirs[d] : "/usr/lib/debug";

		snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
		if ((fd = open_checked(path, m, opened, n, elf)) >= 0)
			return fd;
	}
	return -1;
}

/* Open @b as @pid sees mapping @m.  Failure is not an error: the entry
 * stays closed until another pid gives it a chance. */
static void binary__load(struct binary *b, const struct addrspaces *as, pid_t pid, const struct map *m)
{
	char opened[PATH_MAX], rootbuf[64];
	struct stat st;
	Elf *elf = NULL;
	int fd;

	b->failed_pid = pid;
	b->attempts++;
	opened[0] = '\0';
	fd = open_file(b->c, as, pid, m, opened, sizeof(opened), &elf);
	if (fd < 0)
		return;
	/* FDREAD: all of it in memory (mapped, or read if mmap failed), so
	 * the descriptor can go: a session of many binaries would otherwise
	 * hold one per binary. */
	if (fstat(fd, &st) != 0 || elf_cntl(elf, ELF_C_FDREAD) != 0 || !image__index(&b->img, elf))
		goto fail;
	elf = NULL;	/* the image's now */
	b->img.dev = st.st_dev;
	b->img.ino = st.st_ino;
	b->opened = strdup(opened);
	b->root = strdup(strncmp(opened, "/proc/", 6) == 0 ? other_root(pid, rootbuf, sizeof(rootbuf)) : "");
	if (!b->opened || !b->root)
		goto fail;
	b->img.opened = b->opened;
	b->img.root = b->root;
	b->open = true;
	b->failed_pid = 0;
	b->c->stats.opens++;
	close(fd);
	return;
fail:
	if (elf && elf != b->img.elf)
		elf_end(elf);
	image__unload(b);
	close(fd);
}

/* Free the entries nobody holds, once there are too many. */
static void sweep(struct bincache *c)
{
	struct binary **pp = &c->all;

	if (c->count <= BINCACHE_MAX)
		return;
	while (*pp) {
		struct binary *b = *pp, *head;
		uint64_t key, v;

		if (b->refs) {
			pp = &b->next_all;
			continue;
		}
		*pp = b->next_all;
		key = binary_key(b->path, b->maj, b->min, b->ino);
		if (hashmap__get(c->map, key, &v)) {
			head = (struct binary *)(uintptr_t)v;
			if (head == b) {
				if (b->next_same)	/* replaces a key: cannot fail */
					hashmap__set(c->map, key, (uint64_t)(uintptr_t)b->next_same);
				else
					hashmap__delete(c->map, key, NULL);
			} else {
				while (head->next_same && head->next_same != b)
					head = head->next_same;
				if (head->next_same)
					head->next_same = b->next_same;
			}
		}
		binary__free(b);
		c->count--;
	}
}

int binary__get(struct bincache *c, const struct addrspaces *as, pid_t pid, const struct map *m,
		struct binary **out)
{
	uint64_t key = binary_key(m->path, m->maj, m->min, m->ino), v;
	struct binary *head = NULL, *b = bincache__find(c, m);

	*out = NULL;
	if (b) {
		if (!b->open && b->failed_pid != pid && b->attempts < BINCACHE_OPEN_ATTEMPTS)
			binary__load(b, as, pid, m);
		*out = binary__hold(b);
		return 0;
	}
	/* Before this one counts: it is held from the start anyway. */
	sweep(c);
	if (hashmap__get(c->map, key, &v))
		head = (struct binary *)(uintptr_t)v;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->c = c;
	b->maj = m->maj;
	b->min = m->min;
	b->ino = m->ino;
	b->rec_id_size = m->build_id_size;
	memcpy(b->rec_id, m->build_id, sizeof(b->rec_id));
	b->path = strdup(m->path);
	if (!b->path || hashmap__set(c->map, key, (uint64_t)(uintptr_t)b)) {
		binary__free(b);
		return -ENOMEM;
	}
	b->next_same = head;
	b->next_all = c->all;
	c->all = b;
	c->count++;
	binary__load(b, as, pid, m);
	*out = binary__hold(b);
	return 0;
}

/*
 * A malloc'ed copy of our own vDSO image (the same one every 64-bit process
 * maps under this kernel; its pages are no file libelf could map), the
 * caller's to free; *size its length.  NULL when there is none, it is not
 * a 64-bit ELF, it is longer than max, or on ENOMEM.
 */
static unsigned char *copy_vdso(size_t max, size_t *size)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	unsigned char *copy;
	uint64_t len;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	/* The image ends with its section headers, after every segment. */
	len = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff + (uint64_t)i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > len)
			len = ph->p_offset + ph->p_filesz;
	}
	/* A few pages: anything else is not an image we understand, and
	 * copying it could read past the mapping. */
	if (len > max)
		return NULL;
	copy = malloc(len);
	if (copy) {
		memcpy(copy, base, len);
		*size = len;
	}
	return copy;
}

int binary__vdso(struct bincache *c, struct binary **out)
{
	struct binary *b = NULL;
	size_t size = 0;
	Elf *elf = NULL;

	*out = NULL;
	if (c->vdso_tried) {
		*out = c->vdso ? binary__hold(c->vdso) : NULL;
		return 0;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->c = c;
	b->path = strdup("[vdso]");
	b->opened = strdup("");
	b->root = strdup("");
	if (!b->path || !b->opened || !b->root) {
		binary__free(b);
		return -ENOMEM;
	}
	c->vdso_tried = true;
	b->owned_image = copy_vdso(MAX_VDSO_SIZE, &size);
	if (b->owned_image)
		elf = elf_memory(b->owned_image, size);
	if (!elf || !image__index(&b->img, elf)) {
		if (elf && elf != b->img.elf)
			elf_end(elf);
		binary__free(b);
		return 0;
	}
	b->img.opened = b->opened;
	b->img.root = b->root;
	b->open = true;
	c->vdso = b;
	*out = binary__hold(b);
	return 0;
}

struct binary *binary__hold(struct binary *b)
{
	b->refs++;
	return b;
}

void binary__put(struct binary *b)
{
	if (b)
		b->refs--;
}

const struct bin_image *binary__image(const struct binary *b)
{
	return b->open ? &b->img : NULL;
}

unsigned binary__refs(const struct binary *b)
{
	return b->refs;
}

const char *binary__path(const struct binary *b)
{
	return b->path;
}

int binary__cfi(struct binary *b, struct cfi_table **out)
{
	int err;

	if (!b->open)
		return -ENOENT;
	if (!b->cfi && (err = cfi_table__new(b->img.elf, &b->cfi)))
		return err;
	*out = b->cfi;
	return 0;
}

size_t binary__build_id(struct binary *b, const unsigned char **id)
{
	*id = NULL;
	if (!b->open)
		return 0;
	if (!b->id_read) {
		b->build_id_len = debuginfo__build_id(b->img.elf, &b->build_id);
		b->id_read = true;
	}
	*id = b->build_id;
	return b->build_id_len;
}

/* ---- symbols ---- */

static uint64_t bid_hash(const unsigned char *id, size_t len)
{
	return hash_bytes(id, len);
}

/* The entry with symbols of build-id @id, if any. */
static struct binary *bid_find(struct bincache *c, const unsigned char *id, size_t len)
{
	uint64_t v;

	if (!len || !hashmap__get(c->by_bid, bid_hash(id, len), &v))
		return NULL;
	for (struct binary *o = (struct binary *)(uintptr_t)v; o; o = o->next_bid)
		if (o->build_id_len == len && memcmp(o->build_id, id, len) == 0)
			return o;
	return NULL;
}

/* @b, its symbols made, as the one to share them by its build-id. */
static int bid_link(struct binary *b)
{
	uint64_t h = bid_hash(b->build_id, b->build_id_len), v;

	b->next_bid = hashmap__get(b->c->by_bid, h, &v) ? (struct binary *)(uintptr_t)v : NULL;
	return hashmap__set(b->c->by_bid, h, (uint64_t)(uintptr_t)b) ? -ENOMEM : 0;
}

static void syms__unlink(struct binary *b)
{
	uint64_t h, v;
	struct binary *head;

	if (!b->build_id_len)
		return;
	h = bid_hash(b->build_id, b->build_id_len);
	if (!hashmap__get(b->c->by_bid, h, &v))
		return;
	head = (struct binary *)(uintptr_t)v;
	if (head == b) {
		if (b->next_bid)	/* replaces a key: cannot fail */
			hashmap__set(b->c->by_bid, h, (uint64_t)(uintptr_t)b->next_bid);
		else
			hashmap__delete(b->c->by_bid, h, NULL);
		return;
	}
	while (head->next_bid && head->next_bid != b)
		head = head->next_bid;
	if (head->next_bid)
		head->next_bid = b->next_bid;
}

/* libdwfl's find_debuginfo callback.  It comes twice per module at most:
 * for the debug file (with the binary's own .gnu_debuglink, if any), and
 * for the dwz alt file named by the DWARF's .gnu_debugaltlink. */
static int find_debuginfo(Dwfl_Module *dmod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink, GElf_Word crc, char **debug_name)
{
	const struct binary *b = *userdata;
	struct debuginfo_query q;
	int fd;

	if (!b)
		return -1;
	if (debuglink && (!b->debuglink || strcmp(debuglink, b->debuglink) != 0 || crc != b->debuglink_crc))
		return dwfl_standard_find_debuginfo(dmod, userdata, modname, base, file_name, debuglink, crc,
						    debug_name);
	/* Where the binary was opened (its root) and the mapping's path there. */
	q = (struct debuginfo_query){ b->c->debug_dirs, b->c->ndebug_dirs, b->img.root, b->path,
				      b->build_id, b->build_id_len, b->img.dev, b->img.ino };
	fd = debuginfo__find(&q, debuglink, crc, debug_name);
	return fd >= 0 ? fd : -1;
}

int bin_image__find_elf(const struct bin_image *img, char **file_name, Elf **elfp)
{
	if (!img)
		return -1;
	*elfp = elf_begin(-1, ELF_C_READ_MMAP, img->elf);
	if (*elfp && img->opened[0])
		*file_name = strdup(img->opened);
	return -1;
}

/* libdwfl's find_elf callback: the entry's Elf. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	const struct binary *b = *userdata;

	return bin_image__find_elf(b ? &b->img : NULL, file_name, elfp);
}

/* A Dwfl over @b's Elf, the file reported at its own vaddrs, its debuglink
 * noted.  -ENOENT when it is not usable, -ENOMEM. */
static int syms__build(struct binary *b)
{
	const struct bin_image *img = &b->img;
	const char *link;
	GElf_Word crc = 0;
	void **userdata;
	int err = -ENOMEM;

	link = dwelf_elf_gnu_debuglink(img->elf, &crc);
	if (link) {
		b->debuglink = strdup(link);
		if (!b->debuglink)
			goto fail;
		b->debuglink_crc = crc;
	}
	err = -ENOENT;
	/* No PT_LOAD: no address of it can be named. */
	if (!img->nloads)
		goto fail;
	b->dwfl = dwfl_begin(&b->c->callbacks);
	if (!b->dwfl)
		goto fail;
	dwfl_report_begin(b->dwfl);
	/* At its first PT_LOAD's vaddr, aligned: Dwfl addresses are the
	 * file's own vaddrs, whatever address each process loaded it at. */
	b->syms.mod = dwfl_report_module(b->dwfl, path_base(b->path), img->lo, img->hi);
	if (!b->syms.mod)
		goto fail;
	/* Before anything asks for the Elf or symbols: find_elf and the
	 * debug search need it. */
	dwfl_module_info(b->syms.mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = b;
	if (dwfl_report_end(b->dwfl, NULL, NULL) != 0 || !dwfl_module_getelf(b->syms.mod, &b->syms.bias))
		goto fail;
	err = -ENOMEM;
	if (b->build_id_len && bid_link(b))
		goto fail;
	b->syms.img = img;
	b->syms.id = ++b->c->stats.symbols;
	return 0;
fail:
	b->syms.mod = NULL;	/* not linked */
	syms__unload(b);
	return err;
}

int binary__syms(struct binary *b, const struct bin_syms **out)
{
	const unsigned char *id;
	struct binary *o;
	size_t len;
	int err;

	*out = NULL;
	if (b->syms_of || b->syms.mod) {
		*out = b->syms_of ? &b->syms_of->syms : &b->syms;
		return 0;
	}
	if (b->syms_tried || !b->open || b == b->c->vdso)
		return -ENOENT;
	/* Once, unless only memory was short. */
	len = binary__build_id(b, &id);
	if ((o = bid_find(b->c, id, len))) {
		b->syms_of = binary__hold(o);
		*out = &o->syms;
		return 0;
	}
	err = syms__build(b);
	if (err == -ENOMEM)
		return err;
	b->syms_tried = true;
	if (!err)
		*out = &b->syms;
	return err;
}

int binary__symindex(struct binary *b, const struct symindex **out)
{
	const struct bin_syms *sy;
	struct binary *o;
	int err;

	*out = NULL;
	if ((err = binary__syms(b, &sy)))
		return err;
	o = b->syms_of ? b->syms_of : b;
	if (!o->index) {
		if ((err = symindex__build(o->syms.mod, &o->index)))
			return err;
		b->c->stats.indexes++;
		b->c->stats.live_indexes++;
	}
	*out = o->index;
	return 0;
}
