/*
 * tool-opts: shared option parsing for the tracing tools.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agg/alloc-trace.h"
#include "proc/nspid.h"
#include "lib/file.h"
#include "lib/ostream.h"
#include "lib/stopsig.h"
#include "trace/perf-event.h"
#include "trace/target.h"
#include "cmd/commands.h"
#include "cmd/tool-opts.h"

int tool__usage_error(const char *tool, const char *what, const char *arg)
{
	const char *sub = !strncmp(tool, "report ", 7) ? tool + 7 : NULL;

	if (sub)
		fprintf(stderr, "faultline %s: %s '%s' (see 'faultline report %s -h')\n",
			tool, what, arg, sub);
	else
		fprintf(stderr, "faultline %s: %s '%s' (see 'faultline %s -h')\n", tool, what, arg,
			tool);
	return EXIT_USAGE;
}

int tool__bad_option(const char *tool, char **argv)
{
	return tool__usage_error(tool, optopt ? "option needs a value or is unknown:" : "unknown option",
				 argv[optind - 1]);
}

/* The parser's own: its callers take -EINVAL for a bad command line. */
static int bad(const char *tool, const char *what, const char *arg)
{
	tool__usage_error(tool, what, arg);
	return -EINVAL;
}

/* The mode of a tool run from its own command line: live, all zero and
 * never written. */
static const struct tool_mode live_mode;

static bool power_of_two(unsigned long v)
{
	return v && !(v & (v - 1));
}

/* --srcline's getopt value: no letter, so a tool's own -S (leak's
 * --symbols-prefix, as libbpf-tools memleak spells it) leaves it alone. */
#define OPT_SRCLINE 0x80
/* --no-realtime: the drain thread keeps the normal scheduling class. */
#define OPT_NO_REALTIME 0x81
/* --pause / --no-pause: back-pressure on a -p target / on none. */
#define OPT_PAUSE 0x82
#define OPT_NO_PAUSE 0x83
#define OPT_QUIET 0x84

/* The TOOL_OPT_NO_* bit that refuses the shared option of getopt value c. */
static unsigned int refuse_bit(int c)
{
	switch (c) {
	case 'p':
		return TOOL_OPT_NO_PID;
	case 'c':
		return TOOL_OPT_NO_CMD;
	case 'a':
		return TOOL_OPT_NO_ALL;
	case 'm':
		return TOOL_OPT_NO_MMAP;
	case 'j':
		return TOOL_OPT_NO_JSON;
	case 'G':
	case 'U':
		return TOOL_OPT_NO_UNWIND;
	case OPT_SRCLINE:
		return TOOL_OPT_NO_UNWIND | TOOL_OPT_NO_SRCLINE;
	}
	return 0;
}

/*
 * -h: the tool's usage and help, without the lines of the shared options
 * it does not take (TOOL_OPTS_HELP lists them all): help never offers what
 * the parser refuses.  An entry is its first line, "  -a ", and the lines
 * below it indented deeper than its name.
 */
static void print_help(const char *usage, const char *help, unsigned int accepts)
{
	static const struct {
		const char *start;
		unsigned int refused;
	} shared[] = {
		{ "  -p PID ", TOOL_OPT_NO_PID },
		{ "  -c CMD ", TOOL_OPT_NO_CMD },
		{ "  -- CMD ARGS ", TOOL_OPT_NO_CMD },
		{ "  -a ", TOOL_OPT_NO_ALL },
		{ "  --json ", TOOL_OPT_NO_JSON },
		{ "  -m PAGES ", TOOL_OPT_NO_MMAP },
		{ "  --call-graph ", TOOL_OPT_NO_UNWIND },
		{ "  --unwinder ", TOOL_OPT_NO_UNWIND },
		{ "  --srcline ", TOOL_OPT_NO_UNWIND | TOOL_OPT_NO_SRCLINE },
	};
	bool skipping = false;

	printf("usage: %s\n", usage);
	for (const char *l = help; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);
		bool entry = n > 3 && l[0] == ' ' && l[1] == ' ' && l[2] != ' ';

		if (entry) {
			skipping = false;
			for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
				if ((accepts & shared[i].refused) &&
				    !strncmp(l, shared[i].start, strlen(shared[i].start)))
					skipping = true;
		} else if (n <= 1 || l[0] != ' ') {
			skipping = false;	/* a blank line or prose ends an entry */
		}
		if (!skipping)
			fwrite(l, 1, n, stdout);
		l += n;
	}
}

/* Whether getopt's optopt c, after a '?', is an option known here that
 * wants a value (it was given none), not an unknown one. */
static bool wants_value(int c, const char *shortopts, const struct option *longopts)
{
	const char *p = c > 0 && c < 256 && c != ':' && c != '+' ? strchr(shortopts, c) : NULL;

	if (p)
		return p[1] == ':';
	for (size_t i = 0; c > 0 && longopts[i].name; i++)
		if (longopts[i].val == c)
			return longopts[i].has_arg == required_argument;
	return false;
}

/*
 * The words of a tool's command line, as getopt will take them: where
 * perf's "-- CMD ARGS" begins, the index of the first "--" that is not an
 * option's value ("-c --" gives -c the value "--"), or argc; and in
 * *@odd the first positional argument before it that is not a number
 * (tool_opts__parse_secs: durations, intervals and counts), or argc.  Once
 * options end at a positional argument (no '+' ordering: shortopts starts
 * with '+'), every word up to a "--" is one.
 */
static int scan_words(int argc, char **argv, const char *shortopts,
		      const struct option *longopts, int *odd)
{
	bool in_order = shortopts[0] == '+', opts_over = false;
	double secs;

	*odd = argc;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			return i;
		if (opts_over || a[0] != '-' || !a[1]) {
			if (*odd == argc && tool_opts__parse_secs(a, &secs))
				*odd = i;
			opts_over = in_order;
			continue;
		}
		if (a[1] == '-') {
			size_t len = strcspn(a + 2, "=");
			const struct option *hit = NULL;

			if (a[2 + len] == '=')
				continue;
			/* getopt_long takes an exact name, else a prefix. */
			for (size_t k = 0; longopts[k].name; k++) {
				if (strncmp(longopts[k].name, a + 2, len))
					continue;
				if (!hit || !longopts[k].name[len])
					hit = &longopts[k];
				if (!longopts[k].name[len])
					break;
			}
			if (hit && hit->has_arg == required_argument)
				i++;
			continue;
		}
		for (size_t j = 1; a[j]; j++) {
			const char *p = a[j] != ':' ? strchr(shortopts, a[j]) : NULL;

			if (p && p[1] == ':' && p[2] != ':') {
				if (!a[j + 1])
					i++;	/* the value is the next word */
				break;		/* else the rest of this one */
			}
		}
	}
	return argc;
}

/*
 * The positional numbers' complaints, by name: a program typed in their
 * place is told how to run (program_hint()).
 */
enum { NOT_DURATION, NOT_INTERVAL, NOT_COUNT };
static const struct {
	const char *msg;	/* "faultline TOOL: MSG 'ARG'" */
	const char *noun;	/* "'ARG' is not NOUN" */
} numbers[] = {
	[NOT_DURATION] = { "invalid duration", "a duration" },
	[NOT_INTERVAL] = { "invalid interval", "an interval" },
	[NOT_COUNT] = { "invalid count", "a count" },
};

/* Whether @w can be shown on one line as it is: no control character. */
static bool printable(const char *w)
{
	for (; *w; w++)
		if ((unsigned char)*w < 0x20 || *w == 0x7f)
			return false;
	return true;
}

/*
 * How @word names a program, as "-- WORD" would run it, into @shown: the
 * word itself for a path to a regular file or a program on PATH, "./WORD"
 * for a program in this directory; false when it names none, or cannot be
 * shown on one line.  Nothing runs: access(2) and stat(2) only.
 */
static bool names_program(const char *word, char *shown, size_t n)
{
	struct stat st;
	char *found = NULL;
	bool yes;

	if (!*word || *word == '-' || !printable(word))
		return false;
	if (strchr(word, '/'))
		yes = !stat(word, &st) && S_ISREG(st.st_mode);
	else
		yes = !target__which(word, &found);
	free(found);
	found = NULL;
	if (yes || strchr(word, '/'))
		return yes && (size_t)snprintf(shown, n, "%s", word) < n;
	/* valgrind ./a.out, typed without the "./" */
	if ((size_t)snprintf(shown, n, "./%s", word) >= n)
		return false;
	yes = !target__which(shown, &found);
	free(found);
	return yes;
}

/* Append " WORD..." to @buf, shell-quoted (target__quote_argv); false,
 * with @buf as it was, when they do not fit or one cannot be shown on a
 * line. */
static bool put_words(char *buf, size_t n, int argc, char *const *argv)
{
	size_t len = strlen(buf);

	for (int i = 0; i < argc; i++)
		if (!printable(argv[i]))
			return false;
	if (!argc)
		return true;
	if (len + 2 >= n)
		return false;
	buf[len] = ' ';
	if (target__quote_argv(argc, argv, buf + len + 1, n - len - 1) < n - len - 1)
		return true;
	buf[len] = '\0';
	return false;
}

/*
 * program_hint() - valgrind's, heaptrack's and memray's users type the
 * program where faultline takes a number ("faultline leak ls"): how to
 * run it, in one line on stderr, "faultline TOOL: 'WORD' is not NOUN; to
 * run a program: faultline TOOL OPTIONS -- PROGRAM ARGS": the user's words
 * again, shell-quoted, with "--" before the program's; its arguments said
 * "..." when they are too long or cannot be shown on a line.
 * @argc, @argv: the tool's command line (argv[0] its name; the options
 *   first, in getopt's order), up to any "--"
 * @word: where the program is in it, its arguments after it
 * @shown: the program, as names_program() shows it
 *
 * Return: whether the line was printed (else nothing was).
 */
static bool program_hint(const char *tool, const char *noun, int argc, char **argv, int word,
			 const char *shown)
{
	char line[1024] = "";
	char *prog = (char *)shown;

	if (!put_words(line, sizeof(line), word - 1, argv + 1) ||
	    !put_words(line, sizeof(line), 1, (char *[]){ "--" }) ||
	    !put_words(line, sizeof(line), 1, &prog))
		return false;
	if (!put_words(line, sizeof(line), argc - word - 1, argv + word + 1))
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " ...");
	fprintf(stderr, "faultline %s: '%s' is not %s; to run a program: faultline %s%s\n", tool,
		argv[word], noun, tool, line);
	return true;
}

const char *tool_opts__summary_opt(int c, const char *arg, bool *summary, double *secs)
{
	if (c == 's') {
		*summary = true;
		return NULL;
	}
	return tool_opts__parse_secs(arg, secs) ? "invalid interval" : NULL;
}

int tool_opts__parse_secs(const char *arg, double *secs)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(arg, &end);
	if (errno || *end || !(d > 0) || d > 1e7)
		return -EINVAL;
	*secs = d;
	return 0;
}

int tool_opts__parse_secs_ns(const char *arg, uint64_t *ns)
{
	double secs;

	if (tool_opts__parse_secs(arg, &secs) || secs < 1e-6)
		return -EINVAL;
	*ns = (uint64_t)(secs * 1e9 + 0.5);
	return 0;
}

const char *tool_opts__parse_interval(struct tool_interval *iv, int argc, char **argv,
				      const char **arg)
{
	unsigned long count;
	char *end;

	/* The interval first: "ls -l /tmp" is a program, not too many words. */
	if (argc >= 1 && tool_opts__parse_secs(argv[0], &iv->secs)) {
		*arg = argv[0];
		return numbers[NOT_INTERVAL].msg;
	}
	if (argc > 2) {
		*arg = argv[2];
		return "unexpected argument";
	}
	if (argc == 2) {
		/* Digits only: strtoul would take "-1" as ULONG_MAX. */
		errno = 0;
		count = strtoul(argv[1], &end, 10);
		if (errno || *end || !count || argv[1][0] < '0' || argv[1][0] > '9') {
			*arg = argv[1];
			return numbers[NOT_COUNT].msg;
		}
		iv->count = count;
	}
	return NULL;
}

const char *tool_opts__no_positional(int argc, char **argv, const char **arg, void *ctx)
{
	(void)argv;
	(void)arg;	/* preset to the first */
	(void)ctx;
	return argc ? "unexpected argument" : NULL;
}

const char *tool_opts__interval_positional(int argc, char **argv, const char **arg, void *ctx)
{
	return tool_opts__parse_interval(ctx, argc, argv, arg);
}

int tool_opts__parse_report(struct tool_opts *o, const char *tool, bool json, const char *usage,
			    const char *help, const struct tool_extra *extra, int argc, char **argv)
{
	unsigned int refused = json ? TOOL_OPT_NO_SHARED & ~TOOL_OPT_NO_JSON : TOOL_OPT_NO_SHARED;
	int ret = tool_opts__parse_ext(o, NULL, tool, TOOL_OPT_ANY_ORDER | refused, usage, help, extra,
				       argc, argv);

	return ret > 0 ? EXIT_OK : ret < 0 ? EXIT_USAGE : -1;
}

int tool_opts__parse(struct tool_opts *o, const struct tool_mode *mode, const char *tool, unsigned int accepts,
		     const char *usage, const char *help, int argc, char **argv)
{
	return tool_opts__parse_ext(o, mode, tool, accepts, usage, help, NULL, argc, argv);
}

/* -m PAGES: 0, or -EINVAL said. */
static int mmap_pages(struct tool_opts *o, const char *tool, const char *arg)
{
	unsigned long pages;
	char *end;

	errno = 0;
	pages = strtoul(arg, &end, 10);
	if (errno || *end || !power_of_two(pages))
		return bad(tool, "-m wants a power of two number of pages, not", arg);
	if (pages > TOOL_MAX_MMAP_PAGES)
		return bad(tool, "-m takes at most " TOOL_MAX_MMAP_PAGES_S " pages a CPU, not", arg);
	o->sess.mmap_pages = (unsigned int)pages;
	return 0;
}

/* --call-graph fp | dwarf[,SIZE]: 0, or -EINVAL said. */
static int call_graph(struct tool_opts *o, const char *tool, const char *arg)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);
	unsigned long size;
	char *end;

	if (len == 2 && !strncmp(arg, "fp", 2) && !comma) {
		o->sess.callgraph = CALLGRAPH_FP;
		return 0;
	}
	if (len != 5 || strncmp(arg, "dwarf", 5))
		return bad(tool, "--call-graph is fp or dwarf[,SIZE], not", arg);
	o->sess.callgraph = CALLGRAPH_DWARF;
	if (!comma)
		return 0;
	errno = 0;
	size = strtoul(comma + 1, &end, 0);
	if (errno || *end || size < 8 || size > SESSION_MAX_STACK_SIZE)
		return bad(tool, "--call-graph dwarf,SIZE wants 8 to 65528 bytes, not", comma + 1);
	o->sess.stack_size = (unsigned int)(size + 7) & ~7u;
	return 0;
}

/* After the options: one target, one output format, and a report's
 * target the recorded one.  0, or -EINVAL said. */
static int target_and_format(struct tool_opts *o, const char *tool)
{
	if (o->sess.cmd_argv)
		o->sess.cmd = o->cmdline;
	if ((o->sess.pid > 0) + !!o->sess.cmd + o->all > 1)
		return bad(tool, "choose one of -p, -c and -a, not", "several");
	/* Stopping every process of the host is never back-pressure. */
	if (o->sess.pause == SESSION_PAUSE_ON && !(o->sess.pid > 0) && !o->sess.cmd)
		return bad(tool, "--pause pauses a -p PID target (a command's is by default), not",
			   "every process");
	if (o->mode->replay && o->sess.cmd)
		return bad(tool, "a report reads a recording: -c and -- CMD are for faultline record, not",
			   o->sess.cmd);
	/* A report traces what was recorded: the recorded target, unless
	 * -p narrows it to one of the recorded processes. */
	if (o->mode->replay && !o->sess.pid && !o->all) {
		o->sess.cmd = o->mode->command;
		o->sess.pid = o->mode->command ? 0 : o->mode->target_pid;
	}
	if (o->json && o->folded)
		return bad(tool, "choose one output format, not", "--json and --folded");
	return 0;
}

/* getopt's tables: the tool's options first (getopt takes the first
 * match), then the shared ones it neither refuses nor takes the letter
 * of; @longopts has room for 64. */
static void getopt_tables(unsigned int accepts, const struct tool_extra *extra,
			  const struct option *shared, size_t nshared, char *shortopts, size_t n,
			  struct option *longopts)
{
	static const char shared_short[] = "p:c:am:Tgh";
	const char *own = extra && extra->shortopts ? extra->shortopts : "";
	size_t nlong = 0, nshort;

	snprintf(shortopts, n, "%s%s", accepts & TOOL_OPT_ANY_ORDER ? "" : "+", own);
	nshort = strlen(shortopts);
	for (size_t i = 0; shared_short[i] && nshort + 2 < n; i++) {
		if (shared_short[i] == ':')
			continue;
		if (!(accepts & refuse_bit(shared_short[i]))) {
			shortopts[nshort++] = shared_short[i];
			if (shared_short[i + 1] == ':')
				shortopts[nshort++] = ':';
		}
	}
	shortopts[nshort] = '\0';
	for (size_t i = 0; extra && extra->longopts && extra->longopts[i].name && nlong < 40; i++)
		longopts[nlong++] = extra->longopts[i];
	for (size_t i = 0; i < nshared; i++) {
		int val = shared[i].val;

		/* Refused, or its letter is the tool's own: not an option here. */
		if (shared[i].name && ((accepts & refuse_bit(val)) || strchr(own, val)))
			continue;
		longopts[nlong++] = shared[i];
	}
}

/*
 * The positional arguments from argv[@first], up to the program at
 * argv[@prog] if there is one (@shown: its name as said): the tool's own
 * (extra->positional) or the trailing duration.  0, or -EINVAL said, with
 * the hint to run the program when a number was wanted where it is.
 */
static int positionals(struct tool_opts *o, const char *tool, const struct tool_extra *extra,
		       int argc, char **argv, int first, int prog, const char *shown)
{
	int npos = (prog < argc ? prog + 1 : argc) - first;
	const char *why = NULL, *arg = npos > 0 ? argv[first] : "";

	if (extra && extra->positional) {
		why = extra->positional(npos, argv + first, &arg, extra->ctx);
	} else if (npos > 0 && tool_opts__parse_secs(argv[first], &o->sess.duration)) {
		why = numbers[NOT_DURATION].msg;
	} else if (npos > 1) {
		why = "unexpected argument";
		arg = argv[first + 1];
	}
	/* A program a tool took as its argument (none does): what follows it
	 * was not looked at. */
	if (!why && prog + 1 < argc) {
		why = "unexpected argument";
		arg = argv[prog + 1];
	}
	if (!why)
		return 0;
	/* No target chosen yet: the program is the one meant. */
	if (prog < argc && arg == argv[prog] && !(o->sess.pid > 0) && !o->sess.cmd && !o->all) {
		for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
			if (!strcmp(why, numbers[i].msg) &&
			    program_hint(tool, numbers[i].noun, argc, argv, prog, shown))
				return -EINVAL;
	}
	return bad(tool, why, arg);
}

int tool_opts__parse_ext(struct tool_opts *o, const struct tool_mode *mode, const char *tool, unsigned int accepts,
			 const char *usage, const char *help, const struct tool_extra *extra,
			 int argc, char **argv)
{
	static const struct option shared[] = {
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
		{ "srcline", no_argument, NULL, OPT_SRCLINE },
		{ "no-realtime", no_argument, NULL, OPT_NO_REALTIME },
		{ "pause", no_argument, NULL, OPT_PAUSE },
		{ "no-pause", no_argument, NULL, OPT_NO_PAUSE },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option longopts[64];
	char shortopts[128];
	char *end, shown[PATH_MAX];
	int c, dd, odd, prog, err;

	memset(o, 0, sizeof(*o));
	o->mode = mode ? mode : &live_mode;
	getopt_tables(accepts, extra, shared, sizeof(shared) / sizeof(shared[0]), shortopts,
		      sizeof(shortopts), longopts);
	/* perf's "-- CMD ARGS": getopt and the positionals see what is
	 * before it. */
	dd = scan_words(argc, argv, shortopts, longopts, &odd);
	if (dd < argc) {
		if (accepts & TOOL_OPT_NO_CMD)
			return bad(tool, "runs no command: unexpected argument", "--");
		if (dd + 1 == argc)
			return bad(tool, "a command must follow", "--");
		o->sess.cmd_argc = argc - dd - 1;
		o->sess.cmd_argv = argv + dd + 1;
		if (target__quote_argv(o->sess.cmd_argc, o->sess.cmd_argv, o->cmdline,
				       sizeof(o->cmdline)) >= sizeof(o->cmdline))
			memcpy(o->cmdline + sizeof(o->cmdline) - 4, "...", 4);
		argc = dd;
	}
	/*
	 * A program where the positional numbers go, live, to a tool that runs
	 * commands: the options and numbers end at it, and the words after it
	 * are the program's (its own options, not faultline's), for
	 * program_hint().  Such a command line is refused whatever follows the
	 * program: every positional argument of a tool that runs a command is
	 * a number.
	 */
	prog = argc;
	if (odd < argc && !o->sess.cmd_argv && !o->mode->record && !o->mode->replay &&
	    !(accepts & (TOOL_OPT_NO_CMD | TOOL_OPT_LIVE_ALL)) &&
	    names_program(argv[odd], shown, sizeof(shown)))
		prog = odd;
	/* 0, not 1: glibc then sets up again, with this call's ordering. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(prog, argv, shortopts, longopts, NULL)) != -1) {
		if (extra && c > 0 && (c >= 256 || (extra->shortopts && c != ':' &&
						    strchr(extra->shortopts, c)))) {
			const char *msg = extra->opt(c, optarg, extra->ctx);

			if (msg)
				return bad(tool, msg, optarg ? optarg : argv[optind - 1]);
			continue;
		}
		switch (c) {
		case 'p': {
			long pid;

			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || pid <= 0 || pid > INT_MAX)
				return bad(tool, "invalid pid", optarg);
			o->sess.pid = (pid_t)pid;
			break;
		}
		case 'c':
			if (o->sess.cmd_argv)
				return bad(tool, "choose one of -c CMD and -- CMD, not", "both");
			o->sess.cmd = optarg;
			break;
		case 'a':
			o->all = true;
			break;
		case 'm':
			err = mmap_pages(o, tool, optarg);
			if (err)
				return err;
			break;
		case 'T':
			if (!(accepts & TOOL_OPT_T))
				return bad(tool, "unknown option", "-T");
			o->timestamps = true;
			break;
		case 'g':
			if (!(accepts & TOOL_OPT_G))
				return bad(tool, "unknown option", "-g");
			o->stacks = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'G':
			err = call_graph(o, tool, optarg);
			if (err)
				return err;
			break;
		case OPT_SRCLINE:
			o->srcline = true;
			break;
		case OPT_NO_REALTIME:
			o->sess.no_realtime = true;
			break;
		case OPT_PAUSE:
			o->sess.pause = SESSION_PAUSE_ON;
			break;
		case OPT_NO_PAUSE:
			o->sess.pause = SESSION_PAUSE_OFF;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case 'U':
			if (strcmp(optarg, "libdw") && strcmp(optarg, "libdw-walk") &&
			    strcmp(optarg, "libunwind"))
				return bad(tool, "--unwinder is libdw, libdw-walk or libunwind, not", optarg);
			o->sess.unwinder = optarg;
			break;
		case 'f':
			if (!(accepts & TOOL_OPT_FOLDED))
				return bad(tool, "unknown option", "--folded");
			o->folded = true;
			break;
		case 'h':
			print_help(usage, help, accepts);
			return 1;
		default:
			return bad(tool, wants_value(optopt, shortopts, longopts) ?
				   "option needs a value:" : "unknown option", argv[optind - 1]);
		}
	}
	err = target_and_format(o, tool);
	if (err)
		return err;
	return positionals(o, tool, extra, argc, argv, optind, prog, shown);
}

void tool_opts__describe(const struct tool_opts *o, char *buf, size_t n)
{
	long ns = o->sess.pid > 0 ? nspid__read(o->sess.pid) : -1;

	/* A process in a container has another pid in there: both, so that
	 * its own logs and ps(1) inside can be matched. */
	if (ns > 0 && ns != o->sess.pid)
		snprintf(buf, n, "PID %d (pid %ld in its namespace)", (int)o->sess.pid, ns);
	else if (o->sess.pid > 0)
		snprintf(buf, n, "PID %d", (int)o->sess.pid);
	else if (o->sess.cmd)
		snprintf(buf, n, "'%s'", o->sess.cmd);
	else
		snprintf(buf, n, "all processes");
}
