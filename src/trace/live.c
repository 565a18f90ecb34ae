/*
 * live: the live source of a session (session-int.h: struct
 * session_source), as replay.c is the recorded one.  It reads the perf
 * rings (through the drain thread, drain.h), merges their records in
 * time order and delivers each (deliver()): a sample to its event's
 * handler or the observer, a side-band record to session.c's side-band
 * calls; it unwinds user stacks (mending pending uretprobe returns:
 * stack/uret-fixup.h), applies back-pressure to the target
 * (tree-pause.h), and runs the loop until the stop condition
 * (live_run()).  Also the live session's start: its processes learned
 * from /proc, the C library indexed before the target runs, ring sizes.
 *
 * May call: the trace/ modules of the kernel side (drain, target,
 * tree-pause, perf-event, sample, the tracepoint filters, the uprobe
 * PMU's arguments), stack/ (unwinder, address spaces, stackdb,
 * symbolizer, uret fix-up), lib/; session.c's side-band and consumer
 * calls (session-int.h).  Opening events is live-events.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/newsys.h"
#include "lib/clock.h"
#include "trace/session-int.h"
#include "trace/tp-catalog.h"
#include "lib/hashmap.h"
#include "lib/stopsig.h"
#include "trace/perf-event.h"
#include "trace/drain.h"
#include "trace/tree-pause.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "trace/target.h"
#include "stack/uret-fixup.h"
#include "trace/uprobe-pmu.h"
#include "stack/addrspace.h"

#define MAX_USER_FRAMES 255
/* Pending uretprobe returns mended in one stack copy: a malloc inside a
 * probed realloc is two; deeper nesting keeps the innermost. */
#define MAX_URET_PATCHES 16
/* Ring pages per CPU when -m is not given.  A DWARF sample carries its
 * stack copy, so its ring must be larger to absorb the same burst; with an
 * 8 KiB copy: 1024 pages (4 MiB, ~480 samples) kept every event of
 * bench/unwind-throughput's allocator where 256 lost up to 1.5%, but
 * `leak` on a busy two-CPU machine still lost samples when the reader
 * was descheduled for ~15 ms during a burst of malloc returns; 4096
 * pages (16 MiB, ~1900 samples) absorbs 60 ms of that.  An fp sample is
 * ~250 bytes, but fp events also come faster (no stack copy): 64 pages
 * held ~1000 of them, a millisecond or two of a malloc loop, and lost 179
 * of leak-target's when a reader slowed by ASan was descheduled beside a
 * CPU hog; slab -a lost 212 a second on an idle VM.  1024 pages (4 MiB,
 * ~16,000 samples, 10-20 ms of a full-speed malloc loop) absorb such a
 * gap as the DWARF ring does.  The total is capped at 64 MiB so that
 * many-CPU machines do not lock gigabytes, and never below 64 pages a CPU. */
#define DEFAULT_PAGES_FP 1024
#define DEFAULT_PAGES_DWARF 4096
/* ... for a copy of this many bytes; doubled for each doubling of it
 * (32 KiB, the default since bench/stack-size: 16384 pages, within the
 * cap: 8192 a CPU on two CPUs, ~1000 samples). */
#define DEFAULT_PAGES_COPY 8192
#define MIN_DEFAULT_PAGES 64
#define MAX_DEFAULT_RING_BYTES (64u << 20)
#define READER_NICE (-10)
/* The drain thread's SCHED_FIFO priority: the lowest, as `perf record -r 1`
 * (drain__set_realtime()).  bench/busy-loss, 8 runs each after dropping
 * the page cache, two `yes` hogs beside it on 2 CPUs: with --no-realtime
 * perl's 40,000-key hash lost events in 2 runs (7,488 in all) and
 * malloc-churn's 1,000,000 pairs in 4 (39,246); in SCHED_FIFO, none.  At
 * nice -10 every lossy pass found the 16 MiB ring full while the spools
 * never held more than 44 MB: the reader kept up, the drain thread was
 * not scheduled in time. */
#define DRAIN_RT_PRIO 1

/* ---- setup -------------------------------------------------------------- */

/*
 * Every process's name and maps (not with no_maps: on a host of thousands
 * of processes they are most of the start), read once when a system-wide
 * session starts (as perf record -a synthesizes COMM and MMAP records):
 * the side-band has neither for a process that was running already, and a
 * process that exits before the reader reaches its first sample (a busy
 * machine, a short program) has no /proc entry left to name it and
 * symbolize its stacks by.  A recording writes them all at its start.
 */
void live__known_processes(struct session *s)
{
	char path[64], comm[64];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	FILE *f;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || hashmap__get(s->comms, (uint64_t)pid, NULL))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			session__set_comm(s, (pid_t)pid, comm);
			/* Named from /proc: a COMM now is no exec (comm_exec). */
			(void)hashmap__set(s->named, (uint64_t)pid, 1);
		}
		fclose(f);
		if (!s->opts.no_maps && !addrspaces__known(s->as, (pid_t)pid))
			addrspaces__load_pid(s->as, (pid_t)pid, NULL);
	}
	closedir(dir);
}

/*
 * Index the C library and the loader now, before the target runs: their
 * first lookup can cost ~15 ms (libc's names come from its debug file when
 * one is installed), and at the rate of a fast allocator that pause
 * overflows a ring.  faultline's own copies are, nearly always, the ones
 * its targets map; the symbolizer caches binaries by build-id.
 */
void live__prewarm(struct session *s)
{
	pid_t self = getpid();
	const struct map *maps;
	size_t n;

	if (addrspaces__load_pid(s->as, self, NULL))
		return;
	maps = addrspaces__maps(s->as, self, &n);
	for (size_t i = 0; i < n; i++) {
		const char *base = maps[i].path ? strrchr(maps[i].path, '/') : NULL;
		struct sym_result res;

		if (!base || !(maps[i].prot & PROT_EXEC))
			continue;
		if (!strncmp(base + 1, "libc.so", 7) || !strncmp(base + 1, "ld-linux", 8))
			symbolizer__user(s->sym, s->as, self, maps[i].start, &res);
	}
}

/* -m when not given: DWARF's default, halved until all rings fit the cap. */
unsigned int live__default_pages(const struct session *s)
{
	uint64_t ring_bytes = (uint64_t)s->ncpus * (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned int pages = s->opts.callgraph == CALLGRAPH_DWARF ? DEFAULT_PAGES_DWARF :
								    DEFAULT_PAGES_FP;

	/* A larger copy, as many samples: twice the pages a doubling. */
	for (uint32_t sz = s->opts.stack_size; s->opts.callgraph == CALLGRAPH_DWARF &&
	     sz > DEFAULT_PAGES_COPY && pages < (1u << 20); sz /= 2)
		pages *= 2;

	while (pages > MIN_DEFAULT_PAGES && pages * ring_bytes > MAX_DEFAULT_RING_BYTES)
		pages /= 2;
	return pages;
}

/*
 * A stack of an event that asked for SESSION_STACK_WORDS ends with the
 * return probes' trampoline when a call with one is in flight: a DWARF
 * walk stops there by itself, a frame-pointer callchain the kernel mended
 * (6.11+) does not show it, so it is added from the stack copy, whose
 * words still hold it.  session__stack_return_probed() then reads it from
 * the frames alone, live and in a replay (a recording keeps the frames).
 */
static void mark_return_probed(struct session *s, const struct evsel *ev,
			       const struct sample *smp, uint64_t *ips, uint32_t *n)
{
	const unsigned char *p = smp->stack;
	uint64_t lo, hi, w;

	if (!ev || !(ev->flags & SESSION_STACK_WORDS) || !p || *n >= MAX_USER_FRAMES ||
	    !addrspaces__uprobes_page(s->as, (pid_t)smp->pid, &lo, &hi) ||
	    session__ips_in(ips, *n, lo, hi))
		return;
	for (uint64_t off = 0; off + 8 <= smp->stack_size; off += 8) {
		memcpy(&w, p + off, 8);
		if (w >= lo && w < hi) {
			ips[(*n)++] = w;
			return;
		}
	}
}

/* ---- reading -------------------------------------------------------------- */

static uint64_t record_time(struct session *s, const struct perf_event_header *hdr)
{
	struct sb_id sid;
	uint64_t id, idx, time;

	/* Only the time, on the per-record read path: deliver() decodes the
	 * rest once, when the record's turn comes. */
	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (sample__peek_id(hdr, &s->id_pos, &id) || !hashmap__get(s->ids, id, &idx) ||
		    sample__peek_time(hdr, s->evsels[idx - 1].sample_type, &time))
			return 0;
		return time;
	}
	if (sample__parse_id(hdr, s->id_type, &sid))
		return 0;
	return sid.time;
}

/* ---- pending uretprobe returns (stack/uret-fixup.h) ---- */

static void sample_input(const struct evsel *e, const struct sample *smp, struct unwind_input *in)
{
	*in = (struct unwind_input){
		.pid = (pid_t)smp->pid,
		.regs = smp->regs,
		.regs_mask = smp->regs_abi ? e->regs_mask : 0,
		.stack = smp->stack,
		.stack_size = smp->stack_size,
	};
}

/* An entry of a function with a return probe: its slot and the word
 * there become the thread's innermost pending return. */
static int uret_enter(struct session *s, const struct evsel *e, const struct sample *smp)
{
	struct unwind_input in;
	uint64_t sp, word, lo, hi;
	bool chained;
	int err;

	sample_input(e, smp, &in);
	if (!unwind_input__reg(&in, PERF_REG_X86_SP, &sp) || !unwind_input__read(&in, sp, &word, 8))
		return 0;	/* the kernel could not copy it: that call stays unknown */
	if (!s->urets && (err = uret_table__new(&s->urets)))
		return err;
	chained = addrspaces__uprobes_page(s->as, (pid_t)smp->pid, &lo, &hi) && word >= lo && word < hi;
	return uret_table__enter(s->urets, (pid_t)smp->tid, sp, word, chained);
}

static void uret_leave(struct session *s, const struct evsel *e, const struct sample *smp)
{
	struct unwind_input in;
	const struct uret_pending *p;
	uint64_t sp;
	size_t n;

	if (!s->urets)
		return;
	sample_input(e, smp, &in);
	/* Without %sp, the innermost: calls return in order. */
	if (!unwind_input__reg(&in, PERF_REG_X86_SP, &sp)) {
		p = uret_table__pending(s->urets, (pid_t)smp->tid, &n);
		if (!n)
			return;
		sp = p[n - 1].slot + 8;
	}
	uret_table__leave(s->urets, (pid_t)smp->tid, sp);
}

/* A thread's stack begins or ends: its pending returns with it.  A
 * copy that fails (ENOMEM) leaves the child's unknown: its stacks end at
 * the trampoline, as they did before this table. */
void live__uret_task(struct session *s, const struct sb_task *tk, bool fork)
{
	if (!s->urets)
		return;
	if (!fork || tk->pid == tk->ppid || uret_table__fork(s->urets, (pid_t)tk->ptid, (pid_t)tk->tid))
		uret_table__forget(s->urets, (pid_t)tk->tid);
}

/* Mend @in, a DWARF sample of @tid: the copy's pending slots read as the
 * addresses they held, and a sample at the trampoline itself starts where
 * it returns to (its regs copied to @regs, room for 64). */
static void uret_mend_input(struct session *s, pid_t tid, struct unwind_input *in,
			    struct unwind_patch *patches, uint32_t max, uint64_t *regs)
{
	const struct uret_pending *p;
	uint64_t lo, hi, ip, sp, real;
	size_t n;

	if (!s->urets || !(p = uret_table__pending(s->urets, tid, &n)) ||
	    !addrspaces__uprobes_page(s->as, in->pid, &lo, &hi))
		return;
	in->patches = patches;
	in->npatches = uret_fixup__stack(p, n, in, lo, hi, patches, max);
	if (unwind_input__reg(in, PERF_REG_X86_IP, &ip) && ip >= lo && ip < hi &&
	    unwind_input__reg(in, PERF_REG_X86_SP, &sp) && uret_fixup__at_trampoline(p, n, sp, &real)) {
		uint64_t bit = 1ULL << PERF_REG_X86_IP;

		memcpy(regs, in->regs, (size_t)__builtin_popcountll(in->regs_mask) * sizeof(*regs));
		regs[__builtin_popcountll(in->regs_mask & (bit - 1))] = real;
		in->regs = regs;
	}
}

/* The same for a frame-pointer callchain's user frames. */
static void uret_mend_ips(struct session *s, const struct sample *smp, uint64_t *ips, uint32_t n)
{
	const struct uret_pending *p;
	uint64_t lo, hi;
	size_t np;

	if (s->urets && (p = uret_table__pending(s->urets, (pid_t)smp->tid, &np)) &&
	    addrspaces__uprobes_page(s->as, (pid_t)smp->pid, &lo, &hi))
		uret_fixup__ips(p, np, lo, hi, ips, n);
}

/* A PMU uprobe's sample: its payload, built from the sampled registers. */
static int pmu_payload(struct session *s, const struct evsel *e, struct sample *smp)
{
	size_t need = pmu_args__raw_size(e->pmu);

	if (!smp->regs_abi)
		return -ENOENT;
	if (need > s->pmu_raw_cap) {
		unsigned char *nb = realloc(s->pmu_raw, need);

		if (!nb)
			return -ENOMEM;
		s->pmu_raw = nb;
		s->pmu_raw_cap = need;
	}
	if (pmu_args__fill(e->pmu, smp->regs, e->regs_mask, (int32_t)smp->pid, s->pmu_raw))
		return -ENOENT;
	smp->raw = s->pmu_raw;
	smp->raw_size = (uint32_t)need;
	return 0;
}

static int deliver(const struct perf_event_header *hdr, void *ctx)
{
	struct session *s = ctx;
	struct sb_mmap2 m2;
	struct sb_comm cm;
	struct sb_task tk;
	struct sb_lost lo;
	struct sample smp;
	uint64_t id, idx;

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		if (sample__peek_id(hdr, &s->id_pos, &id) || !hashmap__get(s->ids, id, &idx) ||
		    sample__parse(hdr, s->evsels[idx - 1].sample_type, s->evsels[idx - 1].nr_regs, &smp)) {
			s->bad++;
			return 0;
		}
		/* An address only an event that asked for one has (without
		 * PERF_SAMPLE_IDENTIFIER every event samples one). */
		if (!(s->evsels[idx - 1].flags & SESSION_SAMPLE_ADDR))
			smp.addr = 0;
		if (s->evsels[idx - 1].pmu) {
			/* Without the target's cgroup, opened for every task:
			 * the target's samples only. */
			if (s->target && target__kind(s->target) != TARGET_ALL &&
			    !hashmap__get(s->tree, smp.pid, NULL)) {
				s->foreign++;
				return 0;
			}
			if (pmu_payload(s, &s->evsels[idx - 1], &smp)) {
				s->bad++;
				return 0;
			}
		}
		if (s->evsels[idx - 1].uret_return)
			uret_leave(s, &s->evsels[idx - 1], &smp);
		if (s->evsels[idx - 1].filter &&
		    !tp_filter__match(s->evsels[idx - 1].filter, smp.raw, smp.raw_size))
			/* what the kernel's filter would have dropped; the
			 * kernel's return probe still took the return */
			return s->evsels[idx - 1].uret_entry ? uret_enter(s, &s->evsels[idx - 1], &smp) : 0;
		s->samples++;
		session__learn_process(s, (pid_t)smp.pid);
		/* Recording: the file gets it, the tools' handlers do not. */
		if (s->obs) {
			session__each_consumer(s, c, recorded)
				c->recorded(s, &smp, s->evsels[idx - 1].fn, s->evsels[idx - 1].ctx,
					    c->ctx);
			s->obs->sample(s, &s->evsels[idx - 1], idx - 1, &smp);
		} else {
			s->evsels[idx - 1].fn(s, &smp, s->evsels[idx - 1].ctx);
		}
		/* After: the entry's own stack holds the real address. */
		return s->evsels[idx - 1].uret_entry ? uret_enter(s, &s->evsels[idx - 1], &smp) : 0;
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
		if (hdr->type == PERF_RECORD_MMAP2 ? sample__parse_mmap2(hdr, &m2) :
						     sample__parse_mmap(hdr, &m2)) {
			s->bad++;
			return 0;
		} else {
			struct map m = {
				.start = m2.addr, .end = m2.addr + m2.len, .pgoff = m2.pgoff,
				.prot = m2.prot, .flags = m2.flags, .maj = m2.maj, .min = m2.min,
				.ino = m2.ino, .path = (char *)m2.filename,
			};

			session__on_mmap(s, (pid_t)m2.pid, &m, record_time(s, hdr));
		}
		return 0;
	case PERF_RECORD_COMM:
		if (sample__parse_comm(hdr, &cm)) {
			s->bad++;
			return 0;
		}
		if (!(s->perf_caps & (1u << PERF_CAP_COMM_EXEC)) && cm.pid == cm.tid) {
			/* No exec flag (before 3.16): a process's first name
			 * change since its fork, or since the session knew
			 * its name from /proc, is taken for its exec. */
			cm.exec = !hashmap__get(s->named, cm.pid, NULL);
			if (hashmap__set(s->named, cm.pid, 1))
				return -ENOMEM;
		}
		session__on_comm(s, (pid_t)cm.pid, (pid_t)cm.tid, cm.comm, cm.exec, record_time(s, hdr));
		return 0;
	case PERF_RECORD_FORK:
		if (sample__parse_task(hdr, &tk)) {
			s->bad++;
			return 0;
		}
		if (tk.pid != tk.ppid)
			hashmap__delete(s->named, tk.pid, NULL);
		session__on_fork(s, &tk);
		return 0;
	case PERF_RECORD_EXIT:
		if (sample__parse_task(hdr, &tk)) {
			s->bad++;
			return 0;
		}
		session__on_exit(s, &tk);
		return 0;
	case PERF_RECORD_LOST:
		if (sample__parse_lost(hdr, &lo)) {
			s->bad++;
			return 0;
		}
		s->lost += lo.lost;
		/* A lost return would leave its slot pending, to be mended
		 * later with a stale address if a call whose entry was lost
		 * takes the slot: a cut stack is better than a wrong one. */
		uret_table__free(s->urets);
		s->urets = NULL;
		if (s->obs)
			s->obs->lost(s, record_time(s, hdr), lo.lost);
		session__each_consumer(s, c, lost)
			c->lost(s, lo.lost, c->ctx);
		return 0;
	default:
		return 0;
	}
}

/*
 * Read every ring's spool and deliver, in time order and in place, what is
 * safely in order: records up to the oldest among the spools' newest
 * records (a spool with nothing new does not hold the others back), as
 * perf's ordered_events does; everything when @final.  Each spool is in
 * time order itself, so merging their heads gives one timeline without
 * copying a record again: an 8 KiB stack sample is parsed and unwound
 * where the drain thread put it.  The merge finds the limit as it goes:
 * the first spool to run out had the oldest newest record, so the round
 * ends once the others' heads pass it.  Records not delivered stay in
 * their spool for the next round.
 */
static int read_round(struct session *s, bool final)
{
	const struct perf_event_header **head = s->round_heads;
	uint64_t *when = s->round_times, limit = UINT64_MAX;
	int err = 0;

	/* Every ring up to now, as when the rings were read directly. */
	drain__catch_up(s->drain);
	for (int c = 0; c < s->ncpus; c++) {
		head[c] = NULL;
		when[c] = 0;
		if (s->rings[c])
			drain__snapshot(s->drain, c);
	}
	for (;;) {
		int best = -1;

		for (int c = 0; c < s->ncpus; c++) {
			uint64_t last = when[c];

			while (s->rings[c] && !head[c]) {
				err = drain__peek(s->drain, c, &head[c]);
				if (err == -ENOENT) {
					/* Out of records: if it had some, its
					 * newest bounds what is safe. */
					if (!final && last && last < limit)
						limit = last;
					break;
				}
				if (err)
					goto out;
				when[c] = record_time(s, head[c]);
				if (when[c])
					break;
				/* An undecodable time: delivered at once
				 * rather than held. */
				deliver(head[c], s);
				drain__consume(s->drain, c);
				head[c] = NULL;
			}
			if (head[c] && (best < 0 || when[c] < when[best]))
				best = c;
		}
		if (best < 0 || when[best] > limit)
			break;
		deliver(head[best], s);
		drain__consume(s->drain, best);
		head[best] = NULL;
	}
	err = 0;
out:
	for (int c = 0; c < s->ncpus; c++)
		if (s->rings[c])
			drain__publish(s->drain, c);
	return err;
}

/*
 * The reader must outrun the kernel: a target traced at full speed fills
 * a ring in tens of milliseconds.  The drain thread (drain.h) empties the
 * rings as they fill, so the kernel does not wait for this thread's
 * parsing and unwinding; nice -10, taken before the drain thread starts
 * and so inherited by it, makes the scheduler prefer both whenever they
 * are runnable, which they are only while events wait; they block in poll
 * otherwise.  The target was forked before, at nice 0.  Best effort: a
 * reader already below -10, or not allowed, stays as it is.
 */
static void reader_priority(void)
{
	errno = 0;
	int now = getpriority(PRIO_PROCESS, 0);

	if (errno == 0 && now > READER_NICE)
		setpriority(PRIO_PROCESS, 0, READER_NICE);
}

static bool pmu_fd(const struct session *s, size_t fd_idx)
{
	for (size_t e = 0; e < s->nevsels; e++)
		if (s->evsels[e].pmu && fd_idx >= s->evsels[e].first_fd &&
		    fd_idx < s->evsels[e].first_fd + s->evsels[e].nfds)
			return true;
	return false;
}

/* What the spools may hold unread in all, before the kernel's rings are
 * left to fill (and the kernel to count what it drops): seconds of the
 * busiest DWARF stream a reader has fallen behind by, memory taken only
 * while it is behind. */
#define SPOOL_BYTES (1024ull << 20)
/* Of which populated before tracing starts: two rings' worth per spool,
 * up to this in all (drain__new()). */
#define SPOOL_RESERVE_BYTES (64ull << 20)

/* Each spool's bound: @cap, at least one ring (@ring_bytes).
 * FAULTLINE_SPOOL_CAP=BYTES sets it instead (at least 128 KiB: two
 * records of the largest), for tests/system/backpressure.sh, which needs
 * a reader that cannot keep up.  Not a user's knob. */
static uint64_t spool_cap(uint64_t cap, uint64_t ring_bytes)
{
	const char *env = getenv("FAULTLINE_SPOOL_CAP");
	char *end;
	unsigned long long v;

	if (env && *env) {
		errno = 0;
		v = strtoull(env, &end, 0);
		if (!errno && !*end)
			return v < (128u << 10) ? (128u << 10) : v;
	}
	return cap > ring_bytes ? cap : ring_bytes;
}

/* Whether the run's target is paused when the rings fill (tree-pause.h):
 * a command faultline owns unless --no-pause, a -p target with --pause;
 * never -a, a replay, nor a target held at its exit (ptrace'd: our
 * SIGSTOP would become a signal-delivery stop that the hold re-injects
 * when it next polls, possibly after our SIGCONT, leaving it stopped). */
static bool pause_wanted(const struct session *s)
{
	if (session__replaying(s) || s->held || !s->target)
		return false;
	switch (target__kind(s->target)) {
	case TARGET_CMD:
		return s->opts.pause != SESSION_PAUSE_OFF;
	case TARGET_PID:
		return s->opts.pause == SESSION_PAUSE_ON;
	default:
		return false;
	}
}

static bool pause_target(void *ctx)
{
	return tree_pause__stop(ctx) > 0;
}

static void resume_target(void *ctx)
{
	tree_pause__cont(ctx);
}

/* Back-pressure for the target, when pause_wanted().  0 / -ENOMEM. */
static int backpressure(struct session *s, uint64_t ring_bytes)
{
	/* A ring below 1 MiB (-m 1 ... 128) holds too few DWARF samples for
	 * "half full at a pass" to mean the drain was late: it is such a
	 * ring's normal state, and would pause at every pass.  Its spool's
	 * mark still holds. */
	struct drain_backpressure bp = {
		.ring_bytes = ring_bytes >= (1u << 20) ? ring_bytes : 0,
		.watch = true,
		.pause = pause_target, .resume = resume_target,
	};
	int err;

	if (!pause_wanted(s))
		return 0;
	err = tree_pause__new(target__pid(s->target), &s->pauser);
	if (err)
		return err;
	bp.ctx = s->pauser;
	drain__set_backpressure(s->drain, &bp);
	return 0;
}

/* Events that need the target's user space: user stacks or uprobes. */
static bool wants_user_space(const struct session *s)
{
	for (size_t i = 0; i < s->nevsels; i++)
		if ((s->evsels[i].flags & SESSION_USER_STACK) || s->evsels[i].kind == EVSEL_UPROBE)
			return true;
	return false;
}

int session__need_user_space(const struct session *s, struct errbuf *eb)
{
	if (s->target && target__kernel_thread(s->target))
		return errbuf__set(eb, -EINVAL, "pid %d is a kernel thread: no user space to trace",
				   (int)target__pid(s->target));
	return 0;
}

/* The drain stopped (the target resumed, if paused), its torn records and
 * pauses counted, and freed; once, harmless after. */
static void drain_end(struct session *s)
{
	/* NULL first: the fatal-signal path reads s->drain. */
	struct drain *d = s->drain;
	struct drain_stats st;

	if (!d)
		return;
	drain__stop(d);
	drain__stats(d, &st);
	s->bad += st.torn;
	s->pauses = st.pauses;
	s->paused_ns = st.paused_ns;
	s->drain = NULL;
	drain__free(d);
}

static int live_run(struct session *s, struct errbuf *eb)
{
	uint64_t ring_bytes = (uint64_t)s->opts.mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t n = (uint64_t)(s->ncpus > 0 ? s->ncpus : 1);
	uint64_t cap = spool_cap(SPOOL_BYTES / n, ring_bytes), reserve = SPOOL_RESERVE_BYTES / n;
	struct pollfd pfd;
	uint64_t deadline = 0;
	int err = 0;

	/* Accepted by its pid, traced to nothing: say so instead. */
	if (wants_user_space(s)) {
		err = session__need_user_space(s, eb);
		if (err)
			return err;
	}
	if (reserve > cap)
		reserve = cap;
	err = drain__new(s->rings, s->ncpus, cap, reserve < 2 * ring_bytes ? reserve : 2 * ring_bytes,
			 &s->drain);
	if (err)
		return errbuf__set(eb, err, "cannot set up the ring reader: %s", strerror(-err));
	err = backpressure(s, ring_bytes);
	if (err) {
		errbuf__set(eb, err, "cannot set up back-pressure: %s", strerror(-err));
		goto out;
	}
	drain__set_id_word(s->drain, s->id_pos.sample);
	err = drain__set_trim(s->drain, s->trims, s->ntrims);
	if (err) {
		errbuf__set(eb, err, "cannot set up the ring reader: %s", strerror(-err));
		goto out;
	}
	pfd.fd = drain__wait_fd(s->drain);
	pfd.events = POLLIN;
	reader_priority();
	if (!s->opts.no_realtime)
		drain__set_realtime(s->drain, DRAIN_RT_PRIO);
	err = drain__start(s->drain);
	if (err) {
		errbuf__set(eb, err, "cannot start the ring reader thread: %s%s", strerror(-err),
			    newsys__thread_refusal(-err));
		goto out;
	}
	s->start_mono_ns = clock__ns(CLOCK_MONOTONIC);
	s->start_real_ns = clock__ns(CLOCK_REALTIME);
	if (s->obs) {
		err = s->obs->start(s, eb);
		if (err)
			goto out;
	}
	for (size_t i = 0; i < s->nfds; i++) {
		/* -c: events enable themselves at its exec, but for a PMU
		 * uprobe, opened for every task (add_evsel). */
		if (s->fds[i] < 0 || (target__kind(s->target) == TARGET_CMD && !s->opts.system_wide &&
				      !pmu_fd(s, i)))
			continue;
		err = perf_event__enable(s->fds[i]);
		if (err) {
			errbuf__set(eb, err, "cannot enable events: %s", strerror(-err));
			goto out;
		}
	}
	err = target__release(s->target, eb);
	if (err)
		goto out;
	if (s->opts.duration > 0)
		deadline = s->start_mono_ns + (uint64_t)(s->opts.duration * 1e9);
	session__memstat_tick(s, true);
	if (s->obs && s->obs->tracing && (err = s->obs->tracing(s, eb)))
		goto out;
	s->running = true;
	session__consumers_ready(s);

	while (!s->stop) {
		int timeout = 100;

		if (stopsig__caught()) {
			s->stop = SESSION_STOP_SIGNAL;
			break;
		}
		if (deadline) {
			uint64_t now = clock__ns(CLOCK_MONOTONIC);

			if (now >= deadline) {
				s->stop = SESSION_STOP_DURATION;
				break;
			}
			if ((deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR) {
			err = errbuf__set(eb, -errno, "poll failed: %s", strerror(errno));
			goto out;
		}
		drain__ack(s->drain);
		err = read_round(s, false);
		if (err) {
			errbuf__set(eb, err, "reading events failed: %s", strerror(-err));
			goto out;
		}
		session__memstat_tick(s, false);
		if (s->obs && s->obs->round)
			s->obs->round(s);
		session__consumers_round(s);
		if (target__exited(s->target))
			s->stop = SESSION_STOP_TARGET_EXIT;
	}
	/* Ended by itself (the command's exit first, the duration): a signal
	 * from now on does not make the exit status 128 + N. */
	if (s->stop != SESSION_STOP_SIGNAL)
		stopsig__settle();
	s->running = false;	/* nothing is added once the events go off */
	for (size_t i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			perf_event__disable(s->fds[i]);
	/* The drain thread gone, what is left in the rings is this
	 * thread's to move, without the bound: the rings hold no more. */
	drain__stop(s->drain);
	err = drain__flush(s->drain);
	if (!err)
		err = read_round(s, true);
	if (err)
		errbuf__set(eb, err, "reading events failed: %s", strerror(-err));
	else
		session__memstat_tick(s, true);	/* the last: after every event */
	for (size_t i = 0; s->format_lost && i < s->nfds; i++) {
		uint64_t v[2];

		if (s->fds[i] >= 0 && read(s->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
			s->lost_counted += v[1];
	}
	/* Its totals before the observer's: a recording's END holds them. */
	drain_end(s);
	if (s->obs && !err)
		err = s->obs->finish(s, eb);
out:
	s->running = false;
	drain_end(s);
	if (s->pauser) {
		struct tree_pause *p = s->pauser;

		s->pauser = NULL;
		tree_pause__free(p);
	}
	return err;
}

static int live_cmd_status(const struct session *s)
{
	return target__status(s->target);
}

static uint64_t live_now(const struct session *s)
{
	(void)s;
	return clock__ns(CLOCK_MONOTONIC);
}

static time_t live_wall(const struct session *s)
{
	(void)s;
	return time(NULL);
}

/* Which evsel produced a sample (NULL if none). */
static const struct evsel *evsel_of(const struct session *s, const struct sample *smp)
{
	uint64_t idx;

	return hashmap__get(s->ids, smp->id, &idx) ? &s->evsels[idx - 1] : NULL;
}

static int live_kernel_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	uint64_t ips[MAX_USER_FRAMES];
	uint32_t n;

	n = sample__context_ips(smp, (uint64_t)PERF_CONTEXT_KERNEL, ips, MAX_USER_FRAMES);
	return stackdb__intern(s->stacks, 0, ips, n, stack_id);
}

static int live_user_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	const struct evsel *ev = evsel_of(s, smp);
	uint64_t ips[MAX_USER_FRAMES];
	uint32_t n = 0;
	int err;

	if (s->unwinder && ev && (ev->sample_type & PERF_SAMPLE_STACK_USER)) {
		struct unwind_patch patches[MAX_URET_PATCHES];
		uint64_t regs[64];
		struct unwind_input in;
		enum unwind_stop stop = UNWIND_ERROR;

		sample_input(ev, smp, &in);
		uret_mend_input(s, (pid_t)smp->tid, &in, patches, MAX_URET_PATCHES, regs);

		err = unwinder__unwind(s->unwinder, &in, ips, MAX_USER_FRAMES, &n, &stop);
		if (err == -ENOMEM)
			return err;
		s->unwind_stops[err ? UNWIND_ERROR : stop]++;
		if (err)
			n = 0;
	} else {
		n = sample__user_ips(smp, ips, MAX_USER_FRAMES);
		if (ev && ev->entry_fix && n >= 1 && smp->stack && smp->stack_size >= 8) {
			uint64_t ret;

			uint32_t keep = n < MAX_USER_FRAMES ? n - 1 : n - 2;

			memcpy(&ret, smp->stack, 8);
			memmove(ips + 2, ips + 1, keep * sizeof(*ips));
			ips[1] = ret;
			n = keep + 2;
		}
		uret_mend_ips(s, smp, ips, n);
	}
	mark_return_probed(s, ev, smp, ips, &n);
	/* In the image it was taken in: an exec later keeps that for it. */
	return stackdb__intern(s->stacks, addrspaces__pin_image(s->as, (pid_t)smp->pid), ips, n,
			       stack_id);
}

static int live_stack(struct session *s, const struct sample *smp, bool user, uint32_t *stack_id)
{
	return user ? live_user_stack(s, smp, stack_id) : live_kernel_stack(s, smp, stack_id);
}

static bool live_dwarf(const struct session *s)
{
	return s->unwinder != NULL;
}

static pid_t live_target_pid(const struct session *s)
{
	return target__pid(s->target);
}

static bool live_is_cmd(const struct session *s)
{
	return target__kind(s->target) == TARGET_CMD;
}

/* The live source: perf rings, read by live_run. */
const struct session_source live__source = {
	.name = "live",
	.learns_processes = true,
	.add_tracepoint = live__add_tracepoint,
	.add_uprobe = live__add_uprobe,
	.add_software = live__add_software,
	.add_kprobe = live__add_kprobe,
	.add_memstat = live__add_memstat,
	.uprobe_locate = live__uprobe_locate,
	.set_filter = live__set_filter,
	.run = live_run,
	.stack = live_stack,
	.now = live_now,
	.wall = live_wall,
	.target_pid = live_target_pid,
	.is_cmd = live_is_cmd,
	.cmd_status = live_cmd_status,
	.dwarf = live_dwarf,
};

bool session__pause_declined(const struct session *s)
{
	if (session__replaying(s) || s->held || !s->target)
		return false;
	return (target__kind(s->target) == TARGET_CMD || target__kind(s->target) == TARGET_PID) &&
	       !pause_wanted(s);
}

