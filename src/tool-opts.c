/*
 * tool-opts: shared option parsing for the tracing tools.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool-opts.h"

static int bad(const char *tool, const char *usage, const char *what, const char *arg)
{
	(void)usage;
	fprintf(stderr, "faultline %s: %s '%s' (see 'faultline %s -h')\n", tool, what, arg, tool);
	return -EINVAL;
}

static bool power_of_two(unsigned long v)
{
	return v && !(v & (v - 1));
}

int tool_opts__parse(struct tool_opts *o, const char *tool, unsigned int accepts,
		     const char *usage, const char *help, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "command", required_argument, NULL, 'c' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "timestamp", no_argument, NULL, 'T' },
		{ "stacks", no_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, 'f' },
		{ "call-graph", required_argument, NULL, 'G' },
		{ "unwinder", required_argument, NULL, 'U' },
		{ "srcline", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:c:am:Tgh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			long pid;

			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > INT_MAX)
				return bad(tool, usage, "invalid pid", optarg);
			o->sess.pid = (pid_t)pid;
			break;
		}
		case 'c':
			o->sess.cmd = optarg;
			break;
		case 'a':
			o->all = true;
			break;
		case 'm': {
			unsigned long pages;

			errno = 0;
			pages = strtoul(optarg, &end, 10);
			if (errno || *end || !power_of_two(pages) || pages > (1u << 20))
				return bad(tool, usage, "-m wants a power of two number of pages, not",
					   optarg);
			o->sess.mmap_pages = (unsigned int)pages;
			break;
		}
		case 'T':
			if (!(accepts & TOOL_OPT_T))
				return bad(tool, usage, "unknown option", "-T");
			o->timestamps = true;
			break;
		case 'g':
			if (!(accepts & TOOL_OPT_G))
				return bad(tool, usage, "unknown option", "-g");
			o->stacks = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'G': {
			char *comma = strchr(optarg, ',');
			size_t len = comma ? (size_t)(comma - optarg) : strlen(optarg);

			if (len == 2 && !strncmp(optarg, "fp", 2) && !comma) {
				o->sess.callgraph = CALLGRAPH_FP;
			} else if (len == 5 && !strncmp(optarg, "dwarf", 5)) {
				o->sess.callgraph = CALLGRAPH_DWARF;
				if (comma) {
					unsigned long size;

					errno = 0;
					size = strtoul(comma + 1, &end, 0);
					if (errno || *end || size < 8 || size > SESSION_MAX_STACK_SIZE)
						return bad(tool, usage, "--call-graph dwarf,SIZE wants 8 to 65528 bytes, not",
							   comma + 1);
					o->sess.stack_size = (unsigned int)(size + 7) & ~7u;
				}
			} else {
				return bad(tool, usage, "--call-graph is fp or dwarf[,SIZE], not", optarg);
			}
			break;
		}
		case 'S':
			o->srcline = true;
			break;
		case 'U':
			if (strcmp(optarg, "libdw") && strcmp(optarg, "libunwind"))
				return bad(tool, usage, "--unwinder is libdw or libunwind, not", optarg);
			o->sess.unwinder = optarg;
			break;
		case 'f':
			if (!(accepts & TOOL_OPT_FOLDED))
				return bad(tool, usage, "unknown option", "--folded");
			o->folded = true;
			break;
		case 'h':
			printf("usage: %s\n%s", usage, help);
			return 1;
		default:
			return bad(tool, usage, optopt && strchr("pcm", optopt) ?
				   "option needs a value:" : "unknown option", argv[optind - 1]);
		}
	}
	if ((o->sess.pid > 0) + !!o->sess.cmd + o->all > 1)
		return bad(tool, usage, "choose one of -p, -c and -a, not", "several");
	if (o->json && o->folded)
		return bad(tool, usage, "choose one output format, not", "--json and --folded");
	if (optind < argc) {
		double d;

		errno = 0;
		d = strtod(argv[optind], &end);
		if (errno || *end || !(d > 0) || d > 1e7)
			return bad(tool, usage, "invalid duration", argv[optind]);
		o->sess.duration = d;
		optind++;
	}
	if (optind < argc)
		return bad(tool, usage, "unexpected argument", argv[optind]);
	return 0;
}

void tool_opts__describe(const struct tool_opts *o, char *buf, size_t n)
{
	if (o->sess.pid > 0)
		snprintf(buf, n, "PID %d", (int)o->sess.pid);
	else if (o->sess.cmd)
		snprintf(buf, n, "'%s'", o->sess.cmd);
	else
		snprintf(buf, n, "all processes");
}

#include "commands.h"

/* stdout's buffer when it is not a terminal: larger than any one event's
 * lines (a deep stack with --srcline is a few KiB) many times over. */
#define OUTPUT_BUFFER (4u << 20)
#include "features.h"
#include "ladder.h"

int tool__fail(const char *tool, const struct errbuf *eb, int err)
{
	fprintf(stderr, "faultline %s: %s\n", tool, errbuf__str(eb, err));
	return EXIT_FAIL;
}

struct session *tool__start(struct tool_opts *o, const char *tool, const char **rung_key,
			    const char **rung_label)
{
	const struct ladder *l = ladder__find(tool);
	char why[8][256];
	struct errbuf eb = { "" };
	struct session *s = NULL;
	int err, idx;

	/* Whole lines, promptly, and cheaply.  A terminal gets each line as
	 * it comes.  Anything else gets one write per batch of events (see
	 * tool__event_done and the round hook): a write per line cost the
	 * reader a tenth of its time under a fast allocator, yet lines must
	 * stay whole, as a -c command may write to the same file. */
	if (isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOLBF, 0);
	else
		setvbuf(stdout, NULL, _IOFBF, OUTPUT_BUFFER);
	err = session__new(&o->sess, &s, &eb);
	if (err) {
		tool__fail(tool, &eb, err);
		return NULL;
	}
	if (session__stale_groups(s))
		fprintf(stderr, "faultline %s: warning: %zu probe group(s) left by faultline "
			"processes that died; remove them with 'faultline cleanup'\n", tool,
			session__stale_groups(s));
	if (!l) {
		fprintf(stderr, "faultline %s: no event-source ladder for this tool\n", tool);
		session__free(s);
		return NULL;
	}
	memset(why, 0, sizeof(why));
	idx = ladder__choose(l, session__features(s), why, 8);
	if (idx < 0) {
		fprintf(stderr, "faultline %s: this kernel offers no event source for it", tool);
		for (size_t i = 0; i < l->n && i < 8; i++)
			fprintf(stderr, "%s%s", i ? "; " : ": ", why[i]);
		fprintf(stderr, " (see 'faultline features')\n");
		session__free(s);
		return NULL;
	}
	*rung_key = l->rungs[idx].key;
	*rung_label = l->rungs[idx].label;
	if (idx > 0)
		fprintf(stderr, "faultline %s: falling back to %s (%s): %s\n", tool,
			l->rungs[idx].label, why[0], l->rungs[idx].loses);
	return s;
}

void tool__event_done(void)
{
	/* Flush between events, well before stdio would flush mid-line. */
	if (__fpending(stdout) > OUTPUT_BUFFER / 2)
		fflush(stdout);
}

static void flush_round(void *ctx)
{
	(void)ctx;
	fflush(stdout);
}

struct banner {
	const struct tool_opts *o;
	const char *what, *source;
};

/* Said when tracing is live, not before: scripts wait for this line. */
static void print_banner(void *ctx)
{
	const struct banner *b = ctx;
	char target[256];

	tool_opts__describe(b->o, target, sizeof(target));
	if (b->o->sess.cmd)
		fprintf(stderr, "Executing '%s' and tracing %s with %s.\n", b->o->sess.cmd, b->what,
			b->source);
	else
		fprintf(stderr, "Tracing %s of %s with %s... Hit Ctrl-C to end.\n", b->what, target,
			b->source);
}

int tool__run(struct session *s, const struct tool_opts *o, const char *tool,
	      const char *what, const char *source)
{
	struct banner b = { o, what, source };
	struct session_hooks hooks = { .ready = print_banner, .round = flush_round, .ctx = &b };
	struct errbuf eb = { "" };
	int err, st;

	err = session__run(s, &hooks, &eb);
	if (err)
		return tool__fail(tool, &eb, err);
	st = session__cmd_status(s);
	if (o->sess.cmd && st != -1) {
		if (WIFEXITED(st) && WEXITSTATUS(st))
			fprintf(stderr, "faultline %s: '%s' exited with status %d\n", tool, o->sess.cmd,
				WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			fprintf(stderr, "faultline %s: '%s' was killed by signal %d (%s)\n", tool,
				o->sess.cmd, WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
	return 0;
}
