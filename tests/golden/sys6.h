/*
 * sys6.h: a raw x86-64 system call of up to six arguments, for the golden
 * targets built without libc (fault-target.c, sys-target.c,
 * swap-target.c: -static -nostdlib), so that no libc frame or call is in
 * their recordings.  Returns the kernel's value: -errno on failure.
 * Plain static, as it was in fault-target.c: with it the targets build to
 * the bytes of their committed binaries (data/bin/NAME.gz).
 */
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
