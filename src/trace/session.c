/*
 * session: one tracing run's public front, from setup to the last byte of
 * teardown: session__new() and session__free(), the session.h calls that
 * land on its source (struct session_source: the live one in live.c and
 * live-events.c, a recording's in replay.c), the side-band bookkeeping
 * both sources share (names, maps, tasks: session__on_*()), the memory
 * indicators, and the accessors.  Signals are session-signal.c's.
 *
 * May call: lib/, proc/, stack/ (address spaces, stacks, symbolizer,
 * unwinder), the trace/ modules the session owns (target, probe group,
 * catalog, perf caps), its sources through s->src, and for a live
 * session's start the live files' setup calls (session-int.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "lib/clock.h"
#include "trace/session-int.h"
#include "stack/addrspace.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/grow.h"
#include "lib/hashmap.h"
#include "proc/procstat.h"
#include "trace/perf-event.h"
#include "trace/ring.h"
#include "trace/perf-cgroup.h"
#include "trace/drain.h"
#include "trace/tree-pause.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "trace/target.h"
#include "trace/probe-group.h"
#include "stack/uret-fixup.h"
#include "trace/uprobe-pmu.h"

#define SB_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			PERF_SAMPLE_CPU)
/* Without PERF_SAMPLE_IDENTIFIER (before 3.12) the id is PERF_SAMPLE_ID,
 * whose place in a sample follows IP, TID, TIME and ADDR: every event
 * takes ADDR then, so that it is the fourth word of every sample. */
#define SB_SAMPLE_TYPE_NO_IDENTIFIER (PERF_SAMPLE_ID | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				      PERF_SAMPLE_CPU | PERF_SAMPLE_ADDR)

void session__set_comm(struct session *s, pid_t pid, const char *comm)
{
	char *copy = strdup(comm), *prev;
	uint64_t old;

	if (!copy)
		return;
	if (hashmap__get(s->comms, (uint64_t)pid, &old)) {
		prev = (char *)(uintptr_t)old;
		free(prev);
	}
	if (hashmap__set(s->comms, (uint64_t)pid, (uint64_t)(uintptr_t)copy))
		free(copy);
}

void session__learn_process(struct session *s, pid_t pid)
{
	char path[64], comm[64];
	bool learned = false;
	FILE *f;

	/* A recording carries its processes' comms and maps. */
	if (!s->src->learns_processes)
		return;
	/* Called per sample: a process that is gone (or never readable) is
	 * asked /proc once, not once per sample.  Later COMM and MMAP2
	 * records still fill in what it is. */
	if (!hashmap__get(s->comms, (uint64_t)pid, NULL)) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		strcpy(comm, "?");
		f = fopen(path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		session__set_comm(s, pid, comm);
		(void)hashmap__set(s->named, (uint64_t)pid, 1);
		learned = true;
	}
	if (!addrspaces__known(s->as, pid)) {
		if (addrspaces__load_pid(s->as, pid, NULL))
			addrspaces__exec(s->as, pid);	/* known, empty: MMAP2s fill it */
		learned = true;
	}
	if (learned && s->obs)
		s->obs->proc(s, pid);
}

int session__new(const struct session_opts *o, struct session **out, struct errbuf *eb)
{
	struct fl_roots roots = { 0 };
	struct stale_group *stale = NULL;
	struct session *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->src = &live__source;
	s->refs = 1;
	s->open_cgroup_fd = -1;
	s->opts = *o;
	if (!s->opts.stack_size)
		s->opts.stack_size = SESSION_DEFAULT_STACK_SIZE;
	if (!s->opts.unwinder)
		s->opts.unwinder = "libdw";
	s->pmu_retprobe_bit = -1;
	session__catch_signals(s);

	if (geteuid() != 0) {
		err = errbuf__set(eb, -EPERM,
				  "must run as root: faultline creates probes in tracefs and reads "
				  "tracepoint payloads, which perf_event_paranoid alone cannot grant");
		goto fail;
	}
	err = features__probe(&roots, &s->features, eb);
	if (err)
		goto fail;
	/* Without a usable tracefs (lockdown [confidentiality] closes it) the
	 * software events still work: the tool's ladder, which sees tracefs
	 * absent, refuses every rung that needs it, naming the reason.  The
	 * paths stay empty, so nothing is ever written to tracefs. */
	if (features__has(s->features, FEAT_TRACEFS)) {
		snprintf(s->tracing_dir, sizeof(s->tracing_dir), "%s",
			 features__tracefs_dir(s->features));
		if (tracefs_set_tracing_dir(s->tracing_dir) < 0) {
			err = errbuf__set(eb, -ENOMEM, "cannot use tracing dir '%s'",
					  s->tracing_dir);
			goto fail;
		}
		snprintf(s->uprobe_events_path, sizeof(s->uprobe_events_path),
			 "%s/uprobe_events", s->tracing_dir);
		snprintf(s->kprobe_events_path, sizeof(s->kprobe_events_path),
			 "%s/kprobe_events", s->tracing_dir);
		if (!probe_groups__find_stale(&stale, &s->stale, NULL))
			free(stale);
	}

	/* What the kernel's perf_event_attr takes decides every event's
	 * layout: probed before the first open. */
	s->perf_caps = perf_caps__probe();
	s->use_clockid = s->perf_caps & (1u << PERF_CAP_CLOCKID);
	s->format_lost = s->perf_caps & (1u << PERF_CAP_FORMAT_LOST);
	s->id_type = s->perf_caps & (1u << PERF_CAP_IDENTIFIER) ? SB_SAMPLE_TYPE :
								 SB_SAMPLE_TYPE_NO_IDENTIFIER;
	sample__id_pos(s->id_type, &s->id_pos);

	/* The CPUs first: they size the rings. */
	err = perf_cpus__online(&s->cpus, &s->ncpus);
	if (err) {
		errbuf__set(eb, err, "cannot read the online CPUs");
		goto fail;
	}
	if (!s->opts.mmap_pages)
		s->opts.mmap_pages = live__default_pages(s);

	err = -ENOMEM;
	s->comms = hashmap__new();
	s->ids = hashmap__new();
	s->execs = hashmap__new();
	s->tree = hashmap__new();
	s->named = hashmap__new();
	s->round_heads = calloc((size_t)s->ncpus, sizeof(*s->round_heads));
	s->round_times = calloc((size_t)s->ncpus, sizeof(*s->round_times));
	if (!s->comms || !s->ids || !s->execs || !s->tree || !s->named || !s->round_heads ||
	    !s->round_times)
		goto fail;
	if ((err = tp_catalog__new(s->tracing_dir, &s->catalog)) ||
	    (err = addrspaces__new(&s->as)) || (err = stackdb__new(&s->stacks)) ||
	    (err = symbolizer__new(&s->sym)) ||
	    (s->opts.callgraph == CALLGRAPH_DWARF &&
	     (err = unwinder__new(s->opts.unwinder, s->as, symbolizer__bincache(s->sym), &s->unwinder))) ||
	    (err = probe_group__new(&s->probes)))
		goto fail;
	live__prewarm(s);

	if (o->pid > 0 && o->cmd) {
		err = errbuf__set(eb, -EINVAL, "-p and -c exclude each other");
		goto fail;
	}
	if (o->pid > 0)
		err = target__new_pid(o->pid, &s->target, eb);
	else if (o->cmd_argv)
		err = target__new_argv(o->cmd_argc, o->cmd_argv, o->cmd ? o->cmd : o->cmd_argv[0],
				       &s->target, eb);
	else if (o->cmd)
		err = target__new_cmd(o->cmd, &s->target, eb);
	else
		err = target__new_all(&s->target);
	if (err)
		goto fail;
	err = live__load_tasks(s, eb);
	if (err)
		goto fail;

	err = live__open_side_band(s, eb);
	if (err)
		goto fail;
	if (target__kind(s->target) == TARGET_ALL)
		live__known_processes(s);
	*out = s;
	return 0;
fail:
	session__free(s);
	return err;
}

void session__free(struct session *s)
{
	uint64_t key, val;
	size_t pos = 0;

	if (!s || --s->refs > 0)
		return;
	session__signals_forget();
	if (s->obs)
		s->obs->free(s);
	if (s->src && s->src->free)
		s->src->free(s);
	for (size_t i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			perf_event__disable(s->fds[i]);
	drain__free(s->drain);	/* before the rings it reads */
	tree_pause__free(s->grow_pause);
	if (s->growing) {
		free(s->tasks);
		s->tasks = s->grow_tasks_saved;
	}
	if (s->rings)
		for (int c = 0; c < s->ncpus; c++)
			ring__free(s->rings[c]);
	for (size_t i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	/* fds closed first: the kernel refuses to remove a probe in use. */
	probe_group__free(s->probes);
	perf_cgroup__free(s->pmu_cg);
	target__free(s->target);
	session__signals_restore();
	unwinder__free(s->unwinder);
	uret_table__free(s->urets);
	if (s->comms) {
		while (hashmap__next(s->comms, &pos, &key, &val))
			free((void *)(uintptr_t)val);
		hashmap__free(s->comms);
	}
	hashmap__free(s->ids);
	free(s->trims);
	hashmap__free(s->execs);
	hashmap__free(s->tree);
	hashmap__free(s->named);
	free(s->round_heads);
	free(s->round_times);
	symbolizer__free(s->sym);
	stackdb__free(s->stacks);
	addrspaces__free(s->as);
	tp_catalog__free(s->catalog);
	features__free(s->features);
	free(s->rings);
	free(s->ring_owner);
	free(s->fds);
	free(s->tasks);
	free(s->cpus);
	for (size_t i = 0; i < s->nevsels; i++) {
		tp_filter__free(s->evsels[i].filter);
		pmu_args__free(s->evsels[i].pmu);
		free(s->evsels[i].pmu_format);
	}
	free(s->evsels);
	free(s->pmu_raw);
	free(s->consumers);
	free(s);
}

size_t session__stale_groups(const struct session *s)
{
	return s->stale;
}

unsigned int session__perf_caps(const struct session *s)
{
	return s->perf_caps;
}

const struct features *session__features(const struct session *s)
{
	return s->features;
}

int session__add_memstat(struct session *s, session_memstat_fn fn, void *ctx, struct errbuf *eb)
{
	int err = s->src->add_memstat(s, eb);

	if (err)
		return err;
	s->memstat_fn = fn;
	s->memstat_ctx = ctx;
	return 0;
}

#define MEMSTAT_NS 1000000000ULL

void session__memstat_tick(struct session *s, bool force)
{
	struct mem_sample ms;

	if (!s->memstat_on)
		return;
	if (!force && clock__ns(CLOCK_MONOTONIC) < s->memstat_next_ns)
		return;
	if (!s->memstat_cg_known) {
		/* The target's group, as it is at the first sample; on the
		 * PMU rung the one it came from, not faultline's below it
		 * (pmu_cgroup()), gone once the run ends. */
		if (s->pmu_cg && perf_cgroup__v2(s->pmu_cg)) {
			int w = snprintf(s->memstat_cg, sizeof(s->memstat_cg), "%s/memory.pressure",
					 perf_cgroup__parent(s->pmu_cg));

			if (w < 0 || (size_t)w >= sizeof(s->memstat_cg) ||
			    access(s->memstat_cg, R_OK))
				s->memstat_cg[0] = '\0';	/* the root: no file */
		} else {
			procstat__pid_cgroup_pressure(NULL, session__target_pid(s), s->memstat_cg,
						      sizeof(s->memstat_cg));
		}
		s->memstat_cg_known = true;
	}
	if (mem_sample__read(NULL, s->memstat_cg[0] ? s->memstat_cg : NULL, 0, &ms, NULL))
		return;
	while (s->memstat_next_ns <= ms.time_ns)
		s->memstat_next_ns = s->memstat_next_ns ? s->memstat_next_ns + MEMSTAT_NS :
			ms.time_ns + MEMSTAT_NS;
	if (s->obs && s->obs->memstat)
		s->obs->memstat(s, &ms);
	else if (!s->obs && s->memstat_fn)
		s->memstat_fn(s, &ms, s->memstat_ctx);
}

int session__add_tracepoint(struct session *s, const char *system, const char *event,
			    unsigned int flags, session_sample_fn fn, void *ctx,
			    struct tp_event **ev, struct errbuf *eb)
{
	return s->src->add_tracepoint(s, system, event, flags, fn, ctx, ev, eb);
}

int session__set_filter(struct session *s, const struct tp_event *ev, const char *filter,
			struct errbuf *eb)
{
	for (size_t i = 0; i < s->nevsels; i++) {
		struct evsel *e = &s->evsels[i];

		if (e->tev == ev)
			return s->src->set_filter(s, e, filter, eb);
	}
	return errbuf__set(eb, -ENOENT, "no such event to filter");
}

int session__filter_here(struct session *s, struct evsel *e, const char *filter,
			 struct errbuf *eb)
{
	struct tp_filter *f = NULL;
	int err = tp_filter__new(s->catalog, e->tev, filter, &f, eb);

	if (err)
		return err;
	tp_filter__free(e->filter);
	e->filter = f;
	return 0;
}

struct session *session__ref(struct session *s)
{
	s->refs++;
	return s;
}

int session__add_consumer(struct session *s, const struct session_consumer *c)
{
	if (GROW_FOR(s->consumers, s->capconsumers, s->nconsumers + 1, 4))
		return -ENOMEM;
	s->consumers[s->nconsumers++] = *c;
	return 0;
}

/* Each consumer's ready, or @round its round. */
static void consumers_at(struct session *s, bool round)
{
	for (size_t i = 0; i < s->nconsumers; i++) {
		const struct session_consumer *c = &s->consumers[i];
		void (*fn)(struct session *s, void *ctx) = round ? c->round : c->ready;

		if (fn)
			fn(s, c->ctx);
	}
}

void session__consumers_ready(struct session *s)
{
	consumers_at(s, false);
}

void session__consumers_round(struct session *s)
{
	consumers_at(s, true);
}

bool session__consumers_want_round(const struct session *s)
{
	for (size_t i = 0; i < s->nconsumers; i++)
		if (s->consumers[i].round)
			return true;
	return false;
}

/* Whether one of @n ips lies in [@lo, @hi). */
bool session__ips_in(const uint64_t *ips, uint32_t n, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < n; i++)
		if (ips[i] >= lo && ips[i] < hi)
			return true;
	return false;
}

bool session__stack_return_probed(struct session *s, pid_t pid, uint32_t stack)
{
	uint64_t lo, hi;
	uint32_t n = 0;
	const uint64_t *ips;

	if (!addrspaces__uprobes_page(s->as, pid, &lo, &hi))
		return false;
	ips = stackdb__get(s->stacks, stack, &n);
	return ips && session__ips_in(ips, n, lo, hi);
}

int session__uprobe_locate(struct session *s, const struct probe_spec *spec, unsigned int flags,
			   char *path, size_t n, uint64_t *off, struct errbuf *eb)
{
	return s->src->uprobe_locate(s, spec, flags, path, n, off, eb);
}

int session__add_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
			session_sample_fn fn, void *ctx, struct tp_event **ev,
			struct errbuf *eb)
{
	return s->src->add_uprobe(s, spec, flags, fn, ctx, ev, eb);
}

int session__add_software(struct session *s, const char *name, uint64_t config,
			  unsigned int flags, session_sample_fn fn, void *ctx, struct errbuf *eb)
{
	return s->src->add_software(s, name, config, flags, fn, ctx, eb);
}

int session__add_kprobe(struct session *s, const char *event, const char *func, bool retprobe,
			const char *fetchargs, unsigned int flags, session_sample_fn fn, void *ctx,
			struct tp_event **ev, struct errbuf *eb)
{
	return s->src->add_kprobe(s, event, func, retprobe, fetchargs, flags, fn, ctx, ev, eb);
}

/* ---- side-band, live or replayed ---- */

void session__on_mmap(struct session *s, pid_t pid, const struct map *m, uint64_t time)
{
	addrspaces__add(s->as, pid, m);
	if (s->obs)
		s->obs->mmap(s, pid, m, time);
	session__each_consumer(s, c, mmap)
		c->mmap(s, pid, m, c->ctx);
}

void session__on_comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec,
		      uint64_t time)
{
	if (s->obs)
		s->obs->comm(s, pid, tid, comm, exec, time);
	if (exec && s->urets)
		uret_table__forget(s->urets, tid);	/* a new stack */
	if (pid != tid)
		return;
	if (exec) {
		uint64_t n = 0, old;
		pid_t alias;

		hashmap__get(s->execs, (uint64_t)pid, &n);
		hashmap__set(s->execs, (uint64_t)pid, n + 1);
		/* The command is the target from its exec on (before, it is
		 * faultline's forked copy). */
		if (s->tree && s->target && target__kind(s->target) == TARGET_CMD &&
		    pid == target__pid(s->target))
			hashmap__set(s->tree, (uint64_t)pid, 1);
		/* The old image, kept for its stacks, keeps its name too. */
		alias = addrspaces__exec(s->as, pid);
		if (alias && hashmap__get(s->comms, (uint64_t)pid, &old))
			session__set_comm(s, alias, (const char *)(uintptr_t)old);
		session__each_consumer(s, c, exec)
			c->exec(s, pid, time, c->ctx);
	}
	session__set_comm(s, pid, comm);
}

void session__on_fork(struct session *s, const struct sb_task *tk)
{
	uint64_t pcomm;

	/* After a pid wrap, a task of the target's below the PMU uprobes'
	 * filter (pmu_filter) is not seen: say so as a loss. */
	if (s->pmu_min_tid && (pid_t)tk->tid < s->pmu_min_tid && s->tree &&
	    (hashmap__get(s->tree, tk->pid, NULL) || hashmap__get(s->tree, tk->ppid, NULL)))
		s->lost++;
	live__uret_task(s, tk, true);
	if (tk->pid == tk->ppid)
		return;		/* a thread */
	session__learn_process(s, (pid_t)tk->ppid);
	if (s->tree && hashmap__get(s->tree, tk->ppid, NULL))
		hashmap__set(s->tree, tk->pid, 1);
	if (s->obs)
		s->obs->task(s, tk, true);
	addrspaces__fork(s->as, (pid_t)tk->ppid, (pid_t)tk->pid);
	if (hashmap__get(s->comms, tk->ppid, &pcomm))
		session__set_comm(s, (pid_t)tk->pid, (const char *)(uintptr_t)pcomm);
	session__each_consumer(s, c, fork)
		c->fork(s, (pid_t)tk->ppid, (pid_t)tk->pid, c->ctx);
}

void session__on_exit(struct session *s, const struct sb_task *tk)
{
	live__uret_task(s, tk, false);
	if (s->obs)
		s->obs->task(s, tk, false);
	session__each_consumer(s, c, thread_exit)
		c->thread_exit(s, (pid_t)tk->pid, (pid_t)tk->tid, c->ctx);
}

int session__run(struct session *s, struct errbuf *eb)
{
	return s->src->run(s, eb);
}

void session__stop(struct session *s)
{
	if (!s->stop)
		s->stop = SESSION_STOP_TOOL;
}

enum session_stop session__stop_reason(const struct session *s)
{
	return s->stop;
}

bool session__stopping(const struct session *s)
{
	return s->stop || session__stop_requested();
}

int session__cmd_status(const struct session *s)
{
	return s->src->cmd_status(s);
}

uint64_t session__now(const struct session *s)
{
	return s->src->now(s);
}

time_t session__wall(const struct session *s)
{
	return s->src->wall(s);
}

int session__kernel_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	return s->src->stack(s, smp, false, stack_id);
}

int session__user_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	return s->src->stack(s, smp, true, stack_id);
}

uint64_t session__unwind_stops(const struct session *s, int reason)
{
	return reason >= 0 && reason < UNWIND__COUNT ? s->unwind_stops[reason] : 0;
}

bool session__dwarf(const struct session *s)
{
	return s->src->dwarf(s);
}

bool session__user_stacks(const struct session *s)
{
	for (size_t i = 0; i < s->nevsels; i++)
		if (s->evsels[i].flags & SESSION_USER_STACK)
			return true;
	return false;
}

unsigned int session__mmap_pages(const struct session *s)
{
	const char *m;

	if (!session__replaying(s))
		return s->opts.mmap_pages;
	m = session__meta(s, "mmap_pages");
	return m ? (unsigned int)strtoul(m, NULL, 10) : 0;
}

const char *session__meta(const struct session *s, const char *key)
{
	return s->src->meta ? s->src->meta(s, key) : NULL;
}

unsigned int session__stack_size(const struct session *s)
{
	const char *v;
	char *end;
	unsigned long n;

	if (!session__dwarf(s))
		return 0;
	if (!session__replaying(s))
		return s->opts.stack_size;
	/* A recording's own word; none before it was written, or a bad one. */
	v = session__meta(s, "stack_size");
	if (!v)
		return 0;
	errno = 0;
	n = strtoul(v, &end, 10);
	return errno || *end || end == v || n > SESSION_MAX_STACK_SIZE ? 0 : (unsigned int)n;
}

bool session__replaying(const struct session *s)
{
	return s->src != &live__source;
}

uint32_t session__exec_count(const struct session *s, pid_t pid)
{
	uint64_t n = 0;

	hashmap__get(s->execs, (uint64_t)pid, &n);
	return (uint32_t)n;
}

pid_t session__stack_pid(const struct session *s, pid_t pid, uint32_t stack)
{
	return addrspaces__image_pid(s->as, pid, stackdb__image(s->stacks, stack));
}

const char *session__stack_comm(struct session *s, pid_t pid, uint32_t stack)
{
	return session__comm(s, session__stack_pid(s, pid, stack));
}

const char *session__comm(struct session *s, pid_t pid)
{
	uint64_t v;

	if (hashmap__get(s->comms, (uint64_t)pid, &v))
		return (const char *)(uintptr_t)v;
	return "?";
}

pid_t session__target_pid(const struct session *s)
{
	return s->src->target_pid(s);
}

const char *session__target_exe(const struct session *s)
{
	return session__replaying(s) ? NULL : target__exe(s->target);
}

bool session__is_cmd(const struct session *s)
{
	return s->src->is_cmd(s);
}

uint64_t session__lost(const struct session *s)
{
	/* Both count the same losses when both are complete; each can miss
	 * some (a LOST record never written, the losses of inherited events
	 * in threads, which their parent's count does not include). */
	return s->lost > s->lost_counted ? s->lost : s->lost_counted;
}

uint64_t session__pauses(const struct session *s, uint64_t *ns)
{
	/* While the drain runs (an interval's report), its pauses so far. */
	if (s->drain)
		return drain__pauses(s->drain, ns);
	if (ns)
		*ns = s->paused_ns;
	return s->pauses;
}

uint64_t session__samples(const struct session *s)
{
	return s->samples;
}

uint64_t session__bad_records(const struct session *s)
{
	return s->bad;
}

uint64_t session__foreign(const struct session *s)
{
	return s->foreign;
}

uint64_t session__realtime(const struct session *s, uint64_t t)
{
	/* With CLOCK_MONOTONIC sample times the offset is exact; without (old
	 * kernels) the perf clock is close enough for HH:MM:SS. */
	if (t >= s->start_mono_ns || !s->use_clockid)
		return s->start_real_ns + (t - s->start_mono_ns);
	return s->start_real_ns - (s->start_mono_ns - t);
}

double session__elapsed(const struct session *s, uint64_t t)
{
	if (t <= s->start_mono_ns)
		return 0.0;
	return (double)(t - s->start_mono_ns) / 1e9;
}

struct addrspaces *session__addrspaces(struct session *s)
{
	return s->as;
}

struct stackdb *session__stackdb(struct session *s)
{
	return s->stacks;
}

struct symbolizer *session__symbolizer(struct session *s)
{
	return s->sym;
}
