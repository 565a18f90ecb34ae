/*
 * faultline pressure: memory pressure per interval, the memory chapter's
 * "watch PSI, not free memory": the PSI some/full averages and, from the
 * kernel's cumulative `total` counters, the milliseconds tasks stalled in
 * that interval, for the system and for one cgroup (-G, cgroup v2's
 * memory.pressure; v1 has none), beside what explains them: MemAvailable,
 * major faults, swap-ins and -outs, direct and memcg reclaim (how many and
 * how long: a direct reclaim means kswapd is losing), compaction stalls
 * and OOM kills.  -t registers a PSI trigger ("some 150ms/1s": stalls over
 * 150 ms in any 1 s window) on the pressure file and prints a line the
 * moment the kernel signals it (POLLPRI, Documentation/accounting/psi.rst).
 *
 * Sources (its ladder, before pressure_tool): reclaim from the vmscan begin/end
 * tracepoints (reclaim-watch.h), else /proc/vmstat allocstall*; the rest
 * from procstat.h.  Each interval's stall is the difference of two reads
 * of `total`, so the intervals of a run add up to the counter's change
 * between the first read (the "Tracing" line) and the last (at exit: the
 * interval in progress is printed then, as BCC's tools do).
 *
 * The trigger lines come from a thread blocked in poll(2) on the trigger
 * descriptors, so that they are printed when the kernel wakes it, not at
 * the next 100 ms round; stdout's lock keeps each line whole.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agg/every.h"
#include "lib/json.h"
#include "cmd/out/lost.h"
#include "lib/file.h"
#include "lib/newsys.h"
#include "agg/mem-series.h"
#include "proc/procstat.h"
#include "agg/reclaim-watch.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "pressure"
#define MAX_TRIGGERS 8

struct trigger {
	char spec[64];
	bool full;
	uint64_t stall_us, window_us;
	int fd;
	uint64_t fired;
};

struct pressure_state {
	struct tool_opts *o;
	struct session *s;
	struct tool_interval every;
	bool json, trace_reclaim, cg_v1;
	const char *cgroup_arg;
	char cg_dir[PATH_MAX];
	char cg_pressure[PATH_MAX + 32];	/* "" without -G or on v1 */
	struct reclaim_watch *rw;
	struct mem_point prev;		/* the interval's start */
	struct every timer;		/* the reports of every */
	struct trigger trig[MAX_TRIGGERS];
	size_t ntrig;
	int stop_pipe[2];
	pthread_t thread;
	bool thread_started;
	const char *trigger_file;
	bool skip_sys_psi, skip_cg_psi;	/* an unprivileged trigger's file: not read */
	int err;
};

static void wall_label(char *buf, size_t n, bool ms)
{
	struct timespec ts;
	struct tm tm;
	size_t len;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	len = strftime(buf, n, "%H:%M:%S", &tm);
	if (ms && len + 5 <= n)
		snprintf(buf + len, n - len, ".%03ld", ts.tv_nsec / 1000000);
}

/* ---- the PSI trigger thread ------------------------------------------------ */

static void *trigger_thread(void *ctx)
{
	struct pressure_state *st = ctx;
	struct pollfd pfd[MAX_TRIGGERS + 1];

	for (size_t i = 0; i < st->ntrig; i++)
		pfd[i] = (struct pollfd){ .fd = st->trig[i].fd, .events = POLLPRI };
	pfd[st->ntrig] = (struct pollfd){ .fd = st->stop_pipe[0], .events = POLLIN };
	for (;;) {
		char when[32];

		if (poll(pfd, (nfds_t)st->ntrig + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[st->ntrig].revents)
			break;
		for (size_t i = 0; i < st->ntrig; i++) {
			struct trigger *t = &st->trig[i];

			if (pfd[i].revents & POLLERR) {
				/* The file went away (its cgroup was removed). */
				flockfile(stdout);
				fprintf(stderr, "faultline " TOOL ": trigger '%s': %s is gone\n", t->spec,
					st->trigger_file);
				funlockfile(stdout);
				pfd[i].fd = -1;
				continue;
			}
			if (!(pfd[i].revents & POLLPRI))
				continue;
			t->fired++;
			wall_label(when, sizeof(when), true);
			flockfile(stdout);
			if (st->json) {
				printf("{\"type\":\"trigger\",\"time\":\"%s\",\"trigger\":", when);
				json__str(stdout, t->spec);
				printf(",\"file\":");
				json__str(stdout, st->trigger_file);
				printf(",\"stall_us\":%" PRIu64 ",\"window_us\":%" PRIu64 "}\n", t->stall_us,
				       t->window_us);
			} else {
				printf("%s TRIGGER %s: %s stall over %" PRIu64 " ms in a %" PRIu64
				       " ms window (%s)\n", when, t->spec, t->full ? "full" : "some",
				       t->stall_us / 1000, t->window_us / 1000, st->trigger_file);
			}
			fflush(stdout);
			funlockfile(stdout);
		}
	}
	return NULL;
}

/* ---- one interval -------------------------------------------------------- */

/*
 * Every indicator, but the PSI file an unprivileged trigger watches.  A
 * trigger set without CAP_SYS_RESOURCE is checked by the kernel's 2 s
 * averaging work, and only when the group's averaged total lags its
 * total (psi.c update_triggers); reading the file brings the averages up
 * to date when they are due (psi_show), so a read between a stall and
 * that work swallows the trigger's event: measured here, a trigger that
 * never fired in 60 s while the file was read each second.
 */
static int sample(struct pressure_state *st, struct mem_point *out)
{
	const char *cg = st->cg_pressure[0] && !st->skip_cg_psi ? st->cg_pressure : NULL;

	reclaim_watch__totals(st->rw, &out->r);
	out->have_reclaim = st->trace_reclaim;
	return mem_sample__read(NULL, cg, st->skip_sys_psi ? MEM_SAMPLE_NO_SYSTEM_PSI : 0, &out->s,
				NULL);
}

/* A JSON member: the value, or null when the kernel lacks it. */
static void json_col(const struct mem_row *r, const char *key, enum mem_col c)
{
	if (r->have[c])
		printf(",\"%s\":%" PRIu64, key, r->v[c]);
	else
		printf(",\"%s\":null", key);
}

/* PSI of the system (@some MC_PSI_SOME_US) or the cgroup (MC_CG_SOME_US):
 * avg10 from the sample, the stall of the interval, the total. */
static void json_psi(const char *key, const struct mem_point *now, const struct mem_row *r,
		     enum mem_col some)
{
	enum mem_ind ind = some == MC_PSI_SOME_US ? MI_PSI_SOME_US : MI_CG_SOME_US;
	int a = ind - MI_PSI_SOME_US;

	printf(",\"%s\":", key);
	if (!r->have[some]) {
		printf("null");
		return;
	}
	printf("{\"some_avg10\":%.2f,\"some_stall_us\":%" PRIu64 ",\"some_total_us\":%" PRIu64,
	       now->s.avg10[a], r->v[some], now->s.v[ind]);
	if (r->have[some + 1])
		printf(",\"full_avg10\":%.2f,\"full_stall_us\":%" PRIu64 ",\"full_total_us\":%" PRIu64,
		       now->s.avg10[a + 1], r->v[some + 1], now->s.v[ind + 1]);
	printf("}");
}

static void text_psi(const struct mem_point *now, const struct mem_row *r, enum mem_col some)
{
	int a = (some == MC_PSI_SOME_US ? MI_PSI_SOME_US : MI_CG_SOME_US) - MI_PSI_SOME_US;

	if (!r->have[some]) {
		printf(" %6s %6s %8s %8s", "-", "-", "-", "-");
		return;
	}
	printf(" %6.2f", now->s.avg10[a]);
	if (r->have[some + 1])
		printf(" %6.2f", now->s.avg10[a + 1]);
	else
		printf(" %6s", "-");
	printf(" %8.1f", (double)r->v[some] / 1000.0);
	if (r->have[some + 1])
		printf(" %8.1f", (double)r->v[some + 1] / 1000.0);
	else
		printf(" %8s", "-");
}

/* A count column, "-" when unknown; with @ms_col its time beside it. */
static void text_count(const struct mem_row *r, enum mem_col c, int width)
{
	if (r->have[c])
		printf(" %*" PRIu64, width, r->v[c]);
	else
		printf(" %*s", width, "-");
}

static void text_ms(const struct mem_row *r, enum mem_col c)
{
	if (r->have[c])
		printf(" %8.1f", (double)r->v[c] / 1e6);
	else
		printf(" %8s", "-");
}

static void print_header(const struct pressure_state *st)
{
	if (st->json)
		return;
	printf("%-8s %6s %6s %8s %8s", "TIME", "SOME10", "FULL10", "SOME_MS", "FULL_MS");
	if (st->cg_pressure[0])
		printf(" %6s %6s %8s %8s", "CGS10", "CGF10", "CGS_MS", "CGF_MS");
	printf(" %9s %7s %6s %6s %6s %8s %6s %8s %7s %4s\n", "AVAIL_MB", "MAJFLT", "SWPIN", "SWPOUT",
	       "DIRECT", "DIR_MS", "MEMCG", "MCG_MS", "COMPACT", "OOM");
}

static int print_interval(void *ctx)
{
	struct pressure_state *st = ctx;
	struct mem_point now;
	struct mem_row r;
	char when[16];

	if (sample(st, &now))
		return 0;
	mem_row__diff(&now, &st->prev, &r);
	wall_label(when, sizeof(when), false);
	flockfile(stdout);
	if (st->json) {
		printf("{\"type\":\"interval\",\"time\":\"%s\",\"interval\":%lu,\"secs\":%.3f", when,
		       st->timer.printed + 1, (double)r.len_ns / 1e9);
		json_psi("psi", &now, &r, MC_PSI_SOME_US);
		if (st->cg_pressure[0] || st->cg_v1)
			json_psi("cgroup_psi", &now, &r, MC_CG_SOME_US);
		json_col(&r, "memavailable_kb", MC_MEMAVAIL_KB);
		json_col(&r, "major_faults", MC_MAJFLT);
		json_col(&r, "pswpin", MC_PSWPIN);
		json_col(&r, "pswpout", MC_PSWPOUT);
		json_col(&r, "direct_reclaims", MC_DIRECT);
		if (r.have[MC_DIRECT_NS])
			printf(",\"direct_reclaim_ms\":%.3f", (double)r.v[MC_DIRECT_NS] / 1e6);
		json_col(&r, "memcg_reclaims", MC_MEMCG);
		if (r.have[MC_MEMCG_NS])
			printf(",\"memcg_reclaim_ms\":%.3f", (double)r.v[MC_MEMCG_NS] / 1e6);
		json_col(&r, "compact_stalls", MC_COMPACT);
		json_col(&r, "oom_kills", MC_OOM);
		printf("}\n");
	} else {
		printf("%-8s", when);
		text_psi(&now, &r, MC_PSI_SOME_US);
		if (st->cg_pressure[0])
			text_psi(&now, &r, MC_CG_SOME_US);
		if (r.have[MC_MEMAVAIL_KB])
			printf(" %9" PRIu64, r.v[MC_MEMAVAIL_KB] / 1024);
		else
			printf(" %9s", "-");
		text_count(&r, MC_MAJFLT, 7);
		text_count(&r, MC_PSWPIN, 6);
		text_count(&r, MC_PSWPOUT, 6);
		text_count(&r, MC_DIRECT, 6);
		text_ms(&r, MC_DIRECT_NS);
		text_count(&r, MC_MEMCG, 6);
		text_ms(&r, MC_MEMCG_NS);
		text_count(&r, MC_COMPACT, 7);
		text_count(&r, MC_OOM, 4);
		printf("\n");
	}
	fflush(stdout);
	funlockfile(stdout);
	st->prev = now;
	return 0;
}

/* ---- the run ---------------------------------------------------------------- */

/*
 * Events on: the baseline of the first interval, then the "Tracing" line.
 * A workload started on that line stalls and reclaims inside the first
 * interval, with every reclaim event seen.
 */
static void on_ready(void *ctx)
{
	struct pressure_state *st = ctx;

	sample(st, &st->prev);
	every__ready(&st->timer);
}

static void on_round(void *ctx)
{
	struct pressure_state *st = ctx;

	if (reclaim_watch__err(st->rw))
		st->err = reclaim_watch__err(st->rw);
	every__round(&st->timer);
}

/* Whether the effective capabilities have CAP_SYS_RESOURCE (24): the
 * kernel's test for a privileged (real-time) PSI trigger. */
static bool has_cap_sys_resource(void)
{
	char *text = NULL;
	const char *p;
	bool yes = false;

	if (read_file("/proc/self/status", 1 << 16, &text, NULL) == 0) {
		p = strstr(text, "CapEff:");
		if (p)
			yes = strtoull(p + strlen("CapEff:"), NULL, 16) & (1ULL << 24);
		free(text);
	}
	return yes;
}

/* -G: the cgroup's directory, and its memory.pressure when it has one;
 * TOOL_INIT_FAILED after saying why not. */
static int resolve_cgroup(struct pressure_state *st)
{
	struct errbuf eb = { "" };
	int err;

	err = procstat__cgroup_pressure(st->cgroup_arg, st->cg_dir, sizeof(st->cg_dir),
					st->cg_pressure, sizeof(st->cg_pressure), &eb);
	if (err) {
		tool__fail(TOOL, &eb, err);
		return TOOL_INIT_FAILED;
	}
	if (st->cg_pressure[0])
		return 0;
	st->cg_v1 = true;
	fprintf(stderr, "faultline " TOOL ": '%s' has no memory.pressure: cgroup v1 keeps no PSI per "
		"cgroup (v2 only); showing the system's\n", st->cg_dir);
	return 0;
}

static const char *pressure_opt(int c, const char *arg, void *ctx)
{
	struct pressure_state *st = ctx;
	struct errbuf eb = { "" };
	struct trigger *t;

	if (c == 'G') {
		st->cgroup_arg = arg;
		return NULL;
	}
	if (st->ntrig == MAX_TRIGGERS)
		return "too many triggers (at most 8):";
	t = &st->trig[st->ntrig];
	if (psi_trigger__parse(arg, &t->full, &t->stall_us, &t->window_us, &eb))
		return "invalid trigger (want 'some|full STALL/WINDOW', a window of 500ms to 10s):";
	snprintf(t->spec, sizeof(t->spec), "%s", arg);
	t->fd = -1;
	st->ntrig++;
	return NULL;
}

static const char *pressure_positional(int argc, char **argv, const char **arg, void *ctx)
{
	struct pressure_state *st = ctx;

	return tool_opts__parse_interval(&st->every, argc, argv, arg);
}

/* `faultline pressure [-G CGROUP] [-t SPEC]... [--json] [interval [count]]` */
static const struct tool_option pressure_options[] = {
	OPT_CALL('G', "cgroup", "CGROUP", 'G', "also this cgroup's PSI (cgroup v2 memory.pressure): "
		 "a directory, or a path below the cgroup2 mount"),
	OPT_CALL('t', "trigger", "'some|full STALL/WINDOW'", 't',
		 "a PSI trigger (\"some 150ms/1s\"), on the cgroup's file with -G: a line the moment "
		 "stalls pass STALL within WINDOW (500ms..10s)"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per interval and per trigger"),
	OPT_SHARED(TOOL_SHARED_ALL, "accepted: PSI is always the whole system's (or -G's group)"),
	OPT_SHARED(TOOL_SHARED_MMAP, "ring buffer pages per CPU (power of two)"),
	OPT_END,
};

static const struct tool_cmdline pressure_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_ANY_ORDER | TOOL_OPT_NO_PID | TOOL_OPT_NO_CMD | TOOL_OPT_NO_UNWIND,
	.options = pressure_options,
	.text = {
		.args = "[interval [count]]",
		.args_help = TOOL_ARGS_INTERVAL("seconds per line (default 1)",
						"lines to print, then stop"),
	},
	.opt = pressure_opt,
	.positional = pressure_positional,
};

static int pressure_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
			 char **argv)
{
	struct pressure_state *st = ctx;
	int ret;

	/* Before anything can fail: fini closes what is open. */
	for (size_t i = 0; i < MAX_TRIGGERS; i++)
		st->trig[i].fd = -1;
	st->stop_pipe[0] = st->stop_pipe[1] = -1;
	st->every.secs = 1.0;
	ret = tool_opts__parse_cmdline(o, mode, &pressure_cmdline, st, argc, argv);
	if (ret)
		return ret;
	st->o = o;
	st->json = o->json;
	if (st->cgroup_arg && resolve_cgroup(st))
		return TOOL_INIT_FAILED;
	if (tool__refuse_live(o, TOOL, "/proc and cgroup counters"))
		return TOOL_INIT_FAILED;
	o->sess.no_maps = true;
	return 0;
}

/*
 * The reclaim events, the triggers, the first interval's baseline.  The
 * run is always live (init refused record and report), so the header is
 * printed here, before the trigger thread that may print at once.
 */
static int pressure_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			       struct errbuf *eb)
{
	struct pressure_state *st = ctx;
	int err;

	(void)label;
	st->s = s;
	every__init(&st->timer, s, st->every.secs, st->every.count, print_interval, st);
	st->timer.last_in_round = true;
	if (ladder__is(rung, "tracepoint")) {
		err = reclaim_watch__add(s, &st->rw, eb);
		if (err)
			return err;
		st->trace_reclaim = true;
	}
	if (st->ntrig) {
		st->trigger_file = st->cg_pressure[0] ? st->cg_pressure : "/proc/pressure/memory";
		if (ladder__is(rung, "nopsi")) {
			fprintf(stderr, "faultline " TOOL ": this kernel has no PSI: no trigger can be "
				"set\n");
			return 1;
		}
		for (size_t i = 0; i < st->ntrig; i++) {
			err = psi_trigger__open(st->trigger_file, st->trig[i].full, st->trig[i].stall_us,
						st->trig[i].window_us, &st->trig[i].fd, eb);
			if (err)
				return err;
		}
		if (!has_cap_sys_resource()) {
			if (st->cg_pressure[0])
				st->skip_cg_psi = true;
			else
				st->skip_sys_psi = true;
			fprintf(stderr, "faultline " TOOL ": without CAP_SYS_RESOURCE the kernel checks "
				"triggers every 2 s, and a read of %s could swallow their events: its "
				"columns are not read\n", st->trigger_file);
		}
		if (pipe(st->stop_pipe)) {
			fprintf(stderr, "faultline " TOOL ": pipe failed: %s\n", strerror(errno));
			return 1;
		}
	}
	if (sample(st, &st->prev))
		return -EIO;
	print_header(st);
	fflush(stdout);
	if (st->ntrig) {
		err = pthread_create(&st->thread, NULL, trigger_thread, st);
		if (err) {
			fprintf(stderr, "faultline " TOOL ": cannot start the trigger thread: %s%s\n",
				strerror(err), newsys__thread_refusal(err));
			return 1;
		}
		st->thread_started = true;
	}
	return 0;
}

static int pressure_report(void *ctx, struct session *s)
{
	struct pressure_state *st = ctx;

	/* The interval in progress when stopped: the totals end here. */
	every__final(&st->timer);
	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	if (session__lost(s))
		lost__warn(s, TOOL, session__lost(s), "the reclaim counts are low");
	return EXIT_OK;
}

static void pressure_fini(void *ctx)
{
	struct pressure_state *st = ctx;

	if (st->thread_started) {
		if (write(st->stop_pipe[1], "x", 1) < 0)
			pthread_cancel(st->thread);
		pthread_join(st->thread, NULL);
	}
	for (size_t i = 0; i < MAX_TRIGGERS; i++)
		if (st->trig[i].fd >= 0)
			close(st->trig[i].fd);
	if (st->stop_pipe[0] >= 0)
		close(st->stop_pipe[0]);
	if (st->stop_pipe[1] >= 0)
		close(st->stop_pipe[1]);
	reclaim_watch__free(st->rw);
}

/* pressure: PSI and the /proc counters on every rung; reclaim from the
 * vmscan pairs where the kernel has them, else /proc/vmstat allocstall. */
static const char *const pressure_tracepoint_needs[] = {
	"proc:pressure/memory", "tp:vmscan:mm_vmscan_direct_reclaim_begin",
	"tp:vmscan:mm_vmscan_direct_reclaim_end", NULL
};
static const char *const pressure_psi_needs[] = { "proc:pressure/memory", NULL };

static const struct rung pressure_rungs[] = {
	{ .key = "tracepoint", .label = "PSI /proc/pressure/memory and cgroup memory.pressure; "
	  "reclaim from tracepoints vmscan:mm_vmscan_{direct,memcg}_reclaim_{begin,end}; "
	  "/proc/meminfo MemAvailable; /proc/vmstat pgmajfault pswpin pswpout compact_stall oom_kill",
	  .needs = pressure_tracepoint_needs, .loses = "" },
	{ .key = "vmstat", .label = "PSI /proc/pressure/memory and cgroup memory.pressure; "
	  "reclaim from /proc/vmstat allocstall*; /proc/meminfo, /proc/vmstat",
	  .needs = pressure_psi_needs,
	  .loses = "direct reclaims counted without their time; no memcg reclaim" },
	{ .key = "nopsi", .label = "/proc/meminfo and /proc/vmstat only", .needs = ladder_no_needs,
	  .loses = "no PSI (no CONFIG_PSI, or booted psi=0): no stall times, no triggers; "
		   "reclaim from /proc/vmstat allocstall*" },
};

static const struct ladder pressure_ladder = LADDER("pressure", pressure_rungs);

const struct tool pressure_tool = {
	.cmdline = &pressure_cmdline,
	.name = TOOL,
	.ladder = &pressure_ladder,
	.stacks = TOOL_STACKS_NONE,
	.what = "memory pressure",
	.flags = TOOL_NO_TARGET,
	.why_not = "it reads /proc and cgroup counters, which a recording does not hold",
	.size = sizeof(struct pressure_state),
	.init = pressure_init,
	.add_events = pressure_add_events,
	.ready = on_ready,
	.round = on_round,
	.report = pressure_report,
	.fini = pressure_fini,
};
