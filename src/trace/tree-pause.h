/*
 * tree-pause: stop a traced process and every process descended from it
 * (SIGSTOP), and later let exactly those go on (SIGCONT): the session's
 * back-pressure, when its rings fill faster than they drain (drain.h).
 *
 * Why signals and not the cgroup freezer: the freezer is a hierarchy of
 * its own (v1 "freezer", or cgroup2's cgroup.freeze, which only 5.2 has);
 * the one cgroup a session may already have made for its command is in
 * the perf_event hierarchy, where 3.10's v1 mount has no freezer, so the
 * freezer would be a second cgroup to make, move the command into and
 * clean up, and a faultline killed with SIGKILL would leave the target
 * frozen where nothing shows it (a stopped process shows "T" in ps, and
 * `kill -CONT` ends it).  SIGSTOP works on every kernel the same way.
 *
 * Forked children: the tree is found from /proc (every process whose
 * parent is in it), stopping each as it is found and scanning again until
 * a scan finds no one new.  A fork racing a stop cannot escape it: the
 * kernel fails a fork whose parent has a signal pending and restarts it
 * after the signal (copy_process()), so a child either existed before the
 * parent's SIGSTOP was sent, and the next scan finds it, or is forked
 * after the SIGCONT.  A process that left the tree (reparented to init
 * when its parent exited) is not found.
 *
 * The calling process is never stopped (-p of the shell that runs
 * faultline has faultline in its tree), nor is a process already stopped
 * when a pause begins (job control, a debugger, a tracer's stop: state T
 * or t), stopped by someone else: it is neither stopped nor continued.  A stop never looks like an exit: the
 * session's waitpid() asks for exits only (no WUNTRACED), and a target
 * held by ptrace (exit-hold.c) serves a group stop as a stop.
 */
#ifndef FAULTLINE_TREE_PAUSE_H
#define FAULTLINE_TREE_PAUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct tree_pause;

/* Processes one pause stops at most (the rest of a larger tree runs on;
 * the list is fixed so that the fatal-signal path can read it). */
#define TREE_PAUSE_MAX 4096

/* For the tree rooted at @root.  Nothing is stopped yet.  0 / -ENOMEM. */
int tree_pause__new(pid_t root, struct tree_pause **out);
/*
 * tree_pause__stop() - stop the tree now, unless it is stopped already
 *
 * Returns how many processes this call stopped: 0 when none could be (all
 * gone, or stopped by someone else), which is not a pause.  One thread at
 * a time calls stop and cont.
 */
int tree_pause__stop(struct tree_pause *p);
/* The tree as it is now, nothing stopped (a pause in progress is left
 * as it is): how many processes it holds. */
size_t tree_pause__find(struct tree_pause *p);
/* The processes the last stop or find found in the tree (stopped or not:
 * faultline itself, one stopped by someone else), in the order found. */
const pid_t *tree_pause__tree(const struct tree_pause *p, size_t *n);
/* SIGCONT every process the last stop stopped. */
void tree_pause__cont(struct tree_pause *p);
/* The same from a fatal-signal handler: async-signal-safe (kill only). */
void tree_pause__cont_in_signal(struct tree_pause *p);
/* Continue what is stopped, free.  NULL is fine. */
void tree_pause__free(struct tree_pause *p);

#endif
