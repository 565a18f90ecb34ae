/*
 * faultline report: answers from a recording (faultline record).
 *
 *   report -i FILE TOOL [TOOL OPTIONS]   the tool's own report: its own
 *        code runs on a replay session (a tool_mode naming it), so thresholds,
 *        sorts, filters and intervals all apply after the fact, and the
 *        output is the live tool's;
 *   report -i FILE script                every sample as `perf script`
 *        prints it (FlameGraph's stackcollapse-perf.pl reads it);
 *   report -i FILE info                  what the recording holds;
 *   report -i NEW diff OLD               the heap's changes by stack
 *        between two recordings (cmd-diff.c).
 *   report -i FILE pprof -o OUT          a profile for pprof (cmd-pprof.c).
 * --since/--until keep the samples of a time window; --symfs DIR finds
 * the recorded binaries below DIR (checked by build-id), as perf's does.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stack/addrspace.h"
#include "cmd/commands.h"
#include "ladder.h"
#include "cmd/tool.h"
#include "trace/tp-catalog.h"
#include "trace/session.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "cmd/tool-opts.h"

#define TOOL "report"

enum { OPT_INPUT = 1, OPT_SYMFS, OPT_SINCE, OPT_UNTIL };

/* report's own options: those before the subcommand or tool, whose own
 * options follow it. */
static const struct tool_option report_options[] = {
	{ .to = TOOL_OPTION_CALL, .letter = 'i', .name = "input", .arg = "FILE", .key = OPT_INPUT,
	  .help = "the recording (faultline record -o FILE)", .flags = TOOL_OPTION_REQUIRED },
	OPT_CALL(0, "symfs", "DIR", OPT_SYMFS,
		 "look for the recorded binaries below DIR (by their\n"
		 "build-ids; DIR/usr/lib/debug for debug files)"),
	OPT_CALL(0, "since", "SECS", OPT_SINCE, "only the samples this many seconds after the start"),
	OPT_CALL(0, "until", "SECS", OPT_UNTIL, "only the samples before this many seconds after the start"),
	OPT_END,
};

/* An option of report_options into the struct replay_opts @ctx: NULL or
 * what is wrong with @arg. */
static const char *report_opt(int key, const char *arg, void *ctx)
{
	struct replay_opts *ro = ctx;

	switch (key) {
	case OPT_INPUT:
		ro->path = arg;
		break;
	case OPT_SYMFS:
		ro->symfs = arg;
		break;
	case OPT_SINCE:
		if (tool_opts__parse_secs(arg, &ro->since))
			return "--since wants seconds, not";
		break;
	case OPT_UNTIL:
		if (tool_opts__parse_secs(arg, &ro->until))
			return "--until wants seconds, not";
		break;
	}
	return NULL;
}

const struct tool_cmdline report_cmdline = {
	.tool = TOOL,
	.opt = report_opt,
	.accepts = TOOL_OPT_NO_SHARED | TOOL_OPT_NO_OUTPUT,
	.options = report_options,
	.text = {
		.args = "TOOL [TOOL OPTIONS] | script | timeline | diff OLD | pprof | info",
		.args_help =
		"TOOL\tleak, heap, faults, ffaults, brk, mmap, oom, cache, cachetop, reclaim, swapin, "
		"shm, slab, compact, with that tool's options: its report; flamegraph -o FILE: a flame "
		"graph page\n"
		"script\tevery sample, as perf script prints it\n"
		"timeline\tper process and interval: outstanding bytes, pages touched, faults, "
		"reclaim, swap-ins, OOM kill and exit\n"
		"diff OLD\tthe heap's changes by stack from recording OLD to this one (leaked, peak "
		"bytes, calls); --fail-on-increase BYTES\n"
		"pprof -o FILE\ta gzipped profile.proto for go tool pprof: the heap (alloc/inuse "
		"objects and space) or, --faults, faults\n"
		"info\tthe recording's metadata, events and totals\n",
	},
};

/* ---- the replay every subcommand runs ---- */

int report_replay(const struct replay_opts *ro,
		  int (*add)(struct session *s, void *ctx, struct errbuf *eb), void *ctx,
		  struct session **s, struct errbuf *eb)
{
	int err = session__new_replay(&(struct session_opts){ 0 }, ro, s, eb);

	if (err) {
		*s = NULL;
		return err;
	}
	err = add ? add(*s, ctx, eb) : 0;
	return err ? err : session__run(*s, eb);
}

/* ---- info ---- */

/* Each tool's rung as record chose it (META rung.LADDER), with what it
 * loses: what a live run would have said falling back to it; not for a
 * tool record left out after choosing (a rung that reads /proc). */
static void info_rungs(const struct session *s)
{
	const struct ladder *all[64];
	size_t n = commands__ladders(all, 64);

	for (size_t i = 0; i < n && i < 64; i++) {
		const struct rung *r = NULL;
		const char *key;
		char meta[80];

		snprintf(meta, sizeof(meta), "left_out.%s", all[i]->tool);
		if (session__meta(s, meta))
			continue;
		snprintf(meta, sizeof(meta), "rung.%s", all[i]->tool);
		key = session__meta(s, meta);
		if (!key)
			continue;
		for (size_t k = 0; k < all[i]->n && !r; k++)
			if (ladder__is(key, all[i]->rungs[k].key))
				r = &all[i]->rungs[k];
		printf("%-12s %s: %s", "rung", all[i]->tool, r ? r->label : key);
		if (r && r->loses[0])
			printf(" (loses: %s)", r->loses);
		putchar('\n');
	}
}

/* The tools of record's default list it left out, and why (cmd-record.c). */
static void info_left_out(const struct session *s)
{
	char names[512], *save = NULL;

	commands__list(TOOL_RECORDS, names, sizeof(names));
	for (char *t = strtok_r(names, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char meta[80];
		const char *why;

		snprintf(meta, sizeof(meta), "left_out.%s", t);
		why = session__meta(s, meta);
		if (why)
			printf("%-12s %s: %s\n", "left out", t, why);
	}
}

/* What the recording says of itself, before its events: META lines. */
static int info_head(struct session *s, void *ctx, struct errbuf *eb)
{
	static const char *const keys[] = {
		"kernel", "machine", "hostname", "faultline", "target", "target_pid", "command",
		"call_graph", "tools",
	};

	(void)ctx;
	(void)eb;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (session__meta(s, keys[i]))
			printf("%-12s %s\n", keys[i], session__meta(s, keys[i]));
	info_rungs(s);
	info_left_out(s);
	return 0;
}

static int info(const struct replay_opts *ro, int argc, char **argv)
{
	struct errbuf eb = { "" };
	struct session *s = NULL;
	int err;

	(void)argc;
	(void)argv;
	err = report_replay(ro, info_head, NULL, &s, &eb);
	if (!s)
		return tool__fail(TOOL, &eb, err);
	/* After the run: the events defined as it went on too. */
	for (size_t i = 0; i < session__recorded_events(s); i++) {
		unsigned int flags = 0;
		const char *name = session__recorded_event(s, i, &flags);

		printf("event        %s%s%s%s\n", name, flags & SESSION_USER_STACK ? " +ustack" : "",
		       flags & SESSION_KERNEL_STACK ? " +kstack" : "",
		       flags & SESSION_SAMPLE_ADDR ? " +addr" : "");
	}
	if (!err) {
		uint64_t ns, pauses = session__pauses(s, &ns);

		printf("totals       %" PRIu64 " samples, %" PRIu64 " lost, %u stacks",
		       session__samples(s), session__lost(s),
		       stackdb__count(session__stackdb(s)));
		if (pauses)
			printf(", %" PRIu64 " pause%s (%.3f ms)", pauses, pauses == 1 ? "" : "s",
			       (double)ns / 1e6);
		putchar('\n');
	}
	session__free(s);
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
}

/* ---- script ---- */

struct script_ev {
	struct session *s;
	const char *name;
	struct tp_event *tev;
	unsigned int flags;
};

static void print_frames(struct session *s, pid_t pid, const struct sample *smp, bool user)
{
	uint32_t id = 0, nr = 0;
	const uint64_t *ips;
	int err = user ? session__user_stack(s, smp, &id) : session__kernel_stack(s, smp, &id);

	if (err)
		return;
	ips = stackdb__get(session__stackdb(s), id, &nr);
	for (uint32_t i = 0; i < nr; i++) {
		struct sym_result res = { 0 };

		if (user)
			symbolizer__user(session__symbolizer(s), session__addrspaces(s), pid, ips[i],
					 &res);
		else
			symbolizer__kernel(session__symbolizer(s), ips[i], &res);
		if (res.func)
			printf("\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", ips[i], res.func, res.offset,
			       res.module ? res.module : "[unknown]");
		else
			printf("\t%16" PRIx64 " [unknown] (%s)\n", ips[i],
			       res.module ? res.module : "[unknown]");
	}
}

static void on_script_sample(struct session *s, const struct sample *smp, void *ctx)
{
	const struct script_ev *e = ctx;
	uint64_t t = smp->time;
	char fields[1024] = "";

	if (e->tev)
		tp_event__print_fields(e->tev, smp->raw, smp->raw_size, fields, sizeof(fields));
	else if (e->flags & SESSION_SAMPLE_ADDR)
		snprintf(fields, sizeof(fields), "addr=0x%" PRIx64, smp->addr);
	/* perf script's layout; comm first, unpadded on the left, as
	 * stackcollapse-perf.pl's event-line pattern wants. */
	printf("%-16s %6u/%-6u [%03u] %5" PRIu64 ".%06" PRIu64 ": 1 %s: %s\n",
	       session__comm(s, (pid_t)smp->pid), smp->pid, smp->tid, smp->cpu,
	       (uint64_t)(t / 1000000000U), (uint64_t)(t % 1000000000U / 1000), e->name, fields);
	if (e->flags & SESSION_KERNEL_STACK)
		print_frames(s, (pid_t)smp->pid, smp, false);
	if (e->flags & SESSION_USER_STACK)
		print_frames(s, (pid_t)smp->pid, smp, true);
	printf("\n");
	tool__event_done();
}

/* The events script prints: one each, added as the recording defines
 * them (most at its start; an allocator's probes once the run went on). */
struct script {
	struct session *s;
	struct script_ev **evs;
	size_t n;
	int err;
};

static int script_add(struct script *sc, size_t i, struct errbuf *eb)
{
	struct script_ev **nv = realloc(sc->evs, (sc->n + 1) * sizeof(*nv)), *e;

	if (!nv)
		return -ENOMEM;
	sc->evs = nv;
	e = nv[sc->n] = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	sc->n++;
	e->s = sc->s;
	e->name = session__recorded_event(sc->s, i, &e->flags);
	return session__add_recorded(sc->s, i, on_script_sample, e, &e->tev, eb);
}

static void on_script_event(struct session *s, size_t i, void *ctx)
{
	struct script *sc = ctx;
	struct errbuf eb = { "" };
	int err;

	(void)s;
	err = script_add(sc, i, &eb);
	if (err && !sc->err) {
		sc->err = err;
		fprintf(stderr, "faultline " TOOL ": %s\n", errbuf__str(&eb, err));
		session__stop(s);
	}
}

/* Every event the recording defined at its start; the rest as it does. */
static int script_events(struct session *s, void *ctx, struct errbuf *eb)
{
	struct script *sc = ctx;
	size_t n = session__recorded_events(s);
	int err = 0;

	sc->s = s;
	for (size_t i = 0; i < n && !err; i++)
		err = script_add(sc, i, eb);
	if (!err)
		err = session__add_consumer(s, &(struct session_consumer){ .event = on_script_event,
								   .ctx = sc });
	return err;
}

static int script(const struct replay_opts *ro, int argc, char **argv)
{
	struct errbuf eb = { "" };
	struct script sc = { 0 };
	int err;

	(void)argc;
	(void)argv;
	err = report_replay(ro, script_events, &sc, &sc.s, &eb);
	if (!err && sc.err)
		err = sc.err;
	if (sc.s)
		fflush(stdout);
	session__free(sc.s);
	for (size_t i = 0; i < sc.n; i++)
		free(sc.evs[i]);
	free(sc.evs);
	if (err && sc.err == err)
		return EXIT_FAIL;	/* said already */
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
}

/* ---- a tool ---- */

static int tool(const struct replay_opts *ro, bool help_only, int argc, char **argv)
{
	const struct command *c = commands__find(argv[0]);
	struct tool_mode mode = { .replay = ro };
	struct errbuf eb = { "" };
	struct session *s = NULL;
	char *command = NULL;
	int err, ret;

	if (c && command__why_not(c)) {
		fprintf(stderr, "faultline " TOOL ": no report from a recording for '%s': %s\n",
			argv[0], command__why_not(c));
		return EXIT_USAGE;
	}
	if (!c || !(command__flags(c) & TOOL_REPLAYS))
		return tool__usage_error(TOOL, "no report from a recording for", argv[0]);
	/* The recorded target, for the tool's default (not for its -h alone). */
	if (!help_only) {
		err = session__new_replay(&(struct session_opts){ 0 }, ro, &s, &eb);
		if (err)
			return tool__fail(TOOL, &eb, err);
		mode.target_pid = session__target_pid(s);
		if (session__meta(s, "command") && session__is_cmd(s))
			command = strdup(session__meta(s, "command"));
		session__free(s);
	}
	mode.command = command;
	ret = tool__main(c->tool, &mode, argc, argv);
	free(command);
	return ret;
}

/* report's own subcommands; any other name is a tool's (the command table). */
struct report_sub {
	const char *name;
	bool no_options;	/* not even -h: info and script */
	int (*run)(const struct replay_opts *ro, int argc, char **argv);
	const struct tool_cmdline *cmdline;	/* its options; NULL: none */
};

static const struct report_sub subs[] = {
	{ "info", true, info, NULL },
	{ "script", true, script, NULL },
	{ "timeline", false, report_timeline, &timeline_cmdline },
	{ "diff", false, report_diff, &diff_cmdline },
	{ "pprof", false, report_pprof, &pprof_cmdline },
};

const struct tool_cmdline *report__sub_cmdline(size_t i, bool *more)
{
	size_t n = sizeof(subs) / sizeof(subs[0]);

	*more = i + 1 < n;
	return i < n ? subs[i].cmdline : NULL;
}

static const struct report_sub *find_sub(const char *name)
{
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(subs[i].name, name))
			return &subs[i];
	return NULL;
}

/* A replay's caveat (replay_opts.warn), after what is printed already. */
static void warn(void *ctx, const char *msg)
{
	(void)ctx;
	fflush(stdout);
	fprintf(stderr, "faultline " TOOL ": warning: %s\n", msg);
}

int cmd_report(int argc, char **argv)
{
	struct option longopts[OPT_TABLE_MAX + 1];
	char shortopts[3 * OPT_TABLE_MAX + 2];
	struct replay_opts ro = { .warn = warn };
	const struct report_sub *sub;
	const char *msg;
	struct opt_table t;
	struct opt_text x;
	bool help_only;
	int c, i;

	/* The options before the tool's name are report's; the rest are the
	 * tool's own. */
	c = tool_cmdline__plain(&report_cmdline, &t, &x, shortopts, longopts, argc, argv);
	if (c)
		return c > 0 ? EXIT_OK : EXIT_FAIL;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		i = opt_table__row_of(&t, c);
		if (i < 0)
			return tool__bad_option(TOOL, argv);
		if (t.shared[i]) {
			opt_table__help(&t, &x, stdout);
			return EXIT_OK;
		}
		msg = report_opt(t.row[i].key, optarg, &ro);
		if (msg)
			return tool__usage_error(TOOL, msg, optarg);
	}
	/* `faultline report SUB -h` (`faultline help report SUB`): SUB's own
	 * help, which needs no recording (-i's is not read), and so its
	 * --list-opts; info and script take no options. */
	sub = optind < argc ? find_sub(argv[optind]) : NULL;
	help_only = argc - optind == 2 && !(sub && sub->no_options) &&
		    (!strcmp(argv[optind + 1], "-h") || !strcmp(argv[optind + 1], "--help") ||
		     !strcmp(argv[optind + 1], "--list-opts"));
	if (!ro.path && !help_only)
		return tool__usage_error(TOOL, "which recording? -i FILE is missing, not", "");
	if (optind >= argc)
		return tool__usage_error(TOOL, "what to report: a tool, script or info; got", "");
	if (ro.until > 0 && ro.until <= ro.since)
		return tool__usage_error(TOOL, "--until must be after --since, not",
					 argv[optind - 1]);
	if (!help_only && tool__check_recording(TOOL, ro.path))
		return EXIT_FAIL;
	if (sub)
		return sub->run(&ro, argc - optind, argv + optind);
	return tool(&ro, help_only, argc - optind, argv + optind);
}
