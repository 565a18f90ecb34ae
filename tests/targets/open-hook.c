/*
 * open-hook: run a command, and run a shell hook at the very moment the
 * command's main thread enters the first (or the Kth) open(2), openat(2)
 * or openat2(2) of a given path, before the kernel looks the path up; then
 * let the command go on, untraced.  For the system tests of what no clock
 * could hit reliably: a file swapped between a program's lstat() and its
 * open() of the same path; a signal sent at a known point of a run.
 *
 *   open-hook [-n K] PATH HOOK CMD [ARG...]
 *
 * CMD runs under ptrace (its main thread only: threads it creates are not
 * traced), stopping at each system call.  At the entry of the Kth open
 * of PATH (default 1; the path argument as given, compared byte for
 * byte), HOOK runs through sh -c, with OPEN_HOOK_PID (CMD's pid) in its
 * environment, and is waited for; "open-hook: hooked" goes to stderr;
 * then CMD is detached and the open goes on, on whatever PATH names now.
 * Signals CMD receives while traced are passed on.  Unhooked (PATH opened
 * fewer than K times), "open-hook: PATH opened N times, not K" goes to
 * stderr when CMD ends.  Exit status: CMD's
 * (128 + N when signal N killed it); 2 on a usage error, 1 when CMD cannot
 * be traced, 3 when the system calls of this machine are not known here
 * (x86-64 and aarch64 are).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* The system call a syscall-entry stop is at, and its path argument. */
static int syscall_path(pid_t pid, long *nr, unsigned long *path)
{
#if defined(__x86_64__)
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
		return -1;
	*nr = (long)r.orig_rax;
	*path = *nr == SYS_open ? r.rdi : r.rsi;
	return 0;
#elif defined(__aarch64__)
	struct user_regs_struct r;
	struct iovec io = { &r, sizeof(r) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io))
		return -1;
	*nr = (long)r.regs[8];
	*path = r.regs[1];
	return 0;
#else
	(void)pid;
	(void)nr;
	(void)path;
	return -1;
#endif
}

static int is_open(long nr)
{
#ifdef SYS_open
	if (nr == SYS_open)
		return 1;
#endif
	return nr == SYS_openat || nr == SYS_openat2;
}

/* Whether the string at @addr in @pid is @want. */
static int path_is(pid_t pid, unsigned long addr, const char *want)
{
	char buf[4096];
	size_t n = strlen(want) + 1;
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	if (n > sizeof(buf) || process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)n)
		return 0;
	return memcmp(buf, want, n) == 0;
}

int main(int argc, char **argv)
{
	int st, entering = 0, hooked = 0;
	long nth = 1, seen = 0;
	char pidstr[24];
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		nth = strtol(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if (argc < 4 || nth < 1) {
		fprintf(stderr, "usage: open-hook [-n K] PATH HOOK CMD [ARG...]\n");
		return 2;
	}
#if !defined(__x86_64__) && !defined(__aarch64__)
	fprintf(stderr, "open-hook: no system call table for this machine\n");
	return 3;
#endif
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		execvp(argv[3], argv + 3);
		fprintf(stderr, "open-hook: cannot run %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL))) {
		fprintf(stderr, "open-hook: cannot trace %s: %s\n", argv[3], strerror(errno));
		kill(pid, SIGKILL);
		return 1;
	}
	for (int sig = 0;;) {
		long nr;
		unsigned long addr;

		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			break;
		sig = 0;
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			break;	/* exited or killed */
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			entering = !entering;
			if (entering && !syscall_path(pid, &nr, &addr) && is_open(nr) &&
			    path_is(pid, addr, argv[1]) && ++seen == nth) {
				hooked = 1;
				snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
				setenv("OPEN_HOOK_PID", pidstr, 1);
				if (system(argv[2]) != 0)
					fprintf(stderr, "open-hook: the hook failed\n");
				fprintf(stderr, "open-hook: hooked\n");
				ptrace(PTRACE_DETACH, pid, NULL, NULL);
				break;
			}
		} else if (st >> 16) {
			/* An event stop (exec): nothing to deliver. */
		} else if (WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP) {
			sig = WSTOPSIG(st);
		}
	}
	if (!WIFEXITED(st) && !WIFSIGNALED(st) && waitpid(pid, &st, 0) != pid)
		return 1;
	if (!hooked)
		fprintf(stderr, "open-hook: %s opened %ld times, not %ld\n", argv[1], seen, nth);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
