/*
 * faultline compact: memory compaction as drsnoop shows direct reclaim,
 * one line per compaction run of a zone (COMM PID LAT(ms) ORDER KIND
 * RESULT), with THP collapses (khugepaged's and MADV_COLLAPSE's) among
 * them; with -s, per interval: direct-compaction stalls and their
 * milliseconds, every compaction run, collapses and failed collapses,
 * and /proc/vmstat's thp_fault_fallback.
 *
 * Sources (its ladder, before compact_tool): the compaction tracepoints.  A
 * direct compaction (an allocation that had to compact before it could
 * succeed) is mm_compaction_try_to_compact_pages, then one
 * mm_compaction_begin/end pair per zone it compacts, all in the
 * allocating task: each pair is a line, its latency end - begin, its
 * order the try_to_compact_pages' before it.  The same pairs come from
 * kcompactd (kind kcompactd: woken by kswapd, or proactive compaction)
 * and from writers of /proc/sys/vm/compact_memory (kind manual, order -1:
 * the whole zone).  The scan and migration events are totalled for the
 * summary (pages scanned, isolated, migrated: /proc/vmstat's compact_*
 * counters, from the events).  huge_memory:mm_collapse_huge_page, when
 * the kernel has it, gives each collapse and its result.  Last rung:
 * /proc/vmstat compact_stall/compact_fail/compact_success and thp_*,
 * system-wide, per interval.
 *
 * -p and -c trace the target's own tasks: its direct compactions, its
 * MADV_COLLAPSE and its writes of compact_memory (kcompactd's and
 * khugepaged's work for it is another task's; -a sees them).  From a
 * recording (faultline report -i FILE compact) the events are the
 * recorded run's; thp_fault_fallback is not in it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/json.h"
#include "trace/tp-catalog.h"
#include "agg/every.h"
#include "features.h"
#include "lib/keyed.h"
#include "cmd/out/report.h"
#include "cmd/out/summary.h"
#include "lib/numfmt.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "proc/procstat.h"
#include "ladder.h"

#define TOOL "compact"

enum kind { KIND_DIRECT, KIND_KCOMPACTD, KIND_MANUAL, KIND__COUNT };
static const char *const kind_names[KIND__COUNT] = { "direct", "kcompactd", "manual" };

/* mm_compaction_end's status (include/trace/events/compaction.h, the
 * kernel's own print fmt: compact_result in 6.18). */
static const char *const end_status[] = {
	"not_suitable_zone", "skipped", "deferred", "no_suitable_page", "continue",
	"complete", "partial_skipped", "contended", "success",
};
/* mm_collapse_huge_page's: 1 is "succeeded"; the rest are reasons. */
#define COLLAPSE_SUCCEEDED 1

/* One thread's compaction in progress.  No event ends a direct
 * compaction (it ends when the allocation retries), so a thread's mark
 * stays until its next try_to_compact_pages: a thread that made one and
 * later writes compact_memory itself has those runs called direct. */
struct thread {
	bool direct;		/* a try_to_compact_pages came first */
	bool stall_open;	/* that try is not counted a stall yet */
	int order;
	bool in_zone;
	uint64_t begin, direct_time;
};

struct totals {
	uint64_t runs[KIND__COUNT], ns[KIND__COUNT];
	uint64_t stalls;
	uint64_t migrate_scanned, free_scanned, isolated, migrated, migrate_failed;
	uint64_t collapses, collapse_failed;
	uint64_t results[sizeof(end_status) / sizeof(end_status[0])];
};

struct compact_state {
	struct tool_opts *o;
	struct session *s;
	bool summary, json, vmstat;
	struct tool_interval iv;
	struct every every;
	struct tp_field f_order, f_status, f_sync, f_mscan, f_mtaken, f_fscan, f_ftaken, f_ffscan,
		f_fftaken, f_migrated, f_mfailed, f_cstatus;
	bool have_collapse;
	struct keyed *threads;		/* tid -> struct thread */
	struct totals cur, all;		/* this interval; the whole run */
	uint64_t unpaired;
	uint64_t first_time;
	bool have_first;
	uint64_t vm_prev[7];
	int err;
};

static const char *const vm_names[] = { "compact_stall", "compact_fail", "compact_success",
					"thp_fault_fallback", "thp_collapse_alloc",
					"thp_collapse_alloc_failed", "compact_daemon_wake", NULL };

static uint64_t field(const struct tp_field *f, const struct sample *smp)
{
	uint64_t v = 0;

	tp_field__u64(f, smp->raw, smp->raw_size, &v);
	return v;
}

static struct thread *thread_of(struct compact_state *st, uint32_t tid)
{
	int created;
	struct thread *t = keyed__get(st->threads, tid, &created);

	if (!t)
		st->err = -ENOMEM;
	else if (created)
		*t = (struct thread){ .order = -1 };
	return t;
}

static double rel_secs(struct compact_state *st, uint64_t time)
{
	if (!st->have_first) {
		st->first_time = time;
		st->have_first = true;
	}
	return (double)(time - st->first_time) / 1e9;
}

static void on_try(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;
	struct thread *t = thread_of(st, smp->tid);

	if (!t)
		return;
	t->direct = true;
	t->stall_open = true;
	t->order = (int)(int64_t)field(&st->f_order, smp);
	t->direct_time = smp->time;
}

/* A direct compaction is a stall (/proc/vmstat's compact_stall,
 * __alloc_pages_direct_compact) unless try_to_compact_pages returned
 * COMPACT_SKIPPED: unless every zone was skipped before it ran.  So a try
 * is one stall at its first zone run or deferred zone. */
static void stall_counted(struct compact_state *st, struct thread *t)
{
	if (!t->direct || !t->stall_open)
		return;
	t->stall_open = false;
	st->cur.stalls++;
	st->all.stalls++;
}

static void on_begin(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;
	struct thread *t = thread_of(st, smp->tid);

	if (!t)
		return;
	t->in_zone = true;
	t->begin = smp->time;
	stall_counted(st, t);
}

/* A zone deferred (compaction_deferred) in a direct compaction: the try
 * is a stall though no zone ran. */
static void on_deferred(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;
	struct thread *t = thread_of(st, smp->tid);

	if (t)
		stall_counted(st, t);
}

static void print_event(struct session *s, struct compact_state *st, const struct sample *smp,
			double lat_ms, int order, const char *kind, const char *result)
{
	const char *comm = session__comm(s, (pid_t)smp->pid);
	double when = rel_secs(st, smp->time);
	char ord[16], lat[24];

	snprintf(ord, sizeof(ord), "%d", order);
	if (st->json) {
		printf("{\"type\":\"%s\",\"time\":%.9f,\"pid\":%u,\"tid\":%u,\"comm\":",
		       strcmp(kind, "collapse") ? "compaction" : "collapse", when, smp->pid, smp->tid);
		json__str(stdout, comm);
		printf(",\"kind\":\"%s\",\"order\":%d,\"result\":\"%s\"", kind, order, result);
		if (lat_ms >= 0)
			printf(",\"lat_ms\":%.3f", lat_ms);
		printf("}\n");
	} else {
		if (st->o->timestamps)
			printf("%-14.9f ", when);
		if (lat_ms >= 0)
			snprintf(lat, sizeof(lat), "%.2f", lat_ms);
		else
			snprintf(lat, sizeof(lat), "-");
		printf("%-14.14s %-6u %8s %5s %-9s %s\n", comm, smp->pid, lat, ord, kind, result);
	}
	tool__event_done();
}

static void on_end(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;
	struct thread *t = thread_of(st, smp->tid);
	int64_t status = (int64_t)field(&st->f_status, smp);
	const char *result = status >= 0 && (size_t)status < sizeof(end_status) /
			     sizeof(end_status[0]) ? end_status[status] : "?";
	enum kind k;
	uint64_t lat;

	if (!t)
		return;
	if (!t->in_zone) {
		st->unpaired++;
		return;
	}
	t->in_zone = false;
	lat = smp->time > t->begin ? smp->time - t->begin : 0;
	if (t->direct)
		k = KIND_DIRECT;
	else if (!strncmp(session__comm(s, (pid_t)smp->pid), "kcompactd", 9))
		k = KIND_KCOMPACTD;
	else
		k = KIND_MANUAL;
	st->cur.runs[k]++;
	st->cur.ns[k] += lat;
	st->all.runs[k]++;
	st->all.ns[k] += lat;
	if (status >= 0 && (size_t)status < sizeof(end_status) / sizeof(end_status[0])) {
		st->cur.results[status]++;
		st->all.results[status]++;
	}
	if (!st->summary)
		print_event(s, st, smp, (double)lat / 1e6, t->direct ? t->order : -1, kind_names[k],
			    result);
}

/* A tally of one event's fields into both totals. */
#define TALLY(st, member, v) do { \
	uint64_t v_ = (v); \
	(st)->cur.member += v_; \
	(st)->all.member += v_; \
} while (0)

static void on_isolate_migrate(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;

	TALLY(st, migrate_scanned, field(&st->f_mscan, smp));
	TALLY(st, isolated, field(&st->f_mtaken, smp));
}

static void on_isolate_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;

	TALLY(st, free_scanned, field(&st->f_fscan, smp));
	TALLY(st, isolated, field(&st->f_ftaken, smp));
}

static void on_fast_isolate_free(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;

	TALLY(st, free_scanned, field(&st->f_ffscan, smp));
	TALLY(st, isolated, field(&st->f_fftaken, smp));
}

static void on_migrate(struct session *s, const struct sample *smp, void *ctx)
{
	struct compact_state *st = ctx;

	TALLY(st, migrated, field(&st->f_migrated, smp));
	TALLY(st, migrate_failed, field(&st->f_mfailed, smp));
}

static void on_collapse(struct session *s, const struct sample *smp, void *ctx)
{
	static const char *const reasons[] = { "failed", "succeeded", "pmd_null", "pmd_none",
					       "page_pmd_mapped" };
	struct compact_state *st = ctx;
	int64_t status = (int64_t)field(&st->f_cstatus, smp);
	char other[24];
	const char *result = other;

	if (status >= 0 && (size_t)status < sizeof(reasons) / sizeof(reasons[0]))
		result = reasons[status];
	else
		snprintf(other, sizeof(other), "status_%" PRId64, status);
	if (status == COLLAPSE_SUCCEEDED)
		TALLY(st, collapses, 1);
	else
		TALLY(st, collapse_failed, 1);
	if (!st->summary)
		print_event(s, st, smp, -1, 9, "collapse", result);
}

static int print_interval(void *ctx)
{
	struct compact_state *st = ctx;
	uint64_t now[7] = { 0 };
	bool vm = !session__replaying(st->s) && !vmstat__read(NULL, vm_names, now, NULL);
	uint64_t fallback = vm ? vmstat__delta(now[3], st->vm_prev[3]) : 0;
	char when[16];
	time_t t = session__wall(st->s);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (st->vmstat) {
		uint64_t d[6];

		for (int i = 0; i < 6; i++)
			d[i] = vm ? vmstat__delta(now[i], st->vm_prev[i]) : 0;
		if (st->json)
			printf("{\"type\":\"interval\",\"time\":\"%s\",\"interval\":%lu,"
			       "\"source\":\"vmstat\",\"compact_stall\":%" PRIu64 ",\"compact_fail\":%" PRIu64
			       ",\"compact_success\":%" PRIu64 ",\"thp_fault_fallback\":%" PRIu64
			       ",\"thp_collapse_alloc\":%" PRIu64 ",\"thp_collapse_alloc_failed\":%"
			       PRIu64 "}\n", when, st->every.printed + 1, d[0], d[1], d[2], d[3], d[4],
			       d[5]);
		else
			printf("%-8s %13" PRIu64 " %12" PRIu64 " %15" PRIu64 " %18" PRIu64 " %18" PRIu64
			       " %25" PRIu64 "\n", when, d[0], d[1], d[2], d[3], d[4], d[5]);
	} else if (st->json) {
		printf("{\"type\":\"interval\",\"time\":\"%s\",\"interval\":%lu,\"direct\":%" PRIu64
		       ",\"direct_ms\":%.3f"
		       ",\"stalls\":%" PRIu64 ",\"compactions\":%" PRIu64 ",\"collapses\":%" PRIu64 ",\"collapse_failed\":%"
		       PRIu64, when, st->every.printed + 1, st->cur.runs[KIND_DIRECT], st->cur.ns[KIND_DIRECT] / 1e6,
		       st->cur.stalls, st->cur.runs[0] + st->cur.runs[1] + st->cur.runs[2], st->cur.collapses,
		       st->cur.collapse_failed);
		if (vm)
			printf(",\"thp_fault_fallback\":%" PRIu64, fallback);
		printf("}\n");
	} else {
		char fb[24] = "-";

		if (vm)
			snprintf(fb, sizeof(fb), "%" PRIu64, fallback);
		printf("%-8s %7" PRIu64 " %10.2f %11" PRIu64 " %9" PRIu64 " %9" PRIu64 " %12s\n", when,
		       st->cur.stalls, st->cur.ns[KIND_DIRECT] / 1e6,
		       st->cur.runs[0] + st->cur.runs[1] + st->cur.runs[2], st->cur.collapses,
		       st->cur.collapse_failed, fb);
	}
	if (vm)
		memcpy(st->vm_prev, now, sizeof(now));
	memset(&st->cur, 0, sizeof(st->cur));
	fflush(stdout);
	return 0;
}

struct event {
	const char *system, *name;
	session_sample_fn fn;
	bool optional;
};

static const struct event events[] = {
	{ "compaction", "mm_compaction_try_to_compact_pages", on_try, false },
	{ "compaction", "mm_compaction_begin", on_begin, false },
	{ "compaction", "mm_compaction_end", on_end, false },
	{ "compaction", "mm_compaction_isolate_migratepages", on_isolate_migrate, true },
	{ "compaction", "mm_compaction_isolate_freepages", on_isolate_free, true },
	{ "compaction", "mm_compaction_fast_isolate_freepages", on_fast_isolate_free, true },
	{ "compaction", "mm_compaction_migratepages", on_migrate, true },
	{ "huge_memory", "mm_collapse_huge_page", on_collapse, true },
	{ "compaction", "mm_compaction_deferred", on_deferred, true },
};

/* Fields by event: the first two of each, NULL when none. */
static const char *const fields[][2] = {
	{ "order", NULL }, { NULL, NULL }, { "status", NULL },
	{ "nr_scanned", "nr_taken" }, { "nr_scanned", "nr_taken" }, { "nr_scanned", "nr_taken" },
	{ "nr_migrated", "nr_failed" }, { "status", NULL }, { NULL, NULL },
};

static int add_events(struct session *s, struct compact_state *st, struct errbuf *eb)
{
	const struct features *f = session__features(s);
	struct tp_field *out[][2] = {
		{ &st->f_order, NULL }, { NULL, NULL }, { &st->f_status, NULL },
		{ &st->f_mscan, &st->f_mtaken }, { &st->f_fscan, &st->f_ftaken },
		{ &st->f_ffscan, &st->f_fftaken }, { &st->f_migrated, &st->f_mfailed },
		{ &st->f_cstatus, NULL }, { NULL, NULL },
	};
	char missing[256] = "";
	int err;

	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		struct tp_event *ev = NULL;

		if (events[i].optional &&
		    !features__has_tracepoint(f, events[i].system, events[i].name)) {
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
				 events[i].name);
			continue;
		}
		err = session__add_tracepoint(s, events[i].system, events[i].name, 0, events[i].fn,
					      st, &ev, eb);
		if (err)
			return err;
		for (int j = 0; j < 2; j++)
			if (fields[i][j] && tp_event__field(ev, fields[i][j], out[i][j]))
				return errbuf__set(eb, -ENOENT, "'%s' lacks the field '%s'",
						   events[i].name, fields[i][j]);
		if (i == 7)
			st->have_collapse = true;
	}
	if (missing[0])
		fprintf(stderr, "faultline " TOOL ": warning: %s lacks%s: those counts stay 0\n",
			session__replaying(s) ? "the recording" : "this kernel", missing);
	return 0;
}

static const char *compact_opt(int c, const char *arg, void *ctx)
{
	struct compact_state *st = ctx;

	return tool_opts__summary_opt(c, arg, &st->summary, &st->iv.secs);
}

static void on_round(void *ctx)
{
	struct compact_state *st = ctx;

	if (st->summary || st->vmstat)
		every__round(&st->every);
}

static void print_summary(struct session *s, const struct compact_state *st)
{
	const struct totals *a = &st->all;
	char b[2][NUMFMT_LEN];

	if (st->json) {
		printf("{\"type\":\"summary\"");
		for (int k = 0; k < KIND__COUNT; k++)
			printf(",\"%s\":%" PRIu64 ",\"%s_ms\":%.3f", kind_names[k], a->runs[k],
			       kind_names[k], a->ns[k] / 1e6);
		printf(",\"stalls\":%" PRIu64, a->stalls);
		printf(",\"migrate_scanned\":%" PRIu64 ",\"free_scanned\":%" PRIu64 ",\"isolated\":%"
		       PRIu64 ",\"migrated\":%" PRIu64 ",\"migrate_failed\":%" PRIu64
		       ",\"collapses\":%" PRIu64 ",\"collapse_failed\":%" PRIu64, a->migrate_scanned,
		       a->free_scanned, a->isolated, a->migrated, a->migrate_failed, a->collapses,
		       a->collapse_failed);
		printf(",\"results\":{");
		for (size_t i = 0; i < sizeof(end_status) / sizeof(end_status[0]); i++)
			printf("%s\"%s\":%" PRIu64, i ? "," : "", end_status[i], a->results[i]);
		printf("},\"unpaired\":%" PRIu64 ",\"lost\":%" PRIu64 "}\n", st->unpaired,
		       session__lost(s));
		return;
	}
	fprintf(stderr, "compaction summary:\n");
	summary__line(stderr, "direct:", "%s runs, %.2f ms, %s stalls",
		      numfmt__count(b[0], NUMFMT_LEN, a->runs[KIND_DIRECT]), a->ns[KIND_DIRECT] / 1e6,
		      numfmt__count(b[1], NUMFMT_LEN, a->stalls));
	summary__count(stderr, "kcompactd:", a->runs[KIND_KCOMPACTD], "runs");
	summary__count(stderr, "manual:", a->runs[KIND_MANUAL], "runs");
	summary__line(stderr, "scanned:", "%s pages to migrate, %s for free pages",
		      numfmt__count(b[0], NUMFMT_LEN, a->migrate_scanned),
		      numfmt__count(b[1], NUMFMT_LEN, a->free_scanned));
	summary__count(stderr, "isolated:", a->isolated, "pages");
	summary__line(stderr, "migrated:", "%s pages, %s failed",
		      numfmt__count(b[0], NUMFMT_LEN, a->migrated),
		      numfmt__count(b[1], NUMFMT_LEN, a->migrate_failed));
	summary__line(stderr, "THP collapses:", "%s, %s failed",
		      numfmt__count(b[0], NUMFMT_LEN, a->collapses),
		      numfmt__count(b[1], NUMFMT_LEN, a->collapse_failed));
	summary__count(stderr, "lost events:", session__lost(s), "");
}

static const struct tool_option compact_options[] = {
	OPT_SHARED(TOOL_SHARED_T, "prefix each event with seconds since the first (drsnoop -T)"),
	OPT_CALL('s', "summary", NULL, 's',
		 "per-interval summary instead of events: direct compaction stalls and milliseconds, "
		 "compaction runs, THP collapses and failures, THP fault fallbacks (vmstat)"),
	OPT_CALL('i', "interval", "SECS", 'i', "the summary's interval (default 1)"),
	OPT_END,
};

static const struct tool_cmdline compact_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_T | TOOL_OPT_ANY_ORDER | TOOL_OPT_NO_UNWIND,
	.options = compact_options,
	.opt = compact_opt,
};

static int compact_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
			char **argv)
{
	struct compact_state *st = ctx;
	int ret;

	st->iv.secs = 1.0;
	ret = tool_opts__parse_cmdline(o, mode, &compact_cmdline, st, argc, argv);
	if (ret)
		return ret;
	o->sess.no_maps = true;
	st->o = o;
	st->json = o->json;
	st->threads = keyed__new(sizeof(struct thread));
	return st->threads ? 0 : -ENOMEM;
}

static int compact_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			      struct errbuf *eb)
{
	struct compact_state *st = ctx;
	int err;

	(void)label;
	st->s = s;
	every__init(&st->every, s, st->iv.secs, 0, print_interval, st);
	st->vmstat = ladder__is(rung, "vmstat");
	err = st->vmstat ? 0 : add_events(s, st, eb);
	if (!err && !session__replaying(s))
		err = vmstat__read(NULL, vm_names, st->vm_prev, eb);
	return err;
}

static void compact_before_run(void *ctx)
{
	struct compact_state *st = ctx;

	if (st->json)
		return;
	if (st->vmstat)
		printf("%-8s %13s %12s %15s %18s %18s %25s\n", "TIME", "COMPACT_STALL", "COMPACT_FAIL",
		       "COMPACT_SUCCESS", "THP_FAULT_FALLBACK", "THP_COLLAPSE_ALLOC",
		       "THP_COLLAPSE_ALLOC_FAILED");
	else if (st->summary)
		printf("%-8s %7s %10s %11s %9s %9s %12s\n", "TIME", "STALLS", "STALL_ms", "COMPACTIONS",
		       "COLLAPSED", "COLL_FAIL", "THP_FALLBACK");
	else if (st->o->timestamps)
		printf("%-14s %-14s %-6s %8s %5s %-9s %s\n", "TIME(s)", "COMM", "PID", "LAT(ms)", "ORDER",
		       "KIND", "RESULT");
	else
		printf("%-14s %-6s %8s %5s %-9s %s\n", "COMM", "PID", "LAT(ms)", "ORDER", "KIND",
		       "RESULT");
}

static int compact_report(void *ctx, struct session *s)
{
	struct compact_state *st = ctx;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	if (st->summary || st->vmstat)
		every__final(&st->every);
	if (!st->vmstat)
		print_summary(s, st);
	return EXIT_OK;
}

static void compact_fini(void *ctx)
{
	keyed__free(((struct compact_state *)ctx)->threads);
}

/* compact: direct compaction is try_to_compact_pages and the per-zone
 * begin/end pairs in the allocating task; the scan, migration and
 * huge_memory events are added when present. */
static const char *const compact_tracepoint_needs[] = {
	"tp:compaction:mm_compaction_try_to_compact_pages", "tp:compaction:mm_compaction_begin",
	"tp:compaction:mm_compaction_end", NULL
};

static const struct rung compact_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints compaction:mm_compaction_* "
	  "(+ huge_memory:mm_collapse_huge_page)", .needs = compact_tracepoint_needs, .loses = "" },
	{ .key = "vmstat", .label = "/proc/vmstat compact_stall/compact_fail/compact_success, thp_* "
	  "(system-wide)", .needs = ladder_no_needs,
	  .loses = "no events, latency or processes: system-wide counts per interval" },
};

static const struct ladder compact_ladder = LADDER("compact", compact_rungs);

const struct tool compact_tool = {
	.cmdline = &compact_cmdline,
	.name = TOOL,
	.ladder = &compact_ladder,
	.stacks = TOOL_STACKS_NONE,
	.what = "compaction",
	.flags = TOOL_RECORDS | TOOL_REPLAYS,
	.counters = { "vmstat", "/proc counters", "/proc/vmstat", NULL },
	.size = sizeof(struct compact_state),
	.init = compact_init,
	.add_events = compact_add_events,
	.before_run = compact_before_run,
	.round = on_round,
	.report = compact_report,
	.fini = compact_fini,
};
