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

/*
 * The positional arguments from argv[@first], up to the program at
 * argv[@prog] if there is one (@shown: its name as said): the tool's own
 * (cl->positional) or the trailing duration.  0, or -EINVAL said, with
 * the hint to run the program when a number was wanted where it is.
 */
static int positionals(struct tool_opts *o, const char *tool, const struct tool_cmdline *cl,
		       void *ctx, int argc, char **argv, int first, int prog, const char *shown)
{
	int npos = (prog < argc ? prog + 1 : argc) - first;
	const char *why = NULL, *arg = npos > 0 ? argv[first] : "";

	if (cl->positional) {
		why = cl->positional(npos, argv + first, &arg, ctx);
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

/*
 * The shared options' rows, with the TOOL_OPT_NO_* bits that refuse one
 * and the TOOL_OPT_* bit one needs.
 */
static const struct {
	struct tool_option row;
	unsigned int refused_by, needs;
} shared_rows[] = {
	{ { TOOL_OPTION_SHARED, 'p', "pid", "PID",
	    "trace this process (all its threads, and threads it creates)", TOOL_SHARED_PID, 0, 0 },
	  TOOL_OPT_NO_PID, 0 },
	{ { TOOL_OPTION_SHARED, 'c', "command", "CMD",
	    "run CMD and trace it from its first instruction", TOOL_SHARED_CMD, 0, 0 },
	  TOOL_OPT_NO_CMD, 0 },
	{ { TOOL_OPTION_SHARED, 'a', "all-cpus", NULL,
	    "trace every process (the default without -p and -c)", TOOL_SHARED_ALL, 0, 0 },
	  TOOL_OPT_NO_ALL, 0 },
	{ { TOOL_OPTION_SHARED, 'T', "timestamp", NULL, "a timestamp on each line", TOOL_SHARED_T,
	    0, 0 }, 0, TOOL_OPT_T },
	{ { TOOL_OPTION_SHARED, 'g', "stacks", NULL, "print the user stack of each event",
	    TOOL_SHARED_G, 0, 0 }, 0, TOOL_OPT_G },
	{ { TOOL_OPTION_SHARED, 0, "json", NULL, "one JSON object per line", TOOL_SHARED_JSON, 0, 0 },
	  TOOL_OPT_NO_JSON, 0 },
	{ { TOOL_OPTION_SHARED, 0, "folded", NULL, "FlameGraph folded stacks", TOOL_SHARED_FOLDED,
	    0, 0 }, 0, TOOL_OPT_FOLDED },
	{ { TOOL_OPTION_SHARED, 0, "call-graph", "dwarf[,SIZE]|fp",
	    "user stacks unwound with DWARF CFI from SIZE bytes of copied stack (default "
	    "dwarf,32768), or the kernel's frame-pointer walk", TOOL_SHARED_CALLGRAPH, 0, 0 },
	  TOOL_OPT_NO_UNWIND, 0 },
	{ { TOOL_OPTION_SHARED, 0, "unwinder", "libdw|libunwind",
	    "the DWARF unwinder (default libdw)", TOOL_SHARED_UNWINDER, 0, 0 },
	  TOOL_OPT_NO_UNWIND, 0 },
	{ { TOOL_OPTION_SHARED, 0, "srcline", NULL,
	    "add file:line to each frame, and the functions inlined there", TOOL_SHARED_SRCLINE, 0,
	    0 }, TOOL_OPT_NO_UNWIND | TOOL_OPT_NO_SRCLINE, 0 },
	{ { TOOL_OPTION_SHARED, 'm', "mmap-pages", "PAGES",
	    "ring buffer pages per CPU (power of two; default 4096 with dwarf stacks, 1024 with "
	    "fp, at most 64 MiB in all)", TOOL_SHARED_MMAP, 0, 0 }, TOOL_OPT_NO_MMAP, 0 },
	{ { TOOL_OPTION_SHARED, 0, "no-pause", NULL,
	    "never stop a command's processes while the rings drain (by default a -c/-- target "
	    "is paused rather than lose events)", TOOL_SHARED_NO_PAUSE, 0, 0 },
	  TOOL_OPT_NO_PID | TOOL_OPT_NO_CMD, 0 },
	{ { TOOL_OPTION_SHARED, 0, "pause", NULL, "pause a -p target too", TOOL_SHARED_PAUSE, 0, 0 },
	  TOOL_OPT_NO_PID | TOOL_OPT_NO_CMD, 0 },
	{ { TOOL_OPTION_SHARED, 0, "no-realtime", NULL,
	    "the ring-draining thread in the normal scheduling class, not SCHED_FIFO 1",
	    TOOL_SHARED_NO_REALTIME, 0, 0 }, TOOL_OPT_NO_MMAP, 0 },
	{ { TOOL_OPTION_SHARED, 0, "quiet", NULL,
	    "no status line on a terminal (elapsed time, events/s, lost, the headline)",
	    TOOL_SHARED_QUIET, 0, 0 }, TOOL_OPT_NO_PID | TOOL_OPT_NO_CMD | TOOL_OPT_NO_ALL, 0 },
	{ { TOOL_OPTION_SHARED, 0, "output", "FILE",
	    "write the report to FILE (a regular file, made 0644 or truncated, never through a "
	    "symlink), not stdout: a traced command keeps stdout; snapshots are appended to it",
	    TOOL_SHARED_OUTPUT, 0, 0 }, TOOL_OPT_NO_OUTPUT, 0 },
	{ { TOOL_OPTION_SHARED, 0, "snapshot-every", "SECS",
	    "print the report so far every SECS seconds and go on tracing, as SIGUSR1 does",
	    TOOL_SHARED_SNAPSHOT_EVERY, 0, 0 }, TOOL_OPT_NO_OUTPUT, TOOL_OPT_SNAPSHOT },
	{ { TOOL_OPTION_SHARED, 'h', "help", NULL, "print this help", TOOL_SHARED_HELP, 0, 0 }, 0, 0 },
};
#define NSHARED (sizeof(shared_rows) / sizeof(shared_rows[0]))

const char *tool_opts__screen_conflict(const struct tool_opts *o)
{
	if (o->json)
		return "--json";
	if (o->folded)
		return "--folded";
	if (o->snapshot_secs > 0 && !o->output)
		return "--snapshot-every without --output FILE (a snapshot would be drawn over)";
	return NULL;
}

const char *tool_shared__meaning(const char *name)
{
	for (size_t i = 0; i < NSHARED; i++)
		if (shared_rows[i].row.name && !strcmp(shared_rows[i].row.name, name))
			return shared_rows[i].row.help;
	return NULL;
}

void tool_shared__list(FILE *f)
{
	for (size_t i = 0; i < NSHARED; i++)
		if (shared_rows[i].row.name)
			fprintf(f, "--%s\t%s\n", shared_rows[i].row.name, shared_rows[i].row.help);
}

/* The shared row of @key that @accepts takes, or -1.  (A "refused_by" of
 * two bits refuses when all of them are set.) */
static int shared_taken(int key, unsigned int accepts)
{
	for (size_t i = 0; i < NSHARED; i++) {
		unsigned int r = shared_rows[i].refused_by;

		if (shared_rows[i].row.key != key)
			continue;
		if (r && (accepts & r) == r)
			return -1;
		if (r == (TOOL_OPT_NO_UNWIND | TOOL_OPT_NO_SRCLINE) && (accepts & r))
			return -1;
		if (shared_rows[i].needs && !(accepts & shared_rows[i].needs))
			return -1;
		return (int)i;
	}
	return -1;
}

/* Whether @t has a row of letter @l or long name @name. */
static bool spelled(const struct opt_table *t, char l, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if ((l && t->row[i].letter == l) ||
		    (name && t->row[i].name && !strcmp(t->row[i].name, name)))
			return true;
	return false;
}

/* Append a row; -E2BIG when full. */
static int add_row(struct opt_table *t, const struct tool_option *r, bool shared)
{
	if (t->n >= OPT_TABLE_MAX)
		return -E2BIG;
	t->shared[t->n] = shared;
	t->row[t->n++] = *r;
	return 0;
}

int tool_cmdline__table(const struct tool_cmdline *cl, struct opt_table *t)
{
	bool done[NSHARED] = { false };
	int err = 0;

	t->n = 0;
	for (const struct tool_option *r = cl->options; r && r->to != TOOL_OPTION_END && !err; r++) {
		int k = r->to == TOOL_OPTION_SHARED ? shared_taken(r->key, cl->accepts) : -2;

		if (k == -2) {
			err = add_row(t, r, false);
			continue;
		}
		if (k < 0)
			continue;
		done[k] = true;
		err = add_row(t, &shared_rows[k].row, true);
		if (!err && r->help)
			t->row[t->n - 1].help = r->help;	/* the command's own words */
	}
	for (size_t i = 0; i < NSHARED && !err; i++) {
		const struct tool_option *r = &shared_rows[i].row;

		/* A letter the command's own rows take: its shared long
		 * name is not known either (--timestamp must not be --top). */
		if (done[i] || shared_taken(r->key, cl->accepts) < 0 || spelled(t, r->letter, r->name))
			continue;
		err = add_row(t, r, true);
	}
	return err;
}

struct opt_text tool_cmdline__text(const struct tool_cmdline *cl)
{
	struct opt_text x = cl->text;

	if (!x.usage_name)
		x.usage_name = cl->tool;
	x.runs_cmd = !(cl->accepts & TOOL_OPT_NO_CMD);
	return x;
}

/* A shared option's value: 0, 1 after -h, or -EINVAL said. */
static int shared_opt(struct tool_opts *o, const struct tool_cmdline *cl,
		      const struct opt_table *t, int key, const char *arg)
{
	const char *tool = cl->tool;
	struct opt_text x;
	char *end;
	long pid;

	switch (key) {
	case TOOL_SHARED_PID:
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || *end || pid <= 0 || pid > INT_MAX)
			return bad(tool, "invalid pid", arg);
		o->sess.pid = (pid_t)pid;
		return 0;
	case TOOL_SHARED_CMD:
		if (o->sess.cmd_argv)
			return bad(tool, "choose one of -c CMD and -- CMD, not", "both");
		o->sess.cmd = arg;
		return 0;
	case TOOL_SHARED_ALL:
		o->all = true;
		return 0;
	case TOOL_SHARED_MMAP:
		return mmap_pages(o, tool, arg);
	case TOOL_SHARED_T:
		o->timestamps = true;
		return 0;
	case TOOL_SHARED_G:
		o->stacks = true;
		return 0;
	case TOOL_SHARED_JSON:
		o->json = true;
		return 0;
	case TOOL_SHARED_FOLDED:
		o->folded = true;
		return 0;
	case TOOL_SHARED_CALLGRAPH:
		return call_graph(o, tool, arg);
	case TOOL_SHARED_UNWINDER:
		if (strcmp(arg, "libdw") && strcmp(arg, "libdw-walk") && strcmp(arg, "libunwind"))
			return bad(tool, "--unwinder is libdw, libdw-walk or libunwind, not", arg);
		o->sess.unwinder = arg;
		return 0;
	case TOOL_SHARED_SRCLINE:
		o->srcline = true;
		return 0;
	case TOOL_SHARED_NO_REALTIME:
		o->sess.no_realtime = true;
		return 0;
	case TOOL_SHARED_PAUSE:
		o->sess.pause = SESSION_PAUSE_ON;
		return 0;
	case TOOL_SHARED_NO_PAUSE:
		o->sess.pause = SESSION_PAUSE_OFF;
		return 0;
	case TOOL_SHARED_QUIET:
		o->quiet = true;
		return 0;
	case TOOL_SHARED_OUTPUT:
		if (!*arg || !strcmp(arg, "-"))
			return bad(tool, "--output takes a file name, not", *arg ? arg : "''");
		o->output = arg;
		return 0;
	case TOOL_SHARED_SNAPSHOT_EVERY:
		if (tool_opts__parse_secs(arg, &o->snapshot_secs))
			return bad(tool, "invalid --snapshot-every", arg);
		return 0;
	}
	x = tool_cmdline__text(cl);
	opt_table__help(t, &x, stdout);
	return 1;
}

/* One option of @t's row @i: 0, 1 after -h, or -EINVAL said. */
static int take_option(struct tool_opts *o, const struct tool_cmdline *cl,
		       const struct opt_table *t, int i, void *ctx, char **argv)
{
	const struct tool_option *r = &t->row[i];
	const char *msg;

	if (t->shared[i])
		return shared_opt(o, cl, t, r->key, optarg);
	if (r->to == TOOL_OPTION_FLAG) {
		*(bool *)((char *)ctx + r->off) = true;
		return 0;
	}
	msg = cl->opt(r->key, optarg, ctx);
	return msg ? bad(cl->tool, msg, optarg ? optarg : argv[optind - 1]) : 0;
}

int tool_opts__parse_cmdline(struct tool_opts *o, const struct tool_mode *mode,
			     const struct tool_cmdline *cl, void *ctx, int argc, char **argv)
{
	struct option longopts[OPT_TABLE_MAX + 1];
	char shortopts[3 * OPT_TABLE_MAX + 2], shown[PATH_MAX];
	unsigned int accepts = cl->accepts;
	const char *tool = cl->tool;
	struct opt_table t;
	int c, dd, odd, prog, err;

	memset(o, 0, sizeof(*o));
	o->mode = mode ? mode : &live_mode;
	if (tool_cmdline__table(cl, &t))
		return bad(tool, "too many options", "");
	if (argc > 1 && !strcmp(argv[1], "--list-opts")) {
		struct opt_text x = tool_cmdline__text(cl);

		opt_table__list(&t, &x, stdout);
		return 1;
	}
	opt_table__getopt(&t, !(accepts & TOOL_OPT_ANY_ORDER), shortopts, longopts);
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
		int i = opt_table__row_of(&t, c);

		if (i < 0)
			return bad(tool, wants_value(optopt, shortopts, longopts) ?
				   "option needs a value:" : "unknown option", argv[optind - 1]);
		err = take_option(o, cl, &t, i, ctx, argv);
		if (err)
			return err;
	}
	err = target_and_format(o, tool);
	if (err)
		return err;
	return positionals(o, tool, cl, ctx, argc, argv, optind, prog, shown);
}

int tool_cmdline__plain(const struct tool_cmdline *cl, struct opt_table *t, struct opt_text *x,
			char *shortopts, struct option *longopts, int argc, char **argv)
{
	int err = tool_cmdline__table(cl, t);

	if (err)
		return err;
	*x = tool_cmdline__text(cl);
	if (argc > 1 && !strcmp(argv[1], "--list-opts")) {
		opt_table__list(t, x, stdout);
		return 1;
	}
	opt_table__getopt(t, true, shortopts, longopts);
	optind = 0;
	opterr = 0;
	return 0;
}

int tool_opts__parse_report_cmdline(struct tool_opts *o, const struct tool_cmdline *cl, void *ctx,
				    int argc, char **argv)
{
	int ret = tool_opts__parse_cmdline(o, NULL, cl, ctx, argc, argv);

	return ret > 0 ? EXIT_OK : ret < 0 ? EXIT_USAGE : -1;
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
