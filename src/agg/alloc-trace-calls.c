/*
 * alloc-trace-calls: the handlers of the allocator's probes
 * (alloc-trace-int.h): an entry (its size) paired with its return (the
 * address, the stack) through alloc-track's calls in flight, the end of a
 * call (at__complete(): what it made and freed, realloc's both), frees,
 * posix_memalign's store; and, sampled in the kernel, the returns that
 * make a block alone.  The rules of pairing and of each function are
 * alloc-track's.
 *
 * May call: the table's doors (alloc-trace-keep.c), the process state
 * (alloc-trace-procs.c), agg/alloc-track and alloc-sample, lib/hashmap.
 */
#include <errno.h>
#include <stdint.h>

#include "agg/alloc-sample.h"
#include "agg/alloc-trace-int.h"
#include "lib/hashmap.h"

void at__on_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	struct alloc_call c = { .fn = pc->role->fn, .time = smp->time };
	uint64_t nmemb = 1;

	(void)s;
	at__mark_running(at, (pid_t)smp->pid);
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

void at__returned(struct alloc_trace *at, const struct sample *smp,
		  const struct alloc_rec *made)
{
	if (at->h.returned)
		at->h.returned(at->h.ctx, smp, made);
}

void at__complete(struct alloc_trace *at, const struct sample *smp, const struct alloc_call *c,
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
		at__release(at, smp, r.pid, e.freed, r.region ? e.freed_size : 0);
	if (e.allocates) {
		r.addr = e.addr;
		r.size = e.size;
		/* glibc serves a block above its threshold from an mmap of
		 * its own, made inside this very call. */
		r.mapped = !r.region && c->map_len && e.addr >= c->map_addr &&
			   e.addr - c->map_addr < c->map_len;
		kept = at__keep(at, smp, &r, false);
	}
	at__returned(at, smp, kept ? &r : NULL);
}

void at__on_return(struct session *s, const struct sample *smp, void *ctx)
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
		at__returned(at, smp, NULL);
		return;
	}
	at__complete(at, smp, &c, ret, pc->role->zero_frees);
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
	at__mark_running(at, (pid_t)smp->pid);
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
	at__complete(at, smp, &c, addr, false);
}

/* A return's address is its value; the store's, its ptr. */
void at__on_made_sampled(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t addr = 0, hsz = 0;

	(void)s;
	if (field_u64(pc->kind == KIND_RETURN ? &pc->f_ret : &pc->f_ptr, smp, &addr) &&
	    field_u64(&pc->f_hsz, smp, &hsz) && addr)
		made_sampled(pc->at, smp, pc->role, addr, hsz);
}

void at__on_store(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t ptr = 0;

	(void)s;
	if (field_u64(&pc->f_ptr, smp, &ptr))
		alloc_track__note_ptr(pc->at->track, (pid_t)smp->tid, ALLOC_POSIX_MEMALIGN, ptr);
}

void at__on_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	struct alloc_trace *at = pc->at;
	uint64_t ptr = 0, last, probe;

	(void)s;
	at__mark_running(at, (pid_t)smp->pid);
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
	at__release(at, smp, (pid_t)smp->pid, ptr, 0);
}

