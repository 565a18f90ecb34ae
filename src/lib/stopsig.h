/*
 * stopsig: Ctrl-C, SIGTERM, SIGHUP and SIGPIPE, and every other signal
 * that would end the process but for a fault (QUIT, USR1, USR2, ALRM,
 * XCPU, XFSZ, VTALRM, PROF, STKFLT, IO, PWR and the real-time signals
 * SIGRTMIN to SIGRTMAX), as a request to stop, for
 * every loop that runs until stopped: a session's (trace/session-signal.c, which
 * adds its own teardown on fatal signals) and those without one (cache's
 * /proc rung, oom's /dev/kmsg rung): the loop sees the request and ends
 * cleanly, printing what it has.  SIGUSR1 may instead ask for a
 * snapshot (stopsig__snapshots): counted, and the loop prints its report
 * so far and goes on.  One catcher at a time: the handlers and
 * the flag are process state.
 */
#ifndef FAULTLINE_STOPSIG_H
#define FAULTLINE_STOPSIG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The signals the instruction being run raises (and abort()'s): SEGV,
 * BUS, ILL, FPE, ABRT, TRAP, SYS.  Not stop requests: the code that
 * raised them cannot go on, so the process dies of them, after the
 * handlers that put back what it holds (trace/session-signal.c: the
 * kernel's probes; cmd/out/screen.c: the terminal) have run.  For an
 * array initializer: { STOPSIG_FATAL }.
 */
#define STOPSIG_FATAL SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS

/* Install the handlers (the previous ones kept) and clear the request. */
void stopsig__catch(void);
/* The signal that asked to stop, or 0. */
int stopsig__caught(void);
/* The run ended by itself (its command exited, its duration passed, the
 * tool had what it wanted): a signal caught from now on still asks to
 * stop, but it is not what ended the run; but SIGXFSZ and SIGPIPE, which
 * a write of the run's own raises (the file size limit reached, the
 * output's reader gone: its report cut short), always are. */
void stopsig__settle(void);
/* The first signal caught since the process started that ended a run (not
 * one that came after stopsig__settle()), or 0: the command exits 128 +
 * it, saying which (main.c). */
int stopsig__ended_by(void);
/* With @on, SIGUSR1 no longer asks to stop: it asks for a snapshot, and
 * stopsig__snapshots_asked() counts it (a driver that prints them turns
 * this on for its run, and off after).  Off by default. */
void stopsig__snapshots(bool on);
/* How many snapshots SIGUSR1 asked for since the process started: the
 * caller compares with how many it served. */
unsigned int stopsig__snapshots_asked(void);
/* Put the previous handlers back. */
void stopsig__release(void);
/* @sig's name: "SIGTERM", "SIGRTMIN", "SIGRTMIN+3", "SIGRTMAX";
 * into @buf, which it returns. */
const char *stopsig__name(int sig, char *buf, size_t n);

#endif
