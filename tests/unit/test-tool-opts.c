/*
 * test-tool-opts: the options every tracing tool shares (cmd/tool-opts.c),
 * parsed without a kernel: targets (-p, -c, "-- CMD ARGS", -a) and their
 * exclusions, -m, --call-graph, the output formats, a tool's own options
 * and letters taking over shared ones, refused options, the trailing
 * duration, and a report's target defaulting to the recorded one.
 * (Usage errors print their one line to stderr, as they do in the tools.)
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../src/cmd/tool-opts.h"
#include "check.h"

static const char *own_opt(int c, const char *arg, void *ctx);

/* Parses @argv (NULL-terminated) as tool "t" accepting @accepts, with
 * its own @rows (NULL: none) going to own_opt(). */
static int parse(struct tool_opts *o, const struct tool_mode *mode, unsigned int accepts,
		 const struct tool_option *rows, char **argv)
{
	const struct tool_cmdline cl = { .tool = "t", .accepts = accepts, .options = rows,
					 .opt = own_opt };
	int argc = 0;

	while (argv[argc])
		argc++;
	return tool_opts__parse_cmdline(o, mode, &cl, NULL, argc, argv);
}

/* An argv whose array lives for its statement only: nothing kept from it
 * is read after. */
#define ARGV(...) ((char *[]){ "t", __VA_ARGS__, NULL })

static void test_targets(void)
{
	/* Named: the options keep pointers into it (cmd_argv). */
	char *dd[] = { "t", "--", "prog", "a b", "c", NULL };
	struct tool_opts o;

	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("-p", "42")), 0);
	CHECK_EQ_U64(o.sess.pid, 42);
	CHECK(o.mode != NULL && !o.mode->replay);
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("-c", "ls -l")), 0);
	CHECK(o.sess.cmd && !strcmp(o.sess.cmd, "ls -l") && !o.sess.cmd_argv);
	/* perf's "-- CMD ARGS": taken as they are, quoted for messages. */
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, dd), 0);
	CHECK_EQ_U64(o.sess.cmd_argc, 3);
	CHECK(o.sess.cmd_argv && !strcmp(o.sess.cmd_argv[1], "a b"));
	CHECK(o.sess.cmd == o.cmdline && !strcmp(o.cmdline, "prog 'a b' c"));
	/* Options after "--" are the command's. */
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("--", "prog", "-p", "1")), 0);
	CHECK_EQ_U64(o.sess.pid, 0);
	CHECK_EQ_U64(o.sess.cmd_argc, 3);
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("-a")), 0);
	CHECK(o.all);
	/* One target. */
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-p", "42", "-c", "ls")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-p", "42", "-a")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-c", "ls", "--", "ls")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--")) < 0);
	CHECK(parse(&o, NULL, TOOL_OPT_NO_CMD, NULL, ARGV("--", "ls")) < 0);
	/* Bad pids. */
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-p", "0")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-p", "12x")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-p", "99999999999")) < 0);
	/* --pause is for a -p target, never every process. */
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("--pause", "-p", "42")), 0);
	CHECK_EQ_U64(o.sess.pause, SESSION_PAUSE_ON);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--pause", "-a")) < 0);
}

static void test_session_options(void)
{
	struct tool_opts o;

	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("-m", "64", "-a")), 0);
	CHECK_EQ_U64(o.sess.mmap_pages, 64);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-m", "63")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-m", "2097152")) < 0);
	CHECK(parse(&o, NULL, TOOL_OPT_NO_MMAP, NULL, ARGV("-m", "64")) < 0);
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "fp", "-a")), 0);
	CHECK_EQ_U64(o.sess.callgraph, CALLGRAPH_FP);
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "dwarf", "-a")), 0);
	CHECK_EQ_U64(o.sess.callgraph, CALLGRAPH_DWARF);
	CHECK_EQ_U64(o.sess.stack_size, 0);	/* the session's default */
	/* Rounded up to 8 bytes; the kernel's limit. */
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "dwarf,1001", "-a")), 0);
	CHECK_EQ_U64(o.sess.stack_size, 1008);
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "dwarf,65528", "-a")), 0);
	CHECK_EQ_U64(o.sess.stack_size, SESSION_MAX_STACK_SIZE);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "dwarf,65536")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "dwarf,")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "fp,8")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--call-graph", "lbr")) < 0);
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("--unwinder", "libunwind", "-a")), 0);
	CHECK(o.sess.unwinder && !strcmp(o.sess.unwinder, "libunwind"));
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--unwinder", "gdb")) < 0);
	CHECK(parse(&o, NULL, TOOL_OPT_NO_UNWIND, NULL, ARGV("--call-graph", "fp")) < 0);
}

static void test_outputs_and_positionals(void)
{
	struct tool_opts o;

	CHECK_EQ_U64(parse(&o, NULL, TOOL_OPT_FOLDED, NULL, ARGV("--folded", "-a")), 0);
	CHECK(o.folded);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--folded")) < 0);
	CHECK(parse(&o, NULL, TOOL_OPT_FOLDED, NULL, ARGV("--folded", "--json")) < 0);
	CHECK(parse(&o, NULL, TOOL_OPT_NO_JSON, NULL, ARGV("--json")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-T")) < 0);
	CHECK_EQ_U64(parse(&o, NULL, TOOL_OPT_T | TOOL_OPT_G, NULL, ARGV("-T", "-g", "-a")), 0);
	CHECK(o.timestamps && o.stacks);
	/* The trailing duration, in seconds. */
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("-a", "2.5")), 0);
	CHECK(o.sess.duration > 2.49 && o.sess.duration < 2.51);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("-a", "2", "3")) < 0);
	CHECK(parse(&o, NULL, 0, NULL, ARGV("--nope")) < 0);
	/* -h prints the help: 1. */
	CHECK_EQ_U64(parse(&o, NULL, 0, NULL, ARGV("-h")), 1);
}

/* A tool's own options, and a shared letter it takes for itself. */
static unsigned int seen_s, seen_x;

static const char *own_opt(int c, const char *arg, void *ctx)
{
	(void)ctx;
	if (c == 's') {
		seen_s++;
		return strcmp(arg, "bad") ? NULL : "-s wants something else, not";
	}
	if (c == 256) {
		seen_x++;
		return NULL;
	}
	return "unknown option";
}

static void test_extra(void)
{
	/* "T" is the tool's: the shared -T goes. */
	static const struct tool_option extra[] = {
		OPT_CALL(0, "extra", NULL, 256, "x"),
		OPT_CALL('s', "stack-letter", "S", 's', "s"),
		OPT_CALL('T', NULL, NULL, 'T', "t"),
		OPT_END,
	};
	struct tool_opts o;

	seen_s = seen_x = 0;
	CHECK_EQ_U64(parse(&o, NULL, TOOL_OPT_T, extra, ARGV("-s", "1", "--extra", "-a")), 0);
	CHECK_EQ_U64(seen_s, 1);
	CHECK_EQ_U64(seen_x, 1);
	CHECK(parse(&o, NULL, 0, extra, ARGV("-s", "bad")) < 0);
	/* Its own -T reaches its handler (unknown there), not timestamps. */
	CHECK(parse(&o, NULL, TOOL_OPT_T, extra, ARGV("-T")) < 0);
	CHECK(!o.timestamps);
	/* Without ANY_ORDER, options stop at the first positional. */
	CHECK(parse(&o, NULL, 0, extra, ARGV("-a", "1", "-s", "2")) < 0);
}

/* A report: -c refused, the recorded target by default, -p narrows. */
static void test_replay(void)
{
	struct replay_opts *ro = (struct replay_opts *)(uintptr_t)1;	/* only tested for non-NULL */
	const struct tool_mode cmd = { .replay = ro, .command = "prog x" };
	const struct tool_mode pid = { .replay = ro, .target_pid = 77 };
	struct tool_opts o;

	CHECK_EQ_U64(parse(&o, &cmd, 0, NULL, ARGV("-m", "8")), 0);
	CHECK(o.sess.cmd && !strcmp(o.sess.cmd, "prog x"));
	CHECK_EQ_U64(o.sess.pid, 0);
	CHECK_EQ_U64(parse(&o, &pid, 0, NULL, ARGV("-m", "8")), 0);
	CHECK_EQ_U64(o.sess.pid, 77);
	CHECK_EQ_U64(parse(&o, &pid, 0, NULL, ARGV("-p", "78")), 0);
	CHECK_EQ_U64(o.sess.pid, 78);
	CHECK(parse(&o, &cmd, 0, NULL, ARGV("-c", "ls")) < 0);
}

int main(void)
{
	test_targets();
	test_session_options();
	test_outputs_and_positionals();
	test_extra();
	test_replay();
	return check_done("test-tool-opts");
}
