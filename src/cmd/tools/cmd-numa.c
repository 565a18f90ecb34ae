/*
 * faultline numa: a process's pages per NUMA node, by kind of mapping, as
 * numastat -p prints them (MB per node: Huge, Heap, Stack, Private, and
 * File, which numastat counts among Private), read from /proc/PID/numa_maps
 * when the run ends (the process held at its exit: session__hold_exit);
 * and, over the run, its page migrations by reason and its moves between
 * nodes (NUMA balancing), with the system's NUMA-hinting faults.
 *
 * Sources (the rungs below, compat/ladder.c's "numa" row), best first:
 *   tracepoint: migrate:mm_migrate_pages in the process's tasks (one a
 *     migrate_pages() call of the kernel's: pages moved and failed, and
 *     why: move_pages(2), mbind, NUMA balancing, compaction...), plus
 *     sched:sched_move_numa (a task moved to another node's CPUs) and
 *     migrate:mm_numa_migrate_ratelimit (3.13 to 5.x: pages NUMA balancing
 *     did not move, rate-limited) where the kernel has them;
 *   vmstat: /proc/vmstat's pgmigrate_* alone: migrations of everyone.
 * Both read /proc/PID/numa_maps, and /proc/vmstat's numa_hint_faults,
 * numa_hint_faults_local, numa_pages_migrated and numa_pte_updates: no
 * kernel has a tracepoint for a NUMA-hinting fault, so those are the
 * system's, said as such.
 *
 * It reads the live process's /proc files: neither recorded nor replayed.
 * Calls src/proc (numa-maps, procstat), src/trace (session), lib/.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/out/lost.h"
#include "cmd/tool.h"
#include "ladder.h"
#include "lib/file.h"
#include "lib/hashmap.h"
#include "lib/json.h"
#include "proc/numa-maps.h"
#include "proc/procstat.h"
#include "trace/session.h"
#include "trace/tp-catalog.h"

#define TOOL "numa"

/* The kernel's enum migrate_reason, in order (include/linux/migrate_mode.h;
 * 4.6's list, appended to since: damon is 6.6+). */
static const char *const reasons[] = {
	"compaction", "memory_failure", "memory_hotplug", "syscall_or_cpuset",
	"mempolicy_mbind", "numa_misplaced", "contig_range", "longterm_pin", "demotion", "damon",
};
#define NREASONS (sizeof(reasons) / sizeof(reasons[0]))

/* The system's counters, before and after the run. */
static const char *const vm_names[] = {
	"numa_hint_faults", "numa_hint_faults_local", "numa_pages_migrated", "numa_pte_updates",
	"pgmigrate_success", "pgmigrate_fail", NULL
};
#define NVM (sizeof(vm_names) / sizeof(vm_names[0]) - 1)

struct migr {
	uint64_t calls, pages, failed, thp;
};

struct numa_state {
	struct tool_opts *o;
	bool verbose, tracing, has_thp, has_moves;
	const char *source;
	struct tp_field f_succ, f_fail, f_thp, f_reason;
	struct tp_field f_src, f_dst, f_rl_nid, f_rl_pages;
	struct migr by_reason[NREASONS + 1];	/* the last: a reason beyond the list */
	struct hashmap *moves;		/* src << 32 | dst -> task moves */
	struct hashmap *ratelimited;	/* node -> pages not migrated */
	uint64_t vm_start[NVM];
	bool vm_ok;
	int err;			/* a handler's, said by the report */
};

static uint64_t field(const struct tp_field *f, const struct sample *smp)
{
	uint64_t v = 0;

	tp_field__u64(f, smp->raw, smp->raw_size, &v);
	return v;
}

/* @n more under @key of @m; a failure is kept in st->err for the report. */
static void add_to(struct numa_state *st, struct hashmap *m, uint64_t key, uint64_t n)
{
	uint64_t v = 0;

	hashmap__get(m, key, &v);
	if (hashmap__set(m, key, v + n))
		st->err = -ENOMEM;
}

static void on_migrate(struct session *s, const struct sample *smp, void *ctx)
{
	struct numa_state *st = ctx;
	uint64_t r = field(&st->f_reason, smp);
	struct migr *m = &st->by_reason[r < NREASONS ? r : NREASONS];

	(void)s;
	m->calls++;
	m->pages += field(&st->f_succ, smp);
	m->failed += field(&st->f_fail, smp);
	if (st->has_thp)
		m->thp += field(&st->f_thp, smp);
}

static void on_move_numa(struct session *s, const struct sample *smp, void *ctx)
{
	struct numa_state *st = ctx;
	uint32_t src = (uint32_t)field(&st->f_src, smp), dst = (uint32_t)field(&st->f_dst, smp);

	(void)s;
	add_to(st, st->moves, (uint64_t)src << 32 | dst, 1);
}

static void on_ratelimit(struct session *s, const struct sample *smp, void *ctx)
{
	struct numa_state *st = ctx;

	(void)s;
	add_to(st, st->ratelimited, field(&st->f_rl_nid, smp), field(&st->f_rl_pages, smp));
}

/* ---- the report ---- */

/* The columns: the online nodes and any node a mapping has pages on. */
static size_t node_columns(const struct numa_maps *nm, unsigned int *cols)
{
	uint64_t mask[NUMA_MAX_NODES / 64] = { 0 };
	char *text = NULL;
	size_t n = 0;

	if (!read_file("/sys/devices/system/node/online", 4096, &text, NULL))
		numa_nodelist__parse(text, mask);
	free(text);
	for (unsigned int i = 0; i < numa_maps__nodes(nm); i++)
		mask[i / 64] |= 1ull << (i % 64);
	for (unsigned int i = 0; i < NUMA_MAX_NODES; i++)
		if (mask[i / 64] >> (i % 64) & 1)
			cols[n++] = i;
	return n;
}

static const char *kind_key(enum numa_kind k)
{
	static const char *const keys[NUMA_KINDS] = { "huge", "heap", "stack", "private", "file" };

	return keys[k];
}

static void print_mappings(const struct numa_maps *nm, const unsigned int *cols, size_t nc,
			   bool json)
{
	char cell[32];

	if (!json) {
		printf("\n%-16s %-24s %-8s %8s", "START", "POLICY", "KIND", "PAGE_KB");
		for (size_t c = 0; c < nc; c++) {
			snprintf(cell, sizeof(cell), "N%u", cols[c]);
			printf(" %8s", cell);
		}
		printf("  FILE\n");
	}
	for (size_t i = 0; i < numa_maps__count(nm); i++) {
		const struct numa_vma *v = numa_maps__vma(nm, i);

		if (json) {
			printf("{\"type\":\"mapping\",\"start\":\"0x%" PRIx64 "\",\"policy\":", v->start);
			json__str(stdout, v->policy);
			printf(",\"kind\":\"%s\",\"page_kb\":%" PRIu64 ",\"nodes\":{", kind_key(v->kind),
			       v->page_kb);
			for (size_t k = 0; k < v->nn; k++)
				printf("%s\"%u\":%" PRIu64, k ? "," : "", v->node[k], v->pages[k]);
			printf("},\"path\":");
			if (v->path)
				json__str(stdout, v->path);
			else
				printf("null");
			printf("}\n");
			continue;
		}
		printf("%016" PRIx64 " %-24s %-8s %8" PRIu64, v->start, v->policy,
		       numa_kind__name(v->kind), v->page_kb);
		for (size_t c = 0; c < nc; c++)
			printf(" %8" PRIu64, numa_vma__pages(v, cols[c]));
		/* A name with a newline stays on its line: the kernel's own
		 * escape (\012) is how numa_maps showed it. */
		printf("  ");
		for (const char *p = v->path ? v->path : ""; *p; p++)
			if ((unsigned char)*p < ' ' || *p == '\\')
				printf("\\%03o", (unsigned char)*p);
			else
				putchar(*p);
		printf("\n");
	}
}

static void print_rule(size_t nc)
{
	printf("%-16s ", "----------------");
	for (size_t c = 0; c <= nc; c++)
		printf(" %15s", "---------------");
	printf("\n");
}

/* numastat -p's table, MB per node. */
static void print_usage_text(const struct numa_maps *nm, const unsigned int *cols, size_t nc,
			     pid_t pid, const char *comm)
{
	char head[32];
	uint64_t kb;

	printf("Per-node process memory usage (in MBs) for PID %d (%s)\n", (int)pid, comm);
	printf("%-16s ", "");
	for (size_t c = 0; c < nc; c++) {
		snprintf(head, sizeof(head), "Node %u", cols[c]);
		printf(" %15s", head);
	}
	printf(" %15s\n", "Total");
	print_rule(nc);
	for (int k = 0; k <= NUMA_KINDS; k++) {
		if (k == NUMA_KINDS)
			print_rule(nc);
		printf("%-16s ", k < NUMA_KINDS ? numa_kind__name((enum numa_kind)k) : "Total");
		kb = 0;
		for (size_t c = 0; c < nc; c++) {
			uint64_t x = numa_maps__kb(nm, (enum numa_kind)k, cols[c]);

			printf(" %15.2f", (double)x / 1024);
			kb += x;
		}
		printf(" %15.2f\n", (double)kb / 1024);
	}
}

static void print_usage_json(const struct numa_maps *nm, const unsigned int *cols, size_t nc)
{
	for (size_t c = 0; c < nc; c++) {
		printf("{\"type\":\"node\",\"node\":%u", cols[c]);
		for (int k = 0; k <= NUMA_KINDS; k++)
			printf(",\"%s_kb\":%" PRIu64, k < NUMA_KINDS ? kind_key((enum numa_kind)k) : "total",
			       numa_maps__kb(nm, (enum numa_kind)k, cols[c]));
		printf("}\n");
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A map's keys, sorted, into a malloc'ed array (*n of them); NULL when
 * empty or out of memory. */
static uint64_t *sorted_keys(const struct hashmap *m, size_t *n)
{
	uint64_t *k = calloc(hashmap__count(m) + 1, sizeof(*k)), key, val;
	size_t pos = 0;

	*n = 0;
	while (k && hashmap__next(m, &pos, &key, &val))
		k[(*n)++] = key;
	if (k)
		qsort(k, *n, sizeof(*k), cmp_u64);
	return k;
}

static void print_migrations(const struct numa_state *st, bool json)
{
	uint64_t total = 0, failed = 0, moves = 0, *keys, v;
	size_t n;

	if (!json)
		printf("\nPage migrations by the process (migrate:mm_migrate_pages):\n"
		       "%-20s %8s %8s %8s %8s\n", "REASON", "CALLS", "PAGES", "FAILED", "THP");
	for (size_t r = 0; r <= NREASONS; r++) {
		const struct migr *m = &st->by_reason[r];
		const char *name = r < NREASONS ? reasons[r] : "other";

		total += m->pages;
		failed += m->failed;
		if (!m->calls)
			continue;
		if (json)
			printf("{\"type\":\"migrations\",\"reason\":\"%s\",\"calls\":%" PRIu64
			       ",\"pages\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"thp\":%" PRIu64 "}\n",
			       name, m->calls, m->pages, m->failed, m->thp);
		else
			printf("%-20s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n", name,
			       m->calls, m->pages, m->failed, m->thp);
	}
	if (!json)
		printf("%-20s %8s %8" PRIu64 " %8" PRIu64 "\n", "total", "", total, failed);
	keys = sorted_keys(st->moves, &n);
	if (!json)
		printf("Task moves between nodes (sched:sched_move_numa):%s\n",
		       !st->has_moves ? " not traced (no such tracepoint)" : n ? "" : " none");
	for (size_t i = 0; i < n; i++) {
		hashmap__get(st->moves, keys[i], &v);
		moves += v;
		if (json)
			printf("{\"type\":\"task_move\",\"src_node\":%u,\"dst_node\":%u,\"count\":%"
			       PRIu64 "}\n", (unsigned int)(keys[i] >> 32), (unsigned int)keys[i], v);
		else
			printf("  node %u -> node %u: %" PRIu64 "\n", (unsigned int)(keys[i] >> 32),
			       (unsigned int)keys[i], v);
	}
	free(keys);
	keys = sorted_keys(st->ratelimited, &n);
	for (size_t i = 0; i < n; i++) {
		hashmap__get(st->ratelimited, keys[i], &v);
		if (json)
			printf("{\"type\":\"ratelimited\",\"node\":%u,\"pages\":%" PRIu64 "}\n",
			       (unsigned int)keys[i], v);
		else
			printf("Pages NUMA balancing did not move to node %u (rate-limited): %" PRIu64
			       "\n", (unsigned int)keys[i], v);
	}
	free(keys);
}

/* The system's counters over the run: text, or the summary's members. */
static void print_vmstat(const struct numa_state *st, bool json)
{
	uint64_t now[NVM];

	if (!st->vm_ok || vmstat__read(NULL, vm_names, now, NULL)) {
		if (json)
			printf(",\"system\":null");
		return;
	}
	printf(json ? ",\"system\":{" : "\nSystem-wide during the run (/proc/vmstat):");
	for (size_t i = 0; i < NVM; i++) {
		if (json)
			printf("%s\"%s\":", i ? "," : "", vm_names[i]);
		else
			printf(" %s ", vm_names[i]);
		if (now[i] == VMSTAT_ABSENT)
			printf(json ? "null" : "-");
		else
			printf("%" PRIu64, vmstat__delta(now[i], st->vm_start[i]));
	}
	printf(json ? "}" : "\n");
}

static int numa_report(void *ctx, struct session *s)
{
	struct numa_state *st = ctx;
	pid_t pid = session__target_pid(s);
	unsigned int *cols = NULL;
	struct numa_maps *nm = NULL;
	struct errbuf eb = { "" };
	const char *comm = session__comm(s, pid);
	bool json = st->o->json;
	size_t nc;
	int err;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	err = numa_maps__read(NULL, pid, &nm, &eb);
	if (err)
		return tool__fail(TOOL, &eb, err);
	cols = calloc(NUMA_MAX_NODES, sizeof(*cols));
	if (!cols) {
		numa_maps__free(nm);
		return tool__fail(TOOL, NULL, -ENOMEM);
	}
	nc = node_columns(nm, cols);
	if (json) {
		print_mappings(nm, cols, nc, true);
		print_usage_json(nm, cols, nc);
	} else {
		print_usage_text(nm, cols, nc, pid, comm);
		if (st->verbose)
			print_mappings(nm, cols, nc, false);
	}
	if (st->tracing)
		print_migrations(st, json);
	if (json) {
		printf("{\"type\":\"summary\",\"pid\":%d,\"comm\":", (int)pid);
		json__str(stdout, comm);
		printf(",\"source\":");
		json__str(stdout, st->source);
		printf(",\"mappings\":%zu,\"bad_lines\":%zu", numa_maps__count(nm), numa_maps__bad(nm));
		print_vmstat(st, true);
		printf(",\"lost\":%" PRIu64 "}\n", session__lost(s));
	} else {
		print_vmstat(st, false);
		if (numa_maps__bad(nm))
			printf("%zu lines of numa_maps not understood, left out\n", numa_maps__bad(nm));
	}
	if (session__lost(s))
		lost__warn(s, TOOL, session__lost(s), "the migration counts are low");
	free(cols);
	numa_maps__free(nm);
	return EXIT_OK;
}

/* ---- setup ---- */

/* One tracepoint and its fields (@names NULL-ended, one of @fields each);
 * @ev, when not NULL, gets the event for optional fields. */
static int add_tp(struct session *s, const char *sys, const char *name, session_sample_fn fn,
		  struct numa_state *st, const char *const *names, struct tp_field *const *fields,
		  struct tp_event **ev, struct errbuf *eb)
{
	struct tp_event *e = NULL;
	int err = session__add_tracepoint(s, sys, name, 0, fn, st, &e, eb);

	for (size_t i = 0; !err && names[i]; i++)
		if (tp_event__field(e, names[i], fields[i]))
			err = errbuf__set(eb, -ENOENT, "%s:%s lacks the field '%s'", sys, name,
					  names[i]);
	if (ev)
		*ev = e;
	return err;
}

static int numa_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			   struct errbuf *eb)
{
	static const char *const migrate_names[] = { "succeeded", "failed", "reason", NULL };
	static const char *const move_names[] = { "src_nid", "dst_nid", NULL };
	static const char *const rl_names[] = { "dst_nid", "nr_pages", NULL };
	struct numa_state *st = ctx;
	const struct features *f = session__features(s);
	struct tp_field *migrate_fields[] = { &st->f_succ, &st->f_fail, &st->f_reason };
	struct tp_field *move_fields[] = { &st->f_src, &st->f_dst };
	struct tp_field *rl_fields[] = { &st->f_rl_nid, &st->f_rl_pages };
	struct tp_event *ev = NULL;
	struct errbuf pe = { "" };
	int err = 0;

	st->source = label;
	/* numa_maps is read when the run ends: keep the process's memory
	 * until then, past its exit. */
	if ((err = session__hold_exit(s, &pe)))
		fprintf(stderr, "faultline " TOOL ": %s: its pages cannot be read if it exits "
			"first\n", errbuf__str(&pe, err));
	st->vm_ok = !vmstat__read(NULL, vm_names, st->vm_start, NULL);
	st->tracing = ladder__is(rung, "tracepoint");
	if (!st->tracing)
		return 0;
	err = add_tp(s, "migrate", "mm_migrate_pages", on_migrate, st, migrate_names,
		     migrate_fields, &ev, eb);
	/* thp_succeeded is 5.x's (3.10's event has succeeded, failed, mode
	 * and reason): without it THP counts 0. */
	if (!err)
		st->has_thp = !tp_event__field(ev, "thp_succeeded", &st->f_thp);
	st->has_moves = features__has_tracepoint(f, "sched", "sched_move_numa");
	if (!err && st->has_moves)
		err = add_tp(s, "sched", "sched_move_numa", on_move_numa, st, move_names,
			     move_fields, NULL, eb);
	if (!err && features__has_tracepoint(f, "migrate", "mm_numa_migrate_ratelimit"))
		err = add_tp(s, "migrate", "mm_numa_migrate_ratelimit", on_ratelimit, st, rl_names,
			     rl_fields, NULL, eb);
	return err;
}

static const char *numa_opt(int c, const char *arg, void *ctx)
{
	(void)c;
	(void)arg;
	((struct numa_state *)ctx)->verbose = true;	/* -v, the only one */
	return NULL;
}

static const struct tool_option numa_options[] = {
	OPT_SHARED(TOOL_SHARED_PID, "this process: its pages when tracing ends, its migrations until then"),
	OPT_SHARED(TOOL_SHARED_CMD, "run CMD: its pages as it exits, its migrations over its run"),
	OPT_CALL('v', "verbose", NULL, 'v', "every mapping too: start, policy, kind, pages per node, file"),
	OPT_END,
};

static const struct tool_cmdline numa_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_ALL | TOOL_OPT_NO_UNWIND,
	.options = numa_options,
	.opt = numa_opt,
};

static int numa_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
		     char **argv)
{
	struct numa_state *st = ctx;
	int ret;

	ret = tool_opts__parse_cmdline(o, mode, &numa_cmdline, st, argc, argv);
	if (ret)
		return ret;
	if (!o->sess.pid && !o->sess.cmd) {
		fprintf(stderr, "faultline " TOOL ": which process? -p PID, -c CMD or -- CMD "
			"(see 'faultline " TOOL " -h')\n");
		return -EINVAL;
	}
	o->sess.no_maps = true;
	st->o = o;
	st->moves = hashmap__new();
	st->ratelimited = hashmap__new();
	return st->moves && st->ratelimited ? 0 : -ENOMEM;
}

static void numa_fini(void *ctx)
{
	struct numa_state *st = ctx;

	hashmap__free(st->moves);
	hashmap__free(st->ratelimited);
}

/* numa: the migrations tracepoint first; numa_maps and /proc/vmstat on
 * both rungs. */
static const char *const numa_tracepoint_needs[] = { "tp:migrate:mm_migrate_pages", NULL };

static const struct rung numa_rungs[] = {
	{ .key = "tracepoint", .label = "/proc/PID/numa_maps; tracepoints migrate:mm_migrate_pages "
	  "(+ sched:sched_move_numa, migrate:mm_numa_migrate_ratelimit); /proc/vmstat numa_*",
	  .needs = numa_tracepoint_needs, .loses = "" },
	{ .key = "vmstat", .label = "/proc/PID/numa_maps; /proc/vmstat numa_*, pgmigrate_* "
	  "(system-wide)", .needs = ladder_no_needs,
	  .loses = "migrations counted for the whole system, not by the process; no task moves" },
};

static const struct ladder numa_ladder = LADDER("numa", numa_rungs);

const struct tool numa_tool = {
	.cmdline = &numa_cmdline,
	.name = TOOL,
	.ladder = &numa_ladder,
	.stacks = TOOL_STACKS_NONE,
	.what = "NUMA page placement and migrations",
	.why_not = "it reads the live process's /proc/PID/numa_maps",
	.counters = { "vmstat", "/proc counters", "/proc/vmstat pgmigrate_*",
		      "migrations are not limited to the process" },
	.size = sizeof(struct numa_state),
	.init = numa_init,
	.add_events = numa_add_events,
	.report = numa_report,
	.fini = numa_fini,
};
