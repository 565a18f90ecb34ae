/*
 * faultline cache: page-cache hits, misses and dirties per interval for
 * the whole system, in BCC cachestat's columns and formats, so scripts
 * written for cachestat read it unchanged:
 *
 *       HITS   MISSES  DIRTIES HITRATIO   BUFFERS_MB  CACHED_MB
 *
 * with -T a leading HH:MM:SS TIME column; rows every interval seconds
 * (default 1), count rows then exit, or on Ctrl-C a last row and
 * "Detaching...".  BUFFERS_MB and CACHED_MB are /proc/meminfo's.
 *
 * Sources (its ladder, before cache_tool): kprobes as BCC, tracepoints, or
 * /proc counters; src/agg/cachestat.c counts, this file only prints.  The
 * events fire in every process, so the session is system-wide (-a).
 *
 * From a recording (faultline report -i FILE cache [-T] [interval
 * [count]]) the rows are the recorded run's, on its clock; BUFFERS_MB and
 * CACHED_MB, read from /proc/meminfo at each row, are not recorded and
 * show 0 (as BCC shows a key /proc/meminfo lacks).  The /proc rung can be
 * neither recorded nor replayed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/cachestat.h"
#include "cmd/out/lost.h"
#include "cmd/tool-shared.h"
#include "trace/session.h"
#include "cmd/tool.h"

#define TOOL "cache"

struct cache_cmd {
	struct tool_opts *o;
	struct tool_interval every;
	const char *label;
	struct session *s;	/* NULL on the /proc rung */
	struct cache_run_ops ops;
	struct cache_run run;
	int err;
};

/* -p is refused with the tool that does it (record passes its target). */
static const char *cache_opt(int c, const char *arg, void *ctx)
{
	return "the page cache is counted system-wide (one process: faultline cachetop -p), "
	       "not for pid";
}

static const struct tool_option cache_options[] = {
	OPT_CALL('p', "pid", "PID", 'p', "refused: the page cache is counted system-wide (one process: "
		 "faultline cachetop -p)"),
	OPT_SHARED(TOOL_SHARED_T, "a TIME (HH:MM:SS) column first"),
	OPT_SHARED(TOOL_SHARED_ALL, "accepted: the page cache is always counted system-wide"),
	OPT_END,
};

static const struct tool_cmdline cache_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_T | (TOOL_OPT_NO_SHARED & ~TOOL_OPT_NO_ALL) | TOOL_OPT_SNAPSHOT,
	.options = cache_options,
	.text = {
		.args = "[interval [count]]",
		.intro = "\nPage-cache hits, misses and dirties of the whole system, as BCC cachestat.\n\n",
		.args_help = TOOL_ARGS_INTERVAL("seconds between rows (default 1)",
						"rows to print, then exit (default: until Ctrl-C)"),
		.notes = "\nThe event source is the first this kernel offers (see 'faultline features'):\n"
			 "kprobes as BCC, page-cache tracepoints, or /proc counters (an approximation).\n",
	},
	.opt = cache_opt,
	.positional = tool_opts__interval_positional,
};

static bool replaying(const struct cache_cmd *c)
{
	return c->s && session__replaying(c->s);
}

static void print_header(void *ctx)
{
	const struct cache_cmd *c = ctx;

	/* A report prints the report alone, and what it lacks.  The /proc
	 * rung's own loop says when it is live; a session's, the driver. */
	if (replaying(c))
		fprintf(stderr, "faultline " TOOL ": a recording does not hold /proc/meminfo: "
			"BUFFERS_MB and CACHED_MB show 0\n");
	else if (!c->s)
		tool__banner(c->o, "page cache", c->label, false);
	if (c->o->timestamps)
		printf("%-8s ", "TIME");
	printf("%8s %8s %8s %8s %12s %10s\n", "HITS", "MISSES", "DIRTIES", "HITRATIO", "BUFFERS_MB",
	       "CACHED_MB");
	fflush(stdout);
}

static int print_row(void *ctx, struct cache_source *cs, bool final)
{
	struct cache_cmd *c = ctx;
	double buffers = 0, cached = 0;
	struct cache_tally t;
	struct cache_row row;
	char now[16];
	time_t secs;
	struct tm tm;
	int err;

	err = cache_source__take(cs, &t, NULL, NULL);
	if (err) {
		c->err = err;
		return 1;
	}
	cache_tally__row(&t, cache_source__formula(cs), &row);
	/* A meminfo that cannot be read shows 0, as a missing key does in BCC;
	 * a replay has none (this machine's now is not the recording's). */
	if (!replaying(c))
		cache_meminfo__read(NULL, &buffers, &cached);
	if (c->o->timestamps) {
		secs = c->s ? session__wall(c->s) : time(NULL);
		localtime_r(&secs, &tm);
		strftime(now, sizeof(now), "%H:%M:%S", &tm);
		printf("%-8s ", now);
	}
	printf("%8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7.2f%% %12.0f %10.0f\n", row.hits, row.misses,
	       row.dirties, row.ratio, buffers, cached);
	if (final)
		printf("Detaching...\n");
	fflush(stdout);
	return 0;
}

static int cache_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
		      char **argv)
{
	struct cache_cmd *c = ctx;
	int ret;

	c->every.secs = 1;
	/* -T only: the page cache is the whole system's, nothing to choose
	 * (-a says so, as faultline record passes it). */
	ret = tool_opts__parse_cmdline(o, mode, &cache_cmdline, &c->every, argc, argv);
	if (ret)
		return ret;
	c->o = o;
	o->all = true;
	o->sess.no_maps = true;
	c->ops = (struct cache_run_ops){ .ready = print_header, .interval = print_row, .ctx = c };
	return 0;
}

static int cache_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			    struct errbuf *eb)
{
	struct cache_cmd *c = ctx;

	c->s = s;
	c->label = label;
	return cache_run__open(&c->run, rung, false, 0, s, c->every.secs, c->every.count, &c->ops,
			       eb);
}

static void cache_ready(void *ctx)
{
	cache_run__ready(&((struct cache_cmd *)ctx)->run);
}

static void cache_round(void *ctx)
{
	cache_run__round(&((struct cache_cmd *)ctx)->run);
}

/* The /proc rung's run: no session. */
static int cache_procfs(void *ctx, struct session *s, struct errbuf *eb)
{
	(void)s;
	return cache_run__procfs(&((struct cache_cmd *)ctx)->run, eb);
}

static int cache_report(void *ctx, struct session *s)
{
	struct cache_cmd *c = ctx;

	cache_run__end(&c->run);
	if (c->err)
		return tool__fail(TOOL, NULL, c->err);
	if (s && session__lost(s))
		lost__warn(s, TOOL, session__lost(s), NULL);
	if (cache_source__bad_records(c->run.cs))
		fprintf(stderr, "faultline " TOOL ": %" PRIu64 " records without the expected fields\n",
			cache_source__bad_records(c->run.cs));
	return EXIT_OK;
}

/* A snapshot: the interval in progress, printed now (the next counts
 * from here). */
static int cache_snapshot(void *ctx, struct session *s)
{
	struct cache_cmd *c = ctx;

	(void)s;
	print_row(c, c->run.cs, false);
	return c->err ? tool__fail(TOOL, NULL, c->err) : EXIT_OK;
}

static void cache_fini(void *ctx)
{
	cache_run__close(&((struct cache_cmd *)ctx)->run);
}

/* cache and cachetop: BCC cachestat's kprobes, folio names first (5.16+;
 * the page names survive there only as wrappers the hot paths skip), the
 * account-dirtied hook by whichever name is not inlined; then tracepoints
 * (mm_filemap_get_pages is 6.11+); then procfs counters. */
static const char *const cache_kprobe_folio_needs[] = {
	"feat:kprobes", "kfunc:folio_mark_accessed", "kfunc:filemap_add_folio",
	"kfunc:folio_account_dirtied", "kfunc:mark_buffer_dirty", NULL
};
static const char *const cache_kprobe_folio_mark_dirty_needs[] = {
	"feat:kprobes", "kfunc:folio_mark_accessed", "kfunc:filemap_add_folio",
	"kfunc:__folio_mark_dirty", "kfunc:mark_buffer_dirty", NULL
};
static const char *const cache_kprobe_page_needs[] = {
	"feat:kprobes", "kfunc:mark_page_accessed", "kfunc:add_to_page_cache_lru",
	"kfunc:account_page_dirtied", "kfunc:mark_buffer_dirty", NULL
};
static const char *const cache_tracepoint_needs[] = {
	"tp:filemap:mm_filemap_get_pages", "tp:filemap:mm_filemap_add_to_page_cache",
	"tp:writeback:writeback_dirty_folio", NULL
};
static const char *const cache_vmstat_needs[] = { NULL };

static const struct rung cache_rungs[] = {
	{ .key = "kprobe:folio", .label = "kprobes folio_mark_accessed, filemap_add_folio, "
	  "folio_account_dirtied, mark_buffer_dirty", .needs = cache_kprobe_folio_needs, .loses = "" },
	{ .key = "kprobe:folio-mark-dirty", .label = "kprobes folio_mark_accessed, filemap_add_folio, "
	  "__folio_mark_dirty, mark_buffer_dirty", .needs = cache_kprobe_folio_mark_dirty_needs,
	  .loses = "" },
	{ .key = "kprobe:page", .label = "kprobes mark_page_accessed, add_to_page_cache_lru, "
	  "account_page_dirtied, mark_buffer_dirty", .needs = cache_kprobe_page_needs, .loses = "" },
	{ .key = "tracepoint", .label = "tracepoints filemap:mm_filemap_get_pages, "
	  "filemap:mm_filemap_add_to_page_cache, writeback:writeback_dirty_folio",
	  .needs = cache_tracepoint_needs,
	  .loses = "read() accesses only (no write or mmap accesses); pages, not calls" },
	{ .key = "vmstat", .label = "/proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas "
	  "(approximation)", .needs = cache_vmstat_needs,
	  .loses = "approximation: misses are block reads (any, incl. metadata and direct I/O), hits "
		   "are read() bytes of any kind (pipes, sockets too), short-lived processes unseen" },
};

static const struct ladder cache_ladder = LADDER("cache", cache_rungs);

/* cachetop reads the same events (cmd-cachetop.c). */
const struct ladder cachetop_ladder = LADDER("cachetop", cache_rungs);

const struct tool cache_tool = {
	.cmdline = &cache_cmdline,
	.name = TOOL,
	.ladder = &cache_ladder,
	.stacks = TOOL_STACKS_NONE,
	.what = "page cache",
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS,
	/* The vmstat rung needs no tracefs: chosen before opening a session. */
	.bare_rung = "vmstat",
	.size = sizeof(struct cache_cmd),
	.init = cache_init,
	.add_events = cache_add_events,
	.ready = cache_ready,
	.round = cache_round,
	.run = cache_procfs,
	.report = cache_report,
	.snapshot = cache_snapshot,
	.fini = cache_fini,
};
