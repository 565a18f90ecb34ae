/*
 * faultline heap: heaptrack_print's report, from the allocator's events
 * live (-c CMD, -p PID) or from a recording (faultline report -i FILE
 * heap, on a `record -e leak` file): the most calls to allocation
 * functions, the peak memory consumers, the most temporary allocations,
 * the leaks with -l, then heaptrack's summary (runtime, calls, temporary
 * allocations, peak heap consumption, total memory leaked), with its
 * words and its units (K, M, G of 1000).
 *
 * The events are leak's (alloc-trace.c): the malloc family of the
 * program, not its own mmaps, which heaptrack does not see either.  The
 * counting is heap-profile.c's.  As heaptrack_print merges backtraces,
 * stacks are grouped by the function that called the allocator, and
 * within a group by the rest of the stack, function by function.
 *
 * --live: while it runs, a top-like screen of the stacks holding the most
 * (cmd/out/live-top.h), redrawn every interval; the report when it ends.
 *
 * --pprof FILE: at the end, the heap profile report pprof writes
 * (pprof_stacks__heap) to FILE too; each snapshot's to FILE.N; to a
 * directory (DIR/) as DIR/heap.pb.gz and DIR/heap.N.pb.gz.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/ostream.h"
#include "lib/json.h"
#include "lib/numfmt.h"
#include "stack/addrspace.h"
#include "agg/alloc-sample.h"
#include "agg/alloc-trace.h"
#include "agg/every.h"
#include "cmd/tool-shared.h"
#include "agg/heap-growth.h"
#include "agg/heap-profile.h"
#include "lib/grow.h"
#include "lib/hashmap.h"
#include "cmd/out/live-top.h"
#ifdef HAVE_PPROF
#include "cmd/out/pprof.h"
#include "cmd/out/pprof-stacks.h"
#endif
#include "cmd/out/report.h"
#include "trace/session.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "cmd/tool.h"

#define TOOL "heap"

enum { OPT_PREFIX = 256, OPT_PROBES, OPT_THRESHOLD, OPT_INTERVAL, OPT_INTERVAL_CALLS,
       OPT_SAMPLE_RATE, OPT_LIVE, OPT_PPROF };

struct heap_opts {
	unsigned int peak_limit, sub_limit, threshold;
	uint64_t interval_ns;		/* --interval */
	unsigned int interval_calls;	/* --interval-calls */
	unsigned int sample_rate;	/* --sample-rate (0: every block) */
	bool leaks;
	bool live;			/* --live */
	const char *histogram;
	const char *pprof;		/* --pprof FILE or DIR/ */
	bool pprof_dir;			/* --pprof DIR/: DIR/heap.pb.gz, DIR/heap.N.pb.gz */
	const char *obj, *prefix, *probes;
};

struct heap {
	/* The command the user ran: "heap", or "flamegraph" composing heap
	 * (its argv[0]), in the lines said while tracing. */
	const char *name;
	struct tool_opts *o;
	struct heap_opts ho;
	unsigned int snaps;	/* snapshots made: --pprof's FILE.N, DIR/heap.N.pb.gz */
	struct session *s;
	struct alloc_trace *at;
	struct heap_profile *hp;
	struct heap_growth *hg;		/* --interval, --interval-calls */
	struct every every;		/* --live: the screens' clock */
	struct live_top *view;		/* --live: the screen, until the report */
	int err;
};

/* ---- options ---- */

static bool parse_uint(const char *s, unsigned int *v)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || !n || n > INT_MAX)
		return false;
	*v = (unsigned int)n;
	return true;
}

static const char *heap_opt(int c, const char *arg, void *ctx)
{
	struct heap_opts *ho = ctx;

	switch (c) {
	case 'n':
		return parse_uint(arg, &ho->peak_limit) ? NULL : "-n wants a number of groups, not";
	case 's':
		return parse_uint(arg, &ho->sub_limit) ? NULL : "-s wants a number of stacks, not";
	case 'l':
		ho->leaks = true;
		return NULL;
	case 'H':
		ho->histogram = arg;
		return NULL;
	case OPT_INTERVAL:
		return tool_opts__parse_secs_ns(arg, &ho->interval_ns) ?
		       "--interval wants seconds (at least 0.000001), not" : NULL;
	case OPT_INTERVAL_CALLS:
		return parse_uint(arg, &ho->interval_calls) ? NULL :
		       "--interval-calls wants a number of allocation calls, not";
	case OPT_LIVE:
		ho->live = true;
		return NULL;
	case OPT_PPROF:
		if (!arg[0] || !strcmp(arg, "-"))
			return "--pprof wants a file (standard output is the report's), not";
		ho->pprof = arg;
		return NULL;
	case OPT_SAMPLE_RATE:
		return parse_uint(arg, &ho->sample_rate) && ho->sample_rate <= ALLOC_SAMPLE_MAX ? NULL :
		       "--sample-rate wants a sample rate from 1 to 1048576, not";
	case OPT_THRESHOLD:
		return parse_uint(arg, &ho->threshold) ? NULL :
		       "--temporary-allocation-threshold wants a number of allocations, not";
	case 'O':
		ho->obj = arg;
		return NULL;
	case OPT_PREFIX:
		ho->prefix = arg;
		return NULL;
	case OPT_PROBES:
		ho->probes = arg;
		return NULL;
	default:
		return "unknown option";
	}
}

/* ---- events ---- */

/* Over time: close the intervals that end before an event at @time (an
 * allocation call when @call), so each holds what was live after its own
 * last event. */
static void interval_before(struct heap *h, uint64_t time, bool call)
{
	if (h->hg && !h->err)
		h->err = heap_growth__before(h->hg, (uint64_t)(session__elapsed(h->s, time) * 1e9),
					     call);
}

static void on_made(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	struct heap *h = ctx;

	if (r->region || h->err)
		return;
	interval_before(h, r->time, true);
	heap_profile__made(h->hp, smp, r);
	if (!h->err && h->hg)
		h->err = heap_growth__change(h->hg, r->pid, r->stack, (int64_t)r->size, true);
}

static void on_freed(void *ctx, const struct sample *smp, const struct alloc_rec *r)
{
	struct heap *h = ctx;

	if (r->region)
		return;
	interval_before(h, smp->time, false);
	heap_profile__freed(h->hp, smp, r);
	if (!h->err && h->hg)
		h->err = heap_growth__change(h->hg, r->pid, r->stack, -(int64_t)r->size, false);
}

/* Held when its process exec'd: gone with the image, not a free. */
static void on_gone(void *ctx, const struct alloc_rec *r, uint64_t time)
{
	struct heap *h = ctx;

	if (r->region)
		return;
	interval_before(h, time, false);
	heap_profile__gone(h->hp, r, time);
	if (!h->err && h->hg)
		h->err = heap_growth__change(h->hg, r->pid, r->stack, -(int64_t)r->size, false);
}

/* ---- the report ---- */

/*
 * heaptrack's byte counts: B, then K, M, G of 1000 with two decimals.  Only
 * for the sections that are heaptrack_print's format (its four sections and
 * its summary, compared with heaptrack's own output in tests/system/heap.sh):
 * they stay byte for byte heaptrack's, units included.  faultline's own
 * text (MEMORY OVER TIME, GROWING STACKS) uses lib/numfmt's IEC.
 */
static void fmt_bytes(uint64_t b, char *buf, size_t n)
{
	static const char units[] = "KMGTP";
	double v = (double)b;
	int u = -1;

	if (b < 1000) {
		snprintf(buf, n, "%" PRIu64 "B", b);
		return;
	}
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, "%.2f%c", v, units[u]);
}

/* One frame as heaptrack prints it: the function (or the address) and,
 * on the next line, the file it is in. */
struct frame_text {
	char func[256];
	char module[512];
	bool named;		/* func is a symbol's, not the address */
};

/* Frame @i of @pid's @stack (@ips), in the image it was taken in. */
static void frame_of(struct heap *h, pid_t pid, uint32_t stack, const uint64_t *ips, uint32_t i,
		     struct frame_text *f)
{
	const struct map *m;
	struct sym_result res = { 0 };
	uint64_t at = i ? ips[i] - 1 : ips[i];

	pid = session__stack_pid(h->s, pid, stack);
	m = addrspaces__find(session__addrspaces(h->s), pid, ips[i]);
	if (!symbolizer__user(session__symbolizer(h->s), session__addrspaces(h->s), pid, at, &res) &&
	    res.func)
		snprintf(f->func, sizeof(f->func), "%s", res.func);
	else
		snprintf(f->func, sizeof(f->func), "0x%" PRIx64, ips[i]);
	f->named = res.func != NULL;
	snprintf(f->module, sizeof(f->module), "%s", m && m->path ? m->path : "");
}

/* Frame @i printed, as heaptrack does, and counted in the footer's frames
 * (and unknown ones: a stripped program's are addresses). */
static void print_frame(struct heap *h, struct report *r, pid_t pid, uint32_t stack,
			const uint64_t *ips, uint32_t i, const char *indent)
{
	struct frame_text f;

	frame_of(h, pid, stack, ips, i, &f);
	report__count_frame(r, f.named);
	printf("%s%s\n", indent, f.func);
	if (f.module[0])
		printf("%s  in %s\n", indent, f.module);
}

enum metric { M_CALLS, M_PEAK, M_TEMPORARY, M_LEAKED };

/* What a group or a merged backtrace cost, by each section's measure. */
struct cost {
	uint64_t calls, temporary, peak, leaked;
};

/* A merged backtrace: sites whose frames after the first are the same
 * functions. */
struct sub {
	char *key;		/* the functions, '\n'-joined */
	size_t site;		/* a site showing it (its frames are printed) */
	struct cost c;
};

/* The sites whose first frame is one function. */
struct group {
	char *func, *module;
	bool framed, named;	/* its stacks have a first frame; a symbol's */
	struct cost c;
	struct sub *subs;
	size_t nsubs, capsubs;
};

struct merged {
	struct stack_site *sites;
	size_t nsites;
	struct group *groups;
	size_t ngroups, capgroups;
	struct hashmap *gidx;	/* hash of func -> group index + 1 (chained by probing) */
};

static uint64_t metric_of(enum metric m, const struct cost *c)
{
	switch (m) {
	case M_CALLS:
		return c->calls;
	case M_PEAK:
		return c->peak;
	case M_TEMPORARY:
		return c->temporary;
	default:
		return c->leaked;
	}
}

static void cost_add(struct cost *c, const struct stack_site *hs)
{
	c->calls += hs->calls;
	c->temporary += hs->temporary;
	c->peak += hs->peak;
	c->leaked += hs->leaked;
}

static struct group *group_of(struct merged *g, const struct frame_text *f)
{
	uint64_t h = hash_bytes(f->func, strlen(f->func)), v;

	/* Open addressing over the hash: the next key on a collision. */
	for (;; h++) {
		if (!hashmap__get(g->gidx, h, &v))
			break;
		if (!strcmp(g->groups[v - 1].func, f->func))
			return &g->groups[v - 1];
	}
	if (GROW_FOR(g->groups, g->capgroups, g->ngroups + 1, 64))
		return NULL;
	memset(&g->groups[g->ngroups], 0, sizeof(g->groups[0]));
	g->groups[g->ngroups].func = strdup(f->func);
	g->groups[g->ngroups].module = strdup(f->module);
	g->groups[g->ngroups].named = f->named;
	if (!g->groups[g->ngroups].func || !g->groups[g->ngroups].module ||
	    hashmap__set(g->gidx, h, g->ngroups + 1)) {
		free(g->groups[g->ngroups].func);
		free(g->groups[g->ngroups].module);
		return NULL;
	}
	return &g->groups[g->ngroups++];
}

static int add_sub(struct group *gr, const char *key, size_t site, const struct stack_site *hs)
{
	struct sub *sb = NULL;

	for (size_t i = 0; i < gr->nsubs && !sb; i++)
		if (!strcmp(gr->subs[i].key, key))
			sb = &gr->subs[i];
	if (!sb) {
		if (GROW_FOR(gr->subs, gr->capsubs, gr->nsubs + 1, 8))
			return -ENOMEM;
		sb = &gr->subs[gr->nsubs];
		memset(sb, 0, sizeof(*sb));
		sb->key = strdup(key);
		sb->site = site;
		if (!sb->key)
			return -ENOMEM;
		gr->nsubs++;
	}
	cost_add(&sb->c, hs);
	return 0;
}

static void merged__free(struct merged *g)
{
	for (size_t i = 0; i < g->ngroups; i++) {
		for (size_t j = 0; j < g->groups[i].nsubs; j++)
			free(g->groups[i].subs[j].key);
		free(g->groups[i].subs);
		free(g->groups[i].func);
		free(g->groups[i].module);
	}
	free(g->groups);
	free(g->sites);
	hashmap__free(g->gidx);
}

/* Group the sites by their first frame's function, the rest merged by
 * function names. */
static int merge(struct heap *h, struct merged *g)
{
	struct stackdb *db = session__stackdb(h->s);
	char *key = NULL;
	size_t keycap = 0;
	int err;

	g->gidx = hashmap__new();
	if (!g->gidx)
		return -ENOMEM;
	err = heap_profile__sites(h->hp, &g->sites, &g->nsites);
	if (err)
		return err;
	for (size_t i = 0; i < g->nsites; i++) {
		const struct stack_site *hs = &g->sites[i];
		uint32_t nr = 0;
		const uint64_t *ips = stackdb__get(db, hs->stack, &nr);
		struct frame_text f = { "??", "", false };
		struct group *gr;
		size_t len = 0;

		if (nr)
			frame_of(h, hs->pid, hs->stack, ips, 0, &f);
		gr = group_of(g, &f);
		if (!gr) {
			err = -ENOMEM;
			break;
		}
		gr->framed |= nr > 0;
		cost_add(&gr->c, hs);
		for (uint32_t k = 1; k < nr; k++) {
			size_t fl;

			frame_of(h, hs->pid, hs->stack, ips, k, &f);
			fl = strlen(f.func);
			if (GROW_FOR(key, keycap, len + fl + 2, 256)) {
				err = -ENOMEM;
				break;
			}
			memcpy(key + len, f.func, fl);
			len += fl;
			key[len++] = '\n';
		}
		if (err)
			break;
		if (GROW_FOR(key, keycap, len + 1, 256)) {
			err = -ENOMEM;
			break;
		}
		key[len] = '\0';
		err = add_sub(gr, key, i, hs);
		if (err)
			break;
	}
	free(key);
	return err;
}

struct sort_ctx {
	enum metric m;
};

/* Largest first by the section's measure, then by name. */
static int cmp_cost(enum metric m, const struct cost *x, const struct cost *y, const char *nx,
		    const char *ny)
{
	uint64_t vx = metric_of(m, x), vy = metric_of(m, y);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(nx, ny);
}

static int cmp_groups(const void *a, const void *b, void *ctx)
{
	const struct group *x = a, *y = b;

	return cmp_cost(((const struct sort_ctx *)ctx)->m, &x->c, &y->c, x->func, y->func);
}

static int cmp_subs(const void *a, const void *b, void *ctx)
{
	const struct sub *x = a, *y = b;

	return cmp_cost(((const struct sort_ctx *)ctx)->m, &x->c, &y->c, x->key, y->key);
}

/* "N calls to allocation functions with X peak consumption from", and
 * the other sections' words, for a group (@sub false) or a stack. */
static void cost_line(enum metric m, bool sub, const struct cost *c)
{
	uint64_t calls = c->calls, temporary = c->temporary, peak = c->peak, leaked = c->leaked;
	char b[32];

	switch (m) {
	case M_CALLS:
		fmt_bytes(peak, b, sizeof(b));
		printf(sub ? "%" PRIu64 " calls with %s peak consumption from:\n" :
			     "%" PRIu64 " calls to allocation functions with %s peak consumption from\n",
		       calls, b);
		break;
	case M_PEAK:
		fmt_bytes(peak, b, sizeof(b));
		printf(sub ? "%s consumed over %" PRIu64 " calls from:\n" :
			     "%s peak memory consumed over %" PRIu64 " calls from\n",
		       b, calls);
		break;
	case M_TEMPORARY:
		printf("%" PRIu64 " temporary allocations of %" PRIu64 " allocations in total (%.2f%%) from%s\n",
		       temporary, calls, calls ? 100.0 * (double)temporary / (double)calls : 0.0,
		       sub ? ":" : "");
		break;
	case M_LEAKED:
		fmt_bytes(leaked, b, sizeof(b));
		printf(sub ? "%s leaked over %" PRIu64 " calls from:\n" : "%s leaked over %" PRIu64 " calls from\n",
		       b, calls);
		break;
	}
}

static const char *const section_titles[] = {
	[M_CALLS] = "MOST CALLS TO ALLOCATION FUNCTIONS",
	[M_PEAK] = "PEAK MEMORY CONSUMERS",
	[M_TEMPORARY] = "MOST TEMPORARY ALLOCATIONS",
	[M_LEAKED] = "MEMORY LEAKS",
};
static const char *const section_keys[] = {
	[M_CALLS] = "calls", [M_PEAK] = "peak", [M_TEMPORARY] = "temporary", [M_LEAKED] = "leaked",
};

static void print_sub_json(struct report *r, const struct merged *g, enum metric m,
			   const struct group *gr, const struct sub *sb)
{
	const struct stack_site *hs = &g->sites[sb->site];

	printf("{\"type\":\"heap_stack\",\"section\":\"%s\",\"function\":", section_keys[m]);
	json__str(stdout, gr->func);
	printf(",\"calls\":%" PRIu64 ",\"temporary\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
	       ",\"leaked_bytes\":%" PRIu64 ",\"pid\":%d,\"stack\":",
	       sb->c.calls, sb->c.temporary, sb->c.peak, sb->c.leaked, (int)hs->pid);
	report__stack_json(r, hs->pid, hs->stack);
	printf("}\n");
}

static void print_section(struct heap *h, struct report *r, struct merged *g, enum metric m)
{
	struct sort_ctx sc = { m };
	size_t shown = 0;

	if (g->ngroups)		/* none: a replay stopped at its start */
		qsort_r(g->groups, g->ngroups, sizeof(*g->groups), cmp_groups, &sc);
	if (!h->o->json)
		printf("%s\n", section_titles[m]);
	for (size_t i = 0; i < g->ngroups && shown < h->ho.peak_limit; i++) {
		struct group *gr = &g->groups[i];
		uint64_t rest_v = 0, rest_n = 0;

		if (!metric_of(m, &gr->c))
			break;
		shown++;
		qsort_r(gr->subs, gr->nsubs, sizeof(*gr->subs), cmp_subs, &sc);
		if (!h->o->json) {
			cost_line(m, false, &gr->c);
			printf("%s\n", gr->func);
			if (gr->module[0])
				printf("  in %s\n", gr->module);
			if (gr->framed)
				report__count_frame(r, gr->named);
		}
		for (size_t j = 0; j < gr->nsubs; j++) {
			const struct sub *sb = &gr->subs[j];
			const struct stack_site *hs = &g->sites[sb->site];
			uint32_t nr = 0;
			const uint64_t *ips;

			/* Sorted: from the first that adds nothing, none does.
			 * The rest line counts the places that add something:
			 * heaptrack_print counts every trace past -s, those of
			 * 0 too, and so can say "and 0 from 3 other places". */
			if (!metric_of(m, &sb->c))
				break;
			if (j >= h->ho.sub_limit) {
				rest_v += metric_of(m, &sb->c);
				rest_n++;
				continue;
			}
			if (h->o->json) {
				print_sub_json(r, g, m, gr, sb);
				continue;
			}
			cost_line(m, true, &sb->c);
			ips = stackdb__get(session__stackdb(h->s), hs->stack, &nr);
			for (uint32_t k = 1; k < nr; k++)
				print_frame(h, r, hs->pid, hs->stack, ips, k, "    ");
		}
		if (rest_n && !h->o->json) {
			char b[32];

			if (m == M_CALLS || m == M_TEMPORARY) {
				printf("  and %" PRIu64 " from %" PRIu64 " other places\n", rest_v, rest_n);
			} else {
				fmt_bytes(rest_v, b, sizeof(b));
				printf("  and %s from %" PRIu64 " other places\n", b, rest_n);
			}
		}
	}
	if (!h->o->json)
		printf("\n\n");
}

/*
 * What snapshot @snap writes beside @file: "FILE.N", one file a snapshot;
 * @snap 0 (the end): @file itself.  *@path is @file, allocated, or NULL
 * on -ENOMEM.  Returns 0 or -ENOMEM.
 */
static int snap_path(const char *file, unsigned int snap, char **path)
{
	char *p;

	*path = snap ? NULL : (char *)file;
	if (!snap)
		return 0;
	if (asprintf(&p, "%s.%u", file, snap) < 0)
		return -ENOMEM;
	*path = p;
	return 0;
}

/* -H FILE: the requested sizes and their counts (snapshot @snap's: FILE.N). */
static int write_histogram(struct heap *h, unsigned int snap)
{
	uint64_t *sizes = NULL, *counts = NULL;
	size_t n = 0;
	struct ostream *os;
	char *path = NULL;
	FILE *f;
	int err = heap_profile__histogram(h->hp, &sizes, &counts, &n);

	if (!err)
		err = snap_path(h->ho.histogram, snap, &path);
	if (err)
		goto out;
	err = ostream__open(path, &os);
	if (err)
		goto out;
	f = ostream__file(os);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 "\t%" PRIu64 "\n", sizes[i], counts[i]);
	err = ostream__close(os);	/* the first failed write's errno */
out:
	if (path != h->ho.histogram)
		free(path);
	free(sizes);
	free(counts);
	return err;
}

/* ---- memory over time ---- */

static void print_frames(struct heap *h, struct report *r, pid_t pid, uint32_t stack,
			 const char *indent)
{
	uint32_t nr = 0;
	const uint64_t *ips = stackdb__get(session__stackdb(h->s), stack, &nr);

	for (uint32_t k = 0; k < nr; k++)
		print_frame(h, r, pid, stack, ips, k, indent);
}

/*
 * The intervals (the process's bytes and peak, the top stacks' bytes at
 * each end) and the growth ranking, the top -n stacks of it.
 */
static int print_growth(struct heap *h, struct report *r, uint64_t run_ns)
{
	struct growth_site *v = NULL;
	size_t n = 0, K, top;
	uint64_t *series = NULL;
	int err;

	err = heap_growth__end(h->hg, run_ns);
	if (err)
		return err;
	K = heap_growth__intervals(h->hg);
	err = heap_growth__rank(h->hg, &v, &n);
	if (err)
		return err;
	top = n < h->ho.peak_limit ? n : h->ho.peak_limit;
	series = calloc(top * K + 1, sizeof(*series));
	if (!series) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < top; i++)
		heap_growth__series(h->hg, &v[i], series + i * K);
	if (!h->o->json) {
		printf("MEMORY OVER TIME\n");
		if (h->ho.interval_calls)
			printf("bytes outstanding at the end of each interval of %u allocation calls",
			       h->ho.interval_calls);
		else
			printf("bytes outstanding at the end of each interval of %.9gs",
			       (double)h->ho.interval_ns / 1e9);
		printf(": the process's%s\n", report__ranked(top));
		printf("%8s %12s %10s %12s %12s", "INTERVAL", "END(s)", "CALLS", "PROCESS", "PEAK");
		for (size_t i = 0; i < top; i++) {
			char col[16];

			snprintf(col, sizeof(col), "#%zu", i + 1);
			printf(" %12s", col);
		}
		printf("\n");
	}
	for (size_t k = 0; k < K; k++) {
		const struct growth_interval *iv = heap_growth__interval(h->hg, k);

		if (h->o->json) {
			printf("{\"type\":\"heap_interval\",\"index\":%zu,\"end_s\":%.9f,\"calls\":%" PRIu64
			       ",\"process_bytes\":%" PRIu64 ",\"process_peak_bytes\":%" PRIu64
			       ",\"stacks\":[", k, (double)iv->end_time / 1e9, iv->calls, iv->bytes,
			       iv->peak);
			for (size_t i = 0; i < top; i++)
				printf("%s%" PRIu64, i ? "," : "", series[i * K + k]);
			printf("]}\n");
			continue;
		}
		printf("%8zu %12.6f %10" PRIu64 " %12" PRIu64 " %12" PRIu64, k + 1,
		       (double)iv->end_time / 1e9, iv->calls, iv->bytes, iv->peak);
		for (size_t i = 0; i < top; i++)
			printf(" %12" PRIu64, series[i * K + k]);
		printf("\n");
	}
	if (!h->o->json)
		printf("\n\nGROWING STACKS\n");
	for (size_t i = 0; i < top; i++) {
		const struct growth_site *g = &v[i];
		char b[2][NUMFMT_LEN];

		if (h->o->json) {
			printf("{\"type\":\"heap_growth\",\"rank\":%zu,\"growing\":%s,\"growth_bytes\":%"
			       PRId64 ",\"first_bytes\":%" PRIu64 ",\"last_bytes\":%" PRIu64
			       ",\"highest_bytes\":%" PRIu64 ",\"highest_interval\":%zu,\"rises\":%u"
			       ",\"falls\":%u,\"intervals\":%zu,\"calls\":%" PRIu64 ",\"pid\":%d,\"stack\":",
			       i + 1, g->growing ? "true" : "false", g->growth, g->first, g->last,
			       g->highest, g->highest_at, g->rises, g->falls, K, g->calls, (int)g->pid);
			report__stack_json(r, g->pid, g->stack);
			printf("}\n");
			continue;
		}
		/* faultline's own section (not heaptrack's): numfmt, a figure a line. */
		printf("#%zu %s: %s over %zu intervals (rose in %u, fell in %u)\n", i + 1,
		       g->growing ? "growing" : "not growing",
		       numfmt__sbytes(b[0], NUMFMT_LEN, g->growth), K, g->rises, g->falls);
		printf("    first, last: %s, %s\n", numfmt__bytes(b[0], NUMFMT_LEN, g->first),
		       numfmt__bytes(b[1], NUMFMT_LEN, g->last));
		printf("    highest:     %s in interval %zu\n",
		       numfmt__bytes(b[0], NUMFMT_LEN, g->highest), g->highest_at + 1);
		printf("    calls:       %s, from\n", numfmt__count(b[0], NUMFMT_LEN, g->calls));
		print_frames(h, r, g->pid, g->stack, "  ");
	}
	if (!h->o->json)
		printf("\n\n");
	free(series);
	free(v);
	return 0;
}

/* @snap: 0 for the report at the end, else the snapshot's index (no
 * growth part: it ends the intervals). */
static int print_report(struct heap *h, unsigned int snap)
{
	const struct heap_totals *t = heap_profile__totals(h->hp);
	/* The traced time, from the start to now (a replay's now: its last
	 * record), on the clock of "peak ... after" and of the intervals:
	 * no time the report names is later.  (Taken from the first event
	 * to the last, a run 0.231 s to its peak was said to last 0.21 s,
	 * and an idle one 0.00 s.)  The text rounds it up to the ms, so no
	 * time printed rounded, to the ms or the us, is printed later. */
	uint64_t run_ns = (uint64_t)(session__elapsed(h->s, session__now(h->s)) * 1e9);
	uint64_t run_ms = (run_ns + 999999) / 1000000;
	double secs = (double)run_ns / 1e9;
	struct merged g = { 0 };
	struct report r;
	char peak[32], leaked[32];
	int err;

	report__init(&r, h->s, stdout, h->o->srcline);
	report__lost_first(&r, h->o->json, false, TOOL,
			   "allocations and frees were missed: calls, temporary allocations, the peak "
			   "and the leaks are short of what happened");
	if (alloc_trace__sampling(h->at) && !h->o->json)
		printf("(sampled %s: calls, bytes and peaks are estimates; temporary allocations "
		       "are not counted)\n\n", alloc_trace__sampling(h->at));
	if (h->hg && !snap) {
		err = print_growth(h, &r, run_ns);
		if (err)
			goto out;
	} else {
		err = merge(h, &g);
		if (err)
			goto out;
		print_section(h, &r, &g, M_CALLS);
		print_section(h, &r, &g, M_PEAK);
		if (h->ho.leaks)
			print_section(h, &r, &g, M_LEAKED);
		print_section(h, &r, &g, M_TEMPORARY);
	}
	fmt_bytes(t->peak_bytes, peak, sizeof(peak));
	fmt_bytes(t->live_bytes, leaked, sizeof(leaked));
	if (h->o->json) {
		printf("{\"type\":\"heap_summary\",\"runtime_s\":%.6f,\"calls\":%" PRIu64
		       ",\"temporary\":%" PRIu64 ",\"frees\":%" PRIu64 ",\"peak_bytes\":%" PRIu64
		       ",\"peak_time_s\":%.6f,\"leaked_bytes\":%" PRIu64 ",\"leaked_blocks\":%" PRIu64
		       ",\"temporary_threshold\":%u",
		       secs, t->calls, t->temporary, t->frees, t->peak_bytes,
		       t->peak_time ? session__elapsed(h->s, t->peak_time) : 0.0, t->live_bytes,
		       t->live_blocks, h->ho.threshold);
		if (alloc_trace__sampling(h->at))
			printf(",\"estimates\":true,\"sample_rate\":%" PRIu64 ",\"sampled_in_kernel\":%s",
			       alloc_trace__sample(h->at)->rate,
			       alloc_trace__sampled_in_kernel(h->at) ? "true" : "false");
		printf("}\n");
	} else {
		printf("total runtime: %" PRIu64 ".%03" PRIu64 "s.\n", run_ms / 1000, run_ms % 1000);
		printf("calls to allocation functions: %" PRIu64 " (%.0f/s)\n", t->calls,
		       secs > 0 ? (double)t->calls / secs : 0.0);
		printf("temporary memory allocations: %" PRIu64 " (%.0f/s)\n", t->temporary,
		       secs > 0 ? (double)t->temporary / secs : 0.0);
		printf("peak heap memory consumption: %s", peak);
		if (t->peak_time)
			printf(" after %.3fs", session__elapsed(h->s, t->peak_time));
		printf("\n");
		printf("total memory leaked: %s\n", leaked);
	}
	report__footer(&r, h->o->json);
	if (h->ho.histogram)
		err = write_histogram(h, snap);
out:
	merged__free(&g);
	report__fini(&r);
	return err;
}

static const struct tool_option heap_options[] = {
	OPT_CALL('n', "peak-limit", "N", 'n', "groups shown per section (default 10)"),
	OPT_CALL('s', "sub-peak-limit", "N", 's', "stacks shown per group (default 5)"),
	OPT_CALL('l', "print-leaks", NULL, 'l', "add the section of leaked memory"),
	OPT_CALL('H', "print-histogram", "FILE", 'H',
		 "write the requested sizes and their counts to FILE; each snapshot's to FILE.N"),
	OPT_CALL(0, "temporary-allocation-threshold", "N", OPT_THRESHOLD,
		 "temporary: freed before N more allocations were made (memray's rule; default 1: "
		 "heaptrack's)"),
	OPT_CALL(0, "interval", "SECS", OPT_INTERVAL,
		 "memory over time instead of the sections: per interval of SECS from the start, the "
		 "bytes outstanding at its end of the process and of the -n top stacks; then the "
		 "growth ranking (growing: ended above its first interval, rose in 2+ intervals and "
		 "twice as often as it fell, and first reached its highest in the last quarter of "
		 "the run)"),
	OPT_CALL(0, "live", NULL, OPT_LIVE,
		 "while it runs, a top-like screen of the stacks holding the most bytes, redrawn "
		 "every --interval (default 1 s); keys o g i b sort, arrows or j/k scroll, q quits; "
		 "then the report (needs a terminal)"),
	OPT_CALL(0, "interval-calls", "N", OPT_INTERVAL_CALLS,
		 "the same, an interval every N allocation calls (it ends just before the call that "
		 "starts the next)"),
	OPT_CALL(0, "pprof", "FILE", OPT_PPROF,
		 "at the end, also write the heap profile report pprof writes (gzipped profile.proto: "
		 "alloc_objects, alloc_space, inuse_objects, inuse_space; labels pid, comm) to FILE; "
		 "each snapshot's to FILE.N; FILE a directory (DIR/): DIR/heap.pb.gz and "
		 "DIR/heap.N.pb.gz"),
	OPT_CALL(0, "sample-rate", "N", OPT_SAMPLE_RATE,
		 "every block of 1024 bytes or more and 1 smaller block in N, picked in the kernel "
		 "where it can be (glibc; see faultline-leak(1) -s): calls, bytes and peaks are "
		 "estimates, temporary allocations not counted"),
	OPT_CALL('O', "obj", "LIB", 'O', "the allocator library (default: the one the program's "
		 "malloc calls, as for faultline leak)"),
	OPT_CALL(0, "symbols-prefix", "P", OPT_PREFIX, "its symbols' prefix (jemalloc: je_)"),
	OPT_CALL(0, "probes", "SPEC", OPT_PROBES, "probe spec name or file"),
	OPT_END,
};

static const struct tool_cmdline heap_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_ALL | TOOL_OPT_SNAPSHOT,
	.options = heap_options,
	.text = {
		.intro = "heaptrack_print's report of a program's heap: who calls the allocator most,\n"
			 "who held the heap at its peak, which allocations were temporary (freed before\n"
			 "any other allocation), and what leaked; then the summary.\n\n",
	},
	.opt = heap_opt,
};

/* ---- --live ---- */

/* What each stack holds now (live bytes and blocks), for the screen. */
static int heap_live_sites(void *ctx, struct live_top *lt)
{
	const struct heap *h = ctx;
	struct stack_site *sites = NULL;
	size_t n = 0;
	int err = heap_profile__sites(h->hp, &sites, &n);

	for (size_t i = 0; i < n && !err; i++)
		if (sites[i].leaked_blocks)
			err = live_top__add(lt, sites[i].pid, sites[i].stack, sites[i].leaked,
					    sites[i].leaked_blocks);
	free(sites);
	return err;
}

/* --live's conditions, said in one line; 0 or -EINVAL. */
static int live_check(const struct heap *h)
{
	struct errbuf eb = { "" };

	if (!live_top__check(tool__recording(h->o) || tool__replaying(h->o),
			     tool_opts__screen_conflict(h->o), &eb))
		return 0;
	fprintf(stderr, "faultline " TOOL ": %s\n", eb.msg);
	return -EINVAL;
}

static int live_every(void *ctx)
{
	struct heap *h = ctx;
	int err = live_top__refresh(h->view);

	if (err && !h->err)
		h->err = err;
	return err != 0;
}

static void heap_round(void *ctx)
{
	struct heap *h = ctx;

	if (!h->view)
		return;
	every__round(&h->every);
	/* q: the run ends as on Ctrl-C, and the report follows. */
	if (live_top__keys(h->view))
		session__stop(h->s);
}

/*
 * --pprof DIR/ (a trailing slash, or a directory that exists): the
 * profiles go into DIR as heap.pb.gz and each snapshot's heap.N.pb.gz, as
 * heaptrack and memray write into an output directory.  A DIR/ that does
 * not exist is made now, before tracing, so that a typo is said at once.
 * Returns 0 or -errno, said.
 */
static int pprof_dir(struct heap_opts *ho)
{
	bool slash = ho->pprof[strlen(ho->pprof) - 1] == '/';
	struct stat st;
	int r = stat(ho->pprof, &st) ? -errno : 0;

	if (!r)
		ho->pprof_dir = S_ISDIR(st.st_mode);
	/* "FILE/" of a file: stat says ENOTDIR. */
	if (r == -ENOTDIR || (!r && slash && !ho->pprof_dir)) {
		fprintf(stderr, "faultline " TOOL ": --pprof %s: not a directory\n", ho->pprof);
		return -ENOTDIR;
	}
	if (!r || !slash)
		return 0;	/* there (a directory or a file), or a file to be made */
	if (mkdir(ho->pprof, 0777)) {
		int err = -errno;

		fprintf(stderr, "faultline " TOOL ": --pprof %s: cannot make the directory: %s\n",
			ho->pprof, strerror(-err));
		return err;
	}
	ho->pprof_dir = true;
	return 0;
}

static int heap_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
		     char **argv)
{
	struct heap *h = ctx;
	int ret;

	h->ho = (struct heap_opts){ .peak_limit = 10, .sub_limit = 5, .threshold = 1 };
	h->name = argc > 0 && argv[0] ? argv[0] : TOOL;
	ret = tool_opts__parse_cmdline(o, mode, &heap_cmdline, &h->ho, argc, argv);
	if (ret)
		return ret;
	h->o = o;
	if (!o->sess.pid && !o->sess.cmd && !tool__replaying(o)) {
		fprintf(stderr, "faultline " TOOL ": which program? -p PID or -c CMD\n");
		return -EINVAL;
	}
	if (h->ho.live && live_check(h))
		return -EINVAL;
	/* The screen is the terminal's: no status line under it. */
	if (h->ho.live)
		o->quiet = true;
	if (h->ho.interval_ns && h->ho.interval_calls) {
		fprintf(stderr, "faultline " TOOL ": --interval or --interval-calls, not both\n");
		return -EINVAL;
	}
	if ((h->ho.interval_ns || h->ho.interval_calls) && h->ho.sample_rate > 1) {
		fprintf(stderr, "faultline " TOOL ": --interval and --interval-calls follow every "
			"call: not with --sample-rate\n");
		return -EINVAL;
	}
#ifndef HAVE_PPROF
	if (h->ho.pprof) {
		fprintf(stderr, "faultline " TOOL ": --pprof: this faultline was built without pprof "
			"output: configure found %s\n", FL_PPROF_MISSING);
		return -EINVAL;
	}
#endif
	if (h->ho.pprof && pprof_dir(&h->ho))
		return -EINVAL;
	if ((h->ho.interval_ns || h->ho.interval_calls) && heap_growth__new(&h->hg))
		return -ENOMEM;
	if (h->hg)
		heap_growth__cut(h->hg, h->ho.interval_ns, h->ho.interval_calls);
	return heap_profile__new(h->ho.threshold, &h->hp);
}

/* Another allocator, dlopen'ed: said when it happens. */
static void on_late(void *ctx, const char *what, const char *roles, int err, const char *msg)
{
	const struct heap *h = ctx;

	tool__alloc_late(h->name, what, roles, err, msg);
}

static int heap_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			   struct errbuf *eb)
{
	struct heap *h = ctx;
	int err;

	(void)rung;
	(void)label;
	h->s = s;
	/* A rate of 1 still weighs each block: a recording sampled by
	 * record -s is read at its own rate (by heap: a flame graph says
	 * nothing of estimates, and refuses it). */
	err = alloc_trace__new(s, &(struct alloc_trace_opts){ .obj = h->ho.obj, .prefix = h->ho.prefix,
							       .probes = h->ho.probes,
							       .sample_rate = h->ho.sample_rate ? h->ho.sample_rate :
									      !strcmp(h->name, TOOL) },
			       &(struct alloc_trace_hooks){ .made = on_made, .freed = on_freed,
							    .late = on_late, .gone = on_gone,
							    .ctx = h },
			       &h->at, eb);
	if (err)
		return err;
	tool__alloc_notes(h->name, h->at);
	heap_profile__set_sample(h->hp, alloc_trace__sample(h->at));
	if (h->ho.live) {
		/* One interval for the screens and, given, the report's. */
		every__init(&h->every, s, h->ho.interval_ns ? (double)h->ho.interval_ns / 1e9 : 1, 0,
			    live_every, h);
		if (live_top__new(s, &(struct live_top_opts){
					.title = "faultline " TOOL,
					.estimates = alloc_trace__sampling(h->at) != NULL,
					.read = heap_live_sites, .ctx = h }, &h->view))
			return errbuf__set(eb, -ENOMEM, "out of memory");
	}
	if (h->hg && alloc_trace__sampling(h->at))
		return errbuf__set(eb, -EINVAL, "--interval and --interval-calls follow every call: "
				   "not with sampled allocations");
	return 0;
}

int heap__profile(void *ctx, struct heap_profile **hp)
{
	struct heap *h = ctx;
	int err = h->err;

	if (!err)
		err = heap_profile__error(h->hp);
	if (!err)
		err = alloc_trace__error(h->at);
	*hp = h->hp;
	return err;
}

/* --pprof: the profile as it stands, to FILE (snapshot @snap's: FILE.N),
 * or DIR/heap.pb.gz (DIR/heap.N.pb.gz). */
static int write_pprof(struct heap *h, unsigned int snap)
{
#ifdef HAVE_PPROF
	const char *arg = h->ho.pprof, *sep = arg[strlen(arg) - 1] == '/' ? "" : "/";
	struct errbuf eb = { "" };
	struct pprof *p = NULL;
	char *path = (char *)arg;
	int err;

	if (h->ho.pprof_dir && snap)
		err = asprintf(&path, "%s%sheap.%u.pb.gz", arg, sep, snap) < 0 ? -ENOMEM : 0;
	else if (h->ho.pprof_dir)
		err = asprintf(&path, "%s%sheap.pb.gz", arg, sep) < 0 ? -ENOMEM : 0;
	else
		err = snap_path(arg, snap, &path);
	if (err)
		return tool__fail(TOOL, NULL, err);
	err = pprof_stacks__heap(h->s, h->hp, &p);
	if (err)
		errbuf__set(&eb, err, "cannot make the profile: %s", strerror(-err));
	else
		err = pprof_stacks__write(p, path, &eb);
	pprof__free(p);
	if (path != h->ho.pprof)
		free(path);
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
#else
	(void)h;
	(void)snap;
	return EXIT_FAIL;
#endif
}

/* The report, or with @snap (its index) a snapshot of it. */
static int report(struct heap *h, unsigned int snap)
{
	struct heap_profile *hp;
	int err;

	/* The terminal back before anything is said; not for a snapshot
	 * (--snapshot-every takes --output beside --live): the screen stays
	 * for the rest of the run, as leak's. */
	if (!snap)
		live_top__end(h->view);
	err = heap__profile(h, &hp);
	if (!err)
		err = print_report(h, snap);
	if (err)
		return tool__fail(TOOL, NULL, err);
	return h->ho.pprof ? write_pprof(h, snap) : EXIT_OK;
}

static int heap_report(void *ctx, struct session *s)
{
	(void)s;
	return report(ctx, 0);
}

static int heap_snapshot(void *ctx, struct session *s)
{
	struct heap *h = ctx;

	(void)s;
	return report(h, ++h->snaps);
}

static void heap_headline(const void *ctx, char *buf, size_t n);

static void heap_fini(void *ctx)
{
	struct heap *h = ctx;

	live_top__free(h->view);
	alloc_trace__free(h->at);
	heap_profile__free(h->hp);
	heap_growth__free(h->hg);
}

const struct tool heap_tool = {
	.cmdline = &heap_cmdline,
	.name = TOOL,
	/* leak's events, so its ladder and its recordings serve. */
	.ladder = &leak_ladder,
	.what = "allocations",
	.flags = TOOL_RECORDS | TOOL_REPLAYS,
	.size = sizeof(struct heap),
	.init = heap_init,
	.add_events = heap_add_events,
	.round = heap_round,
	.headline = heap_headline,
	.report = heap_report,
	.snapshot = heap_snapshot,
	.fini = heap_fini,
};

/* ---- the status line's headline ---- */

/* heaptrack's figures so far: what is live (at the end, what leaked), the
 * peak, the calls. */
static void heap_headline(const void *ctx, char *buf, size_t n)
{
	const struct heap *h = ctx;
	const struct heap_totals *t = h->hp ? heap_profile__totals(h->hp) : NULL;
	char b[4][NUMFMT_LEN];

	/* The short form: the status line is narrow (numfmt). */
	if (t)
		snprintf(buf, n, "%s outstanding in %s allocation%s, peak %s, %s calls",
			 numfmt__short(b[0], NUMFMT_LEN, t->live_bytes),
			 numfmt__count(b[1], NUMFMT_LEN, t->live_blocks),
			 t->live_blocks == 1 ? "" : "s", numfmt__short(b[2], NUMFMT_LEN, t->peak_bytes),
			 numfmt__count(b[3], NUMFMT_LEN, t->calls));
}
