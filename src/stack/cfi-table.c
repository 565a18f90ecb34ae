/*
 * cfi-table: compact CFI rows of one binary.  See cfi-table.h.
 *
 * Rows are kept sorted by address in one array; a miss asks libdw for the
 * row (dwarf_cfi_addrframe gives its rules and where they end) and
 * inserts it.  The row starts at the pc asked for, not where libdw says:
 * after DW_CFA_restore_state libdw 0.188 reports the start of the state
 * remembered, rows earlier (glibc's own functions have such rows, which
 * test-cfi-table checks against libdw pc by pc), while the end is where
 * the next location change is, which is right.  A pc below a kept row then
 * makes a row of its own up to it.  A binary has a few thousand rows at
 * most that a process ever reaches, each asked for once.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "stack/cfi-table.h"
#include "lib/grow.h"
#include "lib/sorted.h"

enum {
	DW_RBP = 6,
	DW_RSP = 7,
};

struct cfi_table {
	Dwarf_CFI *cfi;		/* NULL: no .eh_frame */
	struct cfi_row *rows;
	size_t n, cap;
};

int cfi_table__new(Elf *elf, struct cfi_table **out)
{
	struct cfi_table *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	*out = t;
	return 0;
}

void cfi_table__free(struct cfi_table *t)
{
	if (!t)
		return;
	if (t->cfi)
		dwarf_cfi_end(t->cfi);
	free(t->rows);
	free(t);
}

size_t cfi_table__rows(const struct cfi_table *t)
{
	return t->n;
}

/* A register's rule as CFA + offset, undefined or unchanged; false for
 * anything else (another register, an expression, a value rule). */
static bool reg_rule(Dwarf_Frame *frame, int regno, uint8_t *rule, int32_t *off)
{
	Dwarf_Op ops_mem[3], *ops = NULL;
	size_t nops = 0;
	int64_t v = 0;

	if (dwarf_frame_register(frame, regno, ops_mem, &ops, &nops) != 0)
		return false;
	if (nops == 0) {
		/* libdw's encoding: ops_mem for undefined, NULL for same value. */
		*rule = ops == ops_mem ? CFI_REG_UNDEF : CFI_REG_SAME;
		*off = 0;
		return ops == ops_mem || ops == NULL;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
		v = (int64_t)ops[1].number;	/* a negative offset, wrapped */
	else if (nops != 1)
		return false;		/* DW_OP_stack_value: a value, not a slot */
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*rule = CFI_REG_AT;
	*off = (int32_t)v;
	return true;
}

/* The row libdw computes for @pc. */
static void lookup(struct cfi_table *t, uint64_t pc, struct cfi_row *row)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr start = 0, end = 0;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	bool signal = false;
	int ra;

	memset(row, 0, sizeof(*row));
	row->lo = pc;
	row->hi = pc + 1;
	row->kind = CFI_NONE;
	if (!t->cfi || dwarf_cfi_addrframe(t->cfi, pc, &frame) != 0)
		return;
	row->kind = CFI_COMPLEX;
	ra = dwarf_frame_info(frame, &start, &end, &signal);
	if (ra < 0 || start > pc || end <= pc)
		goto out;
	(void)start;	/* see above */
	row->hi = end;
	if (signal || dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_bregx || (ops[0].number != DW_RSP && ops[0].number != DW_RBP) ||
	    (int64_t)ops[0].number2 < INT32_MIN || (int64_t)ops[0].number2 > INT32_MAX)
		goto out;
	row->cfa_bp = ops[0].number == DW_RBP;
	row->cfa_off = (int32_t)(int64_t)ops[0].number2;
	if (!reg_rule(frame, ra, &row->ra_rule, &row->ra_off) || row->ra_rule == CFI_REG_SAME ||
	    !reg_rule(frame, DW_RBP, &row->bp_rule, &row->bp_off))
		goto out;
	row->kind = CFI_SIMPLE;
out:
	free(frame);
}

int cfi_table__find(struct cfi_table *t, uint64_t pc, struct cfi_row *row)
{
	size_t i = SORTED_UPTO(t->rows, t->n, lo, pc);

	if (i && pc < t->rows[i - 1].hi) {
		*row = t->rows[i - 1];
		return 0;
	}
	lookup(t, pc, row);
	/* A row libdw gives must not overlap its neighbours: trim it to the
	 * gap, so that the array stays sorted and disjoint. */
	if (i && row->lo < t->rows[i - 1].hi)
		row->lo = t->rows[i - 1].hi;
	if (i < t->n && row->hi > t->rows[i].lo)
		row->hi = t->rows[i].lo;
	if (row->lo > pc || row->hi <= pc) {
		row->lo = pc;
		row->hi = pc + 1;
	}
	if (GROW_FOR(t->rows, t->cap, t->n + 1, 64))
		return -ENOMEM;
	memmove(t->rows + i + 1, t->rows + i, (t->n - i) * sizeof(*t->rows));
	t->rows[i] = *row;
	t->n++;
	return 0;
}
