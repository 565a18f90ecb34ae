/*
 * stopsig: stop signals as a flag.  See stopsig.h.
 */
#include <signal.h>
#include <string.h>

#include "lib/stopsig.h"

/* Every signal whose default action ends the process and that does not
 * come from the instruction being run: a request to stop, which the
 * loops see and end cleanly on (probes removed, the recording finished).
 * The synchronous ones (SEGV, BUS, ILL, FPE, TRAP, SYS, and ABRT, which
 * abort() raises) cannot return to the code that raised them: the
 * session's emergency handler has them (trace/session.c). */
static const int stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
	SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
};
#define NSIGS (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* What a signal handler touches, and what it replaced: the only mutable
 * globals here.  ended: the first signal that ended a run, kept past
 * release for the exit status; settled: the run in progress ended by
 * itself first, so a later signal is not what ended it, but for SIGXFSZ
 * and SIGPIPE, which the process's own write raises (its output cut
 * short: the file size limit, the reader gone). */
static volatile sig_atomic_t caught, ended, settled;
static struct sigaction previous[NSIGS];

static void on_stop(int sig)
{
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
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(stop_signals[i], &sa, &previous[i]);
}

int stopsig__caught(void)
{
	return caught;
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
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(stop_signals[i], &previous[i], NULL);
}
