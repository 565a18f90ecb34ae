/*
 * faultline brk: brk(2) calls counted by user stack and process, with the
 * requested break (brkstack.bt, stackcount on sys_enter_brk), then per
 * process the break it started and ended with.
 *
 * Sources (its ladder, before brk_tool): the syscalls:sys_enter_brk/sys_exit_brk
 * tracepoints; else uprobes on libc's brk (probes/libc-syscalls.probes).
 * Both deliver fields "brk" (requested) and "ret" (resulting break).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/numfmt.h"
#include "trace/tp-catalog.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "trace/probe-spec.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "brk"

static const struct tool_option brk_options[] = {
	OPT_SHARED(TOOL_SHARED_T, "also print each call as it completes, with a timestamp"),
	OPT_SHARED(TOOL_SHARED_FOLDED, "FlameGraph folded stacks weighted by calls"),
	OPT_END,
};

static const struct tool_cmdline brk_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_T | TOOL_OPT_FOLDED | TOOL_OPT_SNAPSHOT,
	.options = brk_options,
};

struct site {
	pid_t pid;
	uint32_t stack;
	uint64_t count;
	uint64_t req_min, req_max;
};

struct proc {
	pid_t pid;
	uint64_t calls;
	uint64_t first_ret, last_ret;
	bool have_ret;
	uint32_t image;		/* exec count when first_ret was taken */
};

struct brk_state {
	struct tool_opts *o;
	struct tp_field f_req, f_ret;
	struct keyed *sites;		/* pid << 32 | stack -> struct site */
	struct keyed *procs;		/* pid -> struct proc */
	struct hashmap *pending;	/* tid -> requested break, for -T */
	int err;
};

static struct proc *proc_of(struct brk_state *st, pid_t pid)
{
	int created;
	struct proc *p = keyed__get(st->procs, (uint64_t)pid, &created);

	if (p && created)
		p->pid = pid;
	return p;
}

static struct site *site_of(struct brk_state *st, pid_t pid, uint32_t stack)
{
	int created;
	struct site *site = keyed__get(st->sites, (uint64_t)(uint32_t)pid << 32 | stack, &created);

	if (site && created)
		*site = (struct site){ .pid = pid, .stack = stack, .req_min = UINT64_MAX };
	return site;
}

static void on_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct brk_state *st = ctx;
	uint64_t req = 0;
	uint32_t stack = 0;
	struct site *site;
	struct proc *p;

	if (tp_field__u64(&st->f_req, smp->raw, smp->raw_size, &req))
		return;
	if (session__user_stack(s, smp, &stack)) {
		st->err = -ENOMEM;
		return;
	}
	site = site_of(st, (pid_t)smp->pid, stack);
	p = proc_of(st, (pid_t)smp->pid);
	if (!site || !p || hashmap__set(st->pending, smp->tid, req)) {
		st->err = -ENOMEM;
		return;
	}
	site->count++;
	if (req < site->req_min)
		site->req_min = req;
	if (req > site->req_max)
		site->req_max = req;
	p->calls++;
}

static void on_exit_call(struct session *s, const struct sample *smp, void *ctx)
{
	struct brk_state *st = ctx;
	uint64_t ret = 0, req = 0;
	bool have_req;
	struct proc *p;

	if (tp_field__u64(&st->f_ret, smp->raw, smp->raw_size, &ret))
		return;
	have_req = hashmap__delete(st->pending, smp->tid, &req);
	p = proc_of(st, (pid_t)smp->pid);
	if (!p) {
		st->err = -ENOMEM;
		return;
	}
	/* A new image (exec) has a new heap: growth starts over. */
	if (!p->have_ret || p->image != session__exec_count(s, (pid_t)smp->pid)) {
		p->first_ret = ret;
		p->image = session__exec_count(s, (pid_t)smp->pid);
	}
	p->last_ret = ret;
	p->have_ret = true;
	if (!st->o->timestamps || !have_req)
		return;
	if (st->o->json) {
		printf("{\"type\":\"call\",\"time\":%.6f,\"pid\":%u,\"tid\":%u,\"comm\":",
		       session__elapsed(s, smp->time), smp->pid, smp->tid);
		json__str(stdout, session__comm(s, (pid_t)smp->pid));
		printf(",\"requested\":\"0x%" PRIx64 "\",\"result\":\"0x%" PRIx64 "\"}\n", req, ret);
	} else if (!st->o->folded) {
		printf("%-12.6f %-7u %-16s 0x%-16" PRIx64 " 0x%" PRIx64 "\n",
		       session__elapsed(s, smp->time), smp->pid,
		       session__comm(s, (pid_t)smp->pid), req, ret);
	}
	tool__event_done();
}

static int cmp_site(const void *a, const void *b, void *ctx)
{
	const struct site *x = a, *y = b;

	(void)ctx;
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static int brk_report(void *ctx, struct session *s)
{
	struct brk_state *st = ctx;
	struct report r;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	report__init(&r, s, stdout, st->o->srcline);
	report__lost_first(&r, st->o->json, st->o->folded, TOOL,
			   "brk calls were missed: some are missing from the counts and breaks below");
	keyed__sort(st->sites, cmp_site, NULL);
	for (size_t i = 0; i < keyed__count(st->sites); i++) {
		const struct site *site = keyed__at(st->sites, i);
		const char *comm = session__stack_comm(s, site->pid, site->stack);
		char calls[NUMFMT_LEN];

		if (st->o->folded) {
			report__folded(&r, site->pid, comm, site->stack, site->count);
		} else if (st->o->json) {
			printf("{\"type\":\"stack\",\"pid\":%d,\"comm\":", (int)site->pid);
			json__str(stdout, comm);
			printf(",\"count\":%" PRIu64 ",\"requested_min\":\"0x%" PRIx64
			       "\",\"requested_max\":\"0x%" PRIx64 "\",\"stack\":",
			       site->count, site->req_min, site->req_max);
			report__stack_json(&r, site->pid, site->stack);
			printf("}\n");
		} else {
			report__stack(&r, site->pid, site->stack, "  ", false);
			printf("    %s [%d]\n", comm, (int)site->pid);
			numfmt__count(calls, sizeof(calls), site->count);
			if (site->req_min == site->req_max)
				printf("    %s calls, requested break 0x%" PRIx64 "\n\n", calls,
				       site->req_min);
			else
				printf("    %s calls, requested break 0x%" PRIx64 " .. 0x%" PRIx64
				       "\n\n", calls, site->req_min, site->req_max);
		}
	}
	if (!st->o->folded) {
		if (!st->o->json)
			printf("%-7s %-16s %9s %-18s %-18s %s\n", "PID", "COMM", "BRK_CALLS",
			       "FIRST_BREAK", "LAST_BREAK", "GROWTH(B)");
		for (size_t i = 0; i < keyed__count(st->procs); i++) {
			const struct proc *p = keyed__at(st->procs, i);
			int64_t growth = p->have_ret ? (int64_t)(p->last_ret - p->first_ret) : 0;

			if (st->o->json) {
				printf("{\"type\":\"process\",\"pid\":%d,\"comm\":", (int)p->pid);
				json__str(stdout, session__comm(s, p->pid));
				printf(",\"calls\":%" PRIu64 ",\"first_break\":\"0x%" PRIx64
				       "\",\"last_break\":\"0x%" PRIx64 "\",\"growth\":%" PRId64 "}\n",
				       p->calls, p->first_ret, p->last_ret, growth);
			} else {
				printf("%-7d %-16s %9" PRIu64 " 0x%-16" PRIx64 " 0x%-16" PRIx64 " %" PRId64
				       "\n", (int)p->pid, session__comm(s, p->pid), p->calls,
				       p->first_ret, p->last_ret, growth);
			}
		}
	}
	if (!st->o->folded)
		report__footer(&r, st->o->json);
	report__fini(&r);
	return EXIT_OK;
}

static int brk_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			  struct errbuf *eb)
{
	struct brk_state *st = ctx;
	struct tp_event *enter = NULL, *exit_ev = NULL;
	struct probe_set *set = NULL;
	int err;

	(void)label;
	if (ladder__is(rung, "tracepoint")) {
		err = session__add_tracepoint(s, "syscalls", "sys_enter_brk", SESSION_USER_STACK,
					      on_enter, st, &enter, eb);
		if (!err)
			err = session__add_tracepoint(s, "syscalls", "sys_exit_brk", 0, on_exit_call,
						      st, &exit_ev, eb);
	} else {
		err = probe_set__load_named("libc-syscalls", &set, eb);
		if (!err) {
			const struct probe_spec *pe = probe_set__find(set, "brk_enter");
			const struct probe_spec *pr = probe_set__find(set, "brk_return");

			if (!pe || !pr)
				err = errbuf__set(eb, -ENOENT,
						  "probes 'brk_enter'/'brk_return' missing from libc-syscalls.probes");
			if (!err)
				err = session__add_uprobe(s, pe, SESSION_USER_STACK, on_enter, st,
							  &enter, eb);
			if (!err)
				err = session__add_uprobe(s, pr, 0, on_exit_call, st, &exit_ev, eb);
		}
	}
	if (!err && (tp_event__field(enter, "brk", &st->f_req) ||
		     tp_event__field(exit_ev, "ret", &st->f_ret)))
		err = errbuf__set(eb, -ENOENT, "the brk events lack the fields 'brk'/'ret'");
	probe_set__free(set);
	return err;
}

/* -T: the header of the per-call lines, once tracing is set up. */
static void print_header(void *ctx)
{
	const struct brk_state *st = ctx;

	if (st->o->timestamps && !st->o->json && !st->o->folded)
		printf("%-12s %-7s %-16s %-18s %s\n", "TIME(s)", "PID", "COMM", "REQUESTED", "RESULT");
}

static int brk_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	struct brk_state *st = ctx;
	int ret;

	ret = tool_opts__parse_cmdline(o, mode, &brk_cmdline, NULL, argc, argv);
	if (ret)
		return ret;
	st->o = o;
	st->sites = keyed__new(sizeof(struct site));
	st->procs = keyed__new(sizeof(struct proc));
	st->pending = hashmap__new();
	return st->sites && st->procs && st->pending ? 0 : -ENOMEM;
}

static void brk_fini(void *ctx)
{
	struct brk_state *st = ctx;

	keyed__free(st->sites);
	keyed__free(st->procs);
	hashmap__free(st->pending);
}

/* brk: the syscall's tracepoint; else libc's brk/sbrk, by uprobe or the
 * perf uprobe PMU. */
static const char *const brk_tracepoint_needs[] = { "tp:syscalls:sys_enter_brk", NULL };

static const struct rung brk_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint syscalls:sys_enter_brk",
	  .needs = brk_tracepoint_needs, .loses = "" },
	{ .key = "uprobe", .label = "uprobe libc brk", .needs = ladder_uprobe_needs,
	  .loses = "only brk calls made through libc's brk/sbrk (not raw syscalls)" },
	{ .key = "uprobe-pmu", .label = "perf uprobe PMU on libc brk (registers sampled)",
	  .needs = ladder_uprobe_pmu_needs,
	  .loses = "only brk calls made through libc's brk/sbrk (not raw syscalls)" },
};

static const struct ladder brk_ladder = LADDER("brk", brk_rungs);

const struct tool brk_tool = {
	.cmdline = &brk_cmdline,
	.name = TOOL,
	.ladder = &brk_ladder,
	.what = "brk() calls",
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS,
	.size = sizeof(struct brk_state),
	.init = brk_init,
	.add_events = brk_add_events,
	.before_run = print_header,
	.report = brk_report,
	.snapshot = brk_report,	/* keyed__sort keeps the sites found */
	.fini = brk_fini,
};
