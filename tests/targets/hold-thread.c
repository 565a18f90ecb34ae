/*
 * hold-thread: stop one thread of a process while a command runs, for the
 * system tests that need faultline's reader stalled for a known stretch
 * of work while its other threads go on.
 *
 *   hold-thread TID CMD [ARG...]
 *
 * A ptrace stop is a thread's, not its process's: PTRACE_SEIZE and
 * PTRACE_INTERRUPT of TID stop that thread alone (a SIGSTOP would stop
 * every thread).  Once TID is stopped (its /proc state "t", checked),
 * prints "held TID" on stderr, runs CMD and waits for it, then detaches,
 * which resumes TID.  A signal that reaches TID before the stop is
 * delivered; one that comes during it waits, pending, and is delivered
 * once TID runs again.  Exit status: CMD's (128 + signal if killed); 1 if
 * TID cannot be held; 2 on a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int die(const char *what, pid_t tid)
{
	fprintf(stderr, "hold-thread: %s %d: %s\n", what, (int)tid, strerror(errno));
	return 1;
}

/* The state letter of TID in /proc/TID/stat, or 0. */
static char state_of(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the comm may hold spaces and parentheses */
	return p && p[1] == ' ' ? p[2] : 0;
}

int main(int argc, char **argv)
{
	pid_t tid, cmd;
	int st;

	if (argc < 3 || (tid = (pid_t)atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: hold-thread TID CMD [ARG...]\n");
		return 2;
	}
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL))
		return die("cannot seize", tid);
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
		return die("cannot interrupt", tid);
	for (;;) {
		if (waitpid(tid, &st, __WALL) < 0)
			return die("cannot wait for", tid);
		if (!WIFSTOPPED(st))
			return fprintf(stderr, "hold-thread: %d ended\n", (int)tid), 1;
		if (st >> 16 == PTRACE_EVENT_STOP)
			break;
		/* A signal-delivery stop before ours: let the signal in. */
		if (ptrace(PTRACE_CONT, tid, NULL, (void *)(long)WSTOPSIG(st)))
			return die("cannot continue", tid);
	}
	if (state_of(tid) != 't') {
		fprintf(stderr, "hold-thread: %d is not in a tracing stop (state %c)\n", (int)tid,
			state_of(tid));
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return 1;
	}
	fprintf(stderr, "held %d\n", (int)tid);
	cmd = fork();
	if (cmd < 0) {
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return die("cannot fork to hold", tid);
	}
	if (cmd == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "hold-thread: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(cmd, &st, 0) < 0)
		if (errno != EINTR) {
			st = 1 << 8;
			break;
		}
	if (ptrace(PTRACE_DETACH, tid, NULL, NULL))
		return die("cannot detach from", tid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
