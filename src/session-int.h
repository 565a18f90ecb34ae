/*
 * session-int: the session's insides, shared by its three files: live
 * tracing (session.c), recording what it delivers (session-record.c) and
 * replaying a recording through the same API (session-replay.c).  Nothing
 * else includes this.
 */
#ifndef FAULTLINE_SESSION_INT_H
#define FAULTLINE_SESSION_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "sample.h"
#include "session.h"
#include "unwind.h"

struct map;

struct tp_filter;
struct pmu_args;
struct recorder;
struct replay;

enum evsel_kind { EVSEL_TRACEPOINT, EVSEL_UPROBE, EVSEL_KPROBE, EVSEL_SOFTWARE };

/* What a duplicate event may lack and its twin have: stacks, address. */
#define SESSION_RICH (SESSION_USER_STACK | SESSION_KERNEL_STACK | SESSION_SAMPLE_ADDR)

struct evsel {
	char name[128];
	uint64_t sample_type;
	uint64_t regs_mask;		/* sample_regs_user */
	unsigned int nr_regs;		/* popcount of it */
	bool entry_fix;			/* fp at a function entry: caller at *sp */
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
	struct hashmap *execs;		/* pid -> exec count */
	/* -p/-c: the target's processes (pid -> 1): a PMU uprobe is opened
	 * on every CPU for every task (it cannot be inherited), and keeps
	 * their samples only */
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
	int *ring_owner;	/* fd owning each CPU's ring */

	struct evsel *evsels;
	size_t nevsels;

	size_t stale;
	bool use_clockid;
	uint64_t start_mono_ns, start_real_ns;
	enum session_stop stop;
	uint64_t lost, samples, bad;
	struct session_task_hooks task;
	bool format_lost;		/* events count their lost samples */
	int pmu_retprobe_bit;		/* uprobe PMU: -1 until read */
	pid_t pmu_min_tid;		/* its kernel filter: common_pid >= this; 0: none */
	unsigned char *pmu_raw;		/* payload built for a PMU uprobe's sample */
	size_t pmu_raw_cap;
	uint64_t lost_counted;		/* their sum, read at the end */

	int refs;			/* session__ref(); freed at 0 */
	struct recorder *rec;		/* record: where events go (session-record.c) */
	struct replay *replay;		/* replay: where they come from (session-replay.c) */
	/* replay: what the live session knew from its target and kernel */
	uint64_t now_ns;		/* the time of the last record read */
	pid_t rec_target_pid;
	bool rec_is_cmd;
	int rec_cmd_status;
	uint32_t cur_ustack, cur_kstack;	/* the sample being delivered: file ids */
};

/* session-record.c: called by session.c while recording. */
int recorder__start(struct session *s, struct errbuf *eb);
void recorder__sample(struct session *s, const struct evsel *e, size_t idx,
		      const struct sample *smp);
/* @pid was learned from /proc: its comm and all its maps as known now. */
void recorder__proc(struct session *s, pid_t pid);
void recorder__mmap(struct session *s, pid_t pid, const struct map *m, uint64_t time);
void recorder__comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec,
		    uint64_t time);
void recorder__task(struct session *s, const struct sb_task *tk, bool fork);
void recorder__lost(struct session *s, uint64_t time, uint64_t count);
int recorder__finish(struct session *s, struct errbuf *eb);
void recorder__free(struct recorder *r);

/* session-replay.c */
int replay__run(struct session *s, const struct session_hooks *hooks, struct errbuf *eb);
void replay__free(struct replay *r);
int replay__add(struct session *s, int kind, const char *name, uint64_t config,
		unsigned int flags, session_sample_fn fn, void *ctx, struct tp_event **ev,
		struct errbuf *eb);
int replay__uprobe_locate(struct session *s, const char *probe, char *path, size_t n,
			  uint64_t *off, struct errbuf *eb);
int replay__set_filter(struct session *s, struct evsel *e, const char *filter,
		       struct errbuf *eb);
/* The stackdb id of recorded stack @file_id (0: none: the empty stack). */
int replay__stack(struct session *s, uint32_t file_id, uint32_t *stack_id);

/* session.c: Ctrl-C/SIGTERM stop a run (a replay's too), and fatal
 * signals tear down what the session holds. */
void session__catch_signals(struct session *s);
bool session__stop_requested(void);

/* session.c, for the other two: what a side-band record does, live or
 * replayed (and, while recording, written to the file). */
void session__learn_process(struct session *s, pid_t pid);
void session__set_comm(struct session *s, pid_t pid, const char *comm);
void session__on_mmap(struct session *s, pid_t pid, const struct map *m, uint64_t time);
void session__on_comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec,
		      uint64_t time);
void session__on_fork(struct session *s, const struct sb_task *tk);
void session__on_exit(struct session *s, const struct sb_task *tk);

#endif
