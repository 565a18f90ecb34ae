/*
 * stopsig: stop signals as a flag.  See stopsig.h.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/stopsig.h"

/* Every signal whose default action ends the process and that does not
 * come from the instruction being run: a request to stop, which the
 * loops see and end cleanly on (probes removed, the recording finished).
 * The synchronous ones (STOPSIG_FATAL: SEGV, BUS, ILL, FPE, TRAP, SYS,
 * and ABRT, which abort() raises) cannot return to the code that raised
 * them: the session's emergency handler has them (trace/session-signal.c). */
static const int stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSTKFLT, SIGIO, SIGPWR,
};
#define NFIXED (sizeof(stop_signals) / sizeof(stop_signals[0]))
/* And the real-time signals the C library leaves to programs (SIGRTMIN
 * to SIGRTMAX: its own two below SIGRTMIN are its threads' business),
 * which end a process by default too. */
#define NRT 33
#define NSIGS (NFIXED + NRT)

/* The i-th signal caught, or 0 past the last. */
static int stop_signal(size_t i)
{
	int rt;

	if (i < NFIXED)
		return stop_signals[i];
	rt = SIGRTMIN + (int)(i - NFIXED);
	return rt <= SIGRTMAX ? rt : 0;
}

/* What a signal handler touches, and what it replaced: the only mutable
 * globals here.  ended: the first signal that ended a run, kept past
 * release for the exit status; settled: the run in progress ended by
 * itself first, so a later signal is not what ended it, but for SIGXFSZ
 * and SIGPIPE, which the process's own write raises (its output cut
 * short: the file size limit, the reader gone). */
static volatile sig_atomic_t caught, ended, settled;
/* snap_on: SIGUSR1 asks for a snapshot (stopsig__snapshots); snap_asked:
 * how many it asked for, written by the handler only. */
static volatile sig_atomic_t snap_on, snap_asked;
static struct sigaction previous[NSIGS];

static void on_stop(int sig)
{
	if (sig == SIGUSR1 && snap_on) {
		snap_asked = snap_asked + 1;
		return;
	}
	caught = sig;
	if (!ended && (!settled || sig == SIGXFSZ || sig == SIGPIPE))
		ended = sig;
}

void stopsig__catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: a poll or sleep wakes */
	sigemptyset(&sa.sa_mask);
	caught = 0;
	settled = 0;
	for (size_t i = 0; i < NSIGS && stop_signal(i); i++)
		sigaction(stop_signal(i), &sa, &previous[i]);
}

int stopsig__caught(void)
{
	return caught;
}

void stopsig__snapshots(bool on)
{
	snap_on = on;
}

unsigned int stopsig__snapshots_asked(void)
{
	return (unsigned int)snap_asked;
}

void stopsig__settle(void)
{
	settled = 1;
}

int stopsig__ended_by(void)
{
	return ended;
}

void stopsig__release(void)
{
	for (size_t i = 0; i < NSIGS && stop_signal(i); i++)
		sigaction(stop_signal(i), &previous[i], NULL);
}

const char *stopsig__name(int sig, char *buf, size_t n)
{
	const char *abbrev;

	if (sig == SIGRTMIN || sig == SIGRTMAX)
		snprintf(buf, n, "SIGRT%s", sig == SIGRTMIN ? "MIN" : "MAX");
	else if (sig > SIGRTMIN && sig < SIGRTMAX)
		snprintf(buf, n, "SIGRTMIN+%d", sig - SIGRTMIN);
	else if ((abbrev = sigabbrev_np(sig)))
		snprintf(buf, n, "SIG%s", abbrev);
	else
		snprintf(buf, n, "signal %d", sig);
	return buf;
}
