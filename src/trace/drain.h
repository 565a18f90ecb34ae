/*
 * drain: a thread that empties the kernel's perf rings into user memory.
 *
 * The session's reader parses, unwinds and aggregates every record; under
 * load any pause of it (a page fault in a big hash table, the scheduler,
 * one slow unwind) longer than the time the kernel takes to fill a ring
 * (~15 ms for 16 MiB of DWARF stack samples) lost events.  The drain
 * thread does one thing: it copies each ring's records into a spool of
 * 1 MiB chunks and hands the ring's space back to the kernel at once, so
 * the kernel sees a reader that never pauses, and the session's reader
 * works from the spools at its own pace.  A spool holds at most @cap bytes
 * not yet consumed; past that the drain leaves records in the ring, which
 * then fills and the kernel counts what it drops (PERF_RECORD_LOST), as
 * without the drain.
 *
 * The reading side has the shape of ring.h's: drain__snapshot() takes what
 * is spooled now, drain__peek() gives the next record contiguous (valid
 * until the next peek of that spool), drain__consume() steps past it and
 * drain__publish() tells the drain thread how far the reader got.  One
 * reader thread, one drain thread; no lock between them but the one that
 * keeps a pass over the rings to one thread at a time.
 */
#ifndef FAULTLINE_DRAIN_H
#define FAULTLINE_DRAIN_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/ring.h"

struct drain;

struct drain_stats {
	uint64_t copied;	/* bytes moved out of the rings */
	uint64_t peak;		/* the most bytes one spool held unread */
	uint64_t capped;	/* times a spool was full and a ring left to fill */
	uint64_t torn;		/* corrupt or torn records dropped */
	uint64_t ring_peak;	/* the most bytes one pass found in a ring */
	uint64_t passes;	/* ring passes with records */
	uint64_t pauses;	/* back-pressure: times the producer was paused */
	uint64_t paused_ns;	/* and for how long in all */
	uint64_t trimmed;	/* bytes of unfilled stack copies not spooled */
};

/*
 * A drain of @n rings (entries may be NULL; the rings stay the caller's
 * and must outlive the drain), each spool holding at most @cap bytes
 * unread (0: no bound), with @reserve bytes of it mapped and populated
 * now: memory touched for the first time costs a page fault a page,
 * which on a virtual machine made copying into it (~1.2 GB/s here) little
 * faster than a full-speed DWARF stream fills a ring (~1 GB/s); the
 * reserve is copied into at memory speed.  0 / -errno.
 */
int drain__new(struct ring *const *rings, int n, size_t cap, size_t reserve, struct drain **out);
/*
 * drain__set_realtime() - run the thread under SCHED_FIFO at @prio (1-99;
 * 0: no, the default), as `perf record -r` runs its reader, from the next
 * drain__start()
 *
 * It only copies and sleeps, so a real-time class costs the machine little
 * (and the kernel's RT throttling bounds it), and it is then never kept
 * waiting behind the CPU hogs of a busy host while a ring fills.  The
 * class is the thread's own: it ends with the thread.  Refused (no
 * CAP_SYS_NICE, no RT budget in the cgroup), the thread runs unchanged.
 */
void drain__set_realtime(struct drain *d, int prio);
/*
 * Back-pressure: when a spool holds half its bound unread (the reader is
 * behind), or half a ring is the kernel's no more (looked at when a pass
 * begins and after each MiB it hands back: the drain was late, or the
 * producer outruns the copy), the drain calls @pause from its own thread
 * (or, while the thread is not running, from the reader's
 * drain__catch_up()), at once, not at the pass's end: what the producer
 * writes before it stops still has the other half.  Once every spool is
 * down to a quarter of its bound (the reader caught up), it calls @resume; while paused the thread looks
 * every millisecond.  @pause returns false when it stopped nothing (then
 * it is not asked again until the spools are down to a quarter).
 *
 * With @watch, each ring also has a watcher thread pinned to the ring's
 * CPU (rings[i] must be CPU i's, as perf's per-CPU rings are), at a
 * real-time priority above the drain's, woken by the ring's wakeups in
 * the drain's stead: at each one it pauses the producer if half the ring
 * is the kernel's no more, then wakes the drain.  The producer cannot
 * write on a CPU without its watcher running first, so a drain kept
 * from running (a virtual CPU the host did not run for 20 ms on a busy
 * machine) no longer means lost records: the ring fills to three
 * quarters at most before the producer is stopped.  The rings must be
 * perf's (a memfd polls always ready).
 */
struct drain_backpressure {
	uint64_t ring_bytes;		/* each ring's data size */
	bool watch;			/* a watcher per ring (above) */
	bool (*pause)(void *ctx);
	void (*resume)(void *ctx);
	void *ctx;
};
/* Before drain__start(); @bp is copied. */
void drain__set_backpressure(struct drain *d, const struct drain_backpressure *bp);
/*
 * Stack trimming: a sample of event @id (PERF_SAMPLE_IDENTIFIER first, or
 * PERF_SAMPLE_ID at drain__set_id_word()'s word) whose last field is a
 * user-stack copy of @stack_size bytes
 * (PERF_SAMPLE_STACK_USER: u64 size, data[size], u64 dyn_size).  The
 * kernel reserves the whole @stack_size in the ring but fills only
 * dyn_size (up to the end of the stack's mapping), so the drain spools
 * the filled part, rounded up to 8 bytes, with size rewritten to match:
 * sample.c reads such a record as the kernel's own.  A shallow walk under
 * a 32 KiB copy then costs the spool and its readers ~1-2 KiB, not 32.
 * A record whose fields do not sit where @stack_size puts them is copied
 * whole.
 */
struct drain_trim {
	uint64_t id;
	uint32_t stack_size;
};
/* Before drain__start(): the events to trim (@t is copied; the ids of
 * events opened later are copied whole).  0 / -ENOMEM. */
int drain__set_trim(struct drain *d, const struct drain_trim *t, size_t n);
/* Before drain__start(): the u64 word of a sample that holds its id when
 * it is not the first (no PERF_SAMPLE_IDENTIFIER: sample_id_pos's). */
void drain__set_id_word(struct drain *d, unsigned int word);
/* 1 when the running (or stopped) thread got SCHED_FIFO, -1 when it was
 * refused, 0 when not asked or not started yet. */
int drain__realtime(const struct drain *d);
/* Start the thread, with every signal blocked in it (the caller's thread
 * keeps receiving them).  0 / -errno. */
int drain__start(struct drain *d);
/* Ask the thread to end and join it, and resume a paused producer.
 * Records still in the rings stay there, for drain__flush().  Harmless
 * when not started. */
void drain__stop(struct drain *d);
/* Copy everything in the rings now, without the bound, from the calling
 * thread; only while the thread is not running.  0 / -ENOMEM. */
int drain__flush(struct drain *d);
/*
 * Copy what the rings hold now (the reader, before it snapshots): the
 * running thread is asked for a pass and the call waits for it, so that
 * the thread never waits for the reader (a reader descheduled or stopped
 * in a pass of its own would leave the rings to fill); with no thread
 * running, the calling thread makes the pass.  Every record the kernel
 * wrote before the call is
 * in its spool after it, whichever ring it went to, but for what the bound
 * or a failed allocation leaves in the ring (where the kernel counts what
 * it then drops).  The thread drains a quiet ring only every 100 ms (its
 * wakeups come from a busy one), and a merge by time that saw one CPU's
 * records but not another's older ones would deliver a free before its
 * malloc.
 */
void drain__catch_up(struct drain *d);
/* A descriptor that polls readable when records were spooled since the
 * last drain__ack(). */
int drain__wait_fd(const struct drain *d);
void drain__ack(struct drain *d);

/* Reader side, for spool @i (see the top of this file). */
bool drain__snapshot(struct drain *d, int i);
/* 0; -ENOENT when the snapshot is read. */
int drain__peek(struct drain *d, int i, const struct perf_event_header **out);
void drain__consume(struct drain *d, int i);
void drain__publish(struct drain *d, int i);

/* Once stopped: the thread's counters are read without atomics. */
void drain__stats(const struct drain *d, struct drain_stats *out);
/* The pauses ended so far and their time (ns): from any thread, while
 * the drain runs. */
uint64_t drain__pauses(const struct drain *d, uint64_t *ns);

/*
 * From a fatal-signal handler, before the rings are unmapped: make the
 * thread stop touching them (it finishes the record it is copying) and
 * wait for that, unless the handler runs on the drain thread itself.
 * Async-signal-safe.
 */
void drain__quiesce_in_signal(struct drain *d);
/* Stop if running, free every spool.  NULL is fine. */
void drain__free(struct drain *d);

#endif
