/*
 * faultline leak: outstanding allocations by stack, as BCC's memleak
 * prints them, without BPF.
 *
 * User mode (-p PID, -c CMD): the allocator's functions and the program's
 * own mmap/brk; kernel mode (-k, or neither -p nor -c): the kmem
 * tracepoints.  The tracer is alloc-trace.c, shared with faults
 * --by-alloc; this file holds the options and memleak's report.
 *
 * --live: instead of the periodic reports, a top-like screen of the stacks
 * holding the most (cmd/out/live-top.h), redrawn every interval; the
 * report when it ends.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/every.h"
#include "lib/errbuf.h"
#include "lib/json.h"
#include "lib/numfmt.h"
#include "agg/alloc-sample.h"
#include "agg/alloc-trace.h"
#include "cmd/out/heap-flame.h"
#include "cmd/out/live-top.h"
#include "agg/heap-profile.h"
#include "agg/stack-table.h"
#include "cmd/tool-shared.h"
#include "cmd/out/report.h"
#include "cmd/out/summary.h"
#include "trace/session.h"
#include "cmd/tool.h"

#define TOOL "leak"

enum { OPT_PROBES = 256, OPT_SORT, OPT_FLAMEGRAPH, OPT_STACK_STORAGE, OPT_MAX_STACK_DEPTH,
       OPT_LIVE };

struct leak_opts {
	bool kernel, trace, show_allocs, percpu, sort_count;
	bool live;			/* --live */
	uint64_t older_ms;
	uint64_t sample_rate;
	unsigned int top;
	uint64_t min_size, max_size;
	const char *obj, *prefix, *probes;
	const char *flamegraph;		/* --flamegraph FILE */
	struct tool_interval every;	/* reports: every.secs apart, every.count of them */
};

struct leak {
	struct tool_opts *o;
	struct leak_opts lo;
	struct session *s;
	struct alloc_trace *at;
	struct alloc_track *track;	/* the tracer's */
	/* by (pid, stack): the blocks and regions made (calls, kept ones
	 * weighted under -s); at a report, what each holds */
	struct stack_table *stacks;
	struct heap_profile *hp;	/* --flamegraph: heap's counts */
	struct every every;		/* the reports of lo.every */
	struct live_top *view;		/* --live: the screen, until the report */
	bool final_all;			/* the report after a -c command's exit */
	int err;
};

/* ---- options ---- */

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && !*end && s[0] != '-';
}

static const char *leak_opt(int c, const char *arg, void *ctx)
{
	struct leak_opts *lo = ctx;
	uint64_t v;

	switch (c) {
	case 'o':
		if (!parse_u64(arg, &lo->older_ms))
			return "-o wants milliseconds, not";
		return NULL;
	case 's':
		if (!parse_u64(arg, &v) || !v || v > ALLOC_SAMPLE_MAX)
			return "-s wants a sample rate from 1 to 1048576, not";
		lo->sample_rate = v;
		return NULL;
	case 'T':
		if (!parse_u64(arg, &v) || !v || v > INT_MAX)
			return "-T wants a number of stacks, not";
		lo->top = (unsigned int)v;
		return NULL;
	case 'z':
		if (!parse_u64(arg, &lo->min_size))
			return "-z wants a size in bytes, not";
		return NULL;
	case 'Z':
		if (!parse_u64(arg, &lo->max_size))
			return "-Z wants a size in bytes, not";
		return NULL;
	case 'O':
		lo->obj = arg;
		return NULL;
	case 'S':	/* libbpf-tools memleak's letter */
		lo->prefix = arg;
		return NULL;
	case OPT_PROBES:
		lo->probes = arg;
		return NULL;
	case OPT_SORT:
		if (!strcmp(arg, "size"))
			lo->sort_count = false;
		else if (!strcmp(arg, "count"))
			lo->sort_count = true;
		else
			return "--sort is size or count, not";
		return NULL;
	case 'C':
		return NULL;
	case OPT_FLAMEGRAPH:
		lo->flamegraph = arg;
		return NULL;
	case OPT_LIVE:
		lo->live = true;
		return NULL;
	/* memleak's workaround for a free its probes missed (the address
	 * allocated again while still in its table: the old block is taken
	 * as freed) is what faultline always does, counting each ("reused
	 * addresses whose free was missed" in the totals). */
	case 'F':
		return NULL;
	/* libbpf-tools memleak's BPF-side sizes: nothing here to size. */
	case OPT_STACK_STORAGE:
		return "--stack-storage-size sizes a BPF stack map; faultline has none (it keeps "
		       "every stack, none is lost to a full map): refused";
	case OPT_MAX_STACK_DEPTH:
		return "--perf-max-stack-depth bounds a BPF stack walk; faultline's stacks are "
		       "unwound whole (--call-graph dwarf,SIZE bounds the stack copied): refused";
	case 'v':
		return "-v prints libbpf's debug output; faultline loads no BPF program: refused";
	}
	return "unknown option";
}

static const char *leak_positional(int argc, char **argv, const char **arg, void *ctx)
{
	struct leak_opts *lo = ctx;

	return tool_opts__parse_interval(&lo->every, argc, argv, arg);
}

static const struct tool_option leak_options[] = {
	OPT_SHARED(TOOL_SHARED_PID, "trace the allocations of this process"),
	OPT_SHARED(TOOL_SHARED_CMD, "run CMD and trace it; when it exits, print what it still had "
		   "allocated and exit with CMD's status"),
	OPT_BOOLEAN('k', "kernel", struct leak_opts, kernel,
		    "kernel allocations (kmalloc, kmem_cache, pages): the default without -p and "
		    "-c; with -p/-c, those made by that process"),
	OPT_BOOLEAN('t', "trace", struct leak_opts, trace,
		    "print every allocation and free as it happens"),
	OPT_BOOLEAN('a', "show-allocs", struct leak_opts, show_allocs,
		    "list each outstanding allocation (address and size)"),
	OPT_CALL(0, "live", NULL, OPT_LIVE,
		 "a top-like screen instead of the periodic reports: the stacks holding the most "
		 "bytes, redrawn every interval (default 1 s); keys o g i b sort, arrows or j/k "
		 "scroll, q quits; then the report (needs a terminal)"),
	OPT_CALL('o', "older", "MS", 'o',
		 "only allocations older than MS milliseconds (default 500) in periodic reports; "
		 "the report after a -c command exits shows all"),
	OPT_CALL('s', "sample-rate", "N", 's',
		 "track every block of 1024 bytes or more and one smaller block in N (chosen by "
		 "address, so frees match); figures are estimates, each small block counted N times"),
	OPT_CALL('T', "top", "N", 'T',
		 "show the N stacks with the most outstanding bytes (default 10)"),
	OPT_CALL('z', "min-size", "B", 'z', "only allocations of at least B bytes"),
	OPT_CALL('Z', "max-size", "B", 'Z', "only allocations of at most B bytes"),
	OPT_CALL('O', "obj", "LIB",
		 'O', "the allocator's library (default: the object the program's malloc calls, "
		 "found in the executable, LD_PRELOAD or its libraries; a jemalloc or tcmalloc "
		 "library selects its probe spec)"),
	OPT_CALL('S', "symbols-prefix", "P", 'S',
		 "prefix of the allocator's symbols (je_ for some jemalloc builds)"),
	OPT_CALL(0, "probes", "SPEC", OPT_PROBES, "probe spec to use: a name in probes/ or a file"),
	OPT_CALL(0, "sort", "size|count", OPT_SORT, "order of stacks (default size)"),
	OPT_BOOLEAN('P', "percpu", struct leak_opts, percpu, "kernel mode: per-CPU allocations too"),
	OPT_CALL('C', "combined-only", NULL, 'C',
		 "accepted for memleak compatibility (faultline always combines)"),
	OPT_CALL('F', "wa-missing-free", NULL, 'F',
		 "accepted for memleak compatibility: an address allocated again before its free "
		 "was seen is always taken as freed, and counted"),
	OPT_CALL(0, "stack-storage-size", "N", OPT_STACK_STORAGE,
		 "memleak's BPF stack map size: refused, faultline has no such map"),
	OPT_CALL(0, "perf-max-stack-depth", "N", OPT_MAX_STACK_DEPTH,
		 "memleak's BPF stack walk bound: refused, faultline's stacks are unwound whole"),
	OPT_CALL('v', "verbose", NULL, 'v', "memleak's libbpf debug output: refused, faultline "
		 "loads no BPF program"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per stack, then a summary"),
	OPT_SHARED(TOOL_SHARED_FOLDED, "FlameGraph folded stacks weighted by outstanding bytes"),
	OPT_CALL(0, "flamegraph", "FILE", OPT_FLAMEGRAPH,
		 "at the end, also write a flame graph page (HTML) of the malloc family's blocks: "
		 "leaked, peak, allocations, temporary"),
	OPT_SHARED(TOOL_SHARED_MMAP, "ring buffer pages per CPU"),
	OPT_END,
};

static const struct tool_cmdline leak_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_FOLDED | TOOL_OPT_SNAPSHOT,
	.options = leak_options,
	.text = {
		.args = "[interval [count]]",
		.args_help = TOOL_ARGS_INTERVAL("print a report every interval seconds (default 5; "
						"--live: redraw every interval, default 1)",
						"stop after count reports (--live: screens)"),
	},
	.opt = leak_opt,
	.positional = leak_positional,
};

/* ---- events, as -t prints them ---- */

static pid_t report_pid(pid_t pid)
{
	return pid <= 0 ? 0 : pid;	/* kernel address spaces report as one */
}

static void trace_line(struct leak *lk, const struct sample *smp, const char *msg)
{
	if (lk->o->json) {
		printf("{\"type\":\"event\",\"time\":%.6f,\"pid\":%u,\"tid\":%u,\"msg\":",
		       session__elapsed(lk->s, smp->time), smp->pid, smp->tid);
		json__str(stdout, msg);
		printf("}\n");
	} else if (!lk->o->folded) {
		printf("%-12.6f %-7u %-7u %-16s %s\n", session__elapsed(lk->s, smp->time), smp->pid,
		       smp->tid, session__comm(lk->s, (pid_t)smp->pid), msg);
	}
	tool__event_done();
}

static void on_entered(void *ctx, const struct sample *smp, const struct alloc_call *c)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "alloc entered, size = %" PRIu64, c->size);
	trace_line(ctx, smp, msg);
}

/* What one kept block or region stands for (-s). */
static uint64_t weight(const struct leak *lk, const struct alloc_rec *r)
{
	return r->region ? 1 : alloc_sample__weight(alloc_trace__sample(lk->at), r->addr, r->size);
}

/* Every block or region kept: its stack's calls (weighted under -s),
 * what leak prints beside what is outstanding (one table update a
 * call: bench/leak-overhead). */
static void on_made(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	struct leak *lk = ctx;
	char msg[96];

	if (stack_table__call(lk->stacks, report_pid(r->pid), r->stack, r->size, weight(lk, r)) &&
	    !lk->err)
		lk->err = -ENOMEM;
	if (lk->hp)
		heap_profile__made(lk->hp, smp, r);
	if (!lk->lo.trace)
		return;
	snprintf(msg, sizeof(msg), "alloc exited, size = %" PRIu64 ", result = %" PRIx64, r->size,
		 r->addr);
	trace_line(ctx, smp, msg);
}

static void on_freed(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	struct leak *lk = ctx;
	char msg[96];

	if (lk->hp)
		heap_profile__freed(lk->hp, smp, r);
	if (!lk->lo.trace)
		return;
	snprintf(msg, sizeof(msg), "free entered, address = %" PRIx64 ", size = %" PRIu64, r->addr,
		 r->size);
	trace_line(ctx, smp, msg);
}

/* Held when its process exec'd: gone with the old image, not a leak. */
static void on_gone(void *ctx, const struct alloc_rec *r, uint64_t time)
{
	struct leak *lk = ctx;

	if (lk->hp)
		heap_profile__gone(lk->hp, r, time);
}

/* ---- report ---- */

/* A report: the stacks holding blocks old enough, from lk->stacks (their
 * leaked bytes and blocks, and their calls: blocks and regions made,
 * freed or not), in the report's order. */
struct gather {
	struct leak *lk;
	struct stack_site *entries;
	size_t n;
	struct alloc_rec *allocs;	/* -a */
	size_t nallocs;
	uint64_t min_time;		/* younger blocks are left out */
	uint64_t scale;			/* -s N's N, 1 without */
	/* The totals by kind (user mode), and the malloc family's blocks
	 * above the mmap threshold among them. */
	uint64_t kind_bytes[ALLOC_KIND__COUNT], kind_count[ALLOC_KIND__COUNT];
	uint64_t mapped_bytes, mapped_count;
	bool any_pid_differs;
	int err;
};

static void gather_one(const struct alloc_rec *r, void *ctx)
{
	struct gather *g = ctx;
	uint64_t bytes, count;

	if (g->err || r->time > g->min_time)
		return;
	/* A sampled block stands for what agg/alloc-sample says; regions
	 * are never sampled. */
	count = weight(g->lk, r);
	bytes = r->size * count;
	if (stack_table__hold(g->lk->stacks, report_pid(r->pid), r->stack, r->size, count)) {
		g->err = -ENOMEM;
		return;
	}
	g->kind_bytes[alloc_rec__kind(r)] += bytes;
	g->kind_count[alloc_rec__kind(r)] += count;
	if (r->mapped) {
		g->mapped_bytes += bytes;
		g->mapped_count += count;
	}
	if (g->lk->lo.show_allocs) {
		struct alloc_rec *nv = realloc(g->allocs, (g->nallocs + 1) * sizeof(*nv));

		if (!nv) {
			g->err = -ENOMEM;
			return;
		}
		g->allocs = nv;
		nv[g->nallocs++] = *r;
	}
}

static int cmp_alloc(const void *a, const void *b)
{
	const struct alloc_rec *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static void print_allocs(struct gather *g, const struct stack_site *e, const char *indent)
{
	for (size_t i = 0; i < g->nallocs; i++) {
		const struct alloc_rec *r = &g->allocs[i];

		if (report_pid(r->pid) != e->pid || r->stack != e->stack)
			continue;
		if (g->lk->o->json)
			printf("%s{\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu64 "}",
			       indent, r->addr, r->size);
		else
			printf("%saddr = %" PRIx64 " size = %" PRIu64 "\n", indent, r->addr, r->size);
		indent = g->lk->o->json ? "," : indent;
	}
}

static const char *entry_comm(struct leak *lk, pid_t pid, uint32_t stack)
{
	return pid ? session__stack_comm(lk->s, pid, stack) : "[kernel]";
}

/* One labelled line of the totals (out/summary); a zero is shown only
 * when @always. */
static void total_line(const char *label, uint64_t v, const char *words, bool always)
{
	if (v || always)
		summary__count(stdout, label, v, words);
}

/*
 * The totals: everything outstanding, then (user mode) split by kind, so
 * that the malloc family's figure compares with what valgrind calls "in use
 * at exit" and the program's own mappings stand apart; then what was
 * traced.
 */
static void print_totals(struct leak *lk, const struct gather *g, const char *stamp)
{
	const struct alloc_trace_stats *st = alloc_trace__stats(lk->at);
	uint64_t bytes = 0, count = 0, peak_time = 0;
	uint64_t peak = alloc_track__peak_bytes(lk->track, &peak_time);
	double peak_at = peak_time ? session__elapsed(lk->s, peak_time) : 0.0;
	char b[5][NUMFMT_LEN];

	for (size_t i = 0; i < g->n; i++) {
		bytes += g->entries[i].leaked;
		count += g->entries[i].leaked_blocks;
	}
	if (lk->o->json) {
		printf("{\"type\":\"leak_summary\",\"outstanding_bytes\":%" PRIu64
		       ",\"outstanding_allocations\":%" PRIu64 ",\"stacks\":%zu", bytes, count, g->n);
		if (!lk->lo.kernel) {
			printf(",\"kinds\":{");
			for (int k = 0; k < ALLOC_KIND__COUNT; k++) {
				printf("%s\"%s\":{\"bytes\":%" PRIu64 ",\"allocations\":%" PRIu64
				       ",\"traced_allocs\":%" PRIu64, k ? "," : "", alloc_kind__name(k),
				       g->kind_bytes[k], g->kind_count[k], st->allocs_by_kind[k]);
				if (k == ALLOC_KIND_MALLOC)
					printf(",\"mapped_bytes\":%" PRIu64 ",\"mapped_allocations\":%"
					       PRIu64, g->mapped_bytes, g->mapped_count);
				printf("}");
			}
			printf("}");
		}
		printf(",\"sample_rate\":%" PRIu64 ",\"traced_allocs\":%" PRIu64
		       ",\"traced_frees\":%" PRIu64 ",\"untracked_frees\":%" PRIu64
		       ",\"failed\":%" PRIu64 ",\"dropped_at_exec\":%" PRIu64
		       ",\"replaced\":%" PRIu64 ",\"loader_regions\":%" PRIu64
		       ",\"peak_bytes\":%" PRIu64 ",\"peak_time_s\":%.6f"
		       ",\"startup_blocks\":%" PRIu64,
		       g->scale, st->allocs, st->frees, st->unknown_frees, st->failed,
		       st->dropped_exec, alloc_track__replaced(lk->track), st->loader_regions,
		       peak, peak_at, st->startup_blocks);
		/* -s: the figures are estimates, and by which rule. */
		if (g->scale > 1)
			printf(",\"estimates\":true,\"sample_whole_bytes\":%d,\"sampled_in_kernel\":%s"
			       ",\"sampled_events\":%" PRIu64, ALLOC_SAMPLE_WHOLE,
			       alloc_trace__sampled_in_kernel(lk->at) ? "true" : "false",
			       st->sampled_events);
		/* Only when a run probed one (live: a recording has none). */
		for (size_t i = 0; i < alloc_trace__late_count(lk->at); i++) {
			printf("%s", i ? "," : ",\"late_allocators\":[");
			json__str(stdout, alloc_trace__late(lk->at, i));
		}
		printf("%s%s}\n", alloc_trace__late_count(lk->at) ? "]" : "", stamp);
		return;
	}
	/* Labelled lines, a figure a line (numfmt: exact bytes, then IEC). */
	printf("totals:\n");
	summary__line(stdout, "outstanding:", "%s in %s allocations from %s stacks",
		      numfmt__bytes(b[0], NUMFMT_LEN, bytes), numfmt__count(b[1], NUMFMT_LEN, count),
		      numfmt__count(b[2], NUMFMT_LEN, g->n));
	if (!lk->lo.kernel) {
		summary__line(stdout, "malloc family:", "%s in %s blocks (%s of them in %s served by mmap)",
			      numfmt__bytes(b[0], NUMFMT_LEN, g->kind_bytes[ALLOC_KIND_MALLOC]),
			      numfmt__count(b[1], NUMFMT_LEN, g->kind_count[ALLOC_KIND_MALLOC]),
			      numfmt__bytes(b[2], NUMFMT_LEN, g->mapped_bytes),
			      numfmt__count(b[3], NUMFMT_LEN, g->mapped_count));
		summary__line(stdout, "own mmap:", "%s in %s regions",
			      numfmt__bytes(b[0], NUMFMT_LEN, g->kind_bytes[ALLOC_KIND_MMAP]),
			      numfmt__count(b[1], NUMFMT_LEN, g->kind_count[ALLOC_KIND_MMAP]));
		summary__line(stdout, "brk:", "%s in %s regions",
			      numfmt__bytes(b[0], NUMFMT_LEN, g->kind_bytes[ALLOC_KIND_BRK]),
			      numfmt__count(b[1], NUMFMT_LEN, g->kind_count[ALLOC_KIND_BRK]));
		summary__line(stdout, "traced:", "%s allocations (%s malloc family, %s mmap, %s brk) "
			      "and %s frees", numfmt__count(b[0], NUMFMT_LEN, st->allocs),
			      numfmt__count(b[1], NUMFMT_LEN, st->allocs_by_kind[ALLOC_KIND_MALLOC]),
			      numfmt__count(b[2], NUMFMT_LEN, st->allocs_by_kind[ALLOC_KIND_MMAP]),
			      numfmt__count(b[3], NUMFMT_LEN, st->allocs_by_kind[ALLOC_KIND_BRK]),
			      numfmt__count(b[4], NUMFMT_LEN, st->frees));
	} else {
		summary__line(stdout, "traced:", "%s allocations and %s frees",
			      numfmt__count(b[0], NUMFMT_LEN, st->allocs),
			      numfmt__count(b[1], NUMFMT_LEN, st->frees));
	}
	total_line("unseen frees:", st->unknown_frees, "frees of blocks not seen allocated", true);
	total_line("failed calls:", st->failed, "", true);
	total_line("exec:", st->dropped_exec, "dropped at exec", false);
	total_line("loader:", st->loader_regions, "regions of the dynamic loader's own left out",
		   false);
	total_line("start-up:", st->startup_blocks,
		   "blocks of the static C library's start-up left out", false);
	total_line("reused:", alloc_track__replaced(lk->track),
		   "reused addresses whose free was missed", false);
	summary__line(stdout, "peak:", "%s outstanding at %.6fs%s",
		      numfmt__bytes(b[0], NUMFMT_LEN, peak), peak_at,
		      g->scale > 1 ? " (of the sampled blocks, not scaled)" : "");
}

/* What lost events do to leak's figures. */
#define LOST_USER "allocations and frees were missed: some blocks shown may have been freed, " \
	"and some allocations are missing"
#define LOST_KERNEL "kernel allocations and frees were missed: some shown may have been freed, " \
	"and some allocations are missing"

static void print_report(struct leak *lk, bool final_all)
{
	uint64_t rate = alloc_trace__sample(lk->at)->rate, scale = rate > 1 ? rate : 1;
	struct gather g = { .lk = lk, .min_time = UINT64_MAX, .scale = scale };
	enum stack_col by = lk->lo.sort_count ? STACK_LEAKED_BLOCKS : STACK_LEAKED;
	struct stack_order order = { .by = by, .then = by, .held_only = true };
	struct report r;
	char clock[16];
	size_t first;

	/* Ages on the session's clock: a replay's is the recording's. */
	if (!final_all && lk->lo.older_ms)
		g.min_time = session__now(lk->s) - lk->lo.older_ms * 1000000ULL;
	stack_table__clear_held(lk->stacks);
	alloc_track__foreach(lk->track, gather_one, &g);
	/* Ascending: BCC prints the largest last, nearest the prompt. */
	if (!g.err)
		g.err = stack_table__sorted(lk->stacks, &order, &g.entries, &g.n);
	if (g.err) {
		lk->err = g.err;
		goto out;
	}
	for (size_t i = 1; i < g.n; i++)
		g.any_pid_differs = g.any_pid_differs || g.entries[i].pid != g.entries[0].pid;
	if (g.nallocs)
		qsort(g.allocs, g.nallocs, sizeof(*g.allocs), cmp_alloc);
	first = g.n > lk->lo.top ? g.n - lk->lo.top : 0;
	report__init(&r, lk->s, stdout, lk->o->srcline);
	{
		time_t t = session__wall(lk->s);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	}
	/* Every object of this report says which one it is part of. */
	report__json_stamp(&r, clock, lk->every.printed + 1);
	/* First: what the figures below cannot be trusted for. */
	report__lost_first(&r, lk->o->json, lk->o->folded, TOOL,
			   lk->lo.kernel ? LOST_KERNEL : LOST_USER);
	if (!lk->o->json && !lk->o->folded) {
		printf("[%s] Top %u stacks with outstanding allocations:\n", clock, lk->lo.top);
		/* Which allocators, once there is more than the first. */
		if (alloc_trace__late_count(lk->at) && alloc_trace__object(lk->at))
			printf("\tprobed from the start: %s\n", alloc_trace__object(lk->at));
		for (size_t i = 0; i < alloc_trace__late_count(lk->at); i++)
			printf("\tprobed from its mapping on: %s\n", alloc_trace__late(lk->at, i));
		if (scale > 1)
			printf("\t(sampled %s: bytes and counts are estimates)\n",
			       alloc_trace__sampling(lk->at));
	}
	for (size_t i = first; i < g.n; i++) {
		const struct stack_site *e = &g.entries[i];
		const char *comm = entry_comm(lk, e->pid, e->stack);

		if (lk->o->folded) {
			report__folded(&r, e->pid, comm, e->stack, e->leaked);
		} else if (lk->o->json) {
			printf("{\"type\":\"stack\",\"pid\":%d,\"comm\":", (int)e->pid);
			json__str(stdout, comm);
			printf(",\"bytes\":%" PRIu64 ",\"allocations\":%" PRIu64, e->leaked,
			       e->leaked_blocks);
			if (lk->lo.show_allocs) {
				printf(",\"allocs\":[");
				print_allocs(&g, e, "");
				printf("]");
			}
			printf(",\"stack\":");
			report__stack_json(&r, e->pid, e->stack);
			/* Last: scripts match the members before it in order. */
			printf(",\"calls\":%" PRIu64 "%s}\n", e->calls, r.stamp);
		} else {
			if (lk->lo.show_allocs)
				print_allocs(&g, e, "\taddr = ");
			if (g.any_pid_differs)
				printf("\t%" PRIu64 " bytes in %" PRIu64 " allocations from stack of pid %d (%s)\n",
				       e->leaked, e->leaked_blocks, (int)e->pid, comm);
			else
				printf("\t%" PRIu64 " bytes in %" PRIu64 " allocations from stack\n",
				       e->leaked, e->leaked_blocks);
			report__stack(&r, e->pid, e->stack, "\t\t", true);
			/* After the frames, so memleak's "... allocations from
			 * stack" line and the frames under it stay as they are. */
			printf("\t%" PRIu64 " calls to allocation functions from this stack\n",
			       e->calls);
		}
	}
	if (!lk->o->folded) {
		print_totals(lk, &g, r.stamp);
		report__footer(&r, lk->o->json);
	}
	report__fini(&r);
	fflush(stdout);
out:
	free(g.entries);
	free(g.allocs);
}

/* ---- --live ---- */

struct live_read {
	const struct leak *lk;
	struct live_top *lt;
	int err;
};

static void live_one(const struct alloc_rec *r, void *ctx)
{
	struct live_read *lr = ctx;
	uint64_t w = weight(lr->lk, r);

	if (!lr->err)
		lr->err = live_top__add(lr->lt, report_pid(r->pid), r->stack, r->size * w, w);
}

/* What each stack holds now, at any age (-s: the estimate), for the
 * screen: the one place the screen reads leak's state. */
static int leak_live_sites(void *ctx, struct live_top *lt)
{
	struct live_read lr = { ctx, lt, 0 };

	alloc_track__foreach(lr.lk->track, live_one, &lr);
	return lr.err;
}

/* --live's conditions, said in one line; 0 or -EINVAL. */
static int live_check(const struct leak *lk)
{
	struct errbuf eb = { "" };
	const char *given = tool_opts__screen_conflict(lk->o);

	if (!given && lk->lo.trace)
		given = "-t, whose lines would cross it";
	if (!live_top__check(tool__recording(lk->o) || tool__replaying(lk->o), given, &eb))
		return 0;
	fprintf(stderr, "faultline " TOOL ": %s\n", eb.msg);
	return -EINVAL;
}

static int every_report(void *ctx)
{
	struct leak *lk = ctx;
	int err;

	if (!lk->view) {
		print_report(lk, lk->final_all);
		return 0;
	}
	err = live_top__refresh(lk->view);
	if (err && !lk->err)
		lk->err = err;
	return err != 0;
}

static void on_round(void *ctx)
{
	struct leak *lk = ctx;

	every__round(&lk->every);
	/* q: the run ends as on Ctrl-C, and the report follows. */
	if (lk->view && live_top__keys(lk->view))
		session__stop(lk->s);
}

static int leak_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
		     char **argv)
{
	struct leak *lk = ctx;
	int ret;

	lk->lo = (struct leak_opts){ .older_ms = 500, .sample_rate = 1, .top = 10 };
	ret = tool_opts__parse_cmdline(o, mode, &leak_cmdline, &lk->lo, argc, argv);
	if (ret)
		return ret;
	lk->o = o;
	if (lk->lo.live && live_check(lk))
		return -EINVAL;
	if (!lk->lo.every.secs)
		lk->lo.every.secs = lk->lo.live ? 1 : 5;
	/* The screen is the terminal's: no status line under it. */
	if (lk->lo.live)
		o->quiet = true;
	if (lk->lo.max_size && lk->lo.min_size > lk->lo.max_size) {
		fprintf(stderr, "faultline " TOOL ": -z %" PRIu64 " is above -Z %" PRIu64 "\n",
			lk->lo.min_size, lk->lo.max_size);
		return -EINVAL;
	}
	if (!o->sess.pid && !o->sess.cmd)
		lk->lo.kernel = true;
	if (lk->lo.percpu && !lk->lo.kernel) {
		fprintf(stderr, "faultline " TOOL ": --percpu is for kernel mode (-k)\n");
		return -EINVAL;
	}
	if (lk->lo.kernel && (lk->lo.obj || lk->lo.prefix || lk->lo.probes)) {
		fprintf(stderr, "faultline " TOOL ": -O, --symbols-prefix and --probes are for user "
			"allocators (-p or -c without -k)\n");
		return -EINVAL;
	}
	if (lk->lo.flamegraph && lk->lo.sample_rate > 1) {
		fprintf(stderr, "faultline " TOOL ": --flamegraph counts every allocation: not with -s\n");
		return -EINVAL;
	}
	/* Kernel frees happen in any context (RCU, softirq, another task):
	 * watch every CPU, and keep the target's allocations only. */
	o->sess.system_wide = lk->lo.kernel;
	if (stack_table__new(0, &lk->stacks) || (lk->lo.flamegraph && heap_profile__new(1, &lk->hp)))
		return -ENOMEM;
	return 0;
}

/* Another allocator, dlopen'ed: said when it happens. */
static void on_late(void *ctx, const char *what, const char *roles, int err, const char *msg)
{
	(void)ctx;
	tool__alloc_late(TOOL, what, roles, err, msg);
}

static int leak_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			   struct errbuf *eb)
{
	struct leak *lk = ctx;
	int err;

	(void)rung;
	(void)label;
	lk->s = s;
	every__init(&lk->every, s, lk->lo.every.secs, lk->lo.every.count, every_report, lk);
	lk->every.last_in_round = true;
	err = alloc_trace__new(s, &(struct alloc_trace_opts){
					.kernel = lk->lo.kernel, .percpu = lk->lo.percpu,
					.obj = lk->lo.obj, .prefix = lk->lo.prefix, .probes = lk->lo.probes,
					.min_size = lk->lo.min_size, .max_size = lk->lo.max_size,
					.sample_rate = lk->lo.sample_rate },
			       lk->lo.trace || lk->hp ?
			       &(struct alloc_trace_hooks){
					.entered = lk->lo.trace ? on_entered : NULL,
					.made = on_made, .freed = on_freed, .late = on_late,
					.gone = on_gone, .ctx = lk } :
			       &(struct alloc_trace_hooks){ .made = on_made, .late = on_late,
							    .ctx = lk },
			       &lk->at, eb);
	if (err)
		return err;
	lk->track = alloc_trace__track(lk->at);
	tool__alloc_notes(TOOL, lk->at);
	if (lk->lo.live &&
	    live_top__new(s, &(struct live_top_opts){ .title = "faultline " TOOL,
						      .estimates = alloc_trace__sampling(lk->at) != NULL,
						      .read = leak_live_sites, .ctx = lk },
			  &lk->view))
		return errbuf__set(eb, -ENOMEM, "out of memory");
	/* Recording: the report says it later; whoever records, now. */
	if (session__recording(s) && alloc_trace__sampling(lk->at))
		fprintf(stderr, "faultline " TOOL ": -s %" PRIu64 ": sampled %s\n",
			alloc_trace__sample(lk->at)->rate, alloc_trace__sampling(lk->at));
	return 0;
}

static void leak_before_run(void *ctx)
{
	struct leak *lk = ctx;

	if (lk->lo.trace && !lk->o->json && !lk->o->folded)
		printf("%-12s %-7s %-7s %-16s %s\n", "TIME(s)", "PID", "TID", "COMM", "EVENT");
}

static int leak_report(void *ctx, struct session *s)
{
	struct leak *lk = ctx;
	struct errbuf eb = { "" };
	int err;

	/* The terminal back before anything is said. */
	live_top__end(lk->view);
	if (!lk->err)
		lk->err = lk->hp ? heap_profile__error(lk->hp) : 0;
	if (!lk->err)
		lk->err = alloc_trace__error(lk->at);
	if (lk->err)
		return tool__fail(TOOL, NULL, lk->err);
	/* After a -c command's exit, everything it still had is a leak,
	 * whatever its age. */
	lk->final_all = session__stop_reason(s) == SESSION_STOP_TARGET_EXIT;
	/* --live: the report, whether the screens' count was reached or not. */
	if (lk->view)
		print_report(lk, lk->final_all);
	else
		every__final(&lk->every);
	if (!lk->err && lk->hp) {
		char title[512];

		snprintf(title, sizeof(title), "faultline leak: %s",
			 lk->o->sess.cmd ? lk->o->sess.cmd : session__comm(s, lk->o->sess.pid));
		err = heap_flame__write(s, lk->hp, lk->o->srcline, title, lk->lo.flamegraph, -1,
					&eb);
		if (err)
			return tool__fail(TOOL, &eb, err);
	}
	return lk->err ? tool__fail(TOOL, NULL, lk->err) : EXIT_OK;
}

/* A snapshot: the interval report, now (-o ages against now too). */
static int leak_snapshot(void *ctx, struct session *s)
{
	struct leak *lk = ctx;

	(void)s;
	print_report(lk, false);
	return lk->err ? tool__fail(TOOL, NULL, lk->err) : EXIT_OK;
}

static void leak_headline(const void *ctx, char *buf, size_t n);

static void leak_fini(void *ctx)
{
	struct leak *lk = ctx;

	live_top__free(lk->view);
	alloc_trace__free(lk->at);
	stack_table__free(lk->stacks);
	heap_profile__free(lk->hp);
}

/* leak: user allocators need a return probe for the address. */
static const struct rung leak_rungs[] = {
	{ .key = "uprobe", .label = "uprobes+uretprobes on the allocator, syscall tracepoints",
	  .needs = ladder_uprobe_needs, .loses = "" },
	{ .key = "uprobe-pmu", .label = "perf uprobe PMU on the allocator (registers sampled), "
	  "syscall tracepoints or else libc's mmap/munmap/brk", .needs = ladder_uprobe_pmu_needs,
	  .loses = "without syscall tracepoints, only mmap/munmap/brk calls made through libc" },
};

/* leak -k: the slab events first; the page allocator alone still sees
 * page-sized leaks.  The _node variants (before 6.1) are added when present. */
static const char *const kleak_slab_needs[] = {
	"tp:kmem:kmalloc", "tp:kmem:kfree", "tp:kmem:kmem_cache_alloc", "tp:kmem:kmem_cache_free",
	NULL
};
static const char *const kleak_page_needs[] = { "tp:kmem:mm_page_alloc", "tp:kmem:mm_page_free",
						NULL };

static const struct rung kleak_rungs[] = {
	{ .key = "kmem", .label = "tracepoints kmem:kmalloc/kmem_cache_alloc/mm_page_alloc and frees",
	  .needs = kleak_slab_needs, .loses = "" },
	{ .key = "pages", .label = "tracepoints kmem:mm_page_alloc/mm_page_free",
	  .needs = kleak_page_needs, .loses = "slab allocations (kmalloc, kmem_cache) unseen" },
};

const struct ladder leak_ladder = LADDER("leak", leak_rungs);

static const struct ladder kleak_ladder = LADDER("leak -k", kleak_rungs);

static void leak_variant(const void *ctx, const struct ladder **ladder, const char **what)
{
	const struct leak *lk = ctx;

	if (lk->lo.kernel) {
		*ladder = &kleak_ladder;
		*what = "kernel allocations";
	}
}

const struct tool leak_tool = {
	.cmdline = &leak_cmdline,
	.name = TOOL,
	.ladder = &leak_ladder,
	.other_ladder = &kleak_ladder,
	.what = "allocations",
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS | TOOL_SAMPLES,
	.size = sizeof(struct leak),
	.init = leak_init,
	.variant = leak_variant,
	.add_events = leak_add_events,
	.before_run = leak_before_run,
	.round = on_round,
	.headline = leak_headline,
	.report = leak_report,
	.snapshot = leak_snapshot,
	.fini = leak_fini,
};

/* ---- the status line's headline ---- */

struct outstanding {
	const struct leak *lk;
	uint64_t bytes, count;
};

static void add_outstanding(const struct alloc_rec *r, void *ctx)
{
	struct outstanding *o = ctx;
	uint64_t w = weight(o->lk, r);

	o->bytes += r->size * w;
	o->count += w;
}

/* What the report would call outstanding now, at any age; sampled (-s):
 * the estimate, summed over the blocks kept (fewer by the rate). */
static void leak_headline(const void *ctx, char *buf, size_t n)
{
	const struct leak *lk = ctx;
	struct outstanding o = { lk, 0, 0 };
	char b[2][NUMFMT_LEN];

	if (!lk->track)
		return;
	if (alloc_trace__sampling(lk->at)) {
		alloc_track__foreach(lk->track, add_outstanding, &o);
	} else {
		o.bytes = alloc_track__bytes(lk->track);
		o.count = alloc_track__count(lk->track);
	}
	/* The short form: the status line is narrow (numfmt). */
	snprintf(buf, n, "%s%s outstanding in %s allocation%s", alloc_trace__sampling(lk->at) ?
		 "~" : "", numfmt__short(b[0], NUMFMT_LEN, o.bytes),
		 numfmt__count(b[1], NUMFMT_LEN, o.count), o.count == 1 ? "" : "s");
}
