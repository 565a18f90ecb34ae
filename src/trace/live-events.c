/*
 * live-events: the live source's event setup (session-int.h): the perf
 * events a live session opens and the rings they write to, the side-band
 * first, then each traced event a tool adds (tracepoints, uprobes on
 * tracefs or through the uprobe PMU, kprobes, software events), and
 * events added while the run goes on (session__grow_begin/_end).
 *
 * Layout of the kernel side: for each CPU (system-wide) or each (task, CPU)
 * pair (-p: every thread; -c: the command, inherited by its threads and
 * children), a dummy software event carries the side-band records (MMAP2,
 * COMM, FORK, EXIT) and owns the CPU's ring; every traced event opened on
 * that CPU is redirected into the same ring with PERF_EVENT_IOC_SET_OUTPUT.
 * All events share one sample_id layout (TID|TIME|CPU|IDENTIFIER) so any
 * record's trailer can be decoded before its event is known.  What of
 * that the kernel lacks (perf_caps__probe(), before the first open: the
 * dummy event and IDENTIFIER are 3.12's, MMAP2 and the COMM's exec flag
 * 3.16's) is replaced: a page-fault counter that never samples, ID with
 * ADDR in every event (so that the id is every sample's fourth word),
 * MMAP records, an exec taken as a process's first COMM after its fork.
 *
 * May call: the kernel-facing trace/ modules (perf-event, perf-cgroup,
 * probe-group, tp-catalog, uprobe-*, ring, tree-pause, target), stack/
 * (ELF symbols), proc/ (a process's threads), lib/; and session.c's
 * side-band calls (session-int.h).  Reading what the events write is
 * live.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/file.h"
#include "trace/session-int.h"
#include "stack/elf-sym.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/hashmap.h"
#include "proc/pidstat.h"
#include "trace/perf-event.h"
#include "trace/ring.h"
#include "trace/perf-cgroup.h"
#include "trace/probe-spec.h"
#include "trace/drain.h"
#include "trace/tree-pause.h"
#include "trace/target.h"
#include "trace/probe-group.h"
#include "trace/uprobe-place.h"
#include "trace/uprobe-pmu.h"
#include "trace/uprobe-tmpfs.h"
#include "lib/grow.h"

/* Without the dummy event (before 3.12) the side-band rides a software
 * page-fault counter that never reaches its period. */
#define SB_NEVER_PERIOD (1ULL << 62)

/* ---- small helpers ---------------------------------------------------- */

static int track_fd(struct session *s, int fd)
{
	if (GROW_FOR(s->fds, s->capfds, s->nfds + 1, 64))
		return -ENOMEM;
	s->fds[s->nfds++] = fd;
	return 0;
}

/* @attr as the failed open left it: on E2BIG the kernel wrote its size there. */
static int perf_open_error(struct session *s, int err, const struct perf_event_attr *attr,
			   const char *what, struct errbuf *eb)
{
	if (err == -EACCES || err == -EPERM)
		return errbuf__set(eb, err,
				   "perf_event_open of '%s' refused (perf_event_paranoid is %d): "
				   "run as root, or with CAP_PERFMON and CAP_SYS_ADMIN",
				   what, features__paranoid(s->features));
	if (err == -EMFILE || err == -ENFILE)
		return errbuf__set(eb, err, "out of file descriptors opening '%s': raise 'ulimit -n'",
				   what);
	if (err == -ESRCH)
		return errbuf__set(eb, err, "the traced process exited while '%s' was being opened",
				   what);
	if (err == -E2BIG)
		return errbuf__set(eb, err,
				   "perf_event_open of '%s': the kernel's perf_event_attr is %u bytes, "
				   "and faultline sets a field past them (E2BIG): this kernel is older "
				   "than faultline supports (Linux 3.7, or RHEL 7's 3.10)",
				   what, attr->size);
	return errbuf__set(eb, err, "perf_event_open of '%s' failed: %s", what, strerror(-err));
}

static void base_attr(struct session *s, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_period = 1;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->inherit = s->target && target__kind(s->target) != TARGET_ALL && !s->opts.system_wide;
	a->enable_on_exec = s->target && target__kind(s->target) == TARGET_CMD &&
			    !s->opts.system_wide && !s->growing;
	/* clockid is a reserved word before 4.1: zero unless use_clockid. */
	a->use_clockid = s->use_clockid;
	a->clockid = s->use_clockid ? CLOCK_MONOTONIC : 0;
	/* Samples lost while the ring was full are reported by a LOST
	 * record written before the next record that fits, so a burst lost
	 * at the very end (the reader behind when the target exits) would
	 * never be reported: each event also counts its own (6.0+). */
	if (s->format_lost)
		a->read_format = PERF_FORMAT_LOST;
	/* Wake the reader when a quarter of the ring is used: rare wakeups,
	 * yet room left for the burst that arrives while it reads. */
	a->watermark = 1;
	a->wakeup_watermark = s->opts.mmap_pages * (uint32_t)sysconf(_SC_PAGESIZE) / 4;
}

/* attr on @task and @cpu; while s->open_cgroup_fd is set, on that cgroup. */
static int open_one(const struct session *s, struct perf_event_attr *attr, pid_t task, int cpu)
{
	if (s->open_cgroup_fd >= 0)
		return perf_event__open_cgroup(attr, s->open_cgroup_fd, cpu);
	return perf_event__open(attr, task, cpu, -1);
}

/*
 * Open attr on every (task, CPU) and route it into that CPU's ring; the
 * first event opened (the side-band one) creates the rings.
 */
static int open_everywhere(struct session *s, struct perf_event_attr *attr, const char *what,
			   size_t evsel_idx, struct errbuf *eb)
{
	bool first = s->ring_owner == NULL;
	int err;

	if (first) {
		s->rings = calloc((size_t)s->ncpus, sizeof(*s->rings));
		s->ring_owner = malloc((size_t)s->ncpus * sizeof(*s->ring_owner));
		if (!s->rings || !s->ring_owner)
			return -ENOMEM;
		for (int c = 0; c < s->ncpus; c++)
			s->ring_owner[c] = -1;
	}
	for (size_t t = 0; t < s->ntasks; t++) {
		for (int c = 0; c < s->ncpus; c++) {
			int fd = open_one(s, attr, s->tasks[t], s->cpus[c]);

			if (fd == -EINVAL && (attr->read_format & PERF_FORMAT_LOST)) {
				/* Before 6.0: LOST records are all there is. */
				attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
				s->format_lost = false;
				fd = open_one(s, attr, s->tasks[t], s->cpus[c]);
			}
			if (fd == -EINVAL && attr->use_clockid) {
				/* Kernels before 4.1 lack use_clockid: perf clock it is. */
				attr->use_clockid = 0;
				attr->clockid = 0;
				s->use_clockid = false;
				fd = open_one(s, attr, s->tasks[t], s->cpus[c]);
			}
			if (fd == -ESRCH && ((s->ntasks > 1 && t > 0) || s->growing))
				continue;	/* a thread that exited meanwhile */
			if (fd < 0)
				return perf_open_error(s, fd, attr, what, eb);
			err = track_fd(s, fd);
			if (err) {
				close(fd);
				return err;
			}
			if (evsel_idx) {
				/* Each fd has its own id; all map to the one evsel. */
				uint64_t id;

				err = perf_event__id(fd, &id);
				if (err)
					return errbuf__set(eb, err, "cannot read the id of '%s'", what);
				if (hashmap__set(s->ids, id, evsel_idx))
					return -ENOMEM;
				/* PERF_SAMPLE_STACK_USER is the last field faultline
				 * asks for: the copy ends every sample. */
				if ((attr->sample_type & PERF_SAMPLE_STACK_USER) &&
				    attr->sample_stack_user) {
					if (GROW_FOR(s->trims, s->captrims, s->ntrims + 1, 64))
						return -ENOMEM;
					s->trims[s->ntrims++] = (struct drain_trim){
						.id = id, .stack_size = attr->sample_stack_user };
				}
			}
			if (s->ring_owner[c] < 0) {
				err = ring__new(fd, s->opts.mmap_pages, &s->rings[c]);
				if (err == -EPERM)
					return errbuf__set(eb, err,
							   "cannot map a ring of %u pages: over the locked-memory limit "
							   "(kernel.perf_event_mlock_kb); use a smaller -m",
							   s->opts.mmap_pages);
				if (err)
					return errbuf__set(eb, err, "cannot map the perf ring: %s",
							   strerror(-err));
				s->ring_owner[c] = fd;
			} else {
				err = perf_event__set_output(fd, s->ring_owner[c]);
				if (err)
					return errbuf__set(eb, err, "cannot redirect '%s' into the ring: %s",
							   what, strerror(-err));
			}
		}
	}
	return 0;
}

int live__load_tasks(struct session *s, struct errbuf *eb)
{
	int err;

	free(s->tasks);
	s->tasks = NULL;
	s->ntasks = 0;
	if (s->opts.system_wide) {
		s->tasks = malloc(sizeof(*s->tasks));
		if (!s->tasks)
			return -ENOMEM;
		s->tasks[0] = -1;
		s->ntasks = 1;
		return 0;
	}
	switch (target__kind(s->target)) {
	case TARGET_PID:
		err = target__threads(s->target, &s->tasks, &s->ntasks);
		if (err)
			return errbuf__set(eb, err, "no process with pid %d", (int)target__pid(s->target));
		return 0;
	case TARGET_CMD:
	case TARGET_ALL:
		s->tasks = malloc(sizeof(*s->tasks));
		if (!s->tasks)
			return -ENOMEM;
		s->tasks[0] = target__pid(s->target);
		s->ntasks = 1;
		return 0;
	}
	return -EINVAL;
}

/* The side-band (mmap, comm, task records) on every CPU or task of the
 * target; for a process, on the threads born while it was opened too. */
int live__open_side_band(struct session *s, struct errbuf *eb)
{
	struct perf_event_attr sb;
	int err;

	base_attr(s, &sb);
	sb.type = PERF_TYPE_SOFTWARE;
	sb.config = PERF_COUNT_SW_DUMMY;
	if (!(s->perf_caps & (1u << PERF_CAP_DUMMY))) {
		sb.config = PERF_COUNT_SW_PAGE_FAULTS;
		sb.sample_period = SB_NEVER_PERIOD;
	}
	sb.sample_type = s->id_type;
	sb.mmap = 1;
	sb.mmap2 = !!(s->perf_caps & (1u << PERF_CAP_MMAP2));
	sb.mmap_data = 1;
	sb.comm = 1;
	sb.comm_exec = !!(s->perf_caps & (1u << PERF_CAP_COMM_EXEC));
	sb.task = 1;
	err = open_everywhere(s, &sb, "side-band", 0, eb);
	if (err)
		return err;
	if (target__kind(s->target) == TARGET_PID) {
		/* Threads born between listing and opening: open them too. */
		size_t before = s->ntasks;
		pid_t *old = s->tasks;

		s->tasks = NULL;
		s->ntasks = 0;
		err = live__load_tasks(s, eb);
		if (!err && s->ntasks != before) {
			/* Open the side-band for the new ones only. */
			pid_t *all = s->tasks;
			size_t nall = s->ntasks;
			pid_t *fresh = malloc(nall * sizeof(*fresh));
			size_t nfresh = 0;

			if (!fresh) {
				err = -ENOMEM;
			} else {
				for (size_t i = 0; i < nall; i++) {
					bool seen = false;

					for (size_t j = 0; j < before; j++)
						seen |= old[j] == all[i];
					if (!seen)
						fresh[nfresh++] = all[i];
				}
				s->tasks = fresh;
				s->ntasks = nfresh;
				err = open_everywhere(s, &sb, "side-band", 0, eb);
				s->tasks = all;
				s->ntasks = nall;
				free(fresh);
			}
		}
		free(old);
		if (err)
			return err;
		if (hashmap__set(s->tree, (uint64_t)target__pid(s->target), 1))
			return -ENOMEM;
		session__learn_process(s, target__pid(s->target));
	}
	return 0;
}

/* ---- events ------------------------------------------------------------- */

/* A uprobe through the perf PMU: where, and what its samples carry. */
struct pmu_probe {
	const char *path;
	uint64_t off;
	bool retprobe;
	struct pmu_args *args;	/* given to the evsel */
	char *format;		/* given to the evsel */
};

/*
 * Where the target has no cgroup of its own (pmu_cgroup() could not make
 * one), the kernel's share of keeping a PMU uprobe to it: samples of
 * tasks older than it are not written (common_pid is the tid; the
 * target's threads and children are all born after it, until pids wrap:
 * session__on_fork counts a task of the target's below the bound as
 * lost).  Measured here: leak-target under `record -e leak` with tracefs
 * masked lost 739 samples of other processes' mallocs without it.
 *
 * -p: the target is older than most of the host, so "born after it"
 * keeps nearly everyone.  There the filter names the target's threads,
 * and lets through only tasks born after the last pid handed out before
 * they were listed (pid_bound()): the threads it starts later.  `leak -p`
 * of a shell beside a perl building a hash lost 1,043 events to perl's
 * samples without it.  A target with more threads than a filter carries
 * (the kernel takes a page) keeps the plain bound.  Every process born
 * on the host after the attach passes it too: their samples take ring
 * space, and deliver() drops them (counted: session__foreign()).
 */
#define PMU_FILTER_MAX 4000

/* The next pid the kernel hands out in our namespace, read before the
 * caller lists the target's threads; 0 when unknown. */
static pid_t pid_bound(void)
{
	char *buf = NULL;
	long last = 0;

	if (!read_file("/proc/sys/kernel/ns_last_pid", 32, &buf, NULL))
		last = strtol(buf, NULL, 10);
	free(buf);
	return last > 0 && last < INT32_MAX ? (pid_t)(last + 1) : 0;
}

/* -p's filter in @out: the threads listed now, and tasks from @bound on. */
static int pid_filter(const struct session *s, pid_t bound, char *out, size_t n)
{
	pid_t *tids = NULL;
	size_t ntids = 0, len;
	int err = target__threads(s->target, &tids, &ntids);

	if (err)
		return err;
	len = (size_t)snprintf(out, n, "common_pid >= %d", (int)bound);
	for (size_t i = 0; i < ntids && len < n; i++)
		if (tids[i] < bound)
			len += (size_t)snprintf(out + len, n - len, " || common_pid == %d", (int)tids[i]);
	free(tids);
	return len < n ? 0 : -E2BIG;
}

static int pmu_filter(struct session *s, size_t idx, struct errbuf *eb)
{
	const struct evsel *e = &s->evsels[idx];
	char filter[PMU_FILTER_MAX];
	pid_t bound = 0;

	if (!s->target || target__kind(s->target) == TARGET_ALL || target__pid(s->target) <= 0)
		return 0;
	if (target__kind(s->target) == TARGET_PID)
		bound = pid_bound();
	if (!bound || pid_filter(s, bound, filter, sizeof(filter))) {
		bound = target__pid(s->target);
		snprintf(filter, sizeof(filter), "common_pid >= %d", (int)bound);
	}
	s->pmu_min_tid = bound;
	for (size_t f = e->first_fd; f < s->nfds; f++) {
		int err = perf_event__set_filter(s->fds[f], filter);

		if (err)
			return errbuf__set(eb, err, "the kernel refused filter '%s' on '%s': %s",
					   filter, e->name, strerror(-err));
	}
	return 0;
}

/*
 * The PMU events' cgroup: the target's process (for -c, the command held
 * before its exec) moved into faultline_<pid> below its own cgroup, once,
 * before the first PMU uprobe is opened.  A thread or child is born in
 * its parent's cgroup, in the kernel, before it runs: the events count
 * it from its first instruction, as an inherited event would.
 *
 * Measured on 6.18 with leak-target under -p (it starts 6 threads that
 * make 30 mallocs, and in its fork mode a child that makes 3): per-
 * (thread, CPU) events opened for each task the side-band's FORK record
 * names, the rings read in a busy loop, saw none of the 33, every thread
 * gone (ESRCH) by the time its record was read; and a filter naming the
 * threads cannot take a new one, the kernel refusing a second
 * PERF_EVENT_IOC_SET_FILTER on an event (EEXIST).  In a cgroup: all 33,
 * and no sample of another process.
 *
 * Later (events added while running): the processes the session knows
 * in the tree (forked since) are moved too.  Where no cgroup can be made
 * (no perf_event hierarchy, a read-only cgroupfs, a threaded cgroup
 * where a new child cannot take processes) s->pmu_cg stays NULL.
 */
static void pmu_cgroup(struct session *s)
{
	struct errbuf ignored = { "" };
	uint64_t key, val;
	size_t pos = 0;
	pid_t pid;

	if (s->pmu_cg_tried || s->opts.system_wide || !s->target ||
	    target__kind(s->target) == TARGET_ALL || target__pid(s->target) <= 0)
		return;
	s->pmu_cg_tried = true;
	pid = target__pid(s->target);
	if (perf_cgroup__new(pid, &s->pmu_cg, &ignored)) {
		s->pmu_cg = NULL;
		return;
	}
	while (s->tree && hashmap__next(s->tree, &pos, &key, &val))
		if ((pid_t)key != pid)
			perf_cgroup__add(s->pmu_cg, (pid_t)key);	/* gone: nothing to count */
}

static int add_evsel(struct session *s, const char *name, uint32_t type, uint64_t config,
		     unsigned int flags, session_sample_fn fn, void *ctx,
		     struct pmu_probe *pp, struct errbuf *eb)
{
	struct perf_event_attr attr;
	struct evsel *nv;
	bool alias = false;
	int err;

	/* Recording, two tools asking for one event share one perf event:
	 * the kernel may give a sample to only one of two identical
	 * software events.  A richer request (a stack, an address) replaces
	 * the poorer one, whose fds close. */
	for (size_t i = 0; s->obs && i < s->nevsels && !alias; i++) {
		struct evsel *e = &s->evsels[i];

		if (e->alias || strcmp(e->name, name))
			continue;
		if (!(flags & SESSION_RICH & ~e->flags)) {
			alias = true;
			continue;
		}
		for (size_t f = e->first_fd; f < e->first_fd + e->nfds; f++) {
			close(s->fds[f]);
			s->fds[f] = -1;
		}
		e->alias = true;
	}
	nv = realloc(s->evsels, (s->nevsels + 1) * sizeof(*nv));
	if (!nv) {
		if (pp) {
			pmu_args__free(pp->args);
			free(pp->format);
		}
		return -ENOMEM;
	}
	s->evsels = nv;
	memset(&s->evsels[s->nevsels], 0, sizeof(*nv));
	if (pp) {
		s->evsels[s->nevsels].pmu = pp->args;
		s->evsels[s->nevsels].pmu_format = pp->format;
	}
	snprintf(s->evsels[s->nevsels].name, sizeof(nv->name), "%s", name);
	s->evsels[s->nevsels].fn = fn;
	s->evsels[s->nevsels].ctx = ctx;
	s->evsels[s->nevsels].first_fd = s->nfds;
	s->evsels[s->nevsels].flags = flags;
	s->evsels[s->nevsels].type = type;
	s->evsels[s->nevsels].config = config;
	s->evsels[s->nevsels].kind = type == PERF_TYPE_SOFTWARE ? EVSEL_SOFTWARE : EVSEL_TRACEPOINT;
	s->evsels[s->nevsels].alias = alias;
	if (alias) {
		s->evsels[s->nevsels++].nfds = 0;
		return 0;
	}

	base_attr(s, &attr);
	attr.type = type;
	attr.config = config;
	attr.sample_type = s->id_type;
	if (type == PERF_TYPE_TRACEPOINT)
		attr.sample_type |= PERF_SAMPLE_RAW;
	if (flags & SESSION_SAMPLE_ADDR)
		attr.sample_type |= PERF_SAMPLE_ADDR;
	if ((flags & SESSION_USER_STACK) && s->opts.callgraph == CALLGRAPH_DWARF) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user = UNWIND_REGS_MASK;
		attr.sample_stack_user = s->opts.stack_size;
	} else if (flags & SESSION_USER_STACK) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = !(flags & SESSION_KERNEL_STACK);
		if (flags & SESSION_FUNC_ENTRY) {
			/* At a function's first instruction the frame pointer
			 * is still the caller's: the walk would skip the direct
			 * caller, whose return address sits at *sp. */
			attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			attr.sample_regs_user = 1ULL << PERF_REG_X86_SP;
			attr.sample_stack_user = 8;
			s->evsels[s->nevsels].entry_fix = true;
		}
	}
	if (flags & SESSION_RETURN_PROBED) {
		/* %sp: at the entry the return address's slot, at the
		 * return 8 above it (which pending return this is). */
		attr.sample_type |= PERF_SAMPLE_REGS_USER;
		attr.sample_regs_user |= 1ULL << PERF_REG_X86_SP;
		/* The return address the uretprobe is about to replace:
		 * 8 bytes at %sp, taken before the kernel writes its
		 * trampoline there (the entry's handlers run first). */
		if ((flags & SESSION_FUNC_ENTRY) && !(attr.sample_type & PERF_SAMPLE_STACK_USER)) {
			attr.sample_type |= PERF_SAMPLE_STACK_USER;
			attr.sample_stack_user = 8;
		}
	}
	if ((flags & SESSION_STACK_WORDS) && !(attr.sample_type & PERF_SAMPLE_STACK_USER)) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user |= 1ULL << PERF_REG_X86_SP;
		attr.sample_stack_user = SESSION_STACK_WORDS_SIZE;
	}
	if ((flags & SESSION_KERNEL_STACK) && !(attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_user = 1;
	}
	if (pp) {
		/* The arguments: the registers at the breakpoint, beside
		 * whatever the stack walk samples (packed by bit order). */
		uprobe_pmu__attr(&attr, type, pp->retprobe, s->pmu_retprobe_bit, pp->path, pp->off);
		attr.sample_type |= PERF_SAMPLE_REGS_USER;
		attr.sample_regs_user |= pmu_args__regs_mask(pp->args);
	}
	s->evsels[s->nevsels].sample_type = attr.sample_type;
	s->evsels[s->nevsels].regs_mask = attr.sample_regs_user;
	s->evsels[s->nevsels].nr_regs = (unsigned int)__builtin_popcountll(attr.sample_regs_user);
	s->nevsels++;
	if (pp) {
		/* A PMU uprobe cannot follow the target into new threads and
		 * children: an inherited copy re-reads config1 (the path) as
		 * a pointer in the forking task, where it means nothing, and
		 * fork fails with EFAULT (seen on 6.1 and here).  So it is
		 * opened on each CPU, enabled by session__run, and deliver()
		 * keeps the target's samples.  The target (-p's process, -c's
		 * command) gets a cgroup of its own (perf-cgroup.h) and the
		 * events are that cgroup's: no other process's sample is
		 * written, and a thread or child the target starts is in it
		 * from its first instruction (pmu_cgroup() says why neither
		 * per-thread events nor a filter can do that).  Other
		 * processes calling the probed function still pay the trap.
		 * Where no cgroup is to be had, a filter on common_pid keeps
		 * what it can (pmu_filter()). */
		pid_t *tasks = s->tasks, every = -1;
		size_t ntasks = s->ntasks;

		attr.inherit = 0;
		attr.enable_on_exec = 0;
		pmu_cgroup(s);
		s->tasks = &every;
		s->ntasks = 1;
		if (s->pmu_cg)
			s->open_cgroup_fd = perf_cgroup__fd(s->pmu_cg);
		err = open_everywhere(s, &attr, name, s->nevsels, eb);
		s->open_cgroup_fd = -1;
		s->tasks = tasks;
		s->ntasks = ntasks;
		if (!err && !s->pmu_cg)
			err = pmu_filter(s, s->nevsels - 1, eb);
	} else {
		err = open_everywhere(s, &attr, name, s->nevsels, eb);
	}
	s->evsels[s->nevsels - 1].nfds = s->nfds - s->evsels[s->nevsels - 1].first_fd;
	return err;
}

int live__add_memstat(struct session *s, struct errbuf *eb)
{
	(void)eb;
	s->memstat_on = true;
	return 0;
}

int live__add_tracepoint(struct session *s, const char *system, const char *event,
			 unsigned int flags, session_sample_fn fn, void *ctx,
			 struct tp_event **ev, struct errbuf *eb)
{
	struct tp_event *tev;
	int err;

	err = tp_catalog__load(s->catalog, system, event, &tev, eb);
	if (err)
		return err;
	err = add_evsel(s, tp_event__name(tev), PERF_TYPE_TRACEPOINT, tp_event__id(tev), flags, fn,
			ctx, NULL, eb);
	if (err)
		return err;
	s->evsels[s->nevsels - 1].tev = tev;
	if (ev)
		*ev = tev;
	return 0;
}

int live__set_filter(struct session *s, struct evsel *e, const char *filter,
		     struct errbuf *eb)
{
	/* The PMU's payload is built here: so is its filter applied. */
	if (e->pmu)
		return session__filter_here(s, e, filter, eb);
	for (size_t f = e->first_fd; f < e->first_fd + e->nfds; f++) {
		int err = s->fds[f] < 0 ? 0 : perf_event__set_filter(s->fds[f], filter);

		if (err)
			return errbuf__set(eb, err, "the kernel refused filter '%s' on '%s': %s",
					   filter, e->name, strerror(-err));
	}
	return 0;
}

/*
 * Uprobes through the perf PMU when tracefs cannot make them (lockdown
 * [confidentiality] closes tracefs; FAULTLINE_MASK=uprobes pretends so):
 * the ladders' PMU rungs need exactly this, so the choice agrees with the
 * rung a tool was given.
 */
static bool use_uprobe_pmu(const struct session *s)
{
	return !(features__has(s->features, FEAT_UPROBES) &&
		 features__has(s->features, FEAT_URETPROBES)) &&
	       features__has(s->features, FEAT_UPROBE_PMU);
}

bool session__uprobe_filters_in_kernel(const struct session *s)
{
	return !session__replaying(s) && !use_uprobe_pmu(s);
}

int live__uprobe_locate(struct session *s, const struct probe_spec *spec,
			unsigned int flags, char *path, size_t n, uint64_t *off,
			struct errbuf *eb)
{
	pid_t pid;
	uint8_t code[32];
	ssize_t got = 0;
	int err = -ENOENT, fd;

	if (spec->pmu && use_uprobe_pmu(s))
		spec = spec->pmu;
	pid = target__kind(s->target) == TARGET_PID ? target__pid(s->target) : 0;
	err = elf_sym__resolve_library(pid, spec->library, path, n, eb);
	if (err)
		return err;
	for (size_t i = 0; i < spec->nsymbols; i++) {
		err = elf_sym__offset(path, spec->symbols[i], off, eb);
		if (err != -ENOENT)
			break;
	}
	if (err == -ENOENT)
		return errbuf__set(eb, err, "no symbol '%s' in '%s'", spec->symbols[0], path);
	if (err)
		return err;
	*off += spec->sym_offset;
	if (!spec->nexpect && !(flags & SESSION_PLACE_CHEAP && spec->kind == PROBE_ENTRY))
		return 0;
	fd = open_regular(path, 0);
	if (fd >= 0) {
		got = pread(fd, code, sizeof(code), (off_t)*off);
		close(fd);
	}
	if (got < (ssize_t)spec->nexpect || got <= 0)
		return errbuf__set(eb, -EIO, "cannot read the code of '%s' at 0x%" PRIx64, path, *off);
	if (spec->nexpect && memcmp(code, spec->expect, spec->nexpect))
		return errbuf__set(eb, -ENOEXEC,
				   "probe '%s': the code at %s+0x%" PRIx64 " in '%s' is not what the "
				   "spec expects (another build of the library: see its .probes file)",
				   spec->name, spec->symbols[0], spec->sym_offset, path);
	if ((flags & SESSION_PLACE_CHEAP) && spec->kind == PROBE_ENTRY)
		*off += uprobe_place__skip(code, (size_t)got);
	return 0;
}

/* Whether @e's samples give what a pending return needs: a function
 * entry with %sp and the word there. */
static bool uret_entry_data(const struct evsel *e)
{
	return (e->flags & SESSION_FUNC_ENTRY) && (e->sample_type & PERF_SAMPLE_STACK_USER) &&
	       (e->regs_mask & (1ULL << PERF_REG_X86_SP));
}

/* A uprobe evsel was added at (probe_path, probe_off): pair an entry with
 * a return probe of the same function, whichever came first.  The kernel
 * replaces the return address at every entry of a function with a return
 * probe; the entry's samples let stacks inside the call be mended. */
static void uret_pair(struct session *s, struct evsel *e, bool is_return)
{
	e->uret_return = is_return;
	for (size_t i = 0; i + 1 < s->nevsels; i++) {
		struct evsel *o = &s->evsels[i];

		if (o->kind != EVSEL_UPROBE || o->probe_off != e->probe_off ||
		    strcmp(o->probe_path, e->probe_path))
			continue;
		if (is_return && !o->uret_return && uret_entry_data(o))
			o->uret_entry = true;
		else if (!is_return && o->uret_return && uret_entry_data(e))
			e->uret_entry = true;
	}
}

/* The PMU half of session__add_uprobe(): the probe by perf_event_open, its
 * arguments from the sampled registers, its payload described by a format
 * of our own ("faultline_pmu:NAME"), so the tool reads fields by name. */
static int add_pmu_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
			  session_sample_fn fn, void *ctx, struct tp_event **ev, struct errbuf *eb)
{
	const struct probe_spec *sp = spec->pmu ? spec->pmu : spec;
	struct pmu_probe pp = { .retprobe = sp->kind == PROBE_RETURN };
	struct errbuf why = { "" };
	struct tp_event *tev = NULL;
	char path[PATH_MAX];
	struct evsel *e;
	size_t before;
	int err;

	err = session__uprobe_locate(s, spec, flags, path, sizeof(path), &pp.off, eb);
	if (err)
		return err;
	pp.path = path;
	if (pp.retprobe && s->pmu_retprobe_bit < 0) {
		err = uprobe_pmu__retprobe_bit(features__sysfs_dir(s->features), &s->pmu_retprobe_bit);
		if (err)
			return errbuf__set(eb, err, "probe '%s': the uprobe PMU has no return probes "
					   "(%s/bus/event_source/devices/uprobe/format/retprobe: %s)",
					   sp->name, features__sysfs_dir(s->features), strerror(-err));
	}
	err = pmu_args__parse(sp->fetchargs, pp.retprobe, &pp.args, &why);
	if (err)
		return errbuf__set(eb, err, "probe '%s' on the uprobe PMU: %s (give the spec a 'pmu' "
				   "line for it)", sp->name, errbuf__str(&why, err));
	err = pmu_args__format(pp.args, sp->name, &pp.format);
	if (!err)
		err = tp_catalog__load_text(s->catalog, "faultline_pmu", sp->name, pp.format,
					    strlen(pp.format), &tev, eb);
	if (err) {
		pmu_args__free(pp.args);
		free(pp.format);
		return err;
	}
	/* A file on tmpfs: placed there, or a line saying why not (3.10's
	 * open would succeed with a probe that never fires). */
	if (!s->pmu_tmpfs_ok && uprobe_tmpfs__is(path)) {
		char where[PATH_MAX + 32];

		snprintf(where, sizeof(where), "%s:0x%" PRIx64, path, pp.off);
		err = uprobe_tmpfs__check_pmu(features__uprobe_pmu_type(s->features), path, pp.off,
					      sp->name, where, eb);
		if (err) {
			pmu_args__free(pp.args);
			free(pp.format);
			return err;
		}
		s->pmu_tmpfs_ok = true;
	}
	/* As on tracefs: the cheap placement passes flag-only instructions,
	 * the return address is still at the stack pointer. */
	if (sp->kind == PROBE_ENTRY && sp->sym_offset == 0)
		flags |= SESSION_FUNC_ENTRY;
	before = s->nevsels;
	err = add_evsel(s, tp_event__name(tev), (uint32_t)features__uprobe_pmu_type(s->features),
			0, flags, fn, ctx, &pp, eb);
	if (s->nevsels > before) {
		e = &s->evsels[s->nevsels - 1];
		e->tev = tev;
		e->kind = EVSEL_UPROBE;
		snprintf(e->probe_path, sizeof(e->probe_path), "%s", path);
		e->probe_off = pp.off;
		uret_pair(s, e, pp.retprobe);
	}
	if (!err && ev)
		*ev = tev;
	return err;
}

int live__add_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
		     session_sample_fn fn, void *ctx, struct tp_event **ev,
		     struct errbuf *eb)
{
	char path[PATH_MAX];
	uint64_t off = 0;
	int err;

	if (use_uprobe_pmu(s))
		return add_pmu_uprobe(s, spec, flags, fn, ctx, ev, eb);
	err = session__uprobe_locate(s, spec, flags, path, sizeof(path), &off, eb);
	if (err)
		return err;
	err = probe_group__add_uprobe(s->probes, spec->name, path, off,
				      spec->kind == PROBE_RETURN, spec->fetchargs, eb);
	if (err)
		return err;
	/* Cheap placement passes only flag-only instructions: the return
	 * address is still at the stack pointer, as at the entry. */
	if (spec->kind == PROBE_ENTRY && spec->sym_offset == 0)
		flags |= SESSION_FUNC_ENTRY;
	err = session__add_tracepoint(s, probe_group__name(s->probes), spec->name, flags, fn, ctx,
				      ev, eb);
	if (!err) {
		struct evsel *e = &s->evsels[s->nevsels - 1];

		e->kind = EVSEL_UPROBE;
		snprintf(e->probe_path, sizeof(e->probe_path), "%s", path);
		e->probe_off = off;
		uret_pair(s, e, spec->kind == PROBE_RETURN);
	}
	return err;
}

int live__add_software(struct session *s, const char *name, uint64_t config,
		       unsigned int flags, session_sample_fn fn, void *ctx,
		       struct errbuf *eb)
{
	return add_evsel(s, name, PERF_TYPE_SOFTWARE, config, flags, fn, ctx, NULL, eb);
}

int live__add_kprobe(struct session *s, const char *event, const char *func,
		     bool retprobe, const char *fetchargs, unsigned int flags,
		     session_sample_fn fn, void *ctx, struct tp_event **ev,
		     struct errbuf *eb)
{
	int err;

	err = probe_group__add_kprobe(s->probes, event, func, retprobe, fetchargs, eb);
	if (err)
		return err;
	err = session__add_tracepoint(s, probe_group__name(s->probes), event, flags, fn, ctx, ev,
				      eb);
	if (!err) {
		struct evsel *e = &s->evsels[s->nevsels - 1];

		e->kind = EVSEL_KPROBE;
		snprintf(e->probe_path, sizeof(e->probe_path), "%s", func);
	}
	return err;
}

/* ---- events added while running ---- */

bool session__in_target(const struct session *s, pid_t pid)
{
	return !session__replaying(s) && s->target && target__kind(s->target) != TARGET_ALL &&
	       s->tree && hashmap__get(s->tree, (uint64_t)pid, NULL);
}

/* Every thread of the processes @tp found, into @out. */
static int tree_threads(const struct tree_pause *tp, pid_t **out, size_t *nout)
{
	const pid_t *procs;
	size_t nprocs, n = 0, cap = 0;
	pid_t *all = NULL;

	procs = tree_pause__tree(tp, &nprocs);
	for (size_t i = 0; i < nprocs; i++) {
		pid_t *tids = NULL;
		size_t ntids = 0;

		if (pid_threads(procs[i], &tids, &ntids))
			continue;	/* gone meanwhile */
		if (GROW_FOR(all, cap, n + ntids, 16)) {
			free(tids);
			free(all);
			return -ENOMEM;
		}
		memcpy(all + n, tids, ntids * sizeof(*tids));
		n += ntids;
		free(tids);
	}
	*out = all;
	*nout = n;
	return 0;
}

int session__grow_begin(struct session *s, struct errbuf *eb)
{
	struct tree_pause *tp = NULL;
	pid_t *tasks = NULL;
	size_t ntasks = 0;
	int err;

	if (!s->running)
		return 0;
	if (s->growing)
		return errbuf__set(eb, -EBUSY, "events are being added already");
	if (!s->target || target__kind(s->target) == TARGET_ALL || s->opts.system_wide)
		return errbuf__set(eb, -EOPNOTSUPP, "events on every CPU have no process tree to "
				   "add events to");
	err = tree_pause__new(target__pid(s->target), &tp);
	if (err)
		return err;
	/* Stopped while the events are opened: a command's tree always, a
	 * -p target's when --pause asked for it; never one held by ptrace
	 * (pause_wanted() says why). */
	if (!s->held && (target__kind(s->target) == TARGET_CMD || s->opts.pause == SESSION_PAUSE_ON))
		tree_pause__stop(tp);
	else
		tree_pause__find(tp);
	err = tree_threads(tp, &tasks, &ntasks);
	if (err) {
		tree_pause__free(tp);
		return err;
	}
	s->grow_pause = tp;
	s->grow_tasks_saved = s->tasks;
	s->grow_ntasks_saved = s->ntasks;
	s->tasks = tasks;
	s->ntasks = ntasks;
	s->grow_first_fd = s->nfds;
	s->growing = true;
	return 0;
}

int session__grow_end(struct session *s, bool ok, struct errbuf *eb)
{
	int err = 0, werr = 0;

	if (!s->growing)
		return 0;
	/* Recording: the events go to the file before any sample of them. */
	if (ok && s->obs && s->obs->grow && (werr = s->obs->grow(s, eb)))
		ok = false;
	for (size_t i = s->grow_first_fd; i < s->nfds; i++) {
		if (s->fds[i] < 0)
			continue;
		if (ok && !err)
			err = perf_event__enable(s->fds[i]);
		if (!ok || err) {
			close(s->fds[i]);
			s->fds[i] = -1;
		}
	}
	if (err) {
		for (size_t i = s->grow_first_fd; i < s->nfds; i++)
			if (s->fds[i] >= 0) {
				close(s->fds[i]);
				s->fds[i] = -1;
			}
		errbuf__set(eb, err, "cannot enable the events added: %s", strerror(-err));
	}
	free(s->tasks);
	s->tasks = s->grow_tasks_saved;
	s->ntasks = s->grow_ntasks_saved;
	s->grow_tasks_saved = NULL;
	s->growing = false;
	tree_pause__free(s->grow_pause);	/* continues what it stopped */
	s->grow_pause = NULL;
	return werr ? werr : err;
}

