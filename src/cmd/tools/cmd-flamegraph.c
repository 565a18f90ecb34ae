/*
 * faultline flamegraph: a flame graph as one HTML page, no Perl, no
 * network: from a recording (faultline report -i FILE flamegraph -o
 * out.html) or live (-c CMD, -p PID, as heap traces).
 *
 *   -e leak (the default)  the heap tool's count of the allocator's
 *                          events (heap__profile); the page
 *                          switches between leaked bytes, peak bytes,
 *                          allocations (calls) and temporary allocations
 *                          (heap-flame.c), with the chart of the heap's
 *                          live bytes over the run;
 *   -e faults              a `record -e faults` file: the faults tool's
 *                          own count (its --folded lines, once for every
 *                          fault and once with --major), weighted by
 *                          faults or by major faults.
 * Both tools are composed, not copied: the chosen one's events are added
 * to this session, and the graph is drawn from its count.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/ostream.h"
#include "cmd/out/lost.h"
#include "cmd/tool-shared.h"
#include "cmd/out/flamegraph.h"
#include "cmd/out/heap-flame.h"
#include "agg/heap-profile.h"
#include "lib/errbuf.h"
#include "trace/session.h"
#include "cmd/tool.h"

#define TOOL "flamegraph"

enum { OPT_THRESHOLD = 256 };

struct fg_opts {
	const char *output;
	bool faults;
	unsigned int threshold;
};

struct fg {
	struct tool_opts *o;
	struct fg_opts fo;
	const struct tool *sub;		/* heap_tool (-e leak) or faults_tool */
	void *st;			/* its state */
	struct tool_opts sub_o;		/* its options */
	int out_fd;			/* -o -: stdout, set aside; else -1 */
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

/* ---- the composed tool ---- */

/*
 * The heap tool (-e leak) or the faults tool (-e faults), set up for the
 * chosen process (-p, -c, or the recorded target): its events
 * are this session's, and the graph is drawn from its count
 * (heap__profile, faults__folded).
 */
static int sub_init(struct fg *g, const struct tool_mode *mode)
{
	char *argv[8], num[16], pid[16];
	int argc = 0;

	g->sub = g->fo.faults ? &faults_tool : &heap_tool;
	/* The heap tool's lines (what it probes) name this command. */
	argv[argc++] = g->fo.faults ? (char *)g->sub->name : TOOL;
	if (g->fo.faults) {
		argv[argc++] = "--folded";
		if (g->o->srcline)
			argv[argc++] = "--srcline";
	} else {
		snprintf(num, sizeof(num), "%u", g->fo.threshold);
		argv[argc++] = "--temporary-allocation-threshold";
		argv[argc++] = num;
	}
	if (g->o->sess.pid) {
		snprintf(pid, sizeof(pid), "%d", (int)g->o->sess.pid);
		argv[argc++] = "-p";
		argv[argc++] = pid;
	} else if (g->o->sess.cmd && !tool__replaying(g->o)) {
		argv[argc++] = "-c";
		argv[argc++] = (char *)g->o->sess.cmd;
	}
	argv[argc] = NULL;
	g->st = calloc(1, g->sub->size);
	if (!g->st)
		return -ENOMEM;
	return g->sub->init(g->st, &g->sub_o, mode, argc, argv);
}

/* ---- -e leak ---- */

static int heap_graph(struct fg *g, struct session *s)
{
	struct errbuf eb = { "" };
	struct heap_profile *hp;
	char title[512];
	int err;

	err = heap__profile(g->st, &hp);
	if (err)
		return tool__fail(TOOL, NULL, err);
	if (session__lost(s))
		lost__warn(s, TOOL, session__lost(s), "allocations and frees were missed, the graph "
			   "is short of what happened");
	snprintf(title, sizeof(title), "faultline heap: %s",
		 session__meta(s, "command") ? session__meta(s, "command") :
		 g->o->sess.cmd ? g->o->sess.cmd : "allocations");
	err = heap_flame__write(s, hp, g->o->srcline, title, g->fo.output, g->out_fd, &eb);
	g->out_fd = -1;
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
}

/* ---- -e faults ---- */

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
	err = faults__folded(g->st, s, major, mem);
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
		{ "faults", NULL, "faults", "faults",
		  "page faults: every fault, minor and major, at its stack" },
		{ "major", NULL, "major faults", "faults",
		  "major page faults: the faults that waited for a read (from a file or swap)" },
	};
	struct flamegraph *fg = NULL;
	struct errbuf eb = { "" };
	struct ostream *os = NULL;
	int err;

	if (session__lost(s))
		lost__warn(s, TOOL, session__lost(s), "page faults were missed, the graph is short "
			   "of what happened");
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
	err = tool__output_open(g->fo.output, g->out_fd, &os, &eb);
	g->out_fd = -1;
	if (!err)
		err = tool__output_close(g->fo.output, os, flamegraph__write(fg, ostream__file(os)),
					 &eb);
out:
	flamegraph__free(fg);
	return err ? tool__fail(TOOL, &eb, err) : EXIT_OK;
}

/* ---- the tool ---- */

static const struct tool_option fg_options[] = {
	{ .to = TOOL_OPTION_CALL, .letter = 'o', .name = "output", .arg = "FILE", .key = 'o',
	  .flags = TOOL_OPTION_REQUIRED,
	  .help = "the page to write (- for stdout; the command's own output then goes to stderr)" },
	OPT_CALL('e', "event", "leak|faults", 'e',
		 "leak (default): allocations, weighted by leaked bytes, peak bytes, allocations or "
		 "temporary allocations; faults: page faults by stack, all or major (from a "
		 "faultline record -e faults file)"),
	OPT_CALL(0, "temporary-allocation-threshold", "N", OPT_THRESHOLD,
		 "temporary: freed before N more allocations (as heap)"),
	OPT_END,
};

static const struct tool_cmdline flamegraph_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_ALL | TOOL_OPT_NO_JSON,
	.options = fg_options,
	.text = {
		.also = "faultline report -i FILE flamegraph -o FILE [options]",
		.intro = "A flame graph in one HTML file (script and data inline, no network): a\n"
			 "button switches its weight, a click zooms on a frame, a search box\n"
			 "highlights the frames it matches, the graph turns into an icicle or\n"
			 "bottom-up (the allocating functions at the root), a legend says what\n"
			 "width and colour mean, and a chart under it draws the heap's live bytes\n"
			 "over the run, its peak marked (heap's).\n\n",
	},
	.opt = fg_opt,
};

static int fg_init(void *ctx, struct tool_opts *o, const struct tool_mode *mode, int argc, char **argv)
{
	struct fg *g = ctx;
	int ret;

	g->fo.threshold = 1;
	g->out_fd = -1;
	ret = tool_opts__parse_cmdline(o, mode, &flamegraph_cmdline, &g->fo, argc, argv);
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
	if (!g->fo.faults && !o->sess.pid && !o->sess.cmd && !tool__replaying(o)) {
		fprintf(stderr, "faultline " TOOL ": which program? -p PID or -c CMD\n");
		return -EINVAL;
	}
	/* -o -: the page goes to stdout, and from now on nothing else does. */
	if (!strcmp(g->fo.output, "-")) {
		g->out_fd = tool__stdout_aside();
		if (g->out_fd < 0) {
			fprintf(stderr, "faultline " TOOL ": cannot write to stdout: %s\n",
				strerror(-g->out_fd));
			return TOOL_INIT_FAILED;
		}
	}
	return sub_init(g, mode);
}

static void fg_variant(const void *ctx, const struct ladder **ladder, const char **what)
{
	(void)what;
	*ladder = ((const struct fg *)ctx)->fo.faults ? &faults_ladder : &leak_ladder;
}

static int fg_add_events(void *ctx, struct session *s, const char *rung, const char *label,
			 struct errbuf *eb)
{
	struct fg *g = ctx;

	return g->sub->add_events(g->st, s, rung, label, eb);
}

static int fg_report(void *ctx, struct session *s)
{
	struct fg *g = ctx;

	return g->fo.faults ? faults_graph(g, s) : heap_graph(g, s);
}

static void fg_fini(void *ctx)
{
	struct fg *g = ctx;

	if (g->st && g->sub->fini)
		g->sub->fini(g->st);
	free(g->st);
	if (g->out_fd > STDERR_FILENO)	/* never written: the run failed */
		close(g->out_fd);
}

const struct tool flamegraph_tool = {
	.cmdline = &flamegraph_cmdline,
	.name = TOOL,
	.ladder = &leak_ladder,
	.other_ladder = &faults_ladder,
	.what = "allocations",
	.flags = TOOL_REPLAYS,
	.size = sizeof(struct fg),
	.init = fg_init,
	.variant = fg_variant,
	.add_events = fg_add_events,
	.report = fg_report,
	.fini = fg_fini,
};
