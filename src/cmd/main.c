/*
 * faultline: which line of code leaks memory, grows the heap, maps memory or
 * faults it in, without BPF.  This file only dispatches, on the command
 * table of commands.c; each subcommand lives in cmd-<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/tool.h"
#include "cmd/tool-opts.h"

static void usage(FILE *out)
{
	size_t n;
	const struct command *c = commands__all(&n);

	fprintf(out, "usage: faultline <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %-11s %s\n", c[i].name, c[i].summary);
	fprintf(out, "\n'faultline <command> -h' shows a command's options.\n");
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
		return tool__output_status(c->cmd ? c->cmd(argc - 1, argv + 1) :
				     tool__main(c->tool, NULL, argc - 1, argv + 1));
	fprintf(stderr, "faultline: '%s' is not a faultline command (see 'faultline --help')\n",
		argv[1]);
	return EXIT_USAGE;
}
