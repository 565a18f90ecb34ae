/*
 * faultline oom: one line per OOM kill in BCC oomkill's format
 *   HH:MM:SS Triggered by PID N ("comm"), OOM kill of PID N ("comm"), N pages, loadavg: ...
 * then what oomkill lacks: the constraint (global or memcg) with the memcg
 * paths, the victim's RSS split and oom_score_adj, and with -v the memory
 * PSI and the top of the memcg's memory.stat.
 *
 * Sources (its ladder, before oom_tool):
 *   tracepoint  oom:mark_victim.  It fires in the task that called the
 *               OOM killer, so the sample's pid is the trigger and the
 *               event's "pid" field the victim.  Its other fields vary
 *               (pid only before 6.9 and the 2025 stable backports; then
 *               comm, RSS split, uid, pgtables, oom_score_adj) and are read
 *               by name.  The constraint and memcg paths come from the
 *               kernel's own report in /dev/kmsg, matched by victim pid
 *               (an event waits up to a second for it); failing that, from
 *               the victim's /proc/PID/cgroup read when the event is handled.
 *   kprobe      oom_kill_process, for kernels with kprobes but without the
 *               tracepoint (before 4.13, RHEL 7).  Its arguments are not
 *               read: their layout changed (3.10/RHEL 7: p, gfp_mask, order,
 *               points, totalpages, memcg, nodemask, message; 4.6-4.12: oc,
 *               p, points, totalpages, message; 4.13+: oc, message) and the
 *               fields behind them need offsets only BTF or debuginfo give
 *               (a wrong guess prints garbage, bcc#1911).  It gives the
 *               trigger exactly; the victim comes from the report in kmsg.
 *   kmsg        the report in /dev/kmsg alone (oom-kmsg.h).
 *
 * "pages" is what oomkill prints, oc->totalpages; no rung can read it, so
 * it is derived as the kernel computes it (oom_report__totalpages()).
 *
 * Recording (faultline record -e oom) cannot read /dev/kmsg while the
 * run goes on: it records the kernel's report as it is printed instead,
 * with the tracepoint printk:console (one event per printk() call, so a
 * line built of pr_cont() pieces is joined again here), and this
 * machine's page size, SwapTotal and MemTotal for "pages".  A replay
 * (faultline report -i FILE oom) gives each kill the tracepoint's fields
 * and that report, as live; what live is read from /proc and the memcg's
 * files at the kill (loadavg, PSI, memory.stat when the report has none,
 * the victim's /proc) is not in a recording, and is said so once, before
 * the first kill; a recording without a kill is reported as the line "0
 * OOM kills in the recording".  The kmsg rung can be neither recorded nor
 * replayed.
 *
 * The readers of /proc and the memcg's files are proc/cgroup.c's, the
 * join of an event with its report agg/oom-join.c's; this file takes the
 * events, reassembles printk:console lines and prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/hashmap.h"
#include "lib/json.h"
#include "trace/printk-join.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "ladder.h"
#include "lib/file.h"
#include "lib/stopsig.h"
#include "agg/mem-series.h"
#include "agg/oom-join.h"
#include "agg/reclaim-watch.h"
#include "proc/kmsg.h"
#include "proc/oom-kmsg.h"
#include "proc/cgroup.h"
#include "proc/pidstat.h"
#include "proc/procstat.h"
#include "cmd/out/report.h"
#include "cmd/out/precursors.h"
#include "trace/session.h"
#include "cmd/tool.h"

#define TOOL "oom"
#define MAX_PENDING 64
#define MAX_RECENT 16
#define TOP_STATS 8
/* How long an event waits for its report in /dev/kmsg. */
#define KMSG_WAIT_NS 1000000000ULL
/* --timeline: how long a kill's last row waits for its victim to be gone. */
#define VICTIM_WAIT_NS 5000000000ULL

enum stat_when { STAT_NONE, STAT_KERNEL, STAT_READ };
enum { OPT_TIMELINE = 256, OPT_BEFORE };

/* One kill as printed: the parsed report plus what was read around it. */
struct kill {
	struct oom_report r;
	uint64_t real_ns;		/* wall-clock time of the kill */
	uint64_t mono_ns;		/* CLOCK_MONOTONIC of the kill, 0 unknown */
	uint64_t queued_ns;		/* CLOCK_MONOTONIC when handled */
	const char *source;
	int trigger_tid;
	char loadavg[128];
	char psi[256];
	uint64_t psi_delay_ms;
	bool have_psi;
	char cgroup_at_event[OOM_KMSG_PATH];	/* victim's memcg from /proc, "" if gone */
	char stat_memcg[OOM_KMSG_PATH];
	struct oom_stat stat[TOP_STATS];
	size_t nstat;
	enum stat_when stat_when;
	uint64_t stat_delay_ms;
};

struct oom_state {
	bool verbose, json;
	struct tool_opts *o;
	const char *rung, *label;
	struct session *s;
	bool replay;			/* s is a recording's: nothing live is read */
	bool noted;			/* replay: what it lacks is said */
	struct oom_kmsg *parser;
	struct kmsg *kmsg;		/* /dev/kmsg, live */
	bool log;			/* the kernel's report comes (kmsg or console) */
	/* printk:console: its pieces joined into lines */
	struct tp_field f_msg;
	struct printk_join *console;
	uint64_t rec_swap_kb, rec_mem_kb;	/* replay: the recorded SwapTotal, MemTotal */
	char memcg_root[PATH_MAX];	/* mount of the memory controller's hierarchy */
	uint64_t page_kb;
	struct tp_field f_pid, f_comm, f_total_vm, f_anon, f_file, f_shmem, f_uid, f_pgtables, f_adj;
	struct kill *pending;		/* tracepoint/kprobe events waiting for kmsg */
	size_t npending;
	struct oom_join *join;		/* kernel reports not yet matched */
	uint64_t kills, dropped;
	int err;
	/* --timeline: a sample of the indicators every second from the start */
	bool timeline;
	double before;
	const char *cgroup_arg;
	char cg_dir[PATH_MAX], cg_pressure[PATH_MAX + 32];
	struct reclaim_watch *rw;
	struct mem_series *series;
	uint64_t next_sample_ns;
	uint64_t last_sample_ns;	/* replay: the newest recorded sample's time */
	struct hashmap *exited;		/* replay: pid -> when it exited, as recorded */
};

/* ---- small readers ----------------------------------------------------- */

/* CLOCK_MONOTONIC on the session's clock: a replay's is the recording's. */
static uint64_t mono_now(const struct oom_state *st)
{
	return st->s ? session__now(st->s) : clock__ns(CLOCK_MONOTONIC);
}

/* The first TOP_STATS lines of <root><memcg>/memory.stat, as read now. */
static bool read_memory_stat(const struct oom_state *st, const char *memcg, struct kill *k)
{
	if (!cgroup__memory_stat(st->memcg_root, memcg, k->stat, TOP_STATS, &k->nstat))
		return false;
	snprintf(k->stat_memcg, sizeof(k->stat_memcg), "%s", memcg);
	k->stat_when = STAT_READ;
	return true;
}

/* The memcg a kill is about: the one whose limit was hit, else the victim's. */
static const char *kill_memcg(const struct kill *k)
{
	if (k->r.oom_memcg[0])
		return k->r.oom_memcg;
	if (k->r.task_memcg[0])
		return k->r.task_memcg;
	return k->cgroup_at_event;
}

/* ---- the precursor timeline ----------------------------------------------- */

#define SAMPLE_NS 1000000000ULL

static void take_point(const struct oom_state *st, struct mem_point *p)
{
	mem_sample__read(NULL, st->cg_pressure[0] ? st->cg_pressure : NULL, 0, &p->s, NULL);
	reclaim_watch__totals(st->rw, &p->r);
	p->have_reclaim = st->rw != NULL;
}

/* A recording's samples (faultline:memstat), with the reclaim totals
 * replayed up to it; while recording, none arrive here. */
static void on_memstat(struct session *s, const struct mem_sample *ms, void *ctx)
{
	struct oom_state *st = ctx;
	struct mem_point p = { .s = *ms };

	(void)s;
	if (!st->series)
		return;
	reclaim_watch__totals(st->rw, &p.r);
	p.have_reclaim = st->rw != NULL;
	mem_series__push(st->series, &p);
	st->last_sample_ns = ms->time_ns;
}

/* Live: one sample a second, on the session's rounds. */
static void sample_tick(struct oom_state *st)
{
	struct mem_point p;
	uint64_t now;

	if (!st->series || st->replay)
		return;
	now = clock__ns(CLOCK_MONOTONIC);
	if (now < st->next_sample_ns)
		return;
	take_point(st, &p);
	mem_series__push(st->series, &p);
	while (st->next_sample_ns <= now)
		st->next_sample_ns += SAMPLE_NS;
}

/*
 * The rows from --before seconds before the kill to a sample taken now
 * (after it: the stall and reclaim that led to it end in that row).  t is
 * a row's end, in seconds from the kill.
 */
static void print_precursors(struct oom_state *st, const struct kill *k)
{
	uint64_t span = (uint64_t)(st->before * 1e9), since;
	struct mem_row *rows = NULL;
	struct mem_point last;
	size_t n = 0;

	if (!st->series || !k->mono_ns)
		return;
	since = k->mono_ns > span ? k->mono_ns - span : 0;
	/* A replay's rows end at a recorded sample (flush_pending waits). */
	if (!st->replay)
		take_point(st, &last);
	if (mem_series__rows(st->series, since, st->replay ? NULL : &last, &rows, &n))
		return;
	if (st->json) {
		printf(",\"precursors\":{");
		precursors__json(rows, n, k->mono_ns, st->before);
		printf("}");
	} else {
		precursors__text(rows, n, k->mono_ns, st->before);
	}
	free(rows);
}

/* ---- printing ------------------------------------------------------------ */

/*
 * What a kill's line needs that the event and report lack, read now
 * (live only: a replay has the recording's totals and nothing else): a
 * memcg's limit, MemTotal/SwapTotal for "pages", loadavg, PSI and
 * memory.stat with -v.  Return: its "pages", where they came from in
 * *@from.
 */
static uint64_t complete_kill(struct oom_state *st, struct kill *k, const char **from)
{
	uint64_t swap_kb, mem_kb, pages, now = mono_now(st);
	struct oom_report *r = &k->r;
	const char *memcg;

	/* A memcg kill whose report gave no limit: the memcg's own files. */
	if (!strcmp(r->constraint, "CONSTRAINT_MEMCG") && !(r->have & OOM_HAVE_MEM_LIMIT) &&
	    !st->replay && st->memcg_root[0] && kill_memcg(k)[0]) {
		char path[PATH_MAX + OOM_KMSG_PATH + 32], line[64] = "";

		if (cgroup__memcg_file(st->memcg_root, kill_memcg(k), "memory.limit_in_bytes", path, sizeof(path)))
			cgroup__read_line(path, line, sizeof(line));
		if (!line[0] && cgroup__memcg_file(st->memcg_root, kill_memcg(k), "memory.max", path, sizeof(path)))
			cgroup__read_line(path, line, sizeof(line));
		if (line[0] >= '0' && line[0] <= '9') {
			r->mem_limit_kb = strtoull(line, NULL, 10) / 1024;
			r->have |= OOM_HAVE_MEM_LIMIT;
		}
	}
	if (st->replay) {
		swap_kb = st->rec_swap_kb;
		mem_kb = st->rec_mem_kb;
	} else {
		cgroup__meminfo_totals(&swap_kb, &mem_kb);
	}
	pages = oom_report__totalpages(r, st->page_kb, swap_kb, mem_kb, from);
	if (!k->loadavg[0] && !st->replay)
		cgroup__read_line("/proc/loadavg", k->loadavg, sizeof(k->loadavg));
	if (st->verbose && !k->have_psi && !st->replay && cgroup__read_psi(k->psi, sizeof(k->psi))) {
		k->have_psi = true;
		k->psi_delay_ms = k->mono_ns && now > k->mono_ns ? (now - k->mono_ns) / 1000000 : 0;
	}
	memcg = kill_memcg(k);
	if (st->verbose) {
		if (r->nstats) {
			/* The kernel printed the memcg's stats in its report: at kill time. */
			k->nstat = r->nstats < TOP_STATS ? r->nstats : TOP_STATS;
			memcpy(k->stat, r->stats, k->nstat * sizeof(k->stat[0]));
			snprintf(k->stat_memcg, sizeof(k->stat_memcg), "%s", r->stats_memcg);
			k->stat_when = STAT_KERNEL;
		} else if (!st->replay && (k->stat_when == STAT_NONE || strcmp(k->stat_memcg, memcg))) {
			if (read_memory_stat(st, memcg, k))
				k->stat_delay_ms = k->mono_ns && now > k->mono_ns ?
					(now - k->mono_ns) / 1000000 : 0;
		}
	}
	return pages;
}

/*
 * What a replay cannot give, said once: before the first kill it is
 * missing from (a recording with no kill has nothing to explain), or at
 * the start where no kill can be shown at all.
 */
static void replay_note(struct oom_state *st)
{
	if (!st->replay || st->noted)
		return;
	st->noted = true;
	fprintf(stderr, "faultline " TOOL ": a recording does not hold the load average%s or the "
		"victim's /proc entries: not shown%s%s\n",
		st->verbose ? ", memory PSI, memcg files" : "",
		st->log ? "" : "; nor the kernel's log report (the tracepoint printk:console was not "
		"recorded): no constraint, memcg paths, limits or gfp mask",
		st->log || !ladder__is(st->rung, "kprobe") ? "" : ", and no victims: no kill can be shown");
}

static void print_kill(struct oom_state *st, struct kill *k)
{
	const char *from = "";
	uint64_t pages;
	struct oom_report *r = &k->r;
	time_t secs = (time_t)(k->real_ns / 1000000000ULL);
	char when[16] = "??:??:??", trig_pid[16] = "?";
	struct tm tm;

	if (localtime_r(&secs, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (r->have & OOM_HAVE_TRIGGER_PID)
		snprintf(trig_pid, sizeof(trig_pid), "%d", r->trigger_pid);
	pages = complete_kill(st, k, &from);
	replay_note(st);

	if (st->json) {
		printf("{\"type\":\"oom_kill\",\"time\":\"%s\",\"timestamp\":%.6f,\"trigger_pid\":", when,
		       (double)k->real_ns / 1e9);
		if (r->have & OOM_HAVE_TRIGGER_PID)
			printf("%d", r->trigger_pid);
		else
			printf("null");
		if (k->trigger_tid)
			printf(",\"trigger_tid\":%d", k->trigger_tid);
		printf(",\"trigger_comm\":");
		if (r->trigger_comm[0])
			json__str(stdout, r->trigger_comm);
		else
			printf("null");
		printf(",\"victim_pid\":%d,\"victim_comm\":", r->victim_pid);
		json__str(stdout, r->victim_comm[0] ? r->victim_comm : "?");
		printf(",\"pages\":%" PRIu64 ",\"pages_from\":", pages);
		json__str(stdout, from);
		printf(",\"loadavg\":");
		if (k->loadavg[0])
			json__str(stdout, k->loadavg);
		else
			printf("null");
		printf(",\"constraint\":");
		if (r->constraint[0])
			json__str(stdout, r->constraint);
		else
			printf("null");
		printf(",\"constraint_inferred\":%s,\"oom_memcg\":", r->constraint_inferred ? "true" : "false");
		if (r->oom_memcg[0])
			json__str(stdout, r->oom_memcg);
		else
			printf("null");
		printf(",\"task_memcg\":");
		if (r->task_memcg[0] || k->cgroup_at_event[0])
			json__str(stdout, r->task_memcg[0] ? r->task_memcg : k->cgroup_at_event);
		else
			printf("null");
		if (r->have & OOM_HAVE_RSS)
			printf(",\"total_vm_kb\":%" PRIu64 ",\"anon_rss_kb\":%" PRIu64 ",\"file_rss_kb\":%" PRIu64,
			       r->total_vm_kb, r->anon_rss_kb, r->file_rss_kb);
		if (r->have & OOM_HAVE_SHMEM)
			printf(",\"shmem_rss_kb\":%" PRIu64, r->shmem_rss_kb);
		if (r->have & OOM_HAVE_PGTABLES)
			printf(",\"pgtables_kb\":%" PRIu64, r->pgtables_kb);
		if (r->have & OOM_HAVE_UID)
			printf(",\"uid\":%u", r->uid);
		if (r->have & OOM_HAVE_SCORE_ADJ)
			printf(",\"oom_score_adj\":%d", r->oom_score_adj);
		if (r->gfp[0]) {
			printf(",\"gfp_mask\":");
			json__str(stdout, r->gfp);
			printf(",\"order\":%d", r->order);
		}
		printf(",\"source\":");
		json__str(stdout, k->source);
		if (k->have_psi) {
			printf(",\"psi_memory\":");
			json__str(stdout, k->psi);
			printf(",\"psi_delay_ms\":%" PRIu64, k->psi_delay_ms);
		}
		if (k->stat_when != STAT_NONE) {
			printf(",\"memory_stat\":{\"memcg\":");
			json__str(stdout, k->stat_memcg);
			printf(",\"read\":\"%s\"", k->stat_when == STAT_KERNEL ? "kernel report" : "memory.stat");
			if (k->stat_when == STAT_READ)
				printf(",\"delay_ms\":%" PRIu64, k->stat_delay_ms);
			printf(",\"top\":{");
			for (size_t i = 0; i < k->nstat; i++) {
				printf("%s", i ? "," : "");
				json__str(stdout, k->stat[i].key);
				printf(":%" PRIu64, k->stat[i].value);
			}
			printf("}}");
		}
		print_precursors(st, k);
		printf("}\n");
	} else {
		printf("%s Triggered by PID %s (\"%s\"), OOM kill of PID %d (\"%s\"), %" PRIu64
		       " pages, loadavg: %s\n", when, trig_pid, r->trigger_comm[0] ? r->trigger_comm : "?",
		       r->victim_pid, r->victim_comm[0] ? r->victim_comm : "?", pages,
		       k->loadavg[0] ? k->loadavg : "?");
		printf("  constraint=%s%s", r->constraint[0] ? r->constraint : "unknown",
		       r->constraint_inferred ? " (inferred)" : "");
		if (r->oom_memcg[0])
			printf(" oom_memcg=%s", r->oom_memcg);
		if (r->task_memcg[0])
			printf(" task_memcg=%s", r->task_memcg);
		else if (k->cgroup_at_event[0])
			printf(" task_memcg=%s", k->cgroup_at_event);
		printf("\n  victim:");
		if (r->have & OOM_HAVE_RSS)
			printf(" anon-rss %" PRIu64 " kB, file-rss %" PRIu64 " kB,", r->anon_rss_kb,
			       r->file_rss_kb);
		if (r->have & OOM_HAVE_SHMEM)
			printf(" shmem-rss %" PRIu64 " kB,", r->shmem_rss_kb);
		if (r->have & OOM_HAVE_RSS)
			printf(" total-vm %" PRIu64 " kB,", r->total_vm_kb);
		if (r->have & OOM_HAVE_PGTABLES)
			printf(" pgtables %" PRIu64 " kB,", r->pgtables_kb);
		if (r->have & OOM_HAVE_UID)
			printf(" uid %u,", r->uid);
		if (r->have & OOM_HAVE_SCORE_ADJ)
			printf(" oom_score_adj %d", r->oom_score_adj);
		else
			printf(" oom_score_adj ?");
		printf("\n");
		if (st->verbose) {
			printf("  pages: %s; source: %s\n", from[0] ? from : "unknown", k->source);
			if (k->have_psi)
				printf("  psi memory (read %" PRIu64 " ms after the kill): %s\n", k->psi_delay_ms,
				       k->psi);
			if (k->stat_when == STAT_KERNEL)
				printf("  memory.stat of %s (the kernel's OOM report, at kill time):",
				       k->stat_memcg);
			else if (k->stat_when == STAT_READ)
				printf("  memory.stat of %s (read %" PRIu64 " ms after the kill):", k->stat_memcg,
				       k->stat_delay_ms);
			for (size_t i = 0; i < k->nstat; i++)
				printf(" %s %" PRIu64 "%s", k->stat[i].key, k->stat[i].value,
				       i + 1 < k->nstat ? "," : "");
			if (k->stat_when != STAT_NONE)
				printf("\n");
		}
		print_precursors(st, k);
	}
	st->kills++;
	fflush(stdout);
}

/* ---- the kernel's report: /dev/kmsg, or printk:console's lines ---------- */

static void kmsg_report(struct oom_state *st, const struct oom_report *r)
{
	struct kill k;

	if (ladder__is(st->rung, "kmsg")) {
		memset(&k, 0, sizeof(k));
		k.r = *r;
		k.source = "kernel log report (/dev/kmsg)";
		if (r->have & OOM_HAVE_TS)
			k.real_ns = kmsg__realtime(r->ts_usec, &k.mono_ns);
		else
			k.real_ns = clock__ns(CLOCK_REALTIME);
		print_kill(st, &k);
		return;
	}
	oom_join__add_report(st->join, r);
}

/* One kernel log record, from /dev/kmsg or joined from printk:console. */
static void kmsg_record(const char *rec, size_t len, void *ctx)
{
	struct oom_state *st = ctx;
	struct oom_report r;

	if (oom_kmsg__feed(st->parser, rec, len, &r) == 1)
		kmsg_report(st, &r);
}

/* Read every record there is now. */
static void kmsg_drain(struct oom_state *st)
{
	char buf[8192];
	size_t n;

	while (st->kmsg && (n = kmsg__read(st->kmsg, buf, sizeof(buf))) > 0)
		kmsg_record(buf, n, st);
}

/* ---- tracepoint and kprobe rungs ------------------------------------------ */

/* An event joined with its report (agg/oom-join.c): say so. */
static void merge_source(struct kill *k)
{
	k->source = !strcmp(k->source, "tracepoint oom:mark_victim") ?
		"tracepoint oom:mark_victim + kernel log report" : "kprobe oom_kill_process + kernel log report";
}

/* Print the events whose report came, or that waited long enough, in order. */
/* Live: the victim's /proc entry is gone, or it is a zombie (exit_mm
 * done: no stall of its own is left to come). */
static bool live_gone(pid_t pid)
{
	struct pid_stat st;
	int err = pid_stat__read(NULL, pid, &st);

	if (err)
		return err == -ENOENT || err == -ESRCH;
	return st.state == 'Z' || st.state == 'X';
}

static void on_task_exit(struct session *s, pid_t pid, pid_t tid, void *ctx)
{
	struct oom_state *st = ctx;

	if (pid == tid && hashmap__set(st->exited, (uint64_t)pid, session__now(s)))
		st->err = -ENOMEM;
}

/*
 * --timeline: a kill's rows end with a sample taken once its victim is
 * gone, so the stall and reclaim of its last moments (the kill is the
 * start of its exit, not the end) are in them: live, at once (the sample
 * is taken when printing); a replay, at the first recorded sample after
 * the victim's recorded exit.  At most VICTIM_WAIT_NS after the kill (a
 * victim stuck in D state, an exit the recording lacks).
 */
static bool victim_done(const struct oom_state *st, const struct kill *k, uint64_t now)
{
	uint64_t gone;

	if (!st->series || !k->r.victim_pid)
		return true;
	if (st->replay) {
		if (hashmap__get(st->exited, (uint64_t)k->r.victim_pid, &gone) &&
		    gone >= k->mono_ns && st->last_sample_ns >= gone)
			return true;
		return st->last_sample_ns >= k->mono_ns + VICTIM_WAIT_NS;
	}
	return live_gone(k->r.victim_pid) || now - k->mono_ns >= VICTIM_WAIT_NS;
}

static void flush_pending(struct oom_state *st, bool final)
{
	uint64_t now = mono_now(st);
	size_t done = 0;

	for (size_t i = 0; i < st->npending; i++) {
		struct kill *k = &st->pending[i];
		bool matched = oom_join__take(st->join, &k->r, k->trigger_tid);

		if (matched)
			merge_source(k);
		if (!matched && !final && now - k->queued_ns < KMSG_WAIT_NS && st->log)
			break;
		/* The recording's last sample was taken after every event. */
		if (!final && !victim_done(st, k, now))
			break;
		if (!matched && !k->r.victim_pid) {
			st->dropped++;	/* a kprobe hit whose report never came */
			done++;
			continue;
		}
		print_kill(st, k);
		done++;
	}
	memmove(st->pending, st->pending + done, (st->npending - done) * sizeof(*st->pending));
	st->npending -= done;
}

static void on_round(void *ctx)
{
	struct oom_state *st = ctx;

	sample_tick(st);
	kmsg_drain(st);
	if (st->console)
		printk_join__flush(st->console, mono_now(st));
	flush_pending(st, false);
}

static struct kill *queue_event(struct oom_state *st, const struct sample *smp)
{
	struct kill *k;

	if (st->npending == MAX_PENDING)
		flush_pending(st, true);
	k = &st->pending[st->npending++];
	memset(k, 0, sizeof(*k));
	k->mono_ns = smp->time;
	k->real_ns = session__realtime(st->s, smp->time);
	k->queued_ns = mono_now(st);
	k->trigger_tid = (int)smp->tid;
	k->r.trigger_pid = (int)smp->pid;
	k->r.have |= OOM_HAVE_TRIGGER_PID;
	snprintf(k->r.trigger_comm, sizeof(k->r.trigger_comm), "%s",
		 session__comm(st->s, (pid_t)smp->pid));
	if (!strcmp(k->r.trigger_comm, "?"))
		k->r.trigger_comm[0] = '\0';
	/* What may be gone in a moment: read it now (live: a recording has
	 * none of it). */
	if (!st->replay)
		cgroup__read_line("/proc/loadavg", k->loadavg, sizeof(k->loadavg));
	if (st->verbose && !st->replay && cgroup__read_psi(k->psi, sizeof(k->psi))) {
		uint64_t now = k->queued_ns;

		k->have_psi = true;
		k->psi_delay_ms = now > k->mono_ns ? (now - k->mono_ns) / 1000000 : 0;
	}
	return k;
}

static bool field_u64(const struct tp_field *f, const struct sample *smp, uint64_t *v)
{
	return f->present && tp_field__u64(f, smp->raw, smp->raw_size, v) == 0;
}

static void on_mark_victim(struct session *s, const struct sample *smp, void *ctx)
{
	struct oom_state *st = ctx;
	struct kill *k;
	uint64_t pid = 0, a, b, c;

	(void)s;
	if (!field_u64(&st->f_pid, smp, &pid))
		return;
	k = queue_event(st, smp);
	k->source = "tracepoint oom:mark_victim";
	k->r.victim_pid = (int)pid;
	if (st->f_comm.present)
		tp_field__str(&st->f_comm, smp->raw, smp->raw_size, k->r.victim_comm,
			      sizeof(k->r.victim_comm));
	if (field_u64(&st->f_total_vm, smp, &a) && field_u64(&st->f_anon, smp, &b) &&
	    field_u64(&st->f_file, smp, &c)) {
		/* In kB, as the kernel's report prints them. */
		k->r.total_vm_kb = a;
		k->r.anon_rss_kb = b;
		k->r.file_rss_kb = c;
		k->r.have |= OOM_HAVE_RSS;
	}
	if (field_u64(&st->f_shmem, smp, &a)) {
		k->r.shmem_rss_kb = a;
		k->r.have |= OOM_HAVE_SHMEM;
	}
	if (field_u64(&st->f_pgtables, smp, &a)) {
		k->r.pgtables_kb = a;
		k->r.have |= OOM_HAVE_PGTABLES;
	}
	if (field_u64(&st->f_uid, smp, &a)) {
		k->r.uid = (unsigned int)a;
		k->r.have |= OOM_HAVE_UID;
	}
	if (field_u64(&st->f_adj, smp, &a)) {
		k->r.oom_score_adj = (int)(int64_t)a;
		k->r.have |= OOM_HAVE_SCORE_ADJ;
	}
	/* The victim may still be exiting: its memcg, and its comm and
	 * oom_score_adj where the event lacks them.  Not in a replay: the
	 * pid is the recorded machine's. */
	if (!st->replay)
		cgroup__pid_memcg((pid_t)pid, k->cgroup_at_event, sizeof(k->cgroup_at_event));
	if (!k->r.victim_comm[0] && !st->replay) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		cgroup__read_line(path, k->r.victim_comm, sizeof(k->r.victim_comm));
	}
	if (!(k->r.have & OOM_HAVE_SCORE_ADJ) && !st->replay) {
		char path[64], line[32];

		snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
		cgroup__read_line(path, line, sizeof(line));
		if (line[0]) {
			k->r.oom_score_adj = atoi(line);
			k->r.have |= OOM_HAVE_SCORE_ADJ;
		}
	}
	if (st->verbose && k->cgroup_at_event[0] && read_memory_stat(st, k->cgroup_at_event, k))
		k->stat_delay_ms = k->queued_ns > k->mono_ns ? (k->queued_ns - k->mono_ns) / 1000000 : 0;
	on_round(st);
}

static void on_oom_kill_process(struct session *s, const struct sample *smp, void *ctx)
{
	struct oom_state *st = ctx;
	struct kill *k;

	(void)s;
	k = queue_event(st, smp);
	/* The victim is named by the report that follows in /dev/kmsg. */
	k->source = "kprobe oom_kill_process";
	on_round(st);
}

/* ---- the report as printed: printk:console ------------------------------ */

/* One printk() call's text (printk-join.h joins the report's lines). */
static void on_console(struct session *s, const struct sample *smp, void *ctx)
{
	struct oom_state *st = ctx;
	char piece[PRINTK_JOIN_LINE];

	(void)s;
	if (tp_field__str(&st->f_msg, smp->raw, smp->raw_size, piece, sizeof(piece)))
		return;
	if (printk_join__piece(st->console, smp->tid, smp->time, piece))
		flush_pending(st, false);
}

static int add_events(struct oom_state *st, struct errbuf *eb)
{
	const struct features *f = session__features(st->s);
	struct tp_event *ev = NULL;
	int err;

	/* The report in the kernel's log, as printed: a recording's only way
	 * to it (live reads /dev/kmsg, which holds more: the whole record). */
	if ((session__recording(st->s) || st->replay) &&
	    features__has_tracepoint(f, "printk", "console")) {
		err = session__add_tracepoint(st->s, "printk", "console", 0, on_console, st, &ev, eb);
		if (err)
			return err;
		if (tp_event__field(ev, "msg", &st->f_msg))
			return errbuf__set(eb, -ENOENT, "the printk:console event has no field 'msg'");
		/* "Killed process": one printk, never continued, and the
		 * line a kill waits for. */
		err = printk_join__new("Killed process ", kmsg_record, st, &st->console);
		if (err)
			return err;
		st->log = true;
	}
	if (ladder__is(st->rung, "kprobe"))
		return session__add_kprobe(st->s, "oom_kill_process", "oom_kill_process", false, NULL, 0,
					   on_oom_kill_process, st, NULL, eb);
	err = session__add_tracepoint(st->s, "oom", "mark_victim", 0, on_mark_victim, st, &ev, eb);
	if (err)
		return err;
	if (tp_event__field(ev, "pid", &st->f_pid))
		return errbuf__set(eb, -ENOENT, "the oom:mark_victim event has no field 'pid'");
	/* The rest exist on 6.9+ and the 2025 stable backports only. */
	tp_event__field(ev, "comm", &st->f_comm);
	tp_event__field(ev, "total_vm", &st->f_total_vm);
	tp_event__field(ev, "anon_rss", &st->f_anon);
	tp_event__field(ev, "file_rss", &st->f_file);
	tp_event__field(ev, "shmem_rss", &st->f_shmem);
	tp_event__field(ev, "uid", &st->f_uid);
	tp_event__field(ev, "pgtables", &st->f_pgtables);
	tp_event__field(ev, "oom_score_adj", &st->f_adj);
	return 0;
}

/* ---- the kmsg rung's own loop ----------------------------------------- */

static int run_kmsg(struct oom_state *st, double duration, const char *label)
{
	uint64_t deadline = 0;

	stopsig__catch();
	if (duration > 0)
		deadline = clock__ns(CLOCK_MONOTONIC) + (uint64_t)(duration * 1e9);
	fprintf(stderr, "Tracing OOM kills with %s... Hit Ctrl-C to end.\n", label);
	while (!stopsig__caught()) {
		struct pollfd pfd = { .fd = kmsg__fd(st->kmsg), .events = POLLIN };
		int timeout = 100;

		if (deadline) {
			uint64_t now = clock__ns(CLOCK_MONOTONIC);

			if (now >= deadline)
				break;
			if ((deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR)
			break;
		sample_tick(st);
		kmsg_drain(st);
	}
	kmsg_drain(st);
	stopsig__release();
	return 0;
}

static bool has_reclaim_pair(struct session *s)
{
	return features__has_tracepoint(session__features(s), "vmscan",
					"mm_vmscan_direct_reclaim_begin") &&
	       features__has_tracepoint(session__features(s), "vmscan",
					"mm_vmscan_direct_reclaim_end");
}

/*
 * --timeline, live: reclaim traced where the vmscan pairs exist, the
 * first sample now and then one a second.  Recording (with or without
 * --timeline): the session's samples (faultline:memstat) go to the file;
 * the reclaim events with reclaim's (record -e oom,reclaim).  A report: the recorded samples, as
 * they come (a recording made before they were: said once, and no
 * timeline).
 */

static int timeline_start(struct oom_state *st, struct errbuf *eb)
{
	struct mem_point p;
	int err;

	if (st->s && session__recording(st->s)) {
		/* Recorded, always: the samples, for a report's --timeline
		 * (the reclaim events are reclaim's: record -e oom,reclaim). */
		return session__add_memstat(st->s, on_memstat, st, eb);
	}
	if (st->replay) {
		/* The recorded samples; the system's and the recorded target's
		 * group (-G is live only). */
		err = session__add_memstat(st->s, on_memstat, st, eb);
		if (!err) {
			st->exited = hashmap__new();
			if (!st->exited)
				return errbuf__set(eb, -ENOMEM, "out of memory");
			err = session__add_consumer(st->s, &(struct session_consumer){
				.thread_exit = on_task_exit, .ctx = st });
		}
		if (err == -ENOENT) {
			fprintf(stderr, "faultline " TOOL ": a recording holds no /proc or cgroup samples "
				"(made before they were recorded): no precursor timeline\n");
			st->timeline = false;
			return 0;
		}
		if (err)
			return err;
		if (!has_reclaim_pair(st->s))
			fprintf(stderr, "faultline " TOOL ": the recording holds no reclaim events "
				"(record -e oom,reclaim): no reclaim columns\n");
		else if ((err = reclaim_watch__add(st->s, &st->rw, eb)))
			return err;
		if (st->cgroup_arg)
			fprintf(stderr, "faultline " TOOL ": -G is ignored in a report: the recording's "
				"samples have the target's group, if it had one\n");
		/* --before seconds, the one before and those to a second
		 * after the kill. */
		if (mem_series__new((size_t)st->before + 5, &st->series))
			return errbuf__set(eb, -ENOMEM, "out of memory");
		return 0;
	}
	if (st->cgroup_arg) {
		err = procstat__cgroup_pressure(st->cgroup_arg, st->cg_dir, sizeof(st->cg_dir),
						st->cg_pressure, sizeof(st->cg_pressure), eb);
		if (err)
			return err;
		if (!st->cg_pressure[0])
			fprintf(stderr, "faultline " TOOL ": '%s' has no memory.pressure: cgroup v1 keeps "
				"no PSI per cgroup (v2 only); the timeline has the system's\n",
				st->cg_dir);
	}
	/* The kmsg rung runs without a session: no reclaim events there. */
	if (st->s && has_reclaim_pair(st->s)) {
		err = reclaim_watch__add(st->s, &st->rw, eb);
		if (err)
			return err;
	}
	/* Samples of the last --before seconds, the one before them and two
	 * for late rounds. */
	if (mem_series__new((size_t)st->before + 3, &st->series))
		return errbuf__set(eb, -ENOMEM, "out of memory");
	take_point(st, &p);
	mem_series__push(st->series, &p);
	st->next_sample_ns = p.s.time_ns + SAMPLE_NS;
	return 0;
}

/* ---- options and main ----------------------------------------------------- */

static const char *extra_opt(int c, const char *arg, void *ctx)
{
	struct oom_state *st = ctx;

	if (c == 'v')
		st->verbose = true;
	else if (c == 'G')
		st->cgroup_arg = arg;
	else if (c == OPT_TIMELINE)
		st->timeline = true;
	else if (c == OPT_BEFORE) {
		if (tool_opts__parse_secs(arg, &st->before) || st->before > 3600)
			return "invalid --before (seconds, at most 3600):";
		st->timeline = true;
	}
	return NULL;
}

/* The rung for the kmsg check before a session exists, and whether this
 * machine could open one (tracefs and perf events). */
static const struct tool_option oom_options[] = {
	OPT_CALL('v', "verbose", NULL, 'v',
		 "also the memory PSI and the top of the OOM memcg's memory.stat"),
	OPT_CALL(0, "timeline", NULL, OPT_TIMELINE,
		 "each kill's precursors: PSI, MemAvailable, faults, swap, reclaim, compaction per "
		 "second before it, and which left its baseline first"),
	OPT_CALL(0, "before", "SECS", OPT_BEFORE, "the timeline's length (default 30; implies --timeline)"),
	OPT_CALL('G', "cgroup", "CGROUP", 'G',
		 "the timeline also has this cgroup v2 group's PSI (memory.pressure)"),
	OPT_SHARED(TOOL_SHARED_PID, "with faultline report: the kills of this recorded process (live, "
		   "OOM kills are traced system-wide: refused)"),
	OPT_SHARED(TOOL_SHARED_CMD, "with faultline record: the kills of CMD's tasks (live: refused)"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per kill"),
	OPT_SHARED(TOOL_SHARED_ALL, "accepted: OOM kills are always traced system-wide"),
	OPT_SHARED(TOOL_SHARED_MMAP, "ring buffer pages per CPU (power of two)"),
	OPT_END,
};

static const struct tool_cmdline oom_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_UNWIND | TOOL_OPT_LIVE_ALL,
	.options = oom_options,
	.opt = extra_opt,
};

static int oom_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	struct oom_state *st = ctx;
	int ret;

	st->before = 30;
	ret = tool_opts__parse_cmdline(o, mode, &oom_cmdline, st, argc, argv);
	if (ret)
		return ret;
	st->o = o;
	/* Live, OOM kills are traced system-wide.  A recording of a target
	 * holds the kills of its tasks (a memcg OOM it triggers itself), and
	 * a report reads whatever the recording holds. */
	if ((o->sess.pid > 0 || o->sess.cmd) && !tool__recording(o) && !tool__replaying(o)) {
		fprintf(stderr, "faultline " TOOL ": OOM kills are traced system-wide; -p and -c are not "
			"supported (filter the output by PID or memcg instead)\n");
		return -EINVAL;
	}
	o->all = true;
	o->sess.no_maps = true;		/* no user stacks or addresses */
	st->json = o->json;
	st->page_kb = (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
	cgroup__memcg_root(st->memcg_root, sizeof(st->memcg_root));
	st->pending = calloc(MAX_PENDING, sizeof(*st->pending));
	if (!st->pending)
		return -ENOMEM;
	ret = oom_join__new(MAX_RECENT, &st->join);
	return ret ? ret : oom_kmsg__new(&st->parser);
}

/* What the report needs of the recording or the machine, then the events. */
static int oom_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			  struct errbuf *eb)
{
	struct oom_state *st = ctx;
	int err;

	st->s = s;
	st->rung = rung;
	st->label = label;
	st->replay = s && session__replaying(s);
	/* The kmsg rung needs no tracefs and no session: the "falling back"
	 * line was said choosing it. */
	if (ladder__is(rung, "kmsg")) {
		err = kmsg__open(&st->kmsg, eb);
		if (!err && st->timeline)
			err = timeline_start(st, eb);
		return err;
	}
	if (session__recording(s)) {
		/* "pages" of a replay, as this machine would derive them. */
		char v[32];
		uint64_t swap_kb, mem_kb;

		cgroup__meminfo_totals(&swap_kb, &mem_kb);
		snprintf(v, sizeof(v), "%" PRIu64, st->page_kb);
		session__record_meta(s, "oom.page_kb", v);
		snprintf(v, sizeof(v), "%" PRIu64, swap_kb);
		session__record_meta(s, "oom.swap_total_kb", v);
		snprintf(v, sizeof(v), "%" PRIu64, mem_kb);
		session__record_meta(s, "oom.mem_total_kb", v);
	} else if (st->replay) {
		if (session__meta(s, "oom.page_kb"))
			st->page_kb = strtoull(session__meta(s, "oom.page_kb"), NULL, 10);
		if (session__meta(s, "oom.swap_total_kb"))
			st->rec_swap_kb = strtoull(session__meta(s, "oom.swap_total_kb"), NULL, 10);
		if (session__meta(s, "oom.mem_total_kb"))
			st->rec_mem_kb = strtoull(session__meta(s, "oom.mem_total_kb"), NULL, 10);
	} else {
		err = kmsg__open(&st->kmsg, eb);
		if (err && ladder__is(rung, "kprobe"))
			return err;
		if (err)
			fprintf(stderr, "faultline " TOOL ": warning: %s: no constraint or memcg limits "
				"from the kernel's report\n", errbuf__str(eb, err));
		st->log = st->kmsg != NULL;
	}
	err = add_events(st, eb);
	if (!err && (st->timeline || session__recording(s)))
		err = timeline_start(st, eb);
	if (!err && st->replay && !st->log && ladder__is(rung, "kprobe"))
		replay_note(st);
	return err;
}

/* The kmsg rung's run: no session. */
static int oom_run(void *ctx, struct session *s, struct errbuf *eb)
{
	struct oom_state *st = ctx;

	(void)s;
	(void)eb;
	return run_kmsg(st, st->o->sess.duration, st->label);
}

static int oom_report(void *ctx, struct session *s)
{
	struct oom_state *st = ctx;

	if (s) {
		kmsg_drain(st);
		if (st->console)
			printk_join__flush(st->console, 0);
		flush_pending(st, true);
		if (st->dropped)
			fprintf(stderr, "faultline " TOOL ": %" PRIu64 " oom_kill_process call(s) without a "
				"kernel report (no victim killed, or the log was lost)\n", st->dropped);
		/* A report says what it found first, and here that is all it
		 * found (live, BCC oomkill's output: a line per kill only). */
		else if (st->replay && !st->kills && !st->json)
			printf("0 OOM kills in the recording\n");
	}
	if (kmsg__lost(st->kmsg))
		fprintf(stderr, "faultline " TOOL ": %" PRIu64 " kernel log record(s) overwritten before "
			"they were read\n", kmsg__lost(st->kmsg));
	return EXIT_OK;
}

static void oom_fini(void *ctx)
{
	struct oom_state *st = ctx;

	kmsg__close(st->kmsg);
	printk_join__free(st->console);
	oom_kmsg__free(st->parser);
	mem_series__free(st->series);
	reclaim_watch__free(st->rw);
	oom_join__free(st->join);
	hashmap__free(st->exited);
	free(st->pending);
}

/*
 * The oom tool: one line (or JSON object) per OOM kill until Ctrl-C or
 * the duration.  Its kmsg rung reads /dev/kmsg with no session (.run).
 */
/* oom: the tracepoint (4.13+) names trigger and victim; before it, a
 * kprobe gives the trigger and the kernel's log report the victim (the
 * probe reads no argument: their layout differs on 3.10, 4.6-4.12 and
 * 4.13+); the log report alone is the last resort. */
static const char *const oom_tracepoint_needs[] = { "tp:oom:mark_victim", NULL };
static const char *const oom_kprobe_needs[] = { "feat:kprobes", "kfunc:oom_kill_process", NULL };
static const char *const oom_kmsg_needs[] = { NULL };

static const struct rung oom_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint oom:mark_victim (+ /dev/kmsg report)",
	  .needs = oom_tracepoint_needs, .loses = "" },
	{ .key = "kprobe", .label = "kprobe oom_kill_process (trigger) + /dev/kmsg report (victim)",
	  .needs = oom_kprobe_needs,
	  .loses = "the victim's fields as the kernel log prints them; a kill the log lost is dropped" },
	{ .key = "kmsg", .label = "/dev/kmsg OOM report", .needs = oom_kmsg_needs,
	  .loses = "the trigger only from the report's header, which is rate limited; kills of "
		   "already-exiting tasks are not reported" },
};

static const struct ladder oom_ladder = LADDER("oom", oom_rungs);

const struct tool oom_tool = {
	.cmdline = &oom_cmdline,
	.name = TOOL,
	.ladder = &oom_ladder,
	.what = "OOM kills",
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS,
	.bare_rung = "kmsg",
	.size = sizeof(struct oom_state),
	.init = oom_init,
	.add_events = oom_add_events,
	.round = on_round,
	.run = oom_run,
	.report = oom_report,
	.fini = oom_fini,
};
