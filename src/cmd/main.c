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
#include "cmd/vocabulary.h"
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
 * A run that a signal ended (INT, TERM, HUP, PIPE, QUIT, USR1, ALRM, XCPU,
 * XFSZ...: lib/stopsig.c) ended cleanly, its report printed, its probes
 * removed and its recording finished; then one line says which signal,
 * and the status is 128 + its number, as a shell gives for a death by it
 * (perf record does the same).  A signal that came after the run had
 * ended by itself (its command exited, its duration passed) is not what
 * ended it: the status stays the run's own (stopsig__settle()), but for
 * SIGXFSZ and SIGPIPE, which cut the report or recording short.  SIGXFSZ
 * is the file size limit (ulimit -f) reached by a write, which then
 * failed with EFBIG.
 */
static int signal_status(const char *cmd, int status)
{
	int sig = stopsig__ended_by();
	char name[32];

	if (!sig)
		return status;
	fprintf(stderr, "faultline %s: stopped by %s%s\n", cmd, stopsig__name(sig, name, sizeof(name)),
		sig == SIGXFSZ ? " (file size limit reached)" : "");
	return 128 + sig;
}

static int not_a_command(const char *name)
{
	fprintf(stderr, "faultline: '%s' is not a faultline command (see 'faultline --help')\n", name);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return tool__output_status(EXIT_OK);
	}
	/* The option vocabulary, for scripts/opt-vocabulary (as CMD
	 * --list-opts gives a command's rows). */
	if (!strcmp(argv[1], "--list-opts") && argc == 2) {
		opt_vocabulary__list(stdout);
		return tool__output_status(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("faultline %s\n", PACKAGE_VERSION);
		return tool__output_status(EXIT_OK);
	}
	/* faultline help CMD: exactly what CMD -h prints; help report SUB,
	 * what report SUB -h prints (report's subcommands are the only ones). */
	if (!strcmp(argv[1], "help")) {
		char *hargv[] = { argv[2], "-h", NULL, NULL };
		int sub = argc > 3 && !strcmp(argv[2], "report");

		c = commands__find(argv[2]);
		if (!c)
			return not_a_command(argv[2]);
		if (argc > 3 + sub) {
			fprintf(stderr, "faultline help: unexpected argument '%s' (a command, or report "
				"and a subcommand of it)\n", argv[3 + sub]);
			return EXIT_USAGE;
		}
		if (sub)
			hargv[1] = argv[3], hargv[2] = "-h";
		return tool__output_status(c->cmd ? c->cmd(2 + sub, hargv) :
					   tool__main(c->tool, NULL, 2, hargv));
	}
	c = commands__find(argv[1]);
	/* --version right after a command, as git and perf take it. */
	if (c && argc == 3 && !strcmp(argv[2], "--version")) {
		printf("faultline %s\n", PACKAGE_VERSION);
		return tool__output_status(EXIT_OK);
	}
	if (c) {
		int st = c->cmd ? c->cmd(argc - 1, argv + 1) :
				  tool__main(c->tool, NULL, argc - 1, argv + 1);

		return signal_status(argv[1], tool__output_status(st));
	}
	return not_a_command(argv[1]);
}
