/*
 * binary: the one cache of the binaries a session's mappings name, shared
 * by the symbolizer and the unwinders (libdw, libunwind).
 *
 * An entry is a file as mappings name it: (path, device, inode), so a
 * library replaced on disk (same path, new inode) is another entry, and
 * the old one keeps serving the processes that still map it.  It is
 * opened once, whichever user asks first, the one way a mapped file is
 * opened (mapped-file.h: through the process's root, its map_files, a kept
 * descriptor, then the path; a regular file with the mapping's inode, never
 * a FIFO or a recycled path), or by an opener the caller gives (the
 * symbolizer's, for a recording's binaries).  libelf holds the whole file
 * in memory (mapped), so no descriptor stays open per binary.  What users
 * share is built on the entry lazily: its segments and .eh_frame_hdr table
 * at open, its CFI rows (cfi-table.h) on the fast path's first use.  The
 * symbolizer builds its Dwfl (symbol index, separate debug file) on the
 * same Elf.
 *
 * A file one process could not give us (it exited, its root is elsewhere)
 * may open through another that maps it: a failed entry is retried for a
 * different pid, at most MAX_OPEN_ATTEMPTS times in all, so a file nobody
 * can open does not cost an open per frame.
 *
 * Entries are reference counted (binary__get/binary__put).  One nobody
 * holds stays cached, and is freed once more than BINCACHE_MAX entries are
 * kept; the cache itself is counted too (bincache__ref/__unref), so the
 * symbolizer and the unwinder of a session hold one cache between them.
 * Not thread-safe: the reader's thread only.
 *
 * May call: stack/mapped-file, stack/cfi-table, stack/addrspace, lib/.
 */
#ifndef FAULTLINE_BINARY_H
#define FAULTLINE_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <libelf.h>

struct addrspaces;
struct cfi_table;
struct map;

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

/* How to open a mapping's file: an fd (O_RDONLY, handed to the cache) or
 * -1; @opened gets the path that worked. */
typedef int (*binary_opener)(void *ctx, const struct addrspaces *as, pid_t pid, const struct map *m,
			     char *opened, size_t n);

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

/* Entries kept, held or not (tests, statistics). */
size_t bincache__count(const struct bincache *c);
/* Successful opens so far (tests: one open per binary). */
uint64_t bincache__opens(const struct bincache *c);

/**
 * binary__get() - the entry of file mapping @m, held
 * @c: cache
 * @as: @pid's maps (for mapped_file__open's kept descriptors); may be NULL
 * @pid: the process asking: the file is opened as it sees it
 * @m: a file mapping (path starting with '/')
 * @open: NULL: mapped_file__open(); else called with @ctx instead
 * @out: out; put it with binary__put()
 *
 * Opened on first use, and retried for another pid while not open (see
 * above).  An entry that could not be opened is still an answer: its
 * binary__image() is NULL.
 *
 * Return: 0, or -ENOMEM (*out NULL).
 */
int binary__get(struct bincache *c, const struct addrspaces *as, pid_t pid, const struct map *m,
		binary_opener open, void *ctx, struct binary **out);

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

#endif
