/*
 * fault-attrib: page faults attributed to the allocation that owns the
 * faulting address, with no kernel in sight, so its rules are unit-tested.
 *
 * A fault at an address inside an outstanding block or region of the
 * process (alloc-track's table, kept by alloc-trace) counts for that
 * allocation's site: the allocation stack in that process.  A fault taken
 * while the thread is inside an allocator call is the allocator's work for
 * the block that call is making (chunk headers, the top chunk, the tcache,
 * calloc's clearing): it waits until the call returns and then counts for
 * the site of the block returned, whatever its address; when the call
 * makes nothing it is attributed by address like any other.  A fault no
 * allocation owns counts for a region of the process's maps (stack, heap,
 * file with its path, anonymous, other), found by the caller's function.
 *
 * Per owner (site or region): faults by kind (first touch of a page not
 * present, copy-on-write, another protection fault, major), distinct pages
 * that faulted, and for sites the classes of the blocks made there and how
 * many bytes they asked for.
 */
#ifndef FAULTLINE_FAULT_ATTRIB_H
#define FAULTLINE_FAULT_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agg/alloc-track.h"

/* What the fault's error code says (x86 page_fault_user error_code). */
enum fault_kind {
	FAULT_FIRST_TOUCH,	/* the page was not present */
	FAULT_COW,		/* a write to a present page: copy-on-write */
	FAULT_PROT,		/* another access to a present page */
	FAULT_UNKNOWN,		/* no error code (software event) */
};

/* The x86 error code's kind: bit 0 present, bit 1 write. */
enum fault_kind fault_kind__from_error_code(uint64_t error_code);

enum fault_region {
	REGION_STACK,		/* the main thread's [stack] */
	REGION_HEAP,		/* the brk heap, outside any tracked block */
	REGION_FILE,		/* a file mapping (path) */
	REGION_ANON,		/* other anonymous memory */
	REGION_OTHER,		/* vdso, vvar, no mapping known */
	REGION__COUNT
};

const char *fault_region__name(enum fault_region r);

/* Classes of the blocks made at a site (bits). */
#define CLASS_SMALL	(1u << 0)	/* <= 128 bytes */
#define CLASS_HEAP	(1u << 1)	/* from the allocator's heap (brk arena or thread arena) */
#define CLASS_MMAP	(1u << 2)	/* above the mmap threshold: a mapping of its own */
#define CLASS_ZEROED	(1u << 3)	/* calloc */
#define CLASS_ANON	(1u << 4)	/* an anonymous mmap the program made itself */
#define CLASS_BRK	(1u << 5)	/* heap growth the program made itself (brk/sbrk) */

unsigned int alloc_rec__class(const struct alloc_rec *r);
/* "small", "heap,zeroed"...: the class bits' names joined by commas. */
void alloc_class__format(unsigned int classes, char *buf, size_t n);

struct fault_owner {
	bool is_site;
	pid_t pid;
	uint32_t stack;			/* site: allocation stack (stackdb id) */
	unsigned int classes;		/* site: CLASS_* of its blocks (made or faulted on) */
	/* site: blocks made here while traced, bytes asked; 0 for a fork
	 * child's site whose blocks were made in the parent */
	uint64_t allocs, bytes;
	enum fault_region region;	/* region */
	const char *path;		/* region: file path, or NULL (owned here) */
	uint64_t faults;		/* all kinds */
	uint64_t pages;			/* distinct pages that faulted */
	uint64_t first_touch, cow, prot, major;
	uint64_t in_allocator;		/* site: faults inside the allocator call making it */
};

/* Places an address no allocation owns: its region in @pid's maps, and
 * for a file its path (which must stay valid until the call returns). */
typedef void (*fault_region_fn)(void *ctx, pid_t pid, uint64_t addr, enum fault_region *region,
				const char **path);

struct fault_attrib;

/**
 * fault_attrib__new() - attribute faults against @track's allocations
 * @track: the outstanding blocks and regions, with its address index on
 *         (alloc_track__index); read only, owned by the caller, must
 *         outlive the attributor
 * @region_fn, @ctx: how to place addresses no allocation owns
 * Return: 0, -ENOMEM.
 */
int fault_attrib__new(const struct alloc_track *track, fault_region_fn region_fn, void *ctx,
		      struct fault_attrib **out);
void fault_attrib__free(struct fault_attrib *fa);

/**
 * fault_attrib__fault() - thread @tid of @pid faulted at @addr
 * @in_allocator: @tid is inside an allocator call (alloc_track__busy):
 *                the fault waits for the call's return
 * Return: 0, -ENOMEM.
 */
int fault_attrib__fault(struct fault_attrib *fa, pid_t pid, pid_t tid, uint64_t addr,
			enum fault_kind kind, bool in_allocator);

/* The last fault of @tid, on @addr's page, was major (the major-faults
 * event follows its fault).  Anything else is ignored. */
void fault_attrib__major(struct fault_attrib *fa, pid_t tid, uint64_t addr);

/* A block or region was made at its site (counts and classes). */
int fault_attrib__made(struct fault_attrib *fa, const struct alloc_rec *r);

/* @tid's outermost allocator call returned, having made @made (NULL:
 * nothing): its waiting faults are attributed.  Return: 0, -ENOMEM. */
int fault_attrib__returned(struct fault_attrib *fa, pid_t pid, pid_t tid,
			   const struct alloc_rec *made);

/* @tid exited: its waiting faults are attributed by address. */
int fault_attrib__thread_exit(struct fault_attrib *fa, pid_t pid, pid_t tid);

/* Owners with at least one fault or allocation, in no particular order
 * until fault_attrib__sort(); pointers stay valid until the next call
 * that adds faults. */
size_t fault_attrib__count(const struct fault_attrib *fa);
const struct fault_owner *fault_attrib__at(const struct fault_attrib *fa, size_t i);
/* Order for a report (ends attribution: call it once, at the end). */
void fault_attrib__sort(struct fault_attrib *fa,
			int (*cmp)(const void *, const void *, void *), void *ctx);

struct fault_totals {
	uint64_t faults;		/* every fault attributed so far */
	uint64_t to_allocations;	/* of which to allocation sites */
	uint64_t in_allocator;		/* of those, inside the allocator */
	uint64_t to_regions;		/* to regions of the maps */
	uint64_t waiting;		/* still waiting for their allocator call's return */
};

void fault_attrib__totals(const struct fault_attrib *fa, struct fault_totals *t);

#endif
