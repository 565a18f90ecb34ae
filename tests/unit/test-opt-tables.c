/*
 * test-opt-tables: every command's declared options (cmd/cmdlines.c),
 * walked without a kernel.  Fails when
 *  - an option getopt is given (a letter of the short string, a long
 *    name) is not in the command's -h;
 *  - an option -h lists is refused by the parser ("unknown option" or
 *    "option needs a value" for `TOOL OPTION [VALUE] -h`);
 *  - two commands give one long name two meanings: another placeholder
 *    (or a value where the other takes none), or another letter;
 *  - a letter means another option than it does elsewhere (the shared
 *    options' letters, else the first command's), unless it is one of
 *    the exceptions below, each with its reason;
 *  - a long name two or more commands declare has no meaning in the
 *    vocabulary (cmd/vocabulary.c, or a shared row), or the vocabulary
 *    lists a name fewer than two commands declare;
 *  - a tool takes --snapshot-every (TOOL_OPT_SNAPSHOT) and has no
 *    .snapshot, or has one and refuses the option.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <getopt.h>

#include "../../src/cmd/commands.h"
#include "../../src/cmd/tool.h"
#include "../../src/cmd/tool-opts.h"
#include "../../src/cmd/vocabulary.h"
#include "check.h"

/* Every declared command line, from the command table (the test walks
 * what faultline has, not a list of its own); NULL-terminated. */
static const struct tool_cmdline *tool_cmdlines[128];

/* A failed check, said in words. */
#define CHECK_MSG(cond, ...) do { \
	check_count++; \
	if (!(cond)) { \
		check_failures++; \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

/* A letter that means another option in these commands, and why. */
static const struct {
	const char *tool;
	char letter;
	const char *why;
} exceptions[] = {
	{ "leak", 'a', "memleak's -a is --show-allocs" },
	{ "leak", 'T', "memleak's -T is --top" },
	{ "leak", 't', "memleak's -t is --trace" },
	{ "leak", 'o', "memleak's -o is --older" },
	{ "leak", 's', "memleak's -s is --sample-rate" },
	{ "leak", 'C', "memleak's -C is --combined-only" },
	{ "swapin", 'T', "BCC swapin's -T is --notime" },
	{ "faults", 'T', "perf-top-like -T N: the N top stacks, as leak's --top" },
	{ "hfaults", 'T', "-T N: the N top processes, as leak's --top" },
	{ "goalloc", 'T', "-T N: the N top stacks, as leak's --top" },
	{ "report timeline", 'T', "-T N: the N top sites, as leak's --top" },
	{ "heap", 'n', "heaptrack_print's -n is --peak-limit" },
	{ "heap", 's', "heaptrack_print's -s is --sub-peak-limit" },
	{ "faults", 'n', "-n N: the stacks shown over time, as heap's -n" },
	{ "shm", 'n', "shmsnoop's -n is --name" },
	{ "shm", 't', "shmsnoop's -t is --tid" },
	{ "shm", 'd', "shmsnoop's -d is --duration" },
	{ "report diff", 'n', "-n N: the stacks shown, as heap's -n" },
	{ "flamegraph", 'o', "-o FILE: the output, as perf's" },
	{ "record", 'o', "-o FILE: the recording, as perf record's" },
	{ "report pprof", 'o', "-o FILE: the output, as perf's" },
	{ "record", 's', "-s N: leak's --sample-rate, recorded" },
	{ "reclaim", 's', "-s: the summary (vmscan.bt)" },
	{ "compact", 's', "-s: the summary, as reclaim's" },
	{ "slab", 's', "slabtop's -s is --sort" },
	{ "slab", 'C', "-C CACHE: the caches, as slabratetop's" },
	{ "pressure", 't', "-t: a PSI trigger" },
	{ "record", 'e', "perf record's -e: what to record" },
	{ "flamegraph", 'e', "-e: the event weighed, as perf's" },
	{ "cache", 'p', "refused with cachetop -p's name (BCC cachestat has no -p)" },
	{ "report timeline", 'p', "-p PID: a recorded process, as the shared -p" },
	{ "report", 'i', "perf report's -i: the recording read" },
	{ "cleanup", 'n', "perf probe's -n is --dry-run (cleanup removes probes as perf probe -d)" },
};

/* A long name whose value differs between commands, and why. */
static const struct {
	const char *tool, *name, *why;
} long_exceptions[] = {
	{ "slab", "sort", "slabtop's sort keys (bytes|objects|allocs), not leak's size|count" },
};

static bool long_excepted(const char *tool, const char *name)
{
	for (size_t i = 0; i < sizeof(long_exceptions) / sizeof(long_exceptions[0]); i++)
		if (!strcmp(long_exceptions[i].name, name) && !strcmp(long_exceptions[i].tool, tool))
			return true;
	return false;
}

static bool excepted(const char *tool, char l)
{
	for (size_t i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++)
		if (exceptions[i].letter == l && !strcmp(exceptions[i].tool, tool))
			return true;
	return false;
}

/* The help text of @cl, malloc'd. */
static char *help_of(const struct tool_cmdline *cl, const struct opt_table *t)
{
	struct opt_text x = tool_cmdline__text(cl);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		abort();
	opt_table__help(t, &x, f);
	fclose(f);
	return buf;
}

/* Whether @help names @word as an option: not inside a longer one. */
static bool names(const char *help, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = strstr(help, word); p; p = strstr(p + 1, word)) {
		char after = p[len];
		bool starts = p == help || p[-1] == ' ' || p[-1] == '[' || p[-1] == '\n';

		if (starts && (after == ' ' || after == ',' || after == '\n' || after == ']'))
			return true;
	}
	return false;
}

/* Every option getopt is told of is in -h. */
static void parsed_in_help(const struct tool_cmdline *cl, const struct opt_table *t,
			   const char *help)
{
	struct option longopts[OPT_TABLE_MAX + 1];
	char shortopts[3 * OPT_TABLE_MAX + 2], word[80];

	opt_table__getopt(t, true, shortopts, longopts);
	for (const char *s = shortopts; *s; s++) {
		if (*s == '+' || *s == ':')
			continue;
		snprintf(word, sizeof(word), "-%c", *s);
		if (!names(help, word))
			CHECK_MSG(false, "%s: -%c parsed, not in -h", cl->tool, *s);
	}
	for (size_t i = 0; longopts[i].name; i++) {
		snprintf(word, sizeof(word), "--%s", longopts[i].name);
		if (!names(help, word))
			CHECK_MSG(false, "%s: %s parsed, not in -h", cl->tool, word);
	}
}

/* `TOOL WORD [VALUE] -h`: the first line it printed to stderr into @err
 * ("" when none), its return. */
static int try_option(const struct tool_cmdline *cl, const char *word, bool value, char *err,
		      size_t n)
{
	static char ctx[1 << 16] __attribute__((aligned(16)));
	char w[80], v[] = "1", h[] = "-h", *argv[5];
	int argc = 0, ret, saved_err = dup(2), saved_out = dup(1);
	FILE *f = tmpfile();
	struct tool_opts o;

	snprintf(w, sizeof(w), "%s", word);
	argv[argc++] = (char *)cl->tool;
	argv[argc++] = w;
	if (value)
		argv[argc++] = v;
	argv[argc++] = h;
	argv[argc] = NULL;
	memset(ctx, 0, sizeof(ctx));
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(f), 2);
	if (!freopen("/dev/null", "w", stdout))
		abort();
	ret = tool_opts__parse_cmdline(&o, NULL, cl, ctx, argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	if (!freopen("/dev/stdout", "w", stdout))
		abort();
	rewind(f);
	if (!fgets(err, (int)n, f))
		err[0] = '\0';
	fclose(f);
	return ret;
}

/* Every option in -h's option column is taken by the parser. */
static void help_parsed(const struct tool_cmdline *cl, const char *help)
{
	char err[512], word[80];

	for (const char *l = help; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		const char *p = l + 2;

		if (strncmp(l, "  -", 3) || !strncmp(l, "  -- ", 5))
			continue;
		/* "-a, --all-cpus", "-p, --pid PID", "--sort size|count" */
		while (*p == '-') {
			size_t len = strcspn(p, " ,\n");
			bool value;

			snprintf(word, sizeof(word), "%.*s", (int)len, p);
			p += len;
			if (*p == ',') {
				p += 2;
				value = strchr(" \n", p[strcspn(p, " \n")]) && p[strcspn(p, " \n")] == ' ' &&
					p[strcspn(p, " \n") + 1] != ' ' && p[strcspn(p, " \n") + 1] != '\n';
			} else {
				value = *p == ' ' && p[1] != ' ' && p[1] != '\n';
			}
			if (try_option(cl, word, value, err, sizeof(err)) < 0 &&
			    (strstr(err, "unknown option") || strstr(err, "needs a value")))
				CHECK_MSG(false, "%s: -h lists %s, the parser refuses it: %s", cl->tool,
					  word, err);
			if (*p == ',')
				break;
		}
	}
}

struct long_seen {
	const char *name, *arg, *tool;
	char letter;
};

static void meanings(void)
{
	static struct long_seen seen[1024];
	/* A letter's meaning: its long name ("" none), and where first seen. */
	const char *letter_means[256] = { NULL };
	const char *letter_tool[256] = { NULL };
	size_t nseen = 0;
	struct opt_table t;

	/* The shared letters first: they are the reference. */
	for (const struct tool_cmdline *const *c = tool_cmdlines; *c; c++) {
		CHECK_EQ_U64(tool_cmdline__table(*c, &t), 0);
		for (size_t i = 0; i < t.n; i++)
			if (t.shared[i] && t.row[i].letter)
				letter_means[(unsigned char)t.row[i].letter] = t.row[i].name;
	}
	for (const struct tool_cmdline *const *c = tool_cmdlines; *c; c++) {
		tool_cmdline__table(*c, &t);
		for (size_t i = 0; i < t.n; i++) {
			const struct tool_option *r = &t.row[i];
			unsigned char l = (unsigned char)r->letter;

			if (l && !letter_means[l]) {
				letter_means[l] = r->name ? r->name : "";
				letter_tool[l] = (*c)->tool;
			}
			if (l && strcmp(letter_means[l], r->name ? r->name : "") &&
			    !excepted((*c)->tool, r->letter))
				CHECK_MSG(false, "%s: -%c is --%s, elsewhere (%s) --%s", (*c)->tool,
					  r->letter, r->name ? r->name : "(none)",
					  letter_tool[l] ? letter_tool[l] : "shared", letter_means[l]);
			if (!r->name)
				continue;
			for (size_t k = 0; k < nseen; k++) {
				const struct long_seen *s = &seen[k];

				if (strcmp(s->name, r->name) || long_excepted((*c)->tool, r->name) ||
				    long_excepted(s->tool, r->name))
					continue;
				if (!s->arg != !r->arg || (s->arg && strcmp(s->arg, r->arg)))
					CHECK_MSG(false, "--%s: '%s' in %s, '%s' in %s", r->name,
						  r->arg ? r->arg : "", (*c)->tool, s->arg ? s->arg : "",
						  s->tool);
				if (s->letter && r->letter && s->letter != r->letter)
					CHECK_MSG(false, "--%s: -%c in %s, -%c in %s", r->name, r->letter,
						  (*c)->tool, s->letter, s->tool);
			}
			if (nseen < sizeof(seen) / sizeof(seen[0]))
				seen[nseen++] = (struct long_seen){ r->name, r->arg, (*c)->tool, r->letter };
		}
	}
}

/* The commands declaring long name @name (a long exception too: its
 * values differ, not what the option is for). */
static size_t declared_by(const char *name)
{
	size_t n = 0;
	struct opt_table t;

	for (const struct tool_cmdline *const *c = tool_cmdlines; *c; c++) {
		tool_cmdline__table(*c, &t);
		for (size_t i = 0; i < t.n; i++)
			if (t.row[i].name && !strcmp(t.row[i].name, name)) {
				n++;
				break;
			}
	}
	return n;
}

static void vocabulary(void)
{
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct opt_table t;

	for (const struct tool_cmdline *const *c = tool_cmdlines; *c; c++) {
		tool_cmdline__table(*c, &t);
		for (size_t i = 0; i < t.n; i++) {
			const char *name = t.row[i].name;

			if (name && declared_by(name) >= 2)
				CHECK_MSG(opt_vocabulary__meaning(name) != NULL,
					  "--%s: in %zu commands, no meaning in cmd/vocabulary.c", name,
					  declared_by(name));
		}
	}
	if (!f)
		abort();
	opt_vocabulary__list(f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		CHECK_MSG(tab && tab[1] && !strncmp(line, "--", 2), "vocabulary line '%s'", line);
		if (!tab)
			continue;
		*tab = 0;
		if (opt_vocabulary__listed(line + 2))
			CHECK_MSG(declared_by(line + 2) >= 2 && !tool_shared__meaning(line + 2),
				  "%s: in cmd/vocabulary.c but declared by %zu commands%s", line,
				  declared_by(line + 2),
				  tool_shared__meaning(line + 2) ? ", and a shared row" : "");
	}
	free(buf);
}

static void snapshots(void)
{
	size_t n;
	const struct command *c = commands__all(&n);

	for (size_t i = 0; i < n; i++) {
		const struct tool *t = c[i].tool;

		if (!t)
			continue;
		CHECK_MSG(!(t->cmdline->accepts & TOOL_OPT_SNAPSHOT) == !t->snapshot,
			  "%s: %s --snapshot-every, %s a .snapshot", t->name,
			  t->cmdline->accepts & TOOL_OPT_SNAPSHOT ? "takes" : "refuses",
			  t->snapshot ? "has" : "has no");
	}
}

int main(void)
{
	size_t n = 0, all = commands__cmdlines(tool_cmdlines, 127);

	CHECK(all < 128);

	for (const struct tool_cmdline *const *c = tool_cmdlines; *c; c++, n++) {
		struct opt_table t;
		char *help;

		CHECK_EQ_U64(tool_cmdline__table(*c, &t), 0);
		help = help_of(*c, &t);
		parsed_in_help(*c, &t, help);
		help_parsed(*c, help);
		free(help);
	}
	CHECK(n >= 22);
	{
		/* The harness itself: a refused option is seen as one. */
		char err[512];

		CHECK(try_option(tool_cmdlines[0], "--no-such-option", false, err, sizeof(err)) < 0);
		CHECK(strstr(err, "unknown option") != NULL);
		CHECK_EQ_U64(try_option(tool_cmdlines[0], "-p", true, err, sizeof(err)), 1);
	}
	meanings();
	vocabulary();
	snapshots();
	return check_done("test-opt-tables");
}
