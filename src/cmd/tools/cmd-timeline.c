/*
 * faultline report -i FILE timeline: what happened to each recorded
 * process's memory, interval by interval, in one table per process, and
 * for a process the OOM killer took, what it held and where it was
 * faulting when it died.
 *
 * Every column comes from one recorded source, read as its own tool reads
 * it, on one replay of the recording:
 *   OUTSTANDING  bytes the process still had allocated at the end of the
 *                interval: the allocation tracer of leak (alloc-trace.c)
 *                over the recorded allocator probes and mmap/brk calls;
 *   TOUCHED      KiB of pages brought in: faults whose error code says the
 *                page was not present (exceptions:page_fault_user), a
 *                re-entry of the same thread on the same page not counted
 *                twice; with the page-faults software event, which has no
 *                error code, the pages the process faulted on for the
 *                first time;
 *   FAULTS       page faults (the faults tool's count);
 *   MAJOR        major faults, as faults counts them: a major-faults event
 *                of the thread's last fault, on its page (every major-faults
 *                event when the recording has no fault events);
 *   RECLAIM      milliseconds in direct and memcg reclaim, begin/end
 *                pairs of the process's threads, at the end's interval;
 *   SWAPINS      major faults on swap-backed memory (anonymous, shmem), as
 *                swapin's major-fault rung decides it;
 *   EVENTS       the process's OOM kill (oom:mark_victim) and its exit.
 * A source the recording lacks turns its columns into "-", and the header
 * names it once.
 *
 * An interval is a row when something happened to the process in it:
 * quiet intervals are left out, the TIME column shows the gap.  Intervals
 * are counted from the recording's start, on the recorded clock.
 *
 * A process killed by the OOM killer is followed by its allocation sites
 * with the most bytes outstanding at the kill, and the user stacks of its
 * faults in the --before seconds before it: where it was growing.  Both
 * are taken while the replay runs, at the kill, because the tracer's table
 * and the fault window move on afterwards.
 *
 * Exactness: the outstanding column of an interval is read from the
 * tracer's table before the first event of the next interval is applied
 * (a handler of every recorded event, added first, closes the interval).
 *
 * Why so long: five recorded sources (the allocation tracer, faults,
 * reclaim, swap-ins, OOM kills) joined per interval and per process, each
 * with its hooks here beside the table they fill.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "lib/json.h"
#include "stack/addrspace.h"
#include "agg/alloc-trace.h"
#include "agg/stack-table.h"
#include "agg/major-pair.h"
#include "agg/reclaim-pair.h"
#include "agg/reclaim-watch.h"
#include "agg/mem-series.h"
#include "features.h"
#include "cmd/commands.h"
#include "cmd/tool.h"
#include "trace/tp-catalog.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "cmd/out/report.h"
#include "cmd/out/precursors.h"
#include "trace/session.h"
#include "cmd/tool-opts.h"

#define TOOL "report timeline"

enum { OPT_INTERVAL = 256, OPT_BEFORE, OPT_PRECURSORS };

/* Bits of struct row's events. */
#define EV_OOM_KILL	(1u << 0)
#define EV_EXIT		(1u << 1)

struct row {
	uint64_t bin;
	uint64_t outstanding;		/* bytes at the end of the interval */
	uint64_t touched;		/* pages brought in */
	uint64_t faults, major, swapins;
	uint64_t reclaim_ns;
	unsigned int events;
	pid_t trigger;			/* EV_OOM_KILL: the task that called the killer */
};

struct proc {
	pid_t pid;
	struct row *rows;
	size_t n, cap;
};

struct kill {
	pid_t victim, trigger;
	uint64_t time;
	char comm[32];			/* the victim's, at the kill */
	/* its sites, most first: allocation stacks (leaked: bytes, and
	 * blocks, outstanding at the kill) and fault stacks of the window
	 * (calls: faults; bytes: those of the pages they brought in) */
	struct stack_site *allocs, *faults;
	size_t nallocs, nfaults;
	/* the precursor rows (oom --timeline's), taken at the first recorded
	 * sample a second or more after the kill, or at the recording's end */
	struct mem_row *pre;
	size_t npre;
	bool pre_done;
};

/* A fault of the last --before seconds: the victim's are its sites. */
struct recent {
	uint64_t time;
	pid_t pid;
	uint32_t stack;
	uint32_t image;			/* session__exec_count: stacks of an earlier image are not the victim's */
	bool touched;
};

struct tl {
	struct session *s;
	const struct replay_opts *ro;	/* --since, --until */
	pid_t only;			/* -p; 0: every process */
	uint64_t interval_ns, before_ns;
	unsigned int top;
	bool json;
	long page_size;
	/* what the recording has */
	bool have_allocs, have_faults, have_major, have_swapin, have_reclaim, have_oom;
	bool fault_error_code;		/* the tracepoint: first touch by error code */
	bool fault_stacks;		/* user stacks with the faults */
	const char *fault_event;
	struct tp_field f_addr, f_error, f_victim;
	struct alloc_trace *at;
	/* the run */
	struct keyed *procs;		/* pid -> struct proc */
	uint64_t cur_bin;
	pid_t *binned;			/* pids with a row in cur_bin */
	size_t nbinned, capbinned;
	struct hashmap *last_fault;	/* tid -> page << 1 | not present */
	/* each thread's last fault, which a major-faults event of the same
	 * thread and page then marks major (faults' rule) */
	struct major_pair *majors;
	struct hashmap *seen_pages;	/* software event: pid << 36 | page */
	struct reclaim_pair *reclaims;	/* begin/end by thread and kind */
	struct recent *win;		/* ring of recent faults, oldest at head */
	size_t whead, wlen, wcap;
	struct kill *kills;
	size_t nkills;
	/* the recorded samples (faultline:memstat), for the precursors */
	double pre_secs;
	bool have_memstat;
	struct mem_series *series;
	struct reclaim_watch *rw;
	int err;
};

/* ---- rows ---- */

static uint64_t bin_of(const struct tl *t, uint64_t time)
{
	double at = session__elapsed(t->s, time);

	return (uint64_t)(at * 1e9) / t->interval_ns;
}

static bool wanted(const struct tl *t, pid_t pid)
{
	return pid > 0 && (!t->only || pid == t->only);
}

/* The row of @pid for the interval in progress, made when new; NULL when
 * the process is not shown or out of memory (t->err). */
static struct row *row_of(struct tl *t, pid_t pid)
{
	struct proc *p;
	int created = 0;

	if (!wanted(t, pid))
		return NULL;
	p = keyed__get(t->procs, (uint64_t)pid, &created);
	if (!p) {
		t->err = -ENOMEM;
		return NULL;
	}
	if (created)
		p->pid = pid;
	if (p->n && p->rows[p->n - 1].bin == t->cur_bin)
		return &p->rows[p->n - 1];
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct row *nv = realloc(p->rows, cap * sizeof(*nv));

		if (!nv) {
			t->err = -ENOMEM;
			return NULL;
		}
		p->rows = nv;
		p->cap = cap;
	}
	if (t->nbinned == t->capbinned) {
		size_t cap = t->capbinned ? 2 * t->capbinned : 16;
		pid_t *nv = realloc(t->binned, cap * sizeof(*nv));

		if (!nv) {
			t->err = -ENOMEM;
			return NULL;
		}
		t->binned = nv;
		t->capbinned = cap;
	}
	t->binned[t->nbinned++] = pid;
	p->rows[p->n] = (struct row){ .bin = t->cur_bin };
	return &p->rows[p->n++];
}

static void add_bytes(const struct alloc_rec *r, void *ctx)
{
	struct hashmap *totals = ctx;
	uint64_t v = 0;

	hashmap__get(totals, (uint64_t)(uint32_t)r->pid, &v);
	/* Out of memory here shows as a low figure; the map only grows by
	 * the processes of one interval. */
	hashmap__set(totals, (uint64_t)(uint32_t)r->pid, v + r->size);
}

/* The interval in progress ends: its rows get what their processes have
 * outstanding now. */
static void close_bin(struct tl *t)
{
	struct hashmap *totals = NULL;

	if (t->have_allocs && t->nbinned) {
		totals = hashmap__new();
		if (!totals) {
			t->err = -ENOMEM;
			return;
		}
		alloc_track__foreach(alloc_trace__track(t->at), add_bytes, totals);
		for (size_t i = 0; i < t->nbinned; i++) {
			struct proc *p = keyed__find(t->procs, (uint64_t)t->binned[i]);
			uint64_t v = 0;

			hashmap__get(totals, (uint64_t)(uint32_t)t->binned[i], &v);
			if (p && p->n)
				p->rows[p->n - 1].outstanding = v;
		}
		hashmap__free(totals);
	}
	t->nbinned = 0;
}

/* Added first for every recorded event: a sample of a later interval
 * closes the one in progress before any tool code sees it. */
static void on_any(struct session *s, const struct sample *smp, void *ctx)
{
	struct tl *t = ctx;
	uint64_t bin = bin_of(t, smp->time);

	(void)s;
	if (bin > t->cur_bin) {
		close_bin(t);
		t->cur_bin = bin;
	}
}

/* ---- faults ---- */

static void window_push(struct tl *t, const struct recent *f)
{
	while (t->wlen && t->win[t->whead].time + t->before_ns < f->time) {
		t->whead = (t->whead + 1) % t->wcap;
		t->wlen--;
	}
	if (t->wlen == t->wcap) {
		size_t cap = t->wcap ? 2 * t->wcap : 1024;
		struct recent *nv = malloc(cap * sizeof(*nv));

		if (!nv) {
			t->err = -ENOMEM;
			return;
		}
		for (size_t i = 0; i < t->wlen; i++)
			nv[i] = t->win[(t->whead + i) % t->wcap];
		free(t->win);
		t->win = nv;
		t->wcap = cap;
		t->whead = 0;
	}
	t->win[(t->whead + t->wlen) % t->wcap] = *f;
	t->wlen++;
}

/* The address of the fault @smp reports (tracepoint field or sample address). */
static uint64_t smp_addr(const struct tl *t, const struct sample *smp)
{
	uint64_t addr = smp->addr;

	if (t->f_addr.present)
		tp_field__u64(&t->f_addr, smp->raw, smp->raw_size, &addr);
	return addr;
}

static void count_fault(struct tl *t, const struct sample *smp, bool touched)
{
	struct row *r = row_of(t, (pid_t)smp->pid);
	struct recent f = { smp->time, (pid_t)smp->pid, 0,
			    session__exec_count(t->s, (pid_t)smp->pid), touched };

	if (!r)
		return;
	r->faults++;
	r->touched += touched;
	if (major_pair__fault(t->majors, (pid_t)smp->tid, smp_addr(t, smp), 0))
		t->err = -ENOMEM;
	if (t->have_oom && t->fault_stacks) {
		if (session__user_stack(t->s, smp, &f.stack)) {
			t->err = -ENOMEM;
			return;
		}
		window_push(t, &f);
	}
}

static void on_fault_tp(struct session *s, const struct sample *smp, void *ctx)
{
	struct tl *t = ctx;
	uint64_t addr = 0, error_code = 0, last = 0, cur;
	bool not_present;

	(void)s;
	if (!wanted(t, (pid_t)smp->pid) ||
	    tp_field__u64(&t->f_addr, smp->raw, smp->raw_size, &addr))
		return;
	not_present = t->fault_error_code &&
		      !tp_field__u64(&t->f_error, smp->raw, smp->raw_size, &error_code) &&
		      !(error_code & 1);
	cur = (addr / (uint64_t)t->page_size) << 1 | not_present;
	/* The same thread entering again for the same absent page: the
	 * first entry did not map it (a retry); one page all the same. */
	if (not_present && hashmap__get(t->last_fault, smp->tid, &last) && last == cur)
		not_present = false;
	if (hashmap__set(t->last_fault, smp->tid, cur))
		t->err = -ENOMEM;
	count_fault(t, smp, not_present);
}

static void on_fault_sw(struct session *s, const struct sample *smp, void *ctx)
{
	struct tl *t = ctx;
	uint64_t key = (uint64_t)(uint32_t)smp->pid << 36 | smp->addr / (uint64_t)t->page_size;
	uint64_t v;
	bool first;

	(void)s;
	if (!wanted(t, (pid_t)smp->pid))
		return;
	first = !hashmap__get(t->seen_pages, key, &v);
	if (first && hashmap__set(t->seen_pages, key, 1))
		t->err = -ENOMEM;
	count_fault(t, smp, first);
}

static void on_major(struct session *s, const struct sample *smp, void *ctx)
{
	struct tl *t = ctx;
	struct row *r = row_of(t, (pid_t)smp->pid);
	const struct map *m;
	uint64_t owner;

	/* As faults counts it: the major event of the thread's last fault,
	 * on its page; one whose fault came before the recording is not.
	 * A recording without the faults themselves (record -e swapin) has
	 * only the major events: each is one, as swapin counts them. */
	if (!r || (t->have_faults &&
		   !major_pair__major(t->majors, (pid_t)smp->tid, smp->addr, &owner)))
		return;
	r->major++;
	if (!t->have_swapin)
		return;
	m = addrspaces__find(session__addrspaces(s), (pid_t)smp->pid, smp->addr);
	if (m && map__swap_backed(m))
		r->swapins++;
}

/* ---- reclaim ---- */

static void reclaim_begin(struct tl *t, const struct sample *smp, enum reclaim_kind k)
{
	if (wanted(t, (pid_t)smp->pid) &&
	    reclaim_pair__begin(t->reclaims, (pid_t)smp->tid, k, smp->time))
		t->err = -ENOMEM;
}

static void reclaim_end(struct tl *t, const struct sample *smp, enum reclaim_kind k)
{
	uint64_t ns;
	struct row *r;

	/* An end whose begin came before the recording did: unknown length. */
	if (!reclaim_pair__end(t->reclaims, (pid_t)smp->tid, k, smp->time, 0, &ns))
		return;
	r = row_of(t, (pid_t)smp->pid);
	if (r)
		r->reclaim_ns += ns;
}

static void on_direct_begin(struct session *s, const struct sample *smp, void *ctx)
{
	reclaim_begin(ctx, smp, RECLAIM_DIRECT);
}

static void on_direct_end(struct session *s, const struct sample *smp, void *ctx)
{
	reclaim_end(ctx, smp, RECLAIM_DIRECT);
}

static void on_memcg_begin(struct session *s, const struct sample *smp, void *ctx)
{
	reclaim_begin(ctx, smp, RECLAIM_MEMCG);
}

static void on_memcg_end(struct session *s, const struct sample *smp, void *ctx)
{
	reclaim_end(ctx, smp, RECLAIM_MEMCG);
}

/* ---- OOM kills ---- */

/* The victim's outstanding blocks, by allocation stack. */
struct held {
	pid_t pid;
	struct stack_table *sites;
	int err;
};

static void hold_alloc(const struct alloc_rec *r, void *ctx)
{
	struct held *h = ctx;

	if (r->pid == h->pid && !h->err)
		h->err = stack_table__hold(h->sites, r->pid, r->stack, r->size, 1);
}

/* The victim's sites now: its outstanding blocks by allocation stack, its
 * faults of the window by fault stack; most first, then by stack id, so
 * equal sites keep one order. */
static int snapshot(struct tl *t, struct kill *k)
{
	static const struct stack_order by_held = { STACK_LEAKED, STACK_LEAKED_BLOCKS, true, false };
	static const struct stack_order by_faults = { STACK_CALLS, STACK_BYTES, true, false };
	struct held ga = { .pid = k->victim };
	struct stack_table *gf = NULL;
	uint32_t image = session__exec_count(t->s, k->victim);
	int err;

	err = stack_table__new(0, &ga.sites);
	if (!err)
		err = stack_table__new(0, &gf);
	if (!err && t->have_allocs) {
		alloc_track__foreach(alloc_trace__track(t->at), hold_alloc, &ga);
		err = ga.err;
	}
	for (size_t i = 0; !err && i < t->wlen; i++) {
		const struct recent *f = &t->win[(t->whead + i) % t->wcap];

		/* A fault is a call of its stack's; the page it brought in,
		 * its bytes. */
		if (f->pid == k->victim && f->image == image && f->time + t->before_ns >= k->time)
			err = stack_table__call(gf, f->pid, f->stack,
						f->touched ? (uint64_t)t->page_size : 0, 1);
	}
	if (!err)
		err = stack_table__sorted(ga.sites, &by_held, &k->allocs, &k->nallocs);
	if (!err)
		err = stack_table__sorted(gf, &by_faults, &k->faults, &k->nfaults);
	stack_table__free(ga.sites);
	stack_table__free(gf);
	return err;
}

/* ---- precursors ---- */

#define SAMPLE_NS 1000000000ULL

/* Kill @k's rows: from --precursors seconds before it to the newest
 * sample (oom --timeline's from the same recording). */
static void take_precursors(struct tl *t, struct kill *k)
{
	uint64_t span = (uint64_t)(t->pre_secs * 1e9);

	k->pre_done = true;
	if (mem_series__rows(t->series, k->time > span ? k->time - span : 0, NULL, &k->pre,
			     &k->npre))
		t->err = -ENOMEM;
}

/* A recorded sample, with the reclaim totals replayed up to it; the
 * kills a second or more before it have their rows (their stalls over). */
static void on_memstat(struct session *s, const struct mem_sample *ms, void *ctx)
{
	struct tl *t = ctx;
	struct mem_point p = { .s = *ms };

	(void)s;
	reclaim_watch__totals(t->rw, &p.r);
	p.have_reclaim = t->rw != NULL;
	mem_series__push(t->series, &p);
	for (size_t i = 0; i < t->nkills; i++)
		if (!t->kills[i].pre_done && ms->time_ns >= t->kills[i].time + SAMPLE_NS)
			take_precursors(t, &t->kills[i]);
}

/* The recorded samples and reclaim's pairs, as oom --timeline reads them;
 * a recording without samples has no precursors (said at each kill). */
static int add_precursors(struct tl *t, struct errbuf *eb)
{
	const struct features *f = session__features(t->s);
	int err = session__add_memstat(t->s, on_memstat, t, eb);

	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	t->have_memstat = true;
	if (features__has_tracepoint(f, "vmscan", "mm_vmscan_direct_reclaim_begin") &&
	    features__has_tracepoint(f, "vmscan", "mm_vmscan_direct_reclaim_end")) {
		err = reclaim_watch__add(t->s, &t->rw, eb);
		if (err)
			return err;
	}
	/* --precursors seconds, the one before and those to a second after
	 * the kill. */
	if (mem_series__new((size_t)t->pre_secs + 5, &t->series))
		return errbuf__set(eb, -ENOMEM, "out of memory");
	return 0;
}

static void on_mark_victim(struct session *s, const struct sample *smp, void *ctx)
{
	struct tl *t = ctx;
	uint64_t victim = 0;
	struct kill *nv;
	struct row *r;

	if (tp_field__u64(&t->f_victim, smp->raw, smp->raw_size, &victim) ||
	    !wanted(t, (pid_t)victim))
		return;
	r = row_of(t, (pid_t)victim);
	if (!r)
		return;
	r->events |= EV_OOM_KILL;
	r->trigger = (pid_t)smp->pid;
	nv = realloc(t->kills, (t->nkills + 1) * sizeof(*nv));
	if (!nv) {
		t->err = -ENOMEM;
		return;
	}
	t->kills = nv;
	nv[t->nkills] = (struct kill){ .victim = (pid_t)victim, .trigger = (pid_t)smp->pid,
				       .time = smp->time };
	snprintf(nv[t->nkills].comm, sizeof(nv[t->nkills].comm), "%s",
		 session__comm(s, (pid_t)victim));
	if (snapshot(t, &nv[t->nkills]))
		t->err = -ENOMEM;
	t->nkills++;
}

/* ---- allocations and tasks ---- */

static void on_alloc_entered(void *ctx, const struct sample *smp, const struct alloc_call *c)
{
	(void)c;
	row_of(ctx, (pid_t)smp->pid);
}

static void on_alloc_changed(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	(void)r;
	row_of(ctx, (pid_t)smp->pid);
}

/* A munmap may release a tracked region without a hook of the tracer's:
 * the interval's row shows the change. */
static void on_munmap(struct session *s, const struct sample *smp, void *ctx)
{
	row_of(ctx, (pid_t)smp->pid);
}

static void task_exit(struct tl *t, pid_t pid, pid_t tid)
{
	/* The hook has no time: the last record's is the nearest before. */
	uint64_t now = session__now(t->s);
	double at = session__elapsed(t->s, now);
	struct row *r;

	if (pid != tid || at < t->ro->since || (t->ro->until > 0 && at > t->ro->until))
		return;		/* a thread, not the process; or out of the window */
	if (bin_of(t, now) > t->cur_bin) {
		close_bin(t);
		t->cur_bin = bin_of(t, now);
	}
	r = row_of(t, pid);
	if (r)
		r->events |= EV_EXIT;
}

static void on_thread_exit(struct session *s, pid_t pid, pid_t tid, void *ctx)
{
	(void)s;
	task_exit(ctx, pid, tid);
}

/* ---- setup ---- */

/* Whether the recording has an event whose name ends in ":@event". */
static bool recorded(const struct session *s, const char *event)
{
	size_t len = strlen(event);

	for (size_t i = 0; i < session__recorded_events(s); i++) {
		const char *name = session__recorded_event(s, i, NULL);
		size_t n = strlen(name);

		if (n > len && name[n - len - 1] == ':' && !strcmp(name + n - len, event))
			return true;
	}
	return false;
}

/* Add an event the recording may lack: false (nothing added) when it does
 * not have it, with these flags. */
static int try_tp(struct tl *t, const char *sys, const char *ev, unsigned int flags,
		  session_sample_fn fn, struct tp_event **tev, bool *have, struct errbuf *eb)
{
	int err = session__add_tracepoint(t->s, sys, ev, flags, fn, t, tev, eb);

	*have = !err;
	return err == -ENOENT ? 0 : err;
}

static int try_sw(struct tl *t, const char *name, uint64_t config, unsigned int flags,
		  session_sample_fn fn, bool *have, struct errbuf *eb)
{
	int err = session__add_software(t->s, name, config, flags, fn, t, eb);

	*have = !err;
	return err == -ENOENT ? 0 : err;
}

/* A report_replay() add. */
static int add_events(struct session *s, void *ctx, struct errbuf *eb)
{
	struct tl *t = ctx;
	struct tp_event *ev = NULL;
	bool have = false, have2 = false;
	int err = 0;

	/* First of all: the interval clock. */
	for (size_t i = 0; i < session__recorded_events(t->s) && !err; i++)
		err = session__add_recorded(t->s, i, on_any, t, NULL, eb);
	if (err)
		return err;

	/* Faults: the tracepoint (with its error code), else the software
	 * event; with their user stacks when recorded. */
	err = try_tp(t, "exceptions", "page_fault_user", SESSION_USER_STACK, on_fault_tp, &ev,
		     &t->fault_stacks, eb);
	if (!err && !t->fault_stacks)
		err = try_tp(t, "exceptions", "page_fault_user", 0, on_fault_tp, &ev, &have, eb);
	if (err)
		return err;
	if (t->fault_stacks || have) {
		if (tp_event__field(ev, "address", &t->f_addr))
			return errbuf__set(eb, -ENOENT, "exceptions:page_fault_user lacks 'address'");
		t->fault_error_code = !tp_event__field(ev, "error_code", &t->f_error);
		t->have_faults = true;
		t->fault_event = "exceptions:page_fault_user";
	} else {
		err = try_sw(t, "page-faults", PERF_COUNT_SW_PAGE_FAULTS,
			     SESSION_USER_STACK | SESSION_SAMPLE_ADDR, on_fault_sw, &t->fault_stacks,
			     eb);
		if (!err && !t->fault_stacks)
			err = try_sw(t, "page-faults", PERF_COUNT_SW_PAGE_FAULTS, SESSION_SAMPLE_ADDR,
				     on_fault_sw, &have, eb);
		if (err)
			return err;
		t->have_faults = t->fault_stacks || have;
		t->fault_event = "page-faults";
	}

	/* Major faults, with their addresses for swap-ins. */
	err = try_sw(t, "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, SESSION_SAMPLE_ADDR, on_major,
		     &t->have_swapin, eb);
	if (!err && !t->have_swapin)
		err = try_sw(t, "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0, on_major, &have,
			     eb);
	if (err)
		return err;
	t->have_major = t->have_swapin || have;

	/* Reclaim: a pair counts only whole. */
	if (recorded(t->s, "mm_vmscan_direct_reclaim_begin") &&
	    recorded(t->s, "mm_vmscan_direct_reclaim_end")) {
		err = try_tp(t, "vmscan", "mm_vmscan_direct_reclaim_begin", 0, on_direct_begin, NULL,
			     &have, eb);
		if (!err)
			err = try_tp(t, "vmscan", "mm_vmscan_direct_reclaim_end", 0, on_direct_end,
				     NULL, &have2, eb);
		if (err)
			return err;
		t->have_reclaim = have && have2;
	}
	if (recorded(t->s, "mm_vmscan_memcg_reclaim_begin") &&
	    recorded(t->s, "mm_vmscan_memcg_reclaim_end")) {
		err = try_tp(t, "vmscan", "mm_vmscan_memcg_reclaim_begin", 0, on_memcg_begin, NULL,
			     &have, eb);
		if (!err)
			err = try_tp(t, "vmscan", "mm_vmscan_memcg_reclaim_end", 0, on_memcg_end,
				     NULL, &have2, eb);
		if (err)
			return err;
		t->have_reclaim = t->have_reclaim || (have && have2);
	}

	/* OOM kills. */
	err = try_tp(t, "oom", "mark_victim", 0, on_mark_victim, &ev, &t->have_oom, eb);
	if (err)
		return err;
	if (t->have_oom && tp_event__field(ev, "pid", &t->f_victim))
		return errbuf__set(eb, -ENOENT, "the recorded oom:mark_victim has no field 'pid'");
	if (t->have_oom) {
		err = add_precursors(t, eb);
		if (err)
			return err;
	}

	/* Allocations: the tracer adds many events and cannot take back
	 * those it added when one is missing, so it runs only when the
	 * recording has the user allocator's probes (leak -p/-c; leak -a
	 * records kernel allocations, which belong to no process). */
	if (recorded(t->s, "malloc_enter") && recorded(t->s, "free_enter")) {
		err = alloc_trace__new(t->s, &(struct alloc_trace_opts){ 0 },
				       &(struct alloc_trace_hooks){
						.entered = on_alloc_entered,
						.made = on_alloc_changed,
						.freed = on_alloc_changed,
						.ctx = t },
				       &t->at, eb);
		if (err)
			return err;
		t->have_allocs = true;
		if (recorded(t->s, "sys_enter_munmap")) {
			err = try_tp(t, "syscalls", "sys_enter_munmap", 0, on_munmap, NULL, &have,
				     eb);
			if (err)
				return err;
		}
	}
	err = session__add_consumer(t->s, &(struct session_consumer){ .thread_exit = on_thread_exit,
								       .ctx = t });
	if (err)
		return err;
	if (!t->have_allocs && !t->have_faults && !t->have_major && !t->have_reclaim &&
	    !t->have_oom)
		return errbuf__set(eb, -ENOENT, "the recording holds none of the events a timeline "
				   "reads (record leak -p/-c, faults, reclaim, swapin or oom)");
	return 0;
}

/* ---- output ---- */

static void print_missing(const struct tl *t)
{
	const char *names[6], *why[6];
	size_t n = 0;

	if (!t->have_allocs) {
		names[n] = "allocations";
		why[n++] = "allocations (the user allocator's probes: record leak with -p or -c)";
	}
	if (!t->have_faults) {
		names[n] = "faults";
		why[n++] = "faults (exceptions:page_fault_user or page-faults)";
	}
	if (!t->have_major) {
		names[n] = "major";
		why[n++] = "major faults (major-faults)";
	}
	if (!t->have_swapin) {
		names[n] = "swapins";
		why[n++] = "swap-ins (major-faults with addresses)";
	}
	if (!t->have_reclaim) {
		names[n] = "reclaim";
		why[n++] = "reclaim (vmscan direct or memcg reclaim begin/end)";
	}
	if (!t->have_oom) {
		names[n] = "oom";
		why[n++] = "OOM kills (oom:mark_victim)";
	}
	if (t->json) {
		printf("{\"type\":\"timeline\",\"interval\":%.9g,\"before\":%.9g,\"not_recorded\":[",
		       (double)t->interval_ns / 1e9, (double)t->before_ns / 1e9);
		for (size_t i = 0; i < n; i++)
			printf("%s\"%s\"", i ? "," : "", names[i]);
		printf("]}\n");
		return;
	}
	if (!n)
		return;
	printf("Not recorded: ");
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "", why[i]);
	printf("; shown as -\n\n");
}

/* Decimals that show an interval's start exactly (1: 0; 0.25: 2). */
static int decimals(uint64_t interval_ns)
{
	int d = 0;

	for (uint64_t unit = 1000000000ULL; d < 9 && interval_ns % unit; unit /= 10)
		d++;
	return d;
}

static void col_u64(bool have, int width, uint64_t v)
{
	if (have)
		printf(" %*" PRIu64, width, v);
	else
		printf(" %*s", width, "-");
}

static void json_u64(const char *key, bool have, uint64_t v)
{
	if (have)
		printf(",\"%s\":%" PRIu64, key, v);
	else
		printf(",\"%s\":null", key);
}

static void print_row(const struct tl *t, const struct proc *p, const struct row *r)
{
	double at = (double)(r->bin * t->interval_ns) / 1e9;
	uint64_t kb = r->touched * (uint64_t)t->page_size / 1024;
	char events[64] = "";

	if (r->events & EV_OOM_KILL) {
		if (r->trigger != p->pid)
			snprintf(events, sizeof(events), "oom-kill(by %d)", (int)r->trigger);
		else
			snprintf(events, sizeof(events), "oom-kill");
	}
	if (r->events & EV_EXIT)
		snprintf(events + strlen(events), sizeof(events) - strlen(events), "%sexit",
			 events[0] ? "," : "");
	if (t->json) {
		printf("{\"type\":\"row\",\"pid\":%d,\"comm\":", (int)p->pid);
		json__str(stdout, session__comm(t->s, p->pid));
		printf(",\"time\":%.9g", at);
		json_u64("outstanding_bytes", t->have_allocs, r->outstanding);
		json_u64("touched_kb", t->have_faults, kb);
		json_u64("faults", t->have_faults, r->faults);
		json_u64("major", t->have_major, r->major);
		if (t->have_reclaim)
			printf(",\"reclaim_ms\":%.3f", (double)r->reclaim_ns / 1e6);
		else
			printf(",\"reclaim_ms\":null");
		json_u64("swapins", t->have_swapin, r->swapins);
		printf(",\"oom_kill\":%s", r->events & EV_OOM_KILL ? "true" : "false");
		if (r->events & EV_OOM_KILL)
			printf(",\"trigger_pid\":%d", (int)r->trigger);
		printf(",\"exit\":%s}\n", r->events & EV_EXIT ? "true" : "false");
		return;
	}
	printf("%10.*f", decimals(t->interval_ns), at);
	col_u64(t->have_allocs, 15, r->outstanding);
	col_u64(t->have_faults, 12, kb);
	col_u64(t->have_faults, 8, r->faults);
	col_u64(t->have_major, 7, r->major);
	if (t->have_reclaim)
		printf(" %11.2f", (double)r->reclaim_ns / 1e6);
	else
		printf(" %11s", "-");
	col_u64(t->have_swapin, 8, r->swapins);
	printf("  %s\n", events);
}

static void print_sites(const struct tl *t, struct report *rep, const struct kill *k,
			bool allocs)
{
	const struct stack_site *sites = allocs ? k->allocs : k->faults;
	size_t n = allocs ? k->nallocs : k->nfaults;
	double at = session__elapsed(t->s, k->time);

	if (n > t->top)
		n = t->top;
	for (size_t i = 0; i < n; i++) {
		const struct stack_site *st = &sites[i];

		if (t->json) {
			printf("{\"type\":\"%s\",\"pid\":%d,\"comm\":", allocs ? "alloc_site" :
			       "fault_site", (int)k->victim);
			json__str(stdout, k->comm);
			if (allocs)
				printf(",\"kill_time\":%.9f,\"bytes\":%" PRIu64 ",\"allocations\":%"
				       PRIu64, at, st->leaked, st->leaked_blocks);
			else
				printf(",\"kill_time\":%.9f,\"before\":%.9g,\"faults\":%" PRIu64
				       ",\"touched_kb\":%" PRIu64, at, (double)t->before_ns / 1e9,
				       st->calls, st->bytes / 1024);
			printf(",\"stack\":");
			report__stack_json(rep, k->victim, st->stack);
			printf("}\n");
		} else {
			if (allocs)
				printf("\t%" PRIu64 " bytes in %" PRIu64 " allocations from stack\n",
				       st->leaked, st->leaked_blocks);
			else if (t->fault_error_code || !strcmp(t->fault_event, "page-faults"))
				printf("\t%" PRIu64 " faults (%" PRIu64 " KiB touched) from stack\n",
				       st->calls, st->bytes / 1024);
			else
				printf("\t%" PRIu64 " faults from stack\n", st->calls);
			report__stack(rep, k->victim, st->stack, "\t\t", true);
		}
	}
}

/* Kill @k's precursor rows (oom --timeline's block; in JSON an object of
 * type "precursors"), or a line saying the recording has no samples (in
 * JSON: the object, its rows null). */
static void print_kill_precursors(const struct tl *t, const struct kill *k)
{
	if (!t->json) {
		if (t->have_memstat)
			precursors__text(k->pre, k->npre, k->time, t->pre_secs);
		else
			printf("  Precursors: the recording holds no /proc or cgroup samples "
			       "(faultline:memstat: record -e oom)\n");
		return;
	}
	printf("{\"type\":\"precursors\",\"pid\":%d,\"comm\":", (int)k->victim);
	json__str(stdout, k->comm);
	printf(",\"kill_time\":%.9f,", session__elapsed(t->s, k->time));
	if (t->have_memstat)
		precursors__json(k->pre, k->npre, k->time, t->pre_secs);
	else
		printf("\"before_s\":%g,\"first\":null,\"rows\":null", t->pre_secs);
	printf("}\n");
}

static void print_kill(const struct tl *t, struct report *rep, const struct kill *k)
{
	double at = session__elapsed(t->s, k->time);

	if (!t->json) {
		printf("OOM kill of PID %d (\"%s\") at %.3f s", (int)k->victim, k->comm, at);
		if (k->trigger != k->victim)
			printf(", triggered by PID %d (\"%s\")", (int)k->trigger,
			       session__comm(t->s, k->trigger));
		printf("\n");
		if (!t->have_allocs)
			printf("  Allocation sites: not recorded\n");
		else if (!k->nallocs)
			printf("  No allocation outstanding at the kill\n");
		else
			printf("  Top %zu allocation sites by bytes outstanding at the kill:\n",
			       k->nallocs < t->top ? k->nallocs : (size_t)t->top);
	}
	print_sites(t, rep, k, true);
	if (!t->json) {
		if (!t->fault_stacks)
			printf("  Fault sites: %s\n", t->have_faults ? "no user stacks recorded" :
			       "not recorded");
		else if (!k->nfaults)
			printf("  No faults in the %.9g s before the kill\n",
			       (double)t->before_ns / 1e9);
		else
			printf("  Top %zu fault sites in the %.9g s before the kill:\n",
			       k->nfaults < t->top ? k->nfaults : (size_t)t->top,
			       (double)t->before_ns / 1e9);
	}
	if (t->fault_stacks)
		print_sites(t, rep, k, false);
	print_kill_precursors(t, k);
}

static void print_timeline(struct tl *t)
{
	struct report rep;

	report__init(&rep, t->s, stdout, false);
	report__lost_first(&rep, t->json, false, TOOL,
			   "events were missed: outstanding bytes, faults and the other figures "
			   "below may be off");
	print_missing(t);
	for (size_t i = 0; i < keyed__count(t->procs); i++) {
		const struct proc *p = keyed__at(t->procs, i);

		if (!t->json) {
			printf("PID %d (\"%s\")\n", (int)p->pid, session__comm(t->s, p->pid));
			printf("%10s %15s %12s %8s %7s %11s %8s  %s\n", "TIME(s)", "OUTSTANDING(B)",
			       "TOUCHED(KiB)", "FAULTS", "MAJOR", "RECLAIM(ms)", "SWAPINS", "EVENTS");
		}
		for (size_t j = 0; j < p->n; j++)
			print_row(t, p, &p->rows[j]);
		for (size_t j = 0; j < t->nkills; j++)
			if (t->kills[j].victim == p->pid)
				print_kill(t, &rep, &t->kills[j]);
		if (!t->json)
			printf("\n");
	}
	report__footer(&rep, t->json);
	report__fini(&rep);
}

/* ---- options and main ---- */

static void tl_free(struct tl *t)
{
	for (size_t i = 0; i < t->nkills; i++) {
		free(t->kills[i].allocs);
		free(t->kills[i].faults);
		free(t->kills[i].pre);
	}
	free(t->kills);
	for (size_t i = 0; t->procs && i < keyed__count(t->procs); i++)
		free(((struct proc *)keyed__at(t->procs, i))->rows);
	keyed__free(t->procs);
	free(t->binned);
	free(t->win);
	hashmap__free(t->last_fault);
	major_pair__free(t->majors);
	hashmap__free(t->seen_pages);
	reclaim_pair__free(t->reclaims);
	mem_series__free(t->series);
}

/**
 * report_timeline() - `faultline report -i FILE timeline [OPTIONS]`
 * @ro:   the recording and report's own options (--since, --until, --symfs)
 * @argc: arguments from "timeline" on
 * @argv: those arguments; not retained
 *
 * Replays the recording once and prints every process's timeline.
 * Return: EXIT_OK, EXIT_FAIL (the reason printed), EXIT_USAGE.
 */
static const char *timeline_opt(int c, const char *arg, void *ctx)
{
	struct tl *t = ctx;
	double secs;
	char *end;
	long v;

	switch (c) {
	case 'p':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v <= 0 || v > INT32_MAX)
			return "-p wants a process id, not";
		t->only = (pid_t)v;
		return NULL;
	case 'T':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v <= 0 || v > 1000000)
			return "-T wants a number of sites, not";
		t->top = (unsigned int)v;
		return NULL;
	case OPT_INTERVAL:
		if (tool_opts__parse_secs(arg, &secs) || secs < 1e-6)
			return "--interval wants seconds (at least 0.000001), not";
		t->interval_ns = (uint64_t)(secs * 1e9 + 0.5);
		return NULL;
	case OPT_BEFORE:
		if (tool_opts__parse_secs(arg, &secs))
			return "--before wants seconds, not";
		t->before_ns = (uint64_t)(secs * 1e9 + 0.5);
		return NULL;
	default:	/* OPT_PRECURSORS */
		if (tool_opts__parse_secs(arg, &t->pre_secs) || t->pre_secs > 3600)
			return "--precursors wants seconds (at most 3600), not";
		return NULL;
	}
}

static const struct tool_option timeline_options[] = {
	OPT_CALL('p', "pid", "PID", 'p', "only this process (default: every recorded process)"),
	OPT_CALL(0, "interval", "SECS", OPT_INTERVAL,
		 "length of a row, in recorded time from the start (default 1)"),
	OPT_CALL(0, "before", "SECS", OPT_BEFORE, "an OOM victim's fault sites: those of its faults "
		 "this many seconds before the kill (default 2)"),
	OPT_CALL(0, "precursors", "SECS", OPT_PRECURSORS,
		 "an OOM kill's precursors (PSI, MemAvailable, faults, swap, reclaim per recorded "
		 "second, as oom --timeline): this many seconds before it (default 30)"),
	OPT_CALL('T', "top", "N", 'T', "sites shown per OOM victim, of each kind (default 5)"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per row, per site and per kill's precursors"),
	OPT_END,
};

const struct tool_cmdline timeline_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_REPORT_JSON,
	.options = timeline_options,
	.text = { .usage_name = "report -i FILE timeline", .args = "" },
	.opt = timeline_opt,
	.positional = tool_opts__no_positional,
};

int report_timeline(const struct replay_opts *ro, int argc, char **argv)
{
	struct tl t = { .ro = ro, .top = 5, .interval_ns = 1000000000ULL,
			.before_ns = 2000000000ULL, .pre_secs = 30 };
	struct tool_opts o;
	struct errbuf eb = { "" };
	int err, ret;

	ret = tool_opts__parse_report_cmdline(&o, &timeline_cmdline, &t, argc, argv);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAIL;
	t.json = o.json;
	t.page_size = sysconf(_SC_PAGESIZE);
	if (t.page_size <= 0)
		t.page_size = 4096;
	t.procs = keyed__new(sizeof(struct proc));
	t.last_fault = hashmap__new();
	t.seen_pages = hashmap__new();
	if (!t.procs || !t.last_fault || major_pair__new(&t.majors) || !t.seen_pages ||
	    reclaim_pair__new(&t.reclaims)) {
		err = -ENOMEM;
		goto fail;
	}
	err = report_replay(ro, add_events, &t, &t.s, &eb);
	if (!err && !t.err && t.at)
		t.err = alloc_trace__error(t.at);
	if (err)
		goto fail;
	if (t.err) {
		err = t.err;
		goto fail;
	}
	close_bin(&t);
	/* Kills with no sample a second after them: their rows end at the
	 * recording's last (as oom's). */
	for (size_t i = 0; t.have_memstat && i < t.nkills; i++)
		if (!t.kills[i].pre_done)
			take_precursors(&t, &t.kills[i]);
	if (t.err) {
		err = t.err;
		goto fail;
	}
	if (t.only && !keyed__find(t.procs, (uint64_t)t.only)) {
		fprintf(stderr, "faultline " TOOL ": PID %d has no events in the recording %s\n",
			(int)t.only, ro->path);
		goto out;
	}
	print_timeline(&t);
	fflush(stdout);
	ret = EXIT_OK;
	goto out;
fail:
	ret = tool__fail(TOOL, &eb, err);
out:
	/* The tracer's events call into it: the session goes first. */
	session__free(t.s);
	alloc_trace__free(t.at);
	reclaim_watch__free(t.rw);
	tl_free(&t);
	return ret;
}
