/*
 * alloc-trace-procs: the allocation tracer's processes and threads
 * (alloc-trace-int.h): the session's process events (exec, fork, a
 * thread's exit, events lost, a sample recorded) and what the tracer keeps
 * by them beside the table: which processes run their program (a library
 * they map now is dlopen'ed) or were just exec'd, each process's program
 * break, each thread's calls in flight and last free.
 *
 * May call: agg/alloc-track, trace/session, lib/hashmap.
 */
#include <errno.h>

#include "agg/alloc-trace-int.h"
#include "lib/hashmap.h"
#include "trace/session.h"

/* @pid runs its program: a library it maps from now on is dlopen'ed. */
void at__mark_running(struct alloc_trace *at, pid_t pid)
{
	/* It called a probed allocator: that one is its program's. */
	hashmap__delete(at->fresh, (uint64_t)pid, NULL);
	if (!hashmap__get(at->running, (uint64_t)pid, NULL) &&
	    hashmap__set(at->running, (uint64_t)pid, 1))
		at->err = -ENOMEM;
}

/* A block or region its process held when it exec'd. */
static void on_gone(void *ctx, const struct alloc_rec *r)
{
	struct alloc_trace *at = ctx;

	at->h.gone(at->h.ctx, r, at->exec_time);
}

void at__on_exec(struct session *s, pid_t pid, uint64_t time, void *ctx)
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

/* Recording: a probed allocator's entry (or free) that went to the file
 * says, as at__on_enter() would, that the process runs its program. */
void at__on_recorded(struct session *s, const struct sample *smp, session_sample_fn fn,
		     void *fn_ctx, void *ctx)
{
	(void)s;
	(void)fn_ctx;
	if (fn == at__on_enter || fn == at__on_free)
		at__mark_running(ctx, (pid_t)smp->pid);
}

/* Events were lost: a call in flight may have lost its return, and a call
 * left in flight makes every later one on its thread look nested inside
 * it (an allocator's inner call, not counted), which would hide the rest
 * of the run.  Forget them all: a return whose entry is forgotten counts
 * as lost, an inner call whose outer one is forgotten counts on its own. */
void at__on_lost(struct session *s, uint64_t n, void *ctx)
{
	struct alloc_trace *at = ctx;

	(void)s;
	(void)n;
	alloc_track__drop_calls(at->track);
}

void at__on_thread_exit(struct session *s, pid_t pid, pid_t tid, void *ctx)
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

void at__on_fork(struct session *s, pid_t parent, pid_t child, void *ctx)
{
	struct alloc_trace *at = ctx;
	uint64_t brk;
	int64_t n;

	(void)s;
	if (hashmap__get(at->running, (uint64_t)parent, NULL))
		at__mark_running(at, child);	/* a copy, running as its parent did */
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

