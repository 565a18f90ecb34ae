/*
 * faultline: which line of code leaks memory, grows the heap, maps memory or
 * faults it in, without BPF.  This file is only the command table (as git's
 * git.c and perf's perf.c): each subcommand lives in src/cmd-<name>.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "leak", cmd_leak, "outstanding allocations by stack, user or kernel (memleak)" },
	{ "heap", cmd_heap, "calls, peak, temporary allocations and leaks by stack (heaptrack_print)" },
	{ "faults", cmd_faults, "page faults by user stack and process, minor and major" },
	{ "ffaults", cmd_ffaults, "page faults on file-backed memory, by file (ffaults.bt)" },
	{ "hfaults", cmd_hfaults, "huge-page faults (THP and hugetlb) by process (hfaults.bt)" },
	{ "brk", cmd_brk, "brk(2) calls counted by user stack and process (brkstack)" },
	{ "mmap", cmd_mmap, "every mmap/munmap with flags, file and stack; net bytes per process" },
	{ "reclaim", cmd_reclaim, "direct and memcg reclaim with latency per process (drsnoop); -s vmscan summary" },
	{ "swapin", cmd_swapin, "swap-ins counted by process per interval (BCC swapin)" },
	{ "cache", cmd_cache, "page-cache hits, misses, dirties per interval (BCC cachestat)" },
	{ "oom", cmd_oom, "one line per OOM kill: trigger, victim, memcg (BCC oomkill)" },
	{ "pressure", cmd_pressure, "memory PSI, reclaim, swap, compaction, OOM kills per interval; PSI triggers" },
	{ "cachetop", cmd_cachetop, "page-cache hits, misses, dirties per process (BCC cachetop)" },
	{ "record", cmd_record, "record the events of several tools once, to a file (perf record)" },
	{ "report", cmd_report, "any tool's report, a perf script dump or a timeline, from a recording" },
	{ "features", cmd_features, "what this kernel offers and which event source each tool uses" },
	{ "cleanup", cmd_cleanup, "remove probes left by faultline processes that died" },
};

int (*commands__tool(const char *name))(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn;
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: faultline <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'faultline <command> -h' shows a command's options.\n");
}

/*
 * A report that could not be written is no report: a full disk or a closed
 * pipe under `faultline leak ... >FILE` must not exit 0.  Flush what the
 * command left buffered and check the stream once, here, for every command.
 */
static int output_status(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (status != EXIT_OK)
		return status;	/* the command said what went wrong */
	if (errno)
		fprintf(stderr, "faultline: cannot write the output: %s\n", strerror(errno));
	else
		fprintf(stderr, "faultline: cannot write the output\n");
	return EXIT_FAIL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return output_status(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("faultline %s\n", PACKAGE_VERSION);
		return output_status(EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return output_status(commands[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "faultline: '%s' is not a faultline command (see 'faultline --help')\n",
		argv[1]);
	return EXIT_USAGE;
}
