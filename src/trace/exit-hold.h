/*
 * exit-hold: hold a traced process in ptrace's exit stop, its memory
 * still there, until the caller has read what it needs; see exit-hold.c.
 */
#ifndef FAULTLINE_EXIT_HOLD_H
#define FAULTLINE_EXIT_HOLD_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/errbuf.h"

enum exit_hold_state {
	EXIT_HOLD_RUNNING,	/* seized, not at its exit yet */
	EXIT_HOLD_AT_EXIT,	/* stopped in do_exit, its address space intact */
	EXIT_HOLD_GONE,		/* exited (reaped here when the caller is its parent) */
	EXIT_HOLD_RELEASED,	/* detached */
};

struct exit_hold;

/**
 * exit_hold__new() - PTRACE_SEIZE @pid with PTRACE_O_TRACEEXIT
 * @pid: a thread-group leader: the caller's child, or any process root may trace
 * @out: receives the hold, owned by the caller (exit_hold__free)
 *
 * Return: 0; -EPERM (traced already, or not allowed), -ESRCH, -ENOMEM;
 * detail in @eb.
 */
int exit_hold__new(pid_t pid, struct exit_hold **out, struct errbuf *eb);

/**
 * exit_hold__poll() - serve the tracee's pending stops, without blocking
 *
 * Signal-delivery stops are continued with their signal, group stops
 * listened on; the exit stop is kept.  A tracee that exited is reaped by
 * the waitpid(2) here when the caller is its parent: its status is then
 * exit_hold__status()'s.  Call it often: a signal waits for it.
 */
enum exit_hold_state exit_hold__poll(struct exit_hold *h);

/* Wait status of the exit (from the exit stop or the reaped child), or -1. */
int exit_hold__status(const struct exit_hold *h);

/* Detach (interrupting a running tracee first, as PTRACE_DETACH needs a
 * stop): a held process goes on exiting.  NULL and repeats are fine. */
void exit_hold__release(struct exit_hold *h);

/* Release and free; NULL is fine. */
void exit_hold__free(struct exit_hold *h);

#endif
