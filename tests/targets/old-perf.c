/*
 * old-perf: run a command as on a kernel whose perf_event_open does not
 * know some of perf_event_attr's later bits, for tests/system/perf-caps.sh
 * and the RHEL 7 guest (whose 3.10 has them all: Red Hat backported them).
 *
 *   old-perf -x CAP[,CAP]... [-l FILE] CMD [ARG...]
 *
 * CAP is one of
 *   dummy              the dummy software event (Linux 3.12): ENOENT, as
 *                      perf_swevent_init answers a config past its last;
 *   sample_identifier  PERF_SAMPLE_IDENTIFIER (3.12): EINVAL, a sample_type
 *                      bit past PERF_SAMPLE_MAX;
 *   mmap2, comm_exec   attr.mmap2, attr.comm_exec (3.16): EINVAL, bits of
 *                      __reserved_1 then;
 *   use_clockid        attr.use_clockid (4.1): EINVAL;
 *   format_lost        read_format PERF_FORMAT_LOST (6.0): EINVAL;
 * which perf_event_open then answers for every attr that holds it, as
 * such a kernel's perf_copy_attr does; everything else the kernel here
 * does, as it does.
 *
 * How: CMD keeps this process's pid (the test's signals and status are
 * its own).  A grandchild attaches to it with PTRACE_SEIZE (3.4) and
 * PTRACE_O_TRACESECCOMP (3.5), then CMD is executed under a seccomp
 * filter that stops perf_event_open (and no other call) for that tracer,
 * which reads the attr from CMD's memory (process_vm_readv) and skips
 * the call with the errno above when it holds a refused bit (the call's
 * number set to -1, its return value to -errno).  CMD's threads are
 * traced too (PTRACE_O_TRACECLONE); its children are not, and a
 * perf_event_open of theirs fails with ENOSYS (a filter with no tracer).
 * PTRACE_O_EXITKILL: CMD dies if the tracer does.  -l FILE: the tracer
 * appends a line naming the CAP to it for each call it refuses, written
 * before the call returns (so it is all there once CMD has exited).  All
 * of it works on 3.10 as on 6.x.
 *
 * Exit status: CMD's through exec; 2 on a usage error; 1 if the tracer or
 * the filter cannot be set up or CMD cannot be executed.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(__x86_64__)
int main(void)
{
	fprintf(stderr, "old-perf: x86_64 only\n");
	return 1;
}
#else

enum cap { DUMMY, IDENTIFIER, MMAP2, COMM_EXEC, CLOCKID, FORMAT_LOST, NCAPS };
static const char *const cap_names[NCAPS] = {
	"dummy", "sample_identifier", "mmap2", "comm_exec", "use_clockid", "format_lost",
};
static int refuse[NCAPS];
static FILE *log_file;

static int usage(void)
{
	fprintf(stderr, "usage: old-perf -x CAP[,CAP]... [-l FILE] CMD [ARG...]\n"
		"CAP: dummy sample_identifier mmap2 comm_exec use_clockid format_lost\n");
	return 2;
}

static int parse_caps(char *list)
{
	for (char *c = strtok(list, ","); c; c = strtok(NULL, ",")) {
		int i;

		for (i = 0; i < NCAPS && strcmp(c, cap_names[i]); i++)
			;
		if (i == NCAPS) {
			fprintf(stderr, "old-perf: no such CAP '%s'\n", c);
			return -1;
		}
		refuse[i] = 1;
	}
	return 0;
}

/* The errno the emulated kernel answers @a with, and its cap; 0 if none. */
static int answer(const struct perf_event_attr *a, int *cap)
{
	if (refuse[DUMMY] && a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
		return *cap = DUMMY, ENOENT;
	if (refuse[IDENTIFIER] && (a->sample_type & PERF_SAMPLE_IDENTIFIER))
		return *cap = IDENTIFIER, EINVAL;
	if (refuse[MMAP2] && a->mmap2)
		return *cap = MMAP2, EINVAL;
	if (refuse[COMM_EXEC] && a->comm_exec)
		return *cap = COMM_EXEC, EINVAL;
	if (refuse[CLOCKID] && a->use_clockid)
		return *cap = CLOCKID, EINVAL;
	if (refuse[FORMAT_LOST] && (a->read_format & PERF_FORMAT_LOST))
		return *cap = FORMAT_LOST, EINVAL;
	return 0;
}

/* A perf_event_open stopped at its seccomp rule: answered or let run. */
static void on_call(pid_t t)
{
	struct user_regs_struct regs;
	struct perf_event_attr a;
	struct iovec local = { &a, sizeof(a) }, remote;
	ssize_t got;
	int e, cap;

	if (ptrace(PTRACE_GETREGS, t, NULL, &regs) || regs.orig_rax != __NR_perf_event_open)
		return;
	memset(&a, 0, sizeof(a));
	remote.iov_base = (void *)(uintptr_t)regs.rdi;
	remote.iov_len = sizeof(a);
	got = process_vm_readv(t, &local, 1, &remote, 1, 0);
	if (got < (ssize_t)PERF_ATTR_SIZE_VER0)
		return;		/* the kernel will say EFAULT itself */
	e = answer(&a, &cap);
	if (!e)
		return;
	regs.orig_rax = (unsigned long long)-1;
	regs.rax = (unsigned long long)-e;
	if (ptrace(PTRACE_SETREGS, t, NULL, &regs) == 0 && log_file) {
		fprintf(log_file, "%s\n", cap_names[cap]);
		fflush(log_file);
	}
}

/* The tracer's loop, until @cmd exits. */
static int trace(pid_t cmd)
{
	for (;;) {
		int st, sig, ev;
		pid_t t = waitpid(-1, &st, __WALL);

		if (t < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t == cmd)
				break;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		sig = WSTOPSIG(st);
		ev = st >> 16;
		if (ev == PTRACE_EVENT_SECCOMP) {
			on_call(t);
			sig = 0;
		} else if (ev == PTRACE_EVENT_STOP) {
			/* A new thread's first stop, or a group stop. */
			if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
				ptrace(PTRACE_LISTEN, t, NULL, NULL);
				continue;
			}
			sig = 0;
		} else if (ev) {
			sig = 0;	/* PTRACE_EVENT_CLONE */
		}
		ptrace(PTRACE_CONT, t, NULL, (void *)(uintptr_t)sig);
	}
	return 0;
}

static int install_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
		fprintf(stderr, "old-perf: cannot install the seccomp filter: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *log = NULL;
	pid_t cmd = getpid(), mid;
	int opt, ready[2], st;
	char ok;

	while ((opt = getopt(argc, argv, "+x:l:")) != -1) {
		if (opt == 'x') {
			if (parse_caps(optarg))
				return usage();
		} else if (opt == 'l') {
			log = optarg;
		} else {
			return usage();
		}
	}
	if (optind >= argc)
		return usage();
	if (pipe(ready))
		return 1;
	mid = fork();
	if (mid < 0)
		return 1;
	if (mid == 0) {
		/* A grandchild: no child of CMD's to be reaped or waited. */
		if (fork() != 0)
			_exit(0);
		close(ready[0]);
		if (log && !(log_file = fopen(log, "a"))) {
			fprintf(stderr, "old-perf: cannot open %s: %s\n", log, strerror(errno));
			_exit(1);
		}
		if (ptrace(PTRACE_SEIZE, cmd, NULL, (void *)(uintptr_t)(PTRACE_O_TRACESECCOMP |
		    PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL))) {
			fprintf(stderr, "old-perf: cannot trace %d: %s\n", (int)cmd, strerror(errno));
			_exit(1);
		}
		ok = 1;
		if (write(ready[1], &ok, 1) != 1)
			_exit(1);
		close(ready[1]);
		_exit(trace(cmd));
	}
	close(ready[1]);
	while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
		;
	if (read(ready[0], &ok, 1) != 1) {
		fprintf(stderr, "old-perf: the tracer did not start\n");
		return 1;
	}
	close(ready[0]);
	if (install_filter())
		return 1;
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "old-perf: cannot execute %s: %s\n", argv[optind], strerror(errno));
	return 1;
}
#endif
