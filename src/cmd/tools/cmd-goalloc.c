/*
 * faultline goalloc: a Go program's allocation profile: bytes and count of
 * the allocations its heap serves, by stack (what `go tool pprof
 * -sample_index=alloc_space` shows, from every allocation, not a sample).
 * Not leaks: Go frees by garbage collection, which calls no function a
 * probe could pair with an allocation.
 *
 * One uprobe on runtime.mallocgc's entry in the program's executable (Go
 * links its runtime in), just past its stack check (below): the size is
 * its first argument, in RAX under ABIInternal (amd64, Go 1.17 and later;
 * checked on Debian's go1.19.8).
 * No return probe: a uretprobe replaces the return address on the
 * goroutine's stack with its trampoline's, and Go's stack growth copies
 * stacks and walks their return addresses, which it must find in Go code.
 * So the profile counts what was asked of mallocgc (the size), not the
 * size class it rounded to, nor the address.  Stacks are the kernel's
 * frame-pointer walk (--call-graph fp, forced): Go keeps frame pointers on
 * amd64, and DWARF CFI unwinding of a goroutine stack has no advantage.
 * The runtime's own allocations count too (under runtime.* frames); -T
 * keeps the top stacks.  x86-64 only: on arm64 the size is in R0 (a
 * register this probe does not name).
 *
 * --pprof FILE also writes every stack (not only -T's) as a pprof profile
 * (pprof-stacks.c) with Go's alloc_objects/count and alloc_space/bytes
 * sample types, one sample per thread of a stack, labelled with pid, tid
 * and comm: the thread is the one mallocgc ran on (a goroutine's M at that
 * moment, which the scheduler may change between two calls, unless the
 * goroutine locked itself to its thread: runtime.LockOSThread).  The text
 * report stays by process and stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/numfmt.h"
#include "trace/tp-catalog.h"
#include "agg/stack-table.h"
#include "trace/probe-spec.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#ifdef HAVE_PPROF
#include "cmd/out/pprof-stacks.h"
#endif

#define TOOL "goalloc"

enum { OPT_PPROF = 256 };

/*
 * mallocgc opens with the goroutine stack check, "cmp 0x10(%r14),%rsp;
 * jbe morestack" (49 3b 66 10, 0f 86 rel32), and morestack, once the stack
 * has grown, jumps back to the function's first instruction: a probe there
 * fired twice for a call that grew the stack (1001 for 1000 makeslices).
 * So the probe sits just past the check, where RAX still holds the size
 * and the stack is as at the call; the check's bytes are verified first.
 */
#define STACK_CHECK "493b66100f86"
#define STACK_CHECK_LEN 10

struct goalloc {
	struct tool_opts *o;
	unsigned int top;
	char exe[PATH_MAX];
	struct tp_field f_size;
	/* by (pid, stack), or with --pprof by (pid, tid, stack), summed by
	 * process for the text report: calls are allocations */
	struct stack_table *sites;
	uint64_t bytes, count;
	const char *pprof;	/* --pprof FILE */
#ifdef HAVE_PPROF
	uint64_t first, last;	/* the first and last mallocgc's times */
#endif
	int err;
};

static const char *goalloc_opt(int c, const char *arg, void *ctx)
{
	struct goalloc *g = ctx;
	char *end;
	unsigned long v;

	if (c == OPT_PPROF) {
		if (!arg[0] || !strcmp(arg, "-"))
			return "--pprof wants a file (standard output is the report's), not";
		g->pprof = arg;
		return NULL;
	}
	if (c != 'T')
		return "unknown option";
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || !v || v > INT_MAX || arg[0] < '0' || arg[0] > '9')
		return "-T wants a number of stacks, not";
	g->top = (unsigned int)v;
	return NULL;
}

static void on_mallocgc(struct session *s, const struct sample *smp, void *ctx)
{
	struct goalloc *g = ctx;
	uint64_t size = 0;
	uint32_t stack = 0;

	if (tp_field__u64(&g->f_size, smp->raw, smp->raw_size, &size))
		return;
	g->bytes += size;
	g->count++;
	if (session__user_stack(s, smp, &stack)) {
		g->err = -ENOMEM;
		return;
	}
	if (stack_table__call_tid(g->sites, (pid_t)smp->pid, (pid_t)smp->tid, stack, size, 1)) {
		g->err = -ENOMEM;
		return;
	}
#ifdef HAVE_PPROF
	if (!g->first)
		g->first = smp->time;
	g->last = smp->time;
#endif
}

#ifdef HAVE_PPROF
/* --pprof: every (pid, tid, stack) a sample of Go's allocation types. */
static int write_pprof(struct goalloc *g, struct session *s, struct errbuf *eb)
{
	static const struct pprof_value_type types[] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
	};
	struct pprof *p = NULL;
	int err;

	err = pprof_stacks__new(s, &(struct pprof_opts){
					.types = types, .ntypes = 2, .period = 1,
					.period_type = { "space", "bytes" },
					.default_type = "alloc_space",
					.time_nanos = g->first ? (int64_t)session__realtime(s, g->first) : 0,
					.duration_nanos = (int64_t)(g->last - g->first) },
				&p);
	if (!err)
		err = pprof_stacks__table(p, s, g->sites,
					  (const enum stack_col[]){ STACK_CALLS, STACK_BYTES }, 2);
	if (err)
		errbuf__set(eb, err, "cannot make the profile: %s", strerror(-err));
	else
		err = pprof_stacks__write(p, g->pprof, eb);
	pprof__free(p);
	return err;
}
#endif

static int goalloc_report(void *ctx, struct session *s)
{
	struct goalloc *g = ctx;
	struct stack_table *procs = NULL;	/* --pprof: g->sites summed by process */
	struct stack_site *sites = NULL;
	size_t n = 0, first;
	struct report r;
	int err = g->err;

	if (!err && stack_table__threads(g->sites))
		err = stack_table__by_process(g->sites, &procs);
	/* Ascending by bytes, largest last, as memleak; ties by pid, stack. */
	if (!err)
		err = stack_table__sorted(procs ? procs : g->sites,
					  &(struct stack_order){ STACK_BYTES, STACK_BYTES, false, false },
					  &sites, &n);
	stack_table__free(procs);
	if (err)
		return tool__fail(TOOL, NULL, err);
	first = n > g->top ? n - g->top : 0;
	report__init(&r, s, stdout, false);
	report__lost_first(&r, g->o->json, g->o->folded, TOOL,
			   "allocations were missed: the figures below are low");
	if (!g->o->json && !g->o->folded)
		printf("Top %u stacks by bytes allocated (runtime.mallocgc):\n", g->top);
	for (size_t i = first; i < n; i++) {
		const struct stack_site *e = &sites[i];
		const char *comm = session__stack_comm(s, e->pid, e->stack);

		if (g->o->folded) {
			report__folded(&r, e->pid, comm, e->stack, e->bytes);
		} else if (g->o->json) {
			printf("{\"type\":\"stack\",\"pid\":%d,\"comm\":", (int)e->pid);
			json__str(stdout, comm);
			printf(",\"bytes\":%" PRIu64 ",\"allocations\":%" PRIu64 ",\"stack\":", e->bytes,
			       e->calls);
			report__stack_json(&r, e->pid, e->stack);
			printf("}\n");
		} else {
			printf("\t%" PRIu64 " bytes in %" PRIu64 " allocations from stack\n", e->bytes,
			       e->calls);
			report__stack(&r, e->pid, e->stack, "\t\t", true);
		}
	}
	if (g->o->json)
		printf("{\"type\":\"goalloc_summary\",\"bytes\":%" PRIu64 ",\"allocations\":%" PRIu64
		       ",\"stacks\":%zu,\"executable\":", g->bytes, g->count, n);
	if (g->o->json) {
		json__str(stdout, g->exe);
		printf("}\n");
	} else if (!g->o->folded) {
		char b[3][NUMFMT_LEN];

		printf("%s in %s allocations in all, %s stacks\n", numfmt__bytes(b[0], NUMFMT_LEN,
		       g->bytes), numfmt__count(b[1], NUMFMT_LEN, g->count),
		       numfmt__count(b[2], NUMFMT_LEN, n));
	}
	if (!g->o->folded)
		report__footer(&r, g->o->json);
	report__fini(&r);
	free(sites);
#ifdef HAVE_PPROF
	if (g->pprof) {
		struct errbuf eb = { "" };

		err = write_pprof(g, s, &eb);
		if (err)
			return tool__fail(TOOL, &eb, err);
	}
#endif
	return EXIT_OK;
}

/* The executable to probe: -p's /proc/PID/exe, -c's first word as execvp
 * would find it. */
static int find_exe(struct goalloc *g, struct errbuf *eb)
{
	const char *cmd = g->o->sess.cmd_argv ? g->o->sess.cmd_argv[0] : g->o->sess.cmd;
	const char *path = getenv("PATH");
	char word[PATH_MAX], link[64];
	size_t len;
	ssize_t r;

	if (g->o->sess.pid > 0) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)g->o->sess.pid);
		r = readlink(link, g->exe, sizeof(g->exe) - 1);
		if (r <= 0)
			return errbuf__set(eb, -errno, "cannot read %s: %s", link, strerror(errno));
		g->exe[r] = '\0';
		return 0;
	}
	len = strcspn(cmd, " \t");
	if (len >= sizeof(word))
		return errbuf__set(eb, -ENAMETOOLONG, "command name too long");
	memcpy(word, cmd, len);
	word[len] = '\0';
	if (strchr(word, '/'))
		return realpath(word, g->exe) ? 0 : errbuf__set(eb, -errno, "cannot find '%s': %s",
							       word, strerror(errno));
	for (path = path ? path : "/usr/bin:/bin"; *path;) {
		size_t l = strcspn(path, ":");

		if (l + 1 + len < sizeof(g->exe)) {
			memcpy(g->exe, path, l);
			g->exe[l] = '/';
			memcpy(g->exe + l + 1, word, len + 1);
			if (access(g->exe, X_OK) == 0)
				return 0;
		}
		path += l + (path[l] == ':');
	}
	return errbuf__set(eb, -ENOENT, "cannot find '%s' in PATH", word);
}

static int goalloc_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			      struct errbuf *eb)
{
	struct goalloc *g = ctx;
	struct probe_set *set = NULL;
	struct tp_event *ev = NULL;
	char text[PATH_MAX + 256], path[PATH_MAX];
	uint64_t off = 0;
	int err;

	(void)rung;
	(void)label;
	err = find_exe(g, eb);
	if (err)
		return err;
	snprintf(text, sizeof(text),
		 "library %s\n"
		 "probe mallocgc_check entry runtime.mallocgc\n"
		 "expect mallocgc_check " STACK_CHECK "\n"
		 "probe mallocgc_enter entry runtime.mallocgc+%d size=%%ax:u64\n",
		 g->exe, STACK_CHECK_LEN);
	err = probe_set__parse(text, TOOL, &set, eb);
	if (err)
		goto out;
	err = session__uprobe_locate(s, probe_set__at(set, 0), 0, path, sizeof(path), &off, eb);
	if (err == -ENOENT) {
		errbuf__set(eb, err, "'%s' has no runtime.mallocgc: not a Go program, or stripped "
			    "of its symbol table", g->exe);
		goto out;
	}
	if (err == -ENOEXEC) {
		errbuf__set(eb, err, "runtime.mallocgc in '%s' does not open with the stack check "
			    "of Go 1.17+ on amd64 (cmp 0x10(%%r14),%%rsp; jbe): the size is not "
			    "known to be in RAX, nor where the probe goes", g->exe);
		goto out;
	}
	if (!err)
		/* Past the check, before mallocgc's frame: the frame pointer
		 * is still the caller's, its return address at *sp. */
		err = session__add_uprobe(s, probe_set__at(set, 1),
					  SESSION_USER_STACK | SESSION_FUNC_ENTRY, on_mallocgc, g, &ev,
					  eb);
	if (!err && tp_event__field(ev, "size", &g->f_size))
		err = errbuf__set(eb, -ENOENT, "runtime.mallocgc's probe lacks 'size'");
out:
	probe_set__free(set);
	return err;
}

static const struct tool_option goalloc_options[] = {
	OPT_SHARED(TOOL_SHARED_PID, "profile this Go process's allocations"),
	OPT_SHARED(TOOL_SHARED_CMD, "run the Go program CMD and profile it until it exits"),
	OPT_CALL('T', NULL, "N", 'T', "show the N stacks with the most bytes allocated (default 10)"),
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per stack, then a summary"),
	OPT_SHARED(TOOL_SHARED_FOLDED, "FlameGraph folded stacks weighted by bytes allocated"),
	OPT_CALL(0, "pprof", "FILE", OPT_PPROF,
		 "at the end, also write every stack as a pprof profile (gzipped profile.proto: "
		 "alloc_objects, alloc_space; labels pid, tid, comm) for go tool pprof"),
	OPT_SHARED(TOOL_SHARED_MMAP, "ring buffer pages per CPU (power of two, default 64)"),
	OPT_END,
};

static const struct tool_cmdline goalloc_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_FOLDED | TOOL_OPT_NO_ALL | TOOL_OPT_NO_UNWIND,
	.options = goalloc_options,
	.opt = goalloc_opt,
};

static int goalloc_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
			char **argv)
{
	struct goalloc *g = ctx;
	int ret;

	g->top = 10;
	ret = tool_opts__parse_cmdline(o, mode, &goalloc_cmdline, g, argc, argv);
	if (ret)
		return ret;
	if (o->sess.pid <= 0 && !o->sess.cmd && !o->sess.cmd_argv) {
		fprintf(stderr, "faultline " TOOL ": give the Go program, -p PID or -c CMD\n");
		return -EINVAL;
	}
	g->o = o;
#ifdef HAVE_PPROF
	if (g->pprof)
		return stack_table__new_threads(0, &g->sites);
#else
	if (g->pprof) {
		fprintf(stderr, "faultline " TOOL ": --pprof: this faultline was built without pprof "
			"output: configure found %s\n", FL_PPROF_MISSING);
		return -EINVAL;
	}
#endif
	return stack_table__new(0, &g->sites);
}

static void goalloc_fini(void *ctx)
{
	stack_table__free(((struct goalloc *)ctx)->sites);
}

/* goalloc: an entry uprobe only (Go's stack copying does not survive a
 * uretprobe's rewritten return address). */
static const char *const goalloc_needs[] = { "feat:uprobes", NULL };

static const struct rung goalloc_rungs[] = {
	{ .key = "uprobe", .label = "uprobe on runtime.mallocgc's entry, frame-pointer stacks",
	  .needs = goalloc_needs, .loses = "" },
};

static const struct ladder goalloc_ladder = LADDER("goalloc", goalloc_rungs);

const struct tool goalloc_tool = {
	.cmdline = &goalloc_cmdline,
	.name = TOOL,
	.ladder = &goalloc_ladder,
	.stacks = TOOL_STACKS_USER_FP,
	.what = "Go allocations",
	.size = sizeof(struct goalloc),
	.init = goalloc_init,
	.add_events = goalloc_add_events,
	.report = goalloc_report,
	.fini = goalloc_fini,
};
