/*
 * start.h: the _start of the golden targets (alloc-target.c,
 * fault-target.c), in place of libc's start files: no __libc_start_main
 * frame below their own, on any host.  The kernel enters with the stack
 * pointer at argc; it calls start_c(sp), %rbp 0 ending the frame chain
 * and the call keeping the ABI's 16-byte alignment.  start_c must not
 * return.  x86-64 only (regen.sh builds the targets here; the test only
 * reads the committed binaries).
 */
void start_c(long *sp) __attribute__((noreturn, used));

__asm__(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	.cfi_startproc\n"
	"	.cfi_undefined rip\n"
	"	xorl %ebp, %ebp\n"
	"	movq %rsp, %rdi\n"
	"	andq $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n"
	"	.cfi_endproc\n"
	".size _start, .-_start\n");
