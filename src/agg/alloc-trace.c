/*
 * alloc-trace: the allocation tracer shared by leak and faults --by-alloc,
 * its public front (alloc-trace.h): the tracer made on its rung (user mode:
 * the allocator's probes, then the program's own mappings; kernel mode: the
 * kmem tracepoints) as a consumer of the session, freed, and what it
 * tells; and the contexts of its events, which it owns: at__new_ctx(), and
 * at__add_event() for a tracepoint, its fields read by name.  Its parts
 * and what they share: alloc-trace-int.h.
 *
 * Cost: stacks are unwound only for blocks that are kept (past the size
 * limits and sampling); size limits are kernel filters on the entry probes
 * that carry the size alone; free's probe moves to an instruction the
 * kernel emulates (SESSION_PLACE_CHEAP).
 *
 * May call: the tracer's parts (alloc-trace-int.h), agg/alloc-track,
 * agg/alloc-sample, trace/session and tp-catalog, compat/ features, lib/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/alloc-sample.h"
#include "agg/alloc-trace.h"
#include "agg/alloc-trace-int.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/hashmap.h"
#include "trace/session.h"

struct probe_ctx *at__new_ctx(struct alloc_trace *at, int kind)
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

/* Fields by name; which exist is the event's business. */
void at__event_fields(struct probe_ctx *pc, const struct tp_event *ev, uint64_t key_space)
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

int at__add_event(struct alloc_trace *at, const char *sys, const char *event,
		  session_sample_fn handler, enum alloc_fn fn, uint64_t key_space,
		  unsigned int flags, struct errbuf *eb)
{
	struct probe_ctx *pc = at__new_ctx(at, KIND_EVENT);
	struct tp_event *ev = NULL;
	int err;

	if (!pc)
		return -ENOMEM;
	pc->fn = fn;
	pc->key_space = key_space;
	err = session__add_tracepoint(at->s, sys, event, flags, handler, pc, &ev, eb);
	if (!err)
		at__event_fields(pc, ev, key_space);
	return err;
}

bool at__has_tp(struct alloc_trace *at, const char *sys, const char *event)
{
	return features__has_tracepoint(session__features(at->s), sys, event);
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
		at__describe_sampling(at, o->kernel ? "kernel allocations" : "no allocator probed");
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
		.exec = at__on_exec, .fork = at__on_fork, .thread_exit = at__on_thread_exit,
		.lost = at__on_lost, .mmap = at__on_mmap, .recorded = at__on_recorded,
		.meta = at__on_meta, .while_recording = true, .ctx = at });
	if (!err && !o->kernel && session__replaying(s) && session__meta(s, SAMPLE_META))
		err = at__recorded_sample(at, session__meta(s, SAMPLE_META), eb);
	if (err)
		goto fail;
	if (o->kernel) {
		at->filter_pid = session__target_pid(s) > 0 ? session__target_pid(s) : 0;
		err = at__add_kernel_events(at, eb);
	} else {
		err = at__add_user_probes(at, eb);
		if (!err)
			err = at__add_syscall_events(at, eb);
		/* -p: the process runs already, past its start-up. */
		if (!err && !session__is_cmd(s) && session__target_pid(s) > 0)
			at__mark_running(at, session__target_pid(s));
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
