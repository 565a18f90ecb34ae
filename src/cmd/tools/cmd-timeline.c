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
 * This file holds the replay, the rows and the hooks of the sources that
 * fill them, and the options; the OOM kills' sites and precursors are
 * timeline-oom.c's, the text and JSON timeline-print.c's (timeline.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "stack/addrspace.h"
#include "agg/alloc-trace.h"
#include "agg/major-pair.h"
#include "agg/reclaim-pair.h"
#include "agg/reclaim-watch.h"
#include "agg/mem-series.h"
#include "cmd/commands.h"
#include "cmd/tool.h"
#include "trace/tp-catalog.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "trace/session.h"
#include "cmd/tool-opts.h"
#include "cmd/tools/timeline.h"

enum { OPT_INTERVAL = 256, OPT_BEFORE, OPT_PRECURSORS };

/* ---- rows ---- */

static uint64_t bin_of(const struct tl *t, uint64_t time)
{
	double at = session__elapsed(t->s, time);

	return (uint64_t)(at * 1e9) / t->interval_ns;
}

bool tl__wanted(const struct tl *t, pid_t pid)
{
	return pid > 0 && (!t->only || pid == t->only);
}

struct row *tl__row(struct tl *t, pid_t pid)
{
	struct proc *p;
	int created = 0;

	if (!tl__wanted(t, pid))
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
	struct row *r = tl__row(t, (pid_t)smp->pid);
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
	if (!tl__wanted(t, (pid_t)smp->pid) ||
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
	if (!tl__wanted(t, (pid_t)smp->pid))
		return;
	first = !hashmap__get(t->seen_pages, key, &v);
	if (first && hashmap__set(t->seen_pages, key, 1))
		t->err = -ENOMEM;
	count_fault(t, smp, first);
}

static void on_major(struct session *s, const struct sample *smp, void *ctx)
{
	struct tl *t = ctx;
	struct row *r = tl__row(t, (pid_t)smp->pid);
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
	if (tl__wanted(t, (pid_t)smp->pid) &&
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
	r = tl__row(t, (pid_t)smp->pid);
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

/* ---- allocations and tasks ---- */

static void on_alloc_entered(void *ctx, const struct sample *smp, const struct alloc_call *c)
{
	(void)c;
	tl__row(ctx, (pid_t)smp->pid);
}

static void on_alloc_changed(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	(void)r;
	tl__row(ctx, (pid_t)smp->pid);
}

/* A munmap may release a tracked region without a hook of the tracer's:
 * the interval's row shows the change. */
static void on_munmap(struct session *s, const struct sample *smp, void *ctx)
{
	tl__row(ctx, (pid_t)smp->pid);
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
	r = tl__row(t, pid);
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
	err = try_tp(t, "oom", "mark_victim", 0, tl__on_mark_victim, &ev, &t->have_oom, eb);
	if (err)
		return err;
	if (t->have_oom && tp_event__field(ev, "pid", &t->f_victim))
		return errbuf__set(eb, -ENOENT, "the recorded oom:mark_victim has no field 'pid'");
	if (t->have_oom) {
		err = tl__add_precursors(t, eb);
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
			tl__take_precursors(&t, &t.kills[i]);
	if (t.err) {
		err = t.err;
		goto fail;
	}
	if (t.only && !keyed__find(t.procs, (uint64_t)t.only)) {
		fprintf(stderr, "faultline " TOOL ": PID %d has no events in the recording %s\n",
			(int)t.only, ro->path);
		goto out;
	}
	tl__print(&t);
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
