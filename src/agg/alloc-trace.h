/*
 * alloc-trace: the allocation tracer of `faultline leak`, as a module that
 * `faultline faults --by-alloc` shares.  It adds to a session the events
 * that tell what a process allocates and frees, and keeps alloc-track's
 * table of what is outstanding up to date as their samples arrive.
 *
 * User mode: uprobes on the allocator's functions, from a probe spec
 * (probes/glibc.probes, jemalloc.probes, tcmalloc.probes; retargeted with
 * obj and prefix), and on those of every allocator library a process of
 * the target dlopen's later (-p and -c: added while the session runs,
 * session__grow_begin(); recording too, the META "alloc.late" telling a
 * replay where to add them), plus the mmap/munmap/mremap/brk syscall tracepoints for
 * anonymous memory the program maps itself.  An entry probe gives the
 * size, its return probe the address and the stack (taken there, as BCC's
 * memleak does, so the innermost frame is the caller of malloc), a free
 * removes the block.  The rules of pairing and of each function are
 * alloc-track's.
 *
 * Kernel mode: the kmem tracepoints (kmalloc, kmem_cache_alloc, their
 * _node variants where the kernel still has them, mm_page_alloc, percpu on
 * request), frees from every CPU and context, allocations of the target's
 * tasks only when one is given.  Kernel address spaces live in the table
 * under pids <= 0.
 *
 * The tracer never prints: what a tool wants to show of single events it
 * hears through hooks, and what went wrong while events flowed it reads
 * from alloc_trace__error().
 */
#ifndef FAULTLINE_ALLOC_TRACE_H
#define FAULTLINE_ALLOC_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agg/alloc-sample.h"
#include "agg/alloc-track.h"
#include "lib/errbuf.h"
#include "trace/sample.h"

struct session;
struct alloc_trace;

struct alloc_trace_opts {
	bool kernel;			/* kmem tracepoints rather than the allocator's */
	bool percpu;			/* kernel: percpu allocations too */
	const char *obj;		/* allocator library (NULL: libc) */
	const char *prefix;		/* its symbols' prefix (je_) */
	const char *probes;		/* probe spec name or file (NULL: by obj) */
	uint64_t min_size, max_size;	/* keep only these sizes (max 0: no limit) */
	uint64_t sample_rate;		/* -s N: agg/alloc-sample.h's rule (0, 1: all) */
	/* A fork child starts with copies of its parent's blocks and
	 * regions (its writes to them are its own faults). */
	bool inherit;
	/* Keep alloc-track's address index: lookups by any address. */
	bool index;
};

/* What a tool hears while events flow; members may be NULL.  Each is
 * called from the session's sample delivery, in time order. */
struct alloc_trace_hooks {
	/* An outermost allocator call was entered (c->size: bytes asked). */
	void (*entered)(void *ctx, const struct sample *smp, const struct alloc_call *c);
	/* A block or region was made and kept in the table (stack interned). */
	void (*made)(void *ctx, const struct sample *smp, const struct alloc_rec *r);
	/* A tracked block was freed (and is gone from the table). */
	void (*freed)(void *ctx, const struct sample *smp, const struct alloc_rec *r);
	/* An outermost allocator call (or mmap/mremap/brk) of smp->tid has
	 * returned, after made/freed: @made is the block or region it made
	 * and kept, or NULL (it failed, freed only, or its block was not
	 * kept). */
	void (*returned)(void *ctx, const struct sample *smp, const struct alloc_rec *made);
	/* A thread exited; the tracer has forgotten its calls in flight. */
	void (*thread_exit)(void *ctx, pid_t pid, pid_t tid);
	/* A process of the target dlopen'ed another allocator (@what:
	 * "jemalloc in PATH (dlopen'ed by pid N)"), whose @roles ("malloc,
	 * calloc, ..., free") are probed from now on; or, @err < 0, could
	 * not be probed (@msg says why): its calls are not seen. */
	void (*late)(void *ctx, const char *what, const char *roles, int err, const char *msg);
	/* A block or region its process held when it exec'd (@time): gone
	 * with the old image, neither freed nor leaked. */
	void (*gone)(void *ctx, const struct alloc_rec *r, uint64_t time);
	void *ctx;
};

struct alloc_trace_stats {
	uint64_t allocs;		/* blocks and regions kept */
	uint64_t allocs_by_kind[ALLOC_KIND__COUNT];	/* the same, by kind: they add up */
	uint64_t frees;			/* tracked blocks freed */
	uint64_t unknown_frees;		/* frees of blocks never seen made (sampled: picked addresses only) */
	uint64_t failed;		/* calls that failed (nothing allocated) */
	uint64_t dropped_exec;		/* outstanding when their process exec'd */
	uint64_t loader_regions;	/* the dynamic loader's own start-up regions, left out */
	uint64_t startup_blocks;	/* a static glibc's start-up blocks and regions, left out */
	uint64_t inherited;		/* copied to fork children (opts.inherit) */
	/* -s N in the kernel: the return, store and free samples the
	 * kernel's filters let through (one block in N, and the large). */
	uint64_t sampled_events;
};

/**
 * alloc_trace__new() - add the allocation events to @s and start tracking
 * @s:    a session not yet run; the tracer is one of its consumers
 *        (session__add_consumer) and its events call into the tracer, so
 *        the session must not run once the tracer is freed
 * @o:    options, copied
 * @h:    hooks, copied (may be NULL)
 *
 * Errors (-errno, detail in @eb): the probe spec does not load or names an
 * unknown role, the allocator lacks malloc or free, a probe or tracepoint
 * cannot be added, -ENOMEM.  A probe left out on purpose (posix_memalign's
 * store probe on another build) is no error: see alloc_trace__warning().
 */
int alloc_trace__new(struct session *s, const struct alloc_trace_opts *o,
		     const struct alloc_trace_hooks *h, struct alloc_trace **out, struct errbuf *eb);
void alloc_trace__free(struct alloc_trace *at);

/* The table of outstanding blocks and regions (owned by the tracer). */
struct alloc_track *alloc_trace__track(const struct alloc_trace *at);
const struct alloc_trace_stats *alloc_trace__stats(const struct alloc_trace *at);
/* "probing malloc, calloc, ..., free in PATH (static glibc)": the
 * allocator's functions probed and where, for the tool to tell first;
 * NULL in a replay or kernel mode.  Owned by @at. */
const char *alloc_trace__probed(struct alloc_trace *at);
/* The first allocator probed: "PATH (static glibc)" (NULL as for
 * alloc_trace__probed(), whose buffer it shares). */
const char *alloc_trace__object(struct alloc_trace *at);
/* The allocators probed once the run went on (dlopen'ed by a process of
 * the target after the start: see alloc-trace-late.c; in a replay,
 * those the recording did), each as "jemalloc in PATH (dlopen'ed
 * by pid N)". */
size_t alloc_trace__late_count(const struct alloc_trace *at);
const char *alloc_trace__late(const struct alloc_trace *at, size_t i);
/* -s N: the rule in force (rate 0 or 1: every block).  Owned by @at. */
const struct alloc_sample *alloc_trace__sample(const struct alloc_trace *at);
/* -s N: where blocks are sampled, for the tool to tell: "in the kernel
 * (...)" or "in user space, every event written: WHY"; NULL without -s. */
const char *alloc_trace__sampling(const struct alloc_trace *at);
/* Whether the kernel samples (its filters pick the blocks). */
bool alloc_trace__sampled_in_kernel(const struct alloc_trace *at);

/* What was left untraced at setup and why, for the tool to tell the user,
 * or NULL. */
const char *alloc_trace__warning(const struct alloc_trace *at);
/* The first error while events flowed (-ENOMEM), or 0. */
int alloc_trace__error(const struct alloc_trace *at);

#endif
