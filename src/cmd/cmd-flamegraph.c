/*
 * faultline flamegraph: a flame graph as one HTML page, no Perl, no
 * network: from a recording (faultline report -i FILE flamegraph -o
 * out.html) or live (-c CMD, -p PID, as heap traces).
 *
 *   -e leak (the default)  the allocator's events, counted by
 *                          heap-profile.c as `heap` counts them; the page
 *                          switches between leaked bytes, peak bytes,
 *                          allocations (calls) and temporary allocations
 *                          (heap-flame.c);
 *   -e faults              a `record -e faults` file: the faults tool's
 *                          own count (its --folded lines, once for every
 *                          fault and once with --major), weighted by
 *                          faults or by major faults.
 * The faults tool is composed, not copied: its events are added to this
 * session, and its one count gives both weights (faults__folded).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/alloc-trace.h"
#include "cmd/commands.h"
#include "cmd/flamegraph.h"
#include "cmd/heap-flame.h"
#include "agg/heap-profile.h"
#include "lib/errbuf.h"
#include "trace/session.h"
#include "cmd/tool.h"

#define TOOL "flamegraph"

static const char usage[] =
	"faultline flamegraph -o FILE [-e leak | -e faults] [-p PID | -c CMD]\n"
	"                      [--temporary-allocation-threshold N] [STACK OPTIONS] [-m PAGES]\n"
	"                      [duration]\n"
	"       faultline report -i FILE flamegraph -o FILE [options]";

static const char help[] =
	"A flame graph in one HTML file (script and data inline, no network): a\n"
	"button switches its weight, a click zooms on a frame, a search box\n"
	"highlights the frames it matches, and the graph turns into an icicle.\n"
	"\n"
	"  -o, --output FILE     the page to write\n"
	"  -e, --event leak|faults\n"
	"                        leak (default): allocations, weighted by leaked\n"
	"                        bytes, peak bytes, allocations or temporary\n"
	"                        allocations; faults: page faults by stack, all or\n"
	"                        major (from a faultline record -e faults file)\n"
	"  --temporary-allocation-threshold N\n"
	"                        temporary: freed before N more allocations (as heap)\n"
	TOOL_OPTS_HELP
	TOOL_OPTS_STACK_HELP;

enum { OPT_THRESHOLD = 256 };

struct fg_opts {
	const char *output;
	bool faults;
	unsigned int threshold;
};

struct fg {
	struct tool_opts *o;
	struct fg_opts fo;
	struct heap_profile *hp;	/* -e leak */
	struct alloc_trace *at;
	struct tool_opts faults_o;	/* -e faults: the faults tool's state */
	void *faults;
};

static const char *fg_opt(int c, const char *arg, void *ctx)
{
	struct fg_opts *fo = ctx;
	char *end;
	unsigned long n;

	switch (c) {
	case 'o':
		fo->output = arg;
		return NULL;
	case 'e':
		if (!strcmp(arg, "faults"))
			fo->faults = true;
		else if (strcmp(arg, "leak"))
			return "-e is leak or faults, not";
		return NULL;
	case OPT_THRESHOLD:
		errno = 0;
		n = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || !n || n > INT_MAX)
			return "--temporary-allocation-threshold wants a number of allocations, not";
		fo->threshold = (unsigned int)n;
		return NULL;
	}
	return "unknown option";
}

/* ---- -e leak ---- */

static int leak_events(struct fg *g, struct session *s, struct errbuf *eb)
{
	int err;

	/* libc's malloc family: another allocator's graph is leak
	 * --flamegraph's, with leak's -O. */
	err = alloc_trace__new(s, &(struct alloc_trace_opts){ 0 },
			       &(struct alloc_trace_hooks){ .made = heap_profile__made,
							    .freed = heap_profile__freed, .ctx = g->hp },
			       &g->at, eb);
	if (!err && alloc_trace__warning(g->at))
		fprintf(stderr, "faultline " TOOL ": warning: %s\n", alloc_trace__warning(g->at));
	return err;
}

static int heap_graph(struct fg *g, struct session *s)
{
	struct errbuf eb = { "" };
	char title[512];
	int err;

	err = heap_profile__error(g->hp);
	if (!err)
		err = alloc_trace__error(g->at);
	if (err)
		return tool__fail(TOOL, NULL, err);
	if (session__lost(s))
		fprintf(stderr, "faultline " TOOL ": warning: lost %llu events: allocations and frees "
			"were missed, the graph is short of what happened\n",
			(unsigned long long)session__lost(s));
	snprintf(title, sizeof(title), "faultline heap: %s",
		 session__meta(s, "command") ? session__meta(s, "command") :
		 g->o->sess.cmd ? g->o->sess.cmd : "allocations");
	err = heap_flame__write(s, g->hp, g->o->srcline, title, g->fo.output, &eb);
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
}

/* ---- -e faults ---- */

/* The faults tool, set up to count by stack for the chosen process (-p,
 * or the recorded target) or every one: its events are this session's,
 * and both weights come from its one count. */
static int faults_init(struct fg *g, const struct tool_mode *mode)
{
	char *argv[8] = { "faults", "--folded" }, pid[16];
	int argc = 2;

	if (g->o->srcline)
		argv[argc++] = "--srcline";
	if (g->o->all) {
		argv[argc++] = "-a";
	} else if (g->o->sess.pid) {
		snprintf(pid, sizeof(pid), "%d", (int)g->o->sess.pid);
		argv[argc++] = "-p";
		argv[argc++] = pid;
	}
	g->faults = calloc(1, faults_tool.size);
	if (!g->faults)
		return -ENOMEM;
	return faults_tool.init(g->faults, &g->faults_o, mode, argc, argv);
}

/* Weight @w of @fg from the faults tool's folded stacks. */
static int faults_into(struct fg *g, struct session *s, struct flamegraph *fg, bool major,
		       size_t w, struct errbuf *eb)
{
	char *text = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	int err;

	if (!mem)
		return errbuf__set(eb, -errno, "out of memory");
	err = faults__folded(g->faults, s, major, mem);
	if (fclose(mem) && !err)
		err = -errno;
	if (err) {
		free(text);
		return errbuf__set(eb, err, "the faults count: %s", strerror(-err));
	}
	for (line = strtok_r(text, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		err = flamegraph__add_line(fg, line, w, eb);
	free(text);
	return err;
}

static int faults_graph(struct fg *g, struct session *s)
{
	static const struct flamegraph_weight weights[] = {
		{ "faults", NULL, "faults", "faults" },
		{ "major", NULL, "major faults", "faults" },
	};
	struct flamegraph *fg = NULL;
	struct errbuf eb = { "" };
	FILE *out = NULL;
	int err;

	if (session__lost(s))
		fprintf(stderr, "faultline " TOOL ": warning: lost %llu events: page faults were "
			"missed, the graph is short of what happened\n",
			(unsigned long long)session__lost(s));
	err = flamegraph__new("faultline faults", weights, 2, &fg);
	if (err) {
		errbuf__set(&eb, err, "out of memory");
		goto out;
	}
	err = faults_into(g, s, fg, false, 0, &eb);
	if (!err)
		err = faults_into(g, s, fg, true, 1, &eb);
	if (err)
		goto out;
	out = fopen(g->fo.output, "w");
	err = out ? flamegraph__write(fg, out) : -errno;
	if (out && fclose(out) && !err)
		err = -errno;
	if (err)
		errbuf__set(&eb, err, "cannot write '%s': %s", g->fo.output, strerror(-err));
out:
	flamegraph__free(fg);
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
}

/* ---- the tool ---- */

static int fg_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "temporary-allocation-threshold", required_argument, NULL, OPT_THRESHOLD },
		{ NULL, 0, NULL, 0 },
	};
	struct fg *g = ctx;
	struct tool_extra extra = { "o:e:", longopts, fg_opt, NULL, &g->fo };
	int ret;

	g->fo.threshold = 1;
	ret = tool_opts__parse_ext(o, mode, TOOL, 0, usage, help, &extra, argc, argv);
	if (ret)
		return ret;
	g->o = o;
	if (!g->fo.output) {
		fprintf(stderr, "faultline " TOOL ": where to? -o FILE is missing\n");
		return -EINVAL;
	}
	if (g->fo.faults && !tool__replaying(o)) {
		fprintf(stderr, "faultline " TOOL ": -e faults reads a recording: faultline record -e "
			"faults, then faultline report -i FILE flamegraph -e faults\n");
		return -EINVAL;
	}
	if (g->fo.faults)
		return faults_init(g, mode);
	if (!o->sess.pid && !o->sess.cmd && !tool__replaying(o)) {
		fprintf(stderr, "faultline " TOOL ": which program? -p PID or -c CMD\n");
		return -EINVAL;
	}
	return heap_profile__new(g->fo.threshold, &g->hp);
}

static void fg_variant(const void *ctx, const char **ladder, const char **what)
{
	(void)what;
	*ladder = ((const struct fg *)ctx)->fo.faults ? "faults" : "leak";
}

static int fg_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			 struct errbuf *eb)
{
	struct fg *g = ctx;

	if (g->fo.faults)
		return faults_tool.add_events(g->faults, s, rung, label, eb);
	return leak_events(g, s, eb);
}

static int fg_report(void *ctx, struct session *s)
{
	struct fg *g = ctx;

	return g->fo.faults ? faults_graph(g, s) : heap_graph(g, s);
}

static void fg_fini(void *ctx)
{
	struct fg *g = ctx;

	if (g->faults)
		faults_tool.fini(g->faults);
	free(g->faults);
	alloc_trace__free(g->at);
	heap_profile__free(g->hp);
}

const struct tool flamegraph_tool = {
	.name = TOOL,
	.what = "allocations",
	.flags = TOOL_REPLAYS,
	.size = sizeof(struct fg),
	.init = fg_init,
	.variant = fg_variant,
	.add_events = fg_add_events,
	.report = fg_report,
	.fini = fg_fini,
};
