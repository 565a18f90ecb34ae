/*
 * test-features: feature probing, FAULTLINE_MASK and ladder choices against
 * the fixture trees in tests/fixtures/kernels (kernels we cannot boot
 * here).  Every feature of every tree is asserted, so a probe that starts
 * reading a different file shows up as a failure, not as a silent change.
 * Fixture paths come from $top_srcdir (default ".").
 */
#ifndef _GNU_SOURCE	/* config.h (-include) may define it already */
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "features.h"
#include "ladder.h"
#include "cmd/commands.h"
#include "check.h"

#define MASKED "masked by FAULTLINE_MASK"

struct expect {
	const char *name;
	/* indexed by enum feature_id */
	bool has[FEAT__COUNT];
	int paranoid;
	const char *lockdown;
	bool root, cap_sys_admin, cap_perfmon, privileged;
	int uprobe_pmu_type, kprobe_pmu_type;
	int brk, mmap;		/* chosen rung index or -ENOTSUP */
};

/*                         tr up ur kp kr dy UP KP pe sc fi fn el rc PR tg hi fp */
static const struct expect expects[] = {
	{ "rhel7-3.10",         { 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1 },
	  2, "absent", true, true, false, true, 7, 6, 0, 0 },
	{ "ubuntu-4.15",        { 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0 },
	  3, "absent", false, false, false, false, -1, -1, 0, 0 },
	{ "6.18-lockdown",      { 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
	  2, "confidentiality", true, true, true, true, 8, -1, 2, 2 },	/* the uprobe PMU rung */
	{ "no-ftrace-syscalls", { 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0 },
	  1, "none", false, false, true, false, 8, 7, 1, 1 },
	{ "no-uprobes",         { 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1 },
	  -1, "absent", true, false, false, true, -1, 6, 0, 0 },
};

static char top[PATH_MAX];

struct tree {
	char tracing[PATH_MAX], sys[PATH_MAX], proc[PATH_MAX];
	struct fl_roots roots;
};

static void tree_init(struct tree *t, const char *name)
{
	int a, b, c;

	a = snprintf(t->tracing, sizeof(t->tracing), "%s/tests/fixtures/kernels/%s/tracing", top, name);
	b = snprintf(t->sys, sizeof(t->sys), "%s/tests/fixtures/kernels/%s/sys", top, name);
	c = snprintf(t->proc, sizeof(t->proc), "%s/tests/fixtures/kernels/%s/proc", top, name);
	CHECK(a > 0 && b > 0 && c > 0 && (size_t)a < sizeof(t->tracing));
	t->roots.tracefs = t->tracing;
	t->roots.sysfs = t->sys;
	t->roots.procfs = t->proc;
}

static struct features *probe(const struct tree *t, const char *mask)
{
	struct errbuf eb = { "" };
	struct features *f = NULL;
	int err;

	if (mask)
		setenv("FAULTLINE_MASK", mask, 1);
	else
		unsetenv("FAULTLINE_MASK");
	err = features__probe(&t->roots, &f, &eb);
	if (err)
		fprintf(stderr, "probe %s: %s\n", t->tracing, errbuf__str(&eb, err));
	CHECK_EQ_U64(err, 0);
	return f;
}

static char *fmt(char *buf, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));

static char *fmt(char *buf, size_t n, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, n, f, ap);
	va_end(ap);
	return buf;
}

static void test_fixture_values(void)
{
	char why[2][256], want[512];
	const struct ladder *brk = commands__ladder("brk"), *mmap = commands__ladder("mmap");
	struct features *f;
	struct tree t;
	size_t i;
	int id;

	for (i = 0; i < sizeof(expects) / sizeof(expects[0]); i++) {
		const struct expect *e = &expects[i];

		tree_init(&t, e->name);
		f = probe(&t, NULL);
		if (!f)
			continue;
		for (id = 0; id < FEAT__COUNT; id++) {
			if (features__has(f, id) != e->has[id])
				fprintf(stderr, "%s: %s is %d (%s)\n", e->name, feature__name(id),
					features__has(f, id), features__why(f, id));
			CHECK_EQ_U64(features__has(f, id), e->has[id]);
			CHECK(features__why(f, id)[0] != '\0');
		}
		CHECK_EQ_U64(features__paranoid(f), e->paranoid);
		CHECK_STR(features__lockdown(f), e->lockdown);
		CHECK_EQ_U64(features__is_root(f), e->root);
		CHECK_EQ_U64(features__cap_sys_admin(f), e->cap_sys_admin);
		CHECK_EQ_U64(features__cap_perfmon(f), e->cap_perfmon);
		CHECK_EQ_U64(features__privileged(f), e->privileged);
		CHECK_EQ_U64(features__uprobe_pmu_type(f), e->uprobe_pmu_type);
		CHECK_EQ_U64(features__kprobe_pmu_type(f), e->kprobe_pmu_type);
		CHECK_STR(features__tracefs_dir(f), t.tracing);
		CHECK(!features__mounted_tracefs(f));
		CHECK_EQ_U64(ladder__choose(brk, f, why, 2), e->brk);
		CHECK_EQ_U64(ladder__choose(mmap, f, why, 2), e->mmap);
		CHECK_EQ_U64(features__has_tracepoint(f, "syscalls", "sys_enter_brk"),
			     e->has[FEAT_SYSCALL_TRACEPOINTS]);
		CHECK(!features__has_tracepoint(f, "syscalls", "sys_enter_nosuch"));
		CHECK(!features__has_tracepoint(f, "..", "sys_enter_brk"));
		CHECK(!features__has_tracepoint(f, "syscalls", "../syscalls/sys_enter_brk"));
		features__free(f);
	}

	/* The evidence strings, exactly, where they matter to a reader. */
	tree_init(&t, "rhel7-3.10");
	f = probe(&t, NULL);
	CHECK_STR(features__why(f, FEAT_TRACEFS), fmt(want, sizeof(want), "tracing dir at %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_UPROBES), fmt(want, sizeof(want), "uprobe_events in %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_URETPROBES),
		  fmt(want, sizeof(want), "README in %s has no uprobe syntax: assumed with uprobes", t.tracing));
	CHECK_STR(features__why(f, FEAT_DYNAMIC_EVENTS),
		  fmt(want, sizeof(want), "no dynamic_events in %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_UPROBE_PMU),
		  fmt(want, sizeof(want), "perf type 7 in %s/bus/event_source/devices/uprobe/type", t.sys));
	CHECK_STR(features__why(f, FEAT_UPROBE_PMU_REF_CTR),
		  fmt(want, sizeof(want), "no %s/bus/event_source/devices/uprobe/format/ref_ctr_offset", t.sys));
	CHECK_STR(features__why(f, FEAT_PERF_EVENTS), "perf_event_paranoid is 2");
	CHECK_STR(features__why(f, FEAT_FUNCTION_TRACER),
		  fmt(want, sizeof(want), "\"function\" in %s/available_tracers", t.tracing));
	CHECK_STR(features__why(f, FEAT_EVENT_FILTERS),
		  fmt(want, sizeof(want), "events/header_page in %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_EVENT_TRIGGERS),
		  fmt(want, sizeof(want), "no events/*/*/trigger in %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_HIST_TRIGGERS),
		  fmt(want, sizeof(want), "needs event_triggers: no events/*/*/trigger in %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_UPROBE_REF_CTR),
		  fmt(want, sizeof(want), "README in %s does not document (ref_ctr_offset)", t.tracing));
	features__free(f);

	tree_init(&t, "ubuntu-4.15");
	f = probe(&t, NULL);
	CHECK_STR(features__why(f, FEAT_URETPROBES),
		  fmt(want, sizeof(want), "README in %s documents \"r[maxactive]\"", t.tracing));
	CHECK_STR(features__why(f, FEAT_UPROBE_PMU),
		  fmt(want, sizeof(want), "no %s/bus/event_source/devices/uprobe/type", t.sys));
	CHECK(strstr(features__why(f, FEAT_HIST_TRIGGERS), "/hist in ") != NULL);
	features__free(f);

	tree_init(&t, "6.18-lockdown");
	f = probe(&t, NULL);
	CHECK_STR(features__why(f, FEAT_TRACEFS), "tracefs is unusable under lockdown [confidentiality]");
	CHECK_STR(features__why(f, FEAT_UPROBES), "needs tracefs: tracefs is unusable under lockdown [confidentiality]");
	CHECK_STR(features__why(f, FEAT_URETPROBES),
		  "needs uprobes: needs tracefs: tracefs is unusable under lockdown [confidentiality]");
	CHECK_STR(features__why(f, FEAT_KPROBE_PMU), "kprobe creation is blocked under lockdown [confidentiality]");
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), 2);
	CHECK_STR(why[0], "tracepoint syscalls:sys_enter_brk absent "
		  "(needs tracefs: tracefs is unusable under lockdown [confidentiality])");
	CHECK_STR(why[1], "uprobes absent (needs tracefs: tracefs is unusable under lockdown [confidentiality])");
	features__free(f);

	tree_init(&t, "no-ftrace-syscalls");
	f = probe(&t, NULL);
	CHECK_STR(features__why(f, FEAT_SYSCALL_TRACEPOINTS),
		  fmt(want, sizeof(want), "no events/syscalls in %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_UPROBE_REF_CTR),
		  fmt(want, sizeof(want), "README in %s documents (ref_ctr_offset)", t.tracing));
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), 1);
	CHECK_STR(why[0], fmt(want, sizeof(want),
			      "tracepoint syscalls:sys_enter_brk absent (no events/syscalls in %s)", t.tracing));
	CHECK_STR(why[1], "");
	CHECK_EQ_U64(ladder__choose(commands__ladder("mmap"), f, why, 2), 1);
	CHECK_STR(why[0], fmt(want, sizeof(want),
			      "tracepoint syscalls:sys_enter_mmap absent (no events/syscalls in %s)", t.tracing));
	CHECK(features__has_tracepoint(f, "kmem", "kmalloc"));
	CHECK(!features__has_tracepoint(f, "kmem", "kfree"));
	CHECK(features__tracepoint_why(f, "kmem", "kfree", want, sizeof(want)) == false);
	{
		char want2[512];

		CHECK_STR(want, fmt(want2, sizeof(want2), "no events/kmem/kfree/format in %s", t.tracing));
	}
	features__free(f);

	tree_init(&t, "no-uprobes");
	f = probe(&t, NULL);
	CHECK_STR(features__why(f, FEAT_UPROBES), fmt(want, sizeof(want), "no uprobe_events in %s", t.tracing));
	CHECK_STR(features__why(f, FEAT_URETPROBES),
		  fmt(want, sizeof(want), "needs uprobes: no uprobe_events in %s", t.tracing));
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), 0);
	CHECK_STR(why[0], "");
	CHECK_STR(why[1], fmt(want, sizeof(want), "uprobes absent (no uprobe_events in %s)", t.tracing));
	features__free(f);

	/* A tracing dir that is not there. */
	tree_init(&t, "no-uprobes");
	t.roots.tracefs = "/nonexistent/tracing";
	f = probe(&t, NULL);
	CHECK(!features__has(f, FEAT_TRACEFS));
	CHECK_STR(features__why(f, FEAT_TRACEFS), "no tracing dir at /nonexistent/tracing");
	CHECK_STR(features__why(f, FEAT_KPROBES), "needs tracefs: no tracing dir at /nonexistent/tracing");
	CHECK(features__has(f, FEAT_KPROBE_PMU));
	CHECK(!features__has_tracepoint(f, "syscalls", "sys_enter_brk"));
	features__free(f);
}

static void test_masks_on_fixtures(void)
{
	struct errbuf eb = { "" };
	struct features *f = NULL;
	char why[2][256];
	struct tree t;
	int err, id;

	tree_init(&t, "rhel7-3.10");

	f = probe(&t, "syscalls:*");
	CHECK(!features__has(f, FEAT_SYSCALL_TRACEPOINTS));
	CHECK_STR(features__why(f, FEAT_SYSCALL_TRACEPOINTS), MASKED);
	CHECK(!features__has_tracepoint(f, "syscalls", "sys_enter_brk"));
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), 1);
	CHECK_STR(why[0], "tracepoint syscalls:sys_enter_brk absent (masked by FAULTLINE_MASK)");
	CHECK_STR(why[1], "");
	CHECK_EQ_U64(ladder__choose(commands__ladder("mmap"), f, why, 2), 1);
	CHECK_STR(why[0], "tracepoint syscalls:sys_enter_mmap absent (masked by FAULTLINE_MASK)");
	features__free(f);

	/* One event masked: the system stays, mmap's last need fails. */
	f = probe(&t, "syscalls:sys_exit_munmap");
	CHECK(features__has(f, FEAT_SYSCALL_TRACEPOINTS));
	CHECK(features__has_tracepoint(f, "syscalls", "sys_enter_munmap"));
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), 0);
	CHECK_EQ_U64(ladder__choose(commands__ladder("mmap"), f, why, 2), 1);
	CHECK_STR(why[0], "tracepoint syscalls:sys_exit_munmap absent (masked by FAULTLINE_MASK)");
	features__free(f);

	f = probe(&t, " uprobe_pmu , kprobes ");
	CHECK(!features__has(f, FEAT_UPROBE_PMU));
	CHECK_STR(features__why(f, FEAT_UPROBE_PMU), MASKED);
	CHECK_EQ_U64(features__uprobe_pmu_type(f), -1);
	CHECK(!features__has(f, FEAT_KPROBES));
	CHECK_STR(features__why(f, FEAT_KRETPROBES), "needs kprobes: " MASKED);
	CHECK(features__has(f, FEAT_UPROBES));
	CHECK(features__has(f, FEAT_KPROBE_PMU));
	features__free(f);

	/* Masking tracefs takes everything built on it, keeps the PMUs. */
	f = probe(&t, "tracefs");
	CHECK_STR(features__why(f, FEAT_TRACEFS), MASKED);
	for (id = FEAT_UPROBES; id < FEAT__COUNT; id++) {
		if (id == FEAT_UPROBE_PMU || id == FEAT_KPROBE_PMU || id == FEAT_PERF_EVENTS ||
		    id == FEAT_UPROBE_PMU_REF_CTR)
			continue;
		CHECK(!features__has(f, id));
	}
	CHECK_STR(features__why(f, FEAT_UPROBES), "needs tracefs: " MASKED);
	CHECK(features__has(f, FEAT_UPROBE_PMU));
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), 2);
	CHECK_STR(why[0], "tracepoint syscalls:sys_enter_brk absent (needs tracefs: " MASKED ")");
	features__free(f);

	f = probe(&t, "syscall_tracepoints");
	CHECK(!features__has_tracepoint(f, "syscalls", "sys_enter_brk"));
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), 1);
	features__free(f);

	f = probe(&t, "perf_events");
	CHECK(!features__has(f, FEAT_PERF_EVENTS));
	CHECK_EQ_U64(features__paranoid(f), 2);
	features__free(f);

	/* No rung left: the tool must hear -ENOTSUP and every reason. */
	tree_init(&t, "no-ftrace-syscalls");
	f = probe(&t, "uretprobes,uprobe_pmu");
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, why, 2), -ENOTSUP);
	CHECK_STR(why[1], "uretprobes absent (" MASKED ")");
	features__free(f);

	/* A malformed mask fails the probe with a message. */
	setenv("FAULTLINE_MASK", "uprobes,bogus", 1);
	f = NULL;
	err = features__probe(&t.roots, &f, &eb);
	CHECK_EQ_U64(err, -EINVAL);
	CHECK(f == NULL);
	CHECK_STR(eb.msg, "unknown feature 'bogus' in FAULTLINE_MASK");
	unsetenv("FAULTLINE_MASK");
}

static void test_mask_parse(void)
{
	struct errbuf eb = { "" };
	struct feature_mask *m = NULL;
	int id;

	CHECK_EQ_U64(feature_mask__parse(NULL, &m, &eb), 0);
	for (id = 0; id < FEAT__COUNT; id++)
		CHECK(!feature_mask__has_feature(m, id));
	CHECK(!feature_mask__has_tracepoint(m, "syscalls", "sys_enter_brk"));
	feature_mask__free(m);

	CHECK_EQ_U64(feature_mask__parse("", &m, &eb), 0);
	CHECK(!feature_mask__has_feature(m, FEAT_TRACEFS));
	feature_mask__free(m);

	CHECK_EQ_U64(feature_mask__parse("uprobe_pmu,kprobes", &m, &eb), 0);
	CHECK(feature_mask__has_feature(m, FEAT_UPROBE_PMU));
	CHECK(feature_mask__has_feature(m, FEAT_KPROBES));
	CHECK(!feature_mask__has_feature(m, FEAT_UPROBES));
	CHECK(!feature_mask__has_feature(m, FEAT_KPROBE_PMU));
	feature_mask__free(m);

	CHECK_EQ_U64(feature_mask__parse(" syscalls:* ,, kmem:kmalloc,\tuprobes ,", &m, &eb), 0);
	CHECK(feature_mask__has_tracepoint(m, "syscalls", "sys_enter_brk"));
	CHECK(feature_mask__has_tracepoint(m, "syscalls", NULL));
	CHECK(feature_mask__has_tracepoint(m, "kmem", "kmalloc"));
	CHECK(!feature_mask__has_tracepoint(m, "kmem", "kfree"));
	CHECK(!feature_mask__has_tracepoint(m, "kmem", NULL));
	CHECK(!feature_mask__has_tracepoint(m, "sys", "sys_enter_brk"));
	CHECK(feature_mask__has_feature(m, FEAT_UPROBES));
	feature_mask__free(m);

	m = NULL;
	CHECK_EQ_U64(feature_mask__parse("kprobe", &m, &eb), -EINVAL);
	CHECK(m == NULL);
	CHECK_STR(eb.msg, "unknown feature 'kprobe' in FAULTLINE_MASK");
	CHECK_EQ_U64(feature_mask__parse("syscalls:", &m, &eb), -EINVAL);
	CHECK_STR(eb.msg, "bad tracepoint 'syscalls:' in FAULTLINE_MASK (want system:event or system:*)");
	CHECK_EQ_U64(feature_mask__parse(":sys_enter_brk", &m, &eb), -EINVAL);
	CHECK_EQ_U64(feature_mask__parse("a:b:c", &m, &eb), -EINVAL);
	CHECK_EQ_U64(feature_mask__parse("../x:y", &m, &eb), -EINVAL);
	CHECK_EQ_U64(feature_mask__parse("x:..", &m, &eb), -EINVAL);
	CHECK(m == NULL);
}

static void test_names(void)
{
	int id;

	CHECK_STR(feature__name(FEAT_TRACEFS), "tracefs");
	CHECK_STR(feature__name(FEAT_UPROBES), "uprobes");
	CHECK_STR(feature__name(FEAT_URETPROBES), "uretprobes");
	CHECK_STR(feature__name(FEAT_KPROBES), "kprobes");
	CHECK_STR(feature__name(FEAT_KRETPROBES), "kretprobes");
	CHECK_STR(feature__name(FEAT_DYNAMIC_EVENTS), "dynamic_events");
	CHECK_STR(feature__name(FEAT_UPROBE_PMU), "uprobe_pmu");
	CHECK_STR(feature__name(FEAT_KPROBE_PMU), "kprobe_pmu");
	CHECK_STR(feature__name(FEAT_PERF_EVENTS), "perf_events");
	CHECK_STR(feature__name(FEAT_SYSCALL_TRACEPOINTS), "syscall_tracepoints");
	CHECK_STR(feature__name(FEAT_EVENT_FILTERS), "event_filters");
	CHECK_STR(feature__name(FEAT_FUNCTION_TRACER), "function_tracer");
	CHECK_STR(feature__name(FEAT_ERROR_LOG), "error_log");
	CHECK(feature__name(FEAT__COUNT) == NULL);
	for (id = 0; id < FEAT__COUNT; id++) {
		CHECK(feature__name(id) != NULL);
		CHECK_EQ_U64(feature__from_name(feature__name(id)), id);
	}
	CHECK_EQ_U64(feature__from_name("nope"), -ENOENT);
}

static void test_ladders(void)
{
	static const char *const bad_feat[] = { "feat:nope", NULL };
	static const char *const bad_tp[] = { "tp:onlysystem", NULL };
	static const char *const bad_kind[] = { "kallsyms:foo", NULL };
	const struct rung bad[] = {
		{ "a", "a", bad_feat, "" }, { "b", "b", bad_tp, "" }, { "c", "c", bad_kind, "" },
	};
	const struct ladder *all[64], *l;
	struct features *f;
	struct tree t;
	char why[256];
	size_t n, i, j;

	/* The ladders are in the tools' files: the command table reaches them. */
	n = commands__ladders(all, 64);
	/* Each once: heap's and flamegraph's are leak's and faults', cachetop
	 * has its own name for cache's rungs, leak -k is leak's other. */
	CHECK_EQ_U64(n, 18);
	CHECK(commands__ladder("leak") != NULL && commands__ladder("leak -k") != NULL);
	CHECK(commands__ladder("reclaim") != NULL && commands__ladder("swapin") != NULL);
	l = commands__ladder("brk");
	CHECK(l != NULL);
	if (l) {
		CHECK_STR(l->tool, "brk");
		CHECK_EQ_U64(l->n, 3);
		CHECK_STR(l->rungs[0].key, "tracepoint");
		CHECK_STR(l->rungs[0].label, "tracepoint syscalls:sys_enter_brk");
		CHECK_STR(l->rungs[0].loses, "");
		CHECK_STR(l->rungs[1].key, "uprobe");
		CHECK_STR(l->rungs[1].label, "uprobe libc brk");
		CHECK_STR(l->rungs[1].loses, "only brk calls made through libc's brk/sbrk (not raw syscalls)");
		CHECK_STR(l->rungs[2].key, "uprobe-pmu");
	}
	l = commands__ladder("mmap");
	CHECK(l != NULL);
	if (l) {
		CHECK_EQ_U64(l->n, 3);
		CHECK_STR(l->rungs[0].key, "tracepoint");
		CHECK_STR(l->rungs[1].key, "uprobe");
		CHECK_STR(l->rungs[2].key, "uprobe-pmu");
		CHECK_STR(l->rungs[1].label, "uprobe+uretprobe libc mmap/munmap");
		CHECK_STR(l->rungs[1].loses, "only calls made through libc");
	}
	CHECK(commands__ladder("nosuch") == NULL);
	CHECK(commands__ladder(NULL) == NULL);

	/* Every requirement of every ladder parses: a typo would say
	 * "unknown requirement".  (No one tree has every rung: a kernel has
	 * swap_read_folio or swap_readpage, not both.)  brk and mmap are
	 * wholly ready on the RHEL 7 tree. */
	tree_init(&t, "rhel7-3.10");
	f = probe(&t, NULL);
	for (i = 0; f && i < n && i < 64; i++) {
		/* A fallback says what it loses (a lone rung has none). */
		if (all[i]->n > 1)
			CHECK_STR(all[i]->rungs[all[i]->n - 1].loses[0] ? "ok" : "", "ok");
		for (j = 0; j < all[i]->n; j++) {
			bool ready = ladder__rung_ready(&all[i]->rungs[j], f, why, sizeof(why));

			CHECK(strncmp(why, "unknown requirement", 19) != 0);
			if (!strcmp(all[i]->tool, "brk") || !strcmp(all[i]->tool, "mmap")) {
				CHECK(ready);
				CHECK_STR(why, "");
			}
		}
	}
	CHECK(!ladder__rung_ready(&bad[0], f, why, sizeof(why)));
	CHECK_STR(why, "unknown requirement 'feat:nope'");
	CHECK(!ladder__rung_ready(&bad[1], f, why, sizeof(why)));
	CHECK_STR(why, "unknown requirement 'tp:onlysystem'");
	CHECK(!ladder__rung_ready(&bad[2], f, NULL, 0));
	CHECK(!ladder__rung_ready(&bad[2], f, why, sizeof(why)));
	CHECK_STR(why, "unknown requirement 'kallsyms:foo'");
	/* why may be NULL, or shorter than the ladder. */
	CHECK_EQ_U64(ladder__choose(commands__ladder("brk"), f, NULL, 0), 0);
	features__free(f);
}

/* Rung keys compare whole, or by family with a trailing ':'. */
static void test_rung_is(void)
{
	CHECK(ladder__is("tracepoint", "tracepoint"));
	CHECK(!ladder__is("tracepoint", "trace"));
	CHECK(!ladder__is("trace", "tracepoint"));
	CHECK(ladder__is("kprobe:swap_readpage", "kprobe:"));
	CHECK(!ladder__is("kprobe", "kprobe:"));
	CHECK(!ladder__is("kprobe:swap_readpage", "kprobe"));
	CHECK(!ladder__is(NULL, "vmstat"));
}

static void test_locate(void)
{
	char dir[] = "/tmp/test-features.XXXXXX", path[PATH_MAX], out[PATH_MAX];
	struct errbuf eb = { "" };
	bool mounted = true;
	struct stat st;
	FILE *fp;
	int err;

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/mounts", dir);

	/* A listed tracefs mount wins, with /proc/mounts octal escapes undone;
	 * one whose path does not exist (hidden under another mount) is
	 * passed over. */
	{
		char spaced[PATH_MAX];

		snprintf(spaced, sizeof(spaced), "%s/my trace", dir);
		CHECK(mkdir(spaced, 0700) == 0);
		fp = fopen(path, "w");
		CHECK(fp != NULL);
		if (fp) {
			fprintf(fp, "proc /proc proc rw 0 0\n"
				"debugfs /sys/kernel/debug debugfs rw 0 0\n"
				"nodev /nonexistent/hidden tracefs rw 0 0\n"
				"nodev %s/my\\040trace tracefs rw,relatime 0 0\n"
				"nodev /sys/kernel/tracing tracefs rw 0 0\n", dir);
			fclose(fp);
		}
		err = features__locate_tracefs(dir, false, out, sizeof(out), &mounted, &eb);
		CHECK_EQ_U64(err, 0);
		CHECK_STR(out, spaced);
		rmdir(spaced);
	}
	CHECK(!mounted);
	CHECK_EQ_U64(features__locate_tracefs(dir, false, out, 5, NULL, &eb), -ENAMETOOLONG);

	/* Nothing listed and no mounting: the fixed paths of this machine
	 * decide, and the message says how to mount. */
	fp = fopen(path, "w");
	if (fp) {
		fputs("proc /proc proc rw 0 0\n", fp);
		fclose(fp);
	}
	err = features__locate_tracefs(dir, false, out, sizeof(out), &mounted, &eb);
	if (stat("/sys/kernel/tracing/events", &st) == 0 && S_ISDIR(st.st_mode)) {
		CHECK_EQ_U64(err, 0);
		CHECK_STR(out, "/sys/kernel/tracing");
	} else if (stat("/sys/kernel/debug/tracing/events", &st) == 0 && S_ISDIR(st.st_mode)) {
		CHECK_EQ_U64(err, 0);
		CHECK_STR(out, "/sys/kernel/debug/tracing");
	} else {
		CHECK_EQ_U64(err, -ENOENT);
		CHECK_STR(eb.msg, "tracefs is not mounted; mount it with 'mount -t tracefs nodev /sys/kernel/tracing'");
	}
	CHECK(!mounted);

	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const char *t = getenv("top_srcdir");

	char probe_dir[PATH_MAX + 64];
	struct stat st;

	snprintf(top, sizeof(top), "%s", t && *t ? t : ".");
	snprintf(probe_dir, sizeof(probe_dir), "%s/tests/fixtures/kernels/rhel7-3.10", top);
	if (stat(probe_dir, &st) < 0) {
		fprintf(stderr, "test-features: no fixtures at %s (set top_srcdir)\n", probe_dir);
		return 1;
	}
	unsetenv("FAULTLINE_MASK");
	test_rung_is();
	test_names();
	test_mask_parse();
	test_fixture_values();
	test_masks_on_fixtures();
	test_ladders();
	test_locate();
	return check_done("test-features");
}
