/*
 * faultline swapin: swap-ins counted by process, per interval, as BCC's
 * swapin prints them (a time line, then COMM PID COUNT sorted by count).
 *
 * Sources (its ladder, before swapin_tool), best first:
 *   kprobe swap_read_folio / swap_readpage: BCC's own probe points, one
 *     count per folio read from swap (readahead included, charged to the
 *     task that triggered it);
 *   major faults: the software event PERF_COUNT_SW_PAGE_FAULTS_MAJ with the
 *     fault address, kept when the address lies in an anonymous or shmem
 *     mapping of the faulting process: a major fault there is a page that
 *     had to be read back from swap.  It counts faults, not reads;
 *   /proc/vmstat pswpin: pages swapped in by everyone, one system-wide
 *     line per interval; per-process counts cannot come from it.
 * No kernel has a generic swap-in tracepoint (KERNEL-COMPAT.md, D).
 *
 * From a recording (faultline report -i FILE swapin [interval [count]])
 * the reports are the recorded run's, on its clock, the major faults
 * looked up in the recorded mappings.  The /proc/vmstat rung can be
 * neither recorded nor replayed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <linux/perf_event.h>

#include "agg/every.h"
#include "lib/json.h"
#include "stack/addrspace.h"
#include "cmd/out/lost.h"
#include "lib/hashmap.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "proc/procstat.h"
#include "ladder.h"

#define TOOL "swapin"

struct row {
	pid_t pid;
	uint64_t count;
};

struct swapin_state {
	struct tool_opts *o;
	struct session *s;
	const char *source;		/* the rung's label, for the banner */
	bool notime, json, vmstat;
	struct tool_interval iv;	/* count 0: until stopped */
	struct every every;
	struct hashmap *counts;		/* tgid -> swap-ins this interval */
	uint64_t total, skipped;	/* counted; major faults outside swap-backed maps */
	uint64_t vm_prev;
	int err;
};

static const char *const vm_names[] = { "pswpin", NULL };

static void count_pid(struct swapin_state *st, pid_t pid)
{
	uint64_t n = 0;

	hashmap__get(st->counts, (uint64_t)pid, &n);
	if (hashmap__set(st->counts, (uint64_t)pid, n + 1))
		st->err = -ENOMEM;
	st->total++;
}

static void on_swap_read(struct session *s, const struct sample *smp, void *ctx)
{
	count_pid(ctx, (pid_t)smp->pid);
}

static void on_major_fault(struct session *s, const struct sample *smp, void *ctx)
{
	struct swapin_state *st = ctx;
	const struct map *m = addrspaces__find(session__addrspaces(s), (pid_t)smp->pid, smp->addr);

	if (m && map__swap_backed(m))
		count_pid(st, (pid_t)smp->pid);
	else
		st->skipped++;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int print_report(void *ctx)
{
	struct swapin_state *st = ctx;
	struct session *s = st->s;
	size_t n = hashmap__count(st->counts), i = 0, pos = 0;
	struct row *rows = NULL;
	uint64_t key, val, vm[1];
	char when[16];
	time_t now = session__wall(s);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (!st->json) {
		if (!st->notime)
			printf("%s\n", when);
		printf("%-16s %-7s %s\n", "COMM", "PID", "COUNT");
	}
	if (st->vmstat) {
		if (!vmstat__read(NULL, vm_names, vm, NULL)) {
			uint64_t d = vmstat__delta(vm[0], st->vm_prev);

			if (st->json)
				printf("{\"type\":\"interval\",\"time\":\"%s\",\"interval\":%lu,"
				       "\"source\":\"vmstat\",\"system_wide\":true,\"pswpin\":%" PRIu64
				       "}\n", when, st->every.printed + 1, d);
			else
				printf("%-16s %-7s %" PRIu64 "\n", "[system-wide]", "-", d);
			st->vm_prev = vm[0];
		}
		goto out;
	}
	if (n) {
		rows = calloc(n, sizeof(*rows));
		if (!rows) {
			st->err = -ENOMEM;
			goto out;
		}
		while (i < n && hashmap__next(st->counts, &pos, &key, &val))
			rows[i++] = (struct row){ (pid_t)key, val };
		n = i;
		qsort(rows, n, sizeof(*rows), cmp_row);
	}
	for (i = 0; i < n; i++) {
		const char *comm = session__comm(s, rows[i].pid);

		if (st->json) {
			printf("{\"type\":\"swapin\",\"time\":\"%s\",\"interval\":%lu,\"pid\":%d,"
			       "\"comm\":", when, st->every.printed + 1, (int)rows[i].pid);
			json__str(stdout, comm);
			printf(",\"count\":%" PRIu64 "}\n", rows[i].count);
		} else {
			printf("%-16s %-7d %" PRIu64 "\n", comm, (int)rows[i].pid, rows[i].count);
		}
	}
	/* A fresh map per interval, as BCC clears its table. */
	hashmap__free(st->counts);
	st->counts = hashmap__new();
	if (!st->counts)
		st->err = -ENOMEM;
out:
	if (!st->json)
		printf("\n");
	free(rows);
	fflush(stdout);
	return 0;
}

/* Tracing is live: the first interval starts, and BCC's line says so
 * (the tool's own, not the driver's: struct tool.what is NULL). */
static void on_ready(void *ctx)
{
	struct swapin_state *st = ctx;
	const struct tool_opts *o = st->o;
	char target[256];

	tool_opts__describe(o, target, sizeof(target));
	every__ready(&st->every);
	/* A report prints the report alone. */
	if (session__replaying(st->s))
		return;
	if (o->sess.cmd)
		fprintf(stderr, "Executing '%s' and counting swap ins with %s.\n", o->sess.cmd,
			st->source);
	else
		fprintf(stderr, "Counting swap ins of %s with %s. Ctrl-C to end.\n", target,
			st->source);
}

static void on_round(void *ctx)
{
	every__round(&((struct swapin_state *)ctx)->every);
}

static const char *swapin_opt(int c, const char *arg, void *ctx)
{
	struct swapin_state *st = ctx;

	/* BCC's -T/--notime; the only option of this tool's own. */
	st->notime = true;
	return NULL;
}

static const char *swapin_positional(int argc, char **argv, const char **arg, void *ctx)
{
	struct swapin_state *st = ctx;

	return tool_opts__parse_interval(&st->iv, argc, argv, arg);
}

static const struct tool_option swapin_options[] = {
	OPT_SHARED(TOOL_SHARED_PID, "count this process only (all its threads)"),
	OPT_SHARED(TOOL_SHARED_CMD, "run CMD and count its swap-ins"),
	OPT_SHARED(TOOL_SHARED_ALL, "every process (the default)"),
	OPT_CALL('T', "notime", NULL, 'T', "do not print the time line (BCC's -T/--notime)"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per process and interval"),
	OPT_END,
};

static const struct tool_cmdline swapin_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_ANY_ORDER | TOOL_OPT_NO_UNWIND,
	.options = swapin_options,
	.text = {
		.args = "[interval [count]]",
		.args_help = TOOL_ARGS_INTERVAL("seconds between reports (default 1)",
						"stop after this many reports (default: until Ctrl-C)"),
	},
	.opt = swapin_opt,
	.positional = swapin_positional,
};

static int swapin_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			     struct errbuf *eb)
{
	struct swapin_state *st = ctx;

	st->s = s;
	every__init(&st->every, s, st->iv.secs, st->iv.count, print_report, st);
	st->source = label;
	st->vmstat = ladder__is(rung, "vmstat");
	if (ladder__is(rung, "kprobe:"))
		return session__add_kprobe(s, "swapin", rung + 7, false, NULL, 0, on_swap_read, st,
					   NULL, eb);
	if (ladder__is(rung, "majfault"))
		return session__add_software(s, "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ,
					     SESSION_SAMPLE_ADDR, on_major_fault, st, eb);
	return vmstat__read(NULL, vm_names, &st->vm_prev, eb);
}

static int swapin_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
		       char **argv)
{
	struct swapin_state *st = ctx;
	int ret;

	st->iv.secs = 1.0;
	ret = tool_opts__parse_cmdline(o, mode, &swapin_cmdline, st, argc, argv);
	if (ret)
		return ret;
	if (every__duration(st->iv.secs, st->iv.count) > 0)
		o->sess.duration = every__duration(st->iv.secs, st->iv.count);
	st->o = o;
	st->json = o->json;
	st->counts = hashmap__new();
	return st->counts ? 0 : -ENOMEM;
}

static int swapin_report(void *ctx, struct session *s)
{
	struct swapin_state *st = ctx;

	/* The interval in progress when tracing stopped (BCC prints it on
	 * Ctrl-C too). */
	every__final(&st->every);
	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	if (st->json && !st->vmstat)
		printf("{\"type\":\"summary\",\"swapins\":%" PRIu64 ",\"other_major_faults\":%" PRIu64
		       ",\"lost\":%" PRIu64 "}\n", st->total, st->skipped, session__lost(s));
	else if (session__lost(s))
		lost__warn(s, TOOL, session__lost(s), "the swap-in counts are low");
	return EXIT_OK;
}

static void swapin_fini(void *ctx)
{
	hashmap__free(((struct swapin_state *)ctx)->counts);
}

/* swapin: BCC's kprobes first (folio name, then the pre-6.8 one). */
static const char *const swapin_folio_needs[] = { "feat:kprobes", "kfunc:swap_read_folio", NULL };
static const char *const swapin_page_needs[] = { "feat:kprobes", "kfunc:swap_readpage", NULL };
static const char *const swapin_majfault_needs[] = { "feat:perf_events", NULL };

static const struct rung swapin_rungs[] = {
	{ .key = "kprobe:swap_read_folio", .label = "kprobe swap_read_folio", .needs = swapin_folio_needs,
	  .loses = "" },
	{ .key = "kprobe:swap_readpage", .label = "kprobe swap_readpage", .needs = swapin_page_needs,
	  .loses = "" },
	{ .key = "majfault", .label = "major faults in anonymous/shmem mappings (software event with fault address)",
	  .needs = swapin_majfault_needs,
	  .loses = "counts faults, not reads: pages read ahead, and swap-ins outside a fault "
		   "(swapoff, MADV_WILLNEED, khugepaged), are not seen" },
	{ .key = "vmstat", .label = "/proc/vmstat pswpin (system-wide)", .needs = ladder_no_needs,
	  .loses = "no per-process counts: one system-wide line of pages swapped in" },
};

static const struct ladder swapin_ladder = LADDER("swapin", swapin_rungs);

const struct tool swapin_tool = {
	.cmdline = &swapin_cmdline,
	.name = TOOL,
	.ladder = &swapin_ladder,
	.stacks = TOOL_STACKS_NONE,
	.what = NULL,			/* on_ready says BCC's line */
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS,
	.counters = { "vmstat", "/proc counters", "/proc/vmstat pswpin",
		      "it cannot be limited to one process" },
	.size = sizeof(struct swapin_state),
	.init = swapin_init,
	.add_events = swapin_add_events,
	.ready = on_ready,
	.round = on_round,
	.report = swapin_report,
	.fini = swapin_fini,
};
