/*
 * uprobe-place: decide an entry probe's offset from instruction bytes.
 * See uprobe-place.h.  The emulated set follows arch/x86/kernel/uprobes.c
 * of current kernels (branch_setup_xol_ops: jmp, call, jcc, nop;
 * push_setup_xol_ops: push of a 64-bit register).
 */
#include "trace/uprobe-place.h"

bool uprobe_place__emulated(const uint8_t *c, size_t n)
{
	if (n < 1)
		return false;
	if (c[0] >= 0x50 && c[0] <= 0x57)			/* push %rax..%rdi */
		return true;
	if (n >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57)	/* push %r8..%r15 */
		return true;
	if (c[0] == 0x90 || c[0] == 0xe8 || c[0] == 0xe9 || c[0] == 0xeb)	/* nop call jmp */
		return true;
	if (c[0] >= 0x70 && c[0] <= 0x7f)			/* jcc rel8 */
		return true;
	if (n >= 2 && c[0] == 0x0f && c[1] >= 0x80 && c[1] <= 0x8f)	/* jcc rel32 */
		return true;
	if (n >= 2 && c[0] == 0x66 && c[1] == 0x90)		/* xchg %ax,%ax */
		return true;
	return false;
}

/* Length of an instruction that changes no register but the flags, or 0. */
static size_t flag_only_len(const uint8_t *c, size_t n)
{
	size_t rex = n >= 1 && (c[0] & 0xf0) == 0x40;	/* REX prefix */
	const uint8_t *op = c + rex;

	if (n >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		return 4;					/* endbr64 */
	if (n < rex + 2)
		return 0;
	/* test r/m, r and cmp r/m, r / r, r/m, register forms only (modrm
	 * mod == 3: no memory operand, so no fault can happen there). */
	if ((op[0] == 0x84 || op[0] == 0x85 || op[0] == 0x38 || op[0] == 0x39 ||
	     op[0] == 0x3a || op[0] == 0x3b) && (op[1] >> 6) == 3)
		return rex + 2;
	/* cmp $imm8, register (83 /7 ib) and cmp $imm32, register (81 /7 id). */
	if (n >= rex + 3 && op[0] == 0x83 && (op[1] >> 6) == 3 && ((op[1] >> 3) & 7) == 7)
		return rex + 3;
	if (n >= rex + 6 && op[0] == 0x81 && (op[1] >> 6) == 3 && ((op[1] >> 3) & 7) == 7)
		return rex + 6;
	return 0;
}

size_t uprobe_place__skip(const uint8_t *code, size_t n)
{
	size_t off = 0;

	if (uprobe_place__emulated(code, n))
		return 0;
	for (int i = 0; i < 3; i++) {
		size_t len = flag_only_len(code + off, n - off);

		if (!len)
			return 0;
		off += len;
		if (uprobe_place__emulated(code + off, n - off))
			return off;
	}
	return 0;
}
