/*
 * binary: the one cache of the binaries a session's mappings name, shared
 * by the symbolizer, the unwinders (libdw, libunwind) and the recorder.
 *
 * An entry is a file as mappings name it: (path, device, inode, and the
 * build-id a recording gives), so a library replaced on disk (same path,
 * new inode) is another entry, and the old one keeps serving the processes
 * that still map it.  It is opened once, whichever user asks first, the
 * one way a mapped file is opened (mapped-file.h: through the process's
 * root, its map_files, a kept descriptor, then the path; a regular file
 * with the mapping's inode, never a FIFO or a recycled path); a
 * recording's binary (a mapping with a build-id, or any with --symfs) is
 * looked for below the symfs first, then so, then as a debug file named by
 * its build-id, and taken only with that build-id.  libelf holds the whole
 * file in memory (mapped), so no descriptor stays open per binary.
 *
 * What users share is built on the entry lazily, once, and freed with it:
 * its segments and .eh_frame_hdr table at open; its build-id (the
 * recorder's); its CFI rows (cfi-table.h, the libdw fast path's); its
 * symbols: a Dwfl over the same Elf whose separate debug file is found by
 * our own search (debuginfo.h) in the cache's debug directories, and its
 * symbol index (symindex.h), the symbolizer's.  Two entries of one build-id
 * (the same library through a container's root and through the host, two
 * copies of a file) share the symbols of the first one built: the second
 * holds the first while it lives.
 *
 * A file one process could not give us (it exited, its root is elsewhere)
 * may open through another that maps it: a failed entry is retried for a
 * different pid, at most BINCACHE_OPEN_ATTEMPTS times in all, so a file
 * nobody can open does not cost an open per frame.
 *
 * Entries are reference counted (binary__get/binary__put).  One nobody
 * holds stays cached (a process that execs or unmaps a library and a later
 * one that maps it again get the same entry), and is freed, with all that
 * was built on it, once more than BINCACHE_MAX entries are kept; the cache
 * itself is counted too (bincache__ref/__unref), so the symbolizer, the
 * unwinder and the recorder of a session share one cache.  Not
 * thread-safe: the reader's thread only.
 *
 * May call: stack/mapped-file, stack/cfi-table, stack/debuginfo,
 * stack/symindex, stack/addrspace, lib/.
 */
#ifndef FAULTLINE_BINARY_H
#define FAULTLINE_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <elfutils/libdwfl.h>
#include <libelf.h>

struct addrspaces;
struct cfi_table;
struct map;
struct symindex;

enum {
	BINCACHE_MAX = 256,		/* entries kept when nobody holds them */
	BINCACHE_OPEN_ATTEMPTS = 4,	/* opens tried per entry, across pids */
};

struct bin_load {
	uint64_t offset, filesz, vaddr;
};

/* An opened binary, as every user reads it.  Valid while the entry is held. */
struct bin_image {
	Elf *elf;			/* the whole file, in memory */
	const unsigned char *data;	/* its bytes (owned by elf) */
	size_t size;
	const char *opened;		/* the path that opened it: where debuglinks point */
	const char *root;		/* "/proc/PID/root" when opened in another root, else "" */
	dev_t dev;			/* of the opened file */
	ino_t ino;
	uint16_t machine;		/* e_machine */
	uint8_t elfclass;		/* EI_CLASS */
	uint16_t type;			/* e_type */
	bool phdrs_ok;			/* every program header could be read */
	struct bin_load *loads;		/* PT_LOADs in header order */
	size_t nloads;
	uint64_t lo;			/* first PT_LOAD's vaddr aligned down, as libdwfl places a module */
	uint64_t min_vaddr, hi;		/* extent of the PT_LOADs */
	uint64_t relro_lo, relro_hi;	/* PT_GNU_RELRO vaddrs: written at load time */
	/* .eh_frame_hdr's binary-search table (datarel sdata4 only) */
	bool has_eh_table;
	uint64_t eh_hdr_vaddr;		/* of .eh_frame_hdr */
	uint64_t eh_table_off;		/* of the table, from eh_hdr_vaddr */
	uint64_t eh_fde_count;
};

struct bincache;
struct binary;

/**
 * bincache__new() - empty cache, one reference
 * Return: 0 or -ENOMEM.
 */
int bincache__new(struct bincache **out);

/* Another reference to @c; returns @c. */
struct bincache *bincache__ref(struct bincache *c);

/**
 * bincache__unref() - drop a reference; the last one frees the cache
 * @c: may be NULL.  Every entry must have been put before the last one.
 */
void bincache__unref(struct bincache *c);

/**
 * bincache__set_symfs() - a root holding a recording's binaries (--symfs):
 *                         looked in first, and its usr/lib/debug first of
 *                         the debug directories
 * Return: 0, -EINVAL for an empty @dir, -ENOMEM.
 */
int bincache__set_symfs(struct bincache *c, const char *dir);

/**
 * bincache__add_debug_dir() - one more directory to look for separate
 *                             debug files in, before /usr/lib/debug
 * Return: 0, -EINVAL (empty, or a ':' in it), -ENOMEM.
 */
int bincache__add_debug_dir(struct bincache *c, const char *dir);

/* What the cache did so far (tests, statistics). */
struct bincache_stats {
	uint64_t opens;		/* files opened (and parsed): one per entry that opened */
	uint64_t symbols;	/* Dwfls built (one per build-id) */
	uint64_t indexes;	/* symbol indexes built */
	uint64_t live_indexes;	/* of which not freed yet */
};

void bincache__stats(const struct bincache *c, struct bincache_stats *st);

/* Entries kept, held or not (tests, statistics). */
size_t bincache__count(const struct bincache *c);
/* Successful opens so far (tests: one open per binary). */
uint64_t bincache__opens(const struct bincache *c);

/**
 * binary__get() - the entry of file mapping @m, held
 * @c: cache
 * @as: @pid's maps (for mapped_file__open's kept descriptors); may be NULL
 * @pid: the process asking: the file is opened as it sees it
 * @m: a file mapping (path starting with '/'); with a build-id (a
 *     recording's), only a file of that build-id is taken
 * @out: out; put it with binary__put()
 *
 * Opened on first use, and retried for another pid while not open (see
 * above).  An entry that could not be opened is still an answer: its
 * binary__image() is NULL.
 *
 * Return: 0, or -ENOMEM (*out NULL).
 */
int binary__get(struct bincache *c, const struct addrspaces *as, pid_t pid, const struct map *m,
		struct binary **out);

/**
 * binary__vdso() - the vDSO's entry, held: our own image, the same for
 *                  every 64-bit process under this kernel; tried once
 * Return: 0 (*out NULL when there is none), or -ENOMEM.
 */
int binary__vdso(struct bincache *c, struct binary **out);

/* Another hold on @b; returns @b. */
struct binary *binary__hold(struct binary *b);

/* Release a hold; NULL is fine.  The entry stays cached (see above). */
void binary__put(struct binary *b);

/* The cached entry of @m, not held and not opened; NULL when none. */
struct binary *bincache__find(const struct bincache *c, const struct map *m);

/* The opened file; NULL when it could not be opened (yet). */
const struct bin_image *binary__image(const struct binary *b);

/**
 * bin_image__find_elf() - libdwfl's find_elf answer for a module of @img:
 *                         its Elf as a counted duplicate (ended with the
 *                         module; the image's stays), never a file of its own
 * @img: the module's binary; NULL for one that cannot be used (no Elf)
 * @file_name: out, the path that opened it (libdwfl frees it), if any
 * @elfp: out
 * Return: -1, the descriptor libdwfl is handed (none).
 */
int bin_image__find_elf(const struct bin_image *img, char **file_name, Elf **elfp);

/* Holds on it now (tests). */
unsigned binary__refs(const struct binary *b);

/* The mapping path it is keyed by ("[vdso]" for the vDSO). */
const char *binary__path(const struct binary *b);

/**
 * binary__cfi() - the entry's CFI rows, built on first use
 * @b: an opened entry
 * Return: 0, -ENOENT when not opened, -ENOMEM.
 */
int binary__cfi(struct binary *b, struct cfi_table **out);

/**
 * binary__build_id() - the entry's GNU build-id, read on first use
 * @b: entry
 * @id: out; valid while @b is held
 * Return: its length; 0 when it has none or is not opened.
 */
size_t binary__build_id(struct binary *b, const unsigned char **id);

/* A binary's symbols: a Dwfl of one module, the file reported at its own
 * first PT_LOAD, so Dwfl addresses are the file's vaddrs (plus @bias, 0
 * but for odd alignments) whatever address each process loaded it at. */
struct bin_syms {
	Dwfl_Module *mod;
	uint64_t bias;			/* Dwfl address = ELF vaddr + bias */
	const struct bin_image *img;	/* the file it was built on: its loads */
	uint64_t id;			/* 1, 2, ...: never reused in the cache */
};

/**
 * binary__syms() - the entry's symbols, built on first use (or those of
 *                  an entry of the same build-id)
 * @b: entry
 * @out: out; valid while @b is held
 *
 * Built once: an entry whose symbols could not be made (not opened, no
 * PT_LOAD, libdwfl refused it) answers -ENOENT from then on.
 *
 * Return: 0, -ENOENT, -ENOMEM.
 */
int binary__syms(struct binary *b, const struct bin_syms **out);

/**
 * binary__symindex() - the symbol index of binary__syms()'s module, built
 *                      on its first use (the symbol table, and so perhaps
 *                      the separate debug file, is read then)
 * Return: 0, -ENOENT (no symbols), -ENOMEM.
 */
int binary__symindex(struct binary *b, const struct symindex **out);

#endif
