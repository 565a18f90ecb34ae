/*
 * faultline: which line of code leaks memory, grows the heap, maps memory or
 * faults it in, without BPF.  This file only dispatches, on the command
 * table of commands.c; each subcommand lives in cmd-<name>.c.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/tool.h"
#include "cmd/tool-opts.h"
#include "lib/stopsig.h"

static void usage(FILE *out)
{
	size_t n;
	const struct command *c = commands__all(&n);

	fprintf(out, "usage: faultline <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-11s %s\n", c[i].name, c[i].summary);
	fprintf(out, "\n'faultline <command> -h' shows a command's options.\n");
}

/*
 * A run that a signal other than INT, TERM, HUP or PIPE ended (QUIT, USR1,
 * ALRM, XCPU, XFSZ...: lib/stopsig.c) ended as those do, its probes
 * removed and its recording finished, but it did not end as asked: one
 * line says which signal, and the status is 128 + its number, as a shell
 * gives for a death by it.  SIGXFSZ is the file size limit (ulimit -f)
 * reached by a write, which then failed with EFBIG.
 */
static int signal_status(int status)
{
	int sig = stopsig__ended_by();

	if (!sig)
		return status;
	if (sig == SIGXFSZ)
		fprintf(stderr, "faultline: file size limit reached (SIGXFSZ): stopped, probes "
			"removed\n");
	else
		fprintf(stderr, "faultline: stopped by SIG%s: probes removed\n", sigabbrev_np(sig));
	return 128 + sig;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return tool__output_status(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("faultline %s\n", PACKAGE_VERSION);
		return tool__output_status(EXIT_OK);
	}
	c = commands__find(argv[1]);
	if (c)
		return signal_status(tool__output_status(c->cmd ? c->cmd(argc - 1, argv + 1) :
							 tool__main(c->tool, NULL, argc - 1, argv + 1)));
	fprintf(stderr, "faultline: '%s' is not a faultline command (see 'faultline --help')\n",
		argv[1]);
	return EXIT_USAGE;
}
