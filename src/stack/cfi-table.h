/*
 * cfi-table: one binary's call-frame information as compact rows, for the
 * unwinder's fast path.
 *
 * A DWARF walk spends most of its time finding and interpreting CFI: for
 * each frame libdw looks up the FDE, runs its instructions up to the pc and
 * builds a register-rule table, then evaluates each rule as an expression.
 * On x86-64 nearly every row says the same few things: the CFA is rsp or
 * rbp plus a constant, the return address and the caller's rbp are saved at
 * constant offsets from the CFA (or rbp is unchanged), as the Parca agent
 * and opentelemetry-ebpf-profiler compile .eh_frame for their unwinders.
 * This module asks libdw once per row (dwarf_cfi_addrframe on the binary's
 * .eh_frame) and keeps the answer in that form, sorted by address, so a
 * later pc in the same row costs a binary search.  A row it cannot express
 * (a CFA expression, a register rule other than these, a signal frame) is
 * kept as CFI_COMPLEX, and a pc without CFI as CFI_NONE: the caller then
 * unwinds that sample with libdw itself.
 *
 * Addresses are the ELF file's own vaddrs (no load bias).
 */
#ifndef FAULTLINE_CFI_TABLE_H
#define FAULTLINE_CFI_TABLE_H

#include <stdint.h>

#include <libelf.h>

enum cfi_kind {
	CFI_SIMPLE,	/* the rules below describe the row */
	CFI_COMPLEX,	/* CFI libdw must interpret */
	CFI_NONE,	/* no CFI for this pc */
};

enum cfi_reg_rule {
	CFI_REG_SAME,	/* unchanged from the callee */
	CFI_REG_AT,	/* saved at CFA + offset */
	CFI_REG_UNDEF,	/* not recoverable (for the return address: the outermost frame) */
};

struct cfi_row {
	uint64_t lo, hi;	/* [lo, hi): the pcs this row covers */
	int32_t cfa_off;	/* CFA = (cfa_bp ? rbp : rsp) + cfa_off */
	int32_t ra_off;		/* the return address's offset from the CFA (CFI_REG_AT) */
	int32_t bp_off;		/* rbp's, likewise */
	uint8_t kind;		/* enum cfi_kind */
	uint8_t cfa_bp;		/* CFA based on rbp (else rsp) */
	uint8_t ra_rule;	/* enum cfi_reg_rule: AT or UNDEF (else the row is complex) */
	uint8_t bp_rule;	/* enum cfi_reg_rule */
};

struct cfi_table;

/*
 * Rows of @elf's .eh_frame, filled as pcs are asked for.  @elf is
 * borrowed: it must outlive the table.  0, or -ENOMEM; a binary without
 * .eh_frame gives a table whose every pc is CFI_NONE.
 */
int cfi_table__new(Elf *elf, struct cfi_table **out);
/* NULL is fine. */
void cfi_table__free(struct cfi_table *t);

/*
 * The row covering @pc (a vaddr of the ELF file) into *@row: 0, or
 * -ENOMEM.  Rows of kind CFI_NONE cover the one pc asked for.
 */
int cfi_table__find(struct cfi_table *t, uint64_t pc, struct cfi_row *row);

/* Rows kept (for tests and statistics). */
size_t cfi_table__rows(const struct cfi_table *t);

#endif
