/*
 * faultline hfaults: huge-page faults counted by process, transparent huge
 * pages (THP) and hugetlb pages apart (hfaults.bt from BPF Performance
 * Tools, which counts hugetlb_fault() calls only).
 *
 * Sources (its ladder, before hfaults_tool):
 *   kprobe      kprobes on hugetlb_fault() (every fault in a hugetlb
 *               mapping) and do_huge_pmd_anonymous_page() (a fault that
 *               tries to map an anonymous THP: a fallback to small pages
 *               and a read that maps the huge zero page count too).
 *   page-flags  no tracepoint fires on a huge-page fault, so every user
 *               fault (exceptions:page_fault_user and page_fault_kernel,
 *               else the page-faults software event; with the address) is
 *               classified after the fact by the page now at its address
 *               (src/proc/pageflags.h: /proc/PID/pagemap and /proc/kpageflags):
 *               a PMD-sized anonymous THP or a hugetlb page.  Several
 *               faults can land in one huge page (a read mapped the huge
 *               zero page, then a write; threads racing; a NUMA hinting
 *               fault), so each huge page is counted once per process and
 *               address: what this rung counts is huge pages faulted in.
 *               A page freed and faulted again at the same address counts
 *               again unless the kernel hands out the very same huge page
 *               (then once).  The huge zero page and small-page fallbacks
 *               are not counted (nothing huge was allocated).  The lookup
 *               runs when the event is read, shortly after the fault: a
 *               fault whose process exited, or whose page was unmapped, by
 *               then cannot be classified and is reported as unresolved.
 *               The events fire as the fault begins, so the faulting task
 *               may not have mapped the page yet (preempted while clearing
 *               a huge page): a fault with no page is looked up again
 *               before the report (or when PENDING_MAX wait), unresolved
 *               only if its page is still missing then; at its process's
 *               exit or exec it is unresolved, the process gone.
 *               With -p and -c the process is held at its exit
 *               (session__hold_exit, src/trace/exit-hold.c: ptrace's exit stop,
 *               before the kernel tears its memory down) until the report
 *               is printed, so none of its faults is lost to its exit: a
 *               target touching 32 THPs and exiting at once showed 19, 0
 *               and 21 of 32 without the hold, 32 every run with it.  Its
 *               children are not held; -a holds nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/json.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "proc/pageflags.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool.h"
#include "ladder.h"

#define TOOL "hfaults"

struct hproc {
	pid_t pid;
	uint64_t thp, hugetlb;
};

/* A fault whose page was not there yet when its event was read. */
#define PENDING_MAX 256
struct pending_fault {
	pid_t pid;
	uint64_t addr;
};

struct hfaults_state {
	struct tool_opts *o;
	unsigned int top;
	bool classify;			/* the page-flags rung */
	struct tp_field f_user_addr, f_kernel_addr;
	struct tp_field f_thp_ret;		/* the kprobe rung's return value */
	struct keyed *procs;		/* tgid -> struct hproc */
	struct pageflags *pf;
	/* Huge pages already counted: tgid << 40 | start >> 16 -> head PFN.
	 * start is huge-page aligned (>= 64 KiB on any architecture), and a
	 * user address below 2^56 leaves 40 bits. */
	struct hashmap *seen;
	uint64_t exited;		/* unresolved: the process was gone */
	uint64_t unmapped;		/* unresolved: no page at the address any more */
	uint64_t unreadable;		/* unresolved: pagemap or kpageflags unreadable */
	struct pending_fault pending[PENDING_MAX];
	size_t npending;
	int err;
};

static const char *hfaults_opt(int c, const char *arg, void *ctx)
{
	struct hfaults_state *st = ctx;
	char *end;

	if (c != 'T')
		return "unknown option";
	errno = 0;
	st->top = (unsigned int)strtoul(arg, &end, 10);
	if (errno || *end || !st->top || arg[0] < '0' || arg[0] > '9')
		return "-T wants a number of processes, not";
	return NULL;
}

static struct hproc *proc_of(struct hfaults_state *st, pid_t pid)
{
	int created;
	struct hproc *p = keyed__get(st->procs, (uint64_t)pid, &created);

	if (!p)
		st->err = -ENOMEM;
	else if (created)
		p->pid = pid;
	return p;
}

/* ---- kprobe rung: each call is a fault ---- */

static void on_hugetlb_fault(struct session *s, const struct sample *smp, void *ctx)
{
	struct hproc *p = proc_of(ctx, (pid_t)smp->pid);

	(void)s;
	if (p)
		p->hugetlb++;
}

/* VM_FAULT_FALLBACK (include/linux/mm_types.h, the same bit since 3.8):
 * no huge page could be had, the fault is served with small pages. */
#define VM_FAULT_FALLBACK 0x000800

/* do_huge_pmd_anonymous_page() returned: a THP fault unless it fell back.
 * It is also called for a first fault in an anonymous area too small or
 * misaligned for a huge page, and gives up there (6.1 with THP "always"),
 * so its calls overcount: counting its entries gave 5 where the target
 * had 4, in some runs, as the address layout fell. */
static void on_thp_return(struct session *s, const struct sample *smp, void *ctx)
{
	struct hfaults_state *st = ctx;
	struct hproc *p;
	uint64_t ret = 0;

	(void)s;
	if (tp_field__u64(&st->f_thp_ret, smp->raw, smp->raw_size, &ret) || (ret & VM_FAULT_FALLBACK))
		return;
	p = proc_of(st, (pid_t)smp->pid);
	if (p)
		p->thp++;
}

/* ---- page-flags rung: the page a fault left behind ---- */

static void classify(struct hfaults_state *st, pid_t pid, uint64_t addr, bool again);

/* Look the waiting faults up again; those still without a page are
 * unresolved. */
static void retry_pending(struct hfaults_state *st)
{
	size_t n = st->npending;

	st->npending = 0;
	for (size_t i = 0; i < n; i++)
		classify(st, st->pending[i].pid, st->pending[i].addr, true);
}

/* @again: a pending fault looked up again, not queued a second time. */
static void classify(struct hfaults_state *st, pid_t pid, uint64_t addr, bool again)
{
	struct page_info pi;
	uint64_t key, head;
	struct hproc *p;
	int err;

	/* Kernel addresses (a page_fault_kernel on vmalloc space) have no
	 * pagemap entry; pid 0 is no process. */
	if (pid <= 0 || addr >> 56)
		return;
	err = pageflags__lookup(st->pf, pid, addr, &pi);
	if (err == -ESRCH) {
		st->exited++;
		return;
	}
	if ((err == -ENOENT || err == -ESTALE) && !again) {
		if (st->npending == PENDING_MAX)
			retry_pending(st);
		st->pending[st->npending++] = (struct pending_fault){ pid, addr };
		return;
	}
	if (err == -ENOENT || err == -ESTALE) {
		st->unmapped++;
		return;
	}
	if (err == -ENOMEM) {
		st->err = err;
		return;
	}
	if (err) {
		st->unreadable++;	/* -EPERM (PFNs hidden), -EACCES, -EIO */
		return;
	}
	if (pi.kind != PAGE_HUGETLB && !(pi.kind == PAGE_THP && pi.anon))
		return;
	key = (uint64_t)pid << 40 | pi.start >> 16;
	if (hashmap__get(st->seen, key, &head) && head == pi.head_pfn)
		return;
	p = proc_of(st, pid);
	if (!p || hashmap__set(st->seen, key, pi.head_pfn)) {
		st->err = -ENOMEM;
		return;
	}
	if (pi.kind == PAGE_HUGETLB)
		p->hugetlb++;
	else
		p->thp++;
}

static void on_fault_user(struct session *s, const struct sample *smp, void *ctx)
{
	struct hfaults_state *st = ctx;
	uint64_t addr = 0;

	(void)s;
	if (!tp_field__u64(&st->f_user_addr, smp->raw, smp->raw_size, &addr))
		classify(st, (pid_t)smp->pid, addr, false);
}

static void on_fault_kernel(struct session *s, const struct sample *smp, void *ctx)
{
	struct hfaults_state *st = ctx;
	uint64_t addr = 0;

	(void)s;
	if (!tp_field__u64(&st->f_kernel_addr, smp->raw, smp->raw_size, &addr))
		classify(st, (pid_t)smp->pid, addr, false);
}

static void on_fault_sw(struct session *s, const struct sample *smp, void *ctx)
{
	(void)s;
	classify(ctx, (pid_t)smp->pid, smp->addr, false);
}

/* A new image or a finished process: its pagemap is of an address space
 * that is gone, and its huge pages with it. */
static void drop_process(struct hfaults_state *st, pid_t pid)
{
	uint64_t key, val;
	size_t pos = 0, kept = 0;

	/* Its waiting faults: the address space they were in is gone. */
	for (size_t i = 0; i < st->npending; i++) {
		if (st->pending[i].pid == pid)
			st->exited++;
		else
			st->pending[kept++] = st->pending[i];
	}
	st->npending = kept;

	pageflags__forget(st->pf, pid);
	while (hashmap__next(st->seen, &pos, &key, &val))
		if (key >> 40 == (uint64_t)pid)
			hashmap__delete(st->seen, key, NULL);
}

static void on_exec(struct session *s, pid_t pid, uint64_t time, void *ctx)
{
	(void)s;
	(void)time;
	drop_process(ctx, pid);
}

static void on_thread_exit(struct session *s, pid_t pid, pid_t tid, void *ctx)
{
	(void)s;
	if (pid == tid)
		drop_process(ctx, pid);
}

/* ---- report ---- */

static int cmp_proc(const void *a, const void *b, void *ctx)
{
	const struct hproc *x = a, *y = b;
	uint64_t nx = x->thp + x->hugetlb, ny = y->thp + y->hugetlb;

	(void)ctx;
	if (nx != ny)
		return nx > ny ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int hfaults_report(void *ctx, struct session *s)
{
	struct hfaults_state *st = ctx;
	struct report r;
	size_t n;

	if (st->err)
		return tool__fail(TOOL, NULL, st->err);
	retry_pending(st);
	report__init(&r, s, stdout, false);
	keyed__sort(st->procs, cmp_proc, NULL);
	report__lost_first(&r, st->o->json, false, TOOL,
			   "huge-page faults were missed: the counts below are low");
	n = keyed__count(st->procs);
	if (st->top && n > st->top)
		n = st->top;
	if (!st->o->json)
		printf("%-7s %-16s %10s %10s %10s\n", "PID", "COMM", "HFAULTS", "THP", "HUGETLB");
	for (size_t i = 0; i < n; i++) {
		const struct hproc *p = keyed__at(st->procs, i);

		if (st->o->json) {
			printf("{\"type\":\"process\",\"pid\":%d,\"comm\":", (int)p->pid);
			json__str(stdout, session__comm(s, p->pid));
			printf(",\"hfaults\":%" PRIu64 ",\"thp\":%" PRIu64 ",\"hugetlb\":%" PRIu64 "}\n",
			       p->thp + p->hugetlb, p->thp, p->hugetlb);
		} else {
			printf("%-7d %-16s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", (int)p->pid,
			       session__comm(s, p->pid), p->thp + p->hugetlb, p->thp, p->hugetlb);
		}
	}
	if (st->classify) {
		if (st->o->json)
			printf("{\"type\":\"unresolved\",\"process_exited\":%" PRIu64
			       ",\"page_gone\":%" PRIu64 ",\"unreadable\":%" PRIu64 "}\n",
			       st->exited, st->unmapped, st->unreadable);
		if (st->exited && !st->o->json)
			printf("%" PRIu64 " faults unresolved: their process exited before the "
			       "lookup\n", st->exited);
		if (st->unmapped && !st->o->json)
			printf("%" PRIu64 " faults unresolved: their page was unmapped before the "
			       "lookup\n", st->unmapped);
		if (st->unreadable && !st->o->json)
			printf("%" PRIu64 " faults unresolved: their page could not be read (no "
			       "CAP_SYS_ADMIN, or an I/O error)\n", st->unreadable);
	}
	report__footer(&r, st->o->json);
	report__fini(&r);
	return EXIT_OK;
}

/* ---- setup ---- */

static int add_page_flags(struct session *s, struct hfaults_state *st, struct errbuf *eb)
{
	const struct features *f = session__features(s);
	struct errbuf pe = { "" };
	struct tp_event *ev = NULL;
	int err;

	err = pageflags__new(NULL, NULL, &st->pf, &pe);
	if (err)
		return errbuf__set(eb, err, "no source of huge-page fault events on this kernel: %s",
				   errbuf__str(&pe, err));
	st->classify = true;
	/* The faults are looked up after they are read: keep a -p or -c
	 * process's pages until then, past its exit. */
	if (session__target_pid(s) > 0 && (err = session__hold_exit(s, &pe)))
		fprintf(stderr, "faultline " TOOL ": %s: its faults read after it exits stay "
			"unresolved\n", errbuf__str(&pe, err));
	err = session__add_consumer(s, &(struct session_consumer){ .exec = on_exec,
								    .thread_exit = on_thread_exit,
								    .ctx = st });
	if (err)
		return err;
	if (!features__has_tracepoint(f, "exceptions", "page_fault_user"))
		return session__add_software(s, "page-faults", PERF_COUNT_SW_PAGE_FAULTS,
					     SESSION_SAMPLE_ADDR, on_fault_sw, st, eb);
	err = session__add_tracepoint(s, "exceptions", "page_fault_user", 0, on_fault_user, st,
				      &ev, eb);
	if (!err && tp_event__field(ev, "address", &st->f_user_addr))
		err = errbuf__set(eb, -ENOENT, "exceptions:page_fault_user lacks 'address'");
	/* A fault the kernel takes on a user address (copy_to_user into a
	 * fresh buffer) maps huge pages too: the software event sees those. */
	if (!err && features__has_tracepoint(f, "exceptions", "page_fault_kernel")) {
		err = session__add_tracepoint(s, "exceptions", "page_fault_kernel", 0,
					      on_fault_kernel, st, &ev, eb);
		if (!err && tp_event__field(ev, "address", &st->f_kernel_addr))
			err = errbuf__set(eb, -ENOENT, "exceptions:page_fault_kernel lacks 'address'");
	}
	return err;
}

static int hfaults_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			      struct errbuf *eb)
{
	struct hfaults_state *st = ctx;
	struct tp_event *ev = NULL;
	int err;

	(void)label;
	if (!ladder__is(rung, "kprobe"))
		return add_page_flags(s, st, eb);
	err = session__add_kprobe(s, "hugetlb_fault", "hugetlb_fault", false, NULL, 0,
				  on_hugetlb_fault, st, NULL, eb);
	if (!err)
		err = session__add_kprobe(s, "do_huge_pmd_anonymous_page",
					  "do_huge_pmd_anonymous_page", true, "ret=$retval:x64", 0,
					  on_thp_return, st, &ev, eb);
	if (!err && tp_event__field(ev, "ret", &st->f_thp_ret))
		err = errbuf__set(eb, -ENOENT, "do_huge_pmd_anonymous_page's return probe lacks 'ret'");
	return err;
}

static const struct tool_option hfaults_options[] = {
	OPT_CALL('T', NULL, "N", 'T', "show the N processes with the most huge-page faults (default: all)"),
	OPT_END,
};

static const struct tool_cmdline hfaults_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_UNWIND,
	.options = hfaults_options,
	.opt = hfaults_opt,
};

static int hfaults_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc,
			char **argv)
{
	struct hfaults_state *st = ctx;
	int ret;

	ret = tool_opts__parse_cmdline(o, mode, &hfaults_cmdline, st, argc, argv);
	if (ret)
		return ret;
	st->o = o;
	st->procs = keyed__new(sizeof(struct hproc));
	st->seen = hashmap__new();
	return st->procs && st->seen ? 0 : -ENOMEM;
}

static void hfaults_fini(void *ctx)
{
	struct hfaults_state *st = ctx;

	pageflags__free(st->pf);
	hashmap__free(st->seen);
	keyed__free(st->procs);
}

/* hfaults: hfaults.bt's kprobe and THP's fault function; else every user
 * fault, classified after the fact by the page now at its address. */
static const char *const hfaults_kprobe_needs[] = {
	"feat:kprobes", "kfunc:hugetlb_fault", "kfunc:do_huge_pmd_anonymous_page", NULL
};

static const char *const hfaults_pageflags_needs[] = {
	"feat:perf_events", "proc:kpageflags", NULL
};

static const struct rung hfaults_rungs[] = {
	{ .key = "kprobe", .label = "kprobes hugetlb_fault, do_huge_pmd_anonymous_page",
	  .needs = hfaults_kprobe_needs, .loses = "" },
	{ .key = "page-flags", .label = "every user fault, its page classified by /proc/PID/pagemap "
	  "and /proc/kpageflags", .needs = hfaults_pageflags_needs,
	  .loses = "counts huge pages faulted in (once per process and address), not fault calls; "
		   "a fault whose process or page is gone by the lookup is unresolved" },
};

static const struct ladder hfaults_ladder = LADDER("hfaults", hfaults_rungs);

const struct tool hfaults_tool = {
	.cmdline = &hfaults_cmdline,
	.name = TOOL,
	.ladder = &hfaults_ladder,
	.what = "huge page faults",
	.why_not = "it reads each fault's page from the live process's pagemap",
	.size = sizeof(struct hfaults_state),
	.init = hfaults_init,
	.add_events = hfaults_add_events,
	.report = hfaults_report,
	.fini = hfaults_fini,
};
