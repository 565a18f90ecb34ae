/*
 * stopsig: stop signals as a flag.  See stopsig.h.
 */
#include <signal.h>
#include <string.h>

#include "lib/stopsig.h"

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NSIGS (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* What a signal handler touches, and what it replaced: the only mutable
 * globals here. */
static volatile sig_atomic_t caught;
static struct sigaction previous[NSIGS];

static void on_stop(int sig)
{
	caught = sig;
}

void stopsig__catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;	/* no SA_RESTART: a poll or sleep wakes */
	sigemptyset(&sa.sa_mask);
	caught = 0;
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(stop_signals[i], &sa, &previous[i]);
}

int stopsig__caught(void)
{
	return caught;
}

void stopsig__release(void)
{
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(stop_signals[i], &previous[i], NULL);
}
