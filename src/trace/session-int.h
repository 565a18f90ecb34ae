/*
 * session-int: the session's insides, shared by its files.  A session
 * takes its events from a source (struct session_source): the live rings
 * (live.c, its events opened by live-events.c) or a recording
 * (replay.c), chosen when it is made; what it does with them (side-band
 * bookkeeping, delivery to the tools' handlers and consumers, stacks) is
 * one path for both.  A recording is an observer of a live session
 * (struct session_observer, recorder.c): it sees every sample and
 * side-band record, and while it watches, the tools' handlers do not
 * run, nor the consumers that did not ask to.  Signals are
 * session-signal.c's.  Nothing outside these files (session*.c, live*.c,
 * replay.c, recorder.c) includes this.
 */
#ifndef FAULTLINE_SESSION_INT_H
#define FAULTLINE_SESSION_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "trace/sample.h"
#include "trace/session.h"
#include "stack/unwind.h"

struct map;
struct uret_table;
struct tree_pause;

struct tp_filter;
struct pmu_args;
struct recorder;
struct replay;

enum evsel_kind { EVSEL_TRACEPOINT, EVSEL_UPROBE, EVSEL_KPROBE, EVSEL_SOFTWARE };

/* What a duplicate event may lack and its twin have: stacks, address. */
#define SESSION_RICH (SESSION_USER_STACK | SESSION_KERNEL_STACK | SESSION_SAMPLE_ADDR | \
		      SESSION_RETURN_PROBED)

struct evsel {
	char name[128];
	uint64_t sample_type;
	uint64_t regs_mask;		/* sample_regs_user */
	unsigned int nr_regs;		/* popcount of it */
	bool entry_fix;			/* fp at a function entry: caller at *sp */
	/* A uprobe at a function with a return probe: its entry (with %sp
	 * and the word there) pushes a pending return, its return pops it. */
	bool uret_entry, uret_return;
	const struct tp_event *tev;
	size_t first_fd, nfds;		/* its fds: s->fds[first_fd...] */
	session_sample_fn fn;
	void *ctx;
	/* What `faultline record` writes of it, and replay matches by. */
	unsigned int flags;		/* SESSION_* it was added with */
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;		/* software: PERF_COUNT_SW_* */
	enum evsel_kind kind;
	char probe_path[PATH_MAX];	/* uprobe: the file probed; kprobe: the function */
	uint64_t probe_off;		/* uprobe: its file offset */
	/* record: another event of this name has the perf event (fds) */
	bool alias;
	/* replay, or a PMU uprobe: the filter applied here, not by the kernel */
	uint32_t rec_id;
	struct tp_filter *filter;
	/* a uprobe through the perf PMU: its arguments from the sampled
	 * registers, the payload's format (both owned) */
	struct pmu_args *pmu;
	char *pmu_format;
};

struct session {
	struct session_opts opts;
	struct features *features;
	struct target *target;
	struct probe_group *probes;
	struct unwinder *unwinder;	/* dwarf mode only */
	struct uret_table *urets;	/* pending uretprobe returns; NULL until one */
	uint64_t unwind_stops[UNWIND__COUNT];
	struct tp_catalog *catalog;
	struct addrspaces *as;
	struct stackdb *stacks;
	struct symbolizer *sym;
	/* read_round()'s merge: each ring's next record and its time. */
	const struct perf_event_header **round_heads;
	uint64_t *round_times;
	struct hashmap *comms;		/* pid -> char * */
	struct hashmap *ids;		/* kernel event id -> evsel index + 1 */
	/* Events whose samples end in a user-stack copy, for the drain to
	 * spool only what the kernel filled of it (drain__set_trim()). */
	struct drain_trim *trims;
	size_t ntrims, captrims;
	struct hashmap *execs;		/* pid -> exec count */
	/* -p/-c: the target's processes (pid -> 1): a PMU uprobe is opened
	 * on every CPU (it cannot be inherited), for the target's cgroup or
	 * else every task, and keeps their samples only */
	struct hashmap *tree;
	char tracing_dir[PATH_MAX];
	char uprobe_events_path[PATH_MAX + 32];
	char kprobe_events_path[PATH_MAX + 32];

	int *cpus;
	int ncpus;
	pid_t *tasks;		/* -p: threads; -c: the child; -a: {-1} */
	size_t ntasks;

	int *fds;		/* every perf fd, side-band first */
	size_t nfds, capfds;
	struct ring **rings;	/* one per CPU */
	struct drain *drain;	/* live_run's: empties the rings into spools */
	struct tree_pause *pauser;	/* live_run's back-pressure, or NULL */
	uint64_t pauses, paused_ns;	/* its count, once the run is over */
	bool held;			/* session__hold_exit(): never paused */
	bool running;			/* live_run: events enabled, target released */
	/* session__grow_begin() .. _end(): events opened on these tasks */
	bool growing;
	pid_t *grow_tasks_saved;	/* s->tasks before */
	size_t grow_ntasks_saved;
	size_t grow_first_fd;		/* the first fd opened since */
	struct tree_pause *grow_pause;	/* the tree found (and stopped for a command) */
	int *ring_owner;	/* fd owning each CPU's ring */

	struct evsel *evsels;
	size_t nevsels;

	size_t stale;
	bool use_clockid;
	/* What the kernel's perf_event_attr takes (perf_caps__probe()), and
	 * so the id part every event's sample_type shares (SB_SAMPLE_TYPE,
	 * or without PERF_SAMPLE_IDENTIFIER its ID at one place) and where
	 * the id is in a record. */
	unsigned int perf_caps;
	uint64_t id_type;
	struct sample_id_pos id_pos;
	/* Without comm_exec: processes whose name the session knows since
	 * their exec or its start (an exec is the first COMM after a fork). */
	struct hashmap *named;
	uint64_t start_mono_ns, start_real_ns;
	enum session_stop stop;
	uint64_t lost, samples, bad;
	uint64_t foreign;		/* PMU samples of tasks not the target's, dropped */
	/* session__add_consumer()'s, in order; session__run()'s hooks */
	struct session_consumer *consumers;
	size_t nconsumers, capconsumers;
	bool format_lost;		/* events count their lost samples */
	int pmu_retprobe_bit;		/* uprobe PMU: -1 until read */
	pid_t pmu_min_tid;		/* its kernel filter: common_pid >= this; 0: none */
	struct perf_cgroup *pmu_cg;	/* -p/-c: the target's cgroup, its PMU events' */
	bool pmu_cg_tried;
	bool pmu_tmpfs_ok;		/* a PMU uprobe on a tmpfs file got its breakpoint */
	int open_cgroup_fd;		/* open_one(): open on this cgroup; -1: no */
	unsigned char *pmu_raw;		/* payload built for a PMU uprobe's sample */
	size_t pmu_raw_cap;
	uint64_t lost_counted;		/* their sum, read at the end */

	int refs;			/* session__ref(); freed at 0 */
	const struct session_source *src;	/* where events come from */
	const struct session_observer *obs;	/* what watches them, or NULL */
	struct recorder *rec;		/* the observer's state (recorder.c) */
	struct replay *replay;		/* a recording source's state (replay.c) */
	/* replay: what the live session knew from its target and kernel */
	uint64_t now_ns;		/* the time of the last record read */
	pid_t rec_target_pid;
	bool rec_is_cmd;
	int rec_cmd_status;
	uint32_t cur_ustack, cur_kstack;	/* the sample being delivered: file ids */
	/* session__add_memstat(): the listener, and live, the next sample's
	 * time and the target's memory.pressure (found at the first) */
	session_memstat_fn memstat_fn;
	void *memstat_ctx;
	bool memstat_on, memstat_cg_known;
	uint64_t memstat_next_ns;
	char memstat_cg[PATH_MAX + 32];
};

/*
 * Where a session's events come from.  Each of session.h's calls of the
 * same name lands here, so the session itself never asks which source
 * it has.
 */
struct probe_spec;
struct session_source {
	const char *name;		/* "live", "recording" */
	/* Whether side-band state must be learned from /proc (a recording
	 * carries its own). */
	bool learns_processes;
	int (*add_tracepoint)(struct session *s, const char *system, const char *event,
			      unsigned int flags, session_sample_fn fn, void *ctx,
			      struct tp_event **ev, struct errbuf *eb);
	int (*add_uprobe)(struct session *s, const struct probe_spec *spec, unsigned int flags,
			  session_sample_fn fn, void *ctx, struct tp_event **ev, struct errbuf *eb);
	int (*add_software)(struct session *s, const char *name, uint64_t config,
			    unsigned int flags, session_sample_fn fn, void *ctx, struct errbuf *eb);
	int (*add_kprobe)(struct session *s, const char *event, const char *func, bool retprobe,
			  const char *fetchargs, unsigned int flags, session_sample_fn fn,
			  void *ctx, struct tp_event **ev, struct errbuf *eb);
	int (*add_memstat)(struct session *s, struct errbuf *eb);
	int (*uprobe_locate)(struct session *s, const struct probe_spec *spec, unsigned int flags,
			     char *path, size_t n, uint64_t *off, struct errbuf *eb);
	int (*set_filter)(struct session *s, struct evsel *e, const char *filter,
			  struct errbuf *eb);
	/* Calls session__consumers_ready() and _round() (session.c). */
	int (*run)(struct session *s, struct errbuf *eb);
	/* The stackdb id of the stack of @smp, the sample being delivered. */
	int (*stack)(struct session *s, const struct sample *smp, bool user, uint32_t *stack_id);
	uint64_t (*now)(const struct session *s);
	time_t (*wall)(const struct session *s);
	pid_t (*target_pid)(const struct session *s);
	bool (*is_cmd)(const struct session *s);
	int (*cmd_status)(const struct session *s);
	bool (*dwarf)(const struct session *s);
	const char *(*meta)(const struct session *s, const char *key);	/* may be NULL */
	void (*free)(struct session *s);	/* its own state; may be NULL */
};

/*
 * What watches a live session's events: the recorder.  Every hook is
 * called from the session's one event path; sample() replaces the
 * tools' handlers.
 */
struct session_observer {
	int (*start)(struct session *s, struct errbuf *eb);	/* before the target runs */
	void (*sample)(struct session *s, const struct evsel *e, size_t idx,
		       const struct sample *smp);
	/* @pid was learned from /proc: its comm and all its maps as known now. */
	void (*proc)(struct session *s, pid_t pid);
	void (*mmap)(struct session *s, pid_t pid, const struct map *m, uint64_t time);
	void (*comm)(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec,
		     uint64_t time);
	void (*task)(struct session *s, const struct sb_task *tk, bool fork);
	void (*lost)(struct session *s, uint64_t time, uint64_t count);
	/* Events were added while the run goes on (session__grow_end(),
	 * before it enables them): the ones it does not know yet. */
	int (*grow)(struct session *s, struct errbuf *eb);
	/* A memory-indicator sample (session__add_memstat()). */
	void (*memstat)(struct session *s, const struct mem_sample *ms);
	/* Every event enabled and the target released: tracing has begun. */
	int (*tracing)(struct session *s, struct errbuf *eb);
	/* After each round's events (at least every 100 ms). */
	void (*round)(struct session *s);
	int (*finish)(struct session *s, struct errbuf *eb);	/* after the last event */
	void (*free)(struct session *s);
};

/* session.c: filter @e's samples here, in user space, with @filter (a
 * recording's events, a PMU uprobe's built payloads). */
int session__filter_here(struct session *s, struct evsel *e, const char *filter,
			 struct errbuf *eb);

/* recorder.c: write what the recording holds in memory, as it is, from a
 * fatal signal's handler (async-signal-safe: one write(2)). */
void session__record_flush_in_signal(struct session *s);

/* session-signal.c: Ctrl-C/SIGTERM stop a run (a replay's too), and fatal
 * signals tear down what the session holds; _forget() first in the
 * teardown (the handler no longer touches it), _restore() once the
 * target is gone (the previous handlers back, SIGCHLD's too). */
void session__catch_signals(struct session *s);
bool session__stop_requested(void);
void session__signals_forget(void);
void session__signals_restore(void);

/* session.c, for the other two: what a side-band record does, live or
 * replayed (and, while recording, written to the file). */
void session__learn_process(struct session *s, pid_t pid);
void session__set_comm(struct session *s, pid_t pid, const char *comm);
void session__on_mmap(struct session *s, pid_t pid, const struct map *m, uint64_t time);
void session__on_comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec,
		      uint64_t time);
void session__on_fork(struct session *s, const struct sb_task *tk);
void session__on_exit(struct session *s, const struct sb_task *tk);
/* session.c: a memory-indicator sample when one is due (@force: now). */
void session__memstat_tick(struct session *s, bool force);
/*
 * session.c: each consumer @c (const struct session_consumer *) that has
 * @member and runs now (not while recording, unless it asked to), in the
 * order they were added; a consumer added by one of them is called too.
 *	session__each_consumer(s, c, exec)
 *		c->exec(s, pid, time, c->ctx);
 */
#define session__each_consumer(s, c, member)					\
	for (size_t c##_i = 0; c##_i < (s)->nconsumers; c##_i++)			\
		for (const struct session_consumer *c = &(s)->consumers[c##_i];	\
		     c && c->member && (!(s)->obs || c->while_recording); c = NULL)
/* session.c, for the sources' run: the consumers' ready or round, then
 * session__run()'s hooks'; whether any has a round. */
void session__consumers_ready(struct session *s);
void session__consumers_round(struct session *s);
bool session__consumers_want_round(const struct session *s);
/* session.c: whether one of @n ips lies in [@lo, @hi). */
bool session__ips_in(const uint64_t *ips, uint32_t n, uint64_t lo, uint64_t hi);

/* live.c: the live source; a live session's start (session__new()):
 * ring pages when -m is not given, the C library indexed before the
 * target runs, every process's name and maps (-a); a thread's pending
 * uretprobe returns begin (@fork) or end with it. */
extern const struct session_source live__source;
unsigned int live__default_pages(const struct session *s);
void live__prewarm(struct session *s);
void live__known_processes(struct session *s);
void live__uret_task(struct session *s, const struct sb_task *tk, bool fork);

/* live-events.c: the tasks events are opened on (-p: every thread; -c:
 * the command; -a: every task), the side-band events, and the live
 * source's event calls (struct session_source's of the same names). */
int live__load_tasks(struct session *s, struct errbuf *eb);
int live__open_side_band(struct session *s, struct errbuf *eb);
int live__add_tracepoint(struct session *s, const char *system, const char *event,
			 unsigned int flags, session_sample_fn fn, void *ctx,
			 struct tp_event **ev, struct errbuf *eb);
int live__add_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
		     session_sample_fn fn, void *ctx, struct tp_event **ev, struct errbuf *eb);
int live__add_software(struct session *s, const char *name, uint64_t config,
		       unsigned int flags, session_sample_fn fn, void *ctx, struct errbuf *eb);
int live__add_kprobe(struct session *s, const char *event, const char *func, bool retprobe,
		     const char *fetchargs, unsigned int flags, session_sample_fn fn, void *ctx,
		     struct tp_event **ev, struct errbuf *eb);
int live__add_memstat(struct session *s, struct errbuf *eb);
int live__uprobe_locate(struct session *s, const struct probe_spec *spec, unsigned int flags,
			char *path, size_t n, uint64_t *off, struct errbuf *eb);
int live__set_filter(struct session *s, struct evsel *e, const char *filter,
		     struct errbuf *eb);

#endif
