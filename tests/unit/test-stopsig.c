/*
 * test-stopsig: which signal ended a run, for the exit status 128 + N
 * (main.c): every stop signal, INT and TERM as much as QUIT, asks to stop
 * and ends the run; one caught after stopsig__settle() (the run ended by
 * itself: its command exited, its duration passed) still asks to stop but
 * did not end it, but for SIGXFSZ and SIGPIPE, which the run's own writes
 * raise; the first signal that ended a run is kept past release and a
 * later catch.  SIGUSR1 with snapshots on is counted, not a stop.
 * Each case in a child of its own: the first signal is process state.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/stopsig.h"
#include "check.h"

/* What @sig does to a run, settled first if @settle: the signal caught
 * (it must be @sig) and 128 + the one that ended it, or 0. */
static int run(int sig, int settle)
{
	int ended;

	stopsig__catch();
	if (stopsig__caught())
		return 1;
	if (settle)
		stopsig__settle();
	raise(sig);
	if (stopsig__caught() != sig)
		return 2;
	ended = stopsig__ended_by();
	stopsig__release();
	return ended ? 128 + ended : 0;
}

/* A new run after one that @first ended, @second ending it. */
static int two_runs(int first, int second)
{
	if (stopsig__ended_by() || run(first, 0) != 128 + first)
		return 3;
	return run(second, 0);
}

/* With snapshots on, SIGUSR1 @n times: counted, no stop; off again, it
 * stops.  0, or which step failed. */
static int snapshots(int n, int unused)
{
	(void)unused;
	stopsig__snapshots(true);
	stopsig__catch();
	for (int i = 0; i < n; i++)
		raise(SIGUSR1);
	if (stopsig__caught() || stopsig__ended_by())
		return 4;
	if (stopsig__snapshots_asked() != (unsigned int)n)
		return 5;
	stopsig__snapshots(false);
	raise(SIGUSR1);
	if (stopsig__caught() != SIGUSR1 || stopsig__snapshots_asked() != (unsigned int)n)
		return 6;
	stopsig__release();
	return 0;
}

static int in_child(int (*fn)(int, int), int a, int b)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(a, b));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2,
				    SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		CHECK(in_child(run, sigs[i], 0) == 128 + sigs[i]);
		CHECK(in_child(run, sigs[i], 1) == (sigs[i] == SIGXFSZ || sigs[i] == SIGPIPE ? 128 + sigs[i] : 0));
	}
	CHECK(in_child(two_runs, SIGQUIT, SIGINT) == 128 + SIGQUIT);
	CHECK(in_child(snapshots, 3, 0) == 0);
	return check_done("test-stopsig");
}
