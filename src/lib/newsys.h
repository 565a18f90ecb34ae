/*
 * newsys: the system calls faultline makes that are newer than the oldest
 * kernel it runs on (RHEL 7's 3.10, whose x86_64 table ends at 313,
 * finit_module), each with its fallback or the words that explain its
 * refusal.  Measured with strace -f over every tool, of the dynamic and of
 * the static binary (glibc 2.36): faultline's own getrandom (safeout's
 * temporary names), and inside glibc getrandom (malloc's tcache key: any
 * failure falls back), rseq (any failure leaves it unregistered) and
 * clone3 (pthread_create: falls back to clone on ENOSYS only).  No statx,
 * memfd_create, pidfd_*, close_range, openat2 or faccessat2 is made.
 * tests/system/enosys.sh runs the tools with every newer call failing.
 */
#ifndef FAULTLINE_NEWSYS_H
#define FAULTLINE_NEWSYS_H

#include <stddef.h>

/*
 * newsys__random - fill @buf with @len random bytes
 *
 * getrandom(2) (Linux 3.17); when it fails with ENOSYS (an older kernel)
 * or EPERM (a seccomp policy that refuses the calls it does not know),
 * /dev/urandom.  Returns 0, or -errno of the source that failed.
 */
int newsys__random(void *buf, size_t len);

/*
 * newsys__thread_refusal - why pthread_create failed with @err, beyond
 * strerror(@err)
 *
 * glibc (2.34+) starts a thread with clone3 (Linux 5.3) and falls back to
 * clone only when clone3 fails with ENOSYS: under a seccomp policy that
 * answers EPERM for it (docker's default answers ENOSYS for this reason)
 * no thread starts.  For EPERM, probes clone3 with a null argument (a
 * kernel that has it says EINVAL, one without ENOSYS).  Returns a static
 * string to append to the message: ": " and a sentence naming the cause
 * and the remedy when clone3 itself is refused with EPERM, else "".
 */
const char *newsys__thread_refusal(int err);

#endif
