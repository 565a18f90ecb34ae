/*
 * alloc-track: what `faultline leak` knows about a traced allocator, with
 * no kernel in sight, so its rules are unit-tested.
 *
 * Three pieces:
 *  - the calls in flight, per thread: an allocator function's entry
 *    (size, old pointer) waits for its return (the address).  Entries are
 *    matched to returns by stack pointer, not by nesting depth, so a return
 *    whose entry was filtered out in the kernel (-z/-Z) or never seen
 *    pairs with nothing instead of with its caller's entry, and an entry
 *    whose return never came (longjmp out of a callback) is dropped when a
 *    shallower frame returns.  A call made while another allocator call of
 *    the same thread is in flight (realloc(NULL, n) calling malloc, glibc's
 *    reallocarray calling realloc, malloc calling mmap) is "inner": its
 *    effect is the outer call's, which alone is counted.
 *  - what a completed call does (alloc_call__effect): the C rules, e.g.
 *    realloc(p, 0) returning NULL frees p, a NULL result allocates nothing.
 *  - the blocks outstanding: (pid, address) -> size, stack, time, in an
 *    open-addressing table, and per process the mmap/brk regions, which a
 *    munmap may trim or split.  A fork child gets copies of its parent's.
 *  - on request (alloc_track__index), an address index answering "which
 *    outstanding block or region owns this faulting address" for
 *    `faultline faults --by-alloc`.  Off by default: `faultline leak` only
 *    needs blocks by start address and must not pay for it.
 */
#ifndef FAULTLINE_ALLOC_TRACK_H
#define FAULTLINE_ALLOC_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum alloc_fn {
	ALLOC_MALLOC,		/* malloc, operator new, mallocx... */
	ALLOC_CALLOC,		/* size = nmemb * size, 0 on overflow */
	ALLOC_REALLOC,		/* old pointer, new size */
	ALLOC_MEMALIGN,		/* aligned_alloc, memalign, valloc, pvalloc */
	ALLOC_POSIX_MEMALIGN,	/* address from the store probe, success by rc */
	ALLOC_MMAP,		/* a region */
	ALLOC_MREMAP,		/* old region moved or resized */
	ALLOC_BRK,		/* the break moved: growth is a region */
	ALLOC_FN__COUNT
};

const char *alloc_fn__name(enum alloc_fn fn);

struct alloc_call {
	enum alloc_fn fn;
	uint64_t size;		/* requested bytes */
	uint64_t old;		/* realloc/mremap: old address; brk: break before */
	uint64_t old_size;	/* mremap: old length */
	uint64_t ptr;		/* posix_memalign: the address it stored (0: none yet) */
	uint64_t sp;		/* stack pointer at entry (0: unknown, match by depth) */
	uint64_t time;
	/* An anonymous mmap (or mremap) made inside this call, by the
	 * allocator itself (alloc_track__note_map): a block lying in it is
	 * above the allocator's mmap threshold.  0/0: none. */
	uint64_t map_addr, map_len;
	bool inner;		/* made inside another allocator call of the thread */
};

/* What a completed call did: at most one block freed and one made. */
struct alloc_effect {
	bool frees;
	uint64_t freed;		/* address released */
	uint64_t freed_size;	/* regions: length released (0 for blocks) */
	bool allocates;
	uint64_t addr, size;
	bool failed;		/* the call failed: nothing changed */
};

/**
 * alloc_call__effect() - what a call returning @ret did
 * @c:   the call as entered (and, for posix_memalign, the stored address)
 * @ret: the return value: an address, or posix_memalign's error code, or
 *       for brk the new break
 * @realloc_zero_frees: whether this libc's realloc(p, 0) frees p and
 *       returns NULL (glibc: yes; it says so in its manual)
 */
void alloc_call__effect(const struct alloc_call *c, uint64_t ret, bool realloc_zero_frees,
			struct alloc_effect *e);

struct alloc_rec {
	uint64_t addr;
	uint64_t size;
	uint64_t time;		/* when it was made (sample clock) */
	pid_t pid;
	uint32_t stack;		/* stackdb id */
	uint8_t fn;		/* enum alloc_fn of the call that made it */
	bool region;		/* an mmap/brk region, not a malloc block */
	bool mapped;		/* a block in an mmap its call made (above the threshold) */
};

/*
 * What kind of memory a block or region is, as leak's totals split it: a
 * block of the malloc family (those glibc serves from an mmap of its own
 * above its threshold too: valgrind counts them as heap), an anonymous
 * region the program mapped itself (mmap, mremap), or growth of the break
 * the program made itself (brk outside the allocator).
 */
enum alloc_kind {
	ALLOC_KIND_MALLOC,
	ALLOC_KIND_MMAP,
	ALLOC_KIND_BRK,
	ALLOC_KIND__COUNT
};

enum alloc_kind alloc_rec__kind(const struct alloc_rec *r);
/* "malloc", "mmap", "brk" ("?" out of range). */
const char *alloc_kind__name(enum alloc_kind k);

struct alloc_track;

int alloc_track__new(struct alloc_track **out);
void alloc_track__free(struct alloc_track *t);

/* ---- calls in flight ---- */

/**
 * alloc_track__enter() - an allocator function was entered by @tid
 *
 * Sets @c->inner when another call of @tid is in flight.  Return: 0,
 * -ENOMEM.
 */
int alloc_track__enter(struct alloc_track *t, pid_t tid, struct alloc_call *c);

/**
 * alloc_track__leave() - a return with stack pointer @sp (after the ret)
 * @out: receives the matching entry, which is removed, with entries
 *       deeper than it that never returned
 *
 * Return: 0, or -ENOENT when no entry matches (its entry was filtered or
 * lost: the return must be ignored).
 */
int alloc_track__leave(struct alloc_track *t, pid_t tid, uint64_t sp, struct alloc_call *out);

/* Whether @tid is inside an allocator call (a free or munmap then is the
 * allocator's own business). */
bool alloc_track__busy(const struct alloc_track *t, pid_t tid);

/* posix_memalign stored @ptr: note it in @tid's innermost call of @fn. */
void alloc_track__note_ptr(struct alloc_track *t, pid_t tid, enum alloc_fn fn, uint64_t ptr);

/* Forget @tid and its calls in flight (the thread exited). */
void alloc_track__forget_thread(struct alloc_track *t, pid_t tid);

/* Forget every thread's calls in flight (events were lost: their returns
 * may be among them); returns how many were forgotten. */
uint64_t alloc_track__drop_calls(struct alloc_track *t);

/* ---- blocks and regions outstanding ---- */

/**
 * alloc_track__add() - a block or region was made
 *
 * A block at an address already outstanding replaces it (its free was
 * never seen) and counts in alloc_track__replaced().  Return: 0, -ENOMEM.
 */
int alloc_track__add(struct alloc_track *t, const struct alloc_rec *r);

/* Whether a block of @pid starts at @addr. */
bool alloc_track__has(struct alloc_track *t, pid_t pid, uint64_t addr);

/**
 * alloc_track__remove() - free of the block at @addr
 * @out: NULL, or receives the block
 *
 * Return: 0, or -ENOENT when no block of @pid starts at @addr (made before
 * tracing, or not sampled).
 */
int alloc_track__remove(struct alloc_track *t, pid_t pid, uint64_t addr, struct alloc_rec *out);

/**
 * alloc_track__unmap() - [@addr, @addr + @len) of @pid is no longer mapped
 *
 * Regions inside are removed, regions across an end are trimmed, a region
 * around it is split (both parts keep the stack and time).  Return: the
 * number of bytes of tracked regions released (>= 0), or -ENOMEM.
 */
int64_t alloc_track__unmap(struct alloc_track *t, pid_t pid, uint64_t addr, uint64_t len);

/* Drop everything @pid had outstanding (exec replaced its image), each
 * block and region passed to @gone (may be NULL) as it goes.  Returns how
 * many blocks and regions were dropped. */
size_t alloc_track__drop_pid(struct alloc_track *t, pid_t pid,
			     void (*gone)(void *ctx, const struct alloc_rec *r), void *ctx);

/**
 * alloc_track__note_map() - the allocator mapped [@addr, @addr + @len)
 * @tid: the thread whose allocator call made the anonymous mmap/mremap
 *
 * Sets map_addr/map_len on every call @tid has in flight: the outermost
 * one's completion (alloc_track__leave hands it back) later decides
 * whether its block lies in the mapping, i.e. is above the allocator's
 * mmap threshold.  Nothing when @tid has no call in flight.  O(depth).
 */
void alloc_track__note_map(struct alloc_track *t, pid_t tid, uint64_t addr, uint64_t len);

/**
 * alloc_track__fork() - @child was forked from @parent: it has copies
 *
 * Copies every block and region of @parent to @child: same addresses,
 * sizes, stacks, times, fn, mapped, region.  A block @child already had
 * at a copied address is replaced (a stale one of an earlier process with
 * that pid) and counts in alloc_track__replaced().  Call it before the
 * child's own events.  O(table size + regions); needs a temporary array
 * of @parent's blocks.
 *
 * Return: the number of blocks and regions copied (>= 0), or -ENOMEM
 * (some may have been copied).
 */
int alloc_track__fork(struct alloc_track *t, pid_t parent, pid_t child);

/**
 * alloc_track__index() - keep an address index from now on
 *
 * Builds it from the blocks already outstanding (O(blocks)); from then on
 * every add, remove, drop and fork keeps it exact.  Calling it again does
 * nothing.  The index lives and dies with @t.  Blocks of a pid outside
 * [0, 2^28) are not indexed (kernel pseudo-pids): alloc_track__lookup()
 * finds nothing for them.
 *
 * Return: 0, or -ENOMEM (the index stays off).
 */
int alloc_track__index(struct alloc_track *t);

/**
 * alloc_track__lookup() - who owns @addr in @pid
 * @out: NULL, or receives a copy of the owner
 *
 * The block of @pid with addr <= @addr < addr + size (a block of size 0
 * owns nothing), else the region of @pid containing @addr.  Blocks of one
 * pid are taken not to overlap each other, nor regions each other; a block
 * inside a region wins.  If blocks overlap anyway (a free never seen), one
 * containing @addr is returned.  O(1) on average for blocks spanning up to
 * 16 pages (plus the blocks sharing @addr's page); larger blocks and the
 * regions are scanned linearly.
 *
 * Return: 0, or -ENOENT: no owner, or the index is off
 * (alloc_track__index was never called or failed).
 */
int alloc_track__lookup(const struct alloc_track *t, pid_t pid, uint64_t addr,
			struct alloc_rec *out);

/**
 * alloc_track__index_check() - for tests: is the index exactly the table?
 *
 * Lookups re-check every candidate against the table, so a stale index
 * entry would not show in their answers, only in memory that never comes
 * back.  This walks the whole index (O(links + blocks), plus the square of
 * the longest page list): every block of an indexed pid is linked once on
 * each page it spans (or listed once as large, with its size), and nothing
 * else is.  Return: 0 (also when the index is off), or -EUCLEAN.
 */
int alloc_track__index_check(const struct alloc_track *t);

/* Visit every outstanding block and region, in no particular order. */
void alloc_track__foreach(const struct alloc_track *t,
			  void (*fn)(const struct alloc_rec *r, void *ctx), void *ctx);

size_t alloc_track__count(const struct alloc_track *t);
uint64_t alloc_track__replaced(const struct alloc_track *t);
/* Peak number of outstanding blocks and regions: what the tracker's
 * memory grows with.  With the index on, it also grows with the pages
 * small blocks touch, at most 16 per block (see alloc-track.c). */
size_t alloc_track__peak(const struct alloc_track *t);
/* Bytes of the blocks and regions outstanding now. */
uint64_t alloc_track__bytes(const struct alloc_track *t);
/* The most bytes ever outstanding at once, and into *@time (NULL: not
 * wanted) the time (alloc_rec.time) of the allocation that first reached
 * it; 0 and 0 before any.  Fork copies count for the child. */
uint64_t alloc_track__peak_bytes(const struct alloc_track *t, uint64_t *time);

#endif
