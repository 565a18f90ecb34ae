/*
 * commands: the subcommands of faultline.  Each parses its own options,
 * orchestrates modules and prints; each returns the process exit status
 * (see EXIT_* below).  Only commands print.
 */
#ifndef FAULTLINE_COMMANDS_H
#define FAULTLINE_COMMANDS_H

/* Exit statuses, as eu-stack documents its own: */
#define EXIT_OK		0	/* done */
#define EXIT_FAIL	1	/* could not do it (the reason is on stderr) */
#define EXIT_USAGE	2	/* bad command line */

int cmd_features(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_brk(int argc, char **argv);
int cmd_mmap(int argc, char **argv);
int cmd_leak(int argc, char **argv);
int cmd_heap(int argc, char **argv);
int cmd_faults(int argc, char **argv);
int cmd_ffaults(int argc, char **argv);
int cmd_hfaults(int argc, char **argv);
int cmd_reclaim(int argc, char **argv);
int cmd_swapin(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_cachetop(int argc, char **argv);
int cmd_oom(int argc, char **argv);
int cmd_pressure(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* report -i FILE timeline (cmd-timeline.c): argv[0] is "timeline". */
struct replay_opts;
int report_timeline(const struct replay_opts *ro, int argc, char **argv);

/* The command function of @name (leak, faults...), or NULL: how record
 * and report run a tool's own code. */
int (*commands__tool(const char *name))(int argc, char **argv);

#endif
