/*
 * faultline reclaim: direct reclaim as BCC's drsnoop shows it, one line per
 * reclaim a process had to do itself (COMM PID LAT(ms) PAGES), and with -s
 * the per-interval vmscan summary of bpftrace's vmscan.bt (slab shrink
 * time, direct and memcg reclaim time, kswapd wakeups, pages written).
 *
 * Sources (its ladder, before reclaim_tool): the vmscan tracepoints, begin and
 * end paired per thread (both fire in the reclaiming task, so -p traces
 * just that process); global direct reclaim and memcg reclaim (a cgroup
 * over its limit) are separate pairs and both are shown, as drsnoop shows
 * only the first.  The summary's events are each used when this kernel has
 * them (mm_vmscan_write_folio was mm_vmscan_writepage before 5.19).  Last
 * rung: /proc/vmstat direct reclaim counters, system-wide, per interval.
 * Every field is read by name: the layouts changed in 4.8 and 5.2.
 *
 * From a recording (faultline report -i FILE reclaim ...) every option
 * applies after the fact: events, -T times and -s intervals are the
 * recorded run's, on its clock, and [duration] counts recorded seconds.
 * The /proc/vmstat rung can be neither recorded nor replayed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/every.h"
#include "lib/json.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "agg/reclaim-pair.h"
#include "cmd/out/report.h"
#include "cmd/out/summary.h"
#include "lib/numfmt.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "proc/procstat.h"
#include "ladder.h"

#define TOOL "reclaim"

static const char *const kind_names[RECLAIM__COUNT] = { "direct", "memcg", "slab" };

/* log2 buckets of nanoseconds, as bpftrace's hist(). */
#define HIST_BUCKETS 64
struct hist {
	uint64_t b[HIST_BUCKETS];
};

struct interval {
	uint64_t ns[RECLAIM__COUNT];	/* time spent, ended in this interval */
	uint64_t kswapd_wakes, writepages;
};

struct reclaim_state {
	struct tool_opts *o;
	struct session *s;
	bool summary, json;
	double interval;
	struct tp_field f_pages[2];	/* nr_reclaimed of the direct/memcg end events */
	struct reclaim_pair *pair;	/* begin/end by thread and kind */
	uint64_t first_time;		/* -T base: the first event's time */
	bool have_first;
	struct interval cur;
	struct hist hist[RECLAIM__COUNT];
	const char *writepage_event;	/* NULL when the kernel has none */
	bool have_slab, have_wake;
	/* interval clock (the session's: a replay's is the recording's) */
	struct every timer;		/* -s, vmstat: every interval seconds */
	uint64_t start_ns;		/* when tracing began */
	/* vmstat rung */
	bool vmstat;
	uint64_t vm_prev[4];
	int err;
};

static const char *const vm_names[] = { "allocstall*", "pgscan_direct", "pgsteal_direct",
					"pgscan_kswapd", NULL };

static void hist_add(struct hist *h, uint64_t v)
{
	int i = v ? 64 - __builtin_clzll(v) : 0;	/* 0: [0], i: [2^(i-1), 2^i) */

	h->b[i < HIST_BUCKETS ? i : HIST_BUCKETS - 1]++;
}

/* 1024-based label as bpftrace prints bucket bounds: 512, 1K, 256K, 4M. */
static void size_label(uint64_t v, char *buf, size_t n)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (v >= 1024 && v % 1024 == 0 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, n, "%" PRIu64, v);
	else
		snprintf(buf, n, "%" PRIu64 "%c", v, units[u]);
}

static void hist_print(const char *name, const struct hist *h)
{
	uint64_t max = 0;
	int lo = -1, hi = -1;

	for (int i = 0; i < HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
		if (h->b[i] > max)
			max = h->b[i];
	}
	if (lo < 0)
		return;
	printf("@%s:\n", name);
	for (int i = lo; i <= hi; i++) {
		char a[24], b[24], label[64], bar[53];
		size_t w = (size_t)(h->b[i] * 52 / max);

		if (i == 0) {
			snprintf(label, sizeof(label), "[0]");
		} else {
			size_label(1ULL << (i - 1), a, sizeof(a));
			size_label(i < 64 ? 1ULL << i : UINT64_MAX, b, sizeof(b));
			snprintf(label, sizeof(label), "[%s, %s)", a, b);
		}
		memset(bar, '@', w);
		bar[w] = '\0';
		printf("%-20s %8" PRIu64 " |%-52s|\n", label, h->b[i], bar);
	}
	printf("\n");
}

static void print_event(struct session *s, struct reclaim_state *st, const struct sample *smp,
			enum reclaim_kind k, uint64_t lat_ns, uint64_t pages)
{
	const char *comm = session__comm(s, (pid_t)smp->pid);

	if (!st->have_first) {
		st->first_time = smp->time;
		st->have_first = true;
	}
	if (st->json) {
		printf("{\"type\":\"reclaim\",\"time\":%.9f,\"pid\":%u,\"tid\":%u,\"comm\":",
		       (double)(smp->time - st->first_time) / 1e9, smp->pid, smp->tid);
		json__str(stdout, comm);
		printf(",\"kind\":\"%s\",\"lat_ms\":%.3f,\"pages\":%" PRIu64 "}\n", kind_names[k],
		       (double)lat_ns / 1e6, pages);
	} else {
		if (st->o->timestamps)
			printf("%-14.9f ", (double)(smp->time - st->first_time) / 1e9);
		printf("%-14.14s %-6u %8.2f %5" PRIu64 "\n", comm, smp->pid, (double)lat_ns / 1e6,
		       pages);
	}
	tool__event_done();
}

static void on_begin(struct reclaim_state *st, const struct sample *smp, enum reclaim_kind k)
{
	if (reclaim_pair__begin(st->pair, (pid_t)smp->tid, k, smp->time))
		st->err = -ENOMEM;
}

/* The end of a pair: the latency, or nothing when its begin came before
 * tracing did. */
static bool end_pair(struct reclaim_state *st, const struct sample *smp, enum reclaim_kind k,
		     uint64_t pages, uint64_t *lat)
{
	if (!reclaim_pair__end(st->pair, (pid_t)smp->tid, k, smp->time, pages, lat))
		return false;
	st->cur.ns[k] += *lat;
	hist_add(&st->hist[k], *lat);
	return true;
}

static void on_reclaim_end(struct session *s, struct reclaim_state *st, const struct sample *smp,
			   enum reclaim_kind k)
{
	uint64_t lat, pages = 0;

	tp_field__u64(&st->f_pages[k], smp->raw, smp->raw_size, &pages);
	if (!end_pair(st, smp, k, pages, &lat))
		return;
	if (!st->summary)
		print_event(s, st, smp, k, lat, pages);
}

static void on_direct_begin(struct session *s, const struct sample *smp, void *ctx)
{
	on_begin(ctx, smp, RECLAIM_DIRECT);
}

static void on_direct_end(struct session *s, const struct sample *smp, void *ctx)
{
	on_reclaim_end(s, ctx, smp, RECLAIM_DIRECT);
}

static void on_memcg_begin(struct session *s, const struct sample *smp, void *ctx)
{
	on_begin(ctx, smp, RECLAIM_MEMCG);
}

static void on_memcg_end(struct session *s, const struct sample *smp, void *ctx)
{
	on_reclaim_end(s, ctx, smp, RECLAIM_MEMCG);
}

static void on_slab_begin(struct session *s, const struct sample *smp, void *ctx)
{
	on_begin(ctx, smp, RECLAIM_SLAB);
}

static void on_slab_end(struct session *s, const struct sample *smp, void *ctx)
{
	uint64_t lat;

	end_pair(ctx, smp, RECLAIM_SLAB, 0, &lat);
}

static void on_wake(struct session *s, const struct sample *smp, void *ctx)
{
	((struct reclaim_state *)ctx)->cur.kswapd_wakes++;
}

static void on_writepage(struct session *s, const struct sample *smp, void *ctx)
{
	((struct reclaim_state *)ctx)->cur.writepages++;
}

static void clock_label(const struct reclaim_state *st, char *buf, size_t n)
{
	time_t now = session__wall(st->s);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, n, "%H:%M:%S", &tm);
}

/* One vmscan.bt line for the interval that just ended, then start over. */
static void print_interval(struct reclaim_state *st)
{
	char when[16];

	clock_label(st, when, sizeof(when));
	if (st->json)
		printf("{\"type\":\"interval\",\"time\":\"%s\",\"interval\":%lu,\"slab_ms\":%.3f,"
		       "\"direct_ms\":%.3f,\"memcg_ms\":%.3f,\"kswapd_wakes\":%" PRIu64
		       ",\"writepage\":%" PRIu64 "}\n", when, st->timer.printed + 1,
		       st->cur.ns[RECLAIM_SLAB] / 1e6, st->cur.ns[RECLAIM_DIRECT] / 1e6,
		       st->cur.ns[RECLAIM_MEMCG] / 1e6, st->cur.kswapd_wakes, st->cur.writepages);
	else
		printf("%-8s   %10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %6" PRIu64 " %9" PRIu64 "\n",
		       when, st->cur.ns[RECLAIM_SLAB] / 1000000, st->cur.ns[RECLAIM_DIRECT] / 1000000,
		       st->cur.ns[RECLAIM_MEMCG] / 1000000, st->cur.kswapd_wakes, st->cur.writepages);
	memset(&st->cur, 0, sizeof(st->cur));
}

/* The vmstat rung's line: deltas since the last one. */
static void print_vmstat_interval(struct reclaim_state *st)
{
	uint64_t now[4];
	char when[16];

	if (vmstat__read(NULL, vm_names, now, NULL))
		return;
	clock_label(st, when, sizeof(when));
	if (st->json)
		printf("{\"type\":\"interval\",\"time\":\"%s\",\"interval\":%lu,\"source\":\"vmstat\","
		       "\"allocstalls\":%" PRIu64 ",\"pgscan_direct\":%" PRIu64 ",\"pgsteal_direct\":%"
		       PRIu64 ",\"pgscan_kswapd\":%" PRIu64 "}\n", when, st->timer.printed + 1,
		       vmstat__delta(now[0], st->vm_prev[0]), vmstat__delta(now[1], st->vm_prev[1]),
		       vmstat__delta(now[2], st->vm_prev[2]), vmstat__delta(now[3], st->vm_prev[3]));
	else
		printf("%-8s %11" PRIu64 " %13" PRIu64 " %14" PRIu64 " %13" PRIu64 "\n", when,
		       vmstat__delta(now[0], st->vm_prev[0]), vmstat__delta(now[1], st->vm_prev[1]),
		       vmstat__delta(now[2], st->vm_prev[2]), vmstat__delta(now[3], st->vm_prev[3]));
	memcpy(st->vm_prev, now, sizeof(now));
}

static int report_interval(void *ctx)
{
	struct reclaim_state *st = ctx;

	if (st->vmstat)
		print_vmstat_interval(st);
	else
		print_interval(st);
	return 0;
}

static void on_ready(void *ctx)
{
	struct reclaim_state *st = ctx;

	st->start_ns = session__now(st->s);
	every__ready(&st->timer);
}

static void on_round(void *ctx)
{
	struct reclaim_state *st = ctx;
	uint64_t now = session__now(st->s);
	bool replay = session__replaying(st->s);

	if (st->summary || st->vmstat)
		every__round(&st->timer);
	/* A replay stops at [duration] of recorded time, as the live session
	 * did at its own. */
	if (replay && st->o->sess.duration > 0 &&
	    now - st->start_ns >= (uint64_t)(st->o->sess.duration * 1e9))
		session__stop(st->s);
}

static int add_tracepoints(struct session *s, struct reclaim_state *st, struct errbuf *eb)
{
	const struct features *f = session__features(s);
	struct tp_event *ev = NULL;
	int err;

	err = session__add_tracepoint(s, "vmscan", "mm_vmscan_direct_reclaim_begin", 0,
				      on_direct_begin, st, NULL, eb);
	if (!err)
		err = session__add_tracepoint(s, "vmscan", "mm_vmscan_direct_reclaim_end", 0,
					      on_direct_end, st, &ev, eb);
	if (err)
		return err;
	if (tp_event__field(ev, "nr_reclaimed", &st->f_pages[RECLAIM_DIRECT]))
		return errbuf__set(eb, -ENOENT, "'mm_vmscan_direct_reclaim_end' lacks the field 'nr_reclaimed'");
	if (features__has_tracepoint(f, "vmscan", "mm_vmscan_memcg_reclaim_begin") &&
	    features__has_tracepoint(f, "vmscan", "mm_vmscan_memcg_reclaim_end")) {
		err = session__add_tracepoint(s, "vmscan", "mm_vmscan_memcg_reclaim_begin", 0,
					      on_memcg_begin, st, NULL, eb);
		if (!err)
			err = session__add_tracepoint(s, "vmscan", "mm_vmscan_memcg_reclaim_end", 0,
						      on_memcg_end, st, &ev, eb);
		if (err)
			return err;
		if (tp_event__field(ev, "nr_reclaimed", &st->f_pages[RECLAIM_MEMCG]))
			return errbuf__set(eb, -ENOENT,
					   "'mm_vmscan_memcg_reclaim_end' lacks the field 'nr_reclaimed'");
	} else {
		fprintf(stderr, "faultline " TOOL ": warning: no memcg reclaim tracepoints: "
			"reclaim of a cgroup over its limit is not shown\n");
	}
	/* A recording serves every option of a replay: -s's events too. */
	if (!st->summary && !session__recording(s))
		return 0;
	st->have_slab = features__has_tracepoint(f, "vmscan", "mm_shrink_slab_start") &&
			features__has_tracepoint(f, "vmscan", "mm_shrink_slab_end");
	if (st->have_slab) {
		err = session__add_tracepoint(s, "vmscan", "mm_shrink_slab_start", 0, on_slab_begin,
					      st, NULL, eb);
		if (!err)
			err = session__add_tracepoint(s, "vmscan", "mm_shrink_slab_end", 0, on_slab_end,
						      st, NULL, eb);
		if (err)
			return err;
	}
	st->have_wake = features__has_tracepoint(f, "vmscan", "mm_vmscan_wakeup_kswapd");
	if (st->have_wake &&
	    (err = session__add_tracepoint(s, "vmscan", "mm_vmscan_wakeup_kswapd", 0, on_wake, st,
					   NULL, eb)))
		return err;
	if (features__has_tracepoint(f, "vmscan", "mm_vmscan_write_folio"))
		st->writepage_event = "mm_vmscan_write_folio";
	else if (features__has_tracepoint(f, "vmscan", "mm_vmscan_writepage"))
		st->writepage_event = "mm_vmscan_writepage";
	if (st->writepage_event &&
	    (err = session__add_tracepoint(s, "vmscan", st->writepage_event, 0, on_writepage, st,
					   NULL, eb)))
		return err;
	if (!st->have_slab || !st->have_wake || !st->writepage_event)
		fprintf(stderr, "faultline " TOOL ": warning: %s lacks %s%s%s: those columns stay 0\n",
			session__replaying(s) ? "the recording" : "this kernel",
			st->have_slab ? "" : "mm_shrink_slab_start/end ",
			st->have_wake ? "" : "mm_vmscan_wakeup_kswapd ",
			st->writepage_event ? "" : "mm_vmscan_write_folio/writepage");
	return 0;
}

static const char *reclaim_opt(int c, const char *arg, void *ctx)
{
	struct reclaim_state *st = ctx;

	return tool_opts__summary_opt(c, arg, &st->summary, &st->interval);
}

static const struct tool_option reclaim_options[] = {
	OPT_SHARED(TOOL_SHARED_T, "prefix each event with seconds since the first (drsnoop -T)"),
	OPT_CALL('s', "summary", NULL, 's',
		 "per-interval vmscan summary instead of events (vmscan.bt): slab shrink, direct and "
		 "memcg reclaim milliseconds, kswapd wakeups, pages written by reclaim; latency "
		 "histograms at exit"),
	OPT_CALL('i', "interval", "SECS", 'i', "the summary's interval (default 1)"),
	OPT_END,
};

static const struct tool_cmdline reclaim_cmdline = {
	.tool = TOOL,
	/* Any order: -s and -i were always taken after the duration too. */
	.accepts = TOOL_OPT_T | TOOL_OPT_ANY_ORDER | TOOL_OPT_NO_UNWIND,
	.options = reclaim_options,
	.opt = reclaim_opt,
};

static int reclaim_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
			char **argv)
{
	struct reclaim_state *st = ctx;
	int ret;

	st->interval = 1.0;
	ret = tool_opts__parse_cmdline(o, mode, &reclaim_cmdline, st, argc, argv);
	if (ret)
		return ret;
	/* No stacks here (.stacks): no maps either. */
	o->sess.no_maps = true;
	st->o = o;
	st->json = o->json;
	return reclaim_pair__new(&st->pair);
}

static int reclaim_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			      struct errbuf *eb)
{
	struct reclaim_state *st = ctx;

	(void)label;
	st->s = s;
	every__init(&st->timer, s, st->interval, 0, report_interval, st);
	st->vmstat = ladder__is(rung, "vmstat");
	if (st->vmstat)
		return vmstat__read(NULL, vm_names, st->vm_prev, eb);
	return add_tracepoints(s, st, eb);
}

static void reclaim_before_run(void *ctx)
{
	struct reclaim_state *st = ctx;

	if (st->json)
		return;
	if (st->vmstat)
		printf("%-8s %11s %13s %14s %13s\n", "TIME", "ALLOCSTALLS", "PGSCAN_DIRECT",
		       "PGSTEAL_DIRECT", "PGSCAN_KSWAPD");
	else if (st->summary)
		printf("%-10s %10s %12s %12s %6s %9s\n", "TIME", "S-SLABms", "D-RECLAIMms",
		       "M-RECLAIMms", "KSWAPD", "WRITEPAGE");
	else if (st->o->timestamps)
		printf("%-14s %-14s %-6s %8s %5s\n", "TIME(s)", "COMM", "PID", "LAT(ms)", "PAGES");
	else
		printf("%-14s %-6s %8s %5s\n", "COMM", "PID", "LAT(ms)", "PAGES");
}

/* The summary on stderr, a figure a line (out/summary). */
static void print_summary(const struct reclaim_sums *sums, uint64_t lost)
{
	static const struct { const char *label; int kind; } rows[] = {
		{ "direct:", RECLAIM_DIRECT }, { "memcg:", RECLAIM_MEMCG },
	};
	char b[2][NUMFMT_LEN];

	fprintf(stderr, "reclaim summary:\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		summary__line(stderr, rows[i].label, "%s reclaims, %s pages",
			      numfmt__count(b[0], NUMFMT_LEN, sums->count[rows[i].kind]),
			      numfmt__count(b[1], NUMFMT_LEN, sums->pages[rows[i].kind]));
	summary__count(stderr, "lost events:", lost, "");
}

static int reclaim_report(void *ctx, struct session *s)
{
	struct reclaim_state *st = ctx;
	struct reclaim_sums sums;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	/* The interval that was running when tracing stopped, unless it had
	 * only just begun and saw nothing (a duration ends on a boundary). */
	if ((st->vmstat || st->summary) &&
	    (memcmp(&st->cur, &(struct interval){ 0 }, sizeof(st->cur)) ||
	     session__now(s) + (uint64_t)(st->interval * 0.5e9) >= st->timer.next_ns))
		every__final(&st->timer);
	if (st->vmstat)
		return EXIT_OK;
	if (st->summary && !st->json) {
		printf("\n");
		hist_print("shrink_slab_ns", &st->hist[RECLAIM_SLAB]);
		hist_print("direct_reclaim_ns", &st->hist[RECLAIM_DIRECT]);
		hist_print("mem_cgroup_reclaim_ns", &st->hist[RECLAIM_MEMCG]);
	}
	reclaim_pair__sums(st->pair, &sums);
	if (st->json)
		printf("{\"type\":\"summary\",\"direct_events\":%" PRIu64 ",\"direct_pages\":%" PRIu64
		       ",\"memcg_events\":%" PRIu64 ",\"memcg_pages\":%" PRIu64 ",\"unpaired\":%" PRIu64
		       ",\"lost\":%" PRIu64 "}\n", sums.count[RECLAIM_DIRECT], sums.pages[RECLAIM_DIRECT],
		       sums.count[RECLAIM_MEMCG], sums.pages[RECLAIM_MEMCG], sums.unpaired, session__lost(s));
	else
		print_summary(&sums, session__lost(s));
	return EXIT_OK;
}

static void reclaim_fini(void *ctx)
{
	reclaim_pair__free(((struct reclaim_state *)ctx)->pair);
}

/* reclaim: per-event latency needs begin/end pairs; the memcg and vmscan.bt
 * summary events are optional extras the tool adds when present. */
static const char *const reclaim_tracepoint_needs[] = {
	"tp:vmscan:mm_vmscan_direct_reclaim_begin", "tp:vmscan:mm_vmscan_direct_reclaim_end", NULL
};

static const struct rung reclaim_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints vmscan:mm_vmscan_{direct,memcg}_reclaim_{begin,end}",
	  .needs = reclaim_tracepoint_needs, .loses = "" },
	{ .key = "vmstat", .label = "/proc/vmstat allocstall/pgscan_direct/pgsteal_direct (system-wide)",
	  .needs = ladder_no_needs,
	  .loses = "no events, latency or processes: system-wide direct reclaim counts per interval" },
};

static const struct ladder reclaim_ladder = LADDER("reclaim", reclaim_rungs);

const struct tool reclaim_tool = {
	.cmdline = &reclaim_cmdline,
	.name = TOOL,
	.ladder = &reclaim_ladder,
	.stacks = TOOL_STACKS_NONE,
	.what = "direct reclaim",
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS,
	.counters = { "vmstat", "/proc counters", "/proc/vmstat", NULL },
	.size = sizeof(struct reclaim_state),
	.init = reclaim_init,
	.add_events = reclaim_add_events,
	.before_run = reclaim_before_run,
	.ready = on_ready,
	.round = on_round,
	.report = reclaim_report,
	.fini = reclaim_fini,
};
