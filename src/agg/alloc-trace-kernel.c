/*
 * alloc-trace-kernel: the allocation tracer's kernel mode
 * (alloc-trace-int.h): the kmem tracepoints (kmalloc, kmem_cache_alloc,
 * their _node variants where the kernel still has them, mm_page_alloc,
 * percpu on request) and their handlers; each address space of the
 * kernel under its pseudo-pid (KPID_*).
 *
 * May call: the tracer's table and events (alloc-trace-keep.c,
 * alloc-trace.c), trace/session.
 */
#include <stdbool.h>
#include <stdint.h>

#include "agg/alloc-trace-int.h"
#include "trace/session.h"

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
	at__keep(at, smp, &(struct alloc_rec){ .addr = ptr, .size = size, .time = smp->time,
					    .pid = (pid_t)pc->key_space, .fn = ALLOC_MALLOC },
	     true);
}

static void on_k_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct probe_ctx *pc = ctx;
	uint64_t ptr = 0;

	(void)s;
	if (field_u64(&pc->f_ptr, smp, &ptr) && ptr > 16)
		at__release(pc->at, smp, (pid_t)pc->key_space, ptr, 0);
}

int at__add_kernel_events(struct alloc_trace *at, struct errbuf *eb)
{
	static const struct {
		const char *sys, *event;
		session_sample_fn fn;
		int space;
		bool percpu;
	} evs[] = {
		{ "kmem", "kmalloc", on_k_alloc, KPID_SLAB, false },
		{ "kmem", "kmalloc_node", on_k_alloc, KPID_SLAB, false },		/* < 6.1 */
		{ "kmem", "kmem_cache_alloc", on_k_alloc, KPID_SLAB, false },
		{ "kmem", "kmem_cache_alloc_node", on_k_alloc, KPID_SLAB, false },	/* < 6.1 */
		{ "kmem", "kfree", on_k_free, KPID_SLAB, false },
		{ "kmem", "kmem_cache_free", on_k_free, KPID_SLAB, false },
		{ "kmem", "mm_page_alloc", on_k_alloc, KPID_PAGE, false },
		{ "kmem", "mm_page_free", on_k_free, KPID_PAGE, false },
		{ "kmem", "mm_page_free_batched", on_k_free, KPID_PAGE, false },
		{ "percpu", "percpu_alloc_percpu", on_k_alloc, KPID_PCPU, true },
		{ "percpu", "percpu_free_percpu", on_k_free, KPID_PCPU, true },
	};
	int err = 0;

	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]) && !err; i++) {
		if (evs[i].percpu && !at->o.percpu)
			continue;
		if (!at__has_tp(at, evs[i].sys, evs[i].event))
			continue;
		err = at__add_event(at, evs[i].sys, evs[i].event, evs[i].fn, ALLOC_MALLOC,
				    (uint64_t)(int64_t)evs[i].space,
				    evs[i].fn == on_k_alloc ? SESSION_KERNEL_STACK : 0, eb);
	}
	return err;
}

