/*
 * session: one tracing run.  It owns everything that touches the kernel
 * (the probe group, perf fds, ring mmaps, the held child) and gives all of
 * it back in one place, session__free(), whatever path led there: normal
 * end, Ctrl-C/SIGTERM/SIGHUP/SIGPIPE, a failed setup step, or the traced
 * command dying.  A fatal signal (SIGSEGV...) still closes the perf fds and
 * removes the probes with async-signal-safe writes before the process dies;
 * only SIGKILL leaves probes behind, for `faultline cleanup`.
 *
 * Life cycle: session__new() (tracefs located or mounted, target set up and
 * held, side-band events and rings open), session__add_*() for each event a
 * tool wants, session__run() (enable, release the command, read until the
 * stop condition, drain), then the tool reports from its aggregates with
 * the session's address spaces, stacks and symbolizer, then
 * session__free().
 */
#ifndef FAULTLINE_SESSION_H
#define FAULTLINE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "lib/errbuf.h"
#include "trace/sample.h"

struct session;
struct tp_event;
struct probe_spec;
struct features;
struct addrspaces;
struct stackdb;
struct symbolizer;
struct map;

enum callgraph {
	CALLGRAPH_DWARF,	/* registers + stack copy, unwound with CFI (default) */
	CALLGRAPH_FP,		/* the kernel's frame-pointer walk */
};

enum session_pause {
	SESSION_PAUSE_DEFAULT,		/* a command's tree: yes; -p: no */
	SESSION_PAUSE_ON,		/* --pause: -p too */
	SESSION_PAUSE_OFF,		/* --no-pause */
};

struct session_opts {
	pid_t pid;			/* -p PID; 0 = none */
	const char *cmd;		/* -c "CMD ARGS"; NULL = none.  With cmd_argv,
					 * only how messages name the command */
	int cmd_argc;			/* "-- CMD ARGS...": run as given */
	char *const *cmd_argv;		/* NULL = none (then cmd is split as a shell would) */
	unsigned int mmap_pages;	/* -m: data pages per ring, power of two; 0 = default */
	double duration;		/* seconds; 0 = until stopped */
	enum callgraph callgraph;	/* --call-graph */
	unsigned int stack_size;	/* dwarf: bytes of stack copied; 0 = default */
	const char *unwinder;		/* "libdw" (default) or "libunwind" */
	/* Open events on every CPU for every task even with a pid or a
	 * command: the target still decides when the session ends, and
	 * the tool filters by pid.  For kernel events whose other half
	 * (a kfree in RCU or softirq context) runs in any task. */
	bool system_wide;
	/* A system-wide session reads every running process's name and maps
	 * at its start; with no_maps only the names: no event's stacks or
	 * addresses are user addresses to place (cache, reclaim, oom...). */
	bool no_maps;
	/* --no-realtime: the drain thread (drain.h) stays in the normal
	 * scheduling class; by default it asks for SCHED_FIFO 1. */
	bool no_realtime;
	/* Back-pressure (trace/tree-pause.h): when the rings fill faster
	 * than they drain, the target's processes are stopped until the
	 * reader catches up.  By default for a command (-c, --); --pause
	 * asks it for -p too; --no-pause never; -a is never paused. */
	enum session_pause pause;
};

/* Default bytes of user stack copied per DWARF sample: see faultline(1)
 * ("Stack copy size") for the measurement behind it. */
#define SESSION_DEFAULT_STACK_SIZE 32768
/* The kernel's limit for sample_stack_user (u16, 8-byte multiple). */
#define SESSION_MAX_STACK_SIZE 65528

enum session_stop {
	SESSION_STOP_NONE,
	SESSION_STOP_SIGNAL,
	SESSION_STOP_DURATION,
	SESSION_STOP_TARGET_EXIT,
	SESSION_STOP_TOOL,		/* session__stop(): the tool had what it wanted */
};

/* Flags for session__add_*(). */
#define SESSION_USER_STACK	(1u << 0)	/* record the user stack */
#define SESSION_FUNC_ENTRY	(1u << 1)	/* the event fires at a function's first instruction */
#define SESSION_KERNEL_STACK	(1u << 2)	/* record the kernel callchain */
/* An entry uprobe that reads only argument registers and %sp: it may
 * move past leading flag-only instructions to one the kernel emulates
 * rather than single-steps (uprobe-place.h). */
#define SESSION_PLACE_CHEAP	(1u << 3)
#define SESSION_SAMPLE_ADDR	(1u << 4)	/* record the sample's data address (smp->addr) */
/* An entry uprobe whose function has a return probe too: its samples
 * carry %sp and the return address there, so that stacks sampled inside
 * the call unwind past the return probe's trampoline (stack/uret-fixup.h). */
#define SESSION_RETURN_PROBED	(1u << 5)
/* Samples carry the user stack's first SESSION_STACK_WORDS_SIZE bytes
 * and %sp whatever the call graph, so that their stacks show a call with
 * a return probe in flight (session__stack_return_probed()). */
#define SESSION_STACK_WORDS	(1u << 6)
#define SESSION_STACK_WORDS_SIZE 2048

typedef void (*session_sample_fn)(struct session *s, const struct sample *smp, void *ctx);

/*
 * Set up a session.  With neither pid nor cmd, traces every process (-a).
 * Errors (-errno, detail in eb): no privilege, tracefs missing and not
 * mountable, no such pid, a command line that does not parse.
 */
int session__new(const struct session_opts *o, struct session **out, struct errbuf *eb);
/* Release everything (see above), once every reference is dropped.  NULL
 * is fine. */
void session__free(struct session *s);
/* One more reference (faultline record lends its session to each tool's
 * setup, which frees it as usual); returns @s. */
struct session *session__ref(struct session *s);

/* Number of stale faultline probe groups seen at start (left by a faultline
 * killed with SIGKILL); `faultline cleanup` removes them. */
size_t session__stale_groups(const struct session *s);
/* A live session's perf_caps__probe() (trace/perf-event.h): the bits of
 * perf_event_attr its events were opened with; 0 for a replay. */
unsigned int session__perf_caps(const struct session *s);

const struct features *session__features(const struct session *s);

/*
 * Samples of the memory-pressure indicators (procstat.h: mem_sample__read()
 * of /proc and, when the target has a cgroup v2 group, its
 * memory.pressure), one a second from the run's start, one at its end:
 * live, @fn is called with each; while recording they are written to the
 * recording as the event "faultline:memstat" (trace/memstat.h); from a
 * recording, @fn gets the recorded ones (-ENOENT, said in @eb, when it
 * holds none: recorded before they were).  One listener.
 */
struct mem_sample;
typedef void (*session_memstat_fn)(struct session *s, const struct mem_sample *ms, void *ctx);
int session__add_memstat(struct session *s, session_memstat_fn fn, void *ctx, struct errbuf *eb);

/* Trace tracepoint <system>:<event>; fn is called for each of its samples,
 * in time order.  *ev (may be NULL) gets the parsed format for field reads. */
int session__add_tracepoint(struct session *s, const char *system, const char *event,
			    unsigned int flags, session_sample_fn fn, void *ctx,
			    struct tp_event **ev, struct errbuf *eb);
/* Create a uprobe or uretprobe from a probe spec (library resolved as the
 * target maps it, first symbol candidate that exists) and trace it. */
int session__add_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
			session_sample_fn fn, void *ctx, struct tp_event **ev,
			struct errbuf *eb);

/* Trace software event @config (PERF_COUNT_SW_*), every occurrence, named
 * @name in messages; with SESSION_SAMPLE_ADDR a fault event's sample
 * carries the faulting address in smp->addr. */
int session__add_software(struct session *s, const char *name, uint64_t config,
			  unsigned int flags, session_sample_fn fn, void *ctx, struct errbuf *eb);
/* Create kprobe (or kretprobe) @event on kernel function @func with tracefs
 * @fetchargs (may be NULL) in the session's probe group, and trace it
 * (kernels with kprobe_events only; removed with the group). */
int session__add_kprobe(struct session *s, const char *event, const char *func, bool retprobe,
			const char *fetchargs, unsigned int flags, session_sample_fn fn, void *ctx,
			struct tp_event **ev, struct errbuf *eb);

/**
 * session__uprobe_locate() - where a spec's probe would go
 * @flags: SESSION_PLACE_CHEAP to apply the cheap placement
 * @path:  receives the file probed (as the target maps it)
 * @off:   receives the file offset
 *
 * Checks the spec's "expect" bytes there.  Lets a tool skip a probe that
 * lands where another already is (aligned_alloc and memalign are one
 * function in glibc).  Errors: -ENOENT (library or symbol missing),
 * -ENOEXEC (the bytes differ from "expect": another build), detail in eb.
 */
int session__uprobe_locate(struct session *s, const struct probe_spec *spec, unsigned int flags,
			   char *path, size_t n, uint64_t *off, struct errbuf *eb);

/* The session's uprobes are tracefs's, live: their fetchargs read the
 * target's memory and their filters run in the kernel (false on the
 * uprobe PMU rung, whose filters run here, and in a replay). */
bool session__uprobe_filters_in_kernel(const struct session *s);

/**
 * session__stack_return_probed() - whether @stack (interned for a sample of
 * @pid: session__user_stack()) was taken inside a call of a function with
 * a return probe (uretprobe)
 *
 * The kernel keeps the return address of such a call in flight as its
 * trampoline, the first byte of the "[uprobes]" page: the stack then has a
 * frame there.  An event whose stacks are walked by frame pointers on a
 * kernel that mends them (6.11+) needs SESSION_STACK_WORDS for it: the
 * frame is taken from the copy.  Live and replayed alike.  False without
 * a known page.
 */
bool session__stack_return_probed(struct session *s, pid_t pid, uint32_t stack);

/**
 * session__set_filter() - a tracefs filter expression on an event added
 * before ("size >= 64"), evaluated by the kernel on every fd of it
 *
 * Return: 0, or -EINVAL (the kernel refused it), detail in eb.
 */
int session__set_filter(struct session *s, const struct tp_event *ev, const char *filter,
			struct errbuf *eb);

/*
 * A consumer of a session's events (perf's struct perf_tool): what a tool
 * or a tracer hears besides its events' samples (whose handlers are given
 * to session__add_*()), any number of them, each called in the order they
 * were added.  Members may be NULL.
 *
 * Tasks, in time order with the samples: a process exec'd (its image,
 * heap and mappings are new), forked (the child starts as a copy of the
 * parent's memory), or one of its threads exited (state kept per thread
 * can go).
 */
struct session_consumer {
	/* @pid exec'd at @time (the COMM record's): a new image. */
	void (*exec)(struct session *s, pid_t pid, uint64_t time, void *ctx);
	void (*fork)(struct session *s, pid_t parent, pid_t child, void *ctx);
	void (*thread_exit)(struct session *s, pid_t pid, pid_t tid, void *ctx);
	/* The kernel dropped @n events (a full ring): whatever state waits
	 * for a later event (a call's return) may wait for one that is gone.
	 * Called where the loss is reported in the stream, live and replayed. */
	void (*lost)(struct session *s, uint64_t n, void *ctx);
	/* A process mapped @m (its address space has it already): a new
	 * library, maybe, that a tool adds probes for (session__grow_begin). */
	void (*mmap)(struct session *s, pid_t pid, const struct map *m, void *ctx);
	/* Recording, with .while_recording: a sample went to the file, not
	 * to the handler @fn(@fn_ctx) of its event (a tool that follows the
	 * process, as a live run would, learns from it that @smp->pid runs). */
	void (*recorded)(struct session *s, const struct sample *smp, session_sample_fn fn,
			 void *fn_ctx, void *ctx);
	/* Replaying: a META that the recording wrote once its run went on
	 * (session__record_meta() from a hook or handler while recording:
	 * what a tool added then, e.g. an allocator dlopen'ed), where it was
	 * in the stream.  session__meta() finds it from then on. */
	void (*meta)(struct session *s, const char *key, const char *value, void *ctx);
	/* Replaying: the recording defined its event @i (session__recorded_event)
	 * once its run went on, before any sample of it: a tool that takes
	 * every event adds it now (session__add_recorded). */
	void (*event)(struct session *s, size_t i, void *ctx);
	/* The run: once every event is enabled and a -c command released
	 * (the moment a user may start the workload); after each batch of
	 * records was delivered (at least every 100 ms while tracing: a
	 * point between events, e.g. to flush output).  Recording too. */
	void (*ready)(struct session *s, void *ctx);
	void (*round)(struct session *s, void *ctx);
	/* The members above ready run while recording too (they only follow
	 * the process and grow the session; the tools' handlers do not run
	 * then). */
	bool while_recording;
	void *ctx;
};
/* Add @c (copied) after the consumers added before.  0, or -ENOMEM. */
int session__add_consumer(struct session *s, const struct session_consumer *c);


/*
 * Recording (faultline record): set up the session as usual, add the
 * events, then session__record() before session__run().  While it runs,
 * every sample and side-band record goes to the file, with the stacks the
 * events asked for, unwound now; the tools' handlers are not called, nor
 * their task hooks, unless these say .while_recording (a tracer that adds
 * probes for a library the target maps later).
 * Samples of two events of the same name are written once.  Errors:
 * -errno of the file (detail in eb).
 */
int session__record(struct session *s, const char *path, struct errbuf *eb);
/* The same to @fd, open for writing and left the caller's (a duplicate is
 * written): `record -o -`'s stdout; @name names it in messages. */
int session__record_fd(struct session *s, int fd, const char *name, struct errbuf *eb);
/* Records reach the file at most this long after they were written
 * (RECORD_FLUSH_NS by default; rounds are every 100 ms at most), or once
 * 1 MiB of them is buffered, whichever is first. */
#define RECORD_FLUSH_NS 1000000000ULL
void session__record_flush_every(struct session *s, uint64_t ns);
/* A key/value the recording keeps (tool and rung chosen, options). */
int session__record_meta(struct session *s, const char *key, const char *value);
/* Bytes written to the recording so far (0 when not recording). */
uint64_t session__recorded_bytes(const struct session *s);
bool session__recording(const struct session *s);

/*
 * Replay (faultline report): a session whose events come from a recording
 * instead of the kernel, through the same API, so a tool runs unchanged:
 * session__add_*() find the recorded event of that name (-ENOENT, with
 * what the file holds, when it is not there), filters are applied in user
 * space, session__run() delivers the records in their order, stacks are
 * the recorded ones, and the target, stop reason and totals are those of
 * the recorded run.  Nothing of the live kernel is touched; no root needed.
 */
struct replay_opts {
	const char *path;	/* the recording */
	const char *symfs;	/* NULL, or a root to find the binaries below */
	double since, until;	/* seconds from the start; until 0: to the end */
	/* A caveat about the report, one line (the command prints it); NULL:
	 * none is told.  Today one: a recording older than format 1.1, which
	 * holds no kernel symbols, has its kernel frames named from this
	 * machine's /proc/kallsyms, told when the first one is named. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};
int session__new_replay(const struct session_opts *o, const struct replay_opts *ro,
			struct session **out, struct errbuf *eb);
bool session__replaying(const struct session *s);
/* A replay of a recording cut short (no END: its recorder was killed or
 * its disk filled), replayed up to its last whole record: true, with the
 * seconds from the start of its last record and the bytes of the record
 * cut off.  Known when the run starts for a regular file, at its end for
 * a pipe. */
bool session__replay_cut(const struct session *s, double *at, uint64_t *bytes);
/* The recording's events (faultline report script dumps them all): how
 * many, the name and flags of the i-th, and adding it with a handler. */
size_t session__recorded_events(const struct session *s);
const char *session__recorded_event(const struct session *s, size_t i, unsigned int *flags);
int session__add_recorded(struct session *s, size_t i, session_sample_fn fn, void *ctx,
			  struct tp_event **ev, struct errbuf *eb);
/* A key of the recording's metadata, or NULL. */
const char *session__meta(const struct session *s, const char *key);

/* Now, on the session's clock: CLOCK_MONOTONIC ns live, the time of the
 * last record delivered in a replay.  session__wall(): the same as a
 * wall-clock time_t.  Tools use these for intervals and ages, so a replay
 * reports as the live run would have. */
uint64_t session__now(const struct session *s);
time_t session__wall(const struct session *s);

/*
 * Events added while a live run goes on (an allocator dlopen'ed after the
 * start, found in a task hook): between session__grow_begin() and
 * session__grow_end(), session__add_*() open their events on every thread
 * of the target's process tree as it is now (later forks inherit them),
 * into the same rings, their samples delivered like the others'; _end
 * enables them (@ok), or closes them (!@ok: a setup step failed; probes
 * made stay in the group until the session is freed, as every probe).
 * For a command (-c, --), and a -p target with --pause, the tree is
 * stopped (SIGSTOP, trace/tree-pause.h) from _begin to _end, so that it
 * makes as few calls as can be while the events are not on yet.
 *
 * Before the run (setup) and in a replay both are no-ops.  -EOPNOTSUPP,
 * said in @eb, for -a and -k sessions (events on every CPU: no tree to
 * open them on); -ENOMEM.  Recording, _end writes the new events to the
 * file before it enables them (their samples follow them there, and a
 * replay adds them where they are: docs/record-format.md), and fails
 * when it cannot.  _end returns the first error enabling an event.
 * Called from a task hook or a sample handler, never from the drain
 * thread.
 */
int session__grow_begin(struct session *s, struct errbuf *eb);
int session__grow_end(struct session *s, bool ok, struct errbuf *eb);
/* Whether @pid is one of the target's processes (-p, -c: the target and
 * the children it forked since the start); false for -a and in a replay. */
bool session__in_target(const struct session *s, pid_t pid);

/* Run until Ctrl-C/signal, the duration, or the target's exit: what the
 * caller wants to hear while it runs is a consumer of its own, added last. */
int session__run(struct session *s, struct errbuf *eb);
/*
 * session__stop - end a run from inside it (a handler or a round hook:
 * the report count reached, a replay at its duration)
 *
 * The run ends after the current round, as on Ctrl-C, with the reason
 * SESSION_STOP_TOOL; the events already read are delivered first.
 */
void session__stop(struct session *s);
enum session_stop session__stop_reason(const struct session *s);
/* Whether the run is ending: session__stop() was called, or a stop signal
 * (SIGINT, SIGTERM, ...) caught and not yet served.  A hook that loops
 * (a replay's catch-up over a long gap) checks it between steps. */
bool session__stopping(const struct session *s);
/* Exit status of a -c command (waitpid status), or -1. */
int session__cmd_status(const struct session *s);

/* Intern the user stack of a sample taken with SESSION_USER_STACK: the
 * kernel's frame-pointer chain, or a DWARF unwind of the copied stack. */
int session__user_stack(struct session *s, const struct sample *smp, uint32_t *stack_id);
/* Intern the kernel callchain of a sample taken with SESSION_KERNEL_STACK. */
int session__kernel_stack(struct session *s, const struct sample *smp, uint32_t *stack_id);

/* How many stack walks ended for each reason (enum unwind_stop), for the
 * footer; NULL-safe index < UNWIND__COUNT. */
uint64_t session__unwind_stops(const struct session *s, int reason);
bool session__dwarf(const struct session *s);
/* Bytes of user stack each DWARF sample copies (--call-graph dwarf,SIZE);
 * 0 without DWARF stacks, or for a recording that does not say. */
unsigned int session__stack_size(const struct session *s);
/* An event of the session takes user stacks (SESSION_USER_STACK). */
bool session__user_stacks(const struct session *s);
/* Data pages of each ring: -m, or the default chosen; in a replay the
 * recording's ("mmap_pages" of its metadata), 0 when it does not say. */
unsigned int session__mmap_pages(const struct session *s);

/* How many times pid has exec'd since tracing began: a new image, a new
 * heap and new mappings. */
uint32_t session__exec_count(const struct session *s, pid_t pid);
/* Command name of a process (as of its last exec), "?" if never known;
 * of an image it exec'd away from for its alias (session__stack_pid). */
const char *session__comm(struct session *s, pid_t pid);
/*
 * Where @pid's user @stack is named: @pid, or when @pid exec'd since the
 * stack was taken, the alias of the image it was taken in (addrspace.h),
 * which the symbolizer, the address spaces and session__comm() take as a
 * pid.  A report calls it for each stack it names.
 */
pid_t session__stack_pid(const struct session *s, pid_t pid, uint32_t stack);
/* The command name of the image @pid's @stack was taken in. */
const char *session__stack_comm(struct session *s, pid_t pid, uint32_t stack);
/* Target description for messages: "PID 123 (\"comm\")", "all processes"... */
pid_t session__target_pid(const struct session *s);
/* The file a live command target (-c, --) will execute; NULL otherwise. */
const char *session__target_exe(const struct session *s);
/*
 * session__hold_exit - hold the -p/-c process at its exit, its memory
 * intact, until the session is freed (after the report)
 *
 * For a tool that reads the process's pages or maps after its last event
 * (target__hold_exit, src/trace/exit-hold.c).  A replay needs none: 0.
 * -EOPNOTSUPP for -a, -EPERM when the process is traced already.
 */
int session__hold_exit(struct session *s, struct errbuf *eb);
bool session__is_cmd(const struct session *s);
/* -EINVAL, said in @eb, when the -p target is a kernel thread (no user
 * space: no maps, no allocator, no user stacks); session__run() refuses
 * one for events that want user space, a tool may ask before (leak, to
 * say it instead of "no allocator").  0 otherwise, and in a replay. */
int session__need_user_space(const struct session *s, struct errbuf *eb);

uint64_t session__lost(const struct session *s);
/* Back-pressure: how many times the target was paused, and for how long
 * in all (ns): so far while the run goes on (a pause not ended yet is not
 * counted), a replay's from its recording; 0 when it never was. */
uint64_t session__pauses(const struct session *s, uint64_t *ns);
/* Whether back-pressure could have paused this live run's target but was
 * not asked to: a command with --no-pause, a -p target without --pause.
 * False for -a and in a replay. */
bool session__pause_declined(const struct session *s);
uint64_t session__samples(const struct session *s);
uint64_t session__bad_records(const struct session *s);
/* Samples of a PMU uprobe that the kernel wrote for a task that is not the
 * target's, dropped when read: the ring space other processes took where
 * the target has no cgroup of its own (-p, -c; 0 otherwise, and in a
 * replay, whose recording never held them). */
uint64_t session__foreign(const struct session *s);
/* Wall-clock time (CLOCK_REALTIME ns) of a sample timestamp (perf clock). */
uint64_t session__realtime(const struct session *s, uint64_t sample_time);
/* Seconds since tracing started, for a sample timestamp. */
double session__elapsed(const struct session *s, uint64_t sample_time);

struct addrspaces *session__addrspaces(struct session *s);
struct stackdb *session__stackdb(struct session *s);
struct symbolizer *session__symbolizer(struct session *s);

#endif
