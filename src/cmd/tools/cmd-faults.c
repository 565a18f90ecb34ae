/*
 * faultline faults: user page faults counted by user stack and process,
 * split minor/major (stackcount on page faults, faults.bt, perf trace -F).
 *
 * Sources (its ladder, before faults_tool):
 *   tracepoint  exceptions:page_fault_user (address, ip, error code), at
 *               the fault's entry, for the stack and the address; whether
 *               it was major comes from the major-faults software event of
 *               the same thread and page, which the kernel counts after the
 *               fault was handled.
 *   software    the page-faults software event with the fault address
 *               (PERF_SAMPLE_ADDR), and major-faults likewise.
 * Either way a fault is counted once, at its entry; a fault the kernel
 * retries (VM_FAULT_RETRY, e.g. waiting for I/O) enters twice and is
 * counted twice, as perf counts it.
 *
 * --by-alloc: the allocation tracer of leak (alloc-trace.c) runs in the
 * same session, and each fault goes to the allocation that owns its
 * address (fault-attrib.c): the report is by allocation stack, with the
 * faults' kinds (from the tracepoint's error code) and the blocks'
 * classes; faults no allocation owns go to regions of the process maps.
 * The faults' own stacks are not taken there: the allocation's is what
 * the report shows.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/json.h"
#include "lib/numfmt.h"
#include "agg/heap-growth.h"
#include "stack/addrspace.h"
#include "agg/alloc-trace.h"
#include "cmd/tool-shared.h"
#include "trace/tp-catalog.h"
#include "agg/fault-attrib.h"
#include "agg/major-pair.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "faults"

enum { OPT_MINOR = 256, OPT_MAJOR, OPT_BY_ALLOC, OPT_PREFIX, OPT_PROBES, OPT_INTERVAL,
       OPT_INTERVAL_FAULTS };

struct faults_opts {
	bool minor_only, major_only, by_alloc;
	unsigned int top, limit;
	uint64_t interval_ns, interval_faults;	/* --interval, --interval-faults */
	const char *obj, *prefix, *probes;
};

struct fsite {
	pid_t pid;
	uint32_t stack;
	uint64_t faults, major;
};

struct fproc {
	pid_t pid;
	uint64_t faults, major;
};

struct faults_state {
	struct tool_opts *o;
	struct faults_opts fo;
	struct session *s;
	struct tp_field f_addr, f_error;
	bool has_error;
	/* --by-alloc */
	struct alloc_trace *at;
	struct alloc_track *track;	/* the tracer's */
	struct fault_attrib *fa;
	uint64_t tracer_faults;		/* on the uprobes page */
	struct keyed *sites;		/* pid << 32 | stack -> struct fsite */
	struct keyed *procs;		/* pid -> struct fproc */
	/* The last fault of each thread, which a major-faults event of the
	 * same thread and page then marks major; owner: its site key. */
	struct major_pair *majors;
	struct heap_growth *hg;		/* --interval, --interval-faults: faults as counts */
	int err;
};

/* A count >= 1 (at most UINT_MAX), else 0. */
static unsigned long count_of(const char *arg)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || n > UINT_MAX)
		return 0;
	return n;
}

static const char *faults_opt(int c, const char *arg, void *ctx)
{
	struct faults_opts *fo = ctx;

	switch (c) {
	case OPT_MINOR:
		fo->minor_only = true;
		return NULL;
	case OPT_MAJOR:
		fo->major_only = true;
		return NULL;
	case OPT_BY_ALLOC:
		fo->by_alloc = true;
		return NULL;
	case 'O':
		fo->obj = arg;
		return NULL;
	case OPT_PREFIX:
		fo->prefix = arg;
		return NULL;
	case OPT_PROBES:
		fo->probes = arg;
		return NULL;
	case OPT_INTERVAL:
		return tool_opts__parse_secs_ns(arg, &fo->interval_ns) ?
		       "--interval wants seconds (at least 0.000001), not" : NULL;
	case OPT_INTERVAL_FAULTS:
		fo->interval_faults = count_of(arg);
		return fo->interval_faults ? NULL : "--interval-faults wants a number of faults, not";
	case 'n':
		fo->limit = (unsigned int)count_of(arg);
		return fo->limit ? NULL : "-n wants a number of stacks, not";
	case 'T':
		fo->top = (unsigned int)count_of(arg);
		return fo->top ? NULL : "-T wants a number of stacks, not";
	}
	return "unknown option";
}

static uint64_t site_key(pid_t pid, uint32_t stack)
{
	return (uint64_t)(uint32_t)pid << 32 | stack;
}

static void count_fault(struct faults_state *st, struct session *s, const struct sample *smp,
			uint64_t addr)
{
	struct fsite *site;
	struct fproc *p;
	uint32_t stack = 0;
	int created;

	if (session__user_stack(s, smp, &stack)) {
		st->err = -ENOMEM;
		return;
	}
	site = keyed__get(st->sites, site_key((pid_t)smp->pid, stack), &created);
	if (site && created) {
		site->pid = (pid_t)smp->pid;
		site->stack = stack;
	}
	p = keyed__get(st->procs, smp->pid, &created);
	if (p && created)
		p->pid = (pid_t)smp->pid;
	if (!site || !p ||
	    major_pair__fault(st->majors, (pid_t)smp->tid, addr, site_key((pid_t)smp->pid, stack))) {
		st->err = -ENOMEM;
		return;
	}
	site->faults++;
	p->faults++;
	if (st->hg) {
		int err = heap_growth__before(st->hg,
					      (uint64_t)(session__elapsed(s, smp->time) * 1e9), true);

		if (!err)
			err = heap_growth__change(st->hg, (pid_t)smp->pid, stack, 1, true);
		if (err)
			st->err = err;
	}
}

/* --by-alloc: the fault goes to the allocation owning @addr, or waits
 * for the allocator call its thread is in. */
static void attribute(struct faults_state *st, const struct sample *smp, uint64_t addr,
		      enum fault_kind kind)
{
	const struct map *m = addrspaces__find(session__addrspaces(st->s), (pid_t)smp->pid, addr);
	int err;

	/* The first return through the uretprobe trampoline faults its page
	 * in: the tracer's doing, not the program's. */
	if (m && map__uprobes(m)) {
		st->tracer_faults++;
		return;
	}
	err = fault_attrib__fault(st->fa, (pid_t)smp->pid, (pid_t)smp->tid, addr, kind,
				  alloc_track__busy(st->track, (pid_t)smp->tid));
	if (!err)
		err = alloc_trace__error(st->at);
	if (err && !st->err)
		st->err = err;
}

static void on_fault_tp(struct session *s, const struct sample *smp, void *ctx)
{
	struct faults_state *st = ctx;
	uint64_t addr = 0, error_code = 0;

	if (tp_field__u64(&st->f_addr, smp->raw, smp->raw_size, &addr))
		return;
	if (!st->fa) {
		count_fault(st, s, smp, addr);
		return;
	}
	if (st->has_error && !tp_field__u64(&st->f_error, smp->raw, smp->raw_size, &error_code))
		attribute(st, smp, addr, fault_kind__from_error_code(error_code));
	else
		attribute(st, smp, addr, FAULT_UNKNOWN);
}

static void on_fault_sw(struct session *s, const struct sample *smp, void *ctx)
{
	struct faults_state *st = ctx;

	if (st->fa)
		attribute(st, smp, smp->addr, FAULT_UNKNOWN);
	else
		count_fault(st, s, smp, smp->addr);
}

static void on_major(struct session *s, const struct sample *smp, void *ctx)
{
	struct faults_state *st = ctx;
	uint64_t key = 0;
	struct fsite *site;
	struct fproc *p;

	(void)s;
	if (st->fa) {
		fault_attrib__major(st->fa, (pid_t)smp->tid, smp->addr);
		return;
	}
	/* The major fault is the thread's last fault entry, on this page. */
	if (!major_pair__major(st->majors, (pid_t)smp->tid, smp->addr, &key) ||
	    !(site = keyed__find(st->sites, key)))
		return;	/* its entry came before tracing began */
	site->major++;
	p = keyed__find(st->procs, smp->pid);
	if (p)
		p->major++;
}

static uint64_t shown(const struct faults_state *st, uint64_t faults, uint64_t major)
{
	if (st->fo.major_only)
		return major;
	if (st->fo.minor_only)
		return faults - major;
	return faults;
}

static int cmp_site(const void *a, const void *b, void *ctx)
{
	const struct faults_state *st = ctx;
	const struct fsite *x = a, *y = b;
	uint64_t kx = shown(st, x->faults, x->major), ky = shown(st, y->faults, y->major);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/*
 * Over time: each interval's faults, of every traced process and of the
 * top -n stacks of the ranking; then the ranking, by how the faults per
 * interval rose (heap_growth's rule on rates).
 */
static int print_over_time(struct faults_state *st, struct report *r)
{
	struct heap_growth *hg = st->hg;
	struct growth_site *v = NULL;
	const struct growth_interval *last;
	size_t n = 0, K, ranked, top;
	uint64_t *series = NULL;
	int err;

	/* Intervals up to the run's end, on the clock of the events'. */
	err = heap_growth__end(hg, (uint64_t)(session__elapsed(st->s, session__now(st->s)) * 1e9));
	if (err)
		return err;
	K = heap_growth__intervals(hg);
	/* The interval the run ended in is cut short: its rate is no rate. */
	last = heap_growth__interval(hg, K - 1);
	ranked = K;
	if (K > 1 && (st->fo.interval_faults ?
		      last->calls - heap_growth__interval(hg, K - 2)->calls < st->fo.interval_faults :
		      last->end_time % st->fo.interval_ns != 0))
		ranked = K - 1;
	err = heap_growth__rank_rate(hg, ranked, &v, &n);
	if (err)
		return err;
	top = n < st->fo.limit ? n : st->fo.limit;
	series = calloc(top * K + 1, sizeof(*series));
	if (!series) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < top; i++)
		heap_growth__series(hg, &v[i], series + i * K);
	if (!st->o->json) {
		printf("FAULTS OVER TIME\n");
		if (st->fo.interval_faults)
			printf("page faults in each interval of %" PRIu64 " faults", st->fo.interval_faults);
		else
			printf("page faults in each interval of %.9gs", (double)st->fo.interval_ns / 1e9);
		printf(": of all traced processes%s\n", report__ranked(top));
		printf("%8s %12s %10s", "INTERVAL", "END(s)", "FAULTS");
		for (size_t i = 0; i < top; i++) {
			char col[16];

			snprintf(col, sizeof(col), "#%zu", i + 1);
			printf(" %8s", col);
		}
		printf("\n");
	}
	for (size_t k = 0; k < K; k++) {
		const struct growth_interval *iv = heap_growth__interval(hg, k);
		uint64_t before = k ? heap_growth__interval(hg, k - 1)->calls : 0;

		if (st->o->json)
			printf("{\"type\":\"faults_interval\",\"index\":%zu,\"end_s\":%.9f,\"faults\":%"
			       PRIu64 ",\"ranked\":%s,\"stacks\":[", k, (double)iv->end_time / 1e9,
			       iv->calls - before, k < ranked ? "true" : "false");
		else
			printf("%8zu %12.6f %10" PRIu64, k + 1, (double)iv->end_time / 1e9,
			       iv->calls - before);
		for (size_t i = 0; i < top; i++) {
			uint64_t d = series[i * K + k] - (k ? series[i * K + k - 1] : 0);

			if (st->o->json)
				printf("%s%" PRIu64, i ? "," : "", d);
			else
				printf(" %8" PRIu64, d);
		}
		printf("%s\n", st->o->json ? "]}" : "");
	}
	if (!st->o->json && ranked > 1)
		printf("\nRISING STACKS (by the faults per interval, over intervals 1..%zu)\n", ranked);
	else if (!st->o->json)
		printf("\nRISING STACKS (by the faults per interval, over interval 1)\n");
	for (size_t i = 0; i < top; i++) {
		const struct growth_site *g = &v[i];
		const char *comm = session__stack_comm(st->s, g->pid, g->stack);
		char b[2][NUMFMT_LEN];

		if (st->o->json) {
			printf("{\"type\":\"faults_rise\",\"rank\":%zu,\"rising\":%s,\"rise\":%" PRId64
			       ",\"first\":%" PRIu64 ",\"last\":%" PRIu64 ",\"highest\":%" PRIu64
			       ",\"highest_interval\":%zu,\"rises\":%u,\"falls\":%u,\"intervals\":%zu"
			       ",\"faults\":%" PRIu64 ",\"pid\":%d,\"comm\":",
			       i + 1, g->growing ? "true" : "false", g->growth, g->first, g->last,
			       g->highest, g->highest_at, g->rises, g->falls, ranked, g->calls,
			       (int)g->pid);
			json__str(stdout, comm);
			printf(",\"stack\":");
			report__stack_json(r, g->pid, g->stack);
			printf("}\n");
			continue;
		}
		printf("#%zu %s: %s faults per interval over %zu intervals (rose in %u, "
		       "fell in %u)\n", i + 1, g->growing ? "rising" : "not rising",
		       numfmt__scount(b[0], NUMFMT_LEN, g->growth), ranked, g->rises, g->falls);
		printf("    first, last: %s, %s\n", numfmt__count(b[0], NUMFMT_LEN, g->first),
		       numfmt__count(b[1], NUMFMT_LEN, g->last));
		printf("    most:        %s in interval %zu\n",
		       numfmt__count(b[0], NUMFMT_LEN, g->highest), g->highest_at + 1);
		printf("    faults:      %s in all, %s [%d], from\n",
		       numfmt__count(b[0], NUMFMT_LEN, g->calls), comm, (int)g->pid);
		report__stack(r, g->pid, g->stack, "  ", false);
	}
	if (!st->o->json)
		printf("\n");
	free(series);
	free(v);
	return 0;
}

/* @snapshot: the report as it stands, without the over-time part (it
 * ends the intervals). */
static void print_report(struct session *s, struct faults_state *st, bool snapshot)
{
	struct report r;
	size_t first, n_sites;

	report__init(&r, s, stdout, st->o->srcline);
	keyed__sort(st->sites, cmp_site, st);
	report__lost_first(&r, st->o->json, st->o->folded, TOOL,
			   "page faults were missed: the counts below are low");
	n_sites = keyed__count(st->sites);
	first = st->fo.top && n_sites > st->fo.top ? n_sites - st->fo.top : 0;
	if (st->hg && !snapshot) {
		int err = print_over_time(st, &r);

		if (err) {
			fprintf(stderr, "faultline " TOOL ": out of memory\n");
			if (!st->err)
				st->err = err;
		}
		first = n_sites;
	}
	for (size_t i = first; i < n_sites; i++) {
		const struct fsite *site = keyed__at(st->sites, i);
		const char *comm = session__stack_comm(s, site->pid, site->stack);
		uint64_t n = shown(st, site->faults, site->major);

		if (!n)
			continue;
		if (st->o->folded) {
			report__folded(&r, site->pid, comm, site->stack, n);
		} else if (st->o->json) {
			printf("{\"type\":\"stack\",\"pid\":%d,\"comm\":", (int)site->pid);
			json__str(stdout, comm);
			printf(",\"faults\":%" PRIu64 ",\"minor\":%" PRIu64 ",\"major\":%" PRIu64
			       ",\"stack\":", n, site->faults - site->major, site->major);
			report__stack_json(&r, site->pid, site->stack);
			printf("}\n");
		} else {
			report__stack(&r, site->pid, site->stack, "  ", false);
			printf("    %s [%d]\n", comm, (int)site->pid);
			printf("    %" PRIu64 " (minor %" PRIu64 ", major %" PRIu64 ")\n\n", n,
			       site->faults - site->major, site->major);
		}
	}
	if (!st->o->folded) {
		if (!st->o->json)
			printf("%-7s %-16s %10s %10s %10s\n", "PID", "COMM", "FAULTS", "MINOR", "MAJOR");
		for (size_t i = 0; i < keyed__count(st->procs); i++) {
			const struct fproc *p = keyed__at(st->procs, i);

			if (st->o->json) {
				printf("{\"type\":\"process\",\"pid\":%d,\"comm\":", (int)p->pid);
				json__str(stdout, session__comm(s, p->pid));
				printf(",\"faults\":%" PRIu64 ",\"minor\":%" PRIu64 ",\"major\":%" PRIu64
				       "}\n", p->faults, p->faults - p->major, p->major);
			} else {
				printf("%-7d %-16s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
				       (int)p->pid, session__comm(s, p->pid), p->faults,
				       p->faults - p->major, p->major);
			}
		}
		report__footer(&r, st->o->json);
	}
	report__fini(&r);
}

/* ---- --by-alloc ---- */

static void on_made(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	struct faults_state *st = ctx;

	(void)smp;
	if (fault_attrib__made(st->fa, r) && !st->err)
		st->err = -ENOMEM;
}

static void on_returned(void *ctx, const struct sample *smp, const struct alloc_rec *made)
{
	struct faults_state *st = ctx;

	if (fault_attrib__returned(st->fa, (pid_t)smp->pid, (pid_t)smp->tid, made) && !st->err)
		st->err = -ENOMEM;
}

static void on_thread_gone(void *ctx, pid_t pid, pid_t tid)
{
	struct faults_state *st = ctx;

	if (fault_attrib__thread_exit(st->fa, pid, tid) && !st->err)
		st->err = -ENOMEM;
}

/* How far below the known [stack] mapping a fault still is the stack's:
 * the kernel grows it on the fault itself, and no mmap record says so
 * (8 MiB is the default RLIMIT_STACK). */
#define STACK_GROWTH (8ULL << 20)

static bool below_stack(const struct addrspaces *as, pid_t pid, uint64_t addr)
{
	size_t n = 0;
	const struct map *maps = addrspaces__maps(as, pid, &n);

	for (size_t i = 0; i < n; i++) {
		if (maps[i].path && !strcmp(maps[i].path, "[stack]") && addr < maps[i].start &&
		    maps[i].start - addr <= STACK_GROWTH)
			return true;
	}
	return false;
}

/* An address no allocation owns, placed by the process maps. */
static void place(void *ctx, pid_t pid, uint64_t addr, enum fault_region *region,
		  const char **path)
{
	struct faults_state *st = ctx;
	const struct addrspaces *as = session__addrspaces(st->s);
	const struct map *m = addrspaces__find(as, pid, addr);

	*path = NULL;
	if (!m)
		*region = below_stack(as, pid, addr) ? REGION_STACK : REGION_OTHER;
	else if (map__anonymous(m))
		*region = REGION_ANON;
	else if (!strcmp(m->path, "[stack]"))
		*region = REGION_STACK;
	else if (!strcmp(m->path, "[heap]"))
		*region = REGION_HEAP;
	else if (m->path[0] == '[')
		*region = REGION_OTHER;	/* [vdso], [vvar], [vsyscall] */
	else {
		*region = REGION_FILE;
		*path = m->path;
	}
}

/* Sites before regions; within each, ascending by the faults shown (the
 * largest last, nearest the prompt, as stackcount prints). */
static int cmp_owner(const void *a, const void *b, void *ctx)
{
	const struct faults_state *st = ctx;
	const struct fault_owner *x = a, *y = b;
	uint64_t kx = shown(st, x->faults, x->major), ky = shown(st, y->faults, y->major);

	if (x->is_site != y->is_site)
		return x->is_site ? -1 : 1;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->is_site)
		return x->stack < y->stack ? -1 : x->stack > y->stack;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	return strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

static void json_counts(const struct faults_state *st, const struct fault_owner *w)
{
	printf(",\"faults\":%" PRIu64 ",\"minor\":%" PRIu64 ",\"major\":%" PRIu64
	       ",\"pages\":%" PRIu64, shown(st, w->faults, w->major), w->faults - w->major,
	       w->major, w->pages);
	if (st->has_error)
		printf(",\"first_touch\":%" PRIu64 ",\"cow\":%" PRIu64 ",\"protection\":%" PRIu64,
		       w->first_touch, w->cow, w->prot);
}

static void print_site(struct faults_state *st, struct report *r, const struct fault_owner *w)
{
	const char *comm = session__stack_comm(st->s, w->pid, w->stack);
	uint64_t n = shown(st, w->faults, w->major);
	char classes[64], b[4][NUMFMT_LEN];

	alloc_class__format(w->classes, classes, sizeof(classes));
	if (st->o->folded) {
		report__folded(r, w->pid, comm, w->stack, n);
	} else if (st->o->json) {
		printf("{\"type\":\"site\",\"pid\":%d,\"comm\":", (int)w->pid);
		json__str(stdout, comm);
		printf(",\"class\":\"%s\",\"allocations\":%" PRIu64 ",\"bytes\":%" PRIu64, classes,
		       w->allocs, w->bytes);
		json_counts(st, w);
		printf(",\"in_allocator\":%" PRIu64 ",\"stack\":", w->in_allocator);
		report__stack_json(r, w->pid, w->stack);
		printf("}\n");
	} else {
		report__stack(r, w->pid, w->stack, "  ", false);
		printf("    %s [%d]  %s", comm, (int)w->pid, classes);
		if (w->allocs)
			printf(", %s allocation%s, %s", numfmt__count(b[0], NUMFMT_LEN, w->allocs),
			       w->allocs == 1 ? "" : "s",
			       numfmt__bytes(b[1], NUMFMT_LEN, w->bytes));
		else
			printf(", made in the parent before fork");
		printf("\n    %s faults, %s pages (minor %s, major %s",
		       numfmt__count(b[0], NUMFMT_LEN, n),
		       numfmt__count(b[1], NUMFMT_LEN, w->pages),
		       numfmt__count(b[2], NUMFMT_LEN, w->faults - w->major),
		       numfmt__count(b[3], NUMFMT_LEN, w->major));
		if (st->has_error)
			printf("; first touch %s, copy-on-write %s",
			       numfmt__count(b[0], NUMFMT_LEN, w->first_touch),
			       numfmt__count(b[1], NUMFMT_LEN, w->cow));
		if (w->prot)
			printf(", protection %s", numfmt__count(b[0], NUMFMT_LEN, w->prot));
		printf("; %s inside the allocator)\n\n",
		       numfmt__count(b[0], NUMFMT_LEN, w->in_allocator));
	}
}

static void print_region(struct faults_state *st, const struct fault_owner *w)
{
	const char *comm = session__comm(st->s, w->pid);

	if (st->o->json) {
		printf("{\"type\":\"region\",\"pid\":%d,\"comm\":", (int)w->pid);
		json__str(stdout, comm);
		printf(",\"region\":\"%s\",\"path\":", fault_region__name(w->region));
		if (w->path)
			json__str(stdout, w->path);
		else
			printf("null");
		json_counts(st, w);
		printf("}\n");
	} else {
		printf("%-7d %-16s %-6s %8" PRIu64 " %7" PRIu64 " %7" PRIu64, (int)w->pid, comm,
		       fault_region__name(w->region), shown(st, w->faults, w->major), w->pages,
		       w->major);
		if (st->has_error)
			printf(" %7" PRIu64 " %7" PRIu64, w->first_touch, w->cow);
		else
			printf(" %7s %7s", "-", "-");
		printf(" %s\n", w->path ? w->path : "");
	}
}

static void print_by_alloc(struct session *s, void *ctx)
{
	struct faults_state *st = ctx;
	struct fault_totals t;
	struct report r;
	size_t n, nsites = 0, first;
	bool header = false;
	char b[4][NUMFMT_LEN];

	report__init(&r, s, stdout, st->o->srcline);
	fault_attrib__totals(st->fa, &t);
	report__lost_first(&r, st->o->json, st->o->folded, TOOL,
			   "faults, allocations or frees were missed: the counts below are low, "
			   "and some faults may be given to the wrong allocation or to none");
	fault_attrib__sort(st->fa, cmp_owner, st);
	n = fault_attrib__count(st->fa);
	while (nsites < n && fault_attrib__at(st->fa, nsites)->is_site)
		nsites++;
	first = st->fo.top && nsites > st->fo.top ? nsites - st->fo.top : 0;
	for (size_t i = first; i < nsites; i++) {
		const struct fault_owner *w = fault_attrib__at(st->fa, i);

		if (shown(st, w->faults, w->major))
			print_site(st, &r, w);
	}
	if (st->o->folded)
		goto out;
	for (size_t i = nsites; i < n; i++) {
		const struct fault_owner *w = fault_attrib__at(st->fa, i);

		if (!shown(st, w->faults, w->major))
			continue;
		if (!st->o->json && !header) {
			printf("Faults outside tracked allocations, by region:\n");
			printf("%-7s %-16s %-6s %8s %7s %7s %7s %7s %s\n", "PID", "COMM", "REGION",
			       "FAULTS", "PAGES", "MAJOR", "FIRST", "COW", "PATH");
			header = true;
		}
		print_region(st, w);
	}
	if (st->o->json)
		printf("{\"type\":\"by_alloc_summary\",\"faults\":%" PRIu64 ",\"to_allocations\":%"
		       PRIu64 ",\"in_allocator\":%" PRIu64 ",\"to_regions\":%" PRIu64
		       ",\"waiting\":%" PRIu64 ",\"tracer\":%" PRIu64 ",\"fault_kinds\":%s}\n",
		       t.faults, t.to_allocations, t.in_allocator, t.to_regions, t.waiting,
		       st->tracer_faults, st->has_error ? "true" : "false");
	else
		printf("%s%s faults: %s in allocations (%s inside the allocator), %s in regions of "
		       "the maps%s\n", header ? "\n" : "",
		       numfmt__count(b[0], NUMFMT_LEN, t.faults),
		       numfmt__count(b[1], NUMFMT_LEN, t.to_allocations),
		       numfmt__count(b[2], NUMFMT_LEN, t.in_allocator),
		       numfmt__count(b[3], NUMFMT_LEN, t.to_regions),
		       st->has_error ? "" : "; no fault kinds (the software event has no error code)");
	if (t.waiting && !st->o->json)
		printf("%s faults inside allocator calls that had not returned at the end\n",
		       numfmt__count(b[0], NUMFMT_LEN, t.waiting));
	if (st->tracer_faults && !st->o->json)
		printf("%" PRIu64 " fault%s on the uprobes page (the tracer's own) not counted\n",
		       st->tracer_faults, st->tracer_faults == 1 ? "" : "s");
	report__footer(&r, st->o->json);
out:
	report__fini(&r);
}

/* Another allocator, dlopen'ed: said when it happens. */
static void on_late(void *ctx, const char *what, const char *roles, int err, const char *msg)
{
	(void)ctx;
	tool__alloc_late(TOOL, what, roles, err, msg);
}

static int add_events(void *ctx, struct session *s, const char *rung, const char *label,
		      struct errbuf *eb)
{
	struct faults_state *st = ctx;
	/* By allocation, the allocation's stack is what counts. */
	unsigned int stack = st->fo.by_alloc ? 0 : SESSION_USER_STACK;
	struct tp_event *ev = NULL;
	int err;

	(void)label;
	st->s = s;
	if (st->fo.by_alloc) {
		err = alloc_trace__new(s, &(struct alloc_trace_opts){
						.obj = st->fo.obj, .prefix = st->fo.prefix,
						.probes = st->fo.probes, .inherit = true, .index = true },
				       &(struct alloc_trace_hooks){ .made = on_made,
								    .returned = on_returned,
								    .thread_exit = on_thread_gone,
								    .late = on_late, .ctx = st },
				       &st->at, eb);
		if (err)
			return err;
		st->track = alloc_trace__track(st->at);
		tool__alloc_notes(TOOL, st->at);
		err = fault_attrib__new(st->track, place, st, &st->fa);
		if (err)
			return errbuf__set(eb, err, "out of memory");
	}
	if (ladder__is(rung, "tracepoint")) {
		err = session__add_tracepoint(s, "exceptions", "page_fault_user", stack, on_fault_tp,
					      st, &ev, eb);
		if (!err && tp_event__field(ev, "address", &st->f_addr))
			err = errbuf__set(eb, -ENOENT, "exceptions:page_fault_user lacks 'address'");
		st->has_error = !err && !tp_event__field(ev, "error_code", &st->f_error);
	} else {
		err = session__add_software(s, "page-faults", PERF_COUNT_SW_PAGE_FAULTS,
					    stack | SESSION_SAMPLE_ADDR, on_fault_sw, st, eb);
	}
	if (!err)
		err = session__add_software(s, "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ,
					    SESSION_SAMPLE_ADDR, on_major, st, eb);
	return err;
}

static const struct tool_option faults_options[] = {
	OPT_CALL(0, "minor", NULL, OPT_MINOR, "count minor faults only (no I/O)"),
	OPT_CALL(0, "major", NULL, OPT_MAJOR, "count major faults only (read from a file or swap)"),
	OPT_CALL('T', NULL, "N", 'T', "show the N stacks with the most faults (default: all)"),
	OPT_SHARED(TOOL_SHARED_FOLDED, "FlameGraph folded stacks weighted by faults"),
	OPT_CALL(0, "by-alloc", NULL, OPT_BY_ALLOC,
		 "attribute each fault to the allocation owning its address (a malloc-family block, "
		 "an mmap or brk region of the program's): report allocation sites, with fault kinds "
		 "and block classes, and the regions of the maps that own the rest (-p or -c)"),
	OPT_CALL('O', "obj", "LIB", 'O', "--by-alloc: the allocator library, as for faultline leak"),
	OPT_CALL(0, "symbols-prefix", "P", OPT_PREFIX,
		 "--by-alloc: its symbols' prefix, as for faultline leak"),
	OPT_CALL(0, "probes", "SPEC", OPT_PROBES, "--by-alloc: its probe spec, as for faultline leak"),
	OPT_CALL(0, "interval", "SECS", OPT_INTERVAL,
		 "faults over time instead of the stacks: per interval of SECS from the start, the "
		 "faults of all traced processes and of the -n top stacks in it; then the stacks "
		 "ranked by how their fault rate rose (rising: more faults in its last ranked interval "
		 "than in its first, more than the interval before in 2+ intervals and twice as often "
		 "as fewer, and first reached its most in the last quarter; the last interval is not "
		 "ranked when the run ended in it: always by time, by faults when it holds fewer "
		 "than N)"),
	OPT_CALL(0, "interval-faults", "N", OPT_INTERVAL_FAULTS,
		 "the same, an interval every N faults (it ends just before the fault that starts "
		 "the next)"),
	OPT_CALL('n', NULL, "N", 'n', "stacks shown over time (default 10)"),
	OPT_END,
};

static const struct tool_cmdline faults_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_FOLDED | TOOL_OPT_SNAPSHOT,
	.options = faults_options,
	.opt = faults_opt,
};

static int faults_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
		       char **argv)
{
	struct faults_state *st = ctx;
	int ret;

	ret = tool_opts__parse_cmdline(o, mode, &faults_cmdline, &st->fo, argc, argv);
	if (ret)
		return ret;
	st->o = o;
	if (st->fo.minor_only && st->fo.major_only) {
		fprintf(stderr, "faultline " TOOL ": choose --minor or --major, not both\n");
		return -EINVAL;
	}
	if (st->fo.by_alloc && !o->sess.pid && !o->sess.cmd) {
		fprintf(stderr, "faultline " TOOL ": --by-alloc traces one process's allocator: give "
			"-p PID or -c CMD\n");
		return -EINVAL;
	}
	if (!st->fo.by_alloc && (st->fo.obj || st->fo.prefix || st->fo.probes)) {
		fprintf(stderr, "faultline " TOOL ": -O, --symbols-prefix and --probes go with "
			"--by-alloc\n");
		return -EINVAL;
	}
	if (st->fo.interval_ns && st->fo.interval_faults) {
		fprintf(stderr, "faultline " TOOL ": --interval or --interval-faults, not both\n");
		return -EINVAL;
	}
	if ((st->fo.interval_ns || st->fo.interval_faults) &&
	    (st->fo.by_alloc || st->fo.minor_only || st->fo.major_only || o->folded)) {
		fprintf(stderr, "faultline " TOOL ": --interval and --interval-faults count every "
			"fault by its stack: not with --by-alloc, --minor, --major or --folded\n");
		return -EINVAL;
	}
	if (st->fo.limit && !st->fo.interval_ns && !st->fo.interval_faults) {
		fprintf(stderr, "faultline " TOOL ": -n goes with --interval or --interval-faults\n");
		return -EINVAL;
	}
	if (!st->fo.limit)
		st->fo.limit = 10;
	if (st->fo.interval_ns || st->fo.interval_faults) {
		if (heap_growth__new(&st->hg))
			return -ENOMEM;
		heap_growth__cut(st->hg, st->fo.interval_ns, st->fo.interval_faults);
	}
	st->sites = keyed__new(sizeof(struct fsite));
	st->procs = keyed__new(sizeof(struct fproc));
	if (!st->sites || !st->procs)
		return -ENOMEM;
	return major_pair__new(&st->majors);
}

int faults__folded(void *ctx, struct session *s, bool major, FILE *out)
{
	struct faults_state *st = ctx;
	struct report r;

	report__init(&r, s, out, st->o->srcline);
	/* In the report's order, fewest faults first: the graph keeps the
	 * order in which its frames first came. */
	keyed__sort(st->sites, cmp_site, st);
	for (size_t i = 0; i < keyed__count(st->sites); i++) {
		const struct fsite *site = keyed__at(st->sites, i);
		uint64_t n = major ? site->major : site->faults;

		if (n)
			report__folded(&r, site->pid, session__comm(s, site->pid), site->stack, n);
	}
	report__fini(&r);
	return st->err ? st->err : ferror(out) ? -EIO : 0;
}

static int report(struct faults_state *st, struct session *s, bool snapshot)
{
	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	if (st->fo.by_alloc)
		print_by_alloc(s, st);
	else
		print_report(s, st, snapshot);
	return EXIT_OK;
}

static int faults_report(void *ctx, struct session *s)
{
	return report(ctx, s, false);
}

static int faults_snapshot(void *ctx, struct session *s)
{
	return report(ctx, s, true);
}

static void faults_headline(const void *ctx, char *buf, size_t n);

static void faults_fini(void *ctx)
{
	struct faults_state *st = ctx;

	fault_attrib__free(st->fa);
	alloc_trace__free(st->at);
	keyed__free(st->sites);
	keyed__free(st->procs);
	major_pair__free(st->majors);
	heap_growth__free(st->hg);
}

/* faults: the tracepoint (3.13+, x86) gives address, ip and error code at
 * the fault's entry; the software event gives the address alone.  Both
 * learn major faults from the major-faults software event. */
static const char *const faults_tracepoint_needs[] = {
	"tp:exceptions:page_fault_user", "feat:perf_events", NULL
};
static const char *const faults_software_needs[] = { "feat:perf_events", NULL };

static const struct rung faults_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint exceptions:page_fault_user + software major-faults",
	  .needs = faults_tracepoint_needs, .loses = "" },
	{ .key = "software", .label = "software events page-faults and major-faults, with addresses",
	  .needs = faults_software_needs, .loses = "no error code: write/protection faults not told apart" },
};

const struct ladder faults_ladder = LADDER("faults", faults_rungs);

const struct tool faults_tool = {
	.cmdline = &faults_cmdline,
	.name = TOOL,
	.ladder = &faults_ladder,
	.what = "page faults",
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS,
	.size = sizeof(struct faults_state),
	.init = faults_init,
	.add_events = add_events,
	.headline = faults_headline,
	.report = faults_report,
	.snapshot = faults_snapshot,
	.fini = faults_fini,
};

/* ---- the status line's headline ---- */

/* The faults counted so far, as the report's process table sums them;
 * --by-alloc: those attributed, and how many to allocations. */
static void faults_headline(const void *ctx, char *buf, size_t n)
{
	const struct faults_state *st = ctx;
	uint64_t faults = 0, major = 0;
	struct fault_totals t;
	char b[2][NUMFMT_LEN];

	if (st->fa) {
		fault_attrib__totals(st->fa, &t);
		snprintf(buf, n, "%s faults, %s in allocations", numfmt__count(b[0], NUMFMT_LEN, t.faults),
			 numfmt__count(b[1], NUMFMT_LEN, t.to_allocations));
		return;
	}
	for (size_t i = 0; st->procs && i < keyed__count(st->procs); i++) {
		const struct fproc *p = keyed__at(st->procs, i);

		faults += p->faults;
		major += p->major;
	}
	snprintf(buf, n, "%s faults, %s major", numfmt__count(b[0], NUMFMT_LEN, faults),
		 numfmt__count(b[1], NUMFMT_LEN, major));
}
