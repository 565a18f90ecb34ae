/*
 * faultline mmap: every mmap(2) and munmap(2) as it completes, with time,
 * process, address, length, protection and flags decoded, offset and the
 * file behind file mappings (from the kernel's MMAP2 record for the new
 * mapping, so a descriptor closed right after the call still has a name),
 * and the user stack with -g; then, per process, bytes mapped, unmapped and
 * net.  Like BCC's mmapsnoop, but anonymous mappings too.
 *
 * Sources (its ladder, before mmap_tool): syscalls:sys_{enter,exit}_{mmap,munmap};
 * else uprobes on libc's mmap/munmap.  Both give the fields addr, len, prot,
 * flags, fd, off (mmap entry), addr, len (munmap entry) and ret (returns).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/json.h"
#include "stack/addrspace.h"
#include "trace/tp-catalog.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "cmd/out/mmap-flags.h"
#include "trace/probe-spec.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "mmap"

enum call_kind { CALL_MMAP, CALL_MUNMAP };

struct pending {
	enum call_kind kind;
	uint64_t addr, len, prot, flags, off;
	int64_t fd;
	uint64_t time;
	uint32_t stack;
};

struct proc {
	pid_t pid;
	uint64_t mmaps, munmaps, failed;
	uint64_t mapped, unmapped;	/* page-rounded bytes */
};

struct mmap_state {
	struct tool_opts *o;
	struct report r;
	struct tp_field f_addr, f_len, f_prot, f_flags, f_fd, f_off;	/* mmap entry */
	struct tp_field u_addr, u_len;					/* munmap entry */
	struct tp_field f_ret, u_ret;
	struct hashmap *pending;	/* tid -> struct pending * */
	struct keyed *procs;		/* pid -> struct proc */
	uint64_t page;
	int err;
};

static struct proc *proc_of(struct mmap_state *st, pid_t pid)
{
	int created;
	struct proc *p = keyed__get(st->procs, (uint64_t)pid, &created);

	if (p && created)
		p->pid = pid;
	return p;
}

static uint64_t field(const struct tp_field *f, const struct sample *smp)
{
	uint64_t v = 0;

	tp_field__u64(f, smp->raw, smp->raw_size, &v);
	return v;
}

static void stash(struct session *s, struct mmap_state *st, const struct sample *smp,
		  struct pending *p)
{
	struct pending *copy;
	uint64_t old;

	p->time = smp->time;
	if (st->o->stacks && session__user_stack(s, smp, &p->stack)) {
		st->err = -ENOMEM;
		return;
	}
	copy = malloc(sizeof(*copy));
	if (!copy) {
		st->err = -ENOMEM;
		return;
	}
	*copy = *p;
	/* An entry whose exit we never saw (thread killed mid-call) is dropped. */
	if (hashmap__delete(st->pending, smp->tid, &old))
		free((void *)(uintptr_t)old);
	if (hashmap__set(st->pending, smp->tid, (uint64_t)(uintptr_t)copy)) {
		free(copy);
		st->err = -ENOMEM;
	}
}

static void on_mmap_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct mmap_state *st = ctx;
	struct pending p = {
		.kind = CALL_MMAP,
		.addr = field(&st->f_addr, smp),
		.len = field(&st->f_len, smp),
		.prot = field(&st->f_prot, smp),
		.flags = field(&st->f_flags, smp),
		.fd = (int64_t)(int32_t)field(&st->f_fd, smp),
		.off = field(&st->f_off, smp),
	};

	stash(s, st, smp, &p);
}

static void on_munmap_enter(struct session *s, const struct sample *smp, void *ctx)
{
	struct mmap_state *st = ctx;
	struct pending p = {
		.kind = CALL_MUNMAP,
		.addr = field(&st->u_addr, smp),
		.len = field(&st->u_len, smp),
		.fd = -1,
	};

	stash(s, st, smp, &p);
}

/* Name of the file behind a new mapping: the MMAP2 record (already applied,
 * events are delivered in time order), else the descriptor. */
static void file_of(struct session *s, pid_t pid, const struct pending *p, uint64_t addr,
		    char *buf, size_t n)
{
	const struct map *m = addrspaces__find(session__addrspaces(s), pid, addr);
	char link[64];
	ssize_t len;

	buf[0] = '\0';
	if (p->flags & MAP_ANONYMOUS)
		return;
	if (m && m->path && m->path[0] && m->start == addr) {
		snprintf(buf, n, "%s", m->path);
		return;
	}
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, (int)p->fd);
	len = readlink(link, buf, n - 1);
	buf[len > 0 ? len : 0] = '\0';
}

static void print_call(struct session *s, struct mmap_state *st, const struct sample *smp,
		       const struct pending *p, uint64_t ret, bool failed)
{
	char when[32], prot[8] = "", flags[256] = "", file[4096] = "", result[32];
	const char *comm = session__comm(s, (pid_t)smp->pid);
	uint64_t addr = p->kind == CALL_MMAP ? ret : p->addr;

	if (st->o->timestamps)
		snprintf(when, sizeof(when), "%.6f", session__elapsed(s, p->time));
	else
		report__clock(s, p->time, when, sizeof(when));
	if (p->kind == CALL_MMAP) {
		mmap_prot__format(p->prot, prot, sizeof(prot));
		mmap_flags__format(p->flags, flags, sizeof(flags));
		if (!failed)
			file_of(s, (pid_t)smp->pid, p, ret, file, sizeof(file));
	}
	if (failed)
		snprintf(result, sizeof(result), "%s", strerror((int)-(int64_t)ret));
	else
		snprintf(result, sizeof(result), "0x%" PRIx64, addr);

	if (st->o->json) {
		printf("{\"type\":\"%s\",\"time\":", p->kind == CALL_MMAP ? "mmap" : "munmap");
		json__str(stdout, when);
		printf(",\"pid\":%u,\"tid\":%u,\"comm\":", smp->pid, smp->tid);
		json__str(stdout, comm);
		/* A failed mmap returned no address: its error says why. */
		if (failed && p->kind == CALL_MMAP)
			printf(",\"addr\":null,\"len\":%" PRIu64, p->len);
		else
			printf(",\"addr\":\"0x%" PRIx64 "\",\"len\":%" PRIu64, addr, p->len);
		if (p->kind == CALL_MMAP) {
			printf(",\"prot\":\"%s\",\"flags\":\"%s\",\"fd\":%" PRId64 ",\"off\":%" PRIu64
			       ",\"file\":", prot, flags, p->fd, p->off);
			json__str(stdout, file);
		}
		printf(",\"error\":");
		if (failed)
			json__str(stdout, result);
		else
			printf("null");
		if (st->o->stacks) {
			printf(",\"stack\":");
			report__stack_json(&st->r, (pid_t)smp->pid, p->stack);
		}
		printf("}\n");
		tool__event_done();
		return;
	}
	if (p->kind == CALL_MMAP)
		printf("%-15s %-7u %-16.16s %-6s %-18s %10" PRIu64 " %-4s %-26s %8" PRIu64 "%s%s\n",
		       when, smp->pid, comm, "mmap", result, p->len, prot, flags, p->off,
		       file[0] ? " " : "", file);
	else
		printf("%-15s %-7u %-16.16s %-6s %-18s %10" PRIu64 "\n", when, smp->pid, comm,
		       "munmap", result, p->len);
	if (st->o->stacks)
		report__stack(&st->r, (pid_t)smp->pid, p->stack, "        ", false);
	tool__event_done();
}

static void on_return(struct session *s, const struct sample *smp, void *ctx, bool is_mmap)
{
	struct mmap_state *st = ctx;
	struct pending *p;
	uint64_t v, ret;
	bool failed;
	struct proc *pr;

	if (!hashmap__delete(st->pending, smp->tid, &v))
		return;		/* entered before tracing began */
	p = (struct pending *)(uintptr_t)v;
	if ((p->kind == CALL_MMAP) != is_mmap)
		goto out;
	ret = field(is_mmap ? &st->f_ret : &st->u_ret, smp);
	if (!is_mmap)
		ret = (uint64_t)(int64_t)(int32_t)ret;	/* munmap returns int */
	failed = ret >= (uint64_t)-4095;
	pr = proc_of(st, (pid_t)smp->pid);
	if (!pr) {
		st->err = -ENOMEM;
		goto out;
	}
	if (failed) {
		pr->failed++;
	} else if (is_mmap) {
		pr->mmaps++;
		pr->mapped += (p->len + st->page - 1) & ~(st->page - 1);
	} else {
		pr->munmaps++;
		pr->unmapped += (p->len + st->page - 1) & ~(st->page - 1);
	}
	print_call(s, st, smp, p, ret, failed);
out:
	free(p);
}

static void on_mmap_return(struct session *s, const struct sample *smp, void *ctx)
{
	on_return(s, smp, ctx, true);
}

static void on_munmap_return(struct session *s, const struct sample *smp, void *ctx)
{
	on_return(s, smp, ctx, false);
}

static int mmap_report(void *ctx, struct session *s)
{
	struct mmap_state *st = ctx;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	if (!st->o->json)
		printf("\n%-7s %-16s %6s %7s %6s %14s %14s %14s\n", "PID", "COMM", "MMAPS", "MUNMAPS",
		       "FAILED", "MAPPED(B)", "UNMAPPED(B)", "NET(B)");
	for (size_t i = 0; i < keyed__count(st->procs); i++) {
		const struct proc *p = keyed__at(st->procs, i);
		int64_t net = (int64_t)(p->mapped - p->unmapped);

		if (st->o->json) {
			printf("{\"type\":\"process\",\"pid\":%d,\"comm\":", (int)p->pid);
			json__str(stdout, session__comm(s, p->pid));
			printf(",\"mmaps\":%" PRIu64 ",\"munmaps\":%" PRIu64 ",\"failed\":%" PRIu64
			       ",\"mapped\":%" PRIu64 ",\"unmapped\":%" PRIu64 ",\"net\":%" PRId64 "}\n",
			       p->mmaps, p->munmaps, p->failed, p->mapped, p->unmapped, net);
		} else {
			printf("%-7d %-16.16s %6" PRIu64 " %7" PRIu64 " %6" PRIu64 " %14" PRIu64
			       " %14" PRIu64 " %14" PRId64 "\n", (int)p->pid, session__comm(s, p->pid),
			       p->mmaps, p->munmaps, p->failed, p->mapped, p->unmapped, net);
		}
	}
	report__footer(&st->r, st->o->json);
	return EXIT_OK;
}

struct src_event {
	const char *tp;		/* tracepoint under syscalls: */
	const char *probe;	/* probe name in libc-syscalls.probes */
	bool stack;
	session_sample_fn fn;
};

static const struct src_event events[] = {
	{ "sys_enter_mmap", "mmap_enter", true, on_mmap_enter },
	{ "sys_exit_mmap", "mmap_return", false, on_mmap_return },
	{ "sys_enter_munmap", "munmap_enter", true, on_munmap_enter },
	{ "sys_exit_munmap", "munmap_return", false, on_munmap_return },
};

static int mmap_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			   struct errbuf *eb)
{
	struct mmap_state *st = ctx;
	struct tp_event *ev[4] = { NULL };
	struct probe_set *set = NULL;
	int err = 0;

	(void)label;
	report__init(&st->r, s, stdout, st->o->srcline);
	if (!ladder__is(rung, "tracepoint"))
		err = probe_set__load_named("libc-syscalls", &set, eb);
	for (size_t i = 0; !err && i < 4; i++) {
		/* A recording serves every option of a replay: -g's stacks too. */
		unsigned int flags = events[i].stack && (st->o->stacks || session__recording(s)) ?
				     SESSION_USER_STACK : 0;

		if (!set) {
			err = session__add_tracepoint(s, "syscalls", events[i].tp, flags, events[i].fn,
						      st, &ev[i], eb);
		} else {
			const struct probe_spec *p = probe_set__find(set, events[i].probe);

			err = p ? session__add_uprobe(s, p, flags, events[i].fn, st, &ev[i], eb) :
				  errbuf__set(eb, -ENOENT, "probe '%s' missing from libc-syscalls.probes",
					      events[i].probe);
		}
	}
	probe_set__free(set);
	if (err)
		return err;
	if (tp_event__field(ev[0], "addr", &st->f_addr) || tp_event__field(ev[0], "len", &st->f_len) ||
	    tp_event__field(ev[0], "prot", &st->f_prot) ||
	    tp_event__field(ev[0], "flags", &st->f_flags) || tp_event__field(ev[0], "fd", &st->f_fd) ||
	    tp_event__field(ev[0], "off", &st->f_off) || tp_event__field(ev[1], "ret", &st->f_ret) ||
	    tp_event__field(ev[2], "addr", &st->u_addr) || tp_event__field(ev[2], "len", &st->u_len) ||
	    tp_event__field(ev[3], "ret", &st->u_ret))
		return errbuf__set(eb, -ENOENT, "the mmap events lack an expected field "
				   "(addr, len, prot, flags, fd, off, ret)");
	return 0;
}

static const struct tool_option mmap_options[] = {
	OPT_SHARED(TOOL_SHARED_T, "TIME(s) since tracing began instead of wall-clock HH:MM:SS"),
	OPT_SHARED(TOOL_SHARED_G, "print the user stack of each call"),
	OPT_END,
};

static const struct tool_cmdline mmap_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_T | TOOL_OPT_G | TOOL_OPT_SNAPSHOT,
	.options = mmap_options,
};

static int mmap_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	struct mmap_state *st = ctx;
	int ret;

	ret = tool_opts__parse_cmdline(o, mode, &mmap_cmdline, NULL, argc, argv);
	if (ret)
		return ret;
	st->o = o;
	st->page = (uint64_t)sysconf(_SC_PAGESIZE);
	st->pending = hashmap__new();
	st->procs = keyed__new(sizeof(struct proc));
	return st->pending && st->procs ? 0 : -ENOMEM;
}

static void print_header(void *ctx)
{
	const struct mmap_state *st = ctx;

	if (!st->o->json)
		printf("%-15s %-7s %-16s %-6s %-18s %10s %-4s %-26s %8s %s\n",
		       st->o->timestamps ? "TIME(s)" : "TIME", "PID", "COMM", "CALL", "ADDR", "LENGTH",
		       "PROT", "FLAGS", "OFFSET", "FILE");
}

static void mmap_fini(void *ctx)
{
	struct mmap_state *st = ctx;
	uint64_t key, val;
	size_t pos = 0;

	if (st->pending) {
		while (hashmap__next(st->pending, &pos, &key, &val))
			free((void *)(uintptr_t)val);
		hashmap__free(st->pending);
	}
	keyed__free(st->procs);
	report__fini(&st->r);
}

static const char *const mmap_tracepoint_needs[] = {
	"tp:syscalls:sys_enter_mmap", "tp:syscalls:sys_exit_mmap",
	"tp:syscalls:sys_enter_munmap", "tp:syscalls:sys_exit_munmap", NULL
};

static const struct rung mmap_rungs[] = {
	{ .key = "tracepoint", .label = "tracepoint syscalls:sys_{enter,exit}_{mmap,munmap}",
	  .needs = mmap_tracepoint_needs, .loses = "" },
	{ .key = "uprobe", .label = "uprobe+uretprobe libc mmap/munmap", .needs = ladder_uprobe_needs,
	  .loses = "only calls made through libc" },
	{ .key = "uprobe-pmu", .label = "perf uprobe PMU on libc mmap/munmap (registers sampled)",
	  .needs = ladder_uprobe_pmu_needs, .loses = "only calls made through libc" },
};

static const struct ladder mmap_ladder = LADDER("mmap", mmap_rungs);

const struct tool mmap_tool = {
	.cmdline = &mmap_cmdline,
	.name = TOOL,
	.ladder = &mmap_ladder,
	.what = "mmap() and munmap() calls",
	.flags = TOOL_RECORDS | TOOL_RECORD_DEFAULT | TOOL_REPLAYS,
	.size = sizeof(struct mmap_state),
	.init = mmap_init,
	.add_events = mmap_add_events,
	.before_run = print_header,
	.report = mmap_report,
	.snapshot = mmap_report,
	.fini = mmap_fini,
};
