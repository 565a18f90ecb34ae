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
 *    munmap may trim or split.
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
	bool region;		/* an mmap/brk region, not a malloc block */
};

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

/* ---- blocks and regions outstanding ---- */

/**
 * alloc_track__add() - a block or region was made
 *
 * A block at an address already outstanding replaces it (its free was
 * never seen) and counts in alloc_track__replaced().  Return: 0, -ENOMEM.
 */
int alloc_track__add(struct alloc_track *t, const struct alloc_rec *r);

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

/* Drop everything @pid had outstanding (exec replaced its image).
 * Returns how many blocks and regions were dropped. */
size_t alloc_track__drop_pid(struct alloc_track *t, pid_t pid);

/* Visit every outstanding block and region, in no particular order. */
void alloc_track__foreach(const struct alloc_track *t,
			  void (*fn)(const struct alloc_rec *r, void *ctx), void *ctx);

size_t alloc_track__count(const struct alloc_track *t);
uint64_t alloc_track__replaced(const struct alloc_track *t);
/* Peak number of outstanding blocks and regions, and of threads with
 * calls in flight: what the tracker's memory grows with. */
size_t alloc_track__peak(const struct alloc_track *t);

#endif
