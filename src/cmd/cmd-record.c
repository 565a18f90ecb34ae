/*
 * faultline record: capture what the memory tools see, once, to a file
 * that `faultline report` answers every tool's question from.
 *
 * One session for all the tools asked for: each tool's own command runs
 * in setup mode (a tool_mode lending it the session), choosing its rung on this kernel and
 * adding its events to the shared session exactly as it would live; then
 * the session runs, writing every sample (with the stacks the events ask
 * for, unwound now), the processes and their mappings with build-ids, and
 * the totals to the recording (recorder.c, recfile.c).  No tool's
 * handler runs while recording: report replays the events into them.
 *
 * Without -e, record takes every tool that can serve the target on this
 * kernel, and one that cannot (cache for a -p/-c target: it counts the
 * page cache system-wide) is left out without a word on stderr, as perf
 * record falls back from a default event it cannot open (the "cycles not
 * supported" note is perf's -v only): the user named no such tool, and
 * the last line lists the tools recorded.  The tool's own lines go to a
 * temporary file while it is set up; -v prints them, the recording keeps
 * them (META left_out.TOOL): report info lists them, and report TOOL
 * says them when asked for that tool.  A tool named by -e that cannot
 * be recorded is an error, said as before.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/out/lost.h"
#include "cmd/tool.h"
#include "trace/session.h"
#include "cmd/tool-opts.h"
#include "lib/grow.h"
#include "lib/numfmt.h"

#define TOOL "record"

struct record_opts {
	const char *tools;	/* default: the table's TOOL_RECORD_DEFAULT */
	const char *out;
	bool tools_given, verbose;
	uint64_t flush_ns;
	const char *sample;	/* -s N, for leak */
};

enum { OPT_FLUSH_EVERY = 256 };

static const char *record_opt(int c, const char *arg, void *ctx)
{
	struct record_opts *ro = ctx;

	switch (c) {
	case 'e':
		ro->tools = arg;
		ro->tools_given = true;
		return NULL;
	case 'o':
		ro->out = arg;
		return NULL;
	case 's':
		ro->sample = arg;
		return NULL;
	case 'v':
		ro->verbose = true;
		return NULL;
	case OPT_FLUSH_EVERY:
		return tool_opts__parse_secs_ns(arg, &ro->flush_ns) || ro->flush_ns > 60000000000ULL ?
			"--flush-every wants seconds, at most 60, not" : NULL;
	}
	return "unknown option";
}

/* Every name in @tools is a tool that can be recorded: said before
 * anything is opened, so a mistyped -e leaves no file.  *@samples: one of
 * them takes -s (TOOL_SAMPLES). */
static int check_tools(const char *tools, bool *samples)
{
	const char *p = tools;

	*samples = false;
	if (!*p) {
		fprintf(stderr, "faultline " TOOL ": -e names no tool (see 'faultline record -h')\n");
		return -EINVAL;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		char name[64];
		const struct command *c;

		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), p);
		c = len ? commands__find(name) : NULL;
		if (!c || !(command__flags(c) & TOOL_RECORDS)) {
			if (c && command__why_not(c))
				fprintf(stderr, "faultline " TOOL ": '%s' cannot be recorded: %s\n", name,
					command__why_not(c));
			else
				fprintf(stderr, "faultline " TOOL ": '%s' is not a tool whose events "
					"can be recorded (see 'faultline record -h')\n", name);
			return -EINVAL;
		}
		*samples |= !!(command__flags(c) & TOOL_SAMPLES);
		p += len;
		p += *p == ',';
	}
	return 0;
}

/* The tools set up on the recording session, freed after its run. */
struct recorded_tools {
	struct tool_mode mode;		/* the tools' (they keep a pointer) */
	const char *sample;		/* -s N: leak's */
	struct tool_run **run;
	size_t n, cap;
};

/* Standard error set aside in a temporary file (fd 2 itself: what
 * libraries write goes there too), and put back. */
struct aside {
	FILE *f;
	int saved;
};

static bool aside_start(struct aside *a)
{
	fflush(stderr);
	a->saved = -1;
	a->f = tmpfile();
	if (a->f)
		a->saved = dup(STDERR_FILENO);
	if (a->saved >= 0 && dup2(fileno(a->f), STDERR_FILENO) >= 0)
		return true;
	if (a->saved >= 0)
		close(a->saved);
	if (a->f)
		fclose(a->f);
	a->f = NULL;
	return false;		/* the lines go to stderr as they come */
}

/* Put stderr back; what was written meanwhile into @buf (cut to fit, one
 * line each, without a trailing newline). */
static void aside_end(struct aside *a, char *buf, size_t n)
{
	size_t len;

	buf[0] = '\0';
	if (!a->f)
		return;
	fflush(stderr);
	dup2(a->saved, STDERR_FILENO);
	close(a->saved);
	rewind(a->f);
	len = fread(buf, 1, n - 1, a->f);
	buf[len] = '\0';
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	fclose(a->f);
	a->f = NULL;
}

/* Adds @c's events to the recording session @s, for the recorded target,
 * as the tool's own command line would; 0 when they were added. */
static int setup_tool(struct session *s, const struct tool_opts *o, const struct command *c,
		      struct recorded_tools *rt)
{
	char pid[16], *argv[6] = { (char *)c->name, NULL, NULL, NULL, NULL, NULL };
	int argc = 1;

	if (session__target_pid(s) > 0) {
		snprintf(pid, sizeof(pid), "%d", (int)session__target_pid(s));
		argv[argc++] = "-p";
		argv[argc++] = pid;
	} else if (o->all || (!o->sess.pid && !o->sess.cmd)) {
		argv[argc++] = "-a";
	}
	if (rt->sample && (command__flags(c) & TOOL_SAMPLES)) {
		argv[argc++] = "-s";
		argv[argc++] = (char *)rt->sample;
	}
	if (GROW_FOR(rt->run, rt->cap, rt->n + 1, 8)) {
		fprintf(stderr, "faultline " TOOL ": out of memory\n");
		return -ENOMEM;
	}
	rt->mode.record = s;
	tool__setup(c->tool, &rt->mode, argc, argv, &rt->run[rt->n]);
	return rt->run[rt->n] ? (rt->n++, 0) : -EINVAL;
}

/* @line without its "faultline TOOL: " and then "@name: ": the words
 * of the tool's line, or of record's about it. */
static const char *bare_line(const char *line, const char *name)
{
	const char *p = line, *colon;
	size_t n = strlen(name);

	if (!strncmp(p, "faultline ", 10) && (colon = strstr(p, ": ")) &&
	    !memchr(p + 10, ' ', (size_t)(colon - p - 10)))
		p = colon + 2;
	if (!strncmp(p, name, n) && !strncmp(p + n, ": ", 2))
		p += n + 2;
	return p;
}

/*
 * A tool of the default list (-e not given): its lines set aside while it
 * is set up.  Added, they are said as they would have been; left out,
 * -v says them, and the recording keeps them for report (META
 * left_out.NAME: each line without its "faultline NAME: ", "; "-joined).
 */
static int setup_default(struct session *s, const struct tool_opts *o, const struct command *c,
			 struct recorded_tools *rt, bool verbose)
{
	char said[2048], why[2048], key[80];
	struct aside a;
	bool aside = aside_start(&a);
	int err = setup_tool(s, o, c, rt);
	size_t len = 0;

	aside_end(&a, said, sizeof(said));
	if (said[0] && (!err || verbose))
		fprintf(stderr, "%s\n", said);
	if (!err || !aside)
		return err;
	if (verbose)
		fprintf(stderr, "faultline " TOOL ": '%s' left out (above: why)\n", c->name);
	why[0] = '\0';
	for (char *line = said, *next; *line; line = next) {
		const char *words;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		words = bare_line(line, c->name);
		if (*words && len < sizeof(why))
			len += (size_t)snprintf(why + len, sizeof(why) - len, "%s%s", len ? "; " : "",
						words);
	}
	snprintf(key, sizeof(key), "left_out.%s", c->name);
	session__record_meta(s, key, why[0] ? why : "it could not be set up");
	return err;
}

static const struct tool_option record_options[] = {
	OPT_CALL('e', NULL, "TOOLS", 'e',
		 "comma list of the tools whose events to record: leak, faults, brk, mmap, oom, "
		 "cache, reclaim, swapin (default: all of them that this kernel serves; a tool named "
		 "here that it cannot serve is an error), and shm, slab and compact, recorded only "
		 "when named"),
	OPT_CALL('v', "verbose", NULL, 'v',
		 "say why a tool of the default list was left out (without -v: 'faultline report -i "
		 "FILE info' lists them, with why)"),
	OPT_CALL('o', NULL, "FILE", 'o',
		 "the recording (default faultline.rec; mode 0600; replaced once tracing has started, "
		 "never through a symlink); - for stdout (the command's own output then goes to "
		 "stderr)"),
	OPT_CALL(0, "flush-every", "SECS", OPT_FLUSH_EVERY,
		 "write the records to the file at least this often (default 1, and whenever 1 MiB "
		 "is buffered): what a killed recorder leaves"),
	OPT_CALL('s', "sample-rate", "N", 's',
		 "leak: record every block of 1024 bytes or more and 1 smaller block in N, picked in "
		 "the kernel where it can be (glibc; see faultline-leak(1) -s); report leak and "
		 "report heap read it"),
	OPT_SHARED(TOOL_SHARED_PID, "record this process (all its threads, and threads it creates)"),
	OPT_SHARED(TOOL_SHARED_CMD, "run CMD and record it from its first instruction"),
	OPT_SHARED(TOOL_SHARED_ALL, "record every process (the default without -p and -c)"),
	OPT_SHARED(TOOL_SHARED_MMAP, "ring buffer pages per CPU (power of two)"),
	OPT_SHARED(TOOL_SHARED_CALLGRAPH, "how the user stacks the tools ask for are taken (default "
		   "dwarf,32768: unwound at record time, only the frames are kept)"),
	OPT_END,
};

const struct tool_cmdline record_cmdline = {
	.tool = TOOL,
	.accepts = TOOL_OPT_NO_JSON | TOOL_OPT_NO_SRCLINE | TOOL_OPT_NO_OUTPUT,
	.options = record_options,
	.opt = record_opt,
};

int cmd_record(int argc, char **argv)
{
	struct record_opts ro = { .out = "faultline.rec", .flush_ns = RECORD_FLUSH_NS };
	struct tool_opts o = { 0 };
	struct errbuf eb = { "" };
	struct session *s = NULL;
	struct recorded_tools rt = { .n = 0 };
	char *list = NULL, *save = NULL, *t, recorded[512] = "", defaults[512], pages[16], paused[160];
	char nb[3][NUMFMT_LEN];
	const struct command *c;
	int ret, err, out_fd = -1;
	bool samples;

	commands__list(TOOL_RECORD_DEFAULT, defaults, sizeof(defaults));
	ro.tools = defaults;
	ret = tool_opts__parse_cmdline(&o, NULL, &record_cmdline, &ro, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (check_tools(ro.tools, &samples))
		return EXIT_USAGE;
	rt.sample = ro.sample;
	if (ro.sample && !samples) {
		fprintf(stderr, "faultline " TOOL ": -s samples leak's allocations: not without leak in -e\n");
		return EXIT_USAGE;
	}
	if (!strcmp(ro.out, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "faultline " TOOL ": -o - would write the recording to a terminal: "
			"redirect stdout, or give -o FILE\n");
		return EXIT_USAGE;
	}
	ret = EXIT_FAIL;
	/* -o -: the recording goes to stdout, and nothing else does (the
	 * command's output goes to stderr). */
	if (!strcmp(ro.out, "-")) {
		out_fd = tool__stdout_aside();
		if (out_fd < 0) {
			fprintf(stderr, "faultline " TOOL ": cannot write to stdout: %s\n",
				strerror(-out_fd));
			goto out;
		}
	}
	err = session__new(&o.sess, &s, &eb);
	if (!err)
		tool__perf_note(TOOL, s);
	if (!err)
		err = out_fd >= 0 ? session__record_fd(s, out_fd, "stdout", &eb) :
				    session__record(s, ro.out, &eb);
	if (err) {
		tool__fail(TOOL, &eb, err);
		goto out;
	}
	session__record_flush_every(s, ro.flush_ns);
	list = strdup(ro.tools);
	if (!list) {
		fprintf(stderr, "faultline " TOOL ": out of memory\n");
		goto out;
	}
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		c = commands__find(t);	/* check_tools: one that records */
		if (!ro.tools_given) {
			if (setup_default(s, &o, c, &rt, ro.verbose))
				continue;
		} else if (setup_tool(s, &o, c, &rt)) {
			fprintf(stderr, "faultline " TOOL ": cannot record '%s' (above: why)\n", t);
			goto out;
		}
		snprintf(recorded + strlen(recorded), sizeof(recorded) - strlen(recorded), "%s%s",
			 recorded[0] ? "," : "", t);
	}
	if (!recorded[0]) {
		fprintf(stderr, "faultline " TOOL ": nothing to record%s\n",
			ro.tools_given || ro.verbose ? "" :
			": every tool was left out (faultline record -v says why)");
		goto out;
	}
	session__record_meta(s, "tools", recorded);
	/* For a report's loss warning: what -m to record with next time. */
	snprintf(pages, sizeof(pages), "%u", session__mmap_pages(s));
	session__record_meta(s, "mmap_pages", pages);
	if (tool__run(s, &o, TOOL, "memory events", recorded))
		goto out;
	fprintf(stderr, "faultline " TOOL ": %s samples (%s lost) of %s in %s, %s\n",
		numfmt__count(nb[0], NUMFMT_LEN, session__samples(s)),
		numfmt__count(nb[1], NUMFMT_LEN, session__lost(s)), recorded,
		out_fd >= 0 ? "stdout" : ro.out,
		numfmt__bytes(nb[2], NUMFMT_LEN, session__recorded_bytes(s)));
	if (session__lost(s))
		lost__warn(s, TOOL, session__lost(s), "the recording is short of them, and so is "
			   "every report of it");
	if (lost__paused(s, paused, sizeof(paused)))
		fprintf(stderr, "faultline " TOOL ": %s\n", paused);
	ret = tool__output_status(EXIT_OK);
out:
	ret = tool__exit_status(&o, s, ret);
	free(list);
	while (rt.n)
		tool_run__free(rt.run[--rt.n]);
	free(rt.run);
	session__free(s);
	if (out_fd >= 0)
		close(out_fd);
	return ret;
}
