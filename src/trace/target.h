/*
 * target: what a session traces: every process (-a), one running process
 * (-p PID) or a command faultline starts (-c "CMD ARGS", or perf's form
 * "-- CMD ARGS...", whose arguments are passed as they are).
 *
 * A command is forked at once but held before exec(2) until the session
 * has every event in place and calls target__release(), so the command's
 * first instruction is traced.  An exec failure is reported back through a
 * close-on-exec pipe, so "cannot execute" is an error, not a silent exit.
 */
#ifndef FAULTLINE_TARGET_H
#define FAULTLINE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/errbuf.h"

enum target_kind { TARGET_ALL, TARGET_PID, TARGET_CMD };

struct target;

int target__new_all(struct target **out);
/* -ESRCH with "no process with pid N" when it does not exist. */
int target__new_pid(pid_t pid, struct target **out, struct errbuf *eb);
/* Split cmdline like a shell would (quotes, no expansion of commands), fork
 * and hold the child.  -EINVAL for an empty or unparsable command line. */
int target__new_cmd(const char *cmdline, struct target **out, struct errbuf *eb);
/*
 * target__new_argv - fork and hold the command argv[0..argc-1], its
 * arguments as they are (no shell parsing)
 * @cmdline: how messages name the command (target__quote_argv's text)
 *
 * argv is copied.  -EINVAL for an empty command, -errno with "cannot
 * execute 'X': ..." when argv[0] cannot be executed.
 */
int target__new_argv(int argc, char *const *argv, const char *cmdline, struct target **out,
		     struct errbuf *eb);
/*
 * target__quote_argv - argv as one line a POSIX shell (and -c) splits back
 * into the same words: a word with characters other than letters, digits
 * and _-+=/.,:@%^ is single-quoted.  Writes at most n bytes with the NUL,
 * truncating, and returns the length the whole text needs (as snprintf).
 */
size_t target__quote_argv(int argc, char *const *argv, char *buf, size_t n);

enum target_kind target__kind(const struct target *t);
/* The pid traced (-p) or started (-c); -1 for -a. */
pid_t target__pid(const struct target *t);
const char *target__cmdline(const struct target *t);
/* A command's file as execvp finds it on PATH (argv[0] when it has a
 * '/'); NULL for -p and -a. */
const char *target__exe(const struct target *t);
/* @argv0 as execvp would find it: itself when it has a '/', else on PATH;
 * a regular file with execute permission (nothing is run).  0 with *@found
 * malloc'ed; -errno (EACCES beats ENOENT, as execvp). */
int target__which(const char *argv0, char **found);

/* Let a held command exec.  -errno with "cannot execute 'X': ..." when exec
 * failed (the child has then exited and been reaped). */
int target__release(struct target *t, struct errbuf *eb);

/* Threads of a -p target now (from /proc/PID/task).  *tids malloc'ed. */
int target__threads(const struct target *t, pid_t **tids, size_t *n);

/*
 * target__hold_exit - hold the -p or -c process at its exit, its memory
 * intact, until target__let_exit() (or target__free())
 *
 * For a tool that needs the process's pages or maps after its last event
 * (hfaults reads /proc/PID/pagemap for every fault): the process is
 * ptrace-seized (PTRACE_O_TRACEEXIT, src/trace/exit-hold.c) and stops in
 * do_exit before its address space is torn down; target__exited() is then
 * true and target__status() has its exit status.  Its signals are passed
 * on by target__exited(), so call that often.  -EOPNOTSUPP for -a,
 * -EPERM when it is traced already; detail in @eb.
 */
int target__hold_exit(struct target *t, struct errbuf *eb);
/* Let a held process finish exiting; a command is then reaped.  Fine
 * without a hold and with NULL. */
void target__let_exit(struct target *t);

/* Has the traced process ended (or reached its exit, held)?  For a command, reaps it (non-blocking) and
 * records its exit status. */
bool target__exited(struct target *t);
/* A -p target that is a kernel thread (PF_KTHREAD in /proc/PID/stat):
 * no user space, no maps, no executable.  False for -c and -a. */
bool target__kernel_thread(const struct target *t);
/* Exit status of a reaped command (as from waitpid), or -1. */
int target__status(const struct target *t);

/* A command still running is terminated (SIGTERM, then SIGKILL) and reaped;
 * a -p process is left alone.  NULL is fine. */
void target__free(struct target *t);

#endif
