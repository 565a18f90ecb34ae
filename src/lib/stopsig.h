/*
 * stopsig: Ctrl-C, SIGTERM, SIGHUP and SIGPIPE as a request to stop, for
 * every loop that runs until stopped: a session's (trace/session.c, which
 * adds its own teardown on fatal signals) and those without one (cache's
 * /proc rung, oom's /dev/kmsg rung): the loop sees the request and ends
 * cleanly, printing what it has.  One catcher at a time: the handlers and
 * the flag are process state.
 */
#ifndef FAULTLINE_STOPSIG_H
#define FAULTLINE_STOPSIG_H

/* Install the handlers (the previous ones kept) and clear the request. */
void stopsig__catch(void);
/* The signal that asked to stop, or 0. */
int stopsig__caught(void);
/* Put the previous handlers back. */
void stopsig__release(void);

#endif
