/*
 * faultline cleanup: remove the probe groups of faultline processes that
 * are gone (killed with SIGKILL, or lost with their machine's power), and
 * nothing else: groups of live faultline processes and other tools' probes
 * are left alone.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "cmd/commands.h"
#include "cmd/tool-opts.h"
#include "features.h"
#include "trace/perf-cgroup.h"
#include "trace/probe-group.h"

struct cleanup_ctx {
	bool dry;
};

static const struct tool_option cleanup_options[] = {
	OPT_BOOLEAN('n', "dry-run", struct cleanup_ctx, dry,
		    "say what would be removed, and remove nothing"),
	OPT_END,
};

const struct tool_cmdline cleanup_cmdline = {
	.tool = "cleanup",
	.accepts = TOOL_OPT_NO_SHARED | TOOL_OPT_NO_OUTPUT,
	.options = cleanup_options,
	.text = {
		.args = "",
		.intro = "Removes the probe groups faultline_<pid> whose faultline process is gone,\n"
			 "and the cgroups faultline_<pid> it gave the commands it ran.\n\n",
	},
};

int cmd_cleanup(int argc, char **argv)
{
	struct stale_group *stale = NULL;
	struct features *f = NULL;
	struct fl_roots roots = { 0 };
	struct errbuf eb = { "" };
	size_t n = 0, removed = 0;
	int err, ret = EXIT_FAIL;
	bool dry = false;

	struct option longopts[OPT_TABLE_MAX + 1];
	char shortopts[3 * OPT_TABLE_MAX + 2];
	struct opt_table t;
	struct opt_text x;
	int c;

	c = tool_cmdline__plain(&cleanup_cmdline, &t, &x, shortopts, longopts, argc, argv);
	if (c)
		return c > 0 ? EXIT_OK : EXIT_FAIL;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int i = opt_table__row_of(&t, c);

		if (i >= 0 && t.row[i].to == TOOL_OPTION_FLAG) {
			dry = true;
		} else if (i >= 0) {
			opt_table__help(&t, &x, stdout);
			return EXIT_OK;
		} else {
			break;
		}
	}
	if (c != -1 || optind < argc) {
		fprintf(stderr, "faultline cleanup: unknown option '%s'\n",
			c != -1 ? argv[optind - 1] : argv[optind]);
		opt_table__usage(&t, &x, stderr);
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "faultline cleanup: must run as root to change tracefs\n");
		return EXIT_FAIL;
	}
	/* The cgroups the PMU rung gave its commands (perf-cgroup.h):
	 * first, as they need no tracefs (the PMU rung is for hosts
	 * without it). */
	{
		char *names = NULL, *line, *save = NULL;

		perf_cgroup__remove_stale(probe_group__owner_alive, dry, &names);
		for (line = names ? strtok_r(names, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			printf("%s cgroup %s of a dead faultline process\n",
			       dry ? "would remove" : "removed", line);
		free(names);
	}
	err = features__probe(&roots, &f, &eb);
	if (err || !features__has(f, FEAT_TRACEFS)) {
		fprintf(stderr, "faultline cleanup: %s\n",
			err ? errbuf__str(&eb, err) : features__why(f, FEAT_TRACEFS));
		goto out;
	}
	if (tracefs_set_tracing_dir((char *)features__tracefs_dir(f)) < 0) {
		fprintf(stderr, "faultline cleanup: cannot use '%s'\n", features__tracefs_dir(f));
		goto out;
	}
	err = probe_groups__find_stale(&stale, &n, &eb);
	if (err) {
		fprintf(stderr, "faultline cleanup: %s\n", errbuf__str(&eb, err));
		goto out;
	}
	ret = EXIT_OK;
	for (size_t i = 0; i < n; i++) {
		if (dry) {
			printf("would remove %s: %zu probes of dead faultline process %d\n",
			       stale[i].name, stale[i].nprobes, (int)stale[i].pid);
			continue;
		}
		errbuf__clear(&eb);
		err = probe_groups__remove(stale[i].name, &eb);
		if (err) {
			fprintf(stderr, "faultline cleanup: %s\n", errbuf__str(&eb, err));
			ret = EXIT_FAIL;
			continue;
		}
		removed++;
		printf("removed %s: %zu probes of dead faultline process %d\n", stale[i].name,
		       stale[i].nprobes, (int)stale[i].pid);
	}
	if (!n)
		printf("no stale faultline probes\n");
	else if (!dry)
		printf("removed %zu of %zu stale groups\n", removed, n);
out:
	free(stale);
	features__free(f);
	return ret;
}
