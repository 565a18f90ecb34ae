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
 * The faults tool is run, not copied: its output is read back from a
 * temporary file standing in for stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/alloc-trace.h"
#include "cmd/commands.h"
#include "cmd/flamegraph.h"
#include "cmd/heap-flame.h"
#include "agg/heap-profile.h"
#include "lib/errbuf.h"
#include "trace/session.h"
#include "cmd/tool-opts.h"

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
	struct tool_opts o;
	struct fg_opts fo;
	struct heap_profile *hp;
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

static int heap_graph(struct fg *g)
{
	struct alloc_trace *at = NULL;
	struct session *s = NULL;
	struct errbuf eb = { "" };
	const char *rung, *label;
	char title[512];
	int ret = EXIT_FAIL, err;

	if (heap_profile__new(g->fo.threshold, &g->hp)) {
		fprintf(stderr, "faultline " TOOL ": out of memory\n");
		goto out;
	}
	s = tool__start(&g->o, "leak", &rung, &label);
	if (!s)
		goto out;
	/* libc's malloc family: another allocator's graph is leak
	 * --flamegraph's, with leak's -O. */
	err = alloc_trace__new(s, &(struct alloc_trace_opts){ 0 },
			       &(struct alloc_trace_hooks){ .made = heap_profile__made,
							    .freed = heap_profile__freed, .ctx = g->hp },
			       &at, &eb);
	if (err) {
		ret = tool__fail(TOOL, &eb, err);
		goto out;
	}
	if (alloc_trace__warning(at))
		fprintf(stderr, "faultline " TOOL ": warning: %s\n", alloc_trace__warning(at));
	if (tool__run(s, &g->o, TOOL, "allocations", label))
		goto out;
	err = heap_profile__error(g->hp);
	if (!err)
		err = alloc_trace__error(at);
	if (err) {
		ret = tool__fail(TOOL, NULL, err);
		goto out;
	}
	if (session__lost(s))
		fprintf(stderr, "faultline " TOOL ": warning: lost %llu events: allocations and frees "
			"were missed, the graph is short of what happened\n",
			(unsigned long long)session__lost(s));
	snprintf(title, sizeof(title), "faultline heap: %s",
		 session__meta(s, "command") ? session__meta(s, "command") :
		 g->o.sess.cmd ? g->o.sess.cmd : "allocations");
	err = heap_flame__write(s, g->hp, g->o.srcline, title, g->fo.output, &eb);
	if (err) {
		ret = tool__fail(TOOL, &eb, err);
		goto out;
	}
	ret = EXIT_OK;
out:
	alloc_trace__free(at);
	session__free(s);
	heap_profile__free(g->hp);
	return ret;
}

/* ---- -e faults ---- */

/* Run the faults tool with @extra (or none) and add its folded lines to
 * weight @w of @fg. */
static int faults_into(struct fg *g, struct flamegraph *fg, const char *extra, size_t w)
{
	char *argv[8] = { "faults", "--folded" }, pid[16];
	int argc = 2, saved = -1, ret = EXIT_FAIL, err;
	struct errbuf eb = { "" };
	char *line = NULL;
	size_t cap = 0;
	FILE *tmp;

	if (extra)
		argv[argc++] = (char *)extra;
	if (g->o.srcline)
		argv[argc++] = "--srcline";
	/* The process chosen (-p, or the recorded target), or every one. */
	if (g->o.all) {
		argv[argc++] = "-a";
	} else if (g->o.sess.pid) {
		snprintf(pid, sizeof(pid), "%d", (int)g->o.sess.pid);
		argv[argc++] = "-p";
		argv[argc++] = pid;
	}
	tmp = tmpfile();
	if (!tmp) {
		fprintf(stderr, "faultline " TOOL ": no temporary file: %s\n", strerror(errno));
		return EXIT_FAIL;
	}
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		fprintf(stderr, "faultline " TOOL ": cannot redirect the faults report: %s\n",
			strerror(errno));
		goto out;
	}
	ret = cmd_faults(g->o.mode, argc, argv);
	fflush(stdout);
	if (dup2(saved, STDOUT_FILENO) < 0) {
		ret = EXIT_FAIL;
		goto out;
	}
	if (ret != EXIT_OK)
		goto out;
	rewind(tmp);
	while (getline(&line, &cap, tmp) > 0) {
		err = flamegraph__add_line(fg, line, w, &eb);
		if (err) {
			ret = tool__fail(TOOL, &eb, err);
			break;
		}
	}
out:
	if (saved >= 0)
		close(saved);
	free(line);
	fclose(tmp);
	return ret;
}

static int faults_graph(struct fg *g)
{
	static const struct flamegraph_weight weights[] = {
		{ "faults", NULL, "faults", "faults" },
		{ "major", NULL, "major faults", "faults" },
	};
	struct flamegraph *fg = NULL;
	struct errbuf eb = { "" };
	FILE *out = NULL;
	int ret, err;

	if (!tool__replaying(&g->o)) {
		fprintf(stderr, "faultline " TOOL ": -e faults reads a recording: faultline record -e "
			"faults, then faultline report -i FILE flamegraph -e faults\n");
		return EXIT_USAGE;
	}
	if (flamegraph__new("faultline faults", weights, 2, &fg)) {
		fprintf(stderr, "faultline " TOOL ": out of memory\n");
		return EXIT_FAIL;
	}
	ret = faults_into(g, fg, NULL, 0);
	if (ret == EXIT_OK)
		ret = faults_into(g, fg, "--major", 1);
	if (ret != EXIT_OK)
		goto out;
	out = fopen(g->fo.output, "w");
	err = out ? flamegraph__write(fg, out) : -errno;
	if (out && fclose(out) && !err)
		err = -errno;
	if (err) {
		errbuf__set(&eb, err, "cannot write '%s': %s", g->fo.output, strerror(-err));
		ret = tool__fail(TOOL, &eb, err);
	}
out:
	flamegraph__free(fg);
	return ret;
}

int cmd_flamegraph(struct tool_mode *mode, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "temporary-allocation-threshold", required_argument, NULL, OPT_THRESHOLD },
		{ NULL, 0, NULL, 0 },
	};
	struct fg g = { .fo = { .threshold = 1 } };
	struct tool_extra extra = { "o:e:", longopts, fg_opt, NULL, &g.fo };
	int ret;

	ret = tool_opts__parse_ext(&g.o, mode, TOOL, 0, usage, help, &extra, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (!g.fo.output) {
		fprintf(stderr, "faultline " TOOL ": where to? -o FILE is missing\n");
		return EXIT_USAGE;
	}
	if (g.fo.faults)
		return faults_graph(&g);
	if (!g.o.sess.pid && !g.o.sess.cmd && !tool__replaying(&g.o)) {
		fprintf(stderr, "faultline " TOOL ": which program? -p PID or -c CMD\n");
		return EXIT_USAGE;
	}
	return heap_graph(&g);
}
