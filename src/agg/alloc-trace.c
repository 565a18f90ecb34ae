/*
 * alloc-trace: the allocation tracer shared by leak and faults --by-alloc.
 * See alloc-trace.h.
 *
 * Cost: stacks are unwound only for blocks that are kept (past the size
 * limits and sampling); size limits are kernel filters on the entry probes
 * that carry the size alone; free's probe moves to an instruction the
 * kernel emulates (SESSION_PLACE_CHEAP).
 *
 * Why so long: the setup of every rung (an allocator's probes from its
 * spec, sampled in the kernel or not; syscall tracepoints or libc's
 * wrappers; the kmem tracepoints) and the handler of each event kind share
 * the tracer's private state; the setup could go to a file of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "stack/addrspace.h"
#include "stack/alloc-find.h"
#include "stack/elf-sym.h"
#include "agg/alloc-sample.h"
#include "agg/alloc-trace.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/file.h"
#include "lib/hashmap.h"
#include "trace/probe-spec.h"
#include "trace/session.h"
#include "stack/stackdb.h"

/* What a probe of the spec does, by its name without _enter/_return. */
struct role {
	const char *name;
	enum alloc_fn fn;
	bool is_free;
	bool zero_frees;	/* realloc(p, 0) frees p */
};

static const struct role roles[] = {
	{ "malloc", ALLOC_MALLOC, false, false },
	{ "calloc", ALLOC_CALLOC, false, false },
	{ "realloc", ALLOC_REALLOC, false, true },
	{ "reallocarray", ALLOC_REALLOC, false, true },
	{ "aligned_alloc", ALLOC_MEMALIGN, false, false },
	{ "memalign", ALLOC_MEMALIGN, false, false },
	{ "valloc", ALLOC_MEMALIGN, false, false },
	{ "pvalloc", ALLOC_MEMALIGN, false, false },
	{ "posix_memalign", ALLOC_POSIX_MEMALIGN, false, false },
	{ "free", ALLOC_MALLOC, true, false },
	/* jemalloc's own API; C++ operators (new__array, delete__sized...) */
	{ "mallocx", ALLOC_MALLOC, false, false },
	{ "rallocx", ALLOC_REALLOC, false, false },
	{ "dallocx", ALLOC_MALLOC, true, false },
	{ "sdallocx", ALLOC_MALLOC, true, false },
	{ "new", ALLOC_MALLOC, false, false },
	{ "delete", ALLOC_MALLOC, true, false },
};


struct alloc_trace;

/* One event of the session and how to read it. */
struct probe_ctx {
	struct alloc_trace *at;
	const struct role *role;
	enum alloc_fn fn;		/* syscall and kernel events */
	struct tp_field f_size, f_nmemb, f_ptr, f_sp, f_ret, f_addr, f_len, f_flags, f_old_len,
		f_order, f_prot, f_hsz;
	bool has_nmemb, has_sp, has_ptr, has_flags, has_hsz;
	int kind;			/* KIND_* */
	uint64_t key_space;		/* kernel: which address space (slab, page, percpu) */
};

enum {
	KIND_ENTER, KIND_RETURN, KIND_STORE, KIND_FREE,
	KIND_SYS_ENTER, KIND_SYS_EXIT, KIND_MUNMAP,
	KIND_K_ALLOC, KIND_K_FREE,
};

/* Kernel allocations live in the table under these pseudo-pids, one per
 * address space: a pfn and a slab pointer may be equal numbers. */
#define KPID_SLAB 0
#define KPID_PAGE (-2)
#define KPID_PCPU (-3)

/* An object's probes: the roles placed ("malloc, calloc, ..., free"), in
 * which file. */
struct probed {
	char roles[256];
	char path[PATH_MAX];
};

/* An allocator probed once the run went on. */
/* at->objs values. */
enum { OBJ_PLAIN = 1, OBJ_PROBED = 2, OBJ_UNPROBED = 3 };

struct late {
	struct probed p;
	char line[PATH_MAX + 300];	/* "jemalloc in PATH (dlopen'ed by pid N)" */
};

struct alloc_trace {
	struct alloc_trace_opts o;
	struct alloc_trace_hooks h;
	struct session *s;
	struct alloc_track *track;
	struct hashmap *breaks;		/* pid -> program break after its last brk */
	struct hashmap *last_free;	/* tid -> the block its last free released, */
	struct hashmap *last_free_probe;	/* and that free's probe; until it allocates */
	struct probe_ctx **ctxs;
	size_t nctxs;
	pid_t filter_pid;		/* kernel mode with a target: its allocations */
	uint64_t exec_time;		/* of the exec whose blocks go (on_gone) */
	struct alloc_trace_stats st;
	/* -s N: the rule; by address bits (ALLOC_SAMPLE_BITS) exactly when
	 * the kernel applies it (the return, store and free probes
	 * filtered; no entry probe but realloc's, which frees), or applied
	 * it to the recording replayed: ksampled(). */
	struct alloc_sample sample;
	char sampling[640];
	struct hashmap *last_ret;	/* ksampled(): tid -> the block its last return made */
	bool posix_memalign_untracked;
	/* A static glibc's start-up functions (file offsets in its
	 * executable, device and inode): blocks made there are left out. */
	struct { uint64_t off, end; } startup[3];
	size_t nstartup;
	uint64_t startup_ino;
	uint32_t startup_maj, startup_min;
	char obj[PATH_MAX];		/* the allocator found, when opts gave none */
	char found[96];			/* what it is: "static glibc", "jemalloc, preloaded" */
	struct probed first;		/* its roles probed, and where */
	/* Objects mapped once the run goes on, by device and inode
	 * (obj_key()): OBJ_PLAIN no allocator, OBJ_PROBED probed (the first
	 * allocator's from the start), OBJ_UNPROBED an allocator whose
	 * probes failed. */
	struct hashmap *objs;
	/* pid -> 1 once it entered a probed allocator function since its
	 * exec (or the start): its libraries are loaded, a new one is
	 * dlopen'ed. */
	struct hashmap *running;
	/* pid -> 1 from its exec until it maps an object that defines malloc:
	 * ld.so maps the executable's allocator first (the program, its
	 * preloads, then its libraries in load order), so that object is the
	 * one its malloc calls: a program exec'd into a container, with the
	 * container's libc, gets that libc probed. */
	struct hashmap *fresh;
	/* -O or --probes named the object: no other is looked for after exec. */
	bool chosen;
	struct late *late;		/* the allocators probed late */
	size_t nlate;
	char line[PATH_MAX + 400];	/* alloc_trace__probed()'s */
	char warning[1100];		/* errbuf message + what it means */
	int err;
};

/* Sampled in the kernel (or a recording that was): the rule is its. */
static bool ksampled(const struct alloc_trace *at)
{
	return at->sample.by == ALLOC_SAMPLE_BITS;
}

/* An object's identity in at->objs: device and inode. */
static uint64_t obj_key(uint32_t maj, uint32_t min, uint64_t ino)
{
	return ino ^ ((uint64_t)maj << 52) ^ ((uint64_t)min << 40);
}

static int probe_object(struct alloc_trace *at, const char *name, const char *obj,
			const char *suffix, struct probed *po, struct errbuf *eb);

static bool field_u64(const struct tp_field *f, const struct sample *smp, uint64_t *v)
{
	return tp_field__u64(f, smp->raw, smp->raw_size, v) == 0;
}

static bool size_wanted(const struct alloc_trace *at, uint64_t size)
{
	return size >= at->o.min_size && (!at->o.max_size || size <= at->o.max_size);
}

static void release(struct alloc_trace *at, const struct sample *smp, pid_t pid, uint64_t addr,
		    uint64_t region_len)
{
	struct alloc_rec r;

	if (region_len) {
		if (alloc_track__unmap(at->track, pid, addr, region_len) < 0)
			at->err = -ENOMEM;
		return;
	}
	if (!alloc_track__remove(at->track, pid, addr, &r)) {
		at->st.frees++;
		if (at->h.freed)
			at->h.freed(at->h.ctx, smp, &r);
	} else if (alloc_sample__picked(&at->sample, addr)) {
		/* (the block's size unknown: among the addresses the small
		 * blocks' stratum would have kept) */
		at->st.unknown_frees++;
	}
}

/* Whether a path is a dynamic loader: ld-linux-x86-64.so.2, ld-2.17.so,
 * ld-musl-x86_64.so.1, whatever the directory; or musl's libc.so, which is
 * its loader (/lib/ld-musl-x86_64.so.1 links to it, and maps show the
 * file: its start-up brk of 8 KiB came out as a leak). */
static bool loader_path(const char *path)
{
	const char *base = path ? path_base(path) : NULL;

	return base && ((!strncmp(base, "ld-", 3) && strstr(base, ".so")) ||
			(!strcmp(base, "libc.so") && strstr(path, "musl")));
}

/*
 * A region the dynamic loader mapped for itself, every frame of its stack
 * inside the loader: ld.so's minimal malloc at start-up (search paths,
 * the initial TLS block) holds such memory for the life of the process.
 * It is the runtime's, not a leak of the program's, and BCC, which probes
 * libc's mmap only, never shows it either.
 */
static bool loader_own(struct alloc_trace *at, pid_t pid, uint32_t stack)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(at->s), stack, &nr);

	for (uint32_t i = 0; i < nr; i++) {
		const struct map *m = addrspaces__find(session__addrspaces(at->s), pid, ips[i]);

		if (!m || !loader_path(m->path))
			return false;
	}
	return nr > 0;
}

/*
 * A block or region a static glibc's start-up made for itself, before
 * main: _dl_non_dynamic_init (the paths, link map and origin its built-in
 * loader keeps: 5 blocks, ~1.8 KB) and __libc_setup_tls (the TLS block, by
 * brk).  In a dynamic program ld.so makes them with its own minimal
 * malloc, which is not probed; counted, they made every static program
 * look as if it leaked them.  Looked for in the innermost frames only.
 */
static bool startup_own(struct alloc_trace *at, pid_t pid, uint32_t stack)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(at->s), stack, &nr);

	for (uint32_t i = 0; i < nr && i < 6; i++) {
		uint64_t ip = ips[i] - (i > 0);	/* a return address: the call is before */
		const struct map *m = addrspaces__find(session__addrspaces(at->s), pid, ip);
		uint64_t off;

		if (!m || m->ino != at->startup_ino || m->maj != at->startup_maj ||
		    m->min != at->startup_min)
			continue;
		off = ip - m->start + m->pgoff;
		for (size_t k = 0; k < at->nstartup; k++)
			if (off >= at->startup[k].off && off < at->startup[k].end)
				return true;
	}
	return false;
}

/* Keep @r (its stack still to take) if the options want it; true when
 * it was kept. */
static bool keep(struct alloc_trace *at, const struct sample *smp, struct alloc_rec *r,
		 bool kernel)
{
	int err;

	/* Regions are few and large: sampling them would only add noise. */
	if (!size_wanted(at, r->size) ||
	    (!r->region && !alloc_sample__weight(&at->sample, r->addr, r->size)))
		return false;
	err = kernel ? session__kernel_stack(at->s, smp, &r->stack) :
		       session__user_stack(at->s, smp, &r->stack);
	if (!err && r->region && !kernel && loader_own(at, r->pid, r->stack)) {
		at->st.loader_regions++;
		return false;
	}
	/* Sampled in the kernel, the allocator's entries are not seen: a
	 * region made while a call of it is in flight (its mmap for a large
	 * block, its brk) shows its return probe's trampoline on the stack,
	 * and is the allocator's, not the program's. */
	if (!err && r->region && !kernel && ksampled(at) &&
	    session__stack_return_probed(at->s, r->pid, r->stack))
		return false;
	if (!err && !kernel && at->nstartup && startup_own(at, r->pid, r->stack)) {
		at->st.startup_blocks++;
		return false;
	}
	if (!err)
		err = alloc_track__add(at->track, r);
	if (err) {
		at->err = err;
		return false;
	}
	at->st.allocs++;
	at->st.allocs_by_kind[alloc_rec__kind(r)]++;
	if (at->h.made)
		at->h.made(at->h.ctx, smp, r);
	return true;
}

/* @pid runs its program: a library it maps from now on is dlopen'ed. */
static void mark_running(struct alloc_trace *at, pid_t pid)
{
	/* It called a probed allocator: that one is its program's. */
	hashmap__delete(at->fresh, (uint64_t)pid, NULL);
	if (!hashmap__get(at->running, (uint64_t)pid, NULL) &&
	    hashmap__set(at->running, (uint64_t)pid, 1))
		at->err = -ENOMEM;
}

static void on_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	struct alloc_call c = { .fn = pc->role->fn, .time = smp->time };
	uint64_t nmemb = 1;

	(void)s;
	mark_running(at, (pid_t)smp->pid);
	if (!field_u64(&pc->f_size, smp, &c.size))
		return;
	if (pc->has_nmemb && field_u64(&pc->f_nmemb, smp, &nmemb) &&
	    __builtin_mul_overflow(c.size, nmemb, &c.size))
		c.size = 0;	/* the call fails with ENOMEM */
	if (pc->has_ptr)
		field_u64(&pc->f_ptr, smp, &c.old);
	if (pc->has_sp)
		field_u64(&pc->f_sp, smp, &c.sp);
	if (alloc_track__enter(at->track, (pid_t)smp->tid, &c)) {
		at->err = -ENOMEM;
		return;
	}
	if (at->h.entered && !c.inner)
		at->h.entered(at->h.ctx, smp, &c);
}

static void returned(struct alloc_trace *at, const struct sample *smp,
		     const struct alloc_rec *made)
{
	if (at->h.returned)
		at->h.returned(at->h.ctx, smp, made);
}

static void complete(struct alloc_trace *at, const struct sample *smp, const struct alloc_call *c,
		     uint64_t ret, bool zero_frees)
{
	struct alloc_rec r = { .time = smp->time, .pid = (pid_t)smp->pid, .fn = (uint8_t)c->fn,
			       .region = c->fn >= ALLOC_MMAP };
	bool kept = false;
	struct alloc_effect e;

	alloc_call__effect(c, ret, zero_frees, &e);
	if (e.allocates)
		hashmap__delete(at->last_free, (uint64_t)smp->tid, NULL);
	if (e.failed)
		at->st.failed++;
	if (e.frees)
		release(at, smp, r.pid, e.freed, r.region ? e.freed_size : 0);
	if (e.allocates) {
		r.addr = e.addr;
		r.size = e.size;
		/* glibc serves a block above its threshold from an mmap of
		 * its own, made inside this very call. */
		r.mapped = !r.region && c->map_len && e.addr >= c->map_addr &&
			   e.addr - c->map_addr < c->map_len;
		kept = keep(at, smp, &r, false);
	}
	returned(at, smp, kept ? &r : NULL);
}

static void on_return(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	struct alloc_call c;
	uint64_t ret = 0, sp = 0;

	(void)s;
	if (!field_u64(&pc->f_ret, smp, &ret))
		return;
	if (pc->has_sp)
		field_u64(&pc->f_sp, smp, &sp);
	if (alloc_track__leave(at->track, (pid_t)smp->tid, sp, &c) || c.inner)
		return;
	if (c.fn == ALLOC_POSIX_MEMALIGN && at->posix_memalign_untracked) {
		returned(at, smp, NULL);
		return;
	}
	complete(at, smp, &c, ret, pc->role->zero_frees);
}

/*
 * -s N in the kernel: a return or posix_memalign's store, already picked
 * by the filter, makes a block on its own (no entry event: its size is
 * the usable size from the chunk header).  Two returns of one block in a
 * row are one call seen twice: a probed function that tail-calls another
 * (reallocarray into realloc, realloc(NULL, n) into malloc) returns
 * through both return probes at once.
 */
static void made_sampled(struct alloc_trace *at, const struct sample *smp, const struct role *role,
			 uint64_t addr, uint64_t hsz)
{
	struct alloc_call c = { .fn = role->fn, .time = smp->time };
	uint64_t last;
	bool mapped;

	at->st.sampled_events++;
	mark_running(at, (pid_t)smp->pid);
	if (hashmap__get(at->last_ret, (uint64_t)smp->tid, &last) && last == addr &&
	    alloc_track__has(at->track, (pid_t)smp->pid, addr))
		return;
	if (hashmap__set(at->last_ret, (uint64_t)smp->tid, addr))
		at->err = -ENOMEM;
	c.size = alloc_sample__glibc_usable(hsz, &mapped);
	if (mapped) {
		c.map_addr = addr;	/* glibc's own mmap for this block */
		c.map_len = c.size;
	}
	if (c.fn == ALLOC_POSIX_MEMALIGN) {
		c.ptr = addr;
		addr = 0;	/* its return code: success */
	} else {
		c.fn = ALLOC_MALLOC;	/* no old block: that was the entry's */
	}
	complete(at, smp, &c, addr, false);
}

/* A return's address is its value; the store's, its ptr. */
static void on_made_sampled(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t addr = 0, hsz = 0;

	(void)s;
	if (field_u64(pc->kind == KIND_RETURN ? &pc->f_ret : &pc->f_ptr, smp, &addr) &&
	    field_u64(&pc->f_hsz, smp, &hsz) && addr)
		made_sampled(pc->at, smp, pc->role, addr, hsz);
}

static void on_store(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t ptr = 0;

	(void)s;
	if (field_u64(&pc->f_ptr, smp, &ptr))
		alloc_track__note_ptr(pc->at->track, (pid_t)smp->tid, ALLOC_POSIX_MEMALIGN, ptr);
}

static void on_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	uint64_t ptr = 0, last, probe;

	(void)s;
	mark_running(at, (pid_t)smp->pid);
	if (ksampled(at))
		at->st.sampled_events++;
	if (!field_u64(&pc->f_ptr, smp, &ptr) || !ptr)
		return;
	if (ksampled(at))
		hashmap__delete(at->last_ret, (uint64_t)smp->tid, NULL);
	/* A free inside realloc is realloc's business. */
	if (alloc_track__busy(at->track, (pid_t)smp->tid))
		return;
	/* An operator delete that jumps to a probed free (jemalloc's 10
	 * unsized and aligned forms jmp to free, mimalloc's sized ones to
	 * mi_free_size) is one free seen by two probes: no call is in
	 * flight to say so (frees have no return probe), but it is the same
	 * block, from another probe, with no allocation by the thread in
	 * between.  Counted as a free of an unknown block, it made 500 of
	 * 600 deletes look like frees from before tracing.  The same probe
	 * twice is two calls (a block freed, reallocated by another thread,
	 * freed again: leak-target's cross_thread). */
	if (hashmap__get(at->last_free, (uint64_t)smp->tid, &last) && last == ptr &&
	    hashmap__get(at->last_free_probe, (uint64_t)smp->tid, &probe) &&
	    probe != (uint64_t)(uintptr_t)pc)
		return;
	if (hashmap__set(at->last_free, (uint64_t)smp->tid, ptr) ||
	    hashmap__set(at->last_free_probe, (uint64_t)smp->tid, (uint64_t)(uintptr_t)pc))
		at->err = -ENOMEM;
	release(at, smp, (pid_t)smp->pid, ptr, 0);
}

/* mmap/mremap/brk entry.  Only anonymous memory is allocation: not file
 * mappings, not MAP_FIXED over an existing mapping (ld.so's .bss), not
 * thread stacks (MAP_STACK: glibc caches them), not PROT_NONE address
 * space reserved for later (glibc's per-thread arenas reserve 64 MiB
 * that way, from inside free() when a thread's first free sets up its
 * tcache, where no return probe marks the call as the allocator's). */
static void on_sys_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	struct alloc_call c = { .fn = pc->fn, .time = smp->time };
	uint64_t flags = 0, prot = 0, brk = 0;

	(void)s;
	switch (pc->fn) {
	case ALLOC_MMAP:
		if (!field_u64(&pc->f_len, smp, &c.size) || !field_u64(&pc->f_flags, smp, &flags) ||
		    !field_u64(&pc->f_prot, smp, &prot))
			return;
		if (!(flags & MAP_ANONYMOUS) || (flags & (MAP_FIXED | MAP_STACK)) || prot == PROT_NONE)
			c.size = 0;	/* not an allocation: ignored at its exit */
		break;
	case ALLOC_MREMAP:
		if (!field_u64(&pc->f_addr, smp, &c.old) || !field_u64(&pc->f_old_len, smp, &c.old_size) ||
		    !field_u64(&pc->f_len, smp, &c.size))
			return;
		break;
	case ALLOC_BRK:
		if (!field_u64(&pc->f_size, smp, &c.size))
			return;
		if (hashmap__get(at->breaks, (uint64_t)smp->pid, &brk))
			c.old = brk;
		break;
	default:
		return;
	}
	if (alloc_track__enter(at->track, (pid_t)smp->tid, &c))
		at->err = -ENOMEM;
}

static void on_sys_exit(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	struct alloc_call c;
	uint64_t ret = 0;

	(void)s;
	if (!field_u64(&pc->f_ret, smp, &ret))
		return;
	/* A syscall never nests: its exit pairs with the innermost entry. */
	if (alloc_track__leave(at->track, (pid_t)smp->tid, 0, &c) || c.fn != pc->fn)
		return;
	/* The break moves whoever moved it, malloc included. */
	if (c.fn == ALLOC_BRK && !(ret >= (uint64_t)-4095) &&
	    hashmap__set(at->breaks, (uint64_t)smp->pid, ret))
		at->err = -ENOMEM;
	if (c.inner) {
		/* The allocator mapped memory for the call in flight. */
		if (c.size && c.fn != ALLOC_BRK && ret < (uint64_t)-4095)
			alloc_track__note_map(at->track, (pid_t)smp->tid, ret, c.size);
		return;
	}
	if (c.fn == ALLOC_MMAP && !c.size) {
		returned(at, smp, NULL);	/* a mapping, not an allocation */
		return;
	}
	complete(at, smp, &c, ret, false);
}

static void on_munmap(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	uint64_t addr = 0, len = 0;

	(void)s;
	if (!field_u64(&pc->f_addr, smp, &addr) || !field_u64(&pc->f_len, smp, &len) || !len)
		return;
	if (alloc_track__busy(at->track, (pid_t)smp->tid))
		return;
	release(at, smp, (pid_t)smp->pid, addr, len);
}

static void on_k_alloc(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	uint64_t ptr = 0, size = 0, order = 0;

	(void)s;
	if (at->filter_pid && (pid_t)smp->pid != at->filter_pid)
		return;
	if (!field_u64(&pc->f_ptr, smp, &ptr) || ptr <= 16)	/* NULL, ZERO_SIZE_PTR */
		return;
	if (pc->key_space == (uint64_t)KPID_PAGE) {
		if (!field_u64(&pc->f_order, smp, &order) || order > 20)
			return;
		size = 4096ULL << order;
	} else if (!field_u64(&pc->f_size, smp, &size)) {
		return;
	}
	keep(at, smp, &(struct alloc_rec){ .addr = ptr, .size = size, .time = smp->time,
					    .pid = (pid_t)pc->key_space, .fn = ALLOC_MALLOC },
	     true);
}

static void on_k_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t ptr = 0;

	(void)s;
	if (field_u64(&pc->f_ptr, smp, &ptr) && ptr > 16)
		release(pc->at, smp, (pid_t)pc->key_space, ptr, 0);
}

/* A block or region its process held when it exec'd. */
static void on_gone(void *ctx, const struct alloc_rec *r)
{
	struct alloc_trace *at = ctx;

	at->h.gone(at->h.ctx, r, at->exec_time);
}

static void on_exec(struct session *s, pid_t pid, uint64_t time, void *ctx)
{
	struct alloc_trace *at = ctx;

	(void)s;
	/* A new image: the old heap and mappings are gone, not leaked, and
	 * no later fault or free at their addresses is theirs. */
	at->exec_time = time;
	at->st.dropped_exec += alloc_track__drop_pid(at->track, pid,
						     at->h.gone ? on_gone : NULL, at);
	hashmap__delete(at->breaks, (uint64_t)pid, NULL);
	hashmap__delete(at->running, (uint64_t)pid, NULL);	/* ld.so loads its libraries */
	if (!at->o.kernel && !at->chosen && hashmap__set(at->fresh, (uint64_t)pid, 1))
		at->err = -ENOMEM;
}

/* The probes of spec @spec on @path, their events named with @suffix,
 * added to the running session (in a replay: the recorded ones). */
static int probe_late(struct alloc_trace *at, const char *spec, const char *path,
		      const char *suffix, struct late *lt, struct errbuf *eb)
{
	struct errbuf eb2 = { "" };
	int err, err2;

	err = session__grow_begin(at->s, eb);
	if (err)
		return err;
	err = probe_object(at, spec, path, suffix, &lt->p, eb);
	err2 = session__grow_end(at->s, !err, &eb2);
	if (!err && err2) {
		errbuf__set(eb, err2, "%s", eb2.msg);
		err = err2;
	}
	return err;
}

/* A new slot in at->late, zeroed; NULL when out of memory. */
static struct late *new_late(struct alloc_trace *at)
{
	struct late *nv = realloc(at->late, (at->nlate + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	at->late = nv;
	memset(&nv[at->nlate], 0, sizeof(*nv));
	return &nv[at->nlate];
}

/*
 * Recording, an allocator probed late is told to the replay in the stream,
 * after its EVENTs (session__grow_end wrote them): the META "alloc.late",
 * "SUFFIX<tab>SPEC<tab>PATH<tab>WHAT" (the events' name suffix, the probe
 * spec, the object, the line the tools print).  A replay adds the same
 * probes' recorded events there (on_meta).
 */
#define LATE_META "alloc.late"

static void record_late(struct alloc_trace *at, const char *suffix, const char *spec,
			const char *path, const char *what)
{
	char v[sizeof(((struct late *)0)->line) + PATH_MAX + 128];
	int err;

	snprintf(v, sizeof(v), "%s\t%s\t%s\t%s", suffix, spec, path, what);
	err = session__record_meta(at->s, LATE_META, v);
	if (err && !at->err)
		at->err = err;	/* the recorder latched it too: the run fails */
}

/*
 * A process of the target mapped code.  Looked at when the process runs
 * already (it entered the allocator since its exec: a library dlopen'ed;
 * the libraries ld.so loads at start-up, among them a libc whose malloc a
 * preloaded or linked-in allocator overrides, come before), or when it was
 * exec'd and this is the first object it maps that defines malloc (its
 * program's allocator: a command that enters a container execs a program
 * whose libc is the container's).  One that defines malloc and is not
 * probed yet gets its allocator's probes now, on every task of the target;
 * what it allocated before is not seen.
 */
static void on_mmap(struct session *s, pid_t pid, const struct map *m, void *ctx)
{
	struct alloc_trace *at = ctx;
	struct errbuf eb = { "" };
	char path[PATH_MAX];
	struct allocator al;
	struct late *lt;
	char suffix[24];
	uint64_t key = obj_key(m->maj, m->min, m->ino), seen = 0;
	bool fresh;
	int err;

	/* A replay learns them from the recording (on_meta), not from
	 * files here. */
	if (at->o.kernel || !(m->prot & PROT_EXEC) || !m->path || m->path[0] != '/' || !m->ino ||
	    session__replaying(s) || !session__in_target(s, pid))
		return;
	fresh = hashmap__get(at->fresh, (uint64_t)pid, NULL);
	if (!fresh && !hashmap__get(at->running, (uint64_t)pid, NULL))
		return;
	if (hashmap__get(at->objs, key, &seen)) {
		/* Its allocator is one looked at before: decided. */
		if (fresh && seen != OBJ_PLAIN)
			hashmap__delete(at->fresh, (uint64_t)pid, NULL);
		return;
	}
	if (elf_sym__mapped_file(pid, m, path, sizeof(path), NULL))
		return;		/* gone already */
	if (allocator__identify(path, fresh ? "exec'd" : "dlopen'ed", &al)) {
		if (hashmap__set(at->objs, key, OBJ_PLAIN))
			at->err = -ENOMEM;
		return;
	}
	hashmap__delete(at->fresh, (uint64_t)pid, NULL);
	lt = new_late(at);
	if (!lt || hashmap__set(at->objs, key, OBJ_UNPROBED)) {
		at->err = -ENOMEM;
		return;
	}
	snprintf(suffix, sizeof(suffix), "_l%zu", at->nlate + 1);
	err = probe_late(at, al.spec, al.path, suffix, lt, &eb);
	if (fresh)
		snprintf(lt->line, sizeof(lt->line),
			 "%s in %s as pid %d sees it (the allocator of the program it exec'd)",
			 al.name, m->path, (int)pid);
	else
		snprintf(lt->line, sizeof(lt->line), "%s in %s (dlopen'ed by pid %d)", al.name,
			 m->path, (int)pid);
	if (!err) {
		at->nlate++;
		hashmap__set(at->objs, key, OBJ_PROBED);
		if (session__recording(s))
			record_late(at, suffix, al.spec, al.path, lt->line);
	}
	if (at->h.late)
		at->h.late(at->h.ctx, lt->line, lt->p.roles, err, eb.msg);
}

/* Replaying: an allocator the recording probed late (record_late()), its
 * recorded events added from here on.  Said only when that fails: the
 * report names it with the others (alloc_trace__late()). */
static void on_meta(struct session *s, const char *key, const char *value, void *ctx)
{
	struct alloc_trace *at = ctx;
	struct errbuf eb = { "" };
	char f[4][sizeof(((struct late *)0)->line)];
	const char *p = value;
	struct late *lt;
	int err;

	if (strcmp(key, LATE_META) || at->o.kernel)
		return;
	for (int i = 0; i < 4; i++) {
		size_t n = i < 3 ? strcspn(p, "\t") : strlen(p);

		if (n >= sizeof(f[i]) || (i < 3 && p[n] != '\t')) {
			f[0][0] = '\0';
			break;
		}
		memcpy(f[i], p, n);
		f[i][n] = '\0';
		p += n + (i < 3);
	}
	lt = new_late(at);
	if (!lt) {
		at->err = -ENOMEM;
		return;
	}
	/* A spec by name only: a recording names no file to load. */
	if (strncmp(f[0], "_l", 2) || !f[1][0] || strchr(f[1], '/') || !f[2][0]) {
		snprintf(lt->line, sizeof(lt->line), "an allocator the recording probed late");
		err = errbuf__set(&eb, -EBADMSG, "the recording's %s is malformed", LATE_META);
	} else {
		snprintf(lt->line, sizeof(lt->line), "%s", f[3]);
		err = probe_late(at, f[1], f[2], f[0], lt, &eb);
	}
	if (!err)
		at->nlate++;
	else if (at->h.late)
		at->h.late(at->h.ctx, lt->line, lt->p.roles, err, eb.msg);
	(void)s;
}

/* Recording: a probed allocator's entry (or free) that went to the file
 * says, as on_enter() would, that the process runs its program. */
static void on_recorded(struct session *s, const struct sample *smp, session_sample_fn fn,
			void *fn_ctx, void *ctx)
{
	(void)s;
	(void)fn_ctx;
	if (fn == on_enter || fn == on_free)
		mark_running(ctx, (pid_t)smp->pid);
}

/* Events were lost: a call in flight may have lost its return, and a call
 * left in flight makes every later one on its thread look nested inside
 * it (an allocator's inner call, not counted), which would hide the rest
 * of the run.  Forget them all: a return whose entry is forgotten counts
 * as lost, an inner call whose outer one is forgotten counts on its own. */
static void on_lost(struct session *s, uint64_t n, void *ctx)
{
	struct alloc_trace *at = ctx;

	(void)s;
	(void)n;
	alloc_track__drop_calls(at->track);
}

static void on_thread_exit(struct session *s, pid_t pid, pid_t tid, void *ctx)
{
	struct alloc_trace *at = ctx;

	(void)s;
	alloc_track__forget_thread(at->track, tid);
	hashmap__delete(at->last_free, (uint64_t)tid, NULL);
	hashmap__delete(at->last_free_probe, (uint64_t)tid, NULL);
	hashmap__delete(at->last_ret, (uint64_t)tid, NULL);
	if (pid == tid)
		hashmap__delete(at->breaks, (uint64_t)pid, NULL);
	if (at->h.thread_exit && !session__recording(s))
		at->h.thread_exit(at->h.ctx, pid, tid);
}

static void on_fork(struct session *s, pid_t parent, pid_t child, void *ctx)
{
	struct alloc_trace *at = ctx;
	uint64_t brk;
	int64_t n;

	(void)s;
	if (hashmap__get(at->running, (uint64_t)parent, NULL))
		mark_running(at, child);	/* a copy, running as its parent did */
	if (!at->o.inherit)
		return;
	/* The child's memory is a copy of the parent's, blocks and break. */
	n = alloc_track__fork(at->track, parent, child);
	if (n < 0 || (hashmap__get(at->breaks, (uint64_t)parent, &brk) &&
		      hashmap__set(at->breaks, (uint64_t)child, brk))) {
		at->err = -ENOMEM;
		return;
	}
	at->st.inherited += (uint64_t)n;
}

/* ---- setup ---- */

static struct probe_ctx *new_ctx(struct alloc_trace *at, int kind)
{
	struct probe_ctx *pc = calloc(1, sizeof(*pc)), **nv;

	if (!pc)
		return NULL;
	nv = realloc(at->ctxs, (at->nctxs + 1) * sizeof(*nv));
	if (!nv) {
		free(pc);
		return NULL;
	}
	at->ctxs = nv;
	nv[at->nctxs++] = pc;
	pc->at = at;
	pc->kind = kind;
	return pc;
}

/*
 * The role of a probe named ROLE_enter, ROLE_return or ROLE_store, or
 * ROLE__VARIANT_... : one role served by several functions (operator new,
 * new[], their nothrow and aligned forms are all "new": new__array_enter,
 * new__aligned_nothrow_return...).  Entry and return pair by stack
 * pointer, so the variants of a role never mix.
 */
static const struct role *role_of(const char *probe, int *kind)
{
	static const struct { const char *suffix; int kind; } suffixes[] = {
		{ "_enter", KIND_ENTER }, { "_return", KIND_RETURN }, { "_store", KIND_STORE },
	};

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t ls = strlen(suffixes[i].suffix), lp = strlen(probe), lr;
		const char *variant = strstr(probe, "__");

		if (lp <= ls || strcmp(probe + lp - ls, suffixes[i].suffix))
			continue;
		lr = variant && variant > probe && (size_t)(variant - probe) < lp - ls ?
		     (size_t)(variant - probe) : lp - ls;
		for (size_t r = 0; r < sizeof(roles) / sizeof(roles[0]); r++) {
			if (strlen(roles[r].name) == lr && !strncmp(probe, roles[r].name, lr)) {
				*kind = roles[r].is_free ? KIND_FREE : suffixes[i].kind;
				return &roles[r];
			}
		}
	}
	return NULL;
}

/* Which probe spec: --probes, else by the -O library's name, else the
 * one of the allocator found (@found), else glibc's. */
static const char *spec_name(const struct alloc_trace_opts *lo, const char *found)
{
	if (lo->probes)
		return lo->probes;
	if (lo->obj && strstr(lo->obj, "jemalloc"))
		return "jemalloc";
	if (lo->obj && strstr(lo->obj, "tcmalloc"))
		return "tcmalloc";
	if (lo->obj && strstr(lo->obj, "mimalloc"))
		return "mimalloc";
	return found ? found : "glibc";
}

/* A static glibc's start-up functions in @path (startup_own), kept in a
 * recording's meta "alloc.startup" as "INO MAJ MIN OFF-END..." for its
 * replay.  Missing functions are no error: there is less to leave out. */
static void startup_find(struct alloc_trace *at, const char *path)
{
	static const char *const fns[] = { "_dl_non_dynamic_init", "__libc_setup_tls",
					   "__libc_init_first" };
	char meta[256];
	struct stat st;
	size_t used;

	if (stat(path, &st))
		return;
	at->startup_ino = st.st_ino;
	at->startup_maj = major(st.st_dev);
	at->startup_min = minor(st.st_dev);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		uint64_t off, size;

		if (elf_sym__function(path, fns[i], &off, &size, NULL) || !size)
			continue;
		at->startup[at->nstartup].off = off;
		at->startup[at->nstartup++].end = off + size;
	}
	if (!at->nstartup || !session__recording(at->s))
		return;
	used = (size_t)snprintf(meta, sizeof(meta), "%" PRIu64 " %u %u", at->startup_ino,
				at->startup_maj, at->startup_min);
	for (size_t k = 0; k < at->nstartup && used < sizeof(meta); k++)
		used += (size_t)snprintf(meta + used, sizeof(meta) - used, " %" PRIu64 "-%" PRIu64,
					 at->startup[k].off, at->startup[k].end);
	session__record_meta(at->s, "alloc.startup", meta);
}

/* The same from a recording's meta. */
static void startup_replay(struct alloc_trace *at, const char *meta)
{
	const char *s = meta;
	char *end;

	if (!s || sscanf(s, "%" SCNu64 " %u %u", &at->startup_ino, &at->startup_maj,
			 &at->startup_min) != 3)
		return;
	for (int f = 0; f < 3 && s; f++)
		s = strchr(s + 1, ' ');
	while (s && at->nstartup < sizeof(at->startup) / sizeof(at->startup[0])) {
		uint64_t off = strtoull(s + 1, &end, 10), e;

		if (*end != '-')
			break;
		e = strtoull(end + 1, &end, 10);
		at->startup[at->nstartup].off = off;
		at->startup[at->nstartup++].end = e;
		s = *end == ' ' ? end : NULL;
	}
}

/*
 * Without -O and --probes: the object that provides the target's malloc
 * (alloc-find.h), for a command before it runs, for a process from its
 * maps; a replay takes the spec the recording was made with.  0 and
 * *spec NULL: nothing to find (every process, or a file we cannot read),
 * the spec's library by name as before; -ENOENT: the target has no
 * allocator, said in @eb.
 */
static int find_allocator(struct alloc_trace *at, struct allocator *al, const char **spec,
			  struct errbuf *eb)
{
	const char *exe = session__target_exe(at->s);
	pid_t pid = session__target_pid(at->s);
	struct errbuf why = { "" };
	int err;

	*spec = NULL;
	if (at->o.obj || at->o.probes) {
		at->chosen = true;
		return 0;
	}
	if (session__replaying(at->s)) {
		*spec = session__meta(at->s, "alloc.spec");
		startup_replay(at, session__meta(at->s, "alloc.startup"));
		return 0;
	}
	err = session__need_user_space(at->s, eb);
	if (err)
		return err;
	if (exe)
		err = allocator__find_exec(exe, getenv("LD_PRELOAD"), getenv("LD_LIBRARY_PATH"), al,
					   &why);
	else if (pid > 0)
		err = allocator__find_pid(pid, al, &why);
	else
		return 0;
	if (err == -ENOENT)
		return errbuf__set(eb, err, "no allocator to probe: %s (-O names one)", why.msg);
	if (err)
		return 0;
	*spec = al->spec;
	snprintf(at->obj, sizeof(at->obj), "%s", al->path);
	at->o.obj = at->obj;
	if (!strcmp(al->where, "static") && !strcmp(al->spec, "glibc"))
		startup_find(at, al->path);
	if (!strcmp(al->where, "static"))
		snprintf(at->found, sizeof(at->found), "static %s", al->name);
	else if (!strcmp(al->where, "library"))
		snprintf(at->found, sizeof(at->found), "%s", al->name);
	else
		snprintf(at->found, sizeof(at->found), "%s, %s", al->name, al->where);
	return 0;
}

/* "malloc, calloc, ..." grows by the role of a probe placed. */
static void note_probed(struct probed *po, const struct role *role)
{
	size_t len = strlen(po->roles);
	char *hit = strstr(po->roles, role->name);

	while (hit && ((hit > po->roles && hit[-1] != ' ') ||
		       (hit[strlen(role->name)] && hit[strlen(role->name)] != ',')))
		hit = strstr(hit + 1, role->name);
	if (!hit)
		snprintf(po->roles + len, sizeof(po->roles) - len, "%s%s", len ? ", " : "",
			 role->name);
}

/* The META of a recording whose allocations the kernel sampled (record
 * -s N): N. */
#define SAMPLE_META "alloc.sample"

/* alloc_trace__sampling()'s text: in the kernel (@why NULL), or here and why. */
static void describe_sampling(struct alloc_trace *at, const char *why)
{
	if (!why)
		snprintf(at->sampling, sizeof(at->sampling),
			 "in the kernel: every block of %d bytes or more (its usable size, from "
			 "glibc's chunk header) and 1 smaller block in %" PRIu64 " (address bits 7-%u "
			 "all set), by the return and free probes' filters", ALLOC_SAMPLE_WHOLE,
			 at->sample.rate, 6 + (unsigned int)__builtin_ctzll(at->sample.rate));
	else
		snprintf(at->sampling, sizeof(at->sampling),
			 "in user space: every block of %d bytes or more and 1 smaller block in %" PRIu64
			 " (by a hash of its address), every event still written: %s",
			 ALLOC_SAMPLE_WHOLE, at->sample.rate, why);
}

/*
 * -s N in the kernel for this object's probes?  The first object decides
 * for the run (at->sample.by, and what alloc_trace__sampling() says); an
 * allocator probed later is sampled the same way when its spec can be.
 */
static bool sample_here(struct alloc_trace *at, const struct probe_set *set, const char *obj)
{
	bool header = probe_set__block_size(set) == PROBE_BLOCK_SIZE_GLIBC_CHUNK;
	const char *why = NULL;

	if (obj)
		return ksampled(at) && header;
	if (ksampled(at)) {
		/* A recording sampled in the kernel: its events are the
		 * sampled probes' (recorded_sample() took the rule). */
		describe_sampling(at, NULL);
		return true;
	}
	if (at->sample.rate <= 1)
		return false;
	if (!session__uprobe_filters_in_kernel(at->s))
		why = session__replaying(at->s) ? "replayed from a recording of every event" :
		      "the uprobe PMU has no fetchargs and runs no filter in the kernel";
	else if (!header)
		why = "this allocator's blocks have no size header a kernel filter can read "
		      "(glibc's only: the probe spec's block-size)";
	else if (!alloc_sample__bits_ok(at->sample.rate))
		why = "N is not a power of two (the kernel's filter picks by address bits)";
	if (why) {
		describe_sampling(at, why);
		return false;
	}
	at->sample.by = ALLOC_SAMPLE_BITS;
	describe_sampling(at, NULL);
	if (session__recording(at->s)) {
		char v[24];

		snprintf(v, sizeof(v), "%" PRIu64, at->sample.rate);
		session__record_meta(at->s, SAMPLE_META, v);
	}
	return true;
}

/* The kernel refused the sampled probe: back to sampling here. */
static void sample_refused(struct alloc_trace *at, const struct errbuf *eb)
{
	char why[300];

	at->sample.by = ALLOC_SAMPLE_HASH;
	snprintf(why, sizeof(why), "the kernel refused the filter's probe (%.200s)",
		 eb && eb->msg[0] ? eb->msg : "?");
	describe_sampling(at, why);
}

/* @spec with the fetchargs the kernel's sampling filter reads (the
 * header word and the picking bits of the address it returns or takes). */
static int sample_spec(struct alloc_trace *at, const struct probe_spec *spec, int kind,
		       struct probe_spec *out, char *buf, size_t n, struct errbuf *eb)
{
	char value[64], extra[160];
	int w;

	if (probe_spec__fetcharg(spec, kind == KIND_RETURN ? "ret" : "ptr", value, sizeof(value)) ||
	    alloc_sample__fetchargs(&at->sample, value, extra, sizeof(extra)))
		return errbuf__set(eb, -EINVAL, "probe '%s' gives no address a filter can read",
				   spec->name);
	w = snprintf(buf, n, "%s%s%s", spec->fetchargs, spec->fetchargs[0] ? " " : "", extra);
	if (w < 0 || (size_t)w >= n)
		return errbuf__set(eb, -ENOSPC, "probe '%s': fetchargs too long", spec->name);
	*out = *spec;
	out->fetchargs = buf;
	return 0;
}

struct placed {
	char path[PATH_MAX];
	uint64_t off;
	int kind;
};

/* The handler of a probe of @kind (@ks: sampled in the kernel), and the
 * flags its event takes, added to *@flags. */
static session_sample_fn probe_handler(int kind, bool ks, unsigned int *flags)
{
	switch (kind) {
	case KIND_RETURN:
		*flags |= SESSION_USER_STACK | SESSION_RETURN_PROBED;
		return ks ? on_made_sampled : on_return;
	case KIND_STORE:
		return ks ? on_made_sampled : on_store;
	case KIND_FREE:
		return on_free;
	default:
		/* Its return is probed: stacks sampled inside the call (a
		 * fault, a brk) need the entry's return address to unwind
		 * past the kernel's trampoline. */
		*flags |= SESSION_RETURN_PROBED;
		return on_enter;
	}
}

/* The fields @pc reads from its event @ev, and the event's kernel
 * filters: the sizes of -z/-Z, the sampling rule (@ks), free's NULL. */
static int probe_fields(struct alloc_trace *at, struct probe_ctx *pc, const struct tp_event *ev,
			const struct probe_spec *spec, const char *name, bool ks, struct errbuf *eb)
{
	int kind = pc->kind;
	char filter[128];
	int err = 0;

	pc->has_sp = !tp_event__field(ev, "sp", &pc->f_sp);
	pc->has_hsz = !tp_event__field(ev, "hsz", &pc->f_hsz);
	pc->has_nmemb = !tp_event__field(ev, "nmemb", &pc->f_nmemb);
	pc->has_ptr = !tp_event__field(ev, "ptr", &pc->f_ptr);
	if ((kind == KIND_ENTER && tp_event__field(ev, "size", &pc->f_size)) ||
	    (kind == KIND_RETURN && tp_event__field(ev, "ret", &pc->f_ret)) ||
	    ((kind == KIND_FREE || kind == KIND_STORE) && !pc->has_ptr))
		return errbuf__set(eb, -EINVAL, "probe '%s' of spec '%s' lacks the fetcharg its "
				   "role reads (size, ret or ptr)", spec->name, name);
	/* Sizes filtered in the kernel where the size alone decides: not
	 * calloc (a product) nor realloc (whose 0 frees). */
	if (kind == KIND_ENTER && !pc->has_nmemb && pc->role->fn != ALLOC_REALLOC &&
	    (at->o.min_size || at->o.max_size)) {
		if (at->o.max_size)
			snprintf(filter, sizeof(filter), "size >= %" PRIu64 " && size <= %" PRIu64,
				 at->o.min_size, at->o.max_size);
		else
			snprintf(filter, sizeof(filter), "size >= %" PRIu64, at->o.min_size);
		err = session__set_filter(at->s, ev, filter, eb);
	}
	if (!err && ks && pc->has_hsz) {
		err = alloc_sample__filter(&at->sample, kind == KIND_RETURN ? "ret" : "ptr", filter,
					   sizeof(filter));
		if (!err)
			err = session__set_filter(at->s, ev, filter, eb);
	} else if (!err && kind == KIND_FREE) {
		err = session__set_filter(at->s, ev, "ptr != 0", eb);
	}
	return err;
}

/*
 * The probes of spec @name (on at->o.obj when it retargets, with
 * at->o.prefix; on @obj when given: an allocator found later), their
 * events named with @suffix ("" the first object's; "_l1"... later ones,
 * unique in the session's probe group).  What was placed goes to @po.
 */
static int probe_object(struct alloc_trace *at, const char *name, const char *obj,
			const char *suffix, struct probed *po, struct errbuf *eb)
{
	struct probe_set *set = NULL;
	struct placed *placed = NULL;
	size_t nplaced = 0, added = 0;
	bool have_malloc = false, have_free = false, ks;
	int err;

	if (strchr(name, '/'))
		err = probe_set__load(name, &set, eb);
	else
		err = probe_set__load_named(name, &set, eb);
	if (!err)
		err = obj ? probe_set__retarget(set, obj, NULL) :
			    probe_set__retarget(set, at->o.obj, at->o.prefix);
	if (err)
		goto out;
	placed = calloc(probe_set__count(set) + 1, sizeof(*placed));
	if (!placed) {
		err = -ENOMEM;
		goto out;
	}
	ks = sample_here(at, set, obj);
	for (size_t i = 0; i < probe_set__count(set); i++) {
		const struct probe_spec *spec = probe_set__at(set, i);
		struct probe_spec renamed, renamed_pmu, sampled;
		char ename[128], pname[128], fetchargs[512];
		struct placed *pl = &placed[nplaced];
		struct tp_event *ev = NULL;
		struct probe_ctx *pc;
		unsigned int flags = 0;
		bool dup = false;
		int kind;
		const struct role *role = role_of(spec->name, &kind);
		session_sample_fn fn;

		if (suffix[0]) {
			renamed = *spec;
			snprintf(ename, sizeof(ename), "%s%s", spec->name, suffix);
			renamed.name = ename;
			if (spec->pmu) {
				renamed_pmu = *spec->pmu;
				snprintf(pname, sizeof(pname), "%s%s", spec->pmu->name, suffix);
				renamed_pmu.name = pname;
				renamed.pmu = &renamed_pmu;
			}
			spec = &renamed;
		}

		if (!role) {
			err = errbuf__set(eb, -EINVAL,
					  "probe '%s' of spec '%s' has no known role (malloc_enter, "
					  "free_enter, realloc_return...)", spec->name, name);
			goto out;
		}
		/* Sampled in the kernel, no entry is traced: a return (or
		 * posix_memalign's store) makes its block alone, with the
		 * size from the block's header, and realloc's entry frees
		 * the old block. */
		if (ks && kind == KIND_ENTER && role->fn == ALLOC_REALLOC) {
			kind = KIND_FREE;
		} else if (ks && (kind == KIND_ENTER ||
				  (kind == KIND_RETURN && role->fn == ALLOC_POSIX_MEMALIGN))) {
			continue;
		}
		if (ks && kind != KIND_ENTER) {
			err = sample_spec(at, spec, kind, &sampled, fetchargs, sizeof(fetchargs), eb);
			if (err)
				goto out;
			spec = &sampled;
		}
		/* An entry probe alone may take the cheap placement; one
		 * sharing its function with a return probe stays at the
		 * entry, the breakpoint both then share. */
		if (kind == KIND_FREE && spec->kind == PROBE_ENTRY && role->is_free)
			flags |= SESSION_PLACE_CHEAP;
		err = session__uprobe_locate(at->s, spec, flags, pl->path, sizeof(pl->path), &pl->off,
					     eb);
		if (err == -ENOENT && strcmp(role->name, "malloc") && strcmp(role->name, "free")) {
			err = 0;	/* this allocator lacks the function */
			continue;
		}
		if (err == -ENOEXEC && kind == KIND_STORE && obj) {
			err = 0;	/* another build: its blocks come from aligned_alloc */
			continue;
		}
		if (err == -ENOEXEC && kind == KIND_STORE) {
			at->posix_memalign_untracked = true;
			snprintf(at->warning, sizeof(at->warning),
				 "%s; posix_memalign blocks are not tracked", eb->msg);
			err = 0;
			continue;
		}
		if (err)
			goto out;
		pl->kind = spec->kind;
		for (size_t k = 0; k < nplaced; k++)
			dup |= placed[k].off == pl->off && placed[k].kind == pl->kind &&
			       !strcmp(placed[k].path, pl->path);
		if (dup)
			continue;	/* one function, two names */
		nplaced++;
		if (!po->path[0])
			snprintf(po->path, sizeof(po->path), "%s", pl->path);
		if (spec->kind == PROBE_ENTRY || ks)
			note_probed(po, role);
		pc = new_ctx(at, kind);
		if (!pc) {
			err = -ENOMEM;
			goto out;
		}
		pc->role = role;
		fn = probe_handler(kind, ks, &flags);
		have_malloc |= role->fn == ALLOC_MALLOC && (ks ? kind == KIND_RETURN : kind == KIND_ENTER);
		have_free |= kind == KIND_FREE && role->is_free;
		err = session__add_uprobe(at->s, spec, flags, fn, pc, &ev, eb);
		if (err && ks && !added && !obj) {
			/* The kernel cannot read the header (uprobes without
			 * memory fetchargs or bit fields): every event then,
			 * sampled here. */
			sample_refused(at, eb);
			ks = false;
			nplaced = 0;
			have_malloc = have_free = false;
			po->roles[0] = po->path[0] = '\0';
			i = (size_t)-1;
			continue;
		}
		if (err)
			goto out;
		added++;
		err = probe_fields(at, pc, ev, spec, name, ks, eb);
		if (err)
			goto out;
	}
	if (!have_malloc || !have_free)
		err = errbuf__set(eb, -ENOENT, "probe spec '%s' found no malloc or no free to probe",
				  name);
out:
	free(placed);
	probe_set__free(set);
	return err;
}

static int add_user_probes(struct alloc_trace *at, struct errbuf *eb)
{
	struct allocator al;
	const char *name, *found;
	struct stat st;
	int err;

	err = find_allocator(at, &al, &found, eb);
	if (err)
		return err;
	name = spec_name(&at->o, found);
	if (session__recording(at->s))
		session__record_meta(at->s, "alloc.spec", name);
	err = probe_object(at, name, NULL, "", &at->first, eb);
	/* Never probed again when a process maps it later. */
	if (!err && at->first.path[0] && !stat(at->first.path, &st) &&
	    hashmap__set(at->objs, obj_key(major(st.st_dev), minor(st.st_dev), st.st_ino),
			 OBJ_PROBED))
		err = -ENOMEM;
	return err;
}

static const session_sample_fn event_fns[] = {
	[KIND_SYS_ENTER] = on_sys_enter, [KIND_SYS_EXIT] = on_sys_exit,
	[KIND_MUNMAP] = on_munmap, [KIND_K_ALLOC] = on_k_alloc, [KIND_K_FREE] = on_k_free,
};

/* Fields by name; which exist is the event's business. */
static void event_fields(struct probe_ctx *pc, const struct tp_event *ev, uint64_t key_space)
{
	tp_event__field(ev, "ret", &pc->f_ret);
	tp_event__field(ev, "addr", &pc->f_addr);
	if (tp_event__field(ev, "len", &pc->f_len))
		tp_event__field(ev, "new_len", &pc->f_len);
	tp_event__field(ev, "old_len", &pc->f_old_len);
	tp_event__field(ev, "flags", &pc->f_flags);
	tp_event__field(ev, "prot", &pc->f_prot);
	tp_event__field(ev, "order", &pc->f_order);
	if (tp_event__field(ev, "bytes_alloc", &pc->f_size) &&
	    tp_event__field(ev, "size", &pc->f_size))
		tp_event__field(ev, "brk", &pc->f_size);
	if (key_space == (uint64_t)KPID_PAGE) {
		/* pfn since 4.x; a struct page pointer before. */
		if (tp_event__field(ev, "pfn", &pc->f_ptr))
			tp_event__field(ev, "page", &pc->f_ptr);
	} else {
		tp_event__field(ev, "ptr", &pc->f_ptr);
	}
}

static int add_event(struct alloc_trace *at, const char *sys, const char *event, int kind,
		     enum alloc_fn fn, uint64_t key_space, unsigned int flags, struct errbuf *eb)
{
	struct probe_ctx *pc = new_ctx(at, kind);
	struct tp_event *ev = NULL;
	int err;

	if (!pc)
		return -ENOMEM;
	pc->fn = fn;
	pc->key_space = key_space;
	err = session__add_tracepoint(at->s, sys, event, flags, event_fns[kind], pc, &ev, eb);
	if (!err)
		event_fields(pc, ev, key_space);
	return err;
}

/* Sampled in the kernel, a region's stack tells whether the allocator
 * made it, from the return probes' trampoline on it: a copy of the stack
 * whatever the call graph (session__stack_return_probed(), in keep()). */
static unsigned int exit_words(const struct alloc_trace *at)
{
	return ksampled(at) ? SESSION_STACK_WORDS : 0;
}

/* A libc wrapper's probe standing in for a syscall tracepoint: its
 * fetchargs have the tracepoint's field names (libc-syscalls.probes). */
static int add_libc_event(struct alloc_trace *at, const struct probe_set *set, const char *probe,
			  int kind, enum alloc_fn fn, unsigned int flags, struct errbuf *eb)
{
	const struct probe_spec *spec = probe_set__find(set, probe);
	struct probe_ctx *pc = new_ctx(at, kind);
	struct tp_event *ev = NULL;
	int err;

	if (!pc)
		return -ENOMEM;
	if (!spec)
		return errbuf__set(eb, -ENOENT, "probe '%s' missing from libc-syscalls.probes", probe);
	pc->fn = fn;
	err = session__add_uprobe(at->s, spec, flags, event_fns[kind], pc, &ev, eb);
	if (!err)
		event_fields(pc, ev, 0);
	return err;
}

/* No syscall tracepoints (lockdown closes them with tracefs): the
 * program's own mmap/munmap/brk through libc's wrappers.  mremap has no
 * probe there: its moves go unseen. */
static int add_libc_syscalls(struct alloc_trace *at, bool mmap, bool munmap, bool brk,
			     struct errbuf *eb)
{
	struct probe_set *set = NULL;
	int err;

	err = probe_set__load_named("libc-syscalls", &set, eb);
	if (!err && mmap)
		err = add_libc_event(at, set, "mmap_enter", KIND_SYS_ENTER, ALLOC_MMAP, 0, eb);
	if (!err && mmap)
		err = add_libc_event(at, set, "mmap_return", KIND_SYS_EXIT, ALLOC_MMAP,
				     SESSION_USER_STACK | exit_words(at), eb);
	if (!err && munmap)
		err = add_libc_event(at, set, "munmap_enter", KIND_MUNMAP, ALLOC_MMAP, 0, eb);
	if (!err && brk)
		err = add_libc_event(at, set, "brk_enter", KIND_SYS_ENTER, ALLOC_BRK, 0, eb);
	if (!err && brk)
		err = add_libc_event(at, set, "brk_return", KIND_SYS_EXIT, ALLOC_BRK,
				     SESSION_USER_STACK | exit_words(at), eb);
	probe_set__free(set);
	return err;
}

static bool has_tp(struct alloc_trace *at, const char *sys, const char *event)
{
	return features__has_tracepoint(session__features(at->s), sys, event);
}

static int add_syscall_events(struct alloc_trace *at, struct errbuf *eb)
{
	static const struct {
		const char *enter, *exit;
		enum alloc_fn fn;
	} calls[] = {
		{ "sys_enter_mmap", "sys_exit_mmap", ALLOC_MMAP },
		{ "sys_enter_mremap", "sys_exit_mremap", ALLOC_MREMAP },
		{ "sys_enter_brk", "sys_exit_brk", ALLOC_BRK },
	};
	bool seen[3] = { false, false, false }, munmap;
	int err = 0;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && !err; i++) {
		if (!has_tp(at, "syscalls", calls[i].enter) || !has_tp(at, "syscalls", calls[i].exit))
			continue;
		seen[i] = true;
		err = add_event(at, "syscalls", calls[i].enter, KIND_SYS_ENTER, calls[i].fn, 0, 0, eb);
		if (!err)
			err = add_event(at, "syscalls", calls[i].exit, KIND_SYS_EXIT, calls[i].fn, 0,
					SESSION_USER_STACK | exit_words(at), eb);
	}
	munmap = has_tp(at, "syscalls", "sys_enter_munmap");
	if (!err && munmap)
		err = add_event(at, "syscalls", "sys_enter_munmap", KIND_MUNMAP, ALLOC_MMAP, 0, 0, eb);
	if (!err && (!seen[0] || !munmap || !seen[2]))
		err = add_libc_syscalls(at, !seen[0], !munmap, !seen[2], eb);
	return err;
}

static int add_kernel_events(struct alloc_trace *at, struct errbuf *eb)
{
	static const struct {
		const char *sys, *event;
		int kind;
		int space;
		bool percpu;
	} evs[] = {
		{ "kmem", "kmalloc", KIND_K_ALLOC, KPID_SLAB, false },
		{ "kmem", "kmalloc_node", KIND_K_ALLOC, KPID_SLAB, false },		/* < 6.1 */
		{ "kmem", "kmem_cache_alloc", KIND_K_ALLOC, KPID_SLAB, false },
		{ "kmem", "kmem_cache_alloc_node", KIND_K_ALLOC, KPID_SLAB, false },	/* < 6.1 */
		{ "kmem", "kfree", KIND_K_FREE, KPID_SLAB, false },
		{ "kmem", "kmem_cache_free", KIND_K_FREE, KPID_SLAB, false },
		{ "kmem", "mm_page_alloc", KIND_K_ALLOC, KPID_PAGE, false },
		{ "kmem", "mm_page_free", KIND_K_FREE, KPID_PAGE, false },
		{ "kmem", "mm_page_free_batched", KIND_K_FREE, KPID_PAGE, false },
		{ "percpu", "percpu_alloc_percpu", KIND_K_ALLOC, KPID_PCPU, true },
		{ "percpu", "percpu_free_percpu", KIND_K_FREE, KPID_PCPU, true },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]) && !err; i++) {
		if (evs[i].percpu && !at->o.percpu)
			continue;
		if (!has_tp(at, evs[i].sys, evs[i].event))
			continue;
		err = add_event(at, evs[i].sys, evs[i].event, evs[i].kind, ALLOC_MALLOC,
				(uint64_t)(int64_t)evs[i].space,
				evs[i].kind == KIND_K_ALLOC ? SESSION_KERNEL_STACK : 0, eb);
	}
	return err;
}

/* A replay of a recording sampled in the kernel at @rate: only a tool
 * that weighs sampled blocks (leak, heap: opts.sample_rate given) can
 * read it, at that rate. */
static int recorded_sample(struct alloc_trace *at, const char *rate, struct errbuf *eb)
{
	char *end;
	unsigned long long n = strtoull(rate, &end, 10);

	if (*end || !alloc_sample__bits_ok(n))
		return errbuf__set(eb, -EINVAL, "the recording's allocation sampling '%.20s' is not "
				   "a rate this faultline knows", rate);
	if (!at->o.sample_rate)
		return errbuf__set(eb, -EINVAL, "its allocations were recorded sampled (record -s %llu): "
				   "only 'report leak' and 'report heap' read them", n);
	if (at->o.sample_rate > 1 && at->o.sample_rate != n)
		return errbuf__set(eb, -EINVAL, "its allocations were recorded sampled at -s %llu: "
				   "not -s %" PRIu64, n, at->o.sample_rate);
	at->sample = (struct alloc_sample){ .rate = n, .by = ALLOC_SAMPLE_BITS };
	return 0;
}

int alloc_trace__new(struct session *s, const struct alloc_trace_opts *o,
		     const struct alloc_trace_hooks *h, struct alloc_trace **out, struct errbuf *eb)
{
	struct alloc_trace *at = calloc(1, sizeof(*at));
	int err;

	*out = NULL;
	if (!at)
		return -ENOMEM;
	at->o = *o;
	if (h)
		at->h = *h;
	at->s = s;
	err = alloc_track__new(&at->track);
	at->breaks = hashmap__new();
	at->last_free = hashmap__new();
	at->last_free_probe = hashmap__new();
	at->last_ret = hashmap__new();
	at->sample = (struct alloc_sample){ .rate = o->sample_rate, .by = ALLOC_SAMPLE_HASH };
	if (o->sample_rate > 1)
		describe_sampling(at, o->kernel ? "kernel allocations" : "no allocator probed");
	at->objs = hashmap__new();
	at->running = hashmap__new();
	at->fresh = hashmap__new();
	if (!err && (!at->breaks || !at->last_free || !at->last_free_probe || !at->last_ret || !at->objs ||
		     !at->running || !at->fresh))
		err = -ENOMEM;
	if (!err && o->index)
		err = alloc_track__index(at->track);
	if (err)
		goto fail;
	/* Recording, too: a library the target dlopen's is probed and its
	 * events recorded (the handlers of the events do not run then). */
	err = session__add_consumer(s, &(struct session_consumer){
		.exec = on_exec, .fork = on_fork, .thread_exit = on_thread_exit, .lost = on_lost,
		.mmap = on_mmap, .recorded = on_recorded, .meta = on_meta, .while_recording = true,
		.ctx = at });
	if (!err && !o->kernel && session__replaying(s) && session__meta(s, SAMPLE_META))
		err = recorded_sample(at, session__meta(s, SAMPLE_META), eb);
	if (err)
		goto fail;
	if (o->kernel) {
		at->filter_pid = session__target_pid(s) > 0 ? session__target_pid(s) : 0;
		err = add_kernel_events(at, eb);
	} else {
		err = add_user_probes(at, eb);
		if (!err)
			err = add_syscall_events(at, eb);
		/* -p: the process runs already, past its start-up. */
		if (!err && !session__is_cmd(s) && session__target_pid(s) > 0)
			mark_running(at, session__target_pid(s));
	}
	if (err)
		goto fail;
	*out = at;
	return 0;
fail:
	alloc_trace__free(at);
	return err;
}

void alloc_trace__free(struct alloc_trace *at)
{
	if (!at)
		return;
	for (size_t i = 0; i < at->nctxs; i++)
		free(at->ctxs[i]);
	free(at->ctxs);
	hashmap__free(at->breaks);
	hashmap__free(at->last_free);
	hashmap__free(at->last_free_probe);
	hashmap__free(at->last_ret);
	hashmap__free(at->objs);
	hashmap__free(at->running);
	hashmap__free(at->fresh);
	free(at->late);
	alloc_track__free(at->track);
	free(at);
}

struct alloc_track *alloc_trace__track(const struct alloc_trace *at)
{
	return at->track;
}

const struct alloc_trace_stats *alloc_trace__stats(const struct alloc_trace *at)
{
	return &at->st;
}

const char *alloc_trace__probed(struct alloc_trace *at)
{
	if (!at->first.roles[0] || session__replaying(at->s))
		return NULL;
	snprintf(at->line, sizeof(at->line), "probing %s in %s%s%s%s", at->first.roles,
		 at->first.path, at->found[0] ? " (" : "", at->found, at->found[0] ? ")" : "");
	return at->line;
}

const char *alloc_trace__object(struct alloc_trace *at)
{
	if (!at->first.roles[0] || session__replaying(at->s))
		return NULL;
	snprintf(at->line, sizeof(at->line), "%s%s%s%s", at->first.path, at->found[0] ? " (" : "",
		 at->found, at->found[0] ? ")" : "");
	return at->line;
}

size_t alloc_trace__late_count(const struct alloc_trace *at)
{
	return at->nlate;
}

const char *alloc_trace__late(const struct alloc_trace *at, size_t i)
{
	return i < at->nlate ? at->late[i].line : NULL;
}

const struct alloc_sample *alloc_trace__sample(const struct alloc_trace *at)
{
	return &at->sample;
}

const char *alloc_trace__sampling(const struct alloc_trace *at)
{
	return at->sample.rate > 1 && at->sampling[0] ? at->sampling : NULL;
}

bool alloc_trace__sampled_in_kernel(const struct alloc_trace *at)
{
	return ksampled(at);
}

const char *alloc_trace__warning(const struct alloc_trace *at)
{
	return at->warning[0] ? at->warning : NULL;
}

int alloc_trace__error(const struct alloc_trace *at)
{
	return at->err;
}
