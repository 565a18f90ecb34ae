/*
 * timeline-print: report timeline's text and JSON (timeline.h): what the
 * recording lacks, then per process its rows (one an interval in which
 * something happened to it) and its OOM kills, each with the victim's
 * top sites and its precursor rows.  Text: a table per process, a "-"
 * in the columns of a source not recorded; JSON: one object per row, per
 * site and per kill's precursors, null for what was not recorded.
 *
 * Calls the writers of cmd/out/ and the session (names, times).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lib/json.h"
#include "lib/numfmt.h"
#include "lib/keyed.h"
#include "agg/stack-table.h"
#include "cmd/out/precursors.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tools/timeline.h"

static void print_missing(const struct tl *t)
{
	const char *names[6], *why[6];
	size_t n = 0;

	if (!t->have_allocs) {
		names[n] = "allocations";
		why[n++] = "allocations (the user allocator's probes: record leak with -p or -c)";
	}
	if (!t->have_faults) {
		names[n] = "faults";
		why[n++] = "faults (exceptions:page_fault_user or page-faults)";
	}
	if (!t->have_major) {
		names[n] = "major";
		why[n++] = "major faults (major-faults)";
	}
	if (!t->have_swapin) {
		names[n] = "swapins";
		why[n++] = "swap-ins (major-faults with addresses)";
	}
	if (!t->have_reclaim) {
		names[n] = "reclaim";
		why[n++] = "reclaim (vmscan direct or memcg reclaim begin/end)";
	}
	if (!t->have_oom) {
		names[n] = "oom";
		why[n++] = "OOM kills (oom:mark_victim)";
	}
	if (t->json) {
		printf("{\"type\":\"timeline\",\"interval\":%.9g,\"before\":%.9g,\"not_recorded\":[",
		       (double)t->interval_ns / 1e9, (double)t->before_ns / 1e9);
		for (size_t i = 0; i < n; i++)
			printf("%s\"%s\"", i ? "," : "", names[i]);
		printf("]}\n");
		return;
	}
	if (!n)
		return;
	printf("Not recorded: ");
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "", why[i]);
	printf("; shown as -\n\n");
}

/* Decimals that show an interval's start exactly (1: 0; 0.25: 2). */
static int decimals(uint64_t interval_ns)
{
	int d = 0;

	for (uint64_t unit = 1000000000ULL; d < 9 && interval_ns % unit; unit /= 10)
		d++;
	return d;
}

static void col_u64(bool have, int width, uint64_t v)
{
	if (have)
		printf(" %*" PRIu64, width, v);
	else
		printf(" %*s", width, "-");
}

static void json_u64(const char *key, bool have, uint64_t v)
{
	if (have)
		printf(",\"%s\":%" PRIu64, key, v);
	else
		printf(",\"%s\":null", key);
}

static void print_row(const struct tl *t, const struct proc *p, const struct row *r)
{
	double at = (double)(r->bin * t->interval_ns) / 1e9;
	uint64_t kb = r->touched * (uint64_t)t->page_size / 1024;
	char events[64] = "";

	if (r->events & EV_OOM_KILL) {
		if (r->trigger != p->pid)
			snprintf(events, sizeof(events), "oom-kill(by %d)", (int)r->trigger);
		else
			snprintf(events, sizeof(events), "oom-kill");
	}
	if (r->events & EV_EXIT)
		snprintf(events + strlen(events), sizeof(events) - strlen(events), "%sexit",
			 events[0] ? "," : "");
	if (t->json) {
		printf("{\"type\":\"row\",\"pid\":%d,\"comm\":", (int)p->pid);
		json__str(stdout, session__comm(t->s, p->pid));
		printf(",\"time\":%.9g", at);
		json_u64("outstanding_bytes", t->have_allocs, r->outstanding);
		json_u64("touched_kb", t->have_faults, kb);
		json_u64("faults", t->have_faults, r->faults);
		json_u64("major", t->have_major, r->major);
		if (t->have_reclaim)
			printf(",\"reclaim_ms\":%.3f", (double)r->reclaim_ns / 1e6);
		else
			printf(",\"reclaim_ms\":null");
		json_u64("swapins", t->have_swapin, r->swapins);
		printf(",\"oom_kill\":%s", r->events & EV_OOM_KILL ? "true" : "false");
		if (r->events & EV_OOM_KILL)
			printf(",\"trigger_pid\":%d", (int)r->trigger);
		printf(",\"exit\":%s}\n", r->events & EV_EXIT ? "true" : "false");
		return;
	}
	printf("%10.*f", decimals(t->interval_ns), at);
	col_u64(t->have_allocs, 15, r->outstanding);
	col_u64(t->have_faults, 12, kb);
	col_u64(t->have_faults, 8, r->faults);
	col_u64(t->have_major, 7, r->major);
	if (t->have_reclaim)
		printf(" %11.2f", (double)r->reclaim_ns / 1e6);
	else
		printf(" %11s", "-");
	col_u64(t->have_swapin, 8, r->swapins);
	printf("  %s\n", events);
}

static void print_sites(const struct tl *t, struct report *rep, const struct kill *k,
			bool allocs)
{
	const struct stack_site *sites = allocs ? k->allocs : k->faults;
	size_t n = allocs ? k->nallocs : k->nfaults;
	double at = session__elapsed(t->s, k->time);

	if (n > t->top)
		n = t->top;
	for (size_t i = 0; i < n; i++) {
		const struct stack_site *st = &sites[i];
		char b[2][NUMFMT_LEN];

		if (t->json) {
			printf("{\"type\":\"%s\",\"pid\":%d,\"comm\":", allocs ? "alloc_site" :
			       "fault_site", (int)k->victim);
			json__str(stdout, k->comm);
			if (allocs)
				printf(",\"kill_time\":%.9f,\"bytes\":%" PRIu64 ",\"allocations\":%"
				       PRIu64, at, st->leaked, st->leaked_blocks);
			else
				printf(",\"kill_time\":%.9f,\"before\":%.9g,\"faults\":%" PRIu64
				       ",\"touched_kb\":%" PRIu64, at, (double)t->before_ns / 1e9,
				       st->calls, st->bytes / 1024);
			printf(",\"stack\":");
			report__stack_json(rep, k->victim, st->stack);
			printf("}\n");
		} else {
			/* A fault site's figures (lib/numfmt); an allocation
			 * site's line is memleak's. */
			numfmt__count(b[0], sizeof(b[0]), st->calls);
			numfmt__bytes(b[1], sizeof(b[1]), st->bytes);
			if (allocs)
				printf("\t%" PRIu64 " bytes in %" PRIu64 " allocations from stack\n",
				       st->leaked, st->leaked_blocks);
			else if (t->fault_error_code || !strcmp(t->fault_event, "page-faults"))
				printf("\t%s faults (%s touched) from stack\n", b[0], b[1]);
			else
				printf("\t%s faults from stack\n", b[0]);
			report__stack(rep, k->victim, st->stack, "\t\t", true);
		}
	}
}

/* Kill @k's precursor rows (oom --timeline's block; in JSON an object of
 * type "precursors"), or a line saying the recording has no samples (in
 * JSON: the object, its rows null). */
static void print_kill_precursors(const struct tl *t, const struct kill *k)
{
	if (!t->json) {
		if (t->have_memstat)
			precursors__text(k->pre, k->npre, k->time, t->pre_secs);
		else
			printf("  Precursors: the recording holds no /proc or cgroup samples "
			       "(faultline:memstat: record -e oom)\n");
		return;
	}
	printf("{\"type\":\"precursors\",\"pid\":%d,\"comm\":", (int)k->victim);
	json__str(stdout, k->comm);
	printf(",\"kill_time\":%.9f,", session__elapsed(t->s, k->time));
	if (t->have_memstat)
		precursors__json(k->pre, k->npre, k->time, t->pre_secs);
	else
		printf("\"before_s\":%g,\"first\":null,\"rows\":null", t->pre_secs);
	printf("}\n");
}

static void print_kill(const struct tl *t, struct report *rep, const struct kill *k)
{
	double at = session__elapsed(t->s, k->time);

	if (!t->json) {
		printf("OOM kill of PID %d (\"%s\") at %.3f s", (int)k->victim, k->comm, at);
		if (k->trigger != k->victim)
			printf(", triggered by PID %d (\"%s\")", (int)k->trigger,
			       session__comm(t->s, k->trigger));
		printf("\n");
		if (!t->have_allocs)
			printf("  Allocation sites: not recorded\n");
		else if (!k->nallocs)
			printf("  No allocation outstanding at the kill\n");
		else
			printf("  Top %zu allocation sites by bytes outstanding at the kill:\n",
			       k->nallocs < t->top ? k->nallocs : (size_t)t->top);
	}
	print_sites(t, rep, k, true);
	if (!t->json) {
		if (!t->fault_stacks)
			printf("  Fault sites: %s\n", t->have_faults ? "no user stacks recorded" :
			       "not recorded");
		else if (!k->nfaults)
			printf("  No faults in the %.9g s before the kill\n",
			       (double)t->before_ns / 1e9);
		else
			printf("  Top %zu fault sites in the %.9g s before the kill:\n",
			       k->nfaults < t->top ? k->nfaults : (size_t)t->top,
			       (double)t->before_ns / 1e9);
	}
	if (t->fault_stacks)
		print_sites(t, rep, k, false);
	print_kill_precursors(t, k);
}

void tl__print(struct tl *t)
{
	struct report rep;

	report__init(&rep, t->s, stdout, false);
	report__lost_first(&rep, t->json, false, TOOL,
			   "events were missed: outstanding bytes, faults and the other figures "
			   "below may be off");
	print_missing(t);
	for (size_t i = 0; i < keyed__count(t->procs); i++) {
		const struct proc *p = keyed__at(t->procs, i);

		if (!t->json) {
			printf("PID %d (\"%s\")\n", (int)p->pid, session__comm(t->s, p->pid));
			printf("%10s %15s %12s %8s %7s %11s %8s  %s\n", "TIME(s)", "OUTSTANDING(B)",
			       "TOUCHED(KiB)", "FAULTS", "MAJOR", "RECLAIM(ms)", "SWAPINS", "EVENTS");
		}
		for (size_t j = 0; j < p->n; j++)
			print_row(t, p, &p->rows[j]);
		for (size_t j = 0; j < t->nkills; j++)
			if (t->kills[j].victim == p->pid)
				print_kill(t, &rep, &t->kills[j]);
		if (!t->json)
			printf("\n");
	}
	report__footer(&rep, t->json);
	report__fini(&rep);
}
