/*
 * timeline-oom: report timeline's OOM kills (timeline.h).  At each
 * oom:mark_victim of a process shown: the kill's row, and, taken then
 * because the tracer's table and the fault window move on afterwards, the
 * victim's allocation sites (its outstanding blocks by allocation stack)
 * and fault sites (its faults of the --before seconds by user stack), each
 * counted in a per-stack table (agg/stack-table.h) and kept sorted, most
 * first.  Then the kill's precursor rows (oom --timeline's: PSI,
 * MemAvailable, faults, swap, reclaim per recorded second), from the
 * recorded samples, taken at the first a second or more after the kill.
 *
 * Calls the aggregators (agg/), the session and cmd-timeline.c's rows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "agg/alloc-trace.h"
#include "agg/mem-series.h"
#include "agg/reclaim-watch.h"
#include "agg/stack-table.h"
#include "features.h"
#include "lib/errbuf.h"
#include "trace/session.h"
#include "trace/tp-catalog.h"
#include "cmd/tools/timeline.h"

/* ---- the victim's sites ---- */

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
void tl__take_precursors(struct tl *t, struct kill *k)
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
			tl__take_precursors(t, &t->kills[i]);
}

/* The recorded samples and reclaim's pairs, as oom --timeline reads them;
 * a recording without samples has no precursors (said at each kill). */
int tl__add_precursors(struct tl *t, struct errbuf *eb)
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

/* ---- the kill ---- */

void tl__on_mark_victim(struct session *s, const struct sample *smp, void *ctx)
{
	struct tl *t = ctx;
	uint64_t victim = 0;
	struct kill *nv;
	struct row *r;

	if (tp_field__u64(&t->f_victim, smp->raw, smp->raw_size, &victim) ||
	    !tl__wanted(t, (pid_t)victim))
		return;
	r = tl__row(t, (pid_t)victim);
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
