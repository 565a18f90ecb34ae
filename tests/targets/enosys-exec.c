/*
 * enosys-exec: run a command as on a kernel that lacks every system call
 * newer than Linux 3.10, for tests/system/enosys.sh.
 *
 *   enosys-exec [-e ENOSYS|EPERM] [-s NAME[,NAME]...] [-E NAME[,NAME]...] [-P|-Z] CMD [ARG...]
 *
 * Installs a seccomp filter (prctl PR_SET_SECCOMP, SECCOMP_MODE_FILTER: no
 * libseccomp) under which the calls fail with the errno -e names (default
 * ENOSYS, what an old kernel answers; EPERM is what some seccomp policies
 * answer for a call they do not know), then execs CMD, which inherits it
 * with every process it starts.  Which calls fail:
 *   - on x86_64, every number from 314 (sched_setattr, Linux 3.14) up,
 *     3.10's table ending at 313 (finit_module), except 335: the uretprobe
 *     call that the kernel's own return-probe trampoline makes (6.11+) in
 *     a traced process, which is no call of the program's;
 *   - elsewhere, the calls named in newer[] below that the headers know.
 * -s NAME,... narrows that to the named calls of newer[]; -E NAME,...
 * (calls of newer[]) fail with ENOSYS whatever -e says, as docker's
 * default policy answers ENOSYS for clone3 and EPERM for the calls it does
 * not know (glibc falls back from clone3 to clone on ENOSYS only).  -P
 * makes perf_event_open answer as 3.10 does a flag it does not know:
 * EINVAL when its flags hold PERF_FLAG_FD_CLOEXEC (Linux 3.14); -Z makes
 * every perf_event_open fail with E2BIG, as a kernel older than the
 * attr's fields answers (3.7 for the user registers and stack; the attr
 * size it would write back stays the caller's).  The filter lets
 * through every call of another architecture (an x32 or i386 call on
 * x86_64 is no concern of these tests).  Prints one line on stderr naming
 * what fails.  Exit status: CMD's through exec; 2 on a usage error; 1 if
 * the filter cannot be installed or CMD cannot be executed.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#define FIRST_NEW 314
#define URETPROBE 335
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARCH AUDIT_ARCH_PPC64LE
#elif defined(__s390x__)
#define ARCH AUDIT_ARCH_S390X
#endif

#define CALL(n) { #n, __NR_##n }
static const struct {
	const char *name;
	int nr;
} newer[] = {
#ifdef __NR_sched_setattr
	CALL(sched_setattr),
#endif
#ifdef __NR_renameat2
	CALL(renameat2),
#endif
#ifdef __NR_getrandom
	CALL(getrandom),
#endif
#ifdef __NR_memfd_create
	CALL(memfd_create),
#endif
#ifdef __NR_execveat
	CALL(execveat),
#endif
#ifdef __NR_membarrier
	CALL(membarrier),
#endif
#ifdef __NR_copy_file_range
	CALL(copy_file_range),
#endif
#ifdef __NR_preadv2
	CALL(preadv2),
#endif
#ifdef __NR_statx
	CALL(statx),
#endif
#ifdef __NR_rseq
	CALL(rseq),
#endif
#ifdef __NR_pidfd_send_signal
	CALL(pidfd_send_signal),
#endif
#ifdef __NR_pidfd_open
	CALL(pidfd_open),
#endif
#ifdef __NR_clone3
	CALL(clone3),
#endif
#ifdef __NR_close_range
	CALL(close_range),
#endif
#ifdef __NR_openat2
	CALL(openat2),
#endif
#ifdef __NR_faccessat2
	CALL(faccessat2),
#endif
};
#define NNEWER (sizeof(newer) / sizeof(newer[0]))

static int usage(void)
{
	fprintf(stderr, "usage: enosys-exec [-e ENOSYS|EPERM] [-s NAME[,NAME]...] "
		"[-E NAME[,NAME]...] [-P|-Z] CMD [ARG...]\n");
	return 2;
}

/* Mark in @pick the calls of newer[] that @list names; -1 on an unknown one. */
static int pick_calls(char *list, int *pick)
{
	for (char *n = strtok(list, ","); n; n = strtok(NULL, ",")) {
		size_t i;

		for (i = 0; i < NNEWER && strcmp(newer[i].name, n); i++)
			;
		if (i == NNEWER) {
			fprintf(stderr, "enosys-exec: no call '%s' in its list\n", n);
			return -1;
		}
		pick[i] = 1;
	}
	return 0;
}

#ifdef ARCH
/* Append to @prog, at @n, a return of @err for each call marked in @pick;
 * the new length. */
static size_t deny(struct sock_filter *prog, size_t n, const int *pick, int err)
{
	for (size_t i = 0; i < NNEWER; i++) {
		if (!pick[i])
			continue;
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 (unsigned)newer[i].nr, 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							 SECCOMP_RET_ERRNO | (unsigned)err);
	}
	return n;
}
#endif

int main(int argc, char **argv)
{
#ifndef ARCH
	(void)argc;
	(void)argv;
	fprintf(stderr, "enosys-exec: no seccomp architecture known for this build\n");
	return 1;
#else
	struct sock_filter prog[16 + 4 * NNEWER];
	struct sock_fprog fprog;
	int pick[NNEWER] = { 0 }, nosys[NNEWER] = { 0 }, picked = 0, err = ENOSYS, opt;
	int perf310 = 0;
	size_t n = 0;
	char what[1024] = "";

	while ((opt = getopt(argc, argv, "+e:s:E:PZ")) != -1) {
		if (opt == 'e' && !strcmp(optarg, "ENOSYS"))
			err = ENOSYS;
		else if (opt == 'e' && !strcmp(optarg, "EPERM"))
			err = EPERM;
		else if (opt == 's' && !pick_calls(optarg, pick))
			picked = 1;
		else if (opt == 'E' && !pick_calls(optarg, nosys))
			;
		else if (opt == 'P')
			perf310 = 1;
		else if (opt == 'Z')
			perf310 = 2;
		else
			return usage();
	}
	if (optind >= argc)
		return usage();

	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	n = deny(prog, n, nosys, ENOSYS);
	if (n > 4)
		snprintf(what, sizeof(what), "%s", "the -E calls with ENOSYS, ");
	if (perf310 == 2) {
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 __NR_perf_event_open, 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							 SECCOMP_RET_ERRNO | E2BIG);
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s",
			 "perf_event_open with E2BIG, ");
	} else if (perf310) {
		/* perf_event_open(attr, pid, cpu, group_fd, flags): flags is
		 * args[4]; its low word holds the flag (either byte order's
		 * low word: the kernel's flags are an unsigned long). */
		size_t lo = offsetof(struct seccomp_data, args[4]);

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		lo += 4;
#endif
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 __NR_perf_event_open, 0, 4);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)lo);
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
							 PERF_FLAG_FD_CLOEXEC, 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							 SECCOMP_RET_ERRNO | EINVAL);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s",
			 "perf_event_open with PERF_FLAG_FD_CLOEXEC with EINVAL, ");
	}
#ifdef FIRST_NEW
	if (!picked) {
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, URETPROBE, 2, 0);
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, FIRST_NEW, 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							 SECCOMP_RET_ERRNO | (unsigned)err);
		snprintf(what + strlen(what), sizeof(what) - strlen(what),
			 "every other call from %d up but %d ", FIRST_NEW, URETPROBE);
	}
#else
	if (!picked)
		for (size_t i = 0; i < NNEWER; i++)
			pick[i] = 1;
#endif
	n = deny(prog, n, pick, err);
	for (size_t i = 0; i < NNEWER; i++)
		if (pick[i])
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s ", newer[i].name);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	fprog.len = (unsigned short)n;
	fprog.filter = prog;

	/* Without CAP_SYS_ADMIN the kernel wants no_new_privs first. */
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) &&
	    (errno != EACCES || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	     prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog))) {
		fprintf(stderr, "enosys-exec: cannot install the seccomp filter: %s\n",
			strerror(errno));
		return 1;
	}
	fprintf(stderr, "enosys-exec: %sfail with %s\n", what, err == EPERM ? "EPERM" : "ENOSYS");
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "enosys-exec: cannot execute '%s': %s\n", argv[optind], strerror(errno));
	return 1;
#endif
}
