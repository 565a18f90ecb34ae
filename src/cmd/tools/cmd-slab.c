/*
 * faultline slab: the slab caches as slabtop shows them (objects, active,
 * use, object size, slabs, objects per slab, cache size, from
 * /proc/slabinfo), with each interval's allocations and frees per cache
 * (slabratetop's ALLOCS, and frees beside them) and /proc/meminfo's
 * SReclaimable and SUnreclaim; with -C CACHE -g, the kernel stacks that
 * allocate into that cache, counted (stackcount on kmem_cache_alloc).
 *
 * Sources (its ladder, before slab_tool): the kmem:kmem_cache_alloc and
 * kmem_cache_free tracepoints, each allocation in the allocating task's
 * context (so -p and -c count what that process allocates; a free often
 * runs elsewhere, in RCU callbacks or another task, and is counted where
 * it runs).  Kernels before 5.12 (RHEL 8 before 4.18.0-348) have no cache
 * name on kmem_cache_free, and older ones none on kmem_cache_alloc
 * (KERNEL-COMPAT.md, D; the 6.1 guest's has none either): there
 * allocations are keyed by their call site ("caller:FUNCTION", from
 * /proc/kallsyms; -C then takes such names) and frees by cache where
 * kmem_cache_free names it, else only totalled.
 * Last rung: /proc/slabinfo alone, the change in active objects per cache.
 *
 * With -C, the kernel filters the events by cache name, so that tracing
 * one cache costs what its own allocations cost.  /proc/slabinfo is
 * system-wide whatever the target.  From a recording (faultline report
 * -i FILE slab) the events are the recorded run's; slabinfo and meminfo
 * are not in it and are not shown.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/json.h"
#include "trace/tp-catalog.h"
#include "agg/every.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "cmd/out/report.h"
#include "cmd/out/summary.h"
#include "trace/session.h"
#include "proc/slabinfo.h"
#include "stack/symbolize.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "slab"
#define MAX_CACHES 8	/* names in one -C list */

enum sort_by { SORT_BYTES, SORT_OBJECTS, SORT_ALLOCS };

/* A cache as the events name it (or a call site, when they cannot). */
struct row {
	uint64_t key;
	char name[64];
	uint64_t allocs, frees, bytes;		/* this interval */
	uint64_t total_allocs, total_frees;	/* the whole run */
};

struct kstack {
	uint32_t stack;
	int cache;		/* index in the -C list */
	pid_t pid;		/* one process it was seen in, for rendering */
	uint64_t count;
};

/* One line of a report: slabinfo's cache joined with its events. */
struct line {
	const struct slab_cache *info;	/* NULL: seen in events only */
	const struct row *ev;		/* NULL: no event this run */
	const char *name;
};

struct slab_state {
	struct tool_opts *o;
	struct session *s;
	struct report r;
	/* -C: the names copied, so parsing allocates nothing a run that
	 * stops at a bad option would have to free */
	char only[MAX_CACHES][64];
	size_t nonly;
	enum sort_by sort;
	unsigned long maxrows;
	bool events;			/* the tracepoint rung */
	bool by_name;			/* kmem_cache_alloc carries the cache's name */
	bool free_by_name;
	struct tp_field a_name, a_call, a_bytes, f_name;
	struct keyed *rows;		/* key -> struct row */
	struct keyed *stacks;		/* stack << 8 | cache -> struct kstack */
	uint64_t allocs, frees;		/* this interval, every cache */
	uint64_t total_allocs, total_frees, free_unnamed;
	struct slab_cache *prev;	/* last interval's slabinfo, for the bare rung */
	size_t nprev;
	uint64_t page;
	struct tool_interval iv;
	struct every every;
	bool warned;
	int err;
};

static uint64_t name_key(const char *name)
{
	return hash_bytes(name, strlen(name)) | 1;	/* odd: never a call site */
}

/* The row of cache @name: probing past a hash collision. */
static struct row *row_named(struct slab_state *st, const char *name, bool create)
{
	uint64_t key = name_key(name);
	struct row *r;
	int created;

	for (int i = 0; i < 64; i++, key += 2) {
		r = create ? keyed__get(st->rows, key, &created) : keyed__find(st->rows, key);
		if (!r)
			return NULL;
		if (create && created) {
			r->key = key;
			snprintf(r->name, sizeof(r->name), "%s", name);
			return r;
		}
		if (!strcmp(r->name, name))
			return r;
	}
	return NULL;
}

/* The row of call site @ip (even keys), named after its function. */
static struct row *row_of_site(struct slab_state *st, uint64_t ip)
{
	struct sym_result res = { 0 };
	struct row *r;
	int created;

	r = keyed__get(st->rows, ip & ~1ULL, &created);
	if (r && created) {
		r->key = ip & ~1ULL;
		if (!symbolizer__kernel(session__symbolizer(st->s), ip, &res) && res.func)
			snprintf(r->name, sizeof(r->name), "caller:%s", res.func);
		else
			snprintf(r->name, sizeof(r->name), "caller:0x%" PRIx64, ip);
	}
	return r;
}

/* Index of @name in -C's list, -1 when not listed; 0 when there is none. */
static int only_index(const struct slab_state *st, const char *name)
{
	if (!st->nonly)
		return 0;
	for (size_t i = 0; i < st->nonly; i++)
		if (!strcmp(st->only[i], name))
			return (int)i;
	return -1;
}

static void on_alloc(struct session *s, const struct sample *smp, void *ctx)
{
	struct slab_state *st = ctx;
	char name[64] = "";
	uint64_t ip = 0, bytes = 0;
	struct row *r;
	int idx = 0;

	tp_field__u64(&st->a_bytes, smp->raw, smp->raw_size, &bytes);
	if (st->by_name) {
		if (tp_field__str(&st->a_name, smp->raw, smp->raw_size, name, sizeof(name)))
			return;
		/* A replay has no kernel filter: the same choice here. */
		idx = only_index(st, name);
		if (idx < 0)
			return;
		r = row_named(st, name, true);
	} else {
		tp_field__u64(&st->a_call, smp->raw, smp->raw_size, &ip);
		r = row_of_site(st, ip);
		idx = r ? only_index(st, r->name) : 0;
		if (idx < 0)
			return;
	}
	if (!r) {
		st->err = -ENOMEM;
		return;
	}
	r->allocs++;
	r->total_allocs++;
	r->bytes += bytes;
	st->allocs++;
	st->total_allocs++;
	if (st->o->stacks && st->nonly) {
		struct kstack *k;
		uint32_t stack = 0;
		int created;

		if (session__kernel_stack(s, smp, &stack)) {
			st->err = -ENOMEM;
			return;
		}
		k = keyed__get(st->stacks, (uint64_t)stack << 8 | (unsigned int)idx, &created);
		if (!k) {
			st->err = -ENOMEM;
			return;
		}
		if (created)
			*k = (struct kstack){ .stack = stack, .cache = idx, .pid = (pid_t)smp->pid };
		k->count++;
	}
}

static void on_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct slab_state *st = ctx;
	char name[64];
	struct row *r;

	if (!st->free_by_name) {
		st->frees++;
		st->total_frees++;
		st->free_unnamed++;
		return;
	}
	if (tp_field__str(&st->f_name, smp->raw, smp->raw_size, name, sizeof(name)) ||
	    only_index(st, name) < 0)
		return;
	r = row_named(st, name, true);
	if (!r) {
		st->err = -ENOMEM;
		return;
	}
	r->frees++;
	r->total_frees++;
	st->frees++;
	st->total_frees++;
}

static uint64_t line_bytes(const struct slab_state *st, const struct line *l)
{
	return l->info ? l->info->num_slabs * l->info->pagesperslab * st->page : 0;
}

static int cmp_line(const void *a, const void *b, void *ctx)
{
	const struct slab_state *st = ctx;
	const struct line *x = a, *y = b;
	uint64_t vx, vy;

	switch (st->sort) {
	case SORT_OBJECTS:
		vx = x->info ? x->info->num_objs : 0;
		vy = y->info ? y->info->num_objs : 0;
		break;
	case SORT_ALLOCS:
		vx = x->ev ? x->ev->allocs : 0;
		vy = y->ev ? y->ev->allocs : 0;
		break;
	default:
		vx = line_bytes(st, x);
		vy = line_bytes(st, y);
		break;
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;	/* largest first, as slabtop */
	return strcmp(x->name, y->name);
}

static const struct slab_cache *prev_of(const struct slab_state *st, const char *name)
{
	for (size_t i = 0; i < st->nprev; i++)
		if (!strcmp(st->prev[i].name, name))
			return &st->prev[i];
	return NULL;
}

static void print_line(const struct slab_state *st, const struct line *l, const char *when)
{
	const struct slab_cache *c = l->info;
	uint64_t allocs = l->ev ? l->ev->allocs : 0, frees = l->ev ? l->ev->frees : 0;
	const struct slab_cache *p;
	int64_t delta = 0;

	/* The bare rung: the change in active objects stands for the events. */
	if (!st->events && c && (p = prev_of(st, c->name)))
		delta = (int64_t)(c->active_objs - p->active_objs);
	if (st->o->json) {
		printf("{\"type\":\"cache\",\"time\":\"%s\",\"interval\":%lu,\"name\":", when,
		       st->every.printed + 1);
		json__str(stdout, l->name);
		if (c)
			printf(",\"objs\":%" PRIu64 ",\"active\":%" PRIu64 ",\"objsize\":%" PRIu64
			       ",\"slabs\":%" PRIu64 ",\"objperslab\":%" PRIu64 ",\"cache_bytes\":%"
			       PRIu64, c->num_objs, c->active_objs, c->objsize, c->num_slabs,
			       c->objperslab, line_bytes(st, l));
		if (st->events)
			printf(",\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64 ",\"alloc_bytes\":%" PRIu64
			       ",\"total_allocs\":%" PRIu64 ",\"total_frees\":%" PRIu64, allocs, frees,
			       l->ev ? l->ev->bytes : 0, l->ev ? l->ev->total_allocs : 0,
			       l->ev ? l->ev->total_frees : 0);
		else
			printf(",\"active_delta\":%" PRId64, delta);
		printf("}\n");
		return;
	}
	if (c)
		printf("%6" PRIu64 " %6" PRIu64 " %3.0f%% %7.2fK %6" PRIu64 " %8" PRIu64 " %9" PRIu64 "K",
		       c->num_objs, c->active_objs,
		       c->num_objs ? 100.0 * (double)c->active_objs / (double)c->num_objs : 0.0,
		       (double)c->objsize / 1024.0, c->num_slabs, c->objperslab,
		       line_bytes(st, l) / 1024);
	else
		printf("%6s %6s %4s %8s %6s %8s %10s", "-", "-", "-", "-", "-", "-", "-");
	if (st->events)
		printf(" %8" PRIu64 " %8" PRIu64 " %s\n", allocs, frees, l->name);
	else
		printf(" %+9" PRId64 " %s\n", delta, l->name);
}

/* One interval's report, then the next interval starts from zero. */
static int print_report(void *ctx)
{
	static const char *const mem_names[] = { "SReclaimable", "SUnreclaim", NULL };
	struct slab_state *st = ctx;
	bool replay = session__replaying(st->s);
	struct slab_cache *info = NULL;
	size_t ninfo = 0, nlines = 0;
	struct keyed *lines = NULL;
	uint64_t mem[2] = { UINT64_MAX, UINT64_MAX };
	struct errbuf eb = { "" };
	char when[16];
	time_t now = session__wall(st->s);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (!replay) {
		meminfo__read_kb(NULL, mem_names, mem, NULL);
		if (slabinfo__read(NULL, &info, &ninfo, &eb) && !st->warned) {
			fprintf(stderr, "faultline " TOOL ": warning: %s: per-cache objects not shown\n",
				errbuf__str(&eb, -EIO));
			st->warned = true;
		}
	}
	lines = keyed__new(sizeof(struct line));
	if (!lines) {
		st->err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ninfo; i++) {
		struct line *l;
		int created;

		if (only_index(st, info[i].name) < 0)
			continue;
		l = keyed__get(lines, nlines++, &created);
		if (!l) {
			st->err = -ENOMEM;
			goto out;
		}
		*l = (struct line){ &info[i], row_named(st, info[i].name, false), info[i].name };
	}
	/* Event rows slabinfo does not list: call sites, or a replay's caches. */
	for (size_t i = 0; i < keyed__count(st->rows); i++) {
		const struct row *r = keyed__at(st->rows, i);
		bool listed = false;
		struct line *l;
		int created;

		for (size_t j = 0; j < ninfo && !listed; j++)
			listed = !strcmp(info[j].name, r->name);
		if (listed || (!r->allocs && !r->frees))
			continue;
		l = keyed__get(lines, nlines++, &created);
		if (!l) {
			st->err = -ENOMEM;
			goto out;
		}
		*l = (struct line){ NULL, r, r->name };
	}
	keyed__sort(lines, cmp_line, st);
	if (st->o->json) {
		printf("{\"type\":\"interval\",\"time\":\"%s\",\"interval\":%lu", when,
		       st->every.printed + 1);
		if (mem[0] != UINT64_MAX)
			printf(",\"sreclaimable_kb\":%" PRIu64, mem[0]);
		if (mem[1] != UINT64_MAX)
			printf(",\"sunreclaim_kb\":%" PRIu64, mem[1]);
		if (st->events)
			printf(",\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64 ",\"lost\":%" PRIu64,
			       st->allocs, st->frees, session__lost(st->s));
		printf("}\n");
	} else {
		printf("%s", when);
		if (mem[0] != UINT64_MAX && mem[1] != UINT64_MAX)
			printf("  SReclaimable: %" PRIu64 " kB  SUnreclaim: %" PRIu64 " kB", mem[0],
			       mem[1]);
		if (st->events)
			printf("  allocs: %" PRIu64 "  frees: %" PRIu64, st->allocs, st->frees);
		if (session__lost(st->s))
			printf("  LOST: %" PRIu64 " events", session__lost(st->s));
		printf("\n%6s %6s %4s %8s %6s %8s %10s %s\n", "OBJS", "ACTIVE", "USE", "OBJ SIZE",
		       "SLABS", "OBJ/SLAB", "CACHE SIZE", st->events ? "  ALLOCS    FREES NAME" :
		       "   ACTIVE+ NAME");
	}
	for (size_t i = 0; i < keyed__count(lines) && (!st->maxrows || i < st->maxrows); i++)
		print_line(st, keyed__at(lines, i), when);
	if (!st->o->json)
		printf("\n");
	for (size_t i = 0; i < keyed__count(st->rows); i++) {
		struct row *r = keyed__at(st->rows, i);

		r->allocs = r->frees = r->bytes = 0;
	}
	st->allocs = st->frees = 0;
	free(st->prev);
	st->prev = info;
	st->nprev = ninfo;
	info = NULL;
out:
	free(info);
	keyed__free(lines);
	fflush(stdout);
	return 0;
}

static int cmp_kstack(const void *a, const void *b, void *ctx)
{
	const struct kstack *x = a, *y = b;

	(void)ctx;
	if (x->cache != y->cache)
		return x->cache < y->cache ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;	/* stackcount: the most last */
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* -g: the allocating kernel stacks of each -C cache, stackcount's way. */
static void print_stacks(struct slab_state *st)
{
	int cache = -1;

	keyed__sort(st->stacks, cmp_kstack, NULL);
	for (size_t i = 0; i < keyed__count(st->stacks); i++) {
		const struct kstack *k = keyed__at(st->stacks, i);

		if (st->o->json) {
			printf("{\"type\":\"stack\",\"cache\":");
			json__str(stdout, st->only[k->cache]);
			printf(",\"count\":%" PRIu64 ",\"stack\":", k->count);
			report__stack_json(&st->r, k->pid, k->stack);
			printf("}\n");
			continue;
		}
		if (k->cache != cache) {
			cache = k->cache;
			printf("Kernel stacks allocating from %s:\n", st->only[cache]);
		}
		report__stack(&st->r, k->pid, k->stack, "  ", false);
		printf("    %" PRIu64 "\n\n", k->count);
	}
}

static int add_events(struct session *s, struct slab_state *st, struct errbuf *eb)
{
	struct tp_event *alloc = NULL, *free_ev = NULL;
	/* A recording serves a replay's -g too. */
	unsigned int flags = (st->o->stacks && st->nonly) || session__recording(s) ?
			     SESSION_KERNEL_STACK : 0;
	char filter[MAX_CACHES * 80] = "";
	size_t len = 0;
	int err;

	err = session__add_tracepoint(s, "kmem", "kmem_cache_alloc", flags, on_alloc, st, &alloc,
				      eb);
	if (!err)
		err = session__add_tracepoint(s, "kmem", "kmem_cache_free", 0, on_free, st, &free_ev,
					      eb);
	if (err)
		return err;
	st->by_name = !tp_event__field(alloc, "name", &st->a_name);
	st->free_by_name = !tp_event__field(free_ev, "name", &st->f_name);
	tp_event__field(alloc, "bytes_alloc", &st->a_bytes);
	if (!st->by_name && tp_event__field(alloc, "call_site", &st->a_call))
		return errbuf__set(eb, -ENOENT, "kmem_cache_alloc has neither 'name' nor 'call_site'");
	if (!st->by_name) {
		for (size_t i = 0; i < st->nonly; i++)
			if (strncmp(st->only[i], "caller:", 7))
				return errbuf__set(eb, -ENOTSUP, "this kernel's kmem_cache_alloc names "
						   "no cache: -C takes caller:FUNCTION here, not '%s'",
						   st->only[i]);
		fprintf(stderr, "faultline " TOOL ": warning: kmem_cache_alloc names no cache here: "
			"allocations by call site (caller:FUNCTION), frees %s\n",
			st->free_by_name ? "by cache" : "only in total");
	} else if (!st->free_by_name) {
		fprintf(stderr, "faultline " TOOL ": warning: kmem_cache_free names no cache here: "
			"frees only in total\n");
	}
	/* By call site, -C is matched here: the kernel cannot filter on a
	 * function's name. */
	if (!st->nonly || !st->by_name || session__recording(s))
		return 0;
	for (size_t i = 0; i < st->nonly; i++)
		len += (size_t)snprintf(filter + len, sizeof(filter) - len, "%sname == \"%s\"",
					i ? " || " : "", st->only[i]);
	err = session__set_filter(s, alloc, filter, eb);
	if (!err && st->free_by_name)
		err = session__set_filter(s, free_ev, filter, eb);
	return err;
}

static const char *slab_opt(int c, const char *arg, void *ctx)
{
	struct slab_state *st = ctx;
	char *end;

	switch (c) {
	case 'C':
		st->nonly = 0;
		for (const char *t = arg, *e; *t; t = *e ? e + 1 : e) {
			size_t n;

			e = t + strcspn(t, ",");
			n = (size_t)(e - t);
			if (!n)
				continue;	/* strtok's way: empty names skipped */
			if (st->nonly == MAX_CACHES || n > 63 || memchr(t, '"', n) ||
			    memchr(t, '\\', n) || memchr(t, ' ', n))
				return "invalid cache list";
			memcpy(st->only[st->nonly], t, n);
			st->only[st->nonly++][n] = '\0';
		}
		return st->nonly ? NULL : "invalid cache list";
	case 's':
		if (!strcmp(arg, "bytes"))
			st->sort = SORT_BYTES;
		else if (!strcmp(arg, "objects"))
			st->sort = SORT_OBJECTS;
		else if (!strcmp(arg, "allocs"))
			st->sort = SORT_ALLOCS;
		else
			return "invalid sort key";
		return NULL;
	case 'r':
		errno = 0;
		st->maxrows = strtoul(arg, &end, 10);
		return errno || end == arg || *end ? "invalid row count" : NULL;
	}
	return "unknown option";
}

static const char *slab_positional(int argc, char **argv, const char **arg, void *ctx)
{
	struct slab_state *st = ctx;

	return tool_opts__parse_interval(&st->iv, argc, argv, arg);
}

static void on_round(void *ctx)
{
	every__round(&((struct slab_state *)ctx)->every);
}

static const struct tool_option slab_options[] = {
	OPT_SHARED(TOOL_SHARED_PID, "count this process's allocations (all its threads)"),
	OPT_SHARED(TOOL_SHARED_CMD, "run CMD and count its allocations"),
	OPT_SHARED(TOOL_SHARED_ALL, "every process (the default)"),
	OPT_CALL('C', "cache", "CACHE", 'C', "only these caches (comma list, at most 8 names)"),
	OPT_SHARED(TOOL_SHARED_G, "with -C: count the kernel stacks allocating into each cache"),
	OPT_CALL('s', "sort", "bytes|objects|allocs", 's',
		 "sort by cache size (default), objects, or the interval's allocations"),
	OPT_CALL('r', "rows", "ROWS", 'r', "print at most ROWS caches per interval (default 20; 0: all)"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per interval and cache"),
	OPT_SHARED(TOOL_SHARED_MMAP, "ring buffer pages per CPU (power of two)"),
	OPT_END,
};

static const struct tool_cmdline slab_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_G | TOOL_OPT_ANY_ORDER | TOOL_OPT_NO_UNWIND | TOOL_OPT_SNAPSHOT,
	.options = slab_options,
	.text = {
		.args = "[interval [count]]",
		.args_help = TOOL_ARGS_INTERVAL("seconds between reports (default 1)",
						"stop after this many reports (default: until Ctrl-C or "
						"the command's exit)"),
	},
	.opt = slab_opt,
	.positional = slab_positional,
};

static int slab_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	struct slab_state *st = ctx;
	int ret;

	st->maxrows = 20;
	st->iv.secs = 1.0;
	ret = tool_opts__parse_cmdline(o, mode, &slab_cmdline, st, argc, argv);
	if (ret)
		return ret;
	if (o->stacks && !st->nonly) {
		fprintf(stderr, "faultline " TOOL ": -g needs -C CACHE (see 'faultline slab -h')\n");
		return -EINVAL;
	}
	o->sess.no_maps = true;
	o->sess.duration = every__duration(st->iv.secs, st->iv.count);
	st->o = o;
	st->page = (uint64_t)sysconf(_SC_PAGESIZE);
	st->rows = keyed__new(sizeof(struct row));
	st->stacks = keyed__new(sizeof(struct kstack));
	return st->rows && st->stacks ? 0 : -ENOMEM;
}

static int slab_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			   struct errbuf *eb)
{
	struct slab_state *st = ctx;
	int err;

	(void)label;
	st->s = s;
	every__init(&st->every, s, st->iv.secs, st->iv.count, print_report, st);
	report__init(&st->r, s, stdout, false);
	st->events = ladder__is(rung, "tracepoint");
	if (st->events)
		err = add_events(s, st, eb);
	else
		err = slabinfo__read(NULL, &st->prev, &st->nprev, eb);
	if (!err && session__replaying(s))
		fprintf(stderr, "faultline " TOOL ": a recording holds no /proc/slabinfo or "
			"/proc/meminfo: events only\n");
	return err;
}

static int slab_report(void *ctx, struct session *s)
{
	struct slab_state *st = ctx;

	/* The interval in progress when tracing stopped. */
	every__final(&st->every);
	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	if (st->o->stacks)
		print_stacks(st);
	if (st->o->json)
		printf("{\"type\":\"summary\",\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64
		       ",\"frees_unnamed\":%" PRIu64 ",\"lost\":%" PRIu64 "}\n", st->total_allocs,
		       st->total_frees, st->free_unnamed, session__lost(s));
	else if (st->events) {
		fprintf(stderr, "slab summary:\n");
		summary__count(stderr, "allocations:", st->total_allocs, "");
		summary__count(stderr, "frees:", st->total_frees, "");
		summary__count(stderr, "lost events:", session__lost(s), "");
	}
	return EXIT_OK;
}

/* A snapshot: the interval in progress, printed now (the next counts
 * from here), and the stacks so far. */
static int slab_snapshot(void *ctx, struct session *s)
{
	struct slab_state *st = ctx;

	(void)s;
	print_report(st);
	if (!st->err && st->o->stacks)
		print_stacks(st);
	return st->err ? tool__fail(TOOL, NULL, st->err) : EXIT_OK;
}

static void slab_fini(void *ctx)
{
	struct slab_state *st = ctx;

	report__fini(&st->r);
	keyed__free(st->rows);
	keyed__free(st->stacks);
	free(st->prev);
}

/* slab: the slab events give per-cache (or, without the name field,
 * per-call-site) allocations per process, beside /proc/slabinfo's caches
 * when it is readable (a replay has events only); /proc/slabinfo alone
 * gives the system's active objects per cache. */
static const char *const slab_tracepoint_needs[] = {
	"tp:kmem:kmem_cache_alloc", "tp:kmem:kmem_cache_free", NULL
};
static const char *const slab_slabinfo_needs[] = { "proc:slabinfo", NULL };

static const struct rung slab_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints kmem:kmem_cache_alloc/kmem_cache_free + "
	  "/proc/slabinfo", .needs = slab_tracepoint_needs, .loses = "" },
	{ .key = "slabinfo", .label = "/proc/slabinfo (system-wide)", .needs = slab_slabinfo_needs,
	  .loses = "no allocations, frees, processes or stacks: the change in active objects per "
		   "cache per interval" },
};

static const struct ladder slab_ladder = LADDER("slab", slab_rungs);

const struct tool slab_tool = {
	.cmdline = &slab_cmdline,
	.name = TOOL,
	.ladder = &slab_ladder,
	.stacks = TOOL_STACKS_KERNEL,
	.what = "slab allocations",
	.flags = TOOL_RECORDS | TOOL_REPLAYS,
	.counters = { "slabinfo", "/proc/slabinfo", "/proc/slabinfo",
		      "no per-process counts or stacks" },
	.size = sizeof(struct slab_state),
	.init = slab_init,
	.add_events = slab_add_events,
	.round = on_round,
	.report = slab_report,
	.snapshot = slab_snapshot,
	.fini = slab_fini,
};
