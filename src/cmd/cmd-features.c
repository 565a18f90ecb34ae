/*
 * cmd-features: `faultline features` shows what this kernel offers and
 * which event source each tool will use, and why better ones were refused.
 *
 * It is the first thing to run on an unfamiliar machine, and what a bug
 * report should include: every line carries the evidence (the file that
 * was or was not there), and FAULTLINE_MASK's effect is visible.  With
 * --root it reads a fixture tree instead (DIR/tracing, DIR/sys, DIR/proc)
 * and mounts nothing.  Live, it also says which of perf_event_attr's
 * later bits the kernel takes (perf_caps__probe()), by opening a software
 * event on itself with each.  Exit status: 0 ok, 1 probing failed, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/json.h"
#include "cmd/commands.h"
#include "cmd/tool-opts.h"
#include "features.h"
#include "ladder.h"
#include "lib/errbuf.h"
#include "trace/perf-event.h"


#define WHY_LEN 256
#define MAX_RUNGS 16
#define MAX_LADDERS 64

enum { FEATURES_ROOT = 1 };

static const struct tool_option features_options[] = {
	OPT_SHARED(TOOL_SHARED_JSON, "one JSON object per line: the system, each feature, each tool"),
	OPT_CALL(0, "root", "DIR", FEATURES_ROOT,
		 "probe the tree DIR/tracing, DIR/sys, DIR/proc instead of this\n"
		 "kernel (e.g. tests/fixtures/kernels/rhel7-3.10)"),
	OPT_END,
};

/* --root DIR into the const char * @ctx. */
static const char *features_opt(int key, const char *arg, void *ctx)
{
	(void)key;
	*(const char **)ctx = arg;
	return NULL;
}

const struct tool_cmdline features_cmdline = {
	.tool = "features",
	.opt = features_opt,
	.accepts = (TOOL_OPT_NO_SHARED & ~TOOL_OPT_NO_JSON) | TOOL_OPT_NO_OUTPUT,
	.options = features_options,
	.text = {
		.args = "",
		.intro = "\n",
		.notes = "\nFAULTLINE_MASK=name,...,system:event,system:* makes features and\n"
			 "tracepoints look absent, to exercise the fallbacks.\n",
	},
};

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void print_privileges(const struct features *f)
{
	const char *sep = "";

	if (features__is_root(f)) {
		printf("root");
		sep = ", ";
	}
	if (features__cap_sys_admin(f)) {
		printf("%sCAP_SYS_ADMIN", sep);
		sep = ", ";
	}
	if (features__cap_perfmon(f)) {
		printf("%sCAP_PERFMON", sep);
		sep = ", ";
	}
	if (!*sep)
		printf("unprivileged");
	printf("\n");
}

/* What perf_event_attr takes (perf_caps__probe()), live; -1 with --root:
 * a fixture tree holds no perf_event_open. */
static void text_perf_caps(long caps)
{
	const char *sep = "takes ";

	printf("%-20s ", "perf_event_attr");
	if (caps < 0) {
		printf("not probed (--root)\n");
		return;
	}
	for (int c = 0; c < PERF_CAP__COUNT; c++)
		if (caps & (1L << c)) {
			printf("%s%s", sep, perf_cap__name(c));
			sep = " ";
		}
	sep = *sep == 't' ? "lacks " : "; lacks ";
	for (int c = 0; c < PERF_CAP__COUNT; c++)
		if (!(caps & (1L << c))) {
			printf("%s%s (Linux %s)", sep, perf_cap__name(c), perf_cap__since(c));
			sep = ", ";
		}
	printf("\n");
}

static void text_features(const struct features *f, long caps)
{
	int id, paranoid = features__paranoid(f);

	printf("%-20s %-5s %s\n", "FEATURE", "AVAIL", "EVIDENCE");
	for (id = 0; id < FEAT__COUNT; id++)
		printf("%-20s %-5s %s\n", feature__name(id), yes_no(features__has(f, id)),
		       features__why(f, id));
	printf("\n");
	if (paranoid == INT_MIN)
		printf("%-20s %s\n", "perf_event_paranoid", "unreadable");
	else
		printf("%-20s %d\n", "perf_event_paranoid", paranoid);
	printf("%-20s ", "privileges");
	print_privileges(f);
	printf("%-20s %s\n", "lockdown", features__lockdown(f));
	if (strcmp(features__lockdown(f), "confidentiality") == 0)
		printf("%-20s %s\n", "", "tracefs is unusable under confidentiality lockdown");
	printf("%-20s %s\n", "tracefs dir", *features__tracefs_dir(f) ? features__tracefs_dir(f) : "none");
	text_perf_caps(caps);
	printf("\n");
}

static void text_tool(const struct ladder *l, int chosen, char (*why)[WHY_LEN])
{
	size_t i;

	if (chosen < 0)
		printf("%-8s none available\n", l->tool);
	else if (l->rungs[chosen].loses[0])
		printf("%-8s %s (loses: %s)\n", l->tool, l->rungs[chosen].label, l->rungs[chosen].loses);
	else
		printf("%-8s %s\n", l->tool, l->rungs[chosen].label);
	for (i = 0; i < l->n && (chosen < 0 || i < (size_t)chosen); i++)
		printf("%-8s   refused %s: %s\n", "", l->rungs[i].label, why[i]);
	for (i = (size_t)chosen + 1; chosen >= 0 && i < l->n; i++) {
		if (why[i][0])
			printf("%-8s   fallback %s: unavailable: %s\n", "", l->rungs[i].label, why[i]);
		else
			printf("%-8s   fallback %s (loses: %s)\n", "", l->rungs[i].label, l->rungs[i].loses);
	}
}

static void json_features(const struct features *f, long caps)
{
	int id, paranoid = features__paranoid(f);

	printf("{\"type\":\"system\",\"perf_event_paranoid\":");
	if (paranoid == INT_MIN)
		printf("null");
	else
		printf("%d", paranoid);
	printf(",\"root\":%s,\"cap_sys_admin\":%s,\"cap_perfmon\":%s,\"privileged\":%s,\"lockdown\":",
	       features__is_root(f) ? "true" : "false", features__cap_sys_admin(f) ? "true" : "false",
	       features__cap_perfmon(f) ? "true" : "false", features__privileged(f) ? "true" : "false");
	json__str(stdout, features__lockdown(f));
	printf(",\"tracefs_dir\":");
	json__str(stdout, features__tracefs_dir(f));
	printf(",\"uprobe_pmu_type\":%d,\"kprobe_pmu_type\":%d,\"perf_event_attr\":",
	       features__uprobe_pmu_type(f), features__kprobe_pmu_type(f));
	if (caps < 0)
		printf("null");
	for (int c = 0; caps >= 0 && c < PERF_CAP__COUNT; c++)
		printf("%s\"%s\":%s", c ? "," : "{", perf_cap__name(c),
		       caps & (1L << c) ? "true" : "false");
	printf("%s}\n", caps < 0 ? "" : "}");
	for (id = 0; id < FEAT__COUNT; id++) {
		printf("{\"type\":\"feature\",\"feature\":");
		json__str(stdout, feature__name(id));
		printf(",\"available\":%s,\"why\":", features__has(f, id) ? "true" : "false");
		json__str(stdout, features__why(f, id));
		printf("}\n");
	}
}

static void json_tool(const struct ladder *l, int chosen, char (*why)[WHY_LEN])
{
	size_t i;

	printf("{\"type\":\"tool\",\"tool\":");
	json__str(stdout, l->tool);
	printf(",\"rung\":");
	if (chosen < 0) {
		printf("null,\"label\":null");
	} else {
		json__str(stdout, l->rungs[chosen].key);
		printf(",\"label\":");
		json__str(stdout, l->rungs[chosen].label);
	}
	printf(",\"rungs\":[");
	for (i = 0; i < l->n; i++) {
		printf("%s{\"key\":", i ? "," : "");
		json__str(stdout, l->rungs[i].key);
		printf(",\"label\":");
		json__str(stdout, l->rungs[i].label);
		printf(",\"available\":%s,\"chosen\":%s,\"loses\":", why[i][0] ? "false" : "true",
		       (int)i == chosen ? "true" : "false");
		json__str(stdout, l->rungs[i].loses);
		printf(",\"why\":");
		json__str(stdout, why[i]);
		printf("}");
	}
	printf("]}\n");
}

/**
 * cmd_features() - `faultline features [--json] [--root DIR]`
 * @argc: argument count, argv[0] being the command name ("features")
 * @argv: arguments; not modified, not retained
 *
 * Prints the feature table, the system facts and each tool's chosen rung to
 * stdout.  May mount tracefs when probing the live system (see
 * features__locate_tracefs()).
 *
 * Return: exit status: 0, 1 when probing failed, 2 on bad usage.
 */
int cmd_features(int argc, char **argv)
{
	struct option longopts[OPT_TABLE_MAX + 1];
	char shortopts[3 * OPT_TABLE_MAX + 2];
	struct opt_table t;
	struct opt_text x;
	char tracing[PATH_MAX], sys[PATH_MAX], proc[PATH_MAX], rootdir[PATH_MAX];
	char why[MAX_RUNGS][WHY_LEN];
	struct fl_roots roots = { NULL, NULL, NULL };
	struct errbuf eb = { "" };
	struct features *f = NULL;
	const struct ladder *ladders[MAX_LADDERS];
	const char *root = NULL;
	bool json = false;
	struct stat st;
	size_t nladders, i, len;
	int opt, err, chosen, status = EXIT_OK;
	long caps;

	opt = tool_cmdline__plain(&features_cmdline, &t, &x, shortopts, longopts, argc, argv);
	if (opt)
		return opt > 0 ? EXIT_OK : EXIT_FAIL;
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		int row = opt_table__row_of(&t, opt);

		if (row >= 0 && t.shared[row] && t.row[row].key == TOOL_SHARED_JSON) {
			json = true;
		} else if (row >= 0 && !t.shared[row]) {
			features_opt(t.row[row].key, optarg, &root);
		} else if (row >= 0) {
			opt_table__help(&t, &x, stdout);
			goto out;
		} else {
			if (optind > 0 && strcmp(argv[optind - 1], "--root") == 0)
				fprintf(stderr, "faultline features: option '--root' needs a directory\n");
			else
				fprintf(stderr, "faultline features: unknown option '%s'\n", argv[optind - 1]);
			opt_table__help(&t, &x, stderr);
			status = EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "faultline features: unexpected argument '%s'\n", argv[optind]);
		opt_table__help(&t, &x, stderr);
		status = EXIT_USAGE;
		goto out;
	}

	if (root) {
		if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "faultline features: root '%s' is not a directory\n", root);
			status = EXIT_FAIL;
			goto out;
		}
		/* "DIR/" would make every evidence path read "DIR//tracing". */
		len = strlen(root);
		while (len > 1 && root[len - 1] == '/')
			len--;
		if (len >= sizeof(rootdir) ||
		    snprintf(rootdir, sizeof(rootdir), "%.*s", (int)len, root) >= (int)sizeof(rootdir) ||
		    snprintf(tracing, sizeof(tracing), "%s/tracing", rootdir) >= (int)sizeof(tracing) ||
		    snprintf(sys, sizeof(sys), "%s/sys", rootdir) >= (int)sizeof(sys) ||
		    snprintf(proc, sizeof(proc), "%s/proc", rootdir) >= (int)sizeof(proc)) {
			fprintf(stderr, "faultline features: root '%s' is too long\n", root);
			status = EXIT_FAIL;
			goto out;
		}
		roots.tracefs = tracing;
		roots.sysfs = sys;
		roots.procfs = proc;
	}

	err = features__probe(&roots, &f, &eb);
	if (err) {
		fprintf(stderr, "faultline features: %s\n", errbuf__str(&eb, err));
		status = EXIT_FAIL;
		goto out;
	}

	/* Live only: what this kernel's perf_event_open takes. */
	caps = root ? -1 : (long)perf_caps__probe();
	if (json)
		json_features(f, caps);
	else
		text_features(f, caps);
	if (!json)
		printf("%-8s %s\n", "TOOL", "SOURCE");
	/* Every tool's, in the command table's order. */
	nladders = commands__ladders(ladders, MAX_LADDERS);
	for (i = 0; i < nladders && i < MAX_LADDERS; i++) {
		/* Ladders are short; a longer one would be a table bug, and
		 * its extra rungs are simply not shown. */
		const struct ladder l = {
			ladders[i]->tool, ladders[i]->rungs,
			ladders[i]->n < MAX_RUNGS ? ladders[i]->n : MAX_RUNGS
		};

		chosen = ladder__choose(&l, f, why, MAX_RUNGS);
		if (json)
			json_tool(&l, chosen, why);
		else
			text_tool(&l, chosen, why);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "faultline features: cannot write output: %s\n", strerror(errno));
		status = EXIT_FAIL;
	}
out:
	features__free(f);
	return status;
}
