/*
 * no-malloc: a static program with no allocator at all (no libc: built
 * with -static -nostdlib), for tests/system/alloc-where.sh: `faultline
 * leak` must say in one line that there is no malloc to probe, for -c and
 * for -p, and exit 1.
 *
 *   no-malloc          exit 0 at once
 *   no-malloc wait     pause(2) until a signal ends it
 *
 * x86-64 only: _start is the raw system calls.
 */
__attribute__((naked, noreturn, used)) void _start(void)
{
	__asm__ volatile("mov (%rsp), %rdi\n\t"	/* argc */
			 "cmp $1, %rdi\n\t"
			 "jle 1f\n\t"
			 "mov $34, %eax\n\t"	/* pause */
			 "syscall\n"
			 "1:\n\t"
			 "mov $60, %eax\n\t"	/* exit(0) */
			 "xor %edi, %edi\n\t"
			 "syscall\n\t"
			 "hlt");
}
