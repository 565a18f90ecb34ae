/*
 * exit-hold: keep a traced process's memory after its last event, by
 * holding it in ptrace's exit stop (PTRACE_O_TRACEEXIT) until the session
 * has looked up what it needs (its pages, its maps), then letting it go.
 *
 * Why: hfaults' page-flags rung classifies each fault by the page at its
 * address, read from /proc/PID/pagemap after the event is read.  A short
 * -c program that touched 32 THPs and exited at once showed 19, 0 and 21
 * of 32 in three runs (the rest "their process exited before the lookup"):
 * the kernel tears the address space down in do_exit's exit_mm(), long
 * before the reader gets to the events.  The exit stop comes earlier in
 * do_exit, before exit_signals() and exit_mm(): every fault has happened
 * and its sample is in the ring, and every page is still mapped.
 *
 * PTRACE_SEIZE, not PTRACE_ATTACH: no SIGSTOP is injected and exec adds no
 * SIGTRAP.  Only the thread-group leader is seized (no PTRACE_O_TRACECLONE
 * or TRACEFORK): it holds the address space for all its threads; its
 * children are not held.  Being a tracer means serving every stop the
 * tracee makes: a signal-delivery stop is continued with its signal (so
 * the target sees its signals as before, late by the reader's latency), a
 * group stop (SIGSTOP, SIGTSTP) is left stopped with PTRACE_LISTEN, as a
 * debugger-less process would be.  Uprobes are unaffected: their
 * breakpoint traps are handled in the kernel and never reach the tracer.
 * What cannot be held: a leader that gets SIGKILL (the kernel skips the
 * exit stop when a fatal signal is pending, so a process ended by another
 * thread's exit_group(2) or by kill -9 is not held), and a process that
 * already has a tracer (gdb, strace: PTRACE_SEIZE fails with EPERM).
 * If faultline dies, the kernel detaches its tracees (exit_ptrace()), so a
 * held process never stays held.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "trace/exit-hold.h"

struct exit_hold {
	pid_t pid;
	enum exit_hold_state state;
	int status;		/* wait status: the exit stop's, or the reaped one's */
};

int exit_hold__new(pid_t pid, struct exit_hold **out, struct errbuf *eb)
{
	struct exit_hold *h;

	if (pid <= 0)
		return errbuf__set(eb, -EINVAL, "no process to hold");
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)PTRACE_O_TRACEEXIT) < 0) {
		int e = errno;

		free(h);
		return errbuf__set(eb, -e, "cannot hold pid %d at its exit: ptrace: %s%s", (int)pid,
				   strerror(e), e == EPERM ? " (is it traced already?)" : "");
	}
	h->pid = pid;
	h->state = EXIT_HOLD_RUNNING;
	h->status = -1;
	*out = h;
	return 0;
}

/*
 * One wait status of the tracee: the exit stop holds it, another stop is
 * served, an exit ends the hold.  Returns whether the tracee is still
 * ours and running (more stops may follow).
 */
static bool serve(struct exit_hold *h, int st)
{
	int event = st >> 16, sig;
	unsigned long msg = 0;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		h->state = EXIT_HOLD_GONE;
		h->status = st;
		return false;
	}
	if (!WIFSTOPPED(st))
		return true;
	sig = WSTOPSIG(st);
	if (event == PTRACE_EVENT_EXIT) {
		if (ptrace(PTRACE_GETEVENTMSG, h->pid, NULL, &msg) == 0)
			h->status = (int)msg;	/* do_exit's code: a wait status */
		h->state = EXIT_HOLD_AT_EXIT;
		return false;
	}
	if (event == PTRACE_EVENT_STOP) {
		/* A group stop stays a stop; any other trap (PTRACE_INTERRUPT
		 * is only ours, at release) goes on. */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			ptrace(PTRACE_LISTEN, h->pid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, h->pid, NULL, NULL);
		return true;
	}
	/* A signal-delivery stop: deliver it as if nobody traced. */
	ptrace(PTRACE_CONT, h->pid, NULL, (void *)(long)sig);
	return true;
}

enum exit_hold_state exit_hold__poll(struct exit_hold *h)
{
	int st;
	pid_t r;

	while (h->state == EXIT_HOLD_RUNNING) {
		r = waitpid(h->pid, &st, WNOHANG | __WALL);
		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			/* ECHILD: no longer our tracee (reaped elsewhere). */
			h->state = EXIT_HOLD_GONE;
			break;
		}
		serve(h, st);
	}
	return h->state;
}

int exit_hold__status(const struct exit_hold *h)
{
	return h->status;
}

void exit_hold__release(struct exit_hold *h)
{
	int st, sig = 0;
	pid_t r;

	if (!h || h->state == EXIT_HOLD_GONE || h->state == EXIT_HOLD_RELEASED)
		return;
	if (h->state == EXIT_HOLD_RUNNING) {
		/* PTRACE_DETACH needs the tracee in a stop: make one, and
		 * pass on a signal caught in that moment. */
		if (exit_hold__poll(h) == EXIT_HOLD_GONE)
			return;
		if (h->state == EXIT_HOLD_RUNNING && ptrace(PTRACE_INTERRUPT, h->pid, NULL, NULL) == 0) {
			for (;;) {
				r = waitpid(h->pid, &st, __WALL);
				if (r < 0 && errno == EINTR)
					continue;
				if (r < 0) {
					h->state = EXIT_HOLD_GONE;
					return;
				}
				if (WIFEXITED(st) || WIFSIGNALED(st)) {
					serve(h, st);
					return;
				}
				if (WIFSTOPPED(st)) {
					if (!(st >> 16))
						sig = WSTOPSIG(st);
					break;
				}
			}
		}
	}
	ptrace(PTRACE_DETACH, h->pid, NULL, (void *)(long)sig);
	h->state = EXIT_HOLD_RELEASED;
}

void exit_hold__free(struct exit_hold *h)
{
	exit_hold__release(h);
	free(h);
}
