/*
 * faultline shm: every System V shared-memory call, shmget, shmat, shmdt
 * and shmctl, as it returns, in BCC shmsnoop's columns (PID, COMM, SYS,
 * RET in hex, then the arguments with shmsnoop's flag names), with the
 * user stack of each call under -g.
 *
 * Sources (its ladder, before shm_tool): the syscalls:sys_{enter,exit}_shm*
 * tracepoints, entry and return paired per thread (a call whose entry came
 * before tracing is not shown); else uprobes on libc's wrappers, which see
 * only calls made through libc and return libc's -1, not -errno.  Both
 * carry the fields the kernel's tracepoints name (key size shmflg, shmid
 * shmaddr shmflg, shmaddr, shmid cmd buf; ret).
 *
 * From a recording (faultline report -i FILE shm) the calls are the
 * recorded run's; -g, -T, -t and -n apply after the fact.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "trace/tp-catalog.h"
#include "lib/keyed.h"
#include "trace/probe-spec.h"
#include "cmd/out/report.h"
#include "cmd/out/summary.h"
#include "lib/numfmt.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "shm"

enum shm_sys { SYS_SHMGET, SYS_SHMAT, SYS_SHMDT, SYS_SHMCTL, SYS__COUNT };
static const char *const sys_names[SYS__COUNT] = { "SHMGET", "SHMAT", "SHMDT", "SHMCTL" };
static const char *const call_names[SYS__COUNT] = { "shmget", "shmat", "shmdt", "shmctl" };
/* The argument fields of each entry event, as the tracepoints name them. */
static const char *const arg_names[SYS__COUNT][3] = {
	{ "key", "size", "shmflg" },
	{ "shmid", "shmaddr", "shmflg" },
	{ "shmaddr", NULL, NULL },
	{ "shmid", "cmd", "buf" },
};

/* One thread's call between its entry and its return. */
struct pending {
	bool open;
	enum shm_sys sys;
	uint64_t arg[3];
	uint64_t time;
	uint32_t stack;
};

struct shm_state {
	struct tool_opts *o;
	struct report r;
	pid_t tid;			/* -t; 0 = any */
	const char *name;		/* -n; NULL = any */
	double duration;		/* -d */
	struct tp_field args[SYS__COUNT][3], ret[SYS__COUNT];
	struct keyed *pending;		/* tid -> struct pending */
	uint64_t first_time;		/* -T base */
	bool have_first;
	uint64_t calls[SYS__COUNT], failed, unpaired;
	int err;
};

struct handler {
	struct shm_state *st;
	enum shm_sys sys;
};

/* shmsnoop's flag names; the rest of the value in octal (the mode). */
struct flag {
	const char *name;
	uint64_t value;
};

static const struct flag shmget_flags[] = {
	{ "IPC_CREAT", 01000 }, { "IPC_EXCL", 02000 }, { "SHM_HUGETLB", 04000 },
	{ "SHM_NORESERVE", 010000 }, { "SHM_EXEC", 0100000 }, { NULL, 0 },
};
static const struct flag shmat_flags[] = {
	{ "SHM_RDONLY", 010000 }, { "SHM_RND", 020000 }, { "SHM_REMAP", 040000 },
	{ "SHM_EXEC", 0100000 }, { NULL, 0 },
};

/* The huge page size of shmget's flags, bits 26-31 (log2 of the size).
 * shmsnoop tests SHM_HUGE_2MB and _1GB as bit masks, so 2MB also reads as
 * 1GB there; here the field is compared whole. */
#define SHM_HUGE_SHIFT 26
#define SHM_HUGE_MASK (0x3fULL << SHM_HUGE_SHIFT)

static void flags_str(uint64_t val, const struct flag *flags, bool huge, char *buf, size_t n)
{
	size_t len;
	int cnt = 0;

	len = (size_t)snprintf(buf, n, "0x%" PRIx64, val);
	if (!val || len >= n)
		return;
	len += (size_t)snprintf(buf + len, n - len, " (");
	for (size_t i = 0; flags[i].name && len < n; i++) {
		if (!(val & flags[i].value))
			continue;
		len += (size_t)snprintf(buf + len, n - len, "%s%s", cnt++ ? "|" : "", flags[i].name);
		val &= ~flags[i].value;
	}
	if (huge && (val & SHM_HUGE_MASK) && len < n) {
		uint64_t shift = (val & SHM_HUGE_MASK) >> SHM_HUGE_SHIFT;

		if (shift == 21 || shift == 30)
			len += (size_t)snprintf(buf + len, n - len, "%sSHM_HUGE_%s", cnt++ ? "|" : "",
						shift == 21 ? "2MB" : "1GB");
		else
			len += (size_t)snprintf(buf + len, n - len, "%sSHM_HUGE_2^%" PRIu64,
						cnt++ ? "|" : "", shift);
		val &= ~SHM_HUGE_MASK;
	}
	if ((val || !cnt) && len < n)
		len += (size_t)snprintf(buf + len, n - len, "%s0%" PRIo64, cnt ? "|" : "", val);
	if (len < n)
		snprintf(buf + len, n - len, ")");
}

/* ARGs as shmsnoop prints them. */
static void args_str(const struct pending *p, char *buf, size_t n)
{
	char flags[160];

	switch (p->sys) {
	case SYS_SHMGET:
		flags_str(p->arg[2], shmget_flags, true, flags, sizeof(flags));
		snprintf(buf, n, "key: 0x%" PRIx64 ", size: %" PRIu64 ", shmflg: %s", p->arg[0],
			 p->arg[1], flags);
		break;
	case SYS_SHMAT:
		flags_str(p->arg[2], shmat_flags, false, flags, sizeof(flags));
		snprintf(buf, n, "shmid: 0x%" PRIx64 ", shmaddr: 0x%" PRIx64 ", shmflg: %s",
			 p->arg[0], p->arg[1], flags);
		break;
	case SYS_SHMDT:
		snprintf(buf, n, "shmaddr: 0x%" PRIx64, p->arg[0]);
		break;
	default:
		snprintf(buf, n, "shmid: 0x%" PRIx64 ", cmd: %" PRIu64 ", buf: 0x%" PRIx64, p->arg[0],
			 p->arg[1], p->arg[2]);
		break;
	}
}

static bool wanted(struct session *s, const struct shm_state *st, const struct sample *smp)
{
	if (st->tid && (pid_t)smp->tid != st->tid)
		return false;
	return !st->name || strstr(session__comm(s, (pid_t)smp->pid), st->name);
}

static void on_enter(struct session *s, const struct sample *smp, void *ctx)
{
	const struct handler *h = ctx;
	struct shm_state *st = h->st;
	struct pending *p;
	int created;

	if (!wanted(s, st, smp))
		return;
	p = keyed__get(st->pending, smp->tid, &created);
	if (!p) {
		st->err = -ENOMEM;
		return;
	}
	/* An entry whose return never came (the thread died in the call)
	 * is replaced. */
	*p = (struct pending){ .open = true, .sys = h->sys, .time = smp->time };
	for (int i = 0; i < 3; i++)
		if (arg_names[h->sys][i])
			tp_field__u64(&st->args[h->sys][i], smp->raw, smp->raw_size, &p->arg[i]);
	if (st->o->stacks && session__user_stack(s, smp, &p->stack))
		st->err = -ENOMEM;
}

static void print_call(struct session *s, struct shm_state *st, const struct sample *smp,
		       const struct pending *p, uint64_t ret)
{
	const char *comm = session__comm(s, (pid_t)smp->pid);
	unsigned int id = st->tid ? smp->tid : smp->pid;
	double t = (double)(p->time - st->first_time) / 1e9;
	char args[512];

	args_str(p, args, sizeof(args));
	if (st->o->json) {
		printf("{\"type\":\"call\",\"time\":%.9f,\"pid\":%u,\"tid\":%u,\"comm\":", t, smp->pid,
		       smp->tid);
		json__str(stdout, comm);
		printf(",\"sys\":\"%s\",\"ret\":%" PRId64 ",\"ret_hex\":\"0x%" PRIx64 "\",\"args\":",
		       sys_names[p->sys], (int64_t)ret, ret);
		json__str(stdout, args);
		for (int i = 0; i < 3; i++)
			if (arg_names[p->sys][i])
				printf(",\"%s\":%" PRIu64, arg_names[p->sys][i], p->arg[i]);
		if (st->o->stacks) {
			printf(",\"stack\":");
			report__stack_json(&st->r, (pid_t)smp->pid, p->stack);
		}
		printf("}\n");
	} else {
		if (st->o->timestamps)
			printf("%-14.9f", t);
		printf("%-6u %-16s %6s %16" PRIx64 " %s\n", id, comm, sys_names[p->sys], ret, args);
		if (st->o->stacks)
			report__stack(&st->r, (pid_t)smp->pid, p->stack, "        ", false);
	}
	tool__event_done();
}

static void on_exit_call(struct session *s, const struct sample *smp, void *ctx)
{
	const struct handler *h = ctx;
	struct shm_state *st = h->st;
	struct pending *p = keyed__find(st->pending, smp->tid);
	uint64_t ret = 0;

	if (!wanted(s, st, smp))
		return;
	if (!p || !p->open || p->sys != h->sys) {
		st->unpaired++;
		return;
	}
	p->open = false;
	tp_field__u64(&st->ret[h->sys], smp->raw, smp->raw_size, &ret);
	/* The return field is a long on the tracepoints, an int (shmget,
	 * shmdt, shmctl) or a pointer (shmat) on the uprobes: sign-extended
	 * when read, so -1 and -errno read as such either way. */
	if (!st->have_first) {
		st->first_time = p->time;
		st->have_first = true;
	}
	st->calls[h->sys]++;
	if ((int64_t)ret < 0 && (int64_t)ret >= -4095)
		st->failed++;
	print_call(s, st, smp, p, ret);
}

/* The totals: JSON's last object; text's on stderr, after the calls. */
static int shm_report(void *ctx, struct session *s)
{
	const struct shm_state *st = ctx;
	uint64_t all = 0;
	char b[NUMFMT_LEN], by[SYS__COUNT * (16 + NUMFMT_LEN)] = "";
	size_t used = 0;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	for (int i = 0; i < SYS__COUNT; i++)
		all += st->calls[i];
	if (st->o->json) {
		printf("{\"type\":\"summary\",\"calls\":%" PRIu64, all);
		for (int i = 0; i < SYS__COUNT; i++)
			printf(",\"%s\":%" PRIu64, call_names[i], st->calls[i]);
		printf(",\"failed\":%" PRIu64 ",\"unpaired\":%" PRIu64 ",\"lost\":%" PRIu64 "}\n",
		       st->failed, st->unpaired, session__lost(s));
		return EXIT_OK;
	}
	fprintf(stderr, "shm summary:\n");
	for (int i = 0; i < SYS__COUNT; i++) {
		int n = snprintf(by + used, sizeof(by) - used, "%s%s %s", i ? ", " : "",
				 call_names[i], numfmt__count(b, sizeof(b), st->calls[i]));

		if (n > 0 && (size_t)n < sizeof(by) - used)
			used += (size_t)n;
	}
	summary__line(stderr, "calls:", "%s (%s)", numfmt__count(b, sizeof(b), all), by);
	summary__count(stderr, "failed:", st->failed, "");
	summary__count(stderr, "unpaired:", st->unpaired, "returns without their entry");
	summary__count(stderr, "lost events:", session__lost(s), "");
	return EXIT_OK;
}

static struct handler handlers[SYS__COUNT];

static int shm_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			  struct errbuf *eb)
{
	struct shm_state *st = ctx;
	/* A recording serves a replay's -g too. */
	unsigned int flags = st->o->stacks || session__recording(s) ? SESSION_USER_STACK : 0;
	struct probe_set *set = NULL;
	int err = 0;

	(void)label;
	report__init(&st->r, s, stdout, st->o->srcline);
	if (!ladder__is(rung, "tracepoint"))
		err = probe_set__load_named("libc-syscalls", &set, eb);
	for (int i = 0; !err && i < SYS__COUNT; i++) {
		struct tp_event *enter = NULL, *ret = NULL;
		char a[32], b[32];

		handlers[i] = (struct handler){ st, (enum shm_sys)i };
		if (!set) {
			snprintf(a, sizeof(a), "sys_enter_%s", call_names[i]);
			snprintf(b, sizeof(b), "sys_exit_%s", call_names[i]);
			err = session__add_tracepoint(s, "syscalls", a, flags, on_enter, &handlers[i],
						      &enter, eb);
			if (!err)
				err = session__add_tracepoint(s, "syscalls", b, 0, on_exit_call,
							      &handlers[i], &ret, eb);
		} else {
			const struct probe_spec *pe, *pr;

			snprintf(a, sizeof(a), "%s_enter", call_names[i]);
			snprintf(b, sizeof(b), "%s_return", call_names[i]);
			pe = probe_set__find(set, a);
			pr = probe_set__find(set, b);
			if (!pe || !pr)
				err = errbuf__set(eb, -ENOENT, "probes '%s'/'%s' missing from "
						  "libc-syscalls.probes", a, b);
			if (!err)
				err = session__add_uprobe(s, pe, flags, on_enter, &handlers[i], &enter,
							  eb);
			if (!err)
				err = session__add_uprobe(s, pr, 0, on_exit_call, &handlers[i], &ret,
							  eb);
		}
		for (int j = 0; !err && j < 3; j++)
			if (arg_names[i][j] && tp_event__field(enter, arg_names[i][j], &st->args[i][j]))
				err = errbuf__set(eb, -ENOENT, "the %s entry event lacks the field '%s'",
						  call_names[i], arg_names[i][j]);
		if (!err && tp_event__field(ret, "ret", &st->ret[i]))
			err = errbuf__set(eb, -ENOENT, "the %s return event lacks the field 'ret'",
					  call_names[i]);
	}
	probe_set__free(set);
	return err;
}

static const char *shm_opt(int c, const char *arg, void *ctx)
{
	struct shm_state *st = ctx;
	char *end;
	long v;

	switch (c) {
	case 't':
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v <= 0 || v > 0x7fffffff)
			return "invalid thread id";
		st->tid = (pid_t)v;
		return NULL;
	case 'n':
		st->name = arg;
		return NULL;
	case 'd':
		return tool_opts__parse_secs(arg, &st->duration) ? "invalid duration" : NULL;
	}
	return "unknown option";
}

/* The column header, once tracing is set up (record runs no tool's). */
static void print_header(void *ctx)
{
	const struct shm_state *st = ctx;

	if (st->o->json)
		return;
	if (st->o->timestamps)
		printf("%-14s", "TIME(s)");
	printf("%-6s %-16s %6s %16s ARGs\n", st->tid ? "TID" : "PID", "COMM", "SYS", "RET");
}

static const struct tool_option shm_options[] = {
	OPT_CALL('t', "tid", "TID", 't', "this thread only (shmsnoop -t; the first column is then TID)"),
	OPT_CALL('n', "name", "NAME", 'n', "only processes whose name contains NAME (shmsnoop -n)"),
	OPT_CALL('d', "duration", "SECS", 'd',
		 "stop after SECS seconds (shmsnoop -d; the same as duration)"),
	OPT_SHARED(TOOL_SHARED_T, "TIME(s) since the first call, first column (shmsnoop -T)"),
	OPT_SHARED(TOOL_SHARED_G, "print the user stack of each call"),
	OPT_END,
};

static const struct tool_cmdline shm_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_T | TOOL_OPT_G | TOOL_OPT_ANY_ORDER,
	.options = shm_options,
	.opt = shm_opt,
};

static int shm_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	struct shm_state *st = ctx;
	int ret;

	ret = tool_opts__parse_cmdline(o, mode, &shm_cmdline, st, argc, argv);
	if (ret)
		return ret;
	if (st->duration > 0)
		o->sess.duration = st->duration;
	st->o = o;
	st->pending = keyed__new(sizeof(struct pending));
	return st->pending ? 0 : -ENOMEM;
}

static void shm_fini(void *ctx)
{
	struct shm_state *st = ctx;

	keyed__free(st->pending);
	report__fini(&st->r);
}

/* shm: shmsnoop's four calls from the syscall tracepoints; else libc's
 * wrappers. */
static const char *const shm_tracepoint_needs[] = {
	"tp:syscalls:sys_enter_shmget", "tp:syscalls:sys_exit_shmget",
	"tp:syscalls:sys_enter_shmat", "tp:syscalls:sys_exit_shmat",
	"tp:syscalls:sys_enter_shmdt", "tp:syscalls:sys_exit_shmdt",
	"tp:syscalls:sys_enter_shmctl", "tp:syscalls:sys_exit_shmctl", NULL
};

static const struct rung shm_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoints syscalls:sys_{enter,exit}_shm{get,at,dt,ctl}",
	  .needs = shm_tracepoint_needs, .loses = "" },
	{ .key = "uprobe", .label = "uprobes+uretprobes libc shmget/shmat/shmdt/shmctl",
	  .needs = ladder_uprobe_needs,
	  .loses = "only calls made through libc; RET is libc's -1 on failure, not -errno" },
};

static const struct ladder shm_ladder = LADDER("shm", shm_rungs);

const struct tool shm_tool = {
	.cmdline = &shm_cmdline,
	.name = TOOL,
	.ladder = &shm_ladder,
	.what = "shm*() calls",
	.flags = TOOL_RECORDS | TOOL_REPLAYS,
	.size = sizeof(struct shm_state),
	.init = shm_init,
	.add_events = shm_add_events,
	.before_run = print_header,
	.report = shm_report,
	.fini = shm_fini,
};
