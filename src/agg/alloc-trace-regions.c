/*
 * alloc-trace-regions: the memory a program maps itself, for the
 * allocation tracer (alloc-trace-int.h): the mmap, mremap and brk
 * syscalls paired entry to exit (a region made, moved or grown, or a map
 * the allocator made for its call in flight), munmap, each process's
 * program break; their events are the syscall tracepoints, or libc's
 * wrappers where the kernel closes those.
 *
 * May call: the tracer's calls and table (alloc-trace-calls.c,
 * alloc-trace-keep.c), its events (alloc-trace.c), agg/alloc-track,
 * trace/probe-spec and session, lib/hashmap.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "agg/alloc-trace-int.h"
#include "lib/hashmap.h"
#include "trace/probe-spec.h"
#include "trace/session.h"

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
		at__returned(at, smp, NULL);	/* a mapping, not an allocation */
		return;
	}
	at__complete(at, smp, &c, ret, false);
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
	at__release(at, smp, (pid_t)smp->pid, addr, len);
}

/* Sampled in the kernel, a region's stack tells whether the allocator
 * made it, from the return probes' trampoline on it: a copy of the stack
 * whatever the call graph (session__stack_return_probed(), in at__keep()). */
static unsigned int exit_words(const struct alloc_trace *at)
{
	return ksampled(at) ? SESSION_STACK_WORDS : 0;
}

/* A libc wrapper's probe standing in for a syscall tracepoint: its
 * fetchargs have the tracepoint's field names (libc-syscalls.probes). */
static int add_libc_event(struct alloc_trace *at, const struct probe_set *set, const char *probe,
			  session_sample_fn handler, enum alloc_fn fn, unsigned int flags,
			  struct errbuf *eb)
{
	const struct probe_spec *spec = probe_set__find(set, probe);
	struct probe_ctx *pc = at__new_ctx(at, KIND_EVENT);
	struct tp_event *ev = NULL;
	int err;

	if (!pc)
		return -ENOMEM;
	if (!spec)
		return errbuf__set(eb, -ENOENT, "probe '%s' missing from libc-syscalls.probes", probe);
	pc->fn = fn;
	err = session__add_uprobe(at->s, spec, flags, handler, pc, &ev, eb);
	if (!err)
		at__event_fields(pc, ev, 0);
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
		err = add_libc_event(at, set, "mmap_enter", on_sys_enter, ALLOC_MMAP, 0, eb);
	if (!err && mmap)
		err = add_libc_event(at, set, "mmap_return", on_sys_exit, ALLOC_MMAP,
				     SESSION_USER_STACK | exit_words(at), eb);
	if (!err && munmap)
		err = add_libc_event(at, set, "munmap_enter", on_munmap, ALLOC_MMAP, 0, eb);
	if (!err && brk)
		err = add_libc_event(at, set, "brk_enter", on_sys_enter, ALLOC_BRK, 0, eb);
	if (!err && brk)
		err = add_libc_event(at, set, "brk_return", on_sys_exit, ALLOC_BRK,
				     SESSION_USER_STACK | exit_words(at), eb);
	probe_set__free(set);
	return err;
}

int at__add_syscall_events(struct alloc_trace *at, struct errbuf *eb)
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
		if (!at__has_tp(at, "syscalls", calls[i].enter) ||
		    !at__has_tp(at, "syscalls", calls[i].exit))
			continue;
		seen[i] = true;
		err = at__add_event(at, "syscalls", calls[i].enter, on_sys_enter, calls[i].fn,
				    0, 0, eb);
		if (!err)
			err = at__add_event(at, "syscalls", calls[i].exit, on_sys_exit,
					    calls[i].fn, 0, SESSION_USER_STACK | exit_words(at),
					    eb);
	}
	munmap = at__has_tp(at, "syscalls", "sys_enter_munmap");
	if (!err && munmap)
		err = at__add_event(at, "syscalls", "sys_enter_munmap", on_munmap, ALLOC_MMAP, 0, 0,
				    eb);
	if (!err && (!seen[0] || !munmap || !seen[2]))
		err = add_libc_syscalls(at, !seen[0], !munmap, !seen[2], eb);
	return err;
}

