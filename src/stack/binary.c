/*
 * binary: the one cache of open binaries (binary.h), and what every user
 * reads of one: its segments, RELRO and .eh_frame_hdr table, noted when it
 * is opened; its CFI rows, built on first use.
 *
 * May call: stack/mapped-file, stack/cfi-table, stack/addrspace, lib/.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "lib/hashmap.h"
#include "stack/addrspace.h"
#include "stack/binary.h"
#include "stack/cfi-table.h"
#include "stack/mapped-file.h"

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
	struct cfi_table *cfi;		/* made on first use */
	pid_t failed_pid;		/* last pid for which opening failed */
	unsigned attempts;
};

struct bincache {
	unsigned refs;
	struct hashmap *map;		/* key hash -> struct binary * chain */
	struct binary *all;
	size_t count;
	struct binary *vdso;
	bool vdso_tried;
	uint64_t opens;
};

int bincache__new(struct bincache **out)
{
	struct bincache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->map = hashmap__new();
	if (!c->map) {
		free(c);
		return -ENOMEM;
	}
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

static void binary__free(struct binary *b)
{
	if (!b)
		return;
	image__unload(b);
	free(b->path);
	free(b);
}

void bincache__unref(struct bincache *c)
{
	if (!c || --c->refs > 0)
		return;
	while (c->all) {
		struct binary *next = c->all->next_all;

		binary__free(c->all);
		c->all = next;
	}
	binary__free(c->vdso);
	hashmap__free(c->map);
	free(c);
}

size_t bincache__count(const struct bincache *c)
{
	return c->count;
}

uint64_t bincache__opens(const struct bincache *c)
{
	return c->opens;
}

static uint64_t binary_key(const char *path, uint32_t maj, uint32_t min, uint64_t ino)
{
	uint64_t id[3] = { maj, min, ino };

	return hash_bytes(path, strlen(path)) ^ (hash_bytes(id, sizeof(id)) * 31);
}

static bool binary__is(const struct binary *b, const struct map *m)
{
	return b->ino == m->ino && b->maj == m->maj && b->min == m->min && strcmp(b->path, m->path) == 0;
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

/* Open @b as @pid sees mapping @m.  Failure is not an error: the entry
 * stays closed until another pid gives it a chance. */
static void binary__load(struct binary *b, const struct addrspaces *as, pid_t pid, const struct map *m,
			 binary_opener open, void *ctx)
{
	char opened[PATH_MAX], rootbuf[64];
	struct stat st;
	Elf *elf = NULL;
	int fd;

	b->failed_pid = pid;
	b->attempts++;
	opened[0] = '\0';
	fd = open ? open(ctx, as, pid, m, opened, sizeof(opened)) : mapped_file__open(as, pid, m, opened,
										       sizeof(opened));
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* FDREAD: all of it in memory (mapped, or read if mmap failed), so
	 * the descriptor can go: a session of many binaries would otherwise
	 * hold one per binary. */
	if (!elf || fstat(fd, &st) != 0 || elf_kind(elf) != ELF_K_ELF || elf_cntl(elf, ELF_C_FDREAD) != 0 ||
	    !image__index(&b->img, elf))
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
	b->c->opens++;
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
		binary_opener open, void *ctx, struct binary **out)
{
	uint64_t key = binary_key(m->path, m->maj, m->min, m->ino), v;
	struct binary *head = NULL, *b = bincache__find(c, m);

	*out = NULL;
	if (b) {
		if (!b->open && b->failed_pid != pid && b->attempts < BINCACHE_OPEN_ATTEMPTS)
			binary__load(b, as, pid, m, open, ctx);
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
	b->path = strdup(m->path);
	if (!b->path || hashmap__set(c->map, key, (uint64_t)(uintptr_t)b)) {
		binary__free(b);
		return -ENOMEM;
	}
	b->next_same = head;
	b->next_all = c->all;
	c->all = b;
	c->count++;
	binary__load(b, as, pid, m, open, ctx);
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
