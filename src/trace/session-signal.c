/*
 * session-signal: what signals do to a session (session-int.h).  Ctrl-C,
 * SIGTERM, SIGHUP and SIGPIPE are stop requests (lib/stopsig); a fatal
 * signal (SIGSEGV...) tears down, async-signal-safe, what the session
 * holds in the kernel (perf fds, rings, probes, the PMU rung's cgroup)
 * before the process dies of it; SIGCHLD wakes the run loop for a target
 * held at its exit (session__hold_exit()).
 *
 * May call: lib/stopsig, and from the fatal handler only the
 * *_in_signal() calls of the modules the session owns (drain, ring,
 * tree-pause, probe-group, perf-cgroup, the recorder) and write(2).
 * Its globals are the only mutable ones of the session's files.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "trace/session-int.h"
#include "lib/stopsig.h"
#include "trace/perf-cgroup.h"
#include "trace/drain.h"
#include "trace/tree-pause.h"
#include "trace/target.h"
#include "trace/probe-group.h"
#include "trace/ring.h"

/* The only mutable globals: what a signal handler may touch.  Stop
 * signals are lib/stopsig's, as for the loops without a session. */
static struct session *volatile emergency;

/* The signals raised by the instruction being run (and abort()'s,
 * lib/stopsig's list): the process cannot go on, so it removes its probes
 * and dies of the signal (status 128 + N in a shell).  Every other
 * fatal-by-default signal is a stop request (lib/stopsig.c). */
static const int fatal_signals[] = { STOPSIG_FATAL };
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction old_fatal[NFATAL];

static void write_all(const char *path, const char *text)
{
	size_t len;
	int fd;

	if (!text || !path[0])
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	len = strlen(text);
	/* One line per write: the kernel parses one command per write. */
	for (const char *p = text; len;) {
		const char *nl = memchr(p, '\n', len);
		size_t l = nl ? (size_t)(nl - p) + 1 : len;

		if (write(fd, p, l) < 0) {
			/* keep going: remove what we can */
		}
		p += l;
		len -= l;
	}
	close(fd);
}

static void say(const char *text)
{
	if (write(STDERR_FILENO, text, strlen(text)) < 0) {
		/* nowhere else to say it */
	}
}

static const char *fatal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGILL:
		return "SIGILL";
	case SIGFPE:
		return "SIGFPE";
	case SIGABRT:
		return "SIGABRT";
	case SIGTRAP:
		return "SIGTRAP";
	default:
		return "SIGSYS";
	}
}

/*
 * Async-signal-safe teardown of kernel state for a dying process: close
 * every perf fd (a probe in use cannot be removed), then remove the probes
 * by writing "-:group/event" lines, and the PMU rung's cgroup (the command
 * moved back to its parent's); what the recording holds in memory is
 * written out as it is (the file then ends inside a record, which report
 * reads up to).  One line on stderr says so.  No malloc, no stdio.
 */
static void on_fatal_signal(int sig)
{
	struct session *s = emergency;
	size_t i;

	say("faultline: fatal signal ");
	say(fatal_name(sig));
	say(s ? ": probes removed" : "");
	say(s && s->rec ? ", the recording left unfinished (report reads it up to its last "
			   "whole record)\n" : "\n");
	if (s) {
		emergency = NULL;
		/* A mapped ring holds its event alive past close(): unmap
		 * too, once the drain thread has let go of the rings. */
		drain__quiesce_in_signal(s->drain);
		/* Never leave the target stopped (back-pressure, events
		 * being added). */
		tree_pause__cont_in_signal(s->pauser);
		tree_pause__cont_in_signal(s->grow_pause);
		for (i = 0; s->rings && i < (size_t)s->ncpus; i++)
			ring__unmap_in_signal(s->rings[i]);
		for (i = 0; i < s->nfds; i++)
			if (s->fds[i] >= 0)
				close(s->fds[i]);
		s->nfds = 0;
		if (s->probes) {
			write_all(s->uprobe_events_path, probe_group__removal_lines(s->probes, false));
			write_all(s->kprobe_events_path, probe_group__removal_lines(s->probes, true));
		}
		if (s->rec)
			session__record_flush_in_signal(s);
		perf_cgroup__remove_in_signal(s->pmu_cg);
	}
	for (i = 0; i < NFATAL; i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &old_fatal[i], NULL);
	raise(sig);
}

static void signals_install(struct session *s)
{
	struct sigaction sa;

	stopsig__catch();	/* no SA_RESTART: poll() must wake */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &sa, &old_fatal[i]);
	emergency = s;
}

void session__catch_signals(struct session *s)
{
	signals_install(s);
}

bool session__stop_requested(void)
{
	return stopsig__caught() != 0;
}

void session__signals_forget(void)
{
	emergency = NULL;
}

/* SIGCHLD (a held target's ptrace stop) interrupts poll() in
 * session__run, so its stop is served at once, not at poll's timeout. */
static struct sigaction old_chld;
static bool chld_caught;

static void on_child(int sig)
{
	(void)sig;
}

static void child_signal_restore(void)
{
	if (chld_caught)
		sigaction(SIGCHLD, &old_chld, NULL);
	chld_caught = false;
}

void session__signals_restore(void)
{
	child_signal_restore();
	emergency = NULL;
	stopsig__release();
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &old_fatal[i], NULL);
}

int session__hold_exit(struct session *s, struct errbuf *eb)
{
	struct sigaction sa;
	int err;

	if (session__replaying(s))
		return 0;	/* a recording's process is long gone */
	err = target__hold_exit(s->target, eb);
	if (!err)
		s->held = true;
	if (err || chld_caught)
		return err;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_child;	/* no SA_RESTART, no SA_NOCLDSTOP */
	if (sigaction(SIGCHLD, &sa, &old_chld) == 0)
		chld_caught = true;
	return 0;
}

