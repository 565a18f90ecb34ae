/*
 * test-cfi-table: the compact CFI rows against libdw's own answers, on
 * libc (a real binary with thousands of FDEs, hand-written assembly among
 * them) and on this test's own code.
 *
 * For pcs spread over libc's text: the row covers the pc; a simple row's
 * rules are what dwarf_cfi_addrframe gives at every pc of a sample within
 * the row (so the row's range is right, not only its start); asking again,
 * after thousands of other rows were inserted, gives the same row (the
 * array stays sorted and disjoint).  A pc outside every FDE is CFI_NONE,
 * and so is every pc of a binary without .eh_frame.
 */
#include <dwarf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

#include <elfutils/libdw.h>
#include <gelf.h>

#include "stack/cfi-table.h"
#include "check.h"

enum { MAX_PCS = 4000 };

struct want {
	uint64_t pc;
	struct cfi_row row;
};

/* libdw's row at @pc in the terms of struct cfi_row, or false when it is
 * not simple; the same rules cfi-table.c applies, restated. */
static bool libdw_row(Dwarf_CFI *cfi, uint64_t pc, struct cfi_row *r)
{
	Dwarf_Frame *f = NULL;
	Dwarf_Op mem[3], *ops = NULL;
	size_t nops = 0;
	bool ok = false;
	int ra;

	memset(r, 0, sizeof(*r));
	if (dwarf_cfi_addrframe(cfi, pc, &f) != 0)
		return false;
	ra = dwarf_frame_info(f, NULL, NULL, NULL);
	if (ra < 0 || dwarf_frame_cfa(f, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_bregx)
		goto out;
	r->cfa_bp = ops[0].number == 6;
	r->cfa_off = (int32_t)(int64_t)ops[0].number2;
	if (dwarf_frame_register(f, ra, mem, &ops, &nops) != 0)
		goto out;
	if (nops == 0 && ops == mem)
		r->ra_rule = CFI_REG_UNDEF;
	else if (nops >= 1 && ops[0].atom == DW_OP_call_frame_cfa)
		r->ra_rule = CFI_REG_AT, r->ra_off = nops == 2 ? (int32_t)(int64_t)ops[1].number : 0;
	if (dwarf_frame_register(f, 6, mem, &ops, &nops) != 0)
		goto out;
	if (nops == 0)
		r->bp_rule = ops == mem ? CFI_REG_UNDEF : CFI_REG_SAME;
	else if (ops[0].atom == DW_OP_call_frame_cfa)
		r->bp_rule = CFI_REG_AT, r->bp_off = nops == 2 ? (int32_t)(int64_t)ops[1].number : 0;
	ok = true;
out:
	free(f);
	return ok;
}

static bool same_rules(const struct cfi_row *a, const struct cfi_row *b)
{
	return a->cfa_bp == b->cfa_bp && a->cfa_off == b->cfa_off && a->ra_rule == b->ra_rule &&
	       (a->ra_rule != CFI_REG_AT || a->ra_off == b->ra_off) && a->bp_rule == b->bp_rule &&
	       (a->bp_rule != CFI_REG_AT || a->bp_off == b->bp_off);
}

static int libc_path(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so")) {
		snprintf(data, 4096, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* The executable section holding .text of @elf: [lo, hi). */
static bool text_of(Elf *elf, uint64_t *lo, uint64_t *hi)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".text")) {
			*lo = sh.sh_addr;
			*hi = sh.sh_addr + sh.sh_size;
			return true;
		}
	}
	return false;
}

static void test_libc(void)
{
	static char path[4096];
	static struct want want[MAX_PCS];
	struct cfi_table *t = NULL;
	Dwarf_CFI *cfi;
	uint64_t lo = 0, hi = 0;
	size_t nwant = 0, simple = 0, complex = 0;
	Elf *elf;
	int fd;

	dl_iterate_phdr(libc_path, path);
	CHECK(path[0] != 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	CHECK(elf != NULL);
	cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	CHECK(cfi != NULL);
	CHECK(elf && text_of(elf, &lo, &hi) && hi > lo);
	CHECK_EQ_U64(cfi_table__new(elf, &t), 0);
	if (!t || !cfi || hi <= lo)
		goto out;
	srand(7);
	for (size_t i = 0; i < MAX_PCS; i++) {
		uint64_t pc = lo + ((uint64_t)rand() * RAND_MAX + (uint64_t)rand()) % (hi - lo);
		struct cfi_row row, ref;

		CHECK_EQ_U64(cfi_table__find(t, pc, &row), 0);
		CHECK(row.lo <= pc && pc < row.hi);
		if (row.kind == CFI_NONE)
			continue;
		if (row.kind == CFI_COMPLEX) {
			complex++;
			continue;
		}
		simple++;
		/* The rules hold over the whole row: its ends and middle. */
		for (uint64_t probe = row.lo; probe < row.hi; probe += (row.hi - row.lo + 2) / 3) {
			CHECK(libdw_row(cfi, probe, &ref));
			CHECK(same_rules(&row, &ref));
		}
		want[nwant].pc = pc;
		want[nwant++].row = row;
	}
	/* Libc's text is almost all covered by simple rows. */
	CHECK(simple > MAX_PCS / 2);
	printf("libc: %zu simple, %zu complex of %d pcs; %zu rows kept\n", simple, complex, MAX_PCS,
	       cfi_table__rows(t));
	for (size_t i = 0; i < nwant; i++) {
		struct cfi_row row;

		CHECK_EQ_U64(cfi_table__find(t, want[i].pc, &row), 0);
		CHECK(row.lo == want[i].row.lo && row.hi == want[i].row.hi && same_rules(&row, &want[i].row));
	}
	{
		/* No FDE covers an address below the first section. */
		struct cfi_row row;

		CHECK_EQ_U64(cfi_table__find(t, 1, &row), 0);
		CHECK_EQ_U64(row.kind, CFI_NONE);
		CHECK(row.lo == 1 && row.hi == 2);
	}
out:
	cfi_table__free(t);
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
}

static void test_no_cfi(void)
{
	struct cfi_table *t = NULL;
	struct cfi_row row;

	CHECK_EQ_U64(cfi_table__new(NULL, &t), 0);
	CHECK_EQ_U64(cfi_table__find(t, 0x1000, &row), 0);
	CHECK_EQ_U64(row.kind, CFI_NONE);
	CHECK_EQ_U64(cfi_table__rows(t), 1);
	cfi_table__free(t);
	cfi_table__free(NULL);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_libc();
	test_no_cfi();
	return check_done("test-cfi-table");
}
