/*
 * faultline report -i FILE pprof -o OUT: the recording as a profile that
 * pprof reads (`go tool pprof`, and the tools that take its format), a
 * gzipped profile.proto written by pprof.c.
 *
 * From a `record -e leak` file (the user allocator's probes), a heap
 * profile with Go's four sample types: alloc_objects/count and
 * alloc_space/bytes (every allocation the recording saw), inuse_objects/
 * count and inuse_space/bytes (what was still allocated at its end: the
 * leaks), inuse_space shown first, as `go tool pprof` shows a Go heap
 * profile.  The counting is faultline heap's (heap-profile.c, on leak's
 * events, without the program's own mmaps): pprof's totals are the heap
 * report's calls and leaked bytes.  One sample per allocation site (a
 * process and a stack), labelled with its pid and comm but no tid: heap-
 * profile.c's sites are a process's, and its blocks (alloc_rec) do not
 * keep the thread that made them, so a thread's bytes in use are not
 * known (a block made by one thread and freed by another leaves the
 * heap's counts, not a thread's).
 *
 * From a `record -e faults` file, faults/count: every recorded page fault
 * (the exceptions:page_fault_user tracepoint, else the page-faults
 * software event) by user stack, as faultline faults counts them, one
 * sample per thread of a stack, labelled with pid, tid and comm.  A
 * recording of both takes the allocations unless --faults says otherwise.
 *
 * The samples, their frames and labels are pprof-stacks.c's: every frame a
 * location in its mapping, named as the text reports name it, with DWARF
 * its source line and inlined functions; the mapping pprof names the
 * profile after is the target's first executable mapping: its program.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "agg/alloc-trace.h"
#include "cmd/commands.h"
#include "cmd/tool.h"
#include "agg/heap-profile.h"
#include "lib/numfmt.h"
#include "cmd/out/report.h"
#include "trace/session.h"
#include "cmd/tool-opts.h"
#ifdef HAVE_PPROF
#include "cmd/out/pprof.h"
#include "cmd/out/pprof-stacks.h"
#endif

#define TOOL "report pprof"

enum { OPT_FAULTS = 256 };

#ifdef HAVE_PPROF

struct pp {
	struct session *s;
	bool want_faults;		/* --faults */
	bool faults;			/* a faults profile, not a heap one */
	/* heap */
	struct alloc_trace *at;
	struct heap_profile *hp;
	/* faults */
	struct stack_table *fsites;	/* by (pid, tid, stack): calls are faults */
	uint64_t nfaults, first, last;
	const char *fault_event;
	struct pprof *prof;
	int err;
};

/* ---- events ---- */

static void on_fault(struct session *s, const struct sample *smp, void *ctx)
{
	struct pp *pp = ctx;
	uint32_t stack = 0;

	if (pp->err)
		return;
	if (session__user_stack(s, smp, &stack) ||
	    stack_table__call_tid(pp->fsites, (pid_t)smp->pid, (pid_t)smp->tid, stack, 0, 1)) {
		pp->err = -ENOMEM;
		return;
	}
	pp->nfaults++;
	if (!pp->first || smp->time < pp->first)
		pp->first = smp->time;
	if (smp->time > pp->last)
		pp->last = smp->time;
}

/* Whether the recording has an event named @name or ending in ":@name". */
static bool recorded(const struct session *s, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < session__recorded_events(s); i++) {
		const char *ev = session__recorded_event(s, i, NULL);
		size_t n = strlen(ev);

		if (!strcmp(ev, name) ||
		    (n > len && ev[n - len - 1] == ':' && !strcmp(ev + n - len, name)))
			return true;
	}
	return false;
}

/* A report_replay() add: the allocator's events (and its notes), else the
 * faults'. */
static int add_events(struct session *s, void *ctx, struct errbuf *eb)
{
	struct pp *pp = ctx;
	bool allocs = recorded(pp->s, "malloc_enter") && recorded(pp->s, "free_enter");
	int err;

	if (allocs && !pp->want_faults) {
		err = heap_profile__new(1, &pp->hp);
		if (err)
			return errbuf__set(eb, err, "out of memory");
		err = alloc_trace__new(pp->s, &(struct alloc_trace_opts){ 0 },
				       &(struct alloc_trace_hooks){
					       .made = heap_profile__made,
					       .freed = heap_profile__freed,
					       .gone = heap_profile__gone, .ctx = pp->hp },
				       &pp->at, eb);
		if (!err)
			tool__alloc_notes(TOOL, pp->at);
		return err;
	}
	pp->faults = true;
	if (stack_table__new_threads(0, &pp->fsites))
		return errbuf__set(eb, -ENOMEM, "out of memory");
	/* faults' own events and flags: the tracepoint, else the software
	 * event, each with the user stack. */
	pp->fault_event = "exceptions:page_fault_user";
	err = session__add_tracepoint(pp->s, "exceptions", "page_fault_user", SESSION_USER_STACK,
				      on_fault, pp, NULL, eb);
	if (err == -ENOENT) {
		pp->fault_event = "page-faults";
		err = session__add_software(pp->s, "page-faults", PERF_COUNT_SW_PAGE_FAULTS,
					    SESSION_USER_STACK | SESSION_SAMPLE_ADDR, on_fault, pp,
					    eb);
	}
	if (err == -ENOENT && allocs)
		return errbuf__set(eb, -ENOENT, "the recording holds no page faults with user "
				   "stacks for --faults (record -e faults)");
	if (err == -ENOENT)
		return errbuf__set(eb, -ENOENT, "the recording holds neither allocations nor page "
				   "faults with user stacks (record -e leak -p/-c, or -e faults)");
	return err;
}

/* ---- the profile ---- */

static int build(struct pp *pp)
{
	static const struct pprof_value_type fault_types[] = { { "faults", "count" } };
	int err;

	if (!pp->faults)
		return pprof_stacks__heap(pp->s, pp->hp, &pp->prof);
	err = pprof_stacks__new(pp->s, &(struct pprof_opts){
					.types = fault_types, .ntypes = 1,
					.period_type = fault_types[0], .period = 1,
					.time_nanos = pp->first ?
						(int64_t)session__realtime(pp->s, pp->first) : 0,
					.duration_nanos = pp->last > pp->first ?
						(int64_t)(pp->last - pp->first) : 0 },
				&pp->prof);
	if (err)
		return err;
	return pprof_stacks__table(pp->prof, pp->s, pp->fsites,
				   (const enum stack_col[]){ STACK_CALLS }, 1);
}

static int run(const struct replay_opts *ro, const char *out, bool want_faults)
{
	struct pp pp = { 0 };
	struct errbuf eb = { "" };
	struct report r;
	char b[3][NUMFMT_LEN];
	int err;

	pp.want_faults = want_faults;
	err = report_replay(ro, add_events, &pp, &pp.s, &eb);
	if (!err && !pp.err && pp.hp)
		pp.err = heap_profile__error(pp.hp);
	if (!err && !pp.err && pp.at)
		pp.err = alloc_trace__error(pp.at);
	if (!err && pp.err)
		err = errbuf__set(&eb, pp.err, "out of memory");
	if (err)
		goto out;
	report__init(&r, pp.s, stdout, false);
	report__lost_first(&r, false, true, TOOL,
			   pp.faults ? "page faults were missed: the counts are low" :
			   "allocations and frees were missed: the profile is short of what "
			   "happened");
	report__fini(&r);
	err = build(&pp);
	if (err) {
		errbuf__set(&eb, err, "cannot make the profile: %s", strerror(-err));
		goto out;
	}
	err = pprof_stacks__write(pp.prof, out, &eb);
	if (!err && pp.faults)
		fprintf(stderr, "faultline " TOOL ": %s samples, %s faults (%s) in %s\n",
			numfmt__count(b[0], NUMFMT_LEN, pprof__samples(pp.prof)),
			numfmt__count(b[1], NUMFMT_LEN, pp.nfaults), pp.fault_event, out);
	else if (!err)
		fprintf(stderr, "faultline " TOOL ": %s samples, %s allocations, %s in use at "
			"the end in %s\n", numfmt__count(b[0], NUMFMT_LEN, pprof__samples(pp.prof)),
			numfmt__count(b[1], NUMFMT_LEN, heap_profile__totals(pp.hp)->calls),
			numfmt__bytes(b[2], NUMFMT_LEN, heap_profile__totals(pp.hp)->live_bytes),
			out);
out:
	pprof__free(pp.prof);
	alloc_trace__free(pp.at);
	heap_profile__free(pp.hp);
	stack_table__free(pp.fsites);
	session__free(pp.s);
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
}

#else

static int run(const struct replay_opts *ro, const char *out, bool want_faults)
{
	(void)ro;
	(void)out;
	(void)want_faults;
	fprintf(stderr, "faultline " TOOL ": this faultline was built without pprof output: "
		"configure found %s\n", FL_PPROF_MISSING);
	return EXIT_FAIL;
}

#endif

/**
 * report_pprof() - `faultline report -i FILE pprof -o OUT [--faults]`
 * @ro:   the recording and report's own options (--since, --until, --symfs)
 * @argc: arguments from "pprof" on
 * @argv: those arguments; not retained
 *
 * Return: EXIT_OK, EXIT_FAIL (the reason printed), EXIT_USAGE.
 */
struct pprof_args {
	const char *out;
	bool faults;
};

static const char *pprof_opt(int c, const char *arg, void *ctx)
{
	struct pprof_args *a = ctx;

	if (c == 'o')
		a->out = arg;
	else
		a->faults = true;	/* --faults */
	return NULL;
}

static const struct tool_option pprof_options[] = {
	{ .to = TOOL_OPTION_CALL, .letter = 'o', .name = "output", .arg = "FILE", .key = 'o',
	  .flags = TOOL_OPTION_REQUIRED,
	  .help = "where to write the profile (gzipped profile.proto; - for standard output); go "
		  "tool pprof reads it" },
	OPT_CALL(0, "faults", NULL, OPT_FAULTS,
		 "the page faults by user stack (faults/count), from a recording that holds "
		 "allocations too (default: a heap profile when allocations were recorded, else "
		 "faults)"),
	OPT_END,
};

const struct tool_cmdline pprof_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_REPORT,
	.options = pprof_options,
	.text = { .usage_name = "report -i FILE pprof", .args = "" },
	.opt = pprof_opt,
	.positional = tool_opts__no_positional,
};

int report_pprof(const struct replay_opts *ro, int argc, char **argv)
{
	struct pprof_args a = { NULL, false };
	struct tool_opts o;
	int ret;

	ret = tool_opts__parse_report_cmdline(&o, &pprof_cmdline, &a, argc, argv);
	if (ret >= 0)
		return ret;
	if (!a.out || !a.out[0])
		return tool__usage_error(TOOL, "where to? -o FILE is missing, not", "");
	return run(ro, a.out, a.faults);
}
