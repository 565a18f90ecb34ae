/*
 * faultline faults: user page faults counted by user stack and process,
 * split minor/major (stackcount on page faults, faults.bt, perf trace -F).
 *
 * Sources (compat/ladder.c "faults"):
 *   tracepoint  exceptions:page_fault_user (address, ip, error code), at
 *               the fault's entry, for the stack and the address; whether
 *               it was major comes from the major-faults software event of
 *               the same thread and page, which the kernel counts after the
 *               fault was handled.
 *   software    the page-faults software event with the fault address
 *               (PERF_SAMPLE_ADDR), and major-faults likewise.
 * Either way a fault is counted once, at its entry; a fault the kernel
 * retries (VM_FAULT_RETRY, e.g. waiting for I/O) enters twice and is
 * counted twice, as perf counts it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "commands.h"
#include "event-fields.h"
#include "lib/hashmap.h"
#include "lib/keyed.h"
#include "report.h"
#include "session.h"
#include "tool-opts.h"

#define TOOL "faults"

static const char usage[] =
	"faultline faults [-p PID | -c CMD | -a] [--minor | --major] [-T N] [STACK OPTIONS]\n"
	"                        [--json | --folded] [-m PAGES] [duration]";
static const char help[] =
	TOOL_OPTS_HELP
	TOOL_OPTS_STACK_HELP
	"  --minor      count minor faults only (no I/O)\n"
	"  --major      count major faults only (read from a file or swap)\n"
	"  -T N         show the N stacks with the most faults (default: all)\n"
	"  --folded     FlameGraph folded stacks weighted by faults\n";

enum { OPT_MINOR = 256, OPT_MAJOR };

struct faults_opts {
	bool minor_only, major_only;
	unsigned int top;
};

struct fsite {
	pid_t pid;
	uint32_t stack;
	uint64_t faults, major;
};

struct fproc {
	pid_t pid;
	uint64_t faults, major;
};

struct faults_state {
	struct tool_opts o;
	struct faults_opts fo;
	struct tp_field f_addr;
	struct keyed *sites;		/* pid << 32 | stack -> struct fsite */
	struct keyed *procs;		/* pid -> struct fproc */
	/* The last fault of each thread, which a major-faults event of the
	 * same thread and page then marks major. */
	struct hashmap *last_page;	/* tid -> page */
	struct hashmap *last_site;	/* tid -> site key */
	int err;
};

static const char *faults_opt(int c, const char *arg, void *ctx)
{
	struct faults_opts *fo = ctx;
	char *end;

	switch (c) {
	case OPT_MINOR:
		fo->minor_only = true;
		return NULL;
	case OPT_MAJOR:
		fo->major_only = true;
		return NULL;
	case 'T':
		errno = 0;
		fo->top = (unsigned int)strtoul(arg, &end, 10);
		if (errno || *end || !fo->top)
			return "-T wants a number of stacks, not";
		return NULL;
	}
	return "unknown option";
}

static uint64_t site_key(pid_t pid, uint32_t stack)
{
	return (uint64_t)(uint32_t)pid << 32 | stack;
}

static void count_fault(struct faults_state *st, struct session *s, const struct sample *smp,
			uint64_t addr)
{
	struct fsite *site;
	struct fproc *p;
	uint32_t stack = 0;
	int created;

	if (session__user_stack(s, smp, &stack)) {
		st->err = -ENOMEM;
		return;
	}
	site = keyed__get(st->sites, site_key((pid_t)smp->pid, stack), &created);
	if (site && created) {
		site->pid = (pid_t)smp->pid;
		site->stack = stack;
	}
	p = keyed__get(st->procs, smp->pid, &created);
	if (p && created)
		p->pid = (pid_t)smp->pid;
	if (!site || !p || hashmap__set(st->last_page, smp->tid, addr >> 12) ||
	    hashmap__set(st->last_site, smp->tid, site_key((pid_t)smp->pid, stack))) {
		st->err = -ENOMEM;
		return;
	}
	site->faults++;
	p->faults++;
}

static void on_fault_tp(struct session *s, const struct sample *smp, void *ctx)
{
	struct faults_state *st = ctx;
	uint64_t addr = 0;

	if (tp_field__u64(&st->f_addr, smp->raw, smp->raw_size, &addr))
		return;
	count_fault(st, s, smp, addr);
}

static void on_fault_sw(struct session *s, const struct sample *smp, void *ctx)
{
	count_fault(ctx, s, smp, smp->addr);
}

static void on_major(struct session *s, const struct sample *smp, void *ctx)
{
	struct faults_state *st = ctx;
	uint64_t page = 0, key = 0;
	struct fsite *site;
	struct fproc *p;

	(void)s;
	/* The major fault is the thread's last fault entry, on this page. */
	if (!hashmap__get(st->last_page, smp->tid, &page) || page != smp->addr >> 12 ||
	    !hashmap__get(st->last_site, smp->tid, &key) || !(site = keyed__find(st->sites, key)))
		return;	/* its entry came before tracing began */
	site->major++;
	p = keyed__find(st->procs, smp->pid);
	if (p)
		p->major++;
	hashmap__delete(st->last_page, smp->tid, NULL);
}

static uint64_t shown(const struct faults_state *st, uint64_t faults, uint64_t major)
{
	if (st->fo.major_only)
		return major;
	if (st->fo.minor_only)
		return faults - major;
	return faults;
}

static int cmp_site(const void *a, const void *b, void *ctx)
{
	const struct faults_state *st = ctx;
	const struct fsite *x = a, *y = b;
	uint64_t kx = shown(st, x->faults, x->major), ky = shown(st, y->faults, y->major);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static void print_report(struct session *s, void *ctx)
{
	struct faults_state *st = ctx;
	struct report r;
	size_t first, n_sites;

	report__init(&r, s, stdout, st->o.srcline);
	keyed__sort(st->sites, cmp_site, st);
	n_sites = keyed__count(st->sites);
	first = st->fo.top && n_sites > st->fo.top ? n_sites - st->fo.top : 0;
	for (size_t i = first; i < n_sites; i++) {
		const struct fsite *site = keyed__at(st->sites, i);
		const char *comm = session__comm(s, site->pid);
		uint64_t n = shown(st, site->faults, site->major);

		if (!n)
			continue;
		if (st->o.folded) {
			report__folded(&r, site->pid, comm, site->stack, n);
		} else if (st->o.json) {
			printf("{\"type\":\"stack\",\"pid\":%d,\"comm\":", (int)site->pid);
			report__json_str(stdout, comm);
			printf(",\"faults\":%" PRIu64 ",\"minor\":%" PRIu64 ",\"major\":%" PRIu64
			       ",\"stack\":", n, site->faults - site->major, site->major);
			report__stack_json(&r, site->pid, site->stack);
			printf("}\n");
		} else {
			report__stack(&r, site->pid, site->stack, "  ", false);
			printf("    %s [%d]\n", comm, (int)site->pid);
			printf("    %" PRIu64 " (minor %" PRIu64 ", major %" PRIu64 ")\n\n", n,
			       site->faults - site->major, site->major);
		}
	}
	if (!st->o.folded) {
		if (!st->o.json)
			printf("%-7s %-16s %10s %10s %10s\n", "PID", "COMM", "FAULTS", "MINOR", "MAJOR");
		for (size_t i = 0; i < keyed__count(st->procs); i++) {
			const struct fproc *p = keyed__at(st->procs, i);

			if (st->o.json) {
				printf("{\"type\":\"process\",\"pid\":%d,\"comm\":", (int)p->pid);
				report__json_str(stdout, session__comm(s, p->pid));
				printf(",\"faults\":%" PRIu64 ",\"minor\":%" PRIu64 ",\"major\":%" PRIu64
				       "}\n", p->faults, p->faults - p->major, p->major);
			} else {
				printf("%-7d %-16s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
				       (int)p->pid, session__comm(s, p->pid), p->faults,
				       p->faults - p->major, p->major);
			}
		}
		report__footer(&r, st->o.json);
	}
	report__fini(&r);
}

static int add_events(struct session *s, void *ctx, const char *rung, struct errbuf *eb)
{
	struct faults_state *st = ctx;
	struct tp_event *ev = NULL;
	int err;

	if (!strcmp(rung, "tracepoint")) {
		err = session__add_tracepoint(s, "exceptions", "page_fault_user", SESSION_USER_STACK,
					      on_fault_tp, st, &ev, eb);
		if (!err && tp_event__field(ev, "address", &st->f_addr))
			err = errbuf__set(eb, -ENOENT, "exceptions:page_fault_user lacks 'address'");
	} else {
		err = session__add_software(s, "page-faults", PERF_COUNT_SW_PAGE_FAULTS,
					    SESSION_USER_STACK | SESSION_SAMPLE_ADDR, on_fault_sw, st, eb);
	}
	if (!err)
		err = session__add_software(s, "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ,
					    SESSION_SAMPLE_ADDR, on_major, st, eb);
	return err;
}

int cmd_faults(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "minor", no_argument, NULL, OPT_MINOR },
		{ "major", no_argument, NULL, OPT_MAJOR },
		{ NULL, 0, NULL, 0 },
	};
	struct faults_state st = { 0 };
	struct tool_extra extra = { "T:", longopts, faults_opt, NULL, &st.fo };
	int ret;

	ret = tool_opts__parse_ext(&st.o, TOOL, TOOL_OPT_FOLDED, usage, help, &extra, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (st.fo.minor_only && st.fo.major_only) {
		fprintf(stderr, "faultline " TOOL ": choose --minor or --major, not both\n");
		return EXIT_USAGE;
	}
	st.sites = keyed__new(sizeof(struct fsite));
	st.procs = keyed__new(sizeof(struct fproc));
	st.last_page = hashmap__new();
	st.last_site = hashmap__new();
	ret = EXIT_FAIL;
	if (!st.sites || !st.procs || !st.last_page || !st.last_site) {
		fprintf(stderr, "faultline " TOOL ": out of memory\n");
		goto out;
	}
	ret = tool__live(&st.o, &(struct tool_life){ TOOL, "page faults", add_events, NULL,
						     print_report, &st.err, &st });
out:
	keyed__free(st.sites);
	keyed__free(st.procs);
	hashmap__free(st.last_page);
	hashmap__free(st.last_site);
	return ret;
}
